/*
 * kernels_string_ops — CPU kernels of the tf.strings ops appended to ops_string.def after the
 * regex ones (which are in kernels_regex.c):
 *   - StringSplitV2: Python's str.split: a non-empty sep splits on that exact string and keeps
 *     empty tokens (an empty string is one empty token); an empty sep splits on runs of
 *     whitespace and drops the ends (an empty string has no token). maxsplit >= 0 stops after
 *     that many splits, the rest being the last token (for whitespace, TF's quirks kept: the
 *     rest comes out even when empty, and maxsplit 0 keeps the string unstripped).
 *   - StringToHashBucketFast (FarmHash Fingerprint64), StringToHashBucketStrong (SipHash-2-4
 *     keyed by `key`), StringToHashBucket (TF's Hash64): the hash modulo num_buckets.
 *   - StringStrip (ASCII whitespace at both ends), StringLower / StringUpper (ASCII letters;
 *     encoding "utf-8" is refused as UNIMPLEMENTED).
 *   - StringFormat: the template with each placeholder replaced by one input rendered as TF's
 *     print_v2 summary (numpy's layout: "[[1 2]\n [3 4]]", strings quoted, rows and elements
 *     beyond 2 * summarize elided with "...", summarize < 0 shows all).
 *   - PrintV2: the string and `end` to stderr, stdout, log(info|warning|error) (stderr) or
 *     file://<path> (appended).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fingerprint.h"
#include "base/strbuf.h"
#include "device/cpu/cpu_kernels.h"
#include "graph/graph.h"
#include "ops/opdef.h"

static const tfc_tstring *str_at(const tfc_tensor *t, int64_t i) { return &tfc_tensor_strings(t)[i]; }
static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r'; }

/* ---- StringSplitV2 ---- */

/* Calls emit(token) for each token of s; returns the count. */
typedef struct split_sink {
  tfc_tensor *ind, *val;
  int64_t k, row;
  tfc_status *s;
  int rc;
} split_sink;

static void emit(split_sink *o, int64_t col, const char *p, size_t n) {
  if (o->val && !o->rc) {
    ((int64_t *)o->ind->data)[2 * o->k] = o->row;
    ((int64_t *)o->ind->data)[2 * o->k + 1] = col;
    o->rc = tfc_tstring_assign(&tfc_tensor_strings(o->val)[o->k], p, n, o->s);
  }
  o->k++;
}

static int64_t split_one(split_sink *o, const char *s, size_t len, const char *sep, size_t sep_len, int64_t maxsplit) {
  int64_t cols = 0;
  if (!sep_len) {
    /* TF's whitespace split: maxsplit 0 keeps the string whole; otherwise tokens after leading
     * whitespace, and once maxsplit tokens are out the rest (leading whitespace dropped) is one
     * more token, even when empty. */
    if (maxsplit == 0) {
      emit(o, cols++, s, len);
      return cols;
    }
    size_t i = 0;
    while (i < len && is_space(s[i])) i++;
    while (i < len) {
      size_t from = i;
      while (i < len && !is_space(s[i])) i++;
      emit(o, cols++, s + from, i - from);
      if (maxsplit > 0 && cols == maxsplit) {
        while (i < len && is_space(s[i])) i++;
        emit(o, cols++, s + i, len - i);
        return cols;
      }
      while (i < len && is_space(s[i])) i++;
    }
    return cols;
  }
  size_t from = 0;
  for (;;) {
    const char *hit = maxsplit >= 0 && cols == maxsplit ? NULL : memmem(s + from, len - from, sep, sep_len);
    if (!hit) {
      emit(o, cols++, s + from, len - from);
      return cols;
    }
    emit(o, cols++, s + from, (size_t)(hit - (s + from)));
    from = (size_t)(hit - s) + sep_len;
  }
}

