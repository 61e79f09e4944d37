/*
 * kernels_list — CPU kernels of the TensorList ops (ops/ops_list.def) and of ZerosLike and AddN
 * on lists, over tensor/tensor_list.h.
 *
 * Every op that returns a changed list works on tfc_tensor_list_for_write: inside a loop the
 * list tensor reaches the op with a single reference (Enter, Merge, Switch and Identity pass
 * the same tensor on), so SetItem and PushBack change it in place and hand the same tensor on;
 * when the input is shared they copy the item array and share the element tensors, as TF's
 * kernels forward or copy theirs. GetItem and PopBack hand out the element tensor itself;
 * FromTensor makes its elements views into the input's buffer (tfc_tensor_view) when the rows
 * are 64-byte aligned (kernels may assume aligned data) and copies them otherwise. Reading an
 * uninitialized element gives zeros of the element shape, which must then be fully known from
 * the list, the op's element_shape input or the other elements.
 *
 * TensorListConcat(V2) joins the elements along dim 0 (an uninitialized one is zeros: its dim
 * 0 from leading_dims, else from the element shape when the list's and the set elements'
 * shapes agree on a full one); TensorListSplit cuts a tensor into views of its rows.
 *
 * Checks and their texts are TF's (list_kernels.{h,cc}), in TF's order. Element dtypes are any
 * fixed-size type; string elements are refused by the ops that move bytes (Stack, Gather,
 * FromTensor, Scatter, Concat, Split: UNIMPLEMENTED) and pass through the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "device/cpu/cpu_kernels.h"
#include "tensor/tensor_list.h"

/* Attrs parsed once per node. */
typedef struct list_state {
  int element_dtype;  /* 0 for ops without the attr (Length, Resize, ...) */
  int shape_type;     /* ElementShape's output type */
  int64_t num_elements; /* Stack: -1 or the expected length */
  int resize;         /* SetItem: resize_if_index_out_of_bounds */
  tfc_shape concat_shape; /* TensorListConcat's element_shape attr */
} list_state;

static int list_init(const tfc_node *n, void **state, tfc_status *s) {
  list_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  st->num_elements = -1;
  st->shape_type = TFC_DT_INT32;
  st->concat_shape = tfc_shape_unknown();
  const tfc_attr_value *cs = n->op->id == TFC_OP_TensorListConcat ? tfc_node_attr(n, "element_shape") : NULL;
  if (cs && cs->kind == TFC_ATTR_SHAPE && cs->u.shape) st->concat_shape = *cs->u.shape;
  if (tfc_node_attr(n, "element_dtype") && tfc_kernel_attr_type(n, "element_dtype", &st->element_dtype, s)) goto fail;
  if (tfc_node_attr(n, "shape_type") && tfc_kernel_attr_type(n, "shape_type", &st->shape_type, s)) goto fail;
  if (tfc_node_attr(n, "num_elements") && tfc_kernel_attr_int(n, "num_elements", &st->num_elements, s)) goto fail;
  if (tfc_node_attr(n, "resize_if_index_out_of_bounds") &&
      tfc_kernel_attr_bool(n, "resize_if_index_out_of_bounds", &st->resize, s))
    goto fail;
  *state = st;
  return TFC_OK;
fail:
  free(st);
  return s->code;
}

static void list_free(void *state) { free(state); }

/* ---- helpers ---- */

static tfc_tensor_list *in_list(tfc_kernel_ctx *c, int i) {
  tfc_tensor_list *l = tfc_tensor_list_from_tensor(c->inputs[i]);
  if (!l) {
    tfc_variant *v = tfc_variant_tensor_get(c->inputs[i]);
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input handle is not a list. Saw: '%s'",
                     v ? v->kind->type_name : "<unknown>");
  }
  return l;
}

static int check_dtype(tfc_kernel_ctx *c, const tfc_tensor_list *l, int dtype) {
  if (l->element_dtype == dtype) return TFC_OK;
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid data types; op elements %s but list elements %s",
                          tfc_dtype_name(dtype), tfc_dtype_name(l->element_dtype));
}

/* An element_shape input: a vector with -1 for unknown dims, or the scalar -1. */
static int shape_input(tfc_kernel_ctx *c, int i, tfc_shape *out) {
  const tfc_tensor *t = c->inputs[i];
  if (t->ndims == 0) {
    if (t->n_elems == 1 && tfc_tensor_get_i64(t, 0) == -1) {
      *out = tfc_shape_unknown();
      return TFC_OK;
    }
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "The only valid scalar shape tensor is the fully unknown shape specified as -1.");
  }
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape must be at most rank 1 but is rank %d", t->ndims);
  if (t->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape of rank %lld exceeds the maximum rank %d",
                            (long long)t->n_elems, TFC_MAX_DIMS);
  out->rank = (int)t->n_elems;
  for (int d = 0; d < out->rank; d++) {
    int64_t v = tfc_tensor_get_i64(t, d);
    if (v < -1) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Dimension %lld must be >= -1", (long long)v);
    out->dims[d] = v;
  }
  return TFC_OK;
}

