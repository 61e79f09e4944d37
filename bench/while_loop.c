/*
 * bench/while_loop — per-iteration cost of a scalar TF1 while loop (i = 0; while i < n: i += 1)
 * with n = 100,000, run from TensorFlow's own GraphDef (bench/while_loop.pb, written by
 * bench/gen_while_loop.py), beside PyPI TensorFlow running the same GraphDef in a
 * tf.compat.v1 Session with the same inter-op and intra-op thread counts, in the same
 * invocation, when a Python with tensorflow is available. Targets: <= 1 us per iteration, and
 * >= 10x TensorFlow. Ratios > 1 mean tfc is faster.
 *
 * Usage: bench_while_loop [threads] [python]
 *        (defaults: 2, bench_python's choice (the build tree's bench-venv when there))
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"

#define N 100000

static TF_Buffer *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc((size_t)len);
  if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
    free(data);
    fclose(f);
    return NULL;
  }
  fclose(f);
  TF_Buffer *b = TF_NewBufferFromString(data, (size_t)len);
  free(data);
  return b;
}

/* One run with n fed; returns the loop's result, or -1 on error (message printed). */
static int run_once(TF_Session *sess, TF_Graph *g, int n, TF_Status *s) {
  TF_Tensor *feed = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int));
  *(int *)TF_TensorData(feed) = n;
  TF_Output in = {TF_GraphOperationByName(g, "n"), 0};
  TF_Output out = {TF_GraphOperationByName(g, "out"), 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, &in, &feed, 1, &out, &r, 1, NULL, 0, NULL, s);
  TF_DeleteTensor(feed);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "run failed: %s\n", TF_Message(s));
    return -1;
  }
  int v = *(int *)TF_TensorData(r);
  TF_DeleteTensor(r);
  return v;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  const char *python = bench_python(argc > 2 ? argv[2] : NULL);
  if (threads < 1) threads = 1;
  TF_Buffer *gd = read_file(TFC_BENCH_DIR "/while_loop.pb");
  if (!gd) {
    fprintf(stderr, "cannot read %s\n", TFC_BENCH_DIR "/while_loop.pb");
    return 1;
  }
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, gd, io, s);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "import failed: %s\n", TF_Message(s));
    return 1;
  }
  /* ConfigProto: intra_op_parallelism_threads (2) and inter_op_parallelism_threads (5) */
  unsigned char cfg[4] = {0x10, (unsigned char)threads, 0x28, (unsigned char)threads};
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_SetConfig(so, cfg, sizeof cfg, s);
  TF_Session *sess = TF_NewSession(g, so, s);
  TF_DeleteSessionOptions(so);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "session failed: %s\n", TF_Message(s));
    return 1;
  }
  if (run_once(sess, g, 1000, s) != 1000) {
    fprintf(stderr, "loop result is wrong\n");
    return 1;
  }
  double runs[7];
  for (int k = 0; k < 7; k++) {
    double t0 = bench_now();
    if (run_once(sess, g, N, s) != N) {
      fprintf(stderr, "loop result is wrong\n");
      return 1;
    }
    runs[k] = bench_now() - t0;
  }
  double tfc_us = bench_median(runs, 7) / N * 1e6;

  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s/gen_while_loop.py --time %s/while_loop.pb %d %d 2>/dev/null", python,
           TFC_BENCH_DIR, TFC_BENCH_DIR, N, threads);
  double tf = bench_peer_number(cmd);

  printf("while_loop (i < %d; i += 1), %d thread%s:\n", N, threads, threads > 1 ? "s" : "");
  bench_print_peers(RTLD_DEFAULT, threads, threads, python, "tensorflow=%d,%d", threads, threads);
  printf("  tfc:         %8.4f us per iteration (target <= 1 us)\n", tfc_us);
  if (tf > 0)
    printf("  TensorFlow:  %8.4f us per iteration   ratio TF/tfc: %.2f (target >= 10)\n", tf / N * 1e6,
           tf / N * 1e6 / tfc_us);
  else
    printf("  TensorFlow:  n/a (no tensorflow for %s)\n", python);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
