/* Kernel tests: the FFT ops against TensorFlow's results (tests/fixtures/fft_tf.inc, made by
 * tests/fixtures/gen_fft.py): every recorded case runs the kernel on TF's input and compares
 * every element (complex as (real, imag) pairs) within 1e-4 (complex64 / float) or 1e-10
 * (complex128 / double) of the case's largest magnitude; cases with a recorded gradient also
 * build the op in a C API graph, add TF_AddGradients with TF's dy and compare dx with TF's.
 * Bad input gives TF's INVALID_ARGUMENT texts, from the kernel (shapes unknown to the graph)
 * and from the shape functions; constant fft_lengths give the output shapes TF infers; and a
 * mismatched Treal / Tcomplex pair has no kernel. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"
#include "tensorflow/c/c_api.h"

typedef struct fft_case {
  const char *op;
  int dtype, ndims;
  int64_t dims[4];
  const double *x;
  int n_len;
  int32_t len[3];
  int out_ndims;
  int64_t out_dims[4];
  const double *y, *dy, *dx;
} fft_case;

typedef struct fft_error {
  const char *op;
  int dtype, ndims;
  int64_t dims[4];
  int n_len; /* -1: the op takes no fft_length */
  int32_t len[3];
  int code;
  const char *msg;
} fft_error;

#include "../fixtures/fft_tf.inc"

#define N_CASES ((int)(sizeof fft_cases / sizeof fft_cases[0]))

static int is_cplx(int dt) { return dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128; }
static int is_single(int dt) { return dt == TFC_DT_COMPLEX64 || dt == TFC_DT_FLOAT; }
static int is_real_op(const char *op) { return strstr(op, "RFFT") != NULL; }
static int64_t count(const int64_t *d, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= d[i];
  return n;
}

/* Fills raw storage of dtype dt from doubles (pairs for complex). */
static void fill(void *data, int dt, const double *v, int64_t n_elems) {
  int64_t n = n_elems * (is_cplx(dt) ? 2 : 1);
  for (int64_t i = 0; i < n; i++) {
    if (is_single(dt)) ((float *)data)[i] = (float)v[i];
    else ((double *)data)[i] = v[i];
  }
}

static double raw(const void *data, int dt, int64_t i) {
  return is_single(dt) ? ((const float *)data)[i] : ((const double *)data)[i];
}

/* Every element of data (dtype dt, n_elems) within tol of want, scaled by want's largest
 * magnitude. */
static void compare(const char *what, int idx, const void *data, int dt, const double *want, int64_t n_elems) {
  int64_t n = n_elems * (is_cplx(dt) ? 2 : 1);
  double big = 1, tol = is_single(dt) ? 1e-4 : 1e-10;
  for (int64_t i = 0; i < n; i++)
    if (fabs(want[i]) > big) big = fabs(want[i]);
  for (int64_t i = 0; i < n; i++) {
    double got = raw(data, dt, i);
    if (!(fabs(got - want[i]) <= tol * big))
      tfc_test_fail(__FILE__, __LINE__, "%s case %d (%s): element %lld: %.12g vs TF's %.12g", what, idx,
                    fft_cases[idx].op, (long long)i, got, want[i]);
  }
}

static int complex_for(int dt) { return dt == TFC_DT_DOUBLE ? TFC_DT_COMPLEX128 : TFC_DT_COMPLEX64; }
static int real_for(int dt) { return dt == TFC_DT_COMPLEX128 ? TFC_DT_DOUBLE : TFC_DT_FLOAT; }

/* The attrs a real op needs beyond what its inputs give. */
static int real_attrs(const char *op, int dt, ku_attr *a) {
  if (!is_real_op(op)) return 0;
  if (op[0] == 'I') a[0] = (ku_attr){"Treal", tfc_attr_type(real_for(dt))};
  else a[0] = (ku_attr){"Tcomplex", tfc_attr_type(complex_for(dt))};
  return 1;
}

static void fft_matches_tf(void) {
  for (int i = 0; i < N_CASES; i++) {
    const fft_case *k = &fft_cases[i];
    tfc_tensor *in[2] = {ku_typed(k->dtype, k->dims, k->ndims, NULL), NULL};
    fill(in[0]->data, k->dtype, k->x, in[0]->n_elems);
    int n_in = 1;
    if (is_real_op(k->op)) {
      int64_t l = k->n_len;
      in[n_in++] = ku_i32(&l, 1, k->len);
    }
    ku_attr a[1];
    int na = real_attrs(k->op, k->dtype, a);
    tfc_tensor *out = NULL;
    tfc_status s;
    tfc_status_init(&s);
    if (ku_run(k->op, a, na, in, n_in, NULL, &out, 1, &s))
      tfc_test_fail(__FILE__, __LINE__, "case %d (%s): %s", i, k->op, tfc_status_msg(&s));
    EXPECT_EQ(out->ndims, k->out_ndims);
    for (int d = 0; d < k->out_ndims; d++) EXPECT_EQ(out->dims[d], k->out_dims[d]);
    compare("output", i, out->data, out->dtype, k->y, out->n_elems);
    tfc_tensor_unref(out);
    for (int j = 0; j < n_in; j++) tfc_tensor_unref(in[j]);
    tfc_status_fini(&s);
  }
}

