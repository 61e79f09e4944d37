/*
 * kernels_nn_act — CPU kernels of the element-wise neural-network ops: the activations (Relu,
 * Relu6, LeakyRelu, Elu, Selu, Softplus, Softsign, Tanh, Sigmoid), their gradient ops, and the
 * element-wise math that gradients need (Floor, Ceil, Round, Log1p, Expm1, Sin, Cos, Tan,
 * SquaredDifference, SqrtGrad, RsqrtGrad, ReciprocalGrad/InvGrad). Registered from
 * tfc_cpu_kernels_nn (kernels_nn.c), which also uses tfc_nn_exp_f32 for softmax.
 *
 * Every (op, dtype) is one flat loop over restrict-qualified pointers with the op's formula
 * written branch-free (selects), so the compiler vectorizes it; the dtype is chosen once per
 * call through a table. The output takes over an input buffer when the kernel holds its only
 * reference (gradients before features), and large tensors are split over the intra-op pool.
 *
 * Float exp: libm's expf has a scalar path (errno) that stops vectorization, and exp is the
 * cost of Sigmoid, Tanh and softmax. nn_expf below is the classic Cody-Waite reduction
 * x = n ln2 + r (ln2 split in two so n*C1 is exact) with a degree-6 minimax polynomial for
 * exp(r) on |r| <= ln2/2 and 2^n built in the exponent bits: about 1 ulp, and branch-free.
 * Inputs below -86.3 give 0 (true values < 3e-38) and above ln(FLT_MAX) give +inf; NaN stays
 * NaN. Tanh uses a small odd polynomial for |x| < 0.625 (where 1 - 2/(e^2x+1) would cancel)
 * and that formula above. Double precision uses libm throughout. Elu, Selu, Softplus and
 * Expm1/Log1p keep libm's expm1f/log1pf: near zero exp(x)-1 would lose the digits TF keeps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/simd.h"
#include "device/cpu/cwise_int.h"

#if defined(__GNUC__) && !defined(__clang__)
/* Under the default -ftrapping-math GCC will not turn a float comparison into a vector
 * select (the compare could raise an FP exception the scalar code would not), so every
 * clamp in nn_expf kept the loops scalar. Nothing in tfc reads the FP exception flags, and
 * results do not change. */
#pragma GCC optimize("no-trapping-math")
#endif


/* ---- vectorizable float exp ---- */

static inline float nn_expf(float x) {
  /* NaN-preserving clamps: n stays in [-125, 128] so 2^(n-1) is a normal float. */
  float xc = x < -86.3f ? -86.3f : x;
  xc = xc > 88.7228394f ? 88.7228394f : xc;
  float fx = xc * 1.44269504088896341f + 0.5f;
  float fl = (float)(int32_t)fx;
  /* floor without a conditional subtraction: GCC will not speculate an FP op out of a
   * branch under -ftrapping-math, which would stop the loop from vectorizing */
  fl = fl - (fl > fx ? 1.0f : 0.0f);
  /* ln2 = 0.693359375 - 2.12194440e-4: the first part has few bits, so fl * C1 is exact. */
  float r = xc - fl * 0.693359375f + fl * 2.12194440e-4f;
  float z = r * r;
  float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r +
              4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;
  float y = p * z + r + 1.0f;
  uint32_t bits = (uint32_t)((int32_t)fl - 1 + 127) << 23;
  float pw;
  memcpy(&pw, &bits, sizeof pw);
  y = y * pw * 2.0f;
  y = x < -86.3f ? 0.0f : y;
  return x > 88.7228394f ? INFINITY : y;
}

/* ---- loops ---- */

typedef struct nn_params {
  float alpha; /* LeakyRelu */
} nn_params;

typedef void (*un_fn)(const void *x, void *y, int64_t n, const nn_params *p);
typedef void (*bin_fn)(const void *a, const void *b, void *z, int64_t n, const nn_params *p);

#define UN(name, T, EXPR)                                                                         \
  static void name##_##T(const void *xv, void *yv, int64_t n, const nn_params *p) {               \
    const T *restrict x = xv;                                                                     \
    T *restrict y = yv;                                                                           \
    const float alpha = p->alpha; /* hoisted: a load in the loop body blocks vectorization */     \
    (void)alpha;                                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const T a = x[i];                                                                           \
      y[i] = (T)(EXPR);                                                                           \
    }                                                                                             \
  }

