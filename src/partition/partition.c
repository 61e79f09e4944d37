/*
 * partition — one graph per device, with every cut edge replaced by a _Send/_Recv pair
 * (tensorflow/core/graph/graph_partition.cc; the rules are in partition.h).
 *
 * One pass over the input graph in id order. Graphs are append-only and a node's inputs
 * exist when it is created, so every source has been copied (into its own partition) before
 * any of its consumers: when we reach a node we can cut each of its in-edges on the spot —
 * dummy Const and _Send appended to the source's partition, _Recv to the node's — and then
 * append the node itself with its inputs rewired. Each partition therefore stays in
 * topological order, which tfc_graph_add_raw (inputs given as node pointers) requires.
 *
 * Edge ids count the input graph's edges in that same order (per node: data inputs by slot,
 * then control inputs), which is also how TF orders the in-edges it cuts; so tensor names
 * are a pure function of the graph. New nodes are named "<src>/_<n>" from one counter per
 * call, as TF's session does with its edge_name_counter_.
 *
 * Dedup follows TF's DupRecvKey: one pair per (src node, output slot or -1 for control,
 * destination partition, recv output in host memory). A table of records chained per source
 * node keeps lookups O(edges of that source). A pair inside one partition (an edge on one
 * device whose ends disagree on host memory) has its recv run after its send, as TF's
 * EnsureMemoryTypes does: the recv then belongs to the send's frame, not the root one.
 *
 * Control flow across devices (TF's AddControlFlow; rules in partition.h). Only when the
 * graph has control-flow ops and some edge crosses devices, a first step computes every
 * node's frame (graph/control_flow.h) and moves Switch, Exit, Enter and NextIteration next to
 * their data (device overrides kept in dev_of, the input graph stays untouched). The control
 * loops are then built lazily during the same single pass: the first cut edge of frame F into
 * partition P makes F's loop on P (and, first, its enclosing frames' loops), Enter and Merge
 * at once, Switch and NextIteration as soon as F's LoopCond has been copied (its value, or
 * the _Recv of it, must exist before a node can take it as input). The new _Recv of an edge
 * inside a frame takes a control input from the loop's Merge; when the edge reuses an
 * existing _Recv, its destination takes that control input instead, as TF leaves it there.
 * Loop back edges (and each control loop's Merge input 1) are copied with a stand-in input
 * and set once every node is copied (graph.h, tfc_node_input_is_back_edge); a back edge
 * cannot cross devices (NextIteration is moved to its Merge's device).
 *
 * Differences from TF, on purpose: TF follows the _Recv of a control edge with an Identity
 * and makes the control input come from it; we make the control input come from the _Recv
 * itself (the executor treats an async node as a control source like any other). TF's
 * scheduling (_start_time) and casting (should_cast) are not implemented. A colocation
 * override is skipped when the target device has no kernel for the node (TF assumes one).
 * TF builds an inner control loop before its enclosing ones and the root Const last; we make
 * them outermost first (the partition graphs are append-only), so the "/_<n>" suffixes of
 * those nodes count in that order.
 */
#include "partition/partition.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "graph/control_flow.h"
#include "ops/attr.h"
#include "tensor/dtype.h"
#include "tensor/tensor.h"

/* One _Send/_Recv pair already made, found again by its DupRecvKey. */
typedef struct pair_rec {
  int next; /* next record of the same source node, -1 at the end */
  int slot; /* source output, -1 for a control edge */
  int dst_part;
  bool recv_host;
  tfc_node *recv;
} pair_rec;

/* The control loop of one frame on one partition (TF's ControlLoop, plus its NextIteration,
 * whose output becomes the Merge's input 1 at the end). */
typedef struct cloop {
  int frame, part;
  tfc_node *enter, *merge, *sw, *next;
  const char *base; /* "_cloop" names are made from it: the first destination's name */
} cloop;

typedef struct part_state {
  const tfc_graph *g;
  const tfc_partition_options *opts;
  tfc_partitions *out;
  int *dev_of;      /* input node id -> index in opts->devices (after colocation overrides) */
  int *part_of;     /* input node id -> partition index */
  tfc_node **copy;  /* input node id -> its copy in its partition */
  int *first_pair;  /* input node id -> first pair_rec of that source, -1 if none */
  pair_rec *pairs;
  int n_pairs, cap_pairs;
  int name_counter;
  /* Control flow across devices: set only when some frame may span partitions. */
  bool have_cf;
  tfc_cf_info cf;
  cloop *cloops;
  int n_cloops, cap_cloops;
  int next_edge_id; /* ids of the edges partitioning adds (LoopCond -> control-loop Switch) */
} part_state;

