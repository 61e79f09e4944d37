/*
 * grad_loop — gradients through TF1 while loops the way TF 1.15's C++ gradient code builds
 * them for TF_AddGradients (cc/framework/while_gradients.cc): the walk (gradients.c) hands
 * over a loop once every Exit that gradients flow into has its summed gradient, and gets back
 * one gradient per loop variable for the inputs of the loop's Enter nodes.
 *
 * Recognising a loop: from an Exit, Exit <- Switch:0 <- Merge (input 0 an Enter, input 1 a
 * NextIteration) with the Switch's predicate from a LoopCond; the loop variables are the
 * non-constant Enters of that frame with the same Merge -> Switch -> Exit chain on that
 * LoopCond, in node order (TF_NewWhile's Enter, Enter_1, ...). Enters whose names contain
 * "LoopCounter" are the counters of an earlier gradient and are left out, as TF's loop
 * validation leaves them out. The forward body is Switch_i:1 -> NextIteration_i's input.
 *
 * What is built under "<prefix>/<frame>_grad/" (names as TF's C++ code gives them):
 *   ForwardLoopCounter/  a second loop in the forward frame, counting the trips: Const (0),
 *                        Enter, Merge, LoopCond(<the forward LoopCond>), Switch,
 *                        body/Const/Const (1), body/Add, NextIteration, Exit
 *   BackPropLoopCounter/ a loop in frame "<frame>_backprop" from that count down while > 0:
 *                        Enter, Merge, cond/Const/Const, cond/Greater, LoopCond, Switch,
 *                        body/Const/Const, body/Subtract (Sub), NextIteration, Exit
 *   while/               the gradient loop in frame "<frame>_backprop", driven by the
 *                        BackPropLoopCounter's LoopCond: Enter[_i] (the Exit gradients),
 *                        Merge[_i], LoopCond, Switch[_i], body/... (the symbolic gradient of
 *                        the forward body: a nested walk from the body outputs to the body
 *                        inputs, seeded with Switch_i:1), NextIteration[_i], Exit[_i]
 * Every cond node gets a control input from Merge 0 and every body node from Switch 0, as
 * under TF's control-dependency scopes. Enter attrs: parallel_iterations 10, not constant.
 *
 * TF's C API (loop_stacks 0) has no stacks: the gradient body reads forward tensors straight
 * from the forward frame, so a body whose gradient needs per-iteration forward values (x * x)
 * builds but fails when run with TF's "has inputs from different frames". tf.gradients mode
 * (loop_stacks 1, TFC_Gradients) saves them, the way TF Python's GradLoopState does: a dry run
 * of the body's gradient (rolled back) lists the forward tensors it reads; each gets a StackV2
 * "f_acc" outside the loops, a StackPushV2 in the ForwardLoopCounter's body (after that
 * iteration was counted, never on the last trip), a ControlTrigger "f_sync" the count waits
 * for, and in the gradient body a StackPopV2 through which every node the walk adds reads it
 * (tfc_grad_set_remap), behind a Switch of the handle on the saved predicate when the value
 * belongs to a cond branch (which ran only on some trips). Loop invariants are entered into
 * the gradient frame instead, and an invariant on the path gets an accumulator: one more
 * gradient loop variable, from zeros ("b_acc_init"), adding each trip's part ("b_acc").
 * Where TF aborts the
 * process (a loop variable whose Exit gets no gradient because it is not on a path from x to
 * y, e.g. an integer counter), the gradient loop gets zeros for it instead.
 *
 * All functions run with the graph lock held (inside the walk) and add nodes with the
 * error-latching helpers of grad_build.c; an error leaves nodes behind that the caller's
 * rollback removes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

void tfc_grad_loop_free(tfc_grad_loop *l) {
  if (!l) return;
  free(l->frame);
  free(l->enter);
  free(l->dy);
  free(l->inv);
  free(l);
}

static int is_op(const tfc_node *n, const char *a, const char *b) {
  return strcmp(n->op->name, a) == 0 || (b && strcmp(n->op->name, b) == 0);
}

/* The frame_name of an Enter, borrowed; NULL when missing. */
static const char *enter_frame(const tfc_node *n, size_t *len) {
  const tfc_attr_value *v = tfc_node_attr(n, "frame_name");
  if (!v || v->kind != TFC_ATTR_STRING) return NULL;
  *len = v->u.s.len;
  return v->u.s.data;
}

static int enter_is_constant(const tfc_node *n) {
  int b = 0;
  tfc_node_attr_bool(n, "is_constant", &b);
  return b;
}

