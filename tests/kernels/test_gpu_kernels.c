/*
 * GPU kernel tests: every CUDA kernel (src/device/cuda/) against its CPU kernel on the same
 * inputs, through a session (gpu_compare.h: CPU placeholders feed one copy of the op pinned to
 * /device:CPU:0 and one pinned to /device:GPU:0 without soft placement, and the results must
 * agree: shapes exactly, values within a tolerance per type, bool and integers exactly). Sizes
 * cover 0, 1, 7, 1023 and 4097 elements and numpy broadcasts ([3,1,5] vs [1,4,1], scalars,
 * rank 4). Half runs as Cast(float -> half) on the CPU, the op on the GPU, Cast back, against
 * the op in float. Bad inputs must fail on both devices with the same code and text.
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

/* ---- cases ---- */

typedef struct attrs {
  const char *b1, *b2; /* bool attrs set to v1, v2 */
  int v1, v2;
  const char *str_name, *str_val;
  int has_alpha;
  float alpha;
} attrs;

typedef struct input {
  TF_DataType dt; /* of the fed tensor (float for half tests) */
  int nd;
  int64_t dims[6];
  double lo, hi;
  int integral; /* round values (so comparisons see ties) */
} input;

static TF_Tensor *make(const input *in) {
  TF_Tensor *t = gc_rand(in->dt, in->nd, in->dims, in->lo, in->hi);
  if (!in->integral) return t;
  int64_t n = TF_TensorElementCount(t);
  for (int64_t i = 0; i < n; i++) {
    if (in->dt == TF_FLOAT) ((float *)TF_TensorData(t))[i] = roundf(((float *)TF_TensorData(t))[i]);
    if (in->dt == TF_DOUBLE) ((double *)TF_TensorData(t))[i] = round(((double *)TF_TensorData(t))[i]);
  }
  return t;
}

/* The gc_op of a case: the op, half when dt is, and the attrs. */
static gc_op op_of(const char *type, TF_DataType dt, const attrs *a) {
  gc_op o = {.type = type, .half = dt == TF_HALF};
  int k = 0;
  if (a) {
    if (a->b1) o.attrs[k++] = (gc_attr)GC_BOOL(a->b1, a->v1);
    if (a->b2) o.attrs[k++] = (gc_attr)GC_BOOL(a->b2, a->v2);
    if (a->str_name) o.attrs[k++] = (gc_attr)GC_STR(a->str_name, a->str_val);
    if (a->has_alpha) o.attrs[k++] = (gc_attr)GC_FLOAT("alpha", a->alpha);
  }
  return o;
}

typedef struct op_case {
  const char *op;
  TF_DataType dt; /* the op's T (TF_HALF: fed as float, cast on the CPU) */
  int n_in;
  input in[3];
  const attrs *a;
  double tol;
  int host_last; /* the last input is a host-memory int32 (reduction axes): a CPU constant */
  const int32_t *axes;
  int n_axes;
} op_case;

static void run_case(const op_case *oc, const char *label) {
  gc_arg args[3];
  for (int i = 0; i < oc->n_in; i++) {
    if (oc->host_last && i == oc->n_in - 1) {
      args[i] = GC_CONST(gc_ints(oc->axes, oc->n_axes));
      continue;
    }
    input in = oc->in[i];
    if (in.dt == TF_HALF) in.dt = TF_FLOAT;
    args[i] = GC_FED(make(&in));
  }
  gc_op o = op_of(oc->op, oc->dt, oc->a);
  gc_check(&o, args, oc->n_in, oc->tol, label);
  gc_free_args(args, oc->n_in);
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
  gc_need_gpu();
  check_binaries(float_binaries, (int)(sizeof float_binaries / sizeof float_binaries[0]), TF_FLOAT);
}

static void binary_double_ops_match_cpu_with_broadcasting(void) {
  gc_need_gpu();
  check_binaries(float_binaries, (int)(sizeof float_binaries / sizeof float_binaries[0]), TF_DOUBLE);
}

static void binary_int64_ops_match_cpu_and_wrap(void) {
  gc_need_gpu();
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
  gc_need_gpu();
  static const bin_spec specs[] = {{"Add", -5, 5, -5, 5, 0},     {"Mul", -3, 3, -3, 3, 0},
                                   {"RealDiv", -5, 5, 0.5, 3, 0}, {"Maximum", -2, 2, -2, 2, 1},
                                   {"Less", -2, 2, -2, 2, 1},     {"SquaredDifference", -2, 2, -2, 2, 0}};
  check_binaries(specs, (int)(sizeof specs / sizeof specs[0]), TF_HALF);
}