/* A scalar int32 input (an index or a count). */
static int scalar_input(tfc_kernel_ctx *c, int i, const char *what, int64_t *out) {
  const tfc_tensor *t = c->inputs[i];
  if (t->ndims != 0) {
    char b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s expected to be a scalar but got shape: %s", what,
                            tfc_tensor_shape_str(t, b, sizeof b));
  }
  *out = tfc_tensor_get_i64(t, 0);
  return TFC_OK;
}

static int merge_error(tfc_kernel_ctx *c, const tfc_shape *a, const tfc_shape *b) {
  char x[TFC_SHAPE_STR_MAX], y[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "PartialTensorShape: Incompatible shapes during merge: %s vs. %s",
                          tfc_shape_str(a, x, sizeof x), tfc_shape_str(b, y, sizeof y));
}

/* The element shape an op reading l sees: its element_shape input (input i) merged with the
 * list's. */
static int op_element_shape(tfc_kernel_ctx *c, const tfc_tensor_list *l, int i, tfc_shape *out) {
  tfc_shape in;
  TFC_TRY(shape_input(c, i, &in));
  if (tfc_shape_merge(&in, &l->element_shape, out)) return merge_error(c, &in, &l->element_shape);
  return TFC_OK;
}

/* Merges the shapes of l's set elements into *es while it is not fully defined. */
static int merge_set_elements(tfc_kernel_ctx *c, const tfc_tensor_list *l, tfc_shape *es) {
  for (int64_t i = 0; i < l->n && !tfc_shape_fully_defined(es); i++) {
    if (!l->items[i]) continue;
    tfc_shape t = tfc_tensor_shape(l->items[i]), m;
    if (tfc_shape_merge(es, &t, &m)) return merge_error(c, es, &t);
    *es = m;
  }
  return TFC_OK;
}

/* Zeros of a fully defined element shape (a new reference). */
static tfc_tensor *zeros_of(tfc_kernel_ctx *c, int dtype, const tfc_shape *es) {
  return tfc_tensor_zeros(dtype, es->dims, es->rank, c->status);
}

/* what: TF's sentence, then how it names the item's shape ("Op element shape", ...). */
static int check_item_shape(tfc_kernel_ctx *c, const tfc_tensor_list *l, const tfc_tensor *t, const char *what,
                            const char *item) {
  tfc_shape ts = tfc_tensor_shape(t);
  if (tfc_shape_compatible(&l->element_shape, &ts)) return TFC_OK;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s %s: %s list shape: %s", what, item,
                          tfc_shape_str(&ts, a, sizeof a), tfc_shape_str(&l->element_shape, b, sizeof b));
}

static int refuse_strings(tfc_kernel_ctx *c, int dtype) {
  if (dtype != TFC_DT_STRING && dtype != TFC_DT_VARIANT) return TFC_OK;
  return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s of %s elements is not supported", c->node->op->name,
                          tfc_dtype_name(dtype));
}

static int set_list_output(tfc_kernel_ctx *c, int i, tfc_tensor_list *l) {
  tfc_tensor *t = tfc_tensor_list_tensor(l, c->status);
  if (!t) return c->status->code;
  tfc_kernel_set_output(c, i, t);
  return TFC_OK;
}

/* ---- making lists ---- */

static int empty_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  int64_t max = 0;
  tfc_shape es;
  TFC_TRY(scalar_input(c, 1, "max_num_elements", &max));
  TFC_TRY(shape_input(c, 0, &es));
  tfc_tensor_list *l = tfc_tensor_list_new(st->element_dtype, &es, max, 0, c->status);
  return l ? set_list_output(c, 0, l) : c->status->code;
}

static int reserve_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_shape es;
  TFC_TRY(shape_input(c, 0, &es));
  const tfc_tensor *nt = c->inputs[1];
  if (nt->ndims != 0) {
    char b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "The num_elements to reserve must be a tensor size 1, but got %s",
                            tfc_tensor_shape_str(nt, b, sizeof b));
  }
  int64_t n = tfc_tensor_get_i64(nt, 0);
  if (n < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "The num_elements to reserve must be a non negative number, but got %lld", (long long)n);
  tfc_tensor_list *l = tfc_tensor_list_new(st->element_dtype, &es, -1, n, c->status);
  return l ? set_list_output(c, 0, l) : c->status->code;
}

/* Rows [begin, begin + n) of t (rank >= 1) as a tensor [n, rest...], or with drop_dim row
 * `begin` alone as a tensor of the element shape: a view when it starts aligned, else a copy. */
