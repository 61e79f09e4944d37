/*
 * Unit tests of base/philox: the Philox4x32-10 block function against the published
 * known-answer vectors (Random123's kat_vectors for philox4x32_10), TF's seeding and Skip
 * (including its carry rules), the conversions, and the group fills' independence from how
 * the groups are split. Bit-exact agreement with TensorFlow's kernels is tested end to end by
 * tests/kernels/test_random.c on TF-recorded fixtures; a few of those values are repeated here
 * so a generator bug shows up in this small test first.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/half.h"
#include "base/philox.h"
#include "harness.h"

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static uint64_t f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static void check_block(const uint32_t ctr[4], const uint32_t key[2], const uint32_t want[4]) {
  tfc_philox g;
  memcpy(g.counter, ctr, sizeof g.counter);
  memcpy(g.key, key, sizeof g.key);
  uint32_t out[4];
  tfc_philox_next(&g, out);
  for (int i = 0; i < 4; i++) EXPECT_EQ(out[i], want[i]);
}

static void philox_block_matches_known_answer_vectors(void) {
  check_block((uint32_t[]){0, 0, 0, 0}, (uint32_t[]){0, 0},
              (uint32_t[]){0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  check_block((uint32_t[]){0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
              (uint32_t[]){0xffffffffu, 0xffffffffu},
              (uint32_t[]){0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  check_block((uint32_t[]){0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
              (uint32_t[]){0xa4093822u, 0x299f31d0u},
              (uint32_t[]){0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

static void philox_init_splits_seeds_like_tf(void) {
  tfc_philox g;
  tfc_philox_init(&g, 0x0123456789abcdefull, 0xfedcba9876543210ull);
  EXPECT_EQ(g.key[0], 0x89abcdefu);
  EXPECT_EQ(g.key[1], 0x01234567u);
  EXPECT_EQ(g.counter[0], 0);
  EXPECT_EQ(g.counter[1], 0);
  EXPECT_EQ(g.counter[2], 0x76543210u);
  EXPECT_EQ(g.counter[3], 0xfedcba98u);
}

/* TF's RandomUniform(seed=1, seed2=2) float, first run (tests/fixtures/random_ops.txt). */
static void philox_seed_1_2_gives_tf_uniform_floats(void) {
  tfc_philox g;
  tfc_philox_init(&g, 1, 2);
  uint32_t s[4];
  tfc_philox_next(&g, s);
  const uint32_t want[4] = {0x3ed0133cu, 0x3f5b8ba6u, 0x3d62e6c0u, 0x3dafddd0u};
  for (int i = 0; i < 4; i++) EXPECT_EQ(f32_bits(tfc_philox_uint32_to_float(s[i])), want[i]);
  EXPECT_EQ(g.counter[0], 1);
}

static void philox_next_increments_the_128_bit_counter(void) {
  tfc_philox g = {.counter = {0xffffffffu, 0xffffffffu, 0xffffffffu, 7}, .key = {1, 2}};
  uint32_t s[4];
  tfc_philox_next(&g, s);
  EXPECT_EQ(g.counter[0], 0);
  EXPECT_EQ(g.counter[1], 0);
  EXPECT_EQ(g.counter[2], 0);
  EXPECT_EQ(g.counter[3], 8);
  EXPECT_EQ(g.key[0], 1); /* the key is never changed by a call */
  EXPECT_EQ(g.key[1], 2);
}

static void philox_skip_equals_repeated_next(void) {
  tfc_philox a, b;
  tfc_philox_init(&a, 42, 43);
  b = a;
  uint32_t s[4], t[4];
  for (int i = 0; i < 1000; i++) tfc_philox_next(&a, s);
  tfc_philox_skip(&b, 1000);
  EXPECT_TRUE(memcmp(a.counter, b.counter, sizeof a.counter) == 0);
  tfc_philox_next(&a, s);
  tfc_philox_next(&b, t);
  EXPECT_TRUE(memcmp(s, t, sizeof s) == 0);
}

