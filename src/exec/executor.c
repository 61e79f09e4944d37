/*
 * executor — see executor.h.
 *
 * Slots: input j of node i lives in slots[item[i].input_start + j]; each slot owns one
 * reference. A producer hands one reference per consuming edge (the last edge takes the
 * kernel's own), so a tensor with a single consumer arrives with refcount 1 and that kernel
 * may reuse its buffer. "outstanding" counts nodes made ready and not yet finished; the step
 * is over when it drops to zero.
 */
#include "exec/executor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct exec_edge {
  int dst;      /* item index */
  int dst_slot; /* absolute slot, -1 for a control edge */
  int src_output;
} exec_edge;

typedef struct exec_item {
  const tfc_node *node;
  const tfc_kernel_def *kernel;
  void *state;
  int input_start;
  int n_inputs;
  int n_outputs;
  int edge_start, n_edges;
  int initial_pending;
  int expensive;
  int *consumers; /* data edges per output (n_outputs) */
} exec_item;

struct tfc_executor {
  const tfc_graph *graph;
  tfc_device *device;
  int n_items;
  exec_item *items;
  exec_edge *edges;
  int n_slots;
  int *roots;
  int n_roots;
  int max_fanout; /* most out-edges of one node: bounds the ready list */
};

typedef struct step {
  tfc_executor *ex;
  const tfc_exec_args *args;
  tfc_tensor **slots;
  atomic_int *pending;
  atomic_int outstanding;
  atomic_int aborted;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int finished;
  tfc_status status; /* guarded by mu */
} step;

/* ---------------- build ---------------- */

tfc_executor *tfc_executor_new(const tfc_graph *g, tfc_device *device, tfc_status *s) {
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
          (exec_edge){i, e->items[i].input_start + j, n->inputs[j].index};
    }
    for (int j = 0; j < n->n_control_inputs; j++) {
      exec_item *src = &e->items[n->control_inputs[j]->id];
      e->edges[src->edge_start + src->n_edges++] = (exec_edge){i, -1, -1};
    }
    if (e->items[i].initial_pending == 0) e->roots[e->n_roots++] = i;
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
    if (it->kernel->init && it->kernel->init(it->node, &it->state, s)) {
      tfc_status_prefix(s, "node '%s' (%s): ", it->node->name, it->node->op->name);
      goto fail;
    }
  }
  return e;
oom:
  TFC_OOM(s);
fail:
  tfc_executor_free(e);
  return NULL;
}

void tfc_executor_free(tfc_executor *e) {
  if (!e) return;
  for (int i = 0; i < e->n_items; i++) {
    exec_item *it = &e->items[i];
    if (it->state && it->kernel && it->kernel->free_state) it->kernel->free_state(it->state);
    free(it->consumers);
  }
  free(e->items);
  free(e->edges);
  free(e->roots);
  free(e);
}

/* ---------------- run ---------------- */

static void step_fail(step *st, const exec_item *it, tfc_status *ks) {
  pthread_mutex_lock(&st->mu);
  if (tfc_status_ok(&st->status)) {
    tfc_status_set(&st->status, ks->code, "%s\n\t [[{{node %s}}]]", tfc_status_msg(ks), it->node->name);
  }
  pthread_mutex_unlock(&st->mu);
  atomic_store(&st->aborted, 1);
}

static void finish_one(step *st) {
  if (atomic_fetch_sub_explicit(&st->outstanding, 1, memory_order_acq_rel) == 1) {
    pthread_mutex_lock(&st->mu);
    st->finished = 1;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
  }
}

/* Runs item i's kernel and hands its outputs on. Appends newly ready items to ready[]. */
static int process(step *st, int i, int *ready) {
  tfc_executor *ex = st->ex;
  exec_item *it = &ex->items[i];
  tfc_tensor **in = st->slots + it->input_start;
  int n_ready = 0;
  if (atomic_load_explicit(&st->aborted, memory_order_relaxed)) goto release;

  tfc_tensor *outs_small[8];
  tfc_tensor **outs = it->n_outputs <= 8 ? outs_small : calloc((size_t)it->n_outputs, sizeof *outs);
  tfc_status ks;
  tfc_status_init(&ks);
  if (!outs) {
    TFC_OOM(&ks);
    step_fail(st, it, &ks);
    tfc_status_fini(&ks);
    goto release;
  }
  for (int j = 0; j < it->n_outputs; j++) outs[j] = NULL;
  tfc_kernel_ctx c = {.node = it->node,
                      .state = it->state,
                      .n_inputs = it->n_inputs,
                      .inputs = in,
                      .n_outputs = it->n_outputs,
                      .outputs = outs,
                      .device = ex->device,
                      .pool = ex->device->pool,
                      .max_parallel = ex->device->intra_op_threads,
                      .frame = st->args->frame,
                      .step_id = st->args->step_id,
                      .status = &ks};
  it->kernel->compute(&c);
  for (int j = 0; j < it->n_outputs && tfc_status_ok(&ks); j++) {
    if (!outs[j])
      tfc_status_set(&ks, TFC_INTERNAL, "kernel for %s did not produce output %d", it->node->op->name, j);
    else if (outs[j]->dtype != tfc_dtype_base(it->node->output_types[j]))
      tfc_status_set(&ks, TFC_INTERNAL, "kernel for %s produced %s for output %d, expected %s",
                     it->node->op->name, tfc_dtype_name(outs[j]->dtype), j,
                     tfc_dtype_name(it->node->output_types[j]));
  }
  if (!tfc_status_ok(&ks)) {
    step_fail(st, it, &ks);
    for (int j = 0; j < it->n_outputs; j++) tfc_tensor_unref(outs[j]);
    tfc_status_fini(&ks);
    if (outs != outs_small) free(outs);
    goto release;
  }
  tfc_status_fini(&ks);
  /* hand outputs on: one reference per consuming edge, the kernel's own to the last */
  int left_small[8];
  int *left = it->n_outputs <= 8 ? left_small : malloc(sizeof(int) * (size_t)it->n_outputs);
  if (!left) {
    tfc_status_init(&ks);
    TFC_OOM(&ks);
    step_fail(st, it, &ks);
    tfc_status_fini(&ks);
    for (int j = 0; j < it->n_outputs; j++) tfc_tensor_unref(outs[j]);
    if (outs != outs_small) free(outs);
    goto release;
  }
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
    if (atomic_fetch_sub_explicit(&st->pending[ed->dst], 1, memory_order_acq_rel) == 1) ready[n_ready++] = ed->dst;
  }
  if (left != left_small) free(left);
  if (outs != outs_small) free(outs);
