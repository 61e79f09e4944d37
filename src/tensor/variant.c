/*
 * variant — see variant.h.
 *
 * A variant tensor is tfc_tensor_wrap over a one-pointer cell whose release callback drops
 * the payload's reference: the callback's address also marks the tensors made here, so a
 * DT_VARIANT tensor from anywhere else is never read as a payload pointer.
 */
#include "tensor/variant.h"

#include <stdlib.h>
#include <string.h>

void tfc_variant_init(tfc_variant *v, const tfc_variant_kind *kind) {
  atomic_init(&v->refs, 1);
  v->kind = kind;
}

void tfc_variant_unref(tfc_variant *v) {
  if (!v) return;
  if (atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) == 1) v->kind->destroy(v);
}

static void cell_release(void *data, size_t size, void *arg) {
  (void)size;
  (void)arg;
  tfc_variant *v;
  memcpy(&v, data, sizeof v);
  tfc_variant_unref(v);
  free(data);
}

tfc_tensor *tfc_variant_tensor_new(tfc_variant *v, tfc_status *s) {
  tfc_variant **cell = malloc(sizeof *cell);
  if (!cell) {
    tfc_variant_unref(v);
    TFC_OOM(s);
    return NULL;
  }
  *cell = v;
  /* on failure the wrap runs cell_release, which drops v */
  return tfc_tensor_wrap(TFC_DT_VARIANT, NULL, 0, cell, sizeof *cell, cell_release, NULL, s);
}

tfc_variant *tfc_variant_tensor_get(const tfc_tensor *t) {
  if (!t || t->dtype != TFC_DT_VARIANT || t->ndims != 0 || t->buf->release != cell_release) return NULL;
  tfc_variant *v;
  memcpy(&v, t->data, sizeof v);
  return v;
}

int tfc_variant_tensor_sole(const tfc_tensor *t) {
  tfc_variant *v = tfc_variant_tensor_get(t);
  return v && tfc_tensor_can_forward(t) && atomic_load_explicit(&v->refs, memory_order_acquire) == 1;
}
