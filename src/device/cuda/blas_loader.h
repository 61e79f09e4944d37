/*
 * blas_loader — cuBLAS and cuSOLVER loaded on first use, and one handle of each per (GPU,
 * stream).
 *
 * libtfc must load, and run on the CPU, on machines without these libraries (or without any
 * CUDA library but the statically linked runtime). So neither is linked: the first GPU kernel
 * that needs one dlopens libcublas.so.<major> or libcusolver.so.<major> (the major versions of
 * the headers this build saw) and resolves the functions the GPU kernels use into its table.
 * When that fails, every kernel needing that library fails with FAILED_PRECONDITION naming it
 * and the loader's reason; the rest of the GPU device keeps working. The load is tried once per
 * process; the library stays loaded for good (handles point into it).
 *
 * Handles are bound to one stream for good and kept for the life of the process in a small
 * table per library under one mutex, as cudnn_loader's. Each handle has its own lock, held by
 * the kernel that acquired it from its first library call to its last enqueue (cuBLAS and
 * cuSOLVER handles carry per-handle workspaces and settings; TF guards its handles the same
 * way), so two kernels of one device on the inter-op pool take turns.
 *
 * Users: kernels_matmul_gpu.c (GEMMs), kernels_linalg_gpu.c (batched LU, Cholesky).
 */
#ifndef TFC_DEVICE_CUDA_BLAS_LOADER_H
#define TFC_DEVICE_CUDA_BLAS_LOADER_H

#include <cublas_api.h>
#include <cusolverDn.h>

#include "base/status.h"
#include "device/kernel.h"

/* The cuBLAS functions tfc uses. */
typedef struct tfc_cublas_api {
  __typeof__(cublasCreate_v2) *create;
  __typeof__(cublasDestroy_v2) *destroy;
  __typeof__(cublasSetStream_v2) *set_stream;
  __typeof__(cublasGetStatusString) *status_string;
  __typeof__(cublasGemmEx) *gemm;
  __typeof__(cublasGemmStridedBatchedEx) *gemm_strided;
  __typeof__(cublasSgetrfBatched) *sgetrf_batched;
  __typeof__(cublasDgetrfBatched) *dgetrf_batched;
  __typeof__(cublasSgetriBatched) *sgetri_batched;
  __typeof__(cublasDgetriBatched) *dgetri_batched;
  __typeof__(cublasSgetrsBatched) *sgetrs_batched;
  __typeof__(cublasDgetrsBatched) *dgetrs_batched;
} tfc_cublas_api;

/* The cuSOLVER (dense) functions tfc uses. */
typedef struct tfc_cusolver_api {
  __typeof__(cusolverDnCreate) *create;
  __typeof__(cusolverDnDestroy) *destroy;
  __typeof__(cusolverDnSetStream) *set_stream;
  __typeof__(cusolverDnSpotrfBatched) *spotrf_batched;
  __typeof__(cusolverDnDpotrfBatched) *dpotrf_batched;
} tfc_cusolver_api;

/* The API, loaded on the first call. Returns NULL with FAILED_PRECONDITION in c's status
 * ("<op> on GPU: cannot load cuBLAS (libcublas.so.13): <dlerror>", or the missing symbol) when
 * the library is absent or too old; every later call answers the same. The table is
 * process-wide and constant once loaded (borrowed for the life of the process). Thread-safe. */
const tfc_cublas_api *tfc_cublas_api_get(tfc_kernel_ctx *c);
const tfc_cusolver_api *tfc_cusolver_api_get(tfc_kernel_ctx *c);

/* The handle bound to `stream` (a cudaStream_t of GPU `ordinal`, the calling thread's current
 * device), created on first use, returned LOCKED: the caller has it to itself until the
 * matching release, which it must call exactly once, on the same thread, after its last call
 * with it. Returns 0 and *out, or the error set in c (nothing held): the load error above, or
 * INTERNAL when creating the handle fails or too many streams were seen. The handle is owned by
 * the table (never freed). Thread-safe. */
int tfc_cublas_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cublasHandle_t *out);
int tfc_cusolver_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cusolverDnHandle_t *out);
/* Unlocks a handle from the acquire above (NULL: a no-op). */
void tfc_cublas_release(cublasHandle_t h);
void tfc_cusolver_release(cusolverDnHandle_t h);

/* Turn a library status into c's status: success returns 0; anything else is INTERNAL
 * "<op> on GPU: <what> failed: <the library's text or code>". Only after a successful
 * acquire (the library is loaded). Returns c->status->code. */
int tfc_cublas_check(tfc_kernel_ctx *c, cublasStatus_t st, const char *what);
int tfc_cusolver_check(tfc_kernel_ctx *c, cusolverStatus_t st, const char *what);

#endif
