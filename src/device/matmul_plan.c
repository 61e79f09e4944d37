/* matmul_plan — see matmul_plan.h. */
#include "device/matmul_plan.h"

#include <stdlib.h>
#include <string.h>

int tfc_matmul_init(const tfc_node *n, void **state, tfc_status *s) {
  tfc_matmul_state *st = malloc(sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_kernel_attr_bool(n, "transpose_a", &st->ta, s) || tfc_kernel_attr_bool(n, "transpose_b", &st->tb, s)) {
    free(st);
    return s->code;
  }
  *state = st;
  return TFC_OK;
}

int tfc_matmul_plan_of(tfc_kernel_ctx *c, int64_t *m, int64_t *n, int64_t *k) {
  const tfc_matmul_state *st = c->state;
  const tfc_tensor *a = c->inputs[0], *b = c->inputs[1];
  char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
  if (a->ndims != 2 || b->ndims != 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[%d] is not a matrix. Instead it has shape %s",
                            a->ndims != 2 ? 0 : 1,
                            a->ndims != 2 ? tfc_tensor_shape_str(a, sa, sizeof sa)
                                          : tfc_tensor_shape_str(b, sb, sizeof sb));
  *m = a->dims[st->ta ? 1 : 0];
  *k = a->dims[st->ta ? 0 : 1];
  *n = b->dims[st->tb ? 0 : 1];
  if (*k != b->dims[st->tb ? 1 : 0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: %s, In[1]: %s",
                            tfc_tensor_shape_str(a, sa, sizeof sa), tfc_tensor_shape_str(b, sb, sizeof sb));
  return TFC_OK;
}

int tfc_bmm_plan_of(tfc_kernel_ctx *c, int v2, tfc_bmm_plan *p) {
  const tfc_tensor *x = c->inputs[0], *y = c->inputs[1];
  memset(p, 0, sizeof *p);
  int adj_x = 0, adj_y = 0;
  tfc_cwise_bcast *bb = &p->batch;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "adj_x", &adj_x, c->status));
  TFC_TRY(tfc_kernel_attr_bool(c->node, "adj_y", &adj_y, c->status));
  char sx[TFC_SHAPE_STR_MAX], sy[TFC_SHAPE_STR_MAX];
  tfc_tensor_shape_str(x, sx, sizeof sx);
  tfc_tensor_shape_str(y, sy, sizeof sy);
  /* Step 1: validate ranks and batch dims; the output batch shape. */
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
  if (tfc_cwise_bcast_dims(bb, 2, bd, bn))
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
  if (bb->out_ndims + 2 > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Rank of the output exceeds %d", TFC_MAX_DIMS);
  memcpy(p->dims, bb->out_dims, sizeof(int64_t) * (size_t)bb->out_ndims);
  p->dims[bb->out_ndims] = m;
  p->dims[bb->out_ndims + 1] = n;
  p->adj_x = adj_x;
  p->adj_y = adj_y;
  p->m = m;
  p->n = n;
  p->k = kx;
  p->rank = bb->out_ndims + 2;
  return TFC_OK;
}
