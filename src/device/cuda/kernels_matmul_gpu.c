/*
 * kernels_matmul_gpu — MatMul, BatchMatMul, BatchMatMulV2 and Einsum on the GPU through cuBLAS.
 *
 * cuBLAS is column-major and tfc's tensors row-major. A row-major m x n matrix is the
 * column-major n x m matrix of its transpose, so C = op(A) op(B) is computed as
 * C^T = op(B)^T op(A)^T: the column-major GEMM with the operands swapped, m and n swapped,
 * and each operand's own transpose flag (its row-major storage already is the transpose
 * cuBLAS sees). All three types go through cublasGemmEx / cublasGemmStridedBatchedEx: float
 * computes in float (CUBLAS_COMPUTE_32F, not TF32: TF 1.15 knew no TF32), double in double,
 * half in float with half storage, as TF's GPU MatMul for half.
 *
 * Batches: when every output batch's x (and y) matrix sits at a constant stride from the
 * previous one (no broadcast, or an operand whose batch is broadcast whole: stride 0) one
 * strided-batched call does all; other broadcast patterns of BatchMatMulV2 run one GEMM per
 * output batch on the same stream.
 *
 * Einsum (float and double, TF 1.15's GPU types) runs the CPU kernel's plan
 * (device/matmul_plan.h): the operands gathered into [batch, m, k] and [batch, k, n] device
 * temporaries by the strided-copy launcher, one strided-batched GEMM, and the product
 * scattered into the output, so both devices agree up to the GEMM's summation order.
 *
 * cuBLAS is loaded on first use and its handles (one per GPU and stream, held by a kernel
 * from its first cuBLAS call to its last enqueue) come from blas_loader.h, so libtfc still
 * needs no CUDA library to load and a machine without a GPU never touches it.
 */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cwise_int.h"
#include "device/cuda/blas_loader.h"
#include "device/cuda/cuda_kernels.h"
#include "device/matmul_plan.h"
#include "device/gpu/gpu_device.h"

/* ---- one (batched) GEMM in row-major terms ---- */

typedef struct gemm_args {
  int dtype; /* TFC_DT_FLOAT, DOUBLE, HALF */
  int ta, tb;
  int64_t m, n, k;
  const char *a, *b;
  char *c;
  int64_t stride_a, stride_b, stride_c; /* elements between batches */
  int64_t batch;
} gemm_args;

static int gemm_run(tfc_kernel_ctx *c, cublasHandle_t h, const gemm_args *g) {
  const tfc_cublas_api *blas = tfc_cublas_api_get(c);
  if (!blas) return c->status->code;
  cudaDataType t;
  cublasComputeType_t ct;
  const void *one, *zero;
  static const float f1 = 1.0f, f0 = 0.0f;
  static const double d1 = 1.0, d0 = 0.0;
  switch (g->dtype) {
    case TFC_DT_FLOAT: t = CUDA_R_32F, ct = CUBLAS_COMPUTE_32F, one = &f1, zero = &f0; break;
    case TFC_DT_DOUBLE: t = CUDA_R_64F, ct = CUBLAS_COMPUTE_64F, one = &d1, zero = &d0; break;
    case TFC_DT_HALF: t = CUDA_R_16F, ct = CUBLAS_COMPUTE_32F, one = &f1, zero = &f0; break;
    default: return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, g->dtype);
  }
  /* C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m), all column-major; see the top comment. */
  cublasOperation_t opb = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldb = (int)(g->tb ? g->k : g->n), lda = (int)(g->ta ? g->m : g->k), ldc = (int)g->n;
  cublasStatus_t st;
  if (g->batch == 1)
    st = blas->gemm(h, opb, opa, (int)g->n, (int)g->m, (int)g->k, one, g->b, t, ldb, g->a, t, lda, zero, g->c, t, ldc,
                   ct, CUBLAS_GEMM_DEFAULT);
  else
    st = blas->gemm_strided(h, opb, opa, (int)g->n, (int)g->m, (int)g->k, one, g->b, t, ldb, g->stride_b, g->a, t,
                           lda, g->stride_a, zero, g->c, t, ldc, g->stride_c, (int)g->batch, ct, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    return tfc_kernel_error(c, TFC_INTERNAL, "%s: cuBLAS GEMM (m=%lld n=%lld k=%lld batch=%lld) failed: %s",
                            c->node->op->name, (long long)g->m, (long long)g->n, (long long)g->k,
                            (long long)g->batch, blas->status_string(st));
  return TFC_OK;
}

/* cuBLAS takes int sizes and leading dims. */
static int fits_int(tfc_kernel_ctx *c, int64_t m, int64_t n, int64_t k, int64_t batch) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || batch > INT_MAX)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU: dimensions beyond %d are not supported",
                            c->node->op->name, INT_MAX);
  return TFC_OK;
}

