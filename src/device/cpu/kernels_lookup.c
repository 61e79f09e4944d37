/*
 * kernels_lookup — CPU kernels of ops_lookup.def over state/lookup_table.h.
 *
 * The table ops (HashTable, MutableHashTable, MutableHashTableOfTensors, V1 and V2, and
 * MutableDenseHashTableV2, whose table is made from its empty_key and deleted_key inputs) find or
 * create their table in the device's resources as TF's LookupTableOp does: under shared_name
 * when it is set, else under the node's name with use_node_name_sharing, else under a name
 * private to the node; container "" is the default one. A table found under a shared name
 * must have the node's dtypes. The V2 forms output a resource handle; the V1 forms output the
 * string pair [container, name], which the V1 consumers look up again (TF's ref-string
 * handles). The node caches its table after the first run.
 *
 * The consumers check their signature against the table's dtypes first (TF's "Signature
 * mismatch, have: resource, int64, int32->int32 expected: resource, string, int32->int32"),
 * then shapes with TF's texts. InitializeTableFromTextFile reads the file whole: index -2 is
 * the line, -1 the line number (+ offset), others a column split on the one-byte delimiter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "graph/graph.h"
#include "ops/opdef.h"
#include "state/lookup_table.h"

/* ---------------- the table ops ---------------- */

typedef struct table_op {
  tfc_lookup_kind kind;
  int64_t initial_num_buckets; /* DENSE */
  float max_load_factor;
  int key_dtype, value_dtype, v1;
  tfc_shape value_shape;
  const char *container, *name; /* name: the shared or node name, or NULL (private) */
  const char *node_name;
  _Atomic(tfc_resource *) res;
  char *key; /* the name the table is found under */
} table_op;

static void table_op_free(void *p) {
  table_op *st = p;
  if (!st) return;
  tfc_resource_unref(atomic_load(&st->res));
  free(st->key);
  free(st);
}

static int table_op_init(const tfc_node *n, void **state, tfc_status *s) {
  table_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  atomic_init(&st->res, NULL);
  int id = n->op->id, sharing = 0;
  st->kind = id == TFC_OP_HashTable || id == TFC_OP_HashTableV2           ? TFC_LOOKUP_HASH
             : id == TFC_OP_MutableHashTable || id == TFC_OP_MutableHashTableV2 ? TFC_LOOKUP_MUTABLE
             : id == TFC_OP_MutableDenseHashTableV2                             ? TFC_LOOKUP_DENSE
                                                                               : TFC_LOOKUP_MUTABLE_TENSORS;
  st->v1 = id == TFC_OP_HashTable || id == TFC_OP_MutableHashTable || id == TFC_OP_MutableHashTableOfTensors;
  st->node_name = n->name;
  const char *shared;
  if (tfc_kernel_attr_type(n, "key_dtype", &st->key_dtype, s) || tfc_kernel_attr_type(n, "value_dtype", &st->value_dtype, s) ||
      tfc_kernel_attr_string(n, "container", &st->container, s) || tfc_kernel_attr_string(n, "shared_name", &shared, s) ||
      tfc_kernel_attr_bool(n, "use_node_name_sharing", &sharing, s)) {
    table_op_free(st);
    return s->code;
  }
  st->value_shape = tfc_shape_make(NULL, 0);
  if (st->kind == TFC_LOOKUP_DENSE) {
    const tfc_attr_value *f = tfc_node_attr(n, "max_load_factor");
    st->max_load_factor = f && f->kind == TFC_ATTR_FLOAT ? f->u.f : 0.8f;
    if (tfc_kernel_attr_int(n, "initial_num_buckets", &st->initial_num_buckets, s)) {
      table_op_free(st);
      return s->code;
    }
  }
  if (st->kind == TFC_LOOKUP_MUTABLE_TENSORS || st->kind == TFC_LOOKUP_DENSE) {
    const tfc_attr_value *v = tfc_node_attr(n, "value_shape");
    if (v && v->kind == TFC_ATTR_SHAPE && v->u.shape) st->value_shape = *v->u.shape;
    for (int i = 0; i < st->value_shape.rank; i++)
      if (st->value_shape.dims[i] < 0 || st->value_shape.rank < 0) {
        table_op_free(st);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Value shape must be fully defined");
      }
  }
  st->key = strdup(*shared ? shared : sharing ? n->name : "");
  if (!st->key || (!*st->key && (free(st->key), !(st->key = tfc_resource_private_name(n->name))))) {
    table_op_free(st);
    return TFC_OOM(s);
  }
  *state = st;
  return TFC_OK;
}

