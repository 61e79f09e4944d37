/*
 * blas_loader — dlopen of cuBLAS and cuSOLVER and their per-(GPU, stream) handle tables (see
 * blas_loader.h).
 *
 * Both libraries go through one loader and one table implementation (a `lib` record each: its
 * soname, symbols, load outcome and handles), under one mutex held only to load, to find or to
 * add a handle. A load's outcome (the function table or the reason it failed) is kept, so a
 * machine without the library answers every kernel that needs it with the same
 * FAILED_PRECONDITION instead of retrying dlopen per step.
 */
#include "device/cuda/blas_loader.h"

#include <pthread.h>
#include <stdio.h>

#include "device/cuda/lib_loader.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Streams live as long as their device, and devices are few. */
#define MAX_HANDLES 64
#define MAX_SYMS 16

typedef struct lib {
  const char *name, *soname;
  tfc_cuda_sym syms[MAX_SYMS]; /* up to the first NULL name */
  /* Makes a handle bound to stream: 0, or nonzero with a reason in why. */
  int (*create)(void *stream, void **out, char *why, size_t len);
  int state; /* 0: not tried, 1: loaded, -1: failed (err says why) */
  char err[320];
  int n_handles;
  struct {
    int ordinal;
    void *stream;
    void *handle;
    pthread_mutex_t use; /* held by the kernel using the handle (see blas_loader.h) */
  } handles[MAX_HANDLES]; /* an entry is never changed once added */
} lib;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* guards both libs' state and tables */
static tfc_cublas_api blas;                              /* constant once loaded */
static tfc_cusolver_api solver;                          /* constant once loaded */

static int blas_create(void *stream, void **out, char *why, size_t len) {
  cublasHandle_t h = NULL;
  cublasStatus_t st = blas.create(&h);
  if (st == CUBLAS_STATUS_SUCCESS) st = blas.set_stream(h, (cudaStream_t)stream);
  if (st == CUBLAS_STATUS_SUCCESS) {
    *out = h;
    return 0;
  }
  if (h) blas.destroy(h);
  snprintf(why, len, "%s", blas.status_string(st));
  return 1;
}

static int solver_create(void *stream, void **out, char *why, size_t len) {
  cusolverDnHandle_t h = NULL;
  cusolverStatus_t st = solver.create(&h);
  if (st == CUSOLVER_STATUS_SUCCESS) st = solver.set_stream(h, (cudaStream_t)stream);
  if (st == CUSOLVER_STATUS_SUCCESS) {
    *out = h;
    return 0;
  }
  if (h) solver.destroy(h);
  snprintf(why, len, "cuSOLVER status %d", (int)st);
  return 1;
}

static lib cublas_lib = {
    .name = "cuBLAS",
    .soname = "libcublas.so." STR(CUBLAS_VER_MAJOR),
    .syms = {{"cublasCreate_v2", (void **)&blas.create},
             {"cublasDestroy_v2", (void **)&blas.destroy},
             {"cublasSetStream_v2", (void **)&blas.set_stream},
             {"cublasGetStatusString", (void **)&blas.status_string},
             {"cublasGemmEx", (void **)&blas.gemm},
             {"cublasGemmStridedBatchedEx", (void **)&blas.gemm_strided},
             {"cublasSgetrfBatched", (void **)&blas.sgetrf_batched},
             {"cublasDgetrfBatched", (void **)&blas.dgetrf_batched},
             {"cublasSgetriBatched", (void **)&blas.sgetri_batched},
             {"cublasDgetriBatched", (void **)&blas.dgetri_batched},
             {"cublasSgetrsBatched", (void **)&blas.sgetrs_batched},
             {"cublasDgetrsBatched", (void **)&blas.dgetrs_batched}},
    .create = blas_create,
};

static lib cusolver_lib = {
    .name = "cuSOLVER",
    .soname = "libcusolver.so." STR(CUSOLVER_VER_MAJOR),
    .syms = {{"cusolverDnCreate", (void **)&solver.create},
             {"cusolverDnDestroy", (void **)&solver.destroy},
             {"cusolverDnSetStream", (void **)&solver.set_stream},
             {"cusolverDnSpotrfBatched", (void **)&solver.spotrf_batched},
             {"cusolverDnDpotrfBatched", (void **)&solver.dpotrf_batched}},
    .create = solver_create,
};

