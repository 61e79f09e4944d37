/*
 * tensor_list — TensorList, the variant payload of control flow v2's list ops
 * (EmptyTensorList, TensorListReserve, TensorListSetItem, ..., kernels in
 * device/cpu/kernels_list.c).
 *
 * A list is a growable array of element tensors, each either set (one reference held by the
 * list) or uninitialized (NULL: a Reserve'd slot not yet written, read as zeros of the element
 * shape when that is known), plus TF's metadata: the element dtype, the element shape as far
 * as it is known (unknown rank / unknown dims allowed) and max_num_elements (-1: unlimited).
 *
 * Lists follow tensor/variant.h's rules: a list in a shared tensor is read-only, and an op
 * that changes one works on tfc_tensor_list_for_write's result, which is the input's own list
 * when the op holds the only reference (the common case inside a loop), else a new list that
 * shares every element tensor by reference. Element tensors are never written after they are
 * put into a list.
 *
 * Errors: RESOURCE_EXHAUSTED when memory runs out; nothing else fails here (the ops' checks
 * and TF's texts are in the kernels).
 */
#ifndef TFC_TENSOR_TENSOR_LIST_H
#define TFC_TENSOR_TENSOR_LIST_H

#include <stdint.h>

#include "base/status.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"
#include "tensor/variant.h"

typedef struct tfc_tensor_list {
  tfc_variant base;          /* first: a tfc_tensor_list * is a tfc_variant * */
  int element_dtype;
  tfc_shape element_shape;   /* partially known */
  int64_t max_num_elements;  /* -1: unlimited */
  int64_t n;                 /* elements */
  int64_t cap;
  tfc_tensor **items;        /* n entries: a reference each, or NULL (uninitialized) */
} tfc_tensor_list;

extern const tfc_variant_kind tfc_tensor_list_kind;

/* A new list of n uninitialized elements (one reference, the caller's). */
tfc_tensor_list *tfc_tensor_list_new(int element_dtype, const tfc_shape *element_shape, int64_t max_num_elements,
                                     int64_t n, tfc_status *s);
/* The list in a variant tensor (borrowed), or NULL when t holds no TensorList. */
tfc_tensor_list *tfc_tensor_list_from_tensor(const tfc_tensor *t);
/* A scalar variant tensor holding l (takes the caller's reference to l, also on failure). */
tfc_tensor *tfc_tensor_list_tensor(tfc_tensor_list *l, tfc_status *s);
/* The list to change for an op whose input is `in` (a list tensor, borrowed) and whose output
 * is to be that list changed: sets *out_tensor to a new reference to the tensor that will
 * hold the result (`in` itself when the caller's reference is the only one, else a new tensor
 * over a shallow copy) and returns its list, which the caller may change until it hands
 * *out_tensor on. NULL with status on out of memory. */
tfc_tensor_list *tfc_tensor_list_for_write(tfc_tensor *in, tfc_tensor **out_tensor, tfc_status *s);
/* Grows or shrinks l to n elements (new ones uninitialized, dropped ones unreferenced). */
int tfc_tensor_list_resize(tfc_tensor_list *l, int64_t n, tfc_status *s);
/* Element i (< n) becomes t (the list takes the caller's reference; t may be NULL). */
void tfc_tensor_list_set(tfc_tensor_list *l, int64_t i, tfc_tensor *t);
/* Appends t (taking the caller's reference; dropped on failure). */
int tfc_tensor_list_push(tfc_tensor_list *l, tfc_tensor *t, tfc_status *s);

#endif
