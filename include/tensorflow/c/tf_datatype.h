/*
 * tf_datatype.h — tensor element types. The values equal DataType in
 * tensorflow/core/framework/types.proto, so they cross the API and the wire unchanged.
 */
#ifndef TENSORFLOW_C_TF_DATATYPE_H_
#define TENSORFLOW_C_TF_DATATYPE_H_

#include <stddef.h>

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Int32 tensors are always in 'host' memory. */
typedef enum TF_DataType {
  TF_FLOAT = 1,
  TF_DOUBLE = 2,
  TF_INT32 = 3, /* Int32 tensors are always in 'host' memory. */
  TF_UINT8 = 4,
  TF_INT16 = 5,
  TF_INT8 = 6,
  TF_STRING = 7,
  TF_COMPLEX64 = 8, /* Single-precision complex */
  TF_COMPLEX = 8,   /* Old identifier kept for API backwards compatibility */
  TF_INT64 = 9,
  TF_BOOL = 10,
  TF_QINT8 = 11,    /* Quantized int8 */
  TF_QUINT8 = 12,   /* Quantized uint8 */
  TF_QINT32 = 13,   /* Quantized int32 */
  TF_BFLOAT16 = 14, /* Float32 truncated to 16 bits. Only for cast ops. */
  TF_QINT16 = 15,   /* Quantized int16 */
  TF_QUINT16 = 16,  /* Quantized uint16 */
  TF_UINT16 = 17,
  TF_COMPLEX128 = 18, /* Double-precision complex */
  TF_HALF = 19,
  TF_RESOURCE = 20,
  TF_VARIANT = 21,
  TF_UINT32 = 22,
  TF_UINT64 = 23,
} TF_DataType;

/* The size in bytes of one element of dt; 0 for variable-length types (TF_STRING,
 * TF_RESOURCE, TF_VARIANT) and for unknown values. */
TF_CAPI_EXPORT extern size_t TF_DataTypeSize(TF_DataType dt);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_DATATYPE_H_ */
