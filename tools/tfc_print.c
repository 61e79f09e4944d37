/*
 * tfc_print — numpy's array printing, for the tensors `tfc run` fetches (see tfc_print.h).
 *
 * Two passes, as numpy's array2string: the first visits the elements that will be shown
 * (all, or the edges of a summarized tensor) and fixes one format for all of them (the
 * widths, and for floats positional or scientific and the digits); the second lays them out
 * with numpy's _formatArray rules: nested brackets, one blank line more per outer axis, "..."
 * for the summarized middle, and wrapping of the innermost axis at 75 columns under a
 * hanging indent.
 *
 * Shortest digits: the fewest digits printf needs for the text to read back as the same
 * value of the tensor's type (float, double, half or bfloat16), which is what numpy's Dragon4
 * "unique" mode prints.
 */
#include "tfc_print.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "tensor/dtype.h"

enum {
  LINE_WIDTH = 75, /* numpy's default linewidth */
  THRESHOLD = 1000, /* numpy's default threshold: more elements than this are summarized */
  EDGE_ITEMS = 3,   /* numpy's default edgeitems */
  MAX_FRAC = 8,     /* numpy's default precision: digits after the point in an array */
  MAX_DIMS = 32
};

enum kind { K_INT, K_UINT, K_BOOL, K_FLOAT, K_COMPLEX, K_STRING, K_OTHER };
/* The type whose values a float text must read back to. */
enum ftype { FT_HALF, FT_BF16, FT_FLOAT, FT_DOUBLE };

/* A growing string; on allocation failure it stops growing and remembers. */
typedef struct sb {
  char *p;
  size_t n, cap;
  int oom;
} sb;

static void sb_putn(sb *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}
static void sb_puts(sb *b, const char *s) { sb_putn(b, s, strlen(s)); }
static void sb_spaces(sb *b, int n) {
  for (int i = 0; i < n; i++) sb_putn(b, " ", 1);
}

/* One float format shared by all shown elements (numpy's FloatingFormat). */
typedef struct floatfmt {
  int exp_format;
  int pad_left, pad_right; /* widths before and after the point */
  int precision, exp_size; /* scientific: digits after the point, exponent digits */
  int sign_plus;           /* print '+' on positives (the imaginary part of a complex) */
} floatfmt;

typedef struct printer {
  const TF_Tensor *t;
  enum kind kind;
  enum ftype ft;
  int nd;
  int64_t dims[MAX_DIMS], strides[MAX_DIMS], n;
  int summarize;
  int int_width;
  floatfmt re, im;
  /* strings: the tensor's offset table and payload */
  const char *sdata;
  size_t slen;
} printer;

/* ---- element values --------------------------------------------------------------------- */

static double float_at(const printer *pr, int64_t i) {
  const void *d = TF_TensorData(pr->t);
  switch (TF_TensorType(pr->t)) {
    case TF_HALF: return tfc_half_to_float(((const uint16_t *)d)[i]);
    case TF_BFLOAT16: return tfc_bfloat16_to_float(((const uint16_t *)d)[i]);
    case TF_FLOAT: case TF_COMPLEX64: return ((const float *)d)[i];
    default: return ((const double *)d)[i];
  }
}

static int64_t int_at(const printer *pr, int64_t i) {
  const void *d = TF_TensorData(pr->t);
  switch (TF_TensorType(pr->t)) {
    case TF_INT8: return ((const int8_t *)d)[i];
    case TF_INT16: return ((const int16_t *)d)[i];
    case TF_INT32: return ((const int32_t *)d)[i];
    default: return ((const int64_t *)d)[i];
  }
}

static uint64_t uint_at(const printer *pr, int64_t i) {
  const void *d = TF_TensorData(pr->t);
  switch (TF_TensorType(pr->t)) {
    case TF_UINT8: return ((const uint8_t *)d)[i];
    case TF_UINT16: return ((const uint16_t *)d)[i];
    case TF_UINT32: return ((const uint32_t *)d)[i];
    default: return ((const uint64_t *)d)[i];
  }
}

