/*
 * shape_codec — shape functions of the image codec ops (see shape_codec.h). Errors are
 * INVALID_ARGUMENT through tfc_shape_ctx_error, with TF's texts.
 */
#include "ops/opdef.h"

static int rank_is(tfc_shape_ctx *c, int input, int r) {
  const tfc_shape *s = &c->input_shapes[input];
  if (s->rank >= 0 && s->rank != r) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

static int image_out(tfc_shape_ctx *c, int64_t h, int64_t w) {
  int64_t ch = tfc_shape_ctx_attr_int(c, "channels", 0);
  if (ch < 0) return tfc_shape_ctx_error(c, "channels must be non-negative, got %lld", (long long)ch);
  tfc_shape *out = &c->output_shapes[0];
  out->rank = 3;
  out->dims[0] = h;
  out->dims[1] = w;
  out->dims[2] = ch ? ch : -1;
  return TFC_OK;
}

int tfc_shape_decode_image(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 0));
  TFC_TRY(image_out(c, -1, -1));
  if (c->op->id == TFC_OP_DecodeImage && tfc_shape_ctx_attr_bool(c, "expand_animations", 1))
    c->output_shapes[0] = tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_decode_and_crop_jpeg(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 0));
  TFC_TRY(rank_is(c, 1, 1));
  const tfc_shape *w = &c->input_shapes[1];
  if (w->rank == 1 && w->dims[0] >= 0 && w->dims[0] != 4)
    return tfc_shape_ctx_error(c, "Dimension must be 4 but is %lld", (long long)w->dims[0]);
  int64_t h = -1, wd = -1;
  const tfc_tensor *win = tfc_shape_ctx_input_tensor(c, 1);
  if (win && win->dtype == TFC_DT_INT32 && win->n_elems == 4) {
    h = ((const int32_t *)win->data)[2];
    wd = ((const int32_t *)win->data)[3];
  }
  return image_out(c, h, wd);
}

int tfc_shape_extract_jpeg_shape(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 0));
  tfc_shape *out = &c->output_shapes[0];
  out->rank = 1;
  out->dims[0] = 3;
  return TFC_OK;
}

int tfc_shape_encode_image(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 3));
  c->output_shapes[0].rank = 0;
  return TFC_OK;
}

int tfc_shape_decode_gif(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, 0, 0));
  tfc_shape *out = &c->output_shapes[0];
  out->rank = 4;
  out->dims[0] = out->dims[1] = out->dims[2] = -1;
  out->dims[3] = 3;
  return TFC_OK;
}
