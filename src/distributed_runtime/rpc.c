/*
 * rpc — the parts of the gRPC layer both ends share (rpc_int.h): zero-copy conversion
 * between tfc_msg messages and gRPC byte buffers, the channel arguments, codes and deadlines.
 * The server lives in rpc_server.c, the client in rpc_client.c; the interface is rpc.h.
 *
 * Outgoing messages: each segment becomes one slice made with grpc_slice_new_with_user_data,
 * whose destroy callback runs the segment's release. The per-slice records live in one block
 * per message, freed when the last slice goes, so a message costs one allocation however many
 * segments it has. gRPC may drop the slices on any of its threads, at any time until the
 * bytes are written; release callbacks must therefore be thread-safe (tensor unrefs are).
 *
 * Incoming messages: gRPC hands over a raw byte buffer whose slice buffer holds the received
 * bytes (HTTP/2 frames' payloads, usually a few large slices). The tfc_msg_in reads those
 * slices in place and destroys the byte buffer when it is freed.
 */
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <grpc/support/log.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "distributed_runtime/rpc_int.h"

/* ---------------- outgoing messages ---------------- */

typedef struct out_block out_block;

/* One segment of the message: the release to run and, for a segment sent as a slice, the
 * block its destroy callback counts down. */
typedef struct out_ref {
  /* Published with a release store after the rest is written and read with an acquire
   * load: gRPC hands the slice to the thread that destroys it through synchronization the
   * thread sanitizer cannot see (the library is not instrumented). */
  _Atomic(out_block *) block;
  void (*release)(void *);
  void *release_arg;
  int is_slice;
} out_ref;

struct out_block {
  atomic_int live; /* slices not yet destroyed */
  int n_refs;
  out_ref refs[];
};

/* Empty segments are not sent, but their releases may keep the others' bytes alive (a
 * segment that owns the buffer the message references), so they run after the last slice. */
static void release_empty(out_block *b) {
  for (int i = 0; i < b->n_refs; i++)
    if (!b->refs[i].is_slice && b->refs[i].release) b->refs[i].release(b->refs[i].release_arg);
  free(b);
}

static void slice_destroyed(void *p) {
  out_ref *r = p;
  out_block *b = atomic_load_explicit(&r->block, memory_order_acquire);
  if (r->release) r->release(r->release_arg);
  /* acq_rel: every slice's release happens before the block is freed. */
  if (atomic_fetch_sub_explicit(&b->live, 1, memory_order_acq_rel) == 1) release_empty(b);
}

grpc_byte_buffer *tfc_rpc_bb_from_msg(tfc_msg_out *m) {
  int n = 0;
  tfc_msg_seg *segs = tfc_msg_out_take(m, &n);
  int n_slices = 0;
  for (int i = 0; i < n; i++) n_slices += segs[i].len > 0;
  out_block *b = malloc(sizeof *b + sizeof(out_ref) * (size_t)n);
  grpc_slice *slices = malloc(sizeof *slices * (size_t)(n_slices ? n_slices : 1));
  if (!b || !slices) {
    for (int i = 0; i < n; i++)
      if (segs[i].release) segs[i].release(segs[i].release_arg);
    free(segs);
    free(b);
    free(slices);
    return NULL;
  }
  b->n_refs = n;
  for (int i = 0; i < n; i++) {
    b->refs[i].release = segs[i].release;
    b->refs[i].release_arg = segs[i].release_arg;
    b->refs[i].is_slice = segs[i].len > 0;
  }
  /* Published once the whole block is written. A slice's destroy acquires its own entry through
   * `block`, and the whole block through `live`, stored last. */
  for (int i = 0; i < n; i++) atomic_store_explicit(&b->refs[i].block, b, memory_order_release);
  atomic_store_explicit(&b->live, n_slices, memory_order_release);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (segs[i].len > 0)
      slices[k++] = grpc_slice_new_with_user_data((void *)segs[i].data, segs[i].len, slice_destroyed, &b->refs[i]);
  free(segs);
  grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(slices, (size_t)n_slices);
  /* The byte buffer took its own references; drop ours. With no slice at all, nothing will
   * count the block down: release now. */
  for (int i = 0; i < n_slices; i++) grpc_slice_unref(slices[i]);
  free(slices);
  if (n_slices == 0) release_empty(b);
  return bb;
}

/* ---------------- incoming messages ---------------- */

static void destroy_bb(void *p) { grpc_byte_buffer_destroy(p); }

