/*
 * grad_nn — gradient builders of the neural-network family: BiasAdd, the activations (through
 * TF's fused *Grad ops), LRN, softmax and log-softmax, the two softmax cross-entropy losses
 * and L2Loss, FusedBatchNorm*. Rows name ops by string, so they become active as the ops land in ops_nn.def.
 *
 * Math, argument order of the fused gradient ops and node names follow TF's nn_grad.py.
 */
#include <string.h>

#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

/* Copies the forward node's attr `name` into a[*n] when the target op declares it. */
static void copy_attr(tfc_grad_ctx *c, const char *target, const char *name, tfc_grad_attr *a, int *n) {
  const tfc_opdef *op = tfc_op_lookup(target);
  const tfc_attr_value *v = tfc_node_attr(c->op, name);
  if (!op || !v || !tfc_opdef_attr(op, name)) return;
  a[*n].name = name;
  if (tfc_attr_value_copy(v, &a[*n].v, c->s) == TFC_OK) (*n)++;
}

static int bias_add_grad(tfc_grad_ctx *c) {
  tfc_grad_attr a[1];
  int n = 0;
  copy_attr(c, "BiasAddGrad", "data_format", a, &n);
  c->dx[0] = c->dy[0];
  c->dx[1] = tfc_grad_op(c, "BiasAddGrad", NULL, &c->dy[0], 1, a, n);
  return c->s->code;
}

/* <fused>(dy, features) where features is the op's input or output, per TF. */
static int fused2(tfc_grad_ctx *c, const char *fused, tfc_endpoint features) {
  c->dx[0] = tfc_grad_binary(c, fused, NULL, c->dy[0], features);
  return c->s->code;
}
static int relu_grad(tfc_grad_ctx *c) { return fused2(c, "ReluGrad", tfc_grad_out(c, 0)); }
static int relu6_grad(tfc_grad_ctx *c) { return fused2(c, "Relu6Grad", tfc_grad_out(c, 0)); }
static int elu_grad(tfc_grad_ctx *c) { return fused2(c, "EluGrad", tfc_grad_out(c, 0)); }
static int selu_grad(tfc_grad_ctx *c) { return fused2(c, "SeluGrad", tfc_grad_out(c, 0)); }
static int softplus_grad(tfc_grad_ctx *c) { return fused2(c, "SoftplusGrad", tfc_grad_in(c, 0)); }
static int softsign_grad(tfc_grad_ctx *c) { return fused2(c, "SoftsignGrad", tfc_grad_in(c, 0)); }

static int leaky_relu_grad(tfc_grad_ctx *c) {
  tfc_grad_attr a[1];
  int n = 0;
  copy_attr(c, "LeakyReluGrad", "alpha", a, &n);
  tfc_endpoint ins[2] = {c->dy[0], tfc_grad_in(c, 0)};
  c->dx[0] = tfc_grad_op(c, "LeakyReluGrad", NULL, ins, 2, a, n);
  return c->s->code;
}

/* LRNGrad(dy, input, output) with the forward op's attrs (TF's _LRNGrad). */
static int lrn_grad(tfc_grad_ctx *c) {
  tfc_grad_attr a[4];
  int n = 0;
  static const char *const names[4] = {"depth_radius", "bias", "alpha", "beta"};
  for (int i = 0; i < 4; i++) copy_attr(c, "LRNGrad", names[i], a, &n);
  tfc_endpoint ins[3] = {c->dy[0], tfc_grad_in(c, 0), tfc_grad_out(c, 0)};
  c->dx[0] = tfc_grad_op(c, "LRNGrad", NULL, ins, 3, a, n);
  return c->s->code;
}

static tfc_endpoint sum_last_keep(tfc_grad_ctx *c, tfc_endpoint x) {
  int64_t m1 = -1;
  tfc_endpoint ins[2] = {x, tfc_grad_const_ivec(c, "Sum/reduction_indices", &m1, 1)};
  tfc_grad_attr kd[1] = {TFC_GRAD_ATTR_BOOL("keep_dims", 1)};
  return tfc_grad_op(c, "Sum", NULL, ins, 2, kd, 1);
}

