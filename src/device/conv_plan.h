/*
 * conv_plan — the attr checks, shape checks and window geometry that the CPU and GPU kernels of
 * Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, the three depthwise convolutions, MaxPool,
 * AvgPool, MaxPoolGrad and AvgPoolGrad share, so both devices accept and refuse exactly the
 * same nodes and inputs, with TF 1.15's codes and texts, and agree on every output shape and
 * on TF's padding split.
 *
 * Two stages, as the kernels run: init parses the node's attrs once (tfc_conv_attrs_parse,
 * tfc_pool_attrs_parse: strides, dilations, ksize, data_format, padding SAME / VALID /
 * EXPLICIT with explicit_paddings); compute turns the inputs into a plan (tfc_conv_plan_make,
 * tfc_pool_plan_make): the checked shapes, the geometry with each side's padding, the output
 * dims, and whether the output is simply zeros. Only the arithmetic is left to the device.
 *
 * Padding. TF's SAME pads total = max(0, (out - 1) * stride + effective_filter - in) per dim and
 * puts the odd element after (pad_before = total / 2); EXPLICIT gives each side; VALID none. The
 * geometry keeps both sides (pt/pb, pl/pr): a device that pads symmetrically (cuDNN) must make
 * up the difference itself.
 *
 * Memory: the plans read only host-memory inputs (input_sizes, filter_sizes, orig_input_shape,
 * which every device's row keeps in host memory) and the shapes of the others, never device
 * data. Errors are set on the kernel context or the status given. Thread-safe (no state).
 */
#ifndef TFC_DEVICE_CONV_PLAN_H
#define TFC_DEVICE_CONV_PLAN_H

#include <stdint.h>

#include "base/status.h"
#include "device/kernel.h"

/* One 2-D windowed op over an N x H x W x C input (stored NHWC or NCHW). For convolutions
 * kh/kw are the filter's size and oc its output channels; for pooling oc == ic. */
typedef struct tfc_window_geom {
  int64_t n, ih, iw, ic, kh, kw, oc, oh, ow;
  int64_t sh, sw, dh, dw; /* strides; dilations (1 = none) */
  int64_t pt, pb, pl, pr; /* padding top/bottom/left/right, TF's SAME split or EXPLICIT */
  int nchw;
} tfc_window_geom;

enum { TFC_PAD_VALID = 0, TFC_PAD_SAME = 1, TFC_PAD_EXPLICIT = 2 };

/* TF's windowed output size and padding for one dim (EXPLICIT: pad_before and pad_after are
 * given; SAME and VALID: computed). INVALID_ARGUMENT "Computed output size would be negative:
 * ..." (TF's text) set in c. */
int tfc_window_output_size(tfc_kernel_ctx *c, int64_t in, int64_t k, int64_t dil, int64_t stride, int padding,
                           int64_t *out, int64_t *pad_before, int64_t *pad_after);

/* Element offset of (b, y, x, ch) in a tensor of n x h x w x chs in the given layout. */
static inline int64_t tfc_window_offset(int nchw, int64_t h, int64_t w, int64_t chs, int64_t b, int64_t y, int64_t x,
                                        int64_t ch) {
  return nchw ? ((b * chs + ch) * h + y) * w + x : ((b * h + y) * w + x) * chs + ch;
}

/* The 4 dims (n, h, w, ch) in the layout's order. */
static inline void tfc_window_dims(int nchw, int64_t n, int64_t h, int64_t w, int64_t ch, int64_t dims[4]) {
  dims[0] = n;
  dims[nchw ? 1 : 3] = ch;
  dims[nchw ? 2 : 1] = h;
  dims[nchw ? 3 : 2] = w;
}

/* ---- convolutions ---- */

enum tfc_conv_kind { TFC_CONV_FWD = 0, TFC_CONV_BWD_INPUT = 1, TFC_CONV_BWD_FILTER = 2, TFC_CONV_KIND_COUNT = 3 };

typedef struct tfc_conv_attrs {
  int nchw, padding;
  int64_t stride[2], dil[2]; /* H, W */
  int64_t pads[4];           /* EXPLICIT: top, bottom, left, right */
} tfc_conv_attrs;

/* Parses and checks a Conv2D-family node's attrs (TF 1.15's texts: UNIMPLEMENTED for strides
 * or dilations in the batch or depth dims, INVALID_ARGUMENT for non-positive ones and for bad
 * explicit_paddings). Returns 0 or the error set in s. */
int tfc_conv_attrs_parse(const tfc_node *n, tfc_conv_attrs *out, tfc_status *s);

typedef struct tfc_conv_plan {
  int dtype;
  tfc_window_geom g;
  int64_t out_dims[4];  /* output 0: the activation, the input's or the filter's shape */
  const tfc_tensor *x;  /* input (FWD, BWD_FILTER), else NULL; borrowed from c */
  const tfc_tensor *f;  /* filter (FWD, BWD_INPUT), else NULL */
  const tfc_tensor *dy; /* out_backprop (backprops), else NULL */
  int zeros;            /* nothing to sum over or an empty output: the output is all zeros */
} tfc_conv_plan;

/* Checks c's inputs for a node of `kind` with attrs a (the CPU kernels' checks and texts:
 * ranks, the host sizes input, depths, batch, out_backprop's shape) and fills out. Returns 0
 * or the error set in c. */
int tfc_conv_plan_make(tfc_kernel_ctx *c, const tfc_conv_attrs *a, int kind, tfc_conv_plan *out);

/* ---- depthwise convolutions ---- */

