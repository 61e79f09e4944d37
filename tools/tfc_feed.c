/*
 * tfc_feed — the --feed VALUE parser (see tfc_feed.h for the syntax).
 *
 * One recursive-descent pass over the text. Lists record their length per depth the first
 * time that depth is seen and every later list at that depth must match; elements record the
 * depth they sit at, which must be the same for all of them and deeper than every list. So a
 * ragged or mixed value is refused where it goes wrong, not after. Each element converts to
 * the dtype as it is read, straight into the growing output buffer, with its own range check:
 * a value that does not fit is an error, never a wrap, a truncation or an infinity.
 */
#include "tfc_feed.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "tensor/dtype.h"

typedef struct parser {
  const char *p;
  TF_DataType dtype;
  size_t elem_size; /* 0 for strings */
  int leaf_depth;   /* depth of the elements; -1 until the first one */
  int list_depth;   /* lists seen at depths 0 .. list_depth - 1 */
  int64_t dims[TFC_FEED_MAX_DIMS]; /* -1 until a list at that depth closes */
  int64_t n_elems, cap;
  void *data;
  char **strings;
  size_t *lengths;
  char *err;
  size_t err_len;
} parser;

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->err, ps->err_len, fmt, ap);
  va_end(ap);
  return -1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static void skip_space(parser *ps) {
  while (is_space(*ps->p)) ps->p++;
}
/* A bare token (number or word) ends at a separator, a bracket, a quote or the end. */
static int ends_token(char c) { return !c || is_space(c) || c == ',' || c == '[' || c == ']' || c == '"' || c == '\''; }

/* Quotes at most 40 bytes of a token for a message. */
static void quote_token(const char *t, size_t len, char *buf, size_t n) {
  if (len > 40) snprintf(buf, n, "%.37s...", t);
  else snprintf(buf, n, "%.*s", (int)len, t);
}

static size_t elem_size(TF_DataType dt) {
  switch (dt) {
    case TF_BOOL: case TF_INT8: case TF_UINT8: return 1;
    case TF_INT16: case TF_UINT16: case TF_HALF: case TF_BFLOAT16: return 2;
    case TF_INT32: case TF_UINT32: case TF_FLOAT: return 4;
    case TF_INT64: case TF_UINT64: case TF_DOUBLE: return 8;
    default: return 0;
  }
}

/* Room for one more element; -1 when out of memory. */
static int reserve(parser *ps) {
  if (ps->n_elems < ps->cap) return 0;
  int64_t cap = ps->cap ? 2 * ps->cap : 16;
  if (ps->dtype == TF_STRING) {
    char **s = realloc(ps->strings, sizeof *s * (size_t)cap);
    if (!s) return fail(ps, "out of memory");
    ps->strings = s;
    size_t *l = realloc(ps->lengths, sizeof *l * (size_t)cap);
    if (!l) return fail(ps, "out of memory");
    ps->lengths = l;
  } else {
    void *d = realloc(ps->data, ps->elem_size * (size_t)cap);
    if (!d) return fail(ps, "out of memory");
    ps->data = d;
  }
  ps->cap = cap;
  return 0;
}

/* ---- numbers ------------------------------------------------------------------------------ */

/* Integer dtypes: the range and whether the dtype is signed. */
static void int_range(TF_DataType dt, int64_t *lo, uint64_t *hi) {
  switch (dt) {
    case TF_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case TF_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case TF_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case TF_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case TF_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case TF_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case TF_UINT64: *lo = 0, *hi = UINT64_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
  }
}

/* The whole token as a double (strtod's syntax, so "inf" and "nan" too). Returns 0, or -1 with
 * "<shown> is not a number". */
static int read_double(parser *ps, const char *t, size_t len, const char *shown, double *out) {
  char buf[128];
  char *end = NULL;
  if (len < sizeof buf) {
    memcpy(buf, t, len);
    buf[len] = '\0';
    *out = strtod(buf, &end);
  }
  if (!end || end != buf + len || end == buf)
    return fail(ps, "%s is not a number (the feed is %s)", shown, tfc_dtype_name(ps->dtype));
  return 0;
}

/* The token as an exact integer: digits, or a float literal with an integral value ("1e3").
 * Sets *neg and *mag (|value|). Returns 0, or -1 with a reason. */
