/*
 * grpc_session — see grpc_session.h.
 */
#include "distributed_runtime/grpc_session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "base/clock.h"
#include "base/mem.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/wire.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "tensorflow/master.pb-c.h"

/* The master answers a step that hit its deadline a little after the deadline: the call's own
 * deadline leaves it this much room. */
#define ANSWER_MARGIN_MS 5000

struct tfc_grpc_session {
  char *target; /* host:port */
  tfc_graph *graph;
  tfc_session_config cfg;
  tfc_rpc_channel *ch;
  pthread_mutex_t mu; /* handle, version, n_sent, closed */
  char *handle;
  int64_t version;
  int n_sent;
  int closed;
};

tfc_grpc_session *tfc_grpc_session_new(const char *target, tfc_graph *g, const tfc_session_config *cfg, tfc_status *s) {
  if (strncmp(target, "grpc://", 7) != 0 || !target[7]) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "session target '%s' is not of the form grpc://host:port", target);
    return NULL;
  }
  tfc_grpc_session *gs = calloc(1, sizeof *gs);
  if (!gs) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&gs->mu, NULL);
  tfc_session_config_init(&gs->cfg);
  gs->graph = g;
  if (!(gs->target = tfc_strdup(target + 7))) TFC_OOM(s);
  else if (cfg) tfc_session_config_copy(cfg, &gs->cfg, s);
  if (tfc_status_ok(s)) gs->ch = tfc_rpc_channel_new(gs->target, 0, s);
  if (!tfc_status_ok(s)) {
    tfc_grpc_session_free(gs);
    return NULL;
  }
  return gs;
}

/* One master call: request packed by protobuf-c, response unpacked (or left as bytes for the
 * caller when resp_desc is NULL and out_in is given). */
/* UNAVAILABLE says which master. RunStep's own errors come in its response body
 * (store_errors_in_response_body), so a failed RunStep call is always the transport's. */
/* A RunStep that a cancellation manager may stop: while the call is in flight, cancelling
 * the manager cancels the call, and the master aborts the step (master_service.c). */
typedef struct run_watch {
  tfc_cancel *cancel;
  int64_t token;
} run_watch;

static void cancel_rpc(void *pending) { tfc_rpc_cancel(pending); }

static void watch_run(void *arg, tfc_rpc_pending *p) {
  run_watch *w = arg;
  if (p) {
    w->token = tfc_cancel_register(w->cancel, cancel_rpc, p);
    if (w->token == 0) tfc_rpc_cancel(p); /* cancelled as the call started */
  } else {
    tfc_cancel_deregister(w->cancel, w->token);
    w->token = 0;
  }
}

/* A call of the master's `method`; with `cancel` (RunStep), one its manager may stop. */
static int call_master(tfc_grpc_session *gs, const char *method, tfc_msg_in **out, tfc_msg_out *m,
                       int64_t deadline_us, tfc_cancel *cancel, tfc_status *s) {
  char full[96];
  snprintf(full, sizeof full, "/tensorflow.MasterService/%s", method);
  tfc_status err;
  tfc_status_init(&err);
  run_watch w = {cancel, 0};
  if (tfc_rpc_call_sync_watched(gs->ch, full, m, deadline_us, 0, cancel ? watch_run : NULL, &w, out, &err)) {
    if (cancel && tfc_cancel_is_cancelled(cancel) && err.code == TFC_CANCELLED)
      tfc_status_set(s, TFC_CANCELLED, "Run call was cancelled");
    else if (err.code == TFC_UNAVAILABLE && strcmp(method, "RunStep") == 0)
      tfc_status_set(s, err.code, "RunStep to the master at %s failed: %s", gs->target, tfc_status_msg(&err));
    else if (err.code == TFC_UNAVAILABLE)
      tfc_status_set(s, err.code, "%s (master at %s): %s", method, gs->target, tfc_status_msg(&err));
    else
      tfc_status_set(s, err.code, "%s", tfc_status_msg(&err));
  }
  tfc_status_fini(&err);
  return s->code;
}

static int simple_call(tfc_grpc_session *gs, const char *method, const ProtobufCMessage *req,
                       const ProtobufCMessageDescriptor *resp_desc, int64_t deadline_us, ProtobufCMessage **out,
                       tfc_status *s) {
  tfc_msg_out *m = tfc_msg_out_new();
  if (!m) return TFC_OOM(s);
  if (tfc_wire_put_message(m, req, s)) {
    tfc_msg_out_free(m);
    return s->code;
  }
  tfc_msg_in *resp = NULL;
  if (call_master(gs, method, &resp, m, deadline_us, NULL, s) == TFC_OK) {
    tfc_wire_tensors none;
    tfc_wire_tensors_init(&none);
    tfc_wire_get_message(resp, resp_desc, 0, 0, resp_desc->short_name, out, &none, s);
    tfc_wire_tensors_fini(&none);
  }
  tfc_msg_in_free(resp);
  return s->code;
}

