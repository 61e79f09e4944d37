/*
 * cuda_linalg — the launchers of cuda_linalg.h: what the dense solvers' GPU kernels
 * (kernels_linalg_gpu.c) run around their cuBLAS and cuSOLVER calls. Each is one grid-stride
 * launch over the whole batch (a thread per matrix or per element), so a batch of many small
 * matrices costs one launch, as the batched library calls do.
 */
#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_linalg.h"

using namespace tfc_cuda;

namespace {

__global__ void batch_pointers(void **dst, char *base, int64_t stride, int64_t count) {
  TFC_CUDA_GRID_LOOP(i, count) dst[i] = base + i * stride;
}

/* A thread per matrix: the sign of the row swaps times U's diagonal, in double. */
template <typename S>
__global__ void lu_determinant(const S *lu, const int32_t *pivots, const int32_t *info, int64_t n, int64_t batch,
                               S *out) {
  TFC_CUDA_GRID_LOOP(b, batch) {
    double det = 1;
    if (n > 0 && info[b] != 0) {
      det = 0;
    } else if (n > 0) {
      const S *a = lu + b * n * n;
      const int32_t *p = pivots + b * n;
      for (int64_t i = 0; i < n; i++) {
        det *= (double)a[i * n + i];
        if (p[i] != i + 1) det = -det;
      }
    }
    out[b] = (S)det;
  }
}

template <typename S> __global__ void zero_upper(S *a, int64_t n, int64_t total) {
  TFC_CUDA_GRID_LOOP(k, total) {
    int64_t col = k % n, row = (k / n) % n;
    if (col > row) a[k] = 0;
  }
}

} // namespace

extern "C" int tfc_cuda_batch_pointers(void **dst, void *base, int64_t stride_bytes, int64_t count, void *stream) {
  if (count <= 0) return 0;
  batch_pointers<<<blocks_for(count), kThreads, 0, (cudaStream_t)stream>>>(dst, (char *)base, stride_bytes, count);
  return launched();
}

extern "C" int tfc_cuda_lu_determinant(int dtype, const void *lu, const int32_t *pivots, const int32_t *info,
                                       int64_t n, int64_t batch, void *out, void *stream) {
  if (batch <= 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case TFC_CUDA_F32:
      lu_determinant<float><<<blocks_for(batch), kThreads, 0, s>>>((const float *)lu, pivots, info, n, batch,
                                                                   (float *)out);
      break;
    case TFC_CUDA_F64:
      lu_determinant<double><<<blocks_for(batch), kThreads, 0, s>>>((const double *)lu, pivots, info, n, batch,
                                                                    (double *)out);
      break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}

extern "C" int tfc_cuda_zero_upper(int elem_size, void *a, int64_t n, int64_t batch, void *stream) {
  int64_t total = batch * n * n;
  if (total <= 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (elem_size) {
    case 4: zero_upper<uint32_t><<<blocks_for(total), kThreads, 0, s>>>((uint32_t *)a, n, total); break;
    case 8: zero_upper<uint64_t><<<blocks_for(total), kThreads, 0, s>>>((uint64_t *)a, n, total); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}
