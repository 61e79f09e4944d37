/*
 * Control flow on a CUDA GPU: the GPU rows of Switch, Merge, Enter, Exit, NextIteration and
 * LoopCond (kernels_gpu_host.c, the CPU's pointer-forwarding kernels) run a while loop whose
 * float state lives in device memory (Mul on the GPU) and whose int32 counter and predicate
 * live in host memory, every node placed on GPU:0 by default; an Assert on GPU:0 checks the
 * result, and a wrong expectation fails it. Runs are targets only: a fetch would add the
 * client CPU as a second partition, which control flow does not run across yet.
 *
 * Without a CUDA build or a GPU every test skips with the reason (the fake GPU's run of the
 * same rows is in tests/unit/test_gpu_host.c).
 */
#include <stdint.h>
#include <string.h>

#include "gpu_compare.c"

#define LH "/job:localhost/replica:0/task:0/device:"

static TF_Operation *scalar(TF_Graph *g, const char *name, TF_DataType dt, const void *v) {
  TF_Tensor *t = TF_AllocateTensor(dt, NULL, 0, TF_DataTypeSize(dt));
  memcpy(TF_TensorData(t), v, TF_DataTypeSize(dt));
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return op;
}

static TF_Operation *binary(TF_Graph *g, const char *type, const char *name, TF_Output a, TF_Output b) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return op;
}

/* i, acc = 0, 1.0; while i < 5: i, acc = i + 1, acc * 2; Assert(acc == want). */
static void float_loop_runs_on_gpu0(void) {
  gc_need_gpu();
  const float wants[2] = {32.0f, 16.0f};
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    int32_t zero = 0, five = 5, one = 1;
    float start = 1.0f, two = 2.0f;
    TF_Output init[2] = {{scalar(g, "i0", TF_INT32, &zero), 0}, {scalar(g, "acc0", TF_FLOAT, &start), 0}};
    TF_WhileParams w = TF_NewWhile(g, init, 2, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    w.cond_output = (TF_Output){
        binary(w.cond_graph, "Less", "less", w.cond_inputs[0], (TF_Output){scalar(w.cond_graph, "five", TF_INT32, &five), 0}),
        0};
    w.body_outputs[0] = (TF_Output){
        binary(w.body_graph, "Add", "inc", w.body_inputs[0], (TF_Output){scalar(w.body_graph, "one", TF_INT32, &one), 0}),
        0};
    w.body_outputs[1] = (TF_Output){
        binary(w.body_graph, "Mul", "twice", w.body_inputs[1], (TF_Output){scalar(w.body_graph, "two", TF_FLOAT, &two), 0}),
        0};
    w.name = "loop";
    TF_Output outs[2];
    TF_FinishWhile(&w, s, outs);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    TF_Operation *ok = binary(g, "Equal", "ok", outs[1], (TF_Output){scalar(g, "want", TF_FLOAT, &wants[k]), 0});
    TF_OperationDescription *d = TF_NewOperation(g, "Assert", "check");
    TF_AddInput(d, (TF_Output){ok, 0});
    TF_AddInputList(d, &outs[0], 1);
    TF_Operation *check = TF_FinishOperation(d, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    TF_SessionOptions *so = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, so, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    const TF_Operation *target = check;
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, &target, 1, NULL, s);
    if (k == 0) {
      if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
    } else {
      EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
      EXPECT_CONTAINS(TF_Message(s), "assertion failed: [5]");
    }
    const char *names[] = {"loop/Enter_1", "loop/Merge_1", "loop/LoopCond", "loop/Switch_1", "loop/NextIteration_1",
                           "loop/Exit_1", "loop/body/twice"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      TF_Operation *op = TF_GraphOperationByName(g, names[i]);
      if (!op) tfc_test_fail(__FILE__, __LINE__, "no node %s", names[i]);
      const char *dev = TFC_SessionOperationDevice(sess, op, s);
      if (!dev || strcmp(dev, LH "GPU:0")) tfc_test_fail(__FILE__, __LINE__, "%s placed on %s", names[i], dev ? dev : "?");
    }
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteSessionOptions(so);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(float_loop_runs_on_gpu0),
    {0},
};

TFC_TEST_MAIN(tests)
