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
 * node keeps lookups O(edges of that source).
 *
 * Differences from TF, on purpose: TF follows the _Recv of a control edge with an Identity
 * and makes the control input come from it; we make the control input come from the _Recv
 * itself (the executor treats an async node as a control source like any other). TF's
 * scheduling (_start_time), casting (should_cast) and control-flow frame handling are not
 * implemented: a graph with control flow must fit on one device for now (UNIMPLEMENTED
 * otherwise, naming a control-flow node); a loop's back edge is copied with a stand-in input
 * and set once every node is copied (graph.h, tfc_node_input_is_back_edge).
 */
#include "partition/partition.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
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

typedef struct part_state {
  const tfc_graph *g;
  const tfc_partition_options *opts;
  tfc_partitions *out;
  int *part_of;     /* input node id -> partition index */
  tfc_node **copy;  /* input node id -> its copy in its partition */
  int *first_pair;  /* input node id -> first pair_rec of that source, -1 if none */
  pair_rec *pairs;
  int n_pairs, cap_pairs;
  int name_counter;
} part_state;

/* One cut edge: src:slot -> dst input `input` (slot and input -1 for control). */
typedef struct cut_edge {
  const tfc_node *src, *dst;
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
                              const tfc_shape *shape, tfc_status *s) {
  const tfc_device *send_dev = device_of(st, e->src), *recv_dev = device_of(st, e->dst);
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
                   : add_node(st, p, e->src->name, op, input, input ? 1 : 0, NULL, attrs,
                              n_attrs, shape, s);
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* The dummy TF sends for a control edge: an empty float Const (shape [0], as TF's
 * AddDummyConst) on src's device, run after src. */
static tfc_node *add_dummy_const(part_state *st, const tfc_node *src, tfc_status *s) {
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
  tfc_node *n = rc ? NULL
                   : add_node(st, st->part_of[src->id], src->name, "Const", NULL, 0,
                              st->copy[src->id], attrs, n_attrs, &shape, s);
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* Makes the pair for e: (dummy and) send in src's partition, recv in dst's. */
static tfc_node *add_pair(part_state *st, const cut_edge *e, bool send_host, bool recv_host,
                          tfc_status *s) {
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
  if (!add_transfer(st, e, st->part_of[src->id], send_host ? "_HostSend" : "_Send", "T", dtype,
                    &from, NULL, s))
    return NULL;
  return add_transfer(st, e, st->part_of[e->dst->id], recv_host ? "_HostRecv" : "_Recv",
                      "tensor_type", dtype, NULL, &shape, s);
}

/* ---------------- cutting edges ---------------- */

/* The node in dst's partition that stands for src:slot across e: the existing recv of a
 * matching pair, or a new pair's recv. */
static tfc_node *recv_for(part_state *st, const cut_edge *e, bool send_host, bool recv_host,
                          tfc_status *s) {
  int dst_part = st->part_of[e->dst->id];
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
  tfc_node *recv = add_pair(st, e, send_host, recv_host, s);
  if (!recv) return NULL;
  st->pairs[st->n_pairs] =
      (pair_rec){st->first_pair[e->src->id], e->slot, dst_part, recv_host, recv};
  st->first_pair[e->src->id] = st->n_pairs++;
  return recv;
}

/* Rewires one in-edge of e->dst: *out becomes the source's copy when the edge stays inside
 * a partition, else the recv standing for it (output 0). A data edge inside one non-CPU
 * device is cut too when its ends disagree on host memory (TF's NeedSameDeviceSendRecv). */
static int rewire(part_state *st, const cut_edge *e, tfc_endpoint *out, tfc_status *s) {
  bool send_host = false, recv_host = false;
  if (e->slot >= 0) {
    TFC_TRY(in_host_memory(st, e->src, false, e->slot, &send_host, s));
    TFC_TRY(in_host_memory(st, e->dst, true, e->input, &recv_host, s));
  }
  if (st->part_of[e->src->id] == st->part_of[e->dst->id] && send_host == recv_host) {
    *out = (tfc_endpoint){st->copy[e->src->id], e->slot};
    return TFC_OK;
  }
  *out = (tfc_endpoint){recv_for(st, e, send_host, recv_host, s), 0};
  return out->node ? TFC_OK : s->code;
}

/* Copies n into its partition, cutting its in-edges first. *edge_id counts edges. */
static int copy_node(part_state *st, const tfc_node *n, int *edge_id, tfc_endpoint *inputs,
                     tfc_node **controls, tfc_status *s) {
  int stand_in = -1;
  for (int j = 0; j < n->n_inputs; j++) {
    cut_edge e = {n->inputs[j].node, n, n->inputs[j].index, j, (*edge_id)++};
    if (tfc_node_input_is_back_edge(n, j)) {
      inputs[j].node = NULL;
      continue;
    }
    TFC_TRY(rewire(st, &e, &inputs[j], s));
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
    cut_edge e = {n->control_inputs[j], n, -1, -1, (*edge_id)++};
    tfc_endpoint from;
    TFC_TRY(rewire(st, &e, &from, s));
    controls[j] = from.node;
  }
  tfc_graph *pg = st->out->parts[st->part_of[n->id]].graph;
  tfc_node *c = tfc_graph_add_raw(pg, n->name, n->op, n->device, n->assigned_device, inputs,
                                  n->n_inputs, controls, n->n_control_inputs, n->attrs, n->n_attrs, s);
  if (!c) return s->code;
  st->copy[n->id] = c;
  for (int k = 0; k < n->n_outputs; k++) c->output_shapes[k] = n->output_shapes[k];
  return TFC_OK;
}

/* ---------------- driver ---------------- */

/* Maps every node to a partition, creating partitions in order of first appearance. */
static int assign_partitions(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  tfc_partitions *out = st->out;
  int *part_of_device = malloc(sizeof(int) * (size_t)(st->opts->n_devices + 1));
  if (!part_of_device) return TFC_OOM(s);
  for (int i = 0; i < st->opts->n_devices; i++) part_of_device[i] = -1;
  int rc = TFC_OK;
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    const tfc_node *n = g->nodes[i];
    if (!n->assigned_device || !n->assigned_device[0]) {
      rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' (%s) has no assigned device",
                          n->name, n->op->name);
      break;
    }
    int d = find_device(st->opts, n->assigned_device);
    if (d < 0) {
      rc = tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Node '%s' (%s) is assigned to device '%s', which is not among the "
                          "devices being partitioned for",
                          n->name, n->op->name, n->assigned_device);
      break;
    }
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

static int partition_all(part_state *st, tfc_status *s) {
  const tfc_graph *g = st->g;
  int n_nodes = g->n_nodes;
  st->out->parts = calloc((size_t)(st->opts->n_devices + 1), sizeof *st->out->parts);
  st->part_of = malloc(sizeof(int) * (size_t)(n_nodes + 1));
  st->copy = calloc((size_t)n_nodes + 1, sizeof *st->copy);
  st->first_pair = malloc(sizeof(int) * (size_t)(n_nodes + 1));
  int max_in = 1, max_ctl = 1;
  for (int i = 0; i < n_nodes; i++) {
    if (g->nodes[i]->n_inputs > max_in) max_in = g->nodes[i]->n_inputs;
    if (g->nodes[i]->n_control_inputs > max_ctl) max_ctl = g->nodes[i]->n_control_inputs;
  }
  tfc_endpoint *inputs = malloc(sizeof *inputs * (size_t)max_in);
  tfc_node **controls = malloc(sizeof *controls * (size_t)max_ctl);
  int rc = TFC_OK;
  if (!st->out->parts || !st->part_of || !st->copy || !st->first_pair || !inputs || !controls) {
    rc = TFC_OOM(s);
  } else {
    for (int i = 0; i < n_nodes; i++) st->first_pair[i] = -1;
    rc = assign_partitions(st, s);
    if (!rc && st->out->n > 1) {
      for (int i = 0; i < n_nodes && !rc; i++)
        if (tfc_node_is_control_flow(g->nodes[i]))
          rc = tfc_status_set(s, TFC_UNIMPLEMENTED,
                              "Node '%s' (%s): control flow in a graph placed on more than one device is "
                              "not supported yet (this graph uses %d devices)",
                              g->nodes[i]->name, g->nodes[i]->op->name, st->out->n);
    }
    int edge_id = 0;
    for (int i = 0; i < n_nodes && !rc; i++)
      rc = copy_node(st, g->nodes[i], &edge_id, inputs, controls, s);
    for (int i = 0; i < n_nodes && !rc; i++) {
      const tfc_node *n = g->nodes[i];
      for (int j = 0; j < n->n_inputs; j++)
        if (tfc_node_input_is_back_edge(n, j))
          st->copy[i]->inputs[j] = (tfc_endpoint){st->copy[n->inputs[j].node->id], n->inputs[j].index};
    }
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
