/*
 * kernels_array_gpu — the GPU kernels of the array family: the tensor makers (Fill, ZerosLike,
 * OnesLike), Cast, AddN, Select, and the copies
 * (ConcatV2, Concat, Split, SplitV, Pack, Unpack, Slice, StridedSlice, Transpose, ReverseV2, Tile,
 * GatherV2, Gather, GatherNd, OneHot, and the diagonal family Diag, DiagPart, MatrixDiag,
 * MatrixDiagPart, MatrixSetDiag). kernels_pad_gpu.c has the rest of the family.
 *
 * Every check is the CPU kernel's (src/device/cpu/kernels_array*.c, kernels_cwise_misc.c),
 * same codes, same texts, shared through device/array_plan.h where the rule is long. The
 * shape and index arguments TF keeps in host memory (axes, begin/end/strides, multiples, perm,
 * depth, size_splits; ConcatV2's trailing axis through TFC_KF_HOST_LAST_INPUT) are host-memory
 * inputs here too, so they are read directly. Everything else is device memory,
 * touched only by launchers. The data moves through cuda_array.cu's launchers on the device's
 * compute stream: one strided copy per window (a concat or split piece is a window of the
 * whole tensor at a column offset), with size-1 dims dropped and contiguous neighbours merged
 * on the host so that most copies need one or two dims (tfc_cuda_copy_window, shared with
 * kernels_pad_gpu.c).
 *
 * Types, as TF 1.15's GPU registrations: the numbers and bool that live in device memory
 * (half, float, double, int64, bool and the small integers). int32 data is TF's host-memory
 * shape math: TF registers the shape-only and copying ops' int32 kernels with every argument
 * in host memory, and those rows come from the GPU device's table of CPU-kernel rows
 * (device/gpu/kernels_gpu_host.c), not from here; Cast converts int32 on the device (TF's GPU
 * Cast has no type constraint). The shape-only ops (Reshape, ExpandDims, Squeeze, Shape,
 * ShapeN, Size, Rank) touch no data at all, so their GPU rows are the CPU kernels' too.
 *
 * Differences a user can see: Gather's indices are device data, so, like TF's GPU kernel, an
 * index out of range gives zeros instead of an error (checking would need a device-to-host
 * sync every step).
 */
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cuda/cuda_array2.h"
#include "device/cuda/cuda_kernels.h"
#include "device/gpu/gpu_device.h"

/* Data kept in device memory by the copying kernels (cuda_array2.h). */
#define G_DATA TFC_CUDA_COPY_TYPES
#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))
#define G_FI (G_F | TFC_T(TFC_DT_INT64))
#define G_FIB (G_FI | TFC_T(TFC_DT_BOOL))
#define G_CAST (G_FIB | TFC_T(TFC_DT_INT32))

/* ---- copies ---- */

static int64_t prod(const int64_t *dims, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= dims[i];
  return p;
}

/* See cuda_array2.h. A dim is merged into its outer neighbour when both sides step across
 * the pair as across one dim. */
int tfc_cuda_copy_window(tfc_kernel_ctx *c, int dtype, void *dst, const void *src, int rank, const int64_t *dims,
                         const int64_t *src_strides, int64_t src_off, const int64_t *dst_strides, int64_t dst_off) {
  int64_t d_[TFC_MAX_DIMS], ss[TFC_MAX_DIMS], ds[TFC_MAX_DIMS];
  int r = 0;
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 0) return TFC_OK;
    if (dims[d] == 1) continue;
    if (r > 0 && ss[r - 1] == src_strides[d] * dims[d] && ds[r - 1] == dst_strides[d] * dims[d]) {
      d_[r - 1] *= dims[d];
      ss[r - 1] = src_strides[d];
      ds[r - 1] = dst_strides[d];
      continue;
    }
    d_[r] = dims[d];
    ss[r] = src_strides[d];
    ds[r++] = dst_strides[d];
  }
  if (r > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU copies at most %d collapsed dimensions, this one needs %d",
                            c->node->op->name, TFC_CUDA_MAX_DIMS, r);
  tfc_cuda_copy_plan p = {.rank = r ? r : 1, .src_offset = src_off, .dst_offset = dst_off};
  if (!r) p.dims[0] = 1, p.src_strides[0] = p.dst_strides[0] = 1;
  for (int d = 0; d < r; d++) {
    p.dims[d] = d_[d];
    p.src_strides[d] = ss[d];
    p.dst_strides[d] = ds[d];
  }
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(c, tfc_cuda_strided_copy((int)tfc_dtype_size(dtype), src, dst, &p, stream), dtype);
}

