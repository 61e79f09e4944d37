/*
 * test_capi_graph — the C API contract of graph construction, operation queries, attr
 * setters/getters and tensor shapes on graph edges.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"

/* ---------------- helpers ---------------- */

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType t, const int64_t *dims,
                                 int ndims, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", t);
  if (ndims != -2) TF_SetAttrShape(d, "shape", dims, ndims);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  return op;
}

static TF_Operation *const_f32(TF_Graph *g, const char *name, const float *vals,
                               const int64_t *dims, int ndims, TF_Status *s) {
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, (size_t)n * sizeof(float));
  memcpy(TF_TensorData(t), vals, (size_t)n * sizeof(float));
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(t);
  return op;
}

static TF_Operation *binary(TF_Graph *g, const char *type, const char *name, TF_Output a,
                            TF_Output b, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return TF_FinishOperation(d, s);
}

static int count_ops(TF_Graph *g) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(g, &pos)) n++;
  return n;
}

/* ---------------- graphs and building ---------------- */

static void graph_new_and_delete_accept_null(void) {
  TF_Graph *g = TF_NewGraph();
  EXPECT_TRUE(g != NULL);
  EXPECT_EQ(count_ops(g), 0);
  TF_DeleteGraph(g);
  TF_DeleteGraph(NULL);
}

