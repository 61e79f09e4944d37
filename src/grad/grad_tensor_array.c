/*
 * grad_tensor_array — gradient builders of the TensorArray V3 family (TF 1.x's
 * tensor_array_grad.py): every gradient goes through a gradient array made by
 * TensorArrayGradV3 from the forward array's handle, with `source` naming the gradient
 * computation, so that all the gradient ops of one tf.gradients call (inside and outside a
 * while loop) find the same gradient array. The pairs are TF's:
 *
 *   ReadV3(i)          <- WriteV3(i) of dy into the gradient array; dflow_in = its flow
 *   WriteV3(i, v)      <- ReadV3(i) of the gradient array;           dv, dflow_in = dflow
 *   GatherV3(idx)      <- ScatterV3(idx) of dy;                      dflow_in = its flow
 *   ScatterV3(idx, v)  <- GatherV3(idx);                             dv, dflow_in = dflow
 *   ConcatV3           <- SplitV3 of dy by the forward lengths;      dflow_in = its flow
 *   SplitV3(v, len)    <- ConcatV3;                                  dv, dflow_in = dflow
 *
 * (tf.TensorArray's stack and unstack are gathers and scatters.) The handle, index, indices
 * and lengths inputs get no gradient; TensorArrayV3, TensorArrayGradV3, SizeV3 and CloseV3
 * are non-differentiable.
 *
 * Node names are Python's under "<op>_grad/": "TensorArrayGrad/TensorArrayGradV3",
 * "TensorArrayGrad/gradient_flow" (the flow, waiting for the gradient handle), then
 * "TensorArrayWrite/TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayScatter/
 * TensorArrayScatterV3", "TensorArrayGatherV3", "TensorArraySplit/TensorArraySplitV3" or
 * "TensorArrayConcatV3"; the writers' gradients first make "flow_out" (Identity of the forward
 * flow_out) and "write_barrier" (the incoming flow gradient, waiting for flow_out), which
 * orders the gradient read after the forward write.
 *
 * `source` is Python's _GetGradSource: the incoming gradient's node name up to and including
 * its last path component that starts with "gradients" ("gradients", "outer/gradients_1").
 * Where the incoming gradient is not such a node (a seed given to TF's C API, used as given),
 * the builder's own scope supplies it by the same rule; a scope without such a component is
 * INVALID_ARGUMENT with Python's "Expected op/tensor name to start with gradients (excluding
 * scope), got: <name>".
 *
 * Errors latch in c->s as in the other families (grad_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

/* The length of name's prefix up to and including its last '/'-separated component that
 * starts with "gradients"; 0 when none does. */
static size_t source_len(const char *name) {
  size_t best = 0;
  const char *p = name;
  while (*p) {
    const char *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len >= 9 && strncmp(p, "gradients", 9) == 0) best = (size_t)(p - name) + len;
    if (!end) break;
    p = end + 1;
  }
  return best;
}

/* The `source` attr of the gradient arrays this gradient makes (see the top comment). */
static int grad_source(tfc_grad_ctx *c, tfc_endpoint dy, tfc_attr_value *out) {
  const char *name = dy.node ? dy.node->name : "";
  size_t n = source_len(name);
  if (n == 0) {
    name = c->scope;
    n = source_len(name);
  }
  if (n == 0)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                          "Expected op/tensor name to start with gradients (excluding scope), got: %s:%d",
                          dy.node ? dy.node->name : c->scope, dy.node ? dy.index : 0);
  return tfc_attr_string(name, n, out, c->s);
}

/* Python's TensorArray(handle=h, flow=f).grad(source, flow=f): the gradient array's handle
 * (*gh) and its flow "TensorArrayGrad/gradient_flow", Identity(f) after the handle. */
static tfc_endpoint grad_array(tfc_grad_ctx *c, tfc_endpoint handle, tfc_endpoint flow, tfc_endpoint dy,
                               tfc_endpoint *gh) {
  *gh = tfc_grad_none();
  tfc_grad_attr a[1] = {{"source", {0}}};
  if (!tfc_grad_ok(c) || grad_source(c, dy, &a[0].v) != TFC_OK) return tfc_grad_none();
  tfc_endpoint ins[2] = {handle, flow};
  tfc_node *g = tfc_grad_node(c, "TensorArrayGradV3", "TensorArrayGrad/TensorArrayGradV3", ins, 2, -1, 0, a, 1, NULL);
  if (!g) return tfc_grad_none();
  *gh = (tfc_endpoint){g, 0};
  tfc_node *f = tfc_grad_node(c, "Identity", "TensorArrayGrad/gradient_flow", &flow, 1, -1, 0, NULL, 0, g);
  return f ? (tfc_endpoint){f, 0} : tfc_grad_none();
}

/* The writers' prologue: "flow_out" = Identity(forward flow_out), "write_barrier" =
 * Identity(dflow) after it. Returns write_barrier. */
