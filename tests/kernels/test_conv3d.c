/*
 * Kernel tests of the 3-D family: Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2,
 * MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad against TensorFlow's own outputs
 * (tests/fixtures/conv3d_cases.txt, made by gen_conv3d.py: forward outputs and tf.gradients),
 * in float and double (convolutions), SAME/VALID, mixed strides, dilations, max-pooling ties
 * (every tied input gets the gradient, TF's CPU rule) and a batch cut into uneven shards; then
 * the attr, shape-function and kernel errors with TF's codes and texts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

#include "conv_fixture.h"

static void run3(const char *op, int min_cases) {
  run_fixture_file_op(TFC_FIXTURE_DIR "/conv3d_cases.txt", op, min_cases);
}

static void conv3d_matches_tensorflow(void) { run3("Conv3D", 8); }
static void conv3d_backprop_input_matches_tensorflow(void) { run3("Conv3DBackpropInputV2", 8); }
static void conv3d_backprop_filter_matches_tensorflow(void) { run3("Conv3DBackpropFilterV2", 8); }
static void max_pool3d_matches_tensorflow(void) { run3("MaxPool3D", 4); }
static void avg_pool3d_matches_tensorflow(void) { run3("AvgPool3D", 4); }
static void max_pool3d_grad_gives_every_tie_the_gradient(void) { run3("MaxPool3DGrad", 4); }
static void avg_pool3d_grad_matches_tensorflow(void) { run3("AvgPool3DGrad", 4); }

/* ---- errors ---- */

static tfc_attr_value ints(int n, const int *x) {
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_INT);
  for (int i = 0; i < n; i++) {
    tfc_attr_value item = tfc_attr_int(x[i]);
    tfc_attr_list_append(&v, &item, NULL);
  }
  return v;
}
#define INTS(...) ints((int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

static tfc_attr_value str(const char *s) {
  tfc_attr_value v;
  tfc_attr_string(s, strlen(s), &v, NULL);
  return v;
}

static void free_attrs(ku_attr *a, int n) {
  for (int i = 0; i < n; i++) tfc_attr_value_fini(&a[i].value);
}

/* Runs op on float inputs of the given shapes (unknown to the graph when `unknown`, so the
 * kernel, not the shape function, checks them) and expects code and a message containing
 * want. Takes the attrs. */
static void expect_error(const char *op, ku_attr *attrs, int n_attrs, tfc_tensor **in, int n_in, int unknown, int code,
                         const char *want) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  int rc = unknown ? ku_run_unknown(op, attrs, n_attrs, in, n_in, &out, 1, &s)
                   : ku_run(op, attrs, n_attrs, in, n_in, NULL, &out, 1, &s);
  if (rc != code) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s), want %d", op, rc, tfc_status_msg(&s), code);
  EXPECT_CONTAINS(tfc_status_msg(&s), want);
  for (int i = 0; i < n_in; i++) tfc_tensor_unref(in[i]);
  free_attrs(attrs, n_attrs);
  tfc_status_fini(&s);
}

static tfc_tensor *f5(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  int64_t dims[5] = {a, b, c, d, e};
  return ku_f32(dims, 5, NULL);
}

static tfc_tensor *sizes(int n, const int32_t *v) {
  int64_t len = n;
  return ku_i32(&len, 1, v);
}

static void conv3d_attr_errors(void) {
  {
    ku_attr a[2] = {{"strides", INTS(2, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 1, TFC_INVALID_ARGUMENT,
                 "Current implementation does not yet support strides in the batch and depth dimensions.");
  }
  {
    ku_attr a[3] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}, {"dilations", INTS(2, 1, 1, 1, 1)}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 3, in, 2, 1, TFC_INVALID_ARGUMENT,
                 "Current implementation does not yet support dilation rates in the batch and depth dimensions.");
  }
  {
    ku_attr a[3] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}, {"dilations", INTS(1, 0, 1, 1, 1)}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 3, in, 2, 1, TFC_INVALID_ARGUMENT, "Dilated rates should be larger than 0.");
  }
  {
    ku_attr a[3] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}, {"data_format", str("NCDHW")}};
    tfc_tensor *in[2] = {f5(1, 2, 4, 4, 4), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 3, in, 2, 1, TFC_INVALID_ARGUMENT,
                 "CPU implementation of Conv3D currently only supports the NHWC tensor format.");
  }
  {
    ku_attr a[3] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}, {"data_format", str("NCDHW")}};
    int32_t xs[5] = {1, 2, 4, 4, 4};
    tfc_tensor *in[3] = {sizes(5, xs), f5(2, 2, 2, 2, 3), f5(1, 3, 4, 4, 4)};
    expect_error("Conv3DBackpropInputV2", a, 3, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "Conv3DBackpropInputOpV2 only supports NDHWC on the CPU.");
  }
  {
    /* NCDHW's depth stride (index 1) is refused before the layout itself, as TF */
    ku_attr a[3] = {{"strides", INTS(1, 2, 1, 1, 1)}, {"padding", str("SAME")}, {"data_format", str("NCDHW")}};
    tfc_tensor *in[2] = {f5(1, 2, 4, 4, 4), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 3, in, 2, 1, TFC_INVALID_ARGUMENT,
                 "Current implementation does not yet support strides in the batch and depth dimensions.");
  }
  {
    /* the op def's minimum, checked when the node is made */
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 0, TFC_INVALID_ARGUMENT, "must be at least minimum 5");
  }
}

