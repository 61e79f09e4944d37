/*
 * kernels_loss_gpu — the GPU kernels of SoftmaxCrossEntropyWithLogits,
 * SparseSoftmaxCrossEntropyWithLogits, L2Loss, ArgMax / ArgMin, InTopKV2 and CheckNumerics,
 * on the launchers of cuda_loss.cu.
 *
 * The host side checks inputs and plans output shapes with the functions the CPU kernels use
 * (device/nn_plan.h), so both devices refuse the same inputs with the same codes and texts;
 * then it allocates the outputs in device memory and enqueues one launcher call on the
 * device's compute stream.
 *
 * Types and memory, as TF 1.15's GPU registrations: the cross-entropy, L2Loss, ArgMax/ArgMin
 * and CheckNumerics take half, float and double, except SparseSoftmaxCrossEntropyWithLogits
 * (half and float; labels int32 or int64). ArgMax/ArgMin's dimension is in host memory (read
 * here); their int32/int64 output is in device memory. InTopKV2 (float predictions; targets and
 * k int32 or int64, all in device memory) is registered; InTopK (k an attr) has no GPU kernel
 * in TF 1.15 and stays on the CPU.
 *
 * Where the GPU kernels differ from the CPU ones, as TF's do, because the host cannot see
 * device values without waiting for the stream:
 *   - SparseSoftmaxCrossEntropyWithLogits: a label outside [0, classes) is not an error; that
 *     row's loss and backprop are NaN (the CPU kernel: INVALID_ARGUMENT "Received a label
 *     value of ...");
 *   - InTopKV2: a target outside [0, classes) answers false (the CPU kernel: INVALID_ARGUMENT
 *     "targets[i] is out of range").
 * CheckNumerics is a check, so it does wait: its scan ORs into a device word that is copied
 * back after a stream synchronize, and an Inf or NaN is the CPU kernel's INVALID_ARGUMENT.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_loss.h"
#include "device/nn_plan.h"

/* The launcher type of a float dtype (half, float, double), or UNIMPLEMENTED. */
static int float_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out != TFC_CUDA_F32 && *out != TFC_CUDA_F64 && *out != TFC_CUDA_F16)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

/* The launcher type of an int32/int64 index tensor, or UNIMPLEMENTED. */
static int index_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out != TFC_CUDA_I32 && *out != TFC_CUDA_I64) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

/* ---- SoftmaxCrossEntropyWithLogits ---- */

static int xent_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *l = c->inputs[1];
  tfc_xent_plan p;
  TFC_TRY(tfc_xent_plan_of(c, x, l, &p));
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *loss = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, 1);
  if (!loss) return c->status->code;
  /* A dense logits tensor held only by this node becomes the backprop (read before written). */
  tfc_tensor *bp = p.x_full ? tfc_kernel_forward_or_alloc(c, 0, 1, x->dtype, p.dims, 2)
                            : tfc_kernel_alloc_output(c, 1, x->dtype, p.dims, 2);
  if (!bp) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_xent(ct, x->data, p.x_rs, p.x_cs, l->data, p.l_rs, p.l_cs, loss->data, bp->data,
                                          p.rows, p.cols, stream),
                            x->dtype);
}

/* ---- SparseSoftmaxCrossEntropyWithLogits ---- */

static int sparse_xent_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *l = c->inputs[1];
  TFC_TRY(tfc_sparse_xent_check(c, x, l));
  int ct, lt;
  TFC_TRY(float_type(c, x->dtype, &ct));
  TFC_TRY(index_type(c, l->dtype, &lt));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *loss = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, 1);
  if (!loss) return c->status->code;
  tfc_tensor *bp = tfc_kernel_forward_or_alloc(c, 0, 1, x->dtype, x->dims, 2);
  if (!bp) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_sparse_xent(ct, lt, x->data, l->data, loss->data, bp->data, x->dims[0],
                                                 x->dims[1], stream),
                            x->dtype);
}

/* ---- L2Loss ---- */