typedef struct create_arg {
  const table_op *st;
  const tfc_kernel_ctx *c; /* DENSE: inputs empty_key, deleted_key */
} create_arg;

static tfc_resource *table_create(void *arg, tfc_status *s) {
  const create_arg *a = arg;
  const table_op *st = a->st;
  tfc_lookup_table *t =
      st->kind == TFC_LOOKUP_DENSE
          ? tfc_lookup_table_new_dense(st->key_dtype, st->value_dtype, &st->value_shape, a->c->inputs[0],
                                       a->c->inputs[1], st->initial_num_buckets, st->max_load_factor, s)
          : tfc_lookup_table_new(st->kind, st->key_dtype, st->value_dtype, &st->value_shape, s);
  return t ? tfc_lookup_table_resource(t) : NULL;
}

static int table_op_compute(tfc_kernel_ctx *c) {
  table_op *st = c->state;
  tfc_resource *r = atomic_load_explicit(&st->res, memory_order_acquire);
  if (!r) {
    create_arg a = {st, c};
    r = tfc_resource_mgr_lookup_or_create(c->device->resources, st->container, st->key, &tfc_lookup_table_kind,
                                          table_create, &a, c->status);
    if (!r) return c->status->code;
    tfc_lookup_table *t = tfc_lookup_table_from_resource(r);
    int kd = tfc_lookup_table_key_dtype(t), vd = tfc_lookup_table_value_dtype(t);
    if (kd != st->key_dtype || vd != st->value_dtype) {
      tfc_resource_unref(r);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Conflicting key/value dtypes %s->%s with %s-%s",
                              tfc_dtype_name(st->key_dtype), tfc_dtype_name(st->value_dtype), tfc_dtype_name(kd),
                              tfc_dtype_name(vd));
    }
    tfc_resource *expected = NULL;
    if (!atomic_compare_exchange_strong(&st->res, &expected, r)) {
      tfc_resource_unref(r);
      r = expected;
    }
  }
  if (!st->v1) {
    tfc_tensor *h = tfc_resource_handle_new(r, c->status);
    if (!h) return c->status->code;
    tfc_kernel_set_output(c, 0, h);
    return TFC_OK;
  }
  int64_t two = 2;
  tfc_tensor *h = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, &two, 1);
  if (!h) return c->status->code;
  const char *container = *st->container ? st->container : TFC_DEFAULT_CONTAINER;
  TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(h)[0], container, strlen(container), c->status));
  return tfc_tstring_assign(&tfc_tensor_strings(h)[1], st->key, strlen(st->key), c->status);
}

/* ---------------- the consumers ---------------- */

