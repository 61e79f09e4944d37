/*
 * optimize — see optimize.h. The driver, and the copier and pruning of optimize_int.h.
 */
#include "optimize/optimize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_name.h"
#include "optimize/optimize_int.h"

/* ---- the copier ---- */

int tfc_opt_copy_init(tfc_opt_copy *c, const tfc_graph *src, tfc_status *s) {
  memset(c, 0, sizeof *c);
  c->src = src;
  int n = src->n_nodes, total = 0;
  c->off = malloc(sizeof(int) * (size_t)(n + 1));
  c->ctl = calloc((size_t)n + 1, sizeof *c->ctl);
  c->dst = tfc_graph_new();
  if (!c->off || !c->ctl || !c->dst) goto oom;
  for (int i = 0; i < n; i++) {
    c->off[i] = total;
    total += src->nodes[i]->n_outputs;
  }
  c->off[n] = total;
  if (!(c->out = calloc((size_t)total + 1, sizeof *c->out))) goto oom;
  c->dst->internal_names = 1; /* _arg_0, _retval_0 */
  c->dst->producer = src->producer;
  c->dst->min_consumer = src->min_consumer;
  return TFC_OK;
oom:
  tfc_opt_copy_fini(c);
  return TFC_OOM(s);
}

void tfc_opt_copy_fini(tfc_opt_copy *c) {
  free(c->off);
  free(c->out);
  free(c->ctl);
  tfc_graph_free(c->dst);
  memset(c, 0, sizeof *c);
}

tfc_node *tfc_opt_copy_node_as(tfc_opt_copy *c, const tfc_node *n, const tfc_opdef *op, const tfc_endpoint *ins,
                                int n_in, tfc_status *s) {
  tfc_node *ctl_small[8] = {NULL};
  tfc_node **ctls = n->n_control_inputs <= 8 ? ctl_small : malloc(sizeof *ctls * (size_t)n->n_control_inputs);
  if (!ctls) {
    TFC_OOM(s);
    return NULL;
  }
  int n_ctl = 0;
  for (int j = 0; j < n->n_control_inputs; j++) {
    tfc_node *to = c->ctl[n->control_inputs[j]->id];
    int dup = 0;
    for (int k = 0; k < n_ctl && !dup; k++) dup = ctls[k] == to;
    if (to && !dup) ctls[n_ctl++] = to;
  }
  tfc_node *out = tfc_graph_add_raw(c->dst, n->name, op, n->device, n->assigned_device, ins, n_in, ctls, n_ctl,
                                    n->attrs, n->n_attrs, s);
  if (out) {
    for (int i = 0; i < n->n_outputs && i < out->n_outputs; i++) {
      out->output_shapes[i] = n->output_shapes[i];
      c->out[c->off[n->id] + i] = (tfc_endpoint){out, i};
    }
    c->ctl[n->id] = out;
  }
  if (ctls != ctl_small) free(ctls);
  return out;
}

tfc_node *tfc_opt_copy_node(tfc_opt_copy *c, const tfc_node *n, const tfc_endpoint *override, tfc_status *s) {
  tfc_endpoint in_small[8] = {{NULL, 0}};
  tfc_endpoint *ins = n->n_inputs <= 8 ? in_small : malloc(sizeof *ins * (size_t)n->n_inputs);
  if (!ins) {
    TFC_OOM(s);
    return NULL;
  }
  int stand_in = -1;
  for (int j = 0; j < n->n_inputs; j++) {
    if (override && override[j].node) ins[j] = override[j];
    else if (tfc_node_input_is_back_edge(n, j)) ins[j] = (tfc_endpoint){NULL, 0};
    else ins[j] = tfc_opt_mapped(c, n->inputs[j]);
    if (stand_in < 0 && ins[j].node) stand_in = j;
  }
  for (int j = 0; j < n->n_inputs && stand_in >= 0; j++)
    if (!ins[j].node) ins[j] = ins[stand_in];
  tfc_node *out = tfc_opt_copy_node_as(c, n, n->op, ins, n->n_inputs, s);
  if (ins != in_small) free(ins);
  return out;
}

void tfc_opt_map(tfc_opt_copy *c, const tfc_node *n, const tfc_endpoint *to, tfc_node *ctl) {
  for (int i = 0; i < n->n_outputs; i++) c->out[c->off[n->id] + i] = to[i];
  c->ctl[n->id] = ctl;
}

void tfc_opt_copy_finish(tfc_opt_copy *c) {
  const tfc_graph *g = c->src;
  for (int id = 0; id < g->n_nodes; id++) {
    const tfc_node *n = g->nodes[id];
    tfc_node *copy = c->ctl[id];
    /* Only a node copied as itself has back edges to set (loop nodes are never rewritten). */
    if (!copy || copy->op != n->op || strcmp(copy->name, n->name) != 0) continue;
    for (int j = 0; j < n->n_inputs; j++)
      if (tfc_node_input_is_back_edge(n, j)) copy->inputs[j] = tfc_opt_mapped(c, n->inputs[j]);
  }
}

