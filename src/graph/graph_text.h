/*
 * graph_text — the canonical text of a graph, for golden tests and `tfc inspect`.
 *
 * One line per node, in id order:
 *   name = Op[attr=value, ...](input, input:1, ^control) @assigned_or_requested_device
 * Attrs sorted by name (as stored), values printed compactly: type names (float), ints,
 * bools, quoted strings, shapes [2,3], tensors as dtype and shape plus up to 6 values,
 * lists in [..]. Internal attrs (leading '_') are printed too. "@device" prints
 * assigned_device when set, else the requested device, and is omitted when both are empty.
 */
#ifndef TFC_GRAPH_GRAPH_TEXT_H
#define TFC_GRAPH_GRAPH_TEXT_H

#include "base/strbuf.h"
#include "graph/graph.h"

/* Appends the text of g (caller holds the lock or no writer races). */
void tfc_graph_to_text(const tfc_graph *g, tfc_strbuf *out);

#endif
