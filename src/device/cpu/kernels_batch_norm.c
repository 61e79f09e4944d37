/*
 * kernels_batch_norm — CPU kernels of FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and
 * their gradients FusedBatchNormGrad / V2 / V3 (float x with float statistics, as TF's CPU
 * kernels register them).
 *
 * Layout: x is viewed as [outer, C, inner] — channels last (NHWC, NDHWC: inner = 1) or at dim 1
 * (NCHW, NCDHW: outer = N) — so one loop handles every data_format. Statistics are summed in
 * double per channel, one channel per shard of the intra-op pool.
 *
 * Forward, is_training: the batch mean and biased variance normalize x; output batch_mean /
 * batch_variance are the batch statistics (the variance with Bessel's correction n/(n-1)),
 * blended with the mean / variance inputs as (1-f)*old + f*batch when exponential_avg_factor
 * f != 1; reserve_space_1/2 keep the batch mean and biased variance for the gradient;
 * reserve_space_3 (V3) is empty. Not training: x is normalized with the mean / variance
 * inputs, which the four statistics outputs repeat.
 * Gradient: with r = rsqrt(var + eps), x_hat = (x - mean) * r over reserve_space_1/2,
 * scale_backprop = sum(dy * x_hat), offset_backprop = sum(dy), and x_backprop =
 * scale * r * (dy - mean(dy) - x_hat * mean(dy * x_hat)) when training, scale * r * dy when
 * not. The extra reserve-space outputs are empty vectors.
 * The attrs, the checks (TF 2.x's InvalidArgument texts, in its order: "input must be 4 or
 * 5-dimensional[2,2,4]", "scale must be 1-dimensional[2,2]", "offset must have the same number
 * of elements as the channels of x, got 3 and 4", "When is_training=false, mean must have ...",
 * the gradient's refusal of NCHW when not training) and the [outer, C, inner] view are
 * device/batch_norm_plan.h's, shared with the GPU kernels (cuda/kernels_batch_norm_gpu.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/batch_norm_plan.h"
#include "device/cpu/cpu_kernels.h"
#include "device/kernel.h"
#include "graph/graph.h"
#include "ops/opdef.h"
#include "tensor/tensor.h"

#define AT(v, o, ch, i) (((o) * (v)->chans + (ch)) * (v)->inner + (i))

typedef struct bn_job {
  const tfc_bn_plan *a, *v; /* the same plan: attrs and view */
  const float *x, *dy, *scale, *offset, *mean_in, *var_in;
  float *y, *mean_out, *var_out, *save_mean, *save_var, *scale_bp, *offset_bp;
} bn_job;

static void bn_forward_shard(int64_t b, int64_t e, void *arg) {
  const bn_job *j = arg;
  const tfc_bn_plan *v = j->v;
  for (int64_t ch = b; ch < e; ch++) {
    double mean, var;
    if (j->a->is_training) {
      double sum = 0, sq = 0;
      for (int64_t o = 0; o < v->outer; o++)
        for (int64_t i = 0; i < v->inner; i++) sum += j->x[AT(v, o, ch, i)];
      mean = v->count ? sum / (double)v->count : 0;
      for (int64_t o = 0; o < v->outer; o++)
        for (int64_t i = 0; i < v->inner; i++) {
          double d = j->x[AT(v, o, ch, i)] - mean;
          sq += d * d;
        }
      var = v->count ? sq / (double)v->count : 0;
      double f = j->a->avg_factor, unbiased = v->count > 1 ? var * (double)v->count / (double)(v->count - 1) : var;
      j->save_mean[ch] = (float)mean;
      j->save_var[ch] = (float)var;
      j->mean_out[ch] = (float)(f == 1.0 ? mean : (1 - f) * j->mean_in[ch] + f * mean);
      j->var_out[ch] = (float)(f == 1.0 ? unbiased : (1 - f) * j->var_in[ch] + f * unbiased);
    } else {
      mean = j->mean_in[ch];
      var = j->var_in[ch];
      j->save_mean[ch] = j->mean_out[ch] = j->mean_in[ch];
      j->save_var[ch] = j->var_out[ch] = j->var_in[ch];
    }
    float r = (float)(1.0 / sqrt(var + (double)j->a->epsilon));
    float k = r * j->scale[ch], m = (float)mean, off = j->offset[ch];
    for (int64_t o = 0; o < v->outer; o++)
      for (int64_t i = 0; i < v->inner; i++) {
        int64_t at = AT(v, o, ch, i);
        j->y[at] = (j->x[at] - m) * k + off;
      }
  }
}

static tfc_tensor *alloc_vec(tfc_kernel_ctx *c, int out, int64_t n) {
  return tfc_kernel_alloc_output(c, out, TFC_DT_FLOAT, &n, 1);
}

/* FusedBatchNorm / V2 / V3: x, scale, offset, mean, variance -> y, batch_mean, batch_variance,
 * reserve_space_1, reserve_space_2 (, reserve_space_3). */
