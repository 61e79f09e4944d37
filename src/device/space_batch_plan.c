/*
 * space_batch_plan — see space_batch_plan.h.
 */
#include "device/space_batch_plan.h"

#include <string.h>

#include "ops/opdef.h"

/* Block shape and the [M, 2] pads/crops into p (legacy: block_size for two dims). */
static int read_blocks(tfc_kernel_ctx *c, const tfc_tensor *x, int legacy, const char *pads_name,
                       tfc_space_batch_plan *p,
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
    if (bs->n_elems > TFC_SB_MAX_BLOCK || x->ndims < 1 + bs->n_elems)
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

/* The rest dims' elements of x (dims after 1 + m) and an output shape with them. */
static void finish_plan(const tfc_tensor *x, tfc_space_batch_plan *p, int64_t *out_dims) {
  p->rest = 1;
  for (int d = 1 + p->m; d < x->ndims; d++) {
    p->rest *= x->dims[d];
    out_dims[d] = x->dims[d];
  }
}

static int space_to_batch_plan(tfc_kernel_ctx *c, int legacy, tfc_space_batch_plan *pp, int64_t *dims) {
  const tfc_tensor *x = c->inputs[0];
  tfc_space_batch_plan p;
  int64_t pads[TFC_SB_MAX_BLOCK][2];
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
  *pp = p;
  return TFC_OK;
}

static int batch_to_space_plan(tfc_kernel_ctx *c, int legacy, tfc_space_batch_plan *pp, int64_t *dims) {
  const tfc_tensor *x = c->inputs[0];
  tfc_space_batch_plan p;
  int64_t crops[TFC_SB_MAX_BLOCK][2];
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
  *pp = p;
  return TFC_OK;
}

int tfc_space_batch_plan_of(tfc_kernel_ctx *c, int to_batch, int legacy, tfc_space_batch_plan *p, int64_t *out_dims) {
  return to_batch ? space_to_batch_plan(c, legacy, p, out_dims) : batch_to_space_plan(c, legacy, p, out_dims);
}
