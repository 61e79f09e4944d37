/*
 * kernels_conv_ref — plain-C convolution and pooling: Conv2D and its backprops in double (the
 * float64 gradient checks run them; oneDNN has no f64), and pooling in float and double.
 *
 * Pooling follows TF's CPU semantics exactly: max pooling takes the first maximum of each
 * window in row-major order (TF's tie rule, which MaxPoolGrad also uses to route each
 * gradient), average pooling divides by the number of valid (unpadded) elements. MaxPoolGrad
 * runs here for float too: routing by TF's rule needs the argmax recomputed from orig_input
 * (oneDNN's workspace would tie us to its own tie rule). The workspace pair the optimizer makes
 * (optimize/pool_ws.c) records that argmax, by the same rule, one byte per pooled element in
 * the forward pass, so its gradient does not read the input again. NHWC loops keep channels
 * innermost so they vectorize.
 *
 * Work is split over the node's share of the intra-op pool: by batch where images are
 * independent, by filter tap for the filter gradient (each shard owns distinct taps), so no
 * shard writes what another writes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/simd.h"
#include "device/cpu/kernels_conv_int.h"

typedef struct ref_job {
  const tfc_window_geom *g;
  const void *a, *b;
  void *out;
  int dtype, is_max;
  int oom; /* set (atomically) by a shard that could not allocate */
} ref_job;

#define IN_OFF(g, b, y, x, ch) tfc_window_offset((g)->nchw, (g)->ih, (g)->iw, (g)->ic, b, y, x, ch)
#define OUT_OFF(g, b, y, x, ch) tfc_window_offset((g)->nchw, (g)->oh, (g)->ow, (g)->oc, b, y, x, ch)
#define F_OFF(g, y, x, i, o) ((((y) * (g)->kw + (x)) * (g)->ic + (i)) * (g)->oc + (o))

/* ---- convolution (double) ---- */

static void fwd_range(int64_t b0, int64_t b1, void *arg) {
  const ref_job *j = arg;
  const tfc_window_geom *g = j->g;
  const double *in = j->a, *f = j->b;
  double *out = j->out;
  for (int64_t b = b0; b < b1; b++)
    for (int64_t oy = 0; oy < g->oh; oy++)
      for (int64_t ox = 0; ox < g->ow; ox++)
        for (int64_t o = 0; o < g->oc; o++) {
          double acc = 0;
          for (int64_t ky = 0; ky < g->kh; ky++) {
            int64_t y = oy * g->sh - g->pt + ky * g->dh;
            if (y < 0 || y >= g->ih) continue;
            for (int64_t kx = 0; kx < g->kw; kx++) {
              int64_t x = ox * g->sw - g->pl + kx * g->dw;
              if (x < 0 || x >= g->iw) continue;
              for (int64_t i = 0; i < g->ic; i++) acc += in[IN_OFF(g, b, y, x, i)] * f[F_OFF(g, ky, kx, i, o)];
            }
          }
          out[OUT_OFF(g, b, oy, ox, o)] = acc;
        }
}

static void bwd_input_range(int64_t b0, int64_t b1, void *arg) {
  const ref_job *j = arg;
  const tfc_window_geom *g = j->g;
  const double *f = j->a, *dout = j->b;
  double *din = j->out;
  for (int64_t b = b0; b < b1; b++)
    for (int64_t oy = 0; oy < g->oh; oy++)
      for (int64_t ox = 0; ox < g->ow; ox++)
        for (int64_t ky = 0; ky < g->kh; ky++) {
          int64_t y = oy * g->sh - g->pt + ky * g->dh;
          if (y < 0 || y >= g->ih) continue;
          for (int64_t kx = 0; kx < g->kw; kx++) {
            int64_t x = ox * g->sw - g->pl + kx * g->dw;
            if (x < 0 || x >= g->iw) continue;
            for (int64_t i = 0; i < g->ic; i++) {
              double acc = 0;
              for (int64_t o = 0; o < g->oc; o++) acc += f[F_OFF(g, ky, kx, i, o)] * dout[OUT_OFF(g, b, oy, ox, o)];
              din[IN_OFF(g, b, y, x, i)] += acc;
            }
          }
        }
}

