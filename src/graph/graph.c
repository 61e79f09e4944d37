/*
 * graph — see graph.h.
 *
 * tfc_node_desc_finish does what TF's NodeBuilder + ValidateNodeDef + shape refiner do, in
 * order: group inputs by arg, infer type/number attrs from the inputs, fill defaults, check
 * every attr against the op def, derive output types, run the shape function, then insert.
 * Error texts follow TF's where users see them.
 */
#include "graph/graph.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "graph/shape_eval.h"

typedef struct input_group {
  int is_list;
  int n;
  tfc_endpoint *eps;
} input_group;

struct tfc_node_desc {
  tfc_graph *g;
  char *op_type;
  char *name;
  char *device;
  int flat; /* inputs added with add_input_flat: one group holds them all */
  int n_groups;
  input_group *groups;
  int n_controls;
  tfc_node **controls;
  int n_attrs;
  tfc_attr *attrs;
  tfc_status err;
  int importing; /* see tfc_node_desc_set_importing */
  int tf_made;   /* the failure came after TF would have made the node: its TF id is used */
};

/* ---------------- graph ---------------- */

tfc_graph *tfc_graph_new(void) {
  tfc_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  pthread_mutex_init(&g->mu, NULL);
  tfc_hashmap_init(&g->by_name);
  tfc_funclib_init(&g->library);
  g->producer = TFC_GRAPH_DEF_VERSION;
  g->next_tf_id = 2; /* TF's _SOURCE and _SINK hold 0 and 1 */
  return g;
}

static void node_free(tfc_node *n) {
  if (!n) return;
  free(n->name);
  free(n->device);
  free(n->assigned_device);
  free(n->inputs);
  free(n->input_types);
  free(n->control_inputs);
  tfc_attrs_free(n->attrs, n->n_attrs);
  free(n->output_types);
  free(n->output_shapes);
  free(n);
}

void tfc_graph_free(tfc_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n_nodes; i++) node_free(g->nodes[i]);
  free(g->nodes);
  free(g->bad_consumers);
  tfc_funclib_fini(&g->library);
  tfc_hashmap_fini(&g->by_name);
  pthread_mutex_destroy(&g->mu);
  free(g);
}

void tfc_graph_lock(tfc_graph *g) { pthread_mutex_lock(&g->mu); }
void tfc_graph_unlock(tfc_graph *g) { pthread_mutex_unlock(&g->mu); }

tfc_node *tfc_graph_find(const tfc_graph *g, const char *name) {
  return tfc_hashmap_get(&g->by_name, name);
}

int tfc_graph_num_nodes(tfc_graph *g) {
  tfc_graph_lock(g);
  int n = g->n_nodes;
  tfc_graph_unlock(g);
  return n;
}

int tfc_node_name_valid(const char *name) {
  if (!name || !*name) return 0;
  if (!isalnum((unsigned char)name[0]) && name[0] != '.') return 0;
  for (const char *p = name + 1; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("_./-", *p)) return 0;
  return 1;
}

int tfc_graph_name_valid(const tfc_graph *g, const char *name) {
  if (g->internal_names && name[0] == '_' && name[1]) return tfc_node_name_valid(name + 1);
  return tfc_node_name_valid(name);
}

int tfc_graph_mark(const tfc_graph *g) { return g->n_nodes; }

/* Name map has no delete: rebuild it after a rollback (rare: failed imports only). */
void tfc_graph_rollback(tfc_graph *g, int mark) {
  if (mark >= g->n_nodes) return;
  for (int i = mark; i < g->n_nodes; i++) node_free(g->nodes[i]);
  g->n_nodes = mark;
  tfc_hashmap_fini(&g->by_name);
  tfc_hashmap_init(&g->by_name);
  for (int i = 0; i < g->n_nodes; i++) tfc_hashmap_put(&g->by_name, g->nodes[i]->name, g->nodes[i]);
}

void tfc_graph_burn_tf_ids(tfc_graph *g, int n) {
  if (n > 0) g->next_tf_id += n;
}

tfc_node *tfc_graph_node_at_tf_id(const tfc_graph *g, int tf_id) {
  int lo = 0, hi = g->n_nodes; /* tf_id grows with the index: the first at or past tf_id */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (g->nodes[mid]->tf_id < tf_id) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->n_nodes ? g->nodes[lo] : NULL;
}

static int insert_node(tfc_graph *g, tfc_node *n, tfc_status *s) {
  if (g->n_nodes == g->cap_nodes) {
    int cap = g->cap_nodes ? g->cap_nodes * 2 : 64;
    tfc_node **nn = realloc(g->nodes, sizeof *nn * (size_t)cap);
    if (!nn) return TFC_OOM(s);
    g->nodes = nn;
    g->cap_nodes = cap;
  }
  if (tfc_hashmap_put(&g->by_name, n->name, n) != 0) return TFC_OOM(s);
  n->id = g->n_nodes;
  n->tf_id = g->next_tf_id++;
  n->graph = g;
  g->nodes[g->n_nodes++] = n;
  return TFC_OK;
}

