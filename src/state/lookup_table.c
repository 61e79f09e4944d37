/*
 * lookup_table — see lookup_table.h. An entry is its key's bytes (the string, or the
 * integer's bytes) and a block of value elements (value_elems of them; strings as
 * tfc_tstring with heap bytes the table owns). A hash map from key bytes to entry index + 1
 * finds entries; a removed entry keeps its slot (value NULL) and its key maps to nothing, so
 * indexes stay stable and Export keeps insertion order. A DENSE table uses none of that: its
 * own bucket tensors, TF's probing (see "DENSE" below).
 */
#include "state/lookup_table.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fingerprint.h"
#include "base/hashmap.h"

typedef struct entry {
  char *key;
  size_t key_len;
  void *value; /* value_elems elements; NULL once removed */
} entry;

struct tfc_lookup_table {
  tfc_resource res;
  tfc_lookup_kind kind;
  int key_dtype, value_dtype;
  tfc_shape value_shape;
  int64_t value_elems;
  pthread_mutex_t mu;
  int initialized;
  tfc_hashmap map;
  entry *entries;
  int64_t n_entries, cap, n_live;
  /* DENSE: key_buckets [num_buckets, key_elems] and value_buckets [num_buckets, value_elems]
   * (owned); a bucket holding empty_key is free, one holding deleted_key was removed. */
  tfc_shape key_shape;
  int64_t key_elems;
  tfc_tensor *empty_key, *deleted_key; /* owned copies */
  uint64_t empty_hash, deleted_hash;
  tfc_tensor *key_buckets, *value_buckets;
  int64_t num_buckets, num_entries;
  float max_load_factor;
};

static void free_value(const tfc_lookup_table *t, void *v) {
  if (v && t->value_dtype == TFC_DT_STRING)
    for (int64_t i = 0; i < t->value_elems; i++) free(((tfc_tstring *)v)[i].data);
  free(v);
}

/* Drops every entry (the table stays usable, empty). */
static void clear(tfc_lookup_table *t) {
  for (int64_t i = 0; i < t->n_entries; i++) {
    free(t->entries[i].key);
    free_value(t, t->entries[i].value);
  }
  t->n_entries = t->n_live = 0;
  tfc_hashmap_fini(&t->map);
  tfc_hashmap_init(&t->map);
}

static void table_free(tfc_resource *r) {
  tfc_lookup_table *t = (tfc_lookup_table *)r;
  clear(t);
  tfc_hashmap_fini(&t->map);
  free(t->entries);
  tfc_tensor_unref(t->empty_key);
  tfc_tensor_unref(t->deleted_key);
  tfc_tensor_unref(t->key_buckets);
  tfc_tensor_unref(t->value_buckets);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

const tfc_resource_kind tfc_lookup_table_kind = {"N10tensorflow6lookup15LookupInterfaceE", table_free, NULL};

tfc_lookup_table *tfc_lookup_table_new(tfc_lookup_kind kind, int key_dtype, int value_dtype,
                                       const tfc_shape *value_shape, tfc_status *s) {
  tfc_lookup_table *t = calloc(1, sizeof *t);
  if (!t) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&t->res, &tfc_lookup_table_kind);
  t->kind = kind;
  t->key_dtype = key_dtype;
  t->value_dtype = value_dtype;
  t->value_shape = kind != TFC_LOOKUP_MUTABLE && kind != TFC_LOOKUP_HASH && value_shape ? *value_shape
                                                                                      : tfc_shape_make(NULL, 0);
  t->key_shape = tfc_shape_make(NULL, 0);
  t->key_elems = 1;
  t->value_elems = 1;
  for (int i = 0; i < t->value_shape.rank; i++) t->value_elems *= t->value_shape.dims[i];
  t->initialized = kind != TFC_LOOKUP_HASH;
  pthread_mutex_init(&t->mu, NULL);
  tfc_hashmap_init(&t->map);
  return t;
}

