/*
 * kernels_reduce — CPU kernels of the reductions Sum, Mean, Prod, Max, Min, of All and Any (a
 * Min and a Max over bools with identities true and false) and of ArgMax and ArgMin.
 *
 * Plan: the axes (a scalar or vector, negative values counted from the end, duplicates
 * allowed, empty = nothing reduced) mark input dims as reduced; size-1 dims are dropped and
 * neighbours with the same mark merged, so most reductions collapse to "reduce a contiguous
 * run" (innermost dims reduced: a full reduction, a row-wise Sum) or "accumulate whole rows"
 * (innermost dims kept: a column-wise Sum over a batch). Other patterns walk the remaining
 * dims with strides and use the same two building blocks:
 *   - run: reduce n contiguous elements into one accumulator, with 16 independent lanes so
 *     the loop vectorizes, in chunks whose partial results meet in the accumulator type;
 *   - rows: acc[i] = combine(acc[i], x[i]) over a contiguous row, which vectorizes as is.
 * Work splits over the intra-op pool by output elements (or, for a full reduction, by fixed
 * blocks whose partials are merged in order, so results do not depend on the thread count).
 *
 * Accumulators: float sums and products accumulate in float lanes per chunk and in double
 * across chunks and rows (at least as accurate as TF's float tree reduction); integer sums
 * wrap like TF's (unsigned arithmetic). A reduction over zero elements gives the identity:
 * 0 for Sum, 1 for Prod, -inf/+inf (lowest/highest for integers) for Max/Min, and NaN for a
 * float Mean (0/0) as in TF; an integer Mean of nothing is 0.
 *
 * ArgMax / ArgMin check their dimension and plan their output with device/nn_plan.h, shared
 * with the GPU kernels.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cwise_int.h"
#include "device/nn_plan.h"

/* ---- per (op, dtype) building blocks ---- */

typedef struct red_ops {
  size_t acc_size;
  void (*init)(void *acc, int64_t n);
  void (*rows)(void *acc, const void *x, int64_t n);
  void (*run)(const void *x, int64_t n, void *acc); /* *acc = combine(*acc, reduce(x)) */
  void (*merge)(void *acc, const void *other);
  void (*fin)(const void *acc, void *out, int64_t n, int64_t count);
} red_ops;

#define LANES 16
/* The widest accumulator (complex128), in bytes. */
#define ACC_MAX 16
#define RUN_CHUNK 4096

/* LT: lane type of `run`; ACC: accumulator type; COMB: combine two values. */
#define RED_FNS(op, T, LT, ACC, IDENT, COMB)                                                      \
  static void op##_init_##T(void *av, int64_t n) {                                                \
    ACC *a = av;                                                                                  \
    for (int64_t i = 0; i < n; i++) a[i] = (ACC)(IDENT);                                          \
  }                                                                                               \
  static void op##_rows_##T(void *av, const void *xv, int64_t n) {                                \
    ACC *restrict a = av;                                                                         \
    const T *restrict x = xv;                                                                     \
    for (int64_t i = 0; i < n; i++) a[i] = COMB(a[i], (ACC)x[i]);                                 \
  }                                                                                               \
  static void op##_merge_##T(void *av, const void *bv) {                                          \
    ACC *a = av;                                                                                  \
    *a = COMB(*a, *(const ACC *)bv);                                                              \
  }                                                                                               \
  static void op##_run_##T(const void *xv, int64_t n, void *av) {                                 \
    const T *restrict x = xv;                                                                     \
    ACC total = *(ACC *)av;                                                                       \
    for (int64_t c0 = 0; c0 < n; c0 += RUN_CHUNK) {                                               \
      int64_t m = n - c0 < RUN_CHUNK ? n - c0 : RUN_CHUNK, i = 0;                                 \
      const T *restrict xc = x + c0;                                                              \
      LT lane[LANES];                                                                             \
      for (int l = 0; l < LANES; l++) lane[l] = (LT)(IDENT);                                      \
      for (; i + LANES <= m; i += LANES)                                                          \
        for (int l = 0; l < LANES; l++) lane[l] = COMB(lane[l], (LT)xc[i + l]);                   \
      for (int w = LANES / 2; w > 0; w /= 2)                                                      \
        for (int l = 0; l < w; l++) lane[l] = COMB(lane[l], lane[l + w]);                         \
      LT t = lane[0];                                                                             \
      for (; i < m; i++) t = COMB(t, (LT)xc[i]);                                                  \
      total = COMB(total, (ACC)t);                                                                \
    }                                                                                             \
    *(ACC *)av = total;                                                                           \
  }