static tfc_tensor *rows_of(tfc_kernel_ctx *c, tfc_tensor *t, int64_t begin, int64_t n, int drop_dim) {
  size_t row = t->dims[0] ? t->n_bytes / (size_t)t->dims[0] : 0;
  size_t off = row * (size_t)begin;
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->ndims);
  dims[0] = n;
  const int64_t *d = drop_dim ? dims + 1 : dims;
  int nd = drop_dim ? t->ndims - 1 : t->ndims;
  if (((uintptr_t)t->data + off) % TFC_ALIGN == 0) return tfc_tensor_view(t, off, d, nd, c->status);
  tfc_tensor *r = tfc_tensor_new(t->dtype, d, nd, c->status);
  if (r && r->n_bytes) memcpy(r->data, (const char *)t->data + off, r->n_bytes);
  return r;
}

static tfc_tensor *row_of(tfc_kernel_ctx *c, tfc_tensor *t, int64_t i) { return rows_of(c, t, i, 1, 1); }

static int from_tensor_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor *t = c->inputs[0];
  tfc_shape es;
  TFC_TRY(shape_input(c, 1, &es));
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (t->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: %s",
                            tfc_tensor_shape_str(t, a, sizeof a));
  tfc_shape rows = tfc_shape_make(t->dims + 1, t->ndims - 1);
  if (!tfc_shape_compatible(&es, &rows))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Specified a list with shape %s from a tensor with shape %s",
                            tfc_shape_str(&es, a, sizeof a), tfc_shape_str(&rows, b, sizeof b));
  TFC_TRY(refuse_strings(c, t->dtype));
  tfc_tensor_list *l = tfc_tensor_list_new(st->element_dtype, &es, -1, t->dims[0], c->status);
  if (!l) return c->status->code;
  for (int64_t i = 0; i < t->dims[0]; i++) {
    tfc_tensor *r = row_of(c, t, i);
    if (!r) {
      tfc_variant_unref(&l->base);
      return c->status->code;
    }
    l->items[i] = r;
  }
  return set_list_output(c, 0, l);
}

/* ---- reading lists ---- */

static int length_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  tfc_tensor *o = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!o) return c->status->code;
  *(int32_t *)o->data = (int32_t)l->n;
  return TFC_OK;
}

static int element_shape_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  const tfc_shape *es = &l->element_shape;
  int64_t len = es->rank;
  tfc_tensor *o = tfc_kernel_alloc_output(c, 0, st->shape_type, &len, es->rank < 0 ? 0 : 1);
  if (!o) return c->status->code;
  for (int d = 0; d < (es->rank < 0 ? 1 : es->rank); d++) {
    int64_t v = es->rank < 0 ? -1 : es->dims[d];
    if (st->shape_type == TFC_DT_INT32)
      ((int32_t *)o->data)[d] = (int32_t)v;
    else
      ((int64_t *)o->data)[d] = v;
  }
  return TFC_OK;
}

static int get_item_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  TFC_TRY(check_dtype(c, l, st->element_dtype));
  const tfc_tensor *it = c->inputs[1];
  int64_t i = it->n_elems ? tfc_tensor_get_i64(it, 0) : -1;
  if (i < 0 || i >= l->n)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to access element %lld in a list with %lld elements.",
                            (long long)i, (long long)l->n);
  if (l->items[i]) {
    tfc_kernel_set_output(c, 0, tfc_tensor_ref(l->items[i]));
    return TFC_OK;
  }
  tfc_shape es;
  TFC_TRY(op_element_shape(c, l, 2, &es));
  TFC_TRY(merge_set_elements(c, l, &es));
  if (!tfc_shape_fully_defined(&es)) {
    char b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Trying to read an uninitialized tensor but element_shape is not fully defined: %s and no "
                            "list element is set.",
                            tfc_shape_str(&es, b, sizeof b));
  }
  tfc_tensor *z = zeros_of(c, l->element_dtype, &es);
  if (!z) return c->status->code;
  tfc_kernel_set_output(c, 0, z);
  return TFC_OK;
}

/* Copies element tensors (or zeros for NULL ones) into rows of out, whose rows have the
 * shape `es` (fully defined); each set element must have that shape. */
typedef struct rows_job {
  tfc_tensor *const *items;
  const int32_t *idx; /* NULL: items in order */
  char *out;
  size_t row;
} rows_job;

static void rows_shard(int64_t begin, int64_t end, void *arg) {
  const rows_job *j = arg;
  for (int64_t r = begin; r < end; r++) {
    const tfc_tensor *t = j->items[j->idx ? j->idx[r] : r];
    if (t)
      memcpy(j->out + (size_t)r * j->row, t->data, j->row);
    else
      memset(j->out + (size_t)r * j->row, 0, j->row);
  }
}

