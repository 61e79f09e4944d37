/*
 * kernels_state_gpu — the variable ops on the GPU, as TF 1.15 registers them for DEVICE_GPU:
 *   - reference variables (variable_ops.cc, dense_update_ops.cc): VariableV2 and the legacy
 *     Variable, Assign, AssignAdd, AssignSub and IsVariableInitialized for half, float,
 *     double and int64. int32 is deliberately absent: an int32 variable and its updates stay
 *     on the CPU, through colocation, as in TF;
 *   - resource variables (resource_variable_ops.cc): VarHandleOp and AssignVariableOp for
 *     half, float, double, int64, bool, complex64 and complex128 (TF's variant variables are
 *     not supported here), ReadVariableOp for any dtype, AssignAddVariableOp and
 *     AssignSubVariableOp for half, float, double and int64, VarIsInitializedOp.
 *
 * A GPU variable lives in the GPU device's resource manager and its value is a device tensor.
 * Everything but the element work is the CPU's (device/variable_kernel.c): VariableV2 hands
 * out the variable's ref, VarHandleOp a handle in host memory, ReadVariableOp the current
 * device tensor itself (copy-on-write values never change under a reader), the
 * is-initialized ops a bool in host memory (host_memory_out); the writers lock, check with
 * the CPU's texts, and install journaled in the step, so a failed step rolls back. This file
 * supplies the device side: a value is installed without a copy when the kernel holds the
 * only reference to it, else copied device-to-device on the compute stream; AssignAdd and
 * AssignSub compute old ± value into a fresh device tensor with the element-wise launcher.
 * ResourceGather (resource_variable_ops.cc: the copy types, int32 or int64 indices) takes the
 * variable's current value and the CPU's checks (tfc_varop_gather_plan) and gathers on the
 * device; an index out of range gives zeros, as GatherV2 on the GPU does.
 * Host code never reads or writes a device buffer here.
 */
#include "device/array_plan.h"
#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_kernels.h"
#include "device/device.h"
#include "device/variable_kernel.h"

/* The numeric types of TF's GPU variables; ALL adds what only moves (no arithmetic). */
#define G_NUM (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_INT64))
#define G_ALL (G_NUM | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))

/* The device tensor to install from input `in` (tfc_varop_keep_fn): the input itself when
 * nothing else holds it, else a copy made on the compute stream. */
static tfc_tensor *value_to_keep(tfc_kernel_ctx *c, int in) {
  tfc_tensor *x = c->inputs[in];
  if (tfc_tensor_can_forward(x)) return tfc_tensor_ref(x);
  void *stream;
  if (tfc_cuda_ctx_stream(c, &stream)) return NULL;
  tfc_tensor *t = tfc_allocator_tensor(c->device->allocator, x->dtype, x->dims, x->ndims, c->status);
  if (!t) return NULL;
  if (tfc_cuda_ctx_check(c, tfc_cuda_memcpy(t->data, x->data, (int64_t)x->n_bytes, stream), x->dtype)) {
    tfc_tensor_unref(t);
    return NULL;
  }
  return t;
}

/* out = old ± val on the compute stream (tfc_varop_add_fn). */
static int add_into(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *old, const tfc_tensor *val, int sub) {
  int ct = tfc_cuda_dtype_of(out->dtype);
  if (ct < 0 || out->dtype == TFC_DT_BOOL)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s does not support %s", c->node->op->name,
                            tfc_dtype_name(out->dtype));
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_cuda_bcast p = {.rank = 1, .dims = {out->n_elems}, .strides = {{1}, {1}}};
  return tfc_cuda_ctx_check(
      c, tfc_cuda_binary(sub ? TFC_CUDA_SUB : TFC_CUDA_ADD, ct, old->data, val->data, out->data, &p, 0, stream),
      out->dtype);
}