/* One cut edge: src:slot -> input `input` of dst in partition dst_part (slot and input -1
 * for control). dst is NULL for an edge into a node partitioning made (a control loop's
 * Switch). */
typedef struct cut_edge {
  const tfc_node *src, *dst;
  int dst_part;
  int slot, input;
  int id;
} cut_edge;

/* ---------------- devices and memory types ---------------- */

static int find_device(const tfc_partition_options *opts, const char *name) {
  for (int i = 0; i < opts->n_devices; i++)
    if (strcmp(opts->devices[i]->name, name) == 0) return i;
  return -1;
}

static tfc_device *device_of(const part_state *st, const tfc_node *n) {
  return st->out->parts[st->part_of[n->id]].device;
}

static bool is_cpu(const tfc_device *d) { return strcmp(d->type, "CPU") == 0; }

/* Whether flat input (or output) `index` of n lives in host memory on n's device, as TF's
 * MemoryTypesForNode decides: on a CPU device we answer no (TF uses _Send/_Recv there, all
 * its memory being host memory); on others as the kernel's row says (tfc_kernel_host_input,
 * tfc_kernel_host_output). A node without a kernel there means the placer erred: INTERNAL. */
static int in_host_memory(const part_state *st, const tfc_node *n, bool is_input, int index,
                          bool *out, tfc_status *s) {
  *out = false;
  const tfc_device *d = device_of(st, n);
  if (is_cpu(d)) return TFC_OK;
  const tfc_kernel_def *k = d->kernels ? tfc_kernel_find(d->kernels, n, NULL) : NULL;
  if (!k)
    return tfc_status_set(s, TFC_INTERNAL, "Node '%s' (%s) has no kernel on its device %s",
                          n->name, n->op->name, d->name);
  *out = is_input ? tfc_kernel_host_input(k, index, n->n_inputs, n->input_types[index])
                  : tfc_kernel_host_output(k->host_memory_out, index, n->output_types[index]);
  return TFC_OK;
}

/* ---------------- building new nodes ---------------- */

/* "<base>/_<n>", skipping names the input graph or the partition already holds, so neither a
 * later copied node nor another new node can collide with it. Caller frees. */
static char *new_name(part_state *st, const tfc_graph *part, const char *base, tfc_status *s) {
  for (;;) {
    char *name = NULL;
    if (asprintf(&name, "%s/_%d", base, st->name_counter++) < 0) {
      TFC_OOM(s);
      return NULL;
    }
    if (!tfc_graph_find(st->g, name) && !tfc_graph_find(part, name)) return name;
    free(name);
  }
}

/* Appends a node to partition p, named "<base>/_<n>", requested and assigned to p's device,
 * with output 0's shape set to *shape when the op has an output. Takes no ownership. */
static tfc_node *add_node(part_state *st, int p, const char *base, const char *op,
                          const tfc_endpoint *inputs, int n_inputs, tfc_node *control,
                          const tfc_attr *attrs, int n_attrs, const tfc_shape *shape,
                          tfc_status *s) {
  tfc_graph *pg = st->out->parts[p].graph;
  const char *device = st->out->parts[p].device->name;
  char *name = new_name(st, pg, base, s);
  if (!name) return NULL;
  tfc_node *n = tfc_graph_add_raw(pg, name, tfc_op_lookup(op), device, device, inputs, n_inputs,
                                  &control, control ? 1 : 0, attrs, n_attrs, s);
  free(name);
  if (!n) return NULL;
  if (n->n_outputs > 0) n->output_shapes[0] = *shape;
  return n;
}

/* Appends one half of e's pair to partition p: op with the attrs TF's SetSendRecvAttrs gives
 * both halves plus `type_attr` (T on the send, tensor_type on the recv) = dtype. */
