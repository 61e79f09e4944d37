/*
 * test_stitch — DynamicStitch and ParallelDynamicStitch against TensorFlow: every case of
 * tests/fixtures/stitch_expected.inc (written by gen_stitch.py with real TF) is built through
 * the C API from Consts and Placeholders as TF built it, checking TF's static output shape,
 * then run, checking TF's output values or TF's error text (shape-function errors at graph
 * build, kernel errors at run).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"

typedef struct stitch_input {
  int is_const, rank;
  int64_t dims[4];
  int static_rank; /* -2: unknown */
  int64_t static_dims[4];
  const double *vals;
  const char *const *strs;
  int64_t n;
} stitch_input;

typedef struct stitch_case {
  const char *name, *op;
  TF_DataType dtype;
  int n;
  stitch_input indices[2], data[2];
  int shape_rank; /* TF's static output shape; -2: unknown rank */
  int64_t shape_dims[4];
  int out_rank;
  int64_t out_dims[4];
  const double *out_vals;
  const char *const *out_strs;
  int64_t out_n;
  const char *error;
  int at_build;
} stitch_case;

#include "../fixtures/stitch_expected.inc"

static TF_Tensor *make_tensor(TF_DataType dt, const stitch_input *in) {
  if (dt == TF_STRING) {
    size_t bytes = (size_t)in->n * 8;
    for (int64_t i = 0; i < in->n; i++) bytes += TF_StringEncodedSize(strlen(in->strs[i]));
    TF_Tensor *t = TF_AllocateTensor(dt, in->dims, in->rank, bytes);
    char *base = TF_TensorData(t);
    size_t at = (size_t)in->n * 8;
    TF_Status *st = TF_NewStatus();
    for (int64_t i = 0; i < in->n; i++) {
      uint64_t off = at - (size_t)in->n * 8;
      memcpy(base + i * 8, &off, 8);
      at += TF_StringEncode(in->strs[i], strlen(in->strs[i]), base + at, bytes - at, st);
      EXPECT_EQ(TF_GetCode(st), TF_OK);
    }
    TF_DeleteStatus(st);
    return t;
  }
  TF_Tensor *t = TF_AllocateTensor(dt, in->dims, in->rank, TF_DataTypeSize(dt) * (size_t)in->n);
  void *p = TF_TensorData(t);
  for (int64_t i = 0; i < in->n; i++) {
    double v = in->vals[i];
    switch (dt) {
      case TF_FLOAT: ((float *)p)[i] = (float)v; break;
      case TF_DOUBLE: ((double *)p)[i] = v; break;
      case TF_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
      case TF_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
      case TF_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
      case TF_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
      case TF_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
      case TF_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
      case TF_BOOL: ((uint8_t *)p)[i] = v != 0; break;
      default: tfc_test_fail(__FILE__, __LINE__, "dtype %d", dt);
    }
  }
  return t;
}

static double element(const TF_Tensor *t, int64_t i) {
  const void *p = TF_TensorData(t);
  switch (TF_TensorType(t)) {
    case TF_FLOAT: return ((const float *)p)[i];
    case TF_DOUBLE: return ((const double *)p)[i];
    case TF_INT32: return ((const int32_t *)p)[i];
    case TF_INT64: return (double)((const int64_t *)p)[i];
    case TF_UINT8: return ((const uint8_t *)p)[i];
    case TF_INT8: return ((const int8_t *)p)[i];
    case TF_INT16: return ((const int16_t *)p)[i];
    case TF_UINT16: return ((const uint16_t *)p)[i];
    case TF_BOOL: return ((const uint8_t *)p)[i];
    default: tfc_test_fail(__FILE__, __LINE__, "dtype %d", TF_TensorType(t));
  }
}

typedef struct built {
  TF_Output feeds[4];
  TF_Tensor *feed_vals[4];
  int n_feeds;
} built;

