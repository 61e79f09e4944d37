/*
 * session — the direct (in-process) session: devices, placement, per-signature run plans.
 *
 * Devices: device_count {"CPU": N} gives N CPU devices /job:localhost/replica:0/task:0/
 * device:CPU:0..N-1 (default one), each with its share of the intra-op threads.
 *
 * On each run the session first extends itself with nodes added to the graph since the last
 * run and places them (place/; placement is stable, and every node keeps a reason). Each
 * distinct (feeds, fetches, targets) signature gets a plan, built once and cached: prune to
 * what the fetches and targets need, replace fed outputs with _Arg nodes and fetches with
 * _Retval nodes, partition by device with _Send/_Recv pairs on cut edges (partition/), and
 * build one executor per partition. A run fills a call frame and starts every partition's
 * executor at once; they meet in a per-step rendezvous. The first error aborts the step in
 * every partition; a deadline (RunOptions.timeout_in_ms, else ConfigProto.
 * operation_timeout_in_ms) aborts it with DEADLINE_EXCEEDED naming the tensors still awaited.
 *
 * Ownership: the session borrows its graph (the C API keeps it alive) and owns devices,
 * pools and plans. Thread-safety: tfc_session_run may be called from many threads at once.
 */
#ifndef TFC_SESSION_SESSION_H
#define TFC_SESSION_SESSION_H

#include "base/status.h"
#include "device/device.h"
#include "graph/graph.h"
#include "session/config.h"

typedef struct tfc_session tfc_session;

/* Creates devices from the config (device_count {"CPU": N}; default one CPU). Prints the
 * device mapping when log_device_placement is set. */
tfc_session *tfc_session_new(tfc_graph *g, const tfc_session_config *cfg, tfc_status *s);
/* Frees plans, devices and pools. NULL is a no-op. */
void tfc_session_free(tfc_session *sess);
/* Later runs fail with FAILED_PRECONDITION; idempotent. */
int tfc_session_close(tfc_session *sess, tfc_status *s);

/* Runs one step. ro may be NULL (defaults). feeds[i] (borrowed) is fed to feed_eps[i]; out[i]
 * receives a new reference for fetch_eps[i] (NULL on error). Errors: INVALID_ARGUMENT for bad
 * endpoints or feeds and placement errors; whatever a kernel reports (with its node and
 * device); DEADLINE_EXCEEDED when the step outlives its deadline. */
int tfc_session_run(tfc_session *sess, const tfc_run_options *ro, const tfc_endpoint *feed_eps,
                    tfc_tensor *const *feeds, int n_feeds, const tfc_endpoint *fetch_eps,
                    tfc_tensor **out, int n_fetches, tfc_node *const *targets, int n_targets,
                    tfc_status *s);

/* The devices of task /job:<job>/replica:0/task:<task> from the registry's factories:
 * cfg's device_count for each type, else the factory's default (CPU:0 always exists). Each
 * device of a type gets its share of the intra-op threads (a kernel's parallel-for spreads
 * over that many, the caller included), so N devices busy at once keep the cores busy without
 * oversubscribing them. Appends to *devices (realloc'd; the caller frees the devices and the
 * array, also after an error). The direct session and a server's worker both use it. */
int tfc_session_devices_create(const tfc_session_config *cfg, const char *job, int task, tfc_threadpool *pool,
                               int intra, tfc_device ***devices, int *n_devices, tfc_status *s);

int tfc_session_num_devices(const tfc_session *sess);
const tfc_device *tfc_session_device(const tfc_session *sess, int i);
/* The device a node was placed on, or NULL when the node has not been placed yet. When
 * reason is not NULL it receives why (owned by the session, valid until it is freed).
 * Thread-safe. */
const tfc_device *tfc_session_node_device(tfc_session *sess, const tfc_node *n,
                                          const char **reason);

#endif
