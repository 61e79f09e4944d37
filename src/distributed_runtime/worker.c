/*
 * worker — see worker.h.
 *
 * Graphs are few at a time (a master registers a graph per run signature), so they live on a
 * linked list; steps, usually the few concurrent runs but thousands when a flood of RecvTensor
 * calls names unknown steps, in a hash table by id. Both are under one mutex. Both are
 * refcounted: a RunGraph holds its graph and step; a RecvTensor and each tensor pull in
 * flight hold their step. A pull is started by the step's rendezvous, which holds the step
 * for it before its waiter becomes visible (step_hold): once visible, an abort or a send may
 * complete the receiver, end its RunGraph and drop every other reference while the pull is
 * still being set up. Lock order: a rendezvous's lock, then w->mu, then a step's mu.
 *
 * Freeing the worker drops the tables' references and waits for every other holder: a RunGraph
 * answers its call before it lets go of its step and graph (part_done), and a pull completes on
 * the RPC client's thread, so after the server has stopped serving, a step or graph may still
 * be held for a moment by a thread that nothing else waits for. Each step and graph counts in
 * w->n_live until its memory is gone.
 */
#include "distributed_runtime/worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "distributed_runtime/wire.h"
#include "exec/executor.h"
#include "partition/partition.h"
#include "proto/graphdef.h"
#include "session/session.h"
#include "state/variable.h"
#include "tensorflow/worker.pb-c.h"

#define RECENT_STEPS 1024
#define STEP_BUCKETS 1024

typedef struct wpart {
  tfc_device *device;
  tfc_graph *graph;
  tfc_executor *exec;
} wpart;

typedef struct wgraph {
  int refs; /* under w->mu */
  char *handle;
  char *session;
  int n_parts;
  wpart *parts;
  int n_args, n_rets;
  struct wgraph *next;
} wgraph;

typedef struct fetch_call fetch_call;

typedef struct wstep {
  int refs; /* under w->mu */
  int64_t step_id;
  tfc_worker *w;
  tfc_rendezvous *rdv;
  pthread_mutex_t mu; /* guards the fields below */
  int64_t deadline_us;
  int aborted;
  fetch_call *fetches; /* pulls in flight */
  struct recv_wait *waits; /* RecvTensors waiting here */
  int n_waits, n_cancelled; /* of them, and how many of those their clients gave up on */
  int n_runs;               /* RunGraphs that took the step (under w->mu) */
  /* The step's variable writes on this task, kept until the master says how the whole step
   * ended (CleanupGraph): rolled back if it failed anywhere, else committed. */
  tfc_var_txn txn;
  struct wstep *next;
} wstep;

struct tfc_worker {
  char *task;   /* "/job:J/replica:0/task:T" */
  char *prefix; /* task + "/" */
  tfc_session_config cfg;
  tfc_threadpool *pool;
  int n_devices;
  tfc_device **devices;
  tfc_worker_channel_fn channel_for;
  void *channel_arg;
  pthread_mutex_t mu; /* graphs, steps, recent, n_live */
  pthread_cond_t gone; /* n_live fell to 0 */
  int n_live;          /* steps and graphs not yet freed, in the tables or not */
  wgraph *graphs;
  /* Steps by id: a hash table of chains, as a flood of RecvTensor calls for unknown steps may
   * bring thousands into being at once. */
  wstep *steps[STEP_BUCKETS];
  int n_steps;
  int64_t recent[RECENT_STEPS];
  int n_recent, recent_pos;
};

/* ---------------- lifecycle ---------------- */

tfc_worker *tfc_worker_new(const char *job, int task, const tfc_session_config *cfg,
                           tfc_worker_channel_fn channel_for, void *channel_arg, tfc_status *s) {
  tfc_worker *w = calloc(1, sizeof *w);
  if (!w) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->gone, NULL);
  tfc_session_config_init(&w->cfg);
  w->channel_for = channel_for;
  w->channel_arg = channel_arg;
  if (cfg && tfc_session_config_copy(cfg, &w->cfg, s)) goto fail;
  if (asprintf(&w->task, "/job:%s/replica:0/task:%d", job, task) < 0) w->task = NULL;
  if (!w->task || asprintf(&w->prefix, "%s/", w->task) < 0) {
    w->prefix = NULL;
    TFC_OOM(s);
    goto fail;
  }
  int cores = tfc_num_cores();
  int inter = w->cfg.inter_op_parallelism_threads > 0 ? w->cfg.inter_op_parallelism_threads : cores;
  int intra = w->cfg.intra_op_parallelism_threads > 0 ? w->cfg.intra_op_parallelism_threads : cores;
  w->pool = tfc_threadpool_new(inter > intra ? inter : intra, "tfc-worker");
  if (!w->pool) {
    TFC_OOM(s);
    goto fail;
  }
  if (tfc_session_devices_create(&w->cfg, job, task, w->pool, intra, &w->devices, &w->n_devices, s)) goto fail;
  return w;
fail:
  tfc_worker_free(w);
  return NULL;
}

