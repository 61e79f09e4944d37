/*
 * bench/lstm — milliseconds per run of a dynamic RNN: tf.compat.v1.nn.dynamic_rnn over an
 * LSTMCell(128), batch 32, 50 time steps, 128 features, in the GraphDef TensorFlow 2.x writes
 * for it in tf.compat.v1 graph mode (bench/lstm.pb, from bench/gen_lstm.py: control flow v2,
 * a StatelessWhile over library functions carrying TensorLists). Two runs are timed, each the
 * median of five rounds: inference (fetch "outputs") and one training step (fetch "loss",
 * run "train": the gradient While, GradientDescent). The same GraphDef with the same feeds
 * and thread counts then runs in TensorFlow itself (PyPI's, through a Python subprocess in
 * the same invocation); without TensorFlow for that Python the peer is skipped with a
 * message. Target: ratio >= 1.5. Ratios > 1 mean tfc is faster. Each side also reports the CPU
 * time of its process per run (all threads, median of the same rounds): on a machine shared
 * with other work the wall times swing with the load, the CPU times much less.
 *
 * Usage: bench_lstm [threads] [python] [graph.pb]
 *        (defaults: all cores, bench_python's choice (the build tree's bench-venv when there),
 *        bench/lstm.pb of the source tree)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define BATCH 32
#define STEPS 50
#define FEATURES 128
#define UNITS 128
#define ROUNDS 5

static TF_Status *status;

static void check(const char *what) {
  if (TF_GetCode(status) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(status));
    exit(1);
  }
}

static TF_Output output(TF_Graph *g, const char *name) {
  TF_Operation *op = TF_GraphOperationByName(g, name);
  if (!op) {
    fprintf(stderr, "the graph has no node %s\n", name);
    exit(1);
  }
  return (TF_Output){op, 0};
}

/* x[i] = 0.5 sin(0.01 i), y[i] = 0.5 cos(0.01 i): the peer computes the same. */
static TF_Tensor *wave(int cosine, int64_t last) {
  int64_t dims[3] = {BATCH, STEPS, last}, n = BATCH * STEPS * last;
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 3, (size_t)n * sizeof(float));
  float *v = TF_TensorData(t);
  for (int64_t i = 0; i < n; i++) v[i] = 0.5f * (float)(cosine ? cos(0.01 * (double)i) : sin(0.01 * (double)i));
  return t;
}

typedef struct run {
  TF_Session *sess;
  TF_Output feeds[2];
  TF_Tensor *fv[2];
  int n_feeds;
  TF_Output fetch;
  TF_Operation *target;
  double last; /* the last fetched value's first element */
} run;

static void run_once(run *r) {
  TF_Tensor *out = NULL;
  TF_SessionRun(r->sess, NULL, r->feeds, r->fv, r->n_feeds, &r->fetch, &out, 1,
                (const TF_Operation *const *)&r->target, r->target ? 1 : 0, NULL, status);
  check("run");
  r->last = *(float *)TF_TensorData(out);
  TF_DeleteTensor(out);
}

/* Median over ROUNDS rounds of ~0.5 s of milliseconds per run, after one warm-up round; *cpu
 * gets the median CPU milliseconds per run. */
static double ms_per_run(run *r, double *cpu) {
  double ms[ROUNDS], cms[ROUNDS];
  for (int round = -1; round < ROUNDS; round++) {
    int n = 0;
    double t0 = bench_now(), c0 = bench_cpu_now(), t;
    do {
      run_once(r);
      n++;
      t = bench_now();
    } while (t - t0 < 0.5);
    if (round >= 0) {
      ms[round] = (t - t0) / n * 1e3;
      cms[round] = (bench_cpu_now() - c0) / n * 1e3;
    }
  }
  *cpu = bench_median(cms, ROUNDS);
  return bench_median(ms, ROUNDS);
}

static void tfc_times(const char *path, int threads, double *infer, double *train, double *cpu, double *out0,
                      double *loss) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s (make it with bench/gen_lstm.py)\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *pb = malloc((size_t)len);
  if (!pb || fread(pb, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *buf = TF_NewBufferFromString(pb, (size_t)len);
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, io, status);
  check("import");
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(buf);
  free(pb);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetThreads(o, threads, threads);
  TF_Session *sess = TF_NewSession(g, o, status);
  check("session");
  TF_Operation *init = TF_GraphOperationByName(g, "init");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, status);
  check("init");
  TF_Tensor *x = wave(0, FEATURES), *y = wave(1, UNITS);
  run inf = {sess, {output(g, "x")}, {x}, 1, output(g, "outputs"), NULL, 0};
  *infer = ms_per_run(&inf, &cpu[0]);
  *out0 = inf.last;
  run tr = {sess, {output(g, "x"), output(g, "y")}, {x, y}, 2, output(g, "loss"), TF_GraphOperationByName(g, "train"), 0};
  *train = ms_per_run(&tr, &cpu[1]);
  *loss = tr.last;
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteSession(sess, status);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
}

