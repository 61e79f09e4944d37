/*
 * pb_util — see pb_util.h.
 *
 * The wire walk keeps an explicit stack of (descriptor, end offset) frames instead of
 * recursing, so its own stack use is constant whatever the input.
 */
#include "proto/pb_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- wire check ---------------- */

static int read_varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return -1;
    uint8_t b = p[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1; /* more than 10 bytes */
}

typedef struct frame {
  const ProtobufCMessageDescriptor *desc;
  size_t end;
} frame;

int tfc_pb_wire_ok(const ProtobufCMessageDescriptor *desc, const void *data, size_t len) {
  const uint8_t *p = data;
  if (len && !p) return 0;
  frame stack[TFC_PB_MAX_DEPTH + 1];
  int depth = 0;
  stack[0].desc = desc;
  stack[0].end = len;
  size_t pos = 0;
  for (;;) {
    while (depth > 0 && pos == stack[depth].end) depth--;
    if (pos == stack[depth].end) return depth == 0;
    uint64_t key;
    if (read_varint(p, stack[depth].end, &pos, &key)) return 0;
    uint64_t field = key >> 3;
    int wire = (int)(key & 7);
    if (field == 0 || field > 536870911u) return 0;
    switch (wire) {
      case 0: {
        uint64_t v;
        if (read_varint(p, stack[depth].end, &pos, &v)) return 0;
        break;
      }
      case 1:
        if (stack[depth].end - pos < 8) return 0;
        pos += 8;
        break;
      case 5:
        if (stack[depth].end - pos < 4) return 0;
        pos += 4;
        break;
      case 2: {
        uint64_t n;
        if (read_varint(p, stack[depth].end, &pos, &n)) return 0;
        if (n > stack[depth].end - pos) return 0;
        const ProtobufCFieldDescriptor *f =
            stack[depth].desc ? protobuf_c_message_descriptor_get_field(stack[depth].desc, (unsigned)field)
                              : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
          if (depth == TFC_PB_MAX_DEPTH) return 0;
          depth++;
          stack[depth].desc = f->descriptor;
          stack[depth].end = pos + (size_t)n;
        } else {
          pos += (size_t)n;
        }
        break;
      }
      default: return 0; /* groups (3, 4) are proto2-only; 6, 7 do not exist */
    }
  }
}

ProtobufCMessage *tfc_pb_unpack(const ProtobufCMessageDescriptor *desc, const void *data,
                                size_t len, const char *what, tfc_status *s) {
  static const uint8_t empty[1];
  if (!data) {
    if (len) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Unparseable %s: NULL data of %zu bytes", what, len);
      return NULL;
    }
    data = empty;
  }
  ProtobufCMessage *m = NULL;
  if (tfc_pb_wire_ok(desc, data, len)) m = protobuf_c_message_unpack(desc, NULL, len, data);
  if (!m) {
    if (strncmp(what, "Invalid", 7) == 0) tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s", what);
    else tfc_status_set(s, TFC_INVALID_ARGUMENT, "Unparseable %s", what);
  }
  return m;
}

int tfc_pb_pack(const ProtobufCMessage *m, void **out, size_t *out_len, tfc_status *s) {
  size_t n = protobuf_c_message_get_packed_size(m);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) return TFC_OOM(s);
  size_t w = protobuf_c_message_pack(m, buf);
  if (w != n) {
    free(buf);
    return tfc_status_set(s, TFC_INTERNAL, "protobuf pack wrote %zu of %zu bytes", w, n);
  }
  *out = buf;
  *out_len = n;
  return TFC_OK;
}

/* ---------------- arena ---------------- */

struct tfc_pb_block {
  tfc_pb_block *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

#define BLOCK_SIZE 16384 /* most NodeDefs fit in one block */

void tfc_pb_arena_init(tfc_pb_arena *a) {
  a->blocks = NULL;
  a->oom = 0;
}

void tfc_pb_arena_fini(tfc_pb_arena *a) {
  tfc_pb_block *b = a->blocks;
  while (b) {
    tfc_pb_block *n = b->next;
    free(b);
    b = n;
  }
  a->blocks = NULL;
}

void *tfc_pb_alloc(tfc_pb_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  tfc_pb_block *b = a->blocks;
  if (!b || b->cap - b->used < size) {
    size_t cap = size > BLOCK_SIZE ? size : BLOCK_SIZE;
    tfc_pb_block *nb = malloc(sizeof *nb + cap);
    if (!nb) {
      a->oom = 1;
      return NULL;
    }
    nb->used = 0;
    nb->cap = cap;
    /* A big one-off block goes behind the current one so the current keeps filling. */
    if (b && size > BLOCK_SIZE) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->blocks = nb;
    }
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *tfc_pb_strndup(tfc_pb_arena *a, const char *str, size_t n) {
  char *r = tfc_pb_alloc(a, n + 1);
  if (!r) return NULL;
  if (n) memcpy(r, str, n);
  return r;
}

char *tfc_pb_strdup(tfc_pb_arena *a, const char *str) {
  return tfc_pb_strndup(a, str ? str : "", str ? strlen(str) : 0);
}

int tfc_pb_arena_status(const tfc_pb_arena *a, tfc_status *s) {
  if (a->oom) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "out of memory building a protobuf");
  return TFC_OK;
}

size_t tfc_pb_put_varint(uint8_t *p, uint64_t v) {
  size_t k = 0;
  while (v >= 0x80) {
    p[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[k++] = (uint8_t)v;
  return k;
}

size_t tfc_pb_varint_size(uint64_t v) {
  size_t k = 1;
  while (v >= 0x80) {
    v >>= 7;
    k++;
  }
  return k;
}
