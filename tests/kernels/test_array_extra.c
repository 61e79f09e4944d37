/*
 * Kernel tests: the array ops added for gradients and input pipelines (Pad, PadV2,
 * MirrorPad, UnsortedSegmentSum, InvertPermutation, StridedSliceGrad, ConcatOffset, OneHot)
 * and the scans (Cumsum, Cumprod). Expected values and error texts were taken from
 * TensorFlow (tf.pad, tf.math.unsorted_segment_sum, tf.raw_ops.StridedSliceGrad, ...) on the
 * same inputs; each case also runs the shape function (ku_run validates the node).
 */
#include "harness.h"
#include "kernel_util.c"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static tfc_tensor *iota_f32(const int64_t *dims, int nd) {
  tfc_tensor *t = ku_f32(dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) ((float *)t->data)[i] = (float)i;
  return t;
}

static void expect_dims_(const tfc_tensor *t, const int64_t *d, int n, int line) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (!t) tfc_test_fail(__FILE__, line, "no output tensor");
  if (t->ndims != n || (n && memcmp(t->dims, d, sizeof(int64_t) * (size_t)n)))
    tfc_test_fail(__FILE__, line, "dims %s, expected %s", tfc_tensor_shape_str(t, a, sizeof a), tfc_dims_str(d, n, b, sizeof b));
}
#define EXPECT_DIMS(t, ...) expect_dims_((t), DIMS(__VA_ARGS__), __LINE__)

static void expect_vals_(const tfc_tensor *t, const double *v, int64_t n, int line) {
  if (t->n_elems != n) tfc_test_fail(__FILE__, line, "%lld elements, expected %lld", (long long)t->n_elems, (long long)n);
  for (int64_t i = 0; i < n; i++) {
    double got = t->dtype == TFC_DT_INT32 || t->dtype == TFC_DT_INT64 ? (double)tfc_tensor_get_i64(t, i)
                                                                        : tfc_tensor_get_f64(t, i);
    if (got != v[i]) tfc_test_fail(__FILE__, line, "element %lld: %g, expected %g", (long long)i, got, v[i]);
  }
}
#define VALS(...) ((const double[]){__VA_ARGS__})
#define EXPECT_VALS(t, ...) expect_vals_((t), VALS(__VA_ARGS__), sizeof(VALS(__VA_ARGS__)) / sizeof(double), __LINE__)

static tfc_tensor *run1(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  if (ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s failed: %s", op, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return out;
}

static void expect_error(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins,
                         const int *lists, int n_outs, int code, const char *msg) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *outs[8] = {0};
  int rc = ku_run(op, attrs, n_attrs, ins, n_ins, lists, outs, n_outs, &s);
  if (rc != code) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s), expected %d", op, rc, tfc_status_msg(&s), code);
  EXPECT_CONTAINS(tfc_status_msg(&s), msg);
  for (int i = 0; i < n_outs; i++)
    if (outs[i]) tfc_tensor_unref(outs[i]);
  tfc_status_fini(&s);
}

static void unref_all(tfc_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) tfc_tensor_unref(t[i]);
}

/* ---- Pad, PadV2, MirrorPad ---- */

