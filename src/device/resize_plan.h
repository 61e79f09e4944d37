/*
 * resize_plan — what the CPU and GPU kernels of the resize ops share: the checks of their
 * inputs and attrs (TF's ImageResizerState and ImageResizerGradientState, with TF 1.15's codes
 * and texts), the plan they produce (sizes, per-axis scales, the two flags) and TF's sampling
 * arithmetic on that plan: the source coordinate of an output pixel, the bilinear taps and
 * weight, the nearest source pixel, the blend. The CPU kernels (cpu/kernels_image_resize.c)
 * and the CUDA launchers (cuda/cuda_resize.cu) call the same inline functions on the same
 * plan, so both devices sample the same pixels with the same weights.
 *
 * Float arithmetic, bit for bit. TF computes coordinates and blends in float. nvcc fuses a
 * multiply and an add into one fma (one rounding instead of two) wherever it can, which moves
 * a coordinate or a blend by an ulp; here every product and sum goes through tfc_resize_mul /
 * _add / _sub, which on the device are the round-to-nearest intrinsics the compiler never
 * fuses and on the host are plain C operations (x86-64's baseline has no fma to fuse into).
 * The float-to-int steps (floorf, ceilf, roundf: half away from zero, truncation) are exact on
 * both. So the GPU's coordinates, weights and forward values equal the CPU's exactly.
 *
 * Scales: scale = in / out, or (in - 1) / (out - 1) with align_corners and out > 1. Source of
 * output x: x * scale, or with half_pixel_centers (x + 0.5) * scale - 0.5 (bilinear) and
 * (x + 0.5) * scale (nearest, no - 0.5). Each function below is non-decreasing in the output
 * index, so the resized indices that read one source pixel form one range, which the GPU's
 * gradient kernels find by binary search (tfc_resize_lerp_range, tfc_resize_nearest_range).
 *
 * The top half (the plan and the arithmetic) is plain C with <stdint.h> and <math.h>, also
 * compiled as CUDA C++; the checks at the bottom are C only. Thread-safe (no state).
 */
#ifndef TFC_DEVICE_RESIZE_PLAN_H
#define TFC_DEVICE_RESIZE_PLAN_H

#include <math.h>
#include <stdint.h>

/* One resize: NHWC images [batch, in_h, in_w, ch] sampled into [batch, out_h, out_w, ch].
 * The gradient ops keep the forward op's view: in is the original image, out the resized one
 * (ResizeBilinearGrad: grads are out-sized, the result in-sized). ResizeNearestNeighborGrad's
 * plan is the other way round (see tfc_resize_nearest_grad_plan_of). */
typedef struct tfc_resize_plan {
  int64_t batch, in_h, in_w, ch, out_h, out_w;
  float h_scale, w_scale; /* the source step per output row / column */
  int align, half;        /* align_corners, half_pixel_centers */
} tfc_resize_plan;

#ifdef __CUDACC__
#define TFC_RESIZE_FN static __host__ __device__ __forceinline__
#else
#define TFC_RESIZE_FN static inline
#endif

