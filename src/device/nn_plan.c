/*
 * nn_plan — see nn_plan.h.
 */
#include "device/nn_plan.h"

#include <stdlib.h>

#include <string.h>

#include "device/cpu/cwise_int.h"

/* The element strides of a rank <= 2 tensor read as [rows, cols] under numpy broadcasting. */
static void strides_2d(const tfc_tensor *t, int64_t *rs, int64_t *cs) {
  int64_t r_dim = t->ndims >= 2 ? t->dims[t->ndims - 2] : 1, c_dim = t->ndims >= 1 ? t->dims[t->ndims - 1] : 1;
  *rs = r_dim == 1 ? 0 : c_dim;
  *cs = c_dim == 1 ? 0 : 1;
}

int tfc_xent_plan_of(tfc_kernel_ctx *c, const tfc_tensor *x, const tfc_tensor *l, tfc_xent_plan *p) {
  char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  int same = x->ndims == l->ndims && memcmp(x->dims, l->dims, sizeof(int64_t) * (size_t)x->ndims) == 0;
  int nd = x->ndims;
  const int64_t *dims = x->dims;
  tfc_cwise_bcast bc;
  if (!same) {
    const tfc_tensor *ins[2] = {x, l};
    if (tfc_cwise_bcast_init(&bc, 2, ins))
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "logits and labels must be broadcastable: logits_size=%s labels_size=%s",
                              tfc_tensor_shape_str(x, sa, sizeof sa), tfc_tensor_shape_str(l, sb, sizeof sb));
    nd = bc.out_ndims;
    dims = bc.out_dims;
  }
  if (nd != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional");
  /* A broadcast to rank 2 leaves both inputs at rank <= 2. */
  p->rows = p->dims[0] = dims[0];
  p->cols = p->dims[1] = dims[1];
  p->x_full = x->ndims == 2 && x->dims[0] == p->rows && x->dims[1] == p->cols;
  p->l_full = l->ndims == 2 && l->dims[0] == p->rows && l->dims[1] == p->cols;
  strides_2d(x, &p->x_rs, &p->x_cs);
  strides_2d(l, &p->l_rs, &p->l_cs);
  return TFC_OK;
}

int tfc_sparse_xent_check(tfc_kernel_ctx *c, const tfc_tensor *x, const tfc_tensor *l) {
  char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
  if (x->ndims != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "logits must be 2-D, but got shape %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa));
  if (l->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "labels must be 1-D, but got shape %s",
                            tfc_tensor_shape_str(l, sa, sizeof sa));
  if (x->dims[0] != l->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "logits and labels must have the same first dimension, got logits shape %s and "
                            "labels shape %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa), tfc_tensor_shape_str(l, sb, sizeof sb));
  if (x->dims[1] <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Must have at least one class, but got logits shape %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa));
  return TFC_OK;
}

int tfc_arg_plan_of(tfc_kernel_ctx *c, tfc_arg_plan *p) {
  const tfc_tensor *x = c->inputs[0], *dim = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  p->out_type = TFC_DT_INT64;
  TFC_TRY(tfc_kernel_attr_type(c->node, "output_type", &p->out_type, c->status));
  if (dim->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "dim must be a scalar, but received tensor of shape: %s",
                            tfc_tensor_shape_str(dim, buf, sizeof buf));
  int64_t d = tfc_tensor_get_i64(dim, 0);
  int64_t axis = d < 0 ? d + x->ndims : d;
  if (axis < 0 || axis >= x->ndims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected dimension in the range [%d, %d), but got %lld",
                            -x->ndims, x->ndims, (long long)d);
  if (x->dims[axis] == 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Reduction axis %lld is empty in shape %s", (long long)d,
                            tfc_tensor_shape_str(x, buf, sizeof buf));
  p->outer = p->inner = 1;
  p->len = x->dims[axis];
  for (int i = 0; i < x->ndims; i++) {
    if (i == axis) continue;
    p->dims[p->ndims++] = x->dims[i];
    if (i < axis) p->outer *= x->dims[i];
    else p->inner *= x->dims[i];
  }
  return TFC_OK;
}

int tfc_in_top_k_check(tfc_kernel_ctx *c, const tfc_tensor *p, const tfc_tensor *t, const tfc_tensor *k) {
  char sa[TFC_SHAPE_STR_MAX];
  if (k && k->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "k must be 0-D, got shape %s",
                            tfc_tensor_shape_str(k, sa, sizeof sa));
  if (p->ndims != 2) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "predictions must be 2-dimensional");
  if (t->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "targets must be 1-dimensional");
  if (p->dims[0] != t->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "First dimension of predictions %lld must match length of targets %lld",
                            (long long)p->dims[0], (long long)t->dims[0]);
  return TFC_OK;
}

