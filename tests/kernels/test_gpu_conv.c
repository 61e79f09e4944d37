/*
 * GPU convolution, pooling and random kernels against their CPU kernels, through a session
 * (gpu_compare.h: one copy of the op on /device:CPU:0, one on /device:GPU:0, the same inputs).
 *
 * Convolutions cover NHWC and NCHW, strides 1 and 2, dilation 2, SAME with odd total padding
 * (TF's extra element after, where cuDNN pads symmetrically: the GPU pads explicitly), VALID,
 * EXPLICIT asymmetric, odd sizes, batch 0, a 1x1 image under a 3x3 SAME filter, and all three
 * directions. Pooling covers max and average, forward and backward, with odd SAME padding,
 * batch 0, a 1x1 image under a 3x3 SAME window, and inputs full of ties. The cases whose answer
 * is known by hand (TF's tie rule: a gradient goes to the first maximum of its window; padding
 * never counts as a value, nor in the average's count) are asserted on the CPU, which runs
 * without a GPU, and on the GPU. Half runs as Cast(float -> half) on the CPU, the op on the
 * GPU, Cast back, against the op in float. Random ops with the same seeds must give the CPU's
 * numbers on the first and on the second run: uniform and integer outputs bit for bit, normals
 * within 2 ulp.
 *
 * Without a CUDA build or a GPU the GPU halves skip with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_compare.c"

/* Runs o on dev alone and returns its output 0 (new), failing the test on an error. */
static TF_Tensor *run_on(const char *dev, const gc_op *o, const gc_arg *args, int n_args, const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, o, args, n_args, &in, s, label);
  int on_gpu = strstr(dev, "GPU") != NULL;
  TF_Output out = {gc_add_op(g, o, "op", dev, on_gpu ? in.gpu_in : in.cpu_in, n_args, s, 0, label), 0};
  if (o->half && on_gpu) out = gc_unary(g, "Cast", "back", out, "DstT", TF_FLOAT, s, label);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_Tensor *t = NULL;
  TF_SessionRun(sess, NULL, in.feeds, in.vals, in.n_feeds, &out, &t, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s on %s: %s", label, dev, TF_Message(s));
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return t;
}

/* A float tensor of the given values. */
static TF_Tensor *floats(const int64_t *dims, int nd, const float *v) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  return t;
}

static void act_shape(int nchw, int64_t n, int64_t h, int64_t w, int64_t c, int64_t *d) {
  d[0] = n;
  d[nchw ? 1 : 3] = c;
  d[nchw ? 2 : 1] = h;
  d[nchw ? 3 : 2] = w;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t dil, const char *padding, int64_t pb, int64_t pa) {
  int64_t eff = (k - 1) * dil + 1;
  if (strcmp(padding, "SAME") == 0) return (in + s - 1) / s;
  if (strcmp(padding, "VALID") == 0) pb = pa = 0;
  return (in + pb + pa - eff + s) / s;
}

/* The window attrs of a conv or pool op, as gc_attrs (the lists point into w). */
typedef struct win {
  int64_t strides[4], ksize[4], dil[4], pads[8];
} win;

static gc_op win_op(const char *type, const char *fmt, const char *padding, const win *w, int pool, int explicit_pads,
                    int half) {
  gc_op o = {.type = type, .half = half};
  int k = 0;
  o.attrs[k++] = (gc_attr)GC_STR("data_format", fmt);
  o.attrs[k++] = (gc_attr)GC_STR("padding", padding);
  o.attrs[k++] = (gc_attr)GC_INTS("strides", w->strides, 4);
  if (pool) {
    o.attrs[k++] = (gc_attr)GC_INTS("ksize", w->ksize, 4);
  } else {
    o.attrs[k++] = (gc_attr)GC_INTS("dilations", w->dil, 4);
    if (explicit_pads) o.attrs[k++] = (gc_attr)GC_INTS("explicit_paddings", w->pads, 8);
  }
  return o;
}

/* ---- convolutions ---- */

typedef struct conv_case {
  int64_t n, h, w, ic, kh, kw, oc;
  int64_t sh, sw, dil;
  const char *padding;
  int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
} conv_case;

/* Odd sizes; SAME with odd totals (8 rows at stride 2 with a 3-row filter pads 0 + 1; a 2x2
 * filter at stride 1 pads 0 + 1 on both dims); VALID; dilation (with an odd SAME total: 8 rows,
 * stride 2, effective filter 5 pads 1 + 2); EXPLICIT asymmetric; 1x1 everything; batch 0; a 1x1
 * image under a 3x3 SAME filter (pads 1 + 1: only the centre tap sees data). */
