/*
 * grad_internal — what the walk (gradients.c) and the gradient builders (grad_<family>.c)
 * share: the builder context, the registry and the small node-building helpers.
 *
 * A builder gets the forward node, one incoming gradient per output (node NULL: none; the walk
 * has already put zeros on float outputs when at least one gradient came in) and fills one
 * gradient per data input (node NULL: none, e.g. for shape and index inputs). Builders name
 * their nodes by op type under the per-op scope, as TF's Python gradient functions do, so
 * a builder must create its nodes in Python's order.
 *
 * The helpers are error-latching: once c->s holds an error every helper returns an empty
 * endpoint ({NULL, 0}) and adds nothing, so a builder chains calls and checks once at the end
 * (TFC_GRAD_DONE). Nodes are added with the graph lock held (the walk holds it).
 */
#ifndef TFC_GRAD_GRAD_INTERNAL_H
#define TFC_GRAD_GRAD_INTERNAL_H

#include "base/status.h"
#include "graph/graph.h"
#include "grad/gradients.h"
#include "ops/attr.h"

typedef struct tfc_grad_ctx {
  tfc_graph *g;
  const tfc_node *op;       /* the forward node */
  const char *scope;        /* "<prefix>/<op name>_grad" */
  const tfc_endpoint *dy;   /* [op->n_outputs] incoming gradients */
  tfc_endpoint *dx;         /* [op->n_inputs] gradients the builder produces */
  tfc_status *s;
} tfc_grad_ctx;

typedef int (*tfc_grad_fn)(tfc_grad_ctx *c);

/* A registry row: op name, builder; fn NULL marks a non-differentiable op (every input gets
 * no gradient, as TF's NotDifferentiable / REGISTER_NO_GRADIENT_OP). */
typedef struct tfc_grad_entry {
  const char *op;
  tfc_grad_fn fn;
} tfc_grad_entry;

/* The family tables (each ends with {NULL, NULL}). */
extern const tfc_grad_entry tfc_grad_math_entries[];
extern const tfc_grad_entry tfc_grad_array_entries[];
extern const tfc_grad_entry tfc_grad_nn_entries[];
extern const tfc_grad_entry tfc_grad_conv_entries[];
extern const tfc_grad_entry tfc_grad_nn_tail_entries[];
extern const tfc_grad_entry tfc_grad_tensor_array_entries[];
extern const tfc_grad_entry tfc_grad_image_entries[];
extern const tfc_grad_entry tfc_grad_complex_entries[];
extern const tfc_grad_entry tfc_grad_fft_entries[];

/* Registry lookup by op id, built once from the tables (ops not in tfc's op table are
 * skipped, so rows may name ops that land later). Returns 1 and sets *out_fn (NULL: no
 * gradient) when the op has a row, 0 when it has none. Thread-safe. */
int tfc_grad_registry_lookup(int op_id, tfc_grad_fn *out_fn);

/* ---- building nodes (error-latching; see above) ---- */

typedef struct tfc_grad_attr {
  const char *name;
  tfc_attr_value v; /* taken by the helper */
} tfc_grad_attr;

/* A node of `type` named "<scope>/<name>" made unique (name NULL: the type). Inputs ins[0, n)
 * are one per arg, except that ins[list_at, list_at + list_len) form one list arg when
 * list_at >= 0. ctrl (may be NULL) becomes a control input. Type attrs are inferred from the
 * inputs. Returns the node or NULL (error in c->s; attrs are freed either way). */
tfc_node *tfc_grad_node(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                        int n_ins, int list_at, int list_len, tfc_grad_attr *attrs, int n_attrs,
                        tfc_node *ctrl);
/* The same under an explicit scope (the walk's seeds and sums live under the prefix). */
tfc_node *tfc_grad_node_in(tfc_graph *g, const char *scope, const char *type, const char *name,
                           const tfc_endpoint *ins, int n_ins, int list_at, int list_len,
                           tfc_grad_attr *attrs, int n_attrs, tfc_node *ctrl, tfc_status *s);

/* Output 0 of a node whose inputs ins[0, n_lists * list_len) are n_lists list args of list_len
 * inputs each (DynamicStitch's indices and data). Errors as tfc_grad_node. */
