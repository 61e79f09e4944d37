/*
 * builders/schedules — learning-rate decay, moving averages and the L2 regularizer, with the
 * node names TF 1.x's Python gives them:
 *
 *   tf.train.exponential_decay -> "ExponentialDecay/{initial_learning_rate, Cast/x, Cast_1/x,
 *       Cast_2 (the step as float), truediv, Floor (staircase), Pow}" and the Mul
 *       "ExponentialDecay" = lr * rate ^ p;
 *   ExponentialMovingAverage(decay, num_updates).apply(vars) -> per variable the shadow
 *       "<var>/ExponentialMovingAverage" (colocated with the variable), then under
 *       "ExponentialMovingAverage/": decay, [num_updates, add, add_1, truediv, Minimum], and per
 *       variable "AssignMovingAvg[_k]/{sub/x, sub, sub_1, mul}" and the AssignSub
 *       "AssignMovingAvg[_k]" (shadow -= (shadow - var) * (1 - decay)); the group
 *       "ExponentialMovingAverage";
 *   l2_regularizer(scale)(w) -> "l2_regularizer/{scale, L2Loss}" and the Mul "l2_regularizer".
 *
 * One difference from Python: a shadow variable starts from its variable's initial value (the
 * tensor the variable's Assign takes). Python's var.initialized_value() wraps that in a cond
 * (IsVariableInitialized, Switch/Merge) that yields the variable's current value when it is
 * already initialized; tfc's op table has no Switch/Merge yet. The two agree whenever the
 * shadow is initialized together with its variable, the usual global-initializer case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "tensor/dtype.h"

/* A scope name under w (unique) plus its exact-name form "<scope>/". */
static int open_scope(bld_call *c, const char *parent, const char *base, char **scope, char **exact) {
  *scope = bld_unique(c, parent, base);
  *exact = NULL;
  if (!*scope) return c->s->code;
  if (asprintf(exact, "%s/", *scope) < 0) {
    *exact = NULL;
    return TFC_OOM(c->s);
  }
  return TFC_OK;
}

/* Python's `number OP tensor` inside a name scope: "<op scope>/x" Const, then the op named
 * exactly after its scope. */
static tfc_endpoint number_op(bld_call *c, const bld_where *w, const char *type, const char *base, double x,
                              tfc_endpoint t) {
  char *sc = NULL, *ex = NULL;
  tfc_endpoint r = {NULL, 0};
  if (!open_scope(c, w->scope, base, &sc, &ex)) {
    bld_where in = *w, root = *w;
    in.scope = sc;
    root.scope = "";
    tfc_endpoint ins[2] = {bld_scalar(c, &in, "x", bld_dtype(t), x), t};
    r = bld_op0(c, &root, type, ex, ins, 2, NULL, 0);
  }
  free(sc);
  free(ex);
  return r;
}

/* math_ops.cast(x, dtype) under its own name scope `base` (taken even when no Cast is
 * needed, as Python enters it first); a Python number becomes "<scope>/x". */
static tfc_endpoint scoped_cast(bld_call *c, const bld_where *w, const char *base, tfc_endpoint x, double number,
                                int dtype) {
  char *sc = NULL, *ex = NULL;
  tfc_endpoint r = {NULL, 0};
  if (!open_scope(c, w->scope, base, &sc, &ex)) {
    bld_where in = *w, root = *w;
    in.scope = sc;
    root.scope = "";
    if (!x.node) r = bld_scalar(c, &in, "x", dtype, number);
    else r = bld_cast(c, &root, x, dtype, ex);
  }
  free(sc);
  free(ex);
  return r;
}

