/*
 * grad_array — gradient builders of the array family: pass-throughs (Identity, Snapshot,
 * PlaceholderWithDefault), reshapes (Reshape, ExpandDims, Squeeze), Transpose (through
 * InvertPermutation), joins and splits (ConcatV2 and Concat through ConcatOffset + Slice,
 * Split, SplitV, Pack, Unpack), Tile, BroadcastTo and Fill, windows (Slice through Pad,
 * StridedSlice through StridedSliceGrad, Pad/PadV2 through Slice), gathers (GatherV2,
 * Gather), UnsortedSegmentSum and DynamicPartition (its positions stitched back), reversals
 * (ReverseV2, ReverseSequence: reversed back), plus the non-differentiable rows (Shape, Size, Rank,
 * ZerosLike, OnesLike, StopGradient, OneHot, ...) and PreventGradient's error.
 *
 * Math and node order follow TF's array_ops / array_grad.py. Python's array_ops.shape, rank
 * and size fold to Consts when the static shape is known; tfc_grad_shape_opt and friends do
 * the same so the graphs line up. Gather gradients are IndexedSlices in Python; a tfc
 * gradient is always dense, so they are densified on the spot with UnsortedSegmentSum over
 * dense_shape[0], exactly what Python's IndexedSlices-to-Tensor conversion builds.
 */
#include <stdlib.h>
#include <string.h>

#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

static int pass_grad(tfc_grad_ctx *c) {
  c->dx[0] = c->dy[0];
  return TFC_OK;
}

/* Reshape, ExpandDims, Squeeze: back to the input's shape. */
static int reshape_to_input_grad(tfc_grad_ctx *c) {
  tfc_endpoint sx = tfc_grad_shape(c, tfc_grad_in(c, 0));
  c->dx[0] = tfc_grad_reshape(c, c->dy[0], sx);
  return c->s->code;
}

static int prevent_gradient_grad(tfc_grad_ctx *c) {
  const tfc_attr_value *m = tfc_node_attr(c->op, "message");
  return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Gradient explicitly disabled. Reason: %s",
                        m && m->kind == TFC_ATTR_STRING ? m->u.s.data : "");
}

/* ReverseV2, ReverseSequence: reversing dy the same way (Python's _ReverseV2Grad,
 * _ReverseSequenceGrad); no gradient for the axes or the lengths. */
static int reverse_v2_grad(tfc_grad_ctx *c) {
  c->dx[0] = tfc_grad_binary(c, "ReverseV2", NULL, c->dy[0], tfc_grad_in(c, 1));
  return c->s->code;
}

static int reverse_sequence_grad(tfc_grad_ctx *c) {
  int64_t sd = 0, bd = 0;
  tfc_node_attr_int(c->op, "seq_dim", &sd);
  tfc_node_attr_int(c->op, "batch_dim", &bd);
  tfc_grad_attr a[2] = {TFC_GRAD_ATTR_INT("seq_dim", sd), TFC_GRAD_ATTR_INT("batch_dim", bd)};
  tfc_endpoint ins[2] = {c->dy[0], tfc_grad_in(c, 1)};
  c->dx[0] = tfc_grad_op(c, "ReverseSequence", NULL, ins, 2, a, 2);
  return c->s->code;
}

static int transpose_grad(tfc_grad_ctx *c) {
  tfc_endpoint p = tfc_grad_unary(c, "InvertPermutation", NULL, tfc_grad_in(c, 1));
  c->dx[0] = tfc_grad_binary(c, "Transpose", "transpose", c->dy[0], p);
  return c->s->code;
}

/*
 * Concat along `axis` (an input) of values[0, n), as Python's _ConcatGradHelper: the input
 * shapes (Consts when all are fully known, else one ShapeN), then for up to 16 inputs
 * ConcatOffset + one Slice per input, and beyond that one SplitV over the sizes along the
 * axis (Python's benchmarked switch-over).
 */