/* Items are filter taps (ky, kx). */
static void bwd_filter_range(int64_t t0, int64_t t1, void *arg) {
  const ref_job *j = arg;
  const tfc_window_geom *g = j->g;
  const double *in = j->a, *dout = j->b;
  double *df = j->out;
  for (int64_t t = t0; t < t1; t++) {
    int64_t ky = t / g->kw, kx = t % g->kw;
    for (int64_t b = 0; b < g->n; b++)
      for (int64_t oy = 0; oy < g->oh; oy++) {
        int64_t y = oy * g->sh - g->pt + ky * g->dh;
        if (y < 0 || y >= g->ih) continue;
        for (int64_t ox = 0; ox < g->ow; ox++) {
          int64_t x = ox * g->sw - g->pl + kx * g->dw;
          if (x < 0 || x >= g->iw) continue;
          for (int64_t i = 0; i < g->ic; i++) {
            double v = in[IN_OFF(g, b, y, x, i)];
            double *row = df + F_OFF(g, ky, kx, i, 0);
            for (int64_t o = 0; o < g->oc; o++) row[o] += v * dout[OUT_OFF(g, b, oy, ox, o)];
          }
        }
      }
  }
}

void tfc_conv_ref_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *in, const double *f, double *out) {
  ref_job j = {g, in, f, out, TFC_DT_DOUBLE, 0, 0};
  tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->oc * g->kh * g->kw * g->ic, fwd_range, &j);
}

void tfc_conv_ref_bwd_input(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *f, const double *dout,
                            double *din) {
  memset(din, 0, sizeof(double) * (size_t)(g->n * g->ih * g->iw * g->ic));
  ref_job j = {g, f, dout, din, TFC_DT_DOUBLE, 0, 0};
  tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->oc * g->kh * g->kw * g->ic, bwd_input_range, &j);
}

void tfc_conv_ref_bwd_filter(tfc_kernel_ctx *c, const tfc_window_geom *g, const double *in, const double *dout,
                             double *df) {
  memset(df, 0, sizeof(double) * (size_t)(g->kh * g->kw * g->ic * g->oc));
  ref_job j = {g, in, dout, df, TFC_DT_DOUBLE, 0, 0};
  tfc_kernel_parallel_for(c, g->kh * g->kw, g->n * g->oh * g->ow * g->oc * g->ic, bwd_filter_range, &j);
}

/* ---- pooling (float and double) ---- */

/* The valid window of output (oy, ox): rows [*y0, *y1), cols [*x0, *x1). */
static void window(const tfc_window_geom *g, int64_t oy, int64_t ox, int64_t *y0, int64_t *y1, int64_t *x0,
                   int64_t *x1) {
  *y0 = oy * g->sh - g->pt;
  *x0 = ox * g->sw - g->pl;
  *y1 = *y0 + g->kh < g->ih ? *y0 + g->kh : g->ih;
  *x1 = *x0 + g->kw < g->iw ? *x0 + g->kw : g->iw;
  if (*y0 < 0) *y0 = 0;
  if (*x0 < 0) *x0 = 0;
}

/* 1 when the pooling windows cover every input element exactly once (stride = size in both
 * dims, and the last window reaches the image's end): no element is left for a zero fill. */
static int pool_tiles(const tfc_window_geom *g) {
  return g->sh == g->kh && g->sw == g->kw && (g->oh - 1) * g->sh - g->pt + g->kh >= g->ih &&
         (g->ow - 1) * g->sw - g->pl + g->kw >= g->iw;
}

/* MaxPoolGrad over NHWC images [b0, b1): per window, the running maximum of each channel over
 * the window's rows (the first element stays unless one compares above it, so NaN never wins
 * after the first), the gradient of a NaN maximum to the window's first element (nothing
 * compares above NaN), and each gradient to the first element equal to its channel's maximum,
 * which is then spent (set to NaN, which equals nothing). When the windows tile the image
 * (stride = size, every element in one window: the usual 2x2/2 pooling), each element of out
 * is stored once, its gradient or zero (gradient + 0, so -0 becomes +0 as in a sum over zeros);
 * otherwise out is zeroed first and each window adds to it. The channel loops are branch-free,
 * so the compiler vectorizes them; the float function is compiled per vector unit
 * (base/simd.h) and chosen once per call. best: scratch of g->ic elements. */
