/* C API contract tests: the training graph builders (include/tfc/train.h).
 *
 * (1) The seed MLP built with the builders, as tests/fixtures/gen_training.py builds it with
 *     TF's Python (Adam, GD, Momentum; graph seed 20261121), has the node set of the TF-made
 *     train_mlp_*.pb: the same names, op types, data inputs, control inputs (as sets) and
 *     colocation groups. Seeds are not compared (tfc follows TF 1.15's op seeds, the fixtures
 *     come from TF 2.15), and the fixtures' TF 2.x spellings of two gradient patterns are read
 *     in their TF 1.15 form (see tf1_expected below).
 * (2) Scopes: unique names as Python makes them, plain TF_NewOperation names taking part,
 *     devices and control dependencies applied.
 * (3) Errors: TF's codes and messages, and a failed builder leaves the graph (and the names in
 *     use) exactly as they were.
 * (4) Training through a session: GD on a quadratic, exponential decay, moving averages, and
 *     the builder-made MLP learning with Adam.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

/* ---------------- helpers ---------------- */


static TF_Output finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(d != NULL);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static TF_Output placeholder(TFC_Scope *sc, const char *name, TF_DataType dt, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (nd >= 0) TF_SetAttrShape(d, "shape", dims, nd);
  return finish(d);
}

static TF_Output const_f(TFC_Scope *sc, const char *name, const int64_t *dims, int nd, float fill) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, (size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) ((float *)TF_TensorData(t))[i] = fill;
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return finish(d);
}

static TF_Output op1(TFC_Scope *sc, const char *type, const char *name, TF_Output a) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  return finish(d);
}

static TF_Output op2(TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
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

/* Runs `target` (may be NULL) with up to one feed, fetching `fetch` as a double (oper NULL:
 * nothing). */
static double run1(TF_Session *sess, TF_Output feed, TF_Tensor *feed_t, TF_Output fetch, TF_Operation *target) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, feed_t ? &feed : NULL, feed_t ? &feed_t : NULL, feed_t ? 1 : 0, fetch.oper ? &fetch : NULL,
                fetch.oper ? &out : NULL, fetch.oper ? 1 : 0, target ? (const TF_Operation *const *)&target : NULL,
                target ? 1 : 0, NULL, s);
  OK(s);
  TF_DeleteStatus(s);
  double v = 0;
  if (out) {
    if (TF_TensorType(out) == TF_FLOAT) v = *(float *)TF_TensorData(out);
    else if (TF_TensorType(out) == TF_INT64) v = (double)*(int64_t *)TF_TensorData(out);
    TF_DeleteTensor(out);
  }
  return v;
}

static TF_Output none(void) { return (TF_Output){NULL, 0}; }

/* ---------------- (1) the seed MLP against TF's graphs ---------------- */

enum { OPT_ADAM, OPT_GD, OPT_MOMENTUM };

typedef struct mlp {
  TF_Output x, y, cost;
  TF_Operation *train, *init;
} mlp;

