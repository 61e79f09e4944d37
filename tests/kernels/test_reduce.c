/* Kernel tests: Sum, Mean, Prod, Max, Min, ArgMax and ArgMin against naive double-precision
 * references, over every axes pattern of a 3-D input, plus the reduction shape functions. */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_util.c"


enum { SUM, MEAN, PROD, MAX, MIN };
static const char *op_names[] = {"Sum", "Mean", "Prod", "Max", "Min"};

static tfc_tensor *axes_tensor(int tidx, const int64_t *axes, int n, int scalar) {
  int64_t d[1] = {n};
  tfc_tensor *t = ku_typed(tidx, d, scalar ? 0 : 1, NULL);
  for (int i = 0; i < n; i++) {
    if (tidx == TFC_DT_INT32) ((int32_t *)t->data)[i] = (int32_t)axes[i];
    else ((int64_t *)t->data)[i] = axes[i];
  }
  return t;
}

/* Reduces x over axes with op and compares with a naive reference. */
static void check_reduce(int op, int dt, const int64_t *dims, int nd, const int64_t *axes, int n_axes, int keep,
                         int tidx, int scalar_axes, double val_scale) {
  tfc_tensor *x = ku_typed(dt, dims, nd, NULL);
  for (int64_t i = 0; i < x->n_elems; i++) {
    double v = (double)((i * 29 + 7) % 23) - 11;
    if (op == PROD) v = ku_is_float(dt) ? 0.9 + 0.01 * (double)(i % 21) : (i % 7 == 0 ? 2 : (i % 5 == 0 ? -1 : 1));
    ku_set(x, i, ku_is_float(dt) ? v * val_scale : v);
  }
  tfc_tensor *keepx = tfc_tensor_copy(x, NULL);
  tfc_tensor *in[2] = {x, axes_tensor(tidx, axes, n_axes, scalar_axes)}, *out = NULL;
  ku_attr attrs[2] = {{"keep_dims", tfc_attr_bool(keep)}, {"Tidx", tfc_attr_type(tidx)}};
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run(op_names[op], attrs, 2, in, 2, NULL, &out, 1, &s);
  if (rc) tfc_test_fail(__FILE__, __LINE__, "%s: %s", op_names[op], tfc_status_msg(&s));
  int red[TFC_MAX_DIMS] = {0};
  for (int i = 0; i < n_axes; i++) red[axes[i] < 0 ? axes[i] + nd : axes[i]] = 1;
  /* expected output shape */
  int64_t od[TFC_MAX_DIMS];
  int on = 0;
  int64_t n_out = 1, count = 1;
  for (int i = 0; i < nd; i++) {
    if (!red[i]) od[on++] = dims[i];
    else if (keep) od[on++] = 1;
    if (red[i]) count *= dims[i];
    else n_out *= dims[i];
  }
  EXPECT_EQ(out->ndims, on);
  for (int i = 0; i < on; i++) EXPECT_EQ(out->dims[i], od[i]);
  EXPECT_EQ(out->dtype, dt);
  double *acc = malloc(sizeof(double) * (size_t)(n_out ? n_out : 1));
  for (int64_t o = 0; o < n_out; o++)
    acc[o] = op == SUM || op == MEAN ? 0 : op == PROD ? 1 : op == MAX ? -INFINITY : INFINITY;
  for (int64_t i = 0; i < x->n_elems; i++) {
    int64_t rem = i, o = 0, mul = 1;
    for (int a = nd - 1; a >= 0; a--) {
      int64_t idx = rem % dims[a];
      rem /= dims[a];
      if (!red[a]) {
        o += idx * mul;
        mul *= dims[a];
      }
    }
    double v = tfc_tensor_get_f64(keepx, i);
    if (op == SUM || op == MEAN) acc[o] += v;
    else if (op == PROD) acc[o] *= v;
    else if (op == MAX) acc[o] = v > acc[o] ? v : acc[o];
    else acc[o] = v < acc[o] ? v : acc[o];
  }
  for (int64_t o = 0; o < n_out; o++) {
    double want = acc[o];
    if (op == MEAN) want = ku_is_float(dt) ? want / (double)count : (count ? (double)((int64_t)want / count) : 0);
    double got = tfc_tensor_get_f64(out, o);
    if (isinf(want) && !ku_is_float(dt)) /* integer identities are the type's extremes */
      want = dt == TFC_DT_INT32 ? (want < 0 ? INT32_MIN : INT32_MAX) : (want < 0 ? (double)INT64_MIN : (double)INT64_MAX);
    if (isinf(want) || isnan(want)) {
      if (!(isnan(want) ? isnan(got) : got == want))
        tfc_test_fail(__FILE__, __LINE__, "%s elem %lld: %g, want %g", op_names[op], (long long)o, got, want);
      continue;
    }
    double tol = dt == TFC_DT_FLOAT ? 1e-5 : (dt == TFC_DT_DOUBLE ? 1e-12 : 0);
    if (!(fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1)))
      tfc_test_fail(__FILE__, __LINE__, "%s %s elem %lld: %.9g, want %.9g", op_names[op], tfc_dtype_name(dt),
                    (long long)o, got, want);
  }
  free(acc);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(keepx);
  tfc_status_fini(&s);
}

