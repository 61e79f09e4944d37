/*
 * GPU array kernel tests, second group: each kernel of kernels_pad_gpu.c (SelectV2,
 * BroadcastTo, Pad, PadV2, MirrorPad, MirrorPadGrad, StridedSliceGrad, UnsortedSegmentSum,
 * Cumsum, Cumprod) and Concat (kernels_array_gpu.c) against its CPU kernel on the same inputs
 * (gpu_compare.h). Copies must match bit for bit; sums within a tolerance per type (the GPU
 * adds in another order). Shapes are odd, axes negative, and each op meets an empty tensor,
 * a scalar where it takes one, every mode and broadcasting; bad input must fail on both
 * devices with the CPU kernel's code and text (the bad argument is fed, so no shape function
 * sees it before the kernel).
 *
 * UnsortedSegmentSum's out-of-range ids are where the devices differ by design: the GPU drops
 * them (TF's GPU kernel), which is checked against the CPU given the same ids with the bad
 * ones replaced by -1 (dropped on both).
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

/* A fed int32 tensor of the given shape and values (bad arguments, segment ids). */
static gc_arg fed_ints(const int32_t *v, int nd, const int64_t *dims) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, nd, sizeof(int32_t) * (size_t)n);
  if (n) memcpy(TF_TensorData(t), v, sizeof(int32_t) * (size_t)n);
  return GC_FED(t);
}

/* A half copy of a float value is off by at most 2^-11 relative: the GPU copy of a "half" op
 * moves rounded values that the CPU copy (float) does not round. */
#define HALF_ROUNDING 1e-3

/* A CPU constant paddings matrix [rows, 2] of v (int64 when wide). */
static gc_arg paddings(const int32_t *v, int rows, int wide) {
  int64_t dims[2] = {rows, 2};
  TF_Tensor *t = TF_AllocateTensor(wide ? TF_INT64 : TF_INT32, dims, 2, (size_t)(2 * rows) * (wide ? 8 : 4));
  for (int i = 0; i < 2 * rows; i++) {
    if (wide) ((int64_t *)TF_TensorData(t))[i] = v[i];
    else ((int32_t *)TF_TensorData(t))[i] = v[i];
  }
  return GC_CONST(t);
}

/* The tolerance of a GPU sum against the CPU's (another order): half inputs are rounded. */
static double sum_tol(TF_DataType dt, int half) { return half ? 2e-2 : dt == TF_DOUBLE ? 1e-12 : 1e-5; }

/* ---- SelectV2 ---- */

static void select_v2_broadcasts_like_cpu(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
  /* {cond, then, else} shapes (rank, dims): every operand broadcast somewhere. */
  static const struct {
    int r[3];
    int64_t d[3][3];
    const char *label;
  } cases[] = {
      {{3, 3, 1}, {{7, 1, 13}, {1, 5, 13}, {13}}, "SelectV2 three-way broadcast"},
      {{0, 2, 2}, {{0}, {7, 13}, {7, 13}}, "SelectV2 scalar condition"},
      {{2, 0, 2}, {{7, 13}, {0}, {1, 13}}, "SelectV2 scalar then"},
      {{2, 2, 2}, {{9, 11}, {9, 11}, {9, 11}}, "SelectV2 same shapes"},
      {{2, 2, 1}, {{0, 13}, {1, 13}, {13}}, "SelectV2 empty condition"},
  };
  for (int t = 0; t < 5; t++) {
    int half = t == 4;
    TF_DataType dt = half ? TF_FLOAT : types[t];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      gc_arg a[3] = {gc_fed(TF_BOOL, cases[k].r[0], cases[k].d[0], 0, 1),
                     gc_fed(dt, cases[k].r[1], cases[k].d[1], -9, 9),
                     gc_fed(dt, cases[k].r[2], cases[k].d[2], -9, 9)};
      char label[96];
      snprintf(label, sizeof label, "%s (dtype %d%s)", cases[k].label, (int)dt, half ? " as half" : "");
      gc_check(&(gc_op){.type = "SelectV2", .half = half}, a, 3, half ? HALF_ROUNDING : 0, label);
      gc_free_args(a, 3);
    }
  }
  gc_arg bad[3] = {gc_fed(TF_BOOL, 2, (int64_t[]){2, 3}, 0, 1), gc_fed(TF_FLOAT, 1, (int64_t[]){4}, 0, 1),
                   gc_fed(TF_FLOAT, 2, (int64_t[]){2, 3}, 0, 1)};
  gc_check_error(&(gc_op){.type = "SelectV2"}, bad, 3, TF_INVALID_ARGUMENT,
                 "condition [2,3], then [4], and else [2,3] must be broadcastable", "SelectV2 not broadcastable");
  gc_free_args(bad, 3);
}