static tfc_endpoint write_barrier(tfc_grad_ctx *c) {
  tfc_endpoint fwd = tfc_grad_out(c, 0);
  tfc_node *fo = tfc_grad_node(c, "Identity", "flow_out", &fwd, 1, -1, 0, NULL, 0, NULL);
  if (!fo) return tfc_grad_none();
  tfc_node *wb = tfc_grad_node(c, "Identity", "write_barrier", &c->dy[0], 1, -1, 0, NULL, 0, fo);
  return wb ? (tfc_endpoint){wb, 0} : tfc_grad_none();
}

/* The forward op's type attr `name` (T or dtype). */
static int type_attr(const tfc_grad_ctx *c, const char *name) {
  const tfc_attr_value *v = tfc_node_attr(c->op, name);
  return v && v->kind == TFC_ATTR_TYPE ? v->u.type : TFC_DT_FLOAT;
}

/* ReadV3(handle, index, flow_in) / GatherV3(handle, indices, flow_in): put dy into the gradient
 * array at the index (WriteV3) or indices (ScatterV3), named as TF's TensorArray methods name it. */
static int put_grad(tfc_grad_ctx *c, const char *op, const char *name) {
  tfc_endpoint gh;
  tfc_endpoint flow = grad_array(c, tfc_grad_in(c, 0), tfc_grad_in(c, 2), c->dy[0], &gh);
  tfc_endpoint ins[4] = {gh, tfc_grad_in(c, 1), c->dy[0], flow};
  c->dx[2] = tfc_grad_op(c, op, name, ins, 4, NULL, 0);
  return c->s->code;
}

static int read_grad(tfc_grad_ctx *c) {
  return put_grad(c, "TensorArrayWriteV3", "TensorArrayWrite/TensorArrayWriteV3");
}

static int gather_grad(tfc_grad_ctx *c) {
  return put_grad(c, "TensorArrayScatterV3", "TensorArrayScatter/TensorArrayScatterV3");
}

/* WriteV3(handle, index, value, flow_in) / ScatterV3(handle, indices, value, flow_in): take the
 * gradient array at the index (ReadV3) or indices (GatherV3). */
static int take_grad(tfc_grad_ctx *c, const char *op) {
  tfc_endpoint wb = write_barrier(c), gh;
  tfc_endpoint flow = grad_array(c, tfc_grad_in(c, 0), wb, c->dy[0], &gh);
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("dtype", type_attr(c, "T"))};
  tfc_endpoint ins[3] = {gh, tfc_grad_in(c, 1), flow};
  c->dx[2] = tfc_grad_op(c, op, NULL, ins, 3, a, 1);
  c->dx[3] = wb;
  return c->s->code;
}

static int write_grad(tfc_grad_ctx *c) { return take_grad(c, "TensorArrayReadV3"); }

static int scatter_grad(tfc_grad_ctx *c) { return take_grad(c, "TensorArrayGatherV3"); }

/* ConcatV3(handle, flow_in) -> value, lengths: split dy by the forward lengths. */
static int concat_grad(tfc_grad_ctx *c) {
  tfc_endpoint gh;
  tfc_endpoint flow = grad_array(c, tfc_grad_in(c, 0), tfc_grad_in(c, 1), c->dy[0], &gh);
  tfc_endpoint ins[4] = {gh, c->dy[0], tfc_grad_out(c, 1), flow};
  c->dx[1] = tfc_grad_op(c, "TensorArraySplitV3", "TensorArraySplit/TensorArraySplitV3", ins, 4, NULL, 0);
  return c->s->code;
}

/* SplitV3(handle, value, lengths, flow_in): concat the gradient array. */
static int split_grad(tfc_grad_ctx *c) {
  tfc_endpoint wb = write_barrier(c), gh;
  tfc_endpoint flow = grad_array(c, tfc_grad_in(c, 0), wb, c->dy[0], &gh);
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("dtype", type_attr(c, "T"))};
  tfc_endpoint ins[2] = {gh, flow};
  c->dx[1] = tfc_grad_op(c, "TensorArrayConcatV3", NULL, ins, 2, a, 1);
  c->dx[3] = wb;
  return c->s->code;
}

const tfc_grad_entry tfc_grad_tensor_array_entries[] = {
    {"TensorArrayReadV3", read_grad},
    {"TensorArrayWriteV3", write_grad},
    {"TensorArrayGatherV3", gather_grad},
    {"TensorArrayScatterV3", scatter_grad},
    {"TensorArrayConcatV3", concat_grad},
    {"TensorArraySplitV3", split_grad},
    {"TensorArrayV3", NULL},
    {"TensorArrayGradV3", NULL},
    {"TensorArrayGradWithShape", NULL},
    {"TensorArraySizeV3", NULL},
    {"TensorArrayCloseV3", NULL},
    {NULL, NULL},
};