static void wgraph_free(wgraph *g) {
  for (int i = 0; i < g->n_parts; i++) {
    tfc_executor_free(g->parts[i].exec);
    tfc_graph_free(g->parts[i].graph);
  }
  free(g->parts);
  free(g->handle);
  free(g->session);
  free(g);
}

static void wstep_free(wstep *st) {
  tfc_var_txn_fini(&st->txn);
  tfc_rendezvous_unref(st->rdv);
  pthread_mutex_destroy(&st->mu);
  free(st);
}

static void step_put(wstep *st);
static void graph_put(tfc_worker *w, wgraph *g);

/* A step or a graph was freed. */
static void live_gone(tfc_worker *w) {
  pthread_mutex_lock(&w->mu);
  if (--w->n_live == 0) pthread_cond_broadcast(&w->gone);
  pthread_mutex_unlock(&w->mu);
}

void tfc_worker_free(tfc_worker *w) {
  if (!w) return;
  /* Empty the tables under the lock; let go of their references outside it. */
  pthread_mutex_lock(&w->mu);
  wgraph *graphs = w->graphs;
  w->graphs = NULL;
  wstep *steps = NULL;
  for (int b = 0; b < STEP_BUCKETS; b++)
    while (w->steps[b]) {
      wstep *st = w->steps[b];
      w->steps[b] = st->next;
      st->next = steps;
      steps = st;
    }
  w->n_steps = 0;
  pthread_mutex_unlock(&w->mu);
  /* A step still in the table was never cleaned up: aborting it answers its waiting
   * RecvTensors, cancels its pulls and stops a partition still running, so that every holder
   * lets go. */
  for (wstep *st = steps, *next; st; st = next) {
    next = st->next;
    st->next = NULL;
    tfc_status gone;
    tfc_status_init(&gone);
    tfc_status_set(&gone, TFC_CANCELLED, "Step %lld was cancelled: the worker %s is shutting down",
                   (long long)st->step_id, w->task);
    tfc_rendezvous_abort(st->rdv, &gone);
    tfc_status_fini(&gone);
    step_put(st);
  }
  for (wgraph *g = graphs, *next; g; g = next) {
    next = g->next;
    g->next = NULL;
    graph_put(w, g);
  }
  /* The other holders let go by themselves: a RunGraph's completion still unwinding after its
   * reply went out, a pull's completion, a RecvTensor's wait. */
  pthread_mutex_lock(&w->mu);
  while (w->n_live > 0) pthread_cond_wait(&w->gone, &w->mu);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->n_devices; i++) tfc_device_free(w->devices[i]);
  free(w->devices);
  tfc_threadpool_free(w->pool);
  tfc_session_config_fini(&w->cfg);
  free(w->task);
  free(w->prefix);
  pthread_cond_destroy(&w->gone);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

const char *tfc_worker_task(const tfc_worker *w) { return w->task; }
int tfc_worker_num_devices(const tfc_worker *w) { return w->n_devices; }
tfc_device *tfc_worker_device(const tfc_worker *w, int i) {
  return i >= 0 && i < w->n_devices ? w->devices[i] : NULL;
}

/* ---------------- graphs ---------------- */

/* The largest _Arg / _Retval index + 1, checking the indexes are exactly 0..n-1. */
static int call_arity(const wgraph *g, const char *op, int *out, tfc_status *s) {
  int n = 0, cap = 0;
  unsigned char *seen = NULL;
  for (int p = 0; p < g->n_parts; p++) {
    const tfc_graph *pg = g->parts[p].graph;
    for (int i = 0; i < pg->n_nodes; i++) {
      const tfc_node *nd = pg->nodes[i];
      if (strcmp(nd->op->name, op) != 0) continue;
      int64_t index;
      if (tfc_node_attr_int(nd, "index", &index) || index < 0 || index > (1 << 24)) {
        free(seen);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s node '%s' has no valid index", op, nd->name);
      }
      if (index >= cap) {
        int ncap = (int)index * 2 + 8;
        unsigned char *a = realloc(seen, (size_t)ncap);
        if (!a) {
          free(seen);
          return TFC_OOM(s);
        }
        memset(a + cap, 0, (size_t)(ncap - cap));
        seen = a;
        cap = ncap;
      }
      if (seen[index]++) {
        free(seen);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "two %s nodes have index %lld", op, (long long)index);
      }
      if (index + 1 > n) n = (int)index + 1;
    }
  }
  for (int i = 0; i < n; i++)
    if (!seen[i]) {
      free(seen);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "no %s node has index %d (indexes must be 0..%d)", op, i,
                            n - 1);
    }
  free(seen);
  *out = n;
  return TFC_OK;
}

