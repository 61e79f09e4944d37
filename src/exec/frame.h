/*
 * frame — the executor's path for graphs with TF1 control flow (Switch, Merge, Enter, Exit,
 * NextIteration, LoopCond, ControlTrigger): dead tensors, frames and iterations. See the top
 * of frame.c for the design. A graph without these ops never comes here (executor.c's fast
 * path), so plain graphs pay nothing for it.
 */
#ifndef TFC_EXEC_FRAME_H
#define TFC_EXEC_FRAME_H

#include "exec/exec_int.h"

typedef struct tfc_cf_plan tfc_cf_plan;

/* Builds the static control-flow info of executor e (each node's frame, each frame's parent
 * and Enter count) into *out; leaves *out NULL when the graph has no control-flow op.
 * Returns 0, or INVALID_ARGUMENT naming the node for a malformed loop ("has inputs from
 * different frames", an Enter without frame_name). The plan is owned by e. */
int tfc_cf_plan_build(tfc_executor *e, tfc_cf_plan **out, tfc_status *s);
void tfc_cf_plan_free(tfc_cf_plan *p);
/* Runs one step of an executor with a plan, as tfc_executor_run_async does: on this thread
 * until nothing is ready, then wherever an async or pool kernel ends; done runs exactly once,
 * with the step's status (errors formatted as executor.h says), before this returns or later
 * on another thread. args must stay valid until done. */
void tfc_cf_run(tfc_executor *e, const tfc_exec_args *args, tfc_exec_done done, void *arg);

/* Iteration states made since the process started, and alive now (all steps): a step reuses
 * the states of finished iterations, so a loop of any length makes about parallel_iterations
 * + 1 of them per frame instance, and a finished step leaves none alive. For tests. */
int64_t tfc_cf_iter_states_made(void);
int64_t tfc_cf_iter_states_live(void);

#endif
