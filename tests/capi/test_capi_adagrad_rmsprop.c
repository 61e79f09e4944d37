/* C API contract tests: TFC_NewAdagradOptimizer and TFC_NewRMSPropOptimizer (include/tfc/
 * train.h): the slots, constants and updates TF's Python builds (names as AdagradOptimizer /
 * RMSPropOptimizer give them), one training step's value against the update rule computed by
 * hand, and TFC_OptimizerGetSlot. (The whole-model comparison with TensorFlow is python/tests/programs_train.py.) */
#include <math.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

typedef struct {
  TF_Graph *g;
  TFC_Scope *root;
  TFC_Variable w;
  TF_Output loss;
} quad;

/* w = [1, 2], loss = sum(w * w): the gradient is 2w. */
static quad quadratic(void) {
  quad q;
  TF_Status *s = TF_NewStatus();
  q.g = TF_NewGraph();
  q.root = TFC_NewRootScope(q.g);
  int64_t two = 2;
  float vals[2] = {1, 2};
  TF_Output init = capi_const(q.g, "init", TF_FLOAT, &two, 1, vals, sizeof vals, s);
  q.w = TFC_NewVariable(q.root, "w", init, 1, s);
  OK(s);
  TF_Output sq = capi_op2(q.g, "Mul", "mul", q.w.value, q.w.value, s);
  int32_t axis = 0;
  TF_Output ax = capi_const(q.g, "axis", TF_INT32, NULL, 0, &axis, sizeof axis, s);
  q.loss = capi_op2(q.g, "Sum", "loss", sq, ax, s);
  OK(s);
  TF_DeleteStatus(s);
  return q;
}

static void step_and_read(quad *q, TF_Operation *train, float out[2]) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *init = TFC_GlobalVariablesInitializer(q->root, NULL, s);
  OK(s);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(q->g, opts, s);
  OK(s);
  const TF_Operation *first[1] = {init}, *step[1] = {train};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, first, 1, NULL, s);
  OK(s);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, step, 1, NULL, s);
  OK(s);
  TF_Output w = {q->w.variable, 0};
  TF_Tensor *t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &w, &t, 1, NULL, 0, NULL, s);
  OK(s);
  memcpy(out, TF_TensorData(t), 2 * sizeof(float));
  TF_DeleteTensor(t);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
}

static void done(quad *q) {
  TFC_DeleteScope(q->root);
  TF_DeleteGraph(q->g);
}

static const char *type_of(TF_Graph *g, const char *name) {
  TF_Operation *op = TF_GraphOperationByName(g, name);
  return op ? TF_OperationOpType(op) : "(missing)";
}

static void adagrad_builds_pythons_nodes_and_steps(void) {
  quad q = quadratic();
  TF_Status *s = TF_NewStatus();
  TFC_Optimizer *opt = TFC_NewAdagradOptimizer(0.1, 0.2, NULL);
  TF_Operation *train = TFC_Minimize(opt, q.root, q.loss, NULL, NULL, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(train), "Adagrad");
  EXPECT_STREQ(type_of(q.g, "w/Adagrad"), "VariableV2");
  EXPECT_STREQ(type_of(q.g, "w/Adagrad/Initializer/Const"), "Const");
  EXPECT_STREQ(type_of(q.g, "Adagrad/learning_rate"), "Const");
  EXPECT_STREQ(type_of(q.g, "Adagrad/update_w/ApplyAdagrad"), "ApplyAdagrad");
  float w[2];
  step_and_read(&q, train, w);
  /* accum = 0.2 + g^2; w -= lr * g / sqrt(accum), g = 2w. */
  for (int i = 0; i < 2; i++) {
    double x = i + 1, g = 2 * x;
    EXPECT_NEAR(w[i], x - 0.1 * g / sqrt(0.2 + g * g), 1e-6);
  }
  TFC_DeleteOptimizer(opt);
  TF_DeleteStatus(s);
  done(&q);
}

