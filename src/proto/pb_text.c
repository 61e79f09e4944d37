/* pb_text — see pb_text.h. */
#include "proto/pb_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- writer ---------------- */

static void indent(tfc_strbuf *b, int depth) {
  for (int i = 0; i < depth; i++) tfc_strbuf_puts(b, "  ");
}

static void put_escaped(tfc_strbuf *b, const uint8_t *p, size_t n) {
  tfc_strbuf_puts(b, "\"");
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    switch (c) {
      case '\n': tfc_strbuf_puts(b, "\\n"); break;
      case '\r': tfc_strbuf_puts(b, "\\r"); break;
      case '\t': tfc_strbuf_puts(b, "\\t"); break;
      case '"': tfc_strbuf_puts(b, "\\\""); break;
      case '\'': tfc_strbuf_puts(b, "\\'"); break;
      case '\\': tfc_strbuf_puts(b, "\\\\"); break;
      default:
        if (c < 0x20 || c >= 0x7f) tfc_strbuf_printf(b, "\\%03o", c);
        else tfc_strbuf_append(b, &c, 1);
    }
  }
  tfc_strbuf_puts(b, "\"");
}

static void put_real(tfc_strbuf *b, double v, int is_double) {
  if (isnan(v)) { tfc_strbuf_puts(b, "nan"); return; }
  if (isinf(v)) { tfc_strbuf_puts(b, v < 0 ? "-inf" : "inf"); return; }
  char buf[64];
  snprintf(buf, sizeof buf, is_double ? "%.15g" : "%.6g", v);
  int exact = is_double ? strtod(buf, NULL) == v : strtof(buf, NULL) == (float)v;
  if (!exact) snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
  tfc_strbuf_puts(b, buf);
}

static void write_msg(const ProtobufCMessage *m, tfc_strbuf *b, int depth);

static void write_value(const ProtobufCFieldDescriptor *f, const void *p, tfc_strbuf *b, int depth) {
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
    indent(b, depth);
    tfc_strbuf_printf(b, "%s {\n", f->name);
    write_msg(*(ProtobufCMessage *const *)p, b, depth + 1);
    indent(b, depth);
    tfc_strbuf_puts(b, "}\n");
    return;
  }
  indent(b, depth);
  tfc_strbuf_printf(b, "%s: ", f->name);
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
      tfc_strbuf_printf(b, "%d", *(const int32_t *)p); break;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
      tfc_strbuf_printf(b, "%u", *(const uint32_t *)p); break;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
      tfc_strbuf_printf(b, "%lld", (long long)*(const int64_t *)p); break;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
      tfc_strbuf_printf(b, "%llu", (unsigned long long)*(const uint64_t *)p); break;
    case PROTOBUF_C_TYPE_FLOAT: put_real(b, *(const float *)p, 0); break;
    case PROTOBUF_C_TYPE_DOUBLE: put_real(b, *(const double *)p, 1); break;
    case PROTOBUF_C_TYPE_BOOL: tfc_strbuf_puts(b, *(const protobuf_c_boolean *)p ? "true" : "false"); break;
    case PROTOBUF_C_TYPE_ENUM: {
      int v = *(const int *)p;
      const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, v);
      if (ev) tfc_strbuf_puts(b, ev->name);
      else tfc_strbuf_printf(b, "%d", v);
      break;
    }
    case PROTOBUF_C_TYPE_STRING: {
      const char *str = *(const char *const *)p;
      put_escaped(b, (const uint8_t *)(str ? str : ""), str ? strlen(str) : 0);
      break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *d = p;
      put_escaped(b, d->data, d->len);
      break;
    }
    default: break;
  }
  tfc_strbuf_puts(b, "\n");
}

static size_t type_size(ProtobufCType t) {
  switch (t) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: return 8;
    case PROTOBUF_C_TYPE_DOUBLE: return sizeof(double);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_ENUM: return sizeof(int);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    default: return 4;
  }
}

