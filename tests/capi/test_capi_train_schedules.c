/* C API contract tests: the learning-rate schedules other than exponential decay and the
 * optimizers added beside the first five (include/tfc/train.h): node names as TF's Python
 * names them, values at several global steps and variables after training steps, all
 * recorded from TensorFlow (tf.compat.v1, graph mode, reference variables), and the errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

static TF_Output finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(d != NULL);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static TF_Output placeholder(TFC_Scope *sc, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", NULL, 0);
  return finish(d);
}

static TF_Output const_vec(TFC_Scope *sc, const char *name, const float *v, int64_t n) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, (size_t)n * sizeof(float));
  memcpy(TF_TensorData(t), v, (size_t)n * sizeof(float));
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return finish(d);
}

static TF_Output op2(TFC_Scope *sc, const char *type, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, NULL);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return finish(d);
}

static const char *name_of(TF_Operation *op) { return op ? TF_OperationName(op) : "(null)"; }

static TF_Session *session(TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* Runs target (may be NULL) or fetches `fetch` (float values into out, up to n), with the int32
 * scalar `step` fed when step.oper is set. */
static void run(TF_Session *sess, TF_Output step, int32_t step_value, TF_Output fetch, float *out, int n,
                TF_Operation *target) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *feed = NULL, *got = NULL;
  if (step.oper) {
    feed = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
    *(int32_t *)TF_TensorData(feed) = step_value;
  }
  TF_SessionRun(sess, NULL, feed ? &step : NULL, feed ? &feed : NULL, feed ? 1 : 0, fetch.oper ? &fetch : NULL,
                fetch.oper ? &got : NULL, fetch.oper ? 1 : 0, target ? (const TF_Operation *const *)&target : NULL,
                target ? 1 : 0, NULL, s);
  OK(s);
  if (got) {
    EXPECT_EQ(TF_TensorType(got), TF_FLOAT);
    EXPECT_TRUE(TF_TensorByteSize(got) >= (size_t)n * sizeof(float));
    memcpy(out, TF_TensorData(got), (size_t)n * sizeof(float));
    TF_DeleteTensor(got);
  }
  if (feed) TF_DeleteTensor(feed);
  TF_DeleteStatus(s);
}

/* ---------------- schedules ---------------- */

enum { N_STEPS = 6 };
static const int32_t STEPS[N_STEPS] = {0, 3, 5, 10, 17, 25};

typedef struct schedule_case {
  const char *name;   /* the result's operation */
  const char *inner;  /* a node TF's Python also makes */
  double want[N_STEPS];
} schedule_case;

/* TensorFlow's values (6 decimals) of each schedule at STEPS, the calls as in the test below. */
static const schedule_case CASES[] = {
    {"PolynomialDecay", "PolynomialDecay/Minimum", {0.1, 0.07003, 0.05005, 0.0001, 0.0001, 0.0001}},
    {"PolynomialDecay_1", "PolynomialDecay_1/Ceil", {0.1, 0.083682, 0.07074, 0.0001, 0.038791, 0.040884}},
    {"ExponentialDecay", "Exp", {0.1, 0.086071, 0.07788, 0.060653, 0.042741, 0.02865}},
    {"ExponentialDecay_1", "ExponentialDecay_1/Floor", {0.1, 0.1, 0.1, 0.060653, 0.060653, 0.036788}},
    {"InverseTimeDecay", "InverseTimeDecay/Add", {0.1, 0.086957, 0.08, 0.066667, 0.054054, 0.044444}},
    {"InverseTimeDecay_1", "InverseTimeDecay_1/Floor", {0.1, 0.1, 0.1, 0.066667, 0.066667, 0.05}},
    {"CosineDecay/Mul_3", "CosineDecay/Cos", {0.1, 0.08145, 0.055, 0.01, 0.01, 0.01}},
    {"SGDRDecay", "SGDRDecay/pow", {0.1, 0.014645, 0.096194, 0.014645, 0.077779, 0.008427}},
    {"SGDRDecay_1", "SGDRDecay_1/cond/Floor", {0.1, 0.02318, 0.04841, 0.02125, 0.014801, 0.0112}},
    {"LinearCosineDecay", "LinearCosineDecay/add_2", {0.1001, 0.055672, 0.0251, 0.0001, 0.0001, 0.0001}},
    {"PiecewiseConstant", "PiecewiseConstant/index", {1, 1, 2, 3, 3, 3}},
};

