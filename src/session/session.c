/*
 * session — see session.h.
 *
 * Plans are keyed by the signature text "feeds|fetches|targets" of node ids and output
 * indexes. A graph is append-only, so a plan built for a signature stays right for it however
 * the graph grows later.
 *
 * A run with a deadline, a cancellation manager (tfc_run_options.cancel) or an op that may
 * block gets a rendezvous for its step; the deadline, a cancellation or the first error aborts
 * it, which wakes blocked ops and stops every executor before its next node.
 */
#include "session/session.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/cancel.h"
#include "base/clock.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "device/registry.h"
#include "exec/executor.h"
#include "exec/segment.h"
#include "optimize/optimize.h"
#include "partition/partition.h"
#include "place/placer.h"
#include "rendezvous/rendezvous.h"
#include "session/batch_split.h"
#include "session/client_graph.h"
#include "session/run_metadata.h"
#include "state/variable.h"

typedef struct plan_part {
  tfc_device *device;
  tfc_graph *graph;
  tfc_executor *exec;
} plan_part;

typedef struct plan {
  int n_parts;
  plan_part *parts;
  int n_feeds, n_fetches;
  int split; /* runs may go example by example (session/batch_split.h) */
  struct plan *next; /* all plans, for freeing */
} plan;

struct tfc_session {
  tfc_graph *graph;
  tfc_session_config cfg;
  int n_devices;
  tfc_device **devices;
  tfc_threadpool *pool;
  pthread_mutex_t mu; /* guards everything below */
  tfc_placement *placement; /* per node id */
  int n_placed, cap_placed;
  tfc_hashmap plans;
  plan *all_plans;
  tfc_kernel_segment *segment; /* the stateful kernels' states, shared by every plan */
  int closed;
  /* Runs between their plan lookup and their return; freeing waits for them (a run blocked
   * in a queue wakes when closing cancels the devices' resources). */
  int runs_in_flight;
  pthread_cond_t idle;
  atomic_llong next_step_id;
};

/* ---------------- lifecycle ---------------- */

int tfc_session_devices_create(const tfc_session_config *cfg, const char *job, int task, tfc_threadpool *pool,
                               int intra, tfc_device ***devices, int *n_devices, tfc_status *s) {
  tfc_device_options o = {cfg->per_process_gpu_memory_fraction, cfg->allow_growth, cfg->visible_device_list,
                          cfg->n_virtual_devices, cfg->virtual_device_n_limits, cfg->virtual_device_limits_mb};
  int n_factories;
  const tfc_device_factory *f = tfc_device_factories(&n_factories);
  /* TF's DeviceFactory::AddDevices makes the CPU devices first, then the other types: CPU:0
   * is the first device listed whatever the priorities (which only the placer uses). */
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < n_factories; k++) {
      if ((strcmp(f[k].type, "CPU") == 0) != (pass == 0)) continue;
      int count = tfc_session_config_device_count(cfg, f[k].type);
      TFC_TRY(f[k].create(&o, job, 0, task, count, pool, intra, devices, n_devices, s));
    }
  return TFC_OK;
}

/* log_device_placement's device mapping, as DirectSession prints it: the devices that have a
 * physical description (GPUs), or a line saying there are none. */
static void print_device_mapping(tfc_device *const *devices, int n) {
  int any = 0;
  for (int i = 0; i < n; i++) any |= devices[i]->physical_desc != NULL;
  if (!any) {
    printf("Device mapping: no known devices.\n");
  } else {
    printf("Device mapping:\n");
    for (int i = 0; i < n; i++)
      if (devices[i]->physical_desc) printf("%s -> %s\n", devices[i]->name, devices[i]->physical_desc);
  }
  fflush(stdout);
}

/* Sessions alive in the process: the last one's deletion gives the block cache back. */
static atomic_int live_sessions;

