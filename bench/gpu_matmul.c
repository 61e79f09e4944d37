/*
 * bench/gpu_matmul — MatMul on /gpu:0 through TF_SessionRun against cuBLAS called directly,
 * in one process, on the same GPU, for n x n float32 and float16 matrices (tfc's GPU MatMul
 * takes half, float and double; half computes in float, as TF's does).
 *
 * tfc: the graph is a = VariableV2, b = VariableV2 (both on /gpu:0, assigned once from fed
 * host matrices before timing), c = MatMul(a, b) on /gpu:0, and probe = Slice(a, [0,0], [1,1])
 * on /gpu:0. A timed round is K runs with c as a target (nothing fetched: no device-to-host
 * copy of the product) followed by one run fetching the 1x1 probe; the probe's copy to the
 * host waits for the GPU's compute stream, so the round ends only when all K products are
 * done. So a round times K x (TF_SessionRun + MatMul kernel) + one tiny fetch.
 * cuBLAS: a round is K cublasSgemm (float) or cublasGemmEx with half storage and float
 * compute (half) calls on one stream, then cudaStreamSynchronize — the same calls, operand
 * order and compute types as tfc's kernel (no TF32: TF 1.15 knew none), same stream semantics.
 *
 * K is chosen so that a round lasts about half a second; each side reports its best of three
 * rounds, interleaved. Before timing, both products are checked against a float64 reference on
 * sampled entries (a mismatch fails the benchmark: exit 1). Prints TFLOP/s (2 n^3 per product)
 * of both and the ratio tfc/cuBLAS (target >= 0.9). tfc's session sets allow_growth so that
 * its arena and cuBLAS's buffers share the GPU.
 *
 * Usage: bench_gpu_matmul [--float-only] [sizes...]   (default 1024 4096 8192)
 * Without a GPU it prints one line saying so and exits 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gpu_util.h"
#include "tensorflow/c/c_api.h"

#ifdef TFC_BENCH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

/* ---- host half <-> float (IEEE binary16, round to nearest even) ---- */

static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));
  if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: inf */
  if (mag < 0x38800000u) {                                    /* below 2^-14: subnormal or zero */
    if (mag < 0x33000000u) return (uint16_t)sign;              /* below half the least subnormal */
    uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    /* value = m * 2^(e - 150), so in units of the least subnormal (2^-24) m >> (126 - e) */
    int shift = 126 - (int)(mag >> 23); /* 14..24 */
    uint32_t q = m >> (shift), rem = m & ((1u << shift) - 1), half_ulp = 1u << (shift - 1);
    if (rem > half_ulp || (rem == half_ulp && (q & 1))) q++;
    return (uint16_t)(sign | q);
  }
  uint32_t h = ((mag - 0x38000000u) >> 13), rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static float from_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float f;
  if (e == 0) f = ldexpf((float)m, -24);
  else if (e == 31) f = m ? NAN : INFINITY;
  else f = ldexpf((float)(m | 0x400), (int)e - 25);
  uint32_t x;
  memcpy(&x, &f, 4);
  x |= sign;
  memcpy(&f, &x, 4);
  return f;
}

/* ---- checks ---- */

static void cuda_ok(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

static void blas_ok(cublasStatus_t e, const char *what) {
  if (e != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s: cuBLAS status %d\n", what, (int)e);
    exit(1);
  }
}

static void tf_ok(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(s));
    exit(1);
  }
}

/* ---- the inputs: multiples of 1/8 in [-0.75, 0.75], exact in half and float ---- */

static float a_at(int64_t i) { return (float)((i * 7) % 13 - 6) * 0.125f; }
static float b_at(int64_t i) { return (float)((i * 5) % 11 - 5) * 0.125f; }

/* A new host tensor of dtype dt (float or half) holding f(0..n*n). */
static TF_Tensor *host_matrix(TF_DataType dt, int64_t n, float (*f)(int64_t)) {
  int64_t dims[2] = {n, n};
  size_t el = dt == TF_HALF ? 2 : 4;
  TF_Tensor *t = TF_AllocateTensor(dt, dims, 2, (size_t)(n * n) * el);
  if (!t) {
    fprintf(stderr, "out of host memory for a %lldx%lld matrix\n", (long long)n, (long long)n);
    exit(1);
  }
  for (int64_t i = 0; i < n * n; i++) {
    if (dt == TF_HALF) ((uint16_t *)TF_TensorData(t))[i] = to_half(f(i));
    else ((float *)TF_TensorData(t))[i] = f(i);
  }
  return t;
}

