/*
 * shape_array — shape functions of the array family (see shape_array.c), and the
 * StridedSlice spec resolution that both the shape function and the CPU kernel use, so the
 * graph and the kernel can never disagree on what a slice spec means.
 */
#ifndef TFC_OPS_SHAPE_ARRAY_H
#define TFC_OPS_SHAPE_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "tensor/shape.h"

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_reshape(tfc_shape_ctx *c);
int tfc_shape_shape(tfc_shape_ctx *c);
int tfc_shape_shape_n(tfc_shape_ctx *c);
int tfc_shape_expand_dims(tfc_shape_ctx *c);
int tfc_shape_squeeze(tfc_shape_ctx *c);
int tfc_shape_transpose(tfc_shape_ctx *c);
int tfc_shape_concat(tfc_shape_ctx *c); /* ConcatV2 (axis last) and Concat (axis first) */
int tfc_shape_split(tfc_shape_ctx *c);
int tfc_shape_split_v(tfc_shape_ctx *c);
int tfc_shape_slice(tfc_shape_ctx *c);
int tfc_shape_strided_slice(tfc_shape_ctx *c);
int tfc_shape_pack(tfc_shape_ctx *c);
int tfc_shape_unpack(tfc_shape_ctx *c);
int tfc_shape_fill(tfc_shape_ctx *c);
int tfc_shape_range(tfc_shape_ctx *c);
int tfc_shape_tile(tfc_shape_ctx *c);
int tfc_shape_gather_v2(tfc_shape_ctx *c);
int tfc_shape_gather(tfc_shape_ctx *c);
int tfc_shape_broadcast_to(tfc_shape_ctx *c);
int tfc_shape_broadcast_gradient_args(tfc_shape_ctx *c);
/* BroadcastArgs: two shape vectors -> a vector as long as the longer one (unknown unless both lengths are). */
int tfc_shape_broadcast_args(tfc_shape_ctx *c);
int tfc_shape_pad(tfc_shape_ctx *c);                  /* Pad, PadV2, MirrorPad */
int tfc_shape_mirror_pad_grad(tfc_shape_ctx *c);      /* the input shape minus the paddings */
int tfc_shape_unsorted_segment(tfc_shape_ctx *c);     /* UnsortedSegmentSum */
int tfc_shape_invert_permutation(tfc_shape_ctx *c);
int tfc_shape_strided_slice_grad(tfc_shape_ctx *c);
int tfc_shape_concat_offset(tfc_shape_ctx *c);
int tfc_shape_one_hot(tfc_shape_ctx *c);
int tfc_shape_gather_nd(tfc_shape_ctx *c); /* GatherNd: indices[:-1] + params[r:] */
int tfc_shape_where(tfc_shape_ctx *c);
int tfc_shape_lin_space(tfc_shape_ctx *c); /* LinSpace: [num] */ /* Where: [?, rank of the input] */
/* DynamicStitch, ParallelDynamicStitch: [max index + 1, or unknown unless every indices input
 * is constant] + data[0].shape[rank(indices[0]):], merged over the partitions. */
int tfc_shape_dynamic_stitch(tfc_shape_ctx *c);
int tfc_shape_dynamic_partition(tfc_shape_ctx *c); /* each output: [?] + data.shape[rank(partitions):] */
int tfc_shape_reverse_v2(tfc_shape_ctx *c);       /* the input's; const axes checked */
int tfc_shape_reverse_sequence(tfc_shape_ctx *c); /* the input's, batch dim merged with len(seq_lengths) */

/*
 * A StridedSlice spec resolved against an input shape. The "sparse" spec (begin/end/strides
 * of length n with the five masks) is expanded to one entry per input dim (the "dense" spec:
 * an ellipsis covers the dims no other entry names; new-axis entries name no input dim), then
 * each dim's begin is canonicalized (negative counts from the end, clamped) and its element
 * count computed. Processing dims (one per input dim) describe the strided window; final dims
 * are the op's output shape (shrunk dims removed, new axes inserted). Both have the same
 * number of elements.
 *
 * With unknown input dims (-1) or unknown begin/end values (shape inference on non-const
 * inputs), affected sizes come out -1.
 */
typedef struct tfc_strided_slice_plan {
  int rank; /* input rank = number of processing dims */
  int64_t begin[TFC_MAX_DIMS];
  int64_t stride[TFC_MAX_DIMS];
  int64_t processing[TFC_MAX_DIMS];
  int final_rank;
  int64_t final_dims[TFC_MAX_DIMS];
  int is_identity; /* every dim taken whole with stride 1: the output is the input reshaped */
} tfc_strided_slice_plan;

typedef struct tfc_strided_slice_spec {
  int n; /* entries in begin/end/strides */
  const int64_t *begin, *end, *strides; /* begin/end may be NULL: values unknown */
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
} tfc_strided_slice_spec;

/* Resolves spec against in_dims (rank in_rank, dims may be -1). Returns 0, or -1 with TF's
 * message in err (INVALID_ARGUMENT in both callers). Pure; thread-safe. */
int tfc_strided_slice_resolve(const tfc_strided_slice_spec *spec, const int64_t *in_dims,
                              int in_rank, tfc_strided_slice_plan *out, char *err, size_t err_n);

#endif
