/*
 * bench/mlp — training steps per second of seed 003's MLP (x [100,32] -> tanh(32x16) ->
 * tanh(16x8), cost = sum((y - y_out)^2), Adam) in tfc, built with tfc/train.h and trained
 * through TF_SessionRun (one run per step fetching the cost and running `train`), beside the
 * same model and optimizer in PyTorch (torch.nn.Linear, torch.optim.Adam) with the same
 * thread count, and beside the seed's own form, TensorFlow's tf.compat.v1 driven from Python
 * (sess.run per step), in the same invocation. Targets: ratio >= 20 against TensorFlow and
 * >= 5 against PyTorch (a step this small is mostly framework overhead in both; it should not
 * be in tfc). Ratios > 1 mean tfc is faster.
 *
 * Usage: bench_mlp [threads] [python]   (defaults: all cores, bench_python's choice: the
 *        build tree's bench-venv when there)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

#define BATCH 100

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static TF_Output op1(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b, TF_Status *s) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  if (b.oper) TF_AddInput(d, b);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  check(s, type);
  return o;
}

static TF_Output placeholder(const TFC_Scope *sc, const char *name, int64_t cols, TF_Status *s) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  int64_t dims[2] = {-1, cols};
  TF_SetAttrShape(d, "shape", dims, 2);
  TF_Output o = {TF_FinishOperation(d, s), 0};
  check(s, "Placeholder");
  return o;
}

/* w [in,out] from truncated_normal(0.1), b [out] zeros; returns tanh(x w + b). */
static TF_Output dense(const TFC_Scope *sc, TF_Output x, int64_t in, int64_t out, const char *wn, const char *bn,
                       const char *outn, TF_Status *s) {
  int64_t wd[2] = {in, out};
  TFC_Variable w = TFC_NewVariable(sc, wn, TFC_TruncatedNormal(sc, wd, 2, 0.0, 0.1, TF_FLOAT, 0, s), 1, s);
  check(s, "w");
  TFC_Variable b = TFC_NewVariable(sc, bn, TFC_Zeros(sc, &out, 1, TF_FLOAT, s), 1, s);
  check(s, "b");
  TF_Output m = op1(sc, "MatMul", NULL, x, w.value, s);
  return op1(sc, "Tanh", outn, op1(sc, "BiasAdd", NULL, m, b.value, s), (TF_Output){0}, s);
}

static TF_Tensor *uniform(int64_t rows, int64_t cols) {
  int64_t dims[2] = {rows, cols};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 2, (size_t)(rows * cols) * sizeof(float));
  float *v = TF_TensorData(t);
  for (int64_t i = 0; i < rows * cols; i++) v[i] = 2.0f * (float)rand() / ((float)RAND_MAX + 1.0f) - 1.0f;
  return t;
}

/* Steps per second over at least `secs` seconds (after a warm-up), median of 5 rounds. */
static double tfc_steps_per_sec(int threads, double *first_cost, double *last_cost) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_SetRandomSeed(g, 1);
  TF_Output x = placeholder(root, "x", 32, s), y = placeholder(root, "y", 8, s);
  TF_Output a = dense(root, x, 32, 16, "w1", "b1", NULL, s);
  TF_Output y_out = dense(root, a, 16, 8, "w2", "b2", "y_out", s);
  TF_Output sq = op1(root, "Square", NULL, op1(root, "Sub", NULL, y, y_out, s), (TF_Output){0}, s);
  int64_t axes[2] = {0, 1};
  TF_Tensor *at = TF_AllocateTensor(TF_INT32, (int64_t[]){2}, 1, 2 * sizeof(int32_t));
  ((int32_t *)TF_TensorData(at))[0] = (int32_t)axes[0];
  ((int32_t *)TF_TensorData(at))[1] = (int32_t)axes[1];
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Const", NULL);
  TF_SetAttrTensor(d, "value", at, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Output ax = {TF_FinishOperation(d, s), 0};
  TF_DeleteTensor(at);
  TF_Output cost = op1(root, "Sum", "cost", sq, ax, s);
  TFC_Optimizer *adam = TFC_NewAdamOptimizer(0.01, 0.9, 0.999, 1e-8, NULL);
  TF_Operation *train = TFC_Minimize(adam, root, cost, NULL, "train", s);
  check(s, "minimize");
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, "init_all_vars_op", s);
  check(s, "init");

  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetThreads(o, threads, threads);
  TF_Session *sess = TF_NewSession(g, o, s);
  check(s, "session");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  check(s, "init run");
  srand(7);
  TF_Output feeds[2] = {x, y};
  TF_Tensor *fv[2] = {uniform(BATCH, 32), uniform(BATCH, 8)};
  double rates[5];
  int steps = 0;
  for (int round = -1; round < 5; round++) {
    int n = 0;
    double t0 = bench_now(), t;
    do {
      TF_Tensor *c = NULL;
      TF_SessionRun(sess, NULL, feeds, fv, 2, &cost, &c, 1, (const TF_Operation *const *)&train, 1, NULL, s);
      check(s, "step");
      double v = *(float *)TF_TensorData(c);
      if (steps == 0) *first_cost = v;
      *last_cost = v;
      TF_DeleteTensor(c);
      n++;
      steps++;
      t = bench_now();
    } while (t - t0 < 0.4);
    if (round >= 0) rates[round] = n / (t - t0);
  }
  TF_DeleteTensor(fv[0]);
  TF_DeleteTensor(fv[1]);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TFC_DeleteOptimizer(adam);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return bench_median(rates, 5);
}

