/*
 * pb_writer — a minimal protobuf wire-format writer for tests, so the exact bytes a test feeds
 * a decoder are visible in the test (field numbers from our .proto files). A message that
 * outgrows the fixed buffer fails the test.
 */
#ifndef TFC_TESTS_PB_WRITER_H
#define TFC_TESTS_PB_WRITER_H

#include <stdint.h>
#include <string.h>

#include "harness.h"

typedef struct pbw {
  uint8_t b[8192];
  size_t n;
} pbw;

static inline void w_room(pbw *w, size_t n) {
  if (w->n + n > sizeof w->b) tfc_test_fail(__FILE__, __LINE__, "pbw: message larger than %zu bytes", sizeof w->b);
}
static inline void w_varint(pbw *w, uint64_t v) {
  w_room(w, 10);
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    w->b[w->n++] = c | (v ? 0x80 : 0);
  } while (v);
}
static inline void w_tag(pbw *w, int field, int wire) { w_varint(w, (uint64_t)field << 3 | (uint64_t)wire); }
static inline void w_int(pbw *w, int field, int64_t v) {
  w_tag(w, field, 0);
  w_varint(w, (uint64_t)v);
}
static inline void w_bytes(pbw *w, int field, const void *d, size_t n) {
  w_tag(w, field, 2);
  w_varint(w, n);
  w_room(w, n);
  memcpy(w->b + w->n, d, n);
  w->n += n;
}
static inline void w_str(pbw *w, int field, const char *s) { w_bytes(w, field, s, strlen(s)); }
static inline void w_msg(pbw *w, int field, const pbw *m) { w_bytes(w, field, m->b, m->n); }
static inline void w_f32(pbw *w, int field, float f) {
  w_tag(w, field, 5);
  w_room(w, 4);
  memcpy(w->b + w->n, &f, 4);
  w->n += 4;
}

#endif
