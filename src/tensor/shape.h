/*
 * shape — tensor shapes, fully or partly known. Used by shape inference on the graph
 * (rank -1 = unknown rank, dim -1 = unknown size) and for concrete tensor dims at run time.
 */
#ifndef TFC_TENSOR_SHAPE_H
#define TFC_TENSOR_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* TF allows up to 254 dimensions; no real graph comes near 32, and a fixed bound keeps
 * tensor headers allocation-free. Larger ranks are rejected with INVALID_ARGUMENT. */
#define TFC_MAX_DIMS 32

typedef struct tfc_shape {
  int rank; /* -1: unknown rank */
  int64_t dims[TFC_MAX_DIMS]; /* -1: unknown size */
} tfc_shape;

static inline tfc_shape tfc_shape_unknown(void) {
  tfc_shape s;
  s.rank = -1;
  return s;
}
tfc_shape tfc_shape_make(const int64_t *dims, int rank);
static inline tfc_shape tfc_shape_scalar(void) {
  tfc_shape s;
  s.rank = 0;
  return s;
}
tfc_shape tfc_shape_vector(int64_t n);
/* All dims known (and rank known). */
int tfc_shape_fully_defined(const tfc_shape *s);
/* Product of dims; -1 when not fully defined. Saturates at INT64_MAX on overflow. */
int64_t tfc_shape_num_elements(const tfc_shape *s);
/* Product of `dims`; -1 on overflow or a negative dim. Inline: every tensor allocation asks. */
static inline int64_t tfc_dims_num_elements(const int64_t *dims, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) return -1;
    if (dims[i] != 0 && n > INT64_MAX / dims[i]) return -1;
    n *= dims[i];
  }
  return n;
}
int tfc_shape_equal(const tfc_shape *a, const tfc_shape *b);
/* Compatible: could describe the same tensor (unknowns match anything). */
int tfc_shape_compatible(const tfc_shape *a, const tfc_shape *b);
/* Merges knowledge of a and b into out; returns 0, or -1 if they are incompatible. */
int tfc_shape_merge(const tfc_shape *a, const tfc_shape *b, tfc_shape *out);
/* TF's debug form: "[2,3]", "[?,3]", "<unknown>", "[]" for scalars. Writes into buf. */
const char *tfc_shape_str(const tfc_shape *s, char *buf, size_t n);
const char *tfc_dims_str(const int64_t *dims, int rank, char *buf, size_t n);
#define TFC_SHAPE_STR_MAX 400

#endif
