/*
 * builders/variables — TF 1.x reference variables as tf.Variable / tf.get_variable make them,
 * the per-graph variable collections (GLOBAL_VARIABLES, TRAINABLE_VARIABLES, LOCAL_VARIABLES,
 * GLOBAL_STEP), tf.variables_initializer and tf.train.get_or_create_global_step.
 *
 * Local variables (the input pipeline's epoch counters, tf.local_variables) are made the same
 * way but kept out of the global and trainable lists: they are per-process state that a
 * checkpoint does not save, initialized by tf.local_variables_initializer instead.
 *
 * A variable "w1" is: its initial value (the caller's tensor; or, made inside the variable's
 * scope, "w1/initial_value" for a Python number or "w1/Initializer/zeros" for an initializer
 * function), VariableV2 "w1", Assign "w1/Assign" (validate_shape, use_locking) and Identity
 * "w1/read". The Assign and the read are colocated with the variable (Python colocates every
 * op with its ref inputs, and the read explicitly). Variables ignore the scope's control
 * dependencies (Python builds them under init_scope) but take its device.
 *
 * Slots and non-slot optimizer variables pass `coloc`: then every node is colocated with that
 * primary variable (its _class and device), as colocate_vars_with does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "tensor/dtype.h"
#include "tfc/input.h"

/* Python's name of a dtype ("float32" where the C++ name is "float"). */
static const char *python_dtype_name(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: return "float32";
    case TFC_DT_DOUBLE: return "float64";
    case TFC_DT_HALF: return "float16";
    default: return tfc_dtype_name(dtype);
  }
}

/* Python's Tensor repr for messages: Tensor("x:0", shape=(?, 32), dtype=float32). */
static void tensor_repr(tfc_endpoint e, char *buf, size_t n) {
  const tfc_shape *sh = bld_shape(e);
  char dims[256] = "<unknown>";
  if (sh->rank >= 0) {
    size_t k = 0;
    k += (size_t)snprintf(dims + k, sizeof dims - k, "(");
    for (int i = 0; i < sh->rank && k < sizeof dims; i++) {
      if (sh->dims[i] < 0) k += (size_t)snprintf(dims + k, sizeof dims - k, "%s?", i ? ", " : "");
      else k += (size_t)snprintf(dims + k, sizeof dims - k, "%s%lld", i ? ", " : "", (long long)sh->dims[i]);
    }
    if (k < sizeof dims) snprintf(dims + k, sizeof dims - k, sh->rank == 1 ? ",)" : ")");
  }
  snprintf(buf, n, "Tensor(\"%s:%d\", shape=%s, dtype=%s)", e.node->name, e.index, dims,
           python_dtype_name(bld_dtype(e)));
}

static int record(bld_call *c, const TFC_Variable *v, int trainable) {
  bld_state *st = c->st;
  if (st->n_vars == st->cap_vars) {
    int cap = st->cap_vars ? st->cap_vars * 2 : 16;
    bld_var *nv = realloc(st->vars, sizeof *nv * (size_t)cap);
    if (!nv) return TFC_OOM(c->s);
    st->vars = nv;
    st->cap_vars = cap;
  }
  st->vars[st->n_vars].v = *v;
  st->vars[st->n_vars].global = 1;
  st->vars[st->n_vars].trainable = trainable;
  st->vars[st->n_vars].local = 0;
  st->n_vars++;
  return TFC_OK;
}

