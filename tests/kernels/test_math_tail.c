/*
 * Kernel tests: the rows of ops_math_tail.def — special functions, guarded divisions, Atan2,
 * segment reductions, Print, the diagonal family and the dense solvers. Expected values and
 * error texts were taken from TensorFlow (tf.math.erf, tf.math.segment_max,
 * tf.linalg.inv, ...) on the same inputs; each case also runs the shape function (ku_run
 * validates the node).
 */

#include "harness.h"
#include "kernel_util.c"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define VALS(...) ((const double[]){__VA_ARGS__})

static void expect_close_(const tfc_tensor *t, const double *v, int64_t n, double tol, int line) {
  if (!t) tfc_test_fail(__FILE__, line, "no output tensor");
  if (t->n_elems != n) tfc_test_fail(__FILE__, line, "%lld elements, expected %lld", (long long)t->n_elems, (long long)n);
  for (int64_t i = 0; i < n; i++) {
    double got = ku_is_float(t->dtype) ? tfc_tensor_get_f64(t, i) : (double)tfc_tensor_get_i64(t, i);
    if (got != v[i] && !(fabs(got - v[i]) <= tol * (1 + fabs(v[i]))) && !(isnan(got) && isnan(v[i])))
      tfc_test_fail(__FILE__, line, "element %lld: %.9g, expected %.9g", (long long)i, got, v[i]);
  }
}
#define EXPECT_CLOSE(t, tol, ...) \
  expect_close_((t), VALS(__VA_ARGS__), sizeof(VALS(__VA_ARGS__)) / sizeof(double), (tol), __LINE__)

static void expect_dims_(const tfc_tensor *t, const int64_t *d, int n, int line) {
  if (t->ndims != n || (n && memcmp(t->dims, d, sizeof(int64_t) * (size_t)n)))
    tfc_test_fail(__FILE__, line, "unexpected dims (rank %d)", t->ndims);
}
#define EXPECT_DIMS(t, ...) expect_dims_((t), DIMS(__VA_ARGS__), __LINE__)

static tfc_tensor *run(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  if (ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s failed: %s", op, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return out;
}

static void expect_error(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins, int unknown,
                         const char *msg) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  int rc = unknown ? ku_run_unknown(op, attrs, n_attrs, ins, n_ins, &out, 1, &s)
                   : ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s);
  if (rc != TFC_INVALID_ARGUMENT) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s)", op, rc, tfc_status_msg(&s));
  EXPECT_CONTAINS(tfc_status_msg(&s), msg);
  if (out) tfc_tensor_unref(out);
  tfc_status_fini(&s);
}

static void unref_all(tfc_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) tfc_tensor_unref(t[i]);
}

static void special_functions_match_tensorflow(void) {
  tfc_tensor *x = ku_f32(DIMS(4), (const float[]){1, 2, 3, 4});
  tfc_tensor *m = ku_f64(DIMS(4), (const double[]){-1.5, -0.5, 0.5, 30});
  tfc_tensor *o[6] = {run("Erf", NULL, 0, &x, 1), run("Erfc", NULL, 0, &x, 1), run("Lgamma", NULL, 0, &x, 1),
                      run("Digamma", NULL, 0, &x, 1), run("Digamma", NULL, 0, &m, 1), run("Lgamma", NULL, 0, &m, 1)};
  EXPECT_CLOSE(o[0], 1e-6, 0.84270084, 0.99532235, 0.999978, 1.0);
  EXPECT_CLOSE(o[1], 1e-5, 0.15729921, 0.00467773, 2.20905e-05, 1.541726e-08);
  EXPECT_CLOSE(o[2], 1e-6, 0, 0, 0.6931472, 1.7917595);
  EXPECT_CLOSE(o[3], 1e-6, -0.5772157, 0.4227843, 0.9227843, 1.2561177);
  EXPECT_CLOSE(o[4], 1e-9, 0.7031566406452434, 0.03648997397857645, -1.9635100260214227, 3.384438132685525);
  EXPECT_CLOSE(o[5], 1e-12, 0.8600470153764810, 1.2655121234846454, 0.5723649429247001, 71.25703896716801);
  EXPECT_EQ(o[0]->dtype, TFC_DT_FLOAT);
  tfc_tensor *pole = ku_f64(DIMS(2), (const double[]){0, -2});
  tfc_tensor *p = run("Digamma", NULL, 0, &pole, 1);
  EXPECT_TRUE(isnan(tfc_tensor_get_f64(p, 0)) && isnan(tfc_tensor_get_f64(p, 1)));
  unref_all(o, 6);
  tfc_tensor_unref(p);
  tfc_tensor_unref(pole);
  tfc_tensor_unref(x);
  tfc_tensor_unref(m);
}

