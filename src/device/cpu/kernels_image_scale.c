/*
 * kernels_image_scale — ScaleAndTranslate and ScaleAndTranslateGrad on the CPU: TF 2.x's
 * separable resampling with a named kernel, which tf.image.resize writes for the lanczos3,
 * lanczos5, gaussian and mitchellcubic methods and, with antialias=True, for bilinear
 * ("triangle") and bicubic ("keyscubic").
 *
 * Sampling, per axis, in float as TF's kernel: inv = 1 / scale, output pixel x samples the
 * input at s = (x + 0.5) * inv - translation * inv. With antialias and inv > 1 (shrinking) the
 * kernel is stretched by k = inv (else k = 1). A sample outside [0, in] gets no taps (the output
 * is 0); otherwise the taps are the input pixels i in [ceil(s - r*k - 0.5), floor(s + r*k - 0.5)]
 * clamped to the image, weighed kernel(|i + 0.5 - s| / k) and normalised to sum 1 (left 0 when
 * the sum is about 0). Radii r and kernels: lanczos1/3/5 (r = 1, 3, 5; the windowed sinc, 1
 * within 1e-3 of 0), gaussian (r = 1.5, sigma 0.5), box (r = 1; 1 inside 0.5, 0.5 at it),
 * triangle (r = 1), keyscubic (Keys, a = -0.5, r = 2), mitchellcubic (B = C = 1/3, r = 2).
 * The forward pass filters the rows (height) first into a [batch, out_h, in_w, channels] float
 * buffer, then the columns; the inputs read as float whatever T is. The gradient is the adjoint:
 * the same spans scatter the incoming gradient back, rows then columns, each input pixel
 * summing its contributions in increasing output order, as TF's reversed spans do.
 *
 * Errors (INVALID_ARGUMENT, TF's texts): "Unrecognized kernel type: <name>", "input must be
 * 4-dimensional[...]", "output_shape_t must be 1-dimensional[...]", "output_shape_t must have
 * two elements[...]", "input sizes must be between 0 and max int32", "output dimensions must be
 * positive", "image must have at least one channel", "input image must be of non-zero size", "t must be 1-dimensional[...]" and "t must
 * have two elements[...]" (scale and translation), "Scale must be greater than zero."; the
 * gradient's "input_grad must be 4-dimensional[...]", "original_image must be
 * 4-dimensional[...]" and "original sizes must be between 0 and max int32". A scale so small
 * or a translation so large that a tap index leaves int64's range is clamped before it becomes
 * an index (tfc_image_clamp_index; an infinite or NaN sample position takes no taps).
 *
 * Ownership: the kernels allocate their outputs through the context and free every temporary
 * (the float copy of the images, the spans, the row pass's buffer) before returning; out of
 * memory is RESOURCE_EXHAUSTED.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_image.h"
#include "device/resize_plan.h"
#include "ops/opdef.h"

enum { K_LANCZOS, K_GAUSSIAN, K_BOX, K_TRIANGLE, K_KEYS, K_MITCHELL };

typedef struct sampler {
  int kind;
  float radius;
} sampler;

/* The kernel_type attr's sampler; INVALID_ARGUMENT with TF's text for another name. */
static int sampler_of(tfc_kernel_ctx *c, sampler *k) {
  static const struct {
    const char *name;
    int kind;
    float radius;
  } names[] = {{"lanczos1", K_LANCZOS, 1}, {"lanczos3", K_LANCZOS, 3},  {"lanczos5", K_LANCZOS, 5},
               {"gaussian", K_GAUSSIAN, 1.5f}, {"box", K_BOX, 1},       {"triangle", K_TRIANGLE, 1},
               {"keyscubic", K_KEYS, 2},     {"mitchellcubic", K_MITCHELL, 2}};
  const char *name = "lanczos3";
  if (tfc_node_attr(c->node, "kernel_type")) TFC_TRY(tfc_kernel_attr_string(c->node, "kernel_type", &name, c->status));
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(names[i].name, name)) {
      k->kind = names[i].kind;
      k->radius = names[i].radius;
      return TFC_OK;
    }
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unrecognized kernel type: %s", name);
}

