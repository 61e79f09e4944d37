/*
 * dist_util — helpers for end-to-end tests of the distributed runtime with real processes:
 * `tfc server` tasks spawned on 127.0.0.1, their output captured, and the client-side graph and
 * session plumbing of the TF C API.
 *
 * Tasks. dist_task_spawn forks and execs TFC_BINARY_DIR/tfc with the given arguments; the
 * child's stdout and stderr go to pipes that a thread of the test drains into buffers (so a
 * chatty task never blocks on a full pipe), and tests wait for text to appear there
 * (dist_task_wait_for). The child asks the kernel to SIGKILL it when the test process dies
 * (PR_SET_PDEATHSIG), so a failed assertion, a crash or the harness's timeout never leaves
 * servers behind. Spawn only from the test's main thread: the death signal follows the thread
 * that forked.
 *
 * Every wait has a hang guard and fails the test with what the task printed so far; nothing
 * asserts how fast anything is.
 *
 * Ports. A cluster's tasks must know each other's ports before they start, so
 * dist_free_ports binds n port-0 sockets at once (distinct ports) and keeps them bound, not
 * listening, with SO_REUSEADDR: the tasks' servers (gRPC sets SO_REUSEADDR too) can still bind
 * and listen there, while the kernel gives those ports to no other port-0 bind or outgoing
 * connection, so a test running beside this one cannot take a port before its task starts.
 * The sockets stay open until the test process ends (close-on-exec: tasks do not inherit
 * them). A single-task cluster uses port 0 and reads the port from the "listening on" line.
 *
 * When a test fails, every task it started and has not freed is reported: whether it still
 * runs or how it ended, and the end of its stderr (a crash report lands there).
 *
 * All functions fail the test (tfc_test_fail) instead of returning errors, except where they
 * return a status for the test to check. Not thread-safe unless stated: one test thread drives
 * the tasks; the drain threads only touch the buffers under the task's lock.
 */
#ifndef TFC_TESTS_DIST_UTIL_H
#define TFC_TESTS_DIST_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"

#define DIST_UNUSED __attribute__((unused))

/* Hang guards: far beyond anything a healthy run needs on a loaded 2-core machine. */
#define DIST_START_GUARD_MS 30000
#define DIST_STEP_GUARD_MS 60000

static DIST_UNUSED int64_t dist_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static DIST_UNUSED void dist_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* ---------------- ports ---------------- */

/* The reservations of dist_free_ports; bounded for in-process runs (TFC_TEST_NOFORK). */
static int dist_reserved[64];
static int dist_n_reserved;

/* n distinct free ports on 127.0.0.1 (n <= 16), reserved as described above. */
static DIST_UNUSED void dist_free_ports(int n, int *out) {
  if (n > 16) tfc_test_fail(__FILE__, __LINE__, "dist_free_ports: at most 16");
  if (dist_n_reserved + n > 64) {
    for (int i = 0; i < dist_n_reserved; i++) close(dist_reserved[i]);
    dist_n_reserved = 0;
  }
  for (int i = 0; i < n; i++) {
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
      tfc_test_fail(__FILE__, __LINE__, "cannot pick a free port: %s", strerror(errno));
    dist_reserved[dist_n_reserved++] = fd;
    out[i] = ntohs(a.sin_port);
  }
}

/* A two-task cluster spec "local=localhost:P0,localhost:P1" on ports reserved as above. */
static DIST_UNUSED void dist_local_cluster(char *out, size_t cap, int *ports) {
  dist_free_ports(2, ports);
  snprintf(out, cap, "local=localhost:%d,localhost:%d", ports[0], ports[1]);
}

/* ---------------- tasks ---------------- */

typedef struct dist_buf {
  char *data;
  size_t len, cap;
} dist_buf;

