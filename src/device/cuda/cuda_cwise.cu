/*
 * cuda_cwise — the element-wise CUDA kernels: binary ops with numpy broadcasting and unary
 * ops (cuda_kernels.h has the launcher API; kernels_cwise_gpu.c the tfc kernels on top).
 *
 * One grid-stride kernel template per family, instantiated per (op, storage type): each
 * thread maps an output index to its operands' offsets through the collapsed broadcast plan
 * (passed by value, so it sits in the constant bank), loads, computes, stores. A rank-1 plan
 * (same shapes, or a scalar operand) skips the index arithmetic. Half is stored as IEEE half
 * and computed in float, as TF's GPU functors do through Eigen::half.
 *
 * The formulas are the CPU kernels' (kernels_cwise.c, kernels_cwise_unary.c,
 * kernels_nn_act.c), so that both devices agree: Eigen's max/min operand order (NaN in the
 * first operand wins), integer +, -, * wrapping in unsigned arithmetic, TF's softplus
 * thresholds, Round half to even, 1/sqrt(x) (not the approximate rsqrt) for Rsqrt. The build
 * does not use fast math, so division and sqrt are correctly rounded.
 */
#include <type_traits>
#include <utility>

#include "device/cuda/cuda_common.cuh"
#include "device/special_math.h"

using namespace tfc_cuda;

