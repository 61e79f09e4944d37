/*
 * FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU against TensorFlow's own outputs
 * (tests/fixtures/gen_batch_norm.py writes batch_norm_tf.inc): NHWC and NCHW, training with
 * exponential_avg_factor 1 and 0.25, and inference; every output but the empty reserve spaces
 * within 1e-5 relative (1e-4 for the gradient's sums); TF's error texts for bad ranks, sizes,
 * and the gradient's NCHW inference refusal (kernel checks: inputs of unknown graph shape).
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

typedef struct bn_case {
  const char *format;
  int is_training;
  float factor;
  const float *y, *batch_mean, *batch_var, *reserve1, *reserve2, *dx, *dscale, *doffset;
} bn_case;

#include "../fixtures/batch_norm_tf.inc"

#define N_X 48
#define C 4

static ku_attr *attrs_of(const bn_case *k, int grad, int *n) {
  static ku_attr a[4];
  tfc_status s;
  tfc_status_init(&s);
  memset(a, 0, sizeof a);
  a[0].name = "data_format";
  EXPECT_EQ(tfc_attr_string(k->format, strlen(k->format), &a[0].value, &s), TFC_OK);
  a[1] = (ku_attr){"is_training", tfc_attr_bool(k->is_training)};
  a[2] = (ku_attr){"epsilon", tfc_attr_float(0.001f)};
  *n = 3;
  if (!grad) a[(*n)++] = (ku_attr){"exponential_avg_factor", tfc_attr_float(k->factor)};
  tfc_status_fini(&s);
  return a;
}

static void expect_close(const char *what, const tfc_tensor *t, const float *want, int64_t n, double tol) {
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(t->n_elems, n);
  const float *g = t->data;
  for (int64_t i = 0; i < n; i++)
    if (!(fabs((double)g[i] - want[i]) <= tol * fmax(1.0, fabs(want[i]))))
      tfc_test_fail(__FILE__, __LINE__, "%s[%lld] = %.9g, TensorFlow %.9g", what, (long long)i, g[i], want[i]);
}

static void forward_and_gradient_match_tensorflow(void) {
  int64_t c4 = C;
  for (size_t ci = 0; ci < sizeof bn_cases / sizeof bn_cases[0]; ci++) {
    const bn_case *k = &bn_cases[ci];
    int nchw = k->format[1] == 'C';
    tfc_tensor *x = ku_f32(nchw ? bn_xn_dims : bn_x_dims, 4, nchw ? bn_xn : bn_x);
    tfc_tensor *in[5] = {x, ku_f32(&c4, 1, bn_scale), ku_f32(&c4, 1, bn_offset), ku_f32(&c4, 1, bn_mean),
                         ku_f32(&c4, 1, bn_var)};
    tfc_tensor *out[6] = {0};
    tfc_status s;
    tfc_status_init(&s);
    int na;
    ku_attr *a = attrs_of(k, 0, &na);
    if (ku_run("FusedBatchNormV3", a, na, in, 5, NULL, out, 6, &s))
      tfc_test_fail(__FILE__, __LINE__, "%s: %s", k->format, tfc_status_msg(&s));
    expect_close("y", out[0], k->y, N_X, 1e-5);
    expect_close("batch_mean", out[1], k->batch_mean, C, 1e-5);
    expect_close("batch_variance", out[2], k->batch_var, C, 1e-5);
    if (k->is_training) { /* not training, TF leaves them unset; tfc repeats mean and variance */
      expect_close("reserve_space_1", out[3], k->reserve1, C, 1e-5);
      expect_close("reserve_space_2", out[4], k->reserve2, C, 1e-5);
    }
    EXPECT_EQ(out[5]->n_elems, 0);
    for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
    if (!(nchw && !k->is_training)) {
      tfc_tensor *gin[6] = {ku_f32(nchw ? bn_xn_dims : bn_x_dims, 4, nchw ? bn_dyn : bn_dy), x, in[1],
                            k->is_training ? out[3] : in[3], k->is_training ? out[4] : in[4], out[5]};
      tfc_tensor *gout[5] = {0};
      a = attrs_of(k, 1, &na);
      if (ku_run("FusedBatchNormGradV3", a, na, gin, 6, NULL, gout, 5, &s))
        tfc_test_fail(__FILE__, __LINE__, "grad %s: %s", k->format, tfc_status_msg(&s));
      expect_close("x_backprop", gout[0], k->dx, N_X, 1e-5);
      expect_close("scale_backprop", gout[1], k->dscale, C, 1e-4);
      expect_close("offset_backprop", gout[2], k->doffset, C, 1e-4);
      EXPECT_EQ(gout[3]->n_elems, 0);
      EXPECT_EQ(gout[4]->n_elems, 0);
      for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
      for (int i = 0; i < 5; i++) tfc_tensor_unref(gout[i]);
      tfc_tensor_unref(gin[0]);
    }
    for (int i = 0; i < 5; i++) tfc_tensor_unref(in[i]);
    for (int i = 0; i < 6; i++) tfc_tensor_unref(out[i]);
    tfc_status_fini(&s);
  }
}

