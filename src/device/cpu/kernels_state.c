/*
 * kernels_state — CPU kernels of the variable ops (ops_state.def).
 *
 * The ops and their checks are shared with the GPU (device/variable_kernel.c): VariableV2
 * finds or creates its variable in the device's resources (container, shared_name or else
 * the node name) and outputs the variable's ref tensor; VarHandleOp outputs a DT_RESOURCE
 * handle to the same kind of variable; writers (Assign*, the resource Assign*VariableOp) go
 * through tfc_kernel_update_*: locked, copy-on-write, journaled in the step
 * (state/variable.h). This file supplies the CPU's element work: Assign installs its value
 * tensor without a copy when it holds the only reference to it, and copies otherwise (a fed
 * tensor stays the caller's); AssignAdd/AssignSub add in every real type.
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "device/variable_kernel.h"

/* The value to install: the input itself when nothing else holds it, else a copy. */
static tfc_tensor *value_to_keep(tfc_kernel_ctx *c, int in) {
  tfc_tensor *x = c->inputs[in];
  if (tfc_tensor_can_forward(x)) return tfc_tensor_ref(x);
  if (x->dtype == TFC_DT_STRING) return tfc_tensor_copy(x, c->status);
  tfc_tensor *t = tfc_allocator_tensor(c->device ? c->device->allocator : NULL, x->dtype, x->dims, x->ndims, c->status);
  if (t && x->n_bytes) memcpy(t->data, x->data, x->n_bytes);
  return t;
}

/* ---------------- AssignAdd / AssignSub (ref and resource) ---------------- */

#define ADD_LOOP(T)                                                                                \
  do {                                                                                             \
    T *restrict o = out->data;                                                                     \
    const T *restrict a = old->data, *restrict b = val->data;                                     \
    if (sub)                                                                                       \
      for (int64_t i = 0; i < n; i++) o[i] = (T)(a[i] - b[i]);                                     \
    else                                                                                           \
      for (int64_t i = 0; i < n; i++) o[i] = (T)(a[i] + b[i]);                                     \
  } while (0)

/* out = old ± val, element-wise over equal shapes (tfc_varop_add_fn). */
static int add_into(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *old, const tfc_tensor *val, int sub) {
  int64_t n = out->n_elems;
  switch (out->dtype) {
  case TFC_DT_FLOAT: ADD_LOOP(float); break;
  case TFC_DT_DOUBLE: ADD_LOOP(double); break;
  case TFC_DT_INT32: ADD_LOOP(int32_t); break;
  case TFC_DT_INT64: ADD_LOOP(int64_t); break;
  case TFC_DT_UINT8: ADD_LOOP(uint8_t); break;
  case TFC_DT_INT8: ADD_LOOP(int8_t); break;
  case TFC_DT_INT16: ADD_LOOP(int16_t); break;
  case TFC_DT_UINT16: ADD_LOOP(uint16_t); break;
  case TFC_DT_UINT32: ADD_LOOP(uint32_t); break;
  case TFC_DT_UINT64: ADD_LOOP(uint64_t); break;
  default:
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s does not support %s", c->node->op->name,
                            tfc_dtype_name(out->dtype));
  }
  return TFC_OK;
}

static int assign_compute(tfc_kernel_ctx *c) { return tfc_varop_assign(c, value_to_keep); }
static int assign_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_assign_resource(c, value_to_keep); }
static int assign_add_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 0, 0, add_into); }
static int assign_sub_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 1, 0, add_into); }
static int assign_add_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 0, 1, add_into); }
static int assign_sub_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 1, 1, add_into); }

/* DisableCopyOnRead: nothing to turn off (see ops_state.def). */
static int disable_copy_on_read_compute(tfc_kernel_ctx *c) {
  (void)c;
  return TFC_OK;
}

/* Resource edges carry host-side handles (input or output 0). */
#define HANDLE TFC_HOST(0)

static const tfc_kernel_def state_kernels[] = {
    {.op = TFC_OP_VariableV2, .init = tfc_varop_init, .compute = tfc_varop_ref_compute, .free_state = tfc_varop_free},
    {.op = TFC_OP_Variable, .init = tfc_varop_init, .compute = tfc_varop_ref_compute, .free_state = tfc_varop_free},
    {.op = TFC_OP_Assign, .init = tfc_varop_assign_init, .compute = assign_compute, .free_state = tfc_varop_assign_free},
    {.op = TFC_OP_AssignAdd, .compute = assign_add_compute},
    {.op = TFC_OP_AssignSub, .compute = assign_sub_compute},
    {.op = TFC_OP_IsVariableInitialized, .compute = tfc_varop_is_initialized_compute},
    {.op = TFC_OP_VarHandleOp, .host_memory_out = HANDLE, .init = tfc_varop_init, .compute = tfc_varop_handle_compute,
     .free_state = tfc_varop_free},
    {.op = TFC_OP_ReadVariableOp, .host_memory_in = HANDLE, .compute = tfc_varop_read_compute},
    {.op = TFC_OP_AssignVariableOp, .host_memory_in = HANDLE, .init = tfc_varop_assign_init, .compute = assign_variable_compute,
     .free_state = tfc_varop_assign_free},
    {.op = TFC_OP_AssignAddVariableOp, .host_memory_in = HANDLE, .compute = assign_add_variable_compute},
    {.op = TFC_OP_AssignSubVariableOp, .host_memory_in = HANDLE, .compute = assign_sub_variable_compute},
    {.op = TFC_OP_VarIsInitializedOp, .host_memory_in = HANDLE, .compute = tfc_varop_is_initialized_compute},
    {.op = TFC_OP_DisableCopyOnRead, .host_memory_in = HANDLE, .compute = disable_copy_on_read_compute},
};

int tfc_cpu_kernels_state(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, state_kernels, (int)(sizeof state_kernels / sizeof state_kernels[0]), s);
}
