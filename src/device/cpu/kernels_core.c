/*
 * kernels_core — CPU kernels of the core family: Const, placeholders, identities, NoOp and
 * the call-frame ops _Arg/_Retval through which the session feeds and fetches, and the
 * control-flow ops (Switch, Merge, Enter, ...), which only forward: the executor gives them
 * their meaning (exec/frame.h). Switch leaves its untaken output unset, which the executor
 * reads as dead; Merge sees its dead inputs as NULL.
 */
#include <string.h>

#include "device/cpu/cpu_kernels.h"

static int const_compute(tfc_kernel_ctx *c) {
  const tfc_attr_value *v = tfc_node_attr(c->node, "value");
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(v->u.tensor));
  return TFC_OK;
}

/* A Placeholder that runs was not fed: TF's error, with the shape when the graph knows it. */
static int placeholder_compute(tfc_kernel_ctx *c) {
  int dt = 0;
  tfc_node_attr_type(c->node, "dtype", &dt);
  const tfc_attr_value *sh = tfc_node_attr(c->node, "shape");
  if (sh && sh->kind == TFC_ATTR_SHAPE && sh->u.shape->rank >= 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "You must feed a value for placeholder tensor '%s' with dtype %s and shape %s",
                            c->node->name, tfc_dtype_name(dt), tfc_shape_str(sh->u.shape, buf, sizeof buf));
  }
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                          "You must feed a value for placeholder tensor '%s' with dtype %s", c->node->name,
                          tfc_dtype_name(dt));
}

static int identity_compute(tfc_kernel_ctx *c) {
  for (int i = 0; i < c->n_outputs; i++) tfc_kernel_set_output(c, i, tfc_tensor_ref(c->inputs[i]));
  return TFC_OK;
}

static int snapshot_compute(tfc_kernel_ctx *c) {
  tfc_tensor *t = tfc_tensor_copy(c->inputs[0], c->status);
  if (!t) return c->status->code;
  tfc_kernel_set_output(c, 0, t);
  return TFC_OK;
}

static int noop_compute(tfc_kernel_ctx *c) {
  (void)c;
  return TFC_OK;
}

/* A call node never runs: session/function_call.c lowers it into the client graph. The row
 * lets the placer put calls on the CPU. */
static int call_compute(tfc_kernel_ctx *c) {
  return tfc_kernel_error(c, TFC_INTERNAL, "function call %s ran without being lowered", c->node->name);
}

static int arg_compute(tfc_kernel_ctx *c) {
  int64_t index = 0;
  int dt = 0;
  tfc_node_attr_int(c->node, "index", &index);
  tfc_node_attr_type(c->node, "T", &dt);
  if (!c->frame || index < 0 || index >= c->frame->n_args || !c->frame->args[index])
    return tfc_kernel_error(c, TFC_INTERNAL, "_Arg %lld has no value in the call frame", (long long)index);
  tfc_tensor *t = c->frame->args[index];
  if (t->dtype != dt)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expects arg[%lld] to be %s but %s is provided",
                            (long long)index, tfc_dtype_name(dt), tfc_dtype_name(t->dtype));
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(t));
  return TFC_OK;
}

static int retval_compute(tfc_kernel_ctx *c) {
  int64_t index = 0;
  tfc_node_attr_int(c->node, "index", &index);
  if (!c->frame || index < 0 || index >= c->frame->n_rets)
    return tfc_kernel_error(c, TFC_INTERNAL, "_Retval %lld is outside the call frame", (long long)index);
  tfc_tensor_unref(c->frame->rets[index]);
  c->frame->rets[index] = tfc_tensor_ref(c->inputs[0]);
  return TFC_OK;
}

static int switch_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *pred = c->inputs[1];
  if (pred->ndims != 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "The second input must be a scalar, but it has shape %s",
                            tfc_tensor_shape_str(pred, buf, sizeof buf));
  }
  int taken = *(const uint8_t *)pred->data ? 1 : 0;
  tfc_kernel_set_output(c, taken, tfc_tensor_ref(c->inputs[0]));
  return TFC_OK;
}

/* Forwards the first live input and its index (the executor starts a Merge on its first live
 * input, so there is exactly one). */
static int merge_compute(tfc_kernel_ctx *c) {
  for (int i = 0; i < c->n_inputs; i++) {
    if (!c->inputs[i]) continue;
    tfc_tensor *idx = tfc_kernel_alloc_output(c, 1, TFC_DT_INT32, NULL, 0);
    if (!idx) return c->status->code;
    *(int32_t *)idx->data = i;
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[i]));
    return TFC_OK;
  }
  return tfc_kernel_error(c, TFC_INTERNAL, "Merge has no live input");
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Const, .compute = const_compute},
    {.op = TFC_OP_Placeholder, .compute = placeholder_compute},
    {.op = TFC_OP_PlaceholderV2, .compute = placeholder_compute},
    {.op = TFC_OP_PlaceholderWithDefault, .compute = identity_compute},
    {.op = TFC_OP_Identity, .compute = identity_compute},
    {.op = TFC_OP_IdentityN, .compute = identity_compute},
    {.op = TFC_OP_StopGradient, .compute = identity_compute},
    {.op = TFC_OP_PreventGradient, .compute = identity_compute},
    {.op = TFC_OP_Snapshot, .compute = snapshot_compute},
    {.op = TFC_OP_NoOp, .compute = noop_compute},
    {.op = TFC_OP__Arg, .compute = arg_compute},
    {.op = TFC_OP__Retval, .compute = retval_compute},
    {.op = TFC_OP_Switch, .compute = switch_compute},
    {.op = TFC_OP_RefSwitch, .compute = switch_compute},
    {.op = TFC_OP_Merge, .compute = merge_compute},
    {.op = TFC_OP_RefMerge, .compute = merge_compute},
    {.op = TFC_OP_Enter, .compute = identity_compute},
    {.op = TFC_OP_RefEnter, .compute = identity_compute},
    {.op = TFC_OP_Exit, .compute = identity_compute},
    {.op = TFC_OP_RefExit, .compute = identity_compute},
    {.op = TFC_OP_NextIteration, .compute = identity_compute},
    {.op = TFC_OP_RefNextIteration, .compute = identity_compute},
    {.op = TFC_OP_LoopCond, .compute = identity_compute},
    {.op = TFC_OP_ControlTrigger, .compute = noop_compute},
    {.op = TFC_OP_PartitionedCall, .compute = call_compute},
    {.op = TFC_OP_StatefulPartitionedCall, .compute = call_compute},
    {.op = TFC_OP_If, .compute = call_compute},
    {.op = TFC_OP_StatelessIf, .compute = call_compute},
    {.op = TFC_OP_While, .compute = call_compute},
    {.op = TFC_OP_StatelessWhile, .compute = call_compute},
};

int tfc_cpu_kernels_core(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
