/*
 * grad_build — the node-building helpers the gradient builders share (grad_internal.h) and
 * the gradient registry.
 *
 * Helpers go through the ordinary node description (tfc_node_desc_*), so every gradient node
 * is validated, gets its type attrs inferred and its shapes inferred like a node built
 * through the C API. They latch errors: the first failure stays in the status and later
 * helpers do nothing, which keeps builders as straight-line code mirroring TF's math.
 *
 * The registry is an array indexed by op id, filled once from the family tables by looking
 * each name up in the op table; rows for ops tfc does not have yet are skipped, so builders
 * may be written before their op rows land.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "grad/grad_internal.h"
#include "ops/opdef.h"
#include "tensor/dtype.h"

/* ---------------- registry ---------------- */

typedef struct {
  unsigned char has;
  tfc_grad_fn fn;
} reg_row;

static reg_row registry[TFC_OP_COUNT];
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_add(const tfc_grad_entry *rows) {
  for (const tfc_grad_entry *e = rows; e->op; e++) {
    const tfc_opdef *op = tfc_op_lookup(e->op);
    if (!op || op->id < 0 || op->id >= TFC_OP_COUNT) continue;
    registry[op->id].has = 1;
    registry[op->id].fn = e->fn;
  }
}

static void registry_init(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_ops_init(&s); /* a malformed row is our bug and surfaces on any graph use */
  tfc_status_fini(&s);
  registry_add(tfc_grad_math_entries);
  registry_add(tfc_grad_array_entries);
  registry_add(tfc_grad_nn_entries);
  registry_add(tfc_grad_conv_entries);
  registry_add(tfc_grad_nn_tail_entries);
  registry_add(tfc_grad_tensor_array_entries);
  registry_add(tfc_grad_image_entries);
  registry_add(tfc_grad_complex_entries);
  registry_add(tfc_grad_fft_entries);
}

int tfc_grad_registry_lookup(int op_id, tfc_grad_fn *out_fn) {
  pthread_once(&registry_once, registry_init);
  if (op_id < 0 || op_id >= TFC_OP_COUNT || !registry[op_id].has) return 0;
  *out_fn = registry[op_id].fn;
  return 1;
}

/* ---------------- endpoints ---------------- */

int tfc_grad_dtype(tfc_endpoint e) { return tfc_dtype_base(e.node->output_types[e.index]); }

const tfc_shape *tfc_grad_static_shape(tfc_endpoint e) { return &e.node->output_shapes[e.index]; }

tfc_endpoint tfc_grad_in(const tfc_grad_ctx *c, int i) { return c->op->inputs[i]; }

tfc_endpoint tfc_grad_out(const tfc_grad_ctx *c, int i) {
  tfc_endpoint e = {(tfc_node *)c->op, i};
  return e;
}

int tfc_grad_same_full_shape(tfc_endpoint a, tfc_endpoint b) {
  const tfc_shape *sa = tfc_grad_static_shape(a), *sb = tfc_grad_static_shape(b);
  return tfc_shape_fully_defined(sa) && tfc_shape_fully_defined(sb) && tfc_shape_equal(sa, sb);
}

int tfc_grad_const_ints(const tfc_grad_ctx *c, int input, int64_t *out, int cap, int *out_n) {
  const tfc_node *n = c->op->inputs[input].node;
  if (n->op->id != TFC_OP_Const) return 0;
  const tfc_attr_value *v = tfc_node_attr(n, "value");
  if (!v || v->kind != TFC_ATTR_TENSOR) return 0;
  const tfc_tensor *t = v->u.tensor;
  if ((t->dtype != TFC_DT_INT32 && t->dtype != TFC_DT_INT64) || t->ndims > 1 || t->n_elems > cap) return 0;
  for (int64_t i = 0; i < t->n_elems; i++) out[i] = tfc_tensor_get_i64(t, i);
  *out_n = (int)t->n_elems;
  return 1;
}