/* ---- shortest float text ---------------------------------------------------------------- */

static int reads_back(double v, const char *text, enum ftype ft) {
  double r = strtod(text, NULL);
  switch (ft) {
    case FT_DOUBLE: return r == v;
    case FT_FLOAT: return (float)r == (float)v;
    case FT_HALF: return tfc_float_to_half((float)r) == tfc_float_to_half((float)v);
    default: return tfc_float_to_bfloat16((float)r) == tfc_float_to_bfloat16((float)v);
  }
}

/* v (finite) positionally with the fewest digits after the point (at most max_frac) that
 * read back as v, trailing zeros trimmed and the point kept: "2.", "-0.25". */
static void positional(double v, enum ftype ft, int max_frac, int sign_plus, char *out, size_t n) {
  int p = 0;
  while (p < max_frac) {
    snprintf(out, n, "%.*f", p, v);
    if (reads_back(v, out, ft)) break;
    p++;
  }
  snprintf(out, n, sign_plus ? "%+.*f" : "%.*f", p, v);
  size_t len = strlen(out);
  if (p == 0) {
    if (len + 1 < n) out[len++] = '.', out[len] = '\0';
  } else {
    while (out[len - 1] == '0') out[--len] = '\0';
  }
}

/* v (finite) in scientific notation with the fewest mantissa digits (at most max_frac after
 * the point) that read back as v: the mantissa without trailing zeros into mant ("1.5", "-2")
 * and the decimal exponent into *exp10. Returns the digits after the point. */
static int scientific(double v, enum ftype ft, int max_frac, int sign_plus, char *mant, size_t n, int *exp10) {
  char buf[64];
  int p = 0;
  while (p < max_frac) {
    snprintf(buf, sizeof buf, "%.*e", p, v);
    if (reads_back(v, buf, ft)) break;
    p++;
  }
  snprintf(buf, sizeof buf, sign_plus ? "%+.*e" : "%.*e", p, v);
  char *e = strchr(buf, 'e');
  *exp10 = atoi(e + 1);
  *e = '\0';
  char *dot = strchr(buf, '.');
  if (dot) {
    char *end = e - 1;
    while (end > dot && *end == '0') *end-- = '\0';
    if (end == dot) *end = '\0';
  }
  snprintf(mant, n, "%s", buf);
  dot = strchr(mant, '.');
  return dot ? (int)strlen(dot + 1) : 0;
}

static int digits10(int v) {
  int d = 1;
  for (v = abs(v); v >= 10; v /= 10) d++;
  return d;
}

/* ---- pass 1: one format for the shown elements -------------------------------------------- */

/* Calls fn on the flat index of every element that will be shown, in order. */
typedef void (*visit_fn)(printer *pr, int64_t i, void *arg);
static void visit(printer *pr, int axis, int64_t off, visit_fn fn, void *arg) {
  if (axis == pr->nd) {
    fn(pr, off, arg);
    return;
  }
  int64_t len = pr->dims[axis];
  for (int64_t i = 0; i < len; i++) {
    if (pr->summarize && len > 2 * EDGE_ITEMS && i == EDGE_ITEMS) i = len - EDGE_ITEMS;
    visit(pr, axis + 1, off + i * pr->strides[axis], fn, arg);
  }
}

typedef struct float_scan {
  int part; /* complex: 0 real, 1 imaginary */
  double min_abs, max_abs;
  int n_finite, any_nonfinite, neg_inf;
  floatfmt *f;
} float_scan;

static double component(const printer *pr, int64_t i, int part) {
  return pr->kind == K_COMPLEX ? float_at(pr, 2 * i + part) : float_at(pr, i);
}

static void scan_range(printer *pr, int64_t i, void *arg) {
  float_scan *fs = arg;
  double v = component(pr, i, fs->part);
  if (!isfinite(v)) {
    fs->any_nonfinite = 1;
    fs->neg_inf |= isinf(v) && v < 0;
    return;
  }
  fs->n_finite++;
  double a = fabs(v);
  if (a == 0) return;
  if (fs->min_abs == 0 || a < fs->min_abs) fs->min_abs = a;
  if (a > fs->max_abs) fs->max_abs = a;
}

