/*
 * queue — TF's FIFOQueue, RandomShuffleQueue and PaddingFIFOQueue: bounded queues of tuples of tensors that
 * steps enqueue into and dequeue from, shared by the steps of a session as resources of the
 * device the queue op is placed on (resource_mgr.h).
 *
 * Semantics are TF 1.15's (kernels/queue_base.cc, fifo_queue.cc, random_shuffle_queue.cc):
 *   - An element is a tuple of n_components tensors of the queue's dtypes (and shapes, when
 *     the queue has them). Enqueue adds one element; EnqueueMany slices its components along
 *     dimension 0 and adds the slices one at a time as room appears (an EnqueueMany cut short
 *     by cancellation leaves what it added). Dequeue removes one element; DequeueMany(n)
 *     takes elements one at a time as they arrive until it has n (so n may exceed the
 *     capacity) and returns them stacked; DequeueUpTo(n) also returns a smaller batch once
 *     the queue is closed.
 *   - Waiting operations are served in arrival order, enqueuers and dequeuers each: the first
 *     waiting DequeueMany gets the next elements, and one EnqueueMany's elements stay
 *     together.
 *   - A PaddingFIFOQueue is a FIFOQueue whose shapes may have unknown dimensions: elements
 *     match them where they are known, and DequeueMany/UpTo pad each component to the
 *     largest size of each dimension among the elements taken, with zeros (empty strings)
 *     (padding_fifo_queue.cc).
 *   - capacity < 0 is unbounded. A RandomShuffleQueue dequeues a uniformly random element
 *     (Philox4x32-10 from seed/seed2; both 0: a random seed), and only while more than
 *     min_after_dequeue elements remain, unless closed.
 *   - Close: later enqueues fail with CANCELLED "<Kind> '<name>' is closed."; waiting
 *     enqueues still complete as room appears unless cancel_pending_enqueues, which fails
 *     them with CANCELLED "Enqueue operation was cancelled". Dequeues drain what is left, then
 *     fail with OUT_OF_RANGE "<Kind> '<name>' is closed and has insufficient elements
 *     (requested <n still needed>, current size <size>)", and a failed DequeueMany puts back
 *     what it had taken. Closing twice is CANCELLED "Queue '<name>' is already closed."
 *     (unless the second close cancels pending enqueues and the first did not).
 *
 * Blocking and cancellation: blocking operations wait on the queue's condition variable,
 * holding their thread. They wake and fail cleanly with CANCELLED ("Enqueue operation was
 * cancelled" / "Dequeue operation was cancelled"; a dequeue puts back what it took) when
 *   - the queue is cancelled (tfc_resource_mgr_cancel_all: the session closes), or
 *   - the step is aborted (its rendezvous: another partition failed, or the step's deadline
 *     passed). A blocked operation registers a receive of a private key with the step's
 *     rendezvous (tfc_queue_cancel); abort calls every waiting receiver, and that callback
 *     wakes the queue. When the operation ends it sends the key itself, which withdraws the
 *     receive. No polling: nothing runs while an operation waits.
 *
 * The queue also counts the time dequeuers spent blocked (tfc_queue_dequeue_wait_us), a
 * figure a training loop can print to see whether input keeps up.
 *
 * Ownership: a queue is a refcounted tfc_resource (tfc_queue_kind); operations borrow it.
 * Component tensors passed in are borrowed (the queue takes references or copies); outputs
 * are new references. Thread-safety: every function is thread-safe.
 */
#ifndef TFC_STATE_QUEUE_H
#define TFC_STATE_QUEUE_H

#include <pthread.h>
#include <stdint.h>

#include "base/status.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

struct tfc_rendezvous;

typedef struct tfc_queue tfc_queue;

enum tfc_queue_type {
  TFC_QUEUE_FIFO = 0,
  TFC_QUEUE_RANDOM_SHUFFLE = 1,
  TFC_QUEUE_PADDING_FIFO = 2,
  TFC_QUEUE_TYPE_COUNT = 3
};

/* The kind of every queue (TF's QueueInterface). */
extern const tfc_resource_kind tfc_queue_kind;

