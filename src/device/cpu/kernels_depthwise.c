/*
 * kernels_depthwise — DepthwiseConv2dNative and its two backprops on the CPU (float, double).
 *
 * The filter is [fh, fw, C, mult]; output channel c * mult + q sums input channel c under
 * filter slice [.., .., c, q]. The layout is NHWC only, as TF's CPU kernels ("Depthwise
 * convolution on CPU is only supported for NHWC format"), with equal row and column strides
 * (TF's limit on every device). Padding is SAME, VALID or EXPLICIT (explicit_paddings, which TF
 * 2.x writes) and dilations are honoured: the checks and the geometry are conv_plan's
 * (tfc_depthwise_plan_make, shared with the GPU kernels of cuda/kernels_conv_gpu.c), so the
 * sizes and texts match Conv2D's and the GPU's.
 *
 * The float forward runs on oneDNN where it can (kernels_depthwise_dnnl.c: a grouped
 * convolution, primitives cached per node); the rest are direct loops (the filter backprop and the forward with a multiplier above 1 accumulate in
 * double; the input backprop, and the forward with multiplier 1 — MobileNet's, channels
 * innermost so each tap is one contiguous multiply-add — in T, as TF's kernels): depthwise
 * layers are memory-bound and small, and one loop nest per direction keeps the three
 * kernels the exact adjoints of each other. The forward
 * splits output rows over the intra-op pool, the input backprop splits images (each writes
 * its own slice) and the filter backprop splits input channels (each owns its filter
 * slice), so no two shards write the same element.
 */
#include <string.h>

#include "device/conv_plan.h"
#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_conv_int.h"
#include "device/cpu/kernels_depthwise.h"
#include "ops/opdef.h"

enum { DW_FWD = TFC_CONV_FWD, DW_BWD_INPUT = TFC_CONV_BWD_INPUT, DW_BWD_FILTER = TFC_CONV_BWD_FILTER };

/* The plan's geometry (oc = C * mult) and multiplier, as the loops read them. */
typedef tfc_depthwise_plan dw_geom;

typedef struct dw_job {
  const dw_geom *d;
  int dbl;
  const void *a, *b; /* FWD: x, f; BWD_INPUT: f, dy; BWD_FILTER: x, dy */
  void *out;
} dw_job;

/* The taps of output position (b, y, xx) for input channel ch and multiplier q: BODY runs
 * once per (ky, kx) inside the input, with xi the input element and fi the filter element. */
#define DW_WINDOW(BODY)                                                                        \
  for (int64_t ky = 0; ky < g->kh; ky++) {                                                     \
    int64_t sy = y * g->sh + ky * g->dh - g->pt;                                               \
    if (sy < 0 || sy >= g->ih) continue;                                                       \
    for (int64_t kx = 0; kx < g->kw; kx++) {                                                   \
      int64_t sx = xx * g->sw + kx * g->dw - g->pl;                                            \
      if (sx < 0 || sx >= g->iw) continue;                                                     \
      int64_t xi = ((b * g->ih + sy) * g->iw + sx) * g->ic + ch;                               \
      int64_t fi = ((ky * g->kw + kx) * g->ic + ch) * m_n + q;                                 \
      BODY;                                                                                    \
    }                                                                                          \
  }

