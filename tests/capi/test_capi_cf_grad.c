/*
 * Gradients (TFC_Gradients, TF Python's tf.gradients) through loops built by TFC_WhileLoop,
 * whose bodies' gradients need each iteration's forward values (v * v): the values are saved
 * on stacks in the forward loop and popped in the gradient loop, so the results must match
 * the analytic derivatives and central differences. (TF_AddGradients, TF's C API, reads them
 * across frames instead and fails at run time: tests/capi/test_capi_while_grad.c.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "cf_ops.h"

/* a <type> b, b a number when b.oper is NULL; outside inputs captured first. */
static TF_Output op(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b, double bv,
                    TF_Status *s) {
  return cf_op(sc, type, name, a, 0, b, bv, s);
}

static const TF_Output NONE = {NULL, 0};

/* Runs g with x (and w, float or bool) fed and returns the float fetch. */
static float run(TF_Graph *g, TF_Output fetch, float x, float w) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Output fo[2] = {{TF_GraphOperationByName(g, "x"), 0}, {TF_GraphOperationByName(g, "w"), 0}};
  int wbool = fo[1].oper && TF_OperationOutputType(fo[1]) == TF_BOOL;
  TF_Tensor *fv[2] = {TF_AllocateTensor(TF_FLOAT, NULL, 0, 4),
                      TF_AllocateTensor(wbool ? TF_BOOL : TF_FLOAT, NULL, 0, wbool ? 1 : 4)};
  *(float *)TF_TensorData(fv[0]) = x;
  if (wbool) *(unsigned char *)TF_TensorData(fv[1]) = w != 0;
  else *(float *)TF_TensorData(fv[1]) = w;
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, fo, fv, fo[1].oper ? 2 : 1, &fetch, &out, 1, NULL, 0, NULL, s);
  OK(s);
  float v = *(float *)TF_TensorData(out);
  TF_DeleteTensor(out);
  TF_DeleteTensor(fv[0]);
  TF_DeleteTensor(fv[1]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  return v;
}

typedef struct prog {
  TF_Output w; /* an outside multiplier, or NONE */
  int counted; /* an int32 counter loop variable in front: while i < 3 */
} prog;

static void cond_fn(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  prog *p = arg;
  if (p->counted) *out = op(sc, "Less", "Less", vars[0], NONE, 3, s);
  else *out = op(sc, "Less", "Less", vars[0], NONE, 100, s);
}

static void body_fn(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  prog *p = arg;
  if (p->counted) {
    outs[0] = op(sc, "AddV2", "add", vars[0], NONE, 1, s);
    outs[1] = op(sc, "Mul", "mul", vars[1], vars[1], 0, s);
  } else if (p->w.oper) {
    outs[0] = op(sc, "Mul", "mul", vars[0], p->w, 0, s);
  } else {
    outs[0] = op(sc, "Mul", "mul", vars[0], vars[0], 0, s);
  }
}

/* The loop's result y and dy/dx (TFC_Gradients) for one program. */
static void build(TF_Graph *g, prog *p, const TFC_WhileOptions *o, TF_Output *y, TF_Output *dx, TF_Status *s) {
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s);
  TF_Output vars[2], outs[2];
  int n = 0;
  if (p->counted) vars[n++] = cf_constant(root, "i", TF_INT32, 0, s);
  vars[n++] = x;
  TFC_WhileLoop(root, cond_fn, body_fn, p, vars, n, o, NULL, outs, s);
  OK(s);
  *y = outs[n - 1];
  TFC_Gradients(root, y, 1, &x, 1, NULL, 0, dx, s);
  OK(s);
  TFC_DeleteScope(root);
}

static float central(prog *p, const TFC_WhileOptions *o, float x, float w) {
  const float h = 1e-3f;
  float v[2];
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    prog q = *p;
    if (p->w.oper) q.w = cf_placeholder(g, "w", TF_FLOAT, s);
    TF_Output y, dx;
    build(g, &q, o, &y, &dx, s);
    v[k] = run(g, y, k ? x - h : x + h, w);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
  return (v[0] - v[1]) / (2 * h);
}

