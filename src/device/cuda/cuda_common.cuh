/*
 * cuda_common — what every CUDA launcher file (the *.cu beside this header) shares: the launch
 * shape, the launch result, grid-stride loops, the storage/compute types with their loads and
 * stores, libm by overload, and the dispatch from a float or index dtype code to a type. Included
 * by CUDA C++ only (cuda_kernels.h is the C side); everything here is in namespace tfc_cuda and
 * is inline or a template, so each translation unit compiles its own copy.
 *
 * Invariants the launchers rely on:
 *   - Every per-element kernel walks its items with a grid-stride loop (TFC_CUDA_GRID_LOOP, or
 *     TFC_CUDA_BLOCK_LOOP for a block per item), so any grid size covers any n: the block cap
 *     only bounds the grid (and so the launch overhead), it never changes a result. A kernel
 *     whose result depends on the grid (a fixed number of partials, a gridDim.y/z limit) passes
 *     its cap explicitly at the call site.
 *   - blocks_for never returns 0 (a 0-block launch is an error), even for n <= 0; launchers
 *     still return before launching anything for 0 elements.
 *   - Indexes are int64 everywhere, so tensors beyond 2^31 elements are covered.
 *   - Block kernels that size shared memory by kThreads, or fold a block in a tree, must be
 *     launched with exactly kThreads threads (a power of two and a multiple of kWarp).
 *   - Half is stored as IEEE half and computed in float: load widens exactly, store rounds to
 *     nearest even (__float2half_rn), as TF's GPU functors do through Eigen::half. Every other
 *     type computes in itself.
 *
 * Nothing here touches shared state: all of it is thread-safe, and the kernels' buffers are
 * the caller's (borrowed until the stream has run the work).
 */
#ifndef TFC_DEVICE_CUDA_CUDA_COMMON_CUH
#define TFC_DEVICE_CUDA_CUDA_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

namespace tfc_cuda {

/* ---- launch shape and result ---- */

/* Threads per block: enough to hide latency, a power of two, a multiple of the warp. */
constexpr int kThreads = 256;
constexpr int kWarp = 32;
/* The default cap on the grid: enough blocks to fill any current GPU several times over
 * (8192 x 256 threads); the grid-stride loops cover the rest. */
constexpr int64_t kMaxBlocks = 8192;

/* The blocks for n items when each block takes per_block of them (kThreads for a thread per
 * item, 1 for a block per item), at least 1 and at most cap. per_block and cap must be >= 1. */
inline unsigned blocks_for(int64_t n, int64_t per_block = kThreads, int64_t cap = kMaxBlocks) {
  int64_t b = n / per_block + (n % per_block > 0); /* no overflow near INT64_MAX */
  if (b < 1) b = 1;
  return (unsigned)(b < cap ? b : cap);
}

/* The number of elements of a shape: the product of dims[0..rank) (1 for rank 0). */
inline int64_t dims_count(int rank, const int64_t *dims) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  return n;
}

/* A CUDA runtime result as a launcher result: 0 on success, else the positive cudaError_t. */
inline int cuda_result(cudaError_t e) { return e == cudaSuccess ? 0 : (int)e; }

/* The result of the launches enqueued since the last check (configuration errors; faults
 * inside a kernel surface at a later synchronization, as with any asynchronous launch). */
inline int launched() { return cuda_result(cudaGetLastError()); }

/* Item i of this thread over [0, n), striding by the whole grid. */
#define TFC_CUDA_GRID_LOOP(i, n)                                                                                   \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

/* Item i of this block over [0, n), striding by the grid's blocks. The bound is the same for
 * every thread of a block, so block-wide barriers inside the body are reached by all. */
#define TFC_CUDA_BLOCK_LOOP(i, n) for (int64_t i = blockIdx.x; i < (n); i += gridDim.x)

/* ---- storage and compute types ---- */

/* acc_t<S>: the type elements stored as S are computed and accumulated in. */
template <typename S> struct compute_of {
  typedef S type;
};
template <> struct compute_of<__half> {
  typedef float type;
};
template <typename S> using acc_t = typename compute_of<S>::type;

/* p[i] in the compute type. */
template <typename S> __device__ __forceinline__ acc_t<S> load(const S *p, int64_t i) { return p[i]; }
template <> __device__ __forceinline__ float load<__half>(const __half *p, int64_t i) { return __half2float(p[i]); }