#define C_ADD(a, b) ((a) + (b))
#define C_MUL(a, b) ((a) * (b))
#define C_MAX(a, b) ((b) > (a) ? (b) : (a))
#define C_MIN(a, b) ((b) < (a) ? (b) : (a))

/* fin: acc -> T. Mean divides by the reduced count. */
#define FIN_CAST(op, T, ACC)                                                                      \
  static void op##_fin_##T(const void *av, void *ov, int64_t n, int64_t count) {                  \
    const ACC *a = av;                                                                            \
    T *o = ov;                                                                                    \
    (void)count;                                                                                  \
    for (int64_t i = 0; i < n; i++) o[i] = (T)a[i];                                               \
  }
#define FIN_MEAN_FLOAT(T, ACC)                                                                    \
  static void mean_fin_##T(const void *av, void *ov, int64_t n, int64_t count) {                  \
    const ACC *a = av;                                                                            \
    T *o = ov;                                                                                    \
    for (int64_t i = 0; i < n; i++) o[i] = (T)(a[i] / (ACC)count);                                \
  }
#define FIN_MEAN_INT(T, ACC)                                                                      \
  static void mean_fin_##T(const void *av, void *ov, int64_t n, int64_t count) {                  \
    const ACC *a = av;                                                                            \
    T *o = ov;                                                                                    \
    for (int64_t i = 0; i < n; i++) o[i] = count ? (T)((int64_t)(T)a[i] / count) : 0;             \
  }

/* One type's five ops. Sum and Mean share everything but fin. */
#define RED_TYPE(T, LT_SUM, ACC_SUM, LOWEST, HIGHEST)                                             \
  RED_FNS(sum, T, LT_SUM, ACC_SUM, 0, C_ADD)                                                      \
  RED_FNS(prod, T, LT_SUM, ACC_SUM, 1, C_MUL)                                                     \
  RED_FNS(max, T, T, T, LOWEST, C_MAX)                                                            \
  RED_FNS(min, T, T, T, HIGHEST, C_MIN)                                                           \
  FIN_CAST(sum, T, ACC_SUM)                                                                       \
  FIN_CAST(prod, T, ACC_SUM)                                                                      \
  FIN_CAST(max, T, T)                                                                             \
  FIN_CAST(min, T, T)

RED_TYPE(f32, float, double, -INFINITY, INFINITY)
RED_TYPE(f64, double, double, -INFINITY, INFINITY)
RED_TYPE(i32, w_i32, w_i32, INT32_MIN, INT32_MAX)
RED_TYPE(i64, w_i64, w_i64, INT64_MIN, INT64_MAX)
RED_TYPE(u8, w_u8, w_u8, 0, UINT8_MAX)
RED_TYPE(i8, w_i8, w_i8, INT8_MIN, INT8_MAX)
RED_TYPE(i16, w_i16, w_i16, INT16_MIN, INT16_MAX)
RED_TYPE(u16, w_u16, w_u16, 0, UINT16_MAX)
/* complex: Sum, Mean and Prod (TF has no complex Max/Min); complex64 accumulates in complex128 */
RED_FNS(sum, c64, c64, c128, 0, C_ADD)
RED_FNS(prod, c64, c64, c128, 1, C_MUL)
RED_FNS(sum, c128, c128, c128, 0, C_ADD)
RED_FNS(prod, c128, c128, c128, 1, C_MUL)
FIN_CAST(sum, c64, c128)
FIN_CAST(prod, c64, c128)
FIN_CAST(sum, c128, c128)
FIN_CAST(prod, c128, c128)
FIN_MEAN_FLOAT(c64, c128)
FIN_MEAN_FLOAT(c128, c128)
FIN_MEAN_FLOAT(f32, double)
FIN_MEAN_FLOAT(f64, double)
FIN_MEAN_INT(i32, w_i32)
FIN_MEAN_INT(i64, w_i64)
FIN_MEAN_INT(u8, w_u8)
FIN_MEAN_INT(i8, w_i8)
FIN_MEAN_INT(i16, w_i16)
FIN_MEAN_INT(u16, w_u16)
/* bool is one byte, 0 or 1 */
RED_FNS(all, u8, u8, u8, 1, C_MIN)
RED_FNS(any, u8, u8, u8, 0, C_MAX)
FIN_CAST(all, u8, u8)
FIN_CAST(any, u8, u8)

