/*
 * tensor — refcounted tensors over refcounted buffers.
 *
 * A tfc_tensor is an immutable header (dtype, dims) pointing into a tfc_buffer. Several
 * headers may share one buffer (Reshape, Identity, ExpandDims never copy). A kernel may write
 * into an input's buffer only when tfc_tensor_can_forward says it holds the sole reference.
 *
 * DT_STRING tensors hold tfc_tstring elements whose bytes the buffer owns and frees.
 *
 * A tensor tfc_tensor_new makes is one block: buffer header, tensor header, data. The tensor
 * header still holds a reference to the buffer like any other, so views, reshapes and
 * tfc_tensor_from_buffer headers over the buffer keep the whole block alive; the block goes
 * at the buffer's last reference.
 *
 * Ownership: every function returning a tfc_tensor * gives the caller one reference;
 * tfc_tensor_unref(NULL) is a no-op. Reference counts are atomic: tensors may be shared
 * across threads; their contents must not be written once shared.
 */
#ifndef TFC_TENSOR_TENSOR_H
#define TFC_TENSOR_TENSOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

typedef struct tfc_allocator tfc_allocator; /* tensor/allocator.h */

typedef struct tfc_buffer {
  atomic_int refs;
  /* 1: the block also holds the header of the tensor made with the buffer (tensor.c), freed
   * with the block. */
  int has_header;
  void *data;
  size_t size;
  int n_strings; /* > 0 only for string buffers: elements to free */
  /* NULL: data was allocated with the buffer (one block). Otherwise called at release. */
  void (*release)(void *data, size_t size, void *arg);
  void *release_arg;
  tfc_allocator *allocator; /* the device the bytes count against (a reference), or NULL */
} tfc_buffer;

typedef struct tfc_tensor {
  atomic_int refs;
  int dtype; /* never a ref type */
  /* Set only on a variable's ref tensor (state/variable.h), which has no data: the variable
   * (not counted) whose value a ref edge carries. */
  struct tfc_var *var;
  int ndims;
  /* 1: the header lives in its buffer's block (tfc_tensor_new: one allocation for both) and
   * goes when the buffer does; its last unref only drops the buffer reference it holds. */
  int in_block;
  int64_t n_elems;
  size_t n_bytes;
  void *data; /* = buf->data */
  tfc_buffer *buf;
  int64_t dims[TFC_MAX_DIMS];
} tfc_tensor;

/* Buffers on their own (the C API's TF_Tensor holds one). new: aligned, uninitialized;
 * wrap: caller memory with a release callback (run at the last unref, or at once on failure). */
tfc_buffer *tfc_buffer_new(size_t size);
tfc_buffer *tfc_buffer_wrap(void *data, size_t size, void (*release)(void *, size_t, void *),
                            void *arg);
static inline tfc_buffer *tfc_buffer_ref(tfc_buffer *b) {
  atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
  return b;
}
void tfc_buffer_unref(tfc_buffer *b);
/* A tensor header over an existing (non-string) buffer; takes a new reference to b. The
 * buffer must hold exactly the bytes dtype and dims need. */
tfc_tensor *tfc_tensor_from_buffer(int dtype, const int64_t *dims, int ndims, tfc_buffer *b,
                                   tfc_status *s);

/* New uninitialized tensor (strings: all empty). Errors: INVALID_ARGUMENT for a bad dtype,
 * rank or dims; RESOURCE_EXHAUSTED when memory runs out. */
tfc_tensor *tfc_tensor_new(int dtype, const int64_t *dims, int ndims, tfc_status *s);
/* Same with the data zeroed. */
tfc_tensor *tfc_tensor_zeros(int dtype, const int64_t *dims, int ndims, tfc_status *s);
tfc_tensor *tfc_tensor_scalar(int dtype, const void *value, tfc_status *s);
/* Wraps caller memory; `release(data, size, arg)` runs when the last reference goes (also on
 * failure). Not for STRING. */
tfc_tensor *tfc_tensor_wrap(int dtype, const int64_t *dims, int ndims, void *data, size_t size,
                            void (*release)(void *, size_t, void *), void *arg, tfc_status *s);
/* A new header with other dims over the same bytes (element counts must match). */
tfc_tensor *tfc_tensor_reshaped(tfc_tensor *t, const int64_t *dims, int ndims, tfc_status *s);
/* A header of dims over t's bytes from byte `offset` on (a row of a batch, say), sharing t's
 * buffer: it lives as long as any header over it, and tfc_tensor_can_forward holds for a view
 * only when no other header shares the buffer. Not for string or variant tensors. Errors:
 * INTERNAL when the bytes fall outside t's, INVALID_ARGUMENT for bad dims. */
tfc_tensor *tfc_tensor_view(tfc_tensor *t, size_t offset, const int64_t *dims, int ndims, tfc_status *s);
/* A deep copy. */
tfc_tensor *tfc_tensor_copy(const tfc_tensor *t, tfc_status *s);

static inline tfc_tensor *tfc_tensor_ref(tfc_tensor *t) {
  if (t) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
  return t;
}
void tfc_tensor_unref(tfc_tensor *t);
/* True when the caller's reference is the only one to the header and to the buffer. */
int tfc_tensor_can_forward(const tfc_tensor *t);
tfc_shape tfc_tensor_shape(const tfc_tensor *t);
int tfc_tensor_same_shape(const tfc_tensor *a, const tfc_tensor *b);
static inline tfc_tstring *tfc_tensor_strings(const tfc_tensor *t) { return (tfc_tstring *)t->data; }
/* Replaces element i of a string tensor with a copy of (data, len). */
int tfc_tstring_assign(tfc_tstring *dst, const void *data, size_t len, tfc_status *s);
/* Reads element i as double / int64 (numeric and bool types). */
double tfc_tensor_get_f64(const tfc_tensor *t, int64_t i);
int64_t tfc_tensor_get_i64(const tfc_tensor *t, int64_t i);
/* "[2,3]" */
const char *tfc_tensor_shape_str(const tfc_tensor *t, char *buf, size_t n);

#endif
