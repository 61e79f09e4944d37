/*
 * image_crop_plan — what the CPU and GPU kernels of CropAndResize, CropAndResizeGradImage and
 * CropAndResizeGradBoxes share (cpu/kernels_image_crop.c, cuda/kernels_crop_gpu.c with
 * cuda/cuda_crop.cu): the checks of their inputs and attrs with TF 1.15's codes and texts, the
 * plan they produce, and TF's sampling arithmetic on it (each box's per-axis start and step, a
 * sample's coordinate, the inside test, the bilinear blend, a sample's contribution to the box
 * gradient), so both devices sample the same pixels with the same weights.
 *
 * Box b = (y1, x1, y2, x2) in normalised coordinates (y1 > y2 flips the crop) on image
 * box_ind[b]. For a crop of height ch > 1, row y samples in_y = y1 (H - 1) + y * hs with
 * hs = (y2 - y1)(H - 1) / (ch - 1); a one-row crop samples the box's centre,
 * 0.5 (y1 + y2)(H - 1) (in double, as TF). Columns alike. A sample outside [0, H - 1] or
 * [0, W - 1] (or NaN) gives extrapolation_value. "bilinear" blends the four neighbours as
 * ResizeBilinear does (top, bottom, then between them); "nearest" rounds half away from zero.
 *
 * Float arithmetic goes through resize_plan.h's tfc_resize_mul / _add / _sub, which the device
 * never fuses into fmas, so coordinates and weights are the CPU's bit for bit. The top half is
 * plain C also compiled as CUDA C++; the checks at the bottom are C only. Thread-safe.
 */
#ifndef TFC_DEVICE_IMAGE_CROP_PLAN_H
#define TFC_DEVICE_IMAGE_CROP_PLAN_H

#include <math.h>
#include <stdint.h>

#include "device/resize_plan.h"

/* One crop op: images [batch, h, w, depth], n boxes, crops [n, ch, cw, depth]. */
typedef struct tfc_crop_plan {
  int64_t batch, h, w, depth, n, ch, cw;
  int nearest;  /* method "nearest" (else "bilinear") */
  float extrap; /* CropAndResize's extrapolation_value */
} tfc_crop_plan;

/* acc + a * b in double, each step rounded once (the one-sample axis's box gradient). */
TFC_RESIZE_FN double tfc_crop_dmuladd(double acc, double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(acc, __dmul_rn(a, b));
#else
  return acc + a * b;
#endif
}

/* One box's sampling along one axis of len pixels for a crop of n samples. */
typedef struct tfc_crop_axis {
  float start, step; /* in = start + i * step, or start alone for n == 1 */
  int64_t len, n;
} tfc_crop_axis;

/* The axis from the box's coordinates a (start) and b (end), TF's forward arithmetic. */
TFC_RESIZE_FN tfc_crop_axis tfc_crop_axis_of(float a, float b, int64_t len, int64_t n) {
  tfc_crop_axis x = {0, 0, len, n};
  if (n > 1) {
    x.step = tfc_resize_mul(tfc_resize_sub(b, a), (float)(len - 1)) / (float)(n - 1);
    x.start = tfc_resize_mul(a, (float)(len - 1));
  } else {
    x.start = (float)(0.5 * (double)tfc_resize_add(a, b) * (double)(len - 1));
  }
  return x;
}

/* The box gradient's axis: its step is (b - a) * ((len - 1) / (n - 1)), TF's other order. */
TFC_RESIZE_FN tfc_crop_axis tfc_crop_grad_axis_of(float a, float b, int64_t len, int64_t n) {
  tfc_crop_axis x = tfc_crop_axis_of(a, b, len, n);
  if (n > 1) x.step = tfc_resize_mul(tfc_resize_sub(b, a), (float)(len - 1) / (float)(n - 1));
  return x;
}

/* The coordinate of sample i. */
TFC_RESIZE_FN float tfc_crop_sample(const tfc_crop_axis *x, int64_t i) {
  return x->n > 1 ? tfc_resize_add(x->start, tfc_resize_mul((float)i, x->step)) : x->start;
}

/* TF's test is !(v < 0 || v > len - 1), which lets NaN through to an index; NaN (a NaN box
 * coordinate) is outside here and gives extrapolation_value. */