static tfc_node *add_transfer(part_state *st, const cut_edge *e, int p, const char *op,
                              const char *type_attr, int dtype, const tfc_endpoint *input,
                              tfc_node *control, const tfc_shape *shape, tfc_status *s) {
  const tfc_device *send_dev = device_of(st, e->src), *recv_dev = st->out->parts[e->dst_part].device;
  char *tensor_name = NULL;
  if (asprintf(&tensor_name, "edge_%d_%s", e->id, e->src->name) < 0) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_attr_value v[6];
  memset(v, 0, sizeof v);
  int rc = tfc_attr_string(tensor_name, strlen(tensor_name), &v[0], s);
  free(tensor_name);
  if (!rc) rc = tfc_attr_string(send_dev->name, strlen(send_dev->name), &v[1], s);
  if (!rc) rc = tfc_attr_string(recv_dev->name, strlen(recv_dev->name), &v[2], s);
  /* TF stores the uint64 incarnation in an int64 attr (static_cast<int64>). */
  v[3] = tfc_attr_int((int64_t)send_dev->incarnation);
  v[4] = tfc_attr_bool(0);
  v[5] = tfc_attr_type(dtype);
  const char *names[6] = {"tensor_name", "send_device", "recv_device",
                          "send_device_incarnation", "client_terminated", type_attr};
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  for (int i = 0; i < 6; i++)
    if (!rc) rc = tfc_attrs_set(&attrs, &n_attrs, names[i], &v[i], s);
  for (int i = 0; i < 6; i++) tfc_attr_value_fini(&v[i]);
  tfc_node *n = rc ? NULL
                   : add_node(st, p, e->src->name, op, input, input ? 1 : 0, control, attrs,
                              n_attrs, shape, s);
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* An empty float Const (shape [0], as TF's AddDummyConst and EmptyConst) in partition p,
 * named "<base>/_<n>", run after `control` when not NULL. */
static tfc_node *add_empty_const(part_state *st, int p, const char *base, tfc_node *control,
                                 tfc_status *s) {
  int64_t zero = 0;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, &zero, 1, s);
  if (!t) return NULL;
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  tfc_attr_value v = tfc_attr_tensor(t);
  int rc = tfc_attrs_set(&attrs, &n_attrs, "value", &v, s);
  v = tfc_attr_type(TFC_DT_FLOAT);
  if (!rc) rc = tfc_attrs_set(&attrs, &n_attrs, "dtype", &v, s);
  tfc_shape shape = tfc_shape_vector(0);
  tfc_node *n = rc ? NULL : add_node(st, p, base, "Const", NULL, 0, control, attrs, n_attrs, &shape, s);
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* The dummy TF sends for a control edge: an empty Const on src's device, run after src. */
static tfc_node *add_dummy_const(part_state *st, const tfc_node *src, tfc_status *s) {
  return add_empty_const(st, st->part_of[src->id], src->name, st->copy[src->id], s);
}

/* Makes the pair for e: (dummy and) send in src's partition, recv in dst's, the recv run
 * after `control` when not NULL. */
static tfc_node *add_pair(part_state *st, const cut_edge *e, bool send_host, bool recv_host,
                          tfc_node *control, tfc_status *s) {
  const tfc_node *src = e->src;
  tfc_endpoint from = {st->copy[src->id], e->slot};
  int dtype = TFC_DT_FLOAT;
  tfc_shape shape = tfc_shape_vector(0);
  if (e->slot < 0) {
    if (!(from.node = add_dummy_const(st, src, s))) return NULL;
    from.index = 0;
  } else {
    dtype = tfc_dtype_base(src->output_types[e->slot]);
    shape = src->output_shapes[e->slot];
  }
  tfc_node *send = add_transfer(st, e, st->part_of[src->id], send_host ? "_HostSend" : "_Send", "T", dtype,
                                &from, NULL, NULL, s);
  if (!send) return NULL;
  /* A pair inside one partition (a host-memory mismatch on one device): the recv runs after
   * the send, as TF's EnsureMemoryTypes has it, so that it is in the send's frame (a recv with
   * no input would be in the root frame, outside the loop its value belongs to). */
  if (st->part_of[src->id] == e->dst_part && !control) control = send;
  return add_transfer(st, e, e->dst_part, recv_host ? "_HostRecv" : "_Recv", "tensor_type", dtype,
                      NULL, control, &shape, s);
}

/* ---------------- cutting edges ---------------- */

/* The node in dst's partition that stands for src:slot across e: the existing recv of a
 * matching pair, or a new pair's recv, which runs after `control` when not NULL
 * (*out_used then says so). */
static tfc_node *recv_for(part_state *st, const cut_edge *e, bool send_host, bool recv_host,
                          tfc_node *control, bool *out_used, tfc_status *s) {
  int dst_part = e->dst_part;
  *out_used = false;
  for (int r = st->first_pair[e->src->id]; r >= 0; r = st->pairs[r].next) {
    const pair_rec *pr = &st->pairs[r];
    if (pr->slot == e->slot && pr->dst_part == dst_part && pr->recv_host == recv_host)
      return pr->recv;
  }
  if (st->n_pairs == st->cap_pairs) {
    int cap = st->cap_pairs ? 2 * st->cap_pairs : 16;
    pair_rec *p = realloc(st->pairs, sizeof *p * (size_t)cap);
    if (!p) {
      TFC_OOM(s);
      return NULL;
    }
    st->pairs = p;
    st->cap_pairs = cap;
  }
  tfc_node *recv = add_pair(st, e, send_host, recv_host, control, s);
  if (!recv) return NULL;
  *out_used = control != NULL;
  st->pairs[st->n_pairs] =
      (pair_rec){st->first_pair[e->src->id], e->slot, dst_part, recv_host, recv};
  st->first_pair[e->src->id] = st->n_pairs++;
  return recv;
}

/* ---------------- control loops ---------------- */

/* Builds attrs from parallel name/value arrays (the values are consumed). */
static int make_attrs(const char *const *names, tfc_attr_value *v, int n, tfc_attr **attrs, int *n_attrs,
                      tfc_status *s) {
  int rc = TFC_OK;
  for (int i = 0; i < n; i++) {
    if (!rc) rc = tfc_attrs_set(attrs, n_attrs, names[i], &v[i], s);
    tfc_attr_value_fini(&v[i]);
  }
  return rc;
}

/* Appends a float control-loop node: op(inputs) in partition p named "_cloop<base>/_<n>". */
static tfc_node *add_cloop_node(part_state *st, int p, const char *base, const char *op, const tfc_endpoint *in,
                                int n_in, const cloop *c, tfc_status *s) {
  tfc_attr_value v[4];
  const char *names[4] = {"T", "N", "frame_name", "parallel_iterations"};
  int n = 1;
  memset(v, 0, sizeof v);
  v[0] = tfc_attr_type(TFC_DT_FLOAT);
  if (strcmp(op, "Merge") == 0) {
    v[n++] = tfc_attr_int(n_in);
  } else if (strcmp(op, "Enter") == 0) {
    const tfc_cf_frame *f = &st->cf.frames[c->frame];
    names[1] = "frame_name";
    names[2] = "is_constant";
    names[3] = "parallel_iterations";
    if (tfc_attr_string(f->name, strlen(f->name), &v[1], s)) return NULL;
    v[2] = tfc_attr_bool(0);
    v[3] = tfc_attr_int(f->parallel_iterations);
    n = 4;
  }
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  char *cbase = NULL;
  tfc_node *node = NULL;
  if (make_attrs(names, v, n, &attrs, &n_attrs, s) == TFC_OK) {
    if (asprintf(&cbase, "_cloop%s", base) < 0) {
      cbase = NULL;
      TFC_OOM(s);
    } else {
      tfc_shape empty = tfc_shape_vector(0);
      node = add_node(st, p, cbase, op, in, n_in, NULL, attrs, n_attrs, &empty, s);
      if (node && node->n_outputs > 1)
        node->output_shapes[1] = strcmp(op, "Merge") == 0 ? tfc_shape_scalar() : empty;
    }
  }
  free(cbase);
  tfc_attrs_free(attrs, n_attrs);
  return node;
}

/* Adds Switch(Merge, pred) and NextIteration(Switch:1) to control loop ci, once its frame's
 * LoopCond has been copied. The predicate crosses to the loop's partition like any cut edge
 * inside the frame: its recv runs after the loop's Merge, once per iteration. */
static int cloop_finish(part_state *st, int ci, tfc_status *s) {
  cloop *c = &st->cloops[ci];
  const tfc_node *lc = st->cf.frames[c->frame].loop_cond;
  tfc_endpoint in[2] = {{c->merge, 0}, {st->copy[lc->id], 0}};
  if (st->part_of[lc->id] != c->part) {
    cut_edge e = {lc, NULL, c->part, 0, 1, st->next_edge_id++};
    bool send_host = false, used;
    TFC_TRY(in_host_memory(st, lc, false, 0, &send_host, s));
    in[1].node = recv_for(st, &e, send_host, false, c->merge, &used, s);
    if (!in[1].node) return s->code;
  }
  if (!(c->sw = add_cloop_node(st, c->part, c->base, "Switch", in, 2, c, s))) return s->code;
  tfc_endpoint t = {c->sw, 1};
  return (c->next = add_cloop_node(st, c->part, c->base, "NextIteration", &t, 1, c, s)) ? TFC_OK : s->code;
}

/* The control loop of `frame` on partition p (index in st->cloops), made with those of its
 * enclosing frames when missing: Enter(outer loop's Merge, or an empty root Const) ->
 * Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) -> NextIteration. */
static int cloop_get(part_state *st, int frame, int p, const char *base, int *out, tfc_status *s) {
  for (int i = 0; i < st->n_cloops; i++)
    if (st->cloops[i].frame == frame && st->cloops[i].part == p) {
      *out = i;
      return TFC_OK;
    }
  const tfc_cf_frame *f = &st->cf.frames[frame];
  if (!f->loop_cond)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "A cross-device loop must have a pivot predicate: %s", f->name);
  tfc_endpoint in = {NULL, 0};
  if (f->parent > 0) {
    int outer;
    TFC_TRY(cloop_get(st, f->parent, p, base, &outer, s));
    in.node = st->cloops[outer].merge;
  } else if (!(in.node = add_empty_const(st, p, base, NULL, s))) {
    return s->code;
  }
  if (st->n_cloops == st->cap_cloops) {
    int cap = st->cap_cloops ? 2 * st->cap_cloops : 8;
    cloop *c = realloc(st->cloops, sizeof *c * (size_t)cap);
    if (!c) return TFC_OOM(s);
    st->cloops = c;
    st->cap_cloops = cap;
  }
  int ci = st->n_cloops;
  cloop *c = &st->cloops[ci];
  *c = (cloop){.frame = frame, .part = p, .base = base};
  if (!(c->enter = add_cloop_node(st, p, base, "Enter", &in, 1, c, s))) return s->code;
  /* Input 1 stands in for the NextIteration until the end of the pass. */
  tfc_endpoint m_in[2] = {{c->enter, 0}, {c->enter, 0}};
  if (!(c->merge = add_cloop_node(st, p, base, "Merge", m_in, 2, c, s))) return s->code;
  st->n_cloops++;
  *out = ci;
  return st->copy[f->loop_cond->id] ? cloop_finish(st, ci, s) : TFC_OK;
}

/* After LoopCond lc has been copied: the loops of its frame made so far get their Switch. */
static int cloops_take_pred(part_state *st, const tfc_node *lc, tfc_status *s) {
  for (int i = 0; i < st->n_cloops; i++)
    if (!st->cloops[i].sw && st->cf.frames[st->cloops[i].frame].loop_cond == lc) TFC_TRY(cloop_finish(st, i, s));
  return TFC_OK;
}

/* Rewires one in-edge of e->dst: *out becomes the source's copy when the edge stays inside
 * a partition, else the recv standing for it (output 0). A data edge inside one non-CPU
 * device is cut too when its ends disagree on host memory (TF's NeedSameDeviceSendRecv).
 * An edge between partitions inside a loop frame runs its recv after the frame's control
 * loop Merge on the destination; when the recv already existed, *out_leftover is that Merge
 * (the destination then takes the control input), else NULL. */
static int rewire(part_state *st, const cut_edge *e, tfc_endpoint *out, tfc_node **out_leftover, tfc_status *s) {
  bool send_host = false, recv_host = false;
  *out_leftover = NULL;
  if (e->slot >= 0) {
    TFC_TRY(in_host_memory(st, e->src, false, e->slot, &send_host, s));
    TFC_TRY(in_host_memory(st, e->dst, true, e->input, &recv_host, s));
  }
  bool cross = st->part_of[e->src->id] != e->dst_part;
  if (!cross && send_host == recv_host) {
    *out = (tfc_endpoint){st->copy[e->src->id], e->slot};
    return TFC_OK;
  }
  tfc_node *merge = NULL;
  if (cross && st->have_cf) {
    int frame = tfc_cf_output_frame(&st->cf, e->src);
    if (frame > 0) {
      int ci;
      TFC_TRY(cloop_get(st, frame, e->dst_part, e->dst->name, &ci, s));
      merge = st->cloops[ci].merge;
    }
  }
  bool used;
  *out = (tfc_endpoint){recv_for(st, e, send_host, recv_host, merge, &used, s), 0};
  if (!out->node) return s->code;
  if (merge && !used) *out_leftover = merge;
  return TFC_OK;
}

/* Appends control input c to controls[] unless it is there already. */
static void add_control(tfc_node **controls, int *n, tfc_node *c) {
  for (int i = 0; i < *n; i++)
    if (controls[i] == c) return;
  controls[(*n)++] = c;
}

/* Copies n into its partition, cutting its in-edges first. *edge_id counts edges. controls
 * has room for n's inputs and control inputs together. */
static int copy_node(part_state *st, const tfc_node *n, int *edge_id, tfc_endpoint *inputs,
                     tfc_node **controls, tfc_status *s) {
  int stand_in = -1, p = st->part_of[n->id], n_controls = 0;
  /* Data inputs all come from one frame, so from one control loop on this partition. */
  tfc_node *data_leftover = NULL;
  for (int j = 0; j < n->n_inputs; j++) {
    cut_edge e = {n->inputs[j].node, n, p, n->inputs[j].index, j, (*edge_id)++};
    if (tfc_node_input_is_back_edge(n, j)) {
      inputs[j].node = NULL;
      continue;
    }
    tfc_node *left;
    TFC_TRY(rewire(st, &e, &inputs[j], &left, s));
    if (left) data_leftover = left;
    if (stand_in < 0) stand_in = j;
  }
  for (int j = 0; j < n->n_inputs; j++)
    if (!inputs[j].node) {
      if (stand_in < 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' (%s) has only loop back edges as inputs",
                              n->name, n->op->name);
      inputs[j] = inputs[stand_in];
    }
  for (int j = 0; j < n->n_control_inputs; j++) {
    cut_edge e = {n->control_inputs[j], n, p, -1, -1, (*edge_id)++};
    tfc_endpoint from;
    tfc_node *left;
    TFC_TRY(rewire(st, &e, &from, &left, s));
    add_control(controls, &n_controls, from.node);
    if (left) add_control(controls, &n_controls, left);
  }
  if (data_leftover) add_control(controls, &n_controls, data_leftover);
  tfc_graph *pg = st->out->parts[p].graph;
  tfc_node *c = tfc_graph_add_raw(pg, n->name, n->op, n->device, st->out->parts[p].device->name, inputs,
                                  n->n_inputs, controls, n_controls, n->attrs, n->n_attrs, s);
  if (!c) return s->code;
  st->copy[n->id] = c;
  for (int k = 0; k < n->n_outputs; k++) c->output_shapes[k] = n->output_shapes[k];
  if (st->have_cf && tfc_node_is_loop_cond(n)) TFC_TRY(cloops_take_pred(st, n, s));
  return TFC_OK;
}

/* ---------------- driver ---------------- */

/* dev_of[] from every node's assigned device. */
static int resolve_devices(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    if (!n->assigned_device || !n->assigned_device[0])
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' (%s) has no assigned device", n->name, n->op->name);
    if ((st->dev_of[i] = find_device(st->opts, n->assigned_device)) < 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Node '%s' (%s) is assigned to device '%s', which is not among the "
                            "devices being partitioned for",
                            n->name, n->op->name, n->assigned_device);
  }
  return TFC_OK;
}

