/*
 * array_plan — see array_plan.h.
 */
#include "device/array_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/array_copy.h"
#include "device/cpu/cwise_int.h"

/* The values checked against each other for concatenation along *axis (normalized here). */
static int concat_plan(tfc_kernel_ctx *c, tfc_tensor *const *ins, int n, int64_t *axis, int64_t *dims) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int rank = ins[0]->ndims;
  if (*axis < -rank || *axis >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld", -rank,
                            rank, (long long)*axis);
  if (*axis < 0) *axis += rank;
  memcpy(dims, ins[0]->dims, sizeof(int64_t) * (size_t)rank);
  dims[*axis] = 0;
  for (int k = 0; k < n; k++) {
    const tfc_tensor *x = ins[k];
    if (x->ndims != rank)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. shape[%d] = %s",
                              tfc_tensor_shape_str(ins[0], a, sizeof a), k, tfc_tensor_shape_str(x, b, sizeof b));
    for (int d = 0; d < rank; d++)
      if (d != *axis && x->dims[d] != ins[0]->dims[d])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "ConcatOp : Dimensions of inputs should match: shape[0] = %s vs. shape[%d] = %s",
                                tfc_tensor_shape_str(ins[0], a, sizeof a), k, tfc_tensor_shape_str(x, b, sizeof b));
    dims[*axis] += x->dims[*axis];
  }
  return TFC_OK;
}

int tfc_concat_plan_of(tfc_kernel_ctx *c, tfc_tensor *const **values, int *n, int64_t *axis, int64_t *dims) {
  int v2 = c->node->op->id == TFC_OP_ConcatV2;
  const tfc_tensor *axis_t = c->inputs[v2 ? c->n_inputs - 1 : 0];
  char a[TFC_SHAPE_STR_MAX];
  if (axis_t->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Concat dim tensor should be a scalar%s, but got shape %s",
                            v2 ? "" : " integer", tfc_tensor_shape_str(axis_t, a, sizeof a));
  *values = c->inputs + (v2 ? 0 : 1);
  *n = c->n_inputs - 1;
  *axis = tfc_array_int_at(axis_t, 0);
  return concat_plan(c, *values, *n, axis, dims);
}

/* The n dims of shape tensor t (host memory; n <= TFC_MAX_DIMS, checked by the caller) into
 * dims, each checked non-negative in order. */