/* Same-shape binary: a is input 0 (gradients, or y), b input 1 (features/outputs, or dy). */
#define BIN(name, T, EXPR)                                                                        \
  static void name##_##T(const void *av, const void *bv, void *zv, int64_t n, const nn_params *p) { \
    const T *restrict x0 = av;                                                                    \
    const T *restrict x1 = bv;                                                                    \
    T *restrict z = zv;                                                                           \
    const float alpha = p->alpha;                                                                 \
    (void)alpha;                                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const T a = x0[i], b = x1[i];                                                               \
      z[i] = (T)(EXPR);                                                                           \
    }                                                                                             \
  }

#define FOR_F(M, name, ...) M(name, f32, __VA_ARGS__) M(name, f64, __VA_ARGS__)
#define FOR_SINT(M, name, ...)                                                                    \
  M(name, i32, __VA_ARGS__) M(name, i64, __VA_ARGS__) M(name, i8, __VA_ARGS__) M(name, i16, __VA_ARGS__)
#define FOR_UINT(M, name, ...) M(name, u8, __VA_ARGS__) M(name, u16, __VA_ARGS__)
#define FOR_INT(M, name, ...) FOR_SINT(M, name, __VA_ARGS__) FOR_UINT(M, name, __VA_ARGS__)

/* Relu family: real types, integers included. */
/* Written so NaN passes through Relu/Relu6 and a NaN gradient survives the grads, as TF's
 * cwiseMax/cwiseMin and gradients * (features > 0) do. */
#define RELU_EXPR(T) (a < 0 ? (T)0 : a)
#define UN_T(name, T, E) UN(name, T, E(T))
#define BIN_T(name, T, E) BIN(name, T, E(T))
FOR_F(UN_T, relu, RELU_EXPR)
FOR_SINT(UN_T, relu, RELU_EXPR)
#define RELU_U_EXPR(T) (a)
FOR_UINT(UN_T, relu, RELU_U_EXPR)
#define RELU6_EXPR(T) (a < 0 ? (T)0 : (a > 6 ? (T)6 : a))
FOR_F(UN_T, relu6, RELU6_EXPR)
FOR_SINT(UN_T, relu6, RELU6_EXPR)
#define RELU6_U_EXPR(T) (a > 6 ? (T)6 : a)
FOR_UINT(UN_T, relu6, RELU6_U_EXPR)
/* ReluGrad(gradients, features): the gradient passes where features > 0. */
#define RELUG_EXPR(T) (a * (T)(b > 0))
FOR_F(BIN_T, relu_grad, RELUG_EXPR)
FOR_INT(BIN_T, relu_grad, RELUG_EXPR)
#define RELU6G_EXPR(T) (a * (T)((b > 0) & (b < 6)))
FOR_F(BIN_T, relu6_grad, RELU6G_EXPR)
FOR_INT(BIN_T, relu6_grad, RELU6G_EXPR)

UN(leaky_relu, f32, a > 0 ? a : a * alpha)
UN(leaky_relu, f64, a > 0 ? a : a * (double)alpha)
BIN(leaky_relu_grad, f32, b > 0 ? a : a * alpha)
BIN(leaky_relu_grad, f64, b > 0 ? a : a * (double)alpha)

UN(elu, f32, a < 0 ? expm1f(a) : a)
UN(elu, f64, a < 0 ? expm1(a) : a)
/* EluGrad(gradients, outputs): outputs < 0 means outputs = e^x - 1, so d/dx = outputs + 1. */
BIN(elu_grad, f32, b < 0 ? a * (b + 1.0f) : a)
BIN(elu_grad, f64, b < 0 ? a * (b + 1.0) : a)

/* SELU's constants (Klambauer et al. 2017), as TF uses them. */
#define SELU_SCALE 1.0507009873554804934193349852946
#define SELU_ALPHA 1.6732632423543772848170429916717
UN(selu, f32, a < 0 ? (float)(SELU_SCALE * SELU_ALPHA) * expm1f(a) : (float)SELU_SCALE * a)
UN(selu, f64, a < 0 ? (SELU_SCALE * SELU_ALPHA) * expm1(a) : SELU_SCALE * a)
BIN(selu_grad, f32, b < 0 ? a * (b + (float)(SELU_SCALE * SELU_ALPHA)) : a * (float)SELU_SCALE)
BIN(selu_grad, f64, b < 0 ? a * (b + SELU_SCALE * SELU_ALPHA) : a * SELU_SCALE)

