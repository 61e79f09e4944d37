/*
 * kernels_complex — CPU kernels of the complex-number ops and of the element-wise math that TF
 * runs on complex64 / complex128: Complex (real + i*imag, broadcasting), Real, Imag,
 * ComplexAbs, Angle, Conj; Neg, Square, Reciprocal/Inv, Exp, Log, Log1p, Expm1, Sqrt, Rsqrt,
 * Sin, Cos, Tan, Tanh, Sigmoid and Sign on complex; the (y, dy) gradient ops TanhGrad, SigmoidGrad, SqrtGrad,
 * RsqrtGrad and ReciprocalGrad/InvGrad in TF's conjugate forms (dy * conj(1 - y^2), ...); and
 * Cast to and from complex (a real value becomes (x, 0), a complex one keeps its real part, as
 * TF's casts do).
 *
 * The complex binary arithmetic (Add, Sub, Mul, Div, Pow, Equal, ...), AddN, Sum/Mean/Prod
 * and the matrix products take complex in their own files (kernels_cwise*.c,
 * kernels_reduce.c, kernels_matmul.c, kernels_batch_matmul.c); this file holds what has no
 * real-typed twin. The element functions are C's <complex.h> (csqrt, cexp, clog, ...), which
 * give the principal branches std::complex gives TF. Each (op, dtype) is one flat loop over
 * the elements; large tensors are split over the intra-op pool.
 */
#include <complex.h>
#include <math.h>

#include "device/array_plan.h"
#include "device/cpu/cwise_int.h"

typedef void (*el_fn)(const void *x, void *z, int64_t n);

/* An element-wise map from type S to type D. */
#define EL(name, S, D, EXPR)                                                                      \
  static void name##_##S(const void *xv, void *zv, int64_t n) {                                   \
    const S *restrict x = xv;                                                                     \
    D *restrict z = zv;                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const S a = x[i];                                                                           \
      z[i] = (D)(EXPR);                                                                           \
    }                                                                                             \
  }

/* complex -> real */
EL(real, c64, f32, crealf(a))
EL(real, c128, f64, creal(a))
EL(imag, c64, f32, cimagf(a))
EL(imag, c128, f64, cimag(a))
EL(cabs, c64, f32, cabsf(a))
EL(cabs, c128, f64, cabs(a))
EL(angle, c64, f32, cargf(a))
EL(angle, c128, f64, carg(a))
/* complex -> complex */
EL(conj, c64, c64, conjf(a))
EL(conj, c128, c128, conj(a))
EL(neg, c64, c64, -a)
EL(neg, c128, c128, -a)
EL(square, c64, c64, a * a)
EL(square, c128, c128, a * a)
EL(reciprocal, c64, c64, 1.0f / a)
EL(reciprocal, c128, c128, 1.0 / a)
EL(exp, c64, c64, cexpf(a))
EL(exp, c128, c128, cexp(a))
EL(log, c64, c64, clogf(a))
EL(log, c128, c128, clog(a))
/* log1p and expm1 without the cancellation of log(1 + z) and exp(z) - 1 near 0, as Eigen's:
 * log1p(x + iy) = log1p(x (2 + x) + y^2) / 2 + i atan2(y, 1 + x);
 * expm1(x + iy) = expm1(x) - 2 e^x sin^2(y / 2) + i e^x sin(y). */
EL(log1p, c64, c64, 0.5f * log1pf(crealf(a) * (2.0f + crealf(a)) + cimagf(a) * cimagf(a)) +
                        I * atan2f(cimagf(a), 1.0f + crealf(a)))
EL(log1p, c128, c128, 0.5 * log1p(creal(a) * (2.0 + creal(a)) + cimag(a) * cimag(a)) +
                          I * atan2(cimag(a), 1.0 + creal(a)))
EL(expm1, c64, c64, expm1f(crealf(a)) - 2.0f * expf(crealf(a)) * sinf(cimagf(a) / 2) * sinf(cimagf(a) / 2) +
                        I * expf(crealf(a)) * sinf(cimagf(a)))
