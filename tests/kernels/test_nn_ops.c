/*
 * Kernel tests: the nn and array ops of image and text models against TensorFlow's own
 * outputs (tests/fixtures/nn_ops_cases.txt, made by gen_nn_ops.py): DepthwiseConv2dNative and
 * its backprops, Conv2D and its backprops with dilations (with strides too) and EXPLICIT
 * padding, SpaceToBatchND / BatchToSpaceND and the legacy SpaceToBatch / BatchToSpace,
 * LRN / LRNGrad, Einsum, BatchMatMulV2 broadcasting, ClipByValue, Tan, the float
 * classifications and FusedBatchNorm / FusedBatchNormV2 with their gradients; then the
 * errors of these ops with TF's codes and texts.
 *
 * Each fixture case stores its inputs and expected outputs as text (see the generator's
 * docstring); floats compare at 1e-5 relative, integers and bools exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

#define NC_MAX_IO 8

typedef struct nn_case {
  char name[64], op[48];
  int n_attrs;
  ku_attr attrs[8];
  char attr_names[8][32];
  int n_inputs, n_outputs;
  tfc_tensor *inputs[NC_MAX_IO], *expect[NC_MAX_IO];
} nn_case;

static void case_free(nn_case *c) {
  for (int i = 0; i < c->n_attrs; i++) tfc_attr_value_fini(&c->attrs[i].value);
  for (int i = 0; i < c->n_inputs; i++) tfc_tensor_unref(c->inputs[i]);
  for (int i = 0; i < c->n_outputs; i++) tfc_tensor_unref(c->expect[i]);
  memset(c, 0, sizeof *c);
}

static int dtype_of(const char *name) { return tfc_dtype_from_name(name, strlen(name)); }

/* Parses "<dtype> <rank> <dims...> : <values...>" into a new tensor. */
static tfc_tensor *parse_tensor(char *p) {
  char dt[16];
  int nd, used;
  int64_t dims[8];
  if (sscanf(p, "%15s %d%n", dt, &nd, &used) != 2) return NULL;
  p += used;
  for (int d = 0; d < nd; d++) dims[d] = strtoll(p, &p, 10);
  p = strchr(p, ':');
  if (!p) return NULL;
  p++;
  tfc_tensor *t = ku_typed(dtype_of(dt), dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) ku_set(t, i, strtod(p, &p));
  return t;
}

/* Reads the next case; 0 at the end of the file. */
static int read_case(FILE *f, nn_case *c) {
  char *buf = NULL;
  size_t cap = 0;
  memset(c, 0, sizeof *c);
  while (getline(&buf, &cap, f) > 0) {
    char *p = buf, word[64];
    int used;
    if (sscanf(p, "%63s%n", word, &used) != 1 || word[0] == '#') continue;
    p += used;
    if (!strcmp(word, "case")) {
      sscanf(p, "%63s", c->name);
    } else if (!strcmp(word, "op")) {
      sscanf(p, "%47s", c->op);
    } else if (!strcmp(word, "attr")) {
      char kind[8], sval[256];
      ku_attr *a = &c->attrs[c->n_attrs];
      sscanf(p, "%31s %7s%n", c->attr_names[c->n_attrs], kind, &used);
      a->name = c->attr_names[c->n_attrs++];
      p += used;
      if (!strcmp(kind, "s")) {
        sscanf(p, " %255[^\n]", sval);
        tfc_attr_string(sval, strlen(sval), &a->value, NULL);
      } else if (!strcmp(kind, "i")) {
        a->value = tfc_attr_int(strtoll(p, NULL, 10));
      } else if (!strcmp(kind, "f")) {
        a->value = tfc_attr_float(strtof(p, NULL));
      } else if (!strcmp(kind, "b")) {
        a->value = tfc_attr_bool((int)strtol(p, NULL, 10));
      } else if (!strcmp(kind, "type")) {
        sscanf(p, "%255s", sval);
        a->value = tfc_attr_type(dtype_of(sval));
      } else {
        a->value = tfc_attr_list(TFC_ATTR_INT);
        long long v;
        while (sscanf(p, "%lld%n", &v, &used) == 1) {
          p += used;
          tfc_attr_value item = tfc_attr_int(v);
          tfc_attr_list_append(&a->value, &item, NULL);
        }
      }
    } else if (!strcmp(word, "input") && c->n_inputs < NC_MAX_IO) {
      c->inputs[c->n_inputs++] = parse_tensor(p);
    } else if (!strcmp(word, "expect") && c->n_outputs < NC_MAX_IO) {
      c->expect[c->n_outputs++] = parse_tensor(p);
    } else if (!strcmp(word, "end")) {
      free(buf);
      return 1;
    }
  }
  free(buf);
  return 0;
}

