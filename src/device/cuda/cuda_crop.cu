/*
 * cuda_crop — CropAndResize, CropAndResizeGradImage and CropAndResizeGradBoxes on the GPU
 * (see cuda_nn_extra.h), with the CPU kernel's sampling arithmetic (image_crop_plan.h, bit for
 * bit: no fused multiply-adds).
 *
 * The forward pass is a thread per crop element. The image gradient scatters (a thread per
 * grads element, four atomic adds for a bilinear sample), as TF's GPU kernel does: a gather
 * would have to invert each box's sampling, which float rounding makes fragile. The box
 * gradient is a thread per box walking its samples in the CPU kernel's order, so its sums are
 * the CPU's exactly; boxes are few and crops small where this op is used (detection heads).
 *
 * Grid-stride loops over int64 indexes with a capped grid (cuda_common.cuh).
 */
#include <stdint.h>

#include "device/cuda/cuda_common.cuh"
#include "device/cuda/cuda_nn_extra.h"

using namespace tfc_cuda;

namespace {

/* Pixel (b, y, x, d) of the image as float (double rounded to nearest, half exactly). */
template <typename S>
__device__ __forceinline__ float pixel(const S *img, const tfc_crop_plan &p, int64_t b, int64_t y, int64_t x,
                                       int64_t d) {
  return (float)load(img, ((b * p.h + y) * p.w + x) * p.depth + d);
}

template <typename S>
__global__ void crop_k(const S *__restrict__ img, const float *__restrict__ boxes, const int32_t *__restrict__ ind,
                       float *__restrict__ out, tfc_crop_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t d = i % p.depth, t = i / p.depth, x = t % p.cw;
    t /= p.cw;
    int64_t y = t % p.ch, b = t / p.ch;
    const float *bx = boxes + b * 4;
    tfc_crop_axis ya = tfc_crop_axis_of(bx[0], bx[2], p.h, p.ch), xa = tfc_crop_axis_of(bx[1], bx[3], p.w, p.cw);
    float in_y = tfc_crop_sample(&ya, y), in_x = tfc_crop_sample(&xa, x);
    if (!tfc_crop_inside(&ya, in_y) || !tfc_crop_inside(&xa, in_x)) {
      out[i] = p.extrap;
      continue;
    }
    int64_t im = ind[b];
    if (p.nearest) {
      out[i] = pixel(img, p, im, (int64_t)roundf(in_y), (int64_t)roundf(in_x), d);
      continue;
    }
    int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y), lx = (int64_t)floorf(in_x),
            rx = (int64_t)ceilf(in_x);
    float ly = tfc_resize_sub(in_y, (float)ty), wx = tfc_resize_sub(in_x, (float)lx);
    float top = tfc_resize_blend(pixel(img, p, im, ty, lx, d), pixel(img, p, im, ty, rx, d), wx);
    float bottom = tfc_resize_blend(pixel(img, p, im, by, lx, d), pixel(img, p, im, by, rx, d), wx);
    out[i] = tfc_resize_blend(top, bottom, ly);
  }
}

/* A: the accumulator type (float for F32 and F16, double for F64). */
template <typename A>
__global__ void crop_grad_image_k(const float *__restrict__ grads, const float *__restrict__ boxes,
                                  const int32_t *__restrict__ ind, A *__restrict__ acc, tfc_crop_plan p, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t d = i % p.depth, t = i / p.depth, x = t % p.cw;
    t /= p.cw;
    int64_t y = t % p.ch, b = t / p.ch;
    const float *bx = boxes + b * 4;
    tfc_crop_axis ya = tfc_crop_axis_of(bx[0], bx[2], p.h, p.ch), xa = tfc_crop_axis_of(bx[1], bx[3], p.w, p.cw);
    float in_y = tfc_crop_sample(&ya, y), in_x = tfc_crop_sample(&xa, x);
    if (!tfc_crop_inside(&ya, in_y) || !tfc_crop_inside(&xa, in_x)) continue;
    A *im = acc + (int64_t)ind[b] * p.h * p.w * p.depth + d;
    float g = grads[i];
    if (p.nearest) {
      atomicAdd(im + ((int64_t)roundf(in_y) * p.w + (int64_t)roundf(in_x)) * p.depth, (A)g);
      continue;
    }
    int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y), lx = (int64_t)floorf(in_x),
            rx = (int64_t)ceilf(in_x);
    float ly = tfc_resize_sub(in_y, (float)ty), wx = tfc_resize_sub(in_x, (float)lx);
    float dtop = tfc_resize_mul(tfc_resize_sub(1.0f, ly), g), dbot = tfc_resize_mul(ly, g);
    atomicAdd(im + (ty * p.w + lx) * p.depth, (A)tfc_resize_mul(tfc_resize_sub(1.0f, wx), dtop));
    atomicAdd(im + (ty * p.w + rx) * p.depth, (A)tfc_resize_mul(wx, dtop));
    atomicAdd(im + (by * p.w + lx) * p.depth, (A)tfc_resize_mul(tfc_resize_sub(1.0f, wx), dbot));
    atomicAdd(im + (by * p.w + rx) * p.depth, (A)tfc_resize_mul(wx, dbot));
  }
}

