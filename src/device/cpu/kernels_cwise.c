/*
 * kernels_cwise — CPU kernels of the element-wise binary ops: arithmetic (Add, AddV2, Sub,
 * Mul, Div, RealDiv (also complex), DivNoNan, FloorDiv, FloorMod, Maximum, Minimum, Pow), comparisons (Equal
 * and NotEqual also on strings) and the logical ops, plus the numpy broadcast plan that the other
 * math-family files share. The family's
 * registration entry point (tfc_cpu_kernels_cwise) also registers the unary ops, Cast, AddN,
 * Select and the batched matrix products from their own files.
 *
 * How a binary op runs: the broadcast plan collapses both operands into at most a few dims;
 * the innermost collapsed dim is a contiguous run handled by one of three loops (both
 * operands advance, y is a scalar, x is a scalar), each a plain restrict-qualified loop the
 * compiler vectorizes. Same-shape and scalar operands take the flat loop directly, without
 * a broadcast plan, and a small output runs it on the calling thread; other broadcasts walk the outer dims with an odometer, one run per row. Large outputs are
 * split over the intra-op pool. The output reuses an operand's buffer when the kernel holds
 * the only reference and the operand is not broadcast (z may then alias x or y exactly:
 * element i is read before it is written, the one overlap the loops allow).
 *
 * Integer semantics are TF's: +, -, * wrap (computed in unsigned arithmetic, since signed
 * overflow is undefined in C); Div truncates toward zero, FloorDiv/FloorMod floor; a zero
 * divisor is INVALID_ARGUMENT "Integer division by zero"; Pow rejects negative exponents.
 */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/simd.h"
#include "device/cpu/cwise_int.h"
#include "tensor/allocator.h"

/* ---- broadcast plan ---- */

int tfc_cwise_bcast_dims(tfc_cwise_bcast *b, int n_in, const int64_t *const *dims, const int *ndims) {
  int r = 0;
  for (int k = 0; k < n_in; k++)
    if (ndims[k] > r) r = ndims[k];
  if (r > TFC_MAX_DIMS) return -1;
  b->n_in = n_in;
  b->out_ndims = r;
  b->n_out = 1;
  int masks[TFC_MAX_DIMS];
  for (int i = 0; i < r; i++) {
    int64_t o = 1, d[3];
    for (int k = 0; k < n_in; k++) {
      int j = i - (r - ndims[k]);
      d[k] = j >= 0 ? dims[k][j] : 1;
      if (d[k] == 1) continue;
      if (o == 1) o = d[k];
      else if (d[k] != o) return -1;
    }
    b->out_dims[i] = o;
    b->n_out *= o;
    masks[i] = 0;
    for (int k = 0; k < n_in; k++)
      if (d[k] == 1 && o != 1) masks[i] |= 1 << k;
  }
  /* Collapse: drop size-1 output dims, merge neighbours broadcast by the same inputs. */
  int cm[TFC_MAX_DIMS];
  b->rank = 0;
  for (int i = 0; i < r; i++) {
    if (b->out_dims[i] == 1) continue;
    if (b->rank > 0 && cm[b->rank - 1] == masks[i]) {
      b->dims[b->rank - 1] *= b->out_dims[i];
    } else {
      b->dims[b->rank] = b->out_dims[i];
      cm[b->rank++] = masks[i];
    }
  }
  if (b->rank == 0) {
    b->rank = 1;
    b->dims[0] = 1;
    cm[0] = 0;
  }
  for (int k = 0; k < n_in; k++) {
    int64_t s = 1;
    for (int j = b->rank - 1; j >= 0; j--) {
      if (cm[j] & (1 << k)) {
        b->strides[k][j] = 0;
      } else {
        b->strides[k][j] = s;
        s *= b->dims[j];
      }
    }
  }
  return 0;
}

int tfc_cwise_bcast_init(tfc_cwise_bcast *b, int n_in, const tfc_tensor *const *ins) {
  const int64_t *dims[3];
  int nd[3];
  for (int k = 0; k < n_in; k++) {
    dims[k] = ins[k]->dims;
    nd[k] = ins[k]->ndims;
  }
  return tfc_cwise_bcast_dims(b, n_in, dims, nd);
}

void tfc_cwise_bcast_row(const tfc_cwise_bcast *b, int64_t row, int64_t *offs) {
  for (int k = 0; k < b->n_in; k++) offs[k] = 0;
  for (int d = b->rank - 2; d >= 0; d--) {
    int64_t i = row % b->dims[d];
    row /= b->dims[d];
    for (int k = 0; k < b->n_in; k++) offs[k] += i * b->strides[k][d];
  }
}

