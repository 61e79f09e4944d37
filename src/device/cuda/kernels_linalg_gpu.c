/*
 * kernels_linalg_gpu — the dense solvers on the GPU, float and double (the real dtypes of TF
 * 1.15's GPU registrations; its complex rows have no CPU kernel here to check against):
 * MatrixDeterminant, MatrixInverse and MatrixSolve through cuBLAS's batched LU, Cholesky
 * through cuSOLVER's batched Cholesky.
 *
 * The checks, texts and output shapes are the CPU kernel's plan (device/linalg_plan.h), so both
 * devices refuse the same inputs alike. Every op is one batched library call per step of its
 * algorithm, whatever the batch (the cuda_linalg.cu launchers around them are one launch each
 * too; the largest batches go in slices of 2^16 matrices, see SLICE): TF runs one cuSOLVER call
 * per matrix for large matrices, which a batch of many small ones cannot afford, and the
 * batched calls are exact LU / Cholesky all the same.
 *
 * Storage. The libraries are column-major; a row-major matrix read column-major is its
 * transpose. So:
 *   - MatrixDeterminant: getrfBatched on a copy of the input (det A^T = det A), then the
 *     determinant launcher (pivot signs times U's diagonal, in double as on the CPU; a matrix
 *     whose info reports a zero pivot gets 0, as the CPU's).
 *   - MatrixInverse: getrfBatched on a copy, getriBatched into the output. inv(A^T)^T = inv(A),
 *     so the plain copy gives A's inverse in row-major; with adjoint the copy is transposed.
 *   - MatrixSolve: getrfBatched on a plain copy (A^T column-major), the right-hand sides
 *     transposed into column-major, getrsBatched with op T (A X = B) or, with adjoint, op N
 *     (A^T X = B), and the solution transposed back into the output.
 *   - Cholesky: the input copied into the output, potrfBatched with the UPPER fill: the
 *     column-major upper factor U (A = U^T U) is the row-major lower factor L, in place; the
 *     launcher then zeroes the row-major upper triangle (the library leaves the input there).
 *     As on the CPU, only the lower triangle of the input is read.
 * A singular matrix (getrf's info) or one not positive definite (potrf's info) must fail with
 * the CPU's INVALID_ARGUMENT and text, which only the device knows: MatrixInverse, MatrixSolve
 * and Cholesky copy the info array back and synchronize the compute stream, as TF's GPU kernels
 * do before they report; the outputs of a failed step are never seen. MatrixDeterminant never
 * waits.
 *
 * Sizes: the libraries take int sizes; n or m beyond INT_MAX is UNIMPLEMENTED. Empty
 * batches and 0 x 0 matrices make no library call (a 0 x 0 determinant is 1). Work areas
 * (the factored copy, the pointer arrays, pivots and infos, the transposed right-hand sides) are
 * temporaries of the device's allocator, all on the compute stream; the libraries are loaded
 * on first use and their handles shared per stream (blas_loader.h).
 */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdlib.h>

#include "device/cuda/blas_loader.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_linalg.h"
#include "device/gpu/gpu_device.h"
#include "device/linalg_plan.h"

/* ---- work areas ---- */

/* One batched factorization's device temporaries: the matrices it factors (NULL when it factors
 * in its output), and one block holding two pointer arrays, the pivots and two info arrays. */
typedef struct solver_work {
  tfc_tensor *mats, *meta;
  void **ptr_a, **ptr_b; /* batch each */
  int32_t *info, *info_b; /* batch each: the factorization's, and a second call's */
  int32_t *piv;           /* batch * n */
} solver_work;

static void work_fini(solver_work *w) {
  if (w->mats) tfc_tensor_unref(w->mats);
  if (w->meta) tfc_tensor_unref(w->meta);
}

/* Allocates w for p's batch (with `mat_bytes` of matrices when not 0) and points ptr_a at them
 * (or at `a` when given). */
static int work_init(tfc_kernel_ctx *c, const tfc_linalg_plan *p, int64_t mat_bytes, void *a, void *stream,
                     solver_work *w) {
  *w = (solver_work){0};
  int64_t ptr_bytes = (int64_t)sizeof(void *) * p->batch, int_bytes = (int64_t)sizeof(int32_t) * p->batch;
  if (mat_bytes > 0 && !(w->mats = tfc_cuda_ctx_temp(c, mat_bytes))) return c->status->code;
  if (!(w->meta = tfc_cuda_ctx_temp(c, 2 * ptr_bytes + int_bytes * (2 + p->n)))) {
    work_fini(w);
    return c->status->code;
  }
  char *m = w->meta->data;
  w->ptr_a = (void **)m;
  w->ptr_b = (void **)(m + ptr_bytes);
  w->info = (int32_t *)(m + 2 * ptr_bytes);
  w->info_b = w->info + p->batch;
  w->piv = w->info_b + p->batch;
  int64_t es = (int64_t)tfc_dtype_size(c->inputs[0]->dtype);
  int err = tfc_cuda_batch_pointers(w->ptr_a, a ? a : w->mats->data, es * p->n * p->n, p->batch, stream);
  if (err) work_fini(w);
  return err ? tfc_cuda_ctx_check(c, err, c->inputs[0]->dtype) : TFC_OK;
}

