/*
 * strbuf — a growable byte string for building messages, dumps and names.
 * Caller storage: tfc_strbuf_init / tfc_strbuf_fini. On allocation failure the buffer sets
 * `oom` and further appends are ignored; callers check tfc_strbuf_ok once at the end.
 */
#ifndef TFC_BASE_STRBUF_H
#define TFC_BASE_STRBUF_H

#include <stddef.h>

typedef struct tfc_strbuf {
  char *data; /* always NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
  int oom;
} tfc_strbuf;

void tfc_strbuf_init(tfc_strbuf *b);
void tfc_strbuf_fini(tfc_strbuf *b);
void tfc_strbuf_append(tfc_strbuf *b, const void *data, size_t n);
void tfc_strbuf_puts(tfc_strbuf *b, const char *s);
void tfc_strbuf_printf(tfc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int tfc_strbuf_ok(const tfc_strbuf *b) { return !b->oom; }
/* The contents as a C string ("" when empty); borrowed until the next append or fini. */
const char *tfc_strbuf_str(tfc_strbuf *b);
/* Hands the heap string to the caller (who frees it) and resets the buffer. NULL on OOM. */
char *tfc_strbuf_take(tfc_strbuf *b);

#endif