/* Softplus as TF: x above -log(eps)-2 returns x, below log(eps)+2 returns e^x, else log1p(e^x).
 * The thresholds: log(FLT_EPSILON) + 2 = -13.942385, log(DBL_EPSILON) + 2 = -34.043653. */
#define SP_TH_F (-13.9423847f)
#define SP_TH_D (-34.04365338911715)
UN(softplus, f32, a > -SP_TH_F ? a : (a < SP_TH_F ? expf(a) : log1pf(expf(a))))
UN(softplus, f64, a > -SP_TH_D ? a : (a < SP_TH_D ? exp(a) : log1p(exp(a))))
BIN(softplus_grad, f32, a / (1.0f + nn_expf(-b)))
BIN(softplus_grad, f64, a / (1.0 + exp(-b)))
UN(softsign, f32, a / (1.0f + fabsf(a)))
UN(softsign, f64, a / (1.0 + fabs(a)))
BIN(softsign_grad, f32, a / ((1.0f + fabsf(b)) * (1.0f + fabsf(b))))
BIN(softsign_grad, f64, a / ((1.0 + fabs(b)) * (1.0 + fabs(b))))

/* ---- the float activations of recurrent cells, explicitly vectorized ----
 *
 * Sigmoid, Tanh and their gradients are most of an LSTM's element-wise time. The formulas are
 * the scalar ones above, written on GCC/Clang vector types so that each is compiled for every
 * vector unit of base/simd.h: 16 lanes with AVX-512, 8 with AVX2+FMA, 4 for the build's
 * baseline (SSE2 on x86-64, NEON on aarch64). The tail of a
 * loop goes through the same vector code on a padded copy, so every element of a tensor gets
 * the same formula. NaN propagates (every clamp is a select that keeps x when the comparison
 * is false), +-inf saturates. */

#if defined(__GNUC__) && !defined(__clang__)
/* The vector helpers are static and inlined: no ABI crosses a call. */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef float vf4 __attribute__((vector_size(16)));
typedef int32_t vi4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
typedef int32_t vi16 __attribute__((vector_size(64)));

/* m ? a : b on lanes, m all-ones or zero per lane (vi the lanes' integer type) */
#define VSEL(vf, vi, m, a, b) ((vf)(((vi)(m) & (vi)(a)) | (~(vi)(m) & (vi)(b))))
#define VSPLAT(W, c) ((vf##W){0} + (float)(c))