/* p[i] = v, rounded to the storage type. */
template <typename S> __device__ __forceinline__ void store(S *p, int64_t i, acc_t<S> v) { p[i] = v; }
template <> __device__ __forceinline__ void store<__half>(__half *p, int64_t i, float v) {
  p[i] = __float2half_rn(v);
}

/* ---- libm by overload: one formula serves float and double ---- */

#define TFC_CUDA_MATH1(name, f, d)                                                                \
  __device__ __forceinline__ float name(float a) { return f(a); }                                 \
  __device__ __forceinline__ double name(double a) { return d(a); }
TFC_CUDA_MATH1(m_exp, expf, exp)
TFC_CUDA_MATH1(m_log, logf, log)
TFC_CUDA_MATH1(m_sqrt, sqrtf, sqrt)
TFC_CUDA_MATH1(m_tanh, tanhf, tanh)
TFC_CUDA_MATH1(m_fabs, fabsf, fabs)
TFC_CUDA_MATH1(m_floor, floorf, floor)
TFC_CUDA_MATH1(m_ceil, ceilf, ceil)
TFC_CUDA_MATH1(m_rint, rintf, rint)
TFC_CUDA_MATH1(m_log1p, log1pf, log1p)
TFC_CUDA_MATH1(m_expm1, expm1f, expm1)
TFC_CUDA_MATH1(m_sin, sinf, sin)
TFC_CUDA_MATH1(m_cos, cosf, cos)
TFC_CUDA_MATH1(m_tan, tanf, tan)
TFC_CUDA_MATH1(m_erf, erff, erf)
TFC_CUDA_MATH1(m_erfc, erfcf, erfc)
TFC_CUDA_MATH1(m_lgamma, lgammaf, lgamma)
#define TFC_CUDA_MATH2(name, f, d)                                                                \
  __device__ __forceinline__ float name(float a, float b) { return f(a, b); }                     \
  __device__ __forceinline__ double name(double a, double b) { return d(a, b); }
TFC_CUDA_MATH2(m_pow, powf, pow)
TFC_CUDA_MATH2(m_fmod, fmodf, fmod)
TFC_CUDA_MATH2(m_atan2, atan2f, atan2)
#undef TFC_CUDA_MATH1
#undef TFC_CUDA_MATH2

/* ---- dispatch ---- */

/* A type carried as a value, for generic lambdas: [&](auto t) { typedef typename
 * decltype(t)::type S; ... } is instantiated once per type the dispatcher can pass. */
template <typename T> struct type_tag {
  typedef T type;
};

/* The by_*_dtype helpers call f(type_tag<S>()) for the storage type S of dtype and return
 * its result, or TFC_CUDA_E_UNSUPPORTED (without calling f) for a dtype outside their set.
 * Host only; f is called at most once, on the caller's thread. */

/* The floating-point dtypes: F32, F64, F16 (stored as __half). */
template <typename F> int by_float_dtype(int dtype, F &&f) {
  switch (dtype) {
    case TFC_CUDA_F32: return f(type_tag<float>());
    case TFC_CUDA_F64: return f(type_tag<double>());
    case TFC_CUDA_F16: return f(type_tag<__half>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* The index dtypes: I32, I64. */
template <typename F> int by_index_dtype(int dtype, F &&f) {
  switch (dtype) {
    case TFC_CUDA_I32: return f(type_tag<int32_t>());
    case TFC_CUDA_I64: return f(type_tag<int64_t>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* The copy kernels' dispatch: f(type_tag<W>()) for the word type W of elem_size bytes (1, 2,
 * 4 or 8), or TFC_CUDA_E_UNSUPPORTED. */
template <typename F> int by_size(int elem_size, F &&f) {
  switch (elem_size) {
    case 1: return f(type_tag<uint8_t>());
    case 2: return f(type_tag<uint16_t>());
    case 4: return f(type_tag<uint32_t>());
    case 8: return f(type_tag<uint64_t>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* A 16-byte element (complex128) moved as one word; W() is all zero bits. */
struct alignas(16) word16 {
  uint64_t lo, hi;
};
/* by_size, and word16 for 16 bytes (for the kernels that only move words and zero them). */
template <typename F> int by_size16(int elem_size, F &&f) {
  if (elem_size == 16) return f(type_tag<word16>());
  return by_size(elem_size, f);
}

} // namespace tfc_cuda

#endif
