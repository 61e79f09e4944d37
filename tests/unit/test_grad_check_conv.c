/*
 * test_grad_check_conv — finite-difference checks (float64) of the convolution and pooling
 * gradients built by TF_AddGradients: Conv2D (input and filter backprops) in NHWC and NCHW,
 * with unit and larger strides, SAME and VALID padding; DepthwiseConv2dNative (multipliers,
 * strides, a dilation); MaxPool (inputs drawn distinct, so
 * no ties at the max) and AvgPool in both layouts and paddings; Conv3D (strides, paddings,
 * dilations; float64 and float), MaxPool3D (float: its only kernel type) and AvgPool3D in
 * NDHWC; the backprops' own gradients (Conv2DBackpropInput/Filter, the depthwise and 3-D
 * ones: a transposed convolution being trained). y = Square(op(x)) so the
 * incoming gradient varies with the output.
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

typedef struct {
  const char *op;
  const char *fmt;
  const char *padding;
  int stride; /* along H and W */
  int k;      /* pooling window along H and W */
  int dil;    /* dilation along H and W (0: the attr's default) */
} conv_arg;

static void set_hw_list(TF_OperationDescription *d, const char *name, const char *fmt, int v) {
  int64_t l[4] = {1, 1, 1, 1};
  if (strcmp(fmt, "NCHW") == 0) l[2] = l[3] = v;
  else l[1] = l[2] = v;
  TF_SetAttrIntList(d, name, l, 4);
}

static TF_Output build(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  conv_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "y");
  for (int i = 0; i < nx; i++) TF_AddInput(d, x[i]);
  set_hw_list(d, "strides", a->fmt, a->stride);
  if (a->k) set_hw_list(d, "ksize", a->fmt, a->k);
  if (a->dil) set_hw_list(d, "dilations", a->fmt, a->dil);
  TF_SetAttrString(d, "padding", a->padding, strlen(a->padding));
  TF_SetAttrString(d, "data_format", a->fmt, strlen(a->fmt));
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_conv2d_layouts_strides_paddings(void) {
  static const char *fmts[2] = {"NHWC", "NCHW"}, *pads[2] = {"SAME", "VALID"};
  for (int f = 0; f < 2; f++)
    for (int p = 0; p < 2; p++)
      for (int st = 1; st <= 2; st++) {
        conv_arg a = {"Conv2D", fmts[f], pads[p], st, 0, 0};
        gc_input in[2] = {f ? IN(-1, 1, 4, 2, 2, 5, 4) : IN(-1, 1, 4, 2, 5, 4, 2), IN(-1, 1, 4, 3, 2, 2, 3)};
        char what[64];
        snprintf(what, sizeof what, "Conv2D %s %s stride %d", fmts[f], pads[p], st);
        gc_check(what, build, &a, in, 2);
      }
}

static void grad_max_pool(void) {
  static const char *fmts[2] = {"NHWC", "NCHW"}, *pads[2] = {"SAME", "VALID"};
  for (int f = 0; f < 2; f++)
    for (int p = 0; p < 2; p++) {
      conv_arg a = {"MaxPool", fmts[f], pads[p], 2, 2, 0};
      gc_input in = f ? IN(-2, 2, 4, 1, 2, 5, 4) : IN(-2, 2, 4, 1, 5, 4, 2);
      gc_check("MaxPool", build, &a, &in, 1);
      conv_arg o = {"MaxPool", fmts[f], pads[p], 1, 3, 0}; /* overlapping windows */
      gc_check("MaxPool overlapping", build, &o, &in, 1);
    }
}

static void grad_avg_pool(void) {
  static const char *fmts[2] = {"NHWC", "NCHW"}, *pads[2] = {"SAME", "VALID"};
  for (int f = 0; f < 2; f++)
    for (int p = 0; p < 2; p++) {
      conv_arg a = {"AvgPool", fmts[f], pads[p], 2, 3, 0};
      gc_input in = f ? IN(-2, 2, 4, 2, 2, 5, 4) : IN(-2, 2, 4, 2, 5, 4, 2);
      gc_check("AvgPool", build, &a, &in, 1);
    }
}

/* DepthwiseConv2dNative (NHWC, the CPU's layout): channel multipliers 1 and 2, strides,
 * paddings and a dilation, through its two backprops. */
static void grad_depthwise_strides_paddings_dilations(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  for (int p = 0; p < 2; p++)
    for (int st = 1; st <= 2; st++)
      for (int mult = 1; mult <= 2; mult++) {
        conv_arg a = {"DepthwiseConv2dNative", "NHWC", pads[p], st, 0, st == 1 && mult == 2 ? 2 : 0};
        gc_input in[2] = {IN(-1, 1, 4, 2, 6, 5, 3), IN(-1, 1, 4, 2, 2, 3, mult)};
        char what[80];
        snprintf(what, sizeof what, "DepthwiseConv2dNative %s stride %d mult %d dil %d", pads[p], st, mult, a.dil);
        gc_check(what, build, &a, in, 2);
      }
}

