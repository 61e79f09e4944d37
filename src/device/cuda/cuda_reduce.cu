/*
 * cuda_reduce — the reduction CUDA kernels: Sum, Mean, Prod, Max, Min over any set of axes
 * (also BiasAddGrad's per-channel sum), and the row-wise Softmax / LogSoftmax.
 *
 * A reduction plan (cuda_kernels.h) gives each output element as a point of the kept dims
 * and the elements it reduces as the points of the reduced dims, both with input strides, so
 * any axis pattern is one kernel. Two shapes of work:
 *   - few elements per output (< kBlockMin): one thread per output, a serial loop;
 *   - otherwise one block per output: each thread folds a strided slice of the reduced
 *     points, then the block combines its 256 partials in shared memory (a tree).
 * Accumulation is in float for float and half, in double for double; Mean divides the sum
 * by the count at the end (0/0 = NaN for an empty Mean, as on the CPU).
 *
 * Softmax runs one block per row: the row maximum, the sum of exp(x - max), then the outputs
 * exp(x - max) / sum (or x - max - log(sum)), each pass a block-wide loop over the row.
 *
 * Invariants of the block kernels: they are launched with exactly kThreads (a power of two)
 * threads, which block_combine's tree relies on; their row loops are uniform over the block
 * (every thread runs the same iterations), so every thread reaches every barrier; and a thread
 * reads and writes only its own elements of a row, which is what lets Softmax run in place.
 */
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* Below this many elements per output a block would leave most of its threads idle. */
const int64_t kBlockMin = 128;

template <int OP, typename A> __device__ __forceinline__ A identity() {
  if constexpr (OP == TFC_CUDA_RED_PROD) return (A)1;
  else if constexpr (OP == TFC_CUDA_RED_MAX) return (A)-INFINITY;
  else if constexpr (OP == TFC_CUDA_RED_MIN) return (A)INFINITY;
  else return (A)0;
}

/* Eigen's MaxReducer/MinReducer keep the accumulator unless the new value compares greater
 * (smaller), as the CPU kernels do. */
template <int OP, typename A> __device__ __forceinline__ A combine(A acc, A v) {
  if constexpr (OP == TFC_CUDA_RED_PROD) return acc * v;
  else if constexpr (OP == TFC_CUDA_RED_MAX) return v > acc ? v : acc;
  else if constexpr (OP == TFC_CUDA_RED_MIN) return v < acc ? v : acc;
  else return acc + v;
}

/* Offset of point `i` of dims (row-major) under strides. */
__device__ __forceinline__ int64_t offset_of(int64_t i, int n, const int64_t *dims, const int64_t *strides) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; d--) {
    int64_t q = i / dims[d];
    off += (i - q * dims[d]) * strides[d];
    i = q;
  }
  return off;
}

template <int OP, typename A> __device__ __forceinline__ A finish(A acc, int64_t count) {
  if constexpr (OP == TFC_CUDA_RED_MEAN) return acc / (A)count;
  else return acc;
}

template <int OP, typename S>
__global__ void reduce_thread_kernel(const S *__restrict__ x, S *__restrict__ out, tfc_cuda_reduce_plan p,
                                     int64_t n_out, int64_t count) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(o, n_out) {
    const int64_t base = offset_of(o, p.n_kept, p.kdims, p.kstrides);
    A acc = identity<OP, A>();
    for (int64_t j = 0; j < count; j++)
      acc = combine<OP, A>(acc, load(x, base + offset_of(j, p.n_red, p.rdims, p.rstrides)));
    store(out, o, finish<OP, A>(acc, count));
  }
}

/* Combines the block's partials; every thread gets the result. */
template <typename A, typename F> __device__ A block_combine(A v, F f) {
  __shared__ A part[kThreads];
  __syncthreads(); /* the previous use of part is done */
  part[threadIdx.x] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) part[threadIdx.x] = f(part[threadIdx.x], part[threadIdx.x + w]);
    __syncthreads();
  }
  return part[0];
}