/* Whether some frame may span devices: the graph has control-flow ops and an edge between
 * devices. (Without such an edge every connected part of the graph sits on one device, and
 * moving nodes next to their data changes nothing.) */
static bool needs_control_flow(const part_state *st) {
  const tfc_graph *g = st->g;
  bool any_cf = false, any_cut = false;
  for (int i = 0; i < g->n_nodes && !(any_cf && any_cut); i++) {
    const tfc_node *n = g->nodes[i];
    any_cf = any_cf || tfc_node_is_control_flow(n);
    for (int j = 0; j < n->n_inputs && !any_cut; j++) any_cut = st->dev_of[n->inputs[j].node->id] != st->dev_of[i];
    for (int j = 0; j < n->n_control_inputs && !any_cut; j++)
      any_cut = st->dev_of[n->control_inputs[j]->id] != st->dev_of[i];
  }
  return any_cf && any_cut;
}

/* TF's OptimizeControlFlowColocation, in id order: Switch and Exit go to the device of their
 * data input (as moved already), a non-ref Enter and a NextIteration to the assigned device
 * of their first data consumer (lowest id). A move is skipped when the device has no kernel
 * for the node. */
static int colocate_control_flow(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  int *first_consumer = malloc(sizeof(int) * (size_t)(g->n_nodes + 1));
  if (!first_consumer) return TFC_OOM(s);
  for (int i = 0; i < g->n_nodes; i++) first_consumer[i] = -1;
  for (int i = 0; i < g->n_nodes; i++)
    for (int j = 0; j < g->nodes[i]->n_inputs; j++) {
      int src = g->nodes[i]->inputs[j].node->id;
      if (first_consumer[src] < 0 || i < first_consumer[src]) first_consumer[src] = i;
    }
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    int to = -1;
    switch (n->op->id) {
      case TFC_OP_Switch: case TFC_OP_RefSwitch: case TFC_OP_Exit: case TFC_OP_RefExit:
        to = st->dev_of[n->inputs[0].node->id];
        break;
      case TFC_OP_Enter: case TFC_OP_NextIteration: case TFC_OP_RefNextIteration:
        /* A consumer with a lower id is a Merge behind a back edge, which never moves. */
        if (first_consumer[i] >= 0 && !(n->op->id == TFC_OP_Enter && tfc_dtype_is_ref(n->input_types[0])))
          to = st->dev_of[first_consumer[i]];
        break;
      default:
        break;
    }
    if (to < 0 || to == st->dev_of[i]) continue;
    const tfc_device *d = st->opts->devices[to];
    if (d->kernels && !tfc_kernel_find(d->kernels, n, NULL)) continue;
    st->dev_of[i] = to;
  }
  free(first_consumer);
  return TFC_OK;
}