static double elem(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return ((const double *)t->data)[i];
    case TFC_DT_INT32: return ((const int32_t *)t->data)[i];
    case TFC_DT_INT64: return (double)((const int64_t *)t->data)[i];
    case TFC_DT_BOOL: return ((const uint8_t *)t->data)[i];
    default: return NAN;
  }
}

static void compare(const nn_case *c, int k, const tfc_tensor *got, const tfc_tensor *want) {
  if (got->dtype != want->dtype)
    tfc_test_fail(__FILE__, __LINE__, "case %s output %d: dtype %d, want %d", c->name, k, got->dtype, want->dtype);
  if (got->ndims != want->ndims || memcmp(got->dims, want->dims, sizeof(int64_t) * (size_t)want->ndims)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_test_fail(__FILE__, __LINE__, "case %s output %d: shape %s, TF says %s", c->name, k,
                  tfc_tensor_shape_str(got, a, sizeof a), tfc_tensor_shape_str(want, b, sizeof b));
  }
  double tol = want->dtype == TFC_DT_FLOAT ? 1e-5 : want->dtype == TFC_DT_DOUBLE ? 1e-10 : 0;
  for (int64_t i = 0; i < want->n_elems; i++) {
    double g = elem(got, i), w = elem(want, i);
    if (isnan(w) && isnan(g)) continue;
    if (isinf(w) && g == w) continue;
    if (!(fabs(g - w) <= tol * fmax(1.0, fabs(w))))
      tfc_test_fail(__FILE__, __LINE__, "case %s output %d: element %lld is %.9g, TF says %.9g", c->name, k,
                    (long long)i, g, w);
  }
}

/* Runs every fixture case whose op is `op`; at least `min_cases` must exist. */
static void run_op(const char *op, int min_cases) {
  FILE *f = fopen(TFC_FIXTURE_DIR "/nn_ops_cases.txt", "r");
  EXPECT_TRUE(f != NULL);
  nn_case c;
  int n_run = 0;
  while (read_case(f, &c)) {
    if (strcmp(c.op, op) != 0) {
      case_free(&c);
      continue;
    }
    tfc_tensor *outs[NC_MAX_IO] = {0};
    tfc_status s;
    tfc_status_init(&s);
    int list[1] = {c.n_inputs};
    /* Every output is fetched; the fixture may compare fewer (TF leaves some unset). */
    const tfc_opdef *def = tfc_op_lookup(c.op);
    int n_outs = def && def->n_outputs > c.n_outputs ? def->n_outputs : c.n_outputs;
    int rc = ku_run(c.op, c.attrs, c.n_attrs, c.inputs, c.n_inputs, strcmp(op, "Einsum") ? NULL : list, outs,
                    n_outs, &s);
    if (rc != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "case %s: %s", c.name, tfc_status_msg(&s));
    for (int k = 0; k < n_outs; k++) {
      if (k < c.n_outputs) compare(&c, k, outs[k], c.expect[k]);
      if (outs[k]) tfc_tensor_unref(outs[k]);
    }
    tfc_status_fini(&s);
    case_free(&c);
    n_run++;
  }
  fclose(f);
  if (n_run < min_cases) tfc_test_fail(__FILE__, __LINE__, "%s: %d cases, want >= %d", op, n_run, min_cases);
}

