/*
 * GPU convolution, pooling and random kernels against their CPU kernels, through a session.
 *
 * Each graph feeds CPU placeholders into two copies of the op, one pinned to /device:CPU:0 and
 * one to /device:GPU:0 (no soft placement: a missing GPU kernel is an error), and compares the
 * results. Convolutions cover NHWC and NCHW, strides 1 and 2, dilation 2, SAME with odd total
 * padding (TF's extra element after: the GPU pads explicitly), VALID and EXPLICIT, odd sizes,
 * and all three directions; pooling covers max and average, forward and backward, with odd SAME
 * padding. Half runs as Cast(float -> half) on the CPU, the op on the GPU, Cast back, against
 * the op in float. Random ops with the same seeds must give the CPU's numbers on the first and
 * on the second run: uniform and integer outputs bit for bit, normals within 2 ulp.
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/gpu/gpu_platform.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"

#define CPU "/device:CPU:0"
#define GPU "/device:GPU:0"

static void need_gpu(void) {
  const tfc_gpu_platform *cuda = tfc_gpu_platform_cuda();
  if (!cuda) tfc_test_skip("this build has no CUDA (nvcc was not found): the CUDA kernels are not built");
  if (tfc_gpu_platform_get() != cuda) tfc_test_skip("the GPU platform in use is not CUDA");
  if (cuda->device_count() == 0) tfc_test_skip("no CUDA GPU on this machine");
}

/* ---- graph building ---- */

static TF_Operation *finish(TF_OperationDescription *d, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static TF_Output placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetDevice(d, CPU);
  TF_SetAttrType(d, "dtype", dt);
  return (TF_Output){finish(d, __LINE__), 0};
}

static TF_Output cast(TF_Graph *g, const char *name, TF_Output x, TF_DataType to) {
  TF_OperationDescription *d = TF_NewOperation(g, "Cast", name);
  TF_SetDevice(d, CPU);
  TF_AddInput(d, x);
  TF_SetAttrType(d, "DstT", to);
  return (TF_Output){finish(d, __LINE__), 0};
}

/* The window attrs of a conv or pool op. */
typedef struct win {
  const char *fmt, *padding;
  int64_t strides[4], ksize[4], dil[4]; /* ksize: pooling only; dil[0] == 0: unset */
  int64_t explicit_pads[8];
  int has_explicit;
} win;

static TF_Output win_node(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in, int n,
                          const win *w) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  TF_SetAttrString(d, "data_format", w->fmt, strlen(w->fmt));
  TF_SetAttrString(d, "padding", w->padding, strlen(w->padding));
  TF_SetAttrIntList(d, "strides", w->strides, 4);
  if (strstr(type, "Pool")) TF_SetAttrIntList(d, "ksize", w->ksize, 4);
  if (w->dil[0]) TF_SetAttrIntList(d, "dilations", w->dil, 4);
  if (w->has_explicit) TF_SetAttrIntList(d, "explicit_paddings", w->explicit_pads, 8);
  return (TF_Output){finish(d, __LINE__), 0};
}

/* ---- data and comparison ---- */

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static TF_Tensor *rand_tensor(TF_DataType dt, const int64_t *dims, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * TF_DataTypeSize(dt));
  for (int64_t i = 0; i < n; i++) {
    double v = 2 * uniform() - 1;
    if (dt == TF_FLOAT) ((float *)TF_TensorData(t))[i] = (float)v;
    else ((double *)TF_TensorData(t))[i] = v;
  }
  return t;
}

static TF_Tensor *int_vec(const int32_t *v, int n) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, (int64_t[]){n}, 1, sizeof(int32_t) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(int32_t) * (size_t)n);
  return t;
}

static double value_at(const TF_Tensor *t, int64_t i) {
  return TF_TensorType(t) == TF_FLOAT ? ((const float *)TF_TensorData(t))[i] : ((const double *)TF_TensorData(t))[i];
}

