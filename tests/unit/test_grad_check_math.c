/*
 * test_grad_check_math — finite-difference checks (float64) of the math family's gradients
 * built by TF_AddGradients: element-wise unary and broadcasting binary ops, AddN, MatMul in
 * every transpose combination, BatchMatMul(V2) with batch broadcasting, Cast, reductions,
 * Select, Prod (constant and fed axes), FloorMod and the scans Cumsum / Cumprod.
 */
#include "grad_check.h"

typedef struct {
  const char *op;
} op_arg;

static TF_Output build_unary(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return gc_op1(g, ((op_arg *)arg)->op, x[0]);
}
static TF_Output build_binary(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  return gc_op2(g, ((op_arg *)arg)->op, x[0], x[1]);
}

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

static void check_unary(const char *op, double lo, double hi) {
  op_arg a = {op};
  gc_input shapes[3] = {IN(lo, hi, 0, 0), IN(lo, hi, 1, 5), IN(lo, hi, 2, 2, 3)};
  for (int i = 0; i < 3; i++) gc_check(op, build_unary, &a, &shapes[i], 1);
}

/* Same shapes, vector against matrix, both sides broadcast, scalar against matrix. */
static void check_binary(const char *op, double lo, double hi) {
  op_arg a = {op};
  gc_input pairs[5][2] = {
      {IN(lo, hi, 2, 2, 3), IN(lo, hi, 2, 2, 3)},
      {IN(lo, hi, 2, 2, 3), IN(lo, hi, 1, 3)},
      {IN(lo, hi, 3, 2, 1, 3), IN(lo, hi, 2, 4, 1)},
      {IN(lo, hi, 0, 0), IN(lo, hi, 2, 2, 2)},
      {IN(lo, hi, 2, 3, 1), IN(lo, hi, 2, 1, 2)},
  };
  for (int i = 0; i < 5; i++) gc_check(op, build_binary, &a, pairs[i], 2);
}

static void grad_add_sub_broadcast(void) {
  check_binary("Add", -2, 2);
  check_binary("AddV2", -2, 2);
  check_binary("Sub", -2, 2);
}
static void grad_mul_div_broadcast(void) {
  check_binary("Mul", -2, 2);
  check_binary("RealDiv", 0.5, 2);
  check_binary("Div", 0.5, 2);
}
static void grad_pow_broadcast(void) { check_binary("Pow", 0.5, 2); }
/* Values drawn independently are distinct almost surely, so no ties at the kink. */
static void grad_maximum_minimum_broadcast(void) {
  check_binary("Maximum", -2, 2);
  check_binary("Minimum", -2, 2);
}

static void grad_unary_ops(void) {
  check_unary("Neg", -2, 2);
  check_unary("Square", -2, 2);
  check_unary("Sqrt", 0.5, 2);
  check_unary("Rsqrt", 0.5, 2);
  check_unary("Exp", -1, 1);
  check_unary("Log", 0.5, 2);
  check_unary("Reciprocal", 0.5, 2);
  check_unary("Inv", 0.5, 2);
  check_unary("Abs", 0.2, 2);
  check_unary("Abs", -2, -0.2);
  check_unary("Identity", -2, 2);
}

/* Sign has gradient zero everywhere away from 0. */
static void grad_sign_is_zero(void) { check_unary("Sign", 0.2, 2); }

static TF_Output build_addn(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "AddN", "addn");
  TF_Output ins[3] = {x[0], x[1], x[0]}; /* x0 twice: its gradient sums two paths */
  TF_AddInputList(d, ins, 3);
  return (TF_Output){gc_finish(d), 0};
}
static void grad_addn_and_fan_in(void) {
  gc_input in[2] = {IN(-1, 1, 2, 2, 3), IN(-1, 1, 2, 2, 3)};
  gc_check("AddN", build_addn, NULL, in, 2);
}

typedef struct {
  const char *op;
  const char *an, *bn;
  int ta, tb;
} mm_arg;