/* Stream, handle, and a zero fill when k == 0 (cuBLAS with k = 0 and beta = 0 would leave C
 * as is on some versions; TF defines the product of empty matrices as zeros). Returns 1 in
 * *done when nothing is left to compute; otherwise *h is held (tfc_cublas_acquire) until
 * tfc_cublas_release. */
static int gemm_prepare(tfc_kernel_ctx *c, tfc_tensor *out, int64_t k, void **stream, cublasHandle_t *h, int *done) {
  *done = 1;
  TFC_TRY(tfc_cuda_ctx_stream(c, stream));
  if (out->n_elems == 0) return TFC_OK;
  if (k == 0) return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, *stream), out->dtype);
  TFC_TRY(tfc_cublas_acquire(c, tfc_gpu_device_platform_id(c->device), *stream, h));
  *done = 0;
  return TFC_OK;
}

/* ---- MatMul ---- */

static int matmul_compute(tfc_kernel_ctx *c) {
  const tfc_matmul_state *st = c->state;
  const tfc_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t m, n, k;
  TFC_TRY(tfc_matmul_plan_of(c, &m, &n, &k));
  TFC_TRY(fits_int(c, m, n, k, 1));
  int64_t dims[2] = {m, n};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, a->dtype, dims, 2);
  if (!out) return c->status->code;
  void *stream;
  cublasHandle_t h;
  int done;
  TFC_TRY(gemm_prepare(c, out, k, &stream, &h, &done));
  if (done) return TFC_OK;
  gemm_args g = {a->dtype, st->ta, st->tb, m, n, k, a->data, b->data, out->data, 0, 0, 0, 1};
  int rc = gemm_run(c, h, &g);
  tfc_cublas_release(h);
  return rc;
}

/* ---- BatchMatMul / BatchMatMulV2 ---- */

static int bmm_compute(tfc_kernel_ctx *c, int v2) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  tfc_bmm_plan p;
  TFC_TRY(tfc_bmm_plan_of(c, v2, &p));
  const tfc_cwise_bcast bb = p.batch;
  int adj_x = p.adj_x, adj_y = p.adj_y;
  int64_t m = p.m, n = p.n, kx = p.k;
  TFC_TRY(fits_int(c, m, n, kx, bb.n_out));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, p.rank);
  if (!z) return c->status->code;
  void *stream;
  cublasHandle_t h;
  int done;
  TFC_TRY(gemm_prepare(c, z, kx, &stream, &h, &done));
  if (done) return TFC_OK;
  /* Step 3: each output batch's x and y matrix (in matrices); one strided call when both
   * advance by a constant stride. */
  int64_t nb = bb.n_out, inner = bb.dims[bb.rank - 1];
  int64_t *offs = malloc(sizeof(int64_t) * 2 * (size_t)nb);
  if (!offs) {
    tfc_cublas_release(h);
    return TFC_OOM(c->status);
  }
  for (int64_t bi = 0; bi < nb; bi++) {
    int64_t o[2];
    tfc_cwise_bcast_row(&bb, bi / inner, o);
    int64_t r = bi % inner;
    offs[bi] = o[0] + r * bb.strides[0][bb.rank - 1];
    offs[nb + bi] = o[1] + r * bb.strides[1][bb.rank - 1];
  }
  int64_t sx_b = nb > 1 ? offs[1] - offs[0] : 0, sy_b = nb > 1 ? offs[nb + 1] - offs[nb] : 0;
  int affine = 1;
  for (int64_t bi = 1; bi < nb && affine; bi++)
    affine = offs[bi] - offs[bi - 1] == sx_b && offs[nb + bi] - offs[nb + bi - 1] == sy_b;
  size_t es = tfc_dtype_size(x->dtype);
  int rc = TFC_OK;
  if (affine) {
    gemm_args g = {x->dtype, adj_x, adj_y, m, n, kx, (const char *)x->data + (size_t)(offs[0] * m * kx) * es,
                   (const char *)y->data + (size_t)(offs[nb] * kx * n) * es, z->data, sx_b * m * kx, sy_b * kx * n,
                   m * n, nb};
    rc = gemm_run(c, h, &g);
  } else {
    for (int64_t bi = 0; bi < nb && rc == TFC_OK; bi++) {
      gemm_args g = {x->dtype, adj_x, adj_y, m, n, kx, (const char *)x->data + (size_t)(offs[bi] * m * kx) * es,
                     (const char *)y->data + (size_t)(offs[nb + bi] * kx * n) * es,
                     (char *)z->data + (size_t)(bi * m * n) * es, 0, 0, 0, 1};
      rc = gemm_run(c, h, &g);
    }
  }
  free(offs);
  tfc_cublas_release(h);
  return rc;
}