#define MAXGRAD_NHWC(T, SFX, ATTR)                                                                 \
  ATTR static void maxgrad_nhwc_##SFX(const tfc_window_geom *g, const T *in, const T *grad, T *out, T *best, \
                                      int64_t b0, int64_t b1) {                                    \
    const int64_t c = g->ic;                                                                       \
    const int tiled = pool_tiles(g);                                                               \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      if (!tiled) memset(out + IN_OFF(g, b, 0, 0, 0), 0, sizeof(T) * (size_t)(g->ih * g->iw * c));  \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1;                                                                  \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          if (y1 <= y0 || x1 <= x0) continue;                                                      \
          const T *restrict gr = grad + OUT_OFF(g, b, oy, ox, 0);                                  \
          memcpy(best, in + IN_OFF(g, b, y0, x0, 0), sizeof(T) * (size_t)c);                       \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = y == y0 ? x0 + 1 : x0; x < x1; x++) {                                 \
              const T *restrict p = in + IN_OFF(g, b, y, x, 0);                                    \
              for (int64_t i = 0; i < c; i++) best[i] = p[i] > best[i] ? p[i] : best[i];           \
            }                                                                                      \
          if (tiled) {                                                                             \
            for (int64_t y = y0; y < y1; y++)                                                      \
              for (int64_t x = x0; x < x1; x++) {                                                  \
                const T *restrict p = in + IN_OFF(g, b, y, x, 0);                                  \
                T *restrict o = out + IN_OFF(g, b, y, x, 0);                                       \
                const int first = y == y0 && x == x0;                                              \
                for (int64_t i = 0; i < c; i++) {                                                  \
                  int hit = p[i] == best[i] || (first && best[i] != best[i]);                      \
                  o[i] = hit ? gr[i] + (T)0 : (T)0;                                                \
                  best[i] = hit ? (T)NAN : best[i];                                                \
                }                                                                                  \
              }                                                                                    \
            continue;                                                                              \
          }                                                                                        \
          T *restrict o0 = out + IN_OFF(g, b, y0, x0, 0);                                          \
          for (int64_t i = 0; i < c; i++) o0[i] = best[i] != best[i] ? o0[i] + gr[i] : o0[i];      \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = x0; x < x1; x++) {                                                    \
              const T *restrict p = in + IN_OFF(g, b, y, x, 0);                                    \
              T *restrict o = out + IN_OFF(g, b, y, x, 0);                                         \
              for (int64_t i = 0; i < c; i++) {                                                    \
                int hit = p[i] == best[i];                                                         \
                o[i] = hit ? o[i] + gr[i] : o[i]; /* untouched when not: -0.0 stays */            \
                best[i] = hit ? (T)NAN : best[i];                                                  \
              }                                                                                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
  }

#if TFC_SIMD_X86 && defined(__GNUC__) && !defined(__clang__)
#define REF_O3 __attribute__((optimize("O3")))
#else
#define REF_O3
#endif
MAXGRAD_NHWC(float, float_base, REF_O3)
MAXGRAD_NHWC(double, double, REF_O3)
#if TFC_SIMD_X86
MAXGRAD_NHWC(float, float_avx2, TFC_SIMD_TARGET_AVX2 REF_O3)
MAXGRAD_NHWC(float, float_avx512, TFC_SIMD_TARGET_AVX512 REF_O3)
#endif
static void maxgrad_nhwc_float(const tfc_window_geom *g, const float *in, const float *grad, float *out, float *best,
                               int64_t b0, int64_t b1) {
#if TFC_SIMD_X86
  int l = tfc_simd_level();
  if (l >= TFC_SIMD_AVX512) maxgrad_nhwc_float_avx512(g, in, grad, out, best, b0, b1);
  else if (l >= TFC_SIMD_AVX2) maxgrad_nhwc_float_avx2(g, in, grad, out, best, b0, b1);
  else
#endif
    maxgrad_nhwc_float_base(g, in, grad, out, best, b0, b1);
}

/* Per type T: forward (max or avg), max gradient, avg gradient over images [b0, b1). Channels
 * go innermost for NHWC; NCHW runs the same loops with a channel stride of one plane. */
