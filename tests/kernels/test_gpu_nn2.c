/*
 * GPU batch norm and depthwise convolution kernels against their CPU kernels, through a
 * session (gpu_compare.h: one copy on /device:CPU:0, one on /device:GPU:0, the same inputs).
 *
 * Batch norm. Each case runs FusedBatchNorm / V2 / V3 and, on each device, the matching
 * FusedBatchNormGrad* fed by that device's own forward (its reserve spaces when training, the
 * forward's mean and variance inputs when not, as TF's gradient function builds it): NHWC,
 * NCHW, NDHWC and NCDHW, odd shapes, a single value per channel (no Bessel correction), long
 * channels (many values per thread), an empty batch, no channels, training with and without
 * exponential_avg_factor and inference, float and half x. Every output must match the CPU's,
 * except reserve_space_2 of a training forward: the GPU keeps TF's inverse standard deviation
 * there, which must equal 1/sqrt(CPU's variance + epsilon). A case with known values checks
 * both devices exactly, and bad input must fail on both with the CPU kernel's code and text.
 *
 * Depthwise convolutions. DepthwiseConv2dNative and its two backprops over odd sizes, SAME
 * with odd total padding, VALID, EXPLICIT, strides, dilations, multipliers 1 to 3, batch 0 and
 * a 1x1 image under a 3x3 filter, in float, double and half. NCHW runs only on the GPU (TF's
 * CPU kernel refuses it, as the CPU here does): its CPU reference is the NHWC op between
 * Transposes.
 *
 * Without a CUDA build or a GPU the comparisons skip with the reason; with TFC_GC_SELF_TEST=1
 * their "GPU" copies run on the CPU (gpu_compare.h), which checks these graphs and their CPU
 * half here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/conv_plan.h"
#include "gpu_compare.c"

/* Runs g with in's feeds and fetches n outputs into out (new tensors), failing on an error. */
static void run_fetch(TF_Graph *g, const gc_inputs *in, const TF_Output *fetch, int n, TF_Tensor **out,
                      const char *label) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_SessionRun(sess, NULL, in->feeds, in->vals, in->n_feeds, fetch, out, n, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
}

/* o, or o cast to float on the CPU when it is half. */
static TF_Output as_float(TF_Graph *g, TF_Output o, const char *name, TF_Status *s, const char *label) {
  if (TF_OperationOutputType(o) != TF_HALF) return o;
  return gc_unary(g, "Cast", name, o, "DstT", TF_FLOAT, s, label);
}

/* ---- batch norm ---- */

typedef struct bn_case {
  int rank;
  int64_t dims[5];
  const char *fmt;
} bn_case;

static const bn_case bn_cases[] = {
    {4, {2, 5, 3, 4}, "NHWC"},     {4, {2, 3, 5, 7}, "NCHW"},
    {4, {1, 1, 1, 3}, "NHWC"},     /* one value per channel: the variance is not corrected */
    {4, {3, 5, 1, 1}, "NCHW"},     {4, {4, 17, 19, 8}, "NHWC"}, /* 1292 values per channel */
    {4, {3, 7, 40, 41}, "NCHW"},   /* 4920 values per channel, channels first */
    {4, {0, 3, 3, 2}, "NHWC"},     /* an empty batch: statistics 0 */
    {4, {2, 0, 4, 3}, "NCHW"},     /* no channels */
    {5, {2, 3, 2, 3, 5}, "NDHWC"}, {5, {2, 4, 3, 2, 3}, "NCDHW"},
};
#define N_BN (int)(sizeof bn_cases / sizeof bn_cases[0])

static const char *const bn_fwd_op[4] = {NULL, "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"};
static const char *const bn_grad_op[4] = {NULL, "FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"};
#define BN_EPS 1e-3

static int64_t bn_chans(const bn_case *bc) { return bc->dims[bc->fmt[1] == 'C' ? 1 : bc->rank - 1]; }

/* 1/sqrt(v + epsilon) of each element of a float vector: the GPU's training reserve_space_2
 * from the CPU's (the biased variance). New tensor. */
static TF_Tensor *inv_std(const TF_Tensor *var) {
  int64_t n = TF_TensorElementCount(var);
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    ((float *)TF_TensorData(t))[i] = (float)(1.0 / sqrt((double)((const float *)TF_TensorData(var))[i] + (double)(float)BN_EPS));
  return t;
}

