/*
 * bench/cnn_graph — the C side of bench/cnn_python.py: trains a GraphDef exported from Python
 * (seed 004's CNN, written with as_graph_def) through the C API alone, one TF_SessionRun per step
 * (targets "train", fetch "loss:0", feeds "x:0" and "y:0"), and prints the examples per second of
 * each timed repeat, so the Python program can compare the same graph driven from Python and
 * from C in one invocation. The feeds are the batches Python wrote (float32 images, then int64
 * labels, batch after batch), made into tensors once and fed in turn, as Python feeds its numpy
 * arrays.
 *
 * Usage: bench_cnn_graph GRAPH.pb BATCHES.bin BATCH STEPS REPEATS [WARMUP]
 *   prints "loss L0" (the first step's) after WARMUP steps (default 5), then one line
 *   "examples/s R per-cpu-second C loss L" per repeat of STEPS steps: examples per second of
 *   wall time and per second of the process's CPU time (all threads: the steadier figure on a
 *   loaded machine), and the last step's loss. With REPEATS 0 it runs a repeat for each line
 *   read from stdin until end of file, so that the driving program can alternate its own
 *   repeats with these on one warm session. Run without arguments (as `make bench` runs every bench_*), it
 *   says it is driven by cnn_python.py and exits 0. Errors: a message naming the file, op or
 *   call, exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define PIXELS (28 * 28)

static TF_Status *status;

static void check(const char *what) {
  if (TF_GetCode(status) != TF_OK) {
    fprintf(stderr, "bench_cnn_graph: %s: %s: %s\n", what, TFC_CodeName(TF_GetCode(status)), TF_Message(status));
    exit(1);
  }
}

/* The whole file in a new buffer (caller deletes it); exits naming the file on failure. */
static TF_Buffer *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  if (!data || n < 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "bench_cnn_graph: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  TF_Buffer *b = TF_NewBufferFromString(data, (size_t)n);
  free(data);
  return b;
}

static TF_Operation *op(TF_Graph *g, const char *name) {
  TF_Operation *o = TF_GraphOperationByName(g, name);
  if (!o) {
    fprintf(stderr, "bench_cnn_graph: the graph has no operation '%s'\n", name);
    exit(1);
  }
  return o;
}

int main(int argc, char **argv) {
  if (argc == 1) {
    printf("bench_cnn_graph: the C side of bench/cnn_python.py (make bench runs that)\n");
    return 0;
  }
  if (argc < 6) {
    fprintf(stderr, "usage: bench_cnn_graph GRAPH.pb BATCHES.bin BATCH STEPS REPEATS [WARMUP]\n");
    return 2;
  }
  const char *graph_path = argv[1], *data_path = argv[2];
  int batch = atoi(argv[3]), steps = atoi(argv[4]), repeats = atoi(argv[5]), warmup = argc > 6 ? atoi(argv[6]) : 5;
  if (batch < 1 || steps < 1 || repeats < 0 || warmup < 1) {
    fprintf(stderr, "bench_cnn_graph: BATCH, STEPS and WARMUP must be positive, REPEATS not negative\n");
    return 2;
  }
  status = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *gd = read_file(graph_path);
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, gd, io, status);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  check(graph_path);

  /* The batches: [n][batch][28*28] float32, then [n][batch] int64. */
  TF_Buffer *data = read_file(data_path);
  size_t per = (size_t)batch * (PIXELS * sizeof(float) + sizeof(int64_t));
  int n = (int)(data->length / per);
  if (n < 1 || data->length != (size_t)n * per) {
    fprintf(stderr, "bench_cnn_graph: %s holds %zu bytes, not whole batches of %d examples\n", data_path,
            data->length, batch);
    TF_DeleteBuffer(data);
    TF_DeleteGraph(g);
    TF_DeleteStatus(status);
    return 1;
  }
  TF_Tensor **images = calloc((size_t)n, sizeof *images), **labels = calloc((size_t)n, sizeof *labels);
  const int64_t idims[4] = {batch, 28, 28, 1}, ldims[1] = {batch};
  for (int i = 0; i < n; i++) {
    size_t isz = (size_t)batch * PIXELS * sizeof(float), lsz = (size_t)batch * sizeof(int64_t);
    images[i] = TF_AllocateTensor(TF_FLOAT, idims, 4, isz);
    labels[i] = TF_AllocateTensor(TF_INT64, ldims, 1, lsz);
    memcpy(TF_TensorData(images[i]), (const char *)data->data + (size_t)i * isz, isz);
    memcpy(TF_TensorData(labels[i]), (const char *)data->data + (size_t)n * isz + (size_t)i * lsz, lsz);
  }
  TF_DeleteBuffer(data);

  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, status);
  TF_DeleteSessionOptions(o);
  check("TF_NewSession");
  TF_Operation *init = op(g, "init"), *train = op(g, "train");
  TF_Output feeds[2] = {{op(g, "x"), 0}, {op(g, "y"), 0}}, loss = {op(g, "loss"), 0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, status);
  check("init");

  /* The warm-up, then the timed repeats: REPEATS of them, or with REPEATS 0 one per line read
   * from stdin (so a driving program can alternate its own repeats with these), each printed
   * when done. */
  long k = 0;
  float first = 0, last = 0;
  for (int r = -1; repeats == 0 || r < repeats; r++) { /* r == -1: the warm-up */
    if (r >= 0 && repeats == 0) {
      char line[64];
      if (!fgets(line, sizeof line, stdin)) break;
    }
    int count = r < 0 ? warmup : steps;
    double t0 = bench_now(), c0 = bench_cpu_now();
    for (int s = 0; s < count; s++, k++) {
      TF_Tensor *in[2] = {images[k % n], labels[k % n]}, *l = NULL;
      TF_SessionRun(sess, NULL, feeds, in, 2, &loss, &l, 1, (const TF_Operation *const *)&train, 1, NULL, status);
      check("train step");
      last = *(const float *)TF_TensorData(l);
      if (k == 0) first = last;
      TF_DeleteTensor(l);
    }
    if (r < 0) {
      printf("loss %g\n", first);
    } else {
      double wall = bench_now() - t0, cpu = bench_cpu_now() - c0;
      printf("examples/s %.2f per-cpu-second %.2f loss %g\n", (double)steps * batch / wall, (double)steps * batch / cpu,
             last);
    }
    fflush(stdout);
  }

  for (int i = 0; i < n; i++) {
    TF_DeleteTensor(images[i]);
    TF_DeleteTensor(labels[i]);
  }
  free(images);
  free(labels);
  TF_CloseSession(sess, status);
  TF_DeleteSession(sess, status);
  TF_DeleteGraph(g);
  TF_DeleteStatus(status);
  return 0;
}
