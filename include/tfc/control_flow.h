/*
 * control_flow.h — TF 1.x's tf.cond, tf.case and tf.while_loop as graph builders from C, with
 * the node structure and names TF 1.x's Python builds (control flow v1):
 *
 *   cond:  <cond>/Switch (pred, pred), <cond>/switch_t, <cond>/switch_f, <cond>/pred_id, the
 *          branches (ops without inputs wait for switch_t / switch_f), <cond>/Merge[_i]
 *          (false result, true result)
 *   case:  nested conds under "case": cond(p0, f0, cond(p1, f1, ... default))
 *   while: <while>/Enter[_i] (frame "<while>/while_context", parallel_iterations), Merge[_i],
 *          the cond ops, LoopCond, Switch[_i], Identity[_i], the body ops, NextIteration[_i],
 *          Exit[_i]; maximum_iterations adds "<while>/maximum_iterations" (when given as a
 *          number), "<while>/iteration_counter" and a counter loop variable in front, the
 *          cond becoming LogicalAnd(counter < maximum_iterations, cond) as in Python.
 *
 * The branches and the loop's cond and body are callbacks, Python's lambdas: each gets a scope
 * (the cond's or loop's name scope, carrying the control-flow context) and builds its ops with
 * TFC_ScopeNewOperation or any builder taking that scope, TFC_Cond and TFC_WhileLoop included
 * (nesting). A tensor made outside the context must come in through TFC_Capture, which adds
 * what Python's context adds when an op reads such a tensor: a Switch on the branch's
 * predicate (cond) or a constant Enter (while), named under the consuming op's name as Python
 * names it ("cond/mul/Switch", "while/Less/Enter"); results that are outside tensors are
 * captured by the builder itself. After a callback returns, every op it made without inputs
 * gets the context's pivot as a control input (switch_t, switch_f, the first Merge for a
 * loop's cond, the first Identity for its body), as Python does.
 *
 * Ownership and errors as in train.h: handles belong to the graph; on any error (a callback's
 * status included) the graph is left as it was. Scopes handed to callbacks are borrowed for the
 * call; a scope derived from one keeps its context, whose captures fail once the context is
 * finished. Not thread-safe for one graph.
 */
#ifndef TFC_CONTROL_FLOW_H_
#define TFC_CONTROL_FLOW_H_

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cond branch: fills outputs[0, num_outputs) (tensors of this graph; made inside the branch
 * or outside it) or sets status. */
typedef void (*TFC_BranchFn)(const TFC_Scope* scope, void* arg, TF_Output* outputs,
                             TF_Status* status);

/* tf.cond(pred, true_fn, false_fn, name): outputs[i] = Merge i. name NULL: "cond" (made
 * unique). Errors (INVALID_ARGUMENT): pred not a bool output; branch results of different
 * dtypes ("Outputs of true_fn and false_fn must have the same type: float32, int32"); an op in
 * a branch reading a tensor from outside without TFC_Capture. */
TF_CAPI_EXPORT extern void TFC_Cond(const TFC_Scope* scope, TF_Output pred, TFC_BranchFn true_fn,
                                    void* true_arg, TFC_BranchFn false_fn, void* false_arg,
                                    int num_outputs, const char* name, TF_Output* outputs,
                                    TF_Status* status);

typedef struct TFC_CaseBranch {
  TF_Output pred;
  TFC_BranchFn fn;
  void* arg;
} TFC_CaseBranch;

/* tf.case(pred_fn_pairs, default, exclusive=False, name): the first branch whose pred is
 * true, else the default. name NULL: "case". Unlike Python, the default is required
 * (INVALID_ARGUMENT when NULL), and exclusive is not offered. */
TF_CAPI_EXPORT extern void TFC_Case(const TFC_Scope* scope, const TFC_CaseBranch* branches,
                                    int num_branches, TFC_BranchFn default_fn, void* default_arg,
                                    int num_outputs, const char* name, TF_Output* outputs,
                                    TF_Status* status);

