/*
 * training_plan — the Apply ops' specs, attrs, validation and step, shared by the CPU and GPU
 * kernels; see training_plan.h. The texts and their order are TF 1.15's (training_ops.cc),
 * quirks included (the missing space in "shape[2,2] [3]", "lr is not a scalar : " for Adam
 * and the RMSProps, ms's shape in CenteredRMSProp's mg message).
 */
#include "device/training_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "state/resource_mgr.h"
#include "state/variable.h"

static const tfc_apply_spec SPEC_GD = {TFC_APPLY_GD, 1, 2, -1, 0, 0};
static const tfc_apply_spec SPEC_MOMENTUM = {TFC_APPLY_MOMENTUM, 2, 3, 4, 0, 0};
static const tfc_apply_spec SPEC_ADAM = {TFC_APPLY_ADAM, 3, 9, -1, 1, 0};
static const tfc_apply_spec SPEC_ADAGRAD = {TFC_APPLY_ADAGRAD, 2, 3, -1, 0, 0};
static const tfc_apply_spec SPEC_RMSPROP = {TFC_APPLY_RMSPROP, 3, 7, -1, 1, 0};
static const tfc_apply_spec SPEC_CENTERED = {TFC_APPLY_CENTERED_RMSPROP, 4, 8, -1, 1, 1};
static const tfc_apply_spec SPEC_ADADELTA = {TFC_APPLY_ADADELTA, 3, 6, -1, 0, 0};
static const tfc_apply_spec SPEC_FTRL = {TFC_APPLY_FTRL, 3, 3, -1, 0, 0};
static const tfc_apply_spec SPEC_FTRL_V2 = {TFC_APPLY_FTRL_V2, 3, 3, -1, 0, 0};
static const tfc_apply_spec SPEC_PROXIMAL_GD = {TFC_APPLY_PROXIMAL_GD, 1, 4, -1, 0, 0};
static const tfc_apply_spec SPEC_PROXIMAL_ADAGRAD = {TFC_APPLY_PROXIMAL_ADAGRAD, 2, 5, -1, 0, 0};

int tfc_apply_init(const tfc_node *n, void **state, tfc_apply_run_fn run, tfc_status *s) {
  tfc_apply_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  switch (n->op->id) {
  case TFC_OP_ResourceApplyGradientDescent: st->resource = 1; /* fall through */
  case TFC_OP_ApplyGradientDescent: st->spec = &SPEC_GD; break;
  case TFC_OP_ResourceApplyMomentum: st->resource = 1; /* fall through */
  case TFC_OP_ApplyMomentum: st->spec = &SPEC_MOMENTUM; break;
  case TFC_OP_ResourceApplyAdam: st->resource = 1; /* fall through */
  case TFC_OP_ApplyAdam: st->spec = &SPEC_ADAM; break;
  case TFC_OP_ResourceApplyAdagrad: st->resource = 1; /* fall through */
  case TFC_OP_ApplyAdagrad: st->spec = &SPEC_ADAGRAD; break;
  case TFC_OP_ResourceApplyRMSProp: st->resource = 1; /* fall through */
  case TFC_OP_ApplyRMSProp: st->spec = &SPEC_RMSPROP; break;
  case TFC_OP_ResourceApplyCenteredRMSProp: st->resource = 1; /* fall through */
  case TFC_OP_ApplyCenteredRMSProp: st->spec = &SPEC_CENTERED; break;
  case TFC_OP_ResourceApplyAdadelta: st->resource = 1; /* fall through */
  case TFC_OP_ApplyAdadelta: st->spec = &SPEC_ADADELTA; break;
  case TFC_OP_ResourceApplyFtrl: st->resource = 1; /* fall through */
  case TFC_OP_ApplyFtrl: st->spec = &SPEC_FTRL; break;
  case TFC_OP_ResourceApplyFtrlV2: st->resource = 1; /* fall through */
  case TFC_OP_ApplyFtrlV2: st->spec = &SPEC_FTRL_V2; break;
  case TFC_OP_ResourceApplyProximalGradientDescent: st->resource = 1; /* fall through */
  case TFC_OP_ApplyProximalGradientDescent: st->spec = &SPEC_PROXIMAL_GD; break;
  case TFC_OP_ResourceApplyProximalAdagrad: st->resource = 1; /* fall through */
  case TFC_OP_ApplyProximalAdagrad: st->spec = &SPEC_PROXIMAL_ADAGRAD; break;
  default:
    free(st);
    return tfc_status_set(s, TFC_INTERNAL, "node '%s': %s is not a training op", n->name, n->op->name);
  }
  if (tfc_kernel_attr_type(n, "T", &st->dtype, s)) {
    free(st);
    return s->code;
  }
  /* Attrs only some rows have; absent ones keep TF's defaults. */
  if (tfc_node_attr_bool(n, "use_nesterov", &st->nesterov)) st->nesterov = 0;
  if (tfc_node_attr_bool(n, "update_slots", &st->update_slots)) st->update_slots = 1;
  if (tfc_node_attr_bool(n, "multiply_linear_by_lr", &st->multiply_linear_by_lr)) st->multiply_linear_by_lr = 0;
  st->run = run;
  *state = st;
  return TFC_OK;
}

void tfc_apply_free(void *state) { free(state); }

/* ---------------- validation ---------------- */

