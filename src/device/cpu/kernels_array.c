/*
 * kernels_array — CPU kernels of the array family, part one: the ops that only look at or
 * relabel shapes (Reshape, Shape, ShapeN, Size, Rank, ExpandDims, Squeeze), the ops that make
 * tensors (Fill, ZerosLike, OnesLike, Range), BroadcastArgs and BroadcastGradientArgs. Reshape, ExpandDims
 * and Squeeze never copy: the output is a new header over the input's buffer.
 *
 * tfc_cpu_kernels_array registers the whole family, including the kernels in
 * kernels_array_slice.c and kernels_array_join.c; the data movement they share lives in
 * kernels_array_copy.c. Error texts are TF 1.15's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"
#include "device/cpu/cpu_kernels.h"

/* ---- shapes ---- */

static int reshape_compute(tfc_kernel_ctx *c) {
  tfc_tensor *in = c->inputs[0];
  const tfc_tensor *sh = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (sh->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "sizes input must be 1-D, not %s",
                            tfc_tensor_shape_str(sh, buf, sizeof buf));
  if (sh->n_elems > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Reshape to rank %lld exceeds the maximum rank %d",
                            (long long)sh->n_elems, TFC_MAX_DIMS);
  int n = (int)sh->n_elems, unknown = -1;
  int64_t dims[TFC_MAX_DIMS], product = 1;
  for (int i = 0; i < n; i++) {
    int64_t d = tfc_array_int_at(sh, i);
    if (d == -1) {
      if (unknown >= 0)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Only one input size may be -1, not both %d and %d",
                                unknown, i);
      unknown = i;
      dims[i] = 1;
    } else if (d < 0) {
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Size %d must be non-negative, not %lld", i, (long long)d);
    } else {
      dims[i] = d;
      if (d && product > INT64_MAX / d)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Reshape target shape has too many elements");
      product *= d;
    }
  }
  if (unknown >= 0) {
    if (product <= 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Reshape cannot infer the missing input size for an empty tensor unless all "
                              "specified input sizes are non-zero");
    if (in->n_elems % product != 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                              "Input to reshape is a tensor with %lld values, but the requested shape requires "
                              "a multiple of %lld",
                              (long long)in->n_elems, (long long)product);
    dims[unknown] = in->n_elems / product;
    product = in->n_elems;
  }
  if (product != in->n_elems)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Input to reshape is a tensor with %lld values, but the requested shape has %lld",
                            (long long)in->n_elems, (long long)product);
  tfc_tensor *out = tfc_tensor_reshaped(in, dims, n, c->status);
  if (!out) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return TFC_OK;
}

/* Writes dims as an int32 or int64 vector output (TF refuses dims that overflow int32). */
static int dims_output(tfc_kernel_ctx *c, int i, const tfc_tensor *in) {
  int dt = c->node->output_types[i];
  int64_t len = in->ndims;
  tfc_tensor *out = tfc_kernel_alloc_output(c, i, dt, &len, 1);
  if (!out) return c->status->code;
  for (int d = 0; d < in->ndims; d++) {
    if (dt == TFC_DT_INT32) {
      if (in->dims[d] > INT32_MAX)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape output type is 32-bit  but dim %d is %lld", d,
                                (long long)in->dims[d]);
      ((int32_t *)out->data)[d] = (int32_t)in->dims[d];
    } else {
      ((int64_t *)out->data)[d] = in->dims[d];
    }
  }
  return TFC_OK;
}

static int shape_compute(tfc_kernel_ctx *c) {
  for (int i = 0; i < c->n_outputs; i++) TFC_TRY(dims_output(c, i, c->inputs[i]));
  return TFC_OK;
}

static int size_compute(tfc_kernel_ctx *c) {
  int dt = c->node->output_types[0];
  int64_t n = c->inputs[0]->n_elems;
  if (dt == TFC_DT_INT32 && n > INT32_MAX)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Number of elements was larger than representable by 32-bit output type");
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dt, NULL, 0);
  if (!out) return c->status->code;
  if (dt == TFC_DT_INT32) *(int32_t *)out->data = (int32_t)n;
  else *(int64_t *)out->data = n;
  return TFC_OK;
}

static int rank_compute(tfc_kernel_ctx *c) {
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!out) return c->status->code;
  *(int32_t *)out->data = c->inputs[0]->ndims;
  return TFC_OK;
}

