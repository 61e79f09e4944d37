/*
 * kernels_batch_matmul — BatchMatMul and BatchMatMulV2 on the CPU.
 *
 * Both multiply the last two dims of x and y, optionally adjoint (for real types: transposed),
 * over batch dims: V1 requires x and y of one rank with equal batch dims, V2 broadcasts the
 * batch dims numpy-style. Each batch is one GEMM: float and double go to OpenBLAS
 * (tfc_cpu_gemm), integers to a plain i-k-j loop that vectorizes. Large matrices are
 * sharded by tfc_cpu_gemm one batch at a time; many small ones are split over the intra-op
 * pool instead (each worker then runs single GEMMs, never both levels at once).
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cwise_int.h"
#include "device/matmul_plan.h"

typedef struct bmm_job {
  tfc_kernel_ctx *c; /* NULL inside a pool shard: one thread per GEMM */
  int dtype;
  int adj_x, adj_y;
  int64_t m, n, k;
  const char *x, *y;
  char *z;
  size_t size;
  const int64_t *x_off, *y_off; /* per output batch: element offset of its x and y matrices */
} bmm_job;

#define INT_GEMM(T)                                                                               \
  static void gemm_##T(const T *a, const T *b, T *c, int64_t m, int64_t n, int64_t k, int ta,    \
                       int tb) {                                                                  \
    memset(c, 0, sizeof(T) * (size_t)(m * n));                                                    \
    for (int64_t i = 0; i < m; i++)                                                               \
      for (int64_t p = 0; p < k; p++) {                                                           \
        const w_##T av = (w_##T)(ta ? a[p * m + i] : a[i * k + p]);                               \
        T *restrict crow = c + i * n;                                                             \
        if (!tb) {                                                                                \
          const T *restrict brow = b + p * n;                                                     \
          for (int64_t j = 0; j < n; j++) crow[j] = (T)((w_##T)crow[j] + av * (w_##T)brow[j]);    \
        } else {                                                                                  \
          for (int64_t j = 0; j < n; j++) crow[j] = (T)((w_##T)crow[j] + av * (w_##T)b[j * k + p]); \
        }                                                                                         \
      }                                                                                           \
  }
INT_GEMM(i32)
INT_GEMM(i64)

static void bmm_one(const bmm_job *j, int64_t batch) {
  const char *a = j->x + (size_t)j->x_off[batch] * j->size, *b = j->y + (size_t)j->y_off[batch] * j->size;
  char *c = j->z + (size_t)(batch * j->m * j->n) * j->size;
  int64_t m = j->m, n = j->n, k = j->k;
  if (k == 0) {
    memset(c, 0, (size_t)(m * n) * j->size);
    return;
  }
  int64_t lda = j->adj_x ? m : k, ldb = j->adj_y ? k : n;
  switch (j->dtype) {
    case TFC_DT_FLOAT:
    case TFC_DT_DOUBLE:
      tfc_cpu_gemm(j->c, j->dtype, j->adj_x, j->adj_y, m, n, k, a, lda, b, ldb, c, n);
      break;
    case TFC_DT_COMPLEX64:
    case TFC_DT_COMPLEX128: /* adjoint: conjugate transpose */
      tfc_cpu_gemm(j->c, j->dtype, j->adj_x ? 2 : 0, j->adj_y ? 2 : 0, m, n, k, a, lda, b, ldb, c, n);
      break;
    case TFC_DT_INT32: gemm_i32((const i32 *)a, (const i32 *)b, (i32 *)c, m, n, k, j->adj_x, j->adj_y); break;
    default: gemm_i64((const i64 *)a, (const i64 *)b, (i64 *)c, m, n, k, j->adj_x, j->adj_y); break;
  }
}

static void bmm_shard(int64_t begin, int64_t end, void *arg) {
  for (int64_t i = begin; i < end; i++) bmm_one(arg, i);
}

/* Matrices up to this many multiply-adds are "small": batches go over the pool. */
#define SMALL_GEMM (64 * 64 * 64)

static int bmm_compute(tfc_kernel_ctx *c, int v2) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  tfc_bmm_plan p;
  TFC_TRY(tfc_bmm_plan_of(c, v2, &p));
  const tfc_cwise_bcast bb = p.batch;
  int adj_x = p.adj_x, adj_y = p.adj_y;
  int64_t m = p.m, n = p.n, kx = p.k;
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, p.rank);
  if (!z) return c->status->code;
  int64_t nb = bb.n_out;
  if (nb == 0 || m == 0 || n == 0) return TFC_OK;
  /* Step 3: each output batch's x and y matrices (broadcast batches repeat). */
  int64_t *offs = malloc(sizeof(int64_t) * 2 * (size_t)nb);
  if (!offs) return TFC_OOM(c->status);
  int64_t inner = bb.dims[bb.rank - 1];
  for (int64_t bi = 0; bi < nb; bi++) {
    int64_t o[2];
    tfc_cwise_bcast_row(&bb, bi / inner, o);
    int64_t r = bi % inner;
    offs[bi] = (o[0] + r * bb.strides[0][bb.rank - 1]) * m * kx;
    offs[nb + bi] = (o[1] + r * bb.strides[1][bb.rank - 1]) * kx * n;
  }
  int64_t work = m * n * kx;
  int small = nb > 1 && work <= SMALL_GEMM;
  bmm_job j = {small ? NULL : c, x->dtype, adj_x, adj_y, m, n, kx, x->data, y->data, z->data, tfc_dtype_size(x->dtype),
               offs, offs + nb};
  if (small) tfc_kernel_parallel_for(c, nb, work > 0 ? work : 1, bmm_shard, &j);
  else bmm_shard(0, nb, &j);
  free(offs);
  return TFC_OK;
}

static int bmm_v1_compute(tfc_kernel_ctx *c) { return bmm_compute(c, 0); }
static int bmm_v2_compute(tfc_kernel_ctx *c) { return bmm_compute(c, 1); }

#define M_BMM                                                                                     \
  (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) |        \
   TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_BatchMatMul, .type_attr = "T", .types = M_BMM, .flags = TFC_KF_EXPENSIVE,
     .compute = bmm_v1_compute},
    {.op = TFC_OP_BatchMatMulV2, .type_attr = "T", .types = M_BMM, .flags = TFC_KF_EXPENSIVE,
     .compute = bmm_v2_compute},
};

int tfc_cpu_kernels_batch_matmul(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