/* The first node among g's first n0 whose data input `slot` is {src, idx} and whose op is one
 * of the two names; NULL when none. */
static tfc_node *consumer(const tfc_graph *g, int n0, const tfc_node *src, int idx, int slot, const char *op,
                          const char *ref_op) {
  for (int i = 0; i < n0; i++) {
    tfc_node *c = g->nodes[i];
    if (c->n_inputs > slot && c->inputs[slot].node == src && c->inputs[slot].index == idx && is_op(c, op, ref_op))
      return c;
  }
  return NULL;
}

int tfc_grad_loop_find(const tfc_graph *g, int n0, const tfc_node *exit, tfc_grad_loop **out, tfc_status *s) {
  *out = NULL;
  /* Exit <- Switch:0 <- Merge(Enter, NextIteration), Switch pred <- LoopCond. */
  const tfc_node *sw = exit->inputs[0].node;
  if (!is_op(sw, "Switch", "RefSwitch") || exit->inputs[0].index != 0) return TFC_OK;
  const tfc_node *m = sw->inputs[0].node, *lc = sw->inputs[1].node;
  if (!is_op(m, "Merge", "RefMerge") || m->n_inputs != 2 || !is_op(lc, "LoopCond", NULL)) return TFC_OK;
  const tfc_node *en = m->inputs[0].node;
  if (!is_op(en, "Enter", "RefEnter")) return TFC_OK;
  size_t flen = 0;
  const char *frame = enter_frame(en, &flen);
  if (!frame) return TFC_OK;
  tfc_grad_loop *l = calloc(1, sizeof *l);
  if (!l || !(l->frame = tfc_strndup(frame, flen))) {
    tfc_grad_loop_free(l);
    return TFC_OOM(s);
  }
  l->loop_cond = (tfc_node *)lc;
  /* The loop variables: per frame Enter, the Merge/Switch/Exit chain on this LoopCond. */
  for (int i = 0; i < n0; i++) {
    tfc_node *e = g->nodes[i];
    size_t len = 0;
    const char *f = is_op(e, "Enter", "RefEnter") ? enter_frame(e, &len) : NULL;
    if (!f || len != flen || memcmp(f, frame, flen) != 0 || strstr(e->name, "LoopCounter")) continue;
    if (enter_is_constant(e)) continue;
    tfc_node *mi = consumer(g, n0, e, 0, 0, "Merge", "RefMerge");
    tfc_node *si = mi ? consumer(g, n0, mi, 0, 0, "Switch", "RefSwitch") : NULL;
    tfc_node *xi = si ? consumer(g, n0, si, 0, 0, "Exit", "RefExit") : NULL;
    if (!xi || mi->n_inputs != 2 || !is_op(mi->inputs[1].node, "NextIteration", "RefNextIteration") ||
        si->inputs[1].node != lc)
      continue;
    tfc_node **v = realloc(l->enter, sizeof *v * (size_t)(l->n + 1));
    if (!v) {
      tfc_grad_loop_free(l);
      return TFC_OOM(s);
    }
    l->enter = v;
    l->enter[l->n++] = e;
  }
  /* One block of four rows: Enter, Merge, Switch, Exit. */
  int n = l->n;
  tfc_node **rows = malloc(sizeof *rows * 4 * (size_t)(n + 1));
  l->dy = calloc((size_t)n + 1, sizeof *l->dy);
  if (!rows || !l->dy) {
    free(rows);
    tfc_grad_loop_free(l);
    return TFC_OOM(s);
  }
  int found = 0;
  for (int i = 0; i < n; i++) {
    rows[i] = l->enter[i];
    rows[n + i] = consumer(g, n0, rows[i], 0, 0, "Merge", "RefMerge");
    rows[2 * n + i] = consumer(g, n0, rows[n + i], 0, 0, "Switch", "RefSwitch");
    rows[3 * n + i] = consumer(g, n0, rows[2 * n + i], 0, 0, "Exit", "RefExit");
    found |= rows[3 * n + i] == exit;
  }
  free(l->enter);
  l->enter = rows;
  l->merge = rows + n;
  l->sw = rows + 2 * n;
  l->exit = rows + 3 * n;
  if (!found) {
    tfc_grad_loop_free(l);
    return TFC_OK;
  }
  *out = l;
  return TFC_OK;
}

/* ---- a loop built the way TF's C++ BuildWhileLoop builds one ---- */

typedef int (*cond_fn)(void *ctx, const char *scope, const tfc_endpoint *merges, tfc_endpoint *out,
                       tfc_status *s);