tfc_session *tfc_session_new(tfc_graph *g, const tfc_session_config *cfg, tfc_status *s) {
  tfc_session *sess = calloc(1, sizeof *sess);
  if (!sess) { TFC_OOM(s); return NULL; }
  atomic_fetch_add(&live_sessions, 1);
  sess->graph = g;
  pthread_mutex_init(&sess->mu, NULL);
  pthread_cond_init(&sess->idle, NULL);
  tfc_hashmap_init(&sess->plans);
  tfc_session_config_init(&sess->cfg);
  if (cfg && tfc_session_config_copy(cfg, &sess->cfg, s)) goto fail;
  int cores = tfc_num_cores();
  int inter = sess->cfg.inter_op_parallelism_threads > 0 ? sess->cfg.inter_op_parallelism_threads : cores;
  int intra = sess->cfg.intra_op_parallelism_threads > 0 ? sess->cfg.intra_op_parallelism_threads : cores;
  /* One pool serves inter-op scheduling and intra-op sharding; see base/threadpool.h. */
  sess->pool = tfc_threadpool_new(inter > intra ? inter : intra, "tfc");
  if (!sess->pool) { TFC_OOM(s); goto fail; }
  if (tfc_session_devices_create(&sess->cfg, "localhost", 0, sess->pool, intra, &sess->devices, &sess->n_devices, s))
    goto fail;
  atomic_init(&sess->next_step_id, 1);
  if (!(sess->segment = tfc_kernel_segment_new())) {
    TFC_OOM(s);
    goto fail;
  }
  if (sess->cfg.log_device_placement) print_device_mapping(sess->devices, sess->n_devices);
  return sess;
fail:
  tfc_session_free(sess);
  return NULL;
}

static void plan_free(plan *p) {
  for (int i = 0; i < p->n_parts; i++) {
    tfc_executor_free(p->parts[i].exec);
    tfc_graph_free(p->parts[i].graph);
  }
  free(p->parts);
  free(p);
}

void tfc_session_free(tfc_session *sess) {
  if (!sess) return;
  /* Deleting a session with runs in flight (a queue runner thread blocked in an enqueue):
   * close it, which wakes them with CANCELLED, and wait for them to return. */
  tfc_session_close(sess, NULL);
  pthread_mutex_lock(&sess->mu);
  while (sess->runs_in_flight > 0) pthread_cond_wait(&sess->idle, &sess->mu);
  pthread_mutex_unlock(&sess->mu);
  for (plan *p = sess->all_plans, *next; p; p = next) {
    next = p->next;
    plan_free(p);
  }
  tfc_hashmap_fini(&sess->plans);
  tfc_kernel_segment_free(sess->segment);
  for (int i = 0; i < sess->n_devices; i++) tfc_device_free(sess->devices[i]);
  free(sess->devices);
  tfc_threadpool_free(sess->pool);
  tfc_placement_fini(sess->placement, sess->n_placed);
  free(sess->placement);
  tfc_session_config_fini(&sess->cfg);
  pthread_cond_destroy(&sess->idle);
  pthread_mutex_destroy(&sess->mu);
  free(sess);
  /* Tensors still held (fetched outputs) join the cache when freed, as before. */
  if (atomic_fetch_sub(&live_sessions, 1) == 1) tfc_block_cache_trim();
}

int tfc_session_close(tfc_session *sess, tfc_status *s) {
  pthread_mutex_lock(&sess->mu);
  sess->closed = 1;
  pthread_mutex_unlock(&sess->mu);
  /* As TF's DirectSession::Close cancels pending operations: queue operations blocked in
   * running steps fail with CANCELLED, and no queue operation blocks again. */
  for (int i = 0; i < sess->n_devices; i++)
    if (sess->devices[i] && sess->devices[i]->resources) tfc_resource_mgr_cancel_all(sess->devices[i]->resources);
  (void)s;
  return TFC_OK;
}

int tfc_session_num_devices(const tfc_session *sess) { return sess->n_devices; }
const tfc_device *tfc_session_device(const tfc_session *sess, int i) {
  return i >= 0 && i < sess->n_devices ? sess->devices[i] : NULL;
}

const tfc_device *tfc_session_node_device(tfc_session *sess, const tfc_node *n, const char **reason) {
  pthread_mutex_lock(&sess->mu);
  int placed = n->graph == sess->graph && n->id < sess->n_placed;
  const tfc_device *d = placed ? sess->devices[sess->placement[n->id].device] : NULL;
  if (reason) *reason = placed ? sess->placement[n->id].reason : NULL;
  pthread_mutex_unlock(&sess->mu);
  return d;
}

/* ---------------- extend + place (caller holds sess->mu) ---------------- */