static void scan_widths(printer *pr, int64_t i, void *arg) {
  float_scan *fs = arg;
  floatfmt *f = fs->f;
  double v = component(pr, i, fs->part);
  if (!isfinite(v)) return;
  char text[512];
  if (f->exp_format) {
    int e;
    int frac = scientific(v, pr->ft, MAX_FRAC, f->sign_plus, text, sizeof text, &e);
    int left = (int)(strchr(text, '.') ? (size_t)(strchr(text, '.') - text) : strlen(text));
    if (frac > f->precision) f->precision = frac;
    if (left > f->pad_left) f->pad_left = left;
    if (digits10(e) > f->exp_size) f->exp_size = digits10(e);
  } else {
    positional(v, pr->ft, MAX_FRAC, f->sign_plus, text, sizeof text);
    char *dot = strchr(text, '.');
    int left = (int)(dot - text), right = (int)strlen(dot + 1);
    if (left > f->pad_left) f->pad_left = left;
    if (right > f->pad_right) f->pad_right = right;
  }
}

/* numpy's FloatingFormat.fillFormat over the shown values of one part. */
static void fill_float_format(printer *pr, int part, int sign_plus, floatfmt *f) {
  memset(f, 0, sizeof *f);
  f->sign_plus = sign_plus;
  float_scan fs = {.part = part, .f = f};
  visit(pr, 0, 0, scan_range, &fs);
  /* numpy 2's cutoff: 10 ** min(8, the type's decimal precision) (half 3, bfloat16 2, float 6). */
  double cutoff = pr->ft == FT_HALF ? 1e3 : pr->ft == FT_BF16 ? 1e2 : pr->ft == FT_FLOAT ? 1e6 : 1e8;
  if (fs.max_abs > 0 && (fs.max_abs >= cutoff || fs.min_abs < 1e-4 || fs.max_abs / fs.min_abs > 1e3)) f->exp_format = 1;
  if (fs.n_finite > 0) {
    f->exp_size = 2; /* numpy's exponents have at least two digits */
    visit(pr, 0, 0, scan_widths, &fs);
    if (f->exp_format) f->pad_right = f->exp_size + 2 + f->precision;
  }
  if (fs.any_nonfinite) {
    int offset = f->pad_right + 1, inflen = 3 + (fs.neg_inf || sign_plus);
    if (3 - offset > f->pad_left) f->pad_left = 3 - offset;
    if (inflen - offset > f->pad_left) f->pad_left = inflen - offset;
  }
}

static void scan_ints(printer *pr, int64_t i, void *arg) {
  (void)arg;
  char text[32];
  int w = pr->kind == K_INT ? snprintf(text, sizeof text, "%lld", (long long)int_at(pr, i))
                            : snprintf(text, sizeof text, "%llu", (unsigned long long)uint_at(pr, i));
  if (w > pr->int_width) pr->int_width = w;
}

/* ---- elements --------------------------------------------------------------------------- */

static void put_float(const printer *pr, const floatfmt *f, double v, sb *out) {
  char text[512];
  if (!isfinite(v)) {
    const char *s = isnan(v) ? (f->sign_plus ? "+nan" : "nan") : v < 0 ? "-inf" : f->sign_plus ? "+inf" : "inf";
    sb_spaces(out, f->pad_left + f->pad_right + 1 - (int)strlen(s));
    sb_puts(out, s);
  } else if (f->exp_format) {
    /* All elements show `precision` digits: real digits, as Dragon4's min_digits gives. */
    snprintf(text, sizeof text, f->sign_plus ? "%+#.*e" : "%#.*e", f->precision, v);
    char *e = strchr(text, 'e'), *dot = strchr(text, '.');
    int exp10 = atoi(e + 1);
    sb_spaces(out, f->pad_left - (int)(dot - text));
    sb_putn(out, text, (size_t)(e - text));
    snprintf(text, sizeof text, "e%c%0*d", exp10 < 0 ? '-' : '+', f->exp_size, abs(exp10));
    sb_puts(out, text);
  } else {
    positional(v, pr->ft, MAX_FRAC, f->sign_plus, text, sizeof text);
    char *dot = strchr(text, '.');
    int left = (int)(dot - text), right = (int)strlen(dot + 1);
    sb_spaces(out, f->pad_left - left);
    sb_puts(out, text);
    sb_spaces(out, f->pad_right - right);
  }
}

