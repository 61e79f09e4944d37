/*
 * cuda_array — the data-movement CUDA kernels behind the GPU array ops (kernels_array_gpu.c,
 * kernels_pad_gpu.c): strided copy, tile, gather, cast, fill, select (element-wise and
 * broadcast), one-hot, pad (constant and mirrored), the mirror-pad gradient and a
 * device-to-device memcpy (the unsorted segment sum is cuda_scatter.cu's). cuda_kernels.h
 * and cuda_array2.h document the launchers.
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
#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* ---- strided copy ---- */

template <typename W> __global__ void strided_copy_k(const W *src, W *dst, tfc_cuda_copy_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
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
  TFC_CUDA_GRID_LOOP(i, n) {
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
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t k = i % inner, r = i / inner;
    int64_t j = r % n_idx, bo = r / n_idx; /* bo = b * outer + o */
    int64_t b = bo / outer;
    int64_t v = (int64_t)idx[b * n_idx + j];
    out[i] = v < 0 || v >= limit ? W(0) : params[(bo * limit + v) * inner + k];
  }
}

/* ---- gather_nd ---- */

struct nd_dims {
  int64_t d[TFC_CUDA_MAX_DIMS];
};

template <typename W, typename I>
__global__ void gather_nd_k(const W *params, const I *idx, W *out, int r, nd_dims dims, int64_t slice, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t row = i / slice, k = i - row * slice, at = 0;
    bool ok = true;
    for (int d = 0; d < r; d++) {
      int64_t v = (int64_t)idx[row * r + d];
      ok = ok && v >= 0 && v < dims.d[d];
      at = at * dims.d[d] + v;
    }
    out[i] = ok ? params[at * slice + k] : W(0);
  }
}

/* ---- cast ---- */

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
  TFC_CUDA_GRID_LOOP(i, n) y[i] = to<D>::conv(load(x, i));
}

/* f(type_tag<S>()) for the storage type S of any launcher dtype (bool as uint8_t), or
 * TFC_CUDA_E_UNSUPPORTED. */
template <typename F> int by_dtype(int dtype, F &&f) {
  switch (dtype) {
    case TFC_CUDA_I32: return f(type_tag<int32_t>());
    case TFC_CUDA_I64: return f(type_tag<int64_t>());
    case TFC_CUDA_BOOL: return f(type_tag<uint8_t>());
    default: return by_float_dtype(dtype, f);
  }
}

/* ---- fill, select, one-hot ---- */

template <typename W> __global__ void fill_k(const W *dev_value, W value, W *dst, int64_t n) {
  W v = dev_value ? *dev_value : value;
  TFC_CUDA_GRID_LOOP(i, n) dst[i] = v;
}

template <typename W>
__global__ void select_k(const uint8_t *cond, const W *t, const W *e, W *z, int64_t n, int64_t cdiv) {
  TFC_CUDA_GRID_LOOP(i, n) z[i] = cond[i / cdiv] ? t[i] : e[i];
}

template <typename W, typename I>
__global__ void one_hot_k(const I *idx, const W *on, const W *off, W *out, int64_t depth, int64_t inner, int64_t n) {
  W von = *on, voff = *off;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t k = i % inner, r = i / inner;
    int64_t d = r % depth, o = r / depth;
    out[i] = (int64_t)idx[o * inner + k] == d ? von : voff;
  }
}

} // namespace

extern "C" int tfc_cuda_strided_copy(int elem_size, const void *src, void *dst, const tfc_cuda_copy_plan *plan,
                                     void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    strided_copy_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)src, (W *)dst, *plan, n);
    return launched();
  });
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
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    tile_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)src, (W *)dst, p, n);
    return launched();
  });
}

extern "C" int tfc_cuda_gather(int elem_size, int idx_dtype, const void *params, const void *idx, void *out,
                               int64_t batch, int64_t outer, int64_t limit, int64_t n_idx, int64_t inner,
                               void *stream) {
  int64_t n = batch * outer * n_idx * inner;
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    return by_index_dtype(idx_dtype, [&](auto ix) {
      typedef typename decltype(w)::type W;
      typedef typename decltype(ix)::type I;
      gather_k<W, I><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)params, (const I *)idx, (W *)out,
                                                                           outer, limit, n_idx, inner, n);
      return launched();
    });
  });
}

