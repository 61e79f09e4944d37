/*
 * cuda_loss — the CUDA kernels of the losses and checks (launcher API in cuda_loss.h; the tfc
 * kernels on top in kernels_loss_gpu.c).
 *
 * Row ops (the cross-entropies, InTopKV2, ArgMax along a long axis) give each row to a group of
 * threads: one warp when the row is short (eight rows per 256-thread block), the whole block
 * when it has kWideRow or more elements. Thread t of a group handles the elements j = t, t + W,
 * t + 2W, ... of its row in every pass, so a thread only ever reads and writes its own
 * elements: the backprop may overwrite the logits in place without any ordering between
 * threads. Group reductions are warp shuffles (and, for a block, one shared-memory slot per
 * warp folded in warp order by every thread), so results do not depend on timing.
 *
 * Numerics, as TF's kernels and the CPU kernels (kernels_nn.c): the row max is subtracted
 * before exp; the dense loss is sum(labels * (log(sum) - shifted)); backprop = exp(shifted) /
 * sum - labels. Half is computed in float, double in double. expf/logf are the accurate ones
 * (the build does not use fast math).
 *
 * L2Loss is a two-pass reduction: a fixed grid of TFC_CUDA_L2_BLOCKS blocks writes one partial
 * each, and one block adds the partials in order. CheckNumerics ORs per-warp findings into one
 * device word with atomicOr (order does not matter for an OR).
 */
#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_loss.h"

using namespace tfc_cuda;

