/*
 * kernels_image — the CPU image family's entry point: registers the geometry sub-families
 * (resizes in kernels_image_resize.c, CropAndResize in kernels_image_crop.c, the
 * NonMaxSuppression family in kernels_image_nms.c), holds the element conversions they share
 * (kernels_image.h), and DepthwiseConv2dNative: NHWC only (TF's CPU kernel too), float and
 * double, strides, dilations and SAME/VALID padding; a direct loop accumulating in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/philox.h"
#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_image.h"
#include "ops/opdef.h"

float *tfc_image_floats(tfc_kernel_ctx *c, const tfc_tensor *t) {
  float *f = malloc(sizeof(float) * (size_t)(t->n_elems > 0 ? t->n_elems : 1));
  if (!f) {
    TFC_OOM(c->status);
    return NULL;
  }
  for (int64_t i = 0; i < t->n_elems; i++) {
    switch (t->dtype) {
      case TFC_DT_FLOAT: f[i] = ((const float *)t->data)[i]; break;
      case TFC_DT_DOUBLE: f[i] = (float)((const double *)t->data)[i]; break;
      case TFC_DT_HALF: f[i] = tfc_half_to_float(((const uint16_t *)t->data)[i]); break;
      case TFC_DT_BFLOAT16: f[i] = tfc_bfloat16_to_float(((const uint16_t *)t->data)[i]); break;
      default: f[i] = (float)tfc_tensor_get_i64(t, i); break;
    }
  }
  return f;
}

void tfc_image_store(tfc_tensor *t, const double *v) {
  for (int64_t i = 0; i < t->n_elems; i++) {
    switch (t->dtype) {
      case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v[i]; break;
      case TFC_DT_DOUBLE: ((double *)t->data)[i] = v[i]; break;
      case TFC_DT_HALF: ((uint16_t *)t->data)[i] = tfc_philox_float_to_half((float)v[i]); break;
      case TFC_DT_BFLOAT16: ((uint16_t *)t->data)[i] = tfc_philox_float_to_bfloat16((float)v[i]); break;
      case TFC_DT_INT8: ((int8_t *)t->data)[i] = (int8_t)v[i]; break;
      case TFC_DT_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v[i]; break;
      case TFC_DT_INT16: ((int16_t *)t->data)[i] = (int16_t)v[i]; break;
      case TFC_DT_UINT16: ((uint16_t *)t->data)[i] = (uint16_t)v[i]; break;
      case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v[i]; break;
      case TFC_DT_INT64: ((int64_t *)t->data)[i] = (int64_t)v[i]; break;
      default: break;
    }
  }
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

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_DepthwiseConv2dNative, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .compute = depthwise_compute},
};

int tfc_cpu_kernels_image(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_cpu_kernels_image_resize(t, s));
  TFC_TRY(tfc_cpu_kernels_image_crop(t, s));
  TFC_TRY(tfc_cpu_kernels_image_nms(t, s));
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
