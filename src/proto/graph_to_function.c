/*
 * graph_to_function — TF_GraphToFunction's FunctionDef; see graph_to_function.h. All message
 * pieces live in one arena; name tables are hashmaps whose values are arena strings (or
 * counters, stored as count + 1 so that 0 stays "absent").
 */
#include "proto/graph_to_function.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "proto/function_codec.h"
#include "proto/graphdef.h"
#include "proto/pb_util.h"
#include "tensor/dtype.h"

typedef struct namer {
  tfc_pb_arena *a;
  tfc_hashmap used;    /* name -> next suffix + 1 */
  tfc_hashmap mapping; /* node name -> its name in the function */
  tfc_hashmap tensors; /* "node:k" -> its name in the function */
} namer;

static char *normalize(tfc_pb_arena *a, const char *name) {
  size_t n = strlen(name), i = 0;
  char *r = tfc_pb_strdup(a, name);
  if (!r) return NULL;
  for (size_t k = 0; k < n; k++)
    r[k] = isalnum((unsigned char)r[k]) ? (char)tolower((unsigned char)r[k]) : '_';
  while (i < n && !isalpha((unsigned char)r[i])) i++;
  return i == n ? tfc_pb_strdup(a, "unknown") : r + i;
}

/* TF's UniquifyHelper: the name itself if unused, else name_<k> for the first free k. */
static char *uniquify(namer *nm, const char *name) {
  intptr_t c = (intptr_t)tfc_hashmap_get(&nm->used, name);
  if (!c) {
    tfc_hashmap_put(&nm->used, name, (void *)(intptr_t)1);
    return tfc_pb_strdup(nm->a, name);
  }
  size_t len = strlen(name) + 24;
  char *cand = tfc_pb_alloc(nm->a, len);
  if (!cand) return NULL;
  for (;;) {
    snprintf(cand, len, "%s_%ld", name, (long)(c - 1));
    c++;
    tfc_hashmap_put(&nm->used, name, (void *)c);
    if (!tfc_hashmap_get(&nm->used, cand)) {
      tfc_hashmap_put(&nm->used, cand, (void *)(intptr_t)1);
      return cand;
    }
  }
}

/* "node:k" in a malloc'd buffer (names may be long); NULL on out of memory. */
static char *tensor_key(const char *node, int k) {
  size_t len = strlen(node) + 16;
  char *key = malloc(len);
  if (key) snprintf(key, len, "%s:%d", node, k);
  return key;
}

static int tensor_put(namer *nm, const char *node, int k, const char *value, int overwrite, tfc_status *s) {
  char *key = tensor_key(node, k);
  if (!key) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory naming tensor %s:%d", node, k);
  int r = TFC_OK;
  if (overwrite || !tfc_hashmap_get(&nm->tensors, key))
    if (tfc_hashmap_put(&nm->tensors, key, (void *)value))
      r = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory naming tensor %s:%d", node, k);
  free(key);
  return r;
}

/* The function's name for tensor node:k, or NULL (also on out of memory, which the caller then
 * reports as a missing tensor). */
static const char *tensor_get(namer *nm, const char *node, int k) {
  char *key = tensor_key(node, k);
  const char *v = key ? tfc_hashmap_get(&nm->tensors, key) : NULL;
  free(key);
  return v;
}

/* TF's Edge::DebugString for a control edge. TF numbers edges in creation order from 1 (0 is
 * _SOURCE -> _SINK): each node's data inputs, then its control inputs. The id is TF's for
 * graphs built op by op; for imported graphs, whose edges TF numbers differently, only close. */
static void control_edge_text(const tfc_graph *g, const tfc_node *dst, int c, char *buf, size_t len) {
  long id = 1;
  for (int i = 0; i < g->n_nodes && g->nodes[i] != dst; i++)
    id += g->nodes[i]->n_inputs + g->nodes[i]->n_control_inputs;
  id += dst->n_inputs + c;
  snprintf(buf, len, "[id=%ld %s:-1 -> %s:-1]", id, dst->control_inputs[c]->name, dst->name);
}

static int check_non_ref(const tfc_endpoint *e, const char *what, int i, const char *fn, tfc_status *s) {
  int dt = e->node->output_types[e->index];
  if (!tfc_dtype_is_ref(dt)) return TFC_OK;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                        "Output %d of node '%s' has a reference type %s\n\tEncountered while processing %s %d %s "
                        "function '%s'",
                        e->index, e->node->name, tfc_dtype_name(dt), what, i,
                        strcmp(what, "input") == 0 ? "into" : "from", fn);
}

/* Input i's arg_attr (TF 2.x): the input node's internal ("_") attrs, and its "shape" attr as
 * "_output_shapes" unless the arg is a resource. Every input gets an entry. */
