/*
 * kernels_training — CPU kernels of the optimizers' dense update ops (ops_training.def):
 * ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp,
 * ApplyCenteredRMSProp, ApplyAdadelta, ApplyFtrl, ApplyFtrlV2, ApplyProximalGradientDescent,
 * ApplyProximalAdagrad and their ResourceApply* twins, for float and double.
 *
 * Everything but the arithmetic is shared with the GPU kernels (device/training_plan.c): the
 * per-op spec, the attrs, validation in TF 1.15's order with its texts and codes, and the
 * locked, copy-on-write, journaled step around the update. This file is the CPU's run
 * function: one fused element loop per op computing every new value from the old ones, split
 * over the intra-op pool when the variable is large.
 *
 * The math is TF's CPU functors' (Eigen expressions), with the same operation order and in
 * the variable's type, so results match TF's to the last bits or so over many steps: e.g.
 * Adam's m += (g - m) * (1 - beta1) rather than beta1 * m + (1 - beta1) * g. The loops are
 * explicitly vectorized (SSE2 vectors through GCC's vector extensions; see the loops).
 */
#include <math.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "device/training_plan.h"

/* The loops read the shared argument block (scalars by input index, old and new buffers). */
typedef tfc_apply_args apply_args;
typedef void (*apply_loop)(int64_t begin, int64_t end, void *arg);

/* ---------------- the element loops (TF's functors, in T) ----------------
 *
 * Each op's per-element step is written once (an *_STEP macro) over a value type V that is
 * either T or a vector of T: the loop runs the vector form over full vectors and the scalar
 * form over the tail. The vectors are GCC vector extensions (element-wise IEEE operations,
 * so each lane rounds exactly as the scalar code does) with SSE's square root. Why not leave
 * it to the auto-vectorizer: sqrt may set errno, so without -fno-math-errno (a build-wide
 * flag) the compiler keeps a branch per element around it and vectorizes nothing. */
