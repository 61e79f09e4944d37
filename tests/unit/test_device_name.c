/* Unit tests of device names: a table of parse cases (input -> printed form, or malformed),
 * then matching, merging (TF's error texts), override, clearing and canonicalization. */
#include "device/device_name.h"
#include "harness.h"

typedef struct parse_case {
  const char *in;
  const char *printed; /* NULL: malformed */
} parse_case;

static const parse_case parse_cases[] = {
    /* empty specs */
    {"", ""},
    {"/", ""},
    /* full names and their components in any order */
    {"/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"},
    {"/device:GPU:1/task:3/job:worker/replica:2", "/job:worker/replica:2/task:3/device:GPU:1"},
    {"/job:ps", "/job:ps"},
    {"/job:worker_1/task:12", "/job:worker_1/task:12"},
    {"/replica:0", "/replica:0"},
    {"/task:7", "/task:7"},
    {"/device:FakeGPU:3", "/device:FakeGPU:3"},
    {"/device:XLA_CPU:0", "/device:XLA_CPU:0"},
    /* type without id, wildcards */
    {"/device:GPU", "/device:GPU:*"},
    {"/device:GPU:*", "/device:GPU:*"},
    {"/device:*:2", "/device:*:2"},
    {"/device:*", ""},
    {"/job:*/replica:*/task:*/device:*:*", ""},
    {"/job:*/task:1", "/task:1"},
    /* legacy forms: cpu/gpu are upper-cased, other types are kept as written */
    {"/cpu:0", "/device:CPU:0"},
    {"/CPU:3", "/device:CPU:3"},
    {"/gpu:1", "/device:GPU:1"},
    {"/GPU:2", "/device:GPU:2"},
    {"/gpu:*", "/device:GPU:*"},
    {"/job:localhost/replica:0/task:0/cpu:0", "/job:localhost/replica:0/task:0/device:CPU:0"},
    {"/device:cpu:0", "/device:cpu:0"},
    /* TF's local names */
    {"CPU:0", "/device:CPU:0"},
    {"GPU:12", "/device:GPU:12"},
    /* a repeated component overwrites, as in TF's loop */
    {"/job:a/job:b", "/job:b"},
    /* the longest job (63) and type (31) names */
    {"/job:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/job:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
    {"/device:TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT:0", "/device:TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT:0"},
    /* malformed */
    {"/job:", NULL},
    {"/job:1abc", NULL},
    {"/job:a-b", NULL},
    {"/job:a/", NULL},
    {"/device:CPU:x", NULL},
    {"/device:CPU:0x", NULL},
    {"/device:", NULL},
    {"/device::0", NULL},
    {"/task:-1", NULL},
    {"/task:", NULL},
    {"/replica:+1", NULL},
    {"/replica:99999999999", NULL},
    {"/foo:bar", NULL},
    {"/cpu", NULL},
    {"/Cpu:0", NULL},
    {"cpu0", NULL},
    {"CPU", NULL},
    {"CPU:*", NULL},
    {"CPU:0/job:a", NULL},
    {"//job:a", NULL},
    {"job:a", NULL},
    {" /cpu:0", NULL},
    {"/job:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL}, /* 65 chars */
    {"/device:TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT:0", NULL},                            /* 32 chars */
};

static void parse_table_prints_canonical_forms_or_rejects(void) {
  for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
    const parse_case *c = &parse_cases[i];
    tfc_devname n;
    int rc = tfc_devname_parse(c->in, &n);
    if (!c->printed) {
      if (rc != -1) tfc_test_fail(__FILE__, __LINE__, "'%s' should be malformed", c->in);
      continue;
    }
    if (rc != 0) tfc_test_fail(__FILE__, __LINE__, "'%s' should parse", c->in);
    char buf[256];
    tfc_devname_str(&n, buf, sizeof buf);
    if (strcmp(buf, c->printed) != 0)
      tfc_test_fail(__FILE__, __LINE__, "'%s' printed '%s', want '%s'", c->in, buf, c->printed);
    /* The printed form parses back to the same name. */
    tfc_devname again;
    EXPECT_EQ(tfc_devname_parse(buf, &again), 0);
    char buf2[256];
    EXPECT_STREQ(tfc_devname_str(&again, buf2, sizeof buf2), buf);
  }
}

static void parse_fills_fields(void) {
  tfc_devname n;
  EXPECT_EQ(tfc_devname_parse("/job:w/replica:1/task:2/device:GPU:3", &n), 0);
  EXPECT_EQ(n.has_job, 1);
  EXPECT_STREQ(n.job, "w");
  EXPECT_EQ(n.has_replica && n.replica == 1, 1);
  EXPECT_EQ(n.has_task && n.task == 2, 1);
  EXPECT_EQ(n.has_type, 1);
  EXPECT_STREQ(n.type, "GPU");
  EXPECT_EQ(n.has_id && n.id == 3, 1);
  EXPECT_EQ(tfc_devname_is_complete(&n), 1);
  EXPECT_EQ(tfc_devname_parse("/device:GPU", &n), 0);
  EXPECT_EQ(n.has_type, 1);
  EXPECT_EQ(n.has_id, 0);
  EXPECT_EQ(n.has_job, 0);
  EXPECT_EQ(tfc_devname_is_complete(&n), 0);
  EXPECT_EQ(tfc_devname_parse(NULL, &n), 0);
  EXPECT_EQ(n.has_job | n.has_replica | n.has_task | n.has_type | n.has_id, 0);
  /* A malformed string leaves the empty name behind. */
  EXPECT_EQ(tfc_devname_parse("/job:a/task:x", &n), -1);
  EXPECT_EQ(n.has_job, 0);
}

static void str_truncates_to_capacity(void) {
  tfc_devname n;
  EXPECT_EQ(tfc_devname_parse("/job:localhost/device:CPU:0", &n), 0);
  char buf[8];
  EXPECT_STREQ(tfc_devname_str(&n, buf, sizeof buf), "/job:lo");
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_puts(&b, "x=");
  tfc_devname_print(&n, &b);
  EXPECT_STREQ(tfc_strbuf_str(&b), "x=/job:localhost/device:CPU:0");
  tfc_strbuf_fini(&b);
}

static int match(const char *spec, const char *full) {
  tfc_devname a, b;
  if (tfc_devname_parse(spec, &a) || tfc_devname_parse(full, &b))
    tfc_test_fail(__FILE__, __LINE__, "bad names %s %s", spec, full);
  return tfc_devname_matches(&a, &b);
}

static void matches_requires_every_set_field(void) {
  const char *full = "/job:localhost/replica:0/task:0/device:GPU:1";
  EXPECT_EQ(match("", full), 1);
  EXPECT_EQ(match("/job:localhost", full), 1);
  EXPECT_EQ(match("/job:worker", full), 0);
  EXPECT_EQ(match("/replica:0", full), 1);
  EXPECT_EQ(match("/replica:1", full), 0);
  EXPECT_EQ(match("/task:0/device:GPU", full), 1);
  EXPECT_EQ(match("/task:1", full), 0);
  EXPECT_EQ(match("/gpu:1", full), 1);
  EXPECT_EQ(match("/gpu:0", full), 0);
  EXPECT_EQ(match("/device:CPU:*", full), 0);
  EXPECT_EQ(match("/device:*:1", full), 1);
  EXPECT_EQ(match(full, full), 1);
  /* A field set in the spec but not in the other name does not match (TF's IsSpecification). */
  EXPECT_EQ(match("/job:localhost", "/device:GPU:1"), 0);
  EXPECT_EQ(match("/device:gpu:1", full), 0); /* types compare exactly */
}

/* Merges b into a; returns the printed result or the error text. */
static const char *merge(const char *a, const char *b, int soft, char *out, size_t cap) {
  tfc_devname x, y;
  if (tfc_devname_parse(a, &x) || tfc_devname_parse(b, &y))
    tfc_test_fail(__FILE__, __LINE__, "bad names %s %s", a, b);
  tfc_devname before = x;
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_devname_merge(&x, &y, soft, &s) == TFC_OK) {
    EXPECT_EQ(s.code, TFC_OK);
    tfc_devname_str(&x, out, cap);
  } else {
    EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
    EXPECT_EQ(memcmp(&before, &x, sizeof x), 0); /* unchanged on error */
    snprintf(out, cap, "%s", tfc_status_msg(&s));
  }
  tfc_status_fini(&s);
  return out;
}