static void philox_skip_carries_like_tf(void) {
  tfc_philox g = {.counter = {0xfffffff0u, 5, 9, 9}};
  tfc_philox_skip(&g, 0x100000020ull); /* low word carries into word 1 */
  EXPECT_EQ(g.counter[0], 0x10);
  EXPECT_EQ(g.counter[1], 7);
  EXPECT_EQ(g.counter[2], 9);
  g = (tfc_philox){.counter = {0, 0xfffffffeu, 0xffffffffu, 3}};
  tfc_philox_skip(&g, 0x300000000ull); /* word 1 carries through word 2 into word 3 */
  EXPECT_EQ(g.counter[1], 1);
  EXPECT_EQ(g.counter[2], 0);
  EXPECT_EQ(g.counter[3], 4);
  /* TF's quirk: a high word of all ones plus a carry from word 0 wraps to 0 and adds nothing. */
  g = (tfc_philox){.counter = {1, 5, 9, 9}};
  tfc_philox_skip(&g, 0xffffffffffffffffull);
  EXPECT_EQ(g.counter[0], 0);
  EXPECT_EQ(g.counter[1], 5);
  EXPECT_EQ(g.counter[2], 9);
}

static void conversions_cover_zero_to_one(void) {
  EXPECT_EQ(f32_bits(tfc_philox_uint32_to_float(0)), f32_bits(0.0f));
  EXPECT_EQ(f32_bits(tfc_philox_uint32_to_float(0xffffffffu)), f32_bits(1.0f - 0x1p-23f));
  EXPECT_EQ(f32_bits(tfc_philox_uint32_to_float(0xff400000u)), f32_bits(0.5f)); /* high bits unused */
  EXPECT_EQ(f64_bits(tfc_philox_uint64_to_double(0, 0)), f64_bits(0.0));
  EXPECT_EQ(f64_bits(tfc_philox_uint64_to_double(0xffffffffu, 0xffffffffu)), f64_bits(1.0 - 0x1p-52));
  EXPECT_EQ(f64_bits(tfc_philox_uint64_to_double(0xfff80000u, 0)), f64_bits(0.5)); /* x0 is high */
}

static void half_and_bfloat16_round_to_nearest_even(void) {
  EXPECT_EQ(tfc_float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(tfc_float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(tfc_float_to_half(0.5f / 1024), 0x1000);
  EXPECT_EQ(tfc_float_to_half(1.0f + 0x1p-11f), 0x3c00);           /* tie: to even */
  EXPECT_EQ(tfc_float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);       /* tie: to even */
  EXPECT_EQ(tfc_float_to_half(0x1p-24f), 0x0001);                  /* smallest subnormal */
  EXPECT_EQ(tfc_float_to_half(0x1p-25f), 0x0000);                  /* tie to 0 */
  EXPECT_EQ(tfc_float_to_half(65520.0f), 0x7c00);                  /* rounds to inf */
  EXPECT_EQ(tfc_float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(tfc_float_to_bfloat16(1.0f + 0x1p-8f), 0x3f80);        /* tie: to even */
  EXPECT_EQ(tfc_float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(tfc_float_to_bfloat16(-3.0f), 0xc040);
}

static void box_muller_clamps_u1_and_uses_sin_then_cos(void) {
  float f0, f1;
  /* x0 = 0 gives u1 = 0, clamped to 1e-7: radius sqrt(-2 ln 1e-7); x1 = 0: angle 0. */
  tfc_philox_box_muller_float(0, 0, &f0, &f1);
  EXPECT_EQ(f32_bits(f0), f32_bits(0.0f));
  EXPECT_EQ(f32_bits(f1), f32_bits(sqrtf(-2.0f * logf(1.0e-7f))));
  double d0, d1;
  /* u1 = 0.5, angle = 2*pi*0.25 */
  tfc_philox_box_muller_double(0xfff80000u, 0, 0xfff40000u, 0, &d0, &d1);
  EXPECT_NEAR(d0, sqrt(-2.0 * log(0.5)), 1e-15);
  EXPECT_NEAR(d1, 0.0, 1e-15);
}

static void group_sizes_are_tf_result_element_counts(void) {
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_UNIFORM, TFC_PHILOX_F32), 4);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_UNIFORM, TFC_PHILOX_F64), 2);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_NORMAL, TFC_PHILOX_F16), 4);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_TRUNCATED, TFC_PHILOX_F64), 2);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_UNIFORM_INT, TFC_PHILOX_I64), 2);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_UNIFORM_INT, TFC_PHILOX_F32), 0);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_NORMAL, TFC_PHILOX_I32), 0);
  EXPECT_EQ(tfc_philox_group_size(TFC_PHILOX_DIST_COUNT, TFC_PHILOX_F32), 0);
}