/* Maps every node to the partition of its device, creating partitions in order of first
 * appearance. */
static int assign_partitions(part_state *st, tfc_status *s) {
  tfc_partitions *out = st->out;
  int *part_of_device = malloc(sizeof(int) * (size_t)(st->opts->n_devices + 1));
  if (!part_of_device) return TFC_OOM(s);
  for (int i = 0; i < st->opts->n_devices; i++) part_of_device[i] = -1;
  int rc = TFC_OK;
  for (int i = 0; i < st->g->n_nodes; i++) {
    int d = st->dev_of[i];
    if (part_of_device[d] < 0) {
      tfc_partition *p = &out->parts[out->n];
      p->device = st->opts->devices[d];
      if (!(p->graph = tfc_graph_new())) {
        rc = TFC_OOM(s);
        break;
      }
      part_of_device[d] = out->n++;
    }
    st->part_of[i] = part_of_device[d];
  }
  free(part_of_device);
  return rc;
}

/* After the pass: loop back edges and control-loop Merges get their NextIteration inputs. */
static int set_back_edges(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  for (int i = 0; i < g->n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) {
      if (!tfc_node_input_is_back_edge(n, j)) continue;
      const tfc_node *src = n->inputs[j].node;
      if (st->part_of[src->id] != st->part_of[i])
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "The loop back edge from '%s' (%s) to '%s' (%s) crosses devices (%s to %s): a "
                              "NextIteration must be placed with its Merge",
                              src->name, src->op->name, n->name, n->op->name, device_of(st, src)->name,
                              device_of(st, n)->name);
      st->copy[i]->inputs[j] = (tfc_endpoint){st->copy[src->id], n->inputs[j].index};
    }
  }
  for (int i = 0; i < st->n_cloops; i++) {
    cloop *c = &st->cloops[i];
    if (!c->next)
      return tfc_status_set(s, TFC_INTERNAL, "The control loop of frame '%s' on %s has no predicate",
                            st->cf.frames[c->frame].name, st->out->parts[c->part].device->name);
    c->merge->inputs[1] = (tfc_endpoint){c->next, 0};
  }
  return TFC_OK;
}

