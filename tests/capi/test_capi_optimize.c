/*
 * The graph optimizer (src/optimize/) through sessions: constant folding and the folding of
 * per-channel scales into weights shrink the partition graphs (RunOptions
 * output_partition_graphs shows them) and keep every value; fetched nodes and targets stay;
 * a failing kernel inside a constant subgraph fails the run as without folding; ConfigProto's
 * OptimizerOptions and RewriterConfig switch the passes off. A frozen Keras CNN made by
 * TensorFlow (gen_optimize.py) runs with TensorFlow's outputs. Convolutions with their bias
 * and activation become TF's fused ops, and a zero Pad before one its padding (fuse_conv),
 * with the unfused graph's values; the fused ops also run as a graph gives them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "tensorflow/config.pb-c.h"

enum {
  OPT_DEFAULT = 0,
  OPT_L0 = 1,
  OPT_L0_FOLD = 2,
  OPT_CF_OFF = 3,
  OPT_ARITH_OFF = 4,
  OPT_META_OFF = 5,
  OPT_REMAP_OFF = 6,
  OPT_DEP_OFF = 7
};

static int intra_threads; /* the sessions' intra_op_parallelism_threads (0: the default) */

static TF_Session *session(TF_Graph *g, int mode) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  cp.intra_op_parallelism_threads = intra_threads;
  Tensorflow__GraphOptions go = TENSORFLOW__GRAPH_OPTIONS__INIT;
  Tensorflow__OptimizerOptions oo = TENSORFLOW__OPTIMIZER_OPTIONS__INIT;
  Tensorflow__RewriterConfig rc = TENSORFLOW__REWRITER_CONFIG__INIT;
  cp.graph_options = &go;
  go.optimizer_options = &oo;
  go.rewrite_options = &rc;
  if (mode == OPT_L0 || mode == OPT_L0_FOLD) oo.opt_level = TENSORFLOW__OPTIMIZER_OPTIONS__LEVEL__L0;
  if (mode == OPT_L0_FOLD) oo.do_constant_folding = 1;
  if (mode == OPT_CF_OFF) rc.constant_folding = TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF;
  if (mode == OPT_ARITH_OFF) rc.arithmetic_optimization = TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF;
  if (mode == OPT_META_OFF) rc.disable_meta_optimizer = 1;
  if (mode == OPT_REMAP_OFF) rc.remapping = TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF;
  if (mode == OPT_DEP_OFF) rc.dependency_optimization = TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF;
  size_t n = tensorflow__config_proto__get_packed_size(&cp);
  uint8_t *b = malloc(n + 1);
  tensorflow__config_proto__pack(&cp, b);
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetConfig(o, b, n, s);
  OK(s);
  free(b);
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

/* One run of fetches (with an optional feed), asking for the partition graphs. Returns the
 * run's status code; on success *out holds the fetches and *graphs the partition graphs'
 * nodes as "name=op" lines (caller frees). msg (optional) gets the status message. The feed
 * is deleted. */
static int run(TF_Session *sess, TF_Output *feed, TF_Tensor *feed_val, TF_Output *fetches, int n_fetches,
               TF_Operation **targets, int n_targets, TF_Tensor **out, char **graphs, char *msg) {
  Tensorflow__RunOptions ro = TENSORFLOW__RUN_OPTIONS__INIT;
  ro.output_partition_graphs = 1;
  size_t n = tensorflow__run_options__get_packed_size(&ro);
  uint8_t *b = malloc(n + 1);
  tensorflow__run_options__pack(&ro, b);
  TF_Buffer *opts = TF_NewBufferFromString(b, n);
  free(b);
  TF_Buffer *md = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_SessionRun(sess, opts, feed, feed ? &feed_val : NULL, feed ? 1 : 0, fetches, out, n_fetches, (const TF_Operation *const *)targets, n_targets,
                md, s);
  int code = TF_GetCode(s);
  if (feed_val) TF_DeleteTensor(feed_val);
  if (msg) snprintf(msg, 512, "%s", TF_Message(s));
  if (graphs) *graphs = NULL;
  if (code == TF_OK && graphs) {
    Tensorflow__RunMetadata *m = tensorflow__run_metadata__unpack(NULL, md->length, md->data);
    EXPECT_TRUE(m != NULL);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    text[0] = 0;
    for (size_t p = 0; p < m->n_partition_graphs; p++)
      for (size_t i = 0; i < m->partition_graphs[p]->n_node; i++) {
        const Tensorflow__NodeDef *nd = m->partition_graphs[p]->node[i];
        size_t need = strlen(nd->name) + strlen(nd->op) + 4;
        if (len + need >= cap) text = realloc(text, cap = 2 * (cap + need));
        len += (size_t)sprintf(text + len, "\n%s=%s", nd->name, nd->op);
      }
    if (len + 2 < cap) strcat(text, "\n");
    *graphs = text;
    tensorflow__run_metadata__free_unpacked(m, NULL);
  }
  TF_DeleteBuffer(md);
  TF_DeleteBuffer(opts);
  TF_DeleteStatus(s);
  return code;
}

/* The number of "\n<line>\n" in text. */
static int count_lines(const char *text, const char *line) {
  char key[256];
  snprintf(key, sizeof key, "\n%s\n", line);
  int n = 0;
  for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) n++;
  return n;
}

static int count_op(const char *text, const char *op) {
  char key[64];
  snprintf(key, sizeof key, "=%s\n", op);
  int n = 0;
  for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) n++;
  return n;
}

static TF_Output op1(TF_Graph *g, const char *type, const char *name, TF_Output a) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  return (TF_Output){capi_finish(d), 0};
}

static TF_Output fconst(TF_Graph *g, const char *name, const int64_t *dims, int ndims, const float *v, size_t n) {
  TF_Status *s = TF_NewStatus();
  TF_Output o = capi_const(g, name, TF_FLOAT, dims, ndims, v, n * sizeof(float), s);
  TF_DeleteStatus(s);
  return o;
}

static TF_Output placeholder(TF_Graph *g, const char *name) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return (TF_Output){capi_finish(d), 0};
}

static TF_Tensor *ftensor(const int64_t *dims, int ndims, const float *v, size_t n) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  memcpy(TF_TensorData(t), v, n * sizeof(float));
  return t;
}

/* y = x * rsqrt(a + b): a + b and its Rsqrt are folded, "r" becomes a Const named r. */
typedef struct small {
  TF_Graph *g;
  TF_Output x, sum, r, y;
} small;

static small small_graph(void) {
  small m;
  m.g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t d2[1] = {2};
  m.x = placeholder(m.g, "x");
  TF_Output a = fconst(m.g, "a", d2, 1, (const float[]){1, 3}, 2), b = fconst(m.g, "b", d2, 1, (const float[]){3, 6}, 2);
  m.sum = capi_op2(m.g, "AddV2", "sum", a, b, s);
  m.r = op1(m.g, "Rsqrt", "r", m.sum);
  m.y = capi_op2(m.g, "Mul", "y", m.x, m.r, s);
  TF_DeleteStatus(s);
  return m;
}

static void run_small(int mode, int fetch_r, char **graphs, float *y) {
  small m = small_graph();
  TF_Session *sess = session(m.g, mode);
  int64_t d2[1] = {2};
  TF_Tensor *xv = ftensor(d2, 1, (const float[]){8, 9}, 2), *out[2] = {0};
  TF_Output fetches[2] = {m.y, m.r};
  EXPECT_EQ(run(sess, &m.x, xv, fetches, fetch_r ? 2 : 1, NULL, 0, out, graphs, NULL), TF_OK);
  memcpy(y, TF_TensorData(out[0]), 2 * sizeof(float));
  TF_DeleteTensor(out[0]);
  if (out[1]) TF_DeleteTensor(out[1]);
  close_session(sess);
  TF_DeleteGraph(m.g);
}

static void folds_a_constant_subgraph_into_a_const_with_its_name(void) {
  char *graphs;
  float y[2];
  run_small(OPT_DEFAULT, 0, &graphs, y);
  EXPECT_NEAR(y[0], 8 / 2.0, 1e-6);
  EXPECT_NEAR(y[1], 9 / 3.0, 1e-6);
  EXPECT_EQ(count_lines(graphs, "r=Const"), 1);
  EXPECT_EQ(count_op(graphs, "Rsqrt"), 0);
  EXPECT_EQ(count_op(graphs, "AddV2"), 0);
  EXPECT_EQ(count_lines(graphs, "a=Const"), 0); /* only fed the folded nodes */
  EXPECT_EQ(count_lines(graphs, "y=Mul"), 1);
  free(graphs);
}

/* A frozen Keras graph hangs each weight's former ReadVariableOp (a Const once frozen) on a
 * NoOp that the output waits for: those control edges order nothing, so the Consts go, the
 * NoOp stays; a Const also read as data, or fetched, stays. */
