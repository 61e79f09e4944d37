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

/* LRN over the last dim of rows x depth floats: y = x / (bias + alpha * sum over the window
 * [d - radius, d + radius] of x^2)^beta. */
int tfc_cuda_lrn(const float *x, float *y, int64_t rows, int64_t depth, int64_t radius, float bias, float alpha,
                 float beta, void *stream);
/* LRNGrad: dx for the gradients dy, the input x and the output y (rows x depth floats each),
 * the CPU kernel's formula gathered per element. */
int tfc_cuda_lrn_grad(const float *dy, const float *x, const float *y, float *dx, int64_t rows, int64_t depth,
                      int64_t radius, float bias, float alpha, float beta, void *stream);

#ifdef __cplusplus
}
#endif

#endif
