/*
 * cuda_kernels — the CUDA kernels of the GPU device, as plain C launchers, and the entry point
 * that registers the tfc kernels built on them.
 *
 * Two layers. The launchers (the *.cu files beside this header) are compiled by nvcc and know
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
  TFC_CUDA_ATAN2 = 30,       /* floats: (y, x) */
  TFC_CUDA_XDIVY = 31,       /* floats: 0 where x is 0 */
  TFC_CUDA_XLOGY = 32,       /* floats: 0 where x is 0 */
  TFC_CUDA_DIV_NO_NAN = 33,  /* floats: 0 where y is 0 */
  TFC_CUDA_BINOP_COUNT = 34
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
  TFC_CUDA_TAN = 26,
  TFC_CUDA_ERF = 27,
  TFC_CUDA_ERFC = 28,
  TFC_CUDA_LGAMMA = 29,
  TFC_CUDA_IS_FINITE = 30, /* floats in, bool out (IS_FINITE..IS_INF) */
  TFC_CUDA_IS_NAN = 31,
  TFC_CUDA_IS_INF = 32,
  TFC_CUDA_DIGAMMA = 33, /* in double (device/special_math.h) */
  TFC_CUDA_UNOP_COUNT = 34
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

/* The bytes of device scratch tfc_cuda_reduce wants for (dtype, plan): room for the partial
 * results of its two-pass shapes (a column reduction cut into row chunks, a few long
 * reductions cut into many blocks); 0 when the plan runs in one pass or is invalid. A pure
 * function of its arguments (the same plan always gets the same answer); thread-safe. */
int64_t tfc_cuda_reduce_scratch_bytes(int dtype, const tfc_cuda_reduce_plan *plan);
/* Floats (F32, F64, F16: accumulated in float/double). A reduction over zero elements gives
 * the identity (0, 1, -inf, +inf) and NaN for Mean, as the CPU kernels. scratch: device
 * memory of tfc_cuda_reduce_scratch_bytes(dtype, plan) bytes, borrowed until the stream has
 * run the work (a temporary freed right after the call is fine under the device allocator's
 * stream ordering), or NULL: then only the one-pass kernels run (the same values up to
 * rounding, slower on those shapes). Results never depend on the GPU or the run: the work's
 * partition follows from the plan alone and partials meet in a fixed order (no atomics). */
int tfc_cuda_reduce(int op, int dtype, const void *x, void *out, const tfc_cuda_reduce_plan *plan, void *scratch,
                    void *stream);

/* Softmax (log = 0) or LogSoftmax (log = 1) over the last dim: rows x cols, row-major. */
int tfc_cuda_softmax(int dtype, int log, const void *x, void *y, int64_t rows, int64_t cols, void *stream);

/* Sets `bytes` bytes at p to the byte `value` (stream-ordered). */
int tfc_cuda_memset(void *p, int value, int64_t bytes, void *stream);

/* "cudaErrorInvalidValue: invalid argument", or a text for TFC_CUDA_E_UNSUPPORTED. Static. */
const char *tfc_cuda_error_string(int err);


/* ---- array and training launchers (cuda_array.cu, cuda_train.cu) ---- */

/* A strided copy: for every point i of the window dims[0..rank) (row-major), element
 * dst[dst_offset + sum(i_d * dst_strides[d])] = src[src_offset + sum(i_d * src_strides[d])];
 * strides and offsets in elements of elem_size bytes (1, 2, 4 or 8). rank >= 1. */
typedef struct tfc_cuda_copy_plan {
  int rank;
  int64_t dims[TFC_CUDA_MAX_DIMS];
  int64_t src_strides[TFC_CUDA_MAX_DIMS], dst_strides[TFC_CUDA_MAX_DIMS];
  int64_t src_offset, dst_offset;
} tfc_cuda_copy_plan;
int tfc_cuda_strided_copy(int elem_size, const void *src, void *dst, const tfc_cuda_copy_plan *plan, void *stream);
/* dst (out_dims, dense) = src (in_dims, dense, same rank) tiled: dst[i] = src[i mod in_dims]. */
int tfc_cuda_tile(int elem_size, const void *src, void *dst, int rank, const int64_t *in_dims,
                  const int64_t *out_dims, void *stream);
