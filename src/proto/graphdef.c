/*
 * graphdef — see graphdef.h.
 *
 * Import runs in three steps:
 *   1. parse and check without the lock: unpack, versions, unique names, input syntax, and
 *      TF's creation order: Kahn's algorithm over the in-GraphDef edges (each data or control
 *      input counts, mapped ones do not) where the ready node taken next is always the one
 *      first in the GraphDef, so a node is made as soon as its last input exists and ties go
 *      to file order. Clients see this order (TF_GraphNextOperation, export), and it is TF's.
 *   2. under the lock: choose final names (prefix, uniquify), then build each node through
 *      tfc_node_desc_finish_locked in that order, resolving inputs to the nodes just built or
 *      to mapped endpoints. As in TF, an unknown op is found when its node's turn comes and a
 *      cycle once every node outside it is built;
 *   3. the return outputs/ops, the graph's versions, unlock. Any error rolls back to the mark
 *      taken in step 2; the TF ids of the nodes built meanwhile stay used, as in TF, whose
 *      importer makes and then removes them (graph/graph.h).
 * The back edge of a while loop (a NextIteration into a Merge) is left out of the order, as
 * TF's importer leaves it: the Merge is built with its first forward input standing in for
 * it (and an unknown output shape, as TF infers it before the back edge exists), and the
 * edge is set once every node is built (link_back_edges).
 */
#include "proto/graphdef.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "ops/user_ops.h"
#include "proto/attr_codec.h"
#include "proto/function_codec.h"
#include "proto/pb_util.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/op_def.pb-c.h"
#include "tensorflow/versions.pb-c.h"

/* Graphs written before this producer version stored an unknown Placeholder shape as a
 * rank-0 `shape {}` (TF's GraphDef version history: Placeholder began to honour scalar
 * shapes at 21/22). */
#define PLACEHOLDER_SCALAR_SHAPE_VERSION 21

void tfc_import_results_init(tfc_import_results *r) { memset(r, 0, sizeof *r); }

void tfc_import_results_fini(tfc_import_results *r) {
  if (!r) return;
  free(r->return_outputs);
  free(r->return_ops);
  for (int i = 0; i < r->n_missing_unused; i++) free(r->missing_unused_names[i]);
  free(r->missing_unused_names);
  free(r->missing_unused_indexes);
  memset(r, 0, sizeof *r);
}

/* One parsed NodeDef input. */
typedef struct in_ref {
  const char *name; /* points into the NodeDef's input string */
  size_t name_len;
  int index;        /* -1 for a control input */
  int src;          /* def index of the producer, or -1 when mapped */
  int map;          /* input mapping used, or -1 */
  int back;         /* a loop's back edge: NextIteration into Merge */
} in_ref;

typedef struct def_node {
  const Tensorflow__NodeDef *nd;
  int n_in;
  in_ref *ins;
  int pending;      /* in-GraphDef producers not yet ordered */
  int has_def_input;
  int has_back;     /* some input is a back edge (in_ref.back) */
  char *final_name;
  tfc_node *node;
} def_node;

typedef struct importer {
  tfc_graph *g;
  const tfc_import_options *opts;
  Tensorflow__GraphDef *gd;
  int n;
  def_node *nodes;
  tfc_hashmap by_def_name; /* def name -> index + 1 */
  int *order;
  int n_order;             /* nodes in order; fewer than n when the rest is in a cycle */
  int *used_maps;
  int producer;
} importer;

static int def_lookup(const importer *im, const char *name, size_t len) {
  void *v = tfc_hashmap_get_n(&im->by_def_name, name, len);
  return v ? (int)(intptr_t)v - 1 : -1;
}

static int find_mapping(const importer *im, const char *name, size_t len, int index) {
  const tfc_import_options *o = im->opts;
  for (int i = 0; i < o->n_input_mappings; i++) {
    const tfc_import_input_mapping *m = &o->input_mappings[i];
    if (m->src_index == index && strlen(m->src_name) == len && memcmp(m->src_name, name, len) == 0)
      return i;
  }
  return -1;
}

/* "name", "name:k" or "^name". Returns -1 for an index that is not a number (the whole
 * string is then taken as a name, which will not be found, as in TF). */
static void parse_input(const char *in, in_ref *r) {
  r->src = -1;
  r->map = -1;
  if (in[0] == '^') {
    r->name = in + 1;
    r->name_len = strlen(in + 1);
    r->index = -1;
    return;
  }
  r->name = in;
  r->name_len = strlen(in);
  r->index = 0;
  const char *colon = strrchr(in, ':');
  if (!colon || colon[1] == '\0') return;
  long long k = 0;
  for (const char *p = colon + 1; *p; p++) {
    if (*p < '0' || *p > '9') return;
    k = k * 10 + (*p - '0');
    if (k > INT_MAX) return;
  }
  if (colon[1] == '0' && colon[2] != '\0') return; /* no leading zeros: "x:01" is a name */
  r->name_len = (size_t)(colon - in);
  r->index = (int)k;
}

static void importer_fini(importer *im) {
  for (int i = 0; i < im->n; i++) {
    free(im->nodes[i].ins);
    free(im->nodes[i].final_name);
  }
  free(im->nodes);
  free(im->order);
  free(im->used_maps);
  tfc_hashmap_fini(&im->by_def_name);
  if (im->gd) protobuf_c_message_free_unpacked(&im->gd->base, NULL);
}

