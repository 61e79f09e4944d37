/*
 * rpc — unary RPCs over gRPC core (the C API of libgrpc): a server that dispatches methods
 * by name to handlers, and client channels with asynchronous and blocking calls. Everything
 * above it (master, worker, sessions) speaks in tfc_msg messages and tfc_status codes and
 * never touches gRPC.
 *
 * Messages are byte sequences (distributed_runtime/msg.h): an outgoing message's segments become gRPC
 * slices without copying (a tensor's buffer goes out as it lies); an incoming message is the
 * received slices, read in place. gRPC's own message size limits (4 MiB by default) are
 * lifted; each end enforces `max_message_bytes` itself, so an oversized request is refused
 * with INVALID_ARGUMENT naming the method and both sizes, never a transport error.
 *
 * Status codes: gRPC's canonical codes are TF's codes, number for number, and cross the wire
 * unchanged with their messages. Transport failures arrive as gRPC reports them
 * (UNAVAILABLE for a peer that cannot be reached or went away, DEADLINE_EXCEEDED, CANCELLED).
 *
 * Threads. Server: one completion-queue thread accepts calls and reads requests; each
 * request's handler then runs on a handler thread of its own (threads are reused and spawned
 * on demand), so handlers may block — a RunStep waits for its workers — without starving
 * other calls. Handlers that never block (a RecvTensor registers its wait and returns) run
 * on the completion-queue thread itself. A handler replies exactly once, from any thread, at
 * any later time (tfc_rpc_reply). Client: a process-wide completion-queue thread completes
 * asynchronous calls and runs their callbacks, which must not block.
 *
 * Connections: channels connect lazily and reconnect with a short backoff (100 ms growing to
 * 1 s: a task that starts late is found within a second of starting). A call with
 * TFC_RPC_WAIT_FOR_READY waits for the connection until its deadline (gRPC's wait_for_ready);
 * without it, a call to a peer that cannot be reached fails at once with UNAVAILABLE.
 * Keepalive pings detect a peer that vanished without closing its connections.
 *
 * Ownership and thread-safety are stated per function; every function is thread-safe unless
 * it says otherwise.
 */
#ifndef TFC_DISTRIBUTED_RUNTIME_RPC_H
#define TFC_DISTRIBUTED_RUNTIME_RPC_H

#include <stdint.h>

#include "base/status.h"
#include "distributed_runtime/msg.h"

/* Default limit on one message, each way: 2 GiB - 1, protobuf's own limit (a 10000 x 3000
 * float feed is 120 MB). */
#define TFC_RPC_DEFAULT_MAX_MESSAGE ((int64_t)0x7fffffff)

/* ---------------- TLS ---------------- */

/* TLS with mutual authentication for every server started and channel opened afterwards in
 * this process (rpc_tls.c): the CA that signs every peer's certificate, this process's
 * certificate and its private key, as PEM files, read now. All three NULL turns TLS off
 * (also overriding TFC_TLS_CA/CERT/KEY from the environment). Errors: INVALID_ARGUMENT when
 * only some are given or a file is not PEM, NOT_FOUND/PERMISSION_DENIED for a file that
 * cannot be opened (naming it); TLS is then off. Servers and channels already made keep
 * what they had. */
int tfc_rpc_tls_set(const char *ca_file, const char *cert_file, const char *key_file, tfc_status *s);

/* ---------------- server ---------------- */

typedef struct tfc_rpc_server tfc_rpc_server;
typedef struct tfc_rpc_call tfc_rpc_call; /* one incoming call */

/* Handles one call: runs on a handler thread and may block. `request` is owned by the
 * handler (tfc_msg_in_free). The handler, or anyone it hands `call` to, must call
 * tfc_rpc_reply exactly once. */
typedef void (*tfc_rpc_handler)(void *arg, tfc_rpc_call *call, tfc_msg_in *request);

