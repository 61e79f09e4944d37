/*
 * builders/scope — name scopes, devices, control dependencies and random seeds for the
 * training builders (include/tfc/train.h), plus the per-graph state and the one helper
 * (bld_op) through which every builder adds a node. See builders_internal.h for the design.
 *
 * Unique names follow Python's Graph.unique_name: a name (lower-cased, as Python keys
 * _names_in_use) that is free is taken as is; otherwise the first free "<name>_<k>", k >= 1.
 * Python counts requests per name instead of probing from 1, but since names are never
 * released the counter always sits at the first free suffix, so the two agree. Op names and
 * name scopes share one namespace, which is why "gradients" is skipped once a scope or an op
 * took it.
 *
 * Devices: a scope's request merges onto its parent's with the new fields winning (Python's
 * nested tf.device with strings), printed canonically ("/cpu:0" -> "/device:CPU:0"). Device
 * functions (TFC_ScopeWithDeviceFunction) make the device stack a chain: the scope's string is
 * what was requested inside the innermost function, and each function keeps the strings
 * requested between it and the next function out. A node's device is then computed innermost
 * first, as Python's _apply_device_functions walks its stack: strings, function, strings,
 * function, ... Builder-made nodes are finished first and placed right after (under the graph
 * lock, before anything can see them), so a function sees the operation as TF's do.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "builders/builders_internal.h"
#include "device/device_name.h"
#include "tensor/dtype.h"

/* ---------------- per-graph state ---------------- */

static void state_free(void *p) {
  bld_state *st = p;
  if (!st) return;
  tfc_hashmap_fini(&st->used);
  for (int i = 0; i < st->n_used; i++) free(st->used_log[i]);
  free(st->used_log);
  free(st->vars);
  free(st->conds);
  free(st->lifted);
  bld_collections_truncate(st, 0);
  free(st->entries);
  free(st);
}

bld_state *bld_state_get(TF_Graph *graph) {
  if (graph->builders) return graph->builders;
  bld_state *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  tfc_hashmap_init(&st->used);
  graph->builders = st;
  graph->builders_free = state_free;
  return st;
}

static char *lower_dup(const char *s, size_t n) {
  char *k = tfc_strndup(s, n);
  if (k)
    for (char *p = k; *p; p++) *p = (char)tolower((unsigned char)*p);
  return k;
}

static int used_n(const bld_state *st, const char *name, size_t n) {
  char small[256];
  if (n < sizeof small) {
    for (size_t i = 0; i < n; i++) small[i] = (char)tolower((unsigned char)name[i]);
    small[n] = '\0';
    return tfc_hashmap_get(&st->used, small) != NULL;
  }
  char *k = lower_dup(name, n);
  int r = k && tfc_hashmap_get(&st->used, k) != NULL;
  free(k);
  return r;
}

/* Marks name[0, n) used. 0, or -1 on OOM (state unchanged). */
static int mark_n(bld_state *st, const char *name, size_t n) {
  if (used_n(st, name, n)) return 0;
  if (st->n_used == st->cap_used) {
    int cap = st->cap_used ? st->cap_used * 2 : 64;
    char **log = realloc(st->used_log, sizeof *log * (size_t)cap);
    if (!log) return -1;
    st->used_log = log;
    st->cap_used = cap;
  }
  char *k = lower_dup(name, n);
  if (!k || tfc_hashmap_put(&st->used, k, (void *)1)) {
    free(k);
    return -1;
  }
  st->used_log[st->n_used++] = k;
  return 0;
}

/* Folds nodes the builders did not make into the names in use: the name and every prefix. */
void bld_sync(bld_state *st, tfc_graph *g) {
  for (; st->n_synced < g->n_nodes; st->n_synced++) {
    const char *name = g->nodes[st->n_synced]->name;
    if (used_n(st, name, strlen(name))) continue; /* ours (or explicitly reserved) */
    for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/'))
      if (mark_n(st, name, (size_t)(p - name))) return;
    if (mark_n(st, name, strlen(name))) return;
  }
}

static void names_rollback(bld_state *st, int mark) {
  if (mark >= st->n_used) return;
  for (int i = mark; i < st->n_used; i++) free(st->used_log[i]);
  st->n_used = mark;
  tfc_hashmap_fini(&st->used);
  tfc_hashmap_init(&st->used);
  for (int i = 0; i < st->n_used; i++) tfc_hashmap_put(&st->used, st->used_log[i], (void *)1);
}

/* ---------------- calls ---------------- */

