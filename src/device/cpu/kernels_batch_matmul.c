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
  int adj_x = 0, adj_y = 0;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "adj_x", &adj_x, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "adj_y", &adj_y, c->status));
  char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
  tfc_tensor_shape_str(x, sx, sizeof sx);
  tfc_tensor_shape_str(y, sy, sizeof sy);
  /* Step 1: validate ranks and batch dims; the output batch shape. */
  tfc_cwise_bcast bb;
  if (!v2) {
    if (x->ndims != y->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[0] and In[1] has different ndims: %s vs. %s", sx, sy);
    if (x->ndims < 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[0] and In[1] ndims must be >= 2: %d", x->ndims);
    for (int i = 0; i < x->ndims - 2; i++)
      if (x->dims[i] != y->dims[i])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "In[0].dim(%d) and In[1].dim(%d) must be the same: %s vs %s", i, i, sx, sy);
  } else {
    if (x->ndims < 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[0] ndims must be >= 2: %d", x->ndims);
    if (y->ndims < 2)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[1] ndims must be >= 2: %d", y->ndims);
  }
  const int64_t *bd[2] = {x->dims, y->dims};
  int bn[2] = {x->ndims - 2, y->ndims - 2};
  if (tfc_cwise_bcast_dims(&bb, 2, bd, bn))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "In[0] and In[1] must have compatible batch dimensions: %s vs. %s", sx, sy);
  /* Step 2: matrix dims. */
  int64_t m = x->dims[x->ndims - 2], kx = x->dims[x->ndims - 1];
  int64_t ky = y->dims[y->ndims - 2], n = y->dims[y->ndims - 1];
  if (adj_x) { int64_t t = m; m = kx; kx = t; }
  if (adj_y) { int64_t t = ky; ky = n; n = t; }
  if (kx != ky)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[0] mismatch In[1] shape: %lld vs. %lld: %s %s %d %d",
                            (long long)kx, (long long)ky, sx, sy, adj_x, adj_y);
  if (bb.out_ndims + 2 > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Rank of the output exceeds %d", TFC_MAX_DIMS);
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, bb.out_dims, sizeof(int64_t) * (size_t)bb.out_ndims);
  dims[bb.out_ndims] = m;
  dims[bb.out_ndims + 1] = n;
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, x->dtype, dims, bb.out_ndims + 2);
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

#define M_BMM (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_BatchMatMul, .type_attr = "T", .types = M_BMM, .flags = TFC_KF_EXPENSIVE,
     .compute = bmm_v1_compute},
    {.op = TFC_OP_BatchMatMulV2, .type_attr = "T", .types = M_BMM, .flags = TFC_KF_EXPENSIVE,
     .compute = bmm_v2_compute},
};

int tfc_cpu_kernels_batch_matmul(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
