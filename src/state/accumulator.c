/*
 * accumulator — see accumulator.h for the semantics. The implementation:
 *
 * One mutex and one condition variable per accumulator, broadcast on every change (an apply,
 * a take, a new global step, a cancel). Takes wait on a list in arrival order; only the first
 * may take, which serves them as TF does. The step-abort watch is the queue's
 * (tfc_queue_cancel_wait), so accumulators and queues wake alike.
 *
 * Dense state: the running sum, a tensor of the first gradient's shape that the accumulator
 * owns alone (a copy), handed out whole by the take. Sparse state: three parallel arrays,
 * indices, value rows (the dtype's bytes) and per-entry counts, rebuilt by each merge.
 */
#include "state/accumulator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "tensor/dtype.h"

typedef struct taker {
  struct taker *next;
} taker;

struct tfc_accumulator {
  tfc_resource base; /* first: the accumulator is a resource */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *name;
  int sparse, dtype, sum;
  tfc_shape shape;
  /* guarded by mu */
  int64_t global_step;
  int32_t counter;
  int cancelled;
  taker *takers; /* waiting takes, oldest first */
  tfc_tensor *dense;   /* the sum (dense), NULL when counter is 0 */
  int64_t n;           /* sparse entries */
  int64_t *idx;
  unsigned char *vals; /* n rows of row_bytes */
  int32_t *cnt;
  int vrank;           /* the values' rank (dim 0 the entries) */
  int64_t vdims[TFC_MAX_DIMS];
  int64_t row_elems;
};

/* ---------------- lifecycle ---------------- */

static void clear_sum(tfc_accumulator *a) {
  tfc_tensor_unref(a->dense);
  a->dense = NULL;
  free(a->idx);
  free(a->vals);
  free(a->cnt);
  a->idx = NULL;
  a->vals = NULL;
  a->cnt = NULL;
  a->n = 0;
  a->counter = 0;
}

static void accumulator_free(tfc_resource *r) {
  tfc_accumulator *a = (tfc_accumulator *)r;
  clear_sum(a);
  free(a->name);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  free(a);
}

static void accumulator_cancel(tfc_resource *r) {
  tfc_accumulator *a = (tfc_accumulator *)r;
  pthread_mutex_lock(&a->mu);
  a->cancelled = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

const tfc_resource_kind tfc_accumulator_kind = {"N10tensorflow26ConditionalAccumulatorBaseE", accumulator_free,
                                                accumulator_cancel};

tfc_accumulator *tfc_accumulator_new(const char *name, int sparse, int dtype, const tfc_shape *shape, int sum,
                                     tfc_status *s) {
  tfc_accumulator *a = calloc(1, sizeof *a);
  if (!a || !(a->name = strdup(name ? name : ""))) {
    free(a);
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&a->base, &tfc_accumulator_kind);
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->cv, NULL);
  a->sparse = sparse;
  a->dtype = dtype;
  a->sum = sum;
  a->shape = shape ? *shape : tfc_shape_unknown();
  return a;
}

int tfc_accumulator_dtype(const tfc_accumulator *a) { return a->dtype; }
int tfc_accumulator_is_sparse(const tfc_accumulator *a) { return a->sparse; }
const char *tfc_accumulator_name(const tfc_accumulator *a) { return a->name; }

int32_t tfc_accumulator_num_accumulated(tfc_accumulator *a) {
  pthread_mutex_lock(&a->mu);
  int32_t n = a->counter;
  pthread_mutex_unlock(&a->mu);
  return n;
}

