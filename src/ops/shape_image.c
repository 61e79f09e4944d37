/*
 * shape_image — shape functions of CropAndResize and its gradients, the resize gradients and
 * the NonMaxSuppression family, with TF's shape texts ("Shape must be rank 2 but is rank 1",
 * "Dimension must be 4 but is 3", "Dimensions must be equal, but are 5 and 4"). Unknown ranks
 * and dims stay unknown; the kernels repeat every check for inputs of unknown graph shape.
 */
#include <string.h>

#include "ops/opdef.h"
#include "ops/shape_fns.h"
#include "tensor/tensor.h"

static int rank_is(tfc_shape_ctx *c, int input, int r) {
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank >= 0 && s->rank != r) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

/* Dim d of input i, -1 when unknown. */
static int64_t dim_of(const tfc_shape_ctx *c, int input, int d) {
  const tfc_shape *s = &c->input_shapes[input];
  return s->rank > d ? s->dims[d] : -1;
}

static int dim_is(tfc_shape_ctx *c, int64_t d, int64_t want) {
  if (d >= 0 && d != want) return tfc_shape_ctx_error(c, "Dimension must be %lld but is %lld", (long long)want, (long long)d);
  return TFC_OK;
}

static int merge(tfc_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a >= 0 && b >= 0 && a != b)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)a, (long long)b);
  if (out) *out = a >= 0 ? a : b;
  return TFC_OK;
}

int tfc_shape_resize_grad(tfc_shape_ctx *c) {
  c->output_shapes[0] = c->input_shapes[1];
  return TFC_OK;
}

int tfc_shape_crop_and_resize(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 4));
  TFC_TRY(rank_is(c, 1, 2));
  TFC_TRY(rank_is(c, 2, 1));
  int64_t n = -1;
  TFC_TRY(merge(c, dim_of(c, 1, 0), dim_of(c, 2, 0), &n));
  TFC_TRY(dim_is(c, dim_of(c, 1, 1), 4));
  TFC_TRY(rank_is(c, 3, 1));
  TFC_TRY(dim_is(c, dim_of(c, 3, 0), 2));
  tfc_shape size;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 3, &size));
  tfc_shape out;
  out.rank = 4;
  out.dims[0] = n;
  out.dims[1] = size.rank == 2 ? size.dims[0] : -1;
  out.dims[2] = size.rank == 2 ? size.dims[1] : -1;
  out.dims[3] = dim_of(c, 0, 3);
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_crop_and_resize_grad_image(tfc_shape_ctx *c) {
  tfc_shape out;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 3, &out));
  if (out.rank >= 0 && out.rank != 4) return tfc_shape_ctx_error(c, "Shape must be rank 4 but is rank %d", out.rank);
  if (out.rank < 0) {
    out.rank = 4;
    for (int i = 0; i < 4; i++) out.dims[i] = -1;
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_crop_and_resize_grad_boxes(tfc_shape_ctx *c) {
  c->output_shapes[0] = c->input_shapes[2];
  return TFC_OK;
}

/* The padded length: max_output_size's value when it is a const, else unknown. */
static int64_t padded_len(const tfc_shape_ctx *c) {
  const tfc_tensor *m = tfc_shape_ctx_input_tensor(c, 2);
  return m && m->n_elems == 1 ? tfc_tensor_get_i64(m, 0) : -1;
}

int tfc_shape_nms(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 2));
  TFC_TRY(rank_is(c, 1, 1));
  for (int i = 2; i < c->n_inputs; i++) TFC_TRY(rank_is(c, i, 0)); /* sizes and thresholds */
  TFC_TRY(merge(c, dim_of(c, 0, 0), dim_of(c, 1, 0), NULL));
  TFC_TRY(dim_is(c, dim_of(c, 0, 1), 4));
  int64_t n = -1;
  if (c->n_outputs > 1 && tfc_shape_ctx_attr_bool(c, "pad_to_max_output_size", 0)) n = padded_len(c);
  c->output_shapes[0] = tfc_shape_vector(n);
  if (c->n_outputs == 2) c->output_shapes[1] = tfc_shape_scalar(); /* V4's valid_outputs */
  if (c->n_outputs == 3) {                                          /* V5 */
    c->output_shapes[1] = tfc_shape_vector(n);
    c->output_shapes[2] = tfc_shape_scalar();
  }
  return TFC_OK;
}

int tfc_shape_nms_overlaps(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 2));
  TFC_TRY(rank_is(c, 1, 1));
  for (int i = 2; i < 5; i++) TFC_TRY(rank_is(c, i, 0));
  TFC_TRY(merge(c, dim_of(c, 0, 0), dim_of(c, 1, 0), NULL));
  TFC_TRY(merge(c, dim_of(c, 0, 0), dim_of(c, 0, 1), NULL));
  c->output_shapes[0] = tfc_shape_vector(-1);
  return TFC_OK;
}

/* The value of scalar input i when it is a const, else -1. */
static int64_t const_scalar(const tfc_shape_ctx *c, int i) {
  const tfc_tensor *t = tfc_shape_ctx_input_tensor(c, i);
  return t && t->n_elems == 1 ? tfc_tensor_get_i64(t, 0) : -1;
}

int tfc_shape_combined_nms(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 4));
  TFC_TRY(rank_is(c, 1, 3));
  for (int i = 2; i < 6; i++) TFC_TRY(rank_is(c, i, 0));
  int64_t batch = -1;
  TFC_TRY(merge(c, dim_of(c, 0, 0), dim_of(c, 1, 0), &batch));
  TFC_TRY(merge(c, dim_of(c, 0, 1), dim_of(c, 1, 1), NULL));
  TFC_TRY(dim_is(c, dim_of(c, 0, 3), 4));
  int64_t q = dim_of(c, 0, 2), classes = dim_of(c, 1, 2);
  if (q >= 0 && classes >= 0 && q != 1 && q != classes)
    return tfc_shape_ctx_error(c, "third dimension of boxes must be either 1 or equal to the third dimension of scores");
  int64_t total = const_scalar(c, 3), per_class = const_scalar(c, 2), len = total;
  if (tfc_shape_ctx_input_tensor(c, 3) && total <= 0)
    return tfc_shape_ctx_error(c, "max_total_size should be > 0 ");
  if (tfc_shape_ctx_attr_bool(c, "pad_per_class", 0)) {
    if (tfc_shape_ctx_input_tensor(c, 2) && per_class <= 0)
      return tfc_shape_ctx_error(c, "max_output_size_per_class must be > 0 ");
    len = total < 0 || per_class < 0 || classes < 0 ? -1 : per_class * classes < total ? per_class * classes : total;
  }
  tfc_shape s3 = {.rank = 3, .dims = {batch, len, 4}}, s2 = {.rank = 2, .dims = {batch, len}};
  c->output_shapes[0] = s3;
  c->output_shapes[1] = c->output_shapes[2] = s2;
  c->output_shapes[3] = tfc_shape_vector(batch);
  return TFC_OK;
}
