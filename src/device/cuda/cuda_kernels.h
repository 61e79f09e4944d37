/*
 * cuda_kernels — the CUDA kernels of the GPU device, as plain C launchers, and the entry point
 * that registers the tfc kernels built on them.
 *
 * Two layers. The launchers (cuda_cwise.cu, cuda_reduce.cu) are compiled by nvcc and know
 * nothing of tensors, nodes or statuses: they take device pointers, a host-computed plan
 * passed by value, and a cudaStream_t (as void *), enqueue the work and return at once. The
 * tfc kernels (kernels_*_gpu.c, plain C) check shapes and attrs exactly as the CPU kernels do,
 * allocate outputs through the device allocator (device memory), build the plan, and call a
 * launcher on the device's compute stream. Because every kernel of a device runs on that one
 * stream, results are ready for whatever the executor enqueues next; nothing here waits.
 *
 * Launcher results: 0 on success; TFC_CUDA_E_UNSUPPORTED when the (op, dtype) pair has no
 * kernel or the plan exceeds TFC_CUDA_MAX_DIMS; otherwise the cudaError_t of the failed
 * launch (positive). tfc_cuda_error_string names any of them. Launchers are thread-safe
 * (they touch no shared state); the caller keeps the buffers alive until the stream has run
 * the work, which the device allocator's stream ordering guarantees.
 *
 * This header is included from both C and CUDA C++, so it uses only <stdint.h> types and
 * defines its own dtype codes (the C layer maps TFC_DT_* to them).
 */
#ifndef TFC_DEVICE_CUDA_CUDA_KERNELS_H
#define TFC_DEVICE_CUDA_CUDA_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collapsed plans have at most this many dims (passed to kernels by value). */
#define TFC_CUDA_MAX_DIMS 8

enum { TFC_CUDA_E_UNSUPPORTED = -1 };

/* Element types the launchers know. */
enum tfc_cuda_dtype {
  TFC_CUDA_F32 = 0,
  TFC_CUDA_F64 = 1,
  TFC_CUDA_F16 = 2, /* computed in float, stored as IEEE half */
  TFC_CUDA_I32 = 3,
  TFC_CUDA_I64 = 4,
  TFC_CUDA_BOOL = 5, /* one byte, 0 or 1 */
  TFC_CUDA_DTYPE_COUNT = 6
};

/* Binary element-wise ops. Comparisons and the logical ops write bool; the rest write the
 * input type. The *_GRAD ops take (a, b) in the TF op's input order. PARAM: uses `param`. */
enum tfc_cuda_binop {
  TFC_CUDA_ADD = 0,
  TFC_CUDA_SUB = 1,
  TFC_CUDA_MUL = 2,
  TFC_CUDA_DIV = 3,      /* floats only: integer division needs host-side zero checks */
  TFC_CUDA_FLOORDIV = 4, /* floats */
  TFC_CUDA_FLOORMOD = 5, /* floats */
  TFC_CUDA_MAXIMUM = 6,
  TFC_CUDA_MINIMUM = 7,
  TFC_CUDA_POW = 8, /* floats */
  TFC_CUDA_SQUARED_DIFFERENCE = 9,
  TFC_CUDA_LESS = 10,
  TFC_CUDA_LESS_EQUAL = 11,
  TFC_CUDA_GREATER = 12,
  TFC_CUDA_GREATER_EQUAL = 13,
  TFC_CUDA_EQUAL = 14,
  TFC_CUDA_NOT_EQUAL = 15,
  TFC_CUDA_LOGICAL_AND = 16, /* bool */
  TFC_CUDA_LOGICAL_OR = 17,  /* bool */
  TFC_CUDA_RELU_GRAD = 18,   /* (gradients, features) */
  TFC_CUDA_RELU6_GRAD = 19,
  TFC_CUDA_LEAKY_RELU_GRAD = 20, /* PARAM alpha */
  TFC_CUDA_ELU_GRAD = 21,        /* (gradients, outputs) */
  TFC_CUDA_SELU_GRAD = 22,
  TFC_CUDA_SOFTPLUS_GRAD = 23, /* (gradients, features) */
  TFC_CUDA_SOFTSIGN_GRAD = 24,
  TFC_CUDA_TANH_GRAD = 25, /* (y, dy) */
  TFC_CUDA_SIGMOID_GRAD = 26,
  TFC_CUDA_SQRT_GRAD = 27,
  TFC_CUDA_RSQRT_GRAD = 28,
  TFC_CUDA_RECIPROCAL_GRAD = 29,
  TFC_CUDA_BINOP_COUNT = 30
};

