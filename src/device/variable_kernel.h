/*
 * variable_kernel — what the CPU and GPU kernels of the variable ops share (ops_state.def):
 * VariableV2/Variable and VarHandleOp (the node's variable in the device's resources),
 * ReadVariableOp, IsVariableInitialized/VarIsInitializedOp, and the steps, checks and texts of
 * the writers Assign, AssignAdd/AssignSub and AssignVariableOp, Assign{Add,Sub}VariableOp.
 *
 * A variable lives in the resource manager of the device its op runs on, and its value is a
 * tensor in that device's memory; the ops that only hand out the variable (VariableV2's ref,
 * VarHandleOp's host-side DT_RESOURCE handle), read it (ReadVariableOp outputs the current
 * value tensor itself: values are copy-on-write, so a reader's tensor never changes) or test
 * it (the bool goes to host memory: the GPU rows declare it host_memory_out) touch no element
 * and are one function for every device. The writers go through tfc_kernel_update_* (locked,
 * journaled in the step, so a failed step leaves the variable as it was); each device supplies
 * only what touches elements:
 *   - keep: the tensor to install from an input (the input itself when nothing else holds it,
 *     else a copy in the device's memory);
 *   - add: out = old ± value, element-wise over equal shapes and dtypes.
 *
 * Errors are the CPU kernels' texts and codes (TF's where TF has one): "Attempting to use
 * uninitialized parameters: v" (AssignAdd on a ref variable), TF's ReadVariableOp text for a
 * resource variable without a value, "Parameters and update must be the same size", "Assign
 * requires shapes of both tensors to match. lhs shape= [2] rhs shape= [3]", "Trying to read
 * variable with wrong dtype. Expected float got double".
 *
 * Ownership: the states are the kernel states of their nodes (free with the matching _free).
 * Thread-safety: compute may run concurrently in several steps; a node's variable is found
 * once and cached behind an atomic, updates are serialized by the variable's lock.
 */
#ifndef TFC_DEVICE_VARIABLE_KERNEL_H
#define TFC_DEVICE_VARIABLE_KERNEL_H

#include "device/kernel.h"

/* ---- the ops that hand out, read or test a variable (any device) ---- */

/* State of VariableV2, Variable and VarHandleOp: container, shared_name (else the node's
 * name), dtype and shape attrs. Errors: INTERNAL for a missing attr, RESOURCE_EXHAUSTED. */
int tfc_varop_init(const tfc_node *n, void **state, tfc_status *s);
void tfc_varop_free(void *state); /* NULL: no-op */
/* VariableV2/Variable: output 0 is the variable's ref. */
int tfc_varop_ref_compute(tfc_kernel_ctx *c);
/* VarHandleOp: output 0 is a DT_RESOURCE handle (host memory). */
int tfc_varop_handle_compute(tfc_kernel_ctx *c);
/* ReadVariableOp: output 0 is the value (a new reference to the variable's tensor, in the
 * memory of the device that wrote it). FAILED_PRECONDITION for an uninitialized variable,
 * INVALID_ARGUMENT when the dtype attr is not the variable's. */
int tfc_varop_read_compute(tfc_kernel_ctx *c);
/* IsVariableInitialized (a ref) and VarIsInitializedOp (a handle): output 0 is a bool scalar
 * written from the host, so a row on a device with its own memory must declare
 * host_memory_out TFC_HOST(0). */
int tfc_varop_is_initialized_compute(tfc_kernel_ctx *c);

/* ---- the writers: shared steps around the device's element work ---- */

/* The tensor to install as the new value from input `in` (a new reference, in the device's
 * memory), or NULL with c->status set. */
typedef tfc_tensor *(*tfc_varop_keep_fn)(tfc_kernel_ctx *c, int in);
/* out = old - val (sub) or old + val, all of out's dtype and shape. Returns the status code
 * (UNIMPLEMENTED "<Op> does not support <dtype>" for a dtype the device cannot add). */
typedef int (*tfc_varop_add_fn)(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *old, const tfc_tensor *val,
                                int sub);

/* Assign's and AssignVariableOp's state: the validate_shape attr. */
int tfc_varop_assign_init(const tfc_node *n, void **state, tfc_status *s);
void tfc_varop_assign_free(void *state); /* NULL: no-op */
/* Assign (ref input 0, value input 1; output 0 forwards the ref). */
int tfc_varop_assign(tfc_kernel_ctx *c, tfc_varop_keep_fn keep);
/* AssignVariableOp (handle input 0, value input 1; no output; state from
 * tfc_varop_assign_init). INVALID_ARGUMENT when the value's dtype is not the variable's, or
 * with validate_shape when its shape is not the variable's. */
int tfc_varop_assign_resource(tfc_kernel_ctx *c, tfc_varop_keep_fn keep);
/* AssignAdd/AssignSub (resource 0) and Assign{Add,Sub}VariableOp (resource 1). */
int tfc_varop_update(tfc_kernel_ctx *c, int sub, int resource, tfc_varop_add_fn add);

/* ---- ResourceGather ---- */

struct tfc_gather_plan;
/* ResourceGather (handle input 0, indices input 1: only its shape is read; batch_dims 0):
 * the variable's current value (a new reference, the caller's), with the gather's plan in g
 * (params viewed as [1, 1, rows, inner]). NULL with c->status set: UNIMPLEMENTED for a
 * nonzero batch_dims, FAILED_PRECONDITION for an uninitialized variable, INVALID_ARGUMENT for
 * the wrong dtype, a scalar value or an output above the maximum rank. The indices' values
 * are the device's to check. */
tfc_tensor *tfc_varop_gather_plan(tfc_kernel_ctx *c, struct tfc_gather_plan *g);

#endif