static void drops_consts_that_only_feed_control_edges(void) {
  for (int fetch_w = 0; fetch_w < 2; fetch_w++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    int64_t d2[1] = {2};
    TF_Output x = placeholder(g, "x"), a = fconst(g, "a", d2, 1, (const float[]){2, 3}, 2);
    TF_Output w = op1(g, "Identity", "w/ReadVariableOp", fconst(g, "w", d2, 1, (const float[]){5, 7}, 2));
    TF_Output w2 = fconst(g, "w2", d2, 1, (const float[]){1, 1}, 2);
    TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "deps");
    TF_AddControlInput(d, w.oper);
    TF_AddControlInput(d, w2.oper);
    TF_AddControlInput(d, a.oper);
    TF_Operation *deps = capi_finish(d);
    d = TF_NewOperation(g, "Mul", "y");
    TF_AddInput(d, x);
    TF_AddInput(d, a);
    TF_AddControlInput(d, deps);
    TF_Output y = {capi_finish(d), 0};
    TF_Session *sess = session(g, OPT_DEFAULT);
    TF_Tensor *out[2] = {0};
    char *graphs = NULL;
    TF_Output fetches[2] = {y, w};
    EXPECT_EQ(run(sess, &x, ftensor(d2, 1, (const float[]){4, 5}, 2), fetches, 1 + fetch_w, NULL, 0, out, &graphs,
                  NULL),
              TF_OK);
    EXPECT_EQ(((float *)TF_TensorData(out[0]))[1], 15.0f);
    EXPECT_EQ(count_lines(graphs, "deps=NoOp"), 1);
    EXPECT_EQ(count_lines(graphs, "w2=Const"), 0);
    EXPECT_EQ(count_lines(graphs, "a=Const"), 1); /* read by y */
    EXPECT_EQ(count_lines(graphs, "w/ReadVariableOp=Const"), 0);
    EXPECT_EQ(count_lines(graphs, "w/ReadVariableOp=Identity"), fetch_w); /* fetched: kept as it is */
    if (fetch_w) EXPECT_EQ(((float *)TF_TensorData(out[1]))[1], 7.0f);
    for (int i = 0; i < 2; i++)
      if (out[i]) TF_DeleteTensor(out[i]);
    free(graphs);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
}

static void keeps_a_fetched_node(void) {
  char *graphs;
  float y[2];
  run_small(OPT_DEFAULT, 1, &graphs, y);
  EXPECT_NEAR(y[0], 4, 1e-6);
  EXPECT_EQ(count_lines(graphs, "r=Rsqrt"), 1); /* fetched: kept, its input folded */
  EXPECT_EQ(count_lines(graphs, "sum=Const"), 1);
  free(graphs);
}

static void options_switch_folding_off(void) {
  const int off[] = {OPT_L0, OPT_CF_OFF, OPT_META_OFF};
  for (int i = 0; i < 3; i++) {
    char *graphs;
    float y[2];
    run_small(off[i], 0, &graphs, y);
    EXPECT_NEAR(y[1], 3, 1e-6);
    EXPECT_EQ(count_lines(graphs, "r=Rsqrt"), 1);
    EXPECT_EQ(count_lines(graphs, "sum=AddV2"), 1);
    free(graphs);
  }
  /* L0 with do_constant_folding, and RewriterConfig's other switches, still fold */
  const int on[] = {OPT_L0_FOLD, OPT_ARITH_OFF};
  for (int i = 0; i < 2; i++) {
    char *graphs;
    float y[2];
    run_small(on[i], 0, &graphs, y);
    EXPECT_EQ(count_lines(graphs, "r=Const"), 1);
    free(graphs);
  }
}

static void keeps_a_target_and_a_fed_input(void) {
  small m = small_graph();
  TF_Session *sess = session(m.g, OPT_DEFAULT);
  int64_t d2[1] = {2};
  /* Feeding "sum" replaces it: nothing upstream of it runs, and r is not constant. */
  TF_Tensor *sv = ftensor(d2, 1, (const float[]){16, 25}, 2), *out = NULL;
  char *graphs;
  EXPECT_EQ(run(sess, &m.sum, sv, &m.r, 1, NULL, 0, &out, &graphs, NULL), TF_OK);
  EXPECT_NEAR(((float *)TF_TensorData(out))[1], 0.2, 1e-6);
  EXPECT_EQ(count_lines(graphs, "r=Rsqrt"), 1);
  EXPECT_EQ(count_op(graphs, "AddV2"), 0);
  free(graphs);
  TF_DeleteTensor(out);
  /* A target that is a constant expression is still run. */
  TF_Operation *t = m.sum.oper;
  EXPECT_EQ(run(sess, NULL, NULL, NULL, 0, &t, 1, NULL, &graphs, NULL), TF_OK);
  EXPECT_EQ(count_lines(graphs, "sum=AddV2"), 1);
  free(graphs);
  close_session(sess);
  TF_DeleteGraph(m.g);
}

/* CheckNumerics of sqrt(-1) inside a constant subgraph: the same error with and without
 * folding. */
static void a_failing_constant_subgraph_fails_at_run_time_as_before(void) {
  char msgs[2][512];
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    int64_t d2[1] = {2};
    TF_Output v = op1(g, "Sqrt", "sqrt", fconst(g, "v", d2, 1, (const float[]){4, -1}, 2));
    TF_OperationDescription *d = TF_NewOperation(g, "CheckNumerics", "check");
    TF_AddInput(d, v);
    TF_SetAttrString(d, "message", "bad root", 8);
    TF_Output checked = {capi_finish(d), 0};
    TF_Output x = placeholder(g, "x");
    TF_Output y = capi_op2(g, "Mul", "y", x, op1(g, "Neg", "neg", checked), s);
    TF_Session *sess = session(g, k == 0 ? OPT_DEFAULT : OPT_CF_OFF);
    TF_Tensor *xv = ftensor(d2, 1, (const float[]){1, 1}, 2), *out = NULL;
    EXPECT_EQ(run(sess, &x, xv, &y, 1, NULL, 0, &out, NULL, msgs[k]), TF_INVALID_ARGUMENT);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
  EXPECT_CONTAINS(msgs[0], "bad root");
  EXPECT_STREQ(msgs[0], msgs[1]);
}

/* ---- dependency optimization ---- */

/* TF 1.x's gated gradients in small: used = x * x and unused = Neg(MatMul(x, w)) are grouped
 * (group_deps waits for both) and out = Identity(used) waits for the group. Nothing reads the
 * MatMul's or the Neg's value, so both become NoOps of their names, and out is x * x. With
 * RewriterConfig dependency_optimization OFF, or when the MatMul is fetched, it runs. */
static void run_gated(int mode, int fetch_matmul, char **graphs, float *y) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dx[2] = {2, 3}, dw[2] = {3, 4};
  TF_Output x = placeholder(g, "x");
  TF_Output w = fconst(g, "w", dw, 2, (const float[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 12);
  TF_Output mm = capi_op2(g, "MatMul", "unused_grad", x, w, s);
  TF_Output neg = op1(g, "Neg", "unused_neg", mm);
  TF_Output used = capi_op2(g, "Mul", "used_grad", x, x, s);
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "group_deps");
  TF_AddControlInput(d, neg.oper);
  TF_AddControlInput(d, used.oper);
  TF_Operation *group = capi_finish(d);
  d = TF_NewOperation(g, "Identity", "out");
  TF_AddInput(d, used);
  TF_AddControlInput(d, group);
  TF_Output out = {capi_finish(d), 0};
  TF_Session *sess = session(g, mode);
  TF_Output fetches[2] = {out, mm};
  TF_Tensor *vals[2] = {NULL, NULL};
  TF_Tensor *xv = ftensor(dx, 2, (const float[]){1, -2, 3, 0.5f, 5, -6}, 6);
  EXPECT_EQ(run(sess, &x, xv, fetches, fetch_matmul ? 2 : 1, NULL, 0, vals, graphs, NULL), TF_OK);
  memcpy(y, TF_TensorData(vals[0]), 6 * sizeof(float));
  for (int i = 0; i < 2; i++)
    if (vals[i]) TF_DeleteTensor(vals[i]);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void turns_values_only_waited_for_into_noops(void) {
  static const float want[6] = {1, 4, 9, 0.25f, 25, 36};
  for (int k = 0; k < 3; k++) {
    char *graphs = NULL;
    float y[6];
    run_gated(k == 1 ? OPT_DEP_OFF : OPT_DEFAULT, k == 2, &graphs, y);
    for (int i = 0; i < 6; i++) EXPECT_NEAR(y[i], want[i], 1e-6);
    if (k == 0) {
      EXPECT_EQ(count_lines(graphs, "unused_grad=NoOp"), 1);
      EXPECT_EQ(count_lines(graphs, "unused_neg=NoOp"), 1);
      EXPECT_EQ(count_op(graphs, "MatMul"), 0);
    } else {
      EXPECT_EQ(count_lines(graphs, "unused_grad=MatMul"), 1);
      EXPECT_EQ(count_lines(graphs, k == 1 ? "unused_neg=Neg" : "unused_neg=NoOp"), 1);
    }
    EXPECT_EQ(count_lines(graphs, "used_grad=Mul"), 1);
    free(graphs);
  }
}

/* A CheckNumerics only a control edge waits for (tf.verify_tensor_all_finite's shape) still
 * runs: the check is what the edge asks for. An Inf fails the run with its message. */
static void keeps_checks_waited_for(void) {
  TF_Graph *g = TF_NewGraph();
  int64_t d2[1] = {2};
  TF_Output x = placeholder(g, "x");
  TF_OperationDescription *d = TF_NewOperation(g, "CheckNumerics", "check");
  TF_AddInput(d, x);
  TF_SetAttrString(d, "message", "not finite", 10);
  TF_Operation *check = capi_finish(d);
  d = TF_NewOperation(g, "Identity", "out");
  TF_AddInput(d, x);
  TF_AddControlInput(d, check);
  TF_Output out = {capi_finish(d), 0};
  TF_Session *sess = session(g, OPT_DEFAULT);
  TF_Tensor *xv = ftensor(d2, 1, (const float[]){1, INFINITY}, 2), *v = NULL;
  char msg[512];
  EXPECT_EQ(run(sess, &x, xv, &out, 1, NULL, 0, &v, NULL, msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "not finite");
  close_session(sess);
  TF_DeleteGraph(g);
}

/* ---- scale folding ---- */

static TF_Output conv(TF_Graph *g, const char *type, const char *name, TF_Output x, TF_Output w, int stride,
                      const char *padding) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, x);
  TF_AddInput(d, w);
  int64_t st[4] = {1, stride, stride, 1};
  TF_SetAttrIntList(d, "strides", st, 4);
  TF_SetAttrString(d, "padding", padding, strlen(padding));
  return (TF_Output){capi_finish(d), 0};
}

