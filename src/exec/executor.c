/*
 * executor — see executor.h.
 *
 * Slots: input j of node i lives in slots[item[i].input_start + j]; each slot owns one
 * reference. A producer hands one reference per consuming edge (the last edge takes the
 * kernel's own), so a tensor with a single consumer arrives with refcount 1 and that kernel
 * may reuse its buffer. "outstanding" counts nodes made ready and not yet finished; the step
 * is over when it drops to zero, and whichever thread brings it there frees the step and
 * calls the caller's done.
 *
 * Async kernels (_Recv): the context and outputs go to the heap (async_call) and the node
 * stays outstanding until the kernel calls done. A race between "compute_async returned" and
 * "done called" (one atomic exchange) decides who continues: done inside compute_async
 * continues inline as for any kernel; done later (a _Send on another executor's thread)
 * hands the continuation to the inter-op pool. Without a pool it runs on that thread, but
 * through a per-thread trampoline: a continuation that completes another executor's _Recv
 * queues it instead of recursing, so ping-pong between partitions never deepens the stack.
 *
 * Stopping: the first kernel error is prefixed with the node and device, aborts the step's
 * rendezvous (waking every _Recv of every executor of the step) and is replaced by the
 * rendezvous's status, so all executors of a step report the same first error. Before each
 * node the step checks its own flag and the rendezvous's; a node that does not start
 * releases its inputs and makes nothing ready, so the step drains.
 *
 * This is the path of graphs without control flow only: an executor whose graph has a
 * Switch, Merge, Enter, ... gets a plan at build (exec/frame.c) and its steps run there.
 */
#include "exec/executor.h"
#include "exec/exec_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec/frame.h"
#include "exec/segment.h"
#include "exec/step_stats.h"
#include "rendezvous/rendezvous.h"
#include "state/variable.h"

/* One step; one allocation holding the step, its slots and its pending counts. */
typedef struct step {
  tfc_executor *ex;
  const tfc_exec_args *args;
  tfc_threadpool *pool;  /* args->inter_pool */
  tfc_rendezvous *rv;    /* args->rendezvous */
  tfc_step_stats *stats; /* args->stats: NULL unless traced */
  tfc_exec_done done;
  void *done_arg;
  tfc_tensor **slots;
  atomic_int *pending;
  atomic_int outstanding;
  atomic_int aborted;
  pthread_mutex_t mu;
  tfc_status status; /* guarded by mu */
  long pool_tasks;   /* tfc_threadpool_tasks of the device's pool when the step began */
} step;

/* An async kernel in flight. c comes first: done(c) finds the rest. */
typedef struct async_call {
  tfc_kernel_ctx c;
  step *st;
  int item;
  atomic_int phase; /* 0, then 1 once compute_async returned or done ran: the second continues */
  tfc_status ks;
  tfc_node_stats *rec;     /* traced: the node's record, ended here */
  struct async_call *next; /* trampoline queue */
  tfc_tensor *outs[];
} async_call;

/* ---------------- build ---------------- */