/* Python's repr of a bytes object. */
static void put_bytes(const char *s, size_t len, sb *out) {
  char q = memchr(s, '\'', len) && !memchr(s, '"', len) ? '"' : '\'';
  char buf[8];
  snprintf(buf, sizeof buf, "b%c", q);
  sb_puts(out, buf);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\' || c == (unsigned char)q) snprintf(buf, sizeof buf, "\\%c", c);
    else if (c == '\n') snprintf(buf, sizeof buf, "\\n");
    else if (c == '\r') snprintf(buf, sizeof buf, "\\r");
    else if (c == '\t') snprintf(buf, sizeof buf, "\\t");
    else if (c < 0x20 || c >= 0x7f) snprintf(buf, sizeof buf, "\\x%02x", c);
    else snprintf(buf, sizeof buf, "%c", c);
    sb_puts(out, buf);
  }
  snprintf(buf, sizeof buf, "%c", q);
  sb_puts(out, buf);
}

/* Element i of a TF 1.x string tensor: the offset table, then varint-prefixed bytes. */
static void put_string(const printer *pr, int64_t i, sb *out) {
  uint64_t off;
  memcpy(&off, pr->sdata + 8 * i, sizeof off);
  size_t base = 8 * (size_t)pr->n;
  const char *dst = NULL;
  size_t dst_len = 0;
  TF_Status *s = TF_NewStatus();
  if (base + off <= pr->slen) TF_StringDecode(pr->sdata + base + off, pr->slen - base - off, &dst, &dst_len, s);
  if (dst && TF_GetCode(s) == TF_OK) put_bytes(dst, dst_len, out);
  else sb_puts(out, "<undecodable string>");
  TF_DeleteStatus(s);
}

/* numpy's str() of one 0-d float: shortest digits, positional inside [1e-4, cutoff) where the
 * cutoff is 1e16 for double, 1e6 for float, 1e3 for half and 1e2 for bfloat16 (numpy's scalar
 * types: 10 ** the type's decimal precision, but 1e16 for double). */
static void put_float_scalar(const printer *pr, double v, sb *out) {
  char text[512];
  if (isnan(v)) {
    sb_puts(out, "nan");
    return;
  }
  if (isinf(v)) {
    sb_puts(out, v < 0 ? "-inf" : "inf");
    return;
  }
  double cutoff = pr->ft == FT_DOUBLE ? 1e16 : pr->ft == FT_FLOAT ? 1e6 : pr->ft == FT_HALF ? 1e3 : 1e2, a = fabs(v);
  if (a == 0 || (a >= 1e-4 && a < cutoff)) {
    positional(v, pr->ft, 400, 0, text, sizeof text);
    sb_puts(out, text);
    if (text[strlen(text) - 1] == '.') sb_puts(out, "0");
  } else {
    int e;
    scientific(v, pr->ft, 17, 0, text, sizeof text, &e);
    sb_puts(out, text);
    snprintf(text, sizeof text, "e%c%02d", e < 0 ? '-' : '+', abs(e));
    sb_puts(out, text);
  }
}

/* Python's repr of a complex scalar: (3+4j), 2.5j, (1-0.5j). */
static void put_complex_scalar(const printer *pr, double re, double im, sb *out) {
  sb r = {0}, i = {0};
  put_float_scalar(pr, re, &r);
  put_float_scalar(pr, im, &i);
  const sb *parts[2] = {&r, &i};
  for (int k = 0; k < 2; k++)
    if (parts[k]->n >= 2 && strcmp(parts[k]->p + parts[k]->n - 2, ".0") == 0) parts[k]->p[parts[k]->n - 2] = '\0';
  if (re == 0 && !signbit(re)) {
    sb_puts(out, i.p ? i.p : "");
    sb_puts(out, "j");
  } else {
    sb_puts(out, "(");
    sb_puts(out, r.p ? r.p : "");
    if (!(im < 0 || (im == 0 && signbit(im))) && !isnan(im)) sb_puts(out, "+");
    sb_puts(out, i.p ? i.p : "");
    sb_puts(out, "j)");
  }
  out->oom |= r.oom | i.oom;
  free(r.p);
  free(i.p);
}

