/*
 * batch_norm_plan — the attrs, input checks and layout view that the CPU kernels
 * (cpu/kernels_batch_norm.c) and the GPU kernels (cuda/kernels_batch_norm_gpu.c) of
 * FusedBatchNorm / V2 / V3 and FusedBatchNormGrad / V2 / V3 share, so both devices accept and
 * refuse the same nodes and inputs with the same codes and texts (TF 2.x's InvalidArgument
 * texts, in its order).
 *
 * Layout: x is viewed as [outer, C, inner]: channels last (NHWC, NDHWC: inner = 1) or at dim 1
 * (NCHW, NCDHW: outer = N), so one plan serves every data_format and both ranks (a rank-5 x
 * with a 2-D format is read as its 3-D twin). `count` = outer * inner values per channel.
 *
 * The plans read only attrs and shapes, never tensor data. Errors are set on the kernel
 * context (tfc_kernel_error; the executor adds node and device). Thread-safe (no state).
 */
#ifndef TFC_DEVICE_BATCH_NORM_PLAN_H
#define TFC_DEVICE_BATCH_NORM_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

typedef struct tfc_bn_plan {
  float epsilon;    /* the epsilon attr (default 1e-4) */
  float avg_factor; /* exponential_avg_factor (default 1) */
  int is_training;  /* default true */
  int channels_first;
  int64_t outer, chans, inner, count;
} tfc_bn_plan;

/* FusedBatchNorm / V2 / V3 (x, scale, offset, mean, variance): x of rank 4 or 5, the four
 * vectors of rank 1, scale and offset with one element per channel, and mean and variance too
 * when they are read (not training, or exponential_avg_factor != 1). Returns 0 and fills p, or
 * the error set in c. */
int tfc_bn_plan_forward(tfc_kernel_ctx *c, tfc_bn_plan *p);

/* FusedBatchNormGrad / V2 / V3 (y_backprop, x, scale, reserve_space_1, reserve_space_2 (,
 * reserve_space_3)): y_backprop and x of rank 4 or 5 and the same shape, the three vectors of
 * rank 1 with one element per channel, and NHWC-like data when not training (TF's refusal of
 * NCHW there). Returns 0 and fills p, or the error set in c. */
int tfc_bn_plan_grad(tfc_kernel_ctx *c, tfc_bn_plan *p);

#endif
