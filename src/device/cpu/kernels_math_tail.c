/*
 * kernels_math_tail — CPU kernels of ops_math_tail.def's element-wise and segment rows, and
 * Print:
 *   - Erf, Erfc, Lgamma, Digamma (float, double): libm's erf/erfc/lgamma_r; digamma by the
 *     recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series
 *     (reflection for negative x; poles give nan, as TF's Eigen does for x <= 0 integers).
 *   - Atan2, Xdivy, Xlogy (0 where x == 0): float and double with
 *     numpy broadcasting (the cwise plan of cwise_int.h), "Incompatible shapes: [2] vs. [3]".
 *   - SegmentSum/Mean/Prod/Max/Min over sorted ids ("segment ids are not increasing",
 *     "segment ids must be >= 0"; an empty segment is 0, or 1 for Prod) and
 *     UnsortedSegmentMax/Min/Prod (empty segments: the type's lowest / highest value / 1;
 *     negative ids are dropped; "segment_ids[1] = 5 is out of range [0, 2)").
 *     float, double, int32, int64.
 *   - Print: the input unchanged; at each of the first `first_n` runs (all when < 0) one line
 *     to stderr: message, then each data tensor as "[[1 2][3...]...]": at most `summarize`
 *     values, nested by dims (TF's Tensor::SummarizeValue). The count of runs is one per
 *     session (shared state), as TF shares stateful kernels.
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "device/array_plan.h"
#include "device/cpu/cwise_int.h"
#include "device/scatter_plan.h"
#include "device/special_math.h"
#include "ops/opdef.h"

/* ---- unary special functions ---- */

static double lgamma_d(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

typedef double (*unary_fn)(double);

static int unary_run(tfc_kernel_ctx *c, unary_fn f) {
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (x->dtype == TFC_DT_FLOAT) {
    const float *a = x->data;
    float *b = y->data;
    for (int64_t i = 0; i < x->n_elems; i++) b[i] = (float)f(a[i]);
  } else {
    const double *a = x->data;
    double *b = y->data;
    for (int64_t i = 0; i < x->n_elems; i++) b[i] = f(a[i]);
  }
  return TFC_OK;
}

static int erf_compute(tfc_kernel_ctx *c) { return unary_run(c, erf); }
static int erfc_compute(tfc_kernel_ctx *c) { return unary_run(c, erfc); }
static int lgamma_compute(tfc_kernel_ctx *c) { return unary_run(c, lgamma_d); }
static int digamma_compute(tfc_kernel_ctx *c) { return unary_run(c, tfc_digamma); }

/* ---- broadcasting binary functions ---- */

typedef double (*binary_fn)(double, double);

static double atan2_d(double y, double x) { return atan2(y, x); }
static double xdivy(double x, double y) { return x == 0 ? 0 : x / y; }
static double xlogy(double x, double y) { return x == 0 ? 0 : x * log(y); }

static int binary_run(tfc_kernel_ctx *c, binary_fn f) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  const tfc_tensor *ins[2] = {x, y};
  tfc_cwise_bcast b;
  if (tfc_cwise_bcast_init(&b, 2, ins)) {
    char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                            tfc_tensor_shape_str(x, sx, sizeof sx), tfc_tensor_shape_str(y, sy, sizeof sy));
  }
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, x->dtype, b.out_dims, b.out_ndims);
  if (!z) return c->status->code;
  if (!b.n_out) return TFC_OK;
  int64_t inner = b.dims[b.rank - 1], rows = b.n_out / inner;
  int64_t sx = b.strides[0][b.rank - 1], sy = b.strides[1][b.rank - 1];
  int dbl = x->dtype == TFC_DT_DOUBLE;
  for (int64_t r = 0; r < rows; r++) {
    int64_t offs[2];
    tfc_cwise_bcast_row(&b, r, offs);
    for (int64_t i = 0; i < inner; i++) {
      int64_t ix = offs[0] + i * sx, iy = offs[1] + i * sy, iz = r * inner + i;
      if (dbl) ((double *)z->data)[iz] = f(((const double *)x->data)[ix], ((const double *)y->data)[iy]);
      else ((float *)z->data)[iz] = (float)f(((const float *)x->data)[ix], ((const float *)y->data)[iy]);
    }
  }
  return TFC_OK;
}

static int atan2_compute(tfc_kernel_ctx *c) { return binary_run(c, atan2_d); }
static int xdivy_compute(tfc_kernel_ctx *c) { return binary_run(c, xdivy); }
static int xlogy_compute(tfc_kernel_ctx *c) { return binary_run(c, xlogy); }

/* ---- segment reductions ---- */

enum { SEG_SUM, SEG_MEAN, SEG_PROD, SEG_MAX, SEG_MIN };

