/* TopKV2's order keys (device/top_k_order.h), shared by the CPU kernel and the GPU sort: a
 * larger value has a larger key and equal values (NaNs of any sign and payload, -0.0 and 0.0)
 * equal keys, for float, double and int64, checked pairwise over values that include the
 * extremes, subnormals, infinities and NaNs; the index breaks ties, lower first. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "device/top_k_order.h"
#include "harness.h"

/* -1, 0, 1 as a ranks below, equal to, above b (NaN above everything, NaNs equal). */
static int rank_cmp(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

static int key_cmp(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static float neg_nan_f(void) {
  uint32_t u = 0xffc00001u;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static void float_and_double_keys_order_as_values(void) {
  const double vals[] = {0.0,      -0.0,    1.0,     -1.0,      0.5,     -0.5,     FLT_MAX, -FLT_MAX, FLT_MIN,
                         -FLT_MIN, 1e-40,   -1e-40,  INFINITY,  -INFINITY, NAN,     -NAN,     3.25,    -7.0,
                         DBL_MAX,  -DBL_MAX, 5e-324, -5e-324};
  const int n = (int)(sizeof vals / sizeof vals[0]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float fi = (float)vals[i], fj = (float)vals[j];
      if (key_cmp(tfc_top_k_key_f32(fi), tfc_top_k_key_f32(fj)) != rank_cmp(fi, fj))
        tfc_test_fail(__FILE__, __LINE__, "float keys of %g and %g", (double)fi, (double)fj);
      if (key_cmp(tfc_top_k_key_f64(vals[i]), tfc_top_k_key_f64(vals[j])) != rank_cmp(vals[i], vals[j]))
        tfc_test_fail(__FILE__, __LINE__, "double keys of %g and %g", vals[i], vals[j]);
    }
  /* every NaN takes the top key */
  EXPECT_TRUE(tfc_top_k_key_f32(neg_nan_f()) == UINT64_MAX);
  EXPECT_TRUE(tfc_top_k_key_f32(INFINITY) < UINT64_MAX);
  EXPECT_TRUE(tfc_top_k_key_f64(INFINITY) < UINT64_MAX);
}

static void int_keys_order_as_values(void) {
  const int64_t vals[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN, 42, -42};
  const int n = (int)(sizeof vals / sizeof vals[0]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      EXPECT_EQ(key_cmp(tfc_top_k_key_i64(vals[i]), tfc_top_k_key_i64(vals[j])),
                (vals[i] > vals[j]) - (vals[i] < vals[j]));
}

static void ties_go_to_the_lower_index(void) {
  uint64_t k = tfc_top_k_key_f32(2.0f);
  EXPECT_TRUE(tfc_top_k_before(k, 3, k, 5));
  EXPECT_TRUE(!tfc_top_k_before(k, 5, k, 3));
  EXPECT_TRUE(!tfc_top_k_before(k, 4, k, 4));
  EXPECT_TRUE(tfc_top_k_before(tfc_top_k_key_f32(NAN), 9, k, 0));
  EXPECT_TRUE(tfc_top_k_before(tfc_top_k_key_f32(-0.0f), 1, tfc_top_k_key_f32(0.0f), 2));
}

static const tfc_test tests[] = {
    TFC_TEST(float_and_double_keys_order_as_values),
    TFC_TEST(int_keys_order_as_values),
    TFC_TEST(ties_go_to_the_lower_index),
    {0},
};

TFC_TEST_MAIN(tests)
