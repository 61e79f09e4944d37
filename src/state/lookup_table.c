/*
 * lookup_table — see lookup_table.h. An entry is its key's bytes (the string, or the
 * integer's bytes) and a block of value elements (value_elems of them; strings as
 * tfc_tstring with heap bytes the table owns). A hash map from key bytes to entry index + 1
 * finds entries; a removed entry keeps its slot (value NULL) and its key maps to nothing, so
 * indexes stay stable and Export keeps insertion order.
 */
#include "state/lookup_table.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  t->value_shape = kind == TFC_LOOKUP_MUTABLE_TENSORS && value_shape ? *value_shape : tfc_shape_make(NULL, 0);
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

int64_t tfc_lookup_table_size(tfc_lookup_table *t) {
  pthread_mutex_lock(&t->mu);
  int64_t n = t->n_live;
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

int tfc_lookup_table_find(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *default_value,
                          tfc_tensor *out, tfc_status *s) {
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
  pthread_mutex_lock(&t->mu);
  int rc = TFC_OK;
  for (int64_t i = 0; !rc && i < keys->n_elems; i++) rc = put(t, keys, values, i, 1, s);
  pthread_mutex_unlock(&t->mu);
  return rc;
}

int tfc_lookup_table_remove(tfc_lookup_table *t, const tfc_tensor *keys, tfc_status *s) {
  if (t->kind == TFC_LOOKUP_HASH)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Remove not supported by InitializableLookupTable implementations");
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
