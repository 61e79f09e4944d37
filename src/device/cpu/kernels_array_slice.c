/*
 * kernels_array_slice — CPU kernels that read a window or a permutation of their input:
 * Transpose, Slice, StridedSlice (all through the strided copy), Tile and BroadcastTo
 * (through the tile copy). Whenever the result is the input itself (identity permutation,
 * full window, all multiples 1), the output shares the input's buffer instead of copying.
 */
#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"

static int share_input(tfc_kernel_ctx *c, const int64_t *dims, int ndims) {
  tfc_tensor *out = tfc_tensor_reshaped(c->inputs[0], dims, ndims, c->status);
  if (!out) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return TFC_OK;
}

/* ---- Transpose, Slice, StridedSlice: the shared window plan, then one strided copy ---- */

static int window_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_window_plan w;
  TFC_TRY(tfc_window_plan_of(c, &w));
  if (w.share) return share_input(c, w.out_dims, w.out_rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, w.out_dims, w.out_rank);
  if (!out) return c->status->code;
  return tfc_array_strided_copy(c, out, in, w.rank, w.dims, w.src_strides, w.offset);
}

/* ---- Tile and BroadcastTo ---- */

static int tile_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS];
  int all_one;
  TFC_TRY(tfc_tile_plan_of(c, dims, &all_one));
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
  /* As many elements: only leading 1s differ (or nothing at all), so the input is the output. */
  if (in->n_elems == tfc_dims_num_elements(dims, rank)) return share_input(c, dims, rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_array_tile(c, out, in, rank, in_dims, dims);
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Transpose,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1),
     .compute = window_compute},
    {.op = TFC_OP_Slice,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = window_compute},
    {.op = TFC_OP_StridedSlice,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3),
     .compute = window_compute},
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