static int extend(tfc_session *sess, tfc_status *s) {
  tfc_graph *g = sess->graph;
  tfc_graph_lock(g);
  int n = g->n_nodes;
  if (n > sess->n_placed) {
    if (n > sess->cap_placed) {
      int cap = n * 2;
      tfc_placement *a = realloc(sess->placement, sizeof *a * (size_t)cap);
      if (!a) { tfc_graph_unlock(g); return TFC_OOM(s); }
      sess->placement = a;
      sess->cap_placed = cap;
    }
    tfc_place_options po = {sess->cfg.allow_soft_placement, NULL, NULL};
    for (int i = sess->n_placed; i < n; i++) sess->placement[i] = (tfc_placement){-1, NULL};
    if (tfc_place(g, sess->n_placed, sess->devices, sess->n_devices, &po, sess->placement, s)) {
      tfc_graph_unlock(g);
      return s->code;
    }
    if (sess->cfg.log_device_placement)
      tfc_placement_log(g, sess->n_placed, n, sess->devices, sess->placement, sess->cfg.log_placement_reasons);
    sess->n_placed = n;
  }
  tfc_graph_unlock(g);
  return TFC_OK;
}

/* ---------------- plan building ---------------- */

static const char *placed_device_name(void *arg, const tfc_node *n) {
  tfc_session *sess = arg;
  return sess->devices[sess->placement[n->id].device]->name;
}

/* TFC_GRAPH_REWRITES=0 in the environment: no graph optimization in any session, whatever its
 * config says (RewriterConfig's disable_meta_optimizer for every session: a whole program or
 * test suite runs its graphs as built, to compare with the rewritten runs). */
static int graph_rewrites_off(void) {
  const char *v = getenv("TFC_GRAPH_REWRITES");
  return v && strcmp(v, "0") == 0;
}

static plan *build_plan(tfc_session *sess, const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches,
                        int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s) {
  tfc_partitions parts = {0, NULL};
  tfc_client_graph_spec spec = {.graph = sess->graph,
                                .n_nodes = sess->n_placed,
                                .device_of = placed_device_name,
                                .arg = sess,
                                .feeds = feeds,
                                .n_feeds = n_feeds,
                                .fetches = fetches,
                                .n_fetches = n_fetches,
                                .targets = targets,
                                .n_targets = n_targets,
                                .devices = sess->devices,
                                .n_devices = sess->n_devices,
                                .allow_soft_placement = sess->cfg.allow_soft_placement,
                                .log_placement = sess->cfg.log_device_placement
                                                     ? 1 + (sess->cfg.log_placement_reasons != 0)
                                                     : 0};
  tfc_graph *client = NULL;
  plan *p = calloc(1, sizeof *p);
  if (!p) {
    TFC_OOM(s);
    goto fail;
  }
  p->n_feeds = n_feeds;
  p->n_fetches = n_fetches;
  client = tfc_client_graph_build_for(&spec, sess->devices[0]->name, s); /* CPU:0, the client device */
  if (!client) goto fail;
  tfc_optimize_options oo = {.constant_folding = !sess->cfg.no_constant_folding,
                             .scale_folding = !sess->cfg.no_scale_folding,
                             .remapping = !sess->cfg.no_remapping,
                             .pad_folding = !sess->cfg.no_remapping,
                             .dependency_optimization = !sess->cfg.no_dependency_optimization,
                             .max_folded_constant_in_bytes = sess->cfg.max_folded_constant_in_bytes};
  if (!graph_rewrites_off() && tfc_optimize_graph(&client, &oo, s)) goto fail;
  tfc_partition_options po = {sess->devices, sess->n_devices};
  if (tfc_partition_graph(client, &po, &parts, s)) goto fail;
  p->parts = calloc((size_t)parts.n + 1, sizeof *p->parts);
  if (!p->parts) {
    TFC_OOM(s);
    goto fail;
  }
  /* the plan takes the partition graphs */
  for (int i = 0; i < parts.n; i++) {
    p->parts[i].device = parts.parts[i].device;
    p->parts[i].graph = parts.parts[i].graph;
    parts.parts[i].graph = NULL;
    p->n_parts++;
  }
  for (int i = 0; i < p->n_parts; i++) {
    plan_part *pt = &p->parts[i];
    pt->exec = tfc_executor_new(pt->graph, pt->device, sess->segment, s);
    if (!pt->exec) goto fail;
  }
  p->split = p->n_parts == 1 && n_targets == 0 && strcmp(p->parts[0].device->type, "CPU") == 0 &&
             p->parts[0].device->intra_op_threads >= 2 && !tfc_executor_needs_rendezvous(p->parts[0].exec) &&
             tfc_batch_split_plan(p->parts[0].graph);
  tfc_partitions_fini(&parts);
  tfc_graph_free(client);
  return p;
fail:
  tfc_partitions_fini(&parts);
  if (p) plan_free(p);
  tfc_graph_free(client);
  return NULL;
}

