/*
 * batch_norm_plan — see batch_norm_plan.h.
 */
#include "device/batch_norm_plan.h"

#include "graph/graph.h"
#include "tensor/tensor.h"

/* The node's attrs (a few lookups: cheap beside the pass over x). */
static void attrs_of(const tfc_node *n, tfc_bn_plan *p) {
  const tfc_attr_value *v = tfc_node_attr(n, "epsilon");
  p->epsilon = v && v->kind == TFC_ATTR_FLOAT ? v->u.f : 1e-4f;
  v = tfc_node_attr(n, "exponential_avg_factor");
  p->avg_factor = v && v->kind == TFC_ATTR_FLOAT ? v->u.f : 1.0f;
  if (tfc_node_attr_bool(n, "is_training", &p->is_training)) p->is_training = 1;
  v = tfc_node_attr(n, "data_format");
  const char *fmt = v && v->kind == TFC_ATTR_STRING ? v->u.s.data : "NHWC";
  p->channels_first = fmt[0] == 'N' && fmt[1] == 'C';
}

static int rank_error(tfc_kernel_ctx *c, const tfc_tensor *t) {
  char buf[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be 4 or 5-dimensional%s",
                          tfc_dims_str(t->dims, t->ndims, buf, sizeof buf));
}

/* "<name> must be 1-dimensional[..]" unless inputs first..first+n are vectors. */
static int vectors(tfc_kernel_ctx *c, int first, const char *const *names, int n) {
  for (int k = 0; k < n; k++) {
    const tfc_tensor *t = c->inputs[first + k];
    if (t->ndims != 1) {
      char buf[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 1-dimensional%s", names[k],
                              tfc_dims_str(t->dims, t->ndims, buf, sizeof buf));
    }
  }
  return TFC_OK;
}

/* TF's checks, in its order: x (input x_in) of rank 4 or 5; then `n_counted` vectors from
 * first_vec with one element per channel, the first `n_plain` named plainly and the rest after
 * `prefix`. Fills the [outer, C, inner] view. */
static int view_of(tfc_kernel_ctx *c, int x_in, int first_vec, int n_plain, int n_counted, const char *prefix,
                   tfc_bn_plan *p) {
  const tfc_tensor *x = c->inputs[x_in];
  if (x->ndims != 4 && x->ndims != 5) return rank_error(c, x);
  int ch = p->channels_first ? 1 : x->ndims - 1;
  p->chans = x->dims[ch];
  p->outer = p->inner = 1;
  for (int i = 0; i < ch; i++) p->outer *= x->dims[i];
  for (int i = ch + 1; i < x->ndims; i++) p->inner *= x->dims[i];
  p->count = p->outer * p->inner;
  static const char *const counted[] = {"scale", "offset", "mean", "variance"};
  static const char *const counted_grad[] = {"scale", "reserve_space_1", "reserve_space_2"};
  const char *const *cn = x_in == 0 ? counted : counted_grad;
  for (int k = 0; k < n_counted; k++) {
    const tfc_tensor *t = c->inputs[first_vec + k];
    if (t->n_elems != p->chans)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "%s%s%s must have the same number of elements as the channels of x, got %lld and %lld",
                              k < n_plain ? "" : prefix, k < n_plain ? "" : ", ", cn[k], (long long)t->n_elems,
                              (long long)p->chans);
  }
  return TFC_OK;
}

int tfc_bn_plan_forward(tfc_kernel_ctx *c, tfc_bn_plan *p) {
  attrs_of(c->node, p);
  static const char *const names[] = {"scale", "offset", "estimated_mean", "estimated_variance"};
  const tfc_tensor *x = c->inputs[0];
  if (x->ndims != 4 && x->ndims != 5) return rank_error(c, x);
  TFC_TRY(vectors(c, 1, names, 4));
  /* The mean / variance inputs must match the channels only when read: not training, or
   * blending with exponential_avg_factor. */
  int need_stats = !p->is_training || p->avg_factor != 1.0f;
  return view_of(c, 0, 1, 2, need_stats ? 4 : 2,
                 p->is_training ? "When exponential_avg_factor != 1" : "When is_training=false", p);
}

int tfc_bn_plan_grad(tfc_kernel_ctx *c, tfc_bn_plan *p) {
  attrs_of(c->node, p);
  const tfc_tensor *dy = c->inputs[0], *x = c->inputs[1];
  static const char *const names[] = {"scale", "saved mean", "saved variance"};
  if (dy->ndims != 4 && dy->ndims != 5) return rank_error(c, dy);
  if (x->ndims != 4 && x->ndims != 5) return rank_error(c, x);
  TFC_TRY(vectors(c, 2, names, 3));
  int same = x->ndims == dy->ndims;
  for (int i = 0; same && i < x->ndims; i++) same = x->dims[i] == dy->dims[i];
  if (!same) {
    char bx[TFC_SHAPE_STR_MAX], bd[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "x and y_backprop must have same shape, but x has shape %s and y_backprop has shape %s",
                            tfc_dims_str(x->dims, x->ndims, bx, sizeof bx), tfc_dims_str(dy->dims, dy->ndims, bd, sizeof bd));
  }
  TFC_TRY(view_of(c, 1, 2, 3, 3, "", p));
  if (!p->is_training && p->channels_first)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "The implementation of FusedBatchNormGrad with is_training=False only support NHWC tensor "
                            "format for now.");
  return TFC_OK;
}