#define VEC_MATH(SUF, TGT, W)                                                                        \
  TGT static inline __attribute__((always_inline)) vf##W vexp_##SUF(vf##W x) {                                                         \
    vf##W xc = VSEL(vf##W, vi##W, x < -86.3f, VSPLAT(W, -86.3f), x);                                                  \
    xc = VSEL(vf##W, vi##W, xc > 88.7228394f, VSPLAT(W, 88.7228394f), xc);                                         \
    vf##W fx = xc * 1.44269504088896341f + 0.5f;                                                     \
    vf##W fl = __builtin_convertvector(__builtin_convertvector(fx, vi##W), vf##W);                         \
    fl = fl - (vf##W)((vi##W)(fl > fx) & (vi##W)VSPLAT(W, 1.0f));                                             \
    vf##W r = xc - fl * 0.693359375f + fl * 2.12194440e-4f;                                          \
    vf##W z = r * r;                                                                                 \
    vf##W p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r +             \
             4.1665795894e-2f) * r + 1.6666665459e-1f) * r + 5.0000001201e-1f;                    \
    vf##W y = p * z + r + 1.0f;                                                                      \
    vi##W bits = (__builtin_convertvector(fl, vi##W) + (127 - 1)) << 23;                                \
    y = y * (vf##W)bits * 2.0f;                                                                      \
    y = VSEL(vf##W, vi##W, x < -86.3f, VSPLAT(W, 0.0f), y);                                                        \
    return VSEL(vf##W, vi##W, x > 88.7228394f, VSPLAT(W, INFINITY), y);                                            \
  }                                                                                               \
  TGT static inline __attribute__((always_inline)) vf##W vsigmoid_##SUF(vf##W x) { return 1.0f / (1.0f + vexp_##SUF(-x)); }            \
  TGT static inline __attribute__((always_inline)) vf##W vtanh_##SUF(vf##W x) {                                                        \
    vi##W sign = (vi##W)x & INT32_MIN;                                                        \
    vf##W ax = (vf##W)((vi##W)x ^ sign);                                                                   \
    vf##W s = x * x;                                                                                 \
    vf##W small = ((((-5.70498872745e-3f * s + 2.06390887954e-2f) * s - 5.37397155531e-2f) * s +    \
                 1.33314422036e-1f) * s - 3.33332819422e-1f) * s * x + x;                         \
    vf##W big = 1.0f - 2.0f / (vexp_##SUF(2.0f * ax) + 1.0f);                                        \
    big = (vf##W)((vi##W)big | sign);                                                                   \
    return VSEL(vf##W, vi##W, ax < 0.625f, small, big);                                                         \
  }                                                                                               \
  TGT static void sigmoid_##SUF(const void *xv, void *yv, int64_t n, const nn_params *p) {        \
    VEC_UN_LOOP(W, vsigmoid_##SUF)                                                                   \
  }                                                                                               \
  TGT static void tanh_##SUF(const void *xv, void *yv, int64_t n, const nn_params *p) {           \
    VEC_UN_LOOP(W, vtanh_##SUF)                                                                      \
  }                                                                                               \
  TGT static void exp_##SUF(const float *xv, float *yv, int64_t n) { VEC_UN_LOOP(W, vexp_##SUF) }    \
  TGT static inline __attribute__((always_inline)) vf##W vtanh_grad_##SUF(vf##W a, vf##W b) { return b * (1.0f - a * a); }                \
  TGT static inline __attribute__((always_inline)) vf##W vsigmoid_grad_##SUF(vf##W a, vf##W b) { return b * a * (1.0f - a); }             \
  TGT static void tanh_grad_##SUF(const void *av, const void *bv, void *zv, int64_t n,            \
                                  const nn_params *p) {                                           \
    VEC_BIN_LOOP(W, vtanh_grad_##SUF)                                                                \
  }                                                                                               \
  TGT static void sigmoid_grad_##SUF(const void *av, const void *bv, void *zv, int64_t n,         \
                                     const nn_params *p) {                                        \
    VEC_BIN_LOOP(W, vsigmoid_grad_##SUF)                                                             \
  }

/* Unaligned loads and stores through memcpy (one vector move each once compiled). */
#define VEC_UN_LOOP(W, F)                                                                            \
  const char *x = (const char *)xv;                                                               \
  char *y = (char *)yv;                                                                           \
  int64_t i = 0;                                                                                  \
  for (; i + W <= n; i += W) {                                                                  \
    vf##W v;                                                                                         \
    memcpy(&v, x + i * 4, sizeof v);                                                              \
    v = F(v);                                                                                     \
    memcpy(y + i * 4, &v, sizeof v);                                                              \
  }                                                                                               \
  if (i < n) {                                                                                    \
    vf##W v = {0};                                                                                   \
    memcpy(&v, x + i * 4, (size_t)(n - i) * 4);                                                   \
    v = F(v);                                                                                     \
    memcpy(y + i * 4, &v, (size_t)(n - i) * 4);                                                   \
  }

#define VEC_BIN_LOOP(W, F)                                                                           \
  const char *a = (const char *)av, *b = (const char *)bv;                                        \
  char *z = (char *)zv;                                                                           \
  int64_t i = 0;                                                                                  \
  for (; i + W <= n; i += W) {                                                                  \
    vf##W va, vb;                                                                                    \
    memcpy(&va, a + i * 4, sizeof va);                                                            \
    memcpy(&vb, b + i * 4, sizeof vb);                                                            \
    va = F(va, vb);                                                                               \
    memcpy(z + i * 4, &va, sizeof va);                                                            \
  }                                                                                               \
  if (i < n) {                                                                                    \
    vf##W va = {0}, vb = {0};                                                                        \
    memcpy(&va, a + i * 4, (size_t)(n - i) * 4);                                                  \
    memcpy(&vb, b + i * 4, (size_t)(n - i) * 4);                                                  \
    va = F(va, vb);                                                                               \
    memcpy(z + i * 4, &va, (size_t)(n - i) * 4);                                                  \
  }

VEC_MATH(base, , 4)
#if TFC_SIMD_X86
VEC_MATH(avx2, TFC_SIMD_TARGET_AVX2, 8)
VEC_MATH(avx512, TFC_SIMD_TARGET_AVX512, 16)
#define SIMD_PICK(name, call)                                                                     \
  do {                                                                                            \
    int l_ = tfc_simd_level();                                                                    \
    if (l_ >= TFC_SIMD_AVX512) name##_avx512 call;                                                \
    else if (l_ >= TFC_SIMD_AVX2) name##_avx2 call;                                               \
    else name##_base call;                                                                        \
  } while (0)
#else
#define SIMD_PICK(name, call) name##_base call
#endif

void tfc_nn_exp_f32(const float *x, float *y, int64_t n) { SIMD_PICK(exp, (x, y, n)); }

static void tanh_f32(const void *xv, void *yv, int64_t n, const nn_params *p) { SIMD_PICK(tanh, (xv, yv, n, p)); }
static void sigmoid_f32(const void *xv, void *yv, int64_t n, const nn_params *p) {
  SIMD_PICK(sigmoid, (xv, yv, n, p));
}
static void tanh_grad_f32(const void *av, const void *bv, void *zv, int64_t n, const nn_params *p) {
  SIMD_PICK(tanh_grad, (av, bv, zv, n, p));
}
static void sigmoid_grad_f32(const void *av, const void *bv, void *zv, int64_t n, const nn_params *p) {
  SIMD_PICK(sigmoid_grad, (av, bv, zv, n, p));
}

UN(tanh, f64, tanh(a))
UN(sigmoid, f64, 1.0 / (1.0 + exp(-a)))
/* (y, dy) gradients, in TF's operand order (float: the vector code above). */
BIN(tanh_grad, f64, b * (1.0 - a * a))
BIN(sigmoid_grad, f64, b * a * (1.0 - a))
BIN(sqrt_grad, f32, 0.5f * b / a)
BIN(sqrt_grad, f64, 0.5 * b / a)
BIN(rsqrt_grad, f32, -0.5f * (b * a) * (a * a))
BIN(rsqrt_grad, f64, -0.5 * (b * a) * (a * a))
BIN(reciprocal_grad, f32, -(a * a) * b)
BIN(reciprocal_grad, f64, -(a * a) * b)

UN(floor, f32, floorf(a))
UN(floor, f64, floor(a))
UN(ceil, f32, ceilf(a))
UN(ceil, f64, ceil(a))
/* Round: half to even, as TF (rint in the default rounding mode). */
UN(round, f32, rintf(a))
UN(round, f64, rint(a))
UN(round, i32, a)
UN(round, i64, a)
UN(log1p, f32, log1pf(a))
UN(log1p, f64, log1p(a))
UN(expm1, f32, expm1f(a))
UN(expm1, f64, expm1(a))
UN(sin, f32, sinf(a))
UN(sin, f64, sin(a))
UN(cos, f32, cosf(a))
UN(cos, f64, cos(a))
UN(tan, f32, tanf(a))
UN(tan, f64, tan(a))

/* ---- dispatch ---- */

#define E(name, T) [DTN_##T] = name##_##T
#define DTN_f32 TFC_DT_FLOAT
#define DTN_f64 TFC_DT_DOUBLE
#define DTN_i32 TFC_DT_INT32
#define DTN_i64 TFC_DT_INT64
#define DTN_i8 TFC_DT_INT8
#define DTN_i16 TFC_DT_INT16
#define DTN_u8 TFC_DT_UINT8
#define DTN_u16 TFC_DT_UINT16
#define EF(name) E(name, f32), E(name, f64)
#define EI(name) E(name, i32), E(name, i64), E(name, i8), E(name, i16), E(name, u8), E(name, u16)

#define M_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_I                                                                                       \
  (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) |         \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_UINT16))

