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
 *       "AssignMovingAvg[_k]" (shadow -= (shadow - var) * (1 - decay)), all colocated with
 *       the shadow; the group
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

/* Python's `tensor OP number`: "<op scope>/y" Const, then the op named after its scope. */
static tfc_endpoint op_number(bld_call *c, const bld_where *w, const char *type, const char *base, tfc_endpoint t,
                              double y) {
  char *sc = NULL, *ex = NULL;
  tfc_endpoint r = {NULL, 0};
  if (!open_scope(c, w->scope, base, &sc, &ex)) {
    bld_where in = *w, root = *w;
    in.scope = sc;
    root.scope = "";
    tfc_endpoint ins[2] = {t, bld_scalar(c, &in, "y", bld_dtype(t), y)};
    r = bld_op0(c, &root, type, ex, ins, 2, NULL, 0);
  }
  free(sc);
  free(ex);
  return r;
}

/* A binary op of two tensors named `name` (made unique in w's scope). */
static tfc_endpoint bin(bld_call *c, const bld_where *w, const char *type, const char *name, tfc_endpoint a,
                        tfc_endpoint b) {
  tfc_endpoint ins[2] = {a, b};
  return bld_op0(c, w, type, name, ins, 2, NULL, 0);
}

static tfc_endpoint un(bld_call *c, const bld_where *w, const char *type, tfc_endpoint a) {
  return bld_op0(c, w, type, NULL, &a, 1, NULL, 0);
}

/* A decay body: builds the schedule inside its name scope `w` (the op named exactly `exact`
 * closes it at `root`), from the step (any real type) and the builder's numbers. */
typedef tfc_endpoint (*decay_body)(bld_call *c, const bld_where *w, const bld_where *root, const char *exact,
                                   tfc_endpoint step, const double *p, tfc_endpoint extra);

/* The frame of every schedule: arguments checked, the builder's name scope (its name= or
 * `dflt`) opened, "initial_learning_rate" is the body's business. */
static TF_Output run_decay(const TFC_Scope *scope, const char *dflt, TF_Output global_step, decay_body body,
                           const double *p, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return o;
  }
  tfc_endpoint r = {NULL, 0};
  char *sc = NULL, *ex = NULL;
  if (!bld_check_output(&c, global_step, "global_step") &&
      !open_scope(&c, scope->name, bld_builder_name(scope, dflt), &sc, &ex)) {
    bld_where w = bld_where_of(scope, sc), root = bld_where_of(scope, "");
    tfc_endpoint none = {NULL, 0};
    r = body(&c, &w, &root, ex, tfc_capi_endpoint(global_step), p, none);
  }
  free(sc);
  free(ex);
  o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

/* p: lr, decay_steps, decay_rate, staircase; `rate` (a float tensor, natural_exp_decay's
 * exp(-rate)) replaces p[2] when given. */
static tfc_endpoint exp_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex, tfc_endpoint step,
                             const double *p, tfc_endpoint rate) {
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  /* cast() of a float tensor returns it before opening its scope. */
  if (!rate.node) rate = scoped_cast(c, w, "Cast", none, p[2], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  tfc_endpoint q = bin(c, w, "RealDiv", "truediv", s, steps);
  if (p[3] != 0) q = un(c, w, "Floor", q);
  tfc_endpoint pw = bin(c, w, "Pow", NULL, rate, q);
  return bin(c, root, "Mul", ex, lr, pw);
}

TFC_EXPORT TF_Output TFC_ExponentialDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                         double decay_steps, double decay_rate, unsigned char staircase,
                                         TF_Status *status) {
  double p[4] = {learning_rate, decay_steps, decay_rate, staircase};
  return run_decay(scope, "ExponentialDecay", global_step, exp_body, p, status);
}

