/*
 * The image geometry ops on the CPU against TensorFlow's own outputs
 * (tests/fixtures/gen_image_ops.py writes image_ops_tf.inc): ResizeBilinear,
 * ResizeNearestNeighbor, ResizeBicubic and ResizeArea over up, down and same-size scaling, odd
 * sizes, batch 2, every align_corners / half_pixel_centers combination and every input dtype;
 * their gradient ops; CropAndResize (bilinear and nearest, flipped and out-of-image boxes,
 * extrapolation_value, one-pixel crops) and its two gradients; NonMaxSuppression V1-V5 and
 * WithOverlaps (ties, empty and flipped boxes, score thresholds, padding, soft NMS, half) and
 * CombinedNonMaxSuppression (one box or one per class, pad_per_class, clip_boxes).
 * A second table runs half and bfloat16 images as TF does in a graph: every resize over the
 * align_corners / half_pixel_centers combinations, CropAndResize, ScaleAndTranslate, the
 * gradients that return T (half and bfloat16 sums rounded in T, integer sums wrapping), and the
 * OpDefs' text for a dtype an op does not take.
 * Floats within 1e-5 relative, half outputs within 1e-3 and bfloat16 within 1e-2 (about an ulp),
 * integers and indices exactly. Bad inputs give TF's code and text: the kernels' (inputs of
 * unknown graph shape), the shape functions' (known shapes) and the OpDef check's.
 */
#include <math.h>
#include <string.h>

#include "device/cpu/kernels_image.h"
#include "harness.h"
#include "kernel_util.c"
#include "ops/opdef.h"
#include "tensor/dtype.h"

typedef struct img_tensor {
  int dtype, ndims;
  int64_t dims[5];
  const double *vals;
} img_tensor;

typedef struct img_case {
  const char *op, *attrs;
  int n_in;
  img_tensor in[6];
  int n_out;
  img_tensor out[4];
  int code;        /* 0: outputs; > 0: the kernel's error code; -1: a shape function's error;
                      -2: the OpDef check's (a dtype the op does not take) */
  const char *msg; /* TF's message */
} img_case;

#include "../fixtures/image_ops_tf.inc"

#define N_CASES ((int)(sizeof img_cases / sizeof img_cases[0]))
#define N_NARROW_CASES ((int)(sizeof img_narrow_cases / sizeof img_narrow_cases[0]))

/* "align_corners=b1 extrapolation_value=f0.5 method=snearest T=t1" into attrs. */
static int parse_attrs(const char *text, ku_attr *a) {
  int n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    *eq = 0;
    static char names[8][64];
    snprintf(names[n], sizeof names[n], "%s", tok);
    a[n].name = names[n];
    const char *v = eq + 2;
    tfc_status s;
    tfc_status_init(&s);
    switch (eq[1]) {
      case 'b': a[n].value = tfc_attr_bool(atoi(v)); break;
      case 'f': a[n].value = tfc_attr_float(strtof(v, NULL)); break;
      case 't': a[n].value = tfc_attr_type(atoi(v)); break;
      default: EXPECT_EQ(tfc_attr_string(v, strlen(v), &a[n].value, &s), TFC_OK);
    }
    tfc_status_fini(&s);
    n++;
  }
  return n;
}

static tfc_tensor *make(const img_tensor *t) {
  tfc_tensor *x = ku_typed(t->dtype, t->dims, t->ndims, NULL);
  tfc_image_store(x, t->vals);
  return x;
}

static double get(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_HALF: return tfc_half_to_float(((const uint16_t *)t->data)[i]);
    case TFC_DT_BFLOAT16: return tfc_bfloat16_to_float(((const uint16_t *)t->data)[i]);
    default: return tfc_tensor_get_f64(t, i);
  }
}

static int is_float(int dt) {
  return dt == TFC_DT_FLOAT || dt == TFC_DT_DOUBLE || dt == TFC_DT_HALF || dt == TFC_DT_BFLOAT16;
}