/* ---------------- nodes ---------------- */

/* The control input every new node gets while a loop's cond or body is built (the graph lock
 * is held throughout, so one per thread is enough). */
static __thread tfc_node *ambient_control;

tfc_node *tfc_grad_set_control(tfc_node *n) {
  tfc_node *prev = ambient_control;
  ambient_control = n;
  return prev;
}

/* The input rewrite of a loop body's gradient (grad_loop.c), and a guard so that the nodes the
 * rewrite itself makes are left alone. */
static __thread tfc_grad_remap ambient_remap;
static __thread int in_remap;

tfc_grad_remap tfc_grad_set_remap(tfc_grad_remap r) {
  tfc_grad_remap prev = ambient_remap;
  ambient_remap = r;
  return prev;
}

static void free_attrs(tfc_grad_attr *attrs, int n) {
  for (int i = 0; i < n; i++) tfc_attr_value_fini(&attrs[i].v);
}

static tfc_node *node_build(tfc_graph *g, const char *scope, const char *type, const char *name,
                            const tfc_endpoint *ins, int n_ins, const int *sizes, int n_args,
                            tfc_grad_attr *attrs, int n_attrs, tfc_node *ctrl, tfc_status *s);

/* The node builder behind tfc_grad_node_in and tfc_grad_op_lists: arg k takes sizes[k] inputs
 * as a list, or one input when sizes[k] < 0. Inputs go through the remap when one is set. */
static tfc_node *node_in(tfc_graph *g, const char *scope, const char *type, const char *name,
                         const tfc_endpoint *ins, int n_ins, const int *sizes, int n_args,
                         tfc_grad_attr *attrs, int n_attrs, tfc_node *ctrl, tfc_status *s) {
  if (!tfc_status_ok(s)) {
    free_attrs(attrs, n_attrs);
    return NULL;
  }
  for (int i = 0; i < n_ins; i++)
    if (!ins[i].node) {
      free_attrs(attrs, n_attrs);
      tfc_status_set(s, TFC_INTERNAL, "gradient node %s/%s: input %d is missing", scope, name ? name : type, i);
      return NULL;
    }
  tfc_endpoint *mapped = NULL;
  if (ambient_remap.fn && !in_remap && n_ins > 0) {
    mapped = malloc(sizeof *mapped * (size_t)n_ins);
    if (!mapped) {
      free_attrs(attrs, n_attrs);
      TFC_OOM(s);
      return NULL;
    }
    in_remap = 1;
    for (int i = 0; i < n_ins; i++) mapped[i] = ambient_remap.fn(ambient_remap.ctx, ins[i], s);
    in_remap = 0;
    for (int i = 0; i < n_ins; i++)
      if (!mapped[i].node) {
        free(mapped);
        free_attrs(attrs, n_attrs);
        if (tfc_status_ok(s)) tfc_status_set(s, TFC_INTERNAL, "gradient node %s: input %d lost", scope, i);
        return NULL;
      }
    ins = mapped;
  }
  tfc_node *r = node_build(g, scope, type, name, ins, n_ins, sizes, n_args, attrs, n_attrs, ctrl, s);
  free(mapped);
  return r;
}