/* ---------------- run ---------------- */

static int check_endpoint(tfc_session *sess, tfc_endpoint e, const char *what, tfc_status *s) {
  if (!e.node || e.node->graph != sess->graph)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s is not an operation of this session's graph", what);
  if (e.index < 0 || e.index >= e.node->n_outputs)
    return tfc_status_set(s, TFC_OUT_OF_RANGE, "Node '%s' (type: '%s', num of outputs: %d) does not have output %d",
                          e.node->name, e.node->op->name, e.node->n_outputs, e.index);
  return TFC_OK;
}

/* One step over all partitions of a plan: every executor runs concurrently, they meet in the
 * step's rendezvous, and the caller waits for all of them (up to the deadline). */
typedef struct step_sync {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int remaining;
  tfc_status status; /* the first executor error */
} step_sync;

typedef struct part_start {
  tfc_executor *exec;
  tfc_exec_args args; /* the step's, with this partition's stats */
  step_sync *sync;
} part_start;

static void part_done(void *arg, const tfc_status *s) {
  step_sync *ss = arg;
  pthread_mutex_lock(&ss->mu);
  if (!tfc_status_ok(s) && tfc_status_ok(&ss->status)) tfc_status_set(&ss->status, s->code, "%s", tfc_status_msg(s));
  if (--ss->remaining == 0) pthread_cond_broadcast(&ss->cv);
  pthread_mutex_unlock(&ss->mu);
}

static void part_start_entry(void *arg) {
  part_start *ps = arg;
  tfc_executor_run_async(ps->exec, &ps->args, part_done, ps->sync);
}

/* A cancellation manager's callback for a run: aborts its step's rendezvous, which wakes
 * blocked ops and stops every executor before its next node. */
static void cancel_step(void *arg) {
  tfc_status st;
  tfc_status_init(&st);
  tfc_status_set(&st, TFC_CANCELLED, "Run call was cancelled");
  tfc_rendezvous_abort(arg, &st);
  tfc_status_fini(&st);
}

/* Runs the plan's executors; the step's status lands in s. stats: one per partition when the
 * step is traced, else NULL. */
