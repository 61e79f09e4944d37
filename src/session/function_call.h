/*
 * function_call — runs function calls by lowering them into the client graph.
 *
 * DESIGN §2.5 lets a function run as a nested executor or be lowered; this module lowers. A
 * call node (PartitionedCall, StatefulPartitionedCall, or a node whose op is a library
 * function) is replaced, while the client graph is copied, by the instantiated body: an
 * Identity per argument ("<call>/<arg>"), the body nodes ("<call>/<node>", attr placeholders
 * bound from the call's attrs: `f`'s attrs for the call ops, the node's attrs for a direct
 * call), and an IdentityN named as the call whose inputs are the returns (a NoOp when there
 * are none) and whose control inputs are the function's control returns. Body inputs use
 * FunctionDef naming ("arg", "node:out_arg:i", "^node"), resolved through each body node's
 * op def. Calls inside a body are lowered the same way, so nested functions work.
 *
 * Consequences, TF's semantics: the body runs in the caller's executor, step, frame,
 * cancellation, deadline and resource manager (variables inside functions are the caller's).
 * Its nodes are placed as TF places a multi-device function's: the node's own request, else
 * the call's device where the node has a kernel there, else the first device with one on the
 * call's task (client_graph.h), so a call on a GPU runs its GPU ops there and the rest, with
 * _Send/_Recv between them, beside it. Instantiation happens once per run signature, since
 * plans (client graph and executors) are cached by signature. The call's control inputs gate
 * every body node without data inputs; its consumers read the IdentityN.
 *
 * If/StatelessIf and While/StatelessWhile are lowered to TF1 control flow around their inlined
 * functions, in the shapes of TF's LowerIfOp and LowerWhileOp (see function_call.c).
 *
 * Limits: argument and return args must be single tensors (TF 2.x functions are);
 * UNIMPLEMENTED otherwise. Recursion deeper than 64 calls is INVALID_ARGUMENT.
 */
#ifndef TFC_SESSION_FUNCTION_CALL_H
#define TFC_SESSION_FUNCTION_CALL_H

#include "base/status.h"
#include "graph/graph.h"

/* 1 when n is a node this module lowers (a call op, If, While, or an op named by a library
 * function). */
int tfc_function_is_call(const tfc_funclib *lib, const tfc_node *n);

/* Lowers call node `call` (of the source graph, whose library is `lib`) into `client`. ins:
 * the call's data inputs as client endpoints (call->n_inputs of them); ctls: its control
 * inputs in the client graph. The new nodes are not placed: each requests the device its
 * NodeDef names, else the device of the innermost call in the body that names one, else none
 * (the caller places them with the call's device as their default). Returns the node standing for the call (IdentityN or NoOp, named as the call),
 * NULL with status on error: INVALID_ARGUMENT naming the node for an unknown function, a wrong
 * argument count or type, a bad body input; what node creation reports for body nodes.
 * All arguments are borrowed. */
tfc_node *tfc_function_lower_call(tfc_graph *client, const tfc_funclib *lib, const tfc_node *call,
                                  const tfc_endpoint *ins, tfc_node *const *ctls, int n_ctls, tfc_status *s);

#endif
