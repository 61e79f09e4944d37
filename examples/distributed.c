/*
 * distributed — seed 004's distributed programs, in C:
 *
 *   # 1. a one-task cluster
 *   server = tf.train.Server.create_local_server()
 *   sess = tf.Session(server.target)
 *   print(sess.run(tf.constant("Hello, distributed TensorFlow!")))
 *
 *   # 2. two tasks of job "local"; a node placed on the other task runs there
 *   cluster = tf.train.ClusterSpec({"local": ["localhost:P0", "localhost:P1"]})
 *   with tf.device("/job:local/task:0"):
 *     x = tf.constant([1.0, 2.0, 3.0])
 *   with tf.device("/job:local/task:1"):
 *     y = x * 2.0
 *   z = y + x                                  # no device: the master's own task (task 0)
 *   sess = tf.Session("grpc://localhost:P0", config=tf.ConfigProto(log_device_placement=True))
 *
 *   # 3. parameter servers: a variable on /job:ps/task:0, two workers with graphs of their own
 *   #    (between-graph replication) that name the same variable and update it in turns
 *   with tf.device("/job:ps/task:0"):
 *     v = tf.Variable(0.0, name="v")
 *   inc = v.assign_add(1.0)                    # worker 0 adds 1, worker 1 adds 10
 *
 * Every task here is a server in this process, talking gRPC over loopback; `tfc server
 * --cluster ... --job ... --task ...` runs each in a process of its own, as the cluster tests
 * do. Usage: distributed
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "example_util.h"
#include "tfc/server.h"

/* n ports free right now on 127.0.0.1 (held open together so they differ). */
static void free_ports(int n, int *out) {
  int fds[8];
  for (int i = 0; i < n; i++) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fds[i], (struct sockaddr *)&a, &len) != 0) {
      perror("picking a free port");
      exit(1);
    }
    out[i] = ntohs(a.sin_port);
  }
  for (int i = 0; i < n; i++) close(fds[i]);
}

static TF_Server *start_task(const char *cluster, const char *job, int task, TF_Status *s) {
  TF_Buffer *def = TFC_NewServerDef(cluster, job, task, 0, NULL, 0, s);
  ex_check(s, "TFC_NewServerDef");
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  ex_check(s, "TF_NewServer");
  TF_DeleteBuffer(def);
  TF_ServerStart(srv, s);
  ex_check(s, "TF_ServerStart");
  return srv;
}

static TF_Session *session(TF_Graph *g, const char *target, int log_placement, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetTarget(o, target);
  if (log_placement) TFC_SetLogDevicePlacement(o, 1);
  TF_Session *sess = TF_NewSession(g, o, s);
  ex_check(s, "TF_NewSession");
  TF_DeleteSessionOptions(o);
  return sess;
}

static TF_Tensor *run(TF_Session *sess, TF_Operation *fetch, TF_Status *s) {
  TF_Output out = {fetch, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  ex_check(s, "TF_SessionRun");
  return r;
}

static void hello(TF_Status *s) {
  TF_Buffer *def = TFC_NewLocalServerDef(s);
  ex_check(s, "TFC_NewLocalServerDef");
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  ex_check(s, "TF_NewServer");
  TF_DeleteBuffer(def);
  TF_ServerStart(srv, s);
  ex_check(s, "TF_ServerStart");

  TF_Graph *g = TF_NewGraph();
  const char *msg = "Hello, distributed TensorFlow!";
  size_t enc = TF_StringEncodedSize(strlen(msg));
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, 8 + enc);
  memset(TF_TensorData(t), 0, 8);
  TF_StringEncode(msg, strlen(msg), (char *)TF_TensorData(t) + 8, enc, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "hello");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *c = TF_FinishOperation(d, s);
  ex_check(s, "Const");
  TF_DeleteTensor(t);

  TF_Session *sess = session(g, TF_ServerTarget(srv), 0, s);
  TF_Tensor *r = run(sess, c, s);
  const char *str;
  size_t len;
  TF_StringDecode((const char *)TF_TensorData(r) + 8, TF_TensorByteSize(r) - 8, &str, &len, s);
  ex_check(s, "TF_StringDecode");
  printf("%.*s\n", (int)len, str);
  TF_DeleteTensor(r);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteServer(srv);
}