static void logical_ops_match_cpu(void) {
  gc_need_gpu();
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
  gc_need_gpu();
  int n = (int)(sizeof float_unaries / sizeof float_unaries[0]);
  check_unaries(float_unaries, n, TF_FLOAT, NULL);
  check_unaries(float_unaries, n, TF_DOUBLE, NULL);
  static const attrs leaky = {.has_alpha = 1, .alpha = 0.3f};
  static const un_spec lr[] = {{"LeakyRelu", -5, 5}};
  check_unaries(lr, 1, TF_FLOAT, &leaky);
  check_unaries(lr, 1, TF_DOUBLE, &leaky);
}

static void unary_int64_and_half_ops_match_cpu(void) {
  gc_need_gpu();
  static const un_spec ints[] = {{"Neg", -1000, 1000}, {"Abs", -1000, 1000}, {"Square", -1000, 1000}, {"Sign", -3, 3}};
  check_unaries(ints, 4, TF_INT64, NULL);
  static const un_spec halves[] = {{"Neg", -5, 5}, {"Exp", -3, 3}, {"Tanh", -3, 3}, {"Sigmoid", -5, 5},
                                   {"Relu", -5, 5}, {"Sqrt", 0, 9}};
  check_unaries(halves, 6, TF_HALF, NULL);
}

/* The math of TF's newer models: Tan, Erf, Erfc, Lgamma, Digamma (negative arguments too),
 * Atan2, Xdivy, Xlogy, DivNoNan on
 * random inputs (x exactly 0 and y exactly 0 in places, where the last three have their
 * special cases), ClipByValue, and IsFinite, IsNan, IsInf (bool) on the special values. */
static void math_ops_match_cpu(void) {
  gc_need_gpu();
  static const un_spec un[] = {{"Tan", -1.2, 1.2}, {"Erf", -3, 3},     {"Erfc", -3, 3},
                               {"Lgamma", 0.1, 10}, {"Digamma", -4, 9}};
  static const bin_spec bin[] = {{"Atan2", -5, 5, -5, 5, 0},
                                 {"Xdivy", -2, 2, 0.5, 3, 1},
                                 {"Xlogy", -2, 2, 0.1, 3, 1},
                                 {"DivNoNan", -5, 5, -2, 2, 1}};
  for (int d = 0; d < 2; d++) {
    TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
    check_unaries(un, 5, dt, NULL);
    check_binaries(bin, 4, dt);
  }
  static const un_spec halves[] = {{"Erf", -3, 3}, {"Tan", -1, 1}};
  check_unaries(halves, 2, TF_HALF, NULL);
  /* ClipByValue with scalar bounds, and with bounds of t's shape (some crossing: lo > hi). */
  for (int d = 0; d < 3; d++) {
    TF_DataType dt = d == 0 ? TF_FLOAT : d == 1 ? TF_DOUBLE : TF_INT64;
    int64_t dims[2] = {7, 1023};
    for (int full = 0; full < 2; full++) {
      gc_arg a[3] = {gc_fed(dt, 2, dims, -9, 9), gc_fed(dt, full ? 2 : 0, dims, -6, 0),
                     gc_fed(dt, full ? 2 : 0, dims, -1, 6)};
      gc_check(&(gc_op){.type = "ClipByValue"}, a, 3, 0, full ? "ClipByValue full bounds" : "ClipByValue scalars");
      gc_free_args(a, 3);
    }
  }
  static const float special[] = {0.0f, -1.5f, INFINITY, -INFINITY, NAN, 3e38f, -0.0f, 1e-45f};
  const int64_t n = (int64_t)(sizeof special / sizeof special[0]);
  static const char *const preds[] = {"IsFinite", "IsNan", "IsInf"};
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 2; d++) {
      TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
      TF_Tensor *x = TF_AllocateTensor(dt, &n, 1, (size_t)n * (d ? sizeof(double) : sizeof(float)));
      for (int64_t i = 0; i < n; i++) {
        if (d) ((double *)TF_TensorData(x))[i] = special[i];
        else ((float *)TF_TensorData(x))[i] = special[i];
      }
      gc_arg arg = GC_FED(x);
      gc_op o = {.type = preds[k]};
      gc_check(&o, &arg, 1, 0, preds[k]);
      gc_free_args(&arg, 1);
    }
}