typedef int (*body_fn)(void *ctx, const char *scope, const tfc_endpoint *ins, tfc_endpoint *outs,
                       tfc_status *s);

static tfc_node *loop_node(tfc_graph *g, const char *scope, const char *type, tfc_endpoint in, const char *frame,
                           tfc_status *s) {
  if (!frame) return tfc_grad_node_in(g, scope, type, NULL, &in, 1, -1, 0, NULL, 0, NULL, s);
  tfc_grad_attr a[3] = {{"frame_name", {0}}, TFC_GRAD_ATTR_BOOL("is_constant", 0),
                        TFC_GRAD_ATTR_INT("parallel_iterations", 10)};
  if (tfc_attr_string(frame, strlen(frame), &a[0].v, s) != TFC_OK) return NULL;
  return tfc_grad_node_in(g, scope, type, NULL, &in, 1, -1, 0, a, 3, NULL, s);
}

/* An Enter of `in` into `frame` named "<scope>/Enter" (unique), constant or not. */
static tfc_node *loop_enter(tfc_graph *g, const char *scope, tfc_endpoint in, const char *frame, int constant,
                            tfc_status *s) {
  tfc_grad_attr a[3] = {{"frame_name", {0}}, TFC_GRAD_ATTR_BOOL("is_constant", constant),
                        TFC_GRAD_ATTR_INT("parallel_iterations", 10)};
  if (tfc_attr_string(frame, strlen(frame), &a[0].v, s) != TFC_OK) return NULL;
  return tfc_grad_node_in(g, scope, "Enter", NULL, &in, 1, -1, 0, a, 3, NULL, s);
}

/* Enter/Merge for every input, cond under "<scope>/cond", LoopCond, Switch, body under
 * "<scope>/body", NextIteration (the Merge back edges set last), Exit. outs[i] = Exit_i:0. */
static int build_loop(tfc_graph *g, const char *scope, const char *frame, int n, const tfc_endpoint *ins,
                      cond_fn cond, body_fn body, void *ctx, tfc_endpoint *outs, tfc_status *s) {
  tfc_endpoint *v = calloc(3 * (size_t)n + 1, sizeof *v);
  char *sub = NULL;
  if (!v || asprintf(&sub, "%s/cond", scope) < 0) {
    free(v);
    return TFC_OOM(s);
  }
  tfc_endpoint *merges = v, *sw_true = v + n, *next = v + 2 * n;
  tfc_node **sw = calloc((size_t)n + 1, sizeof *sw);
  if (!sw) {
    free(v), free(sub);
    return TFC_OOM(s);
  }
  for (int i = 0; i < n; i++) merges[i] = (tfc_endpoint){loop_node(g, scope, "Enter", ins[i], frame, s), 0};
  for (int i = 0; i < n; i++) {
    tfc_endpoint two[2] = {merges[i], merges[i]}; /* input 1 becomes the back edge */
    merges[i] = (tfc_endpoint){tfc_grad_node_in(g, scope, "Merge", NULL, two, 2, 0, 2, NULL, 0, NULL, s), 0};
  }
  tfc_endpoint c = {NULL, 0};
  if (tfc_status_ok(s)) {
    tfc_node *prev = tfc_grad_set_control(merges[0].node);
    cond(ctx, sub, merges, &c, s);
    tfc_grad_set_control(prev);
  }
  tfc_node *lc = tfc_status_ok(s) ? loop_node(g, scope, "LoopCond", c, NULL, s) : NULL;
  for (int i = 0; i < n && tfc_status_ok(s); i++) {
    tfc_endpoint two[2] = {merges[i], {lc, 0}};
    sw[i] = tfc_grad_node_in(g, scope, "Switch", NULL, two, 2, -1, 0, NULL, 0, NULL, s);
    sw_true[i] = (tfc_endpoint){sw[i], 1};
  }
  free(sub);
  sub = NULL;
  if (tfc_status_ok(s) && asprintf(&sub, "%s/body", scope) < 0) TFC_OOM(s);
  if (tfc_status_ok(s)) {
    tfc_node *prev = tfc_grad_set_control(sw[0]);
    body(ctx, sub, sw_true, next, s);
    tfc_grad_set_control(prev);
  }
  for (int i = 0; i < n && tfc_status_ok(s); i++) {
    tfc_node *ni = loop_node(g, scope, "NextIteration", next[i], NULL, s);
    if (!ni) break;
    tfc_node *m = merges[i].node;
    m->inputs[1] = (tfc_endpoint){ni, 0};
    m->output_shapes[0] = tfc_shape_unknown();
  }
  for (int i = 0; i < n && tfc_status_ok(s); i++)
    outs[i] = (tfc_endpoint){loop_node(g, scope, "Exit", (tfc_endpoint){sw[i], 0}, NULL, s), 0};
  free(v), free(sub), free(sw);
  return s->code;
}