static const conv_case conv_cases[] = {
    {2, 7, 9, 3, 3, 3, 4, 1, 1, 1, "SAME", {0}},  {2, 8, 7, 3, 3, 3, 5, 2, 2, 1, "SAME", {0}},
    {1, 9, 9, 2, 4, 2, 3, 2, 2, 1, "VALID", {0}}, {2, 10, 10, 3, 3, 3, 2, 1, 1, 2, "SAME", {0}},
    {3, 5, 6, 4, 2, 2, 3, 1, 1, 1, "SAME", {0}},  {1, 6, 5, 2, 3, 3, 2, 1, 2, 1, "EXPLICIT", {1, 2, 3, 0}},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "VALID", {0}}, {1, 8, 6, 2, 3, 2, 3, 2, 1, 2, "SAME", {0}},
    {0, 5, 5, 2, 3, 3, 3, 1, 1, 1, "SAME", {0}},  {2, 1, 1, 3, 3, 3, 2, 1, 1, 1, "SAME", {0}},
};
#define N_CONV (int)(sizeof conv_cases / sizeof conv_cases[0])

/* kind: 0 Conv2D, 1 Conv2DBackpropInput, 2 Conv2DBackpropFilter. dt: TF_FLOAT, TF_DOUBLE, or
 * TF_HALF (fed as float, the GPU op in half). */