static int concat_common(tfc_grad_ctx *c, int axis_in, int first, int n) {
  if (n == 1) {
    c->dx[first] = c->dy[0];
    return TFC_OK;
  }
  tfc_endpoint dim = tfc_grad_in(c, axis_in);
  if (tfc_grad_dtype(dim) != TFC_DT_INT32) dim = tfc_grad_cast(c, dim, TFC_DT_INT32);
  /* Python's non_neg_concat_dim: the axis may be negative, the slices need it not to be. */
  dim = tfc_grad_binary(c, "FloorMod", "mod", dim, tfc_grad_rank_opt(c, tfc_grad_in(c, first)));
  tfc_endpoint *sizes = calloc((size_t)n + 2, sizeof *sizes);
  if (!sizes) return TFC_OOM(c->s);
  int known = 1;
  for (int i = 0; i < n && known; i++) known = tfc_shape_fully_defined(tfc_grad_static_shape(tfc_grad_in(c, first + i)));
  if (known) {
    for (int i = 0; i < n; i++) {
      const tfc_shape *sh = tfc_grad_static_shape(tfc_grad_in(c, first + i));
      sizes[i + 1] = tfc_grad_const_ivec(c, NULL, sh->dims, sh->rank);
    }
  } else {
    tfc_node *sn = tfc_grad_node(c, "ShapeN", NULL, c->op->inputs + first, n, 0, n, NULL, 0, NULL);
    for (int i = 0; sn && i < n; i++) sizes[i + 1] = (tfc_endpoint){sn, i};
  }
  if (n <= 16) {
    sizes[0] = dim;
    tfc_node *off = tfc_grad_node(c, "ConcatOffset", NULL, sizes, n + 1, 1, n, NULL, 0, NULL);
    for (int i = 0; off && i < n; i++) {
      tfc_endpoint ins[3] = {c->dy[0], {off, i}, sizes[i + 1]};
      c->dx[first + i] = tfc_grad_op(c, "Slice", NULL, ins, 3, NULL, 0);
    }
  } else {
    tfc_grad_attr ax[1] = {TFC_GRAD_ATTR_INT("axis", 1)};
    tfc_endpoint st = {tfc_grad_node(c, "Pack", "stack", sizes + 1, n, 0, n, ax, 1, NULL), 0};
    tfc_endpoint bp[2] = {dim, tfc_grad_const_scalar(c, "Slice/begin/1", TFC_DT_INT32, 0, NULL)};
    tfc_endpoint begin = {tfc_grad_node(c, "Pack", "Slice/begin", bp, 2, 0, 2, NULL, 0, NULL), 0};
    int64_t size_v[2] = {1, -1};
    tfc_endpoint si[3] = {st, begin, tfc_grad_const_ivec(c, "Slice/size", size_v, 2)};
    tfc_endpoint sl = tfc_grad_op(c, "Slice", NULL, si, 3, NULL, 0);
    tfc_endpoint sq = tfc_grad_unary(c, "Squeeze", NULL, sl);
    tfc_endpoint ins[3] = {c->dy[0], sq, dim};
    tfc_grad_attr a[1] = {TFC_GRAD_ATTR_INT("num_split", n)};
    tfc_node *split = tfc_grad_node(c, "SplitV", "split", ins, 3, -1, 0, a, 1, NULL);
    for (int i = 0; split && i < n; i++) c->dx[first + i] = (tfc_endpoint){split, i};
  }
  free(sizes);
  return c->s->code;
}

static int concat_v2_grad(tfc_grad_ctx *c) {
  return concat_common(c, c->op->n_inputs - 1, 0, c->op->n_inputs - 1);
}
static int concat_grad(tfc_grad_ctx *c) { return concat_common(c, 0, 1, c->op->n_inputs - 1); }

/* ConcatV2(dy[0..n), axis) named "concat". */
static tfc_endpoint concat_outputs(tfc_grad_ctx *c, tfc_endpoint axis) {
  int n = c->op->n_outputs;
  tfc_endpoint *ins = calloc((size_t)n + 1, sizeof *ins);
  if (!ins) {
    TFC_OOM(c->s);
    return tfc_grad_none();
  }
  memcpy(ins, c->dy, sizeof *ins * (size_t)n);
  ins[n] = axis;
  tfc_endpoint r = {tfc_grad_node(c, "ConcatV2", "concat", ins, n + 1, 0, n, NULL, 0, NULL), 0};
  free(ins);
  return r;
}

