/*
 * bench/dist — what the distributed runtime costs over the transport it runs on. In one
 * process it starts the two tasks of job "local" (TF_NewServer on two free ports of
 * 127.0.0.1) and measures, beside a raw gRPC peer in the same invocation:
 *
 *   1. RecvTensor throughput. A float32 VariableV2 of 4 MiB or 64 MiB lives on task 1
 *      (initialized once from RandomUniform there, read through Identity there); a Slice of
 *      its last element runs on task 0, so the whole tensor crosses tasks in one RecvTensor
 *      call and only one float comes back to the client. The step is timed from the client's
 *      TF_SessionRun against task 0's master; the same graph over a 1-element variable gives
 *      the fixed cost of a step (RunStep, two RunGraphs, one RecvTensor, CleanupGraph),
 *      which is subtracted for the "net" figure. Before timing, one step checks that the
 *      sum computed on task 0 equals the sum computed on task 1 (the bytes really crossed).
 *   2. The peer: gRPC core's C API used directly — a server on 127.0.0.1 with one
 *      completion-queue thread that answers every call from a preallocated payload (a
 *      static slice, no copy), and a blocking client that copies each reply once into a
 *      preallocated 64-byte-aligned buffer (tfc copies a received tensor once too). "pull"
 *      is RecvTensor's shape (an 8-byte request, an N-byte reply); "echo" moves N bytes
 *      each way and is counted as N per call. Message size limits are lifted on both ends,
 *      as tfc does; nothing else is tuned. Net figures subtract a 4-byte call likewise.
 *   3. Step overhead: a one-node graph (a scalar Const) on task 1 fetched through task 0's
 *      master, the same node on task 0 (client -> master only), and the same graph in an
 *      in-process session (target ""), median microseconds per TF_SessionRun.
 *
 * Beside the wall time, each call's CPU time (this process's, all threads: both ends) is
 * measured, per MiB moved net of the 4-byte call: where the tasks share one machine's cores,
 * that is what a transfer takes away from training (bench_cluster's figures build on it).
 *
 * Every figure is the median of single timed runs after warm-up; within each round the tfc
 * step, the raw pull and the raw echo of one size run back to back, so that load from other
 * work on a shared machine falls on all three alike. Nothing is asserted on time (a ratio
 * under its target is printed, not failed). Targets: RecvTensor net throughput >=
 * 0.8 of raw gRPC pull at both sizes.
 *
 * Usage: bench_dist [--quick]   (--quick: 64 KiB and 1 MiB, few runs; for valgrind)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "bench_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/server.h"

#define MIB (1024.0 * 1024.0)
#define T0 "/job:local/task:0"
#define T1 "/job:local/task:1"

static void die(const char *what, const char *why) {
  fprintf(stderr, "bench_dist: %s: %s\n", what, why);
  exit(1);
}

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) die(what, TF_Message(s));
}

/* ================= the tfc cluster ================= */

/* Two distinct free ports on 127.0.0.1: both tasks must know each other's port before either
 * starts, so port 0 in the cluster entries would not do. The sockets are held together so the
 * kernel hands out two different ports, then closed for the servers to bind. */
static void free_ports(int out[2]) {
  int fds[2];
  for (int i = 0; i < 2; i++) {
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fds[i], (struct sockaddr *)&a, &len) != 0)
      die("free port", "cannot bind a socket on 127.0.0.1");
    out[i] = ntohs(a.sin_port);
  }
  close(fds[0]);
  close(fds[1]);
}

static TF_Server *start_task(const char *cluster, int task, TF_Status *s) {
  TF_Buffer *def = TFC_NewServerDef(cluster, "local", task, 0, NULL, 0, s);
  check(s, "ServerDef");
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  TF_DeleteBuffer(def);
  check(s, "TF_NewServer");
  TF_ServerStart(srv, s);
  check(s, "TF_ServerStart");
  return srv;
}

/* ================= graph building ================= */

static TF_Operation *finish(TF_OperationDescription *d, const char *what, TF_Status *s) {
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, what);
  return op;
}

static TF_Operation *const_tensor(TF_Graph *g, const char *name, const char *dev, TF_Tensor *t, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  if (dev) TF_SetDevice(d, dev);
  TF_SetAttrTensor(d, "value", t, s);
  check(s, name);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_DeleteTensor(t);
  return finish(d, name, s);
}

