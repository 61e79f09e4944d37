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

typedef struct hn_in {
  int dtype, ndims;
  int64_t dims[4];
  const double *vals;
} hn_in;

typedef struct hn_case {
  const char *name, *op;
  int n_in;
  hn_in in[3];
  int out_ndims;
  int64_t out_dims[4];
  const double *out;
  int n_out, ulps;
  int64_t strides[4], ksize[4];
  const char *padding;
} hn_case;

#include "../fixtures/half_nn_tf.inc"

static tfc_tensor *make(const hn_in *in) {
  tfc_tensor *t = ku_typed(in->dtype, in->dims, in->ndims, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) {
    double v = in->vals[i];
    if (in->dtype == TFC_DT_HALF) ((uint16_t *)t->data)[i] = tfc_float_to_half((float)v);
    else if (in->dtype == TFC_DT_BFLOAT16) ((uint16_t *)t->data)[i] = tfc_float_to_bfloat16((float)v);
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
  tfc_tensor *in[3] = {NULL, NULL, NULL}, *out[2] = {NULL, NULL};
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
  int n_out = !strcmp(k->op, "SoftmaxCrossEntropyWithLogits") ? 2 : 1;
  int bad = 0;
  if (ku_run(k->op, attrs, na, in, k->n_in, NULL, out, n_out, &s)) {
    fprintf(stderr, "%s: %s\n", k->name, tfc_status_msg(&s));
    bad = 1;
  } else if (out[0]->dtype != dt || out[0]->n_elems != k->n_out) {
    fprintf(stderr, "%s: got %s of %lld elements\n", k->name, tfc_dtype_name(out[0]->dtype),
            (long long)out[0]->n_elems);
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
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  for (int i = 0; i < 2; i++) tfc_tensor_unref(out[i]);
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
static void half_sums(void) {
  static const char *const ops[] = {"BiasAddGrad", "L2Loss", "Cumsum", "SoftmaxCrossEntropyWithLogits", NULL};
  run_ops(ops);
}

static const tfc_test tests[] = {TFC_TEST(half_conv),      TFC_TEST(half_pool), TFC_TEST(half_activation_grads),
                                 TFC_TEST(half_math_tail), TFC_TEST(half_sums), {NULL, NULL}};
TFC_TEST_MAIN(tests)
