/*
 * kernels_pad_gpu — the second group of GPU array kernels: SelectV2 (numpy broadcasting of
 * condition, then and else), BroadcastTo, Pad, PadV2, MirrorPad, MirrorPadGrad,
 * StridedSliceGrad, Cumsum, Cumprod, Snapshot (a device-to-device
 * copy; int32 too, in device memory, as TF's), and SpaceToBatch(ND) / BatchToSpace(ND) (one
 * window copy per block offset, planned with the CPU's checks: device/space_batch_plan.h). kernels_array_gpu.c has the
 * first group; registered by tfc_cuda_kernels_array2.
 *
 * Checks: every op shares its check-and-plan function with its CPU kernel
 * (device/array_plan.h), so both devices refuse the same inputs with the same code and text.
 * The arguments TF 1.15 declares HostMemory on its GPU kernels are host-memory inputs here
 * (shape, paddings, begin/end/strides, the scan axis) and are read directly on the host;
 * everything else — data, PadV2's constant_values — stays in device memory and is touched
 * only by launchers (cuda_array.cu, cuda_scan.cu) on the device's compute stream, after the
 * host has planned the work:
 *   - BroadcastTo and StridedSliceGrad are strided copies (tfc_cuda_copy_window): BroadcastTo
 *     reads its input with stride 0 along broadcast dims; StridedSliceGrad zeroes the output
 *     and writes dy through the slice's strides;
 *   - the pads map each output element to its source (or the constant) dim by dim; the
 *     mirror-pad gradient gathers, for each output element, the gradient elements mirrored
 *     from it. Dims without padding are merged so that TFC_CUDA_MAX_DIMS bounds only the
 *     padded ones;
 *   - Cumsum/Cumprod scan along the axis of the [outer, n, inner] view.
 *
 * Types, as TF 1.15's GPU registrations: the copies (BroadcastTo, Pad, PadV2,
 * StridedSliceGrad) move every device type of TFC_CUDA_COPY_TYPES (their int32 kernels keep
 * everything in host memory and come from the GPU device's int32 table); SelectV2 as Select
 * (half, float, double, int64, bool); MirrorPad, MirrorPadGrad, Cumsum and Cumprod the GPU
 * float types (half, float, double). UnsortedSegmentSum is with the other segment
 * reductions in kernels_scatter_gpu.c.
 */
#include <stdint.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/cwise_int.h"
#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_scatter.h"
#include "device/space_batch_plan.h"

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))
#define G_SELECT (G_F | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_BOOL))
#define IDX (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))

/* The launcher type of dtype, or UNIMPLEMENTED in c (the row admitted a type the launchers
 * lack: a table bug, reported rather than run). */
static int launch_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

/* ---- SelectV2 ---- */

static int select_v2_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  tfc_cwise_bcast b;
  TFC_TRY(tfc_select_v2_plan_of(c, &b));
  if (b.rank > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                            "SelectV2 on GPU broadcasts over at most %d collapsed dimensions, these shapes need %d",
                            TFC_CUDA_MAX_DIMS, b.rank);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, t->dtype, b.out_dims, b.out_ndims);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  tfc_cuda_bcast3 p = {.rank = b.rank};
  for (int d = 0; d < b.rank; d++) {
    p.dims[d] = b.dims[d];
    for (int k = 0; k < 3; k++) p.strides[k][d] = b.strides[k][d];
  }
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_select_bcast((int)tfc_dtype_size(t->dtype), cond->data, t->data, e->data,
                                                  z->data, &p, stream),
                            t->dtype);
}

/* ---- BroadcastTo ---- */