/* out[b, o, j, k] = params[b, o, idx[b, j], k] over [batch, outer, n_idx, inner], params viewed
 * as [batch, outer, limit, inner]; idx_dtype TFC_CUDA_I32 or I64; an index outside [0, limit)
 * gives zeros (TF's GPU Gather: the host cannot see device indices without a sync). */
int tfc_cuda_gather(int elem_size, int idx_dtype, const void *params, const void *idx, void *out, int64_t batch,
                    int64_t outer, int64_t limit, int64_t n_idx, int64_t inner, void *stream);
/* GatherNd: out[row, k] = params[idx[row, 0..r) flattened over dims[0..r)), k] for n_rows rows
 * of `slice` elements; a row with a coordinate outside [0, dims[d]) gives zeros (TF's GPU
 * GatherNd). r <= TFC_CUDA_MAX_DIMS; idx_dtype TFC_CUDA_I32 or I64. */
int tfc_cuda_gather_nd(int elem_size, int idx_dtype, const void *params, const void *idx, void *out, int r,
                       const int64_t *dims, int64_t n_rows, int64_t slice, void *stream);
/* n elements of y (dst_dtype) = x (src_dtype) converted; to bool: x != 0; floats to integers
 * truncate toward zero (NaN gives 0, out of range saturates, as CUDA's conversions). */
int tfc_cuda_cast(int src_dtype, int dst_dtype, const void *x, void *y, int64_t n, void *stream);
/* n elements of dst set to one element: *dev_value (a device pointer) when not NULL, else the
 * low elem_size bytes of bits. */
int tfc_cuda_fill(int elem_size, const void *dev_value, uint64_t bits, void *dst, int64_t n, void *stream);
/* z[i] = cond[i / cond_div] ? t[i] : e[i] for n elements (cond_div 1: element-wise; the row
 * length: one cond per row; n: a scalar cond). cond is bool. */
int tfc_cuda_select(int elem_size, const void *cond, const void *t, const void *e, void *z, int64_t n,
                    int64_t cond_div, void *stream);
/* out[o, d, i] = idx[o, i] == d ? *on : *off over [outer, depth, inner]; on and off are device
 * scalars; idx_dtype TFC_CUDA_I32 or I64 (negative or >= depth: all off). */
int tfc_cuda_one_hot(int elem_size, int idx_dtype, const void *idx, const void *on, const void *off, void *out,
                     int64_t outer, int64_t depth, int64_t inner, void *stream);
/* bytes from src to dst, device to device, stream-ordered. */
int tfc_cuda_memcpy(void *dst, const void *src, int64_t bytes, void *stream);

/* The optimizers' dense updates, the CPU kernels' formulas (kernels_training.c) in the
 * variable's type (half: computed in float). The values equal training_plan.h's
 * TFC_APPLY_* kinds (static_assert in kernels_training_gpu.c). old/out list the variable and
 * its slots in the op's input order; every out[k] is a fresh buffer (never an old one). */
enum tfc_cuda_apply_op {
  TFC_CUDA_APPLY_GD = 0,       /* s[1] alpha */
  TFC_CUDA_APPLY_MOMENTUM = 1, /* s[2] lr, s[4] momentum; old/out: var, accum */
  TFC_CUDA_APPLY_ADAM = 2,     /* s[3..8] beta1_power, beta2_power, lr, beta1, beta2, epsilon; var, m, v */
  TFC_CUDA_APPLY_ADAGRAD = 3,  /* s[2] lr; var, accum (out[1] NULL: accum not updated) */
  TFC_CUDA_APPLY_RMSPROP = 4,  /* s[3..6] lr, rho, momentum, epsilon; var, ms, mom */
  TFC_CUDA_APPLY_CENTERED_RMSPROP = 5, /* s[4..7] lr, rho, momentum, epsilon; var, mg, ms, mom */
  TFC_CUDA_APPLY_ADADELTA = 6, /* s[3..5] lr, rho, epsilon; var, accum, accum_update */
  TFC_CUDA_APPLY_OP_COUNT = 7
};
typedef struct tfc_cuda_apply_args {
  int op, nesterov;
  double s[10]; /* the scalar inputs by input index */
  const void *grad;
  const void *old[4];
  void *out[4];
} tfc_cuda_apply_args;
/* Floats only (F32, F64, F16); n may be 0 (nothing is launched). */
int tfc_cuda_apply(int dtype, const tfc_cuda_apply_args *args, int64_t n, void *stream);

