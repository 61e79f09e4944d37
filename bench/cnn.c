/*
 * bench/cnn — training examples per second of seed 004's network on 28x28x1 inputs:
 * conv 5x5x32 + ReLU + max-pool 2, conv 5x5x64 + ReLU + max-pool 2, fc 1024 + ReLU, fc 10,
 * softmax cross-entropy, batch 100, SGD — in tfc (built with tfc/train.h, one TF_SessionRun per
 * step) beside the same network in PyTorch (torch.nn, torch.optim.SGD) and in TensorFlow's
 * tf.compat.v1 from Python, with the same thread count, in the same invocation; then the
 * fraction of the machine's GEMM peak (the faster of OpenBLAS's and oneDNN's sgemm in the same
 * run) that tfc's step reaches. Targets: ratio >= 1.5 against both, >= 50% of the peak.
 * Ratios > 1 mean tfc is faster.
 *
 * --gpu: the same network and step with the whole tower under tf.device('/gpu:0') (soft
 * placement on, so an op without a GPU kernel runs on the CPU: the benchmark lists which),
 * against PyTorch on cuda:0. Both sides copy the host batch to the GPU every step (tfc's feed,
 * PyTorch's .cuda()) and bring the loss back (tfc's fetch, loss.item()); neither uses TF32
 * (TF 1.15 knew none: torch.backends.{cuda.matmul,cudnn}.allow_tf32 = False). PyTorch runs
 * first, in its own process, and tfc's session sets allow_growth. Target: ratio >= 1.0.
 * Without a GPU, --gpu prints one line saying so and exits 0.
 *
 * Usage: bench_cnn [--gpu] [threads] [python]   (defaults: all cores, bench_python's choice:
 *        the build tree's bench-venv when there)
 */
#include <cblas.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "gpu_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

#define BATCH 100

static TF_Status *status;

static void check(const char *what) {
  if (TF_GetCode(status) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(status));
    exit(1);
  }
}

static TF_Output finish(TF_OperationDescription *d, const char *what) {
  TF_Output o = {TF_FinishOperation(d, status), 0};
  check(what);
  return o;
}

static TF_Output op2(const TFC_Scope *sc, const char *type, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, NULL);
  TF_AddInput(d, a);
  if (b.oper) TF_AddInput(d, b);
  return finish(d, type);
}

static TF_Output int_const(const TFC_Scope *sc, const int32_t *v, int64_t n) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &n, 1, (size_t)n * sizeof(int32_t));
  memcpy(TF_TensorData(t), v, (size_t)n * sizeof(int32_t));
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", NULL);
  TF_SetAttrTensor(d, "value", t, status);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  return finish(d, "Const");
}

/* A weight from truncated_normal(0.1) and a bias of 0.1, as the seed does. */
static void weights(const TFC_Scope *sc, const int64_t *dims, int nd, TF_Output *w, TF_Output *b) {
  *w = TFC_NewVariable(sc, "weights", TFC_TruncatedNormal(sc, dims, nd, 0.0, 0.1, TF_FLOAT, 0, status), 1, status).value;
  check("weights");
  int64_t n = dims[nd - 1];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, (size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) ((float *)TF_TensorData(t))[i] = 0.1f;
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", NULL);
  TF_SetAttrTensor(d, "value", t, status);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  *b = TFC_NewVariable(sc, "biases", finish(d, "Const"), 1, status).value;
  check("biases");
}

