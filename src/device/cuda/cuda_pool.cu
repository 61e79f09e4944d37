/*
 * cuda_pool — the pooling CUDA kernels behind the GPU MaxPool, AvgPool, MaxPoolGrad and
 * AvgPoolGrad (kernels_conv_gpu.c): TF's window semantics computed directly, in NHWC or NCHW.
 *
 * Why not cuDNN. cuDNN pads symmetrically, while TF's SAME puts the odd padding element after;
 * cuDNN's rule for ties in max-pooling backward is not documented, while TF's CPU kernel (and
 * TF's own NHWC GPU kernel, MaxPoolBackwardNoMaskNHWC) send each gradient to the first maximum
 * of its window in row-major order. A window computed here as [o * stride - pad_before,
 * + ksize) clipped to the input needs no padding at all: max never sees a padded value, the
 * average divides by the count of real elements (cuDNN's COUNT_EXCLUDE_PADDING, TF's rule),
 * and the first maximum is defined exactly as on the CPU (kernels_conv_ref.c), NaN included: a
 * later element replaces the best only when it compares greater.
 *
 * Gradients are gathers, not scatters, so they need no atomics and are deterministic: each
 * input element sums, over the outputs whose windows cover it in (oy, ox) order (the CPU's
 * accumulation order), the gradient that routes to it. MaxPoolGrad first records each output's
 * argmax (its offset inside the window, an int32) in a scratch buffer; the gather then adds an
 * output's gradient to the input element that is its argmax. Products and sums use
 * round-to-nearest intrinsics so nvcc does not contract them into FMAs the CPU does not use.
 *
 * Every kernel is grid-stride over int64 element indexes with a capped grid; zero elements
 * launch nothing. half is loaded as float and stored rounded to nearest.
 */
#include <stdint.h>

#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

/* (b, ch, y, x) of element i of an n x c x h x w tensor in the plan's layout. */
__device__ __forceinline__ void coords(const tfc_cuda_pool_geom &g, int64_t h, int64_t w, int64_t i, int64_t *b,
                                       int64_t *ch, int64_t *y, int64_t *x) {
  if (g.nchw) {
    *x = i % w;
    i /= w;
    *y = i % h;
    i /= h;
    *ch = i % g.c;
    *b = i / g.c;
  } else {
    *ch = i % g.c;
    i /= g.c;
    *x = i % w;
    i /= w;
    *y = i % h;
    *b = i / h;
  }
}

__device__ __forceinline__ int64_t offset(const tfc_cuda_pool_geom &g, int64_t h, int64_t w, int64_t b, int64_t ch,
                                          int64_t y, int64_t x) {
  return g.nchw ? ((b * g.c + ch) * h + y) * w + x : ((b * h + y) * w + x) * g.c + ch;
}

/* The valid window of output (oy, ox): rows [*y0, *y1), cols [*x0, *x1) (as kernels_conv_ref.c). */
__device__ __forceinline__ void window(const tfc_cuda_pool_geom &g, int64_t oy, int64_t ox, int64_t *y0, int64_t *y1,
                                       int64_t *x0, int64_t *x1) {
  *y0 = oy * g.sh - g.pt;
  *x0 = ox * g.sw - g.pl;
  *y1 = *y0 + g.kh < g.ih ? *y0 + g.kh : g.ih;
  *x1 = *x0 + g.kw < g.iw ? *x0 + g.kw : g.iw;
  if (*y0 < 0) *y0 = 0;
  if (*x0 < 0) *x0 = 0;
}

/* Where input (yy, xx) lies in the full (unclipped) kh x kw window of output (oy, ox), row
 * major: what the argmax records and MaxPoolGrad matches, so both must compute it here. */
__device__ __forceinline__ int32_t win_offset(const tfc_cuda_pool_geom &g, int64_t oy, int64_t ox, int64_t yy,
                                              int64_t xx) {
  return (int32_t)((yy - (oy * g.sh - g.pt)) * g.kw + (xx - (ox * g.sw - g.pl)));
}

/* The outputs whose windows cover input index v of one dim: [*lo, *hi). */
__device__ __forceinline__ void covering(int64_t v, int64_t pad, int64_t k, int64_t s, int64_t n_out, int64_t *lo,
                                         int64_t *hi) {
  int64_t t = v + pad - k + 1; /* the first output's window start must be > v - k */
  *lo = t <= 0 ? 0 : (t + s - 1) / s;
  *hi = (v + pad) / s + 1;
  if (*hi > n_out) *hi = n_out;
}

template <typename S>
__global__ void pool_fwd_k(const S *__restrict__ x, S *__restrict__ y, tfc_cuda_pool_geom g, int is_max, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, oy, ox, y0, y1, x0, x1;
    coords(g, g.oh, g.ow, i, &b, &ch, &oy, &ox);
    window(g, oy, ox, &y0, &y1, &x0, &x1);
    A acc = 0;
    int first = 1;
    for (int64_t yy = y0; yy < y1; yy++)
      for (int64_t xx = x0; xx < x1; xx++) {
        A v = load(x, offset(g, g.ih, g.iw, b, ch, yy, xx));
        if (first) acc = v;
        else if (is_max) acc = v > acc ? v : acc;
        else acc = add_rn(acc, v);
        first = 0;
      }
    if (!is_max && !first) acc = mul_rn(acc, (A)1 / (A)((y1 - y0) * (x1 - x0)));
    store(y, offset(g, g.oh, g.ow, b, ch, oy, ox), acc);
  }
}

