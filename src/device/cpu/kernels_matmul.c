/*
 * kernels_matmul — MatMul on the CPU, and the sharded GEMM every CPU matrix product uses.
 *
 * float goes to oneDNN's sgemm (single-threaded in the calling thread), double to OpenBLAS
 * (cblas_dgemm) with OpenBLAS's own threads turned off. For the shapes of recurrent cells
 * (32x256 @ 256x512 and its gradients) oneDNN's sgemm takes about two thirds of OpenBLAS's
 * time, and no more on large products; tiny products (under 32K multiply-adds) stay on
 * OpenBLAS, whose call overhead is lower. tfc_cpu_gemm cuts the output into as many row (or column) blocks as the device has
 * threads and runs one single-threaded GEMM per block on the intra-op pool. So a device with
 * half the cores uses half the cores, two devices side by side do not oversubscribe the
 * machine, and a single device still uses every core. Integer types use a plain i-k-j loop
 * that the compiler vectorizes (TF has no fast path for them either). _FusedMatMul (TF's
 * remapper's MatMul + BiasAdd + activation; tfc's optimizer makes it too) is the float product
 * followed by the convolutions' plain-C epilogue (kernels_conv_int.h) over its rows.
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/cpu/kernels_conv_int.h"
#include "device/matmul_plan.h"

#define INT_MATMUL(T)                                                                              \
  static void matmul_##T(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k, int ta,  \
                         int tb) {                                                                 \
    memset(c, 0, sizeof(T) * (size_t)(m * n));                                                     \
    for (int64_t i = 0; i < m; i++)                                                                \
      for (int64_t p = 0; p < k; p++) {                                                            \
        T av = ta ? a[p * m + i] : a[i * k + p];                                                   \
        T *crow = c + i * n;                                                                       \
        if (!tb) {                                                                                 \
          const T *brow = b + p * n;                                                               \
          for (int64_t j = 0; j < n; j++) crow[j] += av * brow[j];                                 \
        } else {                                                                                   \
          for (int64_t j = 0; j < n; j++) crow[j] += av * b[j * k + p];                            \
        }                                                                                          \
      }                                                                                            \
  }
INT_MATMUL(int32_t)
INT_MATMUL(int64_t)

void tfc_cpu_blas_init(void) { openblas_set_num_threads(1); }

#define SGEMM_DNNL_MIN ((int64_t)32 << 10)
#define GEMM_MIN_FLOP_PER_BLOCK ((int64_t)2 << 20)

typedef struct gemm_job {
  int dtype, ta, tb, by_rows;
  int64_t m, n, k, lda, ldb, ldc;
  const char *a, *b;
  char *out;
} gemm_job;

/* Rows [r0, r1) of C need rows r0.. of op(A): A itself, or columns of A when transposed. */
static void gemm_block(int64_t begin, int64_t end, void *arg) {
  const gemm_job *j = arg;
  size_t es = tfc_dtype_size(j->dtype);
  const char *a = j->a, *b = j->b;
  char *out = j->out;
  int64_t m = j->m, n = j->n;
  if (j->by_rows) {
    a += (size_t)(j->ta ? begin : begin * j->lda) * es;
    out += (size_t)(begin * j->ldc) * es;
    m = end - begin;
  } else {
    b += (size_t)(j->tb ? begin * j->ldb : begin) * es;
    out += (size_t)begin * es;
    n = end - begin;
  }
  enum CBLAS_TRANSPOSE tA = j->ta == 2 ? CblasConjTrans : j->ta ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE tB = j->tb == 2 ? CblasConjTrans : j->tb ? CblasTrans : CblasNoTrans;
  if (j->dtype == TFC_DT_COMPLEX64) {
    const float one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_cgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)j->k, one, (const float *)a, (int)j->lda,
                (const float *)b, (int)j->ldb, zero, (float *)out, (int)j->ldc);
    return;
  }
  if (j->dtype == TFC_DT_COMPLEX128) {
    const double one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_zgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)j->k, one, (const double *)a, (int)j->lda,
                (const double *)b, (int)j->ldb, zero, (double *)out, (int)j->ldc);
    return;
  }
  if (j->dtype == TFC_DT_FLOAT && m * n * j->k >= SGEMM_DNNL_MIN) {
    tfc_dnn_single_thread();
    /* Cannot fail for valid shapes; a refusal falls through to OpenBLAS. */
    if (dnnl_sgemm(j->ta ? 'T' : 'N', j->tb ? 'T' : 'N', m, n, j->k, 1.0f, (const float *)a, j->lda,
                   (const float *)b, j->ldb, 0.0f, (float *)out, j->ldc) == dnnl_success)
      return;
  }
  if (j->dtype == TFC_DT_FLOAT)
    cblas_sgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)j->k, 1.0f, (const float *)a, (int)j->lda,
                (const float *)b, (int)j->ldb, 0.0f, (float *)out, (int)j->ldc);
  else
    cblas_dgemm(CblasRowMajor, tA, tB, (int)m, (int)n, (int)j->k, 1.0, (const double *)a, (int)j->lda,
                (const double *)b, (int)j->ldb, 0.0, (double *)out, (int)j->ldc);
}

