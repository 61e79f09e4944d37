/*
 * image_crop_plan — the checks of the CropAndResize family shared by the CPU and GPU kernels
 * (see image_crop_plan.h), with TF 1.15's texts.
 */
#include "device/image_crop_plan.h"

#include <string.h>

/* TF's ParseAndCheckBoxSizes: *n the number of boxes (0 when both are empty). */
static int check_boxes(tfc_kernel_ctx *c, const tfc_tensor *boxes, const tfc_tensor *ind, int64_t *n) {
  char a[TFC_SHAPE_STR_MAX];
  *n = 0;
  if (boxes->n_elems == 0 && ind->n_elems == 0) return TFC_OK;
  if (boxes->ndims != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must be 2-D, got: %s", tfc_tensor_shape_str(boxes, a, sizeof a));
  *n = boxes->dims[0];
  if (boxes->dims[1] != 4) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes must have 4 columns");
  if (ind->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "box_indices must be rank 1 but is shape %s",
                            tfc_tensor_shape_str(ind, a, sizeof a));
  if (ind->dims[0] != *n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "box_index has incompatible shape");
  return TFC_OK;
}

static int method_of(tfc_kernel_ctx *c, int *nearest) {
  const char *m;
  TFC_TRY(tfc_kernel_attr_string(c->node, "method", &m, c->status));
  *nearest = !strcmp(m, "nearest");
  return TFC_OK;
}

/* The gradients' shared check of grads: [n, ch, cw, depth] with positive crop sizes. */
static int check_grads(tfc_kernel_ctx *c, const tfc_tensor *g) {
  char a[TFC_SHAPE_STR_MAX];
  if (g->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "grads image must be 4-D%s", tfc_tensor_shape_str(g, a, sizeof a));
  if (g->dims[1] <= 0 || g->dims[2] <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "grads dimensions must be positive");
  return TFC_OK;
}

int tfc_crop_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p) {
  const tfc_tensor *image = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2], *size = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  if (image->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be 4-D%s", tfc_tensor_shape_str(image, a, sizeof a));
  p->batch = image->dims[0], p->h = image->dims[1], p->w = image->dims[2], p->depth = image->dims[3];
  if (p->h <= 0 || p->w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  TFC_TRY(check_boxes(c, boxes, ind, &p->n));
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_size must be 1-D%s", tfc_tensor_shape_str(size, a, sizeof a));
  if (size->dims[0] != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_size must have two elements%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  p->ch = ((const int32_t *)size->data)[0], p->cw = ((const int32_t *)size->data)[1];
  if (p->ch <= 0 || p->cw <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop dimensions must be positive");
  TFC_TRY(method_of(c, &p->nearest));
  const tfc_attr_value *ev = tfc_node_attr(c->node, "extrapolation_value");
  p->extrap = ev && ev->kind == TFC_ATTR_FLOAT ? ev->u.f : 0.0f;
  return TFC_OK;
}

int tfc_crop_grad_image_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p) {
  const tfc_tensor *g = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2], *size = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  TFC_TRY(check_grads(c, g));
  TFC_TRY(check_boxes(c, boxes, ind, &p->n));
  if (g->dims[0] != p->n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes and grads have incompatible shape");
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must be 1-D%s", tfc_tensor_shape_str(size, a, sizeof a));
  if (size->dims[0] != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must have 4 elements%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  const int32_t *sz = size->data;
  p->batch = sz[0], p->h = sz[1], p->w = sz[2], p->depth = sz[3], p->ch = g->dims[1], p->cw = g->dims[2];
  if (p->h <= 0 || p->w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  if (p->depth != g->dims[3]) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size and grads are incompatible");
  if (p->batch < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must be non-negative");
  return method_of(c, &p->nearest);
}

int tfc_crop_grad_boxes_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p) {
  const tfc_tensor *g = c->inputs[0], *image = c->inputs[1], *boxes = c->inputs[2], *ind = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  TFC_TRY(check_grads(c, g));
  if (image->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be 4-D%s", tfc_tensor_shape_str(image, a, sizeof a));
  p->batch = image->dims[0], p->h = image->dims[1], p->w = image->dims[2], p->depth = image->dims[3];
  p->ch = g->dims[1], p->cw = g->dims[2];
  if (p->h <= 0 || p->w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  if (g->dims[3] != p->depth) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image, grads depth differ");
  TFC_TRY(check_boxes(c, boxes, ind, &p->n));
  if (g->dims[0] != p->n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes and grads have incompatible shape");
  return TFC_OK;
}

int tfc_crop_check_box_index(tfc_kernel_ctx *c, const int32_t *bi, int64_t n, int64_t batch) {
  for (int64_t i = 0; i < n; i++)
    if (bi[i] < 0 || bi[i] >= batch)
      return tfc_kernel_error(c, TFC_OUT_OF_RANGE, "box_index has values outside [0, batch_size)");
  return TFC_OK;
}
