/*
 * kernels_tensor_array — CPU kernels of the per-step containers (ops_tensor_array.def): stacks
 * (state/stack.h) and TensorArrays (state/tensor_array.h). The creating ops (StackV2,
 * TensorArrayV3, TensorArrayGradV3) make a new object each run and output a DT_RESOURCE handle
 * holding it; every other op acts on the object behind its handle input. Nothing is registered
 * in the device's resource manager: the handles alone keep an object alive, so it goes with
 * the last tensor of the step that made it (TF's per-step container).
 *
 * All of them are cheap and run inline; handles and the int32 shape-like inputs (sizes,
 * indices) are host-side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/array_copy.h"
#include "device/cpu/cpu_kernels.h"
#include "state/stack.h"
#include "state/tensor_array.h"

/* ---------------- stacks ---------------- */

typedef struct stack_op {
  int elem_type;
  const char *name; /* stack_name, or the node's name; borrowed from the graph */
} stack_op;

static int stack_op_init(const tfc_node *n, void **state, tfc_status *s) {
  stack_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_kernel_attr_type(n, "elem_type", &st->elem_type, s) || tfc_kernel_attr_string(n, "stack_name", &st->name, s)) {
    free(st);
    return s->code;
  }
  if (!*st->name) st->name = n->name;
  *state = st;
  return TFC_OK;
}

static int stack_compute(tfc_kernel_ctx *c) {
  const stack_op *st = c->state;
  const tfc_tensor *max = c->inputs[0];
  if (max->ndims != 0) {
    char buf[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Stack size must be a scalar, but had shape: %s",
                            tfc_tensor_shape_str(max, buf, sizeof buf));
  }
  int32_t size = *(const int32_t *)max->data;
  tfc_stack *stack = tfc_stack_new(st->elem_type, st->name, size < 0 ? -1 : size, c->status);
  if (!stack) return c->status->code;
  tfc_tensor *h = tfc_resource_handle_new(tfc_stack_resource(stack), c->status);
  tfc_resource_unref(tfc_stack_resource(stack)); /* the handle holds it now */
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  return TFC_OK;
}

static tfc_stack *input_stack(tfc_kernel_ctx *c) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[0], &tfc_stack_kind, c->status);
  return r ? tfc_stack_from_resource(r) : NULL;
}

static int stack_push_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  if (!stack || tfc_stack_push(stack, c->inputs[1], c->status)) return c->status->code;
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[1]));
  return TFC_OK;
}

static int stack_pop_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  tfc_tensor *t = NULL;
  if (!stack || tfc_stack_pop(stack, &t, c->status)) return c->status->code;
  if (t->dtype != c->node->output_types[0]) {
    /* TF's executor check of an output against the op's declared type. */
    tfc_kernel_error(c, TFC_INTERNAL, "Output 0 of type %s does not match declared output type %s for node {{node %s}}",
                     tfc_dtype_name(t->dtype), tfc_dtype_name(c->node->output_types[0]), c->node->name);
    tfc_tensor_unref(t);
    return c->status->code;
  }
  tfc_kernel_set_output(c, 0, t);
  return TFC_OK;
}

static int stack_close_compute(tfc_kernel_ctx *c) {
  tfc_stack *stack = input_stack(c);
  if (!stack) return c->status->code;
  tfc_stack_close(stack);
  return TFC_OK;
}

/* ---------------- TensorArrays ---------------- */

typedef struct ta_op {
  tfc_tensor_array_options o;
} ta_op;

static int ta_op_init(const tfc_node *n, void **state, tfc_status *s) {
  ta_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  const tfc_attr_value *es = tfc_node_attr(n, "element_shape");
  st->o.element_shape = es && es->kind == TFC_ATTR_SHAPE ? *es->u.shape : tfc_shape_unknown();
  if (tfc_kernel_attr_type(n, "dtype", &st->o.dtype, s) || tfc_kernel_attr_bool(n, "dynamic_size", &st->o.dynamic_size, s) ||
      tfc_kernel_attr_bool(n, "clear_after_read", &st->o.clear_after_read, s) ||
      tfc_kernel_attr_bool(n, "identical_element_shapes", &st->o.identical_element_shapes, s) ||
      tfc_kernel_attr_string(n, "tensor_array_name", &st->o.base_name, s)) {
    free(st);
    return s->code;
  }
  if (!*st->o.base_name) st->o.base_name = n->name;
  *state = st;
  return TFC_OK;
}