static int gather_rows(tfc_kernel_ctx *c, tfc_tensor_list *l, const int32_t *idx, int64_t n, const tfc_shape *es) {
  TFC_TRY(refuse_strings(c, l->element_dtype));
  for (int64_t r = 0; r < n; r++) {
    const tfc_tensor *t = l->items[idx ? idx[r] : r];
    if (!t) continue;
    tfc_shape ts = tfc_tensor_shape(t);
    if (!tfc_shape_equal(&ts, es)) return merge_error(c, es, &ts);
  }
  int64_t dims[TFC_MAX_DIMS + 1];
  dims[0] = n;
  memcpy(dims + 1, es->dims, sizeof(int64_t) * (size_t)es->rank);
  tfc_tensor *o = tfc_kernel_alloc_output(c, 0, l->element_dtype, dims, es->rank + 1);
  if (!o) return c->status->code;
  rows_job j = {l->items, idx, o->data, n ? o->n_bytes / (size_t)n : 0};
  if (j.row) tfc_kernel_parallel_for(c, n, (int64_t)j.row / 4 + 1, rows_shard, &j);
  return TFC_OK;
}

static int stack_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  TFC_TRY(check_dtype(c, l, st->element_dtype));
  if (st->num_elements != -1 && st->num_elements != l->n)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Operation expected a list with %lld elements but got a list with %lld elements.",
                            (long long)st->num_elements, (long long)l->n);
  tfc_shape es;
  char b[TFC_SHAPE_STR_MAX];
  TFC_TRY(op_element_shape(c, l, 1, &es));
  if (!tfc_shape_fully_defined(&es) && l->n == 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Tried to stack elements of an empty list with non-fully-defined element_shape: %s",
                            tfc_shape_str(&es, b, sizeof b));
  TFC_TRY(merge_set_elements(c, l, &es));
  if (!tfc_shape_fully_defined(&es))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Tried to stack list which only contains uninitialized tensors and has a "
                            "non-fully-defined element_shape: %s",
                            tfc_shape_str(&es, b, sizeof b));
  return gather_rows(c, l, NULL, l->n, &es);
}

static int gather_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  TFC_TRY(check_dtype(c, l, st->element_dtype));
  const tfc_tensor *ix = c->inputs[1];
  const int32_t *idx = ix->data;
  char b[TFC_SHAPE_STR_MAX];
  tfc_shape es;
  TFC_TRY(op_element_shape(c, l, 2, &es));
  if (!tfc_shape_fully_defined(&es) && ix->n_elems == 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Tried to gather 0-elements from a list with non-fully-defined shape: %s",
                            tfc_shape_str(&es, b, sizeof b));
  for (int64_t r = 0; r < ix->n_elems; r++)
    if (idx[r] < 0 || idx[r] >= l->n)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Index %d out o range; list only has %lld elements.", idx[r],
                              (long long)l->n);
  /* Like TF, the shapes of the gathered elements complete the element shape. */
  for (int64_t r = 0; r < ix->n_elems && !tfc_shape_fully_defined(&es); r++) {
    const tfc_tensor *t = l->items[idx[r]];
    if (!t) continue;
    tfc_shape ts = tfc_tensor_shape(t), m;
    if (tfc_shape_merge(&es, &ts, &m)) return merge_error(c, &es, &ts);
    es = m;
  }
  if (!tfc_shape_fully_defined(&es))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Tried to gather uninitialized tensors from a list with non-fully-defined element_shape: %s",
                            tfc_shape_str(&es, b, sizeof b));
  return gather_rows(c, l, idx, ix->n_elems, &es);
}

/* ---- changing lists ---- */

static int set_item_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  tfc_tensor *item = c->inputs[2];
  TFC_TRY(check_dtype(c, l, item->dtype));
  const tfc_tensor *it = c->inputs[1];
  if (it->ndims != 0) {
    char b[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected argument 1 to be a scalar. ReceivedTensor<type: %s shape: %s>",
                            tfc_dtype_name(it->dtype), tfc_tensor_shape_str(it, b, sizeof b));
  }
  int64_t i = tfc_tensor_get_i64(it, 0);
  if (i < 0 || (i >= l->n && !st->resize))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to modify element %lld in a list with %lld elements.",
                            (long long)i, (long long)l->n);
  TFC_TRY(check_item_shape(c, l, item, "Tried to set a tensor with incompatible shape at a list index.",
                           "Item element shape"));
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(c->inputs[0], &out, c->status);
  if (!w) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  if (i >= w->n) TFC_TRY(tfc_tensor_list_resize(w, i + 1, c->status));
  tfc_tensor_list_set(w, i, tfc_tensor_ref(item));
  return TFC_OK;
}

static int push_back_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  tfc_tensor *item = c->inputs[1];
  TFC_TRY(check_dtype(c, l, item->dtype));
  TFC_TRY(check_item_shape(c, l, item, "Tried to append a tensor with incompatible shape to a list.",
                           "Op element shape"));
  /* TF lets any negative max_num_elements mean unlimited, not only -1 */
  if (l->max_num_elements >= 0 && l->n >= l->max_num_elements)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Tried to push item into a full list list size: %lld max_num_elements: %lld",
                            (long long)l->n, (long long)l->max_num_elements);
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(c->inputs[0], &out, c->status);
  if (!w) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return tfc_tensor_list_push(w, tfc_tensor_ref(item), c->status);
}

