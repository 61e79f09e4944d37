/*
 * file — see file.h: the buffer doubles from 64 KiB until a read returns nothing.
 */
#include "io/file.h"

#include <stdio.h>
#include <stdlib.h>

int tfc_file_read_all(const char *path, char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  int rc = 0;
  do {
    if (len + 1 >= cap) { /* room for the bytes and the NUL after them */
      char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
      if (!b) {
        rc = -2;
        break;
      }
      buf = b;
    }
    got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
  } while (got > 0);
  if (!rc && ferror(f)) rc = -3;
  fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[len] = 0;
  *out = buf;
  *out_len = len;
  return 0;
}