static ku_attr mode_attr(const char *m) {
  ku_attr a = {"mode", {0}};
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_attr_string(m, strlen(m), &a.value, &s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return a;
}

static void pad_constant_and_v2_match_tf(void) {
  tfc_tensor *in[3] = {iota_f32(DIMS(2, 3)), ku_i32(DIMS(2, 2), (const int32_t[]){1, 0, 2, 1}), NULL};
  tfc_tensor *out = run1("Pad", NULL, 0, in, 2);
  EXPECT_DIMS(out, 3, 6);
  EXPECT_VALS(out, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 3, 4, 5, 0);
  tfc_tensor_unref(out);
  float seven = 7;
  in[2] = ku_f32(NULL, 0, &seven);
  out = run1("PadV2", NULL, 0, in, 3);
  EXPECT_VALS(out, 7, 7, 7, 7, 7, 7, 7, 7, 0, 1, 2, 7, 7, 7, 3, 4, 5, 7);
  tfc_tensor_unref(out);
  /* int64 data with int64 paddings, one dim padded to zero rows */
  tfc_tensor *l[2] = {ku_i64(DIMS(3), (const int64_t[]){5, 6, 7}), ku_i64(DIMS(1, 2), (const int64_t[]){0, 2})};
  out = run1("Pad", NULL, 0, l, 2);
  EXPECT_DIMS(out, 5);
  EXPECT_VALS(out, 5, 6, 7, 0, 0);
  tfc_tensor_unref(out);
  unref_all(l, 2);
  unref_all(in, 3);
}

/* An NHWC image padded in H and W only: the channel dim merges into W's rows (values from
 * numpy.pad, which TF's Pad matches). */
static void pad_image_rows_match_tf(void) {
  tfc_tensor *in[3] = {iota_f32(DIMS(2, 2, 2, 2)), ku_i32(DIMS(4, 2), (const int32_t[]){0, 0, 0, 1, 1, 0, 0, 0}),
                       NULL};
  tfc_tensor *out = run1("Pad", NULL, 0, in, 2);
  EXPECT_DIMS(out, 2, 3, 3, 2);
  EXPECT_VALS(out, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 8, 9, 10, 11, 0, 0, 12, 13, 14, 15, 0,
              0, 0, 0, 0, 0);
  tfc_tensor_unref(out);
  float seven = 7;
  in[2] = ku_f32(NULL, 0, &seven);
  out = run1("PadV2", NULL, 0, in, 3);
  EXPECT_VALS(out, 7, 7, 0, 1, 2, 3, 7, 7, 4, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 9, 10, 11, 7, 7, 12, 13, 14, 15, 7,
              7, 7, 7, 7, 7);
  tfc_tensor_unref(out);
  unref_all(in, 3);
}

static void mirror_pad_reflect_and_symmetric(void) {
  tfc_tensor *in[2] = {iota_f32(DIMS(2, 3)), ku_i32(DIMS(2, 2), (const int32_t[]){1, 1, 2, 2})};
  ku_attr m = mode_attr("REFLECT");
  tfc_tensor *out = run1("MirrorPad", &m, 1, in, 2);
  EXPECT_DIMS(out, 4, 7);
  EXPECT_VALS(out, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(2, 2), (const int32_t[]){1, 1, 2, 3});
  ku_attr s = mode_attr("SYMMETRIC");
  out = run1("MirrorPad", &s, 1, in, 2);
  EXPECT_DIMS(out, 4, 8);
  EXPECT_VALS(out, 1, 0, 0, 1, 2, 2, 1, 0, 1, 0, 0, 1, 2, 2, 1, 0, 4, 3, 3, 4, 5, 5, 4, 3, 4, 3, 3, 4, 5, 5, 4, 3);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(2, 2), (const int32_t[]){3, 0, 0, 0});
  ku_attr r2 = mode_attr("REFLECT");
  expect_error("MirrorPad", &r2, 1, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "paddings must be less than the dimension size: 3, 0 not less than 2");
  ku_attr s2 = mode_attr("SYMMETRIC");
  expect_error("MirrorPad", &s2, 1, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "paddings must be no greater than the dimension size: 3, 0 greater than 2");
  tfc_attr_value_fini(&m.value);
  tfc_attr_value_fini(&s.value);
  tfc_attr_value_fini(&r2.value);
  tfc_attr_value_fini(&s2.value);
  unref_all(in, 2);
}

