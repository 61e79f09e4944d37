/*
 * kernels_nn — CPU kernels of the neural-network family: BiasAdd (NHWC/NCHW), BiasAddV1,
 * BiasAddGrad, Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits, the sparse variant, L2Loss,
 * InTopK / InTopKV2, LRN / LRNGrad (float), TopKV2 (a sort of each row: larger first, ties by lower index, NaN
 * largest) and CheckNumerics. tfc_cpu_kernels_nn also registers the element-wise activations
 * and math of kernels_nn_act.c.
 *
 * Layout of the work: everything here is row-shaped. BiasAdd adds the bias to each row (NHWC)
 * or each (batch, channel) plane (NCHW); softmax and the losses work on one row of classes at
 * a time; each is a parallel_for over rows whose inner loops are plain vectorizable loops.
 * Reductions to one value per channel (BiasAddGrad) or one scalar (L2Loss) cut the input
 * into a number of shards that depends only on the sizes, sum each in double into its own
 * slot and add the slots in order, so results do not depend on the thread count.
 *
 * Numerics follow TF: softmax subtracts the row max, exponentiates, and multiplies by the
 * reciprocal of the sum; log-softmax is shifted - log(sum); the cross-entropy losses use the
 * same shifted logits (loss = log(sum) * sum(labels) - sum(labels * shifted), which equals
 * TF's sum(labels * (log(sum) - shifted))), backprop = exp(shifted) / sum - labels.
 *
 * The input checks and shape plans of the losses, InTopK, TopKV2 and CheckNumerics are shared
 * with the GPU kernels (device/nn_plan.h), so both devices refuse the same inputs with the same
 * texts.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cwise_int.h"
#include "device/nn_plan.h"
#include "device/top_k_order.h"

#if defined(__GNUC__) && !defined(__clang__)
/* Lets GCC vectorize the float max and select loops (see kernels_nn_act.c). */
#pragma GCC optimize("no-trapping-math")
#endif


static const char *shape_str(const tfc_tensor *t, char *buf) {
  return tfc_tensor_shape_str(t, buf, TFC_SHAPE_STR_MAX);
}

static int is_nchw_node(const tfc_node *n) {
  const tfc_attr_value *v = tfc_node_attr(n, "data_format");
  return v && v->kind == TFC_ATTR_STRING && strcmp(v->u.s.data, "NCHW") == 0;
}

/* ---- BiasAdd ---- */

/* NHWC: rows of n_bias elements, each row += bias. NCHW: planes of len (= H*W...) elements,
 * plane p += bias[p % n_bias]. */
typedef struct bias_job {
  const void *x, *bias;
  void *y;
  int64_t n_bias, len; /* NHWC: len == 0 */
} bias_job;

#define BIAS_ADD(T, W)                                                                            \
  static void bias_nhwc_##T(int64_t b, int64_t e, void *arg) {                                    \
    bias_job *j = arg;                                                                            \
    const int64_t nb = j->n_bias;                                                                 \
    const T *restrict bias = j->bias;                                                             \
    for (int64_t r = b; r < e; r++) {                                                             \
      const T *restrict x = (const T *)j->x + r * nb;                                             \
      T *restrict y = (T *)j->y + r * nb;                                                         \
      for (int64_t k = 0; k < nb; k++) y[k] = (T)((W)x[k] + (W)bias[k]);                          \
    }                                                                                             \
  }                                                                                               \
  static void bias_nchw_##T(int64_t b, int64_t e, void *arg) {                                    \
    bias_job *j = arg;                                                                            \
    const int64_t len = j->len;                                                                   \
    for (int64_t p = b; p < e; p++) {                                                             \
      const T *restrict x = (const T *)j->x + p * len;                                            \
      T *restrict y = (T *)j->y + p * len;                                                        \
      const W v = (W)((const T *)j->bias)[p % j->n_bias];                                        \
      for (int64_t k = 0; k < len; k++) y[k] = (T)((W)x[k] + v);                                  \
    }                                                                                             \
  }
BIAS_ADD(f32, float)
BIAS_ADD(f64, double)
BIAS_ADD(i32, uint32_t)
BIAS_ADD(i64, uint64_t)

