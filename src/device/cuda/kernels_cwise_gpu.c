/*
 * kernels_cwise_gpu — the GPU kernels of the element-wise ops (binary with numpy broadcasting,
 * unary, the activations and their gradients), the helpers every kernels_*_gpu.c file shares,
 * and tfc_cuda_kernels_register, which fills the GPU kernel table.
 *
 * Each kernel checks its inputs as the CPU kernel does (same codes, same messages), allocates
 * its output on the device (or takes over an input buffer it holds the only reference to, as
 * on the CPU: the kernels read element i before writing it), builds the broadcast plan on the
 * host with the CPU's planner (device/cpu/cwise_int.h: size-1 dims dropped, neighbours that
 * broadcast alike merged) and enqueues one launcher call on the device's compute stream.
 *
 * The math of kernels_math_tail.c and kernels_cwise_misc.c is here too: Tan, Erf, Erfc, Lgamma,
 * Digamma (device/special_math.h's formula, in double, as the CPU),
 * IsFinite/IsNan/IsInf (bool out), Atan2 (float and double only), Xdivy, Xlogy and DivNoNan,
 * and ClipByValue (two launches: max, then min in place).
 *
 * Types, as TF 1.15's GPU registrations: half, float and double everywhere; int64 for the
 * arithmetic, comparisons, Neg, Abs, Square and Sign; bool for Equal, NotEqual and the logical
 * ops. int32 is not registered: TF keeps int32 tensors of a GPU in host memory (shape math),
 * so the placer keeps such nodes on the CPU. Integer Div/FloorDiv/FloorMod/Pow are not
 * registered either, since their errors (division by zero, negative exponents) need the host
 * to see the values.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cwise_int.h"
#include "device/cuda/cuda_kernels.h"
#include "device/gpu/gpu_device.h"
#include "device/nn_plan.h"

/* ---- shared helpers ---- */

int tfc_cuda_dtype_of(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: return TFC_CUDA_F32;
    case TFC_DT_DOUBLE: return TFC_CUDA_F64;
    case TFC_DT_HALF: return TFC_CUDA_F16;
    case TFC_DT_INT32: return TFC_CUDA_I32;
    case TFC_DT_INT64: return TFC_CUDA_I64;
    case TFC_DT_BOOL: return TFC_CUDA_BOOL;
    default: return -1;
  }
}

int tfc_cuda_ctx_stream(tfc_kernel_ctx *c, void **out) {
  *out = NULL;
  int ordinal = tfc_gpu_device_platform_id(c->device);
  if (ordinal < 0)
    return tfc_kernel_error(c, TFC_INTERNAL, "%s: a CUDA kernel ran on %s, which is not a GPU device",
                            c->node->op->name, c->device->name);
  void *stream = tfc_gpu_device_compute_stream(c->device, c->status);
  if (c->status->code != TFC_OK) return c->status->code;
  if (!stream)
    return tfc_kernel_error(c, TFC_INTERNAL, "%s: device %s has no CUDA stream (not a CUDA platform)",
                            c->node->op->name, c->device->name);
  /* Launches go to the calling thread's current device, which must own the stream. */
  cudaError_t e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return tfc_kernel_error(c, TFC_INTERNAL, "cudaSetDevice(%d) failed: %s", ordinal, cudaGetErrorString(e));
  }
  *out = stream;
  return TFC_OK;
}

tfc_tensor *tfc_cuda_ctx_temp(tfc_kernel_ctx *c, int64_t bytes) {
  return tfc_allocator_tensor(c->device->allocator, TFC_DT_UINT8, &bytes, 1, c->status);
}

int tfc_cuda_ctx_check(tfc_kernel_ctx *c, int err, int dtype) {
  if (err == 0) return c->status->code;
  if (err == TFC_CUDA_E_UNSUPPORTED)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s is not implemented for %s on GPU", c->node->op->name,
                            tfc_dtype_name(dtype));
  return tfc_kernel_error(c, TFC_INTERNAL, "%s: CUDA kernel launch failed: %s", c->node->op->name,
                          tfc_cuda_error_string(err));
}

/* The launcher type of input 0, or UNIMPLEMENTED. */
static int launch_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