static TF_Operation *const_i32_vec1(TF_Graph *g, const char *name, const char *dev, int32_t v, TF_Status *s) {
  int64_t dim = 1;
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &dim, 1, sizeof(int32_t));
  *(int32_t *)TF_TensorData(t) = v;
  return const_tensor(g, name, dev, t, s);
}

static TF_Operation *const_f32(TF_Graph *g, const char *name, const char *dev, float v, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(t) = v;
  return const_tensor(g, name, dev, t, s);
}

static TF_Operation *op_n(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in,
                          int n_in, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n_in; i++) TF_AddInput(d, in[i]);
  return finish(d, name, s);
}

/* The nodes of one transfer size. */
typedef struct transfer {
  int64_t n;           /* floats in the variable */
  TF_Operation *init;  /* Assign(v, RandomUniform) on task 1 */
  TF_Operation *tail;  /* Slice(v/read, [n-1], [1]) on task 0: the timed fetch */
  TF_Operation *sum0;  /* Sum(v/read) on task 0 and on task 1: the one-time check */
  TF_Operation *sum1;
} transfer;

static transfer build_transfer(TF_Graph *g, const char *prefix, int64_t n, TF_Status *s) {
  char name[64];
  transfer x = {.n = n};
#define NAME(suffix) (snprintf(name, sizeof name, "%s/%s", prefix, suffix), name)

  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", NAME("v"));
  TF_SetDevice(d, T1);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", &n, 1);
  TF_Operation *v = finish(d, name, s);

  TF_Operation *shape = const_i32_vec1(g, NAME("shape"), T1, (int32_t)n, s);
  d = TF_NewOperation(g, "RandomUniform", NAME("random"));
  TF_SetDevice(d, T1);
  TF_AddInput(d, (TF_Output){shape, 0});
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrInt(d, "seed", 1);
  TF_SetAttrInt(d, "seed2", 2);
  TF_Operation *rnd = finish(d, name, s);
  x.init = op_n(g, "Assign", NAME("init"), T1, (TF_Output[]){{v, 0}, {rnd, 0}}, 2, s);
  TF_Operation *read = op_n(g, "Identity", NAME("read"), T1, (TF_Output[]){{v, 0}}, 1, s);

  TF_Operation *begin = const_i32_vec1(g, NAME("begin"), T0, (int32_t)(n - 1), s);
  TF_Operation *size = const_i32_vec1(g, NAME("size"), T0, 1, s);
  x.tail = op_n(g, "Slice", NAME("tail"), T0, (TF_Output[]){{read, 0}, {begin, 0}, {size, 0}}, 3, s);

  TF_Operation *axis0 = const_i32_vec1(g, NAME("axis0"), T0, 0, s);
  TF_Operation *axis1 = const_i32_vec1(g, NAME("axis1"), T1, 0, s);
  x.sum0 = op_n(g, "Sum", NAME("sum0"), T0, (TF_Output[]){{read, 0}, {axis0, 0}}, 2, s);
  x.sum1 = op_n(g, "Sum", NAME("sum1"), T1, (TF_Output[]){{read, 0}, {axis1, 0}}, 2, s);
#undef NAME
  return x;
}

static void run_target(TF_Session *sess, TF_Operation *target, TF_Status *s) {
  const TF_Operation *t[] = {target};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, s);
  check(s, TF_OperationName(target));
}

/* One run fetching op:0; returns its seconds. The result is checked for being a float. */
static double timed_fetch(TF_Session *sess, TF_Operation *op, TF_Status *s) {
  TF_Output out = {op, 0};
  TF_Tensor *r = NULL;
  double t0 = bench_now();
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, NULL, s);
  double dt = bench_now() - t0;
  check(s, TF_OperationName(op));
  if (TF_TensorType(r) != TF_FLOAT) die(TF_OperationName(op), "fetched a tensor that is not float");
  TF_DeleteTensor(r);
  return dt;
}

/* Median seconds of `runs` single runs after `warm` untimed ones. */
static double median_fetch(TF_Session *sess, TF_Operation *op, int warm, int runs, TF_Status *s) {
  double *v = malloc(sizeof *v * (size_t)runs);
  if (!v) die("median", "out of memory");
  for (int i = 0; i < warm; i++) timed_fetch(sess, op, s);
  for (int i = 0; i < runs; i++) v[i] = timed_fetch(sess, op, s);
  double m = bench_median(v, runs);
  free(v);
  return m;
}

