/*
 * builders/control_flow — TFC_Cond, TFC_Case, TFC_WhileLoop and TFC_Capture
 * (include/tfc/control_flow.h): TF 1.x Python's cond_v1, _case_helper and
 * WhileContext.BuildLoop, node for node and name for name.
 *
 * A control-flow context (bld_cf_ctx) stands for Python's CondContext (one per branch) or
 * WhileContext: it is handed to the callbacks inside their scope, and says what is inside
 * (every node made from the moment the context opened: callbacks run synchronously, so a
 * node id at or above start_id was made inside, nested contexts included). Python rewrites an
 * op's outside inputs as the op is created; tfc cannot (node ids must grow along data edges
 * other than loop back edges), so outside tensors come in through TFC_Capture, named for the
 * op about to read them (the name is peeked, not taken, so that op still gets it), and the
 * check after each callback refuses an op that reads an outside tensor directly. Captures are
 * cached per context (Python's _external_values) and recurse through the outer contexts
 * first, which gives Python's chains (an outer branch's Switch feeding an inner one).
 *
 * Each builder call holds the graph lock except while a callback runs (bld_pause/resume), so
 * callbacks may use any builder; a failure anywhere rolls the whole call back (bld_end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"
#include "tfc/control_flow.h"

typedef struct bld_cf_ctx {
  int refs;
  int done;                 /* the branch or loop is built: no more captures */
  int is_while;
  struct bld_cf_ctx *outer; /* a reference */
  int start_id;             /* nodes with id >= start_id were made inside */
  tfc_node *pred;           /* cond: pred_id */
  int branch;               /* cond: the Switch output taken (1 true, 0 false) */
  tfc_node *pivot;          /* what input-less ops wait for in the part being built */
  char *frame;              /* while: the frame name */
  int parallel_iterations;
  int n_cache, cap_cache;
  tfc_endpoint *from, *to;  /* captured outside tensor -> its inside value */
} bld_cf_ctx;

static void ctx_unref(bld_cf_ctx *x) {
  if (!x || --x->refs > 0) return;
  ctx_unref(x->outer);
  free(x->frame);
  free(x->from);
  free(x->to);
  free(x);
}

static bld_cf_ctx *ctx_new(bld_call *c, bld_cf_ctx *outer, int is_while) {
  bld_cf_ctx *x = calloc(1, sizeof *x);
  if (!x) {
    TFC_OOM(c->s);
    return NULL;
  }
  x->refs = 1;
  x->is_while = is_while;
  x->outer = outer;
  if (outer) outer->refs++;
  x->start_id = c->g->n_nodes;
  return x;
}

void bld_scope_set_cf(TFC_Scope *scope, struct bld_cf_ctx *cf) {
  if (cf) cf->refs++;
  ctx_unref(scope->cf);
  scope->cf = cf;
}

/* 1 when n is a capture of x or of a context around it (an inner context's capture first
 * captures into the outer ones, while the inner callback runs). */
static int is_capture(const bld_cf_ctx *x, const tfc_node *n) {
  for (; x; x = x->outer)
    for (int i = 0; i < x->n_cache; i++)
      if (x->to[i].node == n) return 1;
  return 0;
}

/* Python's dtype names (tf.float32.name) for the messages Python raises. */
static const char *py_dtype(int dt) {
  switch (dt) {
    case TFC_DT_FLOAT: return "float32";
    case TFC_DT_DOUBLE: return "float64";
    case TFC_DT_HALF: return "float16";
    default: return tfc_dtype_name(dt);
  }
}

static int record_cond(bld_call *c, tfc_node *n, tfc_node *pred, int branch) {
  bld_state *st = c->st;
  if (!n) return c->s->code;
  if (st->n_conds == st->cap_conds) {
    int cap = st->cap_conds ? 2 * st->cap_conds : 16;
    bld_cond_rec *v = realloc(st->conds, sizeof *v * (size_t)cap);
    if (!v) return TFC_OOM(c->s);
    st->conds = v;
    st->cap_conds = cap;
  }
  st->conds[st->n_conds++] = (bld_cond_rec){n, pred, branch};
  return TFC_OK;
}

int bld_cond_of(const bld_state *st, const tfc_node *n, bld_cond_rec *out) {
  for (int i = st->n_conds - 1; i >= 0; i--)
    if (st->conds[i].node == n) {
      *out = st->conds[i];
      return 1;
    }
  return 0;
}

