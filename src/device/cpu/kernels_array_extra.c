/*
 * kernels_array_extra — CPU kernels of the array ops the gradient builders and input
 * pipelines need: Pad, PadV2 and MirrorPad (one padded copy), UnsortedSegmentSum,
 * InvertPermutation, StridedSliceGrad (a strided scatter into zeros), ConcatOffset, OneHot,
 * GatherNd and Where (the coordinates of nonzero entries, for boolean_mask and one-argument
 * where). Registered by tfc_cpu_kernels_array (kernels_array.c), which also gets the scan
 * kernels (Cumsum, Cumprod; kernels_scan.c) and DynamicStitch (kernels_stitch.c) through
 * tfc_cpu_kernels_array_extra.
 *
 * The data-moving kernels (the pads, StridedSliceGrad, OneHot) move elements as bytes, so one
 * body serves every fixed-size type; string tensors are not supported by them (TF has string
 * Pad kernels; no tfc client needs them). UnsortedSegmentSum adds, so it is typed: float,
 * double, int32 and int64. Error texts are TF 1.15's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"
#include "ops/shape_array.h"
#include "tensor/dtype.h"


/* Writes "i,j,k" (the coordinates of flat index i in dims) into buf. */
static void coord_str(int64_t i, const int64_t *dims, int nd, char *buf, size_t cap) {
  int64_t coord[TFC_MAX_DIMS];
  for (int d = nd - 1; d >= 0; d--) {
    coord[d] = dims[d] ? i % dims[d] : 0;
    i = dims[d] ? i / dims[d] : 0;
  }
  size_t off = 0;
  buf[0] = '\0';
  for (int d = 0; d < nd && off < cap; d++)
    off += (size_t)snprintf(buf + off, cap - off, "%s%lld", d ? "," : "", (long long)coord[d]);
}

/* ---- Pad, PadV2, MirrorPad ---- */

typedef struct pad_job {
  const char *in;
  char *out;
  size_t es;
  int rank, mode;
  const int64_t *in_dims, *out_dims, *before;
  const void *value;
  int zero; /* value is all zero bytes */
} pad_job;

/* n copies of the es-byte value at o. */
static void fill(char *o, const void *value, size_t es, int64_t n, int zero) {
  if (n <= 0) return;
  if (zero) {
    memset(o, 0, (size_t)n * es);
    return;
  }
  for (int64_t k = 0; k < n; k++) memcpy(o + (size_t)k * es, value, es);
}

/* Output rows [b, e): every dim but the last picks its input row; the last dim copies the
 * input row's run in one memcpy and fills or mirrors the edges element by element. */
static void pad_rows(int64_t b, int64_t e, void *arg) {
  const pad_job *j = arg;
  int r = j->rank, last = r - 1;
  int64_t n_in = j->in_dims[last], n_out = j->out_dims[last], bl = j->before[last];
  size_t es = j->es;
  for (int64_t row = b; row < e; row++) {
    char *o = j->out + (size_t)(row * n_out) * es;
    int64_t rem = row, src_row = 0, mul = 1;
    int pad_row = 0;
    for (int d = last - 1; d >= 0; d--) {
      int64_t idx = rem % j->out_dims[d];
      rem /= j->out_dims[d];
      int64_t m = tfc_pad_map(idx, j->before[d], j->in_dims[d], j->mode);
      if (m < 0) pad_row = 1;
      src_row += m * mul;
      mul *= j->in_dims[d];
    }
    if (pad_row) {
      fill(o, j->value, es, n_out, j->zero);
      continue;
    }
    const char *src = j->in + (size_t)(src_row * n_in) * es;
    if (j->mode == TFC_PAD_CONSTANT) {
      fill(o, j->value, es, bl < n_out ? bl : n_out, j->zero);
      if (n_in) memcpy(o + (size_t)bl * es, src, (size_t)n_in * es);
      if (bl + n_in < n_out) fill(o + (size_t)(bl + n_in) * es, j->value, es, n_out - bl - n_in, j->zero);
      continue;
    }
    for (int64_t k = 0; k < bl && k < n_out; k++) {
      int64_t m = tfc_pad_map(k, bl, n_in, j->mode);
      memcpy(o + (size_t)k * es, m < 0 ? j->value : src + (size_t)m * es, es);
    }
    if (n_in) memcpy(o + (size_t)bl * es, src, (size_t)n_in * es);
    for (int64_t k = bl + n_in; k < n_out; k++) {
      int64_t m = tfc_pad_map(k, bl, n_in, j->mode);
      memcpy(o + (size_t)k * es, m < 0 ? j->value : src + (size_t)m * es, es);
    }
  }
}

