/* shape_eval — see shape_eval.h. */
#include "graph/shape_eval.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/kernel.h"

/* Partial shapes nest (a Concat of Casts of slices ...); deeper chains are read as unknown. */
#define MAX_PARTIAL_DEPTH 64

static int is_int_dtype(int dt) { return dt == TFC_DT_INT32 || dt == TFC_DT_INT64; }

static const tfc_shape *out_shape(tfc_endpoint e) { return &e.node->output_shapes[e.index]; }
static const tfc_shape *in_shape(const tfc_node *n, int i) { return out_shape(n->inputs[i]); }

/* An int32/int64 tensor of n values (a vector, or a scalar when scalar). NULL on failure. */
static tfc_tensor *int_tensor(int dtype, const int64_t *v, int n, int scalar) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t dims[1] = {n};
  tfc_tensor *t = tfc_tensor_new(dtype == TFC_DT_INT64 ? TFC_DT_INT64 : TFC_DT_INT32, dims, scalar ? 0 : 1, &s);
  tfc_status_fini(&s);
  if (!t) return NULL;
  for (int i = 0; i < n; i++) {
    if (t->dtype == TFC_DT_INT64)
      ((int64_t *)t->data)[i] = v[i];
    else
      ((int32_t *)t->data)[i] = (int32_t)v[i];
  }
  return t;
}

static int attr_int_is(const tfc_node *n, const char *name, int64_t want) {
  int64_t v;
  return tfc_node_attr_int(n, name, &v) == 0 && v == want;
}

/* The value of a Const node holding one int32/int64 element; 0 when n is not one. */
static int const_int(const tfc_node *n, int64_t *out) {
  if (n->op->id != TFC_OP_Const) return 0;
  const tfc_attr_value *v = tfc_node_attr(n, "value");
  if (!v || v->kind != TFC_ATTR_TENSOR || !is_int_dtype(v->u.tensor->dtype) || v->u.tensor->n_elems != 1) return 0;
  *out = tfc_tensor_get_i64(v->u.tensor, 0);
  return 1;
}

tfc_tensor *tfc_shape_eval_known(tfc_endpoint e) {
  const tfc_node *p = e.node;
  if (p->op->id == TFC_OP_Const) {
    const tfc_attr_value *v = tfc_node_attr(p, "value");
    return v && v->kind == TFC_ATTR_TENSOR ? tfc_tensor_ref(v->u.tensor) : NULL;
  }
  if (p->n_inputs == 0 || e.index >= p->n_outputs) return NULL;
  int dt = tfc_dtype_base(p->output_types[e.index]);
  if (!is_int_dtype(dt)) return NULL;
  const tfc_shape *sh = in_shape(p, 0);
  switch (p->op->id) {
    case TFC_OP_Shape:
      return tfc_shape_fully_defined(sh) ? int_tensor(dt, sh->dims, sh->rank, 0) : NULL;
    case TFC_OP_Rank: {
      int64_t r = sh->rank;
      return sh->rank >= 0 ? int_tensor(dt, &r, 1, 1) : NULL;
    }
    case TFC_OP_Size: {
      int64_t n = tfc_shape_num_elements(sh);
      return tfc_shape_fully_defined(sh) ? int_tensor(dt, &n, 1, 1) : NULL;
    }
    default:
      break;
  }
  /* tf.shape(x)[ix] or tf.unstack(tf.shape(x))[ix] with x's dim ix known. */
  const tfc_node *src = p->inputs[0].node;
  if (src->op->id != TFC_OP_Shape || src->n_inputs < 1) return NULL;
  const tfc_shape *x = in_shape(src, 0);
  int64_t ix;
  if (p->op->id == TFC_OP_Unpack) {
    if (!attr_int_is(p, "axis", 0)) return NULL;
    ix = e.index;
  } else if (p->op->id == TFC_OP_StridedSlice) {
    if (!attr_int_is(p, "begin_mask", 0) || !attr_int_is(p, "end_mask", 0) || !attr_int_is(p, "ellipsis_mask", 0) ||
        !attr_int_is(p, "new_axis_mask", 0) || !attr_int_is(p, "shrink_axis_mask", 1) || p->n_inputs < 2 ||
        !const_int(p->inputs[1].node, &ix))
      return NULL;
  } else {
    return NULL;
  }
  if (x->rank < 0 || ix < -x->rank || ix >= x->rank) return NULL;
  int64_t d = x->dims[ix < 0 ? ix + x->rank : ix];
  return d >= 0 ? int_tensor(dt, &d, 1, 1) : NULL;
}