/* TFC_Cond and TFC_Case whose output count is the first branch built's, as Python's tf.cond
 * learns it from true_fn's results: every branch gets `outputs` of room max_outputs, all unset;
 * the true branch (for case, the first pair's fn) sets a prefix, the first unset slot ending it;
 * the other branches must set at least as many (slots past the count are ignored).
 * *num_outputs gets the count (outputs[0, count) the Merges); errors as TFC_Cond / TFC_Case
 * (INVALID_ARGUMENT for a NULL num_outputs or max_outputs < 0). */
TF_CAPI_EXPORT extern void TFC_CondDynamic(const TFC_Scope* scope, TF_Output pred,
                                           TFC_BranchFn true_fn, void* true_arg,
                                           TFC_BranchFn false_fn, void* false_arg, int max_outputs,
                                           int* num_outputs, const char* name, TF_Output* outputs,
                                           TF_Status* status);
TF_CAPI_EXPORT extern void TFC_CaseDynamic(const TFC_Scope* scope, const TFC_CaseBranch* branches,
                                           int num_branches, TFC_BranchFn default_fn,
                                           void* default_arg, int max_outputs, int* num_outputs,
                                           const char* name, TF_Output* outputs, TF_Status* status);

/* A loop's cond: *out = a bool scalar from vars. A loop's body: outs[i] = the next value of
 * vars[i], of the same dtype. */
typedef void (*TFC_WhileCondFn)(const TFC_Scope* scope, void* arg, const TF_Output* vars,
                                TF_Output* out, TF_Status* status);
typedef void (*TFC_WhileBodyFn)(const TFC_Scope* scope, void* arg, const TF_Output* vars,
                                TF_Output* outs, TF_Status* status);

typedef struct TFC_WhileOptions {
  int parallel_iterations;       /* <= 0: 10 (Python's default) */
  unsigned char back_prop;       /* Python's back_prop: 0 makes TFC_Gradients pass nothing
                                    through the loop (tf.gradients' None); no nodes change */
  long long maximum_iterations;  /* < 0: none; else a Const "<while>/maximum_iterations" */
  TF_Output maximum_iterations_tensor; /* oper non-NULL: an int scalar tensor instead */
} TFC_WhileOptions;

/* Python's defaults: parallel_iterations 10, back_prop true, no maximum_iterations. */
TF_CAPI_EXPORT extern TFC_WhileOptions TFC_DefaultWhileOptions(void);

/* tf.while_loop(cond, body, loop_vars, ...): outputs[i] = Exit i (without the counter of
 * maximum_iterations). opts NULL: defaults. name NULL: "while". Errors (INVALID_ARGUMENT): no
 * loop variables; a cond result that is not bool; a body result whose dtype differs from its
 * loop variable's; ops reading outside tensors without TFC_Capture. */
TF_CAPI_EXPORT extern void TFC_WhileLoop(const TFC_Scope* scope, TFC_WhileCondFn cond,
                                         TFC_WhileBodyFn body, void* arg,
                                         const TF_Output* loop_vars, int num_vars,
                                         const TFC_WhileOptions* opts, const char* name,
                                         TF_Output* outputs, TF_Status* status);

/* Inside a branch or loop callback: `value` as seen inside the scope's context (itself when
 * made inside, or when the scope has no context). op_name is the name (relative to the scope)
 * of the op about to read it, e.g. "mul": the capture is named "<scope>/<op>/Switch" or
 * ".../Enter" for the name that op will get, as Python names it; NULL names it
 * "<scope>/Switch" / "<scope>/Enter". Repeated captures of one tensor in one context give the
 * same tensor. oper NULL on error (FAILED_PRECONDITION for a finished context). */
TF_CAPI_EXPORT extern TF_Output TFC_Capture(const TFC_Scope* scope, TF_Output value,
                                            const char* op_name, TF_Status* status);

/* While a branch or loop callback runs: `op`, just made by code that builds outside the
 * control-flow contexts (Python's init_scope / control_dependencies(None), e.g. a variable's
 * initial value), is not part of the open contexts: it gets no pivot, and ops inside read it
 * through a capture. Builder calls given a scope without a context (a root scope) are outside
 * already. No-op when no callback runs; INVALID_ARGUMENT for a NULL graph or op. */
TF_CAPI_EXPORT extern void TFC_MarkOutsideControlFlow(TF_Graph* graph, TF_Operation* op,
                                                      TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TFC_CONTROL_FLOW_H_ */
