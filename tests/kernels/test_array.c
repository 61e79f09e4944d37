/* Kernel tests: the array family (shapes, reshaping, slicing, joining, gathering, filling). */
#include "harness.h"
#include "kernel_util.c"

/* ---- helpers ---- */

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define I32S(...) ((const int32_t[]){__VA_ARGS__})
#define I64S(...) ((const int64_t[]){__VA_ARGS__})
#define F32S(...) ((const float[]){__VA_ARGS__})

static tfc_tensor *scalar_i32(int32_t v) { return ku_i32(NULL, 0, &v); }
static tfc_tensor *vec_i32(const int32_t *v, int64_t n) { return ku_i32(&n, 1, v); }
static tfc_tensor *vec_i64(const int64_t *v, int64_t n) { return ku_i64(&n, 1, v); }

static tfc_tensor *iota_f32(const int64_t *dims, int nd) {
  tfc_tensor *t = ku_f32(dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) ((float *)t->data)[i] = (float)i;
  return t;
}

static tfc_tensor *strings(const int64_t *dims, int nd, const char *const *v) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = ku_typed(TFC_DT_STRING, dims, nd, NULL);
  for (int64_t i = 0; i < t->n_elems; i++) tfc_tstring_assign(&tfc_tensor_strings(t)[i], v[i], strlen(v[i]), &s);
  return t;
}

static void unref_all(tfc_tensor **t, int n) {
  for (int i = 0; i < n; i++) tfc_tensor_unref(t[i]);
}

static void expect_dims_(const tfc_tensor *t, const int64_t *d, int n, int line) {
  if (!t) tfc_test_fail(__FILE__, line, "no output tensor");
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (t->ndims != n || (n && memcmp(t->dims, d, sizeof(int64_t) * (size_t)n)))
    tfc_test_fail(__FILE__, line, "dims %s, expected %s", tfc_tensor_shape_str(t, a, sizeof a), tfc_dims_str(d, n, b, sizeof b));
}
#define EXPECT_DIMS(t, ...) expect_dims_((t), DIMS(__VA_ARGS__), __LINE__)
#define EXPECT_SCALAR(t) expect_dims_((t), NULL, 0, __LINE__)

