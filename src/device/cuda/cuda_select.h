/*
 * cuda_select — the CUDA launchers of the selection ops (cuda_select.cu): Where (the one-input
 * form: the coordinates of the nonzero elements) and TopKV2. The tfc kernels on top are in
 * kernels_select_gpu.c.
 *
 * Same contract as cuda_kernels.h: device pointers, sizes and plans from the host, a
 * cudaStream_t as void *; each call enqueues its work and returns at once (nothing here waits:
 * Where's caller reads the count back itself), with 0, TFC_CUDA_E_UNSUPPORTED for a dtype
 * without a kernel, or the cudaError_t of a failed launch. Scratch is device memory of the
 * size the matching *_scratch_bytes function gives, borrowed until the stream has run the
 * work. Results never depend on the GPU, the grid or the run: both ops give the CPU kernels'
 * order exactly (row-major coordinates; larger values first, ties and NaNs as the CPU's).
 * Thread-safe (no shared state). Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_SELECT_H
#define TFC_DEVICE_CUDA_CUDA_SELECT_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Where ---- */

/* How an element is tested for "nonzero" (TF's `!= T(0)`: -0.0 is zero, NaN is not). */
enum tfc_cuda_nonzero {
  TFC_CUDA_NZ_BYTE = 0, /* bool, int8, uint8 */
  TFC_CUDA_NZ_I64 = 1,
  TFC_CUDA_NZ_F32 = 2,
  TFC_CUDA_NZ_F64 = 3,
  TFC_CUDA_NZ_C64 = 4,  /* either float part nonzero */
  TFC_CUDA_NZ_C128 = 5, /* either double part nonzero */
  TFC_CUDA_NZ_COUNT = 6
};

/* Where's output rank is the input's; every tfc rank fits (checked where the kernel is). */
#define TFC_CUDA_WHERE_MAX_RANK 32
typedef struct tfc_cuda_where_shape {
  int rank;
  int64_t dims[TFC_CUDA_WHERE_MAX_RANK];
} tfc_cuda_where_shape;

/* Scratch for n elements: one int64 per chunk of the input, and one for the total. */
int64_t tfc_cuda_where_scratch_bytes(int64_t n);
/* Pass 1: counts the nonzero elements of x (n > 0 elements of `kind`) per chunk and turns the
 * counts into each chunk's first output row; *out_total is the device address (in scratch) of
 * the number of nonzero elements, for the caller to copy back once the stream has run. */
int tfc_cuda_where_count(int kind, const void *x, int64_t n, void *scratch, const int64_t **out_total, void *stream);
/* Pass 2, after pass 1 on the same stream and scratch: out [total, shape->rank] int64 = the
 * coordinates of x's nonzero elements in row-major order. x's element count is the shape's. */
int tfc_cuda_where_write(int kind, const void *x, const tfc_cuda_where_shape *shape, const void *scratch, int64_t *out,
                         void *stream);

/* ---- TopKV2 ---- */

/* Scratch for rows x n inputs: 0 when each row fits one on-chip tile (n <= 2048), else two
 * ping-pong buffers of (key, index) pairs for the merge passes. */
int64_t tfc_cuda_top_k_scratch_bytes(int64_t rows, int64_t n);
/* values [rows, k] (dtype: F32, F64, F16, I32, I64) and indices [rows, k] (idx_dtype: I32 or
 * I64) = each row of x [rows, n] sorted: larger first, NaN above everything (all NaNs equal),
 * -0.0 equal to 0.0, equal values by lower index; the first k kept. Values are copied bit for
 * bit. 0 <= k <= n; rows or k 0 is a no-op. */
int tfc_cuda_top_k(int dtype, int idx_dtype, const void *x, int64_t rows, int64_t n, int64_t k, void *values,
                   void *indices, void *scratch, void *stream);

#ifdef __cplusplus
}
#endif

#endif