static float frand(unsigned *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (float)((int)(*seed >> 16) % 2001 - 1000) / 1000.0f;
}

/* x -> Conv2D -> * s1 + o1 -> Relu6 -> Depthwise (mult 2) -> * s2 -> MatMul (transpose_b) * s3,
 * where s1 = g1 * rsqrt(v1 + eps) as Keras writes it: the run with everything on and the run
 * with everything off agree, and the Mul nodes are gone when on. */
static void folds_scales_into_conv_depthwise_and_matmul_weights(void) {
  float results[2][2 * 6];
  char *graphs[2];
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    unsigned seed = 99;
    float w1[3 * 3 * 3 * 4], gam[4], var[4], off[4], w2[3 * 3 * 4 * 2], s2[8], w3[6 * 8], s3[6];
    for (size_t i = 0; i < sizeof w1 / 4; i++) w1[i] = frand(&seed);
    for (int i = 0; i < 4; i++) gam[i] = 1 + frand(&seed) / 2, var[i] = 1 + frand(&seed) / 2, off[i] = frand(&seed);
    for (size_t i = 0; i < sizeof w2 / 4; i++) w2[i] = frand(&seed);
    for (int i = 0; i < 8; i++) s2[i] = 1 + frand(&seed) / 2;
    for (size_t i = 0; i < sizeof w3 / 4; i++) w3[i] = frand(&seed);
    for (int i = 0; i < 6; i++) s3[i] = 1 + frand(&seed) / 2;
    TF_Output x = placeholder(g, "x");
    TF_Output c1 = conv(g, "Conv2D", "conv1", x, fconst(g, "w1", (const int64_t[]){3, 3, 3, 4}, 4, w1, 36 * 3), 1,
                        "SAME");
    TF_Output eps = fconst(g, "eps", NULL, 0, (const float[]){1e-3f}, 1);
    TF_Output scale = capi_op2(g, "Mul", "bn/mul", op1(g, "Rsqrt", "bn/rsqrt",
                                                        capi_op2(g, "AddV2", "bn/add", fconst(g, "var", (const int64_t[]){4}, 1, var, 4), eps, s)),
                               fconst(g, "gamma", (const int64_t[]){4}, 1, gam, 4), s);
    TF_Output y = capi_op2(g, "Mul", "bn/mul_1", c1, scale, s);
    y = capi_op2(g, "AddV2", "bn/add_1", y, fconst(g, "off", (const int64_t[]){4}, 1, off, 4), s);
    y = op1(g, "Relu6", "relu", y);
    TF_Output c2 = conv(g, "DepthwiseConv2dNative", "dw", y, fconst(g, "w2", (const int64_t[]){3, 3, 4, 2}, 4, w2, 72),
                        2, "VALID");
    y = capi_op2(g, "Mul", "dw/mul", fconst(g, "s2", (const int64_t[]){1, 1, 1, 8}, 4, s2, 8), c2, s);
    y = capi_op2(g, "Mean", "pool", y, capi_const(g, "axes", TF_INT32, (const int64_t[]){2}, 1, (const int32_t[]){1, 2}, 8, s), s);
    TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "fc");
    TF_AddInput(d, y);
    TF_AddInput(d, fconst(g, "w3", (const int64_t[]){6, 8}, 2, w3, 48));
    TF_SetAttrBool(d, "transpose_b", 1);
    y = (TF_Output){capi_finish(d), 0};
    y = capi_op2(g, "Mul", "fc/mul", y, fconst(g, "s3", (const int64_t[]){6}, 1, s3, 6), s);
    y = op1(g, "Identity", "out", y);
    TF_Session *sess = session(g, k == 0 ? OPT_DEFAULT : OPT_META_OFF);
    float xv[2 * 7 * 7 * 3];
    for (size_t i = 0; i < sizeof xv / 4; i++) xv[i] = frand(&seed) * 3;
    TF_Tensor *xt = ftensor((const int64_t[]){2, 7, 7, 3}, 4, xv, sizeof xv / 4), *out = NULL;
    EXPECT_EQ(run(sess, &x, xt, &y, 1, NULL, 0, &out, &graphs[k], NULL), TF_OK);
    EXPECT_EQ((int)TF_TensorByteSize(out), (int)sizeof results[k]);
    memcpy(results[k], TF_TensorData(out), sizeof results[k]);
    TF_DeleteTensor(out);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
  for (int i = 0; i < 12; i++) EXPECT_NEAR(results[0][i], results[1][i], 1e-5 * (1 + fabs(results[1][i])));
  EXPECT_EQ(count_op(graphs[0], "Mul"), 0);
  EXPECT_EQ(count_op(graphs[1], "Mul"), 4); /* off: the batch norm's two, dw/mul and fc/mul */
  /* the scaled conv1 with its offset and Relu6 is one fused node (fuse_conv) */
  EXPECT_EQ(count_lines(graphs[0], "relu=_FusedConv2D"), 1);
  EXPECT_EQ(count_lines(graphs[0], "dw=DepthwiseConv2dNative"), 1);
  EXPECT_EQ(count_lines(graphs[0], "fc=MatMul"), 1);
  EXPECT_EQ(count_op(graphs[0], "AddV2"), 0);
  EXPECT_EQ(count_lines(graphs[1], "bn/add_1=AddV2"), 1);
  free(graphs[0]);
  free(graphs[1]);
}