tfc_executor *tfc_executor_new(const tfc_graph *g, tfc_device *device, tfc_kernel_segment *seg, tfc_status *s) {
  tfc_executor *e = calloc(1, sizeof *e);
  if (!e) { TFC_OOM(s); return NULL; }
  e->graph = g;
  e->device = device;
  e->n_items = g->n_nodes;
  e->items = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *e->items);
  e->roots = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *e->roots);
  if (!e->items || !e->roots) goto oom;
  /* slots and out-edge counts */
  int n_edges = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    exec_item *it = &e->items[i];
    it->node = n;
    it->input_start = e->n_slots;
    it->n_inputs = n->n_inputs;
    it->n_outputs = n->n_outputs;
    it->initial_pending = n->n_inputs + n->n_control_inputs;
    it->consumers = calloc((size_t)(n->n_outputs ? n->n_outputs : 1), sizeof(int));
    if (!it->consumers) goto oom;
    e->n_slots += n->n_inputs;
    n_edges += n->n_inputs + n->n_control_inputs;
  }
  /* out-edges grouped by source: count, prefix-sum, fill */
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) {
      e->items[n->inputs[j].node->id].n_edges++;
      e->items[n->inputs[j].node->id].consumers[n->inputs[j].index]++;
    }
    for (int j = 0; j < n->n_control_inputs; j++) e->items[n->control_inputs[j]->id].n_edges++;
  }
  e->edges = calloc((size_t)(n_edges ? n_edges : 1), sizeof *e->edges);
  if (!e->edges) goto oom;
  int pos = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    e->items[i].edge_start = pos;
    pos += e->items[i].n_edges;
    if (e->items[i].n_edges > e->max_fanout) e->max_fanout = e->items[i].n_edges;
    e->items[i].n_edges = 0;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) {
      exec_item *src = &e->items[n->inputs[j].node->id];
      e->edges[src->edge_start + src->n_edges++] =
          (exec_edge){i, e->items[i].input_start + j, n->inputs[j].index, e->items[i].initial_pending == 1};
    }
    for (int j = 0; j < n->n_control_inputs; j++) {
      exec_item *src = &e->items[n->control_inputs[j]->id];
      e->edges[src->edge_start + src->n_edges++] = (exec_edge){i, -1, -1, e->items[i].initial_pending == 1};
    }
    if (e->items[i].initial_pending == 0) e->roots[e->n_roots++] = i;
  }
  /* ref edges into value inputs */
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    exec_item *it = &e->items[i];
    for (int j = 0; j < n->n_inputs; j++) {
      int src_type = n->inputs[j].node->output_types[n->inputs[j].index];
      if (!tfc_dtype_is_ref(src_type) || tfc_dtype_is_ref(n->input_types[j])) continue;
      if (!it->deref && !(it->deref = malloc(sizeof(int) * (size_t)n->n_inputs))) goto oom;
      it->deref[it->n_deref++] = j;
    }
  }
  /* kernels */
  for (int i = 0; i < g->n_nodes; i++) {
    exec_item *it = &e->items[i];
    it->kernel = tfc_kernel_find(device->kernels, it->node, s);
    if (!it->kernel) {
      tfc_status_prefix(s, "Cannot run node '%s' on %s: ", it->node->name, device->name);
      goto fail;
    }
    it->expensive = (it->kernel->flags & TFC_KF_EXPENSIVE) != 0;
    e->any_expensive |= it->expensive;
    it->blocking = (it->kernel->flags & TFC_KF_BLOCKING) != 0;
    e->any_blocking |= it->blocking;
    it->async = (it->kernel->flags & TFC_KF_ASYNC) != 0;
    const char *op = it->node->op->name;
    it->transfer =
        !strcmp(op, "_Send") || !strcmp(op, "_Recv") || !strcmp(op, "_HostSend") || !strcmp(op, "_HostRecv");
    e->any_transfer |= it->transfer;
    it->shared_state = seg && (it->kernel->flags & TFC_KF_SHARED_STATE);
    if (it->shared_state ? tfc_kernel_segment_acquire(seg, device->name, it->node, it->kernel, &it->state, s)
                         : it->kernel->init && it->kernel->init(it->node, &it->state, s)) {
      /* TF's form, as for an error at run time: the kernel's text, then the node */
      char *msg = strdup(tfc_status_msg(s));
      int code = s->code;
      if (!msg) goto oom;
      tfc_status_clear(s);
      tfc_status_set(s, code, "%s\n\t [[{{node %s}}]] (device: %s)", msg, it->node->name, device->name);
      free(msg);
      goto fail;
    }
  }
  if (tfc_cf_plan_build(e, &e->cf, s)) goto fail;
  return e;
oom:
  TFC_OOM(s);
fail:
  tfc_executor_free(e);
  return NULL;
}

int tfc_executor_has_expensive(const tfc_executor *e) { return e->any_expensive; }
int tfc_executor_needs_rendezvous(const tfc_executor *e) { return e->any_blocking || e->any_transfer; }
int tfc_executor_num_nodes(const tfc_executor *e) { return e->n_items; }

void tfc_executor_free(tfc_executor *e) {
  if (!e) return;
  for (int i = 0; i < e->n_items; i++) {
    exec_item *it = &e->items[i];
    if (it->state && it->kernel && it->kernel->free_state && !it->shared_state) it->kernel->free_state(it->state);
    free(it->consumers);
    free(it->deref);
  }
  tfc_cf_plan_free(e->cf);
  free(e->items);
  free(e->edges);
  free(e->roots);
  free(e);
}