/* gpu ~= cpu: same dtype and shape; |g - c| <= tol * max(1, |c|). */
static void compare(const char *what, const TF_Tensor *gpu, const TF_Tensor *cpu, double tol) {
  EXPECT_EQ(TF_TensorType(gpu), TF_TensorType(cpu));
  if (TF_NumDims(gpu) != TF_NumDims(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: rank %d on GPU, %d on CPU", what, TF_NumDims(gpu), TF_NumDims(cpu));
  for (int d = 0; d < TF_NumDims(cpu); d++)
    if (TF_Dim(gpu, d) != TF_Dim(cpu, d))
      tfc_test_fail(__FILE__, __LINE__, "%s: dim %d is %lld on GPU, %lld on CPU", what, d, (long long)TF_Dim(gpu, d),
                    (long long)TF_Dim(cpu, d));
  int64_t n = TF_TensorElementCount(cpu);
  for (int64_t i = 0; i < n; i++) {
    double g = value_at(gpu, i), c = value_at(cpu, i);
    double scale = fabs(c) > 1 ? fabs(c) : 1;
    if (!(fabs(g - c) <= tol * scale))
      tfc_test_fail(__FILE__, __LINE__, "%s: element %lld of %lld is %.17g on GPU, %.17g on CPU", what, (long long)i,
                    (long long)n, g, c);
  }
}

/* Runs the graph: fetch[0] on the GPU, fetch[1] on the CPU; compares them. */
static void run_and_compare(TF_Graph *g, const char *label, TF_Output *feeds, TF_Tensor **vals, int n_feeds,
                            TF_Output on_gpu, TF_Output on_cpu, double tol) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_Output fetch[2] = {on_gpu, on_cpu};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, feeds, vals, n_feeds, fetch, out, 2, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  compare(label, out[0], out[1], tol);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(out[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteStatus(s);
}

/* ---- convolutions ---- */

typedef struct conv_case {
  int64_t n, h, w, ic, kh, kw, oc;
  int64_t sh, sw, dil;
  const char *padding;
  int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
} conv_case;

/* Odd sizes; SAME with odd totals (8 rows at stride 2 with a 3-row filter pads 0 + 1; a 2x2
 * filter at stride 1 pads 0 + 1 on both dims); VALID; dilation; EXPLICIT asymmetric. */
static const conv_case conv_cases[] = {
    {2, 7, 9, 3, 3, 3, 4, 1, 1, 1, "SAME", {0}},  {2, 8, 7, 3, 3, 3, 5, 2, 2, 1, "SAME", {0}},
    {1, 9, 9, 2, 4, 2, 3, 2, 2, 1, "VALID", {0}}, {2, 10, 10, 3, 3, 3, 2, 1, 1, 2, "SAME", {0}},
    {3, 5, 6, 4, 2, 2, 3, 1, 1, 1, "SAME", {0}},  {1, 6, 5, 2, 3, 3, 2, 1, 2, 1, "EXPLICIT", {1, 2, 3, 0}},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "VALID", {0}},
};
#define N_CONV (int)(sizeof conv_cases / sizeof conv_cases[0])

static win conv_win(const conv_case *cc, int nchw) {
  win w = {nchw ? "NCHW" : "NHWC", cc->padding, {1, 1, 1, 1}, {0}, {1, 1, 1, 1}, {0}, 0};
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  w.strides[hi] = cc->sh, w.strides[wi] = cc->sw;
  w.dil[hi] = w.dil[wi] = cc->dil;
  if (strcmp(cc->padding, "EXPLICIT") == 0) {
    w.has_explicit = 1;
    w.explicit_pads[2 * hi] = cc->pads[0], w.explicit_pads[2 * hi + 1] = cc->pads[1];
    w.explicit_pads[2 * wi] = cc->pads[2], w.explicit_pads[2 * wi + 1] = cc->pads[3];
  }
  return w;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t dil, const char *padding, int64_t pb, int64_t pa) {
  int64_t eff = (k - 1) * dil + 1;
  if (strcmp(padding, "SAME") == 0) return (in + s - 1) / s;
  if (strcmp(padding, "VALID") == 0) pb = pa = 0;
  return (in + pb + pa - eff + s) / s;
}

static void act_shape(int nchw, int64_t n, int64_t h, int64_t w, int64_t c, int64_t *d) {
  d[0] = n;
  d[nchw ? 1 : 3] = c;
  d[nchw ? 2 : 1] = h;
  d[nchw ? 3 : 2] = w;
}

/* kind: 0 Conv2D, 1 Conv2DBackpropInput, 2 Conv2DBackpropFilter. dt: TF_FLOAT, TF_DOUBLE, or
 * TF_HALF (fed as float, the GPU op in half). */
static void check_conv(const conv_case *cc, int nchw, int kind, TF_DataType dt) {
  TF_DataType feed_dt = dt == TF_HALF ? TF_FLOAT : dt;
  win w = conv_win(cc, nchw);
  int64_t oh = out_size(cc->h, cc->kh, cc->sh, cc->dil, cc->padding, cc->pads[0], cc->pads[1]);
  int64_t ow = out_size(cc->w, cc->kw, cc->sw, cc->dil, cc->padding, cc->pads[2], cc->pads[3]);
  int64_t xd[4], yd[4], fd[4] = {cc->kh, cc->kw, cc->ic, cc->oc};
  act_shape(nchw, cc->n, cc->h, cc->w, cc->ic, xd);
  act_shape(nchw, cc->n, oh, ow, cc->oc, yd);
  TF_Graph *g = TF_NewGraph();
  TF_Output feeds[3];
  TF_Tensor *vals[3];
  const char *op = kind == 0 ? "Conv2D" : kind == 1 ? "Conv2DBackpropInput" : "Conv2DBackpropFilter";
  if (kind == 0) {
    vals[0] = rand_tensor(feed_dt, xd, 4);
    vals[1] = rand_tensor(feed_dt, fd, 4);
  } else if (kind == 1) {
    vals[0] = int_vec((int32_t[]){(int32_t)xd[0], (int32_t)xd[1], (int32_t)xd[2], (int32_t)xd[3]}, 4);
    vals[1] = rand_tensor(feed_dt, fd, 4);
  } else {
    vals[0] = rand_tensor(feed_dt, xd, 4);
    vals[1] = int_vec((int32_t[]){(int32_t)fd[0], (int32_t)fd[1], (int32_t)fd[2], (int32_t)fd[3]}, 4);
  }
  int n_in = kind == 0 ? 2 : 3;
  if (kind) vals[2] = rand_tensor(feed_dt, yd, 4);
  TF_Output gpu_in[3];
  for (int i = 0; i < n_in; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    feeds[i] = placeholder(g, name, TF_TensorType(vals[i]));
    gpu_in[i] = feeds[i];
    if (dt == TF_HALF && TF_TensorType(vals[i]) == TF_FLOAT) {
      snprintf(name, sizeof name, "half%d", i);
      gpu_in[i] = cast(g, name, feeds[i], TF_HALF);
    }
  }
  TF_Output on_cpu = win_node(g, op, "on_cpu", CPU, feeds, n_in, &w);
  TF_Output on_gpu = win_node(g, op, "on_gpu", GPU, gpu_in, n_in, &w);
  if (dt == TF_HALF) on_gpu = cast(g, "back", on_gpu, TF_FLOAT);
  char label[128];
  snprintf(label, sizeof label, "%s %s dtype %d case %d", op, w.fmt, (int)dt, (int)(cc - conv_cases));
  double tol = dt == TF_DOUBLE ? 1e-12 : dt == TF_HALF ? 3e-2 : 1e-4;
  run_and_compare(g, label, feeds, vals, n_in, on_gpu, on_cpu, tol);
  for (int i = 0; i < n_in; i++) TF_DeleteTensor(vals[i]);
  TF_DeleteGraph(g);
}

static void conv2d_matches_cpu_in_both_layouts(void) {
  need_gpu();
  for (int c = 0; c < N_CONV; c++)
    for (int nchw = 0; nchw < 2; nchw++) {
      check_conv(&conv_cases[c], nchw, 0, TF_FLOAT);
      check_conv(&conv_cases[c], nchw, 0, TF_DOUBLE);
    }
  check_conv(&conv_cases[1], 0, 0, TF_HALF);
}

static void conv2d_backprop_input_matches_cpu(void) {
  need_gpu();
  for (int c = 0; c < N_CONV; c++)
    for (int nchw = 0; nchw < 2; nchw++) {
      check_conv(&conv_cases[c], nchw, 1, TF_FLOAT);
      check_conv(&conv_cases[c], nchw, 1, TF_DOUBLE);
    }
  check_conv(&conv_cases[4], 1, 1, TF_HALF);
}

static void conv2d_backprop_filter_matches_cpu(void) {
  need_gpu();
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
} pool_case;

static const pool_case pool_cases[] = {
    {2, 8, 7, 3, 3, 3, 2, 2, "SAME"}, /* odd total padding on H: TF pads 0 before, 1 after */
    {1, 6, 6, 2, 2, 2, 2, 2, "VALID"}, {2, 5, 5, 4, 3, 3, 1, 1, "SAME"},
    {1, 5, 5, 1, 3, 2, 2, 2, "SAME"},  {1, 9, 4, 2, 4, 4, 3, 1, "VALID"},
};
#define N_POOL (int)(sizeof pool_cases / sizeof pool_cases[0])

/* kind: 0 MaxPool, 1 AvgPool, 2 MaxPoolGrad, 3 AvgPoolGrad. */
static void check_pool(const pool_case *pc, int nchw, int kind, TF_DataType dt) {
  win w = {nchw ? "NCHW" : "NHWC", pc->padding, {1, 1, 1, 1}, {1, 1, 1, 1}, {0}, {0}, 0};
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  w.strides[hi] = pc->sh, w.strides[wi] = pc->sw, w.ksize[hi] = pc->kh, w.ksize[wi] = pc->kw;
  int64_t oh = out_size(pc->h, pc->kh, pc->sh, 1, pc->padding, 0, 0);
  int64_t ow = out_size(pc->w, pc->kw, pc->sw, 1, pc->padding, 0, 0);
  int64_t xd[4], yd[4];
  act_shape(nchw, pc->n, pc->h, pc->w, pc->c, xd);
  act_shape(nchw, pc->n, oh, ow, pc->c, yd);
  static const char *ops[] = {"MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad"};
  TF_Graph *g = TF_NewGraph();
  TF_Output feeds[2], cpu_in[3], gpu_in[3];
  TF_Tensor *vals[2];
  int n_feeds = 2, n_in;
  if (kind < 2) {
    vals[0] = rand_tensor(dt, xd, 4);
    n_feeds = 1;
    feeds[0] = cpu_in[0] = gpu_in[0] = placeholder(g, "x", dt);
    n_in = 1;
  } else if (kind == 2) {
    /* (orig_input, orig_output, grad): orig_output is MaxPool's on the CPU. */
    vals[0] = rand_tensor(dt, xd, 4);
    vals[1] = rand_tensor(dt, yd, 4);
    feeds[0] = placeholder(g, "x", dt);
    feeds[1] = placeholder(g, "dy", dt);
    TF_Output y = win_node(g, "MaxPool", "y", CPU, feeds, 1, &w);
    cpu_in[0] = gpu_in[0] = feeds[0];
    cpu_in[1] = gpu_in[1] = y;
    cpu_in[2] = gpu_in[2] = feeds[1];
    n_in = 3;
  } else {
    vals[0] = int_vec((int32_t[]){(int32_t)xd[0], (int32_t)xd[1], (int32_t)xd[2], (int32_t)xd[3]}, 4);
    vals[1] = rand_tensor(dt, yd, 4);
    feeds[0] = placeholder(g, "shape", TF_INT32);
    feeds[1] = placeholder(g, "dy", dt);
    cpu_in[0] = gpu_in[0] = feeds[0];
    cpu_in[1] = gpu_in[1] = feeds[1];
    n_in = 2;
  }
  TF_Output on_cpu = win_node(g, ops[kind], "on_cpu", CPU, cpu_in, n_in, &w);
  TF_Output on_gpu = win_node(g, ops[kind], "on_gpu", GPU, gpu_in, n_in, &w);
  char label[128];
  snprintf(label, sizeof label, "%s %s dtype %d case %d", ops[kind], w.fmt, (int)dt, (int)(pc - pool_cases));
  run_and_compare(g, label, feeds, vals, n_feeds, on_gpu, on_cpu, dt == TF_DOUBLE ? 1e-12 : 1e-5);
  for (int i = 0; i < n_feeds; i++) TF_DeleteTensor(vals[i]);
  TF_DeleteGraph(g);
}

static void pooling_matches_cpu_forward_and_backward(void) {
  need_gpu();
  for (int p = 0; p < N_POOL; p++)
    for (int nchw = 0; nchw < 2; nchw++)
      for (int kind = 0; kind < 4; kind++) {
        check_pool(&pool_cases[p], nchw, kind, TF_FLOAT);
        check_pool(&pool_cases[p], nchw, kind, TF_DOUBLE);
      }
}

/* ---- errors ---- */

static TF_Code run_gpu_conv_error(char *msg, size_t n) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Tensor *vals[2] = {rand_tensor(TF_FLOAT, (int64_t[]){1, 5, 5, 3}, 4),
                        rand_tensor(TF_FLOAT, (int64_t[]){3, 3, 2, 4}, 4)};
  TF_Output feeds[2] = {placeholder(g, "x", TF_FLOAT), placeholder(g, "f", TF_FLOAT)};
  win w = {"NHWC", "SAME", {1, 1, 1, 1}, {0}, {1, 1, 1, 1}, {0}, 0};
  TF_Output z = win_node(g, "Conv2D", "z", GPU, feeds, 2, &w);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, feeds, vals, 2, &z, &out, 1, NULL, 0, NULL, s);
  TF_Code code = TF_GetCode(s);
  snprintf(msg, n, "%s", TF_Message(s));
  if (out) TF_DeleteTensor(out);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(vals[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return code;
}

static void gpu_conv_reports_cpu_errors(void) {
  need_gpu();
  char msg[512];
  EXPECT_EQ(run_gpu_conv_error(msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "input and filter must have the same depth: 3 vs 2");
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

/* op with dtype dt and seeds on both devices; two runs; max_ulps 0: bytes identical. */
static void check_random(const char *op, TF_DataType dt, int64_t seed, int64_t seed2, const int32_t *shape, int rank,
                         int max_ulps) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int is_int = strcmp(op, "RandomUniformInt") == 0;
  TF_Output feeds[3] = {placeholder(g, "shape", TF_INT32)};
  TF_Tensor *vals[3] = {int_vec(shape, rank)};
  int n_in = 1;
  if (is_int) {
    feeds[1] = placeholder(g, "lo", dt);
    feeds[2] = placeholder(g, "hi", dt);
    int64_t lo = -7, hi = dt == TF_INT64 ? 3000000000000ll : 1000003;
    for (int i = 0; i < 2; i++) {
      vals[1 + i] = TF_AllocateTensor(dt, NULL, 0, TF_DataTypeSize(dt));
      int64_t v = i ? hi : lo;
      if (dt == TF_INT64) memcpy(TF_TensorData(vals[1 + i]), &v, 8);
      else *(int32_t *)TF_TensorData(vals[1 + i]) = (int32_t)v;
    }
    n_in = 3;
  }
  TF_Output outs[2];
  for (int k = 0; k < 2; k++) {
    TF_OperationDescription *d = TF_NewOperation(g, op, k ? "on_cpu" : "on_gpu");
    TF_SetDevice(d, k ? CPU : GPU);
    for (int i = 0; i < n_in; i++) TF_AddInput(d, feeds[i]);
    TF_SetAttrType(d, is_int ? "Tout" : "dtype", dt);
    TF_SetAttrInt(d, "seed", seed);
    TF_SetAttrInt(d, "seed2", seed2);
    outs[k] = (TF_Output){finish(d, __LINE__), 0};
  }
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", op, TF_Message(s));
  for (int run = 0; run < 2; run++) {
    TF_Tensor *out[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, feeds, vals, n_in, outs, out, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s run %d: %s", op, run, TF_Message(s));
    int64_t n = TF_TensorElementCount(out[1]);
    EXPECT_EQ(TF_TensorElementCount(out[0]), n);
    EXPECT_EQ(TF_TensorType(out[0]), dt);
    for (int d = 0; d < rank; d++) EXPECT_EQ(TF_Dim(out[0], d), shape[d]);
    const char *a = TF_TensorData(out[0]), *b = TF_TensorData(out[1]);
    for (int64_t i = 0; i < n; i++) {
      int64_t du = 0;
      size_t es = TF_DataTypeSize(dt);
      if (max_ulps == 0) du = memcmp(a + i * es, b + i * es, es) != 0;
      else if (dt == TF_FLOAT) du = ulps_f(((const float *)a)[i], ((const float *)b)[i]);
      else if (dt == TF_DOUBLE) du = ulps_d(((const double *)a)[i], ((const double *)b)[i]);
      else du = ulps_h(((const uint16_t *)a)[i], ((const uint16_t *)b)[i]);
      if (du > max_ulps)
        tfc_test_fail(__FILE__, __LINE__, "%s dtype %d seeds (%lld, %lld) run %d: element %lld of %lld differs by %lld",
                      op, (int)dt, (long long)seed, (long long)seed2, run, (long long)i, (long long)n, (long long)du);
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
  need_gpu();
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

static void random_normals_match_cpu_within_two_ulps(void) {
  need_gpu();
  for (int sh = 0; sh < 4; sh++)
    for (int sd = 0; sd < 4; sd++) {
      int rank = sh == 0 ? 1 : sh == 3 ? 2 : 3;
      check_random("RandomStandardNormal", TF_FLOAT, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 2);
      check_random("RandomStandardNormal", TF_HALF, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 1);
      check_random("TruncatedNormal", TF_FLOAT, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 2);
      check_random("TruncatedNormal", TF_HALF, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 1);
      /* double: CUDA's log and sincos are within 2 ulp of glibc's */
      check_random("RandomStandardNormal", TF_DOUBLE, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
      check_random("TruncatedNormal", TF_DOUBLE, seeds[sd][0], seeds[sd][1], shapes[sh], rank, 4);
    }
}

static void random_uniform_int_rejects_empty_range_on_gpu(void) {
  need_gpu();
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output feeds[3] = {placeholder(g, "shape", TF_INT32), placeholder(g, "lo", TF_INT32),
                        placeholder(g, "hi", TF_INT32)};
  TF_Tensor *vals[3] = {int_vec((int32_t[]){4}, 1), int_vec((int32_t[]){5}, 1), int_vec((int32_t[]){5}, 1)};
  /* scalars, not vectors */
  for (int i = 1; i < 3; i++) {
    TF_DeleteTensor(vals[i]);
    vals[i] = TF_AllocateTensor(TF_INT32, NULL, 0, 4);
    *(int32_t *)TF_TensorData(vals[i]) = 5;
  }
  TF_OperationDescription *d = TF_NewOperation(g, "RandomUniformInt", "r");
  TF_SetDevice(d, GPU);
  for (int i = 0; i < 3; i++) TF_AddInput(d, feeds[i]);
  TF_Output r = {finish(d, __LINE__), 0};
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, feeds, vals, 3, &r, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Need minval < maxval: 5 >= 5");
  if (out) TF_DeleteTensor(out);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(vals[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(conv2d_matches_cpu_in_both_layouts),
    TFC_TEST(conv2d_backprop_input_matches_cpu),
    TFC_TEST(conv2d_backprop_filter_matches_cpu),
    TFC_TEST(pooling_matches_cpu_forward_and_backward),
    TFC_TEST(gpu_conv_reports_cpu_errors),
    TFC_TEST(random_uniform_and_int_equal_cpu_bit_for_bit),
    TFC_TEST(random_normals_match_cpu_within_two_ulps),
    TFC_TEST(random_uniform_int_rejects_empty_range_on_gpu),
    {0},
};

TFC_TEST_MAIN(tests)