static int pad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_pad_plan p;
  TFC_TRY(tfc_pad_plan_of(c, &p));
  int rank = p.rank, mode = p.mode;
  const int64_t *dims = p.dims, *before = p.before;
  size_t es = tfc_dtype_size(in->dtype);
  unsigned char zero[16] = {0};
  const void *value = c->node->op->id == TFC_OP_PadV2 ? c->inputs[2]->data : zero;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  if (rank == 0) {
    memcpy(out->data, in->data, es);
    return TFC_OK;
  }
  /* Constant padding: trailing dims without padding merge into the one before them, whose
   * rows then copy in one memcpy (NHWC images padded in H and W: one run per row of pixels,
   * not one per pixel). Mirrored padding maps single indexes, so it keeps the dims. */
  int64_t in_d[TFC_MAX_DIMS], out_d[TFC_MAX_DIMS], bef[TFC_MAX_DIMS];
  for (int d = 0; d < rank; d++) in_d[d] = in->dims[d], out_d[d] = dims[d], bef[d] = before[d];
  while (mode == TFC_PAD_CONSTANT && rank > 1 && in_d[rank - 1] == out_d[rank - 1]) {
    in_d[rank - 2] *= in_d[rank - 1];
    bef[rank - 2] *= out_d[rank - 1];
    out_d[rank - 2] *= out_d[rank - 1];
    rank--;
  }
  int zero_value = 1;
  for (size_t b = 0; b < es && zero_value; b++) zero_value = ((const unsigned char *)value)[b] == 0;
  pad_job j = {in->data, out->data, es, rank, mode, in_d, out_d, bef, value, zero_value};
  int64_t rows = out->n_elems / out_d[rank - 1];
  tfc_kernel_parallel_for(c, rows, out_d[rank - 1] * (int64_t)es + 16, pad_rows, &j);
  return TFC_OK;
}

/* MirrorPadGrad: every element of the padded gradient adds into the input element it was
 * copied from (tfc_pad_map per dim), so the edges mirrored into the padding collect twice. */
#define MIRROR_GRAD(T)                                                                             \
  static void mirror_grad_##T(const tfc_tensor *g, tfc_tensor *out, const int64_t *before, int mode) { \
    const T *x = g->data;                                                                          \
    T *o = out->data;                                                                              \
    memset(o, 0, out->n_bytes);                                                                    \
    int r = g->ndims;                                                                              \
    for (int64_t i = 0; i < g->n_elems; i++) {                                                     \
      int64_t rem = i, dst = 0, mul = 1;                                                           \
      for (int d = r - 1; d >= 0; d--) {                                                           \
        int64_t idx = rem % g->dims[d];                                                            \
        rem /= g->dims[d];                                                                         \
        dst += tfc_pad_map(idx, before[d], out->dims[d], mode) * mul;                              \
        mul *= out->dims[d];                                                                       \
      }                                                                                            \
      o[dst] += x[i];                                                                              \
    }                                                                                              \
  }
MIRROR_GRAD(float)
MIRROR_GRAD(double)

static int mirror_pad_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0];
  tfc_pad_plan p;
  TFC_TRY(tfc_mirror_pad_grad_plan_of(c, &p));
  int rank = p.rank, mode = p.mode;
  const int64_t *dims = p.dims, *before = p.before;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, g->dtype, dims, rank);
  if (!out) return c->status->code;
  if (g->dtype == TFC_DT_FLOAT)
    mirror_grad_float(g, out, before, mode);
  else
    mirror_grad_double(g, out, before, mode);
  return TFC_OK;
}

/* ---- UnsortedSegmentSum ---- */

#define SEGMENT_SUM(T)                                                                             \
  static void segment_sum_##T(const tfc_tensor *data, const tfc_tensor *ids, tfc_tensor *out,      \
                              int64_t inner) {                                                     \
    const T *x = data->data;                                                                       \
    T *o = out->data;                                                                              \
    for (int64_t i = 0; i < ids->n_elems; i++) {                                                   \
      int64_t s = tfc_array_int_at(ids, i);                                                        \
      if (s < 0) continue;                                                                         \
      T *dst = o + s * inner;                                                                      \
      const T *src = x + i * inner;                                                                \
      for (int64_t k = 0; k < inner; k++) dst[k] += src[k];                                        \
    }                                                                                              \
  }