static int pop_back_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  TFC_TRY(check_dtype(c, l, st->element_dtype));
  if (l->n == 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to pop from an empty list.");
  tfc_tensor *item = l->items[l->n - 1];
  if (item) {
    tfc_tensor_ref(item);
  } else {
    tfc_shape es;
    TFC_TRY(op_element_shape(c, l, 1, &es));
    if (!tfc_shape_fully_defined(&es)) {
      char b[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Trying to read an uninitialized tensor but element_shape is not fully defined.%s",
                              tfc_shape_str(&es, b, sizeof b));
    }
    if (!(item = zeros_of(c, l->element_dtype, &es))) return c->status->code;
  }
  tfc_kernel_set_output(c, 1, item);
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(c->inputs[0], &out, c->status);
  if (!w) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return tfc_tensor_list_resize(w, w->n - 1, c->status);
}

static int resize_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  int64_t n;
  TFC_TRY(scalar_input(c, 1, "size", &n));
  if (n < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TensorListSlice expects size to be non-negative. Got: %lld",
                            (long long)n);
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(c->inputs[0], &out, c->status);
  if (!w) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return tfc_tensor_list_resize(w, n, c->status);
}

/* Puts row r of t at index idx[r] of w, growing it as needed. */
static int scatter_rows(tfc_kernel_ctx *c, tfc_tensor_list *w, tfc_tensor *t, const int32_t *idx) {
  for (int64_t r = 0; r < t->dims[0]; r++) {
    if (idx[r] >= w->n) TFC_TRY(tfc_tensor_list_resize(w, (int64_t)idx[r] + 1, c->status));
    tfc_tensor *row = row_of(c, t, r);
    if (!row) return c->status->code;
    tfc_tensor_list_set(w, idx[r], row);
  }
  return TFC_OK;
}

/* TensorListScatter (v2: with num_elements): a new list from rows of a tensor. */
static int scatter_new(tfc_kernel_ctx *c, int v2) {
  const list_state *st = c->state;
  tfc_tensor *t = c->inputs[0];
  const tfc_tensor *ix = c->inputs[1];
  tfc_shape es;
  TFC_TRY(shape_input(c, 2, &es));
  int64_t n = -1;
  if (v2) TFC_TRY(scalar_input(c, 3, "num_elements", &n));
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (t->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: %s",
                            tfc_tensor_shape_str(t, a, sizeof a));
  tfc_shape rows = tfc_shape_make(t->dims + 1, t->ndims - 1);
  if (!tfc_shape_compatible(&es, &rows))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Specified a list with shape %s from a tensor with shape %s",
                            tfc_shape_str(&es, a, sizeof a), tfc_shape_str(&rows, b, sizeof b));
  if (ix->n_elems != t->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid number of rows in input tensor. Expected: %lld Actual: %lld",
                            (long long)ix->n_elems, (long long)t->dims[0]);
  const int32_t *idx = ix->data;
  for (int64_t r = 0; r < ix->n_elems; r++)
    if (idx[r] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Indices in TensorListScatter must all be non-negative.");
  TFC_TRY(refuse_strings(c, t->dtype));
  tfc_tensor_list *l = tfc_tensor_list_new(st->element_dtype, &es, -1, n > 0 ? n : 0, c->status);
  if (!l) return c->status->code;
  if (scatter_rows(c, l, t, idx)) {
    tfc_variant_unref(&l->base);
    return c->status->code;
  }
  return set_list_output(c, 0, l);
}

static int scatter_compute(tfc_kernel_ctx *c) { return scatter_new(c, 0); }
static int scatter_v2_compute(tfc_kernel_ctx *c) { return scatter_new(c, 1); }

static int scatter_into_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  tfc_tensor *t = c->inputs[1];
  const tfc_tensor *ix = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (l->element_dtype != t->dtype)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid data types; input tensor type: %s list element_type: %s",
                            tfc_dtype_name(t->dtype), tfc_dtype_name(l->element_dtype));
  if (t->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: %s",
                            tfc_tensor_shape_str(t, a, sizeof a));
  if (ix->n_elems != t->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected len(indices) == tensor.shape[0], but saw: %lld vs. %lld",
                            (long long)ix->n_elems, (long long)t->dims[0]);
  tfc_shape rows = tfc_shape_make(t->dims + 1, t->ndims - 1);
  if (!tfc_shape_compatible(&l->element_shape, &rows))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Specified a list with shape %s from a tensor with shape %s",
                            tfc_shape_str(&l->element_shape, a, sizeof a), tfc_shape_str(&rows, b, sizeof b));
  const int32_t *idx = ix->data;
  for (int64_t r = 0; r < ix->n_elems; r++)
    if (idx[r] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Indices in TensorListScatter must all be non-negative.");
  TFC_TRY(refuse_strings(c, t->dtype));
  tfc_tensor *out;
  tfc_tensor_list *w = tfc_tensor_list_for_write(c->inputs[0], &out, c->status);
  if (!w) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return scatter_rows(c, w, t, idx);
}

