/*
 * kernels_batch_norm_gpu — FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and
 * FusedBatchNormGrad / V2 / V3 on the GPU, over tfc's own CUDA kernels (cuda_batch_norm.cu
 * says why not cuDNN's), for the types TF 1.15 registers on DEVICE_GPU: float x for V1, float
 * or half x with float statistics (U) for V2 and V3; no host-memory arguments.
 *
 * The attrs, checks and the [outer, C, inner] view are device/batch_norm_plan.h's, shared with
 * the CPU kernels, so both devices accept and refuse the same nodes and inputs with the same
 * codes and texts, in every data_format (NHWC, NCHW, NDHWC, NCDHW) and both ranks. The values
 * are the CPU kernel's, with one difference TF has too: a training forward's reserve_space_2
 * is the inverse standard deviation 1/sqrt(batch variance + epsilon) on the GPU (TF's GPU
 * kernel keeps cuDNN's saved inverse variance there), the biased batch variance on the CPU;
 * each device's training gradient reads what its own forward saved. reserve_space_3 (V3) and
 * the gradient's two placeholder outputs are empty vectors, as on the CPU.
 *
 * Temporaries (the per-channel coefficients between the two passes) come from the device
 * allocator and are dropped right after the enqueue (stream ordering keeps them alive).
 * Thread-safe: no state.
 */
#include "device/batch_norm_plan.h"
#include "device/cuda/cuda_batch_norm.h"
#include "device/cuda/cuda_kernels.h"

/* x's launcher type: F32 or F16, else UNIMPLEMENTED. */
static int x_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out != TFC_CUDA_F32 && *out != TFC_CUDA_F16) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

static tfc_tensor *alloc_vec(tfc_kernel_ctx *c, int out, int64_t n) {
  return tfc_kernel_alloc_output(c, out, TFC_DT_FLOAT, &n, 1);
}

static tfc_cuda_bn_plan launch_plan(const tfc_bn_plan *p) {
  tfc_cuda_bn_plan lp = {.outer = p->outer,
                         .chans = p->chans,
                         .inner = p->inner,
                         .epsilon = (double)p->epsilon,
                         .avg_factor = (double)p->avg_factor,
                         .is_training = p->is_training};
  return lp;
}

/* FusedBatchNorm / V2 / V3: x, scale, offset, mean, variance -> y, batch_mean, batch_variance,
 * reserve_space_1, reserve_space_2 (, reserve_space_3). */
static int bn_compute(tfc_kernel_ctx *c) {
  tfc_bn_plan p;
  TFC_TRY(tfc_bn_plan_forward(c, &p));
  const tfc_tensor *x = c->inputs[0];
  int ct;
  TFC_TRY(x_type(c, x->dtype, &ct));
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  tfc_tensor *outs[4];
  for (int k = 0; k < 4; k++)
    if (!(outs[k] = alloc_vec(c, 1 + k, p.chans))) return c->status->code;
  if (c->n_outputs > 5 && !alloc_vec(c, 5, 0)) return c->status->code;
  if (p.chans == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *coef = tfc_cuda_ctx_temp(c, 2 * p.chans * (int64_t)sizeof(float));
  if (!coef) return c->status->code;
  tfc_cuda_bn_plan lp = launch_plan(&p);
  int err = tfc_cuda_bn_forward(ct, &lp, x->data, c->inputs[1]->data, c->inputs[2]->data, c->inputs[3]->data,
                                c->inputs[4]->data, y->data, outs[0]->data, outs[1]->data, outs[2]->data,
                                outs[3]->data, coef->data, stream);
  tfc_tensor_unref(coef); /* after the enqueue: see the top comment */
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* FusedBatchNormGrad / V2 / V3: y_backprop, x, scale, reserve_space_1, reserve_space_2
 * (, reserve_space_3) -> x_backprop, scale_backprop, offset_backprop, two empty vectors. */
static int bn_grad_compute(tfc_kernel_ctx *c) {
  tfc_bn_plan p;
  TFC_TRY(tfc_bn_plan_grad(c, &p));
  const tfc_tensor *dy = c->inputs[0], *x = c->inputs[1];
  int ct;
  TFC_TRY(x_type(c, x->dtype, &ct));
  tfc_tensor *dx = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  tfc_tensor *dscale = dx ? alloc_vec(c, 1, p.chans) : NULL;
  tfc_tensor *doff = dscale ? alloc_vec(c, 2, p.chans) : NULL;
  if (!doff || !alloc_vec(c, 3, 0) || !alloc_vec(c, 4, 0)) return c->status->code;
  if (p.chans == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *coef = tfc_cuda_ctx_temp(c, 5 * p.chans * (int64_t)sizeof(double));
  if (!coef) return c->status->code;
  tfc_cuda_bn_plan lp = launch_plan(&p);
  int err = tfc_cuda_bn_grad(ct, &lp, dy->data, x->data, c->inputs[2]->data, c->inputs[3]->data, c->inputs[4]->data,
                             dx->data, dscale->data, doff->data, coef->data, stream);
  tfc_tensor_unref(coef);
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

#define F32 TFC_T(TFC_DT_FLOAT)
#define F32_F16 (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_HALF))

/* TF 1.15 (fused_batch_norm_op.cc): V1 and its gradient for float; V2, V3 and their gradients
 * for T in {float, half} with U float. */
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_FusedBatchNorm, .type_attr = "T", .types = F32, .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormV2, .type_attr = "T", .types = F32_F16, .type_attr2 = "U", .types2 = F32,
     .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormV3, .type_attr = "T", .types = F32_F16, .type_attr2 = "U", .types2 = F32,
     .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormGrad, .type_attr = "T", .types = F32, .compute = bn_grad_compute},
    {.op = TFC_OP_FusedBatchNormGradV2, .type_attr = "T", .types = F32_F16, .type_attr2 = "U", .types2 = F32,
     .compute = bn_grad_compute},
    {.op = TFC_OP_FusedBatchNormGradV3, .type_attr = "T", .types = F32_F16, .type_attr2 = "U", .types2 = F32,
     .compute = bn_grad_compute},
};

int tfc_cuda_kernels_batch_norm(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
