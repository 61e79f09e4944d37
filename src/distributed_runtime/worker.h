/*
 * worker — one task's half of the distributed runtime (TF's Worker): its devices, the graphs
 * masters register with it, the steps it runs, and the tensors other tasks pull from it.
 *
 * Devices: the task's devices (/job:<job>/replica:0/task:<task>/device:CPU:0 ...) are created
 * once with the worker and live as long as it does, with their resource managers: variables,
 * queues and readers outlive sessions and are shared by every master that runs partitions
 * here, keyed by (container, shared name). That is what lets a ps task serve the same
 * variables to between-graph replicas.
 *
 * Graphs: RegisterGraph takes the nodes of every partition a master placed on this task (each
 * node's assigned device says which), splits them by device and builds one executor per
 * device; the handle it returns names them for RunGraph and DeregisterGraph. The graph's _Arg
 * and _Retval nodes are numbered 0..n-1 within the task: RunGraph's feeds and fetches.
 *
 * Steps: every step has a master-chosen random id. The first of RunGraph or RecvTensor to
 * mention an id creates the step's rendezvous; CleanupGraph (the master, after the step)
 * aborts it (waking any receive still waiting) and forgets it. The last 1,024 cleaned ids are
 * remembered: a RunGraph or RecvTensor arriving after its step was cleaned up is ABORTED, so a
 * straggler never waits for a step that is over. A step's rendezvous is remote-capable: a
 * _Recv of a tensor sent by another task pulls it with RecvTensor from that task (receiver-
 * initiated, as in TF); an abort of the step cancels those calls. RecvTensor served here waits
 * in the step's rendezvous for the local _Send.
 *
 * Failure: the first error of any partition aborts the step's rendezvous, so this task's other
 * partitions stop and remote receivers of its tensors fail with that error. Variable writes
 * are journaled per step: a failure here undoes this task's writes at once; after a success
 * they wait in the step's journal for CleanupGraph, which undoes them when the master reports
 * that the step failed on another task and commits them otherwise — so a step that fails
 * anywhere leaves the variables of every task as they were (a write another step made
 * meanwhile stands). An error pulling a tensor (the sending task died,
 * the deadline passed) fails the step with the task named: "RecvTensor from /job:ps/
 * replica:0/task:0 failed: <reason>".
 *
 * Ownership: the worker owns devices, pool, graphs and steps; channels come from the caller's
 * channel function and are borrowed. Thread-safety: every function may be called from any
 * thread; tfc_worker_free only when no call is in flight.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_WORKER_H
#define TFC_DISTRIBUTED_RUNTIME_WORKER_H

#include <stdint.h>

#include "base/status.h"
#include "device/device.h"
#include "distributed_runtime/rpc.h"
#include "graph/graph.h"
#include "rendezvous/rendezvous.h"
#include "session/config.h"

typedef struct tfc_worker tfc_worker;

/* The channel to a task of the cluster ("/job:ps/replica:0/task:0"), borrowed (it lives as
 * long as the worker); NULL with status (NOT_FOUND / INVALID_ARGUMENT naming the task) when
 * the cluster has no such task. */
typedef tfc_rpc_channel *(*tfc_worker_channel_fn)(void *arg, const char *task, tfc_status *s);

/* cfg (copied): device_count and thread counts for the task's devices. */
tfc_worker *tfc_worker_new(const char *job, int task, const tfc_session_config *cfg,
                           tfc_worker_channel_fn channel_for, void *channel_arg, tfc_status *s);
/* Frees the worker. Steps never cleaned up are aborted (CANCELLED "Step <id> was cancelled: the
 * worker <task> is shutting down", which answers their waiting RecvTensors and cancels their
 * pulls); then it waits until nothing else holds a step or graph (a RunGraph lets go of them
 * only after its done callback returns). NULL is a no-op. */
void tfc_worker_free(tfc_worker *w);

/* "/job:<job>/replica:0/task:<task>" (owned by the worker). */
const char *tfc_worker_task(const tfc_worker *w);
int tfc_worker_num_devices(const tfc_worker *w);
tfc_device *tfc_worker_device(const tfc_worker *w, int i); /* borrowed */