/* Outputs a handle to the new array r (taking the caller's reference) and, as output 1, the
 * flow: flow (a reference) or a new 0.0. */
static int set_handle_and_flow(tfc_kernel_ctx *c, tfc_resource *r, tfc_tensor *flow) {
  tfc_tensor *h = tfc_resource_handle_new(r, c->status);
  tfc_resource_unref(r);
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  if (flow) {
    tfc_kernel_set_output(c, 1, tfc_tensor_ref(flow));
    return TFC_OK;
  }
  tfc_tensor *f = tfc_kernel_alloc_output(c, 1, TFC_DT_FLOAT, NULL, 0);
  if (!f) return c->status->code;
  *(float *)f->data = 0;
  return TFC_OK;
}

static int ta_compute(tfc_kernel_ctx *c) {
  ta_op *st = c->state;
  const tfc_tensor *size = c->inputs[0];
  char buf[TFC_SHAPE_STR_MAX];
  if (size->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TensorArray size must be scalar, but had shape: %s",
                            tfc_tensor_shape_str(size, buf, sizeof buf));
  tfc_tensor_array_options o = st->o;
  o.size = *(const int32_t *)size->data;
  if (o.size < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Size should be >= 0.");
  tfc_tensor_array *ta = tfc_tensor_array_new(&o, c->status);
  if (!ta) return c->status->code;
  return set_handle_and_flow(c, tfc_tensor_array_resource(ta), NULL);
}

static tfc_tensor_array *input_ta(tfc_kernel_ctx *c) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[0], &tfc_tensor_array_kind, c->status);
  return r ? tfc_tensor_array_from_resource(r) : NULL;
}

static int ta_grad_init(const tfc_node *n, void **state, tfc_status *s) {
  const char *source;
  if (tfc_kernel_attr_string(n, "source", &source, s)) return s->code;
  *state = (void *)source; /* borrowed from the graph */
  return TFC_OK;
}

/* TensorArrayGradV3, and TensorArrayGradWithShape with its shape_to_prepend (input 2). */
static int ta_grad_compute(tfc_kernel_ctx *c) {
  tfc_tensor_array *fwd = input_ta(c);
  if (!fwd) return c->status->code;
  tfc_shape prepend, *pp = NULL;
  if (c->n_inputs > 2) {
    const tfc_tensor *p = c->inputs[2];
    char buf[TFC_SHAPE_STR_MAX];
    if (p->ndims != 1 || p->n_elems > TFC_MAX_DIMS)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape must be a vector of {int32,int64}, got shape %s",
                              tfc_tensor_shape_str(p, buf, sizeof buf));
    prepend.rank = (int)p->n_elems;
    for (int i = 0; i < prepend.rank; i++) {
      prepend.dims[i] = ((const int32_t *)p->data)[i];
      if (prepend.dims[i] < 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)prepend.dims[i]);
    }
    pp = &prepend;
  }
  tfc_tensor_array *g = tfc_tensor_array_grad(fwd, (const char *)c->state, pp, c->status);
  if (!g) return c->status->code;
  return set_handle_and_flow(c, tfc_tensor_array_resource(g), c->inputs[1]);
}

static int check_index(tfc_kernel_ctx *c, const tfc_tensor *index) {
  char buf[TFC_SHAPE_STR_MAX];
  if (index->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TensorArray index must be scalar, but had shape: %s",
                            tfc_tensor_shape_str(index, buf, sizeof buf));
  return TFC_OK;
}

/* The writers' dtype check, before any write. */
static int check_write_dtype(tfc_kernel_ctx *c, tfc_tensor_array *ta, int dtype) {
  if (dtype != tfc_tensor_array_dtype(ta))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TensorArray dtype is %s but Op is trying to write dtype %s.",
                            tfc_dtype_name(tfc_tensor_array_dtype(ta)), tfc_dtype_name(dtype));
  return TFC_OK;
}