/* conv 5x5 SAME + bias + ReLU + max-pool 2x2 SAME */
static TF_Output conv_layer(const TFC_Scope *root, const char *name, TF_Output x, int64_t cin, int64_t cout) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  int64_t dims[4] = {5, 5, cin, cout};
  TF_Output w, b;
  weights(sc, dims, 4, &w, &b);
  static const int64_t ones[4] = {1, 1, 1, 1}, two[4] = {1, 2, 2, 1};
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Conv2D", NULL);
  TF_AddInput(d, x);
  TF_AddInput(d, w);
  TF_SetAttrIntList(d, "strides", ones, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output c = finish(d, "Conv2D");
  TF_Output r = op2(sc, "Relu", op2(sc, "BiasAdd", c, b), (TF_Output){0});
  d = TFC_ScopeNewOperation(sc, "MaxPool", NULL);
  TF_AddInput(d, r);
  TF_SetAttrIntList(d, "ksize", two, 4);
  TF_SetAttrIntList(d, "strides", two, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output p = finish(d, "MaxPool");
  TFC_DeleteScope(sc);
  return p;
}

static TF_Output fc_layer(const TFC_Scope *root, const char *name, TF_Output x, int64_t in, int64_t out, int relu) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  int64_t dims[2] = {in, out};
  TF_Output w, b;
  weights(sc, dims, 2, &w, &b);
  TF_Output y = op2(sc, "BiasAdd", op2(sc, "MatMul", x, w), b);
  if (relu) y = op2(sc, "Relu", y, (TF_Output){0});
  TFC_DeleteScope(sc);
  return y;
}

/* With --gpu: how many of the graph's operations the session placed on GPU:0, and the types of
 * the rest (the soft placement fallbacks), on one line. */
static void print_placement(TF_Session *sess, TF_Graph *g) {
  char cpu_types[1024] = "";
  size_t pos = 0, used = 0;
  int on_gpu = 0, total = 0;
  TF_Operation *op;
  while ((op = TF_GraphNextOperation(g, &pos))) {
    const char *dev = TFC_SessionOperationDevice(sess, op, status);
    if (TF_GetCode(status) != TF_OK) continue; /* not placed: never part of a run */
    total++;
    if (strstr(dev, "/device:GPU:")) {
      on_gpu++;
      continue;
    }
    const char *type = TF_OperationOpType(op);
    char key[72];
    snprintf(key, sizeof key, " %s,", type);
    if (!strstr(cpu_types, key) && used + strlen(key) + 1 < sizeof cpu_types) {
      strcat(cpu_types, key);
      used += strlen(key);
    }
  }
  TF_SetStatus(status, TF_OK, ""); /* an unplaced operation's FAILED_PRECONDITION is no error here */
  if (used) cpu_types[used - 1] = '\0'; /* the last comma */
  printf("placement: %d of %d operations on GPU:0; on the CPU:%s\n", on_gpu, total, used ? cpu_types : " none");
}

