/*
 * cuda_array — the data-movement CUDA kernels behind the GPU array ops (kernels_array_gpu.c,
 * kernels_pad_gpu.c): strided copy, tile, gather, cast, fill, select (element-wise and
 * broadcast), one-hot, pad (constant and mirrored), the mirror-pad gradient, the unsorted
 * segment sum and a device-to-device memcpy. cuda_kernels.h and cuda_array2.h document the
 * launchers.
 *
 * Copies move elements as opaque words of 1, 2, 4 or 8 bytes, so one instantiation per size
 * serves every dtype. Each kernel is grid-stride over the output elements: a thread maps its
 * output index to the source through the plan (dims and strides passed by value, so they sit
 * in the constant bank). The strided copy covers Transpose, Slice, StridedSlice, and each
 * piece of ConcatV2/Split/Pack/Unpack (a window of the whole tensor at a column offset).
 *
 * Cast converts through the compute types: half through float, bool as 0/1, and
 * float-to-integer conversions saturating with NaN to 0 (CUDA's cvt.rzi.sat, which is what
 * TF's GPU Cast gets through Eigen as well).
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_kernels.h"

namespace {

/* Grid: enough blocks to cover n, capped (grid-stride loops do the rest). */
constexpr int kThreads = 256;
inline int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return (int)(b > 65535 ? 65535 : (b < 1 ? 1 : b));
}

inline int launched(void) {
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : (int)e;
}

template <int N> struct word;
template <> struct word<1> { typedef uint8_t T; };
template <> struct word<2> { typedef uint16_t T; };
template <> struct word<4> { typedef uint32_t T; };
template <> struct word<8> { typedef uint64_t T; };

#define GRID_LOOP(i, n)                                                                                         \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

/* ---- strided copy ---- */

template <typename W> __global__ void strided_copy_k(const W *src, W *dst, tfc_cuda_copy_plan p, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t rem = i, so = p.src_offset, dof = p.dst_offset;
    for (int d = p.rank - 1; d >= 0; d--) {
      int64_t c = rem % p.dims[d];
      rem /= p.dims[d];
      so += c * p.src_strides[d];
      dof += c * p.dst_strides[d];
    }
    dst[dof] = src[so];
  }
}

/* ---- tile ---- */

struct tile_plan {
  int rank;
  int64_t in_dims[TFC_CUDA_MAX_DIMS], out_dims[TFC_CUDA_MAX_DIMS];
};

template <typename W> __global__ void tile_k(const W *src, W *dst, tile_plan p, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t rem = i, so = 0, st = 1;
    for (int d = p.rank - 1; d >= 0; d--) {
      int64_t c = rem % p.out_dims[d];
      rem /= p.out_dims[d];
      so += (c % p.in_dims[d]) * st;
      st *= p.in_dims[d];
    }
    dst[i] = src[so];
  }
}

/* ---- gather ---- */

template <typename W, typename I>
__global__ void gather_k(const W *params, const I *idx, W *out, int64_t outer, int64_t limit, int64_t n_idx,
                         int64_t inner, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t k = i % inner, r = i / inner;
    int64_t j = r % n_idx, bo = r / n_idx; /* bo = b * outer + o */
    int64_t b = bo / outer;
    int64_t v = (int64_t)idx[b * n_idx + j];
    out[i] = v < 0 || v >= limit ? W(0) : params[(bo * limit + v) * inner + k];
  }
}

/* ---- cast ---- */

template <typename S> struct cv {
  typedef S C;
  static __device__ __forceinline__ C ld(S v) { return v; }
};
template <> struct cv<__half> {
  typedef float C;
  static __device__ __forceinline__ float ld(__half v) { return __half2float(v); }
};

