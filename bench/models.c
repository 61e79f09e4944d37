/*
 * bench/models — inference of deployed image models: MobileNetV2 and ResNet50 (Keras
 * applications, random weights, 224x224x3, frozen GraphDefs from bench/gen_models.py),
 * latency at batch 1 and throughput at batch 32, in three runtimes in one invocation:
 *
 *   tfc          libtfc through the TF C API;
 *   TensorFlow   the C library of PyPI's tensorflow wheel (libtensorflow_cc.so.2) through the
 *                very same C API calls on the very same GraphDef;
 *   onnxruntime  PyPI's onnxruntime on the model converted by tf2onnx (bench/models_onnx.py).
 *
 * This program does not link either C library: each runtime runs in its own child process
 * (this program again, "--worker LIB ..."), which dlopens the library and resolves the C API
 * by name, so the two share no symbols and no thread pools. All three get the same thread
 * count (intra-op; inter-op 1 for onnxruntime, ConfigProto intra and inter for the others) and
 * the same input, x[i] = sin(0.01 i). The two C API runs write their outputs to files and the
 * parent reports the largest difference between them (they run the same graph, so it is a
 * correctness check too). Ratios are peer time / tfc time: > 1 means tfc is faster. Targets:
 * >= 1.5 against TensorFlow, >= 1.0 against onnxruntime.
 *
 * Usage: bench_models [threads] [python] [dir]
 *        (defaults: all cores, bench_python's choice (the build tree's bench-venv when there),
 *        ./bench-models; missing graphs are generated there with gen_models.py, which needs
 *        tensorflow and tf2onnx for that python)
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"

#ifndef TFC_LIB_PATH
#error "TFC_LIB_PATH (the path of libtfc.so) must be defined by the build"
#endif

/* ---- the worker: one runtime, one model, one batch size ---- */

/* The C API functions the worker calls, resolved by name in the library under test. */
typedef struct api {
  TF_Status *(*NewStatus)(void);
  void (*DeleteStatus)(TF_Status *);
  TF_Code (*GetCode)(const TF_Status *);
  const char *(*Message)(const TF_Status *);
  TF_Graph *(*NewGraph)(void);
  void (*DeleteGraph)(TF_Graph *);
  TF_Buffer *(*NewBufferFromString)(const void *, size_t);
  void (*DeleteBuffer)(TF_Buffer *);
  TF_ImportGraphDefOptions *(*NewImportGraphDefOptions)(void);
  void (*DeleteImportGraphDefOptions)(TF_ImportGraphDefOptions *);
  void (*GraphImportGraphDef)(TF_Graph *, const TF_Buffer *, const TF_ImportGraphDefOptions *, TF_Status *);
  TF_Operation *(*GraphOperationByName)(TF_Graph *, const char *);
  TF_SessionOptions *(*NewSessionOptions)(void);
  void (*DeleteSessionOptions)(TF_SessionOptions *);
  void (*SetConfig)(TF_SessionOptions *, const void *, size_t, TF_Status *);
  TF_Session *(*NewSession)(TF_Graph *, const TF_SessionOptions *, TF_Status *);
  void (*CloseSession)(TF_Session *, TF_Status *);
  void (*DeleteSession)(TF_Session *, TF_Status *);
  void (*SessionRun)(TF_Session *, const TF_Buffer *, const TF_Output *, TF_Tensor *const *, int,
                     const TF_Output *, TF_Tensor **, int, const TF_Operation *const *, int, TF_Buffer *,
                     TF_Status *);
  TF_Tensor *(*AllocateTensor)(TF_DataType, const int64_t *, int, size_t);
  void (*DeleteTensor)(TF_Tensor *);
  void *(*TensorData)(const TF_Tensor *);
  size_t (*TensorByteSize)(const TF_Tensor *);
} api;

static void *resolve(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) {
    fprintf(stderr, "the library has no %s: %s\n", name, dlerror());
    exit(1);
  }
  return f;
}

static void load_api(const char *path, api *a) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    exit(1);
  }
#define R(f) *(void **)&a->f = resolve(lib, "TF_" #f)
  R(NewStatus), R(DeleteStatus), R(GetCode), R(Message), R(NewGraph), R(DeleteGraph);
  R(NewBufferFromString), R(DeleteBuffer), R(NewImportGraphDefOptions);
  R(DeleteImportGraphDefOptions), R(GraphImportGraphDef), R(GraphOperationByName);
  R(NewSessionOptions), R(DeleteSessionOptions), R(SetConfig), R(NewSession), R(CloseSession);
  R(DeleteSession), R(SessionRun), R(AllocateTensor), R(DeleteTensor), R(TensorData);
  R(TensorByteSize);
#undef R
}

static void check(const api *a, TF_Status *s, const char *what) {
  if (a->GetCode(s) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, a->Message(s));
    exit(1);
  }
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)n + 1);
  if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(p);
    return NULL;
  }
  fclose(f);
  p[n] = 0;
  *len = (size_t)n;
  return p;
}

