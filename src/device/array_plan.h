/*
 * array_plan — the shape rules of array ops that the CPU and GPU kernels share: each checks its
 * inputs with TF's texts and works out the output shape (or a copy plan) on the host, so the
 * two devices accept and refuse exactly the same inputs and only the data movement differs.
 *
 * Errors are set on the kernel context (tfc_kernel_error: the node and device are added by the
 * executor). Thread-safe (no state).
 */
#ifndef TFC_DEVICE_ARRAY_PLAN_H
#define TFC_DEVICE_ARRAY_PLAN_H

#include "device/kernel.h"
#include "ops/shape_array.h"

/* ConcatV2 / Concat: checks the n inputs against each other for concatenation along *axis (as
 * given, possibly negative; normalized on return) and writes the output dims (rank of
 * ins[0]). The axis tensor's own checks and reading stay with the kernel (its memory differs
 * by device). */
int tfc_concat_plan(tfc_kernel_ctx *c, tfc_tensor *const *ins, int n, int64_t *axis, int64_t *dims);

/* StridedSlice: checks begin/end/strides (inputs 1..3, host memory) and the node's masks, and
 * resolves them against input 0's dims (TF's ValidateStridedSliceOp). */
int tfc_strided_slice_plan_of(tfc_kernel_ctx *c, tfc_strided_slice_plan *plan);

#endif
