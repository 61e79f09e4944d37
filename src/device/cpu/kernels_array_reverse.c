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

/* The checks and the [outer, A, middle, B, inner] view are array_plan.h's, shared with the GPU. */
static int reverse_sequence_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *lens = c->inputs[1];
  tfc_reverse_sequence_plan p;
  TFC_TRY(tfc_reverse_sequence_plan_of(c, lens->data, &p));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, in->dtype, in->dims, in->ndims);
  if (!out || out->n_elems == 0) return c->status->code;
  size_t es = tfc_dtype_size(in->dtype);
  const char *src = in->data;
  char *dst = out->data;
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t ia = 0; ia < p.na; ia++)
      for (int64_t m = 0; m < p.middle; m++)
        for (int64_t ib = 0; ib < p.nb; ib++) {
          int64_t batch = p.batch_first ? ia : ib, seq = p.batch_first ? ib : ia;
          int64_t len = tfc_array_int_at(lens, batch), from = seq < len ? len - 1 - seq : seq;
          int64_t fa = p.batch_first ? ia : from, fb = p.batch_first ? from : ib;
          int64_t run = (((o * p.na + ia) * p.middle + m) * p.nb + ib) * p.inner;
          int64_t from_run = (((o * p.na + fa) * p.middle + m) * p.nb + fb) * p.inner;
          if (tfc_array_copy(dst + (size_t)run * es, src + (size_t)from_run * es, p.inner, in->dtype, c->status))
            return c->status->code;
        }
  return TFC_OK;
}

static const tfc_kernel_def reverse_kernels[] = {
    {.op = TFC_OP_ReverseV2, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .compute = reverse_v2_compute},
    {.op = TFC_OP_ReverseSequence, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .host_memory_in = TFC_HOST(1),
     .init = tfc_reverse_sequence_init, .compute = reverse_sequence_compute, .free_state = free},
};

int tfc_cpu_kernels_array_reverse(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, reverse_kernels, (int)(sizeof reverse_kernels / sizeof reverse_kernels[0]), s);
}
