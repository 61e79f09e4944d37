/*
 * builders_internal — what the training graph builders (include/tfc/train.h) share: the
 * per-graph state, the context of one builder call, and the node-making helper.
 *
 * Per-graph state (hung off TF_Graph, freed with it): the names in use — Python's
 * Graph._names_in_use, lower-cased keys, holding every op name and every name scope handed
 * out — the graph random seed, and the variable collections (global, trainable, the global
 * step). Nodes that did not come from the builders (plain TF_NewOperation, imports, the
 * gradient walk) are folded into the names lazily ("sync"): their names and every
 * '/'-separated prefix of them count as used, because those prefixes were name scopes when
 * such graphs were built in Python.
 *
 * One builder call (bld_call) holds the graph lock from begin to end, marks the graph, the
 * names and the collections at begin, and on failure rolls all three back, so a failed call
 * leaves the graph and the builders' state as they were. The helpers are error-latching: once
 * the call's status holds an error they add nothing and return NULL / empty outputs, so a
 * builder chains them and checks once (the pattern of grad/grad_internal.h).
 *
 * Where a node goes (bld_where): a name scope, a requested device, an optional colocation
 * target (the node then takes the target's colocation groups and device, as Python's
 * ops.colocate_with does), the scope's control-dependency frames, and extra control inputs.
 */
#ifndef TFC_BUILDERS_BUILDERS_INTERNAL_H
#define TFC_BUILDERS_BUILDERS_INTERNAL_H

#include "base/hashmap.h"
#include "base/status.h"
#include "capi/capi_internal.h"
#include "graph/graph.h"
#include "ops/attr.h"
#include "tfc/train.h"

/* A control-dependency frame: Python's `with tf.control_dependencies(ops)` block. Shared by
 * every scope derived from the one that opened it (refcounted). `seen` holds the names of the
 * nodes made under the frame: a node with such an input is dominated and gets no control
 * inputs from this frame (Python's _control_dependencies_for_inputs). */
typedef struct bld_frame {
  int refs;
  int n_ops;
  tfc_node **ops;
  tfc_hashmap seen;
} bld_frame;

struct bld_cf_ctx;

/* One device function of a scope's device stack (TFC_ScopeWithDeviceFunction), shared by the
 * scopes derived from the one that pushed it (refcounted). `outer` is the string requests
 * merged between this function and `parent` (the next function out): applied after the
 * function, as Python merges an outer tf.device string under what an inner function gave. */
typedef struct bld_devfn {
  int refs;
  TFC_DeviceFunction fn;
  void *ctx;
  char *outer;
  struct bld_devfn *parent;
} bld_devfn;

struct TFC_Scope {
  TF_Graph *graph;
  char *name;   /* "" or "a/b" */
  char *device; /* canonical request ("/job:ps/task:0/device:CPU:0") or "": the string
                   requests inside the innermost device function (all of them without one) */
  bld_devfn *devfn; /* the innermost device function (a reference), or NULL */
  int n_frames;
  bld_frame **frames;
  struct bld_cf_ctx *cf; /* the cond branch or while loop being built here (a reference), or NULL */
  char *builder_name;    /* TFC_ScopeWithBuilderName's name, or NULL (not inherited) */
};

typedef struct bld_var {
  TFC_Variable v;
  int global;    /* in "variables" (tf.global_variables) */
  int trainable; /* in "trainable_variables" */
  int local;     /* in "local_variables" (tf.local_variables) */
} bld_var;

/* A cond's Merge or one of its branches' capture Switches, with the cond's pred_id and the
 * branch (captures), recorded by TFC_Cond for the gradients (Python's CondContext). */
typedef struct bld_cond_rec {
  tfc_node *node;
  tfc_node *pred;
  int branch;
} bld_cond_rec;

