/*
 * test_grad_complex_tf — the gradients tfc builds for the complex math against TensorFlow's
 * (tests/fixtures/complex_grads_tf.inc, made by tests/fixtures/gen_complex_grads.py): each case
 * feeds the recorded inputs to one op, seeds TF_AddGradients with the recorded grad_ys and
 * compares every element of every input's gradient, complex ones as (real, imag) pairs. TF's
 * complex gradients are the conjugate ones (d exp = dy * conj(exp(x)), ...); a builder that
 * forgets a conjugate, or a gradient kernel without a complex row, fails here. complex128 to
 * 1e-9 relative, complex64 to 1e-4.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "grad_check.h"
#include "tensor/dtype.h"

typedef struct cg_tensor {
  int dtype, ndims;
  int64_t dims[2];
  const double *vals;
} cg_tensor;

typedef struct cg_case {
  const char *name, *op, *attrs;
  int n_in;
  cg_tensor in[2];
  cg_tensor dy;
  cg_tensor dx[2];
} cg_case;

#include "../fixtures/complex_grads_tf.inc"

static int is_cplx(int dt) { return dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128; }
static int real_of(int dt) { return dt == TFC_DT_COMPLEX64 ? TFC_DT_FLOAT : TFC_DT_DOUBLE; }

static TF_Tensor *make(const cg_tensor *c) {
  int64_t n = gc_count(c->dims, c->ndims), m = n * (is_cplx(c->dtype) ? 2 : 1);
  TF_Tensor *t = TF_AllocateTensor((TF_DataType)c->dtype, c->dims, c->ndims, (size_t)n * TF_DataTypeSize((TF_DataType)c->dtype));
  for (int64_t i = 0; i < m; i++) {
    if (c->dtype == TFC_DT_COMPLEX64 || c->dtype == TFC_DT_FLOAT) ((float *)TF_TensorData(t))[i] = (float)c->vals[i];
    else ((double *)TF_TensorData(t))[i] = c->vals[i];
  }
  return t;
}

static double at(TF_Tensor *t, int64_t i) {
  TF_DataType dt = TF_TensorType(t);
  if (dt == TF_COMPLEX64 || dt == TF_FLOAT) return ((float *)TF_TensorData(t))[i];
  return ((double *)TF_TensorData(t))[i];
}

static void run_case(const cg_case *k) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Output x[2];
  TF_Tensor *xv[2];
  for (int i = 0; i < k->n_in; i++) {
    char name[16];
    snprintf(name, sizeof name, "x%d", i);
    x[i] = gc_placeholder(g, name, (TF_DataType)k->in[i].dtype, k->in[i].dims, k->in[i].ndims);
    xv[i] = make(&k->in[i]);
  }
  TF_OperationDescription *d = TF_NewOperation(g, k->op, "y");
  if (!strcmp(k->op, "AddN")) {
    TF_AddInputList(d, x, k->n_in);
  } else {
    for (int i = 0; i < k->n_in; i++) TF_AddInput(d, x[i]);
  }
  if (!strcmp(k->op, "Sum") || !strcmp(k->op, "Mean")) {
    int64_t axis = strstr(k->attrs, "axis1") ? 1 : 0;
    TF_AddInput(d, gc_ivec(g, "axis", &axis, 1));
  }
  if (!strcmp(k->op, "Complex")) TF_SetAttrType(d, "Tout", k->in[0].dtype == TFC_DT_FLOAT ? TF_COMPLEX64 : TF_COMPLEX128);
  if (!strcmp(k->op, "Real") || !strcmp(k->op, "Imag") || !strcmp(k->op, "ComplexAbs") || !strcmp(k->op, "Angle"))
    TF_SetAttrType(d, "Tout", (TF_DataType)real_of(k->in[0].dtype));
  if (!strcmp(k->op, "MatMul")) {
    TF_SetAttrBool(d, "transpose_a", strstr(k->attrs, "ta") != NULL);
    TF_SetAttrBool(d, "transpose_b", strstr(k->attrs, "tb") != NULL);
  }
  if (!strcmp(k->op, "BatchMatMulV2")) {
    TF_SetAttrBool(d, "adj_x", strstr(k->attrs, "ax") != NULL);
    TF_SetAttrBool(d, "adj_y", strstr(k->attrs, "ay") != NULL);
  }
  TF_Output y = {gc_finish(d), 0};
  TF_Tensor *dyv = make(&k->dy);
  TF_OperationDescription *cd = TF_NewOperation(g, "Const", "dy");
  TF_SetAttrTensor(cd, "value", dyv, s);
  GC_OK(s);
  TF_SetAttrType(cd, "dtype", (TF_DataType)k->dy.dtype);
  TF_Output seed = {gc_finish(cd), 0};
  TF_DeleteTensor(dyv);
  TF_Output dx[2];
  TF_AddGradients(g, &y, 1, x, k->n_in, &seed, s, dx);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: gradients: %s", k->name, TF_Message(s));
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  GC_OK(s);
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, x, xv, k->n_in, dx, out, k->n_in, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: run: %s", k->name, TF_Message(s));
  for (int i = 0; i < k->n_in; i++) {
    const cg_tensor *e = &k->dx[i];
    if ((int)TF_TensorType(out[i]) != e->dtype)
      tfc_test_fail(__FILE__, __LINE__, "%s: dx%d dtype %d, TF %d", k->name, i, TF_TensorType(out[i]), e->dtype);
    int64_t n = gc_count(e->dims, e->ndims), m = n * (is_cplx(e->dtype) ? 2 : 1);
    if (TF_TensorElementCount(out[i]) != n)
      tfc_test_fail(__FILE__, __LINE__, "%s: dx%d has %lld elements, TF %lld", k->name, i,
                    (long long)TF_TensorElementCount(out[i]), (long long)n);
    double tol = e->dtype == TFC_DT_COMPLEX128 || e->dtype == TFC_DT_DOUBLE ? 1e-9 : 1e-4;
    for (int64_t j = 0; j < m; j++) {
      double a = at(out[i], j), want = e->vals[j];
      double scale = fabs(want) > 1 ? fabs(want) : 1;
      if (!(fabs(a - want) <= tol * scale))
        tfc_test_fail(__FILE__, __LINE__, "%s: dx%d[%lld]%s: tfc %.10g, TF %.10g", k->name, i, (long long)(j / 2),
                      is_cplx(e->dtype) ? (j % 2 ? ".imag" : ".real") : "", a, want);
    }
    TF_DeleteTensor(out[i]);
    TF_DeleteTensor(xv[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* The cases whose name starts with prefix (one test per group keeps failures readable). */