void tfc_accumulator_set_global_step(tfc_accumulator *a, int64_t step) {
  pthread_mutex_lock(&a->mu);
  a->global_step = step;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

int tfc_accumulator_num_takers(tfc_accumulator *a) {
  pthread_mutex_lock(&a->mu);
  int n = 0;
  for (const taker *t = a->takers; t; t = t->next) n++;
  pthread_mutex_unlock(&a->mu);
  return n;
}

/* ---------------- arithmetic in the dtype ---------------- */

/* acc[i] += g[i] for n elements. */
static void add_into(int dtype, void *acc, const void *g, int64_t n) {
  switch (dtype) {
    case TFC_DT_FLOAT: {
      float *x = acc;
      const float *y = g;
      for (int64_t i = 0; i < n; i++) x[i] += y[i];
      break;
    }
    case TFC_DT_DOUBLE: {
      double *x = acc;
      const double *y = g;
      for (int64_t i = 0; i < n; i++) x[i] += y[i];
      break;
    }
    case TFC_DT_HALF: {
      uint16_t *x = acc;
      const uint16_t *y = g;
      for (int64_t i = 0; i < n; i++) x[i] = tfc_float_to_half(tfc_half_to_float(x[i]) + tfc_half_to_float(y[i]));
      break;
    }
    default:
      break;
  }
}

/* p[i] /= count for n elements (the count in the dtype, as TF divides). */
static void divide(int dtype, void *p, int64_t n, int64_t count) {
  switch (dtype) {
    case TFC_DT_FLOAT: {
      float *x = p, c = (float)count;
      for (int64_t i = 0; i < n; i++) x[i] /= c;
      break;
    }
    case TFC_DT_DOUBLE: {
      double *x = p, c = (double)count;
      for (int64_t i = 0; i < n; i++) x[i] /= c;
      break;
    }
    case TFC_DT_HALF: {
      uint16_t *x = p;
      float c = tfc_half_to_float(tfc_float_to_half((float)count));
      for (int64_t i = 0; i < n; i++) x[i] = tfc_float_to_half(tfc_half_to_float(x[i]) / c);
      break;
    }
    default:
      break;
  }
}

/* ---------------- apply ---------------- */

static int dense_check(tfc_accumulator *a, const tfc_tensor *g, tfc_status *s) {
  char want[TFC_SHAPE_STR_MAX], got[TFC_SHAPE_STR_MAX];
  if (a->dense && !tfc_tensor_same_shape(a->dense, g))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected %s, got %s",
                          tfc_tensor_shape_str(a->dense, want, sizeof want), tfc_tensor_shape_str(g, got, sizeof got));
  tfc_shape gs = tfc_tensor_shape(g);
  if (!tfc_shape_compatible(&a->shape, &gs))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected %s, got %s",
                          tfc_shape_str(&a->shape, want, sizeof want), tfc_tensor_shape_str(g, got, sizeof got));
  return TFC_OK;
}

int tfc_accumulator_apply(tfc_accumulator *a, int64_t local_step, const tfc_tensor *gradient, tfc_status *s) {
  pthread_mutex_lock(&a->mu);
  if (local_step >= a->global_step && dense_check(a, gradient, s) == TFC_OK) {
    if (a->dense) {
      add_into(a->dtype, a->dense->data, gradient->data, gradient->n_elems);
      a->counter++;
    } else if ((a->dense = tfc_tensor_copy(gradient, s))) {
      a->counter++;
    }
    pthread_cond_broadcast(&a->cv);
  }
  pthread_mutex_unlock(&a->mu);
  return s->code;
}