static int l2loss_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, NULL, 0);
  if (!out) return c->status->code;
  tfc_tensor *scratch = NULL;
  if (x->n_elems > 0 && !(scratch = tfc_cuda_ctx_temp(c, TFC_CUDA_L2_SCRATCH_BYTES))) return c->status->code;
  int err = tfc_cuda_l2loss(ct, x->data, x->n_elems, out->data, scratch ? scratch->data : NULL, stream);
  tfc_tensor_unref(scratch);
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* ---- ArgMax / ArgMin ---- */

static int arg_compute(tfc_kernel_ctx *c, int is_min) {
  const tfc_tensor *x = c->inputs[0];
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  tfc_arg_plan p;
  TFC_TRY(tfc_arg_plan_of(c, &p));
  int ot;
  TFC_TRY(index_type(c, p.out_type, &ot));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, p.out_type, p.dims, p.ndims);
  if (!z) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_argreduce(is_min, ct, ot, x->data, z->data, p.outer, p.len, p.inner, stream),
                            x->dtype);
}

static int argmax_compute(tfc_kernel_ctx *c) { return arg_compute(c, 0); }
static int argmin_compute(tfc_kernel_ctx *c) { return arg_compute(c, 1); }

/* ---- InTopKV2 ---- */

static int in_top_k_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *t = c->inputs[1], *k = c->inputs[2];
  TFC_TRY(tfc_in_top_k_check(c, p, t, k));
  if (p->dtype != TFC_DT_FLOAT) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, p->dtype);
  int it;
  TFC_TRY(index_type(c, t->dtype, &it));
  if (k->dtype != t->dtype) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, k->dtype);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t rows = p->dims[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, &rows, 1);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_in_top_k(it, p->data, t->data, k->data, out->data, rows, p->dims[1], stream),
                            t->dtype);
}

/* ---- CheckNumerics ---- */

static int check_numerics_compute(tfc_kernel_ctx *c) {
  tfc_tensor *x = c->inputs[0];
  const char *message;
  TFC_TRY(tfc_kernel_attr_string(c->node, "message", &message, c->status));
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  int32_t flags = 0;
  if (x->n_elems > 0) {
    void *stream;
    TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
    tfc_tensor *dev = tfc_cuda_ctx_temp(c, sizeof(int32_t));
    if (!dev) return c->status->code;
    int err = tfc_cuda_memset(dev->data, 0, sizeof(int32_t), stream);
    if (!err) err = tfc_cuda_check_numerics(ct, x->data, x->n_elems, dev->data, stream);
    if (err) {
      tfc_tensor_unref(dev);
      return tfc_cuda_ctx_check(c, err, x->dtype);
    }
    /* The one wait of these kernels: the answer decides the step's status. */
    cudaError_t e = cudaMemcpyAsync(&flags, dev->data, sizeof flags, cudaMemcpyDeviceToHost, (cudaStream_t)stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
    tfc_tensor_unref(dev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return tfc_kernel_error(c, TFC_INTERNAL, "%s: reading the check's result from the GPU failed: %s",
                              c->node->op->name, cudaGetErrorString(e));
    }
  }
  TFC_TRY(tfc_check_numerics_report(c, message, flags));
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(x));
  return TFC_OK;
}

/* ---- registration ---- */

#define L_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))
#define L_FH (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_HALF))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_SoftmaxCrossEntropyWithLogits, .type_attr = "T", .types = L_F, .compute = xent_compute},
    {.op = TFC_OP_SparseSoftmaxCrossEntropyWithLogits, .type_attr = "T", .types = L_FH, .type_attr2 = "Tlabels",
     .types2 = TFC_TYPES_INT, .compute = sparse_xent_compute},
    {.op = TFC_OP_L2Loss, .type_attr = "T", .types = L_F, .compute = l2loss_compute},
    {.op = TFC_OP_ArgMax, .type_attr = "T", .types = L_F, .host_memory_in = TFC_HOST(1), .compute = argmax_compute},
    {.op = TFC_OP_ArgMin, .type_attr = "T", .types = L_F, .host_memory_in = TFC_HOST(1), .compute = argmin_compute},
    {.op = TFC_OP_InTopKV2, .type_attr = "T", .types = TFC_TYPES_INT, .compute = in_top_k_compute},
    {.op = TFC_OP_CheckNumerics, .type_attr = "T", .types = L_F, .compute = check_numerics_compute},
};

int tfc_cuda_kernels_loss(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
