/*
 * frame — control flow in the executor: dead tensors, frames and iterations (frame.h).
 *
 * Dead tensors. Switch sets one output and leaves the other unset: that output is dead. A
 * node whose inputs (data, or control edges from a dead node) include a dead one is dead: its
 * kernel does not run, all its outputs are dead, and it still completes and passes deadness on
 * along every out-edge. Merge is the exception: it runs on its first live data input (once
 * all its control inputs arrived; their deadness is ignored), forwarding it with its index as
 * value_index, and is dead only when every data input arrived dead, or at once on a dead input
 * from an Enter (a loop on an untaken branch dies). ControlTrigger is never dead. A dead
 * NextIteration is dropped: that is how a loop ends. A fetch of a dead tensor is not produced.
 *
 * Frames. Statically (tfc_cf_plan_build) every node gets a frame by a walk from the roots:
 * an Enter's successors are in the frame named by its frame_name, an Exit's in the frame
 * around its own; a node whose inputs come from different frames is refused as TF refuses it.
 * At run time a frame instance is (parent instance, parent iteration, frame name): the first
 * Enter to fire in a parent iteration creates it, with that Enter's parallel_iterations. Each
 * instance holds a ring of parallel_iterations + 1 iteration states; an iteration state holds
 * the input slots and pending/dead counts of every node for that iteration. Values flow:
 * ordinary node -> same frame and iteration; Enter -> child iteration 0 (is_constant values
 * are kept and given to every iteration as it starts); NextIteration -> next iteration
 * (started on demand, or parked while parallel_iterations are outstanding); Exit -> the
 * parent frame's iteration. A dead Exit is kept only from the newest iteration and delivered
 * when the frame ends. An iteration is done when it has no node outstanding, no child frame
 * alive, and its predecessor is gone (iteration 0: every Enter of the frame fired); done
 * iterations are freed in order, each freeing one a parked NextIteration may use. A frame is
 * done when all its Enters fired and no iteration is left; freeing it releases its parent
 * iteration. So a loop of any length runs in memory bounded by parallel_iterations.
 *
 * Threads. A step runs on the calling thread, from a work list of (node, frame, iteration);
 * nothing is shared with other threads, so frame state takes no lock. An async kernel (a
 * _Recv) is waited for in place. The dataflow fast path (executor.c) is untouched.
 *
 * Errors: the first kernel error stops the step (formatted by tfc_exec_node_error); every
 * frame, iteration and slot still held is freed.
 */
#include "exec/frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rendezvous/rendezvous.h"

enum { K_NORMAL, K_SWITCH, K_MERGE, K_ENTER, K_EXIT, K_NEXT, K_TRIGGER };

typedef struct cf_item {
  int kind;
  int frame;       /* static frame id: 0 root */
  int child;       /* Enter: the static frame it enters */
  int is_constant; /* Enter */
  int par;         /* Enter: parallel_iterations */
  int n_ctrl;      /* control in-edges */
  int n_data;      /* data in-edges */
} cf_item;

typedef struct cf_frame_info {
  char *name;
  int parent;
  int n_enters;
} cf_frame_info;

struct tfc_cf_plan {
  cf_item *items;
  cf_frame_info *frames;
  int n_frames;
  int *init_pending; /* per item: a fresh iteration's pending count (Merge: control in-edges) */
};

static int kind_of(int op) {
  switch (op) {
    case TFC_OP_Switch: case TFC_OP_RefSwitch: return K_SWITCH;
    case TFC_OP_Merge: case TFC_OP_RefMerge: return K_MERGE;
    case TFC_OP_Enter: case TFC_OP_RefEnter: return K_ENTER;
    case TFC_OP_Exit: case TFC_OP_RefExit: return K_EXIT;
    case TFC_OP_NextIteration: case TFC_OP_RefNextIteration: return K_NEXT;
    case TFC_OP_ControlTrigger: return K_TRIGGER;
    case TFC_OP_LoopCond: return K_NORMAL;
    default: return -1;
  }
}

void tfc_cf_plan_free(tfc_cf_plan *p) {
  if (!p) return;
  for (int i = 0; i < p->n_frames; i++) free(p->frames[i].name);
  free(p->frames);
  free(p->items);
  free(p->init_pending);
  free(p);
}

