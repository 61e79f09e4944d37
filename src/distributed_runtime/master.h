/*
 * master — the master service of one server (TF's Master): sessions over the devices of the
 * whole cluster.
 *
 * CreateSession imports the client's GraphDef and finds the cluster's devices: this task's
 * from its worker, every other task's with GetStatus. A task that does not answer yet is
 * waited for (the cluster may start in any order): the master retries with growing waits,
 * logging "CreateSession still waiting for response from worker: <task>" to stderr, until the
 * session's operation_timeout_in_ms (none: it waits as long as it takes, as TF does) and then
 * fails with UNAVAILABLE naming the task. A client that goes away meanwhile, or the server
 * stopping, ends the wait with CANCELLED. With ConfigProto.device_filters ("/job:ps",
 * "/job:worker/task:1"), as in TF, only the other tasks some filter matches are asked and
 * waited for, and only their matching devices are used (this task's always are): a
 * between-graph worker need not wait for the other workers.
 *
 * A run places the graph (once; nodes added by ExtendSession are placed when first run) over
 * all of those devices — a node asking for nothing goes to the master's own task, as TF's
 * default_local_device does — then, once per (feeds, fetches, targets) signature, prunes,
 * partitions by device (partition/, _Send/_Recv on every cut edge, across tasks too) and
 * registers each task's partitions with that task's worker (RegisterGraph, one graph per task).
 * Each step gets a random id; the master calls RunGraph on every task of the plan at once,
 * with the feeds each needs, and gathers the fetches. Tensors cross tasks by RecvTensor,
 * pulled by the receiving worker. The first error of any task (errors that merely report an
 * abort — CANCELLED, ABORTED — give way to the cause) aborts the step on every other task
 * (CleanupGraph with that status), so no task waits for a tensor that will never come; a
 * deadline (RunOptions.timeout_in_ms, else operation_timeout_in_ms) does the same with
 * DEADLINE_EXCEEDED. After every step, successful or not, each task cleans the step up.
 *
 * Ownership: the master borrows its worker and the channel function (both outlive it).
 * Thread-safety: every function may be called from any thread; runs of one session may
 * overlap.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_MASTER_H
#define TFC_DISTRIBUTED_RUNTIME_MASTER_H

#include <pthread.h>

#include "distributed_runtime/worker.h"
#include "session/config.h"

typedef struct tfc_master tfc_master;

/* tasks: every task of the cluster ("/job:J/replica:0/task:T", copied), this one included.
 * default_cfg (copied; may be NULL): ServerDef.default_session_config, under each session's
 * own ConfigProto. */
tfc_master *tfc_master_new(tfc_worker *local, const char *const *tasks, int n_tasks,
                           tfc_worker_channel_fn channel_for, void *channel_arg,
                           const tfc_session_config *default_cfg, tfc_status *s);
/* Closes every session (aborting their steps) and frees. NULL is a no-op. */
void tfc_master_free(tfc_master *m);

/* A run's cancellation: whoever runs the step (the RunStep handler) fires it when the
 * client goes away; the step then aborts everywhere with CANCELLED. */
typedef struct tfc_master_cancel {
  pthread_mutex_t mu;
  int fired;
  void (*fn)(void *arg); /* set by the running step */
  void *arg;
} tfc_master_cancel;
void tfc_master_cancel_init(tfc_master_cancel *c);
void tfc_master_cancel_fini(tfc_master_cancel *c);
void tfc_master_cancel_fire(tfc_master_cancel *c); /* idempotent; any thread */

/* CreateSession. graphdef may be empty. cfg_bytes: the serialized ConfigProto (may be NULL).
 * cancel (may be NULL): fired when the client goes away or the server stops, it ends the wait
 * for the other tasks with CANCELLED. *out_handle: heap, caller frees. */
int tfc_master_create_session(tfc_master *m, const void *graphdef, size_t graphdef_len, const void *cfg_bytes,
                              size_t cfg_len, tfc_master_cancel *cancel, char **out_handle, int64_t *out_version,
                              tfc_status *s);
/* ExtendSession: adds the GraphDef's nodes (their inputs may name nodes already in the
 * session). FAILED_PRECONDITION when current_version is not the session's version. */
int tfc_master_extend_session(tfc_master *m, const char *handle, const void *graphdef, size_t graphdef_len,
                              int64_t current_version, int64_t *out_version, tfc_status *s);
/* RunStep. Names are TF's: feeds and fetches "node:index" (or "node" for index 0), targets
 * node names. feeds[i] are borrowed; out[i] receives a new reference per fetch. timeout_ms
 * > 0 overrides the session's operation_timeout_in_ms. cancel may be NULL. */
int tfc_master_run_step(tfc_master *m, const char *handle, int64_t timeout_ms, char *const *feed_names,
                        tfc_tensor *const *feeds, int n_feeds, char *const *fetch_names, int n_fetches,
                        char *const *target_names, int n_targets, tfc_master_cancel *cancel, tfc_tensor **out,
                        tfc_status *s);
/* CloseSession: aborts its steps, forgets its graphs on every task. NOT_FOUND for an unknown
 * handle. */
int tfc_master_close_session(tfc_master *m, const char *handle, tfc_status *s);

/* One device of the cluster as ListDevices reports it. */
typedef struct tfc_master_device {
  char *name;
  char type[16];
  int64_t memory_bytes;
  uint64_t incarnation;
  int local; /* on the master's own task */
} tfc_master_device;
/* ListDevices: every device of the cluster (the session's when handle names one, else found
 * now with the default config's timeout). *out is a heap array the caller frees with
 * tfc_master_devices_free. */
int tfc_master_list_devices(tfc_master *m, const char *handle, tfc_master_cancel *cancel, tfc_master_device **out,
                            int *out_n, tfc_status *s);
void tfc_master_devices_free(tfc_master_device *d, int n);
/* Closes every session of this master, aborting their steps (a stopping server). */
void tfc_master_close_all(tfc_master *m);
/* Reset: closes every session of this master, then clears the named resource containers (n
 * == 0: the default one) on every task of the cluster (CleanupAll). A task that cannot be
 * reached is UNAVAILABLE naming it (the others are still cleared). */
int tfc_master_reset(tfc_master *m, char *const *containers, int n, tfc_status *s);

#endif
