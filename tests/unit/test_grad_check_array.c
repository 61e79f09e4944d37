/*
 * test_grad_check_array — finite-difference checks (float64) of the array family's gradients:
 * reshapes, Transpose (constant and computed permutations), ConcatV2/Concat (ConcatOffset
 * and, past 16 inputs, SplitV), Split, Pack/Unpack, Tile, BroadcastTo, Slice, StridedSlice
 * with each mask, GatherV2 on several axes (constant and fed) and Gather, DynamicPartition,
 * Pad/PadV2 and UnsortedSegmentSum, ReverseV2 and ReverseSequence. Each builds y from
 * x through the op and a Square (so the gradient depends on the values), then checks every
 * element against central differences.
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

static TF_Output sq(TF_Graph *g, TF_Output t) { return gc_op1(g, "Square", t); }

static TF_Output build_reshapes(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output r = gc_op2(g, "Reshape", x[0], gc_ivec(g, "shape", (int64_t[]){3, 2, 1}, 3));
  TF_Output e = gc_op2(g, "ExpandDims", sq(g, r), gc_const(g, "d", TF_INT32, NULL, 0, (double[]){0}));
  return gc_op1(g, "Squeeze", e);
}
static TF_Output build_transpose(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return sq(g, gc_op2(g, "Transpose", x[0], gc_ivec(g, "perm", (int64_t[]){2, 0, 1}, 3)));
}
static TF_Output build_concat_split(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "ConcatV2", "cat");
  TF_AddInputList(d, x, 2);
  TF_AddInput(d, gc_const(g, "axis", TF_INT32, NULL, 0, (double[]){1}));
  TF_Output c = {gc_finish(d), 0};
  d = TF_NewOperation(g, "Split", "split");
  TF_AddInput(d, gc_const(g, "sdim", TF_INT32, NULL, 0, (double[]){1}));
  TF_AddInput(d, sq(g, c));
  TF_SetAttrInt(d, "num_split", 5);
  TF_Operation *sp = gc_finish(d);
  /* Outputs 0 and 3 only: the walk fills the others with zeros. */
  return gc_op2(g, "Mul", (TF_Output){sp, 0}, (TF_Output){sp, 3});
}
static TF_Output build_pack_unpack(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "Pack", "pack");
  TF_AddInputList(d, x, 2);
  TF_SetAttrInt(d, "axis", 1);
  TF_Output p = {gc_finish(d), 0};
  d = TF_NewOperation(g, "Unpack", "unpack");
  TF_AddInput(d, sq(g, p));
  TF_SetAttrInt(d, "num", 3);
  TF_Operation *u = gc_finish(d);
  return gc_op2(g, "Mul", (TF_Output){u, 0}, (TF_Output){u, 2});
}
static TF_Output build_tile(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return sq(g, gc_op2(g, "Tile", x[0], gc_ivec(g, "mult", (int64_t[]){2, 1, 3}, 3)));
}
static TF_Output build_broadcast_to(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return sq(g, gc_op2(g, "BroadcastTo", x[0], gc_ivec(g, "to", (int64_t[]){2, 3, 4}, 3)));
}

static void grad_reshape_expand_squeeze(void) {
  gc_input in = IN(-2, 2, 2, 2, 3);
  gc_check("Reshape/ExpandDims/Squeeze", build_reshapes, NULL, &in, 1);
}
static void grad_transpose_const_perm(void) {
  gc_input in = IN(-2, 2, 3, 2, 3, 4);
  gc_check("Transpose", build_transpose, NULL, &in, 1);
}
static void grad_concat_then_split(void) {
  gc_input in[2] = {IN(-2, 2, 2, 2, 2), IN(-2, 2, 2, 2, 3)};
  gc_check("ConcatV2/Split", build_concat_split, NULL, in, 2);
}
static void grad_pack_then_unpack(void) {
  gc_input in[2] = {IN(-2, 2, 2, 3, 2), IN(-2, 2, 2, 3, 2)};
  gc_check("Pack/Unpack", build_pack_unpack, NULL, in, 2);
}
static void grad_tile(void) {
  gc_input in = IN(-2, 2, 3, 2, 2, 1);
  gc_check("Tile", build_tile, NULL, &in, 1);
}
static void grad_broadcast_to(void) {
  gc_input in = IN(-2, 2, 2, 3, 1);
  gc_check("BroadcastTo", build_broadcast_to, NULL, &in, 1);
}

/* ---- windows, gathers, computed permutations, padding, segment sums ---- */

