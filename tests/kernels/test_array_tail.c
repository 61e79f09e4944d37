/*
 * Kernel tests: ops_array_tail.def — Unique, UniqueWithCounts, ListDiff, ScatterNd, Bincount,
 * SparseToDense —
 * and ops_image.def's ResizeBilinear / ResizeNearestNeighbor / DepthwiseConv2dNative.
 * Expected values and error texts were taken from TensorFlow (tf.unique, tf.setdiff1d,
 * tf.scatter_nd, tf.math.bincount, tf.image.resize_*) on the same inputs; each case also runs the shape
 * function (ku_run validates the node).
 */
#include "harness.h"
#include "kernel_util.c"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define VALS(...) ((const double[]){__VA_ARGS__})

static void expect_vals_(const tfc_tensor *t, const double *v, int64_t n, int line) {
  if (!t) tfc_test_fail(__FILE__, line, "no output tensor");
  if (t->n_elems != n) tfc_test_fail(__FILE__, line, "%lld elements, expected %lld", (long long)t->n_elems, (long long)n);
  for (int64_t i = 0; i < n; i++) {
    double got = ku_is_float(t->dtype) ? tfc_tensor_get_f64(t, i) : (double)tfc_tensor_get_i64(t, i);
    if (got != v[i]) tfc_test_fail(__FILE__, line, "element %lld: %g, expected %g", (long long)i, got, v[i]);
  }
}
#define EXPECT_VALS(t, ...) expect_vals_((t), VALS(__VA_ARGS__), sizeof(VALS(__VA_ARGS__)) / sizeof(double), __LINE__)

static int run_n(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins, tfc_tensor **outs,
                 int n_outs, tfc_status *s) {
  return ku_run(op, attrs, n_attrs, ins, n_ins, NULL, outs, n_outs, s);
}

static void unref_all(tfc_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) tfc_tensor_unref(t[i]);
}

