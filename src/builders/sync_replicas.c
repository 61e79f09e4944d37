/*
 * builders/sync_replicas — tf.compat.v1.train.SyncReplicasOptimizer (include/tfc/sync_replicas.h)
 * and the hook that prepares its sessions.
 *
 * TFC_SyncReplicasApplyGradients is one builder call (rolled back whole on failure), making
 * what TF 1.15's apply_gradients makes, in its order and with its names:
 *   NoOp                              the worker-side anchor (the scope's device)
 *   sync_rep_local_step (+ /initial_value, /Assign, /read)   a local int variable
 *                                     colocated with the anchor
 *   Assign                            local_step_init_op: local step := global step
 *   sync_replicas/...                 per variable with a gradient, on the variable's device:
 *                                     conditional_accumulator (a ResourceConditionalAccumulator,
 *                                     as TF's Python makes the dense one),
 *                                     ResourceAccumulatorApplyGradient (with the local step),
 *                                     ResourceAccumulatorTakeGradient(num_required)
 *   <optimizer>/...                   the wrapped optimizer's apply_gradients of the taken
 *                                     means, at the root, on the global step's device
 *   sync_token_q                      a FIFOQueueV2 on the global step's device
 *   sync_token_q_Dequeue              after every AccumulatorApplyGradient
 *   Assign_1                          the train op: local step := the token
 *   Fill/dims, Fill/read, Fill, sync_token_q_EnqueueMany   the sync op, after the update
 *                                     (Fill/read is tfc's: see the tokens in apply_locked)
 *   sync_token_q_Close, sync_token_q_Close_1     the chief queue runner's close and cancel
 *   sync_replicas/SetGlobalStep...    per accumulator, then sync_replicas/group_deps: the
 *                                     chief_init_op (with local_step_init_op)
 */
#include "tfc/sync_replicas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "builders/input_internal.h"
#include "tensor/dtype.h"

typedef struct sync_hook {
  TFC_SyncReplicasOptimizer *sync;
  int is_chief;
  TF_Operation *init_tokens;
} sync_hook;

struct TFC_SyncReplicasOptimizer {
  TFC_Optimizer *opt;
  int replicas_to_aggregate, total_num_replicas;
  char *name;
  int applied;
  TFC_Variable global_step, local_step;
  tfc_node *local_step_init, *chief_init, *sync_op, *close_op, *cancel_op, *token_queue;
  sync_hook hook;
};

TFC_EXPORT TFC_SyncReplicasOptimizer *TFC_NewSyncReplicasOptimizer(TFC_Optimizer *opt, int replicas_to_aggregate,
                                                                  int total_num_replicas, const char *name,
                                                                  TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TFC_SyncReplicasOptimizer *r = NULL;
  if (!opt) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "SyncReplicasOptimizer: the optimizer to wrap is NULL");
  } else if (replicas_to_aggregate < 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "SyncReplicasOptimizer: replicas_to_aggregate must be >= 1, not %d",
                   replicas_to_aggregate);
  } else if (!(r = calloc(1, sizeof *r)) || !(r->name = tfc_strdup(name && *name ? name : "sync_replicas"))) {
    free(r);
    r = NULL;
    TFC_OOM(s);
  } else {
    r->opt = opt;
    r->replicas_to_aggregate = replicas_to_aggregate;
    r->total_num_replicas = total_num_replicas > 0 ? total_num_replicas : replicas_to_aggregate;
  }
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT void TFC_DeleteSyncReplicasOptimizer(TFC_SyncReplicasOptimizer *sync) {
  if (!sync) return;
  free(sync->name);
  free(sync);
}

/* ---------------- small node makers (error-latching, as bld_op) ---------------- */

static tfc_endpoint out0(tfc_node *n) { return (tfc_endpoint){n, 0}; }

