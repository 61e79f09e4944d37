/*
 * kernels_image_resize — the resize ops on the CPU with TF's sampling, so outputs match TF's
 * to the float rounding: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea and
 * the gradient ops ResizeBilinearGrad, ResizeNearestNeighborGrad, ResizeBicubicGrad.
 *
 * Sampling (all in float, as TF's kernels): scale = in / out, or (in - 1) / (out - 1) with
 * align_corners and out > 1. The source of output pixel x is x * scale, or with
 * half_pixel_centers (x + 0.5) * scale - 0.5 (nearest: (x + 0.5) * scale, no - 0.5).
 *  - Bilinear: lo = max(floor(src), 0), hi = min(ceil(src), in - 1), t = src - floor(src);
 *    top = tl + (tr - tl) * tx, bottom alike, out = top + (bottom - top) * ty (this order).
 *  - Nearest: round (half away from zero) with align_corners, else floor; then min(in - 1) and,
 *    half-pixel only, max(0). The output keeps T.
 *  - Bicubic: Keys' cubic with A = -0.75 (legacy) or -0.5 (half_pixel_centers) from a table of
 *    1024 steps; the four taps are clamped to the image; in half-pixel mode taps outside the
 *    image weigh 0 and the rest are renormalised. Columns first (y), then the row (x).
 *  - Area: output cell [x * s, (x + 1) * s) averages the input cells it covers, each weighted by
 *    its overlap, times 1 / (s_h * s_w); indices are clamped.
 * The gradient ops scatter the incoming float gradient with the same weights into an output of
 * the original image's shape and dtype (nearest: of the size input; its scale swaps in and out).
 * As TF, the bilinear and bicubic gradients sum in float (half and bfloat16 rounded once at the
 * end), double for double; the nearest gradient sums in T, rounding each partial sum of half
 * and bfloat16 and wrapping the integers' (tfc_image_accumulate).
 *
 * The checks (INVALID_ARGUMENT with TF's texts), the plan and the coordinate arithmetic of
 * bilinear and nearest sampling are device/resize_plan.h's, which the GPU kernels of
 * ResizeBilinear(Grad) and ResizeNearestNeighbor(Grad) use too (cuda/kernels_image_gpu.c).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_image.h"
#include "device/resize_plan.h"
#include "ops/opdef.h"

/* ---- bilinear ---- */

typedef struct lerp {
  int64_t lo, hi;
  float w;
} lerp;

/* One table per axis: out entries for an input of length in; NULL when out of memory. */
static lerp *lerps_of(int64_t out, int64_t in, float scale, int half) {
  lerp *l = malloc(sizeof(lerp) * (size_t)(out > 0 ? out : 1));
  if (!l) return NULL;
  for (int64_t i = 0; i < out; i++) tfc_resize_lerp(i, in, scale, half, &l[i].lo, &l[i].hi, &l[i].w);
  return l;
}

static int resize_bilinear_compute(tfc_kernel_ctx *c) {
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 1, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  float *x = tfc_image_floats(c, c->inputs[0]);
  lerp *ys = lerps_of(p.out_h, p.in_h, p.h_scale, p.half), *xs = lerps_of(p.out_w, p.in_w, p.w_scale, p.half);
  if (!x || !ys || !xs) {
    free(x);
    free(ys);
    free(xs);
    return x ? TFC_OOM(c->status) : c->status->code;
  }
  float *o = out->data;
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      const float *top = x + (b * p.in_h + ys[y].lo) * p.in_w * p.ch, *bot = x + (b * p.in_h + ys[y].hi) * p.in_w * p.ch;
      for (int64_t xx = 0; xx < p.out_w; xx++)
        for (int64_t k = 0; k < p.ch; k++) {
          float tl = top[xs[xx].lo * p.ch + k], tr = top[xs[xx].hi * p.ch + k];
          float bl = bot[xs[xx].lo * p.ch + k], br = bot[xs[xx].hi * p.ch + k];
          float t = tfc_resize_blend(tl, tr, xs[xx].w), bo = tfc_resize_blend(bl, br, xs[xx].w);
          o[((b * p.out_h + y) * p.out_w + xx) * p.ch + k] = tfc_resize_blend(t, bo, ys[y].w);
        }
    }
  free(x);
  free(ys);
  free(xs);
  return TFC_OK;
}