/* The whole tensor crossed: task 0's sum of what it received equals task 1's sum. */
static void check_transfer(TF_Session *sess, const transfer *x, TF_Status *s) {
  TF_Output outs[2] = {{x->sum0, 0}, {x->sum1, 0}};
  TF_Tensor *r[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, r, 2, NULL, 0, NULL, s);
  check(s, "transfer check");
  float a = *(float *)TF_TensorData(r[0]), b = *(float *)TF_TensorData(r[1]);
  TF_DeleteTensor(r[0]);
  TF_DeleteTensor(r[1]);
  /* Uniform [0, 1) values: the sum is about n / 2; anything else means zeros or garbage. */
  if (a != b || !(a > 0.4f * (float)x->n && a < 0.6f * (float)x->n)) {
    char why[160];
    snprintf(why, sizeof why, "sum on task 0 %g, on task 1 %g, expected equal and about %g", a, b, 0.5 * x->n);
    die("transfer check", why);
  }
}

/* ================= the raw gRPC peer ================= */

#define RAW_PULL "/bench.Raw/Pull"
#define RAW_ECHO "/bench.Raw/Echo"

static const grpc_arg raw_args[] = {
    {.type = GRPC_ARG_INTEGER, .key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, .value.integer = -1},
    {.type = GRPC_ARG_INTEGER, .key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, .value.integer = -1},
};
static const grpc_channel_args raw_channel_args = {2, (grpc_arg *)raw_args};

typedef struct raw_server {
  grpc_server *srv;
  grpc_completion_queue *cq;
  pthread_t th;
  const uint8_t *payload; /* borrowed; the reply bytes of every call */
  size_t payload_len;
  int port;
  int shutdown_tag; /* its address is the tag of grpc_server_shutdown_and_notify */
} raw_server;

/* One incoming call; the completion-queue tag of its batches. */
typedef enum { RAW_REQUESTED = 0, RAW_RECEIVED = 1, RAW_REPLIED = 2 } raw_stage;

typedef struct raw_call {
  raw_server *rs;
  raw_stage stage;
  grpc_call *call;
  grpc_call_details details;
  grpc_metadata_array md;
  grpc_byte_buffer *request, *reply;
  int cancelled;
} raw_call;

static void raw_request_next(raw_server *rs) {
  raw_call *c = calloc(1, sizeof *c);
  if (!c) die("raw server", "out of memory");
  c->rs = rs;
  grpc_call_details_init(&c->details);
  grpc_metadata_array_init(&c->md);
  if (grpc_server_request_call(rs->srv, &c->call, &c->details, &c->md, rs->cq, rs->cq, c) != GRPC_CALL_OK)
    die("raw server", "grpc_server_request_call failed");
}

static void raw_call_free(raw_call *c) {
  if (c->call) grpc_call_unref(c->call);
  grpc_call_details_destroy(&c->details);
  grpc_metadata_array_destroy(&c->md);
  if (c->request) grpc_byte_buffer_destroy(c->request);
  if (c->reply) grpc_byte_buffer_destroy(c->reply);
  free(c);
}

/* The reply: pull sends the length the 8-byte request names, echo the request's length; both
 * from the preallocated payload without copying. */