/* dx = (dy - sum(dy * y, -1)) * y */
static int softmax_grad(tfc_grad_ctx *c) {
  tfc_endpoint y = tfc_grad_out(c, 0), g = c->dy[0];
  tfc_endpoint s = sum_last_keep(c, tfc_grad_binary(c, "Mul", "mul", g, y));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", tfc_grad_binary(c, "Sub", "sub", g, s), y);
  return c->s->code;
}

/* dx = dy - sum(dy, -1) * exp(y) */
static int log_softmax_grad(tfc_grad_ctx *c) {
  tfc_endpoint g = c->dy[0];
  tfc_endpoint sm = tfc_grad_unary(c, "Exp", NULL, tfc_grad_out(c, 0));
  tfc_endpoint s = sum_last_keep(c, g);
  c->dx[0] = tfc_grad_binary(c, "Sub", "sub", g, tfc_grad_binary(c, "Mul", "mul", s, sm));
  return c->s->code;
}

/* Python's _BroadcastMul: expand_dims(vec, -1) * mat. */
static tfc_endpoint bcast_mul(tfc_grad_ctx *c, tfc_endpoint vec, tfc_endpoint mat) {
  tfc_endpoint dim = tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, -1, NULL);
  return tfc_grad_binary(c, "Mul", "mul", tfc_grad_binary(c, "ExpandDims", NULL, vec, dim), mat);
}

static int is_zeros(tfc_endpoint e) {
  const char *t = e.node->op->name;
  return strcmp(t, "ZerosLike") == 0;
}

static int softmax_xent_grad(tfc_grad_ctx *c) {
  tfc_endpoint logits = tfc_grad_in(c, 0), gl = c->dy[0], gg = c->dy[1];
  tfc_endpoint grad = bcast_mul(c, gl, tfc_grad_out(c, 1));
  if (gg.node && !is_zeros(gg)) {
    /* Second order: grad += (gg - squeeze(gg[:, None, :] @ softmax[:, :, None])) * softmax */
    tfc_endpoint sm = tfc_grad_unary(c, "Softmax", NULL, logits);
    tfc_endpoint e1 = tfc_grad_binary(c, "ExpandDims", NULL, gg, tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 1, NULL));
    tfc_endpoint e2 = tfc_grad_binary(c, "ExpandDims", NULL, sm, tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 2, NULL));
    tfc_endpoint mm = tfc_grad_binary(c, "BatchMatMulV2", "MatMul", e1, e2);
    tfc_grad_attr sq = {"squeeze_dims", tfc_attr_list(TFC_ATTR_INT)};
    tfc_attr_value one = tfc_attr_int(1);
    tfc_attr_list_append(&sq.v, &one, c->s);
    tfc_endpoint s = tfc_grad_op(c, "Squeeze", NULL, &mm, 1, &sq, 1);
    tfc_endpoint t = tfc_grad_binary(c, "Mul", "mul", tfc_grad_binary(c, "Sub", "sub", gg, s), sm);
    grad = tfc_grad_binary(c, "AddV2", "add", grad, t);
  }
  c->dx[0] = grad;
  tfc_endpoint nls = tfc_grad_unary(c, "Neg", NULL, tfc_grad_unary(c, "LogSoftmax", NULL, logits));
  c->dx[1] = bcast_mul(c, gl, nls);
  /* backprop = softmax(logits) - labels also depends on the labels: TF's Python drops that
   * term (its labels gradient is wrong when the backprop output is used); we keep it. */
  if (gg.node && !is_zeros(gg)) c->dx[1] = tfc_grad_binary(c, "Sub", "sub", c->dx[1], gg);
  return c->s->code;
}

static int sparse_softmax_xent_grad(tfc_grad_ctx *c) {
  tfc_grad_attr m;
  m.name = "message";
  static const char msg[] =
      "Currently there is no way to take the second derivative of "
      "sparse_softmax_cross_entropy_with_logits due to the fused implementation's interaction with "
      "tf.gradients()";
  if (tfc_attr_string(msg, sizeof msg - 1, &m.v, c->s) != TFC_OK) return c->s->code;
  tfc_endpoint bp = tfc_grad_out(c, 1);
  tfc_endpoint pg = tfc_grad_op(c, "PreventGradient", NULL, &bp, 1, &m, 1);
  c->dx[0] = bcast_mul(c, c->dy[0], pg);
  return c->s->code;
}

