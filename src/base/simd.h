/*
 * simd — runtime choice of the widest vector unit for hot element-wise loops.
 *
 * tfc is built for the baseline of its target (plain x86-64 is SSE2), so a loop the compiler
 * vectorizes works on 4 floats at a time, while TensorFlow's kernels use whatever the machine
 * has. A hot loop can be compiled more than once instead: its body as a macro, expanded into
 * one function per level with TFC_SIMD_TARGET_AVX2 / TFC_SIMD_TARGET_AVX512 in front (GCC and
 * Clang compile that function, and the static inline helpers it inlines, for that unit), and a
 * plain function that calls the best one tfc_simd_level() reports. Other architectures, other
 * compilers and TFC_SIMD=base in the environment get the baseline build only
 * (TFC_SIMD_X86 is 0 there, and the extra functions are not compiled).
 *
 * Results may differ in the last bit between levels (FMA contracts a*b+c); callers choose
 * formulas whose error bound holds either way.
 */
#ifndef TFC_BASE_SIMD_H
#define TFC_BASE_SIMD_H

enum { TFC_SIMD_BASE = 0, TFC_SIMD_AVX2 = 1, TFC_SIMD_AVX512 = 2 };

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define TFC_SIMD_X86 1
/* AVX2 with FMA (x86-64-v3); AVX-512 F/VL/DQ/BW with 512-bit vectors preferred. */
#define TFC_SIMD_TARGET_AVX2 __attribute__((target("avx2,fma")))
#if defined(__clang__)
#define TFC_SIMD_TARGET_AVX512 __attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq,avx512bw")))
#else
#define TFC_SIMD_TARGET_AVX512 __attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=512")))
#endif
#else
#define TFC_SIMD_X86 0
#define TFC_SIMD_TARGET_AVX2
#define TFC_SIMD_TARGET_AVX512
#endif

/* The widest level this CPU (and the OS, for the wide registers) supports, capped by the
 * environment variable TFC_SIMD ("base", "avx2", "avx512"); computed once, thread-safe. */
int tfc_simd_level(void);

#endif