/* DepthwiseConv2dNative (kind TFC_CONV_FWD: input, filter), DepthwiseConv2dNativeBackpropInput
 * (TFC_CONV_BWD_INPUT: input_sizes in host memory, filter, out_backprop) and
 * DepthwiseConv2dNativeBackpropFilter (TFC_CONV_BWD_FILTER: input, filter_sizes in host memory,
 * out_backprop). The filter is [kh, kw, C, mult]; output channel ch * mult + q is input channel
 * ch under filter slice [.., .., ch, q]. */
typedef struct tfc_depthwise_plan {
  int dtype;
  tfc_window_geom g;    /* oc = ic * mult; nchw from data_format */
  int64_t mult;
  int64_t out_dims[4];  /* output 0: the activation, the input's or the filter's shape */
  int zeros;            /* nothing to sum over or an empty output: the output is all zeros */
} tfc_depthwise_plan;

/* Checks c's node and inputs for a depthwise node of `kind` as TF's kernels do, in their order
 * and with their texts: the data format (`on_cpu`: anything but NHWC is UNIMPLEMENTED
 * "Depthwise convolution on CPU is only supported for NHWC format", TF's CPU limit; the GPU
 * takes NCHW too), strides (4 of them, 1 in the batch and depth dims, equal row and column
 * strides), then padding and dilations as Conv2D's (tfc_conv_attrs_parse); then ranks, host
 * sizes, depths and out_backprop's shape. Fills out. Returns 0 or the error set in c. */
int tfc_depthwise_plan_make(tfc_kernel_ctx *c, int kind, int on_cpu, tfc_depthwise_plan *out);

/* ---- pooling ---- */

enum tfc_pool_kind {
  TFC_POOL_MAX = 0,
  TFC_POOL_AVG = 1,
  TFC_POOL_MAX_GRAD = 2, /* (orig_input, orig_output, grad) */
  TFC_POOL_AVG_GRAD = 3, /* (orig_input_shape: host, grad) */
  TFC_POOL_KIND_COUNT = 4
};

typedef struct tfc_pool_attrs {
  int nchw, padding;
  int64_t ksize[2], stride[2]; /* H, W */
} tfc_pool_attrs;

/* Parses and checks a pooling node's attrs. `device` ("CPU", "GPU") names the device in the
 * texts of what only TF's other kernels support (pooling across depth, other data formats).
 * Returns 0 or the error set in s. */
int tfc_pool_attrs_parse(const tfc_node *n, const char *device, tfc_pool_attrs *out, tfc_status *s);

typedef struct tfc_pool_plan {
  int dtype;
  tfc_window_geom g;
  int64_t out_dims[4];    /* output 0: the pooled shape (forward), the input's (gradients) */
  const tfc_tensor *x;    /* orig_input / the input (not AVG_GRAD); borrowed from c */
  const tfc_tensor *y;    /* orig_output (MAX_GRAD) */
  const tfc_tensor *grad; /* out_backprop (gradients) */
  int zeros;              /* an empty out_backprop: the input gradient is all zeros */
} tfc_pool_plan;

/* Checks c's inputs for a node of `kind` (ranks, orig_input_shape, orig_output's and grad's
 * shape against the pooled shape) and fills out. Returns 0 or the error set in c. */
int tfc_pool_plan_make(tfc_kernel_ctx *c, const tfc_pool_attrs *a, int kind, tfc_pool_plan *out);

/* ---- fused epilogues (_FusedConv2D, _FusedDepthwiseConv2dNative, _FusedMatMul) ---- */

/* What a fused convolution adds after the sum: a per-output-channel bias (the node's args[0]),
 * for _FusedConv2D optionally a tensor of the output's shape (args[1]: a residual branch,
 * fused_ops "BiasAdd", "Add", which tfc's remapper makes; TF's oneDNN build has the same
 * fusion), and one elementwise activation. oneDNN runs them as the primitive's bias, a sum
 * post-op over the output (which then holds the addend when the primitive runs) and an
 * eltwise post-op; the plain-C path (tfc_conv_fusion_ref) after the convolution; the GPU
 * (cuda/kernels_conv_gpu.c) one epilogue kernel after cuDNN's convolution. */
enum tfc_conv_act { TFC_ACT_NONE = 0, TFC_ACT_RELU, TFC_ACT_RELU6, TFC_ACT_ELU, TFC_ACT_LEAKY_RELU };
typedef struct tfc_conv_fusion {
  int on;    /* 1: a fused node (bias present) */
  int add;   /* 1: args[1] (input 3) is added before the activation */
  int act;   /* tfc_conv_act */
  float alpha; /* LeakyRelu's slope */
} tfc_conv_fusion;

/* Reads a fused node's (_FusedConv2D, _FusedDepthwiseConv2dNative, _FusedMatMul) fused_ops,
 * num_args and leakyrelu_alpha into f (zeroed for any other op). TF's kernel texts:
 * UNIMPLEMENTED "Fusion is not implemented: [...]" for a combination other than BiasAdd, then
 * (_FusedConv2D only) an optional Add, then an optional Relu, Relu6, Elu or LeakyRelu;
 * INVALID_ARGUMENT when num_args is not 1 (2 with Add); UNIMPLEMENTED for a filter_format
 * other than HWIO or host_args. Every device runs all that this accepts. */
int tfc_conv_fusion_parse(const tfc_node *n, tfc_conv_fusion *f, tfc_status *s);
/* Checks the bias input (c->inputs[2]) of a fused node: 1-D of oc elements of the output's
 * dtype; INVALID_ARGUMENT naming the node otherwise. */
int tfc_conv_fusion_check_bias(tfc_kernel_ctx *c, int64_t oc);
/* Checks a fused node's addend (c->inputs[3], when f->add): the output's dtype and dims;
 * INVALID_ARGUMENT naming the node otherwise. */
int tfc_conv_fusion_check_addend(tfc_kernel_ctx *c, const tfc_conv_fusion *f, const int64_t *dims, int ndims);

#endif
