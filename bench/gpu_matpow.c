/*
 * bench/gpu_matpow — seed 000's benchmark on real GPUs: A^n + B^n for size x size float32
 * matrices (default 10000 and n = 10), once with both chains on /gpu:0 and once with A's on
 * /gpu:0 and B's on /gpu:1, the sum on /cpu:0, beside the same computation in PyTorch on the
 * same GPU.
 *
 * What is timed is what the seed (and examples/matpow.c) times: one TF_SessionRun that feeds A
 * and B from host memory, computes matpow(A, n) and matpow(B, n) (n MatMuls each:
 * matpow(M, n) = M if n < 1 else matmul(M, matpow(M, n - 1))) on the GPUs, copies both to the
 * host and adds them on /cpu:0 (AddN), fetching the sum. The first run of each graph builds its
 * plan and warms the GPU and is not timed; the figure is the median of three runs after it.
 * The graph is built here with the public C API (a compact form of examples/matpow.c's).
 *
 * Two GPUs: the first two GPUs tfc lists when there are two physical ones; otherwise GPU 0 is
 * split into two logical GPUs of --virtual MB each (GPUOptions.experimental.virtual_devices;
 * default 20000), as TF's virtual devices do on a one-GPU machine: then both towers share one
 * GPU and the figure shows what partitioning and the second device cost, not a speed-up.
 * allow_growth is set so that the arenas grow only as needed.
 *
 * The PyTorch peer (run first, in its own process, when `python -c "import torch"` works and
 * torch sees CUDA) does the same: host tensors copied to cuda:0 (B to cuda:1 when there are
 * two GPUs), matpow chains of torch.matmul without TF32 (TF 1.15 knew none), results copied to
 * the host and added there, torch.cuda.synchronize; median of three runs after a warm-up.
 * Ratios are PyTorch time / tfc time (> 1: tfc faster).
 *
 * Usage: bench_gpu_matpow [--size N] [--n N] [--virtual MB] [--python PATH]
 * Without a GPU it prints one line saying so and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gpu_util.h"
#include "tensorflow/c/c_api.h"

static void tf_ok(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static TF_Output add_op(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in,
                        int n_in, int list, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  if (list) TF_AddInputList(d, in, n_in);
  else
    for (int i = 0; i < n_in; i++) TF_AddInput(d, in[i]);
  TF_Operation *o = TF_FinishOperation(d, s);
  tf_ok(s, name);
  return (TF_Output){o, 0};
}

static TF_Output placeholder(TF_Graph *g, const char *name, const char *dev, int64_t size, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetDevice(d, dev);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t dims[2] = {size, size};
  TF_SetAttrShape(d, "shape", dims, 2);
  TF_Operation *o = TF_FinishOperation(d, s);
  tf_ok(s, name);
  return (TF_Output){o, 0};
}

/* matpow(m, n) on dev; *k numbers the MatMuls. */
static TF_Output matpow(TF_Graph *g, const char *dev, TF_Output m, int n, int *k, TF_Status *s) {
  if (n < 1) return m;
  TF_Output in[2] = {m, matpow(g, dev, m, n - 1, k, s)};
  char name[32];
  snprintf(name, sizeof name, "MatMul_%d", (*k)++);
  return add_op(g, "MatMul", name, dev, in, 2, 0, s);
}

/* The median seconds of three fed runs of A^n + B^n with the chains on dev_a and dev_b;
 * *first gets sum[0,0]. */
static double tfc_time(const char *dev_a, const char *dev_b, TF_SessionOptions *o, TF_Tensor *A, TF_Tensor *B,
                       int64_t size, int n, float *first, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_Output a = placeholder(g, "a", dev_a, size, s), b = placeholder(g, "b", dev_b, size, s);
  int k = 0;
  TF_Output terms[2] = {matpow(g, dev_a, a, n, &k, s), matpow(g, dev_b, b, n, &k, s)};
  TF_Output sum = add_op(g, "AddN", "AddN", "/cpu:0", terms, 2, 1, s);
  TF_Session *sess = TF_NewSession(g, o, s);
  tf_ok(s, "TF_NewSession");
  TF_Output feeds[2] = {a, b};
  TF_Tensor *vals[2] = {A, B};
  double times[3];
  for (int rep = -1; rep < 3; rep++) {
    TF_Tensor *out = NULL;
    double t0 = bench_now();
    TF_SessionRun(sess, NULL, feeds, vals, 2, &sum, &out, 1, NULL, 0, NULL, s);
    double t = bench_now() - t0;
    tf_ok(s, "TF_SessionRun");
    if (rep >= 0) times[rep] = t;
    *first = ((const float *)TF_TensorData(out))[0];
    TF_DeleteTensor(out);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  return bench_median(times, 3);
}

/* PyTorch's median seconds for the same computation; two_gpus puts B's chain on cuda:1.
 * -1 when torch or CUDA is missing. */
static double torch_time(const char *python, int64_t size, int n, int two_gpus) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s -c \"import time, torch\n"
           "assert torch.cuda.is_available() and torch.cuda.device_count() >= %d\n"
           "torch.backends.cuda.matmul.allow_tf32 = False\n"
           "size, n = %lld, %d\n"
           "g = torch.Generator().manual_seed(4)\n"
           "A = torch.rand(size, size, generator=g) / size; B = torch.rand(size, size, generator=g) / size\n"
           "def matpow(M, n): return M if n < 1 else torch.matmul(M, matpow(M, n - 1))\n"
           "def run():\n"
           "    a = A.to('cuda:0'); b = B.to('cuda:%d')\n"
           "    s = matpow(a, n).cpu() + matpow(b, n).cpu()\n"
           "    torch.cuda.synchronize('cuda:0'); torch.cuda.synchronize('cuda:%d')\n"
           "    return s\n"
           "run()\n"
           "ts = []\n"
           "for r in range(3):\n"
           "    t0 = time.perf_counter(); run(); ts.append(time.perf_counter() - t0)\n"
           "print(sorted(ts)[1])\" 2>/dev/null",
           python, two_gpus ? 2 : 1, (long long)size, n, two_gpus ? 1 : 0, two_gpus ? 1 : 0);
  return bench_peer_number(cmd);
}