/* ---- the three loops of a gradient ---- */

/* Python mode: the forward values the body's gradient reads, each saved on a stack. */
typedef struct stacks {
  unsigned char *fwd;    /* [n_fwd]: node inside the forward loop */
  int n_fwd;
  int record;            /* 1: the dry run, collecting `need` */
  tfc_endpoint *need;    /* the forward values read */
  int n_need, cap_need;
  tfc_node **handle;     /* [n_need] StackV2, or NULL for an invariant (is_constant Enter) */
  tfc_node **push;       /* [n_need] */
  tfc_endpoint *value;   /* [n_need] the value inside the gradient loop (made on first use) */
  const char *body_scope;
  const char *grad_frame;
  tfc_node *b_pivot;     /* Identity of the gradient loop's Switch_0:1: pops wait for it, which
                            keeps them off the last trip (a control edge from the Switch itself
                            is live then) */
} stacks;

typedef struct grad_build {
  tfc_graph *g;
  tfc_grad_loop *l;
  tfc_endpoint bp_cond; /* the BackPropLoopCounter's LoopCond */
  const char *scope;    /* "<prefix>/<frame>_grad" */
  stacks *st;           /* NULL: TF's C API (no stacks) */
} grad_build;

static tfc_endpoint int_const(tfc_graph *g, const char *scope, const char *name, int v, tfc_status *s) {
  return tfc_grad_const_scalar_in(g, scope, name, TFC_DT_INT32, v, s);
}

static tfc_endpoint binary(tfc_graph *g, const char *scope, const char *type, const char *name, tfc_endpoint a,
                           tfc_endpoint b, tfc_status *s) {
  tfc_endpoint ins[2] = {a, b};
  return (tfc_endpoint){tfc_grad_node_in(g, scope, type, name, ins, 2, -1, 0, NULL, 0, NULL, s), 0};
}

static int fwd_cond(void *ctx, const char *scope, const tfc_endpoint *merges, tfc_endpoint *out, tfc_status *s) {
  (void)scope, (void)merges;
  *out = (tfc_endpoint){((grad_build *)ctx)->l->loop_cond, 0};
  return s->code;
}

/* Appends control input c to n (c made before n: ids stay in order along edges). */
static int add_control(tfc_node *n, tfc_node *c, tfc_status *s) {
  tfc_node **v = realloc(n->control_inputs, sizeof *v * (size_t)(n->n_control_inputs + 1));
  if (!v) return TFC_OOM(s);
  n->control_inputs = v;
  v[n->n_control_inputs++] = c;
  return TFC_OK;
}

/* Also pushes the saved values (Python mode): each push waits for this counter's Switch (so
 * iteration i pushes after iteration i - 1 counted) and for an Identity of the forward loop's
 * Switch:1 (dead on the last trip, where the body does not run); the count waits for the
 * pushes (through f_sync), which keeps them ahead of the gradient loop and in every pruned run. */
static int fwd_body(void *ctx, const char *scope, const tfc_endpoint *ins, tfc_endpoint *outs, tfc_status *s) {
  grad_build *b = ctx;
  stacks *st = b->st;
  tfc_node *pivot = NULL;
  if (st && st->n_need > 0) {
    tfc_endpoint t = {b->l->sw[0], 1};
    pivot = tfc_grad_node_in(b->g, scope, "Identity", "f_pivot", &t, 1, -1, 0, NULL, 0, NULL, s);
  }
  for (int k = 0; st && k < st->n_need && tfc_status_ok(s); k++) {
    if (!st->handle[k]) continue;
    tfc_endpoint ins2[2] = {{st->handle[k], 0}, st->need[k]};
    /* The handle's Enter into the forward frame. */
    tfc_node *prev = tfc_grad_set_control(NULL);
    tfc_node *he = loop_enter(b->g, b->scope, ins2[0], b->l->frame, 1, s);
    tfc_grad_set_control(prev);
    ins2[0] = (tfc_endpoint){he, 0};
    st->push[k] = he ? tfc_grad_node_in(b->g, scope, "StackPushV2", NULL, ins2, 2, -1, 0, NULL, 0, pivot, s) : NULL;
  }
  /* A push in an untaken cond branch is dead; the count waits for them through a
   * ControlTrigger (never dead), Python's f_sync. */
  tfc_node *sync = NULL;
  if (st && st->n_need > 0 && tfc_status_ok(s))
    sync = tfc_grad_node_in(b->g, scope, "ControlTrigger", "f_sync", NULL, 0, -1, 0, NULL, 0, NULL, s);
  for (int k = 0; sync && k < st->n_need && tfc_status_ok(s); k++)
    if (st->push[k] && add_control(sync, st->push[k], s)) return s->code;
  tfc_endpoint one = int_const(b->g, scope, "Const/Const", 1, s);
  outs[0] = binary(b->g, scope, "Add", NULL, ins[0], one, s);
  if (sync && outs[0].node) add_control(outs[0].node, sync, s);
  return s->code;
}

