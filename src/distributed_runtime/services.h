/*
 * services — the gRPC services of a server: TF's WorkerService and MasterService method
 * handlers, registered on an RPC server (distributed_runtime/rpc.h). Method names and messages are TF's
 * (/tensorflow.WorkerService/RunGraph, ...; src/proto/tensorflow/worker.proto, master.proto);
 * docs/PROTOCOL.md describes them.
 *
 * Every request is decoded defensively: a malformed payload is INVALID_ARGUMENT naming the
 * message, never a crash. The worker and master are borrowed and must outlive the server's
 * shutdown.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_SERVICES_H
#define TFC_DISTRIBUTED_RUNTIME_SERVICES_H

#include <protobuf-c/protobuf-c.h>

#include "distributed_runtime/master.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/worker.h"

/* Registers GetStatus, RegisterGraph, DeregisterGraph, RunGraph, RecvTensor, CleanupGraph and
 * CleanupAll (before the server starts). */
int tfc_worker_service_add(tfc_rpc_server *srv, tfc_worker *w, tfc_status *s);
/* Registers CreateSession, ExtendSession, RunStep, CloseSession, ListDevices and Reset. */
int tfc_master_service_add(tfc_rpc_server *srv, tfc_master *m, tfc_status *s);

/* For the handlers: decodes a request that carries no tensors (taking it); when it is
 * malformed, replies INVALID_ARGUMENT and returns NULL. */
ProtobufCMessage *tfc_service_decode(tfc_rpc_call *call, tfc_msg_in *req, const ProtobufCMessageDescriptor *desc);
/* Replies with resp packed, or with the error in s (s may be changed by a packing failure). */
void tfc_service_reply(tfc_rpc_call *call, const ProtobufCMessage *resp, tfc_status *s);

#endif