typedef struct un_job {
  un_fn fn;
  const char *x;
  char *y;
  size_t size;
  const nn_params *p;
} un_job;

static void un_shard(int64_t b, int64_t e, void *arg) {
  un_job *j = arg;
  j->fn(j->x + (size_t)b * j->size, j->y + (size_t)b * j->size, e - b, j->p);
}

typedef struct bin_job {
  bin_fn fn;
  const char *a, *b;
  char *z;
  size_t size;
  const nn_params *p;
} bin_job;

static void bin_shard(int64_t b, int64_t e, void *arg) {
  bin_job *j = arg;
  size_t o = (size_t)b * j->size;
  j->fn(j->a + o, j->b + o, j->z + o, e - b, j->p);
}

/* The per-node state: the dtype table of the op and its attrs. */
typedef struct act_kernel {
  const void *const *fns; /* un_fn or bin_fn per dtype */
  int64_t cost;
  int binary;
  nn_params p;
} act_kernel;

static int pick(tfc_kernel_ctx *c, const void *const *fns, int dtype, const void **out) {
  *out = dtype > 0 && dtype < TFC_DT_COUNT ? fns[dtype] : NULL;
  if (!*out)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(dtype));
  return TFC_OK;
}

static int same_shape(const tfc_tensor *a, const tfc_tensor *b) {
  return a->ndims == b->ndims && memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->ndims) == 0;
}