static int read_integer(parser *ps, const char *t, size_t len, const char *shown, int *neg, uint64_t *mag) {
  const char *d = t;
  *neg = *d == '-';
  if (*d == '-' || *d == '+') d++;
  size_t nd = strspn(d, "0123456789");
  if (nd > 0 && d + nd == t + len) {
    errno = 0;
    *mag = strtoull(d, NULL, 10);
    if (errno == ERANGE) return fail(ps, "%s is out of range for %s", shown, tfc_dtype_name(ps->dtype));
    return 0;
  }
  double v = 0;
  if (read_double(ps, t, len, shown, &v)) return -1;
  if (isnan(v) || isinf(v) || v != floor(v))
    return fail(ps, "%s is not an integer (the feed is %s)", shown, tfc_dtype_name(ps->dtype));
  *neg = v < 0;
  double a = fabs(v);
  if (a >= 18446744073709551616.0) return fail(ps, "%s is out of range for %s", shown, tfc_dtype_name(ps->dtype));
  *mag = (uint64_t)a;
  return 0;
}

static int put_integer(parser *ps, const char *t, size_t len, const char *shown) {
  int neg = 0;
  uint64_t mag = 0;
  if (read_integer(ps, t, len, shown, &neg, &mag)) return -1;
  int64_t lo;
  uint64_t hi;
  int_range(ps->dtype, &lo, &hi);
  int fits = neg ? (lo < 0 && mag <= (uint64_t)(-(lo + 1)) + 1) || mag == 0 : mag <= hi;
  if (!fits) {
    if (lo < 0) return fail(ps, "%s is out of range for %s [%lld, %llu]", shown, tfc_dtype_name(ps->dtype), (long long)lo, (unsigned long long)hi);
    return fail(ps, "%s is out of range for %s [0, %llu]", shown, tfc_dtype_name(ps->dtype), (unsigned long long)hi);
  }
  /* Two's complement of the magnitude: exact for every value that fits. */
  uint64_t u = neg ? (uint64_t)0 - mag : mag;
  void *at = (char *)ps->data + ps->elem_size * (size_t)ps->n_elems;
  switch (ps->elem_size) {
    case 1: *(uint8_t *)at = (uint8_t)u; break;
    case 2: *(uint16_t *)at = (uint16_t)u; break;
    case 4: *(uint32_t *)at = (uint32_t)u; break;
    default: *(uint64_t *)at = u; break;
  }
  return 0;
}

static int put_float(parser *ps, const char *t, size_t len, const char *shown) {
  double v = 0;
  if (read_double(ps, t, len, shown, &v)) return -1;
  void *at = (char *)ps->data + ps->elem_size * (size_t)ps->n_elems;
  float f = (float)v;
  int overflow = isinf(v) ? !memchr(t, 'i', len) && !memchr(t, 'I', len) : 0; /* a literal inf is meant */
  switch (ps->dtype) {
    case TF_DOUBLE: *(double *)at = v; break;
    case TF_FLOAT: *(float *)at = f; overflow |= isinf(f) && !isinf(v); break;
    case TF_HALF:
      *(uint16_t *)at = tfc_float_to_half(f);
      overflow |= (isinf(f) && !isinf(v)) || (!isinf(v) && (*(uint16_t *)at & 0x7fff) == 0x7c00);
      break;
    default: /* TF_BFLOAT16 */
      *(uint16_t *)at = tfc_float_to_bfloat16(f);
      overflow |= (isinf(f) && !isinf(v)) || (!isinf(v) && (*(uint16_t *)at & 0x7fff) == 0x7f80);
      break;
  }
  if (overflow) return fail(ps, "%s is out of range for %s", shown, tfc_dtype_name(ps->dtype));
  return 0;
}

static int put_bool(parser *ps, const char *t, size_t len, const char *shown) {
  static const char *const names[] = {"false", "False", "0", "true", "True", "1"};
  for (int i = 0; i < 6; i++)
    if (strlen(names[i]) == len && memcmp(names[i], t, len) == 0) {
      ((uint8_t *)ps->data)[ps->n_elems] = i >= 3;
      return 0;
    }
  return fail(ps, "%s is not a bool (true, false, 1 or 0)", shown);
}