template <int OP, typename S>
__global__ void reduce_block_kernel(const S *__restrict__ x, S *__restrict__ out, tfc_cuda_reduce_plan p,
                                    int64_t n_out, int64_t count) {
  typedef acc_t<S> A;
  TFC_CUDA_BLOCK_LOOP(o, n_out) {
    const int64_t base = offset_of(o, p.n_kept, p.kdims, p.kstrides);
    A acc = identity<OP, A>();
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x)
      acc = combine<OP, A>(acc, load(x, base + offset_of(j, p.n_red, p.rdims, p.rstrides)));
    acc = block_combine(acc, [](A a, A b) { return combine<OP, A>(a, b); });
    if (threadIdx.x == 0) store(out, o, finish<OP, A>(acc, count));
  }
}

template <int OP, typename S>
int launch_reduce(const void *x, void *out, const tfc_cuda_reduce_plan *p, int64_t n_out, int64_t count,
                  cudaStream_t st) {
  if (count < kBlockMin)
    reduce_thread_kernel<OP, S><<<blocks_for(n_out), kThreads, 0, st>>>((const S *)x, (S *)out, *p, n_out, count);
  else
    reduce_block_kernel<OP, S><<<blocks_for(n_out, 1), kThreads, 0, st>>>((const S *)x, (S *)out, *p, n_out, count);
  return launched();
}

template <int OP>
int dispatch_reduce(int dtype, const void *x, void *out, const tfc_cuda_reduce_plan *p, int64_t n_out,
                    int64_t count, cudaStream_t st) {
  return by_float_dtype(dtype, [&](auto t) {
    return launch_reduce<OP, typename decltype(t)::type>(x, out, p, n_out, count, st);
  });
}

/* ---- softmax ---- */

template <typename S>
/* Not __restrict__: y may be x (a forwarded input); each element is read before it is written. */
__global__ void softmax_kernel(const S *x, S *y, int64_t rows, int64_t cols, int log_out) {
  typedef acc_t<S> A;
  TFC_CUDA_BLOCK_LOOP(r, rows) {
    const int64_t base = r * cols;
    A m = (A)-INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      A v = load(x, base + j);
      m = v > m ? v : m;
    }
    m = block_combine(m, [](A a, A b) { return b > a ? b : a; });
    A sum = 0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += m_exp(load(x, base + j) - m);
    sum = block_combine(sum, [](A a, A b) { return a + b; });
    if (log_out) {
      const A ls = m_log(sum);
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) store(y, base + j, (load(x, base + j) - m) - ls);
    } else {
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) store(y, base + j, m_exp(load(x, base + j) - m) / sum);
    }
  }
}

template <typename S> int launch_softmax(const void *x, void *y, int64_t rows, int64_t cols, int log, cudaStream_t st) {
  softmax_kernel<S><<<blocks_for(rows, 1), kThreads, 0, st>>>((const S *)x, (S *)y, rows, cols, log);
  return launched();
}

} // namespace

extern "C" int tfc_cuda_reduce(int op, int dtype, const void *x, void *out, const tfc_cuda_reduce_plan *plan,
                               void *stream) {
  if (plan->n_kept < 0 || plan->n_kept > TFC_CUDA_MAX_DIMS || plan->n_red < 0 || plan->n_red > TFC_CUDA_MAX_DIMS)
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n_out = dims_count(plan->n_kept, plan->kdims), count = dims_count(plan->n_red, plan->rdims);
  if (n_out == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  switch (op) {
    case TFC_CUDA_RED_SUM: return dispatch_reduce<TFC_CUDA_RED_SUM>(dtype, x, out, plan, n_out, count, st);
    case TFC_CUDA_RED_MEAN: return dispatch_reduce<TFC_CUDA_RED_MEAN>(dtype, x, out, plan, n_out, count, st);
    case TFC_CUDA_RED_PROD: return dispatch_reduce<TFC_CUDA_RED_PROD>(dtype, x, out, plan, n_out, count, st);
    case TFC_CUDA_RED_MAX: return dispatch_reduce<TFC_CUDA_RED_MAX>(dtype, x, out, plan, n_out, count, st);
    case TFC_CUDA_RED_MIN: return dispatch_reduce<TFC_CUDA_RED_MIN>(dtype, x, out, plan, n_out, count, st);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

extern "C" int tfc_cuda_softmax(int dtype, int log, const void *x, void *y, int64_t rows, int64_t cols, void *stream) {
  if (rows == 0 || cols == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype,
                        [&](auto t) { return launch_softmax<typename decltype(t)::type>(x, y, rows, cols, log, st); });
}
