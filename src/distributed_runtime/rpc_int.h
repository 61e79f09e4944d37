/*
 * rpc_int — what the server (rpc_server.c) and the client (rpc_client.c) halves of the gRPC
 * layer share: message conversion between tfc_msg and gRPC byte buffers, the channel
 * arguments both ends use, status-code mapping, and the deadline clocks.
 *
 * Conversions never copy payload bytes: an outgoing message's segments become slices that
 * call the segments' release callbacks when gRPC drops them, and an incoming byte buffer's
 * slices are read in place by a tfc_msg_in that destroys the buffer when freed.
 *
 * Internal to src/distributed_runtime; thread-safe (no shared state).
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_RPC_INT_H
#define TFC_DISTRIBUTED_RUNTIME_RPC_INT_H

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdint.h>

#include "base/status.h"
#include "distributed_runtime/msg.h"

/* Turns the segments of `m` into a raw byte buffer without copying them (m is left empty;
 * its release callbacks now run when gRPC drops the slices). NULL on out of memory, after
 * every segment has been released. Zero-length segments are not sent; their releases run
 * after the last slice is dropped (they may own the bytes the others reference). */
grpc_byte_buffer *tfc_rpc_bb_from_msg(tfc_msg_out *m);

/* A message that reads the slices of `bb` in place and destroys `bb` when freed (bb is taken,
 * also on failure). A compressed buffer is decompressed first. NULL on out of memory. */
tfc_msg_in *tfc_rpc_msg_from_bb(grpc_byte_buffer *bb);

/* The arguments the gRPC layer gives every server (is_server) or channel: gRPC's message size
 * limits lifted, reconnect backoff, keepalive. The returned struct points into static
 * storage; it need only live through grpc_server_create / grpc_channel_create. */
const grpc_channel_args *tfc_rpc_channel_args(int is_server);

/* The credentials of a new server, or of a new channel (*is_tls: whether they are TLS), per
 * the process's TLS setting (rpc_tls.c): plaintext when it is off. The caller releases them.
 * Fails, with *out NULL, when the setting from the environment cannot be used (the message
 * names the variable and the file). */
int tfc_rpc_tls_server_credentials(grpc_server_credentials **out, tfc_status *s);
int tfc_rpc_tls_channel_credentials(grpc_channel_credentials **out, int *is_tls, tfc_status *s);

/* A tfc code as a gRPC status (the numbers agree; anything out of range is UNKNOWN), and back. */
grpc_status_code tfc_rpc_to_grpc_code(int code);
int tfc_rpc_from_grpc_code(grpc_status_code code);

/* A tfc_now_us() deadline (0: none) as a gRPC deadline on gRPC's monotonic clock. */
gpr_timespec tfc_rpc_deadline_to_gpr(int64_t deadline_us);
/* A gRPC deadline (any clock; the infinite future means none) as a tfc_now_us() deadline, or
 * 0 for none. A deadline already past is still nonzero. */
int64_t tfc_rpc_deadline_from_gpr(gpr_timespec d);

/* grpc_init, with gRPC's own log lines silenced the first time unless GRPC_VERBOSITY is set:
 * every failure reaches tfc as a status with a clear message (a port in use, a peer gone), so
 * gRPC's internal error dumps on stderr would only bury it. GRPC_VERBOSITY=ERROR (or INFO,
 * DEBUG) brings them back for debugging. Pairs with grpc_shutdown. */
void tfc_rpc_grpc_init(void);

/* A NUL-terminated malloc'd copy of a slice's bytes; NULL on out of memory. */
char *tfc_rpc_slice_strdup(grpc_slice s);

#endif