typedef void (*shard_fn)(int64_t, int64_t, void *);
typedef struct shard_pair {
  shard_fn nhwc, nchw;
} shard_pair;

static int dt_index(int dtype) {
  switch (dtype) {
  case TFC_DT_FLOAT: return 0;
  case TFC_DT_DOUBLE: return 1;
  case TFC_DT_INT32: return 2;
  case TFC_DT_INT64: return 3;
  default: return -1;
  }
}

static const shard_pair bias_fns[4] = {{bias_nhwc_f32, bias_nchw_f32},
                                       {bias_nhwc_f64, bias_nchw_f64},
                                       {bias_nhwc_i32, bias_nchw_i32},
                                       {bias_nhwc_i64, bias_nchw_i64}};

static int bias_add_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *bias = c->inputs[1];
  char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
  if (x->ndims < 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s", shape_str(x, sa));
  if (bias->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Biases must be 1D: %s", shape_str(bias, sa));
  int nchw = is_nchw_node(c->node);
  int ch = nchw ? 1 : x->ndims - 1;
  if (bias->dims[0] != x->dims[ch])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Must provide as many biases as the last dimension of the input tensor: %s vs. %s",
                            shape_str(bias, sa), shape_str(x, sb));
  int di = dt_index(x->dtype);
  if (di < 0)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "BiasAdd is not implemented for %s", tfc_dtype_name(x->dtype));
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  bias_job j = {x->data, bias->data, y->data, bias->dims[0], 0};
  if (nchw) {
    j.len = 1;
    for (int d = 2; d < x->ndims; d++) j.len *= x->dims[d];
    tfc_kernel_parallel_for(c, x->n_elems / j.len, j.len, bias_fns[di].nchw, &j);
  } else {
    tfc_kernel_parallel_for(c, x->n_elems / j.n_bias, j.n_bias, bias_fns[di].nhwc, &j);
  }
  return TFC_OK;
}

/* ---- BiasAddGrad ---- */

/* Shards of rows (NHWC) each summed into their own row of `acc` (n_shards x channels). NCHW
 * splits by channel instead: each channel's sum is independent. */
typedef struct bgrad_job {
  const void *x;
  double *acc;          /* NHWC: n_shards x n_ch partial sums; NCHW: unused */
  void *out;            /* NCHW: written directly */
  int64_t n_ch, rows, n_shards;
  int64_t batch, len;   /* NCHW */
} bgrad_job;

