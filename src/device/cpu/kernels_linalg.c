/*
 * kernels_linalg — CPU kernels of ops_math_tail.def's matrix rows.
 *   - The diagonal family, for every plain-data dtype (elements copied by size; the checks and
 *     the diagonal window are device/array_plan.h's, shared with the GPU): Diag /
 *     DiagPart (a rank-k tensor <-> its rank-2k diagonal tensor), MatrixDiag /
 *     MatrixDiagPart / MatrixSetDiag (the innermost matrices' main diagonal, TF 1.15's
 *     versions), MatrixBandPart (entries outside num_lower / num_upper diagonals zeroed; a
 *     negative bound keeps that whole triangle).
 *   - Dense solvers on float and double, per innermost matrix, computed in double (the checks,
 *     texts and shapes are device/linalg_plan.h's, shared with the GPU):
 *     MatrixDeterminant (LU with partial pivoting), MatrixInverse (Gauss-Jordan; "Input is
 *     not invertible."), MatrixSolve (LU; "Input matrix is not invertible."), Cholesky (lower
 *     factor; "Cholesky decomposition was not successful. The input might not be valid.").
 *     adjoint (real dtypes: transpose) is honoured by MatrixInverse and MatrixSolve.
 * Errors are INVALID_ARGUMENT with TF's texts; empty batches give empty outputs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/cpu_kernels.h"
#include "device/linalg_plan.h"
#include "ops/opdef.h"

static char *at(const tfc_tensor *t, int64_t i, size_t es) { return (char *)t->data + (size_t)i * es; }

/* ---- Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag ---- */

/* The shared plan (device/array_plan.h, with the GPU kernels): the output starts as zeros or
 * as input 0, then the diagonal window is copied element by element. */
static int diag_family_compute(tfc_kernel_ctx *c) {
  tfc_diag_plan p;
  TFC_TRY(tfc_diag_plan_of(c, &p));
  const tfc_tensor *x = c->inputs[0], *src = c->inputs[p.src];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, p.out_dims, p.out_rank);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(x->dtype);
  if (out->n_bytes && p.zero) memset(out->data, 0, out->n_bytes);
  if (out->n_bytes && p.copy_input) memcpy(out->data, x->data, out->n_bytes);
  for (int64_t b = 0; b < p.dims[0]; b++)
    for (int64_t i = 0; i < p.dims[1]; i++)
      memcpy(at(out, b * p.dst_strides[0] + i * p.dst_strides[1], es),
             at(src, b * p.src_strides[0] + i * p.src_strides[1], es), es);
  return TFC_OK;
}

/* ---- MatrixBandPart ---- */

/* The checks are array_plan.h's (tfc_band_part_plan_of), shared with the GPU. */
static int matrix_band_part_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int64_t batch, rows, cols, nl, nu;
  TFC_TRY(tfc_band_part_plan_of(c, &batch, &rows, &cols, &nl, &nu));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(x->dtype);
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++) {
        int64_t k = (b * rows + i) * cols + j;
        int keep = (nl < 0 || i - j <= nl) && (nu < 0 || j - i <= nu);
        if (keep) memcpy(at(out, k, es), at(x, k, es), es);
        else memset(at(out, k, es), 0, es);
      }
  return TFC_OK;
}

/* ---- dense solvers ---- */

/* The checks, batch and output are the shared plan's (device/linalg_plan.h, with the GPU
 * kernels); each matrix is factored here in double. */

static void load(const tfc_tensor *t, int64_t off, int64_t count, double *dst) {
  for (int64_t i = 0; i < count; i++)
    dst[i] = t->dtype == TFC_DT_FLOAT ? ((const float *)t->data)[off + i] : ((const double *)t->data)[off + i];
}

static void store(tfc_tensor *t, int64_t off, int64_t count, const double *src) {
  for (int64_t i = 0; i < count; i++) {
    if (t->dtype == TFC_DT_FLOAT) ((float *)t->data)[off + i] = (float)src[i];
    else ((double *)t->data)[off + i] = src[i];
  }
}

static void transpose(double *a, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = i + 1; j < n; j++) {
      double t = a[i * n + j];
      a[i * n + j] = a[j * n + i];
      a[j * n + i] = t;
    }
}

/* LU with partial pivoting in place (row-major n x n); piv[i] the row swapped into i; *sign
 * the permutation's sign. Returns 0 when singular (a zero pivot). */
static int lu(double *a, int64_t n, int64_t *piv, int *sign) {
  int ok = 1;
  *sign = 1;
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[p * n + k])) p = i;
    piv[k] = p;
    if (p != k) {
      for (int64_t j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
      *sign = -*sign;
    }
    if (a[k * n + k] == 0) {
      ok = 0;
      continue;
    }
    for (int64_t i = k + 1; i < n; i++) {
      double f = a[i * n + k] /= a[k * n + k];
      for (int64_t j = k + 1; j < n; j++) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return ok;
}

/* Solves LU x = P b for m right-hand sides (b: n x m row-major, overwritten). */
static void lu_solve(const double *a, const int64_t *piv, int64_t n, double *b, int64_t m) {
  for (int64_t k = 0; k < n; k++)
    if (piv[k] != k)
      for (int64_t j = 0; j < m; j++) {
        double t = b[k * m + j];
        b[k * m + j] = b[piv[k] * m + j];
        b[piv[k] * m + j] = t;
      }
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k < i; k++)
      for (int64_t j = 0; j < m; j++) b[i * m + j] -= a[i * n + k] * b[k * m + j];
  for (int64_t i = n - 1; i >= 0; i--)
    for (int64_t j = 0; j < m; j++) {
      double s = b[i * m + j];
      for (int64_t k = i + 1; k < n; k++) s -= a[i * n + k] * b[k * m + j];
      b[i * m + j] = s / a[i * n + i];
    }
}

