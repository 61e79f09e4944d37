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
 * when the frame ends (one that becomes ready dead while its iteration has a task outstanding
 * is kept at once, without a task of its own). An iteration is done when it has no node outstanding, no child frame
 * alive, and its predecessor is gone (iteration 0: every Enter of the frame fired); done
 * iterations are freed in order, each freeing one a parked NextIteration may use. A frame is
 * done when all its Enters fired and no iteration is left; freeing it releases its parent
 * iteration. So a loop of any length runs in memory bounded by parallel_iterations.
 *
 * Threads. A step's frames and iterations belong to the thread that owns its run loop, which
 * takes (node, frame, iteration) tasks from a work list; frame state takes no lock. An async
 * kernel (_Recv) completes by callback: when it calls done inside compute_async the owner
 * continues at once; otherwise the call goes to the step's inbox (under the step's mutex),
 * which the owner drains between nodes. When nothing is ready and kernels are still in flight,
 * the owner gives the step up and returns: the next callback resumes it, on the inter-op pool
 * (or, without one, on the calling thread, queued behind any run loop that thread is inside).
 * So no executor holds a thread while it waits, and two executors whose loops exchange tensors
 * each iteration both make progress. An expensive kernel on large inputs (executor.c's rule,
 * tfc_exec_worth_a_thread) that becomes ready while other nodes are ready too runs on the
 * inter-op pool the same way, as a call whose end goes through the inbox, so iterations of a
 * loop with parallel_iterations > 1 overlap their heavy work; the pool thread that finishes a
 * kernel continues the step itself when its run loop had stopped. Cheap nodes always run on
 * the owner, without a lock. A deadline or another executor's error aborts the step's
 * rendezvous, which completes every waiting _Recv with that status.
 *
 * Transfers in loops. Every kernel context carries frame_id:iter_id, the frame instance's id
 * (frame_instance_id: the same on every executor and process for the same instance; 0 for the
 * root) and the iteration. _Send and _Recv run even when dead, as in TF: a dead _Send runs
 * with is_input_dead (it sends a dead token); a _Recv that receives one sets is_output_dead
 * and its data outputs are dead.
 *
 * Speed. Enter, Exit, NextIteration, LoopCond, Identity, Switch and Merge do not go through a
 * kernel context: the run loop moves the input to the output; nor does a Const on a CPU (a
 * constant inside a loop runs every iteration, on its control edge from the loop's Identity),
 * nor a CPU kernel with a compute_scalar (kernel.h) on scalar inputs: the loop counter's Add
 * and the predicate's Less run as one call into their kernel row, the Add writing into its
 * input when it holds it alone and a comparison answering with one of two shared bool
 * scalars, so a scalar loop allocates nothing per iteration. An output's last consumer takes
 * the producer's reference. The run loop reads each node's cf_hot record (32 bytes), not the
 * executor's item. Iteration states are reused, and starting or releasing one costs the
 * frame's size, not the graph's. A scalar while_loop costs about 1,930 instructions per
 * iteration (bench/while_loop.c, callgrind, setup included): some 150 in its Less and Add,
 * 400 starting and freeing the iteration, the rest moving values through nine nodes.
 *
 * Errors: the first kernel error stops the step (formatted by tfc_exec_node_error); every
 * frame, iteration and slot still held is freed.
 */
#include "exec/frame.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec/step_stats.h"
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
  int xfer;        /* X_SEND, X_RECV: runs even when dead; else 0 */
  int fast;        /* FAST_*: the executor does the kernel's work itself; else 0 */
  int plain;       /* outputs go to the same frame and iteration (not Enter, Exit, NextIteration) */
  tfc_tensor **value_index; /* Merge with FAST_MERGE and a consumer of output 1: n_data scalars */
  tfc_tensor *value;        /* Const with FAST_CONST: its value attr's tensor (borrowed from the node) */
} cf_item;

/* What the run loop reads of every node it runs, in one 32-byte record (the plan's hot[]):
 * the executor's item and the cf_item above, for the common path, without their multiply. */
typedef struct cf_hot {
  int input_start;
  int edge_start, n_edges;
  int n_inputs, n_outputs;
  unsigned char kind, fast, plain, xfer;
  const tfc_kernel_def *kernel;
} cf_hot;

enum { X_SEND = 1, X_RECV = 2 };
/* Kernels the run loop does inline, without a kernel context: pass-throughs (Enter, Exit,
 * NextIteration, LoopCond, Identity: output 0 is input 0), Switch on a scalar bool predicate,
 * Merge (value_index from the plan's scalars), Const on a CPU (a new reference to its value),
 * and a CPU kernel's compute_scalar on scalar inputs (kernel.h: Less, Add, ...). */
enum { FAST_PASS = 1, FAST_SWITCH, FAST_MERGE, FAST_CONST, FAST_SCALAR };

typedef struct cf_frame_info {
  char *name;
  uint64_t name_hash; /* tfc_hash_bytes of name: frame instance ids (frame_instance_id) */
  int parent;
  int n_enters;
} cf_frame_info;

enum { M_MERGE = 1, M_FROM_ENTER = 2 };

typedef struct cf_edge {
  int dst;
  int slot;       /* absolute input slot; -1 for a control edge */
  int src_output;
  unsigned char last;  /* the last data edge of its output: takes the producer's reference */
  unsigned char merge; /* dst is a Merge: M_MERGE, or M_FROM_ENTER when the source is an Enter */
  unsigned char plain_last; /* a last data edge into a node other than a Merge: deliver's fast path */
} cf_edge;

