/*
 * shape_conv — shape functions of the convolution and pooling families (ops_conv.def, and the
 * 3-D ops of ops_conv3d.def).
 *
 * They follow TF 1.15's Conv2DShape, MaxPoolShape/AvgPoolShape and the backprop ops' "shape
 * from a const size input" functions, with TF's error texts, so that a bad graph fails at
 * construction exactly where TF fails. Windowed output sizes follow TF's
 * GetWindowedOutputSizeFromDims: VALID and EXPLICIT subtract the effective window (an error
 * when negative), SAME divides by the stride rounding up. Unknown dims stay unknown.
 */
#include <string.h>

#include "ops/opdef.h"

/* Position of a dimension letter in a 4-D NHWC or NCHW layout. */
static int dim_index(int nchw, char letter) {
  switch (letter) {
    case 'N': return 0;
    case 'C': return nchw ? 1 : 3;
    case 'H': return nchw ? 2 : 1;
    default: return nchw ? 3 : 2;
  }
}

static int attr_is(const tfc_shape_ctx *c, const char *name, const char *text) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, name);
  return v && v->kind == TFC_ATTR_STRING && strcmp(v->u.s.data, text) == 0;
}

/* The list(int) attr `name`: *n items in out (at most `cap`; *n is the true length). */
static void attr_ints(const tfc_shape_ctx *c, const char *name, int64_t *out, int cap, int *n) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, name);
  *n = 0;
  if (!v || v->kind != TFC_ATTR_LIST) return;
  *n = v->u.list.n;
  for (int i = 0; i < v->u.list.n && i < cap; i++) out[i] = v->u.list.items[i].u.i;
}

static int with_rank4(tfc_shape_ctx *c, const tfc_shape *s) {
  if (s->rank >= 0 && s->rank != 4) return tfc_shape_ctx_error(c, "Shape must be rank 4 but is rank %d", s->rank);
  return TFC_OK;
}

/* TF's windowed output size for one spatial dim into *out; an unknown input size (-1) gives -1.
 * *out is written on every path (-1 on error too), so callers never see it unset. */
static int windowed(tfc_shape_ctx *c, int64_t in, int64_t window, int64_t dilation, int64_t stride, int same,
                    int64_t pad_total, int64_t *out) {
  *out = -1;
  if (in < 0) return TFC_OK;
  if (stride <= 0) return tfc_shape_ctx_error(c, "Stride must be > 0, but got %lld", (long long)stride);
  int64_t eff = (window - 1) * dilation + 1;
  if (same) {
    *out = (in + stride - 1) / stride;
    return TFC_OK;
  }
  int64_t padded = in + pad_total;
  if (padded - eff < 0)
    return tfc_shape_ctx_error(c, "Negative dimension size caused by subtracting %lld from %lld", (long long)eff,
                               (long long)padded);
  *out = (padded - eff + stride) / stride;
  return TFC_OK;
}

/* ---- Conv2D and its backprops ---- */

int tfc_shape_conv2d(tfc_shape_ctx *c) {
  int nchw = attr_is(c, "data_format", "NCHW"), explicit_pad = attr_is(c, "padding", "EXPLICIT");
  int64_t strides[8] = {0}, dil[8] = {1, 1, 1, 1}, pads[16] = {0};
  int n_strides, n_dil, n_pads;
  attr_ints(c, "strides", strides, 8, &n_strides);
  attr_ints(c, "dilations", dil, 8, &n_dil);
  attr_ints(c, "explicit_paddings", pads, 16, &n_pads);
  if (n_strides != 4)
    return tfc_shape_ctx_error(c, "Conv2D requires the stride attribute to contain 4 values, but got: %d", n_strides);
  if (n_dil != 4)
    return tfc_shape_ctx_error(c, "Conv2D requires the dilation attribute to contain 4 values, but got: %d", n_dil);
  const tfc_shape *in = &c->input_shapes[0], *f = &c->input_shapes[1];
  TFC_TRY(with_rank4(c, in));
  TFC_TRY(with_rank4(c, f));
  /* TF's CheckValidPadding. */
  if (explicit_pad) {
    if (n_pads != 8)
      return tfc_shape_ctx_error(c, "explicit_paddings attribute must contain 8 values, but got: %d", n_pads);
    for (int i = 0; i < 8; i++)
      if (pads[i] < 0) return tfc_shape_ctx_error(c, "All elements of explicit_paddings must be nonnegative");
    int ni = dim_index(nchw, 'N'), ci = dim_index(nchw, 'C');
    if (pads[2 * ni] || pads[2 * ni + 1] || pads[2 * ci] || pads[2 * ci + 1])
      return tfc_shape_ctx_error(c, "Nonzero explicit padding in the batch or depth dimensions is not supported");
  } else if (n_pads != 0) {
    return tfc_shape_ctx_error(c, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  if (in->rank < 0 || f->rank < 0) return TFC_OK; /* output unknown */
  int hi = dim_index(nchw, 'H'), wi = dim_index(nchw, 'W'), ci = dim_index(nchw, 'C');
  int64_t in_c = in->dims[ci], f_c = f->dims[2];
  if (in_c >= 0 && f_c >= 0 && in_c != f_c)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)in_c, (long long)f_c);
  int same = attr_is(c, "padding", "SAME");
  int64_t oh, ow;
  int64_t fh = f->dims[0], fw = f->dims[1];
  if (fh < 0 || fw < 0) {
    oh = ow = -1;
  } else {
    TFC_TRY(windowed(c, in->dims[hi], fh, dil[hi], strides[hi], same,
                     explicit_pad ? pads[2 * hi] + pads[2 * hi + 1] : 0, &oh));
    TFC_TRY(windowed(c, in->dims[wi], fw, dil[wi], strides[wi], same,
                     explicit_pad ? pads[2 * wi] + pads[2 * wi + 1] : 0, &ow));
  }
  tfc_shape r = {.rank = 4};
  r.dims[0] = in->dims[0];
  r.dims[ci] = f->dims[3];
  r.dims[hi] = oh;
  r.dims[wi] = ow;
  c->output_shapes[0] = r;
  return TFC_OK;
}