static int shape_dims(tfc_kernel_ctx *c, const tfc_tensor *t, int n, int64_t *dims) {
  for (int i = 0; i < n; i++) {
    dims[i] = tfc_array_int_at(t, i);
    if (dims[i] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
  }
  return TFC_OK;
}

/* The five mask attrs of a StridedSlice-family node into sp. */
static void slice_masks(const tfc_node *n, tfc_strided_slice_spec *sp) {
  tfc_node_attr_int(n, "begin_mask", &sp->begin_mask);
  tfc_node_attr_int(n, "end_mask", &sp->end_mask);
  tfc_node_attr_int(n, "ellipsis_mask", &sp->ellipsis_mask);
  tfc_node_attr_int(n, "new_axis_mask", &sp->new_axis_mask);
  tfc_node_attr_int(n, "shrink_axis_mask", &sp->shrink_axis_mask);
}

/* A StridedSlice-family node's spec: checks begin/end/strides (inputs 1..3, host memory), reads
 * them into b, e and s (room for TFC_MAX_DIMS each; *sp points at them) and the node's masks. */
static int slice_spec_of(tfc_kernel_ctx *c, int64_t *b, int64_t *e, int64_t *s, tfc_strided_slice_spec *sp) {
  const tfc_tensor *bt = c->inputs[1], *et = c->inputs[2], *st = c->inputs[3];
  if (bt->ndims != 1 || et->ndims != 1 || st->ndims != 1 || bt->n_elems != et->n_elems ||
      bt->n_elems != st->n_elems) {
    char x[TFC_SHAPE_STR_MAX], y[TFC_SHAPE_STR_MAX], z[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(
        c, TFC_INVALID_ARGUMENT,
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes %s, %s, and %s instead.",
        tfc_tensor_shape_str(bt, x, sizeof x), tfc_tensor_shape_str(et, y, sizeof y),
        tfc_tensor_shape_str(st, z, sizeof z));
  }
  if (st->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "StridedSlice spec of %lld entries exceeds the maximum rank %d",
                            (long long)st->n_elems, TFC_MAX_DIMS);
  int n = (int)st->n_elems;
  for (int i = 0; i < n; i++) {
    b[i] = tfc_array_int_at(bt, i);
    e[i] = tfc_array_int_at(et, i);
    s[i] = tfc_array_int_at(st, i);
  }
  *sp = (tfc_strided_slice_spec){.n = n, .begin = b, .end = e, .strides = s};
  slice_masks(c->node, sp);
  return TFC_OK;
}

/* StridedSlice: the spec resolved against input 0's dims (TF's ValidateStridedSliceOp). */
static int strided_slice_plan_of(tfc_kernel_ctx *c, tfc_strided_slice_plan *plan) {
  const tfc_tensor *in = c->inputs[0];
  int64_t b[TFC_MAX_DIMS], e[TFC_MAX_DIMS], s[TFC_MAX_DIMS];
  tfc_strided_slice_spec sp;
  TFC_TRY(slice_spec_of(c, b, e, s, &sp));
  char err[256];
  if (tfc_strided_slice_resolve(&sp, in->dims, in->ndims, plan, err, sizeof err))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s", err);
  return TFC_OK;
}

int tfc_strided_slice_grad_plan_of(tfc_kernel_ctx *c, int64_t *dims, int *out_rank, tfc_strided_slice_plan *plan) {
  const tfc_tensor *sh = c->inputs[0], *dy = c->inputs[4];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (sh->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape must be 1-D, got shape.shape = %s",
                            tfc_tensor_shape_str(sh, a, sizeof a));
  if (sh->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "StridedSliceGrad shape of rank %lld exceeds the maximum rank %d",
                            (long long)sh->n_elems, TFC_MAX_DIMS);
  int64_t bv[TFC_MAX_DIMS], ev[TFC_MAX_DIMS], sv[TFC_MAX_DIMS];
  tfc_strided_slice_spec sp;
  TFC_TRY(slice_spec_of(c, bv, ev, sv, &sp));
  int rank = (int)sh->n_elems;
  TFC_TRY(shape_dims(c, sh, rank, dims));
  char err[256];
  if (tfc_strided_slice_resolve(&sp, dims, rank, plan, err, sizeof err))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s", err);
  int same = dy->ndims == plan->final_rank;
  for (int i = 0; same && i < dy->ndims; i++) same = dy->dims[i] == plan->final_dims[i];
  if (!same)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape of dy was %s instead of %s",
                            tfc_tensor_shape_str(dy, a, sizeof a),
                            tfc_dims_str(plan->final_dims, plan->final_rank, b, sizeof b));
  *out_rank = rank;
  return TFC_OK;
}

/* MirrorPad's and MirrorPadGrad's mode attr. */
static int mirror_mode(tfc_kernel_ctx *c, const char **name, int *mode) {
  *name = "REFLECT";
  if (tfc_kernel_attr_string(c->node, "mode", name, c->status)) return c->status->code;
  *mode = strcmp(*name, "SYMMETRIC") == 0 ? TFC_PAD_SYMMETRIC : TFC_PAD_REFLECT;
  return TFC_OK;
}

int tfc_pad_plan_of(tfc_kernel_ctx *c, tfc_pad_plan *p) {
  const tfc_tensor *in = c->inputs[0], *pt = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int op = c->node->op->id;
  const char *mode_name;
  p->mode = TFC_PAD_CONSTANT;
  if (op == TFC_OP_MirrorPad) TFC_TRY(mirror_mode(c, &mode_name, &p->mode));
  int rank = in->ndims;
  if (pt->ndims != 2 || pt->dims[1] != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns: %s",
                            tfc_tensor_shape_str(pt, a, sizeof a));
  if (pt->dims[0] != rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "The first dimension of paddings must be the rank of inputs%s %s",
                            tfc_tensor_shape_str(pt, a, sizeof a), tfc_tensor_shape_str(in, b, sizeof b));
  if (op == TFC_OP_PadV2 && c->inputs[2]->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "constant_values must be a scalar. Found: %s",
                            tfc_tensor_shape_str(c->inputs[2], a, sizeof a));
  for (int d = 0; d < rank; d++) {
    int64_t lo = tfc_array_int_at(pt, 2 * d), hi = tfc_array_int_at(pt, 2 * d + 1), n = in->dims[d];
    if (p->mode == TFC_PAD_CONSTANT) {
      if (lo < 0 || hi < 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Paddings must be non-negative: %lld %lld", (long long)lo,
                                (long long)hi);
    } else {
      if (lo < 0 || hi < 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "paddings must be non-negative: %lld %lld", (long long)lo,
                                (long long)hi);
      if (p->mode == TFC_PAD_SYMMETRIC && (lo > n || hi > n))
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "paddings must be no greater than the dimension size: %lld, %lld greater than %lld",
                                (long long)lo, (long long)hi, (long long)n);
      if (p->mode == TFC_PAD_REFLECT && (lo >= n || hi >= n))
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "paddings must be less than the dimension size: %lld, %lld not less than %lld",
                                (long long)lo, (long long)hi, (long long)n);
    }
    p->before[d] = lo;
    p->dims[d] = n + lo + hi;
  }
  p->rank = rank;
  return TFC_OK;
}

int tfc_mirror_pad_grad_plan_of(tfc_kernel_ctx *c, tfc_pad_plan *p) {
  const tfc_tensor *g = c->inputs[0], *pt = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  const char *m;
  TFC_TRY(mirror_mode(c, &m, &p->mode));
  int rank = g->ndims;
  if (pt->ndims != 2 || pt->dims[1] != 2 || pt->dims[0] != rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns and %d rows: %s", rank,
                            tfc_tensor_shape_str(pt, a, sizeof a));
  for (int d = 0; d < rank; d++) {
    int64_t lo = tfc_array_int_at(pt, 2 * d), hi = tfc_array_int_at(pt, 2 * d + 1);
    int64_t n = g->dims[d] - lo - hi;
    int bad = p->mode == TFC_PAD_REFLECT ? (lo > 0 && lo >= n) || (hi > 0 && hi >= n) : lo > n || hi > n;
    if (lo < 0 || hi < 0 || n < 0 || bad)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "paddings %lld, %lld do not fit dimension %d of size %lld for %s mirror padding",
                              (long long)lo, (long long)hi, d, (long long)g->dims[d], m);
    p->before[d] = lo;
    p->dims[d] = n;
  }
  p->rank = rank;
  return TFC_OK;
}