static void depthwise_matches_tensorflow(void) { run_op("DepthwiseConv2dNative", 9); }
static void depthwise_backprop_input_matches_tensorflow(void) { run_op("DepthwiseConv2dNativeBackpropInput", 9); }
static void depthwise_backprop_filter_matches_tensorflow(void) { run_op("DepthwiseConv2dNativeBackpropFilter", 9); }
static void conv2d_dilated_explicit_match_tensorflow(void) {
  run_op("Conv2D", 3);
  run_op("Conv2DBackpropInput", 3);
  run_op("Conv2DBackpropFilter", 3);
}
static void space_to_batch_nd_matches_tensorflow(void) { run_op("SpaceToBatchND", 5); }
static void batch_to_space_nd_matches_tensorflow(void) { run_op("BatchToSpaceND", 10); }
static void space_to_batch_legacy_matches_tensorflow(void) { run_op("SpaceToBatch", 1); }
static void batch_to_space_legacy_matches_tensorflow(void) { run_op("BatchToSpace", 1); }
static void lrn_matches_tensorflow(void) { run_op("LRN", 3); }
static void lrn_grad_matches_tensorflow(void) { run_op("LRNGrad", 3); }
static void einsum_matches_tensorflow(void) { run_op("Einsum", 18); }
static void batch_matmul_v2_broadcasts_like_tensorflow(void) { run_op("BatchMatMulV2", 3); }
static void clip_by_value_matches_tensorflow(void) { run_op("ClipByValue", 3); }
static void tan_matches_tensorflow(void) { run_op("Tan", 2); }
static void fused_batch_norm_v1_v2_match_tensorflow(void) {
  run_op("FusedBatchNorm", 3);
  run_op("FusedBatchNormV2", 3);
}
static void fused_batch_norm_grad_v1_v2_match_tensorflow(void) {
  run_op("FusedBatchNormGrad", 3);
  run_op("FusedBatchNormGradV2", 3);
}
static void float_classes_match_tensorflow(void) {
  run_op("IsNan", 1);
  run_op("IsInf", 1);
  run_op("IsFinite", 1);
}

/* ---- errors: TF's codes and texts ---- */

static tfc_tensor *zeros_f32(int nd, const int64_t *dims) { return ku_typed(TFC_DT_FLOAT, dims, nd, NULL); }

static ku_attr ints_attr(const char *name, int n, const int64_t *v) {
  ku_attr a = {name, tfc_attr_list(TFC_ATTR_INT)};
  for (int i = 0; i < n; i++) {
    tfc_attr_value item = tfc_attr_int(v[i]);
    tfc_attr_list_append(&a.value, &item, NULL);
  }
  return a;
}

static ku_attr str_attr(const char *name, const char *v) {
  ku_attr a = {name, {0}};
  tfc_attr_string(v, strlen(v), &a.value, NULL);
  return a;
}

/* Runs op (kernel-only shapes when `unknown`, else with shape functions; Einsum takes its
 * inputs as one list) and expects `code` with `text` in the message. Frees attrs and inputs. */
static void expect_error(const char *op, ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n, int unknown, int code,
                         const char *text) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  int list[1] = {n};
  int rc = unknown ? ku_run_unknown(op, attrs, n_attrs, ins, n, &out, 1, &s)
                   : ku_run(op, attrs, n_attrs, ins, n, strcmp(op, "Einsum") ? NULL : list, &out, 1, &s);
  if (rc != code || !strstr(tfc_status_msg(&s), text))
    tfc_test_fail(__FILE__, __LINE__, "%s: code %d '%s', want %d with '%s'", op, rc, tfc_status_msg(&s), code, text);
  if (out) tfc_tensor_unref(out);
  for (int i = 0; i < n_attrs; i++) tfc_attr_value_fini(&attrs[i].value);
  for (int i = 0; i < n; i++) tfc_tensor_unref(ins[i]);
  tfc_status_fini(&s);
}

