/*
 * queue_runner — include/tfc/queue_runner.h: the coordinator and the queue runner threads,
 * written against the public C API (TF_SessionRun of each enqueue op in a loop), as Python's
 * tf.train.Coordinator and tf.train.QueueRunner are written against Session.run.
 *
 * The coordinator keeps every thread it started on one list (joined and removed by
 * TFC_CoordinatorJoin) and every runner on another (freed with the coordinator, since threads
 * point at them). A runner counts its live enqueue threads; the last one to end quietly runs
 * the close op. A runner with a cancel op also gets a helper thread that waits for a stop
 * request (then runs the cancel op, waking enqueues blocked on a full queue) or for the
 * runner's threads to be gone (then there is nothing to wake), as Python's _close_on_stop.
 * Unlike Python's, a runner stopped for a preemption error (a task of the cluster died) runs
 * neither op: the monitored session abandons that session for a new one that shares the
 * queues, which must stay open (Python's would close them and end the input of the recovered
 * session).
 */
#include "tfc/queue_runner.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "builders/builders_internal.h"
#include "capi/capi_internal.h"
#include "device/device.h"
#include "ops/opdef.h"
#include "session/session.h"
#include "state/queue.h"
#include "tfc/train.h"

typedef struct runner {
  TFC_Coordinator *coord;
  TF_Session *session;
  TF_Operation *close_op, *cancel_op;
  int live; /* enqueue threads still running (coord->mu) */
  struct runner *next;
} runner;

typedef struct thread_rec {
  pthread_t t;
  struct thread_rec *next;
} thread_rec;

struct TFC_Coordinator {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* stop requested, or a runner's live count changed */
  int stop;
  int n_cancels;    /* cancel threads that have not finished */
  tfc_status error; /* the first real error */
  runner *runners;
  thread_rec *threads;
};

/* Whether the stop was requested for a preemption (a task of the cluster died: ABORTED or
 * UNAVAILABLE). The session is then abandoned for a new one, and the queues it shares with that
 * one (on this worker or on a restarted ps) must stay open: no close or cancel op runs. */
static int preempted_locked(const TFC_Coordinator *coord) {
  return coord->error.code == TFC_ABORTED || coord->error.code == TFC_UNAVAILABLE;
}

TFC_EXPORT TFC_Coordinator *TFC_NewCoordinator(void) {
  TFC_Coordinator *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  tfc_status_init(&c->error);
  return c;
}

TFC_EXPORT void TFC_CoordinatorRequestStop(TFC_Coordinator *coord, const TF_Status *error_or_NULL) {
  if (!coord) return;
  pthread_mutex_lock(&coord->mu);
  if (error_or_NULL) {
    int code = error_or_NULL->s.code;
    /* OUT_OF_RANGE and CANCELLED are how input ends (a queue closed), not failures. */
    if (code != TFC_OK && code != TFC_OUT_OF_RANGE && code != TFC_CANCELLED)
      tfc_status_set(&coord->error, code, "%s", tfc_status_msg(&error_or_NULL->s));
  }
  coord->stop = 1;
  pthread_cond_broadcast(&coord->cv);
  pthread_mutex_unlock(&coord->mu);
}

TFC_EXPORT int TFC_CoordinatorShouldStop(TFC_Coordinator *coord) {
  if (!coord) return 1;
  pthread_mutex_lock(&coord->mu);
  int stop = coord->stop;
  pthread_mutex_unlock(&coord->mu);
  return stop;
}

TFC_EXPORT void TFC_CoordinatorRequestedError(TFC_Coordinator *coord, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!s) return;
  tfc_status_clear(s);
  if (!coord) return;
  pthread_mutex_lock(&coord->mu);
  if (!tfc_status_ok(&coord->error)) tfc_status_set(s, coord->error.code, "%s", tfc_status_msg(&coord->error));
  pthread_mutex_unlock(&coord->mu);
}

TFC_EXPORT void TFC_CoordinatorJoin(TFC_Coordinator *coord, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!coord) {
    if (s) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_CoordinatorJoin: coord is NULL");
    return;
  }
  for (;;) { /* threads may start threads (none do today) or be added meanwhile: drain */
    pthread_mutex_lock(&coord->mu);
    thread_rec *list = coord->threads;
    coord->threads = NULL;
    pthread_mutex_unlock(&coord->mu);
    if (!list) break;
    while (list) {
      thread_rec *next = list->next;
      pthread_join(list->t, NULL);
      free(list);
      list = next;
    }
  }
  TFC_CoordinatorRequestedError(coord, status);
}

TFC_EXPORT void TFC_DeleteCoordinator(TFC_Coordinator *coord) {
  if (!coord) return;
  TFC_CoordinatorRequestStop(coord, NULL);
  TFC_CoordinatorJoin(coord, NULL);
  for (runner *r = coord->runners, *next; r; r = next) {
    next = r->next;
    free(r);
  }
  tfc_status_fini(&coord->error);
  pthread_cond_destroy(&coord->cv);
  pthread_mutex_destroy(&coord->mu);
  free(coord);
}