static int split_v2_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *sep_t = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if (x->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be a vector, got shape: %s",
                            tfc_tensor_shape_str(x, a, sizeof a));
  if (sep_t->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sep must be a scalar, got shape: %s",
                            tfc_tensor_shape_str(sep_t, a, sizeof a));
  int64_t maxsplit;
  TFC_TRY(tfc_kernel_attr_int(c->node, "maxsplit", &maxsplit, c->status));
  const tfc_tstring *sep = str_at(sep_t, 0);
  split_sink o = {.s = c->status};
  int64_t max_cols = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      int64_t d2[2] = {o.k, 2}, total = o.k, two = 2;
      o.ind = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, d2, 2);
      o.val = o.ind ? tfc_kernel_alloc_output(c, 1, TFC_DT_STRING, &total, 1) : NULL;
      tfc_tensor *shape = o.val ? tfc_kernel_alloc_output(c, 2, TFC_DT_INT64, &two, 1) : NULL;
      if (!shape) return c->status->code;
      ((int64_t *)shape->data)[0] = x->dims[0];
      ((int64_t *)shape->data)[1] = max_cols;
    }
    o.k = 0;
    for (int64_t r = 0; r < x->n_elems; r++) {
      o.row = r;
      const tfc_tstring *s = str_at(x, r);
      int64_t cols = split_one(&o, s->data ? s->data : "", s->len, sep->data, sep->len, maxsplit);
      if (cols > max_cols) max_cols = cols;
    }
  }
  return o.rc;
}

/* ---- hash buckets ---- */

typedef struct hash_state {
  int64_t buckets;
  uint64_t key[2];
} hash_state;

static int hash_init(const tfc_node *n, void **state, tfc_status *s) {
  hash_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_kernel_attr_int(n, "num_buckets", &st->buckets, s)) {
    free(st);
    return s->code;
  }
  if (n->op->id == TFC_OP_StringToHashBucketStrong) {
    const tfc_attr_value *k = tfc_node_attr(n, "key");
    if (!k || k->kind != TFC_ATTR_LIST || k->u.list.n != 2) {
      free(st);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Key must have 2 elements");
    }
    st->key[0] = (uint64_t)k->u.list.items[0].u.i;
    st->key[1] = (uint64_t)k->u.list.items[1].u.i;
  }
  *state = st;
  return TFC_OK;
}

static int hash_compute(tfc_kernel_ctx *c) {
  const hash_state *st = c->state;
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, x->dims, x->ndims);
  if (!out) return c->status->code;
  int op = c->node->op->id;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    const char *p = s->data ? s->data : "";
    uint64_t h = op == TFC_OP_StringToHashBucketFast     ? tfc_fingerprint64(p, s->len)
                 : op == TFC_OP_StringToHashBucketStrong ? tfc_siphash24(st->key, p, s->len)
                                                         : tfc_tf_hash64(p, s->len);
    ((int64_t *)out->data)[i] = (int64_t)(h % (uint64_t)st->buckets);
  }
  return TFC_OK;
}

/* ---- StringStrip, StringLower, StringUpper ---- */

static int case_init(const tfc_node *n, void **state, tfc_status *s) {
  const char *enc;
  TFC_TRY(tfc_kernel_attr_string(n, "encoding", &enc, s));
  if (*enc)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "%s with encoding '%s': only ASCII case mapping (encoding '') is supported",
                          n->op->name, enc);
  *state = NULL;
  return TFC_OK;
}

static int map_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, x->dims, x->ndims);
  if (!out) return c->status->code;
  int op = c->node->op->id;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    const char *p = s->data ? s->data : "";
    size_t from = 0, to = s->len;
    if (op == TFC_OP_StringStrip) {
      while (from < to && is_space(p[from])) from++;
      while (to > from && is_space(p[to - 1])) to--;
    }
    tfc_tstring *d = &tfc_tensor_strings(out)[i];
    TFC_TRY(tfc_tstring_assign(d, p + from, to - from, c->status));
    for (size_t k = 0; op != TFC_OP_StringStrip && k < d->len; k++) {
      char ch = d->data[k];
      if (op == TFC_OP_StringLower && ch >= 'A' && ch <= 'Z') d->data[k] = (char)(ch - 'A' + 'a');
      if (op == TFC_OP_StringUpper && ch >= 'a' && ch <= 'z') d->data[k] = (char)(ch - 'a' + 'A');
    }
  }
  return TFC_OK;
}

/* ---- StringFormat ---- */