/* Filling groups in any split gives the same bits as one pass. */
static void fill_is_independent_of_the_split(void) {
  const int dists[] = {TFC_PHILOX_UNIFORM, TFC_PHILOX_NORMAL, TFC_PHILOX_TRUNCATED};
  for (int d = 0; d < 3; d++) {
    for (int e = TFC_PHILOX_F32; e <= TFC_PHILOX_BF16; e++) {
      double a[257], b[257]; /* room for 257 doubles = 1027 halves */
      memset(a, 0, sizeof a);
      memset(b, 0, sizeof b);
      tfc_philox_fill f = {.dist = dists[d], .elem = e, .out = a, .size = e == TFC_PHILOX_F64 ? 257 : 513};
      tfc_philox_init(&f.base, 7, 11);
      int64_t ng = tfc_philox_n_groups(&f);
      EXPECT_EQ(ng, 129); /* 257 doubles in pairs, 513 others in fours */
      tfc_philox_fill_groups(&f, 0, ng);
      f.out = b;
      for (int64_t g = ng; g > 0; g -= 5) tfc_philox_fill_groups(&f, g - 5 < 0 ? 0 : g - 5, g);
      EXPECT_TRUE(memcmp(a, b, sizeof a) == 0);
    }
  }
}

static void truncated_normal_stays_inside_two(void) {
  float v[1000];
  tfc_philox_fill f = {.dist = TFC_PHILOX_TRUNCATED, .elem = TFC_PHILOX_F32, .out = v, .size = 1000};
  tfc_philox_init(&f.base, 3, 0);
  tfc_philox_fill_groups(&f, 0, tfc_philox_n_groups(&f));
  double sum = 0;
  for (int i = 0; i < 1000; i++) {
    EXPECT_TRUE(fabsf(v[i]) < 2.0f);
    sum += v[i];
  }
  EXPECT_TRUE(fabs(sum / 1000) < 0.1);
}

static void uniform_int_wraps_like_tf(void) {
  int64_t v[4];
  tfc_philox_fill f = {.dist = TFC_PHILOX_UNIFORM_INT, .elem = TFC_PHILOX_I64, .lo = INT64_MIN,
                       .range = UINT64_MAX, .out = v, .size = 3};
  tfc_philox_init(&f.base, 1, 2);
  tfc_philox_fill_groups(&f, 0, 2);
  tfc_philox g;
  tfc_philox_init(&g, 1, 2);
  uint32_t s[4];
  tfc_philox_next(&g, s);
  uint64_t bits = (uint64_t)s[0] | (uint64_t)s[1] << 32;
  EXPECT_EQ(v[0], (int64_t)((uint64_t)INT64_MIN + bits % UINT64_MAX));
  int32_t w[5];
  tfc_philox_fill f32 = {.dist = TFC_PHILOX_UNIFORM_INT, .elem = TFC_PHILOX_I32, .lo = -5, .range = 22,
                         .out = w, .size = 5};
  tfc_philox_init(&f32.base, 1, 2);
  tfc_philox_fill_groups(&f32, 0, 2);
  for (int i = 0; i < 5; i++) EXPECT_TRUE(w[i] >= -5 && w[i] < 17);
  EXPECT_EQ(w[0], -5 + (int32_t)(s[0] % 22));
}

static const tfc_test tests[] = {
    TFC_TEST(philox_block_matches_known_answer_vectors),
    TFC_TEST(philox_init_splits_seeds_like_tf),
    TFC_TEST(philox_seed_1_2_gives_tf_uniform_floats),
    TFC_TEST(philox_next_increments_the_128_bit_counter),
    TFC_TEST(philox_skip_equals_repeated_next),
    TFC_TEST(philox_skip_carries_like_tf),
    TFC_TEST(conversions_cover_zero_to_one),
    TFC_TEST(half_and_bfloat16_round_to_nearest_even),
    TFC_TEST(box_muller_clamps_u1_and_uses_sin_then_cos),
    TFC_TEST(group_sizes_are_tf_result_element_counts),
    TFC_TEST(fill_is_independent_of_the_split),
    TFC_TEST(truncated_normal_stays_inside_two),
    TFC_TEST(uniform_int_wraps_like_tf),
    {0},
};
TFC_TEST_MAIN(tests)
