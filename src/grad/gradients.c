/*
 * gradients — the walk behind TF_AddGradients (see gradients.h for the contract and the
 * names it produces).
 *
 * The algorithm is TF Python's _GradientsHelper, because its order fixes the node names:
 * count, for every node between x and y, the data edges to consumers that are also between;
 * start from the y nodes that wait for nothing; pop a node, sum what flowed into each output
 * (AddN), call the op's builder, hand each input its gradient and release the producers whose
 * last consumer this was. Each between node is processed exactly once, after all its between
 * consumers, so every sum is complete when taken.
 *
 * Node ids are dense and new nodes only append, so the side tables are sized by the node
 * count at the start and index only old nodes; the gradient nodes never need an entry.
 */
#include "grad/gradients.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

tfc_grad_options tfc_grad_options_capi(void) {
  tfc_grad_options o = {NULL, 0, TFC_GRAD_MISSING_ERROR, TFC_GRAD_MISSING_ZEROS, 0, NULL, NULL, 0};
  return o;
}

/* tf.gradients' own default is gate_gradients=False; optimizers (GATE_OP) set tuple_wrap. */
tfc_grad_options tfc_grad_options_python(void) {
  tfc_grad_options o = {NULL, 0, TFC_GRAD_MISSING_NONE, TFC_GRAD_MISSING_NONE, 1, NULL, NULL, 1};
  return o;
}

typedef struct glist {
  tfc_endpoint *v;
  int n, cap;
} glist;

typedef struct walk {
  tfc_graph *g;
  const tfc_grad_options *opt;
  char *prefix;
  int n0;                 /* node count before the walk */
  unsigned char *fwd, *back;
  unsigned char *inside;  /* between x and y: Python's between_ops (see mark_between) */
  int *pending;
  glist **grads;          /* [n0]: per node, one list per output (lazy) */
  int *cons_start, *cons_node, *cons_out; /* CSR of data edges by producer */
  int *queue, q_head, q_tail;
  int stop_at_ys;         /* see tfc_grad_walk_args */
  const char *body_of;
  unsigned char *is_y;
  tfc_grad_loop **loops;  /* the while loops met so far (grad_loop.c) */
  int n_loops;
  tfc_status *s;
} walk;

/* Python's _IsBackpropagatable: gradients flow only through these output types. */
static int backpropagatable(int dtype) {
  switch (tfc_dtype_base(dtype)) {
    case TFC_DT_FLOAT: case TFC_DT_DOUBLE: case TFC_DT_HALF: case TFC_DT_BFLOAT16:
    case TFC_DT_COMPLEX64: case TFC_DT_COMPLEX128: case TFC_DT_RESOURCE: case TFC_DT_VARIANT:
      return 1;
    default:
      return 0;
  }
}

static int between(const walk *w, const tfc_node *n) { return n->id < w->n0 && w->inside[n->id]; }

/* ---- prefix ---- */

/* A scope name is taken when a node has it as its name or as a '/'-separated prefix. */
static const tfc_node *prefix_user(const tfc_graph *g, const char *p) {
  size_t n = strlen(p);
  for (int i = 0; i < g->n_nodes; i++) {
    const char *name = g->nodes[i]->name;
    if (strncmp(name, p, n) == 0 && (name[n] == '\0' || name[n] == '/')) return g->nodes[i];
  }
  return NULL;
}

static int choose_prefix(walk *w) {
  if (w->opt->prefix) {
    const tfc_node *u = prefix_user(w->g, w->opt->prefix);
    if (u)
      return tfc_status_set(w->s, TFC_INVALID_ARGUMENT,
                            "prefix [%s] conflicts with existing node in the graph named [%s]", w->opt->prefix,
                            u->name);
    w->prefix = tfc_strdup(w->opt->prefix);
    return w->prefix ? TFC_OK : TFC_OOM(w->s);
  }
  for (int k = 0;; k++) {
    char *p = NULL;
    if ((k ? asprintf(&p, "gradients_%d", k) : asprintf(&p, "gradients")) < 0) return TFC_OOM(w->s);
    if (!prefix_user(w->g, p)) {
      w->prefix = p;
      return TFC_OK;
    }
    free(p);
  }
}

/* ---- reachability ---- */

