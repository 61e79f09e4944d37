/*
 * kernels_scatter_gpu — the GPU kernels of the scatter family, as TF 1.15 registers them for
 * DEVICE_GPU, on the launchers of cuda_scatter.cu:
 *   - Scatter{Update,Add,Sub,Mul,Div,Min,Max} on reference variables (scatter_op.cc: half,
 *     float, double) and ResourceScatter{...} on resource variables (resource_variable_ops.cc:
 *     float and double; ResourceScatterUpdate also bool with int32 indices); int32 or int64
 *     indices, in device memory;
 *   - ScatterNd (half, float, double, int32; shape in host memory);
 *   - DynamicStitch (half, float, double, int32, int64, complex64, complex128; the indices in
 *     host memory, the data in device memory; ParallelDynamicStitch's GPU row is TF's all-host
 *     one: device/gpu/kernels_gpu_host.c) and DynamicPartition (half, float, double,
 *     complex64, complex128; partitions in device memory);
 *   - UnsortedSegment{Sum,Max,Min,Prod} (half, float, double, int32; num_segments in host
 *     memory; like TF's GPU kernels, an id outside [0, num_segments) is dropped, where the CPU
 *     kernel reports INVALID_ARGUMENT: checking would need a copy back and a wait every step)
 *     and SegmentSum (half, float, double), the one sorted segment op TF 1.15 runs on a GPU;
 *   - MatrixBandPart (half, float, double, bool, complex64, complex128; the bounds in host
 *     memory) and ReverseSequence (half, float, double, bool; seq_lengths in device memory).
 * TF also lists complex types for ScatterNd and half for the resource scatters' arithmetic;
 * they are left out because the CPU kernels here have no such rows to check them against.
 *
 * Shared checks. Every kernel calls the CPU kernel's check-and-plan function (scatter_plan.h,
 * array_plan.h), so both devices refuse the same inputs with the same codes and texts. Where
 * those checks read values that live in device memory — a variable scatter's indices,
 * ScatterNd's indices, DynamicPartition's partitions, SegmentSum's ids, ReverseSequence's
 * lengths — the kernel copies them back to the host on the compute stream and waits for them
 * (read_back), then checks the host copy: a bad index is the CPU's INVALID_ARGUMENT and text
 * on the GPU too, and a failed scatter leaves the variable unchanged. That costs a stream
 * synchronization per run, as TF pays for DynamicPartition's sizes, SegmentSum's last id and
 * ReverseSequence's lengths; TF's GPU scatters skip bad indices silently instead.
 *
 * Element work:
 *   - a variable scatter copies the old value into the staged one (device to device), then
 *     ScatterUpdate writes each destination row once, from its last update in index order (the
 *     host marks the winners, so duplicates resolve as on the CPU, not by scheduling); the
 *     others combine every update atomically (cuda_scatter.h), so duplicates accumulate as on
 *     the CPU up to the rounding order of float sums, products and quotients;
 *   - ScatterNd: the host turns each index row into its flat slice offset (-1 when
 *     bad_indices_policy skips it) and the device sums the update rows into zeros at them;
 *   - DynamicStitch: zeros, then each merged row written once by its winner (the last
 *     partition, then the last position, naming it), marked on the host;
 *   - DynamicPartition: the host lists each partition's source rows, the device gathers them;
 *   - UnsortedSegment{Sum,Max,Min,Prod} share one launcher (identity fill, then an atomic
 *     combine per element) and one compute; SegmentSum checks its ids on the host
 *     (it needs the last one for the output's size anyway) and sums with the same launcher.
 * Host-side tables go to the device with cudaMemcpyAsync on the compute stream, and their host
 * buffers are freed in stream order after the copy (cudaLaunchHostFunc), without a wait.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_scatter.h"
#include "device/scatter_plan.h"

_Static_assert((int)TFC_CUDA_SC_ADD == (int)TFC_SCATTER_ADD && (int)TFC_CUDA_SC_SUB == (int)TFC_SCATTER_SUB &&
                   (int)TFC_CUDA_SC_MUL == (int)TFC_SCATTER_MUL && (int)TFC_CUDA_SC_DIV == (int)TFC_SCATTER_DIV &&
                   (int)TFC_CUDA_SC_MIN == (int)TFC_SCATTER_MIN && (int)TFC_CUDA_SC_MAX == (int)TFC_SCATTER_MAX,
               "cuda_scatter.h's combine codes are scatter_plan.h's");

#define G_F (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define G_FD (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define G_CX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define I32 TFC_T(TFC_DT_INT32)
#define IDX (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))

/* ---- host <-> device helpers ---- */

