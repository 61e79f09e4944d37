/*
 * kernels_scatter — CPU kernels of the reference-variable scatter ops (ops_scatter.def):
 * ScatterUpdate, ScatterAdd, ScatterSub, ScatterMul, ScatterDiv, ScatterMin, ScatterMax, their
 * ResourceScatter* twins on resource variables, and ResourceGather.
 *
 * One locked, journaled update (tfc_kernel_update_*, device/kernel.h): the variable's value is
 * copied into the staged tensor (values are copy-on-write: readers keep the old tensor), then
 * row indices[i] of it is combined with row i of updates (or with the one value of a scalar
 * updates) in index order, so a row indexed twice takes both updates as TF's CPU kernel does.
 * The checks and texts are TF's: "params must be at least 1-D, got shape [..]", "Must have
 * updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape
 * [..], indices.shape [..], params.shape [..]", "indices[i] = k is not in [0, n)" (all
 * INVALID_ARGUMENT; an index out of range leaves the variable unchanged), FAILED_PRECONDITION
 * "Attempting to use uninitialized value <var>". ScatterUpdate copies bytes, so it takes every
 * fixed-size dtype; the arithmetic ones take the real types (UNIMPLEMENTED "<Op> does not
 * support <dtype>" otherwise); an integer ScatterDiv by zero is INVALID_ARGUMENT "Integer
 * division by zero". A ref op's output forwards its input ref; the resource ops have none.
 * The lock, the checks and their texts are scatter_plan.h's (tfc_scatter_compute), which the GPU
 * kernels share; this file supplies the element work.
 * ResourceGather (batch_dims 0) reads the variable's current value (values are copy-on-write,
 * so the tensor it holds never changes) and gathers its rows as GatherV2 on axis 0 does, with
 * GatherV2's index check (the checks before it are variable_kernel.h's, which the GPU shares); an uninitialized variable is FAILED_PRECONDITION "Attempting to use
 * uninitialized value <var>" (both resource kinds; TF words a resource one as ReadVariableOp).
 */
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "device/scatter_plan.h"
#include "device/variable_kernel.h"
#include "state/variable.h"

/* dst[k] = dst[k] op src[scalar ? 0 : k] for k < n; for integers a zero divisor returns 1. */
#define SCATTER_ROW(T, IS_INT)                                                                     \
  static int row_##T(int how, T *restrict dst, const T *restrict src, int64_t n, int scalar) {     \
    for (int64_t k = 0; k < n; k++) {                                                              \
      T u = src[scalar ? 0 : k], *d = &dst[k];                                                     \
      switch (how) {                                                                               \
      case TFC_SCATTER_ADD: *d = (T)(*d + u); break;                                               \
      case TFC_SCATTER_SUB: *d = (T)(*d - u); break;                                               \
      case TFC_SCATTER_MUL: *d = (T)(*d * u); break;                                               \
      case TFC_SCATTER_DIV:                                                                        \
        if (IS_INT && u == 0) return 1;                                                            \
        *d = (T)(*d / u);                                                                          \
        break;                                                                                     \
      case TFC_SCATTER_MIN: *d = u < *d ? u : *d; break;                                           \
      default: *d = u > *d ? u : *d; break;                                                        \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }
SCATTER_ROW(float, 0)
SCATTER_ROW(double, 0)
SCATTER_ROW(int32_t, 1)
SCATTER_ROW(int64_t, 1)
SCATTER_ROW(uint8_t, 1)
SCATTER_ROW(int8_t, 1)
SCATTER_ROW(int16_t, 1)
SCATTER_ROW(uint16_t, 1)
SCATTER_ROW(uint32_t, 1)
SCATTER_ROW(uint64_t, 1)

/* Combines one row; 1 for an integer division by zero, -1 for a dtype without arithmetic. */
static int combine_row(int how, int dtype, void *dst, const void *src, int64_t n, int scalar) {
  switch (dtype) {
  case TFC_DT_FLOAT: return row_float(how, dst, src, n, scalar);
  case TFC_DT_DOUBLE: return row_double(how, dst, src, n, scalar);
  case TFC_DT_INT32: return row_int32_t(how, dst, src, n, scalar);
  case TFC_DT_INT64: return row_int64_t(how, dst, src, n, scalar);
  case TFC_DT_UINT8: return row_uint8_t(how, dst, src, n, scalar);
  case TFC_DT_INT8: return row_int8_t(how, dst, src, n, scalar);
  case TFC_DT_INT16: return row_int16_t(how, dst, src, n, scalar);
  case TFC_DT_UINT16: return row_uint16_t(how, dst, src, n, scalar);
  case TFC_DT_UINT32: return row_uint32_t(how, dst, src, n, scalar);
  case TFC_DT_UINT64: return row_uint64_t(how, dst, src, n, scalar);
  default: return -1;
  }
}

static int arithmetic_dtype(int dtype) {
  return dtype == TFC_DT_FLOAT || dtype == TFC_DT_DOUBLE || dtype == TFC_DT_INT32 || dtype == TFC_DT_INT64 ||
         dtype == TFC_DT_UINT8 || dtype == TFC_DT_INT8 || dtype == TFC_DT_INT16 || dtype == TFC_DT_UINT16 ||
         dtype == TFC_DT_UINT32 || dtype == TFC_DT_UINT64;
}

/* tfc_scatter_apply_fn: v = old with the updates applied in index order. */
static int scatter_into(tfc_kernel_ctx *c, int how, tfc_tensor *v, const tfc_tensor *old, const tfc_tensor *indices,
                        const tfc_tensor *updates) {
  int64_t rows = v->dims[0], n_idx = indices->n_elems;
  int64_t row_elems = rows ? v->n_elems / rows : 0;
  size_t esize = tfc_dtype_size(v->dtype), row_bytes = (size_t)row_elems * esize;
  int scalar = updates->ndims == 0;
  /* first: a bad index changes nothing */
  TFC_TRY(tfc_scatter_check_indices(c, indices, indices->data, rows));
  if (old->n_bytes) memcpy(v->data, old->data, old->n_bytes);
  for (int64_t i = 0; i < n_idx; i++) {
    char *dst = (char *)v->data + (size_t)tfc_index_at(indices->dtype, indices->data, i) * row_bytes;
    const char *src = (const char *)updates->data + (scalar ? 0 : (size_t)i * row_bytes);
    if (how == TFC_SCATTER_UPDATE) {
      if (!scalar) {
        memcpy(dst, src, row_bytes);
      } else {
        for (int64_t e = 0; e < row_elems; e++) memcpy(dst + (size_t)e * esize, src, esize);
      }
    } else if (combine_row(how, v->dtype, dst, src, row_elems, scalar)) {
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Integer division by zero");
    }
  }
  return TFC_OK;
}

/* ScatterUpdate moves any fixed-size dtype; the others combine the real types. */
static int cpu_supports(int dtype, int how) {
  return dtype != TFC_DT_STRING && (how == TFC_SCATTER_UPDATE || arithmetic_dtype(dtype));
}

static int scatter_compute(tfc_kernel_ctx *c, int how, int resource) {
  return tfc_scatter_compute(c, how, resource, cpu_supports, scatter_into);
}

static int resource_gather_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *indices = c->inputs[1];
  tfc_gather_plan g;
  tfc_tensor *params = tfc_varop_gather_plan(c, &g);
  if (!params) return c->status->code;
  int rc = tfc_scatter_check_indices(c, indices, indices->data, g.limit);
  if (rc == TFC_OK) {
    tfc_tensor *out = tfc_kernel_alloc_output(c, 0, params->dtype, g.dims, g.rank);
    rc = out ? tfc_array_gather(c, out, params, indices, 1, 1, g.limit, g.n_idx, g.inner) : c->status->code;
  }
  tfc_tensor_unref(params);
  return rc;
}

