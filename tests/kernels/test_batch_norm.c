/*
 * FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU against TensorFlow's own outputs
 * (tests/fixtures/gen_batch_norm.py writes batch_norm_tf.inc): NHWC and NCHW, training with
 * exponential_avg_factor 1 and 0.25, and inference; every output but the empty reserve spaces
 * within 1e-5 relative (1e-4 for the gradient's sums); TF's error texts for bad ranks, sizes,
 * and the gradient's NCHW inference refusal (kernel checks: inputs of unknown graph shape);
 * TF_AddGradients through FusedBatchNormV3 gives the same gradients.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"
#include "tensorflow/c/c_api.h"

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

static TF_Operation *const_op(TF_Graph *g, const char *name, const int64_t *dims, int nd, const float *v) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return op;
}

/* TF_AddGradients through FusedBatchNormV3 (training, NHWC): loss = sum(y * dy) has dloss/dy = dy,
 * so the gradients of x, scale and offset are TF's FusedBatchNormGradV3 outputs for that dy. */
static void add_gradients_through_fused_batch_norm_matches_tensorflow(void) {
  const bn_case *k = &bn_cases[0];
  EXPECT_TRUE(k->is_training && k->factor == 1.0f && k->format[1] == 'H');
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t c4 = C;
  TF_Operation *x = const_op(g, "x", bn_x_dims, 4, bn_x), *sc = const_op(g, "scale", &c4, 1, bn_scale),
               *of = const_op(g, "offset", &c4, 1, bn_offset), *mean = const_op(g, "mean", &c4, 1, bn_mean),
               *var = const_op(g, "var", &c4, 1, bn_var), *dy = const_op(g, "dy", bn_x_dims, 4, bn_dy);
  TF_OperationDescription *d = TF_NewOperation(g, "FusedBatchNormV3", "bn");
  TF_Operation *ins[5] = {x, sc, of, mean, var};
  for (int i = 0; i < 5; i++) TF_AddInput(d, (TF_Output){ins[i], 0});
  TF_SetAttrFloat(d, "epsilon", 0.001f);
  TF_Operation *bn = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  d = TF_NewOperation(g, "Mul", "weighted");
  TF_AddInput(d, (TF_Output){bn, 0});
  TF_AddInput(d, (TF_Output){dy, 0});
  TF_Operation *w = TF_FinishOperation(d, s);
  int32_t axes[4] = {0, 1, 2, 3};
  int64_t d4 = 4;
  TF_Tensor *at = TF_AllocateTensor(TF_INT32, &d4, 1, sizeof axes);
  memcpy(TF_TensorData(at), axes, sizeof axes);
  d = TF_NewOperation(g, "Const", "axes");
  TF_SetAttrTensor(d, "value", at, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *ax = TF_FinishOperation(d, s);
  TF_DeleteTensor(at);
  d = TF_NewOperation(g, "Sum", "loss");
  TF_AddInput(d, (TF_Output){w, 0});
  TF_AddInput(d, (TF_Output){ax, 0});
  TF_Operation *loss = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Output y = {loss, 0}, xs[3] = {{x, 0}, {sc, 0}, {of, 0}}, grads[3];
  TF_AddGradients(g, &y, 1, xs, 3, NULL, s, grads);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "TF_AddGradients: %s", TF_Message(s));
  EXPECT_STREQ(TF_OperationOpType(grads[0].oper), "FusedBatchNormGradV3");
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  TF_Tensor *out[3] = {0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, grads, out, 3, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
  const float *want[3] = {k->dx, k->dscale, k->doffset};
  int64_t n[3] = {N_X, C, C};
  for (int i = 0; i < 3; i++) {
    const float *got = TF_TensorData(out[i]);
    for (int64_t j = 0; j < n[i]; j++)
      if (!(fabs((double)got[j] - want[i][j]) <= 1e-4 * fmax(1.0, fabs(want[i][j]))))
        tfc_test_fail(__FILE__, __LINE__, "grad %d[%lld] = %.9g, TensorFlow %.9g", i, (long long)j, got[j],
                      want[i][j]);
    TF_DeleteTensor(out[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(forward_and_gradient_match_tensorflow),
    TFC_TEST(bad_inputs_give_tensorflows_errors),
    TFC_TEST(add_gradients_through_fused_batch_norm_matches_tensorflow),
    {0},
};

TFC_TEST_MAIN(tests)