/* A host copy of t's bytes (malloc'd, the caller frees it), read on c's compute stream after
 * the work that produced them, and waited for; NULL with the error set in c. */
static void *read_back(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what) {
  void *stream, *h = NULL;
  if (tfc_cuda_ctx_stream(c, &stream)) return NULL;
  if (!(h = malloc(t->n_bytes ? t->n_bytes : 1))) {
    TFC_OOM(c->status);
    return NULL;
  }
  if (t->n_bytes == 0) return h;
  cudaError_t e = cudaMemcpyAsync(h, t->data, t->n_bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    free(h);
    tfc_kernel_error(c, TFC_INTERNAL, "%s: reading the %s back from the GPU failed: %s", c->node->op->name, what,
                     cudaGetErrorString(e));
    return NULL;
  }
  return h;
}

static void CUDART_CB free_host(void *p) { free(p); }

/* A device temporary holding the n int64 values at v (the caller unrefs it), or NULL with the
 * error set in c. Takes v over (malloc'd): a copy from pageable memory may still be reading it
 * when cudaMemcpyAsync returns, so it is freed in stream order once the copy has run (or at
 * once when nothing was enqueued). */
static tfc_tensor *upload_i64(tfc_kernel_ctx *c, int64_t *v, int64_t n) {
  void *stream;
  tfc_tensor *t = NULL;
  int64_t bytes = n * (int64_t)sizeof *v;
  if (tfc_cuda_ctx_stream(c, &stream) || !(t = tfc_cuda_ctx_temp(c, bytes ? bytes : 1)) || bytes == 0) {
    free(v);
    return t;
  }
  cudaStream_t st = (cudaStream_t)stream;
  cudaError_t e = cudaMemcpyAsync(t->data, v, (size_t)bytes, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess) {
    if (cudaLaunchHostFunc(st, free_host, v) == cudaSuccess) return t;
    (void)cudaGetLastError();
    e = cudaStreamSynchronize(st); /* the copy is enqueued: let it finish before freeing v */
  }
  free(v);
  if (e == cudaSuccess) return t;
  (void)cudaGetLastError();
  tfc_tensor_unref(t);
  tfc_kernel_error(c, TFC_INTERNAL, "%s: copying a table to the GPU failed: %s", c->node->op->name,
                   cudaGetErrorString(e));
  return NULL;
}

/* The launcher type of dtype, or UNIMPLEMENTED in c (a row admitted a type the launchers
 * lack: a table bug, reported rather than run). */
