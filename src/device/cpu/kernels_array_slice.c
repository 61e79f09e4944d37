/*
 * kernels_array_slice — CPU kernels that read a window or a permutation of their input:
 * Transpose, Slice, StridedSlice (all through the strided copy), Tile and BroadcastTo
 * (through the tile copy). Whenever the result is the input itself (identity permutation,
 * full window, all multiples 1), the output shares the input's buffer instead of copying.
 */
#include <stdio.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"
#include "ops/shape_array.h"

static void row_major_strides(const tfc_tensor *t, int64_t *strides) {
  int64_t st = 1;
  for (int d = t->ndims - 1; d >= 0; d--) {
    strides[d] = st;
    st *= t->dims[d];
  }
}

static int share_input(tfc_kernel_ctx *c, const int64_t *dims, int ndims) {
  tfc_tensor *out = tfc_tensor_reshaped(c->inputs[0], dims, ndims, c->status);
  if (!out) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return TFC_OK;
}

/* ---- Transpose ---- */

static int transpose_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *perm = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (perm->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "perm must be a vector, not %s",
                            tfc_tensor_shape_str(perm, buf, sizeof buf));
  int rank = in->ndims;
  if (perm->n_elems != rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "transpose expects a vector of size %d. But input(1) is a vector of size %lld",
                            rank, (long long)perm->n_elems);
  int p[TFC_MAX_DIMS], seen[TFC_MAX_DIMS] = {0};
  for (int i = 0; i < rank; i++) {
    int64_t d = tfc_array_int_at(perm, i);
    if (d < 0 || d >= rank)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%lld is out of range [0 .. %d)", (long long)d, rank);
    p[i] = (int)d;
    seen[d] = 1;
  }
  for (int i = 0; i < rank; i++)
    if (!seen[i]) {
      size_t off = 0;
      buf[0] = '\0';
      for (int k = 0; k < rank && off < sizeof buf; k++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%d", k ? "," : "", p[k]);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%d is missing from {%s}.", i, buf);
    }
  int64_t dims[TFC_MAX_DIMS], in_strides[TFC_MAX_DIMS], src_strides[TFC_MAX_DIMS];
  row_major_strides(in, in_strides);
  /* When the dims larger than 1 keep their order, the bytes do not move: relabel only. */
  int aligned = 1, last = -1;
  for (int i = 0; i < rank; i++) {
    dims[i] = in->dims[p[i]];
    src_strides[i] = in_strides[p[i]];
    if (dims[i] != 1) {
      if (p[i] < last) aligned = 0;
      last = p[i];
    }
  }
  if (aligned) return share_input(c, dims, rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_array_strided_copy(c, out, in, rank, dims, src_strides, 0);
}

/* ---- Slice ---- */

static int slice_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *bt = c->inputs[1], *st = c->inputs[2];
  int rank = in->ndims;
  if (bt->ndims != 1 || st->ndims != 1 || bt->n_elems != rank || st->n_elems != rank) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Expected begin and size arguments to be 1-D tensors of size %d, but got shapes %s and %s instead.",
                            rank, tfc_tensor_shape_str(bt, a, sizeof a), tfc_tensor_shape_str(st, b, sizeof b));
  }
  int64_t dims[TFC_MAX_DIMS], strides[TFC_MAX_DIMS], offset = 0;
  int whole = 1;
  row_major_strides(in, strides);
  for (int i = 0; i < rank; i++) {
    int64_t b = tfc_array_int_at(bt, i), s = tfc_array_int_at(st, i), dim = in->dims[i];
    if (s == -1) s = dim - b;
    if (dim == 0) {
      if (b != 0 || s != 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "Expected begin[%d] == 0 (got %lld) and size[%d] == 0 (got %lld) when input.dim_size(%d) == 0",
                                i, (long long)b, i, (long long)s, i);
    } else {
      if (b < 0 || b > dim)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected begin[%d] in [0, %lld], but got %lld", i,
                                (long long)dim, (long long)b);
      if (s < 0 || b + s > dim)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected size[%d] in [0, %lld], but got %lld", i,
                                (long long)(dim - b), (long long)s);
    }
    dims[i] = s;
    offset += b * strides[i];
    if (s != dim) whole = 0;
  }
  if (whole) return share_input(c, dims, rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_array_strided_copy(c, out, in, rank, dims, strides, offset);
}

/* ---- StridedSlice ---- */

static int strided_slice_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_strided_slice_plan plan;
  TFC_TRY(tfc_strided_slice_plan_of(c, &plan));
  if (plan.is_identity) return share_input(c, plan.final_dims, plan.final_rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, plan.final_dims, plan.final_rank);
  if (!out) return c->status->code;
  int64_t strides[TFC_MAX_DIMS], src_strides[TFC_MAX_DIMS], offset = 0;
  row_major_strides(in, strides);
  for (int d = 0; d < in->ndims; d++) {
    src_strides[d] = plan.stride[d] * strides[d];
    offset += plan.begin[d] * strides[d];
  }
  return tfc_array_strided_copy(c, out, in, in->ndims, plan.processing, src_strides, offset);
}

/* ---- Tile and BroadcastTo ---- */

static int tile_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *mt = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (mt->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length %d but got shape %s",
                            in->ndims, tfc_tensor_shape_str(mt, buf, sizeof buf));
  if (mt->n_elems != in->ndims)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected multiples argument to be a vector of length %d but got length %lld",
                            in->ndims, (long long)mt->n_elems);
  int64_t dims[TFC_MAX_DIMS];
  int all_one = 1;
  for (int i = 0; i < in->ndims; i++) {
    int64_t m = tfc_array_int_at(mt, i);
    if (m < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected multiples[%d] >= 0, but got %lld", i, (long long)m);
    if (m != 1) all_one = 0;
    dims[i] = in->dims[i] * m;
  }
  if (all_one) return share_input(c, in->dims, in->ndims);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, in->ndims);
  if (!out) return c->status->code;
  return tfc_array_tile(c, out, in, in->ndims, in->dims, dims);
}

static int broadcast_to_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS], in_dims[TFC_MAX_DIMS];
  int rank;
  TFC_TRY(tfc_broadcast_to_plan_of(c, dims, &rank, in_dims));
  int same = in->ndims == rank;
  for (int i = 0; same && i < rank; i++) same = in_dims[i] == dims[i];
  if (same || in->n_elems == tfc_dims_num_elements(dims, rank)) return share_input(c, dims, rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_array_tile(c, out, in, rank, in_dims, dims);
}


static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Transpose,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1),
     .compute = transpose_compute},
    {.op = TFC_OP_Slice,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = slice_compute},
    {.op = TFC_OP_StridedSlice,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3),
     .compute = strided_slice_compute},
    {.op = TFC_OP_Tile,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1),
     .compute = tile_compute},
    {.op = TFC_OP_BroadcastTo,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1),
     .compute = broadcast_to_compute},
};

int tfc_cpu_kernels_array_slice(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