tfc_lookup_kind tfc_lookup_table_kind_of(const tfc_lookup_table *t) { return t->kind; }
int tfc_lookup_table_key_dtype(const tfc_lookup_table *t) { return t->key_dtype; }
int tfc_lookup_table_value_dtype(const tfc_lookup_table *t) { return t->value_dtype; }
const tfc_shape *tfc_lookup_table_value_shape(const tfc_lookup_table *t) { return &t->value_shape; }
const tfc_shape *tfc_lookup_table_key_shape(const tfc_lookup_table *t) { return &t->key_shape; }

int64_t tfc_lookup_table_size(tfc_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  int64_t n = t->kind == TFC_LOOKUP_DENSE ? t->num_entries : t->n_live;
  pthread_mutex_unlock(&t->mu);
  return n;
}

int tfc_lookup_table_is_initialized(tfc_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  int v = t->initialized;
  pthread_mutex_unlock(&t->mu);
  return v;
}

/* Key i of keys as bytes (borrowed from the tensor). */
static const char *key_bytes(const tfc_tensor *keys, int64_t i, size_t *len) {
  if (keys->dtype == TFC_DT_STRING) {
    const tfc_tstring *k = &tfc_tensor_strings(keys)[i];
    *len = k->len;
    return k->data ? k->data : "";
  }
  size_t es = tfc_dtype_size(keys->dtype);
  *len = es;
  return (const char *)keys->data + (size_t)i * es;
}

static int64_t find_index(const tfc_lookup_table *t, const char *k, size_t len) {
  void *v = tfc_hashmap_get_n(&t->map, k, len);
  return v ? (int64_t)(uintptr_t)v - 1 : -1;
}

/* Copies n value elements from src's element `from` into block dst (strings: heap copies). */
static int copy_in(const tfc_lookup_table *t, void *dst, const tfc_tensor *src, int64_t from, int64_t n) {
  if (t->value_dtype != TFC_DT_STRING) {
    size_t es = tfc_dtype_size(t->value_dtype);
    memcpy(dst, (const char *)src->data + (size_t)from * es, (size_t)n * es);
    return 0;
  }
  tfc_tstring *d = dst;
  for (int64_t i = 0; i < n; i++) {
    const tfc_tstring *x = &tfc_tensor_strings(src)[from + i];
    d[i].len = x->len;
    if (!(d[i].data = malloc(x->len + 1))) return -1;
    if (x->len) memcpy(d[i].data, x->data, x->len);
    d[i].data[x->len] = 0;
  }
  return 0;
}

/* Copies n value elements from block src into dst's element `at`. */
static int copy_out(const tfc_lookup_table *t, tfc_tensor *dst, int64_t at, const void *src, int64_t n,
                    tfc_status *s) {
  if (t->value_dtype != TFC_DT_STRING) {
    size_t es = tfc_dtype_size(t->value_dtype);
    memcpy((char *)dst->data + (size_t)at * es, src, (size_t)n * es);
    return TFC_OK;
  }
  const tfc_tstring *x = src;
  for (int64_t i = 0; i < n; i++) TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(dst)[at + i], x[i].data, x[i].len, s));
  return TFC_OK;
}

/* ---------------- DENSE: TF's MutableDenseHashTable ---------------- */

/* Element e of a key tensor hashed as TF's HashScalar: an integer is its value as 64 bits, a
 * string TF's Hash64. */
static uint64_t elem_hash(const tfc_tensor *k, int64_t e) {
  if (k->dtype == TFC_DT_STRING) {
    const tfc_tstring *x = &tfc_tensor_strings(k)[e];
    return tfc_tf_hash64(x->data ? x->data : "", x->len);
  }
  if (k->dtype == TFC_DT_INT32) return (uint64_t)(int64_t)((const int32_t *)k->data)[e];
  return (uint64_t)((const int64_t *)k->data)[e];
}

/* The hash of row `row` of k (key_elems elements; TF's Hash64Combine over them when more than one). */
static uint64_t dense_hash(const tfc_lookup_table *t, const tfc_tensor *k, int64_t row) {
  int64_t base = row * t->key_elems;
  if (t->key_elems == 1) return elem_hash(k, base);
  uint64_t r = 0;
  for (int64_t i = 0; i < t->key_elems; i++) r ^= elem_hash(k, base + i) + 0x9e3779b97f4a7800ULL + (r << 10) + (r >> 4);
  return r;
}