static int assign_compute(tfc_kernel_ctx *c) { return tfc_varop_assign(c, value_to_keep); }
static int assign_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_assign_resource(c, value_to_keep); }
static int assign_add_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 0, 0, add_into); }
static int assign_sub_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 1, 0, add_into); }
static int assign_add_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 0, 1, add_into); }
static int assign_sub_variable_compute(tfc_kernel_ctx *c) { return tfc_varop_update(c, 1, 1, add_into); }

/* Resource handles (input or output 0) and the is-initialized bools live in host memory. */
#define HOST0 TFC_HOST(0)

static int resource_gather_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ix = c->inputs[1];
  tfc_gather_plan g;
  tfc_tensor *params = tfc_varop_gather_plan(c, &g);
  if (!params) return c->status->code;
  void *stream;
  int rc = tfc_cuda_ctx_stream(c, &stream);
  tfc_tensor *out = rc ? NULL : tfc_kernel_alloc_output(c, 0, params->dtype, g.dims, g.rank);
  if (out)
    rc = tfc_cuda_ctx_check(c,
                            tfc_cuda_gather((int)tfc_dtype_size(params->dtype), tfc_cuda_dtype_of(ix->dtype),
                                            params->data, ix->data, out->data, g.batch, g.outer, g.limit, g.n_idx,
                                            g.inner, stream),
                            params->dtype);
  else
    rc = c->status->code;
  tfc_tensor_unref(params);
  return rc;
}

static const tfc_kernel_def defs[] = {
    /* reference variables */
    {.op = TFC_OP_VariableV2, .type_attr = "dtype", .types = G_NUM, .init = tfc_varop_init,
     .compute = tfc_varop_ref_compute, .free_state = tfc_varop_free},
    {.op = TFC_OP_Variable, .type_attr = "dtype", .types = G_NUM, .init = tfc_varop_init,
     .compute = tfc_varop_ref_compute, .free_state = tfc_varop_free},
    {.op = TFC_OP_Assign, .type_attr = "T", .types = G_NUM, .init = tfc_varop_assign_init, .compute = assign_compute,
     .free_state = tfc_varop_assign_free},
    {.op = TFC_OP_AssignAdd, .type_attr = "T", .types = G_NUM, .compute = assign_add_compute},
    {.op = TFC_OP_AssignSub, .type_attr = "T", .types = G_NUM, .compute = assign_sub_compute},
    {.op = TFC_OP_IsVariableInitialized, .type_attr = "dtype", .types = G_NUM, .host_memory_out = HOST0,
     .compute = tfc_varop_is_initialized_compute},
    /* resource variables */
    {.op = TFC_OP_VarHandleOp, .type_attr = "dtype", .types = G_ALL, .host_memory_out = HOST0,
     .init = tfc_varop_init, .compute = tfc_varop_handle_compute, .free_state = tfc_varop_free},
    {.op = TFC_OP_ReadVariableOp, .host_memory_in = HOST0, .compute = tfc_varop_read_compute},
    {.op = TFC_OP_AssignVariableOp, .type_attr = "dtype", .types = G_ALL, .host_memory_in = HOST0,
     .init = tfc_varop_assign_init, .compute = assign_variable_compute,
     .free_state = tfc_varop_assign_free},
    {.op = TFC_OP_AssignAddVariableOp, .type_attr = "dtype", .types = G_NUM, .host_memory_in = HOST0,
     .compute = assign_add_variable_compute},
    {.op = TFC_OP_AssignSubVariableOp, .type_attr = "dtype", .types = G_NUM, .host_memory_in = HOST0,
     .compute = assign_sub_variable_compute},
    {.op = TFC_OP_VarIsInitializedOp, .host_memory_in = HOST0, .host_memory_out = HOST0,
     .compute = tfc_varop_is_initialized_compute},
    {.op = TFC_OP_ResourceGather, .type_attr = "dtype", .types = TFC_CUDA_COPY_TYPES, .type_attr2 = "Tindices",
     .types2 = TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64), .host_memory_in = HOST0, .compute = resource_gather_compute},
};

int tfc_cuda_kernels_state(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
