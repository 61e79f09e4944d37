/*
 * kernels_image — ResizeBilinear (float output) and ResizeNearestNeighbor on the CPU, with
 * TF's sampling: scale = in / out, or (in - 1) / (out - 1) with align_corners; source
 * coordinates out * scale, or (out + 0.5) * scale - 0.5 with half_pixel_centers (nearest:
 * (out + 0.5) * scale, rounded with align_corners, floored otherwise). Bilinear weights are
 * computed in float as TF's. Errors (INVALID_ARGUMENT, TF's texts): "input must be
 * 4-dimensional[2,2]", "size must be 1-dimensional[...]", "size must have two elements",
 * "output dimensions must be positive". All numeric input types.
 * DepthwiseConv2dNative: NHWC only (TF's CPU kernel too), float and double, strides,
 * dilations and SAME/VALID padding; float on oneDNN (kernels_depthwise_dnnl.c), double and what
 * that declines in a direct loop accumulating in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_depthwise.h"
#include "ops/opdef.h"

typedef struct resize_plan {
  int64_t batch, in_h, in_w, ch, out_h, out_w;
  float h_scale, w_scale;
  int align, half;
} resize_plan;

static float scale_of(int64_t in, int64_t out, int align) {
  return align && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
}

static int plan_of(tfc_kernel_ctx *c, resize_plan *p) {
  const tfc_tensor *x = c->inputs[0], *size = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if (x->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be 4-dimensional%s", tfc_tensor_shape_str(x, a, sizeof a));
  if (size->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape_t must be 1-dimensional%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  if (size->n_elems != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape_t must have two elements%s",
                            tfc_tensor_shape_str(size, a, sizeof a));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "align_corners", &p->align, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "half_pixel_centers", &p->half, c->status));
  if (p->align && p->half)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "If half_pixel_centers is True, align_corners must be False.");
  p->batch = x->dims[0];
  p->in_h = x->dims[1];
  p->in_w = x->dims[2];
  p->ch = x->dims[3];
  p->out_h = ((const int32_t *)size->data)[0];
  p->out_w = ((const int32_t *)size->data)[1];
  if (p->out_h <= 0 || p->out_w <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output dimensions must be positive");
  if ((p->in_h == 0 || p->in_w == 0) && p->batch > 0 && p->ch > 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be of non-zero size");
  p->h_scale = scale_of(p->in_h, p->out_h, p->align);
  p->w_scale = scale_of(p->in_w, p->out_w, p->align);
  return TFC_OK;
}

static double in_at(const tfc_tensor *x, int64_t i) {
  return x->dtype == TFC_DT_FLOAT ? ((const float *)x->data)[i] : tfc_tensor_get_f64(x, i);
}

typedef struct lerp {
  int64_t lo, hi;
  float w;
} lerp;

static void weights(lerp *l, int64_t out, int64_t in, float scale, int half) {
  for (int64_t i = 0; i < out; i++) {
    float v = half ? ((float)i + 0.5f) * scale - 0.5f : (float)i * scale;
    float f = floorf(v);
    l[i].lo = f > 0 ? (int64_t)f : 0;
    int64_t hi = (int64_t)ceilf(v);
    l[i].hi = hi < in - 1 ? hi : in - 1;
    l[i].w = v - f;
  }
}

static int resize_bilinear_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  resize_plan p;
  TFC_TRY(plan_of(c, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  lerp *ys = malloc(sizeof(lerp) * (size_t)p.out_h), *xs = malloc(sizeof(lerp) * (size_t)p.out_w);
  if (!ys || !xs) {
    free(ys);
    free(xs);
    return TFC_OOM(c->status);
  }
  weights(ys, p.out_h, p.in_h, p.h_scale, p.half);
  weights(xs, p.out_w, p.in_w, p.w_scale, p.half);
  float *o = out->data;
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++)
      for (int64_t xx = 0; xx < p.out_w; xx++)
        for (int64_t k = 0; k < p.ch; k++) {
          int64_t base = b * p.in_h;
          float tl = (float)in_at(x, ((base + ys[y].lo) * p.in_w + xs[xx].lo) * p.ch + k);
          float tr = (float)in_at(x, ((base + ys[y].lo) * p.in_w + xs[xx].hi) * p.ch + k);
          float bl = (float)in_at(x, ((base + ys[y].hi) * p.in_w + xs[xx].lo) * p.ch + k);
          float br = (float)in_at(x, ((base + ys[y].hi) * p.in_w + xs[xx].hi) * p.ch + k);
          float top = tl + (tr - tl) * xs[xx].w, bottom = bl + (br - bl) * xs[xx].w;
          o[((b * p.out_h + y) * p.out_w + xx) * p.ch + k] = top + (bottom - top) * ys[y].w;
        }
  free(ys);
  free(xs);
  return TFC_OK;
}

static int64_t nearest(int64_t i, float scale, int64_t in, int align, int half) {
  float v = half ? ((float)i + 0.5f) * scale : (float)i * scale;
  int64_t r = align ? (int64_t)roundf(v) : (int64_t)floorf(v);
  if (r > in - 1) r = in - 1;
  if (half && r < 0) r = 0;
  return r;
}

static int resize_nearest_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  resize_plan p;
  TFC_TRY(plan_of(c, &p));
  int64_t dims[4] = {p.batch, p.out_h, p.out_w, p.ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, 4);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(x->dtype);
  for (int64_t b = 0; b < p.batch; b++)
    for (int64_t y = 0; y < p.out_h; y++) {
      int64_t sy = nearest(y, p.h_scale, p.in_h, p.align, p.half);
      for (int64_t xx = 0; xx < p.out_w; xx++) {
        int64_t sx = nearest(xx, p.w_scale, p.in_w, p.align, p.half);
        memcpy((char *)out->data + (size_t)(((b * p.out_h + y) * p.out_w + xx) * p.ch) * es,
               (const char *)x->data + (size_t)(((b * p.in_h + sy) * p.in_w + sx) * p.ch) * es, (size_t)p.ch * es);
      }
    }
  return TFC_OK;
}

/* ---- DepthwiseConv2dNative (NHWC) ---- */