/* ---- binary ops with broadcasting ---- */

typedef struct bin_kernel {
  int op;
  double param;
} bin_kernel;

static int incompatible(tfc_kernel_ctx *c, const tfc_tensor *x, const tfc_tensor *y) {
  char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                          tfc_tensor_shape_str(x, sx, sizeof sx), tfc_tensor_shape_str(y, sy, sizeof sy));
}

static int is_bool_op(int op) { return op >= TFC_CUDA_LESS && op <= TFC_CUDA_LOGICAL_OR; }

static int binary_run(tfc_kernel_ctx *c, int op, double param) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  int ct;
  TFC_TRY(launch_type(c, x->dtype, &ct));
  if (x->dtype != y->dtype)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: operands have different types %s and %s",
                            c->node->op->name, tfc_dtype_name(x->dtype), tfc_dtype_name(y->dtype));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_cwise_bcast b;
  const tfc_tensor *ins[2] = {x, y};
  if (tfc_cwise_bcast_init(&b, 2, ins)) {
    /* Equal/NotEqual with incompatible_shape_error=false answer a scalar instead. */
    int strict = 1;
    if ((op == TFC_CUDA_EQUAL || op == TFC_CUDA_NOT_EQUAL) &&
        tfc_node_attr_bool(c->node, "incompatible_shape_error", &strict) == 0 && !strict) {
      tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, NULL, 0);
      if (!out) return c->status->code;
      return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, op == TFC_CUDA_NOT_EQUAL, 1, stream), x->dtype);
    }
    return incompatible(c, x, y);
  }
  if (b.rank > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                            "%s on GPU broadcasts over at most %d collapsed dimensions, these shapes need %d",
                            c->node->op->name, TFC_CUDA_MAX_DIMS, b.rank);
  int odt = is_bool_op(op) ? TFC_DT_BOOL : x->dtype;
  tfc_tensor *z = NULL;
  for (int k = 0; k < 2 && !z; k++) {
    const tfc_tensor *t = c->inputs[k];
    if (t->dtype == odt && t->n_elems == b.n_out && tfc_tensor_can_forward(t))
      z = tfc_kernel_forward_or_alloc(c, k, 0, odt, b.out_dims, b.out_ndims);
  }
  if (!z) z = tfc_kernel_alloc_output(c, 0, odt, b.out_dims, b.out_ndims);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  tfc_cuda_bcast p = {.rank = b.rank};
  for (int d = 0; d < b.rank; d++) {
    p.dims[d] = b.dims[d];
    p.strides[0][d] = b.strides[0][d];
    p.strides[1][d] = b.strides[1][d];
  }
  return tfc_cuda_ctx_check(c, tfc_cuda_binary(op, ct, x->data, y->data, z->data, &p, param, stream), x->dtype);
}

/* The activation gradients: same shapes required, with the CPU kernels' messages. */
static int grad_run(tfc_kernel_ctx *c, int op, double param) {
  const tfc_tensor *a = c->inputs[0], *b = c->inputs[1];
  if (a->ndims != b->ndims || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->ndims) != 0) {
    char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
    tfc_tensor_shape_str(a, sa, sizeof sa);
    tfc_tensor_shape_str(b, sb, sizeof sb);
    if (strcmp(c->node->op->inputs[0].name, "gradients") == 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "g and a must be the same size");
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Inputs must have the same size and shape. Input 0: %s != input 1: %s", sa, sb);
  }
  return binary_run(c, op, param);
}

/* ---- unary ops ---- */

static int unary_run(tfc_kernel_ctx *c, int op, double param) {
  const tfc_tensor *x = c->inputs[0];
  int ct;
  TFC_TRY(launch_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int odt = op >= TFC_CUDA_IS_FINITE && op <= TFC_CUDA_IS_INF ? TFC_DT_BOOL : x->dtype;
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, odt, x->dims, x->ndims);
  if (!y) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_unary(op, ct, x->data, y->data, x->n_elems, param, stream), x->dtype);
}

/* ClipByValue: min(max(t, lo), hi) as the CPU computes it (a NaN in t stays), lo and hi
 * scalars or of t's shape (the CPU's check): two launches of the element-wise launcher, the
 * second in place. */
