/*
 * capi_util — what the C API tests of the builders share (header-only: each test stays one
 * program): a status check, Const and two-input node builders, reading a TF-made fixture (a GraphDef into a new graph, or a
 * section of a text fixture), and a graph's nodes as text lines to compare with the node
 * lines TF's Python wrote (gen_capi_while*.py, gen_cf_builders.py).
 */
#ifndef TFC_TESTS_CAPI_UTIL_H
#define TFC_TESTS_CAPI_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"

/* Fails the test with the status's message unless it is OK. */
#define OK(s)                                                                                     \
  do {                                                                                            \
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "status: %s", TF_Message(s)); \
  } while (0)

/* A Const `name` of dtype dt and shape dims[ndims] (ndims 0: a scalar) holding the `bytes`
 * bytes at v; fails the test when the graph refuses it. */
static inline TF_Output capi_const(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int ndims,
                                   const void *v, size_t bytes, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(dt, dims, ndims, bytes);
  memcpy(TF_TensorData(t), v, bytes);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(t);
  return (TF_Output){op, 0};
}

/* Finishes d; fails the test when the graph refuses it. */
static inline TF_Operation *capi_finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteStatus(s);
  return op;
}

/* A node `name` of op `type` with inputs a and b; fails the test when the graph refuses it. */
static inline TF_Output capi_op2(TF_Graph *g, const char *type, const char *name, TF_Output a, TF_Output b,
                                 TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return (TF_Output){op, 0};
}

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

/* The number of operations in g. */
static inline int capi_num_ops(TF_Graph *g) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(g, &pos)) n++;
  return n;
}

/* The text of TFC_FIXTURE_DIR/file from the line after the first `header` up to the next
 * blank line (a new string; the caller frees it). Fails the test when there is no header. */
static inline char *capi_fixture_section(const char *file, const char *header) {
  TF_Buffer *b = capi_read_fixture(file);
  char *text = malloc(b->length + 1);
  memcpy(text, b->data, b->length);
  text[b->length] = 0;
  TF_DeleteBuffer(b);
  char *sec = strstr(text, header);
  if (!sec) tfc_test_fail(__FILE__, __LINE__, "no section %s in %s", header, file);
  char *start = strchr(sec, '\n') + 1, *end = strstr(start, "\n\n");
  if (end) end[1] = 0;
  char *out = strdup(start);
  free(text);
  return out;
}

enum {
  CAPI_DUMP_ENTER = 1, /* Enter nodes add " frame_name=F is_constant=B parallel_iterations=N" */
  CAPI_DUMP_CLASS = 2, /* nodes with a _class attr add " _class=loc:@a,..." */
};

/* g's nodes in graph order into buf, one line each: "name op in:k,in:k,^ctl" and what
 * `flags` adds (the format of the node lines in the fixtures). */
static inline void capi_dump_nodes(TF_Graph *g, char *buf, size_t cap, int flags) {
  size_t pos = 0, len = 0;
  TF_Operation *o;
  TF_Status *s = TF_NewStatus();
  buf[0] = 0;
  while ((o = TF_GraphNextOperation(g, &pos)) != NULL && len < cap) {
    len += (size_t)snprintf(buf + len, cap - len, "%s %s ", TF_OperationName(o), TF_OperationOpType(o));
    int n = TF_OperationNumInputs(o);
    for (int i = 0; i < n && len < cap; i++) {
      TF_Output src = TF_OperationInput((TF_Input){o, i});
      len += (size_t)snprintf(buf + len, cap - len, "%s%s:%d", i ? "," : "", TF_OperationName(src.oper), src.index);
    }
    TF_Operation *ctl[8];
    int nc = TF_OperationGetControlInputs(o, ctl, 8);
    for (int i = 0; i < nc && len < cap; i++)
      len += (size_t)snprintf(buf + len, cap - len, "%s^%s", n || i ? "," : "", TF_OperationName(ctl[i]));
    if ((flags & CAPI_DUMP_ENTER) && strcmp(TF_OperationOpType(o), "Enter") == 0 && len < cap) {
      char frame[128] = {0};
      int64_t pi = 0;
      unsigned char ic = 0;
      TF_OperationGetAttrString(o, "frame_name", frame, sizeof frame - 1, s);
      TF_OperationGetAttrInt(o, "parallel_iterations", &pi, s);
      TF_OperationGetAttrBool(o, "is_constant", &ic, s);
      OK(s);
      len += (size_t)snprintf(buf + len, cap - len, " frame_name=%s is_constant=%d parallel_iterations=%d", frame, ic,
                              (int)pi);
    }
    TF_AttrMetadata m = TF_OperationGetAttrMetadata(o, "_class", s);
    if ((flags & CAPI_DUMP_CLASS) && TF_GetCode(s) == TF_OK && m.list_size > 0 && len < cap) {
      void *vals[8];
      size_t lens[8];
      char store[512];
      int k = m.list_size < 8 ? (int)m.list_size : 8;
      TF_OperationGetAttrStringList(o, "_class", vals, lens, k, store, sizeof store, s);
      OK(s);
      len += (size_t)snprintf(buf + len, cap - len, " _class=");
      for (int i = 0; i < k && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%.*s", i ? "," : "", (int)lens[i], (const char *)vals[i]);
    }
    TF_SetStatus(s, TF_OK, "");
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "\n");
  }
  if (len >= cap) tfc_test_fail(__FILE__, __LINE__, "the graph's node lines pass %zu bytes", cap);
  TF_DeleteStatus(s);
}

/* Fails the test unless the node lines `got` (capi_dump_nodes) are exactly the lines at
 * `want` up to its end or a line starting with '=' (in any order; `what` names the case).
 * Returns where it stopped in want. */
static inline const char *capi_expect_node_lines(const char *got, const char *want, const char *what) {
  size_t total = 0;
  const char *line = want;
  while (*line && line[0] != '=') {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
    char *one = strndup(line, n); /* the line with its newline */
    if (!strstr(got, one)) tfc_test_fail(__FILE__, __LINE__, "%s: missing node line\n%sin:\n%s", what, one, got);
    free(one);
    total += n;
    line += n;
  }
  if (strlen(got) != total) tfc_test_fail(__FILE__, __LINE__, "%s: other nodes than TF's in:\n%s", what, got);
  return line;
}

#endif
