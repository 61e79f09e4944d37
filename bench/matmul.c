/*
 * bench/matmul — MatMul through TF_SessionRun against a direct cblas_sgemm call on the same
 * matrices, in one process. ratio = sgemm time / tfc time (1.0 = no overhead; higher is
 * better). Prints which core OpenBLAS chose for its kernels.
 *
 * Usage: bench_matmul [sizes...]   (default 256 1024 2048)
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"

char *openblas_get_corename(void);
int openblas_get_num_threads(void);

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return TF_FinishOperation(d, s);
}

/* Best of `reps` timings after one warm-up, for each of the two candidates, interleaved. */
int main(int argc, char **argv) {
  int sizes[16] = {256, 1024, 2048}, n_sizes = 3;
  if (argc > 1) {
    n_sizes = 0;
    for (int i = 1; i < argc && n_sizes < 16; i++) sizes[n_sizes++] = atoi(argv[i]);
  }
  const char *env_core = getenv("OPENBLAS_CORETYPE");
  int cores = openblas_get_num_threads();
  printf("OpenBLAS core: %s (OPENBLAS_CORETYPE=%s), %d threads for the peer\n", openblas_get_corename(),
         env_core ? env_core : "unset", cores);
  bench_print_peers(RTLD_DEFAULT, 0, 0, NULL, NULL);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = placeholder(g, "a", s), *b = placeholder(g, "b", s);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "c");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation *c = TF_FinishOperation(d, s);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "setup failed: %s\n", TF_Message(s));
    return 1;
  }
  printf("%6s %12s %12s %8s\n", "n", "sgemm ms", "tfc ms", "ratio");
  double worst = 1e9;
  for (int si = 0; si < n_sizes; si++) {
    int n = sizes[si];
    int64_t dims[2] = {n, n};
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    TF_Tensor *ta = TF_AllocateTensor(TF_FLOAT, dims, 2, bytes), *tb = TF_AllocateTensor(TF_FLOAT, dims, 2, bytes);
    float *pa = TF_TensorData(ta), *pb = TF_TensorData(tb);
    for (size_t i = 0; i < (size_t)n * n; i++) {
      pa[i] = (float)((i * 7) % 13) * 0.1f;
      pb[i] = (float)((i * 5) % 11) * 0.1f;
    }
    float *pc = malloc(bytes);
    int reps = n <= 256 ? 200 : n <= 1024 ? 10 : 4;
    double best_blas = 1e9, best_tfc = 1e9;
    TF_Output in[2] = {{a, 0}, {b, 0}}, out = {c, 0};
    TF_Tensor *feeds[2] = {ta, tb};
    for (int r = -1; r < reps; r++) {
      /* The peer gets OpenBLAS's own threads, one per core; tfc turns them off and shards
       * the GEMM over its device's threads itself. */
      openblas_set_num_threads(cores);
      double t0 = bench_now();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc, n);
      double t1 = bench_now();
      openblas_set_num_threads(1);
      TF_Tensor *res = NULL;
      TF_SessionRun(sess, NULL, in, feeds, 2, &out, &res, 1, NULL, 0, NULL, s);
      double t2 = bench_now();
      if (TF_GetCode(s) != TF_OK) {
        fprintf(stderr, "run failed: %s\n", TF_Message(s));
        return 1;
      }
      if (r == -1) { /* blocked GEMMs may round differently in the last bits */
        const float *pr = TF_TensorData(res);
        for (size_t i = 0; i < (size_t)n * n; i++)
          if (fabsf(pr[i] - pc[i]) > 1e-4f * (1.0f + fabsf(pc[i]))) {
            fprintf(stderr, "warning: results differ at %zu: %g vs %g\n", i, pr[i], pc[i]);
            break;
          }
      }
      TF_DeleteTensor(res);
      if (r >= 0) {
        if (t1 - t0 < best_blas) best_blas = t1 - t0;
        if (t2 - t1 < best_tfc) best_tfc = t2 - t1;
      }
    }
    double ratio = best_blas / best_tfc;
    if (ratio < worst) worst = ratio;
    printf("%6d %12.3f %12.3f %8.3f\n", n, best_blas * 1e3, best_tfc * 1e3, ratio);
    free(pc);
    TF_DeleteTensor(ta);
    TF_DeleteTensor(tb);
  }
  printf("matmul: worst ratio %.3f (target >= 0.95)\n", worst);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
