/*
 * kernels_crop_gpu — CropAndResize, CropAndResizeGradImage and CropAndResizeGradBoxes on the
 * GPU for half, float and double (TF 1.15's GPU registrations), crop_size and image_size in
 * host memory; the arithmetic is cuda_crop.cu's.
 *
 * The checks and the plan are the CPU kernel's (device/image_crop_plan.h), so both devices give
 * the same codes and texts. box_ind lives in device memory, and an index outside the batch must
 * be an error (OUT_OF_RANGE, TF's text), not a read outside the image: like TF's GPU kernel,
 * which copies the indexes to the host and checks them before it launches anything, each
 * kernel here copies them on the compute stream, waits for the copy, and checks them with the
 * CPU kernel's function. That wait is the one place these kernels synchronize.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_nn_extra.h"
#include "device/image_crop_plan.h"

/* Copies box_ind (n int32 in device memory) to the host, waits, and checks every index against
 * batch. */
static int check_box_index(tfc_kernel_ctx *c, const tfc_tensor *ind, int64_t n, int64_t batch, void *stream) {
  if (n == 0) return TFC_OK;
  int32_t *host = malloc((size_t)n * sizeof *host);
  if (!host) return TFC_OOM(c->status);
  cudaError_t e = cudaMemcpyAsync(host, ind->data, (size_t)n * sizeof *host, cudaMemcpyDeviceToHost,
                                  (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  int rc;
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    rc = tfc_kernel_error(c, TFC_INTERNAL, "%s: reading box_ind from the GPU failed: %s", c->node->op->name,
                          cudaGetErrorString(e));
  } else {
    rc = tfc_crop_check_box_index(c, host, n, batch);
  }
  free(host);
  return rc;
}

static int crop_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *image = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2];
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_plan_of(c, &p));
  int64_t dims[4] = {p.n, p.ch, p.cw, p.depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  TFC_TRY(check_box_index(c, ind, p.n, p.batch, stream));
  if (out->n_elems == 0) return TFC_OK;
  int err = tfc_cuda_crop_and_resize(tfc_cuda_dtype_of(image->dtype), image->data, boxes->data, ind->data, out->data,
                                     &p, stream);
  return tfc_cuda_ctx_check(c, err, image->dtype);
}

static int crop_grad_image_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2];
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_grad_image_plan_of(c, &p));
  int dt;
  TFC_TRY(tfc_kernel_attr_type(c->node, "T", &dt, c->status));
  int64_t dims[4] = {p.batch, p.h, p.w, p.depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dt, dims, 4);
  if (!out) return c->status->code;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  TFC_TRY(check_box_index(c, ind, p.n, p.batch, stream));
  if (out->n_elems == 0) return TFC_OK;
  /* half sums in a float scratch, rounded once at the end (cuda_nn_extra.h). */
  tfc_tensor *scratch = NULL;
  if (dt == TFC_DT_HALF && !(scratch = tfc_cuda_ctx_temp(c, (int64_t)sizeof(float) * out->n_elems)))
    return c->status->code;
  int err = tfc_cuda_crop_grad_image(tfc_cuda_dtype_of(dt), g->data, boxes->data, ind->data, out->data,
                                     scratch ? scratch->data : NULL, &p, stream);
  tfc_tensor_unref(scratch); /* after the enqueue: stream-ordered reuse (cuda_kernels.h) */
  return tfc_cuda_ctx_check(c, err, dt);
}

static int crop_grad_boxes_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *image = c->inputs[1], *boxes = c->inputs[2], *ind = c->inputs[3];
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_grad_boxes_plan_of(c, &p));
  int64_t dims[2] = {p.n, 4};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 2);
  if (!out) return c->status->code;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  TFC_TRY(check_box_index(c, ind, p.n, p.batch, stream));
  if (out->n_elems == 0) return TFC_OK;
  int err = tfc_cuda_crop_grad_boxes(tfc_cuda_dtype_of(image->dtype), g->data, image->data, boxes->data, ind->data,
                                     out->data, &p, stream);
  return tfc_cuda_ctx_check(c, err, image->dtype);
}

#define G_F (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_CropAndResize, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(3),
     .compute = crop_compute},
    {.op = TFC_OP_CropAndResizeGradImage, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(3),
     .compute = crop_grad_image_compute},
    {.op = TFC_OP_CropAndResizeGradBoxes, .type_attr = "T", .types = G_F, .compute = crop_grad_boxes_compute},
};

int tfc_cuda_kernels_crop(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
