/*
 * master_step — the master's plans and steps; see master.h for the protocol.
 *
 * A step keeps one slot per task of its plan. RunGraph goes out to every task at once (the
 * local worker is called directly, the others by RPC); completions land in the slots. The
 * first failure (or the deadline, or a cancellation) aborts the step everywhere: each other
 * task gets CleanupGraph with the error, which stops its executors and its receives and turns
 * a RunGraph that has not arrived yet into ABORTED. The master still waits for every task to
 * answer, but only for a grace period once the step is aborted: a task that does not answer
 * by then (it hangs, its host vanished) has its call cancelled.
 *
 * Plans heal: when a task answers a step with ABORTED "Graph handle is not found" (it
 * restarted and lost its graphs), the step fails with that error, as in TF, and its plan
 * turns stale; the next step of that signature builds and
 * registers the plan afresh on every task (the stale one is deregistered and freed once no
 * step runs). A client that retries the step therefore goes on with the same session once the
 * task is back, where TF's client must recreate its session. A restarted task's state (a ps's
 * variables) is not brought back here: steps that read it fail FAILED_PRECONDITION until the
 * client restores or initializes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "distributed_runtime/master_int.h"
#include "distributed_runtime/wire.h"
#include "partition/partition.h"
#include "proto/graphdef.h"
#include "session/client_graph.h"
#include "tensorflow/worker.pb-c.h"

/* How long tasks get to answer once a step is aborted before their calls are cancelled. */
#define ABORT_GRACE_MS 5000

/* ---------------- RPCs to workers ---------------- */

static void ignore_done(void *arg, const tfc_status *s, tfc_msg_in *resp) {
  tfc_msg_in_free(resp);
  (void)arg, (void)s;
}

/* CleanupGraph on one task, not waiting for the answer; abort may be NULL. */
static void cleanup_task(msession *ms, int t, int64_t step_id, const tfc_status *abort) {
  mtask *mt = &ms->tasks[t];
  if (mt->local) {
    tfc_worker_cleanup_step(ms->m->local, step_id, abort);
    return;
  }
  Tensorflow__CleanupGraphRequest req;
  tensorflow__cleanup_graph_request__init(&req);
  req.step_id = step_id;
  if (abort && !tfc_status_ok(abort)) {
    req.abort_code = abort->code;
    req.abort_message = (char *)tfc_status_msg(abort);
  }
  tfc_status s;
  tfc_status_init(&s);
  tfc_msg_out *m = tfc_msg_out_new();
  if (m && tfc_wire_put_message(m, &req.base, &s) == TFC_OK)
    tfc_rpc_call_async(mt->ch, "/tensorflow.WorkerService/CleanupGraph", m, tfc_deadline_after_ms(10000), 0,
                       ignore_done, NULL, NULL);
  else
    tfc_msg_out_free(m);
  tfc_status_fini(&s);
}

/* ---------------- plans ---------------- */

void tfc_mplan_free(msession *ms, mplan *p, int deregister) {
  for (int i = 0; i < p->n_tasks; i++) {
    mplan_task *pt = &p->tasks[i];
    if (deregister && pt->handle) {
      mtask *mt = &ms->tasks[pt->task];
      if (mt->local) {
        tfc_status s;
        tfc_status_init(&s);
        tfc_worker_deregister_graph(ms->m->local, pt->handle, &s);
        tfc_status_fini(&s);
      } else {
        Tensorflow__DeregisterGraphRequest req;
        tensorflow__deregister_graph_request__init(&req);
        req.graph_handle = pt->handle;
        req.session_handle = ms->handle;
        tfc_status s;
        tfc_status_init(&s);
        tfc_msg_out *m = tfc_msg_out_new();
        if (m && tfc_wire_put_message(m, &req.base, &s) == TFC_OK)
          tfc_rpc_call_async(mt->ch, "/tensorflow.WorkerService/DeregisterGraph", m, tfc_deadline_after_ms(10000),
                             0, ignore_done, NULL, NULL);
        else
          tfc_msg_out_free(m);
        tfc_status_fini(&s);
      }
    }
    free(pt->handle);
    free(pt->feed_idx);
    free(pt->fetch_idx);
  }
  free(p->tasks);
  free(p->sig);
  free(p);
}