TFC_EXPORT TF_Output TFC_NaturalExpDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
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
  char *sc = NULL, *ex = NULL, *ns = NULL, *nx = NULL;
  if (!bld_check_output(&c, global_step, "global_step") && !open_scope(&c, scope->name, "Neg", &ns, &nx)) {
    /* exp(-decay_rate) in the caller's scope ("Neg/x", "Neg", "Exp"), then ExponentialDecay. */
    bld_where caller = bld_where_of(scope, scope->name), in = bld_where_of(scope, ns), root = bld_where_of(scope, "");
    tfc_endpoint x = bld_scalar(&c, &in, "x", TFC_DT_FLOAT, decay_rate);
    tfc_endpoint rate = un(&c, &caller, "Exp", bld_op0(&c, &root, "Neg", nx, &x, 1, NULL, 0));
    if (tfc_status_ok(c.s) && !open_scope(&c, scope->name, bld_builder_name(scope, "ExponentialDecay"), &sc, &ex)) {
      bld_where w = bld_where_of(scope, sc);
      double p[4] = {learning_rate, decay_steps, decay_rate, staircase};
      r = exp_body(&c, &w, &root, ex, tfc_capi_endpoint(global_step), p, rate);
    }
  }
  free(sc);
  free(ex);
  free(ns);
  free(nx);
  o = bld_end_output(&c, r);
  tfc_status_fini(&scratch);
  return o;
}

/* p: lr, decay_steps, end_learning_rate, power, cycle. */
static tfc_endpoint poly_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex, tfc_endpoint step,
                              const double *p, tfc_endpoint unused) {
  (void)unused;
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint end = scoped_cast(c, w, "Cast", none, p[2], TFC_DT_FLOAT);
  tfc_endpoint power = scoped_cast(c, w, "Cast", none, p[3], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  if (p[4] != 0) {
    /* decay_steps * (step == 0 ? 1 : ceil(step / decay_steps)) */
    tfc_endpoint zero = op_number(c, w, "Equal", "Equal", s, 0);
    tfc_endpoint ce = un(c, w, "Ceil", op_number(c, w, "RealDiv", "truediv", s, p[1]));
    char *ssc = NULL, *sex = NULL;
    if (!open_scope(c, w->scope, "SelectV2", &ssc, &sex)) {
      bld_where in = *w, at = *w;
      in.scope = ssc;
      at.scope = "";
      tfc_endpoint ins[3] = {zero, bld_scalar(c, &in, "t", TFC_DT_FLOAT, 1.0), ce};
      tfc_endpoint mult = bld_op0(c, &at, "SelectV2", sex, ins, 3, NULL, 0);
      steps = bin(c, w, "Mul", NULL, steps, mult);
    }
    free(ssc);
    free(sex);
  } else {
    s = bin(c, w, "Minimum", NULL, s, steps);
  }
  tfc_endpoint frac = bin(c, w, "RealDiv", "truediv", s, steps);
  tfc_endpoint diff = bin(c, w, "Sub", "sub", lr, end);
  tfc_endpoint pw = bin(c, w, "Pow", NULL, number_op(c, w, "Sub", "sub", 1.0, frac), power);
  return bin(c, root, "AddV2", ex, bin(c, w, "Mul", NULL, diff, pw), end);
}

TFC_EXPORT TF_Output TFC_PolynomialDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                        double decay_steps, double end_learning_rate, double power,
                                        unsigned char cycle, TF_Status *status) {
  double p[5] = {learning_rate, decay_steps, end_learning_rate, power, cycle};
  return run_decay(scope, "PolynomialDecay", global_step, poly_body, p, status);
}

/* p: lr, decay_steps, decay_rate, staircase. lr / (1 + rate * step / steps). */
static tfc_endpoint inv_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex, tfc_endpoint step,
                             const double *p, tfc_endpoint unused) {
  (void)unused;
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  tfc_endpoint rate = scoped_cast(c, w, "Cast", none, p[2], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  tfc_endpoint q = bin(c, w, "RealDiv", "truediv", s, steps);
  if (p[3] != 0) q = un(c, w, "Floor", q);
  /* Python casts constant(1) (an int32 "Const") to the learning rate's type. */
  tfc_endpoint one = scoped_cast(c, w, "Cast", bld_scalar(c, w, "Const", TFC_DT_INT32, 1), 0, TFC_DT_FLOAT);
  tfc_endpoint denom = bin(c, w, "AddV2", "Add", one, bin(c, w, "Mul", NULL, rate, q));
  return bin(c, root, "RealDiv", ex, lr, denom);
}

TFC_EXPORT TF_Output TFC_InverseTimeDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                         double decay_steps, double decay_rate, unsigned char staircase,
                                         TF_Status *status) {
  double p[4] = {learning_rate, decay_steps, decay_rate, staircase};
  return run_decay(scope, "InverseTimeDecay", global_step, inv_body, p, status);
}