/* The libraries' int sizes (the batch goes in slices). */
static int fits_int(tfc_kernel_ctx *c, const tfc_linalg_plan *p) {
  if (p->n > INT_MAX || p->m > INT_MAX)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU: dimensions beyond %d are not supported",
                            c->node->op->name, INT_MAX);
  return TFC_OK;
}

/* dst[b][j][i] = src[b][i][j] over the batch's row-major rows x cols matrices. */
static int transpose_copy(tfc_kernel_ctx *c, const void *src, void *dst, int64_t batch, int64_t rows, int64_t cols,
                          void *stream) {
  int dtype = c->inputs[0]->dtype;
  tfc_cuda_copy_plan pl = {.rank = 3,
                           .dims = {batch, rows, cols},
                           .src_strides = {rows * cols, cols, 1},
                           .dst_strides = {rows * cols, 1, rows}};
  return tfc_cuda_ctx_check(c, tfc_cuda_strided_copy((int)tfc_dtype_size(dtype), src, dst, &pl, stream), dtype);
}

/* Copies the batch's factorization infos back, waits for the stream, and fails with the op's
 * text when one reports a zero pivot or a minor not positive definite (info > 0). */
static int check_info(tfc_kernel_ctx *c, tfc_linalg_kind kind, const int32_t *dev_info, int64_t batch,
                      void *stream) {
  int32_t *host = malloc(sizeof(int32_t) * (size_t)batch);
  if (!host) return TFC_OOM(c->status);
  cudaError_t e = cudaMemcpyAsync(host, dev_info, sizeof(int32_t) * (size_t)batch, cudaMemcpyDeviceToHost,
                                  (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess) {
    free(host);
    (void)cudaGetLastError();
    return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: reading the factorization's status failed: %s",
                            c->node->op->name, cudaGetErrorString(e));
  }
  int32_t bad = 0;
  for (int64_t b = 0; b < batch && !bad; b++) bad = host[b];
  free(host);
  if (bad > 0) return tfc_linalg_fail(c, kind);
  if (bad < 0)
    return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: the factorization rejected its argument %d",
                            c->node->op->name, (int)-bad);
  return TFC_OK;
}

/* Matrices per batched library call: cuBLAS's batched triangular solves (which getrsBatched
 * runs) have been seen to fail past about 2^19 matrices in one call, so every batched call
 * here takes slices of at most 2^16: one call up to that, a handful for the largest batches. */
#define SLICE 65536

/* The matrices of the slice at `off`. */
static int slice_of(const tfc_linalg_plan *p, int64_t off) {
  return (int)(p->batch - off < SLICE ? p->batch - off : SLICE);
}

/* getrfBatched over w->ptr_a (n x n, lda n) into w->piv and w->info. */
static int lu_factor(tfc_kernel_ctx *c, const tfc_cublas_api *api, cublasHandle_t h, const tfc_linalg_plan *p,
                     const solver_work *w) {
  int n = (int)p->n, rc = TFC_OK;
  for (int64_t off = 0; rc == TFC_OK && off < p->batch; off += SLICE) {
    void **a = w->ptr_a + off;
    int32_t *piv = w->piv + off * n, *info = w->info + off;
    cublasStatus_t st = c->inputs[0]->dtype == TFC_DT_FLOAT
                            ? api->sgetrf_batched(h, n, (float *const *)a, n, piv, info, slice_of(p, off))
                            : api->dgetrf_batched(h, n, (double *const *)a, n, piv, info, slice_of(p, off));
    rc = tfc_cublas_check(c, st, "cublasGetrfBatched");
  }
  return rc;
}

/* The stream, the cuBLAS API and this stream's handle, held until tfc_cublas_release. */
static int blas_begin(tfc_kernel_ctx *c, void *stream, const tfc_cublas_api **api, cublasHandle_t *h) {
  if (!(*api = tfc_cublas_api_get(c))) return c->status->code;
  return tfc_cublas_acquire(c, tfc_gpu_device_platform_id(c->device), stream, h);
}

/* ---- MatrixDeterminant ---- */

