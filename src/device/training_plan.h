/*
 * training_plan — what the CPU and GPU kernels of the optimizers' dense updates share:
 * ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp,
 * ApplyCenteredRMSProp, ApplyAdadelta, and on the CPU only ApplyFtrl, ApplyFtrlV2,
 * ApplyProximalGradientDescent, ApplyProximalAdagrad; and their ResourceApply* twins
 * (ops_training.def).
 *
 * Everything but the arithmetic is here, once: which inputs are the variable, its slots, the
 * gradient and the scalar hyper-parameters of each op (a spec); the attrs (use_nesterov,
 * update_slots); validation in TF 1.15's order with its codes and texts (training_ops.cc):
 *   1. every variable initialized and holding T (a ref variable: FAILED_PRECONDITION
 *      "Attempting to use uninitialized value v"; a resource variable: NOT_FOUND
 *      "Resource localhost/v/N10tensorflow3VarE does not exist.", TF's lookup failure);
 *   2. the hyper-parameters are scalars of type T ("lr is not a scalar: [2]");
 *   3. slots and gradient have the variable's shape ("var and grad do not have the same
 *      shape[2,2] [3]"), then Momentum's momentum is a scalar (TF checks it last);
 * and the step around the device's arithmetic: tfc_kernel_update_begin locks the variable
 * and its slots, validation runs before anything is written, one fresh tensor per written
 * variable is allocated in the device's memory (copy-on-write), the device's run function
 * fills them, tfc_kernel_update_end installs them journaled in the step (a failed step rolls
 * back), and the ref forms forward their ref input 0 as output 0.
 *
 * Each device supplies only the run function: the CPU's element loops over the intra-op pool
 * (cpu/kernels_training.c), the GPU's fused launch on its compute stream
 * (cuda/kernels_training_gpu.c). The scalar hyper-parameters live in host memory on every
 * device (the rows' host_memory_in, TFC_APPLY_HOST_*): validation reads them on the host and
 * hands them to the run function by value, so a GPU step needs no device-to-host copy.
 *
 * Ownership: the state is the kernel state of its node (tfc_apply_free). Thread-safety: the
 * state is read-only after init; compute may run concurrently in several steps (the variable
 * locks serialize updates of one variable).
 */
#ifndef TFC_DEVICE_TRAINING_PLAN_H
#define TFC_DEVICE_TRAINING_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

/* The update formulas. Append-only; devices index their tables by it (static_assert on the
 * count). */
enum tfc_apply_kind {
  TFC_APPLY_GD = 0,
  TFC_APPLY_MOMENTUM = 1,
  TFC_APPLY_ADAM = 2,
  TFC_APPLY_ADAGRAD = 3,
  TFC_APPLY_RMSPROP = 4,
  TFC_APPLY_CENTERED_RMSPROP = 5,
  TFC_APPLY_ADADELTA = 6,
  TFC_APPLY_FTRL = 7,
  TFC_APPLY_FTRL_V2 = 8,
  TFC_APPLY_PROXIMAL_GD = 9,
  TFC_APPLY_PROXIMAL_ADAGRAD = 10,
  TFC_APPLY_KIND_COUNT = 11
};
/* The kinds below this one have GPU loops (TFC_APPLY_ROWS); the others are CPU-only
 * (TFC_APPLY_CPU_ROWS). */
#define TFC_APPLY_GPU_KIND_COUNT 7

/* The largest input count of an Apply op (ApplyAdam's 10) and variable count (the centered
 * RMSProp's var, mg, ms, mom). */
#define TFC_APPLY_MAX_INPUTS 10
#define TFC_APPLY_MAX_VARS 4

/* Host-memory inputs of the rows (bits by input index): the scalar hyper-parameters. The
 * resource forms add their handles, the first n inputs (TFC_APPLY_HANDLES(n)); resource
 * tensors are host-side anyway, the bits only say so in the row. */
#define TFC_APPLY_HOST_GD TFC_HOST(1)
#define TFC_APPLY_HOST_MOMENTUM (TFC_HOST(2) | TFC_HOST(4))
#define TFC_APPLY_HOST_ADAM                                                                        \
  (TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6) | TFC_HOST(7) | TFC_HOST(8))
#define TFC_APPLY_HOST_ADAGRAD TFC_HOST(2)
#define TFC_APPLY_HOST_RMSPROP (TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6))
#define TFC_APPLY_HOST_CENTERED_RMSPROP (TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6) | TFC_HOST(7))
#define TFC_APPLY_HOST_ADADELTA (TFC_HOST(3) | TFC_HOST(4) | TFC_HOST(5))
#define TFC_APPLY_HOST_FTRL (TFC_HOST(4) | TFC_HOST(5) | TFC_HOST(6) | TFC_HOST(7))
#define TFC_APPLY_HOST_FTRL_V2 (TFC_APPLY_HOST_FTRL | TFC_HOST(8))
#define TFC_APPLY_HOST_PROXIMAL_GD (TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3))
#define TFC_APPLY_HOST_PROXIMAL_ADAGRAD (TFC_HOST(2) | TFC_HOST(3) | TFC_HOST(4))
#define TFC_APPLY_HANDLES(n) ((1u << (n)) - 1u)

/* Every Apply op with its host-memory inputs, for the devices' kernel tables:
 * X(op name, host_memory_in) once per op. */
