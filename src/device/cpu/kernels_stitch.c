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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"
#include "tensor/dtype.h"

static int stitch_compute(tfc_kernel_ctx *c) {
  int n = c->n_inputs / 2;
  tfc_tensor *const *ix = c->inputs, *const *data = c->inputs + n;
  int64_t max_index = -1;
  for (int m = 0; m < n; m++) {
    const int32_t *v = ix[m]->data;
    for (int64_t i = 0; i < ix[m]->n_elems; i++)
      if (v[i] > max_index) max_index = v[i];
  }
  int64_t first = max_index + 1;
  for (int m = 0; m < n; m++) {
    const int32_t *v = ix[m]->data;
    for (int64_t i = 0; i < ix[m]->n_elems; i++)
      if (v[i] < 0 || v[i] >= first)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices[%lld] is out of range", (long long)i);
  }
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX], e[TFC_SHAPE_STR_MAX], f[TFC_SHAPE_STR_MAX];
  int r0 = ix[0]->ndims;
  for (int m = 0; m < n; m++) {
    const tfc_tensor *im = ix[m], *dm = data[m];
    int prefix = dm->ndims >= im->ndims;
    for (int d = 0; prefix && d < im->ndims; d++) prefix = dm->dims[d] == im->dims[d];
    if (!prefix)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "data[%d].shape = %s does not start with indices[%d].shape = %s", m,
                              tfc_tensor_shape_str(dm, a, sizeof a), m, tfc_tensor_shape_str(im, b, sizeof b));
    if (m == 0) continue;
    int same = dm->ndims - im->ndims == data[0]->ndims - r0;
    for (int d = 0; same && d < dm->ndims - im->ndims; d++) same = dm->dims[im->ndims + d] == data[0]->dims[r0 + d];
    if (!same)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Need data[0].shape[%d:] = data[%d].shape[%d:], got data[0].shape = %s, data[%d].shape = "
                              "%s, indices[0].shape = %s, indices[%d].shape = %s",
                              r0, m, im->ndims, tfc_tensor_shape_str(data[0], a, sizeof a), m,
                              tfc_tensor_shape_str(dm, b, sizeof b), tfc_tensor_shape_str(ix[0], e, sizeof e), m,
                              tfc_tensor_shape_str(im, f, sizeof f));
  }
  int rank = 1 + data[0]->ndims - r0;
  if (rank > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape of rank %d exceeds the maximum rank %d", rank, TFC_MAX_DIMS);
  int64_t dims[TFC_MAX_DIMS];
  dims[0] = first;
  memcpy(dims + 1, data[0]->dims + r0, sizeof(int64_t) * (size_t)(rank - 1));
  int dtype = data[0]->dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, dims, rank);
  if (!out) return c->status->code;
  int64_t row = tfc_dims_num_elements(dims + 1, rank - 1);
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
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int prefix = data->ndims >= part->ndims;
  for (int d = 0; prefix && d < part->ndims; d++) prefix = data->dims[d] == part->dims[d];
  if (!prefix)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "data.shape must start with partitions.shape, got data.shape = %s, "
                            "partitions.shape = %s", tfc_tensor_shape_str(data, a, sizeof a),
                            tfc_tensor_shape_str(part, b, sizeof b));
  const int32_t *pv = part->data;
  int64_t counts[256], *cnt = np <= 256 ? counts : calloc((size_t)np, sizeof *cnt);
  if (!cnt) return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "DynamicPartition: out of memory");
  memset(cnt, 0, (size_t)np * sizeof *cnt);
  int rc = TFC_OK;
  for (int64_t i = 0; i < part->n_elems && rc == TFC_OK; i++) {
    if (pv[i] < 0 || pv[i] >= np) {
      char where[64] = "";
      size_t off = 0;
      int64_t coord[TFC_MAX_DIMS], r = i;
      for (int d = part->ndims - 1; d >= 0; d--) {
        coord[d] = part->dims[d] ? r % part->dims[d] : 0;
        r = part->dims[d] ? r / part->dims[d] : 0;
      }
      for (int d = 0; d < part->ndims && off < sizeof where; d++)
        off += (size_t)snprintf(where + off, sizeof where - off, "%s%lld", d ? "," : "", (long long)coord[d]);
      rc = tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "partitions%s%s%s = %d is not in [0, %d)", part->ndims ? "[" : "",
                            where, part->ndims ? "]" : "", pv[i], np);
    } else {
      cnt[pv[i]]++;
    }
  }
  int rank = 1 + data->ndims - part->ndims;
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims + 1, data->dims + part->ndims, sizeof(int64_t) * (size_t)(rank - 1));
  int64_t row = tfc_dims_num_elements(dims + 1, rank - 1);
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
