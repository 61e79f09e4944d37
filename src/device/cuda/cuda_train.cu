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
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* The buffers of tfc_cuda_apply_args, typed. */
template <typename S> struct bufs {
  int nesterov;
  const S *grad;
  const S *old[4];
  S *out[4];
};

/* The scalars converted to the compute type once per launch. */
template <typename C> struct scal {
  C s[10];
};

template <typename S> __global__ void gd_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C alpha = s.s[1];
  TFC_CUDA_GRID_LOOP(i, n) store(a.out[0], i, load(a.old[0], i) - load(a.grad, i) * alpha);
}

template <typename S> __global__ void momentum_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C lr = s.s[2], mu = s.s[4];
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), acc = load(a.old[1], i) * mu + g;
    store(a.out[1], i, acc);
    C x = load(a.old[0], i);
    store(a.out[0], i, a.nesterov ? x - (g * lr + acc * mu * lr) : x - acc * lr);
  }
}

template <typename S> __global__ void adam_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C b1p = s.s[3], b2p = s.s[4], lr = s.s[5], b1 = s.s[6], b2 = s.s[7], eps = s.s[8];
  const C alpha = lr * m_sqrt(C(1) - b2p) / (C(1) - b1p);
  const C omb1 = C(1) - b1, omb2 = C(1) - b2;
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), m0 = load(a.old[1], i), v0 = load(a.old[2], i);
    C m = m0 + (g - m0) * omb1, v = v0 + (g * g - v0) * omb2;
    store(a.out[1], i, m);
    store(a.out[2], i, v);
    C x = load(a.old[0], i);
    C step = a.nesterov ? ((g * omb1 + b1 * m) * alpha) / (m_sqrt(v) + eps) : (m * alpha) / (m_sqrt(v) + eps);
    store(a.out[0], i, x - step);
  }
}

template <typename S> __global__ void adagrad_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C lr = s.s[2];
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), acc = load(a.old[1], i);
    if (a.out[1]) {
      acc = acc + g * g;
      store(a.out[1], i, acc);
    }
    store(a.out[0], i, load(a.old[0], i) - g * lr * (C(1) / m_sqrt(acc)));
  }
}

template <typename S> __global__ void rmsprop_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C lr = s.s[3], rho = s.s[4], mu = s.s[5], eps = s.s[6];
  const C omr = C(1) - rho;
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), s0 = load(a.old[1], i);
    C ms = s0 + (g * g - s0) * omr;
    C mo = load(a.old[2], i) * mu + (g * lr) / m_sqrt(ms + eps);
    store(a.out[1], i, ms);
    store(a.out[2], i, mo);
    store(a.out[0], i, load(a.old[0], i) - mo);
  }
}

template <typename S> __global__ void centered_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C lr = s.s[4], rho = s.s[5], mu = s.s[6], eps = s.s[7];
  const C omr = C(1) - rho;
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), s0 = load(a.old[2], i), m0 = load(a.old[1], i);
    C ms = s0 + (g * g - s0) * omr, mg = m0 + (g - m0) * omr;
    C mo = load(a.old[3], i) * mu + (g * lr) / m_sqrt((ms - mg * mg) + eps);
    store(a.out[1], i, mg);
    store(a.out[2], i, ms);
    store(a.out[3], i, mo);
    store(a.out[0], i, load(a.old[0], i) - mo);
  }
}

template <typename S> __global__ void adadelta_k(bufs<S> a, scal<acc_t<S>> s, int64_t n) {
  typedef acc_t<S> C;
  const C lr = s.s[3], rho = s.s[4], eps = s.s[5];
  const C omr = C(1) - rho;
  TFC_CUDA_GRID_LOOP(i, n) {
    C g = load(a.grad, i), u0 = load(a.old[2], i);
    C acc = load(a.old[1], i) * rho + g * g * omr;
    C up = m_sqrt(u0 + eps) * (C(1) / m_sqrt(acc + eps)) * g;
    store(a.out[1], i, acc);
    store(a.out[0], i, load(a.old[0], i) - up * lr);
    store(a.out[2], i, u0 * rho + up * up * omr);
  }
}

template <typename S> int launch(const tfc_cuda_apply_args *a, int64_t n, cudaStream_t st) {
  typedef acc_t<S> C;
  bufs<S> b;
  b.nesterov = a->nesterov;
  b.grad = (const S *)a->grad;
  for (int i = 0; i < 4; i++) {
    b.old[i] = (const S *)a->old[i];
    b.out[i] = (S *)a->out[i];
  }
  scal<C> s;
  for (int i = 0; i < 10; i++) s.s[i] = (C)a->s[i];
  const unsigned blocks = blocks_for(n);
  switch (a->op) {
    case TFC_CUDA_APPLY_GD: gd_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_MOMENTUM: momentum_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_ADAM: adam_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_ADAGRAD: adagrad_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_RMSPROP: rmsprop_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_CENTERED_RMSPROP: centered_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    case TFC_CUDA_APPLY_ADADELTA: adadelta_k<S><<<blocks, kThreads, 0, st>>>(b, s, n); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}

} // namespace

extern "C" int tfc_cuda_apply(int dtype, const tfc_cuda_apply_args *args, int64_t n, void *stream) {
  if (args->op < 0 || args->op >= TFC_CUDA_APPLY_OP_COUNT) return TFC_CUDA_E_UNSUPPORTED;
  if (n == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) { return launch<typename decltype(t)::type>(args, n, st); });
}
