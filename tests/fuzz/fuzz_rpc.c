/* libFuzzer harness: the distributed runtime's RPC messages, decoded as the servers and
 * clients decode what they receive (distributed_runtime/wire.h over a distributed_runtime/msg.h message).
 *
 * Input: one selector byte, then the message bytes.
 *   selector & 3: 0 RunStepRequest (the master's RunStep handler: NamedTensorProto feeds in
 *                   field 2), 1 RunGraphRequest (the worker's RunGraph handler: feeds in
 *                   field 3), 2 RecvTensorResponse (a worker pulling a tensor: one TensorProto
 *                   in field 1), 3 RegisterGraphRequest (the worker's RegisterGraph handler:
 *                   a plain request whose GraphDef is imported and registered).
 *   selector >> 2: 0 hands the message over as one segment; k > 0 cuts it into segments of k
 *                   bytes, as the transport hands over a message that came in several slices.
 *
 * Checks beyond "no crash, no leak": a refused message returns nothing and a message saying
 * why; a decoded message's tensors are encoded again with the writers the replies use and
 * must decode to equal tensors; RunGraph feeds run a registered _Arg -> _Retval graph on an
 * in-process worker, and a feed must come back unchanged or the step must fail with a status;
 * RegisterGraph either registers (and deregisters) a graph or fails with a status. (The
 * worker's own check that a RecvTensorResponse holds one tensor sits behind its RPC client and
 * is not reached here.)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distributed_runtime/msg.h"
#include "distributed_runtime/wire.h"
#include "distributed_runtime/worker.h"
#include "graph/graph.h"
#include "ops/attr.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "proto/tensor_codec.h"
#include "session/config.h"
#include "tensorflow/master.pb-c.h"
#include "tensorflow/worker.pb-c.h"

#define DEVICE "/job:worker/replica:0/task:0/device:CPU:0"

/* TFC_FUZZ_DEBUG=1 prints what each input came to (when triaging or checking seeds). */
static void debug(const char *what, const tfc_status *s) {
  static int on = -1;
  if (on < 0) on = getenv("TFC_FUZZ_DEBUG") != NULL;
  if (on) fprintf(stderr, "%s: %s\n", what, tfc_status_ok(s) ? "OK" : tfc_status_msg(s));
}

static tfc_rpc_channel *no_channel(void *arg, const char *task, tfc_status *s) {
  tfc_status_set(s, TFC_NOT_FOUND, "no task %s in this process", task);
  return NULL;
}

/* One worker for the whole run (as a server has one), with a graph that returns its one feed:
 * x = _Arg[T=float, index=0]; y = _Retval[T=float, index=0](x). */
static tfc_worker *g_worker;
static char *g_echo_handle;

static void setup(void) {
  if (g_worker) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_session_config cfg;
  tfc_session_config_init(&cfg);
  g_worker = tfc_worker_new("worker", 0, &cfg, no_channel, NULL, &s);
  tfc_session_config_fini(&cfg);
  if (!g_worker) abort();
  tfc_graph *g = tfc_graph_new();
  tfc_node_desc *d = tfc_node_desc_new(g, "_Arg", "x");
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "T", &v);
  v = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &v);
  tfc_node_desc_set_device(d, DEVICE);
  tfc_node *x = tfc_node_desc_finish(d, &s);
  if (!x) abort();
  d = tfc_node_desc_new(g, "_Retval", "y");
  tfc_node_desc_add_input(d, (tfc_endpoint){x, 0});
  v = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &v);
  tfc_node_desc_set_device(d, DEVICE);
  if (!tfc_node_desc_finish(d, &s)) abort();
  void *gd = NULL;
  size_t len = 0;
  if (tfc_graphdef_export(g, &gd, &len, &s) != TFC_OK) abort();
  if (tfc_worker_register_graphdef(g_worker, "fuzz", gd, len, &g_echo_handle, &s) != TFC_OK) abort();
  free(gd);
  tfc_graph_free(g);
  tfc_status_fini(&s);
}