static TF_Output build_matmul(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  mm_arg *m = arg;
  TF_OperationDescription *d = TF_NewOperation(g, m->op, "mm");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, x[1]);
  TF_SetAttrBool(d, m->an, (unsigned char)m->ta);
  TF_SetAttrBool(d, m->bn, (unsigned char)m->tb);
  return (TF_Output){gc_finish(d), 0};
}

static void grad_matmul_all_transposes(void) {
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      mm_arg m = {"MatMul", "transpose_a", "transpose_b", ta, tb};
      gc_input in[2] = {ta ? IN(-1, 1, 2, 3, 2) : IN(-1, 1, 2, 2, 3), tb ? IN(-1, 1, 2, 4, 3) : IN(-1, 1, 2, 3, 4)};
      gc_check("MatMul", build_matmul, &m, in, 2);
    }
}

static void grad_batch_matmul_adjoints_and_broadcast(void) {
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      mm_arg m = {"BatchMatMul", "adj_x", "adj_y", ta, tb};
      gc_input in[2] = {ta ? IN(-1, 1, 3, 2, 3, 2) : IN(-1, 1, 3, 2, 2, 3),
                        tb ? IN(-1, 1, 3, 2, 4, 3) : IN(-1, 1, 3, 2, 3, 4)};
      gc_check("BatchMatMul", build_matmul, &m, in, 2);
      m.op = "BatchMatMulV2";
      gc_check("BatchMatMulV2", build_matmul, &m, in, 2);
    }
  mm_arg m = {"BatchMatMulV2", "adj_x", "adj_y", 0, 0};
  gc_input in[2] = {IN(-1, 1, 4, 2, 1, 2, 3), IN(-1, 1, 3, 3, 3, 2)};
  gc_check("BatchMatMulV2 broadcast", build_matmul, &m, in, 2);
}

static TF_Output build_cast_roundtrip(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_OperationDescription *d = TF_NewOperation(g, "Cast", "to_f32");
  TF_AddInput(d, x[0]);
  TF_SetAttrType(d, "DstT", TF_FLOAT);
  TF_Output f = {gc_finish(d), 0};
  TF_Output sq = gc_op1(g, "Square", f);
  d = TF_NewOperation(g, "Cast", "to_f64");
  TF_AddInput(d, sq);
  TF_SetAttrType(d, "DstT", TF_DOUBLE);
  return (TF_Output){gc_finish(d), 0};
}
/* Through float32 the values lose precision: a looser tolerance. */
static void grad_cast_float_roundtrip(void) {
  gc_input in = IN(0.5, 1.5, 2, 2, 2);
  gc_check_ex("Cast", build_cast_roundtrip, NULL, &in, 1, TF_DOUBLE, 1e-3, 1e-3);
}

typedef struct {
  const char *op;
  int n_axes;
  int64_t axes[4];
  int keep;
  int axes_fed; /* axes through Identity: not a Const, so the dynamic path */
  int x_unknown; /* x through a PlaceholderWithDefault of unknown shape: Python's reduced_shape */
} red_arg;

static TF_Output build_reduce(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  red_arg *r = arg;
  TF_Output axes = gc_ivec(g, "axes", r->axes, r->n_axes);
  if (r->axes_fed) axes = gc_op1(g, "Identity", axes);
  TF_Output in = x[0];
  if (r->x_unknown) {
    TF_OperationDescription *p = TF_NewOperation(g, "PlaceholderWithDefault", "x_unknown");
    TF_AddInput(p, x[0]);
    TF_SetAttrType(p, "dtype", TF_DOUBLE);
    TF_SetAttrShape(p, "shape", NULL, -1);
    in = (TF_Output){gc_finish(p), 0};
  }
  TF_OperationDescription *d = TF_NewOperation(g, r->op, "red");
  TF_AddInput(d, in);
  TF_AddInput(d, axes);
  TF_SetAttrBool(d, "keep_dims", (unsigned char)r->keep);
  return (TF_Output){gc_finish(d), 0};
}