/* The forward `version` (1..3) of case bc and its gradient, on both devices; compares all. */
static void bn_check(const bn_case *bc, int version, int training, double factor, int half) {
  char label[192];
  snprintf(label, sizeof label, "%s %s case %d training %d factor %g half %d", bn_fwd_op[version], bc->fmt,
           (int)(bc - bn_cases), training, factor, half);
  int64_t chans = bn_chans(bc);
  /* TF 1.15's Python feeds empty statistics when training; they are read only with a factor. */
  int64_t stat_n = training && factor == 1.0 ? 0 : chans;
  gc_arg args[6] = {gc_fed(TF_FLOAT, bc->rank, bc->dims, -2, 3),   gc_fed(TF_FLOAT, 1, &chans, 0.5, 1.5),
                    gc_fed(TF_FLOAT, 1, &chans, -1, 1),             gc_fed(TF_FLOAT, 1, &stat_n, -0.5, 0.5),
                    gc_fed(TF_FLOAT, 1, &stat_n, 0.5, 2),           gc_fed(TF_FLOAT, bc->rank, bc->dims, -1, 1)};
  gc_op fwd = {.type = bn_fwd_op[version],
               .half = half,
               .half_args = 1u | 1u << 5, /* x and dy; the statistics stay float */
               .attrs = {GC_FLOAT("epsilon", BN_EPS), GC_BOOL("is_training", training), GC_STR("data_format", bc->fmt),
                         GC_FLOAT("exponential_avg_factor", factor)}};
  gc_op grad = {.type = bn_grad_op[version],
                .attrs = {GC_FLOAT("epsilon", BN_EPS), GC_BOOL("is_training", training),
                          GC_STR("data_format", bc->fmt)}};
  /* TF refuses the inference gradient with channels first (bn_errors checks it). */
  int with_grad = training || bc->fmt[1] != 'C';
  int n_fwd = version == 3 ? 6 : 5, n_out = n_fwd + (with_grad ? 5 : 0);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, &fwd, args, 6, &in, s, label);
  TF_Output fetch[2 * 11];
  for (int d = 0; d < 2; d++) {
    const TF_Output *v = d ? in.gpu_in : in.cpu_in;
    const char *dev = d ? gc_gpu_dev() : GC_CPU;
    char name[32];
    snprintf(name, sizeof name, "fwd%d", d);
    TF_Operation *f = gc_add_op(g, &fwd, name, dev, v, 5, s, 0, label);
    for (int k = 0; k < n_fwd; k++) {
      snprintf(name, sizeof name, "fwd%d_%d", d, k);
      fetch[d * n_out + k] = as_float(g, (TF_Output){f, k}, name, s, label);
    }
    if (!with_grad) continue;
    TF_Output gin[6] = {v[5], v[0], v[1], training ? (TF_Output){f, 3} : v[3], training ? (TF_Output){f, 4} : v[4],
                        {f, 5}};
    snprintf(name, sizeof name, "grad%d", d);
    TF_Operation *gr = gc_add_op(g, &grad, name, dev, gin, version == 3 ? 6 : 5, s, 0, label);
    for (int k = 0; k < 5; k++) {
      snprintf(name, sizeof name, "grad%d_%d", d, k);
      fetch[d * n_out + n_fwd + k] = as_float(g, (TF_Output){gr, k}, name, s, label);
    }
  }
  TF_Tensor *out[2 * 11] = {0};
  run_fetch(g, &in, fetch, 2 * n_out, out, label);
  /* Half rounds x and dy (2^-11 relative) before the GPU reads them; sums of up to 70 such
   * values stay within the half tolerance. */
  double t_val = half ? 2e-2 : 1e-5, t_dx = half ? 3e-2 : 1e-4;
  for (int k = 0; k < n_out; k++) {
    char what[240];
    int gk = k >= n_fwd ? k - n_fwd : -1; /* the gradient's output, or -1 */
    snprintf(what, sizeof what, "%s %s output %d", label, gk < 0 ? "forward" : "gradient", gk < 0 ? k : gk);
    TF_Tensor *cpu = out[k], *gpu = out[n_out + k];
    if (gk < 0 && k == 4 && training && !gc_self_test()) {
      TF_Tensor *want = inv_std(cpu);
      gc_compare(what, gpu, want, t_val);
      TF_DeleteTensor(want);
    } else {
      gc_compare(what, gpu, cpu, gk == 0 ? t_dx : t_val);
    }
  }
  for (int k = 0; k < 2 * n_out; k++) TF_DeleteTensor(out[k]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  gc_free_args(args, 6);
}

