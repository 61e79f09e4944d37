/*
 * capi/session — TF_SessionOptions, TF_Session, TF_SessionRun and device lists: argument
 * checks and translation to session/session.h; TFC_SessionRunWithCancellation and its
 * TFC_CancellationManager (a base/cancel.h manager) for runs another thread may stop.
 * A run given a run_metadata buffer fills it with the serialized RunMetadata (as TF: an empty
 * message when nothing was asked for; a buffer that already holds data is INVALID_ARGUMENT),
 * step_stats under RunOptions.trace_level and partition_graphs under output_partition_graphs
 * (session/run_metadata.h); a distributed session's is empty.
 */
#include <stdlib.h>
#include <string.h>

#include "base/cancel.h"
#include "base/mem.h"
#include "capi/capi_internal.h"
#include "distributed_runtime/grpc_session.h"
#include "session/session.h"
#include "tfc/tfc.h"

/* A session runs in process (sess) or on a cluster through its master (remote: the target is
 * grpc://host:port); exactly one of the two is set. */
struct TF_Session {
  tfc_session *sess;
  tfc_grpc_session *remote;
  TF_Graph *graph;
};

tfc_session *tfc_capi_session(TF_Session *s) { return s ? s->sess : NULL; }
TF_Graph *tfc_capi_session_graph(TF_Session *s) { return s ? s->graph : NULL; }

static int in_process_only(TF_Session *ts, const char *fn, tfc_status *s) {
  if (ts->sess) return 0;
  tfc_status_set(s, TFC_UNIMPLEMENTED, "%s: not available for a distributed session", fn);
  return 1;
}

typedef struct device_entry {
  char *name;
  char *type;
  int64_t memory;
  uint64_t incarnation;
} device_entry;

struct TF_DeviceList {
  int n;
  device_entry *devices;
};

/* ---------------- options ---------------- */

TFC_EXPORT TF_SessionOptions *TF_NewSessionOptions(void) {
  TF_SessionOptions *o = calloc(1, sizeof *o);
  if (!o) return NULL;
  tfc_session_config_init(&o->config);
  o->target = tfc_strdup("");
  if (!o->target) {
    free(o);
    return NULL;
  }
  return o;
}

TFC_EXPORT void TF_DeleteSessionOptions(TF_SessionOptions *o) {
  if (!o) return;
  tfc_session_config_fini(&o->config);
  free(o->target);
  free(o);
}

TFC_EXPORT void TF_SetTarget(TF_SessionOptions *o, const char *target) {
  char *t = tfc_strdup(target ? target : "");
  if (!t) return;
  free(o->target);
  o->target = t;
}

TFC_EXPORT void TF_SetConfig(TF_SessionOptions *o, const void *proto, size_t proto_len, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  tfc_session_config_parse(&o->config, proto, proto_len, s);
  tfc_status_fini(&local);
}

/* ---------------- sessions ---------------- */

TFC_EXPORT TF_Session *TF_NewSession(TF_Graph *graph, const TF_SessionOptions *opts, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!graph) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewSession: graph is NULL");
    return NULL;
  }
  const char *target = opts && opts->target ? opts->target : "";
  if (target[0] && strcmp(target, "local") != 0 && strncmp(target, "grpc://", 7) != 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "session target '%s': expected \"\" (in process) or grpc://host:port",
                   target);
    return NULL;
  }
  TF_Session *ts = calloc(1, sizeof *ts);
  if (!ts) {
    TFC_OOM(s);
    return NULL;
  }
  if (strncmp(target, "grpc://", 7) == 0)
    ts->remote = tfc_grpc_session_new(target, graph->g, opts ? &opts->config : NULL, s);
  else
    ts->sess = tfc_session_new(graph->g, opts ? &opts->config : NULL, s);
  if (!ts->sess && !ts->remote) {
    free(ts);
    return NULL;
  }
  ts->graph = graph;
  tfc_capi_graph_retain(graph);
  return ts;
}

TFC_EXPORT void TF_CloseSession(TF_Session *ts, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (ts && ts->sess) tfc_session_close(ts->sess, s);
  if (ts && ts->remote) tfc_grpc_session_close(ts->remote, s);
}

TFC_EXPORT void TF_DeleteSession(TF_Session *ts, TF_Status *status) {
  tfc_capi_status(status);
  if (!ts) return;
  tfc_session_free(ts->sess);
  tfc_grpc_session_free(ts->remote);
  tfc_capi_graph_release(ts->graph);
  free(ts);
}

