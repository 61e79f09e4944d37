/* C API contract tests: several devices in one session — placement requests, soft placement,
 * colocation, cross-device execution, the first error and deadlines across partitions. */
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define CPU(i) "/job:localhost/replica:0/task:0/device:CPU:" #i

static TF_Operation *finish(TF_OperationDescription *d, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static TF_Tensor *f32(const int64_t *dims, int nd, const float *v) {
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, n * sizeof(float));
  if (v) memcpy(TF_TensorData(t), v, n * sizeof(float));
  else memset(TF_TensorData(t), 0, n * sizeof(float));
  return t;
}

static TF_Operation *constant(TF_Graph *g, const char *name, const char *dev, const int64_t *dims, int nd,
                              const float *v) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = f32(dims, nd, v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetDevice(d, dev);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return finish(d, __LINE__);
}

static TF_Operation *placeholder(TF_Graph *g, const char *name, const char *dev) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetDevice(d, dev);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return finish(d, __LINE__);
}

static TF_Operation *binary(TF_Graph *g, const char *op, const char *name, const char *dev, TF_Operation *a,
                            TF_Operation *b) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_SetDevice(d, dev);
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  return finish(d, __LINE__);
}

static TF_Session *session(TF_Graph *g, int n_cpus, int soft, TF_SessionOptions **opts) {
  TF_Status *s = TF_NewStatus();
  *opts = TF_NewSessionOptions();
  TFC_SetDeviceCount(*opts, "CPU", n_cpus, s);
  TFC_SetAllowSoftPlacement(*opts, (unsigned char)soft);
  TF_Session *sess = TF_NewSession(g, *opts, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return sess;
}

static void close_all(TF_Session *sess, TF_SessionOptions *o, TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const float seed_vals[6] = {1, 2, 3, 4, 5, 6};
static const int64_t d23[2] = {2, 3}, d32[2] = {3, 2};

/* Two towers of matmul(a, b) on CPU:2 and CPU:3, add_n on /cpu:0 (TF's multi-device guide). */
static TF_Operation *build_towers(TF_Graph *g, const char *dev0, const char *dev1) {
  const char *devs[2] = {dev0, dev1};
  TF_Output c[2];
  for (int t = 0; t < 2; t++) {
    char na[16], nb[16], nm[16];
    snprintf(na, sizeof na, "a%d", t);
    snprintf(nb, sizeof nb, "b%d", t);
    snprintf(nm, sizeof nm, "mm%d", t);
    TF_Operation *a = constant(g, na, devs[t], d23, 2, seed_vals);
    TF_Operation *b = constant(g, nb, devs[t], d32, 2, seed_vals);
    c[t] = (TF_Output){binary(g, "MatMul", nm, devs[t], a, b), 0};
  }
  TF_OperationDescription *d = TF_NewOperation(g, "AddN", "sum");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInputList(d, c, 2);
  return finish(d, __LINE__);
}

static void expect_towers_result(TF_Tensor *t) {
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(TF_NumDims(t), 2);
  const float *v = TF_TensorData(t);
  EXPECT_EQ(v[0], 44);
  EXPECT_EQ(v[1], 56);
  EXPECT_EQ(v[2], 98);
  EXPECT_EQ(v[3], 128);
}

static void towers_run_on_their_devices_and_sum_on_cpu0(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *sum = build_towers(g, "/device:CPU:2", "/device:CPU:3");
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 4, 0, &o);
  TF_Status *s = TF_NewStatus();
  TF_Output out = {sum, 0};
  TF_Tensor *r = NULL;
  for (int i = 0; i < 3; i++) { /* the cached plan too */
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    expect_towers_result(r);
    TF_DeleteTensor(r);
  }
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, TF_GraphOperationByName(g, "mm0"), s), CPU(2));
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, TF_GraphOperationByName(g, "b1"), s), CPU(3));
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, sum, s), CPU(0));
  EXPECT_CONTAINS(TFC_SessionOperationPlacementReason(sess, TF_GraphOperationByName(g, "mm1"), s),
                  "explicit request /device:CPU:3");
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_DeviceListCount(l), 4);
  EXPECT_STREQ(TF_DeviceListName(l, 3, s), CPU(3));
  TF_DeleteDeviceList(l);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