static void check_reduce(const char *op) {
  red_arg cases[] = {
      {op, 2, {0, 1}, 0, 0, 0}, {op, 1, {1}, 0, 0, 0}, {op, 1, {-1}, 1, 0, 0},
      {op, 1, {0}, 0, 1, 0},    {op, 2, {0, 2}, 1, 1, 0},
      {op, 1, {1}, 0, 0, 1}, {op, 1, {-1}, 1, 0, 1}, {op, 2, {0, 2}, 0, 1, 1},
  };
  gc_input in2 = IN(-2, 2, 2, 3, 4), in3 = IN(-2, 2, 3, 2, 3, 2);
  for (int i = 0; i < 8; i++) gc_check(op, build_reduce, &cases[i], cases[i].n_axes == 2 && cases[i].axes[1] == 2 ? &in3 : &in2, 1);
}

static void grad_sum_mean_reductions(void) {
  check_reduce("Sum");
  check_reduce("Mean");
}
static void grad_max_min_reductions(void) {
  check_reduce("Max");
  check_reduce("Min");
}

static TF_Output build_select(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  const char *op = arg;
  TF_Output zero = gc_const(g, "zero", TF_DOUBLE, NULL, 0, (double[]){0});
  TF_Output cond = gc_op2(g, "Greater", x[0], zero);
  TF_Output ins[3] = {cond, x[1], x[2]};
  return gc_op(g, op, "sel", ins, 3);
}
static void grad_select_and_select_v2(void) {
  gc_input in[3] = {IN(-1, 1, 2, 2, 3), IN(-1, 1, 2, 2, 3), IN(-1, 1, 2, 2, 3)};
  gc_check("Select", build_select, "Select", in, 3);
  gc_check("SelectV2", build_select, "SelectV2", in, 3);
  gc_input inb[3] = {IN(-1, 1, 2, 2, 3), IN(-1, 1, 1, 3), IN(-1, 1, 0, 0)};
  gc_check("SelectV2 broadcast", build_select, "SelectV2", inb, 3);
}

/* A small chain through several families at once (fan-in, broadcasting, reductions). */
static TF_Output build_chain(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  TF_Output h = gc_op2(g, "MatMul", x[0], x[1]);
  TF_Output a = gc_op2(g, "Add", h, x[2]);
  TF_Output sq = gc_op1(g, "Square", a);
  TF_Output m = gc_op2(g, "Mul", sq, a);
  TF_Output axes = gc_ivec(g, "ax", (int64_t[]){1}, 1);
  return gc_op2(g, "Mean", gc_op2(g, "Sub", m, gc_op1(g, "Exp", x[2])), axes);
}
static void grad_chain_of_ops(void) {
  gc_input in[3] = {IN(-1, 1, 2, 3, 2), IN(-1, 1, 2, 2, 4), IN(-1, 1, 1, 4)};
  gc_check("chain", build_chain, NULL, in, 3);
}

/* ---- Prod, FloorMod, Cumsum, Cumprod ---- */

typedef struct {
  const int64_t *axes;
  int n_axes;
  int keep;
  int placeholder_axes; /* 1: axes fed at run time through a Placeholder with default */
} prod_arg;

static TF_Output build_prod(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  prod_arg *a = arg;
  TF_Output axes = gc_ivec(g, "axes", a->axes, a->n_axes);
  if (a->placeholder_axes) {
    TF_OperationDescription *d = TF_NewOperation(g, "PlaceholderWithDefault", "axes_fed");
    TF_AddInput(d, axes);
    TF_SetAttrType(d, "dtype", TF_INT32);
    TF_SetAttrShape(d, "shape", (int64_t[]){-1}, 1);
    axes = (TF_Output){gc_finish(d), 0};
  }
  TF_OperationDescription *d = TF_NewOperation(g, "Prod", "prod");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, axes);
  TF_SetAttrBool(d, "keep_dims", (unsigned char)a->keep);
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_prod_reductions(void) {
  static const int64_t a1[] = {1}, a02[] = {0, 2}, aneg[] = {-1}, all[] = {0, 1, 2};
  prod_arg args[] = {{a1, 1, 0, 0}, {a02, 2, 1, 0}, {aneg, 1, 0, 0}, {all, 3, 0, 0}, {a02, 2, 0, 1}, {aneg, 1, 1, 1}};
  gc_input in = IN(0.5, 1.5, 3, 2, 3, 4);
  for (int i = 0; i < (int)(sizeof args / sizeof args[0]); i++) gc_check("Prod", build_prod, &args[i], &in, 1);
  gc_input neg = IN(-1.5, -0.5, 2, 3, 2);
  gc_check("Prod negative", build_prod, &args[0], &neg, 1);
}