/* ---------------- run ---------------- */

/* The per-node path (stopped, kernel_ctx, propagate, release_inputs, finish_one) is forced
 * inline: as calls they added about 50 instructions a node to the executor's own ~250 on the
 * 1,000-node chain of bench/overhead.c (callgrind). */
#define HOT static inline __attribute__((always_inline))

/* Records the first error of the step: the kernel's message with node and device, or the
 * rendezvous's abort status when the step shares one (whose first error wins across
 * executors, and which this error aborts). */
void tfc_exec_node_error(const tfc_executor *ex, struct tfc_rendezvous *rv, const exec_item *it,
                         const tfc_status *ks, tfc_status *out) {
  tfc_status_set(out, ks->code, "%s\n\t [[{{node %s}}]] (device: %s)", tfc_status_msg(ks), it->node->name,
                 ex->device->name);
  if (rv) {
    tfc_rendezvous_abort(rv, out);
    tfc_status_clear(out);
    tfc_rendezvous_status(rv, out);
  }
}

static void step_fail(step *st, const exec_item *it, const tfc_status *ks) {
  tfc_status e;
  tfc_status_init(&e);
  tfc_exec_node_error(st->ex, st->rv, it, ks, &e);
  pthread_mutex_lock(&st->mu);
  tfc_status_move(&st->status, &e);
  pthread_mutex_unlock(&st->mu);
  tfc_status_fini(&e);
  atomic_store(&st->aborted, 1);
}

/* 1 when no further node may start: this step failed, or another executor aborted the
 * step's rendezvous (then its status becomes this step's unless the step has its own). */
HOT int stopped(step *st) {
  if (atomic_load_explicit(&st->aborted, memory_order_relaxed)) return 1;
  if (!st->rv || !tfc_rendezvous_aborted(st->rv)) return 0;
  pthread_mutex_lock(&st->mu);
  if (tfc_status_ok(&st->status)) tfc_rendezvous_status(st->rv, &st->status);
  pthread_mutex_unlock(&st->mu);
  atomic_store(&st->aborted, 1);
  return 1;
}

static void step_end(step *st) {
  tfc_executor *ex = st->ex;
  atomic_store_explicit(&ex->pool_unused, tfc_threadpool_tasks(ex->device->pool) == st->pool_tasks,
                        memory_order_relaxed);
  /* an aborted step leaves tensors in slots of nodes that never ran */
  for (int i = 0; i < ex->n_slots; i++) tfc_tensor_unref(st->slots[i]);
  tfc_exec_done done = st->done;
  void *arg = st->done_arg;
  tfc_status s = st->status;
  pthread_mutex_destroy(&st->mu);
  free(st);
  done(arg, &s);
  tfc_status_fini(&s);
}

HOT void finish_one(step *st) {
  if (atomic_fetch_sub_explicit(&st->outstanding, 1, memory_order_acq_rel) == 1) step_end(st);
}

HOT void release_inputs(const exec_item *it, tfc_tensor **in) {
  for (int j = 0; j < it->n_inputs; j++) {
    tfc_tensor_unref(in[j]);
    in[j] = NULL;
  }
}

/* After item `it` computed (status ks): checks its outputs, hands them on, releases its
 * inputs. Appends newly ready items to ready[] and returns their number. Consumes outs. */