/* The readers' dtype check: the op's output dtype. */
static int check_read_dtype(tfc_kernel_ctx *c, tfc_tensor_array *ta) {
  int want = c->node->output_types[0];
  if (want != tfc_tensor_array_dtype(ta))
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "TensorArray dtype is %s but Op requested dtype %s.",
                            tfc_dtype_name(tfc_tensor_array_dtype(ta)), tfc_dtype_name(want));
  return TFC_OK;
}

static int ta_write_compute(tfc_kernel_ctx *c) {
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[3]));
  if (check_index(c, c->inputs[1])) return c->status->code;
  tfc_tensor_array *ta = input_ta(c);
  if (!ta || check_write_dtype(c, ta, c->inputs[2]->dtype)) return c->status->code;
  int32_t index = *(const int32_t *)c->inputs[1]->data;
  return tfc_tensor_array_write(ta, &index, &c->inputs[2], 1, c->status);
}

static int ta_read_compute(tfc_kernel_ctx *c) {
  if (check_index(c, c->inputs[1])) return c->status->code;
  tfc_tensor_array *ta = input_ta(c);
  if (!ta || check_read_dtype(c, ta)) return c->status->code;
  int32_t index = *(const int32_t *)c->inputs[1]->data;
  tfc_tensor *v;
  if (tfc_tensor_array_read(ta, &index, 1, &v, c->status)) return c->status->code;
  tfc_kernel_set_output(c, 0, v);
  return TFC_OK;
}

/* A shape attr of the node (element_shape, element_shape_except0); unknown when absent. */
static tfc_shape shape_attr(const tfc_node *n, const char *name) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  return v && v->kind == TFC_ATTR_SHAPE ? *v->u.shape : tfc_shape_unknown();
}

/* Output 0 of dims [0] + shape (fully defined), for an empty Gather or Concat. */
static int empty_output(tfc_kernel_ctx *c, const tfc_shape *shape) {
  int64_t dims[TFC_MAX_DIMS];
  if (shape->rank + 1 > TFC_MAX_DIMS) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "element shape rank too large");
  dims[0] = 0;
  memcpy(dims + 1, shape->dims, sizeof dims[0] * (size_t)shape->rank);
  return tfc_kernel_alloc_output(c, 0, c->node->output_types[0], dims, shape->rank + 1) ? TFC_OK : c->status->code;
}

/* Copies values[0..n) one after another into out. */
static int join_values(tfc_kernel_ctx *c, tfc_tensor *out, tfc_tensor *const *values, int64_t n) {
  size_t es = tfc_dtype_size(out->dtype);
  char *dst = out->data;
  for (int64_t i = 0; i < n; i++) {
    if (tfc_array_copy(dst, values[i]->data, values[i]->n_elems, out->dtype, c->status)) return c->status->code;
    dst += es * (size_t)values[i]->n_elems;
  }
  return TFC_OK;
}

static void unref_all(tfc_tensor **v, int64_t n) {
  if (!v) return;
  for (int64_t i = 0; i < n; i++) tfc_tensor_unref(v[i]);
  free(v);
}

static int ta_gather_compute(tfc_kernel_ctx *c) {
  tfc_tensor_array *ta = input_ta(c);
  if (!ta || check_read_dtype(c, ta)) return c->status->code;
  tfc_shape es = shape_attr(c->node, "element_shape");
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (tfc_tensor_array_merge_element_shape(ta, &es, c->status)) return c->status->code;
  const tfc_tensor *ix = c->inputs[1];
  if (ix->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected indices to be a vector, but received shape: %s",
                            tfc_tensor_shape_str(ix, a, sizeof a));
  int64_t n = ix->n_elems;
  if (n == 0) {
    if (!tfc_shape_fully_defined(&es))
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                              "TensorArray has size zero, but element shape %s is not fully defined. Currently only "
                              "static shapes are supported when packing zero-size TensorArrays.",
                              tfc_shape_str(&es, a, sizeof a));
    return empty_output(c, &es);
  }
  tfc_tensor **v = calloc((size_t)n, sizeof *v);
  if (!v) return TFC_OOM(c->status);
  if (tfc_tensor_array_read(ta, (const int32_t *)ix->data, (int)n, v, c->status)) goto out;
  tfc_shape s0 = tfc_tensor_shape(v[0]);
  if (!tfc_shape_compatible(&es, &s0)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                     "TensorArray was passed element_shape %s which does not match the Tensor at index 0: %s",
                     tfc_shape_str(&es, a, sizeof a), tfc_shape_str(&s0, b, sizeof b));
    goto out;
  }
  for (int64_t i = 1; i < n; i++)
    if (!tfc_tensor_same_shape(v[0], v[i])) {
      tfc_shape si = tfc_tensor_shape(v[i]);
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                       "TensorArray has inconsistent shapes.  Index 0 has shape: %s but index %lld has shape: %s",
                       tfc_shape_str(&s0, a, sizeof a), (long long)i, tfc_shape_str(&si, b, sizeof b));
      goto out;
    }
  if (s0.rank + 1 > TFC_MAX_DIMS) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "element shape rank too large");
    goto out;
  }
  int64_t dims[TFC_MAX_DIMS];
  dims[0] = n;
  memcpy(dims + 1, s0.dims, sizeof dims[0] * (size_t)s0.rank);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, v[0]->dtype, dims, s0.rank + 1);
  if (out) join_values(c, out, v, n);
