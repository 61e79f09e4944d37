/*
 * kernels_array_tail — CPU kernels of ops_array_tail.def:
 *   - Unique / UniqueWithCounts: the distinct values of a vector in first-seen order, each
 *     element's index into them, and the counts; any dtype (strings by content, other types
 *     by their bytes: -0.0 and 0.0 are distinct, each NaN its own value). An open-addressing
 *     hash of element indices.
 *   - ListDiff: the values of x not in y, in x's order, with their indices in x.
 *   - ScatterNd: zeros of `shape` with updates added at indices (duplicates summed); float,
 *     double, int32, int64. "indices[1] = [5] does not index into shape [3]".
 *   - Bincount: counts (or summed weights) of each value of arr in [0, size); values past
 *     size are dropped; "Input arr must be non-negative!". DenseBincount: the same over int32
 *     or int64 values, per row of a 2-d input, or 0/1 with binary_output; "Input 'in' must be
 *     non-negative! Negative input value found: -1".
 *   - SparseToDense: default_value everywhere, then the values at the indices (a scalar value
 *     goes everywhere listed); with validate_indices, indices must be in bounds, sorted and
 *     unique ("indices[1] = [0,5] is out of bounds: need 0 <= index < [2,3]", "... is
 *     repeated", "... is out of order. ..."). Any dtype.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/scatter_plan.h"
#include "ops/opdef.h"

/* ---- a hash set of element indices ---- */

typedef struct elem_set {
  const tfc_tensor *t;
  size_t es;
  int64_t cap;   /* power of two */
  int64_t *slot; /* element index + 1; 0 empty */
} elem_set;

static uint64_t elem_hash(const elem_set *h, int64_t i) {
  const unsigned char *p;
  size_t n;
  if (h->t->dtype == TFC_DT_STRING) {
    const tfc_tstring *s = &tfc_tensor_strings(h->t)[i];
    p = (const unsigned char *)s->data;
    n = s->len;
  } else {
    p = (const unsigned char *)h->t->data + (size_t)i * h->es;
    n = h->es;
  }
  uint64_t x = 1469598103934665603ull; /* FNV-1a */
  for (size_t k = 0; k < n; k++) x = (x ^ p[k]) * 1099511628211ull;
  return x;
}

static int elem_eq(const tfc_tensor *a, int64_t i, const tfc_tensor *b, int64_t j, size_t es) {
  if (a->dtype == TFC_DT_STRING) {
    const tfc_tstring *x = &tfc_tensor_strings(a)[i], *y = &tfc_tensor_strings(b)[j];
    return x->len == y->len && (!x->len || !memcmp(x->data, y->data, x->len));
  }
  return !memcmp((const char *)a->data + (size_t)i * es, (const char *)b->data + (size_t)j * es, es);
}

static int set_init(elem_set *h, const tfc_tensor *t, int64_t n) {
  h->t = t;
  h->es = tfc_dtype_size(t->dtype);
  h->cap = 16;
  while (h->cap < 2 * n) h->cap *= 2;
  h->slot = calloc((size_t)h->cap, sizeof *h->slot);
  return h->slot ? 0 : -1;
}

/* The set's element equal to element j of tensor q (-1 if none); with insert, adds j of the
 * set's own tensor when absent and returns -1. */
static int64_t set_find(elem_set *h, const tfc_tensor *q, int64_t j, int insert) {
  elem_set probe = *h;
  probe.t = q;
  uint64_t k = elem_hash(&probe, j) & (uint64_t)(h->cap - 1);
  while (h->slot[k]) {
    int64_t i = h->slot[k] - 1;
    if (elem_eq(h->t, i, q, j, h->es)) return i;
    k = (k + 1) & (uint64_t)(h->cap - 1);
  }
  if (insert) h->slot[k] = j + 1;
  return -1;
}

static void put_index(tfc_tensor *t, int64_t i, int64_t v) {
  if (t->dtype == TFC_DT_INT64) ((int64_t *)t->data)[i] = v;
  else ((int32_t *)t->data)[i] = (int32_t)v;
}

/* Copies element i of src to element j of dst (same dtype). */
static int copy_elem(tfc_kernel_ctx *c, tfc_tensor *dst, int64_t j, const tfc_tensor *src, int64_t i) {
  if (src->dtype == TFC_DT_STRING) {
    const tfc_tstring *s = &tfc_tensor_strings(src)[i];
    return tfc_tstring_assign(&tfc_tensor_strings(dst)[j], s->data, s->len, c->status);
  }
  size_t es = tfc_dtype_size(src->dtype);
  memcpy((char *)dst->data + (size_t)j * es, (const char *)src->data + (size_t)i * es, es);
  return TFC_OK;
}