/* 0.5 * (1 + cos(pi * x)) with the names Python gives it ("Const", "mul", "Cos", "add/x",
 * "add", "mul_k/x", "mul_k"); `scale` (SGDR's m_mul ** i) multiplies the 0.5 first. */
static tfc_endpoint half_cosine(bld_call *c, const bld_where *w, tfc_endpoint x, tfc_endpoint scale) {
  tfc_endpoint half = scale.node ? number_op(c, w, "Mul", "mul", 0.5, scale) : (tfc_endpoint){NULL, 0};
  tfc_endpoint pi = bld_scalar(c, w, "Const", TFC_DT_FLOAT, 3.14159265358979323846);
  tfc_endpoint cs = un(c, w, "Cos", bin(c, w, "Mul", "mul", pi, x));
  tfc_endpoint onep = number_op(c, w, "AddV2", "add", 1.0, cs);
  return half.node ? bin(c, w, "Mul", "mul", half, onep) : number_op(c, w, "Mul", "mul", 0.5, onep);
}

/* p: lr, decay_steps, alpha. */
static tfc_endpoint cos_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex, tfc_endpoint step,
                             const double *p, tfc_endpoint unused) {
  (void)unused;
  (void)root;
  (void)ex;
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  s = bin(c, w, "Minimum", NULL, s, steps);
  tfc_endpoint cd = half_cosine(c, w, bin(c, w, "RealDiv", "truediv", s, steps), none);
  tfc_endpoint decayed = op_number(c, w, "AddV2", "add", number_op(c, w, "Mul", "mul", 1.0 - p[2], cd), p[2]);
  /* Python multiplies without name=: the result is "<scope>/Mul_k", not the scope itself. */
  return bin(c, w, "Mul", "Mul", lr, decayed);
}

TFC_EXPORT TF_Output TFC_CosineDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                    double decay_steps, double alpha, TF_Status *status) {
  double p[3] = {learning_rate, decay_steps, alpha};
  return run_decay(scope, "CosineDecay", global_step, cos_body, p, status);
}

/* p: lr, first_decay_steps, t_mul, m_mul, alpha. Python picks the restart arithmetic with a
 * cond on t_mul == 1; t_mul is a number here, so the branch is chosen while building and its
 * nodes go under "<scope>/cond/". */
