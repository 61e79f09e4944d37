/*
 * kernels_stitch — CPU kernels of DynamicStitch and ParallelDynamicStitch:
 * merged[indices[m][i], ...] = data[m][i, ...], the output's first dim being the largest index
 * plus one (0 without indices) and its rest data[0].shape[rank(indices[0]):]; and of their
 * inverse DynamicPartition (rows of data sent to the output their partition names, in order).
 *
 * Partitions are copied in order m = 0..N-1 and elements in order i, so a later duplicate
 * overwrites an earlier one: DynamicStitch's "last one wins". ParallelDynamicStitch leaves the
 * winner unspecified; the same serial copy is one valid answer. Rows no index names stay zero
 * (empty strings), as TF's CPU kernels leave them. Elements are moved with tfc_array_copy, so
 * one body serves every fixed-size type and strings. Checks and their texts are TF's, in TF's
 * order: every index in range first, then each data[m]'s shape against indices[m] and data[0].
 * The checks live in scatter_plan.h (tfc_stitch_plan_of, tfc_partition_plan_of), shared with
 * the GPU kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"
#include "device/scatter_plan.h"
#include "tensor/dtype.h"

static int stitch_compute(tfc_kernel_ctx *c) {
  int n = c->n_inputs / 2, rank;
  tfc_tensor *const *ix = c->inputs, *const *data = c->inputs + n;
  int64_t dims[TFC_MAX_DIMS], row;
  TFC_TRY(tfc_stitch_plan_of(c, dims, &rank, &row));
  int dtype = data[0]->dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, dims, rank);
  if (!out) return c->status->code;
  size_t es = tfc_dtype_size(dtype);
  if (dtype != TFC_DT_STRING && out->n_elems) memset(out->data, 0, (size_t)out->n_elems * es);
  for (int m = 0; m < n; m++) {
    const int32_t *v = ix[m]->data;
    const char *src = data[m]->data;
    for (int64_t i = 0; i < ix[m]->n_elems; i++)
      TFC_TRY(tfc_array_copy((char *)out->data + (size_t)(v[i] * row) * es, src + (size_t)(i * row) * es, row, dtype,
                             c->status));
  }
  return TFC_OK;
}

/* DynamicPartition: output p holds the rows of data (data.shape[rank(partitions):] each) whose
 * partition is p, in order. */
static int partition_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *data = c->inputs[0], *part = c->inputs[1];
  int np = c->n_outputs;
  const int32_t *pv = part->data;
  int64_t counts[256], *cnt = np <= 256 ? counts : calloc((size_t)np, sizeof *cnt), row;
  if (!cnt) return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "DynamicPartition: out of memory");
  int rc = tfc_partition_plan_of(c, pv, cnt, &row);
  int rank = 1 + data->ndims - part->ndims;
  int64_t dims[TFC_MAX_DIMS];
  if (rc == TFC_OK) memcpy(dims + 1, data->dims + part->ndims, sizeof(int64_t) * (size_t)(rank - 1));
  size_t es = tfc_dtype_size(data->dtype);
  for (int p = 0; p < np && rc == TFC_OK; p++) {
    dims[0] = cnt[p];
    tfc_tensor *out = tfc_kernel_alloc_output(c, p, data->dtype, dims, rank);
    if (!out) {
      rc = c->status->code;
      break;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < part->n_elems && rc == TFC_OK; i++)
      if (pv[i] == p)
        rc = tfc_array_copy((char *)out->data + (size_t)(k++ * row) * es, (const char *)data->data + (size_t)(i * row) * es,
                            row, data->dtype, c->status);
  }
  if (cnt != counts) free(cnt);
  return rc;
}

/* TF registers both on CPU for every POD type, strings and the quantized types. */
#define STITCH_TYPES                                                                               \
  (TFC_ARRAY_COPY_TYPES | TFC_T(TFC_DT_QINT8) | TFC_T(TFC_DT_QUINT8) | TFC_T(TFC_DT_QINT32))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_DynamicStitch, .type_attr = "T", .types = STITCH_TYPES, .compute = stitch_compute},
    {.op = TFC_OP_ParallelDynamicStitch, .type_attr = "T", .types = STITCH_TYPES, .compute = stitch_compute},
    {.op = TFC_OP_DynamicPartition, .type_attr = "T", .types = STITCH_TYPES, .compute = partition_compute},
};

int tfc_cpu_kernels_stitch(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
