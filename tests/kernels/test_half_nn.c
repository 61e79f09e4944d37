/* Kernel tests: the half and bfloat16 rows of the convolutions, pooling, their gradients, the
 * activation gradients and the rest of kernels_half.c's nn and math list against TensorFlow
 * 2.21 on CPU (tests/fixtures/half_nn_tf.inc, made by tests/fixtures/gen_half_nn.py). tfc
 * computes in float and rounds each result once; a case is exact where TF does the same and
 * within `ulps` units of the type's last place where TF's Eigen sums in another order. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/half.h"
#include "harness.h"
#include "kernel_util.c"
#include "tensorflow/c/c_api.h"

typedef struct hn_in {
  int dtype, ndims;
  int64_t dims[4];
  const double *vals;
} hn_in;

typedef struct hn_case {
  const char *name, *op;
  int n_in;
  hn_in in[6];
  int out_ndims;
  int64_t out_dims[4];
  const double *out;
  int n_out, ulps;
  int64_t strides[4], ksize[4];
  const char *padding;
  int training; /* the batch norms' is_training */
} hn_case;

#include "../fixtures/half_nn_tf.inc"

static tfc_tensor *make(const hn_in *in) {
  tfc_tensor *t = ku_typed(in->dtype, in->dims, in->ndims, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) {
    double v = in->vals[i];
    if (in->dtype == TFC_DT_HALF) ((uint16_t *)t->data)[i] = tfc_float_to_half((float)v);
    else if (in->dtype == TFC_DT_BFLOAT16) ((uint16_t *)t->data)[i] = tfc_float_to_bfloat16((float)v);
    else if (in->dtype == TFC_DT_FLOAT) ((float *)t->data)[i] = (float)v;
    else ((int32_t *)t->data)[i] = (int32_t)v;
  }
  return t;
}

static tfc_attr_value ints4(const int64_t *v) {
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_INT);
  tfc_status s;
  tfc_status_init(&s);
  for (int i = 0; i < 4; i++) {
    tfc_attr_value e = tfc_attr_int(v[i]);
    tfc_attr_list_append(&l, &e, &s);
  }
  tfc_status_fini(&s);
  return l;
}

/* The type's last place at v (half: 10 mantissa bits, subnormal below 2^-14; bfloat16: 7). */
static double ulp(int dt, double v) {
  int e = v == 0 ? -126 : (int)floor(log2(fabs(v)));
  if (dt == TFC_DT_HALF) return ldexp(1, (e < -14 ? -14 : e) - 10);
  return ldexp(1, (e < -126 ? -126 : e) - 7);
}

static int run_case(const hn_case *k) {
  tfc_tensor *in[6] = {NULL}, *out[6] = {NULL};
  for (int i = 0; i < k->n_in; i++) in[i] = make(&k->in[i]);
  int dt = k->in[0].dtype == TFC_DT_INT32 ? k->in[1].dtype : k->in[0].dtype;
  ku_attr attrs[4];
  int na = 0;
  tfc_status s;
  tfc_status_init(&s);
  if (k->padding[0]) {
    attrs[na].name = "padding";
    tfc_attr_string(k->padding, strlen(k->padding), &attrs[na++].value, &s);
    attrs[na++] = (ku_attr){"strides", ints4(k->strides)};
  }
  if (k->ksize[0]) attrs[na++] = (ku_attr){"ksize", ints4(k->ksize)};
  if (!strcmp(k->op, "LeakyRelu")) attrs[na++] = (ku_attr){"alpha", tfc_attr_float(0.2f)};
  int bn = !strncmp(k->op, "FusedBatchNorm", 14);
  if (bn) attrs[na++] = (ku_attr){"is_training", tfc_attr_bool(k->training)};
  int n_out = !strcmp(k->op, "SoftmaxCrossEntropyWithLogits") ? 2
              : !strcmp(k->op, "FusedBatchNormV3")           ? 6
              : bn                                           ? 5
                                                             : 1;
  int bad = 0;
  if (ku_run(k->op, attrs, na, in, k->n_in, NULL, out, n_out, &s)) {
    fprintf(stderr, "%s: %s\n", k->name, tfc_status_msg(&s));
    bad = 1;
  } else if (out[0]->dtype != dt || out[0]->n_elems != k->n_out) {
    fprintf(stderr, "%s: got %s of %lld elements\n", k->name, tfc_dtype_name(out[0]->dtype),
            (long long)out[0]->n_elems);
    bad = 1;
  } else if (bn && out[1]->dtype != TFC_DT_FLOAT) { /* the statistics (U) stay float */
    fprintf(stderr, "%s: output 1 is %s, not float\n", k->name, tfc_dtype_name(out[1]->dtype));
    bad = 1;
  } else {
    for (int i = 0; i < k->n_out; i++) {
      uint16_t h = ((const uint16_t *)out[0]->data)[i];
      double got = dt == TFC_DT_HALF ? tfc_half_to_float(h) : tfc_bfloat16_to_float(h), want = k->out[i];
      /* A sum TF accumulates in the 16-bit type (ulps 8) is off by the summands' last places
       * (inputs are within [-2, 2]), not the result's, where terms cancel. */
      double at = k->ulps >= 8 && fabs(want) < 1 ? 1 : want;
      int same = isnan(want) ? isnan(got) : fabs(got - want) <= k->ulps * ulp(dt, at);
      if (!same) {
        fprintf(stderr, "%s[%d]: got %.9g, TF %.9g\n", k->name, i, got, want);
        bad++;
      }
    }
  }
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&attrs[i].value);
  for (int i = 0; i < 6; i++) tfc_tensor_unref(in[i]);
  for (int i = 0; i < 6; i++) tfc_tensor_unref(out[i]);
  tfc_status_fini(&s);
  return bad;
}