/* Output = the const shape vector in input `which`, which must describe a rank-4 tensor. */
static int shape_from_sizes(tfc_shape_ctx *c, int which) {
  tfc_shape s;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, which, &s));
  TFC_TRY(with_rank4(c, &s));
  if (s.rank < 0) {
    s.rank = 4;
    for (int i = 0; i < 4; i++) s.dims[i] = -1;
  }
  c->output_shapes[0] = s;
  return TFC_OK;
}

int tfc_shape_conv2d_backprop_input(tfc_shape_ctx *c) { return shape_from_sizes(c, 0); }
int tfc_shape_conv2d_backprop_filter(tfc_shape_ctx *c) { return shape_from_sizes(c, 1); }
int tfc_shape_avg_pool_grad(tfc_shape_ctx *c) { return shape_from_sizes(c, 0); }

/* ---- pooling ---- */

int tfc_shape_pool(tfc_shape_ctx *c) {
  int nchw = !attr_is(c, "data_format", "NHWC"); /* NCHW_VECT_C is rejected by the kernels */
  int64_t ksize[8] = {0}, strides[8] = {0};
  int nk, ns;
  attr_ints(c, "ksize", ksize, 8, &nk);
  attr_ints(c, "strides", strides, 8, &ns);
  int64_t pads[8];
  int n_pads;
  attr_ints(c, "explicit_paddings", pads, 8, &n_pads);
  if (n_pads != 0)
    return tfc_shape_ctx_error(c, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  if (ns != 4)
    return tfc_shape_ctx_error(c, "%s requires the stride attribute to contain 4 values, but got: %d", c->op->name, ns);
  if (nk != 4)
    return tfc_shape_ctx_error(c, "%s requires the ksize attribute to contain 4 values, but got: %d", c->op->name, nk);
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(with_rank4(c, in));
  if (in->rank < 0) return TFC_OK;
  int same = attr_is(c, "padding", "SAME");
  int hi = dim_index(nchw, 'H'), wi = dim_index(nchw, 'W'), ci = dim_index(nchw, 'C');
  tfc_shape r = {.rank = 4};
  r.dims[0] = in->dims[0];
  TFC_TRY(windowed(c, in->dims[hi], ksize[hi], 1, strides[hi], same, 0, &r.dims[hi]));
  TFC_TRY(windowed(c, in->dims[wi], ksize[wi], 1, strides[wi], same, 0, &r.dims[wi]));
  TFC_TRY(windowed(c, in->dims[ci], ksize[ci], 1, strides[ci], same, 0, &r.dims[ci]));
  c->output_shapes[0] = r;
  return TFC_OK;
}

int tfc_shape_pool_with_workspace(tfc_shape_ctx *c) {
  TFC_TRY(tfc_shape_pool(c));
  c->output_shapes[1] = c->output_shapes[0];
  return TFC_OK;
}

int tfc_shape_max_pool_grad(tfc_shape_ctx *c) {
  int64_t pads[8];
  int n_pads;
  attr_ints(c, "explicit_paddings", pads, 8, &n_pads);
  if (n_pads != 0)
    return tfc_shape_ctx_error(c, "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  TFC_TRY(with_rank4(c, &c->input_shapes[0]));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}

/* ---- the 3-D family ---- */

static int with_rank5(tfc_shape_ctx *c, const tfc_shape *s) {
  if (s->rank >= 0 && s->rank != 5) return tfc_shape_ctx_error(c, "Shape must be rank 5 but is rank %d", s->rank);
  return TFC_OK;
}

/* Index of spatial dim k (0: D, 1: H, 2: W) and of the channels in a 5-D NDHWC / NCDHW shape. */
static int spatial5(int ncdhw, int k) { return ncdhw ? 2 + k : 1 + k; }

int tfc_shape_conv3d(tfc_shape_ctx *c) {
  int ncdhw = attr_is(c, "data_format", "NCDHW"), same = attr_is(c, "padding", "SAME");
  int64_t strides[8] = {0}, dil[8] = {1, 1, 1, 1, 1};
  int n_strides, n_dil;
  attr_ints(c, "strides", strides, 8, &n_strides);
  attr_ints(c, "dilations", dil, 8, &n_dil);
  const tfc_shape *in = &c->input_shapes[0], *f = &c->input_shapes[1];
  TFC_TRY(with_rank5(c, in));
  TFC_TRY(with_rank5(c, f));
  if (n_strides != 5)
    return tfc_shape_ctx_error(c, "Conv3D requires the stride attribute to contain 5 values, but got: %d", n_strides);
  if (n_dil != 5)
    return tfc_shape_ctx_error(c, "Conv3D requires the dilation attribute to contain 5 values, but got: %d", n_dil);
  if (in->rank < 0 || f->rank < 0) return TFC_OK;
  int ci = ncdhw ? 1 : 4;
  int64_t in_c = in->dims[ci], f_c = f->dims[3];
  if (in_c >= 0 && f_c >= 0 && in_c != f_c)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)in_c, (long long)f_c);
  tfc_shape r = {.rank = 5};
  r.dims[0] = in->dims[0];
  r.dims[ci] = f->dims[4];
  for (int k = 0; k < 3; k++) {
    int i = spatial5(ncdhw, k);
    if (f->dims[k] < 0) {
      r.dims[i] = -1;
      continue;
    }
    TFC_TRY(windowed(c, in->dims[i], f->dims[k], dil[i], strides[i], same, 0, &r.dims[i]));
  }
  c->output_shapes[0] = r;
  return TFC_OK;
}

/* Output = the const shape vector in input `which`, which must describe a rank-5 tensor. */
static int shape_from_sizes5(tfc_shape_ctx *c, int which) {
  tfc_shape s;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, which, &s));
  TFC_TRY(with_rank5(c, &s));
  if (s.rank < 0) {
    s.rank = 5;
    for (int i = 0; i < 5; i++) s.dims[i] = -1;
  }
  c->output_shapes[0] = s;
  return TFC_OK;
}

