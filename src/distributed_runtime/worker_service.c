/*
 * worker_service — /tensorflow.WorkerService/<Method> over a tfc_worker: decodes requests,
 * calls the worker, encodes replies (tensors through distributed_runtime/wire.h, without copies). Handlers
 * run on the RPC layer's handler threads, RecvTensor's inline on its completion-queue thread
 * (it never blocks); RunGraph and RecvTensor reply later, from the thread that finishes the
 * step or sends the tensor.
 *
 * A RunGraph whose call is cancelled (the master went away, its deadline passed) aborts its
 * step with CANCELLED, so the worker never keeps running a step nobody waits for. A
 * RecvTensor whose call is cancelled is answered at once, and the step it alone brought into
 * being is dropped (worker.h), so abandoned calls hold no memory.
 */
#include "distributed_runtime/services.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "distributed_runtime/wire.h"
#include "proto/pb_util.h"
#include "tensorflow/worker.pb-c.h"

static void get_status(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  ProtobufCMessage *rq = tfc_service_decode(call, req, &tensorflow__get_status_request__descriptor);
  if (!rq) return;
  protobuf_c_message_free_unpacked(rq, NULL);
  int n = tfc_worker_num_devices(w);
  Tensorflow__GetStatusResponse resp;
  tensorflow__get_status_response__init(&resp);
  Tensorflow__DeviceAttributes *da = calloc((size_t)n + 1, sizeof *da);
  Tensorflow__DeviceAttributes **list = calloc((size_t)n + 1, sizeof *list);
  tfc_status s;
  tfc_status_init(&s);
  if (!da || !list) TFC_OOM(&s);
  for (int i = 0; i < n && tfc_status_ok(&s); i++) {
    tfc_device *d = tfc_worker_device(w, i);
    tensorflow__device_attributes__init(&da[i]);
    da[i].name = d->name;
    da[i].device_type = d->type;
    da[i].memory_limit = d->memory_bytes;
    da[i].incarnation = d->incarnation;
    list[i] = &da[i];
  }
  resp.n_device_attributes = (size_t)n;
  resp.device_attributes = list;
  tfc_service_reply(call, &resp.base, &s);
  free(da);
  free(list);
  tfc_status_fini(&s);
}

