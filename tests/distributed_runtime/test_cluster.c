/* End-to-end tests of the distributed runtime with real processes on 127.0.0.1: `tfc server`
 * tasks (tools/tfc_server.c) serving the master and worker services, and this process as the
 * client through the TF C API (TF_SetTarget "grpc://localhost:<port>"), as a TF 1.x program
 * talks to a cluster of tf.train.Server tasks.
 *
 * Covered: an in-process create_local_server, and a run on it cancelled by the client; a node placed on another task, with the
 * placement log on the master task; a task that starts late; a task that never starts; ps/
 * worker between-graph replication of variables; a 120 MB tensor across tasks; a task killed
 * during a step (worker, and ps holding a variable the step reads); a client killed during a
 * step; malformed and unknown RPCs; the tool's signals, flags (--cpus, --def) and exit codes.
 *
 * Every wait has a hang guard (dist_util.h) and every spawned task dies with the test. */
#include <stdatomic.h>

#include "base/clock.h"
#include "distributed_runtime/rpc.h"
#include "dist_util.h"
#include "tensorflow/tensorflow_server.pb-c.h"
#include "tfc/server.h"
#include "tfc/tfc.h"

/* Exact float comparison with both values in the failure message. */
#define EXPECT_FEQ(a, b) EXPECT_NEAR(a, b, 0)

#define T0 "/job:local/replica:0/task:0"
#define T1 "/job:local/replica:0/task:1"

/* ---------------- in-process server ---------------- */

