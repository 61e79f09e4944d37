/*
 * Kernel tests: the regex string ops (StaticRegexFullMatch, RegexFullMatch, StaticRegexReplace,
 * RegexReplace) over RE2. Expected values and error texts were taken from TensorFlow
 * (tf.strings.regex_full_match / regex_replace, graph mode) on the same inputs.
 */
#include "harness.h"
#include "kernel_util.c"

static tfc_tensor *strs(int64_t n, const char *const *v, int scalar) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_STRING, &n, scalar ? 0 : 1, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  for (int64_t i = 0; i < t->n_elems; i++)
    if (tfc_tstring_assign(&tfc_tensor_strings(t)[i], v[i], strlen(v[i]), &s))
      tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return t;
}
#define STR(v) strs(1, (const char *[]){v}, 1)

/* The inputs every case runs on ("h\xc3\xa9llo" is "héllo" in UTF-8). */
static const char *const X[] = {"hello world", "Hello", "h\xc3\xa9llo", "", "abc123", "a\nb"};
#define NX 6

static ku_attr str_attr(const char *name, const char *v) {
  tfc_status s;
  tfc_status_init(&s);
  ku_attr a = {name, {0}};
  if (tfc_attr_string(v, strlen(v), &a.value, &s)) tfc_test_fail(__FILE__, __LINE__, "attr");
  tfc_status_fini(&s);
  return a;
}

static ku_attr bool_attr(const char *name, int v) {
  ku_attr a = {name, {0}};
  a.value.kind = TFC_ATTR_BOOL;
  a.value.u.b = v;
  return a;
}

/* Runs the static and the input form of full match on X; compares with want (0/1 chars). */
static void full_match(const char *pattern, const char *want, int line) {
  for (int form = 0; form < 2; form++) {
    tfc_tensor *ins[2] = {strs(NX, X, 0), STR(pattern)};
    ku_attr a = str_attr("pattern", pattern);
    tfc_tensor *out = NULL;
    tfc_status s;
    tfc_status_init(&s);
    int rc = form ? ku_run("RegexFullMatch", NULL, 0, ins, 2, NULL, &out, 1, &s)
                  : ku_run("StaticRegexFullMatch", &a, 1, ins, 1, NULL, &out, 1, &s);
    if (rc) tfc_test_fail(__FILE__, line, "%s: %s", pattern, tfc_status_msg(&s));
    tfc_attr_value_fini(&a.value);
    if (out->dtype != TFC_DT_BOOL || out->n_elems != NX) tfc_test_fail(__FILE__, line, "output not bool[%d]", NX);
    for (int i = 0; i < NX; i++)
      if (((uint8_t *)out->data)[i] != (want[i] == '1'))
        tfc_test_fail(__FILE__, line, "%s form %d: element %d is %d", pattern, form, i, ((uint8_t *)out->data)[i]);
    tfc_tensor_unref(out);
    for (int i = 0; i < 2; i++) tfc_tensor_unref(ins[i]);
    tfc_status_fini(&s);
  }
}

static void replace(const char *pattern, const char *rewrite, int global, const char *const *want, int line) {
  for (int form = 0; form < 2; form++) {
    tfc_tensor *ins[3] = {strs(NX, X, 0), STR(pattern), STR(rewrite)};
    ku_attr a[3] = {str_attr("pattern", pattern), str_attr("rewrite", rewrite), bool_attr("replace_global", global)};
    tfc_tensor *out = NULL;
    tfc_status s;
    tfc_status_init(&s);
    int rc = form ? ku_run("RegexReplace", a + 2, 1, ins, 3, NULL, &out, 1, &s)
                  : ku_run("StaticRegexReplace", a, 3, ins, 1, NULL, &out, 1, &s);
    if (rc) tfc_test_fail(__FILE__, line, "%s: %s", pattern, tfc_status_msg(&s));
    for (int i = 0; i < 3; i++) tfc_attr_value_fini(&a[i].value);
    if (out->dtype != TFC_DT_STRING || out->n_elems != NX) tfc_test_fail(__FILE__, line, "output not string[%d]", NX);
    for (int i = 0; i < NX; i++) {
      const tfc_tstring *g = &tfc_tensor_strings(out)[i];
      if (g->len != strlen(want[i]) || memcmp(g->data, want[i], g->len))
        tfc_test_fail(__FILE__, line, "%s form %d: element %d is '%.*s', expected '%s'", pattern, form, i,
                      (int)g->len, g->data, want[i]);
    }
    tfc_tensor_unref(out);
    for (int i = 0; i < 3; i++) tfc_tensor_unref(ins[i]);
    tfc_status_fini(&s);
  }
}
#define REPLACE(p, r, g, ...) replace(p, r, g, (const char *[]){__VA_ARGS__}, __LINE__)

