/*
 * variable_kernel — the variable ops' device-independent kernels and the writers' shared
 * steps and checks; see variable_kernel.h. The CPU (cpu/kernels_state.c) and the GPU
 * (cuda/kernels_state_gpu.c) differ only in how a value is copied and added.
 */
#include "device/variable_kernel.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "device/array_plan.h"
#include "device/device.h"
#include "state/resource_mgr.h"
#include "state/variable.h"

/* ---------------- VariableV2, VarHandleOp ---------------- */

typedef struct var_state {
  const char *container; /* borrowed from the node */
  const char *name;
  int dtype;
  tfc_shape shape;
  _Atomic(tfc_var *) var; /* found on the first run (a reference) */
} var_state;

int tfc_varop_init(const tfc_node *n, void **state, tfc_status *s) {
  var_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  const char *shared = "";
  if (tfc_kernel_attr_string(n, "container", &st->container, s) || tfc_kernel_attr_string(n, "shared_name", &shared, s) ||
      tfc_kernel_attr_type(n, "dtype", &st->dtype, s)) {
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

void tfc_varop_free(void *state) {
  var_state *st = state;
  if (!st) return;
  tfc_var_unref(atomic_load(&st->var));
  free(st);
}

/* The node's variable in its device's resources (borrowed: the state holds a reference), or
 * NULL with status. */
static tfc_var *node_var(tfc_kernel_ctx *c) {
  var_state *st = c->state;
  tfc_var *v = atomic_load_explicit(&st->var, memory_order_acquire);
  if (v) return v;
  v = tfc_resource_mgr_var(c->device->resources, st->container, st->name, st->dtype, &st->shape, c->status);
  if (!v) return NULL;
  tfc_var *expected = NULL;
  if (!atomic_compare_exchange_strong(&st->var, &expected, v)) { /* another step got there first */
    tfc_var_unref(v);
    v = expected;
  }
  return v;
}

int tfc_varop_ref_compute(tfc_kernel_ctx *c) {
  tfc_var *v = node_var(c);
  if (!v) return c->status->code;
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(v->ref));
  return TFC_OK;
}

int tfc_varop_handle_compute(tfc_kernel_ctx *c) {
  tfc_var *v = node_var(c);
  if (!v) return c->status->code;
  tfc_tensor *h = tfc_var_handle_new(v, c->status);
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  return TFC_OK;
}

/* ---------------- reads ---------------- */

/* TF's ReadVariableOp text for a resource variable with no value. */
static int resource_uninitialized(tfc_kernel_ctx *c, const tfc_var *v) {
  return tfc_kernel_error(c, TFC_FAILED_PRECONDITION,
                          "Error while reading resource variable %s from Container: %s. This could mean that "
                          "the variable was uninitialized. Not found: Resource %s/%s/N10tensorflow3VarE does not "
                          "exist.",
                          v->name, TFC_DEFAULT_CONTAINER, TFC_DEFAULT_CONTAINER, v->name);
}

int tfc_varop_read_compute(tfc_kernel_ctx *c) {
  tfc_var *v = tfc_kernel_input_var(c, 0);
  if (!v) return c->status->code;
  tfc_tensor *t;
  tfc_var_lock(v);
  t = v->value ? tfc_tensor_ref(v->value) : NULL;
  tfc_var_unlock(v);
  if (!t) return resource_uninitialized(c, v);
  int dt = 0;
  tfc_node_attr_type(c->node, "dtype", &dt);
  if (t->dtype != dt) {
    int code = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to read variable with wrong dtype. Expected %s got %s",
                                tfc_dtype_name(dt), tfc_dtype_name(t->dtype));
    tfc_tensor_unref(t);
    return code;
  }
  tfc_kernel_set_output(c, 0, t);
  return TFC_OK;
}

int tfc_varop_is_initialized_compute(tfc_kernel_ctx *c) {
  tfc_var *v = tfc_kernel_input_var(c, 0);
  if (!v) return c->status->code;
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, NULL, 0);
  if (!t) return c->status->code;
  *(uint8_t *)t->data = (uint8_t)tfc_var_is_initialized(v);
  return TFC_OK;
}

/* ---------------- writers ---------------- */

typedef struct assign_state {
  int validate_shape;
} assign_state;

int tfc_varop_assign_init(const tfc_node *n, void **state, tfc_status *s) {
  assign_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_kernel_attr_bool(n, "validate_shape", &st->validate_shape, s)) {
    free(st);
    return s->code;
  }
  *state = st;
  return TFC_OK;
}

void tfc_varop_assign_free(void *state) { free(state); }