/* A started create_local_server() server. */
static TF_Server *local_server(TF_Status *s) {
  TF_Buffer *def = TFC_NewLocalServerDef(s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteBuffer(def);
  TF_ServerStart(srv, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  return srv;
}

static void local_server_says_hello(void) {
  TF_Status *s = TF_NewStatus();
  TF_Server *srv = local_server(s);
  const char *target = TF_ServerTarget(srv);
  EXPECT_TRUE(strncmp(target, "grpc://localhost:", 17) == 0);
  EXPECT_TRUE(atoi(target + 17) > 0);

  TF_Graph *g = TF_NewGraph();
  TF_Tensor *hello = dist_string("Hello, distributed TensorFlow!");
  TF_Operation *c = dist_const_tensor(g, "hello", NULL, hello);
  TF_DeleteTensor(hello);
  TF_Session *sess = dist_session(g, target, NULL);
  TF_Tensor *out = dist_run(sess, NULL, NULL, c, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_TensorType(out), TF_STRING);
  EXPECT_EQ(TF_NumDims(out), 0);
  const char *str;
  size_t len;
  TF_StringDecode((const char *)TF_TensorData(out) + 8, TF_TensorByteSize(out) - 8, &str, &len, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(len, strlen("Hello, distributed TensorFlow!"));
  EXPECT_TRUE(memcmp(str, "Hello, distributed TensorFlow!", len) == 0);
  TF_DeleteTensor(out);

  TF_CloseSession(sess, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_ServerStop(srv, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteServer(srv);
  TF_DeleteStatus(s);
}

typedef struct cancel_after {
  TFC_CancellationManager *m;
  int ms;
} cancel_after;

static void *cancel_after_run(void *arg) {
  cancel_after *c = arg;
  dist_sleep_ms(c->ms);
  TFC_CancellationManagerStartCancel(c->m);
  return NULL;
}

/* TFC_SessionRunWithCancellation through the master: a dequeue blocked on the server's queue
 * ends with CANCELLED when the client cancels (the RunStep call is cancelled and the master
 * aborts the step), and the session and queue work afterwards. */
static void remote_run_is_cancelled(void) {
  TF_Status *s = TF_NewStatus();
  TF_Server *srv = local_server(s);
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = dist_op(g, "FIFOQueueV2", "q", NULL);
  TF_DataType dt = TF_FLOAT;
  TF_SetAttrTypeList(d, "component_types", &dt, 1);
  TF_Operation *q = dist_finish(d, "q");
  d = dist_op(g, "QueueDequeueV2", "deq", NULL);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_SetAttrTypeList(d, "component_types", &dt, 1);
  TF_Operation *deq = dist_finish(d, "deq");
  TF_Output v = {dist_const_f(g, "v", NULL, 2.5f), 0};
  d = dist_op(g, "QueueEnqueueV2", "enq", NULL);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_AddInputList(d, &v, 1);
  TF_Operation *enq = dist_finish(d, "enq");
  TF_Session *sess = dist_session(g, TF_ServerTarget(srv), NULL);

  cancel_after c = {TFC_NewCancellationManager(), 200};
  pthread_t th;
  EXPECT_EQ(pthread_create(&th, NULL, cancel_after_run, &c), 0);
  TF_Output fetch = {deq, 0};
  TF_Tensor *out = NULL;
  TFC_SessionRunWithCancellation(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, c.m, s);
  pthread_join(th, NULL);
  EXPECT_EQ(TF_GetCode(s), TF_CANCELLED);
  EXPECT_CONTAINS(TF_Message(s), "Run call was cancelled");
  EXPECT_TRUE(out == NULL);
  TFC_DeleteCancellationManager(c.m);

  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&enq, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_FEQ(*(float *)TF_TensorData(out), 2.5f);
  TF_DeleteTensor(out);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_ServerStop(srv, s);
  TF_DeleteServer(srv);
  TF_DeleteStatus(s);
}

/* ---------------- two tasks ---------------- */

/* Nodes added after the first run reach the master with ExtendSession (only the new nodes,
 * whose inputs name nodes it already has) and run across tasks like the first ones. */
static void graph_grown_between_runs_is_extended(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = dist_const_f(g, "a", "/job:local/task:1", 3.0f);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  EXPECT_FEQ(dist_run_scalar(sess, a, __LINE__), 3);
  TF_Operation *b = dist_binary(g, "Mul", "b", "/job:local/task:0", (TF_Output){a, 0}, (TF_Output){a, 0});
  EXPECT_FEQ(dist_run_scalar(sess, b, __LINE__), 9);
  TF_Operation *c = dist_binary(g, "Add", "c", "/job:local/task:1", (TF_Output){b, 0}, (TF_Output){a, 0});
  TF_Operation *d = dist_binary(g, "Sub", "d", NULL, (TF_Output){c, 0}, (TF_Output){b, 0});
  EXPECT_FEQ(dist_run_scalar(sess, c, __LINE__), 12);
  EXPECT_FEQ(dist_run_scalar(sess, d, __LINE__), 3);
  EXPECT_FEQ(dist_run_scalar(sess, b, __LINE__), 9);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* A step blocked on another task past its deadline fails with DEADLINE_EXCEEDED on time, and
 * leaves the cluster working: the blocked dequeue on task 1 was released (a later enqueue's
 * element is not swallowed by it). */
static void step_past_its_deadline_is_aborted_on_every_task(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = dist_queue(g, "q", "/job:local/task:1", "deadline_q");
  TF_Operation *deq = dist_dequeue(g, "deq", "/job:local/task:1", q);
  TF_Operation *y = dist_unary(g, "Identity", "y", "/job:local/task:0", (TF_Output){deq, 0});
  TF_Operation *seven = dist_const_f(g, "seven", "/job:local/task:1", 7.0f);
  TF_Operation *enq = dist_enqueue(g, "enq", "/job:local/task:1", q, (TF_Output){seven, 0});
  dist_config cfg = {.operation_timeout_in_ms = 700};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  TF_Status *s = TF_NewStatus();
  int64_t t_start = dist_now_ms();
  TF_Tensor *r = dist_run(sess, NULL, NULL, y, NULL, s);
  int64_t took = dist_now_ms() - t_start;
  EXPECT_TRUE(r == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(TF_Message(s), "Timed out after 700 ms");
  EXPECT_TRUE(took < 20000); /* a hang guard, not a timing assertion */
  dist_run(sess, NULL, NULL, NULL, enq, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_FEQ(dist_run_scalar(sess, y, __LINE__), 7);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(t1);
  dist_task_free(t0);
}



/* a = [1, 2, 3] on task 0, b = 2 on task 1, y = a * b on task 1. */
static void node_on_other_task_runs_there_and_is_logged(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  char want[64];
  snprintf(want, sizeof want, "grpc://localhost:%d", ports[0]);
  EXPECT_STREQ(t0->target, want);

  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  dist_config cfg = {.log_device_placement = 1};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  TF_Status *s = TF_NewStatus();
  TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
  dist_expect_2_4_6(out, __LINE__);
  TF_DeleteTensor(out);
  /* The master (task 0) logs the placement as TF does: "name: (Op): device". */
  dist_task_wait_for(t0, 0, "y: (Mul): " T1 "/device:CPU:0", DIST_START_GUARD_MS);
  dist_task_wait_for(t0, 0, "a: (Const): " T0 "/device:CPU:0", DIST_START_GUARD_MS);

  /* A second run of the same session gives the same value. */
  out = dist_run(sess, NULL, NULL, y, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  dist_expect_2_4_6(out, __LINE__);
  TF_DeleteTensor(out);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(t1);
  dist_task_free(t0);
}

static void task_that_starts_late_is_waited_for(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  dist_bg_run r;
  dist_bg_start(&r, sess, y);
  dist_sleep_ms(2000); /* task 1 comes up two seconds after the run began */
  EXPECT_TRUE(!atomic_load(&r.done));
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  dist_bg_join(&r, DIST_STEP_GUARD_MS, __LINE__);
  if (TF_GetCode(r.s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(r.s));
  dist_expect_2_4_6(r.result, __LINE__);
  char *err = dist_task_output(t0, 1);
  EXPECT_CONTAINS(err, "CreateSession still waiting for response from worker: " T1);
  free(err);
  dist_bg_fini(&r);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

static void task_that_never_starts_is_unavailable(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  dist_config cfg = {.operation_timeout_in_ms = 1500};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  dist_bg_run r;
  dist_bg_start(&r, sess, y);
  dist_bg_join(&r, DIST_STEP_GUARD_MS, __LINE__);
  EXPECT_EQ(TF_GetCode(r.s), TF_UNAVAILABLE);
  EXPECT_CONTAINS(TF_Message(r.s), T1);
  EXPECT_TRUE(r.result == NULL);
  dist_bg_fini(&r);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t0);
}

/* ---------------- ps / worker ---------------- */

typedef struct pw_graph {
  TF_Graph *g;
  TF_Operation *init0, *init1, *add0, *add1, *read0, *read1;
} pw_graph;

/* Between-graph replication: every worker builds the same variables on the ps tasks (same
 * names, so the same resources) and its own increments. */
static void build_pw(pw_graph *p, float inc) {
  TF_Graph *g = p->g = TF_NewGraph();
  TF_Operation *v0 = dist_variable(g, "v0", "/job:ps/task:0");
  TF_Operation *v1 = dist_variable(g, "v1", "/job:ps/task:1");
  TF_Operation *zero = dist_const_f(g, "zero", NULL, 0.0f);
  TF_Operation *c = dist_const_f(g, "inc", NULL, inc);
  p->init0 = dist_binary(g, "Assign", "v0/Assign", NULL, (TF_Output){v0, 0}, (TF_Output){zero, 0});
  p->init1 = dist_binary(g, "Assign", "v1/Assign", NULL, (TF_Output){v1, 0}, (TF_Output){zero, 0});
  p->add0 = dist_binary(g, "AssignAdd", "add0", NULL, (TF_Output){v0, 0}, (TF_Output){c, 0});
  p->add1 = dist_binary(g, "AssignAdd", "add1", NULL, (TF_Output){v1, 0}, (TF_Output){c, 0});
  p->read0 = dist_unary(g, "Identity", "v0/read", NULL, (TF_Output){v0, 0});
  p->read1 = dist_unary(g, "Identity", "v1/read", NULL, (TF_Output){v1, 0});
}

static void ps_worker_between_graph_replication(void) {
  int ports[4];
  dist_free_ports(4, ports);
  char cluster[256];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d,localhost:%d;worker=localhost:%d,localhost:%d", ports[0],
           ports[1], ports[2], ports[3]);
  dist_task *ps0 = dist_server_start(cluster, "ps", 0, NULL, NULL);
  dist_task *ps1 = dist_server_start(cluster, "ps", 1, NULL, NULL);
  dist_task *w0 = dist_server_start(cluster, "worker", 0, NULL, NULL);
  dist_task *w1 = dist_server_start(cluster, "worker", 1, NULL, NULL);

  pw_graph p0, p1;
  build_pw(&p0, 1.0f);
  build_pw(&p1, 10.0f);
  TF_Session *s0 = dist_session(p0.g, w0->target, NULL);
  TF_Session *s1 = dist_session(p1.g, w1->target, NULL);
  TF_Status *s = TF_NewStatus();
  /* Only the chief (worker 0) initializes. */
  dist_run(s0, NULL, NULL, NULL, p0.init0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  dist_run(s0, NULL, NULL, NULL, p0.init1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);

  float want = 0;
  for (int round = 0; round < 3; round++) {
    for (int w = 0; w < 2; w++) {
      TF_Session *sess = w ? s1 : s0;
      pw_graph *p = w ? &p1 : &p0;
      want += w ? 10.0f : 1.0f;
      EXPECT_FEQ(dist_run_scalar(sess, p->add0, __LINE__), want);
      EXPECT_FEQ(dist_run_scalar(sess, p->add1, __LINE__), want);
      /* Both workers read the same values back. */
      EXPECT_FEQ(dist_run_scalar(s0, p0.read0, __LINE__), want);
      EXPECT_FEQ(dist_run_scalar(s1, p1.read1, __LINE__), want);
    }
  }
  EXPECT_FEQ(want, 33);

  /* A worker's session sees every task's CPU. */
  TF_DeviceList *dl = TF_SessionListDevices(s1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  static const char *const devs[] = {"/job:ps/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:1/device:CPU:0",
                                     "/job:worker/replica:0/task:0/device:CPU:0",
                                     "/job:worker/replica:0/task:1/device:CPU:0"};
  EXPECT_EQ(TF_DeviceListCount(dl), 4);
  for (int d = 0; d < 4; d++) {
    int found = 0;
    for (int i = 0; i < TF_DeviceListCount(dl); i++) {
      if (strcmp(TF_DeviceListName(dl, i, s), devs[d]) == 0) {
        found = 1;
        EXPECT_STREQ(TF_DeviceListType(dl, i, s), "CPU");
      }
    }
    if (!found) tfc_test_fail(__FILE__, __LINE__, "ListDevices lacks %s", devs[d]);
  }
  TF_DeleteDeviceList(dl);

  dist_session_free(s0);
  dist_session_free(s1);
  TF_DeleteGraph(p0.g);
  TF_DeleteGraph(p1.g);
  TF_DeleteStatus(s);
  dist_task_free(w1);
  dist_task_free(w0);
  dist_task_free(ps1);
  dist_task_free(ps0);
}

/* A step that updates a variable on the ps and then fails on the worker leaves the variable
 * as it was: the ps's part succeeded, but the master's abort undoes its write. */
static void failed_step_leaves_remote_variables_unchanged(void) {
  int ports[2];
  dist_free_ports(2, ports);
  char cluster[160];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=localhost:%d", ports[0], ports[1]);
  dist_task *ps = dist_server_start(cluster, "ps", 0, NULL, NULL);
  dist_task *w = dist_server_start(cluster, "worker", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *v = dist_variable(g, "v", "/job:ps/task:0");
  TF_Operation *five = dist_const_f(g, "five", "/job:ps/task:0", 5.0f);
  TF_Operation *init = dist_binary(g, "Assign", "v/Assign", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){five, 0});
  TF_Operation *one = dist_const_f(g, "one", "/job:ps/task:0", 1.0f);
  TF_Operation *add = dist_binary(g, "AssignAdd", "add", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){one, 0});
  /* On the worker: the updated value times infinity, which CheckNumerics refuses. */
  TF_Operation *inf = dist_const_f(g, "inf", "/job:worker/task:0", 1.0f / 0.0f);
  TF_Operation *bad = dist_binary(g, "Mul", "bad", "/job:worker/task:0", (TF_Output){add, 0}, (TF_Output){inf, 0});
  TF_OperationDescription *d = dist_op(g, "CheckNumerics", "check", "/job:worker/task:0");
  TF_AddInput(d, (TF_Output){bad, 0});
  TF_SetAttrString(d, "message", "bad value", 9);
  TF_Operation *check = dist_finish(d, "check");
  TF_Operation *read = dist_unary(g, "Identity", "v/read", "/job:ps/task:0", (TF_Output){v, 0});
  TF_Session *sess = dist_session(g, w->target, NULL);
  TF_Status *s = TF_NewStatus();
  EXPECT_FEQ(dist_run_scalar(sess, init, __LINE__), 5);
  EXPECT_FEQ(dist_run_scalar(sess, add, __LINE__), 6);
  TF_Tensor *r = dist_run(sess, NULL, NULL, check, NULL, s);
  EXPECT_TRUE(r == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "bad value");
  EXPECT_CONTAINS(TF_Message(s), "/job:worker/replica:0/task:0/device:CPU:0");
  /* The ps's AssignAdd ran in that step, and was undone. */
  EXPECT_FEQ(dist_run_scalar(sess, read, __LINE__), 6);
  EXPECT_FEQ(dist_run_scalar(sess, add, __LINE__), 7);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(w);
  dist_task_free(ps);
}

/* Variables outlive sessions on their task, until Reset clears their container. */
static void reset_clears_the_clusters_containers(void) {
  int ports[2];
  dist_free_ports(2, ports);
  char cluster[160];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=localhost:%d", ports[0], ports[1]);
  dist_task *ps = dist_server_start(cluster, "ps", 0, NULL, NULL);
  dist_task *w = dist_server_start(cluster, "worker", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *v = dist_variable(g, "v", "/job:ps/task:0");
  TF_Operation *five = dist_const_f(g, "five", "/job:ps/task:0", 5.0f);
  TF_Operation *init = dist_binary(g, "Assign", "v/Assign", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){five, 0});
  TF_Operation *read = dist_unary(g, "Identity", "v/read", NULL, (TF_Output){v, 0});
  TF_Status *s = TF_NewStatus();
  TF_Session *a = dist_session(g, w->target, NULL);
  EXPECT_FEQ(dist_run_scalar(a, init, __LINE__), 5);
  dist_session_free(a);
  TF_Session *b = dist_session(g, w->target, NULL);
  EXPECT_FEQ(dist_run_scalar(b, read, __LINE__), 5); /* a new session sees it */
  dist_session_free(b);

  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetTarget(o, w->target);
  TF_Reset(o, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Session *c = dist_session(g, w->target, NULL);
  TF_Tensor *r = dist_run(c, NULL, NULL, read, NULL, s);
  EXPECT_TRUE(r == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "Attempting to use uninitialized value v");
  dist_session_free(c);
  TF_SetTarget(o, "");
  TF_Reset(o, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNIMPLEMENTED);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(w);
  dist_task_free(ps);
}

/* ---------------- a large tensor ---------------- */

static void large_tensor_crosses_tasks(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = dist_placeholder(g, "x", "/job:local/task:1", TF_FLOAT);
  TF_Operation *y = dist_unary(g, "Identity", "y", "/job:local/task:0", (TF_Output){x, 0});
  TF_Session *sess = dist_session(g, t0->target, NULL);

  const int64_t dims[] = {10000, 3000};
  const size_t n = 10000 * 3000;
  TF_Tensor *feed = TF_AllocateTensor(TF_FLOAT, dims, 2, n * sizeof(float));
  float *v = TF_TensorData(feed);
  for (size_t i = 0; i < n; i++) v[i] = (float)i * 0.5f;
  TF_Status *s = TF_NewStatus();
  TF_Tensor *out = dist_run(sess, x, feed, y, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(s));
  EXPECT_EQ(TF_TensorType(out), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(out), 2);
  EXPECT_EQ(TF_Dim(out, 0), 10000);
  EXPECT_EQ(TF_Dim(out, 1), 3000);
  EXPECT_EQ(TF_TensorByteSize(out), n * sizeof(float));
  const float *o = TF_TensorData(out);
  for (size_t i = 0; i < n; i++)
    if (o[i] != (float)i * 0.5f) tfc_test_fail(__FILE__, __LINE__, "y[%zu] = %g, want %g", i, o[i], (float)i * 0.5f);
  TF_DeleteTensor(out);
  TF_DeleteTensor(feed);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- tasks that die ---------------- */

/* The step waits on `victim` (which the graph makes it do); victim is SIGKILLed once the step
 * has had time to start there; the run must fail with the dead task's name, well before the
 * operation timeout (UNAVAILABLE, not DEADLINE_EXCEEDED). */
static void expect_run_fails_when_killed(TF_Session *sess, TF_Operation *fetch, dist_task *master,
                                         dist_task *victim, const char *victim_name) {
  dist_bg_run r;
  dist_bg_start(&r, sess, fetch);
  dist_sleep_ms(1500); /* lets the step reach its blocking op (not an assertion) */
  EXPECT_TRUE(!atomic_load(&r.done));
  EXPECT_TRUE(dist_task_signal_wait(victim, SIGKILL, DIST_START_GUARD_MS) != -1);
  dist_bg_join(&r, DIST_STEP_GUARD_MS, __LINE__);
  if (TF_GetCode(r.s) == TF_OK) tfc_test_fail(__FILE__, __LINE__, "the step succeeded after %s died", victim_name);
  /* TF 1.15 reports a peer that went away as UnavailableError ("Socket closed"). */
  if (TF_GetCode(r.s) != TF_UNAVAILABLE)
    tfc_test_fail(__FILE__, __LINE__, "code %d (want UNAVAILABLE): %s", TF_GetCode(r.s), TF_Message(r.s));
  if (!strstr(TF_Message(r.s), victim_name)) {
    char why[512];
    snprintf(why, sizeof why, "the step's error does not name %s: \"%s\"", victim_name, TF_Message(r.s));
    dist_task_fail(master, __LINE__, why);
  }
  /* The master task outlives its peer's death. */
  if (dist_task_reap(master)) dist_task_fail(master, __LINE__, "the master task died with its peer");
  dist_bg_fini(&r);
}

static void worker_killed_during_step_fails_the_step(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = dist_queue(g, "q", "/job:local/task:1", "killq");
  TF_Operation *dq = dist_dequeue(g, "dq", "/job:local/task:1", q);
  TF_Operation *y = dist_unary(g, "Identity", "y", "/job:local/task:0", (TF_Output){dq, 0});
  dist_config cfg = {.operation_timeout_in_ms = 120000};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  expect_run_fails_when_killed(sess, y, t0, t1, T1);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

static void ps_killed_during_step_fails_the_step(void) {
  int ports[2];
  dist_free_ports(2, ports);
  char cluster[128];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=localhost:%d", ports[0], ports[1]);
  dist_task *ps = dist_server_start(cluster, "ps", 0, NULL, NULL);
  dist_task *w = dist_server_start(cluster, "worker", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *v = dist_variable(g, "v", "/job:ps/task:0");
  TF_Operation *one = dist_const_f(g, "one", "/job:ps/task:0", 1.0f);
  TF_Operation *init = dist_binary(g, "Assign", "v/Assign", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){one, 0});
  /* The step reads v on the ps and adds a value that never comes (the worker's queue stays
   * empty), so the ps's part of the step is in flight when the ps dies. */
  TF_Operation *q = dist_queue(g, "q", "/job:worker/task:0", "psq");
  TF_Operation *dq = dist_dequeue(g, "dq", "/job:worker/task:0", q);
  TF_Operation *sum = dist_binary(g, "Add", "sum", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){dq, 0});
  dist_config cfg = {.operation_timeout_in_ms = 120000};
  TF_Session *sess = dist_session(g, w->target, &cfg);
  TF_Status *s = TF_NewStatus();
  dist_run(sess, NULL, NULL, NULL, init, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_run_fails_when_killed(sess, sum, w, ps, "/job:ps/replica:0/task:0");
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(w);
  dist_task_free(ps);
}

/* A client process that runs a step blocked on task 1's queue "crashq" and is SIGKILLed. It
 * starts once the test writes to go_fd and says it is about to run on ready_fd. */
static void crashing_client(const char *target, int go_fd, int ready_fd) {
  char c;
  if (read(go_fd, &c, 1) != 1) _exit(2); /* the test died or failed before the cluster came up */
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = dist_queue(g, "q", "/job:local/task:1", "crashq");
  TF_Operation *dq = dist_dequeue(g, "dq", "/job:local/task:1", q);
  TF_Session *sess = dist_session(g, target, NULL);
  if (write(ready_fd, "r", 1) != 1) _exit(3);
  TF_Status *s = TF_NewStatus();
  dist_run(sess, NULL, NULL, dq, NULL, s);
  _exit(4); /* never reached: the step blocks until the test kills this process */
}

static void client_killed_during_step_leaves_cluster_usable(void) {
  char cluster[128], target[64];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  snprintf(target, sizeof target, "grpc://localhost:%d", ports[0]);

  /* The crashing client forks first, while this process has a single thread and has not
   * touched gRPC (gRPC core, and ThreadSanitizer, do not survive a fork of a threaded
   * process); it waits for the word to go. */
  int go[2], ready[2];
  EXPECT_EQ(pipe(go), 0);
  EXPECT_EQ(pipe(ready), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t client = fork();
  EXPECT_TRUE(client >= 0);
  if (client == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(go[1]);
    close(ready[0]);
    crashing_client(target, go[0], ready[1]);
  }
  close(go[0]);
  close(ready[1]);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  EXPECT_STREQ(t0->target, target);
  EXPECT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  struct pollfd pr = {.fd = ready[0], .events = POLLIN};
  EXPECT_EQ(poll(&pr, 1, DIST_START_GUARD_MS), 1);
  char c;
  EXPECT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  dist_sleep_ms(1500); /* lets the client's step reach the dequeue on task 1 (not an assertion) */
  int st;
  EXPECT_EQ(waitpid(client, &st, WNOHANG), 0); /* still blocked in its step */
  kill(client, SIGKILL);
  EXPECT_EQ(waitpid(client, &st, 0), client);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  dist_sleep_ms(2000); /* lets the servers see the client go (not an assertion) */

  /* A second client: an ordinary step across both tasks works. */
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  TF_Operation *q = dist_queue(g, "q", "/job:local/task:1", "crashq");
  TF_Operation *seven = dist_const_f(g, "seven", "/job:local/task:1", 7.0f);
  TF_Operation *enq = dist_enqueue(g, "enq", "/job:local/task:1", q, (TF_Output){seven, 0});
  TF_Operation *dq = dist_dequeue(g, "dq", "/job:local/task:1", q);
  dist_config cfg = {.operation_timeout_in_ms = 20000};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  TF_Status *s = TF_NewStatus();
  TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
  if (TF_GetCode(s) != TF_OK) dist_task_fail(t0, __LINE__, TF_Message(s));
  dist_expect_2_4_6(out, __LINE__);
  TF_DeleteTensor(out);
  /* The dead client's dequeue was released: the element enqueued now comes back to us. */
  dist_run(sess, NULL, NULL, NULL, enq, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  out = dist_run(sess, NULL, NULL, dq, NULL, s);
  if (TF_GetCode(s) != TF_OK)
    tfc_test_fail(__FILE__, __LINE__, "dequeue after the dead client's step (was it released?): %s", TF_Message(s));
  EXPECT_FEQ(*(const float *)TF_TensorData(out), 7);
  TF_DeleteTensor(out);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  EXPECT_EQ(kill(t0->pid, 0), 0);
  EXPECT_EQ(kill(t1->pid, 0), 0);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- malformed RPCs ---------------- */

/* Calls `method` on host:port with `len` raw bytes; returns the code, message in s. */
static int raw_call(tfc_rpc_channel *ch, const char *method, const void *bytes, size_t len, tfc_status *s) {
  tfc_msg_out *req = tfc_msg_out_new();
  EXPECT_TRUE(req != NULL);
  if (len) EXPECT_EQ(tfc_msg_out_append(req, bytes, len), 0);
  tfc_msg_in *resp = NULL;
  tfc_status_clear(s);
  int code = tfc_rpc_call_sync(ch, method, req, tfc_now_us() + 20 * 1000000LL, TFC_RPC_WAIT_FOR_READY, &resp, s);
  tfc_msg_in_free(resp);
  return code;
}

static void malformed_and_unknown_rpcs_are_refused(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  char addr[32];
  snprintf(addr, sizeof addr, "localhost:%d", t0->port);
  tfc_status s;
  tfc_status_init(&s);
  tfc_rpc_channel *ch = tfc_rpc_channel_new(addr, 0, &s);
  EXPECT_TRUE(ch != NULL);

  /* Field 1 declared 127 bytes long with 1 following; wire type 7 does not exist. */
  static const uint8_t truncated[] = {0x0a, 0x7f, 'x'};
  static const uint8_t bad_wire_type[] = {0x0f, 0x01, 0x02, 0x03};
  static const char *const methods[][2] = {
      {"/tensorflow.MasterService/RunStep", "Invalid RunStepRequest: "},
      {"/tensorflow.WorkerService/RunGraph", "Invalid RunGraphRequest: "},
      {"/tensorflow.WorkerService/RecvTensor", "Invalid RecvTensorRequest: "},
      {"/tensorflow.MasterService/CreateSession", "Invalid CreateSessionRequest: "},
      {"/tensorflow.WorkerService/RegisterGraph", "Invalid RegisterGraphRequest: "},
  };
  for (int m = 0; m < 5; m++) {
    for (int k = 0; k < 2; k++) {
      const uint8_t *b = k ? bad_wire_type : truncated;
      size_t len = k ? sizeof bad_wire_type : sizeof truncated;
      int code = raw_call(ch, methods[m][0], b, len, &s);
      if (code != TFC_INVALID_ARGUMENT)
        tfc_test_fail(__FILE__, __LINE__, "%s with garbage %d: code %d (%s), want INVALID_ARGUMENT", methods[m][0], k,
                      code, tfc_status_msg(&s));
      EXPECT_CONTAINS(tfc_status_msg(&s), methods[m][1]);
    }
  }
  /* Well-formed protobuf, meaningless content: RecvTensorRequest { step_id: 1, rendezvous_key:
   * "garbage" } is TF's "Invalid rendezvous key". */
  static const uint8_t bad_key[] = {0x08, 0x01, 0x12, 0x07, 'g', 'a', 'r', 'b', 'a', 'g', 'e'};
  EXPECT_EQ(raw_call(ch, "/tensorflow.WorkerService/RecvTensor", bad_key, sizeof bad_key, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "garbage");
  EXPECT_EQ(raw_call(ch, "/tensorflow.WorkerService/NoSuchMethod", "", 0, &s), TFC_UNIMPLEMENTED);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Method not found: /tensorflow.WorkerService/NoSuchMethod");
  EXPECT_EQ(raw_call(ch, "/no.Such/Service", truncated, sizeof truncated, &s), TFC_UNIMPLEMENTED);
  tfc_rpc_channel_free(ch);
  tfc_status_fini(&s);

  /* The task still serves: a real step across both tasks. */
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = dist_cross_task_mul(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  TF_Status *ts = TF_NewStatus();
  TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, ts);
  if (TF_GetCode(ts) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run: %s", TF_Message(ts));
  dist_expect_2_4_6(out, __LINE__);
  TF_DeleteTensor(out);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(ts);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- the tool ---------------- */

static void server_stops_cleanly_on_sigterm_and_sigint(void) {
  const int sigs[] = {SIGTERM, SIGINT};
  for (int i = 0; i < 2; i++) {
    dist_task *t = dist_server_start("local=localhost:0", "local", 0, NULL, NULL);
    int st = dist_task_signal_wait(t, sigs[i], 5000);
    if (st == -1) dist_task_fail(t, __LINE__, "did not exit within 5 s of the signal");
    dist_task_wait_for(t, 0, "tfc server: stopped\n", DIST_START_GUARD_MS);
    EXPECT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0);
    char *o = dist_task_output(t, 0);
    char want[128];
    snprintf(want, sizeof want, "tfc server: " T0 " listening on grpc://localhost:%d\ntfc server: stopped\n", t->port);
    EXPECT_STREQ(o, want);
    free(o);
    dist_task_free(t);
  }
}

static void server_flags_and_exit_codes(void) {
  /* Bad usage: exit 2 with the usage text. */
  static const char *const bad[][8] = {
      {"server", NULL},
      {"server", "--cluster", "local=localhost:0", NULL},
      {"server", "--cluster", "local=localhost:0", "--job", "local", "--task", "x", NULL},
      {"server", "--cluster", "local=localhost:0", "--job", "local", "--port", "70000", NULL},
      {"server", "--cluster", "local=localhost:0", "--job", "local", "--cpus", "0", NULL},
      {"server", "--cluster", "local=localhost:0", "--job", "local", "--bogus", "1", NULL},
      {"server", "--def", "x.pb", "--job", "local", NULL},
      {"server", "--cluster", "local=localhost", "--job", "local", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dist_task *t = dist_task_spawn("tfc server", bad[i]);
    int st = dist_task_signal_wait(t, 0, DIST_START_GUARD_MS);
    if (st == -1) dist_task_fail(t, __LINE__, "did not exit");
    char *e = dist_task_output(t, 1);
    dist_task_free(t);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
      tfc_test_fail(__FILE__, __LINE__, "case %zu: status 0x%x, want exit 2; stderr:\n%s", i, st, e);
    EXPECT_CONTAINS(e, "usage:\n  tfc server --cluster SPEC --job NAME");
    if (i == 7) EXPECT_CONTAINS(e, "tfc server: TFC_NewServerDef: job 'local' task 0: 'localhost' is not host:port");
    free(e);
  }
}

static void server_cpus_flag_gives_cpu_devices(void) {
  dist_task *t = dist_server_start("local=localhost:0", "local", 0, "--cpus", "3");
  TF_Graph *g = TF_NewGraph();
  TF_Session *sess = dist_session(g, t->target, NULL);
  TF_Status *s = TF_NewStatus();
  TF_DeviceList *dl = TF_SessionListDevices(sess, s);
  if (TF_GetCode(s) != TF_OK) dist_task_fail(t, __LINE__, TF_Message(s));
  EXPECT_EQ(TF_DeviceListCount(dl), 3);
  for (int i = 0; i < 3; i++) {
    char want[64];
    snprintf(want, sizeof want, T0 "/device:CPU:%d", i);
    int found = 0;
    for (int k = 0; k < TF_DeviceListCount(dl); k++) found |= strcmp(TF_DeviceListName(dl, k, s), want) == 0;
    if (!found) tfc_test_fail(__FILE__, __LINE__, "ListDevices lacks %s", want);
  }
  TF_DeleteDeviceList(dl);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(t);
}

static void server_from_def_file_and_port_in_use(void) {
  /* --def: a ServerDef written by TFC_NewServerDef. */
  int port;
  dist_free_ports(1, &port);
  char cluster[64];
  snprintf(cluster, sizeof cluster, "solo=localhost:%d", port);
  TF_Status *s = TF_NewStatus();
  TF_Buffer *def = TFC_NewServerDef(cluster, "solo", 0, 0, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  char path[] = TFC_BINARY_DIR "/tests/server_def_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_TRUE(fd >= 0);
  EXPECT_EQ(write(fd, def->data, def->length), (ssize_t)def->length);
  close(fd);
  TF_DeleteBuffer(def);
  const char *args[] = {"server", "--def", path, NULL};
  dist_task *t = dist_task_spawn("/job:solo/replica:0/task:0", args);
  dist_task_wait_listening(t, "/job:solo/replica:0/task:0");
  EXPECT_EQ(t->port, port);
  unlink(path);

  /* A second task on the same port: the server error, exit 1. */
  char task_s[] = "0";
  const char *dup[] = {"server", "--cluster", cluster, "--job", "solo", "--task", task_s, NULL};
  dist_task *t2 = dist_task_spawn("second", dup);
  int st = dist_task_signal_wait(t2, 0, DIST_START_GUARD_MS);
  char *e = dist_task_output(t2, 1);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)
    tfc_test_fail(__FILE__, __LINE__, "status 0x%x, want exit 1; stderr:\n%s", st, e);
  EXPECT_CONTAINS(e, "tfc server: Could not start gRPC server");
  free(e);
  dist_task_free(t2);

  /* The first one still serves a session. */
  TF_Graph *g = TF_NewGraph();
  TF_Operation *c = dist_const_f(g, "c", NULL, 5.0f);
  TF_Session *sess = dist_session(g, t->target, NULL);
  EXPECT_FEQ(dist_run_scalar(sess, c, __LINE__), 5);
  dist_session_free(sess);
  TF_DeleteGraph(g);

  /* A file that is not a ServerDef: exit 1. */
  const char *missing[] = {"server", "--def", "/nonexistent/def.pb", NULL};
  dist_task *t3 = dist_task_spawn("missing", missing);
  st = dist_task_signal_wait(t3, 0, DIST_START_GUARD_MS);
  e = dist_task_output(t3, 1);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  EXPECT_CONTAINS(e, "tfc server: /nonexistent/def.pb: No such file or directory");
  free(e);
  dist_task_free(t3);
  TF_DeleteStatus(s);
  dist_task_free(t);
}

static const tfc_test tests[] = {
    TFC_TEST(local_server_says_hello),
    TFC_TEST(remote_run_is_cancelled),
    TFC_TEST(node_on_other_task_runs_there_and_is_logged),
    TFC_TEST(task_that_starts_late_is_waited_for),
    TFC_TEST(task_that_never_starts_is_unavailable),
    TFC_TEST(ps_worker_between_graph_replication),
    TFC_TEST(failed_step_leaves_remote_variables_unchanged),
    TFC_TEST(graph_grown_between_runs_is_extended),
    TFC_TEST(reset_clears_the_clusters_containers),
    TFC_TEST(step_past_its_deadline_is_aborted_on_every_task),
    TFC_TEST(large_tensor_crosses_tasks),
    TFC_TEST(worker_killed_during_step_fails_the_step),
    TFC_TEST(ps_killed_during_step_fails_the_step),
    TFC_TEST(client_killed_during_step_leaves_cluster_usable),
    TFC_TEST(malformed_and_unknown_rpcs_are_refused),
    TFC_TEST(server_stops_cleanly_on_sigterm_and_sigint),
    TFC_TEST(server_flags_and_exit_codes),
    TFC_TEST(server_cpus_flag_gives_cpu_devices),
    TFC_TEST(server_from_def_file_and_port_in_use),
    {0},
};
TFC_TEST_MAIN(tests)