#define POOL_FNS(T)                                                                                \
  static void pool_fwd_##T(int64_t b0, int64_t b1, void *arg) {                                    \
    const ref_job *j = arg;                                                                        \
    const tfc_window_geom *g = j->g;                                                               \
    const T *in = j->a;                                                                            \
    T *out = j->out;                                                                               \
    int64_t cs_in = g->nchw ? g->ih * g->iw : 1, cs_out = g->nchw ? g->oh * g->ow : 1;             \
    for (int64_t b = b0; b < b1; b++)                                                              \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1;                                                                  \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          T *o = out + OUT_OFF(g, b, oy, ox, 0);                                                   \
          int first = 1;                                                                           \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = x0; x < x1; x++) {                                                    \
              const T *p = in + IN_OFF(g, b, y, x, 0);                                             \
              if (first) {                                                                         \
                for (int64_t ch = 0; ch < g->ic; ch++) o[ch * cs_out] = p[ch * cs_in];             \
              } else if (j->is_max) {                                                              \
                for (int64_t ch = 0; ch < g->ic; ch++)                                             \
                  if (p[ch * cs_in] > o[ch * cs_out]) o[ch * cs_out] = p[ch * cs_in];              \
              } else {                                                                             \
                for (int64_t ch = 0; ch < g->ic; ch++) o[ch * cs_out] += p[ch * cs_in];            \
              }                                                                                    \
              first = 0;                                                                           \
            }                                                                                      \
          if (!j->is_max) {                                                                        \
            T inv = (T)1 / (T)((y1 - y0) * (x1 - x0));                                             \
            for (int64_t ch = 0; ch < g->ic; ch++) o[ch * cs_out] *= inv;                          \
          }                                                                                        \
        }                                                                                          \
  }                                                                                                \
  static void pool_max_grad_##T(int64_t b0, int64_t b1, void *arg) {                               \
    const ref_job *j = arg;                                                                        \
    const tfc_window_geom *g = j->g;                                                               \
    const T *in = j->a, *grad = j->b;                                                              \
    T *out = j->out;                                                                               \
    int64_t cs_in = g->nchw ? g->ih * g->iw : 1, cs_out = g->nchw ? g->oh * g->ow : 1;             \
    T *best = malloc(sizeof(T) * (size_t)g->ic);                                                   \
    int64_t *arg_max = malloc(sizeof(int64_t) * (size_t)g->ic);                                    \
    if (!best || !arg_max) {                                                                       \
      free(best);                                                                                  \
      free(arg_max);                                                                               \
      __atomic_store_n(&((ref_job *)arg)->oom, 1, __ATOMIC_RELAXED);                               \
      return;                                                                                      \
    }                                                                                              \
    if (!g->nchw) maxgrad_nhwc_##T(g, in, grad, out, best, b0, b1);                                \
    for (int64_t b = b0; b < b1 && g->nchw; b++) {                                                 \
      memset(out + IN_OFF(g, b, 0, 0, 0), 0, sizeof(T) * (size_t)(g->ih * g->iw * g->ic));         \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1;                                                                  \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          int first = 1;                                                                           \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = x0; x < x1; x++) {                                                    \
              int64_t base = IN_OFF(g, b, y, x, 0);                                                \
              const T *p = in + base;                                                              \
              for (int64_t ch = 0; ch < g->ic; ch++) {                                             \
                T v = p[ch * cs_in];                                                               \
                if (first || v > best[ch]) {                                                       \
                  best[ch] = v;                                                                    \
                  arg_max[ch] = base + ch * cs_in;                                                 \
                }                                                                                  \
              }                                                                                    \
              first = 0;                                                                           \
            }                                                                                      \
          if (first) continue; /* an empty window (impossible for TF's paddings) */               \
          const T *gr = grad + OUT_OFF(g, b, oy, ox, 0);                                           \
          for (int64_t ch = 0; ch < g->ic; ch++) out[arg_max[ch]] += gr[ch * cs_out];              \
        }                                                                                          \
    }                                                                                              \
    free(best);                                                                                    \
    free(arg_max);                                                                                 \
  }                                                                                                \
  static void pool_avg_grad_##T(int64_t b0, int64_t b1, void *arg) {                               \
    const ref_job *j = arg;                                                                        \
    const tfc_window_geom *g = j->g;                                                               \
    const T *grad = j->b;                                                                          \
    T *out = j->out;                                                                               \
    int64_t cs_in = g->nchw ? g->ih * g->iw : 1, cs_out = g->nchw ? g->oh * g->ow : 1;             \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      memset(out + IN_OFF(g, b, 0, 0, 0), 0, sizeof(T) * (size_t)(g->ih * g->iw * g->ic));         \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1;                                                                  \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          if (y1 <= y0 || x1 <= x0) continue;                                                      \
          T inv = (T)1 / (T)((y1 - y0) * (x1 - x0));                                               \
          const T *gr = grad + OUT_OFF(g, b, oy, ox, 0);                                           \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = x0; x < x1; x++) {                                                    \
              T *o = out + IN_OFF(g, b, y, x, 0);                                                  \
              for (int64_t ch = 0; ch < g->ic; ch++) o[ch * cs_in] += gr[ch * cs_out] * inv;       \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
  }

POOL_FNS(float)
POOL_FNS(double)

void tfc_pool_ref_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, int is_max, const void *in, void *out) {
  ref_job j = {g, in, NULL, out, dtype, is_max, 0};
  tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->ic * g->kh * g->kw,
                          dtype == TFC_DT_FLOAT ? pool_fwd_float : pool_fwd_double, &j);
}

void tfc_pool_ref_max_grad(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, const void *in, const void *grad,
                           void *out) {
  ref_job j = {g, in, grad, out, dtype, 1, 0};
  tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->ic * g->kh * g->kw,
                          dtype == TFC_DT_FLOAT ? pool_max_grad_float : pool_max_grad_double, &j);
  if (__atomic_load_n(&j.oom, __ATOMIC_RELAXED)) TFC_OOM(c->status);
}