static int act_compute(tfc_kernel_ctx *c, const act_kernel *k) {
  const tfc_tensor *x = c->inputs[0];
  const void *fn;
  TFC_TRY(pick(c, k->fns, x->dtype, &fn));
  if (!k->binary) {
    tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
    if (!y) return c->status->code;
    un_job j = {(un_fn)fn, x->data, y->data, tfc_dtype_size(x->dtype), &k->p};
    tfc_kernel_parallel_for(c, x->n_elems, k->cost, un_shard, &j);
    return TFC_OK;
  }
  const tfc_tensor *b = c->inputs[1];
  if (!same_shape(x, b)) {
    char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
    tfc_tensor_shape_str(x, sa, sizeof sa);
    tfc_tensor_shape_str(b, sb, sizeof sb);
    /* TF's relu_op.h check for the activation gradients; the (y, dy) ops check sizes too. */
    if (c->node->op->n_inputs == 2 && strcmp(c->node->op->inputs[0].name, "gradients") == 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "g and a must be the same size");
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Inputs must have the same size and shape. Input 0: %s != input 1: %s", sa, sb);
  }
  /* Prefer the gradient's buffer (input 0 for the nn grads, dy = input 1 for (y, dy) ops). */
  int first = strcmp(c->node->op->inputs[0].name, "gradients") == 0 ? 0 : 1;
  tfc_tensor *z = NULL;
  if (tfc_tensor_can_forward(c->inputs[first]))
    z = tfc_kernel_forward_or_alloc(c, first, 0, x->dtype, x->dims, x->ndims);
  else
    z = tfc_kernel_forward_or_alloc(c, 1 - first, 0, x->dtype, x->dims, x->ndims);
  if (!z) return c->status->code;
  bin_job j = {(bin_fn)fn, x->data, b->data, z->data, tfc_dtype_size(x->dtype), &k->p};
  tfc_kernel_parallel_for(c, x->n_elems, k->cost, bin_shard, &j);
  return TFC_OK;
}

/* One table per op; unary and binary tables share the act_kernel runner. */
#define UTAB(name, ...) static const void *const name##_tab[TFC_DT_COUNT] = {__VA_ARGS__};
UTAB(relu, EF(relu), EI(relu))
UTAB(relu6, EF(relu6), EI(relu6))
UTAB(relu_grad, EF(relu_grad), EI(relu_grad))
UTAB(relu6_grad, EF(relu6_grad), EI(relu6_grad))
UTAB(leaky_relu, EF(leaky_relu))
UTAB(leaky_relu_grad, EF(leaky_relu_grad))
UTAB(elu, EF(elu))
UTAB(elu_grad, EF(elu_grad))
UTAB(selu, EF(selu))
UTAB(selu_grad, EF(selu_grad))
UTAB(softplus, EF(softplus))
UTAB(softplus_grad, EF(softplus_grad))
UTAB(softsign, EF(softsign))
UTAB(softsign_grad, EF(softsign_grad))
UTAB(tanh, EF(tanh))
UTAB(tanh_grad, EF(tanh_grad))
UTAB(sigmoid, EF(sigmoid))
UTAB(sigmoid_grad, EF(sigmoid_grad))
UTAB(sqrt_grad, EF(sqrt_grad))
UTAB(rsqrt_grad, EF(rsqrt_grad))
UTAB(reciprocal_grad, EF(reciprocal_grad))
UTAB(floor, EF(floor))
UTAB(ceil, EF(ceil))
UTAB(round, EF(round), E(round, i32), E(round, i64))
UTAB(log1p, EF(log1p))
UTAB(expm1, EF(expm1))
UTAB(sin, EF(sin))
UTAB(cos, EF(cos))
UTAB(tan, EF(tan))

