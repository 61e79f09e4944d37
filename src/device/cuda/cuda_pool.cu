/*
 * cuda_pool — the pooling CUDA kernels behind the GPU MaxPool, AvgPool, MaxPoolGrad and
 * AvgPoolGrad (kernels_conv_gpu.c) and MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad
 * (kernels_conv3d_gpu.c): TF's window semantics computed directly over 3 spatial dims (a 2-D
 * pooling is one with depth 1), channels last or first.
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
 * output's gradient to the input element that is its argmax. MaxPool3DGrad's rule (TF's CPU
 * kernel) is every element equal to the window's orig_output, which the gather tests directly
 * against that output, with no argmax. Products and sums use
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

/* (b, ch, p[0..3)) of element i of an n x c x dims[0..3) tensor in the plan's layout. */
__device__ __forceinline__ void coords(const tfc_cuda_pool_geom &g, const int64_t *dims, int64_t i, int64_t *b,
                                       int64_t *ch, int64_t p[3]) {
  if (g.cfirst) {
    for (int d = 2; d >= 0; d--) {
      p[d] = i % dims[d];
      i /= dims[d];
    }
    *ch = i % g.c;
    *b = i / g.c;
  } else {
    *ch = i % g.c;
    i /= g.c;
    for (int d = 2; d > 0; d--) {
      p[d] = i % dims[d];
      i /= dims[d];
    }
    p[0] = i % dims[0];
    *b = i / dims[0];
  }
}

__device__ __forceinline__ int64_t offset(const tfc_cuda_pool_geom &g, const int64_t *dims, int64_t b, int64_t ch,
                                          int64_t z, int64_t y, int64_t x) {
  return g.cfirst ? (((b * g.c + ch) * dims[0] + z) * dims[1] + y) * dims[2] + x
                  : (((b * dims[0] + z) * dims[1] + y) * dims[2] + x) * g.c + ch;
}

/* The valid window of output o: [lo[d], hi[d]) per dim (as kernels_conv_ref.c). */
__device__ __forceinline__ void window(const tfc_cuda_pool_geom &g, const int64_t o[3], int64_t lo[3], int64_t hi[3]) {
  for (int d = 0; d < 3; d++) {
    int64_t start = o[d] * g.s[d] - g.pad[d];
    hi[d] = start + g.k[d] < g.in[d] ? start + g.k[d] : g.in[d];
    lo[d] = start < 0 ? 0 : start;
  }
}

/* Where input p lies in the full (unclipped) window of output o, row major: what the argmax
 * records and MaxPoolGrad matches, so both must compute it here. */
__device__ __forceinline__ int32_t win_offset(const tfc_cuda_pool_geom &g, const int64_t o[3], int64_t z, int64_t y,
                                              int64_t x) {
  int64_t r[3] = {z - (o[0] * g.s[0] - g.pad[0]), y - (o[1] * g.s[1] - g.pad[1]), x - (o[2] * g.s[2] - g.pad[2])};
  return (int32_t)((r[0] * g.k[1] + r[1]) * g.k[2] + r[2]);
}

/* The outputs whose windows cover input index v of dim d: [*lo, *hi). */
__device__ __forceinline__ void covering(const tfc_cuda_pool_geom &g, int d, int64_t v, int64_t *lo, int64_t *hi) {
  int64_t t = v + g.pad[d] - g.k[d] + 1; /* the first output's window start must be > v - k */
  *lo = t <= 0 ? 0 : (t + g.s[d] - 1) / g.s[d];
  *hi = (v + g.pad[d]) / g.s[d] + 1;
  if (*hi > g.out[d]) *hi = g.out[d];
}

template <typename S>
__global__ void pool_fwd_k(const S *__restrict__ x, S *__restrict__ y, tfc_cuda_pool_geom g, int is_max, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, o[3], lo[3], hi[3];
    coords(g, g.out, i, &b, &ch, o);
    window(g, o, lo, hi);
    A acc = 0;
    int first = 1;
    for (int64_t zz = lo[0]; zz < hi[0]; zz++)
      for (int64_t yy = lo[1]; yy < hi[1]; yy++)
        for (int64_t xx = lo[2]; xx < hi[2]; xx++) {
          A v = load(x, offset(g, g.in, b, ch, zz, yy, xx));
          if (first) acc = v;
          else if (is_max) acc = v > acc ? v : acc;
          else acc = add_rn(acc, v);
          first = 0;
        }
    if (!is_max && !first) acc = mul_rn(acc, (A)1 / (A)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])));
    store(y, i, acc);
  }
}

/* argmax[o] = the offset inside output o's window (row-major over the full window) of its
 * first maximum, or -1 for an empty window (impossible with TF's paddings). */
template <typename S>
__global__ void pool_argmax_k(const S *__restrict__ x, int32_t *__restrict__ argmax, tfc_cuda_pool_geom g, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, o[3], lo[3], hi[3];
    coords(g, g.out, i, &b, &ch, o);
    window(g, o, lo, hi);
    A best = 0;
    int32_t arg = -1;
    for (int64_t zz = lo[0]; zz < hi[0]; zz++)
      for (int64_t yy = lo[1]; yy < hi[1]; yy++)
        for (int64_t xx = lo[2]; xx < hi[2]; xx++) {
          A v = load(x, offset(g, g.in, b, ch, zz, yy, xx));
          if (arg < 0 || v > best) {
            best = v;
            arg = win_offset(g, o, zz, yy, xx);
          }
        }
    argmax[i] = arg;
  }
}

