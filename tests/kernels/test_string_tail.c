/*
 * Kernel tests: ops_string.def — ReadFile/WriteFile, StringLength, AsString, Substr,
 * StringToNumber, EncodeBase64/DecodeBase64, StringSplit. Expected values and error texts
 * were taken from TensorFlow (tf.as_string, tf.substr, tf.string_split, ...) on the same
 * inputs; each case also runs the shape function (ku_run validates the node).
 */
#include <unistd.h>

#include "harness.h"
#include "kernel_util.c"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static tfc_tensor *strs(const int64_t *dims, int nd, const char *const *v) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, dims, nd, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  for (int64_t i = 0; i < t->n_elems; i++)
    if (tfc_tstring_assign(&tfc_tensor_strings(t)[i], v[i], strlen(v[i]), &s))
      tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return t;
}
#define STRS(...) strs(DIMS((int64_t)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *))), (const char *[]){__VA_ARGS__})
#define STR(v) strs(NULL, 0, (const char *[]){v})

static void expect_strs_(const tfc_tensor *t, const char *const *v, int64_t n, int line) {
  if (!t || t->dtype != TFC_DT_STRING || t->n_elems != n) tfc_test_fail(__FILE__, line, "not %lld strings", (long long)n);
  for (int64_t i = 0; i < n; i++) {
    const tfc_tstring *s = &tfc_tensor_strings(t)[i];
    if (s->len != strlen(v[i]) || (s->len && memcmp(s->data, v[i], s->len)))
      tfc_test_fail(__FILE__, line, "element %lld: '%.*s', expected '%s'", (long long)i, (int)s->len, s->data, v[i]);
  }
}
#define EXPECT_STRS(t, ...) \
  expect_strs_((t), (const char *[]){__VA_ARGS__}, sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *), __LINE__)

static tfc_tensor *run(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  if (ku_run(op, attrs, n_attrs, ins, n_ins, NULL, &out, 1, &s) != TFC_OK)
    tfc_test_fail(__FILE__, __LINE__, "%s failed: %s", op, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return out;
}

static void expect_error(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor **ins, int n_ins, int code,
                         const char *msg) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *outs[3] = {0};
  int rc = ku_run(op, attrs, n_attrs, ins, n_ins, NULL, outs, 1, &s);
  if (rc != code) tfc_test_fail(__FILE__, __LINE__, "%s: code %d (%s)", op, rc, tfc_status_msg(&s));
  EXPECT_CONTAINS(tfc_status_msg(&s), msg);
  for (int i = 0; i < 3; i++)
    if (outs[i]) tfc_tensor_unref(outs[i]);
  tfc_status_fini(&s);
}

static ku_attr str_attr(const char *name, const char *v) {
  tfc_status s;
  tfc_status_init(&s);
  ku_attr a = {name, {0}};
  if (tfc_attr_string(v, strlen(v), &a.value, &s)) tfc_test_fail(__FILE__, __LINE__, "attr");
  tfc_status_fini(&s);
  return a;
}

static void files_round_trip(void) {
  char dir[] = "/tmp/tfc_files_XXXXXX", path[256], cmd[300];
  EXPECT_TRUE(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/a/b/f.txt", dir);
  tfc_tensor *name = STR(path), *data = STR("line one\nline two\n");
  tfc_tensor *w[2] = {name, data};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("WriteFile", NULL, 0, w, 2, NULL, NULL, 0, &s), TFC_OK);
  tfc_tensor *got = run("ReadFile", NULL, 0, &name, 1);
  EXPECT_EQ(got->ndims, 0);
  EXPECT_STRS(got, "line one\nline two\n");
  snprintf(path, sizeof path, "%s/missing", dir);
  tfc_tensor *missing = STR(path);
  expect_error("ReadFile", NULL, 0, &missing, 1, TFC_NOT_FOUND, "/missing; No such file or directory");
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  EXPECT_EQ(system(cmd), 0);
  tfc_tensor *rest[] = {name, data, got, missing};
  for (int i = 0; i < 4; i++) tfc_tensor_unref(rest[i]);
  tfc_status_fini(&s);
}

