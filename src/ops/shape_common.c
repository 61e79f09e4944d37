/*
 * shape_common — the shape-inference context helpers and shape functions shared by many ops.
 * Shape functions see what the graph knows at build time; unknown dims stay -1 and are
 * checked again by the kernels at run time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/opdef.h"

const tfc_attr_value *tfc_shape_ctx_attr(const tfc_shape_ctx *c, const char *name) {
  const tfc_attr_value *v = tfc_attrs_find(c->attrs, c->n_attrs, name);
  if (v) return v;
  const tfc_attr_def *d = tfc_opdef_attr(c->op, name);
  return d && d->has_default ? &d->default_value : NULL;
}

int64_t tfc_shape_ctx_attr_int(const tfc_shape_ctx *c, const char *name, int64_t dflt) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, name);
  return v && v->kind == TFC_ATTR_INT ? v->u.i : dflt;
}

int tfc_shape_ctx_attr_bool(const tfc_shape_ctx *c, const char *name, int dflt) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, name);
  return v && v->kind == TFC_ATTR_BOOL ? v->u.b : dflt;
}

int tfc_shape_ctx_attr_type(const tfc_shape_ctx *c, const char *name) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, name);
  return v && v->kind == TFC_ATTR_TYPE ? v->u.type : 0;
}

int tfc_shape_ctx_error(tfc_shape_ctx *c, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* TF 1.x: "<msg> for 'node' (op: 'Op') with input shapes: [2,3], [3,2]." */
  char shapes[2048];
  size_t off = 0;
  shapes[0] = '\0';
  for (int i = 0; i < c->n_inputs && off < sizeof shapes; i++) {
    char one[TFC_SHAPE_STR_MAX];
    tfc_shape_str(&c->input_shapes[i], one, sizeof one);
    if (c->input_shapes[i].rank < 0) snprintf(one, sizeof one, "?");
    off += (size_t)snprintf(shapes + off, sizeof shapes - off, "%s%s", i ? ", " : "", one);
  }
  return tfc_status_set(c->status, TFC_INVALID_ARGUMENT, "%s for '%s' (op: '%s') with input shapes: %s.",
                        msg, c->node_name, c->op->name, shapes);
}

int tfc_shape_unknown_fn(tfc_shape_ctx *c) {
  (void)c;
  return TFC_OK;
}

int tfc_shape_scalar_fn(tfc_shape_ctx *c) {
  for (int i = 0; i < c->n_outputs; i++) c->output_shapes[i] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_no_outputs(tfc_shape_ctx *c) {
  (void)c;
  return TFC_OK;
}

int tfc_shape_unchanged(tfc_shape_ctx *c) {
  for (int i = 0; i < c->n_outputs; i++)
    c->output_shapes[i] = c->n_inputs ? c->input_shapes[0] : tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_same_as_input(tfc_shape_ctx *c) {
  for (int i = 0; i < c->n_outputs && i < c->n_inputs; i++) c->output_shapes[i] = c->input_shapes[i];
  return TFC_OK;
}

const tfc_tensor *tfc_shape_ctx_input_tensor(const tfc_shape_ctx *c, int i) {
  if (i < 0 || i >= c->n_inputs || !c->input_tensors) return NULL;
  if (!c->input_tensors[i] && c->eval && c->input_evaluated && !c->input_evaluated[i]) {
    c->input_evaluated[i] = 1;
    c->input_tensors[i] = c->eval->tensor(c->eval_arg, i);
  }
  return c->input_tensors[i];
}

int tfc_shape_from_value(const tfc_tensor *t, tfc_shape *out, tfc_status *s) {
  if (t->dtype != TFC_DT_INT32 && t->dtype != TFC_DT_INT64)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Tensor used for a shape must be int32 or int64, got %s",
                          tfc_dtype_name(t->dtype));
  if (t->ndims == 0 && tfc_tensor_get_i64(t, 0) == -1) {
    *out = tfc_shape_unknown();
    return TFC_OK;
  }
  if (t->ndims != 1) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape must be rank 1 but is rank %d", t->ndims);
  if (t->n_elems > TFC_MAX_DIMS)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape of rank %lld exceeds the maximum rank %d",
                          (long long)t->n_elems, TFC_MAX_DIMS);
  tfc_shape r;
  r.rank = (int)t->n_elems;
  for (int i = 0; i < r.rank; i++) {
    int64_t d = tfc_tensor_get_i64(t, i);
    if (d < -1) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid value in tensor used for shape: %lld", (long long)d);
    r.dims[i] = d;
  }
  *out = r;
  return TFC_OK;
}

int tfc_shape_ctx_input_as_shape(tfc_shape_ctx *c, int input, tfc_shape *out) {
  const tfc_shape *in = &c->input_shapes[input];
  if (in->rank > 1) return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", in->rank);
  /* A vector's partial shape first (what TF's refiner hands MakeShapeFromShapeTensor). */
  if (in->rank != 0 && c->eval) {
    TFC_TRY(c->eval->partial(c->eval_arg, input, out, c->status));
    if (out->rank >= 0) return TFC_OK;
  }
  const tfc_tensor *t = tfc_shape_ctx_input_tensor(c, input);
  if (t && t->ndims == 0 && !(tfc_shape_from_value(t, out, c->status) == TFC_OK && out->rank < 0)) {
    tfc_status_clear(c->status);
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank 0");
  }
  if (t) return tfc_shape_from_value(t, out, c->status);
  /* A scalar -1 or unknown length gives unknown rank; a known length gives that rank. */
  if (in->rank == 1 && in->dims[0] >= 0 && in->dims[0] <= TFC_MAX_DIMS) {
    out->rank = (int)in->dims[0];
    for (int i = 0; i < out->rank; i++) out->dims[i] = -1;
  } else {
    *out = tfc_shape_unknown();
  }
  return TFC_OK;
}

int tfc_shape_broadcast(tfc_shape_ctx *c, const tfc_shape *a, const tfc_shape *b, tfc_shape *out) {
  if (a->rank < 0 || b->rank < 0) {
    *out = tfc_shape_unknown();
    return TFC_OK;
  }
  int rank = a->rank > b->rank ? a->rank : b->rank;
  tfc_shape r;
  r.rank = rank;
  for (int i = 0; i < rank; i++) {
    int ia = a->rank - rank + i, ib = b->rank - rank + i;
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    int64_t d;
    if (da == db) d = da;
    else if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db > 1 ? db : -1;
    else if (db < 0) d = da > 1 ? da : -1;
    else {
      return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld",
                                 (long long)da, (long long)db);
    }
    r.dims[i] = d;
  }
  *out = r;
  return TFC_OK;
}

int tfc_shape_binary_broadcast(tfc_shape_ctx *c) {
  return tfc_shape_broadcast(c, &c->input_shapes[0], &c->input_shapes[1], &c->output_shapes[0]);
}