static float sample(const sampler *k, float x) {
  x = fabsf(x);
  switch (k->kind) {
    case K_LANCZOS: {
      const float pi = 3.14159265359f;
      if (x > k->radius) return 0.0f;
      if (x <= 1e-3f) return 1.0f;
      return k->radius * sinf(pi * x) * sinf(pi * x / k->radius) / (pi * pi * x * x);
    }
    case K_GAUSSIAN: {
      const float sigma = k->radius / 3.0f;
      if (x >= k->radius) return 0.0f;
      return (float)exp(-x * x / (2.0 * sigma * sigma));
    }
    case K_BOX: return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case K_TRIANGLE: return x < 1.0f ? 1.0f - x : 0.0f;
    case K_KEYS:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    default: /* K_MITCHELL */
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
}

/* One axis: output pixel o reads input pixels start[o] + [0, size) with weights w[o * size + j]
 * (0 past the pixel's own taps). */
typedef struct spans {
  int64_t size;
  int64_t *start;
  float *w;
} spans;

static void spans_free(spans *s) {
  free(s->start);
  free(s->w);
}

/* Fills s for out pixels from in; RESOURCE_EXHAUSTED when out of memory (s then holds nothing). */
static int spans_of(tfc_kernel_ctx *c, const sampler *k, int64_t out, int64_t in, float scale, float translate,
                    int antialias, spans *s) {
  const float inv = (float)(1.0 / (double)scale);
  const float inv_translate = -inv * translate;
  const float kscale = antialias && inv > 1.0f ? inv : 1.0f;
  const float reach = k->radius * kscale;
  /* compared in float first: a huge reach (a tiny scale) must not overflow the conversion */
  s->size = 2.0f * ceilf(reach) + 1.0f < (float)in ? 2 * (int64_t)ceilf(reach) + 1 : in;
  s->start = calloc((size_t)(out > 0 ? out : 1), sizeof *s->start);
  s->w = calloc((size_t)(out > 0 ? out : 1) * (size_t)s->size, sizeof *s->w);
  float *tmp = malloc(sizeof(float) * (size_t)s->size);
  if (!s->start || !s->w || !tmp) {
    spans_free(s);
    free(tmp);
    s->start = NULL;
    s->w = NULL;
    return TFC_OOM(c->status);
  }
  const float inv_k = 1.0f / kscale;
  for (int64_t o = 0; o < out; o++) {
    const float at = ((float)o + 0.5f) * inv + inv_translate;
    if (!(at >= 0 && at <= (float)in)) continue; /* outside the image (or NaN): no taps */
    /* clamped before it becomes an index: the span's ends may be far out of int64's range */
    const int64_t lo = tfc_image_clamp_index(ceilf(at - reach - 0.5f), in);
    const int64_t hi = tfc_image_clamp_index(floorf(at + reach - 0.5f), in) + 1;
    float sum = 0.0f;
    int64_t n = 0;
    for (int64_t i = lo; i < hi && n < s->size; i++, n++) {
      tmp[n] = sample(k, ((float)i + 0.5f - at) * inv_k);
      sum += tmp[n];
    }
    s->start[o] = lo;
    if (fabsf(sum) >= 1000.0f * FLT_MIN) {
      const float norm = 1.0f / sum;
      for (int64_t j = 0; j < n; j++) s->w[o * s->size + j] = tmp[j] * norm;
    }
  }
  free(tmp);
  return TFC_OK;
}

/* Input `idx` (scale or translation): a float vector of two; TF's text otherwise. */
static int pair_of(tfc_kernel_ctx *c, int idx, float v[2]) {
  const tfc_tensor *t = c->inputs[idx];
  char a[TFC_SHAPE_STR_MAX];
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "t must be 1-dimensional%s", tfc_tensor_shape_str(t, a, sizeof a));
  if (t->n_elems != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "t must have two elements%s",
                            tfc_tensor_shape_str(t, a, sizeof a));
  v[0] = ((const float *)t->data)[0];
  v[1] = ((const float *)t->data)[1];
  return TFC_OK;
}

