/*
 * kernels_image — the CPU image family's entry point: registers the geometry sub-families
 * (resizes in kernels_image_resize.c, CropAndResize in kernels_image_crop.c, the
 * NonMaxSuppression family in kernels_image_nms.c, ScaleAndTranslate in kernels_image_scale.c), holds the element conversions, the
 * accumulation in T and the index clamp they share (kernels_image.h). DepthwiseConv2dNative, once here, lives with its backprops in
 * kernels_depthwise.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_image.h"
#include "ops/opdef.h"

double tfc_image_value(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_HALF: return tfc_half_to_float(((const uint16_t *)t->data)[i]);
    case TFC_DT_BFLOAT16: return tfc_bfloat16_to_float(((const uint16_t *)t->data)[i]);
    default: return tfc_tensor_get_f64(t, i);
  }
}

float *tfc_image_floats(tfc_kernel_ctx *c, const tfc_tensor *t) {
  float *f = malloc(sizeof(float) * (size_t)(t->n_elems > 0 ? t->n_elems : 1));
  if (!f) {
    TFC_OOM(c->status);
    return NULL;
  }
  /* int64 straight to float (one rounding, as TF's cast); the rest are exact as doubles */
  for (int64_t i = 0; i < t->n_elems; i++)
    f[i] = t->dtype == TFC_DT_INT64 ? (float)tfc_tensor_get_i64(t, i) : (float)tfc_image_value(t, i);
  return f;
}

double tfc_image_accumulate(int dtype, double acc, double v) {
  switch (dtype) {
    case TFC_DT_DOUBLE: return acc + v;
    case TFC_DT_HALF: {
      float h = tfc_half_to_float(tfc_float_to_half((float)v));
      return tfc_half_to_float(tfc_float_to_half((float)acc + h));
    }
    case TFC_DT_BFLOAT16: {
      float h = tfc_bfloat16_to_float(tfc_float_to_bfloat16((float)v));
      return tfc_bfloat16_to_float(tfc_float_to_bfloat16((float)acc + h));
    }
    /* integer sums wrap as C++'s do on two's complement: through the unsigned type of the width */
    case TFC_DT_INT8: return (int8_t)(uint8_t)((int64_t)acc + (int64_t)v);
    case TFC_DT_UINT8: return (uint8_t)((int64_t)acc + (int64_t)v);
    case TFC_DT_INT16: return (int16_t)(uint16_t)((int64_t)acc + (int64_t)v);
    case TFC_DT_UINT16: return (uint16_t)((int64_t)acc + (int64_t)v);
    case TFC_DT_INT32: return (int32_t)(uint32_t)((int64_t)acc + (int64_t)v);
    case TFC_DT_INT64: return (double)(int64_t)((uint64_t)(int64_t)acc + (uint64_t)(int64_t)v);
    default: return (float)((float)acc + (float)v);
  }
}

int64_t tfc_image_clamp_index(double v, int64_t n) {
  if (!(v > 0)) return 0;
  if (v >= (double)(n - 1)) return n - 1;
  return (int64_t)v;
}

void tfc_image_store(tfc_tensor *t, const double *v) {
  for (int64_t i = 0; i < t->n_elems; i++) {
    switch (t->dtype) {
      case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v[i]; break;
      case TFC_DT_DOUBLE: ((double *)t->data)[i] = v[i]; break;
      case TFC_DT_HALF: ((uint16_t *)t->data)[i] = tfc_float_to_half((float)v[i]); break;
      case TFC_DT_BFLOAT16: ((uint16_t *)t->data)[i] = tfc_float_to_bfloat16((float)v[i]); break;
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

int tfc_cpu_kernels_image(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_cpu_kernels_image_resize(t, s));
  TFC_TRY(tfc_cpu_kernels_image_crop(t, s));
  TFC_TRY(tfc_cpu_kernels_image_nms(t, s));
  return tfc_cpu_kernels_image_scale(t, s);
}