static double elem(const void *c, TF_DataType dt, int64_t i) {
  return dt == TF_HALF ? from_half(((const uint16_t *)c)[i]) : ((const float *)c)[i];
}

/* Compares 1024 sampled entries of the row-major product c against float64 sums; the bound is
 * relative to sum |a_ik b_kj| (the sum's own scale): 1e-4 in float (blocked float
 * accumulation over up to 8192 terms), 2e-3 in half (float accumulation, then rounding the
 * result to half: 2^-11). Returns 0, or -1 after printing the first bad entry. */
static int check_product(const char *who, const void *c, TF_DataType dt, int64_t n) {
  double tol = dt == TF_HALF ? 2e-3 : 1e-4;
  for (int64_t s = 0; s < 1024; s++) {
    int64_t i = (s * 7919) % n, j = (s * 104729 + 13) % n;
    double ref = 0, scale = 0;
    for (int64_t k = 0; k < n; k++) {
      double p = (double)a_at(i * n + k) * (double)b_at(k * n + j);
      ref += p;
      scale += fabs(p);
    }
    double got = elem(c, dt, i * n + j);
    if (!(fabs(got - ref) <= tol * (scale > 1 ? scale : 1))) {
      fprintf(stderr, "%s: c[%lld,%lld] = %.9g, float64 reference %.9g: WRONG\n", who, (long long)i, (long long)j,
              got, ref);
      return -1;
    }
  }
  return 0;
}

/* ---- cuBLAS ---- */

typedef struct peer {
  cudaStream_t stream;
  cublasHandle_t h;
  void *a, *b, *c;
} peer;

/* C = A B row-major as tfc's kernel computes it: the column-major C^T = B^T A^T. */
static void peer_gemm(peer *p, TF_DataType dt, int n) {
  static const float one = 1.0f, zero = 0.0f;
  if (dt == TF_FLOAT)
    blas_ok(cublasSgemm(p->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p->b, n, p->a, n, &zero, p->c, n),
            "cublasSgemm");
  else
    blas_ok(cublasGemmEx(p->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p->b, CUDA_R_16F, n, p->a, CUDA_R_16F, n,
                         &zero, p->c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
}

static double peer_round(peer *p, TF_DataType dt, int n, int k) {
  double t0 = bench_now();
  for (int i = 0; i < k; i++) peer_gemm(p, dt, n);
  cuda_ok(cudaStreamSynchronize(p->stream), "cudaStreamSynchronize");
  return bench_now() - t0;
}

/* ---- tfc ---- */

typedef struct tfc_side {
  TF_Graph *g;
  TF_Session *sess;
  TF_Operation *c, *probe;
} tfc_side;

static TF_Operation *node(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in,
                          int n_in, TF_DataType dt, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n_in; i++) TF_AddInput(d, in[i]);
  if (strcmp(type, "Placeholder") == 0) TF_SetAttrType(d, "dtype", dt);
  TF_Operation *o = TF_FinishOperation(d, s);
  tf_ok(s, name);
  return o;
}

static TF_Operation *int_const(TF_Graph *g, const char *name, const int32_t *v, TF_Status *s) {
  int64_t two = 2;
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &two, 1, 2 * sizeof(int32_t));
  memcpy(TF_TensorData(t), v, 2 * sizeof(int32_t));
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  TF_Operation *o = TF_FinishOperation(d, s);
  tf_ok(s, name);
  return o;
}

/* Builds the graph, assigns the variables from ha and hb (the only host-to-device copies) and
 * fetches the product once into *out_c (a host tensor the caller deletes). */