static void check(prog *p, const TFC_WhileOptions *o, float x, float w, double want_y, double want_dx) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  if (p->w.oper) p->w = cf_placeholder(g, "w", TF_FLOAT, s);
  TF_Output y, dx;
  build(g, p, o, &y, &dx, s);
  EXPECT_TRUE(dx.oper != NULL);
  EXPECT_NEAR(run(g, y, x, w), want_y, 1e-5);
  float got = run(g, dx, x, w);
  EXPECT_NEAR(got, want_dx, 1e-5);
  EXPECT_NEAR(got, central(p, o, x, w), 2e-2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* v = v * v while v < 100 from 1.5: four trips, y = x^16. */
static void square_loop_gradient_uses_saved_values(void) {
  prog p = {NONE, 0};
  check(&p, NULL, 1.5f, 0, pow(1.5, 16), 16 * pow(1.5, 15));
}

/* A loop that never runs its body: y = x, dy/dx = 1 (no push, no pop). */
static void zero_trip_loop_gradient(void) {
  prog p = {NONE, 0};
  check(&p, NULL, 200, 0, 200, 1);
}

/* maximum_iterations given as a tensor (an int32 Const made by the caller): y = x^8. */
static void square_loop_with_maximum_iterations_tensor(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), y, dx;
  TFC_WhileOptions o = TFC_DefaultWhileOptions();
  o.maximum_iterations_tensor = cf_constant(root, "max", TF_INT32, 3, s);
  prog p = {NONE, 0};
  TFC_WhileLoop(root, cond_fn, body_fn, &p, &x, 1, &o, NULL, &y, s);
  OK(s);
  EXPECT_TRUE(TF_GraphOperationByName(g, "while/maximum_iterations") == NULL);
  EXPECT_STREQ(TF_OperationName(TF_OperationInput((TF_Input){TF_GraphOperationByName(g, "while/Less/Enter"), 0}).oper),
               "max");
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 0, &dx, s);
  OK(s);
  EXPECT_NEAR(run(g, y, 1.1f, 0), pow(1.1, 8), 1e-5);
  EXPECT_NEAR(run(g, dx, 1.1f, 0), 8 * pow(1.1, 7), 1e-5);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* back_prop false: tf.gradients gives None through the loop, while another path from x to
 * y still gets its gradient (y = loop(z) + z, z = 3x: dy/dx = 3). */
static void loop_without_back_prop_passes_no_gradient(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), l, dx[2];
  TF_Output z = op(root, "Mul", "mul", x, NONE, 3, s);
  TFC_WhileOptions o = TFC_DefaultWhileOptions();
  o.back_prop = 0;
  prog p = {NONE, 0};
  TFC_WhileLoop(root, cond_fn, body_fn, &p, &z, 1, &o, NULL, &l, s);
  OK(s);
  TF_Output y = op(root, "AddV2", "add", l, z, 0, s);
  TFC_Gradients(root, &l, 1, &x, 1, NULL, 0, &dx[0], s);
  OK(s);
  EXPECT_TRUE(dx[0].oper == NULL);
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 0, &dx[1], s);
  OK(s);
  EXPECT_NEAR(run(g, dx[1], 0.5f, 0), 3, 1e-6);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* (i, v) = (i + 1, v * v) while i < 3: y = x^8, with an int32 counter beside. */
static void counted_square_loop_gradient(void) {
  prog p = {NONE, 1};
  check(&p, NULL, 1.1f, 0, pow(1.1, 8), 8 * pow(1.1, 7));
}

/* v = v * w (w an outside tensor, an invariant) while v < 100: 1.5 * 1.7^n, n = 9. */
static void invariant_multiplier_loop_gradient(void) {
  prog p = {{(TF_Operation *)1, 0}, 0}; /* w: made in check() */
  check(&p, NULL, 1.5f, 1.7f, 1.5 * pow(1.7, 8), pow(1.7, 8));
}