static int clip_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *t = c->inputs[0], *lo = c->inputs[1], *hi = c->inputs[2];
  TFC_TRY(tfc_clip_check(c));
  int ct;
  TFC_TRY(launch_type(c, t->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, t->dtype, t->dims, t->ndims);
  if (!y) return c->status->code;
  if (t->n_elems == 0) return TFC_OK;
  tfc_cuda_bcast p = {.rank = 1, .dims = {t->n_elems}, .strides = {{1}, {lo->ndims ? 1 : 0}}};
  TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_binary(TFC_CUDA_MAXIMUM, ct, t->data, lo->data, y->data, &p, 0, stream),
                             t->dtype));
  p.strides[1][0] = hi->ndims ? 1 : 0;
  return tfc_cuda_ctx_check(c, tfc_cuda_binary(TFC_CUDA_MINIMUM, ct, y->data, hi->data, y->data, &p, 0, stream),
                            t->dtype);
}

/* LeakyRelu's alpha, parsed once per node (TF's default 0.2). */
static int alpha_init(const tfc_node *n, void **state, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, "alpha");
  float *alpha = malloc(sizeof *alpha);
  if (!alpha) return TFC_OOM(s);
  *alpha = v && v->kind == TFC_ATTR_FLOAT ? v->u.f : 0.2f;
  *state = alpha;
  return TFC_OK;
}

#define BIN_K(name, OP)                                                                           \
  static int name##_compute(tfc_kernel_ctx *c) { return binary_run(c, OP, 0); }
#define GRAD_K(name, OP)                                                                          \
  static int name##_compute(tfc_kernel_ctx *c) { return grad_run(c, OP, 0); }
#define UN_K(name, OP)                                                                            \
  static int name##_compute(tfc_kernel_ctx *c) { return unary_run(c, OP, 0); }

