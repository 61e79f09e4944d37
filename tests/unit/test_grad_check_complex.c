/*
 * test_grad_check_complex — finite-difference checks (float64) of the complex ops' gradients:
 * real inputs go through Complex, the complex op under test, and Real or Imag back to a real
 * output, so each check covers Complex, Real and Imag too. Mul and MatMul on complex operands
 * need the conjugates TF's gradients put in; a gradient without them fails these checks.
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

static TF_Output op_attrs(TF_Graph *g, const char *type, const TF_Output *ins, int n, const char *tattr, TF_DataType t,
                          const char *battr, int b) {
  static int counter;
  char name[32];
  snprintf(name, sizeof name, "c%d", counter++);
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  if (tattr) TF_SetAttrType(d, tattr, t);
  if (battr) TF_SetAttrBool(d, battr, (unsigned char)b);
  return (TF_Output){gc_finish(d), 0};
}

static TF_Output cplx(TF_Graph *g, TF_Output re, TF_Output im) {
  TF_Output ins[2] = {re, im};
  return op_attrs(g, "Complex", ins, 2, "Tout", TF_COMPLEX128, NULL, 0);
}
static TF_Output part(TF_Graph *g, const char *type, TF_Output z) {
  return op_attrs(g, type, &z, 1, "Tout", TF_DOUBLE, NULL, 0);
}

typedef struct {
  const char *op;  /* the complex op under test */
  const char *out; /* Real, Imag, or NULL when op's output is real already */
  const char *battr;
  int b;
} arg;

/* x0 + i x1 (op) [x2 + i x3], then Real / Imag. */
static TF_Output build(TF_Graph *g, TF_Output *x, int nx, void *v) {
  const arg *a = v;
  TF_Output z[2] = {cplx(g, x[0], x[1]), {0}};
  if (nx == 4) z[1] = cplx(g, x[2], x[3]);
  TF_Output r;
  if (!strcmp(a->op, "ComplexAbs") || !strcmp(a->op, "Angle"))
    r = op_attrs(g, a->op, z, 1, "Tout", TF_DOUBLE, NULL, 0);
  else
    r = op_attrs(g, a->op, z, nx / 2, NULL, TF_DOUBLE, a->battr, a->b);
  return a->out ? part(g, a->out, r) : r;
}

static void check(const char *op, const char *out, const gc_input *in, int nx, const char *battr, int b) {
  arg a = {op, out, battr, b};
  char what[64];
  snprintf(what, sizeof what, "%s/%s/%s=%d", op, out ? out : "-", battr ? battr : "-", b);
  gc_check(what, build, &a, in, nx);
}

static void grad_complex_real_imag(void) {
  gc_input same[2] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3)};
  gc_input bcast[2] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 0, 0)};
  /* Conj alone: Complex -> Conj -> Real / Imag */
  check("Conj", "Real", same, 2, NULL, 0);
  check("Conj", "Imag", same, 2, NULL, 0);
  check("Conj", "Imag", bcast, 2, NULL, 0);
}

static void grad_complex_abs_and_angle(void) {
  gc_input same[2] = {IN(0.5, 2, 2, 2, 3), IN(-2, -0.5, 2, 2, 3)};
  gc_input bcast[2] = {IN(0.5, 2, 1, 4), IN(0.5, 2, 0, 0)};
  check("ComplexAbs", NULL, same, 2, NULL, 0);
  check("ComplexAbs", NULL, bcast, 2, NULL, 0);
  check("Angle", NULL, same, 2, NULL, 0);
  check("Angle", NULL, bcast, 2, NULL, 0);
}

static void grad_complex_mul_conjugates(void) {
  gc_input same[4] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3)};
  gc_input bcast[4] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3), IN(-2, 2, 1, 3), IN(-2, 2, 1, 3)};
  for (int i = 0; i < 2; i++) {
    const gc_input *in = i ? bcast : same;
    check("Mul", "Real", in, 4, NULL, 0);
    check("Mul", "Imag", in, 4, NULL, 0);
    check("RealDiv", "Imag", in, 4, NULL, 0);
  }
}

static void grad_complex_matmul_conjugates(void) {
  gc_input ab[4] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 3, 4), IN(-2, 2, 2, 3, 4)};
  gc_input abt[4] = {IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 2, 3), IN(-2, 2, 2, 4, 3), IN(-2, 2, 2, 4, 3)};
  gc_input atb[4] = {IN(-2, 2, 2, 3, 2), IN(-2, 2, 2, 3, 2), IN(-2, 2, 2, 3, 4), IN(-2, 2, 2, 3, 4)};
  check("MatMul", "Real", ab, 4, NULL, 0);
  check("MatMul", "Imag", ab, 4, NULL, 0);
  check("MatMul", "Imag", abt, 4, "transpose_b", 1);
  check("MatMul", "Real", atb, 4, "transpose_a", 1);
  check("BatchMatMulV2", "Imag", ab, 4, NULL, 0);
  check("BatchMatMulV2", "Real", atb, 4, "adj_x", 1);
}

/* The element-wise math: TF's gradients conjugate f'(z) (exp: dy * conj(exp(z)), the fused
 * SqrtGrad / RsqrtGrad / ReciprocalGrad / TanhGrad / SigmoidGrad kernels likewise). */
static void grad_complex_unary_conjugates(void) {
  gc_input in[2] = {IN(0.5, 1.5, 2, 2, 3), IN(-1, 1, 2, 2, 3)};
  static const char *const ops[] = {"Exp", "Log", "Log1p", "Expm1", "Sqrt", "Rsqrt", "Reciprocal", "Square", "Tanh",
                                    "Sigmoid", "Sin", "Cos", "Tan", "Neg"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    check(ops[i], "Real", in, 2, NULL, 0);
    check(ops[i], "Imag", in, 2, NULL, 0);
  }
}

static void grad_complex_pow_div_sub(void) {
  gc_input in[4] = {IN(0.5, 1.5, 2, 2, 3), IN(-1, 1, 2, 2, 3), IN(0.5, 1.5, 1, 3), IN(-1, 1, 1, 3)};
  check("Pow", "Real", in, 4, NULL, 0);
  check("Pow", "Imag", in, 4, NULL, 0);
  check("Div", "Real", in, 4, NULL, 0);
  check("Sub", "Imag", in, 4, NULL, 0);
}

static const tfc_test tests[] = {TFC_TEST(grad_complex_real_imag), TFC_TEST(grad_complex_abs_and_angle),
                                 TFC_TEST(grad_complex_mul_conjugates), TFC_TEST(grad_complex_matmul_conjugates),
                                 TFC_TEST(grad_complex_unary_conjugates), TFC_TEST(grad_complex_pow_div_sub),
                                 {NULL, NULL}};
TFC_TEST_MAIN(tests)
