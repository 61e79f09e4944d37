/*
 * master_int — what master.c (sessions, devices) and master_step.c (plans, steps) share.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_MASTER_INT_H
#define TFC_DISTRIBUTED_RUNTIME_MASTER_INT_H

#include <pthread.h>

#include "distributed_runtime/master.h"
#include "place/placer.h"

/* One task's share of a plan: its registered graph and where its feeds and fetches go. */
typedef struct mplan_task {
  int task;     /* index into the session's tasks */
  char *handle; /* graph handle on that task */
  int n_feeds, n_fetches;
  int *feed_idx;  /* local _Arg index -> the step's feed index */
  int *fetch_idx; /* local _Retval index -> the step's fetch index */
} mplan_task;

typedef struct mplan {
  char *sig;
  int n_tasks;
  mplan_task *tasks;
  int stale; /* under the session's mu: a task restarted and lost its graphs */
  struct mplan *next;
} mplan;

typedef struct mtask {
  char *name;         /* "/job:J/replica:0/task:T" */
  int local;          /* the master's own task */
  tfc_rpc_channel *ch; /* borrowed; NULL for the local task */
} mtask;

typedef struct msession {
  int refs; /* under m->mu */
  char *handle;
  tfc_master *m;
  tfc_session_config cfg;
  int n_tasks;
  mtask *tasks;
  int n_devices;
  tfc_device **devices; /* the local worker's (borrowed) and stand-ins for remote ones (owned) */
  int *dev_task;        /* device -> task index */
  pthread_mutex_t mu;   /* everything below */
  tfc_graph *graph;
  int64_t version;
  tfc_placement *placement;
  int n_placed, cap_placed;
  mplan *plans;
  int closed;
  int n_steps;          /* steps in flight, each registered below for abort at close */
  struct mstep *steps;
  pthread_cond_t idle;
  struct msession *next;
} msession;

struct tfc_master {
  tfc_worker *local;
  int n_tasks;
  char **tasks;
  tfc_worker_channel_fn channel_for;
  void *channel_arg;
  tfc_session_config default_cfg;
  pthread_mutex_t mu; /* sessions */
  msession *sessions;
};

/* master_step.c */
void tfc_mplan_free(msession *ms, mplan *p, int deregister);
/* Aborts every step in flight of the session with s (close). Session lock held. */
void tfc_msession_abort_steps(msession *ms, const tfc_status *s);
int tfc_msession_run(msession *ms, int64_t timeout_ms, char *const *feed_names, tfc_tensor *const *feeds,
                     int n_feeds, char *const *fetch_names, int n_fetches, char *const *target_names, int n_targets,
                     tfc_master_cancel *cancel, tfc_tensor **out, tfc_status *s);

/* Errors of calls to other tasks: transport failures say which task and call. */
void tfc_master_rpc_error(const char *call, const char *task, const tfc_status *err, tfc_status *out);

#endif
