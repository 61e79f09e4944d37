/*
 * grad_conv — gradient builders of convolution and pooling, as TF's nn_grad.py builds them:
 * Conv2D through Conv2DBackpropInput and Conv2DBackpropFilter (sizes from one ShapeN),
 * DepthwiseConv2dNative through its two backprops (each size from its own Shape, a Const when
 * known), Conv3D through its two V2 backprops (one ShapeN); each backprop's own gradient is the
 * other backprop and the convolution (so a conv2d_transpose trains); MaxPool (MaxPool3D)
 * through MaxPoolGrad (MaxPool3DGrad) and AvgPool (AvgPool3D) through AvgPoolGrad
 * (AvgPool3DGrad). The forward node's attrs (strides, padding, dilations, data_format, ...)
 * are copied to each gradient op that declares them. Rows name ops by string: they work once
 * ops_conv.def and ops_conv3d.def have the rows.
 */

#include "grad/grad_internal.h"
#include "ops/opdef.h"

static const char *const conv_attrs[] = {"strides", "padding", "explicit_paddings", "dilations",
                                         "use_cudnn_on_gpu", "data_format", "ksize"};
#define N_CONV_ATTRS ((int)(sizeof conv_attrs / sizeof conv_attrs[0]))

/* The forward attrs the target op declares, copied into a (room for N_CONV_ATTRS). */
static int copy_attrs(tfc_grad_ctx *c, const char *target, tfc_grad_attr *a) {
  const tfc_opdef *op = tfc_op_lookup(target);
  int n = 0;
  for (int i = 0; op && i < N_CONV_ATTRS; i++) {
    const tfc_attr_value *v = tfc_node_attr(c->op, conv_attrs[i]);
    if (!v || !tfc_opdef_attr(op, conv_attrs[i])) continue;
    a[n].name = conv_attrs[i];
    if (tfc_attr_value_copy(v, &a[n].v, c->s) != TFC_OK) break;
    n++;
  }
  return n;
}

/* A convolution's two gradients: op_input(sizes of x, w, dy) and op_filter(x, sizes of w,
 * dy), the sizes from one ShapeN. */
static int conv_grads(tfc_grad_ctx *c, const char *op_input, const char *op_filter) {
  tfc_endpoint x = tfc_grad_in(c, 0), w = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_endpoint pair[2] = {x, w};
  tfc_node *shapes = tfc_grad_node(c, "ShapeN", NULL, pair, 2, 0, 2, NULL, 0, NULL);
  tfc_grad_attr a1[N_CONV_ATTRS], a2[N_CONV_ATTRS];
  int n1 = copy_attrs(c, op_input, a1);
  tfc_endpoint i1[3] = {{shapes, 0}, w, g};
  c->dx[0] = tfc_grad_op(c, op_input, NULL, i1, 3, a1, n1);
  int n2 = copy_attrs(c, op_filter, a2);
  tfc_endpoint i2[3] = {x, {shapes, 1}, g};
  c->dx[1] = tfc_grad_op(c, op_filter, NULL, i2, 3, a2, n2);
  return c->s->code;
}

static int conv2d_grad(tfc_grad_ctx *c) { return conv_grads(c, "Conv2DBackpropInput", "Conv2DBackpropFilter"); }

/* TF's _DepthwiseConv2dNativeGrad takes each size from its own array_ops.shape (a Const when
 * the static shape is fully defined), made just before the backprop that reads it. */
static int depthwise_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), w = tfc_grad_in(c, 1), g = c->dy[0];
  const char *op_input = "DepthwiseConv2dNativeBackpropInput", *op_filter = "DepthwiseConv2dNativeBackpropFilter";
  tfc_grad_attr a1[N_CONV_ATTRS], a2[N_CONV_ATTRS];
  tfc_endpoint i1[3] = {tfc_grad_shape_opt(c, x, TFC_DT_INT32), w, g};
  int n1 = copy_attrs(c, op_input, a1);
  c->dx[0] = tfc_grad_op(c, op_input, NULL, i1, 3, a1, n1);
  tfc_endpoint i2[3] = {x, tfc_grad_shape_opt(c, w, TFC_DT_INT32), g};
  int n2 = copy_attrs(c, op_filter, a2);
  c->dx[1] = tfc_grad_op(c, op_filter, NULL, i2, 3, a2, n2);
  return c->s->code;
}

static int conv3d_grad(tfc_grad_ctx *c) { return conv_grads(c, "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"); }

/* op_input(sizes, w, dy), a convolution's transpose: d/dw is the filter gradient op_filter of
 * g over dy, d/ddy the convolution op_conv of g with w (TF's _Conv2DBackpropInputGrad and its
 * depthwise and 3-D twins); the sizes get none. */
static int backprop_input_grad(tfc_grad_ctx *c, const char *op_filter, const char *op_conv) {
  tfc_endpoint w = tfc_grad_in(c, 1), dy = tfc_grad_in(c, 2), g = c->dy[0];
  tfc_grad_attr a1[N_CONV_ATTRS], a2[N_CONV_ATTRS];
  tfc_endpoint sw = tfc_grad_shape_opt(c, w, TFC_DT_INT32);
  int n1 = copy_attrs(c, op_filter, a1);
  tfc_endpoint i1[3] = {g, sw, dy};
  c->dx[1] = tfc_grad_op(c, op_filter, NULL, i1, 3, a1, n1);
  int n2 = copy_attrs(c, op_conv, a2);
  tfc_endpoint i2[2] = {g, w};
  c->dx[2] = tfc_grad_op(c, op_conv, NULL, i2, 2, a2, n2);
  return c->s->code;
}