static tfc_node *node_build(tfc_graph *g, const char *scope, const char *type, const char *name,
                            const tfc_endpoint *ins, int n_ins, const int *sizes, int n_args,
                            tfc_grad_attr *attrs, int n_attrs, tfc_node *ctrl, tfc_status *s) {
  char *base = NULL;
  if (asprintf(&base, "%s/%s", scope, name ? name : type) < 0) {
    free_attrs(attrs, n_attrs);
    TFC_OOM(s);
    return NULL;
  }
  char *unique = tfc_graph_unique_name(g, base);
  free(base);
  tfc_node_desc *d = unique ? tfc_node_desc_new(g, type, unique) : NULL;
  free(unique);
  if (!d) {
    free_attrs(attrs, n_attrs);
    TFC_OOM(s);
    return NULL;
  }
  for (int k = 0, i = 0; k < n_args; k++) {
    if (sizes[k] >= 0) {
      tfc_node_desc_add_input_list(d, sizes[k] ? ins + i : NULL, sizes[k]);
      i += sizes[k];
    } else {
      tfc_node_desc_add_input(d, ins[i++]);
    }
  }
  for (int i = 0; i < n_attrs; i++) tfc_node_desc_set_attr(d, attrs[i].name, &attrs[i].v);
  if (ctrl) tfc_node_desc_add_control(d, ctrl);
  if (ambient_control && ambient_control != ctrl) tfc_node_desc_add_control(d, ambient_control);
  return tfc_node_desc_finish_locked(d, s);
}

tfc_node *tfc_grad_node_in(tfc_graph *g, const char *scope, const char *type, const char *name,
                           const tfc_endpoint *ins, int n_ins, int list_at, int list_len,
                           tfc_grad_attr *attrs, int n_attrs, tfc_node *ctrl, tfc_status *s) {
  int *sizes = malloc(sizeof *sizes * (size_t)(n_ins + 1));
  if (!sizes) {
    free_attrs(attrs, n_attrs);
    TFC_OOM(s);
    return NULL;
  }
  int n_args = 0;
  for (int i = 0; i < n_ins;) {
    if (i == list_at) {
      sizes[n_args++] = list_len;
      i += list_len;
    } else {
      sizes[n_args++] = -1;
      i++;
    }
  }
  if (list_at == n_ins) sizes[n_args++] = 0;
  tfc_node *n = node_in(g, scope, type, name, ins, n_ins, sizes, n_args, attrs, n_attrs, ctrl, s);
  free(sizes);
  return n;
}

tfc_endpoint tfc_grad_op_lists(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                               int n_lists, int list_len) {
  int sizes[8];
  if (n_lists > 8) {
    tfc_status_set(c->s, TFC_INTERNAL, "gradient node %s: %d list args", type, n_lists);
    return tfc_grad_none();
  }
  for (int k = 0; k < n_lists; k++) sizes[k] = list_len;
  tfc_endpoint e = {node_in(c->g, c->scope, type, name, ins, n_lists * list_len, sizes, n_lists, NULL, 0, NULL, c->s),
                    0};
  return e;
}

tfc_node *tfc_grad_node(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                        int n_ins, int list_at, int list_len, tfc_grad_attr *attrs, int n_attrs,
                        tfc_node *ctrl) {
  return tfc_grad_node_in(c->g, c->scope, type, name, ins, n_ins, list_at, list_len, attrs, n_attrs, ctrl,
                          c->s);
}

tfc_endpoint tfc_grad_op(tfc_grad_ctx *c, const char *type, const char *name, const tfc_endpoint *ins,
                         int n_ins, tfc_grad_attr *attrs, int n_attrs) {
  tfc_endpoint e = {tfc_grad_node(c, type, name, ins, n_ins, -1, 0, attrs, n_attrs, NULL), 0};
  return e;
}

tfc_endpoint tfc_grad_unary(tfc_grad_ctx *c, const char *type, const char *name, tfc_endpoint a) {
  return tfc_grad_op(c, type, name, &a, 1, NULL, 0);
}

tfc_endpoint tfc_grad_binary(tfc_grad_ctx *c, const char *type, const char *name, tfc_endpoint a,
                             tfc_endpoint b) {
  tfc_endpoint ins[2] = {a, b};
  return tfc_grad_op(c, type, name, ins, 2, NULL, 0);
}