/* scale (input 2) and translation (input 3), row then column. */
static int transform_of(tfc_kernel_ctx *c, float scale[2], float translate[2]) {
  TFC_TRY(pair_of(c, 2, scale));
  if (!(scale[0] > 0 && scale[1] > 0))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Scale must be greater than zero.");
  return pair_of(c, 3, translate);
}

/* Gathers through the spans: out[b][o][m] = sum_j w[o][j] * in[b][start[o] + j][m], m running over
 * the `inner` floats of one row; in has `rows_in` rows per batch, out `rows_out`. */
static void gather(const spans *s, const float *in, int64_t batch, int64_t rows_in, int64_t rows_out, int64_t inner,
                   float *out) {
  for (int64_t b = 0; b < batch; b++)
    for (int64_t o = 0; o < rows_out; o++) {
      float *dst = out + (b * rows_out + o) * inner;
      for (int64_t m = 0; m < inner; m++) dst[m] = 0.0f;
      int64_t n = rows_in - s->start[o] < s->size ? rows_in - s->start[o] : s->size;
      for (int64_t j = 0; j < n; j++) {
        const float w = s->w[o * s->size + j];
        const float *src = in + (b * rows_in + s->start[o] + j) * inner;
        for (int64_t m = 0; m < inner; m++) dst[m] += w * src[m];
      }
    }
}

/* The adjoint of gather: out[b][start[o] + j][m] += w[o][j] * in[b][o][m] over o in order (out
 * zeroed first); in has `rows_out` rows per batch (the forward's output), out `rows_in`. */
static void scatter(const spans *s, const float *in, int64_t batch, int64_t rows_in, int64_t rows_out, int64_t inner,
                    float *out) {
  memset(out, 0, sizeof(float) * (size_t)(batch * rows_in * inner));
  for (int64_t b = 0; b < batch; b++)
    for (int64_t o = 0; o < rows_out; o++) {
      const float *src = in + (b * rows_out + o) * inner;
      for (int64_t j = 0; j < s->size && s->start[o] + j < rows_in; j++) {
        const float w = s->w[o * s->size + j];
        if (w == 0.0f) continue;
        float *dst = out + (b * rows_in + s->start[o] + j) * inner;
        for (int64_t m = 0; m < inner; m++) dst[m] += w * src[m];
      }
    }
}

/* Runs the separable pass over [batch, h, w, ch] float x: rows through `ry` from h to h2, then
 * columns through `rx` from w to w2, into out ([batch, h2, w2, ch]); grad: the adjoint passes
 * (ry and rx map h2 -> h and w2 -> w in the forward sense). */
static int separable(tfc_kernel_ctx *c, const spans *ry, const spans *rx, const float *x, int64_t batch, int64_t h,
                     int64_t w, int64_t h2, int64_t w2, int64_t ch, int grad, float *out) {
  float *mid = malloc(sizeof(float) * (size_t)(batch * h2 * w * ch > 0 ? batch * h2 * w * ch : 1));
  if (!mid) return TFC_OOM(c->status);
  if (grad)
    scatter(ry, x, batch, h2, h, w * ch, mid);
  else
    gather(ry, x, batch, h, h2, w * ch, mid);
  /* columns: each of the batch * h2 rows is a "batch" of w pixels of ch floats */
  if (grad)
    scatter(rx, mid, batch * h2, w2, w, ch, out);
  else
    gather(rx, mid, batch * h2, w, w2, ch, out);
  free(mid);
  return TFC_OK;
}

