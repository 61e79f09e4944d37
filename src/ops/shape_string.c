/*
 * shape_string — shape functions of the newer string ops (regex, split, hash, format) and of
 * the lookup-table ops, with TF's texts ("Shape must be rank 0 but is rank 1"). Unknown ranks
 * and dims stay unknown.
 */
#include "ops/opdef.h"
#include "ops/shape_fns.h"

static int rank_is(tfc_shape_ctx *c, const tfc_shape *s, int r) {
  if (s->rank >= 0 && s->rank != r) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

int tfc_shape_unchanged_scalar_rest(tfc_shape_ctx *c) {
  for (int i = 1; i < c->n_inputs; i++) TFC_TRY(rank_is(c, &c->input_shapes[i], 0));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}
