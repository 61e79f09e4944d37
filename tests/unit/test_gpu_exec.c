/* GPU execution on the fake GPU platform: the GPU kernel table places Const and Identity on
 * GPU:0 by default, tensors cross between host and device memory through _Send/_Recv (the
 * CPU _Recv copies to host, the GPU _Recv to device, between GPUs through a host buffer),
 * feeds and fetches live on the client CPU, int32 and string tensors stay in host memory, a
 * fetched tensor outlives its session, device memory goes back after each step, running out
 * of it names the node and the arena, and gpu_copy's own contract (in-place returns, dtype
 * errors, the blocking forms), and the asynchronous paths on a fake platform with streams.
 *
 * Sessions go through the C API with real ConfigProto bytes, as a user's would. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "device/gpu/gpu_copy.h"
#include "device/gpu/gpu_device.h"
#include "device/gpu/gpu_fake.h"
#include "capi/capi_internal.h"
#include "harness.h"
#include "session/session.h"
#include "tensor/allocator.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"

#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define LH "/job:localhost/replica:0/task:0/device:"

static const tfc_gpu_fake_spec gpu_a = {"Fake GPU A", "0000:1b:00.0", 9, 0, 1 * GiB, 0};
static const tfc_gpu_fake_spec gpu_b = {"Fake GPU B", "0000:3b:00.0", 8, 0, 1 * GiB, 0};

static void install(const tfc_gpu_fake_spec *specs, int n) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_configure(specs, n, &s), TFC_OK);
  tfc_status_fini(&s);
  tfc_gpu_platform_set_for_testing(tfc_gpu_fake_platform());
}

/* ---------------- sessions ---------------- */

typedef struct cfg {
  int log_placement;
  int n_virtual;       /* virtual_devices entries (one per GPU) */
  const int *n_limits; /* per entry */
  const float *limits; /* MiB, all entries' limits in order */
  double fraction;
} cfg;

#define CFG(...) ((cfg){__VA_ARGS__})

static TF_SessionOptions *options(const cfg *c) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__GPUOptions go = TENSORFLOW__GPUOPTIONS__INIT;
  Tensorflow__GPUOptions__Experimental x = TENSORFLOW__GPUOPTIONS__EXPERIMENTAL__INIT;
  Tensorflow__GPUOptions__Experimental__VirtualDevices vd[4];
  Tensorflow__GPUOptions__Experimental__VirtualDevices *vdp[4];
  EXPECT_TRUE(c->n_virtual <= 4);
  int off = 0;
  for (int i = 0; i < c->n_virtual; i++) {
    tensorflow__gpuoptions__experimental__virtual_devices__init(&vd[i]);
    vd[i].n_memory_limit_mb = (size_t)c->n_limits[i];
    vd[i].memory_limit_mb = (float *)c->limits + off;
    off += c->n_limits[i];
    vdp[i] = &vd[i];
  }
  x.n_virtual_devices = (size_t)c->n_virtual;
  x.virtual_devices = vdp;
  go.experimental = &x;
  go.per_process_gpu_memory_fraction = c->fraction;
  cp.gpu_options = &go;
  cp.log_device_placement = c->log_placement;
  size_t len = tensorflow__config_proto__get_packed_size(&cp);
  uint8_t *bytes = malloc(len);
  tensorflow__config_proto__pack(&cp, bytes);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  TF_SetConfig(o, bytes, len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  free(bytes);
  return o;
}

static TF_Session *session(TF_Graph *g, const cfg *c) {
  TF_SessionOptions *o = options(c);
  TF_Status *s = TF_NewStatus();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteSessionOptions(o);
  return sess;
}

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
}

/* The session's device `name` ("GPU:0"). */
static const tfc_device *device(TF_Session *sess, const char *name) {
  tfc_session *ts = tfc_capi_session(sess);
  char full[128];
  snprintf(full, sizeof full, LH "%s", name);
  for (int i = 0; i < tfc_session_num_devices(ts); i++)
    if (strcmp(tfc_session_device(ts, i)->name, full) == 0) return tfc_session_device(ts, i);
  tfc_test_fail(__FILE__, __LINE__, "no device %s", full);
  return NULL;
}