void tfc_pool_ref_avg_grad(tfc_kernel_ctx *c, const tfc_window_geom *g, int dtype, const void *grad, void *out) {
  ref_job j = {g, NULL, grad, out, dtype, 0, 0};
  tfc_kernel_parallel_for(c, g->n, g->oh * g->ow * g->ic * g->kh * g->kw,
                          dtype == TFC_DT_FLOAT ? pool_avg_grad_float : pool_avg_grad_double, &j);
}

/* ---- max pooling's workspace (float): the argmax once, in the forward pass ---- */

/* The workspace of the output elements of images [b0, b1): per element, the index in its
 * unclipped window (row * kw + col) of the element MaxPoolGrad routes its gradient to, by
 * MaxPoolGrad's rule above (the first that compares above all before it, else the window's
 * first), or TFC_POOL_WS_NONE for an empty window. The gradient then reads one byte per
 * output element instead of the window's inputs. best: scratch of g->ic floats. NHWC and
 * NCHW (CS: the channel stride, 1 in NHWC, so the loops vectorize). */
#define MAXWS(SFX, ATTR, NCHW)                                                                     \
  ATTR static void maxws_##SFX(const tfc_window_geom *g, const float *in, uint8_t *ws, float *best,  \
                               int64_t b0, int64_t b1) {                                           \
    const int64_t c = g->ic, cs_in = NCHW ? g->ih * g->iw : 1, cs_out = NCHW ? g->oh * g->ow : 1;  \
    for (int64_t b = b0; b < b1; b++)                                                              \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1, wy = oy * g->sh - g->pt, wx = ox * g->sw - g->pl;                \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          uint8_t *restrict w = ws + OUT_OFF(g, b, oy, ox, 0);                                     \
          if (y1 <= y0 || x1 <= x0) {                                                              \
            for (int64_t i = 0; i < c; i++) w[i * cs_out] = TFC_POOL_WS_NONE;                      \
            continue;                                                                              \
          }                                                                                        \
          const float *restrict p0 = in + IN_OFF(g, b, y0, x0, 0);                                 \
          const uint8_t k0 = (uint8_t)((y0 - wy) * g->kw + (x0 - wx));                             \
          for (int64_t i = 0; i < c; i++) {                                                        \
            best[i] = p0[i * cs_in];                                                               \
            w[i * cs_out] = k0;                                                                    \
          }                                                                                        \
          for (int64_t y = y0; y < y1; y++)                                                        \
            for (int64_t x = y == y0 ? x0 + 1 : x0; x < x1; x++) {                                 \
              const float *restrict p = in + IN_OFF(g, b, y, x, 0);                                \
              const uint8_t k = (uint8_t)((y - wy) * g->kw + (x - wx));                            \
              for (int64_t i = 0; i < c; i++) {                                                    \
                int gt = p[i * cs_in] > best[i];                                                   \
                best[i] = gt ? p[i * cs_in] : best[i];                                             \
                w[i * cs_out] = gt ? k : w[i * cs_out];                                            \
              }                                                                                    \
            }                                                                                      \
        }                                                                                          \
  }

/* MaxPoolGrad from the workspace, over images [b0, b1). Windows that tile the image store
 * each element of out once (the gradient + 0, as a sum over zeros, or zero); otherwise out is
 * zeroed and each window adds its gradient at its element, in MaxPoolGrad's order. */
#define MAXGRAD_WS(SFX, ATTR, NCHW)                                                                \
  ATTR static void maxgrad_ws_##SFX(const tfc_window_geom *g, const uint8_t *ws, const float *grad, \
                                    float *out, int64_t b0, int64_t b1) {                          \
    const int64_t c = g->ic, cs_in = NCHW ? g->ih * g->iw : 1, cs_out = NCHW ? g->oh * g->ow : 1;  \
    const int tiled = pool_tiles(g);                                                               \
    for (int64_t b = b0; b < b1; b++) {                                                            \
      if (!tiled) memset(out + IN_OFF(g, b, 0, 0, 0), 0, sizeof(float) * (size_t)(g->ih * g->iw * c)); \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1, wy = oy * g->sh - g->pt, wx = ox * g->sw - g->pl;                \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          if (y1 <= y0 || x1 <= x0) continue;                                                      \
          const float *restrict gr = grad + OUT_OFF(g, b, oy, ox, 0);                              \
          const uint8_t *restrict w = ws + OUT_OFF(g, b, oy, ox, 0);                               \
          if (tiled) {                                                                             \
            for (int64_t y = y0; y < y1; y++)                                                      \
              for (int64_t x = x0; x < x1; x++) {                                                  \
                float *restrict o = out + IN_OFF(g, b, y, x, 0);                                   \
                const uint8_t k = (uint8_t)((y - wy) * g->kw + (x - wx));                          \
                for (int64_t i = 0; i < c; i++)                                                    \
                  o[i * cs_in] = w[i * cs_out] == k ? gr[i * cs_out] + 0.0f : 0.0f;                \
              }                                                                                    \
            continue;                                                                              \
          }                                                                                        \
          for (int64_t i = 0; i < c; i++) {                                                        \
            int64_t k = w[i * cs_out];                                                             \
            if (k >= g->kh * g->kw) continue; /* an empty window's, or not ours: routes nothing */ \
            out[IN_OFF(g, b, wy + k / g->kw, wx + k % g->kw, i)] += gr[i * cs_out];                \
          }                                                                                        \
        }                                                                                          \
    }                                                                                              \
  }