static void schedules_match_tensorflow_at_global_steps(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output step = placeholder(root, "step", TF_INT32);
  const double bounds[2] = {3, 6}, values[3] = {1, 2, 3};
  TF_Output r[sizeof CASES / sizeof CASES[0]];
  int k = 0;
  r[k++] = TFC_PolynomialDecay(root, 0.1, step, 10, 0.0001, 1.0, 0, s);
  r[k++] = TFC_PolynomialDecay(root, 0.1, step, 10, 0.0001, 0.5, 1, s);
  r[k++] = TFC_NaturalExpDecay(root, 0.1, step, 10, 0.5, 0, s);
  r[k++] = TFC_NaturalExpDecay(root, 0.1, step, 10, 0.5, 1, s);
  r[k++] = TFC_InverseTimeDecay(root, 0.1, step, 10, 0.5, 0, s);
  r[k++] = TFC_InverseTimeDecay(root, 0.1, step, 10, 0.5, 1, s);
  r[k++] = TFC_CosineDecay(root, 0.1, step, 10, 0.1, s);
  r[k++] = TFC_CosineDecayRestarts(root, 0.1, step, 4, 2.0, 1.0, 0.0, s);
  r[k++] = TFC_CosineDecayRestarts(root, 0.1, step, 4, 1.0, 0.5, 0.1, s);
  r[k++] = TFC_LinearCosineDecay(root, 0.1, step, 10, 0.5, 0.0, 0.001, s);
  r[k++] = TFC_PiecewiseConstant(root, step, bounds, 2, values, 3, TF_FLOAT, s);
  OK(s);
  for (int i = 0; i < k; i++) {
    EXPECT_STREQ(name_of(r[i].oper), CASES[i].name);
    EXPECT_TRUE(TF_GraphOperationByName(g, CASES[i].inner) != NULL);
  }
  TF_Session *sess = session(g);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < N_STEPS; j++) {
      float v;
      run(sess, step, STEPS[j], r[i], &v, 1, NULL);
      if (fabs(v - CASES[i].want[j]) > 2e-6)
        tfc_test_fail(__FILE__, __LINE__, "%s at step %d: %.7g, want %.7g (TF)", CASES[i].name, STEPS[j], v,
                      CASES[i].want[j]);
    }
  close_session(sess);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void schedule_builder_name_replaces_the_default_scope(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *named = TFC_ScopeWithBuilderName(root, "lr");
  TF_Output step = placeholder(root, "step", TF_INT32);
  TF_Output r = TFC_CosineDecayRestarts(named, 0.1, step, 4, 2.0, 1.0, 0.0, s);
  OK(s);
  EXPECT_STREQ(name_of(r.oper), "lr");
  EXPECT_TRUE(TF_GraphOperationByName(g, "lr/initial_learning_rate") != NULL);
  TFC_DeleteScope(named);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void piecewise_constant_rejects_mismatched_lists_and_changes_nothing(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output step = placeholder(root, "step", TF_INT32);
  const double b[2] = {3, 6}, v[3] = {1, 2, 3};
  int before = capi_num_ops(g);
  TF_Output r = TFC_PiecewiseConstant(root, step, b, 2, v, 2, TF_FLOAT, s);
  EXPECT_TRUE(r.oper == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "The length of boundaries should be 1 less than the length of values");
  r = TFC_PiecewiseConstant(root, step, b, 2, v, 3, TF_STRING, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(capi_num_ops(g), before);
  /* The failed calls took no name. */
  r = TFC_PiecewiseConstant(root, step, b, 2, v, 3, TF_INT32, s);
  OK(s);
  EXPECT_STREQ(name_of(r.oper), "PiecewiseConstant");
  EXPECT_EQ(TF_OperationOutputType(r), TF_INT32);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- optimizers ---------------- */

typedef struct opt_case {
  const char *label;
  const char *update; /* "<name>/update_w/<op>" */
  const char *slots[2];
  float want[4];      /* w after 3 steps (TF) */
} opt_case;

/* w = [1, -2, 3, 0.5], loss = sum((w - 0.5)^2), three minimize steps. */
static void trains_as_tensorflow(TFC_Optimizer *opt, const opt_case *c) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  const float w0[4] = {1, -2, 3, 0.5}, t[4] = {0.5, 0.5, 0.5, 0.5};
  TFC_Variable w = TFC_NewVariable(root, "w", const_vec(root, NULL, w0, 4), 1, s);
  OK(s);
  TF_Output sq = op2(root, "Sub", w.value, const_vec(root, "t", t, 4));
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Square", NULL);
  TF_AddInput(d, sq);
  TF_Output square = finish(d);
  const int32_t ax = 0;
  int64_t one = 1;
  TF_Tensor *at = TF_AllocateTensor(TF_INT32, &one, 1, sizeof ax);
  memcpy(TF_TensorData(at), &ax, sizeof ax);
  d = TFC_ScopeNewOperation(root, "Const", "axis");
  TF_SetAttrTensor(d, "value", at, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(at);
  TF_Output axes = finish(d);
  TF_Output loss = op2(root, "Sum", square, axes);
  TF_Operation *train = TFC_Minimize(opt, root, loss, NULL, NULL, s);
  OK(s);
  EXPECT_TRUE(TF_GraphOperationByName(g, c->update) != NULL);
  for (int i = 0; i < 2 && c->slots[i]; i++) {
    TFC_Variable slot;
    char name[64];
    EXPECT_TRUE(TFC_OptimizerGetSlot(opt, g, w.variable, c->slots[i], &slot));
    snprintf(name, sizeof name, "w/%s%s", c->label, i ? "_1" : "");
    EXPECT_STREQ(name_of(slot.variable), name);
  }
  EXPECT_TRUE(!TFC_OptimizerGetSlot(opt, g, w.variable, "nonesuch", NULL));
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TF_Session *sess = session(g);
  TF_Output nothing = {NULL, 0};
  run(sess, nothing, 0, nothing, NULL, 0, init);
  for (int i = 0; i < 3; i++) run(sess, nothing, 0, nothing, NULL, 0, train);
  float got[4];
  run(sess, nothing, 0, w.value, got, 4, NULL);
  for (int i = 0; i < 4; i++)
    if (fabsf(got[i] - c->want[i]) > 2e-6f * (1 + fabsf(c->want[i])))
      tfc_test_fail(__FILE__, __LINE__, "%s: w[%d] = %.7g, want %.7g (TF)", c->update, i, got[i], c->want[i]);
  close_session(sess);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void adadelta_trains_as_tensorflow(void) {
  opt_case c = {"Adadelta", "Adadelta/update_w/ApplyAdadelta", {"accum", "accum_update"},
                {0.9986438f, -1.998643f, 2.998643f, 0.5f}};
  TFC_Optimizer *o = TFC_NewAdadeltaOptimizer(1.0, 0.95, 1e-8, NULL);
  trains_as_tensorflow(o, &c);
  TFC_DeleteOptimizer(o);
}

static void ftrl_trains_as_tensorflow(void) {
  opt_case c = {"Ftrl", "Ftrl/update_w/ApplyFtrl", {"accum", "linear"}, {0.545707f, -1.643014f, 2.579745f, 0.129395f}};
  TFC_Optimizer *o = TFC_NewFtrlOptimizer(0.1, -0.5, 0.1, 0.3, 0.05, 0.0, NULL);
  trains_as_tensorflow(o, &c);
  TFC_DeleteOptimizer(o);
}

static void ftrl_with_shrinkage_uses_ftrl_v2(void) {
  opt_case c = {"Ftrl", "Ftrl/update_w/ApplyFtrlV2", {"accum", "linear"},
                {0.5293313f, -1.743323f, 2.694719f, 0.1071692f}};
  TFC_Optimizer *o = TFC_NewFtrlOptimizer(0.1, -0.6, 0.1, 0.3, 0.0, 0.2, NULL);
  trains_as_tensorflow(o, &c);
  TFC_DeleteOptimizer(o);
}

static void proximal_gradient_descent_trains_as_tensorflow(void) {
  opt_case c = {"ProximalGradientDescent", "ProximalGradientDescent/update_w/ApplyProximalGradientDescent",
                {NULL, NULL}, {0.2191988f, -0.2153116f, 1.103769f, 0.0f}};
  TFC_Optimizer *o = TFC_NewProximalGradientDescentOptimizer(0.1, 2.0, 0.5, NULL);
  trains_as_tensorflow(o, &c);
  TFC_DeleteOptimizer(o);
}

static void proximal_adagrad_trains_as_tensorflow(void) {
  opt_case c = {"ProximalAdagrad", "ProximalAdagrad/update_w/ApplyProximalAdagrad", {"accumulator", NULL},
                {0.4930066f, -1.688368f, 2.665614f, 0.08517214f}};
  TFC_Optimizer *o = TFC_NewProximalAdagradOptimizer(0.1, 0.1, 1.0, 0.5, NULL);
  trains_as_tensorflow(o, &c);
  TFC_DeleteOptimizer(o);
}

static const tfc_test tests[] = {
    TFC_TEST(schedules_match_tensorflow_at_global_steps),
    TFC_TEST(schedule_builder_name_replaces_the_default_scope),
    TFC_TEST(piecewise_constant_rejects_mismatched_lists_and_changes_nothing),
    TFC_TEST(adadelta_trains_as_tensorflow),
    TFC_TEST(ftrl_trains_as_tensorflow),
    TFC_TEST(ftrl_with_shrinkage_uses_ftrl_v2),
    TFC_TEST(proximal_gradient_descent_trains_as_tensorflow),
    TFC_TEST(proximal_adagrad_trains_as_tensorflow),
    {0},
};

TFC_TEST_MAIN(tests)
