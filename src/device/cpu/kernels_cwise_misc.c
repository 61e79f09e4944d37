/*
 * kernels_cwise_misc — CPU kernels of Cast, AddN, Select, SelectV2 and the float
 * classifications IsFinite, IsNan and IsInf (float and double).
 *
 * Cast converts between every pair of bool, the integer types, float, double, half and
 * bfloat16. Values convert as TF's static_cast does on x86-64: integers wrap, floats truncate
 * toward zero, and a float outside the target's range (or NaN) becomes the "integer
 * indefinite" value the CPU's truncating conversion gives (INT_MIN); C leaves that case
 * undefined, so it is spelled out here. half and bfloat16 go through float, rounding to
 * nearest even (or truncating when the Truncate attr is set).
 *
 * Select (TF 1.x) takes a scalar condition (the whole of `t` or `e`), a vector condition
 * over the first dimension of higher-rank `t`/`e`, or a condition of their exact shape.
 * SelectV2 broadcasts all three operands.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device/array_plan.h"
#include "base/simd.h"
#include "device/cpu/cwise_int.h"

/* ---- Cast ---- */

static inline i32 f2i32(double v) { return v >= -2147483648.0 && v < 2147483648.0 ? (i32)v : INT32_MIN; }
static inline i64 f2i64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (i64)v : INT64_MIN;
}
static inline u64 f2u64(double v) {
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0)
    return (u64)(i64)(v - 9223372036854775808.0) + (UINT64_C(1) << 63);
  return (u64)f2i64(v);
}

#define IS_FLOAT(a) _Generic((a), float: 1, double: 1, default: 0)
/* CV_<D>(a): one element converted to D. */
#define CV_f32(a) ((f32)(a))
#define CV_f64(a) ((f64)(a))
#define CV_bl(a) ((bl)((a) != 0))
#define CV_i32(a) (IS_FLOAT(a) ? f2i32((double)(a)) : (i32)(a))
#define CV_i64(a) (IS_FLOAT(a) ? f2i64((double)(a)) : (i64)(a))
#define CV_u8(a) (IS_FLOAT(a) ? (u8)f2i32((double)(a)) : (u8)(a))
#define CV_i8(a) (IS_FLOAT(a) ? (i8)f2i32((double)(a)) : (i8)(a))
#define CV_i16(a) (IS_FLOAT(a) ? (i16)f2i32((double)(a)) : (i16)(a))
#define CV_u16(a) (IS_FLOAT(a) ? (u16)f2i32((double)(a)) : (u16)(a))
#define CV_u32(a) (IS_FLOAT(a) ? (u32)f2i64((double)(a)) : (u32)(a))
#define CV_u64(a) (IS_FLOAT(a) ? f2u64((double)(a)) : (u64)(a))

typedef void (*cast_fn)(const void *x, void *z, int64_t n);

/* The float branch of CV_* is dead for integer sources (and the reverse), but both must
 * compile: the casts in the dead branch are never evaluated. */
#define CAST(S, D)                                                                                \
  static void cast_##S##_##D(const void *xv, void *zv, int64_t n) {                               \
    const S *restrict x = xv;                                                                     \
    D *restrict z = zv;                                                                           \
    for (int64_t i = 0; i < n; i++) z[i] = CV_##D(x[i]);                                          \
  }
#define CAST_FROM(S)                                                                              \
  CAST(S, f32) CAST(S, f64) CAST(S, i32) CAST(S, i64) CAST(S, u8) CAST(S, i8) CAST(S, i16)        \
  CAST(S, u16) CAST(S, u32) CAST(S, u64) CAST(S, bl)
CAST_FROM(f32)
CAST_FROM(f64)
CAST_FROM(i32)
CAST_FROM(i64)
CAST_FROM(u8)
CAST_FROM(i8)
CAST_FROM(i16)
CAST_FROM(u16)
CAST_FROM(u32)
CAST_FROM(u64)
CAST_FROM(bl)

#define DTC_f32 TFC_DT_FLOAT
#define DTC_f64 TFC_DT_DOUBLE
#define DTC_i32 TFC_DT_INT32
#define DTC_i64 TFC_DT_INT64
#define DTC_u8 TFC_DT_UINT8
#define DTC_i8 TFC_DT_INT8
#define DTC_i16 TFC_DT_INT16
#define DTC_u16 TFC_DT_UINT16
#define DTC_u32 TFC_DT_UINT32
#define DTC_u64 TFC_DT_UINT64
#define DTC_bl TFC_DT_BOOL
#define CE(S, D) [DTC_##S][DTC_##D] = cast_##S##_##D,
#define CE_FROM(S)                                                                                \
  CE(S, f32) CE(S, f64) CE(S, i32) CE(S, i64) CE(S, u8) CE(S, i8) CE(S, i16) CE(S, u16)           \
  CE(S, u32) CE(S, u64) CE(S, bl)
