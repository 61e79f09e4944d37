/*
 * cuda_scatter — the CUDA kernels of the scatter family (cuda_scatter.h documents the
 * launchers): the atomic scatter-combine that serves the variable scatter updates, ScatterNd
 * (its rows' flat offsets as indices), SegmentSum and the unsorted segment reductions; the
 * row copy of ScatterUpdate and DynamicStitch; MatrixBandPart and ReverseSequence.
 *
 * One thread per (index, element): each combine is one atomic read-modify-write on the
 * destination element, so duplicate indices all take effect, as TF's GPU scatter functors do
 * (atomicAdd where the hardware has it, else a compare-and-swap loop on the element's bits;
 * half elements are swapped as 16-bit words, which needs compute capability 7.0, like
 * atomicAdd on half). The row copy and the element-wise kernels move opaque words of the
 * element's size. Every kernel is grid-stride over int64 element counts and launched only for
 * a nonzero count.
 */
#include <float.h>

#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_scatter.h"

using namespace tfc_cuda;

namespace {

/* ---- the combine and its atomic form ---- */

template <int H> struct how_tag {
  static constexpr int value = H;
};

/* d how u in the compute type A (the non-atomic step of a compare-and-swap loop). */
template <int H, typename A> __device__ __forceinline__ A combine(A d, A u) {
  switch (H) {
    case TFC_CUDA_SC_ADD: return d + u;
    case TFC_CUDA_SC_SUB: return d - u;
    case TFC_CUDA_SC_MUL: return d * u;
    case TFC_CUDA_SC_DIV: return d / u;
    case TFC_CUDA_SC_MIN: return u < d ? u : d;
    default: return u > d ? u : d;
  }
}

/* *p = *p how u, atomically. */
template <int H> __device__ __forceinline__ void atomic_combine(float *p, float u) {
  if (H == TFC_CUDA_SC_ADD || H == TFC_CUDA_SC_SUB) {
    atomicAdd(p, H == TFC_CUDA_SC_SUB ? -u : u); /* d - u == d + (-u) exactly */
    return;
  }
  unsigned int *w = (unsigned int *)p, old = *w, assumed;
  do {
    assumed = old;
    old = atomicCAS(w, assumed, __float_as_uint(combine<H>(__uint_as_float(assumed), u)));
  } while (old != assumed);
}

template <int H> __device__ __forceinline__ void atomic_combine(double *p, double u) {
  if (H == TFC_CUDA_SC_ADD || H == TFC_CUDA_SC_SUB) {
    atomicAdd(p, H == TFC_CUDA_SC_SUB ? -u : u);
    return;
  }
  unsigned long long *w = (unsigned long long *)p, old = *w, assumed;
  do {
    assumed = old;
    old = atomicCAS(w, assumed, (unsigned long long)__double_as_longlong(
                                    combine<H>(__longlong_as_double((long long)assumed), u)));
  } while (old != assumed);
}

/* Half: combined in float, stored rounded to nearest even. */
template <int H> __device__ __forceinline__ void atomic_combine(__half *p, float u) {
  unsigned short *w = (unsigned short *)p, old = *w, assumed;
  do {
    assumed = old;
    float d = __half2float(__ushort_as_half(assumed));
    old = atomicCAS(w, assumed, __half_as_ushort(__float2half_rn(combine<H>(d, u))));
  } while (old != assumed);
}

/* int32: the native atomics; the product wraps around as the CPU's (unsigned arithmetic).
 * DIV never gets here (tfc_cuda_scatter refuses it: a zero divisor is the CPU's error). */
template <int H> __device__ __forceinline__ void atomic_combine(int32_t *p, int32_t u) {
  switch (H) {
    case TFC_CUDA_SC_ADD: atomicAdd((int *)p, (int)u); return;
    case TFC_CUDA_SC_SUB: atomicSub((int *)p, (int)u); return;
    case TFC_CUDA_SC_MIN: atomicMin((int *)p, (int)u); return;
    case TFC_CUDA_SC_MAX: atomicMax((int *)p, (int)u); return;
    default: break;
  }
  unsigned int *w = (unsigned int *)p, old = *w, assumed;
  do {
    assumed = old;
    unsigned int next =
        H == TFC_CUDA_SC_MUL ? assumed * (unsigned int)u : (unsigned int)combine<H>((int32_t)assumed, u);
    old = atomicCAS(w, assumed, next);
  } while (old != assumed);
}

template <int H, typename T, typename I>
__global__ void scatter_k(const I *idx, const T *upd, T *dst, int64_t inner, int64_t rows, int scalar, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t r = i / inner, e = i - r * inner, s = (int64_t)idx[r];
    if (s < 0 || s >= rows) continue;
    atomic_combine<H>(&dst[s * inner + e], load(upd, scalar ? 0 : i));
  }
}

