/*
 * client_graph — see client_graph.h.
 *
 * Three passes over the placed graph: prune (mark what the signature needs), copy the marked
 * nodes with fed inputs rewired to _Arg nodes, then add the _Retval nodes.
 */
#include "session/client_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "device/device_name.h"
#include "ops/opdef.h"
#include "place/placer.h"
#include "session/function_call.h"

typedef struct builder {
  const tfc_client_graph_spec *spec;
  const char *client_device; /* NULL: feeds and fetches stay beside their nodes */
  const tfc_graph *graph;
  int n_nodes;
  const tfc_endpoint *feeds;
  int n_feeds;
  const tfc_endpoint *fetches;
  int n_fetches;
  tfc_node *const *targets;
  int n_targets;
  unsigned char *needed;
  tfc_graph *client;
  tfc_node **copy;     /* session node id -> its copy in the client graph */
  tfc_node **arg_node; /* feed index -> its _Arg node */
  tfc_placement *placed; /* client node id -> its device index, for nodes [0, n_placed) */
  int n_placed, cap_placed;
} builder;

static int feed_index(const builder *b, const tfc_node *n, int index) {
  for (int i = 0; i < b->n_feeds; i++)
    if (b->feeds[i].node == n && b->feeds[i].index == index) return i;
  return -1;
}

/* Marks what the fetches and targets need, walking inputs backwards; a fed output cuts the
 * walk (its producer runs only if needed for another reason). */
static int prune(builder *b, tfc_status *s) {
  int n = b->n_nodes;
  int *stack = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!stack) return TFC_OOM(s);
  int top = 0;
  for (int i = 0; i < b->n_fetches; i++) {
    const tfc_node *nd = b->fetches[i].node;
    if (feed_index(b, nd, b->fetches[i].index) < 0 && !b->needed[nd->id]) {
      b->needed[nd->id] = 1;
      stack[top++] = nd->id;
    }
  }
  for (int i = 0; i < b->n_targets; i++)
    if (!b->needed[b->targets[i]->id]) {
      b->needed[b->targets[i]->id] = 1;
      stack[top++] = b->targets[i]->id;
    }
  const tfc_graph *g = b->graph;
  while (top > 0) {
    const tfc_node *nd = g->nodes[stack[--top]];
    for (int j = 0; j < nd->n_inputs; j++) {
      const tfc_node *src = nd->inputs[j].node;
      if (feed_index(b, src, nd->inputs[j].index) >= 0 || b->needed[src->id]) continue;
      b->needed[src->id] = 1;
      stack[top++] = src->id;
    }
    for (int j = 0; j < nd->n_control_inputs; j++) {
      const tfc_node *src = nd->control_inputs[j];
      if (b->needed[src->id]) continue;
      b->needed[src->id] = 1;
      stack[top++] = src->id;
    }
  }
  free(stack);
  return TFC_OK;
}

static const char *device_name_of(const builder *b, const tfc_node *n) {
  return b->spec->device_of(b->spec->arg, n);
}

/* Where an _Arg or _Retval for a tensor on `device` goes: the client device when there is
 * one and `device` is not a CPU (a GPU has no call-frame kernels and its memory is no place
 * for the caller's tensors), else `device` itself. */
static const char *call_device(const builder *b, const char *device) {
  if (!b->client_device) return device;
  tfc_devname dn;
  if (tfc_devname_parse(device, &dn) == 0 && dn.has_type && strcmp(dn.type, "CPU") == 0) return device;
  return b->client_device;
}

