/*
 * client_graph — the graph one run signature executes, before partitioning.
 *
 * From a placed graph and a (feeds, fetches, targets) signature: prune to what the fetches
 * and targets need (a fed output cuts the walk: its producer runs only if needed for another
 * reason); copy those nodes, in id (topological) order, into a new graph where each fed
 * output comes from an _Arg node (attr index = the feed's position) on the fed node's device
 * and each fetch goes to a _Retval node (index = the fetch's position) beside the tensor it
 * returns. Every node carries its assigned device, so the result is ready for partition/.
 * The direct session and the distributed master both build their plans from it.
 *
 * Ownership: the spec and everything it points to are borrowed for the call; the result is
 * a new graph owned by the caller. The caller keeps the source graph from changing (its lock).
 */
#ifndef TFC_SESSION_CLIENT_GRAPH_H
#define TFC_SESSION_CLIENT_GRAPH_H

#include "base/status.h"
#include "graph/graph.h"

typedef struct tfc_client_graph_spec {
  const tfc_graph *graph;
  int n_nodes; /* nodes [0, n_nodes) are placed; feeds, fetches and targets lie among them */
  /* The full name of the device node n was placed on. */
  const char *(*device_of)(void *arg, const tfc_node *n);
  void *arg;
  const tfc_endpoint *feeds;
  int n_feeds;
  const tfc_endpoint *fetches;
  int n_fetches;
  tfc_node *const *targets;
  int n_targets;
} tfc_client_graph_spec;

/* The key plans are cached by: "feeds|fetches|targets" as node ids and output indexes (heap,
 * caller frees; NULL on out of memory). Graphs only grow, so a key names the same plan
 * forever. */
char *tfc_client_graph_signature(const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches, int n_fetches,
                                 tfc_node *const *targets, int n_targets);

/* Builds the client graph; NULL with status on error (out of memory, node creation). */
tfc_graph *tfc_client_graph_build(const tfc_client_graph_spec *spec, tfc_status *s);

#endif