static int64_t bytes_in_use(TF_Session *sess, const char *name) {
  return tfc_allocator_get_stats(device(sess, name)->allocator).bytes_in_use;
}

/* ---------------- graphs ---------------- */

static TF_Operation *finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return op;
}

static TF_Tensor *f32_tensor(const int64_t *dims, int ndims, const float *v) {
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, (size_t)n * sizeof(float));
  if (v) memcpy(TF_TensorData(t), v, (size_t)n * sizeof(float));
  return t;
}

static TF_Operation *const_tensor(TF_Graph *g, const char *name, const char *dev, TF_Tensor *t) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  if (dev) TF_SetDevice(d, dev);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return finish(d);
}

static const float v4[4] = {1.5f, -2, 3, 40};

static TF_Operation *const_f32(TF_Graph *g, const char *name, const char *dev) {
  return const_tensor(g, name, dev, f32_tensor((int64_t[]){2, 2}, 2, v4));
}

static TF_Operation *unary(TF_Graph *g, const char *op, const char *name, TF_Operation *in, const char *dev) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_AddInput(d, (TF_Output){in, 0});
  if (dev) TF_SetDevice(d, dev);
  return finish(d);
}

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  return finish(d);
}

/* Runs one fetch (feeding `feed`, which it deletes, into `in` when given); returns the code,
 * *out the value, *msg the message (heap). */
static int run(TF_Session *sess, TF_Operation *in, TF_Tensor *feed, TF_Operation *fetch, TF_Tensor **out, char **msg) {
  TF_Status *s = TF_NewStatus();
  TF_Output fi = {in, 0}, fo = {fetch, 0};
  *out = NULL;
  TF_SessionRun(sess, NULL, in ? &fi : NULL, in ? &feed : NULL, in ? 1 : 0, &fo, out, 1, NULL, 0, NULL, s);
  int code = TF_GetCode(s);
  *msg = strdup(TF_Message(s));
  TF_DeleteStatus(s);
  TF_DeleteTensor(feed); /* the caller's inputs stay the caller's */
  return code;
}

static void expect_v4(TF_Tensor *t) {
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), 2);
  EXPECT_EQ(TF_Dim(t, 0), 2);
  EXPECT_EQ(TF_Dim(t, 1), 2);
  const float *v = TF_TensorData(t);
  for (int i = 0; i < 4; i++) EXPECT_TRUE(v[i] == v4[i]);
}

/* ---------------- tests ---------------- */

static void const_and_identity_run_on_gpu_by_default(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = unary(g, "Identity", "y", const_f32(g, "c", NULL), NULL);
  tfc_capture cap;
  char out[4096];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = session(g, &CFG(.log_placement = 1));
  TF_Tensor *r;
  char *msg;
  int code = run(sess, NULL, NULL, y, &r, &msg);
  tfc_capture_end(&cap, out, sizeof out);
  EXPECT_EQ(code, TF_OK);
  EXPECT_STREQ(msg, "");
  expect_v4(r);
  EXPECT_CONTAINS(out, "c: (Const): " LH "GPU:0\ny: (Identity): " LH "GPU:0\n");
  /* The constant went to device memory once; the fetch came back through one copy to host. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 1);
  TF_DeleteTensor(r);
  free(msg);
  /* A second run reuses the device constant. */
  EXPECT_EQ(run(sess, NULL, NULL, y, &r, &msg), TF_OK);
  expect_v4(r);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 2);
  /* The constant stays in device memory while the session lives; nothing else does. */
  EXPECT_EQ(bytes_in_use(sess, "GPU:0"), 16);
  TF_DeleteTensor(r);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
}