/* ---- Snapshot: a device copy, int32 included ---- */

static void snapshot_copies_like_cpu(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_INT32, TF_BOOL};
  static const int64_t dims[][2] = {{0, 3}, {1, 1}, {7, 1023}};
  for (int t = 0; t < 5; t++)
    for (int k = 0; k < 3; k++) {
      gc_arg a = gc_fed(types[t], 2, dims[k], -9, 9);
      char label[64];
      snprintf(label, sizeof label, "Snapshot dtype %d [%lld,%lld]", (int)types[t], (long long)dims[k][0],
               (long long)dims[k][1]);
      gc_check(&(gc_op){.type = "Snapshot"}, &a, 1, 0, label);
      gc_free_args(&a, 1);
    }
}

/* ---- BroadcastTo ---- */

static void broadcast_to_matches_cpu(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
  static const int32_t to4[] = {2, 3, 7, 5}, to2[] = {4, 3}, to_empty[] = {0, 3}, same[] = {3, 1, 5};
  for (int t = 0; t < 4; t++) {
    TF_DataType dt = types[t];
    gc_arg a[2] = {gc_fed(dt, 3, (int64_t[]){3, 1, 5}, -9, 9), gc_konst(to4, 4)};
    gc_check(&(gc_op){.type = "BroadcastTo"}, a, 2, 0, "BroadcastTo [3,1,5] to [2,3,7,5]");
    gc_free_args(a + 1, 1);
    a[1] = gc_konst(same, 3);
    gc_check(&(gc_op){.type = "BroadcastTo"}, a, 2, 0, "BroadcastTo to its own shape");
    gc_free_args(a, 2);
    a[0] = gc_fed(dt, 0, NULL, -9, 9);
    a[1] = gc_konst(to2, 2);
    gc_check(&(gc_op){.type = "BroadcastTo"}, a, 2, 0, "BroadcastTo scalar to [4,3]");
    gc_free_args(a, 2);
    a[0] = gc_fed(dt, 1, (int64_t[]){1}, -9, 9);
    a[1] = gc_konst(to_empty, 2);
    gc_check(&(gc_op){.type = "BroadcastTo"}, a, 2, 0, "BroadcastTo [1] to [0,3]");
    gc_free_args(a, 2);
  }
  static const int32_t bad_to[] = {2, 4}, neg[] = {-1, 3};
  gc_arg b[2] = {gc_fed(TF_FLOAT, 1, (int64_t[]){3}, 0, 1), fed_ints(bad_to, 1, (int64_t[]){2})};
  gc_check_error(&(gc_op){.type = "BroadcastTo"}, b, 2, TF_INVALID_ARGUMENT, "Incompatible shapes: [3] vs. [2,4]",
                 "BroadcastTo [3] to [2,4]");
  gc_free_args(b + 1, 1);
  b[1] = fed_ints(neg, 1, (int64_t[]){2});
  gc_check_error(&(gc_op){.type = "BroadcastTo"}, b, 2, TF_INVALID_ARGUMENT, "Dimension -1 must be >= 0",
                 "BroadcastTo to a negative dim");
  gc_free_args(b, 2);
}

/* ---- Pad, PadV2, MirrorPad, MirrorPadGrad ---- */

