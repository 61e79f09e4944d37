/*
 * cuda_array2 — the launchers behind the second group of GPU array kernels (kernels_pad_gpu.c:
 * SelectV2, Pad, PadV2, MirrorPad, MirrorPadGrad, Cumsum, Cumprod), and
 * the copy helpers the GPU array kernel files share.
 *
 * The launchers follow cuda_kernels.h's contract: device pointers, a plan passed by value, a
 * cudaStream_t as void *; they enqueue and return at once; 0 on success,
 * TFC_CUDA_E_UNSUPPORTED for a type or plan they do not handle, else the cudaError_t of the
 * failed launch. Each handles 0 elements (nothing is launched) and counts elements in int64
 * with grid-stride loops. Thread-safe: they touch no shared state. The pad and select
 * launchers live in cuda_array.cu, the scan in cuda_scan.cu.
 *
 * Included from C and CUDA C++: only <stdint.h> types above the C-only section.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_ARRAY2_H
#define TFC_DEVICE_CUDA_CUDA_ARRAY2_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* z[i] = cond[o0(i)] ? t[o1(i)] : e[o2(i)] over the dense output of `dims` (row-major), where
 * ok(i) = sum(i_d * strides[k][d]) (0 strides: broadcast). cond is bool. rank >= 1. */
typedef struct tfc_cuda_bcast3 {
  int rank;
  int64_t dims[TFC_CUDA_MAX_DIMS];
  int64_t strides[3][TFC_CUDA_MAX_DIMS];
} tfc_cuda_bcast3;
int tfc_cuda_select_bcast(int elem_size, const void *cond, const void *t, const void *e, void *z,
                          const tfc_cuda_bcast3 *plan, void *stream);

/* A padding, per dim: the unpadded size dims[d], the padded size padded[d] and the padding
 * before it; mode 0 constant, 1 REFLECT, 2 SYMMETRIC (the tfc_pad_mode values; the plan's
 * paddings must already be checked against the mode). rank >= 1. */
typedef struct tfc_cuda_pad_plan {
  int rank, mode;
  int64_t dims[TFC_CUDA_MAX_DIMS], padded[TFC_CUDA_MAX_DIMS], before[TFC_CUDA_MAX_DIMS];
} tfc_cuda_pad_plan;
/* dst (padded, dense) = src (dims, dense) padded: mirrored by the mode, or in constant mode
 * the element at dev_value (a device pointer; NULL: zero bits). */
int tfc_cuda_pad(int elem_size, const void *src, void *dst, const tfc_cuda_pad_plan *plan, const void *dev_value,
                 void *stream);
/* MirrorPadGrad: out (dims, dense) = the sum, for every element of g (padded, dense), into the
 * element it was mirrored from. Each output element sums its own sources (no atomics: the
 * result does not depend on scheduling). Floats: F32, F64, F16 (summed in float). */
int tfc_cuda_mirror_pad_grad(int dtype, const void *g, void *out, const tfc_cuda_pad_plan *plan, void *stream);

/* UnsortedSegmentSum's launcher is cuda_scatter.h's tfc_cuda_unsorted_segment. */

/* Cumsum (prod 0) / Cumprod (prod 1) of x viewed as [outer, n, inner] along n, into y (same
 * layout; y must not alias x); exclusive: each output leaves out its own element (the first
 * is 0 or 1); reverse: scans from the end. F32, F64, F16 (accumulated in float). */
int tfc_cuda_scan(int dtype, int prod, int exclusive, int reverse, const void *x, void *y, int64_t outer, int64_t n,
                  int64_t inner, void *stream);

#ifdef __cplusplus
}
#endif

/* ---- C only: helpers the GPU array kernel files share (kernels_array_gpu.c, kernels_pad_gpu.c) ---- */
#ifndef __CUDACC__
#include "device/kernel.h"

/* The types the copying GPU array kernels move in device memory: every fixed-size type of 1
 * to 8 bytes except int32 (host-memory shape math in TF, so its rows keep every argument in
 * host memory and live in the GPU device's int32 table). */
#define TFC_CUDA_COPY_TYPES                                                                                       \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_BOOL) |    \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16) |                        \
   TFC_T(TFC_DT_COMPLEX64))

/* Enqueues on c's compute stream the copy of the window dims[0..rank) from src (src_strides,
 * src_off) to dst (dst_strides, dst_off), in elements of dtype; strides may be 0 (a
 * broadcast source) or negative. Size-1 dims are dropped and contiguous neighbours merged; a
 * window still wider than TFC_CUDA_MAX_DIMS is UNIMPLEMENTED. A window with no elements is a
 * no-op. Errors are set in c; returns c->status->code. Thread-safe. */
int tfc_cuda_copy_window(tfc_kernel_ctx *c, int dtype, void *dst, const void *src, int rank, const int64_t *dims,
                         const int64_t *src_strides, int64_t src_off, const int64_t *dst_strides, int64_t dst_off);

/* The strides, in elements, of a dense row-major tensor of dims[0..rank) (the last dim's is 1). */
static inline void tfc_cuda_row_major_strides(const int64_t *dims, int rank, int64_t *strides) {
  int64_t st = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = st;
    st *= dims[d];
  }
}
#endif

#endif
