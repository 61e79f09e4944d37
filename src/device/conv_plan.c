/*
 * conv_plan — the shared checks and geometry of the convolution and pooling kernels (see
 * conv_plan.h). Every text here is the one TF 1.15's CPU kernels give, so a test that checks a
 * message on the CPU checks the GPU with the same string.
 */
#include "device/conv_plan.h"

#include <stdio.h>
#include <string.h>

/* Reads a list(int) attr of exactly 4 items into out; else sets `msg` (TF's text) as
 * INVALID_ARGUMENT in s. */
static int window_attr4(const tfc_node *n, const char *name, int64_t out[4], const char *msg, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_LIST || v->u.list.n != 4) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s", msg);
  for (int i = 0; i < 4; i++) out[i] = v->u.list.items[i].u.i;
  return TFC_OK;
}

int tfc_window_output_size(tfc_kernel_ctx *c, int64_t in, int64_t k, int64_t dil, int64_t stride, int padding,
                           int64_t *out, int64_t *pad_before, int64_t *pad_after) {
  int64_t eff = (k - 1) * dil + 1;
  if (padding == TFC_PAD_SAME) {
    *out = (in + stride - 1) / stride;
    int64_t total = (*out - 1) * stride + eff - in;
    if (total < 0) total = 0;
    *pad_before = total / 2; /* TF puts the odd element after */
    *pad_after = total - *pad_before;
  } else {
    if (padding == TFC_PAD_VALID) *pad_before = *pad_after = 0;
    *out = (in + *pad_before + *pad_after - eff + stride) / stride;
  }
  if (*out < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Computed output size would be negative: %lld [input_size: %lld, effective_filter_size: "
                            "%lld, stride: %lld]",
                            (long long)*out, (long long)in, (long long)eff, (long long)stride);
  return TFC_OK;
}

/* ---- convolutions ---- */

int tfc_conv_attrs_parse(const tfc_node *n, tfc_conv_attrs *out, tfc_status *s) {
  int64_t strides[4], dil[4] = {1, 1, 1, 1};
  const char *fmt, *padding;
  memset(out, 0, sizeof *out);
  if (tfc_kernel_attr_string(n, "data_format", &fmt, s) || tfc_kernel_attr_string(n, "padding", &padding, s))
    return s->code;
  if (window_attr4(n, "strides", strides, "Sliding window strides field must specify 4 dimensions", s))
    return s->code;
  /* dilations has a default (1, 1, 1, 1); an attr that is present must have 4 items. */
  if (tfc_node_attr(n, "dilations") &&
      window_attr4(n, "dilations", dil, "Sliding window dilations field must specify 4 dimensions", s))
    return s->code;
  int nchw = strcmp(fmt, "NCHW") == 0;
  int ni = 0, ci = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (strides[ni] != 1 || strides[ci] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (strides[hi] <= 0 || strides[wi] <= 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Row and column strides should be larger than 0.");
  if (dil[ni] != 1 || dil[ci] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "Current implementation does not yet support dilations in the batch and depth dimensions.");
  if (dil[hi] <= 0 || dil[wi] <= 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Dilated rates should be larger than 0.");
  out->nchw = nchw;
  out->padding = strcmp(padding, "SAME") == 0    ? TFC_PAD_SAME
                 : strcmp(padding, "VALID") == 0 ? TFC_PAD_VALID
                                                 : TFC_PAD_EXPLICIT;
  out->stride[0] = strides[hi];
  out->stride[1] = strides[wi];
  out->dil[0] = dil[hi];
  out->dil[1] = dil[wi];
  const tfc_attr_value *ep = tfc_node_attr(n, "explicit_paddings");
  int n_pads = ep && ep->kind == TFC_ATTR_LIST ? ep->u.list.n : 0;
  if (out->padding != TFC_PAD_EXPLICIT) {
    if (n_pads)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    return TFC_OK;
  }
  if (n_pads != 8)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "explicit_paddings attribute must contain 8 values, but got: %d",
                          n_pads);
  int64_t p[8];
  for (int i = 0; i < 8; i++)
    if ((p[i] = ep->u.list.items[i].u.i) < 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "All elements of explicit_paddings must be nonnegative");
  if (p[2 * ni] || p[2 * ni + 1] || p[2 * ci] || p[2 * ci + 1])
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Nonzero explicit padding in the batch or depth dimensions is not supported");
  out->pads[0] = p[2 * hi];
  out->pads[1] = p[2 * hi + 1];
  out->pads[2] = p[2 * wi];
  out->pads[3] = p[2 * wi + 1];
  return TFC_OK;
}

static int check_4d(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what, const char *label) {
  if (t->ndims == 4) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  if (label) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s must be 4-dimensional", label, what);
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 4-dimensional%s%s", what,
                          strcmp(what, "input") ? ": " : "", tfc_tensor_shape_str(t, buf, sizeof buf));
}

/* A host int32/int64 vector input of 4 sizes (input_sizes, filter_sizes). */
static int sizes_input(tfc_kernel_ctx *c, int i, const char *op, const char *name, int64_t out[4]) {
  const tfc_tensor *t = c->inputs[i];
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s input must be 1-dim, not %d", op, name, t->ndims);
  if (t->n_elems != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s must describe a 4-dimensional tensor, got %lld sizes", op,
                            name, (long long)t->n_elems);
  for (int k = 0; k < 4; k++) {
    out[k] = tfc_tensor_get_i64(t, k);
    if (out[k] < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s has a negative dimension", op, name);
  }
  return TFC_OK;
}

/* g from an input shape (4 dims in a's layout) and a filter shape (HWIO). `label` prefixes
 * the backprops' messages as TF's "Conv2DCustomBackpropInput: ..." does. */
static int conv_geom(tfc_kernel_ctx *c, const tfc_conv_attrs *a, const int64_t *in, const int64_t *f,
                     const char *label, tfc_window_geom *g) {
  memset(g, 0, sizeof *g);
  g->nchw = a->nchw;
  g->n = in[0];
  g->ic = in[a->nchw ? 1 : 3];
  g->ih = in[a->nchw ? 2 : 1];
  g->iw = in[a->nchw ? 3 : 2];
  g->kh = f[0];
  g->kw = f[1];
  g->oc = f[3];
  if (g->ic != f[2]) {
    if (label)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and filter must have the same depth", label);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld",
                            (long long)g->ic, (long long)f[2]);
  }
  g->sh = a->stride[0];
  g->sw = a->stride[1];
  g->dh = a->dil[0];
  g->dw = a->dil[1];
  g->pt = a->pads[0];
  g->pb = a->pads[1];
  g->pl = a->pads[2];
  g->pr = a->pads[3];
  TFC_TRY(tfc_window_output_size(c, g->ih, g->kh, g->dh, g->sh, a->padding, &g->oh, &g->pt, &g->pb));
  return tfc_window_output_size(c, g->iw, g->kw, g->dw, g->sw, a->padding, &g->ow, &g->pl, &g->pr);
}

int tfc_conv_plan_make(tfc_kernel_ctx *c, const tfc_conv_attrs *a, int kind, tfc_conv_plan *out) {
  memset(out, 0, sizeof *out);
  const char *label = kind == TFC_CONV_BWD_INPUT    ? "Conv2DCustomBackpropInput"
                      : kind == TFC_CONV_BWD_FILTER ? "Conv2DCustomBackpropFilter"
                                                    : NULL;
  int64_t in_shape[4], f_shape[4];
  /* Step 1: ranks and the host sizes inputs. */
  if (kind == TFC_CONV_FWD) {
    out->x = c->inputs[0];
    out->f = c->inputs[1];
    TFC_TRY(check_4d(c, out->x, "input", NULL));
    TFC_TRY(check_4d(c, out->f, "filter", NULL));
    memcpy(in_shape, out->x->dims, sizeof in_shape);
    memcpy(f_shape, out->f->dims, sizeof f_shape);
    out->dtype = out->x->dtype;
  } else {
    out->dy = c->inputs[2];
    if (kind == TFC_CONV_BWD_INPUT) {
      out->f = c->inputs[1];
      TFC_TRY(sizes_input(c, 0, "Conv2DBackpropInput", "input_sizes", in_shape));
      TFC_TRY(check_4d(c, out->f, "filter", label));
      memcpy(f_shape, out->f->dims, sizeof f_shape);
    } else {
      out->x = c->inputs[0];
      TFC_TRY(check_4d(c, out->x, "input", label));
      TFC_TRY(sizes_input(c, 1, "Conv2DBackpropFilter", "filter_sizes", f_shape));
      memcpy(in_shape, out->x->dims, sizeof in_shape);
    }
    TFC_TRY(check_4d(c, out->dy, "out_backprop", label));
    out->dtype = out->dy->dtype;
  }
  /* Step 2: the geometry; out_backprop must be the forward output's shape. */
  tfc_window_geom *g = &out->g;
  TFC_TRY(conv_geom(c, a, in_shape, f_shape, label, g));
  if (kind != TFC_CONV_FWD) {
    const tfc_tensor *dy = out->dy;
    int64_t want[4];
    tfc_window_dims(g->nchw, g->n, g->oh, g->ow, g->oc, want);
    int ci = g->nchw ? 1 : 3;
    if (dy->dims[0] != want[0])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and out_backprop must have the same batch size", label);
    if (dy->dims[ci] != g->oc)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: filter and out_backprop must have the same out_depth", label);
    for (int d = 0; d < 2; d++) {
      int idx = g->nchw ? 2 + d : 1 + d;
      if (dy->dims[idx] != want[idx])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "%s: Size of out_backprop doesn't match computed: actual = %lld, computed = %lld "
                                "spatial_dim: %d input: %lld filter: %lld output: %lld stride: %lld dilation: %lld",
                                label, (long long)dy->dims[idx], (long long)want[idx], d + 1,
                                (long long)(d ? g->iw : g->ih), (long long)(d ? g->kw : g->kh), (long long)want[idx],
                                (long long)(d ? g->sw : g->sh), (long long)(d ? g->dw : g->dh));
    }
  }
  /* Step 3: the output; empty reductions (no batch, no channels, an empty output or filter)
   * give zeros. */
  if (kind == TFC_CONV_FWD)
    tfc_window_dims(g->nchw, g->n, g->oh, g->ow, g->oc, out->out_dims);
  else
    memcpy(out->out_dims, kind == TFC_CONV_BWD_INPUT ? in_shape : f_shape, sizeof out->out_dims);
  out->zeros = g->n == 0 || g->ic == 0 || g->oc == 0 || g->oh == 0 || g->ow == 0 || g->kh == 0 || g->kw == 0 ||
               g->ih == 0 || g->iw == 0;
  return TFC_OK;
}

/* ---- depthwise convolutions ---- */

static const char *const dw_label[TFC_CONV_KIND_COUNT] = {
    "DepthwiseConv2dNative", "DepthwiseConv2DBackpropInput", "DepthwiseConv2DBackpropFilter"};

/* TF's depthwise attr checks first (its kernel's texts), then the Conv2D family's parser for
 * padding, explicit_paddings and dilations. */
static int dw_attrs(tfc_kernel_ctx *c, int on_cpu, tfc_conv_attrs *a) {
  const char *fmt;
  TFC_TRY(tfc_kernel_attr_string(c->node, "data_format", &fmt, c->status));
  int nchw = strcmp(fmt, "NCHW") == 0;
  if (on_cpu && strcmp(fmt, "NHWC") != 0)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Depthwise convolution on CPU is only supported for NHWC format");
  const tfc_attr_value *v = tfc_node_attr(c->node, "strides");
  if (!v || v->kind != TFC_ATTR_LIST || v->u.list.n != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Sliding window strides field must specify 4 dimensions");
  int64_t st[4];
  for (int i = 0; i < 4; i++) st[i] = v->u.list.items[i].u.i;
  int ci = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (st[0] != 1 || st[ci] != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (st[hi] != st[wi])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Current implementation only supports equal length strides in the row and column "
                            "dimensions.");
  return tfc_conv_attrs_parse(c->node, a, c->status);
}

/* A host int32 vector of 4 sizes (input_sizes, filter_sizes: `vec`) of the tensor `what`
 * (input, filter), TF's texts. */
static int dw_sizes(tfc_kernel_ctx *c, int i, const char *label, const char *vec, const char *what, int64_t out[4]) {
  const tfc_tensor *t = c->inputs[i];
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s input must be 1-dim, not %d", label, vec, t->ndims);
  if (t->n_elems != 4) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s must be 4-dimensional", label, what);
  for (int k = 0; k < 4; k++)
    if ((out[k] = tfc_tensor_get_i64(t, k)) < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s has a negative dimension", label, vec);
  return TFC_OK;
}

static int dw_need_4d(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what) {
  if (t->ndims == 4) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 4-dimensional: %s", what,
                          tfc_tensor_shape_str(t, a, sizeof a));
}

int tfc_depthwise_plan_make(tfc_kernel_ctx *c, int kind, int on_cpu, tfc_depthwise_plan *out) {
  memset(out, 0, sizeof *out);
  tfc_conv_attrs a;
  TFC_TRY(dw_attrs(c, on_cpu, &a));
  const char *label = dw_label[kind];
  /* Step 1: the input's shape (in the data format's order) and the filter's. */
  int64_t in[4], f[4];
  if (kind == TFC_CONV_BWD_INPUT) TFC_TRY(dw_sizes(c, 0, label, "input_sizes", "input", in));
  else {
    TFC_TRY(dw_need_4d(c, c->inputs[0], "input"));
    memcpy(in, c->inputs[0]->dims, sizeof in);
  }
  if (kind == TFC_CONV_BWD_FILTER) TFC_TRY(dw_sizes(c, 1, label, "filter_sizes", "filter", f));
  else {
    TFC_TRY(dw_need_4d(c, c->inputs[1], "filter"));
    memcpy(f, c->inputs[1]->dims, sizeof f);
  }
  int ci = a.nchw ? 1 : 3, hi = a.nchw ? 2 : 1, wi = a.nchw ? 3 : 2;
  if (in[ci] != f[2]) {
    if (kind == TFC_CONV_FWD)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld",
                              (long long)in[ci], (long long)f[2]);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and filter must have the same in_depth", label);
  }
  /* Step 2: the geometry. */
  tfc_window_geom *g = &out->g;
  g->nchw = a.nchw;
  g->n = in[0], g->ih = in[hi], g->iw = in[wi], g->ic = in[ci];
  g->kh = f[0], g->kw = f[1], out->mult = f[3], g->oc = in[ci] * f[3];
  g->sh = a.stride[0], g->sw = a.stride[1], g->dh = a.dil[0], g->dw = a.dil[1];
  g->pt = a.pads[0], g->pb = a.pads[1], g->pl = a.pads[2], g->pr = a.pads[3];
  TFC_TRY(tfc_window_output_size(c, g->ih, g->kh, g->dh, g->sh, a.padding, &g->oh, &g->pt, &g->pb));
  TFC_TRY(tfc_window_output_size(c, g->iw, g->kw, g->dw, g->sw, a.padding, &g->ow, &g->pl, &g->pr));
  int64_t want[4];
  tfc_window_dims(g->nchw, g->n, g->oh, g->ow, g->oc, want);
  /* Step 3: out_backprop must have the forward output's shape. */
  if (kind != TFC_CONV_FWD) {
    const tfc_tensor *dy = c->inputs[2];
    if (dy->ndims != 4)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: out_backprop must be 4-dimensional", label);
    if (dy->dims[0] != g->n)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and out_backprop must have the same batch size",
                              label);
    static const char *const what[2] = {"rows", "cols"};
    for (int d = 0; d < 2; d++)
      if (dy->dims[hi + d] != want[hi + d])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "%s: Number of %s of out_backprop doesn't match computed: actual = %lld, "
                                "computed = %lld",
                                label, what[d], (long long)dy->dims[hi + d], (long long)want[hi + d]);
    if (dy->dims[ci] != g->oc)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: depth_multiplier * in_depth not equal to out_depth",
                              label);
  }
  /* Step 4: the output and its dtype (out_backprop's for the backprops). */
  out->dtype = c->inputs[kind == TFC_CONV_FWD ? 0 : 2]->dtype;
  memcpy(out->out_dims, kind == TFC_CONV_FWD ? want : kind == TFC_CONV_BWD_INPUT ? in : f, sizeof want);
  out->zeros = g->n == 0 || g->ic == 0 || g->oc == 0 || g->oh == 0 || g->ow == 0 || g->kh == 0 || g->kw == 0 ||
               g->ih == 0 || g->iw == 0;
  return TFC_OK;
}