/* ---- loop instantiation ---- */

/* A run of n outputs. mode 0: x and y advance; 1: y is a scalar; 2: x is a scalar. Returns 0,
 * or an error code (ERR_*) when some element was invalid. */
typedef int (*bin_fn)(const void *x, const void *y, void *z, int64_t n, int mode);

enum { ERR_NONE = 0, ERR_DIV_ZERO = 1, ERR_NEG_POW = 2 };

#define CW_BIN(name, T, OT, EXPR)                                                                 \
  static int name##_##T(const void *xv, const void *yv, void *zv, int64_t n, int mode) {         \
    const T *restrict x = xv;                                                                     \
    const T *restrict y = yv;                                                                     \
    OT *restrict z = zv;                                                                          \
    if (mode == 0) {                                                                              \
      for (int64_t i = 0; i < n; i++) {                                                           \
        const T a = x[i], b = y[i];                                                               \
        z[i] = (OT)(EXPR);                                                                        \
      }                                                                                           \
    } else if (mode == 1) {                                                                       \
      const T b = y[0];                                                                           \
      for (int64_t i = 0; i < n; i++) {                                                           \
        const T a = x[i];                                                                         \
        z[i] = (OT)(EXPR);                                                                        \
      }                                                                                           \
    } else {                                                                                      \
      const T a = x[0];                                                                           \
      for (int64_t i = 0; i < n; i++) {                                                           \
        const T b = y[i];                                                                         \
        z[i] = (OT)(EXPR);                                                                        \
      }                                                                                           \
    }                                                                                             \
    return ERR_NONE;                                                                              \
  }

/* Same, for integer ops that may reject an element: BAD is the rejection test on (a, b). */
#define CW_BIN_CHECKED(name, T, BAD, ERR, EXPR)                                                   \
  static int name##_##T(const void *xv, const void *yv, void *zv, int64_t n, int mode) {         \
    const T *restrict x = xv;                                                                     \
    const T *restrict y = yv;                                                                     \
    T *restrict z = zv;                                                                           \
    int err = ERR_NONE;                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const T a = mode == 2 ? x[0] : x[i], b = mode == 1 ? y[0] : y[i];                           \
      if (BAD) {                                                                                  \
        err = ERR;                                                                                \
        z[i] = 0;                                                                                 \
      } else {                                                                                    \
        z[i] = (T)(EXPR);                                                                         \
      }                                                                                           \
    }                                                                                             \
    return err;                                                                                   \
  }

/* Applies M(name, T, ...) to each type of a set. */
#define FOR_FLOAT(M, name, ...) M(name, f32, __VA_ARGS__) M(name, f64, __VA_ARGS__)
#define FOR_SINT(M, name, ...)                                                                    \
  M(name, i32, __VA_ARGS__) M(name, i64, __VA_ARGS__) M(name, i8, __VA_ARGS__) M(name, i16, __VA_ARGS__)
#define FOR_UINT(M, name, ...) M(name, u8, __VA_ARGS__) M(name, u16, __VA_ARGS__)
#define FOR_REAL(M, name, ...)                                                                    \
  FOR_FLOAT(M, name, __VA_ARGS__) FOR_SINT(M, name, __VA_ARGS__) FOR_UINT(M, name, __VA_ARGS__)

/* Argument-order adapters so FOR_* can drive CW_BIN (name, T, OT, EXPR). */
#define BIN_SAME(name, T, EXPR) CW_BIN(name, T, T, EXPR)
#define BIN_BOOL(name, T, EXPR) CW_BIN(name, T, bl, EXPR)
#define BIN_WRAP(name, T, OP) CW_BIN(name, T, T, (w_##T)a OP(w_##T) b)