static void run_group(const char *prefix) {
  int n = 0;
  for (size_t i = 0; i < sizeof cg_cases / sizeof cg_cases[0]; i++) {
    const char *nm = cg_cases[i].name;
    if (strncmp(nm, prefix, strlen(prefix))) continue;
    run_case(&cg_cases[i]);
    n++;
  }
  EXPECT_TRUE(n > 0);
}

static void grad_complex_parts(void) {
  run_group("complex_");
  run_group("real_");
  run_group("imag_");
  run_group("conj_");
  run_group("complexabs_");
  run_group("angle_");
}
static void grad_complex_exp_log(void) {
  run_group("exp_");
  run_group("log_");
}
static void grad_complex_sqrt_rsqrt(void) {
  run_group("sqrt_");
  run_group("rsqrt_");
}
static void grad_complex_reciprocal_square_neg(void) {
  run_group("reciprocal_");
  run_group("square_");
  run_group("neg_");
}
static void grad_complex_trig(void) {
  run_group("sin_");
  run_group("cos_");
  run_group("tan_");
}
static void grad_complex_tanh_sigmoid(void) {
  run_group("tanh_");
  run_group("sigmoid_");
}
static void grad_complex_add_sub(void) {
  run_group("addv2_");
  run_group("add_");
  run_group("sub_");
  run_group("addn_");
}
static void grad_complex_mul_div(void) {
  run_group("mul_");
  run_group("realdiv_");
  run_group("div_");
}
static void grad_complex_pow(void) { run_group("pow_"); }
static void grad_complex_sum_mean(void) {
  run_group("sum_");
  run_group("mean_");
}
static void grad_complex_matmul(void) {
  run_group("matmul_");
  run_group("bmm_");
}

static const tfc_test tests[] = {TFC_TEST(grad_complex_parts),        TFC_TEST(grad_complex_exp_log),
                                 TFC_TEST(grad_complex_sqrt_rsqrt),   TFC_TEST(grad_complex_reciprocal_square_neg),
                                 TFC_TEST(grad_complex_trig),         TFC_TEST(grad_complex_tanh_sigmoid),
                                 TFC_TEST(grad_complex_add_sub),      TFC_TEST(grad_complex_mul_div),
                                 TFC_TEST(grad_complex_pow),          TFC_TEST(grad_complex_sum_mean),
                                 TFC_TEST(grad_complex_matmul),       {NULL, NULL}};
TFC_TEST_MAIN(tests)