static int split_grad(tfc_grad_ctx *c) {
  c->dx[1] = concat_outputs(c, tfc_grad_in(c, 0));
  return c->s->code;
}

static int split_v_grad(tfc_grad_ctx *c) {
  c->dx[0] = concat_outputs(c, tfc_grad_in(c, 2));
  return c->s->code;
}

static int pack_grad(tfc_grad_ctx *c) {
  int64_t axis = 0;
  tfc_node_attr_int(c->op, "axis", &axis);
  int n = c->op->n_inputs;
  tfc_grad_attr a[2] = {TFC_GRAD_ATTR_INT("num", n), TFC_GRAD_ATTR_INT("axis", axis)};
  tfc_node *u = tfc_grad_node(c, "Unpack", "unstack", &c->dy[0], 1, -1, 0, a, 2, NULL);
  for (int i = 0; u && i < n; i++) c->dx[i] = (tfc_endpoint){u, i};
  return c->s->code;
}

static int unpack_grad(tfc_grad_ctx *c) {
  int64_t axis = 0;
  tfc_node_attr_int(c->op, "axis", &axis);
  int n = c->op->n_outputs;
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_INT("axis", axis)};
  c->dx[0] = (tfc_endpoint){tfc_grad_node(c, "Pack", "stack", c->dy, n, 0, n, a, 1, NULL), 0};
  return c->s->code;
}

/* Tile: view dy as [m0, s0, m1, s1, ...] and sum the multiples axes away. */
static int tile_grad(tfc_grad_ctx *c) {
  tfc_endpoint mult = tfc_grad_in(c, 1);
  tfc_grad_attr st[1] = {TFC_GRAD_ATTR_TYPE("out_type", tfc_grad_dtype(mult))};
  tfc_endpoint x = tfc_grad_in(c, 0);
  tfc_endpoint sx = tfc_grad_op(c, "Shape", NULL, &x, 1, st, 1);
  tfc_endpoint pk[2] = {mult, sx};
  tfc_endpoint stacked = {tfc_grad_node(c, "Pack", "stack", pk, 2, 0, 2, NULL, 0, NULL), 0};
  int64_t perm[2] = {1, 0}, minus1 = -1;
  tfc_endpoint tr = tfc_grad_binary(c, "Transpose", "transpose", stacked, tfc_grad_const_ivec(c, NULL, perm, 2));
  tfc_endpoint split_shape = tfc_grad_reshape(c, tr, tfc_grad_const_ivec(c, "Reshape/shape", &minus1, 1));
  tfc_endpoint size = tfc_grad_unary(c, "Size", NULL, split_shape);
  tfc_endpoint rng[3] = {tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL), size,
                         tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 2, NULL)};
  tfc_endpoint axes = tfc_grad_op(c, "Range", "range", rng, 3, NULL, 0);
  c->dx[0] = tfc_grad_sum(c, tfc_grad_reshape(c, c->dy[0], split_shape), axes);
  return c->s->code;
}

static int broadcast_to_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), shape = tfc_grad_in(c, 1);
  tfc_grad_attr st[1] = {TFC_GRAD_ATTR_TYPE("out_type", tfc_grad_dtype(shape))};
  tfc_endpoint sx = tfc_grad_op(c, "Shape", NULL, &x, 1, st, 1);
  tfc_endpoint ins[2] = {shape, sx};
  tfc_node *bga = tfc_grad_node(c, "BroadcastGradientArgs", NULL, ins, 2, -1, 0, NULL, 0, NULL);
  tfc_endpoint si[2] = {c->dy[0], {bga, 1}};
  tfc_grad_attr kd[1] = {TFC_GRAD_ATTR_BOOL("keep_dims", 1)};
  tfc_endpoint sum = tfc_grad_op(c, "Sum", NULL, si, 2, kd, 1);
  c->dx[0] = tfc_grad_reshape(c, sum, sx);
  return c->s->code;
}