static int determinant_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_DETERMINANT, &p);
  if (!out) return c->status->code;
  if (p.batch == 0) return TFC_OK;
  TFC_TRY(fits_int(c, &p));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (p.n == 0) return tfc_cuda_ctx_check(c, tfc_cuda_lu_determinant(ct, NULL, NULL, NULL, 0, p.batch, out->data,
                                                                     stream), x->dtype);
  solver_work w;
  TFC_TRY(work_init(c, &p, (int64_t)x->n_bytes, NULL, stream, &w));
  int rc = tfc_cuda_ctx_check(c, tfc_cuda_memcpy(w.mats->data, x->data, (int64_t)x->n_bytes, stream), x->dtype);
  const tfc_cublas_api *api;
  cublasHandle_t h = NULL;
  if (rc == TFC_OK) rc = blas_begin(c, stream, &api, &h);
  if (rc == TFC_OK) rc = lu_factor(c, api, h, &p, &w);
  tfc_cublas_release(h);
  if (rc == TFC_OK)
    rc = tfc_cuda_ctx_check(c, tfc_cuda_lu_determinant(ct, w.mats->data, w.piv, w.info, p.n, p.batch, out->data,
                                                       stream), x->dtype);
  work_fini(&w);
  return rc;
}

/* ---- MatrixInverse ---- */

static int inverse_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_INVERSE, &p);
  if (!out) return c->status->code;
  if (p.batch == 0 || p.n == 0) return TFC_OK;
  TFC_TRY(fits_int(c, &p));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  solver_work w;
  TFC_TRY(work_init(c, &p, (int64_t)x->n_bytes, NULL, stream, &w));
  /* The copy to factor: A read column-major is A^T, whose inverse read back row-major is
   * inv(A); adjoint wants inv(A^T), so it factors the transpose. */
  int rc = p.adjoint ? transpose_copy(c, x->data, w.mats->data, p.batch, p.n, p.n, stream)
                     : tfc_cuda_ctx_check(c, tfc_cuda_memcpy(w.mats->data, x->data, (int64_t)x->n_bytes, stream),
                                          x->dtype);
  int64_t es = (int64_t)tfc_dtype_size(x->dtype);
  if (rc == TFC_OK)
    rc = tfc_cuda_ctx_check(c, tfc_cuda_batch_pointers(w.ptr_b, out->data, es * p.n * p.n, p.batch, stream),
                            x->dtype);
  const tfc_cublas_api *api;
  cublasHandle_t h = NULL;
  if (rc == TFC_OK) rc = blas_begin(c, stream, &api, &h);
  if (rc == TFC_OK) rc = lu_factor(c, api, h, &p, &w);
  for (int64_t off = 0; rc == TFC_OK && off < p.batch; off += SLICE) {
    int n = (int)p.n;
    void **a = w.ptr_a + off, **inv = w.ptr_b + off;
    const int32_t *piv = w.piv + off * n;
    cublasStatus_t st = x->dtype == TFC_DT_FLOAT
                            ? api->sgetri_batched(h, n, (const float *const *)a, n, piv, (float *const *)inv, n,
                                                  w.info_b + off, slice_of(&p, off))
                            : api->dgetri_batched(h, n, (const double *const *)a, n, piv, (double *const *)inv, n,
                                                  w.info_b + off, slice_of(&p, off));
    rc = tfc_cublas_check(c, st, "cublasGetriBatched");
  }
  tfc_cublas_release(h);
  if (rc == TFC_OK) rc = check_info(c, TFC_LINALG_INVERSE, w.info, p.batch, stream);
  work_fini(&w);
  return rc;
}

/* ---- MatrixSolve ---- */

