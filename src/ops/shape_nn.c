/*
 * shape_nn — shape functions of the neural-network family (ops_nn.def).
 *
 * Each mirrors TF 1.15's function of the same op (common_shape_fns.cc BiasAddShape /
 * BiasAddGradShape, nn_ops.cc for the rest) with its InferenceContext steps: WithRank checks,
 * Merge of shapes and dims that must agree (an unknown side takes the known value). Error
 * texts are TF's; tfc_shape_ctx_error appends the node and input shapes as TF does.
 *
 * NCHW note: TF 1.15's BiasAdd kernels put the channel at dim 1 for every rank (3, 4 or 5),
 * so the shape functions do too.
 */
#include <string.h>

#include "ops/opdef.h"
#include "tensor/tensor.h"

static int with_rank(tfc_shape_ctx *c, const tfc_shape *s, int rank) {
  if (s->rank >= 0 && s->rank != rank)
    return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

static int with_rank_at_least(tfc_shape_ctx *c, const tfc_shape *s, int rank) {
  if (s->rank >= 0 && s->rank < rank)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

static int merge_dim(tfc_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a >= 0 && b >= 0 && a != b)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)a,
                               (long long)b);
  *out = a >= 0 ? a : b;
  return TFC_OK;
}

/* InferenceContext::Merge; returns -1 (no status) instead of an error when quiet. */
static int merge_shapes(tfc_shape_ctx *c, const tfc_shape *a, const tfc_shape *b, tfc_shape *out,
                        int quiet) {
  if (a->rank < 0 || b->rank < 0) {
    *out = a->rank < 0 ? *b : *a;
    return TFC_OK;
  }
  if (a->rank != b->rank) {
    if (quiet) return -1;
    return tfc_shape_ctx_error(c, "Shapes must be equal rank, but are %d and %d", a->rank, b->rank);
  }
  tfc_shape r = *a;
  for (int i = 0; i < a->rank; i++) {
    int64_t da = a->dims[i], db = b->dims[i];
    if (da >= 0 && db >= 0 && da != db) {
      if (quiet) return -1;
      char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
      return tfc_shape_ctx_error(c,
                                 "Dimension %d in both shapes must be equal, but are %lld and %lld. "
                                 "Shapes are %s and %s.",
                                 i, (long long)da, (long long)db, tfc_shape_str(a, sa, sizeof sa),
                                 tfc_shape_str(b, sb, sizeof sb));
    }
    r.dims[i] = da >= 0 ? da : db;
  }
  *out = r;
  return TFC_OK;
}

static int is_nchw(tfc_shape_ctx *c) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "data_format");
  return v && v->kind == TFC_ATTR_STRING && strcmp(v->u.s.data, "NCHW") == 0;
}