static int build_consumers(walk *w) {
  tfc_graph *g = w->g;
  w->cons_start = calloc((size_t)w->n0 + 1, sizeof(int));
  if (!w->cons_start) return TFC_OOM(w->s);
  int n_edges = 0;
  for (int i = 0; i < w->n0; i++) {
    const tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) w->cons_start[n->inputs[j].node->id + 1]++;
    n_edges += n->n_inputs;
  }
  for (int i = 0; i < w->n0; i++) w->cons_start[i + 1] += w->cons_start[i];
  w->cons_node = malloc(sizeof(int) * (size_t)(n_edges + 1));
  w->cons_out = malloc(sizeof(int) * (size_t)(n_edges + 1));
  int *fill = malloc(sizeof(int) * (size_t)(w->n0 + 1));
  if (!w->cons_node || !w->cons_out || !fill) {
    free(fill);
    return TFC_OOM(w->s);
  }
  memcpy(fill, w->cons_start, sizeof(int) * (size_t)w->n0);
  for (int i = 0; i < w->n0; i++) {
    const tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) {
      int p = fill[n->inputs[j].node->id]++;
      w->cons_node[p] = i;
      w->cons_out[p] = n->inputs[j].index;
    }
  }
  free(fill);
  return TFC_OK;
}

static int is_next_iteration(const tfc_node *n) {
  return strcmp(n->op->name, "NextIteration") == 0 || strcmp(n->op->name, "RefNextIteration") == 0;
}

static void mark_forward(walk *w, const tfc_endpoint *x, int nx) {
  int head = 0, tail = 0;
  for (int i = 0; i < nx; i++)
    if (!w->fwd[x[i].node->id]) {
      w->fwd[x[i].node->id] = 1;
      w->queue[tail++] = x[i].node->id;
    }
  while (head < tail) {
    int u = w->queue[head++];
    const tfc_node *n = w->g->nodes[u];
    int stop = w->stop_at_ys && w->is_y[u];
    for (int p = w->cons_start[u]; p < w->cons_start[u + 1]; p++) {
      int v = w->cons_node[p];
      if (w->fwd[v] || !backpropagatable(n->output_types[w->cons_out[p]])) continue;
      /* From a y, only the loop's back edge (its NextIteration) is not followed: a body output
       * that also feeds another one (h written to a TensorArray as h * 2) passes its gradient. */
      if (stop && is_next_iteration(w->g->nodes[v])) continue;
      w->fwd[v] = 1;
      w->queue[tail++] = v;
    }
  }
}

static void mark_backward(walk *w, const tfc_endpoint *y, int ny) {
  int head = 0, tail = 0;
  for (int i = 0; i < ny; i++)
    if (!w->back[y[i].node->id]) {
      w->back[y[i].node->id] = 1;
      w->queue[tail++] = y[i].node->id;
    }
  while (head < tail) {
    const tfc_node *n = w->g->nodes[w->queue[head++]];
    for (int j = 0; j < n->n_inputs; j++) {
      int v = n->inputs[j].node->id;
      if (w->back[v]) continue;
      w->back[v] = 1;
      w->queue[tail++] = v;
    }
  }
}

/* Python's _PendingCount: from the y nodes backward, only through nodes reached forward from
 * the x nodes, so that an op reached from x whose output is not backpropagatable (a Less
 * feeding a cond's predicate) is not waited for. */
static void mark_between(walk *w, const tfc_endpoint *y, int ny) {
  int head = 0, tail = 0;
  for (int i = 0; i < ny; i++) {
    int id = y[i].node->id;
    if (!w->fwd[id] || w->inside[id]) continue;
    w->inside[id] = 1;
    w->queue[tail++] = id;
  }
  while (head < tail) {
    const tfc_node *n = w->g->nodes[w->queue[head++]];
    for (int j = 0; j < n->n_inputs; j++) {
      int v = n->inputs[j].node->id;
      if (!w->fwd[v] || w->inside[v]) continue;
      w->inside[v] = 1;
      w->queue[tail++] = v;
    }
  }
}

/* ---- gradient lists ---- */

static glist *out_list(walk *w, tfc_endpoint e) {
  int id = e.node->id;
  if (!w->grads[id]) {
    w->grads[id] = calloc((size_t)(e.node->n_outputs ? e.node->n_outputs : 1), sizeof(glist));
    if (!w->grads[id]) {
      TFC_OOM(w->s);
      return NULL;
    }
  }
  return &w->grads[id][e.index];
}