/* TF_SessionRun, cancellable through `cancel` when not NULL. */
static void session_run(TF_Session *ts, const TF_Buffer *run_options, const TF_Output *inputs,
                        TF_Tensor *const *input_values, int ninputs, const TF_Output *outputs,
                        TF_Tensor **output_values, int noutputs, const TF_Operation *const *target_opers,
                        int ntargets, TF_Buffer *run_metadata, tfc_cancel *cancel, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  for (int i = 0; i < noutputs; i++) output_values[i] = NULL;
  tfc_run_options ro;
  if (!ts || ninputs < 0 || noutputs < 0 || ntargets < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SessionRun: invalid arguments");
    tfc_status_fini(&local);
    return;
  }
  if (tfc_run_options_parse(&ro, run_options ? run_options->data : NULL, run_options ? run_options->length : 0,
                            s)) {
    tfc_status_fini(&local);
    return;
  }
  ro.cancel = cancel;
  void *md = NULL;
  size_t md_len = 0;
  if (run_metadata) {
    if (tfc_capi_check_out_buffer(run_metadata, s)) {
      tfc_status_fini(&local);
      return;
    }
    ro.metadata = &md;
    ro.metadata_len = &md_len;
  }
  tfc_endpoint *feed_eps = calloc((size_t)ninputs + 1, sizeof *feed_eps);
  tfc_endpoint *fetch_eps = calloc((size_t)noutputs + 1, sizeof *fetch_eps);
  tfc_tensor **feeds = calloc((size_t)ninputs + 1, sizeof *feeds);
  tfc_tensor **outs = calloc((size_t)noutputs + 1, sizeof *outs);
  tfc_node **targets = calloc((size_t)ntargets + 1, sizeof *targets);
  if (!feed_eps || !fetch_eps || !feeds || !outs || !targets) {
    TFC_OOM(s);
    goto done;
  }
  for (int i = 0; i < ninputs; i++) {
    feed_eps[i] = tfc_capi_endpoint(inputs[i]);
    if (!input_values[i]) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SessionRun: input value %d is NULL", i);
      goto done;
    }
    feeds[i] = tfc_capi_tensor_in(input_values[i], s);
    if (!feeds[i]) goto done;
  }
  for (int i = 0; i < noutputs; i++) fetch_eps[i] = tfc_capi_endpoint(outputs[i]);
  for (int i = 0; i < ntargets; i++) targets[i] = tfc_capi_node(target_opers[i]);
  int rc = ts->sess ? tfc_session_run(ts->sess, &ro, feed_eps, feeds, ninputs, fetch_eps, outs, noutputs, targets,
                                       ntargets, s)
                    : tfc_grpc_session_run(ts->remote, &ro, feed_eps, feeds, ninputs, fetch_eps, outs, noutputs,
                                           targets, ntargets, s);
  if (rc == TFC_OK && run_metadata) {
    /* A distributed run records nothing yet: its RunMetadata is empty. */
    if (!md && !(md = malloc(1))) rc = TFC_OOM(s);
    else rc = tfc_capi_fill_buffer(run_metadata, md, md_len, s);
    md = NULL;
  }
  if (rc == TFC_OK) {
    for (int i = 0; i < noutputs; i++) {
      output_values[i] = tfc_capi_tensor_out(outs[i], s);
      if (!output_values[i]) {
        for (int j = 0; j < i; j++) {
          TF_DeleteTensor(output_values[j]);
          output_values[j] = NULL;
        }
        break;
      }
    }
  }
done:
  if (feeds)
    for (int i = 0; i < ninputs; i++) tfc_tensor_unref(feeds[i]);
  if (outs)
    for (int i = 0; i < noutputs; i++) tfc_tensor_unref(outs[i]);
  free(feed_eps);
  free(fetch_eps);
  free(feeds);
  free(outs);
  free(targets);
  free(md);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_SessionRun(TF_Session *ts, const TF_Buffer *run_options, const TF_Output *inputs,
                              TF_Tensor *const *input_values, int ninputs, const TF_Output *outputs,
                              TF_Tensor **output_values, int noutputs, const TF_Operation *const *target_opers,
                              int ntargets, TF_Buffer *run_metadata, TF_Status *status) {
  session_run(ts, run_options, inputs, input_values, ninputs, outputs, output_values, noutputs, target_opers,
              ntargets, run_metadata, NULL, status);
}

struct TFC_CancellationManager {
  tfc_cancel *c;
};

TFC_EXPORT TFC_CancellationManager *TFC_NewCancellationManager(void) {
  TFC_CancellationManager *m = malloc(sizeof *m);
  if (!m) return NULL;
  if (!(m->c = tfc_cancel_new())) {
    free(m);
    return NULL;
  }
  return m;
}

TFC_EXPORT void TFC_DeleteCancellationManager(TFC_CancellationManager *m) {
  if (!m) return;
  tfc_cancel_free(m->c);
  free(m);
}

TFC_EXPORT void TFC_CancellationManagerStartCancel(TFC_CancellationManager *m) {
  if (m) tfc_cancel_start(m->c);
}