static int run_partitions(tfc_session *sess, plan *p, tfc_call_frame *frame, int64_t timeout_ms,
                          tfc_cancel *cancel, tfc_var_txn *txn, tfc_step_stats *stats, tfc_status *s) {
  int64_t step_id = atomic_fetch_add(&sess->next_step_id, 1);
  /* A lone partition without a deadline runs on this thread. It gets a rendezvous only when
   * something must be able to stop it (a cancellation, or the first error waking an op blocked
   * on a queue) or it sends to itself (a GPU partition's device-to-host-memory copies). */
  if (p->n_parts == 1 && timeout_ms <= 0) {
    if (!cancel && !tfc_executor_needs_rendezvous(p->parts[0].exec)) {
      tfc_exec_args args = {frame, sess->pool, step_id, NULL, txn, stats, 0};
      return tfc_executor_run(p->parts[0].exec, &args, s);
    }
    tfc_rendezvous *rdv = tfc_rendezvous_new();
    if (!rdv) return TFC_OOM(s);
    int64_t token = cancel ? tfc_cancel_register(cancel, cancel_step, rdv) : 0;
    if (token < 0) TFC_OOM(s);
    else if (cancel && token == 0) tfc_status_set(s, TFC_CANCELLED, "Run call was cancelled");
    else {
      tfc_exec_args args = {frame, sess->pool, step_id, rdv, txn, stats, 0};
      tfc_executor_run(p->parts[0].exec, &args, s);
    }
    tfc_cancel_deregister(cancel, token);
    tfc_rendezvous_unref(rdv);
    return s->code;
  }
  tfc_rendezvous *rdv = tfc_rendezvous_new();
  part_start *starts = calloc((size_t)p->n_parts, sizeof *starts);
  if (!rdv || !starts) {
    tfc_rendezvous_unref(rdv);
    free(starts);
    return TFC_OOM(s);
  }
  int64_t cancel_token = cancel ? tfc_cancel_register(cancel, cancel_step, rdv) : 0;
  if (cancel && cancel_token <= 0) {
    tfc_rendezvous_unref(rdv);
    free(starts);
    if (cancel_token < 0) return TFC_OOM(s);
    return tfc_status_set(s, TFC_CANCELLED, "Run call was cancelled");
  }
  tfc_exec_args args = {frame, sess->pool, step_id, rdv, txn, NULL, 0};
  step_sync ss;
  pthread_mutex_init(&ss.mu, NULL);
  tfc_cond_init_monotonic(&ss.cv);
  ss.remaining = p->n_parts;
  tfc_status_init(&ss.status);
  int64_t deadline = tfc_deadline_after_ms(timeout_ms);
  /* Where each partition starts. With a deadline this thread only waits, so every partition
   * goes to the pool. Otherwise partitions with expensive kernels get pool threads of their
   * own (all but one), and the cheap ones run here first, then the remaining expensive one:
   * a cheap step crosses devices without any thread hand-off (a _Recv whose tensor is
   * already sent completes inline). */
  int keep = -1; /* the expensive partition this thread runs */
  for (int i = 0; i < p->n_parts; i++) {
    starts[i] = (part_start){p->parts[i].exec, args, &ss};
    starts[i].args.stats = stats ? &stats[i] : NULL;
    if (deadline == 0 && tfc_executor_has_expensive(p->parts[i].exec)) keep = i;
  }
  for (int i = 0; i < p->n_parts; i++)
    if (deadline != 0 || (tfc_executor_has_expensive(p->parts[i].exec) && i != keep))
      if (tfc_threadpool_schedule(sess->pool, part_start_entry, &starts[i]) != 0) part_start_entry(&starts[i]);
  if (deadline == 0) {
    for (int i = 0; i < p->n_parts; i++)
      if (!tfc_executor_has_expensive(p->parts[i].exec)) part_start_entry(&starts[i]);
    if (keep >= 0) part_start_entry(&starts[keep]);
  }
  pthread_mutex_lock(&ss.mu);
  while (ss.remaining > 0) {
    if (tfc_cond_wait_until(&ss.cv, &ss.mu, deadline) != ETIMEDOUT) continue;
    /* Timed out: abort the step so waiting _Recvs wake and no further node starts, then wait
     * for the kernels already running. */
    pthread_mutex_unlock(&ss.mu);
    tfc_strbuf pending;
    tfc_strbuf_init(&pending);
    tfc_rendezvous_pending(rdv, &pending);
    tfc_status to;
    tfc_status_init(&to);
    tfc_status_set(&to, TFC_DEADLINE_EXCEEDED, "Timed out after %lld ms waiting for step %lld to finish; %s%s",
                   (long long)timeout_ms, (long long)step_id,
                   pending.len ? "still waiting for tensors: " : "kernels were still running",
                   tfc_strbuf_str(&pending));
    tfc_rendezvous_abort(rdv, &to);
    tfc_status_fini(&to);
    tfc_strbuf_fini(&pending);
    deadline = 0;
    pthread_mutex_lock(&ss.mu);
  }
  pthread_mutex_unlock(&ss.mu);
  tfc_cancel_deregister(cancel, cancel_token);
  /* An executor that stopped because another one failed reports the rendezvous's abort
   * status, which is that first error: whichever executor reports first, it is the cause. */
  int code = tfc_status_move(s, &ss.status);
  tfc_status_fini(&ss.status);
  pthread_mutex_destroy(&ss.mu);
  pthread_cond_destroy(&ss.cv);
  free(starts);
  tfc_rendezvous_unref(rdv);
  return code;
}

/* One step: the partitions, then the variables' journal is committed when the step
 * succeeded and rolled back when it failed, so a failed run leaves every variable as it was. */
