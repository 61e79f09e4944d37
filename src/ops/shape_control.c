/*
 * shape_control — shape functions of the control-flow family (ops_control.def), as TF's:
 * Switch passes data's shape to both outputs and wants a scalar pred; Merge keeps what all
 * its inputs agree on; Enter knows its shape only when is_constant; LoopCond is scalar. The
 * functional If/While (ops_function.def) take their output shapes from `output_shapes` when it
 * has one per output, else leave them unknown.
 */
#include "ops/opdef.h"

int tfc_shape_switch(tfc_shape_ctx *c) {
  if (c->input_shapes[1].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[1].rank);
  c->output_shapes[0] = c->input_shapes[0];
  c->output_shapes[1] = c->input_shapes[0];
  return TFC_OK;
}

/* Output 0: the inputs' common shape, a dim that differs unknown, a rank that differs (or an
 * unknown one) unknown. Output 1: scalar. */
int tfc_shape_merge_fn(tfc_shape_ctx *c) {
  tfc_shape out = c->n_inputs ? c->input_shapes[0] : tfc_shape_unknown();
  for (int i = 1; i < c->n_inputs && out.rank >= 0; i++) {
    const tfc_shape *in = &c->input_shapes[i];
    if (in->rank != out.rank) {
      out = tfc_shape_unknown();
      break;
    }
    for (int d = 0; d < out.rank; d++)
      if (in->dims[d] != out.dims[d]) out.dims[d] = -1;
  }
  c->output_shapes[0] = out;
  c->output_shapes[1] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_enter(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_ctx_attr_bool(c, "is_constant", 0) ? c->input_shapes[0] : tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_loop_cond(tfc_shape_ctx *c) {
  if (c->input_shapes[0].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[0].rank);
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_functional(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_attrs_find(c->attrs, c->n_attrs, "output_shapes");
  if (!v || v->kind != TFC_ATTR_LIST || v->list_kind != TFC_ATTR_SHAPE || v->u.list.n != c->n_outputs)
    return TFC_OK;
  for (int i = 0; i < c->n_outputs; i++) c->output_shapes[i] = *v->u.list.items[i].u.shape;
  return TFC_OK;
}