static int add_grad(walk *w, tfc_endpoint to, tfc_endpoint grad) {
  glist *l = out_list(w, to);
  if (!l) return w->s->code;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 2;
    tfc_endpoint *v = realloc(l->v, sizeof *v * (size_t)cap);
    if (!v) return TFC_OOM(w->s);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = grad;
  return TFC_OK;
}

/* Sums one output's incoming gradients in place (Python's _AggregatedGrads). */
static tfc_endpoint aggregate(walk *w, tfc_endpoint out) {
  if (!w->grads[out.node->id]) return tfc_grad_none();
  glist *l = &w->grads[out.node->id][out.index];
  if (l->n == 0) return tfc_grad_none();
  if (l->n > 1) {
    tfc_endpoint sum = {tfc_grad_node_in(w->g, w->prefix, "AddN", NULL, l->v, l->n, 0, l->n, NULL, 0, NULL, w->s),
                        0};
    if (!sum.node) return tfc_grad_none();
    l->v[0] = sum;
    l->n = 1;
  }
  return l->v[0];
}

/* ---- one op ---- */

/* Python's control_flow_ops.tuple around an op's input gradients. */
static int tuple_wrap(walk *w, const char *op_scope, tfc_endpoint *dx, int n) {
  char *scope = NULL;
  if (asprintf(&scope, "%s/tuple", op_scope) < 0) return TFC_OOM(w->s);
  /* group_deps waits for every producing op, in creation order (Python sorts by op id). */
  tfc_node_desc *d = NULL;
  char *base = NULL, *name = NULL;
  if (asprintf(&base, "%s/group_deps", scope) < 0 || !(name = tfc_graph_unique_name(w->g, base)) ||
      !(d = tfc_node_desc_new(w->g, "NoOp", name))) {
    free(base);
    free(name);
    free(scope);
    return TFC_OOM(w->s);
  }
  free(base);
  free(name);
  /* Sorted control inputs: a simple selection by id over the distinct producers. */
  int last = -1;
  for (;;) {
    tfc_node *next = NULL;
    for (int i = 0; i < n; i++)
      if (dx[i].node && dx[i].node->id > last && (!next || dx[i].node->id < next->id)) next = dx[i].node;
    if (!next) break;
    tfc_node_desc_add_control(d, next);
    last = next->id;
  }
  tfc_node *gate = tfc_node_desc_finish_locked(d, w->s);
  if (!gate) {
    free(scope);
    return w->s->code;
  }
  for (int i = 0; i < n; i++) {
    if (!dx[i].node) continue;
    char *b = NULL, *u = NULL;
    tfc_node_desc *id = NULL;
    if (asprintf(&b, "%s/control_dependency", scope) < 0 || !(u = tfc_graph_unique_name(w->g, b)) ||
        !(id = tfc_node_desc_new(w->g, "Identity", u))) {
      free(b);
      free(u);
      free(scope);
      return TFC_OOM(w->s);
    }
    free(b);
    free(u);
    tfc_node_desc_add_input(id, dx[i]);
    tfc_node_desc_add_control(id, gate);
    tfc_node_desc_colocate_with(id, dx[i].node);
    tfc_node *ident = tfc_node_desc_finish_locked(id, w->s);
    if (!ident) {
      free(scope);
      return w->s->code;
    }
    dx[i] = (tfc_endpoint){ident, 0};
  }
  free(scope);
  return TFC_OK;
}

/* ---- while loops ---- */

/* The loop that Exit n closes (one entry per loop, made on its first Exit); *out NULL when
 * n does not close a loop grad_loop.c recognises. */
static int find_loop(walk *w, const tfc_node *n, tfc_grad_loop **out) {
  *out = NULL;
  for (int k = 0; k < w->n_loops; k++)
    for (int i = 0; i < w->loops[k]->n; i++)
      if (w->loops[k]->exit[i] == n) {
        *out = w->loops[k];
        return TFC_OK;
      }
  tfc_grad_loop *l = NULL;
  TFC_TRY(tfc_grad_loop_find(w->g, w->n0, n, &l, w->s));
  if (!l) return TFC_OK;
  tfc_grad_loop **v = realloc(w->loops, sizeof *v * (size_t)(w->n_loops + 1));
  if (!v) {
    tfc_grad_loop_free(l);
    return TFC_OOM(w->s);
  }
  w->loops = v;
  w->loops[w->n_loops++] = l;
  for (int i = 0; i < l->n; i++) l->n_needed += between(w, l->exit[i]);
  l->stacks = w->opt->loop_stacks;
  l->cond_of = w->opt->cond_of;
  l->cond_ctx = w->opt->cond_ctx;
  tfc_node *pred = NULL;
  int branch = 0;
  if (l->cond_of && l->cond_of(l->cond_ctx, n, &pred, &branch) && branch == -2) l->no_backprop = 1;
  *out = l;
  return TFC_OK;
}