enum { R_SUM, R_MEAN, R_PROD, R_MAX, R_MIN, R_ALL, R_ANY, R_COUNT };

#define OPS(op, fin, T, ACC) {sizeof(ACC), op##_init_##T, op##_rows_##T, op##_run_##T, op##_merge_##T, fin##_fin_##T}
#define OPS_TYPE(dt, T, ACC)                                                                      \
  [R_SUM][dt] = OPS(sum, sum, T, ACC), [R_MEAN][dt] = OPS(sum, mean, T, ACC),                     \
  [R_PROD][dt] = OPS(prod, prod, T, ACC), [R_MAX][dt] = OPS(max, max, T, T),                      \
  [R_MIN][dt] = OPS(min, min, T, T)

static const red_ops red_table[R_COUNT][TFC_DT_COUNT] = {
    OPS_TYPE(TFC_DT_FLOAT, f32, double), OPS_TYPE(TFC_DT_DOUBLE, f64, double),
    OPS_TYPE(TFC_DT_INT32, i32, w_i32),  OPS_TYPE(TFC_DT_INT64, i64, w_i64),
    OPS_TYPE(TFC_DT_UINT8, u8, w_u8),    OPS_TYPE(TFC_DT_INT8, i8, w_i8),
    OPS_TYPE(TFC_DT_INT16, i16, w_i16),  OPS_TYPE(TFC_DT_UINT16, u16, w_u16),
    [R_SUM][TFC_DT_COMPLEX64] = OPS(sum, sum, c64, c128), [R_MEAN][TFC_DT_COMPLEX64] = OPS(sum, mean, c64, c128),
    [R_PROD][TFC_DT_COMPLEX64] = OPS(prod, prod, c64, c128),
    [R_SUM][TFC_DT_COMPLEX128] = OPS(sum, sum, c128, c128), [R_MEAN][TFC_DT_COMPLEX128] = OPS(sum, mean, c128, c128),
    [R_PROD][TFC_DT_COMPLEX128] = OPS(prod, prod, c128, c128),
    [R_ALL][TFC_DT_BOOL] = OPS(all, all, u8, u8), [R_ANY][TFC_DT_BOOL] = OPS(any, any, u8, u8)};

/* ---- the plan ---- */

typedef struct red_plan {
  int rank;                  /* collapsed */
  int64_t dims[TFC_MAX_DIMS];
  int64_t strides[TFC_MAX_DIMS];
  int red[TFC_MAX_DIMS];
  int out_ndims;
  int64_t out_dims[TFC_MAX_DIMS];
  int64_t n_out, count;      /* outputs, and input elements per output */
} red_plan;