/* ---- pooling launchers (cuda_pool.cu) ---- */

/* One 2-D or 3-D pooling over an n x c x (D x H x W) input into n x c x (oD x oH x oW), both
 * dense with the channels last (NHWC, NDHWC) or first (cfirst: NCHW, NCDHW). Spatial arrays
 * are D, H, W; a 2-D pooling has D = oD = k = s = 1 and pad 0 there. Output o pools, per
 * dim, [o * s - pad, + k) clipped to the input (TF's window; the padding after is implied by
 * the output size). */
typedef struct tfc_cuda_pool_geom {
  int64_t n, c;
  int64_t in[3], out[3], k[3], s[3], pad[3];
  int cfirst;
} tfc_cuda_pool_geom;
/* y = the window's first maximum (is_max) or its average over the real elements. F32, F64,
 * F16. */
int tfc_cuda_pool_fwd(int dtype, int is_max, const void *x, void *y, const tfc_cuda_pool_geom *g, void *stream);
/* MaxPoolGrad: dx (input-sized) = each output's dy routed to the first maximum of its window
 * in x (row-major), as TF's CPU kernel. argmax: device scratch of n * c * oD * oH * oW int32. */
int tfc_cuda_pool_max_grad(int dtype, const void *x, const void *dy, void *dx, int32_t *argmax,
                           const tfc_cuda_pool_geom *g, void *stream);
/* MaxPool3DGrad: dx (input-sized) = the sum of dy over the windows covering each input whose
 * value equals the window's orig_output y: EVERY maximum of a window gets its gradient (TF's
 * CPU kernel's rule for the 3-D op). */
int tfc_cuda_pool_max_grad_ties(int dtype, const void *x, const void *y, const void *dy, void *dx,
                                const tfc_cuda_pool_geom *g, void *stream);
/* AvgPoolGrad: dx (input-sized) = the sum of dy / count over the windows covering it. */
int tfc_cuda_pool_avg_grad(int dtype, const void *dy, void *dx, const tfc_cuda_pool_geom *g, void *stream);

/* ---- random launcher (cuda_random.cu) ---- */

/* Fills `size` elements of out with TF's Philox distribution `dist` over element type `elem`
 * (TFC_PHILOX_* of base/philox.h), from the generator state (key, counter) the kernel reserved
 * for this run: the same values, in the same places, as tfc_philox_fill_groups over all groups
 * of that state on the CPU. lo/range: UNIFORM_INT only (range nonzero). Uniform and integer
 * outputs are bit-identical to the CPU; normals use CUDA's logf/sqrtf/sincosf (see
 * cuda_random.cu for the bound). */
int tfc_cuda_random(int dist, int elem, const uint32_t key[2], const uint32_t counter[4], int64_t lo, uint64_t range,
                    void *out, int64_t size, void *stream);
/* The complex element maps (cuda_spectral.cu) over n complex elements of x, whose parts are
 * of dtype (TFC_CUDA_F32: complex64, F64: complex128): ABS and ANGLE write n reals to y, CONJ
 * n complex values (y may alias x). */
enum tfc_cuda_complex_kind { TFC_CUDA_CPLX_ABS = 0, TFC_CUDA_CPLX_ANGLE = 1, TFC_CUDA_CPLX_CONJ = 2 };
int tfc_cuda_complex_map(int kind, int dtype, const void *x, void *y, int64_t n, void *stream);
/* x[i] *= factor for n reals of dtype TFC_CUDA_F32 or F64. */
int tfc_cuda_scale(int dtype, void *x, int64_t n, double factor, void *stream);
/* Multinomial's draw (random_kernel.h's tfc_multinomial_prepare says which words a sample
 * takes): logits [batch, classes] (TFC_CUDA_F32 or F64) into out [batch, num_samples]
 * (TFC_CUDA_I32 or I64) from the reserved generator (key, counter), as the CPU kernel draws;
 * cdf_scratch holds batch * classes doubles. */