TFC_EXPORT unsigned char TFC_CancellationManagerIsCancelled(TFC_CancellationManager *m) {
  return m && tfc_cancel_is_cancelled(m->c) ? 1 : 0;
}

TFC_EXPORT void TFC_SessionRunWithCancellation(TF_Session *ts, const TF_Buffer *run_options, const TF_Output *inputs,
                                               TF_Tensor *const *input_values, int ninputs,
                                               const TF_Output *outputs, TF_Tensor **output_values, int noutputs,
                                               const TF_Operation *const *target_opers, int ntargets,
                                               TF_Buffer *run_metadata, TFC_CancellationManager *cancel,
                                               TF_Status *status) {
  session_run(ts, run_options, inputs, input_values, ninputs, outputs, output_values, noutputs, target_opers,
              ntargets, run_metadata, cancel ? cancel->c : NULL, status);
}

TFC_EXPORT void TF_SessionPRunSetup(TF_Session *ts, const TF_Output *inputs, int ninputs, const TF_Output *outputs,
                                    int noutputs, const TF_Operation *const *target_opers, int ntargets,
                                    const char **handle, TF_Status *status) {
  (void)ts, (void)inputs, (void)ninputs, (void)outputs, (void)noutputs, (void)target_opers, (void)ntargets;
  if (handle) *handle = NULL;
  tfc_status_set(tfc_capi_status(status), TFC_UNIMPLEMENTED, "partial runs (TF_SessionPRunSetup) are not supported");
}

TFC_EXPORT void TF_SessionPRun(TF_Session *ts, const char *handle, const TF_Output *inputs,
                               TF_Tensor *const *input_values, int ninputs, const TF_Output *outputs,
                               TF_Tensor **output_values, int noutputs, const TF_Operation *const *target_opers,
                               int ntargets, TF_Status *status) {
  (void)ts, (void)handle, (void)inputs, (void)input_values, (void)ninputs, (void)outputs, (void)target_opers,
      (void)ntargets;
  for (int i = 0; i < noutputs; i++) output_values[i] = NULL;
  tfc_status_set(tfc_capi_status(status), TFC_UNIMPLEMENTED, "partial runs (TF_SessionPRun) are not supported");
}

TFC_EXPORT void TF_DeletePRunHandle(const char *handle) { free((char *)handle); }

/* ---------------- devices ---------------- */

TFC_EXPORT TF_DeviceList *TF_SessionListDevices(TF_Session *ts, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!ts) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_SessionListDevices: session is NULL");
    return NULL;
  }
  TF_DeviceList *l = calloc(1, sizeof *l);
  tfc_master_device *remote = NULL;
  int n = 0;
  if (ts->remote) {
    if (tfc_grpc_session_list_devices(ts->remote, &remote, &n, s)) {
      free(l);
      return NULL;
    }
  } else {
    n = tfc_session_num_devices(ts->sess);
  }
  if (l) l->devices = calloc((size_t)n + 1, sizeof *l->devices);
  if (!l || !l->devices) {
    free(l);
    tfc_master_devices_free(remote, n);
    TFC_OOM(s);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    const char *name, *type;
    if (remote) {
      name = remote[i].name;
      type = remote[i].type;
      l->devices[i].memory = remote[i].memory_bytes;
      l->devices[i].incarnation = remote[i].incarnation;
    } else {
      const tfc_device *d = tfc_session_device(ts->sess, i);
      name = d->name;
      type = d->type;
      l->devices[i].memory = d->memory_bytes;
      l->devices[i].incarnation = d->incarnation;
    }
    l->devices[i].name = tfc_strdup(name);
    l->devices[i].type = tfc_strdup(type);
    l->n++;
    if (!l->devices[i].name || !l->devices[i].type) {
      TF_DeleteDeviceList(l);
      tfc_master_devices_free(remote, n);
      TFC_OOM(s);
      return NULL;
    }
  }
  tfc_master_devices_free(remote, n);
  return l;
}

TFC_EXPORT void TF_DeleteDeviceList(TF_DeviceList *l) {
  if (!l) return;
  for (int i = 0; i < l->n; i++) {
    free(l->devices[i].name);
    free(l->devices[i].type);
  }
  free(l->devices);
  free(l);
}

TFC_EXPORT int TF_DeviceListCount(const TF_DeviceList *l) { return l ? l->n : 0; }

static const device_entry *entry(const TF_DeviceList *l, int index, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!l || index < 0 || index >= l->n) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Index out of bounds (%d) in the device list of size %d", index,
                   l ? l->n : 0);
    return NULL;
  }
  return &l->devices[index];
}

TFC_EXPORT const char *TF_DeviceListName(const TF_DeviceList *l, int index, TF_Status *status) {
  const device_entry *e = entry(l, index, status);
  return e ? e->name : NULL;
}