EL(expm1, c128, c128, expm1(creal(a)) - 2.0 * exp(creal(a)) * sin(cimag(a) / 2) * sin(cimag(a) / 2) +
                          I * exp(creal(a)) * sin(cimag(a)))
EL(sqrt, c64, c64, csqrtf(a))
EL(sqrt, c128, c128, csqrt(a))
EL(rsqrt, c64, c64, 1.0f / csqrtf(a))
EL(rsqrt, c128, c128, 1.0 / csqrt(a))
EL(sin, c64, c64, csinf(a))
EL(sin, c128, c128, csin(a))
EL(cos, c64, c64, ccosf(a))
EL(cos, c128, c128, ccos(a))
EL(tan, c64, c64, ctanf(a))
EL(tan, c128, c128, ctan(a))
EL(tanh, c64, c64, ctanhf(a))
EL(tanh, c128, c128, ctanh(a))
EL(sigmoid, c64, c64, 1.0f / (1.0f + cexpf(-a)))
EL(sigmoid, c128, c128, 1.0 / (1.0 + cexp(-a)))
/* Eigen's complex sign: x / |x|, and 0 for 0. */
EL(sign, c64, c64, a == 0 ? 0 : a / cabsf(a))
EL(sign, c128, c128, a == 0 ? 0 : a / cabs(a))

typedef struct el_job {
  el_fn fn;
  const char *x;
  char *z;
  size_t xs, zs;
} el_job;

static void el_shard(int64_t begin, int64_t end, void *arg) {
  el_job *j = arg;
  j->fn(j->x + (size_t)begin * j->xs, j->z + (size_t)begin * j->zs, end - begin);
}

/* Runs fn64 or fn128 (by input 0's dtype) into output 0 of dtype odt64 / odt128. */
static int el_run(tfc_kernel_ctx *c, el_fn fn64, el_fn fn128, int real_out, int64_t cost) {
  const tfc_tensor *x = c->inputs[0];
  int is64 = x->dtype == TFC_DT_COMPLEX64;
  if (!is64 && x->dtype != TFC_DT_COMPLEX128)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(x->dtype));
  int odt = real_out ? (is64 ? TFC_DT_FLOAT : TFC_DT_DOUBLE) : x->dtype;
  tfc_tensor *z = real_out ? tfc_kernel_alloc_output(c, 0, odt, x->dims, x->ndims)
                           : tfc_kernel_forward_or_alloc(c, 0, 0, odt, x->dims, x->ndims);
  if (!z) return c->status->code;
  el_job j = {is64 ? fn64 : fn128, x->data, z->data, tfc_dtype_size(x->dtype), tfc_dtype_size(odt)};
  tfc_kernel_parallel_for(c, x->n_elems, cost, el_shard, &j);
  return TFC_OK;
}

#define EL_KERNEL(name, real_out, cost)                                                           \
  static int name##_compute(tfc_kernel_ctx *c) { return el_run(c, name##_c64, name##_c128, real_out, cost); }
EL_KERNEL(real, 1, 1)
EL_KERNEL(imag, 1, 1)
EL_KERNEL(cabs, 1, 8)
EL_KERNEL(angle, 1, 20)
EL_KERNEL(conj, 0, 1)
EL_KERNEL(neg, 0, 1)
EL_KERNEL(square, 0, 2)
EL_KERNEL(reciprocal, 0, 8)
EL_KERNEL(exp, 0, 40)
EL_KERNEL(log, 0, 40)
EL_KERNEL(log1p, 0, 50)
EL_KERNEL(expm1, 0, 50)
EL_KERNEL(sqrt, 0, 40)
EL_KERNEL(rsqrt, 0, 40)
EL_KERNEL(sin, 0, 40)
EL_KERNEL(cos, 0, 40)
EL_KERNEL(tan, 0, 80)
EL_KERNEL(tanh, 0, 80)
EL_KERNEL(sigmoid, 0, 60)
EL_KERNEL(sign, 0, 8)