SEGMENT_SUM(float)
SEGMENT_SUM(double)
SEGMENT_SUM(int32_t)
SEGMENT_SUM(int64_t)

static int unsorted_segment_sum_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  int64_t dims[TFC_MAX_DIMS], n, inner;
  int r;
  TFC_TRY(tfc_unsorted_segment_plan_of(c, dims, &r, &n, &inner));
  for (int64_t i = 0; i < ids->n_elems; i++) {
    int64_t s = tfc_array_int_at(ids, i);
    if (s >= n) {
      coord_str(i, ids->dims, ids->ndims, a, sizeof a);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment_ids[%s] = %lld is out of range [0, %lld)", a,
                              (long long)s, (long long)n);
    }
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, data->dtype, dims, r);
  if (!out) return c->status->code;
  if (out->n_bytes) memset(out->data, 0, out->n_bytes);
  switch (data->dtype) {
    case TFC_DT_FLOAT: segment_sum_float(data, ids, out, inner); break;
    case TFC_DT_DOUBLE: segment_sum_double(data, ids, out, inner); break;
    case TFC_DT_INT32: segment_sum_int32_t(data, ids, out, inner); break;
    case TFC_DT_INT64: segment_sum_int64_t(data, ids, out, inner); break;
    default:
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "UnsortedSegmentSum for %s", tfc_dtype_name(data->dtype));
  }
  return TFC_OK;
}

/* ---- InvertPermutation ---- */

static int invert_permutation_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  if (x->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "invert_permutation expects a 1D vector.");
  int64_t n = x->n_elems;
  if (n > INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "permutation of nonnegative int32s must have <= int32 max elements");
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, &n, 1);
  if (!out) return c->status->code;
  int wide = x->dtype == TFC_DT_INT64;
  for (int64_t i = 0; i < n; i++) {
    if (wide) ((int64_t *)out->data)[i] = -1;
    else ((int32_t *)out->data)[i] = -1;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t d = tfc_array_int_at(x, i);
    if (d < 0 || d >= n)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%lld is not between 0 and %lld", (long long)d, (long long)n);
    if (tfc_array_int_at(out, d) != -1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%lld is duplicated in the input.", (long long)d);
    if (wide) ((int64_t *)out->data)[d] = i;
    else ((int32_t *)out->data)[d] = (int32_t)i;
  }
  return TFC_OK;
}

/* ---- StridedSliceGrad ---- */

/* out = zeros(shape); out[begin + i * stride] = dy[i] over the slice's window. */
static int strided_slice_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *dy = c->inputs[4];
  int64_t dims[TFC_MAX_DIMS];
  int rank;
  tfc_strided_slice_plan plan;
  TFC_TRY(tfc_strided_slice_grad_plan_of(c, dims, &rank, &plan));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dy->dtype, dims, rank);
  if (!out) return c->status->code;
  if (out->n_bytes) memset(out->data, 0, out->n_bytes);
  if (dy->n_elems == 0) return TFC_OK;
  size_t es = tfc_dtype_size(dy->dtype);
  int64_t strides[TFC_MAX_DIMS], idx[TFC_MAX_DIMS] = {0}, st_out = 1, base = 0;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = st_out;
    st_out *= dims[d];
  }
  for (int d = 0; d < rank; d++) base += plan.begin[d] * strides[d];
  /* Walk the window in row-major order (dy's order), carrying the output offset along. */
  int64_t off = base;
  const char *src = dy->data;
  for (int64_t i = 0; i < dy->n_elems; i++) {
    memcpy((char *)out->data + (size_t)off * es, src + (size_t)i * es, es);
    for (int d = rank - 1; d >= 0; d--) {
      off += plan.stride[d] * strides[d];
      if (++idx[d] < plan.processing[d]) break;
      off -= plan.stride[d] * strides[d] * plan.processing[d];
      idx[d] = 0;
    }
  }
  return TFC_OK;
}

/* ---- ConcatOffset ---- */

static void summarize(const tfc_tensor *t, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = '\0';
  for (int64_t i = 0; i < t->n_elems && i < 10 && off < cap; i++)
    off += (size_t)snprintf(buf + off, cap - off, "%s%lld", i ? " " : "", (long long)tfc_array_int_at(t, i));
  if (t->n_elems > 10 && off < cap) snprintf(buf + off, cap - off, "...");
}