static double torch_steps_per_sec(const char *python, int threads) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "%s -c \"import time, torch\n"
           "torch.set_num_threads(%d)\n"
           "torch.manual_seed(7)\n"
           "m = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.Tanh(), torch.nn.Linear(16, 8), torch.nn.Tanh())\n"
           "opt = torch.optim.Adam(m.parameters(), lr=0.01)\n"
           "x = torch.rand(%d, 32) * 2 - 1; y = torch.rand(%d, 8) * 2 - 1\n"
           "def step():\n"
           "    opt.zero_grad(); c = ((y - m(x)) ** 2).sum(); c.backward(); opt.step(); return c.item()\n"
           "rates = []\n"
           "for r in range(6):\n"
           "    n = 0; t0 = time.perf_counter()\n"
           "    while True:\n"
           "        step(); n += 1; t = time.perf_counter()\n"
           "        if t - t0 >= 0.4: break\n"
           "    if r: rates.append(n / (t - t0))\n"
           "print(sorted(rates)[2])\" 2>/dev/null",
           python, threads, BATCH, BATCH);
  return bench_peer_number(cmd);
}

/* The seed program's own language: the same model in TensorFlow's tf.compat.v1 from Python,
 * one sess.run(train, feed_dict) per step fetching the cost, with the same thread counts. */
static double tf_steps_per_sec(const char *python, int threads) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "TF_CPP_MIN_LOG_LEVEL=3 %s -c \"import time, numpy as np, tensorflow.compat.v1 as tf\n"
           "tf.disable_v2_behavior()\n"
           "x = tf.placeholder(tf.float32, [%d, 32]); y = tf.placeholder(tf.float32, [%d, 8])\n"
           "def layer(h, n, m):\n"
           "    w = tf.Variable(tf.random_normal([n, m])); b = tf.Variable(tf.zeros([m]))\n"
           "    return tf.tanh(tf.matmul(h, w) + b)\n"
           "cost = tf.reduce_sum(tf.square(y - layer(layer(x, 32, 16), 16, 8)))\n"
           "train = tf.train.AdamOptimizer(0.01).minimize(cost)\n"
           "cfg = tf.ConfigProto(intra_op_parallelism_threads=%d, inter_op_parallelism_threads=%d)\n"
           "sess = tf.Session(config=cfg); sess.run(tf.global_variables_initializer())\n"
           "feed = {x: np.random.uniform(-1, 1, (%d, 32)), y: np.random.uniform(-1, 1, (%d, 8))}\n"
           "rates = []\n"
           "for r in range(6):\n"
           "    n = 0; t0 = time.perf_counter()\n"
           "    while True:\n"
           "        sess.run([cost, train], feed); n += 1; t = time.perf_counter()\n"
           "        if t - t0 >= 0.4: break\n"
           "    if r: rates.append(n / (t - t0))\n"
           "print(sorted(rates)[2])\" 2>/dev/null",
           python, BATCH, BATCH, threads, threads, BATCH, BATCH);
  return bench_peer_number(cmd);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  const char *python = bench_python(argc > 2 ? argv[2] : NULL);
  if (threads < 1) threads = 1;
  printf("seed MLP 32-16-8 (tanh), batch %d, Adam; %d threads (intra = inter = %d)\n", BATCH, threads, threads);
  bench_print_peers(RTLD_DEFAULT, threads, threads, python, "torch=%d tensorflow=%d,%d", threads, threads, threads);
  double c0 = 0, c1 = 0;
  double ours = tfc_steps_per_sec(threads, &c0, &c1);
  printf("tfc:     %9.0f steps/s  (%.2f us/step; cost %.2f -> %.2f)\n", ours, 1e6 / ours, c0, c1);
  double tf = tf_steps_per_sec(python, threads);
  if (tf > 0)
    printf("TensorFlow (Python, tf.compat.v1): %9.0f steps/s  (%.2f us/step)\nratio tfc/TensorFlow: %.2f (target >= 20)\n",
           tf, 1e6 / tf, ours / tf);
  else
    printf("TensorFlow: n/a (no tensorflow for %s)\n", python);
  double torch = torch_steps_per_sec(python, threads);
  if (torch > 0)
    printf("PyTorch: %9.0f steps/s  (%.2f us/step)\nratio tfc/PyTorch: %.2f (target >= 5)\n", torch, 1e6 / torch,
           ours / torch);
  else
    printf("PyTorch: n/a (no torch for %s)\n", python);
  return 0;
}