static int run_step(tfc_session *sess, plan *p, tfc_call_frame *frame, int64_t timeout_ms, tfc_cancel *cancel,
                    tfc_step_stats *stats, tfc_status *s) {
  tfc_var_txn txn;
  tfc_var_txn_init(&txn);
  int code = run_partitions(sess, p, frame, timeout_ms, cancel, &txn, stats, s);
  if (code) tfc_var_txn_rollback(&txn);
  tfc_var_txn_fini(&txn);
  return code;
}

/* ---------------- example by example (session/batch_split.h) ---------------- */

/* One split run, on the heap: a pool task that starts only after the caller has finished
 * (every pool thread was busy) finds it closed and just drops its reference, so the caller
 * never waits for a task that has not begun. */
typedef struct split_run {
  tfc_session *sess;
  tfc_executor *exec;
  const tfc_call_frame *frame; /* the batched feeds; read only while open */
  int64_t n;                   /* examples */
  tfc_tensor **outs;           /* n * n_rets fetches, example-major */
  atomic_llong next;           /* the next example to run */
  atomic_int failed;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int closed; /* under mu: the caller has stopped waiting for new workers */
  int active; /* under mu: workers running examples */
  int refs;   /* under mu: the caller and the tasks not yet finished */
  int frame_rets;
} split_run;

static void split_unref(split_run *r) {
  pthread_mutex_lock(&r->mu);
  int last = --r->refs == 0;
  pthread_mutex_unlock(&r->mu);
  if (!last) return;
  for (int64_t i = 0; i < r->n * r->frame_rets; i++) tfc_tensor_unref(r->outs[i]);
  free(r->outs);
  pthread_mutex_destroy(&r->mu);
  pthread_cond_destroy(&r->cv);
  free(r);
}

/* Runs examples until none is left (or one failed): each a step of its own over views of the
 * feeds' rows, its kernels on this thread. */
static void split_examples(split_run *r) {
  const tfc_call_frame *f = r->frame;
  tfc_tensor **views = calloc((size_t)f->n_args + 1, sizeof *views);
  if (!views) atomic_store(&r->failed, 1);
  for (int64_t i; views && (i = atomic_fetch_add(&r->next, 1)) < r->n && !atomic_load(&r->failed);) {
    tfc_status st;
    tfc_status_init(&st);
    for (int k = 0; k < f->n_args && tfc_status_ok(&st); k++) {
      tfc_tensor *t = f->args[k];
      int64_t dims[TFC_MAX_DIMS];
      memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->ndims);
      dims[0] = 1;
      views[k] = tfc_tensor_view(t, t->n_bytes / (size_t)r->n * (size_t)i, dims, t->ndims, &st);
    }
    tfc_call_frame fr = {f->n_args, views, f->n_rets, r->outs + i * f->n_rets};
    tfc_var_txn txn;
    tfc_var_txn_init(&txn);
    tfc_exec_args a = {&fr, NULL, atomic_fetch_add(&r->sess->next_step_id, 1), NULL, &txn, NULL, 1};
    if (!tfc_status_ok(&st) || tfc_executor_run(r->exec, &a, &st)) {
      tfc_var_txn_rollback(&txn);
      atomic_store(&r->failed, 1);
    }
    tfc_var_txn_fini(&txn);
    for (int k = 0; k < f->n_args; k++) {
      tfc_tensor_unref(views[k]);
      views[k] = NULL;
    }
    tfc_status_fini(&st);
  }
  free(views);
}

/* A pool task: joins the run unless the caller has closed it. */
static void split_task(void *arg) {
  split_run *r = arg;
  pthread_mutex_lock(&r->mu);
  int join = !r->closed;
  if (join) r->active++;
  pthread_mutex_unlock(&r->mu);
  if (join) {
    split_examples(r);
    pthread_mutex_lock(&r->mu);
    if (--r->active == 0) pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
  }
  split_unref(r);
}

/* Whether a tensor of dtype splits into rows and stacks back by bytes (views and memcpy). */
static int split_dtype(int dtype) {
  return dtype != TFC_DT_STRING && dtype != TFC_DT_VARIANT && dtype != TFC_DT_RESOURCE;
}

/* The examples' fetch k stacked along axis 0 into a new tensor; NULL when they do not stack
 * (a fetch that is not one row per example). */
