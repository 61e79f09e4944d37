/*
 * grad_conv — gradient builders of convolution and pooling: Conv2D through
 * Conv2DBackpropInput and Conv2DBackpropFilter (sizes from one ShapeN), DepthwiseConv2dNative
 * through its two backprops (each size from its own Shape, a Const when known), MaxPool through
 * MaxPoolGrad and AvgPool through AvgPoolGrad, as TF's nn_grad.py builds them. The forward
 * node's attrs (strides, padding, dilations, data_format, ...) are copied to each gradient op
 * that declares them. Rows name ops by string: they work once ops_conv.def has the rows.
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

static int max_pool_grad(tfc_grad_ctx *c) {
  tfc_grad_attr a[N_CONV_ATTRS];
  int n = copy_attrs(c, "MaxPoolGrad", a);
  tfc_endpoint ins[3] = {tfc_grad_in(c, 0), tfc_grad_out(c, 0), c->dy[0]};
  c->dx[0] = tfc_grad_op(c, "MaxPoolGrad", NULL, ins, 3, a, n);
  return c->s->code;
}

static int avg_pool_grad(tfc_grad_ctx *c) {
  tfc_endpoint sx = tfc_grad_shape(c, tfc_grad_in(c, 0));
  tfc_grad_attr a[N_CONV_ATTRS];
  int n = copy_attrs(c, "AvgPoolGrad", a);
  tfc_endpoint ins[2] = {sx, c->dy[0]};
  c->dx[0] = tfc_grad_op(c, "AvgPoolGrad", NULL, ins, 2, a, n);
  return c->s->code;
}

const tfc_grad_entry tfc_grad_conv_entries[] = {
    {"Conv2D", conv2d_grad}, {"MaxPool", max_pool_grad}, {"AvgPool", avg_pool_grad},
    {"DepthwiseConv2dNative", depthwise_grad}, {NULL, NULL}};
