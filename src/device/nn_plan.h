/*
 * nn_plan — the input checks and output-shape plans of the loss, arg-reduction and check ops
 * that the CPU kernels (cpu/kernels_nn.c, cpu/kernels_reduce.c) and the GPU kernels
 * (cuda/kernels_loss_gpu.c, cuda/kernels_select_gpu.c) share: SoftmaxCrossEntropyWithLogits (with
 * its broadcasting), SparseSoftmaxCrossEntropyWithLogits, ArgMax / ArgMin, InTopK / InTopKV2,
 * TopKV2, CheckNumerics, ClipByValue and LRN / LRNGrad (cuda/kernels_lrn_gpu.c).
 *
 * Each function reads only shapes, attrs and host-memory inputs, so the two devices accept and
 * refuse exactly the same inputs with TF 1.15's codes and texts; only the data work differs.
 * Checks that need the values of device-memory inputs (a sparse label's range, an InTopK
 * target's range) stay with the CPU kernels: TF's GPU kernels answer those with NaN / false
 * instead (see cuda/kernels_loss_gpu.c).
 *
 * Errors are set on the kernel context (tfc_kernel_error; the executor adds node and device).
 * Thread-safe (no state).
 */
#ifndef TFC_DEVICE_NN_PLAN_H
#define TFC_DEVICE_NN_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

/* SoftmaxCrossEntropyWithLogits over [rows, cols]: each input (rank <= 2 once checked) is read
 * at element row * rs + col * cs, with a stride of 0 along a dim it is broadcast over. `full`:
 * the input already has shape [rows, cols] (dense, both strides natural). */
typedef struct tfc_xent_plan {
  int64_t rows, cols;
  int64_t dims[2]; /* {rows, cols} */
  int x_full, l_full;
  int64_t x_rs, x_cs, l_rs, l_cs;
} tfc_xent_plan;

/* Checks logits and labels as TF's SoftmaxXentWithLogitsOp (equal shapes, or numpy-broadcastable
 * to a matrix) and fills p. INVALID_ARGUMENT "logits and labels must be broadcastable: ..." or
 * "... must be either 2-dimensional, or broadcasted to be 2-dimensional". */
int tfc_xent_plan_of(tfc_kernel_ctx *c, const tfc_tensor *logits, const tfc_tensor *labels, tfc_xent_plan *p);

/* The shape checks of SparseSoftmaxCrossEntropyWithLogits: logits a matrix with at least one
 * class, labels a vector of its batch size (TF's texts). The label range is not checked. */
int tfc_sparse_xent_check(tfc_kernel_ctx *c, const tfc_tensor *logits, const tfc_tensor *labels);

/* ArgMax / ArgMin of c's inputs (input 1, the dimension, in host memory): x viewed as
 * [outer, len, inner] around the reduced axis; the output has dims[0..ndims) of out_type. */
typedef struct tfc_arg_plan {
  int64_t outer, len, inner;
  int ndims;
  int64_t dims[TFC_MAX_DIMS];
  int out_type; /* TFC_DT_INT32 or TFC_DT_INT64 (the output_type attr) */
} tfc_arg_plan;

/* Reads the output_type attr and the dimension, checks them as TF's ArgOp ("dim must be a
 * scalar...", "Expected dimension in the range [-r, r)...", "Reduction axis d is empty in
 * shape ...": INVALID_ARGUMENT) and fills p. */
int tfc_arg_plan_of(tfc_kernel_ctx *c, tfc_arg_plan *p);

/* InTopK / InTopKV2 shape checks: k (NULL for InTopK) a scalar, predictions a matrix, targets a
 * vector of its batch size. INVALID_ARGUMENT with TF's texts. */
int tfc_in_top_k_check(tfc_kernel_ctx *c, const tfc_tensor *predictions, const tfc_tensor *targets,
                       const tfc_tensor *k);

/* TopKV2 over the last dim of input 0, k (input 1, a scalar) in host memory: x viewed as
 * [rows, n]; both outputs have dims[0..ndims) (the input's with the last dim k); the indices
 * are of idx_type (the node's second output type: int32, or int16 / int64 by index_type). */
typedef struct tfc_top_k_plan {
  int64_t rows, n, k;
  int ndims;
  int64_t dims[TFC_MAX_DIMS];
  int idx_type;
} tfc_top_k_plan;

/* Checks as TF's TopK kernel: "Need k >= 0, got ...", "input must be >= 1-D, got shape ...",
 * "input must have at least k columns. Had ..., needed ..." and that the last dim's indices
 * fit idx_type (INVALID_ARGUMENT), and fills p. */
int tfc_top_k_plan_of(tfc_kernel_ctx *c, tfc_top_k_plan *p);

/* CheckNumerics's findings: bit 1 a NaN, bit 2 an infinity. */
enum { TFC_CHECK_NAN = 1, TFC_CHECK_INF = 2 };
/* OK for flags 0; otherwise INVALID_ARGUMENT "<message> : Tensor had NaN values" (Inf, "Inf
 * and NaN"), TF's text. Returns c->status->code. */
int tfc_check_numerics_report(tfc_kernel_ctx *c, const char *message, int flags);

/* ClipByValue: clip_value_min and clip_value_max (inputs 1, 2; any memory) each a scalar or of
 * t's shape (input 0), else INVALID_ARGUMENT with TF's text. */
int tfc_clip_check(tfc_kernel_ctx *c);

/* LRN and LRNGrad's attrs (TF's defaults: depth_radius 5, bias 1, alpha 1, beta 0.5). */
typedef struct tfc_lrn_attrs {
  int64_t radius;
  float bias, alpha, beta;
} tfc_lrn_attrs;
/* The kernel state of an LRN or LRNGrad node: its attrs in a new tfc_lrn_attrs (freed with
 * free). RESOURCE_EXHAUSTED when out of memory. */
int tfc_lrn_init(const tfc_node *n, void **state, tfc_status *s);
/* The checks of LRN (input 0: the 4-D input) or LRNGrad (`grad`: input_grads, input_image,
 * output_image, all 4-D of one shape), TF's texts, and the shape as *rows x *depth (the last
 * dim). Returns 0 or INVALID_ARGUMENT set in c. */
int tfc_lrn_check(tfc_kernel_ctx *c, int grad, int64_t *rows, int64_t *depth);

#endif