static void put_element(const printer *pr, int64_t i, sb *out) {
  char text[64];
  switch (pr->kind) {
    case K_INT:
      snprintf(text, sizeof text, "%*lld", pr->nd ? pr->int_width : 0, (long long)int_at(pr, i));
      sb_puts(out, text);
      break;
    case K_UINT:
      snprintf(text, sizeof text, "%*llu", pr->nd ? pr->int_width : 0, (unsigned long long)uint_at(pr, i));
      sb_puts(out, text);
      break;
    case K_BOOL:
      sb_puts(out, ((const uint8_t *)TF_TensorData(pr->t))[i] ? (pr->nd ? " True" : "True") : "False");
      break;
    case K_FLOAT:
      if (pr->nd) put_float(pr, &pr->re, float_at(pr, i), out);
      else put_float_scalar(pr, float_at(pr, i), out);
      break;
    case K_COMPLEX: {
      double re = float_at(pr, 2 * i), im = float_at(pr, 2 * i + 1);
      if (!pr->nd) {
        put_complex_scalar(pr, re, im, out);
        break;
      }
      put_float(pr, &pr->re, re, out);
      sb im_text = {0};
      put_float(pr, &pr->im, im, &im_text);
      size_t end = im_text.n;
      while (end > 0 && im_text.p[end - 1] == ' ') end--;
      if (im_text.p) sb_putn(out, im_text.p, end);
      sb_puts(out, "j");
      if (im_text.p) sb_putn(out, im_text.p + end, im_text.n - end);
      out->oom |= im_text.oom;
      free(im_text.p);
      break;
    }
    case K_STRING: put_string(pr, i, out); break;
    default: break;
  }
}

/* ---- pass 2: numpy's _formatArray ------------------------------------------------------- */

/* numpy's _extendLine: word goes on the current line unless that would pass width and a new
 * line (starting with hang spaces) would help. */
static void extend_line(sb *s, sb *line, const sb *word, int width, int hang) {
  if ((int)(line->n + word->n) > width && (int)line->n > hang) {
    size_t end = line->n;
    while (end > 0 && line->p[end - 1] == ' ') end--;
    sb_putn(s, line->p, end);
    sb_puts(s, "\n");
    line->n = 0;
    sb_spaces(line, hang);
  }
  if (word->p) sb_putn(line, word->p, word->n);
  s->oom |= line->oom | word->oom;
}