static void formats_and_lengths_match_tensorflow(void) {
  tfc_tensor *f = ku_f32(DIMS(2), (const float[]){1.5f, 3.14159f});
  tfc_tensor *i = ku_i32(DIMS(2), (const int32_t[]){7, -12});
  tfc_tensor *b = ku_bool(DIMS(2), (const uint8_t[]){1, 0});
  ku_attr prec = {"precision", tfc_attr_int(2)}, sci = {"scientific", tfc_attr_bool(1)};
  ku_attr wf[2] = {{"width", tfc_attr_int(4)}, str_attr("fill", "0")};
  tfc_tensor *o[5] = {run("AsString", NULL, 0, &f, 1), run("AsString", &prec, 1, &f, 1), run("AsString", &sci, 1, &f, 1),
                      run("AsString", wf, 2, &i, 1), run("AsString", NULL, 0, &b, 1)};
  EXPECT_STRS(o[0], "1.500000", "3.141590");
  EXPECT_STRS(o[1], "1.50", "3.14");
  EXPECT_STRS(o[2], "1.500000e+00", "3.141590e+00");
  EXPECT_STRS(o[3], "0007", "-012");
  EXPECT_STRS(o[4], "true", "false");
  ku_attr sci2 = {"scientific", tfc_attr_bool(1)};
  expect_error("AsString", &sci2, 1, &i, 1, TFC_INVALID_ARGUMENT, "Cannot select scientific notation for non-float type");
  tfc_tensor *s = STRS("hello", "", "h\xc3\xa9llo");
  ku_attr utf8 = str_attr("unit", "UTF8_CHAR");
  tfc_tensor *len = run("StringLength", NULL, 0, &s, 1), *chars = run("StringLength", &utf8, 1, &s, 1);
  EXPECT_EQ(((int32_t *)len->data)[2], 6);
  EXPECT_EQ(((int32_t *)chars->data)[2], 5);
  EXPECT_EQ(((int32_t *)chars->data)[1], 0);
  for (int k = 0; k < 5; k++) tfc_tensor_unref(o[k]);
  tfc_tensor *rest[] = {f, i, b, s, len, chars};
  for (int k = 0; k < 6; k++) tfc_tensor_unref(rest[k]);
}

static void substr_and_numbers_match_tensorflow(void) {
  tfc_tensor *s = STRS("hello", "world"), *pos = ku_i32(DIMS(2), (const int32_t[]){1, -2});
  tfc_tensor *len = ku_i32(DIMS(2), (const int32_t[]){10, 1});
  tfc_tensor *in[3] = {s, pos, len};
  tfc_tensor *sub = run("Substr", NULL, 0, in, 3);
  EXPECT_STRS(sub, "ello", "l");
  tfc_tensor *one = STR("hello"), *p7 = ku_i32(NULL, 0, (const int32_t[]){7}), *l2 = ku_i32(NULL, 0, (const int32_t[]){2});
  tfc_tensor *bad[3] = {one, p7, l2};
  expect_error("Substr", NULL, 0, bad, 3, TFC_INVALID_ARGUMENT, "pos 7 out of range for string b'hello' at index 0");
  tfc_tensor *nums = STRS("1.5", "-2e3"), *ints = STRS("3", "-4"), *junk = STRS("abc");
  ku_attr i32 = {"out_type", tfc_attr_type(TFC_DT_INT32)};
  tfc_tensor *f = run("StringToNumber", NULL, 0, &nums, 1), *n = run("StringToNumber", &i32, 1, &ints, 1);
  EXPECT_EQ(((float *)f->data)[0], 1.5f);
  EXPECT_EQ(((float *)f->data)[1], -2000.0f);
  EXPECT_EQ(((int32_t *)n->data)[1], -4);
  expect_error("StringToNumber", NULL, 0, &junk, 1, TFC_INVALID_ARGUMENT,
               "StringToNumberOp could not correctly convert string: abc");
  expect_error("StringToNumber", &i32, 1, &nums, 1, TFC_INVALID_ARGUMENT,
               "StringToNumberOp could not correctly convert string: 1.5");
  tfc_tensor *rest[] = {s, pos, len, sub, one, p7, l2, nums, ints, junk, f, n};
  for (int k = 0; k < 12; k++) tfc_tensor_unref(rest[k]);
}

