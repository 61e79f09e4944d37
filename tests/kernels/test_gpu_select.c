/*
 * GPU selection kernel tests: Where (one input) and TopKV2 (kernels_select_gpu.c) against their
 * CPU kernels on the same inputs (gpu_compare.h). Both must agree exactly: Where's coordinates
 * in row-major order, TopKV2's values and indices with the CPU's order (larger first, ties by
 * lower index, NaN above everything, -0.0 equal to 0.0).
 *
 * Where meets every dtype TF's GPU kernel takes (and int32, whose GPU row runs the CPU kernel
 * in host memory), empty inputs, all-zero and all-nonzero inputs, -0.0 and NaN, ranks 1 to 5
 * and sizes on both sides of the kernel's chunk (4096 elements). TopKV2 meets k = 0, k = n,
 * rows that fit one on-chip tile (n <= 2048) and rows that need merge passes, many duplicates,
 * NaN, infinities and signed zeros, empty batches and rows, int64 indices, and half (fed as
 * float values that half holds exactly, so both devices see the same numbers). Bad input must
 * fail on both devices with the CPU kernel's code and text (the bad argument is fed, so no
 * shape function sees it before the kernel).
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_compare.c"

/* The element of a pattern at i, from a uniform u in [0, 1): mostly zero (sparse), half zero,
 * never zero (dense), or special float values (zeros of both signs, NaN, infinities). */
enum { P_SPARSE = 0, P_HALF = 1, P_DENSE = 2, P_SPECIAL = 3, P_ZERO = 4, P_COUNT = 5 };

static double pattern_value(int pattern, double u, int64_t i) {
  switch (pattern) {
    case P_SPARSE: return u < 0.9 ? 0 : 1 + 8 * u;
    case P_HALF: return u < 0.5 ? 0 : -3 + 7 * u;
    case P_DENSE: return u < 0.5 ? -1 - u : 1 + u;
    case P_SPECIAL: {
      static const double vals[] = {0.0, -0.0, NAN, 2.5, -INFINITY, INFINITY, -0.0, 0.0, -7.0};
      return vals[i % 9];
    }
    default: return 0;
  }
}

/* A fed tensor of dt and shape whose elements follow the pattern (integers and bool take the
 * value's truth or its floor; complex numbers put it in one part, alternating). */
static gc_arg fed_pattern(TF_DataType dt, int nd, const int64_t *dims, int pattern) {
  TF_Tensor *u = gc_rand(TF_DOUBLE, nd, dims, 0, 1);
  int64_t n = TF_TensorElementCount(u);
  size_t es = TF_DataTypeSize(dt);
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * es);
  for (int64_t i = 0; i < n; i++) {
    double v = pattern_value(pattern, ((const double *)TF_TensorData(u))[i], i);
    void *p = TF_TensorData(t);
    int integral = isnan(v) || isinf(v) ? 0 : 1;
    double fv = integral ? floor(v) : 0;
    switch (dt) {
      case TF_FLOAT: ((float *)p)[i] = (float)v; break;
      case TF_DOUBLE: ((double *)p)[i] = v; break;
      case TF_INT32: ((int32_t *)p)[i] = (int32_t)fv; break;
      case TF_INT64: ((int64_t *)p)[i] = (int64_t)fv; break;
      case TF_INT8: ((int8_t *)p)[i] = (int8_t)fv; break;
      case TF_UINT8: ((uint8_t *)p)[i] = (uint8_t)fabs(fv); break;
      case TF_BOOL: ((unsigned char *)p)[i] = v != 0; break;
      case TF_COMPLEX64:
        ((float *)p)[2 * i + (i & 1)] = (float)v;
        ((float *)p)[2 * i + 1 - (i & 1)] = 0;
        break;
      case TF_COMPLEX128:
        ((double *)p)[2 * i + (i & 1)] = v;
        ((double *)p)[2 * i + 1 - (i & 1)] = 0;
        break;
      default: tfc_test_fail(__FILE__, __LINE__, "fed_pattern: no generator for dtype %d", (int)dt);
    }
  }
  TF_DeleteTensor(u);
  return GC_FED(t);
}

/* ---- Where ---- */

static void where_matches_cpu(void) {
  gc_need_gpu();
  static const TF_DataType types[] = {TF_FLOAT, TF_DOUBLE, TF_BOOL,      TF_INT64,      TF_UINT8,
                                      TF_INT8,  TF_INT32,  TF_COMPLEX64, TF_COMPLEX128};
  static const struct {
    int nd;
    int64_t dims[5];
  } shapes[] = {
      {1, {1}},       {1, {0}},       {1, {7}},         {3, {3, 0, 2}},     {2, {5, 13}}, {4, {2, 3, 5, 7}},
      {1, {4096}},    {1, {4097}},    {2, {3, 4099}},   {5, {2, 3, 1, 4, 5}}, {1, {70000}},
  };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int p = 0; p < P_COUNT; p++) {
        gc_arg a = fed_pattern(types[t], shapes[s].nd, shapes[s].dims, p);
        char label[96];
        snprintf(label, sizeof label, "Where dtype %d shape %zu pattern %d", (int)types[t], s, p);
        gc_check(&(gc_op){.type = "Where"}, &a, 1, 0, label);
        gc_free_args(&a, 1);
      }
  gc_arg bad = gc_fed(TF_FLOAT, 0, NULL, 0, 1);
  gc_check_error(&(gc_op){.type = "Where"}, &bad, 1, TF_INVALID_ARGUMENT, "WhereOp : Unhandled input dimensions: 0",
                 "Where of a scalar");
  gc_free_args(&bad, 1);
}