/* A fetched Mul, or a convolution read twice, is left alone. */
static void leaves_fetched_or_shared_products(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = placeholder(g, "x");
  TF_Output c = conv(g, "Conv2D", "conv", x, fconst(g, "w", (const int64_t[]){1, 1, 1, 2}, 4, (const float[]){2, 3}, 2),
                     1, "VALID");
  TF_Output m1 = capi_op2(g, "Mul", "m1", c, fconst(g, "k", (const int64_t[]){2}, 1, (const float[]){5, 7}, 2), s);
  TF_Output c2 = conv(g, "Conv2D", "conv2", x, fconst(g, "w2", (const int64_t[]){1, 1, 1, 2}, 4, (const float[]){1, 1}, 2),
                      1, "VALID");
  TF_Output m2 = capi_op2(g, "Mul", "m2", c2, fconst(g, "k2", (const int64_t[]){2}, 1, (const float[]){5, 7}, 2), s);
  TF_Output both = capi_op2(g, "AddV2", "both", m2, c2, s);
  TF_Session *sess = session(g, OPT_DEFAULT);
  TF_Tensor *xt = ftensor((const int64_t[]){1, 1, 1, 1}, 4, (const float[]){1}, 1), *out[2] = {0};
  TF_Output fetches[2] = {m1, both};
  char *graphs;
  EXPECT_EQ(run(sess, &x, xt, fetches, 2, NULL, 0, out, &graphs, NULL), TF_OK);
  EXPECT_NEAR(((float *)TF_TensorData(out[0]))[1], 21, 1e-6);
  EXPECT_NEAR(((float *)TF_TensorData(out[1]))[1], 8, 1e-6);
  EXPECT_EQ(count_lines(graphs, "m1=Mul"), 1);
  EXPECT_EQ(count_lines(graphs, "m2=Mul"), 1);
  free(graphs);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- convolution fusion and Pad folding ---- */

static const char *const fuse_acts[] = {NULL, "Relu", "Relu6", "Elu", "LeakyRelu"};

/* x -> [Pad] -> conv (Conv2D or depthwise) -> BiasAdd (use_add 0), AddV2 of a Const (1) or
 * BiasAdd then AddV2 of a [1, 1, 1, oc] Const (2) -> activation ->
 * Identity "out", run with `mode`; the output (n floats) into y, the partition graphs into
 * *graphs. fetch_bias also fetches the bias node. */
static void run_conv_chain(int mode, int depthwise, int act, int use_add, int pad, int fetch_bias, float *y, int n,
                           char **graphs) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  unsigned seed = 7;
  int oc = depthwise ? 6 : 5;
  float w[3 * 3 * 3 * 5], b[6];
  for (size_t i = 0; i < sizeof w / 4; i++) w[i] = frand(&seed);
  for (int i = 0; i < 6; i++) b[i] = frand(&seed);
  TF_Output x = placeholder(g, "x"), in = x;
  if (pad) {
    TF_Output pv = capi_const(g, "paddings", TF_INT32, (const int64_t[]){4, 2}, 2, (const int32_t[]){0, 0, 1, 2, 2, 1, 0, 0},
                              32, s);
    in = capi_op2(g, "Pad", "pad", x, pv, s);
  }
  TF_Output wc = depthwise ? fconst(g, "w", (const int64_t[]){3, 3, 3, 2}, 4, w, 54)
                           : fconst(g, "w", (const int64_t[]){3, 3, 3, 5}, 4, w, 135);
  TF_Output c = conv(g, depthwise ? "DepthwiseConv2dNative" : "Conv2D", "conv", in, wc, pad ? 1 : 2,
                     pad ? "VALID" : "SAME");
  TF_Output bc = fconst(g, "b", (const int64_t[]){oc}, 1, b, (size_t)oc);
  TF_Output yb = use_add == 1 ? capi_op2(g, "AddV2", "bias", bc, c, s) : capi_op2(g, "BiasAdd", "bias", c, bc, s);
  if (use_add == 2) /* then a batch norm's offset, as Keras writes it */
    yb = capi_op2(g, "AddV2", "bias2", yb, fconst(g, "b2", (const int64_t[]){1, 1, 1, oc}, 4, b + 6 - oc, (size_t)oc), s);
  TF_Output ya = yb;
  if (fuse_acts[act]) {
    TF_OperationDescription *d = TF_NewOperation(g, fuse_acts[act], "act");
    TF_AddInput(d, yb);
    if (strcmp(fuse_acts[act], "LeakyRelu") == 0) TF_SetAttrFloat(d, "alpha", 0.3f);
    ya = (TF_Output){capi_finish(d), 0};
  }
  TF_Output out = op1(g, "Identity", "out", ya);
  TF_Session *sess = session(g, mode);
  float xv[2 * 6 * 7 * 3];
  for (size_t i = 0; i < sizeof xv / 4; i++) xv[i] = frand(&seed) * 2;
  TF_Tensor *xt = ftensor((const int64_t[]){2, 6, 7, 3}, 4, xv, sizeof xv / 4), *outs[2] = {0};
  TF_Output fetches[2] = {out, yb};
  EXPECT_EQ(run(sess, &x, xt, fetches, fetch_bias ? 2 : 1, NULL, 0, outs, graphs, NULL), TF_OK);
  EXPECT_EQ((int)TF_TensorByteSize(outs[0]), n * 4);
  memcpy(y, TF_TensorData(outs[0]), (size_t)n * 4);
  TF_DeleteTensor(outs[0]);
  if (outs[1]) TF_DeleteTensor(outs[1]);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* MaxPool(x) and MaxPoolGrad(x, pool, g), x fed with ties, NaN and -0 and g with -0; fetches
 * Identity(gradient) (and the pool with fetch_pool). *graphs: the partition graphs' nodes. */
static void run_pool_pair(int mode, const int64_t *xd, int k, int stride, const char *padding, int nchw, int fetch_pool,
                          float *dx, int64_t n_dx, char **graphs) {
  int64_t h = xd[nchw ? 2 : 1], w = xd[nchw ? 3 : 2];
  int same = strcmp(padding, "SAME") == 0;
  int64_t oh = same ? (h + stride - 1) / stride : (h - k) / stride + 1, ow = same ? (w + stride - 1) / stride : (w - k) / stride + 1;
  int64_t yd[4] = {xd[0], nchw ? xd[1] : oh, nchw ? oh : ow, nchw ? ow : xd[3]};
  int64_t n_x = xd[0] * xd[1] * xd[2] * xd[3], n_y = yd[0] * yd[1] * yd[2] * yd[3];
  float *xv = malloc(sizeof(float) * (size_t)n_x), *gv = malloc(sizeof(float) * (size_t)n_y);
  for (int64_t i = 0; i < n_x; i++) xv[i] = (float)((i * 37) % 7 - 3) * 0.5f;
  xv[5] = NAN;
  xv[n_x / 2] = -0.0f;
  for (int64_t i = 0; i < n_y; i++) gv[i] = (float)((i * 13) % 11 - 5) * 0.25f;
  gv[1] = -0.0f;
  gv[n_y - 1] = -0.0f;
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = placeholder(g, "x");
  int64_t ks[4] = {1, k, k, 1}, st[4] = {1, stride, stride, 1};
  if (nchw) ks[1] = st[1] = 1, ks[2] = ks[3] = k, st[2] = st[3] = stride;
  TF_OperationDescription *d = TF_NewOperation(g, "MaxPool", "pool");
  TF_AddInput(d, x);
  TF_SetAttrIntList(d, "ksize", ks, 4);
  TF_SetAttrIntList(d, "strides", st, 4);
  TF_SetAttrString(d, "padding", padding, strlen(padding));
  TF_SetAttrString(d, "data_format", nchw ? "NCHW" : "NHWC", 4);
  TF_Output pool = {capi_finish(d), 0};
  d = TF_NewOperation(g, "MaxPoolGrad", "grad");
  TF_AddInput(d, x);
  TF_AddInput(d, pool);
  TF_AddInput(d, fconst(g, "g", yd, 4, gv, (size_t)n_y));
  TF_SetAttrIntList(d, "ksize", ks, 4);
  TF_SetAttrIntList(d, "strides", st, 4);
  TF_SetAttrString(d, "padding", padding, strlen(padding));
  TF_SetAttrString(d, "data_format", nchw ? "NCHW" : "NHWC", 4);
  TF_Output grad = op1(g, "Identity", "dx", (TF_Output){capi_finish(d), 0}); /* a fetched gradient keeps its op */
  TF_Session *sess = session(g, mode);
  TF_Tensor *outs[2] = {NULL, NULL};
  TF_Output fetches[2] = {grad, pool};
  EXPECT_EQ(run(sess, &x, ftensor(xd, 4, xv, (size_t)n_x), fetches, fetch_pool ? 2 : 1, NULL, 0, outs, graphs, NULL),
            TF_OK);
  EXPECT_EQ((int64_t)TF_TensorByteSize(outs[0]), n_dx * 4);
  memcpy(dx, TF_TensorData(outs[0]), (size_t)n_dx * 4);
  for (int i = 0; i < 2; i++)
    if (outs[i]) TF_DeleteTensor(outs[i]);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  free(xv);
  free(gv);
}

/* A MaxPool and its MaxPoolGrad become the workspace pair under their names, with the
 * gradient of the unrewritten pair bit for bit (ties, a NaN, -0 gradients), over windows that
 * tile the image, overlap, leave rows out or leave gaps, NHWC and NCHW; a fetched pool keeps
 * its op, and remapping OFF keeps both. */
static void max_pool_grad_reads_the_pools_workspace(void) {
  static const struct {
    int64_t xd[4];
    int k, stride;
    const char *padding;
    int nchw;
  } cases[] = {{{2, 7, 9, 5}, 2, 2, "SAME", 0},  {{2, 8, 8, 3}, 3, 2, "SAME", 0}, {{1, 7, 7, 20}, 2, 2, "VALID", 0},
               {{1, 8, 8, 2}, 2, 3, "VALID", 0}, {{2, 6, 6, 3}, 3, 3, "SAME", 0}, {{2, 3, 7, 6}, 2, 2, "SAME", 1},
               {{3, 14, 14, 32}, 2, 2, "SAME", 0}, {{2, 9, 9, 16}, 3, 2, "SAME", 0}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++)
    for (int fetch_pool = 0; fetch_pool < 2; fetch_pool++) {
      const int64_t *xd = cases[t].xd;
      int64_t n = xd[0] * xd[1] * xd[2] * xd[3];
      float *dx[2] = {malloc(sizeof(float) * (size_t)n), malloc(sizeof(float) * (size_t)n)};
      char *graphs[2];
      for (int m = 0; m < 2; m++)
        run_pool_pair(m ? OPT_REMAP_OFF : OPT_DEFAULT, xd, cases[t].k, cases[t].stride, cases[t].padding,
                      cases[t].nchw, fetch_pool, dx[m], n, &graphs[m]);
      if (memcmp(dx[0], dx[1], sizeof(float) * (size_t)n) != 0)
        for (int64_t i = 0; i < n; i++)
          if (memcmp(&dx[0][i], &dx[1][i], sizeof(float)) != 0) {
            tfc_test_fail(__FILE__, __LINE__, "case %zu element %lld: %g vs %g", t, (long long)i, dx[0][i], dx[1][i]);
            break;
          }
      EXPECT_EQ(count_lines(graphs[0], fetch_pool ? "pool=MaxPool" : "pool=_MaxPoolWithWorkspace"), 1);
      EXPECT_EQ(count_lines(graphs[0], fetch_pool ? "grad=MaxPoolGrad" : "grad=_MaxPoolGradWithWorkspace"), 1);
      EXPECT_EQ(count_lines(graphs[1], "pool=MaxPool"), 1);
      EXPECT_EQ(count_lines(graphs[1], "grad=MaxPoolGrad"), 1);
      for (int m = 0; m < 2; m++) {
        free(dx[m]);
        free(graphs[m]);
      }
    }
}

/* Each activation, after Conv2D or depthwise with BiasAdd, AddV2 or both: one fused node named as
 * the last node, the values of the unfused graph (RewriterConfig remapping OFF). */
static void fuses_conv_bias_and_activation(void) {
  for (int dw = 0; dw < 2; dw++)
    for (int act = 0; act < 5; act++)
      for (int add = 0; add < 3; add++) {
        int n = 2 * 3 * 4 * (dw ? 6 : 5);
        float y[2][2 * 3 * 4 * 6];
        char *graphs[2];
        run_conv_chain(OPT_DEFAULT, dw, act, add, 0, 0, y[0], n, &graphs[0]);
        run_conv_chain(OPT_REMAP_OFF, dw, act, add, 0, 0, y[1], n, &graphs[1]);
        for (int i = 0; i < n; i++)
          if (fabs(y[0][i] - y[1][i]) > 1e-5 * (1 + fabs(y[1][i])))
            tfc_test_fail(__FILE__, __LINE__, "dw %d act %d add %d element %d: %.9g vs %.9g", dw, act, add, i, y[0][i],
                          y[1][i]);
        char line[64];
        snprintf(line, sizeof line, "%s=%s", fuse_acts[act] ? "act" : add == 2 ? "bias2" : "bias",
                 dw ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D");
        EXPECT_EQ(count_lines(graphs[0], line), 1);
        EXPECT_EQ(count_op(graphs[0], dw ? "DepthwiseConv2dNative" : "Conv2D"), 0);
        EXPECT_EQ(count_op(graphs[0], "AddV2") + count_op(graphs[0], "BiasAdd"), 0);
        EXPECT_EQ(count_op(graphs[1], dw ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D"), 0);
        EXPECT_EQ(count_op(graphs[1], "AddV2") + count_op(graphs[1], "BiasAdd"), add == 2 ? 2 : 1);
        free(graphs[0]);
        free(graphs[1]);
      }
}

/* A fetched bias node ends its chain: the Relu after it stays, and the fetched values are
 * the unfused graph's. */
static void leaves_a_fetched_intermediate(void) {
  float y[2][2 * 3 * 4 * 5];
  char *graphs, *off;
  run_conv_chain(OPT_DEFAULT, 0, 1, 0, 0, 1, y[0], 2 * 3 * 4 * 5, &graphs);
  run_conv_chain(OPT_REMAP_OFF, 0, 1, 0, 0, 1, y[1], 2 * 3 * 4 * 5, &off);
  for (int i = 0; i < 2 * 3 * 4 * 5; i++) EXPECT_NEAR(y[0][i], y[1][i], 1e-5 * (1 + fabs(y[1][i])));
  EXPECT_EQ(count_lines(graphs, "bias=_FusedConv2D"), 1);
  EXPECT_EQ(count_lines(graphs, "act=Relu"), 1);
  EXPECT_EQ(count_lines(off, "conv=Conv2D"), 1);
  free(off);
  free(graphs);
}

/* A zero Pad before a VALID convolution becomes its EXPLICIT padding: same values, no Pad. */
static void folds_pad_into_explicit_padding(void) {
  for (int dw = 0; dw < 2; dw++) {
    int n = 2 * 7 * 8 * (dw ? 6 : 5);
    float y[2][2 * 7 * 8 * 6];
    char *graphs[2];
    run_conv_chain(OPT_DEFAULT, dw, 2, 0, 1, 0, y[0], n, &graphs[0]);
    run_conv_chain(OPT_META_OFF, dw, 2, 0, 1, 0, y[1], n, &graphs[1]);
    for (int i = 0; i < n; i++) EXPECT_NEAR(y[0][i], y[1][i], 1e-5 * (1 + fabs(y[1][i])));
    EXPECT_EQ(count_op(graphs[0], "Pad"), 0);
    EXPECT_EQ(count_op(graphs[1], "Pad"), 1);
    free(graphs[0]);
    free(graphs[1]);
  }
}

/* The fused ops as a graph gives them (as grappler writes them): values of the unfused ops,
 * in float and double, and TF's errors for what they do not fuse. */
static TF_Output fused_node(TF_Graph *g, const char *op, TF_DataType t, TF_Output x, TF_Output w, TF_Output b,
                            const char *const *ops, int n_ops, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, op, "fused");
  TF_AddInput(d, x);
  TF_AddInput(d, w);
  TF_AddInputList(d, &b, 1);
  TF_SetAttrType(d, "T", t);
  TF_SetAttrIntList(d, "strides", (const int64_t[]){1, 1, 1, 1}, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  size_t lens[2] = {strlen(ops[0]), n_ops > 1 ? strlen(ops[1]) : 0};
  TF_SetAttrStringList(d, "fused_ops", (const void *const *)ops, lens, n_ops);
  TF_Operation *o = TF_FinishOperation(d, s);
  return (TF_Output){o, 0};
}

static void fused_ops_run_as_given(void) {
  for (int dbl = 0; dbl < 2; dbl++)
    for (int dw = 0; dw < 2; dw++) {
      TF_Graph *g = TF_NewGraph();
      TF_Status *s = TF_NewStatus();
      TF_DataType t = dbl ? TF_DOUBLE : TF_FLOAT;
      size_t es = dbl ? 8 : 4;
      unsigned seed = 3;
      double w[2 * 2 * 2 * 3], b[6], xv[1 * 3 * 3 * 2];
      float wf[24], bf[6], xf[18];
      for (int i = 0; i < 24; i++) wf[i] = frand(&seed), w[i] = wf[i];
      for (int i = 0; i < 6; i++) bf[i] = frand(&seed), b[i] = bf[i];
      for (int i = 0; i < 18; i++) xf[i] = frand(&seed), xv[i] = xf[i];
      int oc = dw ? 6 : 3;
      TF_Output x = capi_const(g, "x", t, (const int64_t[]){1, 3, 3, 2}, 4, dbl ? (void *)xv : (void *)xf, 18 * es, s);
      TF_Output wc = capi_const(g, "w", t, (const int64_t[]){2, 2, 2, 3}, 4,
                                dbl ? (void *)w : (void *)wf, 24 * es, s);
      TF_Output bc = capi_const(g, "b", t, (const int64_t[]){oc}, 1, dbl ? (void *)b : (void *)bf, (size_t)oc * es, s);
      const char *ops[2] = {"BiasAdd", "Elu"};
      const char *opname = dw ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D";
      TF_Output f = fused_node(g, opname, t, x, wc, bc, ops, 2, s);
      OK(s);
      TF_Output c = conv(g, dw ? "DepthwiseConv2dNative" : "Conv2D", "conv", x, wc, 1, "SAME");
      TF_Output ref = op1(g, "Elu", "elu", capi_op2(g, "BiasAdd", "bias", c, bc, s));
      TF_Session *sess = session(g, OPT_META_OFF);
      TF_Output fetches[2] = {f, ref};
      TF_Tensor *out[2] = {0};
      EXPECT_EQ(run(sess, NULL, NULL, fetches, 2, NULL, 0, out, NULL, NULL), TF_OK);
      int n = 9 * oc;
      EXPECT_EQ((int)TF_TensorByteSize(out[0]), n * (int)es);
      for (int i = 0; i < n; i++) {
        double a = dbl ? ((double *)TF_TensorData(out[0]))[i] : ((float *)TF_TensorData(out[0]))[i];
        double r = dbl ? ((double *)TF_TensorData(out[1]))[i] : ((float *)TF_TensorData(out[1]))[i];
        EXPECT_NEAR(a, r, (dbl ? 1e-12 : 1e-5) * (1 + fabs(r)));
      }
      TF_DeleteTensor(out[0]);
      TF_DeleteTensor(out[1]);
      close_session(sess);
      /* an activation the kernels do not fuse, and a bias of the wrong size */
      const char *bad[2] = {"BiasAdd", "Tanh"};
      TF_Graph *g2 = TF_NewGraph();
      TF_Output x2 = capi_const(g2, "x", t, (const int64_t[]){1, 3, 3, 2}, 4, dbl ? (void *)xv : (void *)xf, 18 * es, s);
      TF_Output w2 = capi_const(g2, "w", t, (const int64_t[]){2, 2, 2, 3}, 4, dbl ? (void *)w : (void *)wf, 24 * es, s);
      TF_Output b2 = capi_const(g2, "b", t, (const int64_t[]){5}, 1, dbl ? (void *)b : (void *)bf, 5 * es, s);
      TF_Output f2 = fused_node(g2, opname, t, x2, w2, b2, bad, 2, s);
      OK(s);
      sess = session(g2, OPT_META_OFF);
      char msg[512];
      EXPECT_EQ(run(sess, NULL, NULL, &f2, 1, NULL, 0, out, NULL, msg), TF_UNIMPLEMENTED);
      EXPECT_TRUE(strstr(msg, "Fusion is not implemented: [BiasAdd,Tanh]") != NULL);
      close_session(sess);
      TF_Graph *g3 = TF_NewGraph();
      x2 = capi_const(g3, "x", t, (const int64_t[]){1, 3, 3, 2}, 4, dbl ? (void *)xv : (void *)xf, 18 * es, s);
      w2 = capi_const(g3, "w", t, (const int64_t[]){2, 2, 2, 3}, 4, dbl ? (void *)w : (void *)wf, 24 * es, s);
      b2 = capi_const(g3, "b", t, (const int64_t[]){5}, 1, dbl ? (void *)b : (void *)bf, 5 * es, s);
      f2 = fused_node(g3, opname, t, x2, w2, b2, ops, 1, s);
      OK(s);
      sess = session(g3, OPT_META_OFF);
      EXPECT_EQ(run(sess, NULL, NULL, &f2, 1, NULL, 0, out, NULL, msg), TF_INVALID_ARGUMENT);
      EXPECT_TRUE(strstr(msg, "biases") != NULL);
      close_session(sess);
      TF_DeleteGraph(g);
      TF_DeleteGraph(g2);
      TF_DeleteGraph(g3);
      TF_DeleteStatus(s);
    }
}

/* ---- residual Adds and batch-1 bands ---- */

/* A conv node (op Conv2D or DepthwiseConv2dNative) with explicit geometry: k x k filter w,
 * stride, dilation, padding "SAME", "VALID" or "EXPLICIT" (pad on every side). */
static TF_Output conv_geom(TF_Graph *g, const char *op, const char *name, TF_Output x, TF_Output w, int stride,
                           int dil, const char *padding, int pad) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_AddInput(d, x);
  TF_AddInput(d, w);
  TF_SetAttrIntList(d, "strides", (const int64_t[]){1, stride, stride, 1}, 4);
  TF_SetAttrIntList(d, "dilations", (const int64_t[]){1, dil, dil, 1}, 4);
  TF_SetAttrString(d, "padding", padding, strlen(padding));
  if (strcmp(padding, "EXPLICIT") == 0)
    TF_SetAttrIntList(d, "explicit_paddings", (const int64_t[]){0, 0, pad, pad, pad, pad, 0, 0}, 8);
  return (TF_Output){capi_finish(d), 0};
}

/* x (n, 12, 10, 4) -> conv "a" (3x3, 8) -> BiasAdd -> AddV2 with r -> [Relu] -> Identity, where
 * r is a second conv chain "b" (1x1 on x, BiasAdd) or x's own 1x1 projection through Relu;
 * fetch_r also fetches r (so the Add cannot take r's buffer). Output (n*12*10*8) into y. */
/* The residual chain of fuses_a_residual_add on an n x h x w x ic input with oc channels. */
typedef struct res_dims {
  int h, w, ic, oc;
} res_dims;

static void run_residual_dims(int mode, int n, res_dims dm, int act, int r_is_conv, int fetch_r, float *y,
                              char **graphs) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  unsigned seed = 11;
  int nwa = 9 * dm.ic * dm.oc, nwb = dm.ic * dm.oc;
  float *wa = malloc(sizeof(float) * (size_t)nwa), *wb = malloc(sizeof(float) * (size_t)nwb);
  float *ba = malloc(sizeof(float) * (size_t)dm.oc), *bb = malloc(sizeof(float) * (size_t)dm.oc);
  for (int i = 0; i < nwa; i++) wa[i] = frand(&seed);
  for (int i = 0; i < nwb; i++) wb[i] = frand(&seed);
  for (int i = 0; i < dm.oc; i++) ba[i] = frand(&seed), bb[i] = frand(&seed);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", (const int64_t[]){-1, dm.h, dm.w, dm.ic}, 4); /* the residual needs static shapes */
  TF_Output x = {capi_finish(d), 0};
  TF_Output a =
      conv(g, "Conv2D", "a", x, fconst(g, "wa", (const int64_t[]){3, 3, dm.ic, dm.oc}, 4, wa, (size_t)nwa), 1, "SAME");
  a = capi_op2(g, "BiasAdd", "a_bias", a, fconst(g, "ba", (const int64_t[]){dm.oc}, 1, ba, (size_t)dm.oc), s);
  TF_Output r =
      conv(g, "Conv2D", "b", x, fconst(g, "wb", (const int64_t[]){1, 1, dm.ic, dm.oc}, 4, wb, (size_t)nwb), 1, "SAME");
  r = r_is_conv ? capi_op2(g, "BiasAdd", "b_bias", r, fconst(g, "bb", (const int64_t[]){dm.oc}, 1, bb, (size_t)dm.oc), s)
                : op1(g, "Relu", "b_relu", r);
  TF_Output sum = capi_op2(g, "AddV2", "add", a, r, s);
  if (act) sum = op1(g, "Relu", "act", sum);
  TF_Output out = op1(g, "Identity", "out", sum);
  TF_Session *sess = session(g, mode);
  int nx = n * dm.h * dm.w * dm.ic, ny = n * dm.h * dm.w * dm.oc;
  float *xv = malloc(sizeof(float) * (size_t)nx);
  for (int i = 0; i < nx; i++) xv[i] = frand(&seed);
  TF_Tensor *outs[2] = {0};
  TF_Output fetches[2] = {out, r};
  EXPECT_EQ(run(sess, &x, ftensor((const int64_t[]){n, dm.h, dm.w, dm.ic}, 4, xv, (size_t)nx), fetches, fetch_r ? 2 : 1,
                NULL, 0, outs, graphs, NULL),
            TF_OK);
  EXPECT_EQ((int)TF_TensorByteSize(outs[0]), ny * 4);
  memcpy(y, TF_TensorData(outs[0]), (size_t)ny * 4);
  for (int i = 0; i < 2; i++)
    if (outs[i]) TF_DeleteTensor(outs[i]);
  free(xv);
  free(wa);
  free(wb);
  free(ba);
  free(bb);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void run_residual(int mode, int n, int act, int r_is_conv, int fetch_r, float *y, char **graphs) {
  run_residual_dims(mode, n, (res_dims){12, 10, 4, 8}, act, r_is_conv, fetch_r, y, graphs);
}

/* conv + bias + residual Add (+ Relu) becomes one _FusedConv2D with fused_ops [BiasAdd, Add,
 * (Relu)] and num_args 2, named as the last node; when both Add inputs are conv chains, one
 * takes the Add and the other keeps its bias. Values equal the unfused graph's, whether the
 * Add's buffer is the residual's own (not fetched) or a copy (fetched), in batches of 1 and 3
 * on 4 threads (bands of rows at batch 1). */
static void fuses_a_residual_add(void) {
  intra_threads = 4;
  for (int n = 1; n <= 3; n += 2)
    for (int act = 0; act < 2; act++)
      for (int r_conv = 0; r_conv < 2; r_conv++)
        for (int fetch_r = 0; fetch_r < 2; fetch_r++) {
          int ny = n * 12 * 10 * 8;
          float *y0 = malloc(sizeof(float) * (size_t)ny), *y1 = malloc(sizeof(float) * (size_t)ny);
          char *graphs[2];
          run_residual(OPT_DEFAULT, n, act, r_conv, fetch_r, y0, &graphs[0]);
          run_residual(OPT_REMAP_OFF, n, act, r_conv, fetch_r, y1, &graphs[1]);
          for (int i = 0; i < ny; i++)
            if (fabs(y0[i] - y1[i]) > 1e-5 * (1 + fabs(y1[i])))
              tfc_test_fail(__FILE__, __LINE__, "n %d act %d r_conv %d fetch_r %d element %d: %.9g vs %.9g", n, act,
                            r_conv, fetch_r, i, y0[i], y1[i]);
          EXPECT_EQ(count_lines(graphs[0], act ? "act=_FusedConv2D" : "add=_FusedConv2D"), 1);
          EXPECT_EQ(count_op(graphs[0], "AddV2"), 0);
          EXPECT_EQ(count_op(graphs[0], "Conv2D"), r_conv ? 0 : 1); /* b without a bias stays */
          EXPECT_EQ(count_op(graphs[0], "_FusedConv2D"), r_conv ? 2 : 1);
          EXPECT_EQ(count_op(graphs[1], "AddV2"), 1);
          free(graphs[0]);
          free(graphs[1]);
          free(y0);
          free(y1);
        }
  intra_threads = 0;
}

/* A filter far larger than its activations (5x4x128 -> 96 channels at batch 1): the convolution
 * runs in slices of output channels, each with its slice of the filter, bias and addend; the
 * fused values equal the unfused graph's, with the Add's buffer forwarded or copied. */
static void fuses_a_residual_add_in_channel_slices(void) {
  intra_threads = 2;
  res_dims dm = {5, 4, 128, 96};
  int ny = dm.h * dm.w * dm.oc;
  for (int act = 0; act < 2; act++)
    for (int fetch_r = 0; fetch_r < 2; fetch_r++) {
      float *y0 = malloc(sizeof(float) * (size_t)ny), *y1 = malloc(sizeof(float) * (size_t)ny);
      char *graphs[2];
      run_residual_dims(OPT_DEFAULT, 1, dm, act, 1, fetch_r, y0, &graphs[0]);
      run_residual_dims(OPT_REMAP_OFF, 1, dm, act, 1, fetch_r, y1, &graphs[1]);
      /* 1152-term sums of terms near 1 in two orders (the unfused graph's BiasAdd and AddV2
       * come after the sum; under valgrind oneDNN runs its AVX2 kernels) */
      for (int i = 0; i < ny; i++)
        if (fabs(y0[i] - y1[i]) > 1e-4 * (1 + fabs(y1[i])))
          tfc_test_fail(__FILE__, __LINE__, "act %d fetch_r %d element %d: %.9g vs %.9g", act, fetch_r, i, y0[i], y1[i]);
      EXPECT_EQ(count_op(graphs[0], "_FusedConv2D"), 2);
      free(graphs[0]);
      free(graphs[1]);
      free(y0);
      free(y1);
    }
  intra_threads = 0;
}

/* Batch-1 convolutions and depthwise convolutions on 4 threads (cut into bands of output rows
 * when the work pays for it) against the same op in double (plain C, one piece): strides,
 * dilations, SAME, VALID and EXPLICIT padding, odd sizes, and padding wider than a band (which
 * falls back to one piece). oc is the depthwise multiplier there. */
static void batch1_bands_match_double(void) {
  static const struct {
    int h, w, ic, oc, k, stride, dil, pad;
    const char *padding;
    int dw;
  } cases[] = {
      {40, 33, 32, 32, 3, 1, 1, 0, "SAME", 0},   {41, 40, 32, 48, 3, 2, 1, 0, "SAME", 0},
      {45, 38, 16, 64, 7, 2, 1, 3, "EXPLICIT", 0}, {37, 30, 32, 32, 3, 1, 2, 0, "SAME", 0},
      {40, 40, 64, 96, 1, 1, 1, 0, "VALID", 0},  {39, 31, 32, 40, 5, 1, 1, 0, "VALID", 0},
      {4, 4, 96, 96, 3, 1, 1, 8, "EXPLICIT", 0},
      {112, 112, 96, 1, 3, 1, 1, 0, "SAME", 1}, {113, 111, 144, 1, 3, 2, 1, 0, "SAME", 1},
      {56, 57, 64, 2, 5, 1, 2, 0, "SAME", 1},   {60, 60, 64, 1, 3, 1, 1, 2, "EXPLICIT", 1},
      /* 1x1 at stride 1: bands of pixels (25 + 24 of a 7x7 output, not whole rows) */
      {7, 7, 160, 960, 1, 1, 1, 0, "VALID", 0}, {9, 5, 64, 200, 1, 1, 1, 0, "SAME", 0},
      {14, 14, 576, 1, 3, 1, 1, 0, "SAME", 1}, /* a small depthwise layer, split for its bytes */
      /* filters larger than their activations: slices of output channels (the last of 40
       * narrower than a 16-channel block) */
      {7, 7, 128, 256, 3, 1, 1, 0, "SAME", 0}, {7, 7, 256, 40, 3, 1, 1, 0, "SAME", 0},
      {7, 7, 256, 512, 1, 1, 1, 0, "VALID", 0},
  };
  intra_threads = 4;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    unsigned seed = 5 + (unsigned)c;
    int nx = cases[c].h * cases[c].w * cases[c].ic, nw = cases[c].k * cases[c].k * cases[c].ic * cases[c].oc;
    float *xv = malloc(sizeof(float) * (size_t)nx), *wv = malloc(sizeof(float) * (size_t)nw);
    for (int i = 0; i < nx; i++) xv[i] = frand(&seed);
    for (int i = 0; i < nw; i++) wv[i] = frand(&seed);
    TF_Output x = fconst(g, "x", (const int64_t[]){1, cases[c].h, cases[c].w, cases[c].ic}, 4, xv, (size_t)nx);
    TF_Output w = fconst(g, "w", (const int64_t[]){cases[c].k, cases[c].k, cases[c].ic, cases[c].oc}, 4, wv, (size_t)nw);
    const char *op = cases[c].dw ? "DepthwiseConv2dNative" : "Conv2D";
    TF_Output y = conv_geom(g, op, "y", x, w, cases[c].stride, cases[c].dil, cases[c].padding, cases[c].pad);
    TF_OperationDescription *d = TF_NewOperation(g, "Cast", "xd");
    TF_AddInput(d, x);
    TF_SetAttrType(d, "DstT", TF_DOUBLE);
    TF_Output xd = {capi_finish(d), 0};
    d = TF_NewOperation(g, "Cast", "wd");
    TF_AddInput(d, w);
    TF_SetAttrType(d, "DstT", TF_DOUBLE);
    TF_Output wd = {capi_finish(d), 0};
    TF_Output yd = conv_geom(g, op, "yd", xd, wd, cases[c].stride, cases[c].dil, cases[c].padding, cases[c].pad);
    TF_Session *sess = session(g, OPT_META_OFF);
    TF_Output fetches[2] = {y, yd};
    TF_Tensor *out[2] = {0};
    EXPECT_EQ(run(sess, NULL, NULL, fetches, 2, NULL, 0, out, NULL, NULL), TF_OK);
    size_t n = TF_TensorByteSize(out[0]) / 4;
    EXPECT_EQ((long long)n, (long long)(TF_TensorByteSize(out[1]) / 8));
    const float *yf = TF_TensorData(out[0]);
    const double *ydv = TF_TensorData(out[1]);
    for (size_t i = 0; i < n; i++)
      if (fabs(yf[i] - ydv[i]) > 1e-4 * (1 + fabs(ydv[i])))
        tfc_test_fail(__FILE__, __LINE__, "case %zu element %zu: %.9g vs %.9g", c, i, yf[i], ydv[i]);
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
    free(xv);
    free(wv);
  }
  intra_threads = 0;
}

/* A _FusedConv2D with Add as a graph gives it: an addend of another shape is INVALID_ARGUMENT
 * naming the node, num_args other than 2 is TF's kind of error, and the depthwise op does
 * not fuse an Add. */
static void fused_add_errors(void) {
  for (int k = 0; k < 3; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    float xv[1 * 3 * 3 * 2] = {0}, wv[2 * 2 * 2 * 3] = {0}, bv[6] = {0}, av[1 * 3 * 3 * 6] = {0};
    TF_Output x = fconst(g, "x", (const int64_t[]){1, 3, 3, 2}, 4, xv, 18);
    TF_Output w = fconst(g, "w", (const int64_t[]){2, 2, 2, 3}, 4, wv, 24);
    TF_Output args[2] = {fconst(g, "b", (const int64_t[]){k == 2 ? 6 : 3}, 1, bv, k == 2 ? 6 : 3),
                         fconst(g, "addend", (const int64_t[]){1, 3, k == 0 ? 2 : 3, 3}, 4, av, k == 0 ? 18 : 27)};
    TF_OperationDescription *d = TF_NewOperation(g, k == 2 ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D", "fused");
    TF_AddInput(d, x);
    TF_AddInput(d, w);
    TF_AddInputList(d, args, k == 1 ? 1 : 2);
    TF_SetAttrType(d, "T", TF_FLOAT);
    TF_SetAttrIntList(d, "strides", (const int64_t[]){1, 1, 1, 1}, 4);
    TF_SetAttrString(d, "padding", "SAME", 4);
    const char *ops[3] = {"BiasAdd", "Add", "Relu"};
    size_t lens[3] = {7, 3, 4};
    TF_SetAttrStringList(d, "fused_ops", (const void *const *)ops, lens, 3);
    TF_Output f = {TF_FinishOperation(d, s), 0};
    OK(s);
    TF_Session *sess = session(g, OPT_META_OFF);
    TF_Tensor *out = NULL;
    char msg[512];
    int code = run(sess, NULL, NULL, &f, 1, NULL, 0, &out, NULL, msg);
    if (k == 0) {
      EXPECT_EQ(code, TF_INVALID_ARGUMENT);
      EXPECT_TRUE(strstr(msg, "fused") && strstr(msg, "[1,3,3,3]") && strstr(msg, "[1,3,2,3]"));
    } else if (k == 1) {
      EXPECT_EQ(code, TF_INVALID_ARGUMENT);
      EXPECT_TRUE(strstr(msg, "two extra arguments") != NULL);
    } else {
      EXPECT_EQ(code, TF_UNIMPLEMENTED);
      EXPECT_TRUE(strstr(msg, "Fusion is not implemented: [BiasAdd,Add,Relu]") != NULL);
    }
    if (out) TF_DeleteTensor(out);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
}

/* x [3, 5] -> MatMul (W [5, 4], or [4, 5] with transpose_b) -> BiasAdd -> activation act ->
 * Identity, run with `mode`: the output (12 floats) into y, the partition graphs into *graphs. */
static void run_matmul_chain(int mode, int act, int tb, float *y, char **graphs) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  unsigned seed = 9;
  float w[20], b[4], xv[15];
  for (int i = 0; i < 20; i++) w[i] = frand(&seed);
  for (int i = 0; i < 4; i++) b[i] = frand(&seed);
  for (int i = 0; i < 15; i++) xv[i] = 2 * frand(&seed);
  TF_Output x = placeholder(g, "x");
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "mm");
  TF_AddInput(d, x);
  TF_AddInput(d, fconst(g, "w", tb ? (const int64_t[]){4, 5} : (const int64_t[]){5, 4}, 2, w, 20));
  TF_SetAttrBool(d, "transpose_b", (unsigned char)tb);
  TF_Output mm = {capi_finish(d), 0};
  TF_Output yb = capi_op2(g, "BiasAdd", "bias", mm, fconst(g, "b", (const int64_t[]){4}, 1, b, 4), s);
  if (fuse_acts[act]) {
    d = TF_NewOperation(g, fuse_acts[act], "act");
    TF_AddInput(d, yb);
    if (strcmp(fuse_acts[act], "LeakyRelu") == 0) TF_SetAttrFloat(d, "alpha", 0.3f);
    yb = (TF_Output){capi_finish(d), 0};
  }
  TF_Output out = op1(g, "Identity", "out", yb);
  TF_Session *sess = session(g, mode);
  TF_Tensor *o = NULL;
  EXPECT_EQ(run(sess, &x, ftensor((const int64_t[]){3, 5}, 2, xv, 15), &out, 1, NULL, 0, &o, graphs, NULL), TF_OK);
  EXPECT_EQ((int)TF_TensorByteSize(o), 48);
  memcpy(y, TF_TensorData(o), 48);
  TF_DeleteTensor(o);
  close_session(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* MatMul + BiasAdd + each activation becomes one _FusedMatMul named as the last node, with the
 * unfused graph's values; a _FusedMatMul as a graph gives it refuses other fusions and a bias
 * of the wrong size with TF's kinds of error. */
static void fuses_matmul_bias_and_activation(void) {
  for (int act = 0; act < 5; act++)
    for (int tb = 0; tb < 2; tb++) {
      float y[2][12];
      char *graphs[2];
      run_matmul_chain(OPT_DEFAULT, act, tb, y[0], &graphs[0]);
      run_matmul_chain(OPT_REMAP_OFF, act, tb, y[1], &graphs[1]);
      for (int i = 0; i < 12; i++) EXPECT_NEAR(y[0][i], y[1][i], 1e-5 * (1 + fabs(y[1][i])));
      EXPECT_EQ(count_lines(graphs[0], fuse_acts[act] ? "act=_FusedMatMul" : "bias=_FusedMatMul"), 1);
      EXPECT_EQ(count_op(graphs[0], "MatMul") + count_op(graphs[0], "BiasAdd"), 0);
      EXPECT_EQ(count_op(graphs[1], "_FusedMatMul"), 0);
      free(graphs[0]);
      free(graphs[1]);
    }
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    float xv[6] = {1, 2, 3, 4, 5, 6}, wv[6] = {1, 0, 0, 1, 1, 1}, bv[3] = {0};
    TF_Output x = fconst(g, "x", (const int64_t[]){2, 3}, 2, xv, 6), w = fconst(g, "w", (const int64_t[]){3, 2}, 2, wv, 6);
    TF_Output bias = fconst(g, "b", (const int64_t[]){k ? 3 : 2}, 1, bv, k ? 3 : 2);
    TF_OperationDescription *d = TF_NewOperation(g, "_FusedMatMul", "fused");
    TF_AddInput(d, x);
    TF_AddInput(d, w);
    TF_AddInputList(d, &bias, 1);
    const char *ops[2] = {"BiasAdd", k ? "Relu" : "Tanh"};
    size_t lens[2] = {7, 4};
    TF_SetAttrStringList(d, "fused_ops", (const void *const *)ops, lens, 2);
    TF_Output f = {TF_FinishOperation(d, s), 0};
    OK(s);
    TF_Session *sess = session(g, OPT_META_OFF);
    TF_Tensor *out = NULL;
    char msg[512];
    int code = run(sess, NULL, NULL, &f, 1, NULL, 0, &out, NULL, msg);
    EXPECT_EQ(code, k ? TF_INVALID_ARGUMENT : TF_UNIMPLEMENTED);
    EXPECT_TRUE(strstr(msg, k ? "biases" : "Fusion is not implemented: [BiasAdd,Tanh]") != NULL);
    if (out) TF_DeleteTensor(out);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
}

/* ---- a frozen Keras model made by TensorFlow ---- */

static void *read_file(const char *name, size_t *len);

/* A graph TensorFlow's grappler remapper wrote (gen_fused_conv.py: _FusedConv2D with Relu and
 * LeakyRelu, _FusedDepthwiseConv2dNative with Relu6 after a Pad) imports and runs with
 * TensorFlow's outputs, optimized (the Pad folds) or not. */
static void grappler_fused_graph_matches_tensorflow(void) {
  size_t pb_len, in_len, out_len;
  void *pb = read_file("fused_conv.pb", &pb_len), *in = read_file("fused_conv.in", &in_len);
  float *want = read_file("fused_conv.out", &out_len);
  EXPECT_EQ((int)in_len, 2 * 8 * 8 * 3 * 4);
  EXPECT_EQ((int)out_len, 2 * 8 * 8 * 5 * 4);
  for (int mode = 0; mode < 2; mode++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TF_Buffer *buf = TF_NewBufferFromString(pb, pb_len);
    TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
    TF_GraphImportGraphDef(g, buf, io, s);
    OK(s);
    TF_DeleteImportGraphDefOptions(io);
    TF_DeleteBuffer(buf);
    TF_Output x = {TF_GraphOperationByName(g, "x"), 0}, y = {TF_GraphOperationByName(g, "out"), 0};
    EXPECT_TRUE(x.oper && y.oper);
    TF_Session *sess = session(g, mode == 0 ? OPT_DEFAULT : OPT_META_OFF);
    TF_Tensor *xt = ftensor((const int64_t[]){2, 8, 8, 3}, 4, in, in_len / 4), *out = NULL;
    char *graphs;
    EXPECT_EQ(run(sess, &x, xt, &y, 1, NULL, 0, &out, &graphs, NULL), TF_OK);
    const float *got = TF_TensorData(out);
    int n = (int)(out_len / 4);
    for (int i = 0; i < n; i++)
      if (fabs(got[i] - want[i]) > 1e-4 * (1 + fabs(want[i])))
        tfc_test_fail(__FILE__, __LINE__, "mode %d element %d: %.9g, TensorFlow %.9g", mode, i, got[i], want[i]);
    EXPECT_EQ(count_op(graphs, "_FusedConv2D"), 2);
    EXPECT_EQ(count_op(graphs, "_FusedDepthwiseConv2dNative"), 1);
    EXPECT_EQ(count_op(graphs, "Pad"), (mode == 0 ? 0 : 1));
    free(graphs);
    TF_DeleteTensor(out);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
  free(pb);
  free(in);
  free(want);
}


static void *read_file(const char *name, size_t *len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TFC_FIXTURE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) tfc_test_fail(__FILE__, __LINE__, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (fread(b, 1, (size_t)n, f) != (size_t)n) tfc_test_fail(__FILE__, __LINE__, "short read of %s", path);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void frozen_keras_cnn_matches_tensorflow(void) {
  size_t pb_len, in_len, out_len;
  void *pb = read_file("optimize_cnn.pb", &pb_len), *in = read_file("optimize_cnn.in", &in_len);
  float *want = read_file("optimize_cnn.out", &out_len);
  EXPECT_EQ((int)in_len, 2 * 12 * 12 * 3 * 4);
  EXPECT_EQ((int)out_len, 2 * 10 * 4);
  for (int mode = 0; mode < 2; mode++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TF_Buffer *buf = TF_NewBufferFromString(pb, pb_len);
    TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
    TF_GraphImportGraphDef(g, buf, io, s);
    OK(s);
    TF_DeleteImportGraphDefOptions(io);
    TF_DeleteBuffer(buf);
    TF_Output x = {TF_GraphOperationByName(g, "x"), 0}, y = {TF_GraphOperationByName(g, "Identity"), 0};
    EXPECT_TRUE(x.oper && y.oper);
    TF_Session *sess = session(g, mode == 0 ? OPT_DEFAULT : OPT_META_OFF);
    TF_Tensor *xt = ftensor((const int64_t[]){2, 12, 12, 3}, 4, in, in_len / 4), *out = NULL;
    char *graphs;
    EXPECT_EQ(run(sess, &x, xt, &y, 1, NULL, 0, &out, &graphs, NULL), TF_OK);
    const float *got = TF_TensorData(out);
    double mag = 0;
    for (int i = 0; i < 20; i++) mag = fmax(mag, fabs(want[i]));
    for (int i = 0; i < 20; i++)
      if (fabs(got[i] - want[i]) > 1e-5 * mag)
        tfc_test_fail(__FILE__, __LINE__, "mode %d element %d: %.9g, TensorFlow %.9g", mode, i, got[i], want[i]);
    /* optimized: no batch-norm arithmetic left but the offsets' adds */
    if (mode == 0) {
      EXPECT_EQ(count_op(graphs, "Rsqrt"), 0);
      EXPECT_EQ(count_op(graphs, "Sub"), 0);
      EXPECT_EQ(count_op(graphs, "Mul"), 0);
    } else {
      EXPECT_EQ(count_op(graphs, "Rsqrt"), 4);
    }
    free(graphs);
    TF_DeleteTensor(out);
    close_session(sess);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
  }
  free(pb);
  free(in);
  free(want);
}

static const tfc_test tests[] = {
    TFC_TEST(turns_values_only_waited_for_into_noops),
    TFC_TEST(keeps_checks_waited_for),
    TFC_TEST(folds_a_constant_subgraph_into_a_const_with_its_name),
    TFC_TEST(keeps_a_fetched_node),
    TFC_TEST(drops_consts_that_only_feed_control_edges),
    TFC_TEST(options_switch_folding_off),
    TFC_TEST(keeps_a_target_and_a_fed_input),
    TFC_TEST(a_failing_constant_subgraph_fails_at_run_time_as_before),
    TFC_TEST(folds_scales_into_conv_depthwise_and_matmul_weights),
    TFC_TEST(leaves_fetched_or_shared_products),
    TFC_TEST(frozen_keras_cnn_matches_tensorflow),
    TFC_TEST(fuses_conv_bias_and_activation),
    TFC_TEST(leaves_a_fetched_intermediate),
    TFC_TEST(folds_pad_into_explicit_padding),
    TFC_TEST(fused_ops_run_as_given),
    TFC_TEST(grappler_fused_graph_matches_tensorflow),
    TFC_TEST(fuses_a_residual_add),
    TFC_TEST(fuses_a_residual_add_in_channel_slices),
    TFC_TEST(batch1_bands_match_double),
    TFC_TEST(fused_add_errors),
    TFC_TEST(fuses_matmul_bias_and_activation),
    TFC_TEST(max_pool_grad_reads_the_pools_workspace),
    {0}};

/* With TFC_GRAPH_REWRITES=0 (a whole suite run without the optimizer) there is nothing here to
 * check: one skipped test says so. */
static void needs_the_optimizer(void) { tfc_test_skip("TFC_GRAPH_REWRITES=0 switches off what these tests check"); }
static const tfc_test without_rewrites[] = {TFC_TEST(needs_the_optimizer), {0}};

int main(int argc, char **argv) {
  const char *rw = getenv("TFC_GRAPH_REWRITES");
  return tfc_test_main(argc, argv, rw && strcmp(rw, "0") == 0 ? without_rewrites : tests);
}
