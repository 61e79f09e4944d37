/*
 * Kernel tests: Conv2D, its backprops and the pooling ops against TensorFlow's own outputs
 * (tests/fixtures/conv_cases.txt, made by gen_conv.py), in float and double, NHWC and NCHW,
 * SAME/VALID/EXPLICIT padding, strides, dilations, max-pooling ties, and batches big enough
 * to be cut into uneven shards; then the shape functions' and kernels' errors with TF's
 * codes and texts.
 *
 * The fixture stores no inputs: gen() (conv_fixture.h) is the generator's formula (exact in float).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

#include "conv_fixture.h"

static void run_fixture_op(const char *op) { run_fixture_file_op(TFC_FIXTURE_DIR "/conv_cases.txt", op, 5); }

static void conv2d_matches_tensorflow(void) { run_fixture_op("Conv2D"); }
static void conv2d_backprop_input_matches_tensorflow(void) { run_fixture_op("Conv2DBackpropInput"); }
static void conv2d_backprop_filter_matches_tensorflow(void) { run_fixture_op("Conv2DBackpropFilter"); }
static void max_pool_matches_tensorflow(void) { run_fixture_op("MaxPool"); }
static void avg_pool_matches_tensorflow(void) { run_fixture_op("AvgPool"); }
static void max_pool_grad_routes_ties_like_tensorflow(void) { run_fixture_op("MaxPoolGrad"); }
static void avg_pool_grad_matches_tensorflow(void) { run_fixture_op("AvgPoolGrad"); }

/* ---- errors ---- */

static tfc_attr_value ints4(int a, int b, int c, int d) {
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_INT);
  int x[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++) {
    tfc_attr_value item = tfc_attr_int(x[i]);
    tfc_attr_list_append(&v, &item, NULL);
  }
  return v;
}

static tfc_attr_value str(const char *s) {
  tfc_attr_value v;
  tfc_attr_string(s, strlen(s), &v, NULL);
  return v;
}

/* Runs Conv2D with the given strides/padding on zero tensors; returns the code, message in s. */
static int conv_err(const int64_t *xd, const int64_t *fd, tfc_attr_value strides, const char *padding,
                    tfc_attr_value *dilations, tfc_status *s) {
  tfc_tensor *in[2] = {ku_f32(xd, 4, NULL), ku_f32(fd, 4, NULL)};
  ku_attr attrs[3] = {{"strides", strides}, {"padding", str(padding)}};
  int n = 2;
  if (dilations) attrs[n++] = (ku_attr){"dilations", *dilations};
  tfc_tensor *out = NULL;
  int rc = ku_run("Conv2D", attrs, n, in, 2, NULL, &out, 1, s);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  return rc;
}