tfc_node *tfc_opt_add_const(tfc_opt_copy *c, const char *name, const tfc_node *like, tfc_tensor *t, tfc_status *s) {
  char *uname = NULL;
  const tfc_node *taken = tfc_graph_find(c->src, name);
  if ((taken && taken != like) || tfc_graph_find(c->dst, name)) {
    size_t len = strlen(name) + 24;
    uname = malloc(len);
    for (int k = 1; uname; k++) {
      snprintf(uname, len, "%s_%d", name, k);
      if (!tfc_graph_find(c->src, uname) && !tfc_graph_find(c->dst, uname)) break;
    }
    if (!uname) {
      TFC_OOM(s);
      return NULL;
    }
    name = uname;
  }
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  tfc_attr_value dt = tfc_attr_type(t->dtype), v = tfc_attr_tensor(tfc_tensor_ref(t));
  tfc_node *n = NULL;
  if (!tfc_attrs_set(&attrs, &n_attrs, "dtype", &dt, s) && !tfc_attrs_set(&attrs, &n_attrs, "value", &v, s))
    n = tfc_graph_add_raw(c->dst, name, tfc_op_lookup("Const"), like->device, like->assigned_device, NULL, 0, NULL, 0,
                          attrs, n_attrs, s);
  tfc_attr_value_fini(&dt);
  tfc_attr_value_fini(&v);
  tfc_attrs_free(attrs, n_attrs);
  free(uname);
  if (n) n->output_shapes[0] = tfc_tensor_shape(t);
  return n;
}

/* ---- node properties ---- */

int tfc_opt_node_is_pure(const tfc_node *n) {
  if (n->op->flags & (TFC_OPF_STATEFUL | TFC_OPF_INTERNAL)) return 0;
  if (tfc_node_is_control_flow(n)) return 0;
  for (int i = 0; i < n->n_inputs; i++) {
    int t = n->input_types[i];
    if (tfc_dtype_is_ref(t) || tfc_dtype_base(t) == TFC_DT_RESOURCE || tfc_dtype_base(t) == TFC_DT_VARIANT) return 0;
  }
  for (int i = 0; i < n->n_outputs; i++) {
    int t = n->output_types[i];
    if (tfc_dtype_is_ref(t) || tfc_dtype_base(t) == TFC_DT_RESOURCE || tfc_dtype_base(t) == TFC_DT_VARIANT) return 0;
  }
  return 1;
}

int tfc_opt_node_on_cpu(const tfc_node *n) {
  tfc_devname dn;
  return n->assigned_device && tfc_devname_parse(n->assigned_device, &dn) == 0 && dn.has_type &&
         strcmp(dn.type, "CPU") == 0;
}

const tfc_tensor *tfc_opt_const_value(const tfc_node *n) {
  if (strcmp(n->op->name, "Const") != 0 || n->n_control_inputs) return NULL;
  const tfc_attr_value *v = tfc_node_attr(n, "value");
  return v && v->kind == TFC_ATTR_TENSOR ? v->u.tensor : NULL;
}

int tfc_opt_sole_consumer(const tfc_graph *g, const int *consumers, const unsigned char *fetched, int p, int *input) {
  if (consumers[p] != 1 || fetched[p] || g->nodes[p]->n_outputs != 1) return -1;
  for (int id = p + 1; id < g->n_nodes; id++) {
    const tfc_node *m = g->nodes[id];
    for (int j = 0; j < m->n_inputs; j++)
      if (m->inputs[j].node->id == p) {
        *input = j;
        return id;
      }
    for (int j = 0; j < m->n_control_inputs; j++)
      if (m->control_inputs[j]->id == p) return -1;
  }
  return -1;
}

int tfc_opt_same_cpu(const tfc_node *a, const tfc_node *b) {
  return tfc_opt_node_on_cpu(b) && a->assigned_device && strcmp(a->assigned_device, b->assigned_device) == 0 &&
         b->n_control_inputs == 0;
}

int tfc_opt_edges(const tfc_graph *g, int **consumers, unsigned char **fetched, tfc_status *s) {
  *consumers = calloc((size_t)g->n_nodes + 1, sizeof **consumers);
  *fetched = calloc((size_t)g->n_nodes + 1, 1);
  if (!*consumers || !*fetched) {
    free(*consumers);
    free(*fetched);
    *consumers = NULL;
    *fetched = NULL;
    return TFC_OOM(s);
  }
  for (int id = 0; id < g->n_nodes; id++) {
    const tfc_node *n = g->nodes[id];
    int retval = strcmp(n->op->name, "_Retval") == 0;
    for (int j = 0; j < n->n_inputs; j++) {
      (*consumers)[n->inputs[j].node->id]++;
      if (retval) (*fetched)[n->inputs[j].node->id] = 1;
    }
    for (int j = 0; j < n->n_control_inputs; j++) (*consumers)[n->control_inputs[j]->id]++;
  }
  return TFC_OK;
}

