/*
 * matmul_plan — what the CPU and GPU kernels of MatMul, BatchMatMul(V2) and Einsum share: the
 * attrs, TF's shape checks and texts (matmul_op.cc, batch_matmul_op_impl.h, einsum_op_impl.h),
 * and the product's dimensions, so both devices refuse the same inputs with the same messages
 * and differ only in the GEMM (and, for Einsum, the strided copies) they run.
 *
 * Errors are set on the kernel context (the node and device are added by the executor).
 * Thread-safe: no state but the node's parsed attrs, read-only after init.
 */
#ifndef TFC_DEVICE_MATMUL_PLAN_H
#define TFC_DEVICE_MATMUL_PLAN_H

#include <stdint.h>

#include "device/cpu/cwise_int.h"
#include "device/kernel.h"
#include "ops/einsum_spec.h"

/* MatMul's kernel state: transpose_a, transpose_b. */
typedef struct tfc_matmul_state {
  int ta, tb;
} tfc_matmul_state;
/* Parses the attrs into a new state (freed with free). INTERNAL when one is missing. */
int tfc_matmul_init(const tfc_node *n, void **state, tfc_status *s);
/* MatMul: both inputs matrices, inner dims equal; C = op(A) op(B) is m x n over k. */
int tfc_matmul_plan_of(tfc_kernel_ctx *c, int64_t *m, int64_t *n, int64_t *k);

/* BatchMatMul (v2 = 0: equal batch dims) and BatchMatMulV2 (broadcast batch dims). */
typedef struct tfc_bmm_plan {
  int adj_x, adj_y;
  int64_t m, n, k;
  tfc_cwise_bcast batch; /* the batch dims of x and y broadcast to the output's */
  int rank;              /* the output: batch dims, then m, n */
  int64_t dims[TFC_MAX_DIMS];
} tfc_bmm_plan;
int tfc_bmm_plan_of(tfc_kernel_ctx *c, int v2, tfc_bmm_plan *p);

/* Einsum, run as TF runs it: a batched matrix product between transposed copies of the
 * operands. With the equation parsed (ops/einsum_spec.h), each output label is a batch label
 * (in both operands), a left label (only in operand 0) or a right label (only in operand 1);
 * every label missing from the output is contracted. Operand 0 is gathered into a [batch, m,
 * k] buffer and operand 1 into [batch, k, n] through per-label strides, where a repeated label
 * sums its axes' strides (the diagonal), an absent label has stride 0 and so does a broadcast
 * size-1 ellipsis dim; one GEMM per batch gives [batch, m, n], which is scattered into the
 * output's label order. A label in one operand only and not in the output is contracted
 * against stride 0 in the other, i.e. summed; one operand runs against a virtual second
 * operand of k ones. */
typedef struct tfc_einsum_copy {
  /* every point i of sizes[0..nd) (row-major): dst[sum i_d dst[d]] = src[sum i_d src[d]],
   * strides in elements; nd 0 copies one element */
  int nd;
  int64_t sizes[TFC_EINSUM_MAX_LABELS], dst[TFC_EINSUM_MAX_LABELS], src[TFC_EINSUM_MAX_LABELS];
} tfc_einsum_copy;
typedef struct tfc_einsum_plan {
  int rank; /* the output's */
  int64_t dims[TFC_MAX_DIMS];
  int64_t batch, m, n, k;
  tfc_einsum_copy a;   /* input 0 -> a [batch, m, k] */
  int ones;            /* one operand: b is k ones ([1, k, 1]) and `b` is unused */
  tfc_einsum_copy b;   /* input 1 -> b [batch, k, n] */
  tfc_einsum_copy out; /* the product [batch, m, n] -> the output */
} tfc_einsum_plan;
/* Parses the equation against the inputs (TF's errors) and fills *p, each copy coalesced
 * (size-1 dims dropped, neighbours contiguous on both sides merged). */
int tfc_einsum_plan_of(tfc_kernel_ctx *c, tfc_einsum_plan *p);

#endif