TFC_RESIZE_FN int tfc_crop_inside(const tfc_crop_axis *x, float v) { return v >= 0 && v <= (float)(x->len - 1); }

/* Adds one bilinear sample's contribution to box gradient ob[4] (y1, x1, y2, x2): g the
 * incoming gradient, tl..br the four neighbours, ly / wx the fractions, y / x the sample's
 * crop row and column, hr / wr the axes' (len - 1) / (n - 1) (0 for a one-sample axis). */
TFC_RESIZE_FN void tfc_crop_box_grad_add(float ob[4], float g, float tl, float tr, float bl, float br, float ly,
                                         float wx, int64_t y, int64_t x, const tfc_crop_plan *p, float hr, float wr) {
  float gy = tfc_resize_add(tfc_resize_mul(tfc_resize_sub(1.0f, wx), tfc_resize_sub(bl, tl)),
                            tfc_resize_mul(wx, tfc_resize_sub(br, tr)));
  float gx = tfc_resize_add(tfc_resize_mul(tfc_resize_sub(1.0f, ly), tfc_resize_sub(tr, tl)),
                            tfc_resize_mul(ly, tfc_resize_sub(br, bl)));
  gy = tfc_resize_mul(gy, g);
  gx = tfc_resize_mul(gx, g);
  if (p->ch > 1) {
    ob[0] = tfc_resize_add(ob[0], tfc_resize_mul(gy, tfc_resize_sub((float)(p->h - 1), tfc_resize_mul((float)y, hr))));
    ob[2] = tfc_resize_add(ob[2], tfc_resize_mul(gy, tfc_resize_mul((float)y, hr)));
  } else {
    ob[0] = (float)tfc_crop_dmuladd(ob[0], (double)gy * 0.5, (double)(p->h - 1));
    ob[2] = (float)tfc_crop_dmuladd(ob[2], (double)gy * 0.5, (double)(p->h - 1));
  }
  if (p->cw > 1) {
    ob[1] = tfc_resize_add(ob[1], tfc_resize_mul(gx, tfc_resize_sub((float)(p->w - 1), tfc_resize_mul((float)x, wr))));
    ob[3] = tfc_resize_add(ob[3], tfc_resize_mul(gx, tfc_resize_mul((float)x, wr)));
  } else {
    ob[1] = (float)tfc_crop_dmuladd(ob[1], (double)gx * 0.5, (double)(p->w - 1));
    ob[3] = (float)tfc_crop_dmuladd(ob[3], (double)gx * 0.5, (double)(p->w - 1));
  }
}

#ifndef __CUDACC__
#include "device/kernel.h"

/* CropAndResize (image, boxes, box_ind, crop_size: int32 [2] in host memory): TF's checks and
 * texts, INVALID_ARGUMENT "input image must be 4-D[...]", "image dimensions must be
 * positive", the boxes' ("boxes must be 2-D, got: [...]", "boxes must have 4 columns",
 * "box_indices must be rank 1 but is shape [...]", "box_index has incompatible shape"),
 * "crop_size must be 1-D[...]", "crop_size must have two elements[...]", "crop dimensions must
 * be positive"; the method and extrapolation_value. Box indexes are not read (see
 * tfc_crop_check_box_index). Returns 0 or the error set in c. */
int tfc_crop_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p);
/* CropAndResizeGradImage (grads, boxes, box_ind, image_size: int32 [4] in host memory):
 * "grads image must be 4-D[...]", "grads dimensions must be positive", the boxes' texts, "boxes
 * and grads have incompatible shape", "image_size must be 1-D[...]", "image_size must have 4
 * elements[...]", "image dimensions must be positive", "image_size and grads are
 * incompatible", "image_size must be non-negative". */
int tfc_crop_grad_image_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p);
/* CropAndResizeGradBoxes (grads, image, boxes, box_ind): the grads', the image's, "image,
 * grads depth differ", the boxes' texts and "boxes and grads have incompatible shape". */
int tfc_crop_grad_boxes_plan_of(tfc_kernel_ctx *c, tfc_crop_plan *p);
/* OUT_OF_RANGE "box_index has values outside [0, batch_size)" unless every one of the n
 * indexes bi (host memory) lies in [0, batch). */
int tfc_crop_check_box_index(tfc_kernel_ctx *c, const int32_t *bi, int64_t n, int64_t batch);
#endif

#endif