/* ---------------- threads ---------------- */

/* Runs op as a target; returns the code (the message goes to st). */
static int run_target(TF_Session *session, TF_Operation *op, TF_Status *st) {
  TF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&op, 1, NULL, st);
  return TF_GetCode(st);
}

typedef struct enqueue_arg {
  runner *r;
  TF_Operation *op;
} enqueue_arg;

static void *enqueue_main(void *p) {
  enqueue_arg a = *(enqueue_arg *)p;
  free(p);
  runner *r = a.r;
  TFC_Coordinator *coord = r->coord;
  TF_Status *st = TF_NewStatus();
  int quiet = 0;
  while (st && !TFC_CoordinatorShouldStop(coord)) {
    int code = run_target(r->session, a.op, st);
    if (code == TF_OK) continue;
    if (code == TF_OUT_OF_RANGE || code == TF_CANCELLED) {
      quiet = 1; /* the queue (or the one feeding it) is closed: this thread is done */
    } else if (code == TF_FAILED_PRECONDITION && strcmp(TF_Message(st), "Session has been closed.") == 0) {
      /* The session closed between two runs: as quiet as a cancelled run, nothing to close. */
    } else {
      TFC_CoordinatorRequestStop(coord, st);
    }
    break;
  }
  pthread_mutex_lock(&coord->mu);
  int last = --r->live == 0;
  if (preempted_locked(coord)) quiet = 0;
  pthread_cond_broadcast(&coord->cv);
  pthread_mutex_unlock(&coord->mu);
  if (quiet && last && r->close_op && st) run_target(r->session, r->close_op, st); /* errors ignored */
  TF_DeleteStatus(st);
  return NULL;
}

static void *cancel_main(void *p) {
  runner *r = p;
  TFC_Coordinator *coord = r->coord;
  pthread_mutex_lock(&coord->mu);
  while (!coord->stop && r->live > 0) pthread_cond_wait(&coord->cv, &coord->mu);
  int stop = coord->stop && !preempted_locked(coord);
  pthread_mutex_unlock(&coord->mu);
  if (stop) {
    TF_Status *st = TF_NewStatus();
    if (st) run_target(r->session, r->cancel_op, st); /* errors ignored: it may be closed */
    TF_DeleteStatus(st);
  }
  pthread_mutex_lock(&coord->mu);
  coord->n_cancels--;
  pthread_cond_broadcast(&coord->cv);
  pthread_mutex_unlock(&coord->mu);
  return NULL;
}

void tfc_coordinator_stop_and_cancel(TFC_Coordinator *coord) {
  if (!coord) return;
  TFC_CoordinatorRequestStop(coord, NULL);
  pthread_mutex_lock(&coord->mu);
  while (coord->n_cancels > 0) pthread_cond_wait(&coord->cv, &coord->mu);
  pthread_mutex_unlock(&coord->mu);
}

/* Starts fn(arg) and lists it with coord. 0, or -1 (arg is not consumed then). */
static int spawn(TFC_Coordinator *coord, void *(*fn)(void *), void *arg) {
  thread_rec *t = malloc(sizeof *t);
  if (!t) return -1;
  if (pthread_create(&t->t, NULL, fn, arg) != 0) {
    free(t);
    return -1;
  }
  pthread_mutex_lock(&coord->mu);
  t->next = coord->threads;
  coord->threads = t;
  pthread_mutex_unlock(&coord->mu);
  return 0;
}

static int start_runner(TF_Session *session, TFC_Coordinator *coord, TF_Operation *close_op, TF_Operation *cancel_op,
                        TF_Operation *const *enqueue_ops, const int *num_threads, int n, tfc_status *s) {
  runner *r = calloc(1, sizeof *r);
  if (!r) {
    TFC_OOM(s);
    return 0;
  }
  *r = (runner){coord, session, close_op, cancel_op, 0, NULL};
  int total = 0;
  for (int i = 0; i < n; i++) total += num_threads ? (num_threads[i] > 0 ? num_threads[i] : 0) : 1;
  pthread_mutex_lock(&coord->mu);
  r->live = total; /* counted up front so an early thread cannot see itself as the last */
  r->next = coord->runners;
  coord->runners = r;
  pthread_mutex_unlock(&coord->mu);
  int started = 0;
  for (int i = 0; i < n; i++) {
    int k = num_threads ? num_threads[i] : 1;
    for (int j = 0; j < k; j++) {
      enqueue_arg *a = malloc(sizeof *a);
      if (a) *a = (enqueue_arg){r, enqueue_ops[i]};
      if (!a || spawn(coord, enqueue_main, a) != 0) {
        free(a);
        pthread_mutex_lock(&coord->mu);
        r->live -= total - started; /* the threads that will never run */
        pthread_cond_broadcast(&coord->cv);
        pthread_mutex_unlock(&coord->mu);
        tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "could not start a queue runner thread for '%s'",
                       TF_OperationName(enqueue_ops[i]));
        return started;
      }
      started++;
    }
  }
  if (cancel_op) {
    pthread_mutex_lock(&coord->mu);
    coord->n_cancels++;
    pthread_mutex_unlock(&coord->mu);
    if (spawn(coord, cancel_main, r) != 0) {
      pthread_mutex_lock(&coord->mu);
      coord->n_cancels--;
      pthread_mutex_unlock(&coord->mu);
      tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "could not start the cancel thread for '%s'",
                     TF_OperationName(cancel_op));
    }
  }
  return started;
}

