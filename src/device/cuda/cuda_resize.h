/*
 * cuda_resize — the CUDA launchers of the resize ops (cuda_resize.cu): ResizeBilinear,
 * ResizeBilinearGrad, ResizeNearestNeighbor, ResizeNearestNeighborGrad. The tfc kernels on top
 * are in kernels_image_gpu.c.
 *
 * Every launcher takes the plan the CPU kernel builds (device/resize_plan.h, checked on the
 * host) and samples with its inline arithmetic, so coordinates, taps and weights are the CPU's
 * bit for bit. Images are NHWC and dense. Same contract as cuda_kernels.h: device pointers, a
 * cudaStream_t as void *, the work enqueued and nothing waited for; 0, TFC_CUDA_E_UNSUPPORTED
 * for a dtype without a kernel, or the cudaError_t of a failed launch. An empty output is a
 * no-op. Thread-safe; the caller keeps the buffers alive until the stream has run the work.
 *
 * The gradients gather instead of scattering: one thread per element of the result walks the
 * resized pixels whose taps include it, in the order the CPU kernel adds them (rows, then
 * columns, then the four taps), so sums are the CPU's exactly and need no atomics: results
 * never depend on the run.
 *
 * dtype: TFC_CUDA_F32, F64, F16. Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_RESIZE_H
#define TFC_DEVICE_CUDA_CUDA_RESIZE_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"
#include "device/resize_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y [batch, out_h, out_w, ch] float = the bilinear resize of x [batch, in_h, in_w, ch] of
 * dtype, every element read as float (double rounded to nearest, half exactly). */
int tfc_cuda_resize_bilinear(int dtype, const void *x, float *y, const tfc_resize_plan *p, void *stream);

/* dx [batch, in_h, in_w, ch] of dtype = the gradient of the bilinear resize for the float
 * grads g [batch, out_h, out_w, ch]: each grads value times its taps' float weights, summed in
 * float (double for F64) and rounded once to dtype. */
int tfc_cuda_resize_bilinear_grad(int dtype, const float *g, void *dx, const tfc_resize_plan *p, void *stream);

/* y [batch, out_h, out_w, ch] = the nearest pixel of x [batch, in_h, in_w, ch], copied bit for
 * bit; elem_size 2, 4 or 8. */
int tfc_cuda_resize_nearest(int elem_size, const void *x, void *y, const tfc_resize_plan *p, void *stream);

/* dx [batch, out_h, out_w, ch] of dtype = the sum of the grads g [batch, in_h, in_w, ch] that
 * the forward op read from each pixel (p from tfc_resize_nearest_grad_plan_of), added in dtype
 * (half: each partial sum rounded to half) in row-major order of g. A pixel nothing read from
 * gets 0. */
int tfc_cuda_resize_nearest_grad(int dtype, const void *g, void *dx, const tfc_resize_plan *p, void *stream);

#ifdef __cplusplus
}
#endif

#endif