/* The table behind input 0 as a new reference, or NULL with status. */
static tfc_lookup_table *input_table(tfc_kernel_ctx *c) {
  const tfc_tensor *h = c->inputs[0];
  tfc_resource *r;
  if (h->dtype == TFC_DT_RESOURCE) {
    r = tfc_resource_from_handle(h, &tfc_lookup_table_kind, c->status);
    if (r) tfc_resource_ref(r);
  } else {
    if (h->dtype != TFC_DT_STRING || h->n_elems != 2) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Lookup table handle must be a string pair [container, name]");
      return NULL;
    }
    const tfc_tstring *p = tfc_tensor_strings(h);
    char *container = strndup(p[0].data ? p[0].data : "", p[0].len), *name = strndup(p[1].data ? p[1].data : "", p[1].len);
    r = container && name ? tfc_resource_mgr_lookup(c->device->resources, container, name, &tfc_lookup_table_kind, c->status)
                          : (TFC_OOM(c->status), NULL);
    free(container);
    free(name);
  }
  return r ? tfc_lookup_table_from_resource(r) : NULL;
}

static void release(tfc_lookup_table *t) { tfc_resource_unref(tfc_lookup_table_resource(t)); }

/* TF's MatchSignature: the node's input (and output) dtypes against the table's. want_in and
 * want_out hold the table-dependent dtypes after the handle (-1 ends). */
static int match_signature(tfc_kernel_ctx *c, const int *want_in, int n_in, const int *want_out, int n_out) {
  int same = 1;
  for (int i = 0; i < n_in; i++) same &= c->node->input_types[1 + i] == want_in[i];
  for (int i = 0; i < n_out; i++) same &= c->node->output_types[i] == want_out[i];
  if (same) return TFC_OK;
  char have[512], want[512];
  size_t a = 0, b = 0;
  const char *h0 = tfc_dtype_name(c->node->input_types[0]);
  a += (size_t)snprintf(have + a, sizeof have - a, "%s", h0);
  b += (size_t)snprintf(want + b, sizeof want - b, "%s", h0);
  for (int i = 0; i < n_in; i++) {
    a += (size_t)snprintf(have + a, sizeof have - a, ", %s", tfc_dtype_name(c->node->input_types[1 + i]));
    b += (size_t)snprintf(want + b, sizeof want - b, ", %s", tfc_dtype_name(want_in[i]));
  }
  a += (size_t)snprintf(have + a, sizeof have - a, "->");
  b += (size_t)snprintf(want + b, sizeof want - b, "->");
  for (int i = 0; i < n_out; i++) {
    a += (size_t)snprintf(have + a, sizeof have - a, "%s%s", i ? ", " : "", tfc_dtype_name(c->node->output_types[i]));
    b += (size_t)snprintf(want + b, sizeof want - b, "%s%s", i ? ", " : "", tfc_dtype_name(want_out[i]));
  }
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Signature mismatch, have: %s expected: %s", have, want);
}

static void shape_str(const int64_t *dims, int nd, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)dims[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* keys' dims less the key shape's (ks) followed by the value shape (vs) into dims; returns
 * the rank. */
static int key_value_dims(const tfc_tensor *keys, const tfc_shape *ks, const tfc_shape *vs, int64_t *dims) {
  int nd = 0;
  for (int i = 0; i < keys->ndims - ks->rank; i++) dims[nd++] = keys->dims[i];
  for (int i = 0; i < vs->rank; i++) dims[nd++] = vs->dims[i];
  return nd;
}

/* TF's CheckKeyShape: keys' shape ends with ks. */
static int check_key_shape(tfc_kernel_ctx *c, const tfc_tensor *keys, const tfc_shape *ks) {
  int ok = keys->ndims >= ks->rank;
  for (int i = 0; ok && i < ks->rank; i++) ok = keys->dims[keys->ndims - ks->rank + i] == ks->dims[i];
  if (ok) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input key shape %s must end with the table's key shape %s",
                          tfc_tensor_shape_str(keys, a, sizeof a), tfc_shape_str(ks, b, sizeof b));
}

/* A scalar shape as [1] (TF's MaybeVectorizeShape: a DENSE table's buckets hold vectors). */
static tfc_shape vectorized(const tfc_shape *s) { return s->rank == 0 ? tfc_shape_vector(1) : *s; }

