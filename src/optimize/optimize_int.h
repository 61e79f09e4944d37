/*
 * optimize_int — what the passes of optimize/ share (private to src/optimize/): a copier that
 * rebuilds a graph node by node in id order with some outputs redirected, and the pruning of
 * what a rewrite left unused. See optimize.h for the stage.
 *
 * A pass never edits its input graph (graphs are append-only): it walks the source graph in id
 * (topological) order and for each node either copies it (tfc_opt_copy_node, inputs mapped to
 * their new producers) or maps its outputs to other endpoints of the new graph (tfc_opt_map),
 * which later consumers then read. A loop's back edges are set after the walk, as the client
 * graph builder does.
 */
#ifndef TFC_OPTIMIZE_OPTIMIZE_INT_H
#define TFC_OPTIMIZE_OPTIMIZE_INT_H

#include "optimize/optimize.h"
#include "tensor/tensor.h"

typedef struct tfc_opt_copy {
  const tfc_graph *src;
  tfc_graph *dst;  /* owned until taken by the caller */
  int *off;        /* src node id -> its first slot in out */
  tfc_endpoint *out; /* src output -> its producer in dst ({NULL, 0}: not yet made) */
  tfc_node **ctl;  /* src node id -> the dst node its control edges go to (NULL: dropped) */
} tfc_opt_copy;

/* Starts a copy of src into a new graph. 0 or RESOURCE_EXHAUSTED. */
int tfc_opt_copy_init(tfc_opt_copy *c, const tfc_graph *src, tfc_status *s);
/* Frees the maps and, unless taken (set c->dst = NULL first), the new graph. */
void tfc_opt_copy_fini(tfc_opt_copy *c);
/* The new endpoint of src output e. */
static inline tfc_endpoint tfc_opt_mapped(const tfc_opt_copy *c, tfc_endpoint e) {
  return c->out[c->off[e.node->id] + e.index];
}
/* Copies n (name, op, devices, attrs, output shapes) with its inputs mapped; input j is
 * replaced by override[j] when override and override[j].node are set. NULL with status. */
tfc_node *tfc_opt_copy_node(tfc_opt_copy *c, const tfc_node *n, const tfc_endpoint *override, tfc_status *s);
/* The same with another op and the inputs ins (n_in dst endpoints): n's name, devices, attrs
 * and control inputs; n's outputs map to the new node's first outputs, which get n's shapes.
 * NULL with status. */
tfc_node *tfc_opt_copy_node_as(tfc_opt_copy *c, const tfc_node *n, const tfc_opdef *op, const tfc_endpoint *ins,
                                int n_in, tfc_status *s);
/* Redirects every output of n to `to` (index i -> to[i]) and its control edges to ctl. */
void tfc_opt_map(tfc_opt_copy *c, const tfc_node *n, const tfc_endpoint *to, tfc_node *ctl);
/* Sets the back edges of copied loop nodes (after the walk). */
void tfc_opt_copy_finish(tfc_opt_copy *c);

/* A Const node in dst holding t (one reference taken), named name (or a fresh name based on it
 * when dst or, by another node than like, src has it), with like's requested and assigned
 * devices. NULL with status. */
tfc_node *tfc_opt_add_const(tfc_opt_copy *c, const char *name, const tfc_node *like, tfc_tensor *t, tfc_status *s);

/* 1 when n may be removed or evaluated ahead of time: not stateful, not internal (_Arg,
 * _Retval, _Send, _Recv), not control flow, no ref or resource edges. */
int tfc_opt_node_is_pure(const tfc_node *n);
/* 1 when n is placed on a CPU device. */
int tfc_opt_node_on_cpu(const tfc_node *n);
/* The value of a Const node without control inputs (borrowed), else NULL. */
const tfc_tensor *tfc_opt_const_value(const tfc_node *n);
/* The one consumer of node id p (a data edge into its input *input), or -1 when p has another
 * consumer, a control edge out, is fetched or has more than one output. consumers and fetched
 * as tfc_opt_edges gives them. */
int tfc_opt_sole_consumer(const tfc_graph *g, const int *consumers, const unsigned char *fetched, int p, int *input);
/* 1 when b is on a CPU, on a's device, and has no control inputs. */
int tfc_opt_same_cpu(const tfc_node *a, const tfc_node *b);
/* Per node of g: *consumers, how many data and control edges leave it; *fetched, 1 when a
 * _Retval reads one of its outputs (both heap, caller frees). 0 or RESOURCE_EXHAUSTED. */
int tfc_opt_edges(const tfc_graph *g, int **consumers, unsigned char **fetched, tfc_status *s);

/* The passes. Each sets *out to a new graph when it changed something (NULL when not). */
int tfc_opt_const_fold(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);
int tfc_opt_scale_fold(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);
int tfc_opt_fuse_conv(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);
int tfc_opt_dependency(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);
int tfc_opt_pool_workspace(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);
/* Drops nodes that no longer feed a root: a node that is not pure, or whose name in_orig
 * gave to a node without consumers there (a target), or a _Retval. */
int tfc_opt_prune(const tfc_graph *g, const tfc_graph *orig, tfc_graph **out, tfc_status *s);

#endif
