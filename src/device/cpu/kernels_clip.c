/*
 * kernels_clip — ClipByValue on the CPU: min(max(t, lo), hi) element-wise, lo and hi each a
 * scalar or of t's shape (TF's kernel: no other broadcasting), for the real types. As TF's,
 * lo > hi is not checked: the result is then hi.
 */
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/nn_plan.h"
#include "ops/opdef.h"

#define CLIP_LOOP(T)                                                                          \
  do {                                                                                        \
    const T *x = t->data, *l = lo->data, *h = hi->data;                                       \
    T *y = out->data;                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                         \
      T v = x[i], a = l[i * sl], b = h[i * sh];                                               \
      v = v < a ? a : v;                                                                      \
      y[i] = v > b ? b : v;                                                                   \
    }                                                                                         \
  } while (0)

static int clip_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *t = c->inputs[0], *lo = c->inputs[1], *hi = c->inputs[2];
  TFC_TRY(tfc_clip_check(c));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, t->dtype, t->dims, t->ndims);
  if (!out) return c->status->code;
  int64_t n = t->n_elems, sl = lo->ndims ? 1 : 0, sh = hi->ndims ? 1 : 0;
  switch (t->dtype) {
    case TFC_DT_FLOAT: CLIP_LOOP(float); break;
    case TFC_DT_DOUBLE: CLIP_LOOP(double); break;
    case TFC_DT_INT32: CLIP_LOOP(int32_t); break;
    case TFC_DT_INT64: CLIP_LOOP(int64_t); break;
    case TFC_DT_UINT8: CLIP_LOOP(uint8_t); break;
    case TFC_DT_INT8: CLIP_LOOP(int8_t); break;
    case TFC_DT_INT16: CLIP_LOOP(int16_t); break;
    case TFC_DT_UINT16: CLIP_LOOP(uint16_t); break;
    default: return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "ClipByValue for %s", tfc_dtype_name(t->dtype));
  }
  return TFC_OK;
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ClipByValue, .type_attr = "T", .types = TFC_TYPES_REAL, .compute = clip_compute},
};

int tfc_cpu_kernels_clip(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