int main(int argc, char **argv) {
  int64_t size = 10000;
  int n = 10;
  float virtual_mb = 20000;
  const char *python = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) size = atoll(argv[++i]);
    else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--virtual") == 0 && i + 1 < argc) virtual_mb = (float)atof(argv[++i]);
    else if (strcmp(argv[i], "--python") == 0 && i + 1 < argc) python = argv[++i];
    else {
      fprintf(stderr, "usage: bench_gpu_matpow [--size N] [--n N] [--virtual MB] [--python PATH]\n");
      return 2;
    }
  }
  if (size < 1 || size > 46340 || n < 0 || n > 1000 || !(virtual_mb > 0)) {
    fprintf(stderr, "bench_gpu_matpow: need 1 <= --size <= 46340, 0 <= --n <= 1000, --virtual > 0\n");
    return 2;
  }
  bench_need_gpu("bench_gpu_matpow");
  int physical = bench_gpu_count(NULL);
  printf("seed 000: A^n + B^n, n = %d (matpow: n MatMuls each), %lldx%lld float32, sum on /cpu:0; timed: one "
         "fed run (host inputs, GPU products, host sum), median of 3 after a warm-up\n",
         n, (long long)size, (long long)size);
  python = bench_python(python);
  bench_print_peers(RTLD_DEFAULT, 0, 0, python, "torch");

  /* PyTorch first, before tfc's arenas hold any GPU memory. */
  double torch1 = torch_time(python, size, n, 0), torch2 = physical >= 2 ? torch_time(python, size, n, 1) : -1;

  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  float limits[2] = {virtual_mb, virtual_mb};
  if (bench_gpu_config(o, limits, physical >= 2 ? 0 : 2)) return 1;
  const int64_t dims[2] = {size, size};
  size_t bytes = (size_t)(size * size) * sizeof(float);
  TF_Tensor *A = TF_AllocateTensor(TF_FLOAT, dims, 2, bytes), *B = TF_AllocateTensor(TF_FLOAT, dims, 2, bytes);
  if (!A || !B) {
    fprintf(stderr, "out of host memory\n");
    return 1;
  }
  float *pa = TF_TensorData(A), *pb = TF_TensorData(B);
  unsigned int seed = 4;
  for (int64_t i = 0; i < size * size; i++) { /* uniform [0, 1) / size: the powers stay finite */
    pa[i] = (float)rand_r(&seed) / ((float)RAND_MAX * (float)size);
    pb[i] = (float)rand_r(&seed) / ((float)RAND_MAX * (float)size);
  }
  float first1 = 0, first2 = 0;
  double t1 = tfc_time("/gpu:0", "/gpu:0", o, A, B, size, n, &first1, s);
  double t2 = tfc_time("/gpu:0", "/gpu:1", o, A, B, size, n, &first2, s);
  const char *two = physical >= 2 ? "2 GPUs" : "2 logical GPUs on GPU 0";
  printf("tfc single GPU:     %9.4f s\n", t1);
  printf("tfc two GPUs:       %9.4f s  (%s; single/two %.2f)\n", t2, two, t1 / t2);
  float diff = first1 > first2 ? first1 - first2 : first2 - first1;
  int same = diff <= 1e-5f * (first1 > 0 ? first1 : 1);
  printf("sum[0,0] = %g on one GPU, %g on two: %s\n", first1, first2, same ? "same result" : "DIFFERENT");
  if (torch1 > 0) {
    printf("PyTorch single GPU: %9.4f s  ratio PyTorch/tfc %.2f\n", torch1, torch1 / t1);
    if (torch2 > 0) printf("PyTorch 2 GPUs:     %9.4f s  ratio PyTorch/tfc %.2f\n", torch2, torch2 / t2);
    printf("gpu_matpow: ratio PyTorch/tfc single GPU %.2f (> 1: tfc faster)\n", torch1 / t1);
  } else {
    printf("PyTorch: n/a (no torch with CUDA for %s); tfc's figures alone\n", python);
  }
  TF_DeleteTensor(A);
  TF_DeleteTensor(B);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return same ? 0 : 1;
}
