/*
 * grad_math — gradient builders of the math family: element-wise unary and binary ops
 * (with numpy broadcasting undone by Shape + BroadcastGradientArgs + Sum + Reshape), AddN,
 * matrix products, Cast, reductions (Sum, Mean, Min, Max, Prod), the scans Cumsum and
 * Cumprod, FloorMod and Select.
 *
 * Each builder follows the math of TF's Python gradient (math_grad.py) and creates its nodes
 * in the same order with the same names ("mul" for Python's `*` operator, "truediv" for `/`,
 * op types for generated wrappers), so graphs line up name for name with tf.gradients where
 * the shapes lead Python down the same path (reductions over shapes known only at run time
 * build Python's reduced_shape, a DynamicStitch).
 */
#include <stdlib.h>
#include <string.h>

#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

static int has_op(const char *name) { return tfc_op_lookup(name) != NULL; }

static int is_complex(int dt) { return dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128; }

/* Python's math_ops.conj: a Conj node for a complex x, x itself otherwise. With ctrl, the Conj
 * runs after ctrl (the gradient builders' `with ops.control_dependencies([grad])`). */
static tfc_endpoint conj_of(tfc_grad_ctx *c, tfc_endpoint x, tfc_node *ctrl) {
  if (!is_complex(tfc_grad_dtype(x))) return x;
  return (tfc_endpoint){tfc_grad_node(c, "Conj", NULL, &x, 1, -1, 0, NULL, 0, ctrl), 0};
}

/* ---- broadcasting binary ops ---- */

static int add_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  if (tfc_grad_same_full_shape(x, y) && tfc_grad_same_full_shape(x, g)) {
    c->dx[0] = c->dx[1] = g;
    return TFC_OK;
  }
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  c->dx[0] = tfc_grad_bcast_reduce(c, g, b.rx, b.sx);
  c->dx[1] = tfc_grad_bcast_reduce(c, g, b.ry, b.sy);
  return c->s->code;
}

static int sub_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  if (tfc_grad_same_full_shape(x, y) && tfc_grad_same_full_shape(x, g)) {
    c->dx[0] = g;
    c->dx[1] = tfc_grad_unary(c, "Neg", NULL, g);
    return c->s->code;
  }
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  c->dx[0] = tfc_grad_bcast_reduce(c, g, b.rx, b.sx);
  tfc_endpoint sy = tfc_grad_sum(c, g, b.ry);
  c->dx[1] = tfc_grad_reshape(c, tfc_grad_unary(c, "Neg", NULL, sy), b.sy);
  return c->s->code;
}

static int mul_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  int dt = tfc_grad_dtype(g);
  if (tfc_grad_same_full_shape(x, y) && tfc_grad_same_full_shape(x, g) &&
      (dt == TFC_DT_INT32 || dt == TFC_DT_FLOAT)) {
    c->dx[0] = tfc_grad_binary(c, "Mul", NULL, g, y);
    c->dx[1] = tfc_grad_binary(c, "Mul", NULL, g, x);
    return c->s->code;
  }
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  if (is_complex(dt)) { /* d(xy) against dy: dy * conj(y), conj(x) * dy */
    x = tfc_grad_unary(c, "Conj", NULL, x);
    y = tfc_grad_unary(c, "Conj", NULL, y);
  }
  c->dx[0] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", NULL, g, y), b.rx, b.sx);
  c->dx[1] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", NULL, x, g), b.ry, b.sy);
  return c->s->code;
}

/* RealDiv through realdiv(), Div through Python's `/` ("truediv"); same math. */
static int div_common(tfc_grad_ctx *c, const char *name) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  if (is_complex(tfc_grad_dtype(x))) { /* conjugated operands, as for Mul */
    x = tfc_grad_unary(c, "Conj", NULL, x);
    y = tfc_grad_unary(c, "Conj", NULL, y);
  }
  c->dx[0] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "RealDiv", name, g, y), b.rx, b.sx);
  tfc_endpoint nx = tfc_grad_unary(c, "Neg", NULL, x);
  tfc_endpoint q = tfc_grad_binary(c, "RealDiv", name, tfc_grad_binary(c, "RealDiv", name, nx, y), y);
  c->dx[1] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", "mul", g, q), b.ry, b.sy);
  return c->s->code;
}
static int realdiv_grad(tfc_grad_ctx *c) { return div_common(c, NULL); }
/* DivNoNan (tf.div_no_nan, tf.losses' "value"): the same math with div_no_nan for each division,
 * so a zero y gives zero gradients: dx = g div_no_nan y, dy = g * ((-x div_no_nan y) div_no_nan y). */
static int div_no_nan_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  c->dx[0] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "DivNoNan", "div_no_nan", g, y), b.rx, b.sx);
  tfc_endpoint nx = tfc_grad_unary(c, "Neg", NULL, x);
  tfc_endpoint q = tfc_grad_binary(c, "DivNoNan", "div_no_nan", nx, y);
  q = tfc_grad_binary(c, "DivNoNan", "div_no_nan", q, y);
  c->dx[1] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", "mul", g, q), b.ry, b.sy);
  return c->s->code;
}
static int div_grad(tfc_grad_ctx *c) { return div_common(c, "truediv"); }

