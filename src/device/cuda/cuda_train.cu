/*
 * cuda_train — the optimizers' dense updates on the GPU (GradientDescent, Momentum, Adam,
 * Adagrad, RMSProp, CenteredRMSProp, Adadelta; the ref and resource forms share them);
 * kernels_training_gpu.c and device/training_plan.c check and journal around them,
 * cuda_kernels.h documents the launcher.
 *
 * One grid-stride kernel per op, each the CPU kernel's per-element step (kernels_training.c,
 * TF's functors) with the same operation order in the variable's type, so that both devices
 * agree to rounding: e.g. Adam's m += (g - m) * (1 - beta1). Half is loaded into float,
 * computed in float and stored rounded to nearest, as TF's GPU functors for Eigen::half. The
 * scalars arrive on the host (the kernels keep them in host memory) and are passed by value.
 * Every new value goes to a fresh buffer (copy-on-write variables), never over the old one.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "device/cuda/cuda_kernels.h"

namespace {

constexpr int kThreads = 256;
inline int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return (int)(b > 65535 ? 65535 : (b < 1 ? 1 : b));
}

template <typename S> struct io {
  typedef S C;
  static __device__ __forceinline__ C ld(const void *p, int64_t i) { return ((const S *)p)[i]; }
  static __device__ __forceinline__ void st(void *p, int64_t i, C v) { ((S *)p)[i] = v; }
};
template <> struct io<__half> {
  typedef float C;
  static __device__ __forceinline__ float ld(const void *p, int64_t i) { return __half2float(((const __half *)p)[i]); }
  static __device__ __forceinline__ void st(void *p, int64_t i, float v) { ((__half *)p)[i] = __float2half_rn(v); }
};

__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }

/* The scalars converted to the compute type once per launch. */
template <typename C> struct scal {
  C s[10];
};

#define GRID_LOOP(i, n)                                                                                         \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

template <typename S> __global__ void gd_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C alpha = s.s[1];
  GRID_LOOP(i, n) io<S>::st(a.out[0], i, io<S>::ld(a.old[0], i) - io<S>::ld(a.grad, i) * alpha);
}

template <typename S> __global__ void momentum_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C lr = s.s[2], mu = s.s[4];
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), acc = io<S>::ld(a.old[1], i) * mu + g;
    io<S>::st(a.out[1], i, acc);
    C x = io<S>::ld(a.old[0], i);
    io<S>::st(a.out[0], i, a.nesterov ? x - (g * lr + acc * mu * lr) : x - acc * lr);
  }
}

template <typename S> __global__ void adam_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C b1p = s.s[3], b2p = s.s[4], lr = s.s[5], b1 = s.s[6], b2 = s.s[7], eps = s.s[8];
  const C alpha = lr * m_sqrt(C(1) - b2p) / (C(1) - b1p);
  const C omb1 = C(1) - b1, omb2 = C(1) - b2;
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), m0 = io<S>::ld(a.old[1], i), v0 = io<S>::ld(a.old[2], i);
    C m = m0 + (g - m0) * omb1, v = v0 + (g * g - v0) * omb2;
    io<S>::st(a.out[1], i, m);
    io<S>::st(a.out[2], i, v);
    C x = io<S>::ld(a.old[0], i);
    C step = a.nesterov ? ((g * omb1 + b1 * m) * alpha) / (m_sqrt(v) + eps) : (m * alpha) / (m_sqrt(v) + eps);
    io<S>::st(a.out[0], i, x - step);
  }
}

template <typename S> __global__ void adagrad_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C lr = s.s[2];
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), acc = io<S>::ld(a.old[1], i);
    if (a.out[1]) {
      acc = acc + g * g;
      io<S>::st(a.out[1], i, acc);
    }
    io<S>::st(a.out[0], i, io<S>::ld(a.old[0], i) - g * lr * (C(1) / m_sqrt(acc)));
  }
}

template <typename S> __global__ void rmsprop_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C lr = s.s[3], rho = s.s[4], mu = s.s[5], eps = s.s[6];
  const C omr = C(1) - rho;
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), s0 = io<S>::ld(a.old[1], i);
    C ms = s0 + (g * g - s0) * omr;
    C mo = io<S>::ld(a.old[2], i) * mu + (g * lr) / m_sqrt(ms + eps);
    io<S>::st(a.out[1], i, ms);
    io<S>::st(a.out[2], i, mo);
    io<S>::st(a.out[0], i, io<S>::ld(a.old[0], i) - mo);
  }
}

template <typename S> __global__ void centered_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C lr = s.s[4], rho = s.s[5], mu = s.s[6], eps = s.s[7];
  const C omr = C(1) - rho;
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), s0 = io<S>::ld(a.old[2], i), m0 = io<S>::ld(a.old[1], i);
    C ms = s0 + (g * g - s0) * omr, mg = m0 + (g - m0) * omr;
    C mo = io<S>::ld(a.old[3], i) * mu + (g * lr) / m_sqrt((ms - mg * mg) + eps);
    io<S>::st(a.out[1], i, mg);
    io<S>::st(a.out[2], i, ms);
    io<S>::st(a.out[3], i, mo);
    io<S>::st(a.out[0], i, io<S>::ld(a.old[0], i) - mo);
  }
}

template <typename S> __global__ void adadelta_k(tfc_cuda_apply_args a, scal<typename io<S>::C> s, int64_t n) {
  typedef typename io<S>::C C;
  const C lr = s.s[3], rho = s.s[4], eps = s.s[5];
  const C omr = C(1) - rho;
  GRID_LOOP(i, n) {
    C g = io<S>::ld(a.grad, i), u0 = io<S>::ld(a.old[2], i);
    C acc = io<S>::ld(a.old[1], i) * rho + g * g * omr;
    C up = m_sqrt(u0 + eps) * (C(1) / m_sqrt(acc + eps)) * g;
    io<S>::st(a.out[1], i, acc);
    io<S>::st(a.out[0], i, io<S>::ld(a.old[0], i) - up * lr);
    io<S>::st(a.out[2], i, u0 * rho + up * up * omr);
  }
}

template <typename S> int launch(const tfc_cuda_apply_args *a, int64_t n, cudaStream_t st) {
  typedef typename io<S>::C C;
  scal<C> s;
  for (int i = 0; i < 10; i++) s.s[i] = (C)a->s[i];
  switch (a->op) {
    case TFC_CUDA_APPLY_GD: gd_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_MOMENTUM: momentum_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_ADAM: adam_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_ADAGRAD: adagrad_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_RMSPROP: rmsprop_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_CENTERED_RMSPROP: centered_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    case TFC_CUDA_APPLY_ADADELTA: adadelta_k<S><<<blocks_for(n), kThreads, 0, st>>>(*a, s, n); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : (int)e;
}

} // namespace

extern "C" int tfc_cuda_apply(int dtype, const tfc_cuda_apply_args *args, int64_t n, void *stream) {
  if (args->op < 0 || args->op >= TFC_CUDA_APPLY_OP_COUNT) return TFC_CUDA_E_UNSUPPORTED;
  if (n == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  switch (dtype) {
    case TFC_CUDA_F32: return launch<float>(args, n, st);
    case TFC_CUDA_F64: return launch<double>(args, n, st);
    case TFC_CUDA_F16: return launch<__half>(args, n, st);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}
