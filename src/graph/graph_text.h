/*
 * graph_text — the canonical text of a graph, for golden tests and `tfc inspect`.
 *
 * One line per node, in id order:
 *   name = Op[attr=value, ...](input, input:1, ^control) -> dtype shape, ... @device
 * e.g. "m = MatMul[T=float, transpose_a=false, transpose_b=false](a, b:1) -> float[2,2] @/job:..".
 * Attrs sorted by name (as stored; "[...]" omitted when there are none), values printed
 * compactly: type names (float), ints, bools, floats in the shortest form that reads back
 * exactly, quoted strings with C escapes, shapes [2,3] / [?,3] / <unknown>, tensors as
 * dtype, dims and up to 6 values (int32[8]{1,2,3,4,5,6,...}; "{...}" for dtypes whose values
 * are not printed: half, complex, quantized), lists in [a, b]. Internal attrs (leading '_')
 * are printed too. "-> ..." lists each output's dtype and inferred shape (omitted for nodes
 * without outputs). "@device" prints assigned_device when set, else the requested device,
 * and is omitted when both are empty.
 */
#ifndef TFC_GRAPH_GRAPH_TEXT_H
#define TFC_GRAPH_GRAPH_TEXT_H

#include "base/strbuf.h"
#include "graph/graph.h"

/* Appends the text of g (caller holds the lock or no writer races). */
void tfc_graph_to_text(const tfc_graph *g, tfc_strbuf *out);

#endif