static int solve_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *rhs = c->inputs[1];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_SOLVE, &p);
  if (!out) return c->status->code;
  if (p.batch == 0 || p.n == 0) return TFC_OK;
  TFC_TRY(fits_int(c, &p));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  solver_work w;
  TFC_TRY(work_init(c, &p, (int64_t)x->n_bytes, NULL, stream, &w));
  int rc = tfc_cuda_ctx_check(c, tfc_cuda_memcpy(w.mats->data, x->data, (int64_t)x->n_bytes, stream), x->dtype);
  /* The right-hand sides in column-major (n x m each), when there are any: with none (m == 0)
   * only the factorization runs, which still reports a singular matrix, as on the CPU. */
  int64_t es = (int64_t)tfc_dtype_size(x->dtype);
  tfc_tensor *b = NULL;
  if (rc == TFC_OK && p.m > 0) {
    b = tfc_cuda_ctx_temp(c, (int64_t)rhs->n_bytes);
    rc = b ? transpose_copy(c, rhs->data, b->data, p.batch, p.n, p.m, stream) : c->status->code;
    if (rc == TFC_OK)
      rc = tfc_cuda_ctx_check(c, tfc_cuda_batch_pointers(w.ptr_b, b->data, es * p.n * p.m, p.batch, stream),
                              x->dtype);
  }
  const tfc_cublas_api *api;
  cublasHandle_t h = NULL;
  if (rc == TFC_OK) rc = blas_begin(c, stream, &api, &h);
  if (rc == TFC_OK) rc = lu_factor(c, api, h, &p, &w);
  /* The factors are A^T's (column-major A^T is A's row-major storage): op T solves A X = B, op N
   * (adjoint) A^T X = B. getrsBatched reports bad arguments through a host int. */
  cublasOperation_t op = p.adjoint ? CUBLAS_OP_N : CUBLAS_OP_T;
  for (int64_t off = 0; rc == TFC_OK && p.m > 0 && off < p.batch; off += SLICE) {
    int n = (int)p.n, m = (int)p.m, arg_info = 0;
    void **a = w.ptr_a + off, **sol = w.ptr_b + off;
    const int32_t *piv = w.piv + off * n;
    cublasStatus_t st = x->dtype == TFC_DT_FLOAT
                            ? api->sgetrs_batched(h, op, n, m, (const float *const *)a, n, piv, (float *const *)sol,
                                                  n, &arg_info, slice_of(&p, off))
                            : api->dgetrs_batched(h, op, n, m, (const double *const *)a, n, piv,
                                                  (double *const *)sol, n, &arg_info, slice_of(&p, off));
    rc = tfc_cublas_check(c, st, "cublasGetrsBatched");
    if (rc == TFC_OK && arg_info != 0)
      rc = tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: cublasGetrsBatched rejected its argument %d",
                            c->node->op->name, -arg_info);
  }
  tfc_cublas_release(h);
  if (rc == TFC_OK && p.m > 0) rc = transpose_copy(c, b->data, out->data, p.batch, p.m, p.n, stream);
  if (rc == TFC_OK) rc = check_info(c, TFC_LINALG_SOLVE, w.info, p.batch, stream);
  if (b) tfc_tensor_unref(b);
  work_fini(&w);
  return rc;
}

/* ---- Cholesky ---- */

static int cholesky_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_linalg_plan p;
  tfc_tensor *out = tfc_linalg_plan_of(c, TFC_LINALG_CHOLESKY, &p);
  if (!out) return c->status->code;
  if (p.batch == 0 || p.n == 0) return TFC_OK;
  TFC_TRY(fits_int(c, &p));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  solver_work w;
  TFC_TRY(work_init(c, &p, 0, out->data, stream, &w));
  int rc = tfc_cuda_ctx_check(c, tfc_cuda_memcpy(out->data, x->data, (int64_t)x->n_bytes, stream), x->dtype);
  const tfc_cusolver_api *api = NULL;
  cusolverDnHandle_t h = NULL;
  if (rc == TFC_OK && !(api = tfc_cusolver_api_get(c))) rc = c->status->code;
  if (rc == TFC_OK) rc = tfc_cusolver_acquire(c, tfc_gpu_device_platform_id(c->device), stream, &h);
  /* UPPER in column-major terms is the row-major lower triangle (see the top comment). */
  for (int64_t off = 0; rc == TFC_OK && off < p.batch; off += SLICE) {
    int n = (int)p.n;
    void **a = w.ptr_a + off;
    cusolverStatus_t st =
        x->dtype == TFC_DT_FLOAT
            ? api->spotrf_batched(h, CUBLAS_FILL_MODE_UPPER, n, (float **)a, n, w.info + off, slice_of(&p, off))
            : api->dpotrf_batched(h, CUBLAS_FILL_MODE_UPPER, n, (double **)a, n, w.info + off, slice_of(&p, off));
    rc = tfc_cusolver_check(c, st, "cusolverDnPotrfBatched");
  }
  tfc_cusolver_release(h);
  if (rc == TFC_OK)
    rc = tfc_cuda_ctx_check(c, tfc_cuda_zero_upper((int)tfc_dtype_size(x->dtype), out->data, p.n, p.batch, stream),
                            x->dtype);
  if (rc == TFC_OK) rc = check_info(c, TFC_LINALG_CHOLESKY, w.info, p.batch, stream);
  work_fini(&w);
  return rc;
}

/* ---- registration ---- */

#define F2 (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_MatrixDeterminant, .type_attr = "T", .types = F2, .flags = TFC_KF_EXPENSIVE,
     .compute = determinant_compute},
    {.op = TFC_OP_MatrixInverse, .type_attr = "T", .types = F2, .flags = TFC_KF_EXPENSIVE, .compute = inverse_compute},
    {.op = TFC_OP_MatrixSolve, .type_attr = "T", .types = F2, .flags = TFC_KF_EXPENSIVE, .compute = solve_compute},
    {.op = TFC_OP_Cholesky, .type_attr = "T", .types = F2, .flags = TFC_KF_EXPENSIVE, .compute = cholesky_compute},
};

int tfc_cuda_kernels_linalg(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