/* Fill: the value received the sum of every element's gradient. */
static int fill_grad(tfc_grad_ctx *c) {
  tfc_endpoint g = c->dy[0];
  const tfc_shape *gs = tfc_grad_static_shape(g);
  tfc_endpoint axes;
  if (gs->rank >= 0) {
    int64_t all[TFC_MAX_DIMS];
    for (int i = 0; i < gs->rank; i++) all[i] = i;
    axes = tfc_grad_const_ivec(c, NULL, all, gs->rank);
  } else {
    tfc_endpoint rng[3] = {tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL),
                           tfc_grad_unary(c, "Rank", NULL, g),
                           tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 1, NULL)};
    axes = tfc_grad_op(c, "Range", "range", rng, 3, NULL, 0);
  }
  c->dx[1] = tfc_grad_sum(c, g, axes);
  return c->s->code;
}

/* ---- windows ---- */

/* Pack(a, b) of two scalars (Python's stack([a, b])). */
static tfc_endpoint pack2(tfc_grad_ctx *c, const char *name, tfc_endpoint a, tfc_endpoint b) {
  tfc_endpoint ins[2] = {a, b};
  return (tfc_endpoint){tfc_grad_node(c, "Pack", name, ins, 2, 0, 2, NULL, 0, NULL), 0};
}

/* Slice: pad the gradient back with begin before and (input - size - begin) after. */
static int slice_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), begin = tfc_grad_in(c, 1);
  int it = tfc_grad_dtype(begin);
  tfc_endpoint rank = tfc_grad_rank_opt(c, x);
  tfc_endpoint size = tfc_grad_shape_opt(c, tfc_grad_out(c, 0), it);
  tfc_endpoint shape = pack2(c, "stack", rank, tfc_grad_const_scalar(c, "stack/1", TFC_DT_INT32, 1, NULL));
  tfc_endpoint before = tfc_grad_reshape(c, begin, shape);
  tfc_endpoint sx = tfc_grad_shape_opt(c, x, it);
  tfc_endpoint rest = tfc_grad_binary(c, "Sub", "sub", tfc_grad_binary(c, "Sub", "sub", sx, size), begin);
  tfc_endpoint after = tfc_grad_reshape(c, rest, shape);
  tfc_endpoint ci[3] = {before, after, tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 1, NULL)};
  tfc_endpoint pads = {tfc_grad_node(c, "ConcatV2", "concat", ci, 3, 0, 2, NULL, 0, NULL), 0};
  c->dx[0] = tfc_grad_binary(c, "Pad", NULL, c->dy[0], pads);
  return c->s->code;
}

static int strided_slice_grad(tfc_grad_ctx *c) {
  tfc_endpoint begin = tfc_grad_in(c, 1);
  tfc_endpoint x = tfc_grad_shape_opt(c, tfc_grad_in(c, 0), tfc_grad_dtype(begin));
  static const char *const masks[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                       "shrink_axis_mask"};
  tfc_grad_attr a[5];
  for (int i = 0; i < 5; i++) {
    int64_t v = 0;
    tfc_node_attr_int(c->op, masks[i], &v);
    a[i] = TFC_GRAD_ATTR_INT(masks[i], v);
  }
  tfc_endpoint ins[5] = {x, begin, tfc_grad_in(c, 2), tfc_grad_in(c, 3), c->dy[0]};
  c->dx[0] = tfc_grad_op(c, "StridedSliceGrad", NULL, ins, 5, a, 5);
  return c->s->code;
}

/* MirrorPad: MirrorPadGrad(dy, paddings, mode) folds the mirrored edges back; and back. */
static int mirror_pad_grad(tfc_grad_ctx *c) {
  const tfc_attr_value *mode = tfc_node_attr(c->op, "mode");
  tfc_grad_attr a[1] = {{"mode", {0}}};
  const char *m = mode && mode->kind == TFC_ATTR_STRING ? mode->u.s.data : "REFLECT";
  if (tfc_attr_string(m, strlen(m), &a[0].v, c->s)) return c->s->code;
  tfc_endpoint ins[2] = {c->dy[0], tfc_grad_in(c, 1)};
  c->dx[0] = tfc_grad_op(c, strcmp(c->op->op->name, "MirrorPad") == 0 ? "MirrorPadGrad" : "MirrorPad", NULL, ins, 2,
                         a, 1);
  return c->s->code;
}