#define BGRAD(T)                                                                                  \
  static void bgrad_nhwc_##T(int64_t b, int64_t e, void *arg) {                                   \
    bgrad_job *j = arg;                                                                           \
    const int64_t nc = j->n_ch;                                                                   \
    for (int64_t s = b; s < e; s++) {                                                             \
      double *restrict acc = j->acc + s * nc;                                                     \
      int64_t r0 = j->rows * s / j->n_shards, r1 = j->rows * (s + 1) / j->n_shards;               \
      for (int64_t k = 0; k < nc; k++) acc[k] = 0;                                                \
      for (int64_t r = r0; r < r1; r++) {                                                         \
        const T *restrict x = (const T *)j->x + r * nc;                                           \
        for (int64_t k = 0; k < nc; k++) acc[k] += (double)x[k];                                  \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  static void bgrad_nchw_##T(int64_t b, int64_t e, void *arg) {                                   \
    bgrad_job *j = arg;                                                                           \
    for (int64_t ch = b; ch < e; ch++) {                                                          \
      double lanes[8] = {0};                                                                      \
      double tail = 0;                                                                            \
      for (int64_t n = 0; n < j->batch; n++) {                                                    \
        const T *restrict x = (const T *)j->x + (n * j->n_ch + ch) * j->len;                      \
        int64_t i = 0;                                                                            \
        for (; i + 8 <= j->len; i += 8)                                                           \
          for (int l = 0; l < 8; l++) lanes[l] += (double)x[i + l];                               \
        for (; i < j->len; i++) tail += (double)x[i];                                             \
      }                                                                                           \
      double sum = tail;                                                                          \
      for (int l = 0; l < 8; l++) sum += lanes[l];                                                \
      ((T *)j->out)[ch] = (T)sum;                                                                 \
    }                                                                                             \
  }
BGRAD(f32)
BGRAD(f64)

/* About 64K elements per shard, at most 64 shards: enough to feed any pool. */
static int64_t shard_count(int64_t rows, int64_t per_row) {
  int64_t total = rows * per_row, n = total / 65536 + 1;
  if (n > 64) n = 64;
  if (n > rows) n = rows;
  return n < 1 ? 1 : n;
}

static int bias_add_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  char sa[TFC_SHAPE_STR_MAX];
  if (x->ndims < 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s", shape_str(x, sa));
  int nchw = is_nchw_node(c->node);
  int64_t n_ch = x->dims[nchw ? 1 : x->ndims - 1];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, &n_ch, 1);
  if (!out) return c->status->code;
  int is_f32 = x->dtype == TFC_DT_FLOAT;
  if (x->dtype != TFC_DT_FLOAT && x->dtype != TFC_DT_DOUBLE)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "BiasAddGrad is not implemented for %s", tfc_dtype_name(x->dtype));
  if (n_ch == 0) return TFC_OK;
  bgrad_job j = {.x = x->data, .out = out->data, .n_ch = n_ch};
  if (nchw) {
    j.batch = x->dims[0];
    j.len = 1;
    for (int d = 2; d < x->ndims; d++) j.len *= x->dims[d];
    tfc_kernel_parallel_for(c, n_ch, j.batch * j.len, is_f32 ? bgrad_nchw_f32 : bgrad_nchw_f64, &j);
    return TFC_OK;
  }
  j.rows = x->n_elems / n_ch;
  j.n_shards = shard_count(j.rows, n_ch);
  j.acc = malloc(sizeof(double) * (size_t)(j.n_shards * n_ch));
  if (!j.acc) return TFC_OOM(c->status);
  /* One item per shard; the cost makes every shard its own task. */
  tfc_kernel_parallel_for(c, j.n_shards, 1 << 20, is_f32 ? bgrad_nhwc_f32 : bgrad_nhwc_f64, &j);
  for (int64_t s = 1; s < j.n_shards; s++)
    for (int64_t k = 0; k < n_ch; k++) j.acc[k] += j.acc[s * n_ch + k];
  for (int64_t k = 0; k < n_ch; k++) {
    if (is_f32) ((float *)out->data)[k] = (float)j.acc[k];
    else ((double *)out->data)[k] = j.acc[k];
  }
  free(j.acc);
  return TFC_OK;
}

/* ---- row primitives for softmax and the losses ---- */

static float max_f32(const float *x, int64_t n) {
  float lanes[8];
  int64_t i = 0;
  float m = -INFINITY;
  if (n >= 8) {
    for (int l = 0; l < 8; l++) lanes[l] = x[l];
    for (i = 8; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; l++) lanes[l] = x[i + l] > lanes[l] ? x[i + l] : lanes[l];
    for (int l = 0; l < 8; l++) m = lanes[l] > m ? lanes[l] : m;
  }
  for (; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

static double max_f64(const double *x, int64_t n) {
  double m = -INFINITY;
  for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

/* Sum in eight float lanes (vectorizes without reassociation flags), combined in double. */
static double sum_f32(const float *x, int64_t n) {
  float lanes[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) lanes[l] += x[i + l];
  double s = 0;
  for (int l = 0; l < 8; l++) s += lanes[l];
  for (; i < n; i++) s += x[i];
  return s;
}

static double sum_f64(const double *x, int64_t n) {
  double lanes[4] = {0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; l++) lanes[l] += x[i + l];
  double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; i++) s += x[i];
  return s;
}

static void sub_f32(const float *restrict x, float m, float *restrict y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i] - m;
}
static void sub_f64(const double *restrict x, double m, double *restrict y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i] - m;
}
static void shift_f32(float *y, float m, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] -= m;
}
static void shift_f64(double *y, double m, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] -= m;
}
static void exp_f32(float *y, int64_t n) { tfc_nn_exp_f32(y, y, n); }
static void exp_f64(double *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = exp(y[i]);
}
static void scale_f32(float *y, float s, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] *= s;
}
static void scale_f64(double *y, double s, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] *= s;
}
/* dot and sum of labels, for the dense loss */
#define LDOT(T)                                                                                   \
  static void ldot_##T(const T *restrict l, const T *restrict s, int64_t n, double *dot, double *suml) { \
    double d = 0, sl = 0;                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                             \
      d += (double)l[i] * (double)s[i];                                                           \
      sl += (double)l[i];                                                                         \
    }                                                                                             \
    *dot = d;                                                                                     \
    *suml = sl;                                                                                   \
  }