static void guarded_divisions_broadcast(void) {
  tfc_tensor *x = ku_f32(DIMS(2, 2), (const float[]){0, 1, 2, 3});
  tfc_tensor *y = ku_f32(DIMS(2), (const float[]){0, 2});
  tfc_tensor *in[2] = {x, y};
  /* DivNoNan is a cwise kernel, which may write into an input it holds alone: its own inputs. */
  tfc_tensor *x2 = ku_f32(DIMS(2, 2), (const float[]){0, 1, 2, 3}), *y2 = ku_f32(DIMS(2), (const float[]){0, 2});
  tfc_tensor *in2[2] = {x2, y2};
  tfc_tensor *o[4] = {run("DivNoNan", NULL, 0, in2, 2), run("Xdivy", NULL, 0, in, 2), run("Xlogy", NULL, 0, in, 2),
                      run("Atan2", NULL, 0, in, 2)};
  EXPECT_DIMS(o[0], 2, 2);
  EXPECT_CLOSE(o[0], 0, 0, 0.5, 0, 1.5);
  EXPECT_CLOSE(o[1], 0, 0, 0.5, INFINITY, 1.5);
  EXPECT_CLOSE(o[2], 1e-6, 0, 0.6931472, -INFINITY, 2.0794415);
  EXPECT_CLOSE(o[3], 1e-6, 0, 0.4636476, 1.5707964, 0.98279375);
  tfc_tensor *z = ku_f32(DIMS(3), (const float[]){1, 2, 3});
  tfc_tensor *bad[2] = {y, z};
  expect_error("DivNoNan", NULL, 0, bad, 2, 1, "Incompatible shapes: [2] vs. [3]");
  unref_all(o, 4);
  tfc_tensor_unref(x);
  tfc_tensor_unref(y);
  tfc_tensor_unref(x2);
  tfc_tensor_unref(y2);
  tfc_tensor_unref(z);
}

