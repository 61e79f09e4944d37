/*
 * linalg_plan — the dense solvers' checks, batch and output shape, shared by the CPU
 * (device/cpu/kernels_linalg.c) and GPU (device/cuda/kernels_linalg_gpu.c) kernels; see
 * linalg_plan.h.
 */
#include "device/linalg_plan.h"

/* The batch of n x n matrices of input i: checks rank >= 2 and squareness. */
static int square_batch(tfc_kernel_ctx *c, int i, int64_t *n, int64_t *batch) {
  const tfc_tensor *x = c->inputs[i];
  if (x->ndims < 2) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input tensor %d must have rank >= 2", i);
  *n = x->dims[x->ndims - 1];
  if (x->dims[x->ndims - 2] != *n) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input matrix must be square.");
  *batch = tfc_dims_num_elements(x->dims, x->ndims - 2);
  return TFC_OK;
}

/* MatrixSolve's right-hand side: the matrix's rank and batch dims, n rows. */
static int check_rhs(tfc_kernel_ctx *c, int64_t n) {
  const tfc_tensor *x = c->inputs[0], *rhs = c->inputs[1];
  int ok = rhs->ndims == x->ndims && rhs->dims[rhs->ndims - 2] == n;
  for (int i = 0; ok && i < x->ndims - 2; i++) ok = rhs->dims[i] == x->dims[i];
  if (ok) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                          "Input matrix and right-hand side must have the same number of rows and batch "
                          "dimensions: %s vs. %s",
                          tfc_tensor_shape_str(x, a, sizeof a), tfc_tensor_shape_str(rhs, b, sizeof b));
}

tfc_tensor *tfc_linalg_plan_of(tfc_kernel_ctx *c, tfc_linalg_kind kind, tfc_linalg_plan *p) {
  const tfc_tensor *x = c->inputs[0];
  *p = (tfc_linalg_plan){0};
  if (square_batch(c, 0, &p->n, &p->batch)) return NULL;
  if (kind == TFC_LINALG_INVERSE || kind == TFC_LINALG_SOLVE)
    if (tfc_kernel_attr_bool(c->node, "adjoint", &p->adjoint, c->status)) return NULL;
  switch (kind) {
    case TFC_LINALG_DETERMINANT: return tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims - 2);
    case TFC_LINALG_SOLVE: {
      if (check_rhs(c, p->n)) return NULL;
      const tfc_tensor *rhs = c->inputs[1];
      p->m = rhs->dims[rhs->ndims - 1];
      return tfc_kernel_alloc_output(c, 0, x->dtype, rhs->dims, rhs->ndims);
    }
    case TFC_LINALG_INVERSE: p->m = p->n; return tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
    default: return tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  }
}

int tfc_linalg_fail(tfc_kernel_ctx *c, tfc_linalg_kind kind) {
  switch (kind) {
    case TFC_LINALG_INVERSE: return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input is not invertible.");
    case TFC_LINALG_SOLVE: return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input matrix is not invertible.");
    default:
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Cholesky decomposition was not successful. The input might not be valid.");
  }
}
