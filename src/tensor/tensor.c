/*
 * tensor — see tensor.h.
 *
 * A buffer the runtime allocates is one aligned block: the tfc_buffer header, then the data
 * at the next 64-byte boundary. A tensor tfc_tensor_new makes puts its header between the two
 * (HEADER_SPACE + TENSOR_SPACE): one allocation and one free per tensor keeps tiny-op overhead
 * low (a scalar's block comes from base/mem.c's per-thread cache of small blocks).
 *
 * Reference counts: the holder of the only reference drops it without an atomic
 * read-modify-write (no one else can be taking one), so a tensor made and released by one
 * kernel after another costs no locked instruction at its release.
 */
#include "tensor/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "tensor/allocator.h"

#define HEADER_SPACE ((sizeof(tfc_buffer) + TFC_ALIGN - 1) & ~(size_t)(TFC_ALIGN - 1))
#define TENSOR_SPACE ((sizeof(tfc_tensor) + TFC_ALIGN - 1) & ~(size_t)(TFC_ALIGN - 1))

/* Drops one of the references in *refs; true when it was the last. The sole holder skips the
 * atomic subtraction: with one reference, held by the caller, no other thread can touch the
 * count. The acquire load orders the release after every other holder's drop. */
static inline int drop_last_ref(atomic_int *refs) {
  return atomic_load_explicit(refs, memory_order_acquire) == 1 ||
         atomic_fetch_sub_explicit(refs, 1, memory_order_acq_rel) == 1;
}

/* check_dims' errors, out of its inlined fast path. Always returns the code set in s. */
static __attribute__((noinline, cold)) int dims_error(int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  if (!tfc_dtype_valid(dtype) || tfc_dtype_size(dtype) == 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "unsupported tensor dtype %s (%d)",
                          tfc_dtype_name(dtype), dtype);
  if (ndims < 0 || ndims > TFC_MAX_DIMS)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "tensor rank %d is out of range [0, %d]", ndims,
                          TFC_MAX_DIMS);
  int64_t n = tfc_dims_num_elements(dims, ndims);
  if (n < 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "invalid tensor dims %s",
                          tfc_dims_str(dims, ndims, buf, sizeof buf));
  }
  return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "tensor of %lld elements is too large", (long long)n);
}

/* Validates dtype and dims and sizes the payload. Writes *n_elems and *n_bytes on every path
 * (0 on error), so no caller can read them unset. */
static inline int check_dims(int dtype, const int64_t *dims, int ndims, int64_t *n_elems, size_t *n_bytes,
                             tfc_status *s) {
  size_t es = tfc_dtype_valid(dtype) ? tfc_dtype_sizes[dtype] : 0;
  int64_t n = es && ndims >= 0 && ndims <= TFC_MAX_DIMS ? tfc_dims_num_elements(dims, ndims) : -1;
  /* es <= 16: most sizes pass the bound without the division */
  if (n < 0 || ((uint64_t)n > SIZE_MAX / 2 / 16 && (uint64_t)n > SIZE_MAX / es / 2)) {
    *n_elems = 0;
    *n_bytes = 0;
    return dims_error(dtype, dims, ndims, s);
  }
  *n_elems = n;
  *n_bytes = (size_t)n * es;
  return TFC_OK;
}

/* Variant tensors hold pointers to refcounted payloads: only tensor/variant.c makes them (over
 * tfc_tensor_wrap), never raw or foreign bytes. */
static int refuse_variant(int dtype, tfc_status *s) {
  if (dtype != TFC_DT_VARIANT) return TFC_OK;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "unsupported tensor dtype %s (%d)", tfc_dtype_name(dtype), dtype);
}

static void noop_release(void *data, size_t size, void *arg) {
  (void)data;
  (void)size;
  (void)arg;
}