static TF_Output input_node(TF_Graph *g, const char *name, TF_DataType dt, const stitch_input *in, built *b,
                            TF_Status *st) {
  TF_Tensor *t = make_tensor(dt, in);
  TF_OperationDescription *d = TF_NewOperation(g, in->is_const ? "Const" : "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (in->is_const) {
    TF_SetAttrTensor(d, "value", t, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
  } else if (in->static_rank != -2) {
    TF_SetAttrShape(d, "shape", in->static_dims, in->static_rank);
  }
  TF_Operation *op = TF_FinishOperation(d, st);
  if (TF_GetCode(st) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", name, TF_Message(st));
  TF_Output o = {op, 0};
  if (in->is_const) {
    TF_DeleteTensor(t);
  } else {
    b->feeds[b->n_feeds] = o;
    b->feed_vals[b->n_feeds++] = t;
  }
  return o;
}

static void run_case(const stitch_case *c) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  built b = {.n_feeds = 0};
  TF_Output ix[2], data[2];
  for (int i = 0; i < c->n; i++) {
    char name[32];
    snprintf(name, sizeof name, "indices%d", i);
    ix[i] = input_node(g, name, TF_INT32, &c->indices[i], &b, st);
    snprintf(name, sizeof name, "data%d", i);
    data[i] = input_node(g, name, c->dtype, &c->data[i], &b, st);
  }
  TF_OperationDescription *d = TF_NewOperation(g, c->op, "ds");
  TF_AddInputList(d, ix, c->n);
  TF_AddInputList(d, data, c->n);
  TF_Operation *op = TF_FinishOperation(d, st);
  if (c->error && c->at_build) {
    if (op) tfc_test_fail(__FILE__, __LINE__, "%s: built, TF fails with \"%s\"", c->name, c->error);
    EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
    char want[512];
    snprintf(want, sizeof want, "%s for 'ds' (op: '%s') with input shapes: ", c->error, c->op);
    EXPECT_CONTAINS(TF_Message(st), want);
    EXPECT_TRUE(strncmp(TF_Message(st), want, strlen(want)) == 0);
  } else {
    if (!op) tfc_test_fail(__FILE__, __LINE__, "%s: %s", c->name, TF_Message(st));
    TF_Output out = {op, 0};
    int rank = TF_GraphGetTensorNumDims(g, out, st);
    EXPECT_EQ(rank, c->shape_rank == -2 ? -1 : c->shape_rank);
    if (rank > 0) {
      int64_t dims[4];
      TF_GraphGetTensorShape(g, out, dims, rank, st);
      for (int i = 0; i < rank; i++) EXPECT_EQ(dims[i], c->shape_dims[i]);
    }
    TF_SessionOptions *opts = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, opts, st);
    TF_DeleteSessionOptions(opts);
    TF_Tensor *result = NULL;
    TF_SessionRun(sess, NULL, b.feeds, b.feed_vals, b.n_feeds, &out, &result, 1, NULL, 0, NULL, st);
    if (c->error) {
      EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
      EXPECT_TRUE(strncmp(TF_Message(st), c->error, strlen(c->error)) == 0 ||
                  (tfc_test_fail(__FILE__, __LINE__, "%s: \"%s\" does not start with TF's \"%s\"", c->name,
                                 TF_Message(st), c->error),
                   0));
    } else {
      if (TF_GetCode(st) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", c->name, TF_Message(st));
      EXPECT_EQ(TF_TensorType(result), c->dtype);
      EXPECT_EQ(TF_NumDims(result), c->out_rank);
      for (int i = 0; i < c->out_rank; i++) EXPECT_EQ(TF_Dim(result, i), c->out_dims[i]);
      EXPECT_EQ(TF_TensorElementCount(result), c->out_n);
      for (int64_t i = 0; i < c->out_n; i++) {
        if (c->dtype == TF_STRING) {
          const char *base = TF_TensorData(result);
          uint64_t off;
          memcpy(&off, base + i * 8, 8);
          const char *s = NULL;
          size_t len = 0;
          size_t hdr = (size_t)c->out_n * 8;
          TF_StringDecode(base + hdr + off, TF_TensorByteSize(result) - hdr - off, &s, &len, st);
          EXPECT_EQ(TF_GetCode(st), TF_OK);
          EXPECT_EQ(len, strlen(c->out_strs[i]));
          EXPECT_TRUE(memcmp(s, c->out_strs[i], len) == 0);
        } else if (element(result, i) != c->out_vals[i]) {
          tfc_test_fail(__FILE__, __LINE__, "%s: element %lld is %g, TF gives %g", c->name, (long long)i,
                        element(result, i), c->out_vals[i]);
        }
      }
      TF_DeleteTensor(result);
    }
    TF_CloseSession(sess, st);
    TF_DeleteSession(sess, st);
  }
  for (int i = 0; i < b.n_feeds; i++) TF_DeleteTensor(b.feed_vals[i]);
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* One test per op and kind, so a failure names what broke. */
static void run_matching(const char *op, int errors) {
  size_t n = sizeof stitch_cases / sizeof stitch_cases[0];
  int ran = 0;
  for (size_t i = 0; i < n; i++)
    if (strcmp(stitch_cases[i].op, op) == 0 && !stitch_cases[i].error == !errors) {
      run_case(&stitch_cases[i]);
      ran++;
    }
  EXPECT_TRUE(ran >= 5);
}
static void dynamic_stitch_values(void) { run_matching("DynamicStitch", 0); }
static void dynamic_stitch_errors(void) { run_matching("DynamicStitch", 1); }
static void parallel_dynamic_stitch_values(void) { run_matching("ParallelDynamicStitch", 0); }
static void parallel_dynamic_stitch_errors(void) { run_matching("ParallelDynamicStitch", 1); }

static const tfc_test tests[] = {TFC_TEST(dynamic_stitch_values), TFC_TEST(dynamic_stitch_errors),
                                 TFC_TEST(parallel_dynamic_stitch_values), TFC_TEST(parallel_dynamic_stitch_errors),
                                 {0}};
TFC_TEST_MAIN(tests)