typedef struct bld_state {
  tfc_hashmap used;   /* lower-cased name -> (void *)1 */
  char **used_log;    /* the keys in insertion order (rollback rebuilds the map) */
  int n_used, cap_used;
  int n_synced;       /* graph nodes [0, n_synced) are folded into `used` */
  int has_seed;
  int64_t seed;
  bld_var *vars;
  int n_vars, cap_vars;
  TFC_Variable global_step;
  int has_global_step;
  struct bld_entry *entries; /* the collections (collections.c), every entry in order added */
  int n_entries, cap_entries;
  bld_cond_rec *conds;       /* control_flow.c; rolled back with the call */
  int n_conds, cap_conds;
  /* control_flow.c: node id ranges [from, to) that builder calls made with a scope outside
   * any control-flow context while a cond branch or loop callback ran (variables made from a
   * root scope, as Python makes them under init_scope): they are not in that context. */
  int *lifted, n_lifted, cap_lifted;
  int open_cf; /* callbacks running */
} bld_state;

/* One entry of a named collection: a tuple of nodes (a summary: one; a queue runner: the
 * queue, its close and cancel ops, then its enqueue ops). */
typedef struct bld_entry {
  char *collection;
  int n;
  tfc_node **nodes;
} bld_entry;

/* One builder call: see the header comment. */
typedef struct bld_call {
  TF_Graph *graph;
  tfc_graph *g;
  bld_state *st;
  tfc_status *s;
  int graph_mark, names_mark, vars_mark, has_global_step, entries_mark, conds_mark;
  int lift, lifted_mark; /* lift: the call's nodes are made outside the open contexts */
} bld_call;

typedef struct bld_where {
  const char *scope;             /* name prefix; "" is the root */
  const char *device;            /* requested device ("" none); ignored when coloc is set */
  tfc_node *coloc;               /* colocate with this node (NULL: none) */
  const char *coloc_name;        /* else: _class [loc:@coloc_name] and no device (a variable's
                                    initializer, made before the variable exists) */
  const TFC_Scope *frames_from;  /* control-dependency frames (NULL: none) */
  tfc_node *const *ctrl;         /* extra control inputs */
  int n_ctrl;
  const bld_devfn *devfn;        /* device functions applied after `device` (NULL: none);
                                    not for colocated nodes (Python's colocate_with resets
                                    the device stack) */
} bld_where;

typedef struct bld_attr {
  const char *name;
  tfc_attr_value v; /* taken by the helper */
} bld_attr;

/* ---- per-graph state and calls (scope.c) ---- */

/* Starts a call on graph: clears status (NULL allowed: errors then only return), takes the
 * lock, creates the state on first use, syncs names and marks. Returns TFC_OK or the error
 * (then the lock is not held and nothing else must be done). */
int bld_begin(bld_call *c, TF_Graph *graph, TF_Status *status, tfc_status *scratch);
/* bld_begin on scope's graph; a NULL scope is INVALID_ARGUMENT "scope is NULL" (the public
 * builders' first check). */
int bld_begin_scope(bld_call *c, const TFC_Scope *scope, TF_Status *status, tfc_status *scratch);
/* Ends a call: on error rolls back graph, names and collections; releases the lock. Returns
 * the status code. */
int bld_end(bld_call *c);
/* 1 when n was made outside the control-flow contexts open at the time (see bld_state). */
int bld_lifted(const bld_state *st, const tfc_node *n);
/* Records nodes [from, to) as made outside the open contexts (memory errors ignored: the
 * nodes then stay inside). */
void bld_lift(bld_state *st, int from, int to);
/* bld_end, then e as a TF_Output ({NULL, 0} when the call failed or e is empty). */
TF_Output bld_end_output(bld_call *c, tfc_endpoint e);
/* Temporarily releases the lock around a call that takes it itself (the gradient walk); the
 * marks stay, so bld_end still rolls back everything on error. bld_resume re-syncs. */
void bld_pause(bld_call *c);
void bld_resume(bld_call *c);
/* The state of a graph whose lock the caller holds (created on first use; NULL on OOM). */
bld_state *bld_state_get(TF_Graph *graph);
void bld_sync(bld_state *st, tfc_graph *g);

/* "<scope>/<base>" (or base at the root) made unique as Python's Graph.unique_name does and
 * marked used. Caller frees. NULL with the status set on OOM (or when the call failed). */
char *bld_unique(bld_call *c, const char *scope, const char *base);
/* bld_unique without marking the name: the name the next bld_unique would hand out. */
char *bld_peek_unique(bld_call *c, const char *scope, const char *base);
/* Marks a full name used (exact names: an op named after its own scope). */
int bld_mark_used(bld_call *c, const char *full);
/* "<scope>/<name>" without uniquing. Caller frees. */
char *bld_join(const char *scope, const char *name);