HOT int propagate(step *st, const exec_item *it, tfc_tensor **outs, tfc_status *ks, int *ready) {
  tfc_executor *ex = st->ex;
  int n_ready = 0;
  for (int j = 0; j < it->n_outputs && tfc_status_ok(ks); j++) {
    if (!outs[j])
      tfc_status_set(ks, TFC_INTERNAL, "kernel for %s did not produce output %d", it->node->op->name, j);
    else if (outs[j]->dtype != tfc_dtype_base(it->node->output_types[j]))
      tfc_status_set(ks, TFC_INTERNAL, "kernel for %s produced %s for output %d, expected %s",
                     it->node->op->name, tfc_dtype_name(outs[j]->dtype), j,
                     tfc_dtype_name(it->node->output_types[j]));
  }
  int left_small[8];
  int *left = NULL;
  if (tfc_status_ok(ks)) {
    left = it->n_outputs <= 8 ? left_small : malloc(sizeof(int) * (size_t)it->n_outputs);
    if (!left) TFC_OOM(ks);
  }
  if (!tfc_status_ok(ks)) {
    step_fail(st, it, ks);
    for (int j = 0; j < it->n_outputs; j++) tfc_tensor_unref(outs[j]);
    release_inputs(it, st->slots + it->input_start);
    return 0;
  }
  /* hand outputs on: one reference per consuming edge, the kernel's own to the last */
  for (int j = 0; j < it->n_outputs; j++) {
    left[j] = it->consumers[j];
    if (left[j] == 0) { tfc_tensor_unref(outs[j]); outs[j] = NULL; }
  }
  for (int k = 0; k < it->n_edges; k++) {
    const exec_edge *ed = &ex->edges[it->edge_start + k];
    if (ed->dst_slot >= 0) {
      int o = ed->src_output;
      st->slots[ed->dst_slot] = --left[o] == 0 ? outs[o] : tfc_tensor_ref(outs[o]);
    }
    if (ed->sole || atomic_fetch_sub_explicit(&st->pending[ed->dst], 1, memory_order_acq_rel) == 1)
      ready[n_ready++] = ed->dst;
  }
  if (left != left_small) free(left);
  release_inputs(it, st->slots + it->input_start);
  return n_ready;
}

HOT void kernel_ctx(tfc_kernel_ctx *c, step *st, const exec_item *it, tfc_tensor **outs, tfc_status *ks) {
  tfc_exec_kernel_ctx_init(c, st->ex, st->args, it, st->slots + it->input_start, outs, ks);
}

/* Replaces the ref tensors feeding value inputs with the variables' current values, as the
 * node starts (TF reads a ref edge when its consumer runs). An uninitialized variable fails
 * the node with TF's "Attempting to use uninitialized value <var>". */
int tfc_exec_deref_inputs(const exec_item *it, tfc_tensor **in, tfc_status *ks) {
  for (int k = 0; k < it->n_deref; k++) {
    tfc_tensor *r = in[it->deref[k]];
    if (!r || !r->var) continue; /* fed by a value (a _Recv of a dereferenced tensor) */
    tfc_tensor *v;
    if (tfc_var_read(r->var, &v, ks)) return ks->code;
    tfc_tensor_unref(r);
    in[it->deref[k]] = v;
  }
  return TFC_OK;
}

static void run_from(step *st, const int *firsts, int n_first, async_call *resume);

/* Propagates a finished async kernel and frees its call. */
static int finish_async(async_call *a, int *ready) {
  step *st = a->st;
  if (a->rec) {
    a->rec->op_end_us = tfc_step_stats_now_us();
    if (tfc_status_ok(&a->ks)) tfc_node_stats_outputs(st->stats, a->rec, a->outs, st->ex->items[a->item].n_outputs);
  }
  tfc_node_stats *rec = a->rec;
  int n = propagate(st, &st->ex->items[a->item], a->outs, &a->ks, ready);
  tfc_status_fini(&a->ks);
  free(a);
  if (rec) rec->end_us = tfc_step_stats_now_us();
  return n;
}

static void resume_entry(void *arg) {
  async_call *a = arg;
  run_from(a->st, &a->item, 1, a);
}

static _Thread_local async_call *tl_queued;
static _Thread_local int tl_resuming;

/* Continues a step whose async kernel finished on this thread, without a pool. */
static void resume_here(async_call *a) {
  if (tl_resuming) {
    a->next = tl_queued;
    tl_queued = a;
    return;
  }
  tl_resuming = 1;
  resume_entry(a);
  while (tl_queued) {
    a = tl_queued;
    tl_queued = a->next;
    resume_entry(a);
  }
  tl_resuming = 0;
}

static void async_done(tfc_kernel_ctx *c) {
  async_call *a = (async_call *)c;
  if (atomic_exchange(&a->phase, 1) == 0) return; /* inside compute_async: its caller continues */
  if (a->st->pool && tfc_threadpool_schedule(a->st->pool, resume_entry, a) == 0) return;
  resume_here(a);
}