static int scale_and_translate_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  sampler k;
  int antialias = 1;
  TFC_TRY(sampler_of(c, &k));
  if (tfc_node_attr(c->node, "antialias")) TFC_TRY(tfc_kernel_attr_bool(c->node, "antialias", &antialias, c->status));
  int64_t out_h, out_w;
  TFC_TRY(tfc_resize_sizes_of(c, x, "output_shape_t", &out_h, &out_w));
  const int64_t batch = x->dims[0], in_h = x->dims[1], in_w = x->dims[2], ch = x->dims[3];
  if (in_h > INT32_MAX || in_w > INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input sizes must be between 0 and max int32");
  if (out_h <= 0 || out_w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output dimensions must be positive");
  if (ch <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "image must have at least one channel");
  if (in_h <= 0 || in_w <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input image must be of non-zero size");
  float scale[2], translate[2];
  TFC_TRY(transform_of(c, scale, translate));
  int64_t dims[4] = {batch, out_h, out_w, ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  spans ry = {0}, rx = {0};
  float *xf = tfc_image_floats(c, x);
  int rc = xf ? TFC_OK : c->status->code;
  if (!rc) rc = spans_of(c, &k, out_w, in_w, scale[1], translate[1], antialias, &rx);
  if (!rc) rc = spans_of(c, &k, out_h, in_h, scale[0], translate[0], antialias, &ry);
  if (!rc) rc = separable(c, &ry, &rx, xf, batch, in_h, in_w, out_h, out_w, ch, 0, (float *)out->data);
  spans_free(&ry);
  spans_free(&rx);
  free(xf);
  return rc;
}

static int scale_and_translate_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0], *orig = c->inputs[1];
  sampler k;
  int antialias = 1;
  TFC_TRY(sampler_of(c, &k));
  if (tfc_node_attr(c->node, "antialias")) TFC_TRY(tfc_kernel_attr_bool(c->node, "antialias", &antialias, c->status));
  char a[TFC_SHAPE_STR_MAX];
  if (g->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input_grad must be 4-dimensional%s",
                            tfc_tensor_shape_str(g, a, sizeof a));
  if (orig->ndims != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "original_image must be 4-dimensional%s",
                            tfc_tensor_shape_str(orig, a, sizeof a));
  const int64_t batch = g->dims[0], ch = g->dims[3], out_h = g->dims[1], out_w = g->dims[2];
  const int64_t in_h = orig->dims[1], in_w = orig->dims[2];
  if (in_h > INT32_MAX || in_w > INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "original sizes must be between 0 and max int32");
  int64_t dims[4] = {batch, in_h, in_w, ch};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, dims, 4);
  if (!out) return c->status->code;
  float scale[2], translate[2];
  TFC_TRY(transform_of(c, scale, translate));
  if (out->n_elems == 0) return TFC_OK;
  spans ry = {0}, rx = {0};
  int rc = spans_of(c, &k, out_w, in_w, scale[1], translate[1], antialias, &rx);
  if (!rc) rc = spans_of(c, &k, out_h, in_h, scale[0], translate[0], antialias, &ry);
  if (!rc) rc = separable(c, &ry, &rx, (const float *)g->data, batch, out_h, out_w, in_h, in_w, ch, 1, (float *)out->data);
  spans_free(&ry);
  spans_free(&rx);
  return rc;
}

#define SCALE_TYPES                                                                                 \
  (TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | \
   TFC_T(TFC_DT_UINT16) | TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ScaleAndTranslate, .type_attr = "T", .types = SCALE_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3), .compute = scale_and_translate_compute},
    {.op = TFC_OP_ScaleAndTranslateGrad, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT),
     .host_memory_in = TFC_HOST(2) | TFC_HOST(3), .compute = scale_and_translate_grad_compute},
};

int tfc_cpu_kernels_image_scale(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