/* Whether a singular proto3 field holds its zero value (and so is not printed). */
static int is_zero(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *str = *(const char *const *)p;
      return !str || !*str;
    }
    case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)p)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE: return *(ProtobufCMessage *const *)p == NULL;
    case PROTOBUF_C_TYPE_FLOAT: return *(const float *)p == 0 && !signbit(*(const float *)p);
    case PROTOBUF_C_TYPE_DOUBLE: return *(const double *)p == 0 && !signbit(*(const double *)p);
    default: {
      static const uint8_t zeros[16];
      return memcmp(p, zeros, type_size(f->type)) == 0;
    }
  }
}

static void write_msg(const ProtobufCMessage *m, tfc_strbuf *b, int depth) {
  if (!m) return;
  const ProtobufCMessageDescriptor *d = m->descriptor;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    const char *base = (const char *)m;
    const void *p = base + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + f->quantifier_offset);
      const char *arr = *(char *const *)p;
      for (size_t k = 0; k < n; k++) write_value(f, arr + k * type_size(f->type), b, depth);
      continue;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      if (*(const uint32_t *)(base + f->quantifier_offset) != f->id) continue;
    } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset) {
      if (!*(const protobuf_c_boolean *)(base + f->quantifier_offset)) continue;
    } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && (f->type == PROTOBUF_C_TYPE_MESSAGE ||
                                                         f->type == PROTOBUF_C_TYPE_STRING)) {
      if (!*(void *const *)p) continue;
    } else if (f->label == PROTOBUF_C_LABEL_NONE && is_zero(f, p)) {
      continue;
    }
    write_value(f, p, b, depth);
  }
}

void tfc_pb_text_write(const ProtobufCMessage *m, tfc_strbuf *out) { write_msg(m, out, 0); }

/* ---------------- reader ---------------- */

typedef struct reader {
  const char *p, *end;
  int line;
  const char *line_start;
  tfc_status *s;
  int depth;
} reader;

static void skip(reader *r);

/* TF's parser errors: "<line>(<column>): <message>\n", both 1-based, at the token where the
 * parser stood. */
static int fail_msg(reader *r, const char *msg) {
  skip(r);
  return tfc_status_set(r->s, TFC_INVALID_ARGUMENT, "%d(%d): %s\n", r->line, (int)(r->p - r->line_start) + 1, msg);
}

/* The token at the reader (for "got: ..."), without consuming it. */
static void next_token_text(reader *r, char *buf, size_t cap) {
  skip(r);
  const char *q = r->p;
  size_t n = 0;
  if (q < r->end && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.')) {
    while (q < r->end && (isalnum((unsigned char)*q) || strchr("_.+-", *q)) && n + 1 < cap) buf[n++] = *q++;
  } else if (q < r->end && n + 1 < cap) {
    buf[n++] = *q;
  }
  buf[n] = '\0';
}

static int fail(reader *r, const char *expected, const char *field) {
  (void)field;
  char got[64], msg[160];
  next_token_text(r, got, sizeof got);
  snprintf(msg, sizeof msg, "Expected %s, got: %s", expected, got);
  return fail_msg(r, msg);
}

static void skip(reader *r) {
  while (r->p < r->end) {
    char c = *r->p;
    if (c == '\n') r->line++, r->line_start = r->p + 1;
    if (c == '#') {
      while (r->p < r->end && *r->p != '\n') r->p++;
      continue;
    }
    if (!isspace((unsigned char)c)) return;
    r->p++;
  }
}

static int peek(reader *r) {
  skip(r);
  return r->p < r->end ? (unsigned char)*r->p : -1;
}

/* An identifier or number-ish token into buf. */
static int token(reader *r, char *buf, size_t cap) {
  skip(r);
  size_t n = 0;
  while (r->p < r->end && (isalnum((unsigned char)*r->p) || strchr("_.+-", *r->p))) {
    if (n + 1 < cap) buf[n++] = *r->p;
    r->p++;
  }
  buf[n] = '\0';
  return n > 0;
}