static tfc_endpoint sgdr_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex,
                              tfc_endpoint step, const double *p, tfc_endpoint unused) {
  (void)unused;
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  tfc_endpoint alpha = scoped_cast(c, w, "Cast", none, p[4], TFC_DT_FLOAT);
  tfc_endpoint t_mul = scoped_cast(c, w, "Cast", none, p[2], TFC_DT_FLOAT);
  tfc_endpoint m_mul = scoped_cast(c, w, "Cast", none, p[3], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  tfc_endpoint frac = bin(c, w, "RealDiv", "truediv", s, steps);
  char *cs = NULL, *cx = NULL;
  tfc_endpoint i_restart = none, r = none;
  if (open_scope(c, w->scope, "cond", &cs, &cx)) return none;
  bld_where cw = *w;
  cw.scope = cs;
  if (p[2] == 1.0) {
    i_restart = un(c, &cw, "Floor", frac);
    frac = bin(c, &cw, "Sub", "sub", frac, i_restart);
  } else {
    /* i = floor(log(1 - frac * (1 - t_mul)) / log(t_mul));
     * frac = (frac - (1 - t_mul^i) / (1 - t_mul)) / t_mul^i */
    tfc_endpoint omt = number_op(c, &cw, "Sub", "sub", 1.0, t_mul);
    tfc_endpoint lg = un(c, &cw, "Log", number_op(c, &cw, "Sub", "sub", 1.0, bin(c, &cw, "Mul", "mul", frac, omt)));
    i_restart = un(c, &cw, "Floor", bin(c, &cw, "RealDiv", "truediv", lg, un(c, &cw, "Log", t_mul)));
    tfc_endpoint tp = bin(c, &cw, "Pow", "pow", t_mul, i_restart);
    tfc_endpoint sum_r = bin(c, &cw, "RealDiv", "truediv", number_op(c, &cw, "Sub", "sub", 1.0, tp), omt);
    frac = bin(c, &cw, "RealDiv", "truediv", bin(c, &cw, "Sub", "sub", frac, sum_r), tp);
  }
  free(cs);
  free(cx);
  tfc_endpoint m_fac = bin(c, w, "Pow", "pow", m_mul, i_restart);
  tfc_endpoint cd = half_cosine(c, w, frac, m_fac);
  tfc_endpoint omalpha = number_op(c, w, "Sub", "sub", 1.0, alpha);
  tfc_endpoint decayed = bin(c, w, "AddV2", "add", bin(c, w, "Mul", "mul", omalpha, cd), alpha);
  r = bin(c, root, "Mul", ex, lr, decayed);
  return r;
}

TFC_EXPORT TF_Output TFC_CosineDecayRestarts(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                            double first_decay_steps, double t_mul, double m_mul, double alpha,
                                            TF_Status *status) {
  double p[5] = {learning_rate, first_decay_steps, t_mul, m_mul, alpha};
  return run_decay(scope, "SGDRDecay", global_step, sgdr_body, p, status);
}

/* p: lr, decay_steps, num_periods, alpha, beta. */
static tfc_endpoint lin_cos_body(bld_call *c, const bld_where *w, const bld_where *root, const char *ex,
                                 tfc_endpoint step, const double *p, tfc_endpoint unused) {
  (void)unused;
  tfc_endpoint none = {NULL, 0};
  tfc_endpoint lr = bld_scalar(c, w, "initial_learning_rate", TFC_DT_FLOAT, p[0]);
  tfc_endpoint steps = scoped_cast(c, w, "Cast", none, p[1], TFC_DT_FLOAT);
  tfc_endpoint periods = scoped_cast(c, w, "Cast", none, p[2], TFC_DT_FLOAT);
  tfc_endpoint alpha = scoped_cast(c, w, "Cast", none, p[3], TFC_DT_FLOAT);
  tfc_endpoint beta = scoped_cast(c, w, "Cast", none, p[4], TFC_DT_FLOAT);
  tfc_endpoint s = scoped_cast(c, w, "Cast", step, 0, TFC_DT_FLOAT);
  s = bin(c, w, "Minimum", NULL, s, steps);
  tfc_endpoint linear = bin(c, w, "RealDiv", "truediv", bin(c, w, "Sub", "sub", steps, s), steps);
  tfc_endpoint frac = bin(c, w, "RealDiv", "truediv", s, steps);
  tfc_endpoint fraction = bin(c, w, "Mul", "mul", number_op(c, w, "Mul", "mul", 2.0, periods), frac);
  tfc_endpoint cd = half_cosine(c, w, fraction, none);
  tfc_endpoint lcd = bin(c, w, "AddV2", "add", bin(c, w, "Mul", "mul", bin(c, w, "AddV2", "add", alpha, linear), cd),
                         beta);
  return bin(c, root, "Mul", ex, lr, lcd);
}

TFC_EXPORT TF_Output TFC_LinearCosineDecay(const TFC_Scope *scope, double learning_rate, TF_Output global_step,
                                          double decay_steps, double num_periods, double alpha, double beta,
                                          TF_Status *status) {
  double p[5] = {learning_rate, decay_steps, num_periods, alpha, beta};
  return run_decay(scope, "LinearCosineDecay", global_step, lin_cos_body, p, status);
}

/* t[i] = v in t's type: 0, or -1 when the type is not float, double, int32 or int64. */
static int set_real(tfc_tensor *t, int64_t i, double v) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v; return 0;
    case TFC_DT_DOUBLE: ((double *)t->data)[i] = v; return 0;
    case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v; return 0;
    case TFC_DT_INT64: ((int64_t *)t->data)[i] = (int64_t)v; return 0;
    default: return -1;
  }
}

