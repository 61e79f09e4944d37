/*
 * dep_opt — dependency optimization (see optimize.h), the rule of TF's DependencyOptimizer that
 * pays: a pure node whose outputs nothing reads, that is not fetched, and that other nodes wait
 * for only through control edges computes a value no one sees. It becomes a NoOp of its name and
 * devices whose control inputs are its own and the producers of its data inputs, so everything
 * that waited for it still waits for what it waited for, and its kernel no longer runs.
 *
 * The case that matters: TF 1.x's gradients gate each op's input gradients with a tuple
 * (gate_gradients=GATE_OP, an optimizer's default), a group NoOp over all of them, so the
 * gradient for an input nobody trains (a convolution's input image) is computed to be waited
 * for. TensorFlow's grappler drops that work the same way.
 *
 * Limits: nodes fed directly by control flow (Switch, Merge, Enter, ...) and the checks
 * (CheckNumerics, Assert, EnsureShape: a control dependency on a check is how a graph asks for
 * its error, as in tf.verify_tensor_all_finite) are left as they are;
 * a node's conversion makes its producers' outputs control-only in turn, so the walk goes from
 * the last node to the first and converts chains in one pass. A kernel error another converted
 * node would have raised (bad shapes) is not raised: its result was never used.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/opdef.h"
#include "optimize/optimize_int.h"

/* Ops whose point is the error they may raise (TF's dependency optimizer leaves them too). */
static int checks_something(const tfc_node *n) {
  static const char *const ops[] = {"CheckNumerics", "CheckNumericsV2", "Assert", "EnsureShape"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(n->op->name, ops[i]) == 0) return 1;
  return 0;
}

/* 1 when some input of n (data or control) comes straight from a control-flow node. */
static int fed_by_control_flow(const tfc_node *n) {
  for (int j = 0; j < n->n_inputs + n->n_control_inputs; j++) {
    const tfc_node *src = j < n->n_inputs ? n->inputs[j].node : n->control_inputs[j - n->n_inputs];
    if (tfc_node_is_control_flow(src)) return 1;
  }
  return 0;
}

/* Marks the nodes to turn into NoOps; returns how many. */
static int plan(const tfc_graph *g, const unsigned char *fetched, int *data, int *ctl, unsigned char *to_noop) {
  int n = 0;
  for (int id = g->n_nodes - 1; id >= 0; id--) {
    const tfc_node *nd = g->nodes[id];
    if (data[id] || !ctl[id] || fetched[id] || nd->op->id == TFC_OP_NoOp || !tfc_opt_node_is_pure(nd) ||
        checks_something(nd) || fed_by_control_flow(nd))
      continue;
    to_noop[id] = 1;
    n++;
    /* Its data edges become control edges. */
    for (int j = 0; j < nd->n_inputs; j++) {
      data[nd->inputs[j].node->id]--;
      ctl[nd->inputs[j].node->id]++;
    }
  }
  return n;
}

/* The NoOp standing for src node nd: its control inputs, then its data inputs' producers. */
static tfc_node *add_noop(tfc_opt_copy *c, const tfc_node *nd, tfc_status *s) {
  int cap = nd->n_inputs + nd->n_control_inputs, n_ctl = 0;
  tfc_node **ctls = malloc(sizeof *ctls * (size_t)(cap ? cap : 1));
  if (!ctls) {
    TFC_OOM(s);
    return NULL;
  }
  for (int j = 0; j < cap; j++) {
    const tfc_node *src = j < nd->n_control_inputs ? nd->control_inputs[j] : nd->inputs[j - nd->n_control_inputs].node;
    tfc_node *to = c->ctl[src->id];
    int dup = 0;
    for (int k = 0; k < n_ctl && !dup; k++) dup = ctls[k] == to;
    if (to && !dup) ctls[n_ctl++] = to;
  }
  tfc_node *noop = tfc_graph_add_raw(c->dst, nd->name, tfc_op_lookup("NoOp"), nd->device, nd->assigned_device, NULL, 0,
                                     ctls, n_ctl, NULL, 0, s);
  free(ctls);
  if (noop) c->ctl[nd->id] = noop; /* its outputs stay unmapped: nothing reads them */
  return noop;
}

int tfc_opt_dependency(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s) {
  (void)o;
  *out = NULL;
  int n = g->n_nodes, *data = calloc((size_t)n + 1, sizeof *data), *ctl = calloc((size_t)n + 1, sizeof *ctl);
  unsigned char *to_noop = calloc((size_t)n + 1, 1), *fetched = NULL;
  int *consumers = NULL;
  if (!data || !ctl || !to_noop || tfc_opt_edges(g, &consumers, &fetched, s)) {
    if (tfc_status_ok(s)) TFC_OOM(s);
    goto done;
  }
  for (int id = 0; id < n; id++) {
    const tfc_node *nd = g->nodes[id];
    for (int j = 0; j < nd->n_inputs; j++) data[nd->inputs[j].node->id]++;
    for (int j = 0; j < nd->n_control_inputs; j++) ctl[nd->control_inputs[j]->id]++;
  }
  if (!plan(g, fetched, data, ctl, to_noop)) goto done;
  tfc_opt_copy c;
  if (tfc_opt_copy_init(&c, g, s)) goto done;
  for (int id = 0; id < n && tfc_status_ok(s); id++) {
    if (to_noop[id]) add_noop(&c, g->nodes[id], s);
    else tfc_opt_copy_node(&c, g->nodes[id], NULL, s);
  }
  if (tfc_status_ok(s)) {
    tfc_opt_copy_finish(&c);
    *out = c.dst;
    c.dst = NULL;
  }
  tfc_opt_copy_fini(&c);
done:
  free(data);
  free(ctl);
  free(to_noop);
  free(consumers);
  free(fetched);
  return s->code;
}
