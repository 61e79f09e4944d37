/*
 * cuda_random — TF's Philox4x32-10 distributions on the GPU (the launchers tfc_cuda_random and
 * tfc_cuda_multinomial of cuda_kernels.h; the tfc kernels on top are kernels_random_gpu.c).
 *
 * The CPU fills an output group by group (base/philox.h): group g of a run takes the generator
 * state the kernel reserved, skipped ahead by g calls (truncated normal: by g times its
 * per-group window), and maps that call's four words through the distribution. Each group's
 * values depend only on g, so here one thread computes one group from its own counter position
 * (TF's GPU kernels do the same with PhiloxRandom::Skip), and the result does not depend on
 * the launch shape. The generator, the skip (with TF's carry quirk), the conversions and the
 * sample order are the CPU's, restated in device code.
 *
 * Bit-identity. Uniform floats and doubles (the mantissa trick), uniform halves and bfloat16s
 * and the integer distributions are exact integer/bit operations: identical to the CPU. The
 * normals need log, sqrt, sin and cos. sqrt and the angle 2*pi*u (computed in double, then
 * rounded, as the CPU) are correctly rounded on both sides; the CPU calls glibc's logf and
 * sincosf, whose results are correctly rounded except in rare near-halfway cases, while CUDA's
 * logf/sinf/cosf may be off by up to 1-2 ulp. So the float Box-Muller here evaluates log, sin
 * and cos in double and rounds each to float: that is the correctly rounded float, equal to
 * glibc's in all but those rare cases, where a normal sample differs by a few ulps (most
 * near a zero of sin, where the small result magnifies the angle's rounding). The
 * double Box-Muller uses CUDA's log/sincos (at most 1-2 ulp from glibc's correctly rounded
 * results), so double normals agree to a few ulp. A truncated normal sample within an ulp of
 * +-2 could in principle be kept on one device and rejected on the other, shifting the rest of
 * its group; the chance is about 1e-7 per sample.
 *
 * The build does not use fast math (division and sqrt are IEEE), which the above relies on.
 */
#include "base/philox.h"
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* Philox4x32 constants (the Philox paper's, as TF and base/philox.c). */
#define PHILOX_M_A 0xD2511F53u
#define PHILOX_M_B 0xCD9E8D57u
#define PHILOX_W_A 0x9E3779B9u
#define PHILOX_W_B 0xBB67AE85u
#define PI_D 3.14159265358979323846

struct gen {
  uint32_t c[4];
  uint32_t k[2];
};

/* TF's Skip, including its lost carry when the high word wraps (see base/philox.c). */
__device__ __forceinline__ void skip(gen &g, uint64_t n) {
  uint32_t lo = (uint32_t)n, hi = (uint32_t)(n >> 32);
  g.c[0] += lo;
  if (g.c[0] < lo) hi++;
  g.c[1] += hi;
  if (g.c[1] < hi && ++g.c[2] == 0) g.c[3]++;
}

__device__ __forceinline__ void next(gen &g, uint32_t out[4]) {
  uint32_t c0 = g.c[0], c1 = g.c[1], c2 = g.c[2], c3 = g.c[3], k0 = g.k[0], k1 = g.k[1];
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r) {
      k0 += PHILOX_W_A;
      k1 += PHILOX_W_B;
    }
    uint32_t hi0 = __umulhi(PHILOX_M_A, c0), lo0 = PHILOX_M_A * c0;
    uint32_t hi1 = __umulhi(PHILOX_M_B, c2), lo1 = PHILOX_M_B * c2;
    uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
  if (++g.c[0] == 0 && ++g.c[1] == 0 && ++g.c[2] == 0) g.c[3]++;
}

__device__ __forceinline__ float u32_to_float(uint32_t x) {
  return __uint_as_float((127u << 23) | (x & 0x7fffffu)) - 1.0f;
}

__device__ __forceinline__ double u64_to_double(uint32_t x0, uint32_t x1) {
  uint64_t u = (1023ull << 52) | ((uint64_t)(x0 & 0xfffffu) << 32) | x1;
  return __longlong_as_double((long long)u) - 1.0;
}

__device__ __forceinline__ void box_muller_float(uint32_t x0, uint32_t x1, float *f0, float *f1) {
  float u1 = u32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = (float)(2.0 * PI_D * (double)u32_to_float(x1));
  /* Correctly rounded logf, sinf, cosf (see the top comment). */
  const float lg = (float)log((double)u1);
  const float u2 = sqrtf(-2.0f * lg);
  double sd, cd;
  sincos((double)v1, &sd, &cd);
  *f0 = (float)sd * u2;
  *f1 = (float)cd * u2;
}

