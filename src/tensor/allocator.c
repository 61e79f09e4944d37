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

tfc_allocator *tfc_allocator_new_device(const char *name, const char *arena_name, const tfc_allocator_ops *ops,
                                        void *ctx, int device_memory) {
  tfc_allocator *a = tfc_allocator_new(name);
  if (!a) return NULL;
  a->ops = ops;
  a->ops_ctx = ctx;
  a->device_memory = device_memory != 0;
  snprintf(a->arena_name, sizeof a->arena_name, "%s", arena_name ? arena_name : "");
  return a;
}

tfc_allocator *tfc_allocator_ref(tfc_allocator *a) {
  atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
  return a;
}

void tfc_allocator_unref(tfc_allocator *a) {
  if (!a || atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1) return;
  if (a->ops && a->ops->destroy) a->ops->destroy(a->ops_ctx);
  free(a);
}

static void count_alloc(tfc_allocator *a, tfc_buffer *b) {
  long long size = (long long)b->size;
  b->allocator = tfc_allocator_ref(a);
  atomic_fetch_add_explicit(&a->n_allocs, 1, memory_order_relaxed);
  long long now = atomic_fetch_add_explicit(&a->bytes_in_use, size, memory_order_relaxed) + size;
  long long peak = atomic_load_explicit(&a->peak_bytes_in_use, memory_order_relaxed);
  while (now > peak &&
         !atomic_compare_exchange_weak_explicit(&a->peak_bytes_in_use, &peak, now, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

/* The release of a device buffer: the memory goes back to the arena, then the reference that
 * kept the allocator (and so the arena) alive for it is dropped. */
static void device_release(void *data, size_t size, void *arg) {
  (void)size;
  tfc_allocator *a = arg;
  a->ops->free(a->ops_ctx, data);
  tfc_allocator_unref(a);
}

static tfc_tensor *device_tensor(tfc_allocator *a, int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  if (dtype == TFC_DT_STRING) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "string tensors cannot live in device memory (allocator %s on %s)",
                   a->arena_name, a->name);
    return NULL;
  }
  /* Bad dtypes and dims get tfc_tensor_new's errors, which validates them before taking any
   * memory: asking it is simpler than repeating its checks and messages here. */
  size_t es = tfc_dtype_valid(dtype) ? tfc_dtype_size(dtype) : 0;
  int64_t n = ndims >= 0 && ndims <= TFC_MAX_DIMS ? tfc_dims_num_elements(dims, ndims) : -1;
  if (es == 0 || n < 0 || (uint64_t)n > SIZE_MAX / es / 2) {
    tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, s);
    if (t) { /* unreachable: the same checks passed there */
      tfc_tensor_unref(t);
      tfc_status_set(s, TFC_INTERNAL, "device allocator %s rejected a valid tensor", a->arena_name);
    }
    return NULL;
  }
  size_t bytes = (size_t)n * es;
  void *p = a->ops->alloc(a->ops_ctx, bytes, s);
  if (!p) {
    char shape[TFC_SHAPE_STR_MAX];
    tfc_dims_str(dims, ndims, shape, sizeof shape);
    if (tfc_status_ok(s)) tfc_status_set(s, TFC_INTERNAL, "the arena gave no memory and no reason");
    /* TF's first line for running out; any other failure (a device error) says what was asked. */
    if (s->code == TFC_RESOURCE_EXHAUSTED)
      tfc_status_prefix(s, "OOM when allocating tensor with shape%s and type %s on %s by allocator %s\n", shape,
                        tfc_dtype_name(dtype), a->name, a->arena_name);
    else
      tfc_status_prefix(s, "allocating tensor with shape%s and type %s on %s by allocator %s: ", shape,
                        tfc_dtype_name(dtype), a->name, a->arena_name);
    return NULL;
  }
  tfc_tensor *t = tfc_tensor_wrap(dtype, dims, ndims, p, bytes, device_release, tfc_allocator_ref(a), s);
  if (t) count_alloc(a, t->buf);
  return t;
}

tfc_tensor *tfc_allocator_tensor(tfc_allocator *a, int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  if (a && a->ops) return device_tensor(a, dtype, dims, ndims, s);
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, s);
  if (t && a) count_alloc(a, t->buf);
  return t;
}

tfc_allocator_stats tfc_allocator_get_stats(tfc_allocator *a) {
  tfc_allocator_stats st = {atomic_load(&a->bytes_in_use), atomic_load(&a->peak_bytes_in_use),
                            atomic_load(&a->n_allocs)};
  return st;
}
