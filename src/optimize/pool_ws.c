/*
 * pool_ws — max pooling's gradient from a workspace (see optimize.h), as TF's oneDNN layout
 * pass does with its workspace tensors:
 *
 *   MaxPool(x) = P and MaxPoolGrad(x, P, grad) = G, on CPUs, float, the same ksize, strides,
 *   padding and data_format
 *     -> _MaxPoolWithWorkspace(x) named as P (output 0 as P's, output 1 the workspace), and
 *        _MaxPoolGradWithWorkspace(x, P, grad, P:1) named as G.
 *
 * The workspace holds, per pooled element, which element of its window MaxPoolGrad routes the
 * gradient to (one byte; device/cpu/kernels_conv_int.h). MaxPoolGrad otherwise searches every
 * window of x again, and by the backward pass x (a whole layer's activations) has left the
 * caches: the search reads it from memory, the workspace reads an eighth of the pooled size.
 * Values are those of the two ops bit for bit: the pool's output is MaxPool's, and the
 * workspace records MaxPoolGrad's own choice (its tie rule, NaN included) from the same x.
 *
 * Conditions: G's orig_input is P's input (the same tensor, not a reference variable's edge,
 * which two reads could see differently), G's orig_output is P's output; the window pools over
 * H and W only and has fewer than 255 elements; neither node is fetched (a fetched node keeps
 * its op). Several gradients of one pool share its workspace. Switched off with remapping.
 */
#include <stdlib.h>
#include <string.h>

#include "optimize/optimize_int.h"
#include "tensor/dtype.h"

static int same_attr(const tfc_node *a, const tfc_node *b, const char *name) {
  const tfc_attr_value *x = tfc_node_attr(a, name), *y = tfc_node_attr(b, name);
  return x && y && tfc_attr_value_equal(x, y);
}

/* A float MaxPool or MaxPoolGrad on a CPU, pooling over H and W with a window of < 255
 * elements, padding SAME or VALID without explicit paddings. */
static int poolable(const tfc_node *n, const char *op) {
  int t = 0;
  if (strcmp(n->op->name, op) != 0 || tfc_node_attr_type(n, "T", &t) != 0 || t != TFC_DT_FLOAT ||
      !tfc_opt_node_on_cpu(n))
    return 0;
  const tfc_attr_value *k = tfc_node_attr(n, "ksize"), *st = tfc_node_attr(n, "strides"),
                       *fmt = tfc_node_attr(n, "data_format"), *ep = tfc_node_attr(n, "explicit_paddings");
  if (!k || !st || !fmt || k->kind != TFC_ATTR_LIST || st->kind != TFC_ATTR_LIST || k->u.list.n != 4 ||
      st->u.list.n != 4 || fmt->kind != TFC_ATTR_STRING || (ep && ep->kind == TFC_ATTR_LIST && ep->u.list.n))
    return 0;
  int nchw = strcmp(fmt->u.s.data, "NCHW") == 0;
  if (!nchw && strcmp(fmt->u.s.data, "NHWC") != 0) return 0;
  int c = nchw ? 1 : 3, h = nchw ? 2 : 1;
  const tfc_attr_value *kv = k->u.list.items, *sv = st->u.list.items;
  if (kv[0].u.i != 1 || kv[c].u.i != 1 || sv[0].u.i != 1 || sv[c].u.i != 1) return 0;
  int64_t kh = kv[h].u.i, kw = kv[h + 1].u.i;
  return kh > 0 && kw > 0 && kh * kw < 255;
}

/* The MaxPool whose gradient node g is, when the pair qualifies; else NULL. */
static const tfc_node *pool_of(const tfc_node *g, const unsigned char *fetched) {
  if (!poolable(g, "MaxPoolGrad") || g->n_inputs != 3 || fetched[g->id]) return NULL;
  tfc_endpoint x = g->inputs[0], y = g->inputs[1];
  const tfc_node *p = y.node;
  if (y.index != 0 || !poolable(p, "MaxPool") || p->n_inputs != 1 || fetched[p->id]) return NULL;
  if (p->inputs[0].node != x.node || p->inputs[0].index != x.index ||
      tfc_dtype_is_ref(x.node->output_types[x.index]))
    return NULL;
  static const char *const attrs[] = {"ksize", "strides", "padding", "data_format"};
  for (int i = 0; i < 4; i++)
    if (!same_attr(p, g, attrs[i])) return NULL;
  return p;
}

/* Makes n's replacement in c: n under op `op` (n's name, devices, attrs and control inputs)
 * reading ins; a second output (the workspace) has the first's shape. NULL with status. */
static tfc_node *replace(tfc_opt_copy *c, const tfc_node *n, const char *op, const tfc_endpoint *ins, int n_in,
                         tfc_status *s) {
  const tfc_opdef *def = tfc_op_lookup(op);
  if (!def) {
    tfc_status_set(s, TFC_INTERNAL, "no op %s", op);
    return NULL;
  }
  tfc_node *m = tfc_opt_copy_node_as(c, n, def, ins, n_in, s);
  if (m && m->n_outputs > 1) m->output_shapes[1] = n->output_shapes[0];
  return m;
}

int tfc_opt_pool_workspace(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s) {
  (void)o;
  *out = NULL;
  int n = g->n_nodes, n_rewrites = 0;
  int *consumers = NULL;
  unsigned char *fetched = NULL;
  TFC_TRY(tfc_opt_edges(g, &consumers, &fetched, s));
  /* role[id]: 1 for a pool that gets a workspace, 2 for a gradient that reads one */
  unsigned char *role = calloc((size_t)n + 1, 1);
  if (!role) {
    TFC_OOM(s);
    goto done;
  }
  for (int id = 0; id < n; id++) {
    const tfc_node *p = pool_of(g->nodes[id], fetched);
    if (!p) continue;
    role[p->id] = 1;
    role[id] = 2;
    n_rewrites++;
  }
  if (!n_rewrites) goto done;
  tfc_opt_copy c;
  if (tfc_opt_copy_init(&c, g, s)) goto done;
  for (int id = 0; id < n && tfc_status_ok(s); id++) {
    const tfc_node *nd = g->nodes[id];
    if (!role[id]) {
      tfc_opt_copy_node(&c, nd, NULL, s);
    } else if (role[id] == 1) {
      tfc_endpoint x = tfc_opt_mapped(&c, nd->inputs[0]);
      replace(&c, nd, "_MaxPoolWithWorkspace", &x, 1, s);
    } else {
      tfc_endpoint ins[4];
      for (int j = 0; j < 3; j++) ins[j] = tfc_opt_mapped(&c, nd->inputs[j]);
      ins[3] = (tfc_endpoint){ins[1].node, 1}; /* the pool's workspace */
      replace(&c, nd, "_MaxPoolGradWithWorkspace", ins, 4, s);
    }
  }
  if (tfc_status_ok(s)) {
    tfc_opt_copy_finish(&c);
    *out = c.dst;
    c.dst = NULL;
  }
  tfc_opt_copy_fini(&c);
done:
  free(role);
  free(consumers);
  free(fetched);
  return s->code;
}
