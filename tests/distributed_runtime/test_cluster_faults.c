/* End-to-end tests of how a cluster's tasks meet faults, with real `tfc server` processes on
 * 127.0.0.1 (dist_util.h) and, for the RecvTensor flood, a server in this process whose load
 * the test can read:
 *
 * - a worker that restarted under a master answers the stale graph handle with ABORTED (TF's
 *   code, which recovery code retries), for RunGraph and DeregisterGraph, and the master
 *   registers the graphs again so the session's next step runs; a restarted master answers
 *   ABORTED for the session it lost, and the client creates it again at its next run;
 * - SIGTERM stops a server whatever it is waiting for: a CreateSession waiting for a task that
 *   never starts, a RecvTensor for a step that never comes, a step whose other task is
 *   stopped (SIGSTOP) and answers nothing;
 * - a CreateSession whose client died stops waiting for the task it waited for;
 * - thousands of RecvTensor calls abandoned by their clients leave nothing behind (calls,
 *   handler threads, steps) and do not stand in the way of a real step;
 * - a port in use prints tfc's one-line message and none of gRPC's log;
 * - a stopped task fails a step at its RunOptions deadline.
 *
 * Timings are printed, never asserted: only generous hang guards bound the waits. */
#include <stdatomic.h>

#include "base/clock.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/server.h"
#include "dist_util.h"
#include "tfc/server.h"

#define T0 "/job:local/replica:0/task:0"
#define T1 "/job:local/replica:0/task:1"

/* y = -x with x = 3 on task 1 and y on task 0: every step runs a graph on each task. */
static TF_Operation *build_cross_task_neg(TF_Graph *g) {
  TF_Operation *x = dist_const_f(g, "x", "/job:local/task:1", 3.0f);
  return dist_unary(g, "Neg", "y", "/job:local/task:0", (TF_Output){x, 0});
}

/* A step that blocks on task 1 until the test stops it: a dequeue from an empty queue. */
static TF_Operation *build_blocking_dequeue(TF_Graph *g) {
  TF_Operation *q = dist_queue(g, "q", "/job:local/task:1", "faults_q");
  TF_Operation *dq = dist_dequeue(g, "dq", "/job:local/task:1", q);
  return dist_unary(g, "Neg", "y", "/job:local/task:0", (TF_Output){dq, 0});
}

/* SIGSTOPs the task and waits until the kernel has stopped it (the signal is asynchronous). */
static void stop_task(dist_task *t, int line) {
  kill(t->pid, SIGSTOP);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)t->pid);
  int64_t until = dist_now_ms() + DIST_START_GUARD_MS;
  for (;;) {
    char buf[512] = {0};
    FILE *f = fopen(path, "r");
    if (f) {
      if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
      fclose(f);
    }
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    if (paren && paren[1] == ' ' && paren[2] == 'T') return;
    if (dist_now_ms() > until) dist_task_fail(t, line, "did not stop after SIGSTOP");
    dist_sleep_ms(5);
  }
}

/* ---------------- raw RPCs ---------------- */

