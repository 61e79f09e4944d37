/*
 * kernels_string — CPU kernels of ops_string.def, all on host memory:
 *   - ReadFile: the whole file as one string (NOT_FOUND "<name>; No such file or directory");
 *     WriteFile: creates the parent directories, then writes the string.
 *   - StringLength (bytes, or UTF-8 characters with unit UTF8_CHAR), AsString (TF's printf
 *     formats: "%f"-style floats with precision / scientific / shortest, width and fill;
 *     integers "%d"; bools "true"/"false"), Substr (pos and len broadcast against the input;
 *     "pos 5 out of range for string b'abc' at index 0"; with UTF8_CHAR no string), StringToNumber ("StringToNumberOp
 *     could not correctly convert string: x"), EncodeBase64 / DecodeBase64 (the web-safe
 *     alphabet, TF's; padding on request), StringSplit (any byte of the delimiter splits; an
 *     empty delimiter splits into bytes; skip_empty drops empty tokens).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device/cpu/cpu_kernels.h"
#include "ops/opdef.h"

static const tfc_tstring *str_at(const tfc_tensor *t, int64_t i) { return &tfc_tensor_strings(t)[i]; }

/* ---- ReadFile / WriteFile ---- */

static int read_file_compute(tfc_kernel_ctx *c) {
  const tfc_tstring *name = str_at(c->inputs[0], 0);
  char *path = strndup(name->data ? name->data : "", name->len);
  if (!path) return TFC_OOM(c->status);
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    int rc = tfc_kernel_error(c, e == ENOENT ? TFC_NOT_FOUND : e == EACCES ? TFC_PERMISSION_DENIED : TFC_UNKNOWN,
                              "%s; %s", path, strerror(e));
    free(path);
    return rc;
  }
  free(path);
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  do {
    if (len == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return TFC_OOM(c->status);
      }
      buf = nb;
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
  } while (n > 0);
  int bad = ferror(f);
  fclose(f);
  int rc = TFC_OK;
  tfc_tensor *out = bad ? NULL : tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, NULL, 0);
  if (bad) rc = tfc_kernel_error(c, TFC_DATA_LOSS, "error reading the file");
  else if (!out) rc = c->status->code;
  else rc = tfc_tstring_assign(&tfc_tensor_strings(out)[0], buf, len, c->status);
  free(buf);
  return rc;
}

static int make_parents(char *path) {
  for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
    *p = 0;
    int rc = mkdir(path, 0777);
    *p = '/';
    if (rc && errno != EEXIST) return -1;
  }
  return 0;
}

static int write_file_compute(tfc_kernel_ctx *c) {
  const tfc_tstring *name = str_at(c->inputs[0], 0), *data = str_at(c->inputs[1], 0);
  char *path = strndup(name->data ? name->data : "", name->len);
  if (!path) return TFC_OOM(c->status);
  FILE *f = make_parents(path) ? NULL : fopen(path, "wb");
  int rc = TFC_OK;
  if (!f || (data->len && fwrite(data->data, 1, data->len, f) != data->len)) {
    int e = errno;
    rc = tfc_kernel_error(c, e == ENOENT ? TFC_NOT_FOUND : e == EACCES ? TFC_PERMISSION_DENIED : TFC_UNKNOWN,
                          "%s; %s", path, strerror(e));
  }
  if (f && fclose(f) && rc == TFC_OK) rc = tfc_kernel_error(c, TFC_UNKNOWN, "%s; %s", path, strerror(errno));
  free(path);
  return rc;
}

/* ---- StringLength ---- */

static int string_length_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  const char *unit;
  TFC_TRY(tfc_kernel_attr_string(c->node, "unit", &unit, c->status));
  int utf8 = !strcmp(unit, "UTF8_CHAR");
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, x->dims, x->ndims);
  if (!out) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    int32_t n = 0;
    if (!utf8) n = (int32_t)s->len;
    else
      for (size_t k = 0; k < s->len; k++) n += ((unsigned char)s->data[k] & 0xC0) != 0x80;
    ((int32_t *)out->data)[i] = n;
  }
  return TFC_OK;
}

/* ---- AsString ---- */