#if defined(__SSE2__)
#include <emmintrin.h>
typedef float vfloat __attribute__((vector_size(16)));
typedef double vdouble __attribute__((vector_size(16)));
#define VW_float 4
#define VW_double 2
static inline vfloat vsqrt_float(vfloat x) { return (vfloat)_mm_sqrt_ps((__m128)x); }
static inline vdouble vsqrt_double(vdouble x) { return (vdouble)_mm_sqrt_pd((__m128d)x); }
#else
typedef float vfloat;
typedef double vdouble;
#define VW_float 1
#define VW_double 1
static inline vfloat vsqrt_float(vfloat x) { return sqrtf(x); }
static inline vdouble vsqrt_double(vdouble x) { return sqrt(x); }
#endif
/* Unaligned vector loads and stores (memcpy compiles to movups/movupd). */
static inline vfloat vld_float(const float *p) {
  vfloat v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline vdouble vld_double(const double *p) {
  vdouble v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void vst_float(float *p, vfloat v) { memcpy(p, &v, sizeof v); }
static inline void vst_double(double *p, vdouble v) { memcpy(p, &v, sizeof v); }
static inline float sld_float(const float *p) { return *p; }
static inline double sld_double(const double *p) { return *p; }
static inline void sst_float(float *p, float v) { *p = v; }
static inline void sst_double(double *p, double v) { *p = v; }
static inline float ssqrt_float(float x) { return sqrtf(x); }
static inline double ssqrt_double(double x) { return sqrt(x); }

/* Runs STEP(V, SQRT, LD, ST, i) over [b, e): vectors first, then the scalar tail. */
#define FOR_ELEMS(T, b, e, STEP)                                                                   \
  do {                                                                                             \
    int64_t i_ = (b);                                                                              \
    for (; i_ + VW_##T <= (e); i_ += VW_##T) STEP(v##T, vsqrt_##T, vld_##T, vst_##T, i_);          \
    for (; i_ < (e); i_++) STEP(T, ssqrt_##T, sld_##T, sst_##T, i_);                               \
  } while (0)

/* var -= grad * alpha */
#define GD_STEP(V, SQRT, LD, ST, i) ST(y + (i), LD(x + (i)) - LD(g + (i)) * alpha);
#define GD_LOOP(T)                                                                                 \
  static void gd_##T(int64_t b, int64_t e, void *p) {                                              \
    const apply_args *a = p;                                                                       \
    const T alpha = (T)a->s[1];                                                                    \
    const T *restrict g = a->grad, *restrict x = a->old[0];                                        \
    T *restrict y = a->out[0];                                                                     \
    FOR_ELEMS(T, b, e, GD_STEP);                                                                   \
  }

/* accum = accum * momentum + grad; var -= accum * lr, or with Nesterov
 * var -= grad * lr + accum * momentum * lr. */
#define MOMENTUM_STEP(V, SQRT, LD, ST, i)                                                          \
  {                                                                                                \
    V n = LD(ac + (i)) * mu + LD(g + (i));                                                         \
    ST(acn + (i), n);                                                                              \
    ST(y + (i), LD(x + (i)) - n * lr);                                                             \
  }
#define MOMENTUM_NESTEROV_STEP(V, SQRT, LD, ST, i)                                                 \
  {                                                                                                \
    V gi = LD(g + (i)), n = LD(ac + (i)) * mu + gi;                                                \
    ST(acn + (i), n);                                                                              \
    ST(y + (i), LD(x + (i)) - (gi * lr + n * mu * lr));                                            \
  }
#define MOMENTUM_LOOP(T)                                                                           \
  static void momentum_##T(int64_t b, int64_t e, void *p) {                                        \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[2], mu = (T)a->s[4];                                                      \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ac = a->old[1];              \
    T *restrict y = a->out[0], *restrict acn = a->out[1];                                          \
    if (a->nesterov)                                                                               \
      FOR_ELEMS(T, b, e, MOMENTUM_NESTEROV_STEP);                                                  \
    else                                                                                           \
      FOR_ELEMS(T, b, e, MOMENTUM_STEP);                                                           \
  }

/* alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (g - m) * (1 - beta1);
 * v += (g*g - v) * (1 - beta2); var -= m * alpha / (sqrt(v) + epsilon), or with Nesterov
 * var -= (g * (1 - beta1) + beta1 * m) * alpha / (sqrt(v) + epsilon). */
#define ADAM_MOMENTS(V, LD, ST, i)                                                                 \
  V gi = LD(g + (i)), m0 = LD(m + (i)), v0 = LD(v + (i));                                          \
  V mi = m0 + (gi - m0) * omb1, vi = v0 + (gi * gi - v0) * omb2;                                   \
  ST(mn + (i), mi);                                                                                \
  ST(vn + (i), vi);
#define ADAM_STEP(V, SQRT, LD, ST, i)                                                              \
  {                                                                                                \
    ADAM_MOMENTS(V, LD, ST, i)                                                                     \
    ST(y + (i), LD(x + (i)) - (mi * alpha) / (SQRT(vi) + eps));                                    \
  }
#define ADAM_NESTEROV_STEP(V, SQRT, LD, ST, i)                                                     \
  {                                                                                                \
    ADAM_MOMENTS(V, LD, ST, i)                                                                     \
    ST(y + (i), LD(x + (i)) - ((gi * omb1 + b1 * mi) * alpha) / (SQRT(vi) + eps));                 \
  }
#define ADAM_LOOP(T)                                                                               \
  static void adam_##T(int64_t b, int64_t e, void *p) {                                            \
    const apply_args *a = p;                                                                       \
    const T b1p = (T)a->s[3], b2p = (T)a->s[4], lr = (T)a->s[5], b1 = (T)a->s[6];                  \
    const T b2 = (T)a->s[7], eps = (T)a->s[8];                                                     \
    const T alpha = lr * ssqrt_##T((T)1 - b2p) / ((T)1 - b1p);                                     \
    const T omb1 = (T)1 - b1, omb2 = (T)1 - b2;                                                    \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict m = a->old[1];               \
    const T *restrict v = a->old[2];                                                               \
    T *restrict y = a->out[0], *restrict mn = a->out[1], *restrict vn = a->out[2];                 \
    if (a->nesterov)                                                                               \
      FOR_ELEMS(T, b, e, ADAM_NESTEROV_STEP);                                                      \
    else                                                                                           \
      FOR_ELEMS(T, b, e, ADAM_STEP);                                                               \
  }

/* accum += g*g (when update_slots); var -= g * lr * rsqrt(accum). */
#define ADAGRAD_STEP(V, SQRT, LD, ST, i)                                                           \
  {                                                                                                \
    V gi = LD(g + (i)), n = LD(ac + (i)) + gi * gi;                                                \
    ST(acn + (i), n);                                                                              \
    ST(y + (i), LD(x + (i)) - gi * lr * (one / SQRT(n)));                                          \
  }
#define ADAGRAD_FIXED_STEP(V, SQRT, LD, ST, i)                                                     \
  ST(y + (i), LD(x + (i)) - LD(g + (i)) * lr * (one / SQRT(LD(ac + (i)))));
#define ADAGRAD_LOOP(T)                                                                            \
  static void adagrad_##T(int64_t b, int64_t e, void *p) {                                         \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[2], one = 1;                                                              \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ac = a->old[1];              \
    T *restrict y = a->out[0], *restrict acn = a->out[1];                                          \
    if (a->update_slots)                                                                           \
      FOR_ELEMS(T, b, e, ADAGRAD_STEP);                                                            \
    else                                                                                           \
      FOR_ELEMS(T, b, e, ADAGRAD_FIXED_STEP);                                                      \
  }

