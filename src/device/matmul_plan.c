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

/* ---- Einsum ---- */

/* Row-major strides of the labels in an order, for a packed buffer. */
static void packed_strides(const int *order, int n, const int64_t *size, int64_t *out) {
  int64_t st = 1;
  for (int i = n - 1; i >= 0; i--) {
    out[i] = st;
    st *= size[order[i]];
  }
}

/* Drops size-1 dims and merges each dim into the next when both sides step through them as
 * one (outer stride = inner stride * inner size). */
static void coalesce(tfc_einsum_copy *cp) {
  int n = 0;
  for (int d = 0; d < cp->nd; d++) {
    if (cp->sizes[d] == 1) continue;
    if (n > 0 && cp->src[n - 1] == cp->src[d] * cp->sizes[d] && cp->dst[n - 1] == cp->dst[d] * cp->sizes[d]) {
      cp->sizes[n - 1] *= cp->sizes[d];
      cp->src[n - 1] = cp->src[d];
      cp->dst[n - 1] = cp->dst[d];
      continue;
    }
    cp->sizes[n] = cp->sizes[d], cp->src[n] = cp->src[d], cp->dst[n] = cp->dst[d];
    n++;
  }
  cp->nd = n;
}

/* The copy of labels order[0..n) from a source with per-label strides src_of into a packed
 * destination in that order. */
static void gather_copy(tfc_einsum_copy *cp, const int *order, int n, const int64_t *size, const int64_t *src_of) {
  cp->nd = n;
  packed_strides(order, n, size, cp->dst);
  for (int i = 0; i < n; i++) cp->sizes[i] = size[order[i]], cp->src[i] = src_of[order[i]];
  coalesce(cp);
}

int tfc_einsum_plan_of(tfc_kernel_ctx *c, tfc_einsum_plan *p) {
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
  p->batch = p->m = p->n = p->k = 1;
  for (int i = 0; i < e.n_out; i++) {
    int l = e.out[i];
    in_out[l] = 1;
    if ((e.used[l] & 3) == 3) batch[nb++] = l, p->batch *= e.size[l];
    else if (e.used[l] & 1) left[nl++] = l, p->m *= e.size[l];
    else right[nr++] = l, p->n *= e.size[l];
  }
  for (int l = 0; l < TFC_EINSUM_MAX_LABELS; l++)
    if (e.used[l] && !in_out[l]) con[nc++] = l, p->k *= e.size[l];
  p->rank = e.n_out;
  for (int i = 0; i < e.n_out; i++) p->dims[i] = e.size[e.out[i]];
  /* Step 3: the copies. Operand 0 -> [batch, left, con]. */
  int order[TFC_EINSUM_MAX_LABELS], no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nl; i++) order[no++] = left[i];
  for (int i = 0; i < nc; i++) order[no++] = con[i];
  gather_copy(&p->a, order, no, e.size, stride[0]);
  /* operand 1 -> [batch, con, right] */
  p->ones = n < 2;
  no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nc; i++) order[no++] = con[i];
  for (int i = 0; i < nr; i++) order[no++] = right[i];
  if (n == 2) gather_copy(&p->b, order, no, e.size, stride[1]);
  else p->b.nd = 0;
  /* [batch, left, right] -> the output's order */
  int64_t ostride[TFC_EINSUM_MAX_LABELS] = {0}, ds[TFC_EINSUM_MAX_LABELS];
  packed_strides(e.out, e.n_out, e.size, ds);
  for (int i = 0; i < e.n_out; i++) ostride[e.out[i]] = ds[i];
  no = 0;
  for (int i = 0; i < nb; i++) order[no++] = batch[i];
  for (int i = 0; i < nl; i++) order[no++] = left[i];
  for (int i = 0; i < nr; i++) order[no++] = right[i];
  tfc_einsum_copy *o = &p->out;
  o->nd = no;
  packed_strides(order, no, e.size, o->src);
  for (int i = 0; i < no; i++) o->sizes[i] = e.size[order[i]], o->dst[i] = ostride[order[i]];
  coalesce(o);
  return TFC_OK;
}