/* The starting value of an output element for reduction kind k (empty_value: what an empty
 * sorted segment holds; unsorted max/min start at the type's extreme). */
static double seg_init(int k, int dtype, int sorted) {
  switch (k) {
    case SEG_PROD: return 1;
    case SEG_MAX:
      if (sorted) return 0;
      return dtype == TFC_DT_FLOAT ? -FLT_MAX : dtype == TFC_DT_DOUBLE ? -DBL_MAX
             : dtype == TFC_DT_INT32 ? (double)INT32_MIN : (double)INT64_MIN;
    case SEG_MIN:
      if (sorted) return 0;
      return dtype == TFC_DT_FLOAT ? FLT_MAX : dtype == TFC_DT_DOUBLE ? DBL_MAX
             : dtype == TFC_DT_INT32 ? (double)INT32_MAX : (double)INT64_MAX;
    default: return 0;
  }
}

/* Reads / writes element i of a float, double, int32 or int64 tensor as double (int64 values
 * beyond 2^53 lose precision in max/min/prod: exact for sums through the int path below). */
static double get(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return ((const double *)t->data)[i];
    case TFC_DT_INT32: return ((const int32_t *)t->data)[i];
    default: return (double)((const int64_t *)t->data)[i];
  }
}

static void put(tfc_tensor *t, int64_t i, double v) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v; break;
    case TFC_DT_DOUBLE: ((double *)t->data)[i] = v; break;
    case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    default: ((int64_t *)t->data)[i] = (int64_t)v; break;
  }
}

/* acc op= v for kind k, on doubles, or exactly on int64 for integer sums and products. */
static void seg_accumulate(tfc_tensor *out, int64_t o, const tfc_tensor *data, int64_t i, int k) {
  if (out->dtype == TFC_DT_INT64 || out->dtype == TFC_DT_INT32) {
    int64_t a = out->dtype == TFC_DT_INT64 ? ((int64_t *)out->data)[o] : ((int32_t *)out->data)[o];
    int64_t v = data->dtype == TFC_DT_INT64 ? ((const int64_t *)data->data)[i] : ((const int32_t *)data->data)[i];
    int64_t r = k == SEG_SUM || k == SEG_MEAN ? (int64_t)((uint64_t)a + (uint64_t)v)
                : k == SEG_PROD ? (int64_t)((uint64_t)a * (uint64_t)v)
                : k == SEG_MAX ? (a > v ? a : v) : (a < v ? a : v);
    if (out->dtype == TFC_DT_INT64) ((int64_t *)out->data)[o] = r;
    else ((int32_t *)out->data)[o] = (int32_t)r;
    return;
  }
  double a = get(out, o), v = get(data, i);
  double r = k == SEG_SUM || k == SEG_MEAN ? a + v : k == SEG_PROD ? a * v : k == SEG_MAX ? fmax(a, v) : fmin(a, v);
  if ((k == SEG_MAX || k == SEG_MIN) && (isnan(a) || isnan(v))) r = NAN;
  put(out, o, r);
}

/* The checks and the output's size are scatter_plan.h's, shared with the GPU's SegmentSum. */
static int sorted_segment(tfc_kernel_ctx *c, int k) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  int64_t n = ids->n_elems, rows, inner;
  TFC_TRY(tfc_segment_plan_of(c, ids->data, &rows, &inner));
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, data->dims, sizeof(int64_t) * (size_t)data->ndims);
  dims[0] = rows;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, data->dtype, dims, data->ndims);
  if (!out) return c->status->code;
  int64_t *count = k == SEG_MEAN ? calloc((size_t)(dims[0] ? dims[0] : 1), sizeof *count) : NULL;
  if (k == SEG_MEAN && !count) return TFC_OOM(c->status);
  unsigned char *seen = calloc((size_t)(dims[0] ? dims[0] : 1), 1);
  if (!seen) {
    free(count);
    return TFC_OOM(c->status);
  }
  for (int64_t o = 0; o < out->n_elems; o++) put(out, o, seg_init(k, data->dtype, 1));
  for (int64_t i = 0; i < n; i++) {
    int64_t s = tfc_tensor_get_i64(ids, i);
    if (!seen[s] && (k == SEG_MAX || k == SEG_MIN)) {
      for (int64_t j = 0; j < inner; j++) put(out, s * inner + j, get(data, i * inner + j));
    } else {
      for (int64_t j = 0; j < inner; j++) seg_accumulate(out, s * inner + j, data, i * inner + j, k);
    }
    seen[s] = 1;
    if (count) count[s]++;
  }
  if (k == SEG_MEAN)
    for (int64_t s = 0; s < dims[0]; s++)
      for (int64_t j = 0; count[s] && j < inner; j++) {
        int64_t o = s * inner + j;
        if (out->dtype == TFC_DT_INT32 || out->dtype == TFC_DT_INT64) put(out, o, (double)(tfc_tensor_get_i64(out, o) / count[s]));
        else put(out, o, get(out, o) / (double)count[s]);
      }
  free(count);
  free(seen);
  return TFC_OK;
}