static const char *placed_name(void *arg, const tfc_node *n) {
  msession *ms = arg;
  return ms->devices[ms->placement[n->id].device]->name;
}

static int device_index(const msession *ms, const tfc_device *d) {
  for (int i = 0; i < ms->n_devices; i++)
    if (ms->devices[i] == d) return i;
  return -1;
}

/* Renumbers the partition's _Arg (or _Retval) nodes within their task, recording where each
 * comes from. */
static int renumber(tfc_graph *g, const char *op, int **idx, int *n, int *cap, tfc_status *s) {
  for (int i = 0; i < g->n_nodes; i++) {
    tfc_node *nd = g->nodes[i];
    if (strcmp(nd->op->name, op) != 0) continue;
    tfc_attr_value *v = (tfc_attr_value *)tfc_node_attr(nd, "index");
    if (!v) return tfc_status_set(s, TFC_INTERNAL, "%s node '%s' has no index", op, nd->name);
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 8;
      int *a = realloc(*idx, sizeof *a * (size_t)*cap);
      if (!a) return TFC_OOM(s);
      *idx = a;
    }
    (*idx)[*n] = (int)v->u.i;
    v->u.i = (*n)++;
  }
  return TFC_OK;
}

static int register_task(msession *ms, mplan_task *pt, const void *gd, size_t len, tfc_status *s) {
  mtask *mt = &ms->tasks[pt->task];
  if (mt->local) return tfc_worker_register_graphdef(ms->m->local, ms->handle, gd, len, &pt->handle, s);
  /* session_handle by protobuf-c, then the GraphDef bytes as field 2 (an embedded message). */
  Tensorflow__RegisterGraphRequest req;
  tensorflow__register_graph_request__init(&req);
  req.session_handle = ms->handle;
  tfc_msg_out *m = tfc_msg_out_new();
  if (!m) return TFC_OOM(s);
  if (tfc_wire_put_message(m, &req.base, s) || tfc_wire_put_bytes(m, 2, gd, len, s)) {
    tfc_msg_out_free(m);
    return s->code;
  }
  tfc_msg_in *resp = NULL;
  tfc_status err;
  tfc_status_init(&err);
  /* Registration is quick work for a live task: a minute unless the session says less. */
  int64_t timeout = ms->cfg.operation_timeout_in_ms > 0 ? ms->cfg.operation_timeout_in_ms : 60000;
  if (tfc_rpc_call_sync(mt->ch, "/tensorflow.WorkerService/RegisterGraph", m, tfc_deadline_after_ms(timeout), 0,
                        &resp, &err)) {
    tfc_master_rpc_error("RegisterGraph", mt->name, &err, s);
  } else {
    tfc_wire_tensors none;
    tfc_wire_tensors_init(&none);
    ProtobufCMessage *pm = NULL;
    if (tfc_wire_get_message(resp, &tensorflow__register_graph_response__descriptor, 0, 0, "RegisterGraphResponse",
                             &pm, &none, s) == TFC_OK) {
      pt->handle = tfc_strdup(((Tensorflow__RegisterGraphResponse *)pm)->graph_handle);
      if (!pt->handle) TFC_OOM(s);
      protobuf_c_message_free_unpacked(pm, NULL);
    }
    tfc_wire_tensors_fini(&none);
  }
  tfc_msg_in_free(resp);
  tfc_status_fini(&err);
  return s->code;
}

