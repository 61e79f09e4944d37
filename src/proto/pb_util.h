/*
 * pb_util — the shared plumbing of the protobuf codecs: a guarded unpack and an arena for
 * building messages to pack.
 *
 * Every protobuf that enters tfc from outside (C API buffers, files, RPCs) goes through
 * tfc_pb_unpack. protobuf-c recurses once per nested message, so a small input nesting
 * messages thousands deep (AttrValue -> NameAttrList -> AttrValue ...) would exhaust the
 * stack; tfc_pb_unpack first walks the wire bytes with the message descriptors, iteratively
 * bounded to TFC_PB_MAX_DEPTH levels (TF's own parser limit is 100), and rejects malformed
 * framing before protobuf-c allocates anything.
 *
 * Encoding builds protobuf-c structs whose pieces come from a tfc_pb_arena, packs them, then
 * frees the arena in one call: no per-field cleanup paths.
 *
 * Thread-safety: none needed (no shared state); an arena belongs to one caller.
 */
#ifndef TFC_PROTO_PB_UTIL_H
#define TFC_PROTO_PB_UTIL_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#define TFC_PB_MAX_DEPTH 100

/* True when `data` is well-framed protobuf wire data for `desc` whose nested messages are at
 * most TFC_PB_MAX_DEPTH deep. Field contents (UTF-8, enum values) are not judged here. */
int tfc_pb_wire_ok(const ProtobufCMessageDescriptor *desc, const void *data, size_t len);

/* Checks and unpacks; on failure INVALID_ARGUMENT "Unparseable <what>" (or "Invalid <what>"
 * when `what` starts with that word) and NULL. Free with protobuf_c_message_free_unpacked. */
ProtobufCMessage *tfc_pb_unpack(const ProtobufCMessageDescriptor *desc, const void *data,
                                size_t len, const char *what, tfc_status *s);

/* Packs a message into a new malloc'd buffer (caller frees; a 0-byte message still gets a
 * non-NULL buffer). */
int tfc_pb_pack(const ProtobufCMessage *m, void **out, size_t *out_len, tfc_status *s);

/* Writes v as a varint at p (room for 10 bytes); returns the bytes written. For messages
 * framed by hand around bytes already serialized. */
size_t tfc_pb_put_varint(uint8_t *p, uint64_t v);
/* The bytes tfc_pb_put_varint writes for v. */
size_t tfc_pb_varint_size(uint64_t v);

typedef struct tfc_pb_block tfc_pb_block;
typedef struct tfc_pb_arena {
  tfc_pb_block *blocks;
  int oom;
} tfc_pb_arena;

void tfc_pb_arena_init(tfc_pb_arena *a);
void tfc_pb_arena_fini(tfc_pb_arena *a);
/* Zeroed memory living until fini; NULL (and a->oom set) when memory runs out. */
void *tfc_pb_alloc(tfc_pb_arena *a, size_t size);
char *tfc_pb_strdup(tfc_pb_arena *a, const char *str);
char *tfc_pb_strndup(tfc_pb_arena *a, const char *str, size_t n);
/* Reports a->oom as RESOURCE_EXHAUSTED. */
int tfc_pb_arena_status(const tfc_pb_arena *a, tfc_status *s);

#endif
