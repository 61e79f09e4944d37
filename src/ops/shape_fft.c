/*
 * shape_fft — shape functions of the FFT ops; see shape_fft.h.
 */
#include "ops/opdef.h"
#include "ops/shape_fft.h"
#include "tensor/tensor.h"

static int need_rank(tfc_shape_ctx *c, const tfc_shape *in, int rank) {
  if (in->rank >= 0 && in->rank < rank)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", rank, in->rank);
  return TFC_OK;
}

static int fft_shape(tfc_shape_ctx *c, int rank) {
  if (need_rank(c, &c->input_shapes[0], rank)) return c->status->code;
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}

/* RFFT* (forward) and IRFFT*: the inner `rank` dims from a const fft_length. */
static int rfft_shape(tfc_shape_ctx *c, int rank, int forward) {
  const tfc_shape *in = &c->input_shapes[0], *len = &c->input_shapes[1];
  if (need_rank(c, in, rank)) return c->status->code;
  if (len->rank >= 0 && len->rank != 1)
    return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", len->rank);
  if (len->rank == 1 && len->dims[0] >= 0 && len->dims[0] != rank)
    return tfc_shape_ctx_error(c, "Dimension must be %d but is %lld", rank, (long long)len->dims[0]);
  if (in->rank < 0) {
    c->output_shapes[0] = tfc_shape_unknown();
    return TFC_OK;
  }
  tfc_shape out = *in;
  const tfc_tensor *n = tfc_shape_ctx_input_tensor(c, 1);
  int known = n && n->ndims == 1 && n->n_elems == rank;
  for (int i = 0; i < rank; i++) {
    int64_t v = known ? tfc_tensor_get_i64(n, i) : -1;
    int64_t *d = &out.dims[in->rank - rank + i];
    if (!known) *d = -1;
    else if (forward && i == rank - 1) *d = v / 2 + 1; /* C's division, as TF's */
    else *d = v < 0 ? -1 : v;
  }
  c->output_shapes[0] = out;
  return TFC_OK;
}

int tfc_shape_fft1(tfc_shape_ctx *c) { return fft_shape(c, 1); }
int tfc_shape_fft2(tfc_shape_ctx *c) { return fft_shape(c, 2); }
int tfc_shape_fft3(tfc_shape_ctx *c) { return fft_shape(c, 3); }
int tfc_shape_rfft1(tfc_shape_ctx *c) { return rfft_shape(c, 1, 1); }
int tfc_shape_rfft2(tfc_shape_ctx *c) { return rfft_shape(c, 2, 1); }
int tfc_shape_rfft3(tfc_shape_ctx *c) { return rfft_shape(c, 3, 1); }
int tfc_shape_irfft1(tfc_shape_ctx *c) { return rfft_shape(c, 1, 0); }
int tfc_shape_irfft2(tfc_shape_ctx *c) { return rfft_shape(c, 2, 0); }
int tfc_shape_irfft3(tfc_shape_ctx *c) { return rfft_shape(c, 3, 0); }