/* ---- constant subgraphs ---- */

/* The structural part of TF's rule for running n to fold it: stateless, not a placeholder or
 * control flow, no function attrs, no reference/resource/variant edges. */
static int structurally_evaluable(const tfc_node *n) {
  const tfc_opdef *op = n->op;
  if (op->id == TFC_OP_Const) return 1;
  if (op->id >= TFC_OP_COUNT || (op->flags & (TFC_OPF_STATEFUL | TFC_OPF_INTERNAL)) || n->n_inputs == 0 ||
      op->id == TFC_OP_PlaceholderWithDefault || tfc_node_is_control_flow(n))
    return 0;
  for (int i = 0; i < n->n_attrs; i++) {
    const tfc_attr_value *v = &n->attrs[i].value;
    if (v->kind == TFC_ATTR_FUNC) return 0;
    if (v->kind == TFC_ATTR_LIST)
      for (int j = 0; j < v->u.list.n; j++)
        if (v->u.list.items[j].kind == TFC_ATTR_FUNC) return 0;
  }
  for (int i = 0; i < n->n_inputs; i++) {
    int t = n->input_types[i];
    if (tfc_dtype_is_ref(t) || tfc_dtype_base(t) == TFC_DT_RESOURCE || tfc_dtype_base(t) == TFC_DT_VARIANT) return 0;
  }
  for (int i = 0; i < n->n_outputs; i++) {
    int t = n->output_types[i];
    if (tfc_dtype_is_ref(t) || tfc_dtype_base(t) == TFC_DT_RESOURCE || tfc_dtype_base(t) == TFC_DT_VARIANT) return 0;
  }
  return 1;
}

/* Whether TF would run n to fold it: the structural rule and a synchronous CPU kernel. */
static int evaluable(const tfc_kernel_table *kt, const tfc_node *n) {
  if (n->no_fold || !structurally_evaluable(n)) return 0;
  if (n->op->id == TFC_OP_Const) return 1;
  const tfc_kernel_def *k = tfc_kernel_find(kt, n, NULL);
  return k && k->compute && !(k->flags & (TFC_KF_ASYNC | TFC_KF_BLOCKING | TFC_KF_SHARED_STATE));
}

int tfc_shape_eval_never_known(const tfc_node *n) {
  switch (n->op->id) {
    case TFC_OP_Const: case TFC_OP_Shape: case TFC_OP_ShapeN: case TFC_OP_Size: case TFC_OP_Rank:
      return 0; /* known by value or by shapes, which may be refined later */
    case TFC_OP_StridedSlice: case TFC_OP_Unpack:
      if (n->n_inputs > 0 && n->inputs[0].node->op->id == TFC_OP_Shape) return 0;
      break;
    default:
      break;
  }
  if (!structurally_evaluable(n)) return 1;
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i].node->no_fold) return 1;
  return 0;
}

/* One node of the subgraph: its output values as far as known, and whether it is run. */
typedef struct entry {
  const tfc_node *n;
  tfc_tensor **outs;
  int run;
} entry;

typedef struct subgraph {
  entry *ents;
  int n_ents, cap_ents;
  int *slots; /* open addressing over node ids: index into ents, -1 empty */
  int n_slots;
  tfc_endpoint *work;
  int n_work, cap_work;
} subgraph;

static void subgraph_fini(subgraph *g) {
  for (int i = 0; i < g->n_ents; i++) {
    for (int j = 0; j < g->ents[i].n->n_outputs; j++) tfc_tensor_unref(g->ents[i].outs[j]);
    free(g->ents[i].outs);
  }
  free(g->ents);
  free(g->slots);
  free(g->work);
}

static int rehash(subgraph *g, int n_slots) {
  int *s = malloc(sizeof *s * (size_t)n_slots);
  if (!s) return -1;
  for (int i = 0; i < n_slots; i++) s[i] = -1;
  for (int i = 0; i < g->n_ents; i++) {
    unsigned h = (unsigned)g->ents[i].n->id * 2654435761u & (unsigned)(n_slots - 1);
    while (s[h] >= 0) h = (h + 1) & (unsigned)(n_slots - 1);
    s[h] = i;
  }
  free(g->slots);
  g->slots = s;
  g->n_slots = n_slots;
  return 0;
}

