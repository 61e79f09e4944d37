/*
 * cuda_nn_extra — _FusedConv2D's epilogue and LRN / LRNGrad on the GPU (see cuda_nn_extra.h).
 *
 * The epilogue is one element-wise pass after cuDNN's convolution: bias, the optional residual
 * addend and the activation, with the formulas of the CPU's plain-C epilogue
 * (tfc_conv_fusion_ref), so the GPU runs every fusion tfc_conv_fusion_parse accepts.
 *
 * LRN is computed directly rather than through cuDNN's LRN: cuDNN limits the window (radius 1
 * to 7), beta and bias, which TF's GPU kernel passes on to the user as errors, while the CPU
 * kernel takes any attrs; a thread per element summing its window of squares in the CPU's
 * order (ascending channel) takes them all and matches the CPU to float rounding. LRNGrad
 * gathers: element k sums, over the outputs j whose window holds it (ascending j, the CPU's
 * order), dy_j * (delta_jk * norm_j^-beta - 2 alpha beta x_k y_j / norm_j), recomputing norm_j
 * (O(radius^2) per element, small for the radii LRN is used with). Sums and products use
 * round-to-nearest intrinsics so nvcc does not contract them into FMAs the CPU does not use.
 *
 * Grid-stride loops over int64 indexes with a capped grid (cuda_common.cuh).
 */
#include <stdint.h>

#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_nn_extra.h"

using namespace tfc_cuda;

namespace {

template <typename S>
__global__ void epilogue_k(S *__restrict__ y, const S *__restrict__ bias, const S *__restrict__ addend, int64_t n,
                           int64_t oc, int cfirst, int64_t plane, int act, float alpha) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t ch = cfirst ? (i / plane) % oc : i % oc;
    A v = load(y, i) + load(bias, ch);
    if (addend) v = v + load(addend, i);
    if (act == TFC_CUDA_ACT_RELU) v = v > 0 ? v : (A)0;
    else if (act == TFC_CUDA_ACT_RELU6) v = v > 0 ? (v < 6 ? v : (A)6) : (A)0;
    else if (act == TFC_CUDA_ACT_ELU) v = v > 0 ? v : m_expm1(v);
    else if (act == TFC_CUDA_ACT_LEAKY_RELU) v = v > 0 ? v : v * (A)alpha;
    store(y, i, v);
  }
}

template <typename S>
int epilogue(void *y, const void *bias, const void *addend, int64_t n, int64_t oc, int cfirst, int64_t plane, int act,
             float alpha, cudaStream_t st) {
  if (n == 0) return 0;
  epilogue_k<S><<<blocks_for(n), kThreads, 0, st>>>((S *)y, (const S *)bias, (const S *)addend, n, oc, cfirst, plane,
                                                     act, alpha);
  return launched();
}

/* bias + alpha * (the sum of squares over [lo, hi) of row r), summed in ascending order. */
__device__ __forceinline__ float lrn_norm(const float *__restrict__ row, int64_t lo, int64_t hi, float bias,
                                          float alpha) {
  float sum = 0.0f;
  for (int64_t k = lo; k < hi; k++) sum = __fadd_rn(sum, __fmul_rn(row[k], row[k]));
  return __fadd_rn(bias, __fmul_rn(alpha, sum));
}

__global__ void lrn_k(const float *__restrict__ x, float *__restrict__ y, int64_t n, int64_t depth, int64_t radius,
                      float bias, float alpha, float beta) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t j = i % depth;
    const float *row = x + (i - j);
    int64_t lo = j - radius < 0 ? 0 : j - radius, hi = j + radius + 1 > depth ? depth : j + radius + 1;
    y[i] = row[j] / powf(lrn_norm(row, lo, hi, bias, alpha), beta);
  }
}

__global__ void lrn_grad_k(const float *__restrict__ dy, const float *__restrict__ x, const float *__restrict__ y,
                           float *__restrict__ dx, int64_t n, int64_t depth, int64_t radius, float bias, float alpha,
                           float beta) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t k = i % depth, base = i - k;
    const float *row = x + base;
    int64_t jlo = k - radius < 0 ? 0 : k - radius, jhi = k + radius + 1 > depth ? depth : k + radius + 1;
    float acc = 0.0f;
    for (int64_t j = jlo; j < jhi; j++) {
      int64_t lo = j - radius < 0 ? 0 : j - radius, hi = j + radius + 1 > depth ? depth : j + radius + 1;
      float norm = lrn_norm(row, lo, hi, bias, alpha);
      float d = __fdiv_rn(__fmul_rn(__fmul_rn(__fmul_rn(-2.0f * alpha, beta), row[k]), y[base + j]), norm);
      if (j == k) d = __fadd_rn(d, powf(norm, -beta));
      acc = __fadd_rn(acc, __fmul_rn(d, dy[base + j]));
    }
    dx[i] = acc;
  }
}

} // namespace

extern "C" int tfc_cuda_conv_epilogue(int dtype, void *y, const void *bias, const void *addend, int64_t n, int64_t oc,
                                      int cfirst, int64_t plane, int act, float alpha, void *stream) {
  if (n < 0 || oc <= 0 || (cfirst && plane <= 0)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) {
    return epilogue<typename decltype(t)::type>(y, bias, addend, n, oc, cfirst, plane, act, alpha, st);
  });
}

extern "C" int tfc_cuda_lrn(const float *x, float *y, int64_t rows, int64_t depth, int64_t radius, float bias,
                            float alpha, float beta, void *stream) {
  if (rows < 0 || depth < 0 || radius < -1 || radius > depth) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = rows * depth;
  if (n == 0) return 0;
  lrn_k<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(x, y, n, depth, radius, bias, alpha, beta);
  return launched();
}

extern "C" int tfc_cuda_lrn_grad(const float *dy, const float *x, const float *y, float *dx, int64_t rows,
                                 int64_t depth, int64_t radius, float bias, float alpha, float beta, void *stream) {
  if (rows < 0 || depth < 0 || radius < -1 || radius > depth) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = rows * depth;
  if (n == 0) return 0;
  lrn_grad_k<<<blocks_for(n), kThreads, 0, (cudaStream_t)stream>>>(dy, x, y, dx, n, depth, radius, bias, alpha, beta);
  return launched();
}