namespace {

/* Rows at least this long get a whole block; shorter ones a warp. */
const int64_t kWideRow = 1024;

/* ---- group reductions ---- */

template <typename A> __device__ __forceinline__ A shfl_xor(A v, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
template <> __device__ __forceinline__ int64_t shfl_xor<int64_t>(int64_t v, int lane_mask) {
  return (int64_t)__shfl_xor_sync(0xffffffffu, (long long)v, lane_mask);
}

/* Every lane of the warp gets f folded over the warp's 32 values (a butterfly: the same tree
 * on every lane). */
template <typename A, typename F> __device__ __forceinline__ A warp_all(A v, F f) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v = f(v, shfl_xor(v, o));
  return v;
}

/* Every thread of the group gets f folded over the group's W values. W is kWarp (the group is
 * one warp) or kThreads (the whole block: every thread of the block must call). */
template <int W, typename A, typename F> __device__ __forceinline__ A group_all(A v, F f) {
  v = warp_all(v, f);
  if constexpr (W == kWarp) {
    return v;
  } else {
    __shared__ A part[W / kWarp];
    __syncthreads(); /* the previous use of part is over */
    if ((threadIdx.x & (kWarp - 1)) == 0) part[threadIdx.x / kWarp] = v;
    __syncthreads();
    A r = part[0];
    for (int i = 1; i < W / kWarp; i++) r = f(r, part[i]);
    return r;
  }
}

template <typename A> struct f_max {
  __device__ A operator()(A a, A b) const { return b > a ? b : a; }
};
template <typename A> struct f_add {
  __device__ A operator()(A a, A b) const { return a + b; }
};

/* The rows a group walks: group g of block b starts at row b * groups + g. */
template <int W> struct rows_of {
  static const int groups = kThreads / W;
  __device__ static int64_t first() { return (int64_t)blockIdx.x * groups + threadIdx.x / W; }
  __device__ static int64_t step() { return (int64_t)gridDim.x * groups; }
  __device__ static int lane() { return (int)(threadIdx.x % W); }
};

/* ---- SoftmaxCrossEntropyWithLogits ---- */

/* Not __restrict__: bp may be x (see the top comment). The loop bound is the same for every
 * thread of a group, so the group reductions see all of its threads. */
template <int W, typename S>
__global__ void xent_kernel(const S *x, int64_t x_rs, int64_t x_cs, const S *l, int64_t l_rs, int64_t l_cs,
                            S *loss, S *bp, int64_t rows, int64_t cols) {
  typedef acc_t<S> A;
  const int t = rows_of<W>::lane();
  for (int64_t r = rows_of<W>::first(); r < rows; r += rows_of<W>::step()) {
    const int64_t xb = r * x_rs, lb = r * l_rs, ob = r * cols;
    A m = (A)-INFINITY;
    for (int64_t j = t; j < cols; j += W) {
      A v = load(x, xb + j * x_cs);
      m = v > m ? v : m;
    }
    m = group_all<W>(m, f_max<A>());
    A sum = 0;
    for (int64_t j = t; j < cols; j += W) sum += m_exp(load(x, xb + j * x_cs) - m);
    sum = group_all<W>(sum, f_add<A>());
    const A log_sum = m_log(sum);
    A part = 0;
    for (int64_t j = t; j < cols; j += W) {
      const A shifted = load(x, xb + j * x_cs) - m, lab = load(l, lb + j * l_cs);
      part += lab * (log_sum - shifted);
      store(bp, ob + j, m_exp(shifted) / sum - lab);
    }
    part = group_all<W>(part, f_add<A>());
    if (t == 0) store(loss, r, part);
  }
}

template <typename S>
int launch_xent(const void *x, int64_t x_rs, int64_t x_cs, const void *l, int64_t l_rs, int64_t l_cs, void *loss,
                void *bp, int64_t rows, int64_t cols, cudaStream_t st) {
  if (cols >= kWideRow)
    xent_kernel<kThreads, S><<<blocks_for(rows, 1), kThreads, 0, st>>>((const S *)x, x_rs, x_cs, (const S *)l, l_rs,
                                                                     l_cs, (S *)loss, (S *)bp, rows, cols);
  else
    xent_kernel<kWarp, S><<<blocks_for(rows, kThreads / kWarp), kThreads, 0, st>>>(
        (const S *)x, x_rs, x_cs, (const S *)l, l_rs, l_cs, (S *)loss, (S *)bp, rows, cols);
  return launched();
}

/* ---- SparseSoftmaxCrossEntropyWithLogits ---- */

/* The thread that owns column `label` writes the loss: it reads x[label] before it overwrites
 * it with the backprop, and no other thread touches that element. */
template <int W, typename S, typename L>
__global__ void sparse_xent_kernel(const S *x, const L *labels, S *loss, S *bp, int64_t rows, int64_t cols) {
  typedef acc_t<S> A;
  const int t = rows_of<W>::lane();
  for (int64_t r = rows_of<W>::first(); r < rows; r += rows_of<W>::step()) {
    const int64_t base = r * cols, label = (int64_t)labels[r];
    if (label < 0 || label >= cols) { /* the same for the whole group: no reduction skipped halfway */
      for (int64_t j = t; j < cols; j += W) store(bp, base + j, (A)NAN);
      if (t == 0) store(loss, r, (A)NAN);
      continue;
    }
    A m = (A)-INFINITY;
    for (int64_t j = t; j < cols; j += W) {
      A v = load(x, base + j);
      m = v > m ? v : m;
    }
    m = group_all<W>(m, f_max<A>());
    A sum = 0;
    for (int64_t j = t; j < cols; j += W) sum += m_exp(load(x, base + j) - m);
    sum = group_all<W>(sum, f_add<A>());
    for (int64_t j = t; j < cols; j += W) {
      const A shifted = load(x, base + j) - m;
      if (j == label) {
        store(loss, r, m_log(sum) - shifted);
        store(bp, base + j, m_exp(shifted) / sum - (A)1);
      } else {
        store(bp, base + j, m_exp(shifted) / sum);
      }
    }
  }
}

template <typename S, typename L>
int launch_sparse_xent(const void *x, const void *labels, void *loss, void *bp, int64_t rows, int64_t cols,
                       cudaStream_t st) {
  if (cols >= kWideRow)
    sparse_xent_kernel<kThreads, S, L><<<blocks_for(rows, 1), kThreads, 0, st>>>((const S *)x, (const L *)labels,
                                                                               (S *)loss, (S *)bp, rows, cols);
  else
    sparse_xent_kernel<kWarp, S, L><<<blocks_for(rows, kThreads / kWarp), kThreads, 0, st>>>(
        (const S *)x, (const L *)labels, (S *)loss, (S *)bp, rows, cols);
  return launched();
}

/* ---- L2Loss ---- */

template <typename S> __global__ void l2_partial_kernel(const S *__restrict__ x, int64_t n, void *partials) {
  typedef acc_t<S> A;
  A s = 0;
  TFC_CUDA_GRID_LOOP(i, n) {
    A v = load(x, i);
    s += v * v;
  }
  s = group_all<kThreads>(s, f_add<A>());
  if (threadIdx.x == 0) ((A *)partials)[blockIdx.x] = s;
}

template <typename S> __global__ void l2_final_kernel(const void *partials, int n_partials, S *out) {
  typedef acc_t<S> A;
  A s = 0;
  for (int i = threadIdx.x; i < n_partials; i += blockDim.x) s += ((const A *)partials)[i];
  s = group_all<kThreads>(s, f_add<A>());
  if (threadIdx.x == 0) store(out, 0, s * (A)0.5);
}

template <typename S> int launch_l2(const void *x, int64_t n, void *out, void *scratch, cudaStream_t st) {
  /* The final pass adds exactly one partial per block of the first. */
  const int blocks = (int)blocks_for(n, kThreads, TFC_CUDA_L2_BLOCKS);
  l2_partial_kernel<S><<<blocks, kThreads, 0, st>>>((const S *)x, n, scratch);
  int err = launched();
  if (err) return err;
  l2_final_kernel<S><<<1, kThreads, 0, st>>>(scratch, blocks, (S *)out);
  return launched();
}

/* ---- ArgMax / ArgMin ---- */

/* v beats best (the CPU kernel's strict comparison: ties keep the earlier index). */
template <int MIN, typename A> __device__ __forceinline__ bool beats(A v, A best) {
  return MIN ? v < best : v > best;
}

/* One thread per output, scanning like the CPU kernel: start at index 0, move on a strict win
 * (a NaN never wins, and a NaN start is never beaten). Consecutive threads read consecutive
 * columns of the inner dim. */
template <int MIN, typename S, typename O>
__global__ void arg_thread_kernel(const S *__restrict__ x, O *__restrict__ out, int64_t outer, int64_t len,
                                  int64_t inner) {
  typedef acc_t<S> A;
  const int64_t n_out = outer * inner;
  TFC_CUDA_GRID_LOOP(o, n_out) {
    const int64_t base = (o / inner) * len * inner + o % inner;
    A best = load(x, base);
    int64_t bi = 0;
    for (int64_t a = 1; a < len; a++) {
      A v = load(x, base + a * inner);
      if (beats<MIN>(v, best)) {
        best = v;
        bi = a;
      }
    }
    out[o] = (O)bi;
  }
}

/* A candidate: the best non-NaN value seen and its index (-1: none yet). */
template <typename A> struct cand {
  A v;
  int64_t i;
};

/* The better of two candidates: a larger (smaller) value, or the same value at a smaller
 * index. Commutative and associative over non-NaN values, so any reduction order gives the
 * sequential scan's answer. */
template <int MIN, typename A> __device__ __forceinline__ cand<A> better(cand<A> a, cand<A> b) {
  if (b.i < 0) return a;
  if (a.i < 0) return b;
  if (beats<MIN>(b.v, a.v) || (b.v == a.v && b.i < a.i)) return b;
  return a;
}

/* One block per output (long axes with a small inner dim). */
template <int MIN, typename S, typename O>
__global__ void arg_block_kernel(const S *__restrict__ x, O *__restrict__ out, int64_t outer, int64_t len,
                                 int64_t inner) {
  typedef acc_t<S> A;
  const int64_t n_out = outer * inner;
  TFC_CUDA_BLOCK_LOOP(o, n_out) {
    const int64_t base = (o / inner) * len * inner + o % inner;
    cand<A> c = {(A)0, -1};
    for (int64_t a = threadIdx.x; a < len; a += blockDim.x) {
      A v = load(x, base + a * inner);
      if (v == v) c = better<MIN>(c, cand<A>{v, a});
    }
    /* Warp butterfly on (value, index), then the warps' winners in order. */
    for (int s = kWarp / 2; s > 0; s >>= 1) {
      cand<A> other = {shfl_xor(c.v, s), shfl_xor(c.i, s)};
      c = better<MIN>(c, other);
    }
    __shared__ A pv[kThreads / kWarp];
    __shared__ int64_t pi[kThreads / kWarp];
    __syncthreads(); /* the previous output's use of pv/pi is over */
    if ((threadIdx.x & (kWarp - 1)) == 0) {
      pv[threadIdx.x / kWarp] = c.v;
      pi[threadIdx.x / kWarp] = c.i;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kThreads / kWarp; w++) c = better<MIN>(c, cand<A>{pv[w], pi[w]});
      const A first = load(x, base);
      /* The CPU's scan keeps a NaN start; all NaN also gives 0. */
      out[o] = (O)(first != first || c.i < 0 ? 0 : c.i);
    }
  }
}

