/*
 * scatter_plan — the checks and plans the CPU and GPU kernels of the scatter family share
 * (scatter_plan.h). Everything here runs on the host and reads only host memory: shapes,
 * host-memory inputs, and index values handed in as host pointers.
 */
#include "device/scatter_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "tensor/dtype.h"

/* "1,0": the coordinates of flat element i of a tensor of dims[0..rank), comma-separated. */
static void coords_str(const int64_t *dims, int rank, int64_t i, char *buf, size_t cap) {
  int64_t coord[TFC_MAX_DIMS], rem = i;
  for (int d = rank - 1; d >= 0; d--) {
    coord[d] = dims[d] ? rem % dims[d] : 0;
    rem = dims[d] ? rem / dims[d] : 0;
  }
  size_t off = 0;
  buf[0] = '\0';
  for (int d = 0; d < rank && off < cap; d++)
    off += (size_t)snprintf(buf + off, cap - off, "%s%lld", d ? "," : "", (long long)coord[d]);
}

/* ---- variable scatter updates ---- */

/* TF's ValidShapes against the variable's value; INVALID_ARGUMENT. */
static int check_shapes(tfc_kernel_ctx *c, const tfc_tensor *params, const tfc_tensor *indices,
                        const tfc_tensor *updates) {
  char ps[TFC_SHAPE_STR_MAX], is[TFC_SHAPE_STR_MAX], us[TFC_SHAPE_STR_MAX];
  if (params->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "params must be at least 1-D, got shape %s",
                            tfc_tensor_shape_str(params, ps, sizeof ps));
  int ok = updates->ndims == 0;
  if (!ok && updates->ndims == indices->ndims + params->ndims - 1) {
    ok = 1;
    for (int d = 0; d < indices->ndims; d++) ok &= updates->dims[d] == indices->dims[d];
    for (int d = 1; d < params->ndims; d++) ok &= updates->dims[indices->ndims + d - 1] == params->dims[d];
  }
  if (ok) return TFC_OK;
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
                          "updates.shape %s, indices.shape %s, params.shape %s",
                          tfc_tensor_shape_str(updates, us, sizeof us), tfc_tensor_shape_str(indices, is, sizeof is),
                          tfc_tensor_shape_str(params, ps, sizeof ps));
}

int tfc_scatter_compute(tfc_kernel_ctx *c, int how, int resource, tfc_scatter_supports_fn supports,
                        tfc_scatter_apply_fn apply) {
  const tfc_tensor *indices = c->inputs[1], *updates = c->inputs[2];
  tfc_var_update u;
  if (tfc_kernel_update_begin(c, (int[]){0}, 1, 1, &u)) return c->status->code;
  const tfc_tensor *old = u.old[0];
  if (old->dtype != updates->dtype) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: the variable holds %s, the updates are %s", c->node->op->name,
                     tfc_dtype_name(old->dtype), tfc_dtype_name(updates->dtype));
  } else if (!supports(old->dtype, how)) {
    tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s does not support %s", c->node->op->name, tfc_dtype_name(old->dtype));
  } else if (check_shapes(c, old, indices, updates) == TFC_OK) {
    tfc_tensor *v = tfc_kernel_update_alloc(c, &u, 0);
    if (v) apply(c, how, v, old, indices, updates);
  }
  if (tfc_kernel_update_end(c, &u)) return c->status->code;
  if (!resource) tfc_kernel_forward_ref(c, 0, 0);
  return TFC_OK;
}

int tfc_scatter_check_indices(tfc_kernel_ctx *c, const tfc_tensor *indices, const void *values, int64_t rows) {
  for (int64_t i = 0; i < indices->n_elems; i++) {
    int64_t k = tfc_index_at(indices->dtype, values, i);
    if (k >= 0 && k < rows) continue;
    char at[TFC_SHAPE_STR_MAX];
    coords_str(indices->dims, indices->ndims, i, at, sizeof at);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices%s%s%s = %lld is not in [0, %lld)",
                            indices->ndims ? "[" : "", at, indices->ndims ? "]" : "", (long long)k, (long long)rows);
  }
  return TFC_OK;
}