/* Builds and registers the plan of one signature (session lock held). */
static mplan *build_plan(msession *ms, const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches,
                         int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s) {
  tfc_client_graph_spec spec = {.graph = ms->graph,
                                .n_nodes = ms->n_placed,
                                .device_of = placed_name,
                                .arg = ms,
                                .feeds = feeds,
                                .n_feeds = n_feeds,
                                .fetches = fetches,
                                .n_fetches = n_fetches,
                                .targets = targets,
                                .n_targets = n_targets,
                                .devices = ms->devices,
                                .n_devices = ms->n_devices,
                                .allow_soft_placement = ms->cfg.allow_soft_placement,
                                .log_placement = ms->cfg.log_device_placement != 0};
  tfc_partitions parts = {0, NULL};
  mplan *p = calloc(1, sizeof *p);
  /* Feeds and fetches of tensors on a GPU go through the master's own CPU:0 (TF's client
   * device); CPU-only graphs keep them beside their nodes. */
  const char *client_device = tfc_worker_num_devices(ms->m->local) ? tfc_worker_device(ms->m->local, 0)->name : NULL;
  tfc_graph *client = p ? tfc_client_graph_build_for(&spec, client_device, s) : NULL;
  int *caps = NULL;
  tfc_strbuf *gds = NULL;
  if (!p) TFC_OOM(s);
  if (!client) goto fail;
  tfc_partition_options po = {ms->devices, ms->n_devices};
  if (tfc_partition_graph(client, &po, &parts, s)) goto fail;
  p->tasks = calloc((size_t)ms->n_tasks + 1, sizeof *p->tasks);
  caps = calloc(2 * (size_t)ms->n_tasks + 1, sizeof *caps);
  gds = calloc((size_t)ms->n_tasks + 1, sizeof *gds);
  if (!p->tasks || !caps || !gds) {
    TFC_OOM(s);
    goto fail;
  }
  for (int t = 0; t < ms->n_tasks; t++) tfc_strbuf_init(&gds[t]);
  /* Each task's partitions, renumbered and serialized one after another: concatenated
   * GraphDefs are one GraphDef holding all their nodes. */
  int *slot = calloc((size_t)ms->n_tasks + 1, sizeof *slot);
  if (!slot) {
    TFC_OOM(s);
    goto fail;
  }
  for (int t = 0; t < ms->n_tasks; t++) slot[t] = -1;
  for (int i = 0; i < parts.n && tfc_status_ok(s); i++) {
    int t = ms->dev_task[device_index(ms, parts.parts[i].device)];
    if (slot[t] < 0) {
      slot[t] = p->n_tasks++;
      p->tasks[slot[t]].task = t;
    }
    mplan_task *pt = &p->tasks[slot[t]];
    if (renumber(parts.parts[i].graph, "_Arg", &pt->feed_idx, &pt->n_feeds, &caps[2 * t], s) ||
        renumber(parts.parts[i].graph, "_Retval", &pt->fetch_idx, &pt->n_fetches, &caps[2 * t + 1], s))
      break;
    void *bytes = NULL;
    size_t len = 0;
    if (tfc_graphdef_export_ex(parts.parts[i].graph, 0, 1, &bytes, &len, s)) break;
    tfc_strbuf_append(&gds[t], bytes, len);
    free(bytes);
  }
  for (int i = 0; i < p->n_tasks && tfc_status_ok(s); i++) {
    mplan_task *pt = &p->tasks[i];
    register_task(ms, pt, gds[pt->task].data, gds[pt->task].len, s);
  }
  free(slot);
  if (!tfc_status_ok(s)) goto fail;
  for (int t = 0; t < ms->n_tasks; t++) tfc_strbuf_fini(&gds[t]);
  free(gds);
  free(caps);
  tfc_partitions_fini(&parts);
  tfc_graph_free(client);
  return p;
fail:
  if (gds)
    for (int t = 0; t < ms->n_tasks; t++) tfc_strbuf_fini(&gds[t]);
  free(gds);
  free(caps);
  tfc_partitions_fini(&parts);
  tfc_graph_free(client);
  if (p) tfc_mplan_free(ms, p, 1);
  return NULL;
}