static int maxmin_common(tfc_grad_ctx *c, const char *selector) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_endpoint sx = tfc_grad_shape(c, x), sy = tfc_grad_shape(c, y), sg = tfc_grad_shape(c, g);
  tfc_endpoint zc = tfc_grad_const_scalar(c, "zeros/Const", tfc_grad_dtype(g), 0, NULL);
  tfc_endpoint zeros = tfc_grad_binary(c, "Fill", "zeros", sg, zc);
  tfc_endpoint mask = tfc_grad_binary(c, selector, NULL, x, y);
  tfc_endpoint ins[2] = {sx, sy};
  tfc_node *bga = tfc_grad_node(c, "BroadcastGradientArgs", NULL, ins, 2, -1, 0, NULL, 0, NULL);
  tfc_endpoint rx = {bga, 0}, ry = {bga, 1};
  tfc_endpoint s1[3] = {mask, g, zeros}, s2[3] = {mask, zeros, g};
  tfc_endpoint xg = tfc_grad_op(c, "Select", NULL, s1, 3, NULL, 0);
  tfc_endpoint yg = tfc_grad_op(c, "Select", NULL, s2, 3, NULL, 0);
  c->dx[0] = tfc_grad_bcast_reduce(c, xg, rx, sx);
  c->dx[1] = tfc_grad_bcast_reduce(c, yg, ry, sy);
  return c->s->code;
}
static int maximum_grad(tfc_grad_ctx *c) { return maxmin_common(c, "GreaterEqual"); }
static int minimum_grad(tfc_grad_ctx *c) { return maxmin_common(c, "LessEqual"); }

static int squared_difference_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  tfc_endpoint two = tfc_grad_const_scalar(c, "scalar", tfc_grad_dtype(g), 2, g.node);
  tfc_endpoint g2 = tfc_grad_binary(c, "Mul", NULL, two, g);
  tfc_endpoint d = tfc_grad_binary(c, "Sub", "sub", x, y);
  tfc_endpoint xg = tfc_grad_binary(c, "Mul", "mul", g2, d);
  c->dx[0] = tfc_grad_bcast_reduce(c, xg, b.rx, b.sx);
  c->dx[1] = tfc_grad_unary(c, "Neg", NULL, tfc_grad_bcast_reduce(c, xg, b.ry, b.sy));
  return c->s->code;
}

/* d(x^y) = y x^(y-1) dx + x^y log(x) dy, with log taken as 0 where x <= 0 (TF's choice; for
 * complex x where x == 0, and x, y and x^y conjugated first). */
static int pow_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), z = tfc_grad_out(c, 0), g = c->dy[0];
  int dt = tfc_grad_dtype(x), cplx = is_complex(dt);
  z = conj_of(c, z, NULL);
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  x = conj_of(c, x, NULL);
  y = conj_of(c, y, NULL);
  tfc_endpoint ym1 = tfc_grad_binary(c, "Sub", "sub", y, tfc_grad_const_scalar(c, "sub/y", dt, 1, NULL));
  tfc_endpoint p = tfc_grad_binary(c, "Pow", NULL, x, ym1);
  tfc_endpoint yp = tfc_grad_binary(c, "Mul", "mul", y, p);
  c->dx[0] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", NULL, g, yp), b.rx, b.sx);
  tfc_endpoint mask = cplx ? tfc_grad_binary(c, "NotEqual", NULL, x, tfc_grad_const_scalar(c, "NotEqual/y", dt, 0, NULL))
                           : tfc_grad_binary(c, "Greater", NULL, x, tfc_grad_const_scalar(c, "Greater/y", dt, 0, NULL));
  tfc_endpoint ones = tfc_grad_unary(c, "OnesLike", "ones_like", x);
  tfc_endpoint s1[3] = {mask, x, ones};
  tfc_endpoint safe_x = tfc_grad_op(c, "Select", NULL, s1, 3, NULL, 0);
  tfc_endpoint logx = tfc_grad_unary(c, "Log", NULL, safe_x);
  tfc_endpoint zeros = tfc_grad_unary(c, "ZerosLike", "zeros_like", x);
  tfc_endpoint s2[3] = {mask, logx, zeros};
  tfc_endpoint log_x = tfc_grad_op(c, "Select", NULL, s2, 3, NULL, 0);
  tfc_endpoint gz = tfc_grad_binary(c, "Mul", "mul", g, z);
  c->dx[1] = tfc_grad_bcast_reduce(c, tfc_grad_binary(c, "Mul", "mul", gz, log_x), b.ry, b.sy);
  return c->s->code;
}

/* ---- unary ---- */

static int neg_grad(tfc_grad_ctx *c) {
  c->dx[0] = tfc_grad_unary(c, "Neg", NULL, c->dy[0]);
  return c->s->code;
}

static int square_grad(tfc_grad_ctx *c) {
  tfc_endpoint g = c->dy[0], x = conj_of(c, tfc_grad_in(c, 0), g.node);
  tfc_endpoint two = tfc_grad_const_scalar(c, NULL, tfc_grad_dtype(x), 2, g.node);
  c->dx[0] = tfc_grad_binary(c, "Mul", NULL, g, tfc_grad_binary(c, "Mul", NULL, x, two));
  return c->s->code;
}

/* y' op (y, dy) when tfc has TF's fused gradient op; else `fallback`. */
static int fused_or(tfc_grad_ctx *c, const char *fused, int (*fallback)(tfc_grad_ctx *c)) {
  if (!has_op(fused)) return fallback(c);
  c->dx[0] = tfc_grad_binary(c, fused, NULL, tfc_grad_out(c, 0), c->dy[0]);
  return c->s->code;
}

static int sqrt_plain(tfc_grad_ctx *c) { /* dy * 0.5 / y */
  tfc_endpoint y = tfc_grad_out(c, 0);
  tfc_endpoint half = tfc_grad_const_scalar(c, NULL, tfc_grad_dtype(y), 0.5, NULL);
  c->dx[0] = tfc_grad_binary(c, "RealDiv", NULL, tfc_grad_binary(c, "Mul", NULL, c->dy[0], half), y);
  return c->s->code;
}
static int sqrt_grad(tfc_grad_ctx *c) { return fused_or(c, "SqrtGrad", sqrt_plain); }

