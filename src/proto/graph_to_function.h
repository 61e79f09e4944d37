/*
 * graph_to_function — a FunctionDef from part of a graph (TF_GraphToFunction): TF's
 * GraphToFunctionDef naming and checks.
 *
 * Naming (TF's NodeNameMapping): output args are named first (the given output_names, or each
 * output's node name normalized: lowercased, non-alphanumerics to '_', leading non-letters
 * dropped, "unknown" if nothing is left; uniquified with "_0", "_1", ...), then input args
 * (normalized and uniquified the same way), then body nodes keep their names, uniquified
 * against all of those. Body inputs become "arg" or "node:outarg:i" (outarg is the output arg
 * name from the node's op, i the index within it); control inputs "^node".
 *
 * Not done: append_hash_to_fn_name (TF's FunctionDef hash) is UNIMPLEMENTED; attrs with
 * placeholder values do not occur in tfc graphs; no arg_attr is written (TF 2.x records each
 * input's Placeholder shape there).
 *
 * Ownership: everything borrowed; *out is malloc'd canonical FunctionDef bytes
 * (proto/function_codec.h) owned by the caller. The caller holds the graph lock or knows no
 * writer races. Errors: INVALID_ARGUMENT with TF's texts, naming the node and function.
 */
#ifndef TFC_PROTO_GRAPH_TO_FUNCTION_H
#define TFC_PROTO_GRAPH_TO_FUNCTION_H

#include <stddef.h>

#include "base/status.h"
#include "graph/graph.h"

typedef struct tfc_graph_to_function_args {
  const char *fn_name;
  int append_hash;
  int num_opers; /* -1: every node not referenced by inputs */
  tfc_node *const *opers;
  int ninputs;
  const tfc_endpoint *inputs;
  int noutputs;
  const tfc_endpoint *outputs;
  const char *const *output_names; /* NULL: generated */
  int ncontrol_outputs;
  tfc_node *const *control_outputs;
  const char *const *control_output_names; /* NULL: the nodes' names */
  const char *description;                 /* NULL: none */
} tfc_graph_to_function_args;

int tfc_graph_to_functiondef(const tfc_graph *g, const tfc_graph_to_function_args *a, void **out, size_t *out_len,
                             tfc_status *s);

#endif