/* The session's config as a ConfigProto: the fields tfc acts on. */
static int config_bytes(const tfc_session_config *c, Tensorflow__ConfigProto *p,
                        Tensorflow__ConfigProto__DeviceCountEntry *entries,
                        Tensorflow__ConfigProto__DeviceCountEntry **list) {
  tensorflow__config_proto__init(p);
  for (int i = 0; i < c->n_device_counts; i++) {
    tensorflow__config_proto__device_count_entry__init(&entries[i]);
    entries[i].key = (char *)c->device_counts[i].type;
    entries[i].value = c->device_counts[i].count;
    list[i] = &entries[i];
  }
  p->n_device_count = (size_t)c->n_device_counts;
  p->device_count = list;
  p->intra_op_parallelism_threads = c->intra_op_parallelism_threads;
  p->inter_op_parallelism_threads = c->inter_op_parallelism_threads;
  p->allow_soft_placement = c->allow_soft_placement;
  p->log_device_placement = c->log_device_placement;
  p->operation_timeout_in_ms = c->operation_timeout_in_ms;
  p->n_device_filters = (size_t)c->n_device_filters;
  p->device_filters = c->device_filters;
  return 0;
}

/* After an error from the master for the session `handle`: when it says the master no
 * longer knows the session (it restarted), the next run creates a new one with the whole
 * graph. */
static void forget_lost_session_locked(tfc_grpc_session *gs, const char *handle, const tfc_status *err) {
  if (err->code != TFC_ABORTED || !strstr(tfc_status_msg(err), "Possibly, this master has restarted")) return;
  if (gs->handle && handle && strcmp(gs->handle, handle) == 0) {
    free(gs->handle);
    gs->handle = NULL;
    gs->n_sent = 0;
    gs->version = 0;
  }
}

static void forget_lost_session(tfc_grpc_session *gs, const char *handle, const tfc_status *err) {
  pthread_mutex_lock(&gs->mu);
  forget_lost_session_locked(gs, handle, err);
  pthread_mutex_unlock(&gs->mu);
}

/* Creates the master session, or extends it with the nodes added since (lock held). */
static int sync_graph(tfc_grpc_session *gs, tfc_status *s) {
  int n = tfc_graph_num_nodes(gs->graph);
  if (gs->handle && n == gs->n_sent) return TFC_OK;
  void *gd = NULL;
  size_t len = 0;
  TFC_TRY(tfc_graphdef_export_ex(gs->graph, gs->n_sent, 0, &gd, &len, s));
  Tensorflow__GraphDef *g =
      (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, gd, len, "GraphDef", s);
  free(gd);
  if (!g) return s->code;
  size_t g_nodes = g->n_node; /* nodes added meanwhile go with the next run */
  ProtobufCMessage *resp = NULL;
  if (!gs->handle) {
    Tensorflow__CreateSessionRequest req;
    tensorflow__create_session_request__init(&req);
    Tensorflow__ConfigProto cfg;
    Tensorflow__ConfigProto__DeviceCountEntry entries[TFC_CONFIG_MAX_DEVICE_TYPES];
    Tensorflow__ConfigProto__DeviceCountEntry *list[TFC_CONFIG_MAX_DEVICE_TYPES];
    config_bytes(&gs->cfg, &cfg, entries, list);
    req.graph_def = g;
    req.config = &cfg;
    req.target = gs->target;
    /* The master waits for the cluster's tasks to come up (within operation_timeout_in_ms). */
    if (simple_call(gs, "CreateSession", &req.base, &tensorflow__create_session_response__descriptor, 0, &resp, s) ==
        TFC_OK) {
      Tensorflow__CreateSessionResponse *r = (Tensorflow__CreateSessionResponse *)resp;
      gs->handle = tfc_strdup(r->session_handle ? r->session_handle : "");
      gs->version = r->graph_version;
      if (!gs->handle) TFC_OOM(s);
    }
  } else {
    Tensorflow__ExtendSessionRequest req;
    tensorflow__extend_session_request__init(&req);
    req.session_handle = gs->handle;
    req.graph_def = g;
    req.current_graph_version = gs->version;
    if (simple_call(gs, "ExtendSession", &req.base, &tensorflow__extend_session_response__descriptor,
                    tfc_deadline_after_ms(60000), &resp, s) ==
        TFC_OK)
      gs->version = ((Tensorflow__ExtendSessionResponse *)resp)->new_graph_version;
    else
      forget_lost_session_locked(gs, req.session_handle, s);
  }
  if (resp) protobuf_c_message_free_unpacked(resp, NULL);
  protobuf_c_message_free_unpacked(&g->base, NULL);
  if (tfc_status_ok(s)) gs->n_sent += (int)g_nodes;
  return s->code;
}