int bld_begin(bld_call *c, TF_Graph *graph, TF_Status *status, tfc_status *scratch) {
  memset(c, 0, sizeof *c);
  c->s = tfc_capi_status_or(status, scratch);
  if (!graph) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "graph is NULL");
  TFC_TRY(tfc_ops_init(c->s));
  c->graph = graph;
  c->g = graph->g;
  tfc_graph_lock(c->g);
  c->st = bld_state_get(graph);
  if (!c->st) {
    tfc_graph_unlock(c->g);
    return TFC_OOM(c->s);
  }
  bld_sync(c->st, c->g);
  c->graph_mark = tfc_graph_mark(c->g);
  c->names_mark = c->st->n_used;
  c->vars_mark = c->st->n_vars;
  c->has_global_step = c->st->has_global_step;
  c->entries_mark = c->st->n_entries;
  c->conds_mark = c->st->n_conds;
  c->lifted_mark = c->st->n_lifted;
  return TFC_OK;
}

int bld_end(bld_call *c) {
  if (!tfc_status_ok(c->s)) {
    tfc_graph_rollback(c->g, c->graph_mark);
    names_rollback(c->st, c->names_mark);
    if (c->st->n_synced > c->graph_mark) c->st->n_synced = c->graph_mark;
    c->st->n_vars = c->vars_mark;
    c->st->has_global_step = c->has_global_step;
    bld_collections_truncate(c->st, c->entries_mark);
    if (c->st->n_conds > c->conds_mark) c->st->n_conds = c->conds_mark;
    if (c->st->n_lifted > c->lifted_mark) c->st->n_lifted = c->lifted_mark;
  } else if (c->lift && c->g->n_nodes > c->graph_mark) {
    bld_lift(c->st, c->graph_mark, c->g->n_nodes);
  }
  tfc_graph_unlock(c->g);
  return c->s->code;
}

void bld_lift(bld_state *st, int from, int to) {
  if (st->n_lifted >= 2 && st->lifted[st->n_lifted - 1] == from) {
    st->lifted[st->n_lifted - 1] = to;
    return;
  }
  if (st->n_lifted + 2 > st->cap_lifted) {
    int cap = st->cap_lifted ? 2 * st->cap_lifted : 16;
    int *v = realloc(st->lifted, sizeof *v * (size_t)cap);
    if (v) st->lifted = v, st->cap_lifted = cap;
  }
  /* Out of memory only leaves the nodes inside the context (as before lifting). */
  if (st->n_lifted + 2 <= st->cap_lifted) {
    st->lifted[st->n_lifted++] = from;
    st->lifted[st->n_lifted++] = to;
  }
}

int bld_lifted(const bld_state *st, const tfc_node *n) {
  for (int i = 0; i + 1 < st->n_lifted; i += 2)
    if (n->id >= st->lifted[i] && n->id < st->lifted[i + 1]) return 1;
  return 0;
}

int bld_begin_scope(bld_call *c, const TFC_Scope *scope, TF_Status *status, tfc_status *scratch) {
  if (scope) {
    int rc = bld_begin(c, scope->graph, status, scratch);
    if (rc == TFC_OK) c->lift = !scope->cf && c->st->open_cf > 0;
    return rc;
  }
  return tfc_status_set(tfc_capi_status_or(status, scratch), TFC_INVALID_ARGUMENT, "scope is NULL");
}

TF_Output bld_end_output(bld_call *c, tfc_endpoint e) {
  TF_Output o = {NULL, 0};
  if (bld_end(c) == TFC_OK && e.node) o = (TF_Output){tfc_capi_oper(e.node), e.index};
  return o;
}

void bld_pause(bld_call *c) { tfc_graph_unlock(c->g); }

void bld_resume(bld_call *c) {
  tfc_graph_lock(c->g);
  bld_sync(c->st, c->g);
}

/* ---------------- names ---------------- */

char *bld_join(const char *scope, const char *name) {
  char *r = NULL;
  if (scope && *scope) {
    if (asprintf(&r, "%s/%s", scope, name) < 0) r = NULL;
  } else {
    r = tfc_strdup(name);
  }
  return r;
}

int bld_mark_used(bld_call *c, const char *full) {
  if (!tfc_status_ok(c->s)) return c->s->code;
  if (mark_n(c->st, full, strlen(full))) return TFC_OOM(c->s);
  return TFC_OK;
}

