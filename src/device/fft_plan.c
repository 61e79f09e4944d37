/* fft_plan — see fft_plan.h. */
#include "device/fft_plan.h"

#include <string.h>

#include "ops/opdef.h"

/* The transform's rank and kind by op. */
static void kind_of(int op, int *rank, int *real, int *inverse) {
  *real = *inverse = 0;
  switch (op) {
    case TFC_OP_FFT: *rank = 1; break;
    case TFC_OP_IFFT: *rank = 1, *inverse = 1; break;
    case TFC_OP_FFT2D: *rank = 2; break;
    case TFC_OP_IFFT2D: *rank = 2, *inverse = 1; break;
    case TFC_OP_FFT3D: *rank = 3; break;
    case TFC_OP_IFFT3D: *rank = 3, *inverse = 1; break;
    case TFC_OP_RFFT: *rank = 1, *real = 1; break;
    case TFC_OP_IRFFT: *rank = 1, *real = 1, *inverse = 1; break;
    case TFC_OP_RFFT2D: *rank = 2, *real = 1; break;
    case TFC_OP_IRFFT2D: *rank = 2, *real = 1, *inverse = 1; break;
    case TFC_OP_RFFT3D: *rank = 3, *real = 1; break;
    default: *rank = 3, *real = 1, *inverse = 1; break; /* IRFFT3D */
  }
}

tfc_tensor *tfc_fft_plan_of(tfc_kernel_ctx *c, tfc_fft_plan *p) {
  const tfc_tensor *x = c->inputs[0];
  memset(p, 0, sizeof *p);
  kind_of(c->node->op->id, &p->rank, &p->real, &p->inverse);
  const int r = p->rank, nd = x->ndims;
  if (nd < r) {
    char buf[TFC_SHAPE_STR_MAX];
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input must have rank of at least %d but got: %s", r,
                     tfc_dims_str(x->dims, nd, buf, sizeof buf));
    return NULL;
  }
  for (int i = 0; i < r; i++) p->in_dims[i] = x->dims[nd - r + i];
  if (p->real) {
    const tfc_tensor *len = c->inputs[1];
    if (len->ndims != 1 || len->n_elems != r) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "fft_length must have shape [%d]", r);
      return NULL;
    }
    for (int i = 0; i < r; i++) {
      int32_t v = ((const int32_t *)len->data)[i];
      if (v < 0) {
        tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "fft_length[%d] must >= 0, but got: %d", i, v);
        return NULL;
      }
      p->n[i] = v;
    }
    for (int i = 0; i < r; i++) {
      int64_t need = p->inverse && i == r - 1 ? p->n[i] / 2 + 1 : p->n[i];
      if (p->in_dims[i] < need) {
        tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input dimension %d must have length of at least %lld but got: %lld",
                         nd - r + i, (long long)need, (long long)p->in_dims[i]);
        return NULL;
      }
    }
  } else {
    for (int i = 0; i < r; i++) p->n[i] = p->in_dims[i];
  }
  p->half = p->n[r - 1] / 2 + 1;
  int64_t odims[TFC_MAX_DIMS];
  memcpy(odims, x->dims, sizeof(int64_t) * (size_t)nd);
  p->total = p->in_block = p->out_block = p->batch = 1;
  for (int i = 0; i < r; i++) {
    p->out_dims[i] = p->real && !p->inverse && i == r - 1 ? p->half : p->n[i];
    odims[nd - r + i] = p->out_dims[i];
    p->total *= p->n[i];
    p->in_block *= p->in_dims[i];
    p->out_block *= p->out_dims[i];
  }
  for (int i = 0; i < nd - r; i++) p->batch *= x->dims[i];
  p->scale = p->inverse && p->total > 0 ? 1.0 / (double)p->total : 1.0;
  int is_f = x->dtype == TFC_DT_FLOAT || x->dtype == TFC_DT_COMPLEX64;
  int odt = p->real ? (p->inverse ? (is_f ? TFC_DT_FLOAT : TFC_DT_DOUBLE) : (is_f ? TFC_DT_COMPLEX64 : TFC_DT_COMPLEX128))
                    : x->dtype;
  return tfc_kernel_alloc_output(c, 0, odt, odims, nd);
}