LDOT(f32)
LDOT(f64)
#define PROB_MINUS(T)                                                                             \
  static void prob_minus_##T(T *restrict e, T sum, const T *restrict l, int64_t n) {              \
    for (int64_t i = 0; i < n; i++) e[i] = e[i] / sum - l[i];                                     \
  }
PROB_MINUS(f32)
PROB_MINUS(f64)

/* ---- Softmax / LogSoftmax ---- */

typedef struct row_job {
  const void *x, *labels;
  void *y, *loss;
  int64_t n; /* classes per row */
  int log;
  int label_dtype;
} row_job;

#define SOFTMAX_ROWS(T)                                                                           \
  static void softmax_rows_##T(int64_t b, int64_t e, void *arg) {                                 \
    row_job *j = arg;                                                                             \
    const int64_t n = j->n;                                                                       \
    for (int64_t r = b; r < e; r++) {                                                             \
      const T *x = (const T *)j->x + r * n;                                                       \
      T *y = (T *)j->y + r * n;                                                                   \
      T m = (T)max_##T(x, n);                                                                     \
      sub_##T(x, m, y, n);                                                                        \
      if (j->log) {                                                                               \
        /* y keeps the shifted logits; exp goes through a small stack buffer */                   \
        double s = 0;                                                                             \
        T buf[256];                                                                               \
        for (int64_t i = 0; i < n; i += 256) {                                                    \
          int64_t k = n - i < 256 ? n - i : 256;                                                  \
          memcpy(buf, y + i, sizeof(T) * (size_t)k);                                              \
          exp_##T(buf, k);                                                                        \
          s += sum_##T(buf, k);                                                                   \
        }                                                                                         \
        shift_##T(y, (T)log(s), n);                                                              \
      } else {                                                                                    \
        exp_##T(y, n);                                                                            \
        scale_##T(y, (T)(1.0 / sum_##T(y, n)), n);                                                \
      }                                                                                           \
    }                                                                                             \
  }
SOFTMAX_ROWS(f32)
SOFTMAX_ROWS(f64)

static int softmax_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  char sa[TFC_SHAPE_STR_MAX];
  if (x->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "logits must have >= 1 dimension, got %s", shape_str(x, sa));
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  int64_t n = x->dims[x->ndims - 1];
  if (x->n_elems == 0) return TFC_OK;
  row_job j = {.x = x->data, .y = y->data, .n = n, .log = c->node->op->id == TFC_OP_LogSoftmax};
  tfc_kernel_parallel_for(c, x->n_elems / n, 8 * n, x->dtype == TFC_DT_FLOAT ? softmax_rows_f32 : softmax_rows_f64,
                          &j);
  return TFC_OK;
}

/* ---- SoftmaxCrossEntropyWithLogits ---- */

#define XENT_ROWS(T)                                                                              \
  static void xent_rows_##T(int64_t b, int64_t e, void *arg) {                                    \
    row_job *j = arg;                                                                             \
    const int64_t n = j->n;                                                                       \
    for (int64_t r = b; r < e; r++) {                                                             \
      const T *x = (const T *)j->x + r * n, *l = (const T *)j->labels + r * n;                    \
      T *bp = (T *)j->y + r * n;                                                                  \
      T m = (T)max_##T(x, n);                                                                     \
      sub_##T(x, m, bp, n);                                                                       \
      double dot, suml;                                                                           \
      ldot_##T(l, bp, n, &dot, &suml);                                                            \
      exp_##T(bp, n);                                                                             \
      double s = sum_##T(bp, n);                                                                  \
      ((T *)j->loss)[r] = (T)(log(s) * suml - dot);                                               \
      prob_minus_##T(bp, (T)s, l, n);                                                             \
    }                                                                                             \
  }
XENT_ROWS(f32)
XENT_ROWS(f64)

/* Copies a rank <= 2 tensor read at element r * rs + k * cs (the plan's broadcast strides)
 * into a dense [rows, cols] buffer. */