static int rsqrt_plain(tfc_grad_ctx *c) { /* dy * -0.5 * y^3 */
  tfc_endpoint y = tfc_grad_out(c, 0);
  tfc_endpoint y3 = tfc_grad_binary(c, "Mul", NULL, tfc_grad_binary(c, "Mul", NULL, y, y), y);
  tfc_endpoint k = tfc_grad_const_scalar(c, NULL, tfc_grad_dtype(y), -0.5, NULL);
  c->dx[0] = tfc_grad_binary(c, "Mul", NULL, tfc_grad_binary(c, "Mul", NULL, c->dy[0], y3), k);
  return c->s->code;
}
static int rsqrt_grad(tfc_grad_ctx *c) { return fused_or(c, "RsqrtGrad", rsqrt_plain); }

static int reciprocal_plain(tfc_grad_ctx *c) { /* -dy * y^2 */
  tfc_endpoint y = tfc_grad_out(c, 0);
  tfc_endpoint t = tfc_grad_binary(c, "Mul", NULL, c->dy[0], tfc_grad_binary(c, "Mul", NULL, y, y));
  c->dx[0] = tfc_grad_unary(c, "Neg", NULL, t);
  return c->s->code;
}
static int reciprocal_grad(tfc_grad_ctx *c) { return fused_or(c, "ReciprocalGrad", reciprocal_plain); }

static int tanh_plain(tfc_grad_ctx *c) { /* dy * (1 - y^2) */
  tfc_endpoint y = tfc_grad_out(c, 0);
  tfc_endpoint one = tfc_grad_const_scalar(c, NULL, tfc_grad_dtype(y), 1, NULL);
  tfc_endpoint d = tfc_grad_binary(c, "Sub", NULL, one, tfc_grad_binary(c, "Mul", NULL, y, y));
  c->dx[0] = tfc_grad_binary(c, "Mul", NULL, c->dy[0], d);
  return c->s->code;
}
static int tanh_grad(tfc_grad_ctx *c) { return fused_or(c, "TanhGrad", tanh_plain); }

static int sigmoid_plain(tfc_grad_ctx *c) { /* dy * y * (1 - y) */
  tfc_endpoint y = tfc_grad_out(c, 0);
  tfc_endpoint one = tfc_grad_const_scalar(c, NULL, tfc_grad_dtype(y), 1, NULL);
  tfc_endpoint d = tfc_grad_binary(c, "Mul", NULL, y, tfc_grad_binary(c, "Sub", NULL, one, y));
  c->dx[0] = tfc_grad_binary(c, "Mul", NULL, c->dy[0], d);
  return c->s->code;
}
static int sigmoid_grad(tfc_grad_ctx *c) { return fused_or(c, "SigmoidGrad", sigmoid_plain); }

static int exp_grad(tfc_grad_ctx *c) {
  tfc_endpoint y = conj_of(c, tfc_grad_out(c, 0), c->dy[0].node);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], y);
  return c->s->code;
}

/* An op of `type` on x with a control input on the incoming gradient's producer (Python's
 * `with ops.control_dependencies([grad])`). */
static tfc_endpoint after_grad(tfc_grad_ctx *c, const char *type, tfc_endpoint x) {
  tfc_endpoint e = {tfc_grad_node(c, type, NULL, &x, 1, -1, 0, NULL, 0, c->dy[0].node), 0};
  return e;
}

static int log_grad(tfc_grad_ctx *c) {
  tfc_endpoint r = after_grad(c, "Reciprocal", conj_of(c, tfc_grad_in(c, 0), c->dy[0].node));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], r);
  return c->s->code;
}

static int log1p_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = conj_of(c, tfc_grad_in(c, 0), c->dy[0].node);
  tfc_endpoint one = tfc_grad_const_scalar(c, "add/x", tfc_grad_dtype(x), 1, c->dy[0].node);
  tfc_endpoint r = tfc_grad_unary(c, "Reciprocal", NULL, tfc_grad_binary(c, "Add", "add", one, x));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], r);
  return c->s->code;
}

static int expm1_grad(tfc_grad_ctx *c) {
  tfc_endpoint e = after_grad(c, "Exp", conj_of(c, tfc_grad_in(c, 0), c->dy[0].node));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], e);
  return c->s->code;
}

static int sin_grad(tfc_grad_ctx *c) {
  tfc_endpoint cs = after_grad(c, "Cos", conj_of(c, tfc_grad_in(c, 0), c->dy[0].node));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], cs);
  return c->s->code;
}

static int cos_grad(tfc_grad_ctx *c) {
  tfc_endpoint ng = tfc_grad_unary(c, "Neg", NULL, c->dy[0]);
  tfc_endpoint sn = after_grad(c, "Sin", conj_of(c, tfc_grad_in(c, 0), c->dy[0].node));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", ng, sn);
  return c->s->code;
}

static int abs_grad(tfc_grad_ctx *c) {
  tfc_endpoint sg = tfc_grad_unary(c, "Sign", NULL, tfc_grad_in(c, 0));
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], sg);
  return c->s->code;
}

/* Sign: zeros of x's shape (TF returns a real zero tensor, not None). */
static int sign_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0);
  tfc_endpoint sx = tfc_grad_shape(c, x);
  tfc_endpoint z = tfc_grad_const_scalar(c, "zeros/Const", tfc_grad_dtype(x), 0, NULL);
  c->dx[0] = tfc_grad_binary(c, "Fill", "zeros", sx, z);
  return c->s->code;
}

/* Floor, Ceil, Round: TF registers a gradient that returns None. */
static int none_grad(tfc_grad_ctx *c) { return TFC_OK; }

