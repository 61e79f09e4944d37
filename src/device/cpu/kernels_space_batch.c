/*
 * kernels_space_batch — SpaceToBatchND, BatchToSpaceND and the legacy 4-D SpaceToBatch /
 * BatchToSpace (a block_size attr for both spatial dims) on the CPU, every dtype.
 *
 * Both directions are one copy between the "space" tensor [B, S1..SM, rest...] and the
 * "batch" tensor [B * prod(b), Y1..YM, rest...]: batch index ob = offset * B + n, where the
 * block offset (o1..oM, row-major over the blocks) is the major part, and batch position
 * (y1..yM) holds space position s_i = y_i * b_i + o_i - start_i (start = the padding before
 * for SpaceToBatch, the crop before for BatchToSpace). SpaceToBatch writes zeros where s falls
 * in the padding; BatchToSpace skips what the crops drop. The trailing `rest` dims move as one
 * memcpy. Texts and codes are TF's kernels' (INVALID_ARGUMENT).
 */
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "ops/opdef.h"

#define SB_MAX_BLOCK 8 /* spatial dims: tensors have at most TFC_MAX_DIMS dims */

typedef struct sb_plan {
  int m;                                            /* block dims */
  int64_t block[SB_MAX_BLOCK], start[SB_MAX_BLOCK]; /* b_i; padding or crop before */
  int64_t space[SB_MAX_BLOCK], ys[SB_MAX_BLOCK];    /* S_i (the space side), Y_i (batch side) */
  int64_t batch, prod;                              /* B (space side), prod(b) */
  int64_t chunk;                                    /* bytes of one position's rest dims */
} sb_plan;

/* Block shape and the [M, 2] pads/crops into p (legacy: block_size for two dims). */
static int read_blocks(tfc_kernel_ctx *c, const tfc_tensor *x, int legacy, const char *pads_name, sb_plan *p,
                       int64_t pads[][2]) {
  const tfc_tensor *bs = legacy ? NULL : c->inputs[1], *pd = c->inputs[legacy ? 1 : 2];
  char a[TFC_SHAPE_STR_MAX];
  if (legacy) {
    int64_t size;
    TFC_TRY(tfc_kernel_attr_int(c->node, "block_size", &size, c->status));
    if (x->ndims != 4)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input rank should be: 4instead of: %d", x->ndims);
    p->m = 2;
    p->block[0] = p->block[1] = size;
  } else {
    if (bs->ndims != 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "block_shape rank should be 1 instead of %d", bs->ndims);
    if (bs->n_elems > SB_MAX_BLOCK || x->ndims < 1 + bs->n_elems)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input rank should be >= %lld instead of %d",
                              (long long)(1 + bs->n_elems), x->ndims);
    p->m = (int)bs->n_elems;
    for (int i = 0; i < p->m; i++) p->block[i] = tfc_tensor_get_i64(bs, i);
  }
  if (pd->ndims != 2 || pd->dims[0] != p->m || pd->dims[1] != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s should have shape [%d, 2] instead of %s", pads_name, p->m,
                            tfc_tensor_shape_str(pd, a, sizeof a));
  for (int i = 0; i < p->m; i++) {
    pads[i][0] = tfc_tensor_get_i64(pd, 2 * i);
    pads[i][1] = tfc_tensor_get_i64(pd, 2 * i + 1);
  }
  return TFC_OK;
}

/* The rest dims' bytes of x (dims after 1 + m) and an output shape with them. */
static void finish_plan(const tfc_tensor *x, sb_plan *p, int64_t *out_dims) {
  p->chunk = (int64_t)tfc_dtype_size(x->dtype);
  for (int d = 1 + p->m; d < x->ndims; d++) {
    p->chunk *= x->dims[d];
    out_dims[d] = x->dims[d];
  }
}

/* Copies between space (sp) and batch (bt) per the plan; to_batch: space -> batch (zeros in
 * the padding), else batch -> space (cropped positions skipped). */
