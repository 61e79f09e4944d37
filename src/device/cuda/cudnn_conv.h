/*
 * cudnn_conv — one convolution of 2 or 3 spatial dims (forward, input gradient or filter
 * gradient; plain or grouped) through cuDNN's N-d descriptors, for the GPU kernels of Conv2D,
 * the depthwise convolutions, _FusedConv2D (kernels_conv_gpu.c) and Conv3D
 * (kernels_conv3d_gpu.c), with its algorithm cache. cudnn_conv.c explains the layouts, the
 * padding and the choice of algorithms.
 *
 * The callers check attrs and shapes with the plans the CPU kernels use (conv_plan.h,
 * conv3d_plan.h) and hand over the geometry; this module does the arithmetic only.
 */
#ifndef TFC_DEVICE_CUDA_CUDNN_CONV_H
#define TFC_DEVICE_CUDA_CUDNN_CONV_H

#include <pthread.h>
#include <stdint.h>

#include "base/status.h"
#include "device/conv3d_plan.h"
#include "device/conv_plan.h"
#include "device/kernel.h"

/* A convolution over an N x C x S0 x S1 [x S2] activation: nsp spatial dims (2 or 3), stored
 * channels first (NCHW, NCDHW: cfirst) or last (NHWC, NDHWC); the filter is [S.., C / groups,
 * OC] (HWIO, DHWIO). pb / pa: each spatial dim's padding before and after (TF's split). */
typedef struct tfc_cudnn_conv_geom {
  int nsp, cfirst;
  int64_t n, ic, oc, groups;
  int64_t in[3], k[3], out[3], stride[3], dil[3], pb[3], pa[3];
} tfc_cudnn_conv_geom;

/* The geometry of a 2-D convolution in `groups` groups (1; the input channels for a depthwise
 * one). */
void tfc_cudnn_conv_geom_2d(const tfc_window_geom *g, int64_t groups, tfc_cudnn_conv_geom *out);
/* The geometry of a 3-D convolution (one group). */
void tfc_cudnn_conv_geom_3d(const tfc_geom3 *g, tfc_cudnn_conv_geom *out);

/* A node's algorithm cache: cuDNN's choices per kind and geometry, behind a mutex (compute may
 * run concurrently for one node). _init: 0, or INTERNAL naming node n in s; _fini frees it. */
typedef struct tfc_cudnn_algo_cache {
  pthread_mutex_t mu;
  struct tfc_cudnn_algo *algos; /* guarded by mu */
} tfc_cudnn_algo_cache;
int tfc_cudnn_algo_cache_init(tfc_cudnn_algo_cache *cache, const tfc_node *n, tfc_status *s);
void tfc_cudnn_algo_cache_fini(tfc_cudnn_algo_cache *cache);

/* Allocates output 0 of c (out_dims, ndims, dtype: half, float or double) and fills it with the
 * convolution of `kind` (TFC_CONV_FWD, TFC_CONV_BWD_INPUT, TFC_CONV_BWD_FILTER) over g: zeros
 * when `zeros` says there is nothing to sum over, else cuDNN's result. x, f, dy: the device
 * buffers of the input, the filter and out_backprop (NULL where the kind computes it). *out:
 * the output (borrowed from c), NULL when the call fails. Enqueued on c's compute stream.
 * Returns 0 or the error set in c (UNIMPLEMENTED for dims beyond cuDNN's int range or when no
 * algorithm fits; FAILED_PRECONDITION without cuDNN; INTERNAL for a cuDNN failure). */
int tfc_cudnn_conv_output(tfc_kernel_ctx *c, tfc_cudnn_algo_cache *cache, int kind, const tfc_cudnn_conv_geom *g,
                          int dtype, const int64_t *out_dims, int ndims, int zeros, const void *x, const void *f,
                          const void *dy, tfc_tensor **out);

#endif