static const int main_types[] = {TFC_DT_FLOAT, TFC_DT_DOUBLE, TFC_DT_INT32, TFC_DT_INT64};

static void every_axes_pattern_every_op_every_type(void) {
  int64_t dims[3] = {3, 4, 5};
  for (int op = 0; op < 5; op++)
    for (int t = 0; t < 4; t++)
      for (int mask = 0; mask < 8; mask++) {
        int64_t axes[3];
        int n = 0;
        for (int a = 0; a < 3; a++)
          if (mask & (1 << a)) axes[n++] = a;
        for (int keep = 0; keep < 2; keep++) check_reduce(op, main_types[t], dims, 3, axes, n, keep, TFC_DT_INT32, 0, 1);
      }
}

static void four_d_patterns_collapse_correctly(void) {
  int64_t dims[4] = {2, 3, 1, 4};
  int64_t a1[2] = {0, 2}, a2[2] = {1, 3}, a3[2] = {0, 3}, a4[3] = {0, 1, 2};
  check_reduce(SUM, TFC_DT_FLOAT, dims, 4, a1, 2, 0, TFC_DT_INT32, 0, 1);
  check_reduce(SUM, TFC_DT_FLOAT, dims, 4, a2, 2, 1, TFC_DT_INT32, 0, 1);
  check_reduce(MAX, TFC_DT_INT32, dims, 4, a3, 2, 0, TFC_DT_INT32, 0, 1);
  check_reduce(MEAN, TFC_DT_DOUBLE, dims, 4, a4, 3, 0, TFC_DT_INT32, 0, 1);
  int64_t d5[5] = {2, 3, 2, 3, 2}, a5[2] = {1, 3}, a6[3] = {0, 2, 4};
  check_reduce(SUM, TFC_DT_INT64, d5, 5, a5, 2, 0, TFC_DT_INT64, 0, 1);
  check_reduce(MIN, TFC_DT_FLOAT, d5, 5, a6, 3, 1, TFC_DT_INT64, 0, 1);
}

static void negative_scalar_and_int64_axes(void) {
  int64_t dims[2] = {4, 6}, neg = -1, neg2[2] = {-2, -1};
  check_reduce(SUM, TFC_DT_FLOAT, dims, 2, &neg, 1, 0, TFC_DT_INT32, 1, 1);
  check_reduce(MAX, TFC_DT_DOUBLE, dims, 2, &neg, 1, 1, TFC_DT_INT64, 1, 1);
  check_reduce(PROD, TFC_DT_INT32, dims, 2, neg2, 2, 0, TFC_DT_INT64, 0, 1);
  /* duplicates are one axis */
  int64_t dup[2] = {1, -1};
  check_reduce(SUM, TFC_DT_INT32, dims, 2, dup, 2, 0, TFC_DT_INT32, 0, 1);
}

static void empty_axes_is_identity_and_forwards(void) {
  int64_t dims[2] = {2, 3};
  check_reduce(MEAN, TFC_DT_FLOAT, dims, 2, NULL, 0, 0, TFC_DT_INT32, 0, 1);
  check_reduce(SUM, TFC_DT_INT64, dims, 2, NULL, 0, 1, TFC_DT_INT32, 0, 1);
  /* reducing only size-1 dims passes the values through as well */
  int64_t d1[3] = {2, 1, 3}, ax = 1;
  check_reduce(PROD, TFC_DT_DOUBLE, d1, 3, &ax, 1, 0, TFC_DT_INT32, 0, 1);
}

static void small_integer_types(void) {
  int64_t dims[2] = {3, 5}, ax = 1;
  check_reduce(SUM, TFC_DT_INT16, dims, 2, &ax, 1, 0, TFC_DT_INT32, 0, 1);
  check_reduce(MAX, TFC_DT_INT16, dims, 2, &ax, 1, 0, TFC_DT_INT32, 0, 1);
  check_reduce(MEAN, TFC_DT_INT32, dims, 2, &ax, 1, 0, TFC_DT_INT32, 0, 1);
}

