/*
 * services — what the master and worker services' handlers share: decoding a plain request
 * and replying with a protobuf-c message. See services.h.
 */
#include "distributed_runtime/services.h"

#include "distributed_runtime/wire.h"

ProtobufCMessage *tfc_service_decode(tfc_rpc_call *call, tfc_msg_in *req, const ProtobufCMessageDescriptor *desc) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_wire_tensors none;
  tfc_wire_tensors_init(&none);
  ProtobufCMessage *m = NULL;
  tfc_wire_get_message(req, desc, 0, 0, desc->short_name, &m, &none, &s);
  tfc_wire_tensors_fini(&none);
  tfc_msg_in_free(req);
  if (!m) tfc_rpc_reply(call, &s, NULL);
  tfc_status_fini(&s);
  return m;
}

void tfc_service_reply(tfc_rpc_call *call, const ProtobufCMessage *resp, tfc_status *s) {
  tfc_msg_out *m = NULL;
  if (tfc_status_ok(s)) {
    m = tfc_msg_out_new();
    if (!m) TFC_OOM(s);
    else if (tfc_wire_put_message(m, resp, s)) {
      tfc_msg_out_free(m);
      m = NULL;
    }
  }
  tfc_rpc_reply(call, s, m);
}