/* Starts an async kernel. Returns what propagate returns when it finished before
 * compute_async returned, or -1 when it finishes later (the node stays outstanding). */
static int start_async(step *st, int i, int *ready, tfc_node_stats *rec) {
  const exec_item *it = &st->ex->items[i];
  async_call *a = calloc(1, sizeof *a + sizeof(tfc_tensor *) * (size_t)it->n_outputs);
  if (!a) {
    tfc_status ks;
    tfc_status_init(&ks);
    TFC_OOM(&ks);
    step_fail(st, it, &ks);
    tfc_status_fini(&ks);
    release_inputs(it, st->slots + it->input_start);
    return 0;
  }
  a->st = st;
  a->item = i;
  a->rec = rec;
  atomic_init(&a->phase, 0);
  tfc_status_init(&a->ks);
  kernel_ctx(&a->c, st, it, a->outs, &a->ks);
  a->c.done = async_done;
  if (rec) rec->op_start_us = tfc_step_stats_now_us();
  it->kernel->compute_async(&a->c);
  if (atomic_exchange(&a->phase, 1) == 0) return -1; /* a is done's now */
  return finish_async(a, ready);
}

/* Runs item i's kernel and hands its outputs on. Appends newly ready items to ready[] and
 * returns their number, or -1 when an async kernel will finish later. rec: the node's trace
 * record, or NULL; process() inlines this twice, and in the untraced copy every `if (rec)`
 * folds away. */
HOT int process_body(step *st, int i, int *ready, tfc_node_stats *rec) {
  const exec_item *it = &st->ex->items[i];
  if (stopped(st)) {
    release_inputs(it, st->slots + it->input_start);
    return 0;
  }
  if (rec) tfc_node_stats_start(rec, it->node);
  if (it->n_deref) {
    tfc_status ks;
    tfc_status_init(&ks);
    if (tfc_exec_deref_inputs(it, st->slots + it->input_start, &ks)) {
      step_fail(st, it, &ks);
      release_inputs(it, st->slots + it->input_start);
      tfc_status_fini(&ks);
      return 0;
    }
    tfc_status_fini(&ks);
  }
  if (it->async) return start_async(st, i, ready, rec);
  tfc_tensor *outs_small[8];
  tfc_tensor **outs = it->n_outputs <= 8 ? outs_small : malloc(sizeof *outs * (size_t)it->n_outputs);
  tfc_status ks;
  tfc_status_init(&ks);
  int n_ready = 0;
  if (!outs) {
    TFC_OOM(&ks);
    step_fail(st, it, &ks);
    release_inputs(it, st->slots + it->input_start);
  } else {
    for (int j = 0; j < it->n_outputs; j++) outs[j] = NULL;
    tfc_kernel_ctx c;
    kernel_ctx(&c, st, it, outs, &ks);
    if (rec) rec->op_start_us = tfc_step_stats_now_us();
    it->kernel->compute(&c);
    if (rec) {
      rec->op_end_us = tfc_step_stats_now_us();
      if (tfc_status_ok(&ks)) tfc_node_stats_outputs(st->stats, rec, outs, it->n_outputs);
    }
    n_ready = propagate(st, it, outs, &ks, ready);
    if (outs != outs_small) free(outs);
  }
  tfc_status_fini(&ks);
  return n_ready;
}

/* A traced node: its record's start and op times are set in process_body, its end here (or,
 * for an async kernel that finishes later, by finish_async). Transfer nodes are not recorded
 * (TF records only the others). */
static __attribute__((noinline)) int process_traced(step *st, int i, int *ready) {
  tfc_node_stats *rec = st->ex->items[i].transfer ? NULL : tfc_step_stats_claim(st->stats);
  if (!rec) return process_body(st, i, ready, NULL);
  int n = process_body(st, i, ready, rec);
  if (n >= 0 && rec->node) rec->end_us = tfc_step_stats_now_us();
  return n;
}

/* The one branch tracing costs an untraced node. */
HOT int process(step *st, int i, int *ready) {
  if (__builtin_expect(st->stats != NULL, 0)) return process_traced(st, i, ready);
  return process_body(st, i, ready, NULL);
}