/* ---- gradients through the C API ---- */

static TF_Operation *finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static TF_Tensor *tf_tensor(int dt, const int64_t *dims, int nd, const double *v) {
  int64_t n = count(dims, nd);
  TF_Tensor *t = TF_AllocateTensor((TF_DataType)dt, dims, nd, (size_t)n * TF_DataTypeSize((TF_DataType)dt));
  fill(TF_TensorData(t), dt, v, n);
  return t;
}

static TF_Output tf_const(TF_Graph *g, const char *name, TF_Tensor *t) {
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_Status *s = TF_NewStatus();
  TF_SetAttrTensor(d, "value", t, s);
  TF_DeleteStatus(s);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_DeleteTensor(t);
  return (TF_Output){finish(d), 0};
}

static void fft_gradients_match_tf(void) {
  int checked = 0;
  for (int i = 0; i < N_CASES; i++) {
    const fft_case *k = &fft_cases[i];
    if (!k->dy) continue;
    TF_Graph *g = TF_NewGraph();
    TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
    TF_SetAttrType(d, "dtype", (TF_DataType)k->dtype);
    TF_SetAttrShape(d, "shape", k->dims, k->ndims);
    TF_Output x = {finish(d), 0};
    d = TF_NewOperation(g, k->op, "y");
    TF_AddInput(d, x);
    if (is_real_op(k->op)) {
      int64_t l = k->n_len;
      TF_Tensor *lt = TF_AllocateTensor(TF_INT32, &l, 1, sizeof(int32_t) * (size_t)l);
      memcpy(TF_TensorData(lt), k->len, sizeof(int32_t) * (size_t)l);
      TF_AddInput(d, tf_const(g, "fft_length", lt));
      if (k->op[0] == 'I') TF_SetAttrType(d, "Treal", (TF_DataType)real_for(k->dtype));
      else TF_SetAttrType(d, "Tcomplex", (TF_DataType)complex_for(k->dtype));
    }
    TF_Output y = {finish(d), 0};
    int ydt = TF_OperationOutputType(y);
    TF_Output dy = tf_const(g, "dy", tf_tensor(ydt, k->out_dims, k->out_ndims, k->dy)), dx;
    TF_Status *s = TF_NewStatus();
    TF_AddGradients(g, &y, 1, &x, 1, &dy, s, &dx);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "case %d (%s): %s", i, k->op, TF_Message(s));
    TF_SessionOptions *o = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, o, s);
    TF_Tensor *xv = tf_tensor(k->dtype, k->dims, k->ndims, k->x), *dxv = NULL;
    TF_SessionRun(sess, NULL, &x, &xv, 1, &dx, &dxv, 1, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "case %d (%s): %s", i, k->op, TF_Message(s));
    EXPECT_EQ(TF_TensorType(dxv), k->dtype);
    EXPECT_EQ(TF_TensorElementCount(dxv), count(k->dims, k->ndims));
    compare("gradient", i, TF_TensorData(dxv), k->dtype, k->dx, count(k->dims, k->ndims));
    TF_DeleteTensor(xv);
    TF_DeleteTensor(dxv);
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteSessionOptions(o);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
    checked++;
  }
  EXPECT_TRUE(checked >= 30);
}

/* ---- errors ---- */

static void fft_bad_input_gives_tf_errors(void) {
  for (size_t i = 0; i < sizeof fft_errors / sizeof fft_errors[0]; i++) {
    const fft_error *e = &fft_errors[i];
    tfc_tensor *in[2] = {ku_typed(e->dtype, e->dims, e->ndims, NULL), NULL};
    memset(in[0]->data, 0, (size_t)in[0]->n_elems * tfc_dtype_size(e->dtype));
    int n_in = 1;
    if (e->n_len >= 0) {
      int64_t l = e->n_len;
      in[n_in++] = ku_i32(&l, 1, e->len);
    }
    ku_attr a[1];
    int na = real_attrs(e->op, e->dtype, a);
    tfc_tensor *out = NULL;
    tfc_status s;
    tfc_status_init(&s);
    EXPECT_EQ(ku_run_unknown(e->op, a, na, in, n_in, &out, 1, &s), e->code);
    EXPECT_CONTAINS(tfc_status_msg(&s), e->msg);
    for (int j = 0; j < n_in; j++) tfc_tensor_unref(in[j]);
    tfc_status_fini(&s);
  }
}