/* Registers the nodes of g (taken, even on failure), every node's assigned_device naming one
 * of this worker's devices. *out_handle (heap, caller frees) names the result. Errors:
 * INVALID_ARGUMENT for a node on another task's or an unknown device, or _Arg/_Retval indexes
 * that are not 0..n-1; the executor's errors (missing kernels) naming the node. */
int tfc_worker_register_graph(tfc_worker *w, const char *session_handle, tfc_graph *g, char **out_handle,
                              tfc_status *s);
/* The same from a serialized GraphDef whose NodeDef.device fields are assigned devices. */
int tfc_worker_register_graphdef(tfc_worker *w, const char *session_handle, const void *graphdef, size_t len,
                                 char **out_handle, tfc_status *s);
/* ABORTED for an unknown handle (TF's "Graph handle is not found: <handle>. Possibly, this
 * worker just restarted."). Steps running the graph finish first. */
int tfc_worker_deregister_graph(tfc_worker *w, const char *handle, tfc_status *s);
/* Deregisters every graph registered for session_handle. */
void tfc_worker_deregister_session(tfc_worker *w, const char *session_handle);

/* Called once when a RunGraph is over: s is its status (borrowed for the call); on success
 * fetches[0..n_fetches) hold new references the callee takes (the array itself stays the
 * worker's; NULL on error). */
typedef void (*tfc_worker_run_done)(void *arg, const tfc_status *s, tfc_tensor **fetches, int n_fetches);
/* Runs one step of a registered graph: feeds[i] (borrowed until done) goes to _Arg i; the
 * fetches come from the _Retval nodes in index order. deadline_us (absolute tfc_now_us, 0:
 * none) bounds the step's tensor pulls. Errors: ABORTED for an unknown handle (a worker that
 * restarted since the graph was registered: retryable, as in TF),
 * INVALID_ARGUMENT for the wrong number of feeds, ABORTED for a step already cleaned up, or
 * the step's first error. With run_inline, one partition runs on the calling thread (an RPC
 * handler thread of its own) and this returns when it is done; otherwise every partition
 * starts on the worker's pool and this returns at once. done may run before this returns. */
void tfc_worker_run_graph(tfc_worker *w, const char *handle, int64_t step_id, tfc_tensor *const *feeds, int n_feeds,
                          int64_t deadline_us, int run_inline, tfc_worker_run_done done, void *arg);

/* Serves a RecvTensor: done(arg, ...) runs once with the tensor the step's local _Send left
 * under key (possibly much later), or with an error: INVALID_ARGUMENT for a malformed key or
 * one whose send device is not on this task, ABORTED for a step already cleaned up, the
 * step's abort status. */
void tfc_worker_recv_tensor(tfc_worker *w, int64_t step_id, const char *key, tfc_recv_done done, void *arg);
/* The client of the RecvTensor served with `arg` went away (its deadline passed, it cancelled,
 * its connection closed, the server stops): its done runs now, on this thread, with CANCELLED
 * (a tensor sent for it later is dropped). A step that no RunGraph has taken, once every
 * RecvTensor waiting on it was given up, is dropped as well and forgotten (not remembered as
 * cleaned), so that abandoned calls for steps that never come hold no memory; a step that ran
 * is left to CleanupGraph. A no-op when that RecvTensor is not waiting (not yet, or answered
 * already); the caller may call it again once tfc_worker_recv_tensor has returned. */
void tfc_worker_recv_cancel(tfc_worker *w, int64_t step_id, void *arg);
/* Steps this worker holds now (for tests and monitoring). */
int tfc_worker_num_steps(tfc_worker *w);
/* Aborts the step with `abort` (when not NULL and not OK) — its partitions stop, its waiting
 * receives fail — and forgets it (CleanupGraph). Unknown ids are remembered as cleaned. */
void tfc_worker_cleanup_step(tfc_worker *w, int64_t step_id, const tfc_status *abort);
/* CleanupAll: drops every variable and resource of the named containers (n == 0: the
 * default one) on every device of the task. */
int tfc_worker_cleanup_all(tfc_worker *w, char *const *containers, int n, tfc_status *s);
/* Aborts the step with `abort` without forgetting it (a cancelled RunGraph). */
void tfc_worker_abort_step(tfc_worker *w, int64_t step_id, const tfc_status *abort);

#endif