/* ---- pooling ---- */

int tfc_pool_attrs_parse(const tfc_node *n, const char *device, tfc_pool_attrs *out, tfc_status *s) {
  int64_t k[4], st4[4];
  const char *fmt, *padding;
  memset(out, 0, sizeof *out);
  if (tfc_kernel_attr_string(n, "data_format", &fmt, s) || tfc_kernel_attr_string(n, "padding", &padding, s))
    return s->code;
  if (window_attr4(n, "ksize", k, "Sliding window ksize field must specify 4 dimensions", s) ||
      window_attr4(n, "strides", st4, "Sliding window stride field must specify 4 dimensions", s))
    return s->code;
  if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NCHW") != 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s on the %s supports only the NHWC and NCHW data formats, got %s",
                          n->op->name, device, fmt);
  int nchw = strcmp(fmt, "NCHW") == 0;
  int ci = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (k[0] != 1 || st4[0] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  if (k[ci] != 1 || st4[ci] != 1) {
    if (k[hi] != 1 || k[wi] != 1 || st4[hi] != 1 || st4[wi] != 1)
      return tfc_status_set(s, TFC_UNIMPLEMENTED,
                            "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "%s: pooling across depth is not supported on the %s", n->op->name,
                          device);
  }
  for (int i = 1; i < 4; i++)
    if (k[i] <= 0 || st4[i] <= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Sliding window ksize and strides must be positive");
  out->nchw = nchw;
  out->padding = strcmp(padding, "SAME") == 0 ? TFC_PAD_SAME : TFC_PAD_VALID;
  out->ksize[0] = k[hi];
  out->ksize[1] = k[wi];
  out->stride[0] = st4[hi];
  out->stride[1] = st4[wi];
  return TFC_OK;
}

static int need_4d(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what) {
  if (t->ndims == 4) return TFC_OK;
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 4-dimensional", what);
}

/* INVALID_ARGUMENT "Expected <what> shape to be [..], but got [..]" unless t has dims want. */
static int need_shape(tfc_kernel_ctx *c, const tfc_tensor *t, const int64_t want[4], const char *what) {
  if (memcmp(t->dims, want, 4 * sizeof want[0]) == 0) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  tfc_shape ws = {.rank = 4};
  memcpy(ws.dims, want, 4 * sizeof want[0]);
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected %s shape to be %s, but got %s", what,
                          tfc_shape_str(&ws, a, sizeof a), tfc_tensor_shape_str(t, b, sizeof b));
}

