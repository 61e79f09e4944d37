/*
 * fft_plan — what the CPU and GPU kernels of the FFT ops (ops_fft.def) share: the transform's
 * kind by op, TF's checks and texts, and the sizes both devices work from, so they refuse the
 * same inputs with the same messages and differ only in the library that transforms (FFTW on
 * the CPU, cuFFT on the GPU).
 *
 * Every transform runs over the innermost `rank` (1, 2 or 3) dims of a row-major tensor, for
 * each entry of the outer ("batch") dims. FFT, FFT2D, FFT3D and the IFFTs transform complex to
 * complex (inverses scaled by 1/N); the RFFTs read the first fft_length entries of each inner
 * dim and write fft_length[-1] / 2 + 1 in the innermost; the IRFFTs read fft_length entries of
 * the outer inner dims and fft_length[-1] / 2 + 1 of the innermost, and write fft_length real
 * values.
 *
 * Errors are TF's, INVALID_ARGUMENT: "Input must have rank of at least N but got: [..]",
 * "fft_length must have shape [N]", "fft_length[i] must >= 0, but got: v", "Input dimension d
 * must have length of at least n but got: m". Thread-safe (no state).
 */
#ifndef TFC_DEVICE_FFT_PLAN_H
#define TFC_DEVICE_FFT_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

typedef struct tfc_fft_plan {
  int rank, real, inverse;
  int64_t n[3];        /* transform sizes (fft_length, or the inner dims) */
  int64_t in_dims[3];  /* the input's inner dims */
  int64_t out_dims[3]; /* the output's inner dims */
  int64_t half;        /* n[rank-1] / 2 + 1 */
  int64_t total;       /* n[0] * .. * n[rank-1]; 0: the output is zeros */
  int64_t batch;       /* entries of the outer dims */
  int64_t in_block, out_block; /* elements per batch entry */
  double scale;        /* 1 / total for inverses, else 1 */
} tfc_fft_plan;

/* Checks input 0 (and fft_length, input 1 in host memory, for the real transforms), fills *p
 * and allocates output 0. Returns the output (owned by the context), or NULL with the kernel
 * error set. */
tfc_tensor *tfc_fft_plan_of(tfc_kernel_ctx *c, tfc_fft_plan *p);

#endif