/* Fills a header over buf (whose reference the header takes over). */
static void header_init(tfc_tensor *t, int dtype, const int64_t *dims, int ndims, int64_t n_elems,
                        size_t n_bytes, tfc_buffer *buf, int in_block) {
  atomic_init(&t->refs, 1);
  t->dtype = dtype;
  t->var = NULL;
  t->ndims = ndims;
  t->in_block = in_block;
  t->n_elems = n_elems;
  t->n_bytes = n_bytes;
  t->buf = buf;
  t->data = buf->data;
  if (ndims) memcpy(t->dims, dims, sizeof(int64_t) * (size_t)ndims);
}

static tfc_tensor *header_new(int dtype, const int64_t *dims, int ndims, int64_t n_elems,
                              size_t n_bytes, tfc_buffer *buf, tfc_status *s) {
  tfc_tensor *t = malloc(sizeof *t);
  if (!t) { TFC_OOM(s); return NULL; }
  header_init(t, dtype, dims, ndims, n_elems, n_bytes, buf, 0);
  return t;
}

/* A block of the buffer header, `extra` bytes (a tensor header's room, or none), then `size`
 * bytes of data; the buffer holds one reference and no strings. NULL when memory runs out. */
static tfc_buffer *block_new(size_t extra, size_t size) {
  tfc_buffer *b = tfc_block_alloc(HEADER_SPACE + extra + size);
  if (!b) return NULL;
  atomic_init(&b->refs, 1);
  b->has_header = extra != 0;
  b->data = (char *)b + HEADER_SPACE + extra;
  b->size = size;
  b->n_strings = 0;
  b->release = NULL;
  b->release_arg = NULL;
  b->allocator = NULL;
  return b;
}

/* Frees b after its last reference went: strings, accounting, then the bytes. */
static inline void buffer_free(tfc_buffer *b) {
  if (b->n_strings) {
    tfc_tstring *str = b->data;
    for (int i = 0; i < b->n_strings; i++) free(str[i].data);
  }
  if (b->allocator) {
    atomic_fetch_sub_explicit(&b->allocator->bytes_in_use, (long long)b->size, memory_order_relaxed);
    tfc_allocator_unref(b->allocator);
  }
  if (b->release) {
    b->release(b->data, b->size, b->release_arg);
    free(b);
  } else {
    tfc_block_free(b, HEADER_SPACE + (b->has_header ? TENSOR_SPACE : 0) + b->size);
  }
}

void tfc_buffer_unref(tfc_buffer *b) {
  if (drop_last_ref(&b->refs)) buffer_free(b);
}

tfc_tensor *tfc_tensor_new(int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  int64_t n;
  size_t bytes;
  if (refuse_variant(dtype, s) || check_dims(dtype, dims, ndims, &n, &bytes, s)) return NULL;
  if (dtype == TFC_DT_STRING && n > INT32_MAX) {
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "string tensor of %lld elements is too large",
                   (long long)n);
    return NULL;
  }
  tfc_buffer *b = block_new(TENSOR_SPACE, bytes);
  if (!b) { TFC_OOM(s); return NULL; }
  b->n_strings = dtype == TFC_DT_STRING ? (int)n : 0;
  if (b->n_strings) memset(b->data, 0, bytes);
  tfc_tensor *t = (tfc_tensor *)((char *)b + HEADER_SPACE);
  header_init(t, dtype, dims, ndims, n, bytes, b, 1);
  return t;
}

tfc_tensor *tfc_tensor_zeros(int dtype, const int64_t *dims, int ndims, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, s);
  if (t) memset(t->data, 0, t->n_bytes);
  return t;
}

tfc_tensor *tfc_tensor_scalar(int dtype, const void *value, tfc_status *s) {
  tfc_tensor *t = tfc_tensor_new(dtype, NULL, 0, s);
  if (!t) return NULL;
  if (dtype == TFC_DT_STRING) {
    const tfc_tstring *v = value;
    if (tfc_tstring_assign(tfc_tensor_strings(t), v->data, v->len, s)) {
      tfc_tensor_unref(t);
      return NULL;
    }
  } else {
    memcpy(t->data, value, t->n_bytes);
  }
  return t;
}