static int attr4(tfc_kernel_ctx *c, const char *name, int64_t *out) {
  const tfc_attr_value *v = tfc_node_attr(c->node, name);
  if (!v || v->kind != TFC_ATTR_LIST || v->u.list.n != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Sliding window %s field must specify 4 dimensions", name);
  for (int i = 0; i < 4; i++) out[i] = v->u.list.items[i].u.i;
  return TFC_OK;
}

static int depthwise_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *f = c->inputs[1];
  const char *fmt, *pad;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  TFC_TRY(tfc_kernel_attr_string(c->node, "data_format", &fmt, c->status));
  TFC_TRY(tfc_kernel_attr_string(c->node, "padding", &pad, c->status));
  if (strcmp(fmt, "NHWC"))
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Depthwise convolution on CPU is only supported for NHWC format");
  int64_t st[4], dil[4];
  TFC_TRY(attr4(c, "strides", st));
  TFC_TRY(attr4(c, "dilations", dil));
  if (st[0] != 1 || st[3] != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (x->ndims != 4 || f->ndims != 4 || x->dims[3] != f->dims[2])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "input and filter must be 4-dimensional with input depth equal to filter's in_depth: %s vs. %s",
                            tfc_tensor_shape_str(x, a, sizeof a), tfc_tensor_shape_str(f, b, sizeof b));
  int same = !strcmp(pad, "SAME");
  int64_t n = x->dims[0], ih = x->dims[1], iw = x->dims[2], ic = x->dims[3];
  int64_t fh = f->dims[0], fw = f->dims[1], mult = f->dims[3];
  int64_t eh = (fh - 1) * dil[1] + 1, ew = (fw - 1) * dil[2] + 1;
  int64_t oh = same ? (ih + st[1] - 1) / st[1] : (ih - eh + st[1]) / st[1];
  int64_t ow = same ? (iw + st[2] - 1) / st[2] : (iw - ew + st[2]) / st[2];
  if (oh < 0) oh = 0;
  if (ow < 0) ow = 0;
  int64_t ph = same ? ((oh - 1) * st[1] + eh - ih) / 2 : 0, pw = same ? ((ow - 1) * st[2] + ew - iw) / 2 : 0;
  if (ph < 0) ph = 0;
  if (pw < 0) pw = 0;
  int64_t dims[4] = {n, oh, ow, ic * mult};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, 4);
  if (!out) return c->status->code;
  int dbl = x->dtype == TFC_DT_DOUBLE;
  int64_t pb = (oh - 1) * st[1] + eh - ih - ph, pr = (ow - 1) * st[2] + ew - iw - pw;
  tfc_window_geom g = {n, ih, iw, ic, fh, fw, ic * mult, oh, ow, st[1], st[2], dil[1], dil[2], ph, pb > 0 ? pb : 0,
                       pw, pr > 0 ? pr : 0, 0};
  if (!dbl && tfc_depthwise_dnn_fwd(c, &g, x->data, f->data, out->data)) return c->status->code;
  for (int64_t bi = 0; bi < n; bi++)
    for (int64_t y = 0; y < oh; y++)
      for (int64_t xx = 0; xx < ow; xx++)
        for (int64_t ch = 0; ch < ic; ch++)
          for (int64_t m = 0; m < mult; m++) {
            double acc = 0;
            for (int64_t ky = 0; ky < fh; ky++) {
              int64_t sy = y * st[1] + ky * dil[1] - ph;
              if (sy < 0 || sy >= ih) continue;
              for (int64_t kx = 0; kx < fw; kx++) {
                int64_t sx = xx * st[2] + kx * dil[2] - pw;
                if (sx < 0 || sx >= iw) continue;
                int64_t xi = ((bi * ih + sy) * iw + sx) * ic + ch, fi = ((ky * fw + kx) * ic + ch) * mult + m;
                acc += dbl ? ((const double *)x->data)[xi] * ((const double *)f->data)[fi]
                           : (double)((const float *)x->data)[xi] * ((const float *)f->data)[fi];
              }
            }
            int64_t o = ((bi * oh + y) * ow + xx) * ic * mult + ch * mult + m;
            if (dbl) ((double *)out->data)[o] = acc;
            else ((float *)out->data)[o] = (float)acc;
          }
  return TFC_OK;
}

#define RESIZE_TYPES                                                                               \
  (TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | \
   TFC_T(TFC_DT_UINT16))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ResizeBilinear, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_bilinear_compute},
    {.op = TFC_OP_ResizeNearestNeighbor, .type_attr = "T", .types = RESIZE_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = resize_nearest_compute},
    {.op = TFC_OP_DepthwiseConv2dNative, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = tfc_depthwise_dnn_init, .compute = depthwise_compute, .free_state = tfc_depthwise_dnn_free},
};

int tfc_cpu_kernels_image(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