/* The inside value of v in x (Python's AddValue): see the top of the file. */
static tfc_endpoint capture(bld_call *c, bld_cf_ctx *x, tfc_endpoint v, const char *scope, const char *op_rel) {
  tfc_endpoint none = {NULL, 0};
  if (!tfc_status_ok(c->s)) return none;
  if (!x || v.node == x->pivot || (v.node->id >= x->start_id && !bld_lifted(c->st, v.node)))
    return v; /* made inside (the pivot too) */
  if (x->done) {
    tfc_status_set(c->s, TFC_FAILED_PRECONDITION, "TFC_Capture: the %s whose scope this is is already built",
                   x->is_while ? "while loop" : "cond branch");
    return none;
  }
  for (int i = 0; i < x->n_cache; i++)
    if (x->from[i].node == v.node && x->from[i].index == v.index) return x->to[i];
  tfc_endpoint o = capture(c, x->outer, v, scope, op_rel);
  if (!o.node) return none;
  char *sub = op_rel ? bld_peek_unique(c, scope, op_rel) : tfc_strdup(scope);
  if (!sub) {
    if (tfc_status_ok(c->s)) TFC_OOM(c->s);
    return none;
  }
  tfc_endpoint r = none;
  /* A ref input (a variable) keeps its ref: RefEnter / RefSwitch, as Python's context picks. */
  int ref = tfc_dtype_is_ref(o.node->output_types[o.index]);
  if (x->is_while) {
    bld_where w = {sub, "", NULL, NULL, NULL, NULL, 0, NULL};
    bld_attr a[3] = {{"frame_name", {0}}, {"is_constant", tfc_attr_bool(1)},
                     {"parallel_iterations", tfc_attr_int(x->parallel_iterations)}};
    if (tfc_attr_string(x->frame, strlen(x->frame), &a[0].v, c->s) == TFC_OK)
      r = bld_op0(c, &w, ref ? "RefEnter" : "Enter", "Enter", &o, 1, a, 3);
  } else {
    /* Python's _SwitchRefOrTensor colocates the Switch with its data. */
    bld_where w = {sub, "", o.node, NULL, NULL, NULL, 0, NULL};
    tfc_endpoint ins[2] = {o, {x->pred, 0}};
    r = (tfc_endpoint){bld_op(c, &w, ref ? "RefSwitch" : "Switch", "Switch", ins, 2, NULL, 0), x->branch};
    if (r.node) record_cond(c, r.node, x->pred, x->branch);
  }
  free(sub);
  if (!r.node) return none;
  if (x->n_cache == x->cap_cache) {
    int cap = x->cap_cache ? 2 * x->cap_cache : 4;
    tfc_endpoint *f = realloc(x->from, sizeof *f * (size_t)cap);
    if (f) x->from = f;
    tfc_endpoint *t = f ? realloc(x->to, sizeof *t * (size_t)cap) : NULL;
    if (!t) {
      TFC_OOM(c->s);
      return none;
    }
    x->to = t;
    x->cap_cache = cap;
  }
  x->from[x->n_cache] = v;
  x->to[x->n_cache++] = r;
  return r;
}

/* After a part of x was built (nodes [from, end)): outside inputs are refused; ops with no
 * inputs and no control input from inside wait for the pivot (Python's _AddOpInternal). */
static int finish_part(bld_call *c, bld_cf_ctx *x, int from, const char *what) {
  for (int i = from; i < c->g->n_nodes && tfc_status_ok(c->s); i++) {
    tfc_node *n = c->g->nodes[i];
    if (is_capture(x, n) || bld_lifted(c->st, n)) continue;
    for (int j = 0; j < n->n_inputs; j++)
      if ((n->inputs[j].node->id < x->start_id || bld_lifted(c->st, n->inputs[j].node)) &&
          n->inputs[j].node != x->pivot)
        return tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                              "Node '%s' in %s reads '%s:%d', which was made outside it; bring the tensor in "
                              "with TFC_Capture",
                              n->name, what, n->inputs[j].node->name, n->inputs[j].index);
    if (n->n_inputs > 0) continue;
    int inside = 0;
    for (int k = 0; k < n->n_control_inputs && !inside; k++)
      inside = n->control_inputs[k]->id >= x->start_id && !bld_lifted(c->st, n->control_inputs[k]);
    if (inside) continue;
    tfc_node **v = realloc(n->control_inputs, sizeof *v * (size_t)(n->n_control_inputs + 1));
    if (!v) return TFC_OOM(c->s);
    n->control_inputs = v;
    v[n->n_control_inputs++] = x->pivot;
  }
  return c->s->code;
}

/* Runs a callback with the lock released, in a scope named `name` carrying x. The callback's
 * status is the call's (a local one when the caller passed none). */
typedef void (*run_fn)(const TFC_Scope *sc, void *ctx, TF_Status *st);