static void expect_vals_(const tfc_tensor *t, const void *v, size_t es, int64_t n, int line) {
  if (t->n_elems != n) tfc_test_fail(__FILE__, line, "%lld elements, expected %lld", (long long)t->n_elems, (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (memcmp((const char *)t->data + i * es, (const char *)v + i * es, es)) {
      double got = tfc_tensor_get_f64(t, i), want = 0;
      if (es == 4 && t->dtype == TFC_DT_FLOAT) want = ((const float *)v)[i];
      else if (es == 4) want = ((const int32_t *)v)[i];
      else if (es == 8 && t->dtype == TFC_DT_INT64) want = (double)((const int64_t *)v)[i];
      else if (es == 8) want = ((const double *)v)[i];
      tfc_test_fail(__FILE__, line, "element %lld: %g, expected %g", (long long)i, got, want);
    }
}
#define EXPECT_F32(t, ...) expect_vals_((t), F32S(__VA_ARGS__), 4, sizeof(F32S(__VA_ARGS__)) / 4, __LINE__)
#define EXPECT_I32(t, ...) expect_vals_((t), I32S(__VA_ARGS__), 4, sizeof(I32S(__VA_ARGS__)) / 4, __LINE__)
#define EXPECT_I64(t, ...) expect_vals_((t), I64S(__VA_ARGS__), 8, sizeof(I64S(__VA_ARGS__)) / 8, __LINE__)

static void expect_strs_(const tfc_tensor *t, const char *const *v, int64_t n, int line) {
  if (t->dtype != TFC_DT_STRING || t->n_elems != n) tfc_test_fail(__FILE__, line, "not a string tensor of %lld", (long long)n);
  for (int64_t i = 0; i < n; i++) {
    const tfc_tstring *e = &tfc_tensor_strings(t)[i];
    if (e->len != strlen(v[i]) || (e->len && memcmp(e->data, v[i], e->len)))
      tfc_test_fail(__FILE__, line, "element %lld: '%.*s', expected '%s'", (long long)i, (int)e->len, e->data, v[i]);
  }
}
#define STRS(...) ((const char *const[]){__VA_ARGS__})
#define EXPECT_STRS(t, ...) expect_strs_((t), STRS(__VA_ARGS__), sizeof(STRS(__VA_ARGS__)) / sizeof(char *), __LINE__)

/* Runs op expecting success with one output. */
static tfc_tensor *run1(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  if (ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s failed: %s", op, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return out;
}

/* Runs op expecting `code` with `msg` in the message. */
static void expect_error(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins,
                         const int *lists, int n_outs, int code, const char *msg) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *outs[8] = {0};
  int rc = ku_run(op, attrs, n_attrs, ins, n_ins, lists, outs, n_outs, &s);
  if (rc != code) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s), expected %d", op, rc, tfc_status_msg(&s), code);
  EXPECT_CONTAINS(tfc_status_msg(&s), msg);
  tfc_status_fini(&s);
}

/* Builds the op over inputs that are Consts where const_mask has the bit, Placeholders
 * otherwise, and returns the inferred shape of output `out` (or the build error code). */
static int infer(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins, unsigned const_mask,
                 const int *lists, int out, tfc_shape *shape, tfc_status *s) {
  tfc_graph *g = tfc_graph_new();
  tfc_endpoint eps[16];
  for (int i = 0; i < n_ins; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    int is_const = (const_mask >> i) & 1;
    tfc_node_desc *d = tfc_node_desc_new(g, is_const ? "Const" : "Placeholder", name);
    tfc_attr_value v = tfc_attr_type(ins[i]->dtype);
    tfc_node_desc_set_attr(d, "dtype", &v);
    if (is_const) {
      tfc_attr_value tv = tfc_attr_tensor(tfc_tensor_ref(ins[i]));
      tfc_node_desc_set_attr(d, "value", &tv);
    } else {
      tfc_shape sh = tfc_tensor_shape(ins[i]);
      tfc_attr_value sv;
      tfc_attr_shape(&sh, &sv, s);
      tfc_node_desc_set_attr(d, "shape", &sv);
    }
    tfc_node *n = tfc_node_desc_finish(d, s);
    if (!n) tfc_test_fail(__FILE__, __LINE__, "input %d: %s", i, tfc_status_msg(s));
    eps[i] = (tfc_endpoint){n, 0};
  }
  tfc_node_desc *d = tfc_node_desc_new(g, op, "op");
  const tfc_opdef *od = tfc_op_lookup(op);
  if (lists) {
    for (int a = 0, pos = 0; a < od->n_inputs; a++) {
      if (lists[a] < 0) tfc_node_desc_add_input(d, eps[pos++]);
      else {
        tfc_node_desc_add_input_list(d, eps + pos, lists[a]);
        pos += lists[a];
      }
    }
  } else {
    for (int i = 0; i < n_ins; i++) tfc_node_desc_add_input(d, eps[i]);
  }
  for (int i = 0; i < n_attrs; i++) {
    tfc_attr_value v;
    tfc_attr_value_copy(&attrs[i].value, &v, s);
    tfc_node_desc_set_attr(d, attrs[i].name, &v);
  }
  tfc_node *n = tfc_node_desc_finish(d, s);
  if (n) *shape = n->output_shapes[out];
  tfc_graph_free(g);
  return s->code;
}

static void expect_shape_(const tfc_shape *s, const char *want, int line) {
  char buf[TFC_SHAPE_STR_MAX];
  tfc_shape_str(s, buf, sizeof buf);
  if (strcmp(buf, want)) tfc_test_fail(__FILE__, line, "inferred %s, expected %s", buf, want);
}
#define EXPECT_SHAPE(s, want) expect_shape_((s), (want), __LINE__)

/* ---- Reshape, Shape, Size, Rank, ExpandDims, Squeeze ---- */

static void reshape_infers_minus_one_and_shares_buffer(void) {
  tfc_tensor *in[2] = {iota_f32(DIMS(2, 3)), vec_i32(I32S(-1, 2), 2)};
  tfc_tensor *out = run1("Reshape", NULL, 0, in, 2);
  EXPECT_DIMS(out, 3, 2);
  EXPECT_TRUE(out->buf == in[0]->buf);
  EXPECT_F32(out, 0, 1, 2, 3, 4, 5);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* int64 shape, a scalar target, strings */
  tfc_tensor *one = ku_f64(DIMS(1, 1), (const double[]){2.5});
  tfc_tensor *in2[2] = {one, ku_i64(DIMS(0), NULL)};
  out = run1("Reshape", NULL, 0, in2, 2);
  EXPECT_SCALAR(out);
  EXPECT_NEAR(*(double *)out->data, 2.5, 0);
  tfc_tensor_unref(out);
  unref_all(in2, 2);
  tfc_tensor *in3[2] = {strings(DIMS(4), STRS("a", "b", "c", "d")), vec_i32(I32S(2, -1), 2)};
  out = run1("Reshape", NULL, 0, in3, 2);
  EXPECT_DIMS(out, 2, 2);
  EXPECT_STRS(out, "a", "b", "c", "d");
  tfc_tensor_unref(out);
  unref_all(in3, 2);
  tfc_tensor_unref(in[0]);
}

static void reshape_reports_tf_errors(void) {
  tfc_tensor *x = iota_f32(DIMS(2, 3));
  tfc_tensor *in[2] = {x, vec_i32(I32S(4), 1)};
  expect_error("Reshape", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  tfc_tensor_unref(in[1]);
  in[1] = vec_i32(I32S(-1, -1), 2);
  expect_error("Reshape", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Only one input size may be -1, not both 0 and 1");
  tfc_tensor_unref(in[1]);
  in[1] = vec_i64(I64S(4, -1), 2);
  expect_error("Reshape", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4");
  tfc_tensor_unref(in[1]);
  in[1] = vec_i32(I32S(-2, 3), 2);
  expect_error("Reshape", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Size 0 must be non-negative, not -2");
  tfc_tensor_unref(in[1]);
  in[1] = ku_i32(DIMS(1, 2), I32S(3, 2));
  /* a known rank-2 shape input fails at build time, as in TF; unknown, the kernel says it */
  expect_error("Reshape", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "Shape must be rank 1 but is rank 2 for 'op' (op: 'Reshape') with input shapes: [2,3], [1,2].");
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  EXPECT_EQ(ku_run_unknown("Reshape", NULL, 0, in, 2, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "sizes input must be 1-D, not [1,2]");
  tfc_status_fini(&s);
  unref_all(in, 2);
}

static void shape_size_rank_report_dims(void) {
  tfc_tensor *x = strings(DIMS(2, 3, 1), STRS("a", "b", "c", "d", "e", "f"));
  tfc_tensor *out = run1("Shape", NULL, 0, &x, 1);
  EXPECT_EQ(out->dtype, TFC_DT_INT32);
  EXPECT_I32(out, 2, 3, 1);
  tfc_tensor_unref(out);
  ku_attr a64 = {"out_type", tfc_attr_type(TFC_DT_INT64)};
  out = run1("Shape", &a64, 1, &x, 1);
  EXPECT_I64(out, 2, 3, 1);
  tfc_tensor_unref(out);
  out = run1("Size", &a64, 1, &x, 1);
  EXPECT_SCALAR(out);
  EXPECT_I64(out, 6);
  tfc_tensor_unref(out);
  out = run1("Rank", NULL, 0, &x, 1);
  EXPECT_I32(out, 3);
  tfc_tensor_unref(out);
  tfc_tensor *e = ku_f32(DIMS(0, 4), NULL);
  out = run1("Size", NULL, 0, &e, 1);
  EXPECT_I32(out, 0);
  tfc_tensor_unref(out);
  /* ShapeN: one output per input */
  tfc_tensor *f = iota_f32(DIMS(2, 3, 1));
  tfc_tensor *ins[2] = {f, e}, *outs[2] = {0};
  tfc_status s;
  tfc_status_init(&s);
  int lists[1] = {2};
  EXPECT_EQ(ku_run("ShapeN", NULL, 0, ins, 2, lists, outs, 2, &s), TFC_OK);
  EXPECT_I32(outs[0], 2, 3, 1);
  EXPECT_I32(outs[1], 0, 4);
  unref_all(outs, 2);
  tfc_tensor_unref(f);
  tfc_tensor_unref(x);
  tfc_tensor_unref(e);
}

static void expand_dims_and_squeeze_relabel_without_copy(void) {
  tfc_tensor *x = iota_f32(DIMS(2, 3));
  tfc_tensor *in[2] = {x, scalar_i32(-1)};
  tfc_tensor *out = run1("ExpandDims", NULL, 0, in, 2);
  EXPECT_DIMS(out, 2, 3, 1);
  EXPECT_TRUE(out->buf == x->buf);
  tfc_tensor_unref(in[1]);
  in[1] = scalar_i32(0);
  tfc_tensor *out0 = run1("ExpandDims", NULL, 0, in, 2);
  EXPECT_DIMS(out0, 1, 2, 3);
  tfc_tensor_unref(in[1]);
  in[1] = scalar_i32(3);
  expect_error("ExpandDims", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "Tried to expand dim index 3 for tensor with 2 dimensions.");
  tfc_tensor_unref(in[1]);

  tfc_tensor *y = iota_f32(DIMS(1, 2, 1, 3, 1));
  tfc_tensor *sq = run1("Squeeze", NULL, 0, &y, 1);
  EXPECT_DIMS(sq, 2, 3);
  EXPECT_TRUE(sq->buf == y->buf);
  tfc_tensor_unref(sq);
  tfc_attr_value l = tfc_attr_list(TFC_ATTR_INT);
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_int(-1);
  tfc_attr_list_append(&l, &v, &s);
  v = tfc_attr_int(0);
  tfc_attr_list_append(&l, &v, &s);
  ku_attr a = {"squeeze_dims", l};
  sq = run1("Squeeze", &a, 1, &y, 1);
  EXPECT_DIMS(sq, 2, 1, 3);
  tfc_tensor_unref(sq);
  tfc_attr_value_fini(&a.value);
  a.value = tfc_attr_list(TFC_ATTR_INT);
  v = tfc_attr_int(1);
  tfc_attr_list_append(&a.value, &v, &s);
  expect_error("Squeeze", &a, 1, &y, 1, NULL, 1, TFC_INVALID_ARGUMENT,
               "Can not squeeze dim[1], expected a dimension of 1, got 2");
  tfc_attr_value_fini(&a.value);
  a.value = tfc_attr_list(TFC_ATTR_INT);
  v = tfc_attr_int(5);
  tfc_attr_list_append(&a.value, &v, &s);
  expect_error("Squeeze", &a, 1, &y, 1, NULL, 1, TFC_INVALID_ARGUMENT,
               "Tried to squeeze dim index 5 for tensor with 5 dimensions.");
  tfc_attr_value_fini(&a.value);
  tfc_tensor_unref(out);
  tfc_tensor_unref(out0);
  tfc_tensor_unref(x);
  tfc_tensor_unref(y);
}

/* ---- Transpose ---- */

static void transpose_matches_reference(void) {
  int64_t d0 = 3, d1 = 4, d2 = 5;
  tfc_tensor *x = iota_f32(DIMS(3, 4, 5));
  tfc_tensor *in[2] = {x, vec_i32(I32S(2, 0, 1), 3)};
  tfc_tensor *out = run1("Transpose", NULL, 0, in, 2);
  EXPECT_DIMS(out, 5, 3, 4);
  const float *o = out->data;
  for (int64_t k = 0; k < d2; k++)
    for (int64_t i = 0; i < d0; i++)
      for (int64_t j = 0; j < d1; j++) EXPECT_EQ(o[(k * d0 + i) * d1 + j], (i * d1 + j) * d2 + k);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* int8 with int64 perm, 2-D */
  int8_t v8[6] = {1, 2, 3, 4, 5, 6};
  tfc_tensor *in8[2] = {ku_typed(TFC_DT_INT8, DIMS(2, 3), v8), vec_i64(I64S(1, 0), 2)};
  out = run1("Transpose", NULL, 0, in8, 2);
  EXPECT_DIMS(out, 3, 2);
  const int8_t *o8 = out->data;
  int8_t want8[6] = {1, 4, 2, 5, 3, 6};
  EXPECT_TRUE(memcmp(o8, want8, 6) == 0);
  tfc_tensor_unref(out);
  unref_all(in8, 2);
  /* strings */
  tfc_tensor *ins[2] = {strings(DIMS(2, 2), STRS("a", "b", "c", "d")), vec_i32(I32S(1, 0), 2)};
  out = run1("Transpose", NULL, 0, ins, 2);
  EXPECT_STRS(out, "a", "c", "b", "d");
  tfc_tensor_unref(out);
  unref_all(ins, 2);
  tfc_tensor_unref(x);
}

static void transpose_large_parallel_and_noop_forms(void) {
  int64_t r = 513, c = 300;
  tfc_tensor *x = iota_f32(DIMS(513, 300));
  tfc_tensor *in[2] = {x, vec_i32(I32S(1, 0), 2)};
  tfc_tensor *out = run1("Transpose", NULL, 0, in, 2);
  EXPECT_DIMS(out, 300, 513);
  const float *o = out->data;
  for (int64_t i = 0; i < c; i++)
    for (int64_t j = 0; j < r; j++)
      if (o[i * r + j] != (float)(j * c + i)) tfc_test_fail(__FILE__, __LINE__, "mismatch at %lld,%lld", (long long)i, (long long)j);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* moving only a size-1 dim relabels */
  tfc_tensor *y = iota_f32(DIMS(1, 4, 1));
  tfc_tensor *iny[2] = {y, vec_i32(I32S(1, 2, 0), 3)};
  out = run1("Transpose", NULL, 0, iny, 2);
  EXPECT_DIMS(out, 4, 1, 1);
  EXPECT_TRUE(out->buf == y->buf);
  tfc_tensor_unref(out);
  tfc_tensor_unref(iny[1]);
  iny[1] = vec_i32(I32S(0, 0, 1), 3);
  expect_error("Transpose", NULL, 0, iny, 2, NULL, 1, TFC_INVALID_ARGUMENT, "2 is missing from {0,0,1}.");
  tfc_tensor_unref(iny[1]);
  iny[1] = vec_i32(I32S(0, 1), 2);
  expect_error("Transpose", NULL, 0, iny, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Dimension must be 3 but is 2");
  tfc_tensor_unref(iny[1]);
  iny[1] = vec_i32(I32S(0, 1, 3), 3);
  expect_error("Transpose", NULL, 0, iny, 2, NULL, 1, TFC_INVALID_ARGUMENT, "3 is out of range [0 .. 3)");
  tfc_tensor_unref(iny[1]);
  tfc_tensor_unref(y);
  tfc_tensor_unref(x);
}

/* ---- Concat, Split, Pack, Unpack ---- */

static void concat_v2_negative_axis_and_dtypes(void) {
  tfc_tensor *in[3] = {iota_f32(DIMS(2, 2)), iota_f32(DIMS(2, 1)), scalar_i32(-1)};
  int lists[2] = {2, -1};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("ConcatV2", NULL, 0, in, 3, lists, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 2, 3);
  EXPECT_F32(out, 0, 1, 0, 2, 3, 1);
  tfc_tensor_unref(out);
  /* axis 0, with an empty piece */
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  in[1] = ku_f32(DIMS(0, 2), NULL);
  in[2] = ku_i64(NULL, 0, I64S(0));
  EXPECT_EQ(ku_run("ConcatV2", NULL, 0, in, 3, lists, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 2, 2);
  EXPECT_F32(out, 0, 1, 2, 3);
  tfc_tensor_unref(out);
  unref_all(in, 3);
  /* strings, three pieces */
  tfc_tensor *st[4] = {strings(DIMS(1, 1), STRS("a")), strings(DIMS(1, 2), STRS("b", "c")),
                       strings(DIMS(1, 1), STRS("d")), scalar_i32(1)};
  int l3[2] = {3, -1};
  EXPECT_EQ(ku_run("ConcatV2", NULL, 0, st, 4, l3, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 1, 4);
  EXPECT_STRS(out, "a", "b", "c", "d");
  tfc_tensor_unref(out);
  /* old Concat: concat_dim first */
  tfc_tensor *old[3] = {scalar_i32(0), ku_i32(DIMS(1, 2), I32S(1, 2)), ku_i32(DIMS(2, 2), I32S(3, 4, 5, 6))};
  int lo[2] = {-1, 2};
  EXPECT_EQ(ku_run("Concat", NULL, 0, old, 3, lo, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 3, 2);
  EXPECT_I32(out, 1, 2, 3, 4, 5, 6);
  tfc_tensor_unref(out);
  unref_all(old, 3);
  unref_all(st, 4);
}

static void concat_reports_tf_errors(void) {
  tfc_tensor *in[3] = {iota_f32(DIMS(2, 3)), iota_f32(DIMS(3, 3)), scalar_i32(1)};
  int lists[2] = {2, -1};
  expect_error("ConcatV2", NULL, 0, in, 3, lists, 1, TFC_INVALID_ARGUMENT,
               "ConcatOp : Dimensions of inputs should match: shape[0] = [2,3] vs. shape[1] = [3,3]");
  tfc_tensor_unref(in[2]);
  in[2] = scalar_i32(2);
  expect_error("ConcatV2", NULL, 0, in, 3, lists, 1, TFC_INVALID_ARGUMENT,
               "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2");
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  in[1] = iota_f32(DIMS(3));
  in[2] = scalar_i32(0);
  /* caught at graph build, by the shape function, as TF does */
  expect_error("ConcatV2", NULL, 0, in, 3, lists, 1, TFC_INVALID_ARGUMENT,
               "Shape must be rank 2 but is rank 1 for 'op' (op: 'ConcatV2') with input shapes: [2,3], [3], [].");
  unref_all(in, 3);
}

static void split_and_split_v(void) {
  tfc_tensor *in[2] = {scalar_i32(-1), ku_i64(DIMS(2, 6), I64S(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))};
  ku_attr a = {"num_split", tfc_attr_int(3)};
  tfc_tensor *outs[3] = {0};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("Split", &a, 1, in, 2, NULL, outs, 3, &s), TFC_OK);
  EXPECT_DIMS(outs[0], 2, 2);
  EXPECT_I64(outs[0], 0, 1, 6, 7);
  EXPECT_I64(outs[1], 2, 3, 8, 9);
  EXPECT_I64(outs[2], 4, 5, 10, 11);
  unref_all(outs, 3);
  a.value = tfc_attr_int(4);
  expect_error("Split", &a, 1, in, 2, NULL, 4, TFC_INVALID_ARGUMENT,
               "Number of ways to split should evenly divide the split dimension, but got split_dim 1 (size = 6) and num_split 4");
  tfc_tensor_unref(in[0]);
  in[0] = scalar_i32(2);
  expect_error("Split", &a, 1, in, 2, NULL, 4, TFC_INVALID_ARGUMENT, "-input rank(-2) <= split_dim < input rank (2), but got 2");
  /* An empty split_dim (the graph does not know its shape): refused, never read. */
  tfc_tensor_unref(in[0]);
  in[0] = vec_i32(NULL, 0);
  tfc_tensor *outs4[4] = {0};
  EXPECT_EQ(ku_run_unknown("Split", &a, 1, in, 2, outs4, 4, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "-input rank(-2) <= split_dim < input rank (2), but got 0");
  unref_all(outs4, 4);
  tfc_status_clear(&s);
  /* SplitV with a -1 and strings */
  tfc_tensor *sv[3] = {strings(DIMS(5), STRS("a", "b", "c", "d", "e")), vec_i32(I32S(1, -1, 2), 3), scalar_i32(0)};
  a.value = tfc_attr_int(3);
  EXPECT_EQ(ku_run("SplitV", &a, 1, sv, 3, NULL, outs, 3, &s), TFC_OK);
  EXPECT_STRS(outs[0], "a");
  EXPECT_STRS(outs[1], "b", "c");
  EXPECT_STRS(outs[2], "d", "e");
  unref_all(outs, 3);
  tfc_tensor_unref(sv[1]);
  sv[1] = vec_i32(I32S(-1, -1, 2), 3);
  expect_error("SplitV", &a, 1, sv, 3, NULL, 3, TFC_INVALID_ARGUMENT, "There can only be one -1 in the input.");
  tfc_tensor_unref(sv[1]);
  sv[1] = vec_i64(I64S(1, 1, 1), 3);
  expect_error("SplitV", &a, 1, sv, 3, NULL, 3, TFC_INVALID_ARGUMENT,
               "Determined shape must either match input shape along split_dim exactly if fully specified");
  unref_all(sv, 3);
  unref_all(in, 2);
}

static void pack_and_unpack_axes(void) {
  tfc_tensor *in[3] = {ku_i32(DIMS(2), I32S(1, 2)), ku_i32(DIMS(2), I32S(3, 4)), ku_i32(DIMS(2), I32S(5, 6))};
  ku_attr a = {"axis", tfc_attr_int(-1)};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  int lists[1] = {3};
  EXPECT_EQ(ku_run("Pack", &a, 1, in, 3, lists, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 2, 3);
  EXPECT_I32(out, 1, 3, 5, 2, 4, 6);
  tfc_tensor *outs[3] = {0};
  /* Unpack along the same axis gives the inputs back */
  EXPECT_EQ(ku_run("Unpack", (ku_attr[]){{"num", tfc_attr_int(3)}, {"axis", tfc_attr_int(1)}}, 2, &out, 1, NULL, outs, 3, &s),
            TFC_OK);
  EXPECT_DIMS(outs[1], 2);
  EXPECT_I32(outs[1], 3, 4);
  unref_all(outs, 3);
  expect_error("Unpack", (ku_attr[]){{"num", tfc_attr_int(3)}, {"axis", tfc_attr_int(0)}}, 2, &out, 1, NULL, 3,
               TFC_INVALID_ARGUMENT, "Dimension must be 3 but is 2 for 'op' (op: 'Unpack')");
  expect_error("Unpack", (ku_attr[]){{"num", tfc_attr_int(2)}, {"axis", tfc_attr_int(-3)}}, 2, &out, 1, NULL, 2,
               TFC_INVALID_ARGUMENT, "Invalid axis: -3; must be in [-2,2)");
  tfc_tensor_unref(out);
  a.value = tfc_attr_int(0);
  EXPECT_EQ(ku_run("Pack", &a, 1, in, 3, lists, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 3, 2);
  EXPECT_I32(out, 1, 2, 3, 4, 5, 6);
  tfc_tensor_unref(out);
  a.value = tfc_attr_int(2);
  expect_error("Pack", &a, 1, in, 3, lists, 1, TFC_INVALID_ARGUMENT, "Invalid axis: 2; must be in [-2,2)");
  tfc_tensor_unref(in[2]);
  in[2] = ku_i32(DIMS(1), I32S(7));
  a.value = tfc_attr_int(0);
  expect_error("Pack", &a, 1, in, 3, lists, 1, TFC_INVALID_ARGUMENT,
               "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2] and [1].");
  unref_all(in, 3);
  /* strings */
  tfc_tensor *st[2] = {strings(DIMS(1), STRS("x")), strings(DIMS(1), STRS("y"))};
  int l2[1] = {2};
  EXPECT_EQ(ku_run("Pack", &a, 1, st, 2, l2, &out, 1, &s), TFC_OK);
  EXPECT_DIMS(out, 2, 1);
  EXPECT_STRS(out, "x", "y");
  tfc_tensor_unref(out);
  unref_all(st, 2);
}

/* ---- Slice, StridedSlice ---- */

static void slice_with_minus_one_size(void) {
  tfc_tensor *x = iota_f32(DIMS(3, 4));
  tfc_tensor *in[3] = {x, vec_i64(I64S(1, 1), 2), vec_i64(I64S(-1, 2), 2)};
  tfc_tensor *out = run1("Slice", NULL, 0, in, 3);
  EXPECT_DIMS(out, 2, 2);
  EXPECT_F32(out, 5, 6, 9, 10);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[2]);
  in[2] = vec_i64(I64S(1, 4), 2);
  expect_error("Slice", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Expected size[1] in [0, 3], but got 4");
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  in[1] = vec_i32(I32S(4, 0), 2);
  in[2] = vec_i32(I32S(0, 1), 2);
  expect_error("Slice", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Expected begin[0] in [0, 3], but got 4");
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  in[1] = vec_i32(I32S(0), 1);
  in[2] = vec_i32(I32S(1), 1);
  expect_error("Slice", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT,
               "Expected begin and size arguments to be 1-D tensors of size 2, but got shapes [1] and [1] instead.");
  unref_all(in, 3);
  tfc_tensor *st[3] = {strings(DIMS(4), STRS("a", "b", "c", "d")), vec_i32(I32S(1), 1), vec_i32(I32S(2), 1)};
  out = run1("Slice", NULL, 0, st, 3);
  EXPECT_STRS(out, "b", "c");
  tfc_tensor_unref(out);
  unref_all(st, 3);
}

static tfc_tensor *sslice(tfc_tensor *x, const int32_t *b, const int32_t *e, const int32_t *st, int n, int64_t bm,
                          int64_t em, int64_t ell, int64_t nam, int64_t sam) {
  tfc_tensor *in[4] = {x, vec_i32(b, n), vec_i32(e, n), vec_i32(st, n)};
  ku_attr a[5] = {{"begin_mask", tfc_attr_int(bm)},     {"end_mask", tfc_attr_int(em)},
                  {"ellipsis_mask", tfc_attr_int(ell)}, {"new_axis_mask", tfc_attr_int(nam)},
                  {"shrink_axis_mask", tfc_attr_int(sam)}};
  tfc_tensor *out = run1("StridedSlice", a, 5, in, 4);
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  tfc_tensor_unref(in[3]);
  return out;
}

static void strided_slice_masks_and_negative_strides(void) {
  tfc_tensor *v = iota_f32(DIMS(10));
  /* x[1:8:3] */
  tfc_tensor *o = sslice(v, I32S(1), I32S(8), I32S(3), 1, 0, 0, 0, 0, 0);
  EXPECT_F32(o, 1, 4, 7);
  tfc_tensor_unref(o);
  /* x[::-1] */
  o = sslice(v, I32S(0), I32S(0), I32S(-1), 1, 1, 1, 0, 0, 0);
  EXPECT_F32(o, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  tfc_tensor_unref(o);
  /* x[-2:1:-3] */
  o = sslice(v, I32S(-2), I32S(1), I32S(-3), 1, 0, 0, 0, 0, 0);
  EXPECT_F32(o, 8, 5, 2);
  tfc_tensor_unref(o);
  /* out-of-range bounds clamp: x[-100:100] */
  o = sslice(v, I32S(-100), I32S(100), I32S(1), 1, 0, 0, 0, 0, 0);
  EXPECT_DIMS(o, 10);
  EXPECT_TRUE(o->buf == v->buf);
  tfc_tensor_unref(o);
  /* x[5:2] is empty */
  o = sslice(v, I32S(5), I32S(2), I32S(1), 1, 0, 0, 0, 0, 0);
  EXPECT_DIMS(o, 0);
  tfc_tensor_unref(o);
  /* shrink: x[-1] */
  o = sslice(v, I32S(-1), I32S(0), I32S(1), 1, 0, 0, 0, 0, 1);
  EXPECT_SCALAR(o);
  EXPECT_F32(o, 9);
  tfc_tensor_unref(o);
  tfc_tensor_unref(v);

  tfc_tensor *x = iota_f32(DIMS(2, 3, 4));
  /* x[..., 1] -> [2,3] */
  o = sslice(x, I32S(0, 1), I32S(0, 2), I32S(1, 1), 2, 0, 0, 1, 0, 2);
  EXPECT_DIMS(o, 2, 3);
  EXPECT_F32(o, 1, 5, 9, 13, 17, 21);
  tfc_tensor_unref(o);
  /* x[1, tf.newaxis, ::2, -1] -> [1,2] */
  o = sslice(x, I32S(1, 0, 0, -1), I32S(2, 0, 0, 0), I32S(1, 1, 2, 1), 4, 4, 4, 0, 2, 9);
  EXPECT_DIMS(o, 1, 2);
  EXPECT_F32(o, 15, 23);
  tfc_tensor_unref(o);
  /* x[tf.newaxis, ..., ::-2] -> [1,2,3,2] */
  o = sslice(x, I32S(0, 0, 0), I32S(0, 0, 0), I32S(1, 1, -2), 3, 4, 4, 2, 1, 0);
  EXPECT_DIMS(o, 1, 2, 3, 2);
  EXPECT_F32(o, 3, 1, 7, 5, 11, 9, 15, 13, 19, 17, 23, 21);
  tfc_tensor_unref(o);
  /* x[:, 2:0:-1, 1:3] */
  o = sslice(x, I32S(0, 2, 1), I32S(0, 0, 3), I32S(1, -1, 1), 3, 1, 1, 0, 0, 0);
  EXPECT_DIMS(o, 2, 2, 2);
  EXPECT_F32(o, 9, 10, 5, 6, 21, 22, 17, 18);
  tfc_tensor_unref(o);
  tfc_tensor_unref(x);
}

static void strided_slice_reports_tf_errors(void) {
  tfc_tensor *x = iota_f32(DIMS(3, 4));
  tfc_tensor *in[4] = {x, vec_i32(I32S(5), 1), vec_i32(I32S(6), 1), vec_i32(I32S(1), 1)};
  ku_attr a = {"shrink_axis_mask", tfc_attr_int(1)};
  expect_error("StridedSlice", &a, 1, in, 4, NULL, 1, TFC_INVALID_ARGUMENT, "slice index 5 of dimension 0 out of bounds.");
  tfc_tensor_unref(in[3]);
  in[3] = vec_i32(I32S(0), 1);
  expect_error("StridedSlice", NULL, 0, in, 4, NULL, 1, TFC_INVALID_ARGUMENT, "strides[0] must be non-zero");
  a = (ku_attr){"ellipsis_mask", tfc_attr_int(3)};
  tfc_tensor *in2[4] = {x, vec_i32(I32S(0, 0), 2), vec_i32(I32S(1, 1), 2), vec_i32(I32S(1, 1), 2)};
  expect_error("StridedSlice", &a, 1, in2, 4, NULL, 1, TFC_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
  tfc_tensor_unref(in2[3]);
  in2[3] = vec_i32(I32S(1), 1);
  expect_error("StridedSlice", NULL, 0, in2, 4, NULL, 1, TFC_INVALID_ARGUMENT,
               "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [2], and [1] instead.");
  tfc_tensor *in3[4] = {x, vec_i32(I32S(0, 0, 0), 3), vec_i32(I32S(1, 1, 1), 3), vec_i32(I32S(1, 1, 1), 3)};
  expect_error("StridedSlice", NULL, 0, in3, 4, NULL, 1, TFC_INVALID_ARGUMENT,
               "Index out of range using input dim 2; input has only 2 dims");
  unref_all(in + 1, 3);
  unref_all(in2 + 1, 3);
  unref_all(in3 + 1, 3);
  tfc_tensor_unref(x);
}

/* ---- Fill, ZerosLike, OnesLike, Range ---- */

static void fill_zeros_ones(void) {
  float seven = 7;
  tfc_tensor *in[2] = {vec_i32(I32S(2, 3), 2), ku_f32(NULL, 0, &seven)};
  tfc_tensor *out = run1("Fill", NULL, 0, in, 2);
  EXPECT_DIMS(out, 2, 3);
  EXPECT_F32(out, 7, 7, 7, 7, 7, 7);
  tfc_tensor *z = run1("ZerosLike", NULL, 0, &out, 1);
  EXPECT_F32(z, 0, 0, 0, 0, 0, 0);
  tfc_tensor_unref(z);
  tfc_tensor *b = ku_bool(DIMS(3), (const uint8_t[]){0, 1, 0});
  tfc_tensor *ones = run1("OnesLike", NULL, 0, &b, 1);
  EXPECT_TRUE(memcmp(ones->data, (const uint8_t[]){1, 1, 1}, 3) == 0);
  tfc_tensor_unref(ones);
  tfc_tensor *i64 = ku_i64(DIMS(2), I64S(5, 6));
  ones = run1("OnesLike", NULL, 0, &i64, 1);
  EXPECT_I64(ones, 1, 1);
  tfc_tensor_unref(ones);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  /* string Fill with int64 dims; empty result */
  tfc_tensor *sv = strings(NULL, 0, STRS("hi"));
  tfc_tensor *sin[2] = {vec_i64(I64S(3), 1), sv};
  out = run1("Fill", NULL, 0, sin, 2);
  EXPECT_STRS(out, "hi", "hi", "hi");
  z = run1("ZerosLike", NULL, 0, &out, 1);
  EXPECT_STRS(z, "", "", "");
  tfc_tensor_unref(z);
  tfc_tensor_unref(out);
  tfc_tensor_unref(sin[0]);
  sin[0] = vec_i32(I32S(0, 4), 2);
  out = run1("Fill", NULL, 0, sin, 2);
  EXPECT_DIMS(out, 0, 4);
  tfc_tensor_unref(out);
  tfc_tensor_unref(sin[0]);
  sin[0] = vec_i32(I32S(2, -1), 2);
  expect_error("Fill", NULL, 0, sin, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Dimension -1 must be >= 0");
  tfc_tensor_unref(sin[1]);
  sin[1] = iota_f32(DIMS(2));
  expect_error("Fill", NULL, 0, sin, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Shape must be rank 0 but is rank 1");
  unref_all(sin, 2);
  unref_all(in, 1);
  tfc_tensor_unref(b);
  tfc_tensor_unref(i64);
}

static void range_int_float_and_errors(void) {
  tfc_tensor *in[3] = {scalar_i32(1), scalar_i32(10), scalar_i32(3)};
  tfc_tensor *out = run1("Range", NULL, 0, in, 3);
  EXPECT_I32(out, 1, 4, 7);
  tfc_tensor_unref(out);
  unref_all(in, 3);
  int64_t a = 5, b = -1, d = -2;
  tfc_tensor *i64[3] = {ku_i64(NULL, 0, &a), ku_i64(NULL, 0, &b), ku_i64(NULL, 0, &d)};
  out = run1("Range", NULL, 0, i64, 3);
  EXPECT_I64(out, 5, 3, 1);
  tfc_tensor_unref(out);
  unref_all(i64, 3);
  float fs = 0, fl = 1, fd = 0.25f;
  tfc_tensor *f[3] = {ku_f32(NULL, 0, &fs), ku_f32(NULL, 0, &fl), ku_f32(NULL, 0, &fd)};
  out = run1("Range", NULL, 0, f, 3);
  EXPECT_F32(out, 0, 0.25f, 0.5f, 0.75f);
  tfc_tensor_unref(out);
  unref_all(f, 3);
  double ds = 1, dl = 1, dd = 1;
  tfc_tensor *dbl[3] = {ku_f64(NULL, 0, &ds), ku_f64(NULL, 0, &dl), ku_f64(NULL, 0, &dd)};
  out = run1("Range", NULL, 0, dbl, 3);
  EXPECT_DIMS(out, 0);
  tfc_tensor_unref(out);
  unref_all(dbl, 3);
  tfc_tensor *e[3] = {scalar_i32(5), scalar_i32(1), scalar_i32(1)};
  expect_error("Range", NULL, 0, e, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Requires start <= limit when delta > 0: 5/1");
  tfc_tensor_unref(e[2]);
  e[2] = scalar_i32(0);
  expect_error("Range", NULL, 0, e, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Requires delta != 0: 0");
  tfc_tensor_unref(e[0]);
  e[0] = vec_i32(I32S(1), 1);
  expect_error("Range", NULL, 0, e, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Shape must be rank 0 but is rank 1");
  unref_all(e, 3);
}

/* ---- Tile, BroadcastTo ---- */

static void tile_and_broadcast_to(void) {
  tfc_tensor *x = ku_i32(DIMS(2, 2), I32S(1, 2, 3, 4));
  tfc_tensor *in[2] = {x, vec_i32(I32S(2, 3), 2)};
  tfc_tensor *out = run1("Tile", NULL, 0, in, 2);
  EXPECT_DIMS(out, 4, 6);
  EXPECT_I32(out, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = vec_i64(I64S(1, 0), 2);
  out = run1("Tile", NULL, 0, in, 2);
  EXPECT_DIMS(out, 2, 0);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = vec_i32(I32S(1, -1), 2);
  expect_error("Tile", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Expected multiples[1] >= 0, but got -1");
  tfc_tensor_unref(in[1]);
  in[1] = vec_i32(I32S(2), 1);
  expect_error("Tile", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Dimension must be 2 but is 1");
  tfc_tensor_unref(in[1]);
  tfc_tensor *st[2] = {strings(DIMS(2), STRS("p", "q")), vec_i32(I32S(2), 1)};
  out = run1("Tile", NULL, 0, st, 2);
  EXPECT_STRS(out, "p", "q", "p", "q");
  tfc_tensor_unref(out);
  unref_all(st, 2);

  /* large tile runs in parallel and matches */
  tfc_tensor *big = iota_f32(DIMS(64, 100));
  tfc_tensor *bin[2] = {big, vec_i32(I32S(3, 5), 2)};
  out = run1("Tile", NULL, 0, bin, 2);
  EXPECT_DIMS(out, 192, 500);
  for (int64_t i = 0; i < 192; i++)
    for (int64_t j = 0; j < 500; j++)
      if (((float *)out->data)[i * 500 + j] != (float)((i % 64) * 100 + j % 100)) tfc_test_fail(__FILE__, __LINE__, "tile mismatch");
  tfc_tensor_unref(out);
  unref_all(bin, 2);

  tfc_tensor *col = ku_f32(DIMS(2, 1), F32S(1, 2));
  tfc_tensor *bt[2] = {col, vec_i32(I32S(3, 2, 3), 3)};
  out = run1("BroadcastTo", NULL, 0, bt, 2);
  EXPECT_DIMS(out, 3, 2, 3);
  EXPECT_F32(out, 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2);
  tfc_tensor_unref(out);
  tfc_tensor_unref(bt[1]);
  bt[1] = vec_i32(I32S(3, 3), 2);
  expect_error("BroadcastTo", NULL, 0, bt, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Incompatible shapes: [2,1] vs. [3,3]");
  tfc_tensor_unref(bt[1]);
  bt[1] = vec_i32(I32S(3), 1);
  expect_error("BroadcastTo", NULL, 0, bt, 2, NULL, 1, TFC_INVALID_ARGUMENT,
               "Rank of input (2) must be no greater than rank of output shape (1).");
  unref_all(bt, 2);
  tfc_tensor_unref(x);
}

/* ---- GatherV2, Gather ---- */

static void gather_axes_batch_dims_and_bad_index(void) {
  tfc_tensor *p = iota_f32(DIMS(2, 5));
  tfc_tensor *in[3] = {p, vec_i32(I32S(4, 0, 4), 3), scalar_i32(1)};
  tfc_tensor *out = run1("GatherV2", NULL, 0, in, 3);
  EXPECT_DIMS(out, 2, 3);
  EXPECT_F32(out, 4, 0, 4, 9, 5, 9);
  tfc_tensor_unref(out);
  tfc_tensor_unref(in[1]);
  in[1] = vec_i32(I32S(1, 7), 2);
  expect_error("GatherV2", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "indices[1] = 7 is not in [0, 5)");
  tfc_tensor_unref(in[1]);
  in[1] = ku_i64(DIMS(2, 1), I64S(0, -1));
  expect_error("GatherV2", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "indices[1,0] = -1 is not in [0, 5)");
  tfc_tensor_unref(in[2]);
  in[2] = scalar_i32(2);
  expect_error("GatherV2", NULL, 0, in, 3, NULL, 1, TFC_INVALID_ARGUMENT, "Expected axis in the range [-2, 2), but got 2");
  tfc_tensor_unref(in[1]);
  tfc_tensor_unref(in[2]);
  /* batch_dims = 1: out[b, j] = p[b, idx[b, j]] */
  in[1] = ku_i32(DIMS(2, 2), I32S(3, 1, 0, 2));
  in[2] = scalar_i32(1);
  ku_attr bd = {"batch_dims", tfc_attr_int(1)};
  out = run1("GatherV2", &bd, 1, in, 3);
  EXPECT_DIMS(out, 2, 2);
  EXPECT_F32(out, 3, 1, 5, 7);
  tfc_tensor_unref(out);
  unref_all(in + 1, 2);
  /* v1 Gather on strings, 2-D indices */
  tfc_tensor *sp = strings(DIMS(3), STRS("a", "b", "c"));
  tfc_tensor *g[2] = {sp, ku_i64(DIMS(2, 2), I64S(2, 2, 0, 1))};
  out = run1("Gather", NULL, 0, g, 2);
  EXPECT_DIMS(out, 2, 2);
  EXPECT_STRS(out, "c", "c", "a", "b");
  tfc_tensor_unref(out);
  unref_all(g, 2);
  tfc_tensor_unref(p);
}

/* ---- BroadcastGradientArgs ---- */

static void bcast_gradient_args(tfc_tensor *a, tfc_tensor *b, tfc_tensor **outs) {
  tfc_tensor *in[2] = {a, b};
  tfc_status s;
  tfc_status_init(&s);
  if (ku_run("BroadcastGradientArgs", NULL, 0, in, 2, NULL, outs, 2, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  unref_all(in, 2);
}

static void broadcast_gradient_args_follows_tf(void) {
  tfc_tensor *o[2];
  bcast_gradient_args(vec_i32(I32S(2, 3, 5), 3), vec_i32(I32S(1), 1), o);
  EXPECT_DIMS(o[0], 0);
  EXPECT_I32(o[1], 0, 1, 2);
  unref_all(o, 2);
  bcast_gradient_args(vec_i32(I32S(2, 1, 5), 3), vec_i32(I32S(1, 3, 1), 3), o);
  EXPECT_I32(o[0], 1);
  EXPECT_I32(o[1], 0, 2);
  unref_all(o, 2);
  /* shared 1s are reduced on both sides, except when the shapes are identical */
  bcast_gradient_args(vec_i64(I64S(1, 4, 1), 3), vec_i64(I64S(4, 1), 2), o);
  EXPECT_EQ(o[0]->dtype, TFC_DT_INT64);
  EXPECT_I64(o[0], 0, 2);
  EXPECT_I64(o[1], 0, 2);
  unref_all(o, 2);
  bcast_gradient_args(vec_i32(I32S(1, 2), 2), vec_i32(I32S(1, 2), 2), o);
  EXPECT_DIMS(o[0], 0);
  EXPECT_DIMS(o[1], 0);
  unref_all(o, 2);
  tfc_tensor *in[2] = {vec_i32(I32S(2, 3), 2), vec_i32(I32S(4), 1)};
  expect_error("BroadcastGradientArgs", NULL, 0, in, 2, NULL, 2, TFC_INVALID_ARGUMENT, "Incompatible shapes: [2,3] vs. [4]");
  unref_all(in, 2);
}

/* BroadcastArgs: values and texts of TF 2.x's kernel for the same inputs. */
static void broadcast_args_follows_tf(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *in[2] = {vec_i32(I32S(2, 1, 3), 3), vec_i32(I32S(4, 1), 2)}, *out = NULL;
  if (ku_run("BroadcastArgs", NULL, 0, in, 2, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  EXPECT_I32(out, 2, 4, 3);
  tfc_tensor_unref(out);
  unref_all(in, 2);
  in[0] = vec_i64(I64S(5), 1);
  in[1] = vec_i64(NULL, 0);
  if (ku_run("BroadcastArgs", NULL, 0, in, 2, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  EXPECT_EQ(out->dtype, TFC_DT_INT64);
  EXPECT_I64(out, 5);
  tfc_tensor_unref(out);
  unref_all(in, 2);
  in[0] = vec_i32(I32S(2, 3), 2);
  in[1] = vec_i32(I32S(4), 1);
  expect_error("BroadcastArgs", NULL, 0, in, 2, NULL, 1, TFC_INVALID_ARGUMENT, "Incompatible shapes: [2,3] vs. [4]");
  unref_all(in, 2);
  tfc_shape sh;
  in[0] = vec_i32(I32S(1, 2, 3), 3);
  in[1] = vec_i32(I32S(1, 2), 2);
  EXPECT_EQ(infer("BroadcastArgs", NULL, 0, in, 2, 0u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[3]");
  unref_all(in, 2);
  tfc_status_fini(&s);
}

/* ---- shape inference with const inputs ---- */

static void shape_fns_use_const_inputs(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_shape sh;
  tfc_tensor *x = iota_f32(DIMS(2, 3));
  tfc_tensor *r[2] = {x, vec_i32(I32S(-1, 2), 2)};
  EXPECT_EQ(infer("Reshape", NULL, 0, r, 2, 2u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[3,2]");
  EXPECT_EQ(infer("Reshape", NULL, 0, r, 2, 0u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[?,?]");
  tfc_tensor_unref(r[1]);
  r[1] = vec_i32(I32S(4), 1);
  EXPECT_EQ(infer("Reshape", NULL, 0, r, 2, 2u, NULL, 0, &sh, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Cannot reshape a tensor with 6 elements to shape [4] (4 elements)");
  tfc_status_clear(&s);
  tfc_tensor_unref(r[1]);

  tfc_tensor *f[2] = {vec_i64(I64S(4, 5), 2), scalar_i32(1)};
  EXPECT_EQ(infer("Fill", NULL, 0, f, 2, 1u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[4,5]");
  unref_all(f, 2);

  tfc_tensor *rg[3] = {scalar_i32(0), scalar_i32(10), scalar_i32(3)};
  EXPECT_EQ(infer("Range", NULL, 0, rg, 3, 7u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[4]");
  EXPECT_EQ(infer("Range", NULL, 0, rg, 3, 3u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[?]");
  unref_all(rg, 3);

  tfc_tensor *cc[3] = {x, iota_f32(DIMS(2, 5)), scalar_i32(-1)};
  int lists[2] = {2, -1};
  EXPECT_EQ(infer("ConcatV2", NULL, 0, cc, 3, 4u, lists, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[2,8]");
  EXPECT_EQ(infer("ConcatV2", NULL, 0, cc, 3, 0u, lists, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[?,?]");
  tfc_tensor_unref(cc[2]);
  cc[2] = scalar_i32(0);
  EXPECT_EQ(infer("ConcatV2", NULL, 0, cc, 3, 4u, lists, 0, &sh, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimension 1 in both shapes must be equal, but are 3 and 5");
  tfc_status_clear(&s);
  unref_all(cc + 1, 2);

  tfc_tensor *y = iota_f32(DIMS(2, 3, 4));
  tfc_tensor *ss[4] = {y, vec_i32(I32S(0, 0, 0), 3), vec_i32(I32S(0, 0, 0), 3), vec_i32(I32S(1, 1, -2), 3)};
  ku_attr a[4] = {{"begin_mask", tfc_attr_int(4)},
                  {"end_mask", tfc_attr_int(4)},
                  {"ellipsis_mask", tfc_attr_int(2)},
                  {"new_axis_mask", tfc_attr_int(1)}};
  EXPECT_EQ(infer("StridedSlice", a, 4, ss, 4, 14u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[1,2,3,2]");
  unref_all(ss + 1, 3);

  tfc_tensor *tp[2] = {y, vec_i32(I32S(2, 0, 1), 3)};
  EXPECT_EQ(infer("Transpose", NULL, 0, tp, 2, 2u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[4,2,3]");
  tfc_tensor_unref(tp[1]);

  tfc_tensor *sv[3] = {y, vec_i32(I32S(1, -1), 2), scalar_i32(2)};
  ku_attr ns = {"num_split", tfc_attr_int(2)};
  EXPECT_EQ(infer("SplitV", &ns, 1, sv, 3, 6u, NULL, 1, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[2,3,3]");
  unref_all(sv + 1, 2);

  tfc_tensor *gv[3] = {y, ku_i32(DIMS(5, 6), NULL), scalar_i32(-2)};
  EXPECT_EQ(infer("GatherV2", NULL, 0, gv, 3, 4u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[2,5,6,4]");
  unref_all(gv + 1, 2);

  tfc_tensor *bt[2] = {ku_f32(DIMS(3, 1), NULL), vec_i32(I32S(2, 3, 4), 3)};
  EXPECT_EQ(infer("BroadcastTo", NULL, 0, bt, 2, 2u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[2,3,4]");
  unref_all(bt, 2);

  tfc_tensor *sl[3] = {y, vec_i32(I32S(1, 1, 0), 3), vec_i32(I32S(-1, 2, 3), 3)};
  EXPECT_EQ(infer("Slice", NULL, 0, sl, 3, 6u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[1,2,3]");
  unref_all(sl + 1, 2);

  tfc_tensor *tl[2] = {y, vec_i32(I32S(2, 1, 3), 3)};
  EXPECT_EQ(infer("Tile", NULL, 0, tl, 2, 2u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[4,3,12]");
  tfc_tensor_unref(tl[1]);

  tfc_tensor *ed[2] = {y, scalar_i32(-1)};
  EXPECT_EQ(infer("ExpandDims", NULL, 0, ed, 2, 2u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[2,3,4,1]");
  tfc_tensor_unref(ed[1]);
  EXPECT_EQ(infer("Shape", NULL, 0, &y, 1, 0u, NULL, 0, &sh, &s), TFC_OK);
  EXPECT_SHAPE(&sh, "[3]");
  tfc_tensor_unref(y);
  tfc_tensor_unref(x);
}

static const tfc_test tests[] = {
    TFC_TEST(reshape_infers_minus_one_and_shares_buffer),
    TFC_TEST(reshape_reports_tf_errors),
    TFC_TEST(shape_size_rank_report_dims),
    TFC_TEST(expand_dims_and_squeeze_relabel_without_copy),
    TFC_TEST(transpose_matches_reference),
    TFC_TEST(transpose_large_parallel_and_noop_forms),
    TFC_TEST(concat_v2_negative_axis_and_dtypes),
    TFC_TEST(concat_reports_tf_errors),
    TFC_TEST(split_and_split_v),
    TFC_TEST(pack_and_unpack_axes),
    TFC_TEST(slice_with_minus_one_size),
    TFC_TEST(strided_slice_masks_and_negative_strides),
    TFC_TEST(strided_slice_reports_tf_errors),
    TFC_TEST(fill_zeros_ones),
    TFC_TEST(range_int_float_and_errors),
    TFC_TEST(tile_and_broadcast_to),
    TFC_TEST(gather_axes_batch_dims_and_bad_index),
    TFC_TEST(broadcast_gradient_args_follows_tf),
    TFC_TEST(broadcast_args_follows_tf),
    TFC_TEST(shape_fns_use_const_inputs),
    {0}};
TFC_TEST_MAIN(tests)
