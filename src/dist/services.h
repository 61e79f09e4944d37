/*
 * services — the gRPC services of a server: TF's WorkerService and MasterService method
 * handlers, registered on an RPC server (dist/rpc.h). Method names and messages are TF's
 * (/tensorflow.WorkerService/RunGraph, ...; src/proto/tensorflow/worker.proto, master.proto);
 * docs/PROTOCOL.md describes them.
 *
 * Every request is decoded defensively: a malformed payload is INVALID_ARGUMENT naming the
 * message, never a crash. The worker and master are borrowed and must outlive the server's
 * shutdown.
 */
#ifndef TFC_DIST_SERVICES_H
#define TFC_DIST_SERVICES_H

#include "dist/master.h"
#include "dist/rpc.h"
#include "dist/worker.h"

/* Registers GetStatus, RegisterGraph, DeregisterGraph, RunGraph, RecvTensor, CleanupGraph and
 * CleanupAll (before the server starts). */
int tfc_worker_service_add(tfc_rpc_server *srv, tfc_worker *w, tfc_status *s);
/* Registers CreateSession, ExtendSession, RunStep, CloseSession, ListDevices and Reset. */
int tfc_master_service_add(tfc_rpc_server *srv, tfc_master *m, tfc_status *s);

#endif