/* maximum_iterations 2 and parallel_iterations 1: y = x^4. */
static void square_loop_with_maximum_iterations_gradient(void) {
  prog p = {NONE, 0};
  TFC_WhileOptions o = TFC_DefaultWhileOptions();
  o.maximum_iterations = 2;
  o.parallel_iterations = 1;
  check(&p, &o, 1.5f, 0, pow(1.5, 4), 4 * pow(1.5, 3));
}

/* ---- conds, checked against TF (tests/fixtures/cf_builders.txt, "# grad ...") ---- */

static char *fixture_section(const char *header) { return capi_fixture_section("cf_builders.txt", header); }

/* The section's "values" line. */
static int fixture_values(const char *header, double *v, int cap) {
  char *sec = fixture_section(header);
  char *p = strstr(sec, "values ") + 7, *e;
  int n = 0;
  while (n < cap && (v[n] = strtod(p, &e), e != p)) {
    n++;
    p = e;
  }
  free(sec);
  return n;
}

static void sq_branch(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  TF_Output x = *(TF_Output *)arg;
  outs[0] = op(sc, "Mul", "mul", x, x, 0, s);
}
static void plus1_branch(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = op(sc, "AddV2", "add", *(TF_Output *)arg, NONE, 1, s);
}

/* cond(p, x * x, x + 1): Python's cond gradient nodes (Merge_grad/cond_grad, the zeros made
 * on the untaken side, Switch_grad/cond_grad), TF's values, and central differences. */
static void cond_gradient_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), y, dx;
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "w"); /* the pred, fed as "w" */
  TF_SetAttrType(d, "dtype", TF_BOOL);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Output p = {TF_FinishOperation(d, s), 0};
  TFC_Cond(root, p, sq_branch, &x, plus1_branch, &x, 1, NULL, &y, s);
  OK(s);
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 0, &dx, s);
  OK(s);
  /* Nodes: every gradient node TF adds but its seed (TF 2.x names it grad_ys_0 over a Const;
   * TF 1.15, as tfc, Fill over a Const grad_ys_0), line for line. */
  char *want = fixture_section("# grad cond");
  static char got[16384];
  size_t len = 0, pos = 0;
  TF_Operation *o;
  while ((o = TF_GraphNextOperation(g, &pos)) != NULL) {
    if (strncmp(TF_OperationName(o), "gradients/", 10) != 0) continue;
    if (!strcmp(TF_OperationName(o), "gradients/Shape") || !strcmp(TF_OperationName(o), "gradients/grad_ys_0") ||
        !strcmp(TF_OperationName(o), "gradients/Fill"))
      continue;
    len += (size_t)snprintf(got + len, sizeof got - len, "%s %s ", TF_OperationName(o), TF_OperationOpType(o));
    for (int i = 0; i < TF_OperationNumInputs(o); i++) {
      TF_Output src = TF_OperationInput((TF_Input){o, i});
      const char *nm = TF_OperationName(src.oper);
      len += (size_t)snprintf(got + len, sizeof got - len, "%s%s:%d", i ? "," : "",
                              strcmp(nm, "gradients/Fill") ? nm : "gradients/grad_ys_0", src.index);
    }
    TF_Operation *ctl[4];
    int nc = TF_OperationGetControlInputs(o, ctl, 4);
    for (int i = 0; i < nc; i++)
      len += (size_t)snprintf(got + len, sizeof got - len, "%s^%s", TF_OperationNumInputs(o) || i ? "," : "",
                              TF_OperationName(ctl[i]));
    len += (size_t)snprintf(got + len, sizeof got - len, "\n");
  }
  size_t total = 0;
  for (char *line = want; *line && strncmp(line, "values", 6) != 0;) {
    char *end = strchr(line, '\n');
    char save = end[1];
    end[1] = 0;
    if (strncmp(line, "gradients/Shape ", 16) && strncmp(line, "gradients/grad_ys_0", 19)) {
      if (!strstr(got, line)) tfc_test_fail(__FILE__, __LINE__, "missing gradient node\n%sin:\n%s", line, got);
      total += strlen(line);
    }
    end[1] = save;
    line = end + 1;
  }
  if (total != strlen(got)) tfc_test_fail(__FILE__, __LINE__, "extra gradient nodes in:\n%s", got);
  free(want);
  double vals[2];
  EXPECT_EQ(fixture_values("# grad cond", vals, 2), 2);
  EXPECT_NEAR(run(g, dx, 3, 1), vals[0], 1e-6);
  EXPECT_NEAR(run(g, dx, 3, 0), vals[1], 1e-6);
  const float h = 1e-2f;
  EXPECT_NEAR(run(g, dx, 3, 1), (run(g, y, 3 + h, 1) - run(g, y, 3 - h, 1)) / (2 * h), 1e-2);
  EXPECT_NEAR(run(g, dx, 3, 0), (run(g, y, 3 + h, 0) - run(g, y, 3 - h, 0)) / (2 * h), 1e-2);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* The loops of the fixture's "# grad while_square" and "# grad cond_in_while": TF's values. */