/* op_filter(x, sizes, dy): d/dx is the input gradient op_input of dy through g, d/ddy the
 * convolution op_conv of x with g (TF's _Conv2DBackpropFilterGrad and twins); the sizes get
 * none. */
static int backprop_filter_grad(tfc_grad_ctx *c, const char *op_input, const char *op_conv) {
  tfc_endpoint x = tfc_grad_in(c, 0), dy = tfc_grad_in(c, 2), g = c->dy[0];
  tfc_grad_attr a1[N_CONV_ATTRS], a2[N_CONV_ATTRS];
  tfc_endpoint sx = tfc_grad_shape_opt(c, x, TFC_DT_INT32);
  int n1 = copy_attrs(c, op_input, a1);
  tfc_endpoint i1[3] = {sx, g, dy};
  c->dx[0] = tfc_grad_op(c, op_input, NULL, i1, 3, a1, n1);
  int n2 = copy_attrs(c, op_conv, a2);
  tfc_endpoint i2[2] = {x, g};
  c->dx[2] = tfc_grad_op(c, op_conv, NULL, i2, 2, a2, n2);
  return c->s->code;
}

static int conv2d_backprop_input_grad(tfc_grad_ctx *c) {
  return backprop_input_grad(c, "Conv2DBackpropFilter", "Conv2D");
}
static int conv2d_backprop_filter_grad(tfc_grad_ctx *c) {
  return backprop_filter_grad(c, "Conv2DBackpropInput", "Conv2D");
}
static int depthwise_backprop_input_grad(tfc_grad_ctx *c) {
  return backprop_input_grad(c, "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNative");
}
static int depthwise_backprop_filter_grad(tfc_grad_ctx *c) {
  return backprop_filter_grad(c, "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNative");
}
static int conv3d_backprop_input_grad(tfc_grad_ctx *c) {
  return backprop_input_grad(c, "Conv3DBackpropFilterV2", "Conv3D");
}
static int conv3d_backprop_filter_grad(tfc_grad_ctx *c) {
  return backprop_filter_grad(c, "Conv3DBackpropInputV2", "Conv3D");
}

/* op(x, y, dy) for max pooling (MaxPoolGrad, MaxPool3DGrad). */
static int max_pool_grad_op(tfc_grad_ctx *c, const char *op) {
  tfc_grad_attr a[N_CONV_ATTRS];
  int n = copy_attrs(c, op, a);
  tfc_endpoint ins[3] = {tfc_grad_in(c, 0), tfc_grad_out(c, 0), c->dy[0]};
  c->dx[0] = tfc_grad_op(c, op, NULL, ins, 3, a, n);
  return c->s->code;
}

/* op(Shape(x), dy) for average pooling (AvgPoolGrad, AvgPool3DGrad); the shape is a Const
 * "Shape" when x's shape is fully known, as TF's array_ops.shape folds it. */
static int avg_pool_grad_op(tfc_grad_ctx *c, const char *op) {
  tfc_endpoint sx = tfc_grad_shape_opt(c, tfc_grad_in(c, 0), TFC_DT_INT32);
  tfc_grad_attr a[N_CONV_ATTRS];
  int n = copy_attrs(c, op, a);
  tfc_endpoint ins[2] = {sx, c->dy[0]};
  c->dx[0] = tfc_grad_op(c, op, NULL, ins, 2, a, n);
  return c->s->code;
}

static int max_pool_grad(tfc_grad_ctx *c) { return max_pool_grad_op(c, "MaxPoolGrad"); }
static int avg_pool_grad(tfc_grad_ctx *c) { return avg_pool_grad_op(c, "AvgPoolGrad"); }
static int max_pool3d_grad(tfc_grad_ctx *c) { return max_pool_grad_op(c, "MaxPool3DGrad"); }
static int avg_pool3d_grad(tfc_grad_ctx *c) { return avg_pool_grad_op(c, "AvgPool3DGrad"); }

const tfc_grad_entry tfc_grad_conv_entries[] = {
    {"Conv2D", conv2d_grad}, {"MaxPool", max_pool_grad}, {"AvgPool", avg_pool_grad},
    {"DepthwiseConv2dNative", depthwise_grad}, {"Conv3D", conv3d_grad}, {"MaxPool3D", max_pool3d_grad},
    {"AvgPool3D", avg_pool3d_grad}, {"Conv3DBackpropInputV2", conv3d_backprop_input_grad},
    {"Conv3DBackpropFilterV2", conv3d_backprop_filter_grad}, {"Conv2DBackpropInput", conv2d_backprop_input_grad},
    {"Conv2DBackpropFilter", conv2d_backprop_filter_grad},
    {"DepthwiseConv2dNativeBackpropInput", depthwise_backprop_input_grad},
    {"DepthwiseConv2dNativeBackpropFilter", depthwise_backprop_filter_grad}, {NULL, NULL}};
