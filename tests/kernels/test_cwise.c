/* Kernel tests: element-wise math (binary, unary, comparisons, logical, Cast, AddN, Select)
 * against double-precision references computed here, with numpy broadcasting. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "kernel_util.c"

/* ---- helpers ---- */

static double getv(const tfc_tensor *t, int64_t i) { return tfc_tensor_get_f64(t, i); }

enum { D_ANY, D_NONZERO, D_POW, D_POSITIVE };

/* Deterministic test values; domain limits them where the op needs it. */
static double gen(int64_t i, int salt, int dt, int domain) {
  int base = (int)((i * 37 + salt * 11) % 19) - 9;
  if (dt == TFC_DT_UINT8 || dt == TFC_DT_UINT16) base = base < 0 ? -base : base;
  if (domain == D_POW) {
    if (salt == 2) return ku_is_float(dt) ? (base % 5) * 0.5 : (double)((base < 0 ? -base : base) % 4);
    base = base % 5;
  }
  if (domain == D_POSITIVE || (domain == D_POW && ku_is_float(dt))) base = base < 0 ? -base : base;
  if ((domain == D_NONZERO || domain == D_POSITIVE || domain == D_POW) && base == 0) base = 3;
  if (!ku_is_float(dt) || dt == TFC_DT_BOOL) return base;
  return base * 0.37 + (domain == D_NONZERO || domain == D_POSITIVE ? 0.0 : salt * 0.11) +
         (domain == D_POSITIVE ? 0.05 : 0);
}

static tfc_tensor *mk(int dt, const int64_t *dims, int nd, int salt, int domain) {
  tfc_tensor *t = ku_typed(dt, dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) ku_set(t, i, gen(i, salt, dt, domain));
  return t;
}

/* Flat index of x for output element o under numpy broadcasting. */
static int64_t bcast_index(int64_t o, const int64_t *od, int on, const int64_t *xd, int xn) {
  int64_t xi = 0, xstride = 1;
  for (int a = on - 1; a >= 0; a--) {
    int64_t idx = o % od[a];
    o /= od[a];
    int xa = a - (on - xn);
    if (xa >= 0) {
      if (xd[xa] != 1) xi += idx * xstride;
      xstride *= xd[xa];
    }
  }
  return xi;
}

static void expect_dims(const tfc_tensor *t, const int64_t *dims, int nd) {
  EXPECT_EQ(t->ndims, nd);
  for (int i = 0; i < nd; i++) EXPECT_EQ(t->dims[i], dims[i]);
}

typedef double (*ref2)(double, double);
typedef double (*ref1)(double);

/* Runs a binary op and checks every output element against ref (cast to the output type). */
static void check_bin(const char *op, int dt, const int64_t *xd, int xn, const int64_t *yd, int yn,
                      ref2 ref, int bool_out, int domain) {
  tfc_tensor *in[2] = {mk(dt, xd, xn, 1, domain == D_NONZERO ? D_ANY : domain), mk(dt, yd, yn, 2, domain)};
  /* keep copies of the inputs: the kernel may take over their buffers */
  tfc_tensor *keep[2] = {tfc_tensor_copy(in[0], NULL), tfc_tensor_copy(in[1], NULL)};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run(op, NULL, 0, in, 2, NULL, &out, 1, &s);
  if (rc != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "%s %s: %s", op, tfc_dtype_name(dt), tfc_status_msg(&s));
  int on = xn > yn ? xn : yn;
  int64_t od[TFC_MAX_DIMS];
  for (int a = 0; a < on; a++) {
    int xa = a - (on - xn), ya = a - (on - yn);
    int64_t dx = xa >= 0 ? xd[xa] : 1, dy = ya >= 0 ? yd[ya] : 1;
    od[a] = dx == 1 ? dy : dx;
  }
  expect_dims(out, od, on);
  EXPECT_EQ(out->dtype, bool_out ? TFC_DT_BOOL : dt);
  for (int64_t o = 0; o < out->n_elems; o++) {
    double a = getv(keep[0], bcast_index(o, od, on, xd, xn)), b = getv(keep[1], bcast_index(o, od, on, yd, yn));
    double want = ref(a, b);
    if (bool_out) want = want != 0;
    else if (!ku_is_float(dt)) want = (double)(int64_t)want;
    double got = getv(out, o);
    if (!(fabs(got - want) <= (dt == TFC_DT_FLOAT ? 1e-5 : 1e-12) * (fabs(want) > 1 ? fabs(want) : 1)))
      tfc_test_fail(__FILE__, __LINE__, "%s %s elem %lld: %.9g op %.9g = %.9g, want %.9g", op, tfc_dtype_name(dt),
                    (long long)o, a, b, got, want);
  }
  tfc_tensor_unref(out);
  for (int k = 0; k < 2; k++) {
    tfc_tensor_unref(in[k]);
    tfc_tensor_unref(keep[k]);
  }
  tfc_status_fini(&s);
}