static int bp_cond(void *ctx, const char *scope, const tfc_endpoint *merges, tfc_endpoint *out, tfc_status *s) {
  grad_build *b = ctx;
  tfc_endpoint zero = int_const(b->g, scope, "Const/Const", 0, s);
  *out = binary(b->g, scope, "Greater", NULL, merges[0], zero, s);
  return s->code;
}

static int bp_body(void *ctx, const char *scope, const tfc_endpoint *ins, tfc_endpoint *outs, tfc_status *s) {
  grad_build *b = ctx;
  tfc_endpoint one = int_const(b->g, scope, "Const/Const", 1, s);
  outs[0] = binary(b->g, scope, "Sub", "Subtract", ins[0], one, s);
  return s->code;
}

static int grad_cond(void *ctx, const char *scope, const tfc_endpoint *merges, tfc_endpoint *out, tfc_status *s) {
  (void)scope, (void)merges;
  *out = ((grad_build *)ctx)->bp_cond;
  return s->code;
}

/* ---- Python mode: forward values on stacks ---- */

static int is_enter(const tfc_node *n) { return is_op(n, "Enter", "RefEnter"); }

/* The nodes of the forward loop (frame l->frame and the frames inside it): everything reached
 * from the frame's Enters along data and control edges without passing an Exit of the frame.
 * Node ids grow along every edge but the back edges, whose ends are both inside anyway. */
static unsigned char *forward_set(const tfc_graph *g, const tfc_grad_loop *l, tfc_status *s) {
  unsigned char *in = calloc((size_t)g->n_nodes + 1, 1);
  if (!in) {
    TFC_OOM(s);
    return NULL;
  }
  size_t flen = strlen(l->frame);
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    size_t len = 0;
    const char *f = is_enter(n) ? enter_frame(n, &len) : NULL;
    if (f && len == flen && memcmp(f, l->frame, flen) == 0) {
      in[i] = 1;
      continue;
    }
    int hit = 0;
    for (int j = 0; j < n->n_inputs && !hit; j++) {
      const tfc_node *p = n->inputs[j].node;
      hit = p->id < i && in[p->id] && !is_op(p, "Exit", "RefExit");
    }
    for (int j = 0; j < n->n_control_inputs && !hit; j++) {
      const tfc_node *p = n->control_inputs[j];
      hit = p->id < i && in[p->id] && !is_op(p, "Exit", "RefExit");
    }
    in[i] = (unsigned char)hit;
  }
  return in;
}

/* The innermost cond branch a forward node runs in (the builders' records: capture Switches
 * and switch_t / switch_f): the nearest recorded one up its data and control inputs, not
 * looking past a Merge or a NextIteration (their values are live whichever branch ran). The
 * branch, or -1 when none; *pred the cond's pred_id. */
static int branch_of(const grad_build *b, const tfc_node *n, tfc_node **pred) {
  const stacks *st = b->st;
  if (!b->l->cond_of) return -1;
  int *queue = malloc(sizeof *queue * (size_t)(st->n_fwd + 1));
  unsigned char *seen = calloc((size_t)st->n_fwd + 1, 1);
  int head = 0, tail = 0, r = -1;
  if (!queue || !seen) goto out;
  queue[tail++] = n->id;
  seen[n->id] = 1;
  while (head < tail && r < 0) {
    const tfc_node *m = b->g->nodes[queue[head++]];
    int br = -1;
    if (b->l->cond_of(b->l->cond_ctx, m, pred, &br) && br >= 0) {
      r = br;
      break;
    }
    if (is_op(m, "Merge", "RefMerge") || is_op(m, "NextIteration", "RefNextIteration")) continue;
    for (int j = 0; j < m->n_inputs + m->n_control_inputs; j++) {
      const tfc_node *p = j < m->n_inputs ? m->inputs[j].node : m->control_inputs[j - m->n_inputs];
      if (p->id >= st->n_fwd || !st->fwd[p->id] || seen[p->id]) continue;
      seen[p->id] = 1;
      queue[tail++] = p->id;
    }
  }
out:
  free(queue);
  free(seen);
  return r;
}