static tfc_tensor *split_stack(tfc_tensor **outs, int64_t n, int n_rets, int k, tfc_status *s) {
  const tfc_tensor *t0 = outs[k];
  if (!t0 || t0->ndims < 1 || t0->dims[0] != 1 || !split_dtype(t0->dtype)) return NULL;
  for (int64_t i = 1; i < n; i++) {
    const tfc_tensor *t = outs[i * n_rets + k];
    if (!t || t->dtype != t0->dtype || !tfc_tensor_same_shape(t, t0)) return NULL;
  }
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, t0->dims, sizeof(int64_t) * (size_t)t0->ndims);
  dims[0] = n;
  tfc_tensor *y = tfc_tensor_new(t0->dtype, dims, t0->ndims, s);
  if (!y) return NULL;
  for (int64_t i = 0; i < n; i++) memcpy((char *)y->data + t0->n_bytes * (size_t)i, outs[i * n_rets + k]->data, t0->n_bytes);
  return y;
}

/* Runs the step example by example when it may (p->split, and feeds that all have the same
 * leading dimension of at least two); returns 1 with the fetches in frame->rets, or 0 when it
 * did not (nothing changed, or an example failed or its fetches did not stack: the caller runs
 * the step whole, which is harmless for the stateless graphs a split plan has and gives the
 * batched run's errors). */
static int run_split(tfc_session *sess, plan *p, tfc_call_frame *frame, tfc_status *s) {
  if (!p->split || frame->n_args == 0) return 0;
  int64_t n = frame->args[0]->ndims > 0 ? frame->args[0]->dims[0] : 0;
  for (int k = 0; k < frame->n_args; k++) {
    const tfc_tensor *t = frame->args[k];
    if (t->ndims < 1 || t->dims[0] != n || !split_dtype(t->dtype)) return 0;
  }
  int threads = p->parts[0].device->intra_op_threads; /* >= 2: p->split says so */
  if (n < 2) return 0;
  if (threads > n) threads = (int)n;
  split_run *r = calloc(1, sizeof *r);
  if (!r) return 0;
  if (!(r->outs = calloc((size_t)(n * frame->n_rets) + 1, sizeof *r->outs))) {
    free(r);
    return 0;
  }
  r->sess = sess;
  r->exec = p->parts[0].exec;
  r->frame = frame;
  r->frame_rets = frame->n_rets;
  r->n = n;
  r->refs = threads;
  atomic_init(&r->next, 0);
  atomic_init(&r->failed, 0);
  pthread_mutex_init(&r->mu, NULL);
  pthread_cond_init(&r->cv, NULL);
  for (int w = 1; w < threads; w++)
    if (tfc_threadpool_schedule(sess->pool, split_task, r) != 0) split_unref(r);
  split_examples(r);
  /* every example is taken: wait for the workers still on one, not for tasks yet to start */
  pthread_mutex_lock(&r->mu);
  r->closed = 1;
  while (r->active > 0) pthread_cond_wait(&r->cv, &r->mu);
  pthread_mutex_unlock(&r->mu);
  int done = !atomic_load(&r->failed);
  for (int k = 0; k < frame->n_rets && done; k++)
    if (!(frame->rets[k] = split_stack(r->outs, n, frame->n_rets, k, s))) done = 0;
  if (!done) {
    for (int k = 0; k < frame->n_rets; k++) {
      tfc_tensor_unref(frame->rets[k]);
      frame->rets[k] = NULL;
    }
    tfc_status_clear(s);
  }
  split_unref(r);
  return done;
}

/* One trace collector per partition of plan p, named by its device; NULL on out of memory. */
static tfc_step_stats *stats_new(plan *p, int level) {
  tfc_step_stats *v = calloc((size_t)p->n_parts, sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < p->n_parts; i++)
    if (tfc_step_stats_init(&v[i], p->parts[i].device->name, level, tfc_executor_num_nodes(p->parts[i].exec))) {
      for (int j = 0; j <= i; j++) tfc_step_stats_fini(&v[j]);
      free(v);
      return NULL;
    }
  return v;
}

static void stats_free(tfc_step_stats *v, int n) {
  if (!v) return;
  for (int i = 0; i < n; i++) tfc_step_stats_fini(&v[i]);
  free(v);
}