static int check_versions(const Tensorflow__VersionDef *v, tfc_status *s) {
  if (!v) return TFC_OK;
  if (v->producer < TFC_GRAPH_DEF_VERSION_MIN_PRODUCER)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "GraphDef producer version %d below min producer %d supported by tfc.  "
                          "Please regenerate your graph.",
                          v->producer, TFC_GRAPH_DEF_VERSION_MIN_PRODUCER);
  if (v->min_consumer > TFC_GRAPH_DEF_VERSION)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "GraphDef min consumer version %d above current version %d for tfc.  "
                          "Please upgrade tfc.",
                          v->min_consumer, TFC_GRAPH_DEF_VERSION);
  for (size_t i = 0; i < v->n_bad_consumers; i++)
    if (v->bad_consumers[i] == TFC_GRAPH_DEF_VERSION)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "GraphDef disallows consumer version %d.  Please upgrade tfc: this "
                            "version is likely buggy.",
                            TFC_GRAPH_DEF_VERSION);
  return TFC_OK;
}

static int op_not_registered(const char *op, const char *node, tfc_status *s) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = '\0';
  return tfc_status_set(s, TFC_NOT_FOUND,
                        "Op type not registered '%s' in binary running on %s. Make sure the Op and "
                        "Kernel are registered in the binary running in this process. while "
                        "building NodeDef '%s'",
                        op, host, node);
}

/* A binary min-heap of ints in h[0..*n). */
static void heap_push(int *h, int *n, int v) {
  int i = (*n)++;
  while (i > 0 && h[(i - 1) / 2] > v) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = v;
}

static int heap_pop(int *h, int *n) {
  int top = h[0], v = h[--*n], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1] < h[c]) c++;
    if (h[c] >= v) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
  return top;
}

/* Step 1: everything that needs no graph. */
static int is_merge(const char *op) { return !strcmp(op, "Merge") || !strcmp(op, "RefMerge"); }
static int is_next_iteration(const char *op) {
  return !strcmp(op, "NextIteration") || !strcmp(op, "RefNextIteration");
}

static int parse_and_sort(importer *im, tfc_status *s) {
  const Tensorflow__GraphDef *gd = im->gd;
  if (gd->n_node > INT_MAX / 2) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "GraphDef has too many nodes");
  im->n = (int)gd->n_node;
  im->nodes = calloc((size_t)im->n + 1, sizeof *im->nodes);
  im->order = calloc((size_t)im->n + 1, sizeof *im->order);
  im->used_maps = calloc((size_t)im->opts->n_input_mappings + 1, sizeof *im->used_maps);
  if (!im->nodes || !im->order || !im->used_maps) return TFC_OOM(s);

  for (int i = 0; i < im->n; i++) {
    const Tensorflow__NodeDef *nd = gd->node[i];
    im->nodes[i].nd = nd;
    if (def_lookup(im, nd->name, strlen(nd->name)) >= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' is not unique", nd->name);
    if (tfc_hashmap_put(&im->by_def_name, nd->name, (void *)(intptr_t)(i + 1))) return TFC_OOM(s);
  }
  for (int i = 0; i < im->n; i++) {
    const Tensorflow__NodeDef *nd = im->nodes[i].nd;
    if (!tfc_graph_name_valid(im->g, nd->name))
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': Node name contains invalid characters",
                            nd->name);
  }

  /* Inputs: resolve to a producer in the GraphDef or a mapping. */
  int64_t n_edges = 0;
  for (int i = 0; i < im->n; i++) {
    def_node *dn = &im->nodes[i];
    const Tensorflow__NodeDef *nd = dn->nd;
    if (nd->n_input > INT_MAX / 2) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': too many inputs", nd->name);
    dn->ins = calloc(nd->n_input + 1, sizeof *dn->ins);
    if (!dn->ins) return TFC_OOM(s);
    dn->n_in = (int)nd->n_input;
    int seen_control = 0;
    for (int j = 0; j < dn->n_in; j++) {
      in_ref *r = &dn->ins[j];
      parse_input(nd->input[j], r);
      if (r->index < 0) {
        seen_control = 1;
      } else if (seen_control) {
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Node '%s': Control dependencies must come after regular dependencies: "
                              "input '%s' of source node follows a control input",
                              nd->name, nd->input[j]);
      }
      r->map = find_mapping(im, r->name, r->name_len, r->index);
      if (r->map >= 0) {
        im->used_maps[r->map] = 1;
        continue;
      }
      r->src = def_lookup(im, r->name, r->name_len);
      if (r->src < 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': Unknown input node '%s'", nd->name,
                              nd->input[j]);
      if (r->index >= 0 && is_merge(nd->op) && is_next_iteration(gd->node[r->src]->op)) {
        r->back = 1;
        dn->has_back = 1;
        dn->has_def_input = 1;
        continue;
      }
      dn->pending++;
      dn->has_def_input = 1;
      n_edges++;
    }
  }

  /* Consumers as CSR, then Kahn's algorithm. */
  int *start = calloc((size_t)im->n + 2, sizeof *start);
  int *edges = calloc((size_t)n_edges + 1, sizeof *edges);
  int *fill = calloc((size_t)im->n + 1, sizeof *fill);
  if (!start || !edges || !fill) {
    free(start);
    free(edges);
    free(fill);
    return TFC_OOM(s);
  }
  for (int i = 0; i < im->n; i++)
    for (int j = 0; j < im->nodes[i].n_in; j++)
      if (im->nodes[i].ins[j].src >= 0 && !im->nodes[i].ins[j].back) start[im->nodes[i].ins[j].src + 1]++;
  for (int i = 0; i < im->n; i++) start[i + 1] += start[i];
  for (int i = 0; i < im->n; i++)
    for (int j = 0; j < im->nodes[i].n_in; j++) {
      int src = im->nodes[i].ins[j].src;
      if (src >= 0 && !im->nodes[i].ins[j].back) edges[start[src] + fill[src]++] = i;
    }
  /* The ready set: a min-heap of GraphDef indexes, in fill's n slots (fill is done with). */
  int *heap = fill, n_heap = 0;
  for (int i = 0; i < im->n; i++)
    if (im->nodes[i].pending == 0) heap_push(heap, &n_heap, i);
  while (n_heap > 0) {
    int u = heap_pop(heap, &n_heap);
    im->order[im->n_order++] = u;
    for (int e = start[u]; e < start[u + 1]; e++)
      if (--im->nodes[edges[e]].pending == 0) heap_push(heap, &n_heap, edges[e]);
  }
  free(start);
  free(edges);
  free(fill);
  return TFC_OK;
}

