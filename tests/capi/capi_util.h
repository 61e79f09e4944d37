/*
 * capi_util — what the C API tests of the builders share (header-only: each test stays one
 * program): a status check and reading a TF-made GraphDef fixture, or loading it into a new graph.
 */
#ifndef TFC_TESTS_CAPI_UTIL_H
#define TFC_TESTS_CAPI_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"

/* Fails the test with the status's message unless it is OK. */
#define OK(s)                                                                                     \
  do {                                                                                            \
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "status: %s", TF_Message(s)); \
  } while (0)

/* The bytes of TFC_FIXTURE_DIR/file in a new buffer (the caller deletes it). */
static inline TF_Buffer *capi_read_fixture(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TFC_FIXTURE_DIR, file);
  FILE *f = fopen(path, "rb");
  if (!f) tfc_test_fail(__FILE__, __LINE__, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  EXPECT_TRUE(fread(data, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  TF_Buffer *buf = TF_NewBufferFromString(data, (size_t)n);
  free(data);
  return buf;
}

/* A new graph holding the GraphDef in TFC_FIXTURE_DIR/file (the caller deletes it). */
static inline TF_Graph *capi_load_fixture(const char *file) {
  TF_Buffer *buf = capi_read_fixture(file);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, o, s);
  OK(s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(s);
  return g;
}

#endif