int bld_variable(bld_call *c, const bld_where *w0, const char *name, int exact_name, const bld_init *init,
                 int trainable, tfc_node *coloc, int self_colocate, TFC_Variable *out) {
  if (!tfc_status_ok(c->s)) return c->s->code;
  bld_where w = *w0;
  w.frames_from = NULL; /* init_scope: no control dependencies */
  w.coloc = coloc;
  w.coloc_name = NULL;
  w.ctrl = NULL;
  w.n_ctrl = 0;
  char *full = NULL;
  if (exact_name) {
    full = bld_join(w.scope, name);
    if (!full) return TFC_OOM(c->s);
    if (bld_mark_used(c, full)) {
      free(full);
      return c->s->code;
    }
  } else if (!(full = bld_unique(c, w.scope, name))) {
    return c->s->code;
  }
  /* 1. The initial value. */
  tfc_endpoint value = init->value;
  int dtype;
  tfc_shape shape;
  bld_where in = w;
  in.scope = full;
  if (value.node) {
    shape = *bld_shape(value);
    dtype = bld_dtype(value);
    if (!tfc_shape_fully_defined(&shape)) {
      char repr[512];
      tensor_repr(value, repr, sizeof repr);
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "initial_value must have a shape specified: %s", repr);
    }
  } else if (init->fill) {
    /* An initializer function runs under attr_scope(_class loc:@<var>) and device(None). */
    shape = tfc_shape_make(init->dims, init->nd);
    dtype = init->dtype;
    char *scope = bld_join(full, "Initializer");
    if (!scope) {
      TFC_OOM(c->s);
    } else {
      bld_where iw = in;
      iw.scope = scope;
      if (!coloc) {
        iw.coloc_name = full;
        iw.device = "";
        iw.devfn = NULL;
      }
      if (!bld_mark_used(c, scope)) value = bld_filled(c, &iw, init->dims, init->nd, dtype, init->fill, init->scalar);
      free(scope);
    }
  } else {
    shape = tfc_shape_scalar();
    dtype = init->dtype;
    value = bld_scalar(c, &in, "initial_value", dtype, init->scalar);
  }
  /* 2. VariableV2 "<full>", Assign, read. */
  char *exact = NULL;
  if (asprintf(&exact, "%s/", full) < 0) {
    free(full);
    return TFC_OOM(c->s);
  }
  bld_where vw = w;
  vw.scope = "";
  if (self_colocate && !coloc) vw.coloc_name = full;
  tfc_attr_value sh = {0};
  if (tfc_status_ok(c->s)) tfc_attr_shape(&shape, &sh, c->s);
  bld_attr va[2] = {{"shape", sh}, {"dtype", tfc_attr_type(dtype)}};
  tfc_node *var = bld_op(c, &vw, "VariableV2", exact, NULL, 0, va, 2);
  bld_where aw = in;
  aw.coloc = var;
  tfc_endpoint ins[2] = {{var, 0}, value};
  bld_attr aa[2] = {{"validate_shape", tfc_attr_bool(1)}, {"use_locking", tfc_attr_bool(1)}};
  tfc_node *assign = bld_op(c, &aw, "Assign", "Assign", ins, 2, aa, 2);
  tfc_endpoint read = bld_op0(c, &aw, "Identity", "read", ins, 1, NULL, 0);
  free(exact);
  free(full);
  if (!tfc_status_ok(c->s)) return c->s->code;
  out->variable = tfc_capi_oper(var);
  out->initializer = tfc_capi_oper(assign);
  out->value = (TF_Output){tfc_capi_oper(read.node), 0};
  return record(c, out, trainable);
}

/* ---------------- public ---------------- */

int bld_check_output(bld_call *c, TF_Output o, const char *what) {
  const tfc_node *n = tfc_capi_node(o.oper);
  if (!n) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s is missing (NULL operation)", what);
  if (n->graph != c->g)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s: node '%s' is not in this graph", what, n->name);
  if (o.index < 0 || o.index >= n->n_outputs)
    return tfc_status_set(c->s, TFC_OUT_OF_RANGE, "%s: node '%s' has %d outputs; index %d is out of range", what,
                          n->name, n->n_outputs, o.index);
  return TFC_OK;
}

TFC_EXPORT TFC_Variable TFC_NewVariable(const TFC_Scope *scope, const char *name, TF_Output initial_value,
                                       unsigned char trainable, TF_Status *status) {
  TFC_Variable v = {NULL, NULL, {NULL, 0}};
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    if (!bld_check_output(&c, initial_value, "initial_value")) {
      bld_where w = bld_where_of(scope, NULL);
      bld_init init = {tfc_capi_endpoint(initial_value), 0, 0, 0, 0, {0}};
      TFC_Variable r;
      if (!bld_variable(&c, &w, name ? name : "Variable", 0, &init, trainable != 0, NULL, 0, &r)) v = r;
    }
    if (bld_end(&c) != TFC_OK) v = (TFC_Variable){NULL, NULL, {NULL, 0}};
  }
  tfc_status_fini(&scratch);
  return v;
}

static void set_flags(bld_var *v, int flags) {
  v->global = (flags & TFC_VARIABLE_GLOBAL) != 0;
  v->trainable = (flags & TFC_VARIABLE_TRAINABLE) != 0;
  v->local = (flags & TFC_VARIABLE_LOCAL) != 0;
}

