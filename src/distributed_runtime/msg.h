/*
 * msg — RPC messages as lists of byte segments, so tensors travel without copies.
 *
 * An outgoing message (tfc_msg_out) is a sequence of segments: small ones copied in (protobuf
 * headers, packed messages), large ones referenced where they lie (a tensor's buffer, kept
 * alive by a release callback until the transport is done with it). The gRPC layer (rpc.h)
 * turns each segment into a slice without copying.
 *
 * An incoming message (tfc_msg_in) is the transport's list of read-only segments and a read
 * cursor. Readers take what they need where it lies (tfc_msg_in_peek) or copy a range straight
 * to its final place (tfc_msg_in_read: a tensor's bytes go once, from the transport's buffers
 * into an aligned tensor buffer). tfc_msg_in_flatten gives a contiguous copy for protobuf-c.
 *
 * Ownership: a message is owned by whoever holds it; _free releases every segment (calling
 * release callbacks). Not thread-safe: one owner at a time.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_MSG_H
#define TFC_DISTRIBUTED_RUNTIME_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef struct tfc_msg_seg {
  const uint8_t *data;
  size_t len;
  void (*release)(void *arg); /* NULL: nothing to release */
  void *release_arg;
} tfc_msg_seg;

/* ---------------- outgoing ---------------- */

typedef struct tfc_msg_out {
  int n_segs, cap_segs;
  tfc_msg_seg *segs;
  size_t len; /* total bytes */
  int oom;    /* an append ran out of memory; the message is unusable */
} tfc_msg_out;

tfc_msg_out *tfc_msg_out_new(void); /* NULL on out of memory */
void tfc_msg_out_free(tfc_msg_out *m); /* releases every segment; NULL is a no-op */
/* Copies data (small pieces: headers, packed protobufs). Returns 0, or -1 on out of memory
 * (m->oom is then set). */
int tfc_msg_out_append(tfc_msg_out *m, const void *data, size_t len);
/* Takes a malloc'd block (freed with free()). On failure the block is freed and -1 returned. */
int tfc_msg_out_append_owned(tfc_msg_out *m, void *data, size_t len);
/* References data without copying; release(arg) runs once when the message no longer needs
 * it (also on failure, before -1 is returned). */
int tfc_msg_out_append_ref(tfc_msg_out *m, const void *data, size_t len, void (*release)(void *),
                           void *arg);
/* Moves the segments out (the caller takes over their release); m is left empty. */
tfc_msg_seg *tfc_msg_out_take(tfc_msg_out *m, int *out_n);
/* RESOURCE_EXHAUSTED when an append failed, else OK. */
int tfc_msg_out_status(const tfc_msg_out *m, tfc_status *s);

/* ---------------- incoming ---------------- */

typedef struct tfc_msg_in tfc_msg_in;

/* A message over the given segments (the array is copied; the bytes are borrowed until
 * release(arg) runs at _free). NULL on out of memory (release is then called). */
tfc_msg_in *tfc_msg_in_new(const tfc_msg_seg *segs, int n_segs, void (*release)(void *), void *arg);
/* A message that owns a copy of the bytes (tests, in-process calls). */
tfc_msg_in *tfc_msg_in_copy(const void *data, size_t len);
/* An outgoing message read back in process: takes over its segments (m is freed). */
tfc_msg_in *tfc_msg_in_from_out(tfc_msg_out *m);
void tfc_msg_in_free(tfc_msg_in *in); /* NULL is a no-op */
size_t tfc_msg_in_len(const tfc_msg_in *in);
/* Bytes left after the cursor. */
size_t tfc_msg_in_remaining(const tfc_msg_in *in);
/* The contiguous bytes at the cursor (*avail of them; 0 at the end), without moving it. */
const uint8_t *tfc_msg_in_peek(const tfc_msg_in *in, size_t *avail);
/* Copies the next n bytes to dst (dst may be NULL: skip) and moves the cursor. -1 (cursor
 * unmoved) when fewer than n remain. */
int tfc_msg_in_read(tfc_msg_in *in, void *dst, size_t n);
/* A malloc'd copy of the n bytes at the cursor, moving past them (n == 0 gives a 1-byte
 * block). NULL when fewer remain or memory runs out. */
void *tfc_msg_in_read_copy(tfc_msg_in *in, size_t n);
/* A contiguous malloc'd copy of the whole message (cursor ignored, not moved). */
void *tfc_msg_in_flatten(const tfc_msg_in *in, size_t *out_len);

#endif