static int launch_type(tfc_kernel_ctx *c, int dtype, int *out) {
  *out = tfc_cuda_dtype_of(dtype);
  if (*out < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  return TFC_OK;
}

/* ---- variable scatter updates ---- */

static int gpu_supports(int dtype, int how) {
  if (how == TFC_SCATTER_UPDATE) return tfc_cuda_dtype_of(dtype) >= 0;
  return dtype == TFC_DT_HALF || dtype == TFC_DT_FLOAT || dtype == TFC_DT_DOUBLE;
}

/* tfc_scatter_apply_fn: check the indices on the host, copy old into v, apply on the device. */
static int gpu_apply(tfc_kernel_ctx *c, int how, tfc_tensor *v, const tfc_tensor *old, const tfc_tensor *indices,
                     const tfc_tensor *updates) {
  int64_t rows = v->dims[0], n_idx = indices->n_elems, inner = rows ? v->n_elems / rows : 0;
  int scalar = updates->ndims == 0;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  void *hidx = read_back(c, indices, "indices");
  if (!hidx) return c->status->code;
  int rc = tfc_scatter_check_indices(c, indices, hidx, rows);
  if (rc == TFC_OK && old->n_bytes)
    rc = tfc_cuda_ctx_check(c, tfc_cuda_memcpy(v->data, old->data, (int64_t)old->n_bytes, stream), v->dtype);
  if (rc == TFC_OK && n_idx > 0 && inner > 0) {
    if (how == TFC_SCATTER_UPDATE) {
      int64_t *dst = malloc((size_t)n_idx * sizeof *dst);
      tfc_tensor *dev = NULL;
      if (!dst || tfc_scatter_last_writers(indices->dtype, hidx, n_idx, rows, dst)) {
        free(dst);
        rc = TFC_OOM(c->status);
      } else if (!(dev = upload_i64(c, dst, n_idx))) { /* takes dst */
        rc = c->status->code;
      } else {
        rc = tfc_cuda_ctx_check(c,
                                tfc_cuda_scatter_rows((int)tfc_dtype_size(v->dtype), dev->data, updates->data,
                                                      v->data, n_idx, inner, scalar, stream),
                                v->dtype);
      }
      tfc_tensor_unref(dev);
    } else {
      int ct, it;
      rc = launch_type(c, v->dtype, &ct);
      if (rc == TFC_OK) rc = launch_type(c, indices->dtype, &it);
      if (rc == TFC_OK)
        rc = tfc_cuda_ctx_check(c,
                                tfc_cuda_scatter(how, ct, it, indices->data, updates->data, v->data, n_idx, inner,
                                                 rows, scalar, stream),
                                v->dtype);
    }
  }
  free(hidx);
  return rc;
}

#define SCATTER_COMPUTES(name, HOW)                                                                                \
  static int scatter_##name##_compute(tfc_kernel_ctx *c) {                                                        \
    return tfc_scatter_compute(c, HOW, 0, gpu_supports, gpu_apply);                                                \
  }                                                                                                                \
  static int resource_scatter_##name##_compute(tfc_kernel_ctx *c) {                                               \
    return tfc_scatter_compute(c, HOW, 1, gpu_supports, gpu_apply);                                                \
  }
SCATTER_COMPUTES(update, TFC_SCATTER_UPDATE)
SCATTER_COMPUTES(add, TFC_SCATTER_ADD)
SCATTER_COMPUTES(sub, TFC_SCATTER_SUB)
SCATTER_COMPUTES(mul, TFC_SCATTER_MUL)
SCATTER_COMPUTES(div, TFC_SCATTER_DIV)
SCATTER_COMPUTES(min, TFC_SCATTER_MIN)
SCATTER_COMPUTES(max, TFC_SCATTER_MAX)

/* ---- ScatterNd ---- */

static int scatter_nd_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *ind = c->inputs[0], *upd = c->inputs[1];
  tfc_scatter_nd_plan p;
  int ct;
  TFC_TRY(tfc_scatter_nd_plan_of(c, &p));
  TFC_TRY(launch_type(c, upd->dtype, &ct));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  void *hidx = read_back(c, ind, "indices");
  if (!hidx) return c->status->code;
  int64_t *offs = NULL, slices = tfc_dims_num_elements(p.dims, (int)p.k);
  tfc_tensor *dev = NULL, *out = NULL;
  int rc = tfc_scatter_nd_check_indices(c, &p, ind, hidx);
  if (rc == TFC_OK && !(offs = malloc((size_t)(p.n ? p.n : 1) * sizeof *offs))) rc = TFC_OOM(c->status);
  if (rc == TFC_OK) {
    for (int64_t r = 0; r < p.n; r++) offs[r] = tfc_scatter_nd_offset(&p, ind->dtype, hidx, r);
    out = tfc_kernel_alloc_output(c, 0, upd->dtype, p.dims, p.rank);
    if (!out) rc = c->status->code;
    else if (!(dev = upload_i64(c, offs, p.n))) rc = c->status->code;
    if (out) offs = NULL; /* upload_i64 took it */
  }
  if (rc == TFC_OK && out->n_elems)
    rc = tfc_cuda_ctx_check(c,
                            tfc_cuda_unsorted_segment(TFC_CUDA_SC_ADD, ct, TFC_CUDA_I64, upd->data, dev->data,
                                                      out->data, p.n, p.slice, slices, stream),
                            upd->dtype);
  tfc_tensor_unref(dev);
  free(offs);
  free(hidx);
  return rc;
}