#define DW_KERNELS(T, SUF)                                                                     \
  /* Output rows [begin, end) of n * oh. */                                                    \
  static void fwd_##SUF(int64_t begin, int64_t end, void *arg) {                               \
    const dw_job *j = arg;                                                                     \
    const tfc_window_geom *g = &j->d->g;                                                       \
    const T *x = j->a, *f = j->b;                                                              \
    T *out = j->out;                                                                           \
    int64_t m_n = j->d->mult;                                                                  \
    for (int64_t r = begin; r < end; r++) {                                                    \
      int64_t b = r / g->oh, y = r % g->oh;                                                    \
      for (int64_t xx = 0; xx < g->ow; xx++) {                                                 \
        T *o = out + ((b * g->oh + y) * g->ow + xx) * g->oc;                                   \
        if (m_n == 1) { /* channels innermost: one contiguous multiply-add per tap */          \
          for (int64_t ch = 0; ch < g->ic; ch++) o[ch] = 0;                                    \
          for (int64_t ky = 0; ky < g->kh; ky++) {                                             \
            int64_t sy = y * g->sh + ky * g->dh - g->pt;                                       \
            if (sy < 0 || sy >= g->ih) continue;                                               \
            for (int64_t kx = 0; kx < g->kw; kx++) {                                           \
              int64_t sx = xx * g->sw + kx * g->dw - g->pl;                                    \
              if (sx < 0 || sx >= g->iw) continue;                                             \
              const T *xp = x + ((b * g->ih + sy) * g->iw + sx) * g->ic;                       \
              const T *fp = f + (ky * g->kw + kx) * g->ic;                                     \
              for (int64_t ch = 0; ch < g->ic; ch++) o[ch] += xp[ch] * fp[ch];                 \
            }                                                                                  \
          }                                                                                    \
          continue;                                                                            \
        }                                                                                      \
        for (int64_t ch = 0; ch < g->ic; ch++)                                                 \
          for (int64_t q = 0; q < m_n; q++) {                                                  \
            double acc = 0;                                                                    \
            DW_WINDOW(acc += (double)x[xi] * (double)f[fi])                                    \
            o[ch * m_n + q] = (T)acc;                                                          \
          }                                                                                    \
      }                                                                                        \
    }                                                                                          \
  }                                                                                            \
  /* Images [begin, end): each scatters into its own slice of dx (zeroed by the caller). */    \
  static void bwd_input_##SUF(int64_t begin, int64_t end, void *arg) {                         \
    const dw_job *j = arg;                                                                     \
    const tfc_window_geom *g = &j->d->g;                                                       \
    const T *f = j->a, *dy = j->b;                                                             \
    int64_t m_n = j->d->mult;                                                                  \
    T *dx = j->out;                                                                            \
    for (int64_t b = begin; b < end; b++)                                                      \
      for (int64_t y = 0; y < g->oh; y++)                                                      \
        for (int64_t xx = 0; xx < g->ow; xx++)                                                 \
          for (int64_t ch = 0; ch < g->ic; ch++)                                               \
            for (int64_t q = 0; q < m_n; q++) {                                                \
              T d = dy[((b * g->oh + y) * g->ow + xx) * g->oc + ch * m_n + q];                 \
              DW_WINDOW(dx[xi] += d * f[fi])                                                   \
            }                                                                                  \
  }                                                                                            \
  /* Input channels [begin, end): each owns the filter taps [.., .., ch, ..]. */               \
  static void bwd_filter_##SUF(int64_t begin, int64_t end, void *arg) {                        \
    const dw_job *j = arg;                                                                     \
    const tfc_window_geom *g = &j->d->g;                                                       \
    const T *x = j->a, *dy = j->b;                                                             \
    int64_t m_n = j->d->mult;                                                                  \
    T *df = j->out;                                                                            \
    for (int64_t ch = begin; ch < end; ch++)                                                   \
      for (int64_t q = 0; q < m_n; q++)                                                        \
        for (int64_t ky = 0; ky < g->kh; ky++)                                                 \
          for (int64_t kx = 0; kx < g->kw; kx++) {                                             \
            double acc = 0;                                                                    \
            for (int64_t b = 0; b < g->n; b++)                                                 \
              for (int64_t y = 0; y < g->oh; y++) {                                            \
                int64_t sy = y * g->sh + ky * g->dh - g->pt;                                   \
                if (sy < 0 || sy >= g->ih) continue;                                           \
                for (int64_t xx = 0; xx < g->ow; xx++) {                                       \
                  int64_t sx = xx * g->sw + kx * g->dw - g->pl;                                \
                  if (sx < 0 || sx >= g->iw) continue;                                         \
                  acc += (double)x[((b * g->ih + sy) * g->iw + sx) * g->ic + ch] *             \
                         (double)dy[((b * g->oh + y) * g->ow + xx) * g->oc + ch * m_n + q];    \
                }                                                                              \
              }                                                                                \
            df[((ky * g->kw + kx) * g->ic + ch) * m_n + q] = (T)acc;                           \
          }                                                                                    \
  }