static void pad_reports_tf_errors(void) {
  tfc_tensor *in[2] = {iota_f32(DIMS(2, 3)), ku_i32(DIMS(1, 2), (const int32_t[]){1, 0})};
  expect_error("Pad", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Shape must be rank 1 but is rank 2");
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(2, 3), (const int32_t[]){0, 0, 0, 0, 0, 0});
  expect_error("Pad", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Dimension must be 2 but is 3");
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(2, 2), (const int32_t[]){-1, 0, 0, 0});
  expect_error("Pad", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Paddings must be non-negative: -1 0");
  unref_all(in, 2);
}

/* ---- UnsortedSegmentSum ---- */

static void unsorted_segment_sum_skips_negative_ids(void) {
  tfc_tensor *in[3] = {ku_f32(DIMS(3, 2), (const float[]){1, 2, 3, 4, 5, 6}), ku_i32(DIMS(3), (const int32_t[]){2, -1, 2}),
                       ku_i32(NULL, 0, (const int32_t[]){4})};
  tfc_tensor *out = run1("UnsortedSegmentSum", NULL, 0, in, 3);
  EXPECT_DIMS(out, 4, 2);
  EXPECT_VALS(out, 0, 0, 0, 0, 6, 8, 0, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(3), (const int32_t[]){0, 1, 5});
  expect_error("UnsortedSegmentSum", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "segment_ids[2] = 5 is out of range [0, 4)");
  unref_all(in, 3);
  /* 2-D ids over int64 data; int64 num_segments */
  tfc_tensor *l[3] = {ku_i64(DIMS(2, 2), (const int64_t[]){1, 2, 3, 4}), ku_i64(DIMS(2, 2), (const int64_t[]){1, 0, 1, 1}),
                      ku_i64(NULL, 0, (const int64_t[]){2})};
  out = run1("UnsortedSegmentSum", NULL, 0, l, 3);
  EXPECT_DIMS(out, 2);
  EXPECT_VALS(out, 2, 8);
  tfc_tensor_unref(out);
  tfc_tensor_unref(l[1]);
  l[1] = ku_i64(DIMS(3), (const int64_t[]){0, 0, 0});
  expect_error("UnsortedSegmentSum", NULL, 0, l, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Dimension 0 in both shapes must be equal");
  unref_all(l, 3);
}

/* ---- InvertPermutation ---- */

static void invert_permutation_and_errors(void) {
  tfc_tensor *in = ku_i32(DIMS(4), (const int32_t[]){2, 0, 3, 1});
  tfc_tensor *out = run1("InvertPermutation", NULL, 0, &in, 1);
  EXPECT_VALS(out, 1, 3, 0, 2);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in);
  in = ku_i64(DIMS(3), (const int64_t[]){0, 0, 1});
  expect_error("InvertPermutation", NULL, 0, &in, 1, NULL, 1, TFC_INVALID_ARGUMENT, "0 is duplicated in the input.");
  tfc_tensor_unref(in);
  in = ku_i32(DIMS(3), (const int32_t[]){0, 3, 1});
  expect_error("InvertPermutation", NULL, 0, &in, 1, NULL, 1, TFC_INVALID_ARGUMENT, "3 is not between 0 and 3");
  tfc_tensor_unref(in);
  in = ku_i32(DIMS(1, 1), (const int32_t[]){0});
  expect_error("InvertPermutation", NULL, 0, &in, 1, NULL, 1, TFC_INVALID_ARGUMENT, "Shape must be rank 1 but is rank 2");
  tfc_tensor_unref(in);
}

/* ---- StridedSliceGrad ---- */

static void strided_slice_grad_scatters_into_zeros(void) {
  tfc_tensor *in[5] = {ku_i32(DIMS(2), (const int32_t[]){4, 3}), ku_i32(DIMS(2), (const int32_t[]){3, 0}),
                       ku_i32(DIMS(2), (const int32_t[]){0, 3}), ku_i32(DIMS(2), (const int32_t[]){-2, 2}),
                       ku_f32(DIMS(2, 2), (const float[]){1, 2, 3, 4})};
  tfc_tensor *out = run1("StridedSliceGrad", NULL, 0, in, 5);
  EXPECT_DIMS(out, 4, 3);
  EXPECT_VALS(out, 0, 0, 0, 3, 0, 4, 0, 0, 0, 1, 0, 2);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[4]);
  in[4] = ku_f32(DIMS(3, 3), NULL);
  expect_error("StridedSliceGrad", NULL, 0, in, 5, NULL, 1, TFC_INVALID_ARGUMENT, "shape of dy was [3,3] instead of [2,2]");
  unref_all(in, 5);
  /* shrink_axis on dim 0: dy is the row x[1] */
  tfc_tensor *s[5] = {ku_i64(DIMS(2), (const int64_t[]){3, 2}), ku_i64(DIMS(1), (const int64_t[]){1}),
                      ku_i64(DIMS(1), (const int64_t[]){2}), ku_i64(DIMS(1), (const int64_t[]){1}),
                      ku_f64(DIMS(2), (const double[]){5, 6})};
  ku_attr sh = {"shrink_axis_mask", tfc_attr_int(1)};
  out = run1("StridedSliceGrad", &sh, 1, s, 5);
  EXPECT_DIMS(out, 3, 2);
  EXPECT_VALS(out, 0, 0, 5, 6, 0, 0);
  tfc_tensor_unref(out);
  unref_all(s, 5);
}

/* ---- ConcatOffset ---- */