int tfc_cuda_multinomial(int logit_dtype, int out_dtype, const void *logits, int64_t batch, int64_t classes,
                         int64_t num_samples, const uint32_t key[2], const uint32_t counter[4], void *cdf_scratch,
                         void *out, void *stream);
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
/* kernels_array_gpu.c, kernels_state_gpu.c, kernels_training_gpu.c. */
int tfc_cuda_kernels_array(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_state(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_training(tfc_kernel_table *t, tfc_status *s);
/* kernels_scatter_gpu.c: scatter updates, ScatterNd, stitch/partition, segments, band part, reverse sequence. */
int tfc_cuda_kernels_scatter(tfc_kernel_table *t, tfc_status *s);
/* kernels_conv_gpu.c (cuDNN), kernels_random_gpu.c. */
int tfc_cuda_kernels_conv(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_random(tfc_kernel_table *t, tfc_status *s);
/* The launcher dtype of a tfc dtype, or -1. */
int tfc_cuda_dtype_of(int dtype);
/* The compute stream of c's device, or an error set in c (the node named) when it has none:
 * these kernels need a CUDA stream. */
int tfc_cuda_ctx_stream(tfc_kernel_ctx *c, void **out);
/* A device temporary of `bytes` bytes (uint8) from c's device allocator, or NULL with the
 * allocator's error (RESOURCE_EXHAUSTED on OOM) set in c. The caller owns the reference and
 * may drop it (tfc_tensor_unref) right after enqueueing the work that uses it: the device
 * allocator hands the memory out again only to work ordered after that on the same stream. */
tfc_tensor *tfc_cuda_ctx_temp(tfc_kernel_ctx *c, int64_t bytes);
/* Turns a launcher result into c's status: 0 stays OK; UNSUPPORTED is UNIMPLEMENTED naming the
 * op and dtype; a CUDA error is INTERNAL with its text. Returns c->status->code. */
int tfc_cuda_ctx_check(tfc_kernel_ctx *c, int err, int dtype);
/* kernels_loss_gpu.c: the losses, ArgMax/ArgMin, InTopKV2, CheckNumerics. */
int tfc_cuda_kernels_loss(tfc_kernel_table *t, tfc_status *s);
/* kernels_pad_gpu.c: SelectV2, BroadcastTo, the pads, StridedSliceGrad, UnsortedSegmentSum, scans. */
int tfc_cuda_kernels_array2(tfc_kernel_table *t, tfc_status *s);
/* kernels_batch_norm_gpu.c: FusedBatchNorm / V2 / V3 and their gradients. */
int tfc_cuda_kernels_batch_norm(tfc_kernel_table *t, tfc_status *s);
/* kernels_image_gpu.c: the resize ops; kernels_select_gpu.c: Where and TopKV2. */
int tfc_cuda_kernels_image(tfc_kernel_table *t, tfc_status *s);
int tfc_cuda_kernels_select(tfc_kernel_table *t, tfc_status *s);
/* kernels_spectral_gpu.c: the FFTs (cuFFT) and the complex-number ops. */
int tfc_cuda_kernels_spectral(tfc_kernel_table *t, tfc_status *s);
/* kernels_conv3d_gpu.c: Conv3D and the 3-D pools, with LRN and CropAndResize (cuda_nn_extra.h). */
int tfc_cuda_kernels_conv3d(tfc_kernel_table *t, tfc_status *s);
/* kernels_linalg_gpu.c: MatrixDeterminant, MatrixInverse, MatrixSolve (cuBLAS), Cholesky
 * (cuSOLVER). */
int tfc_cuda_kernels_linalg(tfc_kernel_table *t, tfc_status *s);
#endif

#endif
