/* malloc_tune — see malloc_tune.h. */
#include "base/malloc_tune.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define TRIM_THRESHOLD (64 << 20)
#define MMAP_THRESHOLD (1 << 20)

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int user_chose(void) {
  const char *t = getenv("TFC_MALLOC_TUNE");
  if (t && strcmp(t, "0") == 0) return 1;
  if (getenv("MALLOC_TRIM_THRESHOLD_") || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TOP_PAD_")) return 1;
  const char *g = getenv("GLIBC_TUNABLES");
  return g && strstr(g, "glibc.malloc.") != NULL;
}

static void apply(void) {
#if defined(__GLIBC__)
  if (user_chose()) return;
  mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
  mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
#endif
}

void tfc_malloc_tune(void) { pthread_once(&once, apply); }