/* Records Exit n's gradient; once every Exit on the path has one, builds the loop's gradient
 * and hands it to the inputs of the loop's Enters (TF's C++ ProcessWhileLoop). */
static int exit_grad(walk *w, tfc_grad_loop *l, const tfc_node *n, tfc_endpoint dy) {
  if (w->body_of)
    return tfc_status_set(w->s, TFC_UNIMPLEMENTED,
                          "Gradients of nested while loops are not supported: loop '%s' is inside the body of "
                          "loop '%s'",
                          l->frame, w->body_of);
  if (!dy.node && !l->no_backprop)
    return tfc_status_set(w->s, TFC_UNIMPLEMENTED, "Missing gradient into while loop not yet implemented");
  for (int i = 0; i < l->n; i++)
    if (l->exit[i] == n) l->dy[i] = dy;
  if (++l->n_seen < l->n_needed) return TFC_OK;
  if (l->no_backprop) {
    /* back_prop false: the loop's inputs get nothing from it, but stop waiting for it. */
    for (int i = 0; i < l->n; i++) {
      tfc_endpoint in = l->enter[i]->inputs[0];
      if (between(w, in.node) && --w->pending[in.node->id] == 0) w->queue[w->q_tail++] = in.node->id;
    }
    return TFC_OK;
  }
  /* Every other Enter of the frame must stay off the path, except (tf.gradients mode) loop
   * invariants, whose gradients the gradient loop accumulates. */
  for (int i = 0; i < w->n0; i++) {
    tfc_node *e = w->g->nodes[i];
    if ((e->op->id != TFC_OP_Enter && e->op->id != TFC_OP_RefEnter) || !between(w, e->inputs[0].node)) continue;
    const tfc_attr_value *f = tfc_node_attr(e, "frame_name");
    if (!f || f->kind != TFC_ATTR_STRING || strcmp(f->u.s.data, l->frame) != 0) continue;
    int var = 0, inv = 0;
    for (int k = 0; k < l->n && !var; k++) var = l->enter[k] == e;
    tfc_node_attr_bool(e, "is_constant", &inv);
    if (!var && inv && l->stacks) {
      tfc_node **v = realloc(l->inv, sizeof *v * (size_t)(l->n_inv + 1));
      if (!v) return TFC_OOM(w->s);
      l->inv = v;
      l->inv[l->n_inv++] = e;
      continue;
    }
    if (!var)
      return tfc_status_set(w->s, TFC_UNIMPLEMENTED,
                            "Gradient through while loop '%s': Enter '%s' is not a loop variable (a loop invariant "
                            "or an input outside the loop structure); only gradients into loop variables are "
                            "supported",
                            l->frame, e->name);
  }
  /* Exits off the path (integer variables, variables y does not use) contribute zeros. */
  for (int i = 0; i < l->n; i++) {
    if (l->dy[i].node) continue;
    tfc_endpoint o = {l->exit[i], 0};
    l->dy[i] = (tfc_endpoint){
        tfc_grad_node_in(w->g, w->prefix, "ZerosLike", "zeros_like", &o, 1, -1, 0, NULL, 0, NULL, w->s), 0};
    if (!l->dy[i].node) return w->s->code;
  }
  int nv = l->n + l->n_inv;
  tfc_endpoint *dx = calloc((size_t)nv + 1, sizeof *dx);
  if (!dx) return TFC_OOM(w->s);
  int rc = tfc_grad_loop_build(w->g, w->prefix, l, dx, w->s);
  l->built = 1;
  for (int i = 0; rc == TFC_OK && i < nv; i++) {
    tfc_endpoint in = (i < l->n ? l->enter[i] : l->inv[i - l->n])->inputs[0];
    if (!between(w, in.node)) continue;
    if ((rc = add_grad(w, in, dx[i])) != TFC_OK) break;
    if (--w->pending[in.node->id] == 0) w->queue[w->q_tail++] = in.node->id;
  }
  free(dx);
  return rc;
}