static void build_and_query_a_small_graph(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dims[] = {2, 3};
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, dims, 2, s);
  float cv[] = {1, 2, 3};
  int64_t cdims[] = {3};
  TF_Operation *c = const_f32(g, "c", cv, cdims, 1, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Add", "sum");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){c, 0});
  TF_SetDevice(d, "/device:CPU:0");
  TF_Operation *add = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_STREQ(TF_Message(s), "");

  EXPECT_STREQ(TF_OperationName(add), "sum");
  EXPECT_STREQ(TF_OperationOpType(add), "Add");
  EXPECT_STREQ(TF_OperationDevice(add), "/device:CPU:0");
  EXPECT_STREQ(TF_OperationDevice(x), "");
  EXPECT_EQ(TF_OperationNumOutputs(add), 1);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){add, 0}), TF_FLOAT);
  EXPECT_EQ(TF_OperationNumInputs(add), 2);
  EXPECT_EQ(TF_OperationInputType((TF_Input){add, 1}), TF_FLOAT);
  TF_Output in1 = TF_OperationInput((TF_Input){add, 1});
  EXPECT_TRUE(in1.oper == c);
  EXPECT_EQ(in1.index, 0);
  TF_Output all[2];
  TF_OperationAllInputs(add, all, 2);
  EXPECT_TRUE(all[0].oper == x);
  EXPECT_TRUE(all[1].oper == c);
  EXPECT_EQ(TF_OperationNumInputs(x), 0);

  EXPECT_TRUE(TF_GraphOperationByName(g, "sum") == add);
  EXPECT_TRUE(TF_GraphOperationByName(g, "x") == x);
  EXPECT_TRUE(TF_GraphOperationByName(g, "nope") == NULL);

  size_t pos = 0;
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == x);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == c);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == add);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);

  /* The inferred output shape is the broadcast of [2,3] and [3]. */
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){add, 0}, s), 2);
  int64_t out[2] = {0, 0};
  TF_GraphGetTensorShape(g, (TF_Output){add, 0}, out, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void duplicate_name_is_invalid_argument_and_graph_unchanged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  placeholder(g, "x", TF_FLOAT, NULL, -2, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_INT32);
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Duplicate node name in graph: 'x'");
  EXPECT_EQ(count_ops(g), 1);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){TF_GraphOperationByName(g, "x"), 0}), TF_FLOAT);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void unknown_op_is_not_found(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "NoSuchOp", "n");
  TF_SetAttrInt(d, "k", 3);
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Op type not registered 'NoSuchOp'");
  EXPECT_EQ(count_ops(g), 0);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void missing_attr_and_bad_input_type_are_invalid_argument(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "NodeDef missing attr 'dtype'");
  TF_Operation *f = placeholder(g, "f", TF_FLOAT, NULL, -2, s);
  TF_Operation *i = placeholder(g, "i", TF_INT32, NULL, -2, s);
  EXPECT_TRUE(binary(g, "Add", "bad", (TF_Output){f, 0}, (TF_Output){i, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Inconsistent values for attr 'T'");
  /* A setter error surfaces at finish. */
  d = TF_NewOperation(g, "Placeholder", "p2");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  int64_t bad[] = {-7};
  TF_SetAttrShape(d, "shape", bad, 1);
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "-7");
  EXPECT_EQ(count_ops(g), 2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void finish_clears_a_previous_error(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_SetStatus(s, TF_INTERNAL, "stale");
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, NULL, -2, s);
  EXPECT_TRUE(x != NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- list args, consumers, control edges ---------------- */

static void list_lengths_of_args(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, NULL, -2, s);
  TF_Output ins[3] = {{a, 0}, {a, 0}, {a, 0}};
  TF_OperationDescription *d = TF_NewOperation(g, "AddN", "addn");
  TF_AddInputList(d, ins, 3);
  TF_Operation *addn = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_OperationNumInputs(addn), 3);
  EXPECT_EQ(TF_OperationInputListLength(addn, "inputs", s), 3);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_OperationOutputListLength(addn, "sum", s), 1);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t n = 0;
  TF_OperationGetAttrInt(addn, "N", &n, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(TF_OperationInputListLength(addn, "foo", s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Input arg 'foo' not found");
  EXPECT_EQ(TF_OperationOutputListLength(addn, "bar", s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Output arg 'bar' not found");
  /* A single input where a list is expected. */
  d = TF_NewOperation(g, "AddN", "addn2");
  TF_AddInput(d, (TF_Output){a, 0});
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void consumers_and_control_edges(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, NULL, -2, s);
  TF_Operation *b = placeholder(g, "b", TF_FLOAT, NULL, -2, s);
  TF_Operation *m = binary(g, "Mul", "m", (TF_Output){a, 0}, (TF_Output){b, 0}, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *sq = binary(g, "Add", "sq", (TF_Output){a, 0}, (TF_Output){a, 0}, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);

  EXPECT_EQ(TF_OperationOutputNumConsumers((TF_Output){a, 0}), 3);
  TF_Input cons[4];
  EXPECT_EQ(TF_OperationOutputConsumers((TF_Output){a, 0}, cons, 4), 3);
  EXPECT_TRUE(cons[0].oper == m);
  EXPECT_EQ(cons[0].index, 0);
  EXPECT_TRUE(cons[1].oper == sq);
  EXPECT_EQ(cons[1].index, 0);
  EXPECT_TRUE(cons[2].oper == sq);
  EXPECT_EQ(cons[2].index, 1);
  /* A short array gets the first consumers; the total is still returned. */
  TF_Input one[1];
  EXPECT_EQ(TF_OperationOutputConsumers((TF_Output){a, 0}, one, 1), 3);
  EXPECT_TRUE(one[0].oper == m);
  EXPECT_EQ(TF_OperationOutputNumConsumers((TF_Output){b, 0}), 1);
  EXPECT_EQ(TF_OperationOutputNumConsumers((TF_Output){m, 0}), 0);

  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "init");
  TF_AddControlInput(d, m);
  TF_AddControlInput(d, sq);
  TF_AddControlInput(d, m); /* duplicates collapse */
  TF_Operation *init = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_OperationNumOutputs(init), 0);
  EXPECT_EQ(TF_OperationNumControlInputs(init), 2);
  TF_Operation *ctl[2] = {NULL, NULL};
  EXPECT_EQ(TF_OperationGetControlInputs(init, ctl, 2), 2);
  EXPECT_TRUE(ctl[0] == m);
  EXPECT_TRUE(ctl[1] == sq);
  EXPECT_EQ(TF_OperationNumControlInputs(m), 0);
  EXPECT_EQ(TF_OperationNumControlOutputs(m), 1);
  EXPECT_EQ(TF_OperationNumControlOutputs(init), 0);

  d = TF_NewOperation(g, "NoOp", "after");
  TF_AddControlInput(d, m);
  TF_Operation *after = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_OperationNumControlOutputs(m), 2);
  TF_Operation *outs[2] = {NULL, NULL};
  EXPECT_EQ(TF_OperationGetControlOutputs(m, outs, 2), 2);
  EXPECT_TRUE(outs[0] == init);
  EXPECT_TRUE(outs[1] == after);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void colocate_with_sets_class_attr(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, NULL, -2, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Identity", "id");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_ColocateWith(d, a);
  TF_Operation *id = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(id, "_class", s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(m.is_list, 1);
  EXPECT_EQ(m.list_size, 1);
  EXPECT_EQ(m.type, TF_ATTR_STRING);
  EXPECT_EQ(m.total_size, 6);
  void *vals[1];
  size_t lens[1];
  char storage[16];
  TF_OperationGetAttrStringList(id, "_class", vals, lens, 1, storage, sizeof storage, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(lens[0], 6);
  EXPECT_TRUE(memcmp(vals[0], "loc:@a", 6) == 0);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- attrs ---------------- */

/* Private attrs (leading '_') are accepted on any op, so one NoOp carries every kind. */
static TF_Operation *attr_carrier(TF_Graph *g, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "NoOp", "carrier");
  TF_SetAttrString(d, "_s", "ab\0cd", 5);
  const void *sv[] = {"x", "", "yz"};
  size_t sl[] = {1, 0, 2};
  TF_SetAttrStringList(d, "_sl", sv, sl, 3);
  TF_SetAttrInt(d, "_i", -42);
  int64_t iv[] = {1, -2, 1LL << 40};
  TF_SetAttrIntList(d, "_il", iv, 3);
  TF_SetAttrFloat(d, "_f", 2.5f);
  float fv[] = {0.5f, -1.25f};
  TF_SetAttrFloatList(d, "_fl", fv, 2);
  TF_SetAttrBool(d, "_b", 1);
  unsigned char bv[] = {0, 1, 1, 0};
  TF_SetAttrBoolList(d, "_bl", bv, 4);
  TF_SetAttrType(d, "_t", TF_INT64);
  TF_DataType tv[] = {TF_FLOAT, TF_STRING};
  TF_SetAttrTypeList(d, "_tl", tv, 2);
  int64_t shp[] = {-1, 4};
  TF_SetAttrShape(d, "_shape", shp, 2);
  TF_SetAttrShape(d, "_shape_unknown", NULL, -1);
  TF_SetAttrShape(d, "_shape_scalar", NULL, 0);
  int64_t s0[] = {2, 3}, s2[] = {7};
  const int64_t *shl[] = {s0, NULL, s2};
  int shn[] = {2, -1, 1};
  TF_SetAttrShapeList(d, "_shl", shl, shn, 3);
  TF_SetAttrPlaceholder(d, "_ph", "T");
  TF_SetAttrFuncName(d, "_fn", "my_func", 7);
  TF_SetAttrIntList(d, "_empty", NULL, 0);
  TF_SetAttrInt(d, "_replaced", 1);
  TF_SetAttrInt(d, "_replaced", 2);
  int64_t td[] = {2};
  TF_Tensor *t1 = TF_AllocateTensor(TF_INT32, td, 1, 8);
  ((int32_t *)TF_TensorData(t1))[0] = 5;
  ((int32_t *)TF_TensorData(t1))[1] = 6;
  TF_SetAttrTensor(d, "_tensor", t1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  ((int32_t *)TF_TensorData(t1))[0] = 99; /* the attr holds a copy */
  TF_Tensor *t2 = TF_AllocateTensor(TF_DOUBLE, NULL, 0, 8);
  *(double *)TF_TensorData(t2) = 0.25;
  TF_Tensor *tl[] = {t1, t2};
  TF_SetAttrTensorList(d, "_tensorl", tl, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(t1);
  TF_DeleteTensor(t2);
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  return op;
}

static void expect_meta(TF_Operation *op, const char *name, int is_list, int64_t list_size,
                        TF_AttrType type, int64_t total) {
  TF_Status *s = TF_NewStatus();
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(op, name, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", name, TF_Message(s));
  if (m.is_list != is_list || m.list_size != list_size || m.type != type || m.total_size != total)
    tfc_test_fail(__FILE__, __LINE__, "%s: metadata {%d, %lld, %d, %lld}", name, m.is_list,
                  (long long)m.list_size, (int)m.type, (long long)m.total_size);
  TF_DeleteStatus(s);
}

static void attr_metadata_of_every_kind(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = attr_carrier(g, s);
  expect_meta(op, "_s", 0, -1, TF_ATTR_STRING, 5);
  expect_meta(op, "_sl", 1, 3, TF_ATTR_STRING, 3);
  expect_meta(op, "_i", 0, -1, TF_ATTR_INT, -1);
  expect_meta(op, "_il", 1, 3, TF_ATTR_INT, -1);
  expect_meta(op, "_f", 0, -1, TF_ATTR_FLOAT, -1);
  expect_meta(op, "_fl", 1, 2, TF_ATTR_FLOAT, -1);
  expect_meta(op, "_b", 0, -1, TF_ATTR_BOOL, -1);
  expect_meta(op, "_bl", 1, 4, TF_ATTR_BOOL, -1);
  expect_meta(op, "_t", 0, -1, TF_ATTR_TYPE, -1);
  expect_meta(op, "_tl", 1, 2, TF_ATTR_TYPE, -1);
  expect_meta(op, "_shape", 0, -1, TF_ATTR_SHAPE, 2);
  expect_meta(op, "_shape_unknown", 0, -1, TF_ATTR_SHAPE, -1);
  expect_meta(op, "_shape_scalar", 0, -1, TF_ATTR_SHAPE, 0);
  expect_meta(op, "_shl", 1, 3, TF_ATTR_SHAPE, 3);
  expect_meta(op, "_tensor", 0, -1, TF_ATTR_TENSOR, -1);
  expect_meta(op, "_tensorl", 1, 2, TF_ATTR_TENSOR, -1);
  expect_meta(op, "_ph", 0, -1, TF_ATTR_PLACEHOLDER, -1);
  expect_meta(op, "_fn", 0, -1, TF_ATTR_FUNC, -1);
  expect_meta(op, "_empty", 1, 0, TF_ATTR_INT, -1);
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(op, "zz", s);
  (void)m;
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Operation 'carrier' has no attr named 'zz'.");
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void attr_metadata_of_empty_op_list_uses_op_def(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, NULL, -2, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Squeeze", "sq");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_Operation *sq = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  expect_meta(sq, "squeeze_dims", 1, 0, TF_ATTR_INT, -1);
  int64_t v[1] = {77};
  TF_OperationGetAttrIntList(sq, "squeeze_dims", v, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(v[0], 77); /* nothing written */
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void attr_scalar_round_trips(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = attr_carrier(g, s);
  char str[8] = {0};
  TF_OperationGetAttrString(op, "_s", str, sizeof str, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_TRUE(memcmp(str, "ab\0cd", 5) == 0);
  char two[2] = {0};
  TF_OperationGetAttrString(op, "_s", two, 2, s); /* truncated to max_length */
  EXPECT_TRUE(memcmp(two, "ab", 2) == 0);
  int64_t i = 0;
  TF_OperationGetAttrInt(op, "_i", &i, s);
  EXPECT_EQ(i, -42);
  TF_OperationGetAttrInt(op, "_replaced", &i, s);
  EXPECT_EQ(i, 2);
  float f = 0;
  TF_OperationGetAttrFloat(op, "_f", &f, s);
  EXPECT_NEAR(f, 2.5, 0);
  unsigned char b = 0;
  TF_OperationGetAttrBool(op, "_b", &b, s);
  EXPECT_EQ(b, 1);
  TF_DataType t = TF_FLOAT;
  TF_OperationGetAttrType(op, "_t", &t, s);
  EXPECT_EQ(t, TF_INT64);
  int64_t dims[2] = {0, 0};
  TF_OperationGetAttrShape(op, "_shape", dims, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 4);
  TF_Tensor *tv = NULL;
  TF_OperationGetAttrTensor(op, "_tensor", &tv, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_TensorType(tv), TF_INT32);
  EXPECT_EQ(TF_NumDims(tv), 1);
  EXPECT_EQ(TF_Dim(tv, 0), 2);
  EXPECT_EQ(((int32_t *)TF_TensorData(tv))[0], 5);
  EXPECT_EQ(((int32_t *)TF_TensorData(tv))[1], 6);
  ((int32_t *)TF_TensorData(tv))[0] = -1; /* the caller's copy */
  TF_DeleteTensor(tv);
  TF_OperationGetAttrTensor(op, "_tensor", &tv, s);
  EXPECT_EQ(((int32_t *)TF_TensorData(tv))[0], 5);
  TF_DeleteTensor(tv);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void attr_list_round_trips(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = attr_carrier(g, s);
  void *sv[3];
  size_t sl[3];
  char storage[3];
  TF_OperationGetAttrStringList(op, "_sl", sv, sl, 3, storage, sizeof storage, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(sl[0], 1);
  EXPECT_EQ(sl[1], 0);
  EXPECT_EQ(sl[2], 2);
  EXPECT_TRUE(memcmp(sv[0], "x", 1) == 0);
  EXPECT_TRUE(memcmp(sv[2], "yz", 2) == 0);
  EXPECT_TRUE((char *)sv[2] == storage + 1);
  TF_OperationGetAttrStringList(op, "_sl", sv, sl, 3, storage, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Not enough storage to hold the requested list of strings");

  int64_t iv[4] = {0, 0, 0, 9};
  TF_OperationGetAttrIntList(op, "_il", iv, 4, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(iv[0], 1);
  EXPECT_EQ(iv[1], -2);
  EXPECT_EQ(iv[2], 1LL << 40);
  EXPECT_EQ(iv[3], 9);
  int64_t first[1];
  TF_OperationGetAttrIntList(op, "_il", first, 1, s);
  EXPECT_EQ(first[0], 1);
  float fv[2];
  TF_OperationGetAttrFloatList(op, "_fl", fv, 2, s);
  EXPECT_NEAR(fv[0], 0.5, 0);
  EXPECT_NEAR(fv[1], -1.25, 0);
  unsigned char bv[4];
  TF_OperationGetAttrBoolList(op, "_bl", bv, 4, s);
  EXPECT_EQ(bv[0], 0);
  EXPECT_EQ(bv[1], 1);
  EXPECT_EQ(bv[2], 1);
  EXPECT_EQ(bv[3], 0);
  TF_DataType tv[2];
  TF_OperationGetAttrTypeList(op, "_tl", tv, 2, s);
  EXPECT_EQ(tv[0], TF_FLOAT);
  EXPECT_EQ(tv[1], TF_STRING);

  int64_t *dims[3];
  int nd[3];
  int64_t st[3];
  TF_OperationGetAttrShapeList(op, "_shl", dims, nd, 3, st, 3, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(nd[0], 2);
  EXPECT_EQ(nd[1], -1);
  EXPECT_EQ(nd[2], 1);
  EXPECT_EQ(dims[0][0], 2);
  EXPECT_EQ(dims[0][1], 3);
  EXPECT_EQ(dims[2][0], 7);
  EXPECT_TRUE(dims[2] == st + 2);
  TF_OperationGetAttrShapeList(op, "_shl", dims, nd, 3, st, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Not enough storage to hold the requested list of shapes");

  TF_Tensor *ts[2] = {NULL, NULL};
  TF_OperationGetAttrTensorList(op, "_tensorl", ts, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_TensorType(ts[0]), TF_INT32);
  EXPECT_EQ(((int32_t *)TF_TensorData(ts[0]))[0], 99); /* set after the first attr copy */
  EXPECT_EQ(TF_TensorType(ts[1]), TF_DOUBLE);
  EXPECT_EQ(TF_NumDims(ts[1]), 0);
  EXPECT_NEAR(*(double *)TF_TensorData(ts[1]), 0.25, 0);
  TF_DeleteTensor(ts[0]);
  TF_DeleteTensor(ts[1]);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void attr_getter_errors(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = attr_carrier(g, s);
  int64_t i;
  TF_OperationGetAttrInt(op, "missing", &i, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "No attr named 'missing' in NodeDef:");
  TF_OperationGetAttrInt(op, "_s", &i, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "AttrValue had value with type 'string' when 'int' expected");
  char buf[4];
  TF_OperationGetAttrString(op, "_i", buf, sizeof buf, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Attribute '_i' is not a string");
  TF_OperationGetAttrString(op, "missing", buf, sizeof buf, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Operation 'carrier' has no attr named 'missing'.");
  int64_t iv[2];
  TF_OperationGetAttrIntList(op, "_i", iv, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Value for '_i' is not a list.");
  TF_OperationGetAttrIntList(op, "_fl", iv, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "AttrValue had value with type 'list(float)' when 'list(int)' expected");
  void *sv[1];
  size_t sl[1];
  TF_OperationGetAttrStringList(op, "_s", sv, sl, 1, buf, sizeof buf, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Value for '_s' is not a list");
  TF_Tensor *t = (TF_Tensor *)1;
  TF_OperationGetAttrTensor(op, "_i", &t, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(t == NULL);
  float f;
  TF_OperationGetAttrFloat(op, "_fl", &f, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "AttrValue had value with type 'list(float)' when 'float' expected");
  int64_t dims[2];
  TF_OperationGetAttrShape(op, "_tl", dims, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void op_def_attrs_read_back_with_defaults(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", TF_FLOAT, NULL, -2, s);
  TF_Operation *b = placeholder(g, "b", TF_FLOAT, NULL, -2, s);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "mm");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_SetAttrBool(d, "transpose_b", 1);
  TF_Operation *mm = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  unsigned char ta = 9, tb = 9;
  TF_OperationGetAttrBool(mm, "transpose_a", &ta, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_OperationGetAttrBool(mm, "transpose_b", &tb, s);
  EXPECT_EQ(ta, 0);
  EXPECT_EQ(tb, 1);
  TF_DataType t;
  TF_OperationGetAttrType(mm, "T", &t, s); /* inferred from the inputs */
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(t, TF_FLOAT);
  /* Unknown-rank placeholder shape attr. */
  expect_meta(a, "shape", 0, -1, TF_ATTR_SHAPE, -1);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void set_attr_tensor_with_malformed_string_fails(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dims[] = {1};
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, 1, 4); /* no room for the offset */
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "c");
  TF_SetAttrTensor(d, "value", t, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Invalid TF_STRING tensor: insufficient memory");
  TF_SetAttrType(d, "dtype", TF_STRING);
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "NodeDef missing attr 'value'");
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void string_const_round_trips_through_attr(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  size_t size = 8 + TF_StringEncodedSize(3);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, size);
  memset(TF_TensorData(t), 0, 8);
  TF_StringEncode("abc", 3, (char *)TF_TensorData(t) + 8, size - 8, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "c");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *c = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Tensor *back = NULL;
  TF_OperationGetAttrTensor(c, "value", &back, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_TensorType(back), TF_STRING);
  EXPECT_EQ(TF_TensorByteSize(back), size);
  EXPECT_TRUE(memcmp(TF_TensorData(back), TF_TensorData(t), size) == 0);
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){c, 0}, s), 0);
  TF_DeleteTensor(back);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- shapes on edges ---------------- */

static void tensor_shapes_are_inferred_set_and_merged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t pd[] = {-1, 3};
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, pd, 2, s);
  TF_Output xo = {x, 0};
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, xo, s), 2);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t d[2];
  TF_GraphGetTensorShape(g, xo, d, 2, s);
  EXPECT_EQ(d[0], -1);
  EXPECT_EQ(d[1], 3);

  /* Merge fills the unknown dim. */
  int64_t set[] = {5, -1};
  TF_GraphSetTensorShape(g, xo, set, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_GraphGetTensorShape(g, xo, d, 2, s);
  EXPECT_EQ(d[0], 5);
  EXPECT_EQ(d[1], 3);
  /* Unknown rank merges as a no-op. */
  TF_GraphSetTensorShape(g, xo, NULL, -1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, xo, s), 2);

  /* Incompatible shapes are rejected and leave the shape alone. */
  int64_t bad[] = {6, 3};
  TF_GraphSetTensorShape(g, xo, bad, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  int64_t bad_rank[] = {5};
  TF_GraphSetTensorShape(g, xo, bad_rank, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_GraphGetTensorShape(g, xo, d, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(d[0], 5);

  /* Rank mismatch on read. */
  TF_GraphGetTensorShape(g, xo, d, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Expected rank is 1 but actual rank is 2");

  /* Bad output index. */
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){x, 1}, s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "output_port '1' is out of range, node 'x' has 1 outputs");
  TF_GraphSetTensorShape(g, (TF_Output){x, -1}, set, 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);

  /* Unknown rank stays -1 through the Identity; setting it refines downstream reads. */
  TF_Operation *u = placeholder(g, "u", TF_FLOAT, NULL, -2, s);
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){u, 0}, s), -1);
  TF_GraphGetTensorShape(g, (TF_Output){u, 0}, d, -1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t three[] = {1, 2, 3};
  TF_GraphSetTensorShape(g, (TF_Output){u, 0}, three, 3, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){u, 0}, s), 3);

  /* Shape inference sees the refined shape of later nodes' inputs. */
  TF_OperationDescription *od = TF_NewOperation(g, "Identity", "idu");
  TF_AddInput(od, (TF_Output){u, 0});
  TF_Operation *idu = TF_FinishOperation(od, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  int64_t d3[3];
  TF_GraphGetTensorShape(g, (TF_Output){idu, 0}, d3, 3, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_EQ(d3[2], 3);

  /* An operation of another graph. */
  TF_Graph *g2 = TF_NewGraph();
  EXPECT_EQ(TF_GraphGetTensorNumDims(g2, xo, s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Node x was not found in the graph");
  TF_DeleteGraph(g2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void inputs_from_another_graph_are_rejected(void) {
  TF_Graph *g1 = TF_NewGraph(), *g2 = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *x = placeholder(g1, "x", TF_FLOAT, NULL, -2, s);
  TF_OperationDescription *d = TF_NewOperation(g2, "Identity", "id");
  TF_AddInput(d, (TF_Output){x, 0});
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "another graph");
  d = TF_NewOperation(g1, "Identity", "id");
  TF_AddInput(d, (TF_Output){x, 3});
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g1);
  TF_DeleteGraph(g2);
}

/* ---------------- lifetime and threads ---------------- */

static void graph_deleted_while_used_is_freed_by_last_user(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  placeholder(g, "x", TF_FLOAT, NULL, -2, s);
  tfc_capi_graph_retain(g); /* two sessions */
  tfc_capi_graph_retain(g);
  TF_DeleteGraph(g);
  EXPECT_TRUE(TF_GraphOperationByName(g, "x") != NULL);
  tfc_capi_graph_release(g);
  EXPECT_TRUE(TF_GraphOperationByName(g, "x") != NULL);
  tfc_capi_graph_release(g); /* frees: the leak checkers confirm */
  /* A graph released by its sessions but not deleted stays. */
  g = TF_NewGraph();
  tfc_capi_graph_retain(g);
  tfc_capi_graph_release(g);
  EXPECT_EQ(count_ops(g), 0);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

typedef struct builder_arg {
  TF_Graph *g;
  int id;
  int ok;
} builder_arg;

static void *build_many(void *p) {
  builder_arg *a = p;
  TF_Status *s = TF_NewStatus();
  a->ok = 0;
  for (int i = 0; i < 200; i++) {
    char name[32];
    snprintf(name, sizeof name, "t%d/p%d", a->id, i);
    TF_OperationDescription *d = TF_NewOperation(a->g, "Placeholder", name);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    if (TF_FinishOperation(d, s)) a->ok++;
    size_t pos = 0;
    if (i % 50 == 0) /* readers race with writers */
      while (TF_GraphNextOperation(a->g, &pos)) (void)TF_GraphOperationByName(a->g, "t0/p0");
  }
  TF_DeleteStatus(s);
  return NULL;
}

static void concurrent_builders_all_succeed(void) {
  TF_Graph *g = TF_NewGraph();
  pthread_t th[4];
  builder_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (builder_arg){g, i, 0};
    pthread_create(&th[i], NULL, build_many, &args[i]);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) EXPECT_EQ(args[i].ok, 200);
  EXPECT_EQ(count_ops(g), 800);
  EXPECT_TRUE(TF_GraphOperationByName(g, "t3/p199") != NULL);
  TF_DeleteGraph(g);
}

/* ---------------- operation order and positions (TF's node ids) ---------------- */

/* Checks g's TF_GraphNextOperation listing (names and the pos left after each) against the
 * "op" lines that follow in f, up to "end". Returns the number of ops. */
static int expect_listing(TF_Graph *g, FILE *f, const char *what) {
  char line[512], name[256];
  size_t pos = 0;
  int n = 0, want_pos;
  while (fgets(line, sizeof line, f) && strncmp(line, "end", 3) != 0) {
    if (line[0] == '#') continue;
    if (sscanf(line, "op %255s %d", name, &want_pos) != 2)
      tfc_test_fail(__FILE__, __LINE__, "%s: bad expect line %s", what, line);
    TF_Operation *op = TF_GraphNextOperation(g, &pos);
    if (!op) tfc_test_fail(__FILE__, __LINE__, "%s: listing ends before %s", what, name);
    if (strcmp(TF_OperationName(op), name) != 0 || pos != (size_t)want_pos)
      tfc_test_fail(__FILE__, __LINE__, "%s: op %d is %s at pos %zu, TF lists %s at pos %d", what, n,
                    TF_OperationName(op), pos, name, want_pos);
    n++;
  }
  TF_Operation *extra = TF_GraphNextOperation(g, &pos);
  if (extra) tfc_test_fail(__FILE__, __LINE__, "%s: extra op %s", what, TF_OperationName(extra));
  return n;
}

/* One "import <graph> <prefix> [src:i=dst:j ...]" step of import_order.txt. */
static void import_step(TF_Graph *g, char *line, TF_Status *s) {
  char *save = NULL;
  strtok_r(line, " \n", &save); /* "import" */
  char *graph = strtok_r(NULL, " \n", &save), *prefix = strtok_r(NULL, " \n", &save);
  char file[300];
  snprintf(file, sizeof file, "import_order_%s.pb", graph);
  TF_Buffer *b = capi_read_fixture(file);
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  if (strcmp(prefix, "-") != 0) TF_ImportGraphDefOptionsSetPrefix(o, prefix);
  for (char *m; (m = strtok_r(NULL, " \n", &save));) {
    char src[128], dst[128];
    int si, di;
    EXPECT_EQ(sscanf(m, "%127[^:]:%d=%127[^:]:%d", src, &si, dst, &di), 4);
    TF_Operation *d = TF_GraphOperationByName(g, dst);
    EXPECT_TRUE(d != NULL);
    if (si < 0) TF_ImportGraphDefOptionsRemapControlDependency(o, src, d);
    else TF_ImportGraphDefOptionsAddInputMapping(o, src, si, (TF_Output){d, di});
  }
  TF_GraphImportGraphDef(g, b, o, s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(b);
}

/* tests/fixtures/gen_import_order.py: the order TF makes imported nodes in (file order among
 * the nodes whose inputs exist), its ids from 2 and the ids failed imports leave unused. */
static void capi_graph_import_order_matches_tf(void) {
  char path[1024], line[512], name[128];
  snprintf(path, sizeof path, "%s/import_order.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  TF_Status *s = TF_NewStatus();
  int n_cases = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "case %127s", name) != 1 || strcmp(name, "finish") == 0) continue;
    TF_Graph *g = TF_NewGraph();
    long at = ftell(f);
    int want_error = 0, code = 0;
    while (fgets(line, sizeof line, f) && strncmp(line, "op ", 3) != 0) {
      if (strncmp(line, "import ", 7) == 0) {
        if (want_error) tfc_test_fail(__FILE__, __LINE__, "%s: step succeeded, TF refused it", name);
        import_step(g, line, s);
        want_error = TF_GetCode(s) != TF_OK;
      } else if (sscanf(line, "error %d", &code) == 1) {
        if (!want_error) tfc_test_fail(__FILE__, __LINE__, "%s: step refused by TF succeeded", name);
        EXPECT_EQ(TF_GetCode(s), code);
        want_error = 0;
      }
      at = ftell(f);
    }
    if (want_error) tfc_test_fail(__FILE__, __LINE__, "%s: %s", name, TF_Message(s));
    fseek(f, at, SEEK_SET);
    EXPECT_TRUE(expect_listing(g, f, name) > 0);
    TF_DeleteGraph(g);
    n_cases++;
  }
  EXPECT_EQ(n_cases, 7);
  fclose(f);
  TF_DeleteStatus(s);
}

/* The "finish" case of import_order.txt: a TF_FinishOperation whose shape inference fails
 * uses an id (TF made the node first); type and name errors do not. */
static void capi_graph_finish_failures_use_tf_ids(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  float v[] = {1, 2};
  int64_t dims[] = {2};
  TF_Operation *a = const_f32(g, "a", v, dims, 1, s);
  TF_Tensor *it = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
  *(int32_t *)TF_TensorData(it) = 1;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "i");
  TF_SetAttrTensor(d, "value", it, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *i = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteTensor(it);
  EXPECT_TRUE(binary(g, "AddV2", "bad_type", (TF_Output){a, 0}, (TF_Output){i, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(binary(g, "MatMul", "bad_shape", (TF_Output){a, 0}, (TF_Output){a, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  d = TF_NewOperation(g, "Identity", "a");
  TF_AddInput(d, (TF_Output){a, 0});
  EXPECT_TRUE(TF_FinishOperation(d, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  d = TF_NewOperation(g, "Identity", "ok");
  TF_AddInput(d, (TF_Output){a, 0});
  EXPECT_TRUE(TF_FinishOperation(d, s) != NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OK);

  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/import_order.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  while (fgets(line, sizeof line, f) && strcmp(line, "case finish\n") != 0) {
  }
  EXPECT_EQ(expect_listing(g, f, "finish"), 3);
  fclose(f);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TF_GraphNextOperation's pos is TF's node id: 0 starts at id 2 (past _SOURCE and _SINK),
 * any other value moves to the next id, and at the end pos stops at the id count or past it. */
static void capi_graph_next_operation_positions_are_tf_ids(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  size_t pos = 0;
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);
  EXPECT_EQ(pos, 2);
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, NULL, -2, s);
  TF_Operation *y = placeholder(g, "y", TF_FLOAT, NULL, -2, s);
  TF_Operation *z = placeholder(g, "z", TF_FLOAT, NULL, -2, s);
  pos = 0;
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == x);
  EXPECT_EQ(pos, 2);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == y);
  EXPECT_EQ(pos, 3);
  pos = 1; /* the id after 1 */
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == x);
  EXPECT_EQ(pos, 2);
  pos = 3;
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == z);
  EXPECT_EQ(pos, 4);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);
  EXPECT_EQ(pos, 5);
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);
  EXPECT_EQ(pos, 6);
  pos = 40;
  EXPECT_TRUE(TF_GraphNextOperation(g, &pos) == NULL);
  EXPECT_EQ(pos, 41);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* tests/fixtures/gen_op_queries.py: TF_OpIsStateful and TF_GetNumberAttrForOpListInput give
 * TF's answers, codes and messages. */
static void capi_op_table_queries_match_tf(void) {
  char path[1024], line[512], op[128], want_name[128], msg[512];
  snprintf(path, sizeof path, "%s/op_queries.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  TF_Status *s = TF_NewStatus();
  int n = 0, want, code, index;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "stateful %127s %d %d", op, &want, &code) == 3) {
      TF_SetStatus(s, TF_ABORTED, "stale"); /* cleared by the call */
      EXPECT_EQ(TF_OpIsStateful(op, s), want);
      EXPECT_EQ(TF_GetCode(s), code);
      n++;
    } else if (sscanf(line, "number_attr %127s %d %127s %d", op, &index, want_name, &code) == 4) {
      const char *p = line;
      for (int k = 0; k < 5 && p; k++) /* the message follows 5 fields */
        if ((p = strchr(p, ' '))) p++;
      EXPECT_TRUE(p != NULL);
      snprintf(msg, sizeof msg, "%s", p);
      msg[strcspn(msg, "\n")] = '\0';
      TF_SetStatus(s, TF_ABORTED, "stale");
      const char *got = TF_GetNumberAttrForOpListInput(op, index, s);
      if (strcmp(want_name, "-") == 0) EXPECT_TRUE(got == NULL);
      else EXPECT_STREQ(got, want_name);
      EXPECT_EQ(TF_GetCode(s), code);
      if (strcmp(msg, "*") == 0) EXPECT_CONTAINS(TF_Message(s), "Op type not registered 'NoSuchOp'");
      else EXPECT_STREQ(TF_Message(s), msg);
      n++;
    }
  }
  EXPECT_EQ(n, 19);
  fclose(f);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(graph_new_and_delete_accept_null),
    TFC_TEST(build_and_query_a_small_graph),
    TFC_TEST(duplicate_name_is_invalid_argument_and_graph_unchanged),
    TFC_TEST(unknown_op_is_not_found),
    TFC_TEST(missing_attr_and_bad_input_type_are_invalid_argument),
    TFC_TEST(finish_clears_a_previous_error),
    TFC_TEST(list_lengths_of_args),
    TFC_TEST(consumers_and_control_edges),
    TFC_TEST(colocate_with_sets_class_attr),
    TFC_TEST(attr_metadata_of_every_kind),
    TFC_TEST(attr_metadata_of_empty_op_list_uses_op_def),
    TFC_TEST(attr_scalar_round_trips),
    TFC_TEST(attr_list_round_trips),
    TFC_TEST(attr_getter_errors),
    TFC_TEST(op_def_attrs_read_back_with_defaults),
    TFC_TEST(set_attr_tensor_with_malformed_string_fails),
    TFC_TEST(string_const_round_trips_through_attr),
    TFC_TEST(tensor_shapes_are_inferred_set_and_merged),
    TFC_TEST(inputs_from_another_graph_are_rejected),
    TFC_TEST(graph_deleted_while_used_is_freed_by_last_user),
    TFC_TEST(concurrent_builders_all_succeed),
    TFC_TEST(capi_graph_import_order_matches_tf),
    TFC_TEST(capi_graph_finish_failures_use_tf_ids),
    TFC_TEST(capi_graph_next_operation_positions_are_tf_ids),
    TFC_TEST(capi_op_table_queries_match_tf),
    {0}};

TFC_TEST_MAIN(tests)
