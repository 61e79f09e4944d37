/*
 * tfc/queue_runner.h — TF 1.x's Coordinator and QueueRunner for C programs: threads that keep
 * input queues full by running their enqueue ops, and the coordinator that stops and joins
 * them (tf.train.Coordinator, tf.train.QueueRunner, tf.train.start_queue_runners).
 *
 *   TFC_Coordinator* coord = TFC_NewCoordinator();
 *   TFC_StartQueueRunners(session, graph, coord, status);   // one thread per enqueue op
 *   while (!TFC_CoordinatorShouldStop(coord)) { ... TF_SessionRun(train) ...
 *     on OUT_OF_RANGE: break }
 *   TFC_CoordinatorRequestStop(coord, NULL);
 *   TFC_CoordinatorJoin(coord, status);   // the first real error of any thread, or OK
 *   TFC_DeleteCoordinator(coord);
 *
 * A runner thread runs its enqueue op with TF_SessionRun until it fails. OUT_OF_RANGE or
 * CANCELLED (its queue, or the queue it reads from, was closed; or the session was closed)
 * ends the thread quietly, and the last thread of a runner to end runs the runner's close op,
 * as Python's QueueRunner does; so does a run refused because the session was closed
 * (FAILED_PRECONDITION "Session has been closed."). Any other error asks the coordinator to stop with that error.
 * When the coordinator is asked to stop, each runner runs its cancel op (the queue's close
 * with cancel_pending_enqueues), so threads blocked in an enqueue wake; the threads see the
 * stop request before their next run. Errors of close and cancel ops are ignored (the queue
 * may be closed already).
 *
 * Thread-safety: every function may be called from any thread, except that
 * TFC_DeleteCoordinator must be the last call on its coordinator. Ownership: the coordinator
 * owns its threads; sessions, graphs and operations are borrowed and must outlive the
 * coordinator's threads (join before deleting the session; closing the session while threads
 * run is fine: their runs fail with CANCELLED or FAILED_PRECONDITION and they end).
 */
#ifndef TFC_QUEUE_RUNNER_H_
#define TFC_QUEUE_RUNNER_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_Coordinator TFC_Coordinator;

/* A coordinator with no threads, not stopped. NULL on out of memory. */
TF_CAPI_EXPORT extern TFC_Coordinator* TFC_NewCoordinator(void);
/* Asks every thread to stop and runs (on a helper thread per runner) the runners' cancel
 * ops. error_or_NULL: why; the first error that is not OK, OUT_OF_RANGE or CANCELLED is kept
 * for TFC_CoordinatorJoin (copied). Idempotent; returns at once. */
TF_CAPI_EXPORT extern void TFC_CoordinatorRequestStop(TFC_Coordinator* coord,
                                                      const TF_Status* error_or_NULL);
/* 1 once a stop was requested, else 0. */
TF_CAPI_EXPORT extern int TFC_CoordinatorShouldStop(TFC_Coordinator* coord);
/* Coordinator.raise_requested_exception: sets status to the first kept error (see
 * TFC_CoordinatorRequestStop), or OK; returns at once, waiting for no thread. Thread-safe. */
TF_CAPI_EXPORT extern void TFC_CoordinatorRequestedError(TFC_Coordinator* coord, TF_Status* status);
/* Waits for every thread started so far to end, then sets status to the first kept error,
 * or OK. Does not itself request a stop: threads end on their own (their queues closed) or
 * after TFC_CoordinatorRequestStop. */
TF_CAPI_EXPORT extern void TFC_CoordinatorJoin(TFC_Coordinator* coord, TF_Status* status);
/* Requests a stop, joins, frees. NULL: no-op. */
TF_CAPI_EXPORT extern void TFC_DeleteCoordinator(TFC_Coordinator* coord);

/* Starts the runners of the graph's "queue_runners" collection (include/tfc/train.h; an
 * entry is {queue op, close op, cancel op, enqueue op, enqueue op, ...}): one thread per
 * enqueue op, all registered with coord. Returns the number of threads started (0 for an
 * empty collection). Errors: INVALID_ARGUMENT for a NULL argument or an entry with fewer than
 * four operations (nothing is started then); RESOURCE_EXHAUSTED when a thread cannot be
 * created (the threads already started keep running; join them). */
TF_CAPI_EXPORT extern int TFC_StartQueueRunners(TF_Session* session, TF_Graph* graph,
                                                TFC_Coordinator* coord, TF_Status* status);
/* One runner built by hand: threads for enqueue_ops[0..num_enqueue_ops) (each run
 * num_threads[i] times in parallel when num_threads is not NULL, else once), close_op run by
 * the last thread to end on OUT_OF_RANGE/CANCELLED, cancel_op run on a stop request (either
 * may be NULL). Returns the number of threads started; errors as TFC_StartQueueRunners. */
TF_CAPI_EXPORT extern int TFC_StartQueueRunner(TF_Session* session, TFC_Coordinator* coord,
                                               TF_Operation* close_op, TF_Operation* cancel_op,
                                               TF_Operation* const* enqueue_ops,
                                               const int* num_threads, int num_enqueue_ops,
                                               TF_Status* status);

/* Seconds that dequeue operations (QueueDequeue*V2, and readers taking file names) have
 * spent blocked on the queue of queue_op (a FIFOQueueV2 or RandomShuffleQueueV2 node) in
 * this session, summed over all of them: a figure a training loop can print to see whether
 * its input keeps up. 0 when the queue has not been created yet (its op has not run).
 * INVALID_ARGUMENT for another op or an op this session has not placed. Thread-safe. */
TF_CAPI_EXPORT extern double TFC_QueueDequeueWaitSeconds(TF_Session* session, TF_Operation* queue_op,
                                                         TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TFC_QUEUE_RUNNER_H_ */