enum tfc_cuda_unop {
  TFC_CUDA_NEG = 0,
  TFC_CUDA_ABS = 1,
  TFC_CUDA_SQUARE = 2,
  TFC_CUDA_SQRT = 3,
  TFC_CUDA_RSQRT = 4,
  TFC_CUDA_EXP = 5,
  TFC_CUDA_LOG = 6,
  TFC_CUDA_RECIPROCAL = 7,
  TFC_CUDA_SIGN = 8,
  TFC_CUDA_TANH = 9,
  TFC_CUDA_SIGMOID = 10,
  TFC_CUDA_RELU = 11,
  TFC_CUDA_RELU6 = 12,
  TFC_CUDA_LEAKY_RELU = 13, /* PARAM alpha */
  TFC_CUDA_ELU = 14,
  TFC_CUDA_SELU = 15,
  TFC_CUDA_SOFTPLUS = 16,
  TFC_CUDA_SOFTSIGN = 17,
  TFC_CUDA_FLOOR = 18,
  TFC_CUDA_CEIL = 19,
  TFC_CUDA_ROUND = 20, /* half to even */
  TFC_CUDA_LOG1P = 21,
  TFC_CUDA_EXPM1 = 22,
  TFC_CUDA_SIN = 23,
  TFC_CUDA_COS = 24,
  TFC_CUDA_LOGICAL_NOT = 25, /* bool */
  TFC_CUDA_UNOP_COUNT = 26
};

/* A broadcast plan: output dims (row-major, collapsed) and each operand's element strides
 * over them, 0 where the operand is broadcast. rank >= 1. */
typedef struct tfc_cuda_bcast {
  int rank;
  int64_t dims[TFC_CUDA_MAX_DIMS];
  int64_t strides[2][TFC_CUDA_MAX_DIMS];
} tfc_cuda_bcast;

/* z[i] = op(a[...], b[...]) over the plan's n outputs (n = product of dims; 0 is a no-op).
 * z may alias an operand that is not broadcast (each element is read before it is written). */
int tfc_cuda_binary(int op, int dtype, const void *a, const void *b, void *z, const tfc_cuda_bcast *plan,
                    double param, void *stream);
/* y[i] = op(x[i]) for n elements; y may alias x. */
int tfc_cuda_unary(int op, int dtype, const void *x, void *y, int64_t n, double param, void *stream);

/* Reductions. */
enum tfc_cuda_redop {
  TFC_CUDA_RED_SUM = 0,
  TFC_CUDA_RED_MEAN = 1,
  TFC_CUDA_RED_PROD = 2,
  TFC_CUDA_RED_MAX = 3,
  TFC_CUDA_RED_MIN = 4,
  TFC_CUDA_REDOP_COUNT = 5
};

/* A reduction plan over a row-major input: each output element is one point of the kept
 * dims (kdims, input strides kstrides; n_kept may be 0 for a full reduction), reduced over
 * the reduced dims (rdims, rstrides; n_red may be 0: a copy). Output elements are written
 * densely in row-major order of the kept dims. */
typedef struct tfc_cuda_reduce_plan {
  int n_kept, n_red;
  int64_t kdims[TFC_CUDA_MAX_DIMS], kstrides[TFC_CUDA_MAX_DIMS];
  int64_t rdims[TFC_CUDA_MAX_DIMS], rstrides[TFC_CUDA_MAX_DIMS];
} tfc_cuda_reduce_plan;

/* Floats (F32, F64, F16: accumulated in float/double). A reduction over zero elements gives
 * the identity (0, 1, -inf, +inf) and NaN for Mean, as the CPU kernels. */
int tfc_cuda_reduce(int op, int dtype, const void *x, void *out, const tfc_cuda_reduce_plan *plan, void *stream);

/* Softmax (log = 0) or LogSoftmax (log = 1) over the last dim: rows x cols, row-major. */
int tfc_cuda_softmax(int dtype, int log, const void *x, void *y, int64_t rows, int64_t cols, void *stream);

/* Sets `bytes` bytes at p to the byte `value` (stream-ordered). */
int tfc_cuda_memset(void *p, int value, int64_t bytes, void *stream);

/* "cudaErrorInvalidValue: invalid argument", or a text for TFC_CUDA_E_UNSUPPORTED. Static. */
const char *tfc_cuda_error_string(int err);

#ifdef __cplusplus
}
#endif

/* ---- the tfc kernels (C only) ---- */
#ifndef __CUDACC__
#include "base/status.h"
#include "device/kernel.h"

/* Registers every CUDA kernel in t (the GPU kernel table, built by the GPU device). Returns 0
 * or RESOURCE_EXHAUSTED. Not thread-safe against other users of t. */
int tfc_cuda_kernels_register(tfc_kernel_table *t, tfc_status *s);

/* Sibling registration and shared helpers of kernels_*_gpu.c. */
int tfc_cuda_kernels_matmul(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_nn(tfc_kernel_table *t, tfc_status *s);
/* The launcher dtype of a tfc dtype, or -1. */
int tfc_cuda_dtype_of(int dtype);
/* The compute stream of c's device, or an error set in c (the node named) when it has none:
 * these kernels need a CUDA stream. */
int tfc_cuda_ctx_stream(tfc_kernel_ctx *c, void **out);
/* Turns a launcher result into c's status: 0 stays OK; UNSUPPORTED is UNIMPLEMENTED naming the
 * op and dtype; a CUDA error is INTERNAL with its text. Returns c->status->code. */
int tfc_cuda_ctx_check(tfc_kernel_ctx *c, int err, int dtype);
#endif

#endif
