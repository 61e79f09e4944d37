/*
 * tensor_codec — TensorProto and TensorShapeProto to and from tfc tensors and shapes.
 *
 * Decoding follows TF's Tensor::FromProto: a non-empty tensor_content holds the raw
 * little-endian row-major bytes; otherwise the typed *_val field for the dtype holds the
 * values, where a list shorter than the element count is padded with its last value and an
 * empty list means zeros (Python writes `float_val: 0.0` with shape [64] for a zeros
 * initializer). DT_STRING uses string_val; HALF and BFLOAT16 use half_val bit patterns;
 * complex types use (real, imaginary) pairs. Anything inconsistent (more values than
 * elements, content of the wrong size, an invalid shape or dtype) is INVALID_ARGUMENT naming
 * the problem. RESOURCE and VARIANT tensors are UNIMPLEMENTED.
 *
 * Encoding writes tensor_content for numeric dtypes and string_val for strings, as TF's
 * AsProtoTensorContent does.
 *
 * Decoded tensors larger than the byte limit (tfc_tensor_proto_set_max_bytes) are refused
 * with RESOURCE_EXHAUSTED before allocating: a 20-byte proto can declare a shape of 2^60
 * elements. The default limit is 16 GiB; fuzzers lower it.
 */
#ifndef TFC_PROTO_TENSOR_CODEC_H
#define TFC_PROTO_TENSOR_CODEC_H

#include <stddef.h>

#include "base/status.h"
#include "proto/pb_util.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"
#include "tensorflow/tensor.pb-c.h"
#include "tensorflow/tensor_shape.pb-c.h"

/* Process-wide; set once before use (not synchronized). */
void tfc_tensor_proto_set_max_bytes(size_t max_bytes);
/* The current limit (for decoders that build tensors without going through this module). */
size_t tfc_tensor_proto_max_bytes(void);

/* TensorShapeProto -> shape (unknown_rank -> rank -1; dims below -1 and ranks above
 * TFC_MAX_DIMS are INVALID_ARGUMENT). A NULL proto is a scalar (proto3's empty message). */
int tfc_shape_from_proto(const Tensorflow__TensorShapeProto *p, tfc_shape *out, tfc_status *s);
/* shape -> TensorShapeProto built in the arena. */
int tfc_shape_to_proto(const tfc_shape *shape, tfc_pb_arena *a, Tensorflow__TensorShapeProto *out,
                       tfc_status *s);
int tfc_shape_from_proto_bytes(const void *data, size_t len, tfc_shape *out, tfc_status *s);
/* Serialized TensorShapeProto in a new malloc'd buffer. */
int tfc_shape_to_proto_bytes(const tfc_shape *shape, void **out, size_t *out_len, tfc_status *s);

/* TensorProto -> a new tensor (one reference to the caller). */
int tfc_tensor_from_proto(const Tensorflow__TensorProto *p, tfc_tensor **out, tfc_status *s);
int tfc_tensor_from_proto_bytes(const void *data, size_t len, tfc_tensor **out, tfc_status *s);
/* tensor -> TensorProto built in the arena. Numeric content is borrowed from t (no copy):
 * t must outlive the packing of *out. */
int tfc_tensor_to_proto(const tfc_tensor *t, tfc_pb_arena *a, Tensorflow__TensorProto *out,
                        tfc_status *s);
int tfc_tensor_to_proto_bytes(const tfc_tensor *t, void **out, size_t *out_len, tfc_status *s);

#endif