tfc_tensor *tfc_tensor_wrap(int dtype, const int64_t *dims, int ndims, void *data, size_t size,
                            void (*release)(void *, size_t, void *), void *arg, tfc_status *s) {
  int64_t n;
  size_t bytes;
  tfc_buffer *b = NULL;
  if (dtype == TFC_DT_STRING) {
    tfc_status_set(s, TFC_INTERNAL, "tfc_tensor_wrap does not take string tensors");
    goto fail;
  }
  if (check_dims(dtype, dims, ndims, &n, &bytes, s)) goto fail;
  if (bytes != size) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "tensor data of %zu bytes does not match dtype %s and %lld elements (%zu bytes)",
                   size, tfc_dtype_name(dtype), (long long)n, bytes);
    goto fail;
  }
  b = malloc(sizeof *b);
  if (!b) { TFC_OOM(s); goto fail; }
  atomic_init(&b->refs, 1);
  b->has_header = 0;
  b->data = data;
  b->size = size;
  b->n_strings = 0;
  b->release = release ? release : noop_release;
  b->release_arg = arg;
  b->allocator = NULL;
  tfc_tensor *t = header_new(dtype, dims, ndims, n, bytes, b, s);
  if (!t) tfc_buffer_unref(b);
  return t;
fail:
  if (release) release(data, size, arg);
  return NULL;
}

tfc_tensor *tfc_tensor_reshaped(tfc_tensor *t, const int64_t *dims, int ndims, tfc_status *s) {
  int64_t n;
  size_t bytes;
  if (check_dims(t->dtype, dims, ndims, &n, &bytes, s)) return NULL;
  if (n != t->n_elems) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "cannot reshape a tensor with %lld elements %s to %s",
                   (long long)t->n_elems, tfc_dims_str(t->dims, t->ndims, a, sizeof a),
                   tfc_dims_str(dims, ndims, b, sizeof b));
    return NULL;
  }
  atomic_fetch_add(&t->buf->refs, 1);
  tfc_tensor *r = header_new(t->dtype, dims, ndims, n, bytes, t->buf, s);
  if (!r) {
    tfc_buffer_unref(t->buf);
    return NULL;
  }
  r->data = t->data; /* t may be a view into its buffer */
  return r;
}

tfc_tensor *tfc_tensor_view(tfc_tensor *t, size_t offset, const int64_t *dims, int ndims, tfc_status *s) {
  int64_t n;
  size_t bytes;
  if (t->dtype == TFC_DT_STRING || t->dtype == TFC_DT_VARIANT) {
    tfc_status_set(s, TFC_INTERNAL, "tfc_tensor_view does not take %s tensors", tfc_dtype_name(t->dtype));
    return NULL;
  }
  if (check_dims(t->dtype, dims, ndims, &n, &bytes, s)) return NULL;
  if (offset > t->n_bytes || bytes > t->n_bytes - offset) {
    tfc_status_set(s, TFC_INTERNAL, "a view of %zu bytes at %zu lies outside a tensor of %zu bytes", bytes, offset,
                   t->n_bytes);
    return NULL;
  }
  atomic_fetch_add(&t->buf->refs, 1);
  tfc_tensor *r = header_new(t->dtype, dims, ndims, n, bytes, t->buf, s);
  if (!r) {
    tfc_buffer_unref(t->buf);
    return NULL;
  }
  r->data = (char *)t->data + offset;
  return r;
}

tfc_tensor *tfc_tensor_copy(const tfc_tensor *t, tfc_status *s) {
  tfc_tensor *r = tfc_tensor_new(t->dtype, t->dims, t->ndims, s);
  if (!r) return NULL;
  if (t->dtype == TFC_DT_STRING) {
    const tfc_tstring *src = tfc_tensor_strings(t);
    tfc_tstring *dst = tfc_tensor_strings(r);
    for (int64_t i = 0; i < t->n_elems; i++)
      if (tfc_tstring_assign(&dst[i], src[i].data, src[i].len, s)) {
        tfc_tensor_unref(r);
        return NULL;
      }
  } else if (t->n_bytes) {
    memcpy(r->data, t->data, t->n_bytes);
  }
  return r;
}