/* ---- Unique ---- */

static int unique_run(tfc_kernel_ctx *c, int with_counts) {
  const tfc_tensor *x = c->inputs[0];
  if (x->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "unique expects a 1D vector.");
  int64_t n = x->n_elems;
  int idx_type = c->node->output_types[1];
  elem_set h;
  int64_t *first = malloc(sizeof(int64_t) * (size_t)(n + 1)), *uid = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!first || !uid || set_init(&h, x, n)) {
    free(first);
    free(uid);
    return TFC_OOM(c->status);
  }
  tfc_tensor *idx = tfc_kernel_alloc_output(c, 1, idx_type, x->dims, 1);
  int64_t k = 0;
  int rc = idx ? TFC_OK : c->status->code;
  for (int64_t i = 0; rc == TFC_OK && i < n; i++) {
    int64_t j = set_find(&h, x, i, 1);
    if (j < 0) {
      first[k] = i;
      uid[i] = k++;
    } else {
      uid[i] = uid[j];
    }
    put_index(idx, i, uid[i]);
  }
  tfc_tensor *y = rc == TFC_OK ? tfc_kernel_alloc_output(c, 0, x->dtype, &k, 1) : NULL;
  if (rc == TFC_OK && !y) rc = c->status->code;
  for (int64_t u = 0; rc == TFC_OK && u < k; u++) rc = copy_elem(c, y, u, x, first[u]);
  if (rc == TFC_OK && with_counts) {
    tfc_tensor *cnt = tfc_kernel_alloc_output(c, 2, idx_type, &k, 1);
    if (!cnt) {
      rc = c->status->code;
    } else {
      if (cnt->n_bytes) memset(cnt->data, 0, cnt->n_bytes);
      for (int64_t i = 0; i < n; i++)
        put_index(cnt, uid[i], (idx_type == TFC_DT_INT64 ? ((int64_t *)cnt->data)[uid[i]]
                                                          : ((int32_t *)cnt->data)[uid[i]]) + 1);
    }
  }
  free(first);
  free(uid);
  free(h.slot);
  return rc;
}

static int unique_compute(tfc_kernel_ctx *c) { return unique_run(c, 0); }
static int unique_with_counts_compute(tfc_kernel_ctx *c) { return unique_run(c, 1); }

/* ---- ListDiff ---- */

static int list_diff_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  if (x->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "x should be a 1D vector.");
  if (y->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "y should be a 1D vector.");
  elem_set h;
  if (set_init(&h, y, y->n_elems)) return TFC_OOM(c->status);
  for (int64_t j = 0; j < y->n_elems; j++) set_find(&h, y, j, 1);
  int64_t *keep = malloc(sizeof(int64_t) * (size_t)(x->n_elems + 1)), k = 0;
  if (!keep) {
    free(h.slot);
    return TFC_OOM(c->status);
  }
  for (int64_t i = 0; i < x->n_elems; i++)
    if (set_find(&h, x, i, 0) < 0) keep[k++] = i;
  free(h.slot);
  int rc = TFC_OK;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, &k, 1);
  tfc_tensor *idx = out ? tfc_kernel_alloc_output(c, 1, c->node->output_types[1], &k, 1) : NULL;
  if (!idx) rc = c->status->code;
  for (int64_t u = 0; rc == TFC_OK && u < k; u++) {
    rc = copy_elem(c, out, u, x, keep[u]);
    put_index(idx, u, keep[u]);
  }
  free(keep);
  return rc;
}

/* ---- ScatterNd ---- */

/* The plan and the index check are scatter_plan.h's, shared with the GPU kernel. */
static int scatter_nd_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ind = c->inputs[0], *upd = c->inputs[1];
  tfc_scatter_nd_plan p;
  TFC_TRY(tfc_scatter_nd_plan_of(c, &p));
  TFC_TRY(tfc_scatter_nd_check_indices(c, &p, ind, ind->data));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, upd->dtype, p.dims, p.rank);
  if (!out) return c->status->code;
  if (out->n_bytes) memset(out->data, 0, out->n_bytes);
  for (int64_t r = 0; r < p.n; r++) {
    int64_t off = tfc_scatter_nd_offset(&p, ind->dtype, ind->data, r);
    for (int64_t e = 0; off >= 0 && e < p.slice; e++) {
      int64_t o = off * p.slice + e, u = r * p.slice + e;
      switch (upd->dtype) {
        case TFC_DT_FLOAT: ((float *)out->data)[o] += ((const float *)upd->data)[u]; break;
        case TFC_DT_DOUBLE: ((double *)out->data)[o] += ((const double *)upd->data)[u]; break;
        case TFC_DT_INT32:
          ((int32_t *)out->data)[o] = (int32_t)((uint32_t)((int32_t *)out->data)[o] + (uint32_t)((const int32_t *)upd->data)[u]);
          break;
        default:
          ((int64_t *)out->data)[o] = (int64_t)((uint64_t)((int64_t *)out->data)[o] + (uint64_t)((const int64_t *)upd->data)[u]);
          break;
      }
    }
  }
  return TFC_OK;
}