static tfc_node *queue_op(bld_call *c, const bld_where *w, const char *name, int dtype, int capacity) {
  if (!tfc_status_ok(c->s)) return NULL;
  tfc_attr_value types = {0}, shapes = {0}, shared = {0};
  tfc_shape scalar = {0};
  if (inp_types_attr(c, &dtype, 1, &types) || inp_shapes_attr(c, &scalar, 1, &shapes) ||
      tfc_attr_string(name, strlen(name), &shared, c->s)) {
    tfc_attr_value_fini(&types);
    tfc_attr_value_fini(&shapes);
    return NULL;
  }
  bld_attr a[4] = {{"component_types", types}, {"shapes", shapes}, {"capacity", tfc_attr_int(capacity)},
                   {"shared_name", shared}};
  return bld_op(c, w, "FIFOQueueV2", name, NULL, 0, a, 4);
}

/* "<queue>_<method>" as QueueBase names its ops. */
static tfc_node *queue_method(bld_call *c, const bld_where *w, tfc_node *queue, const char *method, const char *type,
                              const tfc_endpoint *more, int n_more, bld_attr *attrs, int n_attrs) {
  char name[512];
  snprintf(name, sizeof name, "%s_%s", queue ? queue->name : "", method);
  tfc_endpoint ins[2] = {out0(queue)};
  for (int i = 0; i < n_more && i < 1; i++) ins[1 + i] = more[i];
  return bld_op(c, w, type, name, ins, 1 + n_more, attrs, n_attrs);
}

/* array_ops.fill([n], value): "Fill/dims" (with `ctrl` as its control inputs) and "Fill". With
 * `fresh` (a reference variable), value is instead "Fill/read", an Identity of the variable
 * made after `ctrl` too (see apply_locked). */
static tfc_endpoint fill(bld_call *c, const bld_where *w, int64_t n, tfc_endpoint value, tfc_node *fresh,
                         tfc_node *const *ctrl, int n_ctrl) {
  tfc_endpoint none = {NULL, 0};
  if (!tfc_status_ok(c->s)) return none;
  char *scope = bld_unique(c, w->scope, "Fill");
  if (!scope) return none;
  bld_where dw = *w;
  dw.scope = scope;
  dw.ctrl = ctrl;
  dw.n_ctrl = n_ctrl;
  int64_t dim = 1;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, &dim, 1, c->s);
  tfc_endpoint dims = none;
  if (t) {
    ((int32_t *)t->data)[0] = (int32_t)n;
    dims = bld_const(c, &dw, "dims", t); /* takes t */
  }
  if (fresh) {
    tfc_endpoint ref = {fresh, 0};
    value = bld_op0(c, &dw, "Identity", "read", &ref, 1, NULL, 0);
  }
  bld_where fw = *w;
  char *exact = NULL;
  if (asprintf(&exact, "%s/", scope) < 0) exact = NULL;
  tfc_endpoint ins[2] = {dims, value};
  bld_attr a[1] = {{"index_type", tfc_attr_type(TFC_DT_INT32)}};
  tfc_endpoint r = exact ? bld_op0(c, &fw, "Fill", exact, ins, 2, a, 1) : none;
  if (!exact) TFC_OOM(c->s);
  free(exact);
  free(scope);
  return r;
}

/* ---------------- apply_gradients ---------------- */