TFC_EXPORT int TFC_StartQueueRunner(TF_Session *session, TFC_Coordinator *coord, TF_Operation *close_op,
                                    TF_Operation *cancel_op, TF_Operation *const *enqueue_ops, const int *num_threads,
                                    int num_enqueue_ops, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_status scratch;
  tfc_status_init(&scratch);
  if (!s) s = &scratch;
  int n = 0;
  if (!session || !coord || (num_enqueue_ops > 0 && !enqueue_ops) || num_enqueue_ops < 0)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_StartQueueRunner: session, coord and enqueue_ops must be given");
  else
    n = start_runner(session, coord, close_op, cancel_op, enqueue_ops, num_threads, num_enqueue_ops, s);
  tfc_status_fini(&scratch);
  return n;
}

TFC_EXPORT int TFC_StartQueueRunners(TF_Session *session, TF_Graph *graph, TFC_Coordinator *coord,
                                     TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_status scratch;
  tfc_status_init(&scratch);
  if (!s) s = &scratch;
  int started = 0, n_entries = 0;
  TF_Operation ***entries = NULL;
  int *sizes = NULL;
  if (!session || !graph || !coord) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_StartQueueRunners: session, graph and coord must be given");
    goto done;
  }
  /* Read and check every entry first, so a bad one starts nothing. */
  n_entries = TFC_CollectionSize(graph, "queue_runners");
  entries = calloc((size_t)n_entries + 1, sizeof *entries);
  sizes = calloc((size_t)n_entries + 1, sizeof *sizes);
  if (!entries || !sizes) {
    TFC_OOM(s);
    goto done;
  }
  for (int i = 0; i < n_entries; i++) {
    int k = TFC_CollectionEntry(graph, "queue_runners", i, NULL, 0);
    if (k < 4) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "queue_runners entry %d has %d operations; a queue runner is {queue, close op, cancel op, "
                     "enqueue op, ...}",
                     i, k);
      goto done;
    }
    if (!(entries[i] = calloc((size_t)k, sizeof **entries))) {
      TFC_OOM(s);
      goto done;
    }
    sizes[i] = TFC_CollectionEntry(graph, "queue_runners", i, entries[i], k);
  }
  for (int i = 0; i < n_entries && tfc_status_ok(s); i++)
    started += start_runner(session, coord, entries[i][1], entries[i][2], entries[i] + 3, NULL, sizes[i] - 3, s);
done:
  for (int i = 0; entries && i < n_entries; i++) free(entries[i]);
  free(entries);
  free(sizes);
  tfc_status_fini(&scratch);
  return started;
}

TFC_EXPORT double TFC_QueueDequeueWaitSeconds(TF_Session *session, TF_Operation *queue_op, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_status scratch;
  tfc_status_init(&scratch);
  if (!s) s = &scratch;
  double secs = 0;
  const tfc_node *n = queue_op ? tfc_capi_node(queue_op) : NULL;
  tfc_session *sess = tfc_capi_session(session);
  const tfc_device *d = NULL;
  if (!n || !session) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_QueueDequeueWaitSeconds: session and queue_op must be given");
  } else if (!sess) {
    tfc_status_set(s, TFC_UNIMPLEMENTED, "TFC_QueueDequeueWaitSeconds: not available for a distributed session");
  } else if (n->op->id != TFC_OP_FIFOQueueV2 && n->op->id != TFC_OP_RandomShuffleQueueV2) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "'%s' is a %s, not a FIFOQueueV2 or RandomShuffleQueueV2", n->name,
                   n->op->name);
  } else if (!(d = tfc_session_node_device(sess, n, NULL))) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "queue '%s' has not been placed by this session (no run has used it)", n->name);
  } else {
    const tfc_attr_value *sh = tfc_node_attr(n, "shared_name"), *ct = tfc_node_attr(n, "container");
    const char *shared = sh && sh->kind == TFC_ATTR_STRING ? sh->u.s.data : "";
    const char *container = ct && ct->kind == TFC_ATTR_STRING ? ct->u.s.data : "";
    char *key = *shared ? NULL : tfc_resource_private_name(n->name);
    tfc_status miss;
    tfc_status_init(&miss);
    if (!*shared && !key) {
      TFC_OOM(s);
    } else {
      tfc_resource *r = tfc_resource_mgr_lookup(d->resources, container, key ? key : shared, &tfc_queue_kind, &miss);
      if (r) secs = (double)tfc_queue_dequeue_wait_us(tfc_queue_from_resource(r)) / 1e6;
      tfc_resource_unref(r); /* not created yet: 0 seconds */
    }
    tfc_status_fini(&miss);
    free(key);
  }
  tfc_status_fini(&scratch);
  return secs;
}