static int addn_grad(tfc_grad_ctx *c) {
  for (int i = 0; i < c->op->n_inputs; i++) c->dx[i] = c->dy[0];
  return TFC_OK;
}

/* ---- matrix products ---- */

static tfc_endpoint matmul(tfc_grad_ctx *c, const char *type, const char *an, const char *bn, tfc_endpoint a,
                           tfc_endpoint b, int ta, int tb) {
  tfc_endpoint ins[2] = {a, b};
  tfc_grad_attr at[2] = {TFC_GRAD_ATTR_BOOL(an, ta), TFC_GRAD_ATTR_BOOL(bn, tb)};
  return tfc_grad_op(c, type, "MatMul", ins, 2, at, 2);
}

static void matmul_pair(tfc_grad_ctx *c, const char *type, const char *an, const char *bn, int ta, int tb) {
  tfc_endpoint a = tfc_grad_in(c, 0), b = tfc_grad_in(c, 1), g = c->dy[0];
  /* MatMul's transposes do not conjugate: complex operands are conjugated first, as TF's
   * gradient does (BatchMatMul's adjoints conjugate already). */
  if (is_complex(tfc_grad_dtype(a)) && !strcmp(type, "MatMul")) {
    a = tfc_grad_unary(c, "Conj", NULL, a);
    b = tfc_grad_unary(c, "Conj", NULL, b);
  }
  if (!ta && !tb) {
    c->dx[0] = matmul(c, type, an, bn, g, b, 0, 1);
    c->dx[1] = matmul(c, type, an, bn, a, g, 1, 0);
  } else if (!ta && tb) {
    c->dx[0] = matmul(c, type, an, bn, g, b, 0, 0);
    c->dx[1] = matmul(c, type, an, bn, g, a, 1, 0);
  } else if (ta && !tb) {
    c->dx[0] = matmul(c, type, an, bn, b, g, 0, 1);
    c->dx[1] = matmul(c, type, an, bn, a, g, 0, 0);
  } else {
    c->dx[0] = matmul(c, type, an, bn, b, g, 1, 1);
    c->dx[1] = matmul(c, type, an, bn, g, a, 1, 1);
  }
}

static int matmul_grad(tfc_grad_ctx *c) {
  int ta = 0, tb = 0;
  tfc_node_attr_bool(c->op, "transpose_a", &ta);
  tfc_node_attr_bool(c->op, "transpose_b", &tb);
  matmul_pair(c, "MatMul", "transpose_a", "transpose_b", ta, tb);
  return c->s->code;
}

static int batch_matmul_grad(tfc_grad_ctx *c) {
  int ax = 0, ay = 0;
  tfc_node_attr_bool(c->op, "adj_x", &ax);
  tfc_node_attr_bool(c->op, "adj_y", &ay);
  matmul_pair(c, c->op->op->name, "adj_x", "adj_y", ax, ay);
  return c->s->code;
}

/* V2 broadcasts the batch dims: reduce each side over the batch axes it was broadcast along. */
static int batch_matmul_v2_grad(tfc_grad_ctx *c) {
  TFC_TRY(batch_matmul_grad(c));
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1);
  const tfc_shape *xs = tfc_grad_static_shape(x), *ys = tfc_grad_static_shape(y);
  if (tfc_shape_fully_defined(xs) && tfc_shape_fully_defined(ys) && xs->rank == ys->rank) {
    int same = 1;
    for (int i = 0; i + 2 < xs->rank; i++) same &= xs->dims[i] == ys->dims[i];
    if (same) return TFC_OK;
  }
  tfc_endpoint sx = tfc_grad_shape(c, x), sy = tfc_grad_shape(c, y);
  int64_t z = 0, m2 = -2, one = 1;
  tfc_endpoint b = tfc_grad_const_ivec(c, NULL, &z, 1), e = tfc_grad_const_ivec(c, NULL, &m2, 1),
               st = tfc_grad_const_ivec(c, NULL, &one, 1);
  tfc_endpoint i1[4] = {sx, b, e, st}, i2[4] = {sy, b, e, st};
  tfc_grad_attr a1[1] = {TFC_GRAD_ATTR_INT("begin_mask", 1)}, a2[1] = {TFC_GRAD_ATTR_INT("begin_mask", 1)};
  tfc_endpoint bx = tfc_grad_op(c, "StridedSlice", "strided_slice", i1, 4, a1, 1);
  tfc_endpoint by = tfc_grad_op(c, "StridedSlice", "strided_slice", i2, 4, a2, 1);
  tfc_endpoint ins[2] = {bx, by};
  tfc_node *bga = tfc_grad_node(c, "BroadcastGradientArgs", NULL, ins, 2, -1, 0, NULL, 0, NULL);
  c->dx[0] = tfc_grad_bcast_reduce(c, c->dx[0], (tfc_endpoint){bga, 0}, sx);
  c->dx[1] = tfc_grad_bcast_reduce(c, c->dx[1], (tfc_endpoint){bga, 1}, sy);
  return c->s->code;
}

static int is_float_type(int dt) {
  return dt == TFC_DT_HALF || dt == TFC_DT_FLOAT || dt == TFC_DT_DOUBLE || dt == TFC_DT_BFLOAT16 ||
         dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128;
}

static int cast_grad(tfc_grad_ctx *c) {
  int src = tfc_grad_dtype(tfc_grad_in(c, 0)), dst = tfc_grad_dtype(c->dy[0]);
  if (is_float_type(src) && is_float_type(dst)) c->dx[0] = tfc_grad_cast(c, c->dy[0], src);
  return c->s->code;
}

/* ---- reductions ---- */

