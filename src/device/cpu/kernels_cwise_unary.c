/*
 * kernels_cwise_unary — CPU kernels of the element-wise unary ops: Abs, Neg, Inv/Reciprocal,
 * Square, Sqrt, Rsqrt, Exp, Log, Sign and LogicalNot.
 *
 * Each (op, dtype) is one flat restrict-qualified loop; the output takes over the input's
 * buffer when the kernel holds the only reference, and large tensors are split over the
 * intra-op pool. Integer Neg/Abs/Square wrap as TF's do (computed in unsigned arithmetic).
 */
#include <math.h>

#include "device/cpu/cwise_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef void (*un_fn)(const void *x, void *z, int64_t n);

#define CW_UN(name, T, EXPR)                                                                      \
  static void name##_##T(const void *xv, void *zv, int64_t n) {                                   \
    const T *restrict x = xv;                                                                     \
    T *restrict z = zv;                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const T a = x[i];                                                                           \
      z[i] = (T)(EXPR);                                                                           \
    }                                                                                             \
  }

#define UN_SINT(name, EXPR)                                                                       \
  CW_UN(name, i32, EXPR) CW_UN(name, i64, EXPR) CW_UN(name, i8, EXPR) CW_UN(name, i16, EXPR)

CW_UN(abs, f32, fabsf(a))
CW_UN(abs, f64, fabs(a))
#define ABS_INT(T) CW_UN(abs, T, a < 0 ? (T)(0 - (w_##T)a) : a)
ABS_INT(i32)
ABS_INT(i64)
ABS_INT(i8)
ABS_INT(i16)
CW_UN(neg, f32, -a)
CW_UN(neg, f64, -a)
#define NEG_INT(T) CW_UN(neg, T, 0 - (w_##T)a)
NEG_INT(i32)
NEG_INT(i64)
NEG_INT(i8)
NEG_INT(i16)
CW_UN(reciprocal, f32, 1.0f / a)
CW_UN(reciprocal, f64, 1.0 / a)
CW_UN(square, f32, a * a)
CW_UN(square, f64, a * a)
CW_UN(square, i32, (w_i32)a * (w_i32)a)
CW_UN(square, i64, (w_i64)a * (w_i64)a)
#if defined(__SSE2__)
/* sqrt keeps a scalar path to set errno unless the build passes -fno-math-errno, which stops
 * the compiler from vectorizing it; the square-root instructions are used directly instead
 * (correctly rounded, like sqrtf/sqrt). */
#define SQRT_SIMD(name, T, W, load, store, vsqrt, set1, div, RECIP)                              \
  static void name##_##T(const void *xv, void *zv, int64_t n) {                                   \
    const T *x = xv;                                                                              \
    T *z = zv;                                                                                    \
    int64_t i = 0;                                                                                \
    for (; i + W <= n; i += W) {                                                                  \
      __typeof__(vsqrt(load(x))) r = vsqrt(load(x + i));                                          \
      store(z + i, RECIP ? div(set1(1), r) : r);                                                  \
    }                                                                                             \
    for (; i < n; i++) z[i] = RECIP ? (T)1 / (T)sqrt(x[i]) : (T)sqrt(x[i]);                       \
  }
SQRT_SIMD(sqrt, f32, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_sqrt_ps, _mm_set1_ps, _mm_div_ps, 0)
SQRT_SIMD(sqrt, f64, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_sqrt_pd, _mm_set1_pd, _mm_div_pd, 0)
SQRT_SIMD(rsqrt, f32, 4, _mm_loadu_ps, _mm_storeu_ps, _mm_sqrt_ps, _mm_set1_ps, _mm_div_ps, 1)
SQRT_SIMD(rsqrt, f64, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_sqrt_pd, _mm_set1_pd, _mm_div_pd, 1)
#else
CW_UN(sqrt, f32, sqrtf(a))
CW_UN(sqrt, f64, sqrt(a))
CW_UN(rsqrt, f32, 1.0f / sqrtf(a))
CW_UN(rsqrt, f64, 1.0 / sqrt(a))
#endif
CW_UN(exp, f32, expf(a))
CW_UN(exp, f64, exp(a))
CW_UN(log, f32, logf(a))
CW_UN(log, f64, log(a))
/* (a > 0) - (a < 0): 0 for zeros, and for NaN as Eigen's sign of TF 1.x. */
CW_UN(sign, f32, (a > 0) - (a < 0))
CW_UN(sign, f64, (a > 0) - (a < 0))
CW_UN(sign, i32, (a > 0) - (a < 0))
CW_UN(sign, i64, (a > 0) - (a < 0))
CW_UN(logical_not, bl, a == 0)

