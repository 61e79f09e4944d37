/*
 * server — one task of a cluster (TF's GrpcServer): a gRPC server carrying the task's worker
 * and master services, built from a ServerDef.
 *
 * The ServerDef's cluster names every task's "host:port"; job_name and task_index say which
 * one this is. The server listens on its own entry's port (ServerDef.port wins when set; port
 * 0 picks a free one, and the cluster entry is updated to it so the task can reach itself).
 * It binds 127.0.0.1 when its host is localhost or 127.0.0.1, [::1] for ::1, and every
 * interface otherwise. Channels to the other tasks are made on first use and kept.
 *
 * The worker's devices come from ServerDef.default_session_config (device_count, threads); so
 * does every session's config, under what the session itself asks. Messages of up to 2 GiB
 * travel each way (a 120 MB feed is fine).
 *
 * Lifecycle (TF_NewServer ... TF_DeleteServer): new parses and builds everything but serves
 * nothing; start binds and serves; stop shuts the services down, cancelling calls in flight
 * and closing the master's sessions (TF 1.15 could not stop a server; tfc can); join blocks
 * until stop; free stops first. Errors: INVALID_ARGUMENT for a bad ServerDef (naming the
 * field: an unknown job or task, a malformed address), UNIMPLEMENTED for a protocol other
 * than "grpc", UNKNOWN "Could not start gRPC server" when the port is taken.
 *
 * Thread-safety: start, stop, join and target may be called from any thread; free once,
 * after every other call returned.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_SERVER_H
#define TFC_DISTRIBUTED_RUNTIME_SERVER_H

#include <stddef.h>

#include "base/status.h"

typedef struct tfc_server tfc_server;

tfc_server *tfc_server_new(const void *server_def, size_t len, tfc_status *s);
int tfc_server_start(tfc_server *srv, tfc_status *s);
int tfc_server_stop(tfc_server *srv, tfc_status *s);
int tfc_server_join(tfc_server *srv, tfc_status *s);
/* "grpc://localhost:<port>" once started (the configured port before); owned by the server. */
const char *tfc_server_target(tfc_server *srv);
void tfc_server_free(tfc_server *srv); /* NULL is a no-op */
/* What the task holds now (tests, monitoring): RPC calls that arrived and are not over,
 * handler threads running, and steps its worker keeps. Any output may be NULL. */
void tfc_server_load(tfc_server *srv, int *out_calls, int *out_busy, int *out_steps);

#endif
