/* Kernel tests: complex64/complex128, half and bfloat16 math against TensorFlow's results
 * (tests/fixtures/dtypes_tf.inc, made by tests/fixtures/gen_dtypes.py): each case runs one op
 * on the recorded inputs and compares every element (complex as (real, imag) pairs; inf and
 * NaN must match as such). complex64 and half within what their precision allows, complex128
 * to 1e-12, bfloat16 exactly where TF rounds only the result. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/half.h"
#include "harness.h"
#include "kernel_util.c"

typedef struct dt_in {
  int dtype, ndims;
  int64_t dims[2];
  const double *vals;
} dt_in;

typedef struct dt_case {
  const char *name, *op, *attrs;
  int n_in;
  dt_in in[3];
  int out_dtype, out_ndims;
  int64_t out_dims[2];
  const double *out;
  int n_out;
} dt_case;

#include "../fixtures/dtypes_tf.inc"

static int is_cplx(int dt) { return dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128; }

/* A tensor of dtype dt from doubles (pairs for complex). */
static tfc_tensor *make(const dt_in *in) {
  tfc_tensor *t = ku_typed(in->dtype, in->dims, in->ndims, NULL);
  int64_t n = t->n_elems * (is_cplx(in->dtype) ? 2 : 1);
  for (int64_t i = 0; i < n; i++) {
    double v = in->vals[i];
    switch (in->dtype) {
      case TFC_DT_COMPLEX64: ((float *)t->data)[i] = (float)v; break;
      case TFC_DT_COMPLEX128: ((double *)t->data)[i] = v; break;
      case TFC_DT_HALF: ((uint16_t *)t->data)[i] = tfc_float_to_half((float)v); break;
      case TFC_DT_BFLOAT16: ((uint16_t *)t->data)[i] = tfc_float_to_bfloat16((float)v); break;
      default: ku_set(t, i, v); break;
    }
  }
  return t;
}

/* Element i of t as a double (parts of a complex counted separately). */
static double elem(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_COMPLEX64: return ((const float *)t->data)[i];
    case TFC_DT_COMPLEX128: return ((const double *)t->data)[i];
    case TFC_DT_FLOAT: return ((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return ((const double *)t->data)[i];
    case TFC_DT_HALF: return tfc_half_to_float(((const uint16_t *)t->data)[i]);
    case TFC_DT_BFLOAT16: return tfc_bfloat16_to_float(((const uint16_t *)t->data)[i]);
    case TFC_DT_BOOL: return ((const uint8_t *)t->data)[i];
    case TFC_DT_INT32: return ((const int32_t *)t->data)[i];
    default: return NAN;
  }
}

static double tolerance(const dt_case *k) {
  int dt = k->in[0].dtype;
  if (dt == TFC_DT_COMPLEX128 || dt == TFC_DT_DOUBLE) return 1e-12;
  if (dt == TFC_DT_HALF) return 1e-3; /* one half ulp is 2^-11 relative */
  /* Eigen's bfloat16 Elu, Softplus and LogSoftmax round their intermediate results (exp(x)
   * before the - 1, ...) to bfloat16 too, tfc's only the result: within two bfloat16 ulps. */
  if (dt == TFC_DT_BFLOAT16)
    return !strcmp(k->op, "Elu") || !strcmp(k->op, "Softplus") || !strcmp(k->op, "LogSoftmax") ? 1.0 / 128 : 0;
  return 2e-6;
}

static int same(double got, double want, double tol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1);
}

