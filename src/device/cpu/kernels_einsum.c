/*
 * kernels_einsum — Einsum on the CPU (float, double), as TF runs it: a batched matrix
 * product between transposed copies of the operands, on the plan the GPU kernel shares
 * (device/matmul_plan.h's tfc_einsum_plan_of).
 * The CPU runs the plan's copies element by element and one GEMM per batch (tfc_cpu_gemm).
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/matmul_plan.h"
#include "ops/opdef.h"

/* Runs a plan's copy between buffers of elements of es bytes. */
static void strided_copy(char *dst, const char *src, const tfc_einsum_copy *cp, size_t es) {
  int nd = cp->nd;
  int64_t idx[TFC_EINSUM_MAX_LABELS] = {0}, total = 1;
  for (int d = 0; d < nd; d++) total *= cp->sizes[d];
  int64_t doff = 0, soff = 0;
  for (int64_t i = 0; i < total; i++) {
    memcpy(dst + (size_t)doff * es, src + (size_t)soff * es, es);
    for (int d = nd - 1; d >= 0; d--) {
      doff += cp->dst[d];
      soff += cp->src[d];
      if (++idx[d] < cp->sizes[d]) break;
      doff -= cp->dst[d] * cp->sizes[d];
      soff -= cp->src[d] * cp->sizes[d];
      idx[d] = 0;
    }
  }
}

static int einsum_compute(tfc_kernel_ctx *c) {
  tfc_einsum_plan p;
  TFC_TRY(tfc_einsum_plan_of(c, &p));
  int dtype = c->inputs[0]->dtype;
  size_t es = tfc_dtype_size(dtype);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, p.dims, p.rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  int64_t B = p.batch, M = p.m, N = p.n, K = p.k;
  int64_t n_a = B * M * K, n_b = B * K * N;
  char *a = malloc(es * (size_t)(n_a > 0 ? n_a : 1)), *b = malloc(es * (size_t)(n_b > 0 ? n_b : 1));
  char *prod = malloc(es * (size_t)(B * M * N));
  if (!a || !b || !prod) {
    free(a), free(b), free(prod);
    return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "Einsum: out of memory for %lld x %lld x %lld x %lld",
                            (long long)B, (long long)M, (long long)K, (long long)N);
  }
  strided_copy(a, c->inputs[0]->data, &p.a, es);
  if (!p.ones) {
    strided_copy(b, c->inputs[1]->data, &p.b, es);
  } else {
    for (int64_t i = 0; i < K; i++) {
      if (dtype == TFC_DT_DOUBLE) ((double *)b)[i] = 1.0;
      else ((float *)b)[i] = 1.0f;
    }
  }
  if (K == 0) memset(prod, 0, es * (size_t)(B * M * N));
  else
    for (int64_t i = 0; i < B; i++)
      tfc_cpu_gemm(c, dtype, 0, 0, M, N, K, a + es * (size_t)(i * M * K), K, b + es * (size_t)(i * K * N), N,
                   prod + es * (size_t)(i * M * N), N);
  strided_copy(out->data, prod, &p.out, es);
  free(a), free(b), free(prod);
  return TFC_OK;
}
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Einsum, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .compute = einsum_compute},
};

int tfc_cpu_kernels_einsum(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
