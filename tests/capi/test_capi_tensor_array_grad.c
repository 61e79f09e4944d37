/*
 * Gradients of the TensorArray V3 ops (src/grad/grad_tensor_array.c) from C: scatter/gather,
 * split/concat and write/read outside loops through TF_AddGradients, and a dynamic_rnn-like
 * loop built with TFC_WhileLoop (an input array read per step, an output array written per
 * step, the flows and the state as loop variables) through TFC_Gradients, checked against
 * the analytic values and central differences. Also the gradient nodes' names and `source`
 * (TF Python's), the gradient arrays being shared by every TensorArrayGradV3 of one
 * gradient computation, and the error for a prefix without "gradients".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "cf_ops.h"

static TF_Output vec_placeholder(TF_Graph *g, const char *name, int64_t n, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", &n, 1);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  OK(s);
  return o;
}

static TF_Output i32_vec(TF_Graph *g, const char *name, const int32_t *v, int64_t n, TF_Status *s) {
  return capi_const(g, name, TF_INT32, &n, 1, v, sizeof *v * (size_t)n, s);
}

/* An op named `name` with the inputs in order (one per arg) and an optional type attr. */
static TF_Operation *node(TF_Graph *g, const char *type, const char *name, const TF_Output *in, int n,
                          const char *type_attr, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  if (type_attr) TF_SetAttrType(d, type_attr, TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return op;
}

/* TensorArrayV3(size) named `name` (float, dynamic_size false). */
static TF_Operation *ta_array(TF_Graph *g, const char *name, int size, TF_Status *s) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s_size", name);
  TF_Output sz = capi_const(g, buf, TF_INT32, NULL, 0, &size, sizeof size, s);
  return node(g, "TensorArrayV3", name, &sz, 1, "dtype", s);
}

/* Runs g with x fed (n floats) and fetches n_out float tensors of cap floats each into out. */
static void run(TF_Graph *g, TF_Output x, const float *xv, int64_t n, const TF_Output *fetch, int n_out, float *out,
                int cap) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *feed = TF_AllocateTensor(TF_FLOAT, &n, 1, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(feed), xv, sizeof(float) * (size_t)n);
  TF_Tensor *outs[4] = {NULL};
  TF_SessionRun(sess, NULL, &x, &feed, 1, fetch, outs, n_out, NULL, 0, NULL, s);
  OK(s);
  for (int i = 0; i < n_out; i++) {
    size_t k = TF_TensorByteSize(outs[i]) / sizeof(float);
    EXPECT_TRUE((int)k <= cap);
    memcpy(out + i * cap, TF_TensorData(outs[i]), sizeof(float) * k);
    TF_DeleteTensor(outs[i]);
  }
  TF_DeleteTensor(feed);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
}

/* y = sum(gather(scatter(x, [2, 0, 1]), [0, 2]) * 3): dy/dx = 3 where x's row went to 0 or 2
 * (x[1] -> index 0, x[0] -> index 2), 0 for x[2] (index 1, not gathered). */
static void scatter_gather_gradient(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = vec_placeholder(g, "x", 3, s);
  TF_Operation *ta = ta_array(g, "ta", 3, s);
  int32_t perm[3] = {2, 0, 1}, pick[2] = {0, 2};
  TF_Output sc_in[4] = {{ta, 0}, i32_vec(g, "perm", perm, 3, s), x, {ta, 1}};
  TF_Operation *sc = node(g, "TensorArrayScatterV3", "scatter", sc_in, 4, NULL, s);
  TF_Output ga_in[3] = {{ta, 0}, i32_vec(g, "pick", pick, 2, s), {sc, 0}};
  TF_Operation *ga = node(g, "TensorArrayGatherV3", "gather", ga_in, 3, "dtype", s);
  float three = 3;
  TF_Output m = capi_op2(g, "Mul", "mul", (TF_Output){ga, 0}, capi_const(g, "three", TF_FLOAT, NULL, 0, &three, 4, s), s);
  TF_Output dx;
  TF_AddGradients(g, &m, 1, &x, 1, NULL, s, &dx);
  OK(s);
  /* The nodes and the gradient arrays' source, as TF Python names them. */
  TF_Operation *gg = TF_GraphOperationByName(g, "gradients/gather_grad/TensorArrayGrad/TensorArrayGradV3");
  EXPECT_TRUE(gg != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/gather_grad/TensorArrayGrad/gradient_flow") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/gather_grad/TensorArrayScatter/TensorArrayScatterV3") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/scatter_grad/write_barrier") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/scatter_grad/TensorArrayGatherV3") != NULL);
  char src[32] = {0};
  TF_OperationGetAttrString(gg, "source", src, sizeof src - 1, s);
  OK(s);
  EXPECT_STREQ(src, "gradients");
  float xv[3] = {0.5f, -1, 2}, out[3];
  run(g, x, xv, 3, &dx, 1, out, 3);
  EXPECT_NEAR(out[0], 3, 1e-6);
  EXPECT_NEAR(out[1], 3, 1e-6);
  EXPECT_NEAR(out[2], 0, 1e-6);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* y = concat(split(x, [3, 2]))^2 summed: dy/dx = 2x; and write/read: y = read(write(x, 1), 1) * x. */
