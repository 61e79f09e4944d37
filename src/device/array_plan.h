/*
 * array_plan — the shape rules of array ops that the CPU and GPU kernels share: each checks its
 * inputs with TF's texts and works out the output shape (or a copy plan) on the host, so the
 * two devices accept and refuse exactly the same inputs and only the data movement differs.
 *
 * Errors are set on the kernel context (tfc_kernel_error: the node and device are added by the
 * executor). Thread-safe (no state).
 */
#ifndef TFC_DEVICE_ARRAY_PLAN_H
#define TFC_DEVICE_ARRAY_PLAN_H

#include "device/kernel.h"
#include "ops/shape_array.h"

struct tfc_cwise_bcast;

/* ConcatV2 (values, then the axis) and Concat (concat_dim, then the values), the axis a
 * host-memory input: checks it and the values against each other; *values points at the
 * first value (*n of them), *axis is normalized, and dims (rank of the values) is the
 * output's. */
int tfc_concat_plan_of(tfc_kernel_ctx *c, tfc_tensor *const **values, int *n, int64_t *axis, int64_t *dims);

/* StridedSliceGrad: checks shape (input 0) and begin/end/strides (inputs 1..3), all host
 * memory, resolves the spec against shape, and checks dy (input 4, any memory: only its shape
 * is read) against the slice's result. Writes the output dims (rank *out_rank). */
int tfc_strided_slice_grad_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank,
                                   tfc_strided_slice_plan *plan);

/* Pad, PadV2, MirrorPad, MirrorPadGrad. */
enum tfc_pad_mode { TFC_PAD_CONSTANT = 0, TFC_PAD_REFLECT = 1, TFC_PAD_SYMMETRIC = 2 };
typedef struct tfc_pad_plan {
  int mode;  /* tfc_pad_mode */
  int rank;
  int64_t before[TFC_MAX_DIMS]; /* padding before each dim */
  int64_t dims[TFC_MAX_DIMS];   /* the output dims */
} tfc_pad_plan;
/* Pad / PadV2 / MirrorPad: the mode (MirrorPad's attr), the paddings (input 1, host memory)
 * against input 0, and PadV2's constant_values (input 2, any memory: only its shape is read). */
int tfc_pad_plan_of(tfc_kernel_ctx *c, tfc_pad_plan *p);
/* MirrorPadGrad: input 0 is the padded gradient; p->dims are the unpadded output's dims. */
int tfc_mirror_pad_grad_plan_of(tfc_kernel_ctx *c, tfc_pad_plan *p);
/* The input index that index o of a padded dim maps to (input size n, padding `before`);
 * -1: the constant. Pure. */
static inline int64_t tfc_pad_map(int64_t o, int64_t before, int64_t n, int mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == TFC_PAD_CONSTANT) return -1;
  if (i < 0) return mode == TFC_PAD_SYMMETRIC ? -i - 1 : -i;
  return mode == TFC_PAD_SYMMETRIC ? 2 * n - 1 - i : 2 * n - 2 - i;
}

/* UnsortedSegmentSum: checks num_segments (input 2, host memory) and that data's shape starts
 * with segment_ids' shape; writes the output dims (rank *out_rank), *num_segments and *inner
 * (elements per segment). The ids' values are not read: on a GPU they are device data. */
int tfc_unsorted_segment_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *num_segments,
                                 int64_t *inner);

/* Cumsum / Cumprod: checks the axis (input 1, host memory) against input 0 and reads the
 * exclusive and reverse attrs; the input viewed as [*outer, *n, *inner] around the axis. */
int tfc_scan_plan_of(tfc_kernel_ctx *c, int64_t *outer, int64_t *n, int64_t *inner, int *exclusive, int *reverse);

/* BroadcastTo: checks the shape (input 1, host memory) against input 0; writes the output dims
 * (rank *out_rank) and input 0's dims aligned to them (leading 1s). */
int tfc_broadcast_to_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *in_dims);

/* Transpose (perm input 1), Slice (begin, size: inputs 1, 2), StridedSlice (inputs 1..3) and
 * ReverseV2 (axis input 1, negative strides), shape arguments in host memory: the output read
 * as a window of input 0. rank/dims is the
 * window, copied densely in this order; src_strides and offset place it in input 0 (in
 * elements); out_rank/out_dims is the output's shape (StridedSlice's shrink and new axes
 * differ from the window's). share: the output is input 0's buffer unchanged, reshaped to
 * out_dims (an identity permutation or a full window), so nothing is copied. */
typedef struct tfc_window_plan {
  int rank, out_rank, share;
  int64_t dims[TFC_MAX_DIMS], src_strides[TFC_MAX_DIMS], offset;
  int64_t out_dims[TFC_MAX_DIMS];
} tfc_window_plan;
int tfc_window_plan_of(tfc_kernel_ctx *c, tfc_window_plan *w);

/* Pack: the axis attr and the values' shapes (all input 0's); the output dims (rank
 * *out_rank) and the axis in them. */
int tfc_pack_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int *axis);
/* Unpack: the axis attr against input 0 and the output count; the axis in input 0's dims. */
int tfc_unpack_plan_of(tfc_kernel_ctx *c, int *axis);
/* OneHot: the axis attr and depth (input 1, host memory), on_value and off_value (inputs 2
 * and 3, any memory: only their shapes are read) against indices (input 0); the output dims
 * (rank *out_rank), and the output viewed as [*prefix, *depth, *suffix]. */
int tfc_one_hot_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *prefix, int64_t *depth,
                        int64_t *suffix);