/* ---- The (y, dy) gradient ops on complex: TF's conjugate forms ---- */

typedef void (*el2_fn)(const void *y, const void *dy, void *z, int64_t n);

/* z = EXPR of y's conjugate `w` and the incoming gradient `g`, element by element. */
#define EL2(name, S, CONJ, EXPR)                                                                  \
  static void name##_##S(const void *yv, const void *gv, void *zv, int64_t n) {                   \
    const S *restrict y = yv;                                                                     \
    const S *restrict gp = gv;                                                                    \
    S *restrict z = zv;                                                                           \
    typedef S el_t;                                                                               \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const el_t w = CONJ(y[i]), g = gp[i];                                                          \
      z[i] = (EXPR);                                                                              \
    }                                                                                             \
  }
#define EL2_BOTH(name, EXPR) EL2(name, c64, conjf, EXPR) EL2(name, c128, conj, EXPR)
EL2_BOTH(tanh_grad, g * (1 - w * w))
EL2_BOTH(sigmoid_grad, g * (w * (1 - w)))
EL2_BOTH(sqrt_grad, (el_t)0.5 * g / w)
EL2_BOTH(rsqrt_grad, (el_t)-0.5 * (g * w) * (w * w))
EL2_BOTH(reciprocal_grad, -w * w * g)

typedef struct el2_job {
  el2_fn fn;
  const char *y, *g;
  char *z;
  size_t es;
} el2_job;

static void el2_shard(int64_t begin, int64_t end, void *arg) {
  el2_job *j = arg;
  size_t o = (size_t)begin * j->es;
  j->fn(j->y + o, j->g + o, j->z + o, end - begin);
}

static int el2_run(tfc_kernel_ctx *c, el2_fn fn64, el2_fn fn128, int64_t cost) {
  const tfc_tensor *y = c->inputs[0], *g = c->inputs[1];
  if (!tfc_tensor_same_shape(y, g)) {
    char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Inputs must have the same size and shape. Input 0: %s != input 1: %s",
                            tfc_tensor_shape_str(y, sa, sizeof sa), tfc_tensor_shape_str(g, sb, sizeof sb));
  }
  tfc_tensor *z = tfc_kernel_forward_or_alloc(c, 1, 0, y->dtype, y->dims, y->ndims);
  if (!z) return c->status->code;
  el2_job j = {y->dtype == TFC_DT_COMPLEX64 ? fn64 : fn128, y->data, g->data, z->data, tfc_dtype_size(y->dtype)};
  tfc_kernel_parallel_for(c, y->n_elems, cost, el2_shard, &j);
  return TFC_OK;
}

#define EL2_KERNEL(name, cost)                                                                    \
  static int name##_compute(tfc_kernel_ctx *c) { return el2_run(c, name##_c64, name##_c128, cost); }
EL2_KERNEL(tanh_grad, 8)
EL2_KERNEL(sigmoid_grad, 8)
EL2_KERNEL(sqrt_grad, 8)
EL2_KERNEL(rsqrt_grad, 8)
EL2_KERNEL(reciprocal_grad, 8)

/* ---- Complex(real, imag), broadcasting ---- */

typedef struct cplx_job {
  const tfc_cwise_bcast *b;
  const char *re, *im;
  char *z;
  int wide; /* double -> complex128 */
  int64_t inner;
} cplx_job;

