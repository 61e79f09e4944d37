/*
 * shape_tensor_array — see shape_tensor_array.h. The checks and their order are TF 1.15's:
 * handle first, then the index or indices, the value, lengths and flow_in, each only where TF
 * checks it (TensorArraySizeV3 leaves flow_in alone; TensorArraySplitV3 the value).
 */
#include "ops/opdef.h"

static int with_rank(tfc_shape_ctx *c, int input, int rank) {
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank >= 0 && s->rank != rank)
    return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

/* A handle input: a vector of 2 where known. */
static int handle_input(tfc_shape_ctx *c, int input) {
  TFC_TRY(with_rank(c, input, 1));
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] != 2)
    return tfc_shape_ctx_error(c, "Dimension must be 2 but is %lld", (long long)s->dims[0]);
  return TFC_OK;
}

int tfc_shape_two_element_output(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_vector(2);
  return TFC_OK;
}

int tfc_shape_stack_push(tfc_shape_ctx *c) {
  c->output_shapes[0] = c->input_shapes[1];
  return TFC_OK;
}

int tfc_shape_handle_only(tfc_shape_ctx *c) { return handle_input(c, 0); }

int tfc_shape_tensor_array(tfc_shape_ctx *c) {
  TFC_TRY(with_rank(c, 0, 0));
  c->output_shapes[0] = tfc_shape_vector(2);
  c->output_shapes[1] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_tensor_array_grad(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  c->output_shapes[0] = tfc_shape_vector(2);
  c->output_shapes[1] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_tensor_array_write(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 1, 0));
  TFC_TRY(with_rank(c, 3, 0));
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_tensor_array_read(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 1, 0));
  TFC_TRY(with_rank(c, 2, 0));
  return TFC_OK;
}

int tfc_shape_tensor_array_gather(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 1, 1));
  TFC_TRY(with_rank(c, 2, 0));
  const tfc_attr_value *es = tfc_shape_ctx_attr(c, "element_shape");
  if (!es || es->kind != TFC_ATTR_SHAPE || es->u.shape->rank < 0 || es->u.shape->rank + 1 > TFC_MAX_DIMS)
    return TFC_OK;
  const tfc_shape *ix = &c->input_shapes[1];
  tfc_shape out;
  out.rank = es->u.shape->rank + 1;
  out.dims[0] = ix->rank == 1 ? ix->dims[0] : -1;
  for (int i = 0; i < es->u.shape->rank; i++) out.dims[i + 1] = es->u.shape->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_tensor_array_scatter(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 1, 1));
  const tfc_shape *ix = &c->input_shapes[1], *v = &c->input_shapes[2];
  if (v->rank == 0) return tfc_shape_ctx_error(c, "Shape must be at least rank 1 but is rank 0");
  TFC_TRY(with_rank(c, 3, 0));
  /* one index per row of the value */
  if (ix->rank == 1 && v->rank >= 1 && ix->dims[0] >= 0 && v->dims[0] >= 0 && ix->dims[0] != v->dims[0])
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)v->dims[0],
                               (long long)ix->dims[0]);
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_tensor_array_concat(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 1, 0));
  c->output_shapes[1] = tfc_shape_vector(-1);
  return TFC_OK;
}

int tfc_shape_tensor_array_split(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  TFC_TRY(with_rank(c, 2, 1));
  TFC_TRY(with_rank(c, 3, 0));
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_tensor_array_size(tfc_shape_ctx *c) {
  TFC_TRY(handle_input(c, 0));
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}