/* ZerosLike of a list: the same length and metadata, each set element replaced by zeros of
 * its shape, uninitialized ones left so. */
static int zeros_like_list_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  tfc_tensor_list *z = tfc_tensor_list_new(l->element_dtype, &l->element_shape, l->max_num_elements, l->n, c->status);
  if (!z) return c->status->code;
  for (int64_t i = 0; i < l->n; i++) {
    const tfc_tensor *t = l->items[i];
    if (!t) continue;
    if (!(z->items[i] = tfc_tensor_zeros(t->dtype, t->dims, t->ndims, c->status))) {
      tfc_variant_unref(&z->base);
      return c->status->code;
    }
  }
  return set_list_output(c, 0, z);
}


/* ---- TensorListConcat(V2) and TensorListSplit: elements joined along / cut from dim 0 ---- */

/* v2: element_shape (input 1) and leading_dims (input 2, the dim 0 of each uninitialized
 * element) are inputs; v1: element_shape is an attr and there are no leading dims. */
static int concat_list(tfc_kernel_ctx *c, int v2) {
  const list_state *st = c->state;
  tfc_tensor_list *l = in_list(c, 0);
  if (!l) return c->status->code;
  TFC_TRY(check_dtype(c, l, st->element_dtype));
  TFC_TRY(refuse_strings(c, l->element_dtype));
  char a[TFC_SHAPE_STR_MAX];
  tfc_shape es = st->concat_shape, full, rest;
  const int64_t *lead = NULL;
  int64_t n_lead = 0;
  if (v2) {
    TFC_TRY(shape_input(c, 1, &es));
    const tfc_tensor *ld = c->inputs[2];
    lead = ld->data;
    n_lead = ld->n_elems;
    /* a known dim 0 in element_shape must be every set element's */
    if (es.rank > 0 && es.dims[0] >= 0)
      for (int64_t i = 0; i < l->n; i++) {
        const tfc_tensor *t = l->items[i];
        if (t && t->ndims > 0 && t->dims[0] != es.dims[0])
          return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                  "First entry of element_shape input does not match the first dim of list element at "
                                  "index: %lld Expected: %lld Actual: %lld",
                                  (long long)i, (long long)es.dims[0], (long long)t->dims[0]);
      }
  }
  /* full: the element shape the list, the op and every set element agree on (uninitialized
   * elements take it when it is fully known); rest: all but dim 0, which set elements may
   * differ in */
  tfc_shape base = v2 ? es : tfc_shape_unknown();
  if (tfc_shape_merge(&base, &l->element_shape, &full)) return merge_error(c, &base, &l->element_shape);
  int full_ok = 1;
  /* TensorListConcat (v1) takes all but dim 0 from its attr alone, not from the list */
  const tfc_shape *from = v2 ? &full : &es;
  rest = from->rank > 0 ? tfc_shape_make(from->dims + 1, from->rank - 1) : tfc_shape_unknown();
  if (full.rank == 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Concat requires elements to be at least vectors, found scalars instead.");
  if (l->n == 0 && !tfc_shape_fully_defined(&rest))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "All except the first dimension must be fully defined when concating an empty tensor list. "
                            "element_shape: %s",
                            tfc_shape_str(&full, a, sizeof a));
  int any_set = 0;
  for (int64_t i = 0; i < l->n; i++) {
    const tfc_tensor *t = l->items[i];
    if (!t) continue;
    any_set = 1;
    if (t->ndims == 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Concat saw a scalar shape at index %lld but requires at least vectors.",
                              (long long)i);
    tfc_shape tr = tfc_shape_make(t->dims + 1, t->ndims - 1), ts = tfc_tensor_shape(t), m;
    if (tfc_shape_merge(&rest, &tr, &m)) return merge_error(c, &rest, &tr);
    rest = m;
    if (full_ok && tfc_shape_merge(&full, &ts, &m) == 0)
      full = m;
    else
      full_ok = 0;
  }
  full_ok = full_ok && tfc_shape_fully_defined(&full);
  if (!tfc_shape_fully_defined(&rest)) {
    if (!any_set)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Trying to concat list with only uninitialized tensors but element_shape_except_first_dim "
                              "is not fully defined: %s",
                              tfc_shape_str(&rest, a, sizeof a));
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "element_shape_except_first_dim is not fully defined: %s",
                            tfc_shape_str(&rest, a, sizeof a));
  }
  /* lengths, then the output */
  int64_t nl = l->n, total = 0;
  tfc_tensor *lengths = tfc_kernel_alloc_output(c, 1, TFC_DT_INT64, &nl, 1);
  if (!lengths) return c->status->code;
  int64_t *len = lengths->data;
  for (int64_t i = 0; i < l->n; i++) {
    if (l->items[i])
      len[i] = l->items[i]->dims[0];
    else if (i < n_lead)
      len[i] = lead[i];
    else if (full_ok)
      len[i] = full.dims[0];
    else
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "List contains uninitialized tensor at index %lld but leading_dims has only %lld elements.",
                              (long long)i, (long long)n_lead);
    if (len[i] < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid leading dim %lld", (long long)len[i]);
    total += len[i];
  }
  if (rest.rank + 1 > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape of rank %d exceeds the maximum rank %d", rest.rank + 1,
                            TFC_MAX_DIMS);
  int64_t dims[TFC_MAX_DIMS];
  dims[0] = total;
  memcpy(dims + 1, rest.dims, sizeof(int64_t) * (size_t)rest.rank);
  tfc_tensor *o = tfc_kernel_alloc_output(c, 0, l->element_dtype, dims, rest.rank + 1);
  if (!o) return c->status->code;
  size_t row = (size_t)tfc_dims_num_elements(rest.dims, rest.rank) * tfc_dtype_size(l->element_dtype);
  char *dst = o->data;
  for (int64_t i = 0; i < l->n; i++) {
    size_t bytes = row * (size_t)len[i];
    if (l->items[i])
      memcpy(dst, l->items[i]->data, bytes);
    else
      memset(dst, 0, bytes);
    dst += bytes;
  }
  return TFC_OK;
}