int tfc_worker_register_graph(tfc_worker *w, const char *session_handle, tfc_graph *graph, char **out_handle,
                              tfc_status *s) {
  *out_handle = NULL;
  tfc_partitions parts = {0, NULL};
  wgraph *g = calloc(1, sizeof *g);
  if (!g || !(g->session = tfc_strdup(session_handle ? session_handle : ""))) {
    TFC_OOM(s);
    goto fail;
  }
  /* Every node must sit on a device of this task; the master already cut every edge between
   * devices, so splitting by device is all partitioning has left to do. */
  for (int i = 0; i < graph->n_nodes; i++) {
    const tfc_node *nd = graph->nodes[i];
    const char *dev = nd->assigned_device;
    int found = 0;
    for (int d = 0; d < w->n_devices && dev && !found; d++) found = strcmp(w->devices[d]->name, dev) == 0;
    if (!found) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "RegisterGraph on %s: node '%s' is assigned to '%s', not a device of this task",
                     w->task, nd->name, dev ? dev : "");
      goto fail;
    }
  }
  tfc_partition_options po = {w->devices, w->n_devices};
  if (tfc_partition_graph(graph, &po, &parts, s)) goto fail;
  g->parts = calloc((size_t)parts.n + 1, sizeof *g->parts);
  if (!g->parts) {
    TFC_OOM(s);
    goto fail;
  }
  for (int i = 0; i < parts.n; i++) {
    g->parts[i] = (wpart){parts.parts[i].device, parts.parts[i].graph, NULL};
    parts.parts[i].graph = NULL;
    g->n_parts++;
  }
  for (int i = 0; i < g->n_parts; i++) {
    g->parts[i].exec = tfc_executor_new(g->parts[i].graph, g->parts[i].device, NULL, s);
    if (!g->parts[i].exec) goto fail;
  }
  if (call_arity(g, "_Arg", &g->n_args, s) || call_arity(g, "_Retval", &g->n_rets, s)) goto fail;
  /* Random handles: a master holding a handle from before this worker restarted gets
   * ABORTED, never another graph. */
  if (asprintf(&g->handle, "%016llx", (unsigned long long)tfc_new_incarnation()) < 0) {
    g->handle = NULL;
    TFC_OOM(s);
    goto fail;
  }
  *out_handle = tfc_strdup(g->handle);
  if (!*out_handle) {
    TFC_OOM(s);
    goto fail;
  }
  g->refs = 1;
  pthread_mutex_lock(&w->mu);
  g->next = w->graphs;
  w->graphs = g;
  w->n_live++;
  pthread_mutex_unlock(&w->mu);
  tfc_partitions_fini(&parts);
  tfc_graph_free(graph);
  return TFC_OK;
fail:
  tfc_partitions_fini(&parts);
  if (g) wgraph_free(g);
  tfc_graph_free(graph);
  return s->code;
}

int tfc_worker_register_graphdef(tfc_worker *w, const char *session_handle, const void *graphdef, size_t len,
                                 char **out_handle, tfc_status *s) {
  *out_handle = NULL;
  tfc_graph *g = tfc_graph_new();
  if (!g) return TFC_OOM(s);
  g->internal_names = 1;
  /* A partition keeps its nodes' _class attrs, whose "loc:@x" may name a node of another
   * task's partition (placement is done; TF's worker does not check them either). */
  tfc_import_options o = {.skip_colocation_validation = 1};
  if (tfc_graphdef_import(g, graphdef, len, &o, NULL, s)) {
    tfc_graph_free(g);
    return s->code;
  }
  /* NodeDef.device holds the assigned device of a partition's node. */
  for (int i = 0; i < g->n_nodes; i++) {
    tfc_node *nd = g->nodes[i];
    nd->assigned_device = tfc_strdup(nd->device);
    if (!nd->assigned_device) {
      tfc_graph_free(g);
      return TFC_OOM(s);
    }
  }
  return tfc_worker_register_graph(w, session_handle, g, out_handle, s);
}

static wgraph *graph_get(tfc_worker *w, const char *handle) {
  pthread_mutex_lock(&w->mu);
  wgraph *g = w->graphs;
  while (g && strcmp(g->handle, handle) != 0) g = g->next;
  if (g) g->refs++;
  pthread_mutex_unlock(&w->mu);
  return g;
}

static void graph_put(tfc_worker *w, wgraph *g) {
  pthread_mutex_lock(&w->mu);
  int last = --g->refs == 0;
  pthread_mutex_unlock(&w->mu);
  if (!last) return;
  wgraph_free(g);
  live_gone(w);
}

/* Unlinks the first graph matching handle (or, with handle NULL, session); lock held. */
static wgraph *graph_unlink(tfc_worker *w, const char *handle, const char *session) {
  for (wgraph **pp = &w->graphs; *pp; pp = &(*pp)->next) {
    wgraph *g = *pp;
    const char *mine = handle ? g->handle : g->session, *want = handle ? handle : session;
    if (want && strcmp(mine, want) == 0) {
      *pp = g->next;
      g->next = NULL;
      return g;
    }
  }
  return NULL;
}

int tfc_worker_deregister_graph(tfc_worker *w, const char *handle, tfc_status *s) {
  pthread_mutex_lock(&w->mu);
  wgraph *g = graph_unlink(w, handle, NULL);
  pthread_mutex_unlock(&w->mu);
  if (!g)
    return tfc_status_set(s, TFC_ABORTED, "Graph handle is not found: %s. Possibly, this worker just restarted.",
                          handle);
  graph_put(w, g);
  return TFC_OK;
}