/* ms += (g*g - ms) * (1 - rho); mom = mom * momentum + g * lr / sqrt(ms + epsilon);
 * var -= mom. */
#define RMSPROP_STEP(V, SQRT, LD, ST, i)                                                           \
  {                                                                                                \
    V gi = LD(g + (i)), s0 = LD(ms + (i));                                                         \
    V s = s0 + (gi * gi - s0) * omr;                                                               \
    V mo = LD(mom + (i)) * mu + (gi * lr) / SQRT(s + eps);                                         \
    ST(msn + (i), s);                                                                              \
    ST(momn + (i), mo);                                                                            \
    ST(y + (i), LD(x + (i)) - mo);                                                                 \
  }
#define RMSPROP_LOOP(T)                                                                            \
  static void rmsprop_##T(int64_t b, int64_t e, void *p) {                                         \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[3], rho = (T)a->s[4], mu = (T)a->s[5], eps = (T)a->s[6];                  \
    const T omr = (T)1 - rho;                                                                      \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ms = a->old[1];              \
    const T *restrict mom = a->old[2];                                                             \
    T *restrict y = a->out[0], *restrict msn = a->out[1], *restrict momn = a->out[2];              \
    FOR_ELEMS(T, b, e, RMSPROP_STEP);                                                              \
  }

/* As RMSProp, with mg += (g - mg) * (1 - rho) and the denominator sqrt(ms - mg*mg + epsilon). */
#define CENTERED_STEP(V, SQRT, LD, ST, i)                                                          \
  {                                                                                                \
    V gi = LD(g + (i)), s0 = LD(ms + (i)), m0 = LD(mg + (i));                                      \
    V s = s0 + (gi * gi - s0) * omr, mgi = m0 + (gi - m0) * omr;                                   \
    V mo = LD(mom + (i)) * mu + (gi * lr) / SQRT((s - mgi * mgi) + eps);                           \
    ST(msn + (i), s);                                                                              \
    ST(mgn + (i), mgi);                                                                            \
    ST(momn + (i), mo);                                                                            \
    ST(y + (i), LD(x + (i)) - mo);                                                                 \
  }