/* ---- pruning ---- */

int tfc_opt_prune(const tfc_graph *g, const tfc_graph *orig, tfc_graph **out, tfc_status *s) {
  *out = NULL;
  int n = g->n_nodes;
  unsigned char *live = calloc((size_t)n + 1, 1);
  int *stack = malloc(sizeof(int) * (size_t)(n + 1));
  if (!live || !stack) {
    free(live);
    free(stack);
    return TFC_OOM(s);
  }
  int *orig_consumers = NULL;
  unsigned char *orig_fetched = NULL;
  if (tfc_opt_edges(orig, &orig_consumers, &orig_fetched, s)) {
    free(live);
    free(stack);
    return s->code;
  }
  int top = 0;
  for (int id = 0; id < n; id++) {
    const tfc_node *nd = g->nodes[id];
    int root = !tfc_opt_node_is_pure(nd);
    if (!root) {
      /* A target: a node that nothing consumed in the graph the stage was given. */
      const tfc_node *o = tfc_graph_find(orig, nd->name);
      root = o && o->op == nd->op && orig_consumers[o->id] == 0;
    }
    if (root) {
      live[id] = 1;
      stack[top++] = id;
    }
  }
  free(orig_consumers);
  free(orig_fetched);
  while (top > 0) {
    const tfc_node *nd = g->nodes[stack[--top]];
    for (int j = 0; j < nd->n_inputs + nd->n_control_inputs; j++) {
      const tfc_node *src = j < nd->n_inputs ? nd->inputs[j].node : nd->control_inputs[j - nd->n_inputs];
      /* A control edge from a Const that depends on nothing orders nothing: the Const can run
       * at any time and has no effect (frozen Keras models hang every weight's former
       * ReadVariableOp on one NoOp this way). The edge goes with it unless the Const is live
       * for another reason. */
      if (j >= nd->n_inputs && !src->n_inputs && !src->n_control_inputs && tfc_opt_const_value(src)) continue;
      if (!live[src->id]) {
        live[src->id] = 1;
        stack[top++] = src->id;
      }
    }
  }
  free(stack);
  int dead = 0;
  for (int id = 0; id < n; id++) dead += !live[id];
  if (!dead) {
    free(live);
    return TFC_OK;
  }
  tfc_opt_copy c;
  if (tfc_opt_copy_init(&c, g, s)) {
    free(live);
    return s->code;
  }
  for (int id = 0; id < n && tfc_status_ok(s); id++)
    if (live[id]) tfc_opt_copy_node(&c, g->nodes[id], NULL, s);
  free(live);
  if (!tfc_status_ok(s)) {
    tfc_opt_copy_fini(&c);
    return s->code;
  }
  tfc_opt_copy_finish(&c);
  *out = c.dst;
  c.dst = NULL;
  tfc_opt_copy_fini(&c);
  return TFC_OK;
}

/* ---- the driver ---- */

typedef int (*pass_fn)(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s);

int tfc_optimize_graph(tfc_graph **g, const tfc_optimize_options *o, tfc_status *s) {
  pass_fn passes[5] = {o->constant_folding ? tfc_opt_const_fold : NULL, o->scale_folding ? tfc_opt_scale_fold : NULL,
                       o->remapping || o->pad_folding ? tfc_opt_fuse_conv : NULL,
                       o->remapping ? tfc_opt_pool_workspace : NULL,
                       o->dependency_optimization ? tfc_opt_dependency : NULL};
  tfc_graph *cur = *g;
  for (int i = 0; i < 5; i++) {
    if (!passes[i]) continue;
    tfc_graph *next = NULL, *pruned = NULL;
    if (passes[i](cur, o, &next, s) || (next && tfc_opt_prune(next, *g, &pruned, s))) {
      tfc_graph_free(next);
      if (cur != *g) tfc_graph_free(cur);
      return s->code;
    }
    if (!next) continue;
    if (pruned) {
      tfc_graph_free(next);
      next = pruned;
    }
    if (cur != *g) tfc_graph_free(cur);
    cur = next;
  }
  /* No pass changed the graph: pruning still drops Consts that only feed control edges. */
  if (cur == *g && (passes[0] || passes[1] || passes[2] || passes[3] || passes[4])) {
    tfc_graph *pruned = NULL;
    if (tfc_opt_prune(cur, *g, &pruned, s)) return s->code;
    if (pruned) cur = pruned;
  }
  if (cur != *g) {
    tfc_graph_free(*g);
    *g = cur;
  }
  return TFC_OK;
}
