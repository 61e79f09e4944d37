/*
 * kernels_image_crop — CropAndResize and its gradient ops CropAndResizeGradImage and
 * CropAndResizeGradBoxes on the CPU, with TF's sampling.
 *
 * Box b = (y1, x1, y2, x2) in normalised coordinates (y1 > y2 flips the crop) on image
 * box_ind[b]. For a crop of height ch > 1, row y samples in_y = y1 (H - 1) + y * hs with
 * hs = (y2 - y1)(H - 1) / (ch - 1); a one-row crop samples the box's centre,
 * 0.5 (y1 + y2)(H - 1) (in double, as TF). Columns alike. A sample outside [0, H - 1] or
 * [0, W - 1] (or NaN) gives extrapolation_value. "bilinear" blends the four neighbours as
 * ResizeBilinear does (top, bottom, then between them); "nearest" rounds half away from zero.
 * The output is float for every T.
 *
 * The gradients walk the same samples: GradImage scatters each incoming value with the
 * bilinear weights (or into the rounded pixel) into an image of image_size, summing in T (half
 * rounds every partial sum, as TF's kernel);
 * GradBoxes differentiates the bilinear sample with respect to the four coordinates.
 *
 * Errors (TF's texts): INVALID_ARGUMENT "input image must be 4-D[...]", "image dimensions must
 * be positive", "boxes must be 2-D, got: [...]", "boxes must have 4 columns", "box_indices
 * must be rank 1 but is shape [...]", "box_index has incompatible shape", "crop_size must be
 * 1-D[...]", "crop_size must have two elements[...]", "crop dimensions must be positive",
 * "grads image must be 4-D[...]", "grads dimensions must be positive", "boxes and grads have
 * incompatible shape", "image_size must be 1-D[...]", "image_size must have 4 elements[...]",
 * "image_size and grads are incompatible", "image, grads depth differ"; OUT_OF_RANGE
 * "box_index has values outside [0, batch_size)".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_image.h"
#include "ops/opdef.h"

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

static int check_box_index(tfc_kernel_ctx *c, const tfc_tensor *ind, int64_t batch) {
  const int32_t *bi = ind->data;
  for (int64_t i = 0; i < ind->n_elems; i++)
    if (bi[i] < 0 || bi[i] >= batch)
      return tfc_kernel_error(c, TFC_OUT_OF_RANGE, "box_index has values outside [0, batch_size)");
  return TFC_OK;
}

static int method_of(tfc_kernel_ctx *c, int *nearest) {
  const char *m;
  TFC_TRY(tfc_kernel_attr_string(c->node, "method", &m, c->status));
  *nearest = !strcmp(m, "nearest");
  return TFC_OK;
}

/* One box's sampling along one axis of length len for a crop of n samples. */
typedef struct crop_axis {
  float start, step; /* in = start + i * step, or start alone for n == 1 */
  int64_t len, n;
} crop_axis;

static crop_axis axis_of(float a, float b, int64_t len, int64_t n) {
  crop_axis x = {0, 0, len, n};
  if (n > 1) {
    x.step = (b - a) * (float)(len - 1) / (float)(n - 1);
    x.start = a * (float)(len - 1);
  } else {
    x.start = (float)(0.5 * (a + b) * (double)(len - 1));
  }
  return x;
}

static float sample_at(const crop_axis *x, int64_t i) { return x->n > 1 ? x->start + (float)i * x->step : x->start; }

/* TF's test is !(v < 0 || v > len - 1), which lets NaN through to an index; NaN (a NaN box
 * coordinate) is outside here and gives extrapolation_value. */
static int inside(const crop_axis *x, float v) { return v >= 0 && v <= (float)(x->len - 1); }