/* One or more adjacent quoted strings, C escapes decoded, into a new malloc'd buffer. */
static int quoted(reader *r, uint8_t **out, size_t *out_len) {
  size_t cap = 64, n = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) return TFC_OOM(r->s);
  while (peek(r) == '"' || peek(r) == '\'') {
    char q = *r->p++;
    for (;;) {
      if (r->p >= r->end || *r->p == '\n') {
        free(buf);
        return fail_msg(r, "String literals cannot cross line boundaries.");
      }
      char c = *r->p++;
      if (c == q) break;
      uint8_t v = (uint8_t)c;
      if (c == '\\' && r->p < r->end) {
        char e = *r->p++;
        switch (e) {
          case 'n': v = '\n'; break;
          case 'r': v = '\r'; break;
          case 't': v = '\t'; break;
          case 'a': v = '\a'; break;
          case 'b': v = '\b'; break;
          case 'f': v = '\f'; break;
          case 'v': v = '\v'; break;
          case 'x': {
            int x = 0, k = 0;
            while (k < 2 && r->p < r->end && isxdigit((unsigned char)*r->p)) {
              char h = *r->p++;
              x = x * 16 + (isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
              k++;
            }
            v = (uint8_t)x;
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              int o = e - '0', k = 1;
              while (k < 3 && r->p < r->end && *r->p >= '0' && *r->p <= '7') o = o * 8 + (*r->p++ - '0'), k++;
              v = (uint8_t)o;
            } else {
              v = (uint8_t)e;
            }
        }
      }
      if (n + 1 >= cap) {
        uint8_t *nb = realloc(buf, cap *= 2);
        if (!nb) {
          free(buf);
          return TFC_OOM(r->s);
        }
        buf = nb;
      }
      buf[n++] = v;
    }
  }
  buf[n] = '\0';
  *out = buf;
  *out_len = n;
  return TFC_OK;
}

static ProtobufCMessage *new_msg(const ProtobufCMessageDescriptor *d) {
  ProtobufCMessage *m = calloc(1, d->sizeof_message);
  if (m) d->message_init(m);
  return m;
}

static int read_fields(reader *r, ProtobufCMessage *m, int close);

/* Reads one value of field f into p (storage of the field's C type). */
static int read_value(reader *r, const ProtobufCFieldDescriptor *f, void *p) {
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
    if (peek(r) == ':') r->p++;
    int open = peek(r);
    if (open != '{' && open != '<') return fail(r, "\"{\"", f->name);
    r->p++;
    if (++r->depth > 100) return fail_msg(r, "Message is too deep");
    ProtobufCMessage *sub = new_msg(f->descriptor);
    if (!sub) return TFC_OOM(r->s);
    *(ProtobufCMessage **)p = sub;
    int rc = read_fields(r, sub, open == '{' ? '}' : '>');
    r->depth--;
    return rc;
  }
  if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES) {
    int c = peek(r);
    if (c != '"' && c != '\'') return fail(r, "string", f->name);
    uint8_t *data = NULL;
    size_t len = 0;
    TFC_TRY(quoted(r, &data, &len));
    if (f->type == PROTOBUF_C_TYPE_STRING) {
      char *old = *(char **)p;
      if (old && old != (const char *)f->default_value) free(old);
      *(char **)p = (char *)data;
    } else {
      ProtobufCBinaryData *bd = p;
      free(bd->data);
      bd->data = data;
      bd->len = len;
    }
    return TFC_OK;
  }
  char tok[128];
  if (!token(r, tok, sizeof tok)) return fail(r, "value", f->name);
  char *end = NULL;
  errno = 0;
  switch (f->type) {
    case PROTOBUF_C_TYPE_BOOL:
      if (!strcmp(tok, "true") || !strcmp(tok, "True") || !strcmp(tok, "t") || !strcmp(tok, "1"))
        *(protobuf_c_boolean *)p = 1;
      else if (!strcmp(tok, "false") || !strcmp(tok, "False") || !strcmp(tok, "f") || !strcmp(tok, "0"))
        *(protobuf_c_boolean *)p = 0;
      else {
        char msg[256];
        snprintf(msg, sizeof msg, "Invalid value for boolean field \"%s\". Value: \"%s\".", f->name, tok);
        return fail_msg(r, msg);
      }
      return TFC_OK;
    case PROTOBUF_C_TYPE_ENUM: {
      const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value_by_name(f->descriptor, tok);
      long v = ev ? ev->value : strtol(tok, &end, 10);
      if (!ev && (end == tok || *end)) {
        char msg[256];
        snprintf(msg, sizeof msg, "Unknown enumeration value of \"%s\" for field \"%s\".", tok, f->name);
        return fail_msg(r, msg);
      }
      *(int *)p = (int)v;
      return TFC_OK;
    }
    case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE: {
      size_t n = strlen(tok);
      if (n > 1 && (tok[n - 1] == 'f' || tok[n - 1] == 'F') && !strchr(tok, 'n')) tok[n - 1] = '\0';
      double v = strtod(tok, &end);
      if (end == tok || *end) return fail(r, "double", f->name);
      if (f->type == PROTOBUF_C_TYPE_FLOAT) *(float *)p = (float)v;
      else *(double *)p = v;
      return TFC_OK;
    }
    default: {
      long long v = strtoll(tok, &end, 0);
      if (end == tok || *end || errno) return fail(r, "integer", f->name);
      if (type_size(f->type) == 8) *(int64_t *)p = v;
      else *(int32_t *)p = (int32_t)v;
      return TFC_OK;
    }
  }
}