/* ---- strings ------------------------------------------------------------------------------ */

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads the quoted string at ps->p (which is at the quote) and appends it as an element. */
static int put_quoted(parser *ps) {
  const char *start = ps->p;
  char q = *ps->p++;
  size_t cap = 16, n = 0;
  char *s = malloc(cap);
  if (!s) return fail(ps, "out of memory");
  for (;;) {
    char c = *ps->p;
    if (!c) {
      free(s);
      char shown[64];
      quote_token(start, strlen(start), shown, sizeof shown);
      return fail(ps, "unterminated string %s (no closing %c)", shown, q);
    }
    ps->p++;
    if (c == q) break;
    if (c == '\\') {
      char e = *ps->p;
      if (e) ps->p++;
      switch (e) {
        case '\\': case '"': case '\'': c = e; break;
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case '0': c = '\0'; break;
        case 'a': c = '\a'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'v': c = '\v'; break;
        case 'x': {
          int hi = hex_digit(ps->p[0]), lo = hi < 0 ? -1 : hex_digit(ps->p[1]);
          if (hi < 0 || lo < 0) {
            free(s);
            return fail(ps, "bad escape in string: \\x wants two hex digits");
          }
          c = (char)(hi << 4 | lo);
          ps->p += 2;
          break;
        }
        default:
          free(s);
          if (!e) return fail(ps, "unterminated string (it ends in a backslash)");
          return fail(ps, "unknown escape \\%c in string", e);
      }
    }
    if (n + 1 >= cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) {
        free(s);
        return fail(ps, "out of memory");
      }
      s = t;
    }
    s[n++] = c;
  }
  s[n] = '\0';
  if (ps->dtype != TF_STRING) {
    free(s);
    char shown[64];
    quote_token(start, (size_t)(ps->p - start), shown, sizeof shown);
    return fail(ps, "%s is a string, not a %s value", shown, tfc_dtype_name(ps->dtype));
  }
  ps->strings[ps->n_elems] = s;
  ps->lengths[ps->n_elems] = n;
  return 0;
}

static int put_bare_string(parser *ps, const char *t, size_t len) {
  char *s = malloc(len + 1);
  if (!s) return fail(ps, "out of memory");
  memcpy(s, t, len);
  s[len] = '\0';
  ps->strings[ps->n_elems] = s;
  ps->lengths[ps->n_elems] = len;
  return 0;
}

/* ---- structure ---------------------------------------------------------------------------- */

/* One element at `depth`: checks where it sits, then converts it. */
static int element(parser *ps, int depth) {
  if (ps->leaf_depth < 0) {
    if (depth < ps->list_depth) return fail(ps, "ragged value: a list and an element at the same depth");
    ps->leaf_depth = depth;
  } else if (depth != ps->leaf_depth) {
    return fail(ps, "ragged value: elements at depths %d and %d", ps->leaf_depth, depth);
  }
  if (reserve(ps)) return -1;
  int rc;
  if (*ps->p == '"' || *ps->p == '\'') {
    rc = put_quoted(ps);
  } else {
    const char *t = ps->p;
    while (!ends_token(*ps->p)) ps->p++;
    size_t len = (size_t)(ps->p - t);
    char shown[64];
    quote_token(t, len, shown, sizeof shown);
    switch (ps->dtype) {
      case TF_STRING: rc = fail(ps, "%s is not a quoted string (the feed is string)", shown); break;
      case TF_BOOL: rc = put_bool(ps, t, len, shown); break;
      case TF_FLOAT: case TF_DOUBLE: case TF_HALF: case TF_BFLOAT16: rc = put_float(ps, t, len, shown); break;
      default: rc = put_integer(ps, t, len, shown); break;
    }
  }
  if (rc == 0) ps->n_elems++;
  return rc;
}

