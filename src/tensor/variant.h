/*
 * variant — the payload of a DT_VARIANT tensor.
 *
 * A variant tensor's element is a pointer to a refcounted object of some kind (a TensorList,
 * tensor/tensor_list.h): a tfc_variant header first, the kind's own fields after it. The kind
 * names TF's C++ type (what TF prints and writes in VariantTensorData.type_name) and frees the
 * object at its last unref. Variant tensors are made only here (tfc_tensor_new refuses the
 * dtype: a block of raw pointers nobody owns would be unsafe to share or free); the tensor's
 * buffer holds one reference to its payload and drops it when the buffer goes. Identity, the
 * control-flow ops and other pass-through kernels share the tensor as they share any other.
 *
 * Payloads are immutable once shared: an op that "changes" a list returns a new one. A kernel
 * that holds the only reference to both the tensor and its payload (tfc_variant_tensor_sole)
 * may change the payload in place and pass the tensor on, which is how a loop appends to its
 * accumulators without copying them each iteration.
 *
 * Thread-safety: reference counts are atomic; a payload is read-only while shared.
 */
#ifndef TFC_TENSOR_VARIANT_H
#define TFC_TENSOR_VARIANT_H

#include <stdatomic.h>

#include "base/status.h"
#include "tensor/tensor.h"

typedef struct tfc_variant tfc_variant;

typedef struct tfc_variant_kind {
  const char *type_name;             /* TF's: "tensorflow::TensorList" */
  void (*destroy)(tfc_variant *v);   /* frees the object (its last reference is gone) */
} tfc_variant_kind;

struct tfc_variant {
  atomic_int refs;
  const tfc_variant_kind *kind;
};

/* Sets up the header of a new object: one reference, owned by the caller. */
void tfc_variant_init(tfc_variant *v, const tfc_variant_kind *kind);
static inline tfc_variant *tfc_variant_ref(tfc_variant *v) {
  atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
  return v;
}
/* Drops one reference; the last one destroys the object. NULL is a no-op. */
void tfc_variant_unref(tfc_variant *v);

/* A scalar DT_VARIANT tensor holding v. Takes the caller's reference to v (also on failure,
 * when v is unreferenced and NULL returned with RESOURCE_EXHAUSTED). */
tfc_tensor *tfc_variant_tensor_new(tfc_variant *v, tfc_status *s);
/* The payload of a variant tensor made by tfc_variant_tensor_new (borrowed: valid while t
 * is), or NULL when t is not one (another dtype, a non-scalar, a tensor from elsewhere). */
tfc_variant *tfc_variant_tensor_get(const tfc_tensor *t);
/* Whether the caller's reference to t is the only reference to t, to its buffer and to its
 * payload, so that the payload may be changed in place. */
int tfc_variant_tensor_sole(const tfc_tensor *t);

#endif