static void pads_match_cpu_in_every_mode(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
  static const int32_t pad3[] = {1, 2, 0, 3, 2, 0}, mir3[] = {1, 3, 0, 2, 4, 4}, pad_empty[] = {2, 1, 0, 0};
  /* Rank 10, three dims padded: merged to few launcher dims. */
  static const int32_t pad10[] = {0, 0, 1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0};
  const int64_t dims3[3] = {7, 5, 13};
  for (int t = 0; t < 4; t++) {
    TF_DataType dt = types[t];
    gc_arg a[3] = {gc_fed(dt, 3, dims3, -9, 9), paddings(pad3, 3, 1)};
    gc_check(&(gc_op){.type = "Pad"}, a, 2, 0, "Pad int64 paddings");
    gc_free_args(a + 1, 1);
    a[1] = paddings(pad3, 3, 0);
    gc_check(&(gc_op){.type = "Pad"}, a, 2, 0, "Pad");
    a[2] = gc_fed(dt, 0, NULL, -9, 9);
    gc_check(&(gc_op){.type = "PadV2"}, a, 3, 0, "PadV2 with a fed constant");
    gc_free_args(a, 3);
  }
  for (int t = 0; t < 3; t++) {
    int half = t == 2;
    TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
    gc_arg a[2] = {gc_fed(dt, 3, dims3, -9, 9), paddings(mir3, 3, 0)};
    /* SYMMETRIC allows padding up to the dim size (4 on dim 2 of 13; 3 on dim 0 of 7). */
    double tol = half ? HALF_ROUNDING : 0;
    gc_check(&(gc_op){.type = "MirrorPad", .half = half, .attrs = {GC_STR("mode", "REFLECT")}}, a, 2, tol,
             "MirrorPad REFLECT");
    gc_check(&(gc_op){.type = "MirrorPad", .half = half, .attrs = {GC_STR("mode", "SYMMETRIC")}}, a, 2, tol,
             "MirrorPad SYMMETRIC");
    gc_free_args(a, 1);
    /* The gradient of those pads: a gradient of the padded shape [11, 7, 21]. */
    a[0] = gc_fed(dt, 3, (int64_t[]){11, 7, 21}, -1, 1);
    gc_check(&(gc_op){.type = "MirrorPadGrad", .half = half, .attrs = {GC_STR("mode", "REFLECT")}}, a, 2,
             sum_tol(dt, half), "MirrorPadGrad REFLECT");
    gc_check(&(gc_op){.type = "MirrorPadGrad", .half = half, .attrs = {GC_STR("mode", "SYMMETRIC")}}, a, 2,
             sum_tol(dt, half), "MirrorPadGrad SYMMETRIC");
    gc_free_args(a, 2);
    /* A symmetric pad as wide as the dim on both sides: each element collects three times. */
    static const int32_t full[] = {3, 3};
    a[0] = gc_fed(dt, 1, (int64_t[]){9}, -1, 1);
    a[1] = paddings(full, 1, 0);
    gc_check(&(gc_op){.type = "MirrorPadGrad", .half = half, .attrs = {GC_STR("mode", "SYMMETRIC")}}, a, 2,
             sum_tol(dt, half), "MirrorPadGrad SYMMETRIC full width");
    gc_free_args(a, 2);
  }
  /* A scalar, an empty input padded with constants, and rank 10. */
  gc_arg s[2] = {gc_fed(TF_FLOAT, 0, NULL, -9, 9), paddings(NULL, 0, 0)};
  gc_check(&(gc_op){.type = "Pad"}, s, 2, 0, "Pad of a scalar");
  gc_free_args(s, 2);
  s[0] = gc_fed(TF_FLOAT, 2, (int64_t[]){0, 3}, -9, 9);
  s[1] = paddings(pad_empty, 2, 0);
  gc_check(&(gc_op){.type = "Pad"}, s, 2, 0, "Pad of an empty tensor");
  gc_free_args(s, 2);
  s[0] = gc_fed(TF_DOUBLE, 10, (int64_t[]){2, 3, 1, 2, 3, 1, 2, 2, 3, 2}, -9, 9);
  s[1] = paddings(pad10, 10, 0);
  gc_check(&(gc_op){.type = "Pad"}, s, 2, 0, "Pad of rank 10");
  gc_check(&(gc_op){.type = "MirrorPad", .attrs = {GC_STR("mode", "SYMMETRIC")}}, s, 2, 0, "MirrorPad of rank 10");
  gc_free_args(s, 2);
}

