/*
 * cuda_scatter — the launchers behind the GPU kernels of the scatter family
 * (kernels_scatter_gpu.c: the variable scatter updates, ScatterNd, DynamicStitch,
 * DynamicPartition, the segment reductions, MatrixBandPart, ReverseSequence) and
 * UnsortedSegmentSum (kernels_pad_gpu.c).
 *
 * The launchers follow cuda_kernels.h's contract: device pointers, sizes by value, a
 * cudaStream_t as void *; they enqueue and return at once; 0 on success,
 * TFC_CUDA_E_UNSUPPORTED for a type or op they do not handle, else the cudaError_t of the
 * failed launch. Each handles 0 elements (nothing is launched) and counts elements in int64
 * with grid-stride loops. Thread-safe: they touch no shared state.
 *
 * Included from C and CUDA C++: only <stdint.h> types.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_SCATTER_H
#define TFC_DEVICE_CUDA_CUDA_SCATTER_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an update combines with its destination: scatter_plan.h's tfc_scatter_how values
 * (static_assert in kernels_scatter_gpu.c). For the segment reductions ADD is the sum and MUL
 * the product. */
enum tfc_cuda_scatter_how {
  TFC_CUDA_SC_UPDATE = 0, /* not a combine: tfc_cuda_scatter_rows */
  TFC_CUDA_SC_ADD = 1,
  TFC_CUDA_SC_SUB = 2,
  TFC_CUDA_SC_MUL = 3,
  TFC_CUDA_SC_DIV = 4, /* floats only */
  TFC_CUDA_SC_MIN = 5,
  TFC_CUDA_SC_MAX = 6
};

/* dst viewed as [rows, inner]: for every i < n_idx and e < inner with r = idx[i] in
 * [0, rows), dst[r, e] = dst[r, e] how upd[scalar ? 0 : i * inner + e], each combine one
 * atomic read-modify-write, so a row indexed several times takes every update (in an order
 * the hardware picks: float sums, products and quotients may round differently from one run
 * to the next; min and max are exact). Indices outside [0, rows) are skipped. how ADD..MAX;
 * dtype F32, F64, F16 (combined in float, stored rounded) or I32 (not DIV); idx_dtype I32 or
 * I64. */
int tfc_cuda_scatter(int how, int dtype, int idx_dtype, const void *idx, const void *upd, void *dst, int64_t n_idx,
                     int64_t inner, int64_t rows, int scalar, void *stream);

/* The unsorted segment reductions: out ([num_segments, inner]) is set to how's identity (ADD
 * 0, MUL 1, MIN the type's highest value, MAX its lowest: -FLT_MAX for float, as TF), then
 * data ([n_ids, inner]) is combined into it by tfc_cuda_scatter (ids outside [0,
 * num_segments) dropped). how ADD, MUL, MIN or MAX; the types of tfc_cuda_scatter. */
int tfc_cuda_unsorted_segment(int how, int dtype, int idx_dtype, const void *data, const void *ids, void *out,
                              int64_t n_ids, int64_t inner, int64_t num_segments, void *stream);

/* dst[rows[i] * inner + e] = src[scalar ? e' : i * inner + e] (scalar: src holds one element,
 * written everywhere) for every i < n with rows[i] >= 0, e < inner; rows is device int64.
 * The caller makes the rows that are >= 0 distinct (each destination written once), so the
 * result does not depend on scheduling. elem_size 1, 2, 4, 8 or 16. */
int tfc_cuda_scatter_rows(int elem_size, const int64_t *rows, const void *src, void *dst, int64_t n, int64_t inner,
                          int scalar, void *stream);

/* MatrixBandPart over batch matrices of rows x cols (dense): y = x where (lower < 0 or
 * i - j <= lower) and (upper < 0 or j - i <= upper), else zero bits. elem_size 1..16. */
int tfc_cuda_band_part(int elem_size, const void *x, void *y, int64_t batch, int64_t rows, int64_t cols, int64_t lower,
                       int64_t upper, void *stream);

/* ReverseSequence on x viewed as [outer, na, middle, nb, inner], the batch dim being the
 * first of the two named ones (batch_first) or the second: for each batch b with length
 * lens[b] (device, len_dtype I32 or I64, already checked to lie in [0, seq dim]), sequence
 * positions s < lens[b] read position lens[b] - 1 - s, the rest are copied. y must not
 * alias x. elem_size 1..16. */
typedef struct tfc_cuda_revseq_plan {
  int64_t outer, na, middle, nb, inner;
  int batch_first;
} tfc_cuda_revseq_plan;
int tfc_cuda_reverse_sequence(int elem_size, int len_dtype, const void *x, const void *lens, void *y,
                              const tfc_cuda_revseq_plan *plan, void *stream);

#ifdef __cplusplus
}
#endif

#endif