/* Split the batch over four devices, matmul on each, concat on /cpu:0: same as one device. */
static void in_graph_replication_matches_one_device(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", "/cpu:0");
  float wv[12];
  for (int i = 0; i < 12; i++) wv[i] = (float)(i % 5) - 2;
  const int64_t wd[2] = {4, 3};
  TF_Operation *w = constant(g, "w", "/cpu:0", wd, 2, wv);
  TF_Status *s = TF_NewStatus();
  int32_t zero = 0;
  TF_Tensor *zt = TF_AllocateTensor(TF_INT32, NULL, 0, 4);
  memcpy(TF_TensorData(zt), &zero, 4);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "axis");
  TF_SetAttrTensor(d, "value", zt, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *axis = finish(d, __LINE__);
  d = TF_NewOperation(g, "Split", "split");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInput(d, (TF_Output){axis, 0});
  TF_AddInput(d, (TF_Output){x, 0});
  TF_SetAttrInt(d, "num_split", 4);
  TF_Operation *split = finish(d, __LINE__);
  TF_Output ys[4];
  for (int i = 0; i < 4; i++) {
    char name[16], dev[16];
    snprintf(name, sizeof name, "mm%d", i);
    snprintf(dev, sizeof dev, "/cpu:%d", i);
    d = TF_NewOperation(g, "MatMul", name);
    TF_SetDevice(d, dev);
    TF_AddInput(d, (TF_Output){split, i});
    TF_AddInput(d, (TF_Output){w, 0});
    ys[i] = (TF_Output){finish(d, __LINE__), 0};
  }
  d = TF_NewOperation(g, "ConcatV2", "concat");
  TF_SetDevice(d, "/cpu:0");
  TF_AddInputList(d, ys, 4);
  TF_AddInput(d, (TF_Output){axis, 0});
  TF_Operation *concat = finish(d, __LINE__);
  TF_Operation *ref = binary(g, "MatMul", "ref", "/cpu:1", x, w);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 4, 0, &o);
  float xv[32];
  for (int i = 0; i < 32; i++) xv[i] = (float)((i * 7) % 11) - 5;
  const int64_t xd[2] = {8, 4};
  TF_Tensor *xt = f32(xd, 2, xv);
  TF_Output feed = {x, 0}, fetch[2] = {{concat, 0}, {ref, 0}};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, &feed, &xt, 1, fetch, out, 2, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_Dim(out[0], 0), 8);
  EXPECT_EQ(TF_Dim(out[0], 1), 3);
  const float *a = TF_TensorData(out[0]), *b = TF_TensorData(out[1]);
  for (int i = 0; i < 24; i++) EXPECT_EQ(a[i], b[i]);
  /* every row by hand */
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 3; c++) {
      float acc = 0;
      for (int k = 0; k < 4; k++) acc += xv[r * 4 + k] * wv[k * 3 + c];
      EXPECT_EQ(a[r * 3 + c], acc);
    }
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, TF_GraphOperationByName(g, "mm3"), s), CPU(3));
  TF_DeleteTensor(xt);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteTensor(zt);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static void missing_cpu_fails_with_tf_text_listing_devices(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", "/device:CPU:7", d23, 2, seed_vals);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 0, &o);
  TF_Status *s = TF_NewStatus();
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Cannot assign a device for operation a: Operation was explicitly assigned to "
                                 "/device:CPU:7 but available devices are [ " CPU(0) ", " CPU(1) " ]. Make sure the "
                                 "device specification refers to a valid device.");
  EXPECT_TRUE(r == NULL);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static void soft_placement_runs_a_graph_pinned_to_a_missing_gpu(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *sum = build_towers(g, "/device:GPU:2", "/device:GPU:3");
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 1, &o);
  TF_Status *s = TF_NewStatus();
  TF_Output out = {sum, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_towers_result(r);
  TF_DeleteTensor(r);
  const char *dev = TFC_SessionOperationDevice(sess, TF_GraphOperationByName(g, "mm0"), s);
  EXPECT_TRUE(dev && strstr(dev, "/device:CPU:"));
  EXPECT_CONTAINS(TFC_SessionOperationPlacementReason(sess, TF_GraphOperationByName(g, "mm0"), s),
                  "soft placement");
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static void colocate_with_follows_the_other_node(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", "/device:CPU:1", d23, 2, seed_vals);
  TF_OperationDescription *d = TF_NewOperation(g, "Identity", "b");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_ColocateWith(d, a);
  TF_Operation *b = finish(d, __LINE__);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 3, 0, &o);
  TF_Status *s = TF_NewStatus();
  TF_Output out = {b, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(((float *)TF_TensorData(r))[5], 6);
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, b, s), CPU(1));
  EXPECT_CONTAINS(TFC_SessionOperationPlacementReason(sess, b, s), "colocated with a");
  TF_DeleteTensor(r);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

