/*
 * cuda_resize — the CUDA kernels of the resize ops (launcher API in cuda_resize.h; the tfc
 * kernels on top in kernels_image_gpu.c).
 *
 * One thread per output element (grid-stride), decomposed as NHWC (b, y, x, k). The forward
 * kernels recompute their two taps per axis with resize_plan.h's inline functions (a few float
 * operations, cheaper than a table read and identical to the CPU's table).
 *
 * The gradients gather. Result pixel r along an axis receives from the resized indices i whose
 * taps include r: for bilinear lo(i) <= r <= hi(i) (hi - lo is 0 or 1, so r is one of them),
 * for nearest src(i) == r. lo, hi and src are non-decreasing in i (float rounding and
 * floor/ceil/round are monotone), so those i form one range, found by two binary searches on
 * the same functions the forward op uses (resize_plan.h's tfc_resize_lerp_range and
 * tfc_resize_nearest_range, which tests/unit/test_resize_plan.c checks against brute force on
 * the host); within the range each bilinear candidate is still checked tap by tap. Candidates are
 * visited rows first, then columns, then taps (top-left, top-right, bottom-left,
 * bottom-right): the order in which the CPU kernel's scatter reaches any one result element,
 * so every partial sum, and so every rounding, is the CPU's.
 */
#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_resize.h"

using namespace tfc_cuda;

namespace {

/* ---- element helpers ---- */

/* An image element as float, as the CPU kernels read every T (double rounds to nearest). */
__device__ __forceinline__ float as_float(float v) { return v; }
__device__ __forceinline__ float as_float(double v) { return __double2float_rn(v); }
__device__ __forceinline__ float as_float(__half v) { return __half2float(v); }

/* acc + v, each sum rounded once in the accumulator's type (never fused with a product). */
__device__ __forceinline__ float add_rn(float acc, float v) { return __fadd_rn(acc, v); }
__device__ __forceinline__ double add_rn(double acc, double v) { return __dadd_rn(acc, v); }

/* acc + v as TF's kernels add into a tensor of S: in S, so half rounds every partial sum to
 * half (the CPU's tfc_image_accumulate; a float sum of two halves rounded to half is the half
 * sum, float having more than twice half's precision). acc holds a value of S. */
template <typename S> __device__ __forceinline__ acc_t<S> add_in(acc_t<S> acc, acc_t<S> v) { return add_rn(acc, v); }
template <> __device__ __forceinline__ float add_in<__half>(float acc, float v) {
  return __half2float(__float2half_rn(__fadd_rn(acc, v)));
}

/* (b, y, x, k) of element i of an NHWC tensor of h x w x ch pixels. */
struct nhwc {
  int64_t b, y, x, k;
  __device__ nhwc(int64_t i, int64_t h, int64_t w, int64_t ch) {
    k = i % ch;
    i /= ch;
    x = i % w;
    i /= w;
    y = i % h;
    b = i / h;
  }
};

/* ---- bilinear ---- */

template <typename S> __global__ void bilinear_kernel(const S *x, float *y, tfc_resize_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    nhwc o(i, p.out_h, p.out_w, p.ch);
    int64_t ylo, yhi, xlo, xhi;
    float wy, wx;
    tfc_resize_lerp(o.y, p.in_h, p.h_scale, p.half, &ylo, &yhi, &wy);
    tfc_resize_lerp(o.x, p.in_w, p.w_scale, p.half, &xlo, &xhi, &wx);
    const S *top = x + (o.b * p.in_h + ylo) * p.in_w * p.ch + o.k;
    const S *bot = x + (o.b * p.in_h + yhi) * p.in_w * p.ch + o.k;
    float t = tfc_resize_blend(as_float(top[xlo * p.ch]), as_float(top[xhi * p.ch]), wx);
    float bo = tfc_resize_blend(as_float(bot[xlo * p.ch]), as_float(bot[xhi * p.ch]), wx);
    y[i] = tfc_resize_blend(t, bo, wy);
  }
}