char *tfc_graph_unique_name(tfc_graph *g, const char *base) {
  if (!tfc_graph_find(g, base)) return tfc_strdup(base);
  for (int i = 1;; i++) {
    char *n = NULL;
    if (asprintf(&n, "%s_%d", base, i) < 0) return NULL;
    if (!tfc_graph_find(g, n)) return n;
    free(n);
  }
}

/* ---------------- attr access ---------------- */

const tfc_attr_value *tfc_node_attr(const tfc_node *n, const char *name) {
  const tfc_attr_value *v = tfc_attrs_find(n->attrs, n->n_attrs, name);
  if (v || !n->op) return v;
  /* An attr TF added after 1.15 is not written into nodes that lack it; readers (kernels,
   * shape functions) see its declared default instead. */
  for (int i = 0; i < n->op->n_attrs; i++) {
    const tfc_attr_def *a = &n->op->attrs[i];
    if (a->added_later && a->has_default && strcmp(a->name, name) == 0) return &a->default_value;
  }
  return NULL;
}

int tfc_node_attr_type(const tfc_node *n, const char *name, int *out) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_TYPE) return -1;
  *out = v->u.type;
  return 0;
}

int tfc_node_attr_int(const tfc_node *n, const char *name, int64_t *out) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_INT) return -1;
  *out = v->u.i;
  return 0;
}

int tfc_node_attr_bool(const tfc_node *n, const char *name, int *out) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_BOOL) return -1;
  *out = v->u.b;
  return 0;
}

/* Number of flat tensors an arg stands for, from the node's attrs. */
static int arg_count(const tfc_attr *attrs, int n_attrs, const tfc_arg_def *a) {
  if (a->number_attr) {
    const tfc_attr_value *v = tfc_attrs_find(attrs, n_attrs, a->number_attr);
    return v && v->kind == TFC_ATTR_INT && v->u.i >= 0 ? (int)v->u.i : -1;
  }
  if (a->type_list_attr) {
    const tfc_attr_value *v = tfc_attrs_find(attrs, n_attrs, a->type_list_attr);
    return v && v->kind == TFC_ATTR_LIST ? v->u.list.n : -1;
  }
  return 1;
}

static int arg_range(const tfc_node *n, const tfc_arg_def *args, int n_args, const char *arg,
                     int *start, int *stop) {
  int pos = 0;
  for (int i = 0; i < n_args; i++) {
    int c = arg_count(n->attrs, n->n_attrs, &args[i]);
    if (c < 0) return -1;
    if (strcmp(args[i].name, arg) == 0) {
      *start = pos;
      *stop = pos + c;
      return 0;
    }
    pos += c;
  }
  return -1;
}

int tfc_node_input_range(const tfc_node *n, const char *arg, int *start, int *stop) {
  return arg_range(n, n->op->inputs, n->op->n_inputs, arg, start, stop);
}

int tfc_node_output_range(const tfc_node *n, const char *arg, int *start, int *stop) {
  return arg_range(n, n->op->outputs, n->op->n_outputs, arg, start, stop);
}

/* ---------------- descriptions ---------------- */

tfc_node_desc *tfc_node_desc_new(tfc_graph *g, const char *op_type, const char *name) {
  tfc_node_desc *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->g = g;
  d->op_type = tfc_strdup(op_type ? op_type : "");
  d->name = tfc_strdup(name ? name : "");
  d->device = tfc_strdup("");
  tfc_status_init(&d->err);
  if (!d->op_type || !d->name || !d->device) {
    tfc_node_desc_free(d);
    return NULL;
  }
  return d;
}

void tfc_node_desc_set_importing(tfc_node_desc *d) { d->importing = 1; }

void tfc_node_desc_free(tfc_node_desc *d) {
  if (!d) return;
  free(d->op_type);
  free(d->name);
  free(d->device);
  for (int i = 0; i < d->n_groups; i++) free(d->groups[i].eps);
  free(d->groups);
  free(d->controls);
  tfc_attrs_free(d->attrs, d->n_attrs);
  tfc_status_fini(&d->err);
  free(d);
}

void tfc_node_desc_fail(tfc_node_desc *d, int code, const char *msg) {
  tfc_status_set(&d->err, code, "%s", msg);
}

void tfc_node_desc_set_device(tfc_node_desc *d, const char *device) {
  char *c = tfc_strdup(device ? device : "");
  if (!c) { TFC_OOM(&d->err); return; }
  free(d->device);
  d->device = c;
}

static void add_group(tfc_node_desc *d, int is_list, const tfc_endpoint *eps, int n) {
  input_group *g = realloc(d->groups, sizeof *g * (size_t)(d->n_groups + 1));
  if (!g) { TFC_OOM(&d->err); return; }
  d->groups = g;
  input_group *ng = &g[d->n_groups];
  ng->is_list = is_list;
  ng->n = n;
  ng->eps = n ? malloc(sizeof *eps * (size_t)n) : NULL;
  if (n && !ng->eps) { TFC_OOM(&d->err); return; }
  if (n) memcpy(ng->eps, eps, sizeof *eps * (size_t)n);
  d->n_groups++;
}

