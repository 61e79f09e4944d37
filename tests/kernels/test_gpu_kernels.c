/*
 * GPU kernel tests: every CUDA kernel (src/device/cuda/) against its CPU kernel on the same
 * inputs, through a session. Each graph feeds CPU placeholders into two copies of the op, one
 * pinned to /device:CPU:0 and one to /device:GPU:0 (no soft placement, so a missing GPU
 * kernel is an error, not a silent CPU run), and compares the two results: shapes exactly,
 * values within a tolerance per type (bool and integers exactly). Sizes cover 0, 1, 7, 1023
 * and 4097 elements and numpy broadcasts ([3,1,5] vs [1,4,1], scalars, rank 4). Half runs as
 * Cast(float -> half) on the CPU, the op on the GPU, Cast back, against the op in float.
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

typedef struct attrs {
  const char *b1, *b2; /* bool attrs set to v1, v2 */
  int v1, v2;
  const char *str_name, *str_val;
  int has_alpha;
  float alpha;
} attrs;

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

static TF_Output node(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in, int n,
                      const attrs *a) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetDevice(d, dev);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  if (a) {
    if (a->b1) TF_SetAttrBool(d, a->b1, (unsigned char)a->v1);
    if (a->b2) TF_SetAttrBool(d, a->b2, (unsigned char)a->v2);
    if (a->str_name) TF_SetAttrString(d, a->str_name, a->str_val, strlen(a->str_val));
    if (a->has_alpha) TF_SetAttrFloat(d, "alpha", a->alpha);
  }
  return (TF_Output){finish(d, __LINE__), 0};
}

/* ---- data ---- */

typedef struct input {
  TF_DataType dt; /* of the fed tensor (float for half tests) */
  int nd;
  int64_t dims[6];
  double lo, hi;
  int integral; /* round values (so comparisons see ties) */
} input;

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static TF_Tensor *make(const input *in) {
  int64_t n = 1;
  for (int i = 0; i < in->nd; i++) n *= in->dims[i];
  TF_Tensor *t = TF_AllocateTensor(in->dt, in->dims, in->nd, (size_t)n * TF_DataTypeSize(in->dt));
  for (int64_t i = 0; i < n; i++) {
    double v = in->lo + (in->hi - in->lo) * uniform();
    if (in->integral) v = round(v);
    switch (in->dt) {
      case TF_FLOAT: ((float *)TF_TensorData(t))[i] = (float)v; break;
      case TF_DOUBLE: ((double *)TF_TensorData(t))[i] = v; break;
      case TF_INT64: ((int64_t *)TF_TensorData(t))[i] = (int64_t)round(v); break;
      case TF_INT32: ((int32_t *)TF_TensorData(t))[i] = (int32_t)round(v); break;
      case TF_BOOL: ((unsigned char *)TF_TensorData(t))[i] = v >= 0.5; break;
      default: tfc_test_fail(__FILE__, __LINE__, "no generator for dtype %d", (int)in->dt);
    }
  }
  return t;
}

static double value_at(const TF_Tensor *t, int64_t i) {
  switch (TF_TensorType(t)) {
    case TF_FLOAT: return ((const float *)TF_TensorData(t))[i];
    case TF_DOUBLE: return ((const double *)TF_TensorData(t))[i];
    case TF_INT64: return (double)((const int64_t *)TF_TensorData(t))[i];
    case TF_INT32: return ((const int32_t *)TF_TensorData(t))[i];
    case TF_BOOL: return ((const unsigned char *)TF_TensorData(t))[i];
    default: tfc_test_fail(__FILE__, __LINE__, "cannot compare dtype %d", (int)TF_TensorType(t));
  }
}