static double tfc_examples_per_sec(int threads, int gpu, double *loss0, double *loss1) {
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *top = TFC_NewRootScope(g);
  TFC_Scope *root = gpu ? TFC_ScopeWithDevice(top, "/gpu:0") : top;
  TFC_SetRandomSeed(g, 4);
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Placeholder", "images");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", (int64_t[]){-1, 28, 28, 1}, 4);
  TF_Output x = finish(d, "images");
  d = TFC_ScopeNewOperation(root, "Placeholder", "labels");
  TF_SetAttrType(d, "dtype", TF_INT64);
  TF_SetAttrShape(d, "shape", (int64_t[]){-1}, 1);
  TF_Output labels = finish(d, "labels");
  TF_Output h = conv_layer(root, "conv1", x, 1, 32);
  h = conv_layer(root, "conv2", h, 32, 64);
  h = op2(root, "Reshape", h, int_const(root, (int32_t[]){-1, 7 * 7 * 64}, 2));
  h = fc_layer(root, "local3", h, 7 * 7 * 64, 1024, 1);
  TF_Output logits = fc_layer(root, "softmax_linear", h, 1024, 10, 0);
  TF_Output xent = op2(root, "SparseSoftmaxCrossEntropyWithLogits", logits, labels);
  TF_Output loss = op2(root, "Mean", xent, int_const(root, (int32_t[]){0}, 1));
  TFC_Optimizer *sgd = TFC_NewGradientDescentOptimizer(0.01, NULL);
  TF_Operation *train = TFC_Minimize(sgd, root, loss, NULL, "train", status);
  check("minimize");
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, "init", status);
  check("init");

  TF_SessionOptions *o = TF_NewSessionOptions();
  if (gpu && bench_gpu_config(o, NULL, 0)) exit(1);
  if (gpu) TFC_SetAllowSoftPlacement(o, 1);
  TFC_SetThreads(o, threads, threads);
  TF_Session *sess = TF_NewSession(g, o, status);
  check("session");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, status);
  check("init run");
  int64_t xd[4] = {BATCH, 28, 28, 1}, ld[1] = {BATCH};
  TF_Tensor *xv = TF_AllocateTensor(TF_FLOAT, xd, 4, BATCH * 28 * 28 * sizeof(float));
  TF_Tensor *lv = TF_AllocateTensor(TF_INT64, ld, 1, BATCH * sizeof(int64_t));
  srand(4);
  for (int i = 0; i < BATCH * 28 * 28; i++) ((float *)TF_TensorData(xv))[i] = (float)rand() / (float)RAND_MAX;
  for (int i = 0; i < BATCH; i++) ((int64_t *)TF_TensorData(lv))[i] = rand() % 10;
  TF_Output feeds[2] = {x, labels};
  TF_Tensor *fv[2] = {xv, lv};
  double rates[3];
  int steps = 0;
  for (int round = -1; round < 3; round++) {
    int n = 0;
    double t0 = bench_now(), t;
    do {
      TF_Tensor *l = NULL;
      TF_SessionRun(sess, NULL, feeds, fv, 2, &loss, &l, 1, (const TF_Operation *const *)&train, 1, NULL, status);
      check("step");
      if (steps++ == 0) *loss0 = *(float *)TF_TensorData(l);
      *loss1 = *(float *)TF_TensorData(l);
      TF_DeleteTensor(l);
      n++;
      t = bench_now();
    } while (t - t0 < (round < 0 ? 0.5 : 2.0));
    if (round >= 0) rates[round] = n * BATCH / (t - t0);
    if (round < 0 && gpu) print_placement(sess, g);
  }
  TF_DeleteTensor(xv);
  TF_DeleteTensor(lv);
  TF_DeleteSession(sess, status);
  TF_DeleteSessionOptions(o);
  TFC_DeleteOptimizer(sgd);
  if (root != top) TFC_DeleteScope(root);
  TFC_DeleteScope(top);
  TF_DeleteGraph(g);
  return bench_median(rates, 3);
}

/* gpu: the model on cuda:0, the batch copied there every step and the loss read back. */
static double torch_examples_per_sec(const char *python, int threads, int gpu) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s -c \"import time, torch\n"
           "torch.set_num_threads(%d)\n"
           "gpu = %d\n"
           "assert torch.cuda.is_available() or not gpu\n"
           "torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False\n"
           "dev = 'cuda:0' if gpu else 'cpu'\n"
           "torch.manual_seed(4)\n"
           "nn = torch.nn\n"
           "m = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),\n"
           "                  nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),\n"
           "                  nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)\n"
           "opt = torch.optim.SGD(m.parameters(), lr=0.01)\n"
           "lossf = nn.CrossEntropyLoss()\n"
           "x = torch.rand(%d, 1, 28, 28); y = torch.randint(0, 10, (%d,))\n"
           "def step():\n"
           "    opt.zero_grad(); l = lossf(m(x.to(dev)), y.to(dev)); l.backward(); opt.step()\n"
           "    if gpu: l.item()\n"
           "rates = []\n"
           "for r in range(4):\n"
           "    n = 0; t0 = time.perf_counter()\n"
           "    while True:\n"
           "        step(); n += 1; t = time.perf_counter()\n"
           "        if t - t0 >= (0.5 if r == 0 else 2.0): break\n"
           "    if r: rates.append(n * %d / (t - t0))\n"
           "print(sorted(rates)[1])\" 2>/dev/null",
           python, threads, gpu, BATCH, BATCH, BATCH);
  return bench_peer_number(cmd);
}

/* The same network and step in TensorFlow's tf.compat.v1 from Python: one sess.run([train,
 * loss], feed_dict) per step with numpy batches fed, intra- and inter-op threads as tfc's. */