int tfc_unsorted_segment_plan_of(tfc_kernel_ctx *c, int64_t *dims, int *out_rank, int64_t *num_segments,
                                 int64_t *inner) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1], *ns = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (ns->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_segments should be a scalar, not shape %s",
                            tfc_tensor_shape_str(ns, a, sizeof a));
  int starts = data->ndims >= ids->ndims;
  for (int i = 0; starts && i < ids->ndims; i++) starts = data->dims[i] == ids->dims[i];
  if (!starts)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "data.shape = %s does not start with segment_ids.shape = %s",
                            tfc_tensor_shape_str(data, a, sizeof a), tfc_tensor_shape_str(ids, b, sizeof b));
  int64_t n = tfc_array_int_at(ns, 0);
  if (n < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input num_segments == %lld must not be negative.", (long long)n);
  *num_segments = n;
  *inner = 1;
  *out_rank = 1 + data->ndims - ids->ndims;
  dims[0] = n;
  for (int i = ids->ndims; i < data->ndims; i++) {
    dims[1 + i - ids->ndims] = data->dims[i];
    *inner *= data->dims[i];
  }
  return TFC_OK;
}

int tfc_scan_plan_of(tfc_kernel_ctx *c, int64_t *outer, int64_t *n, int64_t *inner, int *exclusive, int *reverse) {
  const tfc_tensor *x = c->inputs[0], *at = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (at->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "ScanOp: axis must be a scalar, not %s",
                            tfc_tensor_shape_str(at, buf, sizeof buf));
  int64_t axis = tfc_array_int_at(at, 0);
  if (axis < 0) axis += x->ndims;
  if (axis < 0 || axis >= x->ndims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "ScanOp: Expected scan axis in the range [%d, %d), but got %lld",
                            -x->ndims, x->ndims, (long long)axis);
  if (tfc_kernel_attr_bool(c->node, "exclusive", exclusive, c->status) ||
      tfc_kernel_attr_bool(c->node, "reverse", reverse, c->status))
    return c->status->code;
  *outer = *inner = 1;
  for (int d = 0; d < axis; d++) *outer *= x->dims[d];
  for (int d = (int)axis + 1; d < x->ndims; d++) *inner *= x->dims[d];
  *n = x->dims[axis];
  return TFC_OK;
}

int tfc_broadcast_to_plan_of(tfc_kernel_ctx *c, int64_t *dims, int *out_rank, int64_t *in_dims) {
  const tfc_tensor *in = c->inputs[0], *st = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (st->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape must be a vector, got shape %s",
                            tfc_tensor_shape_str(st, a, sizeof a));
  if (st->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "BroadcastTo rank %lld exceeds the maximum rank %d",
                            (long long)st->n_elems, TFC_MAX_DIMS);
  int rank = (int)st->n_elems;
  TFC_TRY(shape_dims(c, st, rank, dims));
  if (in->ndims > rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Rank of input (%d) must be no greater than rank of output shape (%d).", in->ndims, rank);
  for (int i = 0; i < rank; i++) {
    int k = i - (rank - in->ndims);
    in_dims[i] = k < 0 ? 1 : in->dims[k];
    if (in_dims[i] == dims[i] || in_dims[i] == 1) continue;
    tfc_tensor_shape_str(in, a, sizeof a);
    tfc_dims_str(dims, rank, b, sizeof b);
    if (dims[i] == 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unable to broadcast tensor of shape %s to tensor of shape %s",
                              a, b);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", a, b);
  }
  *out_rank = rank;
  return TFC_OK;
}

int tfc_select_v2_plan_of(tfc_kernel_ctx *c, tfc_cwise_bcast *b) {
  if (!tfc_cwise_bcast_init(b, 3, (const tfc_tensor *const *)c->inputs)) return TFC_OK;
  char sc[TFC_SHAPE_STR_MAX], st[TFC_SHAPE_STR_MAX], se[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "condition %s, then %s, and else %s must be broadcastable",
                          tfc_tensor_shape_str(c->inputs[0], sc, sizeof sc),
                          tfc_tensor_shape_str(c->inputs[1], st, sizeof st),
                          tfc_tensor_shape_str(c->inputs[2], se, sizeof se));
}

int tfc_binary_bcast_plan_of(tfc_kernel_ctx *c, tfc_cwise_bcast *b) {
  if (!tfc_cwise_bcast_init(b, 2, (const tfc_tensor *const *)c->inputs)) return TFC_OK;
  char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                          tfc_tensor_shape_str(c->inputs[0], sx, sizeof sx),
                          tfc_tensor_shape_str(c->inputs[1], sy, sizeof sy));
}

/* ---- Split, SplitV ---- */

/* The split axis in [0, rank), or -1 with TF's error (an empty dim tensor has no [0]). */
static int split_dim(tfc_kernel_ctx *c, const tfc_tensor *dim_t, int rank) {
  int64_t d = dim_t->n_elems > 0 ? tfc_array_int_at(dim_t, 0) : 0, orig = d;
  if (d < 0) d += rank;
  if (dim_t->n_elems != 1 || d < 0 || d >= rank) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "-input rank(-%d) <= split_dim < input rank (%d), but got %lld", rank,
                     rank, (long long)orig);
    return -1;
  }
  return (int)d;
}