static void cplx_shard(int64_t begin, int64_t end, void *arg) {
  cplx_job *j = arg;
  const tfc_cwise_bcast *b = j->b;
  int64_t s0 = b->strides[0][b->rank - 1], s1 = b->strides[1][b->rank - 1];
  for (int64_t r = begin; r < end; r++) {
    int64_t offs[3];
    tfc_cwise_bcast_row(b, r, offs);
    if (j->wide) {
      const f64 *re = (const f64 *)j->re + offs[0], *im = (const f64 *)j->im + offs[1];
      f64 *z = (f64 *)j->z + 2 * r * j->inner;
      for (int64_t i = 0; i < j->inner; i++) {
        z[2 * i] = re[i * s0];
        z[2 * i + 1] = im[i * s1];
      }
    } else {
      const f32 *re = (const f32 *)j->re + offs[0], *im = (const f32 *)j->im + offs[1];
      f32 *z = (f32 *)j->z + 2 * r * j->inner;
      for (int64_t i = 0; i < j->inner; i++) {
        z[2 * i] = re[i * s0];
        z[2 * i + 1] = im[i * s1];
      }
    }
  }
}

static int complex_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *re = c->inputs[0], *im = c->inputs[1];
  tfc_cwise_bcast b;
  TFC_TRY(tfc_binary_bcast_plan_of(c, &b));
  int wide = re->dtype == TFC_DT_DOUBLE;
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, wide ? TFC_DT_COMPLEX128 : TFC_DT_COMPLEX64, b.out_dims,
                                          b.out_ndims);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  cplx_job j = {&b, re->data, im->data, z->data, wide, b.dims[b.rank - 1]};
  tfc_kernel_parallel_for(c, b.n_out / j.inner, j.inner, cplx_shard, &j);
  return TFC_OK;
}

/* ---- Cast to and from complex ---- */

/* Element i of a real tensor of dtype dt as a double (half and bfloat16 exactly). */
static double real_at(const void *data, int dt, int64_t i) {
  switch (dt) {
    case TFC_DT_FLOAT: return ((const f32 *)data)[i];
    case TFC_DT_DOUBLE: return ((const f64 *)data)[i];
    case TFC_DT_INT32: return ((const i32 *)data)[i];
    case TFC_DT_INT64: return (double)((const i64 *)data)[i];
    case TFC_DT_UINT8: return ((const u8 *)data)[i];
    case TFC_DT_INT8: return ((const i8 *)data)[i];
    case TFC_DT_INT16: return ((const i16 *)data)[i];
    case TFC_DT_UINT16: return ((const u16 *)data)[i];
    case TFC_DT_UINT32: return ((const u32 *)data)[i];
    case TFC_DT_UINT64: return (double)((const u64 *)data)[i];
    case TFC_DT_BOOL: return ((const bl *)data)[i] != 0;
    case TFC_DT_HALF: return tfc_half_to_float(((const u16 *)data)[i]);
    case TFC_DT_BFLOAT16: return tfc_bfloat16_to_float(((const u16 *)data)[i]);
    default: return 0;
  }
}

#define M_CPLX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define M_CAST_REAL                                                                               \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) |        \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16) |         \
   TFC_T(TFC_DT_UINT32) | TFC_T(TFC_DT_UINT64) | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_HALF) |         \
   TFC_T(TFC_DT_BFLOAT16))

/* Real -> complex: (x, 0). complex <-> complex: each part converted. */
static int cast_to_complex_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int dst = 0;
  TFC_TRY(tfc_kernel_attr_type(c->node, "DstT", &dst, c->status));
  if (x->dtype == dst) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
    return TFC_OK;
  }
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, dst, x->dims, x->ndims);
  if (!z) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    c128 v;
    if (x->dtype == TFC_DT_COMPLEX64) v = ((const c64 *)x->data)[i];
    else if (x->dtype == TFC_DT_COMPLEX128) v = ((const c128 *)x->data)[i];
    else v = real_at(x->data, x->dtype, i);
    if (dst == TFC_DT_COMPLEX64) ((c64 *)z->data)[i] = (c64)v;
    else ((c128 *)z->data)[i] = v;
  }
  return TFC_OK;
}

/* complex -> real: the real part, cast as a float or double of that value is (through a
 * float or double tensor and the real Cast's rules). */