/* Appends one element to repeated field f and reads it. */
static int read_repeated(reader *r, ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  char *base = (char *)m;
  size_t *n = (size_t *)(base + f->quantifier_offset);
  char **arr = (char **)(base + f->offset);
  size_t es = type_size(f->type);
  char *na = realloc(*arr, es * (*n + 1));
  if (!na) return TFC_OOM(r->s);
  *arr = na;
  memset(na + es * *n, 0, es);
  if (f->type == PROTOBUF_C_TYPE_STRING) *(char **)(na + es * *n) = NULL;
  (*n)++;
  return read_value(r, f, na + es * (*n - 1));
}

static int read_field(reader *r, ProtobufCMessage *m) {
  char name[128];
  if (!token(r, name, sizeof name)) return fail(r, "identifier", NULL);
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
  if (!f) {
    char msg[256];
    snprintf(msg, sizeof msg, "Message type \"%s\" has no field named \"%s\".", m->descriptor->name, name);
    return fail_msg(r, msg);
  }
  if (f->type != PROTOBUF_C_TYPE_MESSAGE) {
    if (peek(r) != ':') return fail(r, "\":\"", f->name);
    r->p++;
  }
  char *base = (char *)m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    if (f->type == PROTOBUF_C_TYPE_MESSAGE && peek(r) == ':') r->p++;
    if (peek(r) == '[') {
      r->p++;
      if (peek(r) == ']') {
        r->p++;
        return TFC_OK;
      }
      for (;;) {
        TFC_TRY(read_repeated(r, m, f));
        int c = peek(r);
        r->p++;
        if (c == ']') return TFC_OK;
        if (c != ',') return fail(r, "\",\" or \"]\"", f->name);
      }
    }
    return read_repeated(r, m, f);
  }
  void *p = base + f->offset;
  if (f->type == PROTOBUF_C_TYPE_MESSAGE && *(ProtobufCMessage **)p) {
    /* A message field given twice merges in TF's parser; tfc keeps the last. */
    protobuf_c_message_free_unpacked(*(ProtobufCMessage **)p, NULL);
    *(ProtobufCMessage **)p = NULL;
  }
  TFC_TRY(read_value(r, f, p));
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) *(uint32_t *)(base + f->quantifier_offset) = f->id;
  else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset && f->type != PROTOBUF_C_TYPE_MESSAGE &&
           f->type != PROTOBUF_C_TYPE_STRING)
    *(protobuf_c_boolean *)(base + f->quantifier_offset) = 1;
  return TFC_OK;
}

static int read_fields(reader *r, ProtobufCMessage *m, int close) {
  for (;;) {
    int c = peek(r);
    if (c == -1) {
      if (close) return fail(r, "identifier", NULL);
      return TFC_OK;
    }
    if (close && c == close) {
      r->p++;
      return TFC_OK;
    }
    if (c == ',' || c == ';') {
      r->p++;
      continue;
    }
    TFC_TRY(read_field(r, m));
  }
}

ProtobufCMessage *tfc_pb_text_read(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
                                   tfc_status *s) {
  ProtobufCMessage *m = new_msg(desc);
  if (!m) {
    TFC_OOM(s);
    return NULL;
  }
  reader r = {text, text + len, 1, text, s, 0};
  if (read_fields(&r, m, 0) != TFC_OK) {
    protobuf_c_message_free_unpacked(m, NULL);
    return NULL;
  }
  return m;
}