static double tf_examples_per_sec(const char *python, int threads) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "TF_CPP_MIN_LOG_LEVEL=3 %s -c \"import time, numpy as np, tensorflow.compat.v1 as tf\n"
           "tf.disable_v2_behavior(); tf.set_random_seed(4)\n"
           "x = tf.placeholder(tf.float32, [None, 28, 28, 1]); y = tf.placeholder(tf.int64, [None])\n"
           "def var(shape): return tf.Variable(tf.truncated_normal(shape, stddev=0.1)), tf.Variable(tf.fill(shape[-1:], 0.1))\n"
           "def conv(h, cin, cout):\n"
           "    w, b = var([5, 5, cin, cout])\n"
           "    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], 'SAME'), b))\n"
           "    return tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')\n"
           "h = tf.reshape(conv(conv(x, 1, 32), 32, 64), [-1, 7 * 7 * 64])\n"
           "w, b = var([7 * 7 * 64, 1024]); h = tf.nn.relu(tf.nn.bias_add(tf.matmul(h, w), b))\n"
           "w, b = var([1024, 10]); logits = tf.nn.bias_add(tf.matmul(h, w), b)\n"
           "loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))\n"
           "train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)\n"
           "cfg = tf.ConfigProto(intra_op_parallelism_threads=%d, inter_op_parallelism_threads=%d)\n"
           "sess = tf.Session(config=cfg); sess.run(tf.global_variables_initializer())\n"
           "rng = np.random.RandomState(4)\n"
           "feed = {x: rng.uniform(0, 1, (%d, 28, 28, 1)).astype(np.float32), y: rng.randint(0, 10, %d)}\n"
           "rates = []\n"
           "for r in range(4):\n"
           "    n = 0; t0 = time.perf_counter()\n"
           "    while True:\n"
           "        sess.run([train, loss], feed); n += 1; t = time.perf_counter()\n"
           "        if t - t0 >= (0.5 if r == 0 else 2.0): break\n"
           "    if r: rates.append(n * %d / (t - t0))\n"
           "print(sorted(rates)[1])\" 2>/dev/null",
           python, threads, threads, BATCH, BATCH, BATCH);
  return bench_peer_number(cmd);
}

/* Seconds of the best of 5 runs (after a warm-up) of gemm(n, a, b, c). */
static double best_time(void (*gemm)(int, const float *, const float *, float *), int n, const float *a,
                        const float *b, float *c) {
  double best = 1e30;
  for (int r = 0; r < 6; r++) {
    double t0 = bench_now();
    gemm(n, a, b, c);
    double t = bench_now() - t0;
    if (r > 0 && t < best) best = t;
  }
  return best;
}