/* ---------------- names and placement ---------------- */

static int resolve_output(msession *ms, const char *name, tfc_endpoint *out, tfc_status *s) {
  const char *colon = strrchr(name, ':');
  char *nm = colon ? tfc_strndup(name, (size_t)(colon - name)) : tfc_strdup(name);
  if (!nm) return TFC_OOM(s);
  char *end = NULL;
  long idx = colon ? strtol(colon + 1, &end, 10) : 0;
  tfc_node *n = tfc_graph_find(ms->graph, nm);
  free(nm);
  if (!n || (colon && (end == colon + 1 || *end || idx < 0)))
    return tfc_status_set(s, TFC_NOT_FOUND, "Tensor %s, specified in either feed_devices or fetch_devices was not found in the Graph",
                          name);
  if (idx >= n->n_outputs)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' (type: '%s', num of outputs: %d) does not have output %ld",
                          n->name, n->op->name, n->n_outputs, idx);
  *out = (tfc_endpoint){n, (int)idx};
  return TFC_OK;
}

static int place_new(msession *ms, tfc_status *s) {
  tfc_graph *g = ms->graph;
  int n = g->n_nodes;
  if (n <= ms->n_placed) return TFC_OK;
  if (n > ms->cap_placed) {
    tfc_placement *a = realloc(ms->placement, sizeof *a * (size_t)n * 2);
    if (!a) return TFC_OOM(s);
    ms->placement = a;
    ms->cap_placed = n * 2;
  }
  const tfc_device *local0 = tfc_worker_num_devices(ms->m->local) ? tfc_worker_device(ms->m->local, 0) : NULL;
  tfc_place_options po = {ms->cfg.allow_soft_placement, local0, NULL};
  TFC_TRY(tfc_place(g, ms->n_placed, ms->devices, ms->n_devices, &po, ms->placement, s));
  if (ms->cfg.log_device_placement) tfc_placement_log(g, ms->n_placed, n, ms->devices, ms->placement, 0);
  ms->n_placed = n;
  return TFC_OK;
}

/* ---------------- steps ---------------- */

typedef struct mslot {
  int task;
  tfc_rpc_pending *pending;
  int done;
  tfc_status status;
  struct mstep *step;
} mslot;

typedef struct mstep {
  msession *ms;
  mplan *plan;
  int64_t step_id;
  int64_t timeout_ms, deadline; /* the step's timeout and its absolute deadline (µs); 0: none */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int remaining;
  int aborted;
  tfc_status status; /* the step's error */
  mslot *slots;
  tfc_tensor **out;
  struct mstep *next;
} mstep;

/* Error aggregation: an abort report gives way to its cause. */
static void note_error(mstep *st, const tfc_status *e) {
  int derived = st->status.code == TFC_CANCELLED || st->status.code == TFC_ABORTED;
  if (tfc_status_ok(&st->status) || (derived && e->code != TFC_CANCELLED && e->code != TFC_ABORTED))
    tfc_status_set(&st->status, e->code, "%s", tfc_status_msg(e));
}

/* Marks the step aborted (st->mu held); 1 when it was not yet, and the caller must then call
 * broadcast_abort once it has released the lock. */
static int abort_locked(mstep *st, const tfc_status *why) {
  note_error(st, why);
  if (st->aborted) return 0;
  st->aborted = 1;
  return 1;
}

/* Tells every task to abort the step (st->mu not held: aborting the local worker's step may
 * complete its RunGraph on this thread). Tasks that answered already just forget the step. */
static void broadcast_abort(mstep *st) {
  tfc_status why;
  tfc_status_init(&why);
  pthread_mutex_lock(&st->mu);
  tfc_status_set(&why, st->status.code, "%s", tfc_status_msg(&st->status));
  pthread_mutex_unlock(&st->mu);
  for (int i = 0; i < st->plan->n_tasks; i++) cleanup_task(st->ms, st->slots[i].task, st->step_id, &why);
  tfc_status_fini(&why);
}