static void pads_refuse_bad_paddings_with_cpu_texts(void) {
  gc_need_gpu();
  static const int32_t neg[] = {0, 0, -1, 2}, wide[] = {0, 0, 5, 0}, ok[] = {1, 1, 0, 0};
  int64_t pd[2] = {2, 2};
  gc_arg a[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 5}, -1, 1), fed_ints(neg, 2, pd)};
  gc_check_error(&(gc_op){.type = "Pad"}, a, 2, TF_INVALID_ARGUMENT, "Paddings must be non-negative: -1 2",
                 "Pad negative");
  gc_check_error(&(gc_op){.type = "MirrorPad", .attrs = {GC_STR("mode", "REFLECT")}}, a, 2, TF_INVALID_ARGUMENT,
                 "paddings must be non-negative: -1 2", "MirrorPad negative");
  gc_free_args(a + 1, 1);
  a[1] = fed_ints(wide, 2, pd);
  gc_check_error(&(gc_op){.type = "MirrorPad", .attrs = {GC_STR("mode", "REFLECT")}}, a, 2, TF_INVALID_ARGUMENT,
                 "paddings must be less than the dimension size: 5, 0 not less than 5", "MirrorPad REFLECT too wide");
  gc_check_error(&(gc_op){.type = "MirrorPadGrad", .attrs = {GC_STR("mode", "REFLECT")}}, a, 2, TF_INVALID_ARGUMENT,
                 "paddings 5, 0 do not fit dimension 1 of size 5 for REFLECT mirror padding",
                 "MirrorPadGrad REFLECT too wide");
  gc_free_args(a + 1, 1);
  a[1] = fed_ints(ok, 1, (int64_t[]){4});
  gc_check_error(&(gc_op){.type = "Pad"}, a, 2, TF_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns: [4]",
                 "Pad paddings vector");
  gc_free_args(a + 1, 1);
  a[1] = fed_ints(ok, 2, pd);
  a[2] = gc_fed(TF_FLOAT, 1, (int64_t[]){2}, 0, 1);
  gc_check_error(&(gc_op){.type = "PadV2"}, a, 3, TF_INVALID_ARGUMENT, "constant_values must be a scalar. Found: [2]",
                 "PadV2 vector constant");
  gc_free_args(a, 3);
}

/* ---- StridedSliceGrad ---- */