static int resize_bilinear_grad_compute(tfc_kernel_ctx *c) {
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_grad_plan_of(c, &p));
  const tfc_tensor *orig = c->inputs[1];
  int64_t dims[4] = {p.batch, p.in_h, p.in_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, orig->dtype, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  double *acc = calloc((size_t)out->n_elems, sizeof(double));
  lerp *ys = lerps_of(p.out_h, p.in_h, p.h_scale, p.half), *xs = lerps_of(p.out_w, p.in_w, p.w_scale, p.half);
  if (!acc || !ys || !xs) {
    free(acc);
    free(ys);
    free(xs);
    return TFC_OOM(c->status);
  }
  /* TF sums the float products in float (half and bfloat16 too, rounded once at the end), in
   * double for double. */
  int acc_dt = orig->dtype == TFC_DT_DOUBLE ? TFC_DT_DOUBLE : TFC_DT_FLOAT;
  const float *g = c->inputs[0]->data;
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      float wy = ys[y].w, iy = tfc_resize_sub(1.0f, wy);
      double *top = acc + (b * p.in_h + ys[y].lo) * p.in_w * p.ch, *bot = acc + (b * p.in_h + ys[y].hi) * p.in_w * p.ch;
      for (int64_t xx = 0; xx < p.out_w; xx++) {
        float wx = xs[xx].w, ix = tfc_resize_sub(1.0f, wx);
        int64_t l = xs[xx].lo * p.ch, r = xs[xx].hi * p.ch;
        for (int64_t k = 0; k < p.ch; k++) {
          float v = g[((b * p.out_h + y) * p.out_w + xx) * p.ch + k];
          float vy = tfc_resize_mul(v, iy), vw = tfc_resize_mul(v, wy);
          float w[4] = {tfc_resize_mul(vy, ix), tfc_resize_mul(vy, wx), tfc_resize_mul(vw, ix), tfc_resize_mul(vw, wx)};
          double *dst[4] = {top + l + k, top + r + k, bot + l + k, bot + r + k};
          for (int j = 0; j < 4; j++) *dst[j] = tfc_image_accumulate(acc_dt, *dst[j], w[j]);
        }
      }
    }
  tfc_image_store(out, acc);
  free(acc);
  free(ys);
  free(xs);
  return TFC_OK;
}

/* ---- nearest neighbor ---- */

static int resize_nearest_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 1, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  size_t es = tfc_dtype_size(x->dtype);
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      int64_t sy = tfc_resize_nearest(y, p.h_scale, p.in_h, p.align, p.half);
      for (int64_t xx = 0; xx < p.out_w; xx++) {
        int64_t sx = tfc_resize_nearest(xx, p.w_scale, p.in_w, p.align, p.half);
        memcpy((char *)out->data + (size_t)(((b * p.out_h + y) * p.out_w + xx) * p.ch) * es,
               (const char *)x->data + (size_t)(((b * p.in_h + sy) * p.in_w + sx) * p.ch) * es, (size_t)p.ch * es);
      }
    }
  return TFC_OK;
}

/* grads [b, h, w, c] -> [b, size[0], size[1], c]: each gradient adds into the pixel the
 * forward read it from (the scale is size / grads' size). */
static int resize_nearest_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0];
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_nearest_grad_plan_of(c, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, g->dtype, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  double *acc = calloc((size_t)out->n_elems, sizeof(double));
  if (!acc) return TFC_OOM(c->status);
  /* TF sums in T: half and bfloat16 round every partial sum, the integers wrap */
  for (int64_t y = 0; y < p.in_h; y++) {
    int64_t oy = tfc_resize_nearest(y, p.h_scale, p.out_h, p.align, p.half);
    for (int64_t xx = 0; xx < p.in_w; xx++) {
      int64_t ox = tfc_resize_nearest(xx, p.w_scale, p.out_w, p.align, p.half);
      for (int64_t b = 0; b < p.batch; b++)
        for (int64_t k = 0; k < p.ch; k++) {
          double *d = &acc[((b * p.out_h + oy) * p.out_w + ox) * p.ch + k];
          *d = tfc_image_accumulate(g->dtype, *d, tfc_image_value(g, ((b * p.in_h + y) * p.in_w + xx) * p.ch + k));
        }
    }
  }
  tfc_image_store(out, acc);
  free(acc);
  return TFC_OK;
}

/* ---- bicubic ---- */

#define CUBIC_STEPS 1024 /* TF's table resolution: the fraction is rounded to 1/1024 */

/* tab[2i] = near(i / 1024), tab[2i + 1] = far(i / 1024 + 1) of Keys' kernel with parameter a,
 * computed in double from a float x and stored as float, as TF's table. */