/* Writes v as one element of dtype; 0 when the dtype has no conversion here. */
static int put_scalar(int dtype, double v, void *out) {
  switch (dtype) {
    case TFC_DT_FLOAT: *(float *)out = (float)v; return 1;
    case TFC_DT_DOUBLE: *(double *)out = v; return 1;
    case TFC_DT_INT32: *(int32_t *)out = (int32_t)v; return 1;
    case TFC_DT_INT64: *(int64_t *)out = (int64_t)v; return 1;
    case TFC_DT_INT16: *(int16_t *)out = (int16_t)v; return 1;
    case TFC_DT_INT8: *(int8_t *)out = (int8_t)v; return 1;
    case TFC_DT_UINT8: *(uint8_t *)out = (uint8_t)v; return 1;
    case TFC_DT_UINT16: *(uint16_t *)out = (uint16_t)v; return 1;
    case TFC_DT_HALF: *(uint16_t *)out = tfc_float_to_half((float)v); return 1;
    case TFC_DT_BFLOAT16: *(uint16_t *)out = tfc_float_to_bfloat16((float)v); return 1;
    case TFC_DT_COMPLEX64: ((float *)out)[0] = (float)v; ((float *)out)[1] = 0; return 1;
    case TFC_DT_COMPLEX128: ((double *)out)[0] = v; ((double *)out)[1] = 0; return 1;
    default: return 0;
  }
}

static tfc_endpoint const_node(tfc_graph *g, const char *scope, const char *name, tfc_tensor *t,
                               tfc_node *ctrl, tfc_status *s) {
  tfc_grad_attr attrs[2] = {{"dtype", tfc_attr_type(t->dtype)}, {"value", tfc_attr_tensor(t)}};
  tfc_endpoint e = {tfc_grad_node_in(g, scope, "Const", name ? name : "Const", NULL, 0, -1, 0, attrs, 2, ctrl, s), 0};
  return e;
}

static tfc_endpoint const_scalar_in(tfc_graph *g, const char *scope, const char *name, int dtype, double v,
                                    tfc_node *ctrl, tfc_status *s) {
  if (!tfc_status_ok(s)) return tfc_grad_none();
  unsigned char buf[16];
  if (!put_scalar(dtype, v, buf)) {
    tfc_status_set(s, TFC_UNIMPLEMENTED, "gradients: no constant of type %s", tfc_dtype_name(dtype));
    return tfc_grad_none();
  }
  tfc_tensor *t = tfc_tensor_scalar(dtype, buf, s);
  if (!t) return tfc_grad_none();
  return const_node(g, scope, name, t, ctrl, s);
}

tfc_endpoint tfc_grad_const_scalar(tfc_grad_ctx *c, const char *name, int dtype, double v, tfc_node *ctrl) {
  return const_scalar_in(c->g, c->scope, name, dtype, v, ctrl, c->s);
}

tfc_endpoint tfc_grad_const_scalar_in(tfc_graph *g, const char *scope, const char *name, int dtype, double v,
                                      tfc_status *s) {
  return const_scalar_in(g, scope, name, dtype, v, NULL, s);
}

tfc_endpoint tfc_grad_const_ivec(tfc_grad_ctx *c, const char *name, const int64_t *v, int n) {
  if (!tfc_grad_ok(c)) return tfc_grad_none();
  int64_t dim = n;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT32, &dim, 1, c->s);
  if (!t) return tfc_grad_none();
  for (int i = 0; i < n; i++) ((int32_t *)t->data)[i] = (int32_t)v[i];
  return const_node(c->g, c->scope, name, t, NULL, c->s);
}

tfc_endpoint tfc_grad_shape(tfc_grad_ctx *c, tfc_endpoint x) { return tfc_grad_unary(c, "Shape", NULL, x); }

tfc_endpoint tfc_grad_reshape(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint shape) {
  return tfc_grad_binary(c, "Reshape", NULL, x, shape);
}

tfc_endpoint tfc_grad_sum(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint axes) {
  return tfc_grad_binary(c, "Sum", NULL, x, axes);
}

tfc_endpoint tfc_grad_cast(tfc_grad_ctx *c, tfc_endpoint x, int dtype) {
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("DstT", dtype)};
  return tfc_grad_op(c, "Cast", NULL, &x, 1, a, 1);
}