DW_KERNELS(float, f32)
DW_KERNELS(double, f64)

static int dw_compute(tfc_kernel_ctx *c, int kind) {
  dw_geom d;
  TFC_TRY(tfc_depthwise_plan_make(c, kind, 1, &d));
  const int64_t *dims = d.out_dims;
  const tfc_tensor *t0 = kind == DW_BWD_INPUT ? c->inputs[2] : c->inputs[0];
  const tfc_conv_fusion *fuse = kind == DW_FWD ? tfc_depthwise_fusion(c->state) : NULL;
  if (fuse) TFC_TRY(tfc_conv_fusion_check_bias(c, d.g.oc));
  const void *bias = fuse ? c->inputs[2]->data : NULL;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, t0->dtype, dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  const tfc_window_geom *g = &d.g;
  int dbl = t0->dtype == TFC_DT_DOUBLE;
  dw_job j = {.d = &d, .dbl = dbl, .out = out->data};
  int64_t window = g->kh * g->kw;
  switch (kind) {
    case DW_FWD:
      j.a = c->inputs[0]->data, j.b = c->inputs[1]->data;
      if (!dbl && tfc_depthwise_dnn_fwd(c, g, j.a, j.b, bias, out->data)) return c->status->code;
      tfc_kernel_parallel_for(c, g->n * g->oh, g->ow * g->oc * window, dbl ? fwd_f64 : fwd_f32, &j);
      if (fuse) tfc_conv_fusion_ref(c, fuse, t0->dtype, out->data, bias, NULL, g->n * g->oh * g->ow, g->oc, 0, 0);
      break;
    case DW_BWD_INPUT:
      memset(out->data, 0, (size_t)out->n_elems * (dbl ? sizeof(double) : sizeof(float)));
      j.a = c->inputs[1]->data, j.b = c->inputs[2]->data;
      tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->oc * window, dbl ? bwd_input_f64 : bwd_input_f32, &j);
      break;
    default:
      j.a = c->inputs[0]->data, j.b = c->inputs[2]->data;
      tfc_kernel_parallel_for(c, g->ic, g->n * g->oh * g->ow * d.mult * window, dbl ? bwd_filter_f64 : bwd_filter_f32,
                              &j);
  }
  return TFC_OK;
}

static int fwd_compute(tfc_kernel_ctx *c) { return dw_compute(c, DW_FWD); }
static int bwd_input_compute(tfc_kernel_ctx *c) { return dw_compute(c, DW_BWD_INPUT); }
static int bwd_filter_compute(tfc_kernel_ctx *c) { return dw_compute(c, DW_BWD_FILTER); }

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_DepthwiseConv2dNative, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = tfc_depthwise_dnn_init, .compute = fwd_compute, .free_state = tfc_depthwise_dnn_free},
    {.op = TFC_OP__FusedDepthwiseConv2dNative, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = tfc_depthwise_dnn_init, .compute = fwd_compute, .free_state = tfc_depthwise_dnn_free},
    {.op = TFC_OP_DepthwiseConv2dNativeBackpropInput, .type_attr = "T", .types = TFC_TYPES_FLOAT,
     .host_memory_in = TFC_HOST(0), .flags = TFC_KF_EXPENSIVE, .compute = bwd_input_compute},
    {.op = TFC_OP_DepthwiseConv2dNativeBackpropFilter, .type_attr = "T", .types = TFC_TYPES_FLOAT,
     .host_memory_in = TFC_HOST(1), .flags = TFC_KF_EXPENSIVE, .compute = bwd_filter_compute},
};

int tfc_cpu_kernels_depthwise(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
