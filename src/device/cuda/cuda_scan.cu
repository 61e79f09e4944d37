/*
 * cuda_scan — the CUDA kernels of Cumsum and Cumprod (tfc_cuda_scan, cuda_array2.h).
 *
 * The tensor is viewed as [outer, n, inner] around the scan axis; each (outer, inner) pair is
 * one line of n elements, inner apart. Two strategies, picked by the launcher:
 *   - a line per block: the block walks its line in tiles of kThreads elements, each tile
 *     one cub::BlockScan whose prefix callback carries the running total from tile to tile
 *     (so the block must be launched with exactly kThreads threads, cub's block size).
 *     Used when lines are long (n >= kBlockMinN) and either contiguous (inner == 1) or few
 *     enough that a thread per line would leave the GPU idle;
 *   - a line per thread: a plain sequential scan, for short lines or many strided lines
 *     (neighbouring threads then read neighbouring elements of the inner dim: coalesced).
 * Sums and products accumulate in the compute type (half in float), so, like TF's GPU scan,
 * floating results may differ from the CPU's sequential order in the last bits.
 *
 * exclusive shifts by one (the first output is the identity, 0 or 1); reverse runs each line
 * from its end. Both are index arithmetic only.
 */
#include <cub/block/block_scan.cuh>

#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* Lines shorter than this scan one per thread: a block per line would idle most threads. */
constexpr int64_t kBlockMinN = 64;
/* With at most this many strided lines, a block per line still pays: fewer lines than this
 * would not fill the GPU with one thread each. */
constexpr int64_t kBlockMaxStridedLines = 16384;

template <typename A, bool PROD> struct combine {
  __device__ __forceinline__ A operator()(const A &a, const A &b) const { return PROD ? a * b : a + b; }
};

/* cub's block prefix callback: returns the total of the tiles before, then adds this tile's.
 * Every lane of the first warp calls it with the same aggregate, so their copies agree. */
template <typename A, bool PROD> struct running_prefix {
  A total;
  __device__ A operator()(A tile_aggregate) {
    A before = total;
    total = combine<A, PROD>()(total, tile_aggregate);
    return before;
  }
};

template <typename T, bool PROD>
__global__ void scan_block_k(const T *x, T *y, int64_t lines, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  typedef acc_t<T> A;
  typedef cub::BlockScan<A, kThreads> block_scan;
  __shared__ typename block_scan::TempStorage tmp;
  const A identity = PROD ? A(1) : A(0);
  TFC_CUDA_BLOCK_LOOP(line, lines) {
    int64_t o = line / inner, k = line - o * inner;
    const T *xl = x + o * n * inner + k;
    T *yl = y + o * n * inner + k;
    running_prefix<A, PROD> prefix = {identity};
    for (int64_t base = 0; base < n; base += kThreads) {
      int64_t t = base + threadIdx.x;
      int64_t at = (reverse ? n - 1 - t : t) * inner;
      A v = t < n ? load(xl, at) : identity;
      A out;
      if (exclusive)
        block_scan(tmp).ExclusiveScan(v, out, combine<A, PROD>(), prefix);
      else
        block_scan(tmp).InclusiveScan(v, out, combine<A, PROD>(), prefix);
      __syncthreads(); /* tmp is reused by the next tile */
      if (t < n) store(yl, at, out);
    }
  }
}

template <typename T, bool PROD>
__global__ void scan_thread_k(const T *x, T *y, int64_t lines, int64_t n, int64_t inner, bool exclusive,
                              bool reverse) {
  typedef acc_t<T> A;
  TFC_CUDA_GRID_LOOP(line, lines) {
    int64_t o = line / inner, k = line - o * inner;
    const T *xl = x + o * n * inner + k;
    T *yl = y + o * n * inner + k;
    A total = PROD ? A(1) : A(0);
    for (int64_t t = 0; t < n; t++) {
      int64_t at = (reverse ? n - 1 - t : t) * inner;
      A v = load(xl, at);
      if (!exclusive) total = combine<A, PROD>()(total, v);
      store(yl, at, total);
      if (exclusive) total = combine<A, PROD>()(total, v);
    }
  }
}

template <typename T, bool PROD>
int scan_typed(const void *x, void *y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse,
               cudaStream_t st) {
  int64_t lines = outer * inner;
  if (n >= kBlockMinN && (inner == 1 || lines <= kBlockMaxStridedLines))
    scan_block_k<T, PROD><<<blocks_for(lines, 1), kThreads, 0, st>>>((const T *)x, (T *)y, lines, n, inner, exclusive,
                                                                      reverse);
  else
    scan_thread_k<T, PROD><<<blocks_for(lines), kThreads, 0, st>>>((const T *)x, (T *)y, lines, n, inner, exclusive,
                                                                    reverse);
  return launched();
}

} // namespace

extern "C" int tfc_cuda_scan(int dtype, int prod, int exclusive, int reverse, const void *x, void *y, int64_t outer,
                             int64_t n, int64_t inner, void *stream) {
  if (outer * n * inner == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  bool ex = exclusive != 0, rev = reverse != 0;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type T;
    return prod ? scan_typed<T, true>(x, y, outer, n, inner, ex, rev, st)
                : scan_typed<T, false>(x, y, outer, n, inner, ex, rev, st);
  });
}