static void raw_reply(raw_call *c) {
  size_t want = c->request ? grpc_byte_buffer_length(c->request) : 0;
  if (grpc_slice_str_cmp(c->details.method, RAW_PULL) == 0 && want == 8) {
    /* The 8 bytes may arrive in more than one slice (split across TCP reads). */
    grpc_byte_buffer_reader r;
    grpc_slice *sl;
    uint8_t raw[8];
    size_t have = 0;
    if (grpc_byte_buffer_reader_init(&r, c->request)) {
      while (have < 8 && grpc_byte_buffer_reader_peek(&r, &sl)) {
        size_t len = GRPC_SLICE_LENGTH(*sl) < 8 - have ? GRPC_SLICE_LENGTH(*sl) : 8 - have;
        memcpy(raw + have, GRPC_SLICE_START_PTR(*sl), len);
        have += len;
      }
      grpc_byte_buffer_reader_destroy(&r);
    }
    uint64_t n = 0;
    if (have == 8) memcpy(&n, raw, 8);
    want = (size_t)n;
  }
  if (want > c->rs->payload_len) want = c->rs->payload_len;
  grpc_slice body = grpc_slice_from_static_buffer(c->rs->payload, want);
  c->reply = grpc_raw_byte_buffer_create(&body, 1);
  grpc_op ops[3];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_MESSAGE;
  ops[0].data.send_message.send_message = c->reply;
  ops[1].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[1].data.send_status_from_server.status = GRPC_STATUS_OK;
  ops[2].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  ops[2].data.recv_close_on_server.cancelled = &c->cancelled;
  c->stage = RAW_REPLIED;
  if (grpc_call_start_batch(c->call, ops, 3, c, NULL) != GRPC_CALL_OK) die("raw server", "reply batch refused");
}

/* The completion-queue thread: accepts a call, reads its request, replies, frees it. */
static void *raw_server_main(void *arg) {
  raw_server *rs = arg;
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(rs->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
    if (ev.type != GRPC_OP_COMPLETE) continue;
    if (ev.tag == &rs->shutdown_tag) {
      grpc_completion_queue_shutdown(rs->cq);
      continue;
    }
    raw_call *c = ev.tag;
    if (!ev.success) { /* the server is shutting down, or the client went away */
      raw_call_free(c);
      continue;
    }
    switch (c->stage) {
      case RAW_REQUESTED: {
        raw_request_next(rs);
        grpc_op ops[2];
        memset(ops, 0, sizeof ops);
        ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
        ops[1].op = GRPC_OP_RECV_MESSAGE;
        ops[1].data.recv_message.recv_message = &c->request;
        c->stage = RAW_RECEIVED;
        if (grpc_call_start_batch(c->call, ops, 2, c, NULL) != GRPC_CALL_OK) die("raw server", "read batch refused");
        break;
      }
      case RAW_RECEIVED:
        raw_reply(c);
        break;
      case RAW_REPLIED:
        raw_call_free(c);
        break;
    }
  }
  return NULL;
}

static void raw_server_start(raw_server *rs, const uint8_t *payload, size_t len) {
  memset(rs, 0, sizeof *rs);
  rs->payload = payload;
  rs->payload_len = len;
  rs->srv = grpc_server_create(&raw_channel_args, NULL);
  rs->cq = grpc_completion_queue_create_for_next(NULL);
  grpc_server_register_completion_queue(rs->srv, rs->cq, NULL);
  grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
  rs->port = grpc_server_add_http2_port(rs->srv, "127.0.0.1:0", creds);
  grpc_server_credentials_release(creds);
  if (rs->port <= 0) die("raw server", "cannot bind 127.0.0.1:0");
  grpc_server_start(rs->srv);
  raw_request_next(rs);
  if (pthread_create(&rs->th, NULL, raw_server_main, rs) != 0) die("raw server", "pthread_create failed");
}

static void raw_server_stop(raw_server *rs) {
  grpc_server_shutdown_and_notify(rs->srv, rs->cq, &rs->shutdown_tag);
  grpc_server_cancel_all_calls(rs->srv);
  pthread_join(rs->th, NULL);
  grpc_server_destroy(rs->srv);
  grpc_completion_queue_destroy(rs->cq);
}

typedef struct raw_client {
  grpc_channel *ch;
  grpc_completion_queue *cq;
  uint8_t *dst; /* 64-byte aligned, touched once: where each reply is copied */
  size_t dst_len;
} raw_client;

static void raw_client_init(raw_client *rc, int port, size_t max_len) {
  char target[64];
  snprintf(target, sizeof target, "127.0.0.1:%d", port);
  grpc_channel_credentials *creds = grpc_insecure_credentials_create();
  rc->ch = grpc_channel_create(target, creds, &raw_channel_args);
  grpc_channel_credentials_release(creds);
  rc->cq = grpc_completion_queue_create_for_pluck(NULL);
  rc->dst_len = (max_len + 63) / 64 * 64;
  rc->dst = aligned_alloc(64, rc->dst_len);
  if (!rc->dst) die("raw client", "out of memory");
  memset(rc->dst, 0, rc->dst_len);
}