static int bn_compute(tfc_kernel_ctx *c) {
  tfc_bn_plan v, *a = &v;
  TFC_TRY(tfc_bn_plan_forward(c, &v));
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, x->dims, x->ndims);
  if (!y) return c->status->code;
  tfc_tensor *outs[4];
  for (int k = 0; k < 4; k++)
    if (!(outs[k] = alloc_vec(c, 1 + k, v.chans))) return c->status->code;
  if (c->n_outputs > 5 && !alloc_vec(c, 5, 0)) return c->status->code;
  bn_job j = {.a = a,
              .v = &v,
              .x = x->data,
              .scale = c->inputs[1]->data,
              .offset = c->inputs[2]->data,
              .mean_in = c->inputs[3]->data,
              .var_in = c->inputs[4]->data,
              .y = y->data,
              .mean_out = outs[0]->data,
              .var_out = outs[1]->data,
              .save_mean = outs[2]->data,
              .save_var = outs[3]->data};
  tfc_kernel_parallel_for(c, v.chans, 4 * v.count + 1, bn_forward_shard, &j);
  return TFC_OK;
}

static void bn_grad_shard(int64_t b, int64_t e, void *arg) {
  const bn_job *j = arg;
  const tfc_bn_plan *v = j->v;
  for (int64_t ch = b; ch < e; ch++) {
    double mean = j->mean_in[ch], r = 1.0 / sqrt((double)j->var_in[ch] + (double)j->a->epsilon);
    double sum_dy = 0, sum_dy_xh = 0;
    for (int64_t o = 0; o < v->outer; o++)
      for (int64_t i = 0; i < v->inner; i++) {
        int64_t at = AT(v, o, ch, i);
        sum_dy += j->dy[at];
        sum_dy_xh += j->dy[at] * ((j->x[at] - mean) * r);
      }
    j->scale_bp[ch] = (float)sum_dy_xh;
    j->offset_bp[ch] = (float)sum_dy;
    double k = j->scale[ch] * r;
    double mdy = v->count ? sum_dy / (double)v->count : 0, mdyxh = v->count ? sum_dy_xh / (double)v->count : 0;
    for (int64_t o = 0; o < v->outer; o++)
      for (int64_t i = 0; i < v->inner; i++) {
        int64_t at = AT(v, o, ch, i);
        if (j->a->is_training) {
          double xh = (j->x[at] - mean) * r;
          j->y[at] = (float)(k * (j->dy[at] - mdy - xh * mdyxh));
        } else {
          j->y[at] = (float)(k * j->dy[at]);
        }
      }
  }
}

/* FusedBatchNormGrad / V2 / V3: y_backprop, x, scale, reserve_space_1, reserve_space_2
 * (, reserve_space_3) -> x_backprop, scale_backprop, offset_backprop, two empty vectors. */
static int bn_grad_compute(tfc_kernel_ctx *c) {
  tfc_bn_plan v, *a = &v;
  TFC_TRY(tfc_bn_plan_grad(c, &v));
  const tfc_tensor *dy = c->inputs[0], *x = c->inputs[1];
  tfc_tensor *dx = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, x->dims, x->ndims);
  tfc_tensor *dscale = dx ? alloc_vec(c, 1, v.chans) : NULL;
  tfc_tensor *doff = dscale ? alloc_vec(c, 2, v.chans) : NULL;
  if (!doff || !alloc_vec(c, 3, 0) || !alloc_vec(c, 4, 0)) return c->status->code;
  bn_job j = {.a = a,
              .v = &v,
              .x = x->data,
              .dy = dy->data,
              .scale = c->inputs[2]->data,
              .mean_in = c->inputs[3]->data,
              .var_in = c->inputs[4]->data,
              .y = dx->data,
              .scale_bp = dscale->data,
              .offset_bp = doff->data};
  tfc_kernel_parallel_for(c, v.chans, 6 * v.count + 1, bn_grad_shard, &j);
  return TFC_OK;
}

#define F32 TFC_T(TFC_DT_FLOAT)

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_FusedBatchNorm, .type_attr = "T", .types = F32, .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormV2, .type_attr = "T", .types = F32, .type_attr2 = "U", .types2 = F32,
     .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormV3, .type_attr = "T", .types = F32, .type_attr2 = "U", .types2 = F32,
     .compute = bn_compute},
    {.op = TFC_OP_FusedBatchNormGrad, .type_attr = "T", .types = F32, .compute = bn_grad_compute},
    {.op = TFC_OP_FusedBatchNormGradV2, .type_attr = "T", .types = F32, .type_attr2 = "U", .types2 = F32,
     .compute = bn_grad_compute},
    {.op = TFC_OP_FusedBatchNormGradV3, .type_attr = "T", .types = F32, .type_attr2 = "U", .types2 = F32,
     .compute = bn_grad_compute},
};

int tfc_cpu_kernels_batch_norm(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
