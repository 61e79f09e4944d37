/*
 * cancel — a cancellation manager: whoever starts a cancellable piece of work (a session run,
 * an RPC) registers a callback that stops it; tfc_cancel_start, from any thread, runs every
 * registered callback once and refuses later registrations. A manager is cancelled for good.
 *
 * Ordering: a callback registered and then deregistered never runs after tfc_cancel_deregister
 * returns (deregistering waits for a callback running on another thread), so the work may free
 * what the callback touches once it has deregistered. Callbacks run on the cancelling thread,
 * outside the manager's lock; they must not block for long and must not call back into the
 * same manager.
 *
 * Ownership: tfc_cancel_new's caller frees the manager with tfc_cancel_free, once no work
 * uses it. Thread-safety: every other function may be called from any thread.
 */
#ifndef TFC_BASE_CANCEL_H
#define TFC_BASE_CANCEL_H

#include <stdint.h>

typedef struct tfc_cancel tfc_cancel;

/* A new manager, not cancelled; NULL when out of memory. */
tfc_cancel *tfc_cancel_new(void);
/* Frees it; NULL is a no-op. No callback may still be registered. */
void tfc_cancel_free(tfc_cancel *c);
/* Cancels: runs each registered callback once (on this thread) and makes later registrations
 * fail. Idempotent. */
void tfc_cancel_start(tfc_cancel *c);
/* Whether tfc_cancel_start was called. */
int tfc_cancel_is_cancelled(tfc_cancel *c);
/* Registers fn(arg) to run when the manager is cancelled. Returns a token (> 0) for
 * tfc_cancel_deregister; 0 when the manager is already cancelled (fn is not registered: the
 * caller stops its work itself); -1 when out of memory. */
int64_t tfc_cancel_register(tfc_cancel *c, void (*fn)(void *arg), void *arg);
/* Removes a registration (a token <= 0 is a no-op); if its callback is running on another
 * thread, waits until it has returned. */
void tfc_cancel_deregister(tfc_cancel *c, int64_t token);

#endif