/* SplitV's sizes from size_splits (one of them may be -1: the rest). */
static int split_v_sizes(tfc_kernel_ctx *c, const tfc_tensor *st, int64_t total, int64_t *sizes) {
  int n = c->n_outputs, neg = -1;
  if (st->ndims != 1 || st->n_elems != n)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "size of the split_tensor must be 1-D and have the same elements as outputs got %d -D and "
                            "%lld elements",
                            st->ndims, (long long)st->n_elems);
  int64_t sum = 0;
  for (int k = 0; k < n; k++) {
    sizes[k] = tfc_array_int_at(st, k);
    if (sizes[k] == -1) {
      if (neg >= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "There can only be one -1 in the input.");
      neg = k;
    } else if (sizes[k] < 0) {
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Split size at index %d must be >= 0. Got: %lld", k,
                              (long long)sizes[k]);
    } else {
      sum += sizes[k];
    }
  }
  if (neg < 0 ? sum != total : sum > total)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Determined shape must either match input shape along split_dim exactly if fully "
                            "specified, or be less than the size of the input along split_dim if not fully "
                            "specified.  Got: %lld",
                            (long long)sum);
  if (neg >= 0) sizes[neg] = total - sum;
  return TFC_OK;
}

int tfc_split_plan_of(tfc_kernel_ctx *c, int *axis, int64_t *sizes) {
  int is_v = c->node->op->id == TFC_OP_SplitV, n = c->n_outputs;
  const tfc_tensor *in = c->inputs[is_v ? 0 : 1];
  *axis = split_dim(c, c->inputs[is_v ? 2 : 0], in->ndims);
  if (*axis < 0) return c->status->code;
  int64_t size = in->dims[*axis];
  if (is_v) return split_v_sizes(c, c->inputs[1], size, sizes);
  if (size % n != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Number of ways to split should evenly divide the split dimension, but got split_dim %d "
                            "(size = %lld) and num_split %d",
                            *axis, (long long)size, n);
  for (int k = 0; k < n; k++) sizes[k] = size / n;
  return TFC_OK;
}

/* ---- Fill ---- */

int tfc_fill_plan_of(tfc_kernel_ctx *c, int64_t *dims, int *rank) {
  const tfc_tensor *dims_t = c->inputs[0], *v = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  *rank = 0;
  if (dims_t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "dims must be a vector, got shape %s",
                            tfc_tensor_shape_str(dims_t, buf, sizeof buf));
  if (v->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "value must be a scalar, got shape %s",
                            tfc_tensor_shape_str(v, buf, sizeof buf));
  if (dims_t->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Fill to rank %lld exceeds the maximum rank %d",
                            (long long)dims_t->n_elems, TFC_MAX_DIMS);
  TFC_TRY(shape_dims(c, dims_t, (int)dims_t->n_elems, dims));
  *rank = (int)dims_t->n_elems;
  return TFC_OK;
}

/* ---- Transpose, Slice, StridedSlice: a window of input 0 ---- */

static void dense_strides(const tfc_tensor *t, int64_t *strides) {
  int64_t st = 1;
  for (int d = t->ndims - 1; d >= 0; d--) {
    strides[d] = st;
    st *= t->dims[d];
  }
}

/* ReverseV2 (axis input 1, host memory): input 0 read with negative strides on the reversed
 * dims, from its mirrored corner. */
static int reverse_window(tfc_kernel_ctx *c, tfc_window_plan *w) {
  const tfc_tensor *in = c->inputs[0], *axis = c->inputs[1];
  if (axis->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "'dims' must be 1-dimension, not %d", axis->ndims);
  int rank = in->ndims, rev[TFC_MAX_DIMS] = {0};
  for (int64_t i = 0; i < axis->n_elems; i++) {
    int64_t a = tfc_array_int_at(axis, i), canon = a < 0 ? a + rank : a;
    if (canon < 0 || canon >= rank)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "'axis'[%lld] = %lld is out of valid range [0, %d",
                              (long long)i, (long long)a, rank - 1);
    if (rev[canon]) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "axis %lld specified more than once.", (long long)canon);
    rev[canon] = 1;
  }
  w->rank = rank;
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    w->dims[d] = in->dims[d];
    w->src_strides[d] = rev[d] ? -s : s;
    if (rev[d] && in->dims[d] > 0) w->offset += (in->dims[d] - 1) * s;
    s *= in->dims[d];
  }
  return TFC_OK;
}

static int transpose_window(tfc_kernel_ctx *c, tfc_window_plan *w) {
  const tfc_tensor *in = c->inputs[0], *perm = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (perm->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "perm must be a vector, not %s",
                            tfc_tensor_shape_str(perm, buf, sizeof buf));
  int rank = in->ndims;
  if (perm->n_elems != rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "transpose expects a vector of size %d. But input(1) is a vector of size %lld", rank,
                            (long long)perm->n_elems);
  int p[TFC_MAX_DIMS], seen[TFC_MAX_DIMS] = {0};
  for (int i = 0; i < rank; i++) {
    int64_t d = tfc_array_int_at(perm, i);
    if (d < 0 || d >= rank)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%lld is out of range [0 .. %d)", (long long)d, rank);
    p[i] = (int)d;
    seen[d] = 1;
  }
  for (int i = 0; i < rank; i++)
    if (!seen[i]) {
      size_t off = 0;
      buf[0] = '\0';
      for (int k = 0; k < rank && off < sizeof buf; k++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%d", k ? "," : "", p[k]);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%d is missing from {%s}.", i, buf);
    }
  int64_t in_strides[TFC_MAX_DIMS];
  dense_strides(in, in_strides);
  /* When the dims larger than 1 keep their order, the bytes do not move: relabel only. */
  int last = -1;
  w->share = 1;
  for (int i = 0; i < rank; i++) {
    w->dims[i] = in->dims[p[i]];
    w->src_strides[i] = in_strides[p[i]];
    if (w->dims[i] != 1) {
      if (p[i] < last) w->share = 0;
      last = p[i];
    }
  }
  w->rank = rank;
  return TFC_OK;
}