static void *broadcast_2d(const tfc_tensor *t, int64_t rs, int64_t cs, int64_t rows, int64_t cols) {
  size_t es = tfc_dtype_size(t->dtype);
  char *out = malloc(es * (size_t)(rows * cols) + 1);
  if (!out) return NULL;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < cols; k++)
      memcpy(out + es * (size_t)(r * cols + k), (const char *)t->data + es * (size_t)(r * rs + k * cs), es);
  return out;
}

static int xent_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *l = c->inputs[1];
  tfc_xent_plan p;
  TFC_TRY(tfc_xent_plan_of(c, x, l, &p));
  tfc_tensor *loss = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, 1);
  if (!loss) return c->status->code;
  tfc_tensor *bp = p.x_full ? tfc_kernel_forward_or_alloc(c, 0, 1, x->dtype, p.dims, 2)
                            : tfc_kernel_alloc_output(c, 1, x->dtype, p.dims, 2);
  if (!bp) return c->status->code;
  if (p.rows == 0) return TFC_OK;
  if (p.cols == 0) { /* log(0) * 0 - 0: TF's sum over no classes gives a zero loss */
    memset(loss->data, 0, loss->n_bytes);
    return TFC_OK;
  }
  void *xb = p.x_full ? NULL : broadcast_2d(x, p.x_rs, p.x_cs, p.rows, p.cols);
  void *lb = p.l_full ? NULL : broadcast_2d(l, p.l_rs, p.l_cs, p.rows, p.cols);
  if ((!p.x_full && !xb) || (!p.l_full && !lb)) {
    free(xb);
    free(lb);
    return TFC_OOM(c->status);
  }
  row_job j = {.x = xb ? xb : x->data, .labels = lb ? lb : l->data, .y = bp->data, .loss = loss->data, .n = p.cols};
  tfc_kernel_parallel_for(c, p.rows, 12 * p.cols, x->dtype == TFC_DT_FLOAT ? xent_rows_f32 : xent_rows_f64, &j);
  free(xb);
  free(lb);
  return TFC_OK;
}

/* ---- SparseSoftmaxCrossEntropyWithLogits ---- */

static int64_t label_at(const void *labels, int dtype, int64_t i) {
  return dtype == TFC_DT_INT32 ? ((const int32_t *)labels)[i] : ((const int64_t *)labels)[i];
}

#define SPARSE_ROWS(T)                                                                            \
  static void sparse_rows_##T(int64_t b, int64_t e, void *arg) {                                  \
    row_job *j = arg;                                                                             \
    const int64_t n = j->n;                                                                       \
    for (int64_t r = b; r < e; r++) {                                                             \
      const T *x = (const T *)j->x + r * n;                                                       \
      T *bp = (T *)j->y + r * n;                                                                  \
      int64_t lab = label_at(j->labels, j->label_dtype, r);                                       \
      T m = (T)max_##T(x, n);                                                                     \
      sub_##T(x, m, bp, n);                                                                       \
      T shifted = bp[lab];                                                                        \
      exp_##T(bp, n);                                                                             \
      double s = sum_##T(bp, n);                                                                  \
      ((T *)j->loss)[r] = (T)(log(s) - (double)shifted);                                          \
      scale_##T(bp, (T)(1.0 / s), n);                                                             \
      bp[lab] -= (T)1;                                                                            \
    }                                                                                             \
  }
SPARSE_ROWS(f32)
SPARSE_ROWS(f64)

/* TF's "Label values: " list: every label, space-separated. */
static char *labels_summary(const tfc_tensor *l) {
  size_t cap = 64 + 24 * (size_t)l->n_elems, off = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  s[0] = '\0';
  for (int64_t i = 0; i < l->n_elems; i++)
    off += (size_t)snprintf(s + off, cap - off, "%s%lld", i ? " " : "", (long long)label_at(l->data, l->dtype, i));
  return s;
}