/* ---- DynamicStitch ---- */

static int stitch_compute(tfc_kernel_ctx *c) {
  int n = c->n_inputs / 2, rank;
  tfc_tensor *const *ix = c->inputs, *const *data = c->inputs + n;
  int64_t dims[TFC_MAX_DIMS], row, total = 0;
  TFC_TRY(tfc_stitch_plan_of(c, dims, &rank, &row));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int dtype = data[0]->dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, dims, rank);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), dtype));
  for (int m = 0; m < n; m++) total += ix[m]->n_elems;
  /* Each merged row's winner: the last position naming it in partition order. */
  int32_t *all = malloc((size_t)(total ? total : 1) * sizeof *all);
  int64_t *dst = malloc((size_t)(total ? total : 1) * sizeof *dst);
  int rc = all && dst ? TFC_OK : TFC_OOM(c->status);
  for (int64_t m = 0, at = 0; rc == TFC_OK && m < n; at += ix[m]->n_elems, m++)
    if (ix[m]->n_elems) memcpy(all + at, ix[m]->data, (size_t)ix[m]->n_elems * sizeof *all);
  if (rc == TFC_OK && tfc_scatter_last_writers(TFC_DT_INT32, all, total, dims[0], dst)) rc = TFC_OOM(c->status);
  free(all);
  tfc_tensor *dev = NULL;
  if (rc == TFC_OK) {
    dev = upload_i64(c, dst, total); /* takes dst */
    dst = NULL;
    if (!dev) rc = c->status->code;
  }
  int64_t base = 0;
  for (int m = 0; rc == TFC_OK && m < n; base += ix[m]->n_elems, m++)
    rc = tfc_cuda_ctx_check(c,
                            tfc_cuda_scatter_rows((int)tfc_dtype_size(dtype), (const int64_t *)dev->data + base,
                                                  data[m]->data, out->data, ix[m]->n_elems, row, 0, stream),
                            dtype);
  tfc_tensor_unref(dev);
  free(dst);
  return rc;
}

/* ---- DynamicPartition ---- */

static int partition_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *data = c->inputs[0], *part = c->inputs[1];
  int np = c->n_outputs;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int32_t *pv = read_back(c, part, "partitions");
  if (!pv) return c->status->code;
  int64_t *counts = calloc((size_t)np + 1, sizeof *counts), *start = calloc((size_t)np + 1, sizeof *start);
  int64_t *src = malloc((size_t)(part->n_elems ? part->n_elems : 1) * sizeof *src), row = 0;
  int rc = counts && start && src ? tfc_partition_plan_of(c, pv, counts, &row) : TFC_OOM(c->status);
  if (rc == TFC_OK && tfc_partition_sources(pv, part->n_elems, np, start, src)) rc = TFC_OOM(c->status);
  tfc_tensor *dev = NULL;
  if (rc == TFC_OK) {
    dev = upload_i64(c, src, part->n_elems); /* takes src */
    src = NULL;
    if (!dev) rc = c->status->code;
  }
  /* A 16-byte element (complex128) moves as two 8-byte words of the gather. */
  int es = (int)tfc_dtype_size(data->dtype), words = es == 16 ? 2 : 1;
  int rank = 1 + data->ndims - part->ndims;
  int64_t dims[TFC_MAX_DIMS];
  if (rc == TFC_OK) memcpy(dims + 1, data->dims + part->ndims, sizeof(int64_t) * (size_t)(rank - 1));
  for (int p = 0; p < np && rc == TFC_OK; p++) {
    dims[0] = start[p + 1] - start[p];
    tfc_tensor *out = tfc_kernel_alloc_output(c, p, data->dtype, dims, rank);
    if (!out) rc = c->status->code;
    else if (out->n_elems)
      rc = tfc_cuda_ctx_check(c,
                              tfc_cuda_gather(es / words, TFC_CUDA_I64, data->data,
                                              (const int64_t *)dev->data + start[p], out->data, 1, 1, part->n_elems,
                                              dims[0], row * words, stream),
                              data->dtype);
  }
  tfc_tensor_unref(dev);
  free(start);
  free(src);
  free(counts);
  free(pv);
  return rc;
}