/* Whether row ra of a equals row rb of b (key_elems elements each). */
static int dense_eq(const tfc_lookup_table *t, const tfc_tensor *a, int64_t ra, const tfc_tensor *b, int64_t rb) {
  int64_t n = t->key_elems;
  if (a->dtype == TFC_DT_STRING) {
    const tfc_tstring *x = tfc_tensor_strings(a) + ra * n, *y = tfc_tensor_strings(b) + rb * n;
    for (int64_t i = 0; i < n; i++)
      if (x[i].len != y[i].len || (x[i].len && memcmp(x[i].data, y[i].data, x[i].len))) return 0;
    return 1;
  }
  size_t es = tfc_dtype_size(a->dtype) * (size_t)n;
  return !memcmp((const char *)a->data + (size_t)ra * es, (const char *)b->data + (size_t)rb * es, es);
}

/* Copies row rs of src to row rd of dst (n elements per row; strings are copied). */
static int copy_row(tfc_tensor *dst, int64_t rd, const tfc_tensor *src, int64_t rs, int64_t n, tfc_status *s) {
  if (dst->dtype == TFC_DT_STRING) {
    for (int64_t i = 0; i < n; i++) {
      const tfc_tstring *x = &tfc_tensor_strings(src)[rs * n + i];
      TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(dst)[rd * n + i], x->data, x->len, s));
    }
    return TFC_OK;
  }
  size_t es = tfc_dtype_size(dst->dtype) * (size_t)n;
  memcpy((char *)dst->data + (size_t)rd * es, (const char *)src->data + (size_t)rs * es, es);
  return TFC_OK;
}

/* 1 (empty) or 2 (deleted) when row i of keys is one of the table's reserved keys, else 0. */
static int dense_reserved(const tfc_lookup_table *t, const tfc_tensor *keys, int64_t i, uint64_t h) {
  if (h == t->empty_hash && dense_eq(t, t->empty_key, 0, keys, i)) return 1;
  if (h == t->deleted_hash && dense_eq(t, t->deleted_key, 0, keys, i)) return 2;
  return 0;
}

static int reserved_error(int which, tfc_status *s) {
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Using the %s as a table key is not allowed",
                        which == 1 ? "empty_key" : "deleted_key");
}

/* New buckets (n of them, every key the empty key, values zero) replace the table's; TF's
 * check of n. The old buckets are dropped. */
static int dense_alloc(tfc_lookup_table *t, int64_t n, tfc_status *s) {
  if (n < 4 || (n & (n - 1)))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Number of buckets must be at least 4 and a power of 2, got: %lld",
                          (long long)n);
  int64_t kd[2] = {n, t->key_elems}, vd[2] = {n, t->value_elems};
  tfc_tensor *k = tfc_tensor_new(t->key_dtype, kd, 2, s);
  tfc_tensor *v = k ? tfc_tensor_zeros(t->value_dtype, vd, 2, s) : NULL;
  int rc = v ? TFC_OK : s->code;
  for (int64_t i = 0; !rc && i < n; i++) rc = copy_row(k, i, t->empty_key, 0, t->key_elems, s);
  if (rc) {
    tfc_tensor_unref(k);
    tfc_tensor_unref(v);
    return rc;
  }
  tfc_tensor_unref(t->key_buckets);
  tfc_tensor_unref(t->value_buckets);
  t->key_buckets = k;
  t->value_buckets = v;
  t->num_buckets = n;
  t->num_entries = 0;
  return TFC_OK;
}

/* TF's DoInsert: n rows of keys with their rows of values, by quadratic probing from the hash;
 * a key found is overwritten, else the first free or removed bucket on its path takes it
 * (TF's order, byte for byte, so that buckets exported by either side find their keys).
 * ignore: skip reserved keys (rebucketing) instead of failing. Called with the lock held. */
