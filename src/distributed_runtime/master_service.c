/*
 * master_service — /tensorflow.MasterService/<Method> over a tfc_master: decodes requests,
 * calls the master, encodes replies. RunStep blocks its handler thread for the step; a call
 * cancelled meanwhile (the client crashed or gave up) cancels the step on every task.
 */
#include "distributed_runtime/services.h"

#include <stdlib.h>
#include <string.h>

#include "distributed_runtime/wire.h"
#include "proto/pb_util.h"
#include "tensorflow/master.pb-c.h"

/* A sub-message's bytes (re-packed: protobuf-c unpacked it with the request). */
static int repack(const ProtobufCMessage *m, void **out, size_t *len, tfc_status *s) {
  *out = NULL;
  *len = 0;
  return m ? tfc_pb_pack(m, out, len, s) : TFC_OK;
}

/* A call's cancel callback: fires the token its handler passed to the master. */
static void call_cancelled(void *arg) { tfc_master_cancel_fire(arg); }

static void create_session(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  Tensorflow__CreateSessionRequest *rq =
      (Tensorflow__CreateSessionRequest *)tfc_service_decode(call, req, &tensorflow__create_session_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  void *gd = NULL, *cfg = NULL;
  size_t gd_len = 0, cfg_len = 0;
  char *handle = NULL;
  int64_t version = 0;
  /* The wait for the other tasks ends when the client goes away or the server stops. */
  tfc_master_cancel cancel;
  tfc_master_cancel_init(&cancel);
  if (tfc_rpc_call_on_cancel(call, call_cancelled, &cancel) == 1) tfc_master_cancel_fire(&cancel);
  if (repack(rq->graph_def ? &rq->graph_def->base : NULL, &gd, &gd_len, &s) == TFC_OK &&
      repack(rq->config ? &rq->config->base : NULL, &cfg, &cfg_len, &s) == TFC_OK)
    tfc_master_create_session(m, gd, gd_len, cfg, cfg_len, &cancel, &handle, &version, &s);
  Tensorflow__CreateSessionResponse resp;
  tensorflow__create_session_response__init(&resp);
  resp.session_handle = handle;
  resp.graph_version = version;
  tfc_service_reply(call, &resp.base, &s); /* drops the cancellation registration */
  tfc_master_cancel_fini(&cancel);
  free(handle);
  free(gd);
  free(cfg);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

static void extend_session(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  Tensorflow__ExtendSessionRequest *rq =
      (Tensorflow__ExtendSessionRequest *)tfc_service_decode(call, req, &tensorflow__extend_session_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  void *gd = NULL;
  size_t len = 0;
  int64_t version = 0;
  if (repack(rq->graph_def ? &rq->graph_def->base : NULL, &gd, &len, &s) == TFC_OK)
    tfc_master_extend_session(m, rq->session_handle, gd, len, rq->current_graph_version, &version, &s);
  Tensorflow__ExtendSessionResponse resp;
  tensorflow__extend_session_response__init(&resp);
  resp.new_graph_version = version;
  tfc_service_reply(call, &resp.base, &s);
  free(gd);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}


static void run_step(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  tfc_status s;
  tfc_status_init(&s);
  tfc_wire_tensors feeds;
  tfc_wire_tensors_init(&feeds);
  ProtobufCMessage *pm = NULL;
  tfc_wire_get_message(req, &tensorflow__run_step_request__descriptor, 2, TFC_WIRE_NAMED_TENSOR, "RunStepRequest", &pm,
                       &feeds, &s);
  tfc_msg_in_free(req);
  if (!pm) {
    tfc_rpc_reply(call, &s, NULL);
    tfc_status_fini(&s);
    return;
  }
  Tensorflow__RunStepRequest *rq = (Tensorflow__RunStepRequest *)pm;
  int n_fetches = (int)rq->n_fetch;
  tfc_tensor **out = calloc((size_t)n_fetches + 1, sizeof *out);
  tfc_master_cancel cancel;
  tfc_master_cancel_init(&cancel);
  if (!out) TFC_OOM(&s);
  if (tfc_status_ok(&s)) {
    if (tfc_rpc_call_on_cancel(call, call_cancelled, &cancel) == 1) tfc_master_cancel_fire(&cancel);
    int64_t timeout = rq->options ? rq->options->timeout_in_ms : 0;
    tfc_master_run_step(m, rq->session_handle, timeout, feeds.names, feeds.tensors, feeds.n, rq->fetch, n_fetches,
                        rq->target, (int)rq->n_target, &cancel, out, &s);
  }
  tfc_msg_out *msg = NULL;
  /* The client asks for the step's error in the body (TF's store_errors_in_response_body), so
   * an error status on the call itself always means the transport failed. */
  int in_body = rq->store_errors_in_response_body && !tfc_status_ok(&s);
  if (tfc_status_ok(&s) || in_body) {
    Tensorflow__RunStepResponse resp;
    tensorflow__run_step_response__init(&resp);
    if (in_body) {
      resp.status_code = s.code;
      resp.status_error_message = (char *)tfc_status_msg(&s);
    }
    msg = tfc_msg_out_new();
    tfc_status ok;
    tfc_status_init(&ok);
    if (in_body) tfc_status_move(&ok, &s); /* s becomes OK; the error text lives in ok */
    if (!msg) TFC_OOM(&s);
    else tfc_wire_put_message(msg, &resp.base, &s);
    tfc_status_fini(&ok);
    for (int i = 0; i < n_fetches && !in_body && tfc_status_ok(&s); i++)
      tfc_wire_put_named_tensor(msg, 1, rq->fetch[i], out[i], &s);
    if (!tfc_status_ok(&s)) {
      tfc_msg_out_free(msg);
      msg = NULL;
    }
  }
  /* The reply drops the cancellation registration before `cancel` goes away. */
  tfc_rpc_reply(call, &s, msg);
  for (int i = 0; i < n_fetches && out; i++) tfc_tensor_unref(out[i]);
  free(out);
  tfc_master_cancel_fini(&cancel);
  tfc_wire_tensors_fini(&feeds);
  protobuf_c_message_free_unpacked(pm, NULL);
  tfc_status_fini(&s);
}

static void close_session(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  Tensorflow__CloseSessionRequest *rq =
      (Tensorflow__CloseSessionRequest *)tfc_service_decode(call, req, &tensorflow__close_session_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_master_close_session(m, rq->session_handle, &s);
  Tensorflow__CloseSessionResponse resp;
  tensorflow__close_session_response__init(&resp);
  tfc_service_reply(call, &resp.base, &s);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

static void list_devices(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  Tensorflow__ListDevicesRequest *rq =
      (Tensorflow__ListDevicesRequest *)tfc_service_decode(call, req, &tensorflow__list_devices_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_master_device *d = NULL;
  int n = 0;
  tfc_master_cancel cancel;
  tfc_master_cancel_init(&cancel);
  if (tfc_rpc_call_on_cancel(call, call_cancelled, &cancel) == 1) tfc_master_cancel_fire(&cancel);
  tfc_master_list_devices(m, rq->session_handle, &cancel, &d, &n, &s);
  Tensorflow__ListDevicesResponse resp;
  tensorflow__list_devices_response__init(&resp);
  Tensorflow__DeviceAttributes *da = calloc((size_t)n + 1, sizeof *da);
  Tensorflow__DeviceAttributes **local = calloc((size_t)n + 1, sizeof *local);
  Tensorflow__DeviceAttributes **remote = calloc((size_t)n + 1, sizeof *remote);
  if (!da || !local || !remote) TFC_OOM(&s);
  for (int i = 0; i < n && tfc_status_ok(&s); i++) {
    tensorflow__device_attributes__init(&da[i]);
    da[i].name = d[i].name;
    da[i].device_type = d[i].type;
    da[i].memory_limit = d[i].memory_bytes;
    da[i].incarnation = d[i].incarnation;
    if (d[i].local)
      local[resp.n_local_device++] = &da[i];
    else
      remote[resp.n_remote_device++] = &da[i];
  }
  resp.local_device = local;
  resp.remote_device = remote;
  tfc_service_reply(call, &resp.base, &s); /* drops the cancellation registration */
  tfc_master_cancel_fini(&cancel);
  free(da);
  free(local);
  free(remote);
  tfc_master_devices_free(d, n);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

static void reset(void *arg, tfc_rpc_call *call, tfc_msg_in *req) {
  tfc_master *m = arg;
  Tensorflow__ResetRequest *rq =
      (Tensorflow__ResetRequest *)tfc_service_decode(call, req, &tensorflow__reset_request__descriptor);
  if (!rq) return;
  tfc_status s;
  tfc_status_init(&s);
  tfc_master_reset(m, rq->container, (int)rq->n_container, &s);
  Tensorflow__ResetResponse resp;
  tensorflow__reset_response__init(&resp);
  tfc_service_reply(call, &resp.base, &s);
  protobuf_c_message_free_unpacked(&rq->base, NULL);
  tfc_status_fini(&s);
}

int tfc_master_service_add(tfc_rpc_server *srv, tfc_master *m, tfc_status *s) {
  static const struct {
    const char *method;
    tfc_rpc_handler fn;
  } methods[] = {
      {"/tensorflow.MasterService/CreateSession", create_session},
      {"/tensorflow.MasterService/ExtendSession", extend_session},
      {"/tensorflow.MasterService/RunStep", run_step},
      {"/tensorflow.MasterService/CloseSession", close_session},
      {"/tensorflow.MasterService/ListDevices", list_devices},
      {"/tensorflow.MasterService/Reset", reset},
  };
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    TFC_TRY(tfc_rpc_server_add_method(srv, methods[i].method, methods[i].fn, m, s));
  return TFC_OK;
}