/* gpu ~= cpu: same dtype and shape; |g - c| <= tol * max(1, |c|), NaN where NaN. */
static void compare(const char *what, const TF_Tensor *gpu, const TF_Tensor *cpu, double tol) {
  if (TF_TensorType(gpu) != TF_TensorType(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: dtype %d on GPU, %d on CPU", what, (int)TF_TensorType(gpu),
                  (int)TF_TensorType(cpu));
  if (TF_NumDims(gpu) != TF_NumDims(cpu))
    tfc_test_fail(__FILE__, __LINE__, "%s: rank %d on GPU, %d on CPU", what, TF_NumDims(gpu), TF_NumDims(cpu));
  for (int d = 0; d < TF_NumDims(cpu); d++)
    if (TF_Dim(gpu, d) != TF_Dim(cpu, d))
      tfc_test_fail(__FILE__, __LINE__, "%s: dim %d is %lld on GPU, %lld on CPU", what, d, (long long)TF_Dim(gpu, d),
                    (long long)TF_Dim(cpu, d));
  int64_t n = TF_TensorElementCount(cpu);
  for (int64_t i = 0; i < n; i++) {
    double g = value_at(gpu, i), c = value_at(cpu, i);
    if (isnan(c) && isnan(g)) continue;
    if (isinf(c) && g == c) continue;
    double scale = fabs(c) > 1 ? fabs(c) : 1;
    if (!(fabs(g - c) <= tol * scale))
      tfc_test_fail(__FILE__, __LINE__, "%s: element %lld of %lld is %.17g on GPU, %.17g on CPU", what, (long long)i,
                    (long long)n, g, c);
  }
}

/* ---- one comparison: op(inputs) on the GPU vs the CPU ---- */

typedef struct op_case {
  const char *op;
  TF_DataType dt; /* the op's T (TF_HALF: fed as float, cast on the CPU) */
  int n_in;
  input in[3];
  const attrs *a;
  double tol;
  int host_last; /* the last input is a host-memory int32 (reduction axes): fed as given */
  const int32_t *axes;
  int n_axes;
} op_case;

static void run_case(const op_case *oc, const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output feeds[3], gpu_in[3], cpu_in[3];
  TF_Tensor *vals[3];
  for (int i = 0; i < oc->n_in; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    input in = oc->in[i];
    if (oc->host_last && i == oc->n_in - 1) {
      in.dt = TF_INT32;
      vals[i] = TF_AllocateTensor(TF_INT32, (int64_t[]){oc->n_axes}, 1, sizeof(int32_t) * (size_t)oc->n_axes);
      if (oc->n_axes) memcpy(TF_TensorData(vals[i]), oc->axes, sizeof(int32_t) * (size_t)oc->n_axes);
      feeds[i] = placeholder(g, name, TF_INT32);
      gpu_in[i] = cpu_in[i] = feeds[i];
      continue;
    }
    if (oc->dt == TF_HALF && in.dt == TF_HALF) in.dt = TF_FLOAT;
    vals[i] = make(&in);
    feeds[i] = placeholder(g, name, in.dt);
    cpu_in[i] = feeds[i];
    if (oc->dt == TF_HALF && in.dt == TF_FLOAT) {
      snprintf(name, sizeof name, "half%d", i);
      gpu_in[i] = cast(g, name, feeds[i], TF_HALF);
    } else {
      gpu_in[i] = feeds[i];
    }
  }
  TF_Output on_cpu = node(g, oc->op, "on_cpu", CPU, cpu_in, oc->n_in, oc->a);
  TF_Output on_gpu = node(g, oc->op, "on_gpu", GPU, gpu_in, oc->n_in, oc->a);
  if (oc->dt == TF_HALF && TF_OperationOutputType(on_gpu) == TF_HALF) on_gpu = cast(g, "back", on_gpu, TF_FLOAT);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_Output fetch[2] = {on_gpu, on_cpu};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, feeds, vals, oc->n_in, fetch, out, 2, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  compare(label, out[0], out[1], oc->tol);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(out[i]);
  for (int i = 0; i < oc->n_in; i++) TF_DeleteTensor(vals[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* The op on the GPU alone; returns its error (the caller checks code and message). */
static TF_Code run_gpu_error(const char *op, TF_Tensor *x, TF_Tensor *y, const attrs *a, char *msg, size_t n) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output feeds[2] = {placeholder(g, "x", TF_TensorType(x)), placeholder(g, "y", TF_TensorType(y))};
  TF_Output z = node(g, op, "z", GPU, feeds, 2, a);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Tensor *vals[2] = {x, y}, *out = NULL;
  TF_SessionRun(sess, NULL, feeds, vals, 2, &z, &out, 1, NULL, 0, NULL, s);
  TF_Code code = TF_GetCode(s);
  snprintf(msg, n, "%s", TF_Message(s));
  if (out) TF_DeleteTensor(out);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return code;
}

/* ---- shapes ---- */

typedef struct shape {
  int nd;
  int64_t d[6];
} shape;

static const shape flat_shapes[] = {{1, {1}}, {1, {7}}, {1, {1023}}, {1, {4097}}, {3, {3, 1, 5}}, {0, {0}}, {2, {0, 3}}};
#define N_FLAT (int)(sizeof flat_shapes / sizeof flat_shapes[0])

/* Broadcast pairs: same shape, scalar either side, a row, [3,1,5] vs [1,4,1], rank 4 vs 3. */
static const shape bcast_pairs[][2] = {
    {{1, {1}}, {1, {1}}},           {{1, {7}}, {1, {7}}},
    {{1, {1023}}, {0, {0}}},        {{0, {0}}, {1, {4097}}},
    {{2, {7, 1023}}, {1, {1023}}},  {{2, {7, 1}}, {2, {7, 1023}}},
    {{3, {3, 1, 5}}, {3, {1, 4, 1}}}, {{4, {2, 3, 4, 5}}, {3, {3, 1, 5}}},
    {{2, {0, 3}}, {1, {3}}},
};
#define N_BCAST (int)(sizeof bcast_pairs / sizeof bcast_pairs[0])

static input in_of(TF_DataType dt, shape sh, double lo, double hi, int integral) {
  input in = {dt, sh.nd, {0}, lo, hi, integral};
  memcpy(in.dims, sh.d, sizeof in.dims);
  return in;
}

static double tol_for(TF_DataType dt) { return dt == TF_DOUBLE ? 1e-12 : dt == TF_HALF ? 2e-2 : 2e-5; }

/* ---- element-wise ---- */

typedef struct bin_spec {
  const char *op;
  double xlo, xhi, ylo, yhi;
  int integral;
} bin_spec;

static const bin_spec float_binaries[] = {
    {"Add", -5, 5, -5, 5, 0},        {"AddV2", -5, 5, -5, 5, 0},       {"Sub", -5, 5, -5, 5, 0},
    {"Mul", -5, 5, -5, 5, 0},        {"Div", -5, 5, 0.5, 3, 0},        {"RealDiv", -5, 5, -3, -0.5, 0},
    {"FloorDiv", -9, 9, 0.5, 3, 0},  {"FloorMod", -9, 9, -3, -0.5, 0}, {"Maximum", -2, 2, -2, 2, 1},
    {"Minimum", -2, 2, -2, 2, 1},    {"Pow", 0.1, 3, -2, 2, 0},        {"SquaredDifference", -5, 5, -5, 5, 0},
    {"Less", -2, 2, -2, 2, 1},       {"LessEqual", -2, 2, -2, 2, 1},   {"Greater", -2, 2, -2, 2, 1},
    {"GreaterEqual", -2, 2, -2, 2, 1}, {"Equal", -2, 2, -2, 2, 1},    {"NotEqual", -2, 2, -2, 2, 1},
};

static void check_binaries(const bin_spec *specs, int n_specs, TF_DataType dt) {
  for (int k = 0; k < n_specs; k++)
    for (int p = 0; p < N_BCAST; p++) {
      const bin_spec *b = &specs[k];
      op_case oc = {b->op, dt, 2, {in_of(dt, bcast_pairs[p][0], b->xlo, b->xhi, b->integral),
                                   in_of(dt, bcast_pairs[p][1], b->ylo, b->yhi, b->integral)},
                    NULL, tol_for(dt), 0, NULL, 0};
      char label[96];
      snprintf(label, sizeof label, "%s dtype %d pair %d", b->op, (int)dt, p);
      run_case(&oc, label);
    }
}

static void binary_float_ops_match_cpu_with_broadcasting(void) {
  need_gpu();
  check_binaries(float_binaries, (int)(sizeof float_binaries / sizeof float_binaries[0]), TF_FLOAT);
}

static void binary_double_ops_match_cpu_with_broadcasting(void) {
  need_gpu();
  check_binaries(float_binaries, (int)(sizeof float_binaries / sizeof float_binaries[0]), TF_DOUBLE);
}

static void binary_int64_ops_match_cpu_and_wrap(void) {
  need_gpu();
  static const bin_spec specs[] = {
      {"Add", -1000, 1000, -1000, 1000, 1}, {"Sub", -1000, 1000, -1000, 1000, 1},
      {"Mul", -1000, 1000, -1000, 1000, 1}, {"Maximum", -3, 3, -3, 3, 1},
      {"Minimum", -3, 3, -3, 3, 1},         {"SquaredDifference", -1000, 1000, -1000, 1000, 1},
      {"Less", -3, 3, -3, 3, 1},            {"GreaterEqual", -3, 3, -3, 3, 1},
      {"Equal", -3, 3, -3, 3, 1},           {"NotEqual", -3, 3, -3, 3, 1},
      /* products of these wrap around 2^64 exactly as the CPU's unsigned arithmetic */
      {"Mul", 4e18, 9e18, 3, 1000, 1},
  };
  check_binaries(specs, (int)(sizeof specs / sizeof specs[0]), TF_INT64);
}

static void binary_half_ops_match_float_cpu(void) {
  need_gpu();
  static const bin_spec specs[] = {{"Add", -5, 5, -5, 5, 0},     {"Mul", -3, 3, -3, 3, 0},
                                   {"RealDiv", -5, 5, 0.5, 3, 0}, {"Maximum", -2, 2, -2, 2, 1},
                                   {"Less", -2, 2, -2, 2, 1},     {"SquaredDifference", -2, 2, -2, 2, 0}};
  check_binaries(specs, (int)(sizeof specs / sizeof specs[0]), TF_HALF);
}

static void logical_ops_match_cpu(void) {
  need_gpu();
  static const char *ops[] = {"LogicalAnd", "LogicalOr", "Equal", "NotEqual"};
  for (int k = 0; k < 4; k++)
    for (int p = 0; p < N_BCAST; p++) {
      op_case oc = {ops[k], TF_BOOL, 2, {in_of(TF_BOOL, bcast_pairs[p][0], 0, 1, 0),
                                         in_of(TF_BOOL, bcast_pairs[p][1], 0, 1, 0)}, NULL, 0, 0, NULL, 0};
      run_case(&oc, ops[k]);
    }
  for (int p = 0; p < N_FLAT; p++) {
    op_case oc = {"LogicalNot", TF_BOOL, 1, {in_of(TF_BOOL, flat_shapes[p], 0, 1, 0)}, NULL, 0, 0, NULL, 0};
    run_case(&oc, "LogicalNot");
  }
}

typedef struct un_spec {
  const char *op;
  double lo, hi;
} un_spec;

static const un_spec float_unaries[] = {
    {"Neg", -5, 5},        {"Abs", -5, 5},       {"Square", -5, 5},   {"Sqrt", 0, 9},      {"Rsqrt", 0.01, 9},
    {"Exp", -10, 10},      {"Log", 0.01, 100},   {"Inv", 0.1, 5},     {"Reciprocal", -5, -0.1},
    {"Sign", -2, 2},       {"Tanh", -5, 5},      {"Sigmoid", -20, 20}, {"Relu", -5, 5},    {"Relu6", -3, 9},
    {"Elu", -5, 5},        {"Selu", -5, 5},      {"Softplus", -40, 40}, {"Softsign", -5, 5}, {"Floor", -5, 5},
    {"Ceil", -5, 5},       {"Round", -5, 5},     {"Log1p", -0.9, 5},  {"Expm1", -3, 3},    {"Sin", -6, 6},
    {"Cos", -6, 6},
};

static void check_unaries(const un_spec *specs, int n_specs, TF_DataType dt, const attrs *a) {
  for (int k = 0; k < n_specs; k++)
    for (int p = 0; p < N_FLAT; p++) {
      op_case oc = {specs[k].op, dt, 1, {in_of(dt, flat_shapes[p], specs[k].lo, specs[k].hi, dt == TF_INT64)}, a,
                    tol_for(dt), 0, NULL, 0};
      char label[96];
      snprintf(label, sizeof label, "%s dtype %d shape %d", specs[k].op, (int)dt, p);
      run_case(&oc, label);
    }
}

static void unary_float_and_double_ops_match_cpu(void) {
  need_gpu();
  int n = (int)(sizeof float_unaries / sizeof float_unaries[0]);
  check_unaries(float_unaries, n, TF_FLOAT, NULL);
  check_unaries(float_unaries, n, TF_DOUBLE, NULL);
  static const attrs leaky = {.has_alpha = 1, .alpha = 0.3f};
  static const un_spec lr[] = {{"LeakyRelu", -5, 5}};
  check_unaries(lr, 1, TF_FLOAT, &leaky);
  check_unaries(lr, 1, TF_DOUBLE, &leaky);
}

static void unary_int64_and_half_ops_match_cpu(void) {
  need_gpu();
  static const un_spec ints[] = {{"Neg", -1000, 1000}, {"Abs", -1000, 1000}, {"Square", -1000, 1000}, {"Sign", -3, 3}};
  check_unaries(ints, 4, TF_INT64, NULL);
  static const un_spec halves[] = {{"Neg", -5, 5}, {"Exp", -3, 3}, {"Tanh", -3, 3}, {"Sigmoid", -5, 5},
                                   {"Relu", -5, 5}, {"Sqrt", 0, 9}};
  check_unaries(halves, 6, TF_HALF, NULL);
}

static void activation_gradients_match_cpu(void) {
  need_gpu();
  /* (op, first input range, second input range) */
  static const bin_spec grads[] = {
      {"ReluGrad", -3, 3, -3, 3, 0},      {"Relu6Grad", -3, 3, -2, 8, 0},    {"EluGrad", -3, 3, -0.9, 3, 0},
      {"SeluGrad", -3, 3, -1.5, 3, 0},    {"SoftplusGrad", -3, 3, -9, 9, 0}, {"SoftsignGrad", -3, 3, -9, 9, 0},
      {"TanhGrad", -1, 1, -3, 3, 0},      {"SigmoidGrad", 0, 1, -3, 3, 0},   {"SqrtGrad", 0.1, 3, -3, 3, 0},
      {"RsqrtGrad", 0.1, 3, -3, 3, 0},    {"ReciprocalGrad", -3, 3, -3, 3, 0}, {"InvGrad", -3, 3, -3, 3, 0},
      {"LeakyReluGrad", -3, 3, -3, 3, 0},
  };
  static const attrs leaky = {.has_alpha = 1, .alpha = 0.1f};
  for (int k = 0; k < (int)(sizeof grads / sizeof grads[0]); k++)
    for (int p = 0; p < N_FLAT; p++)
      for (int t = 0; t < 2; t++) {
        TF_DataType dt = t ? TF_DOUBLE : TF_FLOAT;
        op_case oc = {grads[k].op, dt, 2, {in_of(dt, flat_shapes[p], grads[k].xlo, grads[k].xhi, 0),
                                           in_of(dt, flat_shapes[p], grads[k].ylo, grads[k].yhi, 0)},
                      strcmp(grads[k].op, "LeakyReluGrad") == 0 ? &leaky : NULL, tol_for(dt), 0, NULL, 0};
        run_case(&oc, grads[k].op);
      }
}

/* ---- matrix products ---- */

static void matmul_matches_cpu_with_transposes(void) {
  need_gpu();
  static const int64_t mnk[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 65, 17}, {128, 1023, 7}, {4, 3, 0}, {0, 3, 4}};
  static const TF_DataType dts[] = {TF_FLOAT, TF_DOUBLE, TF_HALF};
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < (int)(sizeof mnk / sizeof mnk[0]); i++)
      for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
          int64_t m = mnk[i][0], n = mnk[i][1], k = mnk[i][2];
          shape sa = {2, {ta ? k : m, ta ? m : k}}, sb = {2, {tb ? n : k, tb ? k : n}};
          attrs a = {.b1 = "transpose_a", .v1 = ta, .b2 = "transpose_b", .v2 = tb};
          op_case oc = {"MatMul", dts[d], 2, {in_of(dts[d], sa, -1, 1, 0), in_of(dts[d], sb, -1, 1, 0)}, &a,
                        dts[d] == TF_HALF ? 3e-2 : tol_for(dts[d]) * 10, 0, NULL, 0};
          char label[96];
          snprintf(label, sizeof label, "MatMul dtype %d %lldx%lldx%lld ta=%d tb=%d", (int)dts[d], (long long)m,
                   (long long)n, (long long)k, ta, tb);
          run_case(&oc, label);
        }
}