/* FloorMod away from the discontinuities of floor(x / y): x/y in (k + 0.1, k + 0.9). */
static TF_Output build_floor_mod(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  double yv[3] = {1.0, 2.0, -1.5};
  int64_t n = 3;
  TF_Output y0 = gc_const(g, "ybase", TF_DOUBLE, &n, 1, yv);
  /* y = ybase + 0.05 * x1 (x1 in [-1, 1]) keeps y away from 0 and x / y away from integers */
  double k = 0.05;
  TF_Output y = gc_op2(g, "AddV2", y0, gc_op2(g, "Mul", gc_const(g, "k", TF_DOUBLE, NULL, 0, &k), x[1]));
  double off[6] = {0.5, 1.0, 0.6, 2.5, 3.0, -2.4};
  int64_t od[2] = {2, 3};
  TF_Output xs = gc_op2(g, "AddV2", gc_const(g, "xoff", TF_DOUBLE, od, 2, off), gc_op2(g, "Mul", gc_const(g, "k2", TF_DOUBLE, NULL, 0, &k), x[0]));
  return gc_op2(g, "FloorMod", xs, y);
}

static void grad_floor_mod_broadcast(void) {
  gc_input in[2] = {IN(-1, 1, 2, 2, 3), IN(-1, 1, 1, 3)};
  gc_check("FloorMod", build_floor_mod, NULL, in, 2);
}

typedef struct {
  const char *op;
  int axis, exclusive, reverse;
} scan_arg;

static TF_Output build_scan(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  scan_arg *a = arg;
  double av = a->axis;
  TF_OperationDescription *d = TF_NewOperation(g, a->op, "scan");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, gc_const(g, "axis", TF_INT32, NULL, 0, &av));
  TF_SetAttrBool(d, "exclusive", (unsigned char)a->exclusive);
  TF_SetAttrBool(d, "reverse", (unsigned char)a->reverse);
  return gc_op1(g, "Square", (TF_Output){gc_finish(d), 0});
}

static void grad_cumsum_cumprod_all_modes(void) {
  gc_input in = IN(0.5, 1.5, 2, 3, 4);
  for (int k = 0; k < 8; k++) {
    scan_arg a = {k & 4 ? "Cumprod" : "Cumsum", k & 1 ? -1 : 0, (k >> 1) & 1, k & 1};
    gc_check(a.op, build_scan, &a, &in, 1);
    a.reverse = !a.reverse;
    gc_check(a.op, build_scan, &a, &in, 1);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(grad_add_sub_broadcast),
    TFC_TEST(grad_mul_div_broadcast),
    TFC_TEST(grad_pow_broadcast),
    TFC_TEST(grad_maximum_minimum_broadcast),
    TFC_TEST(grad_unary_ops),
    TFC_TEST(grad_sign_is_zero),
    TFC_TEST(grad_addn_and_fan_in),
    TFC_TEST(grad_matmul_all_transposes),
    TFC_TEST(grad_batch_matmul_adjoints_and_broadcast),
    TFC_TEST(grad_cast_float_roundtrip),
    TFC_TEST(grad_sum_mean_reductions),
    TFC_TEST(grad_max_min_reductions),
    TFC_TEST(grad_select_and_select_v2),
    TFC_TEST(grad_chain_of_ops),
    TFC_TEST(grad_prod_reductions),
    TFC_TEST(grad_floor_mod_broadcast),
    TFC_TEST(grad_cumsum_cumprod_all_modes),
    {0}};
TFC_TEST_MAIN(tests)
