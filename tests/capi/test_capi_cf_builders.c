/*
 * The control-flow builders (include/tfc/control_flow.h): TFC_Cond, TFC_Case, TFC_WhileLoop
 * and TFC_Capture rebuild the programs of tests/fixtures/gen_cf_builders.py, and the graphs
 * must hold exactly the nodes TF 1.x's Python builds (names, ops, inputs, control inputs and
 * the Enters' frame attrs; fixture cf_builders.txt) and compute TF's values. The branch and
 * loop callbacks are written the way a Python lambda reads: each op captures its outside
 * inputs under its own name first, as Python's contexts do when the op is created.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "cf_ops.h"

/* ---- building ops the way Python's operators name them ---- */

static TF_Output num_op(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, double bv,
                        TF_Status *s) {
  return cf_op(sc, type, name, a, 0, (TF_Output){NULL, 0}, bv, s);
}

/* ---- the fixture ---- */

/* The graph's nodes are exactly the section's (in any order); outputs are named as "= ...";
 * running with the feeds gives the "values" line. */
static void expect_as_tf(TF_Graph *g, const char *header, const TF_Output *outs, int n_outs, const char **feed_names,
                         const float *feed_vals, const int *feed_bool, int n_feeds) {
  static char got[65536];
  capi_dump_nodes(g, got, sizeof got, CAPI_DUMP_ENTER | CAPI_DUMP_CLASS);
  char *want = capi_fixture_section("cf_builders.txt", header);
  const char *line = capi_expect_node_lines(got, want, header);
  /* "= name:i ..." */
  char names[512] = "=";
  for (int i = 0; i < n_outs; i++) {
    size_t l = strlen(names);
    snprintf(names + l, sizeof names - l, " %s:%d", TF_OperationName(outs[i].oper), outs[i].index);
  }
  if (strncmp(line, names, strlen(names)) != 0) tfc_test_fail(__FILE__, __LINE__, "%s: outputs %s", header, names);
  const char *vals = strstr(line, "values ");
  EXPECT_TRUE(vals != NULL);
  /* Run. */
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Output fo[4];
  TF_Tensor *fv[4], *ov[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < n_feeds; i++) {
    fo[i] = (TF_Output){TF_GraphOperationByName(g, feed_names[i]), 0};
    fv[i] = TF_AllocateTensor(feed_bool[i] ? TF_BOOL : TF_FLOAT, NULL, 0, feed_bool[i] ? 1 : 4);
    if (feed_bool[i]) *(unsigned char *)TF_TensorData(fv[i]) = feed_vals[i] != 0;
    else *(float *)TF_TensorData(fv[i]) = feed_vals[i];
  }
  TF_SessionRun(sess, NULL, fo, fv, n_feeds, outs, ov, n_outs, NULL, 0, NULL, s);
  OK(s);
  const char *p = vals + 7;
  for (int i = 0; i < n_outs; i++) {
    char *e;
    double w = strtod(p, &e);
    p = e;
    double v = TF_TensorType(ov[i]) == TF_INT32 ? *(int *)TF_TensorData(ov[i]) : *(float *)TF_TensorData(ov[i]);
    EXPECT_NEAR(v, w, 1e-5);
    TF_DeleteTensor(ov[i]);
  }
  for (int i = 0; i < n_feeds; i++) TF_DeleteTensor(fv[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  free(want);
}

/* ---- programs ---- */

typedef struct env {
  TF_Output x, n;
} env;

static void x_times_2(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "Mul", "mul", ((env *)arg)->x, 2, s);
}
static void x_plus_1(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "AddV2", "add", ((env *)arg)->x, 1, s);
}

static void cond_matches_tf(void) {
  for (int pv = 1; pv >= 0; pv--) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TFC_Scope *root = TFC_NewRootScope(g);
    env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
    TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y;
    TFC_Cond(root, p, x_times_2, &e, x_plus_1, &e, 1, NULL, &y, s);
    OK(s);
    const char *fn[2] = {"x", "p"};
    float fvals[2] = {3, (float)pv};
    int fb[2] = {0, 1};
    expect_as_tf(g, pv ? "# cond p=1" : "# cond p=0", &y, 1, fn, fvals, fb, 2);
    TFC_DeleteScope(root);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

static void pair_true(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  TF_Output x = ((env *)arg)->x;
  TF_Output sq = cf_op(sc, "Mul", "mul", x, 0, x, 0, s);
  outs[0] = x; /* an outside tensor as a result: captured by the builder */
  outs[1] = sq;
}
static void pair_false(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = cf_constant(sc, "Const", TF_FLOAT, 7, s);
  outs[1] = num_op(sc, "Sub", "sub", ((env *)arg)->x, 1, s);
}

static void two_output_cond_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
  TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y[2];
  TFC_Cond(root, p, pair_true, &e, pair_false, &e, 2, "pick", y, s);
  OK(s);
  const char *fn[2] = {"x", "p"};
  float fvals[2] = {3, 1};
  int fb[2] = {0, 1};
  expect_as_tf(g, "# cond2", y, 2, fn, fvals, fb, 2);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void neg_x(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = cf_op(sc, "Neg", "Neg", ((env *)arg)->x, 1, (TF_Output){NULL, 0}, 0, s);
}
static void x_times_3(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "Mul", "mul", ((env *)arg)->x, 3, s);
}
static void x_plus_100(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "AddV2", "add", ((env *)arg)->x, 100, s);
}