struct tfc_cf_plan {
  int n_items;
  cf_item *items;
  cf_hot *hot; /* per item */
  cf_frame_info *frames;
  int n_frames;
  int *init_pending; /* per item: a fresh iteration's pending count (Merge: control in-edges) */
  cf_edge *edges; /* the executor's out-edges, in its order, with what the run loop asks */
  /* The items of each static frame: frame_items[frame_start[f] .. frame_start[f + 1]). An
   * iteration of frame f touches only their pending counts and slots, so starting and
   * releasing one costs the frame's size, not the graph's. */
  int *frame_items;
  int *frame_start;
  unsigned char *frame_dense; /* a frame with most of the graph's items: whole arrays are faster */
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

/* Whether item i runs inline (FAST_*, or 0) and, for a Merge whose value_index is consumed, its
 * index scalars (*vidx). Returns 0 or RESOURCE_EXHAUSTED. */
static int fast_kind(const tfc_executor *e, int i, tfc_status *s, int *fast, tfc_tensor ***vidx,
                     tfc_tensor **value) {
  const exec_item *it = &e->items[i];
  *fast = 0;
  *vidx = NULL;
  *value = NULL;
  if (it->n_deref || it->async) return TFC_OK;
  switch (it->node->op->id) {
    case TFC_OP_Const: {
      /* the CPU kernel's work; a value of another dtype is left to the kernel's checks */
      const tfc_attr_value *v = tfc_node_attr(it->node, "value");
      if (strcmp(e->device->type, "CPU") == 0 && it->n_inputs == 0 && it->n_outputs == 1 && v &&
          v->kind == TFC_ATTR_TENSOR && v->u.tensor &&
          v->u.tensor->dtype == tfc_dtype_base(it->node->output_types[0])) {
        *value = v->u.tensor;
        *fast = FAST_CONST;
      }
      return TFC_OK;
    }
    case TFC_OP_Enter: case TFC_OP_RefEnter: case TFC_OP_Exit: case TFC_OP_RefExit:
    case TFC_OP_NextIteration: case TFC_OP_RefNextIteration: case TFC_OP_LoopCond: case TFC_OP_Identity:
      if (it->n_inputs == 1 && it->n_outputs == 1) *fast = FAST_PASS;
      return TFC_OK;
    case TFC_OP_Switch: case TFC_OP_RefSwitch:
      *fast = FAST_SWITCH;
      return TFC_OK;
    case TFC_OP_Merge: case TFC_OP_RefMerge:
      break;
    default:
      if (it->kernel->compute_scalar && it->n_outputs == 1 && strcmp(e->device->type, "CPU") == 0)
        *fast = FAST_SCALAR;
      return TFC_OK;
  }
  if (it->n_outputs < 2 || it->consumers[1] == 0) {
    *fast = FAST_MERGE;
    return TFC_OK;
  }
  /* value_index is a host tensor; elsewhere than on a CPU the kernel makes it */
  if (strcmp(e->device->type, "CPU") != 0) return TFC_OK;
  tfc_tensor **v = calloc((size_t)it->n_inputs, sizeof *v);
  if (!v) return TFC_OOM(s);
  *vidx = v;
  for (int k = 0; k < it->n_inputs; k++) {
    if (!(v[k] = tfc_tensor_new(TFC_DT_INT32, NULL, 0, s))) return s->code;
    *(int32_t *)v[k]->data = k;
  }
  *fast = FAST_MERGE;
  return TFC_OK;
}

void tfc_cf_plan_free(tfc_cf_plan *p) {
  if (!p) return;
  for (int i = 0; i < p->n_frames; i++) free(p->frames[i].name);
  for (int i = 0; p->items && i < p->n_items; i++) {
    for (int k = 0; p->items[i].value_index && k < p->items[i].n_data; k++) tfc_tensor_unref(p->items[i].value_index[k]);
    free(p->items[i].value_index);
  }
  free(p->frames);
  free(p->items);
  free(p->hot);
  free(p->init_pending);
  free(p->edges);
  free(p->frame_items);
  free(p->frame_start);
  free(p->frame_dense);
  free(p);
}

static int frame_id(tfc_cf_plan *p, const char *name, int parent, tfc_status *s) {
  for (int i = 1; i < p->n_frames; i++)
    if (strcmp(p->frames[i].name, name) == 0) return i;
  cf_frame_info *nf = realloc(p->frames, sizeof *nf * (size_t)(p->n_frames + 1));
  if (!nf) return -TFC_OOM(s);
  p->frames = nf;
  nf[p->n_frames] = (cf_frame_info){.name = strdup(name), .name_hash = tfc_hash_bytes(name, strlen(name)),
                                     .parent = parent};
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
      !(p->hot = calloc((size_t)e->n_items, sizeof *p->hot)) ||
      !(p->init_pending = calloc((size_t)e->n_items, sizeof(int))) || !(p->frames = calloc(1, sizeof *p->frames)) ||
      !(p->frames[0].name = strdup(""))) {
    free(queue);
    tfc_cf_plan_free(p);
    return TFC_OOM(s);
  }
  p->n_frames = 1;
  p->frames[0].parent = -1;
  p->n_items = e->n_items;
  int n_edges = 0;
  for (int i = 0; i < e->n_items; i++) n_edges += e->items[i].n_edges;
  if (!(p->edges = calloc((size_t)n_edges + 1, sizeof *p->edges))) {
    free(queue);
    tfc_cf_plan_free(p);
    return TFC_OOM(s);
  }
  for (int i = 0; i < e->n_items; i++) {
    const exec_item *it = &e->items[i];
    int seen_small[8], *seen = it->n_outputs <= 8 ? seen_small : calloc((size_t)it->n_outputs, sizeof(int));
    if (!seen) {
      free(queue);
      tfc_cf_plan_free(p);
      return TFC_OOM(s);
    }
    for (int j = 0; j < it->n_outputs; j++) seen[j] = 0;
    for (int k = it->n_edges - 1; k >= 0; k--) {
      const exec_edge *ed = &e->edges[it->edge_start + k];
      cf_edge *ce = &p->edges[it->edge_start + k];
      *ce = (cf_edge){.dst = ed->dst, .slot = ed->dst_slot, .src_output = ed->src_output,
                      .merge = kind_of(e->items[ed->dst].node->op->id) != K_MERGE ? 0
                               : kind_of(it->node->op->id) == K_ENTER ? M_FROM_ENTER
                                                                       : M_MERGE};
      if (ed->dst_slot >= 0 && !seen[ed->src_output]) {
        seen[ed->src_output] = 1;
        ce->last = 1;
        ce->plain_last = !ce->merge;
      }
    }
    if (seen != seen_small) free(seen);
  }
  for (int i = 0; i < e->n_items; i++) {
    cf_item *ci = &p->items[i];
    int k = kind_of(e->items[i].node->op->id);
    ci->kind = k < 0 ? K_NORMAL : k;
    ci->plain = ci->kind != K_ENTER && ci->kind != K_EXIT && ci->kind != K_NEXT;
    ci->frame = -1;
    ci->n_data = e->items[i].n_inputs;
    ci->n_ctrl = e->items[i].node->n_control_inputs;
    int op = e->items[i].node->op->id;
    ci->xfer = op == TFC_OP__Send || op == TFC_OP__HostSend ? X_SEND : op == TFC_OP__Recv || op == TFC_OP__HostRecv ? X_RECV : 0;
    p->init_pending[i] = ci->kind == K_MERGE ? ci->n_ctrl : ci->n_data + ci->n_ctrl;
    if (fast_kind(e, i, s, &ci->fast, &ci->value_index, &ci->value)) {
      free(queue);
      tfc_cf_plan_free(p);
      return s->code;
    }
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
    const exec_item *it = &e->items[i];
    p->hot[i] = (cf_hot){.input_start = it->input_start, .edge_start = it->edge_start, .n_edges = it->n_edges,
                         .n_inputs = it->n_inputs, .n_outputs = it->n_outputs, .kind = (unsigned char)ci->kind,
                         .fast = (unsigned char)ci->fast, .plain = (unsigned char)ci->plain,
                         .xfer = (unsigned char)ci->xfer, .kernel = it->kernel};
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
  int *cursor = NULL;
  if (r == TFC_OK && (!(p->frame_items = malloc(sizeof(int) * (size_t)(e->n_items + 1))) ||
                      !(p->frame_start = calloc((size_t)p->n_frames + 1, sizeof(int))) ||
                      !(p->frame_dense = calloc((size_t)p->n_frames, 1)) ||
                      !(cursor = malloc(sizeof(int) * (size_t)p->n_frames))))
    r = TFC_OOM(s);
  if (r != TFC_OK) {
    free(cursor);
    tfc_cf_plan_free(p);
    return r;
  }
  for (int i = 0; i < e->n_items; i++) {
    if (p->items[i].frame < 0) p->items[i].frame = 0; /* never reached: counted with the root */
    p->frame_start[p->items[i].frame + 1]++;
  }
  for (int f = 0; f < p->n_frames; f++) {
    p->frame_start[f + 1] += p->frame_start[f];
    cursor[f] = p->frame_start[f];
  }
  for (int i = 0; i < e->n_items; i++) p->frame_items[cursor[p->items[i].frame]++] = i;
  free(cursor);
  for (int f = 0; f < p->n_frames; f++) p->frame_dense[f] = 2 * (p->frame_start[f + 1] - p->frame_start[f]) > e->n_items;
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
  uint64_t id; /* the instance's id for rendezvous keys (frame_instance_id) */
  struct frame_state *parent;
  int64_t parent_iter;
  int max_par;
  int ring_mask; /* ring size - 1: a power of two > max_par */
  int pending_inputs; /* Enters still to fire */
  int64_t iter_count; /* newest iteration */
  int64_t oldest;     /* oldest iteration still alive */
  int outstanding_iters;
  iter_state **ring;
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
  iter_state *is; /* alive while the task is outstanding in it */
} task;

typedef struct cf_step cf_step;

/* An async kernel in flight, or a synchronous one on the inter-op pool. c comes first: done(c)
 * finds the rest. */
typedef struct cf_call {
  tfc_kernel_ctx c;
  cf_step *st;
  task t;
  int dead;         /* the node itself was dead (a transfer node runs anyway) */
  int on_pool;      /* a synchronous kernel run on the inter-op pool */
  atomic_int phase; /* 0, then 1 once compute_async returned or done ran: the second continues */
  tfc_status ks;
  struct cf_call *next; /* the step's inbox */
  tfc_tensor *outs[];
} cf_call;

struct cf_step {
  tfc_executor *ex;
  tfc_cf_plan *p;
  const tfc_exec_args *args;
  tfc_exec_done done;
  void *done_arg;
  task *work;
  int n_work, cap_work;
  frame_state *live;
  iter_state *free_iters; /* released iteration states, reused by iter_new */
  int failed;
  int n_async; /* calls (async kernels, pool kernels) started and not yet ended here (owner only) */
  tfc_status status;
  /* Shared with the async kernels' callbacks, under mu. */
  pthread_mutex_t mu;
  cf_call *inbox;    /* finished async kernels, not yet handed on */
  int running;       /* a thread owns the run loop */
  atomic_int has_inbox; /* inbox != NULL, read without the lock between nodes */
  cf_step *next_queued; /* the per-thread resume queue */
};

/* A frame instance's id, for rendezvous keys "<frame_id>:<iter_id>": the frame name's
 * FNV-1a 64 hash (tfc_hash_bytes, in the plan), combined with the parent instance's id and the
 * parent iteration through the splitmix64 finalizer. A pure function of (parent id, parent
 * iteration, frame name), so every executor of a step, in this process or another, derives the
 * same id for the same loop instance and a _Send's key matches its _Recv's. The root frame is
 * 0; an instance is never 0. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t frame_instance_id(uint64_t parent_id, int64_t parent_iter, uint64_t name_hash) {
  uint64_t h = mix64(mix64(name_hash ^ parent_id) ^ (uint64_t)parent_iter);
  return h ? h : 1;
}

/* Iteration-state blocks made and not yet freed, process-wide (frame.h). */
static atomic_llong iter_states_made, iter_states_live;

int64_t tfc_cf_iter_states_made(void) { return atomic_load(&iter_states_made); }
int64_t tfc_cf_iter_states_live(void) { return atomic_load(&iter_states_live); }

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

/* A reference given up (NULL is fine), inline for the common NULL. */
static inline void drop(tfc_tensor **t) {
  if (*t) {
    tfc_tensor_unref(*t);
    *t = NULL;
  }
}

/* A fresh iteration state of static frame sid: one block (state, slots, pending, dead, flags
 * for every item), taken from the step's free list when one is there (its slots are all NULL
 * then); the frame's items are made ready for the iteration. */
static iter_state *iter_new(cf_step *st, int sid, int64_t id) {
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
    atomic_fetch_add_explicit(&iter_states_made, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&iter_states_live, 1, memory_order_relaxed);
    it->slots = (tfc_tensor **)((char *)it + slots_off);
    it->pending = (int *)((char *)it + pending_off);
    it->dead = (int *)((char *)it + dead_off);
    it->flags = (unsigned char *)it + flags_off;
  }
  it->id = id;
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  it->next_free = NULL;
  const tfc_cf_plan *p = st->p;
  if (p->frame_dense[sid]) {
    memcpy(it->pending, p->init_pending, sizeof(int) * n);
    memset(it->dead, 0, sizeof(int) * n + n); /* dead and flags, adjacent */
    return it;
  }
  for (int k = p->frame_start[sid]; k < p->frame_start[sid + 1]; k++) {
    int i = p->frame_items[k];
    it->pending[i] = p->init_pending[i];
    it->dead[i] = 0;
    it->flags[i] = 0;
  }
  return it;
}

