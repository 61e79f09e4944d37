/*
 * Kernel tests: the nn and array ops of image and text models against TensorFlow's own
 * outputs (tests/fixtures/nn_ops_cases.txt, made by gen_nn_ops.py): DepthwiseConv2dNative and
 * its backprops, SpaceToBatchND / BatchToSpaceND and the legacy SpaceToBatch / BatchToSpace,
 * LRN / LRNGrad, Einsum, BatchMatMulV2 broadcasting, ClipByValue, Tan and the float
 * classifications; then the errors of these ops with TF's codes and texts.
 *
 * Each fixture case stores its inputs and expected outputs as text (see the generator's
 * docstring); floats compare at 1e-5 relative, integers and bools exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernel_util.c"

#define NC_MAX_IO 4

typedef struct nn_case {
  char name[64], op[48];
  int n_attrs;
  ku_attr attrs[8];
  char attr_names[8][32];
  int n_inputs, n_outputs;
  tfc_tensor *inputs[NC_MAX_IO], *expect[NC_MAX_IO];
} nn_case;

static void case_free(nn_case *c) {
  for (int i = 0; i < c->n_attrs; i++) tfc_attr_value_fini(&c->attrs[i].value);
  for (int i = 0; i < c->n_inputs; i++) tfc_tensor_unref(c->inputs[i]);
  for (int i = 0; i < c->n_outputs; i++) tfc_tensor_unref(c->expect[i]);
  memset(c, 0, sizeof *c);
}

static int dtype_of(const char *name) { return tfc_dtype_from_name(name, strlen(name)); }

/* Parses "<dtype> <rank> <dims...> : <values...>" into a new tensor. */
static tfc_tensor *parse_tensor(char *p) {
  char dt[16];
  int nd, used;
  int64_t dims[8];
  if (sscanf(p, "%15s %d%n", dt, &nd, &used) != 2) return NULL;
  p += used;
  for (int d = 0; d < nd; d++) dims[d] = strtoll(p, &p, 10);
  p = strchr(p, ':');
  if (!p) return NULL;
  p++;
  tfc_tensor *t = ku_typed(dtype_of(dt), dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) ku_set(t, i, strtod(p, &p));
  return t;
}

/* Reads the next case; 0 at the end of the file. */
static int read_case(FILE *f, nn_case *c) {
  char *buf = NULL;
  size_t cap = 0;
  memset(c, 0, sizeof *c);
  while (getline(&buf, &cap, f) > 0) {
    char *p = buf, word[64];
    int used;
    if (sscanf(p, "%63s%n", word, &used) != 1 || word[0] == '#') continue;
    p += used;
    if (!strcmp(word, "case")) {
      sscanf(p, "%63s", c->name);
    } else if (!strcmp(word, "op")) {
      sscanf(p, "%47s", c->op);
    } else if (!strcmp(word, "attr")) {
      char kind[8], sval[256];
      ku_attr *a = &c->attrs[c->n_attrs];
      sscanf(p, "%31s %7s%n", c->attr_names[c->n_attrs], kind, &used);
      a->name = c->attr_names[c->n_attrs++];
      p += used;
      if (!strcmp(kind, "s")) {
        sscanf(p, " %255[^\n]", sval);
        tfc_attr_string(sval, strlen(sval), &a->value, NULL);
      } else if (!strcmp(kind, "i")) {
        a->value = tfc_attr_int(strtoll(p, NULL, 10));
      } else if (!strcmp(kind, "f")) {
        a->value = tfc_attr_float(strtof(p, NULL));
      } else if (!strcmp(kind, "b")) {
        a->value = tfc_attr_bool((int)strtol(p, NULL, 10));
      } else if (!strcmp(kind, "type")) {
        sscanf(p, "%255s", sval);
        a->value = tfc_attr_type(dtype_of(sval));
      } else {
        a->value = tfc_attr_list(TFC_ATTR_INT);
        long long v;
        while (sscanf(p, "%lld%n", &v, &used) == 1) {
          p += used;
          tfc_attr_value item = tfc_attr_int(v);
          tfc_attr_list_append(&a->value, &item, NULL);
        }
      }
    } else if (!strcmp(word, "input")) {
      c->inputs[c->n_inputs++] = parse_tensor(p);
    } else if (!strcmp(word, "expect")) {
      c->expect[c->n_outputs++] = parse_tensor(p);
    } else if (!strcmp(word, "end")) {
      free(buf);
      return 1;
    }
  }
  free(buf);
  return 0;
}

static double elem(const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: return ((const float *)t->data)[i];
    case TFC_DT_DOUBLE: return ((const double *)t->data)[i];
    case TFC_DT_INT32: return ((const int32_t *)t->data)[i];
    case TFC_DT_INT64: return (double)((const int64_t *)t->data)[i];
    case TFC_DT_BOOL: return ((const uint8_t *)t->data)[i];
    default: return NAN;
  }
}