static void merge_fills_unset_fields(void) {
  char b[256];
  EXPECT_STREQ(merge("/job:a", "/device:GPU:0", 0, b, sizeof b), "/job:a/device:GPU:0");
  EXPECT_STREQ(merge("", "/job:a/replica:1/task:2/cpu:3", 0, b, sizeof b),
               "/job:a/replica:1/task:2/device:CPU:3");
  EXPECT_STREQ(merge("/device:GPU", "/gpu:1", 0, b, sizeof b), "/device:GPU:1");
  EXPECT_STREQ(merge("/job:a/gpu:1", "/job:a/device:GPU", 0, b, sizeof b), "/job:a/device:GPU:1");
  EXPECT_STREQ(merge("/task:1", "/task:1", 0, b, sizeof b), "/task:1");
  EXPECT_STREQ(merge("/job:a", "", 0, b, sizeof b), "/job:a");
}

static void merge_conflicts_use_tf_texts(void) {
  char b[256];
  EXPECT_STREQ(merge("/job:a", "/job:b", 0, b, sizeof b),
               "Cannot merge devices with incompatible jobs: '/job:a' and '/job:b'");
  EXPECT_STREQ(merge("/replica:0", "/replica:1", 0, b, sizeof b),
               "Cannot merge devices with incompatible replicas: '/replica:0' and '/replica:1'");
  EXPECT_STREQ(merge("/task:0", "/task:1", 1, b, sizeof b),
               "Cannot merge devices with incompatible tasks: '/task:0' and '/task:1'");
  EXPECT_STREQ(merge("/device:GPU:0", "/device:CPU:0", 0, b, sizeof b),
               "Cannot merge devices with incompatible types: '/device:GPU:0' and '/device:CPU:0'");
  EXPECT_STREQ(merge("/gpu:0", "/gpu:1", 0, b, sizeof b),
               "Cannot merge devices with incompatible ids: '/device:GPU:0' and '/device:GPU:1'");
  /* TF words the error from the half-merged target: the job is already filled in. */
  EXPECT_STREQ(merge("/device:GPU:0", "/job:w/device:CPU:0", 0, b, sizeof b),
               "Cannot merge devices with incompatible types: '/job:w/device:GPU:0' and "
               "'/job:w/device:CPU:0'");
  /* Soft placement keeps job conflicts as errors. */
  EXPECT_STREQ(merge("/job:a/cpu:0", "/job:b/cpu:0", 1, b, sizeof b),
               "Cannot merge devices with incompatible jobs: '/job:a/device:CPU:0' and "
               "'/job:b/device:CPU:0'");
}