/* piecewise_constant: values[sum_i(x > boundaries[i])], branch-free (see train.h). */
TFC_EXPORT TF_Output TFC_PiecewiseConstant(const TFC_Scope *scope, TF_Output x, const double *boundaries,
                                          int num_boundaries, const double *values, int num_values,
                                          TF_DataType value_dtype, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return o;
  }
  tfc_endpoint r = {NULL, 0};
  char *sc = NULL, *ex = NULL;
  tfc_tensor *bt = NULL, *vt = NULL;
  if (num_boundaries < 1 || !boundaries || !values || num_values != num_boundaries + 1) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT,
                   "The length of boundaries should be 1 less than the length of values");
  } else if (!bld_check_output(&c, x, "x") &&
             !open_scope(&c, scope->name, bld_builder_name(scope, "PiecewiseConstant"), &sc, &ex)) {
    bld_where w = bld_where_of(scope, sc), root = bld_where_of(scope, "");
    tfc_endpoint xe = tfc_capi_endpoint(x);
    int xdt = bld_dtype(xe);
    int64_t nb = num_boundaries, nv = num_values;
    bt = tfc_tensor_new(xdt, &nb, 1, c.s);
    vt = bt ? tfc_tensor_new((int)value_dtype, &nv, 1, c.s) : NULL;
    if (vt) {
      for (int i = 0; i < num_boundaries && tfc_status_ok(c.s); i++)
        if (set_real(bt, i, boundaries[i]))
          tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "piecewise_constant: x must be a real number, got %s",
                         tfc_dtype_name(xdt));
      for (int i = 0; i < num_values && tfc_status_ok(c.s); i++)
        if (set_real(vt, i, values[i]))
          tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "piecewise_constant: values must be real numbers, got %s",
                         tfc_dtype_name((int)value_dtype));
    }
    if (tfc_status_ok(c.s)) {
      /* bld_const takes the tensors' references. */
      tfc_endpoint b = bld_const(&c, &w, "boundaries", bt);
      tfc_endpoint v = bld_const(&c, &w, "values", vt);
      bt = vt = NULL;
      tfc_endpoint gt = bin(&c, &w, "Greater", NULL, xe, b);
      tfc_endpoint idx = scoped_cast(&c, &w, "Cast", gt, 0, TFC_DT_INT32);
      tfc_endpoint axis0 = bld_scalar(&c, &w, "Const", TFC_DT_INT32, 0);
      bld_attr kd[1] = {{"keep_dims", tfc_attr_bool(0)}};
      tfc_endpoint si[2] = {idx, axis0};
      tfc_endpoint n = bld_op0(&c, &w, "Sum", "index", si, 2, kd, 1);
      tfc_endpoint gi[3] = {v, n, axis0};
      bld_attr bd[1] = {{"batch_dims", tfc_attr_int(0)}};
      r = bld_op0(&c, &root, "GatherV2", ex, gi, 3, bd, 1);
    }
  }
  tfc_tensor_unref(bt);
  tfc_tensor_unref(vt);
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
    bld_where w = {"", scope->device, NULL, NULL, NULL, NULL, 0, scope->devfn};
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
    /* As TF's assign_moving_average, the whole update is colocated with the shadow: on a ps, the
     * shadow and its variable never cross to the worker that builds the step. */
    aw.coloc = tfc_capi_node(shadows[i].variable);
    int dt = bld_dtype(tfc_capi_endpoint(vars[i].value));
    tfc_endpoint one_minus = bld_cast(c, &aw, number_op(c, &aw, "Sub", "sub", 1.0, d), dt, NULL);
    /* A ref variable is read through its ref edge, when the Sub runs: after the scope's control
     * dependencies (e.g. the step's update), as TF's read through "<var>/read" sees the
     * in-place update because it shares the variable's buffer. */
    tfc_node *var = tfc_capi_node(vars[i].variable);
    tfc_endpoint now = tfc_dtype_is_ref(var->output_types[0]) ? (tfc_endpoint){var, 0}
                                                                : tfc_capi_endpoint(vars[i].value);
    tfc_endpoint diff[2] = {tfc_capi_endpoint(shadows[i].value), now};
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
