/*
 * cuda_batch_norm — the CUDA kernels of the GPU FusedBatchNorm* and FusedBatchNormGrad*
 * (launcher API in cuda_batch_norm.h; the tfc kernels in kernels_batch_norm_gpu.c).
 *
 * Why not cuDNN's batch norm. It has no backward pass for inference mode (TF runs its own
 * kernel there), and its training statistics follow its own rules (float accumulation, its own
 * handling of a single value or none per channel, and before cuDNN 8 an epsilon of at least
 * 1e-5), while the CPU kernel (cpu/kernels_batch_norm.c) is the reference the GPU must match.
 * So these kernels compute the CPU kernel's formulas directly, in its precisions: statistics
 * and gradient sums in double, the forward's normalization in float with the CPU's operation
 * order (round-to-nearest intrinsics keep nvcc from contracting it into FMAs the CPU does not
 * use). What stays TF's GPU convention is the reserve space: a training forward saves the inverse standard deviation
 * 1/sqrt(var + epsilon) as reserve_space_2, as cuDNN does for TF, and the training gradient
 * reads it back as such.
 *
 * Two passes per op. A per-channel pass gives each channel to one block of kThreads threads
 * (grid-stride over channels): thread t sums the channel's elements t, t + kThreads, ... of
 * the [outer, inner] plane in double, and the block folds the partial sums in a fixed order
 * (warp butterflies, then the warps in order), so results never depend on timing. Its thread 0
 * writes the channel's outputs and a few coefficients to scratch. An element-wise pass
 * (grid-stride over all of x) then writes y or dx from those coefficients. Indexes are int64;
 * empty tensors launch nothing. half is loaded as float and stored rounded to nearest even.
 */
#include <stdint.h>

#include "device/cuda/cuda_batch_norm.h"
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* Element j (of count) of channel ch in the [outer, chans, inner] view. */
__device__ __forceinline__ int64_t at(const tfc_cuda_bn_plan &p, int64_t ch, int64_t j) {
  return ((j / p.inner) * p.chans + ch) * p.inner + j % p.inner;
}

/* The sum of every thread's v over the block, returned to every thread: each warp folds its
 * 32 values by butterfly, then every thread adds the warps' sums in warp order. All kThreads
 * threads of the block must call it. */
__device__ double block_sum(double v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __shared__ double part[kThreads / kWarp];
  __syncthreads(); /* the previous call's reads of part are over */
  if ((threadIdx.x & (kWarp - 1)) == 0) part[threadIdx.x / kWarp] = v;
  __syncthreads();
  double r = part[0];
  for (int i = 1; i < kThreads / kWarp; i++) r += part[i];
  return r;
}

/* Per channel: the statistics outputs and coef[2 ch] = m, coef[2 ch + 1] = r * scale (the
 * CPU's float k). */
template <typename S>
__global__ void __launch_bounds__(kThreads)
    bn_stats_k(tfc_cuda_bn_plan p, const S *x, const float *scale, const float *mean_in, const float *var_in,
               float *mean_out, float *var_out, float *save_mean, float *save_var, float *coef) {
  int64_t n = p.outer * p.inner;
  TFC_CUDA_BLOCK_LOOP(ch, p.chans) {
    if (p.is_training) { /* the same for the whole block: the barriers below are reached by all */
      double s = 0;
      for (int64_t j = threadIdx.x; j < n; j += kThreads) s += (double)load(x, at(p, ch, j));
      double mean = n ? block_sum(s) / (double)n : 0;
      double q = 0;
      for (int64_t j = threadIdx.x; j < n; j += kThreads) {
        double d = (double)load(x, at(p, ch, j)) - mean;
        q += d * d;
      }
      double var = n ? block_sum(q) / (double)n : 0;
      if (threadIdx.x == 0) {
        double f = p.avg_factor, unbiased = n > 1 ? var * (double)n / (double)(n - 1) : var;
        float r = (float)(1.0 / sqrt(var + p.epsilon));
        save_mean[ch] = (float)mean;
        save_var[ch] = r;
        mean_out[ch] = (float)(f == 1.0 ? mean : (1 - f) * (double)mean_in[ch] + f * mean);
        var_out[ch] = (float)(f == 1.0 ? unbiased : (1 - f) * (double)var_in[ch] + f * unbiased);
        coef[2 * ch] = (float)mean;
        coef[2 * ch + 1] = __fmul_rn(r, scale[ch]);
      }
    } else if (threadIdx.x == 0) {
      float m = mean_in[ch], v = var_in[ch];
      save_mean[ch] = mean_out[ch] = m;
      save_var[ch] = var_out[ch] = v;
      float r = (float)(1.0 / sqrt((double)v + p.epsilon));
      coef[2 * ch] = m;
      coef[2 * ch + 1] = __fmul_rn(r, scale[ch]);
    }
  }
}

/* y = (x - m) * k + offset per element, in float. */
template <typename S>
__global__ void bn_apply_k(int64_t total, int64_t chans, int64_t inner, const S *x, const float *coef,
                           const float *offset, S *y) {
  TFC_CUDA_GRID_LOOP(i, total) {
    int64_t ch = (i / inner) % chans;
    float v = __fadd_rn(__fmul_rn(__fsub_rn(load(x, i), coef[2 * ch]), coef[2 * ch + 1]), offset[ch]);
    store(y, i, v);
  }
}

/* Per channel: scale_bp, offset_bp and coef[5 ch ..] = mean, r, scale * r, mean(dy),
 * mean(dy * x_hat). */