/* The message over the input, in segments of seg bytes (0: one segment). */
static tfc_msg_in *message_of(const uint8_t *data, size_t size, size_t seg) {
  if (!seg || seg >= size) return tfc_msg_in_new(&(tfc_msg_seg){data, size, NULL, NULL}, 1, NULL, NULL);
  int n = (int)((size + seg - 1) / seg);
  tfc_msg_seg *segs = calloc((size_t)n, sizeof *segs);
  if (!segs) return NULL;
  for (int i = 0; i < n; i++) {
    size_t at = (size_t)i * seg;
    segs[i] = (tfc_msg_seg){data + at, size - at < seg ? size - at : seg, NULL, NULL};
  }
  tfc_msg_in *in = tfc_msg_in_new(segs, n, NULL, NULL);
  free(segs);
  return in;
}

static int tensors_equal(tfc_tensor *a, tfc_tensor *b) {
  tfc_attr_value x = tfc_attr_tensor(a), y = tfc_attr_tensor(b);
  tfc_tensor_ref(a);
  tfc_tensor_ref(b);
  int eq = tfc_attr_value_equal(&x, &y);
  tfc_attr_value_fini(&x);
  tfc_attr_value_fini(&y);
  return eq;
}

/* Encodes msg and the tensors as a reply would, decodes them again, and checks they match. */
static void round_trip(const ProtobufCMessage *msg, const ProtobufCMessageDescriptor *desc, int field, int kind,
                       const tfc_wire_tensors *ts) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_msg_out *out = tfc_msg_out_new();
  if (!out || tfc_wire_put_message(out, msg, &s)) abort();
  for (int i = 0; i < ts->n; i++) {
    int rc = kind == TFC_WIRE_NAMED_TENSOR ? tfc_wire_put_named_tensor(out, field, ts->names[i], ts->tensors[i], &s)
                                           : tfc_wire_put_tensor(out, field, ts->tensors[i], &s);
    /* Resource and variant tensors have no wire encoding; refusing them is the writer's job. */
    if (rc) {
      if (ts->tensors[i]->dtype != TFC_DT_RESOURCE && ts->tensors[i]->dtype != TFC_DT_VARIANT) abort();
      tfc_msg_out_free(out);
      tfc_status_fini(&s);
      return;
    }
  }
  tfc_msg_in *in = tfc_msg_in_from_out(out);
  ProtobufCMessage *m2 = NULL;
  tfc_wire_tensors ts2;
  if (!in || tfc_wire_get_message(in, desc, field, kind, "again", &m2, &ts2, &s) != TFC_OK) abort();
  if (ts2.n != ts->n) abort();
  for (int i = 0; i < ts->n; i++) {
    if (!tensors_equal(ts->tensors[i], ts2.tensors[i])) abort();
    if ((ts->names[i] == NULL) != (ts2.names[i] == NULL)) abort();
    if (ts->names[i] && strcmp(ts->names[i], ts2.names[i]) != 0) abort();
  }
  tfc_wire_tensors_fini(&ts2);
  protobuf_c_message_free_unpacked(m2, NULL);
  tfc_msg_in_free(in);
  tfc_status_fini(&s);
}

typedef struct run_wait {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  tfc_status st;
  int n_fetches;
  tfc_tensor *fetch;
} run_wait;