static void zero_element_reductions_give_identities(void) {
  int64_t dims[2] = {0, 3}, ax = 0;
  for (int op = 0; op < 5; op++) {
    check_reduce(op, TFC_DT_FLOAT, dims, 2, &ax, 1, 0, TFC_DT_INT32, 0, 1);
    check_reduce(op, TFC_DT_INT32, dims, 2, &ax, 1, 1, TFC_DT_INT32, 0, 1);
  }
  /* and explicitly: Max of nothing is -inf, Mean of nothing NaN */
  tfc_tensor *x = ku_f32(dims, 2, NULL), *axes = axes_tensor(TFC_DT_INT32, &ax, 1, 0), *out = NULL;
  tfc_tensor *in[2] = {x, axes};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Max", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(isinf(((float *)out->data)[0]) && ((float *)out->data)[0] < 0);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run("Mean", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(isnan(((float *)out->data)[2]));
  tfc_tensor_unref(out);
  /* reducing the non-empty axis gives an empty output */
  int64_t ax1 = 1;
  tfc_tensor_unref(axes);
  in[1] = axes_tensor(TFC_DT_INT32, &ax1, 1, 0);
  EXPECT_EQ(ku_run("Sum", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 1);
  EXPECT_EQ(out->dims[0], 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(x);
}

static void large_float_sums_stay_accurate(void) {
  /* full reduction (split in blocks), row reduction and column reduction */
  int64_t d1[1] = {1 << 20}, ax0 = 0, ax1 = 1;
  check_reduce(SUM, TFC_DT_FLOAT, d1, 1, &ax0, 1, 0, TFC_DT_INT32, 0, 0.001);
  check_reduce(MEAN, TFC_DT_FLOAT, d1, 1, &ax0, 1, 0, TFC_DT_INT32, 0, 1);
  check_reduce(MAX, TFC_DT_INT32, d1, 1, &ax0, 1, 0, TFC_DT_INT32, 0, 1);
  int64_t d2[2] = {512, 1000};
  check_reduce(SUM, TFC_DT_FLOAT, d2, 2, &ax1, 1, 0, TFC_DT_INT32, 0, 0.5);
  check_reduce(SUM, TFC_DT_FLOAT, d2, 2, &ax0, 1, 0, TFC_DT_INT32, 0, 0.5);
  check_reduce(MIN, TFC_DT_DOUBLE, d2, 2, &ax0, 1, 1, TFC_DT_INT32, 0, 1);
}

static void invalid_axis_is_rejected(void) {
  int64_t dims[2] = {2, 3}, bad = 2;
  tfc_tensor *in[2] = {ku_f32(dims, 2, NULL), axes_tensor(TFC_DT_INT32, &bad, 1, 0)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Sum", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Invalid reduction dimension (2 for input with 2 dimension(s)");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[1]);
  bad = -3;
  in[1] = axes_tensor(TFC_DT_INT64, &bad, 1, 1);
  ku_attr a = {"Tidx", tfc_attr_type(TFC_DT_INT64)};
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Max", &a, 1, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Invalid reduction dimension (-3 for input with 2 dimension(s)");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* ---- shape function with constant axes ---- */

static tfc_node *const_node(tfc_graph *g, const char *name, tfc_tensor *value, tfc_status *s) {
  tfc_node_desc *d = tfc_node_desc_new(g, "Const", name);
  tfc_attr_value v = tfc_attr_tensor(tfc_tensor_ref(value)), t = tfc_attr_type(value->dtype);
  tfc_node_desc_set_attr(d, "value", &v);
  tfc_node_desc_set_attr(d, "dtype", &t);
  return tfc_node_desc_finish(d, s);
}

static tfc_node *placeholder(tfc_graph *g, int rank, const int64_t *dims, tfc_status *s) {
  tfc_node_desc *d = tfc_node_desc_new(g, "Placeholder", "x");
  tfc_attr_value t = tfc_attr_type(TFC_DT_FLOAT), sv;
  tfc_node_desc_set_attr(d, "dtype", &t);
  tfc_shape sh = rank < 0 ? tfc_shape_unknown() : tfc_shape_make(dims, rank);
  tfc_attr_shape(&sh, &sv, s);
  tfc_node_desc_set_attr(d, "shape", &sv);
  return tfc_node_desc_finish(d, s);
}

/* Builds op(x, Const value) and returns the inferred output shape text, or the error. */
static void infer(const char *op, int keep, int rank, const int64_t *dims, tfc_tensor *value, char *buf, size_t n) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_graph *g = tfc_graph_new();
  tfc_node *x = placeholder(g, rank, dims, &s), *k = const_node(g, "k", value, &s);
  tfc_node_desc *d = tfc_node_desc_new(g, op, "op");
  tfc_node_desc_add_input(d, (tfc_endpoint){x, 0});
  tfc_node_desc_add_input(d, (tfc_endpoint){k, 0});
  if (keep >= 0) {
    tfc_attr_value kv = tfc_attr_bool(keep);
    tfc_node_desc_set_attr(d, "keep_dims", &kv);
  }
  tfc_node *node = tfc_node_desc_finish(d, &s);
  if (node) tfc_shape_str(&node->output_shapes[0], buf, n);
  else snprintf(buf, n, "%s", tfc_status_msg(&s));
  tfc_graph_free(g);
  tfc_tensor_unref(value);
  tfc_status_fini(&s);
}