/* Runs case k; returns the number of elements off, printing them. */
static int run_case(const dt_case *k) {
  tfc_tensor *in[4] = {NULL, NULL, NULL, NULL}, *out = NULL;
  int n = k->n_in;
  for (int i = 0; i < n; i++) in[i] = make(&k->in[i]);
  ku_attr attrs[3];
  int na = 0, list[1] = {n}, *lists = NULL;
  if (!strcmp(k->attrs, "axis0") || !strcmp(k->attrs, "axis1")) {
    int32_t axis = k->attrs[4] - '0';
    in[n++] = ku_i32(NULL, 0, &axis);
  } else if (!strcmp(k->attrs, "tb")) {
    attrs[na++] = (ku_attr){"transpose_b", tfc_attr_bool(1)};
  } else if (!strcmp(k->attrs, "adjx")) {
    attrs[na++] = (ku_attr){"adj_x", tfc_attr_bool(1)};
  }
  if (!strcmp(k->op, "Cast")) attrs[na++] = (ku_attr){"DstT", tfc_attr_type(k->out_dtype)};
  if (!strcmp(k->op, "Complex") || !strcmp(k->op, "Real") || !strcmp(k->op, "Imag") || !strcmp(k->op, "ComplexAbs") ||
      !strcmp(k->op, "Angle"))
    attrs[na++] = (ku_attr){"Tout", tfc_attr_type(k->out_dtype)};
  if (!strcmp(k->op, "AddN")) lists = list;
  tfc_status s;
  tfc_status_init(&s);
  int rc = ku_run(k->op, attrs, na, in, n, lists, &out, 1, &s);
  int bad = 0;
  if (rc) {
    fprintf(stderr, "%s: %s\n", k->name, tfc_status_msg(&s));
    bad = 1;
  } else if (out->dtype != k->out_dtype || out->ndims != k->out_ndims ||
             out->n_elems * (is_cplx(out->dtype) ? 2 : 1) != k->n_out) {
    fprintf(stderr, "%s: got %s of %lld elements\n", k->name, tfc_dtype_name(out->dtype), (long long)out->n_elems);
    bad = 1;
  } else {
    double tol = tolerance(k);
    for (int i = 0; i < k->n_out; i++) {
      double g = elem(out, i);
      if (!same(g, k->out[i], tol)) {
        fprintf(stderr, "%s[%d]: got %.9g, TF %.9g\n", k->name, i, g, k->out[i]);
        bad++;
      }
    }
  }
  for (int i = 0; i < 4; i++) tfc_tensor_unref(in[i]);
  tfc_tensor_unref(out);
  tfc_status_fini(&s);
  return bad;
}

/* Runs every case whose first input has one of the dtypes. */
static void run_cases(int dt1, int dt2) {
  int bad = 0, ran = 0;
  for (size_t i = 0; i < sizeof dt_cases / sizeof dt_cases[0]; i++) {
    int dt = dt_cases[i].in[0].dtype;
    /* casts to a type are filed under it */
    if (!strcmp(dt_cases[i].op, "Cast") && (dt_cases[i].out_dtype == dt1 || dt_cases[i].out_dtype == dt2))
      dt = dt_cases[i].out_dtype;
    if (dt != dt1 && dt != dt2) continue;
    ran++;
    if (run_case(&dt_cases[i])) bad++;
  }
  EXPECT_TRUE(ran > 0);
  EXPECT_EQ(bad, 0);
}

static void complex_ops_match_tf(void) { run_cases(TFC_DT_COMPLEX64, TFC_DT_COMPLEX128); }
static void half_ops_match_tf(void) { run_cases(TFC_DT_HALF, -1); }
static void bfloat16_ops_match_tf(void) { run_cases(TFC_DT_BFLOAT16, -1); }

/* Real with a Tout that does not fit T has no kernel (TF registers (complex64, float) and
 * (complex128, double) only). */
static void real_with_mismatched_tout_has_no_kernel(void) {
  double v[2] = {1, 2};
  dt_in d = {TFC_DT_COMPLEX64, 0, {0, 0}, v};
  tfc_tensor *x = make(&d), *out = NULL;
  ku_attr a = {"Tout", tfc_attr_type(TFC_DT_DOUBLE)};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Real", &a, 1, &x, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "No OpKernel was registered to support Op 'Real'");
  tfc_tensor_unref(x);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(complex_ops_match_tf), TFC_TEST(half_ops_match_tf),
                                 TFC_TEST(bfloat16_ops_match_tf), TFC_TEST(real_with_mismatched_tout_has_no_kernel),
                                 {NULL, NULL}};
TFC_TEST_MAIN(tests)
