/*
 * kernels_image_gpu — the GPU kernels of the resize ops TF 1.15 runs on GPUs: ResizeBilinear,
 * ResizeBilinearGrad, ResizeNearestNeighbor and ResizeNearestNeighborGrad, on the launchers of
 * cuda_resize.cu. (ResizeBicubic, ResizeArea and their gradients have CPU kernels only in TF
 * 1.15, and so here: the placer puts them on the CPU.)
 *
 * The host side is the CPU kernel's: the same checks and plan (device/resize_plan.h), so both
 * devices refuse the same inputs with the same codes and texts and sample with the same
 * arithmetic; then the output is allocated in device memory and one launcher call is enqueued
 * on the device's compute stream.
 *
 * Types and memory, as TF 1.15's GPU registrations: half, float and double; the size input
 * (ResizeBilinear, ResizeNearestNeighbor, ResizeNearestNeighborGrad) in host memory, read
 * here. ResizeBilinear writes float for every T; ResizeBilinearGrad takes float grads and
 * writes the original image's T. ResizeNearestNeighborGrad sums in a fixed order (TF's GPU
 * kernel adds with atomics, in whatever order they land): its result is the CPU kernel's, bit
 * for bit, on every run.
 */
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_resize.h"
#include "device/resize_plan.h"

/* The launcher type of a float dtype (half, float, double), or UNIMPLEMENTED. */
static int float_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out != TFC_CUDA_F32 && *out != TFC_CUDA_F64 && *out != TFC_CUDA_F16)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

static int resize_bilinear_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 1, &p));
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!y) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_resize_bilinear(ct, x->data, y->data, &p, stream), x->dtype);
}

static int resize_bilinear_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *orig = c->inputs[1];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_grad_plan_of(c, &p));
  int ct;
  TFC_TRY(float_type(c, orig->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t dims[4] = {p.batch, p.in_h, p.in_w, p.ch};
  tfc_tensor *dx = tfc_kernel_alloc_output(c, 0, orig->dtype, dims, 4);
  if (!dx) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_resize_bilinear_grad(ct, g->data, dx->data, &p, stream), orig->dtype);
}

static int resize_nearest_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 1, &p));
  int ct;
  TFC_TRY(float_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, x->dtype, dims, 4);
  if (!y) return c->status->code;
  return tfc_cuda_ctx_check(
      c, tfc_cuda_resize_nearest((int)tfc_dtype_size(x->dtype), x->data, y->data, &p, stream), x->dtype);
}

static int resize_nearest_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_nearest_grad_plan_of(c, &p));
  int ct;
  TFC_TRY(float_type(c, g->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *dx = tfc_kernel_alloc_output(c, 0, g->dtype, dims, 4);
  if (!dx) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_resize_nearest_grad(ct, g->data, dx->data, &p, stream), g->dtype);
}

/* ---- registration ---- */

#define R_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ResizeBilinear, .type_attr = "T", .types = R_F, .host_memory_in = TFC_HOST(1),
     .compute = resize_bilinear_compute},
    {.op = TFC_OP_ResizeBilinearGrad, .type_attr = "T", .types = R_F, .compute = resize_bilinear_grad_compute},
    {.op = TFC_OP_ResizeNearestNeighbor, .type_attr = "T", .types = R_F, .host_memory_in = TFC_HOST(1),
     .compute = resize_nearest_compute},
    {.op = TFC_OP_ResizeNearestNeighborGrad, .type_attr = "T", .types = R_F, .host_memory_in = TFC_HOST(1),
     .compute = resize_nearest_grad_compute},
};

int tfc_cuda_kernels_image(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