/* ---- TopKV2 ---- */

/* A fed float tensor of values half holds exactly: multiples of 1/8 in [-levels/8, levels/8)
 * (few levels: many duplicates), every 11th value the pattern's special value when special. */
static gc_arg fed_levels(TF_DataType dt, int nd, const int64_t *dims, int levels, int special) {
  TF_Tensor *u = gc_rand(TF_DOUBLE, nd, dims, 0, 1);
  int64_t n = TF_TensorElementCount(u);
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, (size_t)n * TF_DataTypeSize(dt));
  for (int64_t i = 0; i < n; i++) {
    double v = floor(((const double *)TF_TensorData(u))[i] * 2 * levels) - levels;
    if (special && i % 11 == 3) v = pattern_value(P_SPECIAL, 0, i / 11);
    if (dt == TF_FLOAT || dt == TF_DOUBLE) v /= 8;
    void *p = TF_TensorData(t);
    switch (dt) {
      case TF_FLOAT: ((float *)p)[i] = (float)v; break;
      case TF_DOUBLE: ((double *)p)[i] = v; break;
      case TF_INT32: ((int32_t *)p)[i] = isfinite(v) ? (int32_t)v : (v > 0 ? INT32_MAX : INT32_MIN); break;
      case TF_INT64: ((int64_t *)p)[i] = isfinite(v) ? (int64_t)v : (v > 0 ? INT64_MAX : INT64_MIN); break;
      default: tfc_test_fail(__FILE__, __LINE__, "fed_levels: no generator for dtype %d", (int)dt);
    }
  }
  TF_DeleteTensor(u);
  return GC_FED(t);
}

static void top_k_matches_cpu(void) {
  gc_need_gpu();
  /* {rank, dims, k}: one tile (n <= 2048) or merge passes; k = 0, 1, n and in between. */
  static const struct {
    int nd;
    int64_t dims[3];
    int32_t k;
  } cases[] = {
      {1, {7}, 0},         {1, {7}, 1},          {1, {7}, 7},         {2, {5, 13}, 13},     {2, {5, 13}, 4},
      {3, {2, 3, 4}, 2},   {2, {3, 2048}, 5},    {2, {3, 2048}, 2048}, {2, {2, 2049}, 2049}, {2, {2, 5000}, 100},
      {1, {20000}, 17},    {2, {4, 0}, 0},       {2, {0, 5}, 3},       {2, {1, 1}, 1},       {2, {700, 3}, 2},
  };
  /* T: float, double, int32, int64, and half (float values run as half on the GPU). */
  for (int t = 0; t < 5; t++) {
    int half = t == 4;
    TF_DataType dt = half ? TF_FLOAT : (TF_DataType[]){TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64}[t];
    int floats = dt == TF_FLOAT || dt == TF_DOUBLE;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
      for (int l = 0; l < 3; l++) {
        /* 2048 levels of 1/8: up to 2047/8, which half still holds exactly. */
        int levels = (int[]){4, 128, 2048}[l];
        /* Specials: NaN, infinities and signed zeros where the type has them (not in half: the
         * CPU copy would see the same values, but keep half's inputs plain). */
        int special = floats && !half && l == 0;
        gc_arg a[2] = {fed_levels(dt, cases[c].nd, cases[c].dims, levels, special), gc_konst(&cases[c].k, -1)};
        char label[128];
        snprintf(label, sizeof label, "TopKV2 dtype %d%s case %zu k %d levels %d", (int)dt, half ? " as half" : "", c,
                 (int)cases[c].k, levels);
        gc_check(&(gc_op){.type = "TopKV2", .n_outputs = 2, .half = half}, a, 2, 0, label);
        gc_free_args(a, 2);
      }
  }
  /* int64 indices (index_type). */
  static const int32_t k = 9;
  gc_arg a[2] = {fed_levels(TF_FLOAT, 2, (int64_t[]){3, 3000}, 4, 1), gc_konst(&k, -1)};
  gc_check(&(gc_op){.type = "TopKV2", .n_outputs = 2, .attrs = {GC_TYPE("index_type", TF_INT64)}}, a, 2, 0,
           "TopKV2 int64 indices");
  gc_free_args(a, 2);
}

static void top_k_refuses_bad_k_with_cpu_texts(void) {
  gc_need_gpu();
  static const int32_t neg = -1, four = 4, one = 1;
  gc_arg a[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){2, 3}, 0, 1), GC_FED(gc_ints(&neg, -1))};
  gc_op o = {.type = "TopKV2", .n_outputs = 2};
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "Need k >= 0, got -1", "TopKV2 k -1");
  gc_free_args(a + 1, 1);
  a[1] = GC_FED(gc_ints(&four, -1));
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "input must have at least k columns. Had 3, needed 4", "TopKV2 k > n");
  gc_free_args(a, 2);
  a[0] = gc_fed(TF_FLOAT, 0, NULL, 0, 1);
  a[1] = GC_FED(gc_ints(&one, -1));
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "input must be >= 1-D, got shape []", "TopKV2 of a scalar");
  gc_free_args(a, 2);
}

static const tfc_test tests[] = {
    TFC_TEST(where_matches_cpu),
    TFC_TEST(top_k_matches_cpu),
    TFC_TEST(top_k_refuses_bad_k_with_cpu_texts),
    {0},
};

TFC_TEST_MAIN(tests)