static int frame_id(tfc_cf_plan *p, const char *name, int parent, tfc_status *s) {
  for (int i = 1; i < p->n_frames; i++)
    if (strcmp(p->frames[i].name, name) == 0) return i;
  cf_frame_info *nf = realloc(p->frames, sizeof *nf * (size_t)(p->n_frames + 1));
  if (!nf) return -TFC_OOM(s);
  p->frames = nf;
  nf[p->n_frames] = (cf_frame_info){.name = strdup(name), .parent = parent};
  if (!nf[p->n_frames].name) return -TFC_OOM(s);
  return p->n_frames++;
}

int tfc_cf_plan_build(tfc_executor *e, tfc_cf_plan **out, tfc_status *s) {
  *out = NULL;
  int any = 0;
  for (int i = 0; i < e->n_items && !any; i++) any = kind_of(e->items[i].node->op->id) >= 0;
  if (!any) return TFC_OK;
  tfc_cf_plan *p = calloc(1, sizeof *p);
  int *queue = malloc(sizeof(int) * (size_t)(2 * e->n_items + 2));
  if (!p || !queue || !(p->items = calloc((size_t)e->n_items, sizeof *p->items)) ||
      !(p->init_pending = calloc((size_t)e->n_items, sizeof(int))) || !(p->frames = calloc(1, sizeof *p->frames)) ||
      !(p->frames[0].name = strdup(""))) {
    free(queue);
    tfc_cf_plan_free(p);
    return TFC_OOM(s);
  }
  p->n_frames = 1;
  p->frames[0].parent = -1;
  for (int i = 0; i < e->n_items; i++) {
    cf_item *ci = &p->items[i];
    int k = kind_of(e->items[i].node->op->id);
    ci->kind = k < 0 ? K_NORMAL : k;
    ci->frame = -1;
    ci->n_data = e->items[i].n_inputs;
    ci->n_ctrl = e->items[i].node->n_control_inputs;
    p->init_pending[i] = ci->kind == K_MERGE ? ci->n_ctrl : ci->n_data + ci->n_ctrl;
    if (ci->kind == K_ENTER) {
      const tfc_attr_value *fn = tfc_node_attr(e->items[i].node, "frame_name");
      if (!fn || fn->kind != TFC_ATTR_STRING || fn->u.s.len == 0) {
        free(queue);
        tfc_cf_plan_free(p);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "The Enter {{node %s}} must have a frame name.",
                              e->items[i].node->name);
      }
      int64_t par = 10;
      int c = 0;
      tfc_node_attr_int(e->items[i].node, "parallel_iterations", &par);
      tfc_node_attr_bool(e->items[i].node, "is_constant", &c);
      ci->par = par > 0 ? (int)par : 1;
      ci->is_constant = c;
    }
  }
  /* walk from the roots: each node's frame, checked against every input's */
  int head = 0, tail = 0, r = TFC_OK;
  int *set_by = queue + e->n_items + 1; /* the input that gave each node its frame */
  for (int k = 0; k < e->n_roots; k++) {
    queue[tail++] = e->roots[k];
    p->items[e->roots[k]].frame = 0;
  }
  while (head < tail && r == TFC_OK) {
    int i = queue[head++];
    cf_item *ci = &p->items[i];
    const exec_item *it = &e->items[i];
    int out_frame = ci->frame;
    if (ci->kind == K_ENTER) {
      const tfc_attr_value *fn = tfc_node_attr(it->node, "frame_name");
      char name[512];
      size_t len = fn->u.s.len < sizeof name - 1 ? fn->u.s.len : sizeof name - 1;
      memcpy(name, fn->u.s.data, len);
      name[len] = '\0';
      int id = frame_id(p, name, ci->frame, s);
      if (id < 0) { r = -id; break; }
      if (p->frames[id].parent != ci->frame) {
        r = tfc_status_set(s, TFC_INTERNAL,
                           "Invalid loop structure: Mismatched parent frames for \"%s\": \"%s\" vs \"%s\". "
                           "The node giving this error: {{node %s}}",
                           name, p->frames[p->frames[id].parent].name, p->frames[ci->frame].name, it->node->name);
        break;
      }
      ci->child = id;
      p->frames[id].n_enters++;
      out_frame = id;
    } else if (ci->kind == K_EXIT) {
      out_frame = ci->frame > 0 ? p->frames[ci->frame].parent : 0;
    }
    for (int k = 0; k < it->n_edges; k++) {
      const exec_edge *ed = &e->edges[it->edge_start + k];
      cf_item *d = &p->items[ed->dst];
      if (d->frame < 0) {
        d->frame = out_frame;
        set_by[ed->dst] = i;
        queue[tail++] = ed->dst;
      } else if (d->frame != out_frame) {
        r = tfc_status_set(s, TFC_INVALID_ARGUMENT,
                           "{{node %s}} has inputs from different frames. The input {{node %s}} is in frame '%s'. "
                           "The input {{node %s}} is in frame '%s'.",
                           e->items[ed->dst].node->name, it->node->name, p->frames[out_frame].name,
                           e->items[set_by[ed->dst]].node->name, p->frames[d->frame].name);
        break;
      }
    }
  }
  free(queue);
  if (r != TFC_OK) {
    tfc_cf_plan_free(p);
    return r;
  }
  *out = p;
  return TFC_OK;
}