BIN_K(add, TFC_CUDA_ADD)
BIN_K(sub, TFC_CUDA_SUB)
BIN_K(mul, TFC_CUDA_MUL)
BIN_K(div, TFC_CUDA_DIV)
BIN_K(floordiv, TFC_CUDA_FLOORDIV)
BIN_K(floormod, TFC_CUDA_FLOORMOD)
BIN_K(maximum, TFC_CUDA_MAXIMUM)
BIN_K(minimum, TFC_CUDA_MINIMUM)
BIN_K(pow, TFC_CUDA_POW)
BIN_K(sqd, TFC_CUDA_SQUARED_DIFFERENCE)
BIN_K(less, TFC_CUDA_LESS)
BIN_K(less_equal, TFC_CUDA_LESS_EQUAL)
BIN_K(greater, TFC_CUDA_GREATER)
BIN_K(greater_equal, TFC_CUDA_GREATER_EQUAL)
BIN_K(equal, TFC_CUDA_EQUAL)
BIN_K(not_equal, TFC_CUDA_NOT_EQUAL)
BIN_K(logical_and, TFC_CUDA_LOGICAL_AND)
BIN_K(logical_or, TFC_CUDA_LOGICAL_OR)
GRAD_K(relu_grad, TFC_CUDA_RELU_GRAD)
GRAD_K(relu6_grad, TFC_CUDA_RELU6_GRAD)
GRAD_K(elu_grad, TFC_CUDA_ELU_GRAD)
GRAD_K(selu_grad, TFC_CUDA_SELU_GRAD)
GRAD_K(softplus_grad, TFC_CUDA_SOFTPLUS_GRAD)
GRAD_K(softsign_grad, TFC_CUDA_SOFTSIGN_GRAD)
GRAD_K(tanh_grad, TFC_CUDA_TANH_GRAD)
GRAD_K(sigmoid_grad, TFC_CUDA_SIGMOID_GRAD)
GRAD_K(sqrt_grad, TFC_CUDA_SQRT_GRAD)
GRAD_K(rsqrt_grad, TFC_CUDA_RSQRT_GRAD)
GRAD_K(reciprocal_grad, TFC_CUDA_RECIPROCAL_GRAD)
UN_K(neg, TFC_CUDA_NEG)
UN_K(abs, TFC_CUDA_ABS)
UN_K(square, TFC_CUDA_SQUARE)
UN_K(sqrt, TFC_CUDA_SQRT)
UN_K(rsqrt, TFC_CUDA_RSQRT)
UN_K(exp, TFC_CUDA_EXP)
UN_K(log, TFC_CUDA_LOG)
UN_K(reciprocal, TFC_CUDA_RECIPROCAL)
UN_K(sign, TFC_CUDA_SIGN)
UN_K(tanh, TFC_CUDA_TANH)
UN_K(sigmoid, TFC_CUDA_SIGMOID)
UN_K(relu, TFC_CUDA_RELU)
UN_K(relu6, TFC_CUDA_RELU6)
UN_K(elu, TFC_CUDA_ELU)
UN_K(selu, TFC_CUDA_SELU)
UN_K(softplus, TFC_CUDA_SOFTPLUS)
UN_K(softsign, TFC_CUDA_SOFTSIGN)
UN_K(floor, TFC_CUDA_FLOOR)
UN_K(ceil, TFC_CUDA_CEIL)
UN_K(round, TFC_CUDA_ROUND)
UN_K(log1p, TFC_CUDA_LOG1P)
UN_K(expm1, TFC_CUDA_EXPM1)
UN_K(sin, TFC_CUDA_SIN)
UN_K(cos, TFC_CUDA_COS)
UN_K(logical_not, TFC_CUDA_LOGICAL_NOT)
UN_K(tan, TFC_CUDA_TAN)
UN_K(erf, TFC_CUDA_ERF)
UN_K(erfc, TFC_CUDA_ERFC)
UN_K(lgamma, TFC_CUDA_LGAMMA)
UN_K(digamma, TFC_CUDA_DIGAMMA)
UN_K(is_finite, TFC_CUDA_IS_FINITE)
UN_K(is_nan, TFC_CUDA_IS_NAN)
UN_K(is_inf, TFC_CUDA_IS_INF)
BIN_K(atan2, TFC_CUDA_ATAN2)
BIN_K(xdivy, TFC_CUDA_XDIVY)
BIN_K(xlogy, TFC_CUDA_XLOGY)
BIN_K(div_no_nan, TFC_CUDA_DIV_NO_NAN)

static int leaky_relu_compute(tfc_kernel_ctx *c) {
  return unary_run(c, TFC_CUDA_LEAKY_RELU, *(const float *)c->state);
}
static int leaky_relu_grad_compute(tfc_kernel_ctx *c) {
  return grad_run(c, TFC_CUDA_LEAKY_RELU_GRAD, *(const float *)c->state);
}

/* ---- registration ---- */

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))
#define G_FI (G_F | TFC_T(TFC_DT_INT64))
#define G_FIB (G_FI | TFC_T(TFC_DT_BOOL))
#define ROW(opname, mask, fn) {.op = TFC_OP_##opname, .type_attr = "T", .types = (mask), .compute = fn##_compute}