/* A partition of a graph with control flow across devices may receive dead tokens through
 * its _Recvs even when it holds no control-flow op itself (the untaken branch of a cond
 * whose Switch is elsewhere). The executor handles dead tensors only on its control-flow
 * path, which it takes for graphs holding a control-flow op (exec/frame.h); such a partition
 * gets an unconnected ControlTrigger, "_cf_marker/_<n>" (a no-op that is never dead), so that
 * it does. Partitions whose device has no ControlTrigger kernel are left alone. */
static int mark_dead_receivers(part_state *st, tfc_status *s) {
  for (int p = 0; p < st->out->n; p++) {
    const tfc_graph *pg = st->out->parts[p].graph;
    const tfc_device *d = st->out->parts[p].device;
    bool has_recv = false, has_cf = false;
    for (int i = 0; i < pg->n_nodes; i++) {
      const tfc_node *n = pg->nodes[i];
      has_recv = has_recv || n->op->id == TFC_OP__Recv || n->op->id == TFC_OP__HostRecv;
      has_cf = has_cf || tfc_node_is_control_flow(n);
    }
    if (!has_recv || has_cf) continue;
    const tfc_opdef *trigger = tfc_op_lookup("ControlTrigger");
    if (d->kernels) {
      bool found = false;
      for (int k = 0; k < d->kernels->n_defs && !found; k++) found = d->kernels->defs[k].op == trigger->id;
      if (!found) continue;
    }
    if (!add_node(st, p, "_cf_marker", "ControlTrigger", NULL, 0, NULL, NULL, 0, NULL, s)) return s->code;
  }
  return TFC_OK;
}