static void batch_matmul_matches_cpu_with_adjoints_and_broadcast(void) {
  need_gpu();
  static const struct {
    const char *op;
    shape x, y; /* with adj_x = adj_y = 0 */
  } cases[] = {
      {"BatchMatMul", {3, {3, 4, 5}}, {3, {3, 5, 6}}},
      {"BatchMatMul", {4, {2, 1, 7, 3}}, {4, {2, 1, 3, 1}}},
      {"BatchMatMulV2", {4, {2, 1, 4, 5}}, {4, {1, 3, 5, 6}}}, /* broadcast both ways: one GEMM per batch */
      {"BatchMatMulV2", {2, {4, 5}}, {3, {3, 5, 6}}},          /* x shared by every batch: stride 0 */
      {"BatchMatMulV2", {3, {5, 33, 17}}, {2, {17, 9}}},
      {"BatchMatMulV2", {3, {0, 3, 4}}, {3, {1, 4, 2}}},
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int adj = 0; adj < 4; adj++) {
      int ax = adj & 1, ay = adj >> 1;
      shape x = cases[i].x, y = cases[i].y;
      if (ax) { int64_t t = x.d[x.nd - 1]; x.d[x.nd - 1] = x.d[x.nd - 2]; x.d[x.nd - 2] = t; }
      if (ay) { int64_t t = y.d[y.nd - 1]; y.d[y.nd - 1] = y.d[y.nd - 2]; y.d[y.nd - 2] = t; }
      attrs a = {.b1 = "adj_x", .v1 = ax, .b2 = "adj_y", .v2 = ay};
      for (int d = 0; d < 2; d++) {
        TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
        op_case oc = {cases[i].op, dt, 2, {in_of(dt, x, -1, 1, 0), in_of(dt, y, -1, 1, 0)}, &a, tol_for(dt) * 10, 0,
                      NULL, 0};
        char label[96];
        snprintf(label, sizeof label, "%s case %d adj_x=%d adj_y=%d dtype %d", cases[i].op, i, ax, ay, (int)dt);
        run_case(&oc, label);
      }
    }
}

