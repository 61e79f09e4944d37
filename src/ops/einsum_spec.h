/*
 * einsum_spec — the parsed form of an Einsum equation, shared by Einsum's shape function and
 * its CPU kernel so that both see the same labels, sizes and errors.
 *
 * Labels are letters (a-z, A-Z) and the dims an ellipsis ("...") stands for; ellipsis dims of
 * operands of different lengths align on the right and broadcast (a size-1 dim takes the
 * other operand's size). The output spec is explicit ("->" is required, as in TF's op); its
 * labels must be distinct and appear in an input. Labels missing from the output are summed;
 * a label repeated within an operand takes that operand's diagonal.
 */
#ifndef TFC_OPS_EINSUM_SPEC_H
#define TFC_OPS_EINSUM_SPEC_H

#include <stdint.h>

#include "base/status.h"
#include "tensor/shape.h"

#define TFC_EINSUM_MAX_OPS 2
#define TFC_EINSUM_ELLIPSIS 52 /* label id of the first ellipsis dim; letters are 0..51 */
#define TFC_EINSUM_MAX_LABELS (TFC_EINSUM_ELLIPSIS + TFC_MAX_DIMS)

typedef struct tfc_einsum_spec {
  int n_ops;
  int rank[TFC_EINSUM_MAX_OPS];
  int label[TFC_EINSUM_MAX_OPS][TFC_MAX_DIMS]; /* operand axis -> label id */
  int n_out;
  int out[TFC_MAX_DIMS];                /* output axis -> label id */
  int64_t size[TFC_EINSUM_MAX_LABELS];  /* each label's size; -1 unknown (shape inference) */
  int used[TFC_EINSUM_MAX_LABELS];      /* bit k: the label appears in operand k */
} tfc_einsum_spec;

/* Parses `equation` (NUL-terminated) for n operands of the given shapes (borrowed; unknown
 * dims are -1). Returns 0, or INVALID_ARGUMENT in s with TF's texts where TF has one ("Expected
 * 2 inputs but got: 1", ...); a label's sizes that differ give the kernel's "Expected
 * dimension 3 at axis 0 of the input shaped [4,3] but got dimension 4", or with `graph` set
 * the shape function's "Dimensions must be equal, but are 3 and 4". */
int tfc_einsum_parse(const char *equation, const tfc_shape *const *shapes, int n, int graph, tfc_einsum_spec *out,
                     tfc_status *s);

#endif