static int not_same_shape(tfc_kernel_ctx *c, const char *what, const tfc_tensor *var, const tfc_tensor *other) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  /* TF's text has no space before the first shape: "... the same shape[2,2] [3]". */
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "var and %s do not have the same shape%s %s", what,
                          tfc_dims_str(var->dims, var->ndims, a, sizeof a),
                          tfc_dims_str(other->dims, other->ndims, b, sizeof b));
}

static int check_scalar(tfc_kernel_ctx *c, const tfc_apply_state *st, int i, tfc_apply_args *a) {
  const tfc_tensor *t = c->inputs[i];
  const char *name = c->node->op->inputs[i].name;
  if (t->ndims != 0) {
    char d[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s is not a scalar%s: %s", name,
                            st->spec->lr_spaced && !strcmp(name, "lr") ? " " : "",
                            tfc_dims_str(t->dims, t->ndims, d, sizeof d));
  }
  if (t->dtype != st->dtype)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be %s, got %s", name, tfc_dtype_name(st->dtype),
                            tfc_dtype_name(t->dtype));
  switch (st->dtype) {
  case TFC_DT_FLOAT: a->s[i] = *(const float *)t->data; break;
  case TFC_DT_DOUBLE: a->s[i] = *(const double *)t->data; break;
  case TFC_DT_HALF: a->s[i] = tfc_half_to_float(*(const uint16_t *)t->data); break;
  default:
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s does not support %s", c->node->op->name,
                            tfc_dtype_name(st->dtype));
  }
  return TFC_OK;
}

/* Validation of one step (steps 1-3 of training_plan.h's top comment) with u from
 * tfc_kernel_update_begin over the spec's variables: fills a->s and a->grad; returns the
 * status code (the kernel's error set). Writes nothing. */
static int apply_validate(tfc_kernel_ctx *c, const tfc_apply_state *st, const tfc_var_update *u, tfc_apply_args *a) {
  const tfc_apply_spec *sp = st->spec;
  const tfc_arg_def *args = c->node->op->inputs;
  /* 1. Every variable initialized and of type T. TF reports a missing resource variable from
   * its lookup (NOT_FOUND) and an uninitialized ref variable as it reads the ref. */
  for (int k = 0; k < sp->n_vars; k++) {
    const tfc_var *v = u->vars[k];
    if (!u->old[k]) {
      if (st->resource)
        return tfc_kernel_error(c, TFC_NOT_FOUND, "Resource %s/%s/N10tensorflow3VarE does not exist.",
                                TFC_DEFAULT_CONTAINER, v->name);
      return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized value %s", v->name);
    }
    if (u->old[k]->dtype != st->dtype)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: variable %s holds %s, not %s", args[k].name, v->name,
                              tfc_dtype_name(u->old[k]->dtype), tfc_dtype_name(st->dtype));
  }
  /* 2. The hyper-parameters are scalars. */
  int n_in = c->n_inputs < TFC_APPLY_MAX_INPUTS ? c->n_inputs : TFC_APPLY_MAX_INPUTS;
  for (int i = sp->n_vars; i < n_in; i++)
    if (i != sp->grad && i != sp->late_scalar && check_scalar(c, st, i, a)) return c->status->code;
  /* 3. The slots and the gradient have the variable's shape. */
  const tfc_tensor *var = u->old[0];
  for (int k = 1; k < sp->n_vars; k++)
    if (!tfc_tensor_same_shape(var, u->old[k]))
      /* TF 1.15 prints ms's shape in CenteredRMSProp's mg message; so do we. */
      return not_same_shape(c, args[k].name, var, sp->mg_quirk && k == 1 ? u->old[2] : u->old[k]);
  const tfc_tensor *g = c->inputs[sp->grad];
  if (!tfc_tensor_same_shape(var, g)) return not_same_shape(c, args[sp->grad].name, var, g);
  if (g->dtype != st->dtype)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be %s, got %s", args[sp->grad].name,
                            tfc_dtype_name(st->dtype), tfc_dtype_name(g->dtype));
  a->grad = g->data;
  /* 4. Momentum checks its momentum last. */
  if (sp->late_scalar >= 0 && check_scalar(c, st, sp->late_scalar, a)) return c->status->code;
  return TFC_OK;
}

/* ---------------- the step ---------------- */

int tfc_apply_compute(tfc_kernel_ctx *c) {
  static const int var_inputs[TFC_APPLY_MAX_VARS] = {0, 1, 2, 3};
  const tfc_apply_state *st = c->state;
  const tfc_apply_spec *sp = st->spec;
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, var_inputs, sp->n_vars, 0, &u)) return c->status->code;
  tfc_apply_args a;
  memset(&a, 0, sizeof a);
  a.nesterov = st->nesterov;
  a.update_slots = st->update_slots;
  a.multiply_linear_by_lr = st->multiply_linear_by_lr;
  if (apply_validate(c, st, &u, &a) == TFC_OK) {
    int ok = 1;
    for (int k = 0; k < sp->n_vars && ok; k++) {
      a.old[k] = u.old[k]->data;
      if (k > 0 && sp->kind == TFC_APPLY_ADAGRAD && !st->update_slots) continue; /* accum stays */
      tfc_tensor *t = tfc_kernel_update_alloc(c, &u, k);
      if (t)
        a.out[k] = t->data;
      else
        ok = 0;
    }
    if (ok) st->run(c, st, &a, u.old[0]->n_elems);
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  if (!st->resource) tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}