static int dense_put(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, int64_t n, int ignore,
                     tfc_status *s) {
  uint64_t mask = (uint64_t)t->num_buckets - 1;
  for (int64_t i = 0; i < n; i++) {
    uint64_t h = dense_hash(t, keys, i);
    int r = dense_reserved(t, keys, i, h);
    if (r) {
      if (ignore) continue;
      return reserved_error(r, s);
    }
    int64_t b = (int64_t)(h & mask), probes = 0;
    for (;;) {
      if (dense_eq(t, t->key_buckets, b, keys, i)) {
        TFC_TRY(copy_row(t->value_buckets, b, values, i, t->value_elems, s));
        break;
      }
      if (dense_eq(t, t->key_buckets, b, t->empty_key, 0) || dense_eq(t, t->key_buckets, b, t->deleted_key, 0)) {
        t->num_entries++;
        TFC_TRY(copy_row(t->key_buckets, b, keys, i, t->key_elems, s));
        TFC_TRY(copy_row(t->value_buckets, b, values, i, t->value_elems, s));
        break;
      }
      probes++;
      b = (int64_t)(((uint64_t)b + (uint64_t)probes) & mask);
      if (probes >= t->num_buckets)
        return tfc_status_set(s, TFC_INTERNAL, "Internal error in MutableDenseHashTable insert");
    }
  }
  return TFC_OK;
}

/* The number of key rows in keys (a scalar is one), or -1 with TF's "Expected key shape". */
static int64_t dense_rows(const tfc_lookup_table *t, const tfc_tensor *keys, tfc_status *s) {
  int64_t n = keys->ndims == 0 ? 1 : keys->dims[0];
  if (keys->n_elems == n * t->key_elems) return n;
  int64_t d[1 + TFC_MAX_DIMS];
  d[0] = n;
  for (int i = 0; i < t->key_shape.rank; i++) d[1 + i] = t->key_shape.dims[i];
  tfc_shape want = tfc_shape_make(d, 1 + t->key_shape.rank), have = tfc_tensor_shape(keys);
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected key shape %s got %s", tfc_shape_str(&want, a, sizeof a),
                 tfc_shape_str(&have, b, sizeof b));
  return -1;
}

/* The bucket holding key row i of keys, or -1 when an empty bucket ends its probe sequence
 * (quadratic, as TF's). -2 with status: a reserved key (TF's texts), or no empty bucket at all
 * (INTERNAL naming `what`). Called with t->mu held. */
static int64_t dense_probe(const tfc_lookup_table *t, const tfc_tensor *keys, int64_t i, const char *what,
                           tfc_status *s) {
  uint64_t mask = (uint64_t)t->num_buckets - 1, h = dense_hash(t, keys, i);
  int r = dense_reserved(t, keys, i, h);
  if (r) {
    reserved_error(r, s);
    return -2;
  }
  int64_t b = (int64_t)(h & mask);
  for (int64_t probes = 1; probes <= t->num_buckets; probes++) {
    if (dense_eq(t, t->key_buckets, b, keys, i)) return b;
    if (dense_eq(t, t->key_buckets, b, t->empty_key, 0)) return -1;
    b = (int64_t)(((uint64_t)b + (uint64_t)probes) & mask);
  }
  tfc_status_set(s, TFC_INTERNAL, "Internal error in MutableDenseHashTable %s", what);
  return -2;
}