/* ---- conds (tf.gradients mode) ---- */

/* Python's cond gradients (control_flow_grad.py): a cond's Merge passes its gradient through
 * Switch(grad, pred) "<op>_grad/cond_grad"; a branch's Switch merges its outputs' gradients
 * with Merge "<op>_grad/cond_grad", where the output without one gets zeros made only on its
 * side (control_flow_state.ZerosLikeOutsideLoop: Switch, Identity, Shape, zeros/Const
 * waiting for the Identity, zeros). */
static int cond_grad(walk *w, tfc_node *n, tfc_node *pred, int branch, const tfc_endpoint *dy, tfc_endpoint *dx) {
  char *scope = NULL;
  if (asprintf(&scope, "%s/%s_grad", w->prefix, n->name) < 0) return TFC_OOM(w->s);
  tfc_endpoint p = {pred, 0};
  if (branch < 0) {
    tfc_endpoint ins[2] = {dy[0], p};
    tfc_node *sw = tfc_grad_node_in(w->g, scope, "Switch", "cond_grad", ins, 2, -1, 0, NULL, 0, NULL, w->s);
    for (int i = 0; sw && i < n->n_inputs; i++) dx[i] = (tfc_endpoint){sw, i};
  } else {
    tfc_endpoint g[2] = {dy[0], dy[1]};
    for (int k = 0; k < 2 && tfc_status_ok(w->s); k++) {
      if (g[k].node) continue;
      tfc_endpoint ins[2] = {n->inputs[0], p};
      tfc_endpoint side = {tfc_grad_node_in(w->g, w->prefix, "Switch", NULL, ins, 2, -1, 0, NULL, 0, NULL, w->s), k};
      tfc_node *pivot = side.node ? tfc_grad_node_in(w->g, w->prefix, "Identity", NULL, &side, 1, -1, 0, NULL, 0, NULL, w->s)
                                  : NULL;
      tfc_endpoint shape = {tfc_grad_node_in(w->g, w->prefix, "Shape", NULL, &side, 1, -1, 0, NULL, 0, NULL, w->s), 0};
      /* array_ops.zeros opens the name scope "zeros[_k]": its Const inside, the Fill named after it. */
      char *base = NULL, *zs = NULL;
      if (asprintf(&base, "%s/zeros", w->prefix) < 0 || !(zs = tfc_graph_unique_name(w->g, base))) {
        free(base);
        free(scope);
        return TFC_OOM(w->s);
      }
      free(base);
      tfc_grad_ctx zc = {.g = w->g, .scope = zs, .s = w->s};
      tfc_endpoint zero = tfc_grad_const_scalar(&zc, "Const", tfc_grad_dtype(n->inputs[0]), 0, pivot);
      tfc_endpoint fill[2] = {shape, zero};
      g[k] = (tfc_endpoint){
          tfc_grad_node_in(w->g, w->prefix, "Fill", zs + strlen(w->prefix) + 1, fill, 2, -1, 0, NULL, 0, NULL, w->s), 0};
      free(zs);
    }
    tfc_node *m = tfc_status_ok(w->s) ? tfc_grad_node_in(w->g, scope, "Merge", "cond_grad", g, 2, 0, 2, NULL, 0, NULL, w->s)
                                      : NULL;
    if (m) dx[0] = (tfc_endpoint){m, 0};
  }
  free(scope);
  return w->s->code;
}

