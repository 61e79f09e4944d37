/*
 * shape_tail — shape functions of the segment reductions and the matrix ops of
 * ops_math_tail.def, with TF's texts ("Shape must be at least rank 2 but is rank 1",
 * "Dimensions must be equal, but are 2 and 3", "Input must have even rank <= 6, input rank is
 * 3"). Unknown ranks and dims stay unknown.
 */
#include <string.h>

#include "ops/opdef.h"
#include "ops/shape_fns.h"

static int rank_at_least(tfc_shape_ctx *c, const tfc_shape *s, int r) {
  if (s->rank >= 0 && s->rank < r)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

static int rank_is(tfc_shape_ctx *c, const tfc_shape *s, int r) {
  if (s->rank >= 0 && s->rank != r) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

/* Merges two dims into *out (-1 unknown); error when both are known and differ. */
static int merge(tfc_shape_ctx *c, int64_t a, int64_t b, int64_t *out) {
  if (a >= 0 && b >= 0 && a != b)
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)a, (long long)b);
  *out = a >= 0 ? a : b;
  return TFC_OK;
}

int tfc_shape_segment(tfc_shape_ctx *c) {
  const tfc_shape *data = &c->input_shapes[0], *ids = &c->input_shapes[1];
  TFC_TRY(rank_at_least(c, data, 1));
  TFC_TRY(rank_is(c, ids, 1));
  if (data->rank < 0) return TFC_OK;
  tfc_shape out = *data;
  out.dims[0] = -1;
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_diag(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(rank_at_least(c, in, 1));
  if (in->rank > 3) return tfc_shape_ctx_error(c, "Shape must be at most rank 3 but is rank %d", in->rank);
  if (in->rank < 0) return TFC_OK;
  tfc_shape out;
  out.rank = 2 * in->rank;
  for (int i = 0; i < in->rank; i++) out.dims[i] = out.dims[i + in->rank] = in->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_diag_part(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank < 0) return TFC_OK;
  if (in->rank % 2 != 0 || in->rank <= 0 || in->rank > 6)
    return tfc_shape_ctx_error(c, "Input must have even rank <= 6, input rank is %d", in->rank);
  int mid = in->rank / 2;
  tfc_shape out;
  out.rank = mid;
  for (int i = 0; i < mid; i++) TFC_TRY(merge(c, in->dims[i], in->dims[i + mid], &out.dims[i]));
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_matrix_diag(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(rank_at_least(c, in, 1));
  if (in->rank < 0) return TFC_OK;
  if (in->rank + 1 > TFC_MAX_DIMS) return tfc_shape_ctx_error(c, "rank %d is too large", in->rank + 1);
  tfc_shape out = *in;
  out.dims[in->rank] = in->dims[in->rank - 1];
  out.rank = in->rank + 1;
  c->output_shapes[0] = out;
  return TFC_OK;
}

static int64_t min_dim(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  return a < b ? a : b;
}

int tfc_shape_matrix_diag_part(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(rank_at_least(c, in, 2));
  if (in->rank < 0) return TFC_OK;
  tfc_shape out = *in;
  out.rank = in->rank - 1;
  out.dims[out.rank - 1] = min_dim(in->dims[in->rank - 2], in->dims[in->rank - 1]);
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_matrix_set_diag(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0], *diag = &c->input_shapes[1];
  TFC_TRY(rank_at_least(c, in, 2));
  TFC_TRY(rank_at_least(c, diag, 1));
  tfc_shape out = *in;
  if (in->rank >= 0 && diag->rank >= 0) {
    if (diag->rank != in->rank - 1)
      return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", in->rank - 1, diag->rank);
    int64_t m = min_dim(in->dims[in->rank - 2], in->dims[in->rank - 1]), unused;
    TFC_TRY(merge(c, m, diag->dims[diag->rank - 1], &unused));
    for (int i = 0; i < in->rank - 2; i++) TFC_TRY(merge(c, in->dims[i], diag->dims[i], &out.dims[i]));
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_matrix_band_part(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  TFC_TRY(rank_is(c, &c->input_shapes[2], 0));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}

/* The input as a batch of square matrices: batch dims and the merged n. */
static int square(tfc_shape_ctx *c, const tfc_shape *in, int64_t *n) {
  TFC_TRY(rank_at_least(c, in, 2));
  if (in->rank < 0) return TFC_OK;
  return merge(c, in->dims[in->rank - 1], in->dims[in->rank - 2], n);
}

int tfc_shape_square_matrix(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t n = -1;
  TFC_TRY(square(c, in, &n));
  if (in->rank < 0) return TFC_OK;
  tfc_shape out = *in;
  out.dims[in->rank - 2] = out.dims[in->rank - 1] = n;
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_matrix_determinant(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t n = -1;
  TFC_TRY(square(c, in, &n));
  if (in->rank < 0) return TFC_OK;
  tfc_shape out = *in;
  out.rank = in->rank - 2;
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_matrix_solve(tfc_shape_ctx *c) {
  const tfc_shape *m = &c->input_shapes[0], *rhs = &c->input_shapes[1];
  int64_t n = -1;
  TFC_TRY(square(c, m, &n));
  TFC_TRY(rank_at_least(c, rhs, 2));
  if (m->rank < 0 || rhs->rank < 0) return TFC_OK;
  if (m->rank != rhs->rank) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", m->rank, rhs->rank);
  tfc_shape out = *rhs;
  for (int i = 0; i < m->rank - 2; i++) TFC_TRY(merge(c, m->dims[i], rhs->dims[i], &out.dims[i]));
  TFC_TRY(merge(c, n, rhs->dims[rhs->rank - 2], &out.dims[rhs->rank - 2]));
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* ---- ops_string.def ---- */

int tfc_shape_scalar_input(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[0], 0));
  c->output_shapes[0] = tfc_shape_scalar();
  return TFC_OK;
}

int tfc_shape_write_file(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[0], 0));
  return rank_is(c, &c->input_shapes[1], 0);
}

int tfc_shape_substr(tfc_shape_ctx *c) {
  const tfc_shape *pos = &c->input_shapes[1], *len = &c->input_shapes[2];
  if (pos->rank >= 0 && len->rank >= 0) {
    if (pos->rank != len->rank)
      return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", pos->rank, len->rank);
    for (int i = 0; i < pos->rank; i++) {
      int64_t unused;
      TFC_TRY(merge(c, pos->dims[i], len->dims[i], &unused));
    }
  }
  tfc_shape out;
  if (c->input_shapes[0].rank >= 0 && pos->rank >= 0) {
    TFC_TRY(tfc_shape_broadcast(c, &c->input_shapes[0], pos, &out));
    c->output_shapes[0] = out;
  }
  return TFC_OK;
}

int tfc_shape_string_split(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[0], 1));
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  int64_t d[2] = {-1, 2};
  c->output_shapes[0] = tfc_shape_make(d, 2);
  c->output_shapes[1] = tfc_shape_vector(-1);
  c->output_shapes[2] = tfc_shape_vector(2);
  return TFC_OK;
}

/* ---- ops_array_tail.def ---- */

int tfc_shape_unique(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[0], 1));
  c->output_shapes[0] = tfc_shape_vector(-1);
  c->output_shapes[1] = c->input_shapes[0].rank == 1 ? c->input_shapes[0] : tfc_shape_vector(-1);
  if (c->n_outputs > 2) c->output_shapes[2] = tfc_shape_vector(-1);
  return TFC_OK;
}

