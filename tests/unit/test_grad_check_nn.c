/*
 * test_grad_check_nn — finite-difference checks (float64) of the nn family's gradients built
 * by TF_AddGradients: BiasAdd in both layouts, the activations (inputs drawn away from their
 * kinks), softmax and log-softmax, both cross-entropy losses (logits and labels), L2Loss and
 * the element-wise math the activations lean on (SquaredDifference, Sin, Cos, Log1p, Expm1),
 * and LRN (in float).
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

typedef struct {
  const char *op;
  const char *fmt; /* BiasAdd's data_format, or NULL */
  double alpha;    /* LeakyRelu's alpha, or 0 for the default */
} nn_arg;

static TF_Output build_unary(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  nn_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "y");
  TF_AddInput(d, x[0]);
  if (a->alpha != 0) TF_SetAttrFloat(d, "alpha", (float)a->alpha);
  return (TF_Output){gc_finish(d), 0};
}

/* y = Square(op(x)) so the gradient flowing in depends on the output values too. */
static TF_Output build_unary_sq(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return gc_op1(g, "Square", build_unary(g, x, nx, arg));
}

static void check_unary(const char *op, double lo, double hi) {
  nn_arg a = {op, NULL, 0};
  gc_input shapes[2] = {IN(lo, hi, 1, 5), IN(lo, hi, 2, 2, 3)};
  for (int i = 0; i < 2; i++) gc_check(op, build_unary, &a, &shapes[i], 1);
  gc_check(op, build_unary_sq, &a, &shapes[1], 1);
}

static TF_Output build_bias_add(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  nn_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, "BiasAdd", "y");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, x[1]);
  if (a->fmt) TF_SetAttrString(d, "data_format", a->fmt, strlen(a->fmt));
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_bias_add_nhwc_and_nchw(void) {
  nn_arg nhwc = {"BiasAdd", "NHWC", 0}, nchw = {"BiasAdd", "NCHW", 0}, dflt = {"BiasAdd", NULL, 0};
  gc_input a[2] = {IN(-2, 2, 4, 2, 3, 2, 4), IN(-1, 1, 1, 4)};
  gc_check("BiasAdd NHWC", build_bias_add, &nhwc, a, 2);
  gc_input b[2] = {IN(-2, 2, 4, 2, 3, 2, 4), IN(-1, 1, 1, 3)};
  gc_check("BiasAdd NCHW", build_bias_add, &nchw, b, 2);
  gc_input m[2] = {IN(-2, 2, 2, 3, 5), IN(-1, 1, 1, 5)};
  gc_check("BiasAdd matrix", build_bias_add, &dflt, m, 2);
}

static void grad_smooth_activations(void) {
  check_unary("Tanh", -2, 2);
  check_unary("Sigmoid", -3, 3);
  check_unary("Softplus", -3, 3);
  check_unary("Softsign", -3, 3);
}

/* Piecewise activations: both sides of each kink, never at it. */
static void grad_piecewise_activations(void) {
  check_unary("Relu", 0.1, 2);
  check_unary("Relu", -2, -0.1);
  check_unary("Relu6", 0.1, 5.9);
  check_unary("Relu6", 6.1, 8);
  check_unary("Elu", 0.1, 2);
  check_unary("Elu", -2, -0.1);
  check_unary("Selu", 0.1, 2);
  check_unary("Selu", -2, -0.1);
  check_unary("LeakyRelu", 0.1, 2);
  check_unary("LeakyRelu", -2, -0.1);
  nn_arg a = {"LeakyRelu", NULL, 0.3};
  gc_input in = IN(-2, -0.1, 2, 2, 3);
  gc_check("LeakyRelu alpha", build_unary, &a, &in, 1);
}

static void grad_softmax_and_log_softmax(void) {
  check_unary("Softmax", -2, 2);
  check_unary("LogSoftmax", -2, 2);
  nn_arg a = {"Softmax", NULL, 0};
  gc_input in3 = IN(-2, 2, 3, 2, 2, 3);
  gc_check("Softmax rank 3", build_unary_sq, &a, &in3, 1);
}

static void grad_elementwise_math(void) {
  check_unary("Sin", -3, 3);
  check_unary("Cos", -3, 3);
  check_unary("Log1p", -0.5, 2);
  check_unary("Expm1", -1, 1);
  check_unary("L2Loss", -2, 2);
}

