/*
 * builders/init — constants and initializers as TF 1.x's Python builds them: tf.constant
 * scalars, tf.zeros (a Const when small, a Fill otherwise, the threshold of array_ops.zeros),
 * and the random initializers tf.truncated_normal / tf.random_normal / tf.random_uniform with
 * their name scopes and node order (shape, mean, stddev, the random op, mul, then the final
 * add named after the scope). The final add is AddV2, as TF's graphs of the fixtures have
 * it (TF 1.15's random_ops used Add; both compute the same).
 *
 * Seeds come from bld_seeds (scope.c), taken after the scope's constants exist, which is
 * when Python calls get_seed, so the node count it reads matches Python's _last_id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "builders/builders_internal.h"
#include "tensor/dtype.h"

/* A where placing nodes by exact full names ("<full>/"): same device/frames as w. */
static bld_where root_of(const bld_where *w) {
  bld_where r = *w;
  r.scope = "";
  return r;
}

static char *slash(const char *full) {
  char *r = NULL;
  if (asprintf(&r, "%s/", full) < 0) r = NULL;
  return r;
}

static int check_dims(bld_call *c, const int64_t *dims, int nd) {
  if (nd < 0 || nd > TFC_MAX_DIMS || (nd > 0 && !dims))
    return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "shape must have rank 0..%d (got %d)", TFC_MAX_DIMS, nd);
  for (int i = 0; i < nd; i++)
    if (dims[i] < 0)
      return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Dimension %d in shape must be >= 0, got %lld", i,
                            (long long)dims[i]);
  return TFC_OK;
}

/* The int32 shape vector Python's shape_tensor makes (int64 when a dim needs it). */
static tfc_endpoint shape_const(bld_call *c, const bld_where *w, const char *name, const int64_t *dims, int nd) {
  int wide = 0;
  for (int i = 0; i < nd; i++) wide |= dims[i] > 2147483647LL;
  int64_t n = nd;
  tfc_tensor *t = tfc_tensor_new(wide ? TFC_DT_INT64 : TFC_DT_INT32, &n, 1, c->s);
  if (!t) return (tfc_endpoint){NULL, 0};
  for (int i = 0; i < nd; i++) {
    if (wide) ((int64_t *)t->data)[i] = dims[i];
    else ((int32_t *)t->data)[i] = (int32_t)dims[i];
  }
  return bld_const(c, w, name, t);
}

/* A tensor of dtype (float, double, int32, int64) and dims holding v everywhere. */
static tfc_tensor *filled_tensor(bld_call *c, int dtype, const int64_t *dims, int nd, double v) {
  tfc_tensor *t = v == 0 ? tfc_tensor_zeros(dtype, dims, nd, c->s) : tfc_tensor_new(dtype, dims, nd, c->s);
  int64_t n = tfc_dims_num_elements(dims, nd);
  for (int64_t i = 0; t && v != 0 && i < n; i++) {
    switch (dtype) {
      case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v; break;
      case TFC_DT_DOUBLE: ((double *)t->data)[i] = v; break;
      case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
      default: ((int64_t *)t->data)[i] = (int64_t)v; break;
    }
  }
  return t;
}

tfc_endpoint bld_zeros(bld_call *c, const bld_where *w, const int64_t *dims, int nd, int dtype) {
  return bld_filled(c, w, dims, nd, dtype, BLD_FILL_ZEROS, 0);
}

tfc_endpoint bld_filled(bld_call *c, const bld_where *w, const int64_t *dims, int nd, int dtype, int fill,
                        double v) {
  static const char *const names[] = {"", "zeros", "ones", "Const"};
  tfc_endpoint none = {NULL, 0};
  if (!tfc_status_ok(c->s) || check_dims(c, dims, nd)) return none;
  if (fill < BLD_FILL_ZEROS || fill > BLD_FILL_CONST) {
    tfc_status_set(c->s, TFC_INTERNAL, "bld_filled: unknown fill %d", fill);
    return none;
  }
  if (dtype != TFC_DT_FLOAT && dtype != TFC_DT_DOUBLE && dtype != TFC_DT_INT32 && dtype != TFC_DT_INT64) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "unsupported dtype %s for %s", tfc_dtype_name(dtype), names[fill]);
    return none;
  }
  if (fill == BLD_FILL_ZEROS) v = 0;
  if (fill == BLD_FILL_ONES) v = 1;
  /* constant_initializer: one Const of the whole shape, whatever its size. */
  if (fill == BLD_FILL_CONST) return bld_const(c, w, "Const", filled_tensor(c, dtype, dims, nd, v));
  char *scope = bld_unique(c, w->scope, names[fill]);
  char *exact = scope ? slash(scope) : NULL;
  if (!exact) {
    if (tfc_status_ok(c->s)) TFC_OOM(c->s);
    free(scope);
    return none;
  }
  bld_where in = *w, root = root_of(w);
  in.scope = scope;
  tfc_endpoint r;
  /* array_ops.zeros / ones: a constant below 1000 elements keeps GraphDefs small either way. */
  if (tfc_dims_num_elements(dims, nd) < 1000) {
    r = bld_const(c, &root, exact, filled_tensor(c, dtype, dims, nd, v));
  } else {
    tfc_endpoint ins[2];
    ins[0] = shape_const(c, &in, "shape_as_tensor", dims, nd);
    ins[1] = bld_scalar(c, &in, "Const", dtype, v);
    r = bld_op0(c, &root, "Fill", exact, ins, 2, NULL, 0);
  }
  free(scope);
  free(exact);
  return r;
}

