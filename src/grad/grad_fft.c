/*
 * grad_fft — gradients of the FFT ops, with TF's formulas (spectral_grad in TF's Python):
 *   FFT*:  IFFT*(dy) * N        IFFT*: FFT*(dy) / N     (N: the product of dy's inner dims)
 *   RFFT, RFFT2D: (IRFFT*(dy, fft_length) * N + re(extra)) / 2, where N is the product of the
 *     input's inner dims and `extra` adds back the terms the Hermitian half drops: the DC column
 *     dy[..., 0] and, for an even fft_length, the Nyquist column dy[..., -1] times
 *     [1, -1, 1, ...]. For rank 2 TF multiplies those columns by the DFT matrix of the outer
 *     dim; here the same values come from an IFFT of the column times its length (re(W conj(v))
 *     = M re(IFFT(v)), W the M-point DFT matrix), which needs no M x M matrix.
 *   IRFFT, IRFFT2D: RFFT*(dy, fft_length) / N * mask, mask = [1, 2, ..., 2, 1] (even
 *     fft_length) or [1, 2, ..., 2] (odd): the halved spectrum's interior bins count twice.
 * fft_length gets no gradient. RFFT3D and IRFFT3D have none in TF either (LookupError there;
 * the walk's "No gradient defined" here). Like TF's, the real-transform gradients assume
 * fft_length matches the input (no cropping); otherwise the shapes disagree at run time.
 *
 * Builders follow grad_internal.h: they latch the first error in c->s and return its code.
 */
#include <stdio.h>
#include <string.h>

#include "grad/grad_internal.h"

static int real_of(int dt) { return dt == TFC_DT_COMPLEX128 ? TFC_DT_DOUBLE : TFC_DT_FLOAT; }
static int complex_of(int dt) { return dt == TFC_DT_DOUBLE ? TFC_DT_COMPLEX128 : TFC_DT_COMPLEX64; }

static tfc_endpoint ival(tfc_grad_ctx *c, int64_t v) { return tfc_grad_const_scalar(c, "Const", TFC_DT_INT32, (double)v, NULL); }

static tfc_endpoint ivec1(tfc_grad_ctx *c, int64_t v) { return tfc_grad_const_ivec(c, "Const", &v, 1); }

/* v[i] of an int32 vector, as a scalar (i < 0 counts from the end). */
static tfc_endpoint elem(tfc_grad_ctx *c, tfc_endpoint v, int64_t i) {
  return tfc_grad_vec_slice(c, v, ivec1(c, i), ivec1(c, i + 1), 0, i == -1, 1);
}

/* The product of the innermost `rank` dims of x (int32 scalar). */
static tfc_endpoint inner_size(tfc_grad_ctx *c, tfc_endpoint x, int rank) {
  tfc_endpoint dims = tfc_grad_vec_slice(c, tfc_grad_shape(c, x), ivec1(c, -rank), ivec1(c, 0), 0, 1, 0);
  return tfc_grad_binary(c, "Prod", NULL, dims, ivec1(c, 0));
}

/* x[..., b:e] (end_open: x[..., b:]), or x[..., b] when shrink. */
static tfc_endpoint inner_slice(tfc_grad_ctx *c, tfc_endpoint x, int64_t b, int64_t e, int end_open, int shrink) {
  int64_t bv[2] = {0, b}, ev[2] = {0, e}, sv[2] = {1, 1};
  tfc_endpoint ins[4] = {x, tfc_grad_const_ivec(c, "stack", bv, 2), tfc_grad_const_ivec(c, "stack_1", ev, 2),
                         tfc_grad_const_ivec(c, "stack_2", sv, 2)};
  tfc_grad_attr a[3] = {TFC_GRAD_ATTR_INT("ellipsis_mask", 1), TFC_GRAD_ATTR_INT("end_mask", end_open ? 2 : 0),
                        TFC_GRAD_ATTR_INT("shrink_axis_mask", shrink ? 2 : 0)};
  return tfc_grad_op(c, "StridedSlice", "strided_slice", ins, 4, a, 3);
}