static tfc_node *apply_locked(bld_call *c, TFC_SyncReplicasOptimizer *sy, const TFC_Scope *scope,
                              const TF_Output *grads, const TFC_Variable *vars, int n, const TFC_Variable *gs) {
  tfc_node *train = NULL, **apply = NULL, **take_nodes = NULL, **accums = NULL, **inits = NULL;
  tfc_endpoint *taken = NULL;
  char *sync_scope = NULL;
  int n_apply = 0, n_accum = 0;
  const char *gs_device = TF_OperationDevice(gs->variable);
  int gs_dtype = bld_dtype((tfc_endpoint){tfc_capi_node(gs->variable), 0});
  apply = calloc((size_t)n + 1, sizeof *apply);
  take_nodes = calloc((size_t)n + 1, sizeof *take_nodes);
  accums = calloc((size_t)n + 1, sizeof *accums);
  inits = calloc((size_t)n + 2, sizeof *inits);
  taken = calloc((size_t)n + 1, sizeof *taken);
  if (!apply || !take_nodes || !accums || !inits || !taken) {
    TFC_OOM(c->s);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    if (!vars[i].variable) {
      tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "variable %d is missing (NULL operation)", i);
      goto done;
    }
    if (bld_check_output(c, (TF_Output){vars[i].variable, 0}, "variable")) goto done;
    if (grads[i].oper && bld_check_output(c, grads[i], "gradient")) goto done;
  }
  bld_where root = bld_where_of(scope, "");
  /* The anchor and the local step, on this worker. */
  tfc_node *anchor = bld_op(c, &root, "NoOp", NULL, NULL, 0, NULL, 0);
  bld_init init = {{NULL, 0}, BLD_FILL_NONE, 0, gs_dtype, 0, {0}};
  if (bld_variable(c, &root, "sync_rep_local_step", 0, &init, 0, anchor, 0, &sy->local_step)) goto done;
  c->st->vars[c->st->n_vars - 1].global = 0;
  c->st->vars[c->st->n_vars - 1].local = 1;
  tfc_node *local = tfc_capi_node(sy->local_step.variable);
  tfc_endpoint gs_value = tfc_capi_endpoint(gs->value);
  bld_where at_local = root;
  at_local.coloc = local;
  tfc_endpoint ins[3] = {out0(local), gs_value};
  sy->local_step_init = bld_op(c, &at_local, "Assign", NULL, ins, 2, NULL, 0);
  /* The accumulators, under the optimizer's name scope, each on its variable's device. */
  if (!(sync_scope = bld_unique(c, "", sy->name))) goto done;
  tfc_endpoint local_value = tfc_capi_endpoint(sy->local_step.value);
  for (int i = 0; i < n && tfc_status_ok(c->s); i++) {
    if (!grads[i].oper) continue;
    bld_where at_var = bld_where_of(scope, sync_scope);
    at_var.device = TF_OperationDevice(vars[i].variable);
    tfc_endpoint g = tfc_capi_endpoint(grads[i]);
    int dt = bld_dtype(g);
    char shared[1024];
    snprintf(shared, sizeof shared, "%s:0/grad_accum", TF_OperationName(vars[i].variable));
    tfc_attr_value shape = {0}, shared_v = {0};
    const tfc_shape *vs = bld_shape((tfc_endpoint){tfc_capi_node(vars[i].variable), 0});
    tfc_shape unknown = {.rank = -1};
    if (tfc_attr_shape(vs ? vs : &unknown, &shape, c->s) || tfc_attr_string(shared, strlen(shared), &shared_v, c->s)) {
      tfc_attr_value_fini(&shape);
      break;
    }
    bld_attr a[4] = {{"dtype", tfc_attr_type(dt)}, {"shape", shape}, {"shared_name", shared_v},
                     {"reduction_type", {0}}};
    if (tfc_attr_string("MEAN", 4, &a[3].v, c->s)) {
      for (int k = 0; k < 3; k++) tfc_attr_value_fini(&a[k].v);
      break;
    }
    tfc_node *acc = bld_op(c, &at_var, "ResourceConditionalAccumulator", "conditional_accumulator", NULL, 0, a, 4);
    tfc_endpoint app_in[3] = {out0(acc), local_value, g};
    bld_attr aa[1] = {{"dtype", tfc_attr_type(dt)}};
    apply[n_apply++] = bld_op(c, &at_var, "ResourceAccumulatorApplyGradient", NULL, app_in, 3, aa, 1);
    /* take_grad(replicas_to_aggregate): the op's name scope first, num_required a Const in
     * it, then the op named after the scope (as a generated op wrapper makes them). */
    char *take_scope = bld_unique(c, sync_scope, "ResourceAccumulatorTakeGradient");
    char *exact = NULL;
    tfc_endpoint num = {NULL, 0};
    if (take_scope && asprintf(&exact, "%s/", take_scope + strlen(sync_scope) + 1) >= 0) {
      bld_where in_take = at_var;
      in_take.scope = take_scope;
      num = bld_scalar(c, &in_take, "num_required", TFC_DT_INT32, sy->replicas_to_aggregate);
    } else {
      exact = NULL;
      if (take_scope) TFC_OOM(c->s);
    }
    tfc_endpoint take_in[2] = {out0(acc), num};
    bld_attr ta[1] = {{"dtype", tfc_attr_type(dt)}};
    tfc_node *take = bld_op(c, &at_var, "ResourceAccumulatorTakeGradient", exact ? exact : "ResourceAccumulatorTakeGradient", take_in,
                            2, ta, 1);
    free(exact);
    free(take_scope);
    taken[i] = out0(take);
    accums[n_accum++] = acc;
  }
  if (!tfc_status_ok(c->s)) goto done;
  if (n_apply == 0) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "No gradients provided for any variable");
    goto done;
  }
  /* The update, the queues and the train op at the root, on the global step's device. */
  TFC_Scope at_gs = *scope;
  at_gs.name = (char *)"";
  at_gs.device = (char *)gs_device;
  tfc_node *update = bld_apply_gradients(c, sy->opt, &at_gs, taken, vars, n, gs, NULL);
  bld_where gw = bld_where_of(&at_gs, "");
  sy->token_queue = queue_op(c, &gw, "sync_token_q", gs_dtype, -1);
  bld_where after_apply = gw;
  after_apply.ctrl = apply;
  after_apply.n_ctrl = n_apply;
  bld_attr dq[1] = {{"component_types", {0}}};
  if (inp_types_attr(c, &gs_dtype, 1, &dq[0].v)) goto done;
  tfc_node *token = queue_method(c, &after_apply, sy->token_queue, "Dequeue", "QueueDequeueV2", NULL, 0, dq, 1);
  tfc_endpoint as_in[2] = {out0(local), out0(token)};
  train = bld_op(c, &at_local, "Assign", NULL, as_in, 2, NULL, 0);
  /* The tokens carry the global step after the update. TF's graph fills them from the
   * variable's snapshot "global_step/read", which in TF aliases the variable's buffer and so
   * shows the update made in place later in the step; a tfc read is a value of its own (a
   * failed step must leave variables as they were), so the tokens read the variable afresh,
   * after the update ("Fill/read"), as TF's graph does for a resource variable. */
  tfc_endpoint tokens = fill(c, &gw, sy->total_num_replicas > sy->replicas_to_aggregate ? sy->total_num_replicas
                                                                                       : sy->replicas_to_aggregate,
                             gs_value, tfc_capi_node(gs->variable), &update, 1);
  sy->sync_op = queue_method(c, &gw, sy->token_queue, "EnqueueMany", "QueueEnqueueManyV2", &tokens, 1, NULL, 0);
  for (int k = 0; k < 2; k++) {
    bld_attr ca[1] = {{"cancel_pending_enqueues", tfc_attr_bool(k)}};
    tfc_node *close = queue_method(c, &gw, sy->token_queue, "Close", "QueueCloseV2", NULL, 0, ca, 1);
    if (k) sy->cancel_op = close;
    else sy->close_op = close;
  }
  /* chief_init_op: the local step and each accumulator's global step. */
  int n_init = 0;
  inits[n_init++] = sy->local_step_init;
  for (int i = 0, k = 0; i < n && tfc_status_ok(c->s); i++) {
    if (!grads[i].oper) continue;
    bld_where at_var = bld_where_of(scope, sync_scope);
    at_var.device = TF_OperationDevice(vars[i].variable);
    tfc_endpoint set_in[2] = {out0(accums[k++]), gs_value};
    inits[n_init++] = bld_op(c, &at_var, "ResourceAccumulatorSetGlobalStep", "SetGlobalStep", set_in, 2, NULL, 0);
  }
  bld_where in_sync = bld_where_of(scope, sync_scope);
  sy->chief_init = bld_group(c, &in_sync, inits, n_init, NULL);
  if (tfc_status_ok(c->s)) sy->global_step = *gs;