static int crop_and_resize_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *image = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2], *size = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  if (image->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be 4-D%s", tfc_tensor_shape_str(image, a, sizeof a));
  int64_t batch = image->dims[0], h = image->dims[1], w = image->dims[2], depth = image->dims[3], n;
  if (h <= 0 || w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  TFC_TRY(check_boxes(c, boxes, ind, &n));
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_size must be 1-D%s", tfc_tensor_shape_str(size, a, sizeof a));
  if (size->dims[0] != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop_size must have two elements%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  int64_t ch = ((const int32_t *)size->data)[0], cw = ((const int32_t *)size->data)[1];
  if (ch <= 0 || cw <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "crop dimensions must be positive");
  int nearest;
  TFC_TRY(method_of(c, &nearest));
  const tfc_attr_value *ev = tfc_node_attr(c->node, "extrapolation_value");
  float extrap = ev && ev->kind == TFC_ATTR_FLOAT ? ev->u.f : 0.0f;
  int64_t dims[4] = {n, ch, cw, depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  TFC_TRY(check_box_index(c, ind, batch));
  if (out->n_elems == 0) return TFC_OK;
  float *img = tfc_image_floats(c, image);
  if (!img) return c->status->code;
  const float *bx = boxes->data;
  const int32_t *bi = ind->data;
  float *o = out->data;
  for (int64_t b = 0; b < n; b++) {
    crop_axis ya = axis_of(bx[b * 4], bx[b * 4 + 2], h, ch), xa = axis_of(bx[b * 4 + 1], bx[b * 4 + 3], w, cw);
    const float *im = img + (int64_t)bi[b] * h * w * depth;
    for (int64_t y = 0; y < ch; y++) {
      float *orow = o + (b * ch + y) * cw * depth;
      float in_y = sample_at(&ya, y);
      if (!inside(&ya, in_y)) {
        for (int64_t i = 0; i < cw * depth; i++) orow[i] = extrap;
        continue;
      }
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = sample_at(&xa, x), *op = orow + x * depth;
        if (!inside(&xa, in_x)) {
          for (int64_t d = 0; d < depth; d++) op[d] = extrap;
          continue;
        }
        if (nearest) {
          const float *p = im + ((int64_t)roundf(in_y) * w + (int64_t)roundf(in_x)) * depth;
          memcpy(op, p, sizeof(float) * (size_t)depth);
          continue;
        }
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = in_x - (float)lx;
        const float *t = im + ty * w * depth, *bo = im + by * w * depth;
        for (int64_t d = 0; d < depth; d++) {
          float tl = t[lx * depth + d], tr = t[rx * depth + d], bl = bo[lx * depth + d], br = bo[rx * depth + d];
          float top = tl + (tr - tl) * wx, bottom = bl + (br - bl) * wx;
          op[d] = top + (bottom - top) * ly;
        }
      }
    }
  }
  free(img);
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

static int crop_grad_image_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2], *size = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  int64_t n;
  TFC_TRY(check_grads(c, g));
  TFC_TRY(check_boxes(c, boxes, ind, &n));
  if (g->dims[0] != n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes and grads have incompatible shape");
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must be 1-D%s", tfc_tensor_shape_str(size, a, sizeof a));
  if (size->dims[0] != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must have 4 elements%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  const int32_t *sz = size->data;
  int64_t batch = sz[0], h = sz[1], w = sz[2], depth = sz[3], ch = g->dims[1], cw = g->dims[2];
  if (h <= 0 || w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  if (depth != g->dims[3]) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size and grads are incompatible");
  if (batch < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image_size must be non-negative");
  int nearest, dt;
  TFC_TRY(method_of(c, &nearest));
  TFC_TRY(tfc_kernel_attr_type(c->node, "T", &dt, c->status));
  int64_t dims[4] = {batch, h, w, depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dt, dims, 4);
  if (!out) return c->status->code;
  TFC_TRY(check_box_index(c, ind, batch));
  if (out->n_elems == 0) return TFC_OK;
  double *acc = calloc((size_t)out->n_elems, sizeof(double));
  if (!acc) return TFC_OOM(c->status);
  /* TF adds each product, rounded to T, into T: half rounds every partial sum */
  const float *bx = boxes->data, *gv = g->data;
  const int32_t *bi = ind->data;
  for (int64_t b = 0; b < n; b++) {
    crop_axis ya = axis_of(bx[b * 4], bx[b * 4 + 2], h, ch), xa = axis_of(bx[b * 4 + 1], bx[b * 4 + 3], w, cw);
    double *im = acc + (int64_t)bi[b] * h * w * depth;
    for (int64_t y = 0; y < ch; y++) {
      float in_y = sample_at(&ya, y);
      if (!inside(&ya, in_y)) continue;
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = sample_at(&xa, x);
        if (!inside(&xa, in_x)) continue;
        const float *gp = gv + ((b * ch + y) * cw + x) * depth;
        if (nearest) {
          double *p = im + ((int64_t)roundf(in_y) * w + (int64_t)roundf(in_x)) * depth;
          for (int64_t d = 0; d < depth; d++) p[d] = tfc_image_accumulate(dt, p[d], gp[d]);
          continue;
        }
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = in_x - (float)lx;
        for (int64_t d = 0; d < depth; d++) {
          float dtop = (1 - ly) * gp[d], dbot = ly * gp[d];
          float v[4] = {(1 - wx) * dtop, wx * dtop, (1 - wx) * dbot, wx * dbot};
          double *dst[4] = {im + (ty * w + lx) * depth + d, im + (ty * w + rx) * depth + d, im + (by * w + lx) * depth + d,
                            im + (by * w + rx) * depth + d};
          for (int k = 0; k < 4; k++) *dst[k] = tfc_image_accumulate(dt, *dst[k], v[k]);
        }
      }
    }
  }
  tfc_image_store(out, acc);
  free(acc);
  return TFC_OK;
}

static int crop_grad_boxes_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *image = c->inputs[1], *boxes = c->inputs[2], *ind = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  TFC_TRY(check_grads(c, g));
  if (image->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be 4-D%s", tfc_tensor_shape_str(image, a, sizeof a));
  int64_t batch = image->dims[0], h = image->dims[1], w = image->dims[2], depth = image->dims[3], n;
  int64_t ch = g->dims[1], cw = g->dims[2];
  if (h <= 0 || w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image dimensions must be positive");
  if (g->dims[3] != depth) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image, grads depth differ");
  TFC_TRY(check_boxes(c, boxes, ind, &n));
  if (g->dims[0] != n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "boxes and grads have incompatible shape");
  int64_t dims[2] = {n, 4};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 2);
  if (!out) return c->status->code;
  TFC_TRY(check_box_index(c, ind, batch));
  float *o = out->data;
  for (int64_t i = 0; i < n * 4; i++) o[i] = 0;
  if (n == 0 || depth == 0) return TFC_OK;
  float *img = tfc_image_floats(c, image);
  if (!img) return c->status->code;
  const float *bx = boxes->data, *gv = g->data;
  const int32_t *bi = ind->data;
  float hr = ch > 1 ? (float)(h - 1) / (float)(ch - 1) : 0, wr = cw > 1 ? (float)(w - 1) / (float)(cw - 1) : 0;
  for (int64_t b = 0; b < n; b++) {
    float y1 = bx[b * 4], x1 = bx[b * 4 + 1], y2 = bx[b * 4 + 2], x2 = bx[b * 4 + 3];
    /* TF's gradient takes the step as (y2 - y1) * ratio, not the forward's product order. */
    crop_axis ya = axis_of(y1, y2, h, ch), xa = axis_of(x1, x2, w, cw);
    if (ch > 1) ya.step = (y2 - y1) * hr;
    if (cw > 1) xa.step = (x2 - x1) * wr;
    const float *im = img + (int64_t)bi[b] * h * w * depth;
    float *ob = o + b * 4;
    for (int64_t y = 0; y < ch; y++) {
      float in_y = sample_at(&ya, y);
      if (!inside(&ya, in_y)) continue;
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = sample_at(&xa, x);
        if (!inside(&xa, in_x)) continue;
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = in_x - (float)lx;
        for (int64_t d = 0; d < depth; d++) {
          float tl = im[(ty * w + lx) * depth + d], tr = im[(ty * w + rx) * depth + d];
          float bl = im[(by * w + lx) * depth + d], br = im[(by * w + rx) * depth + d];
          float gy = (1 - wx) * (bl - tl) + wx * (br - tr), gx = (1 - ly) * (tr - tl) + ly * (br - bl);
          float top = gv[((b * ch + y) * cw + x) * depth + d];
          gy *= top;
          gx *= top;
          if (ch > 1) {
            ob[0] += gy * ((float)(h - 1) - (float)y * hr);
            ob[2] += gy * ((float)y * hr);
          } else {
            ob[0] = (float)(ob[0] + gy * 0.5 * (double)(h - 1));
            ob[2] = (float)(ob[2] + gy * 0.5 * (double)(h - 1));
          }
          if (cw > 1) {
            ob[1] += gx * ((float)(w - 1) - (float)x * wr);
            ob[3] += gx * ((float)x * wr);
          } else {
            ob[1] = (float)(ob[1] + gx * 0.5 * (double)(w - 1));
            ob[3] = (float)(ob[3] + gx * 0.5 * (double)(w - 1));
          }
        }
      }
    }
  }
  free(img);
  return TFC_OK;
}

#define CROP_TYPES                                                                                  \
  (TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | \
   TFC_T(TFC_DT_UINT16) | TFC_T(TFC_DT_HALF))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_CropAndResize, .type_attr = "T", .types = CROP_TYPES, .host_memory_in = TFC_HOST(3),
     .compute = crop_and_resize_compute},
    {.op = TFC_OP_CropAndResizeGradImage, .type_attr = "T", .types = TFC_TYPES_FLOAT | TFC_T(TFC_DT_HALF),
     .host_memory_in = TFC_HOST(3), .compute = crop_grad_image_compute},
    {.op = TFC_OP_CropAndResizeGradBoxes, .type_attr = "T", .types = CROP_TYPES, .compute = crop_grad_boxes_compute},
};

int tfc_cpu_kernels_image_crop(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