static void run_done(void *arg, const tfc_status *st, tfc_tensor **fetches, int n_fetches) {
  run_wait *w = arg;
  pthread_mutex_lock(&w->mu);
  if (!tfc_status_ok(st)) tfc_status_set(&w->st, st->code, "%s", tfc_status_msg(st));
  w->n_fetches = n_fetches;
  for (int i = 0; i < n_fetches; i++) {
    if (i == 0) w->fetch = fetches[i];
    else tfc_tensor_unref(fetches[i]);
  }
  w->done = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

/* RunGraph as the worker's handler runs it, on the echo graph unless the request names
 * another (unknown) handle. */
static void run_graph(const Tensorflow__RunGraphRequest *rq, const tfc_wire_tensors *feeds) {
  const char *handle = rq->graph_handle && *rq->graph_handle ? rq->graph_handle : g_echo_handle;
  /* The worker refuses a step id it has cleaned up (ABORTED): every run gets a new one, so the
   * same input runs the graph each time. */
  static int64_t next_step = 1;
  int64_t step_id = next_step++;
  run_wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, 0, NULL};
  tfc_status_init(&w.st);
  tfc_worker_run_graph(g_worker, handle, step_id, feeds->tensors, feeds->n, 0, 1, run_done, &w);
  pthread_mutex_lock(&w.mu);
  while (!w.done) pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  debug("RunGraph", &w.st);
  if (tfc_status_ok(&w.st)) {
    if (handle != g_echo_handle || feeds->n != 1 || w.n_fetches != 1 || !w.fetch) abort();
    if (!tensors_equal(w.fetch, feeds->tensors[0])) abort();
  }
  tfc_tensor_unref(w.fetch);
  tfc_status_fini(&w.st);
  tfc_worker_cleanup_step(g_worker, step_id, NULL);
}

/* RegisterGraph as the worker's handler does it. */
static void register_graph(const Tensorflow__RegisterGraphRequest *rq) {
  if (!rq->graph_def) return;
  tfc_status s;
  tfc_status_init(&s);
  void *gd = NULL;
  size_t len = 0;
  char *handle = NULL;
  if (tfc_pb_pack(&rq->graph_def->base, &gd, &len, &s) == TFC_OK &&
      tfc_worker_register_graphdef(g_worker, rq->session_handle, gd, len, &handle, &s) == TFC_OK) {
    debug("RegisterGraph", &s);
    if (!handle || tfc_worker_deregister_graph(g_worker, handle, &s) != TFC_OK) abort();
  } else if (tfc_status_ok(&s) || handle) {
    abort();
  } else {
    debug("RegisterGraph", &s);
  }
  free(handle);
  free(gd);
  tfc_status_fini(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  /* Tensors may declare huge shapes; keep allocations fuzzer-sized. */
  tfc_tensor_proto_set_max_bytes(1 << 20);
  setup();
  static const struct {
    const ProtobufCMessageDescriptor *desc;
    int field, kind;
    const char *what;
  } kinds[4] = {
      {&tensorflow__run_step_request__descriptor, 2, TFC_WIRE_NAMED_TENSOR, "RunStepRequest"},
      {&tensorflow__run_graph_request__descriptor, 3, TFC_WIRE_NAMED_TENSOR, "RunGraphRequest"},
      {&tensorflow__recv_tensor_response__descriptor, 1, TFC_WIRE_TENSOR_PROTO, "RecvTensorResponse"},
      {&tensorflow__register_graph_request__descriptor, 0, TFC_WIRE_TENSOR_PROTO, "RegisterGraphRequest"},
  };
  int which = data[0] & 3;
  size_t seg = data[0] >> 2;
  tfc_msg_in *in = message_of(data + 1, size - 1, seg);
  if (!in) return 0;
  tfc_status s;
  tfc_status_init(&s);
  ProtobufCMessage *m = NULL;
  tfc_wire_tensors ts;
  int rc = tfc_wire_get_message(in, kinds[which].desc, kinds[which].field, kinds[which].kind, kinds[which].what, &m,
                                &ts, &s);
  tfc_msg_in_free(in);
  debug(kinds[which].what, &s);
  if (rc != TFC_OK) {
    /* A refused message returns nothing and says why. */
    if (m || ts.n || tfc_status_ok(&s) || !*tfc_status_msg(&s)) abort();
  } else {
    if (!m) abort();
    round_trip(m, kinds[which].desc, kinds[which].field, kinds[which].kind, &ts);
    if (which == 1) run_graph((Tensorflow__RunGraphRequest *)m, &ts);
    if (which == 3) register_graph((Tensorflow__RegisterGraphRequest *)m);
    tfc_wire_tensors_fini(&ts);
    protobuf_c_message_free_unpacked(m, NULL);
  }
  tfc_status_fini(&s);
  return 0;
}