static char *unique_name(bld_call *c, const char *scope, const char *base, int mark) {
  if (!tfc_status_ok(c->s)) return NULL;
  char *full = bld_join(scope, base);
  if (!full) {
    TFC_OOM(c->s);
    return NULL;
  }
  if (used_n(c->st, full, strlen(full))) {
    char *cand = NULL;
    for (int k = 1;; k++) {
      if (asprintf(&cand, "%s_%d", full, k) < 0) {
        free(full);
        TFC_OOM(c->s);
        return NULL;
      }
      if (!used_n(c->st, cand, strlen(cand))) break;
      free(cand);
    }
    free(full);
    full = cand;
  }
  if (mark && bld_mark_used(c, full)) {
    free(full);
    return NULL;
  }
  return full;
}

char *bld_unique(bld_call *c, const char *scope, const char *base) { return unique_name(c, scope, base, 1); }

char *bld_peek_unique(bld_call *c, const char *scope, const char *base) { return unique_name(c, scope, base, 0); }

/* ---------------- nodes ---------------- */

int bld_dtype(tfc_endpoint e) { return tfc_dtype_base(e.node->output_types[e.index]); }
const tfc_shape *bld_shape(tfc_endpoint e) { return &e.node->output_shapes[e.index]; }

/* _class of a node colocated with `with`: with's own groups, or loc:@with. */
static int colocation_attr(const tfc_node *with, tfc_attr_value *out, tfc_status *s) {
  const tfc_attr_value *cls = tfc_node_attr(with, "_class");
  if (cls && cls->kind == TFC_ATTR_LIST && cls->u.list.n > 0) return tfc_attr_value_copy(cls, out, s);
  *out = tfc_attr_list(TFC_ATTR_STRING);
  char *loc = NULL;
  if (asprintf(&loc, "loc:@%s", with->name) < 0) return TFC_OOM(s);
  tfc_attr_value item = {0};
  int rc = tfc_attr_string(loc, strlen(loc), &item, s);
  free(loc);
  if (!rc) rc = tfc_attr_list_append(out, &item, s);
  if (rc) tfc_attr_value_fini(out);
  return rc;
}

static int has_control(tfc_node **ctl, int n, const tfc_node *x) {
  for (int i = 0; i < n; i++)
    if (ctl[i] == x) return 1;
  return 0;
}

tfc_node *bld_op(bld_call *c, const bld_where *w, const char *type, const char *name,
                 const tfc_endpoint *ins, int n_ins, bld_attr *attrs, int n_attrs) {
  tfc_node *n = NULL;
  tfc_node_desc *d = NULL;
  tfc_node **ctl = NULL;
  char *full = NULL;
  int n_ctl = 0;
  if (!tfc_status_ok(c->s)) goto done;
  for (int i = 0; i < n_ins; i++)
    if (!ins[i].node) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s: input %d is missing", type, i);
      goto done;
    }
  /* 1. The name: unique, or an exact re-entered scope name ("truncated_normal/"). */
  const char *base = name ? name : type;
  size_t bl = strlen(base);
  if (bl && base[bl - 1] == '/') {
    char *b = tfc_strndup(base, bl - 1);
    full = b ? bld_join(w->scope, b) : NULL;
    free(b);
    if (!full) {
      TFC_OOM(c->s);
      goto done;
    }
    if (bld_mark_used(c, full)) goto done;
  } else if (!(full = bld_unique(c, w->scope, base))) {
    goto done;
  }
  if (!(d = tfc_node_desc_new(c->g, type, full))) {
    TFC_OOM(c->s);
    goto done;
  }
  /* 2. Inputs and attrs. */
  for (int i = 0; i < n_ins; i++) tfc_node_desc_add_input_flat(d, ins[i]); /* list args grouped at finish */
  for (int i = 0; i < n_attrs; i++) tfc_node_desc_set_attr(d, attrs[i].name, &attrs[i].v);
  n_attrs = 0;
  /* 3. Placement: a colocated node takes the target's groups and device. */
  if (w->coloc) {
    tfc_attr_value cls = {0};
    if (colocation_attr(w->coloc, &cls, c->s)) goto done;
    tfc_node_desc_set_attr(d, "_class", &cls);
    tfc_node_desc_set_device(d, w->coloc->device);
  } else if (w->coloc_name) {
    tfc_attr_value cls = tfc_attr_list(TFC_ATTR_STRING), item = {0};
    char *loc = NULL;
    if (asprintf(&loc, "loc:@%s", w->coloc_name) < 0) {
      TFC_OOM(c->s);
      goto done;
    }
    int rc = tfc_attr_string(loc, strlen(loc), &item, c->s);
    free(loc);
    if (rc || tfc_attr_list_append(&cls, &item, c->s)) {
      tfc_attr_value_fini(&cls);
      goto done;
    }
    tfc_node_desc_set_attr(d, "_class", &cls);
    if (w->device && *w->device) tfc_node_desc_set_device(d, w->device);
  } else if (w->device && *w->device) {
    tfc_node_desc_set_device(d, w->device);
  }
  /* 4. Control inputs: frames not dominated by an input made under them, then extras. */
  int cap = w->n_ctrl;
  const TFC_Scope *fs = w->frames_from;
  for (int f = 0; fs && f < fs->n_frames; f++) cap += fs->frames[f]->n_ops;
  ctl = calloc((size_t)cap + 1, sizeof *ctl);
  if (!ctl) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int f = 0; fs && f < fs->n_frames; f++) {
    const bld_frame *fr = fs->frames[f];
    int dominated = 0;
    for (int i = 0; i < n_ins && !dominated; i++) dominated = tfc_hashmap_get(&fr->seen, ins[i].node->name) != NULL;
    if (dominated) continue;
    for (int k = 0; k < fr->n_ops; k++) {
      int is_input = 0;
      for (int i = 0; i < n_ins && !is_input; i++) is_input = ins[i].node == fr->ops[k];
      if (!is_input && !has_control(ctl, n_ctl, fr->ops[k])) ctl[n_ctl++] = fr->ops[k];
    }
  }
  for (int k = 0; k < w->n_ctrl; k++)
    if (w->ctrl[k] && !has_control(ctl, n_ctl, w->ctrl[k])) ctl[n_ctl++] = w->ctrl[k];
  for (int k = 0; k < n_ctl; k++) tfc_node_desc_add_control(d, ctl[k]);
  n = tfc_node_desc_finish_locked(d, c->s);
  d = NULL;
  /* 5. Device functions see the finished op (colocated nodes skip them: see bld_where). */
  if (n && w->devfn && !w->coloc) {
    char *dev = NULL;
    if (bld_devfn_apply(c, w->devfn, type, n->name, n->device, tfc_capi_oper(n), &dev) == TFC_OK) {
      free(n->device);
      n->device = dev;
    }
  }
  for (int f = 0; n && fs && f < fs->n_frames; f++)
    if (tfc_hashmap_put(&fs->frames[f]->seen, n->name, (void *)1)) TFC_OOM(c->s);
  if (!tfc_status_ok(c->s)) n = NULL;
