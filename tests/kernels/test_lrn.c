/* LRN and LRNGrad against the values TensorFlow computed for the same input (x = (arange(12) -
 * 5) / 4 as [1, 1, 2, 6]; depth_radius 2, bias 1.5, alpha 0.3, beta 0.75, and the defaults) and
 * for the gradient of sum(LRN(x) * w), w = linspace(-1, 1, 12). */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "kernel_util.c"

static const float X[12] = {-1.25f, -1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f};
static const float TF_Y[12] = {-0.6407690644264221f, -0.5010954141616821f, -0.3737317621707916f,
                               -0.29051896929740906f, -0.16343426704406738f, 0.0f, 0.16343426704406738f,
                               0.29051896929740906f, 0.37373173236846924f, 0.4191913902759552f,
                               0.5334306955337524f, 0.6674451231956482f};
static const float TF_DX[12] = {-0.2201063632965088f, -0.14716823399066925f, -0.11145627498626709f,
                                -0.1861564666032791f, -0.15767373144626617f, -0.06409028172492981f,
                                0.04661038517951965f, 0.11399438977241516f, 0.11247313022613525f,
                                0.016480490565299988f, 0.05791637301445007f, 0.14077837765216827f};
static const float TF_Y_DEFAULT[12] = {-0.5933908224105835f, -0.47471264004707336f, -0.3560344874858856f,
                                       -0.23735632002353668f, -0.11867816001176834f, 0.0f, 0.0966736450791359f,
                                       0.1933472901582718f, 0.2900209426879883f, 0.38669461011886597f,
                                       0.48336827754974365f, 0.5800418853759766f};

static void expect_close(const tfc_tensor *t, const float *want) {
  EXPECT_EQ(t->n_elems, 12);
  for (int i = 0; i < 12; i++) {
    float got = ((const float *)t->data)[i];
    if (fabsf(got - want[i]) > 1e-6f * (1.0f + fabsf(want[i])))
      tfc_test_fail(__FILE__, __LINE__, "element %d: %.9g, TensorFlow %.9g", i, got, want[i]);
  }
}

static int attrs(ku_attr *a) {
  a[0] = (ku_attr){"depth_radius", tfc_attr_int(2)};
  a[1] = (ku_attr){"bias", tfc_attr_float(1.5f)};
  a[2] = (ku_attr){"alpha", tfc_attr_float(0.3f)};
  a[3] = (ku_attr){"beta", tfc_attr_float(0.75f)};
  return 4;
}

static void lrn_normalizes_over_the_depth_window(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *x = ku_f32((int64_t[]){1, 1, 2, 6}, 4, X), *y = NULL;
  ku_attr a[4];
  int n = attrs(a);
  EXPECT_EQ(ku_run("LRN", a, n, &x, 1, NULL, &y, 1, &s), TFC_OK);
  expect_close(y, TF_Y);
  tfc_tensor_unref(y);
  EXPECT_EQ(ku_run("LRN", NULL, 0, &x, 1, NULL, &y, 1, &s), TFC_OK);
  expect_close(y, TF_Y_DEFAULT);
  tfc_tensor_unref(y);
  tfc_tensor_unref(x);
  x = ku_f32((int64_t[]){2, 6}, 2, X);
  EXPECT_EQ(ku_run("LRN", NULL, 0, &x, 1, NULL, &y, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 4 but is rank 2");
  tfc_tensor_unref(x);
  tfc_status_fini(&s);
}

static void lrn_grad_matches_tensorflow(void) {
  tfc_status s;
  tfc_status_init(&s);
  float w[12];
  for (int i = 0; i < 12; i++) w[i] = -1.0f + 2.0f * (float)i / 11.0f;
  tfc_tensor *in[3] = {ku_f32((int64_t[]){1, 1, 2, 6}, 4, w), ku_f32((int64_t[]){1, 1, 2, 6}, 4, X),
                       ku_f32((int64_t[]){1, 1, 2, 6}, 4, TF_Y)};
  tfc_tensor *dx = NULL;
  ku_attr a[4];
  int n = attrs(a);
  EXPECT_EQ(ku_run("LRNGrad", a, n, in, 3, NULL, &dx, 1, &s), TFC_OK);
  expect_close(dx, TF_DX);
  tfc_tensor_unref(dx);
  for (int i = 0; i < 3; i++) tfc_tensor_unref(in[i]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(lrn_normalizes_over_the_depth_window),
                                 TFC_TEST(lrn_grad_matches_tensorflow), {0}};

TFC_TEST_MAIN(tests)