#define CENTERED_LOOP(T)                                                                           \
  static void centered_##T(int64_t b, int64_t e, void *p) {                                        \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[4], rho = (T)a->s[5], mu = (T)a->s[6], eps = (T)a->s[7];                  \
    const T omr = (T)1 - rho;                                                                      \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict mg = a->old[1];              \
    const T *restrict ms = a->old[2], *restrict mom = a->old[3];                                   \
    T *restrict y = a->out[0], *restrict mgn = a->out[1], *restrict msn = a->out[2];               \
    T *restrict momn = a->out[3];                                                                  \
    FOR_ELEMS(T, b, e, CENTERED_STEP);                                                             \
  }

/* accum = accum * rho + g*g * (1 - rho);
 * update = sqrt(accum_update + epsilon) * rsqrt(accum + epsilon) * g (the new accum, the old
 * accum_update); var -= update * lr; accum_update = accum_update * rho + update^2 * (1 - rho). */
#define ADADELTA_STEP(V, SQRT, LD, ST, i)                                                          \
  {                                                                                                \
    V gi = LD(g + (i)), u0 = LD(au + (i));                                                         \
    V n = LD(ac + (i)) * rho + gi * gi * omr;                                                      \
    V up = SQRT(u0 + eps) * (one / SQRT(n + eps)) * gi;                                            \
    ST(acn + (i), n);                                                                              \
    ST(y + (i), LD(x + (i)) - up * lr);                                                            \
    ST(aun + (i), u0 * rho + up * up * omr);                                                       \
  }
#define ADADELTA_LOOP(T)                                                                           \
  static void adadelta_##T(int64_t b, int64_t e, void *p) {                                        \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[3], rho = (T)a->s[4], eps = (T)a->s[5], one = 1;                          \
    const T omr = (T)1 - rho;                                                                      \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ac = a->old[1];              \
    const T *restrict au = a->old[2];                                                              \
    T *restrict y = a->out[0], *restrict acn = a->out[1], *restrict aun = a->out[2];               \
    FOR_ELEMS(T, b, e, ADADELTA_STEP);                                                             \
  }

/* The FTRL and proximal loops are plain scalar loops: their sign, select and pow have no
 * cheap vector form here, and the optimizers are used on sparse-feature models whose updates
 * are small. */
static inline float spow_float(float x, float y) { return powf(x, y); }
static inline double spow_double(double x, double y) { return pow(x, y); }
static inline float sabs_float(float x) { return fabsf(x); }
static inline double sabs_double(double x) { return fabs(x); }
#define SIGN(T, x) ((x) > (T)0 ? (T)1 : (x) < (T)0 ? (T)-1 : (T)0)

/* FTRL-proximal (TF's ApplyFtrl / ApplyFtrlV2 functors): with g' = g + 2 * l2_shrinkage * var
 * (V2; g itself otherwise) and n = accum + g*g,
 *   linear += g' - (n^-p - accum^-p) / lr * var   (p = lr_power; sqrt when p is -0.5)
 *   var = |linear| > l1 ? (l1 * sign(linear) - linear) / (n^-p / lr + 2 * l2) : 0
 *   accum = n;
 * with multiply_linear_by_lr (TF 2.3's functor), linear += g' * lr - (n^-p - accum^-p) * var and
 * var = |linear| > l1 * lr ? (l1 * lr * sign(linear) - linear) / (n^-p + 2 * l2 * lr) : 0. */