static void openblas_gemm(int n, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

typedef int (*dnnl_sgemm_fn)(char, char, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                             int64_t, float, float *, int64_t);
static dnnl_sgemm_fn dnnl_sgemm_p;
static void dnnl_gemm(int n, const float *a, const float *b, float *c) {
  dnnl_sgemm_p('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

/* The machine's GEMM peak in this run: the faster of OpenBLAS's cblas_sgemm and oneDNN's
 * dnnl_sgemm (the library tfc's large products use; its OpenMP threads set through the
 * runtime tfc loaded) on 2048x2048 matrices with `threads` threads, in GFLOP/s. *who names it. */
static double gemm_peak_gflops(int threads, const char **who) {
  const int n = 2048;
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n), *c = malloc(sizeof(float) * n * n);
  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return -1;
  }
  for (int i = 0; i < n * n; i++) a[i] = b[i] = (float)(i % 7) * 0.1f;
  openblas_set_num_threads(threads);
  double best = best_time(openblas_gemm, n, a, b, c);
  openblas_set_num_threads(1); /* tfc calls OpenBLAS from its own threads, one thread per call */
  *who = "OpenBLAS sgemm";
  dnnl_sgemm_p = (dnnl_sgemm_fn)dlsym(RTLD_DEFAULT, "dnnl_sgemm");
  int (*omp_get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  void (*omp_set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  if (dnnl_sgemm_p && omp_get && omp_set) {
    int before = omp_get();
    omp_set(threads);
    double t = best_time(dnnl_gemm, n, a, b, c);
    omp_set(before);
    if (t < best) {
      best = t;
      *who = "oneDNN sgemm";
    }
  }
  free(a), free(b), free(c);
  return 2.0 * n * n * n / best / 1e9;
}

/* Multiply-adds x 2 of one training example: the forward convolutions and products, the
 * filter and weight gradients of every layer, and the input gradients of all but the first
 * (the images need none). */
static double flops_per_example(void) {
  double conv1 = 28.0 * 28 * 32 * 5 * 5 * 1 * 2, conv2 = 14.0 * 14 * 64 * 5 * 5 * 32 * 2;
  double fc1 = 7.0 * 7 * 64 * 1024 * 2, fc2 = 1024.0 * 10 * 2;
  return (conv1 + conv2 + fc1 + fc2) + (conv1 + 2 * conv2 + 2 * fc1 + 2 * fc2);
}

int main(int argc, char **argv) {
  int gpu = 0, n_pos = 0;
  const char *pos[2] = {NULL, NULL};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--gpu") == 0) gpu = 1;
    else if (n_pos < 2) pos[n_pos++] = argv[i];
    else {
      fprintf(stderr, "usage: bench_cnn [--gpu] [threads] [python]\n");
      return 2;
    }
  }
  int threads = pos[0] ? atoi(pos[0]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  const char *python = bench_python(pos[1]);
  if (threads < 1) threads = 1;
  if (gpu) bench_need_gpu("bench_cnn --gpu");
  status = TF_NewStatus();
  printf("seed 004 CNN (conv5x5x32, pool, conv5x5x64, pool, fc1024, fc10), 28x28x1, batch %d, SGD; "
         "%d threads%s\n",
         BATCH, threads, gpu ? "; towers on /gpu:0 vs PyTorch on cuda:0" : "");
  bench_print_peers(RTLD_DEFAULT, threads, threads, python, "torch=%d tensorflow=%d,%d", threads, threads, threads);
  /* On the GPU PyTorch goes first: tfc's arena would hold GPU memory until the process ends. */
  double torch = gpu ? torch_examples_per_sec(python, threads, 1) : 0;
  double l0 = 0, l1 = 0;
  double ours = tfc_examples_per_sec(threads, gpu, &l0, &l1);
  printf("tfc:     %8.1f examples/s  (%.1f ms/batch; loss %.3f -> %.3f)\n", ours, 1e3 * BATCH / ours, l0, l1);
  if (!gpu) torch = torch_examples_per_sec(python, threads, 0);
  if (torch > 0)
    printf("PyTorch: %8.1f examples/s  (%.1f ms/batch)\nratio tfc/PyTorch: %.2f (target >= %s)\n", torch,
           1e3 * BATCH / torch, ours / torch, gpu ? "1.0" : "1.5");
  else
    printf("PyTorch: n/a (no torch%s for %s)\n", gpu ? " with CUDA" : "", python);
  if (!gpu) {
    double tf = tf_examples_per_sec(python, threads);
    if (tf > 0)
      printf("TensorFlow (tf.compat.v1 from Python): %8.1f examples/s  (%.1f ms/batch)\n"
             "ratio tfc/TensorFlow: %.2f (target >= 1.5)\n",
             tf, 1e3 * BATCH / tf, ours / tf);
    else
      printf("TensorFlow: n/a (no tensorflow for %s)\n", python);
    const char *who = "";
    double peak = gemm_peak_gflops(threads, &who), step = ours * flops_per_example() / 1e9;
    if (peak > 0)
      printf("GEMM peak (%s 2048, %d threads): %.0f GFLOP/s; tfc's step: %.1f MFLOP/example, "
             "%.0f GFLOP/s = %.0f%% of the peak (target >= 50%%)\n",
             who, threads, peak, flops_per_example() / 1e6, step, 100 * step / peak);
  }
  TF_DeleteStatus(status);
  return 0;
}
