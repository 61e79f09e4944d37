/*
 * allocator — per-device accounting of tensor memory, and where device memory comes from.
 *
 * Each device owns an allocator; kernels allocate their outputs through their device's, so
 * every buffer knows which device's memory it counts against: bytes in use, the peak, and the
 * number of allocations, per device (TF's AllocatorStats). A CPU allocator hands out the same
 * aligned host heap as every tensor. A device allocator (a GPU's) has an ops table: its
 * tensors' bytes come from ops->alloc (the device's arena) and go back through ops->free when
 * the last reference to the buffer goes, whichever thread drops it.
 *
 * Device memory: when `device_memory` is set, a tensor's `data` is an address on the device.
 * The CPU must never read or write it (no memcpy, no element access, no printing): only the
 * device's kernels and the platform's copy functions touch it. Host code that needs the
 * values copies them to a host tensor first.
 *
 * Lifetime: refcounted. The device holds one reference and every live buffer one more (a
 * device buffer two: one for the accounting, one for giving the memory back), so a tensor
 * fetched from a session may outlive the session and its devices; the ops context is
 * destroyed with the last reference.
 * Thread-safety: all functions may be called from any thread (atomic counters; the ops must
 * be thread-safe themselves).
 */
#ifndef TFC_TENSOR_ALLOCATOR_H
#define TFC_TENSOR_ALLOCATOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "tensor/tensor.h"

/* Where a device allocator's memory comes from. ctx is the allocator's ops_ctx. */
typedef struct tfc_allocator_ops {
  /* `bytes` of device memory (bytes may be 0: a valid, distinct pointer). NULL with s set on
   * failure: RESOURCE_EXHAUSTED with the arena's own description when out of memory. */
  void *(*alloc)(void *ctx, size_t bytes, tfc_status *s);
  /* p from alloc of the same ctx. */
  void (*free)(void *ctx, void *p);
  /* The usable size of p (at least the bytes asked for). */
  size_t (*usable_size)(void *ctx, const void *p);
  /* Frees ctx at the allocator's last reference (NULL: nothing to do). */
  void (*destroy)(void *ctx);
} tfc_allocator_ops;

struct tfc_allocator {
  atomic_int refs;
  atomic_llong bytes_in_use;
  atomic_llong peak_bytes_in_use;
  atomic_llong n_allocs;
  char name[128]; /* the device's name */
  /* Device allocators only (NULL/0 for CPU ones). */
  const tfc_allocator_ops *ops;
  void *ops_ctx;
  int device_memory;   /* tensor bytes are device addresses: see the top comment */
  char arena_name[64]; /* "GPU_0_bfc", for out-of-memory messages */
};

typedef struct tfc_allocator_stats {
  int64_t bytes_in_use, peak_bytes_in_use, n_allocs;
} tfc_allocator_stats;

/* A new host-memory allocator with one reference; NULL on out of memory. */
tfc_allocator *tfc_allocator_new(const char *name);
/* A new device allocator with one reference: tensors take their bytes from ops (borrowed; must
 * outlive the allocator, normally a static table) with ctx, which the allocator owns from now
 * on (ops->destroy at the last reference). device_memory: whether those bytes are device
 * addresses the CPU must not touch. arena_name names the memory in out-of-memory messages.
 * NULL on out of memory; ctx then still belongs to the caller. */
tfc_allocator *tfc_allocator_new_device(const char *name, const char *arena_name, const tfc_allocator_ops *ops,
                                        void *ctx, int device_memory);
tfc_allocator *tfc_allocator_ref(tfc_allocator *a);
void tfc_allocator_unref(tfc_allocator *a); /* NULL is a no-op */
/* A new tensor (as tfc_tensor_new) whose bytes count against a (NULL: nobody's). With a
 * device allocator the bytes are uninitialized device memory, and running out of it is
 * RESOURCE_EXHAUSTED "OOM when allocating tensor with shape[10000,10000] and type float on
 * <device> by allocator <arena>" followed by a newline and the arena's own report (the
 * executor prefixes the node); string tensors cannot live in device memory (INVALID_ARGUMENT).
 * Caller owns the returned reference. */
tfc_tensor *tfc_allocator_tensor(tfc_allocator *a, int dtype, const int64_t *dims, int ndims,
                                 tfc_status *s);
tfc_allocator_stats tfc_allocator_get_stats(tfc_allocator *a);

#endif