/* The node: type, named bld_unique(scope, name) (name NULL: the type; a name ending in '/'
 * is taken exactly as "<scope>/<name without '/'>", Python's re-entered scope); data inputs
 * flat, as a NodeDef lists them (a list arg takes as many as its attr says or, when it is the
 * only list arg left, the rest); attrs taken. Applies device, colocation, frames and extra
 * controls. */
tfc_node *bld_op(bld_call *c, const bld_where *w, const char *type, const char *name,
                 const tfc_endpoint *ins, int n_ins, bld_attr *attrs, int n_attrs);
/* Output 0 of bld_op (node NULL on error). */
tfc_endpoint bld_op0(bld_call *c, const bld_where *w, const char *type, const char *name,
                     const tfc_endpoint *ins, int n_ins, bld_attr *attrs, int n_attrs);
/* A Const of tensor t (reference taken). */
tfc_endpoint bld_const(bld_call *c, const bld_where *w, const char *name, tfc_tensor *t);
/* A scalar Const of dtype (float, double, int32, int64) holding v. */
tfc_endpoint bld_scalar(bld_call *c, const bld_where *w, const char *name, int dtype, double v);
/* x converted to dtype: x itself when it already has it, else Cast named `name` ("Cast"). */
tfc_endpoint bld_cast(bld_call *c, const bld_where *w, tfc_endpoint x, int dtype, const char *name);
/* control_flow_ops.group(ops, name): one NoOp waiting for ops, or (ops on several devices)
 * one NoOp per device inside the name scope `name` ("init/NoOp", "init/NoOp_1") and a final
 * one named after that scope. name as in bld_op (NULL: "group_deps"). */
tfc_node *bld_group(bld_call *c, const bld_where *w, tfc_node *const *ops, int n, const char *name);
/* The name scope a builder opens for itself: the scope's builder name when it has one (Python's
 * name= argument), else `dflt`. */
const char *bld_builder_name(const TFC_Scope *scope, const char *dflt);
/* The where of a public scope (device, device functions, frames) at scope name `scope_name`. */
bld_where bld_where_of(const TFC_Scope *scope, const char *scope_name);
/* The device that the device functions `fn` (innermost first) give an operation of op_type
 * named name whose string requests gave `requested`; op is the operation when it exists
 * already (else NULL). A new canonical string in *out (caller frees). A function's error is
 * the call's, prefixed with the node's name. */
int bld_devfn_apply(bld_call *c, const bld_devfn *fn, const char *op_type, const char *name, const char *requested,
                    TF_Operation *op, char **out);

/* Python's random_seed.get_seed for op seed 0/unset: (seed, seed2) for a random op about to
 * be created, or (0, 0) when no graph seed is set. */
void bld_seeds(bld_call *c, int64_t op_seed, int64_t *seed, int64_t *seed2);

/* The dtype (ref stripped) and static shape of an endpoint (lock held). */
int bld_dtype(tfc_endpoint e);
const tfc_shape *bld_shape(tfc_endpoint e);

/* ---- collections (collections.c) ---- */

/* Appends an entry (a copy of nodes[0, n)) to `collection`; rolled back with the call. */
int bld_collection_add(bld_call *c, const char *collection, tfc_node *const *nodes, int n);
/* Drops entries [mark, n_entries) (rollback) or all (mark 0, at state free). */
void bld_collections_truncate(bld_state *st, int mark);

/* ---- initializers (init.c) ---- */

/* tf.zeros under `w`: Const "zeros" for fewer than 1000 elements, else Fill on
 * zeros/shape_as_tensor and zeros/Const. */
tfc_endpoint bld_zeros(bld_call *c, const bld_where *w, const int64_t *dims, int nd, int dtype);

/* What a filled initial value is (bld_init.fill, bld_filled). */
enum { BLD_FILL_NONE = 0, BLD_FILL_ZEROS = 1, BLD_FILL_ONES = 2, BLD_FILL_CONST = 3 };
/* An initializer's value under `w`: zeros_initializer (bld_zeros), ones_initializer (tf.ones:
 * "ones", Const or Fill as zeros) or constant_initializer(v) (Const "Const" of the whole
 * shape). Float, double, int32, int64. */