static int run_callback(bld_call *c, const TFC_Scope *parent, const char *name, bld_cf_ctx *x, TF_Status *status,
                        run_fn fn, void *ctx) {
  char *full = NULL;
  if (asprintf(&full, "%s/", name) < 0) return TFC_OOM(c->s);
  bld_pause(c);
  TFC_Scope *sc = TFC_NewSubScope(parent, full);
  TF_Status *st = status ? status : TF_NewStatus();
  if (sc && st) {
    bld_scope_set_cf(sc, x);
    c->st->open_cf++;
    fn(sc, ctx, st);
  }
  bld_resume(c);
  if (sc && st) c->st->open_cf--;
  if (!sc || !st) TFC_OOM(c->s);
  else if (st != status && TF_GetCode(st) != TF_OK) tfc_status_set(c->s, (int)TF_GetCode(st), "%s", TF_Message(st));
  if (st && st != status) TF_DeleteStatus(st);
  TFC_DeleteScope(sc);
  free(full);
  return c->s->code;
}

/* A callback's output: an output of this graph, captured when it is outside x. */
static tfc_endpoint take_output(bld_call *c, bld_cf_ctx *x, TF_Output o, const char *scope, const char *op_rel,
                                const char *what) {
  tfc_endpoint none = {NULL, 0};
  if (!tfc_status_ok(c->s)) return none;
  if (!o.oper) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s was not set", what);
    return none;
  }
  if (bld_check_output(c, o, what)) return none;
  return capture(c, x, tfc_capi_endpoint(o), scope, op_rel);
}

/* ---------------- cond ---------------- */


typedef struct branch_run {
  TFC_BranchFn fn;
  void *arg;
  TF_Output *outs;
} branch_run;

static void run_branch(const TFC_Scope *sc, void *p, TF_Status *st) {
  branch_run *b = p;
  b->fn(sc, b->arg, b->outs, st);
}

/* cond_v1 under `scope`: see the header. out[n_out] get the Merges. */
static int cond_build(bld_call *c, const TFC_Scope *scope, tfc_endpoint pred, TFC_BranchFn fns[2], void *args[2],
                      int *n_out_p, int dynamic, const char *name, TF_Status *status, tfc_endpoint *out) {
  int cap = *n_out_p, n_out = cap;
  if (bld_dtype(pred) != TFC_DT_BOOL)
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "cond: pred must be a bool tensor, got %s from '%s:%d'",
                          py_dtype(bld_dtype(pred)), pred.node->name, pred.index);
  char *cs = bld_unique(c, scope->name, name ? name : "cond");
  if (!cs) return c->s->code;
  bld_where w = {cs, scope->device, NULL, NULL, NULL, NULL, 0, scope->devfn};
  tfc_endpoint p = capture(c, scope->cf, pred, cs, "Switch");
  tfc_endpoint two[2] = {p, p};
  tfc_node *sw = p.node ? bld_op(c, &w, "Switch", "Switch", two, 2, NULL, 0) : NULL;
  tfc_endpoint st_ = {sw, 1}, sf = {sw, 0};
  tfc_node *piv[2];
  piv[1] = sw ? bld_op(c, &w, "Identity", "switch_t", &st_, 1, NULL, 0) : NULL;
  piv[0] = sw ? bld_op(c, &w, "Identity", "switch_f", &sf, 1, NULL, 0) : NULL;
  tfc_node *pred_id = sw ? bld_op(c, &w, "Identity", "pred_id", &p, 1, NULL, 0) : NULL;
  /* The pivots mark their branch too (ops without inputs wait for them). */
  if (pred_id) record_cond(c, piv[1], pred_id, 1);
  if (pred_id) record_cond(c, piv[0], pred_id, 0);
  tfc_endpoint *res = calloc(2 * (size_t)cap + 1, sizeof *res);
  TF_Output *outs = calloc((size_t)cap + 1, sizeof *outs);
  if (!res || !outs) TFC_OOM(c->s);
  /* The true branch first, then the false one, each in its own context. */
  for (int br = 1; br >= 0 && tfc_status_ok(c->s); br--) {
    free(bld_unique(c, cs, "cond_text")); /* Python's CondContext takes this name */
    bld_cf_ctx *x = ctx_new(c, scope->cf, 0);
    if (!x) break;
    x->pred = pred_id;
    x->branch = br;
    x->pivot = piv[br];
    memset(outs, 0, sizeof *outs * (size_t)cap);
    branch_run b = {fns[br], args[br], outs};
    char what[64];
    int ran = run_callback(c, scope, cs, x, status, run_branch, &b) == TFC_OK;
    if (ran && dynamic && br == 1) { /* the true branch's results give the count (case_false reads it) */
      for (n_out = 0; n_out < cap && outs[n_out].oper;) n_out++;
      *n_out_p = n_out;
    }
    if (ran)
      for (int i = 0; i < n_out && tfc_status_ok(c->s); i++) {
        snprintf(what, sizeof what, "%s_fn output %d", br ? "true" : "false", i);
        res[br * cap + i] = take_output(c, x, outs[i], cs, NULL, what);
      }
    if (tfc_status_ok(c->s)) finish_part(c, x, x->start_id, br ? "the true branch" : "the false branch");
    x->done = 1;
    ctx_unref(x);
  }
  for (int i = 0; i < n_out && tfc_status_ok(c->s); i++)
    if (bld_dtype(res[cap + i]) != bld_dtype(res[i]))
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Outputs of true_fn and false_fn must have the same type: %s, %s",
                     py_dtype(bld_dtype(res[cap + i])), py_dtype(bld_dtype(res[i])));
  for (int i = 0; i < n_out && tfc_status_ok(c->s); i++) {
    tfc_endpoint m[2] = {res[i], res[cap + i]};
    out[i] = bld_op0(c, &w, "Merge", "Merge", m, 2, NULL, 0);
    record_cond(c, out[i].node, pred_id, -1);
  }
  free(res);
  free(outs);
  free(cs);
  *n_out_p = n_out;
  return c->s->code;
}