release:
  for (int j = 0; j < it->n_inputs; j++) {
    tfc_tensor_unref(in[j]);
    in[j] = NULL;
  }
  return n_ready;
}

typedef struct pool_task {
  step *st;
  int item;
} pool_task;

static void run_from(step *st, int first);

static void pool_entry(void *arg) {
  pool_task *t = arg;
  step *st = t->st;
  int item = t->item;
  free(t);
  run_from(st, item);
}

/* Hands item to the inter-op pool. Returns 0, or -1 when it could not (the caller runs it). */
static int schedule(step *st, int item) {
  pool_task *t = malloc(sizeof *t);
  if (!t) return -1;
  t->st = st;
  t->item = item;
  if (tfc_threadpool_schedule(st->args->inter_pool, pool_entry, t) == 0) return 0;
  free(t);
  return -1;
}

/* Runs `first` and everything it makes ready that is cheap, on this thread; expensive ready
 * nodes beyond the first go to the inter-op pool. */
static void run_from(step *st, int first) {
  tfc_executor *ex = st->ex;
  int stack_small[64];
  int *stack = stack_small, cap = 64, top = 0;
  int ready_small[64];
  int *ready = ex->max_fanout <= 64 ? ready_small : malloc(sizeof(int) * (size_t)ex->max_fanout);
  stack[top++] = first;
  while (top > 0) {
    int i = stack[--top];
    int n_ready = ready ? process(st, i, ready) : 0;
    if (!ready) {
      tfc_status ks;
      tfc_status_init(&ks);
      TFC_OOM(&ks);
      step_fail(st, &ex->items[i], &ks);
      tfc_status_fini(&ks);
    }
    if (n_ready) atomic_fetch_add_explicit(&st->outstanding, n_ready, memory_order_relaxed);
    for (int r = 0; r < n_ready; r++) {
      int id = ready[r];
      int inline_it = !ex->items[id].expensive || !st->args->inter_pool || (r == n_ready - 1 && top == 0);
      if (!inline_it && schedule(st, id) == 0) continue;
      if (top == cap) {
        int *ns = malloc(sizeof(int) * (size_t)cap * 2);
        if (!ns) { run_from(st, id); continue; }
        memcpy(ns, stack, sizeof(int) * (size_t)top);
        if (stack != stack_small) free(stack);
        stack = ns;
        cap *= 2;
      }
      stack[top++] = id;
    }
    finish_one(st);
  }
  if (ready != ready_small) free(ready);
  if (stack != stack_small) free(stack);
}

int tfc_executor_run(tfc_executor *ex, const tfc_exec_args *args, tfc_status *s) {
  if (ex->n_items == 0) return TFC_OK;
  step st;
  memset(&st, 0, sizeof st);
  st.ex = ex;
  st.args = args;
  tfc_status_init(&st.status);
  st.slots = calloc((size_t)(ex->n_slots ? ex->n_slots : 1), sizeof *st.slots);
  st.pending = malloc(sizeof *st.pending * (size_t)ex->n_items);
  if (!st.slots || !st.pending) {
    free(st.slots);
    free(st.pending);
    return TFC_OOM(s);
  }
  for (int i = 0; i < ex->n_items; i++) atomic_init(&st.pending[i], ex->items[i].initial_pending);
  pthread_mutex_init(&st.mu, NULL);
  pthread_cond_init(&st.cv, NULL);
  atomic_init(&st.outstanding, ex->n_roots);
  atomic_init(&st.aborted, 0);
  /* Roots: all but the last go to the pool when they are expensive; the rest run here. */
  for (int r = 0; r < ex->n_roots; r++) {
    int id = ex->roots[r];
    if (r < ex->n_roots - 1 && ex->items[id].expensive && args->inter_pool && schedule(&st, id) == 0) continue;
    run_from(&st, id);
  }
  pthread_mutex_lock(&st.mu);
  while (!st.finished) pthread_cond_wait(&st.cv, &st.mu);
  pthread_mutex_unlock(&st.mu);
  /* an aborted step leaves tensors in slots of nodes that never ran */
  for (int i = 0; i < ex->n_slots; i++) tfc_tensor_unref(st.slots[i]);
  free(st.slots);
  free(st.pending);
  pthread_mutex_destroy(&st.mu);
  pthread_cond_destroy(&st.cv);
  int code = tfc_status_move(s, &st.status);
  tfc_status_fini(&st.status);
  return code;
}