static TF_Output build_slice(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output ins[3] = {x[0], gc_ivec(g, "begin", (int64_t[]){1, 0, 2}, 3), gc_ivec(g, "size", (int64_t[]){1, -1, 2}, 3)};
  return sq(g, gc_op(g, "Slice", "slice", ins, 3));
}

typedef struct {
  int64_t b[3], e[3], s[3];
  int n;
  int begin_mask, end_mask, shrink, new_axis, ellipsis;
} ss_arg;

static TF_Output build_strided_slice(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  ss_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, "StridedSlice", "ss");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, gc_ivec(g, "b", a->b, a->n));
  TF_AddInput(d, gc_ivec(g, "e", a->e, a->n));
  TF_AddInput(d, gc_ivec(g, "s", a->s, a->n));
  TF_SetAttrInt(d, "begin_mask", a->begin_mask);
  TF_SetAttrInt(d, "end_mask", a->end_mask);
  TF_SetAttrInt(d, "shrink_axis_mask", a->shrink);
  TF_SetAttrInt(d, "new_axis_mask", a->new_axis);
  TF_SetAttrInt(d, "ellipsis_mask", a->ellipsis);
  return sq(g, (TF_Output){gc_finish(d), 0});
}

typedef struct {
  int axis;         /* the GatherV2 axis; 99 = v1 Gather */
  int fed_axis;     /* 1: axis through PlaceholderWithDefault (not a Const) */
} gather_arg;

static TF_Output build_gather(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  gather_arg *a = arg;
  /* indices [2, 2] with a repeat so segments sum */
  double iv[4] = {2, 0, 2, 1};
  int64_t id[2] = {2, 2};
  TF_Output idx = gc_const(g, "idx", TF_INT32, id, 2, iv);
  if (a->axis == 99) return sq(g, gc_op2(g, "Gather", x[0], idx));
  double av = a->axis;
  TF_Output axis = gc_const(g, "axis", TF_INT64, NULL, 0, &av);
  if (a->fed_axis) {
    TF_OperationDescription *d = TF_NewOperation(g, "PlaceholderWithDefault", "axis_fed");
    TF_AddInput(d, axis);
    TF_SetAttrType(d, "dtype", TF_INT64);
    TF_SetAttrShape(d, "shape", NULL, 0);
    axis = (TF_Output){gc_finish(d), 0};
  }
  TF_Output ins[3] = {x[0], idx, axis};
  return sq(g, gc_op(g, "GatherV2", NULL, ins, 3));
}

/* Transpose whose permutation is computed at run time (Reverse of a range via Sub). */
static TF_Output build_transpose_computed(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output two = gc_ivec(g, "two", (int64_t[]){2, 2, 2}, 3);
  TF_Output perm = gc_op2(g, "Sub", two, gc_ivec(g, "p", (int64_t[]){1, 2, 0}, 3)); /* [1, 0, 2] */
  return sq(g, gc_op2(g, "Transpose", x[0], perm));
}

static TF_Output build_pad(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  double pv[4] = {1, 0, 2, 1};
  int64_t pd[2] = {2, 2};
  TF_Output pads = gc_const(g, "pads", *(int *)arg == 2 ? TF_INT64 : TF_INT32, pd, 2, pv);
  if (*(int *)arg == 1) {
    double c = 0.5;
    TF_Output ins[3] = {x[0], pads, gc_const(g, "cv", TF_DOUBLE, NULL, 0, &c)};
    return sq(g, gc_op(g, "PadV2", NULL, ins, 3));
  }
  return sq(g, gc_op2(g, "Pad", x[0], pads));
}

static TF_Output build_segment_sum(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  double iv[3] = {2, -1, 0};
  int64_t n = 3;
  double ns = 3;
  TF_Output ins[3] = {x[0], gc_const(g, "ids", TF_INT32, &n, 1, iv), gc_const(g, "n", TF_INT32, NULL, 0, &ns)};
  return sq(g, gc_op(g, "UnsortedSegmentSum", NULL, ins, 3));
}

/* Many inputs (ConcatOffset path up to 16, SplitV beyond) with unknown shapes (ShapeN). */
static TF_Output build_concat_many(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  int n = *(int *)arg;
  TF_Output ins[20];
  for (int i = 0; i < n; i++) ins[i] = gc_op1(g, "Identity", x[i % 2]);
  /* One input of unknown shape: the sizes come from one ShapeN. */
  TF_OperationDescription *p = TF_NewOperation(g, "PlaceholderWithDefault", "unknown");
  TF_AddInput(p, x[0]);
  TF_SetAttrType(p, "dtype", TF_DOUBLE);
  TF_SetAttrShape(p, "shape", NULL, -1);
  ins[0] = (TF_Output){gc_finish(p), 0};
  TF_OperationDescription *d = TF_NewOperation(g, "ConcatV2", "catn");
  TF_AddInputList(d, ins, n);
  TF_AddInput(d, gc_const(g, "axis", TF_INT32, NULL, 0, (double[]){-1}));
  return sq(g, (TF_Output){gc_finish(d), 0});
}