int tfc_check_numerics_report(tfc_kernel_ctx *c, const char *message, int flags) {
  if (!(flags & (TFC_CHECK_NAN | TFC_CHECK_INF))) return c->status->code;
  const char *what = (flags & TFC_CHECK_NAN) && (flags & TFC_CHECK_INF) ? "Inf and NaN"
                     : (flags & TFC_CHECK_INF)                         ? "Inf"
                                                                       : "NaN";
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s : Tensor had %s values", message, what);
}

int tfc_top_k_plan_of(tfc_kernel_ctx *c, tfc_top_k_plan *p) {
  const tfc_tensor *x = c->inputs[0], *kt = c->inputs[1];
  p->k = tfc_tensor_get_i64(kt, 0);
  if (p->k < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Need k >= 0, got %lld", (long long)p->k);
  if (x->ndims < 1) {
    char sb[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be >= 1-D, got shape %s",
                            tfc_tensor_shape_str(x, sb, sizeof sb));
  }
  p->n = x->dims[x->ndims - 1];
  if (p->n < p->k)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must have at least k columns. Had %lld, needed %lld",
                            (long long)p->n, (long long)p->k);
  p->ndims = x->ndims;
  for (int d = 0; d < x->ndims; d++) p->dims[d] = x->dims[d];
  p->dims[x->ndims - 1] = p->k;
  p->idx_type = c->node->output_types[1];
  int64_t idx_max = p->idx_type == TFC_DT_INT16 ? INT16_MAX : p->idx_type == TFC_DT_INT32 ? INT32_MAX : INT64_MAX;
  if (p->n - 1 > idx_max)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TopKV2: the last dimension, %lld, does not fit index_type",
                            (long long)p->n);
  p->rows = p->n ? x->n_elems / p->n : 0;
  return TFC_OK;
}

/* ---------------- ClipByValue ---------------- */

static int same_dims(const tfc_tensor *a, const tfc_tensor *b) {
  return a->ndims == b->ndims && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->ndims);
}

int tfc_clip_check(tfc_kernel_ctx *c) {
  const tfc_tensor *t = c->inputs[0], *lo = c->inputs[1], *hi = c->inputs[2];
  if ((same_dims(t, lo) || lo->ndims == 0) && (same_dims(t, hi) || hi->ndims == 0)) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX], d[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                          "clip_value_min and clip_value_max must be either of the same shape as input, or a "
                          "scalar. input shape: %sclip_value_min shape: %sclip_value_max shape: %s",
                          tfc_tensor_shape_str(t, a, sizeof a), tfc_tensor_shape_str(lo, b, sizeof b),
                          tfc_tensor_shape_str(hi, d, sizeof d));
}

/* ---- LRN ---- */

int tfc_lrn_init(const tfc_node *n, void **state, tfc_status *s) {
  tfc_lrn_attrs *p = calloc(1, sizeof *p);
  if (!p) return TFC_OOM(s);
  const tfc_attr_value *v;
  p->radius = (v = tfc_node_attr(n, "depth_radius")) && v->kind == TFC_ATTR_INT ? v->u.i : 5;
  p->bias = (v = tfc_node_attr(n, "bias")) && v->kind == TFC_ATTR_FLOAT ? v->u.f : 1.0f;
  p->alpha = (v = tfc_node_attr(n, "alpha")) && v->kind == TFC_ATTR_FLOAT ? v->u.f : 1.0f;
  p->beta = (v = tfc_node_attr(n, "beta")) && v->kind == TFC_ATTR_FLOAT ? v->u.f : 0.5f;
  *state = p;
  return TFC_OK;
}

int tfc_lrn_check(tfc_kernel_ctx *c, int grad, int64_t *rows, int64_t *depth) {
  const tfc_tensor *x = c->inputs[grad ? 1 : 0];
  for (int i = 0; i < c->n_inputs; i++)
    if (c->inputs[i]->ndims != 4)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, grad ? "inputs must be 4-dimensional" : "in must be 4-dimensional");
  if (grad && (!tfc_tensor_same_shape(c->inputs[0], x) || !tfc_tensor_same_shape(c->inputs[2], x)))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input_grads, input_image and output_image must have the "
                            "same shape");
  *depth = x->dims[3];
  *rows = *depth ? x->n_elems / *depth : 0;
  return TFC_OK;
}