static void case_matches_tf(void) {
  const float xs[3] = {-2, 4, 50};
  const char *headers[3] = {"# case x=-2", "# case x=4", "# case x=50"};
  for (int k = 0; k < 3; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TFC_Scope *root = TFC_NewRootScope(g);
    env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
    TFC_CaseBranch br[2] = {{num_op(root, "Less", "Less", e.x, 0, s), neg_x, &e},
                            {num_op(root, "Less", "Less", e.x, 10, s), x_times_3, &e}};
    TF_Output y;
    TFC_Case(root, br, 2, x_plus_100, &e, 1, NULL, &y, s);
    OK(s);
    const char *fn[1] = {"x"};
    int fb[1] = {0};
    expect_as_tf(g, headers[k], &y, 1, fn, &xs[k], fb, 1);
    TFC_DeleteScope(root);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

static void v_less_n(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  *out = cf_op(sc, "Less", "Less", vars[1], 0, ((env *)arg)->n, 0, s);
}
static void inc_and_square(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  outs[0] = num_op(sc, "AddV2", "add", vars[0], 1, s);
  outs[1] = cf_op(sc, "Mul", "mul", vars[1], 0, vars[1], 0, s);
}

static void while_loop_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  env e = {cf_placeholder(g, "x", TF_FLOAT, s), cf_placeholder(g, "n", TF_FLOAT, s)};
  TF_Output vars[2] = {cf_constant(root, "Const", TF_INT32, 0, s), e.x}, r[2];
  TFC_WhileLoop(root, v_less_n, inc_and_square, &e, vars, 2, NULL, NULL, r, s);
  OK(s);
  const char *fn[2] = {"x", "n"};
  float fvals[2] = {1.5f, 100};
  int fb[2] = {0, 0};
  expect_as_tf(g, "# while\n", r, 2, fn, fvals, fb, 2);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void v_below_100(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  (void)arg;
  *out = num_op(sc, "Less", "Less", vars[0], 100, s);
}
static void double_v(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  outs[0] = num_op(sc, "Mul", "mul", vars[0], 2, s);
}

static void while_loop_with_maximum_iterations_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), r;
  TFC_WhileOptions o = TFC_DefaultWhileOptions();
  o.maximum_iterations = 3;
  o.parallel_iterations = 1;
  TFC_WhileLoop(root, v_below_100, double_v, NULL, &x, 1, &o, "loop", &r, s);
  OK(s);
  const char *fn[1] = {"x"};
  float fvals[1] = {1.5f};
  int fb[1] = {0};
  expect_as_tf(g, "# while_max", &r, 1, fn, fvals, fb, 1);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void v_below_20(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  (void)arg;
  *out = num_op(sc, "Less", "Less", vars[0], 20, s);
}
static void v_times_3(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "Mul", "mul", *(TF_Output *)arg, 3, s);
}
static void v_plus_1(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  outs[0] = num_op(sc, "AddV2", "add", *(TF_Output *)arg, 1, s);
}
static void cond_body(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  TF_Output v = vars[0];
  TF_Output p = num_op(sc, "Less", "Less", v, 5, s);
  TFC_Cond(sc, p, v_times_3, &v, v_plus_1, &v, 1, NULL, outs, s);
}

static void cond_in_while_matches_tf(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), r;
  TFC_WhileLoop(root, v_below_20, cond_body, NULL, &x, 1, NULL, NULL, &r, s);
  OK(s);
  const char *fn[1] = {"x"};
  float fvals[1] = {1};
  int fb[1] = {0};
  expect_as_tf(g, "# cond_in_while", &r, 1, fn, fvals, fb, 1);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---- the count taken from the first branch (TFC_CondDynamic, TFC_CaseDynamic) ---- */