void tfc_worker_deregister_session(tfc_worker *w, const char *session_handle) {
  for (;;) {
    pthread_mutex_lock(&w->mu);
    wgraph *g = graph_unlink(w, NULL, session_handle);
    pthread_mutex_unlock(&w->mu);
    if (!g) return;
    graph_put(w, g);
  }
}

/* ---------------- steps ---------------- */

static int recently_cleaned(const tfc_worker *w, int64_t step_id) {
  for (int i = 0; i < w->n_recent; i++)
    if (w->recent[i] == step_id) return 1;
  return 0;
}

static void remember_cleaned(tfc_worker *w, int64_t step_id) {
  w->recent[w->recent_pos] = step_id;
  w->recent_pos = (w->recent_pos + 1) % RECENT_STEPS;
  if (w->n_recent < RECENT_STEPS) w->n_recent++;
}

static void step_hold(void *arg);
static void fetch_tensor(void *arg, tfc_rendezvous *r, const char *key);
static void step_aborted(void *arg, const tfc_status *s);

/* The chain of the steps whose ids hash to step_id's bucket. Called with w->mu held. */
static wstep **step_bucket(tfc_worker *w, int64_t step_id) {
  uint64_t h = (uint64_t)step_id * 0x9e3779b97f4a7c15ull; /* ids are random or sequential: mix */
  return &w->steps[(h >> 32) % STEP_BUCKETS];
}

/* Takes st out of its chain; 1 when it was there. Called with w->mu held. */
static int step_remove(tfc_worker *w, wstep *st) {
  for (wstep **pp = step_bucket(w, st->step_id); *pp; pp = &(*pp)->next)
    if (*pp == st) {
      *pp = st->next;
      st->next = NULL;
      w->n_steps--;
      return 1;
    }
  return 0;
}

/* The step of step_id, created when absent (a new reference). NULL with ABORTED when the
 * step was cleaned up already, or out of memory. */
static wstep *step_get(tfc_worker *w, int64_t step_id, int create, tfc_status *s) {
  pthread_mutex_lock(&w->mu);
  wstep **bucket = step_bucket(w, step_id);
  wstep *st = *bucket;
  while (st && st->step_id != step_id) st = st->next;
  if (st) {
    st->refs++;
  } else if (recently_cleaned(w, step_id)) {
    tfc_status_set(s, TFC_ABORTED, "Step %lld is already over on %s", (long long)step_id, w->task);
  } else if (create) {
    st = calloc(1, sizeof *st);
    if (st) st->rdv = tfc_rendezvous_new();
    if (!st || !st->rdv || tfc_rendezvous_set_remote(st->rdv, w->prefix, step_hold, fetch_tensor, step_aborted, st)) {
      if (st) tfc_rendezvous_unref(st->rdv);
      free(st);
      st = NULL;
      TFC_OOM(s);
    } else {
      pthread_mutex_init(&st->mu, NULL);
      tfc_var_txn_init(&st->txn);
      st->refs = 2; /* the table's and the caller's */
      st->step_id = step_id;
      st->w = w;
      st->next = *bucket;
      *bucket = st;
      w->n_steps++;
      w->n_live++;
    }
  }
  pthread_mutex_unlock(&w->mu);
  return st;
}

/* The rendezvous's hold for a fetch: a reference, let go by fetch_tensor. */
static void step_hold(void *arg) {
  wstep *st = arg;
  pthread_mutex_lock(&st->w->mu);
  st->refs++;
  pthread_mutex_unlock(&st->w->mu);
}

static void step_put(wstep *st) {
  tfc_worker *w = st->w;
  pthread_mutex_lock(&w->mu);
  int last = --st->refs == 0;
  pthread_mutex_unlock(&w->mu);
  if (!last) return;
  wstep_free(st);
  live_gone(w);
}

/* Takes the step out of the table (the table's reference goes to the caller). */
static wstep *step_unlink(tfc_worker *w, int64_t step_id) {
  pthread_mutex_lock(&w->mu);
  wstep *st = *step_bucket(w, step_id);
  while (st && st->step_id != step_id) st = st->next;
  if (st) step_remove(w, st);
  if (!recently_cleaned(w, step_id)) remember_cleaned(w, step_id);
  pthread_mutex_unlock(&w->mu);
  return st;
}

void tfc_worker_abort_step(tfc_worker *w, int64_t step_id, const tfc_status *abort) {
  tfc_status ignore;
  tfc_status_init(&ignore);
  wstep *st = step_get(w, step_id, 0, &ignore);
  tfc_status_fini(&ignore);
  if (!st) return;
  if (abort && !tfc_status_ok(abort)) tfc_rendezvous_abort(st->rdv, abort);
  step_put(st);
}

void tfc_worker_cleanup_step(tfc_worker *w, int64_t step_id, const tfc_status *abort) {
  wstep *st = step_unlink(w, step_id);
  if (!st) return;
  /* Abort even a step that succeeded: a RecvTensor still waiting (its receiver gave up) must
   * be answered, and tensors nobody took are released. */
  tfc_status over;
  tfc_status_init(&over);
  tfc_status_set(&over, TFC_ABORTED, "Step %lld is already over on %s", (long long)step_id, w->task);
  tfc_rendezvous_abort(st->rdv, abort && !tfc_status_ok(abort) ? abort : &over);
  tfc_status_fini(&over);
  /* The step failed somewhere: this task's writes are undone too (a write another step made
   * since stands). Otherwise they are committed when the step goes. */
  if (abort && !tfc_status_ok(abort)) tfc_var_txn_rollback(&st->txn);
  step_put(st);
}