template <typename S>
__global__ void __launch_bounds__(kThreads)
    bn_grad_sums_k(tfc_cuda_bn_plan p, const S *dy, const S *x, const float *scale, const float *rs1,
                   const float *rs2, float *scale_bp, float *offset_bp, double *coef) {
  int64_t n = p.outer * p.inner;
  TFC_CUDA_BLOCK_LOOP(ch, p.chans) {
    double mean = rs1[ch], r = p.is_training ? (double)rs2[ch] : 1.0 / sqrt((double)rs2[ch] + p.epsilon);
    double sdy = 0, sdyxh = 0;
    for (int64_t j = threadIdx.x; j < n; j += kThreads) {
      int64_t i = at(p, ch, j);
      double d = (double)load(dy, i);
      sdy += d;
      sdyxh += d * (((double)load(x, i) - mean) * r);
    }
    sdy = block_sum(sdy);
    sdyxh = block_sum(sdyxh);
    if (threadIdx.x == 0) {
      scale_bp[ch] = (float)sdyxh;
      offset_bp[ch] = (float)sdy;
      double *c = coef + 5 * ch;
      c[0] = mean;
      c[1] = r;
      c[2] = (double)scale[ch] * r;
      c[3] = n ? sdy / (double)n : 0;
      c[4] = n ? sdyxh / (double)n : 0;
    }
  }
}

/* dx per element from the channel's coefficients, in double. */
template <typename S>
__global__ void bn_grad_apply_k(int64_t total, int64_t chans, int64_t inner, int is_training, const S *dy,
                                const S *x, const double *coef, S *dx) {
  TFC_CUDA_GRID_LOOP(i, total) {
    const double *c = coef + 5 * ((i / inner) % chans);
    double d = (double)load(dy, i), v;
    if (is_training) {
      double xh = ((double)load(x, i) - c[0]) * c[1];
      v = c[2] * (d - c[3] - xh * c[4]);
    } else {
      v = c[2] * d;
    }
    store(dx, i, (acc_t<S>)v);
  }
}

template <typename S>
int forward(const tfc_cuda_bn_plan &p, const void *x, const float *scale, const float *offset, const float *mean_in,
            const float *var_in, void *y, float *mean_out, float *var_out, float *save_mean, float *save_var,
            float *coef, cudaStream_t st) {
  if (p.chans == 0) return 0;
  bn_stats_k<S><<<blocks_for(p.chans, 1), kThreads, 0, st>>>(p, (const S *)x, scale, mean_in, var_in, mean_out,
                                                               var_out, save_mean, save_var, coef);
  int e = launched();
  int64_t total = p.outer * p.chans * p.inner;
  if (e || total == 0) return e;
  bn_apply_k<S><<<blocks_for(total), kThreads, 0, st>>>(total, p.chans, p.inner, (const S *)x, coef, offset, (S *)y);
  return launched();
}

template <typename S>
int grad(const tfc_cuda_bn_plan &p, const void *dy, const void *x, const float *scale, const float *rs1,
         const float *rs2, void *dx, float *scale_bp, float *offset_bp, double *coef, cudaStream_t st) {
  if (p.chans == 0) return 0;
  bn_grad_sums_k<S><<<blocks_for(p.chans, 1), kThreads, 0, st>>>(p, (const S *)dy, (const S *)x, scale, rs1, rs2,
                                                                   scale_bp, offset_bp, coef);
  int e = launched();
  int64_t total = p.outer * p.chans * p.inner;
  if (e || total == 0) return e;
  bn_grad_apply_k<S><<<blocks_for(total), kThreads, 0, st>>>(total, p.chans, p.inner, p.is_training, (const S *)dy,
                                                             (const S *)x, coef, (S *)dx);
  return launched();
}

/* float and half only: TF 1.15's GPU rows. */
template <typename F> int by_bn_dtype(int dtype, F &&f) {
  switch (dtype) {
    case TFC_CUDA_F32: return f(type_tag<float>());
    case TFC_CUDA_F16: return f(type_tag<__half>());
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

/* Dims must be non-negative (an empty plane has count 0: the passes read nothing). */
inline bool plan_ok(const tfc_cuda_bn_plan *p) { return p->outer >= 0 && p->chans >= 0 && p->inner >= 0; }

} // namespace

extern "C" int tfc_cuda_bn_forward(int dtype, const tfc_cuda_bn_plan *p, const void *x, const float *scale,
                                   const float *offset, const float *mean_in, const float *var_in, void *y,
                                   float *mean_out, float *var_out, float *save_mean, float *save_var, float *coef,
                                   void *stream) {
  if (!plan_ok(p)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_bn_dtype(dtype, [&](auto t) {
    return forward<typename decltype(t)::type>(*p, x, scale, offset, mean_in, var_in, y, mean_out, var_out, save_mean,
                                               save_var, coef, st);
  });
}

extern "C" int tfc_cuda_bn_grad(int dtype, const tfc_cuda_bn_plan *p, const void *dy, const void *x,
                                const float *scale, const float *rs1, const float *rs2, void *dx, float *scale_bp,
                                float *offset_bp, double *coef, void *stream) {
  if (!plan_ok(p)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  return by_bn_dtype(dtype, [&](auto t) {
    return grad<typename decltype(t)::type>(*p, dy, x, scale, rs1, rs2, dx, scale_bp, offset_bp, coef, st);
  });
}