static void batch_norm_matches_cpu_in_every_layout(void) {
  gc_need_gpu();
  for (int c = 0; c < N_BN; c++)
    for (int v = bn_cases[c].rank == 5 ? 3 : 1; v <= 3; v++) {
      bn_check(&bn_cases[c], v, 1, 1.0, 0);
      bn_check(&bn_cases[c], v, 1, 0.25, 0);
      bn_check(&bn_cases[c], v, 0, 1.0, 0);
    }
}

static void batch_norm_half_matches_cpu(void) {
  gc_need_gpu();
  static const int cases[] = {0, 1, 2, 8, 9};
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int v = bn_cases[cases[i]].rank == 5 ? 3 : 2; v <= 3; v++) {
      bn_check(&bn_cases[cases[i]], v, 1, 1.0, 1);
      bn_check(&bn_cases[cases[i]], v, 1, 0.5, 1);
      bn_check(&bn_cases[cases[i]], v, 0, 1.0, 1);
    }
}

/* x NHWC [1, 1, 2, 2]: channel 0 holds {1, 3}, channel 1 {2, 6}; means 2 and 4, biased
 * variances 1 and 4 (corrected: 2 and 8); with epsilon 0, y = {-1, -1, 1, 1}. Exact on both
 * devices; reserve_space_2 is the variance on the CPU, its inverse square root on the GPU. */
static void batch_norm_known_values_and_reserve_spaces(void) {
  int64_t xd[4] = {1, 1, 2, 2}, two = 2;
  static const float xv[4] = {1, 2, 3, 6}, ones[2] = {1, 1}, zeros[2] = {0, 0};
  for (int d = 0; d < (gc_gpu_missing() ? 1 : 2); d++) {
    const char *dev = d ? gc_gpu_dev() : GC_CPU;
    gc_arg args[5] = {GC_FED(TF_AllocateTensor(TF_FLOAT, xd, 4, sizeof xv)),
                      GC_FED(TF_AllocateTensor(TF_FLOAT, &two, 1, sizeof ones)),
                      GC_FED(TF_AllocateTensor(TF_FLOAT, &two, 1, sizeof zeros)), GC_FED(gc_rand(TF_FLOAT, 1, &two, 0, 1)),
                      GC_FED(gc_rand(TF_FLOAT, 1, &two, 0, 1))};
    memcpy(TF_TensorData(args[0].t), xv, sizeof xv);
    memcpy(TF_TensorData(args[1].t), ones, sizeof ones);
    memcpy(TF_TensorData(args[2].t), zeros, sizeof zeros);
    gc_op o = {.type = "FusedBatchNormV3",
               .attrs = {GC_FLOAT("epsilon", 0), GC_BOOL("is_training", 1), GC_STR("data_format", "NHWC")}};
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    gc_inputs in;
    gc_make_inputs(g, &o, args, 5, &in, s, dev);
    TF_Operation *op = gc_add_op(g, &o, "bn", dev, in.cpu_in, 5, s, 0, dev);
    TF_Output fetch[5];
    for (int k = 0; k < 5; k++) fetch[k] = (TF_Output){op, k};
    TF_Tensor *out[5] = {0};
    run_fetch(g, &in, fetch, 5, out, dev);
    int gpu_rs = d && !gc_self_test();
    static const float want_y[4] = {-1, -1, 1, 1};
    const float want[5][2] = {{0}, {2, 4}, {2, 8}, {2, 4}, {1, gpu_rs ? 0.5f : 4.0f}};
    for (int k = 0; k < 5; k++) {
      const float *v = TF_TensorData(out[k]);
      int n = k ? 2 : 4;
      EXPECT_EQ(TF_TensorElementCount(out[k]), n);
      for (int i = 0; i < n; i++)
        if (v[i] != (k ? want[k][i] : want_y[i]))
          tfc_test_fail(__FILE__, __LINE__, "on %s: output %d element %d is %g, want %g", dev, k, i, v[i],
                        k ? want[k][i] : want_y[i]);
      TF_DeleteTensor(out[k]);
    }
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
    gc_free_args(args, 5);
  }
}