static void sq_body(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  outs[0] = op(sc, "Mul", "mul", vars[0], vars[0], 0, s);
}
static void times3_branch(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = op(sc, "Mul", "mul", *(TF_Output *)arg, NONE, 3, s);
}
static void cond_sq_body(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  TF_Output v = vars[0];
  TF_Output p = op(sc, "Less", "Less", v, NONE, 5, s);
  TFC_Cond(sc, p, sq_branch, &v, times3_branch, &v, 1, NULL, outs, s);
}
static void below(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  *out = op(sc, "Less", "Less", vars[0], NONE, *(double *)arg, s);
}

static void loop_gradients_match_tf(void) {
  const char *headers[2] = {"# grad while_square", "# grad cond_in_while"};
  const float xs[2][2] = {{1.5f, 3}, {1.5f, 6}};
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TFC_Scope *root = TFC_NewRootScope(g);
    TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), y, dx;
    double limit = k ? 20 : 100;
    TFC_WhileLoop(root, below, k ? cond_sq_body : sq_body, &limit, &x, 1, NULL, NULL, &y, s);
    OK(s);
    TFC_Gradients(root, &y, 1, &x, 1, NULL, 0, &dx, s);
    OK(s);
    double vals[2];
    EXPECT_EQ(fixture_values(headers[k], vals, 2), 2);
    for (int i = 0; i < 2; i++) {
      EXPECT_NEAR(run(g, dx, xs[k][i], 0), vals[i], 1e-5);
      const float h = 1e-3f;
      EXPECT_NEAR(run(g, dx, xs[k][i], 0), (run(g, y, xs[k][i] + h, 0) - run(g, y, xs[k][i] - h, 0)) / (2 * h), 2e-2);
    }
    TFC_DeleteScope(root);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

/* With Python's tuple wrapping (an optimizer's GATE_OP), the cond's Merge gradient is wrapped
 * too ("<Merge>_grad/tuple/control_dependency_1"), and the values do not change. */
static void tuple_wrapped_cond_and_loop_gradients(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), y, l, dx[2];
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "w");
  TF_SetAttrType(d, "dtype", TF_BOOL);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Output p = {TF_FinishOperation(d, s), 0};
  TFC_Cond(root, p, sq_branch, &x, plus1_branch, &x, 1, NULL, &y, s);
  double limit = 100;
  TFC_WhileLoop(root, below, sq_body, &limit, &x, 1, NULL, NULL, &l, s);
  OK(s);
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 1, &dx[0], s);
  OK(s);
  TFC_Gradients(root, &l, 1, &x, 1, NULL, 1, &dx[1], s);
  OK(s);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/cond/Merge_grad/tuple/control_dependency_1") != NULL);
  EXPECT_NEAR(run(g, dx[0], 3, 1), 6, 1e-6);
  EXPECT_NEAR(run(g, dx[0], 3, 0), 1, 1e-6);
  EXPECT_NEAR(run(g, dx[1], 1.5f, 0), 16 * pow(1.5, 15), 1e-5);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A scope kept from a branch callback outlives its context: captures then fail. */
