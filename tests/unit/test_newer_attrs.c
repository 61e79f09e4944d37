/*
 * test_newer_attrs — tfc's op table against the attrs current TensorFlow gives the same ops
 * (tests/fixtures/newer_attrs.inc, written by gen_newer_attrs.py from a real TensorFlow): every
 * attr is declared with TF's type and default, so NodeDefs written by that TensorFlow (which
 * carry every attr, defaults included) pass node validation. Also the attrs added after 1.15
 * stay out of the TF 1.15 views (Op<...> texts, exported OpDefs), and an attr no TensorFlow
 * has still fails with TF 1.15's text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "harness.h"
#include "ops/attr.h"
#include "ops/opdef.h"
#include "proto/attr_codec.h"
#include "tensorflow/c/c_api.h"

#include "../fixtures/newer_attrs.inc"

static void init_ops(void) {
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_ops_init(&s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops init: %s", tfc_status_msg(&s));
  tfc_status_fini(&s);
}

/* Empty lists compare equal whatever their element kind (TF's `list {}`). */
static int defaults_equal(const tfc_attr_value *a, const tfc_attr_value *b) {
  if (a->kind == TFC_ATTR_LIST && b->kind == TFC_ATTR_LIST && !a->u.list.n && !b->u.list.n) return 1;
  return tfc_attr_value_equal(a, b);
}

static void every_tf_attr_is_declared_with_its_type_and_default(void) {
  init_ops();
  tfc_strbuf bad;
  tfc_strbuf_init(&bad);
  int n_bad = 0;
  size_t n = sizeof newer_attrs / sizeof newer_attrs[0];
  EXPECT_TRUE(n > 400);
  for (size_t i = 0; i < n; i++) {
    const struct newer_attr_row *r = &newer_attrs[i];
    const tfc_opdef *op = tfc_op_lookup(r->op);
    const tfc_attr_def *ad = op ? tfc_opdef_attr(op, r->attr) : NULL;
    if (!ad) {
      tfc_strbuf_printf(&bad, "\n  %s.%s: not declared", r->op, r->attr);
      n_bad++;
      continue;
    }
    if (strcmp(ad->type_text, r->type) != 0) {
      tfc_strbuf_printf(&bad, "\n  %s.%s: type %s, TF has %s", r->op, r->attr, ad->type_text, r->type);
      n_bad++;
    }
    if (!r->dflt != !ad->has_default) {
      tfc_strbuf_printf(&bad, "\n  %s.%s: %s default, TF %s", r->op, r->attr, ad->has_default ? "has a" : "no",
                        r->dflt ? "has one" : "has none");
      n_bad++;
      continue;
    }
    if (!r->dflt) continue;
    tfc_status s;
    tfc_status_init(&s);
    tfc_attr_value v;
    if (tfc_attr_from_proto_bytes(r->dflt, r->dflt_len, &v, &s) != TFC_OK)
      tfc_test_fail(__FILE__, __LINE__, "%s.%s: %s", r->op, r->attr, tfc_status_msg(&s));
    if (!defaults_equal(&ad->default_value, &v)) {
      char x[256], y[256];
      tfc_attr_value_format(&ad->default_value, x, sizeof x);
      tfc_attr_value_format(&v, y, sizeof y);
      tfc_strbuf_printf(&bad, "\n  %s.%s: default %s, TF has %s", r->op, r->attr, x, y);
      n_bad++;
    }
    tfc_attr_value_fini(&v);
    tfc_status_fini(&s);
  }
  if (n_bad) tfc_test_fail(__FILE__, __LINE__, "%d attrs differ from TF's:%s", n_bad, tfc_strbuf_str(&bad));
  tfc_strbuf_fini(&bad);
}