static void depthwise_errors_have_tensorflow_texts(void) {
  static const int64_t xd[4] = {1, 5, 5, 2}, fd[4] = {3, 3, 2, 1}, f3[4] = {3, 3, 3, 1}, one[4] = {1, 1, 1, 1},
                       st21[4] = {1, 2, 1, 1}, st_b[4] = {2, 1, 1, 1};
  ku_attr a1[3] = {ints_attr("strides", 4, one), str_attr("padding", "SAME"), str_attr("data_format", "NCHW")};
  tfc_tensor *i1[2] = {zeros_f32(4, xd), zeros_f32(4, fd)};
  expect_error("DepthwiseConv2dNative", a1, 3, i1, 2, 1, TFC_UNIMPLEMENTED,
               "Depthwise convolution on CPU is only supported for NHWC format");
  ku_attr a2[2] = {ints_attr("strides", 4, st21), str_attr("padding", "SAME")};
  tfc_tensor *i2[2] = {zeros_f32(4, xd), zeros_f32(4, fd)};
  expect_error("DepthwiseConv2dNative", a2, 2, i2, 2, 0, TFC_INVALID_ARGUMENT,
               "Current implementation only supports equal length strides in the row and column dimensions.");
  ku_attr a3[2] = {ints_attr("strides", 4, st_b), str_attr("padding", "SAME")};
  tfc_tensor *i3[2] = {zeros_f32(4, xd), zeros_f32(4, fd)};
  expect_error("DepthwiseConv2dNative", a3, 2, i3, 2, 0, TFC_INVALID_ARGUMENT,
               "Current implementation does not yet support strides in the batch and depth dimensions.");
  ku_attr a4[2] = {ints_attr("strides", 4, one), str_attr("padding", "SAME")};
  tfc_tensor *i4[2] = {zeros_f32(4, xd), zeros_f32(4, f3)};
  expect_error("DepthwiseConv2dNative", a4, 2, i4, 2, 1, TFC_INVALID_ARGUMENT,
               "input and filter must have the same depth: 2 vs 3");
  /* The backprop's out_backprop must have the forward output's shape. */
  static const int64_t four = 4, dyd[4] = {1, 4, 5, 2};
  ku_attr a5[2] = {ints_attr("strides", 4, one), str_attr("padding", "SAME")};
  tfc_tensor *i5[3] = {ku_i32(&four, 1, (const int32_t[]){1, 5, 5, 2}), zeros_f32(4, fd), zeros_f32(4, dyd)};
  expect_error("DepthwiseConv2dNativeBackpropInput", a5, 2, i5, 3, 1, TFC_INVALID_ARGUMENT,
               "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: actual = 4, "
               "computed = 5");
  static const int64_t dyc[4] = {1, 5, 5, 3};
  ku_attr a6[2] = {ints_attr("strides", 4, one), str_attr("padding", "SAME")};
  tfc_tensor *i6[3] = {zeros_f32(4, xd), ku_i32(&four, 1, (const int32_t[]){3, 3, 2, 1}), zeros_f32(4, dyc)};
  expect_error("DepthwiseConv2dNativeBackpropFilter", a6, 2, i6, 3, 1, TFC_INVALID_ARGUMENT,
               "DepthwiseConv2DBackpropFilter: depth_multiplier * in_depth not equal to out_depth");
  static const int64_t three = 3;
  ku_attr a7[2] = {ints_attr("strides", 4, one), str_attr("padding", "SAME")};
  tfc_tensor *i7[3] = {ku_i32(&three, 1, (const int32_t[]){1, 5, 5}), zeros_f32(4, fd), zeros_f32(4, xd)};
  expect_error("DepthwiseConv2dNativeBackpropInput", a7, 2, i7, 3, 1, TFC_INVALID_ARGUMENT,
               "DepthwiseConv2DBackpropInput: input must be 4-dimensional");
}