static void split_concat_and_write_read_gradients(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = vec_placeholder(g, "x", 5, s);
  TF_Operation *ta = ta_array(g, "ta", 2, s);
  int64_t lens[2] = {3, 2}, two = 2;
  TF_Output sp_in[4] = {{ta, 0}, x, capi_const(g, "lens", TF_INT64, &two, 1, lens, sizeof lens, s), {ta, 1}};
  TF_Operation *sp = node(g, "TensorArraySplitV3", "split", sp_in, 4, NULL, s);
  TF_Output cc_in[2] = {{ta, 0}, {sp, 0}};
  TF_Operation *cc = node(g, "TensorArrayConcatV3", "concat", cc_in, 2, "dtype", s);
  TF_Output sq = capi_op2(g, "Mul", "sq", (TF_Output){cc, 0}, (TF_Output){cc, 0}, s);
  TF_Operation *tb = ta_array(g, "tb", 2, s);
  int one = 1;
  TF_Output idx = capi_const(g, "one", TF_INT32, NULL, 0, &one, sizeof one, s);
  TF_Output wr_in[4] = {{tb, 0}, idx, x, {tb, 1}};
  TF_Operation *wr = node(g, "TensorArrayWriteV3", "write", wr_in, 4, NULL, s);
  TF_Output rd_in[3] = {{tb, 0}, idx, {wr, 0}};
  TF_Operation *rd = node(g, "TensorArrayReadV3", "read", rd_in, 3, "dtype", s);
  TF_Output prod = capi_op2(g, "Mul", "prod", (TF_Output){rd, 0}, x, s);
  TF_Output ys[2] = {sq, prod}, dx;
  TF_AddGradients(g, ys, 2, &x, 1, NULL, s, &dx);
  OK(s);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/concat_grad/TensorArraySplit/TensorArraySplitV3") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/split_grad/TensorArrayConcatV3") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/read_grad/TensorArrayWrite/TensorArrayWriteV3") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "gradients/write_grad/TensorArrayReadV3") != NULL);
  float xv[5] = {1, -2, 0.5f, 3, -0.25f}, out[5];
  run(g, x, xv, 5, &dx, 1, out, 5);
  /* d/dx (x^2 + x * x) = 4x */
  for (int i = 0; i < 5; i++) EXPECT_NEAR(out[i], 4 * xv[i], 1e-5);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---- a dynamic_rnn-like loop ---- */

typedef struct rnn {
  TF_Operation *in_ta, *out_ta;
  TF_Output in_flow, w, scalar; /* scalar: the shape [] (the read's value is a scalar, as
                                   Python's set_shape would say) */
} rnn;

static void rnn_cond(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *out, TF_Status *s) {
  (void)arg;
  *out = cf_op(sc, "Less", "Less", vars[0], 0, (TF_Output){NULL, 0}, 3, s);
}