/* Reads the axes and builds the plan. Errors as TF's ReductionHelper. */
static int red_plan_init(tfc_kernel_ctx *c, const tfc_tensor *x, const tfc_tensor *axes, int keep_dims,
                         red_plan *p) {
  int mark[TFC_MAX_DIMS] = {0};
  for (int64_t i = 0; i < axes->n_elems; i++) {
    int64_t a = tfc_tensor_get_i64(axes, i);
    if (a < -x->ndims || a >= x->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid reduction dimension (%lld for input with %d dimension(s)",
                              (long long)a, x->ndims);
    mark[a < 0 ? a + x->ndims : a] = 1;
  }
  p->out_ndims = 0;
  p->n_out = 1;
  p->count = 1;
  for (int i = 0; i < x->ndims; i++) {
    if (!mark[i]) p->out_dims[p->out_ndims++] = x->dims[i];
    else if (keep_dims) p->out_dims[p->out_ndims++] = 1;
    if (mark[i]) p->count *= x->dims[i];
    else p->n_out *= x->dims[i];
  }
  p->rank = 0;
  for (int i = 0; i < x->ndims; i++) {
    if (x->dims[i] == 1) continue;
    if (p->rank > 0 && p->red[p->rank - 1] == mark[i]) {
      p->dims[p->rank - 1] *= x->dims[i];
    } else {
      p->dims[p->rank] = x->dims[i];
      p->red[p->rank++] = mark[i];
    }
  }
  int64_t s = 1;
  for (int i = p->rank - 1; i >= 0; i--) {
    p->strides[i] = s;
    s *= p->dims[i];
  }
  return TFC_OK;
}

typedef struct red_job {
  const red_ops *ops;
  const red_plan *p;
  const char *x;
  char *out;
  size_t xs;
  /* dims walked by outputs (kept) and by the accumulation loop (reduced), innermost excluded */
  int n_kept, n_red;
  int64_t kd[TFC_MAX_DIMS], ks[TFC_MAX_DIMS], rd[TFC_MAX_DIMS], rs[TFC_MAX_DIMS];
  int64_t inner;   /* length of the innermost collapsed dim */
  int64_t n_red_outer; /* product of rd */
  int64_t n_cblk;  /* case B: column blocks per output row */
  char *partials;  /* full reduction: one accumulator per block */
  int64_t block;
} red_job;

static int64_t kept_offset(const red_job *j, int64_t o) {
  int64_t off = 0;
  for (int d = j->n_kept - 1; d >= 0; d--) {
    off += (o % j->kd[d]) * j->ks[d];
    o /= j->kd[d];
  }
  return off;
}

/* Calls fn for every combination of the outer reduced dims with the input offset. */
#define FOR_REDUCED(j, base, off, body)                                                           \
  do {                                                                                            \
    int64_t idx_[TFC_MAX_DIMS] = {0}, off = (base);                                               \
    for (int64_t it_ = 0; it_ < (j)->n_red_outer; it_++) {                                        \
      body;                                                                                       \
      for (int d_ = (j)->n_red - 1; d_ >= 0; d_--) {                                              \
        off += (j)->rs[d_];                                                                       \
        if (++idx_[d_] < (j)->rd[d_]) break;                                                      \
        off -= (j)->rs[d_] * (j)->rd[d_];                                                         \
        idx_[d_] = 0;                                                                             \
      }                                                                                           \
    }                                                                                             \
  } while (0)

/* Case A: the innermost dim is reduced; one accumulator per output. */
static void red_runs_shard(int64_t begin, int64_t end, void *arg) {
  const red_job *j = arg;
  _Alignas(16) char acc[ACC_MAX];
  for (int64_t o = begin; o < end; o++) {
    j->ops->init(acc, 1);
    FOR_REDUCED(j, kept_offset(j, o), off, j->ops->run(j->x + (size_t)off * j->xs, j->inner, acc));
    j->ops->fin(acc, j->out + (size_t)o * j->xs, 1, j->p->count);
  }
}

/* Full reduction of one run: fixed blocks, partials merged in order afterwards. */
static void red_blocks_shard(int64_t begin, int64_t end, void *arg) {
  const red_job *j = arg;
  for (int64_t b = begin; b < end; b++) {
    char *acc = j->partials + (size_t)b * ACC_MAX;
    int64_t lo = b * j->block, n = j->inner - lo < j->block ? j->inner - lo : j->block;
    j->ops->init(acc, 1);
    j->ops->run(j->x + (size_t)lo * j->xs, n, acc);
  }
}

/* Case B: the innermost dim is kept; rows accumulate into a block of columns. */
#define COL_BLOCK 1024
static void red_rows_shard(int64_t begin, int64_t end, void *arg) {
  const red_job *j = arg;
  _Alignas(16) char acc[COL_BLOCK * ACC_MAX];
  for (int64_t u = begin; u < end; u++) {
    int64_t o = u / j->n_cblk, c0 = (u % j->n_cblk) * COL_BLOCK;
    int64_t n = j->inner - c0 < COL_BLOCK ? j->inner - c0 : COL_BLOCK;
    j->ops->init(acc, n);
    FOR_REDUCED(j, kept_offset(j, o) + c0, off, j->ops->rows(acc, j->x + (size_t)off * j->xs, n));
    j->ops->fin(acc, j->out + (size_t)(o * j->inner + c0) * j->xs, n, j->p->count);
  }
}

/* Full reductions split into blocks of at least this many elements. */
#define MIN_BLOCK 32768
#define MAX_BLOCKS 64

static int reduce_compute(tfc_kernel_ctx *c, int op) {
  const tfc_tensor *x = c->inputs[0], *axes = c->inputs[1];
  int keep_dims = 0;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "keep_dims", &keep_dims, c->status));
  const red_ops *ops = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? &red_table[op][x->dtype] : NULL;
  if (!ops || !ops->init)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(x->dtype));
  red_plan p;
  TFC_TRY(red_plan_init(c, x, axes, keep_dims, &p));
  size_t xs = tfc_dtype_size(x->dtype);
  /* Nothing to combine: the values pass through (reshaped). */
  if (p.count == 1 && p.n_out > 0) {
    tfc_tensor *z = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, p.out_dims, p.out_ndims);
    if (!z) return c->status->code;
    if (z->data != x->data) memcpy(z->data, x->data, x->n_bytes);
    return TFC_OK;
  }
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, x->dtype, p.out_dims, p.out_ndims);
  if (!z) return c->status->code;
  if (p.n_out == 0) return TFC_OK;
  if (p.count == 0) {
    /* Identity values, one block of accumulators at a time. */
    _Alignas(16) char acc[COL_BLOCK * ACC_MAX];
    for (int64_t o = 0; o < p.n_out; o += COL_BLOCK) {
      int64_t n = p.n_out - o < COL_BLOCK ? p.n_out - o : COL_BLOCK;
      ops->init(acc, n);
      ops->fin(acc, (char *)z->data + (size_t)o * xs, n, 0);
    }
    return TFC_OK;
  }
  red_job j = {.ops = ops, .p = &p, .x = x->data, .out = z->data, .xs = xs, .n_red_outer = 1};
  int inner_red = p.red[p.rank - 1];
  j.inner = p.dims[p.rank - 1];
  for (int d = 0; d < p.rank - 1; d++) {
    if (p.red[d]) {
      j.rd[j.n_red] = p.dims[d];
      j.rs[j.n_red++] = p.strides[d];
      j.n_red_outer *= p.dims[d];
    } else {
      j.kd[j.n_kept] = p.dims[d];
      j.ks[j.n_kept++] = p.strides[d];
    }
  }
  if (!inner_red) {
    j.n_cblk = (j.inner + COL_BLOCK - 1) / COL_BLOCK;
    int64_t rows_out = p.n_out / j.inner;
    tfc_kernel_parallel_for(c, rows_out * j.n_cblk, p.count * (j.inner < COL_BLOCK ? j.inner : COL_BLOCK),
                            red_rows_shard, &j);
    return TFC_OK;
  }
  if (p.rank == 1 && c->pool && j.inner >= 2 * MIN_BLOCK) {
    int64_t nb = j.inner / MIN_BLOCK < MAX_BLOCKS ? j.inner / MIN_BLOCK : MAX_BLOCKS;
    j.block = (j.inner + nb - 1) / nb;
    nb = (j.inner + j.block - 1) / j.block;
    j.partials = malloc((size_t)nb * ACC_MAX);
    if (!j.partials) return TFC_OOM(c->status);
    tfc_kernel_parallel_for(c, nb, j.block, red_blocks_shard, &j);
    for (int64_t b = 1; b < nb; b++) ops->merge(j.partials, j.partials + (size_t)b * ACC_MAX);
    ops->fin(j.partials, z->data, 1, p.count);
    free(j.partials);
    return TFC_OK;
  }
  tfc_kernel_parallel_for(c, p.n_out, p.count, red_runs_shard, &j);
  return TFC_OK;
}

