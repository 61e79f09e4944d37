/*
 * kernels_lrn_gpu — LRN and LRNGrad on the GPU for float (TF 1.15's GPU registrations), NHWC
 * as the op takes it: the normalization runs over the last dim, so the input is rows x depth.
 *
 * The attrs and checks are the CPU kernel's (nn_plan.h: tfc_lrn_init, tfc_lrn_check), the
 * arithmetic cuda_nn_extra.cu's, which explains why it is computed directly instead of through
 * cuDNN: unlike TF's cuDNN path, which refuses depth_radius outside [1, 7], beta below 0.01 and
 * bias below 1e-5, every attr the CPU kernel takes runs here too, with the CPU's results to
 * float rounding.
 */
#include <stdlib.h>

#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_nn_extra.h"
#include "device/nn_plan.h"

static int lrn_compute(tfc_kernel_ctx *c) {
  const tfc_lrn_attrs *p = c->state;
  int grad = c->node->op->id == TFC_OP_LRNGrad;
  int64_t rows, depth;
  TFC_TRY(tfc_lrn_check(c, grad, &rows, &depth));
  const tfc_tensor *x = c->inputs[grad ? 1 : 0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_FLOAT, x->dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  /* Any radius of depth or more covers the whole row, and any negative one no element (the CPU
   * kernel's loops), so clamping keeps the device's index math far from overflow. */
  int64_t r = p->radius > depth ? depth : p->radius < 0 ? -1 : p->radius;
  int err = grad ? tfc_cuda_lrn_grad(c->inputs[0]->data, x->data, c->inputs[2]->data, out->data, rows, depth, r,
                                     p->bias, p->alpha, p->beta, stream)
                 : tfc_cuda_lrn(x->data, out->data, rows, depth, r, p->bias, p->alpha, p->beta, stream);
  return tfc_cuda_ctx_check(c, err, TFC_DT_FLOAT);
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_LRN, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = tfc_lrn_init, .compute = lrn_compute,
     .free_state = free},
    {.op = TFC_OP_LRNGrad, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = tfc_lrn_init,
     .compute = lrn_compute, .free_state = free},
};

int tfc_cuda_kernels_lrn(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
