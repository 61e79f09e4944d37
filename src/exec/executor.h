/*
 * executor — runs one partition graph on one device, as a dataflow machine.
 *
 * Built once per (session, run signature, partition): every node is flattened into an item
 * with its kernel, kernel state, input-slot range and out-edges; each step then allocates
 * the slots and pending counts and runs ready nodes. Cheap nodes run inline on the thread that
 * made them ready; expensive ones (MatMul, ...) go to the inter-op pool when other work is
 * ready too, so independent branches run concurrently. Async kernels (_Recv) finish by
 * callback; their continuation goes to the inter-op pool. The first error aborts the step: no
 * further node starts, the step's rendezvous is aborted with it, and the error comes back
 * prefixed with the node and device ("<message>\n\t [[{{node name}}]] (device: <device>)",
 * TF 1.15's node suffix). A graph with TF1 control flow (Switch, Merge, Enter, ...) runs its
 * steps through exec/frame.h instead (dead tensors, frames, iterations).
 *
 * Ownership: the executor borrows its graph and device (both must outlive it), and its
 * segment when given (exec/segment.h: the states of TFC_KF_SHARED_STATE rows).
 * Thread-safety: tfc_executor_run may be called concurrently from many threads; all per-step
 * state lives in the step.
 */
#ifndef TFC_EXEC_EXECUTOR_H
#define TFC_EXEC_EXECUTOR_H

#include <stdint.h>

#include "base/status.h"
#include "base/threadpool.h"
#include "device/device.h"
#include "graph/graph.h"

struct tfc_rendezvous;
struct tfc_kernel_segment;
struct tfc_var_txn;
struct tfc_step_stats;

typedef struct tfc_executor tfc_executor;

typedef struct tfc_exec_args {
  tfc_call_frame *frame;       /* feeds and fetches */
  tfc_threadpool *inter_pool;  /* may be NULL: everything inline */
  int64_t step_id;
  /* The step's rendezvous for _Send/_Recv (borrowed; may be NULL when the partition has
   * none). The first kernel error of any executor in the step aborts it with that error,
   * and every executor of the step stops starting nodes once it is aborted. */
  struct tfc_rendezvous *rendezvous;
  /* The step's journal of variable writes (borrowed; may be NULL): the caller commits it
   * when the whole step succeeded and rolls it back otherwise (state/variable.h). */
  struct tfc_var_txn *txn;
  /* Where a traced step records each node it runs (exec/step_stats.h; borrowed; NULL: not
   * traced, which costs one branch per node). One per executor of the step. */
  struct tfc_step_stats *stats;
  /* The kernels' intra-op width for this step: 0, the device's; 1, every kernel on the thread
   * that runs it (a session running the examples of a batch side by side). */
  int intra_op_width;
} tfc_exec_args;

/* Called once when a step of one executor is over: s is its status (borrowed for the call;
 * OK, the first kernel error, or the rendezvous's abort status). */
typedef void (*tfc_exec_done)(void *arg, const tfc_status *s);

/* Builds the executor: looks up and initializes every node's kernel on `device`; a row with
 * TFC_KF_SHARED_STATE takes its state from `seg` (NULL: a state of its own). Errors name the
 * node (missing kernel: TF's "No OpKernel was registered ..." text). */
tfc_executor *tfc_executor_new(const tfc_graph *g, tfc_device *device, struct tfc_kernel_segment *seg,
                               tfc_status *s);
void tfc_executor_free(tfc_executor *e);
/* 1 when some node's kernel is EXPENSIVE (worth a thread of its own), else 0. */
int tfc_executor_has_expensive(const tfc_executor *e);
/* 1 when a step of it needs a rendezvous even as a lone partition: some node's kernel may
 * block waiting on another step (TFC_KF_BLOCKING), or it sends or receives within its device
 * (a GPU node's output that a host-memory input reads goes through _Send/_HostRecv), else 0. */
int tfc_executor_needs_rendezvous(const tfc_executor *e);
/* The nodes of its graph: a traced step records at most this many executions on the fast
 * path (exec/step_stats.h). */
int tfc_executor_num_nodes(const tfc_executor *e);
/* Starts one step and returns at once (or after running it inline); done runs exactly once,
 * possibly before this returns, on whichever thread finishes the step. args must stay valid
 * until done. Errors come back as "<message>\n\t [[{{node <name>}}]] (device: <device>)". */
void tfc_executor_run_async(tfc_executor *e, const tfc_exec_args *args, tfc_exec_done done,
                            void *arg);
/* Runs one step to completion on this thread (plus the pool). Returns the step's status. */
int tfc_executor_run(tfc_executor *e, const tfc_exec_args *args, tfc_status *s);

#endif