static void reduction_shape_function_uses_const_axes(void) {
  int64_t dims[3] = {2, -1, 4}, ax[2] = {0, -1};
  char buf[1024];
  infer("Sum", 0, 3, dims, axes_tensor(TFC_DT_INT32, ax, 2, 0), buf, sizeof buf);
  EXPECT_STREQ(buf, "[?]");
  infer("Mean", 1, 3, dims, axes_tensor(TFC_DT_INT64, ax, 2, 0), buf, sizeof buf);
  EXPECT_STREQ(buf, "[1,?,1]");
  infer("Max", 0, 3, dims, axes_tensor(TFC_DT_INT32, ax + 1, 1, 1), buf, sizeof buf);
  EXPECT_STREQ(buf, "[2,?]");
  int64_t bad = 3;
  infer("Sum", 0, 3, dims, axes_tensor(TFC_DT_INT32, &bad, 1, 0), buf, sizeof buf);
  EXPECT_CONTAINS(buf, "Invalid reduction dimension 3 for input with 3 dimensions. for 'op' (op: 'Sum')");
  infer("Sum", 1, -1, dims, axes_tensor(TFC_DT_INT32, ax, 2, 0), buf, sizeof buf);
  EXPECT_STREQ(buf, "<unknown>");
  infer("ArgMax", -1, 3, dims, axes_tensor(TFC_DT_INT32, ax + 1, 1, 1), buf, sizeof buf);
  EXPECT_STREQ(buf, "[2,?]");
  infer("ArgMin", -1, 3, dims, axes_tensor(TFC_DT_INT32, &bad, 1, 1), buf, sizeof buf);
  EXPECT_CONTAINS(buf, "Dimension (3) must be in the range [-3, 3), where 3 is the number of dimensions in the input.");
  infer("ArgMax", -1, 3, dims, axes_tensor(TFC_DT_INT32, ax, 2, 0), buf, sizeof buf);
  EXPECT_CONTAINS(buf, "Shape must be rank 0 but is rank 1");
}

/* ---- ArgMax / ArgMin ---- */

static void check_arg(const char *op, int dt, const int64_t *dims, int nd, int64_t axis, int out_type) {
  tfc_tensor *x = ku_typed(dt, dims, nd, NULL);
  for (int64_t i = 0; i < x->n_elems; i++) ku_set(x, i, (double)((i * 13 + 5) % 7)); /* has ties */
  int64_t ax = axis;
  tfc_tensor *in[2] = {x, axes_tensor(TFC_DT_INT32, &ax, 1, 1)}, *out = NULL;
  ku_attr a = {"output_type", tfc_attr_type(out_type)};
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run(op, &a, 1, in, 2, NULL, &out, 1, &s);
  if (rc) tfc_test_fail(__FILE__, __LINE__, "%s: %s", op, tfc_status_msg(&s));
  EXPECT_EQ(out->dtype, out_type);
  int64_t ax_n = axis < 0 ? axis + nd : axis, outer = 1, inner = 1;
  for (int i = 0; i < nd; i++) {
    if (i < ax_n) outer *= dims[i];
    if (i > ax_n) inner *= dims[i];
  }
  EXPECT_EQ(out->ndims, nd - 1);
  int is_max = strcmp(op, "ArgMax") == 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < inner; c++) {
      int64_t best = 0;
      for (int64_t k = 1; k < dims[ax_n]; k++) {
        double v = tfc_tensor_get_f64(x, (o * dims[ax_n] + k) * inner + c);
        double b = tfc_tensor_get_f64(x, (o * dims[ax_n] + best) * inner + c);
        if (is_max ? v > b : v < b) best = k;
      }
      EXPECT_EQ(tfc_tensor_get_i64(out, o * inner + c), best);
    }
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void argmax_argmin_all_axes(void) {
  int64_t dims[3] = {3, 5, 4};
  for (int t = 0; t < 4; t++)
    for (int axis = -3; axis < 3; axis++) {
      check_arg("ArgMax", main_types[t], dims, 3, axis, TFC_DT_INT64);
      check_arg("ArgMin", main_types[t], dims, 3, axis, TFC_DT_INT32);
    }
  int64_t d1[1] = {9}, big[2] = {3, 3000};
  check_arg("ArgMax", TFC_DT_FLOAT, d1, 1, 0, TFC_DT_INT64);
  check_arg("ArgMin", TFC_DT_FLOAT, big, 2, 0, TFC_DT_INT64);
}