/* The same two loops for NHWC with channels in blocks of 16, in GCC vectors (16 floats, their
 * int32 masks, 16 workspace bytes) held in registers across a window: one load of each input
 * element, one store of each output element, no scratch. The vector unit is the target's
 * (an AVX-512 register, two AVX2 or four SSE2 ones). */
typedef float vf16 __attribute__((vector_size(64)));
typedef int32_t vi16 __attribute__((vector_size(64)));
typedef uint8_t vb16 __attribute__((vector_size(16)));

#define MAXWS16(SFX, ATTR)                                                                         \
  ATTR static void maxws16_##SFX(const tfc_window_geom *g, const float *in, uint8_t *ws, int64_t b0, \
                                 int64_t b1) {                                                     \
    const int64_t c = g->ic;                                                                       \
    for (int64_t b = b0; b < b1; b++)                                                              \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1, wy = oy * g->sh - g->pt, wx = ox * g->sw - g->pl;                \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          uint8_t *w = ws + OUT_OFF(g, b, oy, ox, 0);                                              \
          if (y1 <= y0 || x1 <= x0) {                                                              \
            memset(w, TFC_POOL_WS_NONE, (size_t)c);                                                \
            continue;                                                                              \
          }                                                                                        \
          for (int64_t cb = 0; cb < c; cb += 16) {                                                 \
            vf16 best;                                                                             \
            memcpy(&best, in + IN_OFF(g, b, y0, x0, cb), sizeof best);                             \
            vi16 idx = (vi16){0} + (int32_t)((y0 - wy) * g->kw + (x0 - wx));                       \
            for (int64_t y = y0; y < y1; y++)                                                      \
              for (int64_t x = y == y0 ? x0 + 1 : x0; x < x1; x++) {                               \
                vf16 v;                                                                            \
                memcpy(&v, in + IN_OFF(g, b, y, x, cb), sizeof v);                                 \
                vi16 m = v > best, k = (vi16){0} + (int32_t)((y - wy) * g->kw + (x - wx));         \
                best = (vf16)(((vi16)v & m) | ((vi16)best & ~m));                                  \
                idx = (k & m) | (idx & ~m);                                                        \
              }                                                                                    \
            vb16 w8 = __builtin_convertvector(idx, vb16);                                          \
            memcpy(w + cb, &w8, sizeof w8);                                                        \
          }                                                                                        \
        }                                                                                          \
  }

/* Windows that tile the image only (each element stored once). */
#define MAXGRAD_WS16(SFX, ATTR)                                                                    \
  ATTR static void maxgrad_ws16_##SFX(const tfc_window_geom *g, const uint8_t *ws, const float *grad, \
                                      float *out, int64_t b0, int64_t b1) {                        \
    const int64_t c = g->ic;                                                                       \
    for (int64_t b = b0; b < b1; b++)                                                              \
      for (int64_t oy = 0; oy < g->oh; oy++)                                                       \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                                   \
          int64_t y0, y1, x0, x1, wy = oy * g->sh - g->pt, wx = ox * g->sw - g->pl;                \
          window(g, oy, ox, &y0, &y1, &x0, &x1);                                                   \
          const float *gr = grad + OUT_OFF(g, b, oy, ox, 0);                                       \
          const uint8_t *w = ws + OUT_OFF(g, b, oy, ox, 0);                                        \
          for (int64_t cb = 0; cb < c; cb += 16) {                                                 \
            vf16 gv;                                                                               \
            vb16 w8;                                                                               \
            memcpy(&gv, gr + cb, sizeof gv);                                                       \
            memcpy(&w8, w + cb, sizeof w8);                                                        \
            vi16 gi = (vi16)(gv + 0.0f), wi = __builtin_convertvector(w8, vi16);                   \
            for (int64_t y = y0; y < y1; y++)                                                      \
              for (int64_t x = x0; x < x1; x++) {                                                  \
                vi16 m = wi == (int32_t)((y - wy) * g->kw + (x - wx));                             \
                vf16 o = (vf16)(gi & m);                                                           \
                memcpy(out + IN_OFF(g, b, y, x, cb), &o, sizeof o);                                \
              }                                                                                    \
          }                                                                                        \
        }                                                                                          \
  }