/* cost: rough element-operations per element, for the parallel split. */
#define KERNEL(name, is_bin, c_)                                                                  \
  static int name##_compute(tfc_kernel_ctx *c) {                                                  \
    static const act_kernel k = {name##_tab, c_, is_bin, {0}};                                    \
    return act_compute(c, &k);                                                                    \
  }
KERNEL(relu, 0, 1)
KERNEL(relu6, 0, 1)
KERNEL(relu_grad, 1, 1)
KERNEL(relu6_grad, 1, 1)
KERNEL(elu, 0, 20)
KERNEL(elu_grad, 1, 2)
KERNEL(selu, 0, 20)
KERNEL(selu_grad, 1, 2)
KERNEL(softplus, 0, 40)
KERNEL(softplus_grad, 1, 10)
KERNEL(softsign, 0, 4)
KERNEL(softsign_grad, 1, 4)
KERNEL(tanh, 0, 10)
KERNEL(tanh_grad, 1, 2)
KERNEL(sigmoid, 0, 10)
KERNEL(sigmoid_grad, 1, 2)
KERNEL(sqrt_grad, 1, 4)
KERNEL(rsqrt_grad, 1, 2)
KERNEL(reciprocal_grad, 1, 2)
KERNEL(floor, 0, 1)
KERNEL(ceil, 0, 1)
KERNEL(round, 0, 1)
KERNEL(log1p, 0, 20)
KERNEL(expm1, 0, 20)
KERNEL(sin, 0, 20)
KERNEL(cos, 0, 20)
KERNEL(tan, 0, 20)

/* LeakyRelu carries alpha, parsed once per node. */
static int leaky_init(const tfc_node *n, void **state, tfc_status *s) {
  act_kernel *k = calloc(1, sizeof *k);
  if (!k) return TFC_OOM(s);
  const tfc_attr_value *v = tfc_node_attr(n, "alpha");
  k->p.alpha = v && v->kind == TFC_ATTR_FLOAT ? v->u.f : 0.2f;
  k->binary = n->op->id == TFC_OP_LeakyReluGrad;
  k->fns = k->binary ? leaky_relu_grad_tab : leaky_relu_tab;
  k->cost = 1;
  *state = k;
  return TFC_OK;
}

static int leaky_compute(tfc_kernel_ctx *c) { return act_compute(c, c->state); }

/* ---- SquaredDifference: (x - y)^2 with numpy broadcasting ---- */

typedef void (*sqd_fn)(const void *x, const void *y, void *z, int64_t n, int64_t sx, int64_t sy);

/* sx / sy: 1 when the operand advances along the run, 0 when it is broadcast. */
#define SQD(T, W)                                                                                 \
  static void sqd_##T(const void *xv, const void *yv, void *zv, int64_t n, int64_t sx, int64_t sy) { \
    const T *restrict x = xv;                                                                     \
    const T *restrict y = yv;                                                                     \
    T *restrict z = zv;                                                                           \
    if (sx && sy) {                                                                               \
      for (int64_t i = 0; i < n; i++) {                                                           \
        W d = (W)x[i] - (W)y[i];                                                                  \
        z[i] = (T)(d * d);                                                                        \
      }                                                                                           \
    } else if (sx) {                                                                              \
      const W b = (W)y[0];                                                                        \
      for (int64_t i = 0; i < n; i++) {                                                           \
        W d = (W)x[i] - b;                                                                        \
        z[i] = (T)(d * d);                                                                        \
      }                                                                                           \
    } else {                                                                                      \
      const W a = (W)x[0];                                                                        \
      for (int64_t i = 0; i < n; i++) {                                                           \
        W d = a - (W)y[i];                                                                        \
        z[i] = (T)(d * d);                                                                        \
      }                                                                                           \
    }                                                                                             \
  }
SQD(f32, float)
SQD(f64, double)
SQD(i32, uint32_t) /* wraps on overflow, as TF's integer arithmetic does in practice */
SQD(i64, uint64_t)

static const sqd_fn sqd_tab[TFC_DT_COUNT] = {E(sqd, f32), E(sqd, f64), E(sqd, i32), E(sqd, i64)};

typedef struct sqd_job {
  sqd_fn fn;
  const tfc_cwise_bcast *b;
  const char *x, *y;
  char *z;
  size_t size;
  int64_t run; /* inner run length */
} sqd_job;

