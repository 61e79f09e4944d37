/*
 * Kernel tests: DepthwiseConv2dNative's float path (oneDNN, kernels_depthwise_dnnl.c) against
 * the double path (the direct loop, whose values test_array_tail checks against TensorFlow)
 * on the same inputs, over strides, SAME / VALID, channel multipliers, dilations and batches
 * that the kernel cuts into shards of two sizes on the test's intra-op pool.
 */
#include <math.h>

#include "harness.h"
#include "kernel_util.c"

static tfc_attr_value int_list(const int64_t v[4]) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_INT);
  for (int i = 0; i < 4; i++) {
    tfc_attr_value one = tfc_attr_int(v[i]);
    EXPECT_EQ(tfc_attr_list_append(&l, &one, &s), TFC_OK);
  }
  tfc_status_fini(&s);
  return l;
}

/* Runs one geometry in float and in double and compares. */
static void check(int64_t n, int64_t h, int64_t w, int64_t ch, int64_t kh, int64_t kw, int64_t mult, int64_t stride,
                  int64_t dil, const char *padding) {
  tfc_status s;
  tfc_status_init(&s);
  int64_t xd[4] = {n, h, w, ch}, fd[4] = {kh, kw, ch, mult};
  tfc_tensor *xf = ku_typed(TFC_DT_FLOAT, xd, 4, NULL), *ff = ku_typed(TFC_DT_FLOAT, fd, 4, NULL);
  tfc_tensor *xdbl = ku_typed(TFC_DT_DOUBLE, xd, 4, NULL), *fdbl = ku_typed(TFC_DT_DOUBLE, fd, 4, NULL);
  uint32_t seed = 12345;
  for (int64_t i = 0; i < xf->n_elems; i++) {
    seed = seed * 1664525u + 1013904223u;
    float v = (float)((int)(seed >> 16) % 2001 - 1000) / 500.0f;
    ((float *)xf->data)[i] = v;
    ((double *)xdbl->data)[i] = v;
  }
  for (int64_t i = 0; i < ff->n_elems; i++) {
    seed = seed * 1664525u + 1013904223u;
    float v = (float)((int)(seed >> 16) % 2001 - 1000) / 700.0f;
    ((float *)ff->data)[i] = v;
    ((double *)fdbl->data)[i] = v;
  }
  tfc_attr_value pad = {0};
  EXPECT_EQ(tfc_attr_string(padding, strlen(padding), &pad, &s), TFC_OK);
  ku_attr attrs[3] = {{"strides", int_list((const int64_t[]){1, stride, stride, 1})},
                      {"padding", pad},
                      {"dilations", int_list((const int64_t[]){1, dil, dil, 1})}};
  tfc_tensor *inf[2] = {xf, ff}, *ind[2] = {xdbl, fdbl}, *of = NULL, *od = NULL;
  EXPECT_EQ(ku_run("DepthwiseConv2dNative", attrs, 3, inf, 2, NULL, &of, 1, &s), TFC_OK);
  EXPECT_EQ(ku_run("DepthwiseConv2dNative", attrs, 3, ind, 2, NULL, &od, 1, &s), TFC_OK);
  EXPECT_EQ(of->n_elems, od->n_elems);
  for (int d = 0; d < 4; d++) EXPECT_EQ(of->dims[d], od->dims[d]);
  EXPECT_EQ(of->dims[3], ch * mult);
  for (int64_t i = 0; i < of->n_elems; i++) {
    double got = ((const float *)of->data)[i], want = ((const double *)od->data)[i];
    if (fabs(got - want) > 1e-5 * (1 + fabs(want)))
      tfc_test_fail(__FILE__, __LINE__, "%s %lldx%lldx%lldx%lld k%lldx%lld m%lld s%lld d%lld: element %lld %.9g, want %.9g",
                    padding, (long long)n, (long long)h, (long long)w, (long long)ch, (long long)kh, (long long)kw,
                    (long long)mult, (long long)stride, (long long)dil, (long long)i, got, want);
  }
  for (int i = 0; i < 3; i++) tfc_attr_value_fini(&attrs[i].value);
  tfc_tensor *all[] = {xf, ff, xdbl, fdbl, of, od};
  for (int i = 0; i < 6; i++) tfc_tensor_unref(all[i]);
  tfc_status_fini(&s);
}

static void float_matches_reference_mobilenet_shapes(void) {
  check(1, 16, 16, 32, 3, 3, 1, 1, 1, "SAME");
  check(1, 15, 15, 24, 3, 3, 1, 2, 1, "SAME");
  check(1, 16, 16, 24, 3, 3, 1, 2, 1, "SAME");
  check(2, 9, 9, 8, 3, 3, 1, 2, 1, "VALID");
}

static void float_matches_reference_odd_geometry(void) {
  check(1, 7, 9, 3, 3, 2, 2, 1, 1, "SAME"); /* multiplier 2, non-square filter */
  check(1, 10, 10, 5, 3, 3, 3, 2, 1, "VALID");
  check(1, 12, 11, 4, 3, 3, 1, 1, 2, "SAME"); /* dilation */
  check(1, 5, 5, 2, 1, 1, 1, 3, 1, "SAME");   /* stride above the filter: SAME pads nothing */
  check(1, 5, 5, 2, 2, 2, 1, 2, 1, "VALID");  /* VALID leaves a row and a column unread */
}

static void float_matches_reference_sharded_batch(void) {
  /* 7 images of enough work for three shards on the test's pool: sizes 3, 2, 2. */
  check(7, 64, 64, 32, 3, 3, 2, 1, 1, "SAME");
}

static const tfc_test tests[] = {
    TFC_TEST(float_matches_reference_mobilenet_shapes),
    TFC_TEST(float_matches_reference_odd_geometry),
    TFC_TEST(float_matches_reference_sharded_batch),
    {0}};
TFC_TEST_MAIN(tests)
