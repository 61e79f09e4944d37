/*
 * Loops that end early, through the C API: a kernel error in iteration 500 and a RunOptions
 * deadline on a loop that would run for minutes both end the step with that error, and the
 * session runs again afterwards. Like every C API test this program also runs under valgrind
 * with leak checking (tests/CMakeLists.txt), which checks that the frames, iterations and
 * tensors of an aborted loop are all freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"

static TF_Output i32_const(TF_Graph *g, const char *name, const int *v, int n, int scalar, TF_Status *s) {
  int64_t dims[1] = {n};
  return capi_const(g, name, TF_INT32, dims, scalar ? 0 : 1, v, sizeof(int) * (size_t)n, s);
}


/* i = 0; while i < limit: i = i + 1 (+ table[i] with a table of 500 zeros: iteration 500
 * gathers out of range when limit > 500), a loop named `name` (the C API's
 * parallel_iterations, 10). */
static TF_Output build_loop(TF_Graph *g, const char *name, int limit, int gather, TF_Status *s) {
  char n0[64];
  snprintf(n0, sizeof n0, "%s_i0", name);
  int zero = 0, one = 1;
  TF_Output i0 = i32_const(g, n0, &zero, 1, 1, s);
  TF_WhileParams p = TF_NewWhile(g, &i0, 1, s);
  OK(s);
  TF_Output lim = i32_const(p.cond_graph, "limit", &limit, 1, 1, s);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0], lim, s);
  TF_Output next = capi_op2(p.body_graph, "AddV2", "next", p.body_inputs[0], i32_const(p.body_graph, "one", &one, 1, 1, s), s);
  if (gather) {
    int *zeros = calloc(500, sizeof(int));
    TF_Output table = i32_const(p.body_graph, "table", zeros, 500, 0, s);
    free(zeros);
    TF_OperationDescription *d = TF_NewOperation(p.body_graph, "GatherV2", "gather");
    TF_AddInput(d, table);
    TF_AddInput(d, p.body_inputs[0]);
    TF_AddInput(d, i32_const(p.body_graph, "axis", &zero, 1, 1, s));
    TF_Output gathered = {TF_FinishOperation(d, s), 0};
    OK(s);
    next = capi_op2(p.body_graph, "AddV2", "next_1", next, gathered, s);
  }
  p.body_outputs[0] = next;
  p.name = name;
  TF_Output out;
  TF_FinishWhile(&p, s, &out);
  OK(s);
  return out;
}

/* Runs the graph (with RunOptions timeout_in_ms when timeout_ms > 0); returns the fetched
 * int, or -1 with the status set. */
static int run(TF_Session *sess, TF_Output out, int timeout_ms, TF_Status *s) {
  unsigned char ro[8] = {0x10}; /* RunOptions.timeout_in_ms (field 2, varint) */
  size_t n = 1;
  for (unsigned v = (unsigned)timeout_ms; n == 1 || v; v >>= 7)
    ro[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
  TF_Buffer *opts = timeout_ms > 0 ? TF_NewBufferFromString(ro, n) : NULL;
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, opts, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  TF_DeleteBuffer(opts);
  if (TF_GetCode(s) != TF_OK) return -1;
  int v = *(int *)TF_TensorData(r);
  TF_DeleteTensor(r);
  return v;
}

static void kernel_error_in_iteration_500_ends_the_loop(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Output ok_out = build_loop(g, "within", 400, 1, s);
  TF_Output bad_out = build_loop(g, "past", 1000, 1, s);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  EXPECT_EQ(run(sess, ok_out, 0, s), 400);
  OK(s);
  for (int k = 0; k < 2; k++) {
    EXPECT_EQ(run(sess, bad_out, 0, s), -1);
    EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
    EXPECT_CONTAINS(TF_Message(s), "= 500 is not in [0, 500)");
    EXPECT_CONTAINS(TF_Message(s), "[[{{node past/body/gather}}]]");
  }
  /* the session is intact */
  EXPECT_EQ(run(sess, ok_out, 0, s), 400);
  OK(s);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* 2^31 - 1 iterations would take minutes; a 200 ms deadline ends the step. */
static void deadline_ends_a_loop_that_would_not_end(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Output out = build_loop(g, "forever", 0x7fffffff, 0, s);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  EXPECT_EQ(run(sess, out, 200, s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(kernel_error_in_iteration_500_ends_the_loop),
    TFC_TEST(deadline_ends_a_loop_that_would_not_end),
    {0},
};
TFC_TEST_MAIN(tests)
