/*
 * client_graph — the graph one run signature executes, before partitioning.
 *
 * From a placed graph and a (feeds, fetches, targets) signature: prune to what the fetches
 * and targets need (a fed output cuts the walk: its producer runs only if needed for another
 * reason); copy those nodes, in id (topological) order, into a new graph where each fed
 * output comes from an _Arg node (attr index = the feed's position) and each fetch goes to a
 * _Retval node (index = the fetch's position). Every node carries its assigned device, so the
 * result is ready for partition/.
 *
 * Where feeds and fetches live: TF puts them on the client device (the session's CPU:0),
 * never on a GPU, whose kernels have no _Arg/_Retval; a fed output of a GPU node, or a fetch
 * of one, crosses with _Send/_Recv, and the CPU _Recv brings a device tensor to host memory.
 * Given a client device, an _Arg whose fed node sits on a non-CPU device, and a _Retval whose
 * tensor does, go there. On CPU devices (and without a client device) an _Arg stays on the
 * fed node's device and a _Retval beside its tensor, which spares CPU-only graphs transfers
 * between CPU devices.
 * Function calls are lowered while copying (function_call.h) and their bodies placed then,
 * with the placer (place/placer.h): every node copied before them keeps its device, a body
 * node with no request defaults to its call's device where it has a kernel there ("default:
 * the device of its function call <name>"), and to the first device of that task that can run
 * it otherwise.
 * The direct session and the distributed master both build their plans from it.
 *
 * Ownership: the spec and everything it points to are borrowed for the call; the result is
 * a new graph owned by the caller. The caller keeps the source graph from changing (its lock).
 */
#ifndef TFC_SESSION_CLIENT_GRAPH_H
#define TFC_SESSION_CLIENT_GRAPH_H

#include "base/status.h"
#include "device/device.h"
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
  /* Where lowered function bodies go (function_call.h): the devices the graph was placed
   * over and the placer's soft-placement rule; each body is placed when its call is lowered,
   * with the call's device as the default of its nodes. log_placement: 0, or print the
   * bodies' placement as log_device_placement prints the graph's (2: with tfc's reasons). */
  tfc_device *const *devices;
  int n_devices;
  int allow_soft_placement;
  int log_placement;
} tfc_client_graph_spec;

/* The key plans are cached by: "feeds|fetches|targets" as node ids and output indexes (heap,
 * caller frees; NULL on out of memory). Graphs only grow, so a key names the same plan
 * forever. */
char *tfc_client_graph_signature(const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches, int n_fetches,
                                 tfc_node *const *targets, int n_targets);

/* Builds the client graph; NULL with status on error (out of memory, node creation).
 * client_device: the full name of the client's CPU device (borrowed for the call), or NULL to
 * keep feeds and fetches beside their nodes on every device (a process without GPUs). */
tfc_graph *tfc_client_graph_build_for(const tfc_client_graph_spec *spec, const char *client_device, tfc_status *s);

#endif