/* Gather (axis 0) and GatherV2 (axis input 2, host memory; the batch_dims attr): checks the
 * axis and batch dims against params (input 0) and indices (input 1, any memory: only its
 * shape is read); the output dims, and params viewed as [batch, outer, limit, inner] with
 * n_idx indices per batch. The indices' values are the device's to check. */
typedef struct tfc_gather_plan {
  int rank;
  int64_t dims[TFC_MAX_DIMS];
  int64_t batch, outer, limit, n_idx, inner;
} tfc_gather_plan;
int tfc_gather_plan_of(tfc_kernel_ctx *c, tfc_gather_plan *g);

/* AddN: every input has input 0's shape (any memory: only shapes are read). */
int tfc_addn_check(tfc_kernel_ctx *c);

/* Tile: the multiples (input 1, host memory) against input 0; the output dims (input 0's
 * rank) and whether every multiple is 1 (the output is the input). */
int tfc_tile_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *all_one);

/* Fill: checks dims (input 0, host memory) and value (input 1, any memory: only its shape is
 * read); writes the output dims (rank *rank). */
int tfc_fill_plan_of(tfc_kernel_ctx *c, int64_t *dims, int *rank);

/* Split (split_dim input 0, value input 1) and SplitV (value 0, size_splits 1, split_dim 2;
 * both shape arguments host memory): checks them against the value with TF's texts and writes
 * the split axis and the n_outputs piece sizes along it into sizes (room for n_outputs). */
int tfc_split_plan_of(tfc_kernel_ctx *c, int *axis, int64_t *sizes);

/* Select: cond (input 0) is a scalar, a vector picking rows of dimension 0, or then's shape;
 * then and else (inputs 1, 2) alike. Any memory: only shapes are read. *cond_div: how many
 * elements one cond element picks (then's size for a scalar, a row's for a vector, else 1). */
int tfc_select_plan_of(tfc_kernel_ctx *c, int64_t *cond_div);

/* SelectV2: the numpy broadcast of condition, then and else (inputs 0..2, any memory); TF's
 * text when they do not broadcast. */
int tfc_select_v2_plan_of(tfc_kernel_ctx *c, struct tfc_cwise_bcast *b);

/* A binary op's numpy broadcast of inputs 0 and 1 (any memory: only shapes are read); TF's
 * "Incompatible shapes: [..] vs. [..]" when they do not broadcast (Complex). */
int tfc_binary_bcast_plan_of(tfc_kernel_ctx *c, struct tfc_cwise_bcast *b);

/* Where (one input, any memory: only its shape is read): the input has at least one dim, or
 * INVALID_ARGUMENT "WhereOp : Unhandled input dimensions: 0". */
int tfc_where_check(tfc_kernel_ctx *c);

/* GatherNd: params (input 0) and indices (input 1, any memory: only its shape is read) at least
 * 1-D, the indices' last dim r at most params' rank. The output dims (rank *out_rank); n_rows
 * index rows of r coordinates, each picking a slice of `slice` elements of params. The index
 * values are the device's to check. */
typedef struct tfc_gather_nd_plan {
  int rank, r;
  int64_t dims[TFC_MAX_DIMS];
  int64_t n_rows, slice;
} tfc_gather_nd_plan;
int tfc_gather_nd_plan_of(tfc_kernel_ctx *c, tfc_gather_nd_plan *g);

/* The diagonal family (Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag; any memory:
 * only shapes are read), with TF's checks: the output's shape, how it starts (zeros, a copy of
 * input 0, or nothing: every element is written), and one window copy of up to two dims from
 * input `src` into it, strides in elements (the diagonal's step is cols + 1). */
typedef struct tfc_diag_plan {
  int out_rank;
  int64_t out_dims[TFC_MAX_DIMS];
  int zero, copy_input, src;
  int64_t dims[2], src_strides[2], dst_strides[2];
} tfc_diag_plan;
int tfc_diag_plan_of(tfc_kernel_ctx *c, tfc_diag_plan *p);

/* MatrixBandPart (input 0, num_lower 1 and num_upper 2 in host memory): "input must be at
 * least 2-dim, received shape: [3]", the bounds scalar and at most the rows / columns; the
 * input viewed as *batch matrices of *rows x *cols, the bounds in *lower / *upper (negative:
 * that whole triangle). */
int tfc_band_part_plan_of(tfc_kernel_ctx *c, int64_t *batch, int64_t *rows, int64_t *cols, int64_t *lower,
                          int64_t *upper);

/* ReverseSequence: the seq_dim and batch_dim attrs (state of tfc_reverse_sequence_init, freed
 * with free), and the plan: the input viewed as [outer, na, middle, nb, inner] around the two
 * dims, batch_first when the batch dim is the first of them. */
typedef struct tfc_reverse_sequence_attrs {
  int64_t seq_dim, batch_dim;
} tfc_reverse_sequence_attrs;
int tfc_reverse_sequence_init(const tfc_node *n, void **state, tfc_status *s);
typedef struct tfc_reverse_sequence_plan {
  int64_t outer, na, middle, nb, inner;
  int batch_first;
} tfc_reverse_sequence_plan;
/* Checks the attrs against input 0 and seq_lengths (input 1; `lens` its int32 or int64 values
 * in host memory): TF's texts ("seq_lens(1) > input.dims(1)", ...). */
int tfc_reverse_sequence_plan_of(tfc_kernel_ctx *c, const void *lens, tfc_reverse_sequence_plan *p);

#endif