/* ---- reductions and nn ---- */

static void reductions_match_cpu_over_axes(void) {
  need_gpu();
  static const struct {
    shape x;
    int32_t axes[4];
    int n_axes;
  } cases[] = {
      {{1, {4097}}, {0}, 1},        {{1, {1}}, {0}, 1},            {{3, {3, 1, 5}}, {0, 2}, 2},
      {{2, {7, 1023}}, {0}, 1},     {{2, {7, 1023}}, {1}, 1},      {{2, {7, 1023}}, {-1, 0}, 2},
      {{4, {2, 3, 4, 5}}, {1, 3}, 2}, {{4, {2, 3, 4, 5}}, {0, 2}, 2}, {{3, {3, 1, 5}}, {0}, 0},
      {{2, {0, 3}}, {0}, 1},        {{2, {0, 3}}, {1}, 1},         {{2, {300, 3}}, {0}, 1},
  };
  static const char *ops[] = {"Sum", "Mean", "Prod", "Max", "Min"};
  for (int o = 0; o < 5; o++)
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
      for (int keep = 0; keep < 2; keep++)
        for (int d = 0; d < 3; d++) {
          TF_DataType dt = d == 0 ? TF_FLOAT : d == 1 ? TF_DOUBLE : TF_HALF;
          int prod = o == 2;
          attrs a = {.b1 = "keep_dims", .v1 = keep};
          op_case oc = {ops[o], dt, 2, {in_of(dt, cases[i].x, prod ? 0.999 : -1, prod ? 1.001 : 1, 0), {0}}, &a,
                        dt == TF_HALF ? 5e-2 : tol_for(dt) * 50, 1, cases[i].axes, cases[i].n_axes};
          char label[96];
          snprintf(label, sizeof label, "%s case %d keep_dims=%d dtype %d", ops[o], i, keep, (int)dt);
          run_case(&oc, label);
        }
}

