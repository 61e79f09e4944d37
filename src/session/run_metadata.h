/*
 * run_metadata — RunMetadata (config.proto) from what a step recorded: step_stats from the
 * partitions' trace records (exec/step_stats.h), partition_graphs from the graphs the
 * executors ran (with their _Send/_Recv nodes and assigned devices).
 *
 * Labels follow TF: timeline_label is "name = Op(input, ...)" with the NodeDef's input
 * strings ("x", "y:1", "^c"). As in TF 1.15, transfer nodes (_Send/_Recv) and dead nodes are
 * not recorded; unlike TF there is no _SOURCE node to record. Under FULL_TRACE each output becomes a NodeOutput whose
 * TensorDescription holds dtype, shape and the buffer's bytes (requested = allocated).
 *
 * Ownership: everything is borrowed for the call; the result is malloc'd bytes the caller
 * frees. The graphs must not change during the call.
 */
#ifndef TFC_SESSION_RUN_METADATA_H
#define TFC_SESSION_RUN_METADATA_H

#include <stddef.h>

#include "base/status.h"
#include "exec/step_stats.h"
#include "graph/graph.h"

/* Serializes a RunMetadata: one DeviceStepStats per stats[i] (none when n_stats is 0), and
 * graphs[0..n_graphs) as partition_graphs. *out is malloc'd (possibly of length 0). Errors:
 * RESOURCE_EXHAUSTED on out of memory, or a graph's export error. */
int tfc_run_metadata_pack(const tfc_step_stats *stats, int n_stats, tfc_graph *const *graphs, int n_graphs,
                          void **out, size_t *out_len, tfc_status *s);

/* The timeline label of node n (see above): a malloc'd string the caller frees, or NULL on
 * out of memory. */
char *tfc_run_metadata_label(const tfc_node *n);

#endif