namespace {

typedef uint8_t boolean;

/* SELU's constants and softplus's thresholds, as kernels_nn_act.c. */
#define SELU_SCALE 1.0507009873554804934193349852946
#define SELU_ALPHA 1.6732632423543772848170429916717
template <typename C> __device__ __forceinline__ C softplus_threshold() { return (C)-13.9423847f; }
template <> __device__ __forceinline__ double softplus_threshold<double>() { return -34.04365338911715; }

template <typename C> struct wide {
  typedef C U; /* floats: themselves */
};
template <> struct wide<int32_t> { typedef uint32_t U; };
template <> struct wide<int64_t> { typedef uint64_t U; };

/* ---- binary ---- */

template <int OP> __host__ __device__ constexpr bool bool_out() {
  return (OP >= TFC_CUDA_LESS && OP <= TFC_CUDA_LOGICAL_OR);
}

template <int OP, typename C> __device__ __forceinline__ C bin_apply(C a, C b, C alpha) {
  typedef typename wide<C>::U U;
  if constexpr (OP == TFC_CUDA_ADD) return (C)((U)a + (U)b);
  else if constexpr (OP == TFC_CUDA_SUB) return (C)((U)a - (U)b);
  else if constexpr (OP == TFC_CUDA_MUL) return (C)((U)a * (U)b);
  else if constexpr (OP == TFC_CUDA_DIV) return a / b;
  else if constexpr (OP == TFC_CUDA_FLOORDIV) return m_floor(a / b);
  else if constexpr (OP == TFC_CUDA_FLOORMOD) {
    C r = m_fmod(a, b);
    return (a < 0) == (b < 0) ? r : m_fmod(r + b, b);
  } else if constexpr (OP == TFC_CUDA_MAXIMUM) return a < b ? b : a;
  else if constexpr (OP == TFC_CUDA_MINIMUM) return b < a ? b : a;
  else if constexpr (OP == TFC_CUDA_POW) return m_pow(a, b);
  else if constexpr (OP == TFC_CUDA_SQUARED_DIFFERENCE) {
    U d = (U)a - (U)b;
    return (C)(d * d);
  } else if constexpr (OP == TFC_CUDA_LESS) return a < b;
  else if constexpr (OP == TFC_CUDA_LESS_EQUAL) return a <= b;
  else if constexpr (OP == TFC_CUDA_GREATER) return a > b;
  else if constexpr (OP == TFC_CUDA_GREATER_EQUAL) return a >= b;
  else if constexpr (OP == TFC_CUDA_EQUAL) return a == b;
  else if constexpr (OP == TFC_CUDA_NOT_EQUAL) return a != b;
  else if constexpr (OP == TFC_CUDA_LOGICAL_AND) return (a != 0) & (b != 0);
  else if constexpr (OP == TFC_CUDA_LOGICAL_OR) return (a != 0) | (b != 0);
  /* multiplied, not selected: a NaN or inf gradient stays NaN where it is cut, as on the CPU */
  else if constexpr (OP == TFC_CUDA_RELU_GRAD) return a * (C)(b > 0);
  else if constexpr (OP == TFC_CUDA_RELU6_GRAD) return a * (C)((b > 0) & (b < 6));
  else if constexpr (OP == TFC_CUDA_LEAKY_RELU_GRAD) return b > 0 ? a : a * alpha;
  else if constexpr (OP == TFC_CUDA_ELU_GRAD) return b < 0 ? a * (b + (C)1) : a;
  else if constexpr (OP == TFC_CUDA_SELU_GRAD)
    return b < 0 ? a * (b + (C)(SELU_SCALE * SELU_ALPHA)) : a * (C)SELU_SCALE;
  else if constexpr (OP == TFC_CUDA_SOFTPLUS_GRAD) return a / ((C)1 + m_exp(-b));
  else if constexpr (OP == TFC_CUDA_SOFTSIGN_GRAD) return a / (((C)1 + m_fabs(b)) * ((C)1 + m_fabs(b)));
  else if constexpr (OP == TFC_CUDA_TANH_GRAD) return b * ((C)1 - a * a);
  else if constexpr (OP == TFC_CUDA_SIGMOID_GRAD) return b * a * ((C)1 - a);
  else if constexpr (OP == TFC_CUDA_SQRT_GRAD) return (C)0.5 * b / a;
  else if constexpr (OP == TFC_CUDA_RSQRT_GRAD) return (C)-0.5 * (b * a) * (a * a);
  else if constexpr (OP == TFC_CUDA_RECIPROCAL_GRAD) return -(a * a) * b;
  /* kernels_math_tail.c, kernels_cwise.c */
  else if constexpr (OP == TFC_CUDA_ATAN2) return m_atan2(a, b);
  else if constexpr (OP == TFC_CUDA_XDIVY) return a == 0 ? (C)0 : a / b;
  else if constexpr (OP == TFC_CUDA_XLOGY) return a == 0 ? (C)0 : a * m_log(b);
  else if constexpr (OP == TFC_CUDA_DIV_NO_NAN) return b == 0 ? (C)0 : a / b;
  else static_assert(OP < 0, "binary op without a formula");
}

template <int OP, typename S>
/* Not __restrict__: z may alias an operand (a forwarded input buffer). */
__global__ void binary_kernel(const S *a, const S *b,
                              typename std::conditional<bool_out<OP>(), boolean, S>::type *z, int64_t n,
                              tfc_cuda_bcast p, double param) {
  typedef acc_t<S> C;
  const C alpha = (C)param;
  TFC_CUDA_GRID_LOOP(i, n) {
    int64_t oa, ob;
    if (p.rank == 1) {
      oa = i * p.strides[0][0];
      ob = i * p.strides[1][0];
    } else {
      oa = ob = 0;
      int64_t r = i;
      for (int d = p.rank - 1; d >= 0; d--) {
        int64_t q = r / p.dims[d], idx = r - q * p.dims[d];
        r = q;
        oa += idx * p.strides[0][d];
        ob += idx * p.strides[1][d];
      }
    }
    C v = bin_apply<OP, C>(load(a, oa), load(b, ob), alpha);
    if constexpr (bool_out<OP>()) z[i] = v != 0;
    else store(z, i, v);
  }
}

/* ---- unary ---- */

template <int OP, typename C> __device__ __forceinline__ C un_apply(C a, C alpha) {
  typedef typename wide<C>::U U;
  /* Floats negate by sign flip and take fabs, as the CPU: Neg(0) is -0 and Abs(-0) is +0
   * (0 - a would give +0 and a < 0 would keep -0; 1/x then differs in the infinity's sign). */
  if constexpr (OP == TFC_CUDA_NEG) {
    if constexpr (std::is_floating_point<C>::value) return -a;
    else return (C)((U)0 - (U)a);
  } else if constexpr (OP == TFC_CUDA_ABS) {
    if constexpr (std::is_floating_point<C>::value) return m_fabs(a);
    else return a < 0 ? (C)((U)0 - (U)a) : a;
  } else if constexpr (OP == TFC_CUDA_SQUARE) return (C)((U)a * (U)a);
  else if constexpr (OP == TFC_CUDA_SQRT) return m_sqrt(a);
  else if constexpr (OP == TFC_CUDA_RSQRT) return (C)1 / m_sqrt(a);
  else if constexpr (OP == TFC_CUDA_EXP) return m_exp(a);
  else if constexpr (OP == TFC_CUDA_LOG) return m_log(a);
  else if constexpr (OP == TFC_CUDA_RECIPROCAL) return (C)1 / a;
  else if constexpr (OP == TFC_CUDA_SIGN) return (C)((a > 0) - (a < 0));
  else if constexpr (OP == TFC_CUDA_TANH) return m_tanh(a);
  else if constexpr (OP == TFC_CUDA_SIGMOID) return (C)1 / ((C)1 + m_exp(-a));
  else if constexpr (OP == TFC_CUDA_RELU) return a < 0 ? (C)0 : a;
  else if constexpr (OP == TFC_CUDA_RELU6) return a < 0 ? (C)0 : (a > 6 ? (C)6 : a);
  else if constexpr (OP == TFC_CUDA_LEAKY_RELU) return a > 0 ? a : a * alpha;
  else if constexpr (OP == TFC_CUDA_ELU) return a < 0 ? m_expm1(a) : a;
  else if constexpr (OP == TFC_CUDA_SELU)
    return a < 0 ? (C)(SELU_SCALE * SELU_ALPHA) * m_expm1(a) : (C)SELU_SCALE * a;
  else if constexpr (OP == TFC_CUDA_SOFTPLUS) {
    const C th = softplus_threshold<C>();
    return a > -th ? a : (a < th ? m_exp(a) : m_log1p(m_exp(a)));
  } else if constexpr (OP == TFC_CUDA_SOFTSIGN) return a / ((C)1 + m_fabs(a));
  else if constexpr (OP == TFC_CUDA_FLOOR) return m_floor(a);
  else if constexpr (OP == TFC_CUDA_CEIL) return m_ceil(a);
  else if constexpr (OP == TFC_CUDA_ROUND) return m_rint(a);
  else if constexpr (OP == TFC_CUDA_LOG1P) return m_log1p(a);
  else if constexpr (OP == TFC_CUDA_EXPM1) return m_expm1(a);
  else if constexpr (OP == TFC_CUDA_SIN) return m_sin(a);
  else if constexpr (OP == TFC_CUDA_COS) return m_cos(a);
  else if constexpr (OP == TFC_CUDA_LOGICAL_NOT) return a == 0;
  else if constexpr (OP == TFC_CUDA_TAN) return m_tan(a);
  else if constexpr (OP == TFC_CUDA_ERF) return m_erf(a);
  else if constexpr (OP == TFC_CUDA_ERFC) return m_erfc(a);
  else if constexpr (OP == TFC_CUDA_LGAMMA) return m_lgamma(a);
  else if constexpr (OP == TFC_CUDA_IS_FINITE) return (C)isfinite(a);
  else if constexpr (OP == TFC_CUDA_IS_NAN) return (C)isnan(a);
  else if constexpr (OP == TFC_CUDA_IS_INF) return (C)isinf(a);
  else if constexpr (OP == TFC_CUDA_DIGAMMA) return (C)tfc_digamma((double)a);
  else static_assert(OP < 0, "unary op without a formula");
}

/* The unary ops that write bool (kernels_cwise_gpu.c allocates their output so). */
template <int OP> __host__ __device__ constexpr bool un_bool_out() {
  return OP >= TFC_CUDA_IS_FINITE && OP <= TFC_CUDA_IS_INF;
}

template <int OP, typename S>
__global__ void unary_kernel(const S *x, typename std::conditional<un_bool_out<OP>(), boolean, S>::type *y,
                             int64_t n, double param) {
  typedef acc_t<S> C;
  const C alpha = (C)param;
  TFC_CUDA_GRID_LOOP(i, n) {
    C v = un_apply<OP, C>(load(x, i), alpha);
    if constexpr (un_bool_out<OP>()) y[i] = v != 0;
    else store(y, i, v);
  }
}

/* ---- launch ---- */

template <int OP, typename S>
int launch_binary(const void *a, const void *b, void *z, const tfc_cuda_bcast *p, int64_t n, double param,
                  cudaStream_t st) {
  typedef typename std::conditional<bool_out<OP>(), boolean, S>::type OS;
  binary_kernel<OP, S><<<blocks_for(n), kThreads, 0, st>>>((const S *)a, (const S *)b, (OS *)z, n, *p, param);
  return launched();
}

template <int OP, typename S>
int launch_unary(const void *x, void *y, int64_t n, double param, cudaStream_t st) {
  typedef typename std::conditional<un_bool_out<OP>(), boolean, S>::type OS;
  unary_kernel<OP, S><<<blocks_for(n), kThreads, 0, st>>>((const S *)x, (OS *)y, n, param);
  return launched();
}

/* Which types each op has: F = floats (f32, f64, f16), I = i32 and i64, B = bool. */
enum { F = 1, I = 2, B = 4 };

template <int OP> constexpr int bin_types() {
  switch (OP) {
    case TFC_CUDA_ADD: case TFC_CUDA_SUB: case TFC_CUDA_MUL: case TFC_CUDA_MAXIMUM: case TFC_CUDA_MINIMUM:
    case TFC_CUDA_SQUARED_DIFFERENCE: case TFC_CUDA_LESS: case TFC_CUDA_LESS_EQUAL: case TFC_CUDA_GREATER:
    case TFC_CUDA_GREATER_EQUAL: case TFC_CUDA_RELU_GRAD: case TFC_CUDA_RELU6_GRAD:
      return F | I;
    case TFC_CUDA_EQUAL: case TFC_CUDA_NOT_EQUAL: return F | I | B;
    case TFC_CUDA_LOGICAL_AND: case TFC_CUDA_LOGICAL_OR: return B;
    default: return F;
  }
}

template <int OP> constexpr int un_types() {
  switch (OP) {
    case TFC_CUDA_NEG: case TFC_CUDA_ABS: case TFC_CUDA_SQUARE: case TFC_CUDA_SIGN: case TFC_CUDA_RELU:
    case TFC_CUDA_RELU6:
      return F | I;
    case TFC_CUDA_LOGICAL_NOT: return B;
    default: return F;
  }
}

template <int OP>
int dispatch_binary(int dtype, const void *a, const void *b, void *z, const tfc_cuda_bcast *p, int64_t n,
                    double param, cudaStream_t st) {
  constexpr int ty = bin_types<OP>();
  if constexpr ((ty & F) != 0) {
    if (dtype == TFC_CUDA_F32) return launch_binary<OP, float>(a, b, z, p, n, param, st);
    if (dtype == TFC_CUDA_F64) return launch_binary<OP, double>(a, b, z, p, n, param, st);
    if (dtype == TFC_CUDA_F16) return launch_binary<OP, __half>(a, b, z, p, n, param, st);
  }
  if constexpr ((ty & I) != 0) {
    if (dtype == TFC_CUDA_I32) return launch_binary<OP, int32_t>(a, b, z, p, n, param, st);
    if (dtype == TFC_CUDA_I64) return launch_binary<OP, int64_t>(a, b, z, p, n, param, st);
  }
  if constexpr ((ty & B) != 0) {
    if (dtype == TFC_CUDA_BOOL) return launch_binary<OP, boolean>(a, b, z, p, n, param, st);
  }
  return TFC_CUDA_E_UNSUPPORTED;
}

template <int OP>
int dispatch_unary(int dtype, const void *x, void *y, int64_t n, double param, cudaStream_t st) {
  constexpr int ty = un_types<OP>();
  if constexpr ((ty & F) != 0) {
    if (dtype == TFC_CUDA_F32) return launch_unary<OP, float>(x, y, n, param, st);
    if (dtype == TFC_CUDA_F64) return launch_unary<OP, double>(x, y, n, param, st);
    if (dtype == TFC_CUDA_F16) return launch_unary<OP, __half>(x, y, n, param, st);
  }
  if constexpr ((ty & I) != 0) {
    if (dtype == TFC_CUDA_I32) return launch_unary<OP, int32_t>(x, y, n, param, st);
    if (dtype == TFC_CUDA_I64) return launch_unary<OP, int64_t>(x, y, n, param, st);
  }
  if constexpr ((ty & B) != 0) {
    if (dtype == TFC_CUDA_BOOL) return launch_unary<OP, boolean>(x, y, n, param, st);
  }
  return TFC_CUDA_E_UNSUPPORTED;
}

/* Tables indexed by op, built from the op list at compile time: an op added to the enum
 * without a formula fails to compile (static_assert in bin_apply / un_apply). */
typedef int (*bin_launcher)(int, const void *, const void *, void *, const tfc_cuda_bcast *, int64_t, double,
                            cudaStream_t);
typedef int (*un_launcher)(int, const void *, void *, int64_t, double, cudaStream_t);

template <int... OPS> struct bin_table {
  static constexpr bin_launcher fns[] = {dispatch_binary<OPS>...};
};
template <int... OPS> struct un_table {
  static constexpr un_launcher fns[] = {dispatch_unary<OPS>...};
};

template <int... I> constexpr auto make_bin(std::integer_sequence<int, I...>) { return bin_table<I...>{}; }
template <int... I> constexpr auto make_un(std::integer_sequence<int, I...>) { return un_table<I...>{}; }

typedef decltype(make_bin(std::make_integer_sequence<int, TFC_CUDA_BINOP_COUNT>{})) bin_fns;
typedef decltype(make_un(std::make_integer_sequence<int, TFC_CUDA_UNOP_COUNT>{})) un_fns;

} // namespace

