/*
 * shape_random — shape functions of the random family (ops_random.def).
 *
 * All four ops take their output shape from a vector input, as TF's RandomShape does with
 * InferenceContext::MakeShapeFromShapeTensor: the input must be rank 1; when the graph knows
 * its value (a Const, or the Shape of a known shape), each entry is a dim, -1 an unknown dim
 * and anything below -1 an error; when it only knows the vector's length, the output has that
 * rank with unknown dims. The kernel repeats the checks at run time with its own texts (a -1
 * that was "unknown" here is an error there), as TF does.
 */
#include "ops/opdef.h"
#include "tensor/tensor.h"

static int with_rank(tfc_shape_ctx *c, int input, int rank) {
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank >= 0 && s->rank != rank)
    return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

int tfc_shape_random(tfc_shape_ctx *c) {
  TFC_TRY(with_rank(c, 0, 1));
  const tfc_shape *in = &c->input_shapes[0];
  const tfc_tensor *t = tfc_shape_ctx_input_tensor(c, 0);
  tfc_shape *out = &c->output_shapes[0];
  if (!t || t->ndims != 1) {
    if (in->rank == 1 && in->dims[0] >= 0 && in->dims[0] <= TFC_MAX_DIMS) {
      out->rank = (int)in->dims[0];
      for (int i = 0; i < out->rank; i++) out->dims[i] = -1;
    } else {
      *out = tfc_shape_unknown();
    }
    return TFC_OK;
  }
  if (t->n_elems > TFC_MAX_DIMS)
    return tfc_shape_ctx_error(c, "Shape of rank %lld exceeds the maximum rank %d", (long long)t->n_elems,
                               TFC_MAX_DIMS);
  out->rank = (int)t->n_elems;
  for (int i = 0; i < out->rank; i++) {
    int64_t d = tfc_tensor_get_i64(t, i);
    if (d < -1) return tfc_shape_ctx_error(c, "Invalid value in tensor used for shape: %lld", (long long)d);
    out->dims[i] = d;
  }
  return TFC_OK;
}

int tfc_shape_random_uniform_int(tfc_shape_ctx *c) {
  TFC_TRY(with_rank(c, 1, 0));
  TFC_TRY(with_rank(c, 2, 0));
  return tfc_shape_random(c);
}

int tfc_shape_multinomial(tfc_shape_ctx *c) {
  TFC_TRY(with_rank(c, 0, 2));
  TFC_TRY(with_rank(c, 1, 0));
  const tfc_shape *l = &c->input_shapes[0];
  int64_t n = -1;
  const tfc_tensor *t = tfc_shape_ctx_input_tensor(c, 1);
  if (t && t->n_elems == 1) n = tfc_tensor_get_i64(t, 0);
  const int64_t dims[2] = {l->rank == 2 ? l->dims[0] : -1, n};
  c->output_shapes[0] = tfc_shape_make(dims, 2);
  return TFC_OK;
}