static int slice_window(tfc_kernel_ctx *c, tfc_window_plan *w) {
  const tfc_tensor *in = c->inputs[0], *bt = c->inputs[1], *st = c->inputs[2];
  int rank = in->ndims;
  if (bt->ndims != 1 || st->ndims != 1 || bt->n_elems != rank || st->n_elems != rank) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(
        c, TFC_INVALID_ARGUMENT,
        "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes %s and %s instead.", rank,
        tfc_tensor_shape_str(bt, a, sizeof a), tfc_tensor_shape_str(st, b, sizeof b));
  }
  dense_strides(in, w->src_strides);
  w->share = 1;
  for (int i = 0; i < rank; i++) {
    int64_t b = tfc_array_int_at(bt, i), s = tfc_array_int_at(st, i), dim = in->dims[i];
    if (s == -1) s = dim - b;
    if (dim == 0) {
      if (b != 0 || s != 0)
        return tfc_kernel_error(
            c, TFC_INVALID_ARGUMENT,
            "Expected begin[%d] == 0 (got %lld) and size[%d] == 0 (got %lld) when input.dim_size(%d) == 0", i,
            (long long)b, i, (long long)s, i);
    } else {
      if (b < 0 || b > dim)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld", i,
                                (long long)dim, (long long)b);
      if (s < 0 || b + s > dim)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", i,
                                (long long)(dim - b), (long long)s);
    }
    w->dims[i] = s;
    w->offset += b * w->src_strides[i];
    if (s != dim) w->share = 0;
  }
  w->rank = rank;
  return TFC_OK;
}

static int strided_slice_window(tfc_kernel_ctx *c, tfc_window_plan *w) {
  const tfc_tensor *in = c->inputs[0];
  tfc_strided_slice_plan plan;
  TFC_TRY(strided_slice_plan_of(c, &plan));
  int64_t strides[TFC_MAX_DIMS];
  dense_strides(in, strides);
  for (int d = 0; d < in->ndims; d++) {
    w->dims[d] = plan.processing[d];
    w->src_strides[d] = plan.stride[d] * strides[d];
    w->offset += plan.begin[d] * strides[d];
  }
  w->rank = in->ndims;
  w->share = plan.is_identity;
  w->out_rank = plan.final_rank;
  memcpy(w->out_dims, plan.final_dims, sizeof(int64_t) * (size_t)plan.final_rank);
  return TFC_OK;
}

int tfc_window_plan_of(tfc_kernel_ctx *c, tfc_window_plan *w) {
  memset(w, 0, sizeof *w);
  int op = c->node->op->id;
  if (op == TFC_OP_StridedSlice) return strided_slice_window(c, w);
  TFC_TRY(op == TFC_OP_Transpose ? transpose_window(c, w)
          : op == TFC_OP_ReverseV2 ? reverse_window(c, w)
                                   : slice_window(c, w));
  w->out_rank = w->rank;
  memcpy(w->out_dims, w->dims, sizeof(int64_t) * (size_t)w->rank);
  return TFC_OK;
}

/* ---- Pack, Unpack, OneHot ---- */

int tfc_pack_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int *axis) {
  int n = c->n_inputs;
  const tfc_tensor *x0 = c->inputs[0];
  int rank = x0->ndims + 1;
  int64_t attr = 0;
  tfc_node_attr_int(c->node, "axis", &attr);
  int64_t a = attr < 0 ? attr + rank : attr;
  if (a < 0 || a >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)attr, -rank, rank);
  if (rank > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Pack to rank %d exceeds the maximum rank %d", rank, TFC_MAX_DIMS);
  for (int k = 1; k < n; k++)
    if (!tfc_tensor_same_shape(x0, c->inputs[k])) {
      char a0[TFC_SHAPE_STR_MAX], ak[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s",
                              tfc_tensor_shape_str(x0, a0, sizeof a0), k,
                              tfc_tensor_shape_str(c->inputs[k], ak, sizeof ak));
    }
  for (int i = 0, j = 0; i < rank; i++) out_dims[i] = i == a ? n : x0->dims[j++];
  *out_rank = rank;
  *axis = (int)a;
  return TFC_OK;
}

int tfc_unpack_plan_of(tfc_kernel_ctx *c, int *axis) {
  const tfc_tensor *in = c->inputs[0];
  int n = c->n_outputs, rank = in->ndims;
  int64_t attr = 0;
  tfc_node_attr_int(c->node, "axis", &attr);
  int64_t a = attr < 0 ? attr + rank : attr;
  if (a < 0 || a >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "axis = %lld not in [%d, %d)", (long long)attr, -rank, rank);
  if (in->dims[a] != n) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input shape axis %lld must equal %d, got shape %s", (long long)a,
                            n, tfc_tensor_shape_str(in, buf, sizeof buf));
  }
  *axis = (int)a;
  return TFC_OK;
}

int tfc_one_hot_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *prefix, int64_t *depth,
                        int64_t *suffix) {
  const tfc_tensor *ix = c->inputs[0], *dt = c->inputs[1], *on = c->inputs[2], *off = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  int64_t axis_attr = -1;
  if (tfc_kernel_attr_int(c->node, "axis", &axis_attr, c->status)) return c->status->code;
  int rank = ix->ndims + 1;
  if (!(axis_attr == -1 || (axis_attr >= 0 && axis_attr < rank)))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected axis to be -1 or between [0, %d).  But received: %lld",
                            rank, (long long)axis_attr);
  if (dt->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "depth must be a scalar, but got: %s",
                            tfc_tensor_shape_str(dt, a, sizeof a));
  if (on->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "on_value must be a scalar, but got: %s",
                            tfc_tensor_shape_str(on, a, sizeof a));
  if (off->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "off_value must be a scalar, but got: %s",
                            tfc_tensor_shape_str(off, a, sizeof a));
  if (rank > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "OneHot output rank %d exceeds the maximum rank %d", rank,
                            TFC_MAX_DIMS);
  int axis = axis_attr == -1 ? ix->ndims : (int)axis_attr;
  *depth = *(const int32_t *)dt->data;
  if (*depth < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "depth must be non-negative, got: %lld", (long long)*depth);
  *prefix = *suffix = 1;
  for (int i = 0, j = 0; i < rank; i++) {
    out_dims[i] = i == axis ? *depth : ix->dims[j++];
    if (i < axis) *prefix *= out_dims[i];
    if (i > axis) *suffix *= out_dims[i];
  }
  *out_rank = rank;
  return TFC_OK;
}