typedef struct pool_task {
  step *st;
  int item;
} pool_task;

static void pool_entry(void *arg) {
  pool_task *t = arg;
  step *st = t->st;
  int item = t->item;
  free(t);
  run_from(st, &item, 1, NULL);
}

/* Hands item to the inter-op pool. Returns 0, or -1 when it could not (the caller runs it). */
static int schedule(step *st, int item) {
  pool_task *t = malloc(sizeof *t);
  if (!t) return -1;
  t->st = st;
  t->item = item;
  if (tfc_threadpool_schedule(st->pool, pool_entry, t) == 0) return 0;
  free(t);
  return -1;
}

/* Grows a small int stack (small: caller's storage of 64). Returns 0 or -1 on out of memory. */
static int grow(int **v, int *cap, int top, const int *small) {
  int *nv = malloc(sizeof(int) * (size_t)*cap * 2);
  if (!nv) return -1;
  memcpy(nv, *v, sizeof(int) * (size_t)top);
  if (*v != small) free(*v);
  *v = nv;
  *cap *= 2;
  return 0;
}

/* Runs firsts[0..n_first) (or finishes the async call `resume` of the one item firsts[0]) and
 * everything they make ready that is cheap, on this thread; expensive ready nodes beyond the
 * first go to the inter-op pool. A blocking node (a queue op that may wait for another step)
 * is deferred until this thread has nothing else to run, so the step's other nodes — one of
 * which may fail and wake it, or feed what it waits for — are not held up behind it. */
static void run_from(step *st, const int *firsts, int n_first, async_call *resume) {
  tfc_executor *ex = st->ex;
  int stack_small[64], deferred_small[64];
  int *stack = stack_small, cap = 64, top = 0;
  int *deferred = deferred_small, dcap = 64, n_deferred = 0;
  int ready_small[64];
  int *ready = ex->max_fanout <= 64 ? ready_small : malloc(sizeof(int) * (size_t)ex->max_fanout);
  if (n_first > cap) {
    cap = 2 * n_first;
    stack = malloc(sizeof(int) * (size_t)cap);
  }
  if (!ready || !stack) {
    /* fail these nodes; the rest of the step stops and drains */
    tfc_status ks;
    tfc_status_init(&ks);
    TFC_OOM(&ks);
    for (int k = 0; k < n_first; k++) {
      if (resume) {
        tfc_status_move(&resume->ks, &ks);
        finish_async(resume, NULL); /* an error status never touches ready */
      } else {
        step_fail(st, &ex->items[firsts[k]], &ks);
        release_inputs(&ex->items[firsts[k]], st->slots + ex->items[firsts[k]].input_start);
      }
      finish_one(st);
    }
    tfc_status_fini(&ks);
    if (ready != ready_small) free(ready);
    if (stack != stack_small) free(stack);
    return;
  }
  for (int k = n_first - 1; k >= 0; k--) stack[top++] = firsts[k];
  while (top > 0 || n_deferred > 0) {
    int i;
    if (top > 0) {
      i = stack[--top];
      if (!resume && ex->items[i].blocking && top > 0) {
        if (n_deferred < dcap || grow(&deferred, &dcap, n_deferred, deferred_small) == 0) {
          deferred[n_deferred++] = i;
          continue;
        }
      }
    } else {
      i = deferred[--n_deferred];
    }
    int n_ready = resume ? finish_async(resume, ready) : process(st, i, ready);
    resume = NULL;
    if (n_ready < 0) continue; /* async: its done finishes the node */
    /* The finished node's count passes to one of the nodes it made ready (none: it ends
     * below); only the others are added, before any of them can reach another thread. */
    if (n_ready > 1) atomic_fetch_add_explicit(&st->outstanding, n_ready - 1, memory_order_relaxed);
    for (int r = 0; r < n_ready; r++) {
      int id = ready[r];
      int inline_it = !st->pool || (r == n_ready - 1 && top == 0) ||
                      !tfc_exec_worth_a_thread(&ex->items[id], st->slots + ex->items[id].input_start);
      if (!inline_it && schedule(st, id) == 0) continue;
      if (top == cap && grow(&stack, &cap, top, stack_small) != 0) {
        run_from(st, &id, 1, NULL);
        continue;
      }
      stack[top++] = id;
    }
    if (n_ready == 0) finish_one(st);
  }
  if (ready != ready_small) free(ready);
  if (stack != stack_small) free(stack);
  if (deferred != deferred_small) free(deferred);
}