static void space_batch_errors_have_tensorflow_texts(void) {
  static const int64_t xd[4] = {1, 3, 4, 1}, two = 2, p22[2] = {2, 2}, bd[4] = {4, 1, 1, 1}, x3[3] = {1, 4, 4};
  static const int32_t zero4[4] = {0, 0, 0, 0};
  tfc_tensor *i1[3] = {zeros_f32(4, xd), ku_i32(&two, 1, (const int32_t[]){2, 2}), ku_i32(p22, 2, zero4)};
  expect_error("SpaceToBatchND", NULL, 0, i1, 3, 0, TFC_INVALID_ARGUMENT,
               "padded_shape[0]=3 is not divisible by block_shape[0]=2");
  tfc_tensor *i2[3] = {zeros_f32(4, xd), ku_i32(&two, 1, (const int32_t[]){2, 0}), ku_i32(p22, 2, zero4)};
  expect_error("SpaceToBatchND", NULL, 0, i2, 3, 0, TFC_INVALID_ARGUMENT,
               "All values in block_shape must be positive, got value, 0 at index 1.");
  tfc_tensor *i3[3] = {zeros_f32(4, xd), ku_i32(&two, 1, (const int32_t[]){2, 2}),
                       ku_i32(p22, 2, (const int32_t[]){-1, 0, 0, 0})};
  expect_error("SpaceToBatchND", NULL, 0, i3, 3, 0, TFC_INVALID_ARGUMENT, "Paddings must be non-negative");
  static const int64_t four = 4;
  tfc_tensor *i4[3] = {zeros_f32(4, xd), ku_i32(&four, 1, (const int32_t[]){2, 2, 2, 2}),
                       ku_i32((const int64_t[]){4, 2}, 2, (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 0})};
  expect_error("SpaceToBatchND", NULL, 0, i4, 3, 1, TFC_INVALID_ARGUMENT, "input rank should be >= 5 instead of 4");
  tfc_tensor *i5[3] = {zeros_f32(4, xd), ku_i32(&two, 1, (const int32_t[]){2, 2}), ku_i32(&four, 1, zero4)};
  expect_error("SpaceToBatchND", NULL, 0, i5, 3, 1, TFC_INVALID_ARGUMENT,
               "paddings should have shape [2, 2] instead of [4]");
  tfc_tensor *i6[3] = {zeros_f32(4, xd), ku_i32(&two, 1, (const int32_t[]){2, 2}), ku_i32(p22, 2, zero4)};
  expect_error("BatchToSpaceND", NULL, 0, i6, 3, 0, TFC_INVALID_ARGUMENT,
               "Input batch dimension (1) is not divisible by product of block sizes (4)");
  tfc_tensor *i7[3] = {zeros_f32(4, bd), ku_i32(&two, 1, (const int32_t[]){2, 2}),
                       ku_i32(p22, 2, (const int32_t[]){0, 0, 0, 3})};
  expect_error("BatchToSpaceND", NULL, 0, i7, 3, 0, TFC_INVALID_ARGUMENT, "cropped_shape[1]=-1 must be non-negative");
  tfc_tensor *i8[3] = {zeros_f32(4, bd), ku_i32(&two, 1, (const int32_t[]){2, 2}),
                       ku_i32(p22, 2, (const int32_t[]){0, 0, -1, 0})};
  expect_error("BatchToSpaceND", NULL, 0, i8, 3, 0, TFC_INVALID_ARGUMENT, "Crops must be non-negative");
  ku_attr bs[1] = {{"block_size", tfc_attr_int(2)}};
  tfc_tensor *i9[2] = {zeros_f32(3, x3), ku_i32(p22, 2, zero4)};
  expect_error("SpaceToBatch", bs, 1, i9, 2, 1, TFC_INVALID_ARGUMENT, "Input rank should be: 4instead of: 3");
  ku_attr bs2[1] = {{"block_size", tfc_attr_int(2)}};
  tfc_tensor *i10[2] = {zeros_f32(4, (const int64_t[]){3, 1, 1, 1}), ku_i32(p22, 2, zero4)};
  expect_error("BatchToSpace", bs2, 1, i10, 2, 1, TFC_INVALID_ARGUMENT,
               "Input batch dimension (3) is not divisible by product of block sizes (4)");
  /* The legacy form's block_size is an attr, so the shape function sees it (TF's graph text). */
  ku_attr bs3[1] = {{"block_size", tfc_attr_int(2)}};
  tfc_tensor *i11[2] = {zeros_f32(4, (const int64_t[]){3, 1, 1, 1}), ku_i32(p22, 2, zero4)};
  expect_error("BatchToSpace", bs3, 1, i11, 2, 0, TFC_INVALID_ARGUMENT,
               "Dimension size must be evenly divisible by 2 but is 3");
  ku_attr bs4[1] = {{"block_size", tfc_attr_int(2)}};
  tfc_tensor *i12[2] = {zeros_f32(4, xd), ku_i32(p22, 2, zero4)};
  expect_error("SpaceToBatch", bs4, 1, i12, 2, 0, TFC_INVALID_ARGUMENT,
               "padded_shape[0]=3 is not divisible by block_shape[0]=2");
}