/* ---- AddN ---- */

int tfc_addn_check(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  for (int k = 1; k < c->n_inputs; k++)
    if (!tfc_tensor_same_shape(x, c->inputs[k])) {
      char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Inputs to operation %s of type AddN must have the same size and shape.  "
                              "Input 0: %s != input %d: %s",
                              c->node->name, tfc_tensor_shape_str(x, a, sizeof a), k,
                              tfc_tensor_shape_str(c->inputs[k], b, sizeof b));
    }
  return TFC_OK;
}

/* ---- Gather, GatherV2 ---- */

static int64_t dims_prod(const int64_t *dims, int from, int to) {
  int64_t n = 1;
  for (int i = from; i < to; i++) n *= dims[i];
  return n;
}

int tfc_gather_plan_of(tfc_kernel_ctx *c, tfc_gather_plan *g) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  int64_t axis = 0, batch_dims = 0;
  if (c->node->op->id == TFC_OP_GatherV2) {
    const tfc_tensor *at = c->inputs[2];
    if (at->ndims != 0) {
      char buf[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "axis must be scalar, but got %s",
                              tfc_tensor_shape_str(at, buf, sizeof buf));
    }
    axis = tfc_array_int_at(at, 0);
    tfc_node_attr_int(c->node, "batch_dims", &batch_dims);
  }
  if (p->ndims < 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "params must be at least 1 dimensional");
  int64_t a = axis < 0 ? axis + p->ndims : axis;
  if (a < 0 || a >= p->ndims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected axis in the range [%d, %d), but got %lld", -p->ndims,
                            p->ndims, (long long)axis);
  int64_t bd = batch_dims;
  if (bd != 0) {
    if (bd < 0) bd += ix->ndims;
    if (bd < 0 || bd > ix->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "batch_dims (%lld) must be less than or equal to rank(indices) (%d).",
                              (long long)batch_dims, ix->ndims);
    if (bd >= p->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dims (%lld) must be less than rank(params) (%d).",
                              (long long)bd, p->ndims);
    if (a < bd)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dims (%lld) must be less than or equal to axis (%lld).",
                              (long long)bd, (long long)a);
    for (int i = 0; i < bd; i++)
      if (p->dims[i] != ix->dims[i])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "params.shape[%d]: %lld should be equal to indices.shape[%d]: %lld", i,
                                (long long)p->dims[i], i, (long long)ix->dims[i]);
  }
  if (p->ndims + ix->ndims - 1 - bd > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Gather result exceeds the maximum rank %d", TFC_MAX_DIMS);
  int r = 0;
  for (int i = 0; i < a; i++) g->dims[r++] = p->dims[i];
  for (int i = (int)bd; i < ix->ndims; i++) g->dims[r++] = ix->dims[i];
  for (int i = (int)a + 1; i < p->ndims; i++) g->dims[r++] = p->dims[i];
  g->rank = r;
  g->batch = dims_prod(p->dims, 0, (int)bd);
  g->outer = dims_prod(p->dims, (int)bd, (int)a);
  g->limit = p->dims[a];
  g->n_idx = dims_prod(ix->dims, (int)bd, ix->ndims);
  g->inner = dims_prod(p->dims, (int)a + 1, p->ndims);
  return TFC_OK;
}

/* ---- Select ---- */

static int same_size_error(tfc_kernel_ctx *c, const tfc_tensor *t, const tfc_tensor *e) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "'then' and 'else' must have the same size.  but received: %s vs. %s",
                          tfc_tensor_shape_str(t, a, sizeof a), tfc_tensor_shape_str(e, b, sizeof b));
}

int tfc_select_plan_of(tfc_kernel_ctx *c, int64_t *cond_div) {
  const tfc_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  *cond_div = 1;
  if (cond->ndims == 0) {
    if (!tfc_tensor_same_shape(t, e)) return same_size_error(c, t, e);
    *cond_div = t->n_elems ? t->n_elems : 1;
  } else if (cond->ndims == 1 && t->ndims != 1) {
    if (t->ndims < 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "'then' must be at least a vector, but saw shape: %s",
                              tfc_tensor_shape_str(t, a, sizeof a));
    if (t->dims[0] != cond->n_elems)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Number of batches of 'then' must match size of 'cond', but saw: %lld vs. %lld",
                              (long long)t->dims[0], (long long)cond->n_elems);
    if (!tfc_tensor_same_shape(t, e)) return same_size_error(c, t, e);
    int64_t row = cond->n_elems ? t->n_elems / cond->n_elems : 0;
    *cond_div = row ? row : 1;
  } else {
    const tfc_tensor *ins[3] = {cond, t, e};
    for (int k = 1; k < 3; k++)
      if (!tfc_tensor_same_shape(cond, ins[k]))
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "Inputs to operation %s of type Select must have the same size and shape.  "
                                "Input 0: %s != input %d: %s",
                                c->node->name, tfc_tensor_shape_str(cond, a, sizeof a), k,
                                tfc_tensor_shape_str(ins[k], b, sizeof b));
  }
  return TFC_OK;
}