#define TFC_APPLY_ROWS(X)                                                                          \
  X(ApplyGradientDescent, TFC_APPLY_HOST_GD)                                                       \
  X(ApplyMomentum, TFC_APPLY_HOST_MOMENTUM)                                                        \
  X(ApplyAdam, TFC_APPLY_HOST_ADAM)                                                                \
  X(ApplyAdagrad, TFC_APPLY_HOST_ADAGRAD)                                                          \
  X(ApplyRMSProp, TFC_APPLY_HOST_RMSPROP)                                                          \
  X(ApplyCenteredRMSProp, TFC_APPLY_HOST_CENTERED_RMSPROP)                                         \
  X(ApplyAdadelta, TFC_APPLY_HOST_ADADELTA)                                                        \
  X(ResourceApplyGradientDescent, TFC_APPLY_HANDLES(1) | TFC_APPLY_HOST_GD)                        \
  X(ResourceApplyMomentum, TFC_APPLY_HANDLES(2) | TFC_APPLY_HOST_MOMENTUM)                         \
  X(ResourceApplyAdam, TFC_APPLY_HANDLES(3) | TFC_APPLY_HOST_ADAM)                                 \
  X(ResourceApplyAdagrad, TFC_APPLY_HANDLES(2) | TFC_APPLY_HOST_ADAGRAD)                           \
  X(ResourceApplyRMSProp, TFC_APPLY_HANDLES(3) | TFC_APPLY_HOST_RMSPROP)                           \
  X(ResourceApplyCenteredRMSProp, TFC_APPLY_HANDLES(4) | TFC_APPLY_HOST_CENTERED_RMSPROP)          \
  X(ResourceApplyAdadelta, TFC_APPLY_HANDLES(3) | TFC_APPLY_HOST_ADADELTA)

/* The CPU-only rows. */
#define TFC_APPLY_CPU_ROWS(X)                                                                      \
  X(ApplyFtrl, TFC_APPLY_HOST_FTRL)                                                                \
  X(ApplyFtrlV2, TFC_APPLY_HOST_FTRL_V2)                                                           \
  X(ApplyProximalGradientDescent, TFC_APPLY_HOST_PROXIMAL_GD)                                      \
  X(ApplyProximalAdagrad, TFC_APPLY_HOST_PROXIMAL_ADAGRAD)                                         \
  X(ResourceApplyFtrl, TFC_APPLY_HANDLES(3) | TFC_APPLY_HOST_FTRL)                                 \
  X(ResourceApplyFtrlV2, TFC_APPLY_HANDLES(3) | TFC_APPLY_HOST_FTRL_V2)                            \
  X(ResourceApplyProximalGradientDescent, TFC_APPLY_HANDLES(1) | TFC_APPLY_HOST_PROXIMAL_GD)       \
  X(ResourceApplyProximalAdagrad, TFC_APPLY_HANDLES(2) | TFC_APPLY_HOST_PROXIMAL_ADAGRAD)

/* One op's layout: inputs [0, n_vars) are the variable and its slots (in the op's order),
 * `grad` the gradient, every other input a scalar hyper-parameter. */
typedef struct tfc_apply_spec {
  int kind;        /* TFC_APPLY_* */
  int n_vars;
  int grad;
  int late_scalar; /* a scalar TF checks after the shapes (Momentum's momentum), else -1 */
  int lr_spaced;   /* TF's text is "lr is not a scalar : " (Adam and the RMSProps) */
  int mg_quirk;    /* CenteredRMSProp: TF's mg message prints ms's shape */
} tfc_apply_spec;

/* What the run function gets: buffers in the device's memory, scalars on the host. */
typedef struct tfc_apply_args {
  const void *grad;
  const void *old[TFC_APPLY_MAX_VARS]; /* the variables' current values, by spec order */
  void *out[TFC_APPLY_MAX_VARS];       /* their new values; NULL for a slot left as it is
                                        * (Adagrad's accum with update_slots=false) */
  double s[TFC_APPLY_MAX_INPUTS];      /* the scalar inputs by input index, converted exactly
                                        * from T (half included) */
  int nesterov;
  int update_slots;
  int multiply_linear_by_lr; /* Ftrl: TF 2.3's variant (linear holds lr * the 1.15 linear) */
} tfc_apply_args;

typedef struct tfc_apply_state tfc_apply_state;

/* Computes the new values of n elements from a (all validated, n >= 0). Returns the status
 * code, with the kernel's error set on failure (then nothing is installed). */
typedef int (*tfc_apply_run_fn)(tfc_kernel_ctx *c, const tfc_apply_state *st, const tfc_apply_args *a, int64_t n);

struct tfc_apply_state {
  const tfc_apply_spec *spec;
  int resource; /* ResourceApply*: handles in, no output */
  int dtype;    /* T */
  int nesterov;
  int update_slots;
  int multiply_linear_by_lr;
  tfc_apply_run_fn run;
};

/* The kernel state of an Apply/ResourceApply node: its spec, T and attrs (absent attrs keep
 * TF's defaults), and the device's run function (borrowed: a static function). Errors:
 * INTERNAL for an op that is not an Apply op or lacks T, RESOURCE_EXHAUSTED. */
int tfc_apply_init(const tfc_node *n, void **state, tfc_apply_run_fn run, tfc_status *s);
void tfc_apply_free(void *state); /* NULL: no-op */

/* The compute of every Apply row: lock, validate, allocate, run, install, forward. */
int tfc_apply_compute(tfc_kernel_ctx *c);

#endif
