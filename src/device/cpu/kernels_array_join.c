/*
 * kernels_array_join — CPU kernels that join or cut tensors along one axis (ConcatV2, Concat,
 * Pack; Split, SplitV, Unpack) and that pick slices by index (GatherV2, Gather).
 *
 * Joining and cutting along an axis both view each tensor as [outer, run] with the axis
 * folded into the run: concat writes each output row as the pieces' runs side by side, split
 * reads it back apart (tfc_array_concat). Pack/Unpack are the same with a run of one slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"

static int64_t prod(const int64_t *dims, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= dims[i];
  return p;
}

/* runs[n] scratch: on the stack for typical counts. */
typedef struct runs_buf {
  int64_t small[16];
  int64_t *v;
} runs_buf;

static int64_t *runs_get(runs_buf *r, int n, tfc_status *s) {
  r->v = n <= 16 ? r->small : malloc(sizeof(int64_t) * (size_t)n);
  if (!r->v) TFC_OOM(s);
  return r->v;
}

static void runs_free(runs_buf *r) {
  if (r->v != r->small) free(r->v);
}

/* ---- ConcatV2 / Concat ---- */

static int concat_compute(tfc_kernel_ctx *c) {
  tfc_tensor *const *ins;
  int n;
  int64_t axis, dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_concat_plan_of(c, &ins, &n, &axis, dims));
  int rank = ins[0]->ndims;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, ins[0]->dtype, dims, rank);
  if (!out) return c->status->code;
  runs_buf rb;
  int64_t *runs = runs_get(&rb, n, c->status);
  if (!runs) return c->status->code;
  int64_t inner = prod(dims, (int)axis + 1, rank);
  for (int k = 0; k < n; k++) runs[k] = ins[k]->dims[axis] * inner;
  int rc = tfc_array_concat(c, out, ins, n, prod(dims, 0, (int)axis), runs, 0);
  runs_free(&rb);
  return rc;
}


/* ---- Split / SplitV / Unpack ---- */

/* Cuts `in` along `axis` into n_outputs pieces of sizes[k] (dropping the axis when `squeeze`). */
static int split_into(tfc_kernel_ctx *c, const tfc_tensor *in, int axis, const int64_t *sizes, int squeeze) {
  int n = c->n_outputs;
  int64_t inner = prod(in->dims, axis + 1, in->ndims);
  runs_buf rb;
  int64_t *runs = runs_get(&rb, n, c->status);
  if (!runs) return c->status->code;
  int rc = TFC_OK;
  for (int k = 0; k < n && !rc; k++) {
    int64_t dims[TFC_MAX_DIMS];
    int r = 0;
    for (int d = 0; d < in->ndims; d++) {
      if (d == axis && squeeze) continue;
      dims[r++] = d == axis ? sizes[k] : in->dims[d];
    }
    if (!tfc_kernel_alloc_output(c, k, in->dtype, dims, r)) rc = c->status->code;
    runs[k] = sizes[k] * inner;
  }
  if (!rc) rc = tfc_array_concat(c, (tfc_tensor *)in, c->outputs, n, prod(in->dims, 0, axis), runs, 1);
  runs_free(&rb);
  return rc;
}

/* Split and SplitV: the shared plan (device/array_plan.h), then one copy per piece. */
static int split_compute(tfc_kernel_ctx *c) {
  int n = c->n_outputs, axis = 0;
  tfc_tensor *in = c->inputs[c->node->op->id == TFC_OP_SplitV ? 0 : 1];
  runs_buf rb;
  int64_t *sizes = runs_get(&rb, n, c->status);
  if (!sizes) return c->status->code;
  int rc = tfc_split_plan_of(c, &axis, sizes);
  if (!rc) {
    if (n == 1) tfc_kernel_set_output(c, 0, tfc_tensor_ref(in));
    else rc = split_into(c, in, axis, sizes, 0);
  }
  runs_free(&rb);
  return rc;
}

static int unpack_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  int n = c->n_outputs, a;
  TFC_TRY(tfc_unpack_plan_of(c, &a));
  if (n == 0) return TFC_OK;
  runs_buf rb;
  int64_t *sizes = runs_get(&rb, n, c->status);
  if (!sizes) return c->status->code;
  for (int k = 0; k < n; k++) sizes[k] = 1;
  int rc = split_into(c, in, a, sizes, 1);
  runs_free(&rb);
  return rc;
}

/* ---- Pack ---- */

static int pack_compute(tfc_kernel_ctx *c) {
  int n = c->n_inputs, rank, a;
  const tfc_tensor *x0 = c->inputs[0];
  int64_t dims[TFC_MAX_DIMS];
  TFC_TRY(tfc_pack_plan_of(c, dims, &rank, &a));
  if (n == 1) {
    tfc_tensor *out = tfc_tensor_reshaped(c->inputs[0], dims, rank, c->status);
    if (!out) return c->status->code;
    tfc_kernel_set_output(c, 0, out);
    return TFC_OK;
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x0->dtype, dims, rank);
  if (!out) return c->status->code;
  runs_buf rb;
  int64_t *runs = runs_get(&rb, n, c->status);
  if (!runs) return c->status->code;
  int64_t inner = prod(x0->dims, a, x0->ndims);
  for (int k = 0; k < n; k++) runs[k] = inner;
  int rc = tfc_array_concat(c, out, c->inputs, n, prod(x0->dims, 0, a), runs, 0);
  runs_free(&rb);
  return rc;
}

/* ---- GatherV2 / Gather ---- */

/* Gather and GatherV2: the shared plan, then every index checked (host memory here). */
static int gather_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *p = c->inputs[0], *ix = c->inputs[1];
  tfc_gather_plan g;
  TFC_TRY(tfc_gather_plan_of(c, &g));
  int64_t limit = g.limit;
  for (int64_t i = 0; i < ix->n_elems; i++) {
    int64_t v = tfc_array_int_at(ix, i);
    if (v < 0 || v >= limit) {
      char at[TFC_SHAPE_STR_MAX];
      size_t off = 0;
      int64_t rem = i, coord[TFC_MAX_DIMS];
      for (int d = ix->ndims - 1; d >= 0; d--) {
        coord[d] = rem % ix->dims[d];
        rem /= ix->dims[d];
      }
      at[0] = '\0';
      for (int d = 0; d < ix->ndims && off < sizeof at; d++)
        off += (size_t)snprintf(at + off, sizeof at - off, "%s%lld", d ? "," : "", (long long)coord[d]);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "indices%s%s%s = %lld is not in [0, %lld)",
                              ix->ndims ? "[" : "", at, ix->ndims ? "]" : "", (long long)v, (long long)limit);
    }
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p->dtype, g.dims, g.rank);
  if (!out) return c->status->code;
  return tfc_array_gather(c, out, p, ix, g.batch, g.outer, limit, g.n_idx, g.inner);
}


static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_ConcatV2, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .compute = concat_compute},
    {.op = TFC_OP_Concat,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(0),
     .compute = concat_compute},
    {.op = TFC_OP_Split,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(0),
     .compute = split_compute},
    {.op = TFC_OP_SplitV,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(1) | TFC_HOST(2),
     .compute = split_compute},
    {.op = TFC_OP_Pack, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .compute = pack_compute},
    {.op = TFC_OP_Unpack, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .compute = unpack_compute},
    {.op = TFC_OP_GatherV2,
     .type_attr = "Tparams",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(2),
     .compute = gather_compute},
    {.op = TFC_OP_Gather, .type_attr = "Tparams", .types = TFC_ARRAY_COPY_TYPES, .compute = gather_compute},
};

int tfc_cpu_kernels_array_join(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
