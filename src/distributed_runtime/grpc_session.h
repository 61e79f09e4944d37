/*
 * grpc_session — the client side of a distributed session (TF's GrpcSession): a TF_Session
 * whose target is "grpc://host:port" talks to that server's master.
 *
 * The first run creates the master session with the graph as it stands (CreateSession, with
 * the session's ConfigProto); later runs first send the nodes added since (ExtendSession, the
 * new nodes only). RunStep carries the feeds (NamedTensorProto "node:index", sent from the
 * tensors' buffers), the fetch names and the target names; the fetched tensors come back by
 * name. RunOptions.timeout_in_ms (else the config's operation_timeout_in_ms) bounds the step on
 * the master, and the call itself gets that deadline plus a margin for the master's answer.
 * A master that cannot be reached is UNAVAILABLE naming the target.
 *
 * A master that restarted no longer knows the session: the step fails with its ABORTED
 * "Session <handle> is not found. Possibly, this master has restarted." (TF's), and the next
 * run creates a master session afresh with the whole graph, so a client that retries goes on
 * with the same TF_Session where TF's must create a new one. Variables held by the restarted
 * task are its own business (they read as uninitialized until restored).
 *
 * Ownership: the session borrows the graph (the C API keeps it alive). Thread-safety: runs may
 * come from many threads; graph extension is serialized.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_GRPC_SESSION_H
#define TFC_DISTRIBUTED_RUNTIME_GRPC_SESSION_H

#include "distributed_runtime/master.h"
#include "graph/graph.h"
#include "session/config.h"

typedef struct tfc_grpc_session tfc_grpc_session;

/* target "grpc://host:port" (INVALID_ARGUMENT otherwise); cfg copied. Connects lazily. */
tfc_grpc_session *tfc_grpc_session_new(const char *target, tfc_graph *g, const tfc_session_config *cfg, tfc_status *s);
/* Closes the master session (if one was created) and frees. NULL is a no-op. */
void tfc_grpc_session_free(tfc_grpc_session *gs);
/* CloseSession on the master; later runs fail with FAILED_PRECONDITION. Idempotent. */
int tfc_grpc_session_close(tfc_grpc_session *gs, tfc_status *s);
/* As tfc_session_run (feeds borrowed, out[i] new references). */
int tfc_grpc_session_run(tfc_grpc_session *gs, const tfc_run_options *ro, const tfc_endpoint *feed_eps,
                         tfc_tensor *const *feeds, int n_feeds, const tfc_endpoint *fetch_eps, tfc_tensor **out,
                         int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s);
/* Every device of the cluster (ListDevices). */
int tfc_grpc_session_list_devices(tfc_grpc_session *gs, tfc_master_device **out, int *out_n, tfc_status *s);

/* Reset on the master at target ("grpc://host:port"): closes its sessions and clears the
 * named containers (n == 0: the default one) on every task of its cluster. */
int tfc_grpc_reset(const char *target, char *const *containers, int n, tfc_status *s);

#endif