/* 1 when l's library and symbols load, else -1 with l->err set. */
static int load(lib *l) {
  return tfc_cuda_lib_load(l->name, l->soname, l->syms, MAX_SYMS, l->err, sizeof l->err) == 0 ? 1 : -1;
}

/* Loads l under mu (held by the caller); the error names the op. */
static int ensure_loaded(tfc_kernel_ctx *c, lib *l) {
  if (l->state == 0) l->state = load(l);
  if (l->state > 0) return TFC_OK;
  return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "%s on GPU: %s", c->node->op->name, l->err);
}

static int api_get(tfc_kernel_ctx *c, lib *l) {
  pthread_mutex_lock(&mu);
  int rc = ensure_loaded(c, l);
  pthread_mutex_unlock(&mu);
  return rc;
}

static int acquire(tfc_kernel_ctx *c, lib *l, int ordinal, void *stream, void **out) {
  *out = NULL;
  pthread_mutex_lock(&mu);
  if (ensure_loaded(c, l)) {
    pthread_mutex_unlock(&mu);
    return c->status->code;
  }
  int found = -1;
  for (int i = 0; i < l->n_handles && found < 0; i++)
    if (l->handles[i].ordinal == ordinal && l->handles[i].stream == stream) found = i;
  if (found < 0) {
    char why[160] = "more than " STR(MAX_HANDLES) " streams";
    void *h = NULL;
    int bad = l->n_handles == MAX_HANDLES;
    if (!bad && pthread_mutex_init(&l->handles[l->n_handles].use, NULL) != 0) {
      snprintf(why, sizeof why, "out of memory");
      bad = 1;
    } else if (!bad && l->create(stream, &h, why, sizeof why)) {
      pthread_mutex_destroy(&l->handles[l->n_handles].use);
      bad = 1;
    }
    if (bad) {
      pthread_mutex_unlock(&mu);
      return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU %d: creating a %s handle failed: %s", c->node->op->name,
                              ordinal, l->name, why);
    }
    l->handles[l->n_handles].ordinal = ordinal;
    l->handles[l->n_handles].stream = stream;
    l->handles[l->n_handles].handle = h;
    found = l->n_handles++;
  }
  pthread_mutex_unlock(&mu);
  /* Entries never change once added, so the handle's own lock is taken outside the table's. */
  pthread_mutex_lock(&l->handles[found].use);
  *out = l->handles[found].handle;
  return TFC_OK;
}

static void release(lib *l, void *h) {
  if (!h) return;
  pthread_mutex_lock(&mu);
  int n = l->n_handles;
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < n; i++)
    if (l->handles[i].handle == h) {
      pthread_mutex_unlock(&l->handles[i].use);
      return;
    }
}

const tfc_cublas_api *tfc_cublas_api_get(tfc_kernel_ctx *c) { return api_get(c, &cublas_lib) ? NULL : &blas; }
const tfc_cusolver_api *tfc_cusolver_api_get(tfc_kernel_ctx *c) {
  return api_get(c, &cusolver_lib) ? NULL : &solver;
}

int tfc_cublas_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cublasHandle_t *out) {
  void *h;
  int rc = acquire(c, &cublas_lib, ordinal, stream, &h);
  *out = h;
  return rc;
}

int tfc_cusolver_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cusolverDnHandle_t *out) {
  void *h;
  int rc = acquire(c, &cusolver_lib, ordinal, stream, &h);
  *out = h;
  return rc;
}

void tfc_cublas_release(cublasHandle_t h) { release(&cublas_lib, h); }
void tfc_cusolver_release(cusolverDnHandle_t h) { release(&cusolver_lib, h); }

int tfc_cublas_check(tfc_kernel_ctx *c, cublasStatus_t st, const char *what) {
  if (st == CUBLAS_STATUS_SUCCESS) return c->status->code;
  return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: %s failed: %s", c->node->op->name, what,
                          blas.status_string(st));
}

int tfc_cusolver_check(tfc_kernel_ctx *c, cusolverStatus_t st, const char *what) {
  if (st == CUSOLVER_STATUS_SUCCESS) return c->status->code;
  return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: %s failed with cuSOLVER status %d", c->node->op->name, what,
                          (int)st);
}
