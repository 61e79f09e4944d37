/*
 * builders/optimizers — tf.train.GradientDescentOptimizer, MomentumOptimizer, AdamOptimizer,
 * AdagradOptimizer, RMSPropOptimizer, AdadeltaOptimizer, FtrlOptimizer,
 * ProximalGradientDescentOptimizer and ProximalAdagradOptimizer as graph builders over the Apply* ops (DESIGN.md §6): they add ordinary
 * nodes, so placement and partitioning treat them like any other.
 *
 * apply_gradients builds what TF 1.x's Optimizer.apply_gradients builds, in its order:
 *   1. slots (init_scope: no control dependencies), colocated with their variable and named
 *      by the optimizer: "<var>/Momentum", "<var>/Adam" and "<var>/Adam_1" (zeros),
 *      "<var>/Adagrad" (constant initial_accumulator_value), "<var>/RMSProp" (rms, ones),
 *      [centered: "<var>/RMSProp_1" (mg, zeros),] then the momentum slot (zeros);
 *      "<var>/Adadelta" and "<var>/Adadelta_1" (accum, accum_update; zeros); "<var>/Ftrl"
 *      (accum, constant initial_accumulator_value) and "<var>/Ftrl_1" (linear, zeros);
 *      "<var>/ProximalAdagrad" (accumulator, constant initial_accumulator_value); Adam first
 *      makes "beta1_power" / "beta2_power" in the caller's name scope, colocated with the
 *      variable whose name sorts first;
 *   2. the name scope "<name>" (unique) with _prepare's constants "learning_rate",
 *      "momentum" / "beta1", "beta2", "epsilon" / "decay", "momentum", "epsilon" / Adadelta's
 *      "lr", "rho", "epsilon" / Ftrl's "l1_regularization_strength",
 *      "l2_regularization_strength", "l2_shrinkage_regularization_strength",
 *      "learning_rate_power" / the proximal ones' l1 and l2 strengths (float32;
 *      the learning rate's is skipped for a tensor learning rate);
 *   3. per variable "update_<var>/Apply*", colocated with the variable (Cast when its dtype
 *      differs from a hyperparameter's);
 *   4. _finish: Adam's "mul" / "Assign" and "mul_1" / "Assign_1" updating the beta powers
 *      after every update; then the group named exactly "<name>" — or, with a global step,
 *      the group "update" and AssignAdd "<name>" of "value" (1) on the step.
 * Slots and beta powers are cached per (graph, variable) in the optimizer, as Python's
 * optimizer keeps them, so a second apply on the same variables reuses them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "builders/builders_internal.h"
#include "tensor/dtype.h"

enum {
  OPT_GD = 0,
  OPT_MOMENTUM = 1,
  OPT_ADAM = 2,
  OPT_ADAGRAD = 3,
  OPT_RMSPROP = 4,
  OPT_ADADELTA = 5,
  OPT_FTRL = 6,
  OPT_PROXIMAL_GD = 7,
  OPT_PROXIMAL_ADAGRAD = 8
};

/* Which slot of a variable: Momentum's accumulator, Adam's m, Adagrad's accumulator and
 * RMSProp's rms are 0; Adam's v and RMSProp's momentum 1; centered RMSProp's mg 2. */
enum { SLOT_FIRST = 0, SLOT_SECOND = 1, SLOT_MG = 2 };

typedef struct opt_slot {
  TF_Graph *graph;
  tfc_node *var;
  int which;
  TFC_Variable slot;
} opt_slot;

struct TFC_Optimizer {
  int kind;
  char *name;
  double lr, momentum, beta1, beta2, epsilon, decay, initial_accumulator;
  double l1, l2, l2_shrinkage, lr_power; /* Ftrl and the proximal optimizers; decay is Adadelta's rho */
  int nesterov, centered;
  TF_Output lr_tensor;
  opt_slot *slots;
  int n_slots, cap_slots;
  TF_Graph *beta_graph;
  TFC_Variable beta1_power, beta2_power;
};