static void argmax_errors(void) {
  int64_t dims[2] = {2, 0}, ax = 1;
  tfc_tensor *in[2] = {ku_f32(dims, 2, NULL), axes_tensor(TFC_DT_INT32, &ax, 1, 1)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("ArgMax", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Reduction axis 1 is empty in shape [2,0]");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[1]);
  ax = 2;
  in[1] = axes_tensor(TFC_DT_INT32, &ax, 1, 1);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("ArgMin", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Expected dimension in the range [-2, 2), but got 2");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* All and Any over a [2,3] bool: rows, columns, everything, and nothing (true / false). */
static void all_and_any_reduce_bools(void) {
  const uint8_t v[6] = {1, 1, 1, 0, 1, 1};
  int64_t dims[2] = {2, 3}, zero_dims[2] = {2, 0};
  struct {
    const char *op;
    int64_t axis; /* -1: both axes */
    int zero;     /* reduce the empty [2,0] input over axis 1 */
    int n_out;
    uint8_t want[3];
  } cases[] = {{"All", 1, 0, 2, {1, 0}},  {"Any", 1, 0, 2, {1, 1}}, {"All", 0, 0, 3, {0, 1, 1}},
               {"Any", -1, 0, 1, {1}},     {"All", 1, 1, 2, {1, 1}}, {"Any", 1, 1, 2, {0, 0}}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tfc_tensor *x = cases[k].zero ? ku_bool(zero_dims, 2, NULL) : ku_bool(dims, 2, v);
    int64_t n_axes = cases[k].axis < 0 ? 2 : 1;
    int32_t both[2] = {0, 1}, one[1] = {(int32_t)cases[k].axis};
    tfc_tensor *in[2] = {x, ku_i32(&n_axes, 1, cases[k].axis < 0 ? both : one)}, *out = NULL;
    ku_attr attrs[1] = {{"keep_dims", tfc_attr_bool(0)}};
    tfc_status s;
    tfc_status_init(&s);
    if (ku_run(cases[k].op, attrs, 1, in, 2, NULL, &out, 1, &s))
      tfc_test_fail(__FILE__, __LINE__, "%s: %s", cases[k].op, tfc_status_msg(&s));
    EXPECT_EQ(out->dtype, TFC_DT_BOOL);
    EXPECT_EQ(out->n_elems, cases[k].n_out);
    for (int i = 0; i < cases[k].n_out; i++) EXPECT_EQ(((uint8_t *)out->data)[i], cases[k].want[i]);
    tfc_tensor_unref(out);
    tfc_tensor_unref(in[0]);
    tfc_tensor_unref(in[1]);
  }
}

static const tfc_test tests[] = {TFC_TEST(every_axes_pattern_every_op_every_type),
                                 TFC_TEST(all_and_any_reduce_bools),
                                 TFC_TEST(four_d_patterns_collapse_correctly),
                                 TFC_TEST(negative_scalar_and_int64_axes),
                                 TFC_TEST(empty_axes_is_identity_and_forwards),
                                 TFC_TEST(small_integer_types),
                                 TFC_TEST(zero_element_reductions_give_identities),
                                 TFC_TEST(large_float_sums_stay_accurate),
                                 TFC_TEST(invalid_axis_is_rejected),
                                 TFC_TEST(reduction_shape_function_uses_const_axes),
                                 TFC_TEST(argmax_argmin_all_axes),
                                 TFC_TEST(argmax_errors),
                                 {0}};
TFC_TEST_MAIN(tests)
