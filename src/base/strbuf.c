/* strbuf — see strbuf.h. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tfc_strbuf_init(tfc_strbuf *b) { memset(b, 0, sizeof *b); }

void tfc_strbuf_fini(tfc_strbuf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

static int reserve(tfc_strbuf *b, size_t extra) {
  if (b->oom) return 0;
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  char *d = realloc(b->data, cap);
  if (!d) { b->oom = 1; return 0; }
  b->data = d;
  b->cap = cap;
  return 1;
}

void tfc_strbuf_append(tfc_strbuf *b, const void *data, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void tfc_strbuf_puts(tfc_strbuf *b, const char *s) { tfc_strbuf_append(b, s, strlen(s)); }

void tfc_strbuf_printf(tfc_strbuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n >= 0 && reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

const char *tfc_strbuf_str(tfc_strbuf *b) { return b->data ? b->data : ""; }

char *tfc_strbuf_take(tfc_strbuf *b) {
  if (b->oom) { tfc_strbuf_fini(b); return NULL; }
  char *d = b->data ? b->data : strdup("");
  memset(b, 0, sizeof *b);
  return d;
}