#define SCATTER_COMPUTES(name, HOW)                                                                \
  static int scatter_##name##_compute(tfc_kernel_ctx *c) { return scatter_compute(c, HOW, 0); }    \
  static int resource_scatter_##name##_compute(tfc_kernel_ctx *c) { return scatter_compute(c, HOW, 1); }
SCATTER_COMPUTES(update, TFC_SCATTER_UPDATE)
SCATTER_COMPUTES(add, TFC_SCATTER_ADD)
SCATTER_COMPUTES(sub, TFC_SCATTER_SUB)
SCATTER_COMPUTES(mul, TFC_SCATTER_MUL)
SCATTER_COMPUTES(div, TFC_SCATTER_DIV)
SCATTER_COMPUTES(min, TFC_SCATTER_MIN)
SCATTER_COMPUTES(max, TFC_SCATTER_MAX)

/* Resource edges carry host-side handles (input 0). */
#define HANDLE TFC_HOST(0)

static const tfc_kernel_def scatter_kernels[] = {
    {.op = TFC_OP_ScatterUpdate, .compute = scatter_update_compute},
    {.op = TFC_OP_ScatterAdd, .compute = scatter_add_compute},
    {.op = TFC_OP_ScatterSub, .compute = scatter_sub_compute},
    {.op = TFC_OP_ScatterMul, .compute = scatter_mul_compute},
    {.op = TFC_OP_ScatterDiv, .compute = scatter_div_compute},
    {.op = TFC_OP_ScatterMin, .compute = scatter_min_compute},
    {.op = TFC_OP_ScatterMax, .compute = scatter_max_compute},
    {.op = TFC_OP_ResourceScatterUpdate, .host_memory_in = HANDLE, .compute = resource_scatter_update_compute},
    {.op = TFC_OP_ResourceScatterAdd, .host_memory_in = HANDLE, .compute = resource_scatter_add_compute},
    {.op = TFC_OP_ResourceScatterSub, .host_memory_in = HANDLE, .compute = resource_scatter_sub_compute},
    {.op = TFC_OP_ResourceScatterMul, .host_memory_in = HANDLE, .compute = resource_scatter_mul_compute},
    {.op = TFC_OP_ResourceScatterDiv, .host_memory_in = HANDLE, .compute = resource_scatter_div_compute},
    {.op = TFC_OP_ResourceScatterMin, .host_memory_in = HANDLE, .compute = resource_scatter_min_compute},
    {.op = TFC_OP_ResourceScatterMax, .host_memory_in = HANDLE, .compute = resource_scatter_max_compute},
    {.op = TFC_OP_ResourceGather, .host_memory_in = HANDLE, .compute = resource_gather_compute},
};

int tfc_cpu_kernels_scatter(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, scatter_kernels, (int)(sizeof scatter_kernels / sizeof scatter_kernels[0]), s);
}