static TFC_Optimizer *opt_new(int kind, const char *name, const char *dflt) {
  TFC_Optimizer *o = calloc(1, sizeof *o);
  if (!o) return NULL;
  o->kind = kind;
  o->name = tfc_strdup(name && *name ? name : dflt);
  if (!o->name) {
    free(o);
    return NULL;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewGradientDescentOptimizer(double learning_rate, const char *name) {
  TFC_Optimizer *o = opt_new(OPT_GD, name, "GradientDescent");
  if (o) o->lr = learning_rate;
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewMomentumOptimizer(double learning_rate, double momentum, unsigned char use_nesterov,
                                                  const char *name) {
  TFC_Optimizer *o = opt_new(OPT_MOMENTUM, name, "Momentum");
  if (o) {
    o->lr = learning_rate;
    o->momentum = momentum;
    o->nesterov = use_nesterov != 0;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewAdamOptimizer(double learning_rate, double beta1, double beta2, double epsilon,
                                              const char *name) {
  TFC_Optimizer *o = opt_new(OPT_ADAM, name, "Adam");
  if (o) {
    o->lr = learning_rate;
    o->beta1 = beta1;
    o->beta2 = beta2;
    o->epsilon = epsilon;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewAdagradOptimizer(double learning_rate, double initial_accumulator_value,
                                                 const char *name) {
  TFC_Optimizer *o = opt_new(OPT_ADAGRAD, name, "Adagrad");
  if (o) {
    o->lr = learning_rate;
    o->initial_accumulator = initial_accumulator_value;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewRMSPropOptimizer(double learning_rate, double decay, double momentum, double epsilon,
                                                 unsigned char centered, const char *name) {
  TFC_Optimizer *o = opt_new(OPT_RMSPROP, name, "RMSProp");
  if (o) {
    o->lr = learning_rate;
    o->decay = decay;
    o->momentum = momentum;
    o->epsilon = epsilon;
    o->centered = centered != 0;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewAdadeltaOptimizer(double learning_rate, double rho, double epsilon,
                                                  const char *name) {
  TFC_Optimizer *o = opt_new(OPT_ADADELTA, name, "Adadelta");
  if (o) {
    o->lr = learning_rate;
    o->decay = rho;
    o->epsilon = epsilon;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewFtrlOptimizer(double learning_rate, double learning_rate_power,
                                              double initial_accumulator_value, double l1, double l2,
                                              double l2_shrinkage, const char *name) {
  TFC_Optimizer *o = opt_new(OPT_FTRL, name, "Ftrl");
  if (o) {
    o->lr = learning_rate;
    o->lr_power = learning_rate_power;
    o->initial_accumulator = initial_accumulator_value;
    o->l1 = l1;
    o->l2 = l2;
    o->l2_shrinkage = l2_shrinkage;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewProximalGradientDescentOptimizer(double learning_rate, double l1, double l2,
                                                                 const char *name) {
  TFC_Optimizer *o = opt_new(OPT_PROXIMAL_GD, name, "ProximalGradientDescent");
  if (o) {
    o->lr = learning_rate;
    o->l1 = l1;
    o->l2 = l2;
  }
  return o;
}

TFC_EXPORT TFC_Optimizer *TFC_NewProximalAdagradOptimizer(double learning_rate, double initial_accumulator_value,
                                                         double l1, double l2, const char *name) {
  TFC_Optimizer *o = opt_new(OPT_PROXIMAL_ADAGRAD, name, "ProximalAdagrad");
  if (o) {
    o->lr = learning_rate;
    o->initial_accumulator = initial_accumulator_value;
    o->l1 = l1;
    o->l2 = l2;
  }
  return o;
}

TFC_EXPORT void TFC_OptimizerSetLearningRate(TFC_Optimizer *opt, TF_Output learning_rate) {
  if (opt) opt->lr_tensor = learning_rate;
}

TFC_EXPORT void TFC_DeleteOptimizer(TFC_Optimizer *opt) {
  if (!opt) return;
  free(opt->slots);
  free(opt->name);
  free(opt);
}

/* ---------------- slots ---------------- */

static const TFC_Variable *find_slot(const TFC_Optimizer *o, TF_Graph *graph, const tfc_node *var, int which) {
  for (int i = 0; i < o->n_slots; i++)
    if (o->slots[i].graph == graph && o->slots[i].var == var && o->slots[i].which == which) return &o->slots[i].slot;
  return NULL;
}

/* Python's slot names per optimizer, by `which`. */
static int slot_which(int kind, const char *name) {
  static const struct {
    int kind;
    const char *name;
    int which;
  } names[] = {{OPT_MOMENTUM, "momentum", SLOT_FIRST}, {OPT_ADAM, "m", SLOT_FIRST},
               {OPT_ADAM, "v", SLOT_SECOND},          {OPT_ADAGRAD, "accumulator", SLOT_FIRST},
               {OPT_RMSPROP, "rms", SLOT_FIRST},      {OPT_RMSPROP, "momentum", SLOT_SECOND},
               {OPT_RMSPROP, "mg", SLOT_MG},          {OPT_ADADELTA, "accum", SLOT_FIRST},
               {OPT_ADADELTA, "accum_update", SLOT_SECOND}, {OPT_FTRL, "accum", SLOT_FIRST},
               {OPT_FTRL, "linear", SLOT_SECOND},     {OPT_PROXIMAL_ADAGRAD, "accumulator", SLOT_FIRST}};
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
    if (names[i].kind == kind && !strcmp(names[i].name, name)) return names[i].which;
  return -1;
}

TFC_EXPORT int TFC_OptimizerGetSlot(const TFC_Optimizer *opt, TF_Graph *graph, TF_Operation *variable,
                                    const char *slot_name, TFC_Variable *out) {
  if (!opt || !graph || !variable) return 0;
  int which = slot_which(opt->kind, slot_name);
  if (which < 0) return 0;
  tfc_graph_lock(graph->g);
  const TFC_Variable *v = find_slot(opt, graph, tfc_capi_node(variable), which);
  if (v && out) *out = *v;
  tfc_graph_unlock(graph->g);
  return v != NULL;
}

/* _zeros_slot / _get_or_make_slot_with_initializer(var, which, optimizer name): "<var>/<name>"
 * (unique), colocated with var, its value a BLD_FILL_* initializer's (`v` for BLD_FILL_CONST). */
static const TFC_Variable *make_slot(bld_call *c, TFC_Optimizer *o, const TFC_Scope *scope, tfc_node *var,
                                     int which, int fill, double v) {
  const TFC_Variable *have = find_slot(o, c->graph, var, which);
  if (have || !tfc_status_ok(c->s)) return have;
  const tfc_shape *sh = &var->output_shapes[0];
  if (!tfc_shape_fully_defined(sh)) {
    tfc_status_set(c->s, TFC_UNIMPLEMENTED, "slot for variable '%s': the variable's shape must be fully defined",
                   var->name);
    return NULL;
  }
  if (o->n_slots == o->cap_slots) {
    int cap = o->cap_slots ? o->cap_slots * 2 : 8;
    opt_slot *ns = realloc(o->slots, sizeof *ns * (size_t)cap);
    if (!ns) {
      TFC_OOM(c->s);
      return NULL;
    }
    o->slots = ns;
    o->cap_slots = cap;
  }
  char *base = NULL;
  if (asprintf(&base, "%s/%s", var->name, o->name) < 0) {
    TFC_OOM(c->s);
    return NULL;
  }
  /* Slot names come from variable scopes, which are absolute: the root name scope. */
  bld_where w = {"", scope->device, NULL, NULL, NULL, NULL, 0, scope->devfn};
  bld_init init = {{NULL, 0}, fill, v, tfc_dtype_base(var->output_types[0]), sh->rank, {0}};
  for (int i = 0; i < sh->rank; i++) init.dims[i] = sh->dims[i];
  opt_slot *s = &o->slots[o->n_slots];
  int rc = bld_variable(c, &w, base, 0, &init, 0, var, 0, &s->slot);
  free(base);
  if (rc) return NULL;
  s->graph = c->graph;
  s->var = var;
  s->which = which;
  o->n_slots++;
  return &s->slot;
}

/* Python's Variable.name ("b1:0"), which min() compares. */
static int name_before(const tfc_node *a, const tfc_node *b) {
  char x[1024], y[1024];
  snprintf(x, sizeof x, "%s:0", a->name);
  snprintf(y, sizeof y, "%s:0", b->name);
  return strcmp(x, y) < 0;
}

static int create_slots(bld_call *c, TFC_Optimizer *o, const TFC_Scope *scope, tfc_node *const *vars, int n) {
  if (o->kind == OPT_ADAM && o->beta_graph != c->graph) {
    tfc_node *first = vars[0];
    for (int i = 1; i < n; i++)
      if (name_before(vars[i], first)) first = vars[i];
    bld_where w = bld_where_of(scope, NULL);
    bld_init b1 = {{NULL, 0}, 0, o->beta1, TFC_DT_FLOAT, 0, {0}};
    bld_init b2 = {{NULL, 0}, 0, o->beta2, TFC_DT_FLOAT, 0, {0}};
    TFC_TRY(bld_variable(c, &w, "beta1_power", 0, &b1, 0, first, 0, &o->beta1_power));
    TFC_TRY(bld_variable(c, &w, "beta2_power", 0, &b2, 0, first, 0, &o->beta2_power));
    o->beta_graph = c->graph;
  }
  for (int i = 0; i < n && o->kind != OPT_GD && o->kind != OPT_PROXIMAL_GD; i++) {
    if (o->kind == OPT_ADAGRAD || o->kind == OPT_PROXIMAL_ADAGRAD) {
      make_slot(c, o, scope, vars[i], SLOT_FIRST, BLD_FILL_CONST, o->initial_accumulator);
    } else if (o->kind == OPT_RMSPROP) {
      make_slot(c, o, scope, vars[i], SLOT_FIRST, BLD_FILL_ONES, 0);
      if (o->centered) make_slot(c, o, scope, vars[i], SLOT_MG, BLD_FILL_ZEROS, 0);
      make_slot(c, o, scope, vars[i], SLOT_SECOND, BLD_FILL_ZEROS, 0);
    } else if (o->kind == OPT_FTRL) {
      make_slot(c, o, scope, vars[i], SLOT_FIRST, BLD_FILL_CONST, o->initial_accumulator);
      make_slot(c, o, scope, vars[i], SLOT_SECOND, BLD_FILL_ZEROS, 0);
    } else {
      /* Momentum, Adam and Adadelta: zeros. */
      make_slot(c, o, scope, vars[i], SLOT_FIRST, BLD_FILL_ZEROS, 0);
      if (o->kind == OPT_ADAM || o->kind == OPT_ADADELTA)
        make_slot(c, o, scope, vars[i], SLOT_SECOND, BLD_FILL_ZEROS, 0);
    }
  }
  return c->s->code;
}

/* ---------------- apply ---------------- */

static tfc_endpoint ep(TF_Output o) { return tfc_capi_endpoint(o); }

static tfc_node *apply_locked(bld_call *c, TFC_Optimizer *o, const TFC_Scope *scope, const tfc_endpoint *grads,
                              const TFC_Variable *vars, int n, const TFC_Variable *global_step, const char *name,
                              const char *no_grads_msg) {
  tfc_node **vlist = calloc((size_t)n + 1, sizeof *vlist);
  tfc_endpoint *glist = calloc((size_t)n + 1, sizeof *glist);
  tfc_node **updates = calloc((size_t)n + 3, sizeof *updates);
  char *scope_name = NULL, *exact = NULL;
  tfc_node *train = NULL;
  int nv = 0, n_up = 0;
  if (!vlist || !glist || !updates) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    if (!vars[i].variable) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "variable %d is missing (NULL operation)", i);
      goto done;
    }
    if (bld_check_output(c, (TF_Output){vars[i].variable, 0}, "variable")) goto done;
    if (!grads[i].node) continue;
    if (bld_check_output(c, (TF_Output){tfc_capi_oper(grads[i].node), grads[i].index}, "gradient")) goto done;
    vlist[nv] = tfc_capi_node(vars[i].variable);
    glist[nv++] = grads[i];
  }
  if (nv == 0) {
    /* Python lists the variables: "No gradients provided for any variable: ['w1:0', ...]." */
    tfc_strbuf sb;
    tfc_strbuf_init(&sb);
    tfc_strbuf_puts(&sb, no_grads_msg);
    tfc_strbuf_puts(&sb, "[");
    for (int i = 0; i < n; i++)
      tfc_strbuf_printf(&sb, "%s'%s:0'", i ? ", " : "", tfc_capi_node(vars[i].variable)->name);
    tfc_strbuf_puts(&sb, "].");
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s", tfc_strbuf_ok(&sb) ? tfc_strbuf_str(&sb) : no_grads_msg);
    tfc_strbuf_fini(&sb);
    goto done;
  }
  if (o->lr_tensor.oper && bld_check_output(c, o->lr_tensor, "learning rate")) goto done;
  if (global_step && bld_check_output(c, (TF_Output){global_step->variable, 0}, "global_step")) goto done;
  /* 1. Slots. */
  if (create_slots(c, o, scope, vlist, nv)) goto done;
  /* 2. The name scope and _prepare's constants. */
  if (!(scope_name = bld_unique(c, scope->name, name ? name : o->name))) goto done;
  if (asprintf(&exact, "%s/", scope_name) < 0) {
    exact = NULL;
    TFC_OOM(c->s);
    goto done;
  }
  bld_where w = bld_where_of(scope, scope_name);
  tfc_endpoint lr = o->lr_tensor.oper ? ep(o->lr_tensor)
                                      : bld_scalar(c, &w, o->kind == OPT_ADADELTA ? "lr" : "learning_rate",
                                                   TFC_DT_FLOAT, o->lr);
  tfc_endpoint mom = {NULL, 0}, b1 = {NULL, 0}, b2 = {NULL, 0}, eps = {NULL, 0}, rho = {NULL, 0};
  tfc_endpoint l1 = {NULL, 0}, l2 = {NULL, 0}, shrink = {NULL, 0}, lr_power = {NULL, 0};
  if (o->kind == OPT_ADADELTA) {
    rho = bld_scalar(c, &w, "rho", TFC_DT_FLOAT, o->decay);
    eps = bld_scalar(c, &w, "epsilon", TFC_DT_FLOAT, o->epsilon);
  }
  if (o->kind == OPT_FTRL || o->kind == OPT_PROXIMAL_GD || o->kind == OPT_PROXIMAL_ADAGRAD) {
    l1 = bld_scalar(c, &w, "l1_regularization_strength", TFC_DT_FLOAT, o->l1);
    l2 = bld_scalar(c, &w, "l2_regularization_strength", TFC_DT_FLOAT, o->l2);
  }
  if (o->kind == OPT_FTRL) {
    shrink = bld_scalar(c, &w, "l2_shrinkage_regularization_strength", TFC_DT_FLOAT, o->l2_shrinkage);
    lr_power = bld_scalar(c, &w, "learning_rate_power", TFC_DT_FLOAT, o->lr_power);
  }
  if (o->kind == OPT_RMSPROP) rho = bld_scalar(c, &w, "decay", TFC_DT_FLOAT, o->decay);
  if (o->kind == OPT_MOMENTUM || o->kind == OPT_RMSPROP) mom = bld_scalar(c, &w, "momentum", TFC_DT_FLOAT, o->momentum);
  if (o->kind == OPT_RMSPROP) eps = bld_scalar(c, &w, "epsilon", TFC_DT_FLOAT, o->epsilon);
  if (o->kind == OPT_ADAM) {
    b1 = bld_scalar(c, &w, "beta1", TFC_DT_FLOAT, o->beta1);
    b2 = bld_scalar(c, &w, "beta2", TFC_DT_FLOAT, o->beta2);
    eps = bld_scalar(c, &w, "epsilon", TFC_DT_FLOAT, o->epsilon);
  }
  if (!tfc_status_ok(c->s)) goto done;
  /* 3. One update per variable, colocated with it. */
  for (int i = 0; i < nv; i++) {
    tfc_node *var = vlist[i];
    int dt = tfc_dtype_base(var->output_types[0]);
    char *ubase = NULL;
    if (asprintf(&ubase, "update_%s", var->name) < 0) {
      TFC_OOM(c->s);
      goto done;
    }
    char *us = bld_unique(c, scope_name, ubase);
    free(ubase);
    if (!us) goto done;
    bld_where uw = w;
    uw.scope = us;
    uw.coloc = var;
    tfc_endpoint ref = {var, 0};
    tfc_endpoint lr_t = bld_cast(c, &uw, lr, dt, NULL);
    bld_attr a[2] = {{"use_locking", tfc_attr_bool(0)}, {"use_nesterov", tfc_attr_bool(o->nesterov)}};
    if (o->kind == OPT_GD) {
      tfc_endpoint ins[3] = {ref, lr_t, glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyGradientDescent", NULL, ins, 3, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_MOMENTUM) {
      const TFC_Variable *accum = find_slot(o, c->graph, var, 0);
      tfc_endpoint m_t = bld_cast(c, &uw, mom, dt, NULL);
      tfc_endpoint ins[5] = {ref, {tfc_capi_node(accum->variable), 0}, lr_t, glist[i], m_t};
      updates[n_up++] = bld_op(c, &uw, "ApplyMomentum", NULL, ins, 5, a, 2);
    } else if (o->kind == OPT_ADAGRAD) {
      const TFC_Variable *accum = find_slot(o, c->graph, var, SLOT_FIRST);
      tfc_endpoint ins[4] = {ref, {tfc_capi_node(accum->variable), 0}, lr_t, glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyAdagrad", NULL, ins, 4, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_ADADELTA) {
      const TFC_Variable *ac = find_slot(o, c->graph, var, SLOT_FIRST), *au = find_slot(o, c->graph, var, SLOT_SECOND);
      tfc_endpoint ins[7] = {ref,
                             {tfc_capi_node(ac->variable), 0},
                             {tfc_capi_node(au->variable), 0},
                             lr_t,
                             bld_cast(c, &uw, rho, dt, NULL),
                             bld_cast(c, &uw, eps, dt, NULL),
                             glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyAdadelta", NULL, ins, 7, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_FTRL) {
      /* Python picks ApplyFtrlV2 only for a positive l2_shrinkage. */
      const TFC_Variable *ac = find_slot(o, c->graph, var, SLOT_FIRST), *li = find_slot(o, c->graph, var, SLOT_SECOND);
      int v2 = o->l2_shrinkage > 0;
      tfc_endpoint ins[9] = {ref, {tfc_capi_node(ac->variable), 0}, {tfc_capi_node(li->variable), 0}, glist[i], lr_t,
                             bld_cast(c, &uw, l1, dt, NULL), bld_cast(c, &uw, l2, dt, NULL),
                             bld_cast(c, &uw, v2 ? shrink : lr_power, dt, NULL),
                             v2 ? bld_cast(c, &uw, lr_power, dt, NULL) : (tfc_endpoint){NULL, 0}};
      updates[n_up++] = bld_op(c, &uw, v2 ? "ApplyFtrlV2" : "ApplyFtrl", NULL, ins, v2 ? 9 : 8, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_PROXIMAL_GD) {
      tfc_endpoint ins[5] = {ref, lr_t, bld_cast(c, &uw, l1, dt, NULL), bld_cast(c, &uw, l2, dt, NULL), glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyProximalGradientDescent", NULL, ins, 5, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_PROXIMAL_ADAGRAD) {
      const TFC_Variable *ac = find_slot(o, c->graph, var, SLOT_FIRST);
      tfc_endpoint ins[6] = {ref,      {tfc_capi_node(ac->variable), 0}, lr_t, bld_cast(c, &uw, l1, dt, NULL),
                             bld_cast(c, &uw, l2, dt, NULL), glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyProximalAdagrad", NULL, ins, 6, a, 1);
      tfc_attr_value_fini(&a[1].v);
    } else if (o->kind == OPT_RMSPROP) {
      const TFC_Variable *ms = find_slot(o, c->graph, var, SLOT_FIRST), *mo = find_slot(o, c->graph, var, SLOT_SECOND);
      tfc_endpoint ms_e = {tfc_capi_node(ms->variable), 0}, mo_e = {tfc_capi_node(mo->variable), 0};
      tfc_endpoint rho_t = bld_cast(c, &uw, rho, dt, NULL), m_t = bld_cast(c, &uw, mom, dt, NULL);
      tfc_endpoint eps_t = bld_cast(c, &uw, eps, dt, NULL);
      if (o->centered) {
        const TFC_Variable *mg = find_slot(o, c->graph, var, SLOT_MG);
        tfc_endpoint ins[9] = {ref, {tfc_capi_node(mg->variable), 0}, ms_e, mo_e, lr_t, rho_t, m_t, eps_t, glist[i]};
        updates[n_up++] = bld_op(c, &uw, "ApplyCenteredRMSProp", NULL, ins, 9, a, 1);
      } else {
        tfc_endpoint ins[8] = {ref, ms_e, mo_e, lr_t, rho_t, m_t, eps_t, glist[i]};
        updates[n_up++] = bld_op(c, &uw, "ApplyRMSProp", NULL, ins, 8, a, 1);
      }
      tfc_attr_value_fini(&a[1].v);
    } else {
      const TFC_Variable *m = find_slot(o, c->graph, var, 0), *v = find_slot(o, c->graph, var, 1);
      tfc_endpoint p1 = bld_cast(c, &uw, ep(o->beta1_power.value), dt, NULL);
      tfc_endpoint p2 = bld_cast(c, &uw, ep(o->beta2_power.value), dt, NULL);
      tfc_endpoint ins[10] = {ref,
                              {tfc_capi_node(m->variable), 0},
                              {tfc_capi_node(v->variable), 0},
                              p1,
                              p2,
                              lr_t,
                              bld_cast(c, &uw, b1, dt, NULL),
                              bld_cast(c, &uw, b2, dt, NULL),
                              bld_cast(c, &uw, eps, dt, NULL),
                              glist[i]};
      updates[n_up++] = bld_op(c, &uw, "ApplyAdam", NULL, ins, 10, a, 2);
    }
    free(us);
    if (!tfc_status_ok(c->s)) goto done;
  }
  /* 4. _finish. */
  int n_apply = n_up;
  if (o->kind == OPT_ADAM) {
    tfc_node *b1p = tfc_capi_node(o->beta1_power.variable), *b2p = tfc_capi_node(o->beta2_power.variable);
    bld_where fw = w;
    fw.coloc = b1p;
    fw.ctrl = updates;
    fw.n_ctrl = n_apply;
    bld_where aw = w;
    aw.coloc = b1p;
    tfc_endpoint m1[2] = {ep(o->beta1_power.value), b1};
    tfc_endpoint mul = bld_op0(c, &fw, "Mul", "mul", m1, 2, NULL, 0);
    tfc_endpoint as1[2] = {{b1p, 0}, mul};
    bld_attr l1[1] = {{"use_locking", tfc_attr_bool(0)}};
    tfc_node *assign1 = bld_op(c, &aw, "Assign", "Assign", as1, 2, l1, 1);
    tfc_endpoint m2[2] = {ep(o->beta2_power.value), b2};
    tfc_endpoint mul1 = bld_op0(c, &fw, "Mul", "mul", m2, 2, NULL, 0);
    tfc_endpoint as2[2] = {{b2p, 0}, mul1};
    bld_attr l2[1] = {{"use_locking", tfc_attr_bool(0)}};
    tfc_node *assign2 = bld_op(c, &aw, "Assign", "Assign", as2, 2, l2, 1);
    updates[n_up++] = assign1;
    updates[n_up++] = assign2;
    if (!tfc_status_ok(c->s)) goto done;
  }
  if (!global_step) {
    bld_where gw = w;
    gw.scope = "";
    train = bld_group(c, &gw, updates, n_up, exact);
  } else {
    tfc_node *upd = bld_group(c, &w, updates, n_up, "update");
    tfc_node *gs = tfc_capi_node(global_step->variable);
    bld_where vw = w;
    vw.coloc = gs;
    vw.ctrl = &upd;
    vw.n_ctrl = 1;
    tfc_endpoint one = upd ? bld_scalar(c, &vw, "value", tfc_dtype_base(gs->output_types[0]), 1.0)
                           : (tfc_endpoint){NULL, 0};
    bld_where tw = w;
    tw.scope = "";
    tw.coloc = gs;
    tfc_endpoint ins[2] = {{gs, 0}, one};
    bld_attr l[1] = {{"use_locking", tfc_attr_bool(0)}};
    train = bld_op(c, &tw, "AssignAdd", exact, ins, 2, l, 1);
  }
done:
  free(vlist);
  free(glist);
  free(updates);
  free(scope_name);
  free(exact);
  return tfc_status_ok(c->s) ? train : NULL;
}

typedef bld_opt_mark opt_mark;

bld_opt_mark bld_opt_mark_take(const TFC_Optimizer *o) {
  opt_mark m = {o->n_slots, o->beta_graph, o->beta1_power, o->beta2_power};
  return m;
}

void bld_opt_mark_restore(TFC_Optimizer *o, const bld_opt_mark *m) {
  o->n_slots = m->n_slots;
  o->beta_graph = m->beta_graph;
  o->beta1_power = m->b1;
  o->beta2_power = m->b2;
}

/* compute_gradients: tf.gradients(loss, var refs) with GATE_OP's tuple wrapping. When n is 0
 * the trainable variables are written to vars. Returns the variable count. */
static int compute_locked(bld_call *c, const TFC_Scope *scope, TF_Output loss, TFC_Variable *vars, int n,
                          tfc_endpoint *grads) {
  if (bld_check_output(c, loss, "loss")) return -1;
  if (n == 0) {
    for (int i = 0; i < c->st->n_vars; i++)
      if (c->st->vars[i].trainable) vars[n++] = c->st->vars[i].v;
    if (n == 0) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "No variables to optimize.");
      return -1;
    }
  }
  tfc_endpoint *xs = calloc((size_t)n + 1, sizeof *xs);
  if (!xs) {
    TFC_OOM(c->s);
    return -1;
  }
  for (int i = 0; i < n && tfc_status_ok(c->s); i++) {
    if (!vars[i].variable) tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "variable %d is missing (NULL operation)", i);
    else if (!bld_check_output(c, (TF_Output){vars[i].variable, 0}, "variable"))
      xs[i] = (tfc_endpoint){tfc_capi_node(vars[i].variable), 0};
  }
  tfc_endpoint y = tfc_capi_endpoint(loss);
  if (tfc_status_ok(c->s)) bld_gradients(c, scope, &y, 1, xs, n, NULL, 1, grads);
  free(xs);
  return tfc_status_ok(c->s) ? n : -1;
}

TFC_EXPORT void TFC_ComputeGradients(TFC_Optimizer *opt, const TFC_Scope *scope, TF_Output loss, TFC_Variable *vars,
                                    int num_vars, TF_Output *grads, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (!opt || !scope || num_vars < 0 || !vars || !grads) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT,
                   "TFC_ComputeGradients: invalid arguments");
    tfc_status_fini(&scratch);
    return;
  }
  if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  int cap = num_vars ? num_vars : c.st->n_vars;
  TFC_Variable *vs = calloc((size_t)cap + 1, sizeof *vs);
  tfc_endpoint *gs = calloc((size_t)cap + 1, sizeof *gs);
  int n = -1;
  if (!vs || !gs) TFC_OOM(c.s);
  else {
    if (num_vars) memcpy(vs, vars, sizeof *vs * (size_t)num_vars);
    n = compute_locked(&c, scope, loss, vs, num_vars, gs);
  }
  if (bld_end(&c) == TFC_OK) {
    for (int i = 0; i < n; i++) {
      vars[i] = vs[i];
      grads[i] = gs[i].node ? (TF_Output){tfc_capi_oper(gs[i].node), gs[i].index} : (TF_Output){NULL, -1};
    }
  }
  free(vs);
  free(gs);
  tfc_status_fini(&scratch);
}

tfc_node *bld_apply_gradients(bld_call *c, TFC_Optimizer *o, const TFC_Scope *scope, const tfc_endpoint *grads,
                              const TFC_Variable *vars, int n, const TFC_Variable *global_step, const char *name) {
  return apply_locked(c, o, scope, grads, vars, n, global_step, name, "No gradients provided for any variable: ");
}

TFC_EXPORT TF_Operation *TFC_ApplyGradients(TFC_Optimizer *opt, const TFC_Scope *scope, const TF_Output *grads,
                                           const TFC_Variable *vars, int num_vars, const TFC_Variable *global_step,
                                           const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Operation *r = NULL;
  if (!opt || !scope || num_vars < 0 || (num_vars && (!grads || !vars))) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT, "TFC_ApplyGradients: invalid arguments");
    tfc_status_fini(&scratch);
    return NULL;
  }
  if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return NULL;
  }
  opt_mark m = bld_opt_mark_take(opt);
  tfc_endpoint *gs = calloc((size_t)num_vars + 1, sizeof *gs);
  tfc_node *train = NULL;
  if (!gs) {
    TFC_OOM(c.s);
  } else {
    for (int i = 0; i < num_vars; i++) gs[i] = grads[i].oper ? tfc_capi_endpoint(grads[i]) : (tfc_endpoint){NULL, 0};
    train = apply_locked(&c, opt, scope, gs, vars, num_vars, global_step, name,
                         "No gradients provided for any variable: ");
  }
  free(gs);
  if (bld_end(&c) == TFC_OK) r = tfc_capi_oper(train);
  else bld_opt_mark_restore(opt, &m);
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT TF_Operation *TFC_Minimize(TFC_Optimizer *opt, const TFC_Scope *scope, TF_Output loss,
                                     const TFC_Variable *global_step, const char *name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Operation *r = NULL;
  if (!opt || !scope) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT, "TFC_Minimize: invalid arguments");
    tfc_status_fini(&scratch);
    return NULL;
  }
  if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return NULL;
  }
  opt_mark m = bld_opt_mark_take(opt);
  int cap = c.st->n_vars;
  TFC_Variable *vs = calloc((size_t)cap + 1, sizeof *vs);
  tfc_endpoint *gs = calloc((size_t)cap + 1, sizeof *gs);
  tfc_node *train = NULL;
  if (!vs || !gs) {
    TFC_OOM(c.s);
  } else {
    int n = compute_locked(&c, scope, loss, vs, 0, gs);
    if (n > 0)
      train = apply_locked(&c, opt, scope, gs, vs, n, global_step, name,
                           "No gradients provided for any variable, check your graph for ops that do not support "
                           "gradients, between variables ");
  }
  free(vs);
  free(gs);
  if (bld_end(&c) == TFC_OK) r = tfc_capi_oper(train);
  else bld_opt_mark_restore(opt, &m);
  tfc_status_fini(&scratch);
  return r;
}
