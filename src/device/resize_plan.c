/*
 * resize_plan — the resize ops' checks and plans, shared by the CPU and GPU kernels; see
 * resize_plan.h. Reads attrs, shapes and the host-memory size input only.
 */
#include "device/resize_plan.h"

/* align_corners, and half_pixel_centers when the op has it; both set is TF's error. */
static int flags_of(tfc_kernel_ctx *c, tfc_resize_plan *p, int has_half) {
  TFC_TRY(tfc_kernel_attr_bool(c->node, "align_corners", &p->align, c->status));
  p->half = 0;
  if (has_half) TFC_TRY(tfc_kernel_attr_bool(c->node, "half_pixel_centers", &p->half, c->status));
  if (p->align && p->half)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
  return TFC_OK;
}

int tfc_resize_sizes_of(tfc_kernel_ctx *c, const tfc_tensor *x, const char *size_name, int64_t *out_h,
                        int64_t *out_w) {
  const tfc_tensor *size = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if (x->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be 4-dimensional%s", tfc_tensor_shape_str(x, a, sizeof a));
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 1-dimensional%s", size_name,
                            tfc_tensor_shape_str(size, a, sizeof a));
  if (size->n_elems != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must have two elements%s", size_name,
                            tfc_tensor_shape_str(size, a, sizeof a));
  *out_h = ((const int32_t *)size->data)[0];
  *out_w = ((const int32_t *)size->data)[1];
  return TFC_OK;
}

int tfc_resize_plan_of(tfc_kernel_ctx *c, int has_half, tfc_resize_plan *p) {
  const tfc_tensor *x = c->inputs[0];
  TFC_TRY(tfc_resize_sizes_of(c, x, "shape_t", &p->out_h, &p->out_w));
  TFC_TRY(flags_of(c, p, has_half));
  p->batch = x->dims[0];
  p->in_h = x->dims[1];
  p->in_w = x->dims[2];
  p->ch = x->dims[3];
  if (p->out_h <= 0 || p->out_w <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output dimensions must be positive");
  if ((p->in_h == 0 || p->in_w == 0) && p->batch > 0 && p->ch > 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be of non-zero size");
  p->h_scale = tfc_resize_scale(p->in_h, p->out_h, p->align);
  p->w_scale = tfc_resize_scale(p->in_w, p->out_w, p->align);
  return TFC_OK;
}

int tfc_resize_grad_plan_of(tfc_kernel_ctx *c, tfc_resize_plan *p) {
  const tfc_tensor *g = c->inputs[0], *orig = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  TFC_TRY(flags_of(c, p, 1));
  if (g->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input_grad must be 4-dimensional%s",
                            tfc_tensor_shape_str(g, a, sizeof a));
  if (orig->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "original_image must be 4-dimensional%s",
                            tfc_tensor_shape_str(orig, a, sizeof a));
  p->batch = g->dims[0];
  p->ch = g->dims[3];
  p->out_h = g->dims[1];
  p->out_w = g->dims[2];
  p->in_h = orig->dims[1];
  p->in_w = orig->dims[2];
  if (p->out_h <= 0 || p->out_w <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "resized dimensions must be positive");
  p->h_scale = tfc_resize_scale(p->in_h, p->out_h, p->align);
  p->w_scale = tfc_resize_scale(p->in_w, p->out_w, p->align);
  return TFC_OK;
}

int tfc_resize_nearest_grad_plan_of(tfc_kernel_ctx *c, tfc_resize_plan *p) {
  const tfc_tensor *g = c->inputs[0];
  TFC_TRY(tfc_resize_sizes_of(c, g, "shape_t", &p->out_h, &p->out_w));
  TFC_TRY(flags_of(c, p, 1));
  p->batch = g->dims[0];
  p->in_h = g->dims[1];
  p->in_w = g->dims[2];
  p->ch = g->dims[3];
  if (p->out_h < 0 || p->out_w < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output dimensions must be non-negative");
  /* The forward op resized out to in: its scales map a grads index to an output index. A
   * grads axis of 0 pixels reads nothing, so its scale is never used. */
  p->h_scale = p->in_h > 0 ? tfc_resize_scale(p->out_h, p->in_h, p->align) : 0.0f;
  p->w_scale = p->in_w > 0 ? tfc_resize_scale(p->out_w, p->in_w, p->align) : 0.0f;
  return TFC_OK;
}
