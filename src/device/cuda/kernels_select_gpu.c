/*
 * kernels_select_gpu — the GPU kernels of Where (one input: the coordinates of the nonzero
 * elements) and TopKV2, on the launchers of cuda_select.cu.
 *
 * The checks are the CPU kernels' (device/array_plan.h's tfc_where_check, device/nn_plan.h's
 * tfc_top_k_plan_of), so both devices refuse the same inputs with the same codes and texts,
 * and the results are the CPU's exactly: Where's rows in row-major order, TopKV2's order with
 * its ties (lower index first), NaNs (above everything) and -0.0 (equal to 0.0).
 *
 * Where is the one kernel here that waits: its output's size is the number of nonzero
 * elements, which only the device knows. It counts on the device, copies the count back and
 * synchronizes the compute stream (as TF's GPU Where waits for its count), allocates the
 * output, and enqueues the pass that writes the coordinates.
 *
 * Types and memory, as TF 1.15's GPU registrations: Where takes bool, int8, uint8, int64, float,
 * double, complex64 and complex128 in device memory (its int32 row, all in host memory, runs the
 * CPU kernel: device/gpu/kernels_gpu_host.c); its int64 output is in device memory. TopKV2
 * takes half, float, double, int32 and int64 (TF also lists the narrow integers, which have no
 * CPU kernel here to check against), k in host memory, int32 (or int64) indices.
 */
#include <cuda_runtime_api.h>

#include "device/array_plan.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_select.h"
#include "device/nn_plan.h"

_Static_assert(TFC_CUDA_WHERE_MAX_RANK >= TFC_MAX_DIMS, "Where's launcher must take every rank");

/* ---- Where ---- */

/* How the launcher tests an element of dtype for nonzero, or -1. */
static int nonzero_kind(int dtype) {
  switch (dtype) {
    case TFC_DT_BOOL:
    case TFC_DT_INT8:
    case TFC_DT_UINT8: return TFC_CUDA_NZ_BYTE;
    case TFC_DT_INT64: return TFC_CUDA_NZ_I64;
    case TFC_DT_FLOAT: return TFC_CUDA_NZ_F32;
    case TFC_DT_DOUBLE: return TFC_CUDA_NZ_F64;
    case TFC_DT_COMPLEX64: return TFC_CUDA_NZ_C64;
    case TFC_DT_COMPLEX128: return TFC_CUDA_NZ_C128;
    default: return -1;
  }
}

/* Counts x's nonzero elements on the device into scratch and waits for the count: *total. */
static int where_count(tfc_kernel_ctx *c, int kind, const tfc_tensor *x, void *scratch, void *stream,
                       int64_t *total) {
  const int64_t *dev_total = NULL;
  int err = tfc_cuda_where_count(kind, x->data, x->n_elems, scratch, &dev_total, stream);
  if (err) return tfc_cuda_ctx_check(c, err, x->dtype);
  cudaError_t e = cudaMemcpyAsync(total, dev_total, sizeof *total, cudaMemcpyDeviceToHost, (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return tfc_kernel_error(c, TFC_INTERNAL, "%s: reading the number of true elements from the GPU failed: %s",
                            c->node->op->name, cudaGetErrorString(e));
  }
  return TFC_OK;
}

static int where_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  TFC_TRY(tfc_where_check(c));
  int kind = nonzero_kind(x->dtype);
  if (kind < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t total = 0;
  tfc_tensor *scratch = NULL;
  if (x->n_elems > 0) {
    if (!(scratch = tfc_cuda_ctx_temp(c, tfc_cuda_where_scratch_bytes(x->n_elems)))) return c->status->code;
    if (where_count(c, kind, x, scratch->data, stream, &total)) {
      tfc_tensor_unref(scratch);
      return c->status->code;
    }
  }
  const int64_t dims[2] = {total, x->ndims};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT64, dims, 2);
  int err = 0;
  if (out && total > 0) {
    tfc_cuda_where_shape shape = {.rank = x->ndims};
    for (int d = 0; d < x->ndims; d++) shape.dims[d] = x->dims[d];
    err = tfc_cuda_where_write(kind, x->data, &shape, scratch->data, out->data, stream);
  }
  /* Released after the enqueue: the allocator hands it out again only to later work. */
  tfc_tensor_unref(scratch);
  if (!out) return c->status->code;
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* ---- TopKV2 ---- */

static int top_k_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_top_k_plan p;
  TFC_TRY(tfc_top_k_plan_of(c, &p));
  int ct = tfc_cuda_dtype_of(x->dtype), it = tfc_cuda_dtype_of(p.idx_type);
  if (ct < 0 || ct == TFC_CUDA_BOOL) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  if (it != TFC_CUDA_I32 && it != TFC_CUDA_I64) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, p.idx_type);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *vals = tfc_kernel_alloc_output(c, 0, x->dtype, p.dims, p.ndims);
  if (!vals) return c->status->code;
  tfc_tensor *idx = tfc_kernel_alloc_output(c, 1, p.idx_type, p.dims, p.ndims);
  if (!idx) return c->status->code;
  if (p.rows == 0 || p.k == 0) return TFC_OK;
  int64_t bytes = tfc_cuda_top_k_scratch_bytes(p.rows, p.n);
  tfc_tensor *scratch = NULL;
  if (bytes > 0 && !(scratch = tfc_cuda_ctx_temp(c, bytes))) return c->status->code;
  int err = tfc_cuda_top_k(ct, it, x->data, p.rows, p.n, p.k, vals->data, idx->data, scratch ? scratch->data : NULL,
                           stream);
  tfc_tensor_unref(scratch);
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* ---- registration ---- */

#define WHERE_TYPES                                                                                                \
  (TFC_T(TFC_DT_BOOL) | TFC_T(TFC_DT_INT8) | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_FLOAT) |       \
   TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define TOP_K_TYPES                                                                                                \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Where, .type_attr = "T", .types = WHERE_TYPES, .compute = where_compute},
    {.op = TFC_OP_TopKV2, .type_attr = "T", .types = TOP_K_TYPES, .type_attr2 = "index_type",
     .types2 = TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64), .host_memory_in = TFC_HOST(1), .compute = top_k_compute},
};

int tfc_cuda_kernels_select(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