/* argmax[o] = the offset inside output o's window (row-major over the full window) of its
 * first maximum, or -1 for an empty window (impossible with TF's paddings). */
template <typename S>
__global__ void pool_argmax_k(const S *__restrict__ x, int32_t *__restrict__ argmax, tfc_cuda_pool_geom g, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, oy, ox, y0, y1, x0, x1;
    coords(g, g.oh, g.ow, i, &b, &ch, &oy, &ox);
    window(g, oy, ox, &y0, &y1, &x0, &x1);
    A best = 0;
    int32_t arg = -1;
    for (int64_t yy = y0; yy < y1; yy++)
      for (int64_t xx = x0; xx < x1; xx++) {
        A v = load(x, offset(g, g.ih, g.iw, b, ch, yy, xx));
        if (arg < 0 || v > best) {
          best = v;
          arg = win_offset(g, oy, ox, yy, xx);
        }
      }
    argmax[offset(g, g.oh, g.ow, b, ch, oy, ox)] = arg;
  }
}

/* dx[i] = sum over the outputs covering input i (in (oy, ox) order) of dy * weight: for max,
 * weight 1 where i is the output's argmax, else 0; for avg, 1 / the window's count. */
template <typename S, int MAX>
__global__ void pool_grad_k(const int32_t *__restrict__ argmax, const S *__restrict__ dy, S *__restrict__ dx,
                            tfc_cuda_pool_geom g, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, yy, xx, oy0, oy1, ox0, ox1;
    coords(g, g.ih, g.iw, i, &b, &ch, &yy, &xx);
    covering(yy, g.pt, g.kh, g.sh, g.oh, &oy0, &oy1);
    covering(xx, g.pl, g.kw, g.sw, g.ow, &ox0, &ox1);
    A acc = 0;
    for (int64_t oy = oy0; oy < oy1; oy++)
      for (int64_t ox = ox0; ox < ox1; ox++) {
        int64_t o = offset(g, g.oh, g.ow, b, ch, oy, ox);
        if (MAX) {
          if (argmax[o] == win_offset(g, oy, ox, yy, xx)) acc = add_rn(acc, load(dy, o));
        } else {
          int64_t y0, y1, x0, x1;
          window(g, oy, ox, &y0, &y1, &x0, &x1);
          acc = add_rn(acc, mul_rn(load(dy, o), (A)1 / (A)((y1 - y0) * (x1 - x0))));
        }
      }
    store(dx, i, acc);
  }
}

template <typename S> int fwd(const void *x, void *y, const tfc_cuda_pool_geom &g, int is_max, cudaStream_t st) {
  int64_t n = g.n * g.c * g.oh * g.ow;
  if (n == 0) return 0;
  pool_fwd_k<S><<<blocks_for(n), kThreads, 0, st>>>((const S *)x, (S *)y, g, is_max, n);
  return launched();
}

template <typename S>
int max_grad(const void *x, const void *dy, void *dx, int32_t *argmax, const tfc_cuda_pool_geom &g, cudaStream_t st) {
  int64_t n_out = g.n * g.c * g.oh * g.ow, n_in = g.n * g.c * g.ih * g.iw;
  if (n_in == 0) return 0;
  if (n_out > 0) {
    pool_argmax_k<S><<<blocks_for(n_out), kThreads, 0, st>>>((const S *)x, argmax, g, n_out);
    int e = launched();
    if (e) return e;
  }
  pool_grad_k<S, 1><<<blocks_for(n_in), kThreads, 0, st>>>(argmax, (const S *)dy, (S *)dx, g, n_in);
  return launched();
}

template <typename S> int avg_grad(const void *dy, void *dx, const tfc_cuda_pool_geom &g, cudaStream_t st) {
  int64_t n_in = g.n * g.c * g.ih * g.iw;
  if (n_in == 0) return 0;
  pool_grad_k<S, 0><<<blocks_for(n_in), kThreads, 0, st>>>(nullptr, (const S *)dy, (S *)dx, g, n_in);
  return launched();
}

/* A window offset must fit the int32 argmax; dims must be non-negative. */
inline bool geom_ok(const tfc_cuda_pool_geom *g) {
  return g->n >= 0 && g->c >= 0 && g->ih >= 0 && g->iw >= 0 && g->oh >= 0 && g->ow >= 0 && g->kh > 0 && g->kw > 0 &&
         g->sh > 0 && g->sw > 0 && g->kh <= INT32_MAX / g->kw;
}

} // namespace

extern "C" int tfc_cuda_pool_fwd(int dtype, int is_max, const void *x, void *y, const tfc_cuda_pool_geom *g,
                                 void *stream) {
  if (!geom_ok(g)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) { return fwd<typename decltype(t)::type>(x, y, *g, is_max, st); });
}

extern "C" int tfc_cuda_pool_max_grad(int dtype, const void *x, const void *dy, void *dx, int32_t *argmax,
                                      const tfc_cuda_pool_geom *g, void *stream) {
  if (!geom_ok(g)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) { return max_grad<typename decltype(t)::type>(x, dy, dx, argmax, *g, st); });
}

extern "C" int tfc_cuda_pool_avg_grad(int dtype, const void *dy, void *dx, const tfc_cuda_pool_geom *g, void *stream) {
  if (!geom_ok(g)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) { return avg_grad<typename decltype(t)::type>(dy, dx, *g, st); });
}