static int broadcast_to_compute(tfc_kernel_ctx *c) {
  tfc_tensor *in = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS], in_dims[TFC_MAX_DIMS];
  int rank;
  TFC_TRY(tfc_broadcast_to_plan_of(c, dims, &rank, in_dims));
  if (in->n_elems == tfc_dims_num_elements(dims, rank)) {
    /* Only leading 1s differ (or nothing at all): the input's buffer, reshaped. */
    tfc_tensor *out = tfc_tensor_reshaped(in, dims, rank, c->status);
    if (!out) return c->status->code;
    tfc_kernel_set_output(c, 0, out);
    return TFC_OK;
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, rank);
  if (!out) return c->status->code;
  int64_t src_strides[TFC_MAX_DIMS], dst_strides[TFC_MAX_DIMS];
  tfc_cuda_row_major_strides(in_dims, rank, src_strides);
  tfc_cuda_row_major_strides(dims, rank, dst_strides);
  for (int d = 0; d < rank; d++)
    if (in_dims[d] != dims[d]) src_strides[d] = 0; /* a broadcast dim: the plan checked in_dims[d] == 1 */
  return tfc_cuda_copy_window(c, in->dtype, out->data, in->data, rank, dims, src_strides, 0, dst_strides, 0);
}

/* ---- Pad, PadV2, MirrorPad, MirrorPadGrad ---- */

/* The launcher plan of a padding from `dims` (unpadded) to `padded`: size-1 dims without
 * padding are dropped and neighbouring dims without padding merged (their index maps
 * straight through), so only padded dims count against TFC_CUDA_MAX_DIMS. */
static int pad_launch_plan(tfc_kernel_ctx *c, int mode, int rank, const int64_t *dims, const int64_t *padded,
                           const int64_t *before, tfc_cuda_pad_plan *out) {
  memset(out, 0, sizeof *out);
  out->mode = mode;
  int r = 0;
  for (int d = 0; d < rank; d++) {
    int plain = dims[d] == padded[d];
    if (plain && dims[d] == 1) continue;
    if (plain && r > 0 && out->dims[r - 1] == out->padded[r - 1]) {
      out->dims[r - 1] *= dims[d];
      out->padded[r - 1] *= dims[d];
      continue;
    }
    if (r == TFC_CUDA_MAX_DIMS)
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                              "%s on GPU handles at most %d collapsed dimensions; this padding needs more",
                              c->node->op->name, TFC_CUDA_MAX_DIMS);
    out->dims[r] = dims[d];
    out->padded[r] = padded[d];
    out->before[r++] = before[d];
  }
  if (r == 0) out->dims[r] = out->padded[r] = 1, r = 1; /* a scalar, or all dims of size 1 */
  out->rank = r;
  return TFC_OK;
}

/* Pad, PadV2 (constant: zero, or PadV2's constant_values, a device scalar) and MirrorPad. */
static int pad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_pad_plan p;
  TFC_TRY(tfc_pad_plan_of(c, &p));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, p.dims, p.rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  tfc_cuda_pad_plan lp;
  TFC_TRY(pad_launch_plan(c, p.mode, p.rank, in->dims, p.dims, p.before, &lp));
  const void *value = c->node->op->id == TFC_OP_PadV2 ? c->inputs[2]->data : NULL;
  return tfc_cuda_ctx_check(
      c, tfc_cuda_pad((int)tfc_dtype_size(in->dtype), in->data, out->data, &lp, value, stream), in->dtype);
}