/* The sub-array at flat offset off from `axis` on, appended to out. */
static void format_axis(const printer *pr, int axis, int64_t off, int hang, int width, sb *out) {
  if (axis == pr->nd) {
    put_element(pr, off, out);
    return;
  }
  int64_t len = pr->dims[axis];
  int summary = pr->summarize && len > 2 * EDGE_ITEMS;
  int64_t lead = summary ? EDGE_ITEMS : 0, trail = summary ? EDGE_ITEMS : len;
  sb s = {0};
  if (axis == pr->nd - 1) {
    int elem_width = width - 1; /* room for the closing ']' */
    sb line = {0};
    sb_spaces(&line, hang);
    for (int64_t k = 0; k < lead + trail; k++) {
      int64_t i = k < lead ? k : len - (lead + trail - k);
      sb word = {0};
      format_axis(pr, axis + 1, off + i * pr->strides[axis], hang + 1, width - 1, &word);
      extend_line(&s, &line, &word, elem_width, hang);
      free(word.p);
      if (k + 1 < lead + trail) sb_puts(&line, " ");
      if (summary && k + 1 == lead) {
        sb dots = {0};
        sb_puts(&dots, "...");
        extend_line(&s, &line, &dots, elem_width, hang);
        free(dots.p);
        sb_puts(&line, " ");
      }
    }
    if (line.p) sb_putn(&s, line.p, line.n);
    s.oom |= line.oom;
    free(line.p);
  } else {
    int blank = pr->nd - axis - 1; /* newlines between entries: 1 + one per axis further out */
    for (int64_t k = 0; k < lead + trail; k++) {
      int64_t i = k < lead ? k : len - (lead + trail - k);
      sb_spaces(&s, hang);
      format_axis(pr, axis + 1, off + i * pr->strides[axis], hang + 1, width - 1, &s);
      if (k + 1 < lead + trail)
        for (int b = 0; b < blank; b++) sb_puts(&s, "\n");
      if (summary && k + 1 == lead) {
        sb_spaces(&s, hang);
        sb_puts(&s, "...");
        for (int b = 0; b < blank; b++) sb_puts(&s, "\n");
      }
    }
  }
  sb_puts(out, "[");
  if (s.n > (size_t)hang) sb_putn(out, s.p + hang, s.n - (size_t)hang);
  sb_puts(out, "]");
  out->oom |= s.oom;
  free(s.p);
}

/* ---- entry -------------------------------------------------------------------------------- */

static enum kind kind_of(TF_DataType dt, enum ftype *ft) {
  *ft = FT_DOUBLE;
  switch (dt) {
    case TF_INT8: case TF_INT16: case TF_INT32: case TF_INT64: return K_INT;
    case TF_UINT8: case TF_UINT16: case TF_UINT32: case TF_UINT64: return K_UINT;
    case TF_BOOL: return K_BOOL;
    case TF_HALF: *ft = FT_HALF; return K_FLOAT;
    case TF_BFLOAT16: *ft = FT_BF16; return K_FLOAT;
    case TF_FLOAT: *ft = FT_FLOAT; return K_FLOAT;
    case TF_DOUBLE: return K_FLOAT;
    case TF_COMPLEX64: *ft = FT_FLOAT; return K_COMPLEX;
    case TF_COMPLEX128: return K_COMPLEX;
    case TF_STRING: return K_STRING;
    default: return K_OTHER;
  }
}

int tfc_print_tensor(FILE *f, const TF_Tensor *t, int print_all) {
  printer pr = {.t = t, .nd = TF_NumDims(t), .n = 1};
  pr.kind = kind_of(TF_TensorType(t), &pr.ft);
  if (pr.nd > MAX_DIMS) pr.kind = K_OTHER;
  for (int i = 0; i < pr.nd && i < MAX_DIMS; i++) {
    pr.dims[i] = TF_Dim(t, i);
    pr.n *= pr.dims[i];
  }
  for (int64_t i = pr.nd - 1, stride = 1; i >= 0 && i < MAX_DIMS; i--) {
    pr.strides[i] = stride;
    stride *= pr.dims[i];
  }
  if (pr.kind == K_OTHER) {
    fprintf(f, "<%d-d tensor of dtype %d, not printable>", pr.nd, (int)TF_TensorType(t));
    return 0;
  }
  if (pr.n == 0) {
    fputs("[]", f);
    return 0;
  }
  pr.summarize = !print_all && pr.n > THRESHOLD;
  pr.sdata = TF_TensorData(t);
  pr.slen = TF_TensorByteSize(t);
  if (pr.kind == K_INT || pr.kind == K_UINT) visit(&pr, 0, 0, scan_ints, NULL);
  if (pr.kind == K_FLOAT || pr.kind == K_COMPLEX) fill_float_format(&pr, 0, 0, &pr.re);
  if (pr.kind == K_COMPLEX) fill_float_format(&pr, 1, 1, &pr.im);
  sb out = {0};
  if (pr.nd == 0) put_element(&pr, 0, &out);
  else format_axis(&pr, 0, 0, 1, LINE_WIDTH, &out);
  if (out.oom) {
    free(out.p);
    return -1;
  }
  if (out.p) fputs(out.p, f);
  free(out.p);
  return 0;
}
