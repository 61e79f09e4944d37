/* Where, GatherNd, TopKV2, LinSpace, DynamicPartition and the float classifications IsFinite / IsNan / IsInf: values
 * TensorFlow computed for the same inputs, and TF's error texts. */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_util.c"

static void expect_i64(const tfc_tensor *t, int64_t rows, int64_t cols, const int64_t *want) {
  EXPECT_EQ(t->dtype, TFC_DT_INT64);
  EXPECT_EQ(t->ndims, 2);
  EXPECT_EQ(t->dims[0], rows);
  EXPECT_EQ(t->dims[1], cols);
  for (int64_t i = 0; i < rows * cols; i++) EXPECT_EQ(((const int64_t *)t->data)[i], want[i]);
}

static void where_gives_coordinates_of_true_entries(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *in = ku_bool((int64_t[]){2, 3}, 2, (uint8_t[]){1, 0, 1, 0, 0, 1}), *out = NULL;
  EXPECT_EQ(ku_run("Where", NULL, 0, &in, 1, NULL, &out, 1, &s), TFC_OK);
  expect_i64(out, 3, 2, (int64_t[]){0, 0, 0, 2, 1, 2});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in);
  /* numbers: -0.0 is zero, NaN is not */
  in = ku_f32((int64_t[]){2, 3}, 2, (float[]){0.0f, -0.0f, 1.5f, NAN, 0.0f, -2.0f});
  EXPECT_EQ(ku_run("Where", NULL, 0, &in, 1, NULL, &out, 1, &s), TFC_OK);
  expect_i64(out, 3, 2, (int64_t[]){0, 2, 1, 0, 1, 2});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in);
  /* nothing true: [0, rank] */
  in = ku_i32((int64_t[]){0, 2}, 2, NULL);
  EXPECT_EQ(ku_run("Where", NULL, 0, &in, 1, NULL, &out, 1, &s), TFC_OK);
  expect_i64(out, 0, 2, NULL);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in);
  in = ku_i32(NULL, 0, (int32_t[]){3});
  EXPECT_EQ(ku_run("Where", NULL, 0, &in, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "WhereOp : Unhandled input dimensions: 0");
  tfc_tensor_unref(in);
  tfc_status_fini(&s);
}

static void classifications_of_floats(void) {
  static const char *const ops[3] = {"IsFinite", "IsNan", "IsInf"};
  static const uint8_t want[3][4] = {{1, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 1, 0}};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *f = ku_f32((int64_t[]){4}, 1, (float[]){1.0f, INFINITY, -INFINITY, NAN});
  tfc_tensor *d = ku_f64((int64_t[]){4}, 1, (double[]){1.0, INFINITY, -INFINITY, NAN});
  for (int k = 0; k < 3; k++)
    for (int t = 0; t < 2; t++) {
      tfc_tensor *out = NULL;
      EXPECT_EQ(ku_run(ops[k], NULL, 0, t ? &d : &f, 1, NULL, &out, 1, &s), TFC_OK);
      EXPECT_EQ(out->dtype, TFC_DT_BOOL);
      EXPECT_EQ(out->n_elems, 4);
      for (int i = 0; i < 4; i++) EXPECT_EQ(((const uint8_t *)out->data)[i], want[k][i]);
      tfc_tensor_unref(out);
    }
  tfc_tensor_unref(f);
  tfc_tensor_unref(d);
  tfc_status_fini(&s);
}

static void expect_f32(const tfc_tensor *t, int64_t n, const float *want) {
  EXPECT_EQ(t->n_elems, n);
  for (int64_t i = 0; i < n; i++)
    if (((const float *)t->data)[i] != want[i])
      tfc_test_fail(__FILE__, __LINE__, "element %lld: %g, TensorFlow %g", (long long)i, ((const float *)t->data)[i],
                    want[i]);
}

