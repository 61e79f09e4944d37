/*
 * kernels_training_gpu — the optimizers' dense updates on the GPU: ApplyGradientDescent,
 * ApplyMomentum (use_nesterov), ApplyAdam (use_nesterov), ApplyAdagrad (update_slots) and
 * ApplyRMSProp, for half, float and double as TF 1.15 registers them (training_ops.cc).
 *
 * A step mirrors the CPU kernel (kernels_training.c): tfc_kernel_update_begin locks the
 * variable and its slots and reads their values; validation in TF's order with its texts
 * (initialized variables, scalar hyper-parameters, slot and gradient shapes) before anything
 * is written; one fresh device tensor per written variable (copy-on-write) filled by one
 * fused launch on the compute stream (cuda_train.cu); tfc_kernel_update_end installs them,
 * journaled in the step so a failed step rolls back, and output 0 forwards the ref.
 *
 * The hyper-parameters are host-memory inputs (the same rows as the CPU's), read on the host
 * and passed to the launch by value: no device-to-host traffic per step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda/cuda_kernels.h"
#include "device/device.h"
#include "state/variable.h"

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

typedef struct apply_spec {
  int op;          /* TFC_CUDA_APPLY_* */
  int n_vars;      /* inputs [0, n_vars): the variable and its slots */
  int grad;        /* the gradient input */
  int late_scalar; /* a scalar TF checks after the shapes (Momentum's momentum), else -1 */
  int lr_spaced;   /* TF's text is "lr is not a scalar : " (Adam and RMSProp) */
} apply_spec;

static const apply_spec SPEC_GD = {TFC_CUDA_APPLY_GD, 1, 2, -1, 0};
static const apply_spec SPEC_MOMENTUM = {TFC_CUDA_APPLY_MOMENTUM, 2, 3, 4, 0};
static const apply_spec SPEC_ADAM = {TFC_CUDA_APPLY_ADAM, 3, 9, -1, 1};
static const apply_spec SPEC_ADAGRAD = {TFC_CUDA_APPLY_ADAGRAD, 2, 3, -1, 0};
static const apply_spec SPEC_RMSPROP = {TFC_CUDA_APPLY_RMSPROP, 3, 7, -1, 1};

typedef struct apply_state {
  const apply_spec *spec;
  int dtype;
  int nesterov;
  int update_slots;
} apply_state;

static int apply_init(const tfc_node *n, void **state, tfc_status *s) {
  apply_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  switch (n->op->id) {
    case TFC_OP_ApplyGradientDescent: st->spec = &SPEC_GD; break;
    case TFC_OP_ApplyMomentum: st->spec = &SPEC_MOMENTUM; break;
    case TFC_OP_ApplyAdam: st->spec = &SPEC_ADAM; break;
    case TFC_OP_ApplyAdagrad: st->spec = &SPEC_ADAGRAD; break;
    case TFC_OP_ApplyRMSProp: st->spec = &SPEC_RMSPROP; break;
    default:
      free(st);
      return tfc_status_set(s, TFC_INTERNAL, "node '%s': %s is not a GPU training op", n->name, n->op->name);
  }
  if (tfc_kernel_attr_type(n, "T", &st->dtype, s)) {
    free(st);
    return s->code;
  }
  /* Attrs only some ops have; absent ones keep TF's defaults. */
  if (tfc_node_attr_bool(n, "use_nesterov", &st->nesterov)) st->nesterov = 0;
  if (tfc_node_attr_bool(n, "update_slots", &st->update_slots)) st->update_slots = 1;
  *state = st;
  return TFC_OK;
}

static int not_same_shape(tfc_kernel_ctx *c, const char *what, const tfc_tensor *var, const tfc_tensor *other) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "var and %s do not have the same shape%s %s", what,
                          tfc_dims_str(var->dims, var->ndims, a, sizeof a),
                          tfc_dims_str(other->dims, other->ndims, b, sizeof b));
}

/* IEEE binary16 to double (the scalars of a half update arrive in host memory as half). */
static double half_to_double(uint16_t h) {
  int e = h >> 10 & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? m * 0x1p-24 : e == 31 ? (m ? NAN : INFINITY) : (1024 + m) * 0x1p-25 * (double)(1 << e);
  return h & 0x8000 ? -v : v;
}

static int check_scalar(tfc_kernel_ctx *c, const apply_state *st, int i, tfc_cuda_apply_args *a) {
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
    default: a->s[i] = half_to_double(*(const uint16_t *)t->data); break;
  }
  return TFC_OK;
}

static int validate(tfc_kernel_ctx *c, const apply_state *st, const tfc_var_update *u, tfc_cuda_apply_args *a) {
  const apply_spec *sp = st->spec;
  const tfc_arg_def *args = c->node->op->inputs;
  /* 1. Every variable initialized and of type T. */
  for (int k = 0; k < sp->n_vars; k++) {
    if (!u->old[k])
      return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized value %s",
                              u->vars[k]->name);
    if (u->old[k]->dtype != st->dtype)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: variable %s holds %s, not %s", args[k].name,
                              u->vars[k]->name, tfc_dtype_name(u->old[k]->dtype), tfc_dtype_name(st->dtype));
  }
  /* 2. The hyper-parameters are scalars. */
  int n_in = c->n_inputs < 10 ? c->n_inputs : 10;
  for (int i = sp->n_vars; i < n_in; i++)
    if (i != sp->grad && i != sp->late_scalar && check_scalar(c, st, i, a)) return c->status->code;
  /* 3. The slots and the gradient have the variable's shape. */
  const tfc_tensor *var = u->old[0];
  for (int k = 1; k < sp->n_vars; k++)
    if (!tfc_tensor_same_shape(var, u->old[k])) return not_same_shape(c, args[k].name, var, u->old[k]);
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

static int apply_compute(tfc_kernel_ctx *c) {
  static const int var_inputs[3] = {0, 1, 2};
  const apply_state *st = c->state;
  const apply_spec *sp = st->spec;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, var_inputs, sp->n_vars, 0, &u)) return c->status->code;
  tfc_cuda_apply_args a;
  memset(&a, 0, sizeof a);
  a.op = sp->op;
  a.nesterov = st->nesterov;
  if (validate(c, st, &u, &a) == TFC_OK) {
    int ok = 1;
    for (int k = 0; k < sp->n_vars && ok; k++) {
      a.old[k] = u.old[k]->data;
      if (k > 0 && sp == &SPEC_ADAGRAD && !st->update_slots) continue; /* accum stays */
      tfc_tensor *t = tfc_kernel_update_alloc(c, &u, k);
      if (t) a.out[k] = t->data;
      else ok = 0;
    }
    if (ok) tfc_cuda_ctx_check(c, tfc_cuda_apply(tfc_cuda_dtype_of(st->dtype), &a, u.old[0]->n_elems, stream), st->dtype);
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

#define ROW(name, hm)                                                                                              \
  {.op = TFC_OP_##name, .type_attr = "T", .types = G_F, .host_memory_in = (hm), .init = apply_init,               \
   .compute = apply_compute, .free_state = free}

static const tfc_kernel_def defs[] = {
    ROW(ApplyGradientDescent, TFC_HOST(1)),
    ROW(ApplyMomentum, TFC_HOST(2) | TFC_HOST(4)),
    ROW(ApplyAdam, TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6) | TFC_HOST(7) | TFC_HOST(8)),
    ROW(ApplyAdagrad, TFC_HOST(2)),
    ROW(ApplyRMSProp, TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6)),
};

int tfc_cuda_kernels_training(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