static int relabel(tfc_kernel_ctx *c, const int64_t *dims, int ndims) {
  tfc_tensor *out = tfc_tensor_reshaped(c->inputs[0], dims, ndims, c->status);
  if (!out) return c->status->code;
  tfc_kernel_set_output(c, 0, out);
  return TFC_OK;
}

static int expand_dims_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0], *dt = c->inputs[1];
  if (dt->n_elems != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "'dim' must be a tensor with a single value");
  int64_t d = tfc_array_int_at(dt, 0);
  int rank = in->ndims;
  if (d < -1 - rank || d > rank)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tried to expand dim index %lld for tensor with %d dimensions.",
                            (long long)d, rank);
  if (rank + 1 > TFC_MAX_DIMS)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "ExpandDims to rank %d exceeds the maximum rank %d", rank + 1,
                            TFC_MAX_DIMS);
  if (d < 0) d += rank + 1;
  int64_t dims[TFC_MAX_DIMS];
  for (int i = 0, j = 0; i <= rank; i++) dims[i] = i == d ? 1 : in->dims[j++];
  return relabel(c, dims, rank + 1);
}

static int squeeze_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *in = c->inputs[0];
  const tfc_attr_value *sd = tfc_node_attr(c->node, "squeeze_dims");
  int n_sd = sd && sd->kind == TFC_ATTR_LIST ? sd->u.list.n : 0;
  int wanted[TFC_MAX_DIMS] = {0};
  for (int k = 0; k < n_sd; k++) {
    int64_t d = sd->u.list.items[k].u.i;
    if (d < -in->ndims || d >= in->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Tried to squeeze dim index %lld for tensor with %d dimensions.",
                              (long long)d, in->ndims);
    wanted[d < 0 ? d + in->ndims : d] = 1;
  }
  int64_t dims[TFC_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < in->ndims; i++) {
    int64_t d = in->dims[i];
    if (n_sd ? wanted[i] : d == 1) {
      if (d != 1)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Can not squeeze dim[%d], expected a dimension of 1, got %lld",
                                i, (long long)d);
      continue;
    }
    dims[n++] = d;
  }
  return relabel(c, dims, n);
}

/* ---- making tensors ---- */

static int fill_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *v = c->inputs[1];
  int64_t dims[TFC_MAX_DIMS];
  int rank;
  TFC_TRY(tfc_fill_plan_of(c, dims, &rank));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, v->dtype, dims, rank);
  if (!out) return c->status->code;
  return tfc_array_fill(out->data, out->n_elems, v->data, v->dtype, c->status);
}

static int zeros_like_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  /* A fresh string tensor is all empty strings already; numeric zeros are all-zero bytes. */
  tfc_tensor *out = x->dtype == TFC_DT_STRING
                        ? tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims)
                        : tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  if (x->dtype != TFC_DT_STRING && out->n_bytes) memset(out->data, 0, out->n_bytes);
  return TFC_OK;
}

static int ones_like_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  union {
    float f;
    double d;
    int32_t i32;
    int64_t i64;
    int16_t i16;
    uint16_t u16;
    int8_t i8;
    uint8_t u8;
    float c64[2];
    double c128[2];
  } one;
  memset(&one, 0, sizeof one);
  switch (x->dtype) {
    case TFC_DT_FLOAT: one.f = 1; break;
    case TFC_DT_DOUBLE: one.d = 1; break;
    case TFC_DT_INT32: one.i32 = 1; break;
    case TFC_DT_INT64: one.i64 = 1; break;
    case TFC_DT_INT16: one.i16 = 1; break;
    case TFC_DT_UINT16: one.u16 = 1; break;
    case TFC_DT_INT8: one.i8 = 1; break;
    case TFC_DT_UINT8:
    case TFC_DT_BOOL: one.u8 = 1; break;
    case TFC_DT_HALF: one.u16 = 0x3c00; break;     /* IEEE binary16 1.0 */
    case TFC_DT_BFLOAT16: one.u16 = 0x3f80; break; /* the top half of float 1.0 */
    case TFC_DT_COMPLEX64: one.c64[0] = 1; break;
    case TFC_DT_COMPLEX128: one.c128[0] = 1; break;
    default: return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "OnesLike for %s", tfc_dtype_name(x->dtype));
  }
  tfc_tensor *out = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  return tfc_array_fill(out->data, out->n_elems, &one, x->dtype, c->status);
}

