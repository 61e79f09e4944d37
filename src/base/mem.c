/* mem — see mem.h. */
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

void *tfc_aligned_alloc(size_t size) {
  size_t rounded = (size + TFC_ALIGN - 1) & ~(size_t)(TFC_ALIGN - 1);
  if (rounded == 0) rounded = TFC_ALIGN;
  return aligned_alloc(TFC_ALIGN, rounded);
}

void tfc_aligned_free(void *p) { free(p); }

char *tfc_strdup(const char *s) { return s ? strdup(s) : NULL; }

char *tfc_strndup(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) return NULL;
  if (n) memcpy(r, s, n);
  r[n] = '\0';
  return r;
}
