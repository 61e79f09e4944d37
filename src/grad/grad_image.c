/*
 * grad_image — gradient builders of the image geometry ops, as TF's image_grad.py builds
 * them: ResizeBilinear through ResizeBilinearGrad(grad, images), ResizeBicubic through
 * ResizeBicubicGrad (float and double images only; others get none), ResizeNearestNeighbor
 * through ResizeNearestNeighborGrad(grad, images' height and width: a Const when the static
 * shape knows them, else a slice of Shape), each with the forward's align_corners and
 * half_pixel_centers; CropAndResize through CropAndResizeGradImage (half, float and double
 * images, image_size from the image's shape, the forward's method) and CropAndResizeGradBoxes.
 * The size, box_ind and crop_size inputs get no gradient. ResizeArea has none, as in TF.
 * ScaleAndTranslate goes through ScaleAndTranslateGrad(grad, images, scale, translation) with
 * the forward's kernel_type and antialias (float images only: the op has no other T).
 */
#include "grad/grad_internal.h"
#include "ops/opdef.h"

/* Copies the forward's attr `name` into a; returns 1 when it was there. */
static int copy_attr(tfc_grad_ctx *c, const char *name, tfc_grad_attr *a) {
  const tfc_attr_value *v = tfc_node_attr(c->op, name);
  if (!v || !tfc_grad_ok(c)) return 0;
  a->name = name;
  return tfc_attr_value_copy(v, &a->v, c->s) == TFC_OK;
}

static int resize_flags(tfc_grad_ctx *c, tfc_grad_attr *a) {
  int n = 0;
  n += copy_attr(c, "align_corners", &a[n]);
  n += copy_attr(c, "half_pixel_centers", &a[n]);
  return n;
}

static int resize_bilinear_grad(tfc_grad_ctx *c) {
  tfc_grad_attr a[2];
  int n = resize_flags(c, a);
  tfc_endpoint ins[2] = {c->dy[0], tfc_grad_in(c, 0)};
  c->dx[0] = tfc_grad_op(c, "ResizeBilinearGrad", NULL, ins, 2, a, n);
  return c->s->code;
}

static int resize_bicubic_grad(tfc_grad_ctx *c) {
  int dt = tfc_grad_dtype(tfc_grad_in(c, 0));
  if (dt != TFC_DT_FLOAT && dt != TFC_DT_DOUBLE) return TFC_OK;
  tfc_grad_attr a[2];
  int n = resize_flags(c, a);
  tfc_endpoint ins[2] = {c->dy[0], tfc_grad_in(c, 0)};
  c->dx[0] = tfc_grad_op(c, "ResizeBicubicGrad", NULL, ins, 2, a, n);
  return c->s->code;
}

static int resize_nearest_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), size;
  const tfc_shape *sh = tfc_grad_static_shape(x);
  if (sh && sh->rank == 4 && sh->dims[1] >= 0 && sh->dims[2] >= 0) {
    size = tfc_grad_const_ivec(c, "ResizeNearestNeighborGrad/size", &sh->dims[1], 2); /* Python's list */
  } else {
    int64_t b = 1, e = 3;
    size = tfc_grad_vec_slice(c, tfc_grad_shape(c, x), tfc_grad_const_ivec(c, NULL, &b, 1),
                              tfc_grad_const_ivec(c, NULL, &e, 1), 0, 0, 0);
  }
  tfc_grad_attr a[2];
  int n = resize_flags(c, a);
  tfc_endpoint ins[2] = {c->dy[0], size};
  c->dx[0] = tfc_grad_op(c, "ResizeNearestNeighborGrad", NULL, ins, 2, a, n);
  return c->s->code;
}

static int crop_and_resize_grad(tfc_grad_ctx *c) {
  tfc_endpoint image = tfc_grad_in(c, 0), boxes = tfc_grad_in(c, 1), ind = tfc_grad_in(c, 2);
  int dt = tfc_grad_dtype(image);
  if (dt == TFC_DT_HALF || dt == TFC_DT_FLOAT || dt == TFC_DT_DOUBLE) {
    tfc_grad_attr a[2] = {TFC_GRAD_ATTR_TYPE("T", dt)};
    int n = 1 + copy_attr(c, "method", &a[1]);
    /* Python passes the static shape as a list when it is fully defined, else Shape(image). */
    const tfc_shape *sh = tfc_grad_static_shape(image);
    tfc_endpoint size = tfc_shape_fully_defined(sh)
                            ? tfc_grad_const_vec(c, "CropAndResizeGradImage/image_size", TFC_DT_INT32, sh->dims, 4)
                            : tfc_grad_shape(c, image);
    tfc_endpoint ins[4] = {c->dy[0], boxes, ind, size};
    c->dx[0] = tfc_grad_op(c, "CropAndResizeGradImage", NULL, ins, 4, a, n);
  }
  tfc_endpoint ins[4] = {c->dy[0], image, boxes, ind};
  c->dx[1] = tfc_grad_op(c, "CropAndResizeGradBoxes", NULL, ins, 4, NULL, 0);
  return c->s->code;
}

static int scale_and_translate_grad(tfc_grad_ctx *c) {
  if (tfc_grad_dtype(tfc_grad_in(c, 0)) != TFC_DT_FLOAT) return TFC_OK; /* the grad op is float only */
  tfc_grad_attr a[2];
  int n = copy_attr(c, "kernel_type", &a[0]);
  n += copy_attr(c, "antialias", &a[n]);
  tfc_endpoint ins[4] = {c->dy[0], tfc_grad_in(c, 0), tfc_grad_in(c, 2), tfc_grad_in(c, 3)};
  c->dx[0] = tfc_grad_op(c, "ScaleAndTranslateGrad", NULL, ins, 4, a, n);
  return c->s->code;
}

const tfc_grad_entry tfc_grad_image_entries[] = {{"ResizeBilinear", resize_bilinear_grad},
                                                 {"ResizeBicubic", resize_bicubic_grad},
                                                 {"ResizeNearestNeighbor", resize_nearest_grad},
                                                 {"CropAndResize", crop_and_resize_grad},
                                                 {"ScaleAndTranslate", scale_and_translate_grad},
                                                 {NULL, NULL}};