static void cubic_table(double a, float *tab) {
  for (int i = 0; i <= CUBIC_STEPS; i++) {
    float x = (float)(i * 1.0 / CUBIC_STEPS);
    tab[i * 2] = (float)(((a + 2) * x - (a + 3)) * x * x + 1);
    x = (float)(x + 1.0);
    tab[i * 2 + 1] = (float)(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
}

typedef struct cubic_taps {
  int64_t idx[4];
  float w[4];
} cubic_taps;

static void cubic_taps_of(const float *tab, float scale, int64_t out_loc, int64_t limit, int half, cubic_taps *t) {
  float src = tfc_resize_src(out_loc, scale, half);
  int64_t in_loc = (int64_t)floorf(src);
  float delta = src - (float)in_loc;
  long off = lrintf(delta * CUBIC_STEPS);
  t->w[0] = tab[off * 2 + 1];
  t->w[1] = tab[off * 2];
  t->w[2] = tab[(CUBIC_STEPS - off) * 2];
  t->w[3] = tab[(CUBIC_STEPS - off) * 2 + 1];
  for (int k = 0; k < 4; k++) t->idx[k] = tfc_image_clamp_index((double)(in_loc - 1 + k), limit);
  if (!half) return;
  /* Keys mode: samples outside the image weigh nothing; the rest renormalised to sum 1. */
  for (int k = 0; k < 4; k++)
    if (t->idx[k] != in_loc - 1 + k) t->w[k] = 0.0f;
  float sum = t->w[0] + t->w[1] + t->w[2] + t->w[3];
  if (fabsf(sum) >= 1000.0f * FLT_MIN) {
    float inv = 1.0f / sum;
    for (int k = 0; k < 4; k++) t->w[k] *= inv;
  }
}

static cubic_taps *cubic_axis(const float *tab, int64_t out, int64_t in, float scale, int half) {
  cubic_taps *t = malloc(sizeof(cubic_taps) * (size_t)(out > 0 ? out : 1));
  if (t)
    for (int64_t i = 0; i < out; i++) cubic_taps_of(tab, scale, i, in, half, &t[i]);
  return t;
}

static float interp4(const float *w, float v0, float v1, float v2, float v3) {
  return v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
}

static int resize_bicubic_compute(tfc_kernel_ctx *c) {
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 1, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  float tab[(CUBIC_STEPS + 1) * 2];
  cubic_table(p.half ? -0.5 : -0.75, tab);
  float *x = tfc_image_floats(c, c->inputs[0]);
  cubic_taps *ys = cubic_axis(tab, p.out_h, p.in_h, p.h_scale, p.half);
  cubic_taps *xs = cubic_axis(tab, p.out_w, p.in_w, p.w_scale, p.half);
  if (!x || !ys || !xs) {
    free(x);
    free(ys);
    free(xs);
    return x ? TFC_OOM(c->status) : c->status->code;
  }
  float *o = out->data;
  int64_t row = p.in_w * p.ch;
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      const cubic_taps *ty = &ys[y];
      const float *r[4];
      for (int k = 0; k < 4; k++) r[k] = x + (b * p.in_h + ty->idx[k]) * row;
      for (int64_t xx = 0; xx < p.out_w; xx++) {
        const cubic_taps *tx = &xs[xx];
        for (int64_t k = 0; k < p.ch; k++) {
          float col[4];
          for (int j = 0; j < 4; j++) {
            int64_t at = tx->idx[j] * p.ch + k;
            col[j] = interp4(ty->w, r[0][at], r[1][at], r[2][at], r[3][at]);
          }
          o[((b * p.out_h + y) * p.out_w + xx) * p.ch + k] = interp4(tx->w, col[0], col[1], col[2], col[3]);
        }
      }
    }
  free(x);
  free(ys);
  free(xs);
  return TFC_OK;
}

static int resize_bicubic_grad_compute(tfc_kernel_ctx *c) {
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_grad_plan_of(c, &p));
  const tfc_tensor *orig = c->inputs[1];
  int64_t dims[4] = {p.batch, p.in_h, p.in_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, orig->dtype, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  float tab[(CUBIC_STEPS + 1) * 2];
  cubic_table(p.half ? -0.5 : -0.75, tab);
  double *acc = calloc((size_t)out->n_elems, sizeof(double));
  cubic_taps *ys = cubic_axis(tab, p.out_h, p.in_h, p.h_scale, p.half);
  cubic_taps *xs = cubic_axis(tab, p.out_w, p.in_w, p.w_scale, p.half);
  if (!acc || !ys || !xs) {
    free(acc);
    free(ys);
    free(xs);
    return TFC_OOM(c->status);
  }
  int acc_dt = orig->dtype == TFC_DT_DOUBLE ? TFC_DT_DOUBLE : TFC_DT_FLOAT; /* TF sums in T */
  const float *g = c->inputs[0]->data;
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++)
      for (int64_t xx = 0; xx < p.out_w; xx++)
        for (int64_t k = 0; k < p.ch; k++) {
          float v = g[((b * p.out_h + y) * p.out_w + xx) * p.ch + k];
          for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
              double *d = &acc[((b * p.in_h + ys[y].idx[i]) * p.in_w + xs[xx].idx[j]) * p.ch + k];
              /* TF takes the gradient as T first: a double image's products are double */
              double w = acc_dt == TFC_DT_DOUBLE ? (double)v * ys[y].w[i] * xs[xx].w[j]
                                                 : (double)(v * ys[y].w[i] * xs[xx].w[j]);
              *d = tfc_image_accumulate(acc_dt, *d, w);
            }
        }
  tfc_image_store(out, acc);
  free(acc);
  free(ys);
  free(xs);
  return TFC_OK;
}

