/*
 * C API while loops (TF_NewWhile / TF_FinishWhile / TF_AbortWhile): the loop's node names,
 * inputs and control edges as TF 2.21's C API builds them (tests/fixtures/gen_capi_while.py,
 * output in tests/fixtures/capi_while_nodes.txt), results run through a session, and the
 * errors (with the parent graph left unchanged).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "tfc/tfc.h"

static TF_Output i32_const(TF_Graph *g, const char *name, int v, TF_Status *s) {
  return capi_const(g, name, TF_INT32, NULL, 0, &v, sizeof v, s);
}


/* Runs the graph and fetches n int32 scalars. */
static void run_ints(TF_Graph *g, const TF_Output *outs, int n, int *vals) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *v[4] = {NULL, NULL, NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, v, n, NULL, 0, NULL, s);
  OK(s);
  for (int i = 0; i < n; i++) {
    vals[i] = *(int *)TF_TensorData(v[i]);
    TF_DeleteTensor(v[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
}

/* Expects the graph's nodes to be exactly those of the section starting with `header` in
 * tests/fixtures/capi_while_nodes.txt (up to the next blank line), in any order. */
static void expect_nodes_as_tf(TF_Graph *g, const char *header) {
  static char got[16384];
  capi_dump_nodes(g, got, sizeof got, 0);
  char *want = capi_fixture_section("capi_while_nodes.txt", header);
  capi_expect_node_lines(got, want, header); /* nothing else (no placeholders) */
  free(want);
}

/* TF's BasicLoop: while a < b: a = a + (b + 1); from (-9, 2) -> (3, 2). */
static TF_WhileParams basic_params(TF_Graph *g, TF_Status *s) {
  TF_Output ins[2] = {i32_const(g, "a0", -9, s), i32_const(g, "b0", 2, s)};
  TF_WhileParams p = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0], p.cond_inputs[1], s);
  TF_Output one = i32_const(p.body_graph, "one", 1, s);
  TF_Output add = capi_op2(p.body_graph, "Add", "add", p.body_inputs[1], one, s);
  p.body_outputs[0] = capi_op2(p.body_graph, "Add", "add_1", p.body_inputs[0], add, s);
  p.body_outputs[1] = p.body_inputs[1];
  p.name = "test_loop";
  return p;
}

static void basic_loop_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_WhileParams p = basic_params(g, s);
  TF_Output outs[2];
  TF_FinishWhile(&p, s, outs);
  OK(s);
  EXPECT_STREQ(TF_OperationName(outs[0].oper), "test_loop/Exit");
  EXPECT_STREQ(TF_OperationName(outs[1].oper), "test_loop/Exit_1");
  expect_nodes_as_tf(g, "# basic");
  TF_Operation *enter = TF_GraphOperationByName(g, "test_loop/Enter");
  char frame[32] = {0};
  TF_OperationGetAttrString(enter, "frame_name", frame, sizeof frame - 1, s);
  OK(s);
  EXPECT_STREQ(frame, "test_loop");
  int64_t pi = 0;
  TF_OperationGetAttrInt(enter, "parallel_iterations", &pi, s);
  OK(s);
  EXPECT_EQ(pi, 10);
  int v[2];
  run_ints(g, outs, 2, v);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 2);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* while i < 10: i += 1, one loop var; cond output may be a placeholder's consumer only. */
static void counter_loop_runs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output in = i32_const(g, "i0", 0, s);
  TF_WhileParams p = TF_NewWhile(g, &in, 1, s);
  OK(s);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0], i32_const(p.cond_graph, "ten", 10, s), s);
  p.body_outputs[0] = capi_op2(p.body_graph, "Add", "add", p.body_inputs[0], i32_const(p.body_graph, "one", 1, s), s);
  p.name = "counter";
  TF_Output out;
  TF_FinishWhile(&p, s, &out);
  OK(s);
  int v;
  run_ints(g, &out, 1, &v);
  EXPECT_EQ(v, 10);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* TF's NestedLoop shape: outer while i < 3 { j = 0; inner while j < 4: j += 1; i += 1, k += j }
 * from (0, 0): i = 3, k = 12. */
