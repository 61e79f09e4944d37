/*
 * kernels_space_batch — SpaceToBatchND, BatchToSpaceND and the legacy 4-D SpaceToBatch /
 * BatchToSpace (a block_size attr for both spatial dims) on the CPU, every dtype.
 *
 * Both directions are one copy between the "space" and the "batch" tensor, planned with the
 * checks the GPU kernels share (device/space_batch_plan.h): SpaceToBatch writes zeros where a
 * position falls in the padding; BatchToSpace skips what the crops drop. The trailing `rest`
 * dims move as one memcpy.
 */
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/space_batch_plan.h"
#include "ops/opdef.h"

/* Copies between space (sp) and batch (bt) per the plan; to_batch: space -> batch (zeros in
 * the padding), else batch -> space (cropped positions skipped). */
static void sb_copy(const tfc_space_batch_plan *p, size_t es, char *sp, char *bt, int to_batch) {
  int64_t n_pos = 1;
  for (int i = 0; i < p->m; i++) n_pos *= p->ys[i];
  for (int64_t ob = 0; ob < p->batch * p->prod; ob++) {
    int64_t n = ob % p->batch, off = ob / p->batch, o[TFC_SB_MAX_BLOCK];
    for (int i = p->m - 1; i >= 0; i--) {
      o[i] = off % p->block[i];
      off /= p->block[i];
    }
    for (int64_t pos = 0; pos < n_pos; pos++) {
      int64_t rem = pos, s_index = 0, stride = 1, inside = 1;
      for (int i = p->m - 1; i >= 0; i--) {
        int64_t y = rem % p->ys[i], s = y * p->block[i] + o[i] - p->start[i];
        rem /= p->ys[i];
        if (s < 0 || s >= p->space[i]) inside = 0;
        s_index += s * stride;
        stride *= p->space[i];
      }
      char *b = bt + (size_t)((ob * n_pos + pos) * p->rest) * es;
      if (!inside) {
        if (to_batch) memset(b, 0, (size_t)p->rest * es);
        continue;
      }
      char *s = sp + (size_t)((n * stride + s_index) * p->rest) * es;
      if (to_batch) memcpy(b, s, (size_t)p->rest * es);
      else memcpy(s, b, (size_t)p->rest * es);
    }
  }
}

static int space_batch(tfc_kernel_ctx *c, int to_batch, int legacy) {
  const tfc_tensor *x = c->inputs[0];
  tfc_space_batch_plan p;
  int64_t dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_space_batch_plan_of(c, to_batch, legacy, &p, dims));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, x->ndims);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(x->dtype);
  if (out->n_elems) {
    if (to_batch) sb_copy(&p, es, x->data, out->data, 1);
    else sb_copy(&p, es, out->data, x->data, 0);
  }
  return TFC_OK;
}

static int s2b_nd(tfc_kernel_ctx *c) { return space_batch(c, 1, 0); }
static int s2b_legacy(tfc_kernel_ctx *c) { return space_batch(c, 1, 1); }
static int b2s_nd(tfc_kernel_ctx *c) { return space_batch(c, 0, 0); }
static int b2s_legacy(tfc_kernel_ctx *c) { return space_batch(c, 0, 1); }

#define SB_TYPES (TFC_TYPES_REAL | TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_SpaceToBatchND, .type_attr = "T", .types = SB_TYPES, .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = s2b_nd},
    {.op = TFC_OP_BatchToSpaceND, .type_attr = "T", .types = SB_TYPES, .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = b2s_nd},
    {.op = TFC_OP_SpaceToBatch, .type_attr = "T", .types = SB_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = s2b_legacy},
    {.op = TFC_OP_BatchToSpace, .type_attr = "T", .types = SB_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = b2s_legacy},
};

int tfc_cpu_kernels_space_batch(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
