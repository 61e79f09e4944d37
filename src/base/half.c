/* half — see half.h. */
#include "base/half.h"

#include <string.h>

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t tfc_float_to_half(float f) {
  uint32_t u = float_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u >= (143u << 23)) /* >= 65536, inf or NaN */
    return sign | (u > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (u < (113u << 23)) {
    /* Below half's smallest normal (2^-14): adding 0.5 puts the value's half-subnormal units
     * in the float mantissa's low bits, and the float addition rounds to nearest even. */
    float v = bits_float(u) + 0.5f;
    return sign | (uint16_t)(float_bits(v) - float_bits(0.5f));
  }
  /* Rebias the exponent and round the 13 dropped mantissa bits to nearest even; a carry out
   * of the mantissa bumps the exponent, up to infinity, as it should. */
  uint32_t odd = (u >> 13) & 1u;
  u += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
  return sign | (uint16_t)(u >> 13);
}

uint16_t tfc_float_to_bfloat16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0; /* TF's quiet NaN, whatever the sign */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

float tfc_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13)); /* inf / nan */
  if (exp) return bits_float(sign | ((exp + 112) << 23) | (man << 13));
  float f = (float)man * 0x1p-24f; /* subnormal or zero: exact */
  return sign ? -f : f;
}

float tfc_bfloat16_to_float(uint16_t b) { return bits_float((uint32_t)b << 16); }