out:
  unref_all(v, n);
  return c->status->code;
}

static int ta_concat_compute(tfc_kernel_ctx *c) {
  tfc_tensor_array *ta = input_ta(c);
  if (!ta || check_read_dtype(c, ta)) return c->status->code;
  tfc_shape es0 = shape_attr(c->node, "element_shape_except0");
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  int32_t n;
  if (tfc_tensor_array_concat_size(ta, &n, c->status)) return c->status->code;
  if (n <= 0) {
    if (!tfc_shape_fully_defined(&es0))
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                              "TensorArray has size zero, but element_shape_except0 %s is not fully defined. Currently "
                              "only static shapes are supported when concatenating zero-size TensorArrays.",
                              tfc_shape_str(&es0, a, sizeof a));
    int64_t zero = 0;
    if (empty_output(c, &es0) || !tfc_kernel_alloc_output(c, 1, TFC_DT_INT64, &zero, 1)) return c->status->code;
    return TFC_OK;
  }
  tfc_tensor **v = calloc((size_t)n, sizeof *v);
  int32_t *ix = malloc(sizeof *ix * (size_t)n);
  if (!v || !ix) {
    free(ix);
    free(v);
    return TFC_OOM(c->status);
  }
  for (int32_t i = 0; i < n; i++) ix[i] = i;
  int64_t nn = n;
  tfc_tensor *lengths = NULL;
  if (tfc_tensor_array_read(ta, ix, n, v, c->status) ||
      !(lengths = tfc_kernel_alloc_output(c, 1, TFC_DT_INT64, &nn, 1)))
    goto out;
  int64_t dims[TFC_MAX_DIMS];
  tfc_shape s0;
  for (int32_t i = 0; i < n; i++) {
    if (v[i]->ndims < 1) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                       "Concat saw a scalar shape at index %d but requires at least vectors.  Did you mean to call pack?",
                       i);
      goto out;
    }
    ((int64_t *)lengths->data)[i] = v[i]->dims[0];
    tfc_shape si = tfc_shape_make(v[i]->dims + 1, v[i]->ndims - 1);
    if (i == 0) {
      s0 = si;
      memcpy(dims, v[0]->dims, sizeof dims[0] * (size_t)v[0]->ndims);
      if (!tfc_shape_compatible(&es0, &si)) {
        tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                         "TensorArray was passed element_shape_except0 %s but index 0 has (excepting dimension 0) "
                         "shape: %s which does not match.",
                         tfc_shape_str(&es0, a, sizeof a), tfc_shape_str(&si, b, sizeof b));
        goto out;
      }
    } else {
      if (!tfc_shape_equal(&s0, &si)) {
        tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                         "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: %s but "
                         "index %d has (excepting dimension 0) shape: %s",
                         tfc_shape_str(&s0, a, sizeof a), i, tfc_shape_str(&si, b, sizeof b));
        goto out;
      }
      dims[0] += v[i]->dims[0];
    }
  }
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, v[0]->dtype, dims, v[0]->ndims);
  if (out) join_values(c, out, v, n);
out:
  free(ix);
  unref_all(v, n);
  return c->status->code;
}

/* New tensors of dims {lengths[i]} + value's dims after the first, cut from value in order
 * (rows of `row` elements). */