static void bias_add_softmax_match_cpu(void) {
  need_gpu();
  static const shape xs[] = {{2, {7, 1023}}, {4, {2, 3, 4, 5}}, {2, {1, 1}}, {3, {0, 4, 3}}};
  static const char *formats[] = {"NHWC", "NCHW"};
  for (int d = 0; d < 2; d++) {
    TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
    for (int i = 0; i < 4; i++)
      for (int f = 0; f < 2; f++) {
        shape x = xs[i];
        shape b = {1, {x.d[f ? 1 : x.nd - 1]}};
        attrs a = {.str_name = "data_format", .str_val = formats[f]};
        op_case add = {"BiasAdd", dt, 2, {in_of(dt, x, -1, 1, 0), in_of(dt, b, -1, 1, 0)}, &a, tol_for(dt), 0, NULL, 0};
        run_case(&add, "BiasAdd");
        op_case grad = {"BiasAddGrad", dt, 1, {in_of(dt, x, -1, 1, 0)}, &a, tol_for(dt) * 50, 0, NULL, 0};
        run_case(&grad, "BiasAddGrad");
      }
    static const shape ss[] = {{2, {7, 1023}}, {2, {1, 4097}}, {2, {3, 1}}, {1, {5}}, {3, {2, 0, 3}}};
    for (int i = 0; i < 5; i++) {
      op_case sm = {"Softmax", dt, 1, {in_of(dt, ss[i], -20, 20, 0)}, NULL, tol_for(dt) * 10, 0, NULL, 0};
      run_case(&sm, "Softmax");
      op_case lsm = {"LogSoftmax", dt, 1, {in_of(dt, ss[i], -20, 20, 0)}, NULL, tol_for(dt) * 10, 0, NULL, 0};
      run_case(&lsm, "LogSoftmax");
    }
  }
}

