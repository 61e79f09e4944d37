/*
 * shape_math — shape functions of the math family (ops_math.def).
 *
 * They mirror TF 1.15's InferenceContext logic: Merge for shapes that must agree (unknown
 * dims take the known value), numpy broadcasting for element-wise ops, and constant inputs
 * (reduction axes, ArgMax's dimension) read when the graph knows them. The error texts are
 * TF's, so the graph layer's "for 'node' (op: 'Op') with input shapes: ..." suffix completes
 * them as TF does.
 */
#include <stdio.h>
#include <string.h>

#include "ops/opdef.h"

/* ---- small InferenceContext equivalents ---- */

static int with_rank_at_least(tfc_shape_ctx *c, const tfc_shape *s, int rank) {
  if (s->rank >= 0 && s->rank < rank)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

static int with_rank_at_most(tfc_shape_ctx *c, const tfc_shape *s, int rank) {
  if (s->rank > rank)
    return tfc_shape_ctx_error(c, "Shape must be at most rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

static int with_rank(tfc_shape_ctx *c, const tfc_shape *s, int rank) {
  if (s->rank >= 0 && s->rank != rank)
    return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", rank, s->rank);
  return TFC_OK;
}

static int merge_dim(tfc_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a >= 0 && b >= 0 && a != b)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)a,
                               (long long)b);
  *out = a >= 0 ? a : b;
  return TFC_OK;
}

/* TF's Merge of two shapes; `context` (may be "") is appended as TF's error context. */
static int merge_shapes(tfc_shape_ctx *c, const tfc_shape *a, const tfc_shape *b, tfc_shape *out,
                        const char *context) {
  if (a->rank < 0 || b->rank < 0) {
    *out = a->rank < 0 ? *b : *a;
    return TFC_OK;
  }
  if (a->rank != b->rank)
    return tfc_shape_ctx_error(c, "Shapes must be equal rank, but are %d and %d%s", a->rank, b->rank,
                               context);
  tfc_shape r = *a;
  for (int i = 0; i < a->rank; i++) {
    int64_t da = a->dims[i], db = b->dims[i];
    if (da >= 0 && db >= 0 && da != db) {
      char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
      return tfc_shape_ctx_error(c,
                                 "Dimension %d in both shapes must be equal, but are %lld and %lld. "
                                 "Shapes are %s and %s.%s",
                                 i, (long long)da, (long long)db, tfc_shape_str(a, sa, sizeof sa),
                                 tfc_shape_str(b, sb, sizeof sb), context);
    }
    r.dims[i] = da >= 0 ? da : db;
  }
  *out = r;
  return TFC_OK;
}

/* dims [begin, end) of s (a known-rank shape). */
static tfc_shape subshape(const tfc_shape *s, int begin, int end) {
  tfc_shape r;
  r.rank = end - begin;
  for (int i = begin; i < end; i++) r.dims[i - begin] = s->dims[i];
  return r;
}

/* Reads element i of a const int32/int64 input. */
static int64_t const_int(const tfc_tensor *t, int64_t i) { return tfc_tensor_get_i64(t, i); }

/* ---- matmul ---- */

int tfc_shape_matmul(tfc_shape_ctx *c) {
  const tfc_shape *a = &c->input_shapes[0], *b = &c->input_shapes[1];
  int ta = tfc_shape_ctx_attr_bool(c, "transpose_a", 0);
  int tb = tfc_shape_ctx_attr_bool(c, "transpose_b", 0);
  if (a->rank >= 0 && a->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", a->rank);
  if (b->rank >= 0 && b->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", b->rank);
  int64_t m = a->rank == 2 ? a->dims[ta ? 1 : 0] : -1;
  int64_t ka = a->rank == 2 ? a->dims[ta ? 0 : 1] : -1;
  int64_t kb = b->rank == 2 ? b->dims[tb ? 1 : 0] : -1;
  int64_t n = b->rank == 2 ? b->dims[tb ? 0 : 1] : -1;
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)ka,
                               (long long)kb);
  }
  tfc_shape r;
  r.rank = 2;
  r.dims[0] = m;
  r.dims[1] = n;
  c->output_shapes[0] = r;
  return TFC_OK;
}

/* ---- batch matmul ---- */