static int need_index(const stacks *st, tfc_endpoint e) {
  for (int k = 0; k < st->n_need; k++)
    if (st->need[k].node == e.node && st->need[k].index == e.index) return k;
  return -1;
}

/* The remap of the body's gradient (tfc_grad_set_remap): a forward-loop tensor is recorded
 * (dry run) or replaced by its value inside the gradient loop: a pop of its stack, or for an
 * invariant (the output of a constant Enter) the same outside value entered into the
 * gradient frame. */
static tfc_endpoint remap(void *ctx, tfc_endpoint e, tfc_status *s) {
  grad_build *b = ctx;
  stacks *st = b->st;
  if (e.node->id >= st->n_fwd || !st->fwd[e.node->id]) return e;
  int k = need_index(st, e);
  if (st->record) {
    if (k >= 0) return e;
    if (st->n_need == st->cap_need) {
      int cap = st->cap_need ? 2 * st->cap_need : 8;
      tfc_endpoint *v = realloc(st->need, sizeof *v * (size_t)cap);
      if (!v) {
        TFC_OOM(s);
        return tfc_grad_none();
      }
      st->need = v;
      st->cap_need = cap;
    }
    st->need[st->n_need++] = e;
    return e;
  }
  if (k < 0) {
    tfc_status_set(s, TFC_INTERNAL, "while loop gradient: forward value '%s:%d' was not saved", e.node->name, e.index);
    return tfc_grad_none();
  }
  if (st->value[k].node) return st->value[k];
  tfc_node *prev = tfc_grad_set_control(NULL); /* Enters take their frame from their input */
  tfc_node *en = NULL;
  if (!st->handle[k]) {
    en = loop_enter(b->g, b->scope, e.node->inputs[0], st->grad_frame, 1, s);
    tfc_grad_set_control(prev);
    st->value[k] = (tfc_endpoint){en, 0};
    return st->value[k];
  }
  en = loop_enter(b->g, b->scope, (tfc_endpoint){st->handle[k], 0}, st->grad_frame, 1, s);
  tfc_grad_set_control(prev);
  if (!en) return tfc_grad_none();
  tfc_endpoint h = {en, 0};
  /* A value of a cond branch was pushed only when its branch ran: the pop goes behind a
   * Switch of the handle on the (popped) predicate, as Python guards it. */
  tfc_node *pred = NULL;
  int branch = branch_of(b, e.node, &pred);
  if (branch >= 0 && tfc_status_ok(s)) {
    tfc_endpoint pp = remap(ctx, (tfc_endpoint){pred, 0}, s);
    tfc_endpoint ins[2] = {h, pp};
    h = (tfc_endpoint){pp.node ? tfc_grad_node_in(b->g, st->body_scope, "Switch", NULL, ins, 2, -1, 0, NULL, 0, NULL, s)
                               : NULL,
                       branch};
    if (!h.node) return tfc_grad_none();
  }
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("elem_type", tfc_dtype_base(e.node->output_types[e.index]))};
  st->value[k] = (tfc_endpoint){
      tfc_grad_node_in(b->g, st->body_scope, "StackPopV2", NULL, &h, 1, -1, 0, a, 1, st->b_pivot, s), 0};
  /* The pop has the saved value's static shape (Python sets it): the gradient functions then
   * take the same shape-dependent paths as in the dry run that chose what to save. */
  if (st->value[k].node) st->value[k].node->output_shapes[0] = e.node->output_shapes[e.index];
  return st->value[k];
}

/* The dry run: the body's gradient built once against stand-in seeds to learn which forward
 * values it reads, then rolled back; then a stack (StackV2 "<scope>/f_acc", max_size -1) per
 * value that is not an invariant. */