static int mirror_pad_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *g = c->inputs[0];
  tfc_pad_plan p;
  TFC_TRY(tfc_mirror_pad_grad_plan_of(c, &p));
  int ct;
  TFC_TRY(launch_type(c, g->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, g->dtype, p.dims, p.rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  tfc_cuda_pad_plan lp;
  TFC_TRY(pad_launch_plan(c, p.mode, p.rank, p.dims, g->dims, p.before, &lp));
  return tfc_cuda_ctx_check(c, tfc_cuda_mirror_pad_grad(ct, g->data, out->data, &lp, stream), g->dtype);
}

/* ---- StridedSliceGrad ---- */

/* out = zeros(shape), then dy (dense, the slice's processing dims) written through the
 * slice's strides: one memset and one strided copy, ordered on the stream. */
static int strided_slice_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *dy = c->inputs[4];
  int64_t dims[TFC_MAX_DIMS];
  int rank;
  tfc_strided_slice_plan plan;
  TFC_TRY(tfc_strided_slice_grad_plan_of(c, dims, &rank, &plan));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dy->dtype, dims, rank);
  if (!out) return c->status->code;
  if (out->n_bytes)
    TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), dy->dtype));
  if (dy->n_elems == 0) return TFC_OK;
  int64_t strides[TFC_MAX_DIMS], src_strides[TFC_MAX_DIMS], dst_strides[TFC_MAX_DIMS], base = 0;
  tfc_cuda_row_major_strides(dims, rank, strides);
  tfc_cuda_row_major_strides(plan.processing, rank, src_strides);
  for (int d = 0; d < rank; d++) {
    dst_strides[d] = plan.stride[d] * strides[d];
    base += plan.begin[d] * strides[d];
  }
  return tfc_cuda_copy_window(c, dy->dtype, out->data, dy->data, rank, plan.processing, src_strides, 0, dst_strides,
                              base);
}

/* ---- Cumsum, Cumprod ---- */

static int scan_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int64_t outer, n, inner;
  int exclusive, reverse, ct;
  TFC_TRY(tfc_scan_plan_of(c, &outer, &n, &inner, &exclusive, &reverse));
  TFC_TRY(launch_type(c, x->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_scan(ct, c->node->op->id == TFC_OP_Cumprod, exclusive, reverse, x->data,
                                          out->data, outer, n, inner, stream),
                            x->dtype);
}

/* ---- Snapshot: a fresh copy of its input, device to device ---- */

static int snapshot_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  if (x->n_bytes == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(c, tfc_cuda_memcpy(out->data, x->data, (int64_t)x->n_bytes, stream), x->dtype);
}

/* ---- registration ---- */

#define PAD_ROW(OP, TYPES, HOST_IN, fn)                                                                            \
  {.op = TFC_OP_##OP, .type_attr = "T", .types = (TYPES), .type_attr2 = "Tpaddings", .types2 = IDX,               \
   .host_memory_in = (HOST_IN), .compute = fn##_compute}
#define SCAN_ROW(OP)                                                                                               \
  {.op = TFC_OP_##OP, .type_attr = "T", .types = G_F, .type_attr2 = "Tidx", .types2 = IDX,                        \
   .host_memory_in = TFC_HOST(1), .compute = scan_compute}

/* ---- SpaceToBatch(ND), BatchToSpace(ND) ---- */

/* The shared plan (device/space_batch_plan.h), then one window copy per block offset: for
 * offset o, batch positions y_i whose space position s_i = y_i * b_i + o_i - start_i lies
 * inside [0, S_i), read (or written) with space strides b_i times the dense ones. SpaceToBatch
 * zeroes its output first, so the padding's positions, which no window covers, stay zero. */
static int space_batch_compute(tfc_kernel_ctx *c, int to_batch, int legacy) {
  const tfc_tensor *x = c->inputs[0];
  tfc_space_batch_plan p;
  int64_t dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_space_batch_plan_of(c, to_batch, legacy, &p, dims));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, dims, x->ndims);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  if (to_batch) TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), x->dtype));
  const tfc_tensor *space = to_batch ? x : out, *batch = to_batch ? out : x;
  /* Window dims: [B, count_1..count_m, rest]; strides in elements on each side. */
  const int m = p.m, rank = m + 2;
  int64_t sp_stride[TFC_SB_MAX_BLOCK + 2], bt_stride[TFC_SB_MAX_BLOCK + 2], wdims[TFC_SB_MAX_BLOCK + 2];
  int64_t s_acc = p.rest, b_acc = p.rest;
  sp_stride[m + 1] = bt_stride[m + 1] = 1;
  wdims[m + 1] = p.rest;
  for (int i = m - 1; i >= 0; i--) {
    sp_stride[1 + i] = s_acc * p.block[i];
    bt_stride[1 + i] = b_acc;
    s_acc *= p.space[i];
    b_acc *= p.ys[i];
  }
  sp_stride[0] = s_acc;
  bt_stride[0] = b_acc;
  wdims[0] = p.batch;
  for (int64_t off = 0; off < p.prod; off++) {
    int64_t rem = off, sp_off = 0, bt_off = off * p.batch * b_acc, empty = 0;
    for (int i = m - 1; i >= 0; i--) {
      int64_t o = rem % p.block[i];
      rem /= p.block[i];
      /* first y with s >= 0, and one past the last with s < S */
      int64_t d = p.start[i] - o, y0 = d <= 0 ? 0 : (d + p.block[i] - 1) / p.block[i];
      int64_t y1 = p.space[i] + d <= 0 ? 0 : (p.space[i] + d - 1) / p.block[i] + 1;
      if (y1 > p.ys[i]) y1 = p.ys[i];
      if (y1 <= y0) empty = 1;
      wdims[1 + i] = y1 - y0;
      bt_off += y0 * bt_stride[1 + i];
      sp_off += (y0 * p.block[i] - d) * (sp_stride[1 + i] / p.block[i]);
    }
    if (empty) continue;
    if (to_batch)
      TFC_TRY(tfc_cuda_copy_window(c, x->dtype, batch->data, space->data, rank, wdims, sp_stride, sp_off, bt_stride,
                                   bt_off));
    else
      TFC_TRY(tfc_cuda_copy_window(c, x->dtype, space->data, batch->data, rank, wdims, bt_stride, bt_off, sp_stride,
                                   sp_off));
  }
  return TFC_OK;
}