tfc_msg_in *tfc_rpc_msg_from_bb(grpc_byte_buffer *bb) {
  if (bb->type != GRPC_BB_RAW || bb->data.raw.compression != GRPC_COMPRESS_NONE) {
    /* A compressed message (only if a peer compressed and nothing decompressed it): the
     * reader inflates it; keep the inflated slices as an uncompressed buffer. */
    grpc_byte_buffer_reader r;
    if (!grpc_byte_buffer_reader_init(&r, bb)) {
      grpc_byte_buffer_destroy(bb);
      return NULL;
    }
    grpc_byte_buffer *plain = grpc_raw_byte_buffer_from_reader(&r);
    grpc_byte_buffer_reader_destroy(&r);
    grpc_byte_buffer_destroy(bb);
    if (!plain) return NULL;
    bb = plain;
  }
  grpc_slice_buffer *sb = &bb->data.raw.slice_buffer;
  size_t n = sb->count;
  tfc_msg_seg one, *segs = n <= 1 ? &one : malloc(sizeof *segs * n);
  if (!segs) {
    grpc_byte_buffer_destroy(bb);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    segs[i] = (tfc_msg_seg){GRPC_SLICE_START_PTR(sb->slices[i]), GRPC_SLICE_LENGTH(sb->slices[i]), NULL, NULL};
  /* Inlined slices live inside the slice structs, which stay put in the slice buffer until
   * the byte buffer is destroyed, so their pointers are as stable as refcounted ones. */
  tfc_msg_in *in = tfc_msg_in_new(segs, (int)n, destroy_bb, bb);
  if (segs != &one) free(segs);
  return in;
}

/* ---------------- channel arguments ---------------- */

#define INT_ARG(k, v) {.type = GRPC_ARG_INTEGER, .key = (char *)(k), .value.integer = (v)}

/* Why these values:
 * - message sizes: -1 lifts gRPC's limits (4 MiB receive by default); max_message_bytes is
 *   enforced above gRPC so the refusal carries the method and both sizes.
 * - backoff: a task that starts after its peers is found within a second (the default grows
 *   to 120 s): a refused connection is retried 100 ms later, then at most every second.
 *   GRPC_ARG_MIN_RECONNECT_BACKOFF_MS is not a backoff but the least time one connection
 *   attempt is given (TCP connect plus the HTTP/2 handshake); it stays at gRPC's 20 s, since
 *   at 100 ms a loaded host (or one under valgrind) fails fail-fast calls to a live server.
 * - keepalive: a ping every 30 s without traffic, 10 s for the ack, so a peer that vanished
 *   without closing its connections is noticed; servers accept pings every 10 s or more even
 *   with no call running, so they never answer our pings with GOAWAY too_many_pings.
 * - reuseport off on servers: with SO_REUSEPORT two servers could share a port and binding a
 *   port in use would "succeed". */
static grpc_arg client_args[] = {
    INT_ARG(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1),
    INT_ARG(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1),
    INT_ARG(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100),
    INT_ARG(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 20000),
    INT_ARG(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000),
    INT_ARG(GRPC_ARG_KEEPALIVE_TIME_MS, 30000),
    INT_ARG(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000),
    INT_ARG(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1),
    INT_ARG(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0),
};

static grpc_arg server_args[] = {
    INT_ARG(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1),
    INT_ARG(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1),
    INT_ARG(GRPC_ARG_ALLOW_REUSEPORT, 0),
    INT_ARG(GRPC_ARG_KEEPALIVE_TIME_MS, 30000),
    INT_ARG(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000),
    INT_ARG(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1),
    INT_ARG(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000),
    INT_ARG(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0),
};

static const grpc_channel_args client_channel_args = {sizeof client_args / sizeof client_args[0], client_args};
static const grpc_channel_args server_channel_args = {sizeof server_args / sizeof server_args[0], server_args};

const grpc_channel_args *tfc_rpc_channel_args(int is_server) {
  return is_server ? &server_channel_args : &client_channel_args;
}

/* ---------------- codes, deadlines, strings ---------------- */

grpc_status_code tfc_rpc_to_grpc_code(int code) {
  return code >= 0 && code < TFC_CODE_COUNT ? (grpc_status_code)code : GRPC_STATUS_UNKNOWN;
}

int tfc_rpc_from_grpc_code(grpc_status_code code) {
  return (int)code >= 0 && (int)code < TFC_CODE_COUNT ? (int)code : TFC_UNKNOWN;
}

gpr_timespec tfc_rpc_deadline_to_gpr(int64_t deadline_us) {
  if (deadline_us <= 0) return gpr_inf_future(GPR_CLOCK_MONOTONIC);
  /* gRPC's monotonic clock has its own origin: carry the time left over, not the value. */
  int64_t left = deadline_us - tfc_now_us();
  if (left < 0) left = 0;
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_micros(left, GPR_TIMESPAN));
}

int64_t tfc_rpc_deadline_from_gpr(gpr_timespec d) {
  if (d.tv_sec == INT64_MAX) return 0; /* gpr_inf_future of any clock */
  gpr_timespec left = gpr_time_sub(d, gpr_now(d.clock_type));
  /* Beyond a hundred years is as good as none (and keeps the sum below from overflowing). */
  if (left.tv_sec > (int64_t)100 * 365 * 86400) return 0;
  int64_t left_us = left.tv_sec * 1000000 + left.tv_nsec / 1000;
  int64_t at = tfc_now_us() + left_us;
  return at > 0 ? at : 1;
}

char *tfc_rpc_slice_strdup(grpc_slice s) {
  size_t n = GRPC_SLICE_LENGTH(s);
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, GRPC_SLICE_START_PTR(s), n);
  p[n] = '\0';
  return p;
}

/* ---------------- gRPC's logging ---------------- */

static void drop_grpc_log(gpr_log_func_args *args) { (void)args; }

static void quiet_grpc_log(void) {
  const char *v = getenv("GRPC_VERBOSITY");
  if (!v || !*v) gpr_set_log_function(drop_grpc_log);
}

void tfc_rpc_grpc_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, quiet_grpc_log);
  grpc_init();
}
