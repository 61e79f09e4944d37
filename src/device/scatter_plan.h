/*
 * scatter_plan — the checks, texts and plans that the CPU and GPU kernels of the scatter
 * family share: the variable scatter updates (Scatter*, ResourceScatter*) and the index check
 * of ResourceGather, ScatterNd, DynamicStitch / ParallelDynamicStitch, DynamicPartition, the
 * sorted segment reductions (Segment*).
 *
 * Each op's kernels call one function here for everything but the element work, so the two
 * devices accept and refuse exactly the same inputs with the same codes and texts (TF's). The
 * checks that read index values take the values as a separate host pointer: the CPU passes
 * the tensor's own data, a GPU kernel a host copy of the device indices it read back (the
 * tensor then only supplies dtype and shape). Index values are int32 or int64 (the tensor's
 * dtype says which).
 *
 * Errors are set on the kernel context (tfc_kernel_error: the executor adds node and device).
 * Thread-safe: no state.
 */
#ifndef TFC_DEVICE_SCATTER_PLAN_H
#define TFC_DEVICE_SCATTER_PLAN_H

#include "device/kernel.h"

/* Value i of int32 or int64 index values (dtype TFC_DT_INT32 or TFC_DT_INT64) at v. Pure. */
static inline int64_t tfc_index_at(int dtype, const void *v, int64_t i) {
  return dtype == TFC_DT_INT64 ? ((const int64_t *)v)[i] : ((const int32_t *)v)[i];
}

/* ---- variable scatter updates ---- */

/* How the updates combine with the variable's rows; the values are cuda_scatter.h's too. */
enum tfc_scatter_how {
  TFC_SCATTER_UPDATE = 0,
  TFC_SCATTER_ADD = 1,
  TFC_SCATTER_SUB = 2,
  TFC_SCATTER_MUL = 3,
  TFC_SCATTER_DIV = 4,
  TFC_SCATTER_MIN = 5,
  TFC_SCATTER_MAX = 6,
  TFC_SCATTER_HOW_COUNT = 7
};

/* Writes into v (the staged new value: old's dtype and shape, its contents unspecified) the
 * old value `old` with the updates applied; indices and updates are the op's inputs 1 and 2
 * (their shapes and dtypes checked). Returns the status code; a bad index must leave the
 * error in c (the update is then dropped). */
typedef int (*tfc_scatter_apply_fn)(tfc_kernel_ctx *c, int how, tfc_tensor *v, const tfc_tensor *old,
                                    const tfc_tensor *indices, const tfc_tensor *updates);
/* Whether the device combines dtype with `how` (UPDATE: moves it). */
typedef int (*tfc_scatter_supports_fn)(int dtype, int how);

/* The whole of Scatter<How> (ref variable: input 0, output 0 forwards it) and
 * ResourceScatter<How> (resource: handle input 0, no output) around the device's apply: locks
 * the variable and reads its value (FAILED_PRECONDITION "Attempting to use uninitialized value
 * <var>"), checks updates' dtype against it (INVALID_ARGUMENT), the dtype against `supports`
 * (UNIMPLEMENTED "<Op> does not support <dtype>"), the shapes (INVALID_ARGUMENT "params must
 * be at least 1-D, got shape [..]", "Must have updates.shape = indices.shape +
 * params.shape[1:] or updates.shape = [], got updates.shape [..], indices.shape [..],
 * params.shape [..]"), stages a new value and has apply fill it, then installs it (journaled
 * in the step) or, on any error, leaves the variable unchanged. */
int tfc_scatter_compute(tfc_kernel_ctx *c, int how, int resource, tfc_scatter_supports_fn supports,
                        tfc_scatter_apply_fn apply);

/* Checks every index value in [0, rows): INVALID_ARGUMENT "indices[1,0] = 7 is not in [0, 5)"
 * for the first bad one, by its coordinates in `indices` (whose dtype and shape describe
 * `values`), as TF's scatter and gather kernels word it. */
int tfc_scatter_check_indices(tfc_kernel_ctx *c, const tfc_tensor *indices, const void *values, int64_t rows);