static void einsum_and_clip_errors_have_tensorflow_texts(void) {
  static const int64_t d23[2] = {2, 3}, d43[2] = {4, 3}, d2[1] = {2};
  ku_attr e1[1] = {str_attr("equation", "ij,jk->ik")};
  tfc_tensor *i1[2] = {zeros_f32(2, d23), zeros_f32(2, d43)};
  /* The shape function's text (the kernel's: "Expected dimension 3 at axis 0 of the input
   * shaped [4,3] but got dimension 4"). */
  expect_error("Einsum", e1, 1, i1, 2, 0, TFC_INVALID_ARGUMENT, "Dimensions must be equal, but are 3 and 4");
  ku_attr e2[1] = {str_attr("equation", "ij,jk")};
  tfc_tensor *i2[2] = {zeros_f32(2, d23), zeros_f32(2, d43)};
  expect_error("Einsum", e2, 1, i2, 2, 0, TFC_INVALID_ARGUMENT, "Expecting exactly one '->' in einsum equation: ij,jk");
  ku_attr e3[1] = {str_attr("equation", "ij,jk->ik")};
  tfc_tensor *i3[1] = {zeros_f32(2, d23)};
  expect_error("Einsum", e3, 1, i3, 1, 0, TFC_INVALID_ARGUMENT, "Expected 2 inputs but got: 1");
  ku_attr e4[1] = {str_attr("equation", "ij->i")};
  tfc_tensor *i4[1] = {zeros_f32(1, d2)};
  expect_error("Einsum", e4, 1, i4, 1, 0, TFC_INVALID_ARGUMENT, "Expected input 0 to have rank 2 but got: 1");
  tfc_tensor *i5[3] = {zeros_f32(2, d23), zeros_f32(1, d2), zeros_f32(0, NULL)};
  expect_error("ClipByValue", NULL, 0, i5, 3, 0, TFC_INVALID_ARGUMENT,
               "clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. input "
               "shape: [2,3]clip_value_min shape: [2]clip_value_max shape: []");
}

static const tfc_test tests[] = {
    TFC_TEST(depthwise_matches_tensorflow),
    TFC_TEST(depthwise_backprop_input_matches_tensorflow),
    TFC_TEST(depthwise_backprop_filter_matches_tensorflow),
    TFC_TEST(conv2d_dilated_explicit_match_tensorflow),
    TFC_TEST(space_to_batch_nd_matches_tensorflow),
    TFC_TEST(batch_to_space_nd_matches_tensorflow),
    TFC_TEST(space_to_batch_legacy_matches_tensorflow),
    TFC_TEST(batch_to_space_legacy_matches_tensorflow),
    TFC_TEST(lrn_matches_tensorflow),
    TFC_TEST(lrn_grad_matches_tensorflow),
    TFC_TEST(einsum_matches_tensorflow),
    TFC_TEST(batch_matmul_v2_broadcasts_like_tensorflow),
    TFC_TEST(clip_by_value_matches_tensorflow),
    TFC_TEST(tan_matches_tensorflow),
    TFC_TEST(float_classes_match_tensorflow),
    TFC_TEST(fused_batch_norm_v1_v2_match_tensorflow),
    TFC_TEST(fused_batch_norm_grad_v1_v2_match_tensorflow),
    TFC_TEST(depthwise_errors_have_tensorflow_texts),
    TFC_TEST(space_batch_errors_have_tensorflow_texts),
    TFC_TEST(einsum_and_clip_errors_have_tensorflow_texts),
    {0}};

TFC_TEST_MAIN(tests)