/* ---------------- run ---------------- */

typedef struct iter_state {
  int64_t id;
  tfc_tensor **slots; /* n_slots */
  int *pending;       /* per item: in-edges still to come (Merge: control in-edges) */
  int *dead;          /* per item: dead in-edges so far */
  unsigned char *flags; /* per item: F_LIVE (Merge has its input), F_STARTED */
  int outstanding_ops;
  int outstanding_frames;
  struct iter_state *next_free; /* the step's free list */
} iter_state;

enum { F_LIVE = 1, F_STARTED = 2 };

typedef struct parked {
  int item;
  tfc_tensor *t;
} parked;

typedef struct frame_state {
  int sid; /* static frame id */
  struct frame_state *parent;
  int64_t parent_iter;
  int max_par;
  int pending_inputs; /* Enters still to fire */
  int64_t iter_count; /* newest iteration */
  int64_t oldest;     /* oldest iteration still alive */
  int outstanding_iters;
  iter_state **ring; /* max_par + 1 */
  parked *next_roots;
  int n_next, cap_next;
  parked *inv; /* is_constant Enter values (item = the Enter) */
  int n_inv, cap_inv;
  int *dead_exits;
  int n_dead_exits, cap_dead_exits;
  struct frame_state *next_live; /* the step's list of live frames */
} frame_state;

typedef struct task {
  int item;
  frame_state *f;
  int64_t iter;
} task;

typedef struct cf_step {
  tfc_executor *ex;
  tfc_cf_plan *p;
  const tfc_exec_args *args;
  task *work;
  int n_work, cap_work;
  frame_state *live;
  iter_state *free_iters; /* released iteration states, reused by iter_new */
  int failed;
  tfc_status status;
} cf_step;

static int grow_to(void **v, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *nv = realloc(*v, elem * (size_t)nc);
  if (!nv) return -1;
  *v = nv;
  *cap = nc;
  return 0;
}

static void fail_oom(cf_step *st) {
  if (!st->failed) TFC_OOM(&st->status);
  st->failed = 1;
}

/* A fresh iteration state: one block (state, slots, pending, dead, flags), taken from the
 * step's free list when one is there. */
static iter_state *iter_new(cf_step *st, int64_t id) {
  tfc_executor *ex = st->ex;
  size_t n = (size_t)ex->n_items;
  iter_state *it = st->free_iters;
  if (it) {
    st->free_iters = it->next_free;
  } else {
    size_t slots_off = sizeof *it, pending_off = slots_off + sizeof(tfc_tensor *) * (size_t)ex->n_slots;
    size_t dead_off = pending_off + sizeof(int) * n, flags_off = dead_off + sizeof(int) * n;
    it = calloc(1, flags_off + n + 1);
    if (!it) return NULL;
    it->slots = (tfc_tensor **)((char *)it + slots_off);
    it->pending = (int *)((char *)it + pending_off);
    it->dead = (int *)((char *)it + dead_off);
    it->flags = (unsigned char *)it + flags_off;
  }
  it->id = id;
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  it->next_free = NULL;
  memcpy(it->pending, st->p->init_pending, sizeof(int) * n);
  memset(it->dead, 0, sizeof(int) * n);
  memset(it->flags, 0, n);
  return it;
}

/* Releases what the iteration still holds (inputs of nodes that never ran) and puts it on the
 * step's free list. */
static void iter_release(cf_step *st, iter_state *it) {
  if (!it) return;
  for (int i = 0; i < st->ex->n_slots; i++) {
    tfc_tensor_unref(it->slots[i]);
    it->slots[i] = NULL;
  }
  it->next_free = st->free_iters;
  st->free_iters = it;
}