static int concat_compute(tfc_kernel_ctx *c) { return concat_list(c, 0); }
static int concat_v2_compute(tfc_kernel_ctx *c) { return concat_list(c, 1); }

static int split_compute(tfc_kernel_ctx *c) {
  const list_state *st = c->state;
  tfc_tensor *t = c->inputs[0];
  const tfc_tensor *lt = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  tfc_shape es;
  TFC_TRY(shape_input(c, 1, &es));
  if (t->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: %s",
                            tfc_tensor_shape_str(t, a, sizeof a));
  tfc_shape ts = tfc_tensor_shape(t), piece = ts;
  piece.dims[0] = -1;
  if (!tfc_shape_compatible(&es, &piece))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "tensor shape %s is not compatible with element_shape %s",
                            tfc_shape_str(&ts, a, sizeof a), tfc_shape_str(&es, b, sizeof b));
  if (lt->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected lengths to be a vector, received shape: %s",
                            tfc_tensor_shape_str(lt, a, sizeof a));
  TFC_TRY(refuse_strings(c, t->dtype));
  const int64_t *len = lt->data;
  tfc_tensor_list *l = tfc_tensor_list_new(st->element_dtype, &es, -1, lt->n_elems, c->status);
  if (!l) return c->status->code;
  int64_t start = 0;
  for (int64_t i = 0; i < lt->n_elems; i++) {
    if (len[i] < 0) {
      tfc_variant_unref(&l->base);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid value in lengths: %lld", (long long)len[i]);
    }
    if (len[i] > t->dims[0] - start) {
      tfc_variant_unref(&l->base);
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Attempting to slice [%lld, %lld] from tensor with length %lld",
                              (long long)start, (long long)(start + len[i]), (long long)t->dims[0]);
    }
    if (!(l->items[i] = rows_of(c, t, start, len[i], 0))) {
      tfc_variant_unref(&l->base);
      return c->status->code;
    }
    start += len[i];
  }
  if (start != t->dims[0]) {
    tfc_variant_unref(&l->base);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unused values in tensor. Length of tensor: %lld Values used: %lld",
                            (long long)t->dims[0], (long long)start);
  }
  return set_list_output(c, 0, l);
}

/* AddN of lists (gradients of a list meeting in a while_v2 gradient body): element-wise,
 * an uninitialized element taking the other side's as is, two set ones added. */
static tfc_tensor *add_elements(tfc_kernel_ctx *c, const tfc_tensor *a, const tfc_tensor *b) {
  if (!tfc_tensor_same_shape(a, b)) {
    char x[TFC_SHAPE_STR_MAX], y[TFC_SHAPE_STR_MAX];
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Trying to add two tensors with incompatible element shapes. One is %s and the other is %s",
                     tfc_tensor_shape_str(a, x, sizeof x), tfc_tensor_shape_str(b, y, sizeof y));
    return NULL;
  }
  tfc_tensor *z = tfc_tensor_new(a->dtype, a->dims, a->ndims, c->status);
  if (!z) return NULL;
  int64_t n = a->n_elems;
#define ADD(T)                                                                                      \
  do {                                                                                              \
    const T *x = a->data, *y = b->data;                                                             \
    T *o = z->data;                                                                                 \
    for (int64_t i = 0; i < n; i++) o[i] = x[i] + y[i];                                             \
  } while (0)
  switch (a->dtype) {
    case TFC_DT_FLOAT: ADD(float); break;
    case TFC_DT_DOUBLE: ADD(double); break;
    case TFC_DT_INT32: ADD(int32_t); break;
    case TFC_DT_INT64: ADD(int64_t); break;
    default:
      tfc_tensor_unref(z);
      tfc_kernel_error(c, TFC_UNIMPLEMENTED, "adding lists of %s elements is not supported", tfc_dtype_name(a->dtype));
      return NULL;
  }