/* ---- Tile ---- */

int tfc_tile_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *all_one) {
  const tfc_tensor *in = c->inputs[0], *mt = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (mt->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Expected multiples argument to be a vector of length %d but got shape %s", in->ndims,
                            tfc_tensor_shape_str(mt, buf, sizeof buf));
  if (mt->n_elems != in->ndims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Expected multiples argument to be a vector of length %d but got length %lld", in->ndims,
                            (long long)mt->n_elems);
  *all_one = 1;
  for (int i = 0; i < in->ndims; i++) {
    int64_t m = tfc_array_int_at(mt, i);
    if (m < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected multiples[%d] >= 0, but got %lld", i, (long long)m);
    if (m != 1) *all_one = 0;
    out_dims[i] = in->dims[i] * m;
  }
  return TFC_OK;
}

int tfc_where_check(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  if (x->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "WhereOp : Unhandled input dimensions: %d", x->ndims);
  return TFC_OK;
}

/* ---- GatherNd ---- */

int tfc_gather_nd_plan_of(tfc_kernel_ctx *c, tfc_gather_nd_plan *g) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  if (p->ndims < 1 || ix->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "params and indices must be at least 1-D");
  int64_t r = ix->dims[ix->ndims - 1];
  if (r > p->ndims) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "index innermost dimension length must be <= params rank; saw: %lld vs. %d (indices %s, "
                            "params %s)",
                            (long long)r, p->ndims, tfc_tensor_shape_str(ix, a, sizeof a),
                            tfc_tensor_shape_str(p, b, sizeof b));
  }
  int rank = 0;
  for (int i = 0; i < ix->ndims - 1; i++) g->dims[rank++] = ix->dims[i];
  for (int i = (int)r; i < p->ndims; i++) g->dims[rank++] = p->dims[i];
  g->rank = rank;
  g->r = (int)r;
  g->n_rows = r ? ix->n_elems / r : tfc_dims_num_elements(ix->dims, ix->ndims - 1);
  g->slice = dims_prod(p->dims, (int)r, p->ndims);
  return TFC_OK;
}

/* ---- the diagonal family ---- */

static int diag_shape_err(tfc_kernel_ctx *c, const char *what, const tfc_tensor *t) {
  char s[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s, received shape: %s", what, tfc_tensor_shape_str(t, s, sizeof s));
}

/* The window: batch rows of n diagonal elements. */
static void diag_window(tfc_diag_plan *p, int64_t batch, int64_t n, int64_t src_b, int64_t src_i, int64_t dst_b,
                        int64_t dst_i) {
  p->dims[0] = batch;
  p->dims[1] = n;
  p->src_strides[0] = src_b;
  p->src_strides[1] = src_i;
  p->dst_strides[0] = dst_b;
  p->dst_strides[1] = dst_i;
}

int tfc_diag_plan_of(tfc_kernel_ctx *c, tfc_diag_plan *p) {
  memset(p, 0, sizeof *p);
  const tfc_tensor *x = c->inputs[0];
  char s[TFC_SHAPE_STR_MAX];
  switch (c->node->op->id) {
    case TFC_OP_Diag: { /* x (rank k) onto the diagonal of a rank-2k zero tensor */
      if (x->ndims < 1 || 2 * x->ndims > TFC_MAX_DIMS)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input must be at least rank 1, got %d", x->ndims);
      for (int i = 0; i < x->ndims; i++) p->out_dims[i] = p->out_dims[i + x->ndims] = x->dims[i];
      p->out_rank = 2 * x->ndims;
      p->zero = 1;
      diag_window(p, 1, x->n_elems, 0, 1, 0, x->n_elems + 1);
      return TFC_OK;
    }
    case TFC_OP_DiagPart: {
      if (x->ndims % 2 || x->ndims == 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "The rank of the tensor should be even and positive, got shape %s",
                                tfc_tensor_shape_str(x, s, sizeof s));
      int half = x->ndims / 2;
      for (int i = 0; i < half; i++)
        if (x->dims[i] != x->dims[i + half])
          return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid shape %s: dimensions %d and %d do not match.",
                                  tfc_tensor_shape_str(x, s, sizeof s), i, i + half);
      for (int i = 0; i < half; i++) p->out_dims[i] = x->dims[i];
      p->out_rank = half;
      int64_t n = tfc_dims_num_elements(x->dims, half);
      diag_window(p, 1, n, 0, n + 1, 0, 1);
      return TFC_OK;
    }
    case TFC_OP_MatrixDiag: { /* [..., n] onto the diagonals of zero [..., n, n] */
      if (x->ndims < 1) return diag_shape_err(c, "input must be at least 1-dim", x);
      if (x->ndims + 1 > TFC_MAX_DIMS) return diag_shape_err(c, "input has too many dims", x);
      int64_t n = x->dims[x->ndims - 1];
      memcpy(p->out_dims, x->dims, sizeof(int64_t) * (size_t)x->ndims);
      p->out_dims[x->ndims] = n;
      p->out_rank = x->ndims + 1;
      p->zero = 1;
      diag_window(p, n ? x->n_elems / n : 0, n, n, 1, n * n, n + 1);
      return TFC_OK;
    }
    default: break;
  }
  /* MatrixDiagPart and MatrixSetDiag: the innermost matrices' main diagonals. */
  if (x->ndims < 2) return diag_shape_err(c, "input must be at least 2-dim", x);
  int64_t rows = x->dims[x->ndims - 2], cols = x->dims[x->ndims - 1], m = rows < cols ? rows : cols;
  int64_t batch = tfc_dims_num_elements(x->dims, x->ndims - 2);
  if (c->node->op->id == TFC_OP_MatrixDiagPart) {
    memcpy(p->out_dims, x->dims, sizeof(int64_t) * (size_t)x->ndims);
    p->out_dims[x->ndims - 2] = m;
    p->out_rank = x->ndims - 1;
    diag_window(p, batch, m, rows * cols, cols + 1, m, 1);
    return TFC_OK;
  }
  const tfc_tensor *d = c->inputs[1];
  int ok = d->ndims == x->ndims - 1 && d->dims[d->ndims - 1] == m;
  for (int i = 0; ok && i < x->ndims - 2; i++) ok = d->dims[i] == x->dims[i];
  if (!ok) {
    char a[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "must have diagonal.shape == input.shape[:-2] + min(input.shape[-2:]), but received "
                            "input shape: %s and diagonal shape: %s",
                            tfc_tensor_shape_str(x, a, sizeof a), tfc_tensor_shape_str(d, s, sizeof s));
  }
  memcpy(p->out_dims, x->dims, sizeof(int64_t) * (size_t)x->ndims);
  p->out_rank = x->ndims;
  p->copy_input = 1;
  p->src = 1;
  diag_window(p, batch, m, m, 1, rows * cols, cols + 1);
  return TFC_OK;
}

