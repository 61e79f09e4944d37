/* C API contract tests: sessions — feeds, fetches, targets, pruning, errors, threads, devices. */
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (nd >= 0) TF_SetAttrShape(d, "shape", dims, nd);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return op;
}

static TF_Tensor *f32(const int64_t *dims, int nd, const float *v) {
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, n * sizeof(float));
  memcpy(TF_TensorData(t), v, n * sizeof(float));
  return t;
}

static TF_Operation *constant(TF_Graph *g, const char *name, const int64_t *dims, int nd, const float *v) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = f32(dims, nd, v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return op;
}

static TF_Operation *binary(TF_Graph *g, const char *op, const char *name, TF_Operation *a, TF_Operation *b) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation *r = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return r;
}

static const float seed_vals[6] = {1, 2, 3, 4, 5, 6};
static const int64_t d23[2] = {2, 3}, d32[2] = {3, 2};

static void expect_seed_result(TF_Tensor *t) {
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(t), 2);
  EXPECT_EQ(TF_Dim(t, 0), 2);
  EXPECT_EQ(TF_Dim(t, 1), 2);
  EXPECT_EQ(TF_TensorByteSize(t), 16);
  const float *v = TF_TensorData(t);
  EXPECT_EQ(v[0], 22);
  EXPECT_EQ(v[1], 28);
  EXPECT_EQ(v[2], 49);
  EXPECT_EQ(v[3], 64);
}