/* TF's checks of a sparse gradient, in TF's order (mu held). */
static int sparse_check(tfc_accumulator *a, const tfc_tensor *idx, const tfc_tensor *val, const tfc_tensor *shp,
                        tfc_status *s) {
  char buf[TFC_SHAPE_STR_MAX];
  if (idx->ndims != 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Input indices should be vector but received shape: %s",
                          tfc_tensor_shape_str(idx, buf, sizeof buf));
  int64_t nnz = idx->dims[0];
  if (val->ndims == 0) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Values cannot be 0-dimensional.");
  if (val->dims[0] != nnz)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected %lld non-empty input values, got %lld", (long long)nnz,
                          (long long)val->dims[0]);
  const tfc_shape *sh = &a->shape;
  if (shp) {
    /* TF reads the shape's elements whatever its rank. */
    const int64_t *d = shp->data;
    if (sh->rank > shp->n_elems)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected shape rank at least %d, got %lld",
                            sh->rank, (long long)shp->n_elems);
    for (int i = 0; i < sh->rank; i++)
      if (sh->dims[i] != -1 && sh->dims[i] != d[i])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected shape dim %d to be %lld, got %lld", i,
                              (long long)sh->dims[i], (long long)d[i]);
  }
  if (sh->rank > 0 && sh->dims[0] != -1) {
    const int64_t *ix = idx->data;
    for (int64_t i = 0; i < nnz; i++)
      if (ix[i] >= sh->dims[0])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Shape mismatch: index of slice %lld exceeded limits of shape; index is %lld exceeded %lld",
                              (long long)i, (long long)ix[i], (long long)sh->dims[0]);
  }
  if (a->counter > 0) {
    if (a->vrank != val->ndims)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected values rank %d, got %d", a->vrank,
                            val->ndims);
    for (int i = 1; i < a->vrank; i++)
      if (a->vdims[i] != val->dims[i])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected values dim %d to be %lld, got %lld", i,
                              (long long)a->vdims[i], (long long)val->dims[i]);
  } else {
    if (sh->rank > val->ndims)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected values rank at least %d, got %d", sh->rank,
                            val->ndims);
    for (int i = 1; i < sh->rank; i++)
      if (sh->dims[i] != -1 && sh->dims[i] != val->dims[i])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch: expected values dim %d to be %lld, got %lld", i,
                              (long long)sh->dims[i], (long long)val->dims[i]);
  }
  return TFC_OK;
}

/* Merges the gradient's entries into the sum as two sorted lists merge (mu held): new arrays
 * replace the old. The first gradient is the merge with nothing. */
static int sparse_merge(tfc_accumulator *a, const tfc_tensor *idx, const tfc_tensor *val, tfc_status *s) {
  if (a->counter == 0) {
    a->vrank = val->ndims;
    a->row_elems = 1;
    for (int i = 0; i < val->ndims; i++) {
      a->vdims[i] = val->dims[i];
      if (i) a->row_elems *= val->dims[i];
    }
  }
  size_t row = (size_t)a->row_elems * tfc_dtype_size(a->dtype);
  int64_t m = idx->dims[0], cap = a->n + m;
  int64_t *nidx = malloc((size_t)(cap ? cap : 1) * sizeof *nidx);
  int32_t *ncnt = malloc((size_t)(cap ? cap : 1) * sizeof *ncnt);
  unsigned char *nval = malloc(cap && row ? (size_t)cap * row : 1);
  if (!nidx || !ncnt || !nval) {
    free(nidx);
    free(ncnt);
    free(nval);
    return TFC_OOM(s);
  }
  const int64_t *gi = idx->data;
  const unsigned char *gv = val->data;
  int64_t i = 0, j = 0, o = 0;
  while (i < a->n || j < m) {
    int from_old = j >= m || (i < a->n && a->idx[i] < gi[j]);
    int both = i < a->n && j < m && a->idx[i] == gi[j];
    if (both) {
      nidx[o] = a->idx[i];
      ncnt[o] = a->cnt[i] + 1;
      memcpy(nval + (size_t)o * row, a->vals + (size_t)i * row, row);
      add_into(a->dtype, nval + (size_t)o * row, gv + (size_t)j * row, a->row_elems);
      i++, j++;
    } else if (from_old) {
      nidx[o] = a->idx[i];
      ncnt[o] = a->cnt[i];
      memcpy(nval + (size_t)o * row, a->vals + (size_t)i * row, row);
      i++;
    } else {
      nidx[o] = gi[j];
      ncnt[o] = 1;
      memcpy(nval + (size_t)o * row, gv + (size_t)j * row, row);
      j++;
    }
    o++;
  }
  free(a->idx);
  free(a->cnt);
  free(a->vals);
  a->idx = nidx;
  a->cnt = ncnt;
  a->vals = nval;
  a->n = o;
  a->counter++;
  return TFC_OK;
}

int tfc_accumulator_apply_sparse(tfc_accumulator *a, int64_t local_step, const tfc_tensor *indices,
                                 const tfc_tensor *values, const tfc_tensor *shape, tfc_status *s) {
  pthread_mutex_lock(&a->mu);
  if (local_step >= a->global_step && sparse_check(a, indices, values, shape, s) == TFC_OK &&
      sparse_merge(a, indices, values, s) == TFC_OK)
    pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return s->code;
}