static void feed_into_gpu_identity_comes_back(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT);
  TF_Operation *y = unary(g, "Identity", "y", x, NULL);
  tfc_capture cap;
  char out[4096];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = session(g, &CFG(.log_placement = 1));
  TF_Tensor *r;
  char *msg;
  int code = run(sess, x, f32_tensor((int64_t[]){2, 2}, 2, v4), y, &r, &msg);
  tfc_capture_end(&cap, out, sizeof out);
  EXPECT_EQ(code, TF_OK);
  expect_v4(r);
  /* TF registers Placeholder on GPUs too; fed, it never runs: the _Arg is on the client CPU. */
  EXPECT_CONTAINS(out, "x: (Placeholder): " LH "GPU:0\ny: (Identity): " LH "GPU:0\n");
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 1);
  /* Everything the step put in device memory went back at its end. */
  EXPECT_EQ(bytes_in_use(sess, "GPU:0"), 0);
  tfc_allocator_stats st = tfc_allocator_get_stats(device(sess, "GPU:0")->allocator);
  EXPECT_EQ(st.peak_bytes_in_use, 16);
  EXPECT_EQ(st.n_allocs, 1);
  TF_DeleteTensor(r);
  free(msg);
  /* Unfed, the GPU Placeholder fails as TF's does. */
  EXPECT_EQ(run(sess, NULL, NULL, y, &r, &msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "You must feed a value for placeholder tensor 'x' with dtype float");
  EXPECT_CONTAINS(msg, "[[{{node x}}]]");
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* c (CPU) -> a (GPU:0) -> b (GPU:1) -> fetched on the CPU; sync: whether the platform
 * copies synchronously (no streams). */
static void chain_cpu_gpu0_gpu1_cpu_counted(const cfg *c, int sync) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *k = const_f32(g, "c", "/device:CPU:0");
  TF_Operation *a = unary(g, "Identity", "a", k, "/device:GPU:0");
  TF_Operation *b = unary(g, "Identity", "b", a, "/device:GPU:1");
  TF_Session *sess = session(g, c);
  TF_Tensor *r;
  char *msg;
  EXPECT_EQ(run(sess, NULL, NULL, b, &r, &msg), TF_OK);
  EXPECT_STREQ(msg, "");
  expect_v4(r);
  /* Host to GPU:0; GPU:0 to GPU:1 through host memory (no streams); GPU:1 to host. */
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), sync ? 2 : 0);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), sync ? 2 : 0);
  EXPECT_EQ(tfc_allocator_get_stats(device(sess, "GPU:0")->allocator).n_allocs, 1);
  EXPECT_EQ(tfc_allocator_get_stats(device(sess, "GPU:1")->allocator).n_allocs, 1);
  EXPECT_EQ(bytes_in_use(sess, "GPU:0"), 0);
  EXPECT_EQ(bytes_in_use(sess, "GPU:1"), 0);
  TF_DeleteTensor(r);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
}

static void chain_cpu_gpu0_gpu1_cpu(const cfg *c) { chain_cpu_gpu0_gpu1_cpu_counted(c, 1); }

static void chain_through_two_virtual_gpus_on_one(void) {
  install(&gpu_a, 1);
  chain_cpu_gpu0_gpu1_cpu(&CFG(.n_virtual = 1, .n_limits = (int[]){2}, .limits = (float[]){64, 64}));
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
}

static void chain_through_two_gpus(void) {
  install((tfc_gpu_fake_spec[]){gpu_a, gpu_b}, 2);
  chain_cpu_gpu0_gpu1_cpu(&CFG(.fraction = 0.1));
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(1), 0);
}

/* int32 Const and Identity have GPU kernels whose tensors live in host memory (TF's
 * HostMemory rows): they run on GPU:0 and never touch device memory. */
static void int32_stays_in_host_memory_on_gpu(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, (int64_t[]){3}, 1, 3 * sizeof(int32_t));
  memcpy(TF_TensorData(t), (int32_t[]){7, -8, 9}, 3 * sizeof(int32_t));
  TF_Operation *y = unary(g, "Identity", "y", const_tensor(g, "shape", NULL, t), NULL);
  tfc_capture cap;
  char out[4096];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = session(g, &CFG(.log_placement = 1));
  TF_Tensor *r;
  char *msg;
  int code = run(sess, NULL, NULL, y, &r, &msg);
  tfc_capture_end(&cap, out, sizeof out);
  EXPECT_EQ(code, TF_OK);
  EXPECT_CONTAINS(out, "shape: (Const): " LH "GPU:0\ny: (Identity): " LH "GPU:0\n");
  EXPECT_EQ(TF_TensorType(r), TF_INT32);
  const int32_t *v = TF_TensorData(r);
  EXPECT_TRUE(v[0] == 7 && v[1] == -8 && v[2] == 9);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D) + tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 0);
  TF_DeleteTensor(r);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* No GPU Const for strings: the constant stays on the CPU; Identity's GPU row keeps strings in
 * host memory, so nothing enters device memory. */