/* Releases what iteration `it` of static frame sid still holds (inputs of its frame's nodes
 * that never ran) and puts it on the step's free list. */
static void iter_release(cf_step *st, int sid, iter_state *it) {
  if (!it) return;
  const tfc_cf_plan *p = st->p;
  if (p->frame_dense[sid]) {
    /* Usually every node ran and took its inputs: a branch-free look first. */
    tfc_tensor *const *sl = it->slots;
    int n = st->ex->n_slots, k = 0;
    uintptr_t any = 0;
    for (; k + 4 <= n; k += 4) /* four slots a turn: a quarter of the loop's own work */
      any |= ((uintptr_t)sl[k] | (uintptr_t)sl[k + 1]) | ((uintptr_t)sl[k + 2] | (uintptr_t)sl[k + 3]);
    for (; k < n; k++) any |= (uintptr_t)sl[k];
    for (k = 0; any && k < n; k++) drop(&it->slots[k]);
  } else {
    for (int k = p->frame_start[sid]; k < p->frame_start[sid + 1]; k++) {
      const exec_item *x = &st->ex->items[p->frame_items[k]];
      for (int j = 0; j < x->n_inputs; j++) drop(&it->slots[x->input_start + j]);
    }
  }
  it->next_free = st->free_iters;
  st->free_iters = it;
}

