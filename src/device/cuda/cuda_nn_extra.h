/*
 * cuda_nn_extra — the CUDA launchers of _FusedConv2D's epilogue and of LRN / LRNGrad
 * (cuda_nn_extra.cu), and of CropAndResize and its gradients (cuda_crop.cu). The tfc kernels on
 * top are kernels_conv_gpu.c, kernels_lrn_gpu.c and kernels_crop_gpu.c; their checks and plans
 * are the CPU kernels' (conv_plan.h, nn_plan.h, image_crop_plan.h).
 *
 * Same contract as cuda_kernels.h: device pointers, a cudaStream_t as void *, the work enqueued
 * and nothing waited for; 0, TFC_CUDA_E_UNSUPPORTED for a dtype without a kernel (or a plan
 * outside the launcher's range), or the cudaError_t of a failed launch. Zero elements launch
 * nothing. Thread-safe; the caller keeps the buffers alive until the stream has run the work.
 * Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_NN_EXTRA_H
#define TFC_DEVICE_CUDA_CUDA_NN_EXTRA_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"
#include "device/image_crop_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- _FusedConv2D's epilogue ---- */

/* The activations, as conv_plan.h's tfc_conv_act (static_assert in kernels_conv_gpu.c). */
enum { TFC_CUDA_ACT_NONE = 0, TFC_CUDA_ACT_RELU = 1, TFC_CUDA_ACT_RELU6 = 2, TFC_CUDA_ACT_ELU = 3,
       TFC_CUDA_ACT_LEAKY_RELU = 4 };

/* In place over y (n elements of oc channels, channels last, or cfirst with `plane` elements
 * per channel and image): y = act(y + bias[ch] (+ addend, same layout as y, when not NULL)),
 * the CPU epilogue's formulas (tfc_conv_fusion_ref) in the element type (half: in float).
 * F32, F64, F16. */
int tfc_cuda_conv_epilogue(int dtype, void *y, const void *bias, const void *addend, int64_t n, int64_t oc,
                           int cfirst, int64_t plane, int act, float alpha, void *stream);

/* ---- LRN ---- */

/* LRN over the last dim of rows x depth floats (radius in [-1, depth]: the caller clamps; -1
 * sums nothing): y = x / (bias + alpha * sum over the window
 * [d - radius, d + radius] of x^2)^beta. */
int tfc_cuda_lrn(const float *x, float *y, int64_t rows, int64_t depth, int64_t radius, float bias, float alpha,
                 float beta, void *stream);
/* LRNGrad: dx for the gradients dy, the input x and the output y (rows x depth floats each),
 * the CPU kernel's formula gathered per element. */
int tfc_cuda_lrn_grad(const float *dy, const float *x, const float *y, float *dx, int64_t rows, int64_t depth,
                      int64_t radius, float bias, float alpha, float beta, void *stream);

/* ---- CropAndResize (cuda_crop.cu) ---- */

/* Images are [p->batch, p->h, p->w, p->depth] of dtype (F32, F64, F16; read as float as the CPU
 * kernel reads them), boxes [p->n, 4] float, box_ind [p->n] int32 with every index in
 * [0, p->batch) (checked on the host by the caller), crops and grads [p->n, p->ch, p->cw,
 * p->depth] float. */

/* CropAndResize: crops = the samples of plan p (a thread per crop element). */
int tfc_cuda_crop_and_resize(int dtype, const void *image, const float *boxes, const int32_t *box_ind, float *crops,
                             const tfc_crop_plan *p, void *stream);
/* CropAndResizeGradImage: dx (images of dtype) = each grads value scattered with its sample's
 * weights, by atomic adds in float (F32, F16 through scratch: p->batch * h * w * depth floats,
 * rounded to half at the end) or double (F64): the sum's order, and so its last bits, vary
 * from run to run, as TF's GPU kernel. scratch: NULL unless dtype is F16. */
int tfc_cuda_crop_grad_image(int dtype, const float *grads, const float *boxes, const int32_t *box_ind, void *dx,
                             float *scratch, const tfc_crop_plan *p, void *stream);
/* CropAndResizeGradBoxes: out [p->n, 4] float, a thread per box summing its samples'
 * contributions (tfc_crop_box_grad_add) in the CPU kernel's order, so the result is the CPU's
 * bit for bit; image of dtype. */
int tfc_cuda_crop_grad_boxes(int dtype, const float *grads, const void *image, const float *boxes,
                             const int32_t *box_ind, float *out, const tfc_crop_plan *p, void *stream);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
#include "base/status.h"
#include "device/kernel.h"

/* The tables registered by tfc_cuda_kernels_conv3d: kernels_lrn_gpu.c, kernels_crop_gpu.c. */
int tfc_cuda_kernels_lrn(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_crop(tfc_kernel_table *t, tfc_status *s);
#endif

#endif