void tfc_node_desc_add_input(tfc_node_desc *d, tfc_endpoint in) {
  if (d->flat) tfc_status_set(&d->err, TFC_INTERNAL, "mixed flat and grouped inputs");
  add_group(d, 0, &in, 1);
}

void tfc_node_desc_add_input_list(tfc_node_desc *d, const tfc_endpoint *ins, int n) {
  if (d->flat) tfc_status_set(&d->err, TFC_INTERNAL, "mixed flat and grouped inputs");
  if (n < 0) n = 0;
  add_group(d, 1, ins, n);
}

void tfc_node_desc_add_input_flat(tfc_node_desc *d, tfc_endpoint in) {
  if (!d->flat) {
    if (d->n_groups) { tfc_status_set(&d->err, TFC_INTERNAL, "mixed flat and grouped inputs"); return; }
    d->flat = 1;
    add_group(d, 1, NULL, 0);
    if (!tfc_status_ok(&d->err)) return;
  }
  input_group *g = &d->groups[0];
  tfc_endpoint *e = realloc(g->eps, sizeof *e * (size_t)(g->n + 1));
  if (!e) { TFC_OOM(&d->err); return; }
  e[g->n++] = in;
  g->eps = e;
}

void tfc_node_desc_add_control(tfc_node_desc *d, tfc_node *n) {
  for (int i = 0; i < d->n_controls; i++)
    if (d->controls[i] == n) return;
  tfc_node **c = realloc(d->controls, sizeof *c * (size_t)(d->n_controls + 1));
  if (!c) { TFC_OOM(&d->err); return; }
  c[d->n_controls++] = n;
  d->controls = c;
}

void tfc_node_desc_set_attr(tfc_node_desc *d, const char *name, tfc_attr_value *v) {
  tfc_attrs_set(&d->attrs, &d->n_attrs, name, v, &d->err);
}

void tfc_node_desc_colocate_with(tfc_node_desc *d, tfc_node *n) {
  const tfc_attr_value *old = tfc_attrs_find(d->attrs, d->n_attrs, "_class");
  tfc_attr_value list = tfc_attr_list(TFC_ATTR_STRING);
  if (old && old->kind == TFC_ATTR_LIST && tfc_attr_value_copy(old, &list, &d->err)) return;
  char *loc = NULL;
  if (asprintf(&loc, "loc:@%s", n->name) < 0) { TFC_OOM(&d->err); tfc_attr_value_fini(&list); return; }
  for (int i = 0; i < list.u.list.n; i++)
    if (strcmp(list.u.list.items[i].u.s.data, loc) == 0) {
      free(loc);
      tfc_attr_value_fini(&list);
      return;
    }
  tfc_attr_value item;
  if (tfc_attr_string(loc, strlen(loc), &item, &d->err) == TFC_OK)
    tfc_attr_list_append(&list, &item, &d->err);
  free(loc);
  list.list_kind = TFC_ATTR_STRING;
  tfc_node_desc_set_attr(d, "_class", &list);
}

/* ---------------- finish: validation ---------------- */