void tfc_tensor_unref(tfc_tensor *t) {
  if (!t || !drop_last_ref(&t->refs)) return;
  tfc_buffer *b = t->buf;
  if (!t->in_block) free(t); /* an in-block header goes with its buffer's block */
  if (drop_last_ref(&b->refs)) buffer_free(b);
}

int tfc_tensor_can_forward(const tfc_tensor *t) {
  return atomic_load(&t->refs) == 1 && atomic_load(&t->buf->refs) == 1 &&
         t->dtype != TFC_DT_STRING;
}

tfc_shape tfc_tensor_shape(const tfc_tensor *t) { return tfc_shape_make(t->dims, t->ndims); }

int tfc_tensor_same_shape(const tfc_tensor *a, const tfc_tensor *b) {
  if (a->ndims != b->ndims) return 0;
  for (int i = 0; i < a->ndims; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

int tfc_tstring_assign(tfc_tstring *dst, const void *data, size_t len, tfc_status *s) {
  char *d = malloc(len ? len : 1);
  if (!d) return TFC_OOM(s);
  if (len) memcpy(d, data, len);
  free(dst->data);
  dst->data = d;
  dst->len = len;
  return TFC_OK;
}

double tfc_tensor_get_f64(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return ((const double *)t->data)[i];
    default: return (double)tfc_tensor_get_i64(t, i);
  }
}

int64_t tfc_tensor_get_i64(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_INT32: return ((const int32_t *)t->data)[i];
    case TFC_DT_INT64: return ((const int64_t *)t->data)[i];
    case TFC_DT_UINT8: return ((const uint8_t *)t->data)[i];
    case TFC_DT_INT8: return ((const int8_t *)t->data)[i];
    case TFC_DT_INT16: return ((const int16_t *)t->data)[i];
    case TFC_DT_UINT16: return ((const uint16_t *)t->data)[i];
    case TFC_DT_UINT32: return ((const uint32_t *)t->data)[i];
    case TFC_DT_UINT64: return (int64_t)((const uint64_t *)t->data)[i];
    case TFC_DT_BOOL: return ((const uint8_t *)t->data)[i] != 0;
    case TFC_DT_FLOAT: return (int64_t)((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return (int64_t)((const double *)t->data)[i];
    default: return 0;
  }
}

const char *tfc_tensor_shape_str(const tfc_tensor *t, char *buf, size_t n) {
  return tfc_dims_str(t->dims, t->ndims, buf, n);
}

tfc_buffer *tfc_buffer_new(size_t size) { return block_new(0, size); }

tfc_buffer *tfc_buffer_wrap(void *data, size_t size, void (*release)(void *, size_t, void *), void *arg) {
  tfc_buffer *b = malloc(sizeof *b);
  if (!b) {
    if (release) release(data, size, arg);
    return NULL;
  }
  atomic_init(&b->refs, 1);
  b->has_header = 0;
  b->data = data;
  b->size = size;
  b->n_strings = 0;
  b->release = release ? release : noop_release;
  b->release_arg = arg;
  b->allocator = NULL;
  return b;
}

tfc_tensor *tfc_tensor_from_buffer(int dtype, const int64_t *dims, int ndims, tfc_buffer *b, tfc_status *s) {
  int64_t n;
  size_t bytes;
  if (dtype == TFC_DT_STRING) {
    tfc_status_set(s, TFC_INTERNAL, "tfc_tensor_from_buffer does not take string tensors");
    return NULL;
  }
  if (refuse_variant(dtype, s)) return NULL;
  if (check_dims(dtype, dims, ndims, &n, &bytes, s)) return NULL;
  if (bytes != b->size) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "tensor data of %zu bytes does not match dtype %s and %lld elements (%zu bytes)",
                   b->size, tfc_dtype_name(dtype), (long long)n, bytes);
    return NULL;
  }
  tfc_buffer_ref(b);
  tfc_tensor *t = header_new(dtype, dims, ndims, n, bytes, b, s);
  if (!t) tfc_buffer_unref(b);
  return t;
}