/* The 2-D backprops' own gradients (a conv2d_transpose or a depthwise transpose being
 * trained): input_sizes / filter_sizes a Const, the other two inputs checked. */
typedef struct bprop_arg {
  conv_arg conv;    /* op: the backprop */
  int filter;       /* 1: a filter backprop, 0: an input backprop */
  int64_t sizes[4]; /* the input's (input backprop) or the filter's (filter backprop) shape */
} bprop_arg;

static TF_Output build_bprop(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  bprop_arg *a = arg;
  TF_Output sizes = gc_ivec(g, "sizes", a->sizes, 4);
  TF_OperationDescription *d = TF_NewOperation(g, a->conv.op, "y");
  TF_AddInput(d, a->filter ? x[0] : sizes);
  TF_AddInput(d, a->filter ? sizes : x[0]);
  TF_AddInput(d, x[1]);
  set_hw_list(d, "strides", a->conv.fmt, a->conv.stride);
  if (a->conv.dil) set_hw_list(d, "dilations", a->conv.fmt, a->conv.dil);
  TF_SetAttrString(d, "padding", a->conv.padding, strlen(a->conv.padding));
  TF_SetAttrString(d, "data_format", a->conv.fmt, strlen(a->conv.fmt));
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_conv2d_and_depthwise_backprops(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  for (int dw = 0; dw < 2; dw++)
    for (int p = 0; p < 2; p++)
      for (int st = 1; st <= 2; st++) {
        /* x [2, 5, 6, 3]; w [2, 3, 3, 2] (Conv2D: 2 outputs; depthwise: multiplier 2, 6 outputs) */
        int64_t oc = dw ? 6 : 2, oh = p ? (5 - 2) / st + 1 : (5 + st - 1) / st, ow = p ? (6 - 3) / st + 1 : (6 + st - 1) / st;
        const char *in_op = dw ? "DepthwiseConv2dNativeBackpropInput" : "Conv2DBackpropInput";
        const char *f_op = dw ? "DepthwiseConv2dNativeBackpropFilter" : "Conv2DBackpropFilter";
        int dil = st == 1 && dw ? 2 : 0;
        bprop_arg in_arg = {{in_op, "NHWC", pads[p], st, 0, dil}, 0, {2, 5, 6, 3}};
        bprop_arg f_arg = {{f_op, "NHWC", pads[p], st, 0, dil}, 1, {2, 3, 3, 2}};
        if (dil && p) oh = 5 - 2 * 1 - 1 + 1, ow = 6 - 2 * 2 - 1 + 1; /* VALID, dilated 2: a 3x5 window */
        gc_input in_ins[2] = {IN(-1, 1, 4, 2, 3, 3, 2), IN(-1, 1, 4, 2, oh, ow, oc)};
        gc_input f_ins[2] = {IN(-1, 1, 4, 2, 5, 6, 3), IN(-1, 1, 4, 2, oh, ow, oc)};
        char what[96];
        snprintf(what, sizeof what, "%s %s stride %d dil %d", in_op, pads[p], st, dil);
        gc_check(what, build_bprop, &in_arg, in_ins, 2);
        snprintf(what, sizeof what, "%s %s stride %d dil %d", f_op, pads[p], st, dil);
        gc_check(what, build_bprop, &f_arg, f_ins, 2);
      }
}

/* ---- the 3-D family (NDHWC, the CPU's layout) ---- */

typedef struct conv3_arg {
  const char *op, *padding;
  int stride[3], k[3], dil[3]; /* D, H, W; k: the pooling window (0: a convolution) */
} conv3_arg;

static void set_dhw(TF_OperationDescription *d, const char *name, const int *v) {
  int64_t l[5] = {1, v[0], v[1], v[2], 1};
  TF_SetAttrIntList(d, name, l, 5);
}

static TF_Output build3(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  conv3_arg *a = arg;
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "y");
  for (int i = 0; i < nx; i++) TF_AddInput(d, x[i]);
  set_dhw(d, "strides", a->stride);
  if (a->k[0]) set_dhw(d, "ksize", a->k);
  if (a->dil[0]) set_dhw(d, "dilations", a->dil);
  TF_SetAttrString(d, "padding", a->padding, strlen(a->padding));
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

/* Conv3D through Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (float64, the plain-C
 * kernels), and once in float (oneDNN) with a looser tolerance. */
static void grad_conv3d_strides_paddings_dilations(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  static const conv3_arg shapes[3] = {
      {"Conv3D", NULL, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}},
      {"Conv3D", NULL, {2, 1, 2}, {0, 0, 0}, {0, 0, 0}},
      {"Conv3D", NULL, {1, 1, 1}, {0, 0, 0}, {2, 1, 2}},
  };
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 3; k++) {
      conv3_arg a = shapes[k];
      a.padding = pads[p];
      gc_input in[2] = {IN(-1, 1, 5, 2, 5, 4, 5, 2), IN(-1, 1, 5, 2, 2, 2, 2, 3)};
      char what[80];
      snprintf(what, sizeof what, "Conv3D %s case %d", pads[p], k);
      gc_check(what, build3, &a, in, 2);
    }
  conv3_arg a = {"Conv3D", "SAME", {1, 2, 1}, {0, 0, 0}, {1, 1, 2}};
  gc_input in[2] = {IN(-1, 1, 5, 2, 4, 4, 5, 2), IN(-1, 1, 5, 2, 2, 2, 2, 3)};
  gc_check_ex("Conv3D float", build3, &a, in, 2, TF_FLOAT, 1e-2, 2e-2);
}