static iter_state *iter_at(frame_state *f, int64_t id) { return f->ring[id % (f->max_par + 1)]; }

static frame_state *frame_new(cf_step *st, int sid, frame_state *parent, int64_t parent_iter, int max_par) {
  frame_state *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->sid = sid;
  f->parent = parent;
  f->parent_iter = parent_iter;
  f->max_par = max_par;
  f->pending_inputs = st->p->frames[sid].n_enters;
  f->outstanding_iters = 1;
  f->ring = calloc((size_t)max_par + 1, sizeof *f->ring);
  if (!f->ring || !(f->ring[0] = iter_new(st, 0))) {
    free(f->ring);
    free(f);
    return NULL;
  }
  f->next_live = st->live;
  st->live = f;
  return f;
}

static void frame_free(cf_step *st, frame_state *f) {
  for (frame_state **pp = &st->live; *pp; pp = &(*pp)->next_live)
    if (*pp == f) { *pp = f->next_live; break; }
  for (int i = 0; i <= f->max_par; i++) iter_release(st, f->ring[i]);
  for (int i = 0; i < f->n_next; i++) tfc_tensor_unref(f->next_roots[i].t);
  for (int i = 0; i < f->n_inv; i++) tfc_tensor_unref(f->inv[i].t);
  free(f->ring); free(f->next_roots); free(f->inv); free(f->dead_exits); free(f);
}

static void push_ready(cf_step *st, int item, frame_state *f, iter_state *is) {
  if (grow_to((void **)&st->work, &st->cap_work, st->n_work + 1, sizeof(task))) { fail_oom(st); return; }
  is->outstanding_ops++;
  st->work[st->n_work++] = (task){item, f, is->id};
}

/* One arrival at dst's input slot `slot` (-1: control edge) in (f, is); t is taken (NULL:
 * dead). `from_enter` marks an arrival from an Enter (a dead one kills a Merge at once). */
static void arrive(cf_step *st, int dst, int slot, tfc_tensor *t, int dead, int from_enter, frame_state *f,
                   iter_state *is) {
  const cf_item *ci = &st->p->items[dst];
  if (ci->kind != K_MERGE) {
    if (slot >= 0) is->slots[slot] = t;
    if (dead) is->dead[dst]++;
    if (--is->pending[dst] == 0) push_ready(st, dst, f, is);
    return;
  }
  if (is->flags[dst] & F_STARTED) { tfc_tensor_unref(t); return; }
  if (slot < 0) {
    if (--is->pending[dst] > 0) return;
    if (!(is->flags[dst] & F_LIVE) && is->dead[dst] < ci->n_data) return; /* data still to come */
  } else if (!dead) {
    if (is->flags[dst] & F_LIVE) { tfc_tensor_unref(t); return; }
    is->flags[dst] |= F_LIVE;
    is->slots[slot] = t;
    if (is->pending[dst] > 0) return;
  } else {
    is->dead[dst]++;
    if (is->pending[dst] > 0 || (is->flags[dst] & F_LIVE)) return;
    if (is->dead[dst] < ci->n_data && !from_enter) return;
  }
  is->flags[dst] |= F_STARTED;
  if (is->flags[dst] & F_LIVE) is->dead[dst] = 0;
  else is->dead[dst] = is->dead[dst] ? is->dead[dst] : 1;
  push_ready(st, dst, f, is);
}

/* Delivers item src's outputs (outs[j] NULL: dead; dead: the node was dead) along its
 * out-edges into (f, is). Borrows outs. */
static void deliver(cf_step *st, int src, tfc_tensor **outs, int dead, frame_state *f, iter_state *is) {
  const exec_item *it = &st->ex->items[src];
  int from_enter = st->p->items[src].kind == K_ENTER;
  for (int k = 0; k < it->n_edges; k++) {
    const exec_edge *ed = &st->ex->edges[it->edge_start + k];
    if (ed->dst_slot < 0) {
      arrive(st, ed->dst, -1, NULL, dead, from_enter, f, is);
    } else {
      tfc_tensor *t = dead ? NULL : outs[ed->src_output];
      arrive(st, ed->dst, ed->dst_slot, t ? tfc_tensor_ref(t) : NULL, t == NULL, from_enter, f, is);
    }
  }
}