typedef struct tfc_queue_options {
  int type;                /* enum tfc_queue_type */
  const char *name;        /* TF's queue name for messages: shared_name or "_<id>_<node>" */
  int n_components;        /* >= 1 */
  const int *dtypes;       /* n_components */
  int n_shapes;            /* 0 (unspecified) or n_components */
  const tfc_shape *shapes; /* fully defined; a padding queue's: every component's, rank known,
                              dims may be unknown (-1) */
  int64_t capacity;        /* < 0: unbounded */
  int64_t min_after_dequeue; /* RandomShuffleQueue */
  int64_t seed, seed2;       /* RandomShuffleQueue */
} tfc_queue_options;

/* A new queue (one reference). INVALID_ARGUMENT with TF's texts for bad options
 * ("min_after_dequeue 5 must be < capacity 5"). */
tfc_queue *tfc_queue_new(const tfc_queue_options *o, tfc_status *s);
static inline tfc_queue *tfc_queue_from_resource(tfc_resource *r) { return (tfc_queue *)r; }
static inline tfc_resource *tfc_queue_resource(tfc_queue *q) { return (tfc_resource *)q; }
/* Checks a shared queue against the options of another node asking for it (op: the node's
 * op name): TF's INVALID_ARGUMENT "Shared queue '<name>' has capacity 2 but requested
 * capacity was 3" and the like. */
int tfc_queue_check_shared(const tfc_queue *q, const tfc_queue_options *o, const char *node_name, const char *op,
                           tfc_status *s);

/* What one blocking call may be cancelled by besides the queue: the step's rendezvous
 * (borrowed; NULL: none) and the node name (for the rendezvous key). Caller storage: init
 * before the call, fini after it (fini withdraws the registration; call it without holding
 * anything the abort path may need). One thread at a time. */
typedef struct tfc_queue_cancel {
  struct tfc_rendezvous *rendezvous;
  const char *node_name;
  struct tfc_queue_watch *watch; /* registered on first block */
} tfc_queue_cancel;
void tfc_queue_cancel_init(tfc_queue_cancel *c, struct tfc_rendezvous *rendezvous, const char *node_name);
void tfc_queue_cancel_fini(tfc_queue_cancel *c);
/* For other blocking resources (the accumulators of state/accumulator.h), which wait as a
 * queue does. Whether c's step was aborted (c may be NULL: no). */
int tfc_queue_cancel_aborted(const tfc_queue_cancel *c);
/* One wait on cv with mu (r's, held on entry and exit). The first time a call with a
 * rendezvous would wait, it registers c's watch instead (dropping mu; an abort then
 * broadcasts cv, and the key names "<node> (blocked on <what> '<name>')") and returns 0
 * without waiting, so the caller re-checks everything first; otherwise it waits and
 * returns 1. r (borrowed) gets a reference while the watch lives. */
int tfc_queue_cancel_wait(tfc_queue_cancel *c, tfc_resource *r, pthread_mutex_t *mu, pthread_cond_t *cv,
                          const char *what, const char *name);

/* Enqueue (many = 0) or EnqueueMany (many = 1) of components[0..n) (borrowed). Blocks while
 * the queue is full. Errors: INVALID_ARGUMENT with TF's texts for a count, dtype or shape
 * mismatch; CANCELLED when closed or cancelled (see the top comment). */
int tfc_queue_enqueue(tfc_queue *q, tfc_tensor *const *components, int n, int many, tfc_queue_cancel *cx,
                      tfc_status *s);
/* Dequeue (n < 0: one element, no batch dimension), DequeueMany (n >= 0) or DequeueUpTo
 * (n >= 0, allow_small). out[0..n_components) receive new references. Errors: OUT_OF_RANGE
 * when closed with too few elements, INVALID_ARGUMENT for DequeueMany on a queue without
 * shapes, CANCELLED (see the top comment). */
int tfc_queue_dequeue(tfc_queue *q, int64_t n, int allow_small, tfc_queue_cancel *cx, tfc_tensor **out,
                      tfc_status *s);
int tfc_queue_close(tfc_queue *q, int cancel_pending_enqueues, tfc_status *s);
int64_t tfc_queue_size(tfc_queue *q);
int tfc_queue_is_closed(tfc_queue *q);
int tfc_queue_n_components(const tfc_queue *q);
int tfc_queue_dtype(const tfc_queue *q, int i);
/* Total microseconds dequeue operations have spent blocked on this queue. */
int64_t tfc_queue_dequeue_wait_us(tfc_queue *q);

#endif