#define FTRL_LOOP(T, NAME, SHRINK, POWER)                                                          \
  static void NAME##_##T(int64_t b, int64_t e, void *p) {                                          \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[4], l1 = (T)a->s[5], l2 = (T)a->s[6], lp = (T)a->s[POWER];                \
    const T shrink = (SHRINK) >= 0 ? (T)a->s[(SHRINK) >= 0 ? (SHRINK) : 0] : (T)0;                 \
    const int half = lp == (T)-0.5, mlr = a->multiply_linear_by_lr;                                \
    const T l1_lr = l1 * lr, l2_lr = l2 * lr;                                                      \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ac = a->old[1];              \
    const T *restrict li = a->old[2];                                                              \
    T *restrict y = a->out[0], *restrict acn = a->out[1], *restrict lin = a->out[2];               \
    for (int64_t i = b; i < e; i++) {                                                              \
      T gi = g[i], xi = x[i], a0 = ac[i];                                                          \
      T gs = (SHRINK) >= 0 ? gi + (T)2 * shrink * xi : gi;                                         \
      T n = a0 + gi * gi;                                                                          \
      T pn = half ? ssqrt_##T(n) : spow_##T(n, -lp), p0 = half ? ssqrt_##T(a0) : spow_##T(a0, -lp); \
      T l, num, den, lim;                                                                          \
      if (mlr) {                                                                                   \
        l = li[i] + (gs * lr - (pn - p0) * xi);                                                    \
        num = l1_lr * SIGN(T, l) - l;                                                              \
        den = pn + (T)2 * l2_lr;                                                                   \
        lim = l1_lr;                                                                               \
      } else {                                                                                     \
        l = li[i] + (gs - (pn - p0) / lr * xi);                                                    \
        num = l1 * SIGN(T, l) - l;                                                                 \
        den = pn / lr + (T)2 * l2;                                                                 \
        lim = l1;                                                                                  \
      }                                                                                            \
      y[i] = sabs_##T(l) > lim ? num / den : (T)0;                                                 \
      lin[i] = l;                                                                                  \
      acn[i] = n;                                                                                  \
    }                                                                                              \
  }

/* FOBOS (TF's ApplyProximalGradientDescent): v = var - delta * alpha;
 * var = (l1 > 0 ? sign(v) * max(|v| - alpha * l1, 0) : v) / (1 + l2 * alpha). */
#define PROXIMAL_GD_LOOP(T)                                                                        \
  static void proximal_gd_##T(int64_t b, int64_t e, void *p) {                                     \
    const apply_args *a = p;                                                                       \
    const T alpha = (T)a->s[1], l1 = (T)a->s[2], l2 = (T)a->s[3];                                  \
    const T shrink = alpha * l1, den = (T)1 + l2 * alpha;                                          \
    const T *restrict g = a->grad, *restrict x = a->old[0];                                        \
    T *restrict y = a->out[0];                                                                     \
    for (int64_t i = b; i < e; i++) {                                                              \
      T v = x[i] - g[i] * alpha;                                                                   \
      if (l1 > (T)0) {                                                                             \
        T m = sabs_##T(v) - shrink;                                                                \
        y[i] = SIGN(T, v) * (m > (T)0 ? m : (T)0) / den;                                           \
      } else {                                                                                     \
        y[i] = v / den;                                                                            \
      }                                                                                            \
    }                                                                                              \
  }

/* FOBOS with Adagrad's rate (TF's ApplyProximalAdagrad): accum += g*g; r = lr / sqrt(accum);
 * v = var - g * r; var = (l1 > 0 ? sign(v) * max(|v| - r * l1, 0) : v) / (1 + l2 * r). */
#define PROXIMAL_ADAGRAD_LOOP(T)                                                                   \
  static void proximal_adagrad_##T(int64_t b, int64_t e, void *p) {                                \
    const apply_args *a = p;                                                                       \
    const T lr = (T)a->s[2], l1 = (T)a->s[3], l2 = (T)a->s[4];                                     \
    const T *restrict g = a->grad, *restrict x = a->old[0], *restrict ac = a->old[1];              \
    T *restrict y = a->out[0], *restrict acn = a->out[1];                                          \
    for (int64_t i = b; i < e; i++) {                                                              \
      T gi = g[i], n = ac[i] + gi * gi;                                                            \
      T r = lr * ((T)1 / ssqrt_##T(n));                                                            \
      T v = x[i] - gi * r;                                                                         \
      if (l1 > (T)0) {                                                                             \
        T m = sabs_##T(v) - r * l1;                                                                \
        y[i] = SIGN(T, v) * (m > (T)0 ? m : (T)0) / ((T)1 + l2 * r);                               \
      } else {                                                                                     \
        y[i] = v / ((T)1 + l2 * r);                                                                \
      }                                                                                            \
      acn[i] = n;                                                                                  \
    }                                                                                              \
  }