done:
  free(sync_scope);
  free(apply);
  free(take_nodes);
  free(accums);
  free(inits);
  free(taken);
  return tfc_status_ok(c->s) ? train : NULL;
}

TFC_EXPORT TF_Operation *TFC_SyncReplicasApplyGradients(TFC_SyncReplicasOptimizer *sync, const TFC_Scope *scope,
                                                       const TF_Output *grads, const TFC_Variable *vars, int num_vars,
                                                       const TFC_Variable *global_step, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TF_Operation *r = NULL;
  if (!sync || !scope || num_vars < 0 || (num_vars && (!grads || !vars))) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SyncReplicasApplyGradients: invalid arguments");
  } else if (num_vars == 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Must supply at least one variable");
  } else if (!global_step || !global_step->variable) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Global step is required to check staleness");
  } else if (sync->applied) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "SyncReplicasOptimizer: apply_gradients was called already");
  } else {
    bld_call c;
    tfc_status_fini(&scratch);
    if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
      tfc_status_fini(&scratch);
      return NULL;
    }
    TFC_SyncReplicasOptimizer saved = *sync;
    bld_opt_mark m = bld_opt_mark_take(sync->opt);
    tfc_node *train = apply_locked(&c, sync, scope, grads, vars, num_vars, global_step);
    if (bld_end(&c) == TFC_OK) {
      r = tfc_capi_oper(train);
      sync->applied = 1;
    } else {
      bld_opt_mark_restore(sync->opt, &m);
      *sync = saved;
    }
  }
  tfc_status_fini(&scratch);
  return r;
}