static int same_dims(const tfc_tensor *t, const int64_t *dims, int nd) {
  if (t->ndims != nd) return 0;
  for (int i = 0; i < nd; i++)
    if (t->dims[i] != dims[i]) return 0;
  return 1;
}

static int find_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  int kd = tfc_lookup_table_key_dtype(t), vd = tfc_lookup_table_value_dtype(t);
  int want_in[2] = {kd, vd};
  int rc = match_signature(c, want_in, 2, &vd, 1);
  const tfc_tensor *keys = c->inputs[1], *dflt = c->inputs[2];
  const tfc_shape *vs = tfc_lookup_table_value_shape(t), *ks = tfc_lookup_table_key_shape(t);
  if (!rc) rc = check_key_shape(c, keys, ks);
  if (!rc) {
    /* the default: the value shape, or one element ([] or [1] for a scalar table) */
    int64_t one = 1, vd1[1 + TFC_MAX_DIMS];
    vd1[0] = 1;
    for (int i = 0; i < vs->rank; i++) vd1[1 + i] = vs->dims[i];
    int ok = same_dims(dflt, vs->dims, vs->rank) || same_dims(dflt, vd1, 1 + vs->rank) ||
             (vs->rank == 0 && same_dims(dflt, &one, 1));
    if (!ok) {
      char a[256], b[256], d[256];
      shape_str(vs->dims, vs->rank, a, sizeof a);
      shape_str(vd1, 1 + vs->rank, b, sizeof b);
      shape_str(dflt->dims, dflt->ndims, d, sizeof d);
      rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected shape %s or %s for default value, got %s", a, b, d);
    }
  }
  if (!rc) {
    int64_t dims[2 * TFC_MAX_DIMS];
    int nd = key_value_dims(keys, ks, vs, dims);
    tfc_tensor *out = tfc_kernel_alloc_output(c, 0, vd, dims, nd);
    rc = out ? tfc_lookup_table_find(t, keys, dflt, out, c->status) : c->status->code;
  }
  release(t);
  return rc;
}

/* Insert, Import and InitializeTable: keys and values checked against the table. A DENSE
 * table's import (is_import) takes its bucket arrays: key and value shapes vectorized. */
static int check_keys_values(tfc_kernel_ctx *c, tfc_lookup_table *t, int is_import) {
  int kd = tfc_lookup_table_key_dtype(t), vd = tfc_lookup_table_value_dtype(t);
  int want_in[2] = {kd, vd};
  TFC_TRY(match_signature(c, want_in, 2, NULL, 0));
  const tfc_tensor *keys = c->inputs[1], *vals = c->inputs[2];
  tfc_shape ks = *tfc_lookup_table_key_shape(t), vs = *tfc_lookup_table_value_shape(t);
  TFC_TRY(check_key_shape(c, keys, &ks));
  if (is_import && tfc_lookup_table_kind_of(t) == TFC_LOOKUP_DENSE) {
    ks = vectorized(&ks);
    vs = vectorized(&vs);
    if (keys->ndims < ks.rank) return check_key_shape(c, keys, &ks); /* a scalar: the text of a failed check */
  }
  int64_t dims[2 * TFC_MAX_DIMS];
  int nd = key_value_dims(keys, &ks, &vs, dims);
  if (!same_dims(vals, dims, nd)) {
    char a[256], b[256];
    shape_str(dims, nd, a, sizeof a);
    shape_str(vals->dims, vals->ndims, b, sizeof b);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected shape %s for value, got %s", a, b);
  }
  return TFC_OK;
}

static int insert_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  int rc = check_keys_values(c, t, 0);
  if (!rc) rc = tfc_lookup_table_insert(t, c->inputs[1], c->inputs[2], c->status);
  release(t);
  return rc;
}

static int import_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  int rc = check_keys_values(c, t, 1);
  if (!rc) rc = tfc_lookup_table_import(t, c->inputs[1], c->inputs[2], c->status);
  release(t);
  return rc;
}

