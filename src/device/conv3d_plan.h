/*
 * conv3d_plan — the attr checks, shape checks and window geometry that the CPU and GPU kernels
 * of Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D, AvgPool3D,
 * MaxPool3DGrad and AvgPool3DGrad share (kernels_conv3d.c, cuda/kernels_conv3d_gpu.c), so both
 * devices accept and refuse the same nodes and inputs with TF 1.15's codes and texts
 * (conv_ops_3d.cc, conv_grad_ops_3d.cc, pooling_ops_3d.cc) and agree on every output shape and
 * on TF's padding split (tfc_window_output_size of conv_plan.h, per spatial dim).
 *
 * Two stages, as conv_plan.h: init parses the node's attrs once (tfc_conv3d_attrs_parse);
 * compute turns the inputs into a plan (tfc_conv3d_plan_make): the checked shapes, the geometry
 * with each side's padding, the output dims and whether the output is simply zeros.
 *
 * Layouts. TF's CPU kernels take NDHWC only and refuse NCDHW with their own texts (`on_cpu`);
 * TF's GPU kernels take both. The plan's geometry is layout-free (batch, channels, the three
 * spatial dims D, H, W in that order) with the layout in `ncdhw`; shapes given by the user
 * (tensors, input_sizes, filter_sizes, orig_input_shape) are read in the node's layout. The
 * filter is always DHWIO.
 *
 * Memory: the plans read only host-memory inputs (input_sizes, filter_sizes, orig_input_shape,
 * which every device's row keeps in host memory) and the shapes of the others. Errors are set
 * on the kernel context or the status given. Thread-safe (no state).
 */
#ifndef TFC_DEVICE_CONV3D_PLAN_H
#define TFC_DEVICE_CONV3D_PLAN_H

#include <stdint.h>

#include "base/status.h"
#include "device/kernel.h"

enum tfc_conv3d_kind {
  TFC_C3_CONV_FWD = 0,    /* Conv3D (input, filter) */
  TFC_C3_BWD_INPUT = 1,   /* Conv3DBackpropInputV2 (input_sizes: host, filter, out_backprop) */
  TFC_C3_BWD_FILTER = 2,  /* Conv3DBackpropFilterV2 (input, filter_sizes: host, out_backprop) */
  TFC_C3_MAX = 3,         /* MaxPool3D (input) */
  TFC_C3_AVG = 4,         /* AvgPool3D (input) */
  TFC_C3_MAX_GRAD = 5,    /* MaxPool3DGrad (orig_input, orig_output, grad) */
  TFC_C3_AVG_GRAD = 6,    /* AvgPool3DGrad (orig_input_shape: host, grad) */
  TFC_C3_KIND_COUNT = 7
};

typedef struct tfc_conv3d_attrs {
  int kind, padding, ncdhw; /* padding: TFC_PAD_SAME or TFC_PAD_VALID */
  int64_t stride[3], dil[3], ksize[3]; /* D, H, W; convolutions: ksize 1; pooling: dil 1 */
} tfc_conv3d_attrs;

/* Parses and checks a node of `kind`'s attrs (strides, dilations, ksize, padding, data_format)
 * with TF's texts; `on_cpu`: NCDHW is refused as TF's CPU kernels refuse it. Returns 0 or the
 * error set in s. */
int tfc_conv3d_attrs_parse(const tfc_node *n, int kind, int on_cpu, tfc_conv3d_attrs *out, tfc_status *s);

/* One 3-D windowed op over an N x D x H x W x C input. Spatial arrays are D, H, W. For pooling
 * oc == ic, k is ksize and dil 1. pb/pa: the padding before and after (TF's SAME split). */
typedef struct tfc_geom3 {
  int64_t n, ic, oc;
  int64_t in[3], k[3], out[3], stride[3], dil[3], pb[3], pa[3];
  int ncdhw;
} tfc_geom3;

typedef struct tfc_conv3d_plan {
  int dtype;
  tfc_geom3 g;
  int64_t out_dims[5]; /* output 0 in the node's layout (the filter gradient: DHWIO) */
  const tfc_tensor *x;    /* the input / orig_input (not BWD_INPUT, AVG_GRAD); borrowed from c */
  const tfc_tensor *f;    /* the filter (FWD, BWD_INPUT) */
  const tfc_tensor *y;    /* orig_output (MAX_GRAD) */
  const tfc_tensor *grad; /* out_backprop / grad (the gradients) */
  int zeros;              /* nothing to sum over (an empty dim or an empty gradient): all zeros */
} tfc_conv3d_plan;

/* Checks c's inputs for a node with attrs a (ranks, the host sizes vector, depths, batch,
 * out_backprop's / orig_output's / grad's shapes, the dtypes of MaxPool3DGrad; TF's texts) and
 * fills out. Returns 0 or the error set in c. */
int tfc_conv3d_plan_make(tfc_kernel_ctx *c, const tfc_conv3d_attrs *a, tfc_conv3d_plan *out);

/* The product of a 3-vector (spatial sizes). */
static inline int64_t tfc_prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

#endif