static tfc_endpoint real_part(tfc_grad_ctx *c, tfc_endpoint z) {
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("Tout", real_of(tfc_grad_dtype(z)))};
  return tfc_grad_op(c, "Real", NULL, &z, 1, a, 1);
}

/* The transform op of the given rank: "FFT", "FFT2D", ... from the 1-D name. */
static tfc_endpoint transform(tfc_grad_ctx *c, const char *base, int rank, tfc_endpoint x, tfc_endpoint len,
                              const char *attr, int dtype) {
  char type[16];
  snprintf(type, sizeof type, "%s%s", base, rank == 1 ? "" : rank == 2 ? "2D" : "3D");
  tfc_endpoint ins[2] = {x, len};
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE(attr ? attr : "Tcomplex", dtype)};
  return tfc_grad_op(c, type, NULL, ins, len.node ? 2 : 1, a, attr ? 1 : 0);
}

static int fft_rank(const tfc_grad_ctx *c) {
  const char *n = c->op->op->name;
  size_t l = strlen(n);
  return n[l - 1] == 'D' ? n[l - 2] - '0' : 1;
}

/* FFT*: IFFT*(dy) * N; IFFT*: FFT*(dy) / N. */
static int fft_grad_common(tfc_grad_ctx *c, int inverse) {
  int rank = fft_rank(c);
  tfc_endpoint g = c->dy[0];
  int cdt = tfc_grad_dtype(g);
  tfc_endpoint size = inner_size(c, g, rank), factor;
  if (!inverse) {
    factor = tfc_grad_cast(c, size, cdt);
  } else {
    tfc_endpoint r = tfc_grad_unary(c, "Reciprocal", NULL, tfc_grad_cast(c, size, real_of(cdt)));
    factor = tfc_grad_cast(c, r, cdt);
  }
  tfc_endpoint t = transform(c, inverse ? "FFT" : "IFFT", rank, g, tfc_grad_none(), NULL, 0);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", t, factor);
  return c->s->code;
}

static int fft_grad(tfc_grad_ctx *c) { return fft_grad_common(c, 0); }
static int ifft_grad(tfc_grad_ctx *c) { return fft_grad_common(c, 1); }

/* Range(0, n) % 2 as 1 - 2 * (k % 2): [1, -1, 1, ...] in dtype rdt. */
static tfc_endpoint alternating(tfc_grad_ctx *c, tfc_endpoint n, int rdt) {
  tfc_endpoint rins[3] = {ival(c, 0), n, ival(c, 1)};
  tfc_endpoint k = tfc_grad_op(c, "Range", "range", rins, 3, NULL, 0);
  tfc_endpoint odd = tfc_grad_binary(c, "FloorMod", "mod", k, ival(c, 2));
  tfc_endpoint v = tfc_grad_binary(c, "Sub", "sub", ival(c, 1), tfc_grad_binary(c, "Mul", "mul", ival(c, 2), odd));
  return tfc_grad_cast(c, v, rdt);
}

/* The column x[..., col] of a [..., M, K] complex gradient through the outer DFT: M re(IFFT(.)),
 * shaped [..., M, 1]; rank 1 just takes re(x[..., col]) as [..., 1]. */
static tfc_endpoint edge_term(tfc_grad_ctx *c, tfc_endpoint g, int rank, int last, tfc_endpoint m) {
  if (rank == 1) return real_part(c, inner_slice(c, g, last ? -1 : 0, last ? 0 : 1, last, 0));
  tfc_endpoint col = inner_slice(c, g, last ? -1 : 0, last ? 0 : 1, 0, 1);
  tfc_endpoint v = tfc_grad_binary(c, "Mul", "mul", real_part(c, transform(c, "IFFT", 1, col, tfc_grad_none(), NULL, 0)), m);
  return tfc_grad_binary(c, "ExpandDims", NULL, v, ival(c, -1));
}