/* A control edge from CPU:0 to CPU:1 crosses as a dummy tensor; a fed value crosses too. */
static void control_and_fed_edges_cross_devices(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", "/cpu:0");
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "first");
  TF_SetDevice(d, "/cpu:0");
  TF_Operation *first = finish(d, __LINE__);
  d = TF_NewOperation(g, "Square", "sq");
  TF_SetDevice(d, "/cpu:1");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddControlInput(d, first);
  TF_Operation *sq = finish(d, __LINE__);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 0, &o);
  TF_Status *s = TF_NewStatus();
  const int64_t dims[1] = {3};
  const float v[3] = {1, -2, 3};
  TF_Tensor *xt = f32(dims, 1, v);
  TF_Output feed = {x, 0}, fetch[2] = {{sq, 0}, {x, 0}};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, &feed, &xt, 1, fetch, out, 2, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  const float *r = TF_TensorData(out[0]);
  EXPECT_EQ(r[0], 1);
  EXPECT_EQ(r[1], 4);
  EXPECT_EQ(r[2], 9);
  EXPECT_EQ(((float *)TF_TensorData(out[1]))[1], -2);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteTensor(xt);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

/* CPU:1 fails (its MatMul gets incompatible shapes at run time) while CPU:0 waits for its
 * result: the step ends with that error, naming the node and its device; CPU:0 does not
 * hang. The session stays usable. */
static void first_error_on_one_device_stops_the_step_everywhere(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", "/cpu:0");
  TF_Operation *w = constant(g, "w", "/cpu:1", d32, 2, seed_vals);
  TF_Operation *bad = binary(g, "MatMul", "bad", "/cpu:1", x, w);
  TF_Operation *sq = binary(g, "Mul", "sq", "/cpu:0", bad, bad);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 0, &o);
  TF_Status *s = TF_NewStatus();
  const int64_t bad_dims[2] = {2, 2}, good_dims[2] = {2, 3};
  TF_Output feed = {x, 0}, fetch = {sq, 0};
  for (int round = 0; round < 2; round++) {
    TF_Tensor *xt = f32(round ? good_dims : bad_dims, 2, round ? seed_vals : NULL);
    TF_Tensor *r = NULL;
    TF_SessionRun(sess, NULL, &feed, &xt, 1, &fetch, &r, 1, NULL, 0, NULL, s);
    if (round == 0) {
      EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
      EXPECT_CONTAINS(TF_Message(s), "Matrix size-incompatible: In[0]: [2,2], In[1]: [3,2]");
      EXPECT_CONTAINS(TF_Message(s), "[[{{node bad}}]]");
      EXPECT_CONTAINS(TF_Message(s), CPU(1));
      EXPECT_TRUE(r == NULL);
    } else {
      EXPECT_EQ(TF_GetCode(s), TF_OK);
      EXPECT_EQ(((float *)TF_TensorData(r))[0], 22 * 22);
    }
    TF_DeleteTensor(r);
    TF_DeleteTensor(xt);
  }
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