/* f(how_tag<H>()) for a combining how, or TFC_CUDA_E_UNSUPPORTED. */
template <typename F> int by_how(int how, F &&f) {
  switch (how) {
    case TFC_CUDA_SC_ADD: return f(how_tag<TFC_CUDA_SC_ADD>());
    case TFC_CUDA_SC_SUB: return f(how_tag<TFC_CUDA_SC_SUB>());
    case TFC_CUDA_SC_MUL: return f(how_tag<TFC_CUDA_SC_MUL>());
    case TFC_CUDA_SC_DIV: return f(how_tag<TFC_CUDA_SC_DIV>());
    case TFC_CUDA_SC_MIN: return f(how_tag<TFC_CUDA_SC_MIN>());
    case TFC_CUDA_SC_MAX: return f(how_tag<TFC_CUDA_SC_MAX>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* f(type_tag<S>()) for the scatter's element types: the floats and int32. */
template <typename F> int by_scatter_dtype(int dtype, F &&f) {
  if (dtype == TFC_CUDA_I32) return f(type_tag<int32_t>());
  return by_float_dtype(dtype, f);
}

/* ---- the segment identities ---- */

/* The highest finite value of S in its compute type (TF's Highest; Lowest is its negation
 * for the floats). */
template <typename S> struct extreme;
template <> struct extreme<float> {
  static constexpr float high = FLT_MAX, low = -FLT_MAX;
};
template <> struct extreme<double> {
  static constexpr double high = DBL_MAX, low = -DBL_MAX;
};
template <> struct extreme<__half> {
  static constexpr float high = 65504.0f, low = -65504.0f;
};
template <> struct extreme<int32_t> {
  static constexpr int32_t high = INT32_MAX, low = INT32_MIN;
};

template <typename T> __global__ void fill_k(T *out, acc_t<T> v, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) store(out, i, v);
}

/* ---- row copy, band part, reverse sequence ---- */

template <typename W>
__global__ void scatter_rows_k(const int64_t *rows, const W *src, W *dst, int64_t inner, int scalar, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t r = i / inner, e = i - r * inner, d = rows[r];
    if (d >= 0) dst[d * inner + e] = src[scalar ? 0 : i];
  }
}

template <typename W>
__global__ void band_k(const W *x, W *y, int64_t rows, int64_t cols, int64_t lower, int64_t upper, int64_t n) {
  TFC_CUDA_GRID_LOOP(k, n) {
    int64_t j = k % cols, i = (k / cols) % rows;
    bool keep = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
    y[k] = keep ? x[k] : W();
  }
}

template <typename W, typename L>
__global__ void reverse_sequence_k(const W *x, const L *lens, W *y, tfc_cuda_revseq_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(k, n) {
    int64_t rem = k / p.inner, e = k - rem * p.inner;
    int64_t ib = rem % p.nb;
    rem /= p.nb;
    int64_t m = rem % p.middle;
    rem /= p.middle;
    int64_t ia = rem % p.na, o = rem / p.na;
    int64_t batch = p.batch_first ? ia : ib, seq = p.batch_first ? ib : ia;
    int64_t len = (int64_t)lens[batch], from = seq < len ? len - 1 - seq : seq;
    int64_t fa = p.batch_first ? ia : from, fb = p.batch_first ? from : ib;
    y[k] = x[(((o * p.na + fa) * p.middle + m) * p.nb + fb) * p.inner + e];
  }
}

} // namespace

