/* harness — see harness.h. */
#include "harness.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SKIP 77

static void (*on_fail)(void);

void tfc_test_on_fail(void (*fn)(void)) { on_fail = fn; }

void tfc_capture_begin(tfc_capture *c, int fd) {
  fflush(fd == 2 ? stderr : stdout);
  const char *dir = getenv("TMPDIR");
  snprintf(c->path, sizeof c->path, "%s/tfc_capture_XXXXXX", dir && *dir && strlen(dir) < 200 ? dir : "/tmp");
  c->fd = fd;
  c->file = mkstemp(c->path);
  c->saved = c->file >= 0 ? dup(fd) : -1;
  if (c->file < 0 || c->saved < 0 || dup2(c->file, fd) < 0)
    tfc_test_fail(__FILE__, __LINE__, "cannot capture file descriptor %d in %s", fd, c->path);
}

void tfc_capture_end(tfc_capture *c, char *out, size_t n) {
  fflush(c->fd == 2 ? stderr : stdout);
  dup2(c->saved, c->fd);
  close(c->saved);
  memset(out, 0, n);
  ssize_t got = n > 1 ? pread(c->file, out, n - 1, 0) : 0;
  close(c->file);
  unlink(c->path);
  if (got < 0) tfc_test_fail(__FILE__, __LINE__, "cannot read the capture of file descriptor %d", c->fd);
}

void tfc_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "    %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  void (*hook)(void) = on_fail;
  on_fail = NULL; /* a failure inside the hook ends the test */
  if (hook) hook();
  fflush(NULL);
  _exit(1);
}

/* In-process runs (TFC_TEST_NOFORK) skip by jumping back to run_one, not by exiting. */
static jmp_buf skip_jump;
static int in_process;

void tfc_test_skip(const char *why) {
  fprintf(stderr, "    skipped: %s\n", why);
  fflush(NULL);
  if (in_process) longjmp(skip_jump, 1);
  _exit(EXIT_SKIP);
}

static int run_one(const tfc_test *t, int timeout) {
  if (getenv("TFC_TEST_NOFORK")) {
    in_process = 1;
    if (setjmp(skip_jump)) return -1;
    t->fn();
    return 0;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    alarm((unsigned)timeout);
    t->fn();
    fflush(NULL);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st)) return WEXITSTATUS(st) == EXIT_SKIP ? -1 : WEXITSTATUS(st) != 0;
  if (WIFSIGNALED(st))
    fprintf(stderr, "    killed by signal %d%s\n", WTERMSIG(st),
            WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
  return 1;
}

int tfc_test_main(int argc, char **argv, const tfc_test *tests) {
  const char *filter = getenv("TFC_TEST_FILTER");
  if (argc > 1) filter = argv[1];
  int timeout = getenv("TFC_TEST_TIMEOUT") ? atoi(getenv("TFC_TEST_TIMEOUT")) : 120;
  int passed = 0, failed = 0, skipped = 0;
  for (const tfc_test *t = tests; t->name; t++) {
    if (filter && !strstr(t->name, filter)) continue;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int r = run_one(t, timeout);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    printf("%-4s %s (%.1f ms)\n", r < 0 ? "SKIP" : r ? "FAIL" : "ok", t->name, ms);
    if (r < 0) skipped++;
    else if (r) failed++;
    else passed++;
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
