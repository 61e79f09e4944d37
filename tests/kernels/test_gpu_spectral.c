/* The FFTs and the complex-number ops on the GPU against the CPU kernels (FFTW and C's
 * complex math), in one session each (gpu_compare.h): FFT, IFFT and their 2-D and 3-D forms
 * on complex64 and complex128 with batch dims; the real transforms with fft_length below the
 * input's dims (the input cropped), odd lengths and an fft_length of 0 (zeros); the inverse
 * real transforms of what a forward real transform gives (Hermitian input, where cuFFT's c2r
 * and the CPU's order agree); Complex with broadcasting, Real, Imag, ComplexAbs, Angle, Conj;
 * bad input failing alike on both devices.
 *
 * Without a CUDA build or a GPU the comparisons skip with the reason; with TFC_GC_SELF_TEST=1
 * both copies run on the CPU (gpu_compare.h). */
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

static double tol_of(TF_DataType dt) { return dt == TF_COMPLEX128 || dt == TF_DOUBLE ? 1e-10 : 2e-4; }

static TF_DataType real_of(TF_DataType c) { return c == TF_COMPLEX128 ? TF_DOUBLE : TF_FLOAT; }

static void complex_transforms_match_cpu(void) {
  gc_need_gpu();
  static const struct {
    const char *op;
    int nd;
    int64_t d[4];
  } cases[] = {
      {"FFT", 2, {3, 8}},          {"IFFT", 2, {3, 8}},        {"FFT", 1, {7}},          {"IFFT", 3, {2, 2, 9}},
      {"FFT2D", 3, {2, 5, 6}},     {"IFFT2D", 3, {2, 5, 6}},   {"FFT2D", 2, {1, 1}},     {"FFT3D", 4, {2, 3, 4, 5}},
      {"IFFT3D", 4, {2, 3, 4, 5}}, {"FFT", 2, {0, 4}},
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType dt = d ? TF_COMPLEX128 : TF_COMPLEX64;
      gc_arg x = gc_fed(dt, cases[i].nd, cases[i].d, -1, 1);
      char label[96];
      snprintf(label, sizeof label, "%s case %d dtype %d", cases[i].op, i, (int)dt);
      gc_check(&(gc_op){.type = cases[i].op, .attrs = {GC_TYPE("Tcomplex", dt)}}, &x, 1, tol_of(dt), label);
      gc_free_args(&x, 1);
    }
}

static void real_transforms_match_cpu(void) {
  gc_need_gpu();
  static const struct {
    const char *op;
    int nd;
    int64_t d[4];
    int32_t len[3];
  } cases[] = {
      {"RFFT", 2, {3, 8}, {8}},
      {"RFFT", 2, {3, 9}, {7}}, /* cropped, odd */
      {"RFFT", 2, {3, 4}, {0}}, /* zeros */
      {"RFFT2D", 3, {2, 6, 5}, {6, 5}},
      {"RFFT2D", 3, {2, 6, 5}, {3, 4}},
      {"RFFT3D", 4, {2, 3, 4, 6}, {3, 4, 6}},
      {"RFFT3D", 3, {5, 4, 7}, {4, 2, 5}},
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType rt = d ? TF_DOUBLE : TF_FLOAT, ct = d ? TF_COMPLEX128 : TF_COMPLEX64;
      int rank = cases[i].op[4] == '2' ? 2 : cases[i].op[4] == '3' ? 3 : 1;
      gc_arg args[2] = {gc_fed(rt, cases[i].nd, cases[i].d, -1, 1), gc_konst(cases[i].len, rank)};
      char label[96];
      snprintf(label, sizeof label, "%s case %d dtype %d", cases[i].op, i, (int)rt);
      gc_check(&(gc_op){.type = cases[i].op, .attrs = {GC_TYPE("Treal", rt), GC_TYPE("Tcomplex", ct)}}, args, 2,
               tol_of(rt), label);
      gc_free_args(args, 2);
    }
}

/* The forward real transform of random reals of dims (fft_length len) on the CPU: Hermitian
 * input for the inverse. */
static TF_Tensor *hermitian(const char *op, TF_DataType rt, int nd, const int64_t *dims, const int32_t *len, int rank) {
  TF_DataType ct = rt == TF_DOUBLE ? TF_COMPLEX128 : TF_COMPLEX64;
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Tensor *x = gc_rand(rt, nd, dims, -1, 1), *l = gc_ints(len, rank);
  TF_Output xo = gc_unary(g, "Placeholder", "x", (TF_Output){NULL, 0}, "dtype", rt, s, op);
  TF_Output lo = gc_unary(g, "Placeholder", "len", (TF_Output){NULL, 0}, "dtype", TF_INT32, s, op);
  TF_OperationDescription *d = TF_NewOperation(g, op, "fwd");
  TF_SetDevice(d, GC_CPU);
  TF_AddInput(d, xo);
  TF_AddInput(d, lo);
  TF_SetAttrType(d, "Treal", rt);
  TF_SetAttrType(d, "Tcomplex", ct);
  TF_Output y = {gc_finish(d, s, 0, op), 0};
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, (TF_Output[]){xo, lo}, (TF_Tensor *[]){x, l}, 2, &y, &out, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s on the CPU: %s", op, TF_Message(s));
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteTensor(x);
  TF_DeleteTensor(l);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return out;
}

