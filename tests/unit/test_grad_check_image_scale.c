/*
 * test_grad_check_image_scale — finite-difference checks of ScaleAndTranslate's gradient built
 * by TF_AddGradients (ScaleAndTranslateGrad): every kernel_type, up and down scaling, antialias
 * on and off, a translation that leaves some outputs outside the image. The op is linear in the
 * image, so a wide step is exact up to the float output's rounding.
 */
#include "grad_check.h"

typedef struct {
  const char *kernel;
  int64_t size[2];
  double scale[2], translation[2];
  int antialias;
} st_arg;

static TF_Output build_st(TF_Graph *g, TF_Output *x, int nx, void *arg) {
  (void)nx;
  st_arg *a = arg;
  int64_t two = 2;
  TF_Output size = gc_ivec(g, "size", a->size, 2);
  TF_Output scale = gc_const(g, "scale", TF_FLOAT, &two, 1, a->scale);
  TF_Output tr = gc_const(g, "translation", TF_FLOAT, &two, 1, a->translation);
  TF_OperationDescription *d = TF_NewOperation(g, "ScaleAndTranslate", "y");
  TF_AddInput(d, x[0]);
  TF_AddInput(d, size);
  TF_AddInput(d, scale);
  TF_AddInput(d, tr);
  TF_SetAttrString(d, "kernel_type", a->kernel, strlen(a->kernel));
  TF_SetAttrBool(d, "antialias", (unsigned char)a->antialias);
  return (TF_Output){gc_finish(d), 0};
}

static void grad_scale_and_translate(void) {
  static const char *kernels[8] = {"lanczos1", "lanczos3", "lanczos5", "gaussian",
                                   "box",      "triangle", "keyscubic", "mitchellcubic"};
  static const st_arg shapes[3] = {{NULL, {7, 9}, {1.4, 1.5}, {0, 0}, 1},
                                   {NULL, {2, 3}, {0.4, 0.5}, {0, 0}, 1},
                                   {NULL, {4, 5}, {0.7, 1.3}, {0.6, -1.1}, 0}};
  for (int k = 0; k < 8; k++)
    for (int s = 0; s < 3; s++) {
      st_arg a = shapes[s];
      a.kernel = kernels[k];
      gc_input in = {.ndims = 4, .dims = {2, 5, 6, 2}, .lo = -1, .hi = 1};
      char what[96];
      snprintf(what, sizeof what, "ScaleAndTranslate %s to %lldx%lld antialias %d", a.kernel, (long long)a.size[0],
               (long long)a.size[1], a.antialias);
      gc_check_ex(what, build_st, &a, &in, 1, TF_FLOAT, 0.25, 2e-3);
    }
}

static const tfc_test tests[] = {TFC_TEST(grad_scale_and_translate), {0}};
TFC_TEST_MAIN(tests)