/* A chain of 100 1024x1024 matmuls on CPU:1 (about 200 GFLOP: seconds on any machine) whose
 * result CPU:0 waits for, run with a deadline of 50 ms: DEADLINE_EXCEEDED naming the tensor
 * CPU:0 still waited for; the step stops after the matmul in flight. */
static TF_Operation *slow_graph(TF_Graph *g, TF_Operation **x) {
  *x = placeholder(g, "x", "/cpu:0");
  TF_Operation *m = *x;
  for (int i = 0; i < 100; i++) {
    char name[16];
    snprintf(name, sizeof name, "mm%d", i);
    m = binary(g, "MatMul", name, "/cpu:1", m, *x);
  }
  return binary(g, "AddV2", "out", "/cpu:0", m, *x);
}

static void run_slow(TF_Session *sess, TF_Operation *x, TF_Operation *out, const TF_Buffer *ro, TF_Status *s) {
  const int64_t dims[2] = {1024, 1024};
  TF_Tensor *xt = f32(dims, 2, NULL);
  TF_Output feed = {x, 0}, fetch = {out, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, ro, &feed, &xt, 1, &fetch, &r, 1, NULL, 0, NULL, s);
  EXPECT_TRUE(r == NULL);
  TF_DeleteTensor(xt);
}

/* Valgrind runs the seconds of matmuls hundreds of times slower; the deadline paths are
 * memory-checked by the ASan build instead. */
static void skip_under_valgrind(void) {
  if (getenv("TFC_TEST_VALGRIND")) tfc_test_skip("seconds of matmuls are minutes under valgrind");
}