static void nested_loop_runs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[2] = {i32_const(g, "i0", 0, s), i32_const(g, "k0", 0, s)};
  TF_WhileParams p = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0], i32_const(p.cond_graph, "three", 3, s), s);
  TF_Graph *b = p.body_graph;
  TF_Output j0 = i32_const(b, "j0", 0, s);
  TF_WhileParams q = TF_NewWhile(b, &j0, 1, s);
  OK(s);
  q.cond_output = capi_op2(q.cond_graph, "Less", "less", q.cond_inputs[0], i32_const(q.cond_graph, "four", 4, s), s);
  q.body_outputs[0] = capi_op2(q.body_graph, "Add", "add", q.body_inputs[0], i32_const(q.body_graph, "one", 1, s), s);
  q.name = "inner";
  TF_Output jn;
  TF_FinishWhile(&q, s, &jn);
  OK(s);
  p.body_outputs[0] = capi_op2(b, "Add", "inc", p.body_inputs[0], i32_const(b, "one", 1, s), s);
  p.body_outputs[1] = capi_op2(b, "Add", "acc", p.body_inputs[1], jn, s);
  p.name = "outer";
  TF_Output outs[2];
  TF_FinishWhile(&p, s, outs);
  OK(s);
  expect_nodes_as_tf(g, "# nested");
  TF_Operation *inner = TF_GraphOperationByName(g, "outer/body/inner/Enter");
  char frame[8] = {0};
  TF_OperationGetAttrString(inner, "frame_name", frame, 5, s);
  OK(s);
  EXPECT_STREQ(frame, "inner");
  int v[2];
  run_ints(g, outs, 2, v);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 12);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A loop built by TF_FinishWhile exports to a GraphDef that imports and runs the same. */
static void loop_survives_graphdef_round_trip(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_WhileParams p = basic_params(g, s);
  TF_Output outs[2];
  TF_FinishWhile(&p, s, outs);
  OK(s);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, s);
  OK(s);
  TF_Graph *h = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(h, gd, o, s);
  OK(s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(gd);
  TF_Output hout[2] = {{TF_GraphOperationByName(h, "test_loop/Exit"), 0},
                       {TF_GraphOperationByName(h, "test_loop/Exit_1"), 0}};
  int v[2];
  run_ints(h, hout, 2, v);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 2);
  TF_DeleteGraph(h);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A bool vector as cond output builds (as in TF: the loop variables' shapes are unknown inside
 * the loop) and the step fails at the Switch instead. */