done:
  for (int i = 0; i < n_attrs; i++) tfc_attr_value_fini(&attrs[i].v);
  tfc_node_desc_free(d);
  free(ctl);
  free(full);
  return n;
}

tfc_endpoint bld_op0(bld_call *c, const bld_where *w, const char *type, const char *name,
                     const tfc_endpoint *ins, int n_ins, bld_attr *attrs, int n_attrs) {
  tfc_endpoint e = {bld_op(c, w, type, name, ins, n_ins, attrs, n_attrs), 0};
  return e;
}

tfc_endpoint bld_const(bld_call *c, const bld_where *w, const char *name, tfc_tensor *t) {
  if (!t) {
    if (tfc_status_ok(c->s)) TFC_OOM(c->s);
    return (tfc_endpoint){NULL, 0};
  }
  bld_attr a[2] = {{"value", tfc_attr_tensor(t)}, {"dtype", tfc_attr_type(t->dtype)}};
  return bld_op0(c, w, "Const", name, NULL, 0, a, 2);
}

/* Writes v as element i of a numeric tensor. */
static void put(tfc_tensor *t, int64_t i, double v) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v; break;
    case TFC_DT_DOUBLE: ((double *)t->data)[i] = v; break;
    case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case TFC_DT_INT64: ((int64_t *)t->data)[i] = (int64_t)v; break;
    default: break;
  }
}

static int numeric_ok(int dtype) {
  return dtype == TFC_DT_FLOAT || dtype == TFC_DT_DOUBLE || dtype == TFC_DT_INT32 || dtype == TFC_DT_INT64;
}

tfc_endpoint bld_scalar(bld_call *c, const bld_where *w, const char *name, int dtype, double v) {
  if (!tfc_status_ok(c->s)) return (tfc_endpoint){NULL, 0};
  if (!numeric_ok(dtype)) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "unsupported dtype %s for a scalar constant (float, double, int32, int64)",
                   tfc_dtype_name(dtype));
    return (tfc_endpoint){NULL, 0};
  }
  tfc_tensor *t = tfc_tensor_new(dtype, NULL, 0, c->s);
  if (!t) return (tfc_endpoint){NULL, 0};
  put(t, 0, v);
  return bld_const(c, w, name, t);
}