static int sum_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_SUM); }
static int mean_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_MEAN); }
static int prod_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_PROD); }
static int max_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_MAX); }
static int min_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_MIN); }
static int all_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_ALL); }
static int any_compute(tfc_kernel_ctx *c) { return reduce_compute(c, R_ANY); }

/* ---- ArgMax / ArgMin ---- */

/* For columns [c0, c0 + n) of one [len, inner] slab: the index of the first extreme value
 * along the slab's first dim (NaNs never win, as they never compare greater). */
#define ARG_FN(name, T, BETTER)                                                                   \
  static void name##_##T(const void *xv, int64_t len, int64_t inner, int64_t c0, int64_t n,      \
                         int64_t *idx) {                                                          \
    const T *x = (const T *)xv + c0;                                                              \
    if (inner == 1) {                                                                             \
      T best = x[0];                                                                              \
      int64_t bi = 0;                                                                             \
      for (int64_t a = 1; a < len; a++)                                                           \
        if (BETTER(x[a], best)) {                                                                 \
          best = x[a];                                                                            \
          bi = a;                                                                                 \
        }                                                                                         \
      idx[0] = bi;                                                                                \
      return;                                                                                     \
    }                                                                                             \
    T best[COL_BLOCK];                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                             \
      best[i] = x[i];                                                                             \
      idx[i] = 0;                                                                                 \
    }                                                                                             \
    for (int64_t a = 1; a < len; a++) {                                                           \
      const T *row = x + a * inner;                                                               \
      for (int64_t i = 0; i < n; i++) {                                                           \
        int better = BETTER(row[i], best[i]);                                                     \
        best[i] = better ? row[i] : best[i];                                                      \
        idx[i] = better ? a : idx[i];                                                             \
      }                                                                                           \
    }                                                                                             \
  }