static int node_err(tfc_status *s, const tfc_node_desc *d, const tfc_opdef *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* TF's form: "<what> while building NodeDef 'name' using Op<...>" */
static int node_err(tfc_status *s, const tfc_node_desc *d, const tfc_opdef *op, const char *fmt, ...) {
  char msg[1024], sig[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tfc_opdef_format(op, sig, sizeof sig);
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s while building NodeDef '%s' using %s", msg,
                        d->name, sig);
}

static int endpoint_type(tfc_endpoint e) { return e.node->output_types[e.index]; }

static const char *type_name_upper(int dt, char *buf, size_t n) {
  tfc_attr_value v = tfc_attr_type(dt);
  tfc_attr_value_format(&v, buf, n);
  return buf;
}

/* Sets attr `name` to `v` or checks it against the existing value. Takes v. */
static int infer_attr(tfc_node_desc *d, const tfc_opdef *op, const char *name, tfc_attr_value *v,
                      tfc_status *s) {
  const tfc_attr_value *old = tfc_attrs_find(d->attrs, d->n_attrs, name);
  const tfc_attr_def *ad = old ? NULL : tfc_opdef_attr(op, name);
  if (ad && ad->added_later && ad->has_default && tfc_attr_value_equal(&ad->default_value, v)) {
    /* An attr TF added after 1.15 (TopKV2's Tk) inferred as its default stays unwritten, so
     * the node is TF 1.15's; readers see the default (tfc_node_attr). */
    tfc_attr_value_fini(v);
    return TFC_OK;
  }
  if (!old) {
    tfc_attrs_set(&d->attrs, &d->n_attrs, name, v, s);
    return s->code;
  }
  int same = tfc_attr_value_equal(old, v);
  if (!same && old->kind == TFC_ATTR_LIST && v->kind == TFC_ATTR_LIST && old->u.list.n == 0 &&
      v->u.list.n == 0)
    same = 1;
  if (!same) {
    char a[256], b[256];
    tfc_attr_value_format(old, a, sizeof a);
    tfc_attr_value_format(v, b, sizeof b);
    tfc_attr_value_fini(v);
    return node_err(s, d, op, "Inconsistent values for attr '%s' %s vs. %s", name, a, b);
  }
  tfc_attr_value_fini(v);
  return TFC_OK;
}

/* Groups flat inputs into per-arg groups using the attrs (NodeDef import path). */
static int group_flat(tfc_node_desc *d, const tfc_opdef *op, tfc_status *s) {
  input_group flat = d->groups[0];
  int pos = 0;
  input_group *groups = calloc((size_t)(op->n_inputs ? op->n_inputs : 1), sizeof *groups);
  if (!groups) return TFC_OOM(s);
  for (int i = 0; i < op->n_inputs; i++) {
    const tfc_arg_def *a = &op->inputs[i];
    int c = 1;
    if (a->number_attr || a->type_list_attr) {
      const char *an = a->number_attr ? a->number_attr : a->type_list_attr;
      const tfc_attr_value *v = tfc_attrs_find(d->attrs, d->n_attrs, an);
      if (!v) {
        const tfc_attr_def *ad = tfc_opdef_attr(op, an);
        v = ad && ad->has_default ? &ad->default_value : NULL;
      }
      if (!v) /* TF infers N from the remaining inputs when it is the only list arg left. */
        c = flat.n - pos - (op->n_inputs - i - 1);
      else
        c = v->kind == TFC_ATTR_INT ? (int)v->u.i : v->kind == TFC_ATTR_LIST ? v->u.list.n : -1;
      if (c < 0 || pos + c > flat.n) {
        node_err(s, d, op, "Inconsistent number of inputs (%d) for list arg '%s'", flat.n, a->name);
        goto fail;
      }
      groups[i].is_list = 1;
    } else if (pos >= flat.n) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "NodeDef expected inputs '%d' do not match %d inputs specified; %s",
                     pos + 1 + (op->n_inputs - i - 1), flat.n, d->name);
      goto fail;
    }
    groups[i].n = c;
    groups[i].eps = c ? malloc(sizeof(tfc_endpoint) * (size_t)c) : NULL;
    if (c && !groups[i].eps) {
      TFC_OOM(s);
      goto fail;
    }
    if (c) memcpy(groups[i].eps, flat.eps + pos, sizeof(tfc_endpoint) * (size_t)c);
    pos += c;
  }
  if (pos != flat.n) {
    char sig[2048];
    tfc_opdef_format(op, sig, sizeof sig);
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "NodeDef expected inputs '%d' do not match %d inputs specified; %s; NodeDef: {{node %s}}", pos,
                   flat.n, sig, d->name);
    goto fail;
  }
  free(flat.eps);
  free(d->groups);
  d->groups = groups;
  d->n_groups = op->n_inputs;
  d->flat = 0;
  return TFC_OK;
fail: /* groups past the failing arg are still zeroed by calloc */
  for (int j = 0; j < op->n_inputs; j++) free(groups[j].eps);
  free(groups);
  return s->code;
}

/* Infers T / N / Tlist attrs from the grouped inputs and checks ref-ness. */
/* An input whose type disagrees with the node's attrs: TF's importer finds it after it made
 * the node (see tfc_node_desc_set_importing). */
static int type_conflict(tfc_node_desc *d, tfc_status *s) {
  d->tf_made = d->importing;
  return s->code;
}

/* An imported node's input whose type is not the one its attrs give: TF's importer makes the
 * node from its NodeDef, then finds the edge's types differ (graph_constructor MakeEdge's
 * text; flat is the input's index in NodeDef.input). */
static int import_edge_err(tfc_node_desc *d, tfc_status *s, int flat, tfc_endpoint e, int want) {
  d->tf_made = 1;
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Input %d of node %s was passed %s from %s:%d incompatible with expected %s.",
                        flat, d->name, tfc_dtype_name(endpoint_type(e)), e.node->name, e.index, tfc_dtype_name(want));
}