static void dynamic_cond_and_case_match_tf(void) {
  /* The same graphs as TFC_Cond / TFC_Case with the count given: the fixture's sections. */
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
  TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y[8];
  int n = -1;
  TFC_CondDynamic(root, p, pair_true, &e, pair_false, &e, 8, &n, "pick", y, s);
  OK(s);
  EXPECT_EQ(n, 2);
  const char *fn[2] = {"x", "p"};
  float fvals[2] = {3, 1};
  int fb[2] = {0, 1};
  expect_as_tf(g, "# cond2", y, 2, fn, fvals, fb, 2);
  /* A NULL count is refused. */
  TFC_CondDynamic(root, p, x_times_2, &e, x_plus_1, &e, 1, NULL, NULL, y, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  const float xs[1] = {4};
  g = TF_NewGraph();
  root = TFC_NewRootScope(g);
  e = (env){cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
  TFC_CaseBranch br[2] = {{num_op(root, "Less", "Less", e.x, 0, s), neg_x, &e},
                          {num_op(root, "Less", "Less", e.x, 10, s), x_times_3, &e}};
  n = -1;
  TFC_CaseDynamic(root, br, 2, x_plus_100, &e, 8, &n, NULL, y, s);
  OK(s);
  EXPECT_EQ(n, 1);
  const char *fx[1] = {"x"};
  int fb1[1] = {0};
  expect_as_tf(g, "# case x=4", y, 1, fx, xs, fb1, 1);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A branch may read its pivot (switch_t / switch_f) directly: it is inside the branch, as in
 * TF's CondContext (Python's with_dependencies on a branch that returns an operation). */
static void pivot_of(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  char name[128];
  snprintf(name, sizeof name, "%s/%s", TFC_ScopeName(sc), (const char *)arg);
  TF_Operation *pivot = TF_GraphOperationByName(TFC_ScopeGraph(sc), name);
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Identity", "control_dependency");
  TF_AddInput(d, (TF_Output){pivot, 0});
  outs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
}

static void branches_read_their_pivots(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y;
  TFC_Cond(root, p, pivot_of, "switch_t", pivot_of, "switch_f", 1, NULL, &y, s);
  OK(s);
  TF_Operation *id = TF_GraphOperationByName(g, "cond/control_dependency");
  EXPECT_TRUE(id != NULL);
  TF_Input in = {id, 0};
  EXPECT_STREQ(TF_OperationName(TF_OperationInput(in).oper), "cond/switch_t");
  EXPECT_TRUE(TF_GraphOperationByName(g, "cond/control_dependency/Switch") == NULL);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* Ops a branch makes outside the context (TFC_MarkOutsideControlFlow, a builder with a root
 * scope: Python's variables under init_scope) get no pivot and are read through a capture. */
static void outside_const_times_x(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  TF_Graph *g = TFC_ScopeGraph(sc);
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output c = TFC_ScalarConst(root, "outside", TF_FLOAT, 4, s); /* a builder call: outside already */
  TF_OperationDescription *d = TF_NewOperation(g, "Identity", "outside_id");
  TF_AddInput(d, c);
  TF_Operation *id = TF_FinishOperation(d, s);
  TFC_MarkOutsideControlFlow(g, id, s);
  TFC_DeleteScope(root);
  TF_Output in = TFC_Capture(sc, (TF_Output){id, 0}, "mul", s);
  d = TFC_ScopeNewOperation(sc, "Mul", "mul");
  TF_AddInput(d, in);
  TF_AddInput(d, in);
  (void)arg;
  outs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
}

static void ops_made_outside_the_branch(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
  TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y;
  TFC_MarkOutsideControlFlow(g, p.oper, s); /* no callback runs: nothing to do */
  OK(s);
  TFC_Cond(root, p, outside_const_times_x, &e, x_plus_1, &e, 1, NULL, &y, s);
  OK(s);
  TF_Operation *c = TF_GraphOperationByName(g, "outside");
  EXPECT_TRUE(c != NULL);
  EXPECT_EQ(TF_OperationNumControlInputs(c), 0);
  TF_Operation *mul = TF_GraphOperationByName(g, "cond/mul");
  TF_Input in0 = {mul, 0}, in1 = {mul, 1};
  EXPECT_STREQ(TF_OperationName(TF_OperationInput(in0).oper), "cond/mul/Switch");
  EXPECT_STREQ(TF_OperationName(TF_OperationInput(in1).oper), "cond/mul/Switch");
  TF_Input sw = {TF_OperationInput(in0).oper, 0};
  EXPECT_STREQ(TF_OperationName(TF_OperationInput(sw).oper), "outside_id");
  /* The outside ops run without the cond: fetching "outside_id" needs no feed of p. */
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  TF_Output fo = {TF_GraphOperationByName(g, "outside_id"), 0};
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fo, &v, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_NEAR(*(float *)TF_TensorData(v), 4, 0);
  TF_DeleteTensor(v);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TFC_MarkOutsideControlFlow(g, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---- errors ---- */

static void uncaptured_x_times_2(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Mul", "mul");
  TF_AddInput(d, ((env *)arg)->x);
  TF_AddInput(d, ((env *)arg)->x);
  outs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
}
static void int_one(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  (void)arg;
  outs[0] = cf_constant(sc, "Const", TF_INT32, 1, s);
}
static void fails(const TFC_Scope *sc, void *arg, TF_Output *outs, TF_Status *s) {
  (void)sc, (void)arg, (void)outs;
  TF_SetStatus(s, TF_UNAVAILABLE, "branch failed");
}

static void cond_errors_leave_the_graph_unchanged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  env e = {cf_placeholder(g, "x", TF_FLOAT, s), {NULL, 0}};
  TF_Output p = cf_placeholder(g, "p", TF_BOOL, s), y = {NULL, 0};
  int before = capi_num_ops(g);
  /* An outside tensor read without TFC_Capture. */
  TFC_Cond(root, p, uncaptured_x_times_2, &e, x_plus_1, &e, 1, NULL, &y, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s),
               "Node 'cond/mul' in the true branch reads 'x:0', which was made outside it; bring the tensor in "
               "with TFC_Capture");
  EXPECT_EQ(capi_num_ops(g), before);
  /* Branch results of different dtypes. */
  TFC_Cond(root, p, x_times_2, &e, int_one, &e, 1, NULL, &y, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Outputs of true_fn and false_fn must have the same type: float32, int32");
  EXPECT_EQ(capi_num_ops(g), before);
  /* A failing branch: its error, nothing left. */
  TFC_Cond(root, p, x_times_2, &e, fails, &e, 1, NULL, &y, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_STREQ(TF_Message(s), "branch failed");
  EXPECT_EQ(capi_num_ops(g), before);
  /* A non-bool pred. */
  TFC_Cond(root, e.x, x_times_2, &e, x_plus_1, &e, 1, NULL, &y, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "cond: pred must be a bool tensor, got float32 from 'x:0'");
  EXPECT_EQ(capi_num_ops(g), before);
  /* After the errors the names are free again: the next cond is "cond". */
  TFC_Cond(root, p, x_times_2, &e, x_plus_1, &e, 1, NULL, &y, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(y.oper), "cond/Merge");
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void int_cond(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  (void)sc, (void)arg, (void)s;
  *out = vars[0];
}
static void to_int(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  (void)arg;
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Cast", "Cast");
  TF_AddInput(d, vars[0]);
  TF_SetAttrType(d, "DstT", TF_INT32);
  outs[0] = (TF_Output){TF_FinishOperation(d, s), 0};
}

static void while_errors_leave_the_graph_unchanged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = cf_placeholder(g, "x", TF_FLOAT, s), r;
  int before = capi_num_ops(g);
  TFC_WhileLoop(root, v_below_100, double_v, NULL, &x, 0, NULL, NULL, &r, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "No loop variables provided");
  TFC_WhileLoop(root, int_cond, double_v, NULL, &x, 1, NULL, NULL, &r, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "while_loop: cond must return a bool tensor, got float32");
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_WhileLoop(root, v_below_100, to_int, NULL, &x, 1, NULL, NULL, &r, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "while_loop: body output 0 has type int32, but loop variable 0 has type float32");
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_WhileLoop(root, v_below_100, double_v, NULL, &x, 1, NULL, NULL, &r, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(r.oper), "while/Exit");
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(cond_matches_tf),
    TFC_TEST(two_output_cond_matches_tf),
    TFC_TEST(case_matches_tf),
    TFC_TEST(while_loop_matches_tf),
    TFC_TEST(while_loop_with_maximum_iterations_matches_tf),
    TFC_TEST(cond_in_while_matches_tf),
    TFC_TEST(dynamic_cond_and_case_match_tf),
    TFC_TEST(branches_read_their_pivots),
    TFC_TEST(ops_made_outside_the_branch),
    TFC_TEST(cond_errors_leave_the_graph_unchanged),
    TFC_TEST(while_errors_leave_the_graph_unchanged),
    {0},
};

TFC_TEST_MAIN(tests)