/* The error for the nodes left out of the order (step 2, once the others are built). */
static int cycle_error(const importer *im, tfc_status *s) {
  int first = -1;
  for (int i = 0; i < im->n && first < 0; i++)
    if (im->nodes[i].pending > 0) first = i;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                        "GraphDef contains a cycle: %d nodes in a cycle or depending on one, "
                        "including '%s'",
                        im->n - im->n_order, im->nodes[first].nd->name);
}

static int prefix_in_use(tfc_graph *g, const char *p, size_t len) {
  for (int i = 0; i < g->n_nodes; i++) {
    const char *nm = g->nodes[i]->name;
    if (strncmp(nm, p, len) == 0 && (nm[len] == '\0' || nm[len] == '/')) return 1;
  }
  return 0;
}

/* Step 2a: final names (under the lock). */
static int choose_names(importer *im, tfc_status *s) {
  const tfc_import_options *o = im->opts;
  char *prefix = NULL;
  if (o->prefix && o->prefix[0]) {
    size_t len = strlen(o->prefix);
    while (len && o->prefix[len - 1] == '/') len--;
    prefix = tfc_strndup(o->prefix, len);
    if (!prefix) return TFC_OOM(s);
    if (o->uniquify_prefix && prefix_in_use(im->g, prefix, len)) {
      for (int k = 1;; k++) {
        char *cand = NULL;
        if (asprintf(&cand, "%s_%d", prefix, k) < 0) {
          free(prefix);
          return TFC_OOM(s);
        }
        if (!prefix_in_use(im->g, cand, strlen(cand))) {
          free(prefix);
          prefix = cand;
          break;
        }
        free(cand);
      }
    }
  }
  tfc_hashmap taken;
  tfc_hashmap_init(&taken);
  int r = TFC_OK;
  for (int i = 0; i < im->n && r == TFC_OK; i++) {
    const char *nm = im->nodes[i].nd->name;
    char *fn = NULL;
    if (prefix ? asprintf(&fn, "%s/%s", prefix, nm) < 0 : (fn = tfc_strdup(nm)) == NULL) {
      r = TFC_OOM(s);
      break;
    }
    im->nodes[i].final_name = fn;
    if (!tfc_graph_find(im->g, fn) && tfc_hashmap_put(&taken, fn, fn)) r = TFC_OOM(s);
  }
  for (int i = 0; i < im->n && r == TFC_OK; i++) {
    char *fn = im->nodes[i].final_name;
    if (!tfc_graph_find(im->g, fn)) continue;
    if (!o->uniquify_names) {
      r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node name '%s' already exists in the Graph", fn);
      break;
    }
    for (int k = 1;; k++) {
      char *cand = NULL;
      if (asprintf(&cand, "%s_%d", fn, k) < 0) {
        r = TFC_OOM(s);
        break;
      }
      if (!tfc_graph_find(im->g, cand) && !tfc_hashmap_get(&taken, cand)) {
        if (tfc_hashmap_put(&taken, cand, cand)) r = TFC_OOM(s);
        free(fn);
        im->nodes[i].final_name = cand;
        break;
      }
      free(cand);
    }
  }
  tfc_hashmap_fini(&taken);
  free(prefix);
  return r;
}