/* a * b, a + b, a - b each rounded once to float (never fused into an fma). */
TFC_RESIZE_FN float tfc_resize_mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
TFC_RESIZE_FN float tfc_resize_add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
TFC_RESIZE_FN float tfc_resize_sub(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

/* TF's scale for an axis of in pixels resized to out (out > 0). */
TFC_RESIZE_FN float tfc_resize_scale(int64_t in, int64_t out, int align) {
  return align && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
}

/* The source coordinate of output index i (bilinear and bicubic). */
TFC_RESIZE_FN float tfc_resize_src(int64_t i, float scale, int half) {
  return half ? tfc_resize_sub(tfc_resize_mul(tfc_resize_add((float)i, 0.5f), scale), 0.5f)
              : tfc_resize_mul((float)i, scale);
}

/* Bilinear taps of output index i over an axis of in pixels: lo = max(floor(src), 0),
 * hi = min(ceil(src), in - 1), *w = src - floor(src) (from the unclamped floor). */
TFC_RESIZE_FN void tfc_resize_lerp(int64_t i, int64_t in, float scale, int half, int64_t *lo, int64_t *hi,
                                   float *w) {
  float v = tfc_resize_src(i, scale, half);
  float f = floorf(v);
  *lo = f > 0 ? (int64_t)f : 0;
  int64_t h = (int64_t)ceilf(v);
  *hi = h < in - 1 ? h : in - 1;
  *w = tfc_resize_sub(v, f);
}

/* a + (b - a) * w, TF's bilinear blend in this order. */
TFC_RESIZE_FN float tfc_resize_blend(float a, float b, float w) {
  return tfc_resize_add(a, tfc_resize_mul(tfc_resize_sub(b, a), w));
}

/* The nearest source pixel of output index i over an axis of in pixels: round (half away
 * from zero) with align_corners, else floor; then at most in - 1 and, half-pixel only, at
 * least 0. */
TFC_RESIZE_FN int64_t tfc_resize_nearest(int64_t i, float scale, int64_t in, int align, int half) {
  float v = half ? tfc_resize_mul(tfc_resize_add((float)i, 0.5f), scale) : tfc_resize_mul((float)i, scale);
  int64_t r = align ? (int64_t)roundf(v) : (int64_t)floorf(v);
  if (r > in - 1) r = in - 1;
  if (half && r < 0) r = 0;
  return r;
}

/* The gradients' gather: the indices of the resized axis whose samples read source index r
 * form one range, since the taps and the nearest pixel are non-decreasing in the index. */

/* The first i in [0, out) whose bilinear taps over an axis of in pixels reach source index r
 * (hi(i) >= r), or with past set the first that has moved beyond it (lo(i) > r); out if none. */
TFC_RESIZE_FN int64_t tfc_resize_lerp_first(int64_t r, int64_t out, int64_t in, float scale, int half, int past) {
  int64_t a = 0, b = out;
  while (a < b) {
    int64_t mid = a + (b - a) / 2, lo, hi;
    float w;
    tfc_resize_lerp(mid, in, scale, half, &lo, &hi, &w);
    if (past ? lo > r : hi >= r) b = mid;
    else a = mid + 1;
  }
  return a;
}

/* [*from, *to): the i in [0, out) whose bilinear taps over an axis of in pixels include source
 * index r (lo(i) <= r <= hi(i); hi - lo is 0 or 1, so r is one of them). */
TFC_RESIZE_FN void tfc_resize_lerp_range(int64_t r, int64_t out, int64_t in, float scale, int half, int64_t *from,
                                         int64_t *to) {
  *from = tfc_resize_lerp_first(r, out, in, scale, half, 0);
  *to = tfc_resize_lerp_first(r, out, in, scale, half, 1);
}

/* The first i in [0, in) whose nearest pixel over an axis of out pixels is at least r; in if
 * none. */
TFC_RESIZE_FN int64_t tfc_resize_nearest_first(int64_t r, int64_t in, int64_t out, float scale, int align, int half) {
  int64_t a = 0, b = in;
  while (a < b) {
    int64_t mid = a + (b - a) / 2;
    if (tfc_resize_nearest(mid, scale, out, align, half) >= r) b = mid;
    else a = mid + 1;
  }
  return a;
}

/* [*from, *to): the i in [0, in) whose nearest pixel over an axis of out pixels is r
 * (tfc_resize_nearest(i, scale, out, align, half) == r). */
TFC_RESIZE_FN void tfc_resize_nearest_range(int64_t r, int64_t in, int64_t out, float scale, int align, int half,
                                            int64_t *from, int64_t *to) {
  *from = tfc_resize_nearest_first(r, in, out, scale, align, half);
  *to = tfc_resize_nearest_first(r + 1, in, out, scale, align, half);
}

#ifndef __CUDACC__
#include "device/kernel.h"

/* The forward ops (ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic; ResizeArea with
 * has_half 0: it has no half_pixel_centers attr): images (input 0) and size (input 1, int32
 * [2], host memory) into p. INVALID_ARGUMENT "input must be 4-dimensional[...]", "shape_t must
 * be 1-dimensional[...]", "shape_t must have two elements[...]", "If half_pixel_centers is
 * True, align_corners must be False.", "output dimensions must be positive", "input image
 * must be of non-zero size". Set in c; returns its code. */
int tfc_resize_plan_of(tfc_kernel_ctx *c, int has_half, tfc_resize_plan *p);

/* The size checks of the ops that resize images x (4-D) to the size of input 1 (int32 [2],
 * host memory; named size_name in the texts: "shape_t", ScaleAndTranslate's "output_shape_t"):
 * INVALID_ARGUMENT "input must be 4-dimensional[...]", "<size_name> must be 1-dimensional[...]",
 * "<size_name> must have two elements[...]"; else the size into *out_h, *out_w. */
int tfc_resize_sizes_of(tfc_kernel_ctx *c, const tfc_tensor *x, const char *size_name, int64_t *out_h,
                        int64_t *out_w);

/* ResizeBilinearGrad and ResizeBicubicGrad: grads (input 0, [b, out_h, out_w, c]) and the
 * original image (input 1, only its shape is read) into p. INVALID_ARGUMENT "input_grad must be
 * 4-dimensional[...]", "original_image must be 4-dimensional[...]", "resized dimensions must be
 * positive", and the flags' text. */
int tfc_resize_grad_plan_of(tfc_kernel_ctx *c, tfc_resize_plan *p);

/* ResizeNearestNeighborGrad: grads (input 0, [b, h, w, c]) and size (input 1, int32 [2], host
 * memory; the original image's size) into p, seen from the grads: in = the grads' h and w,
 * out = size, and the scales those of the forward op (size / grads' size, so that
 * tfc_resize_nearest(i, p->h_scale, p->out_h, ...) is the output row grads row i adds into).
 * The forward ops' size texts, the flags' text and "output dimensions must be non-negative". */
int tfc_resize_nearest_grad_plan_of(tfc_kernel_ctx *c, tfc_resize_plan *p);
#endif

#endif