template <typename D> struct to {
  template <typename C> static __device__ __forceinline__ D conv(C v) { return (D)v; }
};
template <> struct to<__half> {
  template <typename C> static __device__ __forceinline__ __half conv(C v) { return __float2half_rn((float)v); }
};
template <> struct to<uint8_t> { /* bool */
  template <typename C> static __device__ __forceinline__ uint8_t conv(C v) { return v != C(0); }
};
/* Float to integer: saturating, NaN to 0. */
template <typename D, typename F> __device__ __forceinline__ D sat(F v) {
  if (v != v) return 0;
  if (v <= (F)(-9.2233720368547758e18) && sizeof(D) == 8) return (D)(-9223372036854775807LL - 1);
  if (v >= (F)(9.2233720368547758e18) && sizeof(D) == 8) return (D)9223372036854775807LL;
  if (sizeof(D) == 4) {
    if (v <= (F)(-2147483648.0)) return (D)(-2147483647 - 1);
    if (v >= (F)(2147483647.0)) return (D)2147483647;
  }
  return (D)v;
}
template <> struct to<int32_t> {
  static __device__ __forceinline__ int32_t conv(float v) { return sat<int32_t>(v); }
  static __device__ __forceinline__ int32_t conv(double v) { return sat<int32_t>(v); }
  template <typename C> static __device__ __forceinline__ int32_t conv(C v) { return (int32_t)v; }
};
template <> struct to<int64_t> {
  static __device__ __forceinline__ int64_t conv(float v) { return sat<int64_t>(v); }
  static __device__ __forceinline__ int64_t conv(double v) { return sat<int64_t>(v); }
  template <typename C> static __device__ __forceinline__ int64_t conv(C v) { return (int64_t)v; }
};

template <typename S, typename D> __global__ void cast_k(const S *x, D *y, int64_t n) {
  GRID_LOOP(i, n) y[i] = to<D>::conv(cv<S>::ld(x[i]));
}