/* Integer ranges count in int64 and floating ones in their own type, as TF does, so the
 * length agrees with the shape function's. */
#define RANGE_INT(T)                                                                               \
  static int range_##T(tfc_kernel_ctx *c, T start, T limit, T delta) {                             \
    if (delta == 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires delta != 0: 0");    \
    if (delta > 0 && start > limit)                                                                \
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: %lld/%lld", \
                              (long long)start, (long long)limit);                                 \
    if (delta < 0 && start < limit)                                                                \
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires start >= limit when delta < 0: %lld/%lld", \
                              (long long)start, (long long)limit);                                 \
    uint64_t span = delta > 0 ? (uint64_t)limit - (uint64_t)start : (uint64_t)start - (uint64_t)limit; \
    uint64_t ad = delta > 0 ? (uint64_t)delta : 0 - (uint64_t)delta;                               \
    int64_t n = (int64_t)(span / ad + (span % ad != 0));                                           \
    tfc_tensor *out = tfc_kernel_alloc_output(c, 0, c->inputs[0]->dtype, &n, 1);                   \
    if (!out) return c->status->code;                                                              \
    T *o = out->data, v = start;                                                                   \
    for (int64_t i = 0; i < n; i++, v += delta) o[i] = v;                                          \
    return TFC_OK;                                                                                 \
  }
#define RANGE_FLOAT(T, CEIL, FABS)                                                                 \
  static int range_##T(tfc_kernel_ctx *c, T start, T limit, T delta) {                             \
    if (delta == 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires delta != 0: 0");    \
    if (delta > 0 && start > limit)                                                                \
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: %g/%g", \
                              (double)start, (double)limit);                                       \
    if (delta < 0 && start < limit)                                                                \
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires start >= limit when delta < 0: %g/%g", \
                              (double)start, (double)limit);                                       \
    T len = CEIL(FABS((limit - start) / delta));                                                   \
    if (!(len < 9.2e18))                                                                           \
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Range of %g elements is too large", (double)len); \
    int64_t n = (int64_t)len;                                                                      \
    tfc_tensor *out = tfc_kernel_alloc_output(c, 0, c->inputs[0]->dtype, &n, 1);                   \
    if (!out) return c->status->code;                                                              \
    T *o = out->data, v = start;                                                                   \
    for (int64_t i = 0; i < n; i++, v += delta) o[i] = v;                                          \
    return TFC_OK;                                                                                 \
  }
RANGE_INT(int32_t)
RANGE_INT(int64_t)
RANGE_FLOAT(float, ceilf, fabsf)
RANGE_FLOAT(double, ceil, fabs)

static int range_compute(tfc_kernel_ctx *c) {
  static const char *names[3] = {"start", "limit", "delta"};
  char buf[TFC_SHAPE_STR_MAX];
  for (int i = 0; i < 3; i++)
    if (c->inputs[i]->ndims != 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be a scalar, not shape %s", names[i],
                              tfc_tensor_shape_str(c->inputs[i], buf, sizeof buf));
  void *s = c->inputs[0]->data, *l = c->inputs[1]->data, *d = c->inputs[2]->data;
  switch (c->inputs[0]->dtype) {
    case TFC_DT_INT32: return range_int32_t(c, *(int32_t *)s, *(int32_t *)l, *(int32_t *)d);
    case TFC_DT_INT64: return range_int64_t(c, *(int64_t *)s, *(int64_t *)l, *(int64_t *)d);
    case TFC_DT_FLOAT: return range_float(c, *(float *)s, *(float *)l, *(float *)d);
    case TFC_DT_DOUBLE: return range_double(c, *(double *)s, *(double *)l, *(double *)d);
    default: return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "Range for %s", tfc_dtype_name(c->inputs[0]->dtype));
  }
}

/* ---- LinSpace ---- */

/* As TF's kernel: step = (stop - start) / (num - 1) in the element type, element i = start +
 * step * i, and the last element is stop itself. */