static int process(walk *w, tfc_node *n) {
  tfc_endpoint *dy = calloc((size_t)(n->n_outputs + 1), sizeof *dy);
  tfc_endpoint *dx = calloc((size_t)(n->n_inputs + 1), sizeof *dx);
  char *scope = NULL;
  int rc = TFC_OK;
  if (!dy || !dx) {
    rc = TFC_OOM(w->s);
    goto done;
  }
  int has_grads = 0;
  for (int i = 0; i < n->n_outputs; i++) {
    tfc_endpoint o = {n, i};
    dy[i] = aggregate(w, o);
    if (!tfc_status_ok(w->s)) {
      rc = w->s->code;
      goto done;
    }
    if (dy[i].node) has_grads = 1;
  }
  if (n->op->id == TFC_OP_Exit || n->op->id == TFC_OP_RefExit) {
    tfc_grad_loop *l = NULL;
    rc = find_loop(w, n, &l);
    if (rc == TFC_OK && l) {
      rc = exit_grad(w, l, n, dy[0]);
      goto done; /* the loop's inside is never walked: its gradient is a loop of its own */
    }
    if (rc != TFC_OK) goto done;
  }
  int stop = 1, handled = 0;
  for (int j = 0; j < n->n_inputs && stop; j++)
    if (between(w, n->inputs[j].node)) stop = 0;
  if (has_grads && !stop && w->opt->cond_of &&
      (n->op->id == TFC_OP_Switch || n->op->id == TFC_OP_RefSwitch || n->op->id == TFC_OP_Merge ||
       n->op->id == TFC_OP_RefMerge)) {
    tfc_node *pred = NULL;
    int branch = -1;
    if (w->opt->cond_of(w->opt->cond_ctx, n, &pred, &branch)) {
      if ((rc = cond_grad(w, n, pred, branch, dy, dx)) != TFC_OK) goto done;
      handled = 1;
      int n_grads = 0;
      for (int j = 0; j < n->n_inputs; j++) n_grads += dx[j].node != NULL;
      if (w->opt->tuple_wrap && n_grads > 1) {
        if (asprintf(&scope, "%s/%s_grad", w->prefix, n->name) < 0) {
          rc = TFC_OOM(w->s);
          goto done;
        }
        if ((rc = tuple_wrap(w, scope, dx, n->n_inputs)) != TFC_OK) goto done;
      }
    }
  }
  if (has_grads && !stop && !handled) {
    tfc_grad_fn fn = NULL;
    if (!tfc_grad_registry_lookup(n->op->id, &fn)) {
      rc = tfc_status_set(w->s, TFC_NOT_FOUND,
                          "No gradient defined for op: %s. Please see "
                          "https://www.tensorflow.org/code/tensorflow/cc/gradients/README.md for "
                          "instructions on how to add C++ gradients.",
                          n->op->name);
      goto done;
    }
    if (fn) {
      /* An output nothing flowed into contributes zeros (only float outputs matter). */
      for (int i = 0; i < n->n_outputs; i++) {
        if (dy[i].node || !backpropagatable(n->output_types[i])) continue;
        tfc_endpoint o = {n, i};
        dy[i] = (tfc_endpoint){
            tfc_grad_node_in(w->g, w->prefix, "ZerosLike", "zeros_like", &o, 1, -1, 0, NULL, 0, NULL, w->s), 0};
        if (!dy[i].node) {
          rc = w->s->code;
          goto done;
        }
      }
      if (asprintf(&scope, "%s/%s_grad", w->prefix, n->name) < 0) {
        rc = TFC_OOM(w->s);
        goto done;
      }
      tfc_grad_ctx c = {w->g, n, scope, dy, dx, w->s};
      rc = fn(&c);
      if (rc == TFC_OK) rc = w->s->code;
      if (rc != TFC_OK) {
        tfc_status_prefix(w->s, "gradient of node '%s' (%s): ", n->name, n->op->name);
        goto done;
      }
      int n_grads = 0;
      for (int j = 0; j < n->n_inputs; j++) n_grads += dx[j].node != NULL;
      if (w->opt->tuple_wrap && n_grads > 1 && (rc = tuple_wrap(w, scope, dx, n->n_inputs)) != TFC_OK)
        goto done;
    }
  }
  /* Hand each input its gradient; release producers whose last consumer this was. */
  for (int j = 0; j < n->n_inputs; j++) {
    tfc_endpoint in = n->inputs[j];
    if (!between(w, in.node)) continue;
    if (dx[j].node && (rc = add_grad(w, in, dx[j])) != TFC_OK) goto done;
    if (--w->pending[in.node->id] == 0) w->queue[w->q_tail++] = in.node->id;
  }
done:
  free(dy);
  free(dx);
  free(scope);
  return rc;
}

/* ---- the walk ---- */

static int check_endpoints(const tfc_graph *g, const char *what, const tfc_endpoint *e, int n, tfc_status *s) {
  for (int i = 0; i < n; i++) {
    if (!e[i].node || e[i].node->graph != g)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s[%d] is not an operation of this graph", what, i);
    if (e[i].index < 0 || e[i].index >= e[i].node->n_outputs)
      return tfc_status_set(s, TFC_OUT_OF_RANGE, "%s[%d]: node '%s' has %d outputs; index %d is out of range",
                            what, i, e[i].node->name, e[i].node->n_outputs, e[i].index);
  }
  return TFC_OK;
}