/* A dense output read through src strides (Transpose, Slice, StridedSlice). */
static int gather_window(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *in, int rank, const int64_t *dims,
                         const int64_t *src_strides, int64_t src_off) {
  int64_t ds[TFC_MAX_DIMS];
  tfc_cuda_row_major_strides(dims, rank, ds);
  return tfc_cuda_copy_window(c, in->dtype, out->data, in->data, rank, dims, src_strides, src_off, ds, 0);
}

/* Output 0 is input 0's buffer with new dims (a split into one piece, an identity slice). */
static int share_input(tfc_kernel_ctx *c, const int64_t *dims, int ndims) {
  tfc_tensor *out = tfc_tensor_reshaped(c->inputs[0], dims, ndims, c->status);
  if (!out) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return TFC_OK;
}

/* ---- making tensors ---- */

static int fill_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *v = c->inputs[1];
  int64_t dims[TFC_MAX_DIMS];
  int rank;
  TFC_TRY(tfc_fill_plan_of(c, dims, &rank));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, v->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(
      c, tfc_cuda_fill((int)tfc_dtype_size(v->dtype), v->data, 0, out->data, out->n_elems, stream), v->dtype);
}

static int zeros_like_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), x->dtype);
}

static int ones_like_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  uint64_t one;
  switch (x->dtype) {
    case TFC_DT_FLOAT: {
      float f = 1;
      uint32_t u;
      memcpy(&u, &f, sizeof u);
      one = u;
      break;
    }
    case TFC_DT_DOUBLE: {
      double d = 1;
      memcpy(&one, &d, sizeof one);
      break;
    }
    case TFC_DT_HALF: one = 0x3c00; break; /* IEEE binary16 1.0 */
    case TFC_DT_INT64:
    case TFC_DT_BOOL: one = 1; break;
    default: return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  }
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_fill((int)tfc_dtype_size(x->dtype), NULL, one, out->data, out->n_elems, stream),
                            x->dtype);
}

/* ---- Cast, AddN, Select ---- */

static int cast_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int dst = 0;
  TFC_TRY(tfc_kernel_attr_type(c->node, "DstT", &dst, c->status));
  if (x->dtype == dst) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
    return TFC_OK;
  }
  int cs = tfc_cuda_dtype_of(x->dtype), cd = tfc_cuda_dtype_of(dst);
  if (cs < 0 || cd < 0)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Cast %s to %s is not supported", tfc_dtype_name(x->dtype),
                            tfc_dtype_name(dst));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, dst, x->dims, x->ndims);
  if (!z) return c->status->code;
  return tfc_cuda_ctx_check(c, tfc_cuda_cast(cs, cd, x->data, z->data, x->n_elems, stream), x->dtype);
}

static int addn_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  TFC_TRY(tfc_addn_check(c));
  if (c->n_inputs == 1) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[0]));
    return TFC_OK;
  }
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (ct < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  /* Only inputs 0 and 1 may become the output: later ones are read after z is written. */
  int fwd = tfc_tensor_can_forward(c->inputs[0]) ? 0 : (tfc_tensor_can_forward(c->inputs[1]) ? 1 : -1);
  tfc_tensor *z = fwd >= 0 ? tfc_kernel_forward_or_alloc(c, fwd, 0, x->dtype, x->dims, x->ndims)
                           : tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!z) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  tfc_cuda_bcast p = {.rank = 1, .dims = {x->n_elems}, .strides = {{1}, {1}}};
  int err = tfc_cuda_binary(TFC_CUDA_ADD, ct, c->inputs[0]->data, c->inputs[1]->data, z->data, &p, 0, stream);
  for (int k = 2; k < c->n_inputs && !err; k++)
    err = tfc_cuda_binary(TFC_CUDA_ADD, ct, z->data, c->inputs[k]->data, z->data, &p, 0, stream);
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* Select: cond element-wise, one per row of dimension 0, or a scalar for the whole. The
 * scalar's value is on the device, so it picks per element rather than sharing a buffer. */
