/*
 * TF_AddGradients through TF_NewWhile loops: the ForwardLoopCounter, BackPropLoopCounter and
 * gradient loop TF 2.21's C API builds (tests/fixtures/gen_capi_while_grad.py, output in
 * tests/fixtures/capi_while_grad.txt: every node outside the gradient loop's body, with the
 * Enters' frame attrs), the values TF computes, finite-difference checks, and the errors.
 * The gradient body itself is tfc's registry's (TF's C++ registry names nodes its own way:
 * Identity for AddN's gradient, Multiply for Mul), so its nodes are checked separately.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"

static TF_Output f32_const(TF_Graph *g, const char *name, float v, TF_Status *s) {
  return capi_const(g, name, TF_FLOAT, NULL, 0, &v, sizeof v, s);
}

static TF_Output i32_const(TF_Graph *g, const char *name, int v, TF_Status *s) {
  return capi_const(g, name, TF_INT32, NULL, 0, &v, sizeof v, s);
}

/* op(ins) with the inputs as one list (AddN) or one per arg. */
static TF_Output node(TF_Graph *g, const char *type, const char *name, const TF_Output *ins, int n, int listed,
                      TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  if (listed) TF_AddInputList(d, ins, n);
  else
    for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return (TF_Output){op, 0};
}

enum { ADDN, MUL, TWO, COUNTED };

/* The loops of the fixture, x from `x0` (and b from b0):
 *   ADDN: while x < 10: x = AddN(x, x)      MUL: while x < 10: x = x * x
 *   TWO: (a, b) while a < 10: a = AddN(a, b), b = AddN(b, b, b)
 *   COUNTED: (x, i) while i < 3: x = AddN(x, x), i = i + 1 (an int32 counter) */
static void build(TF_Graph *g, int kind, float x0, float b0, TF_Output *ins, TF_Output *outs, TF_Status *s) {
  int n = kind == ADDN || kind == MUL ? 1 : 2;
  ins[0] = f32_const(g, kind == TWO ? "a" : "x", x0, s);
  if (kind == TWO) ins[1] = f32_const(g, "b", b0, s);
  if (kind == COUNTED) ins[1] = i32_const(g, "i", 0, s);
  TF_WhileParams p = TF_NewWhile(g, ins, n, s);
  OK(s);
  const TF_Output *ci = p.cond_inputs, *bi = p.body_inputs;
  if (kind == COUNTED) {
    TF_Output lt[2] = {ci[1], i32_const(p.cond_graph, "three", 3, s)};
    p.cond_output = node(p.cond_graph, "Less", "less", lt, 2, 0, s);
  } else {
    TF_Output lt[2] = {ci[0], f32_const(p.cond_graph, "ten", 10, s)};
    p.cond_output = node(p.cond_graph, "Less", "less", lt, 2, 0, s);
  }
  TF_Output xx[2] = {bi[0], bi[0]};
  if (kind == MUL) p.body_outputs[0] = node(p.body_graph, "Mul", "mul", xx, 2, 0, s);
  else if (kind == TWO) {
    TF_Output ab[2] = {bi[0], bi[1]}, bbb[3] = {bi[1], bi[1], bi[1]};
    p.body_outputs[0] = node(p.body_graph, "AddN", "addn", ab, 2, 1, s);
    p.body_outputs[1] = node(p.body_graph, "AddN", "addn2", bbb, 3, 1, s);
  } else {
    p.body_outputs[0] = node(p.body_graph, "AddN", "addn", xx, 2, 1, s);
  }
  if (kind == COUNTED) {
    TF_Output inc[2] = {bi[1], i32_const(p.body_graph, "one", 1, s)};
    p.body_outputs[1] = node(p.body_graph, "Add", "inc", inc, 2, 0, s);
  }
  p.name = "w";
  TF_FinishWhile(&p, s, outs);
  OK(s);
}