/* The one write per destination row that leaves what writing all of them in order would: for
 * n destinations dst (int32 or int64 values by dtype, each in [0, limit)), out[i] = dst[i]
 * when i is the last position naming its row, else -1 (ScatterUpdate's and DynamicStitch's
 * duplicates on a device that writes in parallel). Returns 0, or -1 when out of memory. */
int tfc_scatter_last_writers(int dtype, const void *dst, int64_t n, int64_t limit, int64_t *out);

/* ---- ScatterNd ---- */

typedef struct tfc_scatter_nd_plan {
  int rank;                    /* the output's */
  int64_t dims[TFC_MAX_DIMS];  /* the output's (input 2, shape) */
  int64_t k;                   /* indices.shape[-1]: coordinates per index */
  int64_t n;                   /* index rows */
  int64_t slice;               /* elements per update row: prod(dims[k:]) */
  int ignore;                  /* bad_indices_policy "IGNORE": a bad row is skipped */
} tfc_scatter_nd_plan;
/* ScatterNd (indices 0, updates 1, shape 2 in host memory): the attr, the shape and the
 * updates' shape against indices and shape ("The shape of updates [..] must be
 * indices.shape[:-1] + shape[indices.shape[-1]:] for indices [..] and shape [..]"). */
int tfc_scatter_nd_plan_of(tfc_kernel_ctx *c, tfc_scatter_nd_plan *p);
/* The offset (in slices) row r of the index values addresses, or -1 when a coordinate is
 * outside the shape. Pure. */
int64_t tfc_scatter_nd_offset(const tfc_scatter_nd_plan *p, int dtype, const void *values, int64_t r);
/* Unless p->ignore: INVALID_ARGUMENT "indices[1] = [0, 5] does not index into shape [3,4]" for
 * the first row with a coordinate outside the shape. */
int tfc_scatter_nd_check_indices(tfc_kernel_ctx *c, const tfc_scatter_nd_plan *p, const tfc_tensor *indices,
                                 const void *values);

/* ---- DynamicStitch, ParallelDynamicStitch, DynamicPartition ---- */

/* DynamicStitch / ParallelDynamicStitch (N int32 index tensors in host memory, then N data
 * tensors; only the data's shapes are read): TF's checks in TF's order ("indices[3] is out of
 * range", "data[1].shape = [..] does not start with indices[1].shape = [..]", "Need
 * data[0].shape[1:] = data[1].shape[1:], got ..."); the output dims (rank *out_rank) and the
 * elements per merged row. */
int tfc_stitch_plan_of(tfc_kernel_ctx *c, int64_t *out_dims, int *out_rank, int64_t *row);

/* DynamicPartition (data 0, partitions 1 with `values` its int32 values): checks that data's
 * shape starts with partitions' shape and every partition is in [0, num_partitions)
 * ("partitions[2] = 5 is not in [0, 2)"); counts[p] (num_partitions = c->n_outputs of them)
 * rows go to output p, each *row elements. */
int tfc_partition_plan_of(tfc_kernel_ctx *c, const int32_t *values, int64_t *counts, int64_t *row);

/* DynamicPartition's rows by partition: for n partition values (each in [0, np)), src[0..n)
 * lists the rows of partition 0 in order, then those of partition 1, ...; start[0..np] is
 * where each partition's run begins (start[np] = n). Returns 0, or -1 when out of memory. */
int tfc_partition_sources(const int32_t *values, int64_t n, int np, int64_t *start, int64_t *src);

/* ---- segment reductions ---- */

/* The sorted Segment* ops (data 0, segment_ids 1 with `values` their values): "segment_ids
 * should be a vector.", "segment_ids should be the same size as dimension 0 of input.",
 * "segment ids must be >= 0", "segment ids are not increasing", "Segment id 5 out of range
 * [0, 3), possibly because 'segment_ids' input is not sorted." in TF's order; *rows segments
 * (the last id + 1) of *inner elements. */
int tfc_segment_plan_of(tfc_kernel_ctx *c, const void *values, int64_t *rows, int64_t *inner);


#endif