/* The backprops' own gradients (a conv3d_transpose being trained): input_sizes /
 * filter_sizes a Const, the other two inputs checked. */
typedef struct bprop3_arg {
  conv3_arg conv;
  int filter;       /* 1: Conv3DBackpropFilterV2, 0: Conv3DBackpropInputV2 */
  int64_t sizes[5]; /* the input's (BackpropInput) or the filter's (BackpropFilter) shape */
} bprop3_arg;

static TF_Output build_bprop3(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  bprop3_arg *a = arg;
  TF_Output sizes = gc_ivec(g, "sizes", a->sizes, 5);
  TF_OperationDescription *d =
      TF_NewOperation(g, a->filter ? "Conv3DBackpropFilterV2" : "Conv3DBackpropInputV2", "y");
  if (a->filter) {
    TF_AddInput(d, x[0]);
    TF_AddInput(d, sizes);
  } else {
    TF_AddInput(d, sizes);
    TF_AddInput(d, x[0]);
  }
  TF_AddInput(d, x[1]);
  set_dhw(d, "strides", a->conv.stride);
  if (a->conv.dil[0]) set_dhw(d, "dilations", a->conv.dil);
  TF_SetAttrString(d, "padding", a->conv.padding, strlen(a->conv.padding));
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_conv3d_backprops(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 2; k++) {
      /* x [2, 5, 4, 5, 2], w [2, 2, 2, 2, 3]; k 1: strides (2, 1, 2) and a dilation */
      conv3_arg conv = {"", pads[p], {1 + k, 1, 1 + k}, {0, 0, 0}, {1, 1 + k, 1}};
      int64_t od = p ? (5 - 2) / (1 + k) + 1 : (5 + k) / (1 + k), oh = p ? 4 - (1 + k) : 4,
              ow = p ? (5 - 2) / (1 + k) + 1 : (5 + k) / (1 + k);
      bprop3_arg in_arg = {conv, 0, {2, 5, 4, 5, 2}}, f_arg = {conv, 1, {2, 2, 2, 2, 3}};
      gc_input in_ins[2] = {IN(-1, 1, 5, 2, 2, 2, 2, 3), IN(-1, 1, 5, 2, od, oh, ow, 3)};
      gc_input f_ins[2] = {IN(-1, 1, 5, 2, 5, 4, 5, 2), IN(-1, 1, 5, 2, od, oh, ow, 3)};
      char what[80];
      snprintf(what, sizeof what, "Conv3DBackpropInputV2 %s case %d", pads[p], k);
      gc_check(what, build_bprop3, &in_arg, in_ins, 2);
      snprintf(what, sizeof what, "Conv3DBackpropFilterV2 %s case %d", pads[p], k);
      gc_check(what, build_bprop3, &f_arg, f_ins, 2);
    }
}

/* MaxPool3D has only float kernels: float differences with a small step; the random inputs
 * keep every window's maximum clear of the step. */
static void grad_max_pool3d(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  for (int p = 0; p < 2; p++) {
    conv3_arg a = {"MaxPool3D", pads[p], {2, 2, 2}, {2, 2, 2}, {0, 0, 0}};
    gc_input in = IN(-2, 2, 5, 1, 4, 5, 4, 2);
    gc_check_ex("MaxPool3D", build3, &a, &in, 1, TF_FLOAT, 1e-3, 2e-3);
    conv3_arg o = {"MaxPool3D", pads[p], {1, 1, 1}, {2, 3, 2}, {0, 0, 0}}; /* overlapping windows */
    gc_check_ex("MaxPool3D overlapping", build3, &o, &in, 1, TF_FLOAT, 1e-3, 2e-3);
  }
}

static void grad_avg_pool3d(void) {
  static const char *pads[2] = {"SAME", "VALID"};
  for (int p = 0; p < 2; p++) {
    conv3_arg a = {"AvgPool3D", pads[p], {2, 1, 2}, {3, 2, 2}, {0, 0, 0}};
    gc_input in = IN(-2, 2, 5, 2, 5, 4, 5, 2);
    gc_check("AvgPool3D", build3, &a, &in, 1);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(grad_conv2d_layouts_strides_paddings),
    TFC_TEST(grad_depthwise_strides_paddings_dilations),
    TFC_TEST(grad_conv2d_and_depthwise_backprops),
    TFC_TEST(grad_max_pool),
    TFC_TEST(grad_avg_pool),
    TFC_TEST(grad_conv3d_strides_paddings_dilations),
    TFC_TEST(grad_conv3d_backprops),
    TFC_TEST(grad_max_pool3d),
    TFC_TEST(grad_avg_pool3d),
    {0}};
TFC_TEST_MAIN(tests)