static void conv3d_shape_function_errors(void) {
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int64_t d4[4] = {4, 4, 4, 2};
    tfc_tensor *in[2] = {ku_f32(d4, 4, NULL), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 0, TFC_INVALID_ARGUMENT, "Shape must be rank 5 but is rank 4");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("VALID")}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(5, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 0, TFC_INVALID_ARGUMENT, "Negative dimension size caused by subtracting 5 from 4");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 0, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 0, TFC_INVALID_ARGUMENT, "Stride must be > 0, but got 0");
  }
  {
    ku_attr a[3] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}, {"dilations", INTS(1, 2, 2, 1)}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 3, in, 2, 0, TFC_INVALID_ARGUMENT,
                 "Conv3D requires the dilation attribute to contain 5 values, but got: 4");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t xs[4] = {1, 4, 4, 4};
    tfc_tensor *in[3] = {sizes(4, xs), f5(2, 2, 2, 2, 3), f5(1, 4, 4, 4, 3)};
    expect_error("Conv3DBackpropInputV2", a, 2, in, 3, 0, TFC_INVALID_ARGUMENT, "Shape must be rank 5 but is rank 4");
  }
}

static void conv3d_kernel_shape_errors(void) {
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int64_t d4[4] = {4, 4, 4, 2};
    tfc_tensor *in[2] = {ku_f32(d4, 4, NULL), f5(2, 2, 2, 2, 3)};
    expect_error("Conv3D", a, 2, in, 2, 1, TFC_INVALID_ARGUMENT, "input must be 5-dimensional");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int64_t d4[4] = {2, 2, 2, 3};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), ku_f32(d4, 4, NULL)};
    expect_error("Conv3D", a, 2, in, 2, 1, TFC_INVALID_ARGUMENT, "filter must be 5-dimensional: [2,2,2,3]");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[2] = {f5(1, 4, 4, 4, 2), f5(2, 2, 2, 3, 3)};
    expect_error("Conv3D", a, 2, in, 2, 1, TFC_INVALID_ARGUMENT, "input and filter must have the same depth: 2 vs 3");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t xs[5] = {1, 4, 4, 4, 2};
    tfc_tensor *in[3] = {sizes(5, xs), f5(2, 2, 2, 2, 3), f5(1, 3, 4, 4, 3)};
    expect_error("Conv3DBackpropInputV2", a, 2, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 3, computed = 4 "
                 "spatial_dim: 1 input: 4 filter: 2 output: 3 stride: 1 dilation: 1");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t xs[5] = {2, 4, 4, 4, 2};
    tfc_tensor *in[3] = {sizes(5, xs), f5(2, 2, 2, 2, 3), f5(1, 4, 4, 4, 3)};
    expect_error("Conv3DBackpropInputV2", a, 2, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "Conv3DBackpropInputOp: input and out_backprop must have the same batch size. Input batch: 2, "
                 "outbackprop batch: 1, batch_dim: 0");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t xs[4] = {1, 4, 4, 2};
    tfc_tensor *in[3] = {sizes(4, xs), f5(2, 2, 2, 2, 3), f5(1, 4, 4, 4, 3)};
    expect_error("Conv3DBackpropInputV2", a, 2, in, 3, 1, TFC_INVALID_ARGUMENT, "input tensor must have 5 dimensions");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t fs[5] = {2, 2, 2, 3, 3};
    tfc_tensor *in[3] = {f5(1, 4, 4, 4, 2), sizes(5, fs), f5(1, 4, 4, 4, 3)};
    expect_error("Conv3DBackpropFilterV2", a, 2, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "input and filter_sizes must have the same number of channels. Got 2 for input and 3 for "
                 "filter_sizes");
  }
  {
    ku_attr a[2] = {{"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t fs[5] = {2, 2, 2, 2, 3};
    tfc_tensor *in[3] = {f5(1, 4, 4, 4, 2), sizes(5, fs), f5(1, 4, 4, 4, 2)};
    expect_error("Conv3DBackpropFilterV2", a, 2, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "out_backprop and filter_sizes must have the same number of channels. Got 2 for out_backprop "
                 "and 3 for filter_sizes");
  }
}

static void pool3d_errors(void) {
  {
    ku_attr a[3] = {{"ksize", INTS(2, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[1] = {f5(1, 4, 4, 4, 2)};
    expect_error("MaxPool3D", a, 3, in, 1, 1, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 2)}, {"padding", str("SAME")}};
    tfc_tensor *in[1] = {f5(1, 4, 4, 4, 2)};
    expect_error("AvgPool3D", a, 3, in, 1, 1, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the depth dimension.");
  }
  {
    ku_attr a[4] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")},
                    {"data_format", str("NCDHW")}};
    tfc_tensor *in[1] = {f5(1, 2, 4, 4, 4)};
    expect_error("MaxPool3D", a, 4, in, 1, 1, TFC_INVALID_ARGUMENT,
                 "Default Pooling3DOp only supports NDHWC on device type CPU");
  }
  {
    /* pooling refuses the layout first, whatever the window */
    ku_attr a[4] = {{"ksize", INTS(1, 2, 2, 2, 2)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")},
                    {"data_format", str("NCDHW")}};
    tfc_tensor *in[1] = {f5(1, 2, 4, 4, 4)};
    expect_error("AvgPool3D", a, 4, in, 1, 1, TFC_INVALID_ARGUMENT,
                 "Default Pooling3DOp only supports NDHWC on device type CPU");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int64_t d4[4] = {4, 4, 4, 2};
    tfc_tensor *in[1] = {ku_f32(d4, 4, NULL)};
    expect_error("AvgPool3D", a, 3, in, 1, 1, TFC_INVALID_ARGUMENT, "tensor_in must be 5-dimensional");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int64_t d4[4] = {4, 4, 4, 2};
    tfc_tensor *in[1] = {ku_f32(d4, 4, NULL)};
    expect_error("AvgPool3D", a, 3, in, 1, 0, TFC_INVALID_ARGUMENT, "Shape must be rank 5 but is rank 4");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 5, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("VALID")}};
    tfc_tensor *in[1] = {f5(1, 4, 4, 4, 2)};
    expect_error("AvgPool3D", a, 3, in, 1, 0, TFC_INVALID_ARGUMENT,
                 "Negative dimension size caused by subtracting 5 from 4");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    tfc_tensor *in[3] = {f5(1, 4, 4, 4, 2), f5(1, 4, 4, 4, 2), f5(1, 3, 4, 4, 2)};
    expect_error("MaxPool3DGrad", a, 3, in, 3, 1, TFC_INVALID_ARGUMENT,
                 "Expected grad shape to be [1,4,4,4,2], but got [1,3,4,4,2]");
  }
  {
    ku_attr a[3] = {{"ksize", INTS(1, 2, 2, 2, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("SAME")}};
    int32_t xs[4] = {1, 4, 4, 2};
    tfc_tensor *in[2] = {sizes(4, xs), f5(1, 4, 4, 4, 2)};
    expect_error("AvgPool3DGrad", a, 3, in, 2, 1, TFC_INVALID_ARGUMENT,
                 "tensor_in must be 1-dimensional and 5 elements");
  }
}

/* A VALID window larger than the input along D gives an empty output (as TF), not an error. */
static void avg_pool3d_empty_output(void) {
  tfc_status s;
  tfc_status_init(&s);
  ku_attr a[3] = {{"ksize", INTS(1, 3, 1, 1, 1)}, {"strides", INTS(1, 1, 1, 1, 1)}, {"padding", str("VALID")}};
  tfc_tensor *in[1] = {f5(1, 2, 4, 4, 2)};
  tfc_tensor *out = NULL;
  int rc = ku_run_unknown("AvgPool3D", a, 3, in, 1, &out, 1, &s);
  if (rc != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  EXPECT_EQ(out->ndims, 5);
  EXPECT_EQ(out->dims[1], 0);
  EXPECT_EQ(out->n_elems, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  free_attrs(a, 3);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(conv3d_matches_tensorflow),
    TFC_TEST(conv3d_backprop_input_matches_tensorflow),
    TFC_TEST(conv3d_backprop_filter_matches_tensorflow),
    TFC_TEST(max_pool3d_matches_tensorflow),
    TFC_TEST(avg_pool3d_matches_tensorflow),
    TFC_TEST(max_pool3d_grad_gives_every_tie_the_gradient),
    TFC_TEST(avg_pool3d_grad_matches_tensorflow),
    TFC_TEST(conv3d_attr_errors),
    TFC_TEST(conv3d_shape_function_errors),
    TFC_TEST(conv3d_kernel_shape_errors),
    TFC_TEST(pool3d_errors),
    TFC_TEST(avg_pool3d_empty_output),
    {0}};
TFC_TEST_MAIN(tests)