TFC_EXPORT TF_Output TFC_ExponentialDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                         double decay_steps, double decay_rate, unsigned char staircase,
                                         TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return o;
  }
  tfc_endpoint r = {NULL, 0};
  char *sc = NULL, *ex = NULL;
  if (!bld_check_output(&c, global_step, "global_step") && !open_scope(&c, scope->name, bld_builder_name(scope, "ExponentialDecay"), &sc, &ex)) {
    bld_where w = bld_where_of(scope, sc), root = bld_where_of(scope, "");
    tfc_endpoint none = {NULL, 0};
    tfc_endpoint lr = bld_scalar(&c, &w, "initial_learning_rate", TFC_DT_FLOAT, learning_rate);
    tfc_endpoint steps = scoped_cast(&c, &w, "Cast", none, decay_steps, TFC_DT_FLOAT);
    tfc_endpoint rate = scoped_cast(&c, &w, "Cast", none, decay_rate, TFC_DT_FLOAT);
    tfc_endpoint step = scoped_cast(&c, &w, "Cast", tfc_capi_endpoint(global_step), 0, TFC_DT_FLOAT);
    tfc_endpoint d[2] = {step, steps};
    tfc_endpoint p = bld_op0(&c, &w, "RealDiv", "truediv", d, 2, NULL, 0);
    if (staircase) p = bld_op0(&c, &w, "Floor", NULL, &p, 1, NULL, 0);
    tfc_endpoint pw[2] = {rate, p};
    tfc_endpoint pow = bld_op0(&c, &w, "Pow", NULL, pw, 2, NULL, 0);
    tfc_endpoint m[2] = {lr, pow};
    r = bld_op0(&c, &root, "Mul", ex, m, 2, NULL, 0);
  }
  free(sc);
  free(ex);
  o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

/* The tensor a variable was initialized from (its Assign's value), else its value. */
static tfc_endpoint initial_value_of(const TFC_Variable *v) {
  const tfc_node *a = tfc_capi_node(v->initializer);
  if (a && a->n_inputs == 2) return a->inputs[1];
  return tfc_capi_endpoint(v->value);
}

static tfc_node *ema_locked(bld_call *c, const TFC_Scope *scope, double decay, TF_Output num_updates,
                            const TFC_Variable *vars, int n, TFC_Variable *shadows) {
  for (int i = 0; i < n; i++) {
    if (!vars[i].variable || !vars[i].value.oper) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "variable %d is missing (NULL operation)", i);
      return NULL;
    }
    if (bld_check_output(c, (TF_Output){vars[i].variable, 0}, "variable")) return NULL;
  }
  if (num_updates.oper && bld_check_output(c, num_updates, "num_updates")) return NULL;
  /* 1. Shadows (init_scope; variable-scope names are absolute). */
  for (int i = 0; i < n; i++) {
    tfc_node *var = tfc_capi_node(vars[i].variable);
    char *base = NULL;
    if (asprintf(&base, "%s/ExponentialMovingAverage", var->name) < 0) {
      TFC_OOM(c->s);
      return NULL;
    }
    bld_where w = {"", scope->device, NULL, NULL, NULL, NULL, 0};
    bld_init init = {initial_value_of(&vars[i]), 0, 0, 0, 0, {0}};
    int rc = bld_variable(c, &w, base, 0, &init, 0, var, 0, &shadows[i]);
    free(base);
    if (rc) return NULL;
  }
  /* 2. The decay. */
  char *sc = NULL, *ex = NULL;
  tfc_node *r = NULL;
  tfc_node **updates = calloc((size_t)n + 1, sizeof *updates);
  if (!updates) {
    TFC_OOM(c->s);
    return NULL;
  }
  if (open_scope(c, scope->name, "ExponentialMovingAverage", &sc, &ex)) goto done;
  bld_where w = bld_where_of(scope, sc);
  tfc_endpoint d = bld_scalar(c, &w, "decay", TFC_DT_FLOAT, decay);
  if (num_updates.oper) {
    tfc_endpoint nu = scoped_cast(c, &w, "num_updates", tfc_capi_endpoint(num_updates), 0, TFC_DT_FLOAT);
    tfc_endpoint q[2] = {number_op(c, &w, "AddV2", "add", 1.0, nu), number_op(c, &w, "AddV2", "add", 10.0, nu)};
    tfc_endpoint ratio = bld_op0(c, &w, "RealDiv", "truediv", q, 2, NULL, 0);
    tfc_endpoint mn[2] = {d, ratio};
    d = bld_op0(c, &w, "Minimum", NULL, mn, 2, NULL, 0);
  }
  /* 3. One AssignSub per variable. */
  for (int i = 0; i < n && tfc_status_ok(c->s); i++) {
    char *am = NULL, *amx = NULL;
    if (open_scope(c, sc, "AssignMovingAvg", &am, &amx)) {
      free(am);
      break;
    }
    bld_where aw = w, root = w;
    aw.scope = am;
    root.scope = "";
    int dt = bld_dtype(tfc_capi_endpoint(vars[i].value));
    tfc_endpoint one_minus = bld_cast(c, &aw, number_op(c, &aw, "Sub", "sub", 1.0, d), dt, NULL);
    tfc_endpoint diff[2] = {tfc_capi_endpoint(shadows[i].value), tfc_capi_endpoint(vars[i].value)};
    tfc_endpoint delta = bld_op0(c, &aw, "Sub", "sub", diff, 2, NULL, 0);
    tfc_endpoint mm[2] = {delta, one_minus};
    tfc_endpoint step = bld_op0(c, &aw, "Mul", "mul", mm, 2, NULL, 0);
    root.coloc = tfc_capi_node(shadows[i].variable);
    tfc_endpoint ins[2] = {{tfc_capi_node(shadows[i].variable), 0}, step};
    bld_attr l[1] = {{"use_locking", tfc_attr_bool(0)}};
    updates[i] = bld_op(c, &root, "AssignSub", amx, ins, 2, l, 1);
    free(am);
    free(amx);
  }
  if (tfc_status_ok(c->s)) {
    bld_where gw = w;
    gw.scope = "";
    r = n ? bld_group(c, &gw, updates, n, ex) : bld_op(c, &gw, "NoOp", ex, NULL, 0, NULL, 0);
  }