/* Dispatch tables: one entry per dtype. */
#define ENTRY(name, T) [DT_##T] = name##_##T,
#define DT_f32 TFC_DT_FLOAT
#define DT_f64 TFC_DT_DOUBLE
#define DT_i32 TFC_DT_INT32
#define DT_i64 TFC_DT_INT64
#define DT_u8 TFC_DT_UINT8
#define DT_i8 TFC_DT_INT8
#define DT_i16 TFC_DT_INT16
#define DT_u16 TFC_DT_UINT16
#define DT_bl TFC_DT_BOOL
#define DT_c64 TFC_DT_COMPLEX64
#define DT_c128 TFC_DT_COMPLEX128
#define ENTRIES_CPLX(name) ENTRY(name, c64) ENTRY(name, c128)
#define M_CPLX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define DT_tstr TFC_DT_STRING
#define ENTRIES_FLOAT(name) ENTRY(name, f32) ENTRY(name, f64)
#define ENTRIES_SINT(name) ENTRY(name, i32) ENTRY(name, i64) ENTRY(name, i8) ENTRY(name, i16)
#define ENTRIES_UINT(name) ENTRY(name, u8) ENTRY(name, u16)
#define ENTRIES_REAL(name) ENTRIES_FLOAT(name) ENTRIES_SINT(name) ENTRIES_UINT(name)

#define M_FLOAT (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_SINT (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16))
#define M_UINT (TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_UINT16))
#define M_REAL (M_FLOAT | M_SINT | M_UINT)

/* Integer helpers per signed type: C's INT_MIN / -1 and INT_MIN % -1 are undefined, TF wraps. */
#define SINT_HELPERS(name, T, unused)                                                             \
  static inline T tdiv_##T(T a, T b) { return b == -1 ? (T)(0 - (w_##T)a) : (T)(a / b); }       \
  static inline T fdiv_##T(T a, T b) {                                                            \
    if (b == -1) return (T)(0 - (w_##T)a);                                                        \
    T q = (T)(a / b);                                                                             \
    return (T)((a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);                                 \
  }                                                                                               \
  static inline T fmod_##T(T a, T b) {                                                            \
    if (b == -1) return 0;                                                                        \
    T r = (T)(a % b);                                                                             \
    return (T)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);                                     \
  }                                                                                               \
  static inline T ipow_##T(T base, T e) {                                                         \
    w_##T r = 1, p = (w_##T)base;                                                                 \
    while (e > 0) {                                                                               \
      if (e & 1) r *= p;                                                                          \
      p *= p;                                                                                     \
      e = (T)(e >> 1);                                                                            \
    }                                                                                             \
    return (T)r;                                                                                  \
  }
FOR_SINT(SINT_HELPERS, unused, unused)

/* TF's floored modulo for floats: fmod, moved into the divisor's sign. */
static inline float fmod_f32(float a, float b) {
  float r = fmodf(a, b);
  return (a < 0) == (b < 0) ? r : fmodf(r + b, b);
}
static inline double fmod_f64(double a, double b) {
  double r = fmod(a, b);
  return (a < 0) == (b < 0) ? r : fmod(r + b, b);
}

/* ---- the ops ---- */

/* Float add, sub and mul (the bulk of a recurrent cell's element-wise work besides the
 * activations) are compiled once per vector unit (base/simd.h) and picked at run time. A
 * target attribute starts from the command line's options, so -O3 is asked for again. */