static void activation_gradients_match_cpu(void) {
  gc_need_gpu();
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
  gc_need_gpu();
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
  gc_need_gpu();
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

/* Einsum runs the CPU's plan with the GPU's copies and GEMM: matmuls, batch and broadcast
 * ellipses, transposes, diagonals, sums of a label in one operand, one-operand reductions and
 * traces, an empty contraction (zeros), and an equation the parser refuses on both devices. */
static void einsum_matches_cpu(void) {
  gc_need_gpu();
  static const struct {
    const char *eq;
    shape x, y; /* y.nd < 0: one operand */
  } cases[] = {
      {"ij,jk->ik", {2, {7, 5}}, {2, {5, 3}}},
      {"bij,bjk->bik", {3, {4, 6, 5}}, {3, {4, 5, 2}}},
      {"...ij,...jk->...ik", {4, {2, 1, 3, 4}}, {3, {3, 4, 5}}},
      {"abcd,aecd->aceb", {4, {2, 3, 4, 5}}, {4, {2, 6, 4, 5}}}, /* BERT's attention scores */
      {"abcd,cde->abe", {4, {2, 3, 4, 5}}, {3, {4, 5, 6}}},      /* a dense layer over two dims */
      {"ij,kj->ikj", {2, {3, 4}}, {2, {5, 4}}},                  /* outer product over i, k */
      {"ii,ij->j", {2, {4, 4}}, {2, {4, 3}}},                    /* a diagonal */
      {"ij,k->ik", {2, {3, 4}}, {1, {5}}},                       /* j summed in x alone */
      {"ij->ji", {2, {6, 7}}, {-1, {0}}},
      {"ijk->j", {3, {3, 4, 5}}, {-1, {0}}},
      {"ii->", {2, {5, 5}}, {-1, {0}}},
      {"ij,jk->ik", {2, {3, 0}}, {2, {0, 4}}},                   /* k = 0: zeros */
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
      int n = cases[i].y.nd < 0 ? 1 : 2;
      gc_arg args[2] = {gc_fed(dt, cases[i].x.nd, cases[i].x.d, -1, 1)};
      if (n == 2) args[1] = gc_fed(dt, cases[i].y.nd, cases[i].y.d, -1, 1);
      char label[96];
      snprintf(label, sizeof label, "Einsum %s dtype %d", cases[i].eq, (int)dt);
      gc_check(&(gc_op){.type = "Einsum", .list = n, .attrs = {GC_STR("equation", cases[i].eq)}}, args, n,
               tol_for(dt) * 10, label);
      gc_free_args(args, n);
    }
  gc_arg bad[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 4}, -1, 1), gc_fed(TF_FLOAT, 2, (int64_t[]){5, 6}, -1, 1)};
  gc_check_error(&(gc_op){.type = "Einsum", .list = 2, .attrs = {GC_STR("equation", "ij,jk->ik")}}, bad, 2,
                 TF_INVALID_ARGUMENT, "dimension", "Einsum with mismatched j");
  gc_free_args(bad, 2);
}

/* ---- reductions and nn ---- */

static void reductions_match_cpu_over_axes(void) {
  gc_need_gpu();
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
  /* All and Any on bools mostly true (All is sometimes true) and mostly false (Any is
   * sometimes false); the empty cases give All true and Any false. */
  static const char *bool_ops[] = {"All", "Any"};
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
      for (int keep = 0; keep < 2; keep++)
        for (int mostly = 0; mostly < 2; mostly++) {
          attrs a = {.b1 = "keep_dims", .v1 = keep};
          op_case oc = {bool_ops[o], TF_BOOL, 2, {in_of(TF_BOOL, cases[i].x, mostly ? 0.45 : 0, mostly ? 1 : 0.55, 0),
                        {0}}, &a, 0, 1, cases[i].axes, cases[i].n_axes};
          char label[96];
          snprintf(label, sizeof label, "%s case %d keep_dims=%d mostly %s", bool_ops[o], i, keep,
                   mostly ? "true" : "false");
          run_case(&oc, label);
        }
}