static int as_string_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int64_t precision, width;
  int scientific, shortest;
  const char *fill;
  TFC_TRY(tfc_kernel_attr_int(c->node, "precision", &precision, c->status));
  TFC_TRY(tfc_kernel_attr_int(c->node, "width", &width, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "scientific", &scientific, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "shortest", &shortest, c->status));
  TFC_TRY(tfc_kernel_attr_string(c->node, "fill", &fill, c->status));
  int is_float = x->dtype == TFC_DT_FLOAT || x->dtype == TFC_DT_DOUBLE;
  if (scientific && shortest)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Cannot select both scientific and shortest notation");
  if (strlen(fill) > 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Fill string must be one or fewer characters");
  if (!is_float && (scientific || shortest || precision > -1))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Cannot select %s for non-float type",
                            scientific ? "scientific notation" : shortest ? "shortest notation" : "precision");
  if (x->dtype == TFC_DT_BOOL && (width > -1 || *fill))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Cannot select fill or width for bool");
  /* The format: %[fill][width][.precision](f|e|g|lld) */
  char fmt[32], *p = fmt;
  *p++ = '%';
  if (*fill == '-' || *fill == ' ' || *fill == '+' || *fill == '#' || *fill == '0') *p++ = *fill;
  else if (*fill)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Fill argument not supported: \"%s\"", fill);
  if (width > -1) p += snprintf(p, sizeof fmt - (size_t)(p - fmt), "%lld", (long long)width);
  if (precision > -1) p += snprintf(p, sizeof fmt - (size_t)(p - fmt), ".%lld", (long long)precision);
  snprintf(p, sizeof fmt - (size_t)(p - fmt), "%s", is_float ? (scientific ? "e" : shortest ? "g" : "f") : "lld");
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, x->dims, x->ndims);
  if (!out) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    char buf[512];
    int n;
    if (x->dtype == TFC_DT_BOOL) n = snprintf(buf, sizeof buf, "%s", ((const uint8_t *)x->data)[i] ? "true" : "false");
    else if (is_float) n = snprintf(buf, sizeof buf, fmt, tfc_tensor_get_f64(x, i));
    else n = snprintf(buf, sizeof buf, fmt, (long long)tfc_tensor_get_i64(x, i));
    if (n < 0 || (size_t)n >= sizeof buf) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "formatted value too long");
    TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(out)[i], buf, (size_t)n, c->status));
  }
  return TFC_OK;
}

/* ---- Substr ---- */

/* Byte offset of UTF-8 character k of s (k may be len), or -1 past the end. */
static int64_t utf8_offset(const tfc_tstring *s, int64_t k) {
  int64_t chars = 0;
  for (size_t b = 0; b <= s->len; b++) {
    if (b == s->len || ((unsigned char)s->data[b] & 0xC0) != 0x80) {
      if (chars == k) return (int64_t)b;
      chars++;
    }
  }
  return -1;
}

static int64_t utf8_len(const tfc_tstring *s) {
  int64_t n = 0;
  for (size_t b = 0; b < s->len; b++) n += ((unsigned char)s->data[b] & 0xC0) != 0x80;
  return n;
}

static int substr_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *pos = c->inputs[1], *len = c->inputs[2];
  const char *unit;
  TFC_TRY(tfc_kernel_attr_string(c->node, "unit", &unit, c->status));
  int utf8 = !strcmp(unit, "UTF8_CHAR");
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (!tfc_tensor_same_shape(pos, len))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "pos and len should have the same shape, got: %s vs. %s",
                            tfc_tensor_shape_str(pos, a, sizeof a), tfc_tensor_shape_str(len, b, sizeof b));
  const tfc_tensor *ins[2] = {x, pos};
  int64_t out_dims[TFC_MAX_DIMS];
  int out_rank;
  /* Same shapes, or one side a scalar; other broadcasts through an odometer over out dims. */
  out_rank = x->ndims > pos->ndims ? x->ndims : pos->ndims;
  for (int i = 0; i < out_rank; i++) {
    int ix = i - (out_rank - x->ndims), ip = i - (out_rank - pos->ndims);
    int64_t dx = ix >= 0 ? x->dims[ix] : 1, dp = ip >= 0 ? pos->dims[ip] : 1;
    if (dx != dp && dx != 1 && dp != 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                              tfc_tensor_shape_str(ins[0], a, sizeof a), tfc_tensor_shape_str(ins[1], b, sizeof b));
    out_dims[i] = dx == 1 ? dp : dx;
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, out_dims, out_rank);
  if (!out) return c->status->code;
  for (int64_t o = 0; o < out->n_elems; o++) {
    int64_t rest = o, xi = 0, pi = 0, xs = 1, ps = 1;
    for (int d = out_rank - 1; d >= 0; d--) {
      int64_t k = rest % out_dims[d];
      rest /= out_dims[d];
      int ix = d - (out_rank - x->ndims), ip = d - (out_rank - pos->ndims);
      if (ix >= 0) {
        if (x->dims[ix] != 1) xi += k * xs;
        xs *= x->dims[ix];
      }
      if (ip >= 0) {
        if (pos->dims[ip] != 1) pi += k * ps;
        ps *= pos->dims[ip];
      }
    }
    const tfc_tstring *s = str_at(x, xi);
    int64_t p = tfc_tensor_get_i64(pos, pi), l = tfc_tensor_get_i64(len, pi);
    int64_t size = utf8 ? utf8_len(s) : (int64_t)s->len;
    if (p < 0) p += size;
    if (p < 0 || p > size)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "pos %lld out of range for string%s%.*s%s at index %lld",
                              (long long)tfc_tensor_get_i64(pos, pi), utf8 ? "" : " b'", utf8 ? 0 : (int)s->len,
                              s->data ? s->data : "", utf8 ? "" : "'", (long long)o);
    if (l < 0) l = 0;
    if (l > size - p) l = size - p;
    int64_t from = utf8 ? utf8_offset(s, p) : p, to = utf8 ? utf8_offset(s, p + l) : p + l;
    TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(out)[o], s->data + from, (size_t)(to - from), c->status));
  }
  return TFC_OK;
}

