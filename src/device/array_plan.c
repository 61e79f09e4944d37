/*
 * array_plan — see array_plan.h.
 */
#include "device/array_plan.h"

#include <string.h>

#include "device/cpu/array_copy.h"

int tfc_concat_plan(tfc_kernel_ctx *c, tfc_tensor *const *ins, int n, int64_t *axis, int64_t *dims) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int rank = ins[0]->ndims;
  if (*axis < -rank || *axis >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld", -rank,
                            rank, (long long)*axis);
  if (*axis < 0) *axis += rank;
  memcpy(dims, ins[0]->dims, sizeof(int64_t) * (size_t)rank);
  dims[*axis] = 0;
  for (int k = 0; k < n; k++) {
    const tfc_tensor *x = ins[k];
    if (x->ndims != rank)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. shape[%d] = %s",
                              tfc_tensor_shape_str(ins[0], a, sizeof a), k, tfc_tensor_shape_str(x, b, sizeof b));
    for (int d = 0; d < rank; d++)
      if (d != *axis && x->dims[d] != ins[0]->dims[d])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "ConcatOp : Dimensions of inputs should match: shape[0] = %s vs. shape[%d] = %s",
                                tfc_tensor_shape_str(ins[0], a, sizeof a), k, tfc_tensor_shape_str(x, b, sizeof b));
    dims[*axis] += x->dims[*axis];
  }
  return TFC_OK;
}

int tfc_strided_slice_plan_of(tfc_kernel_ctx *c, tfc_strided_slice_plan *plan) {
  const tfc_tensor *in = c->inputs[0], *bt = c->inputs[1], *et = c->inputs[2], *st = c->inputs[3];
  if (bt->ndims != 1 || et->ndims != 1 || st->ndims != 1 || bt->n_elems != et->n_elems ||
      bt->n_elems != st->n_elems) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX], d[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(
        c, TFC_INVALID_ARGUMENT,
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes %s, %s, and %s instead.",
        tfc_tensor_shape_str(bt, a, sizeof a), tfc_tensor_shape_str(et, b, sizeof b),
        tfc_tensor_shape_str(st, d, sizeof d));
  }
  if (st->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "StridedSlice spec of %lld entries exceeds the maximum rank %d",
                            (long long)st->n_elems, TFC_MAX_DIMS);
  int n = (int)st->n_elems;
  int64_t b[TFC_MAX_DIMS], e[TFC_MAX_DIMS], s[TFC_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    b[i] = tfc_array_int_at(bt, i);
    e[i] = tfc_array_int_at(et, i);
    s[i] = tfc_array_int_at(st, i);
  }
  tfc_strided_slice_spec sp = {.n = n, .begin = b, .end = e, .strides = s};
  tfc_node_attr_int(c->node, "begin_mask", &sp.begin_mask);
  tfc_node_attr_int(c->node, "end_mask", &sp.end_mask);
  tfc_node_attr_int(c->node, "ellipsis_mask", &sp.ellipsis_mask);
  tfc_node_attr_int(c->node, "new_axis_mask", &sp.new_axis_mask);
  tfc_node_attr_int(c->node, "shrink_axis_mask", &sp.shrink_axis_mask);
  char err[256];
  if (tfc_strided_slice_resolve(&sp, in->dims, in->ndims, plan, err, sizeof err))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s", err);
  return TFC_OK;
}