/* Rewrites "loc:@x" entries of _class to x's final name (prefix, uniquify). */
static int fix_colocation(importer *im, const char *node, tfc_attr *attrs, int n_attrs, tfc_status *s) {
  tfc_attr_value *cls = (tfc_attr_value *)tfc_attrs_find(attrs, n_attrs, "_class");
  if (!cls || cls->kind != TFC_ATTR_LIST || cls->list_kind != TFC_ATTR_STRING) return TFC_OK;
  for (int i = 0; i < cls->u.list.n; i++) {
    tfc_attr_value *v = &cls->u.list.items[i];
    if (v->u.s.len < 5 || memcmp(v->u.s.data, "loc:@", 5) != 0) continue;
    const char *target = v->u.s.data + 5;
    size_t len = v->u.s.len - 5;
    int k = def_lookup(im, target, len);
    if (k < 0) {
      if (im->opts->skip_colocation_validation) continue;
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s' expects to be colocated with unknown node '%.*s'",
                            node, (int)len, target);
    }
    tfc_attr_value nv;
    char *txt = NULL;
    if (asprintf(&txt, "loc:@%s", im->nodes[k].final_name) < 0) return TFC_OOM(s);
    int r = tfc_attr_string(txt, strlen(txt), &nv, s);
    free(txt);
    if (r) return r;
    tfc_attr_value_fini(v);
    *v = nv;
  }
  return TFC_OK;
}

/* Step 2b: one node. */
static int build_node(importer *im, int i, tfc_status *s) {
  def_node *dn = &im->nodes[i];
  const Tensorflow__NodeDef *nd = dn->nd;
  const tfc_import_options *o = im->opts;
  if (!tfc_op_lookup(nd->op) && !tfc_funclib_find(&im->g->library, nd->op)) return op_not_registered(nd->op, nd->name, s);
  tfc_node_desc *d = tfc_node_desc_new(im->g, nd->op, dn->final_name);
  if (!d) return TFC_OOM(s);
  tfc_node_desc_set_importing(d);
  const char *dev = nd->device ? nd->device : "";
  if (!dev[0] && o->default_device) dev = o->default_device;
  tfc_node_desc_set_device(d, dev);

  for (int j = 0; j < dn->n_in; j++) {
    const in_ref *r = &dn->ins[j];
    if (r->map >= 0) {
      tfc_endpoint dst = o->input_mappings[r->map].dst;
      if (r->index < 0) tfc_node_desc_add_control(d, dst.node);
      else tfc_node_desc_add_input_flat(d, dst);
      continue;
    }
    tfc_node *src = im->nodes[r->src].node;
    if (r->back) { /* stands in for the back edge until link_back_edges */
      int k = 0;
      while (k < dn->n_in && (dn->ins[k].back || dn->ins[k].index < 0)) k++;
      if (k == dn->n_in || dn->ins[k].map >= 0) {
        tfc_node_desc_free(d);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': Merge has no input from outside its loop",
                              nd->name);
      }
      src = im->nodes[dn->ins[k].src].node;
      r = &dn->ins[k];
    }
    if (r->index < 0) {
      tfc_node_desc_add_control(d, src);
    } else {
      if (r->index >= src->n_outputs) {
        tfc_node_desc_free(d);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Node '%s': Connecting to invalid output %d of source node %.*s which "
                              "has %d outputs",
                              nd->name, r->index, (int)r->name_len, r->name, src->n_outputs);
      }
      tfc_endpoint e = {src, r->index};
      tfc_node_desc_add_input_flat(d, e);
    }
  }
  if (!dn->has_def_input)
    for (int j = 0; j < o->n_control_deps; j++) tfc_node_desc_add_control(d, o->control_deps[j]);

  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  if (tfc_attrs_from_proto_map((void *const *)nd->attr, nd->n_attr, &attrs, &n_attrs, s)) {
    tfc_node_desc_free(d);
    return tfc_status_prefix(s, "Node '%s': ", nd->name);
  }
  if (im->producer < PLACEHOLDER_SCALAR_SHAPE_VERSION && strcmp(nd->op, "Placeholder") == 0) {
    tfc_attr_value *sh = (tfc_attr_value *)tfc_attrs_find(attrs, n_attrs, "shape");
    if (sh && sh->kind == TFC_ATTR_SHAPE && sh->u.shape->rank == 0) sh->u.shape->rank = -1;
  }
  if (fix_colocation(im, nd->name, attrs, n_attrs, s)) {
    tfc_attrs_free(attrs, n_attrs);
    tfc_node_desc_free(d);
    return s->code;
  }
  for (int j = 0; j < n_attrs; j++) tfc_node_desc_set_attr(d, attrs[j].name, &attrs[j].value);
  tfc_attrs_free(attrs, n_attrs);

  dn->node = tfc_node_desc_finish_locked(d, s);
  if (dn->node && dn->has_back) dn->node->output_shapes[0] = tfc_shape_unknown();
  return dn->node ? TFC_OK : s->code;
}

/* Sets the back edges of the loops' Merges, every node being built; the NextIteration's
 * output must have the Merge input's type. */
static int link_back_edges(importer *im, tfc_status *s) {
  for (int i = 0; i < im->n; i++) {
    def_node *dn = &im->nodes[i];
    if (!dn->has_back) continue;
    for (int j = 0; j < dn->n_in; j++) {
      const in_ref *r = &dn->ins[j];
      if (!r->back) continue;
      tfc_node *src = im->nodes[r->src].node;
      tfc_node *m = dn->node;
      if (r->index >= src->n_outputs)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Node '%s': Connecting to invalid output %d of source node %s which has %d outputs",
                              dn->nd->name, r->index, src->name, src->n_outputs);
      if (tfc_dtype_base(src->output_types[r->index]) != tfc_dtype_base(m->input_types[j]))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Input %d of node %s was passed %s from %s:%d incompatible with expected %s.", j,
                              m->name, tfc_dtype_name(src->output_types[r->index]), src->name, r->index,
                              tfc_dtype_name(m->input_types[j]));
      m->inputs[j] = (tfc_endpoint){src, r->index};
    }
  }
  return TFC_OK;
}