static void strided_slice_grad_matches_cpu(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
  static const int32_t shape[] = {7, 5, 13}, sb[] = {6, 1, 0}, se[] = {0, 0, 7}, ss[] = {-2, 1, 3};
  static const int32_t nb[] = {0, 0}, ne[] = {0, 0}, ns[] = {1, 1}, eb[] = {2}, ee[] = {2}, es[] = {1};
  for (int t = 0; t < 4; t++) {
    TF_DataType dt = types[t];
    /* x[6:0:-2, 1, :7:3] of a [7,5,13] x: dy is [3, 3] (begin_mask on dim 2, shrink dim 1). */
    gc_arg a[5] = {gc_konst(shape, 3), gc_konst(sb, 3), gc_konst(se, 3), gc_konst(ss, 3),
                   gc_fed(dt, 2, (int64_t[]){3, 3}, -9, 9)};
    gc_check(&(gc_op){.type = "StridedSliceGrad",
                      .attrs = {GC_INT("shrink_axis_mask", 2), GC_INT("begin_mask", 4)}},
             a, 5, 0, "StridedSliceGrad x[6:0:-2, 1, :7:3]");
    gc_free_args(a + 1, 4);
    /* x[tf.newaxis, ...]: dy [1, 7, 5, 13]. */
    a[1] = gc_konst(nb, 2);
    a[2] = gc_konst(ne, 2);
    a[3] = gc_konst(ns, 2);
    a[4] = gc_fed(dt, 4, (int64_t[]){1, 7, 5, 13}, -9, 9);
    gc_check(&(gc_op){.type = "StridedSliceGrad", .attrs = {GC_INT("new_axis_mask", 1), GC_INT("ellipsis_mask", 2)}},
             a, 5, 0, "StridedSliceGrad x[newaxis, ...]");
    gc_free_args(a + 1, 4);
    /* An empty slice x[2:2]: dy [0, 5, 13], the output all zeros. */
    a[1] = gc_konst(eb, 1);
    a[2] = gc_konst(ee, 1);
    a[3] = gc_konst(es, 1);
    a[4] = gc_fed(dt, 3, (int64_t[]){0, 5, 13}, -9, 9);
    gc_check(&(gc_op){.type = "StridedSliceGrad"}, a, 5, 0, "StridedSliceGrad empty slice");
    gc_free_args(a, 5);
  }
  gc_arg b[5] = {gc_konst(shape, 3), gc_konst(sb, 3), gc_konst(se, 3), gc_konst(ss, 3),
                 gc_fed(TF_FLOAT, 1, (int64_t[]){2}, 0, 1)};
  gc_check_error(&(gc_op){.type = "StridedSliceGrad",
                          .attrs = {GC_INT("shrink_axis_mask", 2), GC_INT("begin_mask", 4)}},
                 b, 5, TF_INVALID_ARGUMENT, "shape of dy was [2] instead of [3,3]", "StridedSliceGrad wrong dy");
  gc_free_args(b, 5);
}

/* ---- Concat ---- */

/* Concat's list is its second input, after the concat_dim (a CPU constant: host memory on
 * the GPU). */
static void concat_v1_matches_cpu(void) {
  gc_need_gpu();
  static const int32_t minus2[] = {-2}, one[] = {1};
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT64, TF_BOOL};
  for (int t = 0; t < 4; t++) {
    gc_arg a[4] = {gc_konst(minus2, -1), gc_fed(types[t], 3, (int64_t[]){3, 5, 7}, -9, 9),
                   gc_fed(types[t], 3, (int64_t[]){3, 1, 7}, -9, 9), gc_fed(types[t], 3, (int64_t[]){3, 0, 7}, -9, 9)};
    gc_check(&(gc_op){.type = "Concat", .list = 3, .list_at = 1}, a, 4, 0, "Concat axis -2 with an empty piece");
    gc_free_args(a, 1);
    a[0] = gc_konst(one, -1);
    gc_check(&(gc_op){.type = "Concat", .list = 2, .list_at = 1}, a, 3, 0, "Concat axis 1");
    gc_free_args(a, 4);
  }
}

/* ---- UnsortedSegmentSum ---- */

