/*
 * tensor_array — TF's TensorArray resource (TensorArrayV3 and its family): an array of tensors
 * of one dtype that a loop fills and reads one index per iteration (dynamic_rnn's inputs and
 * outputs), with TF 1.x's rules:
 *
 *   - write-once: an index may be written once (a gradient array instead sums repeated
 *     writes, and an array that has summed refuses to make gradients), and not after a read;
 *   - read-many, unless clear_after_read (the default), which drops the value at the first
 *     read so a second read fails;
 *   - dynamic_size arrays grow on writes past the end (until a gradient array is made from
 *     them, which freezes the size);
 *   - element_shape: every written value must be compatible with it; with
 *     identical_element_shapes the first write fixes it;
 *   - an index never written reads as zeros when the element shape is known (a gradient
 *     array knows each index's shape from its forward array, and also reads past its end);
 *   - closing drops every value; later operations fail.
 *
 * Gradient arrays (tfc_tensor_array_grad) are made once per (forward array, source) and kept
 * by the forward array, so every TensorArrayGradV3 of one gradient computation finds the same
 * one: TF's "<name>@<source>" in the step container. Like stacks (state/stack.h), arrays are
 * per-step resources held only by their DT_RESOURCE handles and by their forward array.
 *
 * Names: tensor_array_name (or the node's name) + "_" + a process-wide counter, as TF's;
 * messages are TF's INVALID_ARGUMENT texts, most prefixed "TensorArray <name>: ".
 * Thread-safety: all functions are thread-safe (one mutex per array).
 */
#ifndef TFC_STATE_TENSOR_ARRAY_H
#define TFC_STATE_TENSOR_ARRAY_H

#include <stdint.h>

#include "base/status.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

typedef struct tfc_tensor_array tfc_tensor_array;

extern const tfc_resource_kind tfc_tensor_array_kind;

typedef struct tfc_tensor_array_options {
  int dtype;
  tfc_shape element_shape; /* partial; rank -1: unknown */
  int32_t size;            /* >= 0 */
  int dynamic_size;
  int clear_after_read;
  int identical_element_shapes;
  const char *base_name; /* tensor_array_name, or the node's name */
} tfc_tensor_array_options;

/* A new array of o->size unwritten elements, one reference (the caller's). NULL with
 * RESOURCE_EXHAUSTED. */
tfc_tensor_array *tfc_tensor_array_new(const tfc_tensor_array_options *o, tfc_status *s);
tfc_resource *tfc_tensor_array_resource(tfc_tensor_array *ta);
tfc_tensor_array *tfc_tensor_array_from_resource(tfc_resource *r);
const char *tfc_tensor_array_name(const tfc_tensor_array *ta); /* borrowed */
int tfc_tensor_array_dtype(const tfc_tensor_array *ta);

/* The gradient array of fwd for `source` (TensorArrayGradV3), made at the first call: same
 * dtype, size and marked size, fwd's element shape (prefixed by prepend when given:
 * TensorArrayGradWithShape), each index fwd has written given its shape (so it reads as
 * zeros until written), summing writes, clear_after_read. Freezes fwd's dynamic size.
 * Returns a new reference, or NULL: fwd closed, or fwd has summed writes. */
tfc_tensor_array *tfc_tensor_array_grad(tfc_tensor_array *fwd, const char *source, const tfc_shape *prepend,
                                        tfc_status *s);

/* Writes values[k] (references taken) at indices[k], in order, under one lock. A value of the
 * wrong dtype, an index out of range of a fixed-size array, an incompatible shape, an index
 * already read, or (not summing) already written is an error; writes before it stay. */
int tfc_tensor_array_write(tfc_tensor_array *ta, const int32_t *indices, tfc_tensor *const *values, int n,
                           tfc_status *s);
/* Reads indices[k] into out[k] (the caller's references), in order, under one lock; on error
 * the out[k] already read are released and NULLed. */
int tfc_tensor_array_read(tfc_tensor_array *ta, const int32_t *indices, int n, tfc_tensor **out, tfc_status *s);

int tfc_tensor_array_size(tfc_tensor_array *ta, int32_t *out, tfc_status *s);
/* The element count Concat uses: the size, or for a gradient array the marked size. */
int tfc_tensor_array_concat_size(tfc_tensor_array *ta, int32_t *out, tfc_status *s);
/* Records the size after a Split (not on gradient arrays). */
int tfc_tensor_array_set_marked_size(tfc_tensor_array *ta, int32_t size, tfc_status *s);
/* Merges shape into the element shape (Gather's element_shape attr); INVALID_ARGUMENT when
 * they conflict. */
int tfc_tensor_array_merge_element_shape(tfc_tensor_array *ta, const tfc_shape *shape, tfc_status *s);
int tfc_tensor_array_has_dynamic_size(tfc_tensor_array *ta);
/* Drops every value and marks the array closed. */
void tfc_tensor_array_close(tfc_tensor_array *ta);

#endif
