/*
 * gradients — symbolic differentiation of a graph: adds the nodes that compute
 * d(y[0] + ... + y[ny-1]) / dx[i] for each x, the way TensorFlow's tf.gradients does
 * (TF_AddGradients is a thin wrapper over tfc_gradients_add).
 *
 * The walk (gradients.c), in TF Python's order so that node names line up with graphs built
 * by tf.gradients:
 *   1. the prefix scope: "gradients", "gradients_1", ... (the first not used by any node name
 *      or name prefix), or the caller's prefix, which must be unused;
 *   2. seeds: for each y without a given gradient, <prefix>/Shape, <prefix>/grad_ys_<i> (Const 1)
 *      and <prefix>/Fill;
 *   3. the nodes between x and y: reachable forward from the x nodes through backpropagatable
 *      (floating, complex, resource, variant) outputs and backward from the y nodes through data
 *      edges; each one waits for a gradient from each of its data edges into that set;
 *   4. backprop from the ready queue: the gradients flowing into one output are summed with
 *      <prefix>/AddN[_k]; an op with any incoming gradient calls its builder (registry keyed by
 *      op id, gradient_registry.c) under <prefix>/<op name>_grad/, where the new nodes are named
 *      by their type (MatMul, MatMul_1, Sum, Reshape, BroadcastGradientArgs, ...); float outputs
 *      without a gradient get <op>_grad/zeros_like first; optionally (tuple_wrap) several input
 *      gradients are wrapped as Python's control_flow_ops.tuple does;
 *   5. while loops are handled as units: an Exit records its summed gradient, and once every
 *      Exit on the path has one the loop's gradient is built (grad_loop.c) and handed to the
 *      inputs of the loop's Enters; the inside of the loop is never walked. In tf.gradients
 *      mode the conds the builders recorded get TF Python's cond gradients (cond_of).
 *
 * Errors (TF's codes and texts): an op on the path with no gradient is NOT_FOUND "No gradient
 * defined for op: <type>. Please see ..."; PreventGradient is INVALID_ARGUMENT "Gradient
 * explicitly disabled. Reason: <message>"; an x whose node cannot reach a y is INVALID_ARGUMENT
 * "Cannot compute the partial derivative for node '<x>' as it's unreachable from the output
 * node(s)." (TF 1.15's C API) unless the options ask for zeros or none. On every error the
 * graph is left exactly as it was (tfc_graph_mark/rollback under the graph lock).
 *
 * Thread-safety: takes the graph lock for the whole walk; other writers wait.
 */
#ifndef TFC_GRAD_GRADIENTS_H
#define TFC_GRAD_GRADIENTS_H

#include "base/status.h"
#include "graph/graph.h"

/* What an x receives when no gradient reaches it. */
enum tfc_grad_missing {
  TFC_GRAD_MISSING_ERROR = 0, /* TF C API for unreachable x: INVALID_ARGUMENT (see above) */
  TFC_GRAD_MISSING_ZEROS = 1, /* <prefix>/zeros_like[_k] ZerosLike(x) */
  TFC_GRAD_MISSING_NONE = 2,  /* out endpoint {NULL, -1} (tf.gradients' None) */
  TFC_GRAD_MISSING_COUNT = 3
};

typedef struct tfc_grad_options {
  const char *prefix;  /* NULL: "gradients", "gradients_1", ...; else must be unused */
  int tuple_wrap;      /* 1: Python's <op>_grad/tuple/group_deps + control_dependency[_k] */
  int unreachable;     /* enum tfc_grad_missing: x's node cannot reach any y */
  int no_gradient;     /* enum tfc_grad_missing except ERROR: reachable, but nothing flows
                          (StopGradient, integer paths, non-differentiable ops) */
  int loop_stacks;     /* 1: a while loop's gradient saves the forward values its body's
                          gradient reads on stacks (TF Python); 0: it reads them across frames,
                          which fails at run time as in TF's C API (grad/grad_loop.c) */
  /* tf.gradients mode: the cond a Switch or Merge belongs to (TF Python's CondContext, as the
   * builders record it): 1 with *pred (the cond's pred_id) and *branch (the Switch output its
   * branch takes; -1 for the cond's Merge; -2 for an Exit of a loop built with back_prop
   * false, which passes no gradient), else 0. NULL: no cond gradients (TF's C API has
   * none: NOT_FOUND). Called with the graph lock held. */
  int (*cond_of)(void *ctx, const tfc_node *n, tfc_node **pred, int *branch);
  void *cond_ctx;
  int identity_grad_ys; /* 1: a given seed first passes through Identity <prefix>/grad_ys_<i>, as
                           tf.gradients names it; 0 (TF's C API): it is used as given */
} tfc_grad_options;

/* The options of TF_AddGradients: no tuple wrapping, unreachable x is TF's error, an x that
 * is reachable but receives nothing gets zeros (TF 1.15's C API hands back a NULL operation
 * there; zeros are what every client then builds by hand). */
tfc_grad_options tfc_grad_options_capi(void);
/* tf.gradients' options: tuple wrapping, None for both cases, given seeds through Identity. */
tfc_grad_options tfc_grad_options_python(void);

/*
 * Adds gradient nodes to g. y[0, ny) and x[0, nx) are outputs of nodes of g (borrowed);
 * grad_ys may be NULL (every seed is ones) or hold ny seeds, where an entry with node NULL
 * means ones; a seed's dtype must equal its y's. out_grads[0, nx) receive the results (see
 * enum tfc_grad_missing for the empty cases). opt NULL means tfc_grad_options_capi().
 * Returns TFC_OK or the error code held in s; on error g is unchanged and out_grads
 * untouched. Takes g's lock: the caller must not hold it.
 */
int tfc_gradients_add(tfc_graph *g, const tfc_endpoint *y, int ny, const tfc_endpoint *x, int nx,
                      const tfc_endpoint *grad_ys, const tfc_grad_options *opt,
                      tfc_endpoint *out_grads, tfc_status *s);

#endif