/* The entry of n, or NULL. */
static entry *entry_find(const subgraph *g, const tfc_node *n) {
  if (!g->n_slots) return NULL;
  unsigned h = (unsigned)n->id * 2654435761u & (unsigned)(g->n_slots - 1);
  for (; g->slots[h] >= 0; h = (h + 1) & (unsigned)(g->n_slots - 1))
    if (g->ents[g->slots[h]].n == n) return &g->ents[g->slots[h]];
  return NULL;
}

/* The entry of n, added when absent (earlier entry pointers then move); NULL on out of memory. */
static entry *entry_of(subgraph *g, const tfc_node *n) {
  entry *found = entry_find(g, n);
  if (found) return found;
  if (g->n_ents == g->cap_ents) {
    int cap = g->cap_ents ? g->cap_ents * 2 : 16;
    entry *e = realloc(g->ents, sizeof *e * (size_t)cap);
    if (!e) return NULL;
    g->ents = e;
    g->cap_ents = cap;
  }
  entry *e = &g->ents[g->n_ents];
  e->n = n;
  e->run = 0;
  e->outs = calloc((size_t)(n->n_outputs ? n->n_outputs : 1), sizeof *e->outs);
  if (!e->outs) return NULL;
  g->n_ents++;
  if (g->n_ents * 2 > g->n_slots) {
    if (rehash(g, g->n_slots ? g->n_slots * 2 : 64)) {
      free(e->outs);
      g->n_ents--;
      return NULL;
    }
  } else {
    unsigned h = (unsigned)n->id * 2654435761u & (unsigned)(g->n_slots - 1);
    while (g->slots[h] >= 0) h = (h + 1) & (unsigned)(g->n_slots - 1);
    g->slots[h] = g->n_ents - 1;
  }
  return e;
}

static int push_inputs(subgraph *g, const tfc_node *n) {
  if (g->n_work + n->n_inputs > g->cap_work) {
    int cap = (g->n_work + n->n_inputs) * 2 + 16;
    tfc_endpoint *w = realloc(g->work, sizeof *w * (size_t)cap);
    if (!w) return -1;
    g->work = w;
    g->cap_work = cap;
  }
  for (int i = 0; i < n->n_inputs; i++) g->work[g->n_work++] = n->inputs[i];
  return 0;
}

static int by_id(const void *a, const void *b) {
  const entry *x = *(entry *const *)a, *y = *(entry *const *)b;
  return (x->n->id > y->n->id) - (x->n->id < y->n->id);
}

tfc_tensor *tfc_shape_eval_tensor(tfc_endpoint e) {
  tfc_tensor *t = tfc_shape_eval_known(e);
  if (t) return t;
  tfc_status s;
  tfc_status_init(&s);
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(&s);
  tfc_status_fini(&s);
  if (!kt || !evaluable(kt, e.node)) return NULL;
  subgraph g = {0};
  entry **order = NULL;
  entry *target = entry_of(&g, e.node);
  int ok = target && push_inputs(&g, e.node) == 0;
  if (target) target->run = 1;
  /* Collect: every input is either known without running anything, or a node to run. */
  while (ok && g.n_work > 0) {
    tfc_endpoint in = g.work[--g.n_work];
    entry *x = entry_of(&g, in.node);
    if (!x) ok = 0;
    else if (x->run || x->outs[in.index]) continue;
    else if ((x->outs[in.index] = tfc_shape_eval_known(in))) continue;
    else if (!evaluable(kt, in.node) || push_inputs(&g, in.node)) ok = 0;
    else x->run = 1;
  }
  /* Run in id order (a node's inputs were made before it; loops need Merge, never run). */
  int n_run = 0;
  if (ok && (order = malloc(sizeof *order * (size_t)g.n_ents)))
    for (int i = 0; i < g.n_ents; i++)
      if (g.ents[i].run) order[n_run++] = &g.ents[i];
  if (!order) ok = 0;
  if (ok) qsort(order, (size_t)n_run, sizeof *order, by_id);
  for (int i = 0; ok && i < n_run; i++) {
    const tfc_node *n = order[i]->n;
    tfc_tensor *in_small[8], *out_small[8];
    tfc_tensor **ins = n->n_inputs <= 8 ? in_small : calloc((size_t)n->n_inputs, sizeof *ins);
    tfc_tensor **outs = n->n_outputs <= 8 ? out_small : calloc((size_t)n->n_outputs, sizeof *outs);
    ok = ins && outs;
    for (int j = 0; ok && j < n->n_inputs; j++) {
      entry *x = entry_find(&g, n->inputs[j].node);
      ok = x && (ins[j] = x->outs[n->inputs[j].index]) != NULL;
    }
    if (ok) {
      tfc_status_init(&s);
      ok = tfc_kernel_run_host(tfc_kernel_find(kt, n, NULL), n, ins, outs, &s) == TFC_OK;
      tfc_status_fini(&s);
    }
    for (int j = 0; ok && j < n->n_outputs; j++) {
      tfc_tensor_unref(order[i]->outs[j]);
      order[i]->outs[j] = outs[j];
    }
    if (ins && ins != in_small) free(ins);
    if (outs && outs != out_small) free(outs);
  }
  if (ok) t = tfc_tensor_ref(g.ents[0].outs[e.index]); /* the target's entry, made first */
  free(order);
  subgraph_fini(&g);
  return t;
}