static TF_Output build_sqdiff(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return gc_op2(g, "SquaredDifference", x[0], x[1]);
}

static void grad_squared_difference_broadcast(void) {
  gc_input same[2] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3)};
  gc_check("SquaredDifference", build_sqdiff, NULL, same, 2);
  gc_input bc[2] = {IN(-2, 2, 3, 2, 1, 3), IN(-2, 2, 2, 4, 1)};
  gc_check("SquaredDifference broadcast", build_sqdiff, NULL, bc, 2);
}

/* Loss output 0 only; labels are a normalized distribution built from x1 by Softmax so the
 * label gradient is checked through a smooth map. */
static TF_Output build_xent(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output labels = gc_op1(g, "Softmax", x[1]);
  TF_Operation *op = gc_finish(({
    TF_OperationDescription *d = TF_NewOperation(g, "SoftmaxCrossEntropyWithLogits", "xent");
    TF_AddInput(d, x[0]);
    TF_AddInput(d, labels);
    d;
  }));
  return (TF_Output){op, 0};
}

/* Both outputs used: the loss and a function of the backprop (second-order path). */
static TF_Output build_xent_both(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output loss = build_xent(g, x, nx, arg);
  TF_Output bp = {loss.oper, 1};
  TF_Output s = gc_op2(g, "Sum", gc_op1(g, "Square", bp), gc_ivec(g, "ax", (int64_t[]){1}, 1));
  return gc_op2(g, "Add", loss, s);
}

static void grad_softmax_cross_entropy(void) {
  gc_input in[2] = {IN(-2, 2, 2, 3, 4), IN(-1, 1, 2, 3, 4)};
  gc_check("SoftmaxCrossEntropyWithLogits", build_xent, NULL, in, 2);
  gc_check("SoftmaxCrossEntropyWithLogits both outputs", build_xent_both, NULL, in, 2);
}

static TF_Output build_sparse_xent(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  double lv[3] = {2, 0, 3};
  int64_t n = 3;
  TF_Output labels = gc_const(g, "labels", *(int *)arg ? TF_INT64 : TF_INT32, &n, 1, lv);
  TF_OperationDescription *d = TF_NewOperation(g, "SparseSoftmaxCrossEntropyWithLogits", "xent");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, labels);
  return (TF_Output){gc_finish(d), 0};
}

static void grad_sparse_softmax_cross_entropy(void) {
  gc_input in = IN(-2, 2, 2, 3, 4);
  int wide = 1, narrow = 0;
  gc_check("SparseSoftmaxCrossEntropyWithLogits int64", build_sparse_xent, &wide, &in, 1);
  gc_check("SparseSoftmaxCrossEntropyWithLogits int32", build_sparse_xent, &narrow, &in, 1);
}

static TF_Output build_lrn(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  (void)arg;
  TF_OperationDescription *d = TF_NewOperation(g, "LRN", "y");
  TF_AddInput(d, x[0]);
  TF_SetAttrInt(d, "depth_radius", 2);
  TF_SetAttrFloat(d, "bias", 1.5f);
  TF_SetAttrFloat(d, "alpha", 0.3f);
  TF_SetAttrFloat(d, "beta", 0.75f);
  return (TF_Output){gc_finish(d), 0};
}

/* LRN is float-only, so the check runs in float with a larger step and tolerance. */
static void grad_lrn(void) {
  gc_input in = IN(-1.5, 1.5, 4, 2, 2, 1, 7);
  gc_check_ex("LRN", build_lrn, NULL, &in, 1, TF_FLOAT, 1e-2, 2e-2);
}

static const tfc_test tests[] = {
    TFC_TEST(grad_bias_add_nhwc_and_nchw),
    TFC_TEST(grad_lrn),
    TFC_TEST(grad_smooth_activations),
    TFC_TEST(grad_piecewise_activations),
    TFC_TEST(grad_softmax_and_log_softmax),
    TFC_TEST(grad_elementwise_math),
    TFC_TEST(grad_squared_difference_broadcast),
    TFC_TEST(grad_softmax_cross_entropy),
    TFC_TEST(grad_sparse_softmax_cross_entropy),
    {0}};
TFC_TEST_MAIN(tests)
