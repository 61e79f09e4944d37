/*
 * conv3d_plan — the shared checks and geometry of the 3-D convolution and pooling kernels (see
 * conv3d_plan.h). Every text is the one TF 1.15's kernels give, so a test that checks a message
 * on the CPU checks the GPU with the same string.
 */
#include "device/conv3d_plan.h"

#include <string.h>

#include "device/conv_plan.h"

static const char *const labels[] = {"Conv3D", "Conv3DBackpropInputOp", "Conv3DBackpropFilterOp"};

/* ---- attrs ---- */

/* list(int) attr `name` of exactly 5 items, else INVALID_ARGUMENT `msg`. */
static int attr5(const tfc_node *n, const char *name, int64_t out[5], const char *msg, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_LIST || v->u.list.n != 5) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s", msg);
  for (int i = 0; i < 5; i++) out[i] = v->u.list.items[i].u.i;
  return TFC_OK;
}

/* The spatial dims' indexes in a 5-D shape of the layout. */
static int sp_at(int ncdhw, int k) { return ncdhw ? k + 2 : k + 1; }

/* ci: the channels' index in the attrs (4 for NDHWC, 1 for NCDHW: TF checks the attrs in the
 * node's own layout before the CPU refuses NCDHW). */
static int parse_conv(const tfc_node *n, int ci, tfc_conv3d_attrs *a, tfc_status *s) {
  int64_t strides[5], dil[5] = {1, 1, 1, 1, 1};
  TFC_TRY(attr5(n, "strides", strides, "Sliding window strides field must specify 5 dimensions", s));
  if (strides[0] != 1 || strides[ci] != 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Current implementation does not yet support strides in the batch and depth dimensions.");
  for (int k = 0; k < 3; k++)
    if (strides[sp_at(a->ncdhw, k)] <= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Spatial strides should be larger than 0.");
  if (tfc_node_attr(n, "dilations"))
    TFC_TRY(attr5(n, "dilations", dil, "Dilation rates field must specify 5 dimensions", s));
  if (dil[0] != 1 || dil[ci] != 1)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Current implementation does not yet support dilation rates in the batch and depth dimensions.");
  for (int k = 0; k < 3; k++)
    if (dil[sp_at(a->ncdhw, k)] <= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Dilated rates should be larger than 0.");
  for (int k = 0; k < 3; k++) {
    a->stride[k] = strides[sp_at(a->ncdhw, k)];
    a->dil[k] = dil[sp_at(a->ncdhw, k)];
    a->ksize[k] = 1;
  }
  return TFC_OK;
}

static int parse_pool(const tfc_node *n, int ci, tfc_conv3d_attrs *a, tfc_status *s) {
  int64_t ksize[5], strides[5];
  TFC_TRY(attr5(n, "ksize", ksize, "Sliding window ksize field must specify 5 dimensions", s));
  TFC_TRY(attr5(n, "strides", strides, "Sliding window stride field must specify 5 dimensions", s));
  if (ksize[0] != 1 || strides[0] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  if (ksize[ci] != 1 || strides[ci] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the depth dimension.");
  for (int k = 0; k < 3; k++)
    if (ksize[sp_at(a->ncdhw, k)] <= 0 || strides[sp_at(a->ncdhw, k)] <= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Sliding window ksize and strides must be positive");
  for (int k = 0; k < 3; k++) {
    a->stride[k] = strides[sp_at(a->ncdhw, k)];
    a->ksize[k] = ksize[sp_at(a->ncdhw, k)];
    a->dil[k] = 1;
  }
  return TFC_OK;
}

int tfc_conv3d_attrs_parse(const tfc_node *n, int kind, int on_cpu, tfc_conv3d_attrs *out, tfc_status *s) {
  const char *fmt, *padding;
  if (tfc_kernel_attr_string(n, "data_format", &fmt, s) || tfc_kernel_attr_string(n, "padding", &padding, s))
    return s->code;
  tfc_conv3d_attrs a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.padding = strcmp(padding, "SAME") == 0 ? TFC_PAD_SAME : TFC_PAD_VALID;
  a.ncdhw = strcmp(fmt, "NDHWC") != 0;
  int is_conv = kind <= TFC_C3_BWD_FILTER;
  if (a.ncdhw && !is_conv && on_cpu)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Default Pooling3DOp only supports NDHWC on device type CPU");
  int ci = a.ncdhw ? 1 : 4;
  TFC_TRY(is_conv ? parse_conv(n, ci, &a, s) : parse_pool(n, ci, &a, s));
  if (a.ncdhw && on_cpu) {
    if (kind == TFC_C3_CONV_FWD)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "CPU implementation of Conv3D currently only supports the NHWC tensor format.");
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%sV2 only supports NDHWC on the CPU.", labels[kind]);
  }
  *out = a;
  return TFC_OK;
}

/* ---- shapes ---- */

/* c5 = (n, d, h, w, c) of the 5 dims v in the layout. */
static void canon(int ncdhw, const int64_t *v, int64_t c5[5]) {
  c5[0] = v[0];
  for (int k = 0; k < 3; k++) c5[k + 1] = v[sp_at(ncdhw, k)];
  c5[4] = v[ncdhw ? 1 : 4];
}

/* The inverse of canon. */
static void uncanon(int ncdhw, const int64_t c5[5], int64_t v[5]) {
  v[0] = c5[0];
  for (int k = 0; k < 3; k++) v[sp_at(ncdhw, k)] = c5[k + 1];
  v[ncdhw ? 1 : 4] = c5[4];
}

/* The spatial geometry from the input's canonical dims and the window: output sizes and TF's
 * padding split. */
static int spatial(tfc_kernel_ctx *c, const tfc_conv3d_attrs *a, const int64_t *in5, tfc_geom3 *g) {
  g->n = in5[0];
  g->ic = in5[4];
  g->ncdhw = a->ncdhw;
  for (int k = 0; k < 3; k++) {
    g->in[k] = in5[k + 1];
    g->stride[k] = a->stride[k];
    g->dil[k] = a->dil[k];
    TFC_TRY(tfc_window_output_size(c, g->in[k], g->k[k], g->dil[k], g->stride[k], a->padding, &g->out[k], &g->pb[k],
                                   &g->pa[k]));
  }
  return TFC_OK;
}

/* A host int32/int64 vector of 5 sizes (input_sizes, filter_sizes), TF's texts: `what` names
 * the tensor whose sizes these are in "... tensor must have 5 dimensions". */
static int sizes5(tfc_kernel_ctx *c, int i, const char *what, int64_t out[5]) {
  const tfc_tensor *t = c->inputs[i];
  char buf[TFC_SHAPE_STR_MAX];
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape must be a vector of {int32,int64}, got shape %s",
                            tfc_tensor_shape_str(t, buf, sizeof buf));
  if (t->n_elems != 5) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s tensor must have 5 dimensions", what);
  for (int k = 0; k < 5; k++) {
    out[k] = tfc_tensor_get_i64(t, k);
    if (out[k] < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s has a negative dimension", what);
  }
  return TFC_OK;
}

static int rank5(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what) {
  if (t->ndims == 5) return TFC_OK;
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s tensor must have 5 dimensions", what);
}

static int conv_plan(tfc_kernel_ctx *c, const tfc_conv3d_attrs *a, tfc_conv3d_plan *p) {
  tfc_geom3 *g = &p->g;
  int64_t in5[5], f5[5], dy5[5], tmp[5];
  char buf[TFC_SHAPE_STR_MAX];
  if (a->kind == TFC_C3_CONV_FWD) {
    const tfc_tensor *x = c->inputs[0], *f = c->inputs[1];
    if (x->ndims != 5) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input must be 5-dimensional");
    if (f->ndims != 5)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "filter must be 5-dimensional: %s",
                              tfc_tensor_shape_str(f, buf, sizeof buf));
    canon(a->ncdhw, x->dims, in5);
    memcpy(f5, f->dims, sizeof f5);
    if (in5[4] != f5[3])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld",
                              (long long)in5[4], (long long)f5[3]);
    p->x = x, p->f = f;
  } else {
    if (a->kind == TFC_C3_BWD_INPUT) {
      TFC_TRY(sizes5(c, 0, "input", tmp));
      canon(a->ncdhw, tmp, in5);
      TFC_TRY(rank5(c, c->inputs[1], "filter_sizes"));
      memcpy(f5, c->inputs[1]->dims, sizeof f5);
      p->f = c->inputs[1];
    } else {
      TFC_TRY(rank5(c, c->inputs[0], "input"));
      TFC_TRY(sizes5(c, 1, "filter_sizes", f5));
      canon(a->ncdhw, c->inputs[0]->dims, in5);
      p->x = c->inputs[0];
    }
    const tfc_tensor *dy = c->inputs[2];
    TFC_TRY(rank5(c, dy, "out_backprop"));
    canon(a->ncdhw, dy->dims, dy5);
    p->grad = dy;
    if (in5[0] != dy5[0])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "%s: input and out_backprop must have the same batch size. Input batch: %lld, "
                              "outbackprop batch: %lld, batch_dim: 0",
                              labels[a->kind], (long long)in5[0], (long long)dy5[0]);
    if (in5[4] != f5[3])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "input and filter_sizes must have the same number of channels. Got %lld for input and "
                              "%lld for filter_sizes",
                              (long long)in5[4], (long long)f5[3]);
    if (dy5[4] != f5[4])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "out_backprop and filter_sizes must have the same number of channels. Got %lld for "
                              "out_backprop and %lld for filter_sizes",
                              (long long)dy5[4], (long long)f5[4]);
  }
  for (int k = 0; k < 3; k++) g->k[k] = f5[k];
  g->oc = f5[4];
  TFC_TRY(spatial(c, a, in5, g));
  if (a->kind != TFC_C3_CONV_FWD) {
    for (int k = 0; k < 3; k++)
      if (dy5[k + 1] != g->out[k])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "%s: Size of out_backprop doesn't match computed: actual = %lld, computed = %lld "
                                "spatial_dim: %d input: %lld filter: %lld output: %lld stride: %lld dilation: %lld",
                                labels[a->kind], (long long)dy5[k + 1], (long long)g->out[k], k + 1,
                                (long long)g->in[k], (long long)g->k[k], (long long)dy5[k + 1],
                                (long long)g->stride[k], (long long)g->dil[k]);
  }
  if (a->kind == TFC_C3_CONV_FWD) {
    int64_t o[5] = {g->n, g->out[0], g->out[1], g->out[2], g->oc};
    uncanon(a->ncdhw, o, p->out_dims);
  } else if (a->kind == TFC_C3_BWD_INPUT) {
    uncanon(a->ncdhw, in5, p->out_dims);
  } else {
    memcpy(p->out_dims, f5, sizeof f5);
  }
  p->dtype = c->inputs[a->kind == TFC_C3_BWD_INPUT ? 1 : 0]->dtype;
  p->zeros = g->n == 0 || g->ic == 0 || g->oc == 0 || tfc_prod3(g->out) == 0 || tfc_prod3(g->k) == 0 ||
             tfc_prod3(g->in) == 0;
  return TFC_OK;
}