TFC_EXPORT const char *TF_DeviceListType(const TF_DeviceList *l, int index, TF_Status *status) {
  const device_entry *e = entry(l, index, status);
  return e ? e->type : NULL;
}

TFC_EXPORT int64_t TF_DeviceListMemoryBytes(const TF_DeviceList *l, int index, TF_Status *status) {
  const device_entry *e = entry(l, index, status);
  return e ? e->memory : -1;
}

TFC_EXPORT uint64_t TF_DeviceListIncarnation(const TF_DeviceList *l, int index, TF_Status *status) {
  const device_entry *e = entry(l, index, status);
  return e ? e->incarnation : 0;
}

/* ---------------- tfc additions (include/tfc/tfc.h) ---------------- */

TFC_EXPORT void TFC_SetDeviceCount(TF_SessionOptions *o, const char *type, int count, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_session_config *c = &o->config;
  if (!type || strlen(type) >= sizeof c->device_counts[0].type || count < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SetDeviceCount: invalid device type or count");
    return;
  }
  for (int i = 0; i < c->n_device_counts; i++)
    if (strcmp(c->device_counts[i].type, type) == 0) {
      c->device_counts[i].count = count;
      return;
    }
  if (c->n_device_counts == TFC_CONFIG_MAX_DEVICE_TYPES) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SetDeviceCount: at most %d device types",
                   TFC_CONFIG_MAX_DEVICE_TYPES);
    return;
  }
  tfc_device_count *dc = &c->device_counts[c->n_device_counts++];
  strcpy(dc->type, type);
  dc->count = count;
}

TFC_EXPORT void TFC_SetThreads(TF_SessionOptions *o, int intra_op, int inter_op) {
  o->config.intra_op_parallelism_threads = intra_op > 0 ? intra_op : 0;
  o->config.inter_op_parallelism_threads = inter_op > 0 ? inter_op : 0;
}

TFC_EXPORT void TFC_SetAllowSoftPlacement(TF_SessionOptions *o, unsigned char enable) {
  o->config.allow_soft_placement = enable != 0;
}

TFC_EXPORT void TFC_SetLogDevicePlacement(TF_SessionOptions *o, unsigned char enable) {
  o->config.log_device_placement = enable != 0;
}

TFC_EXPORT void TFC_SetLogPlacementReasons(TF_SessionOptions *o, unsigned char enable) {
  o->config.log_placement_reasons = enable != 0;
  if (enable) o->config.log_device_placement = 1;
}

TFC_EXPORT void TFC_SetOperationTimeout(TF_SessionOptions *o, int64_t timeout_ms) {
  o->config.operation_timeout_in_ms = timeout_ms > 0 ? timeout_ms : 0;
}

TFC_EXPORT const char *TFC_SessionOperationDevice(TF_Session *ts, TF_Operation *oper, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!ts || !oper) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SessionOperationDevice: NULL argument");
    return NULL;
  }
  if (in_process_only(ts, "TFC_SessionOperationDevice", s)) return NULL;
  const tfc_device *d = tfc_session_node_device(ts->sess, tfc_capi_node(oper), NULL);
  if (!d) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "operation '%s' has not been placed yet: run the session first",
                   tfc_capi_node(oper)->name);
    return NULL;
  }
  return d->name;
}

TFC_EXPORT const char *TFC_SessionOperationPlacementReason(TF_Session *ts, TF_Operation *oper, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!ts || !oper) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SessionOperationPlacementReason: NULL argument");
    return NULL;
  }
  if (in_process_only(ts, "TFC_SessionOperationPlacementReason", s)) return NULL;
  const char *reason = NULL;
  if (!tfc_session_node_device(ts->sess, tfc_capi_node(oper), &reason)) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "operation '%s' has not been placed yet: run the session first",
                   tfc_capi_node(oper)->name);
    return NULL;
  }
  return reason ? reason : "";
}

TFC_EXPORT void TFC_SessionDeviceMemory(TF_Session *ts, const char *device, int64_t *bytes_in_use,
                                        int64_t *peak_bytes_in_use, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!ts || !device) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SessionDeviceMemory: NULL argument");
    return;
  }
  if (in_process_only(ts, "TFC_SessionDeviceMemory", s)) return;
  for (int i = 0; i < tfc_session_num_devices(ts->sess); i++) {
    const tfc_device *d = tfc_session_device(ts->sess, i);
    if (strcmp(d->name, device) != 0) continue;
    tfc_allocator_stats st = tfc_allocator_get_stats(d->allocator);
    if (bytes_in_use) *bytes_in_use = st.bytes_in_use;
    if (peak_bytes_in_use) *peak_bytes_in_use = st.peak_bytes_in_use;
    return;
  }
  tfc_status_set(s, TFC_NOT_FOUND, "no device named '%s' in this session", device);
}