static const cast_fn cast_table[TFC_DT_COUNT][TFC_DT_COUNT] = {
    CE_FROM(f32) CE_FROM(f64) CE_FROM(i32) CE_FROM(i64) CE_FROM(u8) CE_FROM(i8)
    CE_FROM(i16) CE_FROM(u16) CE_FROM(u32) CE_FROM(u64) CE_FROM(bl)};

/* 16-bit floats, through float. */
static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Cast's Truncate: the float's mantissa bits below the target's cut to zero first, so the
 * rounding conversion (base/half.h) keeps what is left exactly. NaN and inf pass unchanged. */
static uint16_t f32_to_bf16(float f, int truncate) {
  uint32_t u = f32_bits(f);
  if (truncate && (u & 0x7fffffffu) < 0x7f800000u) f = bits_f32(u & 0xffff0000u);
  return tfc_float_to_bfloat16(f);
}

static uint16_t f32_to_f16(float f, int truncate) {
  uint32_t u = f32_bits(f);
  if (truncate && (u & 0x7fffffffu) < 0x7f800000u) f = bits_f32(u & ~0x1fffu);
  return tfc_float_to_half(f);
}

static int is_half(int dt) { return dt == TFC_DT_HALF || dt == TFC_DT_BFLOAT16; }

typedef struct cast_job {
  int src, dst, truncate;
  const char *x;
  char *z;
  size_t xs, zs;
} cast_job;

/* Casts involving half/bfloat16 run in chunks through a float buffer. */
#define CAST_CHUNK 1024

static void cast_shard(int64_t begin, int64_t end, void *arg) {
  cast_job *j = arg;
  const char *x = j->x + (size_t)begin * j->xs;
  char *z = j->z + (size_t)begin * j->zs;
  if (!is_half(j->src) && !is_half(j->dst)) {
    cast_table[j->src][j->dst](x, z, end - begin);
    return;
  }
  float buf[CAST_CHUNK];
  for (int64_t i = 0; i < end - begin; i += CAST_CHUNK) {
    int64_t n = end - begin - i < CAST_CHUNK ? end - begin - i : CAST_CHUNK;
    const char *xi = x + (size_t)i * j->xs;
    if (j->src == TFC_DT_HALF) {
      for (int64_t k = 0; k < n; k++) buf[k] = tfc_half_to_float(((const uint16_t *)xi)[k]);
    } else if (j->src == TFC_DT_BFLOAT16) {
      for (int64_t k = 0; k < n; k++) buf[k] = tfc_bfloat16_to_float(((const uint16_t *)xi)[k]);
    } else {
      cast_table[j->src][TFC_DT_FLOAT](xi, buf, n);
    }
    char *zi = z + (size_t)i * j->zs;
    if (j->dst == TFC_DT_HALF) {
      for (int64_t k = 0; k < n; k++) ((uint16_t *)zi)[k] = f32_to_f16(buf[k], j->truncate);
    } else if (j->dst == TFC_DT_BFLOAT16) {
      /* TF's double -> bfloat16 keeps a NaN's sign (its float -> bfloat16 does not). */
      int keep_sign = j->src == TFC_DT_DOUBLE;
      for (int64_t k = 0; k < n; k++)
        ((uint16_t *)zi)[k] = (uint16_t)(f32_to_bf16(buf[k], j->truncate) | (keep_sign && isnan(buf[k]) && signbit(buf[k]) ? 0x8000u : 0));
    } else {
      cast_table[TFC_DT_FLOAT][j->dst](buf, zi, n);
    }
  }
}

#define M_CAST                                                                                    \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) |        \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16) |         \
   TFC_T(TFC_DT_UINT32) | TFC_T(TFC_DT_UINT64) | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_HALF) |         \
   TFC_T(TFC_DT_BFLOAT16))