/* The random initializers; kind selects the op and its parameters (a, b) = (mean, stddev) or
 * (minval, maxval). */
enum { RND_TRUNCATED = 0, RND_NORMAL = 1, RND_UNIFORM = 2 };

static tfc_endpoint random_init(bld_call *c, const bld_where *w, int kind, const int64_t *dims, int nd, double a,
                                double b, int dtype, int64_t op_seed) {
  static const char *const scope_names[] = {"truncated_normal", "random_normal", "random_uniform"};
  static const char *const ops[] = {"TruncatedNormal", "RandomStandardNormal", "RandomUniform"};
  tfc_endpoint none = {NULL, 0};
  if (check_dims(c, dims, nd)) return none;
  if (dtype != TFC_DT_FLOAT && dtype != TFC_DT_DOUBLE) {
    tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "%s: dtype must be float or double, got %s", scope_names[kind],
                   tfc_dtype_name(dtype));
    return none;
  }
  char *scope = bld_unique(c, w->scope, bld_builder_name(w->frames_from, scope_names[kind]));
  char *exact = scope ? slash(scope) : NULL;
  if (!exact) {
    if (tfc_status_ok(c->s)) TFC_OOM(c->s);
    free(scope);
    return none;
  }
  bld_where in = *w, root = root_of(w);
  in.scope = scope;
  tfc_endpoint shape = shape_const(c, &in, "shape", dims, nd);
  tfc_endpoint pa = bld_scalar(c, &in, kind == RND_UNIFORM ? "min" : "mean", dtype, a);
  tfc_endpoint pb = bld_scalar(c, &in, kind == RND_UNIFORM ? "max" : "stddev", dtype, b);
  tfc_endpoint r = none;
  if (tfc_status_ok(c->s)) {
    int64_t s1, s2;
    bld_seeds(c, op_seed, &s1, &s2);
    bld_attr at[3] = {{"dtype", tfc_attr_type(dtype)}, {"seed", tfc_attr_int(s1)}, {"seed2", tfc_attr_int(s2)}};
    tfc_endpoint rnd = bld_op0(c, &in, ops[kind], NULL, &shape, 1, at, 3);
    /* rnd * scale + offset; uniform's scale is (maxval - minval), made first as in Python. */
    tfc_endpoint scale = pb;
    if (kind == RND_UNIFORM) {
      tfc_endpoint d[2] = {pb, pa};
      scale = bld_op0(c, &in, "Sub", "sub", d, 2, NULL, 0);
    }
    tfc_endpoint m[2] = {rnd, scale};
    tfc_endpoint mul = bld_op0(c, &in, "Mul", "mul", m, 2, NULL, 0);
    tfc_endpoint s[2] = {mul, pa};
    r = bld_op0(c, &root, "AddV2", exact, s, 2, NULL, 0);
  }
  free(scope);
  free(exact);
  return r;
}

/* ---------------- public ---------------- */

TFC_EXPORT TF_Output TFC_ScalarConst(const TFC_Scope *scope, const char *name, TF_DataType dtype, double value,
                                    TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    o = bld_end_output(&c, bld_scalar(&c, &w, name ? name : "Const", (int)dtype, value));
  }
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_Zeros(const TFC_Scope *scope, const int64_t *dims, int num_dims, TF_DataType dtype,
                              TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    o = bld_end_output(&c, bld_zeros(&c, &w, dims, num_dims, (int)dtype));
  }
  tfc_status_fini(&scratch);
  return o;
}

static TF_Output random_public(const TFC_Scope *scope, int kind, const int64_t *dims, int nd, double a, double b,
                               TF_DataType dtype, int64_t seed, TF_Status *status) {
  tfc_status scratch;
  bld_call c;
  TF_Output o = {NULL, 0};
  if (bld_begin_scope(&c, scope, status, &scratch) == TFC_OK) {
    bld_where w = bld_where_of(scope, NULL);
    o = bld_end_output(&c, random_init(&c, &w, kind, dims, nd, a, b, (int)dtype, seed));
  }
  tfc_status_fini(&scratch);
  return o;
}

TFC_EXPORT TF_Output TFC_TruncatedNormal(const TFC_Scope *scope, const int64_t *dims, int num_dims, double mean,
                                        double stddev, TF_DataType dtype, int64_t seed, TF_Status *status) {
  return random_public(scope, RND_TRUNCATED, dims, num_dims, mean, stddev, dtype, seed, status);
}

TFC_EXPORT TF_Output TFC_RandomNormal(const TFC_Scope *scope, const int64_t *dims, int num_dims, double mean,
                                     double stddev, TF_DataType dtype, int64_t seed, TF_Status *status) {
  return random_public(scope, RND_NORMAL, dims, num_dims, mean, stddev, dtype, seed, status);
}

TFC_EXPORT TF_Output TFC_RandomUniform(const TFC_Scope *scope, const int64_t *dims, int num_dims, double minval,
                                      double maxval, TF_DataType dtype, int64_t seed, TF_Status *status) {
  return random_public(scope, RND_UNIFORM, dims, num_dims, minval, maxval, dtype, seed, status);
}
