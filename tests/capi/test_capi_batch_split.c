/* C API tests: a batch run example by example (session/batch_split.h) gives the batched run's
 * results, and graphs whose examples interact keep their batched meaning when it is forced. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"

#define N 5

static TF_Output placeholder(TF_Graph *g, const char *name, const int64_t *dims, int nd, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", dims, nd);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return (TF_Output){op, 0};
}

static TF_Output f32_const(TF_Graph *g, const char *name, const int64_t *dims, int nd, unsigned seed, TF_Status *s) {
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)dims[i];
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = (float)sin(0.37 * (double)(i + 1) * (seed + 1));
  TF_Output o = capi_const(g, name, TF_FLOAT, dims, nd, v, n * sizeof *v, s);
  free(v);
  return o;
}

static TF_Output i32_const(TF_Graph *g, const char *name, const int32_t *v, int64_t n, TF_Status *s) {
  return capi_const(g, name, TF_INT32, &n, 1, v, sizeof(int32_t) * (size_t)n, s);
}

static TF_Output op1(TF_Graph *g, const char *type, const char *name, TF_Output a) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  return (TF_Output){capi_finish(d), 0};
}

/* Runs fetches of g with x fed (x[i] = cos(0.1 i), shape dims) on a two-thread session under
 * TFC_BATCH_SPLIT=mode (NULL: unset); the outputs' floats go to out[k] (malloc'ed). */
static void run(TF_Graph *g, TF_Output x, const int64_t *dims, int nd, const TF_Output *fetches, int n_fetches,
                const char *mode, float **out, size_t *n_out) {
  if (mode) setenv("TFC_BATCH_SPLIT", mode, 1);
  else unsetenv("TFC_BATCH_SPLIT");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  unsigned char config[4] = {0x10, 2, 0x28, 2}; /* intra_op 2, inter_op 2 */
  TF_SetConfig(so, config, sizeof config, s);
  OK(s);
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)dims[i];
  TF_Tensor *xt = TF_AllocateTensor(TF_FLOAT, dims, nd, n * sizeof(float));
  float *xv = TF_TensorData(xt);
  for (size_t i = 0; i < n; i++) xv[i] = (float)cos(0.1 * (double)i);
  TF_Tensor *outs[4] = {0};
  for (int rep = 0; rep < 2; rep++) { /* the second run reuses the plan */
    for (int k = 0; k < n_fetches; k++)
      if (outs[k]) TF_DeleteTensor(outs[k]);
    TF_SessionRun(sess, NULL, &x, &xt, 1, fetches, outs, n_fetches, NULL, 0, NULL, s);
    OK(s);
  }
  for (int k = 0; k < n_fetches; k++) {
    n_out[k] = TF_TensorByteSize(outs[k]) / sizeof(float);
    out[k] = malloc(TF_TensorByteSize(outs[k]) + 1);
    memcpy(out[k], TF_TensorData(outs[k]), TF_TensorByteSize(outs[k]));
    TF_DeleteTensor(outs[k]);
  }
  TF_DeleteTensor(xt);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  unsetenv("TFC_BATCH_SPLIT");
}

static void expect_close(const float *a, const float *b, size_t n, double tol) {
  double scale = 0;
  for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
  for (size_t i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > tol * (scale + 1e-30)) {
      tfc_test_fail(__FILE__, __LINE__, "element %zu: %g against %g", i, a[i], b[i]);
      return;
    }
}

/* Every mode agrees on a CNN: Conv2D + BiasAdd + Relu, MaxPool, Reshape [-1, 72], MatMul,
 * Softmax; and a spatial Mean. */