int tfc_cpu_cast_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int dst = 0, truncate = 0;
  TFC_TRY(tfc_kernel_attr_type(c->node, "DstT", &dst, c->status));
  tfc_node_attr_bool(c->node, "Truncate", &truncate);
  if (x->dtype == dst) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
    return TFC_OK;
  }
  if (dst <= 0 || dst >= 32 || !(M_CAST & TFC_T(dst)) || !(M_CAST & TFC_T(x->dtype)))
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Cast %s to %s is not supported", tfc_dtype_name(x->dtype),
                            tfc_dtype_name(dst));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, dst, x->dims, x->ndims);
  if (!z) return c->status->code;
  cast_job j = {x->dtype, dst, truncate, x->data, z->data, tfc_dtype_size(x->dtype), tfc_dtype_size(dst)};
  tfc_kernel_parallel_for(c, x->n_elems, 2, cast_shard, &j);
  return TFC_OK;
}

/* ---- AddN ---- */

typedef void (*addn_fn)(void *z, const void *a, const void *b, int64_t n);

/* z = a + b; z may be a or b exactly. Integers wrap. */
#define ADDN(T) ADDN_NAMED(addn_##T, T, )
#define ADDN_NAMED(name, T, ATTRS)                                                                \
  ATTRS static void name(void *zv, const void *av, const void *bv, int64_t n) {                  \
    T *restrict z = zv;                                                                           \
    const T *restrict a = av;                                                                     \
    const T *restrict b = bv;                                                                     \
    for (int64_t i = 0; i < n; i++) z[i] = (T)((w_##T)a[i] + (w_##T)b[i]);                        \
  }
/* Float sums (gradient accumulation) once per vector unit (base/simd.h); a target attribute
 * starts from the command line's options, so -O3 is asked for again. */
#if TFC_SIMD_X86
#if defined(__GNUC__) && !defined(__clang__)
#define ADDN_O3 __attribute__((optimize("O3")))
#else
#define ADDN_O3
#endif
ADDN_NAMED(addn_base_f32, f32, )
ADDN_NAMED(addn_avx2_f32, f32, TFC_SIMD_TARGET_AVX2 ADDN_O3)
ADDN_NAMED(addn_avx512_f32, f32, TFC_SIMD_TARGET_AVX512 ADDN_O3)
static void addn_f32(void *z, const void *a, const void *b, int64_t n) {
  int l = tfc_simd_level();
  if (l >= TFC_SIMD_AVX512) addn_avx512_f32(z, a, b, n);
  else if (l >= TFC_SIMD_AVX2) addn_avx2_f32(z, a, b, n);
  else addn_base_f32(z, a, b, n);
}
#else
ADDN(f32)
#endif
ADDN(f64)
ADDN(i32)
ADDN(i64)
ADDN(u8)
ADDN(i8)
ADDN(i16)
ADDN(u16)
ADDN(c64)
ADDN(c128)

static const addn_fn addn_fns[TFC_DT_COUNT] = {
    [TFC_DT_FLOAT] = addn_f32, [TFC_DT_DOUBLE] = addn_f64, [TFC_DT_INT32] = addn_i32,
    [TFC_DT_INT64] = addn_i64, [TFC_DT_UINT8] = addn_u8,   [TFC_DT_INT8] = addn_i8,
    [TFC_DT_INT16] = addn_i16, [TFC_DT_UINT16] = addn_u16,
    [TFC_DT_COMPLEX64] = addn_c64, [TFC_DT_COMPLEX128] = addn_c128};

typedef struct addn_job {
  addn_fn fn;
  tfc_tensor *const *ins;
  int n;
  char *z;
  size_t size;
} addn_job;

/* Each shard adds all inputs over its range, so the range stays in cache. */
static void addn_shard(int64_t begin, int64_t end, void *arg) {
  addn_job *j = arg;
  size_t off = (size_t)begin * j->size;
  char *z = j->z + off;
  j->fn(z, (const char *)j->ins[0]->data + off, (const char *)j->ins[1]->data + off, end - begin);
  for (int k = 2; k < j->n; k++) j->fn(z, z, (const char *)j->ins[k]->data + off, end - begin);
}

static int addn_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  TFC_TRY(tfc_addn_check(c));
  if (c->n_inputs == 1) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
    return TFC_OK;
  }
  addn_fn fn = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? addn_fns[x->dtype] : NULL;
  if (!fn) return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "AddN is not implemented for %s", tfc_dtype_name(x->dtype));
  /* Only inputs 0 and 1 may become the output: later ones are read after z is written. */
  int fwd = tfc_tensor_can_forward(c->inputs[0]) ? 0 : (tfc_tensor_can_forward(c->inputs[1]) ? 1 : -1);
  tfc_tensor *z = fwd >= 0 ? tfc_kernel_forward_or_alloc(c, fwd, 0, x->dtype, x->dims, x->ndims)
                           : tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!z) return c->status->code;
  addn_job j = {fn, c->inputs, c->n_inputs, z->data, tfc_dtype_size(x->dtype)};
  tfc_kernel_parallel_for(c, x->n_elems, c->n_inputs, addn_shard, &j);
  return TFC_OK;
}

