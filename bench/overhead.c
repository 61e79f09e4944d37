/*
 * bench/overhead — per-run and per-node cost of the runtime itself:
 *   1. TF_SessionRun of a one-node graph (fetch a scalar Const);      target <= 5 us
 *   2. a chain of 1,000 tiny nodes (x = x + 1 on scalars), per node;  target <= 0.3 us
 *   3. the same chain traced (RunOptions.trace_level FULL_TRACE, RunMetadata returned), per
 *      node: what step_stats cost when asked for (untraced runs pay one branch per node)
 * beside PyTorch's time for one tiny op (a scalar add) in the same invocation, when a Python
 * with torch is available (PyPI's, in the build tree's bench-venv: make bench installs it).
 * Ratios > 1 mean tfc is faster.
 *
 * Usage: bench_overhead [python]   (default: bench_python's choice, the build tree's
 *        bench-venv when there)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"

static TF_Operation *scalar_const(TF_Graph *g, const char *name, float v, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(t) = v;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  TF_DeleteTensor(t);
  return op;
}

/* Median of 7 batches of `iters` runs, in seconds per run. opts: serialized RunOptions, or
 * NULL; with opts each run also returns its RunMetadata. */
static double time_runs_with(TF_Session *sess, TF_Output out, int iters, const TF_Buffer *opts, TF_Status *s) {
  double best[7];
  for (int b = 0; b < 7; b++) {
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
      TF_Tensor *r = NULL;
      TF_Buffer *md = opts ? TF_NewBuffer() : NULL;
      TF_SessionRun(sess, opts, NULL, NULL, 0, &out, &r, 1, NULL, 0, md, s);
      TF_DeleteTensor(r);
      if (md) TF_DeleteBuffer(md);
    }
    best[b] = (bench_now() - t0) / iters;
  }
  return bench_median(best, 7);
}

static double time_runs(TF_Session *sess, TF_Output out, int iters, TF_Status *s) {
  return time_runs_with(sess, out, iters, NULL, s);
}

static double torch_per_op_us(const char *python) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s -c \"import time, torch\n"
           "torch.set_num_threads(1)\n"
           "a = torch.tensor(1.0); b = torch.tensor(2.0)\n"
           "for _ in range(1000): a + b\n"
           "n = 100000; t = time.perf_counter()\n"
           "for _ in range(n): a + b\n"
           "print((time.perf_counter() - t) / n * 1e6)\" 2>/dev/null",
           python);
  return bench_peer_number(cmd);
}

int main(int argc, char **argv) {
  const char *python = bench_python(argc > 1 ? argv[1] : NULL);
  TF_Status *s = TF_NewStatus();

  TF_Graph *g1 = TF_NewGraph();
  TF_Operation *c = scalar_const(g1, "c", 1.0f, s);
  TF_Session *s1 = TF_NewSession(g1, NULL, s);
  double one = time_runs(s1, (TF_Output){c, 0}, 20000, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "run failed: %s\n", TF_Message(s));
    return 1;
  }

  const int chain = 1000;
  TF_Graph *g2 = TF_NewGraph();
  TF_Operation *prev = scalar_const(g2, "x", 1.0f, s);
  TF_Operation *one_c = scalar_const(g2, "one", 1.0f, s);
  for (int i = 0; i < chain; i++) {
    char name[32];
    snprintf(name, sizeof name, "n%d", i);
    TF_OperationDescription *d = TF_NewOperation(g2, "AddV2", name);
    TF_AddInput(d, (TF_Output){prev, 0});
    TF_AddInput(d, (TF_Output){one_c, 0});
    prev = TF_FinishOperation(d, s);
  }
  TF_Session *s2 = TF_NewSession(g2, NULL, s);
  double ch = time_runs(s2, (TF_Output){prev, 0}, 200, s);
  TF_Tensor *check = NULL;
  TF_Output last = {prev, 0};
  TF_SessionRun(s2, NULL, NULL, NULL, 0, &last, &check, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK || *(float *)TF_TensorData(check) != 1.0f + chain) {
    fprintf(stderr, "chain result is wrong\n");
    return 1;
  }
  TF_DeleteTensor(check);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "run failed: %s\n", TF_Message(s));
    return 1;
  }
  /* RunOptions{trace_level: FULL_TRACE}: field 1, varint 3 */
  static const unsigned char full_trace[] = {0x08, 0x03};
  TF_Buffer *trace_opts = TF_NewBufferFromString(full_trace, sizeof full_trace);
  double traced = time_runs_with(s2, (TF_Output){prev, 0}, 50, trace_opts, s);
  TF_DeleteBuffer(trace_opts);
  double per_node = (ch - one) / chain;
  double torch = torch_per_op_us(python);

  bench_print_peers(RTLD_DEFAULT, 0, 0, python, "torch=1");
  printf("one-node TF_SessionRun:   %8.3f us   (target <= 5 us)\n", one * 1e6);
  printf("1000-node chain:          %8.3f us per node (target <= 0.3 us)\n", per_node * 1e6);
  printf("1000-node chain, traced:  %8.3f us per node (FULL_TRACE, RunMetadata returned)\n",
         (traced - one) / chain * 1e6);
  if (torch > 0)
    printf("PyTorch tiny op (a + b):  %8.3f us   ratio torch/tfc per op: %.2f\n", torch, torch / (per_node * 1e6));
  else
    printf("PyTorch tiny op:          n/a (no torch for %s)\n", python);
  TF_DeleteSession(s1, s);
  TF_DeleteSession(s2, s);
  TF_DeleteGraph(g1);
  TF_DeleteGraph(g2);
  TF_DeleteStatus(s);
  return 0;
}