static char *output_name(tfc_endpoint e) {
  char *n;
  return asprintf(&n, "%s:%d", e.node->name, e.index) < 0 ? NULL : n;
}

/* TODO(#17): RunMetadata of a distributed step. ro->metadata is left NULL (the C API returns
 * an empty RunMetadata). The pieces exist: the worker would give each partition's executor a
 * tfc_step_stats (exec/step_stats.h) when RunGraphRequest.exec_opts.record_timeline is set and
 * return DeviceStepStats in RunGraphResponse.step_stats (field 2, not yet in worker.proto)
 * and partition_graph under record_partition_graphs; the master would set exec_opts from
 * RunStepRequest.options and merge the responses into RunStepResponse.metadata, which this
 * function would hand back as ro->metadata. */
int tfc_grpc_session_run(tfc_grpc_session *gs, const tfc_run_options *ro, const tfc_endpoint *feed_eps,
                         tfc_tensor *const *feeds, int n_feeds, const tfc_endpoint *fetch_eps, tfc_tensor **out,
                         int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s) {
  for (int i = 0; i < n_fetches; i++) out[i] = NULL;
  pthread_mutex_lock(&gs->mu);
  if (gs->closed) tfc_status_set(s, TFC_FAILED_PRECONDITION, "Session has been closed.");
  else sync_graph(gs, s);
  char *handle = tfc_status_ok(s) ? tfc_strdup(gs->handle) : NULL;
  pthread_mutex_unlock(&gs->mu);
  if (!tfc_status_ok(s)) return s->code;
  if (!handle) return TFC_OOM(s);
  char **fetch_names = calloc((size_t)n_fetches + 1, sizeof *fetch_names);
  char **target_names = calloc((size_t)n_targets + 1, sizeof *target_names);
  Tensorflow__RunOptions opts;
  tensorflow__run_options__init(&opts);
  Tensorflow__RunStepRequest req;
  tensorflow__run_step_request__init(&req);
  tfc_msg_out *m = tfc_msg_out_new();
  tfc_msg_in *resp = NULL;
  if (!fetch_names || !target_names || !m) TFC_OOM(s);
  for (int i = 0; i < n_fetches && tfc_status_ok(s); i++)
    if (!(fetch_names[i] = output_name(fetch_eps[i]))) TFC_OOM(s);
  for (int i = 0; i < n_targets && tfc_status_ok(s); i++) target_names[i] = targets[i]->name;
  int64_t timeout = ro && ro->timeout_in_ms > 0 ? ro->timeout_in_ms : gs->cfg.operation_timeout_in_ms;
  if (tfc_status_ok(s)) {
    req.session_handle = handle;
    req.n_fetch = (size_t)n_fetches;
    req.fetch = fetch_names;
    req.n_target = (size_t)n_targets;
    req.target = target_names;
    req.store_errors_in_response_body = 1;
    if (ro && ro->timeout_in_ms > 0) {
      opts.timeout_in_ms = ro->timeout_in_ms;
      req.options = &opts;
    }
    tfc_wire_put_message(m, &req.base, s);
  }
  for (int i = 0; i < n_feeds && tfc_status_ok(s); i++) {
    char *name = output_name(feed_eps[i]);
    if (!name) TFC_OOM(s);
    else tfc_wire_put_named_tensor(m, 2, name, feeds[i], s);
    free(name);
  }
  if (tfc_status_ok(s)) {
    int64_t deadline = timeout > 0 ? tfc_deadline_after_ms(timeout + ANSWER_MARGIN_MS) : 0;
    if (ro && ro->cancel && tfc_cancel_is_cancelled(ro->cancel)) {
      tfc_msg_out_free(m);
      tfc_status_set(s, TFC_CANCELLED, "Run call was cancelled");
    } else {
      call_master(gs, "RunStep", &resp, m, deadline, ro ? ro->cancel : NULL, s);
    }
    m = NULL;
  }
  if (tfc_status_ok(s)) {
    ProtobufCMessage *pm = NULL;
    tfc_wire_tensors ts;
    tfc_wire_tensors_init(&ts);
    if (tfc_wire_get_message(resp, &tensorflow__run_step_response__descriptor, 1, TFC_WIRE_NAMED_TENSOR,
                             "RunStepResponse", &pm, &ts, s) == TFC_OK) {
      Tensorflow__RunStepResponse *r = (Tensorflow__RunStepResponse *)pm;
      if (r->status_code) tfc_status_set(s, r->status_code, "%s", r->status_error_message);
      /* Matched by name: TF's master may answer in any order. */
      for (int i = 0; i < n_fetches && tfc_status_ok(s); i++) {
        for (int k = 0; k < ts.n && !out[i]; k++)
          if (ts.tensors[k] && ts.names[k] && strcmp(ts.names[k], fetch_names[i]) == 0) {
            out[i] = ts.tensors[k];
            ts.tensors[k] = NULL;
          }
        if (!out[i]) tfc_status_set(s, TFC_INTERNAL, "RunStepResponse has no tensor for fetch %s", fetch_names[i]);
      }
      protobuf_c_message_free_unpacked(pm, NULL);
    }
    tfc_wire_tensors_fini(&ts);
  }
  if (!tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++) {
      tfc_tensor_unref(out[i]);
      out[i] = NULL;
    }
  forget_lost_session(gs, handle, s);
  tfc_msg_in_free(resp);
  tfc_msg_out_free(m);
  for (int i = 0; i < n_fetches && fetch_names; i++) free(fetch_names[i]);
  free(fetch_names);
  free(target_names);
  free(handle);
  return s->code;
}