static void bias_add_softmax_match_cpu(void) {
  gc_need_gpu();
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

/* ---- the reductions' multi-pass shapes (cuda_reduce.cu) ----
 *
 * Shapes big enough to take the columns path (kept dims ending in stride-1 columns, rows cut
 * into chunks across the grid, partials folded by a second pass) and the split path (a few
 * outputs, each reduced by many blocks). Half cases use integers in [-1, 1]: exact in half and
 * in any summation order, so only the output's rounding differs from the float CPU run. NaNs
 * are planted in a column or row to check that Sum/Mean propagate them and Max/Min skip them
 * across chunk partials as they do element by element. */

/* A tensor of dims to feed an op of type dt (double for double, else float), uniform in
 * [lo, hi) (rounded to integers when integral), with every nan_every-th element NaN (0: none). */
static TF_Tensor *reduce_input(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi, int integral,
                               int64_t nan_every) {
  int dbl = dt == TF_DOUBLE;
  TF_Tensor *t = gc_rand(dbl ? TF_DOUBLE : TF_FLOAT, nd, dims, lo, hi);
  float *f = TF_TensorData(t);
  double *d = TF_TensorData(t);
  int64_t n = TF_TensorElementCount(t);
  for (int64_t i = 0; i < n; i++) {
    int nan = nan_every > 0 && i % nan_every == nan_every - 1;
    if (dbl) d[i] = nan ? NAN : integral ? round(d[i]) : d[i];
    else f[i] = nan ? NAN : integral ? roundf(f[i]) : f[i];
  }
  return t;
}

typedef struct big_reduce {
  int nd;
  int64_t dims[4];
  int32_t axes[3];
  int n_axes;
  int64_t nan_every;
} big_reduce;

/* Runs each of ops over c in dt (float, or half over integral inputs) and compares with the CPU. */
static void check_big_reduce(const big_reduce *c, const char *const *ops, int n_ops, TF_DataType dt) {
  for (int o = 0; o < n_ops; o++) {
    int prod = strcmp(ops[o], "Prod") == 0;
    gc_arg args[2] = {GC_FED(reduce_input(dt, c->nd, c->dims, prod ? 0.999 : -1, prod ? 1.001 : 1, dt == TF_HALF,
                                          prod ? 0 : c->nan_every)),
                      GC_CONST(gc_ints(c->axes, c->n_axes))};
    gc_op op = op_of(ops[o], dt, NULL);
    char label[128];
    snprintf(label, sizeof label, "%s dtype %d over [%lld,%lld,%lld,%lld] (rank %d) axes %d", ops[o], (int)dt,
             (long long)c->dims[0], (long long)c->dims[1], (long long)c->dims[2], (long long)c->dims[3], c->nd,
             (int)c->axes[0]);
    gc_check(&op, args, 2, dt == TF_HALF ? 5e-2 : tol_for(dt) * 50, label);
    gc_free_args(args, 2);
  }
}

static const char *const all_reductions[] = {"Sum", "Mean", "Prod", "Max", "Min"};

static void column_reductions_match_cpu(void) {
  gc_need_gpu();
  static const big_reduce cases[] = {
      {2, {100 * 28 * 28, 32}, {0}, 1, 0},  /* a conv layer's bias gradient as a Sum: 306 row chunks */
      {2, {4097, 1023}, {0}, 1, 0},         /* 32 column tiles x 16 chunks */
      {2, {4097, 1023}, {0}, 1, 4099},      /* NaNs scattered over the columns */
      {2, {40000, 3}, {0}, 1, 0},           /* three columns: a 4-wide tile, 64 row lanes */
      {3, {4, 20000, 33}, {1}, 1, 0},       /* columns under a kept batch dim */
      {3, {4, 20000, 33}, {1}, 1, 7919},
      {2, {7, 1023}, {0}, 1, 0},            /* too few rows: one thread per column */
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
    check_big_reduce(&cases[i], all_reductions, 5, TF_FLOAT);
    check_big_reduce(&cases[i], (const char *const[]){"Sum", "Mean", "Max", "Min"}, 4, TF_HALF);
  }
  check_big_reduce(&cases[1], (const char *const[]){"Sum", "Max"}, 2, TF_DOUBLE);
}

static void long_reductions_split_over_blocks_match_cpu(void) {
  gc_need_gpu();
  static const big_reduce cases[] = {
      {1, {3000000}, {0}, 1, 0},            /* a full reduction: 366 blocks, then one fold */
      {2, {1500, 2000}, {0, 1}, 2, 0},      /* the same over two axes */
      {2, {3, 1000000}, {1}, 1, 0},         /* three long rows */
      {2, {3, 1000000}, {1}, 1, 999983},    /* one NaN in each row */
      {3, {16, 64, 4096}, {0, 2}, 2, 0},    /* channels of NCHW: a strided kept dim */
  };
  /* No float Prod over millions: products of near-1 partials that straddle 1 round with a
   * bias (about 1e-9 per multiply), so any chunked or tree order drifts ~1e-3 from the CPU's
   * sequential one; the strided case (65536 factors per output) checks Prod's split path. */
  static const char *const no_prod[] = {"Sum", "Mean", "Max", "Min"};
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
    int strided = cases[i].nd == 3;
    check_big_reduce(&cases[i], strided ? all_reductions : no_prod, strided ? 5 : 4, TF_FLOAT);
    check_big_reduce(&cases[i], (const char *const[]){"Sum", "Mean", "Max"}, 3, TF_HALF);
  }
  check_big_reduce(&cases[0], (const char *const[]){"Sum", "Mean", "Prod"}, 3, TF_DOUBLE);
}