/* Step 3: what the caller asked to get back. */
static int collect_results(importer *im, tfc_import_results *out, tfc_status *s) {
  const tfc_import_options *o = im->opts;
  if (o->n_return_outputs) {
    out->return_outputs = calloc((size_t)o->n_return_outputs, sizeof *out->return_outputs);
    if (!out->return_outputs) return TFC_OOM(s);
  }
  for (int i = 0; i < o->n_return_outputs; i++) {
    const tfc_import_tensor_ref *t = &o->return_outputs[i];
    const char *nm = t->name ? t->name : "";
    int m = find_mapping(im, nm, strlen(nm), t->index);
    if (m >= 0) {
      out->return_outputs[i] = o->input_mappings[m].dst;
      continue;
    }
    int k = def_lookup(im, nm, strlen(nm));
    if (k < 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Requested return tensor '%s:%d' not found in graph def",
                            nm, t->index);
    tfc_node *n = im->nodes[k].node;
    if (t->index < 0 || t->index >= n->n_outputs)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Invalid return output %d of node '%s', which has %d output(s)", t->index,
                            nm, n->n_outputs);
    out->return_outputs[i].node = n;
    out->return_outputs[i].index = t->index;
  }
  out->n_return_outputs = o->n_return_outputs;
  if (o->n_return_ops) {
    out->return_ops = calloc((size_t)o->n_return_ops, sizeof *out->return_ops);
    if (!out->return_ops) return TFC_OOM(s);
  }
  for (int i = 0; i < o->n_return_ops; i++) {
    const char *nm = o->return_ops[i] ? o->return_ops[i] : "";
    int k = def_lookup(im, nm, strlen(nm));
    if (k < 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Requested return node '%s' not found in graph def", nm);
    out->return_ops[i] = im->nodes[k].node;
  }
  out->n_return_ops = o->n_return_ops;
  for (int i = 0; i < o->n_input_mappings; i++) {
    const tfc_import_input_mapping *m = &o->input_mappings[i];
    if (im->used_maps[i]) continue;
    /* An unused key is reported when its node is not in the GraphDef or, as TF does, when the
     * node exists but has no such output. */
    int k = def_lookup(im, m->src_name, strlen(m->src_name));
    if (k >= 0 && (!im->nodes[k].node || m->src_index < im->nodes[k].node->n_outputs)) continue;
    char **names = realloc(out->missing_unused_names, sizeof *names * (size_t)(out->n_missing_unused + 1));
    if (names) out->missing_unused_names = names;
    int *idx = realloc(out->missing_unused_indexes, sizeof *idx * (size_t)(out->n_missing_unused + 1));
    if (idx) out->missing_unused_indexes = idx;
    char *nm = tfc_strdup(m->src_name);
    if (!names || !idx || !nm) {
      free(nm);
      return TFC_OOM(s);
    }
    names[out->n_missing_unused] = nm;
    idx[out->n_missing_unused] = m->src_index;
    out->n_missing_unused++;
  }
  return TFC_OK;
}

static int set_versions(tfc_graph *g, int was_empty, const Tensorflow__VersionDef *v, tfc_status *s) {
  int producer = v ? v->producer : 0, min_consumer = v ? v->min_consumer : 0;
  size_t nb = v ? v->n_bad_consumers : 0;
  int *bad = NULL;
  int n_bad = was_empty ? 0 : g->n_bad_consumers;
  if (nb + (size_t)n_bad) {
    bad = malloc(sizeof *bad * (nb + (size_t)n_bad));
    if (!bad) return TFC_OOM(s);
    if (n_bad) memcpy(bad, g->bad_consumers, sizeof *bad * (size_t)n_bad);
    for (size_t i = 0; i < nb; i++) {
      int dup = 0;
      for (int j = 0; j < n_bad; j++) dup |= bad[j] == v->bad_consumers[i];
      if (!dup) bad[n_bad++] = v->bad_consumers[i];
    }
  }
  if (was_empty) {
    g->producer = producer;
    g->min_consumer = min_consumer;
  } else {
    if (producer < g->producer) g->producer = producer;
    if (min_consumer > g->min_consumer) g->min_consumer = min_consumer;
  }
  free(g->bad_consumers);
  g->bad_consumers = bad;
  g->n_bad_consumers = n_bad;
  return TFC_OK;
}

