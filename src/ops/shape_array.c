/*
 * shape_array — shape functions of the array family (ops_array.def).
 *
 * These run at graph build time on what the graph knows: input shapes (possibly partial) and
 * the values of const inputs (tfc_shape_ctx_input_tensor). Like TF, a const shape, axis,
 * perm or slice spec gives exact dims, and without one the result keeps whatever rank can be
 * derived with unknown dims. Errors found here use TF's shape-function texts; everything is
 * checked again by the kernels with the run-time values.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/opdef.h"

/* ---- small helpers ---- */

static const tfc_tensor *const_in(const tfc_shape_ctx *c, int i) {
  return tfc_shape_ctx_input_tensor(c, i);
}

static int is_int_tensor(const tfc_tensor *t) {
  return t && (t->dtype == TFC_DT_INT32 || t->dtype == TFC_DT_INT64);
}

/* The value of a const int scalar (or one-element vector) input; 0 when not known. */
static int const_scalar(const tfc_shape_ctx *c, int i, int64_t *out) {
  const tfc_tensor *t = const_in(c, i);
  if (!is_int_tensor(t) || t->n_elems != 1) return 0;
  *out = tfc_tensor_get_i64(t, 0);
  return 1;
}

static tfc_shape shape_of_rank(int rank) {
  if (rank < 0) return tfc_shape_unknown();
  tfc_shape s;
  s.rank = rank;
  for (int i = 0; i < rank; i++) s.dims[i] = -1;
  return s;
}

/* Length of a vector input when its shape is known, else -1. */
static int64_t vector_len(const tfc_shape *s) { return s->rank == 1 ? s->dims[0] : -1; }

static int check_rank_le_max(tfc_shape_ctx *c, int rank) {
  if (rank > TFC_MAX_DIMS)
    return tfc_shape_ctx_error(c, "Shape of rank %d exceeds the maximum rank %d", rank, TFC_MAX_DIMS);
  return TFC_OK;
}

/* Merges two dims: -1 matches anything. Returns -2 when both are known and differ. */
static int64_t merge_dim(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a == b ? a : -2;
}

/* ---- shapes of shapes ---- */

/* Known elements of s and the index of its one unknown dim (-1: none; -2: more than one). */
static int64_t known_elements(const tfc_shape *s, int *unknown_at) {
  int64_t known = 1;
  *unknown_at = -1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dims[i] >= 0) {
      known *= s->dims[i];
    } else if (*unknown_at != -1) {
      *unknown_at = -2;
      return known;
    } else {
      *unknown_at = i;
    }
  }
  return known;
}

/* TF's reshape rule: the requested shape (partial), its one unknown dim inferred when the
 * input's elements are all known. */
int tfc_shape_reshape(tfc_shape_ctx *c) {
  if (c->input_shapes[1].rank >= 0 && c->input_shapes[1].rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", c->input_shapes[1].rank);
  tfc_shape req;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 1, &req));
  c->output_shapes[0] = req;
  const tfc_shape *in = &c->input_shapes[0];
  if (req.rank < 0 || in->rank < 0) return TFC_OK;
  int out_unknown, in_unknown;
  int64_t known_out = known_elements(&req, &out_unknown), known_in = known_elements(in, &in_unknown);
  if (out_unknown == -2 || in_unknown == -2) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  if (in_unknown < 0 && out_unknown < 0 && known_in != known_out)
    return tfc_shape_ctx_error(c, "Cannot reshape a tensor with %lld elements to shape %s (%lld elements)",
                               (long long)known_in, tfc_shape_str(&req, buf, sizeof buf), (long long)known_out);
  if (in_unknown < 0 && out_unknown >= 0 && known_out > 0) {
    if (known_in % known_out != 0)
      return tfc_shape_ctx_error(c, "Dimension size must be evenly divisible by %lld but is %lld",
                                 (long long)known_out, (long long)known_in);
    c->output_shapes[0].dims[out_unknown] = known_in / known_out;
  } else if (in_unknown >= 0 && out_unknown < 0 && known_in != 0 && known_out % known_in != 0) {
    return tfc_shape_ctx_error(c, "Dimension size must be evenly divisible by %lld but is %lld",
                               (long long)known_in, (long long)known_out);
  }
  return TFC_OK;
}

int tfc_shape_shape(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_vector(c->input_shapes[0].rank);
  return TFC_OK;
}

int tfc_shape_shape_n(tfc_shape_ctx *c) {
  for (int i = 0; i < c->n_outputs && i < c->n_inputs; i++)
    c->output_shapes[i] = tfc_shape_vector(c->input_shapes[i].rank);
  return TFC_OK;
}