/* worker LIB GRAPH OUTPUT BATCH THREADS ROUNDS OUTFILE: prints "wall_s cpu_s" (medians per
 * run) and writes the last run's output floats to OUTFILE. */
static int worker(char **argv) {
  const char *lib = argv[0], *graph_path = argv[1], *output = argv[2], *out_file = argv[6];
  int batch = atoi(argv[3]), threads = atoi(argv[4]), rounds = atoi(argv[5]);
  api a;
  load_api(lib, &a);
  TF_Status *s = a.NewStatus();
  size_t len;
  char *bytes = read_file(graph_path, &len);
  if (!bytes) {
    fprintf(stderr, "cannot read %s\n", graph_path);
    return 1;
  }
  TF_Graph *g = a.NewGraph();
  TF_Buffer *buf = a.NewBufferFromString(bytes, len);
  TF_ImportGraphDefOptions *io = a.NewImportGraphDefOptions();
  a.GraphImportGraphDef(g, buf, io, s);
  check(&a, s, "import");
  a.DeleteImportGraphDefOptions(io);
  a.DeleteBuffer(buf);
  free(bytes);

  char name[256];
  snprintf(name, sizeof name, "%s", output);
  char *colon = strrchr(name, ':');
  int index = 0;
  if (colon) *colon = 0, index = atoi(colon + 1);
  TF_Operation *in_op = a.GraphOperationByName(g, "x"), *out_op = a.GraphOperationByName(g, name);
  if (!in_op || !out_op) {
    fprintf(stderr, "the graph lacks x or %s\n", name);
    return 1;
  }
  TF_Output in = {in_op, 0}, out = {out_op, index};

  unsigned char config[4] = {0x10, (unsigned char)threads, 0x28, (unsigned char)threads};
  TF_SessionOptions *so = a.NewSessionOptions();
  a.SetConfig(so, config, sizeof config, s);
  check(&a, s, "config");
  TF_Session *sess = a.NewSession(g, so, s);
  check(&a, s, "session");
  a.DeleteSessionOptions(so);

  int64_t dims[4] = {batch, 224, 224, 3}, n = (int64_t)batch * 224 * 224 * 3;
  TF_Tensor *x = a.AllocateTensor(TF_FLOAT, dims, 4, (size_t)n * sizeof(float));
  float *xv = a.TensorData(x);
  for (int64_t i = 0; i < n; i++) xv[i] = (float)sin(0.01 * (double)i);

  double *walls = calloc((size_t)rounds, sizeof *walls), *cpus = calloc((size_t)rounds, sizeof *cpus);
  TF_Tensor *y = NULL;
  for (int r = -2; r < rounds; r++) { /* two warm-up runs */
    if (y) a.DeleteTensor(y), y = NULL;
    double w = bench_now(), c = bench_cpu_now();
    a.SessionRun(sess, NULL, &in, &x, 1, &out, &y, 1, NULL, 0, NULL, s);
    check(&a, s, "run");
    if (r >= 0) walls[r] = bench_now() - w, cpus[r] = bench_cpu_now() - c;
  }
  FILE *f = fopen(out_file, "wb");
  if (!f || fwrite(a.TensorData(y), 1, a.TensorByteSize(y), f) != a.TensorByteSize(y)) {
    fprintf(stderr, "cannot write %s\n", out_file);
    return 1;
  }
  fclose(f);
  printf("%.9f %.9f\n", bench_median(walls, rounds), bench_median(cpus, rounds));
  a.DeleteTensor(y);
  a.DeleteTensor(x);
  a.CloseSession(sess, s);
  a.DeleteSession(sess, s);
  a.DeleteGraph(g);
  a.DeleteStatus(s);
  free(walls);
  free(cpus);
  return 0;
}

/* ---- the parent: every model, batch size and runtime ---- */

typedef struct timing {
  double wall, cpu; /* seconds per run; wall < 0 when the runtime could not run */
} timing;

static timing run_timing(const char *cmd) {
  timing t = {-1, -1};
  FILE *p = popen(cmd, "r");
  if (!p) return t;
  if (fscanf(p, "%lf %lf", &t.wall, &t.cpu) != 2) t.wall = -1;
  pclose(p);
  return t;
}

/* Largest |a - b| over two float files, relative to the largest |a|; -1 when unreadable. */
static double output_difference(const char *pa, const char *pb) {
  size_t na, nb;
  char *a = read_file(pa, &na), *b = read_file(pb, &nb);
  double d = -1;
  if (a && b && na == nb) {
    const float *x = (const float *)a, *y = (const float *)b;
    double diff = 0, mag = 0;
    for (size_t i = 0; i < na / sizeof(float); i++) {
      diff = fmax(diff, fabs((double)x[i] - (double)y[i]));
      mag = fmax(mag, fabs((double)x[i]));
    }
    d = mag > 0 ? diff / mag : diff;
  }
  free(a);
  free(b);
  return d;
}