template <typename S> int cast_from(int dst, const void *x, void *y, int64_t n, cudaStream_t st) {
  const S *xs = (const S *)x;
  switch (dst) {
    case TFC_CUDA_F32: cast_k<S, float><<<blocks_for(n), kThreads, 0, st>>>(xs, (float *)y, n); break;
    case TFC_CUDA_F64: cast_k<S, double><<<blocks_for(n), kThreads, 0, st>>>(xs, (double *)y, n); break;
    case TFC_CUDA_F16: cast_k<S, __half><<<blocks_for(n), kThreads, 0, st>>>(xs, (__half *)y, n); break;
    case TFC_CUDA_I32: cast_k<S, int32_t><<<blocks_for(n), kThreads, 0, st>>>(xs, (int32_t *)y, n); break;
    case TFC_CUDA_I64: cast_k<S, int64_t><<<blocks_for(n), kThreads, 0, st>>>(xs, (int64_t *)y, n); break;
    case TFC_CUDA_BOOL: cast_k<S, uint8_t><<<blocks_for(n), kThreads, 0, st>>>(xs, (uint8_t *)y, n); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}

/* ---- fill, select, one-hot ---- */

template <typename W> __global__ void fill_k(const W *dev_value, W value, W *dst, int64_t n) {
  W v = dev_value ? *dev_value : value;
  GRID_LOOP(i, n) dst[i] = v;
}

template <typename W>
__global__ void select_k(const uint8_t *cond, const W *t, const W *e, W *z, int64_t n, int64_t cdiv) {
  GRID_LOOP(i, n) z[i] = cond[i / cdiv] ? t[i] : e[i];
}

template <typename W, typename I>
__global__ void one_hot_k(const I *idx, const W *on, const W *off, W *out, int64_t depth, int64_t inner, int64_t n) {
  W von = *on, voff = *off;
  GRID_LOOP(i, n) {
    int64_t k = i % inner, r = i / inner;
    int64_t d = r % depth, o = r / depth;
    out[i] = (int64_t)idx[o * inner + k] == d ? von : voff;
  }
}

/* Calls F<W>::run(args...) for the word type of elem_size. */
template <template <typename> class F, typename... A> int by_size(int elem_size, A... a) {
  switch (elem_size) {
    case 1: return F<uint8_t>::run(a...);
    case 2: return F<uint16_t>::run(a...);
    case 4: return F<uint32_t>::run(a...);
    case 8: return F<uint64_t>::run(a...);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

template <typename W> struct copy_run {
  static int run(const void *src, void *dst, tfc_cuda_copy_plan p, int64_t n, cudaStream_t st) {
    strided_copy_k<W><<<blocks_for(n), kThreads, 0, st>>>((const W *)src, (W *)dst, p, n);
    return launched();
  }
};
template <typename W> struct tile_run {
  static int run(const void *src, void *dst, tile_plan p, int64_t n, cudaStream_t st) {
    tile_k<W><<<blocks_for(n), kThreads, 0, st>>>((const W *)src, (W *)dst, p, n);
    return launched();
  }
};
template <typename W> struct gather_run {
  static int run(int idx_dtype, const void *params, const void *idx, void *out, int64_t outer, int64_t limit,
                 int64_t n_idx, int64_t inner, int64_t n, cudaStream_t st) {
    if (idx_dtype == TFC_CUDA_I32)
      gather_k<W, int32_t><<<blocks_for(n), kThreads, 0, st>>>((const W *)params, (const int32_t *)idx, (W *)out,
                                                               outer, limit, n_idx, inner, n);
    else if (idx_dtype == TFC_CUDA_I64)
      gather_k<W, int64_t><<<blocks_for(n), kThreads, 0, st>>>((const W *)params, (const int64_t *)idx, (W *)out,
                                                               outer, limit, n_idx, inner, n);
    else
      return TFC_CUDA_E_UNSUPPORTED;
    return launched();
  }
};
template <typename W> struct fill_run {
  static int run(const void *dev_value, uint64_t bits, void *dst, int64_t n, cudaStream_t st) {
    fill_k<W><<<blocks_for(n), kThreads, 0, st>>>((const W *)dev_value, (W)bits, (W *)dst, n);
    return launched();
  }
};
template <typename W> struct select_run {
  static int run(const void *cond, const void *t, const void *e, void *z, int64_t n, int64_t cdiv, cudaStream_t st) {
    select_k<W><<<blocks_for(n), kThreads, 0, st>>>((const uint8_t *)cond, (const W *)t, (const W *)e, (W *)z, n,
                                                    cdiv);
    return launched();
  }
};
template <typename W> struct one_hot_run {
  static int run(int idx_dtype, const void *idx, const void *on, const void *off, void *out, int64_t depth,
                 int64_t inner, int64_t n, cudaStream_t st) {
    if (idx_dtype == TFC_CUDA_I32)
      one_hot_k<W, int32_t><<<blocks_for(n), kThreads, 0, st>>>((const int32_t *)idx, (const W *)on, (const W *)off,
                                                                (W *)out, depth, inner, n);
    else if (idx_dtype == TFC_CUDA_I64)
      one_hot_k<W, int64_t><<<blocks_for(n), kThreads, 0, st>>>((const int64_t *)idx, (const W *)on, (const W *)off,
                                                                (W *)out, depth, inner, n);
    else
      return TFC_CUDA_E_UNSUPPORTED;
    return launched();
  }
};

} // namespace

extern "C" int tfc_cuda_strided_copy(int elem_size, const void *src, void *dst, const tfc_cuda_copy_plan *plan,
                                     void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = 1;
  for (int d = 0; d < plan->rank; d++) n *= plan->dims[d];
  if (n == 0) return 0;
  return by_size<copy_run>(elem_size, src, dst, *plan, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_tile(int elem_size, const void *src, void *dst, int rank, const int64_t *in_dims,
                             const int64_t *out_dims, void *stream) {
  if (rank < 1 || rank > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  tile_plan p;
  p.rank = rank;
  int64_t n = 1;
  for (int d = 0; d < rank; d++) {
    p.in_dims[d] = in_dims[d];
    p.out_dims[d] = out_dims[d];
    n *= out_dims[d];
  }
  if (n == 0) return 0;
  return by_size<tile_run>(elem_size, src, dst, p, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_gather(int elem_size, int idx_dtype, const void *params, const void *idx, void *out,
                               int64_t batch, int64_t outer, int64_t limit, int64_t n_idx, int64_t inner,
                               void *stream) {
  int64_t n = batch * outer * n_idx * inner;
  if (n == 0) return 0;
  return by_size<gather_run>(elem_size, idx_dtype, params, idx, out, outer, limit, n_idx, inner, n,
                             (cudaStream_t)stream);
}

extern "C" int tfc_cuda_cast(int src_dtype, int dst_dtype, const void *x, void *y, int64_t n, void *stream) {
  if (n == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  switch (src_dtype) {
    case TFC_CUDA_F32: return cast_from<float>(dst_dtype, x, y, n, st);
    case TFC_CUDA_F64: return cast_from<double>(dst_dtype, x, y, n, st);
    case TFC_CUDA_F16: return cast_from<__half>(dst_dtype, x, y, n, st);
    case TFC_CUDA_I32: return cast_from<int32_t>(dst_dtype, x, y, n, st);
    case TFC_CUDA_I64: return cast_from<int64_t>(dst_dtype, x, y, n, st);
    case TFC_CUDA_BOOL: return cast_from<uint8_t>(dst_dtype, x, y, n, st);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

extern "C" int tfc_cuda_fill(int elem_size, const void *dev_value, uint64_t bits, void *dst, int64_t n,
                             void *stream) {
  if (n == 0) return 0;
  return by_size<fill_run>(elem_size, dev_value, bits, dst, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_select(int elem_size, const void *cond, const void *t, const void *e, void *z, int64_t n,
                               int64_t cond_div, void *stream) {
  if (n == 0) return 0;
  if (cond_div < 1) return TFC_CUDA_E_UNSUPPORTED;
  return by_size<select_run>(elem_size, cond, t, e, z, n, cond_div, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_one_hot(int elem_size, int idx_dtype, const void *idx, const void *on, const void *off,
                                void *out, int64_t outer, int64_t depth, int64_t inner, void *stream) {
  int64_t n = outer * depth * inner;
  if (n == 0) return 0;
  return by_size<one_hot_run>(elem_size, idx_dtype, idx, on, off, out, depth, inner, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_memcpy(void *dst, const void *src, int64_t bytes, void *stream) {
  if (bytes == 0) return 0;
  cudaError_t e = cudaMemcpyAsync(dst, src, (size_t)bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
  return e == cudaSuccess ? 0 : (int)e;
}

/* ---- broadcast select, pads, mirror-pad gradient, unsorted segment sum ---- */

namespace {

template <typename W>
__global__ void select_bcast_k(const uint8_t *cond, const W *t, const W *e, W *z, tfc_cuda_bcast3 p, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t rem = i, o0 = 0, o1 = 0, o2 = 0;
    for (int d = p.rank - 1; d >= 0; d--) {
      int64_t c = rem % p.dims[d];
      rem /= p.dims[d];
      o0 += c * p.strides[0][d];
      o1 += c * p.strides[1][d];
      o2 += c * p.strides[2][d];
    }
    z[i] = cond[o0] ? t[o1] : e[o2];
  }
}

/* tfc_pad_map (device/array_plan.h) on the device: the source index of padded index o, or -1. */
__device__ __forceinline__ int64_t pad_map(int64_t o, int64_t before, int64_t n, int mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == 0) return -1;
  if (i < 0) return mode == 2 ? -i - 1 : -i;
  return mode == 2 ? 2 * n - 1 - i : 2 * n - 2 - i;
}

template <typename W>
__global__ void pad_k(const W *src, W *dst, tfc_cuda_pad_plan p, const W *dev_value, int64_t n) {
  W fill = dev_value ? *dev_value : W(0);
  GRID_LOOP(i, n) {
    int64_t rem = i, so = 0, st = 1;
    bool constant = false;
    for (int d = p.rank - 1; d >= 0; d--) {
      int64_t c = rem % p.padded[d];
      rem /= p.padded[d];
      int64_t m = pad_map(c, p.before[d], p.dims[d], p.mode);
      if (m < 0) constant = true;
      so += m * st;
      st *= p.dims[d];
    }
    dst[i] = constant ? fill : src[so];
  }
}

template <typename T> struct acc_of {
  typedef T A;
  static __device__ __forceinline__ A ld(T v) { return v; }
  static __device__ __forceinline__ T st(A v) { return v; }
};
template <> struct acc_of<__half> {
  typedef float A;
  static __device__ __forceinline__ float ld(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half st(float v) { return __float2half_rn(v); }
};

/* Each output element gathers its sources: along each dim, the element itself and at most one
 * mirror image in each padding; the sources are every combination over the dims. Over the
 * whole output that is exactly one read per gradient element. */
template <typename T>
__global__ void mirror_grad_k(const T *g, T *out, tfc_cuda_pad_plan p, int64_t n) {
  typedef typename acc_of<T>::A A;
  GRID_LOOP(i, n) {
    int64_t cand[TFC_CUDA_MAX_DIMS][3], gst[TFC_CUDA_MAX_DIMS];
    int cnt[TFC_CUDA_MAX_DIMS], at[TFC_CUDA_MAX_DIMS];
    int64_t rem = i, st = 1;
    for (int d = p.rank - 1; d >= 0; d--) {
      int64_t nd = p.dims[d], j = rem % nd, b = p.before[d], after = p.padded[d] - b - nd;
      rem /= nd;
      int k = 0;
      cand[d][k++] = b + j;
      if (p.mode == 2) { /* SYMMETRIC */
        if (j < b) cand[d][k++] = b - 1 - j;
        if (j >= nd - after) cand[d][k++] = b + 2 * nd - 1 - j;
      } else { /* REFLECT */
        if (j >= 1 && j <= b) cand[d][k++] = b - j;
        if (j <= nd - 2 && j >= nd - 1 - after) cand[d][k++] = b + 2 * nd - 2 - j;
      }
      cnt[d] = k;
      at[d] = 0;
      gst[d] = st;
      st *= p.padded[d];
    }
    A acc = A(0);
    for (;;) {
      int64_t off = 0;
      for (int d = 0; d < p.rank; d++) off += cand[d][at[d]] * gst[d];
      acc += acc_of<T>::ld(g[off]);
      int d = p.rank - 1;
      while (d >= 0 && ++at[d] == cnt[d]) at[d--] = 0;
      if (d < 0) break;
    }
    out[i] = acc_of<T>::st(acc);
  }
}

__device__ __forceinline__ void atomic_add(float *p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double *p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(__half *p, __half v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int32_t *p, int32_t v) { atomicAdd((int *)p, (int)v); }

template <typename T, typename I>
__global__ void segment_sum_k(const T *data, const I *ids, T *out, int64_t inner, int64_t num, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t r = i / inner, k = i - r * inner;
    int64_t s = (int64_t)ids[r];
    if (s >= 0 && s < num) atomic_add(&out[s * inner + k], data[i]);
  }
}

template <typename W> struct select_bcast_run {
  static int run(const void *cond, const void *t, const void *e, void *z, tfc_cuda_bcast3 p, int64_t n,
                 cudaStream_t st) {
    select_bcast_k<W><<<blocks_for(n), kThreads, 0, st>>>((const uint8_t *)cond, (const W *)t, (const W *)e, (W *)z,
                                                          p, n);
    return launched();
  }
};
template <typename W> struct pad_run {
  static int run(const void *src, void *dst, tfc_cuda_pad_plan p, const void *dev_value, int64_t n, cudaStream_t st) {
    pad_k<W><<<blocks_for(n), kThreads, 0, st>>>((const W *)src, (W *)dst, p, (const W *)dev_value, n);
    return launched();
  }
};

template <typename T>
int segment_sum_typed(int idx_dtype, const void *data, const void *ids, void *out, int64_t inner, int64_t num,
                      int64_t n, cudaStream_t st) {
  if (idx_dtype == TFC_CUDA_I32)
    segment_sum_k<T, int32_t><<<blocks_for(n), kThreads, 0, st>>>((const T *)data, (const int32_t *)ids, (T *)out,
                                                                  inner, num, n);
  else if (idx_dtype == TFC_CUDA_I64)
    segment_sum_k<T, int64_t><<<blocks_for(n), kThreads, 0, st>>>((const T *)data, (const int64_t *)ids, (T *)out,
                                                                  inner, num, n);
  else
    return TFC_CUDA_E_UNSUPPORTED;
  return launched();
}

int64_t dims_count(int rank, const int64_t *dims) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  return n;
}

} // namespace

extern "C" int tfc_cuda_select_bcast(int elem_size, const void *cond, const void *t, const void *e, void *z,
                                     const tfc_cuda_bcast3 *plan, void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  return by_size<select_bcast_run>(elem_size, cond, t, e, z, *plan, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_pad(int elem_size, const void *src, void *dst, const tfc_cuda_pad_plan *plan,
                            const void *dev_value, void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS || plan->mode < 0 || plan->mode > 2)
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->padded);
  if (n == 0) return 0;
  return by_size<pad_run>(elem_size, src, dst, *plan, dev_value, n, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_mirror_pad_grad(int dtype, const void *g, void *out, const tfc_cuda_pad_plan *plan,
                                        void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS || (plan->mode != 1 && plan->mode != 2))
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  int blocks = blocks_for(n);
  switch (dtype) {
    case TFC_CUDA_F32: mirror_grad_k<float><<<blocks, kThreads, 0, st>>>((const float *)g, (float *)out, *plan, n); break;
    case TFC_CUDA_F64:
      mirror_grad_k<double><<<blocks, kThreads, 0, st>>>((const double *)g, (double *)out, *plan, n);
      break;
    case TFC_CUDA_F16:
      mirror_grad_k<__half><<<blocks, kThreads, 0, st>>>((const __half *)g, (__half *)out, *plan, n);
      break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}

extern "C" int tfc_cuda_unsorted_segment_sum(int dtype, int idx_dtype, const void *data, const void *ids, void *out,
                                             int64_t n_ids, int64_t inner, int64_t num_segments, void *stream) {
  int64_t es;
  switch (dtype) {
    case TFC_CUDA_F32: es = 4; break;
    case TFC_CUDA_F64: es = 8; break;
    case TFC_CUDA_F16: es = 2; break;
    case TFC_CUDA_I32: es = 4; break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  if (idx_dtype != TFC_CUDA_I32 && idx_dtype != TFC_CUDA_I64) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  int64_t out_bytes = num_segments * inner * es;
  if (out_bytes > 0) {
    cudaError_t e = cudaMemsetAsync(out, 0, (size_t)out_bytes, st);
    if (e != cudaSuccess) return (int)e;
  }
  int64_t n = n_ids * inner;
  if (n == 0 || num_segments == 0) return 0;
  switch (dtype) {
    case TFC_CUDA_F32: return segment_sum_typed<float>(idx_dtype, data, ids, out, inner, num_segments, n, st);
    case TFC_CUDA_F64: return segment_sum_typed<double>(idx_dtype, data, ids, out, inner, num_segments, n, st);
    case TFC_CUDA_F16: return segment_sum_typed<__half>(idx_dtype, data, ids, out, inner, num_segments, n, st);
    default: return segment_sum_typed<int32_t>(idx_dtype, data, ids, out, inner, num_segments, n, st);
  }
}