static int segment_sum_compute(tfc_kernel_ctx *c) { return sorted_segment(c, SEG_SUM); }
static int segment_mean_compute(tfc_kernel_ctx *c) { return sorted_segment(c, SEG_MEAN); }
static int segment_prod_compute(tfc_kernel_ctx *c) { return sorted_segment(c, SEG_PROD); }
static int segment_max_compute(tfc_kernel_ctx *c) { return sorted_segment(c, SEG_MAX); }
static int segment_min_compute(tfc_kernel_ctx *c) { return sorted_segment(c, SEG_MIN); }

static int unsorted_segment(tfc_kernel_ctx *c, int k) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  int64_t dims[TFC_MAX_DIMS], n, inner;
  int r;
  TFC_TRY(tfc_unsorted_segment_plan_of(c, dims, &r, &n, &inner));
  for (int64_t i = 0; i < ids->n_elems; i++) {
    int64_t s = tfc_tensor_get_i64(ids, i);
    if (s >= n) {
      char at[TFC_SHAPE_STR_MAX] = "", *p = at;
      int64_t rest = i;
      int64_t coord[TFC_MAX_DIMS];
      for (int d = ids->ndims - 1; d >= 0; d--) {
        coord[d] = rest % ids->dims[d];
        rest /= ids->dims[d];
      }
      for (int d = 0; d < ids->ndims; d++)
        p += snprintf(p, sizeof at - (size_t)(p - at), "%s%lld", d ? "," : "", (long long)coord[d]);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment_ids[%s] = %lld is out of range [0, %lld)", at,
                              (long long)s, (long long)n);
    }
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, data->dtype, dims, r);
  if (!out) return c->status->code;
  for (int64_t o = 0; o < out->n_elems; o++) put(out, o, seg_init(k, data->dtype, 0));
  for (int64_t i = 0; i < ids->n_elems; i++) {
    int64_t s = tfc_tensor_get_i64(ids, i);
    if (s < 0) continue;
    for (int64_t j = 0; j < inner; j++) seg_accumulate(out, s * inner + j, data, i * inner + j, k);
  }
  return TFC_OK;
}

static int unsorted_segment_max_compute(tfc_kernel_ctx *c) { return unsorted_segment(c, SEG_MAX); }
static int unsorted_segment_min_compute(tfc_kernel_ctx *c) { return unsorted_segment(c, SEG_MIN); }
static int unsorted_segment_prod_compute(tfc_kernel_ctx *c) { return unsorted_segment(c, SEG_PROD); }

/* ---- Print ---- */

typedef struct print_state {
  const char *message; /* the node's */
  int64_t first_n, summarize;
  atomic_llong printed;
} print_state;

static int print_init(const tfc_node *n, void **state, tfc_status *s) {
  print_state *p = calloc(1, sizeof *p);
  if (!p) return TFC_OOM(s);
  if (tfc_kernel_attr_string(n, "message", &p->message, s) || tfc_kernel_attr_int(n, "first_n", &p->first_n, s) ||
      tfc_kernel_attr_int(n, "summarize", &p->summarize, s)) {
    free(p);
    return s->code;
  }
  *state = p;
  return TFC_OK;
}

/* TF's shortest text of a float / double: %g with 6 (15) digits, 9 (17) when that does not
 * read back as the same value. */
static void fmt_real(char *b, size_t n, double v, int is_float) {
  snprintf(b, n, "%.*g", is_float ? FLT_DIG : DBL_DIG, v);
  if (is_float ? strtof(b, NULL) != (float)v : strtod(b, NULL) != v)
    snprintf(b, n, "%.*g", is_float ? FLT_DIG + 3 : DBL_DIG + 2, v);
}

static void print_elem(FILE *f, const tfc_tensor *t, int64_t i) {
  char b[64];
  switch (t->dtype) {
    case TFC_DT_FLOAT: fmt_real(b, sizeof b, ((const float *)t->data)[i], 1); fputs(b, f); break;
    case TFC_DT_DOUBLE: fmt_real(b, sizeof b, ((const double *)t->data)[i], 0); fputs(b, f); break;
    case TFC_DT_STRING: {
      const tfc_tstring *s = &tfc_tensor_strings(t)[i];
      fwrite(s->data, 1, s->len, f);
      break;
    }
    case TFC_DT_BOOL: fputs(((const uint8_t *)t->data)[i] ? "1" : "0", f); break;
    case TFC_DT_INT32: case TFC_DT_INT64: case TFC_DT_INT16: case TFC_DT_INT8: case TFC_DT_UINT8:
    case TFC_DT_UINT16: case TFC_DT_UINT32: case TFC_DT_UINT64:
      fprintf(f, "%lld", (long long)tfc_tensor_get_i64(t, i));
      break;
    default: fputc('?', f); break;
  }
}