/* Known shapes: the shape functions' texts (TF's, with its node prefix). */
static void fft_shape_errors(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  tfc_tensor *sc = ku_typed(TFC_DT_COMPLEX64, NULL, 0, NULL);
  EXPECT_EQ(ku_run("FFT", NULL, 0, &sc, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be at least rank 1 but is rank 0");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  int64_t three = 3;
  tfc_tensor *v = ku_typed(TFC_DT_COMPLEX64, &three, 1, NULL);
  EXPECT_EQ(ku_run("IFFT2D", NULL, 0, &v, 1, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be at least rank 2 but is rank 1");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  int64_t five = 5, two = 2;
  int32_t lens[2] = {3, 3};
  tfc_tensor *in[2] = {ku_f32(&five, 1, NULL), ku_i32(&two, 1, lens)};
  EXPECT_EQ(ku_run("RFFT", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimension must be 1 but is 2");
  tfc_status_fini(&s);
  tfc_tensor_unref(sc);
  tfc_tensor_unref(v);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* A constant fft_length sets the inner dims (RFFT's last to n / 2 + 1); TF's shapes. */
static void fft_shapes_from_const_length(void) {
  static const struct {
    const char *op;
    int in_dt, nd;
    int64_t dims[4];
    int nl;
    int32_t len[3];
    int out_nd;
    int64_t out[4];
  } rows[] = {
      {"RFFT", TF_FLOAT, 2, {2, 5}, 1, {8}, 2, {2, 5}},
      {"IRFFT", TF_COMPLEX64, 2, {2, 5}, 1, {7}, 2, {2, 7}},
      {"IRFFT2D", TF_COMPLEX64, 3, {2, 5, 3}, 2, {7, 4}, 3, {2, 7, 4}},
      {"RFFT3D", TF_FLOAT, 4, {2, 5, 3, 6}, 3, {7, 4, 3}, 4, {2, 7, 4, 2}},
      {"IRFFT", TF_COMPLEX64, 2, {2, 5}, 1, {0}, 2, {2, 0}},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    TF_Graph *g = TF_NewGraph();
    TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
    TF_SetAttrType(d, "dtype", (TF_DataType)rows[i].in_dt);
    TF_SetAttrShape(d, "shape", rows[i].dims, rows[i].nd);
    TF_Output x = {finish(d), 0};
    int64_t l = rows[i].nl;
    TF_Tensor *lt = TF_AllocateTensor(TF_INT32, &l, 1, sizeof(int32_t) * (size_t)l);
    memcpy(TF_TensorData(lt), rows[i].len, sizeof(int32_t) * (size_t)l);
    d = TF_NewOperation(g, rows[i].op, "y");
    TF_AddInput(d, x);
    TF_AddInput(d, tf_const(g, "n", lt));
    TF_Output y = {finish(d), 0};
    TF_Status *s = TF_NewStatus();
    int64_t dims[4];
    EXPECT_EQ(TF_GraphGetTensorNumDims(g, y, s), rows[i].out_nd);
    TF_GraphGetTensorShape(g, y, dims, rows[i].out_nd, s);
    for (int k = 0; k < rows[i].out_nd; k++) EXPECT_EQ(dims[k], rows[i].out[k]);
    /* no Treal / Tcomplex given (a TF 1.15 node): float and complex64 */
    EXPECT_EQ(TF_OperationOutputType(y), rows[i].op[0] == 'I' ? TF_FLOAT : TF_COMPLEX64);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

/* Treal double with Tcomplex complex64: no kernel pairs them (TF registers none either). */
static void fft_mismatched_types_have_no_kernel(void) {
  int64_t four = 4, one = 1;
  int32_t len = 4;
  tfc_tensor *in[2] = {ku_f64(&four, 1, NULL), ku_i32(&one, 1, &len)};
  ku_attr a[1] = {{"Tcomplex", tfc_attr_type(TFC_DT_COMPLEX64)}};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  EXPECT_TRUE(ku_run("RFFT", a, 1, in, 2, NULL, &out, 1, &s) != TFC_OK);
  EXPECT_CONTAINS(tfc_status_msg(&s), "RFFT");
  tfc_status_fini(&s);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
}

/* An fft_length of 0: RFFT gives [.., 1] zeros (TF itself aborts), IRFFT an empty tensor. */
static void fft_zero_length(void) {
  int64_t four = 4, one = 1;
  int32_t zero = 0;
  float vals[4] = {1, 2, 3, 4};
  tfc_tensor *in[2] = {ku_f32(&four, 1, vals), ku_i32(&one, 1, &zero)};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run("RFFT", NULL, 0, in, 2, NULL, &out, 1, &s), TFC_OK);
  EXPECT_EQ(out->dims[0], 1);
  EXPECT_TRUE(((float *)out->data)[0] == 0 && ((float *)out->data)[1] == 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[0]);
  tfc_tensor_unref(in[1]);
  tfc_status_fini(&s);
}

/* Batches large enough to be split over the pool give, row for row, what each row gives
 * alone (one shard): each shard's plan covers its own slice of input, scratch and output. */
static void fft_sharded_batches_match_rows(void) {
  static const struct {
    const char *op;
    int dt, nd;
    int64_t dims[4];
    int nl;
    int32_t len[3];
  } rows[] = {
      {"RFFT", TFC_DT_FLOAT, 2, {512, 18}, 1, {16}},
      {"IRFFT2D", TFC_DT_COMPLEX64, 3, {96, 8, 5}, 2, {8, 8}},
      {"IFFT", TFC_DT_COMPLEX128, 2, {512, 12}, 0, {0}},
      {"RFFT3D", TFC_DT_DOUBLE, 4, {64, 4, 4, 6}, 3, {4, 4, 6}},
      {"IRFFT", TFC_DT_COMPLEX128, 2, {512, 9}, 1, {15}},
      {"FFT2D", TFC_DT_COMPLEX64, 3, {128, 6, 5}, 0, {0}},
  };
  uint64_t seed = 12345;
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    tfc_tensor *x = ku_typed(rows[r].dt, rows[r].dims, rows[r].nd, NULL);
    int64_t parts = x->n_elems * (is_cplx(rows[r].dt) ? 2 : 1);
    double *v = malloc(sizeof(double) * (size_t)parts);
    for (int64_t i = 0; i < parts; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      v[i] = (double)(seed >> 40) / (double)(1 << 24) * 4 - 2;
    }
    fill(x->data, rows[r].dt, v, x->n_elems);
    int64_t l = rows[r].nl;
    tfc_tensor *len = l ? ku_i32(&l, 1, rows[r].len) : NULL;
    tfc_tensor *in[2] = {x, len}, *all = NULL;
    ku_attr a[1];
    int na = real_attrs(rows[r].op, rows[r].dt, a);
    tfc_status s;
    tfc_status_init(&s);
    if (ku_run(rows[r].op, a, na, in, l ? 2 : 1, NULL, &all, 1, &s))
      tfc_test_fail(__FILE__, __LINE__, "%s: %s", rows[r].op, tfc_status_msg(&s));
    int64_t batch = rows[r].dims[0], in_row = x->n_elems / batch, out_row = all->n_elems / batch;
    size_t osz = tfc_dtype_size(all->dtype);
    int64_t one_dims[4];
    memcpy(one_dims, rows[r].dims, sizeof one_dims);
    one_dims[0] = 1;
    for (int64_t b = 0; b < batch; b += 7) {
      tfc_tensor *xr = ku_typed(rows[r].dt, one_dims, rows[r].nd, NULL), *yr = NULL;
      fill(xr->data, rows[r].dt, v + b * in_row * (is_cplx(rows[r].dt) ? 2 : 1), in_row);
      tfc_tensor *rin[2] = {xr, len};
      ku_attr a2[1];
      int na2 = real_attrs(rows[r].op, rows[r].dt, a2);
      if (ku_run(rows[r].op, a2, na2, rin, l ? 2 : 1, NULL, &yr, 1, &s))
        tfc_test_fail(__FILE__, __LINE__, "%s row %lld: %s", rows[r].op, (long long)b, tfc_status_msg(&s));
      int64_t m = out_row * (is_cplx(all->dtype) ? 2 : 1);
      const char *row = (const char *)all->data + (size_t)(b * out_row) * osz;
      for (int64_t i = 0; i < m; i++) {
        double got = raw(row, all->dtype, i), want = raw(yr->data, all->dtype, i);
        if (!(fabs(got - want) <= 1e-5 * (1 + fabs(want))))
          tfc_test_fail(__FILE__, __LINE__, "%s row %lld element %lld: %.9g batched vs %.9g alone", rows[r].op,
                        (long long)b, (long long)i, got, want);
      }
      tfc_tensor_unref(xr);
      tfc_tensor_unref(yr);
    }
    tfc_tensor_unref(all);
    tfc_tensor_unref(x);
    if (len) tfc_tensor_unref(len);
    free(v);
    tfc_status_fini(&s);
  }
}

static const tfc_test tests[] = {TFC_TEST(fft_matches_tf),
                                 TFC_TEST(fft_gradients_match_tf),
                                 TFC_TEST(fft_bad_input_gives_tf_errors),
                                 TFC_TEST(fft_shape_errors),
                                 TFC_TEST(fft_shapes_from_const_length),
                                 TFC_TEST(fft_mismatched_types_have_no_kernel),
                                 TFC_TEST(fft_zero_length),
                                 TFC_TEST(fft_sharded_batches_match_rows),
                                 {NULL, NULL}};
TFC_TEST_MAIN(tests)
