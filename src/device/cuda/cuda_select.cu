/*
 * cuda_select — the CUDA kernels of Where and TopKV2 (launcher API in cuda_select.h; the tfc
 * kernels on top in kernels_select_gpu.c).
 *
 * Where is a stream compaction in three launches over fixed chunks of kChunk elements (the
 * chunking depends on n alone, never on the grid): count each chunk's nonzero elements; one
 * block scans the counts into each chunk's first output row and the total; each chunk, read
 * again tile by tile, gives every nonzero element its row through a block-wide prefix sum and
 * writes its coordinates. Rows follow the elements' row-major order, as on the CPU.
 *
 * TopKV2 sorts every row by the CPU kernel's 64-bit keys (device/top_k_order.h: NaN the largest
 * key, -0.0 mapped to 0.0, integers and floats made unsigned-comparable), with the element's
 * index as the tie-break, so no two entries of a row compare equal and the order is total and
 * deterministic:
 *   1. each tile of a row (up to kTile entries, padded to a power of two with entries that sort
 *      last) is sorted in shared memory by a bitonic network; when a row is one tile, the first
 *      k entries are the answer;
 *   2. otherwise sorted runs are merged pairwise, widths doubling, between two global buffers:
 *      an entry's place in the merged run is its place in its own run plus the number of
 *      entries of the other run that precede it (a binary search), a permutation because the
 *      order is strict;
 *   3. the first k entries of each row give the indices, and the values are read from x at
 *      those indices (bit for bit).
 * This sorts whole rows, k or not: simple, exact and deterministic rather than fastest.
 */
#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_select.h"
#include "device/top_k_order.h"

using namespace tfc_cuda;

namespace {

#define LAUNCH(kernel, blocks, stream) kernel<<<(blocks), kThreads, 0, (cudaStream_t)(stream)>>>

/* ---- block-wide prefix sum ---- */

__device__ __forceinline__ int64_t shfl_up64(int64_t v, int d) {
  return (int64_t)__shfl_up_sync(0xffffffffu, (long long)v, d);
}

/* The inclusive prefix sum of v over the block's threads (in thread order); *total gets the
 * block's sum. Every thread of the block must call (it synchronizes), blockDim.x == kThreads. */
__device__ int64_t block_scan(int64_t v, int64_t *total) {
  __shared__ int64_t warp_sums[kThreads / kWarp];
  int lane = threadIdx.x & (kWarp - 1), warp = threadIdx.x / kWarp;
  for (int d = 1; d < kWarp; d <<= 1) {
    int64_t u = shfl_up64(v, d);
    if (lane >= d) v += u;
  }
  __syncthreads(); /* the previous call's readers of warp_sums are done */
  if (lane == kWarp - 1) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int64_t s = lane < kThreads / kWarp ? warp_sums[lane] : 0;
    for (int d = 1; d < kWarp; d <<= 1) {
      int64_t u = shfl_up64(s, d);
      if (lane >= d) s += u;
    }
    if (lane < kThreads / kWarp) warp_sums[lane] = s;
  }
  __syncthreads();
  *total = warp_sums[kThreads / kWarp - 1];
  return v + (warp > 0 ? warp_sums[warp - 1] : 0);
}

/* ---- Where ---- */

/* Elements per chunk: 16 tiles of a block. */
constexpr int64_t kChunk = 16 * kThreads;

inline int64_t chunks_of(int64_t n) { return n / kChunk + (n % kChunk > 0); }

template <int K> __device__ __forceinline__ bool nonzero(const void *x, int64_t i) {
  if constexpr (K == TFC_CUDA_NZ_BYTE) return ((const uint8_t *)x)[i] != 0;
  else if constexpr (K == TFC_CUDA_NZ_I64) return ((const int64_t *)x)[i] != 0;
  else if constexpr (K == TFC_CUDA_NZ_F32) return ((const float *)x)[i] != 0.0f;
  else if constexpr (K == TFC_CUDA_NZ_F64) return ((const double *)x)[i] != 0.0;
  else if constexpr (K == TFC_CUDA_NZ_C64)
    return ((const float *)x)[2 * i] != 0.0f || ((const float *)x)[2 * i + 1] != 0.0f;
  else return ((const double *)x)[2 * i] != 0.0 || ((const double *)x)[2 * i + 1] != 0.0;
}