static tfc_tensor **cut_value(tfc_kernel_ctx *c, const tfc_tensor *value, const int64_t *lengths, int64_t n,
                              int64_t row) {
  tfc_tensor **p = calloc((size_t)(n ? n : 1), sizeof *p);
  if (!p) {
    TFC_OOM(c->status);
    return NULL;
  }
  size_t es = tfc_dtype_size(value->dtype);
  const char *src = value->data;
  int64_t dims[TFC_MAX_DIMS];
  memcpy(dims, value->dims, sizeof dims[0] * (size_t)value->ndims);
  for (int64_t i = 0; i < n; i++) {
    dims[0] = lengths ? lengths[i] : 1;
    /* Scatter's pieces drop the first dimension; Split's keep it. */
    p[i] = lengths ? tfc_tensor_new(value->dtype, dims, value->ndims, c->status)
                   : tfc_tensor_new(value->dtype, dims + 1, value->ndims - 1, c->status);
    if (!p[i] || tfc_array_copy(p[i]->data, src, p[i]->n_elems, value->dtype, c->status)) {
      unref_all(p, n);
      return NULL;
    }
    src += es * (size_t)(dims[0] * row);
  }
  return p;
}

static int ta_scatter_compute(tfc_kernel_ctx *c) {
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[3]));
  tfc_tensor_array *ta = input_ta(c);
  const tfc_tensor *value = c->inputs[2], *ix = c->inputs[1];
  char a[TFC_SHAPE_STR_MAX];
  if (!ta || check_write_dtype(c, ta, value->dtype)) return c->status->code;
  if (value->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Input value for unpack must be at least a vector but received shape: %s",
                            tfc_tensor_shape_str(value, a, sizeof a));
  int32_t size;
  if (tfc_tensor_array_size(ta, &size, c->status)) return c->status->code;
  if (ix->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected indices to be a vector, but received shape: %s",
                            tfc_tensor_shape_str(ix, a, sizeof a));
  if (ix->n_elems != value->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected len(indices) == values.shape[0], but saw: %lld vs. %lld",
                            (long long)ix->n_elems, (long long)value->dims[0]);
  const int32_t *idx = ix->data;
  int64_t n = ix->n_elems, max_index = -1;
  for (int64_t i = 0; i < n; i++)
    if (idx[i] > max_index) max_index = idx[i];
  if (tfc_tensor_array_has_dynamic_size(ta) && size < max_index + 1) size = (int32_t)(max_index + 1);
  if (max_index >= size)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Max scatter index must be < array size (%lld vs. %d)",
                            (long long)max_index, size);
  int64_t row = value->dims[0] ? value->n_elems / value->dims[0] : 0;
  tfc_tensor **p = cut_value(c, value, NULL, n, row);
  if (!p) return c->status->code;
  tfc_tensor_array_write(ta, idx, p, (int)n, c->status);
  unref_all(p, n);
  return c->status->code;
}

static int ta_split_compute(tfc_kernel_ctx *c) {
  tfc_kernel_set_output(c, 0, tfc_tensor_ref(c->inputs[3]));
  tfc_tensor_array *ta = input_ta(c);
  const tfc_tensor *value = c->inputs[1], *len = c->inputs[2];
  char a[TFC_SHAPE_STR_MAX];
  if (!ta) return c->status->code;
  if (len->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected lengths to be a vector, received shape: %s",
                            tfc_tensor_shape_str(len, a, sizeof a));
  if (len->n_elems > INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected lengths to have < max int32 entries");
  const int64_t *lengths = len->data;
  int64_t n = len->n_elems, total = 0;
  for (int64_t i = 0; i < n; i++) total += lengths[i];
  if (value->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected value to be at least a vector, but received shape: %s",
                            tfc_tensor_shape_str(value, a, sizeof a));
  if (total != value->dims[0])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is %lld and "
                            "value's shape is: %s",
                            (long long)total, tfc_tensor_shape_str(value, a, sizeof a));
  for (int64_t i = 0; i < n; i++)
    if (lengths[i] < 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected lengths to be >= 0, but lengths[%lld] is %lld",
                              (long long)i, (long long)lengths[i]);
  int32_t size;
  if (tfc_tensor_array_size(ta, &size, c->status)) return c->status->code;
  if (tfc_tensor_array_has_dynamic_size(ta) && size < n) size = (int32_t)n;
  if (size != n)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "TensorArray's size is not equal to the size of lengths (%d vs. %lld), and the TensorArray "
                            "is not marked as dynamically resizeable",
                            size, (long long)n);
  if (check_write_dtype(c, ta, value->dtype)) return c->status->code;
  int64_t row = total ? value->n_elems / total : 0;
  tfc_tensor **p = cut_value(c, value, lengths, n, row);
  int32_t *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
  if (!p || !idx) {
    if (!p) TFC_OOM(c->status);
    unref_all(p, n);
    free(idx);
    return c->status->code;
  }
  for (int32_t i = 0; i < n; i++) idx[i] = i;
  if (tfc_tensor_array_set_marked_size(ta, size, c->status) == TFC_OK)
    tfc_tensor_array_write(ta, idx, p, (int)n, c->status);
  free(idx);
  unref_all(p, n);
  return c->status->code;
}

