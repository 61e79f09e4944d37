/* The dense solvers on the GPU (cuBLAS's batched LU, cuSOLVER's batched Cholesky) against the
 * CPU kernels, in one session each (gpu_compare.h): MatrixDeterminant, MatrixInverse (with and
 * without adjoint), MatrixSolve (adjoint, one and several right-hand sides, none) and Cholesky
 * on float and double, over batches of many small matrices, 1 x 1, odd sizes up to 70 and
 * batch dims of rank 2; empty batches and 0 x 0 matrices; singular and not positive definite
 * input and bad shapes failing with the CPU's code and text on both devices.
 *
 * The matrices are I + R with R uniform in [-0.5/n, 0.5/n) (symmetrized for Cholesky):
 * diagonally dominant, so well conditioned (condition number below 3) and with a determinant
 * in [0.5^n, 1.5^n], where float's LU on the GPU and the CPU's LU in double agree to a few
 * float ulps times n.
 *
 * Without a CUDA build or a GPU the comparisons skip with the reason; with TFC_GC_SELF_TEST=1
 * both copies run on the CPU (gpu_compare.h). */
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

static double tol_of(TF_DataType dt) { return dt == TF_DOUBLE ? 1e-9 : 1e-3; }

static double get(const TF_Tensor *t, int64_t i) {
  const void *p = TF_TensorData(t);
  return TF_TensorType(t) == TF_FLOAT ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void set(TF_Tensor *t, int64_t i, double v) {
  void *p = TF_TensorData(t);
  if (TF_TensorType(t) == TF_FLOAT) ((float *)p)[i] = (float)v;
  else ((double *)p)[i] = v;
}

/* A fed batch of n x n matrices (dims[nd - 1] = n) as the top comment says; sym: symmetric. */
static gc_arg well_conditioned(TF_DataType dt, int nd, const int64_t *dims, int sym) {
  int64_t n = dims[nd - 1], count = 1;
  for (int i = 0; i < nd; i++) count *= dims[i];
  double r = n > 0 ? 0.5 / (double)n : 0;
  TF_Tensor *t = gc_rand(dt, nd, dims, -r, r);
  for (int64_t b = 0; n > 0 && b < count / (n * n); b++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        int64_t k = (b * n + i) * n + j;
        if (sym && j > i) set(t, k, get(t, (b * n + j) * n + i));
        if (i == j) set(t, k, 1 + get(t, k));
      }
  return GC_FED(t);
}

/* A fed tensor of dims holding vals (count of them). */
static gc_arg values(TF_DataType dt, int nd, const int64_t *dims, const double *vals) {
  int64_t count = 1;
  for (int i = 0; i < nd; i++) count *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)count * TF_DataTypeSize(dt));
  for (int64_t i = 0; i < count; i++) set(t, i, vals[i]);
  return GC_FED(t);
}

/* The square shapes every op runs on: many small matrices, 1 x 1, odd sizes, batch dims. */
static const struct {
  int nd;
  int64_t d[4];
} shapes[] = {
    {2, {1, 1}}, {2, {3, 3}}, {3, {4, 5, 5}}, {4, {2, 3, 7, 7}}, {2, {17, 17}}, {3, {2, 33, 33}}, {2, {70, 70}},
    {3, {300, 4, 4}}, {3, {64, 1, 1}},
};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static gc_op op_of(const char *type, TF_DataType dt, int adjoint) {
  gc_op o = {.type = type, .attrs = {GC_TYPE("T", dt)}};
  if (adjoint >= 0) o.attrs[1] = (gc_attr)GC_BOOL("adjoint", adjoint);
  return o;
}

/* One input ops (MatrixDeterminant, Cholesky; MatrixInverse with adjoint 0 and 1) over shapes. */
static void unary_matches_cpu(const char *type, int sym, int with_adjoint) {
  gc_need_gpu();
  for (int i = 0; i < N_SHAPES; i++)
    for (int d = 0; d < 2; d++)
      for (int adj = 0; adj <= with_adjoint; adj++) {
        TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
        gc_arg x = well_conditioned(dt, shapes[i].nd, shapes[i].d, sym);
        char label[96];
        snprintf(label, sizeof label, "%s shape %d dtype %d adjoint %d", type, i, (int)dt, adj);
        gc_op o = op_of(type, dt, with_adjoint ? adj : -1);
        gc_check(&o, &x, 1, tol_of(dt), label);
        gc_free_args(&x, 1);
      }
}

