/*
 * half — conversions between float and the two 16-bit floating types, IEEE binary16 (half)
 * and bfloat16: the one implementation the Cast kernel, the half/bfloat16 kernel rows, the
 * random ops, the image kernels and the tools share.
 *
 * float -> 16 bits rounds to nearest even, as Eigen's conversions in TF do: overflow becomes
 * infinity, values below half's range become half subnormals or zero, a NaN becomes a quiet
 * NaN (half: 0x7e00 with the NaN's sign bit; bfloat16: 0x7fc0, positive, as TF 2.x gives). 16 bits -> float
 * is exact (every half and bfloat16 value is a float). All are pure functions of their
 * argument; none can fail.
 */
#ifndef TFC_BASE_HALF_H
#define TFC_BASE_HALF_H

#include <stdint.h>

uint16_t tfc_float_to_half(float f);
uint16_t tfc_float_to_bfloat16(float f);
float tfc_half_to_float(uint16_t h);
float tfc_bfloat16_to_float(uint16_t b);

#endif