TFC_EXPORT TFC_Variable TFC_NewVariableWithFlags(const TFC_Scope *scope, const char *name, TF_Output initial_value,
                                                int flags, TF_Status *status) {
  TFC_Variable v = {NULL, NULL, {NULL, 0}};
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    int exact = (flags & TFC_VARIABLE_EXACT_NAME) != 0;
    if (exact && (!name || !*name)) {
      tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_NewVariableWithFlags: an exact name must not be empty");
    } else if (!bld_check_output(&c, initial_value, "initial_value")) {
      bld_where w = bld_where_of(scope, NULL);
      bld_init init = {tfc_capi_endpoint(initial_value), 0, 0, 0, 0, {0}};
      TFC_Variable r;
      int self_coloc = (flags & TFC_VARIABLE_SELF_COLOCATE) != 0;
      if (!bld_variable(&c, &w, name ? name : "Variable", exact, &init, 0, NULL, self_coloc, &r)) {
        set_flags(&c.st->vars[c.st->n_vars - 1], flags);
        v = r;
      }
    }
    if (bld_end(&c) != TFC_OK) v = (TFC_Variable){NULL, NULL, {NULL, 0}};
  }
  tfc_status_fini(&scratch);
  return v;
}

/* The initializer is an operation, with or without outputs (a resource variable's
 * AssignVariableOp has none, a grouped one is a NoOp): it must be in this graph. */
static int check_initializer(bld_call *c, TF_Operation *op) {
  const tfc_node *n = tfc_capi_node(op);
  if (n && n->graph != c->g)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "initializer: node '%s' is not in this graph", n->name);
  return n ? TFC_OK : tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "initializer is missing (NULL operation)");
}