static void run_options_timeout_is_deadline_exceeded(void) {
  skip_under_valgrind();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x, *out = slow_graph(g, &x);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 0, &o);
  TF_Status *s = TF_NewStatus();
  const unsigned char run_options[] = {0x10, 0x32}; /* RunOptions { timeout_in_ms: 50 } */
  TF_Buffer *ro = TF_NewBufferFromString(run_options, sizeof run_options);
  run_slow(sess, x, out, ro, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(TF_Message(s), "Timed out after 50 ms");
  EXPECT_CONTAINS(TF_Message(s), CPU(1) ";");
  EXPECT_CONTAINS(TF_Message(s), "_mm99;0:0");
  TF_DeleteBuffer(ro);
  const unsigned char junk[] = {0x12, 0x05, 0x01};
  ro = TF_NewBufferFromString(junk, sizeof junk);
  run_slow(sess, x, out, ro, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Unparseable RunOptions proto");
  TF_DeleteBuffer(ro);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static void operation_timeout_applies_to_every_run(void) {
  skip_under_valgrind();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x, *out = slow_graph(g, &x);
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetDeviceCount(o, "CPU", 2, s);
  TFC_SetOperationTimeout(o, 50);
  TF_Session *sess = TF_NewSession(g, o, s);
  run_slow(sess, x, out, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(TF_Message(s), "Timed out after 50 ms");
  EXPECT_CONTAINS(TF_Message(s), "still waiting for tensors: ");
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

typedef struct runner {
  TF_Session *sess;
  TF_Operation *sum;
  int ok;
} runner;

static void *run_towers_many(void *p) {
  runner *r = p;
  TF_Status *s = TF_NewStatus();
  TF_Output out = {r->sum, 0};
  r->ok = 1;
  for (int i = 0; i < 100 && r->ok; i++) {
    TF_Tensor *t = NULL;
    TF_SessionRun(r->sess, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, s);
    r->ok = TF_GetCode(s) == TF_OK && ((float *)TF_TensorData(t))[3] == 128;
    TF_DeleteTensor(t);
  }
  TF_DeleteStatus(s);
  return NULL;
}

static void multi_device_steps_run_concurrently_from_threads(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *sum = build_towers(g, "/cpu:1", "/cpu:2");
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 3, 0, &o);
  pthread_t th[4];
  runner r[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (runner){sess, sum, 0};
    pthread_create(&th[i], NULL, run_towers_many, &r[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    EXPECT_TRUE(r[i].ok);
  }
  close_all(sess, o, g);
}

static void placement_log_keeps_tf_lines_and_adds_reasons_on_request(void) {
  for (int reasons = 0; reasons < 2; reasons++) {
    tfc_capture cap;
    tfc_capture_begin(&cap, 1);
    TF_Status *s = TF_NewStatus();
    TF_Graph *g = TF_NewGraph();
    TF_Operation *sum = build_towers(g, "/device:CPU:1", "/cpu:0");
    TF_SessionOptions *o = TF_NewSessionOptions();
    TFC_SetDeviceCount(o, "CPU", 2, s);
    TFC_SetLogDevicePlacement(o, 1);
    if (reasons) TFC_SetLogPlacementReasons(o, 1);
    TF_Session *sess = TF_NewSession(g, o, s);
    TF_Output out = {sum, 0};
    TF_Tensor *r = NULL;
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    char buf[8192];
    tfc_capture_end(&cap, buf, sizeof buf);
    EXPECT_TRUE(buf[0] != 0);
    EXPECT_CONTAINS(buf, "Device mapping: no known devices.\n");
    if (reasons) {
      EXPECT_CONTAINS(buf, "mm0: (MatMul): " CPU(1) "  # explicit request /device:CPU:1\n");
      EXPECT_CONTAINS(buf, "sum: (AddN): " CPU(0) "  # explicit request /device:CPU:0\n");
    } else {
      EXPECT_CONTAINS(buf, "mm0: (MatMul): " CPU(1) "\n");
      EXPECT_CONTAINS(buf, "a1: (Const): " CPU(0) "\n");
      EXPECT_CONTAINS(buf, "sum: (AddN): " CPU(0) "\n");
    }
    TF_DeleteTensor(r);
    TF_DeleteStatus(s);
    close_all(sess, o, g);
  }
}

/* Each device counts the memory its kernels allocated; a fetched tensor keeps counting until
 * the caller deletes it, even after the session is gone. */
static void each_device_has_its_own_allocator(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", "/cpu:0");
  TF_Operation *sq = binary(g, "Mul", "sq", "/cpu:1", x, x);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, 0, &o);
  TF_Status *s = TF_NewStatus();
  const int64_t dims[1] = {1000};
  TF_Tensor *xt = f32(dims, 1, NULL);
  TF_Output feed = {x, 0}, fetch = {sq, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, &feed, &xt, 1, &fetch, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t in_use = -1, peak = -1;
  TFC_SessionDeviceMemory(sess, CPU(1), &in_use, &peak, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(in_use, 4000); /* the fetched result, still held */
  EXPECT_TRUE(peak >= 4000);
  TFC_SessionDeviceMemory(sess, CPU(0), &in_use, &peak, s);
  EXPECT_EQ(in_use, 0); /* x was fed, not allocated by a kernel */
  TFC_SessionDeviceMemory(sess, "/device:CPU:9", &in_use, &peak, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  close_all(sess, o, g);
  EXPECT_EQ(((float *)TF_TensorData(r))[999], 0); /* outlives its device */
  TF_DeleteTensor(r);
  TF_DeleteTensor(xt);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(each_device_has_its_own_allocator),
    TFC_TEST(towers_run_on_their_devices_and_sum_on_cpu0),
    TFC_TEST(in_graph_replication_matches_one_device),
    TFC_TEST(missing_cpu_fails_with_tf_text_listing_devices),
    TFC_TEST(soft_placement_runs_a_graph_pinned_to_a_missing_gpu),
    TFC_TEST(colocate_with_follows_the_other_node),
    TFC_TEST(control_and_fed_edges_cross_devices),
    TFC_TEST(first_error_on_one_device_stops_the_step_everywhere),
    TFC_TEST(run_options_timeout_is_deadline_exceeded),
    TFC_TEST(operation_timeout_applies_to_every_run),
    TFC_TEST(multi_device_steps_run_concurrently_from_threads),
    TFC_TEST(placement_log_keeps_tf_lines_and_adds_reasons_on_request),
    {0}};
TFC_TEST_MAIN(tests)