static int concat_offset_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cd = c->inputs[0];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (cd->n_elems != 1 || cd->ndims > 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Concat dim tensor should be a scalar integer, but got shape %s",
                            tfc_tensor_shape_str(cd, a, sizeof a));
  for (int i = 1; i < c->n_inputs; i++)
    if (c->inputs[i]->ndims != 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input %d should be a vector, but got shape %s", i,
                              tfc_tensor_shape_str(c->inputs[i], a, sizeof a));
  const tfc_tensor *in0 = c->inputs[1];
  int64_t dims = in0->n_elems, cdim = tfc_array_int_at(cd, 0);
  int64_t axis = cdim < 0 ? cdim + dims : cdim;
  if (axis < 0 || axis >= dims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Concat dim is out of range: %lld vs. %lld", (long long)cdim,
                            (long long)dims);
  int64_t offset = 0;
  for (int i = 0; i + 1 < c->n_inputs; i++) {
    const tfc_tensor *in = c->inputs[1 + i];
    if (in->n_elems != dims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input %d should contain %lld elements, but got %lld", i,
                              (long long)dims, (long long)in->n_elems);
    tfc_tensor *out = tfc_kernel_alloc_output(c, i, TFC_DT_INT32, &dims, 1);
    if (!out) return c->status->code;
    int32_t *o = out->data;
    for (int64_t j = 0; j < dims; j++) {
      if (j == axis) {
        o[j] = (int32_t)offset;
        offset += tfc_array_int_at(in, j);
      } else if (tfc_array_int_at(in, j) != tfc_array_int_at(in0, j)) {
        summarize(in, a, sizeof a);
        summarize(in0, b, sizeof b);
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "All dimensions except %lld must match. Input %d has shape [%s] and doesn't match input 0 with shape [%s].",
                                (long long)axis, i, a, b);
      } else {
        o[j] = 0;
      }
    }
  }
  return TFC_OK;
}

/* ---- OneHot ---- */

static int one_hot_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ix = c->inputs[0], *on = c->inputs[2], *off = c->inputs[3];
  int64_t dims[TFC_MAX_DIMS], prefix, depth, suffix;
  int out_rank;
  TFC_TRY(tfc_one_hot_plan_of(c, dims, &out_rank, &prefix, &depth, &suffix));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, on->dtype, dims, out_rank);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(on->dtype);
  char *o = out->data;
  /* Output [prefix, depth, suffix]; index ix[p, s] selects o[p, ix, s]. */
  for (int64_t p = 0; p < prefix; p++)
    for (int64_t d = 0; d < depth; d++)
      for (int64_t s = 0; s < suffix; s++) {
        int64_t k = p * suffix + s, v;
        if (ix->dtype == TFC_DT_UINT8) v = ((const uint8_t *)ix->data)[k];
        else v = tfc_array_int_at(ix, k);
        memcpy(o + (size_t)((p * depth + d) * suffix + s) * es, v == d ? on->data : off->data, es);
      }
  return TFC_OK;
}

/* ---- GatherNd ---- */

/* Each row of indices (its last axis, r long) addresses a slice params[i0, .., ir-1, ...];
 * the slices are copied in order. An out-of-range row fails with TF's text, or with
 * bad_indices_policy IGNORE reads zeros. */
static int gather_nd_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  int ignore;
  TFC_TRY(tfc_kernel_bad_indices_ignore(c->node, &ignore, c->status));
  tfc_gather_nd_plan g;
  TFC_TRY(tfc_gather_nd_plan_of(c, &g));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p->dtype, g.dims, g.rank);
  if (!out) return c->status->code;
  int64_t r = g.r, n_rows = g.n_rows, slice = g.slice;
  size_t es = tfc_dtype_size(p->dtype);
  for (int64_t row = 0; row < n_rows; row++) {
    int64_t at = 0;
    for (int64_t d = 0; d < r; d++) {
      int64_t v = tfc_tensor_get_i64(ix, row * r + d);
      if ((v < 0 || v >= p->dims[d]) && ignore) {
        at = -1;
        break;
      }
      if (v < 0 || v >= p->dims[d]) {
        char where[TFC_SHAPE_STR_MAX], coord[TFC_SHAPE_STR_MAX], ps[TFC_SHAPE_STR_MAX];
        coord_str(row, ix->dims, ix->ndims - 1, where, sizeof where);
        size_t off = 0;
        for (int64_t e = 0; e < r && off < sizeof coord; e++)
          off += (size_t)snprintf(coord + off, sizeof coord - off, "%s%lld", e ? ", " : "",
                                  (long long)tfc_tensor_get_i64(ix, row * r + e));
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices[%s] = [%s] does not index into param shape %s",
                                where, coord, tfc_tensor_shape_str(p, ps, sizeof ps));
      }
      at = at * p->dims[d] + v;
    }
    if (slice && at < 0) memset((char *)out->data + (size_t)(row * slice) * es, 0, (size_t)slice * es);
    else if (slice)
      memcpy((char *)out->data + (size_t)(row * slice) * es, (const char *)p->data + (size_t)(at * slice) * es,
             (size_t)slice * es);
  }
  return TFC_OK;
}

