/*
 * in_graph_replication — TensorFlow 1.x in-graph replication, in C:
 *
 *   with tf.device('/cpu:0'):
 *     x = tf.placeholder(tf.float32, [8, 4]); w = tf.constant(W)   # W: [4, 3]
 *     parts = tf.split(x, 4)                                       # 4 batches of 2 rows
 *   ys = []
 *   for i in range(4):
 *     with tf.device('/cpu:%d' % i):
 *       ys.append(tf.matmul(parts[i], w))
 *   with tf.device('/cpu:0'):
 *     y = tf.concat(ys, 0)
 *   reference = tf.matmul(x, w)                                    # the same, on one device
 *
 * with a session of device_count {'CPU': 4}. The example prints y and checks it equals the
 * one-device result; with log_device_placement it prints where every node ran.
 *
 * Usage: in_graph_replication
 */
#include <math.h>

#include "example_util.h"

#define N_DEV 4
#define ROWS 8
#define K 4
#define COLS 3

static TF_Operation *int_const(TF_Graph *g, const char *name, const char *device, int32_t v, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof v);
  memcpy(TF_TensorData(t), &v, sizeof v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetDevice(d, device);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *op = TF_FinishOperation(d, s);
  ex_check(s, name);
  TF_DeleteTensor(t);
  return op;
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();

  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetDevice(d, "/cpu:0");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t xdims[2] = {ROWS, K};
  TF_SetAttrShape(d, "shape", xdims, 2);
  TF_Operation *x = TF_FinishOperation(d, s);
  ex_check(s, "Placeholder");
  float wv[K * COLS];
  for (int i = 0; i < K * COLS; i++) wv[i] = (float)(i % 5) - 1.5f;
  const int64_t wdims[2] = {K, COLS};
  TF_Operation *w = ex_const(g, "w", "/cpu:0", wdims, 2, wv, s);

  TF_Operation *split_dim = int_const(g, "split/split_dim", "/cpu:0", 0, s);
  d = TF_NewOperation(g, "Split", "split");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInput(d, (TF_Output){split_dim, 0});
  TF_AddInput(d, (TF_Output){x, 0});
  TF_SetAttrInt(d, "num_split", N_DEV);
  TF_Operation *split = TF_FinishOperation(d, s);
  ex_check(s, "Split");

  TF_Output ys[N_DEV];
  for (int i = 0; i < N_DEV; i++) {
    char name[32], dev[32];
    snprintf(name, sizeof name, i ? "MatMul_%d" : "MatMul", i);
    snprintf(dev, sizeof dev, "/cpu:%d", i);
    ys[i] = (TF_Output){ex_binary(g, "MatMul", name, dev, (TF_Output){split, i}, (TF_Output){w, 0}, s), 0};
  }
  TF_Operation *axis = int_const(g, "concat/axis", "/cpu:0", 0, s);
  d = TF_NewOperation(g, "ConcatV2", "concat");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInputList(d, ys, N_DEV);
  TF_AddInput(d, (TF_Output){axis, 0});
  TF_Operation *concat = TF_FinishOperation(d, s);
  ex_check(s, "ConcatV2");
  TF_Operation *ref = ex_binary(g, "MatMul", "reference", "", (TF_Output){x, 0}, (TF_Output){w, 0}, s);

  TF_SessionOptions *opts = ex_options(N_DEV, 1, 0, s);
  TF_Session *sess = TF_NewSession(g, opts, s);
  ex_check(s, "TF_NewSession");
  float xv[ROWS * K];
  for (int i = 0; i < ROWS * K; i++) xv[i] = (float)((i * 7) % 11) * 0.5f - 2.0f;
  TF_Tensor *xt = TF_AllocateTensor(TF_FLOAT, xdims, 2, sizeof xv);
  memcpy(TF_TensorData(xt), xv, sizeof xv);
  TF_Output feed = {x, 0};
  TF_Output fetches[2] = {{concat, 0}, {ref, 0}};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, &feed, &xt, 1, fetches, out, 2, NULL, 0, NULL, s);
  ex_check(s, "TF_SessionRun");
  fflush(stdout);
  ex_print_matrix("y = ", out[0]);
  const float *a = TF_TensorData(out[0]), *b = TF_TensorData(out[1]);
  double maxdiff = 0;
  for (int i = 0; i < ROWS * COLS; i++) maxdiff = fmax(maxdiff, fabs((double)a[i] - (double)b[i]));
  printf("shape [%lld,%lld], max |y - one-device result| = %g\n", (long long)TF_Dim(out[0], 0),
         (long long)TF_Dim(out[0], 1), maxdiff);
  int ok = TF_Dim(out[0], 0) == ROWS && TF_Dim(out[0], 1) == COLS && maxdiff == 0;
  printf("%s\n", ok ? "same result as one device" : "MISMATCH");

  TF_DeleteTensor(xt);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return ok ? 0 : 1;
}