/* ---------------- take ---------------- */

/* Waits (mu held on entry and exit) until t heads the takers and num_required gradients are
 * in, or fails with CANCELLED; t leaves the list either way. */
static int wait_turn(tfc_accumulator *a, taker *t, int32_t num_required, tfc_queue_cancel *cx, tfc_status *s) {
  taker **p = &a->takers;
  while (*p) p = &(*p)->next;
  *p = t;
  int rc = TFC_OK;
  for (;;) {
    if (a->cancelled || tfc_queue_cancel_aborted(cx)) {
      rc = tfc_status_set(s, TFC_CANCELLED, "TakeGrad operation was cancelled");
      break;
    }
    if (a->takers == t && a->counter >= num_required) break;
    tfc_queue_cancel_wait(cx, &a->base, &a->mu, &a->cv, "accumulator", a->name);
  }
  for (p = &a->takers; *p != t; p = &(*p)->next) {
  }
  *p = t->next;
  pthread_cond_broadcast(&a->cv); /* the next taker may now be first */
  return rc;
}

static int check_required(int32_t num_required, tfc_status *s) {
  if (num_required < 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Argument num_required must be positive, but was %d", num_required);
  return TFC_OK;
}

int tfc_accumulator_take(tfc_accumulator *a, int32_t num_required, tfc_queue_cancel *cx, tfc_tensor **out_average,
                         tfc_status *s) {
  *out_average = NULL;
  TFC_TRY(check_required(num_required, s));
  taker t = {0};
  pthread_mutex_lock(&a->mu);
  if (wait_turn(a, &t, num_required, cx, s) == TFC_OK) {
    if (!a->sum) divide(a->dtype, a->dense->data, a->dense->n_elems, a->counter);
    *out_average = a->dense;
    a->dense = NULL;
    clear_sum(a);
    a->global_step++;
  }
  pthread_mutex_unlock(&a->mu);
  return s->code;
}

int tfc_accumulator_take_sparse(tfc_accumulator *a, int32_t num_required, tfc_queue_cancel *cx,
                                tfc_tensor **out_indices, tfc_tensor **out_values, tfc_tensor **out_shape,
                                tfc_status *s) {
  *out_indices = *out_values = *out_shape = NULL;
  TFC_TRY(check_required(num_required, s));
  taker t = {0};
  pthread_mutex_lock(&a->mu);
  if (wait_turn(a, &t, num_required, cx, s) == TFC_OK) {
    int64_t vd[TFC_MAX_DIMS], rank = a->vrank;
    memcpy(vd, a->vdims, sizeof vd);
    vd[0] = a->n;
    tfc_tensor *ix = tfc_tensor_new(TFC_DT_INT64, &a->n, 1, s);
    tfc_tensor *v = ix ? tfc_tensor_new(a->dtype, vd, a->vrank, s) : NULL;
    tfc_tensor *sh = v ? tfc_tensor_new(TFC_DT_INT64, &rank, 1, s) : NULL;
    if (sh) {
      size_t row = (size_t)a->row_elems * tfc_dtype_size(a->dtype);
      if (a->n) memcpy(ix->data, a->idx, (size_t)a->n * sizeof(int64_t));
      if (a->n && row) memcpy(v->data, a->vals, (size_t)a->n * row);
      if (!a->sum)
        for (int64_t i = 0; i < a->n; i++) divide(a->dtype, (unsigned char *)v->data + (size_t)i * row, a->row_elems, a->cnt[i]);
      int64_t *d = sh->data;
      d[0] = a->shape.rank > 0 ? a->shape.dims[0] : -1;
      for (int i = 1; i < a->vrank; i++) d[i] = a->vdims[i];
      *out_indices = ix;
      *out_values = v;
      *out_shape = sh;
      clear_sum(a);
      a->global_step++;
    } else {
      tfc_tensor_unref(ix);
      tfc_tensor_unref(v);
    }
  }
  pthread_mutex_unlock(&a->mu);
  return s->code;
}