/* Bad input: the same code and text on both devices (the bad argument is fed, so no shape
 * function sees it before the kernel). */
static void batch_norm_reports_cpu_errors(void) {
  gc_need_gpu();
  int64_t x4[4] = {1, 2, 2, 4}, x3[3] = {2, 3, 4}, m22[2] = {2, 2}, c4 = 4, c3 = 3, c2 = 2;
  gc_op train = {.type = "FusedBatchNormV3", .attrs = {GC_BOOL("is_training", 1)}};
  gc_op infer = {.type = "FusedBatchNormV3", .attrs = {GC_BOOL("is_training", 0)}};
  gc_op blend = {.type = "FusedBatchNormV3",
                 .attrs = {GC_BOOL("is_training", 1), GC_FLOAT("exponential_avg_factor", 0.5)}};
  gc_arg a[5] = {gc_fed(TF_FLOAT, 3, x3, -1, 1), gc_fed(TF_FLOAT, 1, &c4, 1, 2), gc_fed(TF_FLOAT, 1, &c4, -1, 1),
                 gc_fed(TF_FLOAT, 1, &c4, -1, 1), gc_fed(TF_FLOAT, 1, &c4, 1, 2)};
  gc_check_error(&train, a, 5, TF_INVALID_ARGUMENT, "input must be 4 or 5-dimensional[2,3,4]", "x rank 3");
  TF_DeleteTensor(a[0].t);
  a[0].t = gc_rand(TF_FLOAT, 4, x4, -1, 1);
  TF_DeleteTensor(a[1].t);
  a[1].t = gc_rand(TF_FLOAT, 2, m22, 1, 2);
  gc_check_error(&train, a, 5, TF_INVALID_ARGUMENT, "scale must be 1-dimensional[2,2]", "scale rank 2");
  TF_DeleteTensor(a[1].t);
  a[1].t = gc_rand(TF_FLOAT, 1, &c4, 1, 2);
  TF_DeleteTensor(a[2].t);
  a[2].t = gc_rand(TF_FLOAT, 1, &c3, -1, 1);
  gc_check_error(&train, a, 5, TF_INVALID_ARGUMENT,
                 "offset must have the same number of elements as the channels of x, got 3 and 4", "offset size");
  TF_DeleteTensor(a[2].t);
  a[2].t = gc_rand(TF_FLOAT, 1, &c4, -1, 1);
  TF_DeleteTensor(a[3].t);
  a[3].t = gc_rand(TF_FLOAT, 1, &c2, -1, 1);
  gc_check_error(&infer, a, 5, TF_INVALID_ARGUMENT,
                 "When is_training=false, mean must have the same number of elements as the channels of x, got 2 and 4",
                 "inference mean size");
  gc_check_error(&blend, a, 5, TF_INVALID_ARGUMENT,
                 "When exponential_avg_factor != 1, mean must have the same number of elements as the channels of x, "
                 "got 2 and 4",
                 "blended mean size");
  gc_free_args(a, 5);
  /* The gradient: x and y_backprop of different shapes; inference in NCHW. */
  int64_t dy4[4] = {1, 2, 3, 4};
  gc_op grad = {.type = "FusedBatchNormGradV3", .attrs = {GC_BOOL("is_training", 1)}};
  gc_arg ga[6] = {gc_fed(TF_FLOAT, 4, dy4, -1, 1), gc_fed(TF_FLOAT, 4, x4, -1, 1), gc_fed(TF_FLOAT, 1, &c4, 1, 2),
                  gc_fed(TF_FLOAT, 1, &c4, -1, 1),  gc_fed(TF_FLOAT, 1, &c4, 1, 2),  gc_fed(TF_FLOAT, 1, &c4, 0, 1)};
  gc_check_error(&grad, ga, 6, TF_INVALID_ARGUMENT,
                 "x and y_backprop must have same shape, but x has shape [1,2,2,4] and y_backprop has shape [1,2,3,4]",
                 "gradient shapes");
  TF_DeleteTensor(ga[0].t);
  ga[0].t = gc_rand(TF_FLOAT, 4, x4, -1, 1);
  TF_DeleteTensor(ga[2].t);
  ga[2].t = gc_rand(TF_FLOAT, 1, &c2, 1, 2);
  gc_check_error(&grad, ga, 6, TF_INVALID_ARGUMENT,
                 "scale must have the same number of elements as the channels of x, got 2 and 4", "gradient scale");
  /* In NCHW, x [1, 2, 2, 4] has 2 channels: scale (already 2) and the reserve spaces fit. */
  gc_op grad_nchw = {.type = "FusedBatchNormGradV3",
                     .attrs = {GC_BOOL("is_training", 0), GC_STR("data_format", "NCHW")}};
  TF_DeleteTensor(ga[3].t);
  ga[3].t = gc_rand(TF_FLOAT, 1, &c2, -1, 1);
  TF_DeleteTensor(ga[4].t);
  ga[4].t = gc_rand(TF_FLOAT, 1, &c2, 1, 2);
  gc_check_error(&grad_nchw, ga, 6, TF_INVALID_ARGUMENT,
                 "The implementation of FusedBatchNormGrad with is_training=False only support NHWC tensor format for now.",
                 "inference gradient in NCHW");
  gc_free_args(ga, 6);
}