/* Runs g and fetches n float scalars; returns the run's code (message into msg). */
static int run_floats(TF_Graph *g, const TF_Output *outs, int n, float *vals, char *msg, size_t cap) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *v[4] = {NULL, NULL, NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, v, n, NULL, 0, NULL, s);
  int code = TF_GetCode(s);
  if (msg) snprintf(msg, cap, "%s", TF_Message(s));
  for (int i = 0; code == TF_OK && i < n; i++) {
    vals[i] = *(float *)TF_TensorData(v[i]);
    TF_DeleteTensor(v[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  return code;
}

/* The fixture text from the line after `header` up to the next blank line (a new string). */
static char *fixture_section(const char *header) { return capi_fixture_section("capi_while_grad.txt", header); }

/* 1 for a line the gradient body's nodes decide: a body node, or a node that reads one
 * (the gradient loop's NextIteration reads the body's result, which differs by registry). */
static int body_line(const char *line, size_t len) {
  return memmem(line, len, "/while/body/", 12) || memmem(line, len, "_grad/while/NextIteration", 25);
}

/* Every node of section `header` is in g, those that body_line() leaves out by name and op,
 * the others line for line; g has no other node outside the gradient body. */
static void expect_nodes_as_tf(TF_Graph *g, const char *header) {
  static char got[32768];
  capi_dump_nodes(g, got, sizeof got, CAPI_DUMP_ENTER);
  char *want = fixture_section(header);
  size_t total = 0;
  for (char *line = want; *line;) {
    char *end = strchr(line, '\n');
    char save = end[1];
    end[1] = 0;
    if (!body_line(line, (size_t)(end - line))) {
      if (!strstr(got, line)) tfc_test_fail(__FILE__, __LINE__, "missing node line %s in:\n%s", line, got);
      total += strlen(line);
    } else {
      char name[256], op[64];
      EXPECT_EQ(sscanf(line, "%255s %63s", name, op), 2);
      TF_Operation *o = TF_GraphOperationByName(g, name);
      if (strstr(name, "/while/body/") == NULL && (!o || strcmp(TF_OperationOpType(o), op) != 0))
        tfc_test_fail(__FILE__, __LINE__, "missing node %s (%s)", name, op);
    }
    end[1] = save;
    line = end + 1;
  }
  free(want);
  size_t ours = 0; /* tfc's lines outside the gradient body */
  for (char *line = got; *line;) {
    char *end = strchr(line, '\n');
    if (!body_line(line, (size_t)(end - line))) ours += (size_t)(end - line) + 1;
    line = end + 1;
  }
  EXPECT_EQ(ours, total);
}

/* The fixture's "# values <case>" line as floats. */
static int fixture_values(const char *header, float *v, int cap) {
  char *sec = fixture_section(header);
  int n = 0;
  char *p = sec, *e;
  while (n < cap && (v[n] = strtof(p, &e), e != p)) {
    n++;
    p = e;
  }
  free(sec);
  return n;
}

/* d out[k] / d in[j] by central differences on fresh graphs (x0 +- h). */
static float numeric(int kind, float x0, float b0, int j, int k) {
  const float h = 1e-2f;
  float v[2];
  for (int sgn = 0; sgn < 2; sgn++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TF_Output ins[2], outs[2];
    float d = sgn ? -h : h;
    build(g, kind, j == 0 ? x0 + d : x0, j == 1 ? b0 + d : b0, ins, outs, s);
    EXPECT_EQ(run_floats(g, &outs[k], 1, &v[sgn], NULL, 0), TF_OK);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
  return (v[0] - v[1]) / (2 * h);
}

static void addn_loop_gradient_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[1], outs[1], dx[1];
  build(g, ADDN, 1.5f, 0, ins, outs, s);
  TF_Output dy = f32_const(g, "dy", 1, s);
  TF_AddGradients(g, outs, 1, ins, 1, &dy, s, dx);
  OK(s);
  expect_nodes_as_tf(g, "# nodes addn");
  EXPECT_STREQ(TF_OperationName(dx[0].oper), "gradients/w_grad/while/Exit");
  /* tfc's body: AddN's gradient hands the incoming one to both inputs, summed by AddN. */
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/w_grad/while/body/AddN") != NULL);
  TF_Output fetch[2] = {outs[0], dx[0]};
  float got[2], want[2];
  EXPECT_EQ(run_floats(g, fetch, 2, got, NULL, 0), TF_OK);
  EXPECT_EQ(fixture_values("# values addn", want, 2), 2);
  EXPECT_NEAR(got[0], want[0], 1e-6);
  EXPECT_NEAR(got[1], want[1], 1e-6);
  EXPECT_NEAR(got[1], numeric(ADDN, 1.5f, 0, 0, 0), 1e-2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void two_variable_loop_gradient_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[2], outs[2], dx[2];
  build(g, TWO, 1.5f, 0.5f, ins, outs, s);
  TF_Output dys[2] = {f32_const(g, "dy0", 1, s), f32_const(g, "dy1", 1, s)};
  TF_AddGradients(g, outs, 2, ins, 2, dys, s, dx);
  OK(s);
  expect_nodes_as_tf(g, "# nodes two");
  TF_Output fetch[4] = {outs[0], outs[1], dx[0], dx[1]};
  float got[4], want[4];
  EXPECT_EQ(run_floats(g, fetch, 4, got, NULL, 0), TF_OK);
  EXPECT_EQ(fixture_values("# values two", want, 4), 4);
  for (int i = 0; i < 4; i++) EXPECT_NEAR(got[i], want[i], 1e-4);
  /* y = a_out + b_out: each dx against central differences. */
  for (int j = 0; j < 2; j++) {
    float fd = numeric(TWO, 1.5f, 0.5f, j, 0) + numeric(TWO, 1.5f, 0.5f, j, 1);
    EXPECT_NEAR(got[2 + j], fd, 2e-2);
  }
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* As in TF: the body's gradient reads the forward x from the forward frame; it builds and the
 * run fails on the frames. */
static void body_needing_forward_values_fails_at_run_as_in_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[1], outs[1], dx[1];
  build(g, MUL, 1.5f, 0, ins, outs, s);
  TF_Output dy = f32_const(g, "dy", 1, s);
  TF_AddGradients(g, outs, 1, ins, 1, &dy, s, dx);
  OK(s);
  expect_nodes_as_tf(g, "# nodes mul");
  float v;
  char msg[1024];
  char *want = fixture_section("# error mul run");
  EXPECT_EQ(run_floats(g, dx, 1, &v, msg, sizeof msg), atoi(want));
  EXPECT_TRUE(strstr(want, "has inputs from different frames") != NULL);
  if (!strstr(msg, "has inputs from different frames")) tfc_test_fail(__FILE__, __LINE__, "message: %s", msg);
  free(want);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* An Exit whose gradient is cut (StopGradient): TF's UNIMPLEMENTED, the graph unchanged. */
static void exit_without_gradient_is_unimplemented(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[2], outs[2], dx[2];
  build(g, TWO, 1.5f, 0.5f, ins, outs, s);
  TF_Output sg = node(g, "StopGradient", "sg", &outs[1], 1, 0, s);
  TF_Output ys[2] = {outs[0], sg}, dys[2] = {f32_const(g, "dy0", 1, s), f32_const(g, "dy1", 1, s)};
  int before = capi_num_ops(g);
  TF_AddGradients(g, ys, 2, ins, 2, dys, s, dx);
  char *want = fixture_section("# error stop");
  EXPECT_EQ((int)TF_GetCode(s), atoi(want));
  EXPECT_STREQ(TF_Message(s), "Missing gradient into while loop not yet implemented");
  EXPECT_TRUE(strstr(want, TF_Message(s)) != NULL);
  EXPECT_EQ(capi_num_ops(g), before);
  free(want);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* An int32 counter beside a float variable: no gradient flows into the counter's Exit (TF's
 * C API aborts the process here); tfc gives the gradient loop zeros for it. */
static void integer_counter_variable_gets_zeros(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[2], outs[2], dx[1];
  build(g, COUNTED, 1.5f, 0, ins, outs, s);
  TF_AddGradients(g, outs, 1, ins, 1, NULL, s, dx);
  OK(s);
  float got[2];
  TF_Output fetch[2] = {outs[0], dx[0]};
  EXPECT_EQ(run_floats(g, fetch, 2, got, NULL, 0), TF_OK);
  EXPECT_NEAR(got[0], 12, 1e-6); /* 1.5 * 2^3 */
  EXPECT_NEAR(got[1], 8, 1e-6);
  EXPECT_NEAR(got[1], numeric(COUNTED, 1.5f, 0, 0, 0), 1e-2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A second gradient of the same loop gets its own counters (the first one's counter loop,
 * which shares the forward frame, is not taken for a loop variable). */
static void second_gradient_of_one_loop(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[1], outs[1], dx[2];
  build(g, ADDN, 1.5f, 0, ins, outs, s);
  TF_AddGradients(g, outs, 1, ins, 1, NULL, s, &dx[0]);
  OK(s);
  TF_AddGradients(g, outs, 1, ins, 1, NULL, s, &dx[1]);
  OK(s);
  EXPECT_STREQ(TF_OperationName(dx[1].oper), "gradients_1/w_grad/while/Exit");
  float got[2];
  EXPECT_EQ(run_floats(g, dx, 2, got, NULL, 0), TF_OK);
  EXPECT_NEAR(got[0], 8, 1e-6);
  EXPECT_NEAR(got[1], 8, 1e-6);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TF builds something that does not work for a loop in a loop body; tfc refuses it. */
static void nested_loop_gradient_is_unimplemented(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = f32_const(g, "x", 1.5f, s), out, dx;
  TF_WhileParams p = TF_NewWhile(g, &x, 1, s);
  OK(s);
  TF_Output lt[2] = {p.cond_inputs[0], f32_const(p.cond_graph, "ten", 10, s)};
  p.cond_output = node(p.cond_graph, "Less", "less", lt, 2, 0, s);
  TF_Graph *b = p.body_graph;
  TF_Output bin = p.body_inputs[0];
  TF_WhileParams q = TF_NewWhile(b, &bin, 1, s);
  OK(s);
  TF_Output lt2[2] = {q.cond_inputs[0], f32_const(q.cond_graph, "five", 5, s)};
  q.cond_output = node(q.cond_graph, "Less", "less", lt2, 2, 0, s);
  TF_Output xx[2] = {q.body_inputs[0], q.body_inputs[0]};
  q.body_outputs[0] = node(q.body_graph, "AddN", "addn", xx, 2, 1, s);
  q.name = "inner";
  TF_Output inner;
  TF_FinishWhile(&q, s, &inner);
  OK(s);
  TF_Output ii[2] = {inner, inner};
  p.body_outputs[0] = node(b, "AddN", "addn", ii, 2, 1, s);
  p.name = "outer";
  TF_FinishWhile(&p, s, &out);
  OK(s);
  int before = capi_num_ops(g);
  TF_AddGradients(g, &out, 1, &x, 1, NULL, s, &dx);
  EXPECT_EQ(TF_GetCode(s), TF_UNIMPLEMENTED);
  EXPECT_STREQ(TF_Message(s),
               "Gradients of nested while loops are not supported: loop 'inner' is inside the body of loop 'outer'");
  EXPECT_EQ(capi_num_ops(g), before);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* As TF's C++ registry: no gradient for the control-flow ops themselves, and an Exit outside
 * a loop structure has none either. */
static void control_flow_ops_outside_loops_have_no_gradient(void) {
  const char *ops[] = {"Exit", "Switch", "NextIteration"};
  for (int k = 0; k < 3; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TF_Output x = f32_const(g, "x", 1.5f, s), y, dx;
    if (k == 1) {
      TF_Tensor *t = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
      *(unsigned char *)TF_TensorData(t) = 1;
      TF_OperationDescription *d = TF_NewOperation(g, "Const", "p");
      TF_SetAttrTensor(d, "value", t, s);
      TF_SetAttrType(d, "dtype", TF_BOOL);
      TF_Output pr = {TF_FinishOperation(d, s), 0};
      TF_DeleteTensor(t);
      TF_Output in[2] = {x, pr};
      y = node(g, "Switch", "u", in, 2, 0, s);
      y.index = 1;
    } else {
      y = node(g, ops[k], "u", &x, 1, 0, s);
    }
    TF_AddGradients(g, &y, 1, &x, 1, NULL, s, &dx);
    EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
    char want[128];
    snprintf(want, sizeof want, "No gradient defined for op: %s. ", ops[k]);
    if (strncmp(TF_Message(s), want, strlen(want)) != 0)
      tfc_test_fail(__FILE__, __LINE__, "message: %s", TF_Message(s));
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(addn_loop_gradient_matches_tf),
    TFC_TEST(two_variable_loop_gradient_matches_tf),
    TFC_TEST(body_needing_forward_values_fails_at_run_as_in_tf),
    TFC_TEST(exit_without_gradient_is_unimplemented),
    TFC_TEST(integer_counter_variable_gets_zeros),
    TFC_TEST(second_gradient_of_one_loop),
    TFC_TEST(nested_loop_gradient_is_unimplemented),
    TFC_TEST(control_flow_ops_outside_loops_have_no_gradient),
    {NULL, NULL},
};

TFC_TEST_MAIN(tests)