static int arg_attr_build(const tfc_endpoint *e, int i, int type, tfc_pb_arena *ar,
                          Tensorflow__FunctionDef__ArgAttrEntry **out, tfc_status *s) {
  Tensorflow__NodeDef nd;
  TFC_TRY(tfc_nodedef_build(e->node, 0, ar, &nd, s));
  Tensorflow__FunctionDef__ArgAttrEntry *entry = tfc_pb_alloc(ar, sizeof *entry);
  Tensorflow__FunctionDef__ArgAttrs *attrs = tfc_pb_alloc(ar, sizeof *attrs);
  if (!entry || !attrs) return tfc_pb_arena_status(ar, s);
  tensorflow__function_def__arg_attr_entry__init(entry);
  tensorflow__function_def__arg_attrs__init(attrs);
  entry->key = (uint32_t)i;
  entry->value = attrs;
  if (nd.n_attr) {
    attrs->attr = tfc_pb_alloc(ar, sizeof *attrs->attr * nd.n_attr);
    if (!attrs->attr) return tfc_pb_arena_status(ar, s);
  }
  for (size_t k = 0; k < nd.n_attr; k++) {
    const Tensorflow__NodeDef__AttrEntry *ne = nd.attr[k];
    Tensorflow__FunctionDef__ArgAttrs__AttrEntry *ae = tfc_pb_alloc(ar, sizeof *ae);
    if (!ae) return tfc_pb_arena_status(ar, s);
    tensorflow__function_def__arg_attrs__attr_entry__init(ae);
    if (ne->key[0] == '_') {
      ae->key = ne->key;
      ae->value = ne->value;
    } else if (strcmp(ne->key, "shape") == 0 && type != TFC_DT_RESOURCE && ne->value &&
               ne->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE) {
      Tensorflow__AttrValue *v = tfc_pb_alloc(ar, sizeof *v);
      Tensorflow__AttrValue__ListValue *l = tfc_pb_alloc(ar, sizeof *l);
      Tensorflow__TensorShapeProto **shapes = tfc_pb_alloc(ar, sizeof *shapes);
      if (!v || !l || !shapes) return tfc_pb_arena_status(ar, s);
      tensorflow__attr_value__init(v);
      tensorflow__attr_value__list_value__init(l);
      shapes[0] = ne->value->shape;
      l->n_shape = 1;
      l->shape = shapes;
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
      v->list = l;
      ae->key = "_output_shapes";
      ae->value = v;
    } else {
      continue;
    }
    attrs->attr[attrs->n_attr++] = ae;
  }
  *out = entry;
  return TFC_OK;
}