/* Runs case c (number k of its table); 1 when it matched. */
static int run_case(const img_case *c, int k) {
  ku_attr a[8];
  int na = parse_attrs(c->attrs, a);
  tfc_tensor *in[6], *out[4] = {0};
  for (int i = 0; i < c->n_in; i++) in[i] = make(&c->in[i]);
  const tfc_opdef *def = tfc_op_lookup(c->op);
  int n_out = def ? def->n_outputs : 1;
  tfc_status s;
  tfc_status_init(&s);
  int ok = 1;
  /* known shapes for the shape functions' and the OpDef's checks, unknown for the kernels' */
  int rc = c->code < 0 ? ku_run(c->op, a, na, in, c->n_in, NULL, out, n_out, &s)
                       : ku_run_unknown(c->op, a, na, in, c->n_in, out, n_out, &s);
  if (c->code != 0) {
    int want = c->code < 0 ? TFC_INVALID_ARGUMENT : c->code;
    const char *at = strstr(tfc_status_msg(&s), c->msg);
    /* an OpDef's list must end where TF's does, not run on with types TF's lacks */
    if (rc != want || !at || (c->code == -2 && at[strlen(c->msg)] == ',')) {
      tfc_test_fail(__FILE__, __LINE__, "case %d %s [%s]: code %d '%s', TensorFlow %d '%s'", k, c->op, c->attrs, rc,
                    tfc_status_msg(&s), want, c->msg);
      ok = 0;
    }
  } else if (rc != TFC_OK) {
    tfc_test_fail(__FILE__, __LINE__, "case %d %s [%s]: %s", k, c->op, c->attrs, tfc_status_msg(&s));
    ok = 0;
  } else {
    for (int o = 0; o < c->n_out && ok; o++) {
      const img_tensor *w = &c->out[o];
      const tfc_tensor *g = out[o];
      int same = g->dtype == w->dtype && g->ndims == w->ndims;
      for (int d = 0; same && d < w->ndims; d++) same = g->dims[d] == w->dims[d];
      if (!same) {
        char sh[TFC_SHAPE_STR_MAX];
        tfc_test_fail(__FILE__, __LINE__, "case %d %s [%s] output %d: %s %s, TensorFlow dtype %d rank %d", k, c->op,
                      c->attrs, o, tfc_dtype_name(g->dtype), tfc_tensor_shape_str(g, sh, sizeof sh), w->dtype, w->ndims);
        ok = 0;
        break;
      }
      double tol = !is_float(w->dtype) ? 0 : w->dtype == TFC_DT_HALF ? 1e-3 : w->dtype == TFC_DT_BFLOAT16 ? 1e-2 : 1e-5;
      for (int64_t i = 0; i < g->n_elems; i++) {
        double got = get(g, i), want = w->vals[i];
        if (!(fabs(got - want) <= tol * fmax(1.0, fabs(want)))) {
          tfc_test_fail(__FILE__, __LINE__, "case %d %s [%s] output %d [%lld] = %.9g, TensorFlow %.9g", k, c->op,
                        c->attrs, o, (long long)i, got, want);
          ok = 0;
          break;
        }
      }
    }
  }
  for (int i = 0; i < c->n_in; i++) tfc_tensor_unref(in[i]);
  for (int i = 0; i < 4; i++) tfc_tensor_unref(out[i]);
  for (int i = 0; i < na; i++) tfc_attr_value_fini(&a[i].value);
  tfc_status_fini(&s);
  return ok;
}

/* Every case of the ops whose name starts with prefix (and not with `except`). */
static void run_family(const char *prefix, const char *except) {
  int n = 0;
  for (int k = 0; k < N_CASES; k++) {
    const char *op = img_cases[k].op;
    if (strncmp(op, prefix, strlen(prefix)) || (except && !strncmp(op, except, strlen(except)))) continue;
    run_case(&img_cases[k], k);
    n++;
  }
  EXPECT_TRUE(n > 0);
}

static void resizes_match_tensorflow(void) { run_family("Resize", NULL); }

/* The half and bfloat16 table's cases with outputs (code 0) or the OpDef's error (code -2). */
static void run_narrow(int code) {
  int n = 0;
  for (int k = 0; k < N_NARROW_CASES; k++)
    if (img_narrow_cases[k].code == code) {
      run_case(&img_narrow_cases[k], k);
      n++;
    }
  EXPECT_TRUE(n > 0);
}

static void half_and_bfloat16_images_match_tensorflow(void) { run_narrow(0); }
static void dtypes_outside_the_opdefs_give_tensorflows_text(void) { run_narrow(-2); }
static void crop_and_resize_matches_tensorflow(void) { run_family("CropAndResize", NULL); }
static void non_max_suppression_matches_tensorflow(void) { run_family("NonMaxSuppression", NULL); }

/* A NaN box coordinate samples nothing (TF would index with it): extrapolation_value, and the
 * gradients skip it. */