static int plan_stacks(grad_build *b, tfc_status *s) {
  tfc_graph *g = b->g;
  tfc_grad_loop *l = b->l;
  stacks *st = b->st;
  if (!(st->fwd = forward_set(g, l, s))) return s->code;
  st->n_fwd = g->n_nodes;
  int mark = tfc_graph_mark(g);
  int nx = l->n + l->n_inv;
  tfc_endpoint *v = calloc(4 * (size_t)nx + 1, sizeof *v);
  if (!v) return TFC_OOM(s);
  tfc_endpoint *ys = v, *xs = v + l->n, *seeds = v + l->n + nx, *res = v + 2 * l->n + nx;
  char *dry = NULL;
  if (asprintf(&dry, "%s/dry_run", b->scope) < 0) {
    free(v);
    return TFC_OOM(s);
  }
  for (int i = 0; i < l->n && tfc_status_ok(s); i++) {
    ys[i] = l->merge[i]->inputs[1].node->inputs[0];
    xs[i] = (tfc_endpoint){l->sw[i], 1};
    tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("dtype", tfc_grad_dtype(ys[i]))};
    seeds[i] = (tfc_endpoint){tfc_grad_node_in(g, dry, "Placeholder", "seed", NULL, 0, -1, 0, a, 1, NULL, s), 0};
  }
  tfc_grad_options opt = tfc_grad_options_capi();
  opt.unreachable = TFC_GRAD_MISSING_NONE;
  opt.no_gradient = TFC_GRAD_MISSING_NONE;
  opt.cond_of = l->cond_of;
  opt.cond_ctx = l->cond_ctx;
  for (int j = 0; j < l->n_inv; j++) xs[l->n + j] = (tfc_endpoint){l->inv[j], 0};
  tfc_grad_walk_args wa = {ys, l->n, xs, nx, seeds, &opt, dry, 1, l->frame};
  st->record = 1;
  tfc_grad_remap prev = tfc_grad_set_remap((tfc_grad_remap){remap, b});
  if (tfc_status_ok(s)) tfc_grad_walk_locked(g, &wa, res, s);
  tfc_grad_set_remap(prev);
  st->record = 0;
  tfc_graph_rollback(g, mark);
  free(dry);
  free(v);
  if (!tfc_status_ok(s)) return s->code;
  st->handle = calloc((size_t)st->n_need + 1, sizeof *st->handle);
  st->push = calloc((size_t)st->n_need + 1, sizeof *st->push);
  st->value = calloc((size_t)st->n_need + 1, sizeof *st->value);
  if (!st->handle || !st->push || !st->value) return TFC_OOM(s);
  for (int k = 0; k < st->n_need && tfc_status_ok(s); k++) {
    const tfc_node *n = st->need[k].node;
    int inv = 0;
    if (is_enter(n)) tfc_node_attr_bool(n, "is_constant", &inv);
    if (inv) continue;
    tfc_endpoint max = tfc_grad_const_scalar_in(g, b->scope, "f_acc/max_size", TFC_DT_INT32, -1, s);
    tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("elem_type", tfc_grad_dtype(st->need[k]))};
    st->handle[k] = max.node ? tfc_grad_node_in(g, b->scope, "StackV2", "f_acc", &max, 1, -1, 0, a, 1, NULL, s) : NULL;
  }
  return s->code;
}

/* The symbolic gradient of the forward body: from the body outputs (the NextIteration
 * inputs) back to the body inputs (Switch_i:1), seeded with the gradient loop's Switch_i:1. */
static int grad_body(void *ctx, const char *scope, const tfc_endpoint *ins, tfc_endpoint *outs, tfc_status *s) {
  grad_build *b = ctx;
  tfc_grad_loop *l = b->l;
  int n = l->n, m = l->n_inv;
  tfc_endpoint *v = calloc(2 * (size_t)(n + m) + 1, sizeof *v);
  if (!v) return TFC_OOM(s);
  tfc_endpoint *ys = v, *xs = v + n, *part = v + 2 * n + m;
  for (int i = 0; i < n; i++) {
    ys[i] = l->merge[i]->inputs[1].node->inputs[0];
    xs[i] = (tfc_endpoint){l->sw[i], 1};
  }
  for (int j = 0; j < m; j++) xs[n + j] = (tfc_endpoint){l->inv[j], 0};
  tfc_grad_options opt = tfc_grad_options_capi();
  opt.unreachable = TFC_GRAD_MISSING_NONE;
  opt.no_gradient = TFC_GRAD_MISSING_NONE;
  opt.cond_of = l->cond_of;
  opt.cond_ctx = l->cond_ctx;
  tfc_grad_walk_args a = {ys, n, xs, n + m, ins, &opt, scope, 1, l->frame};
  tfc_grad_remap prev = {NULL, NULL};
  if (b->st) {
    b->st->body_scope = scope;
    b->st->b_pivot = tfc_grad_node_in(b->g, scope, "Identity", "b_pivot", &ins[0], 1, -1, 0, NULL, 0, NULL, s);
    prev = tfc_grad_set_remap((tfc_grad_remap){remap, b});
  }
  /* The walk fills outs[0, n) and, for the invariants, part[0, m). */
  tfc_endpoint *res = calloc((size_t)(n + m) + 1, sizeof *res);
  int rc = res ? tfc_grad_walk_locked(b->g, &a, res, s) : TFC_OOM(s);
  if (b->st) tfc_grad_set_remap(prev);
  for (int i = 0; rc == TFC_OK && i < n + m; i++) *(i < n ? &outs[i] : &part[i - n]) = res[i];
  free(res);
  if (rc == TFC_OK)
    for (int i = 0; i < n; i++)
      if (!outs[i].node)
        outs[i] = (tfc_endpoint){tfc_grad_node_in(b->g, scope, "ZerosLike", "zeros_like", &ins[i], 1, -1, 0, NULL,
                                                  0, NULL, s),
                                 0};
  /* An invariant's accumulator adds this iteration's part. */
  for (int j = 0; rc == TFC_OK && j < m; j++)
    outs[n + j] = part[j].node ? binary(b->g, scope, "AddV2", "b_acc", ins[n + j], part[j], s) : ins[n + j];
  free(v);
  return s->code;
}

