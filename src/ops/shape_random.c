/*
 * shape_random — shape functions of the random family (ops_random.def).
 *
 * All four ops take their output shape from a vector input, as TF's RandomShape does with
 * InferenceContext::MakeShapeFromShapeTensor (tfc_shape_ctx_input_as_shape): the input must be
 * rank 1; what the graph knows of it as a partial shape gives the dims (-1 an unknown dim,
 * anything below -1 an error); when it only knows the vector's length, the output has that
 * rank with unknown dims. The kernel repeats the checks at run time with its own texts (a -1
 * that was "unknown" here is an error there), as TF does.
 *
 * The stateless ops check their seed (V1) or key/counter/alg (V2) inputs first, in TF's order
 * and with its texts; a dim the graph does not know passes.
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

/* TF's WithValue on dim 0 of a rank-1 input: known and != n is an error. */
static int with_dim0(tfc_shape_ctx *c, int input, int64_t n) {
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank == 1 && s->dims[0] >= 0 && s->dims[0] != n)
    return tfc_shape_ctx_error(c, "Dimension must be %lld but is %lld", (long long)n, (long long)s->dims[0]);
  return TFC_OK;
}

static int seed_shape(tfc_shape_ctx *c, int input) {
  TFC_TRY(with_rank(c, input, 1));
  return with_dim0(c, input, 2);
}

/* minval and maxval (inputs i, i + 1) of the stateless uniform int ops. */
static int int_bounds_scalar(tfc_shape_ctx *c, int i) {
  static const char *const names[2] = {"minval", "maxval"};
  for (int k = 0; k < 2; k++) {
    const tfc_shape *s = &c->input_shapes[i + k];
    if (s->rank > 0) {
      char buf[TFC_SHAPE_STR_MAX];
      return tfc_shape_ctx_error(c, "%s must be a scalar; got a tensor of shape %s", names[k],
                                 tfc_shape_str(s, buf, sizeof buf));
    }
  }
  return TFC_OK;
}

int tfc_shape_stateless_random(tfc_shape_ctx *c) {
  TFC_TRY(seed_shape(c, 1));
  return tfc_shape_random(c);
}

int tfc_shape_stateless_random_int(tfc_shape_ctx *c) {
  TFC_TRY(int_bounds_scalar(c, 2));
  return tfc_shape_stateless_random(c);
}

int tfc_shape_stateless_random_v2(tfc_shape_ctx *c) {
  TFC_TRY(with_rank(c, 1, 1));
  TFC_TRY(with_rank(c, 2, 1));
  TFC_TRY(with_rank(c, 3, 0));
  TFC_TRY(with_dim0(c, 1, 1));
  return tfc_shape_random(c);
}

int tfc_shape_stateless_random_int_v2(tfc_shape_ctx *c) {
  TFC_TRY(int_bounds_scalar(c, 4));
  return tfc_shape_stateless_random_v2(c);
}

int tfc_shape_stateless_key_counter(tfc_shape_ctx *c) {
  TFC_TRY(seed_shape(c, 0));
  const int64_t one = 1, two = 2;
  c->output_shapes[0] = tfc_shape_make(&one, 1);
  c->output_shapes[1] = tfc_shape_make(&two, 1);
  if (c->n_outputs > 2) c->output_shapes[2] = tfc_shape_make(NULL, 0);
  return TFC_OK;
}
