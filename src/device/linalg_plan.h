/*
 * linalg_plan — what the CPU and GPU kernels of the dense solvers share: MatrixDeterminant,
 * MatrixInverse, MatrixSolve and Cholesky (ops_math_tail.def). TF's checks and texts, the
 * batch of square matrices each works on and the output's shape, so both devices refuse the
 * same inputs with the same codes and messages and differ only in how they factor (the CPU in
 * double, row by row; the GPU through cuBLAS and cuSOLVER, in the input's type).
 *
 * Every op works on the innermost n x n matrices of a row-major tensor, one per entry of the
 * outer ("batch") dims. MatrixSolve's right-hand sides are the innermost n x m matrices of its
 * second input, with the same batch dims. `adjoint` (MatrixInverse, MatrixSolve; the real
 * dtypes: the transpose) is read here too.
 *
 * Errors are INVALID_ARGUMENT with TF's texts: "Input tensor <i> must have rank >= 2", "Input
 * matrix must be square.", "Input matrix and right-hand side must have the same number of rows
 * and batch dimensions: <shape> vs. <shape>"; a factorization that fails gives
 * tfc_linalg_fail's text. Thread-safe (no state).
 */
#ifndef TFC_DEVICE_LINALG_PLAN_H
#define TFC_DEVICE_LINALG_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

typedef enum tfc_linalg_kind {
  TFC_LINALG_DETERMINANT = 0, /* one scalar per matrix (the batch dims' shape) */
  TFC_LINALG_INVERSE = 1,     /* the input's shape */
  TFC_LINALG_SOLVE = 2,       /* the right-hand side's shape */
  TFC_LINALG_CHOLESKY = 3,    /* the input's shape: the lower factor, zeros above */
  TFC_LINALG_KIND_COUNT = 4
} tfc_linalg_kind;

typedef struct tfc_linalg_plan {
  int64_t n;     /* rows (and columns) of each matrix */
  int64_t batch; /* matrices: entries of the batch dims (also when n is 0) */
  int64_t m;     /* columns of each right-hand side: MatrixSolve's, n for MatrixInverse, else 0 */
  int adjoint;   /* MatrixInverse, MatrixSolve: the attr; else 0 */
} tfc_linalg_plan;

/* Checks c's inputs for `kind` as the op's TF kernel does, fills *p and allocates output 0 (the
 * input's dtype, the shape named above). Returns the output (owned by the context), or NULL
 * with the kernel error set. */
tfc_tensor *tfc_linalg_plan_of(tfc_kernel_ctx *c, tfc_linalg_kind kind, tfc_linalg_plan *p);

/* Sets and returns the INVALID_ARGUMENT of a factorization that failed on some matrix of the
 * batch: "Input is not invertible." (MatrixInverse), "Input matrix is not invertible."
 * (MatrixSolve), "Cholesky decomposition was not successful. The input might not be valid."
 * (Cholesky). MatrixDeterminant never fails (a singular matrix's determinant is 0). */
int tfc_linalg_fail(tfc_kernel_ctx *c, tfc_linalg_kind kind);

#endif