/* Pad, PadV2: the gradient is the window Slice(dy, paddings[:, 0], Shape(x)). */
static int pad_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), a = tfc_grad_in(c, 1);
  int it = tfc_grad_dtype(a);
  tfc_endpoint rank = tfc_grad_rank_opt(c, x);
  if (it != TFC_DT_INT32) rank = tfc_grad_cast(c, rank, it);
  tfc_endpoint one = tfc_grad_const_scalar(c, "stack/1", it, 1, NULL);
  tfc_endpoint size = pack2(c, "stack", rank, one);
  int64_t zz[2] = {0, 0}, m1 = -1;
  tfc_endpoint si[3] = {a, tfc_grad_const_vec(c, "Slice/begin", it, zz, 2), size};
  tfc_endpoint before = tfc_grad_op(c, "Slice", NULL, si, 3, NULL, 0);
  tfc_endpoint begin = tfc_grad_reshape(c, before, tfc_grad_const_ivec(c, "Reshape/shape", &m1, 1));
  tfc_endpoint sizes = tfc_grad_shape_opt(c, x, it);
  tfc_endpoint gi[3] = {c->dy[0], begin, sizes};
  c->dx[0] = tfc_grad_op(c, "Slice", NULL, gi, 3, NULL, 0);
  return c->s->code;
}

/* ---- gathers ---- */

/* Python's _IndexedSlicesToTensor: UnsortedSegmentSum(values, indices, dense_shape[0]). */
static tfc_endpoint densify(tfc_grad_ctx *c, tfc_endpoint values, tfc_endpoint indices, tfc_endpoint dense_shape) {
  int64_t z = 0, one = 1;
  tfc_endpoint n = tfc_grad_vec_slice(c, dense_shape, tfc_grad_const_ivec(c, "strided_slice/stack", &z, 1),
                                      tfc_grad_const_ivec(c, "strided_slice/stack_1", &one, 1), 0, 0, 1);
  tfc_endpoint ins[3] = {values, indices, n};
  return tfc_grad_op(c, "UnsortedSegmentSum", NULL, ins, 3, NULL, 0);
}

/* Gather along axis 0: values = Reshape(dy, [size(indices)] + params_shape[1:]). */
static tfc_endpoint gather_axis0(tfc_grad_ctx *c, tfc_endpoint params_shape) {
  tfc_endpoint indices = tfc_grad_in(c, 1);
  tfc_endpoint size = tfc_grad_size_opt(c, indices);
  tfc_endpoint isize = tfc_grad_binary(c, "ExpandDims", NULL, size,
                                       tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL));
  int64_t z = 0, one = 1;
  tfc_endpoint tail = tfc_grad_vec_slice(c, params_shape, tfc_grad_const_ivec(c, "strided_slice/stack", &one, 1),
                                         tfc_grad_const_ivec(c, "strided_slice/stack_1", &z, 1), 0, 1, 0);
  tfc_endpoint ci[3] = {isize, tail, tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint vshape = {tfc_grad_node(c, "ConcatV2", "concat", ci, 3, 0, 2, NULL, 0, NULL), 0};
  tfc_endpoint values = tfc_grad_reshape(c, c->dy[0], vshape);
  tfc_endpoint flat = tfc_grad_reshape(c, indices, isize);
  return densify(c, values, flat, params_shape);
}

static int gather_grad(tfc_grad_ctx *c) {
  tfc_endpoint ps = tfc_grad_shape_opt(c, tfc_grad_in(c, 0), TFC_DT_INT32);
  c->dx[0] = gather_axis0(c, ps);
  return c->s->code;
}