static void inverse_real_transforms_match_cpu(void) {
  gc_need_gpu();
  static const struct {
    const char *fwd, *inv;
    int nd;
    int64_t d[4];
    int32_t len[3];
  } cases[] = {
      {"RFFT", "IRFFT", 2, {3, 8}, {8}},
      {"RFFT", "IRFFT", 2, {3, 9}, {9}},
      {"RFFT2D", "IRFFT2D", 3, {2, 6, 5}, {6, 5}},
      {"RFFT2D", "IRFFT2D", 3, {2, 4, 8}, {4, 8}},
      {"RFFT3D", "IRFFT3D", 4, {2, 3, 4, 6}, {3, 4, 6}},
  };
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
    for (int d = 0; d < 2; d++) {
      TF_DataType rt = d ? TF_DOUBLE : TF_FLOAT, ct = d ? TF_COMPLEX128 : TF_COMPLEX64;
      int rank = cases[i].fwd[4] == '2' ? 2 : cases[i].fwd[4] == '3' ? 3 : 1;
      gc_arg args[2] = {GC_FED(hermitian(cases[i].fwd, rt, cases[i].nd, cases[i].d, cases[i].len, rank)),
                        gc_konst(cases[i].len, rank)};
      char label[96];
      snprintf(label, sizeof label, "%s case %d dtype %d", cases[i].inv, i, (int)rt);
      gc_check(&(gc_op){.type = cases[i].inv, .attrs = {GC_TYPE("Treal", rt), GC_TYPE("Tcomplex", ct)}}, args, 2,
               tol_of(rt), label);
      gc_free_args(args, 2);
    }
}

static void complex_parts_match_cpu(void) {
  gc_need_gpu();
  static const char *const unary[] = {"Real", "Imag", "ComplexAbs", "Angle", "Conj"};
  for (int d = 0; d < 2; d++) {
    TF_DataType ct = d ? TF_COMPLEX128 : TF_COMPLEX64, rt = real_of(ct);
    for (int k = 0; k < 5; k++) {
      gc_arg x = gc_fed(ct, 3, (int64_t[]){2, 3, 5}, -2, 2);
      char label[64];
      snprintf(label, sizeof label, "%s dtype %d", unary[k], (int)ct);
      gc_op o = {.type = unary[k], .attrs = {GC_TYPE("T", ct)}};
      if (k != 4) o.attrs[1] = (gc_attr)GC_TYPE("Tout", rt);
      gc_check(&o, &x, 1, tol_of(ct), label);
      gc_free_args(&x, 1);
    }
    static const struct {
      int nx, ny;
      int64_t x[3], y[3];
    } shapes[] = {{2, 2, {3, 4}, {3, 4}}, {2, 1, {3, 4}, {4}}, {3, 2, {2, 1, 4}, {3, 1}}, {0, 2, {0}, {2, 2}}};
    for (int i = 0; i < 4; i++) {
      gc_arg args[2] = {gc_fed(rt, shapes[i].nx, shapes[i].x, -2, 2), gc_fed(rt, shapes[i].ny, shapes[i].y, -2, 2)};
      char label[64];
      snprintf(label, sizeof label, "Complex case %d dtype %d", i, (int)rt);
      gc_check(&(gc_op){.type = "Complex", .attrs = {GC_TYPE("T", rt), GC_TYPE("Tout", ct)}}, args, 2, 0, label);
      gc_free_args(args, 2);
    }
  }
}

static void spectral_ops_report_cpu_errors(void) {
  gc_need_gpu();
  int32_t two[2] = {4, 4}, neg = -3;
  gc_arg a[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 8}, -1, 1), GC_FED(gc_ints(two, 2))}; /* fed: past shape inference */
  gc_op rfft = {.type = "RFFT", .attrs = {GC_TYPE("Treal", TF_FLOAT), GC_TYPE("Tcomplex", TF_COMPLEX64)}};
  gc_check_error(&rfft, a, 2, TF_INVALID_ARGUMENT, "fft_length must have shape [1]", "RFFT two lengths");
  gc_free_args(a, 2);
  gc_arg b[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 8}, -1, 1), gc_konst(&neg, 1)};
  gc_check_error(&rfft, b, 2, TF_INVALID_ARGUMENT, "fft_length[0] must >= 0, but got: -3", "RFFT negative");
  gc_free_args(b, 2);
  int32_t nine = 9;
  gc_arg c[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){3, 8}, -1, 1), gc_konst(&nine, 1)};
  gc_check_error(&rfft, c, 2, TF_INVALID_ARGUMENT, "Input dimension 1 must have length of at least 9 but got: 8",
                 "RFFT too long");
  gc_free_args(c, 2);
  gc_arg e[1] = {gc_fed(TF_COMPLEX64, 1, (int64_t[]){8}, -1, 1)};
  gc_check_error(&(gc_op){.type = "FFT2D", .attrs = {GC_TYPE("Tcomplex", TF_COMPLEX64)}}, e, 1, TF_INVALID_ARGUMENT,
                 "Input must have rank of at least 2 but got: [8]", "FFT2D of a vector");
  gc_free_args(e, 1);
  gc_arg f[2] = {gc_fed(TF_FLOAT, 1, (int64_t[]){3}, -1, 1), gc_fed(TF_FLOAT, 1, (int64_t[]){4}, -1, 1)};
  gc_check_error(&(gc_op){.type = "Complex", .attrs = {GC_TYPE("T", TF_FLOAT), GC_TYPE("Tout", TF_COMPLEX64)}}, f, 2,
                 TF_INVALID_ARGUMENT, "Incompatible shapes: [3] vs. [4]", "Complex of mismatched shapes");
  gc_free_args(f, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(complex_transforms_match_cpu),
    TFC_TEST(real_transforms_match_cpu),
    TFC_TEST(inverse_real_transforms_match_cpu),
    TFC_TEST(complex_parts_match_cpu),
    TFC_TEST(spectral_ops_report_cpu_errors),
    {0},
};

TFC_TEST_MAIN(tests)