static void determinant_matches_cpu(void) { unary_matches_cpu("MatrixDeterminant", 0, 0); }
static void inverse_matches_cpu(void) { unary_matches_cpu("MatrixInverse", 0, 1); }
static void cholesky_matches_cpu(void) { unary_matches_cpu("Cholesky", 1, 0); }

static void solve_matches_cpu(void) {
  gc_need_gpu();
  static const int64_t rhs_cols[] = {1, 3, 0};
  for (int i = 0; i < N_SHAPES; i++)
    for (int d = 0; d < 2; d++)
      for (int adj = 0; adj <= 1; adj++)
        for (int r = 0; r < 3; r++) {
          TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
          int nd = shapes[i].nd;
          int64_t rd[4];
          memcpy(rd, shapes[i].d, sizeof rd);
          rd[nd - 1] = rhs_cols[r];
          gc_arg a[2] = {well_conditioned(dt, nd, shapes[i].d, 0), gc_fed(dt, nd, rd, -1, 1)};
          char label[96];
          snprintf(label, sizeof label, "MatrixSolve shape %d dtype %d adjoint %d rhs %lld", i, (int)dt, adj,
                   (long long)rhs_cols[r]);
          gc_op o = op_of("MatrixSolve", dt, adj);
          gc_check(&o, a, 2, tol_of(dt), label);
          gc_free_args(a, 2);
        }
}

/* A singular matrix's determinant is 0 on both devices (a zero matrix, a zero row). */
static void determinant_of_singular_is_zero(void) {
  gc_need_gpu();
  static const double vals[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, /* zeros */
                                2, 1, 3, 0, 0, 0, 1, 5, 4, /* a zero row */
                                2, 1, 3, 1, 2, 0, 1, 5, 4};
  for (int d = 0; d < 2; d++) {
    TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
    gc_arg x = values(dt, 3, (int64_t[]){3, 3, 3}, vals);
    gc_op o = op_of("MatrixDeterminant", dt, -1);
    gc_check(&o, &x, 1, tol_of(dt), "MatrixDeterminant of singular matrices");
    gc_free_args(&x, 1);
  }
}

/* Empty batches, and 0 x 0 matrices (a determinant of 1 each, empty everything else). */
static void empty_inputs_match_cpu(void) {
  gc_need_gpu();
  static const struct {
    int nd;
    int64_t d[3];
  } empty[] = {{3, {0, 4, 4}}, {3, {3, 0, 0}}, {2, {0, 0}}};
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
      static const char *const unary[] = {"MatrixDeterminant", "MatrixInverse", "Cholesky"};
      for (int u = 0; u < 3; u++) {
        gc_arg x = gc_fed(dt, empty[i].nd, empty[i].d, -1, 1);
        gc_op o = op_of(unary[u], dt, u == 1 ? 0 : -1);
        char label[96];
        snprintf(label, sizeof label, "%s of empty shape %d dtype %d", unary[u], i, (int)dt);
        gc_check(&o, &x, 1, 0, label);
        gc_free_args(&x, 1);
      }
      int64_t rd[3] = {empty[i].d[0], empty[i].d[1], 2};
      if (empty[i].nd == 2) rd[1] = 2;
      gc_arg a[2] = {gc_fed(dt, empty[i].nd, empty[i].d, -1, 1), gc_fed(dt, empty[i].nd, rd, -1, 1)};
      char label[96];
      snprintf(label, sizeof label, "MatrixSolve of empty shape %d dtype %d", i, (int)dt);
      gc_op o = op_of("MatrixSolve", dt, 0);
      gc_check(&o, a, 2, 0, label);
      gc_free_args(a, 2);
    }
}

