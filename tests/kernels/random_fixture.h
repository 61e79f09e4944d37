/*
 * random_fixture — what the random-op fixture tests share (test_random.c,
 * test_stateless_random.c): their fixture file read whole, its lines, and the FNV-1a hash and
 * raw element bits their records compare outputs by. Header-only; include after harness.h.
 */
#ifndef TFC_TESTS_KERNELS_RANDOM_FIXTURE_H
#define TFC_TESTS_KERNELS_RANDOM_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/tensor.h"

/* FNV-1a 64 of n bytes: the generators' hash of an output's bytes. */
static inline uint64_t fnv1a64(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001B3ull;
  }
  return h;
}

/* Element i of t as its raw bits, zero-extended. */
static inline uint64_t elem_bits(const tfc_tensor *t, int64_t i) {
  size_t es = tfc_dtype_size(t->dtype);
  uint64_t v = 0;
  memcpy(&v, (const char *)t->data + (size_t)i * es, es); /* little-endian hosts */
  return v;
}

/* TFC_FIXTURE_DIR/name, whole and NUL-terminated (the caller frees it); fails the test when it
 * cannot be read. */
static inline char *read_fixture(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", TFC_FIXTURE_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) tfc_test_fail(__FILE__, __LINE__, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) tfc_test_fail(__FILE__, __LINE__, "read %s", path);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Next line of *p (NUL-terminated in place), or NULL at the end. */
static inline char *next_line(char **p) {
  if (!**p) return NULL;
  char *line = *p, *nl = strchr(line, '\n');
  if (nl) {
    *nl = '\0';
    *p = nl + 1;
  } else {
    *p = line + strlen(line);
  }
  return line;
}

#endif