/* ---- Where ---- */

/* Whether element i of t is nonzero (false for -0.0, as TF's `!= T(0)`). */
static int nonzero_at(const tfc_tensor *t, int64_t i) {
  const char *p = (const char *)t->data;
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)p)[i] != 0.0f;
    case TFC_DT_DOUBLE: return ((const double *)p)[i] != 0.0;
    case TFC_DT_HALF:
    case TFC_DT_BFLOAT16: return (((const uint16_t *)p)[i] & 0x7fffu) != 0;
    case TFC_DT_COMPLEX64: return ((const float *)p)[2 * i] != 0.0f || ((const float *)p)[2 * i + 1] != 0.0f;
    case TFC_DT_COMPLEX128: return ((const double *)p)[2 * i] != 0.0 || ((const double *)p)[2 * i + 1] != 0.0;
    default: break;
  }
  size_t es = tfc_dtype_size(t->dtype);
  for (size_t b = 0; b < es; b++)
    if (p[(size_t)i * es + b]) return 1;
  return 0;
}

static int where_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  TFC_TRY(tfc_where_check(c));
  int64_t n = 0;
  for (int64_t i = 0; i < x->n_elems; i++) n += nonzero_at(x, i);
  const int64_t dims[2] = {n, x->ndims};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, dims, 2);
  if (!out) return c->status->code;
  int64_t *o = out->data;
  for (int64_t i = 0; i < x->n_elems; i++) {
    if (!nonzero_at(x, i)) continue;
    int64_t r = i;
    for (int d = x->ndims - 1; d >= 0; d--) {
      o[d] = r % x->dims[d];
      r /= x->dims[d];
    }
    o += x->ndims;
  }
  return TFC_OK;
}

/* ---- registration ---- */

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Pad,
     .type_attr = "T",
     .types = TFC_ARRAY_POD_TYPES,
     .type_attr2 = "Tpaddings",
     .types2 = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(1),
     .compute = pad_compute},
    {.op = TFC_OP_PadV2,
     .type_attr = "T",
     .types = TFC_ARRAY_POD_TYPES,
     .type_attr2 = "Tpaddings",
     .types2 = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = pad_compute},
    {.op = TFC_OP_MirrorPad,
     .type_attr = "T",
     .types = TFC_ARRAY_POD_TYPES,
     .type_attr2 = "Tpaddings",
     .types2 = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(1),
     .compute = pad_compute},
    {.op = TFC_OP_MirrorPadGrad,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT,
     .type_attr2 = "Tpaddings",
     .types2 = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(1),
     .compute = mirror_pad_grad_compute},
    {.op = TFC_OP_UnsortedSegmentSum,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT | TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(2),
     .compute = unsorted_segment_sum_compute},
    {.op = TFC_OP_InvertPermutation,
     .type_attr = "T",
     .types = TFC_TYPES_INT,
     .compute = invert_permutation_compute},
    {.op = TFC_OP_StridedSliceGrad,
     .type_attr = "T",
     .types = TFC_ARRAY_POD_TYPES,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3),
     .compute = strided_slice_grad_compute},
    {.op = TFC_OP_ConcatOffset,
     .host_memory_in = 0xffffffffu,
     .host_memory_out = 0xffffffffu,
     .compute = concat_offset_compute},
    {.op = TFC_OP_OneHot,
     .type_attr = "T",
     .types = TFC_ARRAY_POD_TYPES,
     .host_memory_in = TFC_HOST(1),
     .compute = one_hot_compute},
    {.op = TFC_OP_Where, .host_memory_out = 1u, .compute = where_compute},
    {.op = TFC_OP_GatherNd,
     .type_attr = "Tparams",
     .types = TFC_ARRAY_POD_TYPES,
     .type_attr2 = "Tindices",
     .types2 = TFC_TYPES_INT,
     .compute = gather_nd_compute},
};

int tfc_cpu_kernels_array_extra(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cpu_kernels_scan(t, s));
  return tfc_cpu_kernels_stitch(t, s);
}
