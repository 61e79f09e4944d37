/* ReverseV2 and ReverseSequence kernels: values TensorFlow computed for the same inputs, and
 * TF's error texts for what only the kernel can see (axis and length values). */
#include <stdint.h>

#include "harness.h"
#include "kernel_util.c"

/* x = arange(24) as [2, 3, 4] */
static tfc_tensor *arange24(void) {
  float v[24];
  for (int i = 0; i < 24; i++) v[i] = (float)i;
  return ku_f32((int64_t[]){2, 3, 4}, 3, v);
}

static void expect_floats(const tfc_tensor *t, const float *want, int n) {
  EXPECT_EQ(t->n_elems, n);
  for (int i = 0; i < n; i++)
    if (((const float *)t->data)[i] != want[i])
      tfc_test_fail(__FILE__, __LINE__, "element %d: %g, TensorFlow %g", i, ((const float *)t->data)[i], want[i]);
}

static void reverse_v2_reverses_each_named_axis(void) {
  tfc_tensor *in[2] = {arange24(), ku_i32((int64_t[]){2}, 1, (int32_t[]){1, -1})}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("ReverseV2", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  const float want[24] = {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12};
  EXPECT_EQ(out->ndims, 3);
  expect_floats(out, want, 24);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* out of range, named twice, not a vector */
  in[1] = ku_i32((int64_t[]){1}, 1, (int32_t[]){3});
  EXPECT_EQ(ku_run("ReverseV2", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "'axis'[0] = 3 is out of valid range [0, 2");
  tfc_status_clear(&s);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32((int64_t[]){2}, 1, (int32_t[]){1, -2});
  EXPECT_EQ(ku_run("ReverseV2", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "axis 1 specified more than once.");
  tfc_status_clear(&s);
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32((int64_t[]){1, 1}, 2, (int32_t[]){1});
  EXPECT_EQ(ku_run_unknown("ReverseV2", NULL, 0, in, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "'dims' must be 1-dimension, not 2");
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

static int run_rs(tfc_tensor *x, const int64_t *lens, int n, int64_t seq_dim, int64_t batch_dim, tfc_tensor **out,
                  tfc_status *s) {
  tfc_tensor *in[2] = {x, ku_i64((int64_t[]){n}, 1, lens)};
  ku_attr attrs[2] = {{"seq_dim", tfc_attr_int(seq_dim)}, {"batch_dim", tfc_attr_int(batch_dim)}};
  int rc = ku_run("ReverseSequence", attrs, 2, in, 2, NULL, out, 1, s);
  tfc_tensor_unref(in[1]);
  return rc;
}

static void reverse_sequence_reverses_each_rows_prefix(void) {
  tfc_tensor *x = arange24(), *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 3}, 2, 1, 0, &out, &s), TFC_OK);
  const float want1[24] = {4,  5,  6,  7,  0,  1,  2,  3,  8,  9,  10, 11,
                           20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15};
  expect_floats(out, want1, 24);
  tfc_tensor_unref(out);
  /* batch after sequence in dim order: seq_dim 2, batch_dim 1, lengths 4, 1, 0 */
  EXPECT_EQ(run_rs(x, (int64_t[]){4, 1, 0}, 3, 2, 1, &out, &s), TFC_OK);
  const float want2[24] = {3,  2,  1,  0,  4,  5,  6,  7,  8,  9,  10, 11,
                           15, 14, 13, 12, 16, 17, 18, 19, 20, 21, 22, 23};
  expect_floats(out, want2, 24);
  tfc_tensor_unref(out);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 4}, 2, 1, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "seq_lens(1) > input.dims(1)");
  tfc_status_clear(&s);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, -1}, 2, 1, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "seq_lens(1) < 0");
  tfc_status_clear(&s);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 1}, 2, 0, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "batch_dim == seq_dim == 0");
  tfc_status_clear(&s);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 1}, 2, -1, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Invalid seq_dim -1");
  tfc_status_clear(&s);
  /* the shape function checks what the graph knows */
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 3, 1}, 3, 1, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimensions must be equal, but are 2 and 3");
  tfc_status_clear(&s);
  EXPECT_EQ(run_rs(x, (int64_t[]){2, 1}, 2, 3, 0, &out, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "seq_dim must be < input rank: 3 vs. 3");
  tfc_tensor_unref(x);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(reverse_v2_reverses_each_named_axis),
                                 TFC_TEST(reverse_sequence_reverses_each_rows_prefix), {0}};

TFC_TEST_MAIN(tests)