template <int MIN, typename S, typename O>
int launch_arg(const void *x, void *out, int64_t outer, int64_t len, int64_t inner, cudaStream_t st) {
  const int64_t n_out = outer * inner;
  /* Long axes with few columns side by side: a block per output keeps every thread busy. */
  if (len >= 256 && inner < kWarp)
    arg_block_kernel<MIN, S, O><<<blocks_for(n_out, 1), kThreads, 0, st>>>((const S *)x, (O *)out, outer, len, inner);
  else
    arg_thread_kernel<MIN, S, O><<<blocks_for(n_out), kThreads, 0, st>>>((const S *)x, (O *)out, outer, len, inner);
  return launched();
}

/* ---- InTopKV2 ---- */

template <int W, typename I>
__global__ void in_top_k_kernel(const float *__restrict__ p, const I *__restrict__ targets, const I *__restrict__ kp,
                                uint8_t *__restrict__ out, int64_t rows, int64_t cols) {
  const int t = rows_of<W>::lane();
  const int64_t k = (int64_t)*kp;
  for (int64_t r = rows_of<W>::first(); r < rows; r += rows_of<W>::step()) {
    const int64_t target = (int64_t)targets[r], base = r * cols;
    if (target < 0 || target >= cols) { /* the same for the whole group */
      if (t == 0) out[r] = 0;
      continue;
    }
    const float tp = p[base + target];
    int64_t more = 0;
    int bad = !isfinite(tp);
    for (int64_t j = t; j < cols; j += W) {
      const float v = p[base + j];
      if (!isfinite(v)) bad = 1;
      else more += v > tp;
    }
    more = group_all<W>(more, f_add<int64_t>());
    bad = group_all<W>(bad, [](int a, int b) { return a | b; });
    if (t == 0) out[r] = !bad && more < k;
  }
}