int tfc_shape_conv3d_backprop_input(tfc_shape_ctx *c) { return shape_from_sizes5(c, 0); }
int tfc_shape_conv3d_backprop_filter(tfc_shape_ctx *c) { return shape_from_sizes5(c, 1); }
int tfc_shape_avg_pool3d_grad(tfc_shape_ctx *c) { return shape_from_sizes5(c, 0); }

int tfc_shape_pool3d(tfc_shape_ctx *c) {
  int ncdhw = attr_is(c, "data_format", "NCDHW"), same = attr_is(c, "padding", "SAME");
  int64_t ksize[8] = {0}, strides[8] = {0};
  int nk, ns;
  attr_ints(c, "ksize", ksize, 8, &nk);
  attr_ints(c, "strides", strides, 8, &ns);
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(with_rank5(c, in));
  if (ns != 5)
    return tfc_shape_ctx_error(c, "%s requires the stride attribute to contain 5 values, but got: %d", c->op->name, ns);
  if (nk != 5)
    return tfc_shape_ctx_error(c, "%s requires the ksize attribute to contain 5 values, but got: %d", c->op->name, nk);
  if (in->rank < 0) return TFC_OK;
  tfc_shape r = *in;
  for (int k = 0; k < 3; k++) {
    int i = spatial5(ncdhw, k);
    TFC_TRY(windowed(c, in->dims[i], ksize[i], 1, strides[i], same, 0, &r.dims[i]));
  }
  c->output_shapes[0] = r;
  return TFC_OK;
}

int tfc_shape_max_pool3d_grad(tfc_shape_ctx *c) {
  TFC_TRY(with_rank5(c, &c->input_shapes[0]));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}