static frame_state *child_frame(cf_step *st, frame_state *f, int64_t iter, int sid, int par) {
  for (frame_state *c = st->live; c; c = c->next_live)
    if (c->parent == f && c->parent_iter == iter && c->sid == sid) return c;
  frame_state *c = frame_new(st, sid, f, iter, par);
  if (!c) { fail_oom(st); return NULL; }
  iter_at(f, iter)->outstanding_frames++;
  return c;
}

/* Starts iteration iter_count + 1 of f: gives it the frame's invariants. */
static iter_state *next_iteration(cf_step *st, frame_state *f) {
  int64_t id = f->iter_count + 1;
  iter_state *is = iter_new(st, id);
  if (!is) { fail_oom(st); return NULL; }
  f->ring[id % (f->max_par + 1)] = is;
  f->iter_count = id;
  f->outstanding_iters++;
  f->n_dead_exits = 0;
  for (int k = 0; k < f->n_inv; k++) deliver(st, f->inv[k].item, &f->inv[k].t, 0, f, is);
  return is;
}

/* Frees the done iterations of f, oldest first, and f itself when it is done. */
static void cleanup(cf_step *st, frame_state *f) {
  if (!f->parent) return; /* the root frame lives as long as the step */
  while (f->outstanding_iters > 0) {
    iter_state *is = iter_at(f, f->oldest);
    if (!is || is->outstanding_ops || is->outstanding_frames || (f->oldest == 0 && f->pending_inputs)) break;
    iter_release(st, is);
    f->ring[f->oldest % (f->max_par + 1)] = NULL;
    f->oldest++;
    f->outstanding_iters--;
    if (f->n_next && !st->failed) { /* a parked NextIteration may start its iteration now */
      iter_state *n = next_iteration(st, f);
      if (!n) return;
      for (int k = 0; k < f->n_next; k++) {
        deliver(st, f->next_roots[k].item, &f->next_roots[k].t, 0, f, n);
        tfc_tensor_unref(f->next_roots[k].t);
      }
      f->n_next = 0;
    }
  }
  if (f->pending_inputs || f->outstanding_iters) return;
  frame_state *parent = f->parent;
  iter_state *pis = iter_at(parent, f->parent_iter);
  for (int k = 0; k < f->n_dead_exits && !st->failed; k++) deliver(st, f->dead_exits[k], NULL, 1, parent, pis);
  frame_free(st, f);
  pis->outstanding_frames--;
  cleanup(st, parent);
}

/* Hands on what item i (in f, iteration is) produced and finishes it there. */
static void propagate(cf_step *st, int i, tfc_tensor **outs, int dead, frame_state *f, iter_state *is) {
  const cf_item *ci = &st->p->items[i];
  switch (ci->kind) {
    case K_ENTER: {
      frame_state *c = child_frame(st, f, is->id, ci->child, ci->par);
      if (!c) break;
      if (!dead && ci->is_constant) {
        if (grow_to((void **)&c->inv, &c->cap_inv, c->n_inv + 1, sizeof(parked))) { fail_oom(st); break; }
        c->inv[c->n_inv++] = (parked){i, tfc_tensor_ref(outs[0])};
        for (int64_t k = c->oldest; k <= c->iter_count; k++) deliver(st, i, outs, 0, c, iter_at(c, k));
      } else {
        deliver(st, i, outs, dead, c, iter_at(c, 0));
      }
      c->pending_inputs--;
      cleanup(st, c);
      break;
    }
    case K_EXIT:
      if (!f->parent) {
        deliver(st, i, outs, dead, f, is);
      } else if (!dead) {
        deliver(st, i, outs, 0, f->parent, iter_at(f->parent, f->parent_iter));
      } else if (is->id == f->iter_count) {
        if (grow_to((void **)&f->dead_exits, &f->cap_dead_exits, f->n_dead_exits + 1, sizeof(int))) fail_oom(st);
        else f->dead_exits[f->n_dead_exits++] = i;
      }
      break;
    case K_NEXT:
      if (dead) break;
      if (is->id == f->iter_count && f->outstanding_iters == f->max_par) {
        if (grow_to((void **)&f->next_roots, &f->cap_next, f->n_next + 1, sizeof(parked))) { fail_oom(st); break; }
        f->next_roots[f->n_next++] = (parked){i, tfc_tensor_ref(outs[0])};
      } else {
        iter_state *n = is->id == f->iter_count ? next_iteration(st, f) : iter_at(f, is->id + 1);
        if (n) deliver(st, i, outs, 0, f, n);
      }
      break;
    default:
      deliver(st, i, outs, dead, f, is);
  }
}