/* ---- partial shapes ---- */

static int int_scalar(tfc_endpoint e, int64_t *v) {
  tfc_tensor *t = tfc_shape_eval_tensor(e);
  int ok = t && is_int_dtype(t->dtype) && t->n_elems == 1;
  if (ok) *v = tfc_tensor_get_i64(t, 0);
  tfc_tensor_unref(t);
  return ok;
}

/* TF's Subshape of s (rank known) from start to end by stride, with its errors. */
static int subshape(const tfc_shape *s, int64_t start, int64_t end, int64_t stride, tfc_shape *out,
                    tfc_status *st) {
  int64_t start_in = start, end_in = end, rank = s->rank;
  if (start == 0 && stride == 1 && end >= rank) {
    *out = *s;
    return TFC_OK;
  }
  if (start > rank) start = rank;
  if (end > rank) end = rank;
  if (stride < 0 && start == rank) --start;
  if (start < 0 && (start += rank) < 0)
    return tfc_status_set(st, TFC_INVALID_ARGUMENT, "Subshape start out of bounds: %lld, for shape with rank %lld",
                          (long long)start_in, (long long)rank);
  if (end < 0 && (end += rank) < 0)
    return tfc_status_set(st, TFC_INVALID_ARGUMENT, "Subshape end out of bounds: %lld, for shape with rank %lld",
                          (long long)end_in, (long long)rank);
  if (stride > 0 && start > end)
    return tfc_status_set(st, TFC_INVALID_ARGUMENT,
                          "Subshape must have computed start <= end, but is %lld and %lld (computed from start "
                          "%lld and end %lld over shape with rank %lld)",
                          (long long)start, (long long)end, (long long)start_in, (long long)end_in, (long long)rank);
  if (stride < 0 && start < end)
    return tfc_status_set(st, TFC_INVALID_ARGUMENT,
                          "Subshape must have computed start >= end since stride is negative, but is %lld and "
                          "%lld (computed from start %lld and end %lld over shape with rank %lld and stride%lld)",
                          (long long)start, (long long)end, (long long)start_in, (long long)end_in, (long long)rank,
                          (long long)stride);
  out->rank = 0;
  for (int64_t i = start; stride > 0 ? i < end : i > end; i += stride) out->dims[out->rank++] = s->dims[i];
  return TFC_OK;
}

static int partial(tfc_endpoint e, tfc_shape *out, tfc_status *s, int depth);

/* TF's PartialStridedSliceShape: a StridedSlice of a shape vector, one begin/end/stride. */
static int partial_strided_slice(const tfc_node *n, tfc_shape *out, tfc_status *s, int depth) {
  *out = tfc_shape_unknown();
  for (int i = 1; i <= 3; i++) {
    const tfc_shape *b = in_shape(n, i);
    if (b->rank < 1 || b->dims[0] != 1) return TFC_OK;
  }
  int64_t bm = 0, em = 0, elm = 0, nam = 0, sam = 0;
  tfc_node_attr_int(n, "begin_mask", &bm);
  tfc_node_attr_int(n, "end_mask", &em);
  tfc_node_attr_int(n, "ellipsis_mask", &elm);
  tfc_node_attr_int(n, "new_axis_mask", &nam);
  tfc_node_attr_int(n, "shrink_axis_mask", &sam);
  if ((bm != 0 && bm != 1) || (em != 0 && em != 1) || elm || nam || sam) return TFC_OK;
  int64_t begin = 0, end = INT64_MAX, stride;
  if (!bm && !int_scalar(n->inputs[1], &begin)) return TFC_OK;
  if (!em && !int_scalar(n->inputs[2], &end)) return TFC_OK;
  if (!int_scalar(n->inputs[3], &stride)) return TFC_OK;
  tfc_shape in;
  TFC_TRY(partial(n->inputs[0], &in, s, depth + 1));
  if (in.rank < 0) {
    /* TF's Subshape keeps an unknown shape as is when it takes the whole of it */
    return TFC_OK;
  }
  return subshape(&in, begin, end, stride, out, s);
}