/* Checks the arguments every public builder shares; begins the call. */
static int begin(bld_call *c, const TFC_Scope *scope, int n_out, TF_Output *outputs, TF_Status *status,
                 tfc_status *scratch, const char *fn) {
  if (!scope || n_out < 0 || (n_out > 0 && !outputs)) {
    tfc_status_set(tfc_capi_status_or(status, scratch), TFC_INVALID_ARGUMENT,
                   "%s: invalid arguments (scope, counts or arrays)", fn);
    return TFC_INVALID_ARGUMENT;
  }
  return bld_begin(c, scope->graph, status, scratch);
}

static void end_outputs(bld_call *c, const tfc_endpoint *res, int n, TF_Output *outputs) {
  if (bld_end(c) != TFC_OK) return;
  for (int i = 0; i < n; i++) outputs[i] = (TF_Output){tfc_capi_oper(res[i].node), res[i].index};
}

static void cond_call(const TFC_Scope *scope, TF_Output pred, TFC_BranchFn true_fn, void *true_arg,
                      TFC_BranchFn false_fn, void *false_arg, int *num_outputs, int dynamic, const char *name,
                      TF_Output *outputs, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  const char *fn = dynamic ? "TFC_CondDynamic" : "TFC_Cond";
  if (begin(&c, scope, *num_outputs, outputs, status, &scratch, fn) != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  tfc_endpoint *res = calloc((size_t)*num_outputs + 1, sizeof *res);
  if (!res) TFC_OOM(c.s);
  else if (!true_fn || !false_fn) tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_Cond: true_fn and false_fn must be given");
  else if (!bld_check_output(&c, pred, "pred")) {
    TFC_BranchFn fns[2] = {false_fn, true_fn};
    void *args[2] = {false_arg, true_arg};
    cond_build(&c, scope, tfc_capi_endpoint(pred), fns, args, num_outputs, dynamic, name, status, res);
  }
  end_outputs(&c, res, *num_outputs, outputs);
  free(res);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_Cond(const TFC_Scope *scope, TF_Output pred, TFC_BranchFn true_fn, void *true_arg,
                         TFC_BranchFn false_fn, void *false_arg, int num_outputs, const char *name,
                         TF_Output *outputs, TF_Status *status) {
  cond_call(scope, pred, true_fn, true_arg, false_fn, false_arg, &num_outputs, 0, name, outputs, status);
}

TFC_EXPORT void TFC_CondDynamic(const TFC_Scope *scope, TF_Output pred, TFC_BranchFn true_fn, void *true_arg,
                                TFC_BranchFn false_fn, void *false_arg, int max_outputs, int *num_outputs,
                                const char *name, TF_Output *outputs, TF_Status *status) {
  int n = max_outputs;
  if (!num_outputs) n = -1; /* begin() refuses it */
  cond_call(scope, pred, true_fn, true_arg, false_fn, false_arg, &n, 1, name, outputs, status);
  if (num_outputs) *num_outputs = n;
}

/* ---------------- case: nested conds ---------------- */

typedef struct case_run {
  bld_call *c;
  const TFC_CaseBranch *br;
  int n, k; /* the cond of branch k; its false side is branch k + 1's cond (or the default) */
  TFC_BranchFn dflt;
  void *dflt_arg;
  int *n_out;  /* level 0 may set it (dynamic); the later levels read it */
  int dynamic;
} case_run;

static int case_level(bld_call *c, const TFC_Scope *scope, case_run *r, int k, TF_Status *status, tfc_endpoint *out);

/* The false side of level k: the next level's cond, built in the branch's scope. */
static void case_false(const TFC_Scope *sc, void *p, TF_Output *outputs, TF_Status *st) {
  case_run *r = p;
  tfc_status scratch;
  bld_call c;
  if (bld_begin(&c, sc->graph, st, &scratch) != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  tfc_endpoint *res = calloc((size_t)*r->n_out + 1, sizeof *res);
  if (!res) TFC_OOM(c.s);
  else {
    case_run next = *r;
    next.k = r->k + 1;
    case_level(&c, sc, &next, next.k, st, res);
  }
  end_outputs(&c, res, *r->n_out, outputs);
  free(res);
  tfc_status_fini(&scratch);
}

static int case_level(bld_call *c, const TFC_Scope *scope, case_run *r, int k, TF_Status *status, tfc_endpoint *out) {
  const TFC_CaseBranch *b = &r->br[k];
  if (bld_check_output(c, b->pred, "case pred")) return c->s->code;
  if (!b->fn) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "TFC_Case: branch %d has no function", k);
  TFC_BranchFn fns[2];
  void *args[2];
  fns[1] = b->fn;
  args[1] = b->arg;
  if (k + 1 < r->n) {
    fns[0] = case_false;
    args[0] = r;
  } else {
    fns[0] = r->dflt;
    args[0] = r->dflt_arg;
  }
  case_run here = *r;
  here.k = k;
  if (k + 1 < r->n) args[0] = &here;
  if (k == 0)
    return cond_build(c, scope, tfc_capi_endpoint(b->pred), fns, args, r->n_out, r->dynamic, NULL, status, out);
  int n = *r->n_out;
  return cond_build(c, scope, tfc_capi_endpoint(b->pred), fns, args, &n, 0, NULL, status, out);
}

static void case_call(const TFC_Scope *scope, const TFC_CaseBranch *branches, int num_branches,
                      TFC_BranchFn default_fn, void *default_arg, int *n_out, int dynamic, const char *name,
                      TF_Output *outputs, TF_Status *status) {
  int num_outputs = *n_out;
  tfc_status scratch;
  bld_call c;
  if (begin(&c, scope, num_outputs, outputs, status, &scratch, "TFC_Case") != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  tfc_endpoint *res = calloc((size_t)num_outputs + 1, sizeof *res);
  TFC_Scope *cs = NULL;
  if (!res) TFC_OOM(c.s);
  else if (num_branches < 1 || !branches)
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_Case: at least one (pred, fn) pair is required");
  else if (!default_fn)
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_Case: a default branch is required");
  for (int i = 0; i < num_branches && tfc_status_ok(c.s); i++)
    if (!bld_check_output(&c, branches[i].pred, "case pred") &&
        bld_dtype(tfc_capi_endpoint(branches[i].pred)) != TFC_DT_BOOL)
      tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "pred must be Tensor of type bool: %s:%d",
                     tfc_capi_node(branches[i].pred.oper)->name, branches[i].pred.index);
  if (tfc_status_ok(c.s)) {
    /* The name scope "case" (made unique), holding the conds. */
    char *full = bld_unique(&c, scope->name, name ? name : "case");
    char *re = NULL;
    if (full && asprintf(&re, "%s/", full) < 0) TFC_OOM(c.s);
    if (re) {
      bld_pause(&c);
      cs = TFC_NewSubScope(scope, re);
      bld_resume(&c);
      if (!cs) TFC_OOM(c.s);
    }
    free(full);
    free(re);
  }
  if (cs) {
    case_run r = {&c, branches, num_branches, 0, default_fn, default_arg, n_out, dynamic};
    case_level(&c, cs, &r, 0, status, res);
  }
  TFC_DeleteScope(cs);
  end_outputs(&c, res, *n_out, outputs);
  free(res);
  tfc_status_fini(&scratch);
}

TFC_EXPORT void TFC_Case(const TFC_Scope *scope, const TFC_CaseBranch *branches, int num_branches,
                         TFC_BranchFn default_fn, void *default_arg, int num_outputs, const char *name,
                         TF_Output *outputs, TF_Status *status) {
  case_call(scope, branches, num_branches, default_fn, default_arg, &num_outputs, 0, name, outputs, status);
}

TFC_EXPORT void TFC_CaseDynamic(const TFC_Scope *scope, const TFC_CaseBranch *branches, int num_branches,
                                TFC_BranchFn default_fn, void *default_arg, int max_outputs, int *num_outputs,
                                const char *name, TF_Output *outputs, TF_Status *status) {
  int n = num_outputs ? max_outputs : -1;
  case_call(scope, branches, num_branches, default_fn, default_arg, &n, 1, name, outputs, status);
  if (num_outputs) *num_outputs = n;
}

/* ---------------- while_loop ---------------- */

TFC_EXPORT TFC_WhileOptions TFC_DefaultWhileOptions(void) {
  TFC_WhileOptions o = {10, 1, -1, {NULL, 0}};
  return o;
}

typedef struct loop_run {
  TFC_WhileCondFn cond;
  TFC_WhileBodyFn body;
  void *arg;
  const TF_Output *vars;
  TF_Output *outs;
} loop_run;

static void run_cond(const TFC_Scope *sc, void *p, TF_Status *st) {
  loop_run *r = p;
  r->cond(sc, r->arg, r->vars, r->outs, st);
}

static void run_body(const TFC_Scope *sc, void *p, TF_Status *st) {
  loop_run *r = p;
  r->body(sc, r->arg, r->vars, r->outs, st);
}

static tfc_node *enter_node(bld_call *c, const bld_where *w, tfc_endpoint in, const char *frame, int par) {
  bld_attr a[3] = {{"frame_name", {0}}, {"is_constant", tfc_attr_bool(0)}, {"parallel_iterations", tfc_attr_int(par)}};
  if (tfc_attr_string(frame, strlen(frame), &a[0].v, c->s) != TFC_OK) return NULL;
  return bld_op(c, w, "Enter", "Enter", &in, 1, a, 3);
}

/* Python's `a <op> b` under scope: the op named `name` (unique), a scalar b of a's dtype as
 * "<name>/y" when b is a number (b.node NULL). */
static tfc_endpoint binary(bld_call *c, const char *scope, const char *op, const char *name, tfc_endpoint a,
                           tfc_endpoint b, double bv) {
  tfc_endpoint none = {NULL, 0};
  char *full = bld_unique(c, scope, name);
  if (!full) return none;
  bld_where w = {full, "", NULL, NULL, NULL, NULL, 0, NULL};
  if (!b.node) b = bld_scalar(c, &w, "y", bld_dtype(a), bv);
  char exact[256];
  snprintf(exact, sizeof exact, "%s/", full + strlen(scope) + 1);
  bld_where ws = {scope, "", NULL, NULL, NULL, NULL, 0, NULL};
  tfc_endpoint ins[2] = {a, b};
  tfc_endpoint r = b.node ? bld_op0(c, &ws, op, exact, ins, 2, NULL, 0) : none;
  free(full);
  return r;
}

/* "(2, 3)", "(?,)", "()" or "<unknown>" as Python prints TensorShape. */
/* Python's _ShapeLessThanOrEqual: `a` (a body result) is as specific as `b` (its loop
 * variable) or more: b of unknown rank, or the same rank with a's dims equal to b's known
 * ones (a zero state of shape (?, ?) may come back as (?, 3)). */
static int shape_at_most(const tfc_shape *a, const tfc_shape *b) {
  if (b->rank < 0) return 1;
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < b->rank; i++)
    if (b->dims[i] >= 0 && a->dims[i] != b->dims[i]) return 0;
  return 1;
}

static void py_shape(const tfc_shape *s, char *buf, size_t n) {
  if (s->rank < 0) {
    snprintf(buf, n, "<unknown>");
    return;
  }
  size_t len = (size_t)snprintf(buf, n, "(");
  for (int i = 0; i < s->rank && len < n; i++) {
    if (s->dims[i] < 0) len += (size_t)snprintf(buf + len, n - len, "%s?", i ? ", " : "");
    else len += (size_t)snprintf(buf + len, n - len, "%s%lld", i ? ", " : "", (long long)s->dims[i]);
  }
  if (len < n) snprintf(buf + len, n - len, s->rank == 1 ? ",)" : ")");
}

static int loop_build(bld_call *c, const TFC_Scope *scope, TFC_WhileCondFn cond, TFC_WhileBodyFn body, void *arg,
                      const tfc_endpoint *user_vars, int n_user, const TFC_WhileOptions *o, const char *name,
                      TF_Status *status, tfc_endpoint *out) {
  int has_max = o->maximum_iterations >= 0 || o->maximum_iterations_tensor.oper;
  int off = has_max ? 1 : 0, n = n_user + off;
  int par = o->parallel_iterations > 0 ? o->parallel_iterations : 10;
  char *ws = bld_unique(c, scope->name, name ? name : "while");
  if (!ws) return c->s->code;
  bld_where w = {ws, scope->device, NULL, NULL, NULL, NULL, 0, scope->devfn};
  tfc_endpoint *v = calloc(6 * (size_t)n + 1, sizeof *v);
  TF_Output *io = calloc(2 * (size_t)n + 1, sizeof *io);
  if (!v || !io) {
    free(ws), free(v), free(io);
    return TFC_OOM(c->s);
  }
  tfc_endpoint *vars = v, *merge = v + n, *sw = v + 2 * n, *ident = v + 3 * n, *next = v + 4 * n, *exits = v + 5 * n;
  /* 1. maximum_iterations and the counter, outside the loop. */
  tfc_endpoint max_it = {NULL, 0};
  if (has_max) {
    if (o->maximum_iterations_tensor.oper) {
      if (!bld_check_output(c, o->maximum_iterations_tensor, "maximum_iterations"))
        max_it = tfc_capi_endpoint(o->maximum_iterations_tensor);
      if (max_it.node && bld_shape(max_it)->rank > 0)
        tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "maximum_iterations must be a scalar, saw shape: %s",
                       tfc_shape_str(bld_shape(max_it), (char[64]){0}, 64));
    } else {
      max_it = bld_scalar(c, &w, "maximum_iterations", TFC_DT_INT32, (double)o->maximum_iterations);
    }
    if (max_it.node) vars[0] = bld_scalar(c, &w, "iteration_counter", bld_dtype(max_it), 0);
  }
  for (int i = 0; i < n_user; i++) vars[off + i] = user_vars[i];
  char *frame = bld_unique(c, ws, "while_context");
  /* 2. Enter and Merge per variable (the outer context sees the inputs first). */
  for (int i = 0; i < n && tfc_status_ok(c->s); i++) vars[i] = capture(c, scope->cf, vars[i], ws, NULL);
  bld_cf_ctx *x = tfc_status_ok(c->s) ? ctx_new(c, scope->cf, 1) : NULL;
  if (x && !(x->frame = tfc_strdup(frame))) TFC_OOM(c->s);
  if (x) x->parallel_iterations = par;
  for (int i = 0; i < n && x && tfc_status_ok(c->s); i++) {
    merge[i] = (tfc_endpoint){enter_node(c, &w, vars[i], frame, par), 0};
    /* Python sets each Enter's shape to its variable's (the shape invariant); Enter's own
     * shape function gives an unknown shape. */
    if (merge[i].node) merge[i].node->output_shapes[0] = *bld_shape(vars[i]);
  }
  for (int i = 0; i < n && x && tfc_status_ok(c->s); i++) {
    tfc_endpoint two[2] = {merge[i], merge[i]}; /* input 1 becomes the back edge */
    merge[i] = bld_op0(c, &w, "Merge", "Merge", two, 2, NULL, 0);
  }
  /* 3. The cond, pivot Merge 0. */
  tfc_endpoint pred = {NULL, 0};
  if (x && tfc_status_ok(c->s)) {
    x->pivot = merge[0].node;
    int part = c->g->n_nodes;
    tfc_endpoint lim = {NULL, 0};
    if (has_max) {
      tfc_endpoint mi = capture(c, x, max_it, ws, "Less");
      if (mi.node) lim = binary(c, ws, "Less", "Less", merge[0], mi, 0);
    }
    for (int i = 0; i < n_user; i++) io[i] = (TF_Output){tfc_capi_oper(merge[off + i].node), 0};
    loop_run r = {cond, body, arg, io, io + n};
    io[n] = (TF_Output){NULL, 0};
    if (tfc_status_ok(c->s) && run_callback(c, scope, ws, x, status, run_cond, &r) == TFC_OK) {
      pred = take_output(c, x, io[n], ws, "LoopCond", "the cond's output");
      if (pred.node && bld_dtype(pred) != TFC_DT_BOOL)
        tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "while_loop: cond must return a bool tensor, got %s",
                       py_dtype(bld_dtype(pred)));
    }
    if (has_max && tfc_status_ok(c->s)) {
      tfc_endpoint ab[2] = {lim, pred};
      pred = bld_op0(c, &w, "LogicalAnd", "LogicalAnd", ab, 2, NULL, 0);
    }
    if (tfc_status_ok(c->s)) finish_part(c, x, part, "the while loop's cond");
  }
  /* 4. LoopCond, Switch (colocated with its Merge), Identity. */
  tfc_node *lc = pred.node && tfc_status_ok(c->s) ? bld_op(c, &w, "LoopCond", "LoopCond", &pred, 1, NULL, 0) : NULL;
  for (int i = 0; i < n && lc; i++) {
    bld_where wc = {ws, "", merge[i].node, NULL, NULL, NULL, 0, NULL};
    tfc_endpoint ins[2] = {merge[i], {lc, 0}};
    sw[i] = (tfc_endpoint){bld_op(c, &wc, "Switch", "Switch", ins, 2, NULL, 0), 0};
  }
  for (int i = 0; i < n && lc && tfc_status_ok(c->s); i++) {
    tfc_endpoint t = {sw[i].node, 1};
    ident[i] = bld_op0(c, &w, "Identity", "Identity", &t, 1, NULL, 0);
  }
  /* 5. The body, pivot Identity 0; the counter's increment comes first, as in Python. */
  if (lc && tfc_status_ok(c->s)) {
    x->pivot = ident[0].node;
    int part = c->g->n_nodes;
    if (has_max) next[0] = binary(c, ws, "AddV2", "add", ident[0], (tfc_endpoint){NULL, 0}, 1);
    for (int i = 0; i < n_user; i++) {
      io[i] = (TF_Output){tfc_capi_oper(ident[off + i].node), 0};
      io[n + i] = (TF_Output){NULL, 0};
    }
    loop_run r = {cond, body, arg, io, io + n};
    if (tfc_status_ok(c->s) && run_callback(c, scope, ws, x, status, run_body, &r) == TFC_OK)
      for (int i = 0; i < n_user && tfc_status_ok(c->s); i++) {
        char what[48];
        snprintf(what, sizeof what, "body output %d", i);
        next[off + i] = take_output(c, x, io[n + i], ws, "NextIteration", what);
        if (next[off + i].node && bld_dtype(next[off + i]) != bld_dtype(merge[off + i]))
          tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                         "while_loop: body output %d has type %s, but loop variable %d has type %s", i,
                         py_dtype(bld_dtype(next[off + i])), i, py_dtype(bld_dtype(merge[off + i])));
      }
    if (tfc_status_ok(c->s)) finish_part(c, x, part, "the while loop's body");
  }
  /* 6. NextIteration and the back edges (the loop keeps its variables' shapes, as Python does
   *    without shape invariants), then Exit. */
  for (int i = 0; i < n && lc && tfc_status_ok(c->s); i++) {
    const tfc_shape *ms = bld_shape(merge[i]), *ns = bld_shape(next[i]);
    if (!shape_at_most(ns, ms)) {
      char a[96], b[96];
      py_shape(ms, a, sizeof a);
      py_shape(ns, b, sizeof b);
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT,
                     "Input tensor '%s:%d' enters the loop with shape %s, but has shape %s after one iteration. To "
                     "allow the shape to vary across iterations, use the `shape_invariants` argument of "
                     "tf.while_loop to specify a less-specific shape.",
                     vars[i].node->name, vars[i].index, a, b);
      break;
    }
    tfc_node *ni = bld_op(c, &w, "NextIteration", "NextIteration", &next[i], 1, NULL, 0);
    if (ni) merge[i].node->inputs[1] = (tfc_endpoint){ni, 0};
  }
  for (int i = 0; i < n && lc && tfc_status_ok(c->s); i++) {
    tfc_endpoint f = {sw[i].node, 0};
    exits[i] = bld_op0(c, &w, "Exit", "Exit", &f, 1, NULL, 0);
    if (!o->back_prop) record_cond(c, exits[i].node, NULL, -2); /* gradients pass nothing */
  }
  for (int i = 0; i < n_user && tfc_status_ok(c->s); i++) out[i] = exits[off + i];
  if (x) x->done = 1;
  ctx_unref(x);
  free(frame), free(ws), free(v), free(io);
  return c->s->code;
}