/*
 * Python's math_ops.reduced_shape: input_shape with the reduced axes set to 1, as TF builds it
 * for shapes known only at run time: DynamicStitch([range(rank), (axes + rank) % rank],
 * [input_shape, ones(shape(axes))]), with TF's node names.
 */
static tfc_endpoint reduced_shape(tfc_grad_ctx *c, tfc_endpoint input_shape, tfc_endpoint axes) {
  if (tfc_grad_dtype(axes) != TFC_DT_INT32) axes = tfc_grad_cast(c, axes, TFC_DT_INT32);
  tfc_endpoint rank = tfc_grad_size_opt(c, input_shape);
  tfc_endpoint mod = tfc_grad_binary(c, "FloorMod", "mod", tfc_grad_binary(c, "AddV2", "add", axes, rank), rank);
  tfc_endpoint axes_shape = tfc_grad_shape_opt(c, mod, TFC_DT_INT32);
  tfc_endpoint rng[3] = {tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL), rank,
                         tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 1, NULL)};
  tfc_endpoint range = tfc_grad_op(c, "Range", "range", rng, 3, NULL, 0);
  tfc_endpoint ones = tfc_grad_binary(c, "Fill", "ones", axes_shape,
                                      tfc_grad_const_scalar(c, "ones/Const", TFC_DT_INT32, 1, NULL));
  tfc_endpoint ins[4] = {range, mod, input_shape, ones};
  return tfc_grad_op_lists(c, "DynamicStitch", NULL, ins, 2, 2);
}

/*
 * The reshape target (x's shape with the reduced axes set to 1) and the tile multiples (x's
 * size on reduced axes, 1 elsewhere) of a reduction's gradient, as TF 1.15's _SumGrad makes
 * them: Consts when x's shape and the axes are known, else Shape(x), reduced_shape and
 * Python's _safe_shape_div (Shape(x) // Maximum(kept, 1)).
 */
static void reduction_shapes(tfc_grad_ctx *c, tfc_endpoint *kept, tfc_endpoint *tile) {
  tfc_endpoint x = tfc_grad_in(c, 0);
  const tfc_shape *xs = tfc_grad_static_shape(x);
  int64_t axes[TFC_MAX_DIMS];
  int n_axes = 0;
  if (xs->rank >= 0 && tfc_grad_const_ints(c, 1, axes, TFC_MAX_DIMS, &n_axes)) {
    int r = xs->rank;
    int64_t red[TFC_MAX_DIMS] = {0};
    for (int i = 0; i < n_axes; i++) {
      int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
      if (a < 0 || a >= r) {
        tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Invalid reduction dimension %lld for input with %d dimensions.",
                       (long long)axes[i], r);
        return;
      }
      red[a] = 1;
    }
    if (tfc_shape_fully_defined(xs)) {
      int64_t k[TFC_MAX_DIMS], t[TFC_MAX_DIMS];
      for (int i = 0; i < r; i++) {
        k[i] = red[i] ? 1 : xs->dims[i];
        t[i] = red[i] ? xs->dims[i] : 1;
      }
      *kept = tfc_grad_const_ivec(c, NULL, k, r);
      if (tile) *tile = tfc_grad_const_ivec(c, NULL, t, r);
      return;
    }
  }
  tfc_endpoint sx = tfc_grad_shape(c, x);
  *kept = reduced_shape(c, sx, tfc_grad_in(c, 1));
  if (tile) {
    tfc_endpoint one = tfc_grad_const_scalar(c, "Maximum/y", TFC_DT_INT32, 1, NULL);
    tfc_endpoint safe = tfc_grad_binary(c, "Maximum", NULL, *kept, one);
    *tile = tfc_grad_binary(c, "FloorDiv", "floordiv", sx, safe);
  }
}

/* Pack(a, b) of two scalars. */
static tfc_endpoint pack_pair(tfc_grad_ctx *c, const char *name, tfc_endpoint a, tfc_endpoint b) {
  tfc_endpoint ins[2] = {a, b};
  return (tfc_endpoint){tfc_grad_node(c, "Pack", name, ins, 2, 0, 2, NULL, 0, NULL), 0};
}

/* Cumsum / Cumprod of x along axis. */
static tfc_endpoint scan(tfc_grad_ctx *c, const char *type, tfc_endpoint x, tfc_endpoint axis, int exclusive,
                         int reverse) {
  tfc_endpoint ins[2] = {x, axis};
  tfc_grad_attr a[2] = {TFC_GRAD_ATTR_BOOL("exclusive", exclusive), TFC_GRAD_ATTR_BOOL("reverse", reverse)};
  return tfc_grad_op(c, type, NULL, ins, 2, a, 2);
}

static int sum_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), g = c->dy[0];
  const tfc_shape *xs = tfc_grad_static_shape(x);
  int64_t axes[TFC_MAX_DIMS];
  int n_axes = 0;
  if (xs->rank >= 0 && tfc_grad_const_ints(c, 1, axes, TFC_MAX_DIMS, &n_axes) && n_axes == xs->rank) {
    int all = 1;
    for (int i = 0; i < n_axes; i++) all &= axes[i] == i;
    if (all) { /* Python's fast path for a reduction to a scalar */
      int64_t ones[TFC_MAX_DIMS];
      for (int i = 0; i < xs->rank; i++) ones[i] = 1;
      tfc_endpoint rs = tfc_grad_reshape(c, g, tfc_grad_const_ivec(c, "Reshape/shape", ones, xs->rank));
      tfc_endpoint shape = tfc_shape_fully_defined(xs) ? tfc_grad_const_ivec(c, NULL, xs->dims, xs->rank)
                                                       : tfc_grad_shape(c, x);
      c->dx[0] = tfc_grad_binary(c, "Tile", NULL, rs, shape);
      return c->s->code;
    }
  }
  tfc_endpoint kept = tfc_grad_none(), tile = tfc_grad_none();
  reduction_shapes(c, &kept, &tile);
  c->dx[0] = tfc_grad_binary(c, "Tile", NULL, tfc_grad_reshape(c, g, kept), tile);
  return c->s->code;
}