int tfc_pool_plan_make(tfc_kernel_ctx *c, const tfc_pool_attrs *a, int kind, tfc_pool_plan *out) {
  int64_t in[4], pooled[4]; /* the forward op's input and output shapes */
  memset(out, 0, sizeof *out);
  /* Step 1: ranks, and the host orig_input_shape of AvgPoolGrad. */
  switch (kind) {
    case TFC_POOL_MAX:
    case TFC_POOL_AVG:
      out->x = c->inputs[0];
      TFC_TRY(need_4d(c, out->x, "tensor_in"));
      break;
    case TFC_POOL_MAX_GRAD:
      out->x = c->inputs[0];
      out->y = c->inputs[1];
      out->grad = c->inputs[2];
      TFC_TRY(need_4d(c, out->x, "orig_input"));
      TFC_TRY(need_4d(c, out->y, "orig_output"));
      TFC_TRY(need_4d(c, out->grad, "out_backprop"));
      break;
    default: {
      const tfc_tensor *shape = c->inputs[0];
      out->grad = c->inputs[1];
      if (shape->ndims != 1 || shape->n_elems != 4)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "out_backprop must be 1-dimensional and 4 elements");
      TFC_TRY(need_4d(c, out->grad, "out_backprop"));
      for (int i = 0; i < 4; i++)
        if ((in[i] = tfc_tensor_get_i64(shape, i)) < 0)
          return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "orig_input_shape has a negative dimension");
    }
  }
  if (out->x) memcpy(in, out->x->dims, sizeof in);
  out->dtype = out->grad ? out->grad->dtype : out->x->dtype;
  /* Step 2: the geometry and the pooled shape, which orig_output and grad must have. */
  tfc_window_geom *g = &out->g;
  g->nchw = a->nchw;
  g->n = in[0];
  g->ic = g->oc = in[a->nchw ? 1 : 3];
  g->ih = in[a->nchw ? 2 : 1];
  g->iw = in[a->nchw ? 3 : 2];
  g->kh = a->ksize[0];
  g->kw = a->ksize[1];
  g->sh = a->stride[0];
  g->sw = a->stride[1];
  g->dh = g->dw = 1;
  TFC_TRY(tfc_window_output_size(c, g->ih, g->kh, 1, g->sh, a->padding, &g->oh, &g->pt, &g->pb));
  TFC_TRY(tfc_window_output_size(c, g->iw, g->kw, 1, g->sw, a->padding, &g->ow, &g->pl, &g->pr));
  tfc_window_dims(g->nchw, g->n, g->oh, g->ow, g->ic, pooled);
  if (out->y) TFC_TRY(need_shape(c, out->y, pooled, "orig_output"));
  if (out->grad) TFC_TRY(need_shape(c, out->grad, pooled, "grad"));
  /* Step 3: the output; a gradient with nothing to route gives zeros. */
  memcpy(out->out_dims, out->grad ? in : pooled, sizeof out->out_dims);
  out->zeros = out->grad && out->grad->n_elems == 0;
  return TFC_OK;
}