/* The step's own timeout error. */
static void set_timed_out(const mstep *st, tfc_status *s) {
  tfc_status_set(s, TFC_DEADLINE_EXCEEDED, "Timed out after %lld ms waiting for step %lld to finish",
                 (long long)st->timeout_ms, (long long)st->step_id);
}

static void slot_finish(mslot *sl, const tfc_status *s) {
  mstep *st = sl->step;
  int broadcast = 0;
  tfc_status to;
  tfc_status_init(&to);
  /* A task's call carries the step's deadline, so it may expire a moment before the step's
   * own timer fires: the step then failed for its timeout, and says so the same way. */
  if (s->code == TFC_DEADLINE_EXCEEDED && st->deadline && tfc_now_us() >= st->deadline) {
    set_timed_out(st, &to);
    s = &to;
  }
  pthread_mutex_lock(&st->mu);
  sl->done = 1;
  if (!tfc_status_ok(s)) {
    tfc_status_set(&sl->status, s->code, "%s", tfc_status_msg(s));
    broadcast = abort_locked(st, s);
  }
  pthread_mutex_unlock(&st->mu);
  if (broadcast) broadcast_abort(st);
  /* Last: once remaining reaches 0 the step may be gone. */
  pthread_mutex_lock(&st->mu);
  if (--st->remaining == 0) pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
  tfc_status_fini(&to);
}

static void local_done(void *arg, const tfc_status *s, tfc_tensor **fetches, int n_fetches) {
  mslot *sl = arg;
  mstep *st = sl->step;
  mplan_task *pt = &st->plan->tasks[sl - st->slots];
  for (int i = 0; i < n_fetches; i++) st->out[pt->fetch_idx[i]] = fetches[i];
  slot_finish(sl, s);
}

static void remote_done(void *arg, const tfc_status *rs, tfc_msg_in *resp) {
  mslot *sl = arg;
  mstep *st = sl->step;
  mplan_task *pt = &st->plan->tasks[sl - st->slots];
  mtask *mt = &st->ms->tasks[sl->task];
  tfc_status s;
  tfc_status_init(&s);
  if (!tfc_status_ok(rs)) {
    tfc_master_rpc_error("RunGraph", mt->name, rs, &s);
  } else {
    ProtobufCMessage *pm = NULL;
    tfc_wire_tensors ts;
    tfc_wire_tensors_init(&ts);
    if (tfc_wire_get_message(resp, &tensorflow__run_graph_response__descriptor, 1, TFC_WIRE_NAMED_TENSOR,
                             "RunGraphResponse", &pm, &ts, &s) == TFC_OK) {
      Tensorflow__RunGraphResponse *r = (Tensorflow__RunGraphResponse *)pm;
      if (r->status_code)
        tfc_status_set(&s, r->status_code, "%s", r->status_error_message);
      else if (ts.n != pt->n_fetches)
        tfc_status_set(&s, TFC_INTERNAL, "RunGraph on %s returned %d tensors for %d fetches", mt->name, ts.n,
                       pt->n_fetches);
      else
        for (int i = 0; i < ts.n; i++) {
          st->out[pt->fetch_idx[i]] = ts.tensors[i];
          ts.tensors[i] = NULL;
        }
      protobuf_c_message_free_unpacked(pm, NULL);
    }
    tfc_wire_tensors_fini(&ts);
  }
  tfc_msg_in_free(resp);
  slot_finish(sl, &s);
  tfc_status_fini(&s);
}

