/*
 * simd — see simd.h. The level is read once from the CPU (GCC/Clang's __builtin_cpu_supports,
 * which also checks that the OS saves the wide registers) and the TFC_SIMD cap, and kept in an
 * atomic; racing first callers compute the same value.
 */
#include "base/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int level = -1;

static int detect(void) {
  int l = TFC_SIMD_BASE;
#if TFC_SIMD_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) l = TFC_SIMD_AVX2;
  if (l == TFC_SIMD_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
    l = TFC_SIMD_AVX512;
#endif
  const char *cap = getenv("TFC_SIMD");
  if (cap && strcmp(cap, "base") == 0) l = TFC_SIMD_BASE;
  else if (cap && strcmp(cap, "avx2") == 0 && l > TFC_SIMD_AVX2) l = TFC_SIMD_AVX2;
  return l;
}

int tfc_simd_level(void) {
  int l = atomic_load_explicit(&level, memory_order_relaxed);
  if (l < 0) {
    l = detect();
    atomic_store_explicit(&level, l, memory_order_relaxed);
  }
  return l;
}