static void compare(const nn_case *c, int k, const tfc_tensor *got, const tfc_tensor *want) {
  if (got->dtype != want->dtype)
    tfc_test_fail(__FILE__, __LINE__, "case %s output %d: dtype %d, want %d", c->name, k, got->dtype, want->dtype);
  if (got->ndims != want->ndims || memcmp(got->dims, want->dims, sizeof(int64_t) * (size_t)want->ndims)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_test_fail(__FILE__, __LINE__, "case %s output %d: shape %s, TF says %s", c->name, k,
                  tfc_tensor_shape_str(got, a, sizeof a), tfc_tensor_shape_str(want, b, sizeof b));
  }
  double tol = want->dtype == TFC_DT_FLOAT ? 1e-5 : want->dtype == TFC_DT_DOUBLE ? 1e-10 : 0;
  for (int64_t i = 0; i < want->n_elems; i++) {
    double g = elem(got, i), w = elem(want, i);
    if (isnan(w) && isnan(g)) continue;
    if (isinf(w) && g == w) continue;
    if (!(fabs(g - w) <= tol * fmax(1.0, fabs(w))))
      tfc_test_fail(__FILE__, __LINE__, "case %s output %d: element %lld is %.9g, TF says %.9g", c->name, k,
                    (long long)i, g, w);
  }
}

/* Runs every fixture case whose op is `op`; at least `min_cases` must exist. */
static void run_op(const char *op, int min_cases) {
  FILE *f = fopen(TFC_FIXTURE_DIR "/nn_ops_cases.txt", "r");
  EXPECT_TRUE(f != NULL);
  nn_case c;
  int n_run = 0;
  while (read_case(f, &c)) {
    if (strcmp(c.op, op) != 0) {
      case_free(&c);
      continue;
    }
    tfc_tensor *outs[NC_MAX_IO] = {0};
    tfc_status s;
    tfc_status_init(&s);
    int list[1] = {c.n_inputs};
    int rc = ku_run(c.op, c.attrs, c.n_attrs, c.inputs, c.n_inputs, strcmp(op, "Einsum") ? NULL : list, outs,
                    c.n_outputs, &s);
    if (rc != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "case %s: %s", c.name, tfc_status_msg(&s));
    for (int k = 0; k < c.n_outputs; k++) {
      compare(&c, k, outs[k], c.expect[k]);
      tfc_tensor_unref(outs[k]);
    }
    tfc_status_fini(&s);
    case_free(&c);
    n_run++;
  }
  fclose(f);
  if (n_run < min_cases) tfc_test_fail(__FILE__, __LINE__, "%s: %d cases, want >= %d", op, n_run, min_cases);
}

static void depthwise_matches_tensorflow(void) { run_op("DepthwiseConv2dNative", 9); }
static void depthwise_backprop_input_matches_tensorflow(void) { run_op("DepthwiseConv2dNativeBackpropInput", 9); }
static void depthwise_backprop_filter_matches_tensorflow(void) { run_op("DepthwiseConv2dNativeBackpropFilter", 9); }
static void space_to_batch_nd_matches_tensorflow(void) { run_op("SpaceToBatchND", 5); }
static void batch_to_space_nd_matches_tensorflow(void) { run_op("BatchToSpaceND", 10); }
static void space_to_batch_legacy_matches_tensorflow(void) { run_op("SpaceToBatch", 1); }
static void batch_to_space_legacy_matches_tensorflow(void) { run_op("BatchToSpace", 1); }
static void lrn_matches_tensorflow(void) { run_op("LRN", 3); }
static void lrn_grad_matches_tensorflow(void) { run_op("LRNGrad", 3); }
static void einsum_matches_tensorflow(void) { run_op("Einsum", 18); }
static void batch_matmul_v2_broadcasts_like_tensorflow(void) { run_op("BatchMatMulV2", 3); }
static void clip_by_value_matches_tensorflow(void) { run_op("ClipByValue", 3); }
static void tan_matches_tensorflow(void) { run_op("Tan", 2); }
static void float_classes_match_tensorflow(void) {
  run_op("IsNan", 1);
  run_op("IsInf", 1);
  run_op("IsFinite", 1);
}

static const tfc_test tests[] = {
    TFC_TEST(depthwise_matches_tensorflow),
    TFC_TEST(depthwise_backprop_input_matches_tensorflow),
    TFC_TEST(depthwise_backprop_filter_matches_tensorflow),
    TFC_TEST(space_to_batch_nd_matches_tensorflow),
    TFC_TEST(batch_to_space_nd_matches_tensorflow),
    TFC_TEST(space_to_batch_legacy_matches_tensorflow),
    TFC_TEST(batch_to_space_legacy_matches_tensorflow),
    TFC_TEST(lrn_matches_tensorflow),
    TFC_TEST(lrn_grad_matches_tensorflow),
    TFC_TEST(einsum_matches_tensorflow),
    TFC_TEST(batch_matmul_v2_broadcasts_like_tensorflow),
    TFC_TEST(clip_by_value_matches_tensorflow),
    TFC_TEST(tan_matches_tensorflow),
    TFC_TEST(float_classes_match_tensorflow),
    {0}};

TFC_TEST_MAIN(tests)