/*
 * GatherV2 with batch_dims 0. Axis 0 (a Const) is Gather's case; any other axis moves the
 * gathered dim to the front, sums segments there and moves it back (Python's transposes).
 */
static int gather_v2_grad(tfc_grad_ctx *c) {
  int64_t bd = 0;
  tfc_node_attr_int(c->op, "batch_dims", &bd);
  if (bd != 0)
    return tfc_status_set(c->s, TFC_UNIMPLEMENTED,
                          "gradient of GatherV2 with batch_dims = %lld: only batch_dims = 0 is supported",
                          (long long)bd);
  tfc_endpoint params = tfc_grad_in(c, 0), indices = tfc_grad_in(c, 1), axis = tfc_grad_in(c, 2);
  tfc_endpoint ps = tfc_grad_cast(c, tfc_grad_shape_opt(c, params, TFC_DT_INT64), TFC_DT_INT32);
  int64_t av[1];
  int n_av = 0;
  if (tfc_grad_const_ints(c, 2, av, 1, &n_av) && n_av == 1 && av[0] == 0) {
    c->dx[0] = gather_axis0(c, ps);
    return c->s->code;
  }
  tfc_endpoint isize = tfc_grad_binary(c, "ExpandDims", NULL, tfc_grad_size_opt(c, indices),
                                       tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL));
  if (tfc_grad_dtype(axis) != TFC_DT_INT32) axis = tfc_grad_cast(c, axis, TFC_DT_INT32);
  int64_t z = 0, one = 1, m1 = -1;
  tfc_endpoint axis1 = tfc_grad_binary(c, "ExpandDims", NULL, axis,
                                       tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL));
  /* outer = ps[:axis], inner = ps[axis:][1:] */
  tfc_endpoint outer = tfc_grad_vec_slice(c, ps, tfc_grad_const_ivec(c, "strided_slice/stack", &z, 1), axis1, 1, 0, 0);
  tfc_endpoint from_axis = tfc_grad_vec_slice(c, ps, axis1, tfc_grad_const_ivec(c, "strided_slice/stack_1", &z, 1), 0, 1, 0);
  tfc_endpoint inner = tfc_grad_vec_slice(c, from_axis, tfc_grad_const_ivec(c, "strided_slice/stack", &one, 1),
                                          tfc_grad_const_ivec(c, "strided_slice/stack_1", &z, 1), 0, 1, 0);
  tfc_endpoint vi[4] = {outer, tfc_grad_const_ivec(c, "concat/values_1", &m1, 1), inner,
                        tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint vshape = {tfc_grad_node(c, "ConcatV2", "concat", vi, 4, 0, 3, NULL, 0, NULL), 0};
  tfc_endpoint vdims = tfc_grad_unary(c, "Size", NULL, vshape);
  tfc_endpoint adims = tfc_grad_unary(c, "Size", NULL, outer);
  tfc_endpoint zero = tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL);
  tfc_endpoint step = tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 1, NULL);
  tfc_endpoint r1[3] = {zero, adims, step};
  tfc_endpoint batch_axis = tfc_grad_op(c, "Range", "range", r1, 3, NULL, 0);
  tfc_endpoint a1 = tfc_grad_binary(c, "AddV2", "add", adims, tfc_grad_const_scalar(c, "add/y", TFC_DT_INT32, 1, NULL));
  tfc_endpoint r2[3] = {a1, vdims, step};
  tfc_endpoint inner_axes = tfc_grad_op(c, "Range", "range", r2, 3, NULL, 0);
  tfc_endpoint values = tfc_grad_reshape(c, c->dy[0], vshape);
  tfc_endpoint ad1 = tfc_grad_binary(c, "ExpandDims", NULL, adims,
                                     tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL));
  tfc_endpoint ti[4] = {ad1, batch_axis, inner_axes, tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint tdims = {tfc_grad_node(c, "ConcatV2", "concat", ti, 4, 0, 3, NULL, 0, NULL), 0};
  tfc_endpoint vt = tfc_grad_binary(c, "Transpose", "transpose", values, tdims);
  tfc_endpoint n = tfc_grad_vec_slice(c, ps, axis1,
                                      tfc_grad_binary(c, "AddV2", "add", axis1,
                                                      tfc_grad_const_ivec(c, "add/y", &one, 1)),
                                      0, 0, 1);
  tfc_endpoint si[3] = {vt, tfc_grad_reshape(c, indices, isize), n};
  tfc_endpoint pg = tfc_grad_op(c, "UnsortedSegmentSum", NULL, si, 3, NULL, 0);
  tfc_endpoint b1 = tfc_grad_binary(c, "AddV2", "add", batch_axis, tfc_grad_const_scalar(c, "add/y", TFC_DT_INT32, 1, NULL));
  tfc_endpoint ii[4] = {b1, tfc_grad_const_ivec(c, "concat/values_1", &z, 1), inner_axes,
                        tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint inv = {tfc_grad_node(c, "ConcatV2", "concat", ii, 4, 0, 3, NULL, 0, NULL), 0};
  c->dx[0] = tfc_grad_binary(c, "Transpose", "transpose", pg, inv);
  return c->s->code;
}

/* UnsortedSegmentSum: gather the gradient back; negative ids (dropped) get zeros
 * (Python's _GatherDropNegatives). */
static int unsorted_segment_sum_grad(tfc_grad_ctx *c) {
  tfc_endpoint ids = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_endpoint zc = tfc_grad_binary(c, "Maximum", NULL, ids, tfc_grad_unary(c, "ZerosLike", "zeros_like", ids));
  tfc_endpoint gi[3] = {g, zc, tfc_grad_const_scalar(c, "GatherV2/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint gathered = tfc_grad_op(c, "GatherV2", NULL, gi, 3, NULL, 0);
  tfc_endpoint pos = tfc_grad_binary(c, "GreaterEqual", NULL, ids,
                                     tfc_grad_const_scalar(c, "GreaterEqual/y", tfc_grad_dtype(ids), 0, NULL));
  /* is_positive reshaped to [ids.shape, 1, ..., 1] so it broadcasts over the slices. */
  tfc_endpoint sp = tfc_grad_shape(c, pos);
  tfc_endpoint extra = tfc_grad_binary(c, "Sub", "sub", tfc_grad_unary(c, "Rank", NULL, gathered),
                                       tfc_grad_unary(c, "Rank", NULL, pos));
  tfc_endpoint ones = tfc_grad_binary(c, "Fill", "ones",
                                      tfc_grad_binary(c, "ExpandDims", NULL, extra,
                                                      tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL)),
                                      tfc_grad_const_scalar(c, "ones/Const", TFC_DT_INT32, 1, NULL));
  tfc_endpoint ci[3] = {sp, ones, tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
  tfc_endpoint bshape = {tfc_grad_node(c, "ConcatV2", "concat", ci, 3, 0, 2, NULL, 0, NULL), 0};
  tfc_endpoint cond = tfc_grad_reshape(c, pos, bshape);
  tfc_endpoint si[3] = {cond, gathered, tfc_grad_unary(c, "ZerosLike", "zeros_like", gathered)};
  c->dx[0] = tfc_grad_op(c, "SelectV2", NULL, si, 3, NULL, 0);
  return c->s->code;
}

/* DynamicStitch, ParallelDynamicStitch (TF's _DynamicStitchGrads): data[i] gets the gradient
 * gathered at indices[i] (a duplicate that lost still gets its row, as in TF); the indices get
 * none. */
static int dynamic_stitch_grad(tfc_grad_ctx *c) {
  int n = c->op->n_inputs / 2;
  for (int i = 0; i < n; i++) {
    tfc_endpoint gi[3] = {c->dy[0], tfc_grad_in(c, i), tfc_grad_const_scalar(c, "GatherV2/axis", TFC_DT_INT32, 0, NULL)};
    c->dx[n + i] = tfc_grad_op(c, "GatherV2", NULL, gi, 3, NULL, 0);
  }
  return c->s->code;
}

/* DynamicPartition (TF's _DynamicPartitionGrads): the positions of data's rows partitioned the
 * same way (Range over the partitions' shape, Reshape, DynamicPartition) stitch the incoming
 * gradients back (ParallelDynamicStitch), reshaped to data's shape; the partitions get none. */
static int dynamic_partition_grad(tfc_grad_ctx *c) {
  int64_t np = 0;
  tfc_node_attr_int(c->op, "num_partitions", &np);
  if (np < 1 || np > 1 << 20) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "bad num_partitions %lld",
                                                    (long long)np);
  tfc_endpoint data = tfc_grad_in(c, 0), parts = tfc_grad_in(c, 1);
  tfc_endpoint prefix = tfc_grad_shape_opt(c, parts, TFC_DT_INT32);
  tfc_endpoint n = tfc_grad_binary(c, "Prod", NULL, prefix, tfc_grad_const_ivec(c, "Const", (int64_t[]){0}, 1));
  tfc_endpoint rng[3] = {tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL), n,
                         tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 1, NULL)};
  tfc_endpoint original = tfc_grad_reshape(c, tfc_grad_op(c, "Range", "range", rng, 3, NULL, 0), prefix);
  tfc_endpoint pin[2] = {original, parts};
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_INT("num_partitions", np)};
  tfc_node *part = tfc_grad_node(c, "DynamicPartition", NULL, pin, 2, -1, 0, a, 1, NULL);
  if (!part) return c->s->code;
  tfc_endpoint *ins = calloc((size_t)(2 * np), sizeof *ins);
  if (!ins) return TFC_OOM(c->s);
  for (int64_t i = 0; i < np; i++) {
    ins[i] = (tfc_endpoint){part, (int)i};
    ins[np + i] = c->dy[i];
  }
  tfc_endpoint stitched = tfc_grad_op_lists(c, "ParallelDynamicStitch", NULL, ins, 2, (int)np);
  free(ins);
  if (c->s->code) return c->s->code;
  c->dx[0] = tfc_grad_reshape(c, stitched, tfc_grad_shape_opt(c, data, TFC_DT_INT32));
  return c->s->code;
}