static void raw_client_fini(raw_client *rc) {
  grpc_channel_destroy(rc->ch);
  grpc_completion_queue_shutdown(rc->cq);
  while (grpc_completion_queue_pluck(rc->cq, NULL, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
         GRPC_QUEUE_SHUTDOWN) {
  }
  grpc_completion_queue_destroy(rc->cq);
  free(rc->dst);
}

/* One blocking call; returns its seconds. pull: an 8-byte request naming n, an n-byte
 * reply; echo: `send` (n bytes) out, n bytes back. The reply is copied into rc->dst. */
static double raw_call_once(raw_client *rc, int echo, const uint8_t *send, size_t n) {
  double t0 = bench_now();
  uint64_t n64 = n;
  grpc_slice body = echo ? grpc_slice_from_static_buffer(send, n) : grpc_slice_from_copied_buffer((char *)&n64, 8);
  grpc_byte_buffer *req = grpc_raw_byte_buffer_create(&body, 1);
  grpc_slice_unref(body);
  /* A hang guard, not a measurement: a healthy call takes milliseconds. */
  gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_seconds(60, GPR_TIMESPAN));
  grpc_slice method = grpc_slice_from_static_string(echo ? RAW_ECHO : RAW_PULL);
  grpc_call *call = grpc_channel_create_call(rc->ch, NULL, GRPC_PROPAGATE_DEFAULTS, rc->cq, method, NULL, deadline, NULL);
  grpc_metadata_array md, trailing;
  grpc_metadata_array_init(&md);
  grpc_metadata_array_init(&trailing);
  grpc_byte_buffer *reply = NULL;
  grpc_status_code status = GRPC_STATUS_UNKNOWN;
  grpc_slice details = grpc_empty_slice();
  grpc_op ops[6];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = req;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &md;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &reply;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
  ops[5].data.recv_status_on_client.status = &status;
  ops[5].data.recv_status_on_client.status_details = &details;
  int tag;
  if (grpc_call_start_batch(call, ops, 6, &tag, NULL) != GRPC_CALL_OK) die("raw client", "batch refused");
  grpc_event ev = grpc_completion_queue_pluck(rc->cq, &tag, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
  if (ev.type != GRPC_OP_COMPLETE || !ev.success || status != GRPC_STATUS_OK) {
    char *why = grpc_slice_to_c_string(details);
    fprintf(stderr, "bench_dist: raw call failed: status %d: %s\n", (int)status, why);
    exit(1);
  }
  /* The one copy a receiver makes: the reply's slices into the aligned buffer. */
  size_t got = 0;
  if (reply) {
    grpc_byte_buffer_reader r;
    grpc_slice *sl;
    if (!grpc_byte_buffer_reader_init(&r, reply)) die("raw client", "cannot read the reply");
    while (grpc_byte_buffer_reader_peek(&r, &sl)) {
      size_t len = GRPC_SLICE_LENGTH(*sl);
      if (got + len > rc->dst_len) die("raw client", "reply longer than asked for");
      memcpy(rc->dst + got, GRPC_SLICE_START_PTR(*sl), len);
      got += len;
    }
    grpc_byte_buffer_reader_destroy(&r);
    grpc_byte_buffer_destroy(reply);
  }
  grpc_byte_buffer_destroy(req);
  grpc_metadata_array_destroy(&md);
  grpc_metadata_array_destroy(&trailing);
  grpc_slice_unref(details);
  grpc_call_unref(call);
  double dt = bench_now() - t0;
  if (got != n) {
    fprintf(stderr, "bench_dist: raw %s: a reply of %zu bytes to a call for %zu\n", echo ? "echo" : "pull", got, n);
    exit(1);
  }
  return dt;
}

/* ================= measuring ================= */

/* The three contestants of one size, timed in turn within each round (a tfc step, a raw pull,
 * a raw echo) so that a machine shared with other work loads all three alike; medians in
 * seconds. */
typedef struct trio {
  double step, pull, echo;
  double step_cpu, pull_cpu; /* median CPU seconds of this process (both ends) per call */
} trio;

static trio measure_trio(TF_Session *sess, TF_Operation *fetch, raw_client *rc, const uint8_t *payload, size_t n,
                         int warm, int runs, TF_Status *s) {
  double *v = malloc(sizeof *v * 5 * (size_t)runs);
  if (!v) die("measure", "out of memory");
  for (int i = 0; i < warm; i++) {
    timed_fetch(sess, fetch, s);
    raw_call_once(rc, 0, payload, n);
    raw_call_once(rc, 1, payload, n);
  }
  for (int i = 0; i < runs; i++) {
    double c0 = bench_cpu_now();
    v[i] = timed_fetch(sess, fetch, s);
    double c1 = bench_cpu_now();
    v[runs + i] = raw_call_once(rc, 0, payload, n);
    v[3 * runs + i] = c1 - c0;
    v[4 * runs + i] = bench_cpu_now() - c1;
    v[2 * runs + i] = raw_call_once(rc, 1, payload, n);
  }
  trio t = {bench_median(v, runs), bench_median(v + runs, runs), bench_median(v + 2 * runs, runs),
            bench_median(v + 3 * runs, runs), bench_median(v + 4 * runs, runs)};
  free(v);
  return t;
}

/* ================= main ================= */

typedef struct size_case {
  const char *label;
  int64_t bytes;
  int runs;
} size_case;

static double mibps(double bytes, double secs) { return secs > 0 ? bytes / MIB / secs : 0; }

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (argc > 1 && !quick) {
    fprintf(stderr, "usage: bench_dist [--quick]\n");
    return 2;
  }
  const size_case cases[2] = {
      quick ? (size_case){"64 KiB", 64 << 10, 3} : (size_case){"4 MiB", 4 << 20, 20},
      quick ? (size_case){"1 MiB", 1 << 20, 3} : (size_case){"64 MiB", 64 << 20, 8},
  };
  const int warm = quick ? 1 : 3, tiny_runs = quick ? 5 : 200, step_runs = quick ? 50 : 2000;
  TF_Status *s = TF_NewStatus();

  /* The cluster, and the raw gRPC peer in the same process. */
  int ports[2];
  free_ports(ports);
  char cluster[96];
  snprintf(cluster, sizeof cluster, "local=localhost:%d,localhost:%d", ports[0], ports[1]);
  TF_Server *task0 = start_task(cluster, 0, s), *task1 = start_task(cluster, 1, s);
  size_t max_bytes = (size_t)cases[1].bytes;
  uint8_t *payload = malloc(max_bytes);
  if (!payload) die("payload", "out of memory");
  for (size_t i = 0; i < max_bytes; i++) payload[i] = (uint8_t)(i * 2654435761u >> 24);
  grpc_init();
  raw_server rs;
  raw_server_start(&rs, payload, max_bytes);
  raw_client rc;
  raw_client_init(&rc, rs.port, max_bytes);
  printf("cluster %s; client -> %s; raw gRPC peer on 127.0.0.1:%d\n", cluster, TF_ServerTarget(task0), rs.port);
  if (quick) printf("--quick: sizes too small and runs too few for the figures to mean anything\n");

  /* 1 and 2. RecvTensor throughput beside raw gRPC pull and echo. */
  TF_Graph *g = TF_NewGraph();
  transfer tiny = build_transfer(g, "tiny", 1, s);
  transfer big[2];
  for (int i = 0; i < 2; i++) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "x%d", i);
    big[i] = build_transfer(g, prefix, cases[i].bytes / 4, s);
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_SetTarget(opts, TF_ServerTarget(task0));
  TF_Session *sess = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession (grpc)");
  run_target(sess, tiny.init, s);
  for (int i = 0; i < 2; i++) {
    run_target(sess, big[i].init, s);
    check_transfer(sess, &big[i], s);
  }
  trio base = measure_trio(sess, tiny.tail, &rc, payload, 4, warm, tiny_runs, s);
  printf("4-byte step %.3f ms; 4-byte raw gRPC pull %.3f ms, echo %.3f ms  [median of %d]\n", base.step * 1e3,
         base.pull * 1e3, base.echo * 1e3, tiny_runs);
  double net[2][3], cpu_ms_per_mib[2][2];
  for (int i = 0; i < 2; i++) {
    double b = (double)cases[i].bytes;
    trio t = measure_trio(sess, big[i].tail, &rc, payload, (size_t)cases[i].bytes, warm, cases[i].runs, s);
    cpu_ms_per_mib[i][0] = 1e3 * (t.step_cpu - base.step_cpu) / (b / MIB);
    cpu_ms_per_mib[i][1] = 1e3 * (t.pull_cpu - base.pull_cpu) / (b / MIB);
    net[i][0] = mibps(b, t.step - base.step);
    net[i][1] = mibps(b, t.pull - base.pull);
    net[i][2] = mibps(b, t.echo - base.echo);
    printf("%6s [median of %d]: RecvTensor step %8.3f ms (raw %5.0f, net %5.0f MiB/s); raw gRPC pull %8.3f ms "
           "(raw %5.0f, net %5.0f MiB/s); echo %8.3f ms (raw %5.0f, net %5.0f MiB/s)\n",
           cases[i].label, cases[i].runs, t.step * 1e3, mibps(b, t.step), net[i][0], t.pull * 1e3, mibps(b, t.pull),
           net[i][1], t.echo * 1e3, mibps(b, t.echo), net[i][2]);
  }
  for (int i = 0; i < 2; i++)
    printf("RecvTensor %s: %.0f MiB/s; raw gRPC pull %.0f MiB/s; ratio %.2f (target >= 0.8); raw gRPC echo %.0f "
           "MiB/s (net of the 4-byte call)\n",
           cases[i].label, net[i][0], net[i][1], net[i][1] > 0 ? net[i][0] / net[i][1] : 0, net[i][2]);
  /* What moving the bytes costs the machine: on a host whose cores all compute (tasks sharing
   * one machine), this CPU time, not the wall time, is what a transfer takes from training. */
  for (int i = 0; i < 2; i++)
    printf("CPU time per MiB moved, %s (both ends, net of the 4-byte call): RecvTensor %.3f ms; raw gRPC pull %.3f "
           "ms\n",
           cases[i].label, cpu_ms_per_mib[i][0], cpu_ms_per_mib[i][1]);
  raw_client_fini(&rc);
  raw_server_stop(&rs);
  grpc_shutdown();
  free(payload);

  /* 3. Step overhead: one tiny node remote, on the master's task, and in process. */
  TF_Graph *gr = TF_NewGraph();
  TF_Operation *on1 = const_f32(gr, "on_task1", T1, 1.0f, s);
  TF_Operation *on0 = const_f32(gr, "on_task0", T0, 1.0f, s);
  TF_Session *rsess = TF_NewSession(gr, opts, s);
  check(s, "TF_NewSession (grpc, steps)");
  double remote1 = median_fetch(rsess, on1, 100, step_runs, s);
  double remote0 = median_fetch(rsess, on0, 100, step_runs, s);
  TF_Graph *gl = TF_NewGraph();
  TF_Operation *local = const_f32(gl, "c", NULL, 1.0f, s);
  TF_SessionOptions *lopts = TF_NewSessionOptions();
  TF_SetTarget(lopts, "");
  TF_Session *lsess = TF_NewSession(gl, lopts, s);
  check(s, "TF_NewSession (in-process)");
  double inproc = median_fetch(lsess, local, 100, step_runs, s);
  printf("step, node on task 1: %8.1f us = %.1f raw gRPC round trips (client -> master on task 0 -> worker on "
         "task 1)  [median of %d]\n",
         remote1 * 1e6, remote1 / base.pull, step_runs);
  printf("step, node on task 0: %8.1f us = %.1f raw gRPC round trips (client -> master on task 0 -> its own "
         "worker)\n",
         remote0 * 1e6, remote0 / base.pull);
  printf("step, in-process:     %8.3f us; remote/in-process ratio %.0f (task 1), %.0f (task 0)\n", inproc * 1e6,
         remote1 / inproc, remote0 / inproc);

  /* Teardown: sessions before the servers they talk to. */
  TF_Session *all[3] = {sess, rsess, lsess};
  for (int i = 0; i < 3; i++) {
    TF_CloseSession(all[i], s);
    check(s, "TF_CloseSession");
    TF_DeleteSession(all[i], s);
  }
  TF_DeleteGraph(g);
  TF_DeleteGraph(gr);
  TF_DeleteGraph(gl);
  TF_DeleteSessionOptions(opts);
  TF_DeleteSessionOptions(lopts);
  TF_DeleteServer(task1);
  TF_DeleteServer(task0);
  TF_DeleteStatus(s);
  return 0;
}
