/* The resize ops' shared sampling arithmetic (device/resize_plan.h), on the host. The GPU's
 * gradient kernels gather: each result pixel finds the resized indices that read it by binary
 * search (tfc_resize_lerp_range, tfc_resize_nearest_range), which is right only if the taps and
 * the nearest pixel are non-decreasing in the index under float rounding. Here the ranges are
 * checked against brute force, for every source index of many axes: up- and downsampling by
 * large and awkward ratios, 1-pixel axes, every flag combination. The device runs the same
 * inline functions with the same rounding, so this covers its index math without a GPU. */
#include <stdint.h>

#include "device/resize_plan.h"
#include "harness.h"

/* {in, out} axis pairs (source pixels, resized pixels). */
static const int64_t kAxes[][2] = {
    {1, 1},   {1, 7},    {7, 1},     {2, 3},    {3, 2},    {5, 11},   {11, 5},    {17, 40}, {40, 17},
    {3, 1000}, {1000, 3}, {299, 224}, {224, 299}, {513, 512}, {512, 513}, {97, 4099}, {4099, 97},
};
#define N_AXES (sizeof kAxes / sizeof kAxes[0])
static const int kFlags[3][2] = {{0, 0}, {1, 0}, {0, 1}}; /* {align_corners, half_pixel_centers} */

static void lerp_ranges_hold_exactly_the_indices_whose_taps_read_a_pixel(void) {
  for (size_t a = 0; a < N_AXES; a++)
    for (int f = 0; f < 3; f++) {
      int64_t in = kAxes[a][0], out = kAxes[a][1];
      float scale = tfc_resize_scale(in, out, kFlags[f][0]);
      int half = kFlags[f][1];
      int64_t covered = 0;
      for (int64_t r = 0; r < in; r++) {
        int64_t from, to;
        tfc_resize_lerp_range(r, out, in, scale, half, &from, &to);
        for (int64_t i = 0; i < out; i++) {
          int64_t lo, hi;
          float w;
          tfc_resize_lerp(i, in, scale, half, &lo, &hi, &w);
          int reads = lo == r || hi == r;
          if (reads != (i >= from && i < to))
            tfc_test_fail(__FILE__, __LINE__, "in %lld out %lld flags %d: source %lld, index %lld (taps %lld, %lld) %s [%lld, %lld)",
                          (long long)in, (long long)out, f, (long long)r, (long long)i, (long long)lo, (long long)hi,
                          reads ? "outside" : "inside", (long long)from, (long long)to);
          EXPECT_TRUE(lo >= 0 && lo <= hi && hi <= lo + 1 && hi < in);
        }
        covered += to - from;
      }
      /* every index reads one or two pixels: each counted once per pixel it reads */
      EXPECT_TRUE(covered >= out && covered <= 2 * out);
    }
}

static void nearest_ranges_hold_exactly_the_indices_mapped_to_a_pixel(void) {
  for (size_t a = 0; a < N_AXES; a++)
    for (int f = 0; f < 3; f++) {
      /* The gradient's view: `in` grads indices map to `out` pixels of the original image. */
      int64_t in = kAxes[a][1], out = kAxes[a][0];
      float scale = tfc_resize_scale(out, in, kFlags[f][0]);
      int align = kFlags[f][0], half = kFlags[f][1];
      int64_t covered = 0;
      for (int64_t r = 0; r < out; r++) {
        int64_t from, to;
        tfc_resize_nearest_range(r, in, out, scale, align, half, &from, &to);
        for (int64_t i = 0; i < in; i++) {
          int64_t src = tfc_resize_nearest(i, scale, out, align, half);
          EXPECT_TRUE(src >= 0 && src < out);
          if ((src == r) != (i >= from && i < to))
            tfc_test_fail(__FILE__, __LINE__, "in %lld out %lld flags %d: pixel %lld, index %lld (maps to %lld) vs [%lld, %lld)",
                          (long long)in, (long long)out, f, (long long)r, (long long)i, (long long)src,
                          (long long)from, (long long)to);
        }
        covered += to - from;
      }
      EXPECT_EQ(covered, in); /* the ranges partition the grads */
    }
}

static void ranges_are_empty_on_an_empty_axis(void) {
  int64_t from = -1, to = -1;
  tfc_resize_nearest_range(0, 0, 4, 0.0f, 0, 0, &from, &to);
  EXPECT_EQ(from, 0);
  EXPECT_EQ(to, 0);
  tfc_resize_lerp_range(2, 0, 4, 1.0f, 0, &from, &to);
  EXPECT_EQ(from, 0);
  EXPECT_EQ(to, 0);
}

static const tfc_test tests[] = {
    TFC_TEST(lerp_ranges_hold_exactly_the_indices_whose_taps_read_a_pixel),
    TFC_TEST(nearest_ranges_hold_exactly_the_indices_mapped_to_a_pixel),
    TFC_TEST(ranges_are_empty_on_an_empty_axis),
    {0},
};

TFC_TEST_MAIN(tests)