tfc_endpoint tfc_grad_op_lists(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                               int n_lists, int list_len);
/* Output 0 of such a node. */
tfc_endpoint tfc_grad_op(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                         int n_ins, tfc_grad_attr *attrs, int n_attrs);
tfc_endpoint tfc_grad_unary(tfc_grad_ctx *c, const char *type, const char *name, tfc_endpoint a);
tfc_endpoint tfc_grad_binary(tfc_grad_ctx *c, const char *type, const char *name, tfc_endpoint a,
                             tfc_endpoint b);

/* Const scalar of dtype with value v (converted), optionally with a control input. */
tfc_endpoint tfc_grad_const_scalar(tfc_grad_ctx *c, const char *name, int dtype, double v, tfc_node *ctrl);
/* The same under an explicit scope (the walk's seeds). */
tfc_endpoint tfc_grad_const_scalar_in(tfc_graph *g, const char *scope, const char *name, int dtype, double v,
                                      tfc_status *s);
/* Const int32 vector (n may be 0). */
tfc_endpoint tfc_grad_const_ivec(tfc_grad_ctx *c, const char *name, const int64_t *v, int n);
/* Const vector of dtype int32 or int64 (n may be 0). */
tfc_endpoint tfc_grad_const_vec(tfc_grad_ctx *c, const char *name, int dtype, const int64_t *v, int n);
/* Python's array_ops.shape / rank / size in graph mode: a Const named like the op when x's
 * static shape is fully defined (rank: known), else the op. out_type int32 or int64. */
tfc_endpoint tfc_grad_shape_opt(tfc_grad_ctx *c, tfc_endpoint x, int out_type);
tfc_endpoint tfc_grad_rank_opt(tfc_grad_ctx *c, tfc_endpoint x);
tfc_endpoint tfc_grad_size_opt(tfc_grad_ctx *c, tfc_endpoint x);
/* StridedSlice(x, [b], [e], [1]) of a vector with the given masks (Python's x[b:e], x[b]). */
tfc_endpoint tfc_grad_vec_slice(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint b, tfc_endpoint e,
                                int begin_mask, int end_mask, int shrink);
/* Shape(x) (int32), Reshape(x, shape), Sum(x, axes) with keep_dims false. */
tfc_endpoint tfc_grad_shape(tfc_grad_ctx *c, tfc_endpoint x);
tfc_endpoint tfc_grad_reshape(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint shape);
tfc_endpoint tfc_grad_sum(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint axes);
/* Cast(x) to dtype named "Cast". */
tfc_endpoint tfc_grad_cast(tfc_grad_ctx *c, tfc_endpoint x, int dtype);

/* The dtype (ref stripped) and inferred shape of an endpoint. */
int tfc_grad_dtype(tfc_endpoint e);
const tfc_shape *tfc_grad_static_shape(tfc_endpoint e);
/* The forward node's input i and output i. */
tfc_endpoint tfc_grad_in(const tfc_grad_ctx *c, int i);
tfc_endpoint tfc_grad_out(const tfc_grad_ctx *c, int i);
/* The value of a Const int vector/scalar feeding input i (1 and *out filled, up to cap
 * values, *out_n the count), or 0 when input i is not a Const. */
int tfc_grad_const_ints(const tfc_grad_ctx *c, int input, int64_t *out, int cap, int *out_n);
/* 1 when TF's Python would skip broadcasting: both shapes fully known and equal. */
int tfc_grad_same_full_shape(tfc_endpoint a, tfc_endpoint b);

/* Reduces g (shaped like the broadcast of a and b) back to the shapes of a and b:
 * Shape, Shape_1, BroadcastGradientArgs, then for each side Sum + Reshape, in Python's order
 * with the per-side values ga/gb computed lazily by the caller: pass the unreduced gradients
 * for each side. Used by the broadcasting binary ops. */
typedef struct tfc_grad_bcast {
  tfc_endpoint sx, sy, rx, ry;
} tfc_grad_bcast;
void tfc_grad_bcast_args(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint y, tfc_grad_bcast *out);
tfc_endpoint tfc_grad_bcast_reduce(tfc_grad_ctx *c, tfc_endpoint g, tfc_endpoint r, tfc_endpoint shape);

/* ---- the walk, re-entered for a loop body (grad_loop.c) ---- */