static void check_un(const char *op, int dt, ref1 ref, int domain) {
  int64_t d[2] = {3, 7};
  tfc_tensor *x = mk(dt, d, 2, 1, domain), *keep = tfc_tensor_copy(x, NULL), *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run(op, NULL, 0, &x, 1, NULL, &out, 1, &s);
  if (rc != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "%s %s: %s", op, tfc_dtype_name(dt), tfc_status_msg(&s));
  expect_dims(out, d, 2);
  EXPECT_EQ(out->dtype, dt);
  for (int64_t i = 0; i < out->n_elems; i++) {
    double a = getv(keep, i), want = ref(a);
    if (!ku_is_float(dt)) want = (double)(int64_t)want;
    if (!(fabs(getv(out, i) - want) <= 1e-6 * (fabs(want) > 1 ? fabs(want) : 1)))
      tfc_test_fail(__FILE__, __LINE__, "%s %s(%.9g) = %.9g, want %.9g", op, tfc_dtype_name(dt), a, getv(out, i), want);
  }
  tfc_tensor_unref(out);
  tfc_tensor_unref(x);
  tfc_tensor_unref(keep);
  tfc_status_fini(&s);
}

/* ---- references ---- */

static double r_add(double a, double b) { return a + b; }
static double r_sub(double a, double b) { return a - b; }
static double r_mul(double a, double b) { return a * b; }
static double r_div(double a, double b) { return a / b; }
static double r_idiv(double a, double b) { return trunc(a / b); }
static double r_floordiv(double a, double b) { return floor(a / b); }
static double r_floormod(double a, double b) { return a - floor(a / b) * b; }
static double r_max(double a, double b) { return a > b ? a : b; }
static double r_min(double a, double b) { return a < b ? a : b; }
static double r_pow(double a, double b) { return pow(a, b); }
static double r_lt(double a, double b) { return a < b; }
static double r_le(double a, double b) { return a <= b; }
static double r_gt(double a, double b) { return a > b; }
static double r_ge(double a, double b) { return a >= b; }
static double r_eq(double a, double b) { return a == b; }
static double r_ne(double a, double b) { return a != b; }
static double r_and(double a, double b) { return a != 0 && b != 0; }
static double r_or(double a, double b) { return a != 0 || b != 0; }

static const int64_t D23[2] = {2, 3}, D3[1] = {3}, D21[2] = {2, 1}, D13[2] = {1, 3}, D214[3] = {2, 1, 4},
                     D31[2] = {3, 1}, D0[1] = {0};

/* Every main dtype through same-shape, scalar (both sides), row, column and 3-D broadcasts. */
static void check_bin_all_shapes(const char *op, int dt, ref2 ref, int bool_out, int domain) {
  check_bin(op, dt, D23, 2, D23, 2, ref, bool_out, domain);
  check_bin(op, dt, D23, 2, NULL, 0, ref, bool_out, domain);
  check_bin(op, dt, NULL, 0, D23, 2, ref, bool_out, domain);
  check_bin(op, dt, D23, 2, D3, 1, ref, bool_out, domain);
  check_bin(op, dt, D21, 2, D13, 2, ref, bool_out, domain);
  check_bin(op, dt, D214, 3, D31, 2, ref, bool_out, domain);
  check_bin(op, dt, D31, 2, D214, 3, ref, bool_out, domain);
}

static const int main_types[] = {TFC_DT_FLOAT, TFC_DT_DOUBLE, TFC_DT_INT32, TFC_DT_INT64};
static const int small_types[] = {TFC_DT_UINT8, TFC_DT_INT8, TFC_DT_INT16, TFC_DT_UINT16};

static void add_sub_mul_all_types_and_broadcasts(void) {
  const char *ops[] = {"Add", "AddV2", "Sub", "Mul"};
  ref2 refs[] = {r_add, r_add, r_sub, r_mul};
  for (int o = 0; o < 4; o++)
    for (int t = 0; t < 4; t++) check_bin_all_shapes(ops[o], main_types[t], refs[o], 0, D_ANY);
  for (int t = 0; t < 4; t++) {
    if (small_types[t] == TFC_DT_UINT16) continue; /* Add is not defined for uint16 in TF */
    check_bin("Add", small_types[t], D23, 2, D3, 1, r_add, 0, D_NONZERO);
    check_bin("Mul", small_types[t], D23, 2, D3, 1, r_mul, 0, D_NONZERO);
  }
}

