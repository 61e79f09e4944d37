/*
 * random_kernel — what the CPU and GPU kernels of the stateful random ops (RandomUniform,
 * RandomStandardNormal, TruncatedNormal, RandomUniformInt, Multinomial) share: TF's per-node generator,
 * its seeding, the reservation of each run's samples, and the checks of the host-memory
 * inputs. Each device supplies only the fill: the CPU fills Philox groups on the intra-op pool
 * (cpu/kernels_random.c), the GPU enqueues a kernel on its compute stream
 * (cuda/kernels_random_gpu.c). For the same seeds, run k of a node draws the same samples on
 * either device.
 *
 * State. Each node owns one generator, as TF's GuardedPhiloxRandom: init seeds it from the
 * seed/seed2 attrs (both 0: two random 64-bit seeds, so the stream differs per process and per
 * node). The rows are TFC_KF_SHARED_STATE: a session's executors share the node's generator
 * (exec/segment.h), so whatever fetches run the node, its runs draw one stream, as in TF. compute may run concurrently in several steps, so the generator sits behind a mutex;
 * a run locks only to reserve its samples: it copies the generator and skips the shared one
 * ahead by 256 samples per output element (TF's ReserveRandomOutputs(n, 256)), then fills from
 * the copy without the lock. Runs 1, 2, 3 of a node therefore produce TF's runs 1, 2, 3,
 * whatever order concurrent steps reserve in.
 *
 * Inputs live in host memory (shape, and RandomUniformInt's minval/maxval). Errors are TF's
 * INVALID_ARGUMENT texts; validation happens before the reservation, so a failed run leaves
 * the stream where it was, as in TF.
 *
 * Ownership: the state is the kernel state of its node (tfc_random_free). Thread-safety: as
 * above.
 */
#ifndef TFC_DEVICE_RANDOM_KERNEL_H
#define TFC_DEVICE_RANDOM_KERNEL_H

#include <pthread.h>

#include "base/philox.h"
#include "device/kernel.h"

typedef struct tfc_random_state tfc_random_state;

/* Fills out (n_elems values, possibly 0) from `base` with the state's distribution and element
 * type; lo and range are RandomUniformInt's (0 for the others). Returns the status code (with
 * the kernel error set on failure). */
typedef int (*tfc_random_fill_fn)(tfc_kernel_ctx *c, const tfc_random_state *st, const tfc_philox *base,
                                  tfc_tensor *out, int64_t lo, uint64_t range);

struct tfc_random_state {
  pthread_mutex_t mu;
  tfc_philox gen; /* guarded by mu */
  int dist;       /* TFC_PHILOX_* distribution */
  int elem;       /* TFC_PHILOX_* element type of the output */
  tfc_random_fill_fn fill;
};

/* The kernel state of a node drawing `dist` into the dtype named by type_attr ("dtype", or
 * "Tout" for RandomUniformInt). An unsupported dtype is INVALID_ARGUMENT "node 'n' (Op):
 * unsupported <attr> <dtype><where>" (where: "" or " on GPU"). */
int tfc_random_init(const tfc_node *n, void **state, int dist, const char *type_attr, tfc_random_fill_fn fill,
                    const char *where, tfc_status *s);
void tfc_random_free(void *state); /* NULL: no-op */
/* compute of RandomUniform, RandomStandardNormal and TruncatedNormal. */
int tfc_random_compute(tfc_kernel_ctx *c);
/* compute of RandomUniformInt (minval and maxval checked as TF does). */
int tfc_random_uniform_int_compute(tfc_kernel_ctx *c);

/* Multinomial (logits [batch, classes], num_samples a host-memory scalar): TF's checks and
 * texts, output 0 ([batch, num_samples] of output_dtype) allocated, and, when there is a
 * sample to draw, the run's reservation: *gen is the generator for it, the node's skipped by
 * batch * ceil4(num_samples) * 2 outputs as TF's kernel reserves. *gen is untouched (and the
 * stream stays put) when the output is empty. Sample s (row-major over the output) takes words
 * 2s and 2s + 1 of *gen's stream (four per call), so the devices draw it independently.
 * Returns the output or NULL with the kernel error set. */
tfc_tensor *tfc_multinomial_prepare(tfc_kernel_ctx *c, tfc_philox *gen);

/* Shared with the stateless ops (cpu/kernels_stateless_random.c). */
/* Allocates output 0 with the dims held by input 0 (the shape vector), with TF's checks and
 * texts (TensorShapeUtils::MakeShape: a vector of int32/int64, rank <= TFC_MAX_DIMS, dims >= 0,
 * at most 2^63 - 1 elements). Returns the output (owned by the context), or NULL with the
 * kernel error set (INVALID_ARGUMENT, or the allocator's error). */
tfc_tensor *tfc_random_alloc_output(tfc_kernel_ctx *c, int dtype);
/* The TFC_PHILOX_* element type of a float or int32/int64 dtype, or -1. */
int tfc_random_elem(int dtype);
/* The width of [lo, hi) in the unsigned type of dtype (int32 or int64), as TF's uniform int
 * distribution takes it; the caller has checked lo < hi. */
uint64_t tfc_random_int_range(int dtype, int64_t lo, int64_t hi);
/* The uniform int ops' minval and maxval must be scalars: TF's INVALID_ARGUMENT "minval must
 * be 0-D, got shape [..]" (then maxval's) set on c; TFC_OK when both are. */
int tfc_random_check_bounds_rank(tfc_kernel_ctx *c, const tfc_tensor *minval, const tfc_tensor *maxval);

#endif
