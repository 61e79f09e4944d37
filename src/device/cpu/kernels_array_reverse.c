/*
 * kernels_array_reverse — CPU kernels of ReverseV2 (tf.reverse) and ReverseSequence
 * (tf.reverse_sequence, which bidirectional dynamic RNNs use to run the backward cell over
 * each row's own length).
 *
 * ReverseV2 is a window with negative strides on the reversed axes (array_plan.h's window plan,
 * which the GPU kernel shares): one strided copy (array_copy.h). ReverseSequence views the input as [outer, A, middle, B, inner] with A and B
 * the batch and sequence dims in dim order; each (outer, a, middle, b) picks one contiguous run
 * of `inner` elements, read from the mirrored sequence position when it lies inside that
 * row's length. Both move strings by value. The checks and texts are TF's kernels' (as TF 2.21
 * prints them; the shape functions in shape_array.c catch most of them at graph build).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"

static int reverse_v2_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  tfc_window_plan w;
  TFC_TRY(tfc_window_plan_of(c, &w));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, in->dims, in->ndims);
  if (!out) return c->status->code;
  return tfc_array_strided_copy(c, out, in, w.rank, w.dims, w.src_strides, w.offset);
}

typedef struct rs_attrs {
  int64_t seq_dim, batch_dim;
} rs_attrs;

static int rs_init(const tfc_node *n, void **state, tfc_status *s) {
  rs_attrs *a = malloc(sizeof *a);
  if (!a) return TFC_OOM(s);
  a->batch_dim = 0;
  if (tfc_kernel_attr_int(n, "seq_dim", &a->seq_dim, s) || tfc_kernel_attr_int(n, "batch_dim", &a->batch_dim, s)) {
    free(a);
    return s->code;
  }
  *state = a;
  return TFC_OK;
}

static int64_t dims_product(const int64_t *dims, int from, int to) {
  int64_t p = 1;
  for (int d = from; d < to; d++) p *= dims[d];
  return p;
}

static int reverse_sequence_compute(tfc_kernel_ctx *c) {
  const rs_attrs *a = c->state;
  const tfc_tensor *in = c->inputs[0], *lens = c->inputs[1];
  int64_t sd = a->seq_dim, bd = a->batch_dim;
  int rank = in->ndims;
  if (sd < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid seq_dim %lld", (long long)sd);
  if (bd < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid batch_dim %lld", (long long)bd);
  if (bd == sd) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dim == seq_dim == %lld", (long long)sd);
  if (sd >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_dim must be < input rank ( %lld vs. %d)", (long long)sd, rank);
  if (bd >= rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "batch_dim must be < input rank ( %lld vs. %d)", (long long)bd,
                            rank);
  if (lens->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lengths must be 1-dim, not %d", lens->ndims);
  if (lens->n_elems != in->dims[bd])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Length of seq_lengths != input.dims(%lld), (%lld vs. %lld)",
                            (long long)bd, (long long)lens->n_elems, (long long)in->dims[bd]);
  for (int64_t i = 0; i < lens->n_elems; i++) {
    int64_t l = tfc_array_int_at(lens, i);
    if (l < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lens(%lld) < 0", (long long)i);
    if (l > in->dims[sd])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seq_lens(%lld) > input.dims(%lld)", (long long)i, (long long)sd);
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, in->dims, rank);
  if (!out || out->n_elems == 0) return c->status->code;
  /* [outer, A, middle, B, inner], A the first of the two dims */
  int first = bd < sd ? (int)bd : (int)sd, second = bd < sd ? (int)sd : (int)bd;
  int64_t outer = dims_product(in->dims, 0, first), na = in->dims[first];
  int64_t middle = dims_product(in->dims, first + 1, second), nb = in->dims[second];
  int64_t inner = dims_product(in->dims, second + 1, rank);
  size_t es = tfc_dtype_size(in->dtype);
  const char *src = in->data;
  char *dst = out->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t ia = 0; ia < na; ia++)
      for (int64_t m = 0; m < middle; m++)
        for (int64_t ib = 0; ib < nb; ib++) {
          int64_t batch = first == bd ? ia : ib, seq = first == bd ? ib : ia;
          int64_t len = tfc_array_int_at(lens, batch), from = seq < len ? len - 1 - seq : seq;
          int64_t fa = first == bd ? ia : from, fb = first == bd ? from : ib;
          int64_t run = (((o * na + ia) * middle + m) * nb + ib) * inner;
          int64_t from_run = (((o * na + fa) * middle + m) * nb + fb) * inner;
          if (tfc_array_copy(dst + (size_t)run * es, src + (size_t)from_run * es, inner, in->dtype, c->status))
            return c->status->code;
        }
  return TFC_OK;
}

static const tfc_kernel_def reverse_kernels[] = {
    {.op = TFC_OP_ReverseV2, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = reverse_v2_compute},
    {.op = TFC_OP_ReverseSequence, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .init = rs_init, .compute = reverse_sequence_compute, .free_state = free},
};

int tfc_cpu_kernels_array_reverse(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, reverse_kernels, (int)(sizeof reverse_kernels / sizeof reverse_kernels[0]), s);
}