static void gather_nd_gathers_elements_and_slices(void) {
  tfc_status s;
  tfc_status_init(&s);
  const float pv[6] = {0, 1, 2, 3, 4, 5};
  tfc_tensor *in[2] = {ku_f32((int64_t[]){2, 3}, 2, pv), ku_i32((int64_t[]){2, 2}, 2, (int32_t[]){1, 2, 0, 0})};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("GatherNd", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 1);
  expect_f32(out, 2, (float[]){5, 0});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* a row index gathers the row */
  in[1] = ku_i64((int64_t[]){1, 1}, 2, (int64_t[]){1});
  EXPECT_EQ(ku_run("GatherNd", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 2);
  EXPECT_EQ(out->dims[1], 3);
  expect_f32(out, 3, (float[]){3, 4, 5});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* batched index rows: [2, 1, 2] -> [2, 1] */
  in[1] = ku_i32((int64_t[]){2, 1, 2}, 3, (int32_t[]){0, 1, 1, 0});
  EXPECT_EQ(ku_run("GatherNd", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 2);
  expect_f32(out, 2, (float[]){1, 3});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32((int64_t[]){2, 2}, 2, (int32_t[]){0, 1, 0, 3});
  EXPECT_EQ(ku_run("GatherNd", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "indices[1] = [0, 3] does not index into param shape [2,3]");
  tfc_status_clear(&s);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32((int64_t[]){1, 3}, 2, (int32_t[]){0, 1, 2});
  EXPECT_EQ(ku_run("GatherNd", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "indices.shape[-1] must be <= params.rank, but saw indices shape: [1,3] and "
                                      "params shape: [2,3]");
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

static void top_k_sorts_rows_ties_by_index(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *in[2] = {ku_f32((int64_t[]){2, 4}, 2, (float[]){3, 1, 3, 2, 0.5f, 9, -1, 4}),
                       ku_i32(NULL, 0, (int32_t[]){2})};
  tfc_tensor *out[2] = {NULL, NULL};
  EXPECT_EQ(ku_run("TopKV2", NULL, 0, in, 2, NULL, out, 2, &s), TFC_OK);
  expect_f32(out[0], 4, (float[]){3, 3, 9, 4});
  const int32_t want_i[4] = {0, 2, 1, 3};
  for (int i = 0; i < 4; i++) EXPECT_EQ(((const int32_t *)out[1]->data)[i], want_i[i]);
  tfc_tensor_unref(out[0]);
  tfc_tensor_unref(out[1]);
  tfc_tensor_unref(in[0]);
  in[0] = ku_i32((int64_t[]){1, 4}, 2, (int32_t[]){5, 7, 7, 1});
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(NULL, 0, (int32_t[]){3});
  EXPECT_EQ(ku_run("TopKV2", NULL, 0, in, 2, NULL, out, 2, &s), TFC_OK);
  const int32_t want_v[3] = {7, 7, 5}, want_j[3] = {1, 2, 0};
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(((const int32_t *)out[0]->data)[i], want_v[i]);
    EXPECT_EQ(((const int32_t *)out[1]->data)[i], want_j[i]);
  }
  tfc_tensor_unref(out[0]);
  tfc_tensor_unref(out[1]);
  /* NaN above everything (NaNs tie), -0.0 equal to 0.0: ties by index (device/top_k_order.h). */
  tfc_tensor_unref(in[0]);
  in[0] = ku_f32((int64_t[]){1, 6}, 2, (float[]){0.0f, NAN, -0.0f, -INFINITY, -NAN, 1});
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(NULL, 0, (int32_t[]){6});
  EXPECT_EQ(ku_run("TopKV2", NULL, 0, in, 2, NULL, out, 2, &s), TFC_OK);
  const int32_t want_nan[6] = {1, 4, 5, 0, 2, 3};
  for (int i = 0; i < 6; i++) EXPECT_EQ(((const int32_t *)out[1]->data)[i], want_nan[i]);
  EXPECT_TRUE(isnan(((const float *)out[0]->data)[0]) && ((const float *)out[0]->data)[5] == -INFINITY);
  tfc_tensor_unref(out[0]);
  tfc_tensor_unref(out[1]);
  tfc_tensor_unref(in[0]);
  in[0] = ku_i32((int64_t[]){1, 4}, 2, (int32_t[]){5, 7, 7, 1});
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(NULL, 0, (int32_t[]){5});
  /* (k comes from a placeholder here, so the kernel checks it; the shape function's check of a
   * const k is tested from Python) */
  EXPECT_EQ(ku_run_unknown("TopKV2", NULL, 0, in, 2, out, 2, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "input must have at least k columns. Had 4, needed 5");
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

static void lin_space_includes_both_ends(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *in[3] = {ku_f32(NULL, 0, (float[]){-1.0f}), ku_f32(NULL, 0, (float[]){2.0f}),
                       ku_i32(NULL, 0, (int32_t[]){4})};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("LinSpace", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  expect_f32(out, 4, (float[]){-1, 0, 1, 2});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[2]);
  in[2] = ku_i32(NULL, 0, (int32_t[]){1});
  EXPECT_EQ(ku_run("LinSpace", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  expect_f32(out, 1, (float[]){-1});
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[2]);
  in[2] = ku_i32(NULL, 0, (int32_t[]){0});
  EXPECT_EQ(ku_run("LinSpace", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Requires num > 0: 0");
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static void dynamic_partition_sends_rows_in_order(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *in[2] = {ku_f32((int64_t[]){5, 2}, 2, (float[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
                       ku_i32((int64_t[]){5}, 1, (int32_t[]){0, 1, 0, 2, 1})};
  tfc_tensor *out[3] = {NULL, NULL, NULL};
  ku_attr a[1] = {{"num_partitions", tfc_attr_int(3)}};
  EXPECT_EQ(ku_run("DynamicPartition", a, 1, in, 2, NULL, out, 3, &s), TFC_OK);
  expect_f32(out[0], 4, (float[]){0, 1, 4, 5});
  expect_f32(out[1], 4, (float[]){2, 3, 8, 9});
  expect_f32(out[2], 2, (float[]){6, 7});
  EXPECT_EQ(out[2]->ndims, 2);
  EXPECT_EQ(out[2]->dims[0], 1);
  for (int i = 0; i < 3; i++) tfc_tensor_unref(out[i]);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32((int64_t[]){5}, 1, (int32_t[]){0, 1, 0, 3, 1});
  a[0] = (ku_attr){"num_partitions", tfc_attr_int(3)};
  EXPECT_EQ(ku_run("DynamicPartition", a, 1, in, 2, NULL, out, 3, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "partitions[3] = 3 is not in [0, 3)");
  for (int i = 0; i < 2; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(dynamic_partition_sends_rows_in_order), TFC_TEST(lin_space_includes_both_ends), TFC_TEST(where_gives_coordinates_of_true_entries),
                                 TFC_TEST(classifications_of_floats), TFC_TEST(gather_nd_gathers_elements_and_slices),
                                 TFC_TEST(top_k_sorts_rows_ties_by_index), {0}};

TFC_TEST_MAIN(tests)