/* One element as TF's print_v2 writes it: floats in the shortest of %.6g / %.9g (%.15g /
 * %.17g) that reads back, integers in decimal, bools 1 / 0, strings in double quotes. */
static void put_elem(tfc_strbuf *b, const tfc_tensor *t, int64_t i) {
  char buf[64];
  switch (t->dtype) {
    case TFC_DT_FLOAT: {
      float v = ((const float *)t->data)[i];
      snprintf(buf, sizeof buf, "%.6g", v);
      if (strtof(buf, NULL) != v) snprintf(buf, sizeof buf, "%.9g", v);
      tfc_strbuf_puts(b, buf);
      return;
    }
    case TFC_DT_DOUBLE: {
      double v = ((const double *)t->data)[i];
      snprintf(buf, sizeof buf, "%.15g", v);
      if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
      tfc_strbuf_puts(b, buf);
      return;
    }
    case TFC_DT_STRING: {
      const tfc_tstring *s = str_at(t, i);
      tfc_strbuf_puts(b, "\"");
      tfc_strbuf_append(b, s->data ? s->data : "", s->len);
      tfc_strbuf_puts(b, "\"");
      return;
    }
    case TFC_DT_BOOL: tfc_strbuf_puts(b, ((const uint8_t *)t->data)[i] ? "1" : "0"); return;
    case TFC_DT_INT32: snprintf(buf, sizeof buf, "%" PRId32, ((const int32_t *)t->data)[i]); break;
    case TFC_DT_INT64: snprintf(buf, sizeof buf, "%" PRId64, ((const int64_t *)t->data)[i]); break;
    case TFC_DT_UINT8: snprintf(buf, sizeof buf, "%u", ((const uint8_t *)t->data)[i]); break;
    case TFC_DT_INT8: snprintf(buf, sizeof buf, "%d", ((const int8_t *)t->data)[i]); break;
    case TFC_DT_INT16: snprintf(buf, sizeof buf, "%d", ((const int16_t *)t->data)[i]); break;
    case TFC_DT_UINT16: snprintf(buf, sizeof buf, "%u", ((const uint16_t *)t->data)[i]); break;
    default: snprintf(buf, sizeof buf, "?"); break;
  }
  tfc_strbuf_puts(b, buf);
}

/* Between two items of dimension d: a space in the last dimension, else one newline per
 * dimension below d and an indent of d + 1 (numpy's layout). */
static void put_sep(tfc_strbuf *b, const tfc_tensor *t, int d) {
  if (d == t->ndims - 1) {
    tfc_strbuf_puts(b, " ");
    return;
  }
  for (int k = 0; k < t->ndims - d - 1; k++) tfc_strbuf_puts(b, "\n");
  for (int k = 0; k <= d; k++) tfc_strbuf_puts(b, " ");
}

/* Dimension d of t from element `at` (the row-major offset of this sub-block); items past the
 * first and last `summarize` of a dimension become one "...". */
static void put_block(tfc_strbuf *b, const tfc_tensor *t, int d, int64_t at, int64_t summarize) {
  int64_t n = t->dims[d], stride = 1;
  for (int k = d + 1; k < t->ndims; k++) stride *= t->dims[k];
  int elide = summarize >= 0 && n > 2 * summarize;
  tfc_strbuf_puts(b, "[");
  for (int64_t i = 0; i < n; i++) {
    if (i) put_sep(b, t, d);
    if (elide && i == summarize) {
      tfc_strbuf_puts(b, "...");
      i = n - summarize - 1;
    } else if (d == t->ndims - 1) {
      put_elem(b, t, at + i);
    } else {
      put_block(b, t, d + 1, at + i * stride, summarize);
    }
  }
  tfc_strbuf_puts(b, "]");
}

