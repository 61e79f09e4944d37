/*
 * special_math — special functions that the CPU and GPU kernels compute with one formula, so
 * both devices give the same values (up to their libm's log and tan): included by C files and
 * by CUDA files, where the functions are __host__ __device__.
 *
 * tfc_digamma: psi(x) by the reflection psi(1 - x) - psi(x) = pi cot(pi x) for x < 0, the
 * recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series
 * log x - 1/(2x) - sum B_2k / (2k x^2k) to k = 6; NaN at the poles (0 and the negative
 * integers), as TF's Eigen digamma. Computed in double for every dtype.
 */
#ifndef TFC_DEVICE_SPECIAL_MATH_H
#define TFC_DEVICE_SPECIAL_MATH_H

#include <math.h>

#ifdef __CUDACC__
#define TFC_SPECIAL_FN static __host__ __device__ __forceinline__
#else
#define TFC_SPECIAL_FN static inline
#endif

TFC_SPECIAL_FN double tfc_digamma(double x) {
  if (x <= 0 && floor(x) == x) return NAN;
  double r = 0;
  if (x < 0) {
    /* psi(1 - x) - psi(x) = pi cot(pi x) */
    r = -3.14159265358979323846 / tan(3.14159265358979323846 * x);
    x = 1 - x;
  }
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))));
  return r + log(x) - 0.5 / x + t;
}

#endif