static int build(const tfc_graph *g, const tfc_graph_to_function_args *a, namer *nm, Tensorflow__FunctionDef *fd,
                 Tensorflow__OpDef *sig, tfc_status *s) {
  tfc_pb_arena *ar = nm->a;
  const char *fn = a->fn_name;
  /* Inputs: no tensor twice; with num_opers -1, input nodes have one output. */
  for (int i = 0; i < a->ninputs; i++) {
    TFC_TRY(check_non_ref(&a->inputs[i], "input", i, fn, s));
    for (int j = 0; j < i; j++)
      if (a->inputs[j].node == a->inputs[i].node && a->inputs[j].index == a->inputs[i].index)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_Output %s:%d appears more than once in the input list",
                              a->inputs[i].node->name, a->inputs[i].index);
  }
  for (int i = 0; i < a->noutputs; i++) TFC_TRY(check_non_ref(&a->outputs[i], "output", i, fn, s));
  /* Body nodes. */
  int nbody = 0;
  const tfc_node **body = tfc_pb_alloc(ar, sizeof *body * (size_t)(g->n_nodes + (a->num_opers > 0 ? a->num_opers : 0) + 1));
  if (!body) return tfc_pb_arena_status(ar, s);
  if (a->num_opers == -1) {
    for (int k = 0; k < g->n_nodes; k++) {
      const tfc_node *n = g->nodes[k];
      int is_input = 0;
      for (int i = 0; i < a->ninputs && !is_input; i++) is_input = a->inputs[i].node == n;
      if (!is_input) {
        body[nbody++] = n;
      } else if (n->n_outputs != 1) {
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "When `num_opers` is set to -1, nodes referenced in `inputs` must have a single "
                              "output. Node %s has %d outputs. Encountered while creating function '%s'",
                              n->name, n->n_outputs, fn);
      }
    }
  } else {
    for (int k = 0; k < a->num_opers; k++) body[nbody++] = a->opers[k];
  }

  /* Output args, then input args, then body node names. */
  if (a->noutputs) {
    sig->output_arg = tfc_pb_alloc(ar, sizeof *sig->output_arg * (size_t)a->noutputs);
    if (!sig->output_arg) return tfc_pb_arena_status(ar, s);
  }
  for (int i = 0; i < a->noutputs; i++) {
    Tensorflow__OpDef__ArgDef *ad = tfc_pb_alloc(ar, sizeof *ad);
    if (!ad) return tfc_pb_arena_status(ar, s);
    tensorflow__op_def__arg_def__init(ad);
    ad->type = (Tensorflow__DataType)a->outputs[i].node->output_types[a->outputs[i].index];
    if (a->output_names) {
      if (tfc_hashmap_get(&nm->used, a->output_names[i]))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Cannot have duplicate output names. Name '%s' appears more than once in "
                              "'output_names' array.",
                              a->output_names[i]);
      tfc_hashmap_put(&nm->used, a->output_names[i], (void *)(intptr_t)1);
      ad->name = tfc_pb_strdup(ar, a->output_names[i]);
    } else {
      char *norm = normalize(ar, a->outputs[i].node->name);
      ad->name = norm ? uniquify(nm, norm) : NULL;
    }
    if (!ad->name) return tfc_pb_arena_status(ar, s);
    sig->output_arg[sig->n_output_arg++] = ad;
  }
  if (a->ninputs) {
    sig->input_arg = tfc_pb_alloc(ar, sizeof *sig->input_arg * (size_t)a->ninputs);
    fd->arg_attr = tfc_pb_alloc(ar, sizeof *fd->arg_attr * (size_t)a->ninputs);
    if (!sig->input_arg || !fd->arg_attr) return tfc_pb_arena_status(ar, s);
  }
  for (int i = 0; i < a->ninputs; i++) {
    const tfc_endpoint *e = &a->inputs[i];
    Tensorflow__OpDef__ArgDef *ad = tfc_pb_alloc(ar, sizeof *ad);
    if (!ad) return tfc_pb_arena_status(ar, s);
    tensorflow__op_def__arg_def__init(ad);
    ad->type = (Tensorflow__DataType)e->node->output_types[e->index];
    char *norm = normalize(ar, e->node->name);
    ad->name = norm ? uniquify(nm, norm) : NULL;
    if (!ad->name) return tfc_pb_arena_status(ar, s);
    TFC_TRY(arg_attr_build(e, i, (int)ad->type, ar, &fd->arg_attr[i], s));
    fd->n_arg_attr++;
    tfc_hashmap_put(&nm->mapping, e->node->name, ad->name);
    TFC_TRY(tensor_put(nm, e->node->name, e->index, ad->name, 1, s));
    sig->input_arg[sig->n_input_arg++] = ad;
  }
  const char **names = tfc_pb_alloc(ar, sizeof *names * (size_t)(nbody + 1));
  if (!names) return tfc_pb_arena_status(ar, s);
  for (int b = 0; b < nbody; b++) {
    const tfc_node *n = body[b];
    names[b] = uniquify(nm, n->name);
    if (!names[b]) return tfc_pb_arena_status(ar, s);
    tfc_hashmap_put(&nm->mapping, n->name, (void *)names[b]);
    for (int o = 0; o < n->op->n_outputs; o++) {
      int start, stop;
      if (tfc_node_output_range(n, n->op->outputs[o].name, &start, &stop)) continue;
      for (int k = start; k < stop; k++) {
        size_t len = strlen(names[b]) + strlen(n->op->outputs[o].name) + 24;
        char *v = tfc_pb_alloc(ar, len);
        if (!v) return tfc_pb_arena_status(ar, s);
        snprintf(v, len, "%s:%s:%d", names[b], n->op->outputs[o].name, k - start);
        TFC_TRY(tensor_put(nm, n->name, k, v, 0, s));
      }
    }
  }

  /* Node defs with renamed inputs. */
  if (nbody) {
    fd->node_def = tfc_pb_alloc(ar, sizeof *fd->node_def * (size_t)nbody);
    if (!fd->node_def) return tfc_pb_arena_status(ar, s);
  }
  for (int b = 0; b < nbody; b++) {
    const tfc_node *n = body[b];
    Tensorflow__NodeDef *nd = tfc_pb_alloc(ar, sizeof *nd);
    if (!nd) return tfc_pb_arena_status(ar, s);
    TFC_TRY(tfc_nodedef_build(n, 0, ar, nd, s));
    nd->name = (char *)names[b];
    for (int i = 0; i < n->n_inputs; i++) {
      const char *v = tensor_get(nm, n->inputs[i].node->name, n->inputs[i].index);
      if (!v)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "Input %d, '%s:%d', of node '%s' in function '%s' is not available. You might need "
                              "to include it in inputs or include its source node in the body",
                              i, n->inputs[i].node->name, n->inputs[i].index, n->name, fn);
      nd->input[i] = (char *)v;
    }
    for (int c = 0; c < n->n_control_inputs; c++) {
      const char *v = tfc_hashmap_get(&nm->mapping, n->control_inputs[c]->name);
      if (!v) {
        char edge[2200];
        control_edge_text(g, n, c, edge, sizeof edge);
        return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                              "The source of control edge %s is not in the body. Encountered while creating "
                              "function '%s'",
                              edge, fn);
      }
      size_t len = strlen(v) + 2;
      char *ci = tfc_pb_alloc(ar, len);
      if (!ci) return tfc_pb_arena_status(ar, s);
      snprintf(ci, len, "^%s", v);
      nd->input[n->n_inputs + c] = ci;
    }
    if (n->op->flags & TFC_OPF_STATEFUL) sig->is_stateful = 1;
    fd->node_def[fd->n_node_def++] = nd;
  }

  /* ret */
  if (a->noutputs) {
    fd->ret = tfc_pb_alloc(ar, sizeof *fd->ret * (size_t)a->noutputs);
    if (!fd->ret) return tfc_pb_arena_status(ar, s);
  }
  for (int i = 0; i < a->noutputs; i++) {
    const char *v = tensor_get(nm, a->outputs[i].node->name, a->outputs[i].index);
    if (!v)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "TF_Output %s:%d is neither in the function body nor among function inputs. "
                            "Encountered while creating function '%s'",
                            a->outputs[i].node->name, a->outputs[i].index, fn);
    Tensorflow__FunctionDef__RetEntry *r = tfc_pb_alloc(ar, sizeof *r);
    if (!r) return tfc_pb_arena_status(ar, s);
    tensorflow__function_def__ret_entry__init(r);
    r->key = sig->output_arg[i]->name;
    r->value = (char *)v;
    fd->ret[fd->n_ret++] = r;
  }

  /* Control outputs. */
  if (a->ncontrol_outputs) {
    fd->control_ret = tfc_pb_alloc(ar, sizeof *fd->control_ret * (size_t)a->ncontrol_outputs);
    sig->control_output = tfc_pb_alloc(ar, sizeof *sig->control_output * (size_t)a->ncontrol_outputs);
    if (!fd->control_ret || !sig->control_output) return tfc_pb_arena_status(ar, s);
  }
  for (int i = 0; i < a->ncontrol_outputs; i++) {
    const char *name = a->control_output_names ? a->control_output_names[i] : a->control_outputs[i]->name;
    if (!name || !name[0]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Control output name must be not empty");
    for (size_t j = 0; j < sig->n_control_output; j++)
      if (strcmp(sig->control_output[j], name) == 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Repeated control output name: %s", name);
    /* TF's text for a node neither in the body nor among the inputs. */
    const char *node = tfc_hashmap_get(&nm->mapping, a->control_outputs[i]->name);
    if (!node)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Control output node name must be not empty");
    Tensorflow__FunctionDef__ControlRetEntry *r = tfc_pb_alloc(ar, sizeof *r);
    if (!r) return tfc_pb_arena_status(ar, s);
    tensorflow__function_def__control_ret_entry__init(r);
    r->key = tfc_pb_strdup(ar, name);
    r->value = (char *)node;
    sig->control_output[sig->n_control_output++] = r->key;
    fd->control_ret[fd->n_control_ret++] = r;
  }
  return tfc_pb_arena_status(ar, s);
}

int tfc_graph_to_functiondef(const tfc_graph *g, const tfc_graph_to_function_args *a, void **out, size_t *out_len,
                             tfc_status *s) {
  *out = NULL;
  *out_len = 0;
  if (a->append_hash)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "append_hash_to_fn_name is not supported yet (function '%s'): pass 0", a->fn_name);
  tfc_pb_arena ar;
  tfc_pb_arena_init(&ar);
  namer nm = {&ar, {0}, {0}, {0}};
  tfc_hashmap_init(&nm.used);
  tfc_hashmap_init(&nm.mapping);
  tfc_hashmap_init(&nm.tensors);
  Tensorflow__FunctionDef fd;
  Tensorflow__OpDef sig;
  tensorflow__function_def__init(&fd);
  tensorflow__op_def__init(&sig);
  sig.name = (char *)a->fn_name;
  if (a->description) sig.description = (char *)a->description;
  fd.signature = &sig;
  int r = build(g, a, &nm, &fd, &sig, s);
  if (r == TFC_OK) r = tfc_functiondef_pack(&fd, out, out_len, s);
  tfc_hashmap_fini(&nm.used);
  tfc_hashmap_fini(&nm.mapping);
  tfc_hashmap_fini(&nm.tensors);
  tfc_pb_arena_fini(&ar);
  return r;
}