#undef ADD
  return z;
}

static int add_n_list_compute(tfc_kernel_ctx *c) {
  tfc_tensor_list *a = in_list(c, 0);
  if (!a) return c->status->code;
  for (int k = 1; k < c->n_inputs; k++) {
    tfc_tensor_list *b = in_list(c, k);
    if (!b) return c->status->code;
    if (a->element_dtype != b->element_dtype)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Trying to add two lists of tensors of different dtypes. One is %s and the other is %s",
                              tfc_dtype_name(a->element_dtype), tfc_dtype_name(b->element_dtype));
    if (!tfc_shape_compatible(&a->element_shape, &b->element_shape)) {
      char x[TFC_SHAPE_STR_MAX], y[TFC_SHAPE_STR_MAX];
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Trying to add two lists of tensors with incompatible element shapes. One is %s and the "
                              "other is %s",
                              tfc_shape_str(&a->element_shape, x, sizeof x), tfc_shape_str(&b->element_shape, y, sizeof y));
    }
    if (a->n != b->n)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Trying to add two lists of tensors with different lengths. One is %lld and the other is %lld",
                              (long long)a->n, (long long)b->n);
  }
  tfc_tensor_list *z = tfc_tensor_list_new(a->element_dtype, &a->element_shape, a->max_num_elements, a->n, c->status);
  if (!z) return c->status->code;
  for (int64_t i = 0; i < a->n; i++) {
    tfc_tensor *acc = NULL;
    for (int k = 0; k < c->n_inputs; k++) {
      tfc_tensor *t = tfc_tensor_list_from_tensor(c->inputs[k])->items[i];
      if (!t) continue;
      if (!acc) {
        acc = tfc_tensor_ref(t);
        continue;
      }
      tfc_tensor *sum = add_elements(c, acc, t);
      tfc_tensor_unref(acc);
      if (!(acc = sum)) {
        tfc_variant_unref(&z->base);
        return c->status->code;
      }
    }
    z->items[i] = acc;
  }
  return set_list_output(c, 0, z);
}

/* ---- registration ---- */

/* Element shapes, counts and indices are read on the host, as are the lists themselves
 * (variant tensors always live there). */
#define ROW(opname, fn, ...) \
  {.op = TFC_OP_##opname, .init = list_init, .free_state = list_free, .compute = fn##_compute, __VA_ARGS__}

static const tfc_kernel_def defs[] = {
    ROW(EmptyTensorList, empty, .host_memory_in = TFC_HOST_ALL),
    ROW(TensorListReserve, reserve, .host_memory_in = TFC_HOST_ALL),
    ROW(TensorListFromTensor, from_tensor, .host_memory_in = TFC_HOST(1)),
    ROW(TensorListLength, length, .host_memory_out = TFC_HOST(0)),
    ROW(TensorListElementShape, element_shape, .host_memory_out = TFC_HOST(0)),
    ROW(TensorListSetItem, set_item, .host_memory_in = TFC_HOST(1)),
    ROW(TensorListGetItem, get_item, .host_memory_in = TFC_HOST(1) | TFC_HOST(2)),
    ROW(TensorListPushBack, push_back, ),
    ROW(TensorListPopBack, pop_back, .host_memory_in = TFC_HOST(1)),
    ROW(TensorListStack, stack, .host_memory_in = TFC_HOST(1)),
    ROW(TensorListGather, gather, .host_memory_in = TFC_HOST(1) | TFC_HOST(2)),
    ROW(TensorListScatter, scatter, .host_memory_in = TFC_HOST(1) | TFC_HOST(2)),
    ROW(TensorListScatterV2, scatter_v2, .host_memory_in = TFC_HOST(1) | TFC_HOST(2) | TFC_HOST(3)),
    ROW(TensorListScatterIntoExistingList, scatter_into, .host_memory_in = TFC_HOST(2)),
    ROW(TensorListResize, resize, .host_memory_in = TFC_HOST(1)),
    ROW(TensorListConcat, concat, .host_memory_out = TFC_HOST(1)),
    ROW(TensorListConcatV2, concat_v2, .host_memory_in = TFC_HOST(1) | TFC_HOST(2), .host_memory_out = TFC_HOST(1)),
    ROW(TensorListSplit, split, .host_memory_in = TFC_HOST(1) | TFC_HOST(2)),
    ROW(ZerosLike, zeros_like_list, .type_attr = "T", .types = TFC_T(TFC_DT_VARIANT)),
    ROW(AddN, add_n_list, .type_attr = "T", .types = TFC_T(TFC_DT_VARIANT)),
};

int tfc_cpu_kernels_list(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