int tfc_shape_expand_dims(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  const tfc_tensor *t = const_in(c, 1);
  if (t && t->n_elems != 1)
    return tfc_shape_ctx_error(c, "'dim' input must be a tensor with a single value");
  if (in->rank < 0) return TFC_OK;
  TFC_TRY(check_rank_le_max(c, in->rank + 1));
  int64_t d;
  if (!const_scalar(c, 1, &d)) {
    c->output_shapes[0] = shape_of_rank(in->rank + 1);
    return TFC_OK;
  }
  if (d < -1 - in->rank || d > in->rank)
    return tfc_shape_ctx_error(c, "dim %lld not in the interval [%d, %d].", (long long)d, -1 - in->rank,
                               in->rank);
  if (d < 0) d += in->rank + 1;
  tfc_shape out;
  out.rank = in->rank + 1;
  for (int i = 0, j = 0; i < out.rank; i++) out.dims[i] = i == d ? 1 : in->dims[j++];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_squeeze(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank < 0) return TFC_OK;
  const tfc_attr_value *sd = tfc_shape_ctx_attr(c, "squeeze_dims");
  int n_sd = sd && sd->kind == TFC_ATTR_LIST ? sd->u.list.n : 0;
  int wanted[TFC_MAX_DIMS] = {0};
  for (int k = 0; k < n_sd; k++) {
    int64_t d = sd->u.list.items[k].u.i;
    if (d < -in->rank || d >= in->rank)
      return tfc_shape_ctx_error(c, "Tried to squeeze dim index %lld for tensor with %d dimensions.",
                                 (long long)d, in->rank);
    wanted[d < 0 ? d + in->rank : d] = 1;
  }
  tfc_shape out;
  out.rank = 0;
  for (int i = 0; i < in->rank; i++) {
    int64_t d = in->dims[i];
    if (n_sd) {
      if (wanted[i]) {
        if (d >= 0 && d != 1)
          return tfc_shape_ctx_error(c, "Can not squeeze dim[%d], expected a dimension of 1, got %lld", i,
                                     (long long)d);
        continue;
      }
    } else {
      if (d == 1) continue;
      if (d < 0) return TFC_OK; /* might be a 1: the rank is unknown */
    }
    out.dims[out.rank++] = d;
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_transpose(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t plen = vector_len(&c->input_shapes[1]);
  if (c->input_shapes[1].rank >= 0 && c->input_shapes[1].rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", c->input_shapes[1].rank);
  if (in->rank >= 0 && plen >= 0 && plen != in->rank)
    return tfc_shape_ctx_error(c, "Dimension must be %d but is %lld", in->rank, (long long)plen);
  int rank = in->rank >= 0 ? in->rank : (int)plen;
  if (rank < 0) return TFC_OK;
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out = shape_of_rank(rank);
  const tfc_tensor *t = const_in(c, 1);
  if (is_int_tensor(t) && t->n_elems == rank) {
    for (int i = 0; i < rank; i++) {
      int64_t p = tfc_tensor_get_i64(t, i);
      if (p < 0 || p >= rank)
        return tfc_shape_ctx_error(c, "perm dim %lld is out of range of input rank %d", (long long)p, rank);
      out.dims[i] = in->rank >= 0 ? in->dims[p] : -1;
    }
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* ---- joining and splitting ---- */

int tfc_shape_concat(tfc_shape_ctx *c) {
  int v2 = c->op->id == TFC_OP_ConcatV2;
  int axis_in = v2 ? c->n_inputs - 1 : 0, first = v2 ? 0 : 1, end = v2 ? c->n_inputs - 1 : c->n_inputs;
  const tfc_shape *ash = &c->input_shapes[axis_in];
  if (ash->rank > 0) return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", ash->rank);
  int rank = -1;
  for (int i = first; i < end; i++) {
    int r = c->input_shapes[i].rank;
    if (r < 0) continue;
    if (rank >= 0 && r != rank)
      return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", rank, r);
    rank = r;
  }
  if (rank < 0) return TFC_OK;
  int64_t axis;
  if (!const_scalar(c, axis_in, &axis)) {
    c->output_shapes[0] = shape_of_rank(rank);
    return TFC_OK;
  }
  if (axis < -rank || axis >= rank)
    return tfc_shape_ctx_error(c, "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld",
                               -rank, rank, (long long)axis);
  if (axis < 0) axis += rank;
  tfc_shape out = shape_of_rank(rank);
  out.dims[axis] = 0;
  const tfc_shape *prev = NULL;
  for (int i = first; i < end; i++) {
    const tfc_shape *s = &c->input_shapes[i];
    if (s->rank < 0) {
      out.dims[axis] = -1;
      continue;
    }
    for (int d = 0; d < rank; d++) {
      if (d == axis) {
        out.dims[d] = out.dims[d] < 0 || s->dims[d] < 0 ? -1 : out.dims[d] + s->dims[d];
        continue;
      }
      int64_t m = merge_dim(out.dims[d], s->dims[d]);
      if (m == -2) {
        char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
        return tfc_shape_ctx_error(c, "Dimension %d in both shapes must be equal, but are %lld and %lld. Shapes are %s and %s.",
                                   d, (long long)out.dims[d], (long long)s->dims[d],
                                   tfc_shape_str(prev, a, sizeof a), tfc_shape_str(s, b, sizeof b));
      }
      out.dims[d] = m;
    }
    prev = s;
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

static void set_all_outputs(tfc_shape_ctx *c, const tfc_shape *s) {
  for (int i = 0; i < c->n_outputs; i++) c->output_shapes[i] = *s;
}

static int split_axis(tfc_shape_ctx *c, int64_t d, int rank, int64_t *out) {
  if (d < -rank || d >= rank)
    return tfc_shape_ctx_error(c, "-input rank(-%d) <= split_dim < input rank (%d), but got %lld", rank, rank,
                               (long long)d);
  *out = d < 0 ? d + rank : d;
  return TFC_OK;
}

int tfc_shape_split(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[1];
  if (in->rank < 0) return TFC_OK;
  int64_t d;
  tfc_shape out = shape_of_rank(in->rank);
  if (!const_scalar(c, 0, &d)) {
    set_all_outputs(c, &out);
    return TFC_OK;
  }
  TFC_TRY(split_axis(c, d, in->rank, &d));
  int n = c->n_outputs;
  out = *in;
  if (in->dims[d] >= 0) {
    if (in->dims[d] % n != 0)
      return tfc_shape_ctx_error(c, "Dimension size must be evenly divisible by %d but is %lld", n,
                                 (long long)in->dims[d]);
    out.dims[d] = in->dims[d] / n;
  }
  set_all_outputs(c, &out);
  return TFC_OK;
}

int tfc_shape_split_v(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank < 0) return TFC_OK;
  int64_t d;
  tfc_shape out = shape_of_rank(in->rank);
  if (!const_scalar(c, 2, &d)) {
    set_all_outputs(c, &out);
    return TFC_OK;
  }
  TFC_TRY(split_axis(c, d, in->rank, &d));
  out = *in;
  out.dims[d] = -1;
  const tfc_tensor *t = const_in(c, 1);
  if (!is_int_tensor(t)) {
    set_all_outputs(c, &out);
    return TFC_OK;
  }
  if (t->n_elems != c->n_outputs)
    return tfc_shape_ctx_error(c, "Number of split values (%lld) must equal num_split (%d)",
                               (long long)t->n_elems, c->n_outputs);
  int64_t sum = 0;
  int neg = -1;
  for (int i = 0; i < c->n_outputs; i++) {
    int64_t v = tfc_tensor_get_i64(t, i);
    if (v == -1) {
      if (neg >= 0) return tfc_shape_ctx_error(c, "Cannot infer multiple unknown dimensions for SplitV");
      neg = i;
    } else if (v < 0) {
      return tfc_shape_ctx_error(c, "Split size at index %d must be >= 0. Got: %lld", i, (long long)v);
    } else {
      sum += v;
    }
  }
  int64_t total = in->dims[d];
  if (total >= 0 && (neg < 0 ? sum != total : sum > total))
    return tfc_shape_ctx_error(c, "Sum of output sizes must match the size of the original Tensor along the "
                               "split dimension or the sum of the positive sizes must be less if it contains a -1");
  for (int i = 0; i < c->n_outputs; i++) {
    int64_t v = tfc_tensor_get_i64(t, i);
    out.dims[d] = v >= 0 ? v : (total >= 0 ? total - sum : -1);
    c->output_shapes[i] = out;
  }
  return TFC_OK;
}

int tfc_shape_pack(tfc_shape_ctx *c) {
  tfc_shape m = tfc_shape_unknown();
  for (int i = 0; i < c->n_inputs; i++) {
    const tfc_shape *x = &c->input_shapes[i];
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    if (m.rank >= 0 && x->rank >= 0 && m.rank != x->rank)
      return tfc_shape_ctx_error(c, "Shapes must be equal rank, but are %d and %d\n\tFrom merging shape 0 with other shapes.",
                                 m.rank, x->rank);
    for (int d = 0; m.rank >= 0 && d < x->rank; d++)
      if (merge_dim(m.dims[d], x->dims[d]) == -2)
        return tfc_shape_ctx_error(c, "Dimension %d in both shapes must be equal, but are %lld and %lld. Shapes are %s and %s.\n\tFrom merging shape 0 with other shapes.",
                                   d, (long long)m.dims[d], (long long)x->dims[d], tfc_shape_str(&m, a, sizeof a),
                                   tfc_shape_str(x, b, sizeof b));
    tfc_shape r;
    tfc_shape_merge(&m, x, &r);
    m = r;
  }
  if (m.rank < 0) return TFC_OK;
  int rank = m.rank + 1;
  TFC_TRY(check_rank_le_max(c, rank));
  int64_t axis = tfc_shape_ctx_attr_int(c, "axis", 0);
  if (axis < -rank || axis >= rank)
    return tfc_shape_ctx_error(c, "Invalid axis: %lld; must be in [%d,%d)", (long long)axis, -rank, rank);
  if (axis < 0) axis += rank;
  tfc_shape out;
  out.rank = rank;
  for (int i = 0, j = 0; i < rank; i++) out.dims[i] = i == axis ? c->n_inputs : m.dims[j++];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_unpack(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank < 0) return TFC_OK;
  int rank = in->rank;
  int64_t axis = tfc_shape_ctx_attr_int(c, "axis", 0);
  if (axis < -rank || axis >= rank)
    return tfc_shape_ctx_error(c, "Invalid axis: %lld; must be in [%d,%d)", (long long)axis, -rank, rank);
  if (axis < 0) axis += rank;
  if (in->dims[axis] >= 0 && in->dims[axis] != c->n_outputs)
    return tfc_shape_ctx_error(c, "Dimension must be %d but is %lld", c->n_outputs, (long long)in->dims[axis]);
  tfc_shape out;
  out.rank = rank - 1;
  for (int i = 0, j = 0; i < rank; i++)
    if (i != axis) out.dims[j++] = in->dims[i];
  set_all_outputs(c, &out);
  return TFC_OK;
}

/* ---- slicing ---- */

int tfc_shape_slice(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t nb = vector_len(&c->input_shapes[1]), ns = vector_len(&c->input_shapes[2]);
  int rank = in->rank >= 0 ? in->rank : (nb >= 0 ? (int)nb : (int)ns);
  if (rank < 0) return TFC_OK;
  const tfc_tensor *tb = const_in(c, 1), *ts = const_in(c, 2);
  if ((nb >= 0 && nb != rank) || (ns >= 0 && ns != rank)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_shape_ctx_error(c, "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes %s and %s instead.",
                               rank, tfc_shape_str(&c->input_shapes[1], a, sizeof a),
                               tfc_shape_str(&c->input_shapes[2], b, sizeof b));
  }
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out = shape_of_rank(rank);
  if (!is_int_tensor(ts)) {
    /* TF reads an unknown size as a partial shape: its known entries are output dims (-1 and
     * unknown entries unknown). */
    tfc_shape sz;
    TFC_TRY(tfc_shape_ctx_input_as_shape(c, 2, &sz));
    if (sz.rank == rank) out = sz;
  }
  if (is_int_tensor(ts) && ts->n_elems == rank) {
    int have_b = is_int_tensor(tb) && tb->n_elems == rank;
    for (int i = 0; i < rank; i++) {
      int64_t s = tfc_tensor_get_i64(ts, i), dim = in->rank >= 0 ? in->dims[i] : -1;
      int64_t b = have_b ? tfc_tensor_get_i64(tb, i) : -1;
      if (have_b && dim >= 0 && (b < 0 || b > dim))
        return tfc_shape_ctx_error(c, "Expected begin[%d] in [0, %lld], but got %lld", i, (long long)dim,
                                   (long long)b);
      if (s == -1) {
        out.dims[i] = have_b && dim >= 0 ? dim - b : -1;
        continue;
      }
      if (s < 0 || (have_b && dim >= 0 && b + s > dim))
        return tfc_shape_ctx_error(c, "Expected size[%d] in [0, %lld], but got %lld", i,
                                   (long long)(have_b && dim >= 0 ? dim - b : dim), (long long)s);
      out.dims[i] = s;
    }
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_strided_slice_resolve(const tfc_strided_slice_spec *sp, const int64_t *in_dims, int in_rank,
                              tfc_strided_slice_plan *out, char *err, size_t err_n) {
  int n = sp->n;
  if (n > TFC_MAX_DIMS) {
    snprintf(err, err_n, "StridedSlice spec of %d entries exceeds the maximum rank %d", n, TFC_MAX_DIMS);
    return -1;
  }
  /* Step 1: find the ellipsis (an implicit one follows the last entry when none is given). */
  int ellipsis_at = -1;
  for (int i = 0; i < n; i++)
    if (sp->ellipsis_mask & ((int64_t)1 << i)) {
      if (ellipsis_at >= 0) {
        snprintf(err, err_n, "Multiple ellipses in slice spec not allowed");
        return -1;
      }
      ellipsis_at = i;
    }
  int n_sparse = n, implicit = ellipsis_at < 0;
  if (implicit) ellipsis_at = n_sparse++;
  int new_after = 0;
  for (int i = ellipsis_at + 1; i < n; i++)
    if (sp->new_axis_mask & ((int64_t)1 << i)) new_after++;

  /* Step 2: expand to one entry per input dim. Each dense dim records its sparse entry (or -1:
   * taken whole); `final_src` lists, per final dim, a dense dim or -1 for a new axis. */
  int src[TFC_MAX_DIMS], final_src[2 * TFC_MAX_DIMS + 1], n_final = 0;
  int j = 0;
  for (int i = 0; i < n_sparse; i++) {
    if (i == ellipsis_at) {
      int stop = in_rank - (n_sparse - i) + 1 + new_after;
      if (stop > in_rank) stop = in_rank;
      for (; j < stop; j++) {
        src[j] = -1;
        final_src[n_final++] = j;
      }
      continue;
    }
    int64_t bit = (int64_t)1 << i;
    if (sp->new_axis_mask & bit) {
      final_src[n_final++] = -1;
      continue;
    }
    if (j >= in_rank) {
      snprintf(err, err_n, "Index out of range using input dim %d; input has only %d dims", j, in_rank);
      return -1;
    }
    src[j] = i;
    if (!(sp->shrink_axis_mask & bit)) final_src[n_final++] = j;
    j++;
  }
  /* Dims after the last entry (only when an explicit ellipsis came too early) are whole. */
  for (; j < in_rank; j++) {
    src[j] = -1;
    final_src[n_final++] = j;
  }

  /* Step 3: canonicalize each dense dim. */
  out->rank = in_rank;
  out->is_identity = 1;
  for (int d = 0; d < in_rank; d++) {
    int64_t dim = in_dims[d];
    int i = src[d];
    if (i < 0) {
      out->begin[d] = 0;
      out->stride[d] = 1;
      out->processing[d] = dim;
      continue;
    }
    int64_t bit = (int64_t)1 << i, stride = sp->strides[i];
    if (stride == 0) {
      snprintf(err, err_n, "strides[%d] must be non-zero", i);
      return -1;
    }
    out->stride[d] = stride;
    if (sp->shrink_axis_mask & bit) {
      out->is_identity = 0;
      out->processing[d] = 1;
      out->stride[d] = 1;
      if (stride < 0) {
        snprintf(err, err_n, "only stride 1 allowed on non-range indexing.");
        return -1;
      }
      if (!sp->begin) {
        out->begin[d] = -1;
        continue;
      }
      int64_t x = sp->begin[i];
      if (dim >= 0) {
        int64_t fx = x < 0 ? x + dim : x;
        if (fx < 0 || fx >= dim) {
          snprintf(err, err_n, "slice index %lld of dimension %d out of bounds.", (long long)x, d);
          return -1;
        }
        x = fx;
      }
      out->begin[d] = x;
      continue;
    }
    int bm = (sp->begin_mask & bit) != 0, em = (sp->end_mask & bit) != 0;
    if (dim < 0 || (!bm && !sp->begin) || (!em && !sp->end)) {
      out->begin[d] = 0;
      out->processing[d] = -1;
      out->is_identity = 0;
      continue;
    }
    /* Valid positions: [0, dim] going forward, [-1, dim-1] going backward. */
    int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    int64_t b, e;
    if (bm) {
      b = stride > 0 ? lo : hi;
    } else {
      b = sp->begin[i];
      if (b < 0) b += dim;
      b = b < lo ? lo : (b > hi ? hi : b);
    }
    if (em) {
      e = stride > 0 ? hi : lo;
    } else {
      e = sp->end[i];
      if (e < 0) e += dim;
      e = e < lo ? lo : (e > hi ? hi : e);
    }
    int64_t size;
    if (stride > 0) size = e > b ? (e - b + stride - 1) / stride : 0;
    else size = b > e ? (b - e + (-stride) - 1) / (-stride) : 0;
    out->begin[d] = b;
    out->processing[d] = size;
    if (!(b == 0 && stride == 1 && size == dim)) out->is_identity = 0;
  }
  if (n_final > TFC_MAX_DIMS) {
    snprintf(err, err_n, "StridedSlice output rank %d exceeds the maximum rank %d", n_final, TFC_MAX_DIMS);
    return -1;
  }
  out->final_rank = n_final;
  for (int f = 0; f < n_final; f++)
    out->final_dims[f] = final_src[f] < 0 ? 1 : out->processing[final_src[f]];
  return 0;
}

int tfc_shape_strided_slice(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  const tfc_tensor *tb = const_in(c, 1), *te = const_in(c, 2), *ts = const_in(c, 3);
  if (in->rank < 0 || !is_int_tensor(ts) || ts->n_elems > TFC_MAX_DIMS || ts->ndims != 1) return TFC_OK;
  int n = (int)ts->n_elems;
  int64_t b[TFC_MAX_DIMS], e[TFC_MAX_DIMS], st[TFC_MAX_DIMS];
  int have_b = is_int_tensor(tb) && tb->n_elems == n, have_e = is_int_tensor(te) && te->n_elems == n;
  for (int i = 0; i < n; i++) {
    st[i] = tfc_tensor_get_i64(ts, i);
    b[i] = have_b ? tfc_tensor_get_i64(tb, i) : 0;
    e[i] = have_e ? tfc_tensor_get_i64(te, i) : 0;
  }
  tfc_strided_slice_spec sp = {.n = n,
                               .begin = have_b ? b : NULL,
                               .end = have_e ? e : NULL,
                               .strides = st,
                               .begin_mask = tfc_shape_ctx_attr_int(c, "begin_mask", 0),
                               .end_mask = tfc_shape_ctx_attr_int(c, "end_mask", 0),
                               .ellipsis_mask = tfc_shape_ctx_attr_int(c, "ellipsis_mask", 0),
                               .new_axis_mask = tfc_shape_ctx_attr_int(c, "new_axis_mask", 0),
                               .shrink_axis_mask = tfc_shape_ctx_attr_int(c, "shrink_axis_mask", 0)};
  tfc_strided_slice_plan plan;
  char err[256];
  if (tfc_strided_slice_resolve(&sp, in->dims, in->rank, &plan, err, sizeof err))
    return tfc_shape_ctx_error(c, "%s", err);
  c->output_shapes[0] = tfc_shape_make(plan.final_dims, plan.final_rank);
  return TFC_OK;
}

/* ---- making tensors ---- */

/* TF's order: the ranks, the dims read as a shape (its errors first, as TF's refiner gives
 * them before the function sees the value), then a known value's negative dims. */
int tfc_shape_fill(tfc_shape_ctx *c) {
  if (c->input_shapes[0].rank >= 0 && c->input_shapes[0].rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", c->input_shapes[0].rank);
  if (c->input_shapes[1].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[1].rank);
  tfc_shape out;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 0, &out));
  const tfc_tensor *t = const_in(c, 0);
  if (is_int_tensor(t))
    for (int64_t i = 0; i < t->n_elems; i++)
      if (tfc_tensor_get_i64(t, i) < 0) return tfc_shape_ctx_error(c, "Fill dimensions must be >= 0");
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_range(tfc_shape_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (c->input_shapes[i].rank > 0)
      return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[i].rank);
  c->output_shapes[0] = tfc_shape_vector(-1);
  const tfc_tensor *t[3] = {const_in(c, 0), const_in(c, 1), const_in(c, 2)};
  if (!t[0] || !t[1] || !t[2] || t[0]->n_elems != 1 || t[1]->n_elems != 1 || t[2]->n_elems != 1)
    return TFC_OK;
  int dt = t[0]->dtype;
  int64_t size;
  if (dt == TFC_DT_INT32 || dt == TFC_DT_INT64) {
    int64_t s = tfc_tensor_get_i64(t[0], 0), l = tfc_tensor_get_i64(t[1], 0), d = tfc_tensor_get_i64(t[2], 0);
    if (d == 0) return tfc_shape_ctx_error(c, "Requires delta != 0: 0");
    if (d > 0 && s > l)
      return tfc_shape_ctx_error(c, "Requires start <= limit when delta > 0: %lld/%lld", (long long)s, (long long)l);
    if (d < 0 && s < l)
      return tfc_shape_ctx_error(c, "Requires start >= limit when delta < 0: %lld/%lld", (long long)s, (long long)l);
    uint64_t span = d > 0 ? (uint64_t)l - (uint64_t)s : (uint64_t)s - (uint64_t)l;
    uint64_t ad = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
    size = (int64_t)(span / ad + (span % ad != 0));
  } else if (dt == TFC_DT_FLOAT || dt == TFC_DT_DOUBLE) {
    double s = tfc_tensor_get_f64(t[0], 0), l = tfc_tensor_get_f64(t[1], 0), d = tfc_tensor_get_f64(t[2], 0);
    if (d == 0) return tfc_shape_ctx_error(c, "Requires delta != 0: 0");
    if (d > 0 && s > l) return tfc_shape_ctx_error(c, "Requires start <= limit when delta > 0: %g/%g", s, l);
    if (d < 0 && s < l) return tfc_shape_ctx_error(c, "Requires start >= limit when delta < 0: %g/%g", s, l);
    /* The kernel computes the count in the element type; do the same so they agree. */
    if (dt == TFC_DT_FLOAT) size = (int64_t)ceilf(fabsf(((float)l - (float)s) / (float)d));
    else size = (int64_t)ceil(fabs((l - s) / d));
  } else {
    return TFC_OK;
  }
  c->output_shapes[0] = tfc_shape_vector(size);
  return TFC_OK;
}

/* TF's Multiply of two dims (-1 unknown): 0 and 1 decide even against an unknown. */
static int64_t mul_dim(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a == 1) return b;
  if (b == 1) return a;
  return a < 0 || b < 0 ? -1 : a * b;
}

int tfc_shape_tile(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t mlen = vector_len(&c->input_shapes[1]);
  if (c->input_shapes[1].rank >= 0 && c->input_shapes[1].rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", c->input_shapes[1].rank);
  if (in->rank >= 0 && mlen >= 0 && mlen != in->rank)
    return tfc_shape_ctx_error(c, "Dimension must be %d but is %lld", in->rank, (long long)mlen);
  /* multiples read as a partial shape, as TF does: a known entry is known even when others are not */
  tfc_shape m;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 1, &m));
  if (m.rank >= 0 && in->rank >= 0 && m.rank != in->rank)
    return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", in->rank, m.rank);
  int rank = in->rank >= 0 ? in->rank : m.rank;
  if (rank < 0) return TFC_OK;
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out = shape_of_rank(rank);
  for (int i = 0; i < rank; i++)
    out.dims[i] = mul_dim(in->rank >= 0 ? in->dims[i] : -1, m.rank >= 0 ? m.dims[i] : -1);
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* ---- gathering and broadcasting ---- */

int tfc_shape_gather_v2(tfc_shape_ctx *c) {
  const tfc_shape *p = &c->input_shapes[0], *ix = &c->input_shapes[1];
  if (p->rank == 0) return tfc_shape_ctx_error(c, "Shape must be at least rank 1 but is rank 0");
  if (p->rank < 0 || ix->rank < 0) return TFC_OK;
  int64_t bd = tfc_shape_ctx_attr_int(c, "batch_dims", 0);
  if (bd < 0) bd += ix->rank;
  int rank = p->rank + ix->rank - 1 - (int)bd;
  if (bd < 0 || bd > ix->rank || rank < 0) return TFC_OK; /* the kernel reports it */
  TFC_TRY(check_rank_le_max(c, rank));
  int64_t axis;
  if (!const_scalar(c, 2, &axis)) {
    c->output_shapes[0] = shape_of_rank(rank);
    return TFC_OK;
  }
  if (axis < -p->rank || axis >= p->rank)
    return tfc_shape_ctx_error(c, "Expected axis in the range [%d, %d), but got %lld", -p->rank, p->rank,
                               (long long)axis);
  if (axis < 0) axis += p->rank;
  tfc_shape out;
  out.rank = 0;
  for (int i = 0; i < axis; i++) out.dims[out.rank++] = p->dims[i];
  for (int i = (int)bd; i < ix->rank; i++) out.dims[out.rank++] = ix->dims[i];
  for (int i = (int)axis + 1; i < p->rank; i++) out.dims[out.rank++] = p->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_gather(tfc_shape_ctx *c) {
  const tfc_shape *p = &c->input_shapes[0], *ix = &c->input_shapes[1];
  if (p->rank == 0) return tfc_shape_ctx_error(c, "Shape must be at least rank 1 but is rank 0");
  if (p->rank < 0 || ix->rank < 0) return TFC_OK;
  tfc_shape out;
  out.rank = 0;
  TFC_TRY(check_rank_le_max(c, ix->rank + p->rank - 1));
  for (int i = 0; i < ix->rank; i++) out.dims[out.rank++] = ix->dims[i];
  for (int i = 1; i < p->rank; i++) out.dims[out.rank++] = p->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_broadcast_to(tfc_shape_ctx *c) {
  tfc_shape out;
  TFC_TRY(tfc_shape_ctx_input_as_shape(c, 1, &out));
  const tfc_shape *in = &c->input_shapes[0];
  if (out.rank >= 0 && in->rank >= 0) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    if (in->rank > out.rank)
      return tfc_shape_ctx_error(c, "Rank of input (%d) must be no greater than rank of output shape (%d).",
                                 in->rank, out.rank);
    for (int i = 0; i < in->rank; i++) {
      int64_t di = in->dims[i], *dout = &out.dims[out.rank - in->rank + i];
      if (di < 0 || di == 1) continue;
      if (*dout < 0) *dout = di;
      else if (*dout != di)
        return tfc_shape_ctx_error(c, "Incompatible shapes: %s vs. %s", tfc_shape_str(in, a, sizeof a),
                                   tfc_shape_str(&out, b, sizeof b));
    }
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_broadcast_gradient_args(tfc_shape_ctx *c) {
  for (int i = 0; i < 2; i++)
    if (c->input_shapes[i].rank >= 0 && c->input_shapes[i].rank != 1)
      return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", c->input_shapes[i].rank);
  c->output_shapes[0] = tfc_shape_vector(-1);
  c->output_shapes[1] = tfc_shape_vector(-1);
  return TFC_OK;
}

int tfc_shape_broadcast_args(tfc_shape_ctx *c) {
  int64_t n[2];
  for (int i = 0; i < 2; i++) {
    const tfc_shape *s = &c->input_shapes[i];
    if (s->rank >= 0 && s->rank != 1) return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", s->rank);
    n[i] = s->rank == 1 ? s->dims[0] : -1;
  }
  c->output_shapes[0] = tfc_shape_vector(n[0] >= 0 && n[1] >= 0 ? (n[0] > n[1] ? n[0] : n[1]) : -1);
  return TFC_OK;
}

/* ---- padding, segments, permutations, gradients of slicing, one-hot ---- */

/* Pad, PadV2, MirrorPad: paddings is [rank, 2]; a const paddings gives exact dims (TF's
 * PadShapeFn; PadV2 also wants a scalar constant_values). */
int tfc_shape_pad(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0], *ps = &c->input_shapes[1];
  if (c->n_inputs == 3 && c->input_shapes[2].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[2].rank);
  if (ps->rank >= 0 && ps->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", ps->rank);
  if (ps->rank == 2 && ps->dims[1] >= 0 && ps->dims[1] != 2)
    return tfc_shape_ctx_error(c, "Dimension must be 2 but is %lld", (long long)ps->dims[1]);
  int64_t n_dim = ps->rank == 2 ? ps->dims[0] : -1;
  if (n_dim >= 0 && in->rank >= 0 && in->rank != n_dim)
    return tfc_shape_ctx_error(c, "Shape must be rank %lld but is rank %d", (long long)n_dim, in->rank);
  int rank = in->rank >= 0 ? in->rank : (int)n_dim;
  if (rank < 0) return TFC_OK;
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out = shape_of_rank(rank);
  const tfc_tensor *t = const_in(c, 1);
  if (is_int_tensor(t) && t->n_elems == 2 * (int64_t)rank) {
    for (int i = 0; i < rank; i++) {
      int64_t a = tfc_tensor_get_i64(t, 2 * i), b = tfc_tensor_get_i64(t, 2 * i + 1);
      if (a < 0 || b < 0) return tfc_shape_ctx_error(c, "Paddings must be non-negative");
      out.dims[i] = in->rank >= 0 && in->dims[i] >= 0 ? in->dims[i] + a + b : -1;
    }
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_mirror_pad_grad(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0], *ps = &c->input_shapes[1];
  if (ps->rank >= 0 && ps->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", ps->rank);
  if (in->rank < 0) return TFC_OK;
  tfc_shape out = shape_of_rank(in->rank);
  const tfc_tensor *t = const_in(c, 1);
  if (is_int_tensor(t) && t->n_elems == 2 * (int64_t)in->rank)
    for (int i = 0; i < in->rank; i++) {
      int64_t a = tfc_tensor_get_i64(t, 2 * i), b = tfc_tensor_get_i64(t, 2 * i + 1);
      if (a < 0 || b < 0) return tfc_shape_ctx_error(c, "Paddings must be non-negative");
      if (in->dims[i] >= 0 && in->dims[i] < a + b)
        return tfc_shape_ctx_error(c, "Dimension %d of input (%lld) is smaller than its paddings (%lld + %lld)", i,
                                   (long long)in->dims[i], (long long)a, (long long)b);
      out.dims[i] = in->dims[i] >= 0 ? in->dims[i] - a - b : -1;
    }
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* [num_segments] + data.shape[rank(segment_ids):], the ids' shape a prefix of data's. */
int tfc_shape_unsorted_segment(tfc_shape_ctx *c) {
  const tfc_shape *data = &c->input_shapes[0], *ids = &c->input_shapes[1];
  if (c->input_shapes[2].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[2].rank);
  if (ids->rank < 0) return TFC_OK;
  if (data->rank >= 0 && data->rank < ids->rank)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", ids->rank, data->rank);
  for (int i = 0; data->rank >= 0 && i < ids->rank; i++)
    if (merge_dim(data->dims[i], ids->dims[i]) == -2) {
      char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
      tfc_shape pre = tfc_shape_make(data->dims, ids->rank);
      return tfc_shape_ctx_error(c, "Dimension %d in both shapes must be equal, but are %lld and %lld. Shapes are %s and %s.",
                                 i, (long long)data->dims[i], (long long)ids->dims[i],
                                 tfc_shape_str(&pre, a, sizeof a), tfc_shape_str(ids, b, sizeof b));
    }
  int64_t n = -1;
  if (const_scalar(c, 2, &n) && n < 0)
    return tfc_shape_ctx_error(c, "Dimension size, given by scalar input 2, must be non-negative but is %lld",
                               (long long)n);
  if (data->rank < 0) return TFC_OK;
  int rank = 1 + data->rank - ids->rank;
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out;
  out.rank = rank;
  out.dims[0] = n;
  for (int i = ids->rank; i < data->rank; i++) out.dims[1 + i - ids->rank] = data->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_invert_permutation(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0];
  if (in->rank >= 0 && in->rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", in->rank);
  c->output_shapes[0] = tfc_shape_vector(in->rank == 1 ? in->dims[0] : -1);
  return TFC_OK;
}

/* The output is shaped by the `shape` input (TF: MakeShapeFromShapeTensor). */
int tfc_shape_strided_slice_grad(tfc_shape_ctx *c) {
  return tfc_shape_ctx_input_as_shape(c, 0, &c->output_shapes[0]);
}

/* Each offset has the shape of its shape input. */
int tfc_shape_concat_offset(tfc_shape_ctx *c) {
  for (int i = 0; i < c->n_outputs && i + 1 < c->n_inputs; i++) c->output_shapes[i] = c->input_shapes[i + 1];
  return TFC_OK;
}

/* indices.shape with depth inserted at axis (-1: last). */
int tfc_shape_one_hot(tfc_shape_ctx *c) {
  int64_t axis = tfc_shape_ctx_attr_int(c, "axis", -1);
  if (axis < -1) return tfc_shape_ctx_error(c, "axis must be >= -1");
  if (c->input_shapes[1].rank > 0)
    return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[1].rank);
  int64_t depth = -1;
  if (const_scalar(c, 1, &depth) && depth < 0)
    return tfc_shape_ctx_error(c, "Dimension size, given by scalar input 1, must be non-negative but is %lld",
                               (long long)depth);
  const tfc_shape *ix = &c->input_shapes[0];
  if (ix->rank < 0) return TFC_OK;
  int rank = ix->rank + 1;
  TFC_TRY(check_rank_le_max(c, rank));
  int at = (int)((axis + rank) % rank);
  tfc_shape out;
  out.rank = rank;
  for (int i = 0, j = 0; i < rank; i++) out.dims[i] = i == at ? depth : ix->dims[j++];
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* TF's DynamicStitch shape function: each data[i] must start with indices[i]'s shape (known
 * parts), the rests must merge, and the first dim is max index + 1 when every indices input
 * is constant (no index: 0). */
int tfc_shape_dynamic_stitch(tfc_shape_ctx *c) {
  int n = c->n_inputs / 2, all_const = 1;
  int64_t max_index = -1;
  tfc_shape extra = tfc_shape_unknown();
  for (int i = 0; i < n; i++) {
    const tfc_tensor *t = tfc_shape_ctx_input_tensor(c, i);
    if (!t) all_const = 0;
    const tfc_shape *ix = &c->input_shapes[i], *data = &c->input_shapes[n + i];
    if (ix->rank < 0) continue;
    tfc_shape rest = tfc_shape_unknown();
    if (data->rank >= 0) {
      if (data->rank < ix->rank)
        return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", ix->rank, data->rank);
      for (int d = 0; d < ix->rank; d++)
        if (data->dims[d] >= 0 && ix->dims[d] >= 0 && data->dims[d] != ix->dims[d])
          return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)data->dims[d],
                                     (long long)ix->dims[d]);
      rest = tfc_shape_make(data->dims + ix->rank, data->rank - ix->rank);
    }
    if (extra.rank >= 0 && rest.rank >= 0) {
      if (extra.rank != rest.rank)
        return tfc_shape_ctx_error(c, "Shapes must be equal rank, but are %d and %d", extra.rank, rest.rank);
      for (int d = 0; d < rest.rank; d++)
        if (extra.dims[d] >= 0 && rest.dims[d] >= 0 && extra.dims[d] != rest.dims[d]) {
          char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
          return tfc_shape_ctx_error(c, "Dimension %d in both shapes must be equal, but are %lld and %lld. Shapes are %s and %s.",
                                     d, (long long)extra.dims[d], (long long)rest.dims[d],
                                     tfc_shape_str(&extra, a, sizeof a), tfc_shape_str(&rest, b, sizeof b));
        }
    }
    tfc_shape merged;
    if (tfc_shape_merge(&extra, &rest, &merged) == 0) extra = merged;
    if (t && t->dtype == TFC_DT_INT32)
      for (int64_t k = 0; k < t->n_elems; k++)
        if (((const int32_t *)t->data)[k] > max_index) max_index = ((const int32_t *)t->data)[k];
  }
  if (extra.rank < 0) return TFC_OK; /* unknown rank */
  if (extra.rank + 1 > TFC_MAX_DIMS) return check_rank_le_max(c, extra.rank + 1);
  tfc_shape out;
  out.rank = extra.rank + 1;
  out.dims[0] = all_const ? max_index + 1 : -1;
  memcpy(out.dims + 1, extra.dims, sizeof(int64_t) * (size_t)extra.rank);
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* ---- reversals ---- */

/* ReverseV2: axis a vector; with a constant axis and a known rank, each axis in range and
 * named once (TF's texts, including its unclosed "[0, r-1"). The output is the input's shape. */
int tfc_shape_reverse_v2(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0], *ax = &c->input_shapes[1];
  if (ax->rank >= 0 && ax->rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", ax->rank);
  const tfc_tensor *t = const_in(c, 1);
  if (is_int_tensor(t) && in->rank >= 0) {
    int seen[TFC_MAX_DIMS] = {0};
    for (int64_t i = 0; i < t->n_elems; i++) {
      int64_t a = tfc_tensor_get_i64(t, i), canon = a < 0 ? a + in->rank : a;
      if (canon < 0 || canon >= in->rank)
        return tfc_shape_ctx_error(c, "'axis'[%lld] = %lld is out of valid range [0, %d", (long long)i, (long long)a,
                                   in->rank - 1);
      if (seen[canon]) return tfc_shape_ctx_error(c, "axis %lld specified more than once.", (long long)canon);
      seen[canon] = 1;
    }
  }
  c->output_shapes[0] = *in;
  return TFC_OK;
}

/* ReverseSequence: seq_lengths a vector; with a known rank, both dims in range and the batch
 * dim merged with len(seq_lengths). */
int tfc_shape_reverse_sequence(tfc_shape_ctx *c) {
  const tfc_shape *in = &c->input_shapes[0], *lens = &c->input_shapes[1];
  if (lens->rank >= 0 && lens->rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", lens->rank);
  if (in->rank < 0) return TFC_OK;
  int64_t sd = tfc_shape_ctx_attr_int(c, "seq_dim", 0), bd = tfc_shape_ctx_attr_int(c, "batch_dim", 0);
  if (bd >= in->rank) return tfc_shape_ctx_error(c, "batch_dim must be < input rank: %lld vs. %d", (long long)bd, in->rank);
  if (sd >= in->rank) return tfc_shape_ctx_error(c, "seq_dim must be < input rank: %lld vs. %d", (long long)sd, in->rank);
  tfc_shape out = *in;
  if (bd >= 0) {
    int64_t b = in->dims[bd], n = lens->rank == 1 ? lens->dims[0] : -1;
    if (b >= 0 && n >= 0 && b != n)
      return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)b, (long long)n);
    out.dims[bd] = b >= 0 ? b : n;
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* Where: a matrix with one row per true entry (unknown count) and one column per input dim. */
int tfc_shape_where(tfc_shape_ctx *c) {
  const int64_t dims[2] = {-1, c->input_shapes[0].rank};
  c->output_shapes[0] = tfc_shape_make(dims, 2);
  return TFC_OK;
}

/* GatherNd (TF's GatherNdShape): params and indices rank >= 1; with params' rank and r =
 * indices.shape[-1] known, the output is indices.shape[:-1] + params.shape[r:]. */
int tfc_shape_gather_nd(tfc_shape_ctx *c) {
  const tfc_shape *p = &c->input_shapes[0], *ix = &c->input_shapes[1];
  if (p->rank == 0 || ix->rank == 0)
    return tfc_shape_ctx_error(c, "Shape must be at least rank 1 but is rank 0");
  if (p->rank < 0 || ix->rank < 0 || ix->dims[ix->rank - 1] < 0) return TFC_OK;
  int64_t r = ix->dims[ix->rank - 1];
  if (r > p->rank) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_shape_ctx_error(c, "indices.shape[-1] must be <= params.rank, but saw indices shape: %s and params "
                                  "shape: %s", tfc_shape_str(ix, a, sizeof a), tfc_shape_str(p, b, sizeof b));
  }
  int rank = ix->rank - 1 + p->rank - (int)r;
  TFC_TRY(check_rank_le_max(c, rank));
  tfc_shape out;
  out.rank = rank;
  int j = 0;
  for (int i = 0; i < ix->rank - 1; i++) out.dims[j++] = ix->dims[i];
  for (int i = (int)r; i < p->rank; i++) out.dims[j++] = p->dims[i];
  c->output_shapes[0] = out;
  return TFC_OK;
}

/* LinSpace: scalar start, stop and num; the output is [num] (num > 0) when num is const. */
int tfc_shape_lin_space(tfc_shape_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (c->input_shapes[i].rank > 0)
      return tfc_shape_ctx_error(c, "Shape must be rank 0 but is rank %d", c->input_shapes[i].rank);
  int64_t num = -1;
  if (const_scalar(c, 2, &num) && num <= 0) return tfc_shape_ctx_error(c, "Requires num > 0: %lld", (long long)num);
  c->output_shapes[0] = tfc_shape_vector(num);
  return TFC_OK;
}

/* DynamicPartition (TF's DynamicPartitionShape): data's shape starts with partitions'; every
 * output is [?] followed by the rest of data's dims. Unknown partitions rank: unknown. */
int tfc_shape_dynamic_partition(tfc_shape_ctx *c) {
  const tfc_shape *data = &c->input_shapes[0], *part = &c->input_shapes[1];
  if (part->rank < 0) return TFC_OK;
  tfc_shape out = tfc_shape_unknown();
  if (data->rank >= 0) {
    if (data->rank < part->rank)
      return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", part->rank, data->rank);
    for (int d = 0; d < part->rank; d++)
      if (merge_dim(data->dims[d], part->dims[d]) == -2)
        return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)data->dims[d],
                                   (long long)part->dims[d]);
    int rank = 1 + data->rank - part->rank;
    out.rank = rank;
    out.dims[0] = -1;
    for (int d = 1; d < rank; d++) out.dims[d] = data->dims[part->rank + d - 1];
  }
  for (int i = 0; i < c->n_outputs; i++) c->output_shapes[i] = out;
  return TFC_OK;
}
