/*
 * sync_replicas.h — tf.compat.v1.train.SyncReplicasOptimizer for C programs: synchronous
 * training by between-graph replicas (each worker builds its own graph over the variables of
 * the ps tasks, e.g. under TFC_NewReplicaDeviceSetter), with TF 1.15's mechanism:
 *
 * - apply_gradients puts one conditional accumulator (ResourceConditionalAccumulator, as
 *   TF's Python makes the dense one) per variable on the variable's device
 *   (shared across the workers' graphs by the shared name "<var>:0/grad_accum"). A worker's
 *   step applies its gradients to them with its local step (a local variable
 *   "sync_rep_local_step" on the worker); a gradient older than the accumulator's global step
 *   is dropped (stale), so a slow worker cannot hold the model back;
 * - the chief's queue runner (over "sync_token_q", with the sync op as its enqueue op) takes
 *   the mean of replicas_to_aggregate gradients from each accumulator, applies it with the wrapped
 *   optimizer (which increments the global step) and puts total_num_replicas tokens holding the
 *   new global step into the "sync_token_q" queue;
 * - the returned train op makes a worker wait for one token after its gradients went in, and
 *   sets its local step to it.
 * With total_num_replicas > replicas_to_aggregate the extra workers are backup workers: a step
 * takes the first replicas_to_aggregate gradients, and a dead or slow worker does not stall it.
 *
 * Graph nodes are named as TF's Python names them ("sync_replicas/conditional_accumulator",
 * "sync_replicas/ResourceAccumulatorApplyGradient", "sync_token_q", "sync_token_q_Dequeue",
 * "sync_replicas/SetGlobalStep", "sync_replicas/group_deps", ...), placed as Python places them
 * (accumulators on their variables' devices, the queue and the update on the global step's,
 * the local step with a NoOp anchor on the worker), with one difference: the tokens are filled
 * from "Fill/read", a read of the global step made after the update, where TF's graph reads
 * the variable's snapshot "global_step/read" (in TF that tensor aliases the variable's buffer
 * and shows the in-place update; a tfc read is a value of its own, as a failed step must leave
 * variables as they were, so TF's wiring would hand out the old step and every gradient would
 * then be stale). A SyncReplicasOptimizer graph made by TF with reference variables therefore
 * stalls in tfc (docs/COMPAT.md); with resource variables TF's own graph reads afresh too. tfc's builder does not add Python's
 * ready_for_local_init_op (a report_uninitialized_variables of the global variables):
 * TFC_MonitoredSession's workers wait for the chief's variables themselves. Only dense
 * gradients are taken (the C builders make no IndexedSlices).
 *
 * With TFC_MonitoredSession, pass TFC_SyncReplicasHook as a hook: after each session
 * creation it runs the local init (the chief's: the local step set to the global step and each
 * accumulator's global step set; a worker's: its local step), and the chief puts the first
 * tokens in and starts the chief queue runner under the session's coordinator (TF's
 * make_session_run_hook).
 *
 * Errors are TF's ValueErrors as INVALID_ARGUMENT (FAILED_PRECONDITION for a call out of
 * order); a failed call leaves the graph as it was. Ownership: the optimizer borrows the
 * wrapped TFC_Optimizer (it must outlive it); returned operations belong to the graph.
 */
#ifndef TFC_SYNC_REPLICAS_H_
#define TFC_SYNC_REPLICAS_H_

#include "tensorflow/c/c_api.h"
#include "tfc/monitored_session.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_SyncReplicasOptimizer TFC_SyncReplicasOptimizer;

/* SyncReplicasOptimizer(opt, replicas_to_aggregate, total_num_replicas, name): total <= 0
 * means replicas_to_aggregate; name NULL: "sync_replicas". NULL (status INVALID_ARGUMENT) for
 * a NULL opt or replicas_to_aggregate < 1. */
TF_CAPI_EXPORT extern TFC_SyncReplicasOptimizer* TFC_NewSyncReplicasOptimizer(TFC_Optimizer* opt,
                                                                             int replicas_to_aggregate,
                                                                             int total_num_replicas,
                                                                             const char* name, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteSyncReplicasOptimizer(TFC_SyncReplicasOptimizer* sync); /* NULL: no-op */

/* apply_gradients(zip(grads, vars), global_step): the train op (see above). Pairs whose grad
 * oper is NULL pass through (no accumulator). Errors: "Must supply at least one variable"
 * (num_vars 0), "Global step is required to check staleness" (global_step NULL), a second
 * call FAILED_PRECONDITION, and TFC_ApplyGradients' errors. */
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasApplyGradients(TFC_SyncReplicasOptimizer* sync,
                                                                  const TFC_Scope* scope, const TF_Output* grads,
                                                                  const TFC_Variable* vars, int num_vars,
                                                                  const TFC_Variable* global_step,
                                                                  TF_Status* status);
/* After apply_gradients (else NULL): chief_init_op, local_step_init_op, the local step
 * variable, and the chief queue runner's parts (the sync op it runs, its close and cancel ops
 * on "sync_token_q"). */
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasChiefInitOp(const TFC_SyncReplicasOptimizer* sync);
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasLocalStepInitOp(const TFC_SyncReplicasOptimizer* sync);
TF_CAPI_EXPORT extern TFC_Variable TFC_SyncReplicasLocalStep(const TFC_SyncReplicasOptimizer* sync);
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasSyncOp(const TFC_SyncReplicasOptimizer* sync);
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasQueueRunnerCloseOp(const TFC_SyncReplicasOptimizer* sync,
                                                                      unsigned char cancel);
/* TF's variable_averages: after apply_gradients, `op` (the caller's, made with a control
 * dependency on TFC_SyncReplicasSyncOp: the moving averages' update) becomes the sync op, the
 * op the chief queue runner runs after each step (TFC_SyncReplicasHook's, and what
 * TFC_SyncReplicasSyncOp returns from then on). FAILED_PRECONDITION before apply_gradients,
 * INVALID_ARGUMENT for a NULL op. */
TF_CAPI_EXPORT extern void TFC_SyncReplicasSetSyncOp(TFC_SyncReplicasOptimizer* sync, TF_Operation* op,
                                                     TF_Status* status);
/* get_init_tokens_op(num_tokens): num_tokens -1 means replicas_to_aggregate; 0 gives the NoOp
 * "no_init_tokens"; fewer than replicas_to_aggregate - total_num_replicas is INVALID_ARGUMENT
 * "Too few tokens to finish the first step: N (given) vs M (needed)"; before apply_gradients
 * FAILED_PRECONDITION "get_init_tokens_op() should be called after apply_gradients()." */
TF_CAPI_EXPORT extern TF_Operation* TFC_SyncReplicasInitTokensOp(TFC_SyncReplicasOptimizer* sync,
                                                                const TFC_Scope* scope, int num_tokens,
                                                                TF_Status* status);
/* make_session_run_hook(is_chief, num_tokens): the hook for TFC_MonitoredSession (see
 * above); the chief's init tokens op is built now (num_tokens as TFC_SyncReplicasInitTokensOp).
 * The hook's arg belongs to sync (valid until it is deleted). Errors as
 * TFC_SyncReplicasInitTokensOp; the hook is then all NULL. */
TF_CAPI_EXPORT extern TFC_SessionRunHook TFC_SyncReplicasHook(TFC_SyncReplicasOptimizer* sync,
                                                             const TFC_Scope* scope, unsigned char is_chief,
                                                             int num_tokens, TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_SYNC_REPLICAS_H_ */