TFC_EXPORT TF_Operation *TFC_SyncReplicasChiefInitOp(const TFC_SyncReplicasOptimizer *sync) {
  return sync && sync->applied ? tfc_capi_oper(sync->chief_init) : NULL;
}
TFC_EXPORT TF_Operation *TFC_SyncReplicasLocalStepInitOp(const TFC_SyncReplicasOptimizer *sync) {
  return sync && sync->applied ? tfc_capi_oper(sync->local_step_init) : NULL;
}
TFC_EXPORT TFC_Variable TFC_SyncReplicasLocalStep(const TFC_SyncReplicasOptimizer *sync) {
  TFC_Variable none = {NULL, NULL, {NULL, 0}};
  return sync && sync->applied ? sync->local_step : none;
}
TFC_EXPORT TF_Operation *TFC_SyncReplicasSyncOp(const TFC_SyncReplicasOptimizer *sync) {
  return sync && sync->applied ? tfc_capi_oper(sync->sync_op) : NULL;
}
TFC_EXPORT TF_Operation *TFC_SyncReplicasQueueRunnerCloseOp(const TFC_SyncReplicasOptimizer *sync,
                                                           unsigned char cancel) {
  return sync && sync->applied ? tfc_capi_oper(cancel ? sync->cancel_op : sync->close_op) : NULL;
}

TFC_EXPORT void TFC_SyncReplicasSetSyncOp(TFC_SyncReplicasOptimizer *sync, TF_Operation *op, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  if (!sync || !op) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SyncReplicasSetSyncOp: invalid arguments");
  } else if (!sync->applied) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "SyncReplicasOptimizer: the sync op is set after apply_gradients()");
  } else {
    sync->sync_op = tfc_capi_node(op);
    tfc_status_clear(s);
  }
  tfc_status_fini(&scratch);
}

/* ---------------- init tokens ---------------- */