static int cast_from_complex_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int dst = 0;
  TFC_TRY(tfc_kernel_attr_type(c->node, "DstT", &dst, c->status));
  int is64 = x->dtype == TFC_DT_COMPLEX64;
  int mid = is64 ? TFC_DT_FLOAT : TFC_DT_DOUBLE;
  tfc_tensor *re = tfc_tensor_new(mid, x->dims, x->ndims, c->status);
  if (!re) return c->status->code;
  if (is64) real_c64(x->data, re->data, x->n_elems);
  else real_c128(x->data, re->data, x->n_elems);
  if (dst == mid) {
    tfc_kernel_set_output(c, 0, re);
    return TFC_OK;
  }
  /* The real Cast kernel takes it from there: run it on the real part in place of x. */
  tfc_tensor *saved = c->inputs[0];
  c->inputs[0] = re;
  int rc = tfc_cpu_cast_compute(c);
  c->inputs[0] = saved;
  tfc_tensor_unref(re);
  return rc;
}

#define EL_ROW(opname, fn) {.op = TFC_OP_##opname, .type_attr = "T", .types = M_CPLX, .compute = fn##_compute}
#define PART_ROW(opname, fn, tin, tout)                                                            \
  {.op = TFC_OP_##opname, .type_attr = "T", .types = TFC_T(tin), .type_attr2 = "Tout", .types2 = TFC_T(tout), \
   .compute = fn##_compute}
#define PART_ROWS(opname, fn)                                                                     \
  PART_ROW(opname, fn, TFC_DT_COMPLEX64, TFC_DT_FLOAT), PART_ROW(opname, fn, TFC_DT_COMPLEX128, TFC_DT_DOUBLE)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Complex, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .type_attr2 = "Tout",
     .types2 = TFC_T(TFC_DT_COMPLEX64), .compute = complex_compute},
    {.op = TFC_OP_Complex, .type_attr = "T", .types = TFC_T(TFC_DT_DOUBLE), .type_attr2 = "Tout",
     .types2 = TFC_T(TFC_DT_COMPLEX128), .compute = complex_compute},
    PART_ROWS(Real, real),
    PART_ROWS(Imag, imag),
    PART_ROWS(ComplexAbs, cabs),
    PART_ROWS(Angle, angle),
    EL_ROW(Conj, conj),
    EL_ROW(Neg, neg),
    EL_ROW(Square, square),
    EL_ROW(Reciprocal, reciprocal),
    EL_ROW(Inv, reciprocal),
    EL_ROW(Exp, exp),
    EL_ROW(Log, log),
    EL_ROW(Log1p, log1p),
    EL_ROW(Expm1, expm1),
    EL_ROW(Sqrt, sqrt),
    EL_ROW(Rsqrt, rsqrt),
    EL_ROW(Sin, sin),
    EL_ROW(Cos, cos),
    EL_ROW(Tan, tan),
    EL_ROW(Tanh, tanh),
    EL_ROW(Sigmoid, sigmoid),
    EL_ROW(Sign, sign),
    EL_ROW(TanhGrad, tanh_grad),
    EL_ROW(SigmoidGrad, sigmoid_grad),
    EL_ROW(SqrtGrad, sqrt_grad),
    EL_ROW(RsqrtGrad, rsqrt_grad),
    EL_ROW(ReciprocalGrad, reciprocal_grad),
    EL_ROW(InvGrad, reciprocal_grad),
    {.op = TFC_OP_Cast, .type_attr = "SrcT", .types = M_CAST_REAL | M_CPLX, .type_attr2 = "DstT", .types2 = M_CPLX,
     .compute = cast_to_complex_compute},
    {.op = TFC_OP_Cast, .type_attr = "SrcT", .types = M_CPLX, .type_attr2 = "DstT", .types2 = M_CAST_REAL,
     .compute = cast_from_complex_compute},
};

int tfc_cpu_kernels_complex(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