/* ---- MatrixBandPart ---- */

int tfc_band_part_plan_of(tfc_kernel_ctx *c, int64_t *batch, int64_t *rows, int64_t *cols, int64_t *lower,
                          int64_t *upper) {
  const tfc_tensor *x = c->inputs[0], *lo = c->inputs[1], *hi = c->inputs[2];
  char s[TFC_SHAPE_STR_MAX];
  if (x->ndims < 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be at least 2-dim, received shape: %s",
                            tfc_tensor_shape_str(x, s, sizeof s));
  if (lo->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_lower must be scalar, got shape %s",
                            tfc_tensor_shape_str(lo, s, sizeof s));
  if (hi->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_upper must be scalar, got shape %s",
                            tfc_tensor_shape_str(hi, s, sizeof s));
  *rows = x->dims[x->ndims - 2];
  *cols = x->dims[x->ndims - 1];
  *lower = tfc_tensor_get_i64(lo, 0);
  *upper = tfc_tensor_get_i64(hi, 0);
  if (*lower > *rows)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "num_lower must be negative or less or equal to number of rows (%lld) got: %lld",
                            (long long)*rows, (long long)*lower);
  if (*upper > *cols)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "num_upper must be negative or less or equal to number of columns (%lld) got: %lld",
                            (long long)*cols, (long long)*upper);
  *batch = tfc_dims_num_elements(x->dims, x->ndims - 2);
  return TFC_OK;
}

/* ---- ReverseSequence ---- */

int tfc_reverse_sequence_init(const tfc_node *n, void **state, tfc_status *s) {
  tfc_reverse_sequence_attrs *a = malloc(sizeof *a);
  if (!a) return TFC_OOM(s);
  a->batch_dim = 0;
  if (tfc_kernel_attr_int(n, "seq_dim", &a->seq_dim, s) || tfc_kernel_attr_int(n, "batch_dim", &a->batch_dim, s)) {
    free(a);
    return s->code;
  }
  *state = a;
  return TFC_OK;
}

int tfc_reverse_sequence_plan_of(tfc_kernel_ctx *c, const void *lens, tfc_reverse_sequence_plan *p) {
  const tfc_reverse_sequence_attrs *a = c->state;
  const tfc_tensor *in = c->inputs[0], *len_t = c->inputs[1];
  int64_t sd = a->seq_dim, bd = a->batch_dim;
  int rank = in->ndims;
  if (sd < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid seq_dim %lld", (long long)sd);
  if (bd < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid batch_dim %lld", (long long)bd);
  if (bd == sd) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dim == seq_dim == %lld", (long long)sd);
  if (sd >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_dim must be < input rank ( %lld vs. %d)", (long long)sd,
                            rank);
  if (bd >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dim must be < input rank ( %lld vs. %d)", (long long)bd,
                            rank);
  if (len_t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lengths must be 1-dim, not %d", len_t->ndims);
  if (len_t->n_elems != in->dims[bd])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Length of seq_lengths != input.dims(%lld), (%lld vs. %lld)",
                            (long long)bd, (long long)len_t->n_elems, (long long)in->dims[bd]);
  for (int64_t i = 0; i < len_t->n_elems; i++) {
    int64_t l = len_t->dtype == TFC_DT_INT32 ? ((const int32_t *)lens)[i] : ((const int64_t *)lens)[i];
    if (l < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lens(%lld) < 0", (long long)i);
    if (l > in->dims[sd])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lens(%lld) > input.dims(%lld)", (long long)i, (long long)sd);
  }
  int first = bd < sd ? (int)bd : (int)sd, second = bd < sd ? (int)sd : (int)bd;
  p->outer = tfc_dims_num_elements(in->dims, first);
  p->na = in->dims[first];
  p->middle = tfc_dims_num_elements(in->dims + first + 1, second - first - 1);
  p->nb = in->dims[second];
  p->inner = tfc_dims_num_elements(in->dims + second + 1, rank - second - 1);
  p->batch_first = first == (int)bd;
  return TFC_OK;
}