#define E(name, T, dt) [dt] = name##_##T
#define E_FLOAT(name) E(name, f32, TFC_DT_FLOAT), E(name, f64, TFC_DT_DOUBLE)
#define E_I3264(name) E(name, i32, TFC_DT_INT32), E(name, i64, TFC_DT_INT64)
#define E_SINT(name) E_I3264(name), E(name, i8, TFC_DT_INT8), E(name, i16, TFC_DT_INT16)

static const un_fn abs_fns[TFC_DT_COUNT] = {E_FLOAT(abs), E_SINT(abs)};
static const un_fn neg_fns[TFC_DT_COUNT] = {E_FLOAT(neg), E_SINT(neg)};
static const un_fn reciprocal_fns[TFC_DT_COUNT] = {E_FLOAT(reciprocal)};
static const un_fn square_fns[TFC_DT_COUNT] = {E_FLOAT(square), E_I3264(square)};
static const un_fn sqrt_fns[TFC_DT_COUNT] = {E_FLOAT(sqrt)};
static const un_fn rsqrt_fns[TFC_DT_COUNT] = {E_FLOAT(rsqrt)};
static const un_fn exp_fns[TFC_DT_COUNT] = {E_FLOAT(exp)};
static const un_fn log_fns[TFC_DT_COUNT] = {E_FLOAT(log)};
static const un_fn sign_fns[TFC_DT_COUNT] = {E_FLOAT(sign), E_I3264(sign)};
static const un_fn logical_not_fns[TFC_DT_COUNT] = {E(logical_not, bl, TFC_DT_BOOL)};

typedef struct un_job {
  un_fn fn;
  const char *x;
  char *z;
  size_t size;
} un_job;

static void un_shard(int64_t begin, int64_t end, void *arg) {
  un_job *j = arg;
  j->fn(j->x + (size_t)begin * j->size, j->z + (size_t)begin * j->size, end - begin);
}

static int unary_run(tfc_kernel_ctx *c, const un_fn *fns, int64_t cost) {
  const tfc_tensor *x = c->inputs[0];
  un_fn fn = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? fns[x->dtype] : NULL;
  if (!fn)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(x->dtype));
  tfc_tensor *z = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!z) return c->status->code;
  un_job j = {fn, x->data, z->data, tfc_dtype_size(x->dtype)};
  tfc_kernel_parallel_for(c, x->n_elems, cost, un_shard, &j);
  return TFC_OK;
}

#define UNARY_KERNEL(name, cost)                                                                  \
  static int name##_compute(tfc_kernel_ctx *c) { return unary_run(c, name##_fns, cost); }
UNARY_KERNEL(abs, 1)
UNARY_KERNEL(neg, 1)
UNARY_KERNEL(reciprocal, 4)
UNARY_KERNEL(square, 1)
UNARY_KERNEL(sqrt, 4)
UNARY_KERNEL(rsqrt, 8)
UNARY_KERNEL(exp, 20)
UNARY_KERNEL(log, 20)
UNARY_KERNEL(sign, 1)
UNARY_KERNEL(logical_not, 1)

#define M_FLOAT (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_I3264 (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define M_SINT (M_I3264 | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16))
#define ROW(opname, mask, fn) {.op = TFC_OP_##opname, .type_attr = "T", .types = (mask), .compute = fn##_compute}

static const tfc_kernel_def defs[] = {
    ROW(Abs, M_FLOAT | M_SINT, abs),
    ROW(Neg, M_FLOAT | M_SINT, neg),
    ROW(Inv, M_FLOAT, reciprocal),
    ROW(Reciprocal, M_FLOAT, reciprocal),
    ROW(Square, M_FLOAT | M_I3264, square),
    ROW(Sqrt, M_FLOAT, sqrt),
    ROW(Rsqrt, M_FLOAT, rsqrt),
    ROW(Exp, M_FLOAT, exp),
    ROW(Log, M_FLOAT, log),
    ROW(Sign, M_FLOAT | M_I3264, sign),
    {.op = TFC_OP_LogicalNot, .compute = logical_not_compute},
};

int tfc_cpu_kernels_cwise_unary(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