static int s2b_nd_compute(tfc_kernel_ctx *c) { return space_batch_compute(c, 1, 0); }
static int s2b_compute(tfc_kernel_ctx *c) { return space_batch_compute(c, 1, 1); }
static int b2s_nd_compute(tfc_kernel_ctx *c) { return space_batch_compute(c, 0, 0); }
static int b2s_compute(tfc_kernel_ctx *c) { return space_batch_compute(c, 0, 1); }

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_SelectV2, .type_attr = "T", .types = G_SELECT, .compute = select_v2_compute},
    {.op = TFC_OP_BroadcastTo, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES, .type_attr2 = "Tidx", .types2 = IDX,
     .host_memory_in = TFC_HOST(1), .compute = broadcast_to_compute},
    PAD_ROW(Pad, TFC_CUDA_COPY_TYPES, TFC_HOST(1), pad),
    PAD_ROW(PadV2, TFC_CUDA_COPY_TYPES, TFC_HOST(1), pad), /* constant_values: device memory, as in TF */
    PAD_ROW(MirrorPad, G_F, TFC_HOST(1), pad),
    PAD_ROW(MirrorPadGrad, G_F, TFC_HOST(1), mirror_pad_grad),
    {.op = TFC_OP_StridedSliceGrad, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES, .type_attr2 = "Index",
     .types2 = IDX, .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3),
     .compute = strided_slice_grad_compute},
    SCAN_ROW(Cumsum),
    SCAN_ROW(Cumprod),
    {.op = TFC_OP_Snapshot, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES | TFC_T(TFC_DT_INT32),
     .compute = snapshot_compute},
    /* spacetobatch_op.cc, batchtospace_op.cc: block_shape, paddings and crops in host memory */
    {.op = TFC_OP_SpaceToBatchND, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2), .compute = s2b_nd_compute},
    {.op = TFC_OP_BatchToSpaceND, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2), .compute = b2s_nd_compute},
    {.op = TFC_OP_SpaceToBatch, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = s2b_compute},
    {.op = TFC_OP_BatchToSpace, .type_attr = "T", .types = TFC_CUDA_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = b2s_compute},
};

int tfc_cuda_kernels_array2(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