int tfc_worker_cleanup_all(tfc_worker *w, char *const *containers, int n, tfc_status *s) {
  for (int d = 0; d < w->n_devices; d++)
    for (int i = 0; i < (n > 0 ? n : 1); i++)
      TFC_TRY(tfc_resource_mgr_clear(w->devices[d]->resources, n > 0 ? containers[i] : NULL, s));
  return TFC_OK;
}

/* ---------------- pulling tensors from other tasks ---------------- */

struct fetch_call {
  int refs; /* under st->mu: the caller's and the completion's */
  wstep *st;
  char *key;
  char *task;
  tfc_rpc_pending *pending;
  int completed;
  fetch_call *prev, *next;
};

static void fetch_unref_locked(fetch_call *fc, int *last) { *last = --fc->refs == 0; }

static void fetch_free(fetch_call *fc) {
  tfc_rpc_pending_release(fc->pending);
  free(fc->key);
  free(fc->task);
  free(fc);
}

/* The task part of a device name: "/job:ps/replica:0/task:0/device:CPU:0" -> up to "/device:". */
static char *task_of_device(const char *device, size_t len) {
  const char *end = NULL;
  for (const char *p = device; p + 8 <= device + len; p++)
    if (memcmp(p, "/device:", 8) == 0) {
      end = p;
      break;
    }
  if (!end) return NULL;
  char *t = malloc((size_t)(end - device) + 1);
  if (t) {
    memcpy(t, device, (size_t)(end - device));
    t[end - device] = '\0';
  }
  return t;
}

static void fail_fetch(wstep *st, const char *task, const tfc_status *err) {
  tfc_status s;
  tfc_status_init(&s);
  /* Transport failures name the task; an error the sender's step reports is passed as is
   * (it already names its node and device). */
  if (err->code == TFC_UNAVAILABLE || err->code == TFC_DEADLINE_EXCEEDED || err->code == TFC_CANCELLED)
    tfc_status_set(&s, err->code, "RecvTensor from %s failed: %s", task ? task : "another task",
                   tfc_status_msg(err));
  else
    tfc_status_set(&s, err->code, "%s", tfc_status_msg(err));
  tfc_rendezvous_abort(st->rdv, &s);
  tfc_status_fini(&s);
}

static void fetch_done(void *arg, const tfc_status *rs, tfc_msg_in *resp) {
  fetch_call *fc = arg;
  wstep *st = fc->st;
  tfc_status s;
  tfc_status_init(&s);
  if (!tfc_status_ok(rs)) {
    fail_fetch(st, fc->task, rs);
  } else {
    ProtobufCMessage *m = NULL;
    tfc_wire_tensors ts;
    tfc_wire_tensors_init(&ts);
    if (tfc_wire_get_message(resp, &tensorflow__recv_tensor_response__descriptor, 1, TFC_WIRE_TENSOR_PROTO,
                             "RecvTensorResponse", &m, &ts, &s) == TFC_OK &&
        ts.n != 1)
      tfc_status_set(&s, TFC_INTERNAL, "RecvTensorResponse from %s holds %d tensors for %s", fc->task, ts.n,
                     fc->key);
    if (tfc_status_ok(&s)) {
      int is_dead = ((Tensorflow__RecvTensorResponse *)m)->is_dead;
      tfc_status ignore; /* a step aborted meanwhile refuses the send: nothing left to do */
      tfc_status_init(&ignore);
      tfc_rendezvous_send(st->rdv, fc->key, ts.tensors[0], is_dead, &ignore);
      tfc_status_fini(&ignore);
    } else {
      fail_fetch(st, fc->task, &s);
    }
    tfc_wire_tensors_fini(&ts);
    if (m) protobuf_c_message_free_unpacked(m, NULL);
  }
  tfc_msg_in_free(resp);
  tfc_status_fini(&s);
  int last;
  pthread_mutex_lock(&st->mu);
  fc->completed = 1;
  if (fc->prev) fc->prev->next = fc->next; else if (st->fetches == fc) st->fetches = fc->next;
  if (fc->next) fc->next->prev = fc->prev;
  fc->prev = fc->next = NULL;
  fetch_unref_locked(fc, &last);
  pthread_mutex_unlock(&st->mu);
  if (last) fetch_free(fc);
  step_put(st);
}

/* Runs with a hold on the step (step_hold): the receiver that asked may be gone already. The
 * call's completion takes a reference of its own; the hold is let go on return. */