tfc_endpoint bld_cast(bld_call *c, const bld_where *w, tfc_endpoint x, int dtype, const char *name) {
  if (!tfc_status_ok(c->s) || !x.node) return (tfc_endpoint){NULL, 0};
  if (bld_dtype(x) == dtype) return x;
  bld_attr a[1] = {{"DstT", tfc_attr_type(dtype)}};
  return bld_op0(c, w, "Cast", name ? name : "Cast", &x, 1, a, 1);
}

/* A request merged onto a base device (the request's fields win), printed canonically. A
 * malformed request is kept as written: finishing a node with it reports TF's error. */
static char *merge_device(const char *base, const char *req) {
  if (!req || !*req) return tfc_strdup(base ? base : "");
  tfc_devname b, r;
  if (tfc_devname_parse(req, &r) != 0) return tfc_strdup(req);
  if (!base || !*base || tfc_devname_parse(base, &b) != 0) memset(&b, 0, sizeof b);
  tfc_devname_merge_override(&b, &r);
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  tfc_devname_print(&b, &sb);
  char *out = tfc_strbuf_ok(&sb) ? tfc_strdup(tfc_strbuf_str(&sb)) : NULL;
  tfc_strbuf_fini(&sb);
  return out;
}

TFC_EXPORT void TFC_MergeDeviceSpec(const char *outer, const char *inner, TF_Buffer *output,
                                    TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  tfc_devname b, r;
  if (tfc_devname_parse(inner, &r) != 0 || tfc_devname_parse(outer, &b) != 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Malformed device specification '%s'",
                   tfc_devname_parse(inner, &r) != 0 ? inner : outer);
  } else {
    tfc_devname_merge_override(&b, &r);
    tfc_strbuf sb;
    tfc_strbuf_init(&sb);
    tfc_devname_print(&b, &sb);
    char *str = tfc_strbuf_ok(&sb) ? tfc_strdup(tfc_strbuf_str(&sb)) : NULL;
    tfc_strbuf_fini(&sb);
    if (!str) TFC_OOM(s);
    else tfc_capi_fill_buffer(output, str, strlen(str), s); /* owns str, even on error */
  }
  tfc_status_fini(&scratch);
}

tfc_node *bld_group(bld_call *c, const bld_where *w, tfc_node *const *ops, int n, const char *name) {
  if (!tfc_status_ok(c->s)) return NULL;
  /* Python's group: inputs by device; one device -> one NoOp on it, else a NoOp per device
   * (sorted by device) and the named one waiting for those. */
  const char **devs = calloc((size_t)n + 1, sizeof *devs);
  tfc_node **deps = calloc((size_t)n + 1, sizeof *deps);
  tfc_node **sub = calloc((size_t)n + 1, sizeof *sub);
  tfc_node *r = NULL;
  char *gscope = NULL, *gexact = NULL;
  int n_devs = 0;
  if (!devs || !deps || !sub) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < n_devs && strcmp(devs[k], ops[i]->device)) k++;
    if (k == n_devs) devs[n_devs++] = ops[i]->device;
  }
  for (int i = 1; i < n_devs; i++) /* insertion sort: few devices */
    for (int j = i; j > 0 && strcmp(devs[j - 1], devs[j]) > 0; j--) {
      const char *t = devs[j];
      devs[j] = devs[j - 1];
      devs[j - 1] = t;
    }
  /* Several devices: Python's group opens the name scope `name` first; the per-device NoOps
   * live in it ("init/NoOp") and the last NoOp is named exactly after it. */
  if (n_devs > 1) {
    const char *base = name ? name : "group_deps";
    size_t bl = strlen(base);
    if (bl && base[bl - 1] == '/') {
      char *b = tfc_strndup(base, bl - 1);
      gscope = b ? bld_join(w->scope, b) : NULL;
      free(b);
      if (!gscope) TFC_OOM(c->s);
      else bld_mark_used(c, gscope);
    } else {
      gscope = bld_unique(c, w->scope, base);
    }
    if (gscope && asprintf(&gexact, "%s/", gscope) < 0) {
      gexact = NULL;
      TFC_OOM(c->s);
    }
    if (!gexact) goto done;
  }
  int n_sub = 0;
  for (int k = 0; k < (n_devs ? n_devs : 1); k++) {
    int nd = 0;
    for (int i = 0; i < n; i++)
      if (!n_devs || !strcmp(ops[i]->device, devs[k])) deps[nd++] = ops[i];
    /* Python sorts a group's control inputs by name; GraphDef export sorts them anyway. */
    for (int i = 1; i < nd; i++)
      for (int j = i; j > 0 && strcmp(deps[j - 1]->name, deps[j]->name) > 0; j--) {
        tfc_node *t = deps[j];
        deps[j] = deps[j - 1];
        deps[j - 1] = t;
      }
    char *dev = merge_device(w->device, n_devs ? devs[k] : "");
    if (!dev) {
      TFC_OOM(c->s);
      goto done;
    }
    bld_where gw = *w;
    gw.device = dev;
    gw.coloc = NULL;
    gw.coloc_name = NULL;
    gw.ctrl = deps;
    gw.n_ctrl = nd;
    if (gscope) gw.scope = gscope;
    tfc_node *noop = bld_op(c, &gw, "NoOp", n_devs > 1 ? NULL : name, NULL, 0, NULL, 0);
    free(dev);
    if (!noop) goto done;
    sub[n_sub++] = noop;
  }
  if (n_sub == 1) {
    r = sub[0];
  } else {
    bld_where gw = *w;
    gw.coloc = NULL;
    gw.coloc_name = NULL;
    gw.ctrl = sub;
    gw.n_ctrl = n_sub;
    gw.scope = "";
    r = bld_op(c, &gw, "NoOp", gexact, NULL, 0, NULL, 0);
  }
