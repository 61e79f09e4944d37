/*
 * accumulator — TF's gradient accumulators (ConditionalAccumulator and
 * SparseConditionalAccumulator, TF 1.15's conditional_accumulator*.h) as resources of a
 * device (state/resource_mgr.h), for the kernels of ops_accumulator.def. Synchronous training
 * gives each variable one, shared by name on its ps task: every worker applies its gradient,
 * the chief takes the average and applies it once.
 *
 * Semantics (each checked against TensorFlow):
 *   - An accumulator has a dtype, a shape (possibly partial or of unknown rank), a reduction
 *     (MEAN or SUM), a global step (0 at first) and a count of gradients accumulated.
 *   - Apply(local_step, gradient): a gradient with local_step < the global step is stale and
 *     dropped without a word (nor any check). Otherwise it is checked and added, and the
 *     count grows by one. Dense: the gradient must match the first one accumulated since the
 *     last take and be compatible with the shape (INVALID_ARGUMENT "Shape mismatch: expected
 *     [2], got [3]"). Sparse: indices (a vector of int64), values (rank >= 1, one row per
 *     index) and, when has_known_shape, the dense shape; checked with TF's texts ("Expected 2
 *     non-empty input values, got 1", "Shape mismatch: expected values dim 1 to be 2, got 3",
 *     ...). The sparse sum is TF's: the accumulated entries and the new ones are merged as two
 *     sorted lists would be (equal indices meet and add; nothing is sorted, so unsorted or
 *     repeated indices give TF's same list), and every entry counts the gradients that met
 *     in it.
 *   - Take(num_required): num_required < 1 is INVALID_ARGUMENT "Argument num_required must
 *     be positive, but was 0". Otherwise it waits until at least num_required gradients were
 *     accumulated (takes are served in arrival order), returns all of them reduced: the sum,
 *     divided for MEAN by the count (sparse: each entry by its own count), resets the
 *     accumulator (a dense one of unknown shape takes a new shape next) and increments the
 *     global step. A sparse take returns indices, values and the shape [shape's dim 0 or -1,
 *     values' other dims].
 *   - SetGlobalStep(s) sets the global step to s, smaller than before or not (TF logs a
 *     warning for a smaller one; tfc has no warning log).
 *   - Only half, float and double accumulate (TF's kernels); sums run in the dtype, a half
 *     sum rounded after each add, as TF's.
 *
 * Blocking and cancellation: a take waits on the accumulator's condition variable, holding its
 * thread, and fails cleanly with CANCELLED "TakeGrad operation was cancelled" when the
 * accumulator is cancelled (tfc_resource_mgr_cancel_all: the session closes) or the step is
 * aborted (the cx watch, as queue operations do: state/queue.h).
 *
 * Ownership: an accumulator is a refcounted tfc_resource (tfc_accumulator_kind); operations
 * borrow it. Input tensors are borrowed (copied); outputs are new tensors. Thread-safety:
 * every function is thread-safe.
 */
#ifndef TFC_STATE_ACCUMULATOR_H
#define TFC_STATE_ACCUMULATOR_H

#include <stdint.h>

#include "base/status.h"
#include "state/queue.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

typedef struct tfc_accumulator tfc_accumulator;

/* The kind of every accumulator, dense and sparse (TF's ConditionalAccumulatorBase). */
extern const tfc_resource_kind tfc_accumulator_kind;

/* A new accumulator (one reference, the caller's), or NULL with RESOURCE_EXHAUSTED. name is
 * for messages (copied); shape (copied) may be partial or of unknown rank; sum: SUM, else
 * MEAN. dtype must be half, float or double (the kernels' constraint). */
tfc_accumulator *tfc_accumulator_new(const char *name, int sparse, int dtype, const tfc_shape *shape, int sum,
                                     tfc_status *s);
static inline tfc_accumulator *tfc_accumulator_from_resource(tfc_resource *r) { return (tfc_accumulator *)r; }
static inline tfc_resource *tfc_accumulator_resource(tfc_accumulator *a) { return (tfc_resource *)a; }

int tfc_accumulator_dtype(const tfc_accumulator *a);
int tfc_accumulator_is_sparse(const tfc_accumulator *a);
const char *tfc_accumulator_name(const tfc_accumulator *a);
int32_t tfc_accumulator_num_accumulated(tfc_accumulator *a);
void tfc_accumulator_set_global_step(tfc_accumulator *a, int64_t step);
/* How many takes wait now (for diagnostics and tests). */
int tfc_accumulator_num_takers(tfc_accumulator *a);

/* Apply to a dense accumulator: gradient (the accumulator's dtype, borrowed). See the top
 * comment; INVALID_ARGUMENT with TF's texts. */
int tfc_accumulator_apply(tfc_accumulator *a, int64_t local_step, const tfc_tensor *gradient, tfc_status *s);
/* Apply to a sparse accumulator: indices (int64), values (the dtype), shape (int64; NULL
 * when the gradient has no known shape). */
int tfc_accumulator_apply_sparse(tfc_accumulator *a, int64_t local_step, const tfc_tensor *indices,
                                 const tfc_tensor *values, const tfc_tensor *shape, tfc_status *s);
/* Take from a dense accumulator: *out_average a new tensor. Blocks (see the top comment); cx
 * (caller storage, may be NULL) ties the wait to the step. */
int tfc_accumulator_take(tfc_accumulator *a, int32_t num_required, tfc_queue_cancel *cx, tfc_tensor **out_average,
                         tfc_status *s);
/* Take from a sparse accumulator: new tensors indices [n] int64, values [n, ...], shape
 * [rank] int64. */
int tfc_accumulator_take_sparse(tfc_accumulator *a, int32_t num_required, tfc_queue_cancel *cx,
                                tfc_tensor **out_indices, tfc_tensor **out_values, tfc_tensor **out_shape,
                                tfc_status *s);

#endif