static void strings_stay_in_host_memory(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  const char *word = "hello, gpu";
  size_t enc = TF_StringEncodedSize(strlen(word));
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, 8 + enc);
  memset(TF_TensorData(t), 0, 8);
  TF_StringEncode(word, strlen(word), (char *)TF_TensorData(t) + 8, enc, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *y = unary(g, "Identity", "y", const_tensor(g, "word", NULL, t), NULL);
  tfc_capture cap;
  char out[4096];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = session(g, &CFG(.log_placement = 1));
  TF_Tensor *r;
  char *msg;
  int code = run(sess, NULL, NULL, y, &r, &msg);
  tfc_capture_end(&cap, out, sizeof out);
  EXPECT_EQ(code, TF_OK);
  EXPECT_STREQ(msg, "");
  EXPECT_CONTAINS(out, "word: (Const): " LH "CPU:0\ny: (Identity): " LH "GPU:0\n");
  EXPECT_EQ(TF_TensorType(r), TF_STRING);
  const char *dst;
  size_t dst_len;
  TF_StringDecode((const char *)TF_TensorData(r) + 8, TF_TensorByteSize(r) - 8, &dst, &dst_len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(dst_len, strlen(word));
  EXPECT_TRUE(memcmp(dst, word, dst_len) == 0);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  TF_DeleteTensor(r);
  free(msg);
  TF_DeleteStatus(s);
  close_session(sess);
  TF_DeleteGraph(g);
}

static void fetched_gpu_tensor_outlives_the_session(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = unary(g, "Identity", "y", const_f32(g, "c", NULL), NULL);
  TF_Session *sess = session(g, &CFG());
  TF_Tensor *r;
  char *msg;
  EXPECT_EQ(run(sess, NULL, NULL, y, &r, &msg), TF_OK);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
  /* Devices, arena and device memory are gone; the fetched host copy is not. */
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  expect_v4(r);
  TF_DeleteTensor(r);
}

static void gpu_oom_during_a_step_names_node_and_arena(void) {
  install(&gpu_a, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT);
  TF_Operation *y = unary(g, "Identity", "y", x, NULL);
  TF_Operation *big = const_tensor(g, "big", NULL, f32_tensor((int64_t[]){1024, 1024}, 2, NULL));
  TF_Operation *z = unary(g, "Identity", "z", big, NULL);
  /* A 1 MiB GPU: a [1000,1000] float tensor (4 MB) cannot fit. */
  TF_Session *sess = session(g, &CFG(.n_virtual = 1, .n_limits = (int[]){1}, .limits = (float[]){1}));
  TF_Tensor *r;
  char *msg;
  /* In the _Recv that brings the feed to GPU:0. */
  EXPECT_EQ(run(sess, x, f32_tensor((int64_t[]){1000, 1000}, 2, NULL), y, &r, &msg), TF_RESOURCE_EXHAUSTED);
  EXPECT_CONTAINS(msg, "OOM when allocating tensor with shape[1000,1000] and type float on " LH
                       "GPU:0 by allocator GPU_0_bfc");
  EXPECT_CONTAINS(msg, "[[{{node _arg_0/_1}}]] (device: " LH "GPU:0)");
  EXPECT_TRUE(r == NULL);
  free(msg);
  /* In a Const's first compute. */
  EXPECT_EQ(run(sess, NULL, NULL, z, &r, &msg), TF_RESOURCE_EXHAUSTED);
  EXPECT_CONTAINS(msg, "OOM when allocating tensor with shape[1024,1024] and type float on " LH
                       "GPU:0 by allocator GPU_0_bfc");
  EXPECT_CONTAINS(msg, "[[{{node big}}]]");
  free(msg);
  EXPECT_EQ(bytes_in_use(sess, "GPU:0"), 0);
  /* A small tensor still fits afterwards. */
  EXPECT_EQ(run(sess, x, f32_tensor((int64_t[]){2, 2}, 2, v4), y, &r, &msg), TF_OK);
  expect_v4(r);
  TF_DeleteTensor(r);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* ---------------- gpu_copy directly ---------------- */

static void copies_check_dtypes_and_return_resident_tensors(void) {
  install(&gpu_a, 1);
  tfc_status s;
  tfc_status_init(&s);
  tfc_session_config c;
  memset(&c, 0, sizeof c);
  tfc_device **devs = NULL;
  int n = 0;
  EXPECT_EQ(tfc_session_devices_create(&c, "localhost", 0, NULL, 1, &devs, &n, &s), TFC_OK);
  EXPECT_EQ(n, 2);
  tfc_device *cpu = devs[0], *gpu = devs[1];
  EXPECT_TRUE(tfc_gpu_device_mem(gpu) != NULL && tfc_gpu_device_mem(cpu) == NULL);
  /* No streams on the fake platform: the accessor says so without an error. */
  EXPECT_TRUE(tfc_gpu_device_compute_stream(gpu, &s) == NULL);
  EXPECT_EQ(s.code, TFC_OK);
  EXPECT_TRUE(tfc_gpu_device_compute_stream(cpu, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INTERNAL);
  EXPECT_CONTAINS(tfc_status_msg(&s), "is not a GPU device");
  tfc_status_clear(&s);

  float v = 2.5f;
  tfc_tensor *host = tfc_tensor_scalar(TFC_DT_FLOAT, &v, &s);
  tfc_tensor *dev = tfc_gpu_copy_to_device_sync(gpu, host, &s);
  EXPECT_TRUE(dev != NULL);
  EXPECT_TRUE(tfc_gpu_tensor_in_device_memory(dev) && !tfc_gpu_tensor_in_device_memory(host));
  /* Already there: the same tensor back, no copy. */
  int64_t h2d = tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D);
  tfc_tensor *again = tfc_gpu_copy_to_device_sync(gpu, dev, &s);
  EXPECT_TRUE(again == dev);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), h2d);
  tfc_tensor_unref(again);
  tfc_tensor *same_host = tfc_gpu_copy_to_host_sync(NULL, host, &s);
  EXPECT_TRUE(same_host == host);
  tfc_tensor_unref(same_host);
  /* Back to host, counted against the CPU. */
  tfc_tensor *back = tfc_gpu_copy_to_host_sync(cpu->allocator, dev, &s);
  EXPECT_TRUE(back != NULL && *(float *)back->data == 2.5f);
  EXPECT_EQ(tfc_allocator_get_stats(cpu->allocator).bytes_in_use, (int64_t)sizeof(float));
  tfc_tensor_unref(back);
  EXPECT_EQ(s.code, TFC_OK);

  /* Strings never enter device memory; a CPU is no copy target. */
  tfc_tensor *str = tfc_tensor_new(TFC_DT_STRING, (int64_t[]){2}, 1, &s);
  EXPECT_TRUE(tfc_gpu_copy_to_device_sync(gpu, str, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "string tensors live in host memory: a tensor of shape [2] cannot be copied to " LH
                                   "GPU:0");
  tfc_status_clear(&s);
  EXPECT_TRUE(tfc_gpu_copy_to_device_sync(cpu, host, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "cannot copy a tensor to " LH "CPU:0: it is not a GPU device");
  tfc_status_clear(&s);
  tfc_tensor_unref(str);

  /* The device tensor outlives its device, and still copies back (synchronously). */
  for (int i = 0; i < n; i++) tfc_device_free(devs[i]);
  free(devs);
  back = tfc_gpu_copy_to_host_sync(NULL, dev, &s);
  EXPECT_TRUE(back != NULL && *(float *)back->data == 2.5f);
  tfc_tensor_unref(back);
  tfc_tensor_unref(dev);
  tfc_tensor_unref(host);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

/* Completion through the callback form, before the call returns on a platform without streams. */
typedef struct seen {
  int calls, code;
  tfc_tensor *out;
} seen;

static void record(void *arg, const tfc_status *s, tfc_tensor *out) {
  seen *x = arg;
  x->calls++;
  x->code = s->code;
  x->out = out;
}

static void async_copies_complete_exactly_once(void) {
  install(&gpu_a, 1);
  tfc_status s;
  tfc_status_init(&s);
  tfc_session_config c;
  memset(&c, 0, sizeof c);
  tfc_device **devs = NULL;
  int n = 0;
  EXPECT_EQ(tfc_session_devices_create(&c, "localhost", 0, NULL, 1, &devs, &n, &s), TFC_OK);
  tfc_device *gpu = devs[1];
  float v[3] = {1, 2, 3};
  tfc_tensor *host = tfc_tensor_new(TFC_DT_FLOAT, (int64_t[]){3}, 1, &s);
  memcpy(host->data, v, sizeof v);
  seen a = {0}, b = {0}, e = {0};
  tfc_gpu_copy_to_device(gpu, host, record, &a);
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.code, TFC_OK);
  tfc_gpu_copy_to_host(NULL, a.out, record, &b);
  EXPECT_EQ(b.calls, 1);
  EXPECT_TRUE(b.out != NULL && memcmp(b.out->data, v, sizeof v) == 0);
  /* Errors come through the callback too, with no tensor. */
  tfc_gpu_copy_to_device(devs[0], host, record, &e);
  EXPECT_EQ(e.calls, 1);
  EXPECT_EQ(e.code, TFC_INVALID_ARGUMENT);
  EXPECT_TRUE(e.out == NULL);
  tfc_tensor_unref(a.out);
  tfc_tensor_unref(b.out);
  tfc_tensor_unref(host);
  for (int i = 0; i < n; i++) tfc_device_free(devs[i]);
  free(devs);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_status_fini(&s);
}

static void cpu_only_sessions_keep_feeds_and_fetches_beside_their_nodes(void) {
  install(NULL, 0);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT);
  TF_Operation *y = unary(g, "Identity", "y", x, NULL);
  TF_Session *sess = session(g, &CFG());
  TF_Tensor *r;
  char *msg;
  EXPECT_EQ(run(sess, x, f32_tensor((int64_t[]){2, 2}, 2, v4), y, &r, &msg), TF_OK);
  expect_v4(r);
  TF_DeleteTensor(r);
  free(msg);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* ---------------- a platform with streams ---------------- */

/* The fake platform plus streams, so the asynchronous paths run without a GPU: each stream is
 * a thread running its queue in order (copies, event records and waits, callbacks), pausing
 * before each copy so that anything not waiting for it would see stale bytes. Events count
 * records: a wait enqueued after the k-th record waits until that record has run. */
typedef struct sevent {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long recorded, reached;
} sevent;

enum { OP_COPY, OP_RECORD, OP_WAIT, OP_CALLBACK, OP_MARK };

typedef struct sop {
  int kind;
  void *dst;
  const void *src;
  size_t n;
  sevent *ev;
  long target;
  void (*fn)(void *);
  void *arg;
  struct sop *next;
} sop;

typedef struct sstream {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  sop *head, *tail;
  long queued, done;
  int stop;
} sstream;

static atomic_long n_async_copies[4];
static atomic_int peer_ok = 1;

static void *sstream_main(void *arg) {
  sstream *st = arg;
  pthread_mutex_lock(&st->mu);
  for (;;) {
    while (!st->head && !st->stop) pthread_cond_wait(&st->cv, &st->mu);
    sop *o = st->head;
    if (!o) break;
    pthread_mutex_unlock(&st->mu);
    if (o->kind == OP_COPY) {
      usleep(500);
      memmove(o->dst, o->src, o->n);
    } else if (o->kind == OP_RECORD) {
      pthread_mutex_lock(&o->ev->mu);
      if (o->target > o->ev->reached) o->ev->reached = o->target;
      pthread_cond_broadcast(&o->ev->cv);
      pthread_mutex_unlock(&o->ev->mu);
    } else if (o->kind == OP_WAIT) {
      pthread_mutex_lock(&o->ev->mu);
      while (o->ev->reached < o->target) pthread_cond_wait(&o->ev->cv, &o->ev->mu);
      pthread_mutex_unlock(&o->ev->mu);
    } else if (o->kind == OP_CALLBACK) {
      o->fn(o->arg);
    }
    pthread_mutex_lock(&st->mu);
    st->head = o->next;
    if (!st->head) st->tail = NULL;
    st->done++;
    pthread_cond_broadcast(&st->cv);
    free(o);
  }
  pthread_mutex_unlock(&st->mu);
  return NULL;
}

static int senqueue(void *stream, sop o) {
  sstream *st = stream;
  sop *p = malloc(sizeof *p);
  *p = o;
  p->next = NULL;
  pthread_mutex_lock(&st->mu);
  if (st->tail)
    st->tail->next = p;
  else
    st->head = p;
  st->tail = p;
  st->queued++;
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
  return TFC_OK;
}

static int s_stream_create(int ordinal, void **out, tfc_status *s) {
  sstream *st = calloc(1, sizeof *st);
  pthread_mutex_init(&st->mu, NULL);
  pthread_cond_init(&st->cv, NULL);
  pthread_create(&st->thread, NULL, sstream_main, st);
  *out = st;
  return TFC_OK;
}

static int s_stream_sync(int ordinal, void *stream, tfc_status *s) {
  sstream *st = stream;
  pthread_mutex_lock(&st->mu);
  long target = st->queued;
  while (st->done < target) pthread_cond_wait(&st->cv, &st->mu);
  pthread_mutex_unlock(&st->mu);
  return TFC_OK;
}

static void s_stream_destroy(int ordinal, void *stream) {
  sstream *st = stream;
  s_stream_sync(ordinal, stream, NULL);
  pthread_mutex_lock(&st->mu);
  st->stop = 1;
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
  pthread_join(st->thread, NULL);
  pthread_mutex_destroy(&st->mu);
  pthread_cond_destroy(&st->cv);
  free(st);
}

/* The fake's device pointers are out of host code's reach: the stream copies through the
 * fake's own views. */
static int s_copy_async(int ordinal, void *dst, const void *src, size_t n, int kind, void *stream, tfc_status *s) {
  atomic_fetch_add(&n_async_copies[kind], 1);
  if (kind != TFC_GPU_COPY_H2D) src = tfc_gpu_fake_host_view(src, n);
  if (kind != TFC_GPU_COPY_D2H) dst = tfc_gpu_fake_host_view(dst, n);
  if (n && (!src || !dst)) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "copy of %zu bytes outside device memory", n);
  return senqueue(stream, (sop){.kind = OP_COPY, .dst = dst, .src = src, .n = n});
}

static int s_event_create(int ordinal, void **out, tfc_status *s) {
  sevent *e = calloc(1, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *out = e;
  return TFC_OK;
}

static void s_event_destroy(int ordinal, void *event) {
  sevent *e = event;
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
}

static int s_event_record(int ordinal, void *event, void *stream, tfc_status *s) {
  sevent *e = event;
  pthread_mutex_lock(&e->mu);
  long k = ++e->recorded;
  pthread_mutex_unlock(&e->mu);
  return senqueue(stream, (sop){.kind = OP_RECORD, .ev = e, .target = k});
}

static int s_stream_wait_event(int ordinal, void *stream, void *event, tfc_status *s) {
  sevent *e = event;
  pthread_mutex_lock(&e->mu);
  long k = e->recorded;
  pthread_mutex_unlock(&e->mu);
  return senqueue(stream, (sop){.kind = OP_WAIT, .ev = e, .target = k});
}

static int s_stream_callback(int ordinal, void *stream, void (*fn)(void *), void *arg, tfc_status *s) {
  return senqueue(stream, (sop){.kind = OP_CALLBACK, .fn = fn, .arg = arg});
}

static int s_enable_peer(int from, int to) { return atomic_load(&peer_ok); }

static tfc_gpu_platform streamed;

static void install_streamed(const tfc_gpu_fake_spec *specs, int n, int peer) {
  install(specs, n);
  streamed = *tfc_gpu_fake_platform();
  streamed.name = "fake with streams";
  streamed.stream_create = s_stream_create;
  streamed.stream_destroy = s_stream_destroy;
  streamed.stream_sync = s_stream_sync;
  streamed.copy_async = s_copy_async;
  streamed.event_create = s_event_create;
  streamed.event_destroy = s_event_destroy;
  streamed.event_record = s_event_record;
  streamed.stream_wait_event = s_stream_wait_event;
  streamed.stream_callback = s_stream_callback;
  streamed.enable_peer = s_enable_peer;
  atomic_store(&peer_ok, peer);
  for (int k = 0; k < 4; k++) atomic_store(&n_async_copies[k], 0);
  tfc_gpu_platform_set_for_testing(&streamed);
}

static void streams_run_copies_asynchronously(void) {
  install_streamed(&gpu_a, 1, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT);
  TF_Operation *y = unary(g, "Identity", "y", x, NULL);
  TF_Session *sess = session(g, &CFG());
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(tfc_gpu_device_compute_stream((tfc_device *)device(sess, "GPU:0"), &s) != NULL);
  EXPECT_EQ(s.code, TFC_OK);
  for (int i = 0; i < 3; i++) {
    TF_Tensor *r;
    char *msg;
    EXPECT_EQ(run(sess, x, f32_tensor((int64_t[]){2, 2}, 2, v4), y, &r, &msg), TF_OK);
    expect_v4(r);
    TF_DeleteTensor(r);
    free(msg);
  }
  /* Every copy went through a copy stream; none through the synchronous calls. */
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_H2D]), 3);
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_D2H]), 3);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D) + tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 0);
  EXPECT_EQ(bytes_in_use(sess, "GPU:0"), 0);
  tfc_status_fini(&s);
  close_session(sess);
  TF_DeleteGraph(g);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_gpu_platform_set_for_testing(NULL);
}