static void register_graph(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  Tensorflow__RegisterGraphRequest *rq =
      (Tensorflow__RegisterGraphRequest *)tfc_service_decode(call, req, &tensorflow__register_graph_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  void *gd = NULL;
  size_t len = 0;
  char *handle = NULL;
  if (!rq->graph_def)
    tfc_status_set(&s, TFC_INVALID_ARGUMENT, "RegisterGraphRequest has no graph_def");
  else if (tfc_pb_pack(&rq->graph_def->base, &gd, &len, &s) == TFC_OK)
    tfc_worker_register_graphdef(w, rq->session_handle, gd, len, &handle, &s);
  Tensorflow__RegisterGraphResponse resp;
  tensorflow__register_graph_response__init(&resp);
  resp.graph_handle = handle;
  tfc_service_reply(call, &resp.base, &s);
  free(handle);
  free(gd);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

static void deregister_graph(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  Tensorflow__DeregisterGraphRequest *rq =
      (Tensorflow__DeregisterGraphRequest *)tfc_service_decode(call, req, &tensorflow__deregister_graph_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_worker_deregister_graph(w, rq->graph_handle, &s);
  Tensorflow__DeregisterGraphResponse resp;
  tensorflow__deregister_graph_response__init(&resp);
  tfc_service_reply(call, &resp.base, &s);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

static void cleanup_graph(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  Tensorflow__CleanupGraphRequest *rq =
      (Tensorflow__CleanupGraphRequest *)tfc_service_decode(call, req, &tensorflow__cleanup_graph_request__descriptor);
  if (!rq) return;
  tfc_status abort, s;
  tfc_status_init(&abort);
  tfc_status_init(&s);
  if (rq->abort_code > 0 && rq->abort_code < 17)
    tfc_status_set(&abort, rq->abort_code, "%s", rq->abort_message ? rq->abort_message : "");
  tfc_worker_cleanup_step(w, rq->step_id, &abort);
  Tensorflow__CleanupGraphResponse resp;
  tensorflow__cleanup_graph_response__init(&resp);
  tfc_service_reply(call, &resp.base, &s);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&abort);
  tfc_status_fini(&s);
}

static void cleanup_all(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  Tensorflow__CleanupAllRequest *rq =
      (Tensorflow__CleanupAllRequest *)tfc_service_decode(call, req, &tensorflow__cleanup_all_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_worker_cleanup_all(w, rq->container, (int)rq->n_container, &s);
  Tensorflow__CleanupAllResponse resp;
  tensorflow__cleanup_all_response__init(&resp);
  tfc_service_reply(call, &resp.base, &s);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

/* ---- RunGraph ---- */

typedef struct run_call {
  tfc_worker *w;
  tfc_rpc_call *call;
  int64_t step_id;
  Tensorflow__RunGraphRequest *rq;
  tfc_wire_tensors feeds;
} run_call;

static void run_cancelled(void *arg) {
  run_call *rc = arg;
  tfc_status c;
  tfc_status_init(&c);
  tfc_status_set(&c, TFC_CANCELLED, "RunGraph of step %lld on %s was cancelled: its master went away",
                 (long long)rc->step_id, tfc_worker_task(rc->w));
  tfc_worker_abort_step(rc->w, rc->step_id, &c);
  tfc_status_fini(&c);
}

static void run_done(void *arg, const tfc_status *st, tfc_tensor **fetches, int n_fetches) {
  run_call *rc = arg;
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, st->code, "%s", tfc_status_msg(st));
  tfc_msg_out *m = NULL;
  if (tfc_status_ok(&s)) {
    Tensorflow__RunGraphResponse resp;
    tensorflow__run_graph_response__init(&resp);
    m = tfc_msg_out_new();
    if (!m) TFC_OOM(&s);
    else tfc_wire_put_message(m, &resp.base, &s);
    for (int i = 0; i < n_fetches && tfc_status_ok(&s); i++)
      tfc_wire_put_named_tensor(m, 1, i < (int)rc->rq->n_recv_key ? rc->rq->recv_key[i] : "", fetches[i], &s);
    if (!tfc_status_ok(&s)) {
      tfc_msg_out_free(m);
      m = NULL;
    }
  }
  for (int i = 0; i < n_fetches; i++) tfc_tensor_unref(fetches[i]);
  tfc_rpc_reply(rc->call, &s, m);
  tfc_wire_tensors_fini(&rc->feeds);
  protobuf_c_message_free_unpacked(&rc->rq->base, NULL);
  free(rc);
  tfc_status_fini(&s);
}

static void run_graph(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  tfc_status s;
  tfc_status_init(&s);
  run_call *rc = calloc(1, sizeof *rc);
  ProtobufCMessage *m = NULL;
  if (!rc) {
    tfc_msg_in_free(req);
    TFC_OOM(&s);
    tfc_rpc_reply(call, &s, NULL);
    tfc_status_fini(&s);
    return;
  }
  tfc_wire_tensors_init(&rc->feeds);
  tfc_wire_get_message(req, &tensorflow__run_graph_request__descriptor, 3, TFC_WIRE_NAMED_TENSOR, "RunGraphRequest",
                       &m, &rc->feeds, &s);
  tfc_msg_in_free(req);
  if (!m) {
    tfc_rpc_reply(call, &s, NULL);
    free(rc);
    tfc_status_fini(&s);
    return;
  }
  rc->w = w;
  rc->call = call;
  rc->rq = (Tensorflow__RunGraphRequest *)m;
  rc->step_id = rc->rq->step_id;
  int64_t deadline = tfc_rpc_call_deadline_us(call);
  if (rc->rq->timeout_in_ms > 0) {
    int64_t d = tfc_deadline_after_ms(rc->rq->timeout_in_ms);
    if (deadline == 0 || d < deadline) deadline = d;
  }
  /* A cancelled call aborts the step; cancelled already: the step starts aborted. */
  if (tfc_rpc_call_on_cancel(call, run_cancelled, rc) == 1) run_cancelled(rc);
  tfc_worker_run_graph(w, rc->rq->graph_handle, rc->step_id, rc->feeds.tensors, rc->feeds.n, deadline, 1, run_done,
                       rc);
  tfc_status_fini(&s);
}

/* ---- RecvTensor ----
 *
 * No thread waits for the tensor: the handler (inline, on the RPC layer's completion-queue
 * thread) registers the wait and returns, and the reply comes from whoever sends the tensor
 * or aborts the step. A call whose client goes away is
 * answered at once (tfc_worker_recv_cancel), so abandoned calls hold neither a thread nor
 * their memory. The call's state is shared by the handler and the answer (a count of two). */

typedef struct recv_call {
  tfc_worker *w;
  tfc_rpc_call *call;
  int64_t step_id;
  pthread_mutex_t mu;
  int refs;      /* the handler's and the answer's */
  int cancelled; /* the cancel callback ran */
} recv_call;

static void recv_call_unref(recv_call *rc) {
  pthread_mutex_lock(&rc->mu);
  int last = --rc->refs == 0;
  pthread_mutex_unlock(&rc->mu);
  if (!last) return;
  pthread_mutex_destroy(&rc->mu);
  free(rc);
}

static void recv_ready(void *arg, const tfc_status *st, tfc_tensor *t, int is_dead) {
  recv_call *rc = arg;
  tfc_status s;
  tfc_status_init(&s);
  tfc_status_set(&s, st->code, "%s", tfc_status_msg(st));
  tfc_msg_out *m = NULL;
  if (tfc_status_ok(&s)) {
    m = tfc_msg_out_new();
    if (!m) TFC_OOM(&s);
    else if (tfc_wire_put_tensor(m, 1, t, &s) == TFC_OK && is_dead)
      tfc_wire_put_varint(m, 2, 1, &s);
    if (!tfc_status_ok(&s)) {
      tfc_msg_out_free(m);
      m = NULL;
    }
  }
  tfc_tensor_unref(t);
  tfc_rpc_reply(rc->call, &s, m);
  tfc_status_fini(&s);
  recv_call_unref(rc);
}

/* The client went away (a gRPC thread; the reply has not begun, so rc lives). */
static void recv_cancelled(void *arg) {
  recv_call *rc = arg;
  pthread_mutex_lock(&rc->mu);
  rc->cancelled = 1;
  pthread_mutex_unlock(&rc->mu);
  tfc_worker_recv_cancel(rc->w, rc->step_id, rc);
}

static void recv_tensor(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_worker *w = arg;
  Tensorflow__RecvTensorRequest *rq =
      (Tensorflow__RecvTensorRequest *)tfc_service_decode(call, req, &tensorflow__recv_tensor_request__descriptor);
  if (!rq) return;
  char *key = tfc_strdup(rq->rendezvous_key ? rq->rendezvous_key : "");
  int64_t step = rq->step_id;
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  recv_call *rc = key ? calloc(1, sizeof *rc) : NULL;
  if (!rc) {
    tfc_status s;
    tfc_status_init(&s);
    TFC_OOM(&s);
    tfc_rpc_reply(call, &s, NULL);
    tfc_status_fini(&s);
    free(key);
    return;
  }
  rc->w = w;
  rc->call = call;
  rc->step_id = step;
  rc->refs = 2;
  pthread_mutex_init(&rc->mu, NULL);
  if (tfc_rpc_call_on_cancel(call, recv_cancelled, rc) == 1) {
    /* Gone already: nothing to wait for (and no step to create for it). */
    tfc_status s;
    tfc_status_init(&s);
    tfc_status_set(&s, TFC_CANCELLED, "RecvTensor of step %lld on %s was cancelled: its receiver went away",
                   (long long)step, tfc_worker_task(w));
    recv_ready(rc, &s, NULL, 0);
    tfc_status_fini(&s);
  } else {
    tfc_worker_recv_tensor(w, step, key, recv_ready, rc);
    /* Cancelled before the wait began: the callback found nothing to answer. */
    pthread_mutex_lock(&rc->mu);
    int cancelled = rc->cancelled;
    pthread_mutex_unlock(&rc->mu);
    if (cancelled) tfc_worker_recv_cancel(w, step, rc);
  }
  recv_call_unref(rc);
  free(key);
}

int tfc_worker_service_add(tfc_rpc_server *srv, tfc_worker *w, tfc_status *s) {
  static const struct {
    const char *method;
    tfc_rpc_handler fn;
  } methods[] = {
      {"/tensorflow.WorkerService/GetStatus", get_status},
      {"/tensorflow.WorkerService/RegisterGraph", register_graph},
      {"/tensorflow.WorkerService/DeregisterGraph", deregister_graph},
      {"/tensorflow.WorkerService/RunGraph", run_graph},
      {"/tensorflow.WorkerService/CleanupGraph", cleanup_graph},
      {"/tensorflow.WorkerService/CleanupAll", cleanup_all},
  };
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    TFC_TRY(tfc_rpc_server_add_method(srv, methods[i].method, methods[i].fn, w, s));
  /* RecvTensor never blocks (it registers its wait): no handler thread for it. */
  return tfc_rpc_server_add_inline_method(srv, "/tensorflow.WorkerService/RecvTensor", recv_tensor, w, s);
}