/* The attrs TF added after 1.15 are marked so: they are the ones tfc does not write. */
static void later_attrs_are_marked_and_hidden_from_the_1_15_signature(void) {
  init_ops();
  const char *later[][2] = {{"MatMul", "grad_a"}, {"MatMul", "grad_b"}, {"BatchMatMul", "grad_x"},
                            {"BatchMatMulV2", "grad_y"}, {"ConcatOffset", "shape_type"},
                            {"MaxPool", "explicit_paddings"}, {"MaxPoolGrad", "explicit_paddings"},
                            {"VarHandleOp", "allowed_devices"}, {"VarHandleOp", "debug_name"},
                            {"AssignVariableOp", "validate_shape"}};
  for (size_t i = 0; i < sizeof later / sizeof later[0]; i++) {
    const tfc_attr_def *ad = tfc_opdef_attr(tfc_op_lookup(later[i][0]), later[i][1]);
    EXPECT_TRUE(ad && ad->added_later);
  }
  EXPECT_TRUE(!tfc_opdef_attr(tfc_op_lookup("MatMul"), "transpose_a")->added_later);
  char sig[2048];
  tfc_opdef_format(tfc_op_lookup("MatMul"), sig, sizeof sig);
  EXPECT_STREQ(sig, "Op<name=MatMul; signature=a:T, b:T -> product:T; attr=transpose_a:bool,default=false; "
                    "attr=transpose_b:bool,default=false; attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, "
                    "DT_DOUBLE, DT_INT32, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]>");
}

/* An arg typed by a later attr shows TF 1.15's fixed type: TopKV2's k: Tk and indices:
 * index_type were k: int32 and indices: int32, in the Op<...> text and in TF_GraphGetOpDef
 * (whose readers, such as op wrapper generators, would otherwise meet an undeclared attr). */