static int rfft_grad(tfc_grad_ctx *c) {
  int rank = fft_rank(c);
  tfc_endpoint x = tfc_grad_in(c, 0), len = tfc_grad_in(c, 1), g = c->dy[0];
  int cdt = tfc_grad_dtype(g), rdt = real_of(cdt);
  tfc_endpoint shape = tfc_grad_shape(c, x);
  tfc_endpoint even = tfc_grad_binary(c, "Sub", "sub", ival(c, 1),
                                      tfc_grad_binary(c, "FloorMod", "mod", elem(c, len, -1), ival(c, 2)));
  even = tfc_grad_cast(c, even, rdt);
  tfc_endpoint m = rank == 2 ? tfc_grad_cast(c, elem(c, shape, -2), rdt) : tfc_grad_none();
  tfc_endpoint e0 = edge_term(c, g, rank, 0, m), em = edge_term(c, g, rank, 1, m);
  tfc_endpoint ym = alternating(c, elem(c, shape, -1), rdt);
  tfc_endpoint extra =
      tfc_grad_binary(c, "AddV2", "add", e0,
                      tfc_grad_binary(c, "Mul", "mul", even, tfc_grad_binary(c, "Mul", "mul", em, ym)));
  tfc_endpoint size = tfc_grad_cast(c, inner_size(c, x, rank), rdt);
  tfc_endpoint t = transform(c, "IRFFT", rank, g, len, "Treal", rdt);
  tfc_endpoint sum = tfc_grad_binary(c, "AddV2", "add", tfc_grad_binary(c, "Mul", "mul", t, size), extra);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", tfc_grad_const_scalar(c, "mul/x", rdt, 0.5, NULL), sum);
  return c->s->code;
}

static int irfft_grad(tfc_grad_ctx *c) {
  int rank = fft_rank(c);
  tfc_endpoint x = tfc_grad_in(c, 0), len = tfc_grad_in(c, 1), g = c->dy[0];
  int rdt = tfc_grad_dtype(g), cdt = complex_of(rdt);
  tfc_endpoint odd = tfc_grad_binary(c, "FloorMod", "mod", elem(c, len, -1), ival(c, 2));
  tfc_endpoint n = elem(c, tfc_grad_shape(c, x), -1);
  /* mask[k] = 2 - (k == 0) - (k == n - 1 and fft_length even) */
  tfc_endpoint rins[3] = {ival(c, 0), n, ival(c, 1)};
  tfc_endpoint k = tfc_grad_op(c, "Range", "range", rins, 3, NULL, 0);
  tfc_endpoint first = tfc_grad_cast(c, tfc_grad_binary(c, "Equal", NULL, k, ival(c, 0)), rdt);
  tfc_endpoint lastk = tfc_grad_binary(c, "Sub", "sub", n, ival(c, 1));
  tfc_endpoint last = tfc_grad_cast(c, tfc_grad_binary(c, "Equal", NULL, k, lastk), rdt);
  tfc_endpoint even = tfc_grad_cast(c, tfc_grad_binary(c, "Sub", "sub", ival(c, 1), odd), rdt);
  tfc_endpoint mask = tfc_grad_binary(
      c, "Sub", "sub",
      tfc_grad_binary(c, "Sub", "sub", tfc_grad_const_scalar(c, "Const", rdt, 2.0, NULL), first),
      tfc_grad_binary(c, "Mul", "mul", last, even));
  tfc_endpoint rsize = tfc_grad_unary(c, "Reciprocal", NULL, tfc_grad_cast(c, inner_size(c, g, rank), rdt));
  tfc_endpoint scale = tfc_grad_cast(c, tfc_grad_binary(c, "Mul", "mul", rsize, mask), cdt);
  tfc_endpoint t = transform(c, "RFFT", rank, g, len, "Tcomplex", cdt);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", t, scale);
  return c->s->code;
}

const tfc_grad_entry tfc_grad_fft_entries[] = {
    {"FFT", fft_grad},     {"IFFT", ifft_grad},     {"FFT2D", fft_grad},   {"IFFT2D", ifft_grad},
    {"FFT3D", fft_grad},   {"IFFT3D", ifft_grad},   {"RFFT", rfft_grad},   {"IRFFT", irfft_grad},
    {"RFFT2D", rfft_grad}, {"IRFFT2D", irfft_grad}, {NULL, NULL},
};