static int dense_find(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *dflt, tfc_tensor *out,
                      tfc_status *s) {
  int64_t n = dense_rows(t, keys, s);
  if (n < 0) return s->code;
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  for (int64_t i = 0; !rc && i < n; i++) {
    int64_t b = dense_probe(t, keys, i, "lookup", s);
    if (b == -2) rc = s->code;
    else if (b >= 0) rc = copy_row(out, i, t->value_buckets, b, t->value_elems, s);
    else rc = copy_row(out, i, dflt, 0, t->value_elems, s); /* the default's first value */
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

/* Insert: TF counts every key as new, and grows (doubling) before inserting when that count
 * would pass num_buckets * max_load_factor. */
static int dense_insert(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s) {
  int64_t n = dense_rows(t, keys, s);
  if (n < 0) return s->code;
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  int64_t pending = t->num_entries + n;
  if ((double)pending > (double)t->num_buckets * t->max_load_factor) {
    int64_t nb = t->num_buckets;
    do nb <<= 1;
    while ((double)pending > (double)nb * t->max_load_factor && nb < ((int64_t)1 << 61));
    if ((double)pending > (double)nb * t->max_load_factor) {
      pthread_mutex_unlock(&t->mu);
      return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED,
                            "MutableDenseHashTable cannot grow to hold %lld entries with max_load_factor %g",
                            (long long)pending, (double)t->max_load_factor);
    }
    /* rebucket: the old buckets' keys go into new ones (reserved keys skipped) */
    tfc_tensor *ok = t->key_buckets, *ov = t->value_buckets;
    int64_t on = t->num_buckets, oe = t->num_entries;
    t->key_buckets = t->value_buckets = NULL;
    rc = dense_alloc(t, nb, s);
    if (!rc) rc = dense_put(t, ok, ov, on, 1, s);
    if (rc && !t->key_buckets) {
      t->key_buckets = ok, t->value_buckets = ov, t->num_buckets = on, t->num_entries = oe;
    } else {
      tfc_tensor_unref(ok);
      tfc_tensor_unref(ov);
    }
  }
  if (!rc) rc = dense_put(t, keys, values, n, 0, s);
  pthread_mutex_unlock(&t->mu);
  return rc;
}

/* Remove: a key found gets the deleted key in its bucket. */
static int dense_remove(tfc_lookup_table *t, const tfc_tensor *keys, tfc_status *s) {
  int64_t n = dense_rows(t, keys, s);
  if (n < 0) return s->code;
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  for (int64_t i = 0; !rc && i < n; i++) {
    int64_t b = dense_probe(t, keys, i, "remove", s);
    if (b == -2) {
      rc = s->code;
    } else if (b >= 0) {
      t->num_entries--;
      rc = copy_row(t->key_buckets, b, t->deleted_key, 0, t->key_elems, s);
    }
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

/* Import: the bucket arrays as Export gives them ([N, key elems], [N, value elems]) replace the
 * table's; the size counts the buckets holding neither reserved key. N must be a power of 2
 * of at least 4 (TF does not check it and then probes a broken table). */
static int dense_import(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s) {
  if (keys->ndims != 2 || keys->dims[1] != t->key_elems || values->ndims != 2 || values->dims[1] != t->value_elems ||
      values->dims[0] != keys->dims[0]) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Expected keys [N,%lld] and values [N,%lld] (the exported buckets), got %s and %s",
                          (long long)t->key_elems, (long long)t->value_elems, tfc_tensor_shape_str(keys, a, sizeof a),
                          tfc_tensor_shape_str(values, b, sizeof b));
  }
  int64_t n = keys->dims[0];
  if (n < 4 || (n & (n - 1)))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Number of buckets must be at least 4 and a power of 2, got: %lld",
                          (long long)n);
  tfc_tensor *k = tfc_tensor_copy(keys, s);
  tfc_tensor *v = k ? tfc_tensor_copy(values, s) : NULL;
  if (!v) {
    tfc_tensor_unref(k);
    return s->code;
  }
  pthread_mutex_lock(&t->mu);
  tfc_tensor_unref(t->key_buckets);
  tfc_tensor_unref(t->value_buckets);
  t->key_buckets = k;
  t->value_buckets = v;
  t->num_buckets = n;
  t->num_entries = 0;
  for (int64_t i = 0; i < n; i++)
    if (!dense_eq(t, k, i, t->empty_key, 0) && !dense_eq(t, k, i, t->deleted_key, 0)) t->num_entries++;
  pthread_mutex_unlock(&t->mu);
  return TFC_OK;
}