static void fetch_tensor(void *arg, tfc_rendezvous *r, const char *key) {
  wstep *st = arg;
  tfc_worker *w = st->w;
  tfc_status s;
  tfc_status_init(&s);
  const char *semi = strchr(key, ';');
  char *task = task_of_device(key, semi ? (size_t)(semi - key) : strlen(key));
  tfc_rpc_channel *ch = NULL;
  if (!task)
    tfc_status_set(&s, TFC_INVALID_ARGUMENT, "Malformed rendezvous key '%s': no task in its send device", key);
  else
    ch = w->channel_for(w->channel_arg, task, &s);
  fetch_call *fc = ch ? calloc(1, sizeof *fc) : NULL;
  if (ch && (!fc || !(fc->key = tfc_strdup(key)))) TFC_OOM(&s);
  if (!tfc_status_ok(&s)) {
    if (fc) free(fc->key);
    free(fc);
    fail_fetch(st, task, &s);
    free(task);
    tfc_status_fini(&s);
    step_put(st);
    return;
  }
  fc->task = task;
  fc->st = st;
  fc->refs = 2;
  /* The request: step id and key, packed by protobuf-c. */
  Tensorflow__RecvTensorRequest req;
  tensorflow__recv_tensor_request__init(&req);
  req.step_id = st->step_id;
  req.rendezvous_key = fc->key;
  tfc_msg_out *m = tfc_msg_out_new();
  if (!m || tfc_wire_put_message(m, &req.base, &s)) {
    tfc_msg_out_free(m);
    if (tfc_status_ok(&s)) TFC_OOM(&s);
    fail_fetch(st, task, &s);
    fetch_free(fc);
    tfc_status_fini(&s);
    step_put(st);
    return;
  }
  pthread_mutex_lock(&w->mu);
  st->refs++; /* the completion's */
  pthread_mutex_unlock(&w->mu);
  pthread_mutex_lock(&st->mu);
  int64_t deadline = st->deadline_us;
  fc->next = st->fetches;
  if (st->fetches) st->fetches->prev = fc;
  st->fetches = fc;
  pthread_mutex_unlock(&st->mu);
  tfc_rpc_pending *p = NULL;
  tfc_rpc_call_async(ch, "/tensorflow.WorkerService/RecvTensor", m, deadline, 0, fetch_done, fc, &p);
  int last, cancel;
  pthread_mutex_lock(&st->mu);
  fc->pending = p;
  cancel = st->aborted && !fc->completed; /* aborted before the handle was known */
  fetch_unref_locked(fc, &last);
  pthread_mutex_unlock(&st->mu);
  if (cancel) tfc_rpc_cancel(p);
  if (last) fetch_free(fc);
  tfc_status_fini(&s);
  step_put(st);
  (void)r;
}

/* The step was aborted: cancel every pull in flight (their completions then run with
 * CANCELLED, and find the rendezvous already aborted). */
static void step_aborted(void *arg, const tfc_status *s) {
  wstep *st = arg;
  /* Collected under the lock (each held by a reference), cancelled outside it: a completion
   * takes the same lock. */
  int n = 0, cap = 0, last;
  fetch_call **todo = NULL;
  pthread_mutex_lock(&st->mu);
  st->aborted = 1;
  for (fetch_call *fc = st->fetches; fc; fc = fc->next) {
    if (!fc->pending || fc->completed) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      fetch_call **a = realloc(todo, sizeof *a * (size_t)cap);
      if (!a) break; /* the rest finish by themselves: the rendezvous is aborted already */
      todo = a;
    }
    fc->refs++;
    todo[n++] = fc;
  }
  pthread_mutex_unlock(&st->mu);
  for (int i = 0; i < n; i++) {
    tfc_rpc_cancel(todo[i]->pending);
    pthread_mutex_lock(&st->mu);
    fetch_unref_locked(todo[i], &last);
    pthread_mutex_unlock(&st->mu);
    if (last) fetch_free(todo[i]);
  }
  free(todo);
  (void)s;
}

/* ---------------- RunGraph ---------------- */

typedef struct run_state {
  tfc_worker *w;
  wgraph *g;
  wstep *st;
  tfc_tensor **feeds; /* our references */
  tfc_tensor **rets;
  tfc_call_frame frame;
  tfc_exec_args args;
  pthread_mutex_t mu;
  int remaining;
  tfc_status status;
  tfc_worker_run_done done;
  void *arg;
} run_state;

static void run_state_free(run_state *r) {
  for (int i = 0; i < r->frame.n_args; i++) tfc_tensor_unref(r->feeds[i]);
  for (int i = 0; i < r->frame.n_rets; i++) tfc_tensor_unref(r->rets[i]);
  free(r->feeds);
  free(r->rets);
  tfc_status_fini(&r->status);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

/* A fetch left without a value after a successful step was dead (the untaken side of a
 * cond): INVALID_ARGUMENT "The tensor returned for <tensor> was not valid.", as TF's worker
 * says of a dead tensor it was to return, <tensor> being what _Retval `index` takes. */
static void dead_fetch(const wgraph *g, int index, tfc_status *s) {
  for (int p = 0; p < g->n_parts; p++) {
    const tfc_graph *pg = g->parts[p].graph;
    for (int i = 0; i < pg->n_nodes; i++) {
      const tfc_node *nd = pg->nodes[i];
      int64_t k;
      if (nd->op->id != TFC_OP__Retval || nd->n_inputs != 1 || tfc_node_attr_int(nd, "index", &k) || k != index)
        continue;
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "The tensor returned for %s:%d was not valid.", nd->inputs[0].node->name,
                     nd->inputs[0].index);
      return;
    }
  }
  tfc_status_set(s, TFC_INVALID_ARGUMENT, "The tensor returned for fetch %d was not valid.", index);
}