/* ---- fused epilogues ---- */

int tfc_conv_fusion_parse(const tfc_node *n, tfc_conv_fusion *f, tfc_status *s) {
  memset(f, 0, sizeof *f);
  int is_conv = strcmp(n->op->name, "_FusedConv2D") == 0, is_matmul = strcmp(n->op->name, "_FusedMatMul") == 0;
  if (!is_conv && !is_matmul && strcmp(n->op->name, "_FusedDepthwiseConv2dNative") != 0) return TFC_OK;
  const tfc_attr_value *ops = tfc_node_attr(n, "fused_ops");
  int n_ops = ops && ops->kind == TFC_ATTR_LIST ? ops->u.list.n : 0;
  static const char *const acts[] = {"Relu", "Relu6", "Elu", "LeakyRelu"};
  int ok = n_ops >= 1 && strcmp(ops->u.list.items[0].u.s.data, "BiasAdd") == 0, next = 1;
  if (ok && is_conv && n_ops > next && strcmp(ops->u.list.items[next].u.s.data, "Add") == 0) {
    f->add = 1;
    next++;
  }
  if (ok && n_ops > next) {
    ok = 0;
    for (int i = 0; i < 4 && !ok; i++)
      if (strcmp(ops->u.list.items[next].u.s.data, acts[i]) == 0) {
        f->act = TFC_ACT_RELU + i;
        ok = 1;
      }
    next++;
  }
  if (!ok || n_ops != next) {
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < n_ops && used < sizeof list; i++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? "," : "", ops->u.list.items[i].u.s.data);
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Fusion is not implemented: [%s]", list);
  }
  int64_t num_args = 0;
  tfc_node_attr_int(n, "num_args", &num_args);
  if (num_args != 1 + f->add) {
    const char *what = is_conv ? "Conv2D" : is_matmul ? "MatMul" : "DepthwiseConv2dNative";
    return f->add ? tfc_status_set(s, TFC_INVALID_ARGUMENT, "Fused %s with Add must have two extra arguments: bias and addend.", what)
                  : tfc_status_set(s, TFC_INVALID_ARGUMENT, "Fused %s must have one extra argument: bias.", what);
  }
  int64_t host_args = 0;
  const tfc_attr_value *ff = tfc_node_attr(n, "filter_format");
  if (tfc_node_attr(n, "num_host_args")) tfc_node_attr_int(n, "num_host_args", &host_args);
  if (host_args != 0 || (ff && ff->kind == TFC_ATTR_STRING && strcmp(ff->u.s.data, "HWIO") != 0))
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "%s on the CPU supports only filter_format HWIO without host_args",
                          n->op->name);
  const tfc_attr_value *a = tfc_node_attr(n, "leakyrelu_alpha");
  f->alpha = a && a->kind == TFC_ATTR_FLOAT ? a->u.f : 0.2f;
  f->on = 1;
  return TFC_OK;
}