int tfc_shape_bias_add(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int nchw = is_nchw(c);
  TFC_TRY(with_rank_at_least(c, in, nchw ? 3 : 2));
  TFC_TRY(with_rank(c, &c->input_shapes[1], 1));
  int64_t bias = c->input_shapes[1].rank == 1 ? c->input_shapes[1].dims[0] : -1;
  if (in->rank < 0) {
    c->output_shapes[0] = tfc_shape_unknown();
    return TFC_OK;
  }
  tfc_shape out = *in;
  int ch = nchw ? 1 : in->rank - 1;
  TFC_TRY(merge_dim(c, in->dims[ch], bias, &out.dims[ch]));
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_bias_add_grad(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int nchw = is_nchw(c);
  TFC_TRY(with_rank_at_least(c, in, nchw ? 3 : 2));
  int64_t n = -1;
  if (in->rank >= 0) n = in->dims[nchw ? 1 : in->rank - 1];
  c->output_shapes[0] = tfc_shape_vector(n);
  return TFC_OK;
}

int tfc_shape_merge_both(tfc_shape_ctx *c) {
  return merge_shapes(c, &c->input_shapes[0], &c->input_shapes[1], &c->output_shapes[0], 0);
}

int tfc_shape_softmax(tfc_shape_ctx *c) {
  TFC_TRY(with_rank_at_least(c, &c->input_shapes[0], 1));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}

/* TF 1.15: rank-2 inputs that merge give ([batch], merged); otherwise the two broadcast and the
 * result must be rank 2. */
int tfc_shape_softmax_xent(tfc_shape_ctx *c) {
  const tfc_shape *f = &c->input_shapes[0], *l = &c->input_shapes[1];
  tfc_shape f2 = *f, merged;
  if (f2.rank < 0) { /* WithRank(2) makes an unknown-rank input [?,?] */
    f2.rank = 2;
    f2.dims[0] = f2.dims[1] = -1;
  }
  if (f2.rank == 2 && merge_shapes(c, &f2, l, &merged, 1) == TFC_OK) {
    c->output_shapes[0] = tfc_shape_vector(merged.dims[0]);
    c->output_shapes[1] = merged;
    return TFC_OK;
  }
  tfc_shape b;
  TFC_TRY(tfc_shape_broadcast(c, f, l, &b));
  if (b.rank < 0)
    return tfc_shape_ctx_error(c, "Shape must be broadcasted with rank 2, but is rank is unknown.");
  if (b.rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be broadcasted with rank 2, but is rank %d", b.rank);
  c->output_shapes[0] = tfc_shape_vector(b.dims[0]);
  c->output_shapes[1] = b;
  return TFC_OK;
}

int tfc_shape_sparse_softmax_xent(tfc_shape_ctx *c) {
  const tfc_shape *f = &c->input_shapes[0], *l = &c->input_shapes[1];
  TFC_TRY(with_rank(c, f, 2));
  TFC_TRY(with_rank(c, l, 1));
  tfc_shape feat;
  feat.rank = 2;
  feat.dims[0] = f->rank == 2 ? f->dims[0] : -1;
  feat.dims[1] = f->rank == 2 ? f->dims[1] : -1;
  int64_t batch = -1;
  TFC_TRY(merge_dim(c, feat.dims[0], l->rank == 1 ? l->dims[0] : -1, &batch));
  feat.dims[0] = batch;
  c->output_shapes[0] = tfc_shape_vector(batch);
  c->output_shapes[1] = feat;
  return TFC_OK;
}

int tfc_shape_in_top_k(tfc_shape_ctx *c) {
  const tfc_shape *p = &c->input_shapes[0], *t = &c->input_shapes[1];
  TFC_TRY(with_rank(c, p, 2));
  TFC_TRY(with_rank(c, t, 1));
  int64_t batch = -1;
  TFC_TRY(merge_dim(c, p->rank == 2 ? p->dims[0] : -1, t->rank == 1 ? t->dims[0] : -1, &batch));
  c->output_shapes[0] = tfc_shape_vector(batch);
  return TFC_OK;
}

/* TopKV2: input rank >= 1; k (a scalar input) replaces the last dim; a known last dim below a
 * known k is an error. */
int tfc_shape_top_k(tfc_shape_ctx *c) {
  tfc_shape in = c->input_shapes[0];
  TFC_TRY(with_rank_at_least(c, &in, 1));
  TFC_TRY(with_rank(c, &c->input_shapes[1], 0));
  int64_t k = -1;
  const tfc_tensor *kt = tfc_shape_ctx_input_tensor(c, 1);
  if (kt && kt->n_elems == 1) {
    k = tfc_tensor_get_i64(kt, 0);
    if (k < 0)
      return tfc_shape_ctx_error(c, "Dimension size, given by scalar input 1, must be non-negative but is %lld",
                                 (long long)k);
  }
  if (in.rank < 0) return TFC_OK;
  int64_t last = in.dims[in.rank - 1];
  if (last >= 0 && k >= 0 && last < k)
    return tfc_shape_ctx_error(c, "input must have last dimension >= k = %lld but is %lld", (long long)k,
                               (long long)last);
  in.dims[in.rank - 1] = k;
  c->output_shapes[0] = in;
  c->output_shapes[1] = in;
  return TFC_OK;
}

/* LRN / LRNGrad: every input is rank 4 and they agree; the output has their shape. */
int tfc_shape_lrn(tfc_shape_ctx *c) {
  tfc_shape out = c->input_shapes[0];
  TFC_TRY(with_rank(c, &out, 4));
  for (int i = 1; i < c->n_inputs; i++) {
    const tfc_shape *s = &c->input_shapes[i];
    TFC_TRY(with_rank(c, s, 4));
    if (s->rank < 0) continue;
    if (out.rank < 0) {
      out = *s;
      continue;
    }
    for (int d = 0; d < 4; d++) TFC_TRY(merge_dim(c, out.dims[d], s->dims[d], &out.dims[d]));
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* FusedBatchNorm*: x is rank 4 (rank 5 for NDHWC / NCDHW); the per-channel vector inputs
 * (inputs first_vec .. first_vec + n_vec - 1) are rank 1 and agree with x's channel dim. */
static int batch_norm_x(tfc_shape_ctx *c, int x_in, int first_vec, int n_vec, tfc_shape *x, int64_t *chans) {
  const tfc_attr_value *v = tfc_shape_ctx_attr(c, "data_format");
  const char *fmt = v && v->kind == TFC_ATTR_STRING ? v->u.s.data : "NHWC";
  int rank = strlen(fmt) == 5 ? 5 : 4;
  *x = c->input_shapes[x_in];
  TFC_TRY(with_rank(c, x, rank));
  if (x->rank < 0) {
    x->rank = rank;
    for (int i = 0; i < rank; i++) x->dims[i] = -1;
  }
  int ch = fmt[1] == 'C' ? 1 : rank - 1;
  for (int k = first_vec; k < first_vec + n_vec; k++) {
    const tfc_shape *s = &c->input_shapes[k];
    TFC_TRY(with_rank(c, s, 1));
    TFC_TRY(merge_dim(c, x->dims[ch], s->rank == 1 ? s->dims[0] : -1, &x->dims[ch]));
  }
  *chans = x->dims[ch];
  return TFC_OK;
}

int tfc_shape_fused_batch_norm(tfc_shape_ctx *c) {
  tfc_shape x;
  int64_t chans;
  int training = tfc_shape_ctx_attr_bool(c, "is_training", 1);
  TFC_TRY(batch_norm_x(c, 0, 1, training ? 2 : 4, &x, &chans));
  c->output_shapes[0] = x;
  for (int k = 1; k < 5; k++) c->output_shapes[k] = tfc_shape_vector(chans);
  if (c->n_outputs > 5) c->output_shapes[5] = tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_fused_batch_norm_grad(tfc_shape_ctx *c) {
  tfc_shape x, dy;
  int64_t chans, dy_chans;
  TFC_TRY(batch_norm_x(c, 1, 2, 3, &x, &chans));
  TFC_TRY(batch_norm_x(c, 0, 0, 0, &dy, &dy_chans));
  TFC_TRY(merge_shapes(c, &dy, &x, &x, 0));
  TFC_TRY(merge_dim(c, chans, dy_chans, &chans));
  c->output_shapes[0] = x;
  c->output_shapes[1] = c->output_shapes[2] = tfc_shape_vector(chans);
  c->output_shapes[3] = c->output_shapes[4] = tfc_shape_vector(0);
  return TFC_OK;
}
