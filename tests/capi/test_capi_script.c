/* C API contract tests: the script ops (PyFunc, PyFuncStateless) and TFC_SetScriptCallback —
 * no callback, values through a callback, its errors, Tout checks, and concurrent calls. */
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

static TF_Operation *const_f32(TF_Graph *g, const char *name, float v) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(t) = v;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return op;
}

/* A PyFunc `name` of the given type over one float input with outputs of types tout. */
static TF_Operation *script_op(TF_Graph *g, const char *type, const char *name, const char *token, TF_Operation *in,
                               const TF_DataType *tout, int n_out) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_Output inputs[1] = {{in, 0}};
  TF_AddInputList(d, inputs, 1);
  TF_SetAttrString(d, "token", token, strlen(token));
  TF_DataType tin[1] = {TF_FLOAT};
  TF_SetAttrTypeList(d, "Tin", tin, 1);
  TF_SetAttrTypeList(d, "Tout", tout, n_out);
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static int calls;
static pthread_mutex_t calls_mu = PTHREAD_MUTEX_INITIALIZER;

/* "twice": out[k] = 2 * in[0] as Tout[k] (float or double); "bad": a status; "int": an int32
 * whatever Tout says. The inputs are the callback's to delete. */
static void callback(void *ctx, const char *token, TF_Tensor *const *inputs, int ninputs, const TF_DataType *types,
                     TF_Tensor **outputs, int noutputs, TF_Status *status) {
  EXPECT_EQ((long)(intptr_t)ctx, 42);
  pthread_mutex_lock(&calls_mu);
  calls++;
  pthread_mutex_unlock(&calls_mu);
  float x = ninputs ? *(float *)TF_TensorData(inputs[0]) : 0;
  for (int i = 0; i < ninputs; i++) TF_DeleteTensor(inputs[i]);
  if (!strcmp(token, "bad")) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "no more");
    return;
  }
  for (int k = 0; k < noutputs; k++) {
    if (!strcmp(token, "int") || types[k] == TF_INT32) {
      outputs[k] = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
      *(int32_t *)TF_TensorData(outputs[k]) = (int32_t)x;
    } else if (types[k] == TF_DOUBLE) {
      outputs[k] = TF_AllocateTensor(TF_DOUBLE, NULL, 0, sizeof(double));
      *(double *)TF_TensorData(outputs[k]) = 2.0 * x;
    } else {
      outputs[k] = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
      *(float *)TF_TensorData(outputs[k]) = 2.0f * x;
    }
  }
}

static TF_Tensor *run1(TF_Session *sess, TF_Operation *op, int index, TF_Status *s) {
  TF_Output out = {op, index};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  return r;
}

static void script_ops_without_callback_fail_precondition(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_DataType f = TF_FLOAT;
  TF_Operation *p = script_op(g, "PyFunc", "p", "pyfunc_0", const_f32(g, "x", 1.5f), &f, 1);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Tensor *r = run1(sess, p, 0, s);
  EXPECT_TRUE(r == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "PyFunc needs a script callback");
  EXPECT_CONTAINS(TF_Message(s), "pyfunc_0");
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void script_ops_run_the_callback(void) {
  TFC_SetScriptCallback(callback, (void *)(intptr_t)42);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_DataType two[2] = {TF_FLOAT, TF_DOUBLE};
  TF_Operation *x = const_f32(g, "x", 1.5f);
  TF_Operation *p = script_op(g, "PyFunc", "p", "twice", x, two, 2);
  TF_Operation *q = script_op(g, "PyFuncStateless", "q", "twice", x, two, 1);
  EXPECT_EQ(TF_OperationNumOutputs(p), 2);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){p, 1}), TF_DOUBLE);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Output outs[3] = {{p, 0}, {p, 1}, {q, 0}};
  TF_Tensor *r[3] = {0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, r, 3, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(*(float *)TF_TensorData(r[0]), 3.0f);
  EXPECT_EQ(*(double *)TF_TensorData(r[1]), 3.0);
  EXPECT_EQ(*(float *)TF_TensorData(r[2]), 3.0f);
  EXPECT_EQ(calls, 2);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(r[i]);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  TFC_SetScriptCallback(NULL, NULL);
}

static void script_op_errors_are_the_callbacks_and_tout_checks(void) {
  TFC_SetScriptCallback(callback, (void *)(intptr_t)42);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_DataType f = TF_FLOAT;
  TF_Operation *x = const_f32(g, "x", 2.0f);
  TF_Operation *bad = script_op(g, "PyFunc", "bad", "bad", x, &f, 1);
  TF_Operation *wrong = script_op(g, "PyFunc", "wrong", "int", x, &f, 1);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_TRUE(run1(sess, bad, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  EXPECT_CONTAINS(TF_Message(s), "no more");
  EXPECT_CONTAINS(TF_Message(s), "{{node bad}}");
  EXPECT_TRUE(run1(sess, wrong, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "0-th value returned by int is int32, but expects float");
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  TFC_SetScriptCallback(NULL, NULL);
}

static void script_ops_run_concurrently(void) {
  TFC_SetScriptCallback(callback, (void *)(intptr_t)42);
  calls = 0;
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_DataType f = TF_FLOAT;
  TF_Operation *x = const_f32(g, "x", 1.0f);
  TF_Output outs[16];
  char name[16];
  for (int i = 0; i < 16; i++) {
    snprintf(name, sizeof name, "p%d", i);
    outs[i] = (TF_Output){script_op(g, "PyFunc", name, "twice", x, &f, 1), 0};
  }
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetThreads(o, 4, 4);
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Tensor *r[16] = {0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, r, 16, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  for (int i = 0; i < 16; i++) {
    EXPECT_EQ(*(float *)TF_TensorData(r[i]), 2.0f);
    TF_DeleteTensor(r[i]);
  }
  EXPECT_EQ(calls, 16);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  TFC_SetScriptCallback(NULL, NULL);
}

static const tfc_test tests[] = {
    TFC_TEST(script_ops_without_callback_fail_precondition),
    TFC_TEST(script_ops_run_the_callback),
    TFC_TEST(script_op_errors_are_the_callbacks_and_tout_checks),
    TFC_TEST(script_ops_run_concurrently),
    {0},
};

TFC_TEST_MAIN(tests)