static int ta_size_compute(tfc_kernel_ctx *c) {
  tfc_tensor_array *ta = input_ta(c);
  int32_t n;
  if (!ta || tfc_tensor_array_size(ta, &n, c->status)) return c->status->code;
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!t) return c->status->code;
  *(int32_t *)t->data = n;
  return TFC_OK;
}

static int ta_close_compute(tfc_kernel_ctx *c) {
  tfc_tensor_array *ta = input_ta(c);
  if (!ta) return c->status->code;
  tfc_tensor_array_close(ta);
  return TFC_OK;
}

/* ---------------- registration ---------------- */

#define HANDLE TFC_HOST(0)

static const tfc_kernel_def tensor_array_kernels[] = {
    {.op = TFC_OP_StackV2, .host_memory_in = TFC_HOST(0), .host_memory_out = HANDLE, .init = stack_op_init,
     .compute = stack_compute, .free_state = free},
    {.op = TFC_OP_StackPushV2, .host_memory_in = HANDLE, .compute = stack_push_compute},
    {.op = TFC_OP_StackPopV2, .host_memory_in = HANDLE, .compute = stack_pop_compute},
    {.op = TFC_OP_StackCloseV2, .host_memory_in = HANDLE, .compute = stack_close_compute},
    {.op = TFC_OP_TensorArrayV3, .host_memory_in = TFC_HOST(0), .host_memory_out = HANDLE, .init = ta_op_init,
     .compute = ta_compute, .free_state = free},
    {.op = TFC_OP_TensorArrayGradV3, .host_memory_in = HANDLE, .host_memory_out = HANDLE, .init = ta_grad_init,
     .compute = ta_grad_compute},
    {.op = TFC_OP_TensorArrayGradWithShape, .host_memory_in = HANDLE | TFC_HOST(2), .host_memory_out = HANDLE,
     .init = ta_grad_init, .compute = ta_grad_compute},
    {.op = TFC_OP_TensorArrayWriteV3, .host_memory_in = HANDLE | TFC_HOST(1), .compute = ta_write_compute},
    {.op = TFC_OP_TensorArrayReadV3, .host_memory_in = HANDLE | TFC_HOST(1), .compute = ta_read_compute},
    {.op = TFC_OP_TensorArrayGatherV3, .host_memory_in = HANDLE | TFC_HOST(1), .compute = ta_gather_compute},
    {.op = TFC_OP_TensorArrayScatterV3, .host_memory_in = HANDLE | TFC_HOST(1), .compute = ta_scatter_compute},
    {.op = TFC_OP_TensorArrayConcatV3, .host_memory_in = HANDLE, .host_memory_out = TFC_HOST(1),
     .compute = ta_concat_compute},
    {.op = TFC_OP_TensorArraySplitV3, .host_memory_in = HANDLE | TFC_HOST(2), .compute = ta_split_compute},
    {.op = TFC_OP_TensorArraySizeV3, .host_memory_in = HANDLE, .host_memory_out = TFC_HOST(0),
     .compute = ta_size_compute},
    {.op = TFC_OP_TensorArrayCloseV3, .host_memory_in = HANDLE, .compute = ta_close_compute},
};

int tfc_cpu_kernels_tensor_array(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, tensor_array_kernels, (int)(sizeof tensor_array_kernels / sizeof tensor_array_kernels[0]),
                              s);
}