static void check_conv(const conv_case *cc, int nchw, int kind, TF_DataType dt) {
  TF_DataType feed_dt = dt == TF_HALF ? TF_FLOAT : dt;
  const char *fmt = nchw ? "NCHW" : "NHWC";
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  win w = {{1, 1, 1, 1}, {0}, {1, 1, 1, 1}, {0}};
  w.strides[hi] = cc->sh, w.strides[wi] = cc->sw;
  w.dil[hi] = w.dil[wi] = cc->dil;
  int expl = strcmp(cc->padding, "EXPLICIT") == 0;
  if (expl) {
    w.pads[2 * hi] = cc->pads[0], w.pads[2 * hi + 1] = cc->pads[1];
    w.pads[2 * wi] = cc->pads[2], w.pads[2 * wi + 1] = cc->pads[3];
  }
  int64_t oh = out_size(cc->h, cc->kh, cc->sh, cc->dil, cc->padding, cc->pads[0], cc->pads[1]);
  int64_t ow = out_size(cc->w, cc->kw, cc->sw, cc->dil, cc->padding, cc->pads[2], cc->pads[3]);
  int64_t xd[4], yd[4], fd[4] = {cc->kh, cc->kw, cc->ic, cc->oc};
  act_shape(nchw, cc->n, cc->h, cc->w, cc->ic, xd);
  act_shape(nchw, cc->n, oh, ow, cc->oc, yd);
  static const char *ops[] = {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"};
  gc_arg args[3];
  int n_in = kind == 0 ? 2 : 3;
  if (kind == 0) {
    args[0] = GC_FED(gc_rand(feed_dt, 4, xd, -1, 1));
    args[1] = GC_FED(gc_rand(feed_dt, 4, fd, -1, 1));
  } else if (kind == 1) {
    args[0] = GC_CONST(gc_ints((int32_t[]){(int32_t)xd[0], (int32_t)xd[1], (int32_t)xd[2], (int32_t)xd[3]}, 4));
    args[1] = GC_FED(gc_rand(feed_dt, 4, fd, -1, 1));
  } else {
    args[0] = GC_FED(gc_rand(feed_dt, 4, xd, -1, 1));
    args[1] = GC_CONST(gc_ints((int32_t[]){(int32_t)fd[0], (int32_t)fd[1], (int32_t)fd[2], (int32_t)fd[3]}, 4));
  }
  if (kind) args[2] = GC_FED(gc_rand(feed_dt, 4, yd, -1, 1));
  gc_op o = win_op(ops[kind], fmt, cc->padding, &w, 0, expl, dt == TF_HALF);
  char label[128];
  snprintf(label, sizeof label, "%s %s dtype %d case %d", ops[kind], fmt, (int)dt, (int)(cc - conv_cases));
  gc_check(&o, args, n_in, dt == TF_DOUBLE ? 1e-12 : dt == TF_HALF ? 3e-2 : 1e-4, label);
  gc_free_args(args, n_in);
}

static void conv2d_matches_cpu_in_both_layouts(void) {
  gc_need_gpu();
  for (int c = 0; c < N_CONV; c++)
    for (int nchw = 0; nchw < 2; nchw++) {
      check_conv(&conv_cases[c], nchw, 0, TF_FLOAT);
      check_conv(&conv_cases[c], nchw, 0, TF_DOUBLE);
    }
  check_conv(&conv_cases[1], 0, 0, TF_HALF);
  check_conv(&conv_cases[7], 1, 0, TF_HALF);
}

static void conv2d_backprop_input_matches_cpu(void) {
  gc_need_gpu();
  for (int c = 0; c < N_CONV; c++)
    for (int nchw = 0; nchw < 2; nchw++) {
      check_conv(&conv_cases[c], nchw, 1, TF_FLOAT);
      check_conv(&conv_cases[c], nchw, 1, TF_DOUBLE);
    }
  check_conv(&conv_cases[4], 1, 1, TF_HALF);
}

static void conv2d_backprop_filter_matches_cpu(void) {
  gc_need_gpu();
  for (int c = 0; c < N_CONV; c++)
    for (int nchw = 0; nchw < 2; nchw++) {
      check_conv(&conv_cases[c], nchw, 2, TF_FLOAT);
      check_conv(&conv_cases[c], nchw, 2, TF_DOUBLE);
    }
}

/* ---- pooling ---- */

typedef struct pool_case {
  int64_t n, h, w, c, kh, kw, sh, sw;
  const char *padding;
  int ties; /* values drawn from {-1, 0, 1}: most windows hold several maxima */
} pool_case;

static const pool_case pool_cases[] = {
    {2, 8, 7, 3, 3, 3, 2, 2, "SAME", 0}, /* odd total padding on H: TF pads 0 before, 1 after */
    {1, 6, 6, 2, 2, 2, 2, 2, "VALID", 0}, {2, 5, 5, 4, 3, 3, 1, 1, "SAME", 0},
    {1, 5, 5, 1, 3, 2, 2, 2, "SAME", 0},  {1, 9, 4, 2, 4, 4, 3, 1, "VALID", 0},
    {2, 5, 4, 3, 2, 2, 1, 1, "SAME", 0},  /* 2x2 at stride 1: pads 0 + 1 on both dims */
    {2, 7, 6, 3, 3, 3, 2, 1, "SAME", 1},  {1, 6, 6, 2, 2, 2, 2, 2, "VALID", 1},
    {0, 4, 4, 2, 2, 2, 2, 2, "SAME", 0},  /* batch 0 */
    {2, 1, 1, 3, 3, 3, 1, 1, "SAME", 0},  /* a 1x1 image under a 3x3 window: pads 1 + 1 */
    {1, 1, 1, 2, 3, 3, 2, 2, "SAME", 1},
};
#define N_POOL (int)(sizeof pool_cases / sizeof pool_cases[0])

static TF_Tensor *pool_input(TF_DataType dt, const int64_t *dims, int ties) {
  TF_Tensor *t = gc_rand(dt, 4, dims, ties ? -1.5 : -1, ties ? 1.5 : 1);
  if (!ties) return t;
  int64_t n = TF_TensorElementCount(t);
  for (int64_t i = 0; i < n; i++) {
    if (dt == TF_FLOAT) ((float *)TF_TensorData(t))[i] = roundf(((float *)TF_TensorData(t))[i]);
    else ((double *)TF_TensorData(t))[i] = round(((double *)TF_TensorData(t))[i]);
  }
  return t;
}

/* kind: 0 MaxPool, 1 AvgPool, 2 MaxPoolGrad, 3 AvgPoolGrad. */
static void check_pool(const pool_case *pc, int nchw, int kind, TF_DataType dt) {
  static const char *ops[] = {"MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad"};
  TF_DataType feed_dt = dt == TF_HALF ? TF_FLOAT : dt;
  const char *fmt = nchw ? "NCHW" : "NHWC";
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  win w = {{1, 1, 1, 1}, {1, 1, 1, 1}, {0}, {0}};
  w.strides[hi] = pc->sh, w.strides[wi] = pc->sw, w.ksize[hi] = pc->kh, w.ksize[wi] = pc->kw;
  int64_t oh = out_size(pc->h, pc->kh, pc->sh, 1, pc->padding, 0, 0);
  int64_t ow = out_size(pc->w, pc->kw, pc->sw, 1, pc->padding, 0, 0);
  int64_t xd[4], yd[4];
  act_shape(nchw, pc->n, pc->h, pc->w, pc->c, xd);
  act_shape(nchw, pc->n, oh, ow, pc->c, yd);
  char label[128];
  snprintf(label, sizeof label, "%s %s dtype %d case %d", ops[kind], fmt, (int)dt, (int)(pc - pool_cases));
  gc_arg args[3];
  int n_in;
  if (kind < 2) {
    args[0] = GC_FED(pool_input(feed_dt, xd, pc->ties));
    n_in = 1;
  } else if (kind == 2) {
    /* (orig_input, orig_output, grad): orig_output is MaxPool's, computed on the CPU. */
    args[0] = GC_FED(pool_input(feed_dt, xd, pc->ties));
    gc_op mp = win_op("MaxPool", fmt, pc->padding, &w, 1, 0, 0);
    args[1] = GC_FED(run_on(GC_CPU, &mp, args, 1, label));
    args[2] = GC_FED(gc_rand(feed_dt, 4, yd, -1, 1));
    n_in = 3;
  } else {
    args[0] = GC_CONST(gc_ints((int32_t[]){(int32_t)xd[0], (int32_t)xd[1], (int32_t)xd[2], (int32_t)xd[3]}, 4));
    args[1] = GC_FED(gc_rand(feed_dt, 4, yd, -1, 1));
    n_in = 2;
  }
  gc_op o = win_op(ops[kind], fmt, pc->padding, &w, 1, 0, dt == TF_HALF);
  /* Max and its gradient pick elements, which half keeps exactly for small integers only. */
  double tol = dt == TF_DOUBLE ? 1e-12 : dt == TF_HALF ? 1e-2 : 1e-5;
  gc_check(&o, args, n_in, tol, label);
  gc_free_args(args, n_in);
}

static void pooling_matches_cpu_forward_and_backward(void) {
  gc_need_gpu();
  for (int p = 0; p < N_POOL; p++)
    for (int nchw = 0; nchw < 2; nchw++)
      for (int kind = 0; kind < 4; kind++) {
        check_pool(&pool_cases[p], nchw, kind, TF_FLOAT);
        check_pool(&pool_cases[p], nchw, kind, TF_DOUBLE);
      }
  for (int kind = 0; kind < 4; kind++) {
    check_pool(&pool_cases[0], 0, kind, TF_HALF);
    check_pool(&pool_cases[7], 1, kind, TF_HALF);
  }
}

/* ---- cases with known answers, on the CPU and (when present) the GPU ---- */

/* op on the CPU and, with a GPU, on the GPU: both outputs must be want (n values, exactly). */
static void expect_values(const gc_op *o, const gc_arg *args, int n_args, const float *want, int64_t n,
                          const char *label) {
  for (int k = 0; k < (!gc_gpu_missing() ? 2 : 1); k++) {
    TF_Tensor *t = run_on(k ? GC_GPU : GC_CPU, o, args, n_args, label);
    if (TF_TensorType(t) != TF_FLOAT || TF_TensorElementCount(t) != n)
      tfc_test_fail(__FILE__, __LINE__, "%s on %s: dtype %d, %lld elements", label, k ? "GPU" : "CPU",
                    (int)TF_TensorType(t), (long long)TF_TensorElementCount(t));
    const float *v = TF_TensorData(t);
    for (int64_t i = 0; i < n; i++)
      if (v[i] != want[i])
        tfc_test_fail(__FILE__, __LINE__, "%s on %s: element %lld is %g, want %g", label, k ? "GPU" : "CPU",
                      (long long)i, v[i], want[i]);
    TF_DeleteTensor(t);
  }
}

/* MaxPoolGrad sends each window's gradient to the first maximum (row-major) of the window, as
 * TF's CPU kernel; the GPU matches. Overlapping 2x2 windows at stride 1 over a 3x3 image of
 * equal values: window (i, j) starts at (i, j), so gradient k lands there. */
static void max_pool_grad_routes_ties_to_the_first_maximum(void) {
  for (int nchw = 0; nchw < 2; nchw++) {
    win w = {{1, 1, 1, 1}, {1, 1, 1, 1}, {0}, {0}};
    w.ksize[nchw ? 2 : 1] = w.ksize[nchw ? 3 : 2] = 2;
    const char *fmt = nchw ? "NCHW" : "NHWC";
    int64_t xd[4], yd[4];
    act_shape(nchw, 1, 3, 3, 1, xd);
    act_shape(nchw, 1, 2, 2, 1, yd);
    gc_arg args[3] = {GC_FED(floats(xd, 4, (float[]){7, 7, 7, 7, 7, 7, 7, 7, 7})),
                      GC_FED(floats(yd, 4, (float[]){7, 7, 7, 7})), GC_FED(floats(yd, 4, (float[]){1, 2, 3, 4}))};
    gc_op o = win_op("MaxPoolGrad", fmt, "VALID", &w, 1, 0, 0);
    expect_values(&o, args, 3, (float[]){1, 2, 0, 3, 4, 0, 0, 0, 0}, 9, fmt);
    gc_free_args(args, 3);
  }
}

/* SAME with an odd total pads after: a 2x2 window at stride 1 over a 2x2 image pads 0 rows
 * and columns before and 1 after. Max never sees the padding (all values negative), and the
 * average divides by the real elements only. */
static void pooling_pads_after_and_ignores_padding(void) {
  int64_t d[4] = {1, 2, 2, 1};
  win w = {{1, 1, 1, 1}, {1, 2, 2, 1}, {0}, {0}};
  gc_arg args[1] = {GC_FED(floats(d, 4, (float[]){-1, -2, -3, -4}))};
  gc_op mx = win_op("MaxPool", "NHWC", "SAME", &w, 1, 0, 0);
  expect_values(&mx, args, 1, (float[]){-1, -2, -3, -4}, 4, "MaxPool SAME");
  gc_op av = win_op("AvgPool", "NHWC", "SAME", &w, 1, 0, 0);
  expect_values(&av, args, 1, (float[]){-2.5f, -3, -3.5f, -4}, 4, "AvgPool SAME");
  gc_free_args(args, 1);
  /* AvgPoolGrad of ones: element (0,0) is only in window (0,0) (count 4); (1,1) in all four
   * (counts 4, 2, 2, 1). */
  gc_arg gargs[2] = {GC_CONST(gc_ints((int32_t[]){1, 2, 2, 1}, 4)), GC_FED(floats(d, 4, (float[]){1, 1, 1, 1}))};
  gc_op ag = win_op("AvgPoolGrad", "NHWC", "SAME", &w, 1, 0, 0);
  expect_values(&ag, gargs, 2, (float[]){0.25f, 0.75f, 0.75f, 2.25f}, 4, "AvgPoolGrad SAME");
  gc_free_args(gargs, 2);
}

/* A 1x1 image under a 3x3 SAME window: the one output is the one input, for max and average. */
static void pooling_a_single_pixel_under_a_larger_window(void) {
  int64_t d[4] = {1, 1, 1, 2};
  win w = {{1, 1, 1, 1}, {1, 3, 3, 1}, {0}, {0}};
  gc_arg args[1] = {GC_FED(floats(d, 4, (float[]){-3, 5}))};
  gc_op mx = win_op("MaxPool", "NHWC", "SAME", &w, 1, 0, 0);
  expect_values(&mx, args, 1, (float[]){-3, 5}, 2, "MaxPool 1x1");
  gc_op av = win_op("AvgPool", "NHWC", "SAME", &w, 1, 0, 0);
  expect_values(&av, args, 1, (float[]){-3, 5}, 2, "AvgPool 1x1");
  gc_free_args(args, 1);
}

/* ---- errors: the same code and text on both devices ---- */

static void conv_and_pool_report_cpu_errors(void) {
  gc_need_gpu();
  win w = {{1, 1, 1, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, {0}};
  gc_op conv = win_op("Conv2D", "NHWC", "SAME", &w, 0, 0, 0);
  gc_arg cargs[2] = {GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 5, 5, 3}, -1, 1)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){3, 3, 2, 4}, -1, 1))};
  gc_check_error(&conv, cargs, 2, TF_INVALID_ARGUMENT, "input and filter must have the same depth: 3 vs 2", "Conv2D");
  gc_free_args(cargs, 2);
  gc_op bi = win_op("Conv2DBackpropInput", "NHWC", "VALID", &w, 0, 0, 0);
  gc_arg bargs[3] = {GC_FED(gc_ints((int32_t[]){1, 5, 5, 3}, 4)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){3, 3, 3, 4}, -1, 1)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 4, 3, 4}, -1, 1))};
  gc_check_error(&bi, bargs, 3, TF_INVALID_ARGUMENT,
                 "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 4, computed = 3",
                 "Conv2DBackpropInput");
  gc_free_args(bargs, 3);
  gc_op mpg = win_op("MaxPoolGrad", "NHWC", "VALID", &w, 1, 0, 0);
  /* TF checks orig_output's shape first, then grad's: a 3x3 input under a 2x2 window at
   * stride 1 gives a 2x2 output, so each case below has exactly one bad shape. */
  gc_arg margs[3] = {GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 3, 3, 1}, -1, 1)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 2, 2, 1}, -1, 1)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 3, 2, 1}, -1, 1))};
  gc_check_error(&mpg, margs, 3, TF_INVALID_ARGUMENT, "Expected grad shape to be [1,2,2,1], but got [1,3,2,1]",
                 "MaxPoolGrad grad");
  TF_DeleteTensor(margs[1].t);
  margs[1].t = gc_rand(TF_FLOAT, 4, (int64_t[]){1, 2, 3, 1}, -1, 1);
  gc_check_error(&mpg, margs, 3, TF_INVALID_ARGUMENT, "Expected orig_output shape to be [1,2,2,1], but got [1,2,3,1]",
                 "MaxPoolGrad orig_output");
  gc_free_args(margs, 3);
  gc_op apg = win_op("AvgPoolGrad", "NHWC", "VALID", &w, 1, 0, 0);
  gc_arg aargs[2] = {GC_FED(gc_ints((int32_t[]){1, 4, 4}, 3)),
                     GC_FED(gc_rand(TF_FLOAT, 4, (int64_t[]){1, 2, 2, 1}, -1, 1))};
  gc_check_error(&apg, aargs, 2, TF_INVALID_ARGUMENT, "out_backprop must be 1-dimensional and 4 elements",
                 "AvgPoolGrad");
  gc_free_args(aargs, 2);
}