#if TFC_SIMD_X86
#if defined(__GNUC__) && !defined(__clang__)
#define CW_O3 __attribute__((optimize("O3")))
#else
#define CW_O3
#endif
#define BIN_F32_SIMD(name, OP)                                                                    \
  CW_BIN(name##_base, f32, f32, a OP b)                                                           \
  TFC_SIMD_TARGET_AVX2 CW_O3 CW_BIN(name##_avx2, f32, f32, a OP b)                                \
  TFC_SIMD_TARGET_AVX512 CW_O3 CW_BIN(name##_avx512, f32, f32, a OP b)                            \
  static int name##_f32(const void *x, const void *y, void *z, int64_t n, int mode) {             \
    int l = tfc_simd_level();                                                                     \
    return l >= TFC_SIMD_AVX512 ? name##_avx512_f32(x, y, z, n, mode)                             \
           : l >= TFC_SIMD_AVX2 ? name##_avx2_f32(x, y, z, n, mode)                               \
                                : name##_base_f32(x, y, z, n, mode);                              \
  }
#else
#define BIN_F32_SIMD(name, OP) CW_BIN(name, f32, f32, a OP b)
#endif
#define FOR_REAL_BUT_F32(M, name, ...)                                                            \
  M(name, f64, __VA_ARGS__) FOR_SINT(M, name, __VA_ARGS__) FOR_UINT(M, name, __VA_ARGS__)
BIN_F32_SIMD(add, +)
BIN_F32_SIMD(sub, -)
BIN_F32_SIMD(mul, *)
FOR_REAL_BUT_F32(BIN_WRAP, add, +)
FOR_REAL_BUT_F32(BIN_WRAP, sub, -)
FOR_REAL_BUT_F32(BIN_WRAP, mul, *)
FOR_FLOAT(BIN_SAME, div, a / b)
/* Complex arithmetic. Products are C's; quotients are Eigen's (TF's): b is scaled by the larger
 * magnitude of its parts m, then a * conj(b/m) / |b/m|^2 / m, so a zero divisor gives (nan, nan)
 * and inf / 2 gives (inf, nan), where C's Annex G division would give infinities. The
 * complex-only ops (Complex, Real, ...) are in kernels_complex.c. */
#define CDIV(T, R, FABS, FMAX, CRE, CIM)                                                          \
  static inline T cdiv_##T(T a, T b) {                                                            \
    R br = CRE(b), bi = CIM(b), m = FMAX(FABS(br), FABS(bi));                                     \
    R sr = br / m, si = bi / m, den = sr * sr + si * si;                                          \
    R ar = CRE(a), ai = CIM(a);                                                                   \
    R zr = (ar * sr - ai * -si) / den / m, zi = (ar * -si + ai * sr) / den / m;                    \
    return CMPLX_##T(zr, zi);                                                                     \
  }
#define CMPLX_c64(r, i) CMPLXF(r, i)
#define CMPLX_c128(r, i) CMPLX(r, i)
CDIV(c64, float, fabsf, fmaxf, crealf, cimagf)
CDIV(c128, double, fabs, fmax, creal, cimag)
#define FOR_CPLX(M, name, ...) M(name, c64, __VA_ARGS__) M(name, c128, __VA_ARGS__)
FOR_CPLX(BIN_SAME, add, a + b)
FOR_CPLX(BIN_SAME, sub, a - b)
FOR_CPLX(BIN_SAME, mul, a * b)
CW_BIN(div, c64, c64, cdiv_c64(a, b))
CW_BIN(div, c128, c128, cdiv_c128(a, b))
CW_BIN(div_no_nan, c64, c64, b == 0 ? 0 : cdiv_c64(a, b))
CW_BIN(div_no_nan, c128, c128, b == 0 ? 0 : cdiv_c128(a, b))
CW_BIN(pow, c64, c64, cpowf(a, b))
CW_BIN(pow, c128, c128, cpow(a, b))
FOR_CPLX(BIN_BOOL, equal, a == b)
FOR_CPLX(BIN_BOOL, not_equal, a != b)
FOR_FLOAT(BIN_SAME, div_no_nan, b == 0 ? 0 : a / b) /* 0 where y is 0, x/y elsewhere */
#define DIV_S(name, T, unused) CW_BIN_CHECKED(name, T, b == 0, ERR_DIV_ZERO, tdiv_##T(a, b))
#define DIV_U(name, T, unused) CW_BIN_CHECKED(name, T, b == 0, ERR_DIV_ZERO, a / b)
FOR_SINT(DIV_S, div, 0)
FOR_UINT(DIV_U, div, 0)
CW_BIN(floordiv, f32, f32, floorf(a / b))
CW_BIN(floordiv, f64, f64, floor(a / b))
#define FDIV_S(name, T, unused) CW_BIN_CHECKED(name, T, b == 0, ERR_DIV_ZERO, fdiv_##T(a, b))
FOR_SINT(FDIV_S, floordiv, 0)
FOR_UINT(DIV_U, floordiv, 0)
CW_BIN(floormod, f32, f32, fmod_f32(a, b))
CW_BIN(floormod, f64, f64, fmod_f64(a, b))
#define FMOD_S(name, T, unused) CW_BIN_CHECKED(name, T, b == 0, ERR_DIV_ZERO, fmod_##T(a, b))
FMOD_S(floormod, i32, 0)
FMOD_S(floormod, i64, 0)
/* Eigen's max/min: the first operand wins unless the second compares greater (smaller). */
FOR_REAL(BIN_SAME, maximum, a < b ? b : a)
FOR_REAL(BIN_SAME, minimum, b < a ? b : a)
CW_BIN(pow, f32, f32, powf(a, b))
CW_BIN(pow, f64, f64, pow(a, b))
#define POW_S(name, T, unused) CW_BIN_CHECKED(name, T, b < 0, ERR_NEG_POW, ipow_##T(a, b))
POW_S(pow, i32, 0)
POW_S(pow, i64, 0)

FOR_REAL(BIN_BOOL, less, a < b)
FOR_REAL(BIN_BOOL, less_equal, a <= b)
FOR_REAL(BIN_BOOL, greater, a > b)
FOR_REAL(BIN_BOOL, greater_equal, a >= b)
FOR_REAL(BIN_BOOL, equal, a == b)
FOR_REAL(BIN_BOOL, not_equal, a != b)
CW_BIN(equal, bl, bl, (a != 0) == (b != 0))
CW_BIN(not_equal, bl, bl, (a != 0) != (b != 0))
/* Strings compare by bytes. */
typedef tfc_tstring tstr;
static inline int tstr_eq(tstr a, tstr b) { return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0); }
CW_BIN(equal, tstr, bl, tstr_eq(a, b))
CW_BIN(not_equal, tstr, bl, !tstr_eq(a, b))
CW_BIN(logical_and, bl, bl, (a != 0) & (b != 0))
CW_BIN(logical_or, bl, bl, (a != 0) | (b != 0))

