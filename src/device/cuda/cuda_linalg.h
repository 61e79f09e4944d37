/*
 * cuda_linalg — the CUDA launchers around the batched factorizations of the dense solvers
 * (cuda_linalg.cu): the pointer arrays cuBLAS's and cuSOLVER's batched calls take, the
 * determinant from an LU factorization, and the zeroing of a Cholesky factor's other
 * triangle. The factorizations themselves are library calls, made by the tfc kernels on top
 * (kernels_linalg_gpu.c).
 *
 * Same contract as cuda_kernels.h: device pointers and sizes from the host, a cudaStream_t as
 * void *; each call enqueues its work and returns at once with 0, TFC_CUDA_E_UNSUPPORTED for a
 * dtype without a kernel, or the cudaError_t of a failed launch; a call over nothing (count,
 * batch or n of 0, where not said otherwise) launches nothing. Thread-safe (no shared state).
 * Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_LINALG_H
#define TFC_DEVICE_CUDA_CUDA_LINALG_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = (char *)base + i * stride_bytes for i in [0, count): the device array of matrix
 * pointers a batched library call takes, written on the device (no host array to keep alive
 * until the copy has run). */
int tfc_cuda_batch_pointers(void **dst, void *base, int64_t stride_bytes, int64_t count, void *stream);

/* out[b] = the determinant of matrix b of `batch` from its LU factorization as getrfBatched
 * leaves it: lu holds the n x n factors (b at lu + b * n * n; the diagonal is U's in either
 * storage order), pivots the n 1-based row swaps of each matrix, info the factorization's
 * status per matrix (nonzero: a zero pivot, the determinant is 0). Computed in double, as the
 * CPU kernel, and stored in dtype (TFC_CUDA_F32 or F64). n may be 0: every out[b] is 1 (lu,
 * pivots and info are not read and may be NULL). */
int tfc_cuda_lu_determinant(int dtype, const void *lu, const int32_t *pivots, const int32_t *info, int64_t n,
                            int64_t batch, void *out, void *stream);

/* Sets to zero every entry above the main diagonal of the batch's row-major n x n matrices
 * (elements of elem_size 4 or 8 bytes, at a + b * n * n). */
int tfc_cuda_zero_upper(int elem_size, void *a, int64_t n, int64_t batch, void *stream);

#ifdef __cplusplus
}
#endif

#endif