static int infer_from_inputs(tfc_node_desc *d, const tfc_opdef *op, tfc_status *s) {
  int flat0 = 0; /* NodeDef.input index of the group's first input */
  if (d->n_groups != op->n_inputs)
    return node_err(s, d, op, "Expected %d inputs but got %d", op->n_inputs, d->n_groups);
  for (int i = 0; i < op->n_inputs; i++) {
    const tfc_arg_def *a = &op->inputs[i];
    input_group *g = &d->groups[i];
    int want_list = a->number_attr || a->type_list_attr;
    if (want_list != g->is_list)
      return node_err(s, d, op, "Input '%s' expected %s", a->name,
                      want_list ? "a list of tensors" : "a single tensor");
    for (int j = 0; j < g->n; j++) {
      tfc_endpoint e = g->eps[j];
      if (!e.node || e.index < 0 || e.index >= e.node->n_outputs)
        return tfc_status_set(s, TFC_OUT_OF_RANGE, "Node '%s': input %d refers to output %d of '%s' which has %d outputs",
                              d->name, j, e.index, e.node ? e.node->name : "(null)",
                              e.node ? e.node->n_outputs : 0);
      if (e.node->graph != d->g)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node '%s': input '%s' is from another graph",
                              d->name, e.node->name);
      int t = endpoint_type(e);
      if (a->is_ref && !tfc_dtype_is_ref(t)) {
        d->tf_made = d->importing;
        return node_err(s, d, op, "Input '%s' passed %s expected ref type", a->name, tfc_dtype_name(t));
      }
    }
    if (a->number_attr) {
      tfc_attr_value v = tfc_attr_int(g->n);
      TFC_TRY(infer_attr(d, op, a->number_attr, &v, s));
    }
    if (a->type_list_attr) {
      tfc_attr_value v = tfc_attr_list(TFC_ATTR_TYPE);
      for (int j = 0; j < g->n; j++) {
        tfc_attr_value t = tfc_attr_type(tfc_dtype_base(endpoint_type(g->eps[j])));
        TFC_TRY(tfc_attr_list_append(&v, &t, s));
      }
      if (infer_attr(d, op, a->type_list_attr, &v, s)) return type_conflict(d, s);
    }
    if (a->type_attr) {
      for (int j = 0; j < g->n; j++) {
        int t = tfc_dtype_base(endpoint_type(g->eps[j]));
        const tfc_attr_value *set = tfc_attrs_find(d->attrs, d->n_attrs, a->type_attr);
        if (d->importing && set && set->kind == TFC_ATTR_TYPE && set->u.type != t)
          return import_edge_err(d, s, flat0 + j, g->eps[j], set->u.type);
        tfc_attr_value v = tfc_attr_type(t);
        if (infer_attr(d, op, a->type_attr, &v, s)) return type_conflict(d, s);
      }
    }
    if (a->type) {
      for (int j = 0; j < g->n; j++) {
        int t = tfc_dtype_base(endpoint_type(g->eps[j]));
        if (t != a->type && d->importing) return import_edge_err(d, s, flat0 + j, g->eps[j], a->type);
        if (t != a->type) {
          char x[64], y[64];
          d->tf_made = d->importing;
          return node_err(s, d, op, "Input '%s' passed %s expected %s", a->name,
                          type_name_upper(t, x, sizeof x) + 3, type_name_upper(a->type, y, sizeof y) + 3);
        }
      }
    }
    flat0 += g->n;
  }
  return TFC_OK;
}

static int value_allowed(const tfc_attr_def *ad, const tfc_attr_value *v) {
  if (!ad->n_allowed) return 1;
  for (int i = 0; i < ad->n_allowed; i++) {
    if (ad->allowed_types && v->kind == TFC_ATTR_TYPE && v->u.type == ad->allowed_types[i]) return 1;
    if (ad->allowed_strings && v->kind == TFC_ATTR_STRING &&
        strcmp(v->u.s.data, ad->allowed_strings[i]) == 0)
      return 1;
  }
  return 0;
}

