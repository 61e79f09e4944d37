/*
 * kernels_depthwise — the oneDNN path of DepthwiseConv2dNative (kernels_depthwise_dnnl.c),
 * called at the top of the CPU kernel's compute, which keeps its reference loop for what this
 * declines.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_DEPTHWISE_H
#define TFC_DEVICE_CPU_KERNELS_DEPTHWISE_H

#include "device/conv_plan.h"

/* Kernel state: a primitive cache and, for _FusedDepthwiseConv2dNative, its fused epilogue
 * (init sets *state, owned; free_state releases it; init fails with TF's status for fused_ops
 * it cannot run). */
int tfc_depthwise_dnn_init(const tfc_node *n, void **state, tfc_status *s);
void tfc_depthwise_dnn_free(void *state);
/* The fused epilogue of the state (a struct tfc_conv_fusion, kernels_conv_int.h), or NULL for
 * a plain DepthwiseConv2dNative. Borrowed. */
const struct tfc_conv_fusion *tfc_depthwise_fusion(const void *state);

/* Runs the float forward of geometry g (NHWC; g->oc = in channels * multiplier; filter in TF's
 * [kh, kw, in, mult] layout), plus the fused epilogue with bias (NULL for a plain node) into y, whose shape the caller allocated. Returns 1 when it ran
 * (errors set in c->status), 0 when it declines (nothing set, y untouched). */
int tfc_depthwise_dnn_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, const float *x, const float *f,
                          const float *bias, float *y);

#endif
