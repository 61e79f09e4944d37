/*
 * stateless_random — what the CPU and GPU kernels of TF 2.x's stateless random ops share: the
 * checks of their inputs in TF's order and texts, the Philox key and counter they start from,
 * and the distribution and element type of each op. Each device supplies only the fill (the
 * CPU's Philox groups on the intra-op pool, the GPU's kernel on its compute stream), so for the
 * same inputs both devices draw the same stream (cpu/kernels_stateless_random.c describes the
 * ops, their generator state and TF's quirks).
 *
 * Errors are set on the kernel context (tfc_kernel_error). Thread-safe (no state).
 */
#ifndef TFC_DEVICE_STATELESS_RANDOM_H
#define TFC_DEVICE_STATELESS_RANDOM_H

#include <stdint.h>

#include "base/philox.h"
#include "device/kernel.h"

/* TF's algorithm ids (the V2 ops' alg input). */
enum { TFC_STATELESS_PHILOX = 1, TFC_STATELESS_THREEFRY = 2, TFC_STATELESS_AUTO_SELECT = 3 };

/* Fills out (at least one element) from g with distribution dist (TFC_PHILOX_*) into element
 * type elem; lo and range are the uniform int ops' (0 for the others). Returns the status
 * code, with the kernel error set on failure. */
typedef int (*tfc_stateless_fill_fn)(tfc_kernel_ctx *c, const tfc_philox *g, int dist, int elem, tfc_tensor *out,
                                     int64_t lo, uint64_t range);

/* The seed input of the V1 ops and GetKeyCounter has shape [2]: else INVALID_ARGUMENT. */
int tfc_stateless_check_seed_shape(tfc_kernel_ctx *c, const tfc_tensor *seed);
/* TF's GenerateKey on a checked seed (int32 or int64, sign-extended) into g; another seed type
 * is INVALID_ARGUMENT "Invalid seed type". */
int tfc_stateless_seed_state(tfc_kernel_ctx *c, const tfc_tensor *seed, tfc_philox *g);

/* compute of StatelessRandom{Uniform,Normal,UniformInt,UniformFullInt} and
 * StatelessTruncatedNormal (inputs shape, seed[, minval, maxval]), filling with `fill`. */
int tfc_stateless_v1(tfc_kernel_ctx *c, tfc_stateless_fill_fn fill);
/* compute of their V2 forms (inputs shape, key, counter, alg[, minval, maxval]). */
int tfc_stateless_v2(tfc_kernel_ctx *c, tfc_stateless_fill_fn fill);

#endif
