/*
 * shape_random — shape functions of the random family (ops_random.def).
 *
 * All four ops take their output shape from a vector input, as TF's RandomShape does with
 * InferenceContext::MakeShapeFromShapeTensor (tfc_shape_ctx_input_as_shape): the input must be
 * rank 1; what the graph knows of it as a partial shape gives the dims (-1 an unknown dim,
 * anything below -1 an error); when it only knows the vector's length, the output has that
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
  return tfc_shape_ctx_input_as_shape(c, 0, &c->output_shapes[0]);
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