static int check_attrs(tfc_node_desc *d, const tfc_opdef *op, tfc_status *s) {
  /* defaults */
  for (int i = 0; i < op->n_attrs; i++) {
    const tfc_attr_def *ad = &op->attrs[i];
    if (!tfc_attrs_find(d->attrs, d->n_attrs, ad->name) && ad->has_default && !ad->added_later) {
      tfc_attr_value v;
      TFC_TRY(tfc_attr_value_copy(&ad->default_value, &v, s));
      TFC_TRY(tfc_attrs_set(&d->attrs, &d->n_attrs, ad->name, &v, s));
    }
  }
  /* every attr known; every op attr present and well-kinded */
  for (int i = 0; i < d->n_attrs; i++) {
    const char *nm = d->attrs[i].name;
    if (nm[0] == '_') continue;
    if (!tfc_opdef_attr(op, nm)) { /* TF 1.15's ValidateNodeDef text */
      char sig[2048];
      tfc_opdef_format(op, sig, sizeof sig);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "NodeDef mentions attr '%s' not in %s; NodeDef: {{node %s}}. (Check whether your "
                            "GraphDef-interpreting binary is up to date with your GraphDef-generating binary.).",
                            nm, sig, d->name);
    }
  }
  for (int i = 0; i < op->n_attrs; i++) {
    const tfc_attr_def *ad = &op->attrs[i];
    tfc_attr_value *v = (tfc_attr_value *)tfc_attrs_find(d->attrs, d->n_attrs, ad->name);
    if (!v && ad->added_later) continue;
    if (!v) return node_err(s, d, op, "NodeDef missing attr '%s' from Op", ad->name);
    if (ad->is_list) {
      if (v->kind != TFC_ATTR_LIST)
        return node_err(s, d, op, "AttrValue had value with type '%s' when '%s' expected for attr '%s'",
                        tfc_attr_kind_name(v->kind), ad->type_text, ad->name);
      if (v->list_kind == TFC_ATTR_NONE) v->list_kind = ad->kind;
      if (v->u.list.n && v->list_kind != ad->kind)
        return node_err(s, d, op, "AttrValue had value with type 'list(%s)' when '%s' expected for attr '%s'",
                        tfc_attr_kind_name(v->list_kind), ad->type_text, ad->name);
      if (ad->has_minimum && v->u.list.n < ad->minimum)
        return node_err(s, d, op, "Length for attr '%s' of %d must be at least minimum %lld", ad->name,
                        v->u.list.n, (long long)ad->minimum);
      for (int j = 0; j < v->u.list.n; j++)
        if (!value_allowed(ad, &v->u.list.items[j])) {
          char x[256];
          tfc_attr_value_format(&v->u.list.items[j], x, sizeof x);
          return node_err(s, d, op, "Value for attr '%s' of %s is not in the list of allowed values",
                          ad->name, x);
        }
    } else {
      if (v->kind != ad->kind)
        return node_err(s, d, op, "AttrValue had value with type '%s' when '%s' expected for attr '%s'",
                        tfc_attr_kind_name(v->kind), ad->type_text, ad->name);
      if (ad->has_minimum && v->kind == TFC_ATTR_INT && v->u.i < ad->minimum)
        return node_err(s, d, op, "Value for attr '%s' of %lld must be at least minimum %lld", ad->name,
                        (long long)v->u.i, (long long)ad->minimum);
      if (v->kind == TFC_ATTR_TYPE && !tfc_dtype_valid(v->u.type))
        return node_err(s, d, op, "Value for attr '%s' is not a valid DataType (%d)", ad->name, v->u.type);
      if (!value_allowed(ad, v)) {
        char x[256];
        tfc_attr_value_format(v, x, sizeof x);
        if (v->kind == TFC_ATTR_TYPE) {
          for (char *p = x + 3; *p; p++) *p = (char)tolower((unsigned char)*p);
          memmove(x, x + 3, strlen(x + 3) + 1);
        }
        tfc_strbuf allowed;
        tfc_strbuf_init(&allowed);
        for (int j = 0; j < ad->n_allowed; j++) {
          if (ad->allowed_types) tfc_strbuf_printf(&allowed, "%s%s", j ? ", " : "", tfc_dtype_name(ad->allowed_types[j]));
          else tfc_strbuf_printf(&allowed, "%s\"%s\"", j ? ", " : "", ad->allowed_strings[j]);
        }
        int r = node_err(s, d, op, "Value for attr '%s' of %s is not in the list of allowed values: %s",
                         ad->name, x, tfc_strbuf_str(&allowed));
        tfc_strbuf_fini(&allowed);
        return r;
      }
    }
  }
  return TFC_OK;
}

/* The attr `name` of d, or the default of an attr TF added after 1.15 that d does not set
 * (such attrs are not written into nodes; see tfc_node_attr). NULL if neither. */
static const tfc_attr_value *desc_attr(const tfc_node_desc *d, const tfc_opdef *op, const char *name) {
  const tfc_attr_value *v = tfc_attrs_find(d->attrs, d->n_attrs, name);
  for (int i = 0; !v && i < op->n_attrs; i++)
    if (op->attrs[i].added_later && op->attrs[i].has_default && !strcmp(op->attrs[i].name, name))
      v = &op->attrs[i].default_value;
  return v;
}

/* Output types from the arg defs and the (complete) attrs. */
static int output_types(tfc_node_desc *d, const tfc_opdef *op, int **out, int *n_out, tfc_status *s) {
  int total = 0;
  for (int i = 0; i < op->n_outputs; i++) {
    int c = arg_count(d->attrs, d->n_attrs, &op->outputs[i]);
    if (c < 0) return node_err(s, d, op, "cannot count output arg '%s'", op->outputs[i].name);
    total += c;
  }
  int *t = calloc((size_t)(total ? total : 1), sizeof *t);
  if (!t) return TFC_OOM(s);
  int pos = 0;
  for (int i = 0; i < op->n_outputs; i++) {
    const tfc_arg_def *a = &op->outputs[i];
    int c = arg_count(d->attrs, d->n_attrs, a);
    for (int j = 0; j < c; j++) {
      int dt = a->type;
      if (a->type_attr) dt = desc_attr(d, op, a->type_attr)->u.type;
      if (a->type_list_attr) dt = tfc_attrs_find(d->attrs, d->n_attrs, a->type_list_attr)->u.list.items[j].u.type;
      t[pos++] = a->is_ref ? dt + TFC_DT_REF_OFFSET : dt;
    }
  }
  *out = t;
  *n_out = total;
  return TFC_OK;
}

/* Input types expected by the args (ref types where the arg is a ref). */
static void input_types(const tfc_opdef *op, const tfc_node *n, int *types) {
  int pos = 0;
  for (int i = 0; i < op->n_inputs; i++) {
    const tfc_arg_def *a = &op->inputs[i];
    int c = arg_count(n->attrs, n->n_attrs, a);
    for (int j = 0; j < c; j++, pos++) {
      int dt = tfc_dtype_base(n->inputs[pos].node->output_types[n->inputs[pos].index]);
      types[pos] = a->is_ref ? dt + TFC_DT_REF_OFFSET : dt;
    }
  }
}