typedef struct dist_task {
  pid_t pid;      /* 0 once reaped */
  int status;     /* waitpid status once reaped */
  int fds[2];     /* read ends: stdout, stderr (-1 once at EOF) */
  pthread_t drain;
  int drained; /* the drain thread was joined: the output is complete */
  pthread_mutex_t mu;
  dist_buf out, err; /* guarded by mu */
  char name[96];     /* "/job:local/replica:0/task:1" or the argv summary */
  char target[64];   /* "grpc://localhost:<port>", once dist_task_wait_listening saw it */
  int port;
} dist_task;

static void dist_buf_add(dist_buf *b, const char *d, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) return; /* drop output rather than crash the drain thread */
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, d, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void *dist_drain(void *arg) {
  dist_task *t = arg;
  for (;;) {
    struct pollfd p[2];
    int n = 0;
    for (int i = 0; i < 2; i++)
      if (t->fds[i] >= 0) p[n++] = (struct pollfd){.fd = t->fds[i], .events = POLLIN};
    if (n == 0) break;
    if (poll(p, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < n; k++) {
      if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[4096];
      ssize_t got = read(p[k].fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      int which = p[k].fd == t->fds[0] ? 0 : 1;
      if (got <= 0) {
        close(t->fds[which]);
        t->fds[which] = -1;
        continue;
      }
      pthread_mutex_lock(&t->mu);
      dist_buf_add(which == 0 ? &t->out : &t->err, chunk, (size_t)got);
      pthread_mutex_unlock(&t->mu);
    }
  }
  return NULL;
}

static void dist_live_add(dist_task *t);

/* Starts TFC_BINARY_DIR/tfc with argv (NULL-terminated, without the program name). `name`
 * labels the task in failure messages. The caller frees with dist_task_free. */
static DIST_UNUSED dist_task *dist_task_spawn(const char *name, const char *const *args) {
  dist_task *t = calloc(1, sizeof *t);
  int out[2], err[2];
  if (!t || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    tfc_test_fail(__FILE__, __LINE__, "cannot make pipes: %s", strerror(errno));
  snprintf(t->name, sizeof t->name, "%s", name);
  pthread_mutex_init(&t->mu, NULL);
  const char *argv[32];
  int n = 0;
  argv[n++] = TFC_BINARY_DIR "/tfc";
  for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) tfc_test_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
  if (pid == 0) {
    /* Die with the test; if the test already died, do not start at all. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out[1], 1);
    dup2(err[1], 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  t->pid = pid;
  t->fds[0] = out[0];
  t->fds[1] = err[0];
  if (pthread_create(&t->drain, NULL, dist_drain, t) != 0) tfc_test_fail(__FILE__, __LINE__, "pthread_create");
  dist_live_add(t);
  return t;
}

/* A copy of what the task wrote to stdout (which 0) or stderr (which 1) so far. Free it. */
static DIST_UNUSED char *dist_task_output(dist_task *t, int which) {
  pthread_mutex_lock(&t->mu);
  dist_buf *b = which == 0 ? &t->out : &t->err;
  char *copy = strdup(b->data ? b->data : "");
  pthread_mutex_unlock(&t->mu);
  return copy;
}

/* Reaps the task if it exited; returns 1 when it is gone. */
static int dist_task_reap(dist_task *t) {
  if (!t->pid) return 1;
  int st;
  pid_t r = waitpid(t->pid, &st, WNOHANG);
  if (r == t->pid) {
    t->status = st;
    t->pid = 0;
    return 1;
  }
  return 0;
}

/* Joins the drain thread of a task that exited: its output is then complete. */
static void dist_task_join_drain(dist_task *t) {
  if (t->drained) return;
  pthread_join(t->drain, NULL);
  t->drained = 1;
}

/* "running", or how the task ended (it is then reaped and its output complete). */
static void dist_task_state(dist_task *t, char *out, size_t n) {
  snprintf(out, n, "running");
  if (!dist_task_reap(t)) return;
  dist_task_join_drain(t);
  if (WIFSIGNALED(t->status)) snprintf(out, n, "killed by signal %d", WTERMSIG(t->status));
  else snprintf(out, n, "exited with %d", WEXITSTATUS(t->status));
}

/* The tasks started and not yet freed, for the failure report. */
#define DIST_MAX_LIVE 32
static dist_task *dist_live[DIST_MAX_LIVE];

static DIST_UNUSED void dist_report_tasks(void) {
  for (int i = 0; i < DIST_MAX_LIVE; i++) {
    dist_task *t = dist_live[i];
    if (!t) continue;
    char state[64];
    dist_task_state(t, state, sizeof state);
    pthread_mutex_lock(&t->mu);
    const char *e = t->err.data ? t->err.data : "";
    size_t n = t->err.len > 4000 ? 4000 : t->err.len;
    if (n == 0) fprintf(stderr, "    task %s (%s); nothing on stderr\n", t->name, state);
    else
      fprintf(stderr, "    task %s (%s); stderr%s:\n%s\n", t->name, state, n < t->err.len ? " (its end)" : "",
              e + (t->err.len - n));
    pthread_mutex_unlock(&t->mu);
  }
}

static void dist_live_add(dist_task *t) {
  for (int i = 0; i < DIST_MAX_LIVE; i++)
    if (!dist_live[i]) {
      dist_live[i] = t;
      break;
    }
  tfc_test_on_fail(dist_report_tasks);
}

static DIST_UNUSED void dist_live_remove(dist_task *t) {
  for (int i = 0; i < DIST_MAX_LIVE; i++)
    if (dist_live[i] == t) dist_live[i] = NULL;
}

static void dist_task_fail(dist_task *t, int line, const char *what) __attribute__((noreturn));
static void dist_task_fail(dist_task *t, int line, const char *what) {
  char state[64];
  dist_task_state(t, state, sizeof state);
  char *o = dist_task_output(t, 0), *e = dist_task_output(t, 1);
  tfc_test_fail(__FILE__, line, "%s (%s): %s\n--- stdout ---\n%s--- stderr ---\n%s", t->name, state, what, o, e);
}

/* Waits until the task's stdout (which 0) or stderr (1) contains `needle`; fails the test
 * (with the output) after guard_ms or when the task exits first. */
static DIST_UNUSED void dist_task_wait_for(dist_task *t, int which, const char *needle, int guard_ms) {
  int64_t until = dist_now_ms() + guard_ms;
  for (;;) {
    char *o = dist_task_output(t, which);
    int found = strstr(o, needle) != NULL;
    free(o);
    if (found) return;
    char why[256];
    if (dist_task_reap(t)) {
      dist_task_join_drain(t); /* the last bytes, then look once more */
      o = dist_task_output(t, which);
      found = strstr(o, needle) != NULL;
      free(o);
      if (found) return;
      snprintf(why, sizeof why, "exited (status 0x%x) before printing \"%s\"", t->status, needle);
      dist_task_fail(t, __LINE__, why);
    }
    if (dist_now_ms() > until) {
      snprintf(why, sizeof why, "no \"%s\" within %d ms", needle, guard_ms);
      dist_task_fail(t, __LINE__, why);
    }
    dist_sleep_ms(10);
  }
}

/* Waits for "<task_name> listening on grpc://localhost:<port>" and notes target and port. */
static DIST_UNUSED void dist_task_wait_listening(dist_task *t, const char *task_name) {
  char want[160];
  snprintf(want, sizeof want, "tfc server: %s listening on grpc://localhost:", task_name);
  dist_task_wait_for(t, 0, want, DIST_START_GUARD_MS);
  char *o = dist_task_output(t, 0);
  const char *p = strstr(o, want) + strlen(want);
  t->port = atoi(p);
  snprintf(t->target, sizeof t->target, "grpc://localhost:%d", t->port);
  free(o);
  if (t->port <= 0) dist_task_fail(t, __LINE__, "no port in the listening line");
}

/* Starts `tfc server --cluster <cluster> --job <job> --task <task> [extra...]` and waits until
 * it listens. */
static DIST_UNUSED dist_task *dist_server_start(const char *cluster, const char *job, int task, const char *extra1,
                                                const char *extra2) {
  char task_s[16], name[96];
  snprintf(task_s, sizeof task_s, "%d", task);
  snprintf(name, sizeof name, "/job:%s/replica:0/task:%d", job, task);
  const char *args[] = {"server", "--cluster", cluster, "--job", job, "--task", task_s, extra1, extra2, NULL};
  dist_task *t = dist_task_spawn(name, args);
  dist_task_wait_listening(t, name);
  return t;
}

/* Sends sig (0: none, just wait) and waits up to guard_ms for the task to exit; returns its
 * waitpid status, or -1 when it did not exit in time (it is then SIGKILLed and reaped). Either
 * way its output is complete afterwards. */
static DIST_UNUSED int dist_task_signal_wait(dist_task *t, int sig, int guard_ms) {
  if (t->pid && sig) kill(t->pid, sig);
  int64_t until = dist_now_ms() + guard_ms;
  int timed_out = 0;
  while (!dist_task_reap(t)) {
    if (dist_now_ms() > until) {
      kill(t->pid, SIGKILL);
      waitpid(t->pid, &t->status, 0);
      t->pid = 0;
      timed_out = 1;
      break;
    }
    dist_sleep_ms(10);
  }
  dist_task_join_drain(t);
  return timed_out ? -1 : t->status;
}

/* SIGKILLs the task if it still runs, reaps it, joins the drain thread, frees. NULL: no-op. */
static DIST_UNUSED void dist_task_free(dist_task *t) {
  if (!t) return;
  dist_live_remove(t);
  if (t->pid) {
    kill(t->pid, SIGKILL);
    waitpid(t->pid, &t->status, 0);
    t->pid = 0;
  }
  dist_task_join_drain(t);
  pthread_mutex_destroy(&t->mu);
  free(t->out.data);
  free(t->err.data);
  free(t);
}

/* ---------------- graphs ---------------- */

/* Finishes an op description, failing the test on error. */
static DIST_UNUSED TF_Operation *dist_finish(TF_OperationDescription *d, const char *name) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "building %s: %s", name, TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static DIST_UNUSED TF_OperationDescription *dist_op(TF_Graph *g, const char *type, const char *name,
                                                   const char *device) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  if (device) TF_SetDevice(d, device);
  return d;
}

static DIST_UNUSED TF_Operation *dist_const_tensor(TF_Graph *g, const char *name, const char *device, TF_Tensor *t) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = dist_op(g, "Const", name, device);
  TF_SetAttrTensor(d, "value", t, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "Const %s: %s", name, TF_Message(s));
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_DeleteStatus(s);
  return dist_finish(d, name);
}

/* A float tensor of n values with the given dims (nd 0: scalar). */
static DIST_UNUSED TF_Tensor *dist_floats(const float *v, const int64_t *dims, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  return t;
}

static DIST_UNUSED TF_Operation *dist_const_f(TF_Graph *g, const char *name, const char *device, float v) {
  TF_Tensor *t = dist_floats(&v, NULL, 0);
  TF_Operation *op = dist_const_tensor(g, name, device, t);
  TF_DeleteTensor(t);
  return op;
}

/* A scalar TF_STRING tensor in the 1.x layout (one uint64 offset, then the encoded string). */
static DIST_UNUSED TF_Tensor *dist_string(const char *str) {
  size_t len = strlen(str), enc = TF_StringEncodedSize(len);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, 8 + enc);
  memset(TF_TensorData(t), 0, 8);
  TF_Status *s = TF_NewStatus();
  TF_StringEncode(str, len, (char *)TF_TensorData(t) + 8, enc, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "TF_StringEncode: %s", TF_Message(s));
  TF_DeleteStatus(s);
  return t;
}

static DIST_UNUSED TF_Operation *dist_unary(TF_Graph *g, const char *type, const char *name, const char *device,
                                            TF_Output a) {
  TF_OperationDescription *d = dist_op(g, type, name, device);
  TF_AddInput(d, a);
  return dist_finish(d, name);
}

static DIST_UNUSED TF_Operation *dist_binary(TF_Graph *g, const char *type, const char *name, const char *device,
                                             TF_Output a, TF_Output b) {
  TF_OperationDescription *d = dist_op(g, type, name, device);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return dist_finish(d, name);
}

static DIST_UNUSED TF_Operation *dist_placeholder(TF_Graph *g, const char *name, const char *device, TF_DataType dt) {
  TF_OperationDescription *d = dist_op(g, "Placeholder", name, device);
  TF_SetAttrType(d, "dtype", dt);
  return dist_finish(d, name);
}

/* A float scalar VariableV2 (its resource name is the node name, shared by every session). */
static DIST_UNUSED TF_Operation *dist_variable(TF_Graph *g, const char *name, const char *device) {
  TF_OperationDescription *d = dist_op(g, "VariableV2", name, device);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  return dist_finish(d, name);
}

/* A FIFOQueueV2 of float scalars under `shared_name` (shared by every session on the task). */
static DIST_UNUSED TF_Operation *dist_queue(TF_Graph *g, const char *name, const char *device,
                                            const char *shared_name) {
  TF_OperationDescription *d = dist_op(g, "FIFOQueueV2", name, device);
  TF_DataType types[] = {TF_FLOAT};
  TF_SetAttrTypeList(d, "component_types", types, 1);
  TF_SetAttrString(d, "shared_name", shared_name, strlen(shared_name));
  return dist_finish(d, name);
}

static DIST_UNUSED TF_Operation *dist_dequeue(TF_Graph *g, const char *name, const char *device, TF_Operation *q) {
  TF_OperationDescription *d = dist_op(g, "QueueDequeueV2", name, device);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_DataType types[] = {TF_FLOAT};
  TF_SetAttrTypeList(d, "component_types", types, 1);
  return dist_finish(d, name);
}

static DIST_UNUSED TF_Operation *dist_enqueue(TF_Graph *g, const char *name, const char *device, TF_Operation *q,
                                              TF_Output v) {
  TF_OperationDescription *d = dist_op(g, "QueueEnqueueV2", name, device);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_AddInputList(d, &v, 1);
  return dist_finish(d, name);
}

/* a = [1, 2, 3] on task 0 of job "local", b = 2 and y = a * b on its task 1: a step that
 * crosses tasks. */
static DIST_UNUSED TF_Operation *dist_cross_task_mul(TF_Graph *g) {
  const float av[] = {1, 2, 3};
  const int64_t dims[] = {3};
  TF_Tensor *at = dist_floats(av, dims, 1);
  TF_Operation *a = dist_const_tensor(g, "a", "/job:local/task:0", at);
  TF_DeleteTensor(at);
  TF_Operation *b = dist_const_f(g, "b", "/job:local/task:1", 2.0f);
  return dist_binary(g, "Mul", "y", "/job:local/task:1", (TF_Output){a, 0}, (TF_Output){b, 0});
}

/* Fails the test unless t is the float vector [2, 4, 6] (dist_cross_task_mul's result). */
static DIST_UNUSED void dist_expect_2_4_6(TF_Tensor *t, int line) {
  if (!t || TF_TensorType(t) != TF_FLOAT || TF_NumDims(t) != 1 || TF_Dim(t, 0) != 3)
    tfc_test_fail(__FILE__, line, "not a float vector of 3");
  const float *v = TF_TensorData(t);
  if (v[0] != 2 || v[1] != 4 || v[2] != 6)
    tfc_test_fail(__FILE__, line, "[%g %g %g], want [2 4 6]", v[0], v[1], v[2]);
}

/* ---------------- sessions ---------------- */

typedef struct dist_config {
  int log_device_placement;
  int64_t operation_timeout_in_ms;
  const char *const *device_filters; /* n_device_filters of them */
  int n_device_filters;
} dist_config;

/* A session on `target` ("grpc://localhost:<port>") with a ConfigProto from c (NULL: none). */
static DIST_UNUSED TF_Session *dist_session(TF_Graph *g, const char *target, const dist_config *c) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetTarget(o, target);
  if (c) {
    Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
    cp.log_device_placement = c->log_device_placement != 0;
    cp.operation_timeout_in_ms = c->operation_timeout_in_ms;
    cp.n_device_filters = (size_t)c->n_device_filters;
    cp.device_filters = (char **)c->device_filters;
    uint8_t buf[1024];
    if (tensorflow__config_proto__get_packed_size(&cp) > sizeof buf) tfc_test_fail(__FILE__, __LINE__, "config too big");
    size_t len = tensorflow__config_proto__pack(&cp, buf);
    TF_SetConfig(o, buf, len, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "TF_SetConfig: %s", TF_Message(s));
  }
  TF_Session *sess = TF_NewSession(g, o, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "TF_NewSession(%s): %s", target, TF_Message(s));
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

/* Closes and deletes; errors are ignored (a test that cares calls TF_CloseSession itself). */
static DIST_UNUSED void dist_session_free(TF_Session *sess) {
  if (!sess) return;
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* Runs fetching op:0 of one op (fetch may be NULL) and running `target` (may be NULL). The
 * fetched tensor (new; NULL on error) is returned; s holds the outcome. */
static DIST_UNUSED TF_Tensor *dist_run(TF_Session *sess, TF_Operation *feed_op, TF_Tensor *feed, TF_Operation *fetch,
                                       TF_Operation *target, TF_Status *s) {
  TF_Output in = {feed_op, 0}, out = {fetch, 0};
  TF_Tensor *result = NULL;
  const TF_Operation *targets[] = {target};
  TF_SessionRun(sess, NULL, feed_op ? &in : NULL, feed_op ? &feed : NULL, feed_op ? 1 : 0, fetch ? &out : NULL,
                fetch ? &result : NULL, fetch ? 1 : 0, target ? targets : NULL, target ? 1 : 0, NULL, s);
  return result;
}

/* A run (fetch op:0 of `fetch`) on a thread of its own: start, join with a hang guard, fini. */
typedef struct dist_bg_run {
  TF_Session *sess;
  TF_Operation *fetch;
  pthread_t th;
  atomic_int done;
  TF_Status *s;
  TF_Tensor *result;
} dist_bg_run;

static DIST_UNUSED void *dist_bg_main(void *arg) {
  dist_bg_run *r = arg;
  r->result = dist_run(r->sess, NULL, NULL, r->fetch, NULL, r->s);
  atomic_store(&r->done, 1);
  return NULL;
}

static DIST_UNUSED void dist_bg_start(dist_bg_run *r, TF_Session *sess, TF_Operation *fetch) {
  memset(r, 0, sizeof *r);
  r->sess = sess;
  r->fetch = fetch;
  r->s = TF_NewStatus();
  if (pthread_create(&r->th, NULL, dist_bg_main, r) != 0) tfc_test_fail(__FILE__, __LINE__, "pthread_create");
}

/* Joins the run (hang guard: fails the test when it has not finished in guard_ms). */
static DIST_UNUSED void dist_bg_join(dist_bg_run *r, int guard_ms, int line) {
  int64_t until = dist_now_ms() + guard_ms;
  while (!atomic_load(&r->done)) {
    if (dist_now_ms() > until) tfc_test_fail(__FILE__, line, "the run did not finish within %d ms", guard_ms);
    dist_sleep_ms(10);
  }
  pthread_join(r->th, NULL);
}

static DIST_UNUSED void dist_bg_fini(dist_bg_run *r) {
  TF_DeleteTensor(r->result);
  TF_DeleteStatus(r->s);
}

/* The float scalar `fetch` evaluates to; fails the test on any error. */
static DIST_UNUSED float dist_run_scalar(TF_Session *sess, TF_Operation *fetch, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = dist_run(sess, NULL, NULL, fetch, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "run %s: %s", TF_OperationName(fetch), TF_Message(s));
  if (TF_TensorType(t) != TF_FLOAT || TF_NumDims(t) != 0)
    tfc_test_fail(__FILE__, line, "run %s: not a float scalar", TF_OperationName(fetch));
  float v = *(const float *)TF_TensorData(t);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return v;
}

#endif
