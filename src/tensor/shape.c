/* shape — see shape.h. */
#include "tensor/shape.h"

#include <stdio.h>
#include <string.h>

tfc_shape tfc_shape_make(const int64_t *dims, int rank) {
  tfc_shape s;
  s.rank = rank;
  for (int i = 0; i < rank && i < TFC_MAX_DIMS; i++) s.dims[i] = dims[i];
  return s;
}

tfc_shape tfc_shape_vector(int64_t n) {
  tfc_shape s;
  s.rank = 1;
  s.dims[0] = n;
  return s;
}

int tfc_shape_fully_defined(const tfc_shape *s) {
  if (s->rank < 0) return 0;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return 0;
  return 1;
}

int64_t tfc_shape_num_elements(const tfc_shape *s) {
  if (!tfc_shape_fully_defined(s)) return -1;
  return tfc_dims_num_elements(s->dims, s->rank);
}

int tfc_shape_equal(const tfc_shape *a, const tfc_shape *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return 0;
  return 1;
}

int tfc_shape_compatible(const tfc_shape *a, const tfc_shape *b) {
  if (a->rank < 0 || b->rank < 0) return 1;
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] >= 0 && b->dims[i] >= 0 && a->dims[i] != b->dims[i]) return 0;
  return 1;
}

int tfc_shape_merge(const tfc_shape *a, const tfc_shape *b, tfc_shape *out) {
  if (!tfc_shape_compatible(a, b)) return -1;
  if (a->rank < 0) { *out = *b; return 0; }
  if (b->rank < 0) { *out = *a; return 0; }
  tfc_shape r;
  r.rank = a->rank;
  for (int i = 0; i < a->rank; i++) r.dims[i] = a->dims[i] >= 0 ? a->dims[i] : b->dims[i];
  *out = r;
  return 0;
}

const char *tfc_dims_str(const int64_t *dims, int rank, char *buf, size_t n) {
  size_t off = 0;
  off += (size_t)snprintf(buf + off, n - off, "[");
  for (int i = 0; i < rank && off < n; i++) {
    if (dims[i] < 0)
      off += (size_t)snprintf(buf + off, n - off, "%s?", i ? "," : "");
    else
      off += (size_t)snprintf(buf + off, n - off, "%s%lld", i ? "," : "", (long long)dims[i]);
  }
  if (off < n) snprintf(buf + off, n - off, "]");
  return buf;
}

const char *tfc_shape_str(const tfc_shape *s, char *buf, size_t n) {
  if (s->rank < 0) {
    snprintf(buf, n, "<unknown>");
    return buf;
  }
  return tfc_dims_str(s->dims, s->rank, buf, n);
}
