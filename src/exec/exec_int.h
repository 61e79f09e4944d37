/*
 * exec_int — the executor's item tables, shared by executor.c (the dataflow fast path) and
 * frame.c (graphs with control flow). Internal to src/exec.
 */
#ifndef TFC_EXEC_EXEC_INT_H
#define TFC_EXEC_EXEC_INT_H

#include <string.h>

#include "exec/executor.h"

struct tfc_cf_plan;

typedef struct exec_edge {
  int dst;      /* item index */
  int dst_slot; /* absolute slot, -1 for a control edge */
  int src_output;
  int sole;     /* dst waits for this edge alone: it is ready without counting (executor.c) */
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
  int blocking; /* TFC_KF_BLOCKING: runs after this thread's other ready work */
  int async; /* TFC_KF_ASYNC: compute_async */
  int *consumers; /* data edges per output (n_outputs) */
  int n_deref;    /* inputs fed by a ref output into a non-ref arg: read the variable */
  int *deref;     /* their input indexes */
  int shared_state; /* state belongs to the session's segment, not to this executor */
  int transfer;     /* _Send/_Recv (and host twins): not traced, as in TF */
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
  int any_expensive;
  int any_blocking;
  int any_transfer; /* some node is a _Send/_Recv/_HostSend/_HostRecv */
  /* 1 when the last step to finish queued no task on the device's pool (nothing of it was big
   * enough to split): the next step does not wake the pool's sleeping workers in advance. */
  atomic_int pool_unused;
  struct tfc_cf_plan *cf; /* control flow: NULL for a graph without it (exec/frame.h) */
};


/* Formats a kernel error of item `it` into out (cleared first by the caller) as
 * "<msg>\n\t [[{{node N}}]] (device: D)"; with a rendezvous, aborts it with that and returns
 * its status instead (the step's first error across executors). */
void tfc_exec_node_error(const tfc_executor *ex, struct tfc_rendezvous *rv, const exec_item *it,
                         const tfc_status *ks, tfc_status *out);
/* Replaces ref tensors in in[] that feed value inputs with the variables' current values.
 * Returns 0, or the code of ks (FAILED_PRECONDITION for an uninitialized variable). */
int tfc_exec_deref_inputs(const exec_item *it, tfc_tensor **in, tfc_status *ks);

/* A thread hand-off (a wake-up, a cache of someone else's) costs several microseconds: an
 * EXPENSIVE kernel earns one only when its inputs are large. Below this many input elements a
 * MatMul or Conv2D finishes in about the time the hand-off takes, so it runs inline. */
#define TFC_EXEC_HANDOFF_MIN_ELEMS 16384

/* 1 when ready item `it` (inputs `in`) should go to the inter-op pool: an expensive kernel on
 * large inputs. */
static inline __attribute__((always_inline)) int tfc_exec_worth_a_thread(const exec_item *it,
                                                                          tfc_tensor *const *in) {
  if (!it->expensive) return 0;
  int64_t n = 0;
  for (int j = 0; j < it->n_inputs; j++)
    if (in[j]) n += in[j]->n_elems;
  return n >= TFC_EXEC_HANDOFF_MIN_ELEMS;
}

/* The kernel context of item `it` in a step with `args`: inputs `in` (the item's slots),
 * outputs `outs`, the kernel's status `ks`, written into *c field by field (the others zero).
 * Borrows everything; the executor's fast path and the control-flow path (exec/frame.c) both
 * build contexts here, in place: a context built elsewhere and copied costs a store-forwarding
 * stall per node (the copy's wide loads read the narrow stores just made). */
static inline __attribute__((always_inline)) void
tfc_exec_kernel_ctx_init(tfc_kernel_ctx *c, const tfc_executor *ex, const tfc_exec_args *args, const exec_item *it,
                         tfc_tensor **in, tfc_tensor **outs, tfc_status *ks) {
  c->node = it->node;
  c->state = it->state;
  c->n_inputs = it->n_inputs;
  c->inputs = in;
  c->n_outputs = it->n_outputs;
  c->outputs = outs;
  c->device = ex->device;
  c->pool = ex->device->pool;
  c->max_parallel = args->intra_op_width > 0 ? args->intra_op_width : ex->device->intra_op_threads;
  c->frame = args->frame;
  c->step_id = args->step_id;
  c->rendezvous = args->rendezvous;
  c->txn = args->txn;
  c->status = ks;
  c->host_memory_out = it->kernel->host_memory_out;
  c->done = NULL;
  c->frame_id = 0;
  c->iter_id = 0;
  c->is_input_dead = 0;
  c->is_output_dead = 0;
}

#endif