static int remove_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  int kd = tfc_lookup_table_key_dtype(t);
  int rc = match_signature(c, &kd, 1, NULL, 0);
  if (!rc) rc = check_key_shape(c, c->inputs[1], tfc_lookup_table_key_shape(t));
  if (!rc) rc = tfc_lookup_table_remove(t, c->inputs[1], c->status);
  release(t);
  return rc;
}

static int export_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  int want_out[2] = {tfc_lookup_table_key_dtype(t), tfc_lookup_table_value_dtype(t)};
  int rc = match_signature(c, NULL, 0, want_out, 2);
  tfc_tensor *k = NULL, *v = NULL;
  if (!rc) rc = tfc_lookup_table_export(t, &k, &v, c->status);
  if (!rc) {
    tfc_kernel_set_output(c, 0, k);
    tfc_kernel_set_output(c, 1, v);
  }
  release(t);
  return rc;
}

static int size_compute(tfc_kernel_ctx *c) {
  tfc_lookup_table *t = input_table(c);
  if (!t) return c->status->code;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, NULL, 0);
  if (out) *(int64_t *)out->data = tfc_lookup_table_size(t);
  release(t);
  return out ? TFC_OK : c->status->code;
}

/* ---------------- InitializeTableFromTextFile ---------------- */

typedef struct text_init {
  int64_t key_index, value_index, vocab_size, offset;
  char delimiter;
} text_init;

static int text_init_init(const tfc_node *n, void **state, tfc_status *s) {
  text_init *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  const tfc_attr_value *d = tfc_node_attr(n, "delimiter");
  int rc = tfc_kernel_attr_int(n, "key_index", &st->key_index, s) || tfc_kernel_attr_int(n, "value_index", &st->value_index, s) ||
           tfc_kernel_attr_int(n, "vocab_size", &st->vocab_size, s);
  const tfc_attr_value *off = tfc_node_attr(n, "offset");
  st->offset = off && off->kind == TFC_ATTR_INT ? off->u.i : 0;
  if (!rc && (!d || d->kind != TFC_ATTR_STRING || d->u.s.len != 1))
    rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "delimiter should be only 1 char");
  if (rc) {
    free(st);
    return s->code;
  }
  st->delimiter = d->u.s.data[0];
  *state = st;
  return TFC_OK;
}

/* Sets element i of t (key or value column) from the line's field: index -2 the line, -1 the
 * line number + offset, else column `index` of the split line. */
static int set_field(tfc_kernel_ctx *c, tfc_tensor *t, int64_t i, int64_t index, const char *line, size_t len,
                     int64_t line_no, int64_t offset, char delim) {
  const char *f = line;
  size_t flen = len;
  if (index == -1) {
    if (t->dtype != TFC_DT_INT64)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Line number requires an int64 key or value, got %s",
                              tfc_dtype_name(t->dtype));
    ((int64_t *)t->data)[i] = line_no + offset;
    return TFC_OK;
  }
  if (index >= 0) {
    for (int64_t col = 0; col < index; col++) {
      const char *p = memchr(f, delim, flen);
      flen -= (size_t)(p - f) + 1;
      f = p + 1;
    }
    const char *p = memchr(f, delim, flen);
    if (p) flen = (size_t)(p - f);
  }
  if (t->dtype == TFC_DT_STRING) return tfc_tstring_assign(&tfc_tensor_strings(t)[i], f, flen, c->status);
  char buf[128];
  int ok = flen > 0 && flen < sizeof buf;
  if (ok) {
    memcpy(buf, f, flen);
    buf[flen] = 0;
    char *end;
    errno = 0;
    switch (t->dtype) {
      case TFC_DT_INT64: ((int64_t *)t->data)[i] = strtoll(buf, &end, 10); break;
      case TFC_DT_INT32: {
        long long v = strtoll(buf, &end, 10);
        ok = v >= INT32_MIN && v <= INT32_MAX;
        ((int32_t *)t->data)[i] = (int32_t)v;
        break;
      }
      case TFC_DT_FLOAT: ((float *)t->data)[i] = strtof(buf, &end); break;
      case TFC_DT_DOUBLE: ((double *)t->data)[i] = strtod(buf, &end); break;
      default: end = buf; break;
    }
    ok = ok && !errno && *end == 0 && end != buf;
  }
  if (!ok)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Field %.*s in line %lld is not a valid %s.", (int)flen, f,
                            (long long)line_no, tfc_dtype_name(t->dtype));
  return TFC_OK;
}

