/*
 * tensor_list — see tensor_list.h. The item array doubles when it grows, so a loop pushing one
 * element per iteration costs amortized O(1) per push once the list is its own.
 */
#include "tensor/tensor_list.h"

#include <stdlib.h>
#include <string.h>

static void list_destroy(tfc_variant *v) {
  tfc_tensor_list *l = (tfc_tensor_list *)v;
  for (int64_t i = 0; i < l->n; i++) tfc_tensor_unref(l->items[i]);
  free(l->items);
  free(l);
}

const tfc_variant_kind tfc_tensor_list_kind = {"tensorflow::TensorList", list_destroy};

static int reserve(tfc_tensor_list *l, int64_t n, tfc_status *s) {
  if (n <= l->cap) return TFC_OK;
  int64_t cap = l->cap ? l->cap : 4;
  while (cap < n) cap *= 2;
  if ((uint64_t)cap > SIZE_MAX / sizeof(tfc_tensor *) / 2) return TFC_OOM(s);
  tfc_tensor **items = realloc(l->items, (size_t)cap * sizeof *items);
  if (!items) return TFC_OOM(s);
  l->items = items;
  l->cap = cap;
  return TFC_OK;
}

tfc_tensor_list *tfc_tensor_list_new(int element_dtype, const tfc_shape *element_shape, int64_t max_num_elements,
                                     int64_t n, tfc_status *s) {
  tfc_tensor_list *l = calloc(1, sizeof *l);
  if (!l) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_variant_init(&l->base, &tfc_tensor_list_kind);
  l->element_dtype = element_dtype;
  l->element_shape = *element_shape;
  l->max_num_elements = max_num_elements;
  if (tfc_tensor_list_resize(l, n, s)) {
    list_destroy(&l->base);
    return NULL;
  }
  return l;
}

tfc_tensor_list *tfc_tensor_list_from_tensor(const tfc_tensor *t) {
  tfc_variant *v = tfc_variant_tensor_get(t);
  return v && v->kind == &tfc_tensor_list_kind ? (tfc_tensor_list *)v : NULL;
}

tfc_tensor *tfc_tensor_list_tensor(tfc_tensor_list *l, tfc_status *s) {
  return tfc_variant_tensor_new(&l->base, s);
}

tfc_tensor_list *tfc_tensor_list_for_write(tfc_tensor *in, tfc_tensor **out_tensor, tfc_status *s) {
  tfc_tensor_list *l = tfc_tensor_list_from_tensor(in);
  *out_tensor = NULL;
  if (tfc_variant_tensor_sole(in)) {
    *out_tensor = tfc_tensor_ref(in);
    return l;
  }
  tfc_tensor_list *c = tfc_tensor_list_new(l->element_dtype, &l->element_shape, l->max_num_elements, 0, s);
  if (!c || reserve(c, l->n, s)) {
    if (c) list_destroy(&c->base);
    return NULL;
  }
  for (int64_t i = 0; i < l->n; i++) c->items[i] = tfc_tensor_ref(l->items[i]);
  c->n = l->n;
  if (!(*out_tensor = tfc_tensor_list_tensor(c, s))) return NULL;
  return c;
}

int tfc_tensor_list_resize(tfc_tensor_list *l, int64_t n, tfc_status *s) {
  if (n > l->n) {
    TFC_TRY(reserve(l, n, s));
    memset(l->items + l->n, 0, (size_t)(n - l->n) * sizeof *l->items);
  } else {
    for (int64_t i = n; i < l->n; i++) tfc_tensor_unref(l->items[i]);
  }
  l->n = n;
  return TFC_OK;
}

void tfc_tensor_list_set(tfc_tensor_list *l, int64_t i, tfc_tensor *t) {
  tfc_tensor_unref(l->items[i]);
  l->items[i] = t;
}

int tfc_tensor_list_push(tfc_tensor_list *l, tfc_tensor *t, tfc_status *s) {
  if (reserve(l, l->n + 1, s)) {
    tfc_tensor_unref(t);
    return s->code;
  }
  l->items[l->n++] = t;
  return TFC_OK;
}