static int partial(tfc_endpoint e, tfc_shape *out, tfc_status *s, int depth) {
  const tfc_shape *src = out_shape(e);
  const tfc_node *n = e.node;
  *out = tfc_shape_unknown();
  if (depth > MAX_PARTIAL_DEPTH) return TFC_OK;
  if (src->rank == 0) {
    /* The scalar -1 stands for an unknown shape. */
    tfc_tensor *t = tfc_shape_eval_tensor(e);
    int64_t v = t && is_int_dtype(t->dtype) && t->n_elems == 1 ? tfc_tensor_get_i64(t, 0) : 0;
    tfc_tensor_unref(t);
    if (!t)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Received a shape scalar with unknown static value.  A static value of '-1' is "
                            "required to represent an unknown shape.");
    if (v != -1)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Received an invalid shape scalar with a static value that is not '-1': %lld",
                            (long long)v);
    return TFC_OK;
  }
  if (src->rank > 1) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape must be rank 1 but is rank %d", src->rank);
  if (src->rank == 1 && src->dims[0] == 0) {
    *out = tfc_shape_scalar();
    return TFC_OK;
  }
  switch (n->op->id) {
    case TFC_OP_Cast: {
      tfc_tensor *t = tfc_shape_eval_tensor(e);
      if (t) {
        tfc_status drop;
        tfc_status_init(&drop);
        int r = tfc_shape_from_value(t, out, &drop);
        tfc_status_fini(&drop);
        tfc_tensor_unref(t);
        if (r == TFC_OK) return TFC_OK;
        *out = tfc_shape_unknown();
      }
      tfc_shape pre;
      tfc_status drop;
      tfc_status_init(&drop);
      int r = partial(n->inputs[0], &pre, &drop, depth + 1);
      tfc_status_fini(&drop);
      if (r != TFC_OK || pre.rank < 0) return TFC_OK;
      int dst = 0;
      tfc_node_attr_type(n, "DstT", &dst);
      if (!is_int_dtype(dst))
        for (int i = 0; i < pre.rank; i++) pre.dims[i] = -1;
      *out = pre;
      return TFC_OK;
    }
    case TFC_OP_Shape:
      *out = *in_shape(n, 0);
      return TFC_OK;
    case TFC_OP_ShapeN:
      *out = *in_shape(n, e.index);
      return TFC_OK;
    case TFC_OP_Pack:
      if (n->n_inputs > TFC_MAX_DIMS) return TFC_OK;
      out->rank = n->n_inputs;
      for (int i = 0; i < n->n_inputs; i++) {
        int64_t v;
        out->dims[i] = int_scalar(n->inputs[i], &v) && v >= 0 ? v : -1;
      }
      return TFC_OK;
    case TFC_OP_Concat:
    case TFC_OP_ConcatV2: {
      int axis = n->op->id == TFC_OP_Concat ? 0 : n->n_inputs - 1;
      tfc_shape all = tfc_shape_scalar();
      for (int i = 0; i < n->n_inputs; i++) {
        if (i == axis) continue;
        tfc_shape piece;
        TFC_TRY(partial(n->inputs[i], &piece, s, depth + 1));
        if (piece.rank < 0 || all.rank + piece.rank > TFC_MAX_DIMS) return TFC_OK;
        memcpy(all.dims + all.rank, piece.dims, sizeof *piece.dims * (size_t)piece.rank);
        all.rank += piece.rank;
      }
      *out = all;
      return TFC_OK;
    }
    case TFC_OP_StridedSlice:
      return partial_strided_slice(n, out, s, depth);
    default: {
      tfc_tensor *t = tfc_shape_eval_tensor(e);
      if (t) {
        int r = tfc_shape_from_value(t, out, s);
        tfc_tensor_unref(t);
        return r;
      }
      if (src->rank == 1 && src->dims[0] >= 0 && src->dims[0] <= TFC_MAX_DIMS) {
        out->rank = (int)src->dims[0];
        for (int i = 0; i < out->rank; i++) out->dims[i] = -1;
      }
      return TFC_OK;
    }
  }
}

int tfc_shape_eval_partial(tfc_endpoint e, tfc_shape *out, tfc_status *s) { return partial(e, out, s, 0); }