/* ---- depthwise convolutions ---- */

typedef struct dw_case {
  int64_t n, h, w, c, kh, kw, mult, stride, dil;
  const char *padding;
  int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
} dw_case;

/* MobileNet's multiplier 1; SAME with odd totals (8 rows at stride 2 under 3 rows pad 0 + 1; a
 * 2x2 filter at stride 1 pads 0 + 1); VALID; dilation (10 rows under an effective 5 pad 2 + 2;
 * 8 rows at stride 2 under 5 pad 1 + 2); EXPLICIT asymmetric; 1x1 everything; batch 0; a 1x1
 * image under a 3x3 SAME filter; a wider 5x5 at stride 2. */
static const dw_case dw_cases[] = {
    {2, 7, 9, 3, 3, 3, 1, 1, 1, "SAME", {0}},  {2, 8, 7, 3, 3, 3, 2, 2, 1, "SAME", {0}},
    {1, 9, 9, 2, 4, 2, 3, 2, 1, "VALID", {0}}, {2, 10, 10, 3, 3, 3, 1, 1, 2, "SAME", {0}},
    {3, 5, 6, 4, 2, 2, 1, 1, 1, "SAME", {0}},  {1, 6, 5, 2, 3, 3, 2, 1, 1, "EXPLICIT", {1, 2, 3, 0}},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, "VALID", {0}}, {1, 8, 6, 2, 3, 3, 2, 2, 2, "SAME", {0}},
    {0, 5, 5, 2, 3, 3, 2, 1, 1, "SAME", {0}},  {2, 1, 1, 3, 3, 3, 1, 1, 1, "SAME", {0}},
    {1, 12, 11, 8, 5, 5, 1, 2, 1, "SAME", {0}},
};
#define N_DW (int)(sizeof dw_cases / sizeof dw_cases[0])