#define GT(a, b) ((a) > (b))
#define LT(a, b) ((a) < (b))
#define ARG_TYPE(T) ARG_FN(argmax, T, GT) ARG_FN(argmin, T, LT)
ARG_TYPE(f32)
ARG_TYPE(f64)
ARG_TYPE(i32)
ARG_TYPE(i64)
ARG_TYPE(u8)
ARG_TYPE(i8)
ARG_TYPE(i16)
ARG_TYPE(u16)

typedef void (*arg_fn)(const void *x, int64_t len, int64_t inner, int64_t c0, int64_t n, int64_t *idx);
#define AE(T, dt) [0][dt] = argmax_##T, [1][dt] = argmin_##T
static const arg_fn arg_table[2][TFC_DT_COUNT] = {
    AE(f32, TFC_DT_FLOAT), AE(f64, TFC_DT_DOUBLE), AE(i32, TFC_DT_INT32), AE(i64, TFC_DT_INT64),
    AE(u8, TFC_DT_UINT8),  AE(i8, TFC_DT_INT8),    AE(i16, TFC_DT_INT16), AE(u16, TFC_DT_UINT16)};

typedef struct arg_job {
  arg_fn fn;
  const char *x;
  void *out;
  int out_i32;
  size_t xs;
  int64_t len, inner, n_cblk;
} arg_job;

static void arg_shard(int64_t begin, int64_t end, void *arg) {
  const arg_job *j = arg;
  int64_t idx[COL_BLOCK];
  for (int64_t u = begin; u < end; u++) {
    int64_t o = u / j->n_cblk, c0 = (u % j->n_cblk) * COL_BLOCK;
    int64_t n = j->inner - c0 < COL_BLOCK ? j->inner - c0 : COL_BLOCK;
    j->fn(j->x + (size_t)(o * j->len * j->inner) * j->xs, j->len, j->inner, c0, n, idx);
    int64_t at = o * j->inner + c0;
    for (int64_t i = 0; i < n; i++) {
      if (j->out_i32) ((int32_t *)j->out)[at + i] = (int32_t)idx[i];
      else ((int64_t *)j->out)[at + i] = idx[i];
    }
  }
}

static int arg_compute(tfc_kernel_ctx *c, int is_min) {
  const tfc_tensor *x = c->inputs[0];
  arg_fn fn = x->dtype > 0 && x->dtype < TFC_DT_COUNT ? arg_table[is_min][x->dtype] : NULL;
  if (!fn)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s", c->node->op->name,
                            tfc_dtype_name(x->dtype));
  tfc_arg_plan p;
  TFC_TRY(tfc_arg_plan_of(c, &p));
  int64_t inner = p.inner;
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, p.out_type, p.dims, p.ndims);
  if (!z) return c->status->code;
  if (z->n_elems == 0) return TFC_OK;
  arg_job j = {fn, x->data, z->data, p.out_type == TFC_DT_INT32, tfc_dtype_size(x->dtype), p.len, inner,
               (inner + COL_BLOCK - 1) / COL_BLOCK};
  tfc_kernel_parallel_for(c, p.outer * j.n_cblk, j.len * (inner < COL_BLOCK ? inner : COL_BLOCK), arg_shard, &j);
  return TFC_OK;
}

static int argmax_compute(tfc_kernel_ctx *c) { return arg_compute(c, 0); }
static int argmin_compute(tfc_kernel_ctx *c) { return arg_compute(c, 1); }

#define M_RED                                                                                     \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) |        \
   TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16))
/* The axes / dimension input (index 1) lives in host memory on every device. */
#define M_CPLX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define ROW_M(opname, fn, mask)                                                                   \
  {.op = TFC_OP_##opname, .type_attr = "T", .types = (mask), .host_memory_in = 1u << 1, .compute = fn##_compute}
#define ROW(opname, fn) ROW_M(opname, fn, M_RED)

static const tfc_kernel_def defs[] = {
    ROW_M(Sum, sum, M_RED | M_CPLX), ROW_M(Mean, mean, M_RED | M_CPLX), ROW_M(Prod, prod, M_RED | M_CPLX), ROW(Max, max),
    ROW(Min, min), ROW(ArgMax, argmax), ROW(ArgMin, argmin),
    {.op = TFC_OP_All, .host_memory_in = 1u << 1, .compute = all_compute},
    {.op = TFC_OP_Any, .host_memory_in = 1u << 1, .compute = any_compute},
};

int tfc_cpu_kernels_reduce(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