static int pool_plan(tfc_kernel_ctx *c, const tfc_conv3d_attrs *a, tfc_conv3d_plan *p) {
  tfc_geom3 *g = &p->g;
  int64_t in5[5], user[5];
  char buf[TFC_SHAPE_STR_MAX], buf2[TFC_SHAPE_STR_MAX];
  if (a->kind == TFC_C3_AVG_GRAD) {
    const tfc_tensor *t = c->inputs[0];
    if (t->ndims != 1 || t->n_elems != 5)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tensor_in must be 1-dimensional and 5 elements");
    for (int k = 0; k < 5; k++)
      if ((user[k] = tfc_tensor_get_i64(t, k)) < 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "orig_input_shape has a negative dimension");
    p->grad = c->inputs[1];
  } else {
    p->x = c->inputs[0];
    if (p->x->ndims != 5) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tensor_in must be 5-dimensional");
    memcpy(user, p->x->dims, sizeof user);
    if (a->kind == TFC_C3_MAX_GRAD) p->grad = c->inputs[2];
  }
  canon(a->ncdhw, user, in5);
  for (int k = 0; k < 3; k++) g->k[k] = a->ksize[k];
  TFC_TRY(spatial(c, a, in5, g));
  g->oc = g->ic;
  int64_t pooled_c[5] = {g->n, g->out[0], g->out[1], g->out[2], g->ic}, pooled[5];
  uncanon(a->ncdhw, pooled_c, pooled);
  if (a->kind == TFC_C3_MAX_GRAD) {
    const tfc_tensor *y = c->inputs[1];
    if (y->ndims != 5 || memcmp(y->dims, pooled, sizeof pooled) != 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected orig_output shape to be %s, but got %s",
                              tfc_dims_str(pooled, 5, buf, sizeof buf), tfc_tensor_shape_str(y, buf2, sizeof buf2));
    if (y->dtype != p->x->dtype || p->grad->dtype != p->x->dtype)
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "MaxPool3DGrad with TInput %s and T %s",
                              tfc_dtype_name(p->x->dtype), tfc_dtype_name(p->grad->dtype));
    p->y = y;
  }
  const tfc_tensor *gr = p->grad;
  if (gr && (gr->ndims != 5 || memcmp(gr->dims, pooled, sizeof pooled) != 0))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected grad shape to be %s, but got %s",
                            tfc_dims_str(pooled, 5, buf, sizeof buf), tfc_tensor_shape_str(gr, buf2, sizeof buf2));
  int grad_kind = a->kind == TFC_C3_MAX_GRAD || a->kind == TFC_C3_AVG_GRAD;
  memcpy(p->out_dims, grad_kind ? user : pooled, sizeof pooled);
  p->dtype = gr ? gr->dtype : p->x->dtype;
  p->zeros = grad_kind && gr->n_elems == 0;
  return TFC_OK;
}

int tfc_conv3d_plan_make(tfc_kernel_ctx *c, const tfc_conv3d_attrs *a, tfc_conv3d_plan *out) {
  memset(out, 0, sizeof *out);
  return a->kind <= TFC_C3_BWD_FILTER ? conv_plan(c, a, out) : pool_plan(c, a, out);
}