int tfc_scatter_last_writers(int dtype, const void *dst, int64_t n, int64_t limit, int64_t *out) {
  unsigned char *seen = calloc((size_t)(limit > 0 ? limit : 1), 1);
  if (!seen) return -1;
  for (int64_t i = n - 1; i >= 0; i--) {
    int64_t d = tfc_index_at(dtype, dst, i);
    out[i] = seen[d] ? -1 : d;
    seen[d] = 1;
  }
  free(seen);
  return 0;
}

/* ---- ScatterNd ---- */

int tfc_scatter_nd_plan_of(tfc_kernel_ctx *c, tfc_scatter_nd_plan *p) {
  const tfc_tensor *ind = c->inputs[0], *upd = c->inputs[1], *shp = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX], cs[TFC_SHAPE_STR_MAX];
  memset(p, 0, sizeof *p);
  TFC_TRY(tfc_kernel_bad_indices_ignore(c->node, &p->ignore, c->status));
  if (shp->ndims != 1 || shp->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape must be a vector, got shape %s",
                            tfc_tensor_shape_str(shp, a, sizeof a));
  p->rank = (int)shp->n_elems;
  for (int i = 0; i < p->rank; i++) p->dims[i] = tfc_tensor_get_i64(shp, i);
  if (ind->ndims < 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices must be at least a vector");
  int64_t k = ind->dims[ind->ndims - 1];
  p->k = k;
  p->n = k ? ind->n_elems / k : tfc_dims_num_elements(ind->dims, ind->ndims - 1);
  /* updates must be indices.shape[:-1] + shape[k:] */
  int ok = k <= p->rank && upd->ndims == ind->ndims - 1 + p->rank - (int)k;
  for (int i = 0; ok && i < ind->ndims - 1; i++) ok = upd->dims[i] == ind->dims[i];
  for (int i = 0; ok && i < p->rank - (int)k; i++) ok = upd->dims[ind->ndims - 1 + i] == p->dims[k + i];
  if (!ok) {
    tfc_shape s = tfc_shape_make(p->dims, p->rank);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "The shape of updates %s must be indices.shape[:-1] + shape[indices.shape[-1]:] for "
                            "indices %s and shape %s",
                            tfc_tensor_shape_str(upd, a, sizeof a), tfc_tensor_shape_str(ind, b, sizeof b),
                            tfc_shape_str(&s, cs, sizeof cs));
  }
  p->slice = 1;
  for (int i = (int)k; i < p->rank; i++) p->slice *= p->dims[i];
  return TFC_OK;
}

int64_t tfc_scatter_nd_offset(const tfc_scatter_nd_plan *p, int dtype, const void *values, int64_t r) {
  int64_t off = 0;
  for (int64_t d = 0; d < p->k; d++) {
    int64_t v = tfc_index_at(dtype, values, r * p->k + d);
    if (v < 0 || v >= p->dims[d]) return -1;
    off = off * p->dims[d] + v;
  }
  return off;
}

int tfc_scatter_nd_check_indices(tfc_kernel_ctx *c, const tfc_scatter_nd_plan *p, const tfc_tensor *indices,
                                 const void *values) {
  if (p->ignore) return TFC_OK;
  for (int64_t r = 0; r < p->n; r++) {
    if (tfc_scatter_nd_offset(p, indices->dtype, values, r) >= 0) continue;
    char at[TFC_SHAPE_STR_MAX] = "[", *q = at + 1, b[TFC_SHAPE_STR_MAX];
    for (int64_t e = 0; e < p->k; e++)
      q += snprintf(q, sizeof at - (size_t)(q - at) - 2, "%s%lld", e ? ", " : "",
                    (long long)tfc_index_at(indices->dtype, values, r * p->k + e));
    snprintf(q, sizeof at - (size_t)(q - at), "]");
    tfc_shape s = tfc_shape_make(p->dims, p->rank);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices[%lld] = %s does not index into shape %s", (long long)r,
                            at, tfc_shape_str(&s, b, sizeof b));
  }
  return TFC_OK;
}

