/*
 * space_batch_plan — what the CPU and GPU kernels of SpaceToBatchND, BatchToSpaceND and the
 * legacy 4-D SpaceToBatch / BatchToSpace (a block_size attr for both spatial dims) share: the
 * checks of the block shape and the paddings or crops (host memory) with TF's texts and codes
 * (INVALID_ARGUMENT), and the plan of the one copy between the "space" tensor [B, S1..SM,
 * rest...] and the "batch" tensor [B * prod(b), Y1..YM, rest...]: batch index ob = offset * B +
 * n, where the block offset (o1..oM, row-major over the blocks) is the major part, and batch
 * position (y1..yM) holds space position s_i = y_i * b_i + o_i - start_i (start = the padding
 * before for SpaceToBatch, the crop before for BatchToSpace). SpaceToBatch has zeros where s
 * falls in the padding; BatchToSpace drops what the crops cut.
 *
 * Errors are set on the kernel context. Thread-safe (no state).
 */
#ifndef TFC_DEVICE_SPACE_BATCH_PLAN_H
#define TFC_DEVICE_SPACE_BATCH_PLAN_H

#include <stdint.h>

#include "device/kernel.h"

#define TFC_SB_MAX_BLOCK 8 /* spatial dims: tensors have at most TFC_MAX_DIMS dims */

typedef struct tfc_space_batch_plan {
  int m;                                                    /* block dims */
  int64_t block[TFC_SB_MAX_BLOCK], start[TFC_SB_MAX_BLOCK]; /* b_i; padding or crop before */
  int64_t space[TFC_SB_MAX_BLOCK], ys[TFC_SB_MAX_BLOCK];    /* S_i (the space side), Y_i (batch side) */
  int64_t batch, prod;                                      /* B (space side), prod(b) */
  int64_t rest;                                             /* elements of one position's rest dims */
} tfc_space_batch_plan;

/* SpaceToBatch(ND) (to_batch 1) or BatchToSpace(ND) (0) on input 0, legacy: the 4-D forms.
 * Fills p and the output dims (input 0's rank). */
int tfc_space_batch_plan_of(tfc_kernel_ctx *c, int to_batch, int legacy, tfc_space_batch_plan *p, int64_t *out_dims);

#endif