static void start_task(mstep *st, int i, char *const *feed_names, tfc_tensor *const *feeds,
                       char *const *fetch_names) {
  mslot *sl = &st->slots[i];
  mplan_task *pt = &st->plan->tasks[i];
  mtask *mt = &st->ms->tasks[pt->task];
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *small[16];
  tfc_tensor **f = pt->n_feeds <= 16 ? small : malloc(sizeof *f * (size_t)pt->n_feeds);
  if (!f) {
    TFC_OOM(&s);
    slot_finish(sl, &s);
    tfc_status_fini(&s);
    return;
  }
  for (int k = 0; k < pt->n_feeds; k++) f[k] = feeds[pt->feed_idx[k]];
  if (mt->local) {
    /* Inline only without a deadline: with one, this thread must be free to enforce it. */
    tfc_worker_run_graph(st->ms->m->local, pt->handle, st->step_id, f, pt->n_feeds, st->deadline, st->deadline == 0,
                         local_done, sl);
  } else {
    Tensorflow__RunGraphRequest req;
    tensorflow__run_graph_request__init(&req);
    req.graph_handle = pt->handle;
    req.session_handle = st->ms->handle;
    req.step_id = st->step_id;
    req.timeout_in_ms = st->deadline > 0 ? (st->deadline - tfc_now_us()) / 1000 + 1 : 0;
    char **keys = calloc((size_t)pt->n_fetches + 1, sizeof *keys);
    if (keys)
      for (int k = 0; k < pt->n_fetches; k++) keys[k] = fetch_names[pt->fetch_idx[k]];
    req.n_recv_key = (size_t)pt->n_fetches;
    req.recv_key = keys;
    tfc_msg_out *m = tfc_msg_out_new();
    if (!keys || !m) TFC_OOM(&s);
    if (tfc_status_ok(&s)) tfc_wire_put_message(m, &req.base, &s);
    for (int k = 0; k < pt->n_feeds && tfc_status_ok(&s); k++)
      tfc_wire_put_named_tensor(m, 3, feed_names[pt->feed_idx[k]], f[k], &s);
    free(keys);
    if (tfc_status_ok(&s)) {
      tfc_rpc_pending *p = NULL;
      tfc_rpc_call_async(mt->ch, "/tensorflow.WorkerService/RunGraph", m, st->deadline, 0, remote_done, sl, &p);
      pthread_mutex_lock(&st->mu);
      sl->pending = p;
      int cancel = st->aborted && !sl->done;
      pthread_mutex_unlock(&st->mu);
      if (cancel) tfc_rpc_cancel(p);
    } else {
      tfc_msg_out_free(m);
      slot_finish(sl, &s);
    }
  }
  if (f != small) free(f);
  tfc_status_fini(&s);
}

static void on_cancel(void *arg) {
  mstep *st = arg;
  tfc_status c;
  tfc_status_init(&c);
  tfc_status_set(&c, TFC_CANCELLED, "Step %lld was cancelled: the client went away or cancelled its call",
                 (long long)st->step_id);
  pthread_mutex_lock(&st->mu);
  int broadcast = abort_locked(st, &c);
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
  if (broadcast) broadcast_abort(st);
  tfc_status_fini(&c);
}

void tfc_msession_abort_steps(msession *ms, const tfc_status *s) {
  for (mstep *st = ms->steps; st; st = st->next) {
    pthread_mutex_lock(&st->mu);
    int broadcast = abort_locked(st, s);
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (broadcast) broadcast_abort(st);
  }
}

/* Whether a task's answer says it restarted and lost the step's graphs (ABORTED with the
 * worker's "Graph handle is not found" text). A task that was only unreachable for a while
 * (UNAVAILABLE) still holds them when it answers again; if it restarted meanwhile, its first
 * answer is this one. */
static int task_lost(const tfc_status *s) {
  return s->code == TFC_ABORTED && strstr(tfc_status_msg(s), "Graph handle is not found") != NULL;
}

/* Frees the session's stale plans once no step runs (session lock held). */
static void drop_stale_plans(msession *ms) {
  if (ms->n_steps > 0) return;
  for (mplan **pp = &ms->plans; *pp;) {
    mplan *p = *pp;
    if (!p->stale) {
      pp = &p->next;
      continue;
    }
    *pp = p->next;
    tfc_mplan_free(ms, p, 1);
  }
}