static int mean_grad(tfc_grad_ctx *c) {
  TFC_TRY(sum_grad(c));
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_out(c, 0);
  const tfc_shape *xs = tfc_grad_static_shape(x), *ys = tfc_grad_static_shape(y);
  int dt = tfc_grad_dtype(c->dx[0]);
  tfc_endpoint factor;
  if (tfc_shape_fully_defined(xs) && tfc_shape_fully_defined(ys)) {
    int64_t in = tfc_shape_num_elements(xs), out = tfc_shape_num_elements(ys);
    factor = tfc_grad_const_scalar(c, NULL, dt, (double)(in / (out > 1 ? out : 1)), NULL);
  } else {
    tfc_endpoint sx = tfc_grad_shape(c, x), sy = tfc_grad_shape(c, y);
    int64_t z = 0;
    tfc_endpoint px = tfc_grad_binary(c, "Prod", NULL, sx, tfc_grad_const_ivec(c, NULL, &z, 1));
    tfc_endpoint py = tfc_grad_binary(c, "Prod", NULL, sy, tfc_grad_const_ivec(c, NULL, &z, 1));
    tfc_endpoint one = tfc_grad_const_scalar(c, "Maximum/y", TFC_DT_INT32, 1, NULL);
    tfc_endpoint q = tfc_grad_binary(c, "FloorDiv", "floordiv", px, tfc_grad_binary(c, "Maximum", NULL, py, one));
    factor = tfc_grad_cast(c, q, dt);
  }
  c->dx[0] = tfc_grad_binary(c, "RealDiv", "truediv", c->dx[0], factor);
  return c->s->code;
}

/* The gradient goes to the selected elements, split evenly between ties (TF's rule). */
static int min_max_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), g = c->dy[0];
  tfc_endpoint kept = tfc_grad_none();
  reduction_shapes(c, &kept, NULL);
  tfc_endpoint y = tfc_grad_reshape(c, tfc_grad_out(c, 0), kept);
  tfc_endpoint gk = tfc_grad_reshape(c, g, kept);
  tfc_endpoint ind = tfc_grad_cast(c, tfc_grad_binary(c, "Equal", NULL, y, x), tfc_grad_dtype(g));
  tfc_endpoint n = tfc_grad_reshape(c, tfc_grad_sum(c, ind, tfc_grad_in(c, 1)), kept);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", tfc_grad_binary(c, "RealDiv", "div", ind, n), gk);
  return c->s->code;
}

/*
 * Prod (Python's _ProdGrad): the product of all the other elements of each reduced group,
 * as an exclusive cumulative product from the left times one from the right, computed on x
 * transposed so the reduced axes come first and reshaped to [reduced, other]. Python finds
 * the other axes with setdiff1d (ListDiff, which tfc lacks): with constant axes and a known
 * rank they are Consts here; otherwise the permutation comes from ranking the keys
 * (axis + rank * !reduced) by counting smaller keys, then InvertPermutation — the same
 * order: reduced axes ascending, then the others ascending.
 */