static const char *const dw_ops[3] = {"DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                                      "DepthwiseConv2dNativeBackpropFilter"};

/* TF's output size along one dim of `in` values under a k-tap filter. */
static int64_t dw_out(const dw_case *dc, int64_t in, int64_t k, int64_t pb, int64_t pa) {
  int64_t eff = (k - 1) * dc->dil + 1;
  if (strcmp(dc->padding, "SAME") == 0) return (in + dc->stride - 1) / dc->stride;
  if (strcmp(dc->padding, "VALID") == 0) pb = pa = 0;
  return (in + pb + pa - eff + dc->stride) / dc->stride;
}

/* The op's attrs in layout nchw; the lists point into the caller's arrays. */
static gc_op dw_op(const dw_case *dc, int kind, int nchw, int64_t st[4], int64_t dil[4], int64_t pads[8], int half) {
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  for (int i = 0; i < 4; i++) st[i] = dil[i] = 1;
  memset(pads, 0, 8 * sizeof pads[0]);
  st[hi] = st[wi] = dc->stride;
  dil[hi] = dil[wi] = dc->dil;
  pads[2 * hi] = dc->pads[0], pads[2 * hi + 1] = dc->pads[1], pads[2 * wi] = dc->pads[2], pads[2 * wi + 1] = dc->pads[3];
  gc_op o = {.type = dw_ops[kind], .half = half};
  int k = 0;
  o.attrs[k++] = (gc_attr)GC_STR("data_format", nchw ? "NCHW" : "NHWC");
  o.attrs[k++] = (gc_attr)GC_STR("padding", dc->padding);
  o.attrs[k++] = (gc_attr)GC_INTS("strides", st, 4);
  o.attrs[k++] = (gc_attr)GC_INTS("dilations", dil, 4);
  if (strcmp(dc->padding, "EXPLICIT") == 0) o.attrs[k++] = (gc_attr)GC_INTS("explicit_paddings", pads, 8);
  return o;
}

/* The shapes of case dc in layout nchw: x, y (forward output) and the filter. */
static void dw_shapes(const dw_case *dc, int nchw, int64_t xd[4], int64_t yd[4], int64_t fd[4]) {
  int64_t oh = dw_out(dc, dc->h, dc->kh, dc->pads[0], dc->pads[1]);
  int64_t ow = dw_out(dc, dc->w, dc->kw, dc->pads[2], dc->pads[3]);
  tfc_window_dims(nchw, dc->n, dc->h, dc->w, dc->c, xd);
  tfc_window_dims(nchw, dc->n, oh, ow, dc->c * dc->mult, yd);
  fd[0] = dc->kh, fd[1] = dc->kw, fd[2] = dc->c, fd[3] = dc->mult;
}

static gc_arg dims_const(const int64_t d[4]) {
  return GC_CONST(gc_ints((int32_t[]){(int32_t)d[0], (int32_t)d[1], (int32_t)d[2], (int32_t)d[3]}, 4));
}

/* kind 0 forward, 1 input backprop, 2 filter backprop; dt TF_FLOAT, TF_DOUBLE or TF_HALF (fed
 * as float, the GPU op in half). NHWC on both devices. */
static void dw_check(const dw_case *dc, int kind, TF_DataType dt) {
  TF_DataType feed = dt == TF_HALF ? TF_FLOAT : dt;
  int64_t xd[4], yd[4], fd[4], st[4], dil[4], pads[8];
  dw_shapes(dc, 0, xd, yd, fd);
  gc_arg args[3];
  args[0] = kind == 1 ? dims_const(xd) : gc_fed(feed, 4, xd, -1, 1);
  args[1] = kind == 2 ? dims_const(fd) : gc_fed(feed, 4, fd, -1, 1);
  int n_in = kind ? 3 : 2;
  if (kind) args[2] = gc_fed(feed, 4, yd, -1, 1);
  gc_op o = dw_op(dc, kind, 0, st, dil, pads, dt == TF_HALF);
  char label[128];
  snprintf(label, sizeof label, "%s NHWC dtype %d case %d", dw_ops[kind], (int)dt, (int)(dc - dw_cases));
  gc_check(&o, args, n_in, dt == TF_DOUBLE ? 1e-12 : dt == TF_HALF ? 3e-2 : 1e-4, label);
  gc_free_args(args, n_in);
}

/* A CPU Transpose of x by perm (an int32 constant owned by the graph). */
static TF_Output transpose(TF_Graph *g, TF_Output x, const int32_t perm[4], const char *name, TF_Status *s,
                           const char *label) {
  char pname[40];
  snprintf(pname, sizeof pname, "%s_perm", name);
  TF_Tensor *p = gc_ints(perm, 4);
  TF_Output pc = gc_const(g, pname, p, s, label);
  TF_DeleteTensor(p);
  TF_OperationDescription *d = TF_NewOperation(g, "Transpose", name);
  TF_SetDevice(d, GC_CPU);
  TF_AddInput(d, x);
  TF_AddInput(d, pc);
  return (TF_Output){gc_finish(d, s, 0, label), 0};
}

static const int32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};

/* The op of kind over NCHW data v (x or filter, and out_backprop, as fed) on dev: natively
 * (the GPU), or as the NHWC op between Transposes (the CPU reference). */