/* Runs the step and waits for every task; the status lands in s. */
static int run_plan(msession *ms, mplan *p, int64_t timeout_ms, char *const *feed_names, tfc_tensor *const *feeds,
                    char *const *fetch_names, tfc_master_cancel *cancel, tfc_tensor **out, tfc_status *s) {
  mstep st = {0};
  st.ms = ms;
  st.plan = p;
  st.step_id = (int64_t)(tfc_new_incarnation() >> 1);
  st.out = out;
  st.remaining = p->n_tasks;
  pthread_mutex_init(&st.mu, NULL);
  tfc_cond_init_monotonic(&st.cv);
  tfc_status_init(&st.status);
  st.slots = calloc((size_t)p->n_tasks + 1, sizeof *st.slots);
  if (!st.slots) {
    pthread_mutex_destroy(&st.mu);
    pthread_cond_destroy(&st.cv);
    return TFC_OOM(s);
  }
  for (int i = 0; i < p->n_tasks; i++) {
    st.slots[i].task = p->tasks[i].task;
    st.slots[i].step = &st;
    tfc_status_init(&st.slots[i].status);
  }
  pthread_mutex_lock(&ms->mu);
  st.next = ms->steps;
  ms->steps = &st;
  pthread_mutex_unlock(&ms->mu);
  if (cancel) {
    pthread_mutex_lock(&cancel->mu);
    cancel->fn = on_cancel;
    cancel->arg = &st;
    int fired = cancel->fired;
    pthread_mutex_unlock(&cancel->mu);
    if (fired) on_cancel(&st);
  }
  st.timeout_ms = timeout_ms;
  st.deadline = tfc_deadline_after_ms(timeout_ms);
  /* Remote tasks first: the local one may run on this thread until it finishes. */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < p->n_tasks; i++)
      if (ms->tasks[p->tasks[i].task].local == pass) start_task(&st, i, feed_names, feeds, fetch_names);
  pthread_mutex_lock(&st.mu);
  int64_t grace = 0;
  while (st.remaining > 0) {
    /* Once the step is aborted (by a task, the deadline or the client) only the grace for
     * the tasks' answers is left to wait for; the deadline no longer matters. */
    if (st.aborted && grace == 0) grace = tfc_now_us() + ABORT_GRACE_MS * 1000ll;
    if (tfc_cond_wait_until(&st.cv, &st.mu, grace ? grace : st.deadline) != ETIMEDOUT) continue;
    if (!st.aborted && st.deadline && tfc_now_us() >= st.deadline) {
      tfc_status to;
      tfc_status_init(&to);
      set_timed_out(&st, &to);
      int broadcast = abort_locked(&st, &to);
      tfc_status_fini(&to);
      if (broadcast) {
        pthread_mutex_unlock(&st.mu);
        broadcast_abort(&st);
        pthread_mutex_lock(&st.mu);
      }
    } else if (grace && tfc_now_us() >= grace) {
      /* Tasks that did not answer an abort in time: cancel their calls. */
      for (int i = 0; i < p->n_tasks; i++)
        if (!st.slots[i].done && st.slots[i].pending) tfc_rpc_cancel(st.slots[i].pending);
      grace = tfc_now_us() + 3600 * 1000000ll; /* the cancellations complete the slots */
    }
  }
  pthread_mutex_unlock(&st.mu);
  if (cancel) {
    pthread_mutex_lock(&cancel->mu);
    cancel->fn = NULL;
    pthread_mutex_unlock(&cancel->mu);
  }
  pthread_mutex_lock(&ms->mu);
  for (mstep **pp = &ms->steps; *pp; pp = &(*pp)->next)
    if (*pp == &st) {
      *pp = st.next;
      break;
    }
  pthread_mutex_unlock(&ms->mu);
  /* Every task forgets the step (those aborted already did). */
  if (!st.aborted)
    for (int i = 0; i < p->n_tasks; i++) cleanup_task(ms, st.slots[i].task, st.step_id, NULL);
  int lost = 0;
  for (int i = 0; i < p->n_tasks; i++) lost |= task_lost(&st.slots[i].status);
  if (lost) {
    pthread_mutex_lock(&ms->mu);
    p->stale = 1;
    pthread_mutex_unlock(&ms->mu);
  }
  int code = tfc_status_move(s, &st.status);
  for (int i = 0; i < p->n_tasks; i++) {
    tfc_rpc_pending_release(st.slots[i].pending);
    tfc_status_fini(&st.slots[i].status);
  }
  free(st.slots);
  tfc_status_fini(&st.status);
  pthread_mutex_destroy(&st.mu);
  pthread_cond_destroy(&st.cv);
  return code;
}