int tfc_graphdef_import(tfc_graph *g, const void *data, size_t len, const tfc_import_options *opts,
                        tfc_import_results *out, tfc_status *s) {
  static const tfc_import_options no_opts;
  tfc_import_results scratch;
  tfc_import_results_init(&scratch);
  if (out) tfc_import_results_init(out);
  if (!opts) opts = &no_opts;
  TFC_TRY(tfc_ops_init(s));
  importer im;
  memset(&im, 0, sizeof im);
  im.g = g;
  im.opts = opts;
  tfc_hashmap_init(&im.by_def_name);
  for (int i = 0; i < opts->n_input_mappings; i++) {
    const tfc_import_input_mapping *m = &opts->input_mappings[i];
    tfc_node *dn = m->dst.node;
    if (!m->src_name || !dn || dn->graph != g || m->dst.index < -1 || m->dst.index >= dn->n_outputs ||
        (m->src_index < 0) != (m->dst.index < 0)) {
      importer_fini(&im);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Input mapping %d (%s:%d) has an invalid destination", i,
                            m->src_name ? m->src_name : "(null)", m->src_index);
    }
  }
  for (int i = 0; i < opts->n_control_deps; i++)
    if (!opts->control_deps[i] || opts->control_deps[i]->graph != g) {
      importer_fini(&im);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Control dependency %d is not a node of the graph", i);
    }
  im.gd = (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, data, len,
                                                "Invalid GraphDef", s);
  if (!im.gd) {
    importer_fini(&im);
    return s->code;
  }
  im.producer = im.gd->versions ? im.gd->versions->producer : 0;
  if (check_versions(im.gd->versions, s) || parse_and_sort(&im, s)) {
    importer_fini(&im);
    return s->code;
  }

  tfc_graph_lock(g);
  int mark = tfc_graph_mark(g);
  tfc_funclib_mark lib_mark = tfc_funclib_get_mark(&g->library);
  /* TF adds the library (no prefix applied) before it builds any node. */
  int r = tfc_funclib_import(&g->library, im.gd->library, s);
  if (r == TFC_OK) r = choose_names(&im, s);
  for (int k = 0; k < im.n_order && r == TFC_OK; k++) r = build_node(&im, im.order[k], s);
  if (r == TFC_OK && im.n_order < im.n) r = cycle_error(&im, s);
  if (r == TFC_OK) r = link_back_edges(&im, s);
  if (r == TFC_OK) r = collect_results(&im, &scratch, s);
  if (r == TFC_OK) r = set_versions(g, mark == 0, im.gd->versions, s);
  if (r != TFC_OK) {
    tfc_graph_rollback(g, mark);
    tfc_funclib_rollback(&g->library, lib_mark);
    tfc_import_results_fini(&scratch);
  }
  tfc_graph_unlock(g);
  importer_fini(&im);
  if (r == TFC_OK) {
    if (out) *out = scratch;
    else tfc_import_results_fini(&scratch);
  }
  return r;
}

/* ---------------- export ---------------- */

static char *input_name(tfc_pb_arena *a, const tfc_node *src, int index) {
  size_t len = strlen(src->name);
  char *r = tfc_pb_alloc(a, len + 16);
  if (!r) return NULL;
  if (index < 0) snprintf(r, len + 16, "^%s", src->name);
  else if (index == 0) memcpy(r, src->name, len + 1);
  else snprintf(r, len + 16, "%s:%d", src->name, index);
  return r;
}

int tfc_nodedef_build(const tfc_node *n, int assigned, tfc_pb_arena *a, Tensorflow__NodeDef *nd, tfc_status *s) {
  tensorflow__node_def__init(nd);
  nd->name = tfc_pb_strdup(a, n->name);
  nd->op = tfc_pb_strdup(a, n->op->name);
  const char *dev = assigned && n->assigned_device ? n->assigned_device : n->device;
  nd->device = tfc_pb_strdup(a, dev ? dev : "");
  size_t n_in = (size_t)n->n_inputs + (size_t)n->n_control_inputs;
  if (n_in) {
    nd->input = tfc_pb_alloc(a, sizeof *nd->input * n_in);
    if (!nd->input) return tfc_pb_arena_status(a, s);
    for (int i = 0; i < n->n_inputs; i++) nd->input[i] = input_name(a, n->inputs[i].node, n->inputs[i].index);
    for (int i = 0; i < n->n_control_inputs; i++)
      nd->input[n->n_inputs + i] = input_name(a, n->control_inputs[i], -1);
    nd->n_input = n_in;
  }
  if (n->n_attrs) {
    nd->attr = tfc_pb_alloc(a, sizeof *nd->attr * (size_t)n->n_attrs);
    if (!nd->attr) return tfc_pb_arena_status(a, s);
    for (int i = 0; i < n->n_attrs; i++) {
      Tensorflow__NodeDef__AttrEntry *e = tfc_pb_alloc(a, sizeof *e);
      Tensorflow__AttrValue *v = tfc_pb_alloc(a, sizeof *v);
      if (!e || !v) return tfc_pb_arena_status(a, s);
      tensorflow__node_def__attr_entry__init(e);
      e->key = tfc_pb_strdup(a, n->attrs[i].name);
      e->value = v;
      TFC_TRY(tfc_attr_to_proto(&n->attrs[i].value, a, v, s));
      nd->attr[i] = e;
    }
    nd->n_attr = (size_t)n->n_attrs;
  }
  return tfc_pb_arena_status(a, s);
}