static tfc_rpc_channel *channel_to_port(int port) {
  char addr[32];
  snprintf(addr, sizeof addr, "localhost:%d", port);
  tfc_status s;
  tfc_status_init(&s);
  tfc_rpc_channel *ch = tfc_rpc_channel_new(addr, 0, &s);
  if (!ch) tfc_test_fail(__FILE__, __LINE__, "channel to %s: %s", addr, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return ch;
}

/* A protobuf string field (len < 128) after its tag byte. */
static void put_string(tfc_msg_out *m, uint8_t tag, const char *str) {
  uint8_t hdr[2] = {tag, (uint8_t)strlen(str)};
  tfc_msg_out_append(m, hdr, 2);
  tfc_msg_out_append(m, str, strlen(str));
}

/* RecvTensorRequest { step_id, rendezvous_key } for a tensor sent on task 0's CPU. */
static tfc_msg_out *recv_tensor_request(int64_t step_id) {
  tfc_msg_out *m = tfc_msg_out_new();
  uint8_t v[11];
  size_t n = 0;
  v[n++] = 0x08;
  for (uint64_t x = (uint64_t)step_id; ; x >>= 7) {
    v[n++] = (uint8_t)((x & 0x7f) | (x >= 0x80 ? 0x80 : 0));
    if (x < 0x80) break;
  }
  tfc_msg_out_append(m, v, n);
  put_string(m, 0x12, T0 "/device:CPU:0;0000000000000001;" T0 "/device:CPU:0;edge_1_x;0:0");
  return m;
}

typedef struct call_count {
  atomic_int done;
  atomic_int code_counts[17];
} call_count;

static void count_call(void *arg, const tfc_status *s, tfc_msg_in *resp) {
  call_count *c = arg;
  tfc_msg_in_free(resp);
  atomic_fetch_add(&c->code_counts[s->code >= 0 && s->code < 17 ? s->code : TFC_UNKNOWN], 1);
  atomic_fetch_add(&c->done, 1);
}

/* ---------------- a restarted master ---------------- */

static void restarted_master_gets_the_session_created_again(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);

  /* The master's task dies and comes back on its port: it no longer knows the session. */
  dist_task_free(t0);
  t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  TF_Status *s = TF_NewStatus();
  for (int attempt = 0; attempt < 120; attempt++) {
    TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
    TF_DeleteTensor(out);
    if (TF_GetCode(s) != TF_UNAVAILABLE) break;
    dist_sleep_ms(250);
  }
  if (TF_GetCode(s) != TF_ABORTED)
    tfc_test_fail(__FILE__, __LINE__, "run after the restart: code %d (%s), want ABORTED", TF_GetCode(s),
                  TF_Message(s));
  EXPECT_CONTAINS(TF_Message(s), " is not found. Possibly, this master has restarted.");
  /* The client creates a master session again with the whole graph: the same TF_Session goes
   * on (TF's client would have to make a new one). */
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);
  TF_DeleteStatus(s);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- a restarted worker ---------------- */

static void restarted_worker_answers_stale_handles_with_aborted(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);

  /* Task 1 dies and comes back on its port: the master's graph handle there is stale. */
  dist_task_free(t1);
  t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Status *s = TF_NewStatus();
  /* Until the master's channel has reconnected the run may fail with UNAVAILABLE. */
  for (int attempt = 0; attempt < 120; attempt++) {
    TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
    TF_DeleteTensor(out);
    if (TF_GetCode(s) != TF_UNAVAILABLE) break;
    dist_sleep_ms(250);
  }
  if (TF_GetCode(s) != TF_ABORTED)
    tfc_test_fail(__FILE__, __LINE__, "run after the restart: code %d (%s), want ABORTED", TF_GetCode(s),
                  TF_Message(s));
  EXPECT_CONTAINS(TF_Message(s), "Graph handle is not found: ");
  EXPECT_CONTAINS(TF_Message(s), ". Possibly, this worker (" T1 ") just restarted.");
  /* The master registers the graphs again: the same session's next step runs (TF's client
   * would have to recreate its session), and so do the ones after it. */
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);

  /* DeregisterGraph of a handle the worker does not know: TF's code and text. */
  tfc_rpc_channel *ch = channel_to_port(t1->port);
  tfc_msg_out *req = tfc_msg_out_new();
  put_string(req, 0x0a, "0123456789abcdef");
  tfc_msg_in *resp = NULL;
  tfc_status st;
  tfc_status_init(&st);
  EXPECT_EQ(tfc_rpc_call_sync(ch, "/tensorflow.WorkerService/DeregisterGraph", req, tfc_deadline_after_ms(20000),
                              TFC_RPC_WAIT_FOR_READY, &resp, &st),
            TFC_ABORTED);
  EXPECT_STREQ(tfc_status_msg(&st),
               "Graph handle is not found: 0123456789abcdef. Possibly, this worker just restarted.");
  tfc_msg_in_free(resp);
  tfc_status_fini(&st);
  tfc_rpc_channel_free(ch);

  TF_DeleteStatus(s);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- SIGTERM whatever is pending ---------------- */

/* SIGTERMs the task and expects a clean stop (exit 0, "tfc server: stopped") within the hang
 * guard; prints how long it took. */