TFC_EXPORT void TFC_WhileLoop(const TFC_Scope *scope, TFC_WhileCondFn cond, TFC_WhileBodyFn body, void *arg,
                              const TF_Output *loop_vars, int num_vars, const TFC_WhileOptions *opts,
                              const char *name, TF_Output *outputs, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (begin(&c, scope, num_vars, outputs, status, &scratch, "TFC_WhileLoop") != TFC_OK) {
    tfc_status_fini(&scratch);
    return;
  }
  TFC_WhileOptions dflt = TFC_DefaultWhileOptions();
  tfc_endpoint *vars = calloc((size_t)num_vars + 1, sizeof *vars), *res = calloc((size_t)num_vars + 1, sizeof *res);
  if (!vars || !res) TFC_OOM(c.s);
  else if (num_vars < 1 || !loop_vars)
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "No loop variables provided");
  else if (!cond || !body)
    tfc_status_set(c.s, TFC_INVALID_ARGUMENT, "TFC_WhileLoop: cond and body must be given");
  for (int i = 0; i < num_vars && tfc_status_ok(c.s); i++)
    if (!bld_check_output(&c, loop_vars[i], "loop_vars")) vars[i] = tfc_capi_endpoint(loop_vars[i]);
  if (tfc_status_ok(c.s)) loop_build(&c, scope, cond, body, arg, vars, num_vars, opts ? opts : &dflt, name, status, res);
  end_outputs(&c, res, num_vars, outputs);
  free(vars);
  free(res);
  tfc_status_fini(&scratch);
}

TFC_EXPORT TF_Output TFC_Capture(const TFC_Scope *scope, TF_Output value, const char *op_name, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output r = {NULL, 0};
  if (begin(&c, scope, 0, NULL, status, &scratch, "TFC_Capture") != TFC_OK) {
    tfc_status_fini(&scratch);
    return r;
  }
  tfc_endpoint e = {NULL, 0};
  if (!bld_check_output(&c, value, "value")) e = capture(&c, scope->cf, tfc_capi_endpoint(value), scope->name, op_name);
  if (bld_end(&c) == TFC_OK) r = (TF_Output){tfc_capi_oper(e.node), e.index};
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT void TFC_MarkOutsideControlFlow(TF_Graph *graph, TF_Operation *op, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  if (!op) {
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT,
                   "TFC_MarkOutsideControlFlow: op is NULL");
  } else if (bld_begin(&c, graph, status, &scratch) == TFC_OK) {
    int id = tfc_capi_node(op)->id;
    if (c.st->open_cf > 0) bld_lift(c.st, id, id + 1);
    bld_end(&c);
  }
  tfc_status_fini(&scratch);
}