static const tfc_kernel_def defs[] = {
    ROW(Add, G_FI, add),
    ROW(AddV2, G_FI, add),
    ROW(Sub, G_FI, sub),
    ROW(Mul, G_FI, mul),
    ROW(Div, G_F, div),
    ROW(RealDiv, G_F, div),
    ROW(FloorDiv, G_F, floordiv),
    ROW(FloorMod, G_F, floormod),
    ROW(Maximum, G_FI, maximum),
    ROW(Minimum, G_FI, minimum),
    ROW(Pow, G_F, pow),
    ROW(SquaredDifference, G_FI, sqd),
    ROW(Less, G_FI, less),
    ROW(LessEqual, G_FI, less_equal),
    ROW(Greater, G_FI, greater),
    ROW(GreaterEqual, G_FI, greater_equal),
    ROW(Equal, G_FIB, equal),
    ROW(NotEqual, G_FIB, not_equal),
    {.op = TFC_OP_LogicalAnd, .compute = logical_and_compute},
    {.op = TFC_OP_LogicalOr, .compute = logical_or_compute},
    {.op = TFC_OP_LogicalNot, .compute = logical_not_compute},
    ROW(Neg, G_FI, neg),
    ROW(Abs, G_FI, abs),
    ROW(Square, G_FI, square),
    ROW(Sign, G_FI, sign),
    ROW(Sqrt, G_F, sqrt),
    ROW(Rsqrt, G_F, rsqrt),
    ROW(Exp, G_F, exp),
    ROW(Log, G_F, log),
    ROW(Inv, G_F, reciprocal),
    ROW(Reciprocal, G_F, reciprocal),
    ROW(Tanh, G_F, tanh),
    ROW(Sigmoid, G_F, sigmoid),
    ROW(Relu, G_F, relu),
    ROW(Relu6, G_F, relu6),
    ROW(Elu, G_F, elu),
    ROW(Selu, G_F, selu),
    ROW(Softplus, G_F, softplus),
    ROW(Softsign, G_F, softsign),
    ROW(Floor, G_F, floor),
    ROW(Ceil, G_F, ceil),
    ROW(Round, G_F, round),
    ROW(Log1p, G_F, log1p),
    ROW(Expm1, G_F, expm1),
    ROW(Tan, G_F, tan),
    ROW(Erf, G_F, erf),
    ROW(Erfc, G_F, erfc),
    ROW(Lgamma, G_F, lgamma),
    ROW(Digamma, G_F, digamma),
    ROW(IsFinite, G_F, is_finite),
    ROW(IsNan, G_F, is_nan),
    ROW(IsInf, G_F, is_inf),
    ROW(Atan2, TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE), atan2),
    ROW(Xdivy, G_F, xdivy),
    ROW(Xlogy, G_F, xlogy),
    ROW(DivNoNan, G_F, div_no_nan),
    ROW(ClipByValue, G_FI, clip),
    ROW(Sin, G_F, sin),
    ROW(Cos, G_F, cos),
    {.op = TFC_OP_LeakyRelu, .type_attr = "T", .types = G_F, .init = alpha_init, .compute = leaky_relu_compute,
     .free_state = free},
    ROW(ReluGrad, G_F, relu_grad),
    ROW(Relu6Grad, G_F, relu6_grad),
    {.op = TFC_OP_LeakyReluGrad, .type_attr = "T", .types = G_F, .init = alpha_init,
     .compute = leaky_relu_grad_compute, .free_state = free},
    ROW(EluGrad, G_F, elu_grad),
    ROW(SeluGrad, G_F, selu_grad),
    ROW(SoftplusGrad, G_F, softplus_grad),
    ROW(SoftsignGrad, G_F, softsign_grad),
    ROW(TanhGrad, G_F, tanh_grad),
    ROW(SigmoidGrad, G_F, sigmoid_grad),
    ROW(SqrtGrad, G_F, sqrt_grad),
    ROW(RsqrtGrad, G_F, rsqrt_grad),
    ROW(ReciprocalGrad, G_F, reciprocal_grad),
    ROW(InvGrad, G_F, reciprocal_grad),
};

int tfc_cuda_kernels_register(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cuda_kernels_matmul(t, s));
  TFC_TRY(tfc_cuda_kernels_array(t, s));
  TFC_TRY(tfc_cuda_kernels_state(t, s));
  TFC_TRY(tfc_cuda_kernels_scatter(t, s));
  TFC_TRY(tfc_cuda_kernels_training(t, s));
  TFC_TRY(tfc_cuda_kernels_conv(t, s));
  TFC_TRY(tfc_cuda_kernels_random(t, s));
  TFC_TRY(tfc_cuda_kernels_loss(t, s));
  TFC_TRY(tfc_cuda_kernels_array2(t, s));
  TFC_TRY(tfc_cuda_kernels_batch_norm(t, s));
  TFC_TRY(tfc_cuda_kernels_image(t, s));
  TFC_TRY(tfc_cuda_kernels_conv3d(t, s));
  TFC_TRY(tfc_cuda_kernels_select(t, s));
  TFC_TRY(tfc_cuda_kernels_spectral(t, s));
  TFC_TRY(tfc_cuda_kernels_linalg(t, s));
  return tfc_cuda_kernels_nn(t, s);
}