/* The shared part: rank checks and the output's last two dims. Returns the batch shapes. */
static int batch_matmul_common(tfc_shape_ctx *c, tfc_shape *a_batch, tfc_shape *b_batch,
                               int64_t *rows, int64_t *cols, int *known) {
  const tfc_shape *a = &c->input_shapes[0], *b = &c->input_shapes[1];
  TFC_TRY(with_rank_at_least(c, a, 2));
  TFC_TRY(with_rank_at_least(c, b, 2));
  *known = a->rank >= 0 && b->rank >= 0;
  if (!*known) return TFC_OK; /* output unknown */
  int adj_x = tfc_shape_ctx_attr_bool(c, "adj_x", 0), adj_y = tfc_shape_ctx_attr_bool(c, "adj_y", 0);
  *rows = a->dims[a->rank - (adj_x ? 1 : 2)];
  *cols = b->dims[b->rank - (adj_y ? 2 : 1)];
  *a_batch = subshape(a, 0, a->rank - 2);
  *b_batch = subshape(b, 0, b->rank - 2);
  return TFC_OK;
}

static int inner_dims_match(tfc_shape_ctx *c) {
  const tfc_shape *a = &c->input_shapes[0], *b = &c->input_shapes[1];
  int adj_x = tfc_shape_ctx_attr_bool(c, "adj_x", 0), adj_y = tfc_shape_ctx_attr_bool(c, "adj_y", 0);
  int64_t unused;
  return merge_dim(c, a->dims[a->rank - (adj_x ? 2 : 1)], b->dims[b->rank - (adj_y ? 1 : 2)], &unused);
}

static void set_batch_output(tfc_shape_ctx *c, const tfc_shape *batch, int64_t rows, int64_t cols) {
  tfc_shape out = *batch;
  out.dims[out.rank++] = rows;
  out.dims[out.rank++] = cols;
  c->output_shapes[0] = out;
}

int tfc_shape_batch_matmul(tfc_shape_ctx *c) {
  tfc_shape ab, bb, batch;
  int64_t rows, cols;
  int known;
  TFC_TRY(batch_matmul_common(c, &ab, &bb, &rows, &cols, &known));
  if (!known) return TFC_OK;
  TFC_TRY(merge_shapes(c, &ab, &bb, &batch, ""));
  TFC_TRY(inner_dims_match(c));
  set_batch_output(c, &batch, rows, cols);
  return TFC_OK;
}

int tfc_shape_batch_matmul_v2(tfc_shape_ctx *c) {
  tfc_shape ab, bb, batch;
  int64_t rows, cols;
  int known;
  TFC_TRY(batch_matmul_common(c, &ab, &bb, &rows, &cols, &known));
  if (!known) return TFC_OK;
  TFC_TRY(inner_dims_match(c));
  TFC_TRY(tfc_shape_broadcast(c, &ab, &bb, &batch));
  if (batch.rank + 2 > TFC_MAX_DIMS) return tfc_shape_ctx_error(c, "Rank exceeds %d", TFC_MAX_DIMS);
  set_batch_output(c, &batch, rows, cols);
  return TFC_OK;
}

/* ---- element-wise ---- */

int tfc_shape_addn(tfc_shape_ctx *c) {
  tfc_shape cur = c->input_shapes[c->n_inputs - 1];
  for (int i = c->n_inputs - 2; i >= 0; i--) {
    char context[80];
    snprintf(context, sizeof context, "\n\tFrom merging shape %d with other shapes.", i);
    TFC_TRY(merge_shapes(c, &c->input_shapes[i], &cur, &cur, context));
  }
  c->output_shapes[0] = cur;
  return TFC_OK;
}

/* Broadcast that, when incompatible shapes are allowed, yields an unknown shape instead. */
int tfc_shape_equality(tfc_shape_ctx *c) {
  if (tfc_shape_ctx_attr_bool(c, "incompatible_shape_error", 1)) return tfc_shape_binary_broadcast(c);
  const tfc_shape *a = &c->input_shapes[0], *b = &c->input_shapes[1];
  if (a->rank >= 0 && b->rank >= 0) {
    int rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < rank; i++) {
      int ia = a->rank - rank + i, ib = b->rank - rank + i;
      int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
      if (da > 1 && db > 1 && da != db) {
        c->output_shapes[0] = tfc_shape_unknown();
        return TFC_OK;
      }
    }
  }
  return tfc_shape_binary_broadcast(c);
}