#define ALL_LOOPS(T)                                                                               \
  GD_LOOP(T)                                                                                       \
  MOMENTUM_LOOP(T)                                                                                 \
  ADAM_LOOP(T)                                                                                     \
  ADAGRAD_LOOP(T)                                                                                  \
  RMSPROP_LOOP(T)                                                                                  \
  CENTERED_LOOP(T)                                                                                 \
  ADADELTA_LOOP(T)                                                                                 \
  FTRL_LOOP(T, ftrl, -1, 7)                                                                        \
  FTRL_LOOP(T, ftrl_v2, 7, 8)                                                                      \
  PROXIMAL_GD_LOOP(T)                                                                              \
  PROXIMAL_ADAGRAD_LOOP(T)
ALL_LOOPS(float)
ALL_LOOPS(double)


/* Per formula: rough cycles per element for the parallel split (a few flops for the plain
 * updates; sqrt and division, ~10-20 cycles each on current x86, dominate the others), and
 * the float and double loops. */
typedef struct cpu_apply {
  int64_t cost;
  apply_loop loop[2];
} cpu_apply;

static const cpu_apply CPU_APPLY[] = {
    [TFC_APPLY_GD] = {2, {gd_float, gd_double}},
    [TFC_APPLY_MOMENTUM] = {4, {momentum_float, momentum_double}},
    [TFC_APPLY_ADAM] = {24, {adam_float, adam_double}},
    [TFC_APPLY_ADAGRAD] = {20, {adagrad_float, adagrad_double}},
    [TFC_APPLY_RMSPROP] = {24, {rmsprop_float, rmsprop_double}},
    [TFC_APPLY_CENTERED_RMSPROP] = {26, {centered_float, centered_double}},
    [TFC_APPLY_ADADELTA] = {40, {adadelta_float, adadelta_double}},
    [TFC_APPLY_FTRL] = {60, {ftrl_float, ftrl_double}},
    [TFC_APPLY_FTRL_V2] = {60, {ftrl_v2_float, ftrl_v2_double}},
    [TFC_APPLY_PROXIMAL_GD] = {6, {proximal_gd_float, proximal_gd_double}},
    [TFC_APPLY_PROXIMAL_ADAGRAD] = {30, {proximal_adagrad_float, proximal_adagrad_double}},
};
_Static_assert(sizeof CPU_APPLY / sizeof CPU_APPLY[0] == TFC_APPLY_KIND_COUNT, "a CPU loop per update formula");

static int cpu_run(tfc_kernel_ctx *c, const tfc_apply_state *st, const tfc_apply_args *a, int64_t n) {
  const cpu_apply *k = &CPU_APPLY[st->spec->kind];
  /* The loops take a mutable pointer by the pool's signature; they only read it. */
  tfc_kernel_parallel_for(c, n, k->cost, k->loop[st->dtype == TFC_DT_DOUBLE], (void *)a);
  return TFC_OK;
}

static int apply_init(const tfc_node *n, void **state, tfc_status *s) { return tfc_apply_init(n, state, cpu_run, s); }

#define ROW(name, hm)                                                                              \
  {.op = TFC_OP_##name, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = (hm),          \
   .init = apply_init, .compute = tfc_apply_compute, .free_state = tfc_apply_free},

static const tfc_kernel_def training_kernels[] = {TFC_APPLY_ROWS(ROW) TFC_APPLY_CPU_ROWS(ROW)};

int tfc_cpu_kernels_training(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, training_kernels, (int)(sizeof training_kernels / sizeof training_kernels[0]), s);
}