static void full_match_is_re2s(void) {
  full_match("[a-z]+", "000000", __LINE__);
  full_match("h.llo", "001000", __LINE__); /* '.' is one UTF-8 character */
  full_match("(?i)h.llo.*", "111000", __LINE__);
  full_match("a.b", "000000", __LINE__); /* '.' does not match a newline ... */
  full_match("(?s)a.b", "000001", __LINE__); /* ... unless (?s) */
  full_match(".*\\d+", "000010", __LINE__);
  full_match("\\p{L}+", "011000", __LINE__);
}

static void replace_is_re2s(void) {
  REPLACE("[aeiou]", "_", 1, "h_ll_ w_rld", "H_ll_", "h\xc3\xa9ll_", "", "_bc123", "_\nb");
  REPLACE("[aeiou]", "_", 0, "h_llo world", "H_llo", "h\xc3\xa9ll_", "", "_bc123", "_\nb");
  REPLACE("(\\w+) (\\w+)", "\\2 \\1", 1, "world hello", "Hello", "h\xc3\xa9llo", "", "abc123", "a\nb");
  REPLACE("l*", "L", 1, "LhLeLoL LwLoLrLdL", "LHLeLoL", "LhL\xc3\xa9LoL", "L", "LaLbLcL1L2L3L", "LaL\nLbL");
  REPLACE("\xc3\xa9", "e", 1, "hello world", "Hello", "hello", "", "abc123", "a\nb");
  REPLACE(".", "\\\\", 1, "\\\\\\\\\\\\\\\\\\\\\\", "\\\\\\\\\\", "\\\\\\\\\\", "", "\\\\\\\\\\\\", "\\\n\\");
  /* a rewrite naming a group the pattern lacks replaces nothing (RE2's Replace refuses it) */
  REPLACE("(a)", "\\2", 1, "hello world", "Hello", "h\xc3\xa9llo", "", "abc123", "a\nb");
  REPLACE("(b)", "<\\1\\0>", 1, "hello world", "Hello", "h\xc3\xa9llo", "", "a<bb>c123", "a\n<bb>");
}

/* Bad patterns: the static forms fail when the kernel is made, the input forms when run; both
 * with TF's text. */
static void bad_patterns_are_invalid_argument(void) {
  const char *cases[][2] = {{"a(b", "Invalid pattern: a(b, error: missing ): a(b"},
                            {"(?P<n", "Invalid pattern: (?P<n, error: invalid named capture group: (?P<n"},
                            {"a**", "Invalid pattern: a**, error: bad repetition operator: **"}};
  for (int k = 0; k < 3; k++) {
    const char *ops[] = {"StaticRegexFullMatch", "RegexFullMatch", "StaticRegexReplace", "RegexReplace"};
    for (int o = 0; o < 4; o++) {
      tfc_tensor *ins[3] = {strs(NX, X, 0), STR(cases[k][0]), STR("x")};
      ku_attr a[3] = {str_attr("pattern", cases[k][0]), str_attr("rewrite", "x"), bool_attr("replace_global", 1)};
      int is_static = !(o & 1), n_attrs = o == 2 ? 3 : o == 0 ? 1 : o == 3 ? 1 : 0;
      const ku_attr *attrs = o == 3 ? a + 2 : a;
      tfc_tensor *out = NULL;
      tfc_status s;
      tfc_status_init(&s);
      int rc = ku_run(ops[o], attrs, n_attrs, ins, is_static ? 1 : o == 1 ? 2 : 3, NULL, &out, 1, &s);
      EXPECT_EQ(rc, TFC_INVALID_ARGUMENT);
      EXPECT_CONTAINS(tfc_status_msg(&s), cases[k][1]);
      EXPECT_TRUE(out == NULL);
      for (int i = 0; i < 3; i++) {
        tfc_tensor_unref(ins[i]);
        tfc_attr_value_fini(&a[i].value);
      }
      tfc_status_fini(&s);
    }
  }
}

static void pattern_inputs_must_be_scalars(void) {
  const char *two[] = {"a", "b"};
  tfc_tensor *ins[3] = {strs(NX, X, 0), strs(2, two, 0), STR("x")};
  tfc_tensor *out = NULL;
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(ku_run("RegexFullMatch", NULL, 0, ins, 2, NULL, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Shape must be rank 0 but is rank 1");
  tfc_status_fini(&s);
  tfc_status_init(&s);
  EXPECT_EQ(ku_run_unknown("RegexReplace", NULL, 0, ins, 3, &out, 1, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Pattern must be scalar, but received [2]");
  tfc_status_fini(&s);
  for (int i = 0; i < 3; i++) tfc_tensor_unref(ins[i]);
}

static const tfc_test tests[] = {
    TFC_TEST(full_match_is_re2s),
    TFC_TEST(replace_is_re2s),
    TFC_TEST(bad_patterns_are_invalid_argument),
    TFC_TEST(pattern_inputs_must_be_scalars),
    {0},
};

TFC_TEST_MAIN(tests)