static void sb_copy(const sb_plan *p, char *sp, char *bt, int to_batch) {
  int64_t n_pos = 1;
  for (int i = 0; i < p->m; i++) n_pos *= p->ys[i];
  for (int64_t ob = 0; ob < p->batch * p->prod; ob++) {
    int64_t n = ob % p->batch, off = ob / p->batch, o[SB_MAX_BLOCK];
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
      char *b = bt + (ob * n_pos + pos) * p->chunk;
      if (!inside) {
        if (to_batch) memset(b, 0, (size_t)p->chunk);
        continue;
      }
      char *s = sp + (n * stride + s_index) * p->chunk;
      if (to_batch) memcpy(b, s, (size_t)p->chunk);
      else memcpy(s, b, (size_t)p->chunk);
    }
  }
}

static int space_to_batch(tfc_kernel_ctx *c, int legacy) {
  const tfc_tensor *x = c->inputs[0];
  sb_plan p;
  int64_t pads[SB_MAX_BLOCK][2], dims[TFC_MAX_DIMS];
  memset(&p, 0, sizeof p);
  TFC_TRY(read_blocks(c, x, legacy, "paddings", &p, pads));
  p.batch = x->dims[0];
  p.prod = 1;
  for (int i = 0; i < p.m; i++)
    if (p.block[i] < 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "All values in block_shape must be positive, got value, %lld at index %d.",
                              (long long)p.block[i], i);
  for (int i = 0; i < p.m; i++) {
    if (pads[i][0] < 0 || pads[i][1] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Paddings must be non-negative");
    int64_t padded = x->dims[1 + i] + pads[i][0] + pads[i][1];
    if (padded % p.block[i])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "padded_shape[%d]=%lld is not divisible by block_shape[%d]=%lld",
                              i, (long long)padded, i, (long long)p.block[i]);
    p.space[i] = x->dims[1 + i];
    p.start[i] = pads[i][0];
    p.ys[i] = dims[1 + i] = padded / p.block[i];
    p.prod *= p.block[i];
  }
  dims[0] = p.batch * p.prod;
  finish_plan(x, &p, dims);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, x->ndims);
  if (!out) return c->status->code;
  if (out->n_elems) sb_copy(&p, x->data, out->data, 1);
  return TFC_OK;
}

static int batch_to_space(tfc_kernel_ctx *c, int legacy) {
  const tfc_tensor *x = c->inputs[0];
  sb_plan p;
  int64_t crops[SB_MAX_BLOCK][2], dims[TFC_MAX_DIMS];
  memset(&p, 0, sizeof p);
  TFC_TRY(read_blocks(c, x, legacy, "crops", &p, crops));
  p.prod = 1;
  for (int i = 0; i < p.m; i++) p.prod *= p.block[i];
  if (p.prod <= 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Product of block sizes must be positive, got %lld",
                            (long long)p.prod);
  for (int i = 0; i < p.m; i++)
    if (crops[i][0] < 0 || crops[i][1] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Crops must be non-negative");
  if (x->dims[0] % p.prod)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Input batch dimension (%lld) is not divisible by product of block sizes (%lld)",
                            (long long)x->dims[0], (long long)p.prod);
  p.batch = dims[0] = x->dims[0] / p.prod;
  for (int i = 0; i < p.m; i++) {
    int64_t cropped = x->dims[1 + i] * p.block[i] - crops[i][0] - crops[i][1];
    if (cropped < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "cropped_shape[%d]=%lld must be non-negative", i,
                              (long long)cropped);
    p.ys[i] = x->dims[1 + i];
    p.space[i] = dims[1 + i] = cropped;
    p.start[i] = crops[i][0];
  }
  finish_plan(x, &p, dims);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, x->ndims);
  if (!out) return c->status->code;
  if (out->n_elems) sb_copy(&p, out->data, x->data, 0);
  return TFC_OK;
}

static int s2b_nd(tfc_kernel_ctx *c) { return space_to_batch(c, 0); }
static int s2b_legacy(tfc_kernel_ctx *c) { return space_to_batch(c, 1); }
static int b2s_nd(tfc_kernel_ctx *c) { return batch_to_space(c, 0); }
static int b2s_legacy(tfc_kernel_ctx *c) { return batch_to_space(c, 1); }

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
