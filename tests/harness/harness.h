/*
 * harness — tfc's fork-per-test runner. A test file lists its tests in a table and ends with
 * TFC_TEST_MAIN(table). Each test runs in a child process with a timeout, so a crash or a
 * hang fails that one test and the rest still run. The runner prints one line per test and
 * closes with "N passed, N failed" (plus ", N skipped").
 *
 *   static void shape_merge_fills_unknown_dims(void) { EXPECT_EQ(...); }
 *   static const tfc_test tests[] = {TFC_TEST(shape_merge_fills_unknown_dims), {0}};
 *   TFC_TEST_MAIN(tests)
 *
 * Environment: TFC_TEST_FILTER=substring runs the matching tests; TFC_TEST_NOFORK=1 runs them
 * in-process (for gdb); TFC_TEST_TIMEOUT=seconds (default 120).
 */
#ifndef TFC_TESTS_HARNESS_H
#define TFC_TESTS_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tfc_test {
  const char *name;
  void (*fn)(void);
} tfc_test;

#define TFC_TEST(fn) {#fn, fn}

int tfc_test_main(int argc, char **argv, const tfc_test *tests);
/* Marks the current test skipped (with a reason) and ends it. */
void tfc_test_skip(const char *why) __attribute__((noreturn));
void tfc_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* Registers fn to run when the current test fails, before the failure ends it (one hook; a
 * later call replaces it; NULL removes it). For helpers that hold context worth printing,
 * such as the output of processes the test started. */
void tfc_test_on_fail(void (*fn)(void));

/* Output capture, for tests of what tfc prints (log_device_placement, Print): begin sends file
 * descriptor fd (1: stdout, 2: stderr, flushed first) to a new temporary file; end flushes,
 * restores fd, removes the file and copies what was written into out (NUL-terminated, at most
 * n - 1 bytes). A failure to capture fails the test. */
typedef struct tfc_capture {
  int fd, saved, file;
  char path[256];
} tfc_capture;
void tfc_capture_begin(tfc_capture *c, int fd);
void tfc_capture_end(tfc_capture *c, char *out, size_t n);

#define TFC_TEST_MAIN(tests)                                                                       \
  int main(int argc, char **argv) { return tfc_test_main(argc, argv, tests); }

#define EXPECT_TRUE(c)                                                                             \
  do {                                                                                             \
    if (!(c)) tfc_test_fail(__FILE__, __LINE__, "expected true: %s", #c);                          \
  } while (0)
#define EXPECT_EQ(a, b)                                                                            \
  do {                                                                                             \
    long long ea_ = (long long)(a), eb_ = (long long)(b);                                          \
    if (ea_ != eb_) tfc_test_fail(__FILE__, __LINE__, "%s == %s: %lld vs %lld", #a, #b, ea_, eb_); \
  } while (0)
#define EXPECT_STREQ(a, b)                                                                         \
  do {                                                                                             \
    const char *ea_ = (a), *eb_ = (b);                                                             \
    if (!ea_ || !eb_ || strcmp(ea_, eb_))                                                          \
      tfc_test_fail(__FILE__, __LINE__, "%s == %s:\n  \"%s\"\n  \"%s\"", #a, #b,                  \
                    ea_ ? ea_ : "(null)", eb_ ? eb_ : "(null)");                                   \
  } while (0)
/* Substring check for error messages. */
#define EXPECT_CONTAINS(hay, needle)                                                               \
  do {                                                                                             \
    const char *eh_ = (hay), *en_ = (needle);                                                      \
    if (!eh_ || !strstr(eh_, en_))                                                                 \
      tfc_test_fail(__FILE__, __LINE__, "expected \"%s\" to contain \"%s\"", eh_ ? eh_ : "(null)", \
                    en_);                                                                          \
  } while (0)
/* |a - b| <= tol * max(1, |b|) */
#define EXPECT_NEAR(a, b, tol)                                                                     \
  do {                                                                                             \
    double ea_ = (double)(a), eb_ = (double)(b);                                                   \
    double scale_ = fabs(eb_) > 1 ? fabs(eb_) : 1;                                                 \
    if (!(fabs(ea_ - eb_) <= (tol) * scale_))                                                      \
      tfc_test_fail(__FILE__, __LINE__, "%s ~= %s: %.9g vs %.9g", #a, #b, ea_, eb_);              \
  } while (0)

#endif