/* ---- random ops ---- */

/* Ordered-integer distance between two floats of the same sign class (ulps). */
static int64_t ulps_f(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return llabs((int64_t)ia - (int64_t)ib);
}
static int64_t ulps_d(double a, double b) {
  int64_t ia, ib;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  return ia > ib ? ia - ib : ib - ia;
}
static int64_t ulps_h(uint16_t a, uint16_t b) {
  int32_t ia = a & 0x8000 ? -(int32_t)(a & 0x7fff) : (int32_t)a, ib = b & 0x8000 ? -(int32_t)(b & 0x7fff) : (int32_t)b;
  return llabs((int64_t)ia - (int64_t)ib);
}

/* op with dtype dt and seeds on both devices, in one session; two runs; max_ulps 0: bytes
 * identical. */
static void check_random(const char *op, TF_DataType dt, int64_t seed, int64_t seed2, const int32_t *shape, int rank,
                         int max_ulps) {
  char label[96];
  snprintf(label, sizeof label, "%s dtype %d seeds (%lld, %lld)", op, (int)dt, (long long)seed, (long long)seed2);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int is_int = strcmp(op, "RandomUniformInt") == 0;
  TF_Output feeds[3] = {gc_unary(g, "Placeholder", "shape", (TF_Output){NULL, 0}, "dtype", TF_INT32, s, label)};
  TF_Tensor *vals[3] = {gc_ints(shape, rank)};
  int n_in = 1;
  if (is_int) {
    int64_t bounds[2] = {-7, dt == TF_INT64 ? 3000000000000ll : 1000003};
    for (int i = 0; i < 2; i++) {
      feeds[1 + i] = gc_unary(g, "Placeholder", i ? "hi" : "lo", (TF_Output){NULL, 0}, "dtype", dt, s, label);
      int32_t b32 = (int32_t)bounds[i];
      vals[1 + i] = dt == TF_INT64 ? gc_int64s(&bounds[i], -1) : gc_ints(&b32, -1);
    }
    n_in = 3;
  }
  gc_op o = {.type = op,
             .attrs = {GC_TYPE(is_int ? "Tout" : "dtype", dt), GC_INT("seed", seed), GC_INT("seed2", seed2)}};
  TF_Output outs[2] = {{gc_add_op(g, &o, "on_gpu", GC_GPU, feeds, n_in, s, 0, label), 0},
                       {gc_add_op(g, &o, "on_cpu", GC_CPU, feeds, n_in, s, 0, label), 0}};
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  for (int run = 0; run < 2; run++) {
    TF_Tensor *out[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, feeds, vals, n_in, outs, out, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s run %d: %s", label, run, TF_Message(s));
    int64_t n = TF_TensorElementCount(out[1]);
    EXPECT_EQ(TF_TensorElementCount(out[0]), n);
    EXPECT_EQ(TF_TensorType(out[0]), dt);
    for (int d = 0; d < rank; d++) EXPECT_EQ(TF_Dim(out[0], d), shape[d]);
    const char *a = TF_TensorData(out[0]), *b = TF_TensorData(out[1]);
    size_t es = TF_DataTypeSize(dt);
    for (int64_t i = 0; i < n; i++) {
      int64_t du = 0;
      if (max_ulps == 0) du = memcmp(a + i * es, b + i * es, es) != 0;
      else if (dt == TF_FLOAT) du = ulps_f(((const float *)a)[i], ((const float *)b)[i]);
      else if (dt == TF_DOUBLE) du = ulps_d(((const double *)a)[i], ((const double *)b)[i]);
      else du = ulps_h(((const uint16_t *)a)[i], ((const uint16_t *)b)[i]);
      if (du > max_ulps)
        tfc_test_fail(__FILE__, __LINE__, "%s run %d: element %lld of %lld differs by %lld", label, run, (long long)i,
                      (long long)n, (long long)du);
    }
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
  }
  for (int i = 0; i < n_in; i++) TF_DeleteTensor(vals[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const int32_t shapes[][3] = {{1, 1, 1}, {7, 1, 1}, {3, 5, 2}, {1025, 3, 1}};
static const int64_t seeds[][2] = {{1, 2}, {87654321, 0}, {0, 42}, {-5, 1ll << 40}};

static void random_uniform_and_int_equal_cpu_bit_for_bit(void) {
  gc_need_gpu();
  for (int sh = 0; sh < 4; sh++)
    for (int sd = 0; sd < 4; sd++) {
      int rank = sh == 0 ? 1 : sh == 3 ? 2 : 3;
      check_random("RandomUniform", TF_FLOAT, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 0);
      check_random("RandomUniform", TF_DOUBLE, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 0);
      check_random("RandomUniform", TF_HALF, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 0);
      check_random("RandomUniformInt", TF_INT32, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 0);
      check_random("RandomUniformInt", TF_INT64, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 0);
    }
}

static void random_normals_match_cpu_within_a_few_ulps(void) {
  gc_need_gpu();
  for (int sh = 0; sh < 4; sh++)
    for (int sd = 0; sd < 4; sd++) {
      int rank = sh == 0 ? 1 : sh == 3 ? 2 : 3;
      /* float: log, sin and cos correctly rounded here, glibc's within an ulp; a sample near
       * a zero of sin amplifies that to a few ulps of the (small) result */
      check_random("RandomStandardNormal", TF_FLOAT, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
      check_random("RandomStandardNormal", TF_HALF, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 1);
      check_random("TruncatedNormal", TF_FLOAT, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
      check_random("TruncatedNormal", TF_HALF, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 1);
      /* double: CUDA's log and sincos are within 2 ulp of glibc's */
      check_random("RandomStandardNormal", TF_DOUBLE, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
      check_random("TruncatedNormal", TF_DOUBLE, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
    }
}

static void random_uniform_int_rejects_empty_range_on_gpu(void) {
  gc_need_gpu();
  int32_t five = 5;
  gc_op o = {.type = "RandomUniformInt", .attrs = {GC_TYPE("Tout", TF_INT32)}};
  gc_arg args[3] = {GC_FED(gc_ints((int32_t[]){4}, 1)), GC_FED(gc_ints(&five, -1)), GC_FED(gc_ints(&five, -1))};
  gc_check_error(&o, args, 3, TF_INVALID_ARGUMENT, "Need minval < maxval: 5 >= 5", "RandomUniformInt");
  gc_free_args(args, 3);
}

/* Multinomial with the same seeds on both devices draws the same classes: float and double
 * logits, int32 and int64 samples, an odd sample count, a wide row, infinite and NaN logits
 * (skipped) and a row of nothing but -inf (every sample is `classes`, as on the CPU), no
 * samples at all; a vector of logits fails alike. */
static void multinomial_matches_cpu(void) {
  gc_need_gpu();
  static const struct {
    TF_DataType dt, out;
    int64_t batch, classes;
    int32_t samples;
    int64_t seed, seed2;
  } cases[] = {
      {TF_FLOAT, TF_INT64, 3, 5, 7, 1, 2},       {TF_DOUBLE, TF_INT64, 3, 5, 7, 1, 2},
      {TF_FLOAT, TF_INT32, 1, 1000, 1025, 87654321, 0}, {TF_FLOAT, TF_INT64, 4, 3, 0, 0, 42},
      {TF_DOUBLE, TF_INT32, 17, 2, 33, -5, 1ll << 40},
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
    gc_arg args[2] = {gc_fed(cases[i].dt, 2, (int64_t[]){cases[i].batch, cases[i].classes}, -3, 3),
                      gc_konst(&cases[i].samples, -1)};
    char label[96];
    snprintf(label, sizeof label, "Multinomial case %d", i);
    gc_check(&(gc_op){.type = "Multinomial",
                      .attrs = {GC_TYPE("output_dtype", cases[i].out), GC_INT("seed", cases[i].seed),
                                GC_INT("seed2", cases[i].seed2)}},
             args, 2, 0, label);
    gc_free_args(args, 2);
  }
  TF_Tensor *odd = TF_AllocateTensor(TF_FLOAT, (int64_t[]){3, 4}, 2, 12 * sizeof(float));
  float *v = TF_TensorData(odd);
  const float inf = 1.0f / 0.0f;
  const float vals[12] = {0.5f, -inf, 1.0f, inf, -inf, -inf, -inf, -inf, 0.0f / 0.0f, 2.0f, -1.0f, 0.25f};
  memcpy(v, vals, sizeof vals);
  int32_t ns = 9;
  gc_arg args[2] = {GC_FED(odd), gc_konst(&ns, -1)};
  gc_check(&(gc_op){.type = "Multinomial", .attrs = {GC_INT("seed", 3), GC_INT("seed2", 4)}}, args, 2, 0,
           "Multinomial with infinities and NaN");
  gc_free_args(args, 2);
  gc_arg bad[2] = {gc_fed(TF_FLOAT, 1, (int64_t[]){4}, -1, 1), gc_konst(&ns, -1)};
  gc_check_error(&(gc_op){.type = "Multinomial"}, bad, 2, TF_INVALID_ARGUMENT, "logits should be a matrix",
                 "Multinomial of a vector");
  gc_free_args(bad, 2);
}

/* The stateless ops from the same seeds on both devices, and their V2 forms from the same key
 * and counter: the uniforms and the full-range integers bit for bit, the normals within the
 * stateful ones' few ulps (gc_compare's relative tolerance); bad seeds fail alike. */
static void stateless_random_matches_cpu(void) {
  gc_need_gpu();
  static const int32_t shape[] = {1025, 3}, seed[] = {87654321, -5}, bad_seed[] = {1, 2, 3};
  static const struct {
    const char *op;
    TF_DataType dt;
    double tol;
  } cases[] = {{"StatelessRandomUniform", TF_FLOAT, 0},   {"StatelessRandomUniform", TF_DOUBLE, 0},
               {"StatelessRandomNormal", TF_FLOAT, 1e-6}, {"StatelessRandomNormal", TF_DOUBLE, 1e-14},
               {"StatelessTruncatedNormal", TF_FLOAT, 1e-6}, {"StatelessRandomUniformInt", TF_INT64, 0},
               {"StatelessRandomUniformFullInt", TF_INT64, 0}, {"StatelessRandomUniformFullInt", TF_INT32, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int is_int = strcmp(cases[k].op, "StatelessRandomUniformInt") == 0;
    int64_t lo = -7, hi = 3000000000000ll;
    gc_arg a[4] = {gc_konst(shape, 2), gc_konst(seed, 2), GC_CONST(gc_int64s(&lo, -1)), GC_CONST(gc_int64s(&hi, -1))};
    gc_op o = {.type = cases[k].op, .attrs = {GC_TYPE("dtype", cases[k].dt)}};
    gc_check(&o, a, is_int ? 4 : 2, cases[k].tol, cases[k].op);
    gc_free_args(a, 4);
  }
  /* V2 from a key and a counter: the same uniforms on both devices. */
  uint64_t key = 0x1234567890abcdefull, counter[2] = {7, 9};
  TF_Tensor *kt = TF_AllocateTensor(TF_UINT64, (int64_t[]){1}, 1, 8);
  TF_Tensor *ct = TF_AllocateTensor(TF_UINT64, (int64_t[]){2}, 1, 16);
  memcpy(TF_TensorData(kt), &key, 8);
  memcpy(TF_TensorData(ct), counter, 16);
  int32_t alg = 1;
  gc_arg v2[4] = {gc_konst(shape, 2), GC_CONST(kt), GC_CONST(ct), gc_konst(&alg, -1)};
  gc_check(&(gc_op){.type = "StatelessRandomUniformV2", .attrs = {GC_TYPE("dtype", TF_FLOAT)}}, v2, 4, 0,
           "StatelessRandomUniformV2");
  gc_check(&(gc_op){.type = "StatelessRandomUniformFullIntV2", .attrs = {GC_TYPE("dtype", TF_INT64)}}, v2, 4, 0,
           "StatelessRandomUniformFullIntV2");
  gc_free_args(v2, 4);
  gc_arg bad[2] = {gc_konst(shape, 2), GC_FED(gc_ints(bad_seed, 3))};
  gc_check_error(&(gc_op){.type = "StatelessRandomUniform", .attrs = {GC_TYPE("dtype", TF_FLOAT)}}, bad, 2,
                 TF_INVALID_ARGUMENT, "seed must have shape [2], not [3]", "StatelessRandomUniform bad seed");
  gc_free_args(bad, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(conv2d_matches_cpu_in_both_layouts),
    TFC_TEST(conv2d_backprop_input_matches_cpu),
    TFC_TEST(conv2d_backprop_filter_matches_cpu),
    TFC_TEST(pooling_matches_cpu_forward_and_backward),
    TFC_TEST(max_pool_grad_routes_ties_to_the_first_maximum),
    TFC_TEST(pooling_pads_after_and_ignores_padding),
    TFC_TEST(pooling_a_single_pixel_under_a_larger_window),
    TFC_TEST(conv_and_pool_report_cpu_errors),
    TFC_TEST(random_uniform_and_int_equal_cpu_bit_for_bit),
    TFC_TEST(random_normals_match_cpu_within_a_few_ulps),
    TFC_TEST(random_uniform_int_rejects_empty_range_on_gpu),
    TFC_TEST(stateless_random_matches_cpu),
    TFC_TEST(multinomial_matches_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
