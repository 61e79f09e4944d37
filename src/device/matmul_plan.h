/*
 * matmul_plan — what the CPU and GPU kernels of MatMul and BatchMatMul(V2) share: the attrs,
 * TF's shape checks and texts (matmul_op.cc, batch_matmul_op_impl.h), and the product's
 * dimensions, so both devices refuse the same inputs with the same messages and differ only in
 * the GEMM they run.
 *
 * Errors are set on the kernel context (the node and device are added by the executor).
 * Thread-safe: no state but the node's parsed attrs, read-only after init.
 */
#ifndef TFC_DEVICE_MATMUL_PLAN_H
#define TFC_DEVICE_MATMUL_PLAN_H

#include <stdint.h>

#include "device/cpu/cwise_int.h"
#include "device/kernel.h"

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

#endif