static TF_Output build_concat_v1(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "Concat", "cat1");
  TF_AddInput(d, gc_const(g, "axis", TF_INT32, NULL, 0, (double[]){0}));
  TF_AddInputList(d, x, 2);
  return sq(g, (TF_Output){gc_finish(d), 0});
}

static void grad_slice(void) {
  gc_input in = IN(-2, 2, 3, 3, 2, 4);
  gc_check("Slice", build_slice, NULL, &in, 1);
}

static void grad_strided_slice_masks(void) {
  ss_arg args[] = {
      {{0, 1, 0}, {2, 3, 4}, {1, 1, 2}, 3, 0, 0, 0, 0, 0},      /* plain window with a stride */
      {{2, 0, 3}, {0, 0, 0}, {-1, 1, -2}, 3, 0, 6, 0, 0, 0},    /* negative strides, end masks */
      {{1, 0, 0}, {2, 0, 0}, {1, 1, 1}, 3, 0, 0, 1, 0, 2},      /* shrink dim 0, ellipsis */
      {{0, 0, 1}, {0, 0, 3}, {1, 1, 1}, 3, 1, 1, 0, 2, 0},      /* new axis */
  };
  gc_input in = IN(-2, 2, 3, 3, 4, 4);
  for (int i = 0; i < 4; i++) gc_check("StridedSlice", build_strided_slice, &args[i], &in, 1);
}

static void grad_gather_axes(void) {
  gc_input in = IN(-2, 2, 3, 3, 3, 2);
  gather_arg args[] = {{0, 0}, {1, 0}, {-1, 0}, {99, 0}, {0, 1}, {2, 1}};
  for (int i = 0; i < 6; i++) {
    /* axis 2 has size 2: use index-safe params of shape [3, 3, 3] there */
    gc_input p = args[i].axis == 2 || args[i].axis == -1 ? IN(-2, 2, 3, 2, 2, 3) : in;
    gc_check("GatherV2", build_gather, &args[i], &p, 1);
  }
}

static void grad_transpose_computed_perm(void) {
  gc_input in = IN(-2, 2, 3, 2, 3, 4);
  gc_check("Transpose computed", build_transpose_computed, NULL, &in, 1);
}

static void grad_pad_and_pad_v2(void) {
  gc_input in = IN(-2, 2, 2, 2, 3);
  int kinds[3] = {0, 1, 2};
  for (int i = 0; i < 3; i++) gc_check("Pad", build_pad, &kinds[i], &in, 1);
}

static TF_Output build_mirror_pad(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  double pv[4] = {1, 2, 2, 1};
  int64_t pd[2] = {2, 2};
  TF_Output pads = gc_const(g, "pads", TF_INT32, pd, 2, pv);
  TF_OperationDescription *d = TF_NewOperation(g, "MirrorPad", "mirror");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, pads);
  const char *mode = arg;
  TF_SetAttrString(d, "mode", mode, strlen(mode));
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return sq(g, (TF_Output){op, 0});
}

/* Mirrored edges collect their gradient twice (MirrorPadGrad). */
static void grad_mirror_pad(void) {
  gc_input in = IN(-2, 2, 2, 3, 4);
  gc_check("MirrorPad REFLECT", build_mirror_pad, (void *)"REFLECT", &in, 1);
  gc_check("MirrorPad SYMMETRIC", build_mirror_pad, (void *)"SYMMETRIC", &in, 1);
}

static void grad_unsorted_segment_sum(void) {
  gc_input in = IN(-2, 2, 2, 3, 2);
  gc_check("UnsortedSegmentSum", build_segment_sum, NULL, &in, 1);
}

static void grad_concat_offset_and_many_inputs(void) {
  gc_input in[2] = {{.ndims = 2, .dims = {2, 1}, .lo = -2, .hi = 2}, {.ndims = 2, .dims = {2, 2}, .lo = -2, .hi = 2}};
  int few = 3, many = 18;
  gc_check("ConcatV2 x3", build_concat_many, &few, in, 2);
  gc_check("ConcatV2 x18", build_concat_many, &many, in, 2);
  gc_input v1[2] = {IN(-2, 2, 2, 1, 3), IN(-2, 2, 2, 2, 3)};
  gc_check("Concat", build_concat_v1, NULL, v1, 2);
}