static int partition_all(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  int n_nodes = g->n_nodes;
  st->out->parts = calloc((size_t)(st->opts->n_devices + 1), sizeof *st->out->parts);
  st->dev_of = malloc(sizeof(int) * (size_t)(n_nodes + 1));
  st->part_of = malloc(sizeof(int) * (size_t)(n_nodes + 1));
  st->copy = calloc((size_t)n_nodes + 1, sizeof *st->copy);
  st->first_pair = malloc(sizeof(int) * (size_t)(n_nodes + 1));
  int max_in = 1, max_ctl = 1;
  for (int i = 0; i < n_nodes; i++) {
    const tfc_node *n = g->nodes[i];
    if (n->n_inputs > max_in) max_in = n->n_inputs;
    /* room for the control inputs and a control loop's Merge */
    if (n->n_control_inputs + 1 > max_ctl) max_ctl = n->n_control_inputs + 1;
    st->next_edge_id += n->n_inputs + n->n_control_inputs;
  }
  tfc_endpoint *inputs = malloc(sizeof *inputs * (size_t)max_in);
  tfc_node **controls = malloc(sizeof *controls * (size_t)(2 * max_ctl));
  int rc = TFC_OK;
  if (!st->out->parts || !st->dev_of || !st->part_of || !st->copy || !st->first_pair || !inputs || !controls) {
    rc = TFC_OOM(s);
  } else {
    for (int i = 0; i < n_nodes; i++) st->first_pair[i] = -1;
    rc = resolve_devices(st, s);
    if (!rc && needs_control_flow(st)) {
      rc = tfc_cf_info_build(g, &st->cf, s);
      st->have_cf = rc == TFC_OK;
      if (!rc) rc = colocate_control_flow(st, s);
    }
    if (!rc) rc = assign_partitions(st, s);
    int edge_id = 0;
    for (int i = 0; i < n_nodes && !rc; i++)
      rc = copy_node(st, g->nodes[i], &edge_id, inputs, controls, s);
    if (!rc) rc = set_back_edges(st, s);
    if (!rc && st->have_cf) rc = mark_dead_receivers(st, s);
  }
  free(inputs);
  free(controls);
  return rc;
}

int tfc_partition_graph(const tfc_graph *g, const tfc_partition_options *opts,
                        tfc_partitions *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  part_state st = {.g = g, .opts = opts, .out = out};
  int rc = partition_all(&st, s);
  tfc_cf_info_fini(&st.cf);
  free(st.cloops);
  free(st.dev_of);
  free(st.part_of);
  free(st.copy);
  free(st.first_pair);
  free(st.pairs);
  if (rc) tfc_partitions_fini(out);
  return rc;
}

void tfc_partitions_fini(tfc_partitions *p) {
  for (int i = 0; i < p->n; i++) tfc_graph_free(p->parts[i].graph);
  free(p->parts);
  memset(p, 0, sizeof *p);
}