/* vars: t, the output array's flow, h. v = in[t]; h = tanh(v * w + h); out[t] = h * h. */
static void rnn_body(const TFC_Scope *sc, void *arg, const TF_Output *vars, TF_Output *outs, TF_Status *s) {
  rnn *r = arg;
  TF_Graph *g = TFC_ScopeGraph(sc);
  TF_Output rd_in[3] = {TFC_Capture(sc, (TF_Output){r->in_ta, 0}, "TensorArrayReadV3", s), vars[0],
                        TFC_Capture(sc, r->in_flow, "TensorArrayReadV3", s)};
  TFC_Scope *sub = TFC_NewSubScope(sc, "TensorArrayReadV3");
  TF_Output v = {node(g, "TensorArrayReadV3", TFC_ScopeName(sub), rd_in, 3, "dtype", s), 0};
  TFC_DeleteScope(sub);
  v = cf_op(sc, "Reshape", "Reshape", v, 0, r->scalar, 0, s);
  TF_Output m = cf_op(sc, "Mul", "mul", v, 0, r->w, 0, s);
  TF_Output a = cf_op(sc, "AddV2", "add", m, 0, vars[2], 0, s);
  TF_Output h = cf_op(sc, "Tanh", "Tanh", a, 1, (TF_Output){NULL, 0}, 0, s);
  TF_Output hh = cf_op(sc, "Mul", "mul_1", h, 0, h, 0, s);
  TF_Output wr_in[4] = {TFC_Capture(sc, (TF_Output){r->out_ta, 0}, "TensorArrayWrite/TensorArrayWriteV3", s),
                        vars[0], hh, vars[1]};
  sub = TFC_NewSubScope(sc, "TensorArrayWrite/TensorArrayWriteV3");
  outs[1] = (TF_Output){node(g, "TensorArrayWriteV3", TFC_ScopeName(sub), wr_in, 4, NULL, s), 0};
  TFC_DeleteScope(sub);
  outs[0] = cf_op(sc, "AddV2", "add_1", vars[0], 0, (TF_Output){NULL, 0}, 1, s);
  outs[2] = h;
}

/* The loss sum(stack(out)) + h_final for x (3 floats) and w, and its gradients. */
static void build_rnn(TF_Graph *g, TF_Output *loss, TF_Output *grads, TF_Output *x, TF_Status *s) {
  TFC_Scope *root = TFC_NewRootScope(g);
  *x = vec_placeholder(g, "x", 3, s);
  rnn r;
  r.w = cf_placeholder(g, "w", TF_FLOAT, s);
  int64_t zero_len = 0;
  int32_t none[1] = {0};
  r.scalar = capi_const(g, "scalar_shape", TF_INT32, &zero_len, 1, none, 0, s);
  r.in_ta = ta_array(g, "TensorArray", 3, s);
  r.out_ta = ta_array(g, "TensorArray_1", 3, s);
  int32_t ix[3] = {0, 1, 2};
  TF_Output idx = i32_vec(g, "range", ix, 3, s);
  TF_Output sc_in[4] = {{r.in_ta, 0}, idx, *x, {r.in_ta, 1}};
  r.in_flow = (TF_Output){node(g, "TensorArrayScatterV3", "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3",
                               sc_in, 4, NULL, s),
                          0};
  TF_Output vars[3] = {cf_constant(root, "Const", TF_INT32, 0, s), {r.out_ta, 1}, cf_constant(root, "zeros", TF_FLOAT, 0, s)};
  TF_Output exits[3];
  TFC_WhileLoop(root, rnn_cond, rnn_body, &r, vars, 3, NULL, NULL, exits, s);
  OK(s);
  TF_Output ga_in[3] = {{r.out_ta, 0}, idx, exits[1]};
  TF_Output st = {node(g, "TensorArrayGatherV3", "TensorArrayStack/TensorArrayGatherV3", ga_in, 3, "dtype", s), 0};
  int32_t zero = 0;
  TF_Output axes = capi_const(g, "axes", TF_INT32, NULL, 0, &zero, sizeof zero, s);
  TF_Output sum = capi_op2(g, "Sum", "Sum", st, axes, s);
  *loss = capi_op2(g, "AddV2", "loss", sum, exits[2], s);
  TF_Output xs[2] = {*x, r.w};
  TFC_Gradients(root, loss, 1, xs, 2, NULL, 0, grads, s);
  OK(s);
  TFC_DeleteScope(root);
}