/* Export: copies of the bucket arrays. */
static int dense_export(tfc_lookup_table *t, tfc_tensor **out_keys, tfc_tensor **out_values, tfc_status *s) {
  pthread_mutex_lock(&t->mu);
  tfc_tensor *k = tfc_tensor_copy(t->key_buckets, s);
  tfc_tensor *v = k ? tfc_tensor_copy(t->value_buckets, s) : NULL;
  pthread_mutex_unlock(&t->mu);
  if (!v) {
    tfc_tensor_unref(k);
    return s->code;
  }
  *out_keys = k;
  *out_values = v;
  return TFC_OK;
}

/* TF's StrCat of a float: the shorter of %.6g and %.9g that reads back. */
static void float_str(float f, char *buf, size_t n) {
  snprintf(buf, n, "%.6g", (double)f);
  if (strtof(buf, NULL) != f) snprintf(buf, n, "%.9g", (double)f);
}

tfc_lookup_table *tfc_lookup_table_new_dense(int key_dtype, int value_dtype, const tfc_shape *value_shape,
                                             const tfc_tensor *empty_key, const tfc_tensor *deleted_key,
                                             int64_t initial_num_buckets, float max_load_factor, tfc_status *s) {
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (!(max_load_factor > 0 && max_load_factor < 1)) {
    float_str(max_load_factor, a, sizeof a);
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "max_load_factor must be between 0 and 1, got: %s", a);
    return NULL;
  }
  if (value_shape->rank > 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Empty value must be a scalar or a vector, got shape %s",
                   tfc_shape_str(value_shape, a, sizeof a));
    return NULL;
  }
  if (empty_key->ndims > 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Empty key must be a scalar or a vector, got shape %s",
                   tfc_tensor_shape_str(empty_key, a, sizeof a));
    return NULL;
  }
  if (!tfc_tensor_same_shape(empty_key, deleted_key)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Empty and deleted keys must have same shape, got shapes: %s and %s",
                   tfc_tensor_shape_str(empty_key, a, sizeof a), tfc_tensor_shape_str(deleted_key, b, sizeof b));
    return NULL;
  }
  tfc_lookup_table *t = tfc_lookup_table_new(TFC_LOOKUP_DENSE, key_dtype, value_dtype, value_shape, s);
  if (!t) return NULL;
  t->key_shape = tfc_tensor_shape(empty_key);
  t->key_elems = empty_key->n_elems;
  t->max_load_factor = max_load_factor;
  /* the reserved keys as single rows */
  t->empty_key = tfc_tensor_copy(empty_key, s);
  t->deleted_key = t->empty_key ? tfc_tensor_copy(deleted_key, s) : NULL;
  int rc = t->deleted_key ? TFC_OK : s->code;
  if (!rc) {
    t->empty_hash = dense_hash(t, t->empty_key, 0);
    t->deleted_hash = dense_hash(t, t->deleted_key, 0);
    if (t->empty_hash == t->deleted_hash && dense_eq(t, t->empty_key, 0, t->deleted_key, 0))
      rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Empty and deleted keys cannot be equal");
  }
  if (!rc) rc = dense_alloc(t, initial_num_buckets, s);
  if (rc) {
    tfc_resource_unref(tfc_lookup_table_resource(t));
    return NULL;
  }
  return t;
}