static TF_Output dw_nchw(TF_Graph *g, const dw_case *dc, int kind, const char *dev, int native, const TF_Output *v,
                         const char *pre, TF_Status *s, const char *label, int half) {
  int64_t xd[4], yd[4], fd[4], st[4], dil[4], pads[8];
  dw_shapes(dc, native, xd, yd, fd);
  gc_op o = dw_op(dc, kind, native, st, dil, pads, half);
  char name[40];
  TF_Output in[3];
  for (int i = 0; i < (kind ? 3 : 2); i++) {
    if ((kind == 1 && i == 0) || (kind == 2 && i == 1)) { /* the host sizes, in this copy's layout */
      TF_Tensor *t = gc_ints((int32_t[]){(int32_t)(i ? fd : xd)[0], (int32_t)(i ? fd : xd)[1], (int32_t)(i ? fd : xd)[2],
                                         (int32_t)(i ? fd : xd)[3]},
                             4);
      snprintf(name, sizeof name, "%s_sizes", pre);
      in[i] = gc_const(g, name, t, s, label);
      TF_DeleteTensor(t);
    } else if (i == 1 || native) { /* the filter, or NCHW data the op takes as is */
      in[i] = v[i];
    } else {
      snprintf(name, sizeof name, "%s_in%d", pre, i);
      in[i] = transpose(g, v[i], to_nhwc, name, s, label);
    }
  }
  snprintf(name, sizeof name, "%s_op", pre);
  TF_Output out = {gc_add_op(g, &o, name, dev, in, kind ? 3 : 2, s, 0, label), 0};
  out = as_float(g, out, pre, s, label);
  if (native || kind == 2) return out;
  snprintf(name, sizeof name, "%s_back", pre);
  return transpose(g, out, to_nchw, name, s, label);
}

/* NCHW on the GPU against the NHWC op between Transposes on the CPU. */
static void dw_check_nchw(const dw_case *dc, int kind, TF_DataType dt) {
  TF_DataType feed = dt == TF_HALF ? TF_FLOAT : dt;
  int half = dt == TF_HALF;
  int64_t xd[4], yd[4], fd[4];
  dw_shapes(dc, 1, xd, yd, fd);
  gc_arg args[3] = {kind == 1 ? GC_FED(NULL) : gc_fed(feed, 4, xd, -1, 1), kind == 2 ? GC_FED(NULL) : gc_fed(feed, 4, fd, -1, 1),
                    kind ? gc_fed(feed, 4, yd, -1, 1) : GC_FED(NULL)};
  char label[128];
  snprintf(label, sizeof label, "%s NCHW dtype %d case %d", dw_ops[kind], (int)dt, (int)(dc - dw_cases));
  /* Only the data is fed; the sizes are each copy's constants. */
  gc_arg fed[3];
  int idx[3], n_fed = 0;
  for (int i = 0; i < 3; i++)
    if (args[i].t) idx[n_fed] = i, fed[n_fed++] = args[i];
  gc_op feed_op = {.type = dw_ops[kind], .half = half};
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, &feed_op, fed, n_fed, &in, s, label);
  TF_Output vc[3] = {{0}}, vg[3] = {{0}};
  for (int k = 0; k < n_fed; k++) vc[idx[k]] = in.cpu_in[k], vg[idx[k]] = in.gpu_in[k];
  TF_Output fetch[2] = {dw_nchw(g, dc, kind, gc_gpu_dev(), !gc_self_test(), vg, "gpu", s, label, half),
                        dw_nchw(g, dc, kind, GC_CPU, 0, vc, "cpu", s, label, 0)};
  TF_Tensor *out[2] = {0};
  run_fetch(g, &in, fetch, 2, out, label);
  gc_compare(label, out[0], out[1], dt == TF_DOUBLE ? 1e-12 : half ? 3e-2 : 1e-4);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  gc_free_args(args, 3);
}

static void depthwise_matches_cpu_nhwc(void) {
  gc_need_gpu();
  for (int c = 0; c < N_DW; c++)
    for (int kind = 0; kind < 3; kind++) {
      dw_check(&dw_cases[c], kind, TF_FLOAT);
      dw_check(&dw_cases[c], kind, TF_DOUBLE);
    }
  /* A self-test runs the half copies on the CPU, which has half only for the forward. */
  for (int kind = 0; kind < (gc_self_test() ? 1 : 3); kind++) {
    dw_check(&dw_cases[1], kind, TF_HALF);
    dw_check(&dw_cases[4], kind, TF_HALF);
  }
}

static void depthwise_nchw_matches_cpu_nhwc(void) {
  gc_need_gpu();
  for (int c = 0; c < N_DW; c++)
    for (int kind = 0; kind < 3; kind++) {
      dw_check_nchw(&dw_cases[c], kind, TF_FLOAT);
      dw_check_nchw(&dw_cases[c], kind, TF_DOUBLE);
    }
  for (int kind = 0; kind < (gc_self_test() ? 1 : 3); kind++) dw_check_nchw(&dw_cases[7], kind, TF_HALF);
}