static int select_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *cond = c->inputs[0], *t = c->inputs[1], *e = c->inputs[2];
  int64_t cdiv;
  TFC_TRY(tfc_select_plan_of(c, &cdiv));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, t->dtype, t->dims, t->ndims);
  if (!z) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_select((int)tfc_dtype_size(t->dtype), cond->data, t->data, e->data, z->data,
                                            t->n_elems, cdiv, stream),
                            t->dtype);
}

/* ---- ConcatV2, Split, SplitV, Pack, Unpack ---- */

/* ConcatV2 (axis last) and Concat (concat_dim first): the axis is a host-memory input. */
static int concat_compute(tfc_kernel_ctx *c) {
  tfc_tensor *const *ins;
  int n;
  int64_t axis, dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_concat_plan_of(c, &ins, &n, &axis, dims));
  int rank = ins[0]->ndims;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, ins[0]->dtype, dims, rank);
  if (!out) return c->status->code;
  int64_t inner = prod(dims, (int)axis + 1, rank), outer = prod(dims, 0, (int)axis), col = 0, total = out->n_elems;
  total = outer ? total / outer : 0;
  for (int k = 0; k < n; k++) {
    int64_t run = ins[k]->dims[axis] * inner, wd[2] = {outer, run}, ps[2] = {run, 1}, ws[2] = {total, 1};
    TFC_TRY(tfc_cuda_copy_window(c, out->dtype, out->data, ins[k]->data, 2, wd, ps, 0, ws, col));
    col += run;
  }
  return TFC_OK;
}


/* Cuts `in` along `axis` into the outputs, piece k of sizes[k] (the axis dropped when
 * `squeeze`): one window copy per piece. */
static int split_into(tfc_kernel_ctx *c, const tfc_tensor *in, int axis, const int64_t *sizes, int squeeze) {
  int n = c->n_outputs;
  int64_t inner = prod(in->dims, axis + 1, in->ndims), outer = prod(in->dims, 0, axis);
  int64_t total = in->dims[axis] * inner, col = 0;
  for (int k = 0; k < n; k++) {
    int64_t dims[TFC_MAX_DIMS];
    int r = 0;
    for (int d = 0; d < in->ndims; d++) {
      if (d == axis && squeeze) continue;
      dims[r++] = d == axis ? sizes[k] : in->dims[d];
    }
    tfc_tensor *o = tfc_kernel_alloc_output(c, k, in->dtype, dims, r);
    if (!o) return c->status->code;
    int64_t run = sizes[k] * inner, wd[2] = {outer, run}, ps[2] = {run, 1}, ws[2] = {total, 1};
    TFC_TRY(tfc_cuda_copy_window(c, in->dtype, o->data, in->data, 2, wd, ws, col, ps, 0));
    col += run;
  }
  return TFC_OK;
}

/* Split and SplitV: the CPU's plan (device/array_plan.h), then one window copy per piece. */
static int split_compute(tfc_kernel_ctx *c) {
  int n = c->n_outputs, axis = 0;
  tfc_tensor *in = c->inputs[c->node->op->id == TFC_OP_SplitV ? 0 : 1];
  int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!sizes) return TFC_OOM(c->status);
  int rc = tfc_split_plan_of(c, &axis, sizes);
  if (!rc) {
    if (n == 1) tfc_kernel_set_output(c, 0, tfc_tensor_ref(in));
    else rc = split_into(c, in, axis, sizes, 0);
  }
  free(sizes);
  return rc;
}

static int unpack_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  int n = c->n_outputs, a;
  TFC_TRY(tfc_unpack_plan_of(c, &a));
  if (n == 0) return TFC_OK;
  int64_t *sizes = malloc(sizeof(int64_t) * (size_t)n);
  if (!sizes) return TFC_OOM(c->status);
  for (int k = 0; k < n; k++) sizes[k] = 1;
  int rc = split_into(c, in, a, sizes, 1);
  free(sizes);
  return rc;
}