static int bmm_v1_compute(tfc_kernel_ctx *c) { return bmm_compute(c, 0); }
static int bmm_v2_compute(tfc_kernel_ctx *c) { return bmm_compute(c, 1); }

/* ---- Einsum ---- */

/* A plan copy as the strided-copy launcher takes it; UNIMPLEMENTED past the launcher's dims
 * (more than TFC_CUDA_MAX_DIMS labels that no merge joins: equations of 9+ distinct labels). */
static int copy_plan_of(tfc_kernel_ctx *c, const tfc_einsum_copy *cp, tfc_cuda_copy_plan *out) {
  if (cp->nd > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Einsum on GPU: a copy over %d dims (the GPU takes %d)", cp->nd,
                            TFC_CUDA_MAX_DIMS);
  memset(out, 0, sizeof *out);
  out->rank = cp->nd > 0 ? cp->nd : 1;
  out->dims[0] = 1;
  for (int d = 0; d < cp->nd; d++)
    out->dims[d] = cp->sizes[d], out->src_strides[d] = cp->src[d], out->dst_strides[d] = cp->dst[d];
  return TFC_OK;
}

/* The plan's three buffers in device temporaries, its copies and one strided-batched GEMM, all
 * on the compute stream. */
static int einsum_compute(tfc_kernel_ctx *c) {
  tfc_einsum_plan p;
  TFC_TRY(tfc_einsum_plan_of(c, &p));
  tfc_cuda_copy_plan ca, cb, co;
  TFC_TRY(copy_plan_of(c, &p.a, &ca));
  if (!p.ones) TFC_TRY(copy_plan_of(c, &p.b, &cb));
  TFC_TRY(copy_plan_of(c, &p.out, &co));
  TFC_TRY(fits_int(c, p.m, p.n, p.k, p.batch));
  int dtype = c->inputs[0]->dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, p.dims, p.rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  int64_t es = (int64_t)tfc_dtype_size(dtype), mn = p.m * p.n, mk = p.m * p.k, kn = p.k * p.n;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *prod = tfc_cuda_ctx_temp(c, es * p.batch * mn), *a = NULL, *b = NULL;
  int rc = prod ? TFC_OK : c->status->code;
  if (rc == TFC_OK && p.k == 0) {
    rc = tfc_cuda_ctx_check(c, tfc_cuda_memset(prod->data, 0, es * p.batch * mn, stream), dtype);
  } else if (rc == TFC_OK) {
    a = tfc_cuda_ctx_temp(c, es * p.batch * mk);
    b = a ? tfc_cuda_ctx_temp(c, es * p.batch * kn) : NULL;
    if (!b) rc = c->status->code;
    if (rc == TFC_OK)
      rc = tfc_cuda_ctx_check(c, tfc_cuda_strided_copy((int)es, c->inputs[0]->data, a->data, &ca, stream), dtype);
    if (rc == TFC_OK && p.ones) {
      union { uint64_t bits; float f; double d; } one = {0};
      if (dtype == TFC_DT_DOUBLE) one.d = 1.0;
      else one.f = 1.0f;
      rc = tfc_cuda_ctx_check(c, tfc_cuda_fill((int)es, NULL, one.bits, b->data, p.k, stream), dtype);
    } else if (rc == TFC_OK) {
      rc = tfc_cuda_ctx_check(c, tfc_cuda_strided_copy((int)es, c->inputs[1]->data, b->data, &cb, stream), dtype);
    }
    cublasHandle_t h;
    if (rc == TFC_OK) rc = tfc_cublas_acquire(c, tfc_gpu_device_platform_id(c->device), stream, &h);
    if (rc == TFC_OK) {
      gemm_args g = {dtype, 0, 0, p.m, p.n, p.k, a->data, b->data, prod->data, mk, kn, mn, p.batch};
      rc = gemm_run(c, h, &g);
      tfc_cublas_release(h);
    }
  }
  if (rc == TFC_OK) rc = tfc_cuda_ctx_check(c, tfc_cuda_strided_copy((int)es, prod->data, out->data, &co, stream), dtype);
  if (a) tfc_tensor_unref(a);
  if (b) tfc_tensor_unref(b);
  if (prod) tfc_tensor_unref(prod);
  return rc;
}

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_MatMul, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .init = tfc_matmul_init,
     .compute = matmul_compute, .free_state = free},
    {.op = TFC_OP_BatchMatMul, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .compute = bmm_v1_compute},
    {.op = TFC_OP_BatchMatMulV2, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .compute = bmm_v2_compute},
    {.op = TFC_OP_Einsum, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE, .compute = einsum_compute},
};

int tfc_cuda_kernels_matmul(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