int tfc_msession_run(msession *ms, int64_t timeout_ms, char *const *feed_names, tfc_tensor *const *feeds,
                     int n_feeds, char *const *fetch_names, int n_fetches, char *const *target_names, int n_targets,
                     tfc_master_cancel *cancel, tfc_tensor **out, tfc_status *s) {
  tfc_endpoint *fe = calloc((size_t)n_feeds + 1, sizeof *fe);
  tfc_endpoint *fo = calloc((size_t)n_fetches + 1, sizeof *fo);
  tfc_node **tg = calloc((size_t)n_targets + 1, sizeof *tg);
  char *sig = NULL;
  mplan *p = NULL;
  if (!fe || !fo || !tg) {
    TFC_OOM(s);
    goto out;
  }
  pthread_mutex_lock(&ms->mu);
  if (ms->closed) tfc_status_set(s, TFC_FAILED_PRECONDITION, "Session has been closed.");
  for (int i = 0; i < n_feeds && tfc_status_ok(s); i++) resolve_output(ms, feed_names[i], &fe[i], s);
  for (int i = 0; i < n_fetches && tfc_status_ok(s); i++) resolve_output(ms, fetch_names[i], &fo[i], s);
  for (int i = 0; i < n_targets && tfc_status_ok(s); i++)
    if (!(tg[i] = tfc_graph_find(ms->graph, target_names[i])))
      tfc_status_set(s, TFC_NOT_FOUND, "Target node %s was not found in the graph", target_names[i]);
  if (tfc_status_ok(s)) place_new(ms, s);
  if (tfc_status_ok(s) && !(sig = tfc_client_graph_signature(fe, n_feeds, fo, n_fetches, tg, n_targets))) TFC_OOM(s);
  if (tfc_status_ok(s)) {
    drop_stale_plans(ms);
    for (p = ms->plans; p && (p->stale || strcmp(p->sig, sig) != 0); p = p->next) {
    }
    if (!p && (p = build_plan(ms, fe, n_feeds, fo, n_fetches, tg, n_targets, s)) != NULL) {
      p->sig = sig;
      sig = NULL;
      p->next = ms->plans;
      ms->plans = p;
    }
  }
  if (p) ms->n_steps++;
  pthread_mutex_unlock(&ms->mu);
  if (!p) goto out;
  if (timeout_ms <= 0) timeout_ms = ms->cfg.operation_timeout_in_ms;
  run_plan(ms, p, timeout_ms, feed_names, feeds, fetch_names, cancel, out, s);
  if (tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++)
      if (!out[i]) tfc_status_set(s, TFC_INTERNAL, "fetch %s was not produced", fetch_names[i]);
  if (!tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++) {
      tfc_tensor_unref(out[i]);
      out[i] = NULL;
    }
  pthread_mutex_lock(&ms->mu);
  if (--ms->n_steps == 0) pthread_cond_broadcast(&ms->idle);
  pthread_mutex_unlock(&ms->mu);
out:
  free(sig);
  free(fe);
  free(fo);
  free(tg);
  return s->code;
}