int tfc_nodedef_export(const tfc_node *n, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__NodeDef nd;
  int r = tfc_nodedef_build(n, 0, &a, &nd, s);
  if (r == TFC_OK) r = tfc_pb_pack(&nd.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}

static void versions_build(const tfc_graph *g, Tensorflow__VersionDef *v) {
  tensorflow__version_def__init(v);
  v->producer = g->producer;
  v->min_consumer = g->min_consumer;
  v->n_bad_consumers = (size_t)g->n_bad_consumers;
  v->bad_consumers = g->bad_consumers;
}

int tfc_versiondef_export(tfc_graph *g, void **out, size_t *out_len, tfc_status *s) {
  Tensorflow__VersionDef v;
  tfc_graph_lock(g);
  versions_build(g, &v);
  int r = tfc_pb_pack(&v.base, out, out_len, s);
  tfc_graph_unlock(g);
  return r;
}

/* Packs gd with the library's bytes as field 2, in field order (node 1, library 2, versions 4)
 * as TF writes them. */
static int pack_graphdef(Tensorflow__GraphDef *gd, const tfc_funclib *lib, void **out, size_t *out_len,
                         tfc_status *s) {
  void *libb = NULL;
  size_t lib_len = 0;
  if (lib) TFC_TRY(tfc_funclib_export(lib, &libb, &lib_len, s));
  if (!libb) return tfc_pb_pack(&gd->base, out, out_len, s);
  Tensorflow__VersionDef *v = gd->versions;
  gd->versions = NULL;
  size_t head = tensorflow__graph_def__get_packed_size(gd);
  size_t vlen = v ? tensorflow__version_def__get_packed_size(v) : 0;
  uint8_t *buf = malloc(head + lib_len + vlen + 24);
  if (!buf) {
    gd->versions = v;
    free(libb);
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory writing a GraphDef");
  }
  size_t k = tensorflow__graph_def__pack(gd, buf);
  buf[k++] = (2 << 3) | 2;
  k += tfc_pb_put_varint(buf + k, lib_len);
  memcpy(buf + k, libb, lib_len);
  k += lib_len;
  if (v) {
    buf[k++] = (4 << 3) | 2;
    k += tfc_pb_put_varint(buf + k, vlen);
    k += tensorflow__version_def__pack(v, buf + k);
  }
  gd->versions = v;
  free(libb);
  *out = buf;
  *out_len = k;
  return TFC_OK;
}

int tfc_graphdef_export_ex(tfc_graph *g, int first, int assigned, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__GraphDef gd;
  Tensorflow__VersionDef v;
  tensorflow__graph_def__init(&gd);
  tfc_graph_lock(g);
  versions_build(g, &v);
  gd.versions = &v;
  int r = TFC_OK;
  int n = first < g->n_nodes ? g->n_nodes - (first > 0 ? first : 0) : 0;
  if (n) {
    gd.node = tfc_pb_alloc(&a, sizeof *gd.node * (size_t)n);
    Tensorflow__NodeDef *nds = tfc_pb_alloc(&a, sizeof *nds * (size_t)n);
    if (!gd.node || !nds) r = tfc_pb_arena_status(&a, s);
    for (int i = 0; i < n && r == TFC_OK; i++) {
      r = tfc_nodedef_build(g->nodes[g->n_nodes - n + i], assigned, &a, &nds[i], s);
      gd.node[i] = &nds[i];
    }
    gd.n_node = (size_t)n;
  }
  if (r == TFC_OK) r = pack_graphdef(&gd, first == 0 ? &g->library : NULL, out, out_len, s);
  tfc_graph_unlock(g);
  tfc_pb_arena_fini(&a);
  return r;
}

int tfc_graphdef_export(tfc_graph *g, void **out, size_t *out_len, tfc_status *s) {
  return tfc_graphdef_export_ex(g, 0, 0, out, out_len, s);
}

/* ---------------- op defs ---------------- */

static int args_build(const tfc_opdef *op, const tfc_arg_def *args, int n, tfc_pb_arena *a,
                      Tensorflow__OpDef__ArgDef ***out, size_t *n_out) {
  if (!n) return 0;
  Tensorflow__OpDef__ArgDef **list = tfc_pb_alloc(a, sizeof *list * (size_t)n);
  Tensorflow__OpDef__ArgDef *defs = tfc_pb_alloc(a, sizeof *defs * (size_t)n);
  if (!list || !defs) return -1;
  for (int i = 0; i < n; i++) {
    Tensorflow__OpDef__ArgDef *d = &defs[i];
    tensorflow__op_def__arg_def__init(d);
    d->name = tfc_pb_strdup(a, args[i].name);
    int fixed = tfc_opdef_arg_type_1_15(op, &args[i]); /* TF 1.15's OpDef (see tfc_attr_def) */
    d->type = (Tensorflow__DataType)(fixed ? fixed : args[i].type);
    if (args[i].type_attr && !fixed) d->type_attr = tfc_pb_strdup(a, args[i].type_attr);
    if (args[i].number_attr) d->number_attr = tfc_pb_strdup(a, args[i].number_attr);
    if (args[i].type_list_attr) d->type_list_attr = tfc_pb_strdup(a, args[i].type_list_attr);
    d->is_ref = args[i].is_ref != 0;
    list[i] = d;
  }
  *out = list;
  *n_out = (size_t)n;
  return 0;
}

static int opdef_build(const tfc_opdef *op, tfc_pb_arena *a, Tensorflow__OpDef *od, tfc_status *s) {
  tensorflow__op_def__init(od);
  od->name = tfc_pb_strdup(a, op->name);
  if (args_build(op, op->inputs, op->n_inputs, a, &od->input_arg, &od->n_input_arg) ||
      args_build(op, op->outputs, op->n_outputs, a, &od->output_arg, &od->n_output_arg))
    return tfc_pb_arena_status(a, s);
  if (op->n_attrs) {
    od->attr = tfc_pb_alloc(a, sizeof *od->attr * (size_t)op->n_attrs);
    if (!od->attr) return tfc_pb_arena_status(a, s);
    for (int i = 0; i < op->n_attrs; i++) {
      const tfc_attr_def *ad = &op->attrs[i];
      if (ad->added_later) continue; /* TF 1.15's OpDef (see tfc_attr_def) */
      Tensorflow__OpDef__AttrDef *d = tfc_pb_alloc(a, sizeof *d);
      if (!d) return tfc_pb_arena_status(a, s);
      tensorflow__op_def__attr_def__init(d);
      d->name = tfc_pb_strdup(a, ad->name);
      d->type = tfc_pb_strdup(a, ad->type_text);
      if (ad->has_default) {
        d->default_value = tfc_pb_alloc(a, sizeof *d->default_value);
        if (!d->default_value) return tfc_pb_arena_status(a, s);
        TFC_TRY(tfc_attr_to_proto(&ad->default_value, a, d->default_value, s));
      }
      d->has_minimum = ad->has_minimum != 0;
      d->minimum = ad->minimum;
      if (ad->n_allowed) {
        Tensorflow__AttrValue *av = tfc_pb_alloc(a, sizeof *av);
        Tensorflow__AttrValue__ListValue *l = tfc_pb_alloc(a, sizeof *l);
        if (!av || !l) return tfc_pb_arena_status(a, s);
        tensorflow__attr_value__init(av);
        tensorflow__attr_value__list_value__init(l);
        av->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
        av->list = l;
        size_t n = (size_t)ad->n_allowed;
        if (ad->allowed_types) {
          l->type = tfc_pb_alloc(a, sizeof *l->type * n);
          if (!l->type) return tfc_pb_arena_status(a, s);
          for (size_t j = 0; j < n; j++) l->type[j] = (Tensorflow__DataType)ad->allowed_types[j];
          l->n_type = n;
        } else {
          l->s = tfc_pb_alloc(a, sizeof *l->s * n);
          if (!l->s) return tfc_pb_arena_status(a, s);
          for (size_t j = 0; j < n; j++) {
            l->s[j].data = (uint8_t *)ad->allowed_strings[j];
            l->s[j].len = strlen(ad->allowed_strings[j]);
          }
          l->n_s = n;
        }
        d->allowed_values = av;
      }
      od->attr[od->n_attr++] = d;
    }
  }
  od->is_commutative = (op->flags & TFC_OPF_COMMUTATIVE) != 0;
  od->is_aggregate = (op->flags & TFC_OPF_AGGREGATE) != 0;
  od->is_stateful = (op->flags & TFC_OPF_STATEFUL) != 0;
  od->allows_uninitialized_input = (op->flags & TFC_OPF_ALLOW_UNINIT) != 0;
  return tfc_pb_arena_status(a, s);
}

int tfc_opdef_export(const tfc_opdef *op, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__OpDef od;
  int r = opdef_build(op, &a, &od, s);
  if (r == TFC_OK) r = tfc_pb_pack(&od.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}

int tfc_oplist_export_ops(const tfc_opdef *const *ops, int n_ops, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__OpList ol;
  tensorflow__op_list__init(&ol);
  int r = TFC_OK;
  ol.op = tfc_pb_alloc(&a, sizeof *ol.op * (size_t)(n_ops + 1));
  if (!ol.op) r = tfc_pb_arena_status(&a, s);
  for (int i = 0; i < n_ops && r == TFC_OK; i++) {
    Tensorflow__OpDef *od = tfc_pb_alloc(&a, sizeof *od);
    if (!od) {
      r = tfc_pb_arena_status(&a, s);
      break;
    }
    r = opdef_build(ops[i], &a, od, s);
    ol.op[ol.n_op++] = od;
  }
  if (r == TFC_OK) r = tfc_pb_pack(&ol.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}

int tfc_oplist_export(void **out, size_t *out_len, tfc_status *s) {
  TFC_TRY(tfc_ops_init(s));
  /* The table's ops, then those registered at run time (ops/user_ops.h). */
  int n_user = tfc_user_op_count();
  const tfc_opdef **ops = malloc(sizeof *ops * (size_t)(TFC_OP_COUNT + n_user + 1));
  if (!ops) return TFC_OOM(s);
  int n = 0;
  for (int i = 0; i < TFC_OP_COUNT + n_user; i++) {
    const tfc_opdef *op = tfc_op_by_id(i < TFC_OP_COUNT ? i : TFC_OP_USER_BASE + i - TFC_OP_COUNT);
    if (!op || (op->flags & TFC_OPF_INTERNAL) || op->name[0] == '_') continue;
    ops[n++] = op;
  }
  int r = tfc_oplist_export_ops(ops, n, out, out_len, s);
  free(ops);
  return r;
}