/* The list at ps->p (at '[') at `depth`. */
static int list(parser *ps, int depth) {
  if (depth >= TFC_FEED_MAX_DIMS) return fail(ps, "nested deeper than %d dims", TFC_FEED_MAX_DIMS);
  if (ps->leaf_depth >= 0 && depth >= ps->leaf_depth)
    return fail(ps, "ragged value: a list where an element was expected");
  ps->p++;
  int64_t count = 0;
  skip_space(ps);
  while (*ps->p != ']') {
    if (!*ps->p) return fail(ps, "missing ']'");
    if (*ps->p == ',') return fail(ps, "unexpected ',' (an element is missing)");
    if (*ps->p == '[' ? list(ps, depth + 1) : element(ps, depth + 1)) return -1;
    count++;
    int separated = is_space(*ps->p);
    skip_space(ps);
    if (*ps->p == ',') {
      ps->p++;
      separated = 1;
      skip_space(ps);
    }
    if (!separated && *ps->p && *ps->p != ']') return fail(ps, "expected ',' or ']' after element %lld of a list", (long long)count);
  }
  ps->p++;
  if (ps->dims[depth] < 0) {
    ps->dims[depth] = count;
    if (depth + 1 > ps->list_depth) ps->list_depth = depth + 1;
  } else if (ps->dims[depth] != count) {
    return fail(ps, "ragged value: lists of %lld and %lld elements at depth %d", (long long)ps->dims[depth],
                (long long)count, depth + 1);
  }
  return 0;
}

static int parse(parser *ps, const char *text) {
  skip_space(ps);
  if (!*ps->p) return fail(ps, "empty value");
  const char *first = ps->p;
  if (*ps->p == '[') {
    if (list(ps, 0)) return -1;
  } else if (ps->dtype == TF_STRING && *ps->p != '"' && *ps->p != '\'') {
    if (reserve(ps) || put_bare_string(ps, text, strlen(text))) return -1;
    ps->n_elems++;
    ps->leaf_depth = 0;
    return 0;
  } else {
    if (*ps->p == ']' || *ps->p == ',') return fail(ps, "unexpected '%c' at the start of the value", *ps->p);
    if (element(ps, 0)) return -1;
  }
  skip_space(ps);
  if (*ps->p) {
    char rest[64];
    quote_token(ps->p, strlen(ps->p), rest, sizeof rest);
    if (*first != '[' && *ps->p == ',')
      return fail(ps, "unexpected '%s' after the first element (a list needs brackets: [%s])", rest, first);
    return fail(ps, "unexpected '%s' after the value", rest);
  }
  /* Only empty lists: the shape is their nesting. */
  if (ps->leaf_depth < 0) ps->leaf_depth = ps->list_depth;
  return 0;
}

int tfc_feed_parse(const char *text, TF_DataType dtype, tfc_feed_value *out, char *err, size_t err_len) {
  memset(out, 0, sizeof *out);
  parser ps = {.p = text, .dtype = dtype, .elem_size = elem_size(dtype), .leaf_depth = -1, .err = err, .err_len = err_len};
  if (err_len) err[0] = '\0';
  for (int i = 0; i < TFC_FEED_MAX_DIMS; i++) ps.dims[i] = -1;
  if (dtype != TF_STRING && ps.elem_size == 0) {
    fail(&ps, "values of dtype %s cannot be given on the command line", tfc_dtype_name((int)dtype));
  } else if (parse(&ps, text) == 0) {
    out->dtype = dtype;
    out->n_dims = ps.leaf_depth;
    memcpy(out->dims, ps.dims, sizeof out->dims);
    out->n_elems = ps.n_elems;
    out->data = ps.data;
    out->strings = ps.strings;
    out->lengths = ps.lengths;
    if (dtype != TF_STRING && !out->data && !(out->data = malloc(1))) {
      fail(&ps, "out of memory");
      return -1;
    }
    return 0;
  }
  tfc_feed_value v = {.dtype = dtype, .n_elems = ps.n_elems, .data = ps.data, .strings = ps.strings, .lengths = ps.lengths};
  tfc_feed_value_fini(&v);
  return -1;
}

void tfc_feed_value_fini(tfc_feed_value *v) {
  if (v->strings)
    for (int64_t i = 0; i < v->n_elems; i++) free(v->strings[i]);
  free(v->strings);
  free(v->lengths);
  free(v->data);
  memset(v, 0, sizeof *v);
}

void tfc_feed_shape_str(const int64_t *dims, int n_dims, char *buf, size_t buf_len) {
  size_t n = 0;
  n += (size_t)snprintf(buf, buf_len, "(");
  for (int i = 0; i < n_dims && n < buf_len; i++) {
    if (dims[i] < 0) n += (size_t)snprintf(buf + n, buf_len - n, "%s?", i ? ", " : "");
    else n += (size_t)snprintf(buf + n, buf_len - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
  }
  if (n < buf_len) snprintf(buf + n, buf_len - n, n_dims == 1 ? ",)" : ")");
}
