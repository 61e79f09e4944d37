/*
 * shape_list — see shape_list.h. The element_shape inputs are read with
 * tfc_shape_ctx_input_as_shape (a constant vector with -1 for unknown dims, the scalar -1 for
 * an unknown rank); a non-constant one leaves the element shape unknown.
 */
#include "ops/opdef.h"

int tfc_shape_list_handle(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_list_length(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_list_element_shape(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_list_get_item(tfc_shape_ctx *c) { return tfc_shape_ctx_input_as_shape(c, 2, &c->output_shapes[0]); }

int tfc_shape_list_pop_back(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_scalar();
  return tfc_shape_ctx_input_as_shape(c, 1, &c->output_shapes[1]);
}

/* out = [lead] + the element shape in input `input` (unknown when its rank is). */
static int prepend(tfc_shape_ctx *c, int input, int64_t lead) {
  tfc_shape e;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, input, &e));
  if (e.rank < 0 || e.rank >= TFC_MAX_DIMS) {
    c->output_shapes[0] = tfc_shape_unknown();
    return TFC_OK;
  }
  tfc_shape *o = &c->output_shapes[0];
  o->rank = e.rank + 1;
  o->dims[0] = lead;
  for (int i = 0; i < e.rank; i++) o->dims[i + 1] = e.dims[i];
  return TFC_OK;
}

int tfc_shape_list_stack(tfc_shape_ctx *c) {
  int64_t n = tfc_shape_ctx_attr_int(c, "num_elements", -1);
  return prepend(c, 1, n >= 0 ? n : -1);
}

int tfc_shape_list_gather(tfc_shape_ctx *c) {
  const tfc_shape *ix = &c->input_shapes[1];
  return prepend(c, 2, ix->rank == 1 ? ix->dims[0] : -1);
}

int tfc_shape_list_concat(tfc_shape_ctx *c) {
  tfc_shape e = tfc_shape_unknown();
  if (c->n_inputs > 1) {
    TFC_TRY(tfc_shape_ctx_input_as_shape(c, 1, &e));
  } else {
    const tfc_attr_value *v = tfc_shape_ctx_attr(c, "element_shape");
    if (v && v->kind == TFC_ATTR_SHAPE && v->u.shape) e = *v->u.shape;
  }
  c->output_shapes[0] = e;
  if (e.rank > 0) c->output_shapes[0].dims[0] = -1;
  c->output_shapes[1] = tfc_shape_vector(-1);
  return TFC_OK;
}