static int text_file_compute(tfc_kernel_ctx *c) {
  const text_init *st = c->state;
  const tfc_tensor *fn = c->inputs[1];
  if (fn->ndims != 0) {
    char a[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "filename should be a single string, but got %s",
                            tfc_tensor_shape_str(fn, a, sizeof a));
  }
  const tfc_tstring *name = tfc_tensor_strings(fn);
  char *path = strndup(name->data ? name->data : "", name->len);
  if (!path) return TFC_OOM(c->status);
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    int rc = tfc_kernel_error(c, e == ENOENT ? TFC_NOT_FOUND : TFC_UNKNOWN, "%s; %s", path, strerror(e));
    free(path);
    return rc;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  do {
    if (len == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 1 << 16);
      if (!nb) {
        free(buf), fclose(f), free(path);
        return TFC_OOM(c->status);
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  fclose(f);
  tfc_lookup_table *t = input_table(c);
  if (!t) {
    free(buf), free(path);
    return c->status->code;
  }
  /* Pass 1: count the lines (up to vocab_size) and check them. */
  int rc = TFC_OK;
  int64_t n = 0;
  int64_t need = (st->key_index > st->value_index ? st->key_index : st->value_index) + 1;
  for (size_t pos = 0; !rc && pos < len && (st->vocab_size < 0 || n < st->vocab_size);) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - buf) : len, next = nl ? end + 1 : len, ll = end - pos;
    if (ll && buf[pos + ll - 1] == '\r') ll--;
    if (!ll) {
      rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid content in %s: empty line found at position %zu.", path, next);
      break;
    }
    if (need > 0) {
      int64_t cols = 1;
      for (size_t k = pos; k < pos + ll; k++) cols += buf[k] == st->delimiter;
      if (cols < need)
        rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid number of columns in %s line %lld (%.*s) : expected at least %lld got %lld",
                              path, (long long)n, (int)ll, buf + pos, (long long)need, (long long)cols);
    }
    n++;
    pos = next;
  }
  if (!rc && st->vocab_size >= 0 && n < st->vocab_size)
    rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid vocab_size in %s: expected %lld but got %lld", path,
                          (long long)st->vocab_size, (long long)n);
  /* Pass 2: the keys and values. */
  tfc_tensor *keys = NULL, *vals = NULL;
  if (!rc) {
    keys = tfc_tensor_new(tfc_lookup_table_key_dtype(t), &n, 1, c->status);
    vals = keys ? tfc_tensor_new(tfc_lookup_table_value_dtype(t), &n, 1, c->status) : NULL;
    if (!vals) rc = c->status->code;
  }
  size_t pos = 0;
  for (int64_t i = 0; !rc && i < n; i++) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - buf) : len, ll = end - pos;
    if (ll && buf[pos + ll - 1] == '\r') ll--;
    rc = set_field(c, keys, i, st->key_index, buf + pos, ll, i, st->offset, st->delimiter);
    if (!rc) rc = set_field(c, vals, i, st->value_index, buf + pos, ll, i, st->offset, st->delimiter);
    pos = nl ? end + 1 : len;
  }
  if (!rc) rc = tfc_lookup_table_import(t, keys, vals, c->status);
  tfc_tensor_unref(keys);
  tfc_tensor_unref(vals);
  release(t);
  free(buf);
  free(path);
  return rc;
}