static void part_done(void *arg, const tfc_status *s) {
  run_state *r = arg;
  pthread_mutex_lock(&r->mu);
  if (!tfc_status_ok(s) && tfc_status_ok(&r->status)) tfc_status_set(&r->status, s->code, "%s", tfc_status_msg(s));
  int last = --r->remaining == 0;
  pthread_mutex_unlock(&r->mu);
  if (!last) return;
  /* The step is over here. A failure undoes this task's writes now; a success keeps them in
   * the step's journal until the master reports the whole step's outcome. */
  if (tfc_status_ok(&r->status)) {
    for (int i = 0; i < r->frame.n_rets && tfc_status_ok(&r->status); i++)
      if (!r->rets[i]) dead_fetch(r->g, i, &r->status);
  }
  if (!tfc_status_ok(&r->status)) {
    tfc_var_txn_rollback(&r->st->txn);
    tfc_rendezvous_abort(r->st->rdv, &r->status);
    r->done(r->arg, &r->status, NULL, 0);
  } else {
    tfc_tensor **rets = r->rets;
    int n = r->frame.n_rets;
    r->rets = NULL;
    r->frame.n_rets = 0;
    r->done(r->arg, &r->status, rets, n);
    free(rets);
  }
  step_put(r->st);
  graph_put(r->w, r->g);
  run_state_free(r);
}

static void part_start(void *arg) {
  /* arg points into the executors' argument block: see run_graph. */
  void **pa = arg;
  run_state *r = pa[0];
  tfc_executor *e = pa[1];
  free(pa);
  tfc_executor_run_async(e, &r->args, part_done, r);
}

void tfc_worker_run_graph(tfc_worker *w, const char *handle, int64_t step_id, tfc_tensor *const *feeds, int n_feeds,
                          int64_t deadline_us, int run_inline, tfc_worker_run_done done, void *arg) {
  tfc_status s;
  tfc_status_init(&s);
  wgraph *g = graph_get(w, handle);
  wstep *st = NULL;
  run_state *r = NULL;
  if (!g) {
    /* ABORTED, as in TF: a master's recovery treats it as retryable (rebuild the session). */
    tfc_status_set(&s, TFC_ABORTED, "Graph handle is not found: %s. Possibly, this worker (%s) just restarted.",
                   handle, w->task);
    goto fail;
  }
  if (n_feeds != g->n_args) {
    tfc_status_set(&s, TFC_INVALID_ARGUMENT, "RunGraph on %s: %d feeds given, the graph takes %d", w->task, n_feeds,
                   g->n_args);
    goto fail;
  }
  st = step_get(w, step_id, 1, &s);
  if (!st) goto fail;
  pthread_mutex_lock(&w->mu);
  st->n_runs++; /* a step that ran is never dropped for its RecvTensors' sake */
  pthread_mutex_unlock(&w->mu);
  r = calloc(1, sizeof *r);
  if (!r) {
    TFC_OOM(&s);
    goto fail;
  }
  pthread_mutex_init(&r->mu, NULL);
  tfc_status_init(&r->status);
  r->feeds = calloc((size_t)n_feeds + 1, sizeof *r->feeds);
  r->rets = calloc((size_t)g->n_rets + 1, sizeof *r->rets);
  if (!r->feeds || !r->rets) {
    run_state_free(r);
    r = NULL;
    TFC_OOM(&s);
    goto fail;
  }
  for (int i = 0; i < n_feeds; i++) r->feeds[i] = tfc_tensor_ref(feeds[i]);
  r->frame = (tfc_call_frame){n_feeds, r->feeds, g->n_rets, r->rets};
  r->w = w;
  r->g = g;
  r->st = st;
  r->done = done;
  r->arg = arg;
  r->remaining = g->n_parts;
  r->args = (tfc_exec_args){&r->frame, w->pool, step_id, st->rdv, &st->txn, NULL, 0};
  pthread_mutex_lock(&st->mu);
  if (deadline_us > 0 && (st->deadline_us == 0 || deadline_us < st->deadline_us)) st->deadline_us = deadline_us;
  pthread_mutex_unlock(&st->mu);
  if (g->n_parts == 0) {
    r->remaining = 1;
    tfc_status ok;
    tfc_status_init(&ok);
    part_done(r, &ok);
    tfc_status_fini(&ok);
    return;
  }
  /* Partitions start on the pool; with run_inline the last runs on this thread. Once the last
   * one has started the step may be over and r and g gone: nothing here touches them after. */
  int n = g->n_parts;
  for (int i = 0; i < n; i++) {
    tfc_executor *e = g->parts[i].exec;
    void **pa = malloc(2 * sizeof *pa);
    if (pa) {
      pa[0] = r;
      pa[1] = e;
    }
    if (!pa) {
      tfc_executor_run_async(e, &r->args, part_done, r);
    } else if ((run_inline && i == n - 1) || tfc_threadpool_schedule(w->pool, part_start, pa) != 0) {
      part_start(pa);
    }
  }
  tfc_status_fini(&s);
  return;
fail:
  if (st) step_put(st);
  if (g) graph_put(w, g);
  done(arg, &s, NULL, 0);
  tfc_status_fini(&s);
}

