/*
 * cuda_batch_norm — the CUDA launchers of FusedBatchNorm* and FusedBatchNormGrad*
 * (cuda_batch_norm.cu); the tfc kernels on top are in kernels_batch_norm_gpu.c.
 *
 * Same contract as cuda_kernels.h: device pointers, a plan computed on the host (from
 * device/batch_norm_plan.h's, passed by value), a cudaStream_t passed as void *; each call
 * enqueues its work on that stream and returns at once, with 0, TFC_CUDA_E_UNSUPPORTED for a
 * dtype without a kernel, or the cudaError_t of a failed launch. x, y, dy and dx are
 * TFC_CUDA_F32 or TFC_CUDA_F16 (computed in float, statistics in double); every per-channel
 * vector is float (TF's U). The launchers are thread-safe; the caller keeps the buffers alive
 * until the stream has run the work (the device allocator's stream ordering does).
 * Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_BATCH_NORM_H
#define TFC_DEVICE_CUDA_CUDA_BATCH_NORM_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x (and y, dy, dx) as [outer, chans, inner], row-major; count = outer * inner per channel. */
typedef struct tfc_cuda_bn_plan {
  int64_t outer, chans, inner;
  double epsilon, avg_factor; /* the float attrs, widened */
  int is_training;
} tfc_cuda_bn_plan;

/* FusedBatchNorm*. Training: the batch mean and biased variance (summed in double) normalize
 * x; mean_out / var_out = the batch mean and the variance with Bessel's correction (n/(n-1),
 * none for n <= 1), blended as (1-f)*in + f*batch when f = avg_factor != 1 (mean_in / var_in
 * are read only then); save_mean = the batch mean, save_var = 1/sqrt(biased variance +
 * epsilon) (TF's GPU reserve_space_2: what tfc_cuda_bn_grad takes when training). Not
 * training: x is normalized with mean_in / var_in, which all four outputs repeat. y = (x - m)
 * * (r * scale) + offset in float, as the CPU kernel. coef: device scratch of 2 * chans floats.
 * chans == 0 launches nothing. */
int tfc_cuda_bn_forward(int dtype, const tfc_cuda_bn_plan *p, const void *x, const float *scale, const float *offset,
                        const float *mean_in, const float *var_in, void *y, float *mean_out, float *var_out,
                        float *save_mean, float *save_var, float *coef, void *stream);

/* FusedBatchNormGrad*. mean = rs1; r = rs2 when training (the forward's inverse std), else
 * 1/sqrt(rs2 + epsilon) (rs2 the population variance); x_hat = (x - mean) * r. scale_bp =
 * sum(dy * x_hat), offset_bp = sum(dy) (double sums), dx = scale * r * (dy - mean(dy) - x_hat *
 * mean(dy * x_hat)) when training, scale * r * dy when not. coef: device scratch of 5 * chans
 * doubles. chans == 0 launches nothing. */
int tfc_cuda_bn_grad(int dtype, const tfc_cuda_bn_plan *p, const void *dy, const void *x, const float *scale,
                     const float *rs1, const float *rs2, void *dx, float *scale_bp, float *offset_bp, double *coef,
                     void *stream);

#ifdef __cplusplus
}
#endif

#endif