static void singular_input_fails_as_on_cpu(void) {
  gc_need_gpu();
  /* An invertible matrix, then a singular one (its rows proportional, exactly in float). */
  static const double two[] = {1, 0, 0, 1, 1, 2, 2, 4};
  static const double rhs[] = {1, 2, 3, 4};
  for (int d = 0; d < 2; d++) {
    TF_DataType dt = d ? TF_DOUBLE : TF_FLOAT;
    for (int adj = 0; adj <= 1; adj++) {
      gc_arg x = values(dt, 3, (int64_t[]){2, 2, 2}, two);
      gc_op inv = op_of("MatrixInverse", dt, adj);
      gc_check_error(&inv, &x, 1, TF_INVALID_ARGUMENT, "Input is not invertible.", "MatrixInverse singular");
      gc_free_args(&x, 1);
      gc_arg a[2] = {values(dt, 3, (int64_t[]){2, 2, 2}, two), values(dt, 3, (int64_t[]){2, 2, 1}, rhs)};
      gc_op solve = op_of("MatrixSolve", dt, adj);
      gc_check_error(&solve, a, 2, TF_INVALID_ARGUMENT, "Input matrix is not invertible.", "MatrixSolve singular");
      gc_free_args(a, 2);
      /* No right-hand sides: the factorization still reports the singular matrix. */
      gc_arg z[2] = {values(dt, 3, (int64_t[]){2, 2, 2}, two), gc_fed(dt, 3, (int64_t[]){2, 2, 0}, -1, 1)};
      gc_check_error(&solve, z, 2, TF_INVALID_ARGUMENT, "Input matrix is not invertible.",
                     "MatrixSolve singular, no right-hand sides");
      gc_free_args(z, 2);
    }
    /* Positive definite, then symmetric but indefinite (eigenvalues 3 and -1), then -I. */
    static const double spd[] = {4, 1, 1, 3, 1, 2, 2, 1, -1, 0, 0, -1};
    static const int64_t counts[] = {2, 3};
    for (int k = 0; k < 2; k++) {
      gc_arg x = values(dt, 3, (int64_t[]){counts[k], 2, 2}, spd);
      gc_op chol = op_of("Cholesky", dt, -1);
      gc_check_error(&chol, &x, 1, TF_INVALID_ARGUMENT,
                     "Cholesky decomposition was not successful. The input might not be valid.",
                     "Cholesky not positive definite");
      gc_free_args(&x, 1);
    }
  }
}

static void bad_shapes_fail_as_on_cpu(void) {
  gc_need_gpu();
  static const char *const unary[] = {"MatrixDeterminant", "MatrixInverse", "Cholesky"};
  for (int u = 0; u < 3; u++) {
    gc_op o = op_of(unary[u], TF_FLOAT, u == 1 ? 0 : -1);
    gc_arg v = gc_fed(TF_FLOAT, 1, (int64_t[]){4}, -1, 1);
    gc_check_error(&o, &v, 1, TF_INVALID_ARGUMENT, "Input tensor 0 must have rank >= 2", "vector input");
    gc_free_args(&v, 1);
    gc_arg r = gc_fed(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, -1, 1);
    gc_check_error(&o, &r, 1, TF_INVALID_ARGUMENT, "Input matrix must be square.", "rectangular input");
    gc_free_args(&r, 1);
  }
  gc_op solve = op_of("MatrixSolve", TF_DOUBLE, 0);
  gc_arg a[2] = {gc_fed(TF_DOUBLE, 2, (int64_t[]){3, 3}, -1, 1), gc_fed(TF_DOUBLE, 2, (int64_t[]){4, 1}, -1, 1)};
  gc_check_error(&solve, a, 2, TF_INVALID_ARGUMENT,
                 "Input matrix and right-hand side must have the same number of rows and batch dimensions: [3,3] "
                 "vs. [4,1]",
                 "MatrixSolve rows");
  gc_free_args(a, 2);
  gc_arg b[2] = {gc_fed(TF_DOUBLE, 3, (int64_t[]){2, 3, 3}, -1, 1), gc_fed(TF_DOUBLE, 3, (int64_t[]){3, 3, 1}, -1, 1)};
  gc_check_error(&solve, b, 2, TF_INVALID_ARGUMENT, "must have the same number of rows and batch dimensions",
                 "MatrixSolve batch dims");
  gc_free_args(b, 2);
  gc_arg c[2] = {gc_fed(TF_DOUBLE, 3, (int64_t[]){2, 3, 4}, -1, 1), gc_fed(TF_DOUBLE, 3, (int64_t[]){2, 3, 1}, -1, 1)};
  gc_check_error(&solve, c, 2, TF_INVALID_ARGUMENT, "Input matrix must be square.", "MatrixSolve rectangular");
  gc_free_args(c, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(determinant_matches_cpu),
    TFC_TEST(inverse_matches_cpu),
    TFC_TEST(solve_matches_cpu),
    TFC_TEST(cholesky_matches_cpu),
    TFC_TEST(determinant_of_singular_is_zero),
    TFC_TEST(empty_inputs_match_cpu),
    TFC_TEST(singular_input_fails_as_on_cpu),
    TFC_TEST(bad_shapes_fail_as_on_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
