/*
 * capi/server — TF_NewServer and friends (c_api.h "In-process TensorFlow server"): argument
 * checks over distributed_runtime/server.h; TFC_SetGrpcTLS (include/tfc/server.h) over the
 * gRPC layer's TLS setting (distributed_runtime/rpc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "distributed_runtime/grpc_session.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/server.h"
#include "tfc/server.h"
#include "tfc/tfc.h"

struct TF_Server {
  tfc_server *srv;
};

TFC_EXPORT TF_Server *TF_NewServer(const void *proto, size_t proto_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!proto && proto_len) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewServer: proto is NULL");
    return NULL;
  }
  TF_Server *ts = calloc(1, sizeof *ts);
  if (!ts) {
    TFC_OOM(s);
    return NULL;
  }
  ts->srv = tfc_server_new(proto ? proto : "", proto_len, s);
  if (!ts->srv) {
    free(ts);
    return NULL;
  }
  return ts;
}

TFC_EXPORT void TF_ServerStart(TF_Server *server, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!server) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ServerStart: server is NULL");
  else tfc_server_start(server->srv, s);
}

TFC_EXPORT void TF_ServerStop(TF_Server *server, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!server) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ServerStop: server is NULL");
  else tfc_server_stop(server->srv, s);
}

TFC_EXPORT void TF_ServerJoin(TF_Server *server, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!server) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ServerJoin: server is NULL");
  else tfc_server_join(server->srv, s);
}

TFC_EXPORT const char *TF_ServerTarget(TF_Server *server) { return server ? tfc_server_target(server->srv) : NULL; }

TFC_EXPORT void TF_DeleteServer(TF_Server *server) {
  if (!server) return;
  tfc_server_free(server->srv);
  free(server);
}

/* The deprecated session API's Reset, for a cluster: closes the master's sessions and clears
 * the containers on every task. An in-process target has no state outside its sessions. */
TFC_EXPORT void TF_Reset(const TF_SessionOptions *opt, const char **containers, int ncontainers, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const char *target = opt && opt->target ? opt->target : "";
  if (ncontainers < 0 || (ncontainers > 0 && !containers)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_Reset: invalid containers");
    return;
  }
  if (strncmp(target, "grpc://", 7) != 0) {
    tfc_status_set(s, TFC_UNIMPLEMENTED,
                   "TF_Reset: target '%s': only grpc:// targets keep resources outside their sessions in tfc; "
                   "an in-process session's resources go when it is deleted",
                   target);
    return;
  }
  tfc_grpc_reset(target, (char *const *)containers, ncontainers, s);
}

TFC_EXPORT void TFC_SetGrpcTLS(const char *ca_file, const char *cert_file, const char *key_file, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  tfc_rpc_tls_set(ca_file, cert_file, key_file, s);
  tfc_status_fini(&scratch);
}