/* Runs the loop graph for x and w: loss, dloss/dx (3), dloss/dw. */
static void run_rnn(TF_Graph *g, TF_Output loss, const TF_Output *grads, TF_Output x, const float *xv, float wv,
                    float *out) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t n = 3;
  TF_Tensor *fx = TF_AllocateTensor(TF_FLOAT, &n, 1, 12), *fw = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  memcpy(TF_TensorData(fx), xv, 12);
  *(float *)TF_TensorData(fw) = wv;
  TF_Output feeds[2] = {x, {TF_GraphOperationByName(g, "w"), 0}};
  TF_Tensor *fv[2] = {fx, fw}, *outs[3] = {NULL};
  TF_Output fetch[3] = {loss, grads[0], grads[1]};
  TF_SessionRun(sess, NULL, feeds, fv, 2, fetch, outs, 3, NULL, 0, NULL, s);
  OK(s);
  out[0] = *(float *)TF_TensorData(outs[0]);
  memcpy(out + 1, TF_TensorData(outs[1]), 12);
  out[4] = *(float *)TF_TensorData(outs[2]);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(outs[i]);
  TF_DeleteTensor(fx);
  TF_DeleteTensor(fw);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
}

static void loop_over_tensor_arrays_gradient(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output loss, grads[2], x;
  build_rnn(g, &loss, grads, &x, s);
  /* One gradient array per forward array: every TensorArrayGradV3 has source "gradients". */
  size_t pos = 0;
  TF_Operation *op;
  int n_grad_ta = 0;
  while ((op = TF_GraphNextOperation(g, &pos)) != NULL) {
    if (strcmp(TF_OperationOpType(op), "TensorArrayGradV3") != 0) continue;
    char src[32] = {0};
    TF_OperationGetAttrString(op, "source", src, sizeof src - 1, s);
    OK(s);
    EXPECT_STREQ(src, "gradients");
    n_grad_ta++;
  }
  EXPECT_EQ(n_grad_ta, 4); /* stack's and unstack's outside, write's and read's in the loop */
  float xv[3] = {0.3f, -0.8f, 1.1f}, wv = 0.7f, got[5];
  run_rnn(g, loss, grads, x, xv, wv, got);
  /* The forward value by hand, the gradients against central differences. */
  double h = 0, want = 0;
  for (int t = 0; t < 3; t++) {
    h = tanh(xv[t] * wv + h);
    want += h * h;
  }
  EXPECT_NEAR(got[0], want + h, 1e-5);
  const float eps = 1e-3f;
  for (int i = 0; i < 4; i++) {
    float xp[3], xm[3], lp[5], lm[5];
    memcpy(xp, xv, sizeof xp);
    memcpy(xm, xv, sizeof xm);
    float wp = wv, wm = wv;
    if (i < 3) xp[i] += eps, xm[i] -= eps;
    else wp += eps, wm -= eps;
    run_rnn(g, loss, grads, x, xp, wp, lp);
    run_rnn(g, loss, grads, x, xm, wm, lm);
    EXPECT_NEAR(got[1 + i], (lp[0] - lm[0]) / (2 * eps), 2e-3);
  }
  EXPECT_TRUE(fabsf(got[4]) > 1e-3f); /* w's gradient accumulates over the trips */
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TF Python's _GetGradSource: a gradient computation whose names hold no "gradients"
 * component cannot name its gradient arrays. */
static void prefix_without_gradients_is_refused(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = vec_placeholder(g, "x", 2, s);
  TF_Operation *ta = ta_array(g, "ta", 2, s);
  int32_t ix[2] = {0, 1};
  TF_Output idx = i32_vec(g, "ix", ix, 2, s);
  TF_Output sc_in[4] = {{ta, 0}, idx, x, {ta, 1}};
  TF_Operation *sc = node(g, "TensorArrayScatterV3", "scatter", sc_in, 4, NULL, s);
  TF_Output ga_in[3] = {{ta, 0}, idx, {sc, 0}};
  TF_Output y = {node(g, "TensorArrayGatherV3", "gather", ga_in, 3, "dtype", s), 0};
  int before = capi_num_ops(g);
  TF_Output dx;
  TF_AddGradientsWithPrefix(g, "mine", &y, 1, &x, 1, NULL, s, &dx);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "Expected op/tensor name to start with gradients (excluding scope), got: mine/") !=
              NULL);
  EXPECT_EQ(capi_num_ops(g), before);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(scatter_gather_gradient),
    TFC_TEST(split_concat_and_write_read_gradients),
    TFC_TEST(loop_over_tensor_arrays_gradient),
    TFC_TEST(prefix_without_gradients_is_refused),
    {0},
};

TFC_TEST_MAIN(tests)