static const bin_fn add_fns[TFC_DT_COUNT] = {ENTRIES_REAL(add) ENTRIES_CPLX(add)};
static const bin_fn sub_fns[TFC_DT_COUNT] = {ENTRIES_REAL(sub) ENTRIES_CPLX(sub)};
static const bin_fn mul_fns[TFC_DT_COUNT] = {ENTRIES_REAL(mul) ENTRIES_CPLX(mul)};
static const bin_fn div_fns[TFC_DT_COUNT] = {ENTRIES_REAL(div) ENTRIES_CPLX(div)};
static const bin_fn div_no_nan_fns[TFC_DT_COUNT] = {ENTRIES_FLOAT(div_no_nan) ENTRIES_CPLX(div_no_nan)};
static const bin_fn floordiv_fns[TFC_DT_COUNT] = {ENTRIES_REAL(floordiv)};
static const bin_fn floormod_fns[TFC_DT_COUNT] = {ENTRIES_FLOAT(floormod) ENTRY(floormod, i32)
                                                      ENTRY(floormod, i64)};
static const bin_fn maximum_fns[TFC_DT_COUNT] = {ENTRIES_REAL(maximum)};
static const bin_fn minimum_fns[TFC_DT_COUNT] = {ENTRIES_REAL(minimum)};
static const bin_fn pow_fns[TFC_DT_COUNT] = {ENTRIES_FLOAT(pow) ENTRY(pow, i32) ENTRY(pow, i64) ENTRIES_CPLX(pow)};
static const bin_fn less_fns[TFC_DT_COUNT] = {ENTRIES_REAL(less)};
static const bin_fn less_equal_fns[TFC_DT_COUNT] = {ENTRIES_REAL(less_equal)};
static const bin_fn greater_fns[TFC_DT_COUNT] = {ENTRIES_REAL(greater)};
static const bin_fn greater_equal_fns[TFC_DT_COUNT] = {ENTRIES_REAL(greater_equal)};
static const bin_fn equal_fns[TFC_DT_COUNT] = {ENTRIES_REAL(equal) ENTRY(equal, bl) ENTRY(equal, tstr)
                                                      ENTRIES_CPLX(equal)};
static const bin_fn not_equal_fns[TFC_DT_COUNT] = {ENTRIES_REAL(not_equal) ENTRY(not_equal, bl)
                                                          ENTRY(not_equal, tstr) ENTRIES_CPLX(not_equal)};
static const bin_fn logical_and_fns[TFC_DT_COUNT] = {ENTRY(logical_and, bl)};
static const bin_fn logical_or_fns[TFC_DT_COUNT] = {ENTRY(logical_or, bl)};

/* ---- the driver ---- */

typedef struct bin_job {
  bin_fn fn;
  const char *x, *y;
  char *z;
  size_t xs, zs; /* element sizes (x and y share a dtype) */
  const tfc_cwise_bcast *b;
  int mode;
  int64_t inner;
  atomic_int err;
} bin_job;

static void note_err(bin_job *j, int err) {
  if (err) atomic_store_explicit(&j->err, err, memory_order_relaxed);
}

/* Rank-1 plans: one run, split by elements. */
static void bin_flat_shard(int64_t begin, int64_t end, void *arg) {
  bin_job *j = arg;
  const char *x = j->x + (j->mode == 2 ? 0 : (size_t)begin * j->xs);
  const char *y = j->y + (j->mode == 1 ? 0 : (size_t)begin * j->xs);
  note_err(j, j->fn(x, y, j->z + (size_t)begin * j->zs, end - begin, j->mode));
}