/* y = Square(DynamicStitch([idx0, idx1], [x0, x1])) with rows of 2 and a gap row (index 2). */
static TF_Output build_stitch(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output idx[2] = {gc_const(g, "idx0", TF_INT32, (int64_t[]){3}, 1, (double[]){0, 5, 3}),
                      gc_const(g, "idx1", TF_INT32, (int64_t[]){2, 1}, 2, (double[]){4, 1})};
  TF_OperationDescription *d = TF_NewOperation(g, (const char *)arg, "stitch");
  TF_AddInputList(d, idx, 2);
  TF_AddInputList(d, x, 2);
  return sq(g, (TF_Output){gc_finish(d), 0});
}
/* y = Square(ReverseV2(x, [0, -1])) and Square(ReverseSequence(x, [3, 1], seq 1, batch 0)):
 * each input element lands in exactly one mirrored place. */
static TF_Output build_reverse_v2(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return sq(g, gc_op2(g, "ReverseV2", x[0], gc_ivec(g, "axis", (int64_t[]){0, -1}, 2)));
}
static TF_Output build_reverse_sequence(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "ReverseSequence", "rs");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, gc_const(g, "lens", TF_INT64, (int64_t[]){2}, 1, (double[]){3, 1}));
  TF_SetAttrInt(d, "seq_dim", 1);
  TF_SetAttrInt(d, "batch_dim", 0);
  return sq(g, (TF_Output){gc_finish(d), 0});
}
static void grad_reverse_v2_and_reverse_sequence(void) {
  gc_input in = IN(-2, 2, 3, 2, 3, 2);
  gc_check("ReverseV2", build_reverse_v2, NULL, &in, 1);
  gc_check("ReverseSequence", build_reverse_sequence, NULL, &in, 1);
}

static void grad_dynamic_stitch(void) {
  gc_input in[2] = {IN(-2, 2, 2, 3, 2), IN(-2, 2, 3, 2, 1, 2)};
  gc_check("DynamicStitch", build_stitch, (void *)"DynamicStitch", in, 2);
  gc_check("ParallelDynamicStitch", build_stitch, (void *)"ParallelDynamicStitch", in, 2);
}

/* DynamicPartition of x's rows by const partitions [0, 1, 0, 2, 1], its three outputs joined
 * again by ConcatV2 (in another order than x's), squared. */
static TF_Output build_dynamic_partition(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  (void)arg;
  double pv[5] = {0, 1, 0, 2, 1};
  int64_t pd[1] = {5};
  TF_Output parts = gc_const(g, "parts", TF_INT32, pd, 1, pv);
  TF_OperationDescription *d = TF_NewOperation(g, "DynamicPartition", "dp");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, parts);
  TF_SetAttrInt(d, "num_partitions", 3);
  TF_Operation *dp = gc_finish(d);
  double zero = 0;
  TF_Output axis = gc_const(g, "cat_axis", TF_INT32, NULL, 0, &zero);
  TF_OperationDescription *c = TF_NewOperation(g, "ConcatV2", "cat");
  TF_Output list[3] = {{dp, 2}, {dp, 0}, {dp, 1}};
  TF_AddInputList(c, list, 3);
  TF_AddInput(c, axis);
  return sq(g, (TF_Output){gc_finish(c), 0});
}

static void grad_dynamic_partition(void) {
  gc_input in = IN(-1, 1, 2, 5, 2);
  gc_check("DynamicPartition", build_dynamic_partition, NULL, &in, 1);
}

static const tfc_test tests[] = {
    TFC_TEST(grad_dynamic_partition),
    TFC_TEST(grad_reshape_expand_squeeze), TFC_TEST(grad_transpose_const_perm),
    TFC_TEST(grad_concat_then_split),      TFC_TEST(grad_pack_then_unpack),
    TFC_TEST(grad_tile),                   TFC_TEST(grad_broadcast_to),
    TFC_TEST(grad_slice),                  TFC_TEST(grad_strided_slice_masks),
    TFC_TEST(grad_gather_axes),            TFC_TEST(grad_transpose_computed_perm),
    TFC_TEST(grad_pad_and_pad_v2),         TFC_TEST(grad_mirror_pad),
    TFC_TEST(grad_unsorted_segment_sum),
    TFC_TEST(grad_concat_offset_and_many_inputs),
    TFC_TEST(grad_dynamic_stitch),
    TFC_TEST(grad_reverse_v2_and_reverse_sequence),
    {0}};
TFC_TEST_MAIN(tests)