/* BiasAddGrad in NHWC is a column reduction and in NCHW a strided one split over blocks. */
static void bias_add_grad_of_conv_sized_inputs_matches_cpu(void) {
  gc_need_gpu();
  static const struct {
    const char *format;
    int64_t dims[4];
  } cases[] = {{"NHWC", {100, 28, 28, 32}}, {"NHWC", {8, 28, 28, 1023}}, {"NCHW", {32, 64, 32, 32}}};
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType dt = d ? TF_HALF : TF_FLOAT;
      gc_arg arg = GC_FED(reduce_input(dt, 4, cases[i].dims, -1, 1, dt == TF_HALF, 0));
      attrs a = {.str_name = "data_format", .str_val = cases[i].format};
      gc_op op = op_of("BiasAddGrad", dt, &a);
      char label[96];
      snprintf(label, sizeof label, "BiasAddGrad %s case %d dtype %d", cases[i].format, i, (int)dt);
      gc_check(&op, &arg, 1, dt == TF_HALF ? 5e-2 : tol_for(dt) * 50, label);
      gc_free_args(&arg, 1);
    }
}

/* ---- errors on both devices: TF's codes and messages ---- */

static TF_Tensor *zeros(TF_DataType dt, const int64_t *dims, int nd) { return gc_rand(dt, nd, dims, 0, 0); }

/* op(x, y) must fail on the CPU and on the GPU with code and a message containing substr. */
static void check_error(const char *op, TF_Tensor *x, TF_Tensor *y, TF_Code code, const char *substr) {
  gc_op o = {.type = op};
  gc_arg args[2] = {GC_FED(x), GC_FED(y)};
  gc_check_error(&o, args, 2, code, substr, op);
  gc_free_args(args, 2);
}

static void gpu_kernels_report_cpu_errors(void) {
  gc_need_gpu();
  check_error("Add", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), zeros(TF_FLOAT, (int64_t[]){4}, 1), TF_INVALID_ARGUMENT,
              "Incompatible shapes: [2,3] vs. [4]");
  check_error("MatMul", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), zeros(TF_FLOAT, (int64_t[]){4}, 1),
              TF_INVALID_ARGUMENT, "In[1] is not a matrix. Instead it has shape [4]");
  check_error("MatMul", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), zeros(TF_FLOAT, (int64_t[]){2, 3}, 2),
              TF_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
  check_error("ReluGrad", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), zeros(TF_FLOAT, (int64_t[]){3}, 1),
              TF_INVALID_ARGUMENT, "g and a must be the same size");
  check_error("BiasAdd", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), zeros(TF_FLOAT, (int64_t[]){2}, 1),
              TF_INVALID_ARGUMENT,
              "Must provide as many biases as the last dimension of the input tensor: [2] vs. [2,3]");
  check_error("Sum", zeros(TF_FLOAT, (int64_t[]){2, 3}, 2), gc_ints((int32_t[]){2}, 1), TF_INVALID_ARGUMENT,
              "Invalid reduction dimension (2 for input with 2 dimension(s)");
}

/* Equal with incompatible_shape_error=false answers a scalar false (NotEqual: true). */
static void equal_on_incompatible_shapes_can_answer_a_scalar(void) {
  gc_need_gpu();
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
    TFC_TEST(math_ops_match_cpu),
    TFC_TEST(activation_gradients_match_cpu),
    TFC_TEST(matmul_matches_cpu_with_transposes),
    TFC_TEST(batch_matmul_matches_cpu_with_adjoints_and_broadcast),
    TFC_TEST(einsum_matches_cpu),
    TFC_TEST(reductions_match_cpu_over_axes),
    TFC_TEST(bias_add_softmax_match_cpu),
    TFC_TEST(column_reductions_match_cpu),
    TFC_TEST(long_reductions_split_over_blocks_match_cpu),
    TFC_TEST(bias_add_grad_of_conv_sized_inputs_matches_cpu),
    TFC_TEST(gpu_kernels_report_cpu_errors),
    TFC_TEST(equal_on_incompatible_shapes_can_answer_a_scalar),
    {0},
};

TFC_TEST_MAIN(tests)