/* Higher ranks: one run per row; an odometer over the outer dims tracks the operand offsets. */
static void bin_rows_shard(int64_t begin, int64_t end, void *arg) {
  bin_job *j = arg;
  const tfc_cwise_bcast *b = j->b;
  int outer = b->rank - 1;
  int64_t idx[TFC_MAX_DIMS], offs[3], rem = begin;
  for (int d = outer - 1; d >= 0; d--) {
    idx[d] = rem % b->dims[d];
    rem /= b->dims[d];
  }
  tfc_cwise_bcast_row(b, begin, offs);
  int64_t ox = offs[0], oy = offs[1];
  for (int64_t r = begin; r < end; r++) {
    note_err(j, j->fn(j->x + (size_t)ox * j->xs, j->y + (size_t)oy * j->xs,
                      j->z + (size_t)(r * j->inner) * j->zs, j->inner, j->mode));
    for (int d = outer - 1; d >= 0; d--) {
      ox += b->strides[0][d];
      oy += b->strides[1][d];
      if (++idx[d] < b->dims[d]) break;
      ox -= b->strides[0][d] * b->dims[d];
      oy -= b->strides[1][d] * b->dims[d];
      idx[d] = 0;
    }
  }
}

static int incompatible(tfc_kernel_ctx *c, const tfc_tensor *x, const tfc_tensor *y) {
  char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                          tfc_tensor_shape_str(x, sx, sizeof sx), tfc_tensor_shape_str(y, sy, sizeof sy));
}

/* Output for an element-wise result: an operand's buffer when it can be taken over. */
static tfc_tensor *cwise_output(tfc_kernel_ctx *c, int n_in, int dtype, const int64_t *dims, int ndims,
                                int64_t n) {
  for (int k = 0; k < n_in; k++) {
    const tfc_tensor *t = c->inputs[k];
    if (t->dtype == dtype && t->n_elems == n && tfc_tensor_can_forward(t))
      return tfc_kernel_forward_or_alloc(c, k, 0, dtype, dims, ndims);
  }
  return tfc_kernel_alloc_output(c, 0, dtype, dims, ndims);
}

/* The kernel's status for a run's ERR_* code. */
static int bin_err(tfc_kernel_ctx *c, int err) {
  switch (err) {
    case ERR_DIV_ZERO: return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Integer division by zero");
    case ERR_NEG_POW:
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
    default: return TFC_OK;
  }
}

static int binary_run(tfc_kernel_ctx *c, const bin_fn *fns, int bool_out, int64_t cost) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  bin_fn fn = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? fns[x->dtype] : NULL;
  if (!fn || x->dtype != y->dtype)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(x->dtype));
  /* Same shapes, or a scalar operand: one flat run, no broadcast plan. */
  /* Compared inline: a library memcmp call per run costs more than the few dims it reads. */
  int same = x->ndims == y->ndims;
  for (int i = 0; same && i < x->ndims; i++) same = x->dims[i] == y->dims[i];
  if (same || x->ndims == 0 || y->ndims == 0) {
    const tfc_tensor *big = same || y->ndims == 0 ? x : y;
    int odt = bool_out ? TFC_DT_BOOL : x->dtype;
    int64_t n = big->n_elems;
    tfc_tensor *z = cwise_output(c, 2, odt, big->dims, big->ndims, n);
    if (!z) return c->status->code;
    if (n == 0) return TFC_OK;
    int mode = same || (x->ndims == 0 && y->ndims == 0) ? 0 : (y->ndims == 0 ? 1 : 2);
    /* n < SMALL_WORK / cost, without a division per run (n >= 1, cost >= 1). */
    if (n < TFC_KERNEL_SMALL_WORK && (n + 1) * cost <= TFC_KERNEL_SMALL_WORK)
      return bin_err(c, fn(x->data, y->data, z->data, n, mode));
    bin_job j = {.fn = fn, .x = x->data, .y = y->data, .z = z->data, .xs = tfc_dtype_size(x->dtype),
                 .zs = tfc_dtype_size(odt), .mode = mode};
    atomic_init(&j.err, ERR_NONE);
    tfc_kernel_parallel_for(c, n, cost, bin_flat_shard, &j);
    return bin_err(c, atomic_load(&j.err));
  }
  tfc_cwise_bcast b;
  const tfc_tensor *ins[2] = {x, y};
  if (tfc_cwise_bcast_init(&b, 2, ins)) {
    /* Equal/NotEqual with incompatible_shape_error=false answer a scalar instead. */
    int strict = 1;
    if (tfc_node_attr_bool(c->node, "incompatible_shape_error", &strict) == 0 && !strict) {
      tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, NULL, 0);
      if (!out) return c->status->code;
      *(bl *)out->data = c->node->op->id == TFC_OP_NotEqual;
      return TFC_OK;
    }
    return incompatible(c, x, y);
  }
  int odt = bool_out ? TFC_DT_BOOL : x->dtype;
  tfc_tensor *z = cwise_output(c, 2, odt, b.out_dims, b.out_ndims, b.n_out);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  int64_t sx = b.strides[0][b.rank - 1], sy = b.strides[1][b.rank - 1];
  bin_job j = {.fn = fn,
               .x = x->data,
               .y = y->data,
               .z = z->data,
               .xs = tfc_dtype_size(x->dtype),
               .zs = tfc_dtype_size(odt),
               .b = &b,
               .mode = sy == 0 && sx != 0 ? 1 : (sx == 0 && sy != 0 ? 2 : 0),
               .inner = b.dims[b.rank - 1]};
  atomic_init(&j.err, ERR_NONE);
  if (b.rank == 1) tfc_kernel_parallel_for(c, b.n_out, cost, bin_flat_shard, &j);
  else tfc_kernel_parallel_for(c, b.n_out / j.inner, cost * j.inner, bin_rows_shard, &j);
  return bin_err(c, atomic_load(&j.err));
}

