/*
 * array_copy — the data-movement primitives behind the CPU array kernels (kernels_array*.c).
 *
 * Every copy-based array op reduces to one of four patterns, each implemented once here with
 * contiguous runs moved by memcpy and the outer loop split over the intra-op pool:
 *   - strided copy: a dense output read through arbitrary (even negative) input strides
 *     (Transpose, Slice, StridedSlice);
 *   - concat / split: rows made of one run per piece (ConcatV2, Concat, Pack, Split, SplitV,
 *     Unpack);
 *   - tile: each output row is an input row repeated (Tile, BroadcastTo);
 *   - gather: runs picked by an index tensor (GatherV2, Gather).
 *
 * Elements are moved by value: numeric types bytewise, DT_STRING elements with
 * tfc_tstring_assign (the output owns copies). Only string copies can fail (out of memory);
 * the functions then return RESOURCE_EXHAUSTED in c->status.
 *
 * Thread-safety: the functions run pieces concurrently on c->pool but return only when all
 * are done; inputs are read-only, outputs must be fresh tensors no one else sees yet.
 */
#ifndef TFC_DEVICE_CPU_ARRAY_COPY_H
#define TFC_DEVICE_CPU_ARRAY_COPY_H

#include <stdint.h>

#include "device/kernel.h"

/* Element types the copy-based kernels move: every fixed-size type, and strings by value. */
#define TFC_ARRAY_POD_TYPES                                                                        \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_UINT8) |        \
   TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_INT64) |     \
   TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_BFLOAT16) | TFC_T(TFC_DT_UINT16) |                           \
   TFC_T(TFC_DT_COMPLEX128) | TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_UINT32) | TFC_T(TFC_DT_UINT64))
#define TFC_ARRAY_COPY_TYPES (TFC_ARRAY_POD_TYPES | TFC_T(TFC_DT_STRING))

/* Element i of an int32/int64 tensor (shape, index and axis inputs). */
static inline int64_t tfc_array_int_at(const tfc_tensor *t, int64_t i) {
  return t->dtype == TFC_DT_INT32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
}

/* n contiguous elements of dtype from src to dst (single-threaded). */
int tfc_array_copy(void *dst, const void *src, int64_t n, int dtype, tfc_status *s);

/* Sets n elements of dst to the single element at value. */
int tfc_array_fill(void *dst, int64_t n, const void *value, int dtype, tfc_status *s);

/* out (dense, dims[0..rank), out->n_elems elements) gets in's element at
 * src_offset + sum(i_d * src_strides[d]) (strides in elements). */
int tfc_array_strided_copy(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *in, int rank,
                           const int64_t *dims, const int64_t *src_strides, int64_t src_offset);

/* Joins n pieces: the output is `outer` rows; row o is piece 0's o-th run of runs[0]
 * elements, then piece 1's, and so on. split != 0 runs the other way (out -> pieces). */
int tfc_array_concat(tfc_kernel_ctx *c, tfc_tensor *whole, tfc_tensor *const *pieces, int n,
                     int64_t outer, const int64_t *runs, int split);

/* out (out_dims) = in (in_dims, same rank) tiled: out[i] = in[i mod in_dims]. */
int tfc_array_tile(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *in, int rank,
                   const int64_t *in_dims, const int64_t *out_dims);

/* out[b, o, j, :] = params[b, o, idx[b, j], :] with params viewed as [batch, outer, limit,
 * inner] and idx as [batch, n_idx]. Indexes must be checked in range before. */
int tfc_array_gather(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *params,
                     const tfc_tensor *idx, int64_t batch, int64_t outer, int64_t limit,
                     int64_t n_idx, int64_t inner);

#endif
