/*
 * dtype — TensorFlow data types. Values equal DataType in types.proto and TF_DataType, so a
 * value crosses the C API and the wire unchanged. Reference types are base + 100
 * (DT_FLOAT_REF = 101), as in TF.
 */
#ifndef TFC_TENSOR_DTYPE_H
#define TFC_TENSOR_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/half.h"

enum tfc_dtype {
  TFC_DT_INVALID = 0,
  TFC_DT_FLOAT = 1,
  TFC_DT_DOUBLE = 2,
  TFC_DT_INT32 = 3,
  TFC_DT_UINT8 = 4,
  TFC_DT_INT16 = 5,
  TFC_DT_INT8 = 6,
  TFC_DT_STRING = 7,
  TFC_DT_COMPLEX64 = 8,
  TFC_DT_INT64 = 9,
  TFC_DT_BOOL = 10,
  TFC_DT_QINT8 = 11,
  TFC_DT_QUINT8 = 12,
  TFC_DT_QINT32 = 13,
  TFC_DT_BFLOAT16 = 14,
  TFC_DT_QINT16 = 15,
  TFC_DT_QUINT16 = 16,
  TFC_DT_UINT16 = 17,
  TFC_DT_COMPLEX128 = 18,
  TFC_DT_HALF = 19,
  TFC_DT_RESOURCE = 20,
  TFC_DT_VARIANT = 21,
  TFC_DT_UINT32 = 22,
  TFC_DT_UINT64 = 23,
  TFC_DT_COUNT = 24,
  TFC_DT_REF_OFFSET = 100
};

/* An element of a DT_STRING tensor inside the runtime (the C API converts to and from TF
 * 1.x's offset-table layout at the edge). `data` is heap memory owned by the tensor buffer. */
typedef struct tfc_tstring {
  char *data;
  size_t len;
} tfc_tstring;

/* TF's name: "float", "int32", "string", "float_ref"; "invalid" for unknown values. */
const char *tfc_dtype_name(int dtype);
/* Parses TF's name (also "float32"-style aliases are not TF's and are rejected). -1 if unknown. */
int tfc_dtype_from_name(const char *name, size_t len);
static inline int tfc_dtype_is_ref(int dtype) { return dtype > TFC_DT_REF_OFFSET; }
static inline int tfc_dtype_base(int dtype) {
  return dtype > TFC_DT_REF_OFFSET ? dtype - TFC_DT_REF_OFFSET : dtype;
}
/* A valid, non-ref value of the enum. */
static inline int tfc_dtype_valid(int dtype) { return dtype > 0 && dtype < TFC_DT_COUNT; }
/* Bytes per element of each valid dtype (dtype.c); 0 for INVALID. */
extern const uint8_t tfc_dtype_sizes[TFC_DT_COUNT];
/* Bytes per element; sizeof(tfc_tstring) for STRING inside the runtime; 0 when unknown. Ref
 * types have their base type's size. Inline: tensor allocation asks it on every tensor. */
static inline size_t tfc_dtype_size(int dtype) {
  dtype = tfc_dtype_base(dtype);
  return tfc_dtype_valid(dtype) ? tfc_dtype_sizes[dtype] : 0;
}
/* The half and bfloat16 conversions (tfc_half_to_float, tfc_float_to_half, ...) are in
 * base/half.h, included here for the dtype's users. */

#endif