static int sparse_xent_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *l = c->inputs[1];
  TFC_TRY(tfc_sparse_xent_check(c, x, l));
  int64_t rows = x->dims[0], n = x->dims[1];
  if (rows > 0) {
    int64_t lo = 0, hi = 0;
    for (int64_t i = 0; i < rows; i++) {
      int64_t v = label_at(l->data, l->dtype, i);
      if (i == 0 || v < lo) lo = v;
      if (i == 0 || v > hi) hi = v;
    }
    if (lo < 0 || hi >= n) {
      char *vals = labels_summary(l);
      if (!vals) return TFC_OOM(c->status);
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                       "Received a label value of %lld which is outside the valid range of [0, %lld).  Label values: %s",
                       (long long)(lo < 0 ? lo : hi), (long long)n, vals);
      free(vals);
      return c->status->code;
    }
  }
  tfc_tensor *loss = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, 1);
  if (!loss) return c->status->code;
  tfc_tensor *bp = tfc_kernel_forward_or_alloc(c, 0, 1, x->dtype, x->dims, 2);
  if (!bp) return c->status->code;
  if (rows == 0) return TFC_OK;
  row_job j = {.x = x->data, .labels = l->data, .y = bp->data, .loss = loss->data, .n = n, .label_dtype = l->dtype};
  tfc_kernel_parallel_for(c, rows, 10 * n, x->dtype == TFC_DT_FLOAT ? sparse_rows_f32 : sparse_rows_f64, &j);
  return TFC_OK;
}

/* ---- L2Loss ---- */

typedef struct l2_job {
  const void *x;
  int64_t n, n_shards;
  double *part;
} l2_job;

#define L2_SHARD(T)                                                                               \
  static void l2_shard_##T(int64_t b, int64_t e, void *arg) {                                     \
    l2_job *j = arg;                                                                              \
    for (int64_t s = b; s < e; s++) {                                                             \
      const T *restrict x = (const T *)j->x;                                                      \
      int64_t i0 = j->n * s / j->n_shards, i1 = j->n * (s + 1) / j->n_shards;                     \
      double lanes[8] = {0};                                                                      \
      int64_t i = i0;                                                                             \
      for (; i + 8 <= i1; i += 8)                                                                 \
        for (int l = 0; l < 8; l++) lanes[l] += (double)x[i + l] * (double)x[i + l];              \
      double t = 0;                                                                               \
      for (; i < i1; i++) t += (double)x[i] * (double)x[i];                                       \
      for (int l = 0; l < 8; l++) t += lanes[l];                                                  \
      j->part[s] = t;                                                                             \
    }                                                                                             \
  }
L2_SHARD(f32)
L2_SHARD(f64)

static int l2loss_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, NULL, 0);
  if (!out) return c->status->code;
  double part[64];
  l2_job j = {x->data, x->n_elems, shard_count(x->n_elems, 1), part};
  if (x->n_elems > 0)
    tfc_kernel_parallel_for(c, j.n_shards, 1 << 20, x->dtype == TFC_DT_FLOAT ? l2_shard_f32 : l2_shard_f64, &j);
  double sum = 0;
  for (int64_t s = 0; s < j.n_shards && x->n_elems > 0; s++) sum += part[s];
  if (x->dtype == TFC_DT_FLOAT) *(float *)out->data = (float)(sum * 0.5);
  else *(double *)out->data = sum * 0.5;
  return TFC_OK;
}

/* ---- InTopK / InTopKV2 ---- */

/* TF's rule: a target is in the top k when fewer than k classes score strictly higher; ties
 * therefore count in the target's favour. A non-finite target score, or any non-finite score
 * in the row, makes the answer false. */
static int in_top_k_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *t = c->inputs[1];
  const tfc_tensor *kt = c->node->op->id == TFC_OP_InTopKV2 ? c->inputs[2] : NULL;
  int64_t k;
  TFC_TRY(tfc_in_top_k_check(c, p, t, kt));
  if (kt) k = label_at(kt->data, kt->dtype, 0);
  else if (tfc_kernel_attr_int(c->node, "k", &k, c->status)) return c->status->code;
  int64_t rows = p->dims[0], n = p->dims[1];
  for (int64_t b = 0; b < rows; b++) {
    int64_t target = label_at(t->data, t->dtype, b);
    if (target < 0 || target >= n)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "targets[%lld] is out of range", (long long)b);
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, &rows, 1);
  if (!out) return c->status->code;
  for (int64_t b = 0; b < rows; b++) {
    const float *row = (const float *)p->data + b * n;
    float tp = row[label_at(t->data, t->dtype, b)];
    int cannot_say = !isfinite(tp);
    int64_t more = 0;
    for (int64_t i = 0; i < n && !cannot_say; i++) {
      if (!isfinite(row[i])) cannot_say = 1;
      else more += row[i] > tp;
    }
    ((uint8_t *)out->data)[b] = !cannot_say && more < k;
  }
  return TFC_OK;
}