/* ---- area ---- */

/* The overlap of input cell i with [lo, hi) where lo <= i < ceil(hi), as TF weighs it: a cell
 * wholly inside weighs 1, one that holds the whole span weighs s. */
static float area_weight(int64_t i, float lo, float hi, float s) {
  if ((float)i < lo) return (float)(i + 1) > hi ? s : (float)(i + 1) - lo;
  return (float)(i + 1) > hi ? hi - (float)i : 1.0f;
}

static int resize_area_compute(tfc_kernel_ctx *c) {
  tfc_resize_plan p;
  TFC_TRY(tfc_resize_plan_of(c, 0, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  float *x = tfc_image_floats(c, c->inputs[0]);
  if (!x) return c->status->code;
  float *o = out->data;
  float inv = (float)(1.0 / (double)(p.h_scale * p.w_scale));
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      float y0 = (float)y * p.h_scale, y1 = (float)(y + 1) * p.h_scale;
      int64_t ys = (int64_t)floorf(y0), ye = (int64_t)ceilf(y1);
      for (int64_t xx = 0; xx < p.out_w; xx++) {
        float x0 = (float)xx * p.w_scale, x1 = (float)(xx + 1) * p.w_scale;
        int64_t xs = (int64_t)floorf(x0), xe = (int64_t)ceilf(x1);
        for (int64_t k = 0; k < p.ch; k++) {
          float sum = 0;
          for (int64_t i = ys; i < ye; i++) {
            const float *r = x + (b * p.in_h + tfc_image_clamp_index((double)i, p.in_h)) * p.in_w * p.ch;
            float sum_y = 0;
            for (int64_t j = xs; j < xe; j++) {
              float v = r[tfc_image_clamp_index((double)j, p.in_w) * p.ch + k];
              /* TF multiplies only the end cells by their weight; the inner ones weigh 1. */
              sum_y += (j == xs || j == xe - 1) ? v * area_weight(j, x0, x1, p.w_scale) : v;
            }
            sum += sum_y * area_weight(i, y0, y1, p.h_scale);
          }
          o[((b * p.out_h + y) * p.out_w + xx) * p.ch + k] = sum * inv;
        }
      }
    }
  free(x);
  return TFC_OK;
}

/* The types each op's kernel takes: those of its OpDef's T list, every one of which TF 2.x
 * registers a CPU kernel for (TF's kernels also take uint32 and uint64, which no OpDef lets
 * through). */
#define HALVES (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16))
#define RESIZE_TYPES                                                                                \
  (TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | \
   TFC_T(TFC_DT_UINT16) | HALVES)
#define NEAREST_GRAD_TYPES \
  (TFC_TYPES_FLOAT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT32) | HALVES)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ResizeBilinear, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_bilinear_compute},
    {.op = TFC_OP_ResizeNearestNeighbor, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_nearest_compute},
    {.op = TFC_OP_ResizeBicubic, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_bicubic_compute},
    {.op = TFC_OP_ResizeArea, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_area_compute},
    {.op = TFC_OP_ResizeBilinearGrad, .type_attr = "T", .types = TFC_TYPES_FLOAT | HALVES,
     .compute = resize_bilinear_grad_compute},
    {.op = TFC_OP_ResizeNearestNeighborGrad, .type_attr = "T", .types = NEAREST_GRAD_TYPES,
     .host_memory_in = TFC_HOST(1), .compute = resize_nearest_grad_compute},
    {.op = TFC_OP_ResizeBicubicGrad, .type_attr = "T", .types = TFC_TYPES_FLOAT, .compute = resize_bicubic_grad_compute},
};

int tfc_cpu_kernels_image_resize(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