static void expect_sigterm_stop(dist_task *t, const char *what, int line) {
  int64_t t0 = tfc_now_us();
  int st = dist_task_signal_wait(t, SIGTERM, 5000);
  int64_t took = tfc_now_us() - t0;
  if (st == -1) dist_task_fail(t, line, "did not exit within 5 s of SIGTERM");
  fprintf(stderr, "  SIGTERM with %s pending: exited after %.1f ms\n", what, (double)took / 1000.0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) dist_task_fail(t, line, "did not exit 0 after SIGTERM");
  char *o = dist_task_output(t, 0);
  size_t n = strlen(o), k = strlen("tfc server: stopped\n");
  if (n < k || strcmp(o + n - k, "tfc server: stopped\n") != 0) dist_task_fail(t, line, "no \"tfc server: stopped\"");
  free(o);
}

static void sigterm_stops_a_server_waiting_for_a_task_that_never_starts(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports); /* task 1's port stays unserved */
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  dist_bg_run r;
  dist_bg_start(&r, sess, y);
  /* The session's CreateSession now waits for task 1 (no operation timeout: for ever). */
  dist_task_wait_for(t0, 1, "CreateSession still waiting for response from worker: " T1, DIST_START_GUARD_MS);
  expect_sigterm_stop(t0, "a CreateSession waiting for a task that never starts", __LINE__);
  dist_bg_join(&r, DIST_STEP_GUARD_MS, __LINE__);
  dist_bg_fini(&r);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t0);
}

static void sigterm_stops_a_server_holding_a_recv_tensor_for_an_unknown_step(void) {
  dist_task *t0 = dist_server_start("local=localhost:0", "local", 0, NULL, NULL);
  tfc_rpc_channel *ch = channel_to_port(t0->port);
  call_count c;
  memset(&c, 0, sizeof c);
  /* No deadline: the call waits until the server answers or goes. */
  tfc_rpc_call_async(ch, "/tensorflow.WorkerService/RecvTensor", recv_tensor_request(77), 0, TFC_RPC_WAIT_FOR_READY,
                     count_call, &c, NULL);
  dist_sleep_ms(500); /* lets the call reach the server (not an assertion) */
  EXPECT_EQ(atomic_load(&c.done), 0);
  expect_sigterm_stop(t0, "a RecvTensor for a step that never comes", __LINE__);
  int64_t until = dist_now_ms() + DIST_STEP_GUARD_MS;
  while (atomic_load(&c.done) == 0 && dist_now_ms() < until) dist_sleep_ms(10);
  EXPECT_EQ(atomic_load(&c.done), 1);
  EXPECT_EQ(atomic_load(&c.code_counts[TFC_OK]), 0);
  tfc_rpc_channel_free(ch);
  dist_task_free(t0);
}

