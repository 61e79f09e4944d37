/*
 * grad_complex — gradients of the complex-number ops, as TF's math_grad.py builds them:
 * Complex (the real and imaginary parts of dy, summed over broadcast axes), Real and Imag
 * (dy as the real or imaginary part of a complex gradient), Conj (conj(dy)), ComplexAbs
 * (complex(dy, 0) * x / complex(|x|, 0), 0 where |x| is 0) and Angle (-complex(dy, 0) /
 * complex(imag(x), real(x))). The conjugates in the gradients of Mul and MatMul on complex
 * inputs are in grad_math.c.
 *
 * Builders follow grad_internal.h: they latch the first error in c->s and return its code.
 */
#include "grad/grad_internal.h"

/* The real type of a complex one (complex64 -> float), and back. */
static int real_of(int dt) { return dt == TFC_DT_COMPLEX128 ? TFC_DT_DOUBLE : TFC_DT_FLOAT; }
static int complex_of(int dt) { return dt == TFC_DT_DOUBLE ? TFC_DT_COMPLEX128 : TFC_DT_COMPLEX64; }

static tfc_endpoint part(tfc_grad_ctx *c, const char *type, tfc_endpoint z) {
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("Tout", real_of(tfc_grad_dtype(z)))};
  return tfc_grad_op(c, type, NULL, &z, 1, a, 1);
}

static tfc_endpoint make_complex(tfc_grad_ctx *c, tfc_endpoint re, tfc_endpoint im) {
  tfc_endpoint ins[2] = {re, im};
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("Tout", complex_of(tfc_grad_dtype(re)))};
  return tfc_grad_op(c, "Complex", NULL, ins, 2, a, 1);
}

static int complex_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  c->dx[0] = tfc_grad_bcast_reduce(c, part(c, "Real", g), b.rx, b.sx);
  c->dx[1] = tfc_grad_bcast_reduce(c, part(c, "Imag", g), b.ry, b.sy);
  return c->s->code;
}

static int real_grad(tfc_grad_ctx *c) {
  tfc_endpoint g = c->dy[0];
  tfc_endpoint zero = tfc_grad_const_scalar(c, "Const", tfc_grad_dtype(g), 0, NULL);
  c->dx[0] = make_complex(c, g, zero);
  return c->s->code;
}

static int imag_grad(tfc_grad_ctx *c) {
  tfc_endpoint g = c->dy[0];
  tfc_endpoint zero = tfc_grad_const_scalar(c, "Const", tfc_grad_dtype(g), 0, NULL);
  c->dx[0] = make_complex(c, zero, g);
  return c->s->code;
}

static int conj_grad(tfc_grad_ctx *c) {
  c->dx[0] = tfc_grad_unary(c, "Conj", NULL, c->dy[0]);
  return c->s->code;
}

static int complex_abs_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_out(c, 0), g = c->dy[0];
  tfc_endpoint cg = make_complex(c, g, tfc_grad_unary(c, "ZerosLike", "zeros_like", g));
  tfc_endpoint cy = make_complex(c, y, tfc_grad_unary(c, "ZerosLike", "zeros_like", y));
  c->dx[0] = tfc_grad_binary(c, "DivNoNan", NULL, tfc_grad_binary(c, "Mul", "mul", cg, x), cy);
  return c->s->code;
}

static int angle_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), g = c->dy[0];
  tfc_endpoint re = part(c, "Real", x), im = part(c, "Imag", x);
  tfc_endpoint z = tfc_grad_unary(c, "Reciprocal", NULL, make_complex(c, im, re));
  tfc_endpoint zero = tfc_grad_const_scalar(c, "zero", tfc_grad_dtype(g), 0, NULL);
  tfc_endpoint cg = make_complex(c, g, zero);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", tfc_grad_unary(c, "Neg", NULL, cg), z);
  return c->s->code;
}

const tfc_grad_entry tfc_grad_complex_entries[] = {
    {"Complex", complex_grad},         {"Real", real_grad},   {"Imag", imag_grad}, {"Conj", conj_grad},
    {"ComplexAbs", complex_abs_grad}, {"Angle", angle_grad}, {NULL, NULL},
};