/* ---- LRN, LRNGrad ---- */

/* TF's CPU kernels: out = in / (bias + alpha * sum over [d - r, d + r] of in^2)^beta; the
 * gradient adds, for each output j in the window of k, dy_j * (delta_jk * norm_j^-beta -
 * 2 alpha beta in_k out_j / norm_j). Accumulation in float as TF. */
static int lrn_compute(tfc_kernel_ctx *c) {
  const tfc_lrn_attrs *p = c->state;
  int grad = c->node->op->id == TFC_OP_LRNGrad;
  const tfc_tensor *x = c->inputs[grad ? 1 : 0];
  int64_t depth, rows;
  TFC_TRY(tfc_lrn_check(c, grad, &rows, &depth));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, x->dims, 4);
  if (!out) return c->status->code;
  const float *in = x->data;
  float *o = out->data;
  if (grad) memset(o, 0, (size_t)x->n_elems * sizeof *o);
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = in + r * depth;
    float *orow = o + r * depth;
    for (int64_t j = 0; j < depth; j++) {
      int64_t lo = j - p->radius < 0 ? 0 : j - p->radius;
      int64_t hi = j + p->radius + 1 > depth ? depth : j + p->radius + 1;
      float sum = 0.0f;
      for (int64_t k = lo; k < hi; k++) sum += xr[k] * xr[k];
      float norm = p->bias + p->alpha * sum;
      if (!grad) {
        orow[j] = xr[j] / powf(norm, p->beta);
        continue;
      }
      float dy = ((const float *)c->inputs[0]->data)[r * depth + j];
      float yj = ((const float *)c->inputs[2]->data)[r * depth + j];
      for (int64_t k = lo; k < hi; k++) {
        float d = -2.0f * p->alpha * p->beta * xr[k] * yj / norm;
        if (k == j) d += powf(norm, -p->beta);
        orow[k] += d * dy;
      }
    }
  }
  return TFC_OK;
}

/* ---- TopKV2 ---- */

typedef struct topk_item {
  uint64_t key; /* device/top_k_order.h */
  int64_t at;
} topk_item;

static int topk_cmp(const void *a, const void *b) {
  const topk_item *x = a, *y = b;
  if (tfc_top_k_before(x->key, x->at, y->key, y->at)) return -1;
  return tfc_top_k_before(y->key, y->at, x->key, x->at);
}

static int top_k_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_top_k_plan p;
  TFC_TRY(tfc_top_k_plan_of(c, &p));
  tfc_tensor *vals = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, p.ndims);
  if (!vals) return c->status->code;
  tfc_tensor *idx = tfc_kernel_alloc_output(c, 1, p.idx_type, p.dims, p.ndims);
  if (!idx) return c->status->code;
  int64_t rows = p.rows, n = p.n, k = p.k;
  int idx_type = p.idx_type;
  if (k == 0 || rows == 0) return TFC_OK;
  topk_item *items = malloc((size_t)n * sizeof *items);
  if (!items) return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "TopKV2: out of memory");
  size_t es = tfc_dtype_size(x->dtype);
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t j = 0; j < n; j++) {
      int64_t e = r * n + j;
      items[j].at = j;
      if (x->dtype == TFC_DT_FLOAT) items[j].key = tfc_top_k_key_f32(((const float *)x->data)[e]);
      else if (x->dtype == TFC_DT_DOUBLE) items[j].key = tfc_top_k_key_f64(((const double *)x->data)[e]);
      else items[j].key = tfc_top_k_key_i64(tfc_tensor_get_i64(x, e));
    }
    qsort(items, (size_t)n, sizeof *items, topk_cmp);
    for (int64_t j = 0; j < k; j++) {
      memcpy((char *)vals->data + (size_t)(r * k + j) * es, (const char *)x->data + (size_t)(r * n + items[j].at) * es,
             es);
      int64_t o = r * k + j;
      if (idx_type == TFC_DT_INT32) ((int32_t *)idx->data)[o] = items[j].at;
      else if (idx_type == TFC_DT_INT64) ((int64_t *)idx->data)[o] = items[j].at;
      else ((int16_t *)idx->data)[o] = (int16_t)items[j].at;
    }
  }
  free(items);
  return TFC_OK;
}