/* ---- Select / SelectV2 ---- */

/* z[i] = c[i*cs] ? t[i*ts] : e[i*es] for n elements of one size; strides are 0 or 1. */
#define PICK(T)                                                                                   \
  static void pick_##T(const bl *c, int64_t cs, const void *tv, int64_t ts, const void *ev,      \
                       int64_t es, void *zv, int64_t n) {                                         \
    const T *t = tv, *e = ev;                                                                     \
    T *z = zv;                                                                                    \
    if (cs == 1 && ts == 1 && es == 1) {                                                          \
      for (int64_t i = 0; i < n; i++) z[i] = c[i] ? t[i] : e[i];                                  \
    } else {                                                                                      \
      for (int64_t i = 0; i < n; i++) z[i] = c[i * cs] ? t[i * ts] : e[i * es];                   \
    }                                                                                             \
  }
PICK(u8)
PICK(u16)
PICK(u32)
PICK(u64)

typedef struct pick_job {
  int dtype;
  size_t size;
  const bl *c;
  const char *t, *e;
  char *z;
  const tfc_cwise_bcast *b; /* NULL: flat, all strides 1 */
  tfc_status *status;
} pick_job;

/* One run of n elements; strings are deep-copied, other types moved by size. */
static int pick_run(pick_job *j, const bl *c, int64_t cs, const char *t, int64_t ts, const char *e,
                    int64_t es, char *z, int64_t n) {
  switch (j->dtype == TFC_DT_STRING ? 0 : j->size) {
    case 1: pick_u8(c, cs, t, ts, e, es, z, n); return TFC_OK;
    case 2: pick_u16(c, cs, t, ts, e, es, z, n); return TFC_OK;
    case 4: pick_u32(c, cs, t, ts, e, es, z, n); return TFC_OK;
    case 8: pick_u64(c, cs, t, ts, e, es, z, n); return TFC_OK;
    default: break;
  }
  for (int64_t i = 0; i < n; i++) {
    const char *src = c[i * cs] ? t + (size_t)(i * ts) * j->size : e + (size_t)(i * es) * j->size;
    char *dst = z + (size_t)i * j->size;
    if (j->dtype != TFC_DT_STRING) {
      memcpy(dst, src, j->size);
    } else {
      const tfc_tstring *str = (const tfc_tstring *)src;
      if (tfc_tstring_assign((tfc_tstring *)dst, str->data, str->len, j->status)) return j->status->code;
    }
  }
  return TFC_OK;
}

static void pick_shard(int64_t begin, int64_t end, void *arg) {
  pick_job *j = arg;
  size_t off = (size_t)begin * j->size;
  pick_run(j, j->c + begin, 1, j->t + off, 1, j->e + off, 1, j->z + off, end - begin);
}

static void pick_rows_shard(int64_t begin, int64_t end, void *arg) {
  pick_job *j = arg;
  const tfc_cwise_bcast *b = j->b;
  int64_t inner = b->dims[b->rank - 1];
  for (int64_t r = begin; r < end; r++) {
    int64_t o[3];
    tfc_cwise_bcast_row(b, r, o);
    pick_run(j, j->c + o[0], b->strides[0][b->rank - 1], j->t + (size_t)o[1] * j->size,
             b->strides[1][b->rank - 1], j->e + (size_t)o[2] * j->size, b->strides[2][b->rank - 1],
             j->z + (size_t)(r * inner) * j->size, inner);
  }
}

static tfc_tensor *select_output(tfc_kernel_ctx *c, const tfc_tensor *like, const int64_t *dims, int ndims,
                                 int64_t n) {
  for (int k = 1; k <= 2; k++) {
    const tfc_tensor *t = c->inputs[k];
    if (t->n_elems == n && tfc_tensor_can_forward(t))
      return tfc_kernel_forward_or_alloc(c, k, 0, like->dtype, dims, ndims);
  }
  return tfc_kernel_alloc_output(c, 0, like->dtype, dims, ndims);
}