static int prod_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), g = c->dy[0];
  const tfc_shape *xs = tfc_grad_static_shape(x);
  int64_t m1 = -1, z = 0;
  tfc_endpoint input_shape = tfc_grad_shape(c, x);
  tfc_endpoint kept = tfc_grad_none(), tile = tfc_grad_none();
  reduction_shapes(c, &kept, &tile);
  g = tfc_grad_binary(c, "Tile", NULL, tfc_grad_reshape(c, g, kept), tile);
  int64_t axes[TFC_MAX_DIMS];
  int n_axes = 0;
  tfc_endpoint perm, reduced_num, other_num;
  tfc_endpoint zero_axis = tfc_grad_const_scalar(c, "GatherV2/axis", TFC_DT_INT32, 0, NULL);
  if (xs->rank >= 0 && tfc_grad_const_ints(c, 1, axes, TFC_MAX_DIMS, &n_axes)) {
    int r = xs->rank, red[TFC_MAX_DIMS] = {0};
    int64_t rv[TFC_MAX_DIMS], ov[TFC_MAX_DIMS];
    int nr = 0, no = 0;
    for (int i = 0; i < n_axes; i++) red[((axes[i] % r) + r) % r] = 1; /* axes were checked above */
    for (int i = 0; i < r; i++) {
      if (red[i]) rv[nr++] = i;
      else ov[no++] = i;
    }
    tfc_endpoint reduced = tfc_grad_const_ivec(c, "Cast", rv, nr);
    tfc_endpoint other = tfc_grad_const_ivec(c, "SetDiff1D", ov, no);
    tfc_endpoint ci[3] = {reduced, other, tfc_grad_const_scalar(c, "concat/axis", TFC_DT_INT32, 0, NULL)};
    perm = (tfc_endpoint){tfc_grad_node(c, "ConcatV2", "concat", ci, 3, 0, 2, NULL, 0, NULL), 0};
    tfc_endpoint g1[3] = {input_shape, reduced, zero_axis}, g2[3] = {input_shape, other, zero_axis};
    tfc_endpoint c0 = tfc_grad_const_ivec(c, "Const", &z, 1);
    reduced_num = tfc_grad_binary(c, "Prod", NULL, tfc_grad_op(c, "GatherV2", NULL, g1, 3, NULL, 0), c0);
    other_num = tfc_grad_binary(c, "Prod", NULL, tfc_grad_op(c, "GatherV2", NULL, g2, 3, NULL, 0), c0);
  } else {
    tfc_endpoint rank = tfc_grad_unary(c, "Rank", NULL, x);
    tfc_endpoint ri = tfc_grad_reshape(c, tfc_grad_in(c, 1), tfc_grad_const_ivec(c, "Reshape/shape", &m1, 1));
    if (tfc_grad_dtype(ri) != TFC_DT_INT32) ri = tfc_grad_cast(c, ri, TFC_DT_INT32);
    tfc_endpoint reduced = tfc_grad_binary(c, "FloorMod", "mod", tfc_grad_binary(c, "AddV2", "add", ri, rank), rank);
    tfc_endpoint rng[3] = {tfc_grad_const_scalar(c, "range/start", TFC_DT_INT32, 0, NULL), rank,
                           tfc_grad_const_scalar(c, "range/delta", TFC_DT_INT32, 1, NULL)};
    tfc_endpoint idx = tfc_grad_op(c, "Range", "range", rng, 3, NULL, 0);
    /* is_other = 1 - min(count of idx in reduced, 1); key = idx + rank * is_other */
    tfc_endpoint us[3] = {tfc_grad_unary(c, "OnesLike", "ones_like", reduced), reduced, rank};
    tfc_endpoint cnt = tfc_grad_op(c, "UnsortedSegmentSum", NULL, us, 3, NULL, 0);
    tfc_endpoint one = tfc_grad_const_scalar(c, "Minimum/y", TFC_DT_INT32, 1, NULL);
    tfc_endpoint is_other = tfc_grad_binary(c, "Sub", "sub", one, tfc_grad_binary(c, "Minimum", NULL, cnt, one));
    tfc_endpoint key = tfc_grad_binary(c, "AddV2", "add", idx, tfc_grad_binary(c, "Mul", "mul", is_other, rank));
    tfc_endpoint row = tfc_grad_binary(c, "ExpandDims", NULL, key, tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 0, NULL));
    tfc_endpoint col = tfc_grad_binary(c, "ExpandDims", NULL, key, tfc_grad_const_scalar(c, "ExpandDims/dim", TFC_DT_INT32, 1, NULL));
    tfc_endpoint smaller = tfc_grad_cast(c, tfc_grad_binary(c, "Less", NULL, row, col), TFC_DT_INT32);
    tfc_endpoint pos = tfc_grad_sum(c, smaller, tfc_grad_const_scalar(c, "Sum/reduction_indices", TFC_DT_INT32, 1, NULL));
    perm = tfc_grad_unary(c, "InvertPermutation", NULL, pos);
    tfc_endpoint gi[3] = {input_shape, reduced, zero_axis};
    tfc_endpoint c0 = tfc_grad_const_ivec(c, "Const", &z, 1);
    reduced_num = tfc_grad_binary(c, "Prod", NULL, tfc_grad_op(c, "GatherV2", NULL, gi, 3, NULL, 0), c0);
    tfc_endpoint safe = tfc_grad_binary(c, "Maximum", NULL, reduced_num, one);
    other_num = tfc_grad_binary(c, "FloorDiv", "floordiv", tfc_grad_unary(c, "Size", NULL, x), safe);
  }
  tfc_endpoint permuted = tfc_grad_binary(c, "Transpose", "transpose", x, perm);
  tfc_endpoint permuted_shape = tfc_grad_shape(c, permuted);
  tfc_endpoint rs = pack_pair(c, "Reshape/shape", reduced_num, other_num);
  tfc_endpoint reshaped = tfc_grad_reshape(c, permuted, rs);
  tfc_endpoint left = scan(c, "Cumprod", reshaped, tfc_grad_const_scalar(c, "Cumprod/axis", TFC_DT_INT32, 0, NULL), 1, 0);
  tfc_endpoint right = scan(c, "Cumprod", reshaped, tfc_grad_const_scalar(c, "Cumprod/axis", TFC_DT_INT32, 0, NULL), 1, 1);
  tfc_endpoint y = tfc_grad_reshape(c, tfc_grad_binary(c, "Mul", "mul", left, right), permuted_shape);
  tfc_endpoint inv = tfc_grad_unary(c, "InvertPermutation", NULL, perm);
  tfc_endpoint out = tfc_grad_binary(c, "Mul", "mul", g, tfc_grad_binary(c, "Transpose", "transpose", y, inv));
  c->dx[0] = tfc_grad_reshape(c, out, input_shape);
  return c->s->code;
}

/* ---- scans ---- */

static int cumsum_grad(tfc_grad_ctx *c) {
  int ex = 0, rev = 0;
  tfc_node_attr_bool(c->op, "exclusive", &ex);
  tfc_node_attr_bool(c->op, "reverse", &rev);
  c->dx[0] = scan(c, "Cumsum", c->dy[0], tfc_grad_in(c, 1), ex, !rev);
  return c->s->code;
}

/* d cumprod: cumsum(prod * dy, reversed) / x (TF's formula; like TF it divides by x, so it
 * is undefined where x has zeros). */
static int cumprod_grad(tfc_grad_ctx *c) {
  int ex = 0, rev = 0;
  tfc_node_attr_bool(c->op, "exclusive", &ex);
  tfc_node_attr_bool(c->op, "reverse", &rev);
  tfc_endpoint x = tfc_grad_in(c, 0), axis = tfc_grad_in(c, 1);
  tfc_endpoint prod = scan(c, "Cumprod", x, axis, ex, rev);
  tfc_endpoint out = scan(c, "Cumsum", tfc_grad_binary(c, "Mul", "mul", prod, c->dy[0]), axis, ex, !rev);
  c->dx[0] = tfc_grad_binary(c, "RealDiv", "truediv", out, x);
  return c->s->code;
}