static void split_cnn_matches_batched_run(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t xd[4] = {-1, 6, 6, 4}, fd[4] = {3, 3, 4, 8}, bd[1] = {8}, wd[2] = {72, 5};
  TF_Output x = placeholder(g, "x", xd, 4, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Conv2D", "conv");
  TF_AddInput(d, x);
  TF_AddInput(d, f32_const(g, "filter", fd, 4, 1, s));
  int64_t strides[4] = {1, 1, 1, 1};
  TF_SetAttrIntList(d, "strides", strides, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output conv = {capi_finish(d), 0};
  TF_Output relu = op1(g, "Relu", "relu", capi_op2(g, "BiasAdd", "bias", conv, f32_const(g, "b", bd, 1, 2, s), s));
  d = TF_NewOperation(g, "MaxPool", "pool");
  TF_AddInput(d, relu);
  int64_t k2[4] = {1, 2, 2, 1};
  TF_SetAttrIntList(d, "ksize", k2, 4);
  TF_SetAttrIntList(d, "strides", k2, 4);
  TF_SetAttrString(d, "padding", "VALID", 5);
  TF_Output pool = {capi_finish(d), 0};
  int32_t shape[2] = {-1, 72}, axes[2] = {1, 2};
  TF_Output flat = capi_op2(g, "Reshape", "flat", pool, i32_const(g, "shape", shape, 2, s), s);
  TF_Output logits = capi_op2(g, "MatMul", "logits", flat, f32_const(g, "w", wd, 2, 3, s), s);
  TF_Output fetches[2] = {op1(g, "Softmax", "probs", logits),
                          capi_op2(g, "Mean", "mean", relu, i32_const(g, "axes", axes, 2, s), s)};
  int64_t feed[4] = {N, 6, 6, 4};
  float *whole[2], *split[2], *autom[2];
  size_t n[2];
  run(g, x, feed, 4, fetches, 2, "0", whole, n);
  run(g, x, feed, 4, fetches, 2, "1", split, n);
  run(g, x, feed, 4, fetches, 2, NULL, autom, n);
  EXPECT_EQ(n[0], (size_t)N * 5);
  EXPECT_EQ(n[1], (size_t)N * 8);
  for (int k = 0; k < 2; k++) {
    /* one example at a time may take other kernels' summation orders: float rounding apart */
    expect_close(split[k], whole[k], n[k], 1e-5);
    expect_close(autom[k], whole[k], n[k], 1e-5);
    free(whole[k]);
    free(split[k]);
    free(autom[k]);
  }
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* Forced on graphs whose examples interact, the session still runs them whole: y = x -
 * mean(x, 0) (zeros if each example were alone), y = x * Size(x), a Reshape to [-1], and
 * mean(x, 0) with its axis kept ([1, 3], which N examples alone would stack into [N, 3]). */
static void split_keeps_batch_dependent_graphs_whole(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t xd[2] = {-1, 3};
  TF_Output x = placeholder(g, "x", xd, 2, s);
  int32_t ax0 = 0, flat = -1;
  int64_t one = 1;
  TF_Output centered =
      capi_op2(g, "Sub", "centered", x, capi_op2(g, "Mean", "m0", x, i32_const(g, "ax0", &ax0, 1, s), s), s);
  TF_OperationDescription *d = TF_NewOperation(g, "Cast", "n");
  TF_AddInput(d, op1(g, "Size", "size", x));
  TF_SetAttrType(d, "DstT", TF_FLOAT);
  TF_Output nf = {capi_finish(d), 0};
  TF_Output scaled = capi_op2(g, "Mul", "scaled", x, nf, s);
  TF_Output flatx = capi_op2(g, "Reshape", "flatx", x, capi_const(g, "flat", TF_INT32, &one, 1, &flat, 4, s), s);
  d = TF_NewOperation(g, "Mean", "m0k");
  TF_AddInput(d, x);
  TF_AddInput(d, i32_const(g, "ax0k", &ax0, 1, s));
  TF_SetAttrBool(d, "keep_dims", 1);
  TF_Output mean_kept = {capi_finish(d), 0};
  TF_Output fetches[4] = {centered, scaled, flatx, mean_kept};
  int64_t feed[2] = {N, 3};
  for (int k = 0; k < 4; k++) {
    float *whole, *forced;
    size_t n, m;
    run(g, x, feed, 2, &fetches[k], 1, "0", &whole, &n);
    run(g, x, feed, 2, &fetches[k], 1, "1", &forced, &m);
    EXPECT_EQ(m, n);
    expect_close(forced, whole, n, 0);
    free(whole);
    free(forced);
  }
  /* and the batched values are what they should be: column means removed, x times 15 */
  float *c;
  size_t n;
  run(g, x, feed, 2, &fetches[0], 1, "1", &c, &n);
  double col = 0;
  for (int i = 0; i < N; i++) col += c[i * 3];
  EXPECT_TRUE(fabs(col) < 1e-5);
  EXPECT_TRUE(fabs(c[0]) > 1e-3);
  free(c);
  run(g, x, feed, 2, &fetches[1], 1, "1", &c, &n);
  EXPECT_TRUE(fabs(c[1] - 15 * cos(0.1)) < 1e-5);
  free(c);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A feed whose leading dimension differs from another's runs whole and gets the batched
 * run's error. */
static void split_mismatched_feeds_give_the_batched_error(void) {
  setenv("TFC_BATCH_SPLIT", "1", 1);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t xd[2] = {-1, 3};
  TF_Output x = placeholder(g, "x", xd, 2, s), y = placeholder(g, "y", xd, 2, s);
  TF_Output sum = capi_op2(g, "AddV2", "sum", x, y, s);
  TF_SessionOptions *so = TF_NewSessionOptions();
  unsigned char config[2] = {0x10, 2};
  TF_SetConfig(so, config, sizeof config, s);
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t a[2] = {4, 3}, b[2] = {2, 3};
  TF_Tensor *feeds[2] = {TF_AllocateTensor(TF_FLOAT, a, 2, 48), TF_AllocateTensor(TF_FLOAT, b, 2, 24)};
  memset(TF_TensorData(feeds[0]), 0, 48);
  memset(TF_TensorData(feeds[1]), 0, 24);
  TF_Output ins[2] = {x, y};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, ins, feeds, 2, &sum, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "Incompatible shapes: [4,3] vs. [2,3]") != NULL);
  EXPECT_TRUE(out == NULL);
  TF_DeleteTensor(feeds[0]);
  TF_DeleteTensor(feeds[1]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  unsetenv("TFC_BATCH_SPLIT");
}

static const tfc_test tests[] = {TFC_TEST(split_cnn_matches_batched_run),
                                 TFC_TEST(split_keeps_batch_dependent_graphs_whole),
                                 TFC_TEST(split_mismatched_feeds_give_the_batched_error), {0}};
TFC_TEST_MAIN(tests)