static void ratio(const char *peer, timing t, timing tfc) {
  if (t.wall < 0)
    printf("    %-12s did not run (see above)\n", peer);
  else
    printf("    %-12s %9.2f ms   cpu %9.2f ms   ratio %.2f\n", peer, t.wall * 1e3, t.cpu * 1e3, t.wall / tfc.wall);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--worker")) {
    if (argc != 9) return fprintf(stderr, "usage: --worker LIB GRAPH OUTPUT BATCH THREADS ROUNDS OUTFILE\n"), 2;
    return worker(argv + 2);
  }
  int threads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  const char *py = bench_python(argc > 2 ? argv[2] : NULL), *dir = argc > 3 ? argv[3] : "bench-models";
  char self[4096], cmd[32768], tf_lib[4096] = "";
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) return fprintf(stderr, "cannot find this program\n"), 1;
  self[sl] = 0;
  snprintf(cmd, sizeof cmd,
           "%s -c \"import os,tensorflow;print(os.path.join(os.path.dirname(tensorflow.__file__),"
           "'libtensorflow_cc.so.2'))\" 2>/dev/null",
           py);
  FILE *p = popen(cmd, "r");
  if (p) {
    if (!fgets(tf_lib, sizeof tf_lib, p)) tf_lib[0] = 0;
    tf_lib[strcspn(tf_lib, "\n")] = 0;
    pclose(p);
  }
  printf("bench_models: %d threads; tfc %s; TensorFlow %s\n", threads, TFC_LIB_PATH, tf_lib[0] ? tf_lib : "(not found)");
  /* tfc's line from the library the workers load (this program does not link it). */
  void *tfc_lib = dlopen(TFC_LIB_PATH, RTLD_LAZY | RTLD_LOCAL);
  if (tfc_lib)
    bench_print_peers(tfc_lib, threads, threads, py, "tensorflow=%d,%d onnxruntime=%d,1", threads, threads, threads);
  else
    printf("peers: cannot load %s: %s\n", TFC_LIB_PATH, dlerror());

  static const char *models[] = {"mobilenet_v2", "resnet50"};
  static const int batches[] = {1, 32}, rounds[] = {20, 5};
  for (int m = 0; m < 2; m++) {
    char pb[4096], txt[4096], onnx[4096], output[256] = "";
    snprintf(pb, sizeof pb, "%s/%s.pb", dir, models[m]);
    snprintf(txt, sizeof txt, "%s/%s.txt", dir, models[m]);
    snprintf(onnx, sizeof onnx, "%s/%s.onnx", dir, models[m]);
    struct stat st;
    if (stat(pb, &st) != 0) {
      snprintf(cmd, sizeof cmd, "%s %s/gen_models.py %s %s", py, TFC_BENCH_DIR, dir, models[m]);
      printf("generating %s: %s\n", models[m], cmd);
      fflush(stdout);
      if (system(cmd) != 0) return fprintf(stderr, "could not generate %s\n", pb), 1;
    }
    FILE *f = fopen(txt, "r");
    if (!f || !fgets(output, sizeof output, f)) return fprintf(stderr, "cannot read %s\n", txt), 1;
    fclose(f);
    output[strcspn(output, "\n")] = 0;
    for (int b = 0; b < 2; b++) {
      char out_tfc[4200], out_tf[4200];
      snprintf(out_tfc, sizeof out_tfc, "%s/%s.%d.tfc.out", dir, models[m], batches[b]);
      snprintf(out_tf, sizeof out_tf, "%s/%s.%d.tf.out", dir, models[m], batches[b]);
      snprintf(cmd, sizeof cmd, "%s --worker %s %s %s %d %d %d %s", self, TFC_LIB_PATH, pb, output, batches[b], threads,
               rounds[b], out_tfc);
      timing tfc = run_timing(cmd), tf = {-1, -1}, ort = {-1, -1};
      if (tf_lib[0]) {
        snprintf(cmd, sizeof cmd, "%s --worker %s %s %s %d %d %d %s", self, tf_lib, pb, output, batches[b], threads,
                 rounds[b], out_tf);
        tf = run_timing(cmd);
      }
      if (stat(onnx, &st) == 0) {
        snprintf(cmd, sizeof cmd, "%s %s/models_onnx.py %s %d %d %d", py, TFC_BENCH_DIR, onnx, batches[b], threads,
                 rounds[b]);
        ort = run_timing(cmd);
      }
      printf("%s, batch %d (%s):\n", models[m], batches[b], batches[b] == 1 ? "latency" : "throughput");
      if (tfc.wall < 0) {
        printf("    tfc did not run (see above)\n");
        continue;
      }
      printf("    %-12s %9.2f ms   cpu %9.2f ms   %.1f images/s\n", "tfc", tfc.wall * 1e3, tfc.cpu * 1e3,
             batches[b] / tfc.wall);
      ratio("TensorFlow", tf, tfc);
      ratio("onnxruntime", ort, tfc);
      if (tf.wall >= 0) printf("    tfc vs TensorFlow outputs: max |diff| / max |y| = %.2e\n", output_difference(out_tfc, out_tf));
    }
  }
  return 0;
}