int tfc_lookup_table_find(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *default_value,
                          tfc_tensor *out, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_DENSE) return dense_find(t, keys, default_value, out, s);
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  if (!t->initialized) rc = tfc_status_set(s, TFC_FAILED_PRECONDITION, "Table not initialized.");
  /* A default of one element serves every element of a value. */
  int one = default_value->n_elems == 1 && t->value_elems != 1;
  for (int64_t i = 0; !rc && i < keys->n_elems; i++) {
    size_t len;
    const char *k = key_bytes(keys, i, &len);
    int64_t at = find_index(t, k, len);
    int64_t base = i * t->value_elems;
    if (at >= 0) {
      rc = copy_out(t, out, base, t->entries[at].value, t->value_elems, s);
      continue;
    }
    for (int64_t j = 0; !rc && j < t->value_elems; j++) {
      int64_t from = one ? 0 : j;
      if (t->value_dtype == TFC_DT_STRING) {
        const tfc_tstring *d = &tfc_tensor_strings(default_value)[from];
        rc = tfc_tstring_assign(&tfc_tensor_strings(out)[base + j], d->data, d->len, s);
      } else {
        size_t es = tfc_dtype_size(t->value_dtype);
        memcpy((char *)out->data + (size_t)(base + j) * es, (const char *)default_value->data + (size_t)from * es, es);
      }
    }
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

/* Writes value i of values for key i of keys: a new entry, or (replace) the existing one's
 * value. For a HASH table being initialized an existing key with another value is TF's
 * FAILED_PRECONDITION. Called with the lock held. */
static int put(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, int64_t i, int replace,
               tfc_status *s) {
  size_t len;
  const char *k = key_bytes(keys, i, &len);
  size_t vbytes = (size_t)t->value_elems * tfc_dtype_size(t->value_dtype);
  void *v = malloc(vbytes ? vbytes : 1);
  if (!v || copy_in(t, v, values, i * t->value_elems, t->value_elems)) {
    free_value(t, v);
    return TFC_OOM(s);
  }
  int64_t at = find_index(t, k, len);
  if (at >= 0 && !replace) {
    const void *old = t->entries[at].value;
    int same;
    if (t->value_dtype == TFC_DT_STRING) {
      const tfc_tstring *a = old, *b = v;
      same = a->len == b->len && !memcmp(a->data, b->data, a->len);
    } else {
      same = !memcmp(old, v, vbytes);
    }
    if (same) {
      free_value(t, v);
      return TFC_OK;
    }
    char ks[64], os[64], ns[64];
    /* TF's StrCat of the key and both values. */
    const char *kt = ks;
    if (keys->dtype == TFC_DT_STRING) kt = NULL;
    else if (keys->dtype == TFC_DT_INT32) snprintf(ks, sizeof ks, "%" PRId32, *(const int32_t *)k);
    else snprintf(ks, sizeof ks, "%" PRId64, *(const int64_t *)k);
    const void *vals[2] = {old, v};
    char *outs[2] = {os, ns};
    for (int j = 0; j < 2; j++) {
      const void *x = vals[j];
      switch (t->value_dtype) {
        case TFC_DT_INT32: snprintf(outs[j], 64, "%" PRId32, *(const int32_t *)x); break;
        case TFC_DT_INT64: snprintf(outs[j], 64, "%" PRId64, *(const int64_t *)x); break;
        case TFC_DT_FLOAT: snprintf(outs[j], 64, "%.9g", *(const float *)x); break;
        case TFC_DT_DOUBLE: snprintf(outs[j], 64, "%.17g", *(const double *)x); break;
        case TFC_DT_BOOL: snprintf(outs[j], 64, "%d", *(const uint8_t *)x); break;
        case TFC_DT_STRING: snprintf(outs[j], 64, "%.*s", (int)((const tfc_tstring *)x)->len, ((const tfc_tstring *)x)->data); break;
        default: snprintf(outs[j], 64, "?"); break;
      }
    }
    int rc = tfc_status_set(s, TFC_FAILED_PRECONDITION,
                            "HashTable has different value for same key. Key %.*s has %s and trying to add value %s",
                            kt ? (int)strlen(kt) : (int)len, kt ? kt : k, os, ns);
    free_value(t, v);
    return rc;
  }
  if (at >= 0) {
    if (!t->entries[at].value) t->n_live++;
    free_value(t, t->entries[at].value);
    t->entries[at].value = v;
    return TFC_OK;
  }
  if (t->n_entries == t->cap) {
    int64_t cap = t->cap ? t->cap * 2 : 16;
    entry *e = realloc(t->entries, (size_t)cap * sizeof *e);
    if (!e) {
      free_value(t, v);
      return TFC_OOM(s);
    }
    t->entries = e;
    t->cap = cap;
  }
  entry *e = &t->entries[t->n_entries];
  if (!(e->key = malloc(len + 1))) {
    free_value(t, v);
    return TFC_OOM(s);
  }
  memcpy(e->key, k, len);
  e->key[len] = 0;
  e->key_len = len;
  e->value = v;
  if (tfc_hashmap_put_n(&t->map, e->key, len, (void *)(uintptr_t)(t->n_entries + 1))) {
    free(e->key);
    free_value(t, v);
    return TFC_OOM(s);
  }
  t->n_entries++;
  t->n_live++;
  return TFC_OK;
}

int tfc_lookup_table_insert(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_HASH)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Insert not supported by InitializableLookupTable implementations");
  if (t->kind == TFC_LOOKUP_DENSE) return dense_insert(t, keys, values, s);
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  for (int64_t i = 0; !rc && i < keys->n_elems; i++) rc = put(t, keys, values, i, 1, s);
  pthread_mutex_unlock(&t->mu);
  return rc;
}

