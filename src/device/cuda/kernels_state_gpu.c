/*
 * kernels_state_gpu — the variable ops on the GPU: VariableV2 (and the legacy Variable),
 * Assign, AssignAdd and AssignSub for half, float and double, as TF 1.15 registers them
 * (dense_update_ops.cc, variable_ops.cc). int32 is deliberately absent: an int32 variable
 * (global_step) and its Assign* stay on the CPU, through colocation, as in TF.
 *
 * A GPU variable lives in the GPU device's resource manager and its value is a device tensor.
 * VariableV2 hands out the variable's ref, exactly as on the CPU (a variable op touches no
 * data). The writers go through tfc_kernel_update_* (locked, copy-on-write, journaled in the
 * step, so a failed step rolls back): Assign installs its value without a copy when it holds
 * the only reference, and otherwise allocates a device tensor and copies device-to-device on
 * the compute stream; AssignAdd/AssignSub compute old ± value into a fresh device tensor with
 * the element-wise launcher. Checks and texts are the CPU kernels' (kernels_state.c).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "device/cuda/cuda_kernels.h"
#include "device/device.h"
#include "state/resource_mgr.h"
#include "state/variable.h"

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

/* ---- VariableV2 ---- */

typedef struct var_state {
  const char *container; /* borrowed from the node */
  const char *name;
  int dtype;
  tfc_shape shape;
  _Atomic(tfc_var *) var; /* found on the first run (a reference) */
} var_state;

static int var_init(const tfc_node *n, void **state, tfc_status *s) {
  var_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  const char *shared = "";
  if (tfc_kernel_attr_string(n, "container", &st->container, s) ||
      tfc_kernel_attr_string(n, "shared_name", &shared, s) || tfc_kernel_attr_type(n, "dtype", &st->dtype, s)) {
    free(st);
    return s->code;
  }
  st->name = *shared ? shared : n->name;
  const tfc_attr_value *sh = tfc_node_attr(n, "shape");
  st->shape = sh && sh->kind == TFC_ATTR_SHAPE ? *sh->u.shape : tfc_shape_unknown();
  atomic_init(&st->var, NULL);
  *state = st;
  return TFC_OK;
}

static void var_free_state(void *state) {
  var_state *st = state;
  tfc_var_unref(atomic_load(&st->var));
  free(st);
}

static int variable_compute(tfc_kernel_ctx *c) {
  var_state *st = c->state;
  tfc_var *v = atomic_load_explicit(&st->var, memory_order_acquire);
  if (!v) {
    v = tfc_resource_mgr_var(c->device->resources, st->container, st->name, st->dtype, &st->shape, c->status);
    if (!v) return c->status->code;
    tfc_var *expected = NULL;
    if (!atomic_compare_exchange_strong(&st->var, &expected, v)) { /* another step got there first */
      tfc_var_unref(v);
      v = expected;
    }
  }
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(v->ref));
  return TFC_OK;
}

/* ---- Assign ---- */

static int assign_init(const tfc_node *n, void **state, tfc_status *s) {
  int *validate = malloc(sizeof *validate);
  if (!validate) return TFC_OOM(s);
  if (tfc_kernel_attr_bool(n, "validate_shape", validate, s)) {
    free(validate);
    return s->code;
  }
  *state = validate;
  return TFC_OK;
}

/* The device tensor to install: the input itself when nothing else holds it, else a copy
 * made on the compute stream. NULL with c->status set on failure. */
static tfc_tensor *value_to_keep(tfc_kernel_ctx *c, void *stream) {
  tfc_tensor *x = c->inputs[1];
  if (tfc_tensor_can_forward(x)) return tfc_tensor_ref(x);
  tfc_tensor *t = tfc_allocator_tensor(c->device->allocator, x->dtype, x->dims, x->ndims, c->status);
  if (!t) return NULL;
  if (tfc_cuda_ctx_check(c, tfc_cuda_memcpy(t->data, x->data, (int64_t)x->n_bytes, stream), x->dtype)) {
    tfc_tensor_unref(t);
    return NULL;
  }
  return t;
}

static int assign_compute(tfc_kernel_ctx *c) {
  const int *validate = c->state;
  const tfc_tensor *rhs = c->inputs[1];
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 0, &u)) return c->status->code;
  if (*validate) {
    /* An uninitialized variable has its declared shape, as TF's variable tensor does. */
    tfc_shape lhs = u.old[0] ? tfc_tensor_shape(u.old[0]) : u.vars[0]->shape;
    tfc_shape r = tfc_tensor_shape(rhs);
    if ((u.old[0] || tfc_shape_fully_defined(&lhs)) && !tfc_shape_equal(&lhs, &r)) {
      char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                       "Assign requires shapes of both tensors to match. lhs shape= %s rhs shape= %s",
                       tfc_shape_str(&lhs, a, sizeof a), tfc_shape_str(&r, b, sizeof b));
    }
  }
  if (tfc_status_ok(c->status)) {
    tfc_tensor *keep = value_to_keep(c, stream);
    if (keep) tfc_kernel_update_set(&u, 0, keep); /* takes our reference */
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

/* ---- AssignAdd / AssignSub ---- */

static int assign_update(tfc_kernel_ctx *c, int op) {
  const tfc_tensor *val = c->inputs[1];
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 0, &u)) return c->status->code;
  const tfc_tensor *old = u.old[0];
  int ct = old ? tfc_cuda_dtype_of(old->dtype) : -1;
  if (!old) {
    tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized parameters: %s", u.vars[0]->name);
  } else if (!tfc_tensor_same_shape(old, val)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Parameters and update must be the same size");
  } else if (ct < 0 || old->dtype != val->dtype) {
    tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s does not support %s", c->node->op->name, tfc_dtype_name(old->dtype));
  } else {
    tfc_tensor *out = tfc_kernel_update_alloc(c, &u, 0);
    if (out && out->n_elems) {
      tfc_cuda_bcast p = {.rank = 1, .dims = {out->n_elems}, .strides = {{1}, {1}}};
      tfc_cuda_ctx_check(c, tfc_cuda_binary(op, ct, old->data, val->data, out->data, &p, 0, stream), old->dtype);
    }
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

static int assign_add_compute(tfc_kernel_ctx *c) { return assign_update(c, TFC_CUDA_ADD); }
static int assign_sub_compute(tfc_kernel_ctx *c) { return assign_update(c, TFC_CUDA_SUB); }

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_VariableV2, .type_attr = "dtype", .types = G_F, .init = var_init, .compute = variable_compute,
     .free_state = var_free_state},
    {.op = TFC_OP_Variable, .type_attr = "dtype", .types = G_F, .init = var_init, .compute = variable_compute,
     .free_state = var_free_state},
    {.op = TFC_OP_Assign, .type_attr = "T", .types = G_F, .init = assign_init, .compute = assign_compute,
     .free_state = free},
    {.op = TFC_OP_AssignAdd, .type_attr = "T", .types = G_F, .compute = assign_add_compute},
    {.op = TFC_OP_AssignSub, .type_attr = "T", .types = G_F, .compute = assign_sub_compute},
};

int tfc_cuda_kernels_state(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
