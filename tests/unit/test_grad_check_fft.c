/*
 * test_grad_check_fft — finite-difference checks (float64) of the FFT ops' gradients. Real
 * inputs go through Complex where the op takes complex, and the complex outputs come back
 * through Real or Imag, so each check sees a real function of real inputs: FFT, IFFT and their
 * 2-D and 3-D forms; RFFT and RFFT2D (odd and even lengths, the extra DC and Nyquist terms);
 * IRFFT and IRFFT2D (the [1, 2, ..., 2(, 1)] mask).
 */
#include "grad_check.h"

#define IN(lo_, hi_, nd_, ...) ((gc_input){.ndims = (nd_), .dims = {__VA_ARGS__}, .lo = (lo_), .hi = (hi_)})

typedef struct {
  const char *op;
  const char *part; /* Real, Imag, or NULL for a real output */
  int n_len;
  int64_t len[3];
} arg;

static TF_Output op_typed(TF_Graph *g, const char *type, const TF_Output *ins, int n, const char *tattr, TF_DataType t) {
  static int counter;
  char name[32];
  snprintf(name, sizeof name, "f%d", counter++);
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  if (tattr) TF_SetAttrType(d, tattr, t);
  return (TF_Output){gc_finish(d), 0};
}

static TF_Output build(TF_Graph *g, TF_Output *x, int nx, void *v) {
  const arg *a = v;
  TF_Output in = x[0];
  if (nx == 2) in = op_typed(g, "Complex", x, 2, "Tout", TF_COMPLEX128);
  TF_Output y;
  if (a->n_len) {
    TF_Output ins[2] = {in, gc_ivec(g, "fft_length", a->len, a->n_len)};
    int inverse = a->op[0] == 'I';
    y = op_typed(g, a->op, ins, 2, inverse ? "Treal" : "Tcomplex", inverse ? TF_DOUBLE : TF_COMPLEX128);
  } else {
    y = op_typed(g, a->op, &in, 1, NULL, TF_DOUBLE);
  }
  return a->part ? op_typed(g, a->part, &y, 1, "Tout", TF_DOUBLE) : y;
}

static void check(const char *op, const char *part, const gc_input *in, int nx, int n_len, int64_t l0, int64_t l1) {
  arg a = {op, part, n_len, {l0, l1, 0}};
  char what[64];
  snprintf(what, sizeof what, "%s/%s/%lld,%lld", op, part ? part : "-", (long long)l0, (long long)l1);
  gc_check(what, build, &a, in, nx);
}

static void grad_fft_complex(void) {
  gc_input one[2] = {IN(-2, 2, 2, 2, 5), IN(-2, 2, 2, 2, 5)};
  gc_input two[2] = {IN(-2, 2, 3, 2, 3, 4), IN(-2, 2, 3, 2, 3, 4)};
  gc_input three[2] = {IN(-2, 2, 3, 2, 3, 2), IN(-2, 2, 3, 2, 3, 2)};
  check("FFT", "Real", one, 2, 0, 0, 0);
  check("FFT", "Imag", one, 2, 0, 0, 0);
  check("IFFT", "Real", one, 2, 0, 0, 0);
  check("IFFT", "Imag", one, 2, 0, 0, 0);
  check("FFT2D", "Imag", two, 2, 0, 0, 0);
  check("IFFT2D", "Real", two, 2, 0, 0, 0);
  check("FFT3D", "Real", three, 2, 0, 0, 0);
  check("IFFT3D", "Imag", three, 2, 0, 0, 0);
}

static void grad_rfft(void) {
  gc_input even[1] = {IN(-2, 2, 2, 2, 6)};
  gc_input odd[1] = {IN(-2, 2, 2, 3, 5)};
  check("RFFT", "Real", even, 1, 1, 6, 0);
  check("RFFT", "Imag", even, 1, 1, 6, 0);
  check("RFFT", "Real", odd, 1, 1, 5, 0);
  check("RFFT", "Imag", odd, 1, 1, 5, 0);
  gc_input m2[1] = {IN(-2, 2, 3, 2, 3, 4)};
  gc_input m2odd[1] = {IN(-2, 2, 2, 4, 5)};
  check("RFFT2D", "Real", m2, 1, 2, 3, 4);
  check("RFFT2D", "Imag", m2, 1, 2, 3, 4);
  check("RFFT2D", "Real", m2odd, 1, 2, 4, 5);
  check("RFFT2D", "Imag", m2odd, 1, 2, 4, 5);
}

static void grad_irfft(void) {
  gc_input even[2] = {IN(-2, 2, 2, 2, 4), IN(-2, 2, 2, 2, 4)}; /* fft_length 6 */
  gc_input odd[2] = {IN(-2, 2, 2, 3, 3), IN(-2, 2, 2, 3, 3)};  /* fft_length 5 */
  check("IRFFT", NULL, even, 2, 1, 6, 0);
  check("IRFFT", NULL, odd, 2, 1, 5, 0);
  gc_input m2[2] = {IN(-2, 2, 3, 2, 3, 3), IN(-2, 2, 3, 2, 3, 3)}; /* fft_length [3, 4] */
  gc_input m2odd[2] = {IN(-2, 2, 2, 4, 3), IN(-2, 2, 2, 4, 3)};     /* fft_length [4, 5] */
  check("IRFFT2D", NULL, m2, 2, 2, 3, 4);
  check("IRFFT2D", NULL, m2odd, 2, 2, 4, 5);
}

static const tfc_test tests[] = {TFC_TEST(grad_fft_complex), TFC_TEST(grad_rfft), TFC_TEST(grad_irfft), {NULL, NULL}};
TFC_TEST_MAIN(tests)