/* Relative cost per element, for deciding when to split over the pool. */
#define CHEAP 1
#define DIVIDE 4
#define MATH_FN 20

/* The bool scalars false and true, made once and kept for the life of the process: a
 * comparison of two scalars hands out a new reference to one of them instead of a new tensor
 * (a while loop's predicate, every iteration). No one writes into them: a kernel writes into
 * an input only when it holds the only reference (tfc_tensor_can_forward), and the table keeps
 * one of its own. NULL when making them failed (then the result is allocated). */
static tfc_tensor *bool_scalars[2];
static pthread_once_t bool_scalars_once = PTHREAD_ONCE_INIT;

static void bool_scalars_init(void) {
  for (int v = 0; v < 2; v++) {
    tfc_status s;
    tfc_status_init(&s);
    tfc_tensor *t = tfc_tensor_new(TFC_DT_BOOL, NULL, 0, &s);
    if (t) *(uint8_t *)t->data = (uint8_t)v;
    bool_scalars[v] = t;
    tfc_status_fini(&s);
  }
}

/* compute_scalar (kernel.h) of the ops whose element functions never fail: two host scalars
 * of one numeric or bool dtype. A bool result is one of bool_scalars; any other is forwarded
 * from an input the kernel holds alone (as cwise_output would) or else allocated from `a`. */
static int binary_scalar(tfc_tensor **in, tfc_tensor **out, tfc_allocator *a, const bin_fn *fns, int bool_out) {
  tfc_tensor *x = in[0], *y = in[1];
  if ((x->ndims | y->ndims) != 0 || x->dtype != y->dtype || x->dtype <= 0 || x->dtype >= TFC_DT_COUNT ||
      x->dtype == TFC_DT_STRING || !fns[x->dtype])
    return -1;
  if (bool_out) {
    pthread_once(&bool_scalars_once, bool_scalars_init);
    uint8_t v = 0;
    fns[x->dtype](x->data, y->data, &v, 1, 0);
    tfc_tensor *b = bool_scalars[v != 0];
    if (b) {
      *out = tfc_tensor_ref(b);
      return 0;
    }
  }
  int odt = bool_out ? TFC_DT_BOOL : x->dtype;
  tfc_tensor *z;
  if (odt == x->dtype && tfc_tensor_can_forward(x)) {
    z = x;
    in[0] = NULL;
  } else if (odt == y->dtype && tfc_tensor_can_forward(y)) {
    z = y;
    in[1] = NULL;
  } else {
    tfc_status s;
    tfc_status_init(&s);
    z = tfc_allocator_tensor(a, odt, NULL, 0, &s);
    if (!z) {
      tfc_status_fini(&s);
      return -1;
    }
  }
  fns[x->dtype](x->data, y->data, z->data, 1, 0);
  *out = z;
  return 0;
}