extern "C" int tfc_cuda_gather_nd(int elem_size, int idx_dtype, const void *params, const void *idx, void *out, int r,
                                  const int64_t *dims, int64_t n_rows, int64_t slice, void *stream) {
  int64_t n = n_rows * slice;
  if (n == 0) return 0;
  if (r < 0 || r > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  nd_dims nd = {};
  for (int d = 0; d < r; d++) nd.d[d] = dims[d];
  return by_size(elem_size, [&](auto w) {
    return by_index_dtype(idx_dtype, [&](auto ix) {
      typedef typename decltype(w)::type W;
      typedef typename decltype(ix)::type I;
      gather_nd_k<W, I><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)params, (const I *)idx,
                                                                              (W *)out, r, nd, slice, n);
      return launched();
    });
  });
}

extern "C" int tfc_cuda_cast(int src_dtype, int dst_dtype, const void *x, void *y, int64_t n, void *stream) {
  if (n == 0) return 0;
  return by_dtype(src_dtype, [&](auto src_t) {
    return by_dtype(dst_dtype, [&](auto dst_t) {
      typedef typename decltype(src_t)::type S;
      typedef typename decltype(dst_t)::type D;
      cast_k<S, D><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const S *)x, (D *)y, n);
      return launched();
    });
  });
}

extern "C" int tfc_cuda_fill(int elem_size, const void *dev_value, uint64_t bits, void *dst, int64_t n,
                             void *stream) {
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    fill_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)dev_value, (W)bits, (W *)dst, n);
    return launched();
  });
}

extern "C" int tfc_cuda_select(int elem_size, const void *cond, const void *t, const void *e, void *z, int64_t n,
                               int64_t cond_div, void *stream) {
  if (n == 0) return 0;
  if (cond_div < 1) return TFC_CUDA_E_UNSUPPORTED;
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    select_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const uint8_t *)cond, (const W *)t,
                                                                      (const W *)e, (W *)z, n, cond_div);
    return launched();
  });
}

extern "C" int tfc_cuda_one_hot(int elem_size, int idx_dtype, const void *idx, const void *on, const void *off,
                                void *out, int64_t outer, int64_t depth, int64_t inner, void *stream) {
  int64_t n = outer * depth * inner;
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    return by_index_dtype(idx_dtype, [&](auto ix) {
      typedef typename decltype(w)::type W;
      typedef typename decltype(ix)::type I;
      one_hot_k<W, I><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const I *)idx, (const W *)on,
                                                                            (const W *)off, (W *)out, depth, inner, n);
      return launched();
    });
  });
}

extern "C" int tfc_cuda_memcpy(void *dst, const void *src, int64_t bytes, void *stream) {
  if (bytes == 0) return 0;
  return cuda_result(cudaMemcpyAsync(dst, src, (size_t)bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
}

/* ---- broadcast select, pads, mirror-pad gradient ---- */

namespace {

template <typename W>
__global__ void select_bcast_k(const uint8_t *cond, const W *t, const W *e, W *z, tfc_cuda_bcast3 p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
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
  TFC_CUDA_GRID_LOOP(i, n) {
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

/* Each output element gathers its sources: along each dim, the element itself and at most one
 * mirror image in each padding; the sources are every combination over the dims. Over the
 * whole output that is exactly one read per gradient element. */
template <typename T>
__global__ void mirror_grad_k(const T *g, T *out, tfc_cuda_pad_plan p, int64_t n) {
  typedef acc_t<T> A;
  TFC_CUDA_GRID_LOOP(i, n) {
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
      acc += load(g, off);
      int d = p.rank - 1;
      while (d >= 0 && ++at[d] == cnt[d]) at[d--] = 0;
      if (d < 0) break;
    }
    store(out, i, acc);
  }
}

} // namespace

extern "C" int tfc_cuda_select_bcast(int elem_size, const void *cond, const void *t, const void *e, void *z,
                                     const tfc_cuda_bcast3 *plan, void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    select_bcast_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const uint8_t *)cond, (const W *)t,
                                                                            (const W *)e, (W *)z, *plan, n);
    return launched();
  });
}

extern "C" int tfc_cuda_pad(int elem_size, const void *src, void *dst, const tfc_cuda_pad_plan *plan,
                            const void *dev_value, void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS || plan->mode < 0 || plan->mode > 2)
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->padded);
  if (n == 0) return 0;
  return by_size(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    pad_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)src, (W *)dst, *plan,
                                                                   (const W *)dev_value, n);
    return launched();
  });
}

extern "C" int tfc_cuda_mirror_pad_grad(int dtype, const void *g, void *out, const tfc_cuda_pad_plan *plan,
                                        void *stream) {
  if (plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS || (plan->mode != 1 && plan->mode != 2))
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type T;
    mirror_grad_k<T><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const T *)g, (T *)out, *plan, n);
    return launched();
  });
}