/* ---- DynamicStitch, ParallelDynamicStitch, DynamicPartition ---- */

int tfc_stitch_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *row) {
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
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "data[%d].shape = %s does not start with indices[%d].shape = %s",
                              m, tfc_tensor_shape_str(dm, a, sizeof a), m, tfc_tensor_shape_str(im, b, sizeof b));
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
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape of rank %d exceeds the maximum rank %d", rank,
                            TFC_MAX_DIMS);
  out_dims[0] = first;
  memcpy(out_dims + 1, data[0]->dims + r0, sizeof(int64_t) * (size_t)(rank - 1));
  *out_rank = rank;
  *row = tfc_dims_num_elements(out_dims + 1, rank - 1);
  return TFC_OK;
}

int tfc_partition_plan_of(tfc_kernel_ctx *c, const int32_t *values, int64_t *counts, int64_t *row) {
  const tfc_tensor *data = c->inputs[0], *part = c->inputs[1];
  int np = c->n_outputs;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int prefix = data->ndims >= part->ndims;
  for (int d = 0; prefix && d < part->ndims; d++) prefix = data->dims[d] == part->dims[d];
  if (!prefix)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "data.shape must start with partitions.shape, got data.shape = %s, partitions.shape = %s",
                            tfc_tensor_shape_str(data, a, sizeof a), tfc_tensor_shape_str(part, b, sizeof b));
  memset(counts, 0, (size_t)np * sizeof *counts);
  for (int64_t i = 0; i < part->n_elems; i++) {
    if (values[i] >= 0 && values[i] < np) {
      counts[values[i]]++;
      continue;
    }
    char where[TFC_SHAPE_STR_MAX];
    coords_str(part->dims, part->ndims, i, where, sizeof where);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "partitions%s%s%s = %d is not in [0, %d)", part->ndims ? "[" : "",
                            where, part->ndims ? "]" : "", values[i], np);
  }
  *row = tfc_dims_num_elements(data->dims + part->ndims, data->ndims - part->ndims);
  return TFC_OK;
}

int tfc_partition_sources(const int32_t *values, int64_t n, int np, int64_t *start, int64_t *src) {
  int64_t *next = calloc((size_t)np + 1, sizeof *next);
  if (!next) return -1;
  for (int64_t i = 0; i < n; i++) next[values[i] + 1]++;
  for (int p = 0; p < np; p++) next[p + 1] += next[p];
  memcpy(start, next, ((size_t)np + 1) * sizeof *start);
  for (int64_t i = 0; i < n; i++) src[next[values[i]]++] = i;
  free(next);
  return 0;
}

/* ---- segment reductions ---- */

int tfc_segment_plan_of(tfc_kernel_ctx *c, const void *values, int64_t *rows, int64_t *inner) {
  const tfc_tensor *data = c->inputs[0], *ids = c->inputs[1];
  if (ids->ndims != 1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment_ids should be a vector.");
  if (data->ndims < 1 || ids->n_elems != data->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment_ids should be the same size as dimension 0 of input.");
  int dt = ids->dtype;
  int64_t n = ids->n_elems, out = n ? tfc_index_at(dt, values, n - 1) + 1 : 0;
  if (out < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment ids must be >= 0");
  /* TF's order of checks: each segment's end against the next id, then its bounds. */
  for (int64_t i = 0; i < n;) {
    int64_t s = tfc_index_at(dt, values, i), j = i + 1;
    while (j < n && tfc_index_at(dt, values, j) == s) j++;
    if (j < n && tfc_index_at(dt, values, j) < s)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "segment ids are not increasing");
    if (s < 0 || s >= out)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Segment id %lld out of range [0, %lld), possibly because 'segment_ids' input is not "
                              "sorted.",
                              (long long)s, (long long)out);
    i = j;
  }
  *rows = out;
  *inner = tfc_dims_num_elements(data->dims + 1, data->ndims - 1);
  return TFC_OK;
}
