/*
 * cuda_loss — the CUDA launchers of the loss and check ops (cuda_loss.cu): the softmax
 * cross-entropies, L2Loss, ArgMax / ArgMin, InTopKV2 and CheckNumerics' scan. The tfc kernels
 * on top are in kernels_loss_gpu.c.
 *
 * Same contract as cuda_kernels.h: device pointers, sizes computed on the host, a
 * cudaStream_t passed as void *; each call enqueues its work on that stream and returns at
 * once (nothing here waits), with 0, TFC_CUDA_E_UNSUPPORTED for a dtype without a kernel, or
 * the cudaError_t of a failed launch. Sizes of 0 are no-ops (each function says what it
 * writes then). Indexing is 64-bit and every loop is grid-stride, so any size runs. The
 * launchers are thread-safe; the caller keeps the buffers alive until the stream has run the
 * work (the device allocator's stream ordering does).
 *
 * Floats: TFC_CUDA_F32, F64 and F16 (half stored, computed and accumulated in float; double in
 * double). Included from C and CUDA C++.
 */
#ifndef TFC_DEVICE_CUDA_CUDA_LOSS_H
#define TFC_DEVICE_CUDA_CUDA_LOSS_H

#include <stdint.h>

#include "device/cuda/cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SoftmaxCrossEntropyWithLogits over [rows, cols]: logits element (r, j) is
 * logits[r * x_rs + j * x_cs] and labels' is labels[r * l_rs + j * l_cs] (stride 0 along a
 * broadcast dim). Writes loss[r] = sum_j labels * (log(sum exp(x - max)) - (x - max)) and the
 * dense backprop[r * cols + j] = exp(x - max) / sum - labels. backprop may be logits itself
 * when logits is dense [rows, cols] (each element is read before it is written, by the same
 * thread). cols 0: loss is all zeros. */
int tfc_cuda_xent(int dtype, const void *logits, int64_t x_rs, int64_t x_cs, const void *labels, int64_t l_rs,
                  int64_t l_cs, void *loss, void *backprop, int64_t rows, int64_t cols, void *stream);

/* SparseSoftmaxCrossEntropyWithLogits: logits dense [rows, cols] (cols >= 1), labels[rows] of
 * label_dtype TFC_CUDA_I32 or I64 in device memory. loss[r] = log(sum exp(x - max)) -
 * (x[label] - max); backprop = softmax - one_hot(label). A label outside [0, cols) makes row
 * r's loss and backprop NaN (TF's GPU kernel: the host cannot check device labels without a
 * sync). backprop may be logits itself, as above. */
int tfc_cuda_sparse_xent(int dtype, int label_dtype, const void *logits, const void *labels, void *loss,
                         void *backprop, int64_t rows, int64_t cols, void *stream);

/* L2Loss: *out = sum(x^2) / 2 over n elements, accumulated in float (F32, F16) or double (F64).
 * scratch: device memory of TFC_CUDA_L2_SCRATCH_BYTES for the per-block partial sums (a fixed
 * number of blocks, summed in a fixed order: the result does not depend on timing). n 0:
 * *out = 0. */
#define TFC_CUDA_L2_BLOCKS 512
#define TFC_CUDA_L2_SCRATCH_BYTES (TFC_CUDA_L2_BLOCKS * 8)
int tfc_cuda_l2loss(int dtype, const void *x, int64_t n, void *out, void *scratch, void *stream);

/* ArgMax (is_min 0) / ArgMin (1) along the middle dim of x viewed as [outer, len, inner]
 * (len >= 1): out[o * inner + i] (out_dtype TFC_CUDA_I32 or I64) is the first index a whose
 * value is the largest (smallest); NaNs never win, except that a NaN at index 0 gives 0 (the
 * CPU kernel's scan: nothing compares greater than its starting NaN). */
int tfc_cuda_argreduce(int is_min, int dtype, int out_dtype, const void *x, void *out, int64_t outer, int64_t len,
                       int64_t inner, void *stream);

/* InTopKV2: predictions float [rows, cols], targets[rows] and the scalar *k (a device pointer)
 * of idx_dtype TFC_CUDA_I32 or I64. out[r] (bool) = fewer than k predictions of row r are
 * greater than the target's; false when the target is outside [0, cols) or any prediction of
 * the row (the target's included) is not finite (TF's GPU kernel). */
int tfc_cuda_in_top_k(int idx_dtype, const float *predictions, const void *targets, const void *k, uint8_t *out,
                      int64_t rows, int64_t cols, void *stream);

/* CheckNumerics's scan: ORs into *flags (a device int32 the caller zeroed on the stream) bit
 * 1 when x has a NaN and bit 2 when it has an infinity. n 0: nothing. */
int tfc_cuda_check_numerics(int dtype, const void *x, int64_t n, int32_t *flags, void *stream);

#ifdef __cplusplus
}
#endif

#endif