/* The shape function's view of input values (graph/shape_eval.h), asked for on demand. */
static tfc_tensor *eval_input_tensor(void *arg, int i) {
  const tfc_node *n = arg;
  return tfc_shape_eval_tensor(n->inputs[i]);
}

static int eval_input_partial(void *arg, int i, tfc_shape *out, tfc_status *s) {
  const tfc_node *n = arg;
  return tfc_shape_eval_partial(n->inputs[i], out, s);
}

static const tfc_shape_eval_hooks eval_hooks = {eval_input_tensor, eval_input_partial};

static int run_shape_fn(tfc_node *n, tfc_status *s) {
  for (int i = 0; i < n->n_outputs; i++) n->output_shapes[i] = tfc_shape_unknown();
  if (!n->op->shape_fn) return TFC_OK;
  tfc_shape in_shapes_small[8];
  tfc_tensor *in_consts_small[8];
  unsigned char evaluated_small[8] = {0};
  int small = n->n_inputs <= 8;
  tfc_shape *in_shapes = small ? in_shapes_small : malloc(sizeof *in_shapes * (size_t)n->n_inputs);
  tfc_tensor **consts = small ? in_consts_small : calloc((size_t)n->n_inputs, sizeof *consts);
  unsigned char *evaluated = small ? evaluated_small : calloc((size_t)n->n_inputs, 1);
  if (!in_shapes || !consts || !evaluated) {
    if (!small) {
      free(in_shapes);
      free(consts);
      free(evaluated);
    }
    return TFC_OOM(s);
  }
  for (int i = 0; i < n->n_inputs; i++) {
    in_shapes[i] = n->inputs[i].node->output_shapes[n->inputs[i].index];
    consts[i] = tfc_shape_eval_known(n->inputs[i]);
  }
  tfc_shape_ctx c = {.op = n->op,
                     .node_name = n->name,
                     .attrs = n->attrs,
                     .n_attrs = n->n_attrs,
                     .n_inputs = n->n_inputs,
                     .input_types = n->input_types,
                     .input_shapes = in_shapes,
                     .input_tensors = consts,
                     .input_evaluated = evaluated,
                     .eval = &eval_hooks,
                     .eval_arg = n,
                     .n_outputs = n->n_outputs,
                     .output_types = n->output_types,
                     .output_shapes = n->output_shapes,
                     .status = s};
  int r = n->op->shape_fn(&c);
  for (int i = 0; i < n->n_inputs; i++) tfc_tensor_unref(consts[i]);
  if (!small) {
    free(in_shapes);
    free(consts);
    free(evaluated);
  }
  return r;
}

static tfc_node *build(tfc_node_desc *d, tfc_status *s) {
  if (tfc_status_move(s, &d->err) != TFC_OK) return NULL;
  const tfc_opdef *op = tfc_op_lookup(d->op_type);
  if (!op) { /* a node may name a library function (graph/function.h) */
    op = tfc_funclib_opdef(&d->g->library, d->op_type, s);
    if (!op && !tfc_status_ok(s)) return NULL;
  }
  if (!op) {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    tfc_status_set(s, TFC_NOT_FOUND,
                   "Op type not registered '%s' in binary running on %s. Make sure the Op and "
                   "Kernel are registered in the binary running in this process.",
                   d->op_type, host);
    return NULL;
  }
  if (!tfc_graph_name_valid(d->g, d->name)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node name '%s' is not valid (op: '%s')", d->name, op->name);
    return NULL;
  }
  if (tfc_graph_find(d->g, d->name)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Duplicate node name in graph: '%s'", d->name);
    return NULL;
  }
  if (d->flat && group_flat(d, op, s)) return NULL;
  if (infer_from_inputs(d, op, s)) return NULL;
  if (check_attrs(d, op, s)) return NULL;

  int *out_types = NULL, n_out = 0;
  if (output_types(d, op, &out_types, &n_out, s)) return NULL;
  tfc_node *n = calloc(1, sizeof *n);
  if (!n) { free(out_types); TFC_OOM(s); return NULL; }
  n->output_types = out_types;
  n->n_outputs = n_out;
  n->op = op;
  n->name = d->name;
  d->name = NULL;
  n->device = d->device;
  d->device = NULL;
  n->attrs = d->attrs;
  n->n_attrs = d->n_attrs;
  d->attrs = NULL;
  d->n_attrs = 0;
  int total_in = 0;
  for (int i = 0; i < d->n_groups; i++) total_in += d->groups[i].n;
  n->n_inputs = total_in;
  n->inputs = malloc(sizeof *n->inputs * (size_t)(total_in ? total_in : 1));
  n->input_types = malloc(sizeof(int) * (size_t)(total_in ? total_in : 1));
  if (!n->inputs || !n->input_types) { TFC_OOM(s); node_free(n); return NULL; }
  int pos = 0;
  for (int i = 0; i < d->n_groups; i++)
    for (int j = 0; j < d->groups[i].n; j++) n->inputs[pos++] = d->groups[i].eps[j];
  input_types(op, n, n->input_types);
  n->n_control_inputs = d->n_controls;
  n->control_inputs = d->controls;
  d->controls = NULL;
  d->n_controls = 0;
  n->output_shapes = calloc((size_t)(n->n_outputs ? n->n_outputs : 1), sizeof *n->output_shapes);
  if (!n->output_shapes) { TFC_OOM(s); node_free(n); return NULL; }
  n->graph = d->g;
  d->tf_made = 1; /* TF runs shape inference on the node it made */
  n->no_fold = (unsigned char)tfc_shape_eval_never_known(n);
  if (run_shape_fn(n, s)) { node_free(n); return NULL; }
  return n;
}