/* TF's nested summary of dim `d` onwards: "[1 2][3...]" (PrintOneDim). */
static void print_dim(FILE *f, const tfc_tensor *t, int d, int64_t limit, int64_t *next) {
  if (*next >= limit) return;
  if (d == t->ndims - 1) {
    for (int64_t i = 0; i < t->dims[d]; i++) {
      if (*next >= limit) {
        if (d != 0) fputs("...", f);
        return;
      }
      if (i) fputc(' ', f);
      print_elem(f, t, (*next)++);
    }
    return;
  }
  for (int64_t i = 0; i < t->dims[d]; i++) {
    int open = 0;
    if (*next < limit) {
      fputc('[', f);
      open = 1;
    }
    print_dim(f, t, d + 1, limit, next);
    if (*next < limit || open) fputc(']', f);
  }
}

/* TF 1.x's Tensor::SummarizeValue(max): at most max values, nested by dims, "..." when cut. */
static void summarize(FILE *f, const tfc_tensor *t, int64_t max) {
  int64_t limit = max < 0 || max > t->n_elems ? t->n_elems : max, next = 0;
  if (t->ndims == 0) {
    for (int64_t i = 0; i < limit; i++) print_elem(f, t, i);
  } else {
    print_dim(f, t, 0, limit, &next);
  }
  if (t->n_elems > limit) fputs("...", f);
}

static int print_compute(tfc_kernel_ctx *c) {
  print_state *p = c->state;
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
  long long k = atomic_fetch_add(&p->printed, 1);
  if (p->first_n >= 0 && k >= p->first_n) return TFC_OK;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return TFC_OOM(c->status);
  fputs(p->message, f);
  for (int i = 1; i < c->n_inputs; i++) {
    fputc('[', f);
    summarize(f, c->inputs[i], p->summarize);
    fputc(']', f);
  }
  fclose(f);
  tfc_log_print(text); /* the listeners of TF_RegisterLogListener, else stderr */
  free(text);
  return TFC_OK;
}

#define F2 (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define SEG_TYPES (F2 | TFC_TYPES_INT)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Erf, .type_attr = "T", .types = F2, .compute = erf_compute},
    {.op = TFC_OP_Erfc, .type_attr = "T", .types = F2, .compute = erfc_compute},
    {.op = TFC_OP_Lgamma, .type_attr = "T", .types = F2, .compute = lgamma_compute},
    {.op = TFC_OP_Digamma, .type_attr = "T", .types = F2, .compute = digamma_compute},
    {.op = TFC_OP_Atan2, .type_attr = "T", .types = F2, .compute = atan2_compute},
    {.op = TFC_OP_Xdivy, .type_attr = "T", .types = F2, .compute = xdivy_compute},
    {.op = TFC_OP_Xlogy, .type_attr = "T", .types = F2, .compute = xlogy_compute},
    {.op = TFC_OP_SegmentSum, .type_attr = "T", .types = SEG_TYPES, .compute = segment_sum_compute},
    {.op = TFC_OP_SegmentMean, .type_attr = "T", .types = SEG_TYPES, .compute = segment_mean_compute},
    {.op = TFC_OP_SegmentProd, .type_attr = "T", .types = SEG_TYPES, .compute = segment_prod_compute},
    {.op = TFC_OP_SegmentMax, .type_attr = "T", .types = SEG_TYPES, .compute = segment_max_compute},
    {.op = TFC_OP_SegmentMin, .type_attr = "T", .types = SEG_TYPES, .compute = segment_min_compute},
    {.op = TFC_OP_UnsortedSegmentMax, .type_attr = "T", .types = SEG_TYPES, .host_memory_in = TFC_HOST(2),
     .compute = unsorted_segment_max_compute},
    {.op = TFC_OP_UnsortedSegmentMin, .type_attr = "T", .types = SEG_TYPES, .host_memory_in = TFC_HOST(2),
     .compute = unsorted_segment_min_compute},
    {.op = TFC_OP_UnsortedSegmentProd, .type_attr = "T", .types = SEG_TYPES, .host_memory_in = TFC_HOST(2),
     .compute = unsorted_segment_prod_compute},
    {.op = TFC_OP_Print, .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL,
     .flags = TFC_KF_SHARED_STATE, .init = print_init,
     .compute = print_compute, .free_state = free},
};

int tfc_cpu_kernels_math_tail(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