static void two_tasks(TF_Status *s) {
  int p[2];
  free_ports(2, p);
  char cluster[128];
  snprintf(cluster, sizeof cluster, "local=localhost:%d,localhost:%d", p[0], p[1]);
  TF_Server *t0 = start_task(cluster, "local", 0, s), *t1 = start_task(cluster, "local", 1, s);

  TF_Graph *g = TF_NewGraph();
  const int64_t dims[1] = {3};
  const float xv[3] = {1, 2, 3}, two = 2;
  TF_Operation *x = ex_const(g, "x", "/job:local/task:0", dims, 1, xv, s);
  TF_Operation *c2 = ex_const(g, "two", "/job:local/task:1", NULL, 0, &two, s);
  TF_Operation *y = ex_binary(g, "Mul", "y", "/job:local/task:1", (TF_Output){x, 0}, (TF_Output){c2, 0}, s);
  TF_Operation *z = ex_binary(g, "AddV2", "z", "", (TF_Output){y, 0}, (TF_Output){x, 0}, s);
  TF_Session *sess = session(g, TF_ServerTarget(t0), 1, s);
  TF_Tensor *r = run(sess, z, s);
  const float *v = TF_TensorData(r);
  printf("z = [%g %g %g]: x went to task 1 and back\n", v[0], v[1], v[2]);
  TF_DeleteTensor(r);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteServer(t1);
  TF_DeleteServer(t0);
}

/* One worker's graph: the shared variable on the ps, its initializer and this worker's update. */
typedef struct worker_graph {
  TF_Graph *g;
  TF_Operation *init, *inc;
} worker_graph;

static void build_worker(worker_graph *w, float step, TF_Status *s) {
  w->g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(w->g, "VariableV2", "v");
  TF_SetDevice(d, "/job:ps/task:0");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *v = TF_FinishOperation(d, s);
  ex_check(s, "VariableV2");
  const float zero = 0;
  TF_Operation *z = ex_const(w->g, "zero", "/job:ps/task:0", NULL, 0, &zero, s);
  TF_Operation *c = ex_const(w->g, "step", "", NULL, 0, &step, s);
  w->init = ex_binary(w->g, "Assign", "v/Assign", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){z, 0}, s);
  w->inc = ex_binary(w->g, "AssignAdd", "inc", "/job:ps/task:0", (TF_Output){v, 0}, (TF_Output){c, 0}, s);
}

static void parameter_server(TF_Status *s) {
  int p[3];
  free_ports(3, p);
  char cluster[160];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=localhost:%d,localhost:%d", p[0], p[1], p[2]);
  TF_Server *ps = start_task(cluster, "ps", 0, s);
  TF_Server *w[2] = {start_task(cluster, "worker", 0, s), start_task(cluster, "worker", 1, s)};
  worker_graph wg[2];
  TF_Session *sess[2];
  for (int i = 0; i < 2; i++) {
    build_worker(&wg[i], i ? 10.0f : 1.0f, s);
    sess[i] = session(wg[i].g, TF_ServerTarget(w[i]), 0, s);
  }
  TF_DeleteTensor(run(sess[0], wg[0].init, s)); /* the chief initializes */
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 2; i++) {
      TF_Tensor *r = run(sess[i], wg[i].inc, s);
      printf("worker %d: v = %g\n", i, *(const float *)TF_TensorData(r));
      TF_DeleteTensor(r);
    }
  TF_DeviceList *dl = TF_SessionListDevices(sess[1], s);
  ex_check(s, "TF_SessionListDevices");
  printf("worker 1's session sees %d devices:", TF_DeviceListCount(dl));
  for (int i = 0; i < TF_DeviceListCount(dl); i++) printf(" %s", TF_DeviceListName(dl, i, s));
  printf("\n");
  TF_DeleteDeviceList(dl);
  for (int i = 0; i < 2; i++) {
    TF_CloseSession(sess[i], s);
    TF_DeleteSession(sess[i], s);
    TF_DeleteGraph(wg[i].g);
    TF_DeleteServer(w[i]);
  }
  TF_DeleteServer(ps);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  hello(s);
  two_tasks(s);
  parameter_server(s);
  TF_DeleteStatus(s);
  return 0;
}