static void depthwise_reports_cpu_errors(void) {
  gc_need_gpu();
  int64_t st[4], dil[4], pads[8];
  dw_case dc = {1, 5, 5, 3, 3, 3, 1, 1, 1, "SAME", {0}};
  gc_op fwd = dw_op(&dc, 0, 0, st, dil, pads, 0);
  int64_t x[4] = {1, 5, 5, 3}, f2[4] = {3, 3, 2, 1}, f3[4] = {3, 3, 3, 1};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 4, x, -1, 1), gc_fed(TF_FLOAT, 4, f2, -1, 1)};
  gc_check_error(&fwd, a, 2, TF_INVALID_ARGUMENT, "input and filter must have the same depth: 3 vs 2", "depth");
  st[2] = 2; /* strides [1, 1, 2, 1] */
  TF_DeleteTensor(a[1].t);
  a[1].t = gc_rand(TF_FLOAT, 4, f3, -1, 1);
  gc_check_error(&fwd, a, 2, TF_INVALID_ARGUMENT,
                 "Current implementation only supports equal length strides in the row and column dimensions.",
                 "unequal strides");
  gc_free_args(a, 2);
  gc_op bi = dw_op(&dc, 1, 0, st, dil, pads, 0);
  int64_t dy_rows[4] = {1, 4, 5, 3}, dy_depth[4] = {1, 5, 5, 4};
  gc_arg b[3] = {GC_FED(gc_ints((int32_t[]){1, 5, 5, 3}, 4)), gc_fed(TF_FLOAT, 4, f3, -1, 1),
                 gc_fed(TF_FLOAT, 4, dy_rows, -1, 1)};
  gc_check_error(&bi, b, 3, TF_INVALID_ARGUMENT,
                 "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: actual = 4, "
                 "computed = 5",
                 "input backprop rows");
  gc_free_args(b, 3);
  gc_op bf = dw_op(&dc, 2, 0, st, dil, pads, 0);
  gc_arg c[3] = {gc_fed(TF_FLOAT, 4, x, -1, 1), GC_FED(gc_ints((int32_t[]){3, 3, 3, 1}, 4)),
                 gc_fed(TF_FLOAT, 4, dy_depth, -1, 1)};
  gc_check_error(&bf, c, 3, TF_INVALID_ARGUMENT,
                 "DepthwiseConv2DBackpropFilter: depth_multiplier * in_depth not equal to out_depth",
                 "filter backprop depth");
  gc_free_args(c, 3);
}

/* TF's CPU kernel refuses NCHW (the GPU runs it: depthwise_nchw_matches_cpu_nhwc). */
static void depthwise_nchw_is_unimplemented_on_cpu(void) {
  int64_t st[4], dil[4], pads[8];
  dw_case dc = {1, 4, 4, 2, 3, 3, 1, 1, 1, "SAME", {0}};
  gc_op o = dw_op(&dc, 0, 1, st, dil, pads, 0);
  int64_t x[4] = {1, 2, 4, 4}, f[4] = {3, 3, 2, 1};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 4, x, -1, 1), gc_fed(TF_FLOAT, 4, f, -1, 1)};
  char msg[1024];
  TF_Code code = gc_run_alone(&o, a, 2, GC_CPU, msg, sizeof msg, "NCHW on CPU");
  EXPECT_EQ(code, TF_UNIMPLEMENTED);
  if (!strstr(msg, "Depthwise convolution on CPU is only supported for NHWC format"))
    tfc_test_fail(__FILE__, __LINE__, "unexpected message: %s", msg);
  gc_free_args(a, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(batch_norm_matches_cpu_in_every_layout),
    TFC_TEST(batch_norm_half_matches_cpu),
    TFC_TEST(batch_norm_known_values_and_reserve_spaces),
    TFC_TEST(batch_norm_reports_cpu_errors),
    TFC_TEST(depthwise_matches_cpu_nhwc),
    TFC_TEST(depthwise_nchw_matches_cpu_nhwc),
    TFC_TEST(depthwise_reports_cpu_errors),
    TFC_TEST(depthwise_nchw_is_unimplemented_on_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