#define KEYS (TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define VALUES                                                                                             \
  (TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | \
   TFC_T(TFC_DT_BOOL))
#define TABLE(id)                                                                                                 \
  {.op = id, .type_attr = "key_dtype", .types = KEYS, .type_attr2 = "value_dtype", .types2 = VALUES,             \
   .host_memory_out = TFC_TYPES_ALL, .init = table_op_init, .compute = table_op_compute, .free_state = table_op_free}
/* TF registers no string values for the dense table (its buckets are zero-filled). */
#define DENSE_VALUES \
  (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_BOOL))
#define HOST_ALL .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL

/* MutableDenseHashTable (V1): TF's kernel asks for a deleted_key input the V1 op does not have,
 * so the op can never make its table; tfc gives TF's error. */
static int dense_v1_init(const tfc_node *n, void **state, tfc_status *s) {
  (void)n;
  *state = NULL;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Unknown input name: deleted_key");
}

static int dense_v1_compute(tfc_kernel_ctx *c) {
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unknown input name: deleted_key");
}

static const tfc_kernel_def defs[] = {
    TABLE(TFC_OP_HashTableV2),
    TABLE(TFC_OP_MutableHashTableV2),
    TABLE(TFC_OP_MutableHashTableOfTensorsV2),
    TABLE(TFC_OP_HashTable),
    TABLE(TFC_OP_MutableHashTable),
    TABLE(TFC_OP_MutableHashTableOfTensors),
    {.op = TFC_OP_MutableDenseHashTableV2, .type_attr = "key_dtype", .types = KEYS, .type_attr2 = "value_dtype",
     .types2 = DENSE_VALUES, HOST_ALL, .init = table_op_init, .compute = table_op_compute, .free_state = table_op_free},
    {.op = TFC_OP_MutableDenseHashTable, .type_attr = "key_dtype", .types = KEYS, .type_attr2 = "value_dtype",
     .types2 = DENSE_VALUES, HOST_ALL, .init = dense_v1_init, .compute = dense_v1_compute},
    {.op = TFC_OP_LookupTableFindV2, HOST_ALL, .compute = find_compute},
    {.op = TFC_OP_LookupTableFind, HOST_ALL, .compute = find_compute},
    {.op = TFC_OP_LookupTableInsertV2, HOST_ALL, .compute = insert_compute},
    {.op = TFC_OP_LookupTableInsert, HOST_ALL, .compute = insert_compute},
    {.op = TFC_OP_LookupTableRemoveV2, HOST_ALL, .compute = remove_compute},
    {.op = TFC_OP_LookupTableImportV2, HOST_ALL, .compute = import_compute},
    {.op = TFC_OP_LookupTableImport, HOST_ALL, .compute = import_compute},
    {.op = TFC_OP_InitializeTableV2, HOST_ALL, .compute = import_compute},
    {.op = TFC_OP_InitializeTable, HOST_ALL, .compute = import_compute},
    {.op = TFC_OP_LookupTableExportV2, HOST_ALL, .compute = export_compute},
    {.op = TFC_OP_LookupTableExport, HOST_ALL, .compute = export_compute},
    {.op = TFC_OP_LookupTableSizeV2, HOST_ALL, .compute = size_compute},
    {.op = TFC_OP_LookupTableSize, HOST_ALL, .compute = size_compute},
    {.op = TFC_OP_InitializeTableFromTextFileV2, HOST_ALL, .init = text_init_init, .compute = text_file_compute,
     .free_state = free, .flags = TFC_KF_EXPENSIVE},
    {.op = TFC_OP_InitializeTableFromTextFile, HOST_ALL, .init = text_init_init, .compute = text_file_compute,
     .free_state = free, .flags = TFC_KF_EXPENSIVE},
};

int tfc_cpu_kernels_lookup(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