static int format_compute(tfc_kernel_ctx *c) {
  const tfc_attr_value *tv = tfc_node_attr(c->node, "template"), *pv = tfc_node_attr(c->node, "placeholder");
  int64_t summarize;
  TFC_TRY(tfc_kernel_attr_int(c->node, "summarize", &summarize, c->status));
  if (!tv || !pv || !pv->u.s.len) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "the placeholder must not be empty");
  const char *tp = tv->u.s.data, *end = tp + tv->u.s.len;
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  int k = 0;
  for (const char *hit; (hit = memmem(tp, (size_t)(end - tp), pv->u.s.data, pv->u.s.len)); tp = hit + pv->u.s.len) {
    tfc_strbuf_append(&b, tp, (size_t)(hit - tp));
    if (k >= c->n_inputs) break;
    const tfc_tensor *t = c->inputs[k++];
    if (t->ndims == 0) put_elem(&b, t, 0);
    else put_block(&b, t, 0, 0, summarize);
  }
  tfc_strbuf_append(&b, tp, (size_t)(end - tp));
  int rc;
  if (k != c->n_inputs)
    rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num placeholders in template and num inputs must match: %d vs. %d",
                          k, c->n_inputs);
  else if (!tfc_strbuf_ok(&b))
    rc = TFC_OOM(c->status);
  else {
    tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, NULL, 0);
    rc = out ? tfc_tstring_assign(&tfc_tensor_strings(out)[0], b.data ? b.data : "", b.len, c->status) : c->status->code;
  }
  tfc_strbuf_fini(&b);
  return rc;
}

/* ---- PrintV2 ---- */

static int print_v2_compute(tfc_kernel_ctx *c) {
  const char *stream;
  TFC_TRY(tfc_kernel_attr_string(c->node, "output_stream", &stream, c->status));
  const tfc_attr_value *ev = tfc_node_attr(c->node, "end");
  const tfc_tstring *s = str_at(c->inputs[0], 0);
  FILE *f = NULL;
  int close_it = 0;
  if (!strcmp(stream, "stdout")) f = stdout;
  else if (!strcmp(stream, "stderr") || !strcmp(stream, "log(info)") || !strcmp(stream, "log(warning)") ||
           !strcmp(stream, "log(error)"))
    f = stderr;
  else if (!strncmp(stream, "file://", 7)) {
    if (!(f = fopen(stream + 7, "a")))
      return tfc_kernel_error(c, errno == ENOENT ? TFC_NOT_FOUND : TFC_UNKNOWN, "%s; %s", stream + 7, strerror(errno));
    close_it = 1;
  } else {
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "%s is not a valid output stream. Valid streams are: stdout, stderr, log(info), "
                            "log(warning), log(error), file://<filename>",
                            stream);
  }
  /* One write, so lines of concurrent prints do not interleave. */
  size_t elen = ev && ev->kind == TFC_ATTR_STRING ? ev->u.s.len : 0;
  char *line = malloc(s->len + elen + 1);
  if (!line) {
    if (close_it) fclose(f);
    return TFC_OOM(c->status);
  }
  if (s->len) memcpy(line, s->data, s->len);
  if (elen) memcpy(line + s->len, ev->u.s.data, elen);
  fwrite(line, 1, s->len + elen, f);
  fflush(f);
  free(line);
  if (close_it) fclose(f);
  return TFC_OK;
}

#define HOST_ALL .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_StringSplitV2, HOST_ALL, .compute = split_v2_compute},
    {.op = TFC_OP_StringToHashBucketFast, HOST_ALL, .init = hash_init, .compute = hash_compute, .free_state = free},
    {.op = TFC_OP_StringToHashBucketStrong, HOST_ALL, .init = hash_init, .compute = hash_compute, .free_state = free},
    {.op = TFC_OP_StringToHashBucket, HOST_ALL, .init = hash_init, .compute = hash_compute, .free_state = free},
    {.op = TFC_OP_StringStrip, HOST_ALL, .compute = map_compute},
    {.op = TFC_OP_StringLower, HOST_ALL, .init = case_init, .compute = map_compute},
    {.op = TFC_OP_StringUpper, HOST_ALL, .init = case_init, .compute = map_compute},
    {.op = TFC_OP_StringFormat, HOST_ALL, .compute = format_compute},
    {.op = TFC_OP_PrintV2, HOST_ALL, .flags = TFC_KF_EXPENSIVE, .compute = print_v2_compute},
};

int tfc_cpu_kernels_string_ops(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
