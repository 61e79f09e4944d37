/* dtype — see dtype.h. */
#include "tensor/dtype.h"

#include <string.h>

static const struct {
  const char *name;
  size_t size;
} table[TFC_DT_COUNT] = {
    [TFC_DT_INVALID] = {"invalid", 0},    [TFC_DT_FLOAT] = {"float", 4},
    [TFC_DT_DOUBLE] = {"double", 8},      [TFC_DT_INT32] = {"int32", 4},
    [TFC_DT_UINT8] = {"uint8", 1},        [TFC_DT_INT16] = {"int16", 2},
    [TFC_DT_INT8] = {"int8", 1},          [TFC_DT_STRING] = {"string", sizeof(tfc_tstring)},
    [TFC_DT_COMPLEX64] = {"complex64", 8}, [TFC_DT_INT64] = {"int64", 8},
    [TFC_DT_BOOL] = {"bool", 1},          [TFC_DT_QINT8] = {"qint8", 1},
    [TFC_DT_QUINT8] = {"quint8", 1},      [TFC_DT_QINT32] = {"qint32", 4},
    [TFC_DT_BFLOAT16] = {"bfloat16", 2},  [TFC_DT_QINT16] = {"qint16", 2},
    [TFC_DT_QUINT16] = {"quint16", 2},    [TFC_DT_UINT16] = {"uint16", 2},
    [TFC_DT_COMPLEX128] = {"complex128", 16}, [TFC_DT_HALF] = {"half", 2},
    [TFC_DT_RESOURCE] = {"resource", sizeof(void *)},  [TFC_DT_VARIANT] = {"variant", sizeof(void *)},
    [TFC_DT_UINT32] = {"uint32", 4},      [TFC_DT_UINT64] = {"uint64", 8},
};

static const char *ref_names[TFC_DT_COUNT] = {
    "invalid_ref", "float_ref", "double_ref", "int32_ref", "uint8_ref", "int16_ref", "int8_ref",
    "string_ref", "complex64_ref", "int64_ref", "bool_ref", "qint8_ref", "quint8_ref",
    "qint32_ref", "bfloat16_ref", "qint16_ref", "quint16_ref", "uint16_ref", "complex128_ref",
    "half_ref", "resource_ref", "variant_ref", "uint32_ref", "uint64_ref"};

int tfc_dtype_valid(int dtype) { return dtype > 0 && dtype < TFC_DT_COUNT; }

size_t tfc_dtype_size(int dtype) {
  dtype = tfc_dtype_base(dtype);
  return tfc_dtype_valid(dtype) ? table[dtype].size : 0;
}

const char *tfc_dtype_name(int dtype) {
  if (tfc_dtype_is_ref(dtype)) {
    int b = dtype - TFC_DT_REF_OFFSET;
    return b > 0 && b < TFC_DT_COUNT ? ref_names[b] : "invalid";
  }
  return tfc_dtype_valid(dtype) ? table[dtype].name : "invalid";
}

int tfc_dtype_from_name(const char *name, size_t len) {
  for (int i = 1; i < TFC_DT_COUNT; i++) {
    if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0) return i;
    if (strlen(ref_names[i]) == len && memcmp(ref_names[i], name, len) == 0)
      return i + TFC_DT_REF_OFFSET;
  }
  return -1;
}

float tfc_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13); /* inf / nan */
  } else if (exp) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else {
    float f = (float)man * 0x1p-24f; /* subnormal or zero: exact */
    return sign ? -f : f;
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

float tfc_bfloat16_to_float(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