static TFC_Scope *kept;
static void keep_scope(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  kept = TFC_NewSubScope(sc, "kept");
  outs[0] = op(sc, "Mul", "mul", *(TF_Output *)arg, NONE, 2, s);
}

static void finished_context_refuses_captures(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), y;
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "w");
  TF_SetAttrType(d, "dtype", TF_BOOL);
  TF_Output p = {TF_FinishOperation(d, s), 0};
  TFC_Cond(root, p, keep_scope, &x, plus1_branch, &x, 1, NULL, &y, s);
  OK(s);
  TF_Output c = TFC_Capture(kept, x, NULL, s);
  EXPECT_TRUE(c.oper == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s), "TFC_Capture: the cond branch whose scope this is is already built");
  /* A scope without a context hands the tensor back. */
  c = TFC_Capture(root, x, "mul", s);
  OK(s);
  EXPECT_TRUE(c.oper == x.oper);
  TFC_DeleteScope(kept);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* An RNN-like loop with a weight captured into it (a loop invariant): v = tanh(v * w + 0.1),
 * three trips; y, dy/dx and dy/dw (accumulated over the trips) as TF computes them. */
static void rnn_cond(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  (void)arg;
  *out = op(sc, "Less", "Less", vars[0], NONE, 3, s);
}
static void rnn_body(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  outs[0] = op(sc, "AddV2", "add", vars[0], NONE, 1, s);
  TF_Output m = op(sc, "Mul", "mul", vars[1], *(TF_Output *)arg, 0, s);
  TF_Output a = op(sc, "AddV2", "add_1", m, NONE, 0.1, s);
  TFC_Scope *sub = TFC_NewSubScope(sc, "Tanh");
  TF_OperationDescription *d = TF_NewOperation(TFC_ScopeGraph(sc), "Tanh", TFC_ScopeName(sub));
  TF_AddInput(d, a);
  outs[1] = (TF_Output){TF_FinishOperation(d, s), 0};
  TFC_DeleteScope(sub);
}

static void loop_invariant_gradient_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), w = cf_placeholder(g, "w", TF_FLOAT, s), r[2], d[2];
  TF_Output vars[2] = {cf_constant(root, "Const", TF_INT32, 0, s), x};
  TFC_WhileLoop(root, rnn_cond, rnn_body, &w, vars, 2, NULL, NULL, r, s);
  OK(s);
  TF_Output xs[2] = {x, w};
  TFC_Gradients(root, &r[1], 1, xs, 2, NULL, 0, d, s);
  OK(s);
  double want[3];
  EXPECT_EQ(fixture_values("# grad rnn", want, 3), 3);
  EXPECT_NEAR(run(g, r[1], 0.5f, 1.3f), want[0], 1e-5);
  EXPECT_NEAR(run(g, d[0], 0.5f, 1.3f), want[1], 1e-5);
  EXPECT_NEAR(run(g, d[1], 0.5f, 1.3f), want[2], 1e-5);
  const float h = 1e-3f;
  EXPECT_NEAR(run(g, d[1], 0.5f, 1.3f), (run(g, r[1], 0.5f, 1.3f + h) - run(g, r[1], 0.5f, 1.3f - h)) / (2 * h), 1e-2);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(loop_invariant_gradient_matches_tf),
    TFC_TEST(cond_gradient_matches_tf),
    TFC_TEST(tuple_wrapped_cond_and_loop_gradients),
    TFC_TEST(finished_context_refuses_captures),
    TFC_TEST(loop_gradients_match_tf),
    TFC_TEST(square_loop_gradient_uses_saved_values),
    TFC_TEST(counted_square_loop_gradient),
    TFC_TEST(zero_trip_loop_gradient),
    TFC_TEST(loop_without_back_prop_passes_no_gradient),
    TFC_TEST(square_loop_with_maximum_iterations_tensor),
    TFC_TEST(invariant_multiplier_loop_gradient),
    TFC_TEST(square_loop_with_maximum_iterations_gradient),
    {0},
};

TFC_TEST_MAIN(tests)