void tfc_grad_bcast_args(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint y, tfc_grad_bcast *out) {
  out->sx = tfc_grad_shape(c, x);
  out->sy = tfc_grad_shape(c, y);
  tfc_endpoint ins[2] = {out->sx, out->sy};
  tfc_node *n = tfc_grad_node(c, "BroadcastGradientArgs", NULL, ins, 2, -1, 0, NULL, 0, NULL);
  out->rx = (tfc_endpoint){n, 0};
  out->ry = (tfc_endpoint){n, 1};
}

tfc_endpoint tfc_grad_bcast_reduce(tfc_grad_ctx *c, tfc_endpoint g, tfc_endpoint r, tfc_endpoint shape) {
  return tfc_grad_reshape(c, tfc_grad_sum(c, g, r), shape);
}

tfc_endpoint tfc_grad_const_vec(tfc_grad_ctx *c, const char *name, int dtype, const int64_t *v, int n) {
  if (dtype != TFC_DT_INT64) return tfc_grad_const_ivec(c, name, v, n);
  if (!tfc_grad_ok(c)) return tfc_grad_none();
  int64_t dim = n;
  tfc_tensor *t = tfc_tensor_new(TFC_DT_INT64, &dim, 1, c->s);
  if (!t) return tfc_grad_none();
  for (int i = 0; i < n; i++) ((int64_t *)t->data)[i] = v[i];
  return const_node(c->g, c->scope, name, t, NULL, c->s);
}

tfc_endpoint tfc_grad_shape_opt(tfc_grad_ctx *c, tfc_endpoint x, int out_type) {
  if (!tfc_grad_ok(c)) return tfc_grad_none();
  const tfc_shape *s = tfc_grad_static_shape(x);
  if (tfc_shape_fully_defined(s)) return tfc_grad_const_vec(c, "Shape", out_type, s->dims, s->rank);
  tfc_grad_attr a[1] = {TFC_GRAD_ATTR_TYPE("out_type", out_type)};
  return tfc_grad_op(c, "Shape", NULL, &x, 1, a, 1);
}

tfc_endpoint tfc_grad_rank_opt(tfc_grad_ctx *c, tfc_endpoint x) {
  if (!tfc_grad_ok(c)) return tfc_grad_none();
  const tfc_shape *s = tfc_grad_static_shape(x);
  if (s->rank >= 0) return tfc_grad_const_scalar(c, "Rank", TFC_DT_INT32, s->rank, NULL);
  return tfc_grad_unary(c, "Rank", NULL, x);
}

tfc_endpoint tfc_grad_size_opt(tfc_grad_ctx *c, tfc_endpoint x) {
  if (!tfc_grad_ok(c)) return tfc_grad_none();
  const tfc_shape *s = tfc_grad_static_shape(x);
  if (tfc_shape_fully_defined(s))
    return tfc_grad_const_scalar(c, "Size", TFC_DT_INT32, (double)tfc_shape_num_elements(s), NULL);
  return tfc_grad_unary(c, "Size", NULL, x);
}

tfc_endpoint tfc_grad_vec_slice(tfc_grad_ctx *c, tfc_endpoint x, tfc_endpoint b, tfc_endpoint e,
                                int begin_mask, int end_mask, int shrink) {
  int64_t one = 1;
  tfc_endpoint ins[4] = {x, b, e, tfc_grad_const_vec(c, "strided_slice/stack_2", tfc_grad_dtype(b), &one, 1)};
  tfc_grad_attr a[3] = {TFC_GRAD_ATTR_INT("begin_mask", begin_mask), TFC_GRAD_ATTR_INT("end_mask", end_mask),
                        TFC_GRAD_ATTR_INT("shrink_axis_mask", shrink)};
  return tfc_grad_op(c, "StridedSlice", "strided_slice", ins, 4, a, 3);
}
