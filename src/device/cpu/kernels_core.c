/*
 * kernels_core — CPU kernels of the core family: Const, placeholders, identities, NoOp and
 * the call-frame ops _Arg/_Retval through which the session feeds and fetches.
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
};

int tfc_cpu_kernels_core(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
