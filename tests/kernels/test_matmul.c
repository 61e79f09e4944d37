/* Kernel tests: MatMul against a double-precision reference. */
#include "harness.h"
#include "kernel_util.c"

static void check_matmul(int ta, int tb) {
  int64_t m = 3, k = 4, n = 5;
  float a[12], b[20];
  for (int i = 0; i < 12; i++) a[i] = (float)(i * 0.5 - 2);
  for (int i = 0; i < 20; i++) b[i] = (float)(i % 7 - 3);
  int64_t da[2] = {ta ? k : m, ta ? m : k}, db[2] = {tb ? n : k, tb ? k : n};
  tfc_tensor *in[2] = {ku_f32(da, 2, a), ku_f32(db, 2, b)};
  ku_attr attrs[2] = {{"transpose_a", tfc_attr_bool(ta)}, {"transpose_b", tfc_attr_bool(tb)}};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("MatMul", attrs, 2, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 2);
  EXPECT_EQ(out->dims[0], m);
  EXPECT_EQ(out->dims[1], n);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double ref = 0;
      for (int64_t p = 0; p < k; p++)
        ref += (double)(ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      EXPECT_NEAR(((float *)out->data)[i * n + j], ref, 1e-5);
    }
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void matmul_matches_reference(void) { check_matmul(0, 0); }
static void matmul_transpose_a(void) { check_matmul(1, 0); }
static void matmul_transpose_b(void) { check_matmul(0, 1); }
static void matmul_transpose_both(void) { check_matmul(1, 1); }

static void matmul_rejects_mismatched_inner_dims(void) {
  int64_t da[2] = {2, 3};
  tfc_tensor *in[2] = {ku_f32(da, 2, NULL), ku_f32(da, 2, NULL)};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("MatMul", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimensions must be equal, but are 3 and 2 for 'op' (op: 'MatMul') with input shapes: [2,3], [2,3].");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void matmul_int32(void) {
  int64_t d[2] = {2, 2};
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  tfc_tensor *in[2] = {ku_i32(d, 2, a), ku_i32(d, 2, b)};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("MatMul", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  int32_t *o = out->data;
  EXPECT_EQ(o[0], 19);
  EXPECT_EQ(o[1], 22);
  EXPECT_EQ(o[2], 43);
  EXPECT_EQ(o[3], 50);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static const tfc_test tests[] = {
    TFC_TEST(matmul_matches_reference), TFC_TEST(matmul_transpose_a), TFC_TEST(matmul_transpose_b),
    TFC_TEST(matmul_transpose_both), TFC_TEST(matmul_rejects_mismatched_inner_dims), TFC_TEST(matmul_int32),
    {0}};
TFC_TEST_MAIN(tests)