/* ---- StringToNumber ---- */

static int string_to_number_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int dt = c->node->output_types[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dt, x->dims, x->ndims);
  if (!out) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    char buf[128];
    size_t n = s->len < sizeof buf - 1 ? s->len : sizeof buf - 1;
    memcpy(buf, s->data ? s->data : "", n);
    buf[n] = 0;
    char *end = NULL;
    errno = 0;
    int ok = s->len < sizeof buf - 1 && n > 0;
    if (dt == TFC_DT_FLOAT || dt == TFC_DT_DOUBLE) {
      double v = ok ? strtod(buf, &end) : 0;
      ok = ok && end && *end == 0 && !(buf[0] == ' ');
      if (ok && dt == TFC_DT_FLOAT) ((float *)out->data)[i] = (float)v;
      else if (ok) ((double *)out->data)[i] = v;
    } else {
      long long v = ok ? strtoll(buf, &end, 10) : 0;
      ok = ok && end && *end == 0 && errno == 0 && !(buf[0] == ' ');
      if (dt == TFC_DT_INT32) ok = ok && v >= INT32_MIN && v <= INT32_MAX;
      if (ok && dt == TFC_DT_INT32) ((int32_t *)out->data)[i] = (int32_t)v;
      else if (ok) ((int64_t *)out->data)[i] = v;
    }
    if (!ok)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "StringToNumberOp could not correctly convert string: %.*s",
                              (int)s->len, s->data ? s->data : "");
  }
  return TFC_OK;
}

/* ---- base64 (web-safe) ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int encode_base64_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int pad;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "pad", &pad, c->status));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, x->dims, x->ndims);
  if (!out) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    const unsigned char *d = (const unsigned char *)s->data;
    char *buf = malloc(s->len / 3 * 4 + 5), *p = buf;
    if (!buf) return TFC_OOM(c->status);
    size_t k = 0;
    for (; k + 2 < s->len; k += 3) {
      uint32_t v = (uint32_t)d[k] << 16 | (uint32_t)d[k + 1] << 8 | d[k + 2];
      *p++ = b64[v >> 18];
      *p++ = b64[(v >> 12) & 63];
      *p++ = b64[(v >> 6) & 63];
      *p++ = b64[v & 63];
    }
    if (s->len - k == 1) {
      *p++ = b64[d[k] >> 2];
      *p++ = b64[(d[k] & 3) << 4];
      if (pad) p += sprintf(p, "==");
    } else if (s->len - k == 2) {
      *p++ = b64[d[k] >> 2];
      *p++ = b64[((d[k] & 3) << 4) | (d[k + 1] >> 4)];
      *p++ = b64[(d[k + 1] & 15) << 2];
      if (pad) *p++ = '=';
    }
    int rc = tfc_tstring_assign(&tfc_tensor_strings(out)[i], buf, (size_t)(p - buf), c->status);
    free(buf);
    TFC_TRY(rc);
  }
  return TFC_OK;
}

static int b64_value(unsigned char ch) {
  const char *p = ch ? strchr(b64, ch) : NULL;
  return p ? (int)(p - b64) : -1;
}

static int decode_base64_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, x->dims, x->ndims);
  if (!out) return c->status->code;
  for (int64_t i = 0; i < x->n_elems; i++) {
    const tfc_tstring *s = str_at(x, i);
    size_t n = s->len;
    while (n && s->data[n - 1] == '=') n--;
    if (n % 4 == 1 || s->len - n > 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid base64 data: length %zu", s->len);
    char *buf = malloc(n / 4 * 3 + 3), *p = buf;
    if (!buf) return TFC_OOM(c->status);
    uint32_t acc = 0;
    int bits = 0;
    for (size_t k = 0; k < n; k++) {
      int v = b64_value((unsigned char)s->data[k]);
      if (v < 0) {
        free(buf);
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid character found in base64.");
      }
      acc = acc << 6 | (uint32_t)v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        *p++ = (char)((acc >> bits) & 0xFF);
      }
    }
    int rc = tfc_tstring_assign(&tfc_tensor_strings(out)[i], buf, (size_t)(p - buf), c->status);
    free(buf);
    TFC_TRY(rc);
  }
  return TFC_OK;
}

/* ---- StringSplit ---- */