/* ---- errors on the GPU: TF's codes and messages ---- */

static TF_Tensor *zeros(TF_DataType dt, const int64_t *dims, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * TF_DataTypeSize(dt));
  memset(TF_TensorData(t), 0, (size_t)n * TF_DataTypeSize(dt));
  return t;
}

static void gpu_kernels_report_cpu_errors(void) {
  need_gpu();
  char msg[512];
  TF_Tensor *x = zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), *y = zeros(TF_FLOAT, (int64_t[]){4}, 1);
  EXPECT_EQ(run_gpu_error("Add", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_EQ(run_gpu_error("MatMul", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "In[1] is not a matrix. Instead it has shape [4]");
  TF_DeleteTensor(y);
  y = zeros(TF_FLOAT, (int64_t[]){2, 3}, 2);
  EXPECT_EQ(run_gpu_error("MatMul", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
  TF_DeleteTensor(y);
  y = zeros(TF_FLOAT, (int64_t[]){3}, 1);
  EXPECT_EQ(run_gpu_error("ReluGrad", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "g and a must be the same size");
  TF_DeleteTensor(y);
  y = zeros(TF_FLOAT, (int64_t[]){2}, 1);
  EXPECT_EQ(run_gpu_error("BiasAdd", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Must provide as many biases as the last dimension of the input tensor: [2] vs. [2,3]");
  TF_DeleteTensor(y);
  int32_t bad_axis = 2;
  y = TF_AllocateTensor(TF_INT32, (int64_t[]){1}, 1, sizeof bad_axis);
  memcpy(TF_TensorData(y), &bad_axis, sizeof bad_axis);
  EXPECT_EQ(run_gpu_error("Sum", x, y, NULL, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Invalid reduction dimension (2 for input with 2 dimension(s)");
  TF_DeleteTensor(y);
  TF_DeleteTensor(x);
}

/* Equal with incompatible_shape_error=false answers a scalar false (NotEqual: true). */
static void equal_on_incompatible_shapes_can_answer_a_scalar(void) {
  need_gpu();
  static const char *ops[] = {"Equal", "NotEqual"};
  for (int k = 0; k < 2; k++) {
    op_case oc = {ops[k], TF_FLOAT, 2, {in_of(TF_FLOAT, (shape){2, {2, 3}}, 0, 1, 1), in_of(TF_FLOAT, (shape){1, {4}}, 0, 1, 1)},
                  &(attrs){.b1 = "incompatible_shape_error", .v1 = 0}, 0, 0, NULL, 0};
    run_case(&oc, ops[k]);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(binary_float_ops_match_cpu_with_broadcasting),
    TFC_TEST(binary_double_ops_match_cpu_with_broadcasting),
    TFC_TEST(binary_int64_ops_match_cpu_and_wrap),
    TFC_TEST(binary_half_ops_match_float_cpu),
    TFC_TEST(logical_ops_match_cpu),
    TFC_TEST(unary_float_and_double_ops_match_cpu),
    TFC_TEST(unary_int64_and_half_ops_match_cpu),
    TFC_TEST(activation_gradients_match_cpu),
    TFC_TEST(matmul_matches_cpu_with_transposes),
    TFC_TEST(batch_matmul_matches_cpu_with_adjoints_and_broadcast),
    TFC_TEST(reductions_match_cpu_over_axes),
    TFC_TEST(bias_add_softmax_match_cpu),
    TFC_TEST(gpu_kernels_report_cpu_errors),
    TFC_TEST(equal_on_incompatible_shapes_can_answer_a_scalar),
    {0},
};

TFC_TEST_MAIN(tests)
