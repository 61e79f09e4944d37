/*
 * tfc_feed — the VALUE of `tfc run --feed NAME=VALUE`: text to the elements and shape of a
 * tensor of the fed output's dtype.
 *
 * VALUE is numpy-like: a scalar (3, -1.5e3, true, "text") or nested brackets of them
 * ([1,2,3], [[1,2],[3,4]], ["a","b c"]). Elements are separated by commas or whitespace (so a
 * printed result can be fed back). The shape comes from the brackets: [] is shape (0,),
 * [[],[]] is (2,0); lists at one depth must all have the same length. The dtype comes from the
 * graph, and every element must fit it exactly: an integer dtype takes integers (1e3 is one,
 * 1.5 is not) within its range, a float dtype takes numbers that do not overflow it (nan, inf
 * and -inf are numbers), bool takes true/false/True/False/1/0, and string takes quoted strings
 * ("..." or '...' with \\ \" \' \n \t \r \0 \a \b \f \v and \xHH escapes). A string feed also
 * takes an unquoted scalar, read as the bytes of VALUE itself (`--feed filename=/tmp/x`).
 *
 * The parser needs only the C library, dtype names (src/tensor/dtype.c) and the half and
 * bfloat16 roundings (src/base/philox.c), so the fuzzer (tests/fuzz/fuzz_feed.c) builds it
 * without the runtime. It allocates nothing but the value it returns and never reads past
 * the terminating NUL.
 */
#ifndef TFC_TOOLS_TFC_FEED_H
#define TFC_TOOLS_TFC_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/tf_datatype.h"

/* The deepest nesting a value may have (tfc's TFC_MAX_DIMS). */
#define TFC_FEED_MAX_DIMS 32

typedef struct tfc_feed_value {
  TF_DataType dtype;
  int n_dims;
  int64_t dims[TFC_FEED_MAX_DIMS];
  int64_t n_elems;
  /* Numeric and bool dtypes: n_elems elements of the dtype in row-major order, as
   * TF_TensorData lays them out (bool one byte each, half and bfloat16 as their bits). */
  void *data;
  /* TF_STRING: n_elems byte strings (strings[i] holds lengths[i] bytes plus a NUL). */
  char **strings;
  size_t *lengths;
} tfc_feed_value;

/* Parses `text` (NUL-terminated) as a value of `dtype` into *out, which the caller then owns
 * (tfc_feed_value_fini). Returns 0, or -1 with *out empty and a one-line reason in err (at
 * most err_len bytes, NUL-terminated) that quotes the offending element and names the dtype
 * but not the feed: the caller says which feed it was. Dtypes the command line cannot express
 * (complex, quantized, resource, variant) are refused with a reason, as is running out of
 * memory. */
int tfc_feed_parse(const char *text, TF_DataType dtype, tfc_feed_value *out, char *err, size_t err_len);

/* Frees what a successful parse allocated; leaves *v empty. Safe on an empty value. */
void tfc_feed_value_fini(tfc_feed_value *v);

/* Writes numpy's shape text for dims: "()", "(4,)", "(2, 3)"; dims[i] < 0 prints "?" (TF's
 * notation for an unknown size). Truncates to buf_len. */
void tfc_feed_shape_str(const int64_t *dims, int n_dims, char *buf, size_t buf_len);

#endif