static void merge_soft_drops_type_and_id(void) {
  char b[256];
  /* A type conflict drops type and id together. */
  EXPECT_STREQ(merge("/job:a/device:GPU:0", "/device:CPU:1", 1, b, sizeof b), "/job:a");
  EXPECT_STREQ(merge("/device:GPU", "/cpu:1", 1, b, sizeof b), "");
  /* An id conflict drops the id only. */
  EXPECT_STREQ(merge("/gpu:0", "/gpu:1", 1, b, sizeof b), "/device:GPU:*");
  EXPECT_STREQ(merge("/task:2/gpu:0", "/device:GPU:3/replica:1", 1, b, sizeof b),
               "/replica:1/task:2/device:GPU:*");
}

static void merge_override_lets_other_win(void) {
  tfc_devname a, b;
  tfc_devname_parse("/job:a/replica:0/task:1/device:GPU:0", &a);
  tfc_devname_parse("/job:b/device:CPU", &b);
  tfc_devname_merge_override(&a, &b);
  char buf[128];
  EXPECT_STREQ(tfc_devname_str(&a, buf, sizeof buf), "/job:b/replica:0/task:1/device:CPU:0");
  tfc_devname_parse("/task:4/device:*:7", &b);
  tfc_devname_merge_override(&a, &b);
  EXPECT_STREQ(tfc_devname_str(&a, buf, sizeof buf), "/job:b/replica:0/task:4/device:CPU:7");
}

static void clear_type_id_keeps_address(void) {
  tfc_devname a;
  tfc_devname_parse("/job:w/replica:1/task:2/device:GPU:3", &a);
  tfc_devname_clear_type_id(&a);
  char buf[128];
  EXPECT_STREQ(tfc_devname_str(&a, buf, sizeof buf), "/job:w/replica:1/task:2");
  EXPECT_EQ(a.has_type || a.has_id, 0);
}

/* Canonicalizes name against base; returns the result or the error text. */
static const char *canon(const char *name, const char *base, char *out, size_t cap) {
  tfc_devname b;
  if (tfc_devname_parse(base, &b)) tfc_test_fail(__FILE__, __LINE__, "bad base %s", base);
  tfc_strbuf sb;
  tfc_strbuf_init(&sb);
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_devname_canonicalize(name, &b, &sb, &s) == TFC_OK) {
    snprintf(out, cap, "%s", tfc_strbuf_str(&sb));
  } else {
    EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
    snprintf(out, cap, "%s", tfc_status_msg(&s));
  }
  tfc_status_fini(&s);
  tfc_strbuf_fini(&sb);
  return out;
}

static void canonicalize_fills_from_base(void) {
  const char *base = "/job:localhost/replica:0/task:0/device:CPU:0";
  char b[256];
  EXPECT_STREQ(canon("/gpu:1", base, b, sizeof b), "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_STREQ(canon("GPU:2", base, b, sizeof b), "/job:localhost/replica:0/task:0/device:GPU:2");
  EXPECT_STREQ(canon("", base, b, sizeof b), base);
  EXPECT_STREQ(canon("/job:worker/task:3", base, b, sizeof b),
               "/job:worker/replica:0/task:3/device:CPU:0");
  EXPECT_STREQ(canon("/device:GPU", base, b, sizeof b), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_STREQ(canon("/device:GPU:x", base, b, sizeof b),
               "Could not parse /device:GPU:x into a device specification.");
  EXPECT_STREQ(canon("/gpu:0", "/job:localhost/device:CPU:0", b, sizeof b),
               "Basename: /job:localhost/device:CPU:0 should be fully specified.");
}

static const tfc_test tests[] = {
    TFC_TEST(parse_table_prints_canonical_forms_or_rejects),
    TFC_TEST(parse_fills_fields),
    TFC_TEST(str_truncates_to_capacity),
    TFC_TEST(matches_requires_every_set_field),
    TFC_TEST(merge_fills_unset_fields),
    TFC_TEST(merge_conflicts_use_tf_texts),
    TFC_TEST(merge_soft_drops_type_and_id),
    TFC_TEST(merge_override_lets_other_win),
    TFC_TEST(clear_type_id_keeps_address),
    TFC_TEST(canonicalize_fills_from_base),
    {0},
};

TFC_TEST_MAIN(tests)