int tfc_shape_select(tfc_shape_ctx *c) {
  tfc_shape data;
  TFC_TRY(merge_shapes(c, &c->input_shapes[1], &c->input_shapes[2], &data, ""));
  const tfc_shape *cond = &c->input_shapes[0];
  if (cond->rank < 0 || data.rank < 0 || cond->rank == 0) {
    c->output_shapes[0] = data;
    return TFC_OK;
  }
  if (cond->rank != 1 || data.rank == 0) {
    /* cond must have the data's shape (a vector cond with scalar data included). */
    TFC_TRY(merge_shapes(c, &data, cond, &data, ""));
    c->output_shapes[0] = data;
    return TFC_OK;
  }
  /* A vector cond selects along the first dimension of then/else. */
  tfc_shape first = tfc_shape_vector(data.dims[0]), merged;
  TFC_TRY(merge_shapes(c, cond, &first, &merged, ""));
  c->output_shapes[0] = data;
  return TFC_OK;
}

int tfc_shape_select_v2(tfc_shape_ctx *c) {
  tfc_shape other, out;
  TFC_TRY(tfc_shape_broadcast(c, &c->input_shapes[1], &c->input_shapes[2], &other));
  TFC_TRY(tfc_shape_broadcast(c, &c->input_shapes[0], &other, &out));
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* ---- reductions ---- */

int tfc_shape_reduction(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(with_rank_at_most(c, &c->input_shapes[1], 1));
  int keep_dims = tfc_shape_ctx_attr_bool(c, "keep_dims", 0);
  const tfc_tensor *axes = tfc_shape_ctx_input_tensor(c, 1);
  if (!axes || in->rank < 0) {
    /* Unknown axes: with keep_dims the rank is still known. */
    if (keep_dims && in->rank >= 0) {
      tfc_shape r;
      r.rank = in->rank;
      for (int i = 0; i < r.rank; i++) r.dims[i] = -1;
      c->output_shapes[0] = r;
    } else {
      c->output_shapes[0] = tfc_shape_unknown();
    }
    return TFC_OK;
  }
  int reduced[TFC_MAX_DIMS] = {0};
  for (int64_t i = 0; i < axes->n_elems; i++) {
    int64_t a = const_int(axes, i);
    if (a < -in->rank || a >= in->rank)
      return tfc_shape_ctx_error(c, "Invalid reduction dimension %lld for input with %d dimensions.",
                                 (long long)a, in->rank);
    reduced[a < 0 ? a + in->rank : a] = 1;
  }
  tfc_shape r;
  r.rank = 0;
  for (int i = 0; i < in->rank; i++) {
    if (!reduced[i]) r.dims[r.rank++] = in->dims[i];
    else if (keep_dims) r.dims[r.rank++] = 1;
  }
  c->output_shapes[0] = r;
  return TFC_OK;
}

int tfc_shape_argop(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(with_rank(c, &c->input_shapes[1], 0));
  if (in->rank < 0) {
    c->output_shapes[0] = tfc_shape_unknown();
    return TFC_OK;
  }
  if (in->rank <= 1) {
    c->output_shapes[0] = tfc_shape_scalar();
    return TFC_OK;
  }
  const tfc_tensor *dim = tfc_shape_ctx_input_tensor(c, 1);
  tfc_shape r;
  r.rank = in->rank - 1;
  if (!dim) {
    for (int i = 0; i < r.rank; i++) r.dims[i] = -1;
    c->output_shapes[0] = r;
    return TFC_OK;
  }
  int64_t v = const_int(dim, 0);
  int64_t axis = v < 0 ? v + in->rank : v;
  if (axis < 0 || axis >= in->rank)
    return tfc_shape_ctx_error(c,
                               "Dimension (%lld) must be in the range [%d, %d), where %d is the number "
                               "of dimensions in the input.",
                               (long long)v, -in->rank, in->rank, in->rank);
  int k = 0;
  for (int i = 0; i < in->rank; i++)
    if (i != axis) r.dims[k++] = in->dims[i];
  c->output_shapes[0] = r;
  return TFC_OK;
}