typedef struct async_wait {
  tfc_kernel_ctx c; /* first: done(c) finds the rest */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int finished;
} async_wait;

static void async_wait_done(tfc_kernel_ctx *c) {
  async_wait *w = (async_wait *)c;
  pthread_mutex_lock(&w->mu);
  w->finished = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

/* Runs item i's kernel on its inputs in `is`. Returns 0 or the error code (in ks). */
static int compute(cf_step *st, int i, iter_state *is, tfc_tensor **outs, tfc_status *ks) {
  tfc_executor *ex = st->ex;
  const exec_item *it = &ex->items[i];
  tfc_tensor **in = is->slots + it->input_start;
  if (it->n_deref && tfc_exec_deref_inputs(it, in, ks)) return ks->code;
  async_wait w = {.c = tfc_exec_kernel_ctx(ex, st->args, it, in, outs, ks)};
  if (it->async) {
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    w.c.done = async_wait_done;
    it->kernel->compute_async(&w.c);
    pthread_mutex_lock(&w.mu);
    while (!w.finished) pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
  } else {
    it->kernel->compute(&w.c);
  }
  if (!tfc_status_ok(ks)) return ks->code;
  int kind = st->p->items[i].kind;
  for (int j = 0; j < it->n_outputs; j++) {
    if (!outs[j] && kind != K_SWITCH)
      return tfc_status_set(ks, TFC_INTERNAL, "Missing %d-th output from {{node %s}}", j, it->node->name);
    if (outs[j] && outs[j]->dtype != tfc_dtype_base(it->node->output_types[j]))
      return tfc_status_set(ks, TFC_INTERNAL, "kernel for %s produced %s for output %d, expected %s",
                            it->node->op->name, tfc_dtype_name(outs[j]->dtype), j,
                            tfc_dtype_name(it->node->output_types[j]));
  }
  return TFC_OK;
}

static void run_one(cf_step *st, task t) {
  const exec_item *it = &st->ex->items[t.item];
  frame_state *f = t.f;
  iter_state *is = iter_at(f, t.iter);
  int dead = is->dead[t.item] > 0 && st->p->items[t.item].kind != K_TRIGGER;
  tfc_tensor *outs_small[8];
  tfc_tensor **outs = it->n_outputs <= 8 ? outs_small : calloc((size_t)it->n_outputs, sizeof *outs);
  if (!outs) {
    fail_oom(st);
  } else {
    for (int j = 0; j < it->n_outputs; j++) outs[j] = NULL;
    if (!dead && !st->failed) {
      tfc_status ks;
      tfc_status_init(&ks);
      if (compute(st, t.item, is, outs, &ks)) {
        tfc_exec_node_error(st->ex, st->args->rendezvous, it, &ks, &st->status);
        st->failed = 1;
      }
      tfc_status_fini(&ks);
    }
    if (!st->failed) propagate(st, t.item, outs, dead, f, is);
    for (int j = 0; j < it->n_outputs; j++) tfc_tensor_unref(outs[j]);
    if (outs != outs_small) free(outs);
  }
  tfc_tensor **in = is->slots + it->input_start;
  for (int j = 0; j < it->n_inputs; j++) {
    tfc_tensor_unref(in[j]);
    in[j] = NULL;
  }
  is->outstanding_ops--;
  if (!st->failed) cleanup(st, f);
}

void tfc_cf_run(tfc_executor *e, const tfc_exec_args *args, tfc_exec_done done, void *arg) {
  cf_step st = {.ex = e, .p = e->cf, .args = args};
  tfc_status_init(&st.status);
  frame_state *root = frame_new(&st, 0, NULL, 0, 1);
  if (!root) {
    fail_oom(&st);
  } else {
    for (int k = 0; k < e->n_roots; k++) push_ready(&st, e->roots[k], root, root->ring[0]);
    while (st.n_work > 0 && !st.failed) {
      if (args->rendezvous && tfc_rendezvous_aborted(args->rendezvous)) {
        tfc_rendezvous_status(args->rendezvous, &st.status);
        st.failed = 1;
        break;
      }
      task t = st.work[--st.n_work];
      run_one(&st, t);
    }
  }
  while (st.live) frame_free(&st, st.live);
  while (st.free_iters) {
    iter_state *it = st.free_iters;
    st.free_iters = it->next_free;
    free(it);
  }
  free(st.work);
  done(arg, &st.status);
  tfc_status_fini(&st.status);
}