tfc_node *tfc_node_desc_finish_locked(tfc_node_desc *d, tfc_status *s) {
  tfc_node *n = build(d, s);
  if (n && insert_node(d->g, n, s)) {
    node_free(n);
    n = NULL;
  }
  if (!n && d->tf_made) tfc_graph_burn_tf_ids(d->g, 1);
  tfc_node_desc_free(d);
  return n;
}

tfc_node *tfc_node_desc_finish(tfc_node_desc *d, tfc_status *s) {
  tfc_graph *g = d->g;
  tfc_graph_lock(g);
  tfc_node *n = tfc_node_desc_finish_locked(d, s);
  tfc_graph_unlock(g);
  return n;
}

tfc_node *tfc_graph_add_raw(tfc_graph *g, const char *name, const tfc_opdef *op, const char *device,
                            const char *assigned, const tfc_endpoint *inputs, int n_inputs, tfc_node *const *controls,
                            int n_controls, const tfc_attr *attrs, int n_attrs, tfc_status *s) {
  tfc_node *n = calloc(1, sizeof *n);
  if (!n) { TFC_OOM(s); return NULL; }
  n->op = op;
  n->name = tfc_strdup(name);
  n->device = tfc_strdup(device ? device : "");
  if (assigned && !(n->assigned_device = tfc_strdup(assigned))) {
    node_free(n);
    TFC_OOM(s);
    return NULL;
  }
  n->inputs = malloc(sizeof *n->inputs * (size_t)(n_inputs ? n_inputs : 1));
  n->input_types = malloc(sizeof(int) * (size_t)(n_inputs ? n_inputs : 1));
  n->control_inputs = malloc(sizeof(tfc_node *) * (size_t)(n_controls ? n_controls : 1));
  if (!n->name || !n->device || !n->inputs || !n->input_types || !n->control_inputs ||
      tfc_attrs_copy(attrs, n_attrs, &n->attrs, s)) {
    node_free(n);
    TFC_OOM(s);
    return NULL;
  }
  n->n_attrs = n_attrs;
  n->n_inputs = n_inputs;
  if (n_inputs) memcpy(n->inputs, inputs, sizeof *inputs * (size_t)n_inputs);
  n->n_control_inputs = n_controls;
  if (n_controls) memcpy(n->control_inputs, controls, sizeof *controls * (size_t)n_controls);
  tfc_node_desc tmp = {.attrs = n->attrs, .n_attrs = n->n_attrs, .name = n->name};
  if (output_types(&tmp, op, &n->output_types, &n->n_outputs, s)) { node_free(n); return NULL; }
  input_types(op, n, n->input_types);
  n->output_shapes = calloc((size_t)(n->n_outputs ? n->n_outputs : 1), sizeof *n->output_shapes);
  if (!n->output_shapes) { node_free(n); TFC_OOM(s); return NULL; }
  for (int i = 0; i < n->n_outputs; i++) n->output_shapes[i] = tfc_shape_unknown();
  if (insert_node(g, n, s)) { node_free(n); return NULL; }
  return n;
}

int tfc_graph_set_output_shape(tfc_graph *g, tfc_endpoint out, const tfc_shape *shape, tfc_status *s) {
  tfc_graph_lock(g);
  tfc_shape *cur = &out.node->output_shapes[out.index];
  tfc_shape merged;
  if (tfc_shape_merge(cur, shape, &merged) != 0) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Dimension mismatch: shape %s is incompatible with %s for node '%s'",
                   tfc_shape_str(shape, a, sizeof a), tfc_shape_str(cur, b, sizeof b), out.node->name);
  } else {
    *cur = merged;
  }
  tfc_graph_unlock(g);
  return s->code;
}

int tfc_node_is_control_flow(const tfc_node *n) {
  switch (n->op->id) {
    case TFC_OP_Switch: case TFC_OP_RefSwitch: case TFC_OP_Merge: case TFC_OP_RefMerge:
    case TFC_OP_Enter: case TFC_OP_RefEnter: case TFC_OP_Exit: case TFC_OP_RefExit:
    case TFC_OP_NextIteration: case TFC_OP_RefNextIteration: case TFC_OP_LoopCond:
    case TFC_OP_ControlTrigger:
      return 1;
    default:
      return 0;
  }
}
