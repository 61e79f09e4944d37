/*
 * cuda_scan — the CUDA kernels of Cumsum and Cumprod (tfc_cuda_scan, cuda_array2.h).
 *
 * The tensor is viewed as [outer, n, inner] around the scan axis; each (outer, inner) pair is
 * one line of n elements, inner apart. Two strategies, picked by the launcher:
 *   - a line per block: the block walks its line in tiles of kScanThreads elements, each tile
 *     one cub::BlockScan whose prefix callback carries the running total from tile to tile.
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
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "device/cuda/cuda_array2.h"

namespace {

constexpr int kScanThreads = 256;
/* Lines shorter than this scan one per thread: a block per line would idle most threads. */
constexpr int64_t kBlockMinN = 64;
/* With at most this many strided lines, a block per line still pays: fewer lines than this
 * would not fill the GPU with one thread each. */
constexpr int64_t kBlockMaxStridedLines = 16384;

inline int grid_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  return (int)(b > 65535 ? 65535 : (b < 1 ? 1 : b));
}

inline int launched(void) {
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : (int)e;
}

template <typename T> struct acc {
  typedef T A;
  static __device__ __forceinline__ A ld(T v) { return v; }
  static __device__ __forceinline__ T st(A v) { return v; }
};
template <> struct acc<__half> {
  typedef float A;
  static __device__ __forceinline__ float ld(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half st(float v) { return __float2half_rn(v); }
};

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
  typedef typename acc<T>::A A;
  typedef cub::BlockScan<A, kScanThreads> block_scan;
  __shared__ typename block_scan::TempStorage tmp;
  const A identity = PROD ? A(1) : A(0);
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    int64_t o = line / inner, k = line - o * inner;
    const T *xl = x + o * n * inner + k;
    T *yl = y + o * n * inner + k;
    running_prefix<A, PROD> prefix = {identity};
    for (int64_t base = 0; base < n; base += kScanThreads) {
      int64_t t = base + threadIdx.x;
      int64_t at = (reverse ? n - 1 - t : t) * inner;
      A v = t < n ? acc<T>::ld(xl[at]) : identity;
      A out;
      if (exclusive)
        block_scan(tmp).ExclusiveScan(v, out, combine<A, PROD>(), prefix);
      else
        block_scan(tmp).InclusiveScan(v, out, combine<A, PROD>(), prefix);
      __syncthreads(); /* tmp is reused by the next tile */
      if (t < n) yl[at] = acc<T>::st(out);
    }
  }
}

template <typename T, bool PROD>
__global__ void scan_thread_k(const T *x, T *y, int64_t lines, int64_t n, int64_t inner, bool exclusive,
                              bool reverse) {
  typedef typename acc<T>::A A;
  for (int64_t line = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; line < lines;
       line += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = line / inner, k = line - o * inner;
    const T *xl = x + o * n * inner + k;
    T *yl = y + o * n * inner + k;
    A total = PROD ? A(1) : A(0);
    for (int64_t t = 0; t < n; t++) {
      int64_t at = (reverse ? n - 1 - t : t) * inner;
      A v = acc<T>::ld(xl[at]);
      if (!exclusive) total = combine<A, PROD>()(total, v);
      yl[at] = acc<T>::st(total);
      if (exclusive) total = combine<A, PROD>()(total, v);
    }
  }
}

template <typename T, bool PROD>
int scan_typed(const void *x, void *y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse,
               cudaStream_t st) {
  int64_t lines = outer * inner;
  if (n >= kBlockMinN && (inner == 1 || lines <= kBlockMaxStridedLines))
    scan_block_k<T, PROD><<<grid_for(lines, 1), kScanThreads, 0, st>>>((const T *)x, (T *)y, lines, n, inner,
                                                                        exclusive, reverse);
  else
    scan_thread_k<T, PROD><<<grid_for(lines, kScanThreads), kScanThreads, 0, st>>>((const T *)x, (T *)y, lines, n,
                                                                                   inner, exclusive, reverse);
  return launched();
}

template <typename T>
int scan_op(int prod, const void *x, void *y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse,
            cudaStream_t st) {
  return prod ? scan_typed<T, true>(x, y, outer, n, inner, exclusive, reverse, st)
              : scan_typed<T, false>(x, y, outer, n, inner, exclusive, reverse, st);
}

} // namespace

extern "C" int tfc_cuda_scan(int dtype, int prod, int exclusive, int reverse, const void *x, void *y, int64_t outer,
                             int64_t n, int64_t inner, void *stream) {
  if (outer * n * inner == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  bool ex = exclusive != 0, rev = reverse != 0;
  switch (dtype) {
    case TFC_CUDA_F32: return scan_op<float>(prod, x, y, outer, n, inner, ex, rev, st);
    case TFC_CUDA_F64: return scan_op<double>(prod, x, y, outer, n, inner, ex, rev, st);
    case TFC_CUDA_F16: return scan_op<__half>(prod, x, y, outer, n, inner, ex, rev, st);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}