static void concat_offset_cumulates_along_axis(void) {
  tfc_tensor *in[4] = {ku_i32(NULL, 0, (const int32_t[]){-2}), ku_i32(DIMS(3), (const int32_t[]){2, 2, 5}),
                       ku_i32(DIMS(3), (const int32_t[]){2, 3, 5}), ku_i32(DIMS(3), (const int32_t[]){2, 4, 5})};
  int lists[2] = {-1, 3};
  tfc_tensor *outs[3] = {0};
  tfc_status s;
  tfc_status_init(&s);
  if (ku_run("ConcatOffset", NULL, 0, in, 4, lists, outs, 3, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  EXPECT_VALS(outs[0], 0, 0, 0);
  EXPECT_VALS(outs[1], 0, 2, 0);
  EXPECT_VALS(outs[2], 0, 5, 0);
  unref_all(outs, 3);
  tfc_tensor_unref(in[3]);
  in[3] = ku_i32(DIMS(3), (const int32_t[]){3, 4, 5});
  expect_error("ConcatOffset", NULL, 0, in, 4, lists, 3, TFC_INVALID_ARGUMENT,
               "All dimensions except 1 must match. Input 2 has shape [3 4 5] and doesn't match input 0 with shape [2 2 5].");
  tfc_tensor_unref(in[0]);
  in[0] = ku_i32(NULL, 0, (const int32_t[]){3});
  expect_error("ConcatOffset", NULL, 0, in, 4, lists, 3, TFC_INVALID_ARGUMENT, "Concat dim is out of range: 3 vs. 3");
  unref_all(in, 4);
  tfc_status_fini(&s);
}

/* ---- OneHot ---- */

static void one_hot_axes_and_out_of_range(void) {
  float on = 5, off = -1;
  int32_t depth = 3;
  tfc_tensor *in[4] = {ku_i64(DIMS(4), (const int64_t[]){0, 2, -1, 5}), ku_i32(NULL, 0, &depth), ku_f32(NULL, 0, &on),
                       ku_f32(NULL, 0, &off)};
  tfc_tensor *out = run1("OneHot", NULL, 0, in, 4);
  EXPECT_DIMS(out, 4, 3);
  EXPECT_VALS(out, 5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  in[0] = ku_i32(DIMS(2, 2), (const int32_t[]){0, 2, 1, 3});
  ku_attr ax = {"axis", tfc_attr_int(0)};
  out = run1("OneHot", &ax, 1, in, 4);
  EXPECT_DIMS(out, 3, 2, 2);
  EXPECT_VALS(out, 5, -1, -1, -1, -1, -1, 5, -1, -1, 5, -1, -1);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  depth = -1;
  in[1] = ku_i32(NULL, 0, &depth);
  expect_error("OneHot", NULL, 0, in, 4, NULL, 1, TFC_INVALID_ARGUMENT, "must be non-negative");
  ku_attr bad = {"axis", tfc_attr_int(-2)};
  expect_error("OneHot", &bad, 1, in, 4, NULL, 1, TFC_INVALID_ARGUMENT, "axis must be >= -1");
  unref_all(in, 4);
}

/* ---- Cumsum, Cumprod ---- */

static void scans_exclusive_reverse_match_tf(void) {
  tfc_tensor *x = ku_f64(DIMS(2, 3), (const double[]){1, 2, 3, 4, 5, 6});
  tfc_tensor *in[2] = {x, ku_i32(NULL, 0, (const int32_t[]){1})};
  tfc_tensor *in0[2] = {x, ku_i64(NULL, 0, (const int64_t[]){-2})};
  static const double sum_want[4][6] = {
      {1, 3, 6, 4, 9, 15}, {6, 5, 3, 15, 11, 6}, {0, 1, 3, 0, 4, 9}, {5, 3, 0, 11, 6, 0}};
  static const double prod_want[4][6] = {
      {1, 2, 3, 4, 10, 18}, {4, 10, 18, 4, 5, 6}, {1, 1, 1, 1, 2, 3}, {4, 5, 6, 1, 1, 1}};
  for (int k = 0; k < 4; k++) {
    int ex = k >= 2, rev = k & 1;
    ku_attr a[2] = {{"exclusive", tfc_attr_bool(ex)}, {"reverse", tfc_attr_bool(rev)}};
    tfc_tensor *out = run1("Cumsum", a, 2, in, 2);
    expect_vals_(out, sum_want[k], 6, __LINE__);
    tfc_tensor_unref(out);
    out = run1("Cumprod", a, 2, in0, 2);
    expect_vals_(out, prod_want[k], 6, __LINE__);
    tfc_tensor_unref(out);
  }
  tfc_tensor *ix[2] = {ku_i32(DIMS(4), (const int32_t[]){1, 2, 3, 4}), ku_i32(NULL, 0, (const int32_t[]){0})};
  tfc_tensor *out = run1("Cumprod", NULL, 0, ix, 2);
  EXPECT_VALS(out, 1, 2, 6, 24);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(NULL, 0, (const int32_t[]){2});
  expect_error("Cumsum", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
  unref_all(in, 2);
  tfc_tensor_unref(in0[1]);
  unref_all(ix, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(pad_constant_and_v2_match_tf),
    TFC_TEST(pad_image_rows_match_tf),
    TFC_TEST(mirror_pad_reflect_and_symmetric),
    TFC_TEST(pad_reports_tf_errors),
    TFC_TEST(unsorted_segment_sum_skips_negative_ids),
    TFC_TEST(invert_permutation_and_errors),
    TFC_TEST(strided_slice_grad_scatters_into_zeros),
    TFC_TEST(concat_offset_cumulates_along_axis),
    TFC_TEST(one_hot_axes_and_out_of_range),
    TFC_TEST(scans_exclusive_reverse_match_tf),
    {0}};
TFC_TEST_MAIN(tests)