/* Between GPUs: one device-to-device copy with peer access, through host memory without. */
static void streams_copy_between_gpus(int peer, int expect_d2d) {
  install_streamed((tfc_gpu_fake_spec[]){gpu_a, gpu_b}, 2, peer);
  chain_cpu_gpu0_gpu1_cpu_counted(&CFG(.fraction = 0.1), 0);
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_D2D]), expect_d2d);
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_H2D]), 2 - expect_d2d);
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_D2H]), 2 - expect_d2d);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(1), 0);
  tfc_gpu_platform_set_for_testing(NULL);
}

static void streams_copy_between_peer_gpus_directly(void) { streams_copy_between_gpus(1, 1); }

static void streams_stage_copies_between_gpus_without_peer_access(void) { streams_copy_between_gpus(0, 0); }

/* A device constant is copied once, on the calling thread, ordered after the compute stream. */
static void streams_const_copies_once(void) {
  install_streamed(&gpu_a, 1, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = unary(g, "Identity", "y", const_f32(g, "c", NULL), NULL);
  TF_Session *sess = session(g, &CFG());
  for (int i = 0; i < 2; i++) {
    TF_Tensor *r;
    char *msg;
    EXPECT_EQ(run(sess, NULL, NULL, y, &r, &msg), TF_OK);
    expect_v4(r);
    TF_DeleteTensor(r);
    free(msg);
  }
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 1);
  EXPECT_EQ(atomic_load(&n_async_copies[TFC_GPU_COPY_D2H]), 2);
  close_session(sess);
  TF_DeleteGraph(g);
  EXPECT_EQ(tfc_gpu_fake_bytes_allocated(0), 0);
  tfc_gpu_platform_set_for_testing(NULL);
}

static const tfc_test tests[] = {
    TFC_TEST(const_and_identity_run_on_gpu_by_default),
    TFC_TEST(feed_into_gpu_identity_comes_back),
    TFC_TEST(chain_through_two_virtual_gpus_on_one),
    TFC_TEST(chain_through_two_gpus),
    TFC_TEST(int32_stays_in_host_memory_on_gpu),
    TFC_TEST(strings_stay_in_host_memory),
    TFC_TEST(fetched_gpu_tensor_outlives_the_session),
    TFC_TEST(gpu_oom_during_a_step_names_node_and_arena),
    TFC_TEST(copies_check_dtypes_and_return_resident_tensors),
    TFC_TEST(async_copies_complete_exactly_once),
    TFC_TEST(cpu_only_sessions_keep_feeds_and_fetches_beside_their_nodes),
    TFC_TEST(streams_run_copies_asynchronously),
    TFC_TEST(streams_copy_between_peer_gpus_directly),
    TFC_TEST(streams_stage_copies_between_gpus_without_peer_access),
    TFC_TEST(streams_const_copies_once),
    {0},
};

TFC_TEST_MAIN(tests)