template <typename S> __global__ void bilinear_grad_kernel(const float *g, S *dx, tfc_resize_plan p, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    nhwc r(i, p.in_h, p.in_w, p.ch);
    int64_t y0, y1, x0, x1;
    tfc_resize_lerp_range(r.y, p.out_h, p.in_h, p.h_scale, p.half, &y0, &y1);
    tfc_resize_lerp_range(r.x, p.out_w, p.in_w, p.w_scale, p.half, &x0, &x1);
    A acc = 0;
    for (int64_t yy = y0; yy < y1; yy++) {
      int64_t ylo, yhi;
      float wy;
      tfc_resize_lerp(yy, p.in_h, p.h_scale, p.half, &ylo, &yhi, &wy);
      float iy = tfc_resize_sub(1.0f, wy);
      const float *row = g + ((r.b * p.out_h + yy) * p.out_w) * p.ch + r.k;
      for (int64_t xx = x0; xx < x1; xx++) {
        int64_t xlo, xhi;
        float wx;
        tfc_resize_lerp(xx, p.in_w, p.w_scale, p.half, &xlo, &xhi, &wx);
        float ix = tfc_resize_sub(1.0f, wx);
        float v = row[xx * p.ch];
        float vy = tfc_resize_mul(v, iy), vw = tfc_resize_mul(v, wy);
        if (ylo == r.y && xlo == r.x) acc = add_rn(acc, (A)tfc_resize_mul(vy, ix));
        if (ylo == r.y && xhi == r.x) acc = add_rn(acc, (A)tfc_resize_mul(vy, wx));
        if (yhi == r.y && xlo == r.x) acc = add_rn(acc, (A)tfc_resize_mul(vw, ix));
        if (yhi == r.y && xhi == r.x) acc = add_rn(acc, (A)tfc_resize_mul(vw, wx));
      }
    }
    store<S>(dx, i, acc);
  }
}

/* ---- nearest ---- */

template <typename E> __global__ void nearest_kernel(const E *x, E *y, tfc_resize_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    nhwc o(i, p.out_h, p.out_w, p.ch);
    int64_t sy = tfc_resize_nearest(o.y, p.h_scale, p.in_h, p.align, p.half);
    int64_t sx = tfc_resize_nearest(o.x, p.w_scale, p.in_w, p.align, p.half);
    y[i] = x[((o.b * p.in_h + sy) * p.in_w + sx) * p.ch + o.k];
  }
}

/* p from tfc_resize_nearest_grad_plan_of: g is [batch, in_h, in_w, ch], dx [batch, out_h, out_w, ch]. */
template <typename S> __global__ void nearest_grad_kernel(const S *g, S *dx, tfc_resize_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    nhwc o(i, p.out_h, p.out_w, p.ch);
    int64_t y0, y1, x0, x1;
    tfc_resize_nearest_range(o.y, p.in_h, p.out_h, p.h_scale, p.align, p.half, &y0, &y1);
    tfc_resize_nearest_range(o.x, p.in_w, p.out_w, p.w_scale, p.align, p.half, &x0, &x1);
    acc_t<S> acc = 0;
    for (int64_t yy = y0; yy < y1; yy++)
      for (int64_t xx = x0; xx < x1; xx++) acc = add_in<S>(acc, load(g, ((o.b * p.in_h + yy) * p.in_w + xx) * p.ch + o.k));
    store<S>(dx, i, acc);
  }
}

/* Launches k over n threads' worth of grid-stride work on stream. */
#define LAUNCH(kernel, n, stream) kernel<<<blocks_for(n), kThreads, 0, (cudaStream_t)(stream)>>>

} // namespace

extern "C" int tfc_cuda_resize_bilinear(int dtype, const void *x, float *y, const tfc_resize_plan *p, void *stream) {
  int64_t n = p->batch * p->out_h * p->out_w * p->ch;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (n == 0) return 0;
    LAUNCH(bilinear_kernel<S>, n, stream)((const S *)x, y, *p, n);
    return launched();
  });
}

extern "C" int tfc_cuda_resize_bilinear_grad(int dtype, const float *g, void *dx, const tfc_resize_plan *p,
                                             void *stream) {
  int64_t n = p->batch * p->in_h * p->in_w * p->ch;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (n == 0) return 0;
    LAUNCH(bilinear_grad_kernel<S>, n, stream)(g, (S *)dx, *p, n);
    return launched();
  });
}

extern "C" int tfc_cuda_resize_nearest(int elem_size, const void *x, void *y, const tfc_resize_plan *p,
                                       void *stream) {
  int64_t n = p->batch * p->out_h * p->out_w * p->ch;
  if (elem_size != 2 && elem_size != 4 && elem_size != 8) return TFC_CUDA_E_UNSUPPORTED;
  if (n == 0) return 0;
  switch (elem_size) {
    case 2: LAUNCH(nearest_kernel<uint16_t>, n, stream)((const uint16_t *)x, (uint16_t *)y, *p, n); break;
    case 4: LAUNCH(nearest_kernel<uint32_t>, n, stream)((const uint32_t *)x, (uint32_t *)y, *p, n); break;
    default: LAUNCH(nearest_kernel<uint64_t>, n, stream)((const uint64_t *)x, (uint64_t *)y, *p, n); break;
  }
  return launched();
}

extern "C" int tfc_cuda_resize_nearest_grad(int dtype, const void *g, void *dx, const tfc_resize_plan *p,
                                            void *stream) {
  int64_t n = p->batch * p->out_h * p->out_w * p->ch;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (n == 0) return 0;
    LAUNCH(nearest_grad_kernel<S>, n, stream)((const S *)g, (S *)dx, *p, n);
    return launched();
  });
}
