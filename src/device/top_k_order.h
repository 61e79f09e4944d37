/*
 * top_k_order — TopKV2's order as one 64-bit key per value, shared by the CPU kernel
 * (cpu/kernels_nn.c, which sorts by it) and the CUDA sort (cuda/cuda_select.cu), so the two
 * devices rank values by one definition: larger first; NaN above everything, all NaNs equal;
 * -0.0 equal to 0.0; equal values by lower index (TF's documented tie rule).
 *
 * A larger value has a larger key and equal values have equal keys: floats and doubles map
 * their bits to an unsigned order (sign bit flipped for positives, all bits for negatives)
 * after -0.0 becomes 0.0, NaN takes the largest key (UINT64_MAX, above +inf's); integers flip
 * their sign bit. With the index as the tie-break (tfc_top_k_before), no two entries of a row
 * are equal, so any correct sort gives the one order.
 *
 * Plain C with <stdint.h> and <string.h>, also compiled as CUDA C++ (host and device).
 * Pure functions; thread-safe.
 */
#ifndef TFC_DEVICE_TOP_K_ORDER_H
#define TFC_DEVICE_TOP_K_ORDER_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TFC_TOP_K_FN static __host__ __device__ __forceinline__
#else
#define TFC_TOP_K_FN static inline
#endif

TFC_TOP_K_FN uint64_t tfc_top_k_key_f32(float v) {
  if (v != v) return UINT64_MAX;
  uint32_t u = 0;
  if (v != 0.0f) memcpy(&u, &v, sizeof u);
  return (u >> 31) ? (uint64_t)(uint32_t)~u : (uint64_t)(u | 0x80000000u);
}

TFC_TOP_K_FN uint64_t tfc_top_k_key_f64(double v) {
  if (v != v) return UINT64_MAX;
  uint64_t u = 0;
  if (v != 0.0) memcpy(&u, &v, sizeof u);
  return (u >> 63) ? ~u : (u | ((uint64_t)1 << 63));
}

TFC_TOP_K_FN uint64_t tfc_top_k_key_i64(int64_t v) { return (uint64_t)v ^ ((uint64_t)1 << 63); }

/* Whether entry (key ka, index ia) comes before (kb, ib) in a sorted row. */
TFC_TOP_K_FN int tfc_top_k_before(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib) {
  return ka > kb || (ka == kb && ia < ib);
}

#endif