/* gen_training.py's mlp(optimizer), call for call. */
static mlp build_mlp(TF_Graph *g, int kind) {
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_SetRandomSeed(g, 20261121);
  mlp m;
  int64_t dx[2] = {-1, 32}, dy[2] = {-1, 8}, d1[2] = {32, 16}, d2[2] = {16, 8}, n16 = 16, n8 = 8, two = 2;
  m.x = placeholder(root, "x", TF_FLOAT, dx, 2);
  m.y = placeholder(root, "y", TF_FLOAT, dy, 2);
  TFC_Variable w1 = TFC_NewVariable(root, "w1", TFC_TruncatedNormal(root, d1, 2, 0, 0.1, TF_FLOAT, 0, s), 1, s);
  OK(s);
  TFC_Variable b1 = TFC_NewVariable(root, "b1", const_f(root, NULL, &n16, 1, 0), 1, s);
  OK(s);
  TFC_Variable w2 = TFC_NewVariable(root, "w2", TFC_TruncatedNormal(root, d2, 2, 0, 0.1, TF_FLOAT, 0, s), 1, s);
  OK(s);
  TFC_Variable b2 = TFC_NewVariable(root, "b2", const_f(root, NULL, &n8, 1, 0), 1, s);
  OK(s);
  TF_Output a = op1(root, "Tanh", NULL, op2(root, "BiasAdd", NULL, op2(root, "MatMul", NULL, m.x, w1.value), b1.value));
  TF_Output y_out =
      op1(root, "Tanh", "y_out", op2(root, "BiasAdd", NULL, op2(root, "MatMul", NULL, a, w2.value), b2.value));
  TF_Output sq = op1(root, "Square", NULL, op2(root, "Sub", "sub", m.y, y_out));
  TF_Tensor *axes = TF_AllocateTensor(TF_INT32, &two, 1, 2 * sizeof(int32_t));
  ((int32_t *)TF_TensorData(axes))[0] = 0;
  ((int32_t *)TF_TensorData(axes))[1] = 1;
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Const", NULL);
  TF_SetAttrTensor(d, "value", axes, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(axes);
  m.cost = op2(root, "Sum", "cost", sq, finish(d));
  TFC_Optimizer *opt = kind == OPT_ADAM ? TFC_NewAdamOptimizer(0.01, 0.9, 0.999, 1e-8, NULL)
                       : kind == OPT_GD ? TFC_NewGradientDescentOptimizer(0.002, NULL)
                                        : TFC_NewMomentumOptimizer(0.001, 0.9, 0, NULL);
  m.train = TFC_Minimize(opt, root, m.cost, NULL, "train", s);
  OK(s);
  m.init = TFC_GlobalVariablesInitializer(root, "init_all_vars_op", s);
  OK(s);
  TFC_DeleteOptimizer(opt);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  return m;
}

/* The name a TF 2.x fixture node has in TF 1.15 (and tfc): TF 2.x seeds a gradient with
 * Fill "gradients/grad_ys_0" of Const "gradients/grad_ys_0/Const"; TF 1.15's _DefaultGradYs
 * names the Const "grad_ys_0" and the Fill "Fill". */
static void tf1_name(TF_Graph *fx, const char *name, char *out, size_t n) {
  TF_Operation *op = TF_GraphOperationByName(fx, name);
  const char *type = op ? TF_OperationOpType(op) : "";
  size_t len = strlen(name);
  const char *suffix = "/grad_ys_0/Const";
  if (len > strlen(suffix) && !strcmp(name + len - strlen(suffix), suffix)) {
    snprintf(out, n, "%.*s", (int)(len - strlen("/Const")), name);
  } else if (!strcmp(type, "Fill") && strstr(name, "/grad_ys_")) {
    const char *slash = strrchr(name, '/');
    snprintf(out, n, "%.*s/Fill", (int)(slash - name), name);
  } else {
    snprintf(out, n, "%s", name);
  }
}

static void output_name(TF_Graph *fx, TF_Output o, char *out, size_t n) {
  char base[400];
  tf1_name(fx, TF_OperationName(o.oper), base, sizeof base);
  if (o.index) snprintf(out, n, "%s:%d", base, o.index);
  else snprintf(out, n, "%s", base);
}

/* The data inputs TF 1.15 gives fixture node `op` (written as names into in[]): TF 2.x's
 * _SubGrad negates the gradient before reducing it (Neg(g) -> Sum_1 -> Reshape_1); TF 1.15
 * reduces first (Sum_1(g) -> Neg -> Reshape_1), as tfc's gradient walk does. */
static int tf1_expected(TF_Graph *fx, TF_Operation *op, char in[][512], int max) {
  int n = TF_OperationNumInputs(op);
  if (n > max) n = max;
  TF_Output src[16];
  for (int i = 0; i < n; i++) src[i] = TF_OperationInput((TF_Input){op, i});
  const char *type = TF_OperationOpType(op);
  if (!strcmp(type, "Sum") && !strcmp(TF_OperationOpType(src[0].oper), "Neg")) {
    src[0] = TF_OperationInput((TF_Input){src[0].oper, 0}); /* Sum_1 reduces g itself */
  } else if (!strcmp(type, "Neg") && strstr(TF_OperationName(op), "_grad/")) {
    /* Neg takes the Sum that consumed it in TF 2.x. */
    char sum[512];
    snprintf(sum, sizeof sum, "%s", TF_OperationName(op));
    char *slash = strrchr(sum, '/');
    snprintf(slash + 1, sizeof sum - (size_t)(slash + 1 - sum), "Sum_1");
    TF_Operation *s = TF_GraphOperationByName(fx, sum);
    if (s && TF_OperationInput((TF_Input){s, 0}).oper == op) src[0] = (TF_Output){s, 0};
  } else if (!strcmp(type, "Reshape") && !strcmp(TF_OperationOpType(src[0].oper), "Sum")) {
    TF_Output sum_in = TF_OperationInput((TF_Input){src[0].oper, 0});
    if (!strcmp(TF_OperationOpType(sum_in.oper), "Neg")) src[0] = sum_in; /* Reshape_1 takes the Neg */
  }
  for (int i = 0; i < n; i++) output_name(fx, src[i], in[i], 512);
  return n;
}

static int has_name(char names[][512], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return 1;
  return 0;
}

/* Control inputs of op as names (TF 1.15 spelling for fixture graphs). */
static int controls(TF_Graph *fx, TF_Operation *op, char out[][512], int max) {
  TF_Operation *ops[64];
  int n = TF_OperationGetControlInputs(op, ops, 64);
  if (n > max) n = max;
  for (int i = 0; i < n; i++) {
    if (fx) tf1_name(fx, TF_OperationName(ops[i]), out[i], 512);
    else snprintf(out[i], 512, "%s", TF_OperationName(ops[i]));
  }
  return n;
}

/* The _class attr as one string ("" when absent). */
static void colocation(TF_Operation *op, char *out, size_t n) {
  out[0] = '\0';
  TF_Status *s = TF_NewStatus();
  TF_AttrMetadata md = TF_OperationGetAttrMetadata(op, "_class", s);
  if (TF_GetCode(s) == TF_OK && md.is_list && md.list_size > 0 && md.list_size <= 8) {
    void *vals[8];
    size_t lens[8];
    char storage[1024];
    TF_OperationGetAttrStringList(op, "_class", vals, lens, 8, storage, sizeof storage, s);
    size_t k = 0;
    for (int i = 0; i < md.list_size && TF_GetCode(s) == TF_OK; i++)
      k += (size_t)snprintf(out + k, n > k ? n - k : 0, "%.*s;", (int)lens[i], (char *)vals[i]);
  }
  TF_DeleteStatus(s);
}

static void compare_with_fixture(int kind, const char *file) {
  TF_Graph *ours = TF_NewGraph();
  build_mlp(ours, kind);
  TF_Graph *fx = capi_load_fixture(file);
  EXPECT_EQ(capi_num_ops(ours), capi_num_ops(fx));
  size_t pos = 0;
  TF_Operation *op;
  while ((op = TF_GraphNextOperation(fx, &pos)) != NULL) {
    char name[512];
    tf1_name(fx, TF_OperationName(op), name, sizeof name);
    TF_Operation *mine = TF_GraphOperationByName(ours, name);
    if (!mine) tfc_test_fail(__FILE__, __LINE__, "%s: no node '%s' (TF's %s)", file, name, TF_OperationName(op));
    if (strcmp(TF_OperationOpType(mine), TF_OperationOpType(op)))
      tfc_test_fail(__FILE__, __LINE__, "%s: '%s' is %s, TF has %s", file, name, TF_OperationOpType(mine),
                    TF_OperationOpType(op));
    static char want[16][512], have[64][512], wantc[64][512];
    int nw = tf1_expected(fx, op, want, 16);
    EXPECT_EQ(TF_OperationNumInputs(mine), nw);
    for (int i = 0; i < nw; i++) {
      char got[512];
      output_name(ours, TF_OperationInput((TF_Input){mine, i}), got, sizeof got);
      if (strcmp(got, want[i]))
        tfc_test_fail(__FILE__, __LINE__, "%s: '%s' input %d is '%s', TF has '%s'", file, name, i, got, want[i]);
    }
    int nc = controls(NULL, mine, have, 64), nwc = controls(fx, op, wantc, 64);
    if (nc != nwc) tfc_test_fail(__FILE__, __LINE__, "%s: '%s' has %d control inputs, TF %d", file, name, nc, nwc);
    for (int i = 0; i < nc; i++)
      if (!has_name(wantc, nwc, have[i]))
        tfc_test_fail(__FILE__, __LINE__, "%s: '%s' waits for '%s', TF does not", file, name, have[i]);
    char c1[1024], c2[1024];
    colocation(mine, c1, sizeof c1);
    colocation(op, c2, sizeof c2);
    if (strcmp(c1, c2)) tfc_test_fail(__FILE__, __LINE__, "%s: '%s' _class '%s', TF '%s'", file, name, c1, c2);
    if (strcmp(TF_OperationDevice(mine), TF_OperationDevice(op)))
      tfc_test_fail(__FILE__, __LINE__, "%s: '%s' device '%s', TF '%s'", file, name, TF_OperationDevice(mine),
                    TF_OperationDevice(op));
  }
  TF_DeleteGraph(ours);
  TF_DeleteGraph(fx);
}

static void mlp_adam_matches_tf_graph(void) { compare_with_fixture(OPT_ADAM, "train_mlp_adam.pb"); }
static void mlp_gd_matches_tf_graph(void) { compare_with_fixture(OPT_GD, "train_mlp_gd.pb"); }
static void mlp_momentum_matches_tf_graph(void) { compare_with_fixture(OPT_MOMENTUM, "train_mlp_momentum.pb"); }

static void random_initializer_seeds_follow_tf115(void) {
  TF_Graph *g = TF_NewGraph();
  build_mlp(g, OPT_GD);
  int64_t seed = 0, seed2 = 0;
  TF_Status *s = TF_NewStatus();
  TF_Operation *r1 = TF_GraphOperationByName(g, "truncated_normal/TruncatedNormal");
  TF_OperationGetAttrInt(r1, "seed", &seed, s);
  TF_OperationGetAttrInt(r1, "seed2", &seed2, s);
  OK(s);
  EXPECT_EQ(seed, 20261121);
  EXPECT_EQ(seed2, 5); /* x, y, shape, mean, stddev: TF 1.15's graph._last_id */
  TF_OperationGetAttrInt(TF_GraphOperationByName(g, "truncated_normal_1/TruncatedNormal"), "seed2", &seed2, s);
  EXPECT_EQ(seed2, 18);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (2) scopes ---------------- */

static void scope_names_are_unique_as_python_makes_them(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  EXPECT_STREQ(TFC_ScopeName(root), "");
  EXPECT_TRUE(TFC_ScopeGraph(root) == g);
  TFC_Scope *a = TFC_NewSubScope(root, "a");
  TFC_Scope *b = TFC_NewSubScope(a, "b");
  TFC_Scope *b1 = TFC_NewSubScope(a, "b");
  TFC_Scope *a1 = TFC_NewSubScope(root, "a");
  TFC_Scope *again = TFC_NewSubScope(root, "a/");
  EXPECT_STREQ(TFC_ScopeName(b), "a/b");
  EXPECT_STREQ(TFC_ScopeName(b1), "a/b_1");
  EXPECT_STREQ(TFC_ScopeName(a1), "a_1");
  EXPECT_STREQ(TFC_ScopeName(again), "a");
  EXPECT_STREQ(name_of(const_f(b, NULL, NULL, 0, 1).oper), "a/b/Const");
  EXPECT_STREQ(name_of(const_f(b, NULL, NULL, 0, 1).oper), "a/b/Const_1");
  EXPECT_STREQ(name_of(TFC_ScalarConst(again, "k", TF_FLOAT, 1, s).oper), "a/k");
  OK(s);
  /* Plain TF_NewOperation names take part: the name and its prefixes, case-insensitively. */
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "foo/bar");
  finish(d);
  d = TF_NewOperation(g, "NoOp", "Zed");
  finish(d);
  TFC_Scope *foo = TFC_NewSubScope(root, "foo"), *zed = TFC_NewSubScope(root, "zed");
  EXPECT_STREQ(TFC_ScopeName(foo), "foo_1");
  EXPECT_STREQ(TFC_ScopeName(zed), "zed_1");
  /* "zed_1" is the scope just opened: names compare case-insensitively. */
  EXPECT_STREQ(name_of(op1(root, "Identity", "Zed", const_f(root, "c", NULL, 0, 2)).oper), "Zed_2");
  /* An empty "gradients" scope takes the name: tf.gradients moves on. */
  TFC_Scope *gs = TFC_NewSubScope(root, "gradients");
  EXPECT_STREQ(TFC_ScopeName(gs), "gradients");
  TF_Output x = const_f(root, "x", NULL, 0, 3);
  TF_Output y = op1(root, "Square", NULL, x), dx;
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 0, &dx, s);
  OK(s);
  EXPECT_TRUE(strncmp(name_of(dx.oper), "gradients_1/", 12) == 0);
  TFC_Gradients(root, &y, 1, &x, 1, NULL, 1, &dx, s);
  OK(s);
  EXPECT_TRUE(strncmp(name_of(dx.oper), "gradients_2/", 12) == 0);
  /* Nested: the gradients of a tower live under it. */
  TFC_Gradients(b, &y, 1, &x, 1, NULL, 0, &dx, s);
  OK(s);
  EXPECT_TRUE(strncmp(name_of(dx.oper), "a/b/gradients/", 14) == 0);
  /* Python's None for an x the ys do not depend on. */
  TF_Output other = const_f(root, "other", NULL, 0, 1);
  TFC_Gradients(root, &y, 1, &other, 1, NULL, 0, &dx, s);
  OK(s);
  EXPECT_TRUE(dx.oper == NULL);
  TFC_Scope *all[] = {a, b, b1, a1, again, foo, zed, gs, root};
  for (int i = 0; i < 9; i++) TFC_DeleteScope(all[i]);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static char *unique_name(TF_Graph *g, const char *name, int mark) {
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_GraphUniqueName(g, name, (unsigned char)mark, b, s);
  OK(s);
  char *r = calloc(1, b->length + 1);
  memcpy(r, b->data, b->length);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
  return r;
}

/* A client keeping its own scopes (Python) names through the builders' table: its names and
 * the builders' never collide, and a name it took first keeps its prefixes free. */
static void graph_unique_name_shares_the_builders_names(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  char *n[8];
  n[0] = unique_name(g, "foo", 1);
  n[1] = unique_name(g, "Foo", 1);
  n[2] = unique_name(g, "foo_1", 1);
  n[3] = unique_name(g, "bar", 0);
  n[4] = unique_name(g, "bar", 0); /* peeking takes nothing */
  EXPECT_STREQ(n[0], "foo");
  EXPECT_STREQ(n[1], "Foo_1");
  EXPECT_STREQ(n[2], "foo_1_1");
  EXPECT_STREQ(n[3], "bar");
  EXPECT_STREQ(n[4], "bar");
  /* a name taken here, then an op made with it: its prefix "x" stays free */
  n[5] = unique_name(g, "x/y", 1);
  finish(TF_NewOperation(g, "NoOp", n[5]));
  n[6] = unique_name(g, "x", 1);
  EXPECT_STREQ(n[6], "x");
  /* the builders see the names taken here, and the other way round */
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *bar = TFC_NewSubScope(root, "bar");
  EXPECT_STREQ(TFC_ScopeName(bar), "bar");
  TFC_Scope *foo = TFC_NewSubScope(root, "foo");
  EXPECT_STREQ(TFC_ScopeName(foo), "foo_2");
  n[7] = unique_name(g, "bar", 1);
  EXPECT_STREQ(n[7], "bar_1");
  for (int i = 0; i < 8; i++) free(n[i]);
  TF_Buffer *b = TF_NewBuffer();
  TFC_GraphUniqueName(g, "", 1, b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_GraphUniqueName: name is empty");
  TFC_GraphUniqueName(NULL, "a", 1, b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(b);
  TFC_DeleteScope(foo);
  TFC_DeleteScope(bar);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void merge_device_spec(const char *outer, const char *inner, const char *want) {
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_MergeDeviceSpec(outer, inner, b, s);
  OK(s);
  EXPECT_EQ((int)b->length, (int)strlen(want));
  EXPECT_TRUE(memcmp(b->data, want, b->length) == 0);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void device_specs_merge_as_nested_tf_device(void) {
  merge_device_spec("", "/gpu:2", "/device:GPU:2");
  merge_device_spec(NULL, "/cpu:0", "/device:CPU:0");
  merge_device_spec("/job:worker", "/gpu:1", "/job:worker/device:GPU:1");
  merge_device_spec("/job:ps/task:0", "/device:CPU:1", "/job:ps/task:0/device:CPU:1");
  merge_device_spec("/job:local/task:1", "", "/job:local/task:1");
  merge_device_spec("/job:a/cpu:0", "/job:b", "/job:b/device:CPU:0");
  merge_device_spec("", "", "");
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_MergeDeviceSpec("", "/bogus:x", b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Malformed device specification '/bogus:x'");
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void scope_device_applies_to_every_node(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *cpu = TFC_ScopeWithDevice(root, "/cpu:0");
  TFC_Scope *ps = TFC_ScopeWithDevice(cpu, "/job:ps/task:0");
  TFC_Scope *none_dev = TFC_ScopeWithDevice(ps, "");
  EXPECT_STREQ(TF_OperationDevice(const_f(cpu, "a", NULL, 0, 1).oper), "/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(TFC_ScalarConst(ps, "b", TF_FLOAT, 1, s).oper), "/job:ps/task:0/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(TFC_ScalarConst(none_dev, "c", TF_FLOAT, 1, s).oper), "");
  TFC_Variable v = TFC_NewVariable(ps, "v", TFC_ScalarConst(root, "v0", TF_FLOAT, 2, s), 1, s);
  OK(s);
  EXPECT_STREQ(TF_OperationDevice(v.variable), "/job:ps/task:0/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(v.initializer), "/job:ps/task:0/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(v.value.oper), "/job:ps/task:0/device:CPU:0");
  char cls[256];
  colocation(v.initializer, cls, sizeof cls);
  EXPECT_STREQ(cls, "loc:@v;");
  /* The optimizer colocates the update with the variable; the constants follow the scope. */
  TF_Output loss = op1(cpu, "Square", NULL, v.value);
  TFC_Optimizer *gd = TFC_NewGradientDescentOptimizer(0.1, NULL);
  TF_Operation *train = TFC_Minimize(gd, cpu, loss, NULL, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(train), "GradientDescent");
  TF_Operation *upd = TF_GraphOperationByName(g, "GradientDescent/update_v/ApplyGradientDescent");
  EXPECT_TRUE(upd != NULL);
  EXPECT_STREQ(TF_OperationDevice(upd), "/job:ps/task:0/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(TF_GraphOperationByName(g, "GradientDescent/learning_rate")), "/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(TF_GraphOperationByName(g, "gradients/Square_grad/Mul")), "/device:CPU:0");
  /* group on the variable's device, merged onto the scope's (Python's group). */
  EXPECT_STREQ(TF_OperationDevice(train), "/job:ps/task:0/device:CPU:0");
  TFC_DeleteOptimizer(gd);
  TFC_DeleteScope(none_dev);
  TFC_DeleteScope(ps);
  TFC_DeleteScope(cpu);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static int waits_for(TF_Operation *op, TF_Operation *dep) {
  TF_Operation *ops[16];
  int n = TF_OperationGetControlInputs(op, ops, 16);
  for (int i = 0; i < n; i++)
    if (ops[i] == dep) return 1;
  return 0;
}

static void scope_control_dependencies_apply_as_in_python(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output first = const_f(root, "first", NULL, 0, 1);
  int64_t two = 2;
  TF_Output w = const_f(root, "w", &two, 1, 3);
  TFC_Scope *cd = TFC_ScopeWithControlDependencies(root, &first.oper, 1);
  TF_Output k = TFC_ScalarConst(cd, "k", TF_FLOAT, 1, s);
  OK(s);
  EXPECT_TRUE(waits_for(k.oper, first.oper));
  TF_Output l2 = TFC_L2Regularizer(cd, 0.5, w, s);
  OK(s);
  EXPECT_STREQ(name_of(l2.oper), "l2_regularizer");
  /* Made from inputs made under the frame: dominated, no control input. */
  EXPECT_TRUE(!waits_for(l2.oper, first.oper));
  EXPECT_TRUE(waits_for(TF_GraphOperationByName(g, "l2_regularizer/scale"), first.oper));
  EXPECT_TRUE(waits_for(TF_GraphOperationByName(g, "l2_regularizer/L2Loss"), first.oper));
  /* Plain operations get them too; variables do not (init_scope). */
  EXPECT_TRUE(waits_for(op1(cd, "Identity", NULL, w).oper, first.oper));
  TFC_Variable v = TFC_NewVariable(cd, "v", w, 1, s);
  OK(s);
  EXPECT_TRUE(!waits_for(v.variable, first.oper) && !waits_for(v.initializer, first.oper));
  TFC_DeleteScope(cd);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (3) errors ---------------- */

static void bad_initial_value_shape_is_invalid_argument(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t dx[2] = {-1, 32};
  TF_Output x = placeholder(root, "x", TF_FLOAT, dx, 2);
  int before = capi_num_ops(g);
  TFC_Variable v = TFC_NewVariable(root, "w", x, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "initial_value must have a shape specified: Tensor(\"x:0\", shape=(?, 32), dtype=float32)");
  EXPECT_TRUE(v.variable == NULL);
  EXPECT_EQ(capi_num_ops(g), before);
  EXPECT_EQ(TFC_GlobalVariables(g, NULL, 0), 0);
  /* The name was not taken: the next variable "w" is "w". */
  v = TFC_NewVariable(root, "w", TFC_ScalarConst(root, NULL, TF_FLOAT, 1, s), 1, s);
  OK(s);
  EXPECT_STREQ(name_of(v.variable), "w");
  /* Unknown rank too; and bad random shapes. */
  TF_Output u = placeholder(root, "u", TF_FLOAT, NULL, -1);
  before = capi_num_ops(g);
  TFC_NewVariable(root, "u_var", u, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  int64_t bad[2] = {3, -2};
  TF_Output r = TFC_TruncatedNormal(root, bad, 2, 0, 1, TF_FLOAT, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(r.oper == NULL);
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_L2Regularizer(root, -1, u, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Setting a scale less than 0 on a regularizer: -1");
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void apply_without_gradients_fails_and_changes_nothing(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Variable v = TFC_NewVariable(root, "v", TFC_ScalarConst(root, NULL, TF_FLOAT, 1, s), 1, s);
  TFC_Variable w = TFC_NewVariable(root, "w", TFC_ScalarConst(root, NULL, TF_FLOAT, 1, s), 1, s);
  OK(s);
  TFC_Optimizer *adam = TFC_NewAdamOptimizer(0.1, 0.9, 0.999, 1e-8, NULL);
  TF_Output grads[2] = {{NULL, -1}, {NULL, -1}};
  TFC_Variable vars[2] = {v, w};
  int before = capi_num_ops(g);
  TF_Operation *op = TFC_ApplyGradients(adam, root, grads, vars, 2, NULL, "train", s);
  EXPECT_TRUE(op == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "No gradients provided for any variable: ['v:0', 'w:0']");
  EXPECT_EQ(capi_num_ops(g), before);
  /* Minimize of a loss that no variable reaches. */
  TF_Output c = const_f(root, "c", NULL, 0, 1);
  TF_Output loss = op1(root, "Square", NULL, c);
  before = capi_num_ops(g);
  EXPECT_TRUE(TFC_Minimize(adam, root, loss, NULL, "train", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "No gradients provided for any variable");
  EXPECT_EQ(capi_num_ops(g), before);
  /* A failure after the gradients were built (a learning rate from another graph) rolls them
   * back too, with the optimizer's slots. */
  TF_Graph *other = TF_NewGraph();
  TFC_Scope *oroot = TFC_NewRootScope(other);
  TF_Output foreign = TFC_ScalarConst(oroot, "lr", TF_FLOAT, 0.1, s);
  OK(s);
  TF_Output loss2 = op1(root, "Square", NULL, v.value);
  before = capi_num_ops(g);
  TFC_OptimizerSetLearningRate(adam, foreign);
  EXPECT_TRUE(TFC_Minimize(adam, root, loss2, NULL, "train", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(capi_num_ops(g), before);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/Square_1_grad/Mul") == NULL);
  EXPECT_EQ(TFC_GlobalVariables(g, NULL, 0), 2);
  /* Then a good call gets the names the failed ones would have had. */
  TF_Output lr = TFC_ScalarConst(root, "lr", TF_FLOAT, 0.1, s);
  TFC_OptimizerSetLearningRate(adam, lr);
  TF_Operation *train = TFC_Minimize(adam, root, loss2, NULL, "train", s);
  OK(s);
  EXPECT_STREQ(name_of(train), "train");
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/Square_1_grad/Mul") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "beta1_power") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "v/Adam_1") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "train/learning_rate") == NULL); /* a tensor rate */
  TFC_DeleteOptimizer(adam);
  TFC_DeleteScope(oroot);
  TFC_DeleteScope(root);
  TF_DeleteGraph(other);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (4) training through a session ---------------- */

static void gradient_descent_finds_the_quadratics_minimum(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Variable w = TFC_NewVariable(root, "w", TFC_ScalarConst(root, NULL, TF_FLOAT, 0, s), 1, s);
  OK(s);
  TFC_Variable step = TFC_GetOrCreateGlobalStep(root, s);
  OK(s);
  EXPECT_STREQ(name_of(step.variable), "global_step");
  TFC_Variable again = TFC_GetOrCreateGlobalStep(root, s);
  EXPECT_TRUE(again.variable == step.variable);
  EXPECT_EQ(TFC_TrainableVariables(g, NULL, 0), 1);
  EXPECT_EQ(TFC_GlobalVariables(g, NULL, 0), 2);
  /* loss = (w - 3)^2 */
  TF_Output loss = op1(root, "Square", NULL, op2(root, "Sub", NULL, w.value, TFC_ScalarConst(root, "t", TF_FLOAT, 3, s)));
  TFC_Optimizer *gd = TFC_NewGradientDescentOptimizer(0.1, NULL);
  TF_Operation *train = TFC_Minimize(gd, root, loss, &step, "train", s);
  OK(s);
  EXPECT_STREQ(TF_OperationOpType(train), "AssignAdd");
  EXPECT_TRUE(TF_GraphOperationByName(g, "train/update") != NULL);
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(init), "init");
  TF_Session *sess = session(g);
  run1(sess, none(), NULL, none(), init);
  double l0 = run1(sess, none(), NULL, loss, NULL);
  EXPECT_NEAR(l0, 9.0, 1e-6);
  for (int i = 0; i < 100; i++) run1(sess, none(), NULL, none(), train);
  EXPECT_NEAR(run1(sess, none(), NULL, w.value, NULL), 3.0, 1e-4);
  EXPECT_NEAR(run1(sess, none(), NULL, step.value, NULL), 100.0, 0);
  close_session(sess);
  TFC_DeleteOptimizer(gd);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static TF_Tensor *scalar_i64(int64_t v) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT64, NULL, 0, sizeof v);
  *(int64_t *)TF_TensorData(t) = v;
  return t;
}

static void exponential_decay_values_at_global_steps(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output step = placeholder(root, "step", TF_INT64, NULL, 0);
  TF_Output smooth = TFC_ExponentialDecay(root, 0.1, step, 10, 0.5, 0, s);
  OK(s);
  TF_Output stairs = TFC_ExponentialDecay(root, 0.1, step, 10, 0.5, 1, s);
  OK(s);
  EXPECT_STREQ(name_of(smooth.oper), "ExponentialDecay");
  EXPECT_STREQ(name_of(stairs.oper), "ExponentialDecay_1");
  EXPECT_TRUE(TF_GraphOperationByName(g, "ExponentialDecay/Cast_2") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "ExponentialDecay_1/Floor") != NULL);
  TF_Session *sess = session(g);
  const int64_t steps[] = {0, 5, 10, 25, 100};
  for (int i = 0; i < 5; i++) {
    TF_Tensor *t = scalar_i64(steps[i]);
    double v = run1(sess, step, t, smooth, NULL);
    EXPECT_NEAR(v, 0.1 * pow(0.5, (double)steps[i] / 10), 1e-6);
    v = run1(sess, step, t, stairs, NULL);
    EXPECT_NEAR(v, 0.1 * pow(0.5, floor((double)steps[i] / 10)), 1e-6);
    TF_DeleteTensor(t);
  }
  close_session(sess);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void moving_average_follows_its_variable(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Variable v = TFC_NewVariable(root, "v", TFC_ScalarConst(root, NULL, TF_FLOAT, 1, s), 1, s);
  OK(s);
  TFC_Variable avg;
  TF_Operation *ema = TFC_ExponentialMovingAverage(root, 0.5, none(), &v, 1, &avg, s);
  OK(s);
  EXPECT_STREQ(name_of(ema), "ExponentialMovingAverage");
  EXPECT_STREQ(name_of(avg.variable), "v/ExponentialMovingAverage");
  EXPECT_STREQ(TF_OperationOpType(TF_GraphOperationByName(g, "ExponentialMovingAverage/AssignMovingAvg")),
               "AssignSub");
  char cls[256];
  colocation(avg.variable, cls, sizeof cls);
  EXPECT_STREQ(cls, "loc:@v;");
  /* With num_updates the decay is min(decay, (1 + n) / (10 + n)). */
  TF_Output n = placeholder(root, "n", TF_INT64, NULL, 0);
  TFC_Variable avg2;
  TF_Operation *ema2 = TFC_ExponentialMovingAverage(root, 0.5, n, &v, 1, &avg2, s);
  OK(s);
  EXPECT_STREQ(name_of(avg2.variable), "v/ExponentialMovingAverage_1");
  EXPECT_TRUE(TF_GraphOperationByName(g, "ExponentialMovingAverage_1/Minimum") != NULL);
  TF_Output three = TFC_ScalarConst(root, "three", TF_FLOAT, 3, s);
  TF_Operation *set3 = op2(root, "Assign", NULL, (TF_Output){v.variable, 0}, three).oper;
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TF_Session *sess = session(g);
  run1(sess, none(), NULL, none(), init);
  EXPECT_NEAR(run1(sess, none(), NULL, avg.value, NULL), 1.0, 0);
  run1(sess, none(), NULL, none(), set3);
  run1(sess, none(), NULL, none(), ema);
  EXPECT_NEAR(run1(sess, none(), NULL, avg.value, NULL), 2.0, 1e-6); /* 1 - (1 - 3) * 0.5 */
  run1(sess, none(), NULL, none(), ema);
  EXPECT_NEAR(run1(sess, none(), NULL, avg.value, NULL), 2.5, 1e-6);
  TF_Tensor *zero = scalar_i64(0);
  run1(sess, n, zero, none(), ema2); /* decay min(0.5, 0.1): 1 - (1 - 3) * 0.9 */
  EXPECT_NEAR(run1(sess, none(), NULL, avg2.value, NULL), 2.8, 1e-6);
  TF_DeleteTensor(zero);
  close_session(sess);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static TF_Tensor *uniform(int64_t rows, int64_t cols, unsigned *seed) {
  int64_t dims[2] = {rows, cols};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 2, (size_t)(rows * cols) * sizeof(float));
  float *v = TF_TensorData(t);
  for (int64_t i = 0; i < rows * cols; i++) v[i] = 2.0f * (float)rand_r(seed) / (float)RAND_MAX - 1.0f;
  return t;
}

static void builder_mlp_learns_with_adam(void) {
  TF_Graph *g = TF_NewGraph();
  mlp m = build_mlp(g, OPT_ADAM);
  TF_Session *sess = session(g);
  unsigned seed = 3;
  TF_Tensor *xs = uniform(100, 32, &seed), *ys = uniform(100, 8, &seed);
  TF_Output feeds[2] = {m.x, m.y};
  TF_Tensor *vals[2] = {xs, ys};
  TF_Status *s = TF_NewStatus();
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&m.init, 1, NULL, s);
  OK(s);
  double first = 0, last = 0;
  for (int i = 0; i < 30; i++) {
    TF_Tensor *out = NULL;
    TF_SessionRun(sess, NULL, feeds, vals, 2, &m.cost, &out, 1, NULL, 0, NULL, s);
    OK(s);
    last = *(float *)TF_TensorData(out);
    if (i == 0) first = last;
    TF_DeleteTensor(out);
    TF_SessionRun(sess, NULL, feeds, vals, 2, NULL, NULL, 0, (const TF_Operation *const *)&m.train, 1, NULL, s);
    OK(s);
  }
  EXPECT_TRUE(isfinite(last) && last < 0.8 * first);
  TF_DeleteStatus(s);
  TF_DeleteTensor(xs);
  TF_DeleteTensor(ys);
  close_session(sess);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(mlp_adam_matches_tf_graph),
    TFC_TEST(mlp_gd_matches_tf_graph),
    TFC_TEST(mlp_momentum_matches_tf_graph),
    TFC_TEST(random_initializer_seeds_follow_tf115),
    TFC_TEST(scope_names_are_unique_as_python_makes_them),
    TFC_TEST(graph_unique_name_shares_the_builders_names),
    TFC_TEST(device_specs_merge_as_nested_tf_device),
    TFC_TEST(scope_device_applies_to_every_node),
    TFC_TEST(scope_control_dependencies_apply_as_in_python),
    TFC_TEST(bad_initial_value_shape_is_invalid_argument),
    TFC_TEST(apply_without_gradients_fails_and_changes_nothing),
    TFC_TEST(gradient_descent_finds_the_quadratics_minimum),
    TFC_TEST(exponential_decay_values_at_global_steps),
    TFC_TEST(moving_average_follows_its_variable),
    TFC_TEST(builder_mlp_learns_with_adam),
    {0},
};

TFC_TEST_MAIN(tests)