/* An _Arg (input == NULL) or _Retval in the client graph. */
static tfc_node *add_call_node(builder *b, const char *assigned, const char *op, const char *name, int dtype,
                               int index, const tfc_endpoint *input, tfc_status *s) {
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  tfc_attr_value t = tfc_attr_type(dtype), idx = tfc_attr_int(index);
  tfc_attrs_set(&attrs, &n_attrs, "T", &t, s);
  tfc_attrs_set(&attrs, &n_attrs, "index", &idx, s);
  tfc_node *n = NULL;
  if (tfc_status_ok(s)) {
    char *uname = tfc_graph_unique_name(b->client, name);
    if (uname)
      n = tfc_graph_add_raw(b->client, uname, tfc_op_lookup(op), assigned, assigned, input, input ? 1 : 0, NULL,
                            0, attrs, n_attrs, s);
    else
      TFC_OOM(s);
    free(uname);
  }
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* Grows b->placed to cover n client nodes, entries from b->n_placed on unset. */
static int reserve_placed(builder *b, int n, tfc_status *s) {
  if (n <= b->cap_placed) return TFC_OK;
  int cap = n * 2;
  tfc_placement *a = realloc(b->placed, sizeof *a * (size_t)cap);
  if (!a) return TFC_OOM(s);
  b->placed = a;
  b->cap_placed = cap;
  return TFC_OK;
}

/* The index of the device named `name` among the spec's devices, or -1. */
static int device_index(const builder *b, const char *name) {
  for (int d = 0; d < b->spec->n_devices; d++)
    if (strcmp(b->spec->devices[d]->name, name) == 0) return d;
  return -1;
}

/* Places the nodes the lowering of `call` added, [from, n_nodes) of the client graph, every
 * node before them keeping its device. */
static int place_body(builder *b, const tfc_node *call, int from, tfc_status *s) {
  const tfc_client_graph_spec *sp = b->spec;
  tfc_graph *g = b->client;
  int n = g->n_nodes;
  TFC_TRY(reserve_placed(b, n, s));
  for (; b->n_placed < from; b->n_placed++) {
    const tfc_node *nd = g->nodes[b->n_placed];
    int d = nd->assigned_device ? device_index(b, nd->assigned_device) : -1;
    if (d < 0)
      return tfc_status_set(s, TFC_INTERNAL, "Node '%s' of the client graph is on no device of the session (%s)",
                            nd->name, nd->assigned_device ? nd->assigned_device : "none");
    b->placed[b->n_placed] = (tfc_placement){d, NULL};
  }
  int home = device_index(b, device_name_of(b, call));
  char *why = NULL;
  if (asprintf(&why, "the device of its function call %s", call->name) < 0) return TFC_OOM(s);
  tfc_place_options po = {sp->allow_soft_placement, home >= 0 ? sp->devices[home] : NULL, why};
  int rc = tfc_place(g, from, sp->devices, sp->n_devices, &po, b->placed, s);
  free(why);
  for (int i = from; i < n && rc == TFC_OK; i++) {
    tfc_node *nd = g->nodes[i];
    free(nd->assigned_device);
    if (!(nd->assigned_device = strdup(sp->devices[b->placed[i].device]->name))) rc = TFC_OOM(s);
  }
  if (rc == TFC_OK && sp->log_placement) tfc_placement_log(g, from, n, sp->devices, b->placed, sp->log_placement > 1);
  tfc_placement_fini(b->placed + from, n - from);
  if (rc == TFC_OK) b->n_placed = n;
  return rc;
}

/* Copies the needed nodes into the client graph in id (topological) order, rewiring fed
 * inputs to their _Arg nodes. A loop's back edge gets a stand-in (the node's first other
 * input) and is set once every node is copied. */
static int copy_nodes(builder *b, tfc_status *s) {
  const tfc_graph *g = b->graph;
  tfc_endpoint in_small[8];
  tfc_node *ctl_small[8];
  for (int id = 0; id < b->n_nodes; id++) {
    if (!b->needed[id]) continue;
    const tfc_node *nd = g->nodes[id];
    tfc_endpoint *ins = nd->n_inputs <= 8 ? in_small : malloc(sizeof *ins * (size_t)nd->n_inputs);
    tfc_node **ctls = nd->n_control_inputs <= 8 ? ctl_small : malloc(sizeof *ctls * (size_t)nd->n_control_inputs);
    tfc_node *c = NULL;
    if (ins && ctls) {
      int stand_in = -1;
      for (int j = 0; j < nd->n_inputs; j++) {
        int f = feed_index(b, nd->inputs[j].node, nd->inputs[j].index);
        ins[j] = f >= 0 ? (tfc_endpoint){b->arg_node[f], 0}
                        : (tfc_endpoint){b->copy[nd->inputs[j].node->id], nd->inputs[j].index};
        if (stand_in < 0 && ins[j].node) stand_in = j;
      }
      for (int j = 0; j < nd->n_inputs && stand_in >= 0; j++)
        if (!ins[j].node) ins[j] = ins[stand_in];
      for (int j = 0; j < nd->n_control_inputs; j++) ctls[j] = b->copy[nd->control_inputs[j]->id];
      if (tfc_function_is_call(&g->library, nd)) {
        int from = b->client->n_nodes;
        c = tfc_function_lower_call(b->client, &g->library, nd, ins, ctls, nd->n_control_inputs, s);
        if (c && place_body(b, nd, from, s)) c = NULL;
      } else
        c = tfc_graph_add_raw(b->client, nd->name, nd->op, nd->device, device_name_of(b, nd), ins, nd->n_inputs,
                              ctls, nd->n_control_inputs, nd->attrs, nd->n_attrs, s);
    } else {
      TFC_OOM(s);
    }
    if (ins != in_small) free(ins);
    if (ctls != ctl_small) free(ctls);
    if (!c) return s->code;
    if (c->n_outputs != nd->n_outputs) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': the function returns %d values, but the call has %d outputs",
                     nd->name, c->n_outputs, nd->n_outputs);
      return s->code;
    }
    for (int o = 0; o < nd->n_outputs; o++) {
      if (tfc_dtype_base(c->output_types[o]) != tfc_dtype_base(nd->output_types[o]))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Node '%s': output %d of the function has type %s, but the call's is %s", nd->name, o, tfc_dtype_name(c->output_types[o]),
                              tfc_dtype_name(nd->output_types[o]));
      if (!tfc_function_is_call(&g->library, nd)) c->output_shapes[o] = nd->output_shapes[o];
    }
    b->copy[id] = c;
  }
  for (int id = 0; id < b->n_nodes; id++) {
    if (!b->needed[id]) continue;
    const tfc_node *nd = g->nodes[id];
    for (int j = 0; j < nd->n_inputs; j++)
      if (tfc_node_input_is_back_edge(nd, j) && feed_index(b, nd->inputs[j].node, nd->inputs[j].index) < 0)
        b->copy[id]->inputs[j] = (tfc_endpoint){b->copy[nd->inputs[j].node->id], nd->inputs[j].index};
  }
  return TFC_OK;
}