done:
  free(gscope);
  free(gexact);
  free(devs);
  free(deps);
  free(sub);
  return r;
}

const char *bld_builder_name(const TFC_Scope *scope, const char *dflt) {
  return scope && scope->builder_name ? scope->builder_name : dflt;
}

bld_where bld_where_of(const TFC_Scope *scope, const char *scope_name) {
  bld_where w = {scope_name ? scope_name : scope->name, scope->device, NULL, NULL, scope, NULL, 0, scope->devfn};
  return w;
}

/* ---------------- device functions ---------------- */

int bld_devfn_apply(bld_call *c, const bld_devfn *fn, const char *op_type, const char *name, const char *requested,
                    TF_Operation *op, char **out) {
  *out = NULL;
  if (!tfc_status_ok(c->s)) return c->s->code;
  char *dev = tfc_strdup(requested ? requested : "");
  if (!dev) return TFC_OOM(c->s);
  for (; fn; fn = fn->parent) {
    TF_Status *st = TF_NewStatus();
    if (!st) {
      free(dev);
      return TFC_OOM(c->s);
    }
    TF_Buffer *got = fn->fn(fn->ctx, op_type, name, dev, op, st);
    free(dev);
    dev = NULL;
    if (TF_GetCode(st) != TF_OK) {
      tfc_status_set(c->s, (int)TF_GetCode(st), "device function for node '%s' (%s): %s", name, op_type,
                     TF_Message(st));
      TF_DeleteBuffer(got);
      TF_DeleteStatus(st);
      return c->s->code;
    }
    TF_DeleteStatus(st);
    char *raw = got ? tfc_strndup(got->data ? got->data : "", got->data ? got->length : 0) : tfc_strdup("");
    TF_DeleteBuffer(got);
    /* What the function gave, canonical (a malformed device is kept and fails at placement),
     * then the strings requested outside it merged under it. */
    char *canon = raw ? merge_device("", raw) : NULL;
    free(raw);
    if (!canon) return TFC_OOM(c->s);
    dev = merge_device(fn->outer, canon);
    free(canon);
    if (!dev) return TFC_OOM(c->s);
  }
  *out = dev;
  return TFC_OK;
}

static void devfn_unref(bld_devfn *f) {
  while (f && --f->refs == 0) {
    bld_devfn *p = f->parent;
    free(f->outer);
    free(f);
    f = p;
  }
}

/* ---------------- random seeds ---------------- */

/* Python's _MAXINT32 = 2**31 - 1 and DEFAULT_GRAPH_SEED (random_seed.py). */
#define SEED_MAXINT32 2147483647LL
#define SEED_DEFAULT_GRAPH 87654321LL

static int64_t truncate_seed(int64_t v) {
  int64_t r = v % SEED_MAXINT32;
  return r < 0 ? r + SEED_MAXINT32 : r; /* Python's % is never negative here */
}

/*
 * TF 1.15's get_seed: with a graph seed and no op seed, the op seed is graph._last_id, the
 * number of ops created in the graph so far (here: its node count). TF 2.x's compat.v1 uses a
 * per-graph counter of seeded ops instead (0, 1, ...); we follow TF 1.15, so graphs built
 * here differ from TF 2.x-made ones only in seed2 of their random ops.
 */
void bld_seeds(bld_call *c, int64_t op_seed, int64_t *seed, int64_t *seed2) {
  if (c->st->has_seed) {
    *seed = truncate_seed(c->st->seed);
    *seed2 = truncate_seed(op_seed ? op_seed : c->g->n_nodes);
  } else if (op_seed) {
    *seed = SEED_DEFAULT_GRAPH;
    *seed2 = truncate_seed(op_seed);
  } else {
    *seed = *seed2 = 0;
    return; /* nondeterministic, as Python's (None, None) */
  }
  if (*seed == 0 && *seed2 == 0) *seed2 = SEED_MAXINT32; /* (0, 0) means "random" to kernels */
}