/* ---- segment reductions ---- */

static int unsorted_segment_compute(tfc_kernel_ctx *c, int how) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  int64_t dims[TFC_MAX_DIMS], num, inner;
  int rank, ct, it;
  TFC_TRY(tfc_unsorted_segment_plan_of(c, dims, &rank, &num, &inner));
  TFC_TRY(launch_type(c, data->dtype, &ct));
  TFC_TRY(launch_type(c, ids->dtype, &it));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, data->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_unsorted_segment(how, ct, it, data->data, ids->data, out->data, ids->n_elems,
                                                      inner, num, stream),
                            data->dtype);
}

static int unsorted_segment_sum_compute(tfc_kernel_ctx *c) { return unsorted_segment_compute(c, TFC_CUDA_SC_ADD); }
static int unsorted_segment_max_compute(tfc_kernel_ctx *c) { return unsorted_segment_compute(c, TFC_CUDA_SC_MAX); }
static int unsorted_segment_min_compute(tfc_kernel_ctx *c) { return unsorted_segment_compute(c, TFC_CUDA_SC_MIN); }
static int unsorted_segment_prod_compute(tfc_kernel_ctx *c) { return unsorted_segment_compute(c, TFC_CUDA_SC_MUL); }

static int segment_sum_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  int ct, it;
  TFC_TRY(launch_type(c, data->dtype, &ct));
  TFC_TRY(launch_type(c, ids->dtype, &it));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  void *hids = read_back(c, ids, "segment ids");
  if (!hids) return c->status->code;
  int64_t rows, inner;
  int rc = tfc_segment_plan_of(c, hids, &rows, &inner);
  free(hids);
  TFC_TRY(rc);
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, data->dims, sizeof(int64_t) * (size_t)data->ndims);
  dims[0] = rows;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, data->dtype, dims, data->ndims);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_unsorted_segment(TFC_CUDA_SC_ADD, ct, it, data->data, ids->data, out->data,
                                                      ids->n_elems, inner, rows, stream),
                            data->dtype);
}

/* ---- MatrixBandPart, ReverseSequence ---- */

static int band_part_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  int64_t batch, rows, cols, lower, upper;
  TFC_TRY(tfc_band_part_plan_of(c, &batch, &rows, &cols, &lower, &upper));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_band_part((int)tfc_dtype_size(x->dtype), x->data, out->data, batch, rows, cols,
                                               lower, upper, stream),
                            x->dtype);
}

static int reverse_sequence_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *lens = c->inputs[1];
  int lt;
  TFC_TRY(launch_type(c, lens->dtype, &lt));
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  void *hl = read_back(c, lens, "sequence lengths");
  if (!hl) return c->status->code;
  tfc_reverse_sequence_plan p;
  int rc = tfc_reverse_sequence_plan_of(c, hl, &p);
  free(hl);
  TFC_TRY(rc);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  tfc_cuda_revseq_plan lp = {p.outer, p.na, p.middle, p.nb, p.inner, p.batch_first};
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_reverse_sequence((int)tfc_dtype_size(x->dtype), lt, x->data, lens->data,
                                                      out->data, &lp, stream),
                            x->dtype);
}

/* ---- registration ---- */