extern "C" int tfc_cuda_scatter(int how, int dtype, int idx_dtype, const void *idx, const void *upd, void *dst,
                                int64_t n_idx, int64_t inner, int64_t rows, int scalar, void *stream) {
  if (dtype == TFC_CUDA_I32 && how == TFC_CUDA_SC_DIV) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = n_idx * inner;
  return by_how(how, [&](auto h) {
    return by_scatter_dtype(dtype, [&](auto t) {
      typedef typename decltype(t)::type T;
      return by_index_dtype(idx_dtype, [&](auto ix) {
        typedef typename decltype(ix)::type I;
        if (n <= 0 || rows <= 0) return 0;
        scatter_k<decltype(h)::value, T, I><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(
            (const I *)idx, (const T *)upd, (T *)dst, inner, rows, scalar, n);
        return launched();
      });
    });
  });
}

extern "C" int tfc_cuda_unsorted_segment(int how, int dtype, int idx_dtype, const void *data, const void *ids,
                                         void *out, int64_t n_ids, int64_t inner, int64_t num_segments,
                                         void *stream) {
  if (how != TFC_CUDA_SC_ADD && how != TFC_CUDA_SC_MUL && how != TFC_CUDA_SC_MIN && how != TFC_CUDA_SC_MAX)
    return TFC_CUDA_E_UNSUPPORTED;
  if (idx_dtype != TFC_CUDA_I32 && idx_dtype != TFC_CUDA_I64) return TFC_CUDA_E_UNSUPPORTED;
  int err = by_scatter_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type T;
    typedef acc_t<T> A;
    int64_t n = num_segments * inner;
    if (n <= 0) return 0;
    A v = how == TFC_CUDA_SC_ADD ? (A)0 : how == TFC_CUDA_SC_MUL ? (A)1
          : how == TFC_CUDA_SC_MIN ? (A)extreme<T>::high : (A)extreme<T>::low;
    fill_k<T><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((T *)out, v, n);
    return launched();
  });
  if (err) return err;
  return tfc_cuda_scatter(how, dtype, idx_dtype, ids, data, out, n_ids, inner, num_segments, 0, stream);
}

extern "C" int tfc_cuda_scatter_rows(int elem_size, const int64_t *rows, const void *src, void *dst, int64_t n,
                                     int64_t inner, int scalar, void *stream) {
  return by_size16(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    int64_t total = n * inner;
    if (total <= 0) return 0;
    scatter_rows_k<W><<<blocks_for(total), kThreads, 0, (cudaStream_t)stream>>>(rows, (const W *)src, (W *)dst, inner,
                                                                                scalar, total);
    return launched();
  });
}

extern "C" int tfc_cuda_band_part(int elem_size, const void *x, void *y, int64_t batch, int64_t rows, int64_t cols,
                                  int64_t lower, int64_t upper, void *stream) {
  return by_size16(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    int64_t n = batch * rows * cols;
    if (n <= 0) return 0;
    band_k<W><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)x, (W *)y, rows, cols, lower, upper, n);
    return launched();
  });
}

extern "C" int tfc_cuda_reverse_sequence(int elem_size, int len_dtype, const void *x, const void *lens, void *y,
                                         const tfc_cuda_revseq_plan *plan, void *stream) {
  return by_size16(elem_size, [&](auto w) {
    typedef typename decltype(w)::type W;
    return by_index_dtype(len_dtype, [&](auto l) {
      typedef typename decltype(l)::type L;
      int64_t n = plan->outer * plan->na * plan->middle * plan->nb * plan->inner;
      if (n <= 0) return 0;
      reverse_sequence_k<W, L><<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>((const W *)x, (const L *)lens,
                                                                                     (W *)y, *plan, n);
      return launched();
    });
  });
}