static void sigterm_stops_a_master_whose_step_waits_on_a_stopped_task(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_blocking_dequeue(g);
  TF_Session *sess = dist_session(g, t0->target, NULL);
  dist_bg_run r;
  dist_bg_start(&r, sess, y);
  dist_sleep_ms(1500); /* lets the step reach the dequeue on task 1 (not an assertion) */
  EXPECT_EQ(atomic_load(&r.done), 0);
  stop_task(t1, __LINE__); /* task 1 now answers nothing: the aborted step's cleanup waits on it */
  expect_sigterm_stop(t0, "a step waiting on a stopped task", __LINE__);
  kill(t1->pid, SIGCONT);
  dist_bg_join(&r, DIST_STEP_GUARD_MS, __LINE__);
  dist_bg_fini(&r);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* A client whose first run waits in CreateSession for a task that never starts; it is killed
 * by the test. Forked while the test process has not touched gRPC. */
static void waiting_client(const char *target, int go_fd) {
  char c;
  if (read(go_fd, &c, 1) != 1) _exit(2);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  TF_Session *sess = dist_session(g, target, NULL);
  TF_Status *s = TF_NewStatus();
  dist_run(sess, NULL, NULL, y, NULL, s);
  _exit(3); /* never reached: CreateSession waits until the test kills this process */
}

/* Polls the in-process server's load until `pred` holds (guard: fails with the numbers). */
static void wait_load(tfc_server *srv, int want_calls_at_least, int want_idle, int line) {
  int64_t until = dist_now_ms() + DIST_STEP_GUARD_MS;
  for (;;) {
    int calls, busy, steps;
    tfc_server_load(srv, &calls, &busy, &steps);
    if (want_idle ? calls == 0 && busy == 0 : calls >= want_calls_at_least) return;
    if (dist_now_ms() > until)
      tfc_test_fail(__FILE__, line, "server load: %d calls, %d busy handlers, %d steps", calls, busy, steps);
    dist_sleep_ms(10);
  }
}

static void create_session_of_a_dead_client_stops_waiting(void) {
  char cluster[128], target[64];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports); /* task 1 never starts */
  snprintf(target, sizeof target, "grpc://localhost:%d", ports[0]);
  int go[2];
  EXPECT_EQ(pipe(go), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t client = fork();
  EXPECT_TRUE(client >= 0);
  if (client == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(go[1]);
    waiting_client(target, go[0]);
  }
  close(go[0]);
  TF_Status *ts = TF_NewStatus();
  TF_Buffer *def = TFC_NewServerDef(cluster, "local", 0, 0, NULL, 0, ts);
  EXPECT_EQ(TF_GetCode(ts), TF_OK);
  tfc_status s;
  tfc_status_init(&s);
  tfc_server *srv = tfc_server_new(def->data, def->length, &s);
  TF_DeleteBuffer(def);
  if (!srv || tfc_server_start(srv, &s)) tfc_test_fail(__FILE__, __LINE__, "server: %s", tfc_status_msg(&s));
  EXPECT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  wait_load(srv, 1, 0, __LINE__); /* the client's CreateSession is in */
  dist_sleep_ms(1500);            /* and waiting for task 1 (not an assertion) */
  int st;
  EXPECT_EQ(waitpid(client, &st, WNOHANG), 0);
  kill(client, SIGKILL);
  EXPECT_EQ(waitpid(client, &st, 0), client);
  /* The dead client's call ends, and its handler stops waiting for task 1. */
  wait_load(srv, 0, 1, __LINE__);
  tfc_server_free(srv);
  tfc_status_fini(&s);
  TF_DeleteStatus(ts);
}

/* ---------------- abandoned RecvTensor calls ---------------- */

/* Polls the server's load until nothing is held; fails with the numbers after the guard. */
static void wait_load_drained(tfc_server *srv, int64_t *out_ms, int line) {
  int64_t start = dist_now_ms(), until = start + 30000;
  int calls = -1, busy = -1, steps = -1;
  for (;;) {
    tfc_server_load(srv, &calls, &busy, &steps);
    if (calls == 0 && busy == 0 && steps == 0) break;
    if (dist_now_ms() > until)
      tfc_test_fail(__FILE__, line, "the server still holds %d calls, %d busy handlers and %d steps", calls, busy,
                    steps);
    dist_sleep_ms(5);
  }
  *out_ms = dist_now_ms() - start;
}

static double run_timed_ms(TF_Session *sess, TF_Operation *fetch, float want, int line) {
  int64_t t0 = tfc_now_us();
  float v = dist_run_scalar(sess, fetch, line);
  double ms = (double)(tfc_now_us() - t0) / 1000.0;
  if (v != want) tfc_test_fail(__FILE__, line, "step gave %g, want %g", (double)v, (double)want);
  return ms;
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

static void abandoned_recv_tensor_flood_is_released_at_once(void) {
  const int n_calls = 3000;
  TF_Status *ts = TF_NewStatus();
  TF_Buffer *def = TFC_NewServerDef("local=localhost:0", "local", 0, 0, NULL, 0, ts);
  EXPECT_EQ(TF_GetCode(ts), TF_OK);
  tfc_status s;
  tfc_status_init(&s);
  tfc_server *srv = tfc_server_new(def->data, def->length, &s);
  TF_DeleteBuffer(def);
  if (!srv || tfc_server_start(srv, &s)) tfc_test_fail(__FILE__, __LINE__, "server: %s", tfc_status_msg(&s));
  const char *target = tfc_server_target(srv);
  tfc_rpc_channel *ch = channel_to_port(atoi(target + strlen("grpc://localhost:")));

  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = dist_const_f(g, "x", NULL, 4.0f);
  TF_Operation *y = dist_unary(g, "Neg", "y", NULL, (TF_Output){x, 0});
  TF_Session *sess = dist_session(g, target, NULL);
  run_timed_ms(sess, y, -4, __LINE__); /* warm up: session, plan, connections */
  double before = run_timed_ms(sess, y, -4, __LINE__);
  long rss0 = rss_kib();

  /* The flood: calls for steps that never come, each given up by its client after 200 ms. */
  call_count c;
  memset(&c, 0, sizeof c);
  int64_t flood_start = tfc_now_us();
  for (int i = 0; i < n_calls; i++)
    tfc_rpc_call_async(ch, "/tensorflow.WorkerService/RecvTensor", recv_tensor_request(1000000 + i),
                       tfc_deadline_after_ms(200), 0, count_call, &c, NULL);
  double during = run_timed_ms(sess, y, -4, __LINE__);
  int64_t until = dist_now_ms() + DIST_STEP_GUARD_MS;
  while (atomic_load(&c.done) < n_calls) {
    if (dist_now_ms() > until) tfc_test_fail(__FILE__, __LINE__, "%d of %d calls completed", c.done, n_calls);
    dist_sleep_ms(5);
  }
  double flood_ms = (double)(tfc_now_us() - flood_start) / 1000.0;
  /* Each ends at its deadline (or, when the server's cancellation wins the race, CANCELLED). */
  EXPECT_EQ(atomic_load(&c.code_counts[TFC_OK]), 0);
  EXPECT_EQ(atomic_load(&c.code_counts[TFC_DEADLINE_EXCEEDED]) + atomic_load(&c.code_counts[TFC_CANCELLED]), n_calls);
  long rss1 = rss_kib();

  /* Everything the abandoned calls held is gone: calls, handler threads, steps. */
  int64_t drained_ms = 0;
  wait_load_drained(srv, &drained_ms, __LINE__);
  double after = run_timed_ms(sess, y, -4, __LINE__);
  fprintf(stderr,
          "  %d abandoned RecvTensor calls over %.0f ms; server load back to 0 %lld ms after the last one ended\n"
          "  step: %.2f ms before the flood, %.2f ms during it, %.2f ms after; RSS %ld -> %ld -> %ld KiB\n",
          n_calls, flood_ms, (long long)drained_ms, before, during, after, rss0, rss1, rss_kib());

  dist_session_free(sess);
  TF_DeleteGraph(g);
  tfc_rpc_channel_free(ch);
  tfc_server_free(srv);
  tfc_status_fini(&s);
  TF_DeleteStatus(ts);
}

/* ---------------- the tool's messages ---------------- */

static void port_in_use_prints_only_tfcs_message(void) {
  unsetenv("GRPC_VERBOSITY"); /* gRPC's own log stays quiet unless asked for */
  dist_task *t = dist_server_start("local=localhost:0", "local", 0, NULL, NULL);
  char cluster[64];
  snprintf(cluster, sizeof cluster, "local=localhost:%d", t->port);
  const char *dup[] = {"server", "--cluster", cluster, "--job", "local", NULL};
  dist_task *t2 = dist_task_spawn("second", dup);
  int st = dist_task_signal_wait(t2, 0, DIST_START_GUARD_MS);
  char *e = dist_task_output(t2, 1);
  char want[128];
  snprintf(want, sizeof want, "tfc server: Could not start gRPC server: failed to bind 127.0.0.1:%d\n", t->port);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)
    tfc_test_fail(__FILE__, __LINE__, "status 0x%x, want exit 1; stderr:\n%s", st, e);
  EXPECT_STREQ(e, want);
  free(e);
  dist_task_free(t2);
  dist_task_free(t);
}

/* ---------------- device filters ---------------- */

/* ConfigProto.device_filters, as in TF's between-graph programs ("/job:ps",
 * "/job:worker/task:N"): a session needs only the tasks they match, so a task that is down
 * (here: never started) does not hold it up; without filters the session waits for it until
 * operation_timeout_in_ms and fails naming it. A node placed on a filtered-out task has no
 * device; a malformed filter is INVALID_ARGUMENT. */
static void device_filters_leave_out_the_tasks_they_do_not_name(void) {
  int ports[3];
  dist_free_ports(3, ports);
  char cluster[192];
  snprintf(cluster, sizeof cluster, "local=localhost:%d,localhost:%d,localhost:%d", ports[0], ports[1], ports[2]);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  const char *filters[] = {"/job:local/task:1"};
  dist_config cfg = {.operation_timeout_in_ms = 20000, .device_filters = filters, .n_device_filters = 1};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  int64_t start = dist_now_ms();
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);
  EXPECT_TRUE(dist_now_ms() - start < 10000);
  dist_session_free(sess);

  /* Task 2 is asked for when no filter leaves it out. */
  TF_Status *s = TF_NewStatus();
  dist_config all = {.operation_timeout_in_ms = 1500};
  sess = dist_session(g, t0->target, &all);
  TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
  EXPECT_TRUE(out == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_CONTAINS(TF_Message(s), "/job:local/replica:0/task:2");
  dist_session_free(sess);

  /* A node on a task the filters leave out has nowhere to go. */
  TF_Graph *g2 = TF_NewGraph();
  TF_Operation *z = dist_const_f(g2, "z", "/job:local/task:2", 1.0f);
  sess = dist_session(g2, t0->target, &cfg);
  out = dist_run(sess, NULL, NULL, z, NULL, s);
  EXPECT_TRUE(out == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "/job:local/task:2");
  dist_session_free(sess);

  const char *bad[] = {"/job:local/tusk:1"};
  dist_config malformed = {.operation_timeout_in_ms = 1500, .device_filters = bad, .n_device_filters = 1};
  sess = dist_session(g, t0->target, &malformed);
  out = dist_run(sess, NULL, NULL, y, NULL, s);
  EXPECT_TRUE(out == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "device_filters: '/job:local/tusk:1' is not a device name");
  dist_session_free(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

/* ---------------- bounds ---------------- */

/* A stopped task (SIGSTOP: its connections stay open, nothing answers) fails a step when the
 * session's operation_timeout_in_ms runs out. */
static void stopped_task_fails_a_step_at_its_timeout(void) {
  char cluster[128];
  int ports[2];
  dist_local_cluster(cluster, sizeof cluster, ports);
  dist_task *t0 = dist_server_start(cluster, "local", 0, NULL, NULL);
  dist_task *t1 = dist_server_start(cluster, "local", 1, NULL, NULL);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *y = build_cross_task_neg(g);
  dist_config cfg = {.operation_timeout_in_ms = 2000};
  TF_Session *sess = dist_session(g, t0->target, &cfg);
  EXPECT_NEAR(dist_run_scalar(sess, y, __LINE__), -3, 0);
  stop_task(t1, __LINE__);
  TF_Status *s = TF_NewStatus();
  int64_t start = tfc_now_us();
  TF_Tensor *out = dist_run(sess, NULL, NULL, y, NULL, s);
  double took = (double)(tfc_now_us() - start) / 1000.0;
  kill(t1->pid, SIGCONT);
  fprintf(stderr, "  step with a stopped task and operation_timeout_in_ms 2000: %s after %.0f ms\n",
          tfc_code_name(TF_GetCode(s)), took);
  EXPECT_TRUE(out == NULL);
  TF_DeleteTensor(out);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  TF_DeleteStatus(s);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  dist_task_free(t1);
  dist_task_free(t0);
}

static const tfc_test tests[] = {
    TFC_TEST(restarted_worker_answers_stale_handles_with_aborted),
    TFC_TEST(restarted_master_gets_the_session_created_again),
    TFC_TEST(sigterm_stops_a_server_waiting_for_a_task_that_never_starts),
    TFC_TEST(sigterm_stops_a_server_holding_a_recv_tensor_for_an_unknown_step),
    TFC_TEST(sigterm_stops_a_master_whose_step_waits_on_a_stopped_task),
    TFC_TEST(create_session_of_a_dead_client_stops_waiting),
    TFC_TEST(abandoned_recv_tensor_flood_is_released_at_once),
    TFC_TEST(port_in_use_prints_only_tfcs_message),
    TFC_TEST(stopped_task_fails_a_step_at_its_timeout),
    TFC_TEST(device_filters_leave_out_the_tasks_they_do_not_name),
    {0},
};
TFC_TEST_MAIN(tests)