extern "C" int tfc_cuda_binary(int op, int dtype, const void *a, const void *b, void *z, const tfc_cuda_bcast *plan,
                               double param, void *stream) {
  if (op < 0 || op >= TFC_CUDA_BINOP_COUNT || plan->rank < 1 || plan->rank > TFC_CUDA_MAX_DIMS)
    return TFC_CUDA_E_UNSUPPORTED;
  int64_t n = dims_count(plan->rank, plan->dims);
  if (n == 0) return 0;
  return bin_fns::fns[op](dtype, a, b, z, plan, n, param, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_unary(int op, int dtype, const void *x, void *y, int64_t n, double param, void *stream) {
  if (op < 0 || op >= TFC_CUDA_UNOP_COUNT) return TFC_CUDA_E_UNSUPPORTED;
  if (n == 0) return 0;
  return un_fns::fns[op](dtype, x, y, n, param, (cudaStream_t)stream);
}

extern "C" int tfc_cuda_memset(void *p, int value, int64_t bytes, void *stream) {
  if (bytes == 0) return 0;
  return cuda_result(cudaMemsetAsync(p, value, (size_t)bytes, (cudaStream_t)stream));
}

extern "C" const char *tfc_cuda_error_string(int err) {
  if (err == TFC_CUDA_E_UNSUPPORTED) return "no CUDA kernel for this operation and type";
  return cudaGetErrorString((cudaError_t)err);
}