/* ---- Bincount ---- */

static int bincount_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *arr = c->inputs[0], *size_t_ = c->inputs[1], *w = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX];
  if (size_t_->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape must be rank 0 but is rank %d", size_t_->ndims);
  int64_t size = tfc_tensor_get_i64(size_t_, 0);
  if (size < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "size (%lld) must be non-negative", (long long)size);
  if (w->n_elems && !tfc_tensor_same_shape(w, arr))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "weights must be empty or have the same shape as arr, got %s",
                            tfc_tensor_shape_str(w, a, sizeof a));
  for (int64_t i = 0; i < arr->n_elems; i++)
    if (((const int32_t *)arr->data)[i] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input arr must be non-negative!");
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, w->dtype, &size, 1);
  if (!out) return c->status->code;
  if (out->n_bytes) memset(out->data, 0, out->n_bytes);
  for (int64_t i = 0; i < arr->n_elems; i++) {
    int64_t v = ((const int32_t *)arr->data)[i];
    if (v >= size) continue;
    switch (w->dtype) {
      case TFC_DT_FLOAT: ((float *)out->data)[v] += w->n_elems ? ((const float *)w->data)[i] : 1.0f; break;
      case TFC_DT_DOUBLE: ((double *)out->data)[v] += w->n_elems ? ((const double *)w->data)[i] : 1.0; break;
      case TFC_DT_INT32: ((int32_t *)out->data)[v] += w->n_elems ? ((const int32_t *)w->data)[i] : 1; break;
      default: ((int64_t *)out->data)[v] += w->n_elems ? ((const int64_t *)w->data)[i] : 1; break;
    }
  }
  return TFC_OK;
}