tfc_endpoint bld_filled(bld_call *c, const bld_where *w, const int64_t *dims, int nd, int dtype, int fill,
                        double v);

/* ---- variables (variables.c) ---- */

/* How a variable gets its initial value. */
typedef struct bld_init {
  tfc_endpoint value;    /* an existing tensor (node NULL: use the fields below) */
  int fill;              /* BLD_FILL_*: an initializer's value of shape/dtype under
                            "<var>/Initializer" (BLD_FILL_CONST: filled with `scalar`) */
  double scalar;         /* else: a scalar Const "<var>/initial_value" of dtype */
  int dtype;
  int nd;
  int64_t dims[TFC_MAX_DIMS];
} bld_init;

/* A reference variable as tf.Variable / get_variable make it: VariableV2 `name` made unique
 * under w->scope (exact when exact_name), <var>/Assign, <var>/read. coloc: colocate every
 * node with it (slots, non-slot variables; the variable also gets its _class). Recorded in
 * the collections. */
int bld_variable(bld_call *c, const bld_where *w, const char *name, int exact_name, const bld_init *init,
                 int trainable, tfc_node *coloc, int self_colocate, TFC_Variable *out);

/* A local variable as Python's limit_epochs / tf.local_variables make it: bld_variable of the
 * given initial value (not trainable), recorded in the local variables instead of the global
 * ones. */
int bld_local_variable(bld_call *c, const bld_where *w, const char *name, tfc_endpoint initial_value,
                       TFC_Variable *out);

/* An output of this graph with a valid index (INVALID_ARGUMENT / OUT_OF_RANGE naming what). */
int bld_check_output(bld_call *c, TF_Output o, const char *what);
/* The graph's global step, created (root name scope, the scope's device) when missing. */
int bld_global_step(bld_call *c, const TFC_Scope *scope, TFC_Variable *out);

/* ---- optimizers (optimizers.c) ---- */

/* The optimizer's caches (slots, Adam's beta powers) at the start of a call, to restore when
 * the call fails. */
typedef struct bld_opt_mark {
  int n_slots;
  TF_Graph *beta_graph;
  TFC_Variable b1, b2;
} bld_opt_mark;
bld_opt_mark bld_opt_mark_take(const TFC_Optimizer *o);
void bld_opt_mark_restore(TFC_Optimizer *o, const bld_opt_mark *m);
/* optimizer.apply_gradients within call c (TFC_ApplyGradients' body): the train op, or NULL
 * with the call's status set. */
tfc_node *bld_apply_gradients(bld_call *c, TFC_Optimizer *o, const TFC_Scope *scope, const tfc_endpoint *grads,
                              const TFC_Variable *vars, int n, const TFC_Variable *global_step, const char *name);

/* ---- control flow (control_flow.c) ---- */

/* The cond record of node n (lock held): 1 and *out filled, or 0. */
int bld_cond_of(const bld_state *st, const tfc_node *n, bld_cond_rec *out);

/* Sets scope's control-flow context (a new reference to cf; the old one is released). */
void bld_scope_set_cf(TFC_Scope *scope, struct bld_cf_ctx *cf);

/* ---- gradients (gradients.c) ---- */

/* tf.gradients under a unique "<scope>/gradients" within call c (the lock is released
 * around the walk, which takes it itself). Python's None for x without gradient: {NULL, -1}.
 * On success the new nodes get the scope's device. */
int bld_gradients(bld_call *c, const TFC_Scope *scope, const tfc_endpoint *ys, int ny, const tfc_endpoint *xs,
                  int nx, const tfc_endpoint *grad_ys, int tuples, tfc_endpoint *out);

/* Requests a stop and waits until every queue runner's cancel thread has run its cancel op
 * (or found nothing to cancel), so that the session is still open for those ops: a
 * monitored session's end closes its queues this way (the chief's sync token queue, whose
 * close ends the other workers' waits) before it closes the session. Enqueue threads are not
 * waited for. coord NULL: no-op. */
struct TFC_Coordinator;
void tfc_coordinator_stop_and_cancel(struct TFC_Coordinator *coord);

#endif
