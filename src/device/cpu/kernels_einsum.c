/*
 * kernels_einsum — Einsum on the CPU (float, double), as TF runs it: a batched matrix
 * product between transposed copies of the operands.
 *
 * With the equation parsed (einsum_spec.h), each output label is a batch label (in both
 * operands), a left label (only in operand 0) or a right label (only in operand 1); every
 * label missing from the output is contracted. Operand 0 is gathered into [batch, left,
 * contracted] and operand 1 into [batch, contracted, right] through per-label strides, where
 * a repeated label sums its axes' strides (the diagonal), an absent label has stride 0 and so
 * does a broadcast size-1 ellipsis dim; then one GEMM per batch (tfc_cpu_gemm) gives [batch,
 * left, right], scattered into the output's label order. A label in one operand only and not
 * in the output is contracted against stride 0 in the other, i.e. summed. One operand runs
 * against a virtual second operand of ones with no labels.
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "ops/einsum_spec.h"
#include "ops/opdef.h"

/* Copies a strided view to a strided destination: nd dims of sizes n, strides in elements. */
static void strided_copy(char *dst, const char *src, int nd, const int64_t *n, const int64_t *ds, const int64_t *ss,
                         size_t es) {
  int64_t idx[TFC_EINSUM_MAX_LABELS] = {0}, total = 1;
  for (int d = 0; d < nd; d++) total *= n[d];
  int64_t doff = 0, soff = 0;
  for (int64_t i = 0; i < total; i++) {
    memcpy(dst + (size_t)doff * es, src + (size_t)soff * es, es);
    for (int d = nd - 1; d >= 0; d--) {
      doff += ds[d];
      soff += ss[d];
      if (++idx[d] < n[d]) break;
      doff -= ds[d] * n[d];
      soff -= ss[d] * n[d];
      idx[d] = 0;
    }
  }
}

/* Row-major strides of the labels in an order, for a packed buffer. */
static void packed_strides(const int *order, int n, const int64_t *size, int64_t *out) {
  int64_t st = 1;
  for (int i = n - 1; i >= 0; i--) {
    out[i] = st;
    st *= size[order[i]];
  }
}

static int einsum_compute(tfc_kernel_ctx *c) {
  const tfc_attr_value *eq = tfc_node_attr(c->node, "equation");
  if (!eq || eq->kind != TFC_ATTR_STRING) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Einsum needs an equation");
  int n = c->n_inputs;
  tfc_shape shapes[TFC_EINSUM_MAX_OPS];
  const tfc_shape *sp[TFC_EINSUM_MAX_OPS];
  for (int k = 0; k < n && k < TFC_EINSUM_MAX_OPS; k++) {
    shapes[k].rank = c->inputs[k]->ndims;
    memcpy(shapes[k].dims, c->inputs[k]->dims, sizeof(int64_t) * (size_t)c->inputs[k]->ndims);
    sp[k] = &shapes[k];
  }
  tfc_einsum_spec e;
  if (tfc_einsum_parse(eq->u.s.data, sp, n, 0, &e, c->status) != TFC_OK) return c->status->code;
  int dtype = c->inputs[0]->dtype;
  size_t es = tfc_dtype_size(dtype);
  /* Step 1: per-operand label strides (diagonals sum, broadcast dims 0). */
  int64_t stride[TFC_EINSUM_MAX_OPS][TFC_EINSUM_MAX_LABELS];
  memset(stride, 0, sizeof stride);
  for (int k = 0; k < n; k++) {
    int64_t st = 1;
    for (int a = e.rank[k] - 1; a >= 0; a--) {
      int l = e.label[k][a];
      int64_t d = c->inputs[k]->dims[a];
      if (!(d == 1 && e.size[l] != 1)) stride[k][l] += st;
      st *= d;
    }
  }
  /* Step 2: classes and the packed layouts. */
  int batch[TFC_EINSUM_MAX_LABELS], left[TFC_EINSUM_MAX_LABELS], right[TFC_EINSUM_MAX_LABELS],
      con[TFC_EINSUM_MAX_LABELS], in_out[TFC_EINSUM_MAX_LABELS] = {0};
  int nb = 0, nl = 0, nr = 0, nc = 0;
  int64_t B = 1, M = 1, N = 1, K = 1;
  for (int i = 0; i < e.n_out; i++) {
    int l = e.out[i];
    in_out[l] = 1;
    if ((e.used[l] & 3) == 3) batch[nb++] = l, B *= e.size[l];
    else if (e.used[l] & 1) left[nl++] = l, M *= e.size[l];
    else right[nr++] = l, N *= e.size[l];
  }
  for (int l = 0; l < TFC_EINSUM_MAX_LABELS; l++)
    if (e.used[l] && !in_out[l]) con[nc++] = l, K *= e.size[l];
  int64_t out_dims[TFC_MAX_DIMS];
  for (int i = 0; i < e.n_out; i++) out_dims[i] = e.size[e.out[i]];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, out_dims, e.n_out);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  /* Step 3: gather, multiply, scatter. */
  int64_t n_a = B * M * K, n_b = B * K * N;
  char *a = malloc(es * (size_t)(n_a > 0 ? n_a : 1)), *b = malloc(es * (size_t)(n_b > 0 ? n_b : 1));
  char *prod = malloc(es * (size_t)(B * M * N));
  if (!a || !b || !prod) {
    free(a), free(b), free(prod);
    return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "Einsum: out of memory for %lld x %lld x %lld x %lld",
                            (long long)B, (long long)M, (long long)K, (long long)N);
  }
  int order[TFC_EINSUM_MAX_LABELS], no;
  int64_t sizes[TFC_EINSUM_MAX_LABELS], ds[TFC_EINSUM_MAX_LABELS], ss[TFC_EINSUM_MAX_LABELS];
  /* operand 0 -> [batch, left, con] */
  no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nl; i++) order[no++] = left[i];
  for (int i = 0; i < nc; i++) order[no++] = con[i];
  packed_strides(order, no, e.size, ds);
  for (int i = 0; i < no; i++) sizes[i] = e.size[order[i]], ss[i] = stride[0][order[i]];
  strided_copy(a, c->inputs[0]->data, no, sizes, ds, ss, es);
  /* operand 1 (or ones) -> [batch, con, right] */
  no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nc; i++) order[no++] = con[i];
  for (int i = 0; i < nr; i++) order[no++] = right[i];
  if (n == 2) {
    packed_strides(order, no, e.size, ds);
    for (int i = 0; i < no; i++) sizes[i] = e.size[order[i]], ss[i] = stride[1][order[i]];
    strided_copy(b, c->inputs[1]->data, no, sizes, ds, ss, es);
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
  /* [batch, left, right] -> the output's order */
  int64_t ostride[TFC_EINSUM_MAX_LABELS] = {0};
  packed_strides(e.out, e.n_out, e.size, ds);
  for (int i = 0; i < e.n_out; i++) ostride[e.out[i]] = ds[i];
  no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nl; i++) order[no++] = left[i];
  for (int i = 0; i < nr; i++) order[no++] = right[i];
  packed_strides(order, no, e.size, ss);
  for (int i = 0; i < no; i++) sizes[i] = e.size[order[i]], ds[i] = ostride[order[i]];
  strided_copy(out->data, prod, no, sizes, ds, ss, es);
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
