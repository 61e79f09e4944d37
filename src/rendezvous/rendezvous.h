/*
 * rendezvous — where a _Send leaves a tensor and the matching _Recv picks it up.
 *
 * One local rendezvous serves one step of one process (the session makes a new one per run),
 * so keys need no step id. Keys are TF's (tensorflow/core/framework/rendezvous.cc):
 *   "<send_device>;<send_device_incarnation as 16 hex digits>;<recv_device>;<tensor_name>;
 *    <frame_id>:<iter_id>"
 * frame_id:iter_id is "0:0" outside loops; inside one, the frame instance's id and the
 * iteration the transfer belongs to, which both sides compute alike (exec/frame.c).
 * The incarnation is printed as strings::Uint64ToHexString does: always 16 lowercase digits,
 * zero-padded ("0000000000000001").
 * A send never blocks: it stores the tensor, or hands it straight to a waiting receiver. A
 * receive takes a callback that runs exactly once, either at once (tensor already there, or
 * the rendezvous is aborted) or later on the sending thread. Each key is sent once and
 * received once per step; a second send of a key is INTERNAL ("Send of an already sent
 * tensor").
 *
 * Abort: the first abort status sticks; every waiting receiver is called with it, and later
 * sends and receives fail with it. Deadlines are the caller's: a step that times out aborts
 * its rendezvous with DEADLINE_EXCEEDED whose message names the keys still awaited
 * (tfc_rendezvous_pending).
 *
 * Remote receives (the distributed runtime): a rendezvous given a remote fetcher
 * (tfc_rendezvous_set_remote) treats a receive whose key's send device lies outside this
 * task as a wait like any other — it is listed as pending and woken by abort — and asks the
 * fetcher to pull the tensor from the sending task. The fetcher delivers it with
 * tfc_rendezvous_send (which hands it to the waiting receiver), or fails the step with
 * tfc_rendezvous_abort; at abort it hears about it (to cancel its calls in flight). Executors
 * and kernels see the same interface either way.
 *
 * Ownership: refcounted (new returns one reference). Sent tensors are referenced by the
 * rendezvous until received, aborted or freed. Thread-safety: all functions may be
 * called from any thread; callbacks run without the rendezvous lock held.
 */
#ifndef TFC_RENDEZVOUS_RENDEZVOUS_H
#define TFC_RENDEZVOUS_RENDEZVOUS_H

#include <stdint.h>

#include "base/status.h"
#include "base/strbuf.h"
#include "tensor/tensor.h"

typedef struct tfc_rendezvous tfc_rendezvous;

/* Called once per receive. s: OK or the abort status (borrowed for the call). t: a new
 * reference the callee owns when s is OK, else NULL. is_dead: the sender's flag, set when a
 * _Send inside control flow had a dead input (t is then an empty placeholder). */
typedef void (*tfc_recv_done)(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead);

/* NULL on out of memory. */
tfc_rendezvous *tfc_rendezvous_new(void);
tfc_rendezvous *tfc_rendezvous_ref(tfc_rendezvous *r);
void tfc_rendezvous_unref(tfc_rendezvous *r); /* NULL is a no-op */

/* Builds a key (heap; caller frees). NULL on out of memory. frame_id prints as TF prints
 * its uint64 (decimal), iter_id as a signed decimal. */
char *tfc_rendezvous_key(const char *send_device, uint64_t send_device_incarnation,
                         const char *recv_device, const char *tensor_name, uint64_t frame_id,
                         int64_t iter_id);

/* Stores t (takes a new reference of its own; the caller keeps its reference) under key.
 * Returns OK, the abort status, or INTERNAL for a second send of key. */
int tfc_rendezvous_send(tfc_rendezvous *r, const char *key, tfc_tensor *t, int is_dead,
                        tfc_status *s);
/* Asks for key's tensor; done(arg, ...) runs exactly once (maybe before this returns). key
 * is copied. */
void tfc_rendezvous_recv_async(tfc_rendezvous *r, const char *key, tfc_recv_done done,
                               void *arg);
/* Blocking receive with a deadline (absolute, tfc_now_us() clock; <= 0: none). On time out:
 * DEADLINE_EXCEEDED "Timed out waiting for tensor <key>" and the pending wait is withdrawn.
 * *out receives a new reference on success. */
int tfc_rendezvous_recv(tfc_rendezvous *r, const char *key, int64_t deadline_us,
                        tfc_tensor **out, tfc_status *s);
/* Aborts with a copy of s (must not be OK); idempotent, the first status wins. Waiting
 * receivers are called with it before this returns. */
void tfc_rendezvous_abort(tfc_rendezvous *r, const tfc_status *s);
/* 1 once aborted (lock-free: executors poll it before each node). */
int tfc_rendezvous_aborted(tfc_rendezvous *r);
/* Copies the abort status into out (first error wins there) and returns its code; TFC_OK and
 * out untouched when not aborted. */
int tfc_rendezvous_status(tfc_rendezvous *r, tfc_status *out);
/* Pulls the tensor of `key` from its sending task; must end in tfc_rendezvous_send(r, key, ...)
 * or tfc_rendezvous_abort(r, ...), from any thread, before or after this returns. It runs
 * with one hold on arg (see tfc_rendezvous_hold_fn) that it owns and must let go; r lives as
 * long as arg is held. */
typedef void (*tfc_rendezvous_fetch_fn)(void *arg, tfc_rendezvous *r, const char *key);
/* Takes a hold on arg for one fetch. Called with r's lock held, just before the waiter can
 * complete on another thread (a send, an abort) and the receiver let go of everything: it
 * must only take a reference (no blocking, no call into r). */
typedef void (*tfc_rendezvous_hold_fn)(void *arg);
/* Called once when r is aborted (outside r's lock), with the abort status. */
typedef void (*tfc_rendezvous_abort_fn)(void *arg, const tfc_status *s);
/* Makes r a remote-capable rendezvous: receives of keys whose send device does not start
 * with local_prefix ("/job:ps/replica:0/task:0/", copied) go to fetch, holding arg with hold
 * first; on_abort (may be NULL) hears of the abort. Call once, before r is shared. Returns 0,
 * or -1 on out of memory. */
int tfc_rendezvous_set_remote(tfc_rendezvous *r, const char *local_prefix, tfc_rendezvous_hold_fn hold,
                              tfc_rendezvous_fetch_fn fetch, tfc_rendezvous_abort_fn on_abort, void *arg);

/* Appends the keys of receivers still waiting, in the order they started waiting, separated
 * by ", " (nothing when none). */
void tfc_rendezvous_pending(tfc_rendezvous *r, tfc_strbuf *out);

#endif