/* The same graph, feeds, thread counts and timing in TensorFlow; prints "infer_ms train_ms
 * out0 infer_cpu_ms train_cpu_ms" or nothing. */
static int tf_times(const char *python, const char *path, int threads, double *v) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "TF_CPP_MIN_LOG_LEVEL=3 %s -c \"\n"
           "import time, numpy as np, tensorflow as tf\n"
           "tf1 = tf.compat.v1; tf1.disable_eager_execution()\n"
           "gd = tf1.GraphDef(); gd.ParseFromString(open('%s', 'rb').read())\n"
           "g = tf.Graph()\n"
           "with g.as_default(): tf1.import_graph_def(gd, name='')\n"
           "cfg = tf1.ConfigProto(intra_op_parallelism_threads=%d, inter_op_parallelism_threads=%d)\n"
           "s = tf1.Session(graph=g, config=cfg); s.run('init')\n"
           "x = (0.5 * np.sin(0.01 * np.arange(%d))).astype(np.float32).reshape(%d, %d, %d)\n"
           "y = (0.5 * np.cos(0.01 * np.arange(%d))).astype(np.float32).reshape(%d, %d, %d)\n"
           "def ms(f):\n"
           "  r = []; c = []\n"
           "  for k in range(%d):\n"
           "    n = 0; t0 = time.perf_counter(); c0 = time.process_time()\n"
           "    while True:\n"
           "      f(); n += 1; t = time.perf_counter()\n"
           "      if t - t0 >= 0.5: break\n"
           "    if k: r.append((t - t0) / n * 1e3); c.append((time.process_time() - c0) / n * 1e3)\n"
           "  return sorted(r)[len(r) // 2], sorted(c)[len(c) // 2]\n"
           "o = s.run('outputs:0', {'x:0': x})\n"
           "a = ms(lambda: s.run('outputs:0', {'x:0': x}))\n"
           "b = ms(lambda: s.run(['loss:0', 'train'], {'x:0': x, 'y:0': y}))\n"
           "print(a[0], b[0], o.flat[0], a[1], b[1])\" 2>/dev/null",
           python, path, threads, threads, BATCH * STEPS * FEATURES, BATCH, STEPS, FEATURES, BATCH * STEPS * UNITS,
           BATCH, STEPS, UNITS, ROUNDS + 1);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  int n = fscanf(p, "%lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4]);
  pclose(p);
  return n == 5 ? 0 : -1;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  const char *python = bench_python(argc > 2 ? argv[2] : NULL);
  const char *path = argc > 3 ? argv[3] : TFC_BENCH_DIR "/lstm.pb";
  if (threads < 1) threads = 1;
  status = TF_NewStatus();
  printf("dynamic_rnn LSTMCell(%d), batch %d, %d steps, %d features; %d threads; %s\n", UNITS, BATCH, STEPS, FEATURES,
         threads, path);
  bench_print_peers(RTLD_DEFAULT, threads, threads, python, "tensorflow=%d,%d", threads, threads);
  double infer, train, cpu[2], out0, loss;
  tfc_times(path, threads, &infer, &train, cpu, &out0, &loss);
  printf("tfc:        inference %8.2f ms/run   training step %8.2f ms/step   (outputs[0] %.6g, loss %.6g)\n",
         infer, train, out0, loss);
  printf("            CPU       %8.2f ms/run   CPU           %8.2f ms/step\n", cpu[0], cpu[1]);
  double tf[5];
  if (tf_times(python, path, threads, tf) == 0) {
    printf("TensorFlow: inference %8.2f ms/run   training step %8.2f ms/step   (outputs[0] %.6g)\n", tf[0], tf[1],
           tf[2]);
    printf("            CPU       %8.2f ms/run   CPU           %8.2f ms/step\n", tf[3], tf[4]);
    printf("ratio TF/tfc: inference %.2f, training %.2f (target >= 1.5); CPU time: inference %.2f, training %.2f\n",
           tf[0] / infer, tf[1] / train, tf[3] / cpu[0], tf[4] / cpu[1]);
  } else {
    printf("TensorFlow: n/a (no tensorflow for %s)\n", python);
  }
  TF_DeleteStatus(status);
  return 0;
}