__device__ __forceinline__ void box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double *d0,
                                                  double *d1) {
  double u1 = u64_to_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * PI_D * u64_to_double(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  double s, c;
  sincos(v1, &s, &c);
  *d0 = s * u2;
  *d1 = c * u2;
}

/* Round to nearest even into IEEE half / bfloat16 bits, as base/philox.c. */
__device__ __forceinline__ uint16_t to_half(float f) {
  uint32_t u = __float_as_uint(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u >= (143u << 23)) return sign | (u > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (u < (113u << 23)) {
    float v = __uint_as_float(u) + 0.5f;
    return sign | (uint16_t)(__float_as_uint(v) - __float_as_uint(0.5f));
  }
  uint32_t odd = (u >> 13) & 1u;
  u += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
  return sign | (uint16_t)(u >> 13);
}

__device__ __forceinline__ uint16_t to_bf16(float f) {
  if (f != f) return 0x7fc0;
  uint32_t u = __float_as_uint(f);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

template <int ELEM> __device__ __forceinline__ void put(void *out, int64_t i, float v) {
  if (ELEM == TFC_PHILOX_F32) ((float *)out)[i] = v;
  else if (ELEM == TFC_PHILOX_F16) ((uint16_t *)out)[i] = to_half(v);
  else ((uint16_t *)out)[i] = to_bf16(v);
}

struct params {
  gen base;
  int64_t lo;
  uint64_t range;
  void *out;
  int64_t size, n_groups;
};

/* Group size for (DIST, ELEM): 2 for the 64-bit types, else 4 (base/philox.c's table). */
template <int ELEM> __host__ __device__ constexpr int group_k() {
  return (ELEM == TFC_PHILOX_F64 || ELEM == TFC_PHILOX_I64) ? 2 : 4;
}

/* One group from one call's words (every distribution but the truncated normal). */
template <int DIST, int ELEM> __device__ __forceinline__ void one_call(const params &p, const uint32_t s[4],
                                                                       int64_t first, int n) {
  if (DIST == TFC_PHILOX_UNIFORM) {
    if (ELEM == TFC_PHILOX_F64) {
      for (int i = 0; i < n; i++) ((double *)p.out)[first + i] = u64_to_double(s[2 * i], s[2 * i + 1]);
    } else if (ELEM == TFC_PHILOX_F32) {
      for (int i = 0; i < n; i++) ((float *)p.out)[first + i] = u32_to_float(s[i]);
    } else {
      const int mant_bits = ELEM == TFC_PHILOX_F16 ? 10 : 7;
      for (int i = 0; i < n; i++) {
        uint32_t m = (s[i] & 0xffffu) & ((1u << mant_bits) - 1);
        put<ELEM>(p.out, first + i, ldexpf((float)m, -mant_bits));
      }
    }
  } else if (DIST == TFC_PHILOX_NORMAL) {
    if (ELEM == TFC_PHILOX_F64) {
      double d[2];
      box_muller_double(s[0], s[1], s[2], s[3], &d[0], &d[1]);
      for (int i = 0; i < n; i++) ((double *)p.out)[first + i] = d[i];
    } else {
      float f[4];
      box_muller_float(s[0], s[1], &f[0], &f[1]);
      box_muller_float(s[2], s[3], &f[2], &f[3]);
      for (int i = 0; i < n; i++) put<ELEM>(p.out, first + i, f[i]);
    }
  } else if (DIST == TFC_PHILOX_FULL_INT) { /* the raw bits: a word per int32, two per int64 */
    if (ELEM == TFC_PHILOX_I32) {
      for (int i = 0; i < n; i++) ((int32_t *)p.out)[first + i] = (int32_t)s[i];
    } else {
      for (int i = 0; i < n; i++)
        ((int64_t *)p.out)[first + i] = (int64_t)((uint64_t)s[2 * i] | (uint64_t)s[2 * i + 1] << 32);
    }
  } else { /* UNIFORM_INT: (unsigned) lo + sample % range, wrapping */
    if (ELEM == TFC_PHILOX_I32) {
      const uint32_t range = (uint32_t)p.range;
      for (int i = 0; i < n; i++) ((int32_t *)p.out)[first + i] = (int32_t)((uint32_t)p.lo + s[i] % range);
    } else {
      for (int i = 0; i < n; i++) {
        uint64_t bits = (uint64_t)s[2 * i] | (uint64_t)s[2 * i + 1] << 32;
        ((int64_t *)p.out)[first + i] = (int64_t)((uint64_t)p.lo + bits % p.range);
      }
    }
  }
}

/* TF's SingleSampleAdapter: the words of successive calls, one at a time. */
struct single {
  gen g;
  uint32_t buf[4];
  int used;
  __device__ __forceinline__ uint32_t operator()() {
    if (used >= 4) {
      next(g, buf);
      used = 0;
    }
    return buf[used++];
  }
};

template <int ELEM> __device__ void truncated(const params &p, int64_t grp, int64_t first, int n) {
  const int k = group_k<ELEM>();
  single a;
  a.g = p.base;
  a.used = 4;
  skip(a.g, (uint64_t)grp * (uint64_t)(k * TFC_PHILOX_SAMPLES_PER_OUTPUT / 4));
  int got = 0;
  if (ELEM == TFC_PHILOX_F64) {
    for (;;) {
      uint32_t x0 = a(), x1 = a(), x2 = a(), x3 = a();
      double d[2];
      box_muller_double(x0, x1, x2, x3, &d[0], &d[1]);
      for (int i = 0; i < 2; i++)
        if (fabs(d[i]) < 2.0) {
          if (got < n) ((double *)p.out)[first + got] = d[i];
          if (++got == k) return;
        }
    }
  } else {
    for (;;) {
      uint32_t x0 = a(), x1 = a();
      float x[2];
      box_muller_float(x0, x1, &x[0], &x[1]);
      for (int i = 0; i < 2; i++)
        if (fabsf(x[i]) < 2.0f) {
          if (got < n) put<ELEM>(p.out, first + got, x[i]);
          if (++got == k) return;
        }
    }
  }
}

template <int DIST, int ELEM> __global__ void random_kernel(params p) {
  const int k = group_k<ELEM>();
  TFC_CUDA_GRID_LOOP(grp, p.n_groups) {
    int64_t first = grp * k;
    int n = p.size - first < k ? (int)(p.size - first) : k;
    if (DIST == TFC_PHILOX_TRUNCATED) {
      truncated<ELEM>(p, grp, first, n);
    } else {
      gen g = p.base;
      skip(g, (uint64_t)grp);
      uint32_t s[4];
      next(g, s);
      one_call<DIST, ELEM>(p, s, first, n);
    }
  }
}

template <int DIST, int ELEM> int launch(params p, cudaStream_t stream) {
  random_kernel<DIST, ELEM><<<blocks_for(p.n_groups), kThreads, 0, stream>>>(p);
  return launched();
}

template <int DIST> int launch_float(int elem, params p, cudaStream_t stream) {
  switch (elem) {
    case TFC_PHILOX_F32: return launch<DIST, TFC_PHILOX_F32>(p, stream);
    case TFC_PHILOX_F64: return launch<DIST, TFC_PHILOX_F64>(p, stream);
    case TFC_PHILOX_F16: return launch<DIST, TFC_PHILOX_F16>(p, stream);
    case TFC_PHILOX_BF16: return launch<DIST, TFC_PHILOX_BF16>(p, stream);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* ---- Multinomial ---- */

/* Row b's unnormalized CDF, as the CPU kernel builds it: exp(logit - max) over the finite
 * logits (max over them too; lowest() when there is none), summed left to right in double. A
 * thread per row keeps the CPU's summation order. */
template <typename T> __global__ void multinomial_cdf(const T *logits, int64_t batch, int64_t classes, double lowest,
                                                     double *cdf) {
  TFC_CUDA_GRID_LOOP(b, batch) {
    const T *row = logits + b * classes;
    double *c = cdf + b * classes;
    double mx = lowest;
    bool any = false;
    for (int64_t j = 0; j < classes; j++) {
      double v = (double)row[j];
      if (isfinite(v) && (!any || v > mx)) mx = v, any = true;
    }
    double total = 0;
    for (int64_t j = 0; j < classes; j++) {
      double v = (double)row[j];
      if (isfinite(v)) total += exp(v - mx);
      c[j] = total;
    }
  }
}

/* Sample s: words 2s, 2s + 1 of the reserved stream (call s / 2, half s % 2) as a double in
 * [0, 1), scaled by its row's total; the class is the first CDF entry above it (classes when
 * none is, as on the CPU). */
template <typename O> __global__ void multinomial_draw(const double *cdf, int64_t classes, int64_t num_samples,
                                                      int64_t n, gen base, O *out) {
  TFC_CUDA_GRID_LOOP(s, n) {
    gen g = base;
    skip(g, (uint64_t)s / 2);
    uint32_t w[4];
    next(g, w);
    int h = (int)(s & 1) * 2;
    const double *c = cdf + (s / num_samples) * classes;
    double to_find = u64_to_double(w[h], w[h + 1]) * c[classes - 1];
    int64_t lo = 0, hi = classes;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (c[mid] > to_find) hi = mid;
      else lo = mid + 1;
    }
    out[s] = (O)lo;
  }
}

template <typename T> int multinomial_rows(const void *logits, int64_t batch, int64_t classes, double *cdf,
                                           cudaStream_t s) {
  double lowest = sizeof(T) == sizeof(double) ? -1.7976931348623157e308 : -3.4028234663852886e38;
  multinomial_cdf<T><<<blocks_for(batch), kThreads, 0, s>>>((const T *)logits, batch, classes, lowest, cdf);
  return launched();
}

} // namespace

extern "C" int tfc_cuda_multinomial(int logit_dtype, int out_dtype, const void *logits, int64_t batch,
                                    int64_t classes, int64_t num_samples, const uint32_t key[2],
                                    const uint32_t counter[4], void *cdf_scratch, void *out, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  int64_t n = batch * num_samples;
  if (n <= 0 || classes <= 0) return 0;
  double *cdf = (double *)cdf_scratch;
  int err;
  switch (logit_dtype) {
    case TFC_CUDA_F32: err = multinomial_rows<float>(logits, batch, classes, cdf, s); break;
    case TFC_CUDA_F64: err = multinomial_rows<double>(logits, batch, classes, cdf, s); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  if (err) return err;
  gen base;
  for (int i = 0; i < 4; i++) base.c[i] = counter[i];
  base.k[0] = key[0];
  base.k[1] = key[1];
  switch (out_dtype) {
    case TFC_CUDA_I32:
      multinomial_draw<int32_t><<<blocks_for(n), kThreads, 0, s>>>(cdf, classes, num_samples, n, base, (int32_t *)out);
      return launched();
    case TFC_CUDA_I64:
      multinomial_draw<int64_t><<<blocks_for(n), kThreads, 0, s>>>(cdf, classes, num_samples, n, base, (int64_t *)out);
      return launched();
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

extern "C" int tfc_cuda_random(int dist, int elem, const uint32_t key[2], const uint32_t counter[4], int64_t lo,
                               uint64_t range, void *out, int64_t size, void *stream) {
  if (dist < 0 || dist >= TFC_PHILOX_DIST_COUNT || elem < 0 || elem >= TFC_PHILOX_ELEM_COUNT)
    return TFC_CUDA_E_UNSUPPORTED;
  int k = (elem == TFC_PHILOX_F64 || elem == TFC_PHILOX_I64) ? 2 : 4;
  params p;
  for (int i = 0; i < 4; i++) p.base.c[i] = counter[i];
  p.base.k[0] = key[0];
  p.base.k[1] = key[1];
  p.lo = lo;
  p.range = range;
  p.out = out;
  p.size = size;
  p.n_groups = (size + k - 1) / k;
  if (size <= 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (dist) {
    case TFC_PHILOX_UNIFORM: return launch_float<TFC_PHILOX_UNIFORM>(elem, p, s);
    case TFC_PHILOX_NORMAL: return launch_float<TFC_PHILOX_NORMAL>(elem, p, s);
    case TFC_PHILOX_TRUNCATED: return launch_float<TFC_PHILOX_TRUNCATED>(elem, p, s);
    case TFC_PHILOX_UNIFORM_INT:
      if (elem == TFC_PHILOX_I32) return launch<TFC_PHILOX_UNIFORM_INT, TFC_PHILOX_I32>(p, s);
      if (elem == TFC_PHILOX_I64) return launch<TFC_PHILOX_UNIFORM_INT, TFC_PHILOX_I64>(p, s);
      return TFC_CUDA_E_UNSUPPORTED;
    case TFC_PHILOX_FULL_INT:
      if (elem == TFC_PHILOX_I32) return launch<TFC_PHILOX_FULL_INT, TFC_PHILOX_I32>(p, s);
      if (elem == TFC_PHILOX_I64) return launch<TFC_PHILOX_FULL_INT, TFC_PHILOX_I64>(p, s);
      return TFC_CUDA_E_UNSUPPORTED;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}