static int dense_bincount_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *size_t_ = c->inputs[1], *w = c->inputs[2];
  int binary = 0;
  tfc_node_attr_bool(c->node, "binary_output", &binary);
  if (size_t_->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape must be rank 0 but is rank %d", size_t_->ndims);
  int64_t size = tfc_tensor_get_i64(size_t_, 0);
  if (size < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "size (%lld) must be non-negative", (long long)size);
  if (in->ndims > 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape must be at most rank 2 but is rank %d", in->ndims);
  if (w->n_elems && !tfc_tensor_same_shape(w, in))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input and weights must have the same shape.");
  for (int64_t i = 0; i < in->n_elems; i++)
    if (tfc_tensor_get_i64(in, i) < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input 'in' must be non-negative! Negative input value found: %lld",
                              (long long)tfc_tensor_get_i64(in, i));
  int64_t rows = in->ndims == 2 ? in->dims[0] : 1, cols = in->ndims == 2 ? in->dims[1] : in->n_elems;
  int64_t dims[2] = {rows, size};
  tfc_tensor *out = in->ndims == 2 ? tfc_kernel_alloc_output(c, 0, w->dtype, dims, 2)
                                   : tfc_kernel_alloc_output(c, 0, w->dtype, &size, 1);
  if (!out) return c->status->code;
  if (out->n_bytes) memset(out->data, 0, out->n_bytes);
  for (int64_t i = 0; i < rows * cols; i++) {
    int64_t v = tfc_tensor_get_i64(in, i);
    if (v >= size) continue;
    int64_t at = (i / (cols ? cols : 1)) * size + v;
    switch (w->dtype) {
      case TFC_DT_FLOAT:
        ((float *)out->data)[at] = binary ? 1.0f : ((float *)out->data)[at] + (w->n_elems ? ((const float *)w->data)[i] : 1.0f);
        break;
      case TFC_DT_DOUBLE:
        ((double *)out->data)[at] = binary ? 1.0 : ((double *)out->data)[at] + (w->n_elems ? ((const double *)w->data)[i] : 1.0);
        break;
      case TFC_DT_INT32:
        ((int32_t *)out->data)[at] = binary ? 1 : ((int32_t *)out->data)[at] + (w->n_elems ? ((const int32_t *)w->data)[i] : 1);
        break;
      default:
        ((int64_t *)out->data)[at] = binary ? 1 : ((int64_t *)out->data)[at] + (w->n_elems ? ((const int64_t *)w->data)[i] : 1);
        break;
    }
  }
  return TFC_OK;
}

/* ---- SparseToDense ---- */

static int sparse_to_dense_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ind = c->inputs[0], *shp = c->inputs[1], *val = c->inputs[2], *dflt = c->inputs[3];
  char a[TFC_SHAPE_STR_MAX];
  if (shp->ndims != 1 || shp->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "output_shape should be a vector, got %s",
                            tfc_tensor_shape_str(shp, a, sizeof a));
  int rank = (int)shp->n_elems;
  int64_t dims[TFC_MAX_DIMS];
  for (int i = 0; i < rank; i++) dims[i] = tfc_tensor_get_i64(shp, i);
  if (ind->ndims > 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sparse_indices should be a scalar, vector, or matrix, got %s",
                            tfc_tensor_shape_str(ind, a, sizeof a));
  int64_t n = ind->ndims > 0 ? ind->dims[0] : 1, k = ind->ndims > 1 ? ind->dims[1] : 1;
  if (k != rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sparse_indices should have %d columns to index a rank-%d shape, "
                            "got %lld", rank, rank, (long long)k);
  if (!(val->ndims == 0 || (val->ndims == 1 && val->n_elems == n)))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sparse_values has incorrect shape %s, should be [] or [%lld]",
                            tfc_tensor_shape_str(val, a, sizeof a), (long long)n);
  if (dflt->ndims != 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "default_value should be a scalar.");
  int validate;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "validate_indices", &validate, c->status));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, val->dtype, dims, rank);
  if (!out) return c->status->code;
  for (int64_t o = 0; o < out->n_elems; o++) TFC_TRY(copy_elem(c, out, o, dflt, 0));
  int64_t prev = -1;
  for (int64_t r = 0; r < n; r++) {
    int64_t off = 0, bad = 0;
    for (int d = 0; d < rank; d++) {
      int64_t v = tfc_tensor_get_i64(ind, r * k + d);
      if (v < 0 || v >= dims[d]) bad = 1;
      off = off * dims[d] + v;
    }
    if (bad || (validate && off <= prev)) {
      char at[TFC_SHAPE_STR_MAX] = "[", *p = at + 1;
      for (int d = 0; d < rank; d++)
        p += snprintf(p, sizeof at - (size_t)(p - at) - 2, "%s%lld", d ? "," : "", (long long)tfc_tensor_get_i64(ind, r * k + d));
      snprintf(p, sizeof at - (size_t)(p - at), "]");
      tfc_shape s = tfc_shape_make(dims, rank);
      if (bad)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices[%lld] = %s is out of bounds: need 0 <= index < %s",
                                (long long)r, at, tfc_shape_str(&s, a, sizeof a));
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              off == prev ? "indices[%lld] = %s is repeated"
                                          : "indices[%lld] = %s is out of order. Many sparse ops require sorted indices.\n"
                                            "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                              (long long)r, at);
    }
    prev = off;
    TFC_TRY(copy_elem(c, out, off, val, val->ndims ? r : 0));
  }
  return TFC_OK;
}

#define NUM4 (TFC_TYPES_FLOAT | TFC_TYPES_INT)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Unique, .compute = unique_compute},
    {.op = TFC_OP_UniqueWithCounts, .compute = unique_with_counts_compute},
    {.op = TFC_OP_ListDiff, .compute = list_diff_compute},
    {.op = TFC_OP_ScatterNd, .type_attr = "T", .types = NUM4, .host_memory_in = TFC_HOST(2),
     .compute = scatter_nd_compute},
    {.op = TFC_OP_SparseToDense, .host_memory_in = TFC_HOST(1), .compute = sparse_to_dense_compute},
    {.op = TFC_OP_Bincount, .type_attr = "T", .types = NUM4, .host_memory_in = TFC_HOST(1),
     .compute = bincount_compute},
    {.op = TFC_OP_DenseBincount, .type_attr = "T", .types = NUM4, .host_memory_in = TFC_HOST(1),
     .compute = dense_bincount_compute},
};

int tfc_cpu_kernels_array_tail(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