__global__ void float_to_half_k(const float *__restrict__ src, __half *__restrict__ dst, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) { dst[i] = __float2half_rn(src[i]); }
}

template <typename S>
__global__ void crop_grad_boxes_k(const float *__restrict__ grads, const S *__restrict__ img,
                                  const float *__restrict__ boxes, const int32_t *__restrict__ ind,
                                  float *__restrict__ out, tfc_crop_plan p, float hr, float wr) {
  TFC_CUDA_GRID_LOOP(b, p.n) {
    const float *bx = boxes + b * 4;
    tfc_crop_axis ya = tfc_crop_grad_axis_of(bx[0], bx[2], p.h, p.ch),
                  xa = tfc_crop_grad_axis_of(bx[1], bx[3], p.w, p.cw);
    int64_t im = ind[b];
    float ob[4] = {0, 0, 0, 0};
    for (int64_t y = 0; y < p.ch; y++) {
      float in_y = tfc_crop_sample(&ya, y);
      if (!tfc_crop_inside(&ya, in_y)) continue;
      int64_t ty = (int64_t)floorf(in_y), by = (int64_t)ceilf(in_y);
      float ly = tfc_resize_sub(in_y, (float)ty);
      for (int64_t x = 0; x < p.cw; x++) {
        float in_x = tfc_crop_sample(&xa, x);
        if (!tfc_crop_inside(&xa, in_x)) continue;
        int64_t lx = (int64_t)floorf(in_x), rx = (int64_t)ceilf(in_x);
        float wx = tfc_resize_sub(in_x, (float)lx);
        const float *g = grads + ((b * p.ch + y) * p.cw + x) * p.depth;
        for (int64_t d = 0; d < p.depth; d++)
          tfc_crop_box_grad_add(ob, g[d], pixel(img, p, im, ty, lx, d), pixel(img, p, im, ty, rx, d),
                                pixel(img, p, im, by, lx, d), pixel(img, p, im, by, rx, d), ly, wx, y, x, &p, hr, wr);
      }
    }
    for (int k = 0; k < 4; k++) out[b * 4 + k] = ob[k];
  }
}

inline bool plan_ok(const tfc_crop_plan *p) {
  return p->batch >= 0 && p->h > 0 && p->w > 0 && p->depth >= 0 && p->n >= 0 && p->ch > 0 && p->cw > 0;
}

} // namespace

extern "C" int tfc_cuda_crop_and_resize(int dtype, const void *image, const float *boxes, const int32_t *box_ind,
                                        float *crops, const tfc_crop_plan *p, void *stream) {
  if (!plan_ok(p)) return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = p->n * p->ch * p->cw * p->depth;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (n == 0) return 0;
    crop_k<S><<<blocks_for(n), kThreads, 0, st>>>((const S *)image, boxes, box_ind, crops, *p, n);
    return launched();
  });
}

extern "C" int tfc_cuda_crop_grad_image(int dtype, const float *grads, const float *boxes, const int32_t *box_ind,
                                        void *dx, float *scratch, const tfc_crop_plan *p, void *stream) {
  if (!plan_ok(p) || (dtype == TFC_CUDA_F16 && !scratch)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  int64_t n_in = p->n * p->ch * p->cw * p->depth, n_out = p->batch * p->h * p->w * p->depth;
  if (n_out == 0) return 0;
  size_t esize = dtype == TFC_CUDA_F64 ? 8 : 4;
  void *acc = dtype == TFC_CUDA_F16 ? (void *)scratch : dx;
  if (dtype != TFC_CUDA_F32 && dtype != TFC_CUDA_F64 && dtype != TFC_CUDA_F16) return TFC_CUDA_E_UNSUPPORTED;
  int e = cuda_result(cudaMemsetAsync(acc, 0, (size_t)n_out * esize, st));
  if (e) return e;
  if (n_in > 0) {
    if (dtype == TFC_CUDA_F64)
      crop_grad_image_k<double><<<blocks_for(n_in), kThreads, 0, st>>>(grads, boxes, box_ind, (double *)acc, *p, n_in);
    else
      crop_grad_image_k<float><<<blocks_for(n_in), kThreads, 0, st>>>(grads, boxes, box_ind, (float *)acc, *p, n_in);
    if ((e = launched())) return e;
  }
  if (dtype != TFC_CUDA_F16) return 0;
  float_to_half_k<<<blocks_for(n_out), kThreads, 0, st>>>(scratch, (__half *)dx, n_out);
  return launched();
}

extern "C" int tfc_cuda_crop_grad_boxes(int dtype, const float *grads, const void *image, const float *boxes,
                                        const int32_t *box_ind, float *out, const tfc_crop_plan *p, void *stream) {
  if (!plan_ok(p)) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t st = (cudaStream_t)stream;
  float hr = p->ch > 1 ? (float)(p->h - 1) / (float)(p->ch - 1) : 0;
  float wr = p->cw > 1 ? (float)(p->w - 1) / (float)(p->cw - 1) : 0;
  return by_float_dtype(dtype, [&](auto t) {
    typedef typename decltype(t)::type S;
    if (p->n == 0) return 0;
    crop_grad_boxes_k<S><<<blocks_for(p->n), kThreads, 0, st>>>(grads, (const S *)image, boxes, box_ind, out, *p, hr,
                                                                  wr);
    return launched();
  });
}
