/* allocator — see allocator.h. */
#include "tensor/allocator.h"

#include <stdio.h>
#include <stdlib.h>

tfc_allocator *tfc_allocator_new(const char *name) {
  tfc_allocator *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  atomic_init(&a->refs, 1);
  snprintf(a->name, sizeof a->name, "%s", name ? name : "");
  return a;
}

tfc_allocator *tfc_allocator_ref(tfc_allocator *a) {
  atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
  return a;
}

void tfc_allocator_unref(tfc_allocator *a) {
  if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1) free(a);
}

tfc_tensor *tfc_allocator_tensor(tfc_allocator *a, int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, s);
  if (!t || !a) return t;
  long long size = (long long)t->buf->size;
  t->buf->allocator = tfc_allocator_ref(a);
  atomic_fetch_add_explicit(&a->n_allocs, 1, memory_order_relaxed);
  long long now = atomic_fetch_add_explicit(&a->bytes_in_use, size, memory_order_relaxed) + size;
  long long peak = atomic_load_explicit(&a->peak_bytes_in_use, memory_order_relaxed);
  while (now > peak &&
         !atomic_compare_exchange_weak_explicit(&a->peak_bytes_in_use, &peak, now, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
  return t;
}

tfc_allocator_stats tfc_allocator_get_stats(tfc_allocator *a) {
  tfc_allocator_stats st = {atomic_load(&a->bytes_in_use), atomic_load(&a->peak_bytes_in_use),
                            atomic_load(&a->n_allocs)};
  return st;
}