typedef struct tfc_grad_walk_args {
  const tfc_endpoint *y;
  int ny;
  const tfc_endpoint *x;
  int nx;
  const tfc_endpoint *grad_ys; /* NULL or ny seeds */
  const tfc_grad_options *opt;
  const char *scope;           /* the nodes' scope, used as given (no uniqueness check) */
  int stop_at_ys;              /* 1: the forward marking does not go from a y into a
                                  NextIteration, which keeps a loop's back edge out of a body
                                  walk (a y feeding another y still passes its gradient) */
  const char *body_of;         /* the frame whose body this walk differentiates, or NULL */
} tfc_grad_walk_args;

/* The walk of tfc_gradients_add without the lock, the prefix choice or the rollback: the
 * caller holds g's lock and undoes the graph on error. out_grads as tfc_gradients_add. */
int tfc_grad_walk_locked(tfc_graph *g, const tfc_grad_walk_args *a, tfc_endpoint *out_grads, tfc_status *s);

/* While building a loop, every node the helpers add also gets a control input from `n`
 * (TF's control-dependency scope: cond nodes on Merge 0, body nodes on Switch 0). Returns
 * the previous one (NULL: none) to restore. Per thread; the graph lock is held meanwhile. */
tfc_node *tfc_grad_set_control(tfc_node *n);

/* While a loop body's gradient is built in Python mode, every input of every node the helpers
 * add goes through fn (forward-loop tensors become stack pops; grad_loop.c); fn returns the
 * endpoint to use, {NULL, 0} with s set on error. Nodes fn itself adds are not rewritten.
 * Returns the previous setting to restore; per thread, like tfc_grad_set_control. */
typedef struct tfc_grad_remap {
  tfc_endpoint (*fn)(void *ctx, tfc_endpoint e, tfc_status *s);
  void *ctx;
} tfc_grad_remap;
tfc_grad_remap tfc_grad_set_remap(tfc_grad_remap r);

/* ---- while loops (grad_loop.c) ---- */

/* A TF1 while loop found from one of its Exits: n loop variables, each an
 * Enter -> Merge -> Switch -> Exit chain (rows of one block owned by `enter`). dy[i] is the
 * gradient recorded for Exit i by the walk. */
typedef struct tfc_grad_loop {
  char *frame;
  int n;
  tfc_node **enter, **merge, **sw, **exit;
  tfc_node *loop_cond;
  tfc_endpoint *dy;
  int n_seen, n_needed, built;
  int stacks; /* 1: forward values the body's gradient reads are saved on stacks (Python mode) */
  int (*cond_of)(void *ctx, const tfc_node *n, tfc_node **pred, int *branch); /* the walk's */
  void *cond_ctx;
  int no_backprop; /* built with back_prop false (tf.while_loop): nothing flows through it */
  tfc_node **inv;  /* tf.gradients mode: the constant Enters (loop invariants) on the path */
  int n_inv;
} tfc_grad_loop;

/* Recognises the loop of `exit` among g's first n0 nodes: *out a new loop (free with
 * tfc_grad_loop_free) or NULL when exit does not sit in that structure. Errors: out of memory. */
int tfc_grad_loop_find(const tfc_graph *g, int n0, const tfc_node *exit, tfc_grad_loop **out, tfc_status *s);
void tfc_grad_loop_free(tfc_grad_loop *l);

/* Builds the gradient of loop l (every dy[i] set) under "<prefix>/<frame>_grad/" as TF's C++
 * code does (see grad_loop.c); out_dx[i] receives the gradient for Enter i's input, and
 * out_dx[n + j] the gradient accumulated for invariant j's input. */
int tfc_grad_loop_build(tfc_graph *g, const char *prefix, tfc_grad_loop *l, tfc_endpoint *out_dx, tfc_status *s);

static inline tfc_endpoint tfc_grad_none(void) {
  tfc_endpoint e = {NULL, 0};
  return e;
}
static inline int tfc_grad_ok(const tfc_grad_ctx *c) { return c->s->code == TFC_OK; }

#define TFC_GRAD_ATTR_BOOL(n, b) ((tfc_grad_attr){(n), tfc_attr_bool(b)})
#define TFC_GRAD_ATTR_INT(n, i) ((tfc_grad_attr){(n), tfc_attr_int(i)})
#define TFC_GRAD_ATTR_TYPE(n, t) ((tfc_grad_attr){(n), tfc_attr_type(t)})

#endif