void tfc_cpu_gemm(tfc_kernel_ctx *c, int dtype, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *a,
                  int64_t lda, const void *b, int64_t ldb, void *out, int64_t ldc) {
  gemm_job j = {dtype, ta, tb, m >= n, m, n, k, lda, ldb, ldc, a, b, out};
  int64_t items = j.by_rows ? m : n;
  /* A block gets at least GEMM_MIN_FLOP_PER_BLOCK (about 20 us on one core): below that the
   * hop to a pool thread (the cache lines of the job, its cold cache for its share of B) costs
   * more than it saves. Pool threads spin a while before they sleep (base/threadpool.c), so
   * an LSTM step's 32x256 @ 256x512 product (8 MFLOP) pays to split in two: bench_lstm's
   * inference, a chain of 50 such products, went from 4.9 to 3.7 ms on two cores. A block of fewer than 16 rows
   * (columns) loses more to packing than it gains. */
  /* A product with few rows (a classifier's 1 x 1280 @ 1280 x 1000 at batch 1) is bound by
   * reading B, not by its flops. */
  int64_t flops = 2 * m * n * k, traffic = TFC_FLOPS_PER_BYTE_MOVED * k * n * (int64_t)tfc_dtype_size(dtype);
  int64_t by_work = (flops > traffic ? flops : traffic) / GEMM_MIN_FLOP_PER_BLOCK;
  if (!c || !c->pool || c->max_parallel == 1 || by_work < 2 || items < 32) {
    gemm_block(0, items, &j);
    return;
  }
  int limit = c->max_parallel > 0 ? c->max_parallel : tfc_threadpool_size(c->pool) + 1;
  if (by_work < limit) limit = (int)by_work;
  tfc_threadpool_parallel_for(c->pool, items, 16, limit, gemm_block, &j);
}

static int matmul_compute(tfc_kernel_ctx *c) {
  const tfc_matmul_state *st = c->state;
  const tfc_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t m, n, k;
  TFC_TRY(tfc_matmul_plan_of(c, &m, &n, &k));
  int64_t dims[2] = {m, n};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, a->dtype, dims, 2);
  if (!out) return c->status->code;
  if (m == 0 || n == 0) return TFC_OK;
  if (k == 0) {
    memset(out->data, 0, out->n_bytes);
    return TFC_OK;
  }
  int64_t lda = st->ta ? m : k, ldb = st->tb ? k : n;
  switch (a->dtype) {
    case TFC_DT_FLOAT:
    case TFC_DT_DOUBLE:
    case TFC_DT_COMPLEX64:
    case TFC_DT_COMPLEX128:
      tfc_cpu_gemm(c, a->dtype, st->ta, st->tb, m, n, k, a->data, lda, b->data, ldb, out->data, n);
      break;
    case TFC_DT_INT32: matmul_int32_t(a->data, b->data, out->data, m, n, k, st->ta, st->tb); break;
    case TFC_DT_INT64: matmul_int64_t(a->data, b->data, out->data, m, n, k, st->ta, st->tb); break;
    default: return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "MatMul for %s", tfc_dtype_name(a->dtype));
  }
  return TFC_OK;
}

typedef struct fused_matmul_state {
  tfc_matmul_state mm; /* first: matmul_compute reads it */
  tfc_conv_fusion fuse;
} fused_matmul_state;

static int fused_matmul_init(const tfc_node *n, void **state, tfc_status *s) {
  tfc_conv_fusion f;
  TFC_TRY(tfc_conv_fusion_parse(n, &f, s));
  void *mm = NULL;
  TFC_TRY(tfc_matmul_init(n, &mm, s));
  fused_matmul_state *st = calloc(1, sizeof *st);
  if (!st) {
    free(mm);
    return TFC_OOM(s);
  }
  st->mm = *(tfc_matmul_state *)mm;
  st->fuse = f;
  free(mm);
  *state = st;
  return TFC_OK;
}

static int fused_matmul_compute(tfc_kernel_ctx *c) {
  const fused_matmul_state *st = c->state;
  int64_t m, n, k;
  TFC_TRY(tfc_matmul_plan_of(c, &m, &n, &k));
  TFC_TRY(tfc_conv_fusion_check_bias(c, n));
  TFC_TRY(matmul_compute(c));
  tfc_tensor *out = c->outputs[0];
  if (m > 0 && n > 0) tfc_conv_fusion_ref(c, &st->fuse, out->dtype, out->data, c->inputs[2]->data, NULL, m, n, 0, 0);
  return TFC_OK;
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_MatMul,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128),
     .flags = TFC_KF_EXPENSIVE,
     .init = tfc_matmul_init,
     .compute = matmul_compute,
     .free_state = free},
    {.op = TFC_OP__FusedMatMul,
     .type_attr = "T",
     .types = TFC_T(TFC_DT_FLOAT),
     .flags = TFC_KF_EXPENSIVE,
     .init = fused_matmul_init,
     .compute = fused_matmul_compute,
     .free_state = free},
};

int tfc_cpu_kernels_matmul(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
