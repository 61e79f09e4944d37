/*
 * tfc_print — a fetched tensor as text, the way Python prints what TF's session.run returns
 * (numpy's str() of the array, numpy's default print options).
 *
 *   float    [[22. 28.]      shortest digits that round-trip in the tensor's own type (at
 *             [49. 64.]]     most 8 after the point), aligned on the point; scientific
 *                            [1.0e-05 1.5e+00] when the nonzero magnitudes span over 1e3, go
 *                            below 1e-4 or reach 1e8. A scalar prints as numpy's scalar: 3.0
 *   int      [  1 100]       right-aligned to the widest
 *   bool     [ True False]
 *   string   [b'a' b'b c']   Python's bytes repr (strings come back from TF as bytes)
 *   complex  [1. +2.j 3.5-1.j]
 *
 * Lines wrap at 75 columns. A tensor of more than 1000 elements is summarized: each axis
 * longer than 6 shows its first and last 3 entries around "..."; print_all prints every one.
 * Quantized, resource and variant tensors print as a note with their dtype and shape.
 */
#ifndef TFC_TOOLS_TFC_PRINT_H
#define TFC_TOOLS_TFC_PRINT_H

#include <stdio.h>

#include "tensorflow/c/c_api.h"

/* Writes t (borrowed) to f, without a trailing newline. Returns 0, or -1 when out of memory
 * (nothing written then). Not thread-safe only in that it writes to f. */
int tfc_print_tensor(FILE *f, const TF_Tensor *t, int print_all);

#endif