int tfc_grpc_session_list_devices(tfc_grpc_session *gs, tfc_master_device **out, int *out_n, tfc_status *s) {
  *out = NULL;
  *out_n = 0;
  Tensorflow__ListDevicesRequest req;
  tensorflow__list_devices_request__init(&req);
  pthread_mutex_lock(&gs->mu);
  char *handle = gs->handle ? tfc_strdup(gs->handle) : NULL;
  pthread_mutex_unlock(&gs->mu);
  req.session_handle = handle;
  ProtobufCMessage *pm = NULL;
  if (simple_call(gs, "ListDevices", &req.base, &tensorflow__list_devices_response__descriptor,
                  tfc_deadline_after_ms(gs->cfg.operation_timeout_in_ms), &pm, s) == TFC_OK) {
    Tensorflow__ListDevicesResponse *r = (Tensorflow__ListDevicesResponse *)pm;
    size_t n = r->n_local_device + r->n_remote_device;
    tfc_master_device *d = calloc(n + 1, sizeof *d);
    if (!d) TFC_OOM(s);
    for (size_t i = 0; i < n && tfc_status_ok(s); i++) {
      const Tensorflow__DeviceAttributes *a =
          i < r->n_local_device ? r->local_device[i] : r->remote_device[i - r->n_local_device];
      if (!(d[i].name = tfc_strdup(a->name ? a->name : ""))) TFC_OOM(s);
      snprintf(d[i].type, sizeof d[i].type, "%s", a->device_type ? a->device_type : "");
      d[i].memory_bytes = a->memory_limit;
      d[i].incarnation = a->incarnation;
      d[i].local = i < r->n_local_device;
      (*out_n)++;
    }
    *out = d;
    if (!tfc_status_ok(s)) {
      tfc_master_devices_free(d, *out_n);
      *out = NULL;
      *out_n = 0;
    }
    protobuf_c_message_free_unpacked(pm, NULL);
  }
  free(handle);
  return s->code;
}

int tfc_grpc_session_close(tfc_grpc_session *gs, tfc_status *s) {
  pthread_mutex_lock(&gs->mu);
  char *handle = gs->closed ? NULL : gs->handle;
  gs->closed = 1;
  gs->handle = NULL;
  pthread_mutex_unlock(&gs->mu);
  if (!handle) return TFC_OK;
  Tensorflow__CloseSessionRequest req;
  tensorflow__close_session_request__init(&req);
  req.session_handle = handle;
  ProtobufCMessage *pm = NULL;
  simple_call(gs, "CloseSession", &req.base, &tensorflow__close_session_response__descriptor,
              tfc_deadline_after_ms(10000), &pm, s);
  if (pm) protobuf_c_message_free_unpacked(pm, NULL);
  free(handle);
  return s->code;
}

void tfc_grpc_session_free(tfc_grpc_session *gs) {
  if (!gs) return;
  tfc_status ignore;
  tfc_status_init(&ignore);
  if (gs->ch) tfc_grpc_session_close(gs, &ignore);
  tfc_status_fini(&ignore);
  free(gs->handle);
  tfc_rpc_channel_free(gs->ch);
  free(gs->target);
  tfc_session_config_fini(&gs->cfg);
  pthread_mutex_destroy(&gs->mu);
  free(gs);
}

int tfc_grpc_reset(const char *target, char *const *containers, int n, tfc_status *s) {
  tfc_grpc_session *gs = tfc_grpc_session_new(target, NULL, NULL, s);
  if (!gs) return s->code;
  Tensorflow__ResetRequest req;
  tensorflow__reset_request__init(&req);
  req.n_container = (size_t)n;
  req.container = (char **)containers;
  ProtobufCMessage *pm = NULL;
  simple_call(gs, "Reset", &req.base, &tensorflow__reset_response__descriptor, tfc_deadline_after_ms(60000), &pm, s);
  if (pm) protobuf_c_message_free_unpacked(pm, NULL);
  tfc_grpc_session_free(gs);
  return s->code;
}