static void session_runs_seed_matmul(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *c = binary(g, "MatMul", "c", constant(g, "a", d23, 2, seed_vals), constant(g, "b", d32, 2, seed_vals));
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Output out = {c, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_STREQ(TF_Message(s), "");
  expect_seed_result(r);
  TF_DeleteTensor(r);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_feeds_placeholders_and_fetches_twice(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, d23, 2);
  TF_Operation *c = binary(g, "MatMul", "c", x, constant(g, "b", d32, 2, seed_vals));
  TF_Session *sess = TF_NewSession(g, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Output in = {x, 0}, outs[2] = {{c, 0}, {c, 0}};
  TF_Tensor *feed = f32(d23, 2, seed_vals), *r[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, &in, &feed, 1, outs, r, 2, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_seed_result(r[0]);
  expect_seed_result(r[1]);
  /* the caller keeps its input */
  EXPECT_EQ(((float *)TF_TensorData(feed))[5], 6);
  TF_DeleteTensor(r[0]);
  TF_DeleteTensor(r[1]);
  TF_DeleteTensor(feed);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_feeds_any_output_and_prunes_its_producer(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  /* a is an unfed placeholder; feeding a's consumer 'ident' means a must not run */
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, d23, 2);
  TF_OperationDescription *d = TF_NewOperation(g, "Identity", "ident");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_Operation *ident = TF_FinishOperation(d, s);
  TF_Operation *c = binary(g, "MatMul", "c", ident, constant(g, "b", d32, 2, seed_vals));
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_Output in = {ident, 0}, out = {c, 0};
  TF_Tensor *feed = f32(d23, 2, seed_vals), *r = NULL;
  TF_SessionRun(sess, NULL, &in, &feed, 1, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_seed_result(r);
  TF_DeleteTensor(r);
  /* fetching a fed output returns the fed value */
  TF_SessionRun(sess, NULL, &in, &feed, 1, &in, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(((float *)TF_TensorData(r))[4], 5);
  TF_DeleteTensor(r);
  TF_DeleteTensor(feed);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_unfed_placeholder_is_invalid_argument(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, NULL, -1);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_Output out = {x, 0};
  TF_Tensor *r = (TF_Tensor *)0x1;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "You must feed a value for placeholder tensor 'x' with dtype float");
  EXPECT_CONTAINS(TF_Message(s), "{{node x}}");
  EXPECT_TRUE(r == NULL);
  /* with a known shape TF 1.15 adds it */
  TF_Operation *y = placeholder(g, "y", TF_FLOAT, d23, 2);
  out.oper = y;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "You must feed a value for placeholder tensor 'y' with dtype float and shape [2,3]");
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_runtime_shape_mismatch_names_node_and_shapes(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, NULL, -1);
  TF_Operation *y = placeholder(g, "y", TF_FLOAT, NULL, -1);
  TF_Operation *c = binary(g, "MatMul", "prod", x, y);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_Output in[2] = {{x, 0}, {y, 0}}, out = {c, 0};
  TF_Tensor *feeds[2] = {f32(d23, 2, seed_vals), f32(d23, 2, seed_vals)}, *r = NULL;
  TF_SessionRun(sess, NULL, in, feeds, 2, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
  EXPECT_CONTAINS(TF_Message(s), "{{node prod}}");
  TF_DeleteTensor(feeds[0]);
  TF_DeleteTensor(feeds[1]);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_feed_of_wrong_dtype_is_rejected(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, NULL, -1);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  int64_t d1[1] = {1};
  TF_Tensor *feed = TF_AllocateTensor(TF_INT32, d1, 1, 4), *r = NULL;
  TF_Output io = {x, 0};
  TF_SessionRun(sess, NULL, &io, &feed, 1, &io, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Expects arg[0] to be float but int32 is provided");
  TF_DeleteTensor(feed);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_runs_targets_without_fetches(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *c = binary(g, "MatMul", "c", constant(g, "a", d23, 2, seed_vals), constant(g, "b", d32, 2, seed_vals));
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "done");
  TF_AddControlInput(d, c);
  TF_Operation *done = TF_FinishOperation(d, s);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  const TF_Operation *targets[1] = {done};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  /* a failing node that is not needed does not run */
  placeholder(g, "unused", TF_FLOAT, NULL, -1);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_sees_nodes_added_after_creation(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Session *sess = TF_NewSession(g, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *c = binary(g, "MatMul", "c", constant(g, "a", d23, 2, seed_vals), constant(g, "b", d32, 2, seed_vals));
  TF_Output out = {c, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_seed_result(r);
  TF_DeleteTensor(r);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

typedef struct thread_arg {
  TF_Session *sess;
  TF_Operation *x, *c;
  int failures;
} thread_arg;

static void *run_many(void *p) {
  thread_arg *a = p;
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < 200; i++) {
    float v[6];
    for (int j = 0; j < 6; j++) v[j] = seed_vals[j] * (float)(i + 1);
    TF_Tensor *feed = f32(d23, 2, v), *r = NULL;
    TF_Output in = {a->x, 0}, out = {a->c, 0};
    TF_SessionRun(a->sess, NULL, &in, &feed, 1, &out, &r, 1, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK || ((float *)TF_TensorData(r))[3] != 64.0f * (float)(i + 1)) a->failures++;
    TF_DeleteTensor(r);
    TF_DeleteTensor(feed);
  }
  TF_DeleteStatus(s);
  return NULL;
}

static void session_runs_concurrently_from_threads(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, d23, 2);
  TF_Operation *c = binary(g, "MatMul", "c", x, constant(g, "b", d32, 2, seed_vals));
  TF_Session *sess = TF_NewSession(g, NULL, s);
  pthread_t th[4];
  thread_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (thread_arg){sess, x, c, 0};
    pthread_create(&th[i], NULL, run_many, &args[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    EXPECT_EQ(args[i].failures, 0);
  }
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_closed_rejects_runs(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", d23, 2, seed_vals);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_CloseSession(sess, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s), "Session has been closed.");
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_graph_outlives_delete_graph(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", d23, 2, seed_vals);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_DeleteGraph(g); /* the session keeps it alive */
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(((float *)TF_TensorData(r))[5], 6);
  TF_DeleteTensor(r);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

static void session_lists_its_devices(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_DeviceListCount(l), 1);
  EXPECT_STREQ(TF_DeviceListName(l, 0, s), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_STREQ(TF_DeviceListType(l, 0, s), "CPU");
  EXPECT_EQ(TF_DeviceListMemoryBytes(l, 0, s), 268435456);
  EXPECT_TRUE(TF_DeviceListIncarnation(l, 0, s) != 0);
  EXPECT_TRUE(TF_DeviceListName(l, 1, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteDeviceList(l);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_config_sets_cpu_device_count(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *o = TF_NewSessionOptions();
  /* ConfigProto { device_count { key: "CPU" value: 3 } } */
  const unsigned char cfg[] = {0x0a, 0x07, 0x0a, 0x03, 'C', 'P', 'U', 0x10, 0x03};
  TF_SetConfig(o, cfg, sizeof cfg, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_DeviceListCount(l), 3);
  EXPECT_STREQ(TF_DeviceListName(l, 2, s), "/job:localhost/replica:0/task:0/device:CPU:2");
  TF_DeleteDeviceList(l);
  TF_DeleteSession(sess, s);
  /* malformed bytes */
  const unsigned char bad[] = {0x0a, 0x7f, 0x01};
  TF_SetConfig(o, bad, sizeof bad, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Unparseable ConfigProto");
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_explicit_missing_device_fails_with_tf_text(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Tensor *t = f32(d23, 2, seed_vals);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "a");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetDevice(d, "/gpu:2");
  TF_Operation *a = TF_FinishOperation(d, s);
  TF_DeleteTensor(t);
  TF_Session *sess = TF_NewSession(g, NULL, s);
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Cannot assign a device for operation a: Operation was explicitly assigned to /gpu:2 "
                                 "but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ].");
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_plain_setters_and_device_query(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", d23, 2, seed_vals);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetDeviceCount(o, "CPU", 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TFC_SetThreads(o, 1, 1);
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_DeviceList *l = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_DeviceListCount(l), 2);
  TF_DeleteDeviceList(l);
  EXPECT_TRUE(TFC_SessionOperationDevice(sess, a, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(r);
  EXPECT_STREQ(TFC_SessionOperationDevice(sess, a, s), "/job:localhost/replica:0/task:0/device:CPU:0");
  TFC_SetDeviceCount(o, "A_DEVICE_TYPE_NAME_TOO_LONG", 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_logs_device_placement(void) {
  tfc_capture cap;
  tfc_capture_begin(&cap, 1);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *c = binary(g, "MatMul", "c", constant(g, "a", d23, 2, seed_vals), constant(g, "b", d32, 2, seed_vals));
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetLogDevicePlacement(o, 1);
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Output out = {c, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  char buf[4096];
  tfc_capture_end(&cap, buf, sizeof buf);
  EXPECT_TRUE(buf[0] != 0);
  EXPECT_CONTAINS(buf, "Device mapping: no known devices.\n");
  EXPECT_CONTAINS(buf, "c: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0\n");
  EXPECT_CONTAINS(buf, "a: (Const): /job:localhost/replica:0/task:0/device:CPU:0\n");
  TF_DeleteTensor(r);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A lone partition that sends to itself (as a GPU partition does when a host-memory input
 * reads a device output): the step still gets a rendezvous, and the _Recv gets the _Send's
 * tensor. TF runs such graphs written by hand too. */
static void session_lone_partition_sending_to_itself_gets_a_rendezvous(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *x = constant(g, "x", d23, 2, seed_vals);
  const char *cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  TF_OperationDescription *d = TF_NewOperation(g, "_Send", "send");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_SetAttrString(d, "tensor_name", "edge_1_x", 8);
  TF_SetAttrString(d, "send_device", cpu, strlen(cpu));
  TF_SetAttrString(d, "recv_device", cpu, strlen(cpu));
  TF_SetAttrInt(d, "send_device_incarnation", 1);
  TF_SetAttrBool(d, "client_terminated", 0);
  TF_Operation *send = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  d = TF_NewOperation(g, "_Recv", "recv");
  TF_SetAttrType(d, "tensor_type", TF_FLOAT);
  TF_SetAttrString(d, "tensor_name", "edge_1_x", 8);
  TF_SetAttrString(d, "send_device", cpu, strlen(cpu));
  TF_SetAttrString(d, "recv_device", cpu, strlen(cpu));
  TF_SetAttrInt(d, "send_device_incarnation", 1);
  TF_SetAttrBool(d, "client_terminated", 0);
  TF_Operation *recv = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *y = binary(g, "AddV2", "y", recv, recv);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  for (int step = 0; step < 2; step++) {
    TF_Output out = {y, 0};
    TF_Tensor *v = NULL;
    const TF_Operation *targets[1] = {send};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &v, 1, targets, 1, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
    const float *f = TF_TensorData(v);
    for (int i = 0; i < 6; i++) EXPECT_EQ(f[i], 2 * seed_vals[i]);
    TF_DeleteTensor(v);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(session_lone_partition_sending_to_itself_gets_a_rendezvous),
    TFC_TEST(session_plain_setters_and_device_query),
    TFC_TEST(session_logs_device_placement),
    TFC_TEST(session_runs_seed_matmul),
    TFC_TEST(session_feeds_placeholders_and_fetches_twice),
    TFC_TEST(session_feeds_any_output_and_prunes_its_producer),
    TFC_TEST(session_unfed_placeholder_is_invalid_argument),
    TFC_TEST(session_runtime_shape_mismatch_names_node_and_shapes),
    TFC_TEST(session_feed_of_wrong_dtype_is_rejected),
    TFC_TEST(session_runs_targets_without_fetches),
    TFC_TEST(session_sees_nodes_added_after_creation),
    TFC_TEST(session_runs_concurrently_from_threads),
    TFC_TEST(session_closed_rejects_runs),
    TFC_TEST(session_graph_outlives_delete_graph),
    TFC_TEST(session_lists_its_devices),
    TFC_TEST(session_config_sets_cpu_device_count),
    TFC_TEST(session_explicit_missing_device_fails_with_tf_text),
    {0}};
TFC_TEST_MAIN(tests)
