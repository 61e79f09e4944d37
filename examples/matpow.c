/*
 * matpow — seed 000's benchmark, TensorFlow's multi-GPU example, in C:
 *
 *   A = np.random.rand(10000, 10000).astype('float32'); B = ... ; n = 10
 *   def matpow(M, n): return M if n < 1 else tf.matmul(M, matpow(M, n - 1))
 *   with tf.device('/gpu:0'):                      # single GPU
 *     a = tf.placeholder(tf.float32, [10000, 10000]); b = tf.placeholder(...)
 *     c1.append(matpow(a, n)); c1.append(matpow(b, n))
 *   with tf.device('/cpu:0'): sum = tf.add_n(c1)
 *   ... sess.run(sum, {a: A, b: B})                # timed
 *   with tf.device('/gpu:0'): a = ...; c2.append(matpow(a, n))   # multi GPU
 *   with tf.device('/gpu:1'): b = ...; c2.append(matpow(b, n))
 *   with tf.device('/cpu:0'): sum = tf.add_n(c2)
 *   print("Single GPU computation time: " + str(t2_1 - t1_1))
 *   print("Multi GPU computation time: " + str(t2_2 - t1_2))
 *
 * Usage: matpow [--size N] [--n N] [--virtual MB] [--cpu]
 *   --size   matrix size (default 10000)
 *   --n      matrix power (default 10)
 *   --virtual split GPU 0 into two logical GPUs of MB megabytes each
 *            (GPUOptions.experimental.virtual_devices), for one-GPU machines
 *   --cpu    run the same program on /cpu:0 and /cpu:1 (two CPU devices) instead of GPUs:
 *            what a machine without a GPU can show (use a small --size)
 * Prints both times, as the seed does, and a check that both runs agree.
 */
#include <time.h>

#include "example_util.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static TF_Operation *placeholder(TF_Graph *g, const char *name, const char *device, int64_t n, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetDevice(d, device);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const int64_t dims[2] = {n, n};
  TF_SetAttrShape(d, "shape", dims, 2);
  TF_Operation *op = TF_FinishOperation(d, s);
  ex_check(s, "Placeholder");
  return op;
}

/* matpow(M, n) = M if n < 1 else matmul(M, matpow(M, n - 1)); nodes are named as TF's Python
 * names them: MatMul, MatMul_1, ... (*k counts the graph's MatMuls). */
static TF_Output matpow(TF_Graph *g, const char *device, TF_Output m, int n, int *k, TF_Status *s) {
  if (n < 1) return m;
  TF_Output rest = matpow(g, device, m, n - 1, k, s);
  char name[32];
  if ((*k)++ == 0) snprintf(name, sizeof name, "MatMul");
  else snprintf(name, sizeof name, "MatMul_%d", *k - 1);
  return (TF_Output){ex_binary(g, "MatMul", name, device, m, rest, s), 0};
}

static TF_Operation *add_n(TF_Graph *g, const char *device, TF_Output *xs, int n, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "AddN", "AddN");
  TF_SetDevice(d, device);
  TF_AddInputList(d, xs, n);
  TF_Operation *op = TF_FinishOperation(d, s);
  ex_check(s, "AddN");
  return op;
}

/* One graph: a^n and b^n on dev_a and dev_b, summed on /cpu:0; returns the seconds one run takes
 * (after a warm-up run) and the sum's first element. */