/* The cases whose op is one of ops (NULL-terminated). */
static void run_ops(const char *const *ops) {
  int bad = 0, ran = 0;
  for (size_t i = 0; i < sizeof hn_cases / sizeof hn_cases[0]; i++)
    for (const char *const *o = ops; *o; o++)
      if (!strcmp(hn_cases[i].op, *o)) {
        ran++;
        if (run_case(&hn_cases[i])) bad++;
      }
  EXPECT_TRUE(ran > 0);
  EXPECT_EQ(bad, 0);
}

static void half_conv(void) {
  static const char *const ops[] = {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
                                    NULL};
  run_ops(ops);
}
static void half_pool(void) {
  static const char *const ops[] = {"MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", NULL};
  run_ops(ops);
}
static void half_activation_grads(void) {
  static const char *const ops[] = {"ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad", "TanhGrad", "SigmoidGrad",
                                    "SqrtGrad", "RsqrtGrad", NULL};
  run_ops(ops);
}
static void half_math_tail(void) {
  static const char *const ops[] = {"FloorDiv", "FloorMod", "Atan2", "LeakyRelu", "Selu", "Softsign", "Erf",
                                    "Tan", "Round", "Log1p", "Expm1", NULL};
  run_ops(ops);
}
/* FusedBatchNorm V2/V3 (training and inference) and their gradients with T half or bfloat16
 * and U float: y rounded to T, the statistics left float. */
static void half_batch_norms(void) {
  static const char *const ops[] = {"FusedBatchNormV2", "FusedBatchNormV3", "FusedBatchNormGradV2",
                                    "FusedBatchNormGradV3", NULL};
  run_ops(ops);
}
static void half_sums(void) {
  static const char *const ops[] = {"BiasAddGrad", "L2Loss", "Cumsum", "SoftmaxCrossEntropyWithLogits", NULL};
  run_ops(ops);
}

static TF_Tensor *half_tensor(const int64_t *dims, const double *v, int n) {
  TF_Tensor *t = TF_AllocateTensor(TF_HALF, dims, 4, (size_t)n * 2);
  for (int i = 0; i < n; i++) ((uint16_t *)TF_TensorData(t))[i] = tfc_float_to_half((float)v[i]);
  return t;
}

static TF_Output hg_op(TF_Graph *g, const char *type, const char *name, TF_Output *ins, int n, int pool) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  if (n > 0 && strcmp(type, "Square")) {
    int64_t one[4] = {1, 1, 1, 1}, two[4] = {1, 2, 2, 1};
    TF_SetAttrIntList(d, "strides", pool ? two : one, 4);
    if (pool) TF_SetAttrIntList(d, "ksize", two, 4);
    TF_SetAttrString(d, "padding", pool ? "VALID" : "SAME", pool ? 5 : 4);
  }
  if (n == 0) {
    TF_SetAttrType(d, "dtype", TF_HALF);
  }
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

/* tfc's gradient graph of MaxPool(Square(Conv2D(x, f))) in half (Conv2DBackpropInput/Filter,
 * MaxPoolGrad, the half constant 2 of Square's gradient) against tf.gradients' values. */
static void half_network_gradient(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = hg_op(g, "Placeholder", "x", NULL, 0, 0), f = hg_op(g, "Placeholder", "f", NULL, 0, 0);
  TF_Output cin[2] = {x, f};
  TF_Output conv = hg_op(g, "Conv2D", "conv", cin, 2, 0);
  TF_Output sq = hg_op(g, "Square", "sq", &conv, 1, 0);
  TF_Output y = hg_op(g, "MaxPool", "pool", &sq, 1, 1);
  TF_Output dx[2];
  TF_AddGradients(g, &y, 1, cin, 2, NULL, s, dx);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  int64_t xd[4] = {1, 4, 4, 2}, fd[4] = {2, 2, 2, 2};
  TF_Tensor *feeds[2] = {half_tensor(xd, hg_x, 32), half_tensor(fd, hg_f, 16)}, *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, cin, feeds, 2, dx, out, 2, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
  const double *want[2] = {hg_dx, hg_df};
  int n[2] = {32, 16}, bad = 0;
  for (int k = 0; k < 2; k++) {
    EXPECT_EQ(TF_TensorType(out[k]), TF_HALF);
    for (int i = 0; i < n[k]; i++) {
      double got = tfc_half_to_float(((const uint16_t *)TF_TensorData(out[k]))[i]);
      /* two rounded sums and a product between input and gradient: a few half ulps */
      if (fabs(got - want[k][i]) > 4 * ulp(TFC_DT_HALF, want[k][i] < 1 && want[k][i] > -1 ? 1 : want[k][i])) {
        fprintf(stderr, "d%s[%d]: got %.9g, TF %.9g\n", k ? "f" : "x", i, got, want[k][i]);
        bad++;
      }
    }
    TF_DeleteTensor(out[k]);
    TF_DeleteTensor(feeds[k]);
  }
  EXPECT_EQ(bad, 0);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {TFC_TEST(half_conv),      TFC_TEST(half_pool), TFC_TEST(half_activation_grads),
                                 TFC_TEST(half_math_tail), TFC_TEST(half_sums), TFC_TEST(half_network_gradient),
                                 TFC_TEST(half_batch_norms),
                                 {NULL, NULL}};
TFC_TEST_MAIN(tests)