int tfc_grad_loop_build(tfc_graph *g, const char *prefix, tfc_grad_loop *l, tfc_endpoint *out_dx, tfc_status *s) {
  char *scope = NULL, *sub = NULL, *frame = NULL;
  tfc_endpoint count = {NULL, 0}, bp_out = {NULL, 0};
  stacks st;
  memset(&st, 0, sizeof st);
  grad_build b = {g, l, {NULL, 0}, NULL, l->stacks ? &st : NULL};
  if (asprintf(&scope, "%s/%s_grad", prefix, l->frame) < 0) return TFC_OOM(s);
  if (asprintf(&frame, "%s_backprop", l->frame) < 0) {
    free(scope);
    return TFC_OOM(s);
  }
  b.scope = scope;
  st.grad_frame = frame;
  if (b.st) plan_stacks(&b, s);
  /* 1. ForwardLoopCounter: the trip count, in the forward frame. */
  if (asprintf(&sub, "%s/ForwardLoopCounter", scope) < 0) {
    free(scope), free(frame);
    return TFC_OOM(s);
  }
  tfc_endpoint zero = int_const(g, sub, "Const", 0, s);
  if (tfc_status_ok(s)) build_loop(g, sub, l->frame, 1, &zero, fwd_cond, fwd_body, &b, &count, s);
  free(sub);
  sub = NULL;
  /* 2. BackPropLoopCounter: counts down in the gradient frame; its LoopCond drives 3. */
  if (tfc_status_ok(s) && asprintf(&sub, "%s/BackPropLoopCounter", scope) < 0) TFC_OOM(s);
  if (tfc_status_ok(s)) build_loop(g, sub, frame, 1, &count, bp_cond, bp_body, &b, &bp_out, s);
  if (tfc_status_ok(s)) {
    /* The LoopCond is the Exit's Switch's predicate. */
    b.bp_cond = (tfc_endpoint){bp_out.node->inputs[0].node->inputs[1].node, 0};
  }
  free(sub);
  sub = NULL;
  /* 3. The gradient loop. */
  if (tfc_status_ok(s) && asprintf(&sub, "%s/while", scope) < 0) TFC_OOM(s);
  /* The gradient loop's variables: the Exits' gradients, then one accumulator (zeros) per
   * invariant on the path. */
  tfc_endpoint *init = calloc((size_t)(l->n + l->n_inv) + 1, sizeof *init);
  if (!init) TFC_OOM(s);
  for (int i = 0; init && i < l->n; i++) init[i] = l->dy[i];
  for (int j = 0; init && j < l->n_inv && tfc_status_ok(s); j++) {
    tfc_endpoint in = l->inv[j]->inputs[0];
    init[l->n + j] = (tfc_endpoint){tfc_grad_node_in(g, scope, "ZerosLike", "b_acc_init", &in, 1, -1, 0, NULL, 0, NULL, s),
                                    0};
  }
  if (tfc_status_ok(s)) build_loop(g, sub, frame, l->n + l->n_inv, init, grad_cond, grad_body, &b, out_dx, s);
  free(init);
  free(sub), free(frame), free(scope);
  free(st.fwd), free(st.need), free(st.handle), free(st.push), free(st.value);
  return s->code;
}