static void base64_is_web_safe(void) {
  tfc_tensor *s = STRS("a", "hello", "", "ab?>");
  ku_attr pad = {"pad", tfc_attr_bool(1)};
  tfc_tensor *e = run("EncodeBase64", NULL, 0, &s, 1), *ep = run("EncodeBase64", &pad, 1, &s, 1);
  EXPECT_STRS(e, "YQ", "aGVsbG8", "", "YWI_Pg");
  EXPECT_STRS(ep, "YQ==", "aGVsbG8=", "", "YWI_Pg==");
  tfc_tensor *d = run("DecodeBase64", NULL, 0, &ep, 1), *d2 = run("DecodeBase64", NULL, 0, &e, 1);
  EXPECT_STRS(d, "a", "hello", "", "ab?>");
  EXPECT_STRS(d2, "a", "hello", "", "ab?>");
  tfc_tensor *bad = STRS("Y!!!");
  expect_error("DecodeBase64", NULL, 0, &bad, 1, TFC_INVALID_ARGUMENT, "Invalid character found in base64.");
  tfc_tensor *rest[] = {s, e, ep, d, d2, bad};
  for (int k = 0; k < 6; k++) tfc_tensor_unref(rest[k]);
}

static void string_split_gives_sparse_parts(void) {
  tfc_tensor *s = STRS("a b", "c  d e", ""), *sp = STR(" "), *comma = STR(","), *none = STR("");
  tfc_tensor *in[2] = {s, sp};
  tfc_status st;
  tfc_status_init(&st);
  tfc_tensor *o[3] = {0};
  EXPECT_EQ(ku_run("StringSplit", NULL, 0, in, 2, NULL, o, 3, &st), TFC_OK);
  EXPECT_EQ(o[0]->dims[0], 5);
  const int64_t want_ind[10] = {0, 0, 0, 1, 1, 0, 1, 1, 1, 2};
  EXPECT_TRUE(!memcmp(o[0]->data, want_ind, sizeof want_ind));
  EXPECT_STRS(o[1], "a", "b", "c", "d", "e");
  EXPECT_EQ(((int64_t *)o[2]->data)[0], 3);
  EXPECT_EQ(((int64_t *)o[2]->data)[1], 3);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(o[k]);
  tfc_tensor *s2 = STRS("a,b", "c,,d");
  tfc_tensor *in2[2] = {s2, comma};
  ku_attr keep = {"skip_empty", tfc_attr_bool(0)};
  EXPECT_EQ(ku_run("StringSplit", &keep, 1, in2, 2, NULL, o, 3, &st), TFC_OK);
  EXPECT_STRS(o[1], "a", "b", "c", "", "d");
  for (int k = 0; k < 3; k++) tfc_tensor_unref(o[k]);
  tfc_tensor *in3[2] = {s2, none};
  EXPECT_EQ(ku_run("StringSplit", NULL, 0, in3, 2, NULL, o, 3, &st), TFC_OK);
  EXPECT_STRS(o[1], "a", ",", "b", "c", ",", ",", "d");
  EXPECT_EQ(((int64_t *)o[2]->data)[1], 4);
  for (int k = 0; k < 3; k++) tfc_tensor_unref(o[k]);
  tfc_tensor *rest[] = {s, sp, comma, none, s2};
  for (int k = 0; k < 5; k++) tfc_tensor_unref(rest[k]);
  tfc_status_fini(&st);
}

static const tfc_test tests[] = {
    TFC_TEST(files_round_trip),
    TFC_TEST(formats_and_lengths_match_tensorflow),
    TFC_TEST(substr_and_numbers_match_tensorflow),
    TFC_TEST(base64_is_web_safe),
    TFC_TEST(string_split_gives_sparse_parts),
    {0},
};

TFC_TEST_MAIN(tests)