TFC_EXPORT void TFC_SetVariableCollections(TF_Graph *graph, const TFC_Variable *var, int flags, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (bld_begin(&c, graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  if (!var || !var->variable || !var->initializer || !var->value.oper) {
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_SetVariableCollections: the variable is missing an operation");
  } else if (!bld_check_output(&c, (TF_Output){var->variable, 0}, "variable") &&
             !check_initializer(&c, var->initializer) &&
             !bld_check_output(&c, var->value, "value")) {
    bld_var *found = NULL;
    for (int i = 0; i < c.st->n_vars && !found; i++)
      if (c.st->vars[i].v.variable == var->variable) found = &c.st->vars[i];
    if (!found && !record(&c, var, 0)) found = &c.st->vars[c.st->n_vars - 1];
    if (found) set_flags(found, flags);
  }
  bld_end(&c);
  tfc_status_fini(&scratch);
}

/* Which variables a listing takes. */
enum { LIST_GLOBAL = 0, LIST_TRAINABLE = 1, LIST_LOCAL = 2 };

static int wanted(const bld_var *v, int which) {
  if (which == LIST_LOCAL) return v->local;
  return which == LIST_GLOBAL ? v->global : v->trainable;
}

static int list_vars(TF_Graph *graph, TFC_Variable *out, int max, int which) {
  if (!graph) return 0;
  tfc_graph_lock(graph->g);
  int n = 0;
  const bld_state *st = graph->builders;
  for (int i = 0; st && i < st->n_vars; i++) {
    if (!wanted(&st->vars[i], which)) continue;
    if (out && n < max) out[n] = st->vars[i].v;
    n++;
  }
  tfc_graph_unlock(graph->g);
  return n;
}

TFC_EXPORT int TFC_GlobalVariables(TF_Graph *graph, TFC_Variable *out, int max) {
  return list_vars(graph, out, max, LIST_GLOBAL);
}

TFC_EXPORT int TFC_TrainableVariables(TF_Graph *graph, TFC_Variable *out, int max) {
  return list_vars(graph, out, max, LIST_TRAINABLE);
}

TFC_EXPORT int TFC_LocalVariables(TF_Graph *graph, TFC_Variable *out, int max) {
  return list_vars(graph, out, max, LIST_LOCAL);
}

int bld_local_variable(bld_call *c, const bld_where *w, const char *name, tfc_endpoint initial_value,
                       TFC_Variable *out) {
  bld_init init = {initial_value, 0, 0, 0, 0, {0}};
  TFC_TRY(bld_variable(c, w, name, 0, &init, 0, NULL, 0, out));
  c->st->vars[c->st->n_vars - 1].global = 0;
  c->st->vars[c->st->n_vars - 1].local = 1;
  return TFC_OK;
}

TFC_EXPORT TFC_Variable TFC_NewLocalVariable(const TFC_Scope *scope, const char *name, TF_Output initial_value,
                                            TF_Status *status) {
  TFC_Variable v = {NULL, NULL, {NULL, 0}};
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    if (!bld_check_output(&c, initial_value, "initial_value")) {
      bld_where w = bld_where_of(scope, NULL);
      TFC_Variable r;
      if (!bld_local_variable(&c, &w, name ? name : "Variable", tfc_capi_endpoint(initial_value), &r)) v = r;
    }
    if (bld_end(&c) != TFC_OK) v = (TFC_Variable){NULL, NULL, {NULL, 0}};
  }
  tfc_status_fini(&scratch);
  return v;
}

/* tf.variables_initializer over the global or the local variables. */
static TF_Operation *initializer(const TFC_Scope *scope, const char *name, int which, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Operation *r = NULL;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    int n = 0;
    tfc_node **inits = calloc((size_t)c.st->n_vars + 1, sizeof *inits);
    tfc_node *op = NULL;
    if (!inits) {
      TFC_OOM(c.s);
    } else {
      for (int i = 0; i < c.st->n_vars; i++)
        if (wanted(&c.st->vars[i], which)) inits[n++] = tfc_capi_node(c.st->vars[i].v.initializer);
      /* variables_initializer: group of the initializers, or a plain NoOp for none. */
      op = n ? bld_group(&c, &w, inits, n, name ? name : "init")
             : bld_op(&c, &w, "NoOp", name ? name : "init", NULL, 0, NULL, 0);
    }
    free(inits);
    if (bld_end(&c) == TFC_OK) r = tfc_capi_oper(op);
  }
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT TF_Operation *TFC_Group(const TFC_Scope *scope, TF_Operation *const *ops, int num_ops, const char *name,
                                  TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Operation *r = NULL;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    tfc_node **nodes = calloc((size_t)(num_ops > 0 ? num_ops : 0) + 1, sizeof *nodes);
    tfc_node *op = NULL;
    if (!nodes) {
      TFC_OOM(c.s);
    } else if (num_ops < 0 || (num_ops > 0 && !ops)) {
      tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_Group: invalid operation list");
    } else {
      for (int i = 0; i < num_ops && tfc_status_ok(c.s); i++) {
        if (!ops[i] || tfc_capi_node(ops[i])->graph != c.g)
          tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_Group: operation %d is not in this graph", i);
        else
          nodes[i] = tfc_capi_node(ops[i]);
      }
      if (tfc_status_ok(c.s))
        op = num_ops ? bld_group(&c, &w, nodes, num_ops, name ? name : "group_deps")
                     : bld_op(&c, &w, "NoOp", name ? name : "group_deps", NULL, 0, NULL, 0);
    }
    free(nodes);
    if (bld_end(&c) == TFC_OK) r = tfc_capi_oper(op);
  }
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT TF_Operation *TFC_GlobalVariablesInitializer(const TFC_Scope *scope, const char *name,
                                                       TF_Status *status) {
  return initializer(scope, name, LIST_GLOBAL, status);
}

TFC_EXPORT TF_Operation *TFC_LocalVariablesInitializer(const TFC_Scope *scope, const char *name,
                                                      TF_Status *status) {
  return initializer(scope, name, LIST_LOCAL, status);
}

/* The global step of a graph that has one: recorded, or a VariableV2 "global_step" (an
 * imported graph). Lock held. */
static int find_global_step(bld_call *c, TFC_Variable *out) {
  if (c->st->has_global_step) {
    *out = c->st->global_step;
    return 1;
  }
  tfc_node *v = tfc_graph_find(c->g, "global_step");
  if (!v || strcmp(v->op->name, "VariableV2") != 0) return 0;
  tfc_node *assign = tfc_graph_find(c->g, "global_step/Assign");
  tfc_node *read = tfc_graph_find(c->g, "global_step/read");
  out->variable = tfc_capi_oper(v);
  out->initializer = tfc_capi_oper(assign);
  out->value = (TF_Output){tfc_capi_oper(read ? read : v), 0};
  return 1;
}

int bld_global_step(bld_call *c, const TFC_Scope *scope, TFC_Variable *out) {
  if (find_global_step(c, out)) return TFC_OK;
  /* get_variable("global_step", [], int64, zeros, trainable=False) at the root name scope,
   * under the caller's device. */
  bld_where w = {"", scope->device, NULL, NULL, NULL, NULL, 0, scope->devfn};
  bld_init init = {{NULL, 0}, 1, 0, TFC_DT_INT64, 0, {0}};
  TFC_TRY(bld_variable(c, &w, "global_step", 0, &init, 0, NULL, 1, out));
  c->st->global_step = *out;
  c->st->has_global_step = 1;
  return TFC_OK;
}

TFC_EXPORT TFC_Variable TFC_GetOrCreateGlobalStep(const TFC_Scope *scope, TF_Status *status) {
  TFC_Variable v = {NULL, NULL, {NULL, 0}};
  tfc_status scratch;
  bld_call c;
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    TFC_Variable r;
    if (!bld_global_step(&c, scope, &r)) v = r;
    if (bld_end(&c) != TFC_OK) v = (TFC_Variable){NULL, NULL, {NULL, 0}};
  }
  tfc_status_fini(&scratch);
  return v;
}
