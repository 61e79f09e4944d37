/*
 * stack — TF's Stack resource (StackV2, StackPushV2, StackPopV2, StackCloseV2): a LIFO of
 * tensors of one dtype, at most max_size deep. TF1 while-loop gradients push each forward
 * iteration's values in the forward loop and pop them, in reverse, in the gradient loop.
 *
 * Lifetime: a stack is a per-step resource. TF keeps it in the step's container of the
 * device's resource manager, which goes when the run ends; here no manager holds it at all:
 * the DT_RESOURCE handle tensors (state/resource_mgr.h) hold the only references, and every
 * tensor of a step is released when the step ends, so a stack never outlives its run either.
 * Names are TF's: the stack_name attr (or the node's name) + "_" + a process-wide counter.
 *
 * Errors are TF's INVALID_ARGUMENT texts ("Stack[<name>] is empty when calling Pop().",
 * "Stack[<name>] overflowed its max_size (<n>)", "Stack[<name>] has already been closed.").
 * Thread-safety: all functions are thread-safe.
 */
#ifndef TFC_STATE_STACK_H
#define TFC_STATE_STACK_H

#include <stdint.h>

#include "base/status.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

typedef struct tfc_stack tfc_stack;

/* The resource kind of stacks (TF's type name, for "wrong type" texts). */
extern const tfc_resource_kind tfc_stack_kind;

/* A new empty stack named base_name + "_" + the next process-wide stack id, holding elements
 * of elem_type, at most max_size of them (< 0: unlimited). One reference, the caller's
 * (tfc_stack_resource gives the header to unref). NULL with RESOURCE_EXHAUSTED. */
tfc_stack *tfc_stack_new(int elem_type, const char *base_name, int64_t max_size, tfc_status *s);
tfc_resource *tfc_stack_resource(tfc_stack *st);
/* The stack behind a resource of tfc_stack_kind (borrowed). */
tfc_stack *tfc_stack_from_resource(tfc_resource *r);
const char *tfc_stack_name(const tfc_stack *st); /* borrowed, lives with the stack */
int tfc_stack_elem_type(const tfc_stack *st);

/* Pushes t (the stack takes a new reference). Errors: closed, max_size reached, or a dtype
 * other than the stack's ("Must have type <elem enum> but got <dtype enum>", TF's text). */
int tfc_stack_push(tfc_stack *st, tfc_tensor *t, tfc_status *s);
/* Pops the top into *out (the caller's reference). Errors: closed, empty. */
int tfc_stack_pop(tfc_stack *st, tfc_tensor **out, tfc_status *s);
/* Drops every element and marks the stack closed; later push/pop fail. Idempotent. */
void tfc_stack_close(tfc_stack *st);

#endif