static int pack_compute(tfc_kernel_ctx *c) {
  int n = c->n_inputs, rank, a;
  const tfc_tensor *x0 = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_pack_plan_of(c, dims, &rank, &a));
  if (n == 1) return share_input(c, dims, rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x0->dtype, dims, rank);
  if (!out) return c->status->code;
  int64_t inner = prod(x0->dims, a, x0->ndims), outer = prod(x0->dims, 0, a);
  for (int k = 0; k < n; k++) {
    int64_t wd[2] = {outer, inner}, ps[2] = {inner, 1}, ws[2] = {inner * n, 1};
    TFC_TRY(tfc_cuda_copy_window(c, out->dtype, out->data, c->inputs[k]->data, 2, wd, ps, 0, ws, inner * k));
  }
  return TFC_OK;
}

/* ---- Transpose, Slice, StridedSlice, Tile ---- */

/* Transpose, Slice and StridedSlice: the CPU's window plan (device/array_plan.h), then one
 * window copy. */
static int window_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_window_plan w;
  TFC_TRY(tfc_window_plan_of(c, &w));
  if (w.share) return share_input(c, w.out_dims, w.out_rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, w.out_dims, w.out_rank);
  if (!out) return c->status->code;
  return gather_window(c, out, in, w.rank, w.dims, w.src_strides, w.offset);
}

static int tile_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS];
  int all_one;
  TFC_TRY(tfc_tile_plan_of(c, dims, &all_one));
  if (all_one) return share_input(c, in->dims, in->ndims);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, dims, in->ndims);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  /* Dims tiled once (multiple 1) and their outer neighbours need no modulo: merge runs of
   * such dims with the next one in, so the plan stays within the launcher's width. */
  int64_t id[TFC_MAX_DIMS], od[TFC_MAX_DIMS];
  int r = 0;
  for (int d = 0; d < in->ndims; d++) {
    if (r > 0 && id[r - 1] == od[r - 1] && in->dims[d] == dims[d]) {
      id[r - 1] *= in->dims[d];
      od[r - 1] *= dims[d];
      continue;
    }
    id[r] = in->dims[d];
    od[r++] = dims[d];
  }
  if (r > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Tile on GPU handles at most %d collapsed dimensions, this one needs %d",
                            TFC_CUDA_MAX_DIMS, r);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(c, tfc_cuda_tile((int)tfc_dtype_size(in->dtype), in->data, out->data, r, id, od, stream),
                            in->dtype);
}

/* ---- GatherV2, Gather, OneHot ---- */

/* Gather and GatherV2: the CPU's plan; the indices are device data (see the top comment). */
static int gather_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  tfc_gather_plan g;
  TFC_TRY(tfc_gather_plan_of(c, &g));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p->dtype, g.dims, g.rank);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_gather((int)tfc_dtype_size(p->dtype), tfc_cuda_dtype_of(ix->dtype), p->data,
                                            ix->data, out->data, g.batch, g.outer, g.limit, g.n_idx, g.inner, stream),
                            p->dtype);
}

/* GatherNd: the CPU's plan; the indices are device data (an out-of-range row gives zeros). */
static int gather_nd_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  tfc_gather_nd_plan g;
  TFC_TRY(tfc_gather_nd_plan_of(c, &g));
  if (g.r > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "GatherNd on GPU takes at most %d index coordinates, not %d",
                            TFC_CUDA_MAX_DIMS, g.r);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p->dtype, g.dims, g.rank);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_gather_nd((int)tfc_dtype_size(p->dtype), tfc_cuda_dtype_of(ix->dtype), p->data,
                                               ix->data, out->data, g.r, p->dims, g.n_rows, g.slice, stream),
                            p->dtype);
}

/* The diagonal family: the CPU's plan (device/array_plan.h); the output zeroed or copied from
 * input 0 on the device, then the diagonal as one window copy. */
