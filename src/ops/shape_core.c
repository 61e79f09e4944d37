/* shape_core — shape functions of the core family (ops_core.def). */
#include "ops/opdef.h"

int tfc_shape_const(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "value");
  if (v && v->kind == TFC_ATTR_TENSOR) c->output_shapes[0] = tfc_tensor_shape(v->u.tensor);
  return TFC_OK;
}

int tfc_shape_placeholder(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "shape");
  if (v && v->kind == TFC_ATTR_SHAPE) c->output_shapes[0] = *v->u.shape;
  return TFC_OK;
}

int tfc_shape_placeholder_with_default(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "shape");
  if (!v || v->kind != TFC_ATTR_SHAPE) return TFC_OK;
  if (!tfc_shape_compatible(v->u.shape, &c->input_shapes[0])) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_shape_ctx_error(c, "input tensor must be compatible with %s, got %s",
                               tfc_shape_str(v->u.shape, a, sizeof a),
                               tfc_shape_str(&c->input_shapes[0], b, sizeof b));
  }
  c->output_shapes[0] = *v->u.shape;
  return TFC_OK;
}

int tfc_shape_identity_n(tfc_shape_ctx *c) { return tfc_shape_same_as_input(c); }

int tfc_shape_arg(tfc_shape_ctx *c) {
  (void)c;
  return TFC_OK;
}

/* Assign: the value's shape, checked against the variable's when validate_shape is set. */
int tfc_shape_assign(tfc_shape_ctx *c) {
  if (tfc_shape_ctx_attr_bool(c, "validate_shape", 1) &&
      !tfc_shape_compatible(&c->input_shapes[0], &c->input_shapes[1])) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_shape_ctx_error(c, "Shapes must be equal rank, but are %s and %s",
                               tfc_shape_str(&c->input_shapes[0], a, sizeof a),
                               tfc_shape_str(&c->input_shapes[1], b, sizeof b));
  }
  c->output_shapes[0] = c->input_shapes[1];
  return TFC_OK;
}

/* VarHandleOp: a scalar handle. allowed_devices (added after 1.15) lets other devices share
 * the resource; tfc keeps a resource variable on one device, so a non-empty list is refused
 * rather than ignored. */
int tfc_shape_var_handle(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "allowed_devices");
  if (v && v->kind == TFC_ATTR_LIST && v->u.list.n) {
    char x[512];
    tfc_attr_value_format(v, x, sizeof x);
    return tfc_status_set(c->status, TFC_UNIMPLEMENTED,
                          "VarHandleOp '%s': attr allowed_devices = %s is not supported (a resource variable "
                          "lives on one device); only the default [] is",
                          c->node_name, x);
  }
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}