enum { GRAD_AVG = 0, GRAD_FIRST_MAX = 1, GRAD_ALL_MAX = 2 };

/* dx[i] = sum over the outputs covering input i (in output order) of dy * weight: for
 * GRAD_FIRST_MAX, weight 1 where i is the output's argmax; for GRAD_ALL_MAX, 1 where x[i]
 * equals the output's y; for GRAD_AVG, 1 / the window's count. */
template <typename S, int RULE>
__global__ void pool_grad_k(const int32_t *__restrict__ argmax, const S *__restrict__ x, const S *__restrict__ y,
                            const S *__restrict__ dy, S *__restrict__ dx, tfc_cuda_pool_geom g, int64_t n) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t b, ch, p[3], lo[3], hi[3];
    coords(g, g.in, i, &b, &ch, p);
    for (int d = 0; d < 3; d++) covering(g, d, p[d], &lo[d], &hi[d]);
    A xi = RULE == GRAD_ALL_MAX ? load(x, i) : (A)0;
    A acc = 0;
    for (int64_t oz = lo[0]; oz < hi[0]; oz++)
      for (int64_t oy = lo[1]; oy < hi[1]; oy++)
        for (int64_t ox = lo[2]; ox < hi[2]; ox++) {
          int64_t o[3] = {oz, oy, ox}, at = offset(g, g.out, b, ch, oz, oy, ox);
          if (RULE == GRAD_FIRST_MAX) {
            if (argmax[at] == win_offset(g, o, p[0], p[1], p[2])) acc = add_rn(acc, load(dy, at));
          } else if (RULE == GRAD_ALL_MAX) {
            if (xi == load(y, at)) acc = add_rn(acc, load(dy, at));
          } else {
            int64_t wl[3], wh[3];
            window(g, o, wl, wh);
            A count = (A)((wh[0] - wl[0]) * (wh[1] - wl[1]) * (wh[2] - wl[2]));
            acc = add_rn(acc, mul_rn(load(dy, at), (A)1 / count));
          }
        }
    store(dx, i, acc);
  }
}

inline int64_t n_out(const tfc_cuda_pool_geom &g) { return g.n * g.c * g.out[0] * g.out[1] * g.out[2]; }
inline int64_t n_in(const tfc_cuda_pool_geom &g) { return g.n * g.c * g.in[0] * g.in[1] * g.in[2]; }

template <typename S> int fwd(const void *x, void *y, const tfc_cuda_pool_geom &g, int is_max, cudaStream_t st) {
  int64_t n = n_out(g);
  if (n == 0) return 0;
  pool_fwd_k<S><<<blocks_for(n), kThreads, 0, st>>>((const S *)x, (S *)y, g, is_max, n);
  return launched();
}

template <typename S>
int max_grad(const void *x, const void *dy, void *dx, int32_t *argmax, const tfc_cuda_pool_geom &g, cudaStream_t st) {
  int64_t no = n_out(g), ni = n_in(g);
  if (ni == 0) return 0;
  if (no > 0) {
    pool_argmax_k<S><<<blocks_for(no), kThreads, 0, st>>>((const S *)x, argmax, g, no);
    int e = launched();
    if (e) return e;
  }
  pool_grad_k<S, GRAD_FIRST_MAX>
      <<<blocks_for(ni), kThreads, 0, st>>>(argmax, nullptr, nullptr, (const S *)dy, (S *)dx, g, ni);
  return launched();
}

template <typename S>
int max_grad_ties(const void *x, const void *y, const void *dy, void *dx, const tfc_cuda_pool_geom &g,
                  cudaStream_t st) {
  int64_t ni = n_in(g);
  if (ni == 0) return 0;
  pool_grad_k<S, GRAD_ALL_MAX>
      <<<blocks_for(ni), kThreads, 0, st>>>(nullptr, (const S *)x, (const S *)y, (const S *)dy, (S *)dx, g, ni);
  return launched();
}

template <typename S> int avg_grad(const void *dy, void *dx, const tfc_cuda_pool_geom &g, cudaStream_t st) {
  int64_t ni = n_in(g);
  if (ni == 0) return 0;
  pool_grad_k<S, GRAD_AVG><<<blocks_for(ni), kThreads, 0, st>>>(nullptr, nullptr, nullptr, (const S *)dy, (S *)dx, g, ni);
  return launched();
}

/* A window offset must fit the int32 argmax; dims must be non-negative, windows and strides
 * positive. */
inline bool geom_ok(const tfc_cuda_pool_geom *g) {
  if (g->n < 0 || g->c < 0) return false;
  for (int d = 0; d < 3; d++)
    if (g->in[d] < 0 || g->out[d] < 0 || g->k[d] <= 0 || g->s[d] <= 0 || g->pad[d] < 0) return false;
  return g->k[0] <= INT32_MAX / g->k[1] && g->k[0] * g->k[1] <= INT32_MAX / g->k[2];
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

extern "C" int tfc_cuda_pool_max_grad_ties(int dtype, const void *x, const void *y, const void *dy, void *dx,
                                           const tfc_cuda_pool_geom *g, void *stream) {
  if (!geom_ok(g)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype,
                        [&](auto t) { return max_grad_ties<typename decltype(t)::type>(x, y, dy, dx, *g, st); });
}

extern "C" int tfc_cuda_pool_avg_grad(int dtype, const void *dy, void *dx, const tfc_cuda_pool_geom *g, void *stream) {
  if (!geom_ok(g)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) { return avg_grad<typename decltype(t)::type>(dy, dx, *g, st); });
}