static void rmsprop_builds_pythons_nodes_and_steps(void) {
  quad q = quadratic();
  TF_Status *s = TF_NewStatus();
  TFC_Optimizer *opt = TFC_NewRMSPropOptimizer(0.01, 0.9, 0.0, 1e-10, 0, NULL);
  TF_Operation *train = TFC_Minimize(opt, q.root, q.loss, NULL, NULL, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(train), "RMSProp");
  EXPECT_STREQ(type_of(q.g, "w/RMSProp/Initializer/ones"), "Const");
  EXPECT_STREQ(type_of(q.g, "w/RMSProp_1/Initializer/zeros"), "Const");
  EXPECT_STREQ(type_of(q.g, "RMSProp/decay"), "Const");
  EXPECT_STREQ(type_of(q.g, "RMSProp/momentum"), "Const");
  EXPECT_STREQ(type_of(q.g, "RMSProp/epsilon"), "Const");
  TF_Operation *apply = TF_GraphOperationByName(q.g, "RMSProp/update_w/ApplyRMSProp");
  EXPECT_TRUE(apply != NULL);
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){apply, 1}).oper), "w/RMSProp");
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){apply, 2}).oper), "w/RMSProp_1");
  float w[2];
  step_and_read(&q, train, w);
  /* ms = 0.9 * 1 + 0.1 g^2; w -= lr * g / sqrt(ms + eps). */
  for (int i = 0; i < 2; i++) {
    double x = i + 1, g = 2 * x;
    EXPECT_NEAR(w[i], x - 0.01 * g / sqrt(0.9 + 0.1 * g * g + 1e-10), 1e-6);
  }
  TFC_DeleteOptimizer(opt);
  TF_DeleteStatus(s);
  done(&q);
}

static void centered_rmsprop_keeps_the_mean_gradient(void) {
  quad q = quadratic();
  TF_Status *s = TF_NewStatus();
  TFC_Optimizer *opt = TFC_NewRMSPropOptimizer(0.01, 0.9, 0.5, 1e-10, 1, "rms");
  TF_Operation *train = TFC_Minimize(opt, q.root, q.loss, NULL, NULL, s);
  OK(s);
  TF_Operation *apply = TF_GraphOperationByName(q.g, "rms/update_w/ApplyCenteredRMSProp");
  EXPECT_TRUE(apply != NULL);
  /* Inputs: var, mg ("w/rms_1", zeros), ms ("w/rms", ones), mom ("w/rms_2", zeros). */
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){apply, 1}).oper), "w/rms_1");
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){apply, 2}).oper), "w/rms");
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){apply, 3}).oper), "w/rms_2");
  float w[2];
  step_and_read(&q, train, w);
  for (int i = 0; i < 2; i++) {
    double x = i + 1, g = 2 * x, mg = 0.1 * g, ms = 0.9 + 0.1 * g * g;
    EXPECT_NEAR(w[i], x - 0.01 * g / sqrt(ms - mg * mg + 1e-10), 1e-6);
  }
  TFC_DeleteOptimizer(opt);
  TF_DeleteStatus(s);
  done(&q);
}

static void get_slot_finds_slots_by_pythons_names(void) {
  quad q = quadratic();
  TF_Status *s = TF_NewStatus();
  TFC_Optimizer *rms = TFC_NewRMSPropOptimizer(0.01, 0.9, 0.0, 1e-10, 1, NULL);
  TFC_Variable slot;
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.w.variable, "rms", &slot), 0); /* not made yet */
  TFC_Minimize(rms, q.root, q.loss, NULL, NULL, s);
  OK(s);
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.w.variable, "rms", &slot), 1);
  EXPECT_STREQ(TF_OperationName(slot.variable), "w/RMSProp");
  EXPECT_STREQ(TF_OperationName(slot.initializer), "w/RMSProp/Assign");
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.w.variable, "mg", &slot), 1);
  EXPECT_STREQ(TF_OperationName(slot.variable), "w/RMSProp_1");
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.w.variable, "momentum", NULL), 1);
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.w.variable, "m", &slot), 0); /* Adam's name */
  EXPECT_EQ(TFC_OptimizerGetSlot(rms, q.g, q.loss.oper, "rms", &slot), 0);
  TFC_Optimizer *ada = TFC_NewAdagradOptimizer(0.1, 0.1, NULL);
  EXPECT_EQ(TFC_OptimizerGetSlot(ada, q.g, q.w.variable, "accumulator", &slot), 0); /* another optimizer */
  TFC_DeleteOptimizer(ada);
  TFC_DeleteOptimizer(rms);
  TF_DeleteStatus(s);
  done(&q);
}

static const tfc_test tests[] = {
    TFC_TEST(get_slot_finds_slots_by_pythons_names),
    TFC_TEST(adagrad_builds_pythons_nodes_and_steps),
    TFC_TEST(rmsprop_builds_pythons_nodes_and_steps),
    TFC_TEST(centered_rmsprop_keeps_the_mean_gradient),
    {0},
};

TFC_TEST_MAIN(tests)