static int lin_space_compute(tfc_kernel_ctx *c) {
  static const char *names[3] = {"start", "stop", "num"};
  char buf[TFC_SHAPE_STR_MAX];
  for (int i = 0; i < 3; i++)
    if (c->inputs[i]->ndims != 0)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be a scalar, not shape %s", names[i],
                              tfc_tensor_shape_str(c->inputs[i], buf, sizeof buf));
  int64_t num = tfc_tensor_get_i64(c->inputs[2], 0);
  if (num <= 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Requires num > 0: %lld", (long long)num);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, c->inputs[0]->dtype, &num, 1);
  if (!out) return c->status->code;
  if (out->dtype == TFC_DT_FLOAT) {
    float start = *(const float *)c->inputs[0]->data, stop = *(const float *)c->inputs[1]->data;
    float *o = out->data, step = num > 1 ? (stop - start) / (float)(num - 1) : 0.0f;
    for (int64_t i = 0; i + 1 < num; i++) o[i] = start + step * (float)i;
    o[num - 1] = num > 1 ? stop : start;
  } else {
    double start = *(const double *)c->inputs[0]->data, stop = *(const double *)c->inputs[1]->data;
    double *o = out->data, step = num > 1 ? (stop - start) / (double)(num - 1) : 0.0;
    for (int64_t i = 0; i + 1 < num; i++) o[i] = start + step * (double)i;
    o[num - 1] = num > 1 ? stop : start;
  }
  return TFC_OK;
}

/* ---- BroadcastGradientArgs ---- */

static void join_dims(const int64_t *v, int64_t n, char *buf, size_t cap) {
  size_t off = 0;
  buf[0] = '\0';
  for (int64_t i = 0; i < n && off < cap; i++)
    off += (size_t)snprintf(buf + off, cap - off, "%s%lld", i ? "," : "", (long long)v[i]);
}

static int write_index_vector(tfc_kernel_ctx *c, int i, const int64_t *v, int64_t n) {
  tfc_tensor *out = tfc_kernel_alloc_output(c, i, c->inputs[0]->dtype, &n, 1);
  if (!out) return c->status->code;
  for (int64_t k = 0; k < n; k++) {
    if (out->dtype == TFC_DT_INT32) ((int32_t *)out->data)[k] = (int32_t)v[k];
    else ((int64_t *)out->data)[k] = v[k];
  }
  return TFC_OK;
}

/* The two shape vectors of BroadcastArgs and BroadcastGradientArgs, checked as TF does and
 * right-aligned to the longer one's length *n with leading 1s: x = *mem, y = *mem + *n, then
 * room for `extra` * *n more values; the caller frees *mem. */
static int bcast_shapes(tfc_kernel_ctx *c, int extra, int64_t **mem, int64_t *n) {
  char buf[TFC_SHAPE_STR_MAX];
  for (int i = 0; i < 2; i++)
    if (c->inputs[i]->ndims != 1)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "In[%d] must be a vector.%s", i,
                              tfc_tensor_shape_str(c->inputs[i], buf, sizeof buf));
  int64_t nx = c->inputs[0]->n_elems, ny = c->inputs[1]->n_elems;
  *n = nx > ny ? nx : ny;
  if (!(*mem = malloc(sizeof(int64_t) * (size_t)((2 + extra) * *n + 1)))) return TFC_OOM(c->status);
  int64_t *x = *mem, *y = *mem + *n;
  for (int64_t i = 0; i < *n; i++) {
    x[i] = i < *n - nx ? 1 : tfc_array_int_at(c->inputs[0], i - (*n - nx));
    y[i] = i < *n - ny ? 1 : tfc_array_int_at(c->inputs[1], i - (*n - ny));
  }
  return TFC_OK;
}

/* TF's error for shapes x and y (as bcast_shapes aligned them) that do not broadcast. */
static int bcast_incompatible(tfc_kernel_ctx *c, const int64_t *x, const int64_t *y, int64_t n) {
  int64_t nx = c->inputs[0]->n_elems, ny = c->inputs[1]->n_elems;
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  join_dims(x + (n - nx), nx, a, sizeof a);
  join_dims(y + (n - ny), ny, b, sizeof b);
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Incompatible shapes: [%s] vs. [%s]", a, b);
}

/*
 * The axes each side of a broadcasting binary op must sum its gradient over. Walking the
 * right-aligned dims from the innermost: an axis where x is 1 and y is not is reduced for x
 * (and the other way round); an axis where both are 1 is reduced for both. Identical shapes
 * reduce nothing at all (not even their 1s), which is TF's fast path and visible in results.
 */