static const char *tf_error(const char *what) {
  for (size_t i = 0; i < sizeof bn_errors / sizeof bn_errors[0]; i++)
    if (!strcmp(bn_errors[i].what, what)) return bn_errors[i].message;
  tfc_test_fail(__FILE__, __LINE__, "no TF error %s", what);
  return NULL;
}

static void expect_bn_error(const char *op, const ku_attr *a, int na, tfc_tensor **in, int n_in, int n_out,
                            const char *what) {
  tfc_tensor *out[6] = {0};
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run_unknown(op, a, na, in, n_in, out, n_out, &s);
  if (rc != TFC_INVALID_ARGUMENT) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s)", what, rc, tfc_status_msg(&s));
  EXPECT_CONTAINS(tfc_status_msg(&s), tf_error(what));
  for (int i = 0; i < n_out; i++) tfc_tensor_unref(out[i]);
  tfc_status_fini(&s);
}

static void bad_inputs_give_tensorflows_errors(void) {
  int64_t c4 = C, c3 = 3, d22[2] = {2, 2}, d324[3] = {3, 2, 4};
  bn_case train = {"NHWC", 1, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0}, avg = {"NHWC", 1, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0},
          infer = {"NHWC", 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0}, infer_nchw = {"NCHW", 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0};
  int na;
  ku_attr *a = attrs_of(&train, 0, &na);
  tfc_tensor *x = ku_f32(bn_x_dims, 4, bn_x), *x3 = ku_f32(d324, 3, bn_x), *sc = ku_f32(&c4, 1, bn_scale),
             *sc22 = ku_f32(d22, 2, bn_scale), *v3 = ku_f32(&c3, 1, bn_offset), *mean = ku_f32(&c4, 1, bn_mean),
             *var = ku_f32(&c4, 1, bn_var);
  expect_bn_error("FusedBatchNormV3", a, na, (tfc_tensor *[]){x3, sc, sc, mean, var}, 5, 6, "x_rank3");
  expect_bn_error("FusedBatchNormV3", a, na, (tfc_tensor *[]){x, sc22, sc, mean, var}, 5, 6, "scale_rank2");
  expect_bn_error("FusedBatchNormV3", a, na, (tfc_tensor *[]){x, sc, v3, mean, var}, 5, 6, "offset_3");
  /* training with factor 1 never reads mean / variance: 3 elements are fine */
  tfc_tensor *out[6] = {0};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("FusedBatchNormV3", a, na, (tfc_tensor *[]){x, sc, sc, v3, v3}, 5, out, 6, &s), TFC_OK);
  for (int i = 0; i < 6; i++) tfc_tensor_unref(out[i]);
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
  a = attrs_of(&avg, 0, &na);
  expect_bn_error("FusedBatchNormV3", a, na, (tfc_tensor *[]){x, sc, sc, v3, var}, 5, 6, "mean_3_train_avg");
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
  a = attrs_of(&infer, 0, &na);
  expect_bn_error("FusedBatchNormV3", a, na, (tfc_tensor *[]){x, sc, sc, v3, var}, 5, 6, "mean_3_infer");
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
  a = attrs_of(&infer_nchw, 1, &na);
  tfc_tensor *xn = ku_f32(bn_xn_dims, 4, bn_xn), *empty = ku_f32((int64_t[]){0}, 1, NULL);
  expect_bn_error("FusedBatchNormGradV3", a, na, (tfc_tensor *[]){xn, xn, sc, mean, var, empty}, 6, 5,
                  "grad_nchw_infer");
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
  tfc_tensor *all[] = {x, x3, sc, sc22, v3, mean, var, xn, empty};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tfc_tensor_unref(all[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(forward_and_gradient_match_tensorflow),
    TFC_TEST(bad_inputs_give_tensorflows_errors),
    {0},
};

TFC_TEST_MAIN(tests)