int tfc_shape_list_diff(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[0], 1));
  TFC_TRY(rank_is(c, &c->input_shapes[1], 1));
  c->output_shapes[0] = c->output_shapes[1] = tfc_shape_vector(-1);
  return TFC_OK;
}

int tfc_shape_scatter_nd(tfc_shape_ctx *c) {
  const tfc_shape *ind = &c->input_shapes[0];
  TFC_TRY(rank_at_least(c, ind, 1));
  TFC_TRY(rank_is(c, &c->input_shapes[2], 1));
  return tfc_shape_ctx_input_as_shape(c, 2, &c->output_shapes[0]);
}

int tfc_shape_sparse_to_dense(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 1));
  TFC_TRY(rank_is(c, &c->input_shapes[3], 0));
  return tfc_shape_ctx_input_as_shape(c, 1, &c->output_shapes[0]);
}

int tfc_shape_bincount(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  const tfc_tensor *size = tfc_shape_ctx_input_tensor(c, 1);
  c->output_shapes[0] = tfc_shape_vector(size && size->n_elems == 1 ? tfc_tensor_get_i64(size, 0) : -1);
  return TFC_OK;
}

int tfc_shape_dense_bincount(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank > 2) return tfc_shape_ctx_error(c, "Shape must be at most rank 2 but is rank %d", in->rank);
  const tfc_tensor *size = tfc_shape_ctx_input_tensor(c, 1);
  int64_t n = size && size->n_elems == 1 ? tfc_tensor_get_i64(size, 0) : -1;
  if (in->rank < 0) {
    c->output_shapes[0].rank = -1;
  } else if (in->rank == 2) {
    c->output_shapes[0] = tfc_shape_vector(in->dims[0]);
    c->output_shapes[0].rank = 2;
    c->output_shapes[0].dims[1] = n;
  } else {
    c->output_shapes[0] = tfc_shape_vector(n);
  }
  return TFC_OK;
}

/* ---- ops_image.def ---- */

int tfc_shape_resize(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  TFC_TRY(rank_is(c, in, 4));
  TFC_TRY(rank_is(c, &c->input_shapes[1], 1));
  if (c->input_shapes[1].rank == 1 && c->input_shapes[1].dims[0] >= 0 && c->input_shapes[1].dims[0] != 2)
    return tfc_shape_ctx_error(c, "Dimension must be 2 but is %lld", (long long)c->input_shapes[1].dims[0]);
  tfc_shape size;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 1, &size));
  tfc_shape out;
  out.rank = 4;
  out.dims[0] = in->rank == 4 ? in->dims[0] : -1;
  out.dims[3] = in->rank == 4 ? in->dims[3] : -1;
  out.dims[1] = size.rank == 2 ? size.dims[0] : -1;
  out.dims[2] = size.rank == 2 ? size.dims[1] : -1;
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_depthwise_conv2d(tfc_shape_ctx *c) {
  TFC_TRY(tfc_shape_conv2d(c));
  tfc_shape *out = &c->output_shapes[0];
  if (out->rank != 4) return TFC_OK;
  const tfc_attr_value *df = tfc_shape_ctx_attr(c, "data_format");
  int nchw = df && df->kind == TFC_ATTR_STRING && df->u.s.len == 4 && !memcmp(df->u.s.data, "NCHW", 4);
  int ci = nchw ? 1 : 3;
  const tfc_shape *in = &c->input_shapes[0], *f = &c->input_shapes[1];
  int64_t in_c = in->dims[ci] >= 0 ? in->dims[ci] : f->dims[2], mult = f->dims[3];
  out->dims[ci] = in_c >= 0 && mult >= 0 ? in_c * mult : -1;
  return TFC_OK;
}