void tfc_executor_run_async(tfc_executor *ex, const tfc_exec_args *args, tfc_exec_done done, void *arg) {
  if (ex->cf) {
    tfc_cf_run(ex, args, done, arg);
    return;
  }
  tfc_status s;
  tfc_status_init(&s);
  if (ex->n_items == 0) {
    done(arg, &s);
    return;
  }
  /* Workers asleep since the last step start waking now, while the roots run; not when the
   * last step gave the pool nothing (a graph of small tensors: the wake would be all cost). */
  if (ex->any_expensive && args->intra_op_width != 1 &&
      !atomic_load_explicit(&ex->pool_unused, memory_order_relaxed))
    tfc_threadpool_wake(ex->device->pool);
  long pool_tasks = tfc_threadpool_tasks(ex->device->pool);
  /* step, then slots (pointer-aligned), then pending counts */
  size_t slots_off = sizeof(step), pending_off = slots_off + sizeof(tfc_tensor *) * (size_t)ex->n_slots;
  step *st = calloc(1, pending_off + sizeof(atomic_int) * (size_t)ex->n_items);
  if (!st) {
    TFC_OOM(&s);
    done(arg, &s);
    tfc_status_fini(&s);
    return;
  }
  st->ex = ex;
  st->pool_tasks = pool_tasks;
  st->args = args;
  st->pool = args->inter_pool;
  st->rv = args->rendezvous;
  st->stats = args->stats;
  st->done = done;
  st->done_arg = arg;
  st->slots = (tfc_tensor **)((char *)st + slots_off);
  st->pending = (atomic_int *)((char *)st + pending_off);
  tfc_status_init(&st->status);
  for (int i = 0; i < ex->n_items; i++) atomic_init(&st->pending[i], ex->items[i].initial_pending);
  pthread_mutex_init(&st->mu, NULL);
  atomic_init(&st->outstanding, ex->n_roots);
  atomic_init(&st->aborted, 0);
  /* Roots: all but the last go to the pool when they are expensive; the rest run here, in
   * one run_from so that blocking nodes wait for every root's cheap work. The step may end
   * (and be freed) inside run_from, so nothing after it reads the step. */
  int n_roots = ex->n_roots, n_here = 0;
  int here_small[64];
  int *here = n_roots <= 64 ? here_small : malloc(sizeof(int) * (size_t)n_roots);
  for (int r = 0; r < n_roots; r++) {
    int id = ex->roots[r];
    if (r < n_roots - 1 && ex->items[id].expensive && st->pool && schedule(st, id) == 0) continue;
    if (here) {
      here[n_here++] = id;
    } else {
      run_from(st, &id, 1, NULL); /* out of memory for the list: one root at a time */
    }
  }
  if (here) run_from(st, here, n_here, NULL);
  if (here != here_small) free(here);
}

typedef struct sync_wait {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int finished;
  tfc_status status;
} sync_wait;

static void sync_done(void *arg, const tfc_status *s) {
  sync_wait *w = arg;
  pthread_mutex_lock(&w->mu);
  if (!tfc_status_ok(s)) tfc_status_set(&w->status, s->code, "%s", tfc_status_msg(s));
  w->finished = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

int tfc_executor_run(tfc_executor *ex, const tfc_exec_args *args, tfc_status *s) {
  sync_wait w = {.finished = 0};
  pthread_mutex_init(&w.mu, NULL);
  pthread_cond_init(&w.cv, NULL);
  tfc_status_init(&w.status);
  tfc_executor_run_async(ex, args, sync_done, &w);
  pthread_mutex_lock(&w.mu);
  while (!w.finished) pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  pthread_mutex_destroy(&w.mu);
  pthread_cond_destroy(&w.cv);
  int code = tfc_status_move(s, &w.status);
  tfc_status_fini(&w.status);
  return code;
}