/* FloorMod: d/dx = 1, d/dy = -floor(x / y). */
static int floor_mod_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), y = tfc_grad_in(c, 1), g = c->dy[0];
  tfc_grad_bcast b;
  tfc_grad_bcast_args(c, x, y, &b);
  tfc_endpoint floor_xy = tfc_grad_binary(c, "FloorDiv", NULL, x, y);
  c->dx[0] = tfc_grad_bcast_reduce(c, g, b.rx, b.sx);
  tfc_endpoint gy = tfc_grad_binary(c, "Mul", "mul", g, tfc_grad_unary(c, "Neg", NULL, floor_xy));
  c->dx[1] = tfc_grad_bcast_reduce(c, gy, b.ry, b.sy);
  return c->s->code;
}

/* ---- selection ---- */

static int select_grad(tfc_grad_ctx *c) {
  tfc_endpoint cond = tfc_grad_in(c, 0), g = c->dy[0];
  tfc_endpoint zeros = tfc_grad_unary(c, "ZerosLike", "zeros_like", tfc_grad_in(c, 1));
  tfc_endpoint a[3] = {cond, g, zeros}, b[3] = {cond, zeros, g};
  c->dx[1] = tfc_grad_op(c, "Select", NULL, a, 3, NULL, 0);
  c->dx[2] = tfc_grad_op(c, "Select", NULL, b, 3, NULL, 0);
  return c->s->code;
}

static tfc_endpoint select_v2_side(tfc_grad_ctx *c, tfc_endpoint sel, tfc_endpoint in) {
  tfc_endpoint s_in = tfc_grad_shape(c, in), s_out = tfc_grad_shape(c, tfc_grad_out(c, 0));
  tfc_endpoint ins[2] = {s_in, s_out};
  tfc_node *bga = tfc_grad_node(c, "BroadcastGradientArgs", NULL, ins, 2, -1, 0, NULL, 0, NULL);
  tfc_endpoint si[2] = {sel, {bga, 0}};
  tfc_grad_attr kd[1] = {TFC_GRAD_ATTR_BOOL("keep_dims", 1)};
  tfc_endpoint sum = tfc_grad_op(c, "Sum", NULL, si, 2, kd, 1);
  return tfc_grad_reshape(c, sum, s_in);
}

static int select_v2_grad(tfc_grad_ctx *c) {
  tfc_endpoint cond = tfc_grad_in(c, 0), g = c->dy[0];
  tfc_endpoint zeros = tfc_grad_const_scalar(c, "zeros", tfc_grad_dtype(g), 0, NULL);
  tfc_endpoint a[3] = {cond, g, zeros};
  tfc_endpoint gx = tfc_grad_op(c, "SelectV2", NULL, a, 3, NULL, 0);
  c->dx[1] = select_v2_side(c, gx, tfc_grad_in(c, 1));
  tfc_endpoint b[3] = {cond, zeros, g};
  tfc_endpoint gy = tfc_grad_op(c, "SelectV2", NULL, b, 3, NULL, 0);
  c->dx[2] = select_v2_side(c, gy, tfc_grad_in(c, 2));
  return c->s->code;
}

const tfc_grad_entry tfc_grad_math_entries[] = {
    {"Add", add_grad}, {"AddV2", add_grad}, {"Sub", sub_grad}, {"Mul", mul_grad},
    {"Div", div_grad}, {"RealDiv", realdiv_grad}, {"DivNoNan", div_no_nan_grad},
    {"Maximum", maximum_grad}, {"Minimum", minimum_grad},
    {"SquaredDifference", squared_difference_grad}, {"Pow", pow_grad},
    {"Neg", neg_grad}, {"Square", square_grad}, {"Sqrt", sqrt_grad}, {"Rsqrt", rsqrt_grad},
    {"Reciprocal", reciprocal_grad}, {"Inv", reciprocal_grad}, {"Exp", exp_grad}, {"Log", log_grad},
    {"Log1p", log1p_grad}, {"Expm1", expm1_grad}, {"Sin", sin_grad}, {"Cos", cos_grad},
    {"Abs", abs_grad}, {"Sign", sign_grad}, {"Tanh", tanh_grad}, {"Sigmoid", sigmoid_grad},
    {"Floor", none_grad}, {"Ceil", none_grad}, {"Round", none_grad}, {"Rint", none_grad},
    {"AddN", addn_grad}, {"MatMul", matmul_grad}, {"BatchMatMul", batch_matmul_grad},
    {"BatchMatMulV2", batch_matmul_v2_grad}, {"Cast", cast_grad},
    {"Sum", sum_grad}, {"Mean", mean_grad}, {"Max", min_max_grad}, {"Min", min_max_grad},
    {"Select", select_grad}, {"SelectV2", select_v2_grad}, {"Prod", prod_grad},
    {"Cumsum", cumsum_grad}, {"Cumprod", cumprod_grad}, {"FloorMod", floor_mod_grad},
    /* Not differentiable (TF's NotDifferentiable list for these ops). */
    {"Less", NULL}, {"LessEqual", NULL}, {"Greater", NULL}, {"GreaterEqual", NULL},
    {"Equal", NULL}, {"NotEqual", NULL}, {"IsFinite", NULL}, {"IsNan", NULL}, {"IsInf", NULL},
    {"Where", NULL}, {"LinSpace", NULL}, {"Multinomial", NULL}, {"LogicalNot", NULL}, {"LogicalAnd", NULL},
    {"LogicalOr", NULL}, {"ArgMax", NULL}, {"ArgMin", NULL}, {"FloorDiv", none_grad},
    {NULL, NULL}};