int tfc_varop_assign(tfc_kernel_ctx *c, tfc_varop_keep_fn keep) {
  const assign_state *st = c->state;
  const tfc_tensor *rhs = c->inputs[1];
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 0, &u)) return c->status->code;
  if (st->validate_shape) {
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
    tfc_tensor *t = keep(c, 1);
    if (t) tfc_kernel_update_set(&u, 0, t); /* takes our reference */
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

int tfc_varop_assign_resource(tfc_kernel_ctx *c, tfc_varop_keep_fn keep) {
  const assign_state *st = c->state;
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 0, &u)) return c->status->code;
  tfc_shape lhs = u.old[0] ? tfc_tensor_shape(u.old[0]) : u.vars[0]->shape;
  tfc_shape rhs = tfc_tensor_shape(c->inputs[1]);
  if (c->inputs[1]->dtype != u.vars[0]->dtype) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to assign variable with wrong dtype. Expected %s got %s",
                     tfc_dtype_name(u.vars[0]->dtype), tfc_dtype_name(c->inputs[1]->dtype));
  } else if (st && st->validate_shape && (u.old[0] || tfc_shape_fully_defined(&lhs)) &&
             !tfc_shape_equal(&lhs, &rhs)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to assign to variable with tensor with wrong shape. Expected %s got %s",
                     tfc_shape_str(&lhs, a, sizeof a), tfc_shape_str(&rhs, b, sizeof b));
  } else {
    tfc_tensor *t = keep(c, 1);
    if (t) tfc_kernel_update_set(&u, 0, t);
  }
  return tfc_kernel_update_end(c, &u);
}

int tfc_varop_update(tfc_kernel_ctx *c, int sub, int resource, tfc_varop_add_fn add) {
  const tfc_tensor *val = c->inputs[1];
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 0, &u)) return c->status->code;
  const tfc_tensor *old = u.old[0];
  if (!old) {
    if (resource)
      resource_uninitialized(c, u.vars[0]);
    else
      tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized parameters: %s",
                       u.vars[0]->name);
  } else if (old->dtype != val->dtype) {
    /* Only a resource op's dtype attr can disagree with its variable (a ref's T is the
     * variable's); adding the two would misread the value's bytes. */
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to assign variable with wrong dtype. Expected %s got %s",
                     tfc_dtype_name(old->dtype), tfc_dtype_name(val->dtype));
  } else if (!tfc_tensor_same_shape(old, val)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Parameters and update must be the same size");
  } else {
    tfc_tensor *out = tfc_kernel_update_alloc(c, &u, 0);
    if (out) add(c, out, old, val, sub);
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  if (!resource) tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

/* ---------------- ResourceGather ---------------- */

tfc_tensor *tfc_varop_gather_plan(tfc_kernel_ctx *c, tfc_gather_plan *g) {
  const tfc_tensor *indices = c->inputs[1];
  int64_t batch_dims = 0;
  tfc_node_attr_int(c->node, "batch_dims", &batch_dims);
  if (batch_dims != 0) {
    tfc_kernel_error(c, TFC_UNIMPLEMENTED, "ResourceGather with batch_dims %lld: only 0 is supported",
                     (long long)batch_dims);
    return NULL;
  }
  tfc_var *var = tfc_kernel_input_var(c, 0);
  if (!var) return NULL;
  tfc_var_lock(var);
  tfc_tensor *params = var->value ? tfc_tensor_ref(var->value) : NULL;
  tfc_var_unlock(var);
  if (!params) {
    tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized value %s", var->name);
    return NULL;
  }
  int dt = 0;
  tfc_node_attr_type(c->node, "dtype", &dt);
  char ps[TFC_SHAPE_STR_MAX];
  if (params->dtype != dt)
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to read variable with wrong dtype. Expected %s got %s",
                     tfc_dtype_name(dt), tfc_dtype_name(params->dtype));
  else if (params->ndims < 1)
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "params must be at least 1 dimensional, got shape %s",
                     tfc_tensor_shape_str(params, ps, sizeof ps));
  else if (indices->ndims + params->ndims - 1 > TFC_MAX_DIMS)
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "ResourceGather: the output has more than %d dimensions", TFC_MAX_DIMS);
  if (c->status->code != TFC_OK) {
    tfc_tensor_unref(params);
    return NULL;
  }
  int rank = 0;
  int64_t inner = 1;
  for (int d = 0; d < indices->ndims; d++) g->dims[rank++] = indices->dims[d];
  for (int d = 1; d < params->ndims; d++) inner *= g->dims[rank++] = params->dims[d];
  g->rank = rank;
  g->batch = g->outer = 1;
  g->limit = params->dims[0];
  g->n_idx = indices->n_elems;
  g->inner = inner;
  return params;
}