/* A server that will listen on `address` ("127.0.0.1:2222", "0.0.0.0:0", "[::1]:0"; port 0
 * picks a free port). Nothing is bound until tfc_rpc_server_start. max_message_bytes <= 0
 * means TFC_RPC_DEFAULT_MAX_MESSAGE. NULL with status on failure. */
tfc_rpc_server *tfc_rpc_server_new(const char *address, int64_t max_message_bytes, tfc_status *s);
/* Registers a handler for a full method name ("/tensorflow.WorkerService/RunGraph"); only
 * before start. Calls to unregistered methods get UNIMPLEMENTED "Method not found: <name>". */
int tfc_rpc_server_add_method(tfc_rpc_server *srv, const char *method, tfc_rpc_handler fn, void *arg,
                              tfc_status *s);
/* The same for a handler that never blocks — it replies at once, or registers the call with
 * something that replies later (a RecvTensor waiting for its tensor) and returns: it runs on
 * the server's completion-queue thread, without a handler thread or a hand-off, so a burst of
 * such calls neither spawns threads nor delays the calls behind it by more than their own
 * few microseconds. Its cancel callback, and any reply it makes, run on that thread too. */
int tfc_rpc_server_add_inline_method(tfc_rpc_server *srv, const char *method, tfc_rpc_handler fn, void *arg,
                                     tfc_status *s);
/* Binds and starts serving. *out_port (may be NULL) receives the bound port. A port in use
 * is UNKNOWN "Could not start gRPC server: failed to bind <address>" (TF's text and code). */
int tfc_rpc_server_start(tfc_rpc_server *srv, int *out_port, tfc_status *s);
/* Stops accepting calls, cancels calls in flight (their handlers still reply; replies to a
 * cancelled call are dropped), and waits until every handler has replied and returned.
 * Idempotent; safe before start. Must not be called from a handler thread. */
void tfc_rpc_server_shutdown(tfc_rpc_server *srv);
/* The first half of shutdown, which returns at once: stops accepting calls and cancels those
 * in flight (their cancel callbacks run). Idempotent; a no-op unless started. */
void tfc_rpc_server_cancel_calls(tfc_rpc_server *srv);
/* After tfc_rpc_server_cancel_calls: waits until every call is over and every handler has
 * returned, or until deadline_us (tfc_now_us; 0: no limit). Returns 1 when they are, else 0
 * (shutdown then still waits for them). 1 at once for a server that never started. */
int tfc_rpc_server_wait_calls(tfc_rpc_server *srv, int64_t deadline_us);
/* What the server holds now, for tests and monitoring: calls that arrived and are not yet
 * over (answered, or dropped, and released by gRPC), and handler threads running a handler. */
void tfc_rpc_server_load(tfc_rpc_server *srv, int *out_calls, int *out_busy);
/* Shuts down (if needed) and frees. NULL is a no-op. */
void tfc_rpc_server_free(tfc_rpc_server *srv);

/* Replies to a call: st OK sends `response` (taken; NULL sends an empty message); otherwise
 * st's code and message are sent and `response` (if any) is freed. The call is freed once
 * gRPC is done with it; `call` must not be used after this returns. */
void tfc_rpc_reply(tfc_rpc_call *call, const tfc_status *st, tfc_msg_out *response);
/* The call's deadline as an absolute tfc_now_us() time, or 0 when the client set none. */
int64_t tfc_rpc_call_deadline_us(const tfc_rpc_call *call);
/* The full method name and the peer ("ipv4:127.0.0.1:53422"); valid until the reply. */
const char *tfc_rpc_call_method(const tfc_rpc_call *call);
const char *tfc_rpc_call_peer(const tfc_rpc_call *call);
/* Asks to hear when the call is cancelled before it is replied to (the client went away or
 * cancelled, its deadline passed, the server shuts down): fn(arg) then runs once, on a gRPC
 * thread, and must not block. Returns 0 when registered; 1 when the call is already cancelled
 * (fn is not called; the caller reacts itself). At most one registration per call. fn is
 * never called after tfc_rpc_reply has begun, so arg need only live until the reply. */