TFC_EXPORT TF_Operation *TFC_SyncReplicasInitTokensOp(TFC_SyncReplicasOptimizer *sync, const TFC_Scope *scope,
                                                     int num_tokens, TF_Status *status) {
  tfc_status scratch, *s = tfc_capi_status_or(status, &scratch);
  TF_Operation *r = NULL;
  int needed = sync ? sync->replicas_to_aggregate - sync->total_num_replicas : 0;
  if (!sync || !scope) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SyncReplicasInitTokensOp: invalid arguments");
  } else if (!sync->applied) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "get_init_tokens_op() should be called after apply_gradients().");
  } else if (num_tokens != -1 && num_tokens < needed) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Too few tokens to finish the first step: %d (given) vs %d (needed)",
                   num_tokens, needed);
  } else {
    if (num_tokens == -1) num_tokens = sync->replicas_to_aggregate;
    tfc_status_fini(&scratch);
    bld_call c;
    if (bld_begin(&c, scope->graph, status, &scratch) != TFC_OK) {
      tfc_status_fini(&scratch);
      return NULL;
    }
    TFC_Scope at_gs = *scope;
    at_gs.name = (char *)"";
    at_gs.device = (char *)TF_OperationDevice(sync->global_step.variable);
    bld_where gw = bld_where_of(&at_gs, "");
    tfc_node *op;
    if (num_tokens > 0) {
      tfc_endpoint tokens = fill(&c, &gw, num_tokens, tfc_capi_endpoint(sync->global_step.value), NULL, NULL, 0);
      op = queue_method(&c, &gw, sync->token_queue, "EnqueueMany", "QueueEnqueueManyV2", &tokens, 1, NULL, 0);
    } else {
      op = bld_op(&c, &gw, "NoOp", "no_init_tokens", NULL, 0, NULL, 0);
    }
    if (bld_end(&c) == TFC_OK) r = tfc_capi_oper(op);
  }
  tfc_status_fini(&scratch);
  return r;
}

/* ---------------- the session hook ---------------- */

static void run_target(TF_Session *session, TF_Operation *op, TF_Status *status) {
  const TF_Operation *t[] = {op};
  TF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, status);
}

static void hook_after_create(void *arg, TF_Session *session, TFC_Coordinator *coord, TF_Status *status) {
  sync_hook *h = arg;
  TFC_SyncReplicasOptimizer *sy = h->sync;
  run_target(session, tfc_capi_oper(h->is_chief ? sy->chief_init : sy->local_step_init), status);
  if (TF_GetCode(status) != TF_OK || !h->is_chief) return;
  if (h->init_tokens) run_target(session, h->init_tokens, status);
  if (TF_GetCode(status) != TF_OK) return;
  TF_Operation *enqueue = tfc_capi_oper(sy->sync_op);
  TFC_StartQueueRunner(session, coord, tfc_capi_oper(sy->close_op), tfc_capi_oper(sy->cancel_op), &enqueue, NULL, 1,
                       status);
}

TFC_EXPORT TFC_SessionRunHook TFC_SyncReplicasHook(TFC_SyncReplicasOptimizer *sync, const TFC_Scope *scope,
                                                  unsigned char is_chief, int num_tokens, TF_Status *status) {
  TFC_SessionRunHook none = {0};
  if (!sync || !scope) {
    tfc_status scratch;
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT, "TFC_SyncReplicasHook: invalid arguments");
    tfc_status_fini(&scratch);
    return none;
  }
  TF_Operation *tokens = NULL;
  if (is_chief) {
    tokens = TFC_SyncReplicasInitTokensOp(sync, scope, num_tokens, status);
    if (!tokens) return none;
  } else if (!sync->applied) {
    tfc_status scratch;
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_FAILED_PRECONDITION,
                   "SyncReplicasOptimizer: make_session_run_hook should be called after apply_gradients()");
    tfc_status_fini(&scratch);
    return none;
  }
  sync->hook = (sync_hook){sync, is_chief != 0, tokens};
  TFC_SessionRunHook h = {0};
  h.arg = &sync->hook;
  h.after_create_session = hook_after_create;
  return h;
}