MAXWS16(base, REF_O3)
MAXGRAD_WS16(base, REF_O3)
#if TFC_SIMD_X86
MAXWS16(avx2, TFC_SIMD_TARGET_AVX2 REF_O3)
MAXWS16(avx512, TFC_SIMD_TARGET_AVX512 REF_O3)
MAXGRAD_WS16(avx2, TFC_SIMD_TARGET_AVX2 REF_O3)
MAXGRAD_WS16(avx512, TFC_SIMD_TARGET_AVX512 REF_O3)
#endif

MAXWS(nchw, REF_O3, 1)
MAXWS(nhwc_base, REF_O3, 0)
MAXGRAD_WS(nchw, REF_O3, 1)
MAXGRAD_WS(nhwc_base, REF_O3, 0)
#if TFC_SIMD_X86
MAXWS(nhwc_avx2, TFC_SIMD_TARGET_AVX2 REF_O3, 0)
MAXWS(nhwc_avx512, TFC_SIMD_TARGET_AVX512 REF_O3, 0)
MAXGRAD_WS(nhwc_avx2, TFC_SIMD_TARGET_AVX2 REF_O3, 0)
MAXGRAD_WS(nhwc_avx512, TFC_SIMD_TARGET_AVX512 REF_O3, 0)
#endif

typedef struct ws_job {
  const tfc_window_geom *g;
  const float *in, *grad;
  uint8_t *ws;
  const uint8_t *ws_in;
  float *out;
  int level; /* tfc_simd_level() */
  int oom;
} ws_job;

static void max_ws_range(int64_t b0, int64_t b1, void *arg) {
  ws_job *j = arg;
  float *best = malloc(sizeof(float) * (size_t)j->g->ic);
  if (!best) {
    __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
    return;
  }
  if (!j->g->nchw && j->g->ic % 16 == 0) {
#if TFC_SIMD_X86
    if (j->level >= TFC_SIMD_AVX512) maxws16_avx512(j->g, j->in, j->ws, b0, b1);
    else if (j->level >= TFC_SIMD_AVX2) maxws16_avx2(j->g, j->in, j->ws, b0, b1);
    else
#endif
      maxws16_base(j->g, j->in, j->ws, b0, b1);
  } else if (j->g->nchw) maxws_nchw(j->g, j->in, j->ws, best, b0, b1);
#if TFC_SIMD_X86
  else if (j->level >= TFC_SIMD_AVX512) maxws_nhwc_avx512(j->g, j->in, j->ws, best, b0, b1);
  else if (j->level >= TFC_SIMD_AVX2) maxws_nhwc_avx2(j->g, j->in, j->ws, best, b0, b1);
#endif
  else maxws_nhwc_base(j->g, j->in, j->ws, best, b0, b1);
  free(best);
}

static void max_grad_ws_range(int64_t b0, int64_t b1, void *arg) {
  const ws_job *j = arg;
  if (!j->g->nchw && j->g->ic % 16 == 0 && pool_tiles(j->g)) {
#if TFC_SIMD_X86
    if (j->level >= TFC_SIMD_AVX512) maxgrad_ws16_avx512(j->g, j->ws_in, j->grad, j->out, b0, b1);
    else if (j->level >= TFC_SIMD_AVX2) maxgrad_ws16_avx2(j->g, j->ws_in, j->grad, j->out, b0, b1);
    else
#endif
      maxgrad_ws16_base(j->g, j->ws_in, j->grad, j->out, b0, b1);
  } else if (j->g->nchw) maxgrad_ws_nchw(j->g, j->ws_in, j->grad, j->out, b0, b1);
#if TFC_SIMD_X86
  else if (j->level >= TFC_SIMD_AVX512) maxgrad_ws_nhwc_avx512(j->g, j->ws_in, j->grad, j->out, b0, b1);
  else if (j->level >= TFC_SIMD_AVX2) maxgrad_ws_nhwc_avx2(j->g, j->ws_in, j->grad, j->out, b0, b1);
#endif
  else maxgrad_ws_nhwc_base(j->g, j->ws_in, j->grad, j->out, b0, b1);
}

