/*
 * kernels_tensor_array — CPU kernels of the per-step containers (ops_tensor_array.def): stacks
 * (state/stack.h) and TensorArrays (state/tensor_array.h). The creating ops (StackV2,
 * TensorArrayV3, TensorArrayGradV3) make a new object each run and output a DT_RESOURCE handle
 * holding it; every other op acts on the object behind its handle input. Nothing is registered
 * in the device's resource manager: the handles alone keep an object alive, so it goes with
 * the last tensor of the step that made it (TF's per-step container).
 *
 * All of them are cheap and run inline; handles and the int32 shape-like inputs (sizes,
 * indices) are host-side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "state/stack.h"

/* ---------------- stacks ---------------- */

typedef struct stack_op {
  int elem_type;
  const char *name; /* stack_name, or the node's name; borrowed from the graph */
} stack_op;

static int stack_op_init(const tfc_node *n, void **state, tfc_status *s) {
  stack_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_kernel_attr_type(n, "elem_type", &st->elem_type, s) || tfc_kernel_attr_string(n, "stack_name", &st->name, s)) {
    free(st);
    return s->code;
  }
  if (!*st->name) st->name = n->name;
  *state = st;
  return TFC_OK;
}

static int stack_compute(tfc_kernel_ctx *c) {
  const stack_op *st = c->state;
  const tfc_tensor *max = c->inputs[0];
  if (max->ndims != 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Stack size must be a scalar, but had shape: %s",
                            tfc_tensor_shape_str(max, buf, sizeof buf));
  }
  int32_t size = *(const int32_t *)max->data;
  tfc_stack *stack = tfc_stack_new(st->elem_type, st->name, size < 0 ? -1 : size, c->status);
  if (!stack) return c->status->code;
  tfc_tensor *h = tfc_resource_handle_new(tfc_stack_resource(stack), c->status);
  tfc_resource_unref(tfc_stack_resource(stack)); /* the handle holds it now */
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  return TFC_OK;
}

static tfc_stack *input_stack(tfc_kernel_ctx *c) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[0], &tfc_stack_kind, c->status);
  return r ? tfc_stack_from_resource(r) : NULL;
}

static int stack_push_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  if (!stack || tfc_stack_push(stack, c->inputs[1], c->status)) return c->status->code;
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[1]));
  return TFC_OK;
}

static int stack_pop_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  tfc_tensor *t = NULL;
  if (!stack || tfc_stack_pop(stack, &t, c->status)) return c->status->code;
  if (t->dtype != c->node->output_types[0]) {
    /* TF's executor check of an output against the op's declared type. */
    tfc_kernel_error(c, TFC_INTERNAL, "Output 0 of type %s does not match declared output type %s for node {{node %s}}",
                     tfc_dtype_name(t->dtype), tfc_dtype_name(c->node->output_types[0]), c->node->name);
    tfc_tensor_unref(t);
    return c->status->code;
  }
  tfc_kernel_set_output(c, 0, t);
  return TFC_OK;
}

static int stack_close_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  if (!stack) return c->status->code;
  tfc_stack_close(stack);
  return TFC_OK;
}

/* ---------------- registration ---------------- */

#define HANDLE TFC_HOST(0)

static const tfc_kernel_def tensor_array_kernels[] = {
    {.op = TFC_OP_StackV2, .host_memory_in = TFC_HOST(0), .host_memory_out = HANDLE, .init = stack_op_init,
     .compute = stack_compute, .free_state = free},
    {.op = TFC_OP_StackPushV2, .host_memory_in = HANDLE, .compute = stack_push_compute},
    {.op = TFC_OP_StackPopV2, .host_memory_in = HANDLE, .compute = stack_pop_compute},
    {.op = TFC_OP_StackCloseV2, .host_memory_in = HANDLE, .compute = stack_close_compute},
};

int tfc_cpu_kernels_tensor_array(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, tensor_array_kernels, (int)(sizeof tensor_array_kernels / sizeof tensor_array_kernels[0]),
                              s);
}