static inline iter_state *iter_at(frame_state *f, int64_t id) { return f->ring[id & f->ring_mask]; }

static frame_state *frame_new(cf_step *st, int sid, frame_state *parent, int64_t parent_iter, int max_par) {
  frame_state *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->sid = sid;
  f->id = parent ? frame_instance_id(parent->id, parent_iter, st->p->frames[sid].name_hash) : 0;
  f->parent = parent;
  f->parent_iter = parent_iter;
  f->max_par = max_par;
  int ring = 1;
  while (ring <= max_par) ring *= 2;
  f->ring_mask = ring - 1;
  f->pending_inputs = st->p->frames[sid].n_enters;
  f->outstanding_iters = 1;
  f->ring = calloc((size_t)ring, sizeof *f->ring);
  if (!f->ring || !(f->ring[0] = iter_new(st, sid, 0))) {
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
  for (int i = 0; i <= f->ring_mask; i++) iter_release(st, f->sid, f->ring[i]);
  for (int i = 0; i < f->n_next; i++) tfc_tensor_unref(f->next_roots[i].t);
  for (int i = 0; i < f->n_inv; i++) tfc_tensor_unref(f->inv[i].t);
  free(f->ring); free(f->next_roots); free(f->inv); free(f->dead_exits); free(f);
}

static inline void push_ready(cf_step *st, int item, frame_state *f, iter_state *is) {
  if (st->n_work == st->cap_work && grow_to((void **)&st->work, &st->cap_work, st->n_work + 1, sizeof(task))) {
    fail_oom(st);
    return;
  }
  is->outstanding_ops++;
  st->work[st->n_work++] = (task){item, f, is};
}


/* One arrival at Merge dst's input slot `slot` (-1: control edge) in (f, is); t is taken
 * (NULL: dead). `from_enter` marks an arrival from an Enter (a dead one kills a Merge at
 * once). */
static void arrive_merge(cf_step *st, int dst, int slot, tfc_tensor *t, int dead, int from_enter, frame_state *f,
                         iter_state *is) {
  const cf_item *ci = &st->p->items[dst];
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

/* A loop's Exit that became ready dead in (f, is) while another task of `is` is outstanding
 * (so its end, not this, lets the iteration go): what its task would do, done now without
 * one (once per iteration of every while_loop). Kept when `is` is the newest iteration, to be
 * delivered when the frame ends; its inputs are released. Returns 0 (nothing done) for any
 * other node, in the root frame, or after a failure: the caller queues it as usual. */
static int dead_exit_now(cf_step *st, int i, frame_state *f, iter_state *is) {
  const cf_hot *h = &st->p->hot[i];
  if (h->kind != K_EXIT || !f->parent || st->failed || is->outstanding_ops == 0) return 0;
  if (is->id == f->iter_count) {
    if (grow_to((void **)&f->dead_exits, &f->cap_dead_exits, f->n_dead_exits + 1, sizeof(int))) fail_oom(st);
    else f->dead_exits[f->n_dead_exits++] = i;
  }
  tfc_tensor **in = is->slots + h->input_start;
  for (int j = 0; j < h->n_inputs; j++) drop(&in[j]);
  return 1;
}

/* Delivers item src's outputs (outs[j] NULL: dead; dead: the node was dead) along its
 * out-edges into (f, is). With `take`, the last data edge of each output takes outs[j]'s
 * reference (outs[j] becomes NULL); otherwise every edge gets a new reference. */
static inline __attribute__((always_inline)) void deliver_edge(cf_step *st, const cf_edge *ed, tfc_tensor **outs,
                                                               int dead, int take, frame_state *f, iter_state *is) {
  int dst = ed->dst, d = dead;
  tfc_tensor *t = NULL;
  if (ed->slot >= 0) {
    if (!dead && (t = outs[ed->src_output]) != NULL) {
      if (take && ed->last) outs[ed->src_output] = NULL;
      else tfc_tensor_ref(t);
    } else {
      d = 1;
    }
    if (!ed->merge) is->slots[ed->slot] = t;
  }
  if (ed->merge) {
    arrive_merge(st, dst, ed->slot, t, d, ed->merge == M_FROM_ENTER, f, is);
  } else if (!d) {
    if (--is->pending[dst] == 0) push_ready(st, dst, f, is);
  } else {
    is->dead[dst]++;
    if (--is->pending[dst] == 0 && !dead_exit_now(st, dst, f, is)) push_ready(st, dst, f, is);
  }
}

static inline __attribute__((always_inline)) void deliver(cf_step *st, int src, tfc_tensor **outs, int dead,
                                                          int take, frame_state *f, iter_state *is) {
  const cf_hot *h = &st->p->hot[src];
  const cf_edge *ed = st->p->edges + h->edge_start, *end = ed + h->n_edges;
  if (dead || !take) {
    for (; ed < end; ed++) deliver_edge(st, ed, outs, dead, take, f, is);
    return;
  }
  /* A live node handing its outputs on: most edges are the last of their output into an
   * ordinary node, which takes the reference. */
  tfc_tensor **slots = is->slots;
  int *pending = is->pending;
  for (; ed < end; ed++) {
    tfc_tensor *t;
    if (ed->plain_last && (t = outs[ed->src_output]) != NULL) {
      outs[ed->src_output] = NULL;
      slots[ed->slot] = t;
      if (--pending[ed->dst] == 0) push_ready(st, ed->dst, f, is);
    } else {
      deliver_edge(st, ed, outs, 0, 1, f, is);
    }
  }
}

static frame_state *child_frame(cf_step *st, frame_state *f, iter_state *is, int sid, int par) {
  for (frame_state *c = st->live; c; c = c->next_live)
    if (c->parent == f && c->parent_iter == is->id && c->sid == sid) return c;
  frame_state *c = frame_new(st, sid, f, is->id, par);
  if (!c) { fail_oom(st); return NULL; }
  is->outstanding_frames++;
  return c;
}

/* Starts iteration iter_count + 1 of f: gives it the frame's invariants. */
static iter_state *next_iteration(cf_step *st, frame_state *f) {
  int64_t id = f->iter_count + 1;
  iter_state *is = iter_new(st, f->sid, id);
  if (!is) { fail_oom(st); return NULL; }
  f->ring[id & f->ring_mask] = is;
  f->iter_count = id;
  f->outstanding_iters++;
  f->n_dead_exits = 0;
  for (int k = 0; k < f->n_inv; k++) deliver(st, f->inv[k].item, &f->inv[k].t, 0, 0, f, is);
  return is;
}

/* Frees the done iterations of f, oldest first, and f itself when it is done. */
static void cleanup(cf_step *st, frame_state *f) {
  if (!f->parent) return; /* the root frame lives as long as the step */
  while (f->outstanding_iters > 0) {
    iter_state *is = iter_at(f, f->oldest);
    if (!is || is->outstanding_ops || is->outstanding_frames || (f->oldest == 0 && f->pending_inputs)) break;
    iter_release(st, f->sid, is);
    f->ring[f->oldest & f->ring_mask] = NULL;
    f->oldest++;
    f->outstanding_iters--;
    if (f->n_next && !st->failed) { /* a parked NextIteration may start its iteration now */
      iter_state *n = next_iteration(st, f);
      if (!n) return;
      for (int k = 0; k < f->n_next; k++) deliver(st, f->next_roots[k].item, &f->next_roots[k].t, 0, 1, f, n);
      for (int k = 0; k < f->n_next; k++) tfc_tensor_unref(f->next_roots[k].t);
      f->n_next = 0;
    }
  }
  if (f->pending_inputs || f->outstanding_iters) return;
  frame_state *parent = f->parent;
  iter_state *pis = iter_at(parent, f->parent_iter);
  for (int k = 0; k < f->n_dead_exits && !st->failed; k++) deliver(st, f->dead_exits[k], NULL, 1, 0, parent, pis);
  frame_free(st, f);
  pis->outstanding_frames--;
  cleanup(st, parent);
}

/* Hands on what item i (in f, iteration is) produced; takes outs' references (what is left in
 * outs afterwards is the caller's to release). */
static void propagate(cf_step *st, int i, tfc_tensor **outs, int dead, frame_state *f, iter_state *is) {
  const cf_item *ci = &st->p->items[i];
  switch (ci->kind) {
    case K_ENTER: {
      frame_state *c = child_frame(st, f, is, ci->child, ci->par);
      if (!c) break;
      if (!dead && ci->is_constant) {
        if (grow_to((void **)&c->inv, &c->cap_inv, c->n_inv + 1, sizeof(parked))) { fail_oom(st); break; }
        c->inv[c->n_inv++] = (parked){i, tfc_tensor_ref(outs[0])};
        for (int64_t k = c->oldest; k <= c->iter_count; k++) deliver(st, i, outs, 0, 0, c, iter_at(c, k));
      } else {
        deliver(st, i, outs, dead, 1, c, iter_at(c, 0));
      }
      c->pending_inputs--;
      cleanup(st, c);
      break;
    }
    case K_EXIT:
      if (!f->parent) {
        deliver(st, i, outs, dead, 1, f, is);
      } else if (!dead) {
        deliver(st, i, outs, 0, 1, f->parent, iter_at(f->parent, f->parent_iter));
      } else if (is->id == f->iter_count) {
        if (grow_to((void **)&f->dead_exits, &f->cap_dead_exits, f->n_dead_exits + 1, sizeof(int))) fail_oom(st);
        else f->dead_exits[f->n_dead_exits++] = i;
      }
      break;
    case K_NEXT:
      if (dead) break;
      if (is->id == f->iter_count && f->outstanding_iters == f->max_par) {
        if (grow_to((void **)&f->next_roots, &f->cap_next, f->n_next + 1, sizeof(parked))) { fail_oom(st); break; }
        f->next_roots[f->n_next++] = (parked){i, outs[0]};
        outs[0] = NULL;
      } else {
        iter_state *n = is->id == f->iter_count ? next_iteration(st, f) : iter_at(f, is->id + 1);
        if (n) deliver(st, i, outs, 0, 1, f, n);
      }
      break;
    default:
      deliver(st, i, outs, dead, 1, f, is);
  }
}

/* Checks what item i's kernel produced (its status ks). Returns 0 or the error code (in ks). */
static inline int check_outputs(cf_step *st, int i, tfc_tensor **outs, int output_dead, tfc_status *ks) {
  const exec_item *it = &st->ex->items[i];
  if (!tfc_status_ok(ks)) return ks->code;
  const cf_item *ci = &st->p->items[i];
  for (int j = 0; j < it->n_outputs; j++) {
    if (!outs[j] && ci->kind != K_SWITCH && ci->xfer != X_RECV)
      return tfc_status_set(ks, TFC_INTERNAL, "Missing %d-th output from {{node %s}}", j, it->node->name);
    if (outs[j] && output_dead) { /* a dead _Recv: nothing it set counts */
      tfc_tensor_unref(outs[j]);
      outs[j] = NULL;
    }
    if (outs[j] && outs[j]->dtype != tfc_dtype_base(it->node->output_types[j]))
      return tfc_status_set(ks, TFC_INTERNAL, "kernel for %s produced %s for output %d, expected %s",
                            it->node->op->name, tfc_dtype_name(outs[j]->dtype), j,
                            tfc_dtype_name(it->node->output_types[j]));
  }
  return TFC_OK;
}

/* Ends task t: on OK status (ks NULL or OK) hands on what it produced (outs, NULL only on an
 * error; dead: the node was dead), releases its inputs and what is left of its outputs, and
 * lets its iteration go. On an error the step fails. */
static inline void task_end(cf_step *st, task t, tfc_tensor **outs, int dead, tfc_status *ks) {
  const cf_hot *h = &st->p->hot[t.item];
  iter_state *is = t.is;
  if (ks && !tfc_status_ok(ks) && !st->failed) {
    tfc_exec_node_error(st->ex, st->args->rendezvous, &st->ex->items[t.item], ks, &st->status);
    st->failed = 1;
  }
  if (!st->failed) {
    if (h->plain) deliver(st, t.item, outs, dead, 1, t.f, is);
    else propagate(st, t.item, outs, dead, t.f, is);
  }
  for (int j = 0; outs && j < h->n_outputs; j++) drop(&outs[j]);
  tfc_tensor **in = is->slots + h->input_start;
  for (int j = 0; j < h->n_inputs; j++) drop(&in[j]);
  if (--is->outstanding_ops == 0 && !st->failed) cleanup(st, t.f);
}

static void resume(cf_step *st);
static void resume_entry(void *arg);

/* Hands a finished async call on (on the owner's thread). Frees it. */
static void call_end(cf_step *st, cf_call *a) {
  st->n_async--;
  check_outputs(st, a->t.item, a->outs, a->c.is_output_dead, &a->ks);
  task_end(st, a->t, a->outs, a->dead, &a->ks);
  tfc_status_fini(&a->ks);
  free(a);
}

/* The kernel's done: the owner continues it at once when it is still inside compute_async;
 * otherwise the call goes to the step's inbox, and a step whose run loop had stopped (nothing
 * else to run) is resumed. */
static void call_done(tfc_kernel_ctx *c) {
  cf_call *a = (cf_call *)c;
  if (atomic_exchange(&a->phase, 1) == 0) return;
  cf_step *st = a->st;
  pthread_mutex_lock(&st->mu);
  a->next = st->inbox;
  st->inbox = a;
  atomic_store_explicit(&st->has_inbox, 1, memory_order_release);
  int wake = !st->running;
  st->running = 1;
  int on_pool = a->on_pool; /* a is the owner's once unlocked */
  pthread_mutex_unlock(&st->mu);
  if (!wake) return;
  if (on_pool) resume_entry(st); /* this pool thread's kernel is done: it continues the step */
  else resume(st);
}

/* A pool thread: runs the kernel of call a and hands it to the step. */
static void pool_run(void *arg) {
  cf_call *a = arg;
  const exec_item *it = &a->st->ex->items[a->t.item];
  if (it->n_deref == 0 || tfc_exec_deref_inputs(it, a->c.inputs, &a->ks) == TFC_OK) it->kernel->compute(&a->c);
  call_done(&a->c);
}

/* Hands live task t, an expensive kernel, to the inter-op pool so that the run loop goes on
 * with other ready nodes (other iterations' among them). Returns 0, or -1 when it could not
 * (the caller runs it here). */
static int start_on_pool(cf_step *st, task t) {
  const exec_item *it = &st->ex->items[t.item];
  cf_call *a = calloc(1, sizeof *a + sizeof(tfc_tensor *) * (size_t)it->n_outputs);
  if (!a) return -1;
  a->st = st;
  a->t = t;
  a->on_pool = 1;
  atomic_init(&a->phase, 1); /* its end always goes through the inbox */
  tfc_status_init(&a->ks);
  tfc_exec_kernel_ctx_init(&a->c, st->ex, st->args, it, t.is->slots + it->input_start, a->outs, &a->ks);
  a->c.frame_id = t.f->id;
  a->c.iter_id = t.is->id;
  st->n_async++;
  if (tfc_threadpool_schedule(st->args->inter_pool, pool_run, a) == 0) return 0;
  st->n_async--;
  tfc_status_fini(&a->ks);
  free(a);
  return -1;
}

/* Starts async item t.item (dead: the node is dead, a _Recv runs anyway). */
static void start_async(cf_step *st, task t, int dead) {
  const exec_item *it = &st->ex->items[t.item];
  cf_call *a = calloc(1, sizeof *a + sizeof(tfc_tensor *) * (size_t)it->n_outputs);
  if (!a) {
    tfc_status ks;
    tfc_status_init(&ks);
    TFC_OOM(&ks);
    task_end(st, t, NULL, dead, &ks);
    tfc_status_fini(&ks);
    return;
  }
  a->st = st;
  a->t = t;
  a->dead = dead;
  atomic_init(&a->phase, 0);
  tfc_status_init(&a->ks);
  tfc_exec_kernel_ctx_init(&a->c, st->ex, st->args, it, t.is->slots + it->input_start, a->outs, &a->ks);
  a->c.frame_id = t.f->id;
  a->c.iter_id = t.is->id;
  a->c.done = call_done;
  st->n_async++;
  if (it->n_deref && tfc_exec_deref_inputs(it, a->c.inputs, &a->ks)) {
    atomic_store(&a->phase, 1);
    call_end(st, a);
    return;
  }
  it->kernel->compute_async(&a->c);
  if (atomic_exchange(&a->phase, 1) == 0) return; /* done comes later, through the inbox */
  call_end(st, a);
}

/* Does the work of FAST_* item `item` (h) inline: moves its inputs to its outputs (outs,
 * cleared). Returns 0, or -1 when the kernel has to run instead (a Switch predicate that is
 * not a scalar bool, for the kernel's error; a compute_scalar that declines). */
static inline int run_fast(cf_step *st, int item, const cf_hot *h, tfc_tensor **in, tfc_tensor **outs) {
  switch (h->fast) {
    case FAST_PASS:
      outs[0] = in[0];
      in[0] = NULL;
      return 0;
    case FAST_SWITCH: {
      const tfc_tensor *pred = in[1];
      if (!pred || pred->ndims != 0 || pred->dtype != TFC_DT_BOOL) return -1;
      int taken = *(const uint8_t *)pred->data ? 1 : 0;
      outs[taken] = in[0];
      outs[!taken] = NULL;
      in[0] = NULL;
      return 0;
    }
    case FAST_CONST:
      outs[0] = tfc_tensor_ref(st->p->items[item].value);
      return 0;
    case FAST_SCALAR:
      return h->kernel->compute_scalar(in, outs, st->ex->device->allocator) ? -1 : 0;
    default: /* FAST_MERGE: the one live input */
      for (int k = 0; k < h->n_inputs; k++) {
        if (!in[k]) continue;
        outs[0] = in[k];
        in[k] = NULL;
        if (h->n_outputs > 1) {
          tfc_tensor **vidx = st->p->items[item].value_index;
          outs[1] = vidx ? tfc_tensor_ref(vidx[k]) : NULL;
        }
        return 0;
      }
      return -1;
  }
}

/* Runs task t (its inputs have all arrived). */
static void run_one(cf_step *st, task t) {
  const cf_hot *h = &st->p->hot[t.item];
  iter_state *is = t.is;
  tfc_tensor **in = is->slots + h->input_start;
  int dead = is->dead[t.item] > 0 && h->kind != K_TRIGGER;
  tfc_tensor *outs_small[8];
  if (h->fast && !dead) {
    outs_small[0] = outs_small[1] = NULL;
    if (run_fast(st, t.item, h, in, outs_small) == 0) {
      if (h->plain) deliver(st, t.item, outs_small, 0, 1, t.f, is);
      else propagate(st, t.item, outs_small, 0, t.f, is);
      drop(&outs_small[0]);
      if (h->n_outputs > 1) drop(&outs_small[1]);
      if (h->fast == FAST_SWITCH) {
        drop(&in[1]);
      } else if (h->fast == FAST_SCALAR) {
        for (int j = 0; j < h->n_inputs; j++) drop(&in[j]);
      }
      if (--is->outstanding_ops == 0 && !st->failed) cleanup(st, t.f);
      return;
    }
  }
  const exec_item *it = &st->ex->items[t.item];
  const cf_item *ci = &st->p->items[t.item];
  if (dead && !ci->xfer && it->n_outputs <= 8) { /* a dead node does not run: deadness goes on */
    task_end(st, t, NULL, 1, NULL);
    return;
  }
  if (it->async && (!dead || ci->xfer)) {
    start_async(st, t, dead);
    return;
  }
  /* Expensive work goes to the pool while other nodes are ready to run here. */
  if (it->expensive && !dead && st->n_work > 0 && st->args->inter_pool && tfc_exec_worth_a_thread(it, in) &&
      start_on_pool(st, t) == 0)
    return;
  tfc_tensor **outs = it->n_outputs <= 8 ? outs_small : calloc((size_t)it->n_outputs, sizeof *outs);
  tfc_status ks;
  tfc_status_init(&ks);
  if (!outs) {
    TFC_OOM(&ks);
    task_end(st, t, NULL, dead, &ks);
  } else {
    if (it->n_outputs <= 2) outs[0] = outs[1] = NULL;
    else
      for (int j = 0; j < it->n_outputs; j++) outs[j] = NULL;
    /* A dead node does not run, but a _Send does: it sends a dead token. */
    if (!dead || ci->xfer == X_SEND) {
      tfc_kernel_ctx c;
      tfc_exec_kernel_ctx_init(&c, st->ex, st->args, it, in, outs, &ks);
      c.frame_id = t.f->id;
      c.iter_id = is->id;
      c.is_input_dead = dead;
      if (it->n_deref == 0 || tfc_exec_deref_inputs(it, in, &ks) == TFC_OK) it->kernel->compute(&c);
      check_outputs(st, t.item, outs, 0, &ks);
    }
    task_end(st, t, outs, dead, &ks);
    if (outs != outs_small) free(outs);
  }
  if (ks.msg) tfc_status_fini(&ks); /* an OK status holds nothing to free */
}

/* Frees the step and reports it: nothing is running and no async kernel is in flight. */
static void step_end(cf_step *st) {
  while (st->live) frame_free(st, st->live);
  while (st->free_iters) {
    iter_state *it = st->free_iters;
    st->free_iters = it->next_free;
    free(it);
    atomic_fetch_sub_explicit(&iter_states_live, 1, memory_order_relaxed);
  }
  free(st->work);
  tfc_exec_done done = st->done;
  void *arg = st->done_arg;
  tfc_status s = st->status;
  pthread_mutex_destroy(&st->mu);
  free(st);
  done(arg, &s);
  tfc_status_fini(&s);
}

/* Hands on every async kernel finished since the last look. */
static void drain_inbox(cf_step *st) {
  pthread_mutex_lock(&st->mu);
  cf_call *a = st->inbox;
  st->inbox = NULL;
  atomic_store_explicit(&st->has_inbox, 0, memory_order_relaxed);
  pthread_mutex_unlock(&st->mu);
  while (a) {
    cf_call *next = a->next;
    call_end(st, a);
    a = next;
  }
}

/* Runs task t with a trace record (args->stats set). The control-flow path records the
 * node's time on this thread as one span: op start and end are those of the whole task, and
 * an async or pool kernel's span ends when it was started, not when it finished. */
static __attribute__((noinline)) void run_one_traced(cf_step *st, task t) {
  /* as in TF, neither dead nodes nor transfer nodes are recorded */
  int dead = t.is->dead[t.item] > 0 && st->p->hot[t.item].kind != K_TRIGGER;
  tfc_node_stats *rec = dead || st->ex->items[t.item].transfer ? NULL : tfc_step_stats_claim(st->args->stats);
  if (rec) {
    tfc_node_stats_start(rec, st->ex->items[t.item].node);
    rec->op_start_us = rec->start_us;
  }
  run_one(st, t);
  if (rec) rec->op_end_us = rec->end_us = tfc_step_stats_now_us();
}

/* The run loop, on the thread that owns the step (st->running): runs ready nodes and hands on
 * finished async kernels until there is nothing to run. Then it either ends the step (nothing
 * in flight), or gives the step up until the next async kernel finishes (call_done resumes
 * it), so a step waiting for a _Recv holds no thread. */
static void run_loop(cf_step *st) {
  tfc_rendezvous *rv = st->args->rendezvous;
  for (;;) {
    while (st->n_work > 0 && !st->failed) {
      if (atomic_load_explicit(&st->has_inbox, memory_order_acquire)) drain_inbox(st);
      if (rv && tfc_rendezvous_aborted(rv)) {
        tfc_rendezvous_status(rv, &st->status);
        st->failed = 1;
        break;
      }
      task t = st->work[--st->n_work];
      if (__builtin_expect(st->args->stats != NULL, 0)) run_one_traced(st, t);
      else run_one(st, t);
    }
    if (st->failed) st->n_work = 0; /* their inputs go with their iterations at step end */
    pthread_mutex_lock(&st->mu);
    if (st->inbox) {
      pthread_mutex_unlock(&st->mu);
      drain_inbox(st);
      continue;
    }
    if (st->n_async > 0) {
      st->running = 0;
      pthread_mutex_unlock(&st->mu);
      return;
    }
    pthread_mutex_unlock(&st->mu);
    if (st->n_work == 0) break;
  }
  step_end(st);
}

/* Steps to resume on this thread once its current run loop returns (no pool, or the pool
 * refused), so that two executors completing each other's _Recvs never nest. */
static _Thread_local cf_step *tl_queue;
static _Thread_local int tl_in_loop;

/* Runs st's loop, then every step queued on this thread meanwhile. */
static void resume_entry(void *arg) {
  cf_step *st = arg;
  int prev = tl_in_loop;
  tl_in_loop = 1;
  run_loop(st);
  while (tl_queue) {
    st = tl_queue;
    tl_queue = st->next_queued;
    run_loop(st);
  }
  tl_in_loop = prev;
}

/* Continues a step whose run loop had stopped: on the inter-op pool when there is one, else on
 * this thread (queued when this thread is inside a run loop already). */
static void resume(cf_step *st) {
  tfc_threadpool *pool = st->args->inter_pool;
  if (pool && tfc_threadpool_schedule(pool, resume_entry, st) == 0) return;
  if (tl_in_loop) {
    st->next_queued = tl_queue;
    tl_queue = st;
    return;
  }
  resume_entry(st);
}

void tfc_cf_run(tfc_executor *e, const tfc_exec_args *args, tfc_exec_done done, void *arg) {
  cf_step *st = calloc(1, sizeof *st);
  if (!st) {
    tfc_status s;
    tfc_status_init(&s);
    TFC_OOM(&s);
    done(arg, &s);
    tfc_status_fini(&s);
    return;
  }
  st->ex = e;
  st->p = e->cf;
  st->args = args;
  st->done = done;
  st->done_arg = arg;
  st->running = 1;
  atomic_init(&st->has_inbox, 0);
  pthread_mutex_init(&st->mu, NULL);
  tfc_status_init(&st->status);
  frame_state *root = frame_new(st, 0, NULL, 0, 1);
  if (!root) {
    fail_oom(st);
  } else {
    for (int k = 0; k < e->n_roots; k++) push_ready(st, e->roots[k], root, root->ring[0]);
  }
  resume_entry(st);
}
