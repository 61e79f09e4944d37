/*
 * kernels_training_gpu — the optimizers' dense updates on the GPU: ApplyGradientDescent,
 * ApplyMomentum (use_nesterov), ApplyAdam (use_nesterov), ApplyAdagrad (update_slots),
 * ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdadelta and their ResourceApply* twins, for half,
 * float and double, as TF 1.15 registers them for DEVICE_GPU (training_ops.cc).
 *
 * The step is the CPU kernels' (device/training_plan.c, shared): the variable and its slots
 * locked and read, validation in TF's order with its texts before anything is written, one
 * fresh device tensor per written variable (copy-on-write), installed journaled in the step
 * so a failed step rolls back; the ref forms forward their ref. This file supplies the run
 * function: one fused launch on the compute stream (cuda_train.cu) computing every new value
 * from the old ones, in the variable's type (half in float), with the CPU's operation order.
 *
 * Memory. The variables, slots and gradient are device tensors; a resource variable's handle
 * is a host tensor (TF's HostMemory("var"), ...). The scalar hyper-parameters are host-memory
 * inputs here, where TF 1.15 keeps them in device memory and broadcasts them inside its
 * Eigen expression: reading them on the host lets one launch take them by value, with no
 * device-to-host copy and no sync per step. Placement is the same either way (host memory is
 * where an input's bytes live, not which device runs a node); the cost is a small
 * device-to-host copy when a scalar is computed on the GPU (a decayed learning rate).
 */
#include "device/cuda/cuda_kernels.h"
#include "device/device.h"
#include "device/training_plan.h"

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

/* The launcher's op codes are the shared kinds (compared as ints: two enum types). */
#define SAME_KIND(cuda, kind) ((int)(cuda) == (int)(kind))
_Static_assert(SAME_KIND(TFC_CUDA_APPLY_GD, TFC_APPLY_GD) && SAME_KIND(TFC_CUDA_APPLY_MOMENTUM, TFC_APPLY_MOMENTUM) &&
                   SAME_KIND(TFC_CUDA_APPLY_ADAM, TFC_APPLY_ADAM) && SAME_KIND(TFC_CUDA_APPLY_ADAGRAD, TFC_APPLY_ADAGRAD) &&
                   SAME_KIND(TFC_CUDA_APPLY_RMSPROP, TFC_APPLY_RMSPROP) &&
                   SAME_KIND(TFC_CUDA_APPLY_CENTERED_RMSPROP, TFC_APPLY_CENTERED_RMSPROP) &&
                   SAME_KIND(TFC_CUDA_APPLY_ADADELTA, TFC_APPLY_ADADELTA) &&
                   SAME_KIND(TFC_CUDA_APPLY_OP_COUNT, TFC_APPLY_GPU_KIND_COUNT),
               "tfc_cuda_apply_op follows tfc_apply_kind");
_Static_assert(TFC_APPLY_MAX_VARS == 4 && TFC_APPLY_MAX_INPUTS == 10, "tfc_cuda_apply_args holds every operand");

static int gpu_run(tfc_kernel_ctx *c, const tfc_apply_state *st, const tfc_apply_args *a, int64_t n) {
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_cuda_apply_args ca = {.op = st->spec->kind, .nesterov = a->nesterov, .grad = a->grad};
  for (int i = 0; i < TFC_APPLY_MAX_INPUTS; i++) ca.s[i] = a->s[i];
  for (int k = 0; k < TFC_APPLY_MAX_VARS; k++) {
    ca.old[k] = a->old[k];
    ca.out[k] = a->out[k];
  }
  return tfc_cuda_ctx_check(c, tfc_cuda_apply(tfc_cuda_dtype_of(st->dtype), &ca, n, stream), st->dtype);
}

static int apply_init(const tfc_node *n, void **state, tfc_status *s) { return tfc_apply_init(n, state, gpu_run, s); }

#define ROW(name, hm)                                                                                              \
  {.op = TFC_OP_##name, .type_attr = "T", .types = G_F, .host_memory_in = (hm), .init = apply_init,               \
   .compute = tfc_apply_compute, .free_state = tfc_apply_free},

static const tfc_kernel_def defs[] = {TFC_APPLY_ROWS(ROW)};

int tfc_cuda_kernels_training(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