static void unique_keeps_first_seen_order(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *x = ku_i32(DIMS(6), (const int32_t[]){3, 1, 3, 3, 7, 1});
  tfc_tensor *o[3] = {0};
  EXPECT_EQ(run_n("UniqueWithCounts", NULL, 0, &x, 1, o, 3, &s), TFC_OK);
  EXPECT_VALS(o[0], 3, 1, 7);
  EXPECT_VALS(o[1], 0, 1, 0, 0, 2, 1);
  EXPECT_VALS(o[2], 3, 2, 1);
  EXPECT_EQ(o[1]->dtype, TFC_DT_INT32);
  unref_all(o, 3);
  tfc_tensor *f = ku_f64(DIMS(4), (const double[]){0.5, -1, 0.5, 2});
  ku_attr i64 = {"out_idx", tfc_attr_type(TFC_DT_INT64)};
  EXPECT_EQ(run_n("Unique", &i64, 1, &f, 1, o, 2, &s), TFC_OK);
  EXPECT_VALS(o[0], 0.5, -1, 2);
  EXPECT_VALS(o[1], 0, 1, 0, 2);
  EXPECT_EQ(o[1]->dtype, TFC_DT_INT64);
  unref_all(o, 2);
  tfc_tensor *m = ku_i32(DIMS(1, 2), (const int32_t[]){1, 2});
  EXPECT_EQ(run_n("Unique", NULL, 0, &m, 1, o, 2, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 1 but is rank 2");
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("Unique", NULL, 0, &m, 1, o, 2, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "unique expects a 1D vector.");
  unref_all(o, 2);
  tfc_tensor *rest[] = {x, f, m};
  unref_all(rest, 3);
  tfc_status_fini(&s);
}

static void list_diff_keeps_x_order(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *x = ku_i64(DIMS(5), (const int64_t[]){1, 2, 3, 2, 4}), *y = ku_i64(DIMS(2), (const int64_t[]){2, 9});
  tfc_tensor *in[2] = {x, y}, *o[2] = {0};
  EXPECT_EQ(run_n("ListDiff", NULL, 0, in, 2, o, 2, &s), TFC_OK);
  EXPECT_VALS(o[0], 1, 3, 4);
  EXPECT_VALS(o[1], 0, 2, 4);
  unref_all(o, 2);
  tfc_tensor *rest[] = {x, y};
  unref_all(rest, 2);
  tfc_status_fini(&s);
}

static void scatter_nd_sums_duplicates(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *ind = ku_i32(DIMS(3, 2), (const int32_t[]){0, 1, 0, 1, 1, 0});
  tfc_tensor *upd = ku_f32(DIMS(3), (const float[]){1, 2, 5});
  tfc_tensor *shape = ku_i32(DIMS(2), (const int32_t[]){2, 2});
  tfc_tensor *in[3] = {ind, upd, shape}, *out = NULL;
  EXPECT_EQ(run_n("ScatterNd", NULL, 0, in, 3, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0, 3, 5, 0);
  tfc_tensor_unref(out);
  tfc_tensor *rows = ku_i32(DIMS(1, 1), (const int32_t[]){1}), *rupd = ku_i32(DIMS(1, 2), (const int32_t[]){7, 8});
  tfc_tensor *in2[3] = {rows, rupd, shape};
  EXPECT_EQ(run_n("ScatterNd", NULL, 0, in2, 3, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0, 0, 7, 8);
  tfc_tensor_unref(out);
  tfc_tensor *bad = ku_i32(DIMS(2, 1), (const int32_t[]){0, 5}), *bupd = ku_f32(DIMS(2), (const float[]){1, 2});
  tfc_tensor *three = ku_i32(DIMS(1), (const int32_t[]){3});
  tfc_tensor *in3[3] = {bad, bupd, three};
  EXPECT_EQ(run_n("ScatterNd", NULL, 0, in3, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "indices[1] = [5] does not index into shape [3]");
  tfc_tensor *rest[] = {ind, upd, shape, rows, rupd, bad, bupd, three};
  unref_all(rest, 8);
  tfc_status_fini(&s);
}

static void bincount_counts_and_weights(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *arr = ku_i32(DIMS(4), (const int32_t[]){1, 1, 2, 7}), *size = ku_i32(NULL, 0, (const int32_t[]){4});
  tfc_tensor *none = ku_f32(DIMS(0), NULL), *w = ku_f32(DIMS(4), (const float[]){0.5f, 1, 2, 9});
  tfc_tensor *in[3] = {arr, size, none}, *in2[3] = {arr, size, w}, *out = NULL;
  EXPECT_EQ(run_n("Bincount", NULL, 0, in, 3, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0, 2, 1, 0);
  tfc_tensor_unref(out);
  EXPECT_EQ(run_n("Bincount", NULL, 0, in2, 3, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0, 1.5, 2, 0);
  tfc_tensor_unref(out);
  tfc_tensor *neg = ku_i32(DIMS(2), (const int32_t[]){-1, 1});
  tfc_tensor *nonew = ku_f32(DIMS(0), NULL);
  tfc_tensor *in3[3] = {neg, size, nonew};
  EXPECT_EQ(run_n("Bincount", NULL, 0, in3, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Input arr must be non-negative!");
  tfc_tensor *rest[] = {arr, size, none, w, neg, nonew};
  unref_all(rest, 6);
  tfc_status_fini(&s);
}

static void resizes_match_tensorflow(void) {
  tfc_status s;
  tfc_status_init(&s);
  float v[16];
  for (int i = 0; i < 16; i++) v[i] = (float)i;
  tfc_tensor *img = ku_f32(DIMS(1, 4, 4, 1), v), *sz = ku_i32(DIMS(2), (const int32_t[]){2, 3});
  tfc_tensor *in[2] = {img, sz}, *out = NULL;
  EXPECT_EQ(run_n("ResizeBilinear", NULL, 0, in, 2, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->dims[1], 2);
  EXPECT_EQ(out->dims[2], 3);
  EXPECT_VALS(out, 0, 1.3333333730697632, 2.6666667461395264, 8, 9.333333015441895, 10.666666984558105);
  tfc_tensor_unref(out);
  tfc_tensor *img9 = ku_f32(DIMS(1, 3, 3, 1), v), *sz2 = ku_i32(DIMS(2), (const int32_t[]){2, 5});
  tfc_tensor *in2[2] = {img9, sz2};
  ku_attr half = {"half_pixel_centers", tfc_attr_bool(1)};
  EXPECT_EQ(run_n("ResizeBilinear", &half, 1, in2, 2, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0.75, 1.1500000953674316, 1.75, 2.3500001430511475, 2.75, 5.25, 5.650000095367432, 6.25,
              6.850000381469727, 7.25);
  tfc_tensor_unref(out);
  tfc_tensor *sz3 = ku_i32(DIMS(2), (const int32_t[]){5, 2});
  tfc_tensor *in3[2] = {img9, sz3};
  ku_attr align = {"align_corners", tfc_attr_bool(1)};
  EXPECT_EQ(run_n("ResizeNearestNeighbor", &align, 1, in3, 2, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 0, 2, 3, 5, 3, 5, 6, 8, 6, 8);
  tfc_tensor_unref(out);
  tfc_tensor *flat = ku_f32(DIMS(3, 3), v);
  tfc_tensor *in4[2] = {flat, sz};
  EXPECT_EQ(ku_run_unknown("ResizeBilinear", NULL, 0, in4, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "input must be 4-dimensional[3,3]");
  tfc_tensor *rest[] = {img, sz, img9, sz2, sz3, flat};
  unref_all(rest, 6);
  tfc_status_fini(&s);
}

static void depthwise_matches_tensorflow(void) {
  tfc_status s;
  tfc_status_init(&s);
  float v[18], w[8];
  for (int i = 0; i < 18; i++) v[i] = (float)i;
  for (int i = 0; i < 8; i++) w[i] = (float)i;
  tfc_tensor *x = ku_f32(DIMS(1, 3, 3, 2), v), *f = ku_f32(DIMS(2, 2, 2, 1), w), *out = NULL;
  tfc_status st;
  tfc_status_init(&st);
  tfc_attr_value strides = tfc_attr_list(TFC_ATTR_INT), pad = {0};
  for (int i = 0; i < 4; i++) {
    tfc_attr_value one = tfc_attr_int(i == 1 || i == 2 ? 2 : 1);
    EXPECT_EQ(tfc_attr_list_append(&strides, &one, &st), TFC_OK);
  }
  EXPECT_EQ(tfc_attr_string("SAME", 4, &pad, &st), TFC_OK);
  ku_attr attrs[2] = {{"strides", strides}, {"padding", pad}};
  tfc_tensor *in[2] = {x, f};
  EXPECT_EQ(run_n("DepthwiseConv2dNative", attrs, 2, in, 2, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->dims[1], 2);
  EXPECT_EQ(out->dims[3], 2);
  EXPECT_VALS(out, 76, 108, 40, 60, 28, 58, 0, 17);
  tfc_tensor *rest[] = {x, f, out};
  unref_all(rest, 3);
  tfc_status_fini(&s);
  tfc_status_fini(&st);
}

static void sparse_to_dense_validates_indices(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *ind = ku_i64(DIMS(2, 2), (const int64_t[]){0, 0, 1, 2}), *shape = ku_i64(DIMS(2), (const int64_t[]){2, 3});
  tfc_tensor *vals = ku_f32(DIMS(2), (const float[]){1, 2}), *dflt = ku_f32(NULL, 0, (const float[]){-1});
  tfc_tensor *in[4] = {ind, shape, vals, dflt}, *out = NULL;
  EXPECT_EQ(run_n("SparseToDense", NULL, 0, in, 4, &out, 1, &s), TFC_OK);
  EXPECT_VALS(out, 1, -1, -1, -1, -1, 2);
  tfc_tensor_unref(out);
  tfc_tensor *oob = ku_i64(DIMS(2, 2), (const int64_t[]){0, 0, 1, 5}), *rev = ku_i64(DIMS(2, 2), (const int64_t[]){1, 0, 0, 2});
  tfc_tensor *dup = ku_i64(DIMS(2, 2), (const int64_t[]){1, 0, 1, 0});
  const char *want[3] = {"indices[1] = [1,5] is out of bounds: need 0 <= index < [2,3]",
                         "indices[1] = [0,2] is out of order. Many sparse ops require sorted indices.",
                         "indices[1] = [1,0] is repeated"};
  tfc_tensor *bad[3] = {oob, rev, dup};
  for (int i = 0; i < 3; i++) {
    tfc_tensor *bin[4] = {bad[i], shape, vals, dflt};
    tfc_status_init(&s);
    EXPECT_EQ(run_n("SparseToDense", NULL, 0, bin, 4, &out, 1, &s), TFC_INVALID_ARGUMENT);
    EXPECT_CONTAINS(tfc_status_msg(&s), want[i]);
  }
  tfc_tensor *rest[] = {ind, shape, vals, dflt, oob, rev, dup};
  unref_all(rest, 7);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(sparse_to_dense_validates_indices),
    TFC_TEST(depthwise_matches_tensorflow),
    TFC_TEST(resizes_match_tensorflow),
    TFC_TEST(unique_keeps_first_seen_order),
    TFC_TEST(list_diff_keeps_x_order),
    TFC_TEST(scatter_nd_sums_duplicates),
    TFC_TEST(bincount_counts_and_weights),
    {0},
};

TFC_TEST_MAIN(tests)