static void nan_boxes_give_the_extrapolation_value(void) {
  int64_t idims[4] = {1, 3, 3, 1}, bdims[2] = {1, 4}, one = 1, two = 2, gdims[4] = {1, 2, 2, 1};
  float img[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, box[4] = {NAN, 0, 1, 1}, g[4] = {1, 1, 1, 1};
  int32_t ind = 0, crop[2] = {2, 2}, isz[4] = {1, 3, 3, 1};
  tfc_tensor *in[4] = {ku_f32(idims, 4, img), ku_f32(bdims, 2, box), ku_i32(&one, 1, &ind), ku_i32(&two, 1, crop)};
  ku_attr a[1] = {{"extrapolation_value", tfc_attr_float(-3.0f)}};
  tfc_tensor *out[1] = {0};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("CropAndResize", a, 1, in, 4, NULL, out, 1, &s), TFC_OK);
  for (int i = 0; i < 4; i++) EXPECT_TRUE(((const float *)out[0]->data)[i] == -3.0f);
  tfc_tensor_unref(out[0]);
  tfc_tensor *gin[4] = {ku_f32(gdims, 4, g), in[1], in[2], ku_i32((int64_t[]){4}, 1, isz)};
  EXPECT_EQ(ku_run("CropAndResizeGradImage", (ku_attr[]){{"T", tfc_attr_type(TFC_DT_FLOAT)}}, 1, gin, 4, NULL, out, 1,
                   &s),
            TFC_OK);
  for (int i = 0; i < 9; i++) EXPECT_TRUE(((const float *)out[0]->data)[i] == 0.0f);
  tfc_tensor_unref(out[0]);
  tfc_tensor *bin[4] = {gin[0], in[0], in[1], in[2]};
  EXPECT_EQ(ku_run("CropAndResizeGradBoxes", NULL, 0, bin, 4, NULL, out, 1, &s), TFC_OK);
  for (int i = 0; i < 4; i++) EXPECT_TRUE(((const float *)out[0]->data)[i] == 0.0f);
  tfc_tensor_unref(out[0]);
  for (int i = 0; i < 4; i++) tfc_tensor_unref(in[i]);
  tfc_tensor_unref(gin[0]);
  tfc_tensor_unref(gin[3]);
  tfc_status_fini(&s);
}

/* The CPU kernel rows of the image ops take exactly the types of their OpDef's T list (TF 2.x
 * registers a CPU kernel for every one, so none fails at kernel lookup), one row each. */
static void image_kernels_take_their_opdefs_types(void) {
  static const char *ops[] = {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea",
                              "ResizeBilinearGrad", "ResizeNearestNeighborGrad", "ResizeBicubicGrad",
                              "CropAndResize", "CropAndResizeGradImage", "CropAndResizeGradBoxes",
                              "ScaleAndTranslate", "ScaleAndTranslateGrad"};
  tfc_status s;
  tfc_status_init(&s);
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(&s);
  EXPECT_TRUE(kt != NULL);
  for (size_t i = 0; kt && i < sizeof ops / sizeof *ops; i++) {
    const tfc_opdef *op = tfc_op_lookup(ops[i]);
    const tfc_attr_def *t = op ? tfc_opdef_attr(op, "T") : NULL;
    EXPECT_TRUE(t != NULL && t->allowed_types != NULL);
    if (!t || !t->allowed_types) continue;
    uint32_t want = 0;
    for (int j = 0; j < t->n_allowed; j++) want |= TFC_T(t->allowed_types[j]);
    int rows = 0;
    for (int d = 0; d < kt->n_defs; d++)
      if (kt->defs[d].op == op->id) {
        rows++;
        if (kt->defs[d].types != want)
          tfc_test_fail(__FILE__, __LINE__, "%s: kernel types 0x%x, OpDef's 0x%x", ops[i], (unsigned)kt->defs[d].types,
                        (unsigned)want);
      }
    EXPECT_EQ(rows, 1);
  }
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(resizes_match_tensorflow),
    TFC_TEST(half_and_bfloat16_images_match_tensorflow),
    TFC_TEST(dtypes_outside_the_opdefs_give_tensorflows_text),
    TFC_TEST(crop_and_resize_matches_tensorflow),
    TFC_TEST(non_max_suppression_matches_tensorflow),
    TFC_TEST(nan_boxes_give_the_extrapolation_value),
    TFC_TEST(image_kernels_take_their_opdefs_types),
    {0}};
TFC_TEST_MAIN(tests)