static void later_type_attr_args_show_their_1_15_type(void) {
  init_ops();
  char sig[2048];
  tfc_opdef_format(tfc_op_lookup("TopKV2"), sig, sizeof sig);
  EXPECT_STREQ(sig, "Op<name=TopKV2; signature=input:T, k:int32 -> values:T, indices:int32; "
                    "attr=sorted:bool,default=true; attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, "
                    "DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64]>");
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  TF_Buffer *buf = TF_NewBuffer();
  TF_GraphGetOpDef(g, "TopKV2", buf, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  int mentions_tk = 0, mentions_index_type = 0;
  for (size_t i = 0; i + 10 <= buf->length; i++) {
    mentions_tk += memcmp((const char *)buf->data + i, "\x02Tk", 3) == 0;
    mentions_index_type += memcmp((const char *)buf->data + i, "index_type", 10) == 0;
  }
  EXPECT_EQ(mentions_tk, 0);
  EXPECT_EQ(mentions_index_type, 0);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* TF_GraphGetOpDef gives TF 1.15's OpDef: no grad_a / grad_b. */
static void exported_opdef_leaves_later_attrs_out(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  TF_Buffer *buf = TF_NewBuffer();
  TF_GraphGetOpDef(g, "MatMul", buf, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  const char *p = buf->data;
  int has_grad = 0, has_transpose = 0;
  for (size_t i = 0; i + 6 <= buf->length; i++) {
    if (memcmp(p + i, "grad_a", 6) == 0) has_grad = 1;
    if (i + 11 <= buf->length && memcmp(p + i, "transpose_a", 11) == 0) has_transpose = 1;
  }
  EXPECT_TRUE(has_transpose);
  EXPECT_TRUE(!has_grad);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_Status *st) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  return TF_FinishOperation(d, st);
}

/* A MatMul built through the C API gets TF 1.15's attrs only; setting grad_a keeps it. */
static void later_attr_is_kept_when_set_and_absent_otherwise(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", st), *b = placeholder(g, "b", st);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "plain");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation *plain = TF_FinishOperation(d, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  unsigned char v = 7;
  TF_OperationGetAttrBool(plain, "grad_a", &v, st);
  EXPECT_EQ(TF_GetCode(st), TF_NOT_FOUND);
  TF_OperationGetAttrBool(plain, "transpose_a", &v, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  EXPECT_EQ(v, 0);
  d = TF_NewOperation(g, "MatMul", "marked");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_SetAttrBool(d, "grad_b", 1);
  TF_Operation *marked = TF_FinishOperation(d, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  TF_OperationGetAttrBool(marked, "grad_b", &v, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  EXPECT_EQ(v, 1);
  /* a later attr still has its type checked */
  d = TF_NewOperation(g, "MatMul", "wrong");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_SetAttrInt(d, "grad_a", 1);
  EXPECT_TRUE(TF_FinishOperation(d, st) == NULL);
  EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(st), "AttrValue had value with type 'int' when 'bool' expected for attr 'grad_a'");
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* An attr no TensorFlow has: TF 1.15's ValidateNodeDef text, word for word. */
static void unknown_attr_fails_with_tf_text(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  TF_Operation *a = placeholder(g, "a", st), *b = placeholder(g, "b", st);
  TF_OperationDescription *d = TF_NewOperation(g, "MatMul", "m");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_SetAttrBool(d, "grad_c", 1);
  EXPECT_TRUE(TF_FinishOperation(d, st) == NULL);
  EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(st),
               "NodeDef mentions attr 'grad_c' not in Op<name=MatMul; signature=a:T, b:T -> product:T; "
               "attr=transpose_a:bool,default=false; attr=transpose_b:bool,default=false; "
               "attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, "
               "DT_COMPLEX64, DT_COMPLEX128]>; NodeDef: {{node m}}. (Check whether your GraphDef-interpreting "
               "binary is up to date with your GraphDef-generating binary.).");
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* VarHandleOp: debug_name is kept; allowed_devices other than [] is refused, naming node,
 * attr and value (tfc cannot share a resource over devices). */
static void var_handle_allowed_devices_refused_unless_empty(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "VarHandleOp", "v");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_SetAttrString(d, "debug_name", "w", 1);
  TF_SetAttrStringList(d, "allowed_devices", NULL, NULL, 0);
  TF_Operation *v = TF_FinishOperation(d, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  char name[8] = {0};
  TF_OperationGetAttrString(v, "debug_name", name, sizeof name - 1, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  EXPECT_STREQ(name, "w");
  d = TF_NewOperation(g, "VarHandleOp", "shared");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  const void *devs[1] = {"/job:localhost/replica:0/task:0/device:CPU:1"};
  size_t lens[1] = {strlen(devs[0])};
  TF_SetAttrStringList(d, "allowed_devices", devs, lens, 1);
  EXPECT_TRUE(TF_FinishOperation(d, st) == NULL);
  EXPECT_EQ(TF_GetCode(st), TF_UNIMPLEMENTED);
  EXPECT_CONTAINS(TF_Message(st), "VarHandleOp 'shared': attr allowed_devices = ");
  EXPECT_CONTAINS(TF_Message(st), "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_CONTAINS(TF_Message(st), "is not supported");
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* A float vector constant. */
static TF_Operation *vec_const(TF_Graph *g, const char *name, const float *v, int64_t n, TF_Status *st) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, st);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  return TF_FinishOperation(d, st);
}

/* AssignVariableOp's validate_shape came after 1.15: a node built without it exports without
 * it (TF 1.15 can read the graph), and its kernel takes the default, false, so a value of
 * another shape replaces the variable's; set to true, the same assignment fails. */
static void assign_variable_validate_shape_defaults_when_absent(void) {
  for (int validate = 0; validate < 2; validate++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *st = TF_NewStatus();
    TF_OperationDescription *d = TF_NewOperation(g, "VarHandleOp", "v");
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    int64_t two = 2;
    TF_SetAttrShape(d, "shape", &two, 1);
    TF_Operation *v = TF_FinishOperation(d, st);
    float init[2] = {1, 2}, three[3] = {3, 4, 5};
    TF_Operation *c2 = vec_const(g, "c2", init, 2, st), *c3 = vec_const(g, "c3", three, 3, st);
    TF_Operation *assign[2];
    for (int k = 0; k < 2; k++) {
      d = TF_NewOperation(g, "AssignVariableOp", k ? "grow" : "init");
      TF_AddInput(d, (TF_Output){v, 0});
      TF_AddInput(d, (TF_Output){k ? c3 : c2, 0});
      TF_SetAttrType(d, "dtype", TF_FLOAT);
      if (k && validate) TF_SetAttrBool(d, "validate_shape", 1);
      assign[k] = TF_FinishOperation(d, st);
      EXPECT_EQ(TF_GetCode(st), TF_OK);
    }
    d = TF_NewOperation(g, "ReadVariableOp", "read");
    TF_AddInput(d, (TF_Output){v, 0});
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_Operation *read = TF_FinishOperation(d, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    unsigned char b = 7;
    TF_OperationGetAttrBool(assign[0], "validate_shape", &b, st);
    EXPECT_EQ(TF_GetCode(st), TF_NOT_FOUND);
    TF_Buffer *gd = TF_NewBuffer();
    TF_GraphToGraphDef(g, gd, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    int mentions = 0;
    for (size_t i = 0; i + 14 <= gd->length; i++) mentions += memcmp((const char *)gd->data + i, "validate_shape", 14) == 0;
    EXPECT_EQ(mentions, validate); /* only where the node sets it */
    TF_DeleteBuffer(gd);

    TF_SessionOptions *so = TF_NewSessionOptions();
    TF_Session *sess = TF_NewSession(g, so, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&assign[0], 1, NULL, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&assign[1], 1, NULL, st);
    TF_Output out = {read, 0};
    TF_Tensor *val = NULL;
    if (validate) {
      EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
      EXPECT_CONTAINS(TF_Message(st), "Trying to assign to variable with tensor with wrong shape. Expected [2] got [3]");
      TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &val, 1, NULL, 0, NULL, st);
      EXPECT_EQ(TF_GetCode(st), TF_OK);
      EXPECT_EQ(TF_Dim(val, 0), 2); /* the failed assignment left the variable as it was */
    } else {
      EXPECT_EQ(TF_GetCode(st), TF_OK);
      TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &val, 1, NULL, 0, NULL, st);
      EXPECT_EQ(TF_GetCode(st), TF_OK);
      EXPECT_EQ(TF_Dim(val, 0), 3);
      EXPECT_EQ(((float *)TF_TensorData(val))[2], 5.0f);
    }
    TF_DeleteTensor(val);
    TF_CloseSession(sess, st);
    TF_DeleteSession(sess, st);
    TF_DeleteSessionOptions(so);
    TF_DeleteStatus(st);
    TF_DeleteGraph(g);
  }
}

/* A constant of dtype dt, shape dims[nd], from the bytes of data. */
static TF_Operation *any_const(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd,
                               const void *data, size_t len, TF_Status *st) {
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, len);
  memcpy(TF_TensorData(t), data, len);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, st);
  TF_SetAttrType(d, "dtype", dt);
  TF_DeleteTensor(t);
  return TF_FinishOperation(d, st);
}

/* Runs output `out` of g in a new session: the value (caller deletes; NULL on failure), the
 * run's status in st. */
static TF_Tensor *run_one(TF_Graph *g, TF_Output out, TF_Status *st) {
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, st);
  TF_Tensor *val = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &val, 1, NULL, 0, NULL, st);
  TF_Status *cs = TF_NewStatus();
  TF_CloseSession(sess, cs);
  TF_DeleteSession(sess, cs);
  TF_DeleteStatus(cs);
  TF_DeleteSessionOptions(so);
  return val;
}

/* TopKV2's Tk and index_type (TF 2.16): an int64 k and int64 or int16 indices, as TF gives
 * them; without index_type the indices are int32 and the node has no such attr. */
static void top_k_takes_tk_and_index_type(void) {
  const TF_DataType types[] = {TF_INT64, TF_INT16, TF_INT32};
  for (int v = 0; v < 3; v++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *st = TF_NewStatus();
    float x[5] = {3, 1, 4, 1, 5};
    int64_t dims[2] = {1, 5}, k = 2;
    TF_Operation *xc = any_const(g, "x", TF_FLOAT, dims, 2, x, sizeof x, st);
    TF_Operation *kc = any_const(g, "k", TF_INT64, NULL, 0, &k, sizeof k, st);
    TF_OperationDescription *d = TF_NewOperation(g, "TopKV2", "top");
    TF_AddInput(d, (TF_Output){xc, 0});
    TF_AddInput(d, (TF_Output){kc, 0});
    if (types[v] != TF_INT32) TF_SetAttrType(d, "index_type", types[v]);
    TF_Operation *top = TF_FinishOperation(d, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    EXPECT_EQ(TF_OperationOutputType((TF_Output){top, 1}), types[v]);
    TF_DataType got_attr;
    TF_OperationGetAttrType(top, "index_type", &got_attr, st);
    EXPECT_EQ(TF_GetCode(st), types[v] == TF_INT32 ? TF_NOT_FOUND : TF_OK);
    TF_OperationGetAttrType(top, "Tk", &got_attr, st); /* inferred from the int64 k */
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    EXPECT_EQ(got_attr, TF_INT64);
    TF_Tensor *idx = run_one(g, (TF_Output){top, 1}, st);
    EXPECT_EQ(TF_GetCode(st), TF_OK);
    EXPECT_EQ(TF_TensorType(idx), types[v]);
    EXPECT_EQ(TF_Dim(idx, 1), 2);
    int64_t i0 = 0, i1 = 0;
    if (types[v] == TF_INT64) i0 = ((int64_t *)TF_TensorData(idx))[0], i1 = ((int64_t *)TF_TensorData(idx))[1];
    if (types[v] == TF_INT32) i0 = ((int32_t *)TF_TensorData(idx))[0], i1 = ((int32_t *)TF_TensorData(idx))[1];
    if (types[v] == TF_INT16) i0 = ((int16_t *)TF_TensorData(idx))[0], i1 = ((int16_t *)TF_TensorData(idx))[1];
    EXPECT_EQ(i0, 4);
    EXPECT_EQ(i1, 2);
    TF_DeleteTensor(idx);
    TF_DeleteStatus(st);
    TF_DeleteGraph(g);
  }
}

/* A TopKV2 built with an int32 k is TF 1.15's node: Tk, inferred as its default, is not
 * written, so TF_GraphToGraphDef's output imports into TF 1.15; it still runs. */
static void top_k_with_int32_k_writes_no_tk(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *st = TF_NewStatus();
  float x[3] = {1, 3, 2};
  int64_t dims[2] = {1, 3};
  int32_t k = 2;
  TF_Operation *xc = any_const(g, "x", TF_FLOAT, dims, 2, x, sizeof x, st);
  TF_Operation *kc = any_const(g, "k", TF_INT32, NULL, 0, &k, sizeof k, st);
  TF_OperationDescription *d = TF_NewOperation(g, "TopKV2", "top");
  TF_AddInput(d, (TF_Output){xc, 0});
  TF_AddInput(d, (TF_Output){kc, 0});
  TF_Operation *top = TF_FinishOperation(d, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  TF_DataType dt;
  TF_OperationGetAttrType(top, "Tk", &dt, st);
  EXPECT_EQ(TF_GetCode(st), TF_NOT_FOUND);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  for (size_t i = 0; i + 4 <= gd->length; i++)
    EXPECT_TRUE(memcmp((const char *)gd->data + i, "\x0a\x02Tk", 4) != 0); /* no attr key "Tk" */
  TF_DeleteBuffer(gd);
  TF_Tensor *idx = run_one(g, (TF_Output){top, 1}, st);
  EXPECT_EQ(TF_GetCode(st), TF_OK);
  EXPECT_EQ(((int32_t *)TF_TensorData(idx))[0], 1);
  EXPECT_EQ(((int32_t *)TF_TensorData(idx))[1], 2);
  TF_DeleteTensor(idx);
  TF_DeleteStatus(st);
  TF_DeleteGraph(g);
}

/* GatherNd / ScatterNd with bad_indices_policy (TF 2.17): IGNORE reads zeros or drops the
 * update, "" and ERROR fail with TF's text, an unknown policy with TF's. Values from TF 2.21. */
static void nd_ops_follow_bad_indices_policy(void) {
  const char *policies[] = {"IGNORE", "", "ERROR", "BOGUS"};
  for (int scatter = 0; scatter < 2; scatter++)
    for (int p = 0; p < 4; p++) {
      TF_Graph *g = TF_NewGraph();
      TF_Status *st = TF_NewStatus();
      float params[3] = {1, 2, 3}, upd[4] = {1, 2, 3, 4};
      int32_t gidx[3] = {1, 5, -1}, sidx[4] = {0, 7, 2, -1}, shape[1] = {4};
      int64_t three = 3, four = 4, gdims[2] = {3, 1}, sdims[2] = {4, 1};
      TF_OperationDescription *d;
      if (scatter) {
        TF_Operation *i = any_const(g, "i", TF_INT32, sdims, 2, sidx, sizeof sidx, st);
        TF_Operation *u = any_const(g, "u", TF_FLOAT, &four, 1, upd, sizeof upd, st);
        TF_Operation *s = any_const(g, "s", TF_INT32, (int64_t[]){1}, 1, shape, sizeof shape, st);
        d = TF_NewOperation(g, "ScatterNd", "nd");
        TF_AddInput(d, (TF_Output){i, 0});
        TF_AddInput(d, (TF_Output){u, 0});
        TF_AddInput(d, (TF_Output){s, 0});
      } else {
        TF_Operation *pc = any_const(g, "p", TF_FLOAT, &three, 1, params, sizeof params, st);
        TF_Operation *i = any_const(g, "i", TF_INT32, gdims, 2, gidx, sizeof gidx, st);
        d = TF_NewOperation(g, "GatherNd", "nd");
        TF_AddInput(d, (TF_Output){pc, 0});
        TF_AddInput(d, (TF_Output){i, 0});
      }
      if (*policies[p]) TF_SetAttrString(d, "bad_indices_policy", policies[p], strlen(policies[p]));
      TF_Operation *nd = TF_FinishOperation(d, st);
      EXPECT_EQ(TF_GetCode(st), TF_OK);
      TF_Tensor *val = run_one(g, (TF_Output){nd, 0}, st);
      if (p == 0) {
        EXPECT_EQ(TF_GetCode(st), TF_OK);
        const float *f = TF_TensorData(val);
        const float want_g[3] = {2, 0, 0}, want_s[4] = {1, 0, 3, 0};
        EXPECT_EQ(TF_Dim(val, 0), scatter ? 4 : 3);
        for (int k = 0; k < (scatter ? 4 : 3); k++) EXPECT_EQ(f[k], scatter ? want_s[k] : want_g[k]);
        TF_DeleteTensor(val);
      } else {
        EXPECT_TRUE(val == NULL);
        EXPECT_EQ(TF_GetCode(st), TF_INVALID_ARGUMENT);
        EXPECT_CONTAINS(TF_Message(st), p == 3 ? "Unknown bad indices handling attribute: BOGUS"
                                        : scatter ? "indices[1] = [7] does not index into shape [4]"
                                                  : "indices[1] = [5] does not index into param shape [3]");
      }
      TF_DeleteStatus(st);
      TF_DeleteGraph(g);
    }
}

static const tfc_test tests[] = {TFC_TEST(every_tf_attr_is_declared_with_its_type_and_default),
                                 TFC_TEST(later_attrs_are_marked_and_hidden_from_the_1_15_signature),
                                 TFC_TEST(exported_opdef_leaves_later_attrs_out),
                                 TFC_TEST(later_attr_is_kept_when_set_and_absent_otherwise),
                                 TFC_TEST(unknown_attr_fails_with_tf_text),
                                 TFC_TEST(var_handle_allowed_devices_refused_unless_empty),
                                 TFC_TEST(assign_variable_validate_shape_defaults_when_absent),
                                 TFC_TEST(top_k_takes_tk_and_index_type),
                                 TFC_TEST(later_type_attr_args_show_their_1_15_type),
                                 TFC_TEST(top_k_with_int32_k_writes_no_tk),
                                 TFC_TEST(nd_ops_follow_bad_indices_policy),
                                 {0}};
TFC_TEST_MAIN(tests)