static void division_ops_match_tf_semantics(void) {
  for (int t = 0; t < 4; t++) {
    int dt = main_types[t];
    check_bin_all_shapes("Div", dt, ku_is_float(dt) ? r_div : r_idiv, 0, D_NONZERO);
    check_bin_all_shapes("FloorDiv", dt, r_floordiv, 0, D_NONZERO);
    check_bin_all_shapes("FloorMod", dt, r_floormod, 0, D_NONZERO);
    if (ku_is_float(dt)) check_bin_all_shapes("RealDiv", dt, r_div, 0, D_NONZERO);
  }
  check_bin("Div", TFC_DT_INT16, D23, 2, D3, 1, r_idiv, 0, D_NONZERO);
  check_bin("FloorDiv", TFC_DT_INT8, D23, 2, D3, 1, r_floordiv, 0, D_NONZERO);
  check_bin("FloorDiv", TFC_DT_UINT8, D23, 2, D3, 1, r_floordiv, 0, D_NONZERO);
}

static void integer_division_edge_values(void) {
  int64_t d[1] = {6};
  int32_t x[6] = {7, -7, 7, -7, INT32_MIN, 0}, y[6] = {2, 2, -2, -2, -1, 5};
  tfc_tensor *in[2], *out;
  tfc_status s;
  tfc_status_init(&s);
  const char *ops[3] = {"Div", "FloorDiv", "FloorMod"};
  int32_t want[3][6] = {{3, -3, -3, 3, INT32_MIN, 0}, {3, -4, -4, 3, INT32_MIN, 0}, {1, 1, -1, -1, 0, 0}};
  for (int o = 0; o < 3; o++) {
    in[0] = ku_i32(d, 1, x);
    in[1] = ku_i32(d, 1, y);
    EXPECT_EQ(ku_run(ops[o], NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
    for (int i = 0; i < 6; i++) EXPECT_EQ(((int32_t *)out->data)[i], want[o][i]);
    tfc_tensor_unref(out);
    tfc_tensor_unref(in[0]);
    tfc_tensor_unref(in[1]);
  }
  tfc_status_fini(&s);
}

static void integer_division_by_zero_fails(void) {
  const char *ops[3] = {"Div", "FloorDiv", "FloorMod"};
  for (int o = 0; o < 3; o++) {
    int64_t d[1] = {3};
    int64_t x[3] = {1, 2, 3}, y[3] = {1, 0, 1};
    tfc_tensor *in[2] = {ku_i64(d, 1, x), ku_i64(d, 1, y)}, *out = NULL;
    tfc_status s;
    tfc_status_init(&s);
    EXPECT_EQ(ku_run(ops[o], NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
    EXPECT_STREQ(tfc_status_msg(&s), "Integer division by zero");
    tfc_tensor_unref(in[0]);
    tfc_tensor_unref(in[1]);
    tfc_status_fini(&s);
  }
}

static void max_min_pow(void) {
  for (int t = 0; t < 4; t++) {
    check_bin_all_shapes("Maximum", main_types[t], r_max, 0, D_ANY);
    check_bin_all_shapes("Minimum", main_types[t], r_min, 0, D_ANY);
    check_bin_all_shapes("Pow", main_types[t], r_pow, 0, D_POW);
  }
}

static void integer_pow_rejects_negative_exponent(void) {
  int32_t x = 2, y = -1;
  tfc_tensor *in[2] = {ku_i32(NULL, 0, &x), ku_i32(NULL, 0, &y)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Pow", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Integers to negative integer powers are not allowed");
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

static void integer_add_wraps(void) {
  int32_t x = INT32_MAX, y = 1;
  tfc_tensor *in[2] = {ku_i32(NULL, 0, &x), ku_i32(NULL, 0, &y)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Mul", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(*(int32_t *)out->data, INT32_MAX);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run("Add", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(*(int32_t *)out->data, INT32_MIN);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void comparisons_and_logical(void) {
  const char *ops[] = {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"};
  ref2 refs[] = {r_lt, r_le, r_gt, r_ge, r_eq, r_ne};
  for (int o = 0; o < 6; o++) {
    for (int t = 0; t < 4; t++) check_bin_all_shapes(ops[o], main_types[t], refs[o], 1, D_ANY);
    check_bin(ops[o], TFC_DT_UINT8, D23, 2, D3, 1, refs[o], 1, D_ANY);
  }
  check_bin_all_shapes("Equal", TFC_DT_BOOL, r_eq, 1, D_ANY);
  check_bin_all_shapes("LogicalAnd", TFC_DT_BOOL, r_and, 1, D_ANY);
  check_bin_all_shapes("LogicalOr", TFC_DT_BOOL, r_or, 1, D_ANY);
}

static void empty_broadcast_gives_empty_output(void) {
  check_bin("Add", TFC_DT_FLOAT, D0, 1, NULL, 0, r_add, 0, D_ANY);
  int64_t d01[2] = {0, 1};
  check_bin("Mul", TFC_DT_FLOAT, d01, 2, D3, 1, r_mul, 0, D_ANY);
}

static void large_broadcast_runs_in_parallel(void) {
  int64_t xd[2] = {600, 512}, yd[1] = {512}, cd[2] = {600, 1};
  check_bin("Add", TFC_DT_FLOAT, xd, 2, yd, 1, r_add, 0, D_ANY);
  check_bin("Mul", TFC_DT_FLOAT, xd, 2, cd, 2, r_mul, 0, D_ANY);
  check_bin("Sub", TFC_DT_DOUBLE, xd, 2, xd, 2, r_sub, 0, D_ANY);
  check_bin("Div", TFC_DT_INT32, xd, 2, NULL, 0, r_idiv, 0, D_NONZERO);
}

static void incompatible_shapes_fail_at_graph_build_and_run_time(void) {
  int64_t a[2] = {2, 3}, b[2] = {3, 2};
  tfc_tensor *in[2] = {ku_f32(a, 2, NULL), ku_f32(b, 2, NULL)}, *out = NULL;
  memset(in[0]->data, 0, in[0]->n_bytes);
  memset(in[1]->data, 0, in[1]->n_bytes);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Add", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimensions must be equal, but are 2 and 3 for 'op' (op: 'Add') with input shapes: [2,3], [3,2].");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("Add", NULL, 0, in, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Incompatible shapes: [2,3] vs. [3,2]");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void equal_with_incompatible_shapes_allowed_gives_scalar(void) {
  int64_t a[1] = {2}, b[1] = {3};
  tfc_tensor *in[2] = {ku_f32(a, 1, NULL), ku_f32(b, 1, NULL)}, *out = NULL;
  memset(in[0]->data, 0, in[0]->n_bytes);
  memset(in[1]->data, 0, in[1]->n_bytes);
  ku_attr attr = {"incompatible_shape_error", tfc_attr_bool(0)};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Equal", &attr, 1, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->ndims, 0);
  EXPECT_EQ(*(uint8_t *)out->data, 0);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run("NotEqual", &attr, 1, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(*(uint8_t *)out->data, 1);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void equal_compares_strings_by_bytes(void) {
  int64_t d[1] = {3};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *x = tfc_tensor_new(TFC_DT_STRING, d, 1, &s), *y = tfc_tensor_new(TFC_DT_STRING, NULL, 0, &s), *out;
  const char *xs[3] = {"ab", "", "abc"};
  for (int i = 0; i < 3; i++) tfc_tstring_assign(&tfc_tensor_strings(x)[i], xs[i], strlen(xs[i]), &s);
  tfc_tstring_assign(&tfc_tensor_strings(y)[0], "ab", 2, &s);
  tfc_tensor *in[2] = {x, y};
  EXPECT_EQ(ku_run("Equal", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  uint8_t want[3] = {1, 0, 0};
  for (int i = 0; i < 3; i++) EXPECT_EQ(((uint8_t *)out->data)[i], want[i]);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run("NotEqual", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  for (int i = 0; i < 3; i++) EXPECT_EQ(((uint8_t *)out->data)[i], !want[i]);
  tfc_tensor_unref(out);
  tfc_tensor_unref(x);
  tfc_tensor_unref(y);
}

/* DivNoNan (tf.div_no_nan): x / y, and 0 where y is 0 (even 0/0 and inf/0); y broadcasts. */
static void div_no_nan_is_zero_where_y_is_zero(void) {
  int64_t d[2] = {2, 3}, dy[1] = {3};
  float x[6] = {1, -2, 3, 0, INFINITY, 6}, y[3] = {2, 0, 4};
  double xd[6] = {1, -2, 3, 0, 5, 6}, yd[3] = {0, 0.5, 0};
  tfc_tensor *in[2] = {ku_f32(d, 2, x), ku_f32(dy, 1, y)}, *ind[2] = {ku_f64(d, 2, xd), ku_f64(dy, 1, yd)};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("DivNoNan", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  const float want[6] = {0.5f, 0, 0.75f, 0, 0, 1.5f};
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)out->data)[i], want[i], 0);
  tfc_tensor_unref(out);
  EXPECT_EQ(ku_run("DivNoNan", NULL, 0, ind, 2, NULL, &out, 1, &s), TFC_OK);
  const double wantd[6] = {0, -4, 0, 0, 10, 0};
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((double *)out->data)[i], wantd[i], 0);
  tfc_tensor_unref(out);
  for (int k = 0; k < 2; k++) {
    tfc_tensor_unref(in[k]);
    tfc_tensor_unref(ind[k]);
  }
  tfc_status_fini(&s);
}

static void output_reuses_sole_input_buffer(void) {
  int64_t d[1] = {4};
  float x[4] = {1, 2, 3, 4}, y = 2;
  tfc_tensor *in[2] = {ku_f32(d, 1, x), ku_f32(NULL, 0, &y)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Mul", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(out->data == in[0]->data);
  EXPECT_NEAR(((float *)out->data)[3], 8, 0);
  tfc_tensor_unref(out);
  /* a second reference keeps the input intact */
  tfc_tensor *extra = tfc_tensor_ref(in[0]);
  EXPECT_EQ(ku_run("Mul", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(out->data != in[0]->data);
  EXPECT_NEAR(((float *)in[0]->data)[3], 8, 0);
  EXPECT_NEAR(((float *)out->data)[3], 16, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(extra);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

static void unsupported_dtype_lists_registered_kernels(void) {
  int64_t d[1] = {2};
  tfc_tensor *in[2] = {ku_typed(TFC_DT_UINT16, d, 1, NULL), ku_typed(TFC_DT_UINT16, d, 1, NULL)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Pow", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Value for attr 'T' of uint16 is not in the list of allowed values");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* ---- unary ---- */

static double u_abs(double a) { return fabs(a); }
static double u_neg(double a) { return -a; }
static double u_recip(double a) { return 1 / a; }
static double u_square(double a) { return a * a; }
static double u_sqrt(double a) { return sqrt(a); }
static double u_rsqrt(double a) { return 1 / sqrt(a); }
static double u_exp(double a) { return exp(a); }
static double u_log(double a) { return log(a); }
static double u_sign(double a) { return (a > 0) - (a < 0); }
static double u_not(double a) { return a == 0; }

static void unary_ops_all_types(void) {
  for (int t = 0; t < 4; t++) {
    int dt = main_types[t];
    check_un("Abs", dt, u_abs, D_ANY);
    check_un("Neg", dt, u_neg, D_ANY);
    check_un("Square", dt, u_square, D_ANY);
    check_un("Sign", dt, u_sign, D_ANY);
    if (!ku_is_float(dt)) continue;
    check_un("Reciprocal", dt, u_recip, D_NONZERO);
    check_un("Inv", dt, u_recip, D_NONZERO);
    check_un("Sqrt", dt, u_sqrt, D_POSITIVE);
    check_un("Rsqrt", dt, u_rsqrt, D_POSITIVE);
    check_un("Exp", dt, u_exp, D_ANY);
    check_un("Log", dt, u_log, D_POSITIVE);
  }
  check_un("Abs", TFC_DT_INT8, u_abs, D_ANY);
  check_un("Abs", TFC_DT_INT16, u_abs, D_ANY);
  check_un("LogicalNot", TFC_DT_BOOL, u_not, D_ANY);
}

static void large_unary_runs_in_parallel(void) {
  int64_t d[1] = {300000};
  tfc_tensor *x = mk(TFC_DT_FLOAT, d, 1, 1, D_POSITIVE), *out = NULL;
  tfc_tensor *keep = tfc_tensor_copy(x, NULL);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Sqrt", NULL, 0, &x, 1, NULL, &out, 1, &s), TFC_OK);
  for (int64_t i = 0; i < d[0]; i += 997) EXPECT_NEAR(getv(out, i), sqrt(getv(keep, i)), 1e-6);
  tfc_tensor_unref(out);
  tfc_tensor_unref(x);
  tfc_tensor_unref(keep);
}

/* ---- Cast ---- */

static tfc_tensor *cast(tfc_tensor *x, int dst, int truncate) {
  ku_attr attrs[2] = {{"DstT", tfc_attr_type(dst)}, {"Truncate", tfc_attr_bool(truncate)}};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run("Cast", attrs, 2, &x, 1, NULL, &out, 1, &s);
  if (rc) tfc_test_fail(__FILE__, __LINE__, "Cast to %s: %s", tfc_dtype_name(dst), tfc_status_msg(&s));
  EXPECT_EQ(out->dtype, dst);
  return out;
}

static void cast_float_to_integers_truncates(void) {
  int64_t d[1] = {6};
  float v[6] = {1.9f, -1.9f, 0.0f, 300.5f, -0.5f, 3e9f};
  tfc_tensor *x = ku_f32(d, 1, v);
  tfc_tensor *o = cast(x, TFC_DT_INT32, 0);
  int32_t w32[6] = {1, -1, 0, 300, 0, INT32_MIN};
  for (int i = 0; i < 6; i++) EXPECT_EQ(((int32_t *)o->data)[i], w32[i]);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_INT64, 0);
  EXPECT_EQ(((int64_t *)o->data)[5], 3000000000LL);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_UINT8, 0);
  EXPECT_EQ(((uint8_t *)o->data)[3], 300 % 256);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_BOOL, 0);
  uint8_t wb[6] = {1, 1, 0, 1, 1, 1};
  for (int i = 0; i < 6; i++) EXPECT_EQ(((uint8_t *)o->data)[i], wb[i]);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_DOUBLE, 0);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((double *)o->data)[i], v[i], 0);
  tfc_tensor_unref(o);
  tfc_tensor_unref(x);
}

static void cast_integers_and_bool(void) {
  int64_t d[1] = {4};
  int64_t v[4] = {-1, 0, 257, 1LL << 40};
  tfc_tensor *x = ku_i64(d, 1, v);
  tfc_tensor *o = cast(x, TFC_DT_INT8, 0);
  int8_t w8[4] = {-1, 0, 1, 0};
  for (int i = 0; i < 4; i++) EXPECT_EQ(((int8_t *)o->data)[i], w8[i]);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_FLOAT, 0);
  for (int i = 0; i < 4; i++) EXPECT_NEAR(((float *)o->data)[i], (double)v[i], 1e-7);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_UINT16, 0);
  EXPECT_EQ(((uint16_t *)o->data)[0], 65535);
  tfc_tensor_unref(o);
  tfc_tensor_unref(x);
  uint8_t b[3] = {1, 0, 1};
  int64_t d3[1] = {3};
  x = ku_bool(d3, 1, b);
  o = cast(x, TFC_DT_FLOAT, 0);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(((float *)o->data)[i], b[i], 0);
  tfc_tensor_unref(o);
  o = cast(x, TFC_DT_INT32, 0);
  for (int i = 0; i < 3; i++) EXPECT_EQ(((int32_t *)o->data)[i], b[i]);
  tfc_tensor_unref(o);
  tfc_tensor_unref(x);
}

static void cast_to_same_type_shares_the_tensor(void) {
  float v = 2.5f;
  tfc_tensor *x = ku_f32(NULL, 0, &v), *o = cast(x, TFC_DT_FLOAT, 0);
  EXPECT_TRUE(o == x);
  tfc_tensor_unref(o);
  tfc_tensor_unref(x);
}

static void cast_half_and_bfloat16_round_to_nearest_even(void) {
  int64_t d[1] = {7};
  /* 1 + 2^-11 is a half tie (rounds to 1), 1 + 3*2^-11 rounds up to 1 + 2^-9; 65520 overflows. */
  float v[7] = {1.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, -2.5f, 65520.0f, 0x1p-24f, 1e-3f};
  float want_half[7] = {1.0f, 1.0f, 1.0f + 0x1p-9f, -2.5f, INFINITY, 0x1p-24f, 0.0010004043579101562f};
  tfc_tensor *x = ku_f32(d, 1, v), *h = cast(x, TFC_DT_HALF, 0), *back = cast(h, TFC_DT_FLOAT, 0);
  for (int i = 0; i < 7; i++) {
    float got = ((float *)back->data)[i];
    if (isinf(want_half[i])) EXPECT_TRUE(isinf(got) && got > 0);
    else EXPECT_NEAR(got, want_half[i], 0);
  }
  EXPECT_EQ(((uint16_t *)h->data)[0], 0x3c00);
  tfc_tensor_unref(back);
  tfc_tensor_unref(h);
  /* bfloat16: 1 + 2^-8 is a tie (to even: 1), 1 + 3*2^-8 rounds up; truncation drops the bits. */
  float vb[3] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f + 3 * 0x1p-8f};
  int64_t d3[1] = {3};
  tfc_tensor *xb = ku_f32(d3, 1, vb), *b = cast(xb, TFC_DT_BFLOAT16, 0), *bt = cast(xb, TFC_DT_BFLOAT16, 1);
  EXPECT_EQ(((uint16_t *)b->data)[0], 0x3f80);
  EXPECT_EQ(((uint16_t *)b->data)[1], 0x3f82);
  EXPECT_EQ(((uint16_t *)bt->data)[1], 0x3f81);
  tfc_tensor *i = cast(b, TFC_DT_INT32, 0);
  EXPECT_EQ(((int32_t *)i->data)[0], 1);
  tfc_tensor_unref(i);
  tfc_tensor_unref(b);
  tfc_tensor_unref(bt);
  tfc_tensor_unref(xb);
  tfc_tensor_unref(x);
}

/* ---- AddN ---- */

static void addn_sums_inputs(void) {
  for (int t = 0; t < 4; t++) {
    int dt = main_types[t];
    int64_t d[2] = {3, 5};
    tfc_tensor *in[4], *keep[4], *out = NULL;
    for (int k = 0; k < 4; k++) {
      in[k] = mk(dt, d, 2, k + 1, D_ANY);
      keep[k] = tfc_tensor_copy(in[k], NULL);
    }
    int sizes[1] = {4};
    tfc_status s;
    tfc_status_init(&s);
    EXPECT_EQ(ku_run("AddN", NULL, 0, in, 4, sizes, &out, 1, &s), TFC_OK);
    expect_dims(out, d, 2);
    for (int64_t i = 0; i < 15; i++) {
      double want = 0;
      for (int k = 0; k < 4; k++) want += getv(keep[k], i);
      EXPECT_NEAR(getv(out, i), want, 1e-5);
    }
    tfc_tensor_unref(out);
    for (int k = 0; k < 4; k++) {
      tfc_tensor_unref(in[k]);
      tfc_tensor_unref(keep[k]);
    }
  }
}

static void addn_of_one_input_is_that_input(void) {
  float v = 3;
  tfc_tensor *x = ku_f32(NULL, 0, &v), *out = NULL;
  int sizes[1] = {1};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("AddN", NULL, 0, &x, 1, sizes, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(out == x);
  tfc_tensor_unref(out);
  tfc_tensor_unref(x);
}

static void addn_rejects_mismatched_shapes(void) {
  int64_t a[1] = {2}, b[2] = {2, 3};
  tfc_tensor *in[2] = {ku_f32(a, 1, NULL), ku_f32(b, 2, NULL)}, *out = NULL;
  int sizes[1] = {2};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("AddN", NULL, 0, in, 2, sizes, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shapes must be equal rank, but are 1 and 2\n\tFrom merging shape 0 with other shapes. for 'op' (op: 'AddN')");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* ---- Select ---- */

static void select_elementwise_vector_and_scalar_conditions(void) {
  int64_t d[2] = {2, 3}, d2[1] = {2};
  float t[6] = {1, 2, 3, 4, 5, 6}, e[6] = {-1, -2, -3, -4, -5, -6};
  uint8_t c6[6] = {1, 0, 1, 0, 0, 1}, c2[2] = {0, 1}, c1 = 1;
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  /* same shape */
  tfc_tensor *in[3] = {ku_bool(d, 2, c6), ku_f32(d, 2, t), ku_f32(d, 2, e)};
  EXPECT_EQ(ku_run("Select", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  float w1[6] = {1, -2, 3, -4, -5, 6};
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)out->data)[i], w1[i], 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  /* vector condition over rows */
  in[0] = ku_bool(d2, 1, c2);
  in[1] = ku_f32(d, 2, t);
  in[2] = ku_f32(d, 2, e);
  EXPECT_EQ(ku_run("Select", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  float w2[6] = {-1, -2, -3, 4, 5, 6};
  expect_dims(out, d, 2);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)out->data)[i], w2[i], 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  /* scalar condition: the whole 'then' */
  in[0] = ku_bool(NULL, 0, &c1);
  EXPECT_EQ(ku_run("Select", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  EXPECT_TRUE(out == in[1]);
  tfc_tensor_unref(out);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(in[k]);
  /* int64 and double */
  int64_t ti[2] = {10, 20}, ei[2] = {30, 40};
  in[0] = ku_bool(d2, 1, c2);
  in[1] = ku_i64(d2, 1, ti);
  in[2] = ku_i64(d2, 1, ei);
  EXPECT_EQ(ku_run("Select", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(((int64_t *)out->data)[0], 30);
  EXPECT_EQ(((int64_t *)out->data)[1], 20);
  tfc_tensor_unref(out);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(in[k]);
}

static void select_errors(void) {
  int64_t d[2] = {2, 3}, d3[1] = {3}, d2[1] = {2};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  tfc_tensor *in[3] = {ku_bool(d3, 1, NULL), ku_f32(d, 2, NULL), ku_f32(d, 2, NULL)};
  memset(in[0]->data, 0, 3);
  EXPECT_EQ(ku_run_unknown("Select", NULL, 0, in, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Select", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimension 0 in both shapes must be equal, but are 3 and 2.");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[2]);
  in[0] = ku_bool(d2, 1, NULL);
  memset(in[0]->data, 0, 2);
  in[2] = ku_f32(d3, 1, NULL);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("Select", NULL, 0, in, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "'then' and 'else' must have the same size.  but received: [2,3] vs. [3]");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  /* same rank, elementwise mismatch */
  in[0] = ku_bool(d3, 1, NULL);
  memset(in[0]->data, 0, 3);
  in[1] = ku_f32(d2, 1, NULL);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("Select", NULL, 0, in, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s),
               "Inputs to operation op of type Select must have the same size and shape.  Input 0: [3] != input 1: [2]");
  tfc_status_fini(&s);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(in[k]);
}

static void select_v2_broadcasts_all_operands(void) {
  int64_t dc[2] = {2, 1}, dt[1] = {3}, de[2] = {1, 1};
  uint8_t c[2] = {1, 0};
  double t[3] = {1, 2, 3}, e = -7;
  tfc_tensor *in[3] = {ku_bool(dc, 2, c), ku_f64(dt, 1, t), ku_f64(de, 2, &e)}, *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("SelectV2", NULL, 0, in, 3, NULL, &out, 1, &s), TFC_OK);
  int64_t wd[2] = {2, 3};
  expect_dims(out, wd, 2);
  double w[6] = {1, 2, 3, -7, -7, -7};
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((double *)out->data)[i], w[i], 0);
  tfc_tensor_unref(out);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(in[k]);
  int64_t a[1] = {2}, b[1] = {3};
  in[0] = ku_bool(a, 1, c);
  in[1] = ku_f64(b, 1, t);
  in[2] = ku_f64(b, 1, t);
  EXPECT_EQ(ku_run_unknown("SelectV2", NULL, 0, in, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_STREQ(tfc_status_msg(&s), "condition [2], then [3], and else [3] must be broadcastable");
  tfc_status_fini(&s);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(in[k]);
}

/* Float Add, Sub, Mul and AddN run per vector unit (TFC_SIMD caps the level; each test is its
 * own process): every length up to 40 (each lane position of a tail), scalar operands on
 * either side, and results that must equal the correctly rounded float op exactly. */
static void check_float_arith(void) {
  const char *ops[4] = {"Add", "Sub", "Mul", "AddN"};
  tfc_status s;
  tfc_status_init(&s);
  for (int64_t n = 1; n <= 40; n++) {
    float xv[40], yv[40];
    for (int i = 0; i < n; i++) xv[i] = 0.1f * (float)(i + 1) - 1.7f, yv[i] = 1.0f / (float)(i + 3);
    for (int o = 0; o < 4; o++)
      for (int mode = 0; mode < (o == 3 ? 1 : 3); mode++) {
        int64_t one = 1;
        tfc_tensor *in[2] = {ku_f32(mode == 2 ? &one : &n, 1, xv), ku_f32(mode == 1 ? &one : &n, 1, yv)}, *out = NULL;
        int sizes[1] = {2};
        EXPECT_EQ(ku_run(ops[o], NULL, 0, in, 2, o == 3 ? sizes : NULL, &out, 1, &s), TFC_OK);
        EXPECT_EQ(out->n_elems, n);
        for (int i = 0; i < n; i++) {
          float a = xv[mode == 2 ? 0 : i], b = yv[mode == 1 ? 0 : i];
          volatile float want = o == 1 ? a - b : o == 2 ? a * b : a + b;
          if (((float *)out->data)[i] != want)
            tfc_test_fail(__FILE__, __LINE__, "%s n=%d mode=%d [%d]: %.9g, want %.9g", ops[o], (int)n, mode, i,
                          ((float *)out->data)[i], (double)want);
        }
        tfc_tensor_unref(out);
        tfc_tensor_unref(in[0]);
        tfc_tensor_unref(in[1]);
      }
  }
  tfc_status_fini(&s);
}

static void float_arith_is_exact_on_the_best_vector_unit(void) { check_float_arith(); }

static void float_arith_is_exact_with_avx2(void) {
  setenv("TFC_SIMD", "avx2", 1);
  check_float_arith();
}

static void float_arith_is_exact_on_the_baseline_vector_unit(void) {
  setenv("TFC_SIMD", "base", 1);
  check_float_arith();
}

static const tfc_test tests[] = {TFC_TEST(add_sub_mul_all_types_and_broadcasts),
                                 TFC_TEST(float_arith_is_exact_on_the_best_vector_unit),
                                 TFC_TEST(float_arith_is_exact_with_avx2),
                                 TFC_TEST(float_arith_is_exact_on_the_baseline_vector_unit),
                                 TFC_TEST(division_ops_match_tf_semantics),
                                 TFC_TEST(integer_division_edge_values),
                                 TFC_TEST(integer_division_by_zero_fails),
                                 TFC_TEST(max_min_pow),
                                 TFC_TEST(integer_pow_rejects_negative_exponent),
                                 TFC_TEST(integer_add_wraps),
                                 TFC_TEST(comparisons_and_logical),
                                 TFC_TEST(empty_broadcast_gives_empty_output),
                                 TFC_TEST(large_broadcast_runs_in_parallel),
                                 TFC_TEST(incompatible_shapes_fail_at_graph_build_and_run_time),
                                 TFC_TEST(equal_with_incompatible_shapes_allowed_gives_scalar),
                                 TFC_TEST(equal_compares_strings_by_bytes),
                                 TFC_TEST(div_no_nan_is_zero_where_y_is_zero),
                                 TFC_TEST(output_reuses_sole_input_buffer),
                                 TFC_TEST(unsupported_dtype_lists_registered_kernels),
                                 TFC_TEST(unary_ops_all_types),
                                 TFC_TEST(large_unary_runs_in_parallel),
                                 TFC_TEST(cast_float_to_integers_truncates),
                                 TFC_TEST(cast_integers_and_bool),
                                 TFC_TEST(cast_to_same_type_shares_the_tensor),
                                 TFC_TEST(cast_half_and_bfloat16_round_to_nearest_even),
                                 TFC_TEST(addn_sums_inputs),
                                 TFC_TEST(addn_of_one_input_is_that_input),
                                 TFC_TEST(addn_rejects_mismatched_shapes),
                                 TFC_TEST(select_elementwise_vector_and_scalar_conditions),
                                 TFC_TEST(select_errors),
                                 TFC_TEST(select_v2_broadcasts_all_operands),
                                 {0}};
TFC_TEST_MAIN(tests)