static void unsorted_segment_sum_matches_cpu(void) {
  gc_need_gpu();
  static const int32_t nseg[] = {6}, zero[] = {0};
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_INT32};
  for (int t = 0; t < 4; t++) {
    int half = t == 3;
    TF_DataType dt = half ? TF_FLOAT : types[t];
    for (int it = 0; it < 2; it++) {
      TF_DataType idt = it ? TF_INT64 : TF_INT32;
      /* ids in [-1, 6): -1 rows are dropped on both devices; several rows per segment. */
      /* half: atomics add in half, rounding every partial sum; small values keep that small. */
      double r = half ? 1 : 9, tol = dt == TF_INT32 ? 0 : half ? 5e-2 : sum_tol(dt, 0);
      gc_arg a[3] = {gc_fed(dt, 3, (int64_t[]){7, 3, 13}, -r, r), gc_fed(idt, 2, (int64_t[]){7, 3}, -1, 6),
                     gc_konst(nseg, -1)};
      gc_check(&(gc_op){.type = "UnsortedSegmentSum", .half = half}, a, 3, tol, "UnsortedSegmentSum ids [7,3]");
      gc_free_args(a + 1, 1);
      a[1] = gc_fed(idt, 1, (int64_t[]){7}, 0, 6);
      gc_check(&(gc_op){.type = "UnsortedSegmentSum", .half = half}, a, 3, tol, "UnsortedSegmentSum ids [7]");
      gc_free_args(a, 3);
      /* Nothing to sum, and no segments. */
      a[0] = gc_fed(dt, 2, (int64_t[]){0, 5}, -9, 9);
      a[1] = gc_fed(idt, 1, (int64_t[]){0}, 0, 6);
      a[2] = gc_konst(nseg, -1);
      gc_check(&(gc_op){.type = "UnsortedSegmentSum", .half = half}, a, 3, 0, "UnsortedSegmentSum empty data");
      gc_free_args(a + 2, 1);
      a[2] = gc_konst(zero, -1);
      gc_check(&(gc_op){.type = "UnsortedSegmentSum", .half = half}, a, 3, 0, "UnsortedSegmentSum zero segments");
      gc_free_args(a, 3);
    }
  }
  static const int32_t vec[] = {3}, negn[] = {-1};
  gc_arg b[3] = {gc_fed(TF_FLOAT, 2, (int64_t[]){4, 3}, 0, 1), gc_fed(TF_INT32, 1, (int64_t[]){4}, 0, 3),
                 fed_ints(vec, 1, (int64_t[]){1})};
  gc_check_error(&(gc_op){.type = "UnsortedSegmentSum"}, b, 3, TF_INVALID_ARGUMENT,
                 "num_segments should be a scalar, not shape [1]", "UnsortedSegmentSum vector num_segments");
  gc_free_args(b + 2, 1);
  b[2] = fed_ints(negn, 0, NULL);
  gc_check_error(&(gc_op){.type = "UnsortedSegmentSum"}, b, 3, TF_INVALID_ARGUMENT,
                 "Input num_segments == -1 must not be negative.", "UnsortedSegmentSum negative num_segments");
  gc_free_args(b + 1, 2);
  b[1] = gc_fed(TF_INT32, 1, (int64_t[]){3}, 0, 3);
  b[2] = fed_ints(vec, 0, NULL);
  gc_check_error(&(gc_op){.type = "UnsortedSegmentSum"}, b, 3, TF_INVALID_ARGUMENT,
                 "data.shape = [4,3] does not start with segment_ids.shape = [3]", "UnsortedSegmentSum ids shape");
  gc_free_args(b, 3);
}

/* The GPU drops ids >= num_segments (the CPU refuses them): compared against the CPU given the
 * same ids with those replaced by -1, which both devices drop. */