template <typename I>
int launch_in_top_k(const float *p, const void *targets, const void *k, uint8_t *out, int64_t rows, int64_t cols,
                    cudaStream_t st) {
  if (cols >= kWideRow)
    in_top_k_kernel<kThreads, I><<<blocks_for(rows, 1), kThreads, 0, st>>>(p, (const I *)targets, (const I *)k, out,
                                                                         rows, cols);
  else
    in_top_k_kernel<kWarp, I><<<blocks_for(rows, kThreads / kWarp), kThreads, 0, st>>>(p, (const I *)targets,
                                                                                     (const I *)k, out, rows, cols);
  return launched();
}

/* ---- CheckNumerics ---- */

template <typename S> __global__ void check_kernel(const S *__restrict__ x, int64_t n, int32_t *flags) {
  int f = 0;
  TFC_CUDA_GRID_LOOP(i, n) {
    const acc_t<S> v = load(x, i);
    if (isnan(v)) f |= 1;
    else if (isinf(v)) f |= 2;
  }
  /* Every lane reaches this point (no early exit), so the full-mask shuffles are safe. */
  f = warp_all(f, [](int a, int b) { return a | b; });
  if (f && (threadIdx.x & (kWarp - 1)) == 0) atomicOr((int *)flags, f);
}

} // namespace

extern "C" int tfc_cuda_xent(int dtype, const void *logits, int64_t x_rs, int64_t x_cs, const void *labels,
                             int64_t l_rs, int64_t l_cs, void *loss, void *backprop, int64_t rows, int64_t cols,
                             void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (rows == 0) return 0;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    /* zero bits are 0.0 in every float type */
    if (cols == 0) return cuda_result(cudaMemsetAsync(loss, 0, sizeof(S) * (size_t)rows, st));
    return launch_xent<S>(logits, x_rs, x_cs, labels, l_rs, l_cs, loss, backprop, rows, cols, st);
  });
}

extern "C" int tfc_cuda_sparse_xent(int dtype, int label_dtype, const void *logits, const void *labels, void *loss,
                                    void *backprop, int64_t rows, int64_t cols, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (rows == 0 || cols == 0) return 0;
  return by_float_dtype(dtype, [&](auto t) {
    return by_index_dtype(label_dtype, [&](auto l) {
      typedef typename decltype(t)::type S;
      typedef typename decltype(l)::type L;
      return launch_sparse_xent<S, L>(logits, labels, loss, backprop, rows, cols, st);
    });
  });
}

extern "C" int tfc_cuda_l2loss(int dtype, const void *x, int64_t n, void *out, void *scratch, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (n == 0) return cuda_result(cudaMemsetAsync(out, 0, sizeof(S), st));
    return launch_l2<S>(x, n, out, scratch, st);
  });
}

extern "C" int tfc_cuda_argreduce(int is_min, int dtype, int out_dtype, const void *x, void *out, int64_t outer,
                                  int64_t len, int64_t inner, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (outer == 0 || inner == 0) return 0;
  if (len < 1) return TFC_CUDA_E_UNSUPPORTED;
  return by_float_dtype(dtype, [&](auto t) {
    return by_index_dtype(out_dtype, [&](auto o) {
      typedef typename decltype(t)::type S;
      typedef typename decltype(o)::type O;
      return is_min ? launch_arg<1, S, O>(x, out, outer, len, inner, st)
                    : launch_arg<0, S, O>(x, out, outer, len, inner, st);
    });
  });
}

extern "C" int tfc_cuda_in_top_k(int idx_dtype, const float *predictions, const void *targets, const void *k,
                                 uint8_t *out, int64_t rows, int64_t cols, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (rows == 0) return 0;
  return by_index_dtype(idx_dtype, [&](auto i) {
    return launch_in_top_k<typename decltype(i)::type>(predictions, targets, k, out, rows, cols, st);
  });
}

extern "C" int tfc_cuda_check_numerics(int dtype, const void *x, int64_t n, int32_t *flags, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) return 0;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    check_kernel<S><<<blocks_for(n), kThreads, 0, st>>>((const S *)x, n, flags);
    return launched();
  });
}