static int string_split_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *delim_t = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if (x->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be a vector, got shape: %s",
                            tfc_tensor_shape_str(x, a, sizeof a));
  if (delim_t->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "delimiter must be a scalar, got shape: %s",
                            tfc_tensor_shape_str(delim_t, a, sizeof a));
  int skip_empty;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "skip_empty", &skip_empty, c->status));
  const tfc_tstring *delim = str_at(delim_t, 0);
  /* Two passes: count the tokens, then fill. Token t of row r: [from, to). */
  int64_t total = 0, max_cols = 0;
  for (int pass = 0; pass < 2; pass++) {
    tfc_tensor *ind = NULL, *val = NULL;
    if (pass) {
      int64_t d2[2] = {total, 2};
      ind = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, d2, 2);
      val = ind ? tfc_kernel_alloc_output(c, 1, TFC_DT_STRING, &total, 1) : NULL;
      int64_t d1 = 2;
      tfc_tensor *shape = val ? tfc_kernel_alloc_output(c, 2, TFC_DT_INT64, &d1, 1) : NULL;
      if (!shape) return c->status->code;
      ((int64_t *)shape->data)[0] = x->dims[0];
      ((int64_t *)shape->data)[1] = max_cols;
    }
    int64_t k = 0;
    for (int64_t r = 0; r < x->n_elems; r++) {
      const tfc_tstring *s = str_at(x, r);
      int64_t cols = 0;
      size_t from = 0;
      for (size_t b = 0; b <= s->len; b++) {
        size_t to;
        if (!delim->len) { /* every byte its own token */
          if (b == s->len) break;
          from = b;
          to = b + 1;
        } else {
          if (b < s->len && !memchr(delim->data, s->data[b], delim->len)) continue;
          to = b;
        }
        if (to > from || !skip_empty) {
          if (pass) {
            ((int64_t *)ind->data)[2 * k] = r;
            ((int64_t *)ind->data)[2 * k + 1] = cols;
            TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(val)[k], s->data + from, to - from, c->status));
          }
          k++;
          cols++;
        }
        from = b + 1;
      }
      if (cols > max_cols) max_cols = cols;
    }
    total = k;
  }
  return TFC_OK;
}

#define HOST_ALL .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ReadFile, HOST_ALL, .flags = TFC_KF_EXPENSIVE, .compute = read_file_compute},
    {.op = TFC_OP_WriteFile, HOST_ALL, .flags = TFC_KF_EXPENSIVE, .compute = write_file_compute},
    {.op = TFC_OP_StringLength, HOST_ALL, .compute = string_length_compute},
    {.op = TFC_OP_AsString, HOST_ALL, .compute = as_string_compute},
    {.op = TFC_OP_Substr, HOST_ALL, .compute = substr_compute},
    {.op = TFC_OP_StringToNumber, HOST_ALL, .compute = string_to_number_compute},
    {.op = TFC_OP_EncodeBase64, HOST_ALL, .compute = encode_base64_compute},
    {.op = TFC_OP_DecodeBase64, HOST_ALL, .compute = decode_base64_compute},
    {.op = TFC_OP_StringSplit, HOST_ALL, .compute = string_split_compute},
};

int tfc_cpu_kernels_string(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