/* ---- CheckNumerics ---- */

typedef struct check_job {
  const void *x;
  atomic_int flags; /* TFC_CHECK_NAN | TFC_CHECK_INF seen */
} check_job;

#define CHECK_SHARD(T, FABS)                                                                      \
  static void check_shard_##T(int64_t b, int64_t e, void *arg) {                                  \
    check_job *j = arg;                                                                           \
    const T *restrict x = (const T *)j->x;                                                        \
    int nan = 0, inf = 0;                                                                         \
    for (int64_t i = b; i < e; i++) {                                                             \
      nan |= x[i] != x[i];                                                                        \
      inf |= FABS(x[i]) == (T)INFINITY;                                                           \
    }                                                                                             \
    if (nan || inf) atomic_fetch_or(&j->flags, (nan ? TFC_CHECK_NAN : 0) | (inf ? TFC_CHECK_INF : 0)); \
  }
CHECK_SHARD(f32, fabsf)
CHECK_SHARD(f64, fabs)

static int check_numerics_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  const char *message;
  if (tfc_kernel_attr_string(c->node, "message", &message, c->status)) return c->status->code;
  check_job j = {.x = x->data};
  atomic_init(&j.flags, 0);
  tfc_kernel_parallel_for(c, x->n_elems, 1, x->dtype == TFC_DT_FLOAT ? check_shard_f32 : check_shard_f64, &j);
  TFC_TRY(tfc_check_numerics_report(c, message, atomic_load(&j.flags)));
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
  return TFC_OK;
}

/* ---- registration ---- */

#define M_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_FI (M_F | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_BiasAdd, .type_attr = "T", .types = M_FI, .compute = bias_add_compute},
    {.op = TFC_OP_BiasAddV1, .type_attr = "T", .types = M_FI, .compute = bias_add_compute},
    {.op = TFC_OP_BiasAddGrad, .type_attr = "T", .types = M_F, .compute = bias_add_grad_compute},
    {.op = TFC_OP_Softmax, .type_attr = "T", .types = M_F, .compute = softmax_compute},
    {.op = TFC_OP_LogSoftmax, .type_attr = "T", .types = M_F, .compute = softmax_compute},
    {.op = TFC_OP_SoftmaxCrossEntropyWithLogits, .type_attr = "T", .types = M_F, .compute = xent_compute},
    {.op = TFC_OP_SparseSoftmaxCrossEntropyWithLogits, .type_attr = "T", .types = M_F,
     .compute = sparse_xent_compute},
    {.op = TFC_OP_L2Loss, .type_attr = "T", .types = M_F, .compute = l2loss_compute},
    {.op = TFC_OP_InTopK, .type_attr = "T", .types = TFC_TYPES_INT, .compute = in_top_k_compute},
    {.op = TFC_OP_InTopKV2, .type_attr = "T", .types = TFC_TYPES_INT, .host_memory_in = 1u << 2,
     .compute = in_top_k_compute},
    {.op = TFC_OP_CheckNumerics, .type_attr = "T", .types = M_F, .compute = check_numerics_compute},
    {.op = TFC_OP_LRN, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = tfc_lrn_init, .compute = lrn_compute,
     .free_state = free},
    {.op = TFC_OP_LRNGrad, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = tfc_lrn_init,
     .compute = lrn_compute, .free_state = free},
    {.op = TFC_OP_TopKV2, .type_attr = "T", .types = TFC_TYPES_FLOAT | TFC_TYPES_INT, .host_memory_in = 1u << 1,
     .compute = top_k_compute},
};

int tfc_cpu_kernels_nn(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cpu_kernels_batch_norm(t, s));
  TFC_TRY(tfc_cpu_kernels_einsum(t, s));
  TFC_TRY(tfc_cpu_kernels_clip(t, s));
  TFC_TRY(tfc_cpu_kernels_space_batch(t, s));
  return tfc_cpu_kernels_nn_act(t, s);
}
