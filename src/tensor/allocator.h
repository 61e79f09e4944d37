/*
 * allocator — per-device accounting of tensor memory.
 *
 * Each device owns an allocator; kernels allocate their outputs through their device's, so
 * every buffer knows which device's memory it counts against: bytes in use, the peak, and the
 * number of allocations, per device (TF's AllocatorStats). CPU memory itself comes from the
 * same aligned heap as every tensor; a GPU allocator will hand out device memory behind the
 * same interface.
 *
 * Lifetime: refcounted. The device holds one reference and every live buffer one more, so a
 * tensor fetched from a session may outlive the session and its devices.
 * Thread-safety: all functions may be called from any thread (atomic counters).
 */
#ifndef TFC_TENSOR_ALLOCATOR_H
#define TFC_TENSOR_ALLOCATOR_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/status.h"
#include "tensor/tensor.h"

struct tfc_allocator {
  atomic_int refs;
  atomic_llong bytes_in_use;
  atomic_llong peak_bytes_in_use;
  atomic_llong n_allocs;
  char name[128]; /* the device's name */
};

typedef struct tfc_allocator_stats {
  int64_t bytes_in_use, peak_bytes_in_use, n_allocs;
} tfc_allocator_stats;

/* A new allocator with one reference; NULL on out of memory. */
tfc_allocator *tfc_allocator_new(const char *name);
tfc_allocator *tfc_allocator_ref(tfc_allocator *a);
void tfc_allocator_unref(tfc_allocator *a); /* NULL is a no-op */
/* A new tensor (as tfc_tensor_new) whose bytes count against a (NULL: nobody's). */
tfc_tensor *tfc_allocator_tensor(tfc_allocator *a, int dtype, const int64_t *dims, int ndims,
                                 tfc_status *s);
tfc_allocator_stats tfc_allocator_get_stats(tfc_allocator *a);

#endif