static void sqd_flat_shard(int64_t b, int64_t e, void *arg) {
  sqd_job *j = arg;
  int64_t sx = j->b->strides[0][0], sy = j->b->strides[1][0];
  j->fn(j->x + (size_t)(b * sx) * j->size, j->y + (size_t)(b * sy) * j->size, j->z + (size_t)b * j->size,
        e - b, sx, sy);
}

static void sqd_rows_shard(int64_t b, int64_t e, void *arg) {
  sqd_job *j = arg;
  int last = j->b->rank - 1;
  for (int64_t r = b; r < e; r++) {
    int64_t offs[3];
    tfc_cwise_bcast_row(j->b, r, offs);
    j->fn(j->x + (size_t)offs[0] * j->size, j->y + (size_t)offs[1] * j->size,
          j->z + (size_t)(r * j->run) * j->size, j->run, j->b->strides[0][last], j->b->strides[1][last]);
  }
}

static int sqd_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  sqd_fn fn = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? sqd_tab[x->dtype] : NULL;
  if (!fn)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "SquaredDifference is not implemented for %s",
                            tfc_dtype_name(x->dtype));
  tfc_cwise_bcast b;
  const tfc_tensor *ins[2] = {x, y};
  if (tfc_cwise_bcast_init(&b, 2, ins)) {
    char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa), tfc_tensor_shape_str(y, sb, sizeof sb));
  }
  int fwd = x->n_elems == b.n_out && x->ndims == b.out_ndims ? 0 : (y->n_elems == b.n_out && y->ndims == b.out_ndims ? 1 : -1);
  tfc_tensor *z = fwd >= 0 ? tfc_kernel_forward_or_alloc(c, fwd, 0, x->dtype, b.out_dims, b.out_ndims)
                           : tfc_kernel_alloc_output(c, 0, x->dtype, b.out_dims, b.out_ndims);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  sqd_job j = {fn, &b, x->data, y->data, z->data, tfc_dtype_size(x->dtype), b.dims[b.rank - 1]};
  if (b.rank == 1) tfc_kernel_parallel_for(c, b.n_out, 2, sqd_flat_shard, &j);
  else tfc_kernel_parallel_for(c, b.n_out / j.run, 2 * j.run, sqd_rows_shard, &j);
  return TFC_OK;
}

/* ---- registration ---- */

#define ROW(opn, mask, fn) {.op = TFC_OP_##opn, .type_attr = "T", .types = (mask), .compute = fn##_compute}

static const tfc_kernel_def defs[] = {
    ROW(Relu, M_F | M_I, relu),
    ROW(Relu6, M_F | M_I, relu6),
    ROW(ReluGrad, M_F | M_I, relu_grad),
    ROW(Relu6Grad, M_F | M_I, relu6_grad),
    {.op = TFC_OP_LeakyRelu, .type_attr = "T", .types = M_F, .init = leaky_init, .compute = leaky_compute,
     .free_state = free},
    {.op = TFC_OP_LeakyReluGrad, .type_attr = "T", .types = M_F, .init = leaky_init,
     .compute = leaky_compute, .free_state = free},
    ROW(Elu, M_F, elu),
    ROW(EluGrad, M_F, elu_grad),
    ROW(Selu, M_F, selu),
    ROW(SeluGrad, M_F, selu_grad),
    ROW(Softplus, M_F, softplus),
    ROW(SoftplusGrad, M_F, softplus_grad),
    ROW(Softsign, M_F, softsign),
    ROW(SoftsignGrad, M_F, softsign_grad),
    ROW(Tanh, M_F, tanh),
    ROW(TanhGrad, M_F, tanh_grad),
    ROW(Sigmoid, M_F, sigmoid),
    ROW(SigmoidGrad, M_F, sigmoid_grad),
    ROW(SqrtGrad, M_F, sqrt_grad),
    ROW(RsqrtGrad, M_F, rsqrt_grad),
    ROW(ReciprocalGrad, M_F, reciprocal_grad),
    ROW(InvGrad, M_F, reciprocal_grad),
    ROW(Floor, M_F, floor),
    ROW(Ceil, M_F, ceil),
    ROW(Round, M_F | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64), round),
    ROW(Log1p, M_F, log1p),
    ROW(Expm1, M_F, expm1),
    ROW(Sin, M_F, sin),
    ROW(Cos, M_F, cos),
    ROW(Tan, M_F, tan),
    ROW(SquaredDifference, M_F | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64), sqd),
};

int tfc_cpu_kernels_nn_act(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