static void sorted_segments_match_tensorflow(void) {
  tfc_tensor *d = ku_f32(DIMS(4), (const float[]){1, 2, 3, 4});
  tfc_tensor *ids = ku_i32(DIMS(4), (const int32_t[]){0, 0, 2, 2});
  tfc_tensor *in[2] = {d, ids};
  tfc_tensor *o[5] = {run("SegmentSum", NULL, 0, in, 2), run("SegmentMean", NULL, 0, in, 2),
                      run("SegmentProd", NULL, 0, in, 2), run("SegmentMax", NULL, 0, in, 2),
                      run("SegmentMin", NULL, 0, in, 2)};
  EXPECT_DIMS(o[0], 3);
  EXPECT_CLOSE(o[0], 0, 3, 0, 7);
  EXPECT_CLOSE(o[1], 0, 1.5, 0, 3.5);
  EXPECT_CLOSE(o[2], 0, 2, 1, 12);
  EXPECT_CLOSE(o[3], 0, 2, 0, 4);
  EXPECT_CLOSE(o[4], 0, 1, 0, 3);
  tfc_tensor *m = ku_i64(DIMS(2, 2), (const int64_t[]){1, 5, 3, 4});
  tfc_tensor *ids2 = ku_i64(DIMS(2), (const int64_t[]){1, 1});
  tfc_tensor *in2[2] = {m, ids2};
  tfc_tensor *mx = run("SegmentMax", NULL, 0, in2, 2), *mean = run("SegmentMean", NULL, 0, in2, 2);
  EXPECT_DIMS(mx, 2, 2);
  EXPECT_CLOSE(mx, 0, 0, 0, 3, 5);
  EXPECT_CLOSE(mean, 0, 0, 0, 2, 4);
  tfc_tensor *dec = ku_i32(DIMS(4), (const int32_t[]){1, 0, 2, 2}), *neg = ku_i32(DIMS(4), (const int32_t[]){-1, 0, 0, 0});
  tfc_tensor *last_neg = ku_i32(DIMS(4), (const int32_t[]){-3, -3, -3, -3}), *shortv = ku_i32(DIMS(2), (const int32_t[]){0, 0});
  tfc_tensor *e1[2] = {d, dec}, *e2[2] = {d, neg}, *e3[2] = {d, last_neg}, *e4[2] = {d, shortv};
  expect_error("SegmentSum", NULL, 0, e1, 2, 0, "segment ids are not increasing");
  expect_error("SegmentSum", NULL, 0, e2, 2, 0,
               "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted.");
  expect_error("SegmentSum", NULL, 0, e3, 2, 0, "segment ids must be >= 0");
  expect_error("SegmentSum", NULL, 0, e4, 2, 0, "segment_ids should be the same size as dimension 0 of input.");
  unref_all(o, 5);
  tfc_tensor *rest[] = {d, ids, m, ids2, mx, mean, dec, neg, last_neg, shortv};
  unref_all(rest, 10);
}

static void unsorted_segments_match_tensorflow(void) {
  tfc_tensor *d = ku_f32(DIMS(4), (const float[]){1, 5, 3, 4});
  tfc_tensor *ids = ku_i32(DIMS(4), (const int32_t[]){0, 0, 2, -1});
  tfc_tensor *n = ku_i32(NULL, 0, (const int32_t[]){3});
  tfc_tensor *in[3] = {d, ids, n};
  tfc_tensor *o[3] = {run("UnsortedSegmentMax", NULL, 0, in, 3), run("UnsortedSegmentMin", NULL, 0, in, 3),
                      run("UnsortedSegmentProd", NULL, 0, in, 3)};
  EXPECT_CLOSE(o[0], 0, 5, -3.4028234663852886e38, 3);
  EXPECT_CLOSE(o[1], 0, 1, 3.4028234663852886e38, 3);
  EXPECT_CLOSE(o[2], 0, 5, 1, 3);
  tfc_tensor *ii = ku_i32(DIMS(2), (const int32_t[]){7, 1}), *big = ku_i32(DIMS(2), (const int32_t[]){0, 3});
  tfc_tensor *n2 = ku_i32(NULL, 0, (const int32_t[]){4}), *n3 = ku_i32(NULL, 0, (const int32_t[]){2});
  tfc_tensor *in2[3] = {ii, ids, n2};
  in2[1] = ku_i32(DIMS(2), (const int32_t[]){1, 1});
  tfc_tensor *mn = run("UnsortedSegmentMin", NULL, 0, in2, 3);
  EXPECT_CLOSE(mn, 0, 2147483647, 1, 2147483647, 2147483647);
  tfc_tensor *e[3] = {ii, big, n3};
  expect_error("UnsortedSegmentMax", NULL, 0, e, 3, 0, "segment_ids[1] = 3 is out of range [0, 2)");
  unref_all(o, 3);
  tfc_tensor *rest[] = {d, ids, n, ii, big, n2, n3, in2[1], mn};
  unref_all(rest, 9);
}

