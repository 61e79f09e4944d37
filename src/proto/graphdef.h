/*
 * graphdef — GraphDef import into a tfc_graph and export out of it; NodeDef, VersionDef,
 * OpDef and OpList export. The edge between TF's serialized graphs and the graph store.
 *
 * Import (TF_GraphImportGraphDef) follows TF's ImportGraphDef:
 *  - NodeDefs may come in any order: nodes are made in TF's topological order (of the
 *    nodes whose inputs exist, the first in the GraphDef; a cycle is INVALID_ARGUMENT). Inputs are "name", "name:k" and "^name" (control inputs after data
 *    inputs).
 *  - Missing attrs are filled from op defaults (old graphs omit attrs added later); every
 *    node is validated and shape-inferred as TF_FinishOperation does.
 *  - GraphDef.versions is optional; when present it is checked against
 *    TFC_GRAPH_DEF_VERSION (producer >= 0, min_consumer <= ours, ours not a bad consumer).
 *    Graphs produced before version 21 wrote an unknown Placeholder shape as `shape {}`;
 *    for them a rank-0 Placeholder shape means unknown rank.
 *  - Options as TF_ImportGraphDefOptions: a name prefix ("p" makes "p/x"), uniquified
 *    names or prefix, a default device for nodes without one, input mappings from
 *    (src name, src index) to existing outputs (index -1 remaps control inputs), extra
 *    control dependencies for nodes that get no input from the imported graph, and the
 *    outputs and nodes to return.
 *  - Colocation attrs (_class "loc:@x") follow the renaming of x; naming a node the GraphDef
 *    lacks is INVALID_ARGUMENT unless colocation validation is off.
 *  - The import is atomic: it runs under the graph lock and, on any error, rolls the graph
 *    back to where it was. Errors name the node: "Node 'x': Unknown input node 'y'".
 *  - The graph's producer/min_consumer/bad_consumers are taken from the GraphDef when the
 *    graph was empty, and merged (min producer, max min_consumer, union) otherwise.
 *
 * Export writes versions {producer, min_consumer, bad_consumers} and every node (name, op,
 * inputs as "n", "n:k", "^n", device, all attrs), then the graph's function library
 * (GraphDef.library, proto/function_codec.h) in field order. Import adds the library's
 * functions and gradients to the graph's (TF's rules, graph/function.h; no prefix applied)
 * before it builds any node, and rolls them back with the nodes on error. Nodes calling a
 * library function are not supported yet (unknown op).
 *
 * Ownership: options are borrowed for the call; results are caller storage freed with
 * tfc_import_results_fini; exported bytes are malloc'd and owned by the caller.
 * Thread-safety: import and export take the graph lock.
 */
#ifndef TFC_PROTO_GRAPHDEF_H
#define TFC_PROTO_GRAPHDEF_H

#include <stddef.h>

#include "base/status.h"
#include "graph/graph.h"
#include "proto/pb_util.h"
#include "tensorflow/node_def.pb-c.h"

/* TF_GRAPH_DEF_VERSION_MIN_PRODUCER / _MIN_CONSUMER. */
#define TFC_GRAPH_DEF_VERSION_MIN_PRODUCER 0
#define TFC_GRAPH_DEF_VERSION_MIN_CONSUMER 0

typedef struct tfc_import_input_mapping {
  char *src_name;   /* node name in the GraphDef (before the prefix) */
  int src_index;    /* output index; -1 maps control inputs "^src_name" */
  tfc_endpoint dst; /* an existing output of the graph (index -1 for control remaps) */
} tfc_import_input_mapping;

typedef struct tfc_import_tensor_ref {
  char *name;
  int index;
} tfc_import_tensor_ref;

typedef struct tfc_import_options {
  const char *prefix; /* NULL or "" for none; a trailing '/' is optional */
  int uniquify_names;
  int uniquify_prefix;
  const char *default_device; /* NULL or "" for none */
  int n_input_mappings;
  const tfc_import_input_mapping *input_mappings;
  int n_control_deps;
  tfc_node *const *control_deps;
  int n_return_outputs;
  const tfc_import_tensor_ref *return_outputs;
  int n_return_ops;
  char *const *return_ops;
  /* 0 (default): a "loc:@x" colocation naming a node absent from the GraphDef is an error. */
  int skip_colocation_validation;
} tfc_import_options;

typedef struct tfc_import_results {
  int n_return_outputs;
  tfc_endpoint *return_outputs;
  int n_return_ops;
  tfc_node **return_ops;
  /* Input mappings that named a node the GraphDef does not have and no input used. */
  int n_missing_unused;
  char **missing_unused_names;
  int *missing_unused_indexes;
} tfc_import_results;

void tfc_import_results_init(tfc_import_results *r);
void tfc_import_results_fini(tfc_import_results *r);

/* Imports serialized GraphDef bytes into g. opts may be NULL (defaults); out may be NULL
 * when nothing is to be returned. On error g is unchanged and *out is empty. Parse errors
 * are INVALID_ARGUMENT "Invalid GraphDef". */
int tfc_graphdef_import(tfc_graph *g, const void *data, size_t len, const tfc_import_options *opts,
                        tfc_import_results *out, tfc_status *s);

/* Serializes the whole graph as a GraphDef into a new malloc'd buffer. */
int tfc_graphdef_export(tfc_graph *g, void **out, size_t *out_len, tfc_status *s);
/* The same for nodes [first, n_nodes) only (what a remote session sends to extend its master's
 * graph); with `assigned`, NodeDef.device holds each node's assigned device where it has one
 * (partition graphs sent to workers). */
int tfc_graphdef_export_ex(tfc_graph *g, int first, int assigned, void **out, size_t *out_len, tfc_status *s);
/* One node as a NodeDef. The node's graph must not be written concurrently (takes no lock;
 * built nodes are immutable). */
int tfc_nodedef_export(const tfc_node *n, void **out, size_t *out_len, tfc_status *s);
/* One node as a NodeDef struct whose pieces live in arena `a` (what tfc_nodedef_export packs;
 * for callers that build bigger messages, such as FunctionDefs). Same locking rule. */
int tfc_nodedef_build(const tfc_node *n, int assigned, tfc_pb_arena *a, Tensorflow__NodeDef *nd, tfc_status *s);
/* The graph's VersionDef. */
int tfc_versiondef_export(tfc_graph *g, void **out, size_t *out_len, tfc_status *s);
/* One op's OpDef; and an OpList of every op except internal ones (names starting '_'): the
 * table's, then the ones registered at run time. */
int tfc_opdef_export(const tfc_opdef *op, void **out, size_t *out_len, tfc_status *s);
int tfc_oplist_export(void **out, size_t *out_len, tfc_status *s);
/* An OpList of the given ops (borrowed), in that order. */
int tfc_oplist_export_ops(const tfc_opdef *const *ops, int n_ops, void **out, size_t *out_len, tfc_status *s);

#endif