static int l2_loss_grad(tfc_grad_ctx *c) {
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", tfc_grad_in(c, 0), c->dy[0]);
  return c->s->code;
}

/* FusedBatchNorm / V2 / V3 (nn_grad.py): the matching FusedBatchNormGrad* on dy, x and scale
 * with, when training, the forward's reserve spaces (V3: all three), else its mean and
 * variance inputs; gradients for x, scale and offset only. TF's Python transposes NCHW
 * inference to NHWC first; here that case is UNIMPLEMENTED. */
static int fused_batch_norm_grad(tfc_grad_ctx *c) {
  const char *fwd = c->op->op->name;
  int v3 = strcmp(fwd, "FusedBatchNormV3") == 0, v2 = strcmp(fwd, "FusedBatchNormV2") == 0;
  const char *gname = v3 ? "FusedBatchNormGradV3" : v2 ? "FusedBatchNormGradV2" : "FusedBatchNormGrad";
  int training = 1;
  tfc_node_attr_bool(c->op, "is_training", &training);
  const tfc_attr_value *df = tfc_node_attr(c->op, "data_format");
  if (!training && df && df->kind == TFC_ATTR_STRING && df->u.s.data[1] == 'C')
    return tfc_status_set(c->s, TFC_UNIMPLEMENTED,
                          "Gradient of %s '%s' with is_training=false and data_format %s is not implemented", fwd,
                          c->op->name, df->u.s.data);
  tfc_grad_attr a[3];
  int n = 0;
  copy_attr(c, gname, "epsilon", a, &n);
  copy_attr(c, gname, "data_format", a, &n);
  copy_attr(c, gname, "is_training", a, &n);
  tfc_endpoint dy = c->dy[0].node ? c->dy[0] : tfc_grad_unary(c, "ZerosLike", NULL, tfc_grad_out(c, 0));
  tfc_endpoint ins[6] = {dy, tfc_grad_in(c, 0), tfc_grad_in(c, 1),
                         training ? tfc_grad_out(c, 3) : tfc_grad_in(c, 3),
                         training ? tfc_grad_out(c, 4) : tfc_grad_in(c, 4), tfc_grad_out(c, 5)};
  if (!tfc_grad_ok(c)) {
    for (int i = 0; i < n; i++) tfc_attr_value_fini(&a[i].v);
    return c->s->code;
  }
  tfc_node *g = tfc_grad_node(c, gname, NULL, ins, v3 ? 6 : 5, -1, 0, a, n, NULL); /* frees a */
  if (!g) return c->s->code;
  for (int i = 0; i < 3; i++) c->dx[i] = (tfc_endpoint){g, i};
  return TFC_OK;
}

const tfc_grad_entry tfc_grad_nn_entries[] = {
    {"BiasAdd", bias_add_grad}, {"BiasAddV1", bias_add_grad}, {"Relu", relu_grad}, {"Relu6", relu6_grad},
    {"Elu", elu_grad}, {"Selu", selu_grad}, {"LeakyRelu", leaky_relu_grad}, {"LRN", lrn_grad}, {"Softplus", softplus_grad},
    {"Softsign", softsign_grad}, {"Softmax", softmax_grad}, {"LogSoftmax", log_softmax_grad},
    {"SoftmaxCrossEntropyWithLogits", softmax_xent_grad},
    {"SparseSoftmaxCrossEntropyWithLogits", sparse_softmax_xent_grad}, {"L2Loss", l2_loss_grad},
    {"FusedBatchNorm", fused_batch_norm_grad}, {"FusedBatchNormV2", fused_batch_norm_grad},
    {"FusedBatchNormV3", fused_batch_norm_grad},
    /* Not differentiable, as in TF. */
    {"InTopK", NULL}, {"InTopKV2", NULL},
    {NULL, NULL}};