const tfc_grad_entry tfc_grad_array_entries[] = {
    {"Identity", pass_grad}, {"Snapshot", pass_grad}, {"PlaceholderWithDefault", pass_grad},
    {"Reshape", reshape_to_input_grad}, {"ExpandDims", reshape_to_input_grad},
    {"Squeeze", reshape_to_input_grad}, {"Transpose", transpose_grad},
    {"ConcatV2", concat_v2_grad}, {"Concat", concat_grad}, {"Split", split_grad}, {"SplitV", split_v_grad},
    {"Pack", pack_grad}, {"Unpack", unpack_grad}, {"Tile", tile_grad}, {"BroadcastTo", broadcast_to_grad},
    {"Fill", fill_grad}, {"PreventGradient", prevent_gradient_grad},
    {"Slice", slice_grad}, {"StridedSlice", strided_slice_grad}, {"Pad", pad_grad}, {"PadV2", pad_grad},
    {"MirrorPad", mirror_pad_grad}, {"MirrorPadGrad", mirror_pad_grad},
    {"GatherV2", gather_v2_grad}, {"Gather", gather_grad}, {"UnsortedSegmentSum", unsorted_segment_sum_grad},
    {"DynamicStitch", dynamic_stitch_grad}, {"ParallelDynamicStitch", dynamic_stitch_grad},
    {"DynamicPartition", dynamic_partition_grad},
    {"ReverseV2", reverse_v2_grad}, {"ReverseSequence", reverse_sequence_grad},
    /* Not differentiable, as in TF. */
    {"StopGradient", NULL}, {"Shape", NULL}, {"ShapeN", NULL}, {"Size", NULL}, {"Rank", NULL},
    {"ZerosLike", NULL}, {"OnesLike", NULL}, {"BroadcastGradientArgs", NULL}, {"Const", NULL},
    {"Range", NULL}, {"InvertPermutation", NULL}, {"ConcatOffset", NULL}, {"OneHot", NULL},
    {NULL, NULL}};