static void tfc_setup(tfc_side *t, TF_DataType dt, TF_Tensor *ha, TF_Tensor *hb, TF_Tensor **out_c, TF_Status *s) {
  static const char *gpu = "/gpu:0";
  TF_Graph *g = t->g = TF_NewGraph();
  TF_Operation *init[2];
  TF_Output var[2], fed[2];
  const char *names[2] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    char name[32];
    TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", names[i]);
    TF_SetDevice(d, gpu);
    TF_SetAttrType(d, "dtype", dt);
    int64_t dims[2] = {TF_Dim(ha, 0), TF_Dim(ha, 1)};
    TF_SetAttrShape(d, "shape", dims, 2);
    var[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    tf_ok(s, names[i]);
    snprintf(name, sizeof name, "%s_value", names[i]);
    fed[i] = (TF_Output){node(g, "Placeholder", name, "/cpu:0", NULL, 0, dt, s), 0};
    snprintf(name, sizeof name, "%s_assign", names[i]);
    TF_Output in[2] = {var[i], fed[i]};
    init[i] = node(g, "Assign", name, gpu, in, 2, dt, s);
  }
  TF_Output reads[2];
  for (int i = 0; i < 2; i++) {
    char name[32];
    snprintf(name, sizeof name, "%s_read", names[i]);
    reads[i] = (TF_Output){node(g, "Identity", name, gpu, &var[i], 1, dt, s), 0};
  }
  t->c = node(g, "MatMul", "c", gpu, reads, 2, dt, s);
  static const int32_t zeros[2] = {0, 0}, ones[2] = {1, 1};
  TF_Output slice_in[3] = {reads[0], {int_const(g, "begin", zeros, s), 0}, {int_const(g, "size", ones, s), 0}};
  t->probe = node(g, "Slice", "probe", gpu, slice_in, 3, dt, s);

  TF_SessionOptions *o = TF_NewSessionOptions();
  if (bench_gpu_config(o, NULL, 0)) exit(1);
  t->sess = TF_NewSession(g, o, s);
  tf_ok(s, "TF_NewSession");
  TF_DeleteSessionOptions(o);
  TF_Tensor *vals[2] = {ha, hb};
  TF_SessionRun(t->sess, NULL, fed, vals, 2, NULL, NULL, 0, (const TF_Operation *const *)init, 2, NULL, s);
  tf_ok(s, "assigning the variables");
  TF_Output c = {t->c, 0};
  TF_SessionRun(t->sess, NULL, NULL, NULL, 0, &c, out_c, 1, NULL, 0, NULL, s);
  tf_ok(s, "fetching c");
}

static double tfc_round(tfc_side *t, int k, TF_Status *s) {
  TF_Output probe = {t->probe, 0};
  double t0 = bench_now();
  for (int i = 0; i < k; i++) {
    TF_SessionRun(t->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&t->c, 1, NULL, s);
    tf_ok(s, "MatMul step");
  }
  TF_Tensor *p = NULL;
  TF_SessionRun(t->sess, NULL, NULL, NULL, 0, &probe, &p, 1, NULL, 0, NULL, s);
  tf_ok(s, "probe step");
  double dt = bench_now() - t0;
  TF_DeleteTensor(p);
  return dt;
}

static void tfc_teardown(tfc_side *t, TF_Status *s) {
  TF_CloseSession(t->sess, s);
  TF_DeleteSession(t->sess, s);
  TF_DeleteGraph(t->g);
}