static int build_client_graph(builder *b, tfc_status *s) {
  TFC_TRY(prune(b, s));
  /* feeds: an _Arg on the fed node's device, or on the client device (call_device) */
  for (int i = 0; i < b->n_feeds; i++) {
    char name[64];
    snprintf(name, sizeof name, "_arg_%d", i);
    const tfc_endpoint *f = &b->feeds[i];
    b->arg_node[i] = add_call_node(b, call_device(b, device_name_of(b, f->node)), "_Arg", name,
                                   tfc_dtype_base(f->node->output_types[f->index]), i, NULL, s);
    if (!b->arg_node[i]) return s->code;
    b->arg_node[i]->output_shapes[0] = f->node->output_shapes[f->index];
  }
  TFC_TRY(copy_nodes(b, s));
  /* fetches: a _Retval beside the tensor it returns, or on the client device */
  for (int i = 0; i < b->n_fetches; i++) {
    int f = feed_index(b, b->fetches[i].node, b->fetches[i].index);
    tfc_endpoint src = f >= 0 ? (tfc_endpoint){b->arg_node[f], 0}
                              : (tfc_endpoint){b->copy[b->fetches[i].node->id], b->fetches[i].index};
    char name[64];
    snprintf(name, sizeof name, "_retval_%d", i);
    if (!add_call_node(b, call_device(b, src.node->assigned_device), "_Retval", name,
                       tfc_dtype_base(src.node->output_types[src.index]), i, &src, s))
      return s->code;
  }
  return TFC_OK;
}

tfc_graph *tfc_client_graph_build_for(const tfc_client_graph_spec *spec, const char *client_device, tfc_status *s) {
  builder b = {.spec = spec,
               .client_device = client_device,
               .graph = spec->graph,
               .n_nodes = spec->n_nodes,
               .feeds = spec->feeds,
               .n_feeds = spec->n_feeds,
               .fetches = spec->fetches,
               .n_fetches = spec->n_fetches,
               .targets = spec->targets,
               .n_targets = spec->n_targets};
  b.needed = calloc((size_t)b.n_nodes + 1, 1);
  b.copy = calloc((size_t)b.n_nodes + 1, sizeof *b.copy);
  b.arg_node = calloc((size_t)b.n_feeds + 1, sizeof *b.arg_node);
  b.client = tfc_graph_new();
  if (!b.needed || !b.copy || !b.arg_node || !b.client) TFC_OOM(s);
  else build_client_graph(&b, s);
  free(b.needed);
  free(b.copy);
  free(b.arg_node);
  free(b.placed);
  if (!tfc_status_ok(s)) {
    tfc_graph_free(b.client);
    return NULL;
  }
  return b.client;
}

/* Appends the decimal digits of v (>= 0; ids and output indexes) and then `sep`: the key is
 * built on every run, where printf would cost more than the rest of a small step. */
static void put_id(tfc_strbuf *b, int v, char sep) {
  char buf[16];
  int n = (int)sizeof buf;
  buf[--n] = sep;
  unsigned u = v < 0 ? 0u : (unsigned)v;
  do {
    buf[--n] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  tfc_strbuf_append(b, buf + n, sizeof buf - (size_t)n);
}

char *tfc_client_graph_signature(const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches, int n_fetches,
                                 tfc_node *const *targets, int n_targets) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  for (int i = 0; i < n_feeds; i++) {
    put_id(&b, feeds[i].node->id, ':');
    put_id(&b, feeds[i].index, ',');
  }
  tfc_strbuf_append(&b, "|", 1);
  for (int i = 0; i < n_fetches; i++) {
    put_id(&b, fetches[i].node->id, ':');
    put_id(&b, fetches[i].index, ',');
  }
  tfc_strbuf_append(&b, "|", 1);
  for (int i = 0; i < n_targets; i++) put_id(&b, targets[i]->id, ',');
  return tfc_strbuf_take(&b);
}