TFC_EXPORT void TFC_SetRandomSeed(TF_Graph *graph, int64_t seed) {
  if (!graph) return;
  tfc_graph_lock(graph->g);
  bld_state *st = bld_state_get(graph);
  if (st) {
    st->has_seed = 1;
    st->seed = seed;
  }
  tfc_graph_unlock(graph->g);
}

/* ---------------- scopes ---------------- */

static void frame_unref(bld_frame *f) {
  if (!f || --f->refs > 0) return;
  tfc_hashmap_fini(&f->seen);
  free(f->ops);
  free(f);
}

static TFC_Scope *scope_new(TF_Graph *graph, const char *name, const char *device, bld_devfn *devfn,
                            bld_frame *const *frames, int n_frames, bld_frame *extra) {
  TFC_Scope *sc = calloc(1, sizeof *sc);
  if (!sc) return NULL;
  sc->graph = graph;
  sc->name = tfc_strdup(name);
  sc->device = tfc_strdup(device);
  sc->frames = calloc((size_t)n_frames + 2, sizeof *sc->frames);
  if (!sc->name || !sc->device || !sc->frames) {
    free(sc->name);
    free(sc->device);
    free(sc->frames);
    free(sc);
    return NULL;
  }
  for (int i = 0; i < n_frames; i++) {
    frames[i]->refs++;
    sc->frames[sc->n_frames++] = frames[i];
  }
  if (extra) sc->frames[sc->n_frames++] = extra;
  if ((sc->devfn = devfn)) devfn->refs++;
  return sc;
}

TFC_EXPORT TFC_Scope *TFC_NewRootScope(TF_Graph *graph) {
  if (!graph) return NULL;
  return scope_new(graph, "", "", NULL, NULL, 0, NULL);
}

TFC_EXPORT TFC_Scope *TFC_NewSubScope(const TFC_Scope *scope, const char *name) {
  if (!scope || !name || !*name) return NULL;
  tfc_status scratch;
  bld_call c;
  if (bld_begin(&c, scope->graph, NULL, &scratch)) {
    tfc_status_fini(&scratch);
    return NULL;
  }
  char *full = NULL;
  size_t n = strlen(name);
  if (name[n - 1] == '/') {
    /* Python re-enters a scope given with its trailing slash, verbatim. */
    full = tfc_strndup(name, n - 1);
    if (!full) TFC_OOM(c.s);
  } else {
    full = bld_unique(&c, scope->name, name);
  }
  bld_end(&c);
  tfc_status_fini(&scratch);
  if (!full) return NULL;
  TFC_Scope *sc = scope_new(scope->graph, full, scope->device, scope->devfn, scope->frames, scope->n_frames, NULL);
  free(full);
  if (sc) bld_scope_set_cf(sc, scope->cf);
  return sc;
}

TFC_EXPORT void TFC_GraphUniqueName(TF_Graph *graph, const char *name, unsigned char mark_as_used,
                                    TF_Buffer *output, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (!name || !*name || !output) {
    tfc_status *s = tfc_capi_status_or(status, &scratch);
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_GraphUniqueName: %s is %s", !output ? "output" : "name",
                   !output ? "NULL" : "empty");
    tfc_status_fini(&scratch);
    return;
  }
  if (bld_begin(&c, graph, status, &scratch)) {
    tfc_status_fini(&scratch);
    return;
  }
  char *full = mark_as_used ? bld_unique(&c, NULL, name) : bld_peek_unique(&c, NULL, name);
  if (full) tfc_capi_fill_buffer(output, full, strlen(full), c.s); /* owns full, even on error */
  bld_end(&c);
  tfc_status_fini(&scratch);
}

TFC_EXPORT TFC_Scope *TFC_ScopeWithDevice(const TFC_Scope *scope, const char *device) {
  if (!scope) return NULL;
  char *dev = device && *device ? merge_device(scope->device, device) : tfc_strdup("");
  if (!dev) return NULL;
  /* NULL or "" is tf.device(None): the device functions go too. */
  TFC_Scope *sc = scope_new(scope->graph, scope->name, dev, device && *device ? scope->devfn : NULL, scope->frames,
                            scope->n_frames, NULL);
  free(dev);
  if (sc) bld_scope_set_cf(sc, scope->cf);
  return sc;
}