static int seed(walk *w, const tfc_endpoint *y, int ny, const tfc_endpoint *grad_ys) {
  for (int i = 0; i < ny; i++) {
    tfc_endpoint gy = grad_ys ? grad_ys[i] : tfc_grad_none();
    if (!gy.node) {
      int dt = tfc_grad_dtype(y[i]);
      char cname[32];
      snprintf(cname, sizeof cname, "grad_ys_%d", i);
      /* Python's array_ops.shape folds a fully known shape into a Const named Shape. */
      tfc_grad_ctx cc = {.g = w->g, .scope = w->prefix, .s = w->s};
      tfc_endpoint shape = tfc_grad_shape_opt(&cc, y[i], TFC_DT_INT32);
      tfc_endpoint one = tfc_grad_const_scalar_in(w->g, w->prefix, cname, dt, 1.0, w->s);
      tfc_endpoint ins[2] = {shape, one};
      gy = (tfc_endpoint){tfc_grad_node_in(w->g, w->prefix, "Fill", NULL, ins, 2, -1, 0, NULL, 0, NULL, w->s), 0};
      if (!gy.node) return w->s->code;
    } else if (w->opt->identity_grad_ys) {
      char cname[32];
      snprintf(cname, sizeof cname, "grad_ys_%d", i);
      gy = (tfc_endpoint){tfc_grad_node_in(w->g, w->prefix, "Identity", cname, &gy, 1, -1, 0, NULL, 0, NULL, w->s), 0};
      if (!gy.node) return w->s->code;
    }
    TFC_TRY(add_grad(w, y[i], gy));
  }
  return TFC_OK;
}

static int walk_run(walk *w, const tfc_endpoint *y, int ny, const tfc_endpoint *x, int nx,
                    const tfc_endpoint *grad_ys, tfc_endpoint *out) {
  size_t n0 = (size_t)w->n0 + 1;
  w->fwd = calloc(n0, 1);
  w->back = calloc(n0, 1);
  w->inside = calloc(n0, 1);
  w->pending = calloc(n0, sizeof(int));
  w->grads = calloc(n0, sizeof(glist *));
  w->queue = malloc(n0 * sizeof(int));
  if (!w->fwd || !w->back || !w->inside || !w->pending || !w->grads || !w->queue) return TFC_OOM(w->s);
  TFC_TRY(build_consumers(w));
  mark_forward(w, x, nx);
  mark_backward(w, y, ny);
  mark_between(w, y, ny);
  for (int i = 0; i < nx; i++)
    if (!w->back[x[i].node->id] && w->opt->unreachable == TFC_GRAD_MISSING_ERROR)
      return tfc_status_set(w->s, TFC_INVALID_ARGUMENT,
                            "Cannot compute the partial derivative for node '%s' as it's unreachable from the "
                            "output node(s).",
                            x[i].node->name);
  if (!w->prefix) TFC_TRY(choose_prefix(w));
  TFC_TRY(seed(w, y, ny, grad_ys));
  for (int v = 0; v < w->n0; v++) {
    const tfc_node *n = w->g->nodes[v];
    if (!between(w, n)) continue;
    for (int j = 0; j < n->n_inputs; j++)
      if (between(w, n->inputs[j].node)) w->pending[n->inputs[j].node->id]++;
  }
  w->q_head = w->q_tail = 0;
  for (int i = 0; i < ny; i++) {
    tfc_node *n = y[i].node;
    if (!between(w, n) || w->pending[n->id] != 0) continue;
    int dup = 0;
    for (int k = 0; k < i && !dup; k++) dup = y[k].node == n;
    if (!dup) w->queue[w->q_tail++] = n->id;
  }
  while (w->q_head < w->q_tail) TFC_TRY(process(w, w->g->nodes[w->queue[w->q_head++]]));
  /* Results: what was summed into each x, or the caller's choice for nothing. */
  for (int i = 0; i < nx; i++) {
    tfc_endpoint r = aggregate(w, x[i]);
    if (!tfc_status_ok(w->s)) return w->s->code;
    if (!r.node) {
      int policy = w->back[x[i].node->id] ? w->opt->no_gradient : w->opt->unreachable;
      if (policy == TFC_GRAD_MISSING_ZEROS) {
        r = (tfc_endpoint){
            tfc_grad_node_in(w->g, w->prefix, "ZerosLike", "zeros_like", &x[i], 1, -1, 0, NULL, 0, NULL, w->s), 0};
        if (!r.node) return w->s->code;
      } else {
        r = (tfc_endpoint){NULL, -1};
      }
    }
    out[i] = r;
  }
  return TFC_OK;
}