/* counts[c] = the nonzero elements of chunk c. */
template <int K> __global__ void where_count_kernel(const void *x, int64_t n, int64_t chunks, int64_t *counts) {
  TFC_CUDA_BLOCK_LOOP(c, chunks) {
    int64_t end = (c + 1) * kChunk < n ? (c + 1) * kChunk : n, mine = 0, total;
    for (int64_t e = c * kChunk + threadIdx.x; e < end; e += kThreads) mine += nonzero<K>(x, e);
    block_scan(mine, &total);
    if (threadIdx.x == 0) counts[c] = total;
  }
}

/* One block: counts[c] becomes the rows before chunk c; counts[chunks] the total. */
__global__ void where_scan_kernel(int64_t *counts, int64_t chunks) {
  int64_t carry = 0;
  for (int64_t base = 0; base < chunks; base += kThreads) {
    int64_t i = base + threadIdx.x, v = i < chunks ? counts[i] : 0, total;
    int64_t incl = block_scan(v, &total);
    if (i < chunks) counts[i] = carry + incl - v;
    carry += total;
  }
  if (threadIdx.x == 0) counts[chunks] = carry;
}

template <int K>
__global__ void where_write_kernel(const void *x, tfc_cuda_where_shape s, int64_t n, int64_t chunks,
                                   const int64_t *starts, int64_t *out) {
  TFC_CUDA_BLOCK_LOOP(c, chunks) {
    int64_t row = starts[c], end = (c + 1) * kChunk < n ? (c + 1) * kChunk : n;
    for (int64_t base = c * kChunk; base < end; base += kThreads) {
      int64_t e = base + threadIdx.x, total;
      int64_t f = e < end && nonzero<K>(x, e);
      int64_t incl = block_scan(f, &total);
      if (f) {
        int64_t *o = out + (row + incl - 1) * s.rank, r = e;
        for (int d = s.rank - 1; d >= 0; d--) {
          o[d] = r % s.dims[d];
          r /= s.dims[d];
        }
      }
      row += total;
    }
  }
}