static void conv2d_rejects_mismatched_depth(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {1, 5, 5, 3}, fd[4] = {2, 2, 4, 2};
  EXPECT_EQ(conv_err(xd, fd, ints4(1, 1, 1, 1), "VALID", NULL, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimensions must be equal, but are 3 and 4 for 'op' (op: 'Conv2D')");
  tfc_status_fini(&s);
}

static void conv2d_rejects_batch_and_depth_strides(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {1, 5, 5, 3}, fd[4] = {2, 2, 3, 2};
  EXPECT_EQ(conv_err(xd, fd, ints4(2, 1, 1, 1), "VALID", NULL, &s), TFC_UNIMPLEMENTED);
  EXPECT_CONTAINS(tfc_status_msg(&s),
                  "Current implementation does not yet support strides in the batch and depth dimensions.");
  tfc_status_clear(&s);
  EXPECT_EQ(conv_err(xd, fd, ints4(1, 0, 1, 1), "VALID", NULL, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Stride must be > 0");
  tfc_status_clear(&s);
  tfc_attr_value dil = ints4(1, 1, 1, 2);
  EXPECT_EQ(conv_err(xd, fd, ints4(1, 1, 1, 1), "VALID", &dil, &s), TFC_UNIMPLEMENTED);
  EXPECT_CONTAINS(tfc_status_msg(&s),
                  "Current implementation does not yet support dilations in the batch and depth dimensions.");
  tfc_status_fini(&s);
}

static void conv2d_rejects_wrong_stride_count_and_rank(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {1, 5, 5, 3}, fd[4] = {2, 2, 3, 2};
  tfc_attr_value three = tfc_attr_list(TFC_ATTR_INT);
  for (int i = 0; i < 3; i++) {
    tfc_attr_value one = tfc_attr_int(1);
    tfc_attr_list_append(&three, &one, NULL);
  }
  EXPECT_EQ(conv_err(xd, fd, three, "VALID", NULL, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Conv2D requires the stride attribute to contain 4 values, but got: 3");
  tfc_status_clear(&s);
  int64_t small[4] = {1, 1, 1, 3};
  EXPECT_EQ(conv_err(small, fd, ints4(1, 1, 1, 1), "VALID", NULL, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Negative dimension size caused by subtracting 2 from 1");
  tfc_status_clear(&s);
  int64_t x3[3] = {1, 5, 5};
  tfc_tensor *in[2] = {ku_f32(x3, 3, NULL), ku_f32(fd, 4, NULL)};
  ku_attr attrs[2] = {{"strides", ints4(1, 1, 1, 1)}, {"padding", str("SAME")}};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("Conv2D", attrs, 2, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 4 but is rank 3");
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

static void conv2d_explicit_padding_errors(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {1, 5, 5, 3}, fd[4] = {2, 2, 3, 2};
  tfc_tensor *in[2] = {ku_f32(xd, 4, NULL), ku_f32(fd, 4, NULL)};
  ku_attr attrs[3] = {{"strides", ints4(1, 1, 1, 1)}, {"padding", str("EXPLICIT")}, {"explicit_paddings", ints4(0, 0, 1, 1)}};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("Conv2D", attrs, 3, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "explicit_paddings attribute must contain 8 values, but got: 4");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void conv2d_backprop_input_checks_out_backprop(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t sizes[4] = {1, 5, 5, 3};
  int64_t four = 4, fd[4] = {2, 2, 3, 2}, dyd[4] = {1, 3, 4, 2};
  tfc_tensor *in[3] = {ku_i32(&four, 1, sizes), ku_f32(fd, 4, NULL), ku_f32(dyd, 4, NULL)};
  ku_attr attrs[2] = {{"strides", ints4(1, 1, 1, 1)}, {"padding", str("VALID")}};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("Conv2DBackpropInput", attrs, 2, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s),
                  "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 3, computed = 4");
  tfc_status_clear(&s);
  sizes[3] = 4;
  tfc_tensor_unref(in[0]);
  in[0] = ku_i32(&four, 1, sizes);
  EXPECT_EQ(ku_run("Conv2DBackpropInput", attrs, 2, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Conv2DCustomBackpropInput: input and filter must have the same depth");
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static void conv2d_backprop_filter_checks_out_depth(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t sizes[4] = {2, 2, 3, 2};
  int64_t four = 4, xd[4] = {1, 5, 5, 3}, dyd[4] = {1, 4, 4, 3};
  tfc_tensor *in[3] = {ku_f32(xd, 4, NULL), ku_i32(&four, 1, sizes), ku_f32(dyd, 4, NULL)};
  ku_attr attrs[2] = {{"strides", ints4(1, 1, 1, 1)}, {"padding", str("VALID")}};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("Conv2DBackpropFilter", attrs, 2, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Conv2DCustomBackpropFilter: filter and out_backprop must have the same out_depth");
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static int pool_err(const char *op, tfc_attr_value ksize, tfc_attr_value strides, tfc_status *s) {
  int64_t xd[4] = {1, 5, 5, 3};
  tfc_tensor *in = ku_f32(xd, 4, NULL);
  ku_attr attrs[3] = {{"ksize", ksize}, {"strides", strides}, {"padding", str("VALID")}};
  tfc_tensor *out = NULL;
  int rc = ku_run(op, attrs, 3, &in, 1, NULL, &out, 1, s);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in);
  return rc;
}

static void pooling_rejects_batch_and_mixed_depth_windows(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(pool_err("MaxPool", ints4(2, 2, 2, 1), ints4(1, 1, 1, 1), &s), TFC_UNIMPLEMENTED);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Pooling is not yet supported on the batch dimension.");
  tfc_status_clear(&s);
  EXPECT_EQ(pool_err("AvgPool", ints4(1, 2, 2, 2), ints4(1, 1, 1, 1), &s), TFC_UNIMPLEMENTED);
  EXPECT_CONTAINS(tfc_status_msg(&s),
                  "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
  tfc_status_clear(&s);
  EXPECT_EQ(pool_err("AvgPool", ints4(1, 6, 6, 1), ints4(1, 1, 1, 1), &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Negative dimension size caused by subtracting 6 from 5 for 'op' (op: 'AvgPool')");
  tfc_status_fini(&s);
}

static void max_pool_grad_checks_grad_shape(void) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {1, 5, 5, 3}, yd[4] = {1, 4, 4, 3}, bad[4] = {1, 3, 4, 3};
  tfc_tensor *in[3] = {ku_f32(xd, 4, NULL), ku_f32(yd, 4, NULL), ku_f32(bad, 4, NULL)};
  ku_attr attrs[3] = {{"ksize", ints4(1, 2, 2, 1)}, {"strides", ints4(1, 1, 1, 1)}, {"padding", str("VALID")}};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("MaxPoolGrad", attrs, 3, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Expected grad shape to be [1,4,4,3], but got [1,3,4,3]");
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static void avg_pool_grad_needs_four_sizes(void) {
  tfc_status s;
  tfc_status_init(&s);
  int32_t sizes[3] = {1, 5, 5};
  int64_t three = 3, gd[4] = {1, 4, 4, 3};
  tfc_tensor *in[2] = {ku_i32(&three, 1, sizes), ku_f32(gd, 4, NULL)};
  ku_attr attrs[3] = {{"ksize", ints4(1, 2, 2, 1)}, {"strides", ints4(1, 1, 1, 1)}, {"padding", str("VALID")}};
  tfc_tensor *out = NULL;
  int rc = ku_run("AvgPoolGrad", attrs, 3, in, 2, NULL, &out, 1, &s);
  EXPECT_EQ(rc, TFC_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(tfc_status_msg(&s), "out_backprop must be 1-dimensional and 4 elements") ||
              strstr(tfc_status_msg(&s), "Shape must be rank 4 but is rank 3"));
  for (int i = 0; i < 2; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(conv2d_matches_tensorflow),
    TFC_TEST(conv2d_backprop_input_matches_tensorflow),
    TFC_TEST(conv2d_backprop_filter_matches_tensorflow),
    TFC_TEST(max_pool_matches_tensorflow),
    TFC_TEST(avg_pool_matches_tensorflow),
    TFC_TEST(max_pool_grad_routes_ties_like_tensorflow),
    TFC_TEST(avg_pool_grad_matches_tensorflow),
    TFC_TEST(conv2d_rejects_mismatched_depth),
    TFC_TEST(conv2d_rejects_batch_and_depth_strides),
    TFC_TEST(conv2d_rejects_wrong_stride_count_and_rank),
    TFC_TEST(conv2d_explicit_padding_errors),
    TFC_TEST(conv2d_backprop_input_checks_out_backprop),
    TFC_TEST(conv2d_backprop_filter_checks_out_depth),
    TFC_TEST(pooling_rejects_batch_and_mixed_depth_windows),
    TFC_TEST(max_pool_grad_checks_grad_shape),
    TFC_TEST(avg_pool_grad_needs_four_sizes),
    {0}};
TFC_TEST_MAIN(tests)