TFC_EXPORT TFC_Scope *TFC_ScopeWithDeviceFunction(const TFC_Scope *scope, TFC_DeviceFunction fn, void *ctx) {
  if (!scope || !fn) return NULL;
  bld_devfn *f = calloc(1, sizeof *f);
  if (!f || !(f->outer = tfc_strdup(scope->device))) {
    free(f);
    return NULL;
  }
  f->refs = 1;
  f->fn = fn;
  f->ctx = ctx;
  if ((f->parent = scope->devfn)) f->parent->refs++;
  TFC_Scope *sc = scope_new(scope->graph, scope->name, "", f, scope->frames, scope->n_frames, NULL);
  devfn_unref(f); /* the scope holds it now (or nothing does) */
  if (sc) bld_scope_set_cf(sc, scope->cf);
  return sc;
}

TFC_EXPORT TFC_Scope *TFC_ScopeWithControlDependencies(const TFC_Scope *scope, TF_Operation *const *ops,
                                                      int n) {
  if (!scope || n < 0 || (n > 0 && !ops)) return NULL;
  bld_frame *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->refs = 1;
  tfc_hashmap_init(&f->seen);
  f->ops = calloc((size_t)n + 1, sizeof *f->ops);
  if (!f->ops) {
    frame_unref(f);
    return NULL;
  }
  for (int i = 0; i < n; i++)
    if (ops[i]) f->ops[f->n_ops++] = tfc_capi_node(ops[i]);
  TFC_Scope *sc = scope_new(scope->graph, scope->name, scope->device, scope->devfn, scope->frames, scope->n_frames, f);
  if (!sc) frame_unref(f);
  else bld_scope_set_cf(sc, scope->cf);
  return sc;
}

TFC_EXPORT TFC_Scope *TFC_ScopeWithBuilderName(const TFC_Scope *scope, const char *name) {
  if (!scope || !name || !*name) return NULL;
  TFC_Scope *sc = scope_new(scope->graph, scope->name, scope->device, scope->devfn, scope->frames, scope->n_frames,
                            NULL);
  if (!sc) return NULL;
  bld_scope_set_cf(sc, scope->cf);
  if (!(sc->builder_name = tfc_strdup(name))) {
    TFC_DeleteScope(sc);
    return NULL;
  }
  return sc;
}

TFC_EXPORT void TFC_DeleteScope(TFC_Scope *scope) {
  if (!scope) return;
  free(scope->builder_name);
  devfn_unref(scope->devfn);
  for (int i = 0; i < scope->n_frames; i++) frame_unref(scope->frames[i]);
  bld_scope_set_cf(scope, NULL);
  free(scope->frames);
  free(scope->name);
  free(scope->device);
  free(scope);
}

TFC_EXPORT TF_Graph *TFC_ScopeGraph(const TFC_Scope *scope) { return scope ? scope->graph : NULL; }

TFC_EXPORT const char *TFC_ScopeName(const TFC_Scope *scope) { return scope ? scope->name : ""; }

TFC_EXPORT TF_OperationDescription *TFC_ScopeNewOperation(const TFC_Scope *scope, const char *op_type,
                                                         const char *name) {
  if (!scope || !op_type) return NULL;
  tfc_status scratch;
  bld_call c;
  if (bld_begin(&c, scope->graph, NULL, &scratch)) {
    tfc_status_fini(&scratch);
    return NULL;
  }
  char *full = bld_unique(&c, scope->name, name ? name : op_type);
  /* The frames learn the name now: the node appears only at TF_FinishOperation. */
  for (int f = 0; full && f < scope->n_frames; f++)
    if (tfc_hashmap_put(&scope->frames[f]->seen, full, (void *)1)) {
      free(full);
      full = NULL;
    }
  /* Device functions see no operation yet: only its type, name and requested device. */
  char *dev = NULL;
  if (full && scope->devfn && bld_devfn_apply(&c, scope->devfn, op_type, full, scope->device, NULL, &dev)) {
    free(full);
    full = NULL;
  }
  bld_end(&c);
  tfc_status_fini(&scratch);
  if (!full) return NULL;
  TF_OperationDescription *d = TF_NewOperation(scope->graph, op_type, full);
  free(full);
  if (!d) {
    free(dev);
    return NULL;
  }
  const char *device = dev ? dev : scope->device;
  if (*device) TF_SetDevice(d, device);
  free(dev);
  for (int f = 0; f < scope->n_frames; f++)
    for (int k = 0; k < scope->frames[f]->n_ops; k++) TF_AddControlInput(d, tfc_capi_oper(scope->frames[f]->ops[k]));
  return d;
}