/* f(std::integral_constant-like tag) for the kind K, or UNSUPPORTED. */
template <int K> struct kind_tag {
  static const int value = K;
};
template <typename F> int by_kind(int kind, F &&f) {
  switch (kind) {
    case TFC_CUDA_NZ_BYTE: return f(kind_tag<TFC_CUDA_NZ_BYTE>());
    case TFC_CUDA_NZ_I64: return f(kind_tag<TFC_CUDA_NZ_I64>());
    case TFC_CUDA_NZ_F32: return f(kind_tag<TFC_CUDA_NZ_F32>());
    case TFC_CUDA_NZ_F64: return f(kind_tag<TFC_CUDA_NZ_F64>());
    case TFC_CUDA_NZ_C64: return f(kind_tag<TFC_CUDA_NZ_C64>());
    case TFC_CUDA_NZ_C128: return f(kind_tag<TFC_CUDA_NZ_C128>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* ---- TopKV2 ---- */

/* Entries a block sorts on chip: a power of two; keys and indices take 32 KiB of shared
 * memory, within the 48 KiB every GPU gives a block without opting in. */
constexpr int64_t kTile = 2048;

/* Keys and order: device/top_k_order.h, the CPU kernel's. */
__device__ __forceinline__ uint64_t key_of(float v) { return tfc_top_k_key_f32(v); }
__device__ __forceinline__ uint64_t key_of(__half v) { return tfc_top_k_key_f32(__half2float(v)); }
__device__ __forceinline__ uint64_t key_of(double v) { return tfc_top_k_key_f64(v); }
__device__ __forceinline__ uint64_t key_of(int64_t v) { return tfc_top_k_key_i64(v); }
__device__ __forceinline__ uint64_t key_of(int32_t v) { return tfc_top_k_key_i64(v); }

__device__ __forceinline__ bool before(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib) {
  return tfc_top_k_before(ka, ia, kb, ib);
}

/* The padding entry: below every real one (key 0 ties only INT64_MIN, whose index is lower). */
constexpr int64_t kPadIndex = INT64_MAX;

/* Sorts each tile of tile_n entries (a power of two) of every row. keys_out NULL (a row is
 * one tile): writes the first k entries' values and indices; else the tile's sorted entries
 * to keys_out / idx_out at their places in the row. */
template <typename S, typename I>
__global__ void top_k_tile_kernel(const S *x, int64_t rows, int64_t n, int64_t tile_n, int64_t tiles, int64_t k,
                                  uint64_t *keys_out, int64_t *idx_out, S *values, I *indices) {
  __shared__ uint64_t key[kTile];
  __shared__ int64_t idx[kTile];
  TFC_CUDA_BLOCK_LOOP(b, rows * tiles) {
    int64_t r = b / tiles, start = (b % tiles) * tile_n;
    int64_t len = n - start < tile_n ? n - start : tile_n;
    const S *row = x + r * n;
    for (int64_t j = threadIdx.x; j < tile_n; j += kThreads) {
      key[j] = j < len ? key_of(row[start + j]) : 0;
      idx[j] = j < len ? start + j : kPadIndex;
    }
    __syncthreads();
    for (int64_t size = 2; size <= tile_n; size <<= 1)
      for (int64_t stride = size >> 1; stride > 0; stride >>= 1) {
        for (int64_t t = threadIdx.x; t < tile_n / 2; t += kThreads) {
          int64_t i = 2 * t - (t & (stride - 1)), j = i + stride;
          bool up = (i & size) == 0;
          if (up ? before(key[j], idx[j], key[i], idx[i]) : before(key[i], idx[i], key[j], idx[j])) {
            uint64_t kk = key[i];
            key[i] = key[j];
            key[j] = kk;
            int64_t ii = idx[i];
            idx[i] = idx[j];
            idx[j] = ii;
          }
        }
        __syncthreads();
      }
    if (keys_out) {
      for (int64_t j = threadIdx.x; j < len; j += kThreads) {
        keys_out[r * n + start + j] = key[j];
        idx_out[r * n + start + j] = idx[j];
      }
    } else {
      for (int64_t j = threadIdx.x; j < k; j += kThreads) {
        values[r * k + j] = row[idx[j]];
        indices[r * k + j] = (I)idx[j];
      }
    }
    __syncthreads(); /* the next tile reuses key and idx */
  }
}

/* One merge pass: runs of w sorted entries, pairwise, from (ks, is) into (kd, id). */
__global__ void top_k_merge_kernel(const uint64_t *ks, const int64_t *is, uint64_t *kd, int64_t *id, int64_t rows,
                                   int64_t n, int64_t w) {
  TFC_CUDA_GRID_LOOP(e, rows * n) {
    int64_t r = e / n, p = e % n, run = p / w;
    int64_t base = (run & ~(int64_t)1) * w;
    int64_t a_len = n - base < w ? n - base : w, b_start = base + w;
    int64_t b_len = n - b_start < w ? (n - b_start > 0 ? n - b_start : 0) : w;
    const uint64_t *rk = ks + r * n;
    const int64_t *ri = is + r * n;
    uint64_t mk = ks[e];
    int64_t mi = is[e];
    /* the other run: B for an entry of A, A for one of B */
    int64_t o_start = (run & 1) ? base : b_start, o_len = (run & 1) ? a_len : b_len;
    int64_t lo = 0, hi = o_len;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (before(rk[o_start + mid], ri[o_start + mid], mk, mi)) lo = mid + 1;
      else hi = mid;
    }
    int64_t at = base + ((run & 1) ? p - b_start : p - base) + lo;
    kd[r * n + at] = mk;
    id[r * n + at] = mi;
  }
}

/* The first k entries of each sorted row: indices, and the values they name. */
template <typename S, typename I>
__global__ void top_k_take_kernel(const S *x, const int64_t *is, int64_t rows, int64_t n, int64_t k, S *values,
                                  I *indices) {
  TFC_CUDA_GRID_LOOP(e, rows * k) {
    int64_t r = e / k, j = e % k, at = is[r * n + j];
    values[e] = x[r * n + at];
    indices[e] = (I)at;
  }
}

/* The top-k value types. */
template <typename F> int by_top_k_dtype(int dtype, F &&f) {
  switch (dtype) {
    case TFC_CUDA_I32: return f(type_tag<int32_t>());
    case TFC_CUDA_I64: return f(type_tag<int64_t>());
    default: return by_float_dtype(dtype, f);
  }
}

} // namespace

extern "C" int64_t tfc_cuda_where_scratch_bytes(int64_t n) { return (chunks_of(n) + 1) * (int64_t)sizeof(int64_t); }

extern "C" int tfc_cuda_where_count(int kind, const void *x, int64_t n, void *scratch, const int64_t **out_total,
                                    void *stream) {
  int64_t chunks = chunks_of(n), *counts = (int64_t *)scratch;
  *out_total = counts + chunks;
  return by_kind(kind, [&](auto t) {
    constexpr int K = decltype(t)::value;
    if (chunks > 0) LAUNCH(where_count_kernel<K>, blocks_for(chunks, 1), stream)(x, n, chunks, counts);
    LAUNCH(where_scan_kernel, 1, stream)(counts, chunks);
    return launched();
  });
}

extern "C" int tfc_cuda_where_write(int kind, const void *x, const tfc_cuda_where_shape *shape, const void *scratch,
                                    int64_t *out, void *stream) {
  int64_t n = 1;
  for (int d = 0; d < shape->rank; d++) n *= shape->dims[d];
  int64_t chunks = chunks_of(n);
  return by_kind(kind, [&](auto t) {
    constexpr int K = decltype(t)::value;
    if (chunks == 0) return 0;
    LAUNCH(where_write_kernel<K>, blocks_for(chunks, 1), stream)(x, *shape, n, chunks, (const int64_t *)scratch, out);
    return launched();
  });
}

/* The sort's tile: the row's length rounded up to a power of two, at most kTile. */
static int64_t tile_of(int64_t n) {
  int64_t t = 1;
  while (t < n && t < kTile) t <<= 1;
  return t;
}

extern "C" int64_t tfc_cuda_top_k_scratch_bytes(int64_t rows, int64_t n) {
  if (n <= kTile) return 0;
  return 2 * rows * n * (int64_t)(sizeof(uint64_t) + sizeof(int64_t));
}

extern "C" int tfc_cuda_top_k(int dtype, int idx_dtype, const void *x, int64_t rows, int64_t n, int64_t k,
                              void *values, void *indices, void *scratch, void *stream) {
  return by_top_k_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    return by_index_dtype(idx_dtype, [&](auto ti) {
      typedef typename decltype(ti)::type I;
      if (rows == 0 || k == 0) return 0;
      cudaStream_t st = (cudaStream_t)stream;
      int64_t tile_n = tile_of(n), tiles = n / tile_n + (n % tile_n > 0);
      if (tiles == 1) {
        top_k_tile_kernel<S, I><<<blocks_for(rows, 1), kThreads, 0, st>>>((const S *)x, rows, n, tile_n, 1, k, NULL,
                                                                          NULL, (S *)values, (I *)indices);
        return launched();
      }
      /* Two ping-pong buffers of rows * n (key, index) pairs. */
      int64_t m = rows * n;
      uint64_t *k0 = (uint64_t *)scratch, *k1 = k0 + m;
      int64_t *i0 = (int64_t *)(k1 + m), *i1 = i0 + m;
      top_k_tile_kernel<S, I><<<blocks_for(rows * tiles, 1), kThreads, 0, st>>>((const S *)x, rows, n, tile_n, tiles,
                                                                                k, k0, i0, NULL, NULL);
      int err = launched();
      for (int64_t w = tile_n; w < n && !err; w *= 2) {
        top_k_merge_kernel<<<blocks_for(m), kThreads, 0, st>>>(k0, i0, k1, i1, rows, n, w);
        err = launched();
        uint64_t *kt = k0;
        k0 = k1;
        k1 = kt;
        int64_t *it = i0;
        i0 = i1;
        i1 = it;
      }
      if (err) return err;
      top_k_take_kernel<S, I><<<blocks_for(rows * k), kThreads, 0, st>>>((const S *)x, i0, rows, n, k, (S *)values,
                                                                         (I *)indices);
      return launched();
    });
  });
}