static int bcast_grad_args_compute(tfc_kernel_ctx *c) {
  int64_t *mem = NULL, n = 0;
  TFC_TRY(bcast_shapes(c, 2, &mem, &n));
  int64_t *x = mem, *y = mem + n, *rx = mem + 2 * n, *ry = mem + 3 * n;
  int64_t n_rx = 0, n_ry = 0;
  int same = c->inputs[0]->n_elems == c->inputs[1]->n_elems;
  for (int64_t i = 0; i < n; i++)
    if (x[i] != y[i]) same = 0;
  int rc = TFC_OK;
  for (int64_t i = 0; i < n && !same && !rc; i++) {
    if (x[i] == y[i]) {
      if (x[i] == 1) {
        rx[n_rx++] = i;
        ry[n_ry++] = i;
      }
    } else if (x[i] == 1) {
      rx[n_rx++] = i;
    } else if (y[i] == 1) {
      ry[n_ry++] = i;
    } else {
      rc = bcast_incompatible(c, x, y, n);
    }
  }
  if (!rc) rc = write_index_vector(c, 0, rx, n_rx);
  if (!rc) rc = write_index_vector(c, 1, ry, n_ry);
  free(mem);
  return rc;
}

/* BroadcastArgs: the shape two broadcasting shapes make. */
static int bcast_args_compute(tfc_kernel_ctx *c) {
  int64_t *mem = NULL, n = 0;
  TFC_TRY(bcast_shapes(c, 1, &mem, &n));
  int64_t *x = mem, *y = mem + n, *r = mem + 2 * n;
  int rc = TFC_OK;
  for (int64_t i = 0; i < n && !rc; i++) {
    if (x[i] == y[i] || y[i] == 1) r[i] = x[i];
    else if (x[i] == 1) r[i] = y[i];
    else rc = bcast_incompatible(c, x, y, n);
  }
  if (!rc) rc = write_index_vector(c, 0, r, n);
  free(mem);
  return rc;
}

/* ---- registration ---- */


static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Reshape, .host_memory_in = TFC_HOST(1), .compute = reshape_compute},
    {.op = TFC_OP_Shape, .host_memory_out = 1u, .compute = shape_compute},
    {.op = TFC_OP_ShapeN, .host_memory_out = 0xffffffffu, .compute = shape_compute},
    {.op = TFC_OP_Size, .host_memory_out = 1u, .compute = size_compute},
    {.op = TFC_OP_Rank, .host_memory_out = 1u, .compute = rank_compute},
    {.op = TFC_OP_ExpandDims, .host_memory_in = TFC_HOST(1), .compute = expand_dims_compute},
    {.op = TFC_OP_Squeeze, .compute = squeeze_compute},
    {.op = TFC_OP_Fill,
     .type_attr = "T",
     .types = TFC_ARRAY_COPY_TYPES,
     .host_memory_in = TFC_HOST(0),
     .compute = fill_compute},
    {.op = TFC_OP_ZerosLike, .type_attr = "T", .types = TFC_ARRAY_COPY_TYPES, .compute = zeros_like_compute},
    {.op = TFC_OP_OnesLike, .type_attr = "T", .types = TFC_ARRAY_POD_TYPES, .compute = ones_like_compute},
    {.op = TFC_OP_Range,
     .type_attr = "Tidx",
     .types = TFC_TYPES_FLOAT | TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2),
     .compute = range_compute},
    {.op = TFC_OP_LinSpace,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2),
     .compute = lin_space_compute},
    {.op = TFC_OP_BroadcastArgs,
     .type_attr = "T",
     .types = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1),
     .host_memory_out = 1u,
     .compute = bcast_args_compute},
    {.op = TFC_OP_BroadcastGradientArgs,
     .type_attr = "T",
     .types = TFC_TYPES_INT,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1),
     .host_memory_out = 3u,
     .compute = bcast_grad_args_compute},
};

int tfc_cpu_kernels_array(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cpu_kernels_array_slice(t, s));
  TFC_TRY(tfc_cpu_kernels_array_extra(t, s));
  TFC_TRY(tfc_cpu_kernels_array_reverse(t, s));
  return tfc_cpu_kernels_array_join(t, s);
}