static int diag_compute(tfc_kernel_ctx *c) {
  tfc_diag_plan p;
  TFC_TRY(tfc_diag_plan_of(c, &p));
  const tfc_tensor *x = c->inputs[0], *src = c->inputs[p.src];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, p.out_dims, p.out_rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  if (p.zero) TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), x->dtype));
  if (p.copy_input)
    TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memcpy(out->data, x->data, (int64_t)out->n_bytes, stream), x->dtype));
  return tfc_cuda_copy_window(c, x->dtype, out->data, src->data, 2, p.dims, p.src_strides, 0, p.dst_strides, 0);
}

static int one_hot_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ix = c->inputs[0], *on = c->inputs[2], *off = c->inputs[3];
  int64_t dims[TFC_MAX_DIMS], prefix, depth, suffix;
  int out_rank;
  TFC_TRY(tfc_one_hot_plan_of(c, dims, &out_rank, &prefix, &depth, &suffix));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, on->dtype, dims, out_rank);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_one_hot((int)tfc_dtype_size(on->dtype), tfc_cuda_dtype_of(ix->dtype), ix->data,
                                             on->data, off->data, out->data, prefix, depth, suffix, stream),
                            on->dtype);
}

/* ---- registration ---- */

#define IDX (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define COPY_ROW(OP, ATTR, HOST_IN, fn)                                                                            \
  {.op = TFC_OP_##OP, .type_attr = ATTR, .types = G_DATA, .host_memory_in = (HOST_IN), .compute = fn##_compute}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Fill, .type_attr = "T", .types = G_FIB, .host_memory_in = TFC_HOST(0), .compute = fill_compute},
    {.op = TFC_OP_ZerosLike, .type_attr = "T", .types = G_FIB, .compute = zeros_like_compute},
    {.op = TFC_OP_OnesLike, .type_attr = "T", .types = G_FIB, .compute = ones_like_compute},
    {.op = TFC_OP_Cast, .type_attr = "SrcT", .types = G_CAST, .type_attr2 = "DstT", .types2 = G_CAST,
     .compute = cast_compute},
    {.op = TFC_OP_AddN, .type_attr = "T", .types = G_FI, .compute = addn_compute},
    {.op = TFC_OP_Select, .type_attr = "T", .types = G_FIB, .compute = select_compute},
    {.op = TFC_OP_ConcatV2, .type_attr = "T", .types = G_DATA, .flags = TFC_KF_HOST_LAST_INPUT,
     .compute = concat_compute},
    COPY_ROW(Concat, "T", TFC_HOST(0), concat),
    COPY_ROW(Split, "T", TFC_HOST(0), split),
    COPY_ROW(SplitV, "T", TFC_HOST(1) | TFC_HOST(2), split),
    COPY_ROW(Pack, "T", 0, pack),
    COPY_ROW(Unpack, "T", 0, unpack),
    COPY_ROW(Transpose, "T", TFC_HOST(1), window),
    COPY_ROW(Slice, "T", TFC_HOST(1) | TFC_HOST(2), window),
    COPY_ROW(StridedSlice, "T", TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3), window),
    COPY_ROW(Tile, "T", TFC_HOST(1), tile),
    COPY_ROW(ReverseV2, "T", TFC_HOST(1), window),
    {.op = TFC_OP_GatherV2, .type_attr = "Tparams", .types = G_DATA, .type_attr2 = "Tindices", .types2 = IDX,
     .host_memory_in = TFC_HOST(2), .compute = gather_compute},
    {.op = TFC_OP_Gather, .type_attr = "Tparams", .types = G_DATA, .type_attr2 = "Tindices", .types2 = IDX,
     .compute = gather_compute},
    {.op = TFC_OP_GatherNd, .type_attr = "Tparams", .types = G_DATA, .type_attr2 = "Tindices", .types2 = IDX,
     .compute = gather_nd_compute},
    COPY_ROW(Diag, "T", 0, diag),
    COPY_ROW(DiagPart, "T", 0, diag),
    COPY_ROW(MatrixDiag, "T", 0, diag),
    COPY_ROW(MatrixDiagPart, "T", 0, diag),
    COPY_ROW(MatrixSetDiag, "T", 0, diag),
    {.op = TFC_OP_OneHot, .type_attr = "T", .types = G_DATA, .type_attr2 = "TI", .types2 = IDX,
     .host_memory_in = TFC_HOST(1), .compute = one_hot_compute},
};

int tfc_cuda_kernels_array(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