static int check_args(tfc_graph *g, const tfc_grad_walk_args *a, tfc_status *s) {
  int rc = check_endpoints(g, "y", a->y, a->ny, s);
  if (!rc) rc = check_endpoints(g, "x", a->x, a->nx, s);
  for (int i = 0; !rc && a->grad_ys && i < a->ny; i++) {
    if (!a->grad_ys[i].node) continue;
    rc = check_endpoints(g, "dx", &a->grad_ys[i], 1, s);
    if (!rc && tfc_grad_dtype(a->grad_ys[i]) != tfc_grad_dtype(a->y[i]))
      rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "gradient for y[%d] ('%s:%d') has type %s, expected %s", i,
                          a->y[i].node->name, a->y[i].index, tfc_dtype_name(tfc_grad_dtype(a->grad_ys[i])),
                          tfc_dtype_name(tfc_grad_dtype(a->y[i])));
  }
  return rc;
}

int tfc_grad_walk_locked(tfc_graph *g, const tfc_grad_walk_args *a, tfc_endpoint *out_grads, tfc_status *s) {
  tfc_endpoint *res = calloc((size_t)a->nx + 1, sizeof *res);
  if (!res) return TFC_OOM(s);
  walk w = {.g = g, .opt = a->opt, .n0 = g->n_nodes, .stop_at_ys = a->stop_at_ys, .body_of = a->body_of, .s = s};
  int rc = check_args(g, a, s);
  if (!rc && a->scope && !(w.prefix = tfc_strdup(a->scope))) rc = TFC_OOM(s);
  if (!rc && a->stop_at_ys) {
    if (!(w.is_y = calloc((size_t)w.n0 + 1, 1))) rc = TFC_OOM(s);
    for (int i = 0; !rc && i < a->ny; i++) w.is_y[a->y[i].node->id] = 1;
  }
  if (!rc) rc = walk_run(&w, a->y, a->ny, a->x, a->nx, a->grad_ys, res);
  if (!rc) memcpy(out_grads, res, sizeof *res * (size_t)a->nx);
  free(res);
  for (int i = 0; w.grads && i < w.n0; i++) {
    if (!w.grads[i]) continue;
    for (int k = 0; k < g->nodes[i]->n_outputs; k++) free(w.grads[i][k].v);
    free(w.grads[i]);
  }
  for (int k = 0; k < w.n_loops; k++) tfc_grad_loop_free(w.loops[k]);
  free(w.loops);
  free(w.is_y);
  free(w.grads);
  free(w.fwd);
  free(w.back);
  free(w.inside);
  free(w.pending);
  free(w.queue);
  free(w.cons_start);
  free(w.cons_node);
  free(w.cons_out);
  free(w.prefix);
  return rc;
}

int tfc_gradients_add(tfc_graph *g, const tfc_endpoint *y, int ny, const tfc_endpoint *x, int nx,
                      const tfc_endpoint *grad_ys, const tfc_grad_options *opt,
                      tfc_endpoint *out_grads, tfc_status *s) {
  tfc_grad_options dflt = tfc_grad_options_capi();
  if (!opt) opt = &dflt;
  if (!g || ny < 0 || nx < 0 || (ny > 0 && !y) || (nx > 0 && (!x || !out_grads)))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "gradients: invalid arguments (graph, counts or arrays)");
  if (opt->unreachable < 0 || opt->unreachable >= TFC_GRAD_MISSING_COUNT || opt->no_gradient <= 0 ||
      opt->no_gradient >= TFC_GRAD_MISSING_COUNT)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "gradients: invalid missing-gradient policy");
  TFC_TRY(tfc_ops_init(s));
  tfc_grad_walk_args a = {y, ny, x, nx, grad_ys, opt, NULL, 0, NULL};
  tfc_graph_lock(g);
  int mark = tfc_graph_mark(g);
  int rc = tfc_grad_walk_locked(g, &a, out_grads, s);
  if (rc) tfc_graph_rollback(g, mark);
  tfc_graph_unlock(g);
  return rc;
}