/* One size and dtype; returns the ratio tfc/cuBLAS, or -1 when a product was wrong. */
static double bench_one(int n, TF_DataType dt, TF_Status *s) {
  size_t el = dt == TF_HALF ? 2 : 4, bytes = (size_t)n * (size_t)n * el;
  TF_Tensor *ha = host_matrix(dt, n, a_at), *hb = host_matrix(dt, n, b_at);
  peer p;
  cuda_ok(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  blas_ok(cublasCreate(&p.h), "cublasCreate");
  blas_ok(cublasSetStream(p.h, p.stream), "cublasSetStream");
  cuda_ok(cudaMalloc(&p.a, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&p.b, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&p.c, bytes), "cudaMalloc");
  cuda_ok(cudaMemcpy(p.a, TF_TensorData(ha), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  cuda_ok(cudaMemcpy(p.b, TF_TensorData(hb), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");

  /* Warm-up and checks: one product each, compared with the float64 reference. */
  peer_gemm(&p, dt, n);
  cuda_ok(cudaStreamSynchronize(p.stream), "cudaStreamSynchronize");
  void *pc = malloc(bytes);
  if (!pc) {
    fprintf(stderr, "out of host memory\n");
    exit(1);
  }
  cuda_ok(cudaMemcpy(pc, p.c, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  tfc_side t;
  TF_Tensor *tc = NULL;
  tfc_setup(&t, dt, ha, hb, &tc, s);
  int bad = check_product("cuBLAS", pc, dt, n) | check_product("tfc", TF_TensorData(tc), dt, n);
  free(pc);
  TF_DeleteTensor(tc);

  /* K products per round: about half a second of cuBLAS time. */
  double one = peer_round(&p, dt, n, 3) / 3;
  int k = (int)(0.5 / (one > 1e-7 ? one : 1e-7));
  k = k < 5 ? 5 : k > 20000 ? 20000 : k;
  tfc_round(&t, k < 50 ? k : 50, s); /* tfc's warm-up: plans, cuBLAS handle, arena growth */
  double best_peer = 1e30, best_tfc = 1e30;
  for (int r = 0; r < 3; r++) {
    double tp = peer_round(&p, dt, n, k), tt = tfc_round(&t, k, s);
    if (tp < best_peer) best_peer = tp;
    if (tt < best_tfc) best_tfc = tt;
  }
  double flop = 2.0 * n * (double)n * n * k;
  printf("%6d %5s %6d %12.2f %12.2f %8.3f%s\n", n, dt == TF_HALF ? "half" : "float", k, flop / best_peer * 1e-12,
         flop / best_tfc * 1e-12, best_peer / best_tfc, bad ? "  WRONG RESULT" : "");
  fflush(stdout);

  tfc_teardown(&t, s);
  cuda_ok(cudaFree(p.a), "cudaFree");
  cuda_ok(cudaFree(p.b), "cudaFree");
  cuda_ok(cudaFree(p.c), "cudaFree");
  cublasDestroy(p.h);
  cudaStreamDestroy(p.stream);
  TF_DeleteTensor(ha);
  TF_DeleteTensor(hb);
  return bad ? -1 : best_peer / best_tfc;
}
#endif /* TFC_BENCH_CUDA */

int main(int argc, char **argv) {
  int sizes[16] = {1024, 4096, 8192}, n_sizes = 3, float_only = 0, custom = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--float-only") == 0) {
      float_only = 1;
      continue;
    }
    int n = atoi(argv[i]);
    if (n < 1 || n > 46340) { /* n * n must fit cuBLAS's int leading dimensions' products */
      fprintf(stderr, "usage: bench_gpu_matmul [--float-only] [sizes...]  (1 <= size <= 46340)\n");
      return 2;
    }
    if (!custom) n_sizes = 0;
    custom = 1;
    if (n_sizes < 16) sizes[n_sizes++] = n;
  }
  bench_need_gpu("bench_gpu_matmul");
#ifndef TFC_BENCH_CUDA
  (void)float_only, (void)sizes, (void)n_sizes;
  printf("bench_gpu_matmul: built without CUDA, so there is no cuBLAS to compare with; nothing measured\n");
  return 0;
#else
  struct cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  printf("GPU 0: %s; tfc MatMul on /gpu:0 vs cuBLAS, same process and stream semantics\n", prop.name);
  printf("timed: K TF_SessionRun steps targeting c = MatMul(a, b) on GPU variables + one 1x1 fetch, "
         "vs K cuBLAS calls + cudaStreamSynchronize\n");
  printf("%6s %5s %6s %12s %12s %8s\n", "n", "dtype", "K", "cuBLAS TF/s", "tfc TF/s", "ratio");
  TF_Status *s = TF_NewStatus();
  double worst = 1e9;
  int wrong = 0;
  for (int si = 0; si < n_sizes; si++)
    for (int h = 0; h < (float_only ? 1 : 2); h++) {
      double r = bench_one(sizes[si], h ? TF_HALF : TF_FLOAT, s);
      if (r < 0) wrong = 1;
      else if (r < worst) worst = r;
    }
  TF_DeleteStatus(s);
  if (wrong) {
    printf("gpu_matmul: WRONG RESULTS (see above)\n");
    return 1;
  }
  printf("gpu_matmul: worst ratio tfc/cuBLAS %.3f (target >= 0.9)\n", worst);
  return 0;
#endif
}