static void unsorted_segment_sum_on_gpu_drops_out_of_range_ids(void) {
  gc_need_gpu();
  static const int32_t bad_ids[] = {0, 5, 2, 9, -3, 2, 4}, clean_ids[] = {0, -1, 2, -1, -3, 2, -1};
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  const char *label = "UnsortedSegmentSum out-of-range ids";
  TF_Tensor *data = gc_rand(TF_FLOAT, 2, (int64_t[]){7, 5}, -9, 9), *bad = gc_ints(bad_ids, 7),
            *clean = gc_ints(clean_ids, 7), *nt = gc_ints((const int32_t[]){4}, -1);
  TF_Output x = gc_unary(g, "Placeholder", "x", (TF_Output){NULL, 0}, "dtype", TF_FLOAT, s, label);
  TF_Output ib = gc_unary(g, "Placeholder", "ib", (TF_Output){NULL, 0}, "dtype", TF_INT32, s, label);
  TF_Output ic = gc_unary(g, "Placeholder", "ic", (TF_Output){NULL, 0}, "dtype", TF_INT32, s, label);
  TF_Output num = gc_const(g, "num", nt, s, label);
  TF_Output gin[3] = {x, ib, num}, cin[3] = {x, ic, num};
  TF_Operation *og = gc_add_op(g, &(gc_op){.type = "UnsortedSegmentSum"}, "on_gpu", GC_GPU, gin, 3, s, 0, label);
  TF_Operation *oc = gc_add_op(g, &(gc_op){.type = "UnsortedSegmentSum"}, "on_cpu", GC_CPU, cin, 3, s, 0, label);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Output feeds[3] = {x, ib, ic}, fetch[2] = {{og, 0}, {oc, 0}};
  TF_Tensor *vals[3] = {data, bad, clean}, *out[2] = {0};
  TF_SessionRun(sess, NULL, feeds, vals, 3, fetch, out, 2, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  EXPECT_EQ(TF_Dim(out[0], 0), 4);
  gc_compare(label, out[0], out[1], 1e-6);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteTensor(data);
  TF_DeleteTensor(bad);
  TF_DeleteTensor(clean);
  TF_DeleteTensor(nt);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- Cumsum, Cumprod ---- */

static void scans_match_cpu_along_any_axis(void) {
  gc_need_gpu();
  /* Shapes and axes that take both launcher paths: short lines (a thread per line), a long
   * contiguous line, long strided lines, many strided lines. */
  static const struct {
    int rank;
    int64_t dims[3];
    int32_t axis;
  } cases[] = {
      {3, {7, 5, 13}, 0},  {3, {7, 5, 13}, -2}, {3, {7, 5, 13}, -1}, {2, {3, 1023}, -1},
      {2, {1000, 3}, 0},   {3, {5, 300, 41}, 1}, {1, {1}, 0},          {2, {0, 5}, 1},
  };
  static const char *ops[2] = {"Cumsum", "Cumprod"};
  for (int t = 0; t < 3; t++) {
    int half = t == 2;
    TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
    for (int o = 0; o < 2; o++)
      for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int mode = 0; mode < 4; mode++) {
          int exclusive = mode & 1, reverse = mode >> 1;
          /* Products of values near 1 stay representable over 1023 terms. */
          gc_arg a[2] = {o ? gc_fed(dt, cases[k].rank, cases[k].dims, 0.99, 1.01)
                           : gc_fed(dt, cases[k].rank, cases[k].dims, -1, 1),
                         gc_konst(&cases[k].axis, -1)};
          char label[128];
          snprintf(label, sizeof label, "%s dtype %d%s case %zu axis %d exclusive %d reverse %d", ops[o], (int)dt,
                   half ? " as half" : "", k, (int)cases[k].axis, exclusive, reverse);
          double tol = half ? 5e-2 : dt == TF_DOUBLE ? 1e-10 : 1e-4;
          gc_check(&(gc_op){.type = ops[o], .half = half,
                            .attrs = {GC_BOOL("exclusive", exclusive), GC_BOOL("reverse", reverse)}},
                   a, 2, tol, label);
          gc_free_args(a, 2);
        }
  }
  static const int32_t far[] = {2}, vec[] = {0};
  gc_arg b[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 4}, 0, 1), fed_ints(far, 0, NULL)};
  gc_check_error(&(gc_op){.type = "Cumsum"}, b, 2, TF_INVALID_ARGUMENT,
                 "ScanOp: Expected scan axis in the range [-2, 2), but got 2", "Cumsum axis 2 of rank 2");
  gc_free_args(b + 1, 1);
  b[1] = fed_ints(vec, 1, (int64_t[]){1});
  gc_check_error(&(gc_op){.type = "Cumprod"}, b, 2, TF_INVALID_ARGUMENT, "ScanOp: axis must be a scalar, not [1]",
                 "Cumprod vector axis");
  gc_free_args(b, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(select_v2_broadcasts_like_cpu),
    TFC_TEST(broadcast_to_matches_cpu),
    TFC_TEST(pads_match_cpu_in_every_mode),
    TFC_TEST(pads_refuse_bad_paddings_with_cpu_texts),
    TFC_TEST(strided_slice_grad_matches_cpu),
    TFC_TEST(concat_v1_matches_cpu),
    TFC_TEST(unsorted_segment_sum_matches_cpu),
    TFC_TEST(unsorted_segment_sum_on_gpu_drops_out_of_range_ids),
    TFC_TEST(scans_match_cpu_along_any_axis),
    TFC_TEST(snapshot_copies_like_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