int tfc_lookup_table_remove(tfc_lookup_table *t, const tfc_tensor *keys, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_HASH)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Remove not supported by InitializableLookupTable implementations");
  if (t->kind == TFC_LOOKUP_DENSE) return dense_remove(t, keys, s);
  pthread_mutex_lock(&t->mu);
  for (int64_t i = 0; i < keys->n_elems; i++) {
    size_t len;
    const char *k = key_bytes(keys, i, &len);
    int64_t at = find_index(t, k, len);
    if (at < 0 || !t->entries[at].value) continue;
    free_value(t, t->entries[at].value);
    t->entries[at].value = NULL;
    t->n_live--;
    /* the key now maps to nothing (NULL reads as absent); its slot stays */
    tfc_hashmap_put_n(&t->map, k, len, NULL); /* replaces in place: cannot fail */
  }
  pthread_mutex_unlock(&t->mu);
  return TFC_OK;
}

int tfc_lookup_table_import(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_DENSE) return dense_import(t, keys, values, s);
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  if (t->kind == TFC_LOOKUP_HASH && t->initialized) {
    if (keys->n_elems != t->n_live)
      rc = tfc_status_set(s, TFC_FAILED_PRECONDITION, "Table was already initialized with different data.");
    pthread_mutex_unlock(&t->mu);
    return rc;
  }
  clear(t);
  int hash = t->kind == TFC_LOOKUP_HASH;
  for (int64_t i = 0; !rc && i < keys->n_elems; i++) rc = put(t, keys, values, i, !hash, s);
  if (rc) clear(t);
  else t->initialized = 1;
  pthread_mutex_unlock(&t->mu);
  return rc;
}

int tfc_lookup_table_export(tfc_lookup_table *t, tfc_tensor **out_keys, tfc_tensor **out_values, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_DENSE) return dense_export(t, out_keys, out_values, s);
  pthread_mutex_lock(&t->mu);
  int64_t n = t->n_live, vd[1 + TFC_MAX_DIMS];
  vd[0] = n;
  for (int i = 0; i < t->value_shape.rank; i++) vd[1 + i] = t->value_shape.dims[i];
  tfc_tensor *k = tfc_tensor_new(t->key_dtype, &n, 1, s);
  tfc_tensor *v = k ? tfc_tensor_new(t->value_dtype, vd, 1 + t->value_shape.rank, s) : NULL;
  int rc = v ? TFC_OK : s->code;
  int64_t j = 0;
  for (int64_t i = 0; !rc && i < t->n_entries; i++) {
    const entry *e = &t->entries[i];
    if (!e->value) continue;
    if (t->key_dtype == TFC_DT_STRING) rc = tfc_tstring_assign(&tfc_tensor_strings(k)[j], e->key, e->key_len, s);
    else memcpy((char *)k->data + (size_t)j * e->key_len, e->key, e->key_len);
    if (!rc) rc = copy_out(t, v, j * t->value_elems, e->value, t->value_elems, s);
    j++;
  }
  pthread_mutex_unlock(&t->mu);
  if (rc) {
    tfc_tensor_unref(k);
    tfc_tensor_unref(v);
    return rc;
  }
  *out_keys = k;
  *out_values = v;
  return TFC_OK;
}
