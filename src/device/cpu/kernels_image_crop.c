/*
 * kernels_image_crop — CropAndResize and its gradient ops CropAndResizeGradImage and
 * CropAndResizeGradBoxes on the CPU, with TF's sampling.
 *
 * The checks, the plan and the sampling arithmetic (each box's axes, a sample's coordinate,
 * the inside test, the blend, a sample's share of the box gradient) are device/image_crop_plan.h's,
 * which the GPU kernels (cuda/kernels_crop_gpu.c) share; image_crop_plan.h describes TF's
 * sampling. The output is float for every T.
 *
 * The gradients walk the same samples: GradImage scatters each incoming value with the
 * bilinear weights (or into the rounded pixel) into an image of image_size, summing in T (half
 * rounds every partial sum, as TF's kernel); GradBoxes differentiates the bilinear sample with
 * respect to the four coordinates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_image.h"
#include "device/image_crop_plan.h"
#include "ops/opdef.h"

static int crop_and_resize_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *image = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2];
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_plan_of(c, &p));
  int64_t h = p.h, w = p.w, depth = p.depth, n = p.n, ch = p.ch, cw = p.cw;
  int64_t dims[4] = {n, ch, cw, depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  TFC_TRY(tfc_crop_check_box_index(c, ind->data, ind->n_elems, p.batch));
  if (out->n_elems == 0) return TFC_OK;
  float *img = tfc_image_floats(c, image);
  if (!img) return c->status->code;
  const float *bx = boxes->data;
  const int32_t *bi = ind->data;
  float *o = out->data;
  for (int64_t b = 0; b < n; b++) {
    tfc_crop_axis ya = tfc_crop_axis_of(bx[b * 4], bx[b * 4 + 2], h, ch),
                  xa = tfc_crop_axis_of(bx[b * 4 + 1], bx[b * 4 + 3], w, cw);
    const float *im = img + (int64_t)bi[b] * h * w * depth;
    for (int64_t y = 0; y < ch; y++) {
      float *orow = o + (b * ch + y) * cw * depth;
      float in_y = tfc_crop_sample(&ya, y);
      if (!tfc_crop_inside(&ya, in_y)) {
        for (int64_t i = 0; i < cw * depth; i++) orow[i] = p.extrap;
        continue;
      }
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = tfc_crop_sample(&xa, x), *op = orow + x * depth;
        if (!tfc_crop_inside(&xa, in_x)) {
          for (int64_t d = 0; d < depth; d++) op[d] = p.extrap;
          continue;
        }
        if (p.nearest) {
          const float *q = im + ((int64_t)roundf(in_y) * w + (int64_t)roundf(in_x)) * depth;
          memcpy(op, q, sizeof(float) * (size_t)depth);
          continue;
        }
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = in_x - (float)lx;
        const float *t = im + ty * w * depth, *bo = im + by * w * depth;
        for (int64_t d = 0; d < depth; d++) {
          float top = tfc_resize_blend(t[lx * depth + d], t[rx * depth + d], wx);
          float bottom = tfc_resize_blend(bo[lx * depth + d], bo[rx * depth + d], wx);
          op[d] = tfc_resize_blend(top, bottom, ly);
        }
      }
    }
  }
  free(img);
  return TFC_OK;
}

static int crop_grad_image_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *boxes = c->inputs[1], *ind = c->inputs[2];
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_grad_image_plan_of(c, &p));
  int64_t h = p.h, w = p.w, depth = p.depth, n = p.n, ch = p.ch, cw = p.cw;
  int dt;
  TFC_TRY(tfc_kernel_attr_type(c->node, "T", &dt, c->status));
  int64_t dims[4] = {p.batch, h, w, depth};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dt, dims, 4);
  if (!out) return c->status->code;
  TFC_TRY(tfc_crop_check_box_index(c, ind->data, ind->n_elems, p.batch));
  if (out->n_elems == 0) return TFC_OK;
  double *acc = calloc((size_t)out->n_elems, sizeof(double));
  if (!acc) return TFC_OOM(c->status);
  /* TF adds each product, rounded to T, into T: half rounds every partial sum */
  const float *bx = boxes->data, *gv = g->data;
  const int32_t *bi = ind->data;
  for (int64_t b = 0; b < n; b++) {
    tfc_crop_axis ya = tfc_crop_axis_of(bx[b * 4], bx[b * 4 + 2], h, ch),
                  xa = tfc_crop_axis_of(bx[b * 4 + 1], bx[b * 4 + 3], w, cw);
    double *im = acc + (int64_t)bi[b] * h * w * depth;
    for (int64_t y = 0; y < ch; y++) {
      float in_y = tfc_crop_sample(&ya, y);
      if (!tfc_crop_inside(&ya, in_y)) continue;
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = tfc_crop_sample(&xa, x);
        if (!tfc_crop_inside(&xa, in_x)) continue;
        const float *gp = gv + ((b * ch + y) * cw + x) * depth;
        if (p.nearest) {
          double *q = im + ((int64_t)roundf(in_y) * w + (int64_t)roundf(in_x)) * depth;
          for (int64_t d = 0; d < depth; d++) q[d] = tfc_image_accumulate(dt, q[d], gp[d]);
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
  tfc_crop_plan p;
  TFC_TRY(tfc_crop_grad_boxes_plan_of(c, &p));
  int64_t h = p.h, w = p.w, depth = p.depth, n = p.n, ch = p.ch, cw = p.cw;
  int64_t dims[2] = {n, 4};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 2);
  if (!out) return c->status->code;
  TFC_TRY(tfc_crop_check_box_index(c, ind->data, ind->n_elems, p.batch));
  float *o = out->data;
  for (int64_t i = 0; i < n * 4; i++) o[i] = 0;
  if (n == 0 || depth == 0) return TFC_OK;
  float *img = tfc_image_floats(c, image);
  if (!img) return c->status->code;
  const float *bx = boxes->data, *gv = g->data;
  const int32_t *bi = ind->data;
  float hr = ch > 1 ? (float)(h - 1) / (float)(ch - 1) : 0, wr = cw > 1 ? (float)(w - 1) / (float)(cw - 1) : 0;
  for (int64_t b = 0; b < n; b++) {
    tfc_crop_axis ya = tfc_crop_grad_axis_of(bx[b * 4], bx[b * 4 + 2], h, ch),
                  xa = tfc_crop_grad_axis_of(bx[b * 4 + 1], bx[b * 4 + 3], w, cw);
    const float *im = img + (int64_t)bi[b] * h * w * depth;
    for (int64_t y = 0; y < ch; y++) {
      float in_y = tfc_crop_sample(&ya, y);
      if (!tfc_crop_inside(&ya, in_y)) continue;
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = in_y - (float)ty;
      for (int64_t x = 0; x < cw; x++) {
        float in_x = tfc_crop_sample(&xa, x);
        if (!tfc_crop_inside(&xa, in_x)) continue;
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = in_x - (float)lx;
        for (int64_t d = 0; d < depth; d++)
          tfc_crop_box_grad_add(o + b * 4, gv[((b * ch + y) * cw + x) * depth + d], im[(ty * w + lx) * depth + d],
                                im[(ty * w + rx) * depth + d], im[(by * w + lx) * depth + d],
                                im[(by * w + rx) * depth + d], ly, wx, y, x, &p, hr, wr);
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