static void diagonal_family_matches_tensorflow(void) {
  tfc_tensor *a = ku_f32(DIMS(2, 2), (const float[]){1, 2, 3, 4});
  tfc_tensor *r = ku_f32(DIMS(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  tfc_tensor *v = ku_i32(DIMS(2), (const int32_t[]){7, 8});
  tfc_tensor *diag = run("Diag", NULL, 0, &v, 1);
  EXPECT_DIMS(diag, 2, 2);
  EXPECT_CLOSE(diag, 0, 7, 0, 0, 8);
  tfc_tensor *d4 = run("Diag", NULL, 0, &a, 1);
  EXPECT_DIMS(d4, 2, 2, 2, 2);
  tfc_tensor *dp = run("DiagPart", NULL, 0, &d4, 1);
  EXPECT_CLOSE(dp, 0, 1, 2, 3, 4);
  tfc_tensor *md = run("MatrixDiag", NULL, 0, &a, 1);
  EXPECT_DIMS(md, 2, 2, 2);
  EXPECT_CLOSE(md, 0, 1, 0, 0, 2, 3, 0, 0, 4);
  tfc_tensor *mdp = run("MatrixDiagPart", NULL, 0, &r, 1);
  EXPECT_DIMS(mdp, 2);
  EXPECT_CLOSE(mdp, 0, 1, 5);
  tfc_tensor *nd = ku_f32(DIMS(2), (const float[]){-1, -2});
  tfc_tensor *sd_in[2] = {r, nd};
  tfc_tensor *sd = run("MatrixSetDiag", NULL, 0, sd_in, 2);
  EXPECT_CLOSE(sd, 0, -1, 2, 3, 4, -2, 6);
  tfc_tensor *sq = ku_f32(DIMS(3, 3), (const float[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
  tfc_tensor *lo = ku_i64(NULL, 0, (const int64_t[]){1}), *hi = ku_i64(NULL, 0, (const int64_t[]){0});
  tfc_tensor *all = ku_i64(NULL, 0, (const int64_t[]){-1}), *three = ku_i64(NULL, 0, (const int64_t[]){3});
  tfc_tensor *bp_in[3] = {sq, lo, hi}, *bp2_in[3] = {sq, hi, all};
  tfc_tensor *bp = run("MatrixBandPart", NULL, 0, bp_in, 3), *up = run("MatrixBandPart", NULL, 0, bp2_in, 3);
  EXPECT_CLOSE(bp, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1);
  EXPECT_CLOSE(up, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1);
  tfc_tensor *bad_in[3] = {a, three, hi};
  expect_error("MatrixBandPart", NULL, 0, bad_in, 3, 0,
               "num_lower must be negative or less or equal to number of rows (2) got: 3");
  expect_error("DiagPart", NULL, 0, &r, 1, 0, "Dimensions must be equal, but are 2 and 3");
  expect_error("DiagPart", NULL, 0, &v, 1, 0, "Input must have even rank <= 6, input rank is 1");
  expect_error("MatrixDiagPart", NULL, 0, &v, 1, 0, "Shape must be at least rank 2 but is rank 1");
  expect_error("MatrixDiagPart", NULL, 0, &v, 1, 1, "input must be at least 2-dim, received shape: [2]");
  tfc_tensor *rest[] = {a, r, v, diag, d4, dp, md, mdp, nd, sd, sq, lo, hi, all, three, bp, up};
  unref_all(rest, 17);
}

static void dense_solvers_match_tensorflow(void) {
  tfc_tensor *a = ku_f64(DIMS(2, 2), (const double[]){1, 2, 3, 4});
  tfc_tensor *ones = ku_f32(DIMS(2, 2), (const float[]){1, 1, 1, 1});
  tfc_tensor *spd = ku_f32(DIMS(2, 2), (const float[]){4, 2, 2, 3});
  tfc_tensor *rhs = ku_f64(DIMS(2, 1), (const double[]){1, 2});
  ku_attr adj = {"adjoint", tfc_attr_bool(1)};
  tfc_tensor *inv = run("MatrixInverse", NULL, 0, &a, 1), *inv_t = run("MatrixInverse", &adj, 1, &a, 1);
  EXPECT_CLOSE(inv, 1e-12, -2, 1, 1.5, -0.5);
  EXPECT_CLOSE(inv_t, 1e-12, -2, 1.5, 1, -0.5);
  tfc_tensor *det = run("MatrixDeterminant", NULL, 0, &a, 1), *det1 = run("MatrixDeterminant", NULL, 0, &ones, 1);
  EXPECT_DIMS(det);
  EXPECT_CLOSE(det, 1e-12, -2);
  EXPECT_CLOSE(det1, 0, 0);
  tfc_tensor *ch = run("Cholesky", NULL, 0, &spd, 1);
  EXPECT_CLOSE(ch, 1e-6, 2, 0, 1, 1.4142135);
  tfc_tensor *sin[2] = {a, rhs};
  tfc_tensor *sol = run("MatrixSolve", NULL, 0, sin, 2);
  EXPECT_DIMS(sol, 2, 1);
  EXPECT_CLOSE(sol, 1e-12, 0, 0.5);
  expect_error("MatrixInverse", NULL, 0, &ones, 1, 0, "Input is not invertible.");
  expect_error("Cholesky", NULL, 0, &ones, 1, 0,
               "Cholesky decomposition was not successful. The input might not be valid.");
  tfc_tensor *rect = ku_f32(DIMS(2, 3), (const float[]){1, 2, 3, 4, 5, 6});
  expect_error("MatrixDeterminant", NULL, 0, &rect, 1, 0, "Dimensions must be equal, but are 3 and 2");
  expect_error("MatrixDeterminant", NULL, 0, &rect, 1, 1, "Input matrix must be square.");
  tfc_tensor *frhs = ku_f32(DIMS(2, 1), (const float[]){1, 2});
  tfc_tensor *sin2[2] = {ones, frhs};
  expect_error("MatrixSolve", NULL, 0, sin2, 2, 0, "Input matrix is not invertible.");
  tfc_tensor *rest[] = {a, ones, spd, rhs, inv, inv_t, det, det1, ch, sol, rect, frhs};
  unref_all(rest, 12);
}

static void print_writes_tf_summaries_to_stderr(void) {
  tfc_capture cap;
  tfc_capture_begin(&cap, 2);
  tfc_tensor *a = ku_f32(DIMS(2, 2), (const float[]){1.5f, 2, 3, 0.1f});
  tfc_tensor *r = ku_i32(DIMS(5), (const int32_t[]){0, 1, 2, 3, 4});
  tfc_status s;
  tfc_status_init(&s);
  ku_attr attrs[2] = {{"message", {0}}, {"summarize", tfc_attr_int(4)}};
  EXPECT_EQ(tfc_attr_string("msg: ", 5, &attrs[0].value, &s), TFC_OK);
  tfc_tensor *in[3] = {a, a, r};
  int sizes[2] = {-1, 2};
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("Print", attrs, 2, in, 3, sizes, &out, 1, &s), TFC_OK);
  char buf[256];
  tfc_capture_end(&cap, buf, sizeof buf);
  EXPECT_TRUE(out == a || (out && out->data == a->data));
  EXPECT_STREQ(buf, "msg: [[1.5 2][3 0.1]][0 1 2 3...]\n");
  tfc_tensor_unref(out);
  tfc_tensor_unref(a);
  tfc_tensor_unref(r);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(special_functions_match_tensorflow),
    TFC_TEST(guarded_divisions_broadcast),
    TFC_TEST(sorted_segments_match_tensorflow),
    TFC_TEST(unsorted_segments_match_tensorflow),
    TFC_TEST(diagonal_family_matches_tensorflow),
    TFC_TEST(dense_solvers_match_tensorflow),
    TFC_TEST(print_writes_tf_summaries_to_stderr),
    {0},
};

TFC_TEST_MAIN(tests)