int tfc_session_run(tfc_session *sess, const tfc_run_options *ro, const tfc_endpoint *feed_eps,
                    tfc_tensor *const *feeds, int n_feeds, const tfc_endpoint *fetch_eps, tfc_tensor **out,
                    int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s) {
  for (int i = 0; i < n_fetches; i++) out[i] = NULL;
  for (int i = 0; i < n_feeds; i++) {
    TFC_TRY(check_endpoint(sess, feed_eps[i], "a feed", s));
    if (!feeds[i]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "feed %d has no tensor", i);
    for (int j = 0; j < i; j++)
      if (feed_eps[j].node == feed_eps[i].node && feed_eps[j].index == feed_eps[i].index)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s:%d fed more than once.", feed_eps[i].node->name,
                              feed_eps[i].index);
  }
  for (int i = 0; i < n_fetches; i++) TFC_TRY(check_endpoint(sess, fetch_eps[i], "a fetch", s));
  for (int i = 0; i < n_targets; i++)
    if (!targets[i] || targets[i]->graph != sess->graph)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "a target is not an operation of this session's graph");

  char *key = tfc_client_graph_signature(feed_eps, n_feeds, fetch_eps, n_fetches, targets, n_targets);
  if (!key) return TFC_OOM(s);
  pthread_mutex_lock(&sess->mu);
  if (sess->closed) {
    pthread_mutex_unlock(&sess->mu);
    free(key);
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Session has been closed.");
  }
  plan *p = NULL;
  if (extend(sess, s) == TFC_OK) {
    p = tfc_hashmap_get(&sess->plans, key);
    if (!p) {
      tfc_graph_lock(sess->graph);
      p = build_plan(sess, feed_eps, n_feeds, fetch_eps, n_fetches, targets, n_targets, s);
      tfc_graph_unlock(sess->graph);
      if (p && tfc_hashmap_put(&sess->plans, key, p) != 0) {
        plan_free(p);
        p = NULL;
        TFC_OOM(s);
      }
      if (p) {
        p->next = sess->all_plans;
        sess->all_plans = p;
      }
    }
  }
  if (p) sess->runs_in_flight++;
  pthread_mutex_unlock(&sess->mu);
  free(key);
  if (!p) return s->code;

  /* RunOptions.timeout_in_ms wins over ConfigProto.operation_timeout_in_ms, as in TF. */
  int64_t timeout_ms = ro && ro->timeout_in_ms > 0 ? ro->timeout_in_ms : sess->cfg.operation_timeout_in_ms;
  tfc_call_frame frame = {n_feeds, feeds, n_fetches, out};
  tfc_step_stats *stats = NULL;
  int traced = ro && ro->metadata && ro->trace_level > TFC_TRACE_NONE;
  if (traced && !(stats = stats_new(p, ro->trace_level))) TFC_OOM(s);
  else if (traced || timeout_ms > 0 || (ro && ro->cancel) || !run_split(sess, p, &frame, s))
    run_step(sess, p, &frame, timeout_ms, ro ? ro->cancel : NULL, stats, s);
  if (ro && ro->metadata) {
    *ro->metadata = NULL;
    *ro->metadata_len = 0;
    if (tfc_status_ok(s)) {
      tfc_graph **graphs = NULL;
      int n_graphs = ro->output_partition_graphs ? p->n_parts : 0;
      if (n_graphs && (graphs = malloc(sizeof *graphs * (size_t)n_graphs)))
        for (int i = 0; i < n_graphs; i++) graphs[i] = p->parts[i].graph;
      if (n_graphs && !graphs) TFC_OOM(s);
      else tfc_run_metadata_pack(stats, stats ? p->n_parts : 0, graphs, n_graphs, ro->metadata, ro->metadata_len, s);
      free(graphs);
    }
  }
  stats_free(stats, p->n_parts);
  pthread_mutex_lock(&sess->mu);
  if (--sess->runs_in_flight == 0) pthread_cond_broadcast(&sess->idle);
  pthread_mutex_unlock(&sess->mu);
  if (tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++)
      if (!out[i]) tfc_status_set(s, TFC_INVALID_ARGUMENT, "Retval[%d] does not have value", i); /* dead */
  if (!tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++) {
      tfc_tensor_unref(out[i]);
      out[i] = NULL;
    }
  return s->code;
}
