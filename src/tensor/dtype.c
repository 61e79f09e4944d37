/* dtype — see dtype.h. */
#include "tensor/dtype.h"

#include <string.h>

const uint8_t tfc_dtype_sizes[TFC_DT_COUNT] = {
    [TFC_DT_INVALID] = 0,
    [TFC_DT_FLOAT] = 4,
    [TFC_DT_DOUBLE] = 8,
    [TFC_DT_INT32] = 4,
    [TFC_DT_UINT8] = 1,
    [TFC_DT_INT16] = 2,
    [TFC_DT_INT8] = 1,
    [TFC_DT_STRING] = sizeof(tfc_tstring),
    [TFC_DT_COMPLEX64] = 8,
    [TFC_DT_INT64] = 8,
    [TFC_DT_BOOL] = 1,
    [TFC_DT_QINT8] = 1,
    [TFC_DT_QUINT8] = 1,
    [TFC_DT_QINT32] = 4,
    [TFC_DT_BFLOAT16] = 2,
    [TFC_DT_QINT16] = 2,
    [TFC_DT_QUINT16] = 2,
    [TFC_DT_UINT16] = 2,
    [TFC_DT_COMPLEX128] = 16,
    [TFC_DT_HALF] = 2,
    [TFC_DT_RESOURCE] = sizeof(void *),
    [TFC_DT_VARIANT] = sizeof(void *),
    [TFC_DT_UINT32] = 4,
    [TFC_DT_UINT64] = 8,
};

static const char *const names[TFC_DT_COUNT] = {
    [TFC_DT_INVALID] = "invalid",
    [TFC_DT_FLOAT] = "float",
    [TFC_DT_DOUBLE] = "double",
    [TFC_DT_INT32] = "int32",
    [TFC_DT_UINT8] = "uint8",
    [TFC_DT_INT16] = "int16",
    [TFC_DT_INT8] = "int8",
    [TFC_DT_STRING] = "string",
    [TFC_DT_COMPLEX64] = "complex64",
    [TFC_DT_INT64] = "int64",
    [TFC_DT_BOOL] = "bool",
    [TFC_DT_QINT8] = "qint8",
    [TFC_DT_QUINT8] = "quint8",
    [TFC_DT_QINT32] = "qint32",
    [TFC_DT_BFLOAT16] = "bfloat16",
    [TFC_DT_QINT16] = "qint16",
    [TFC_DT_QUINT16] = "quint16",
    [TFC_DT_UINT16] = "uint16",
    [TFC_DT_COMPLEX128] = "complex128",
    [TFC_DT_HALF] = "half",
    [TFC_DT_RESOURCE] = "resource",
    [TFC_DT_VARIANT] = "variant",
    [TFC_DT_UINT32] = "uint32",
    [TFC_DT_UINT64] = "uint64",
};

static const char *ref_names[TFC_DT_COUNT] = {
    "invalid_ref", "float_ref", "double_ref", "int32_ref", "uint8_ref", "int16_ref", "int8_ref",
    "string_ref", "complex64_ref", "int64_ref", "bool_ref", "qint8_ref", "quint8_ref",
    "qint32_ref", "bfloat16_ref", "qint16_ref", "quint16_ref", "uint16_ref", "complex128_ref",
    "half_ref", "resource_ref", "variant_ref", "uint32_ref", "uint64_ref"};


const char *tfc_dtype_name(int dtype) {
  if (tfc_dtype_is_ref(dtype)) {
    int b = dtype - TFC_DT_REF_OFFSET;
    return b > 0 && b < TFC_DT_COUNT ? ref_names[b] : "invalid";
  }
  return tfc_dtype_valid(dtype) ? names[dtype] : "invalid";
}

int tfc_dtype_from_name(const char *name, size_t len) {
  for (int i = 1; i < TFC_DT_COUNT; i++) {
    if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0) return i;
    if (strlen(ref_names[i]) == len && memcmp(ref_names[i], name, len) == 0)
      return i + TFC_DT_REF_OFFSET;
  }
  return -1;
}