#define BINARY_KERNEL(fname, fns, bool_out, cost)                                                 \
  static int fname##_compute(tfc_kernel_ctx *c) { return binary_run(c, fns, bool_out, cost); }
/* ... and its compute_scalar, for an op whose element functions never fail */
#define BINARY_KERNEL_SCALAR(fname, fns, bool_out, cost)                                          \
  BINARY_KERNEL(fname, fns, bool_out, cost)                                                        \
  static int fname##_scalar(tfc_tensor **in, tfc_tensor **out, tfc_allocator *a) {                \
    return binary_scalar(in, out, a, fns, bool_out);                                               \
  }
BINARY_KERNEL_SCALAR(add, add_fns, 0, CHEAP)
BINARY_KERNEL_SCALAR(sub, sub_fns, 0, CHEAP)
BINARY_KERNEL_SCALAR(mul, mul_fns, 0, CHEAP)
BINARY_KERNEL(div, div_fns, 0, DIVIDE)
BINARY_KERNEL(div_no_nan, div_no_nan_fns, 0, DIVIDE)
BINARY_KERNEL(floordiv, floordiv_fns, 0, DIVIDE)
BINARY_KERNEL(floormod, floormod_fns, 0, MATH_FN)
BINARY_KERNEL_SCALAR(maximum, maximum_fns, 0, CHEAP)
BINARY_KERNEL_SCALAR(minimum, minimum_fns, 0, CHEAP)
BINARY_KERNEL(pow, pow_fns, 0, MATH_FN)
BINARY_KERNEL_SCALAR(less, less_fns, 1, CHEAP)
BINARY_KERNEL_SCALAR(less_equal, less_equal_fns, 1, CHEAP)
BINARY_KERNEL_SCALAR(greater, greater_fns, 1, CHEAP)
BINARY_KERNEL_SCALAR(greater_equal, greater_equal_fns, 1, CHEAP)
BINARY_KERNEL(equal, equal_fns, 1, CHEAP)
BINARY_KERNEL(not_equal, not_equal_fns, 1, CHEAP)
BINARY_KERNEL_SCALAR(logical_and, logical_and_fns, 1, CHEAP)
BINARY_KERNEL_SCALAR(logical_or, logical_or_fns, 1, CHEAP)

#define ROW(opname, mask, fn) {.op = TFC_OP_##opname, .type_attr = "T", .types = (mask), .compute = fn##_compute}
#define ROW_S(opname, mask, fn)                                                                   \
  {.op = TFC_OP_##opname, .type_attr = "T", .types = (mask), .compute = fn##_compute,               \
   .compute_scalar = fn##_scalar}
#define ROW_NOATTR_S(opname, fn) {.op = TFC_OP_##opname, .compute = fn##_compute, .compute_scalar = fn##_scalar}

static const tfc_kernel_def defs[] = {
    ROW_S(Add, M_REAL | M_CPLX, add),
    ROW_S(AddV2, M_REAL | M_CPLX, add),
    ROW_S(Sub, M_REAL | M_CPLX, sub),
    ROW_S(Mul, M_REAL | M_CPLX, mul),
    ROW(Div, M_REAL | M_CPLX, div),
    ROW(RealDiv, M_FLOAT | M_CPLX, div),
    ROW(DivNoNan, M_FLOAT | M_CPLX, div_no_nan),
    ROW(FloorDiv, M_REAL, floordiv),
    ROW(FloorMod, M_FLOAT | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64), floormod),
    ROW_S(Maximum, M_REAL, maximum),
    ROW_S(Minimum, M_REAL, minimum),
    ROW(Pow, M_FLOAT | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | M_CPLX, pow),
    ROW_S(Less, M_REAL, less),
    ROW_S(LessEqual, M_REAL, less_equal),
    ROW_S(Greater, M_REAL, greater),
    ROW_S(GreaterEqual, M_REAL, greater_equal),
    ROW(Equal, M_REAL | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_STRING) | M_CPLX, equal),
    ROW(NotEqual, M_REAL | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_STRING) | M_CPLX, not_equal),
    ROW_NOATTR_S(LogicalAnd, logical_and),
    ROW_NOATTR_S(LogicalOr, logical_or),
};

int tfc_cpu_kernels_cwise(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cpu_kernels_cwise_unary(t, s));
  TFC_TRY(tfc_cpu_kernels_cwise_misc(t, s));
  TFC_TRY(tfc_cpu_kernels_complex(t, s));
  return tfc_cpu_kernels_batch_matmul(t, s);
}
