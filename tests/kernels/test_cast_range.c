/* Kernel tests: Cast of negative, out-of-range, infinite and NaN floating values to the integer
 * types, and of special values to half and bfloat16 bits, against TensorFlow 2.21 on CPU
 * (tests/fixtures/cast_range_tf.inc, made by tests/fixtures/gen_cast_range.py). TF's float and
 * double casts convert through a truncating int32 (int64 for the 64-bit types) conversion,
 * out-of-range and NaN giving that type's minimum, and keep the low bits. Where TF's own
 * result depends on the element's position in the tensor (its vectorized and scalar loops
 * differ: half, bfloat16 or double to an 8- or 16-bit integer out of its range saturate in the
 * vector loop and wrap in the scalar one; float to uint32 out of int32's range), the element is
 * not compared. A NaN becomes bfloat16's positive quiet NaN 0x7fc0 whatever its sign (half
 * keeps the sign: 0xfe00). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/half.h"
#include "harness.h"
#include "kernel_util.c"

typedef struct cr_case {
  const char *name;
  int src, dst, n;
  const double *in;
  const uint64_t *out;
} cr_case;

#include "../fixtures/cast_range_tf.inc"

static int is16(int dt) { return dt == TFC_DT_HALF || dt == TFC_DT_BFLOAT16; }

/* dst's range as doubles. */
static void range_of(int dt, double *lo, double *hi) {
  switch (dt) {
    case TFC_DT_UINT8: *lo = 0, *hi = 255; break;
    case TFC_DT_INT8: *lo = -128, *hi = 127; break;
    case TFC_DT_UINT16: *lo = 0, *hi = 65535; break;
    case TFC_DT_INT16: *lo = -32768, *hi = 32767; break;
    case TFC_DT_UINT32: *lo = 0, *hi = 4294967295.0; break;
    case TFC_DT_INT32: *lo = -2147483648.0, *hi = 2147483647.0; break;
    default: *lo = -9223372036854775808.0, *hi = 18446744073709551615.0; break;
  }
}

/* Whether TF's value of element v is the same wherever it sits in the tensor. */
static int stable(const cr_case *k, double v) {
  double lo, hi;
  range_of(k->dst, &lo, &hi);
  int narrow = k->dst == TFC_DT_UINT8 || k->dst == TFC_DT_INT8 || k->dst == TFC_DT_UINT16 || k->dst == TFC_DT_INT16;
  if (is16(k->src) && !is16(k->dst)) return v > lo - 1 && v < hi + 1;
  if (k->src == TFC_DT_DOUBLE && narrow) return v > lo - 1 && v < hi + 1;
  if (k->dst == TFC_DT_UINT32) return v > -2147483649.0 && v < 2147483648.0;
  return 1;
}

static uint64_t bits_at(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_UINT8: return ((const uint8_t *)t->data)[i];
    case TFC_DT_INT8: return (uint64_t)(int64_t)((const int8_t *)t->data)[i];
    case TFC_DT_UINT16: case TFC_DT_HALF: case TFC_DT_BFLOAT16: return ((const uint16_t *)t->data)[i];
    case TFC_DT_INT16: return (uint64_t)(int64_t)((const int16_t *)t->data)[i];
    case TFC_DT_UINT32: return ((const uint32_t *)t->data)[i];
    case TFC_DT_INT32: return (uint64_t)(int64_t)((const int32_t *)t->data)[i];
    case TFC_DT_INT64: return (uint64_t)((const int64_t *)t->data)[i];
    default: return ((const uint64_t *)t->data)[i];
  }
}

static int run_case(const cr_case *k) {
  int64_t dim = k->n;
  tfc_tensor *x = ku_typed(k->src, &dim, 1, NULL), *out = NULL;
  for (int i = 0; i < k->n; i++) {
    double v = k->in[i];
    if (k->src == TFC_DT_FLOAT) ((float *)x->data)[i] = (float)v;
    else if (k->src == TFC_DT_DOUBLE) ((double *)x->data)[i] = v;
    else if (k->src == TFC_DT_HALF) ((uint16_t *)x->data)[i] = tfc_float_to_half((float)v);
    else ((uint16_t *)x->data)[i] = tfc_float_to_bfloat16((float)v);
  }
  ku_attr attrs[1] = {{"DstT", tfc_attr_type(k->dst)}};
  tfc_status s;
  tfc_status_init(&s);
  int bad = 0;
  if (ku_run("Cast", attrs, 1, &x, 1, NULL, &out, 1, &s)) {
    fprintf(stderr, "%s: %s\n", k->name, tfc_status_msg(&s));
    bad = 1;
  } else {
    for (int i = 0; i < k->n; i++) {
      if (!stable(k, k->in[i])) continue;
      uint64_t got = bits_at(out, i);
      if (got != k->out[i]) {
        fprintf(stderr, "%s[%d] (%.17g): got 0x%llx, TF 0x%llx\n", k->name, i, k->in[i], (unsigned long long)got,
                (unsigned long long)k->out[i]);
        bad++;
      }
    }
  }
  tfc_tensor_unref(x);
  tfc_tensor_unref(out);
  tfc_status_fini(&s);
  return bad;
}

static void run_from(int src, int to16) {
  int bad = 0, ran = 0;
  for (size_t i = 0; i < sizeof cr_cases / sizeof cr_cases[0]; i++) {
    if (cr_cases[i].src != src || is16(cr_cases[i].dst) != to16) continue;
    ran++;
    bad += run_case(&cr_cases[i]);
  }
  EXPECT_TRUE(ran > 0);
  EXPECT_EQ(bad, 0);
}

static void cast_float_to_int_range(void) { run_from(TFC_DT_FLOAT, 0); }
static void cast_double_to_int_range(void) { run_from(TFC_DT_DOUBLE, 0); }
static void cast_half_to_int_range(void) { run_from(TFC_DT_HALF, 0); }
static void cast_bfloat16_to_int_range(void) { run_from(TFC_DT_BFLOAT16, 0); }
static void cast_float_to_16bit_specials(void) {
  run_from(TFC_DT_FLOAT, 1);
  run_from(TFC_DT_DOUBLE, 1);
}

static const tfc_test tests[] = {TFC_TEST(cast_float_to_int_range),    TFC_TEST(cast_double_to_int_range),
                                 TFC_TEST(cast_half_to_int_range),     TFC_TEST(cast_bfloat16_to_int_range),
                                 TFC_TEST(cast_float_to_16bit_specials), {NULL, NULL}};
TFC_TEST_MAIN(tests)
