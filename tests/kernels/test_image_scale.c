/*
 * ScaleAndTranslate's edge cases beyond TensorFlow's fixture (tests/fixtures/
 * test_tf_image_scale.c): a scale so small that the stretched kernel reaches past every index,
 * a huge scale, and translations that are infinite or NaN give outputs of the right shape
 * (zeros where no input pixel is sampled) without overflowing an index; a constant image stays
 * constant wherever it is sampled; an empty batch gives an empty output.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

/* Runs ScaleAndTranslate on the 1x4x5x1 image of value 2 to size [3, 6]; out borrowed values. */
static tfc_tensor *run(float sy, float sx, float ty, float tx, const char *kernel, int antialias) {
  int64_t idims[4] = {1, 4, 5, 1}, two = 2;
  float img[20];
  for (int i = 0; i < 20; i++) img[i] = 2.0f;
  int32_t size[2] = {3, 6};
  float scale[2] = {sy, sx}, tr[2] = {ty, tx};
  tfc_tensor *in[4] = {ku_f32(idims, 4, img), ku_i32(&two, 1, size), ku_f32(&two, 1, scale), ku_f32(&two, 1, tr)};
  tfc_status s;
  tfc_status_init(&s);
  ku_attr a[2] = {{"antialias", tfc_attr_bool(antialias)}, {"kernel_type", {0}}};
  EXPECT_EQ(tfc_attr_string(kernel, strlen(kernel), &a[1].value, &s), TFC_OK);
  tfc_tensor *out[1] = {0};
  EXPECT_EQ(ku_run("ScaleAndTranslate", a, 2, in, 4, NULL, out, 1, &s), TFC_OK);
  for (int i = 0; i < 4; i++) tfc_tensor_unref(in[i]);
  for (int i = 0; i < 2; i++) tfc_attr_value_fini(&a[i].value);
  tfc_status_fini(&s);
  return out[0];
}

static void extreme_scales_and_translations_stay_in_the_image(void) {
  static const float cases[][4] = {{1e-30f, 1e-30f, 0, 0}, {1e30f, 1e30f, 0, 0},          {0.5f, 0.5f, INFINITY, 0},
                                   {0.5f, 0.5f, NAN, -INFINITY}, {1e-30f, 2.0f, 1e30f, -1e30f}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
    for (int aa = 0; aa < 2; aa++) {
      tfc_tensor *y = run(cases[k][0], cases[k][1], cases[k][2], cases[k][3], "lanczos5", aa);
      if (!y) continue;
      EXPECT_EQ(y->n_elems, 18);
      for (int64_t i = 0; i < y->n_elems; i++) {
        float v = ((const float *)y->data)[i];
        /* every output is either unsampled (0) or a normalised average of the value 2 */
        EXPECT_TRUE(v == 0.0f || fabsf(v - 2.0f) < 1e-5f);
      }
      tfc_tensor_unref(y);
    }
}

static void a_constant_image_stays_constant(void) {
  static const char *kernels[8] = {"lanczos1", "lanczos3", "lanczos5", "gaussian",
                                   "box",      "triangle", "keyscubic", "mitchellcubic"};
  for (int k = 0; k < 8; k++) {
    tfc_tensor *y = run(0.75f, 1.2f, 0, 0, kernels[k], 1);
    if (!y) continue;
    for (int64_t i = 0; i < y->n_elems; i++) EXPECT_TRUE(fabsf(((const float *)y->data)[i] - 2.0f) < 1e-5f);
    tfc_tensor_unref(y);
  }
}

static void an_empty_batch_gives_an_empty_output(void) {
  int64_t idims[4] = {0, 4, 5, 2}, two = 2;
  int32_t size[2] = {3, 6};
  float scale[2] = {0.75f, 1.2f}, tr[2] = {0, 0};
  tfc_tensor *in[4] = {ku_f32(idims, 4, NULL), ku_i32(&two, 1, size), ku_f32(&two, 1, scale), ku_f32(&two, 1, tr)};
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out[1] = {0};
  EXPECT_EQ(ku_run("ScaleAndTranslate", NULL, 0, in, 4, NULL, out, 1, &s), TFC_OK);
  if (out[0]) {
    EXPECT_EQ(out[0]->n_elems, 0);
    EXPECT_EQ(out[0]->dims[1], 3);
    EXPECT_EQ(out[0]->dims[2], 6);
  }
  for (int i = 0; i < 4; i++) tfc_tensor_unref(in[i]);
  tfc_tensor_unref(out[0]);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {TFC_TEST(extreme_scales_and_translations_stay_in_the_image),
                                 TFC_TEST(a_constant_image_stays_constant),
                                 TFC_TEST(an_empty_batch_gives_an_empty_output), {0}};
TFC_TEST_MAIN(tests)