int tfc_rpc_call_on_cancel(tfc_rpc_call *call, void (*fn)(void *arg), void *arg);

/* ---------------- client ---------------- */

typedef struct tfc_rpc_channel tfc_rpc_channel;
typedef struct tfc_rpc_pending tfc_rpc_pending; /* an asynchronous call in flight */

enum {
  /* Wait for the connection (up to the deadline) instead of failing when the peer cannot be
   * reached now: for a cluster whose tasks start in any order. */
  TFC_RPC_WAIT_FOR_READY = 1,
};

/* A channel to `target` ("localhost:2222", "127.0.0.1:5000"). Connects lazily. max_message_bytes
 * <= 0 means TFC_RPC_DEFAULT_MAX_MESSAGE (responses beyond it fail with INVALID_ARGUMENT).
 * NULL with status on failure. */
tfc_rpc_channel *tfc_rpc_channel_new(const char *target, int64_t max_message_bytes, tfc_status *s);
/* Frees the channel; calls in flight on it are cancelled and still complete (CANCELLED).
 * NULL is a no-op. Must not be called from an RPC callback. */
void tfc_rpc_channel_free(tfc_rpc_channel *ch);
/* Cancels every call in flight on the channel (each completes with CANCELLED) and fails every
 * later call at once with CANCELLED "<method>: the channel to <target> is being closed": a
 * stopping server's channels, so that nothing it waits for outlives the stop. The channel
 * stays valid until freed. NULL is a no-op. */
void tfc_rpc_channel_close(tfc_rpc_channel *ch);
const char *tfc_rpc_channel_target(const tfc_rpc_channel *ch);

/* Called once when a call completes: s is OK and `response` (owned by the callee; free with
 * tfc_msg_in_free) holds the reply, or s holds the error and response is NULL. Runs on the
 * client completion thread (or, for a call that fails before it starts, on the caller's
 * thread before tfc_rpc_call_async returns); must not block. s is borrowed for the call. */
typedef void (*tfc_rpc_done)(void *arg, const tfc_status *s, tfc_msg_in *response);

/* Starts a call of `method` with `request` (taken, even on failure). deadline_us is an
 * absolute tfc_now_us() time, or 0 for none. flags: TFC_RPC_*. When out_pending is not
 * NULL it receives a handle for tfc_rpc_cancel, which the caller must give back with
 * tfc_rpc_pending_release (before or after done runs). */
void tfc_rpc_call_async(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us,
                        int flags, tfc_rpc_done done, void *arg, tfc_rpc_pending **out_pending);
/* Cancels the call if it has not completed (done then runs with CANCELLED, or with whatever
 * it completed with first). Safe at any time before release. */
void tfc_rpc_cancel(tfc_rpc_pending *p);
void tfc_rpc_pending_release(tfc_rpc_pending *p); /* NULL is a no-op */

/* A blocking call: *out_response (owned by the caller) receives the reply on success, NULL
 * on error. Returns the status code. */
int tfc_rpc_call_sync(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us, int flags,
                      tfc_msg_in **out_response, tfc_status *s);
/* Told about a blocking call in flight, so that another thread may cancel it: watch(arg, p)
 * runs on the caller's thread once the call has started (p for tfc_rpc_cancel), and
 * watch(arg, NULL) once it has completed, before the call returns; p is valid in between. */
typedef void (*tfc_rpc_watch)(void *arg, tfc_rpc_pending *p);
/* tfc_rpc_call_sync with a watch (NULL: none). */
int tfc_rpc_call_sync_watched(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us,
                              int flags, tfc_rpc_watch watch, void *watch_arg, tfc_msg_in **out_response,
                              tfc_status *s);

#endif