static double run_once(const char *dev_a, const char *dev_b, TF_SessionOptions *o, TF_Tensor *A, TF_Tensor *B,
                       int64_t size, int n, float *first, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = placeholder(g, "a", dev_a, size, s), *b = placeholder(g, "b", dev_b, size, s);
  int k = 0;
  TF_Output terms[2];
  terms[0] = matpow(g, dev_a, (TF_Output){a, 0}, n, &k, s);
  terms[1] = matpow(g, dev_b, (TF_Output){b, 0}, n, &k, s);
  TF_Operation *sum = add_n(g, "/cpu:0", terms, 2, s);
  TF_Session *sess = TF_NewSession(g, o, s);
  ex_check(s, "TF_NewSession");
  TF_Output feeds[2] = {{a, 0}, {b, 0}}, fetch = {sum, 0};
  TF_Tensor *vals[2] = {A, B};
  double t = 0;
  for (int rep = 0; rep < 2; rep++) { /* the first run builds the plan and warms the device */
    TF_Tensor *out = NULL;
    double t0 = now_s();
    TF_SessionRun(sess, NULL, feeds, vals, 2, &fetch, &out, 1, NULL, 0, NULL, s);
    t = now_s() - t0;
    ex_check(s, "TF_SessionRun");
    *first = ((const float *)TF_TensorData(out))[0];
    TF_DeleteTensor(out);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  return t;
}

/* ConfigProto { gpu_options { experimental { virtual_devices { memory_limit_mb: [mb, mb] } } } }. */
static void set_virtual_gpus(TF_SessionOptions *o, float mb, TF_Status *s) {
  unsigned char buf[32];
  float limits[2] = {mb, mb};
  size_t k = 0;
  buf[k++] = 0x32; /* gpu_options, field 6 */
  buf[k++] = 14;
  buf[k++] = 0x4a; /* experimental, field 9 */
  buf[k++] = 12;
  buf[k++] = 0x0a; /* virtual_devices, field 1 */
  buf[k++] = 10;
  buf[k++] = 0x0a; /* memory_limit_mb, field 1, packed */
  buf[k++] = 8;
  memcpy(buf + k, limits, 8);
  k += 8;
  TF_SetConfig(o, buf, k, s);
  ex_check(s, "TF_SetConfig");
}

int main(int argc, char **argv) {
  int64_t size = 10000;
  int n = 10, cpu = 0;
  float virtual_mb = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) size = atoll(argv[++i]);
    else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--virtual") == 0 && i + 1 < argc) virtual_mb = (float)atof(argv[++i]);
    else if (strcmp(argv[i], "--cpu") == 0) cpu = 1;
    else {
      fprintf(stderr, "usage: matpow [--size N] [--n N] [--virtual MB] [--cpu]\n");
      return 2;
    }
  }
  if (size < 1 || n < 0) {
    fprintf(stderr, "matpow: --size must be >= 1 and --n >= 0\n");
    return 2;
  }
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  if (cpu) {
    TFC_SetDeviceCount(o, "CPU", 2, s);
    ex_check(s, "TFC_SetDeviceCount");
  } else if (virtual_mb > 0) {
    set_virtual_gpus(o, virtual_mb, s);
  }
  /* The seed's inputs: uniform [0, 1) — scaled down so that powers stay finite. */
  const int64_t dims[2] = {size, size};
  TF_Tensor *A = TF_AllocateTensor(TF_FLOAT, dims, 2, (size_t)(size * size) * sizeof(float));
  TF_Tensor *B = TF_AllocateTensor(TF_FLOAT, dims, 2, (size_t)(size * size) * sizeof(float));
  float *pa = TF_TensorData(A), *pb = TF_TensorData(B);
  unsigned int seed = 4;
  for (int64_t i = 0; i < size * size; i++) {
    pa[i] = (float)rand_r(&seed) / ((float)RAND_MAX * (float)size);
    pb[i] = (float)rand_r(&seed) / ((float)RAND_MAX * (float)size);
  }
  const char *d0 = cpu ? "/cpu:0" : "/gpu:0", *d1 = cpu ? "/cpu:1" : "/gpu:1";
  float first1 = 0, first2 = 0;
  double t1 = run_once(d0, d0, o, A, B, size, n, &first1, s);
  double t2 = run_once(d0, d1, o, A, B, size, n, &first2, s);
  const char *what = cpu ? "CPU" : "GPU";
  printf("Single %s computation time: %.6f s\n", what, t1);
  printf("Multi %s computation time: %.6f s\n", what, t2);
  float diff = first1 > first2 ? first1 - first2 : first2 - first1;
  printf("sum[0,0] = %g on one device, %g on two: %s\n", first1, first2,
         diff <= 1e-5f * (first1 > 0 ? first1 : 1) ? "same result" : "DIFFERENT");
  TF_DeleteTensor(A);
  TF_DeleteTensor(B);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return 0;
}