/* Resource handles (input 0) live in host memory. */
#define HANDLE TFC_HOST(0)
#define REF_ROW(OP, fn)                                                                                             \
  {.op = TFC_OP_##OP, .type_attr = "T", .types = G_F, .type_attr2 = "Tindices", .types2 = IDX, .compute = fn}
#define RES_ROW(OP, TYPES, ITYPES, fn)                                                                              \
  {.op = TFC_OP_##OP, .type_attr = "dtype", .types = (TYPES), .type_attr2 = "Tindices", .types2 = (ITYPES),       \
   .host_memory_in = HANDLE, .compute = fn}
#define SEG_ROW(OP, fn)                                                                                             \
  {.op = TFC_OP_##OP, .type_attr = "T", .types = G_F | I32, .type_attr2 = "Tindices", .types2 = IDX,               \
   .host_memory_in = TFC_HOST(2), .compute = fn}

static const tfc_kernel_def defs[] = {
    /* scatter_op.cc: reference variables */
    REF_ROW(ScatterUpdate, scatter_update_compute),
    REF_ROW(ScatterAdd, scatter_add_compute),
    REF_ROW(ScatterSub, scatter_sub_compute),
    REF_ROW(ScatterMul, scatter_mul_compute),
    REF_ROW(ScatterDiv, scatter_div_compute),
    REF_ROW(ScatterMin, scatter_min_compute),
    REF_ROW(ScatterMax, scatter_max_compute),
    /* resource_variable_ops.cc: resource variables */
    RES_ROW(ResourceScatterUpdate, G_FD, IDX, resource_scatter_update_compute),
    RES_ROW(ResourceScatterUpdate, TFC_T(TFC_DT_BOOL), I32, resource_scatter_update_compute),
    RES_ROW(ResourceScatterAdd, G_FD, IDX, resource_scatter_add_compute),
    RES_ROW(ResourceScatterSub, G_FD, IDX, resource_scatter_sub_compute),
    RES_ROW(ResourceScatterMul, G_FD, IDX, resource_scatter_mul_compute),
    RES_ROW(ResourceScatterDiv, G_FD, IDX, resource_scatter_div_compute),
    RES_ROW(ResourceScatterMin, G_FD, IDX, resource_scatter_min_compute),
    RES_ROW(ResourceScatterMax, G_FD, IDX, resource_scatter_max_compute),
    /* scatter_nd_op.cc */
    {.op = TFC_OP_ScatterNd, .type_attr = "T", .types = G_F | I32, .type_attr2 = "Tindices", .types2 = IDX,
     .host_memory_in = TFC_HOST(2), .compute = scatter_nd_compute},
    /* dynamic_stitch_op.cc, dynamic_partition_op_gpu.cu.cc */
    {.op = TFC_OP_DynamicStitch, .type_attr = "T", .types = G_F | G_CX | I32 | TFC_T(TFC_DT_INT64),
     .flags = TFC_KF_HOST_FIRST_HALF, .compute = stitch_compute},
    {.op = TFC_OP_DynamicPartition, .type_attr = "T", .types = G_F | G_CX, .compute = partition_compute},
    /* segment_reduction_ops.cc */
    SEG_ROW(UnsortedSegmentSum, unsorted_segment_sum_compute),
    SEG_ROW(UnsortedSegmentMax, unsorted_segment_max_compute),
    SEG_ROW(UnsortedSegmentMin, unsorted_segment_min_compute),
    SEG_ROW(UnsortedSegmentProd, unsorted_segment_prod_compute),
    {.op = TFC_OP_SegmentSum, .type_attr = "T", .types = G_F, .type_attr2 = "Tindices", .types2 = IDX,
     .compute = segment_sum_compute},
    /* matrix_band_part_op.cc, reverse_sequence_op.cc */
    {.op = TFC_OP_MatrixBandPart, .type_attr = "T", .types = G_F | G_CX | TFC_T(TFC_DT_BOOL),
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2), .compute = band_part_compute},
    {.op = TFC_OP_ReverseSequence, .type_attr = "T", .types = G_F | TFC_T(TFC_DT_BOOL), .type_attr2 = "Tlen",
     .types2 = IDX, .init = tfc_reverse_sequence_init, .compute = reverse_sequence_compute, .free_state = free},
};

int tfc_cuda_kernels_scatter(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