void tfc_pool_ref_max_workspace_images(const tfc_window_geom *g, const float *in, uint8_t *ws, int64_t b0,
                                       int64_t b1, tfc_status *s) {
  ws_job j = {g, in, NULL, ws, NULL, NULL, tfc_simd_level(), 0};
  max_ws_range(b0, b1, &j);
  if (j.oom) TFC_OOM(s);
}

void tfc_pool_ref_max_grad_workspace(tfc_kernel_ctx *c, const tfc_window_geom *g, const uint8_t *ws,
                                     const float *grad, float *out) {
  ws_job j = {g, NULL, grad, NULL, ws, out, tfc_simd_level(), 0};
  tfc_kernel_parallel_for(c, g->n, g->ih * g->iw * g->ic, max_grad_ws_range, &j);
}

/* ---- fused epilogues ---- */

typedef struct fuse_job {
  const tfc_conv_fusion *f;
  void *out;
  const void *bias;
  const void *addend;
  int64_t oc, plane;
  int nchw;
} fuse_job;

/* One pixel's oc channels (stride cs apart) of out, with its addend's (NULL: none): bias, then
 * the activation. The activation is chosen outside the channel loop, and the NHWC caller
 * passes cs = 1 as a constant, so each loop vectorizes. */
#define FUSE_ROW(T)                                                                             \
  static inline __attribute__((always_inline)) void fuse_row_##T(T *o, const T *a, const T *bias, \
                                                                 int64_t oc, int64_t cs, int act, T alpha) { \
    switch (act) {                                                                              \
      case TFC_ACT_RELU:                                                                        \
        for (int64_t ch = 0; ch < oc; ch++) {                                                   \
          T v = o[ch * cs] + bias[ch] + (a ? a[ch * cs] : (T)0);                                \
          o[ch * cs] = v > 0 ? v : 0;                                                           \
        }                                                                                       \
        break;                                                                                  \
      case TFC_ACT_RELU6:                                                                       \
        for (int64_t ch = 0; ch < oc; ch++) {                                                   \
          T v = o[ch * cs] + bias[ch] + (a ? a[ch * cs] : (T)0);                                \
          o[ch * cs] = v > 0 ? (v < 6 ? v : 6) : 0;                                             \
        }                                                                                       \
        break;                                                                                  \
      case TFC_ACT_ELU:                                                                         \
        for (int64_t ch = 0; ch < oc; ch++) {                                                   \
          T v = o[ch * cs] + bias[ch] + (a ? a[ch * cs] : (T)0);                                \
          o[ch * cs] = v > 0 ? v : (T)expm1((double)v);                                         \
        }                                                                                       \
        break;                                                                                  \
      case TFC_ACT_LEAKY_RELU:                                                                  \
        for (int64_t ch = 0; ch < oc; ch++) {                                                   \
          T v = o[ch * cs] + bias[ch] + (a ? a[ch * cs] : (T)0);                                \
          o[ch * cs] = v > 0 ? v : v * alpha;                                                   \
        }                                                                                       \
        break;                                                                                  \
      default:                                                                                  \
        for (int64_t ch = 0; ch < oc; ch++) o[ch * cs] = o[ch * cs] + bias[ch] + (a ? a[ch * cs] : (T)0); \
    }                                                                                           \
  }

#define FUSE_RANGE(T, name)                                                                     \
  REF_O3 static void name(int64_t p0, int64_t p1, void *arg) {                                  \
    const fuse_job *j = arg;                                                                    \
    T *out = j->out;                                                                            \
    const T *bias = j->bias, *addend = j->addend;                                               \
    int act = j->f->act;                                                                        \
    T alpha = (T)j->f->alpha;                                                                   \
    for (int64_t p = p0; p < p1; p++) {                                                         \
      int64_t i = j->nchw ? (p / j->plane) * j->oc * j->plane + p % j->plane : p * j->oc;       \
      if (j->nchw) fuse_row_##T(out + i, addend ? addend + i : NULL, bias, j->oc, j->plane, act, alpha); \
      else fuse_row_##T(out + i, addend ? addend + i : NULL, bias, j->oc, 1, act, alpha);       \
    }                                                                                           \
  }
FUSE_ROW(float)
FUSE_ROW(double)
FUSE_RANGE(float, fuse_f32)
FUSE_RANGE(double, fuse_f64)

void tfc_conv_fusion_ref(tfc_kernel_ctx *c, const tfc_conv_fusion *f, int dtype, void *out, const void *bias,
                         const void *addend, int64_t n_pix, int64_t oc, int nchw, int64_t plane) {
  fuse_job j = {f, out, bias, addend, oc, plane > 0 ? plane : 1, nchw};
  tfc_kernel_parallel_for(c, n_pix, oc * 2, dtype == TFC_DT_DOUBLE ? fuse_f64 : fuse_f32, &j);
}