/* ---------------- RecvTensor ---------------- */

/* A RecvTensor waiting in its step's rendezvous: on the step's list until the rendezvous
 * answers it. A wait whose client went away is answered (CANCELLED) at once by
 * tfc_worker_recv_cancel and stays a stub until then: what the rendezvous hands it later is
 * dropped. */
typedef struct recv_wait {
  wstep *st;
  tfc_recv_done done;
  void *arg;
  int cancelled; /* its client went away: answered already (under st->mu) */
  struct recv_wait *prev, *next;
} recv_wait;

static void recv_waited(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  recv_wait *rw = arg;
  wstep *st = rw->st;
  pthread_mutex_lock(&st->mu);
  if (rw->prev)
    rw->prev->next = rw->next;
  else
    st->waits = rw->next;
  if (rw->next) rw->next->prev = rw->prev;
  st->n_waits--;
  int answered = rw->cancelled;
  if (answered) st->n_cancelled--;
  pthread_mutex_unlock(&st->mu);
  if (answered)
    tfc_tensor_unref(t);
  else
    rw->done(rw->arg, s, t, is_dead);
  step_put(st);
  free(rw);
}

void tfc_worker_recv_tensor(tfc_worker *w, int64_t step_id, const char *key, tfc_recv_done done, void *arg) {
  tfc_status s;
  tfc_status_init(&s);
  size_t plen = strlen(w->prefix);
  const char *semi = strchr(key, ';');
  wstep *st = NULL;
  recv_wait *rw = NULL;
  if (!semi || strchr(semi + 1, ';') == NULL) {
    tfc_status_set(&s, TFC_INVALID_ARGUMENT, "Malformed rendezvous key '%s'", key);
  } else if ((size_t)(semi - key) < plen || memcmp(key, w->prefix, plen) != 0) {
    tfc_status_set(&s, TFC_INVALID_ARGUMENT, "RecvTensor on %s for key '%s': its send device is not on this task",
                   w->task, key);
  } else if ((st = step_get(w, step_id, 1, &s)) != NULL) {
    rw = calloc(1, sizeof *rw);
    if (!rw) TFC_OOM(&s);
  }
  if (!rw) {
    if (st) step_put(st);
    done(arg, &s, NULL, 0);
    tfc_status_fini(&s);
    return;
  }
  rw->st = st;
  rw->done = done;
  rw->arg = arg;
  pthread_mutex_lock(&st->mu);
  rw->next = st->waits;
  if (st->waits) st->waits->prev = rw;
  st->waits = rw;
  st->n_waits++;
  pthread_mutex_unlock(&st->mu);
  tfc_rendezvous_recv_async(st->rdv, key, recv_waited, rw);
  tfc_status_fini(&s);
}

void tfc_worker_recv_cancel(tfc_worker *w, int64_t step_id, void *arg) {
  tfc_status ignore;
  tfc_status_init(&ignore);
  wstep *st = step_get(w, step_id, 0, &ignore);
  tfc_status_fini(&ignore);
  if (!st) return;
  /* Under both locks, so that no RunGraph or RecvTensor can take the step meanwhile: it goes
   * when every RecvTensor waiting on it was given up and nothing else holds it (the table's
   * reference, ours, and one per wait). A step that ran stays for CleanupGraph. */
  int drop = 0;
  tfc_recv_done answer = NULL;
  pthread_mutex_lock(&w->mu);
  pthread_mutex_lock(&st->mu);
  recv_wait *rw = st->waits;
  /* A stub's arg may be gone and reused by a later call: only live waits match. */
  while (rw && (rw->arg != arg || rw->cancelled)) rw = rw->next;
  if (rw) {
    rw->cancelled = 1;
    st->n_cancelled++;
    answer = rw->done;
  }
  if (rw && st->n_runs == 0 && st->n_cancelled == st->n_waits && st->refs == st->n_waits + 2) {
    drop = step_remove(w, st);
  }
  pthread_mutex_unlock(&st->mu);
  pthread_mutex_unlock(&w->mu);
  tfc_status c;
  tfc_status_init(&c);
  tfc_status_set(&c, TFC_CANCELLED, "RecvTensor of step %lld on %s was cancelled: its receiver went away",
                 (long long)step_id, w->task);
  /* The wait is answered now (the reply goes nowhere; the call and its memory go with it). */
  if (answer) answer(arg, &c, NULL, 0);
  if (drop) {
    /* Releases every stub wait, and the step with the last one. */
    tfc_rendezvous_abort(st->rdv, &c);
    step_put(st); /* the table's reference */
  }
  tfc_status_fini(&c);
  step_put(st);
}

int tfc_worker_num_steps(tfc_worker *w) {
  pthread_mutex_lock(&w->mu);
  int n = w->n_steps;
  pthread_mutex_unlock(&w->mu);
  return n;
}