static void vector_cond_fails_at_run(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output in = i32_const(g, "x", 0, s);
  TF_WhileParams p = TF_NewWhile(g, &in, 1, s);
  OK(s);
  int64_t dims[1] = {2};
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, 1, 2 * sizeof(int));
  memset(TF_TensorData(t), 0, 2 * sizeof(int));
  TF_OperationDescription *d = TF_NewOperation(p.cond_graph, "Const", "v");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Output v = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_DeleteTensor(t);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0], v, s);
  p.body_outputs[0] = p.body_inputs[0];
  p.name = "w";
  TF_Output out;
  TF_FinishWhile(&p, s, &out);
  OK(s);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *val = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &val, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "must be a scalar");
  EXPECT_TRUE(val == NULL);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void errors_leave_the_graph_unchanged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_WhileParams z = TF_NewWhile(g, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TF_NewWhile() must be passed at least one input");
  TF_Output o[2];
  TF_FinishWhile(&z, s, o);
  EXPECT_STREQ(TF_Message(s), "TF_WhileParams must be created by successful TF_NewWhile() call");
  TF_AbortWhile(&z); /* a no-op */
  TF_Output bad = {NULL, 0};
  TF_WhileParams zb = TF_NewWhile(g, &bad, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TF_NewWhile: input 0 is not an output of the graph");
  EXPECT_TRUE(zb.cond_graph == NULL);

  TF_WhileParams p = basic_params(g, s);
  int before = capi_num_ops(g);
  p.name = NULL;
  TF_FinishWhile(&p, s, o);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TF_WhileParams `name` field is null");
  EXPECT_EQ(capi_num_ops(g), before);

  TF_Output ins[2] = {{TF_GraphOperationByName(g, "a0"), 0}, {TF_GraphOperationByName(g, "b0"), 0}};
  TF_WhileParams p2 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p2.cond_output = p2.cond_inputs[0];
  p2.body_outputs[0] = p2.body_inputs[0];
  p2.body_outputs[1] = p2.body_inputs[1];
  p2.name = "w";
  TF_FinishWhile(&p2, s, o);
  EXPECT_STREQ(TF_Message(s), "BuildWhileLoop: 'cond' argument must return a boolean output, got int32");
  EXPECT_EQ(capi_num_ops(g), before);

  TF_WhileParams p3 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p3.cond_output = capi_op2(p3.cond_graph, "Less", "less", p3.cond_inputs[0], p3.cond_inputs[1], s);
  p3.body_outputs[0] = ins[0]; /* a tensor of the parent graph */
  p3.body_outputs[1] = p3.body_inputs[1];
  p3.name = "w";
  TF_FinishWhile(&p3, s, o);
  EXPECT_STREQ(TF_Message(s), "Requested return tensor 'a0:0' not found in graph def");
  EXPECT_EQ(capi_num_ops(g), before);

  TF_WhileParams p4 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p4.cond_output = capi_op2(p4.cond_graph, "Less", "less", p4.cond_inputs[0], p4.cond_inputs[1], s);
  p4.body_outputs[0] = p4.body_inputs[0];
  p4.name = "w";
  TF_FinishWhile(&p4, s, o);
  EXPECT_STREQ(TF_Message(s), "TF_WhileParams `body_outputs[1]` field isn't set");
  EXPECT_EQ(capi_num_ops(g), before);

  /* TF accepts this one (and leaves a Merge mixing types); tfc refuses it. */
  TF_WhileParams p6 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p6.cond_output = capi_op2(p6.cond_graph, "Less", "less", p6.cond_inputs[0], p6.cond_inputs[1], s);
  TF_OperationDescription *d = TF_NewOperation(p6.body_graph, "Cast", "cast");
  TF_AddInput(d, p6.body_inputs[0]);
  TF_SetAttrType(d, "DstT", TF_FLOAT);
  p6.body_outputs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
  OK(s);
  p6.body_outputs[1] = p6.body_inputs[1];
  p6.name = "w";
  TF_FinishWhile(&p6, s, o);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s),
               "Input 1 of node w/Merge was passed float from w/NextIteration:0 incompatible with expected int32.");
  EXPECT_EQ(capi_num_ops(g), before);

  /* A second loop of the same name (TF's text; TF itself leaves the nodes it built). */
  TF_WhileParams p7 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p7.cond_output = capi_op2(p7.cond_graph, "Less", "less", p7.cond_inputs[0], p7.cond_inputs[1], s);
  p7.body_outputs[0] = p7.body_inputs[0];
  p7.body_outputs[1] = p7.body_inputs[1];
  p7.name = "w";
  TF_FinishWhile(&p7, s, o);
  OK(s);
  int after_w = capi_num_ops(g);
  TF_WhileParams p8 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  p8.cond_output = capi_op2(p8.cond_graph, "Less", "less", p8.cond_inputs[0], p8.cond_inputs[1], s);
  p8.body_outputs[0] = p8.body_inputs[0];
  p8.body_outputs[1] = p8.body_inputs[1];
  p8.name = "w";
  TF_FinishWhile(&p8, s, o);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "WhileContext with frame name 'w' already exists");
  EXPECT_EQ(capi_num_ops(g), after_w);
  before = after_w;

  /* A parent tensor used inside the body: TF's C API has no captures (pass it as a loop
   * variable); the node cannot be built in the body graph. */
  TF_WhileParams p9 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  TF_OperationDescription *cd = TF_NewOperation(p9.body_graph, "Add", "captured");
  TF_AddInput(cd, p9.body_inputs[0]);
  TF_AddInput(cd, ins[1]);
  EXPECT_TRUE(TF_FinishOperation(cd, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "from another graph");
  TF_AbortWhile(&p9);
  EXPECT_EQ(capi_num_ops(g), before);

  /* A NULL status is tolerated (nothing reported). */
  TF_WhileParams pn = TF_NewWhile(g, ins, 2, NULL);
  EXPECT_TRUE(pn.cond_graph != NULL);
  pn.cond_output = pn.cond_inputs[0]; /* int32: an error found while building */
  pn.body_outputs[0] = pn.body_inputs[0];
  pn.body_outputs[1] = pn.body_inputs[1];
  pn.name = "wn";
  TF_FinishWhile(&pn, NULL, o);
  EXPECT_EQ(capi_num_ops(g), before);

  TF_WhileParams p5 = TF_NewWhile(g, ins, 2, s);
  OK(s);
  TF_AbortWhile(&p5);
  EXPECT_EQ(capi_num_ops(g), before);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Scalar comparisons and arithmetic in a loop run inline (exec/frame.c's FAST_SCALAR, through
 * the kernel rows' compute_scalar), a vector loop variable through the kernels: float, int64
 * and bool scalars, results as the same loop computed here; the device's memory in use is
 * back to the fetched results alone afterwards. */
static void scalar_ops_inline_match_kernels(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  float x0 = 3.0f, v0[2] = {1.0f, -2.0f};
  int64_t k0 = 0, two = 2;
  unsigned char flag0 = 1;
  TF_Output ins[4] = {capi_const(g, "x0", TF_FLOAT, NULL, 0, &x0, sizeof x0, s),
                      capi_const(g, "k0", TF_INT64, NULL, 0, &k0, sizeof k0, s),
                      capi_const(g, "flag0", TF_BOOL, NULL, 0, &flag0, 1, s),
                      capi_const(g, "v0", TF_FLOAT, &two, 1, v0, sizeof v0, s)};
  TF_WhileParams p = TF_NewWhile(g, ins, 4, s);
  OK(s);
  int64_t seven = 7;
  TF_Output k_lt = capi_op2(p.cond_graph, "Less", "k_lt",
                            p.cond_inputs[1], capi_const(p.cond_graph, "seven", TF_INT64, NULL, 0, &seven, 8, s), s);
  p.cond_output = capi_op2(p.cond_graph, "LogicalAnd", "and", k_lt, p.cond_inputs[2], s);
  TF_Graph *b = p.body_graph;
  float f15 = 1.5f, f025 = 0.25f, cap = 20.0f, fm = -1.0f;
  int64_t one = 1;
  TF_Output mul = capi_op2(b, "Mul", "mul", p.body_inputs[0], capi_const(b, "f15", TF_FLOAT, NULL, 0, &f15, 4, s), s);
  TF_Output sub = capi_op2(b, "Sub", "sub", p.body_inputs[0], capi_const(b, "f025", TF_FLOAT, NULL, 0, &f025, 4, s), s);
  TF_Output mx = capi_op2(b, "Maximum", "max", mul, sub, s);
  p.body_outputs[0] = capi_op2(b, "Minimum", "min", mx, capi_const(b, "cap", TF_FLOAT, NULL, 0, &cap, 4, s), s);
  p.body_outputs[1] = capi_op2(b, "AddV2", "add", p.body_inputs[1], capi_const(b, "one", TF_INT64, NULL, 0, &one, 8, s), s);
  TF_Output ge = capi_op2(b, "GreaterEqual", "ge", p.body_outputs[0], capi_const(b, "fm", TF_FLOAT, NULL, 0, &fm, 4, s), s);
  TF_Output lt = capi_op2(b, "Less", "lt", p.body_outputs[0], capi_const(b, "capb", TF_FLOAT, NULL, 0, &cap, 4, s), s);
  p.body_outputs[2] = capi_op2(b, "LogicalAnd", "both", ge, lt, s);
  p.body_outputs[3] = capi_op2(b, "Sub", "vsub", p.body_inputs[3], p.body_inputs[0], s); /* vector - scalar */
  p.name = "scalars";
  TF_Output outs[4];
  TF_FinishWhile(&p, s, outs);
  OK(s);

  float x = x0, v[2] = {v0[0], v0[1]};
  int64_t k = k0;
  int flag = flag0;
  while (k < 7 && flag) {
    v[0] -= x;
    v[1] -= x;
    float m = x * 1.5f, d = x - 0.25f;
    x = m > d ? m : d;
    x = x < 20.0f ? x : 20.0f;
    k += 1;
    flag = x >= -1.0f && x < 20.0f;
  }

  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *r[4] = {NULL, NULL, NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, r, 4, NULL, 0, NULL, s);
  OK(s);
  EXPECT_TRUE(*(float *)TF_TensorData(r[0]) == x);
  EXPECT_EQ(*(int64_t *)TF_TensorData(r[1]), k);
  EXPECT_EQ(*(unsigned char *)TF_TensorData(r[2]), flag);
  EXPECT_TRUE(((float *)TF_TensorData(r[3]))[0] == v[0] && ((float *)TF_TensorData(r[3]))[1] == v[1]);
  EXPECT_TRUE(k < 7); /* the loop ended on the flag, computed by the inline comparisons */
  int64_t in_use = -1, peak = -1;
  TFC_SessionDeviceMemory(sess, "/job:localhost/replica:0/task:0/device:CPU:0", &in_use, &peak, s);
  OK(s);
  EXPECT_EQ(in_use, (int64_t)(sizeof(float) + sizeof(int64_t) + sizeof v)); /* x, k and v; the flag is shared */
  for (int i = 0; i < 4; i++) TF_DeleteTensor(r[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(basic_loop_matches_tf),
    TFC_TEST(counter_loop_runs),
    TFC_TEST(nested_loop_runs),
    TFC_TEST(loop_survives_graphdef_round_trip),
    TFC_TEST(vector_cond_fails_at_run),
    TFC_TEST(errors_leave_the_graph_unchanged),
    TFC_TEST(scalar_ops_inline_match_kernels),
    {0},
};

TFC_TEST_MAIN(tests)