static int select_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  int64_t cond_div;
  TFC_TRY(tfc_select_plan_of(c, &cond_div));
  if (cond->ndims == 0) {
    /* The whole of then or else, shared. */
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[*(const bl *)cond->data ? 1 : 2]));
    return TFC_OK;
  }
  pick_job j = {t->dtype, tfc_dtype_size(t->dtype), cond->data, t->data, e->data, NULL, NULL, c->status};
  tfc_tensor *z = select_output(c, t, t->dims, t->ndims, t->n_elems);
  if (!z) return c->status->code;
  j.z = z->data;
  if (cond->ndims == 1 && t->ndims != 1) {
    /* cond picks whole rows along dimension 0 (of no elements when then is empty). */
    int64_t row = t->n_elems ? cond_div : 0;
    size_t rb = (size_t)row * j.size;
    for (int64_t i = 0; i < cond->n_elems; i++) {
      const char *src = (j.c[i] ? j.t : j.e) + i * rb;
      if (src == j.z + i * rb) continue; /* forwarded buffer already holds the row */
      bl one = 1;
      TFC_TRY(pick_run(&j, &one, 0, src, 1, src, 1, j.z + i * rb, row));
    }
    return TFC_OK;
  }
  if (t->dtype == TFC_DT_STRING) return pick_run(&j, j.c, 1, j.t, 1, j.e, 1, j.z, t->n_elems);
  tfc_kernel_parallel_for(c, t->n_elems, 1, pick_shard, &j);
  return TFC_OK;
}

static int select_v2_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  tfc_cwise_bcast b;
  TFC_TRY(tfc_select_v2_plan_of(c, &b));
  tfc_tensor *z = select_output(c, t, b.out_dims, b.out_ndims, b.n_out);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  pick_job j = {t->dtype, tfc_dtype_size(t->dtype), cond->data, t->data, e->data, z->data, &b, c->status};
  int64_t inner = b.dims[b.rank - 1];
  if (t->dtype == TFC_DT_STRING) {
    for (int64_t r = 0; r < b.n_out / inner; r++) {
      int64_t o[3];
      tfc_cwise_bcast_row(&b, r, o);
      TFC_TRY(pick_run(&j, j.c + o[0], b.strides[0][b.rank - 1], j.t + (size_t)o[1] * j.size,
                       b.strides[1][b.rank - 1], j.e + (size_t)o[2] * j.size, b.strides[2][b.rank - 1],
                       j.z + (size_t)(r * inner) * j.size, inner));
    }
    return TFC_OK;
  }
  tfc_kernel_parallel_for(c, b.n_out / inner, inner, pick_rows_shard, &j);
  return TFC_OK;
}

#define M_ADDN                                                                                    \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) |        \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16) |          \
   TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))

/* ---- IsFinite, IsNan, IsInf ---- */

#define CLASSIFY(name, TEST)                                                                      \
  static int name##_compute(tfc_kernel_ctx *c) {                                                  \
    const tfc_tensor *x = c->inputs[0];                                                           \
    tfc_tensor *z = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, x->dims, x->ndims);               \
    if (!z) return c->status->code;                                                               \
    uint8_t *o = z->data;                                                                         \
    if (x->dtype == TFC_DT_FLOAT) {                                                               \
      const float *v = x->data;                                                                   \
      for (int64_t i = 0; i < x->n_elems; i++) o[i] = (uint8_t)(TEST(v[i]) != 0);                \
    } else {                                                                                      \
      const double *v = x->data;                                                                  \
      for (int64_t i = 0; i < x->n_elems; i++) o[i] = (uint8_t)(TEST(v[i]) != 0);                \
    }                                                                                             \
    return TFC_OK;                                                                                \
  }
CLASSIFY(is_finite, isfinite)
CLASSIFY(is_nan, isnan)
CLASSIFY(is_inf, isinf)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Cast, .type_attr = "SrcT", .types = M_CAST, .type_attr2 = "DstT", .types2 = M_CAST,
     .compute = tfc_cpu_cast_compute},
    {.op = TFC_OP_AddN, .type_attr = "T", .types = M_ADDN, .compute = addn_compute},
    {.op = TFC_OP_Select, .compute = select_compute},
    {.op = TFC_OP_SelectV2, .compute = select_v2_compute},
    {.op = TFC_OP_IsFinite, .type_attr = "T", .types = TFC_TYPES_FLOAT, .compute = is_finite_compute},
    {.op = TFC_OP_IsNan, .type_attr = "T", .types = TFC_TYPES_FLOAT, .compute = is_nan_compute},
    {.op = TFC_OP_IsInf, .type_attr = "T", .types = TFC_TYPES_FLOAT, .compute = is_inf_compute},
};

int tfc_cpu_kernels_cwise_misc(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