static int determinant_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_DETERMINANT, &p);
  if (!out) return c->status->code;
  int64_t n = p.n;
  double *a = malloc(sizeof(double) * (size_t)(n * n + 1));
  int64_t *piv = malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!a || !piv) {
    free(a);
    free(piv);
    return TFC_OOM(c->status);
  }
  for (int64_t b = 0; b < p.batch; b++) {
    load(x, b * n * n, n * n, a);
    int sign;
    double det = 0;
    if (lu(a, n, piv, &sign)) {
      det = sign;
      for (int64_t i = 0; i < n; i++) det *= a[i * n + i];
    }
    store(out, b, 1, &det);
  }
  free(a);
  free(piv);
  return TFC_OK;
}

static int inverse_or_solve(tfc_kernel_ctx *c, int solve) {
  const tfc_tensor *x = c->inputs[0], *rhs = solve ? c->inputs[1] : NULL;
  tfc_linalg_kind kind = solve ? TFC_LINALG_SOLVE : TFC_LINALG_INVERSE;
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, kind, &p);
  if (!out) return c->status->code;
  int64_t n = p.n, m = p.m;
  double *a = malloc(sizeof(double) * (size_t)(n * n + 1)), *b = malloc(sizeof(double) * (size_t)(n * m + 1));
  int64_t *piv = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int rc = TFC_OK;
  if (!a || !b || !piv) rc = TFC_OOM(c->status);
  for (int64_t k = 0; rc == TFC_OK && k < p.batch; k++) {
    load(x, k * n * n, n * n, a);
    if (p.adjoint) transpose(a, n);
    if (solve) {
      load(rhs, k * n * m, n * m, b);
    } else {
      memset(b, 0, sizeof(double) * (size_t)(n * n));
      for (int64_t i = 0; i < n; i++) b[i * n + i] = 1;
    }
    int sign;
    if (!lu(a, n, piv, &sign)) {
      rc = tfc_linalg_fail(c, kind);
      break;
    }
    lu_solve(a, piv, n, b, m);
    store(out, k * n * m, n * m, b);
  }
  free(a);
  free(b);
  free(piv);
  return rc;
}

static int matrix_inverse_compute(tfc_kernel_ctx *c) { return inverse_or_solve(c, 0); }
static int matrix_solve_compute(tfc_kernel_ctx *c) { return inverse_or_solve(c, 1); }

static int cholesky_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_CHOLESKY, &p);
  if (!out) return c->status->code;
  int64_t n = p.n;
  double *a = malloc(sizeof(double) * (size_t)(n * n + 1));
  if (!a) return TFC_OOM(c->status);
  int rc = TFC_OK;
  for (int64_t k = 0; k < p.batch && rc == TFC_OK; k++) {
    load(x, k * n * n, n * n, a);
    for (int64_t j = 0; j < n && rc == TFC_OK; j++) {
      double d = a[j * n + j];
      for (int64_t q = 0; q < j; q++) d -= a[j * n + q] * a[j * n + q];
      if (!(d > 0)) {
        rc = tfc_linalg_fail(c, TFC_LINALG_CHOLESKY);
        break;
      }
      a[j * n + j] = sqrt(d);
      for (int64_t i = j + 1; i < n; i++) {
        double s = a[i * n + j];
        for (int64_t q = 0; q < j; q++) s -= a[i * n + q] * a[j * n + q];
        a[i * n + j] = s / a[j * n + j];
      }
      for (int64_t i = 0; i < j; i++) a[i * n + j] = 0;
    }
    if (rc == TFC_OK) store(out, k * n * n, n * n, a);
  }
  free(a);
  return rc;
}

#define F2 (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Diag, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES, .compute = diag_family_compute},
    {.op = TFC_OP_DiagPart, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES, .compute = diag_family_compute},
    {.op = TFC_OP_MatrixDiag, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES, .compute = diag_family_compute},
    {.op = TFC_OP_MatrixDiagPart, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES,
     .compute = diag_family_compute},
    {.op = TFC_OP_MatrixSetDiag, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES, .compute = diag_family_compute},
    {.op = TFC_OP_MatrixBandPart, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2), .compute = matrix_band_part_compute},
    {.op = TFC_OP_MatrixDeterminant, .type_attr = "T", .types = F2, .compute = determinant_compute},
    {.op = TFC_OP_MatrixInverse, .type_attr = "T", .types = F2, .compute = matrix_inverse_compute},
    {.op = TFC_OP_MatrixSolve, .type_attr = "T", .types = F2, .compute = matrix_solve_compute},
    {.op = TFC_OP_Cholesky, .type_attr = "T", .types = F2, .compute = cholesky_compute},
};

int tfc_cpu_kernels_linalg(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