done:
  free(updates);
  free(sc);
  free(ex);
  return tfc_status_ok(c->s) ? r : NULL;
}

TFC_EXPORT TF_Operation *TFC_ExponentialMovingAverage(const TFC_Scope *scope, double decay, TF_Output num_updates,
                                                     const TFC_Variable *vars, int num_vars, TFC_Variable *averages,
                                                     TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Operation *r = NULL;
  if (!scope || num_vars < 0 || (num_vars && !vars)) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT,
                   "TFC_ExponentialMovingAverage: invalid arguments");
    tfc_status_fini(&scratch);
    return NULL;
  }
  if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return NULL;
  }
  TFC_Variable *sh = calloc((size_t)num_vars + 1, sizeof *sh);
  tfc_node *op = NULL;
  if (!sh) TFC_OOM(c.s);
  else op = ema_locked(&c, scope, decay, num_updates, vars, num_vars, sh);
  if (bld_end(&c) == TFC_OK) {
    r = tfc_capi_oper(op);
    if (averages) memcpy(averages, sh, sizeof *sh * (size_t)num_vars);
  }
  free(sh);
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT TF_Output TFC_L2Regularizer(const TFC_Scope *scope, double scale, TF_Output weights, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return o;
  }
  tfc_endpoint r = {NULL, 0};
  if (scale < 0) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "Setting a scale less than 0 on a regularizer: %g", scale);
  } else if (scale > 0 && !bld_check_output(&c, weights, "weights")) {
    /* scale 0 disables the regularizer (Python returns None): nothing is added. */
    char *sc = NULL, *ex = NULL;
    if (!open_scope(&c, scope->name, bld_builder_name(scope, "l2_regularizer"), &sc, &ex)) {
      bld_where w = bld_where_of(scope, sc), root = bld_where_of(scope, "");
      tfc_endpoint wt = tfc_capi_endpoint(weights);
      tfc_endpoint s = bld_scalar(&c, &w, "scale", bld_dtype(wt), scale);
      tfc_endpoint l2 = bld_op0(&c, &w, "L2Loss", NULL, &wt, 1, NULL, 0);
      tfc_endpoint m[2] = {s, l2};
      r = bld_op0(&c, &root, "Mul", ex, m, 2, NULL, 0);
    }
    free(sc);
    free(ex);
  }
  o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}