int tfc_conv_fusion_check_bias(tfc_kernel_ctx *c, int64_t oc) {
  const tfc_tensor *b = c->inputs[2];
  if (b->ndims != 1 || b->dims[0] != oc) {
    char buf[64];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Must provide as many biases as the last dimension of the input tensor: %s vs. [%lld]",
                            tfc_tensor_shape_str(b, buf, sizeof buf), (long long)oc);
  }
  return TFC_OK;
}

int tfc_conv_fusion_check_addend(tfc_kernel_ctx *c, const tfc_conv_fusion *f, const int64_t *dims, int ndims) {
  if (!f->add) return TFC_OK;
  const tfc_tensor *a = c->inputs[3];
  int same = a->ndims == ndims && a->dtype == c->inputs[0]->dtype;
  for (int d = 0; same && d < ndims; d++) same = a->dims[d] == dims[d];
  if (!same) {
    char got[64], want[64] = "[";
    size_t used = 1;
    for (int d = 0; d < ndims && used < sizeof want; d++)
      used += (size_t)snprintf(want + used, sizeof want - used, "%s%lld", d ? "," : "", (long long)dims[d]);
    if (used < sizeof want - 1) snprintf(want + used, sizeof want - used, "]");
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "The addend of a fused Add must have the output's shape %s and dtype %s: got %s %s",
                            want, tfc_dtype_name(c->inputs[0]->dtype), tfc_tensor_shape_str(a, got, sizeof got),
                            tfc_dtype_name(a->dtype));
  }
  return TFC_OK;
}
