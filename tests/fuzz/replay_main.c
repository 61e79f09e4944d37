/* replay — runs a libFuzzer harness over saved inputs without libFuzzer, so the normal (gcc)
 * build and its sanitizer pass replay every seed and every input that once crashed.
 *
 * Linked with one tests/fuzz/fuzz_*.c file. Usage: replay_<harness> PATH...; each PATH is a
 * file or a directory whose regular files (not recursively, in name order, hidden files
 * skipped) are fed one at a time to LLVMFuzzerTestOneInput, after LLVMFuzzerInitialize when
 * the harness defines one. A PATH that does not exist is reported and skipped (a harness may
 * have no regression inputs yet). The harness signals a failure by crashing or aborting, as
 * under libFuzzer; the driver prints each input's name first so the log names the culprit.
 * Exits 0 when every input ran, 2 on a usage or read error.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 4096;
      uint8_t *b = realloc(buf, cap);
      if (!b) {
        fprintf(stderr, "%s: out of memory\n", path);
        free(buf);
        fclose(f);
        return -1;
      }
      buf = b;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    fprintf(stderr, "%s: read error\n", path);
    free(buf);
    return -1;
  }
  printf("replay %s (%zu bytes)\n", path, n);
  fflush(stdout);
  /* An exact-size copy, so ASan sees a read past the input's end. */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  if (n) memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return -1;
  }
  char **names = NULL;
  int n = 0, rc = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char **nn = realloc(names, sizeof *nn * (size_t)(n + 1));
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(len);
    if (!nn || !p) {
      free(p);
      if (nn) names = nn;
      rc = -1;
      break;
    }
    names = nn;
    snprintf(p, len, "%s/%s", dir, e->d_name);
    names[n++] = p;
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(names[i])) rc = -1;
      else (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      printf("replay: %s does not exist; skipped\n", argv[i]);
      continue;
    }
    int rc = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i]);
    if (rc == 0 && !S_ISDIR(st.st_mode)) count++;
    if (rc) return 2;
  }
  printf("replay: %d inputs ran\n", count);
  return 0;
}
