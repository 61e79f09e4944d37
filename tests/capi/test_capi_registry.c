/* C API contract tests: the registries — TF_ApiDefMap against what TensorFlow's own C API
 * answers (tests/fixtures/gen_capi_registry.py), the kernel lists, TF_TryEvaluateConstant and
 * TF_RegisterLogListener. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/kernel_def.pb-c.h"

#include "../fixtures/capi_registry_tf.inc"

static TF_Buffer *from_hex(const char *h) {
  size_t n = strlen(h) / 2;
  unsigned char *b = malloc(n + 1);
  for (size_t i = 0; i < n; i++) sscanf(h + 2 * i, "%2hhx", &b[i]);
  TF_Buffer *buf = TF_NewBufferFromString(b, n);
  free(b);
  return buf;
}

static void expect_hex(const TF_Buffer *b, const char *want) {
  EXPECT_TRUE(b != NULL);
  char *h = malloc(b->length * 2 + 1);
  for (size_t i = 0; i < b->length; i++) sprintf(h + 2 * i, "%02x", ((const unsigned char *)b->data)[i]);
  h[b->length * 2] = '\0';
  EXPECT_STREQ(h, want);
  free(h);
}

static void api_def_map_merges_as_tensorflow_does(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *ol = from_hex(TF_APIDEF_OPLIST);
  TF_ApiDefMap *m = TF_NewApiDefMap(ol, s);
  OK(s);
  static const struct {
    const char *text;
    int code;
    const char *msg;
  } bad[] = {TF_APIDEF_BAD_PUTS};
  for (int i = 0; bad[i].text; i++) {
    TF_ApiDefMapPut(m, bad[i].text, strlen(bad[i].text), s);
    EXPECT_EQ((int)TF_GetCode(s), bad[i].code);
    EXPECT_STREQ(TF_Message(s), bad[i].msg);
  }
  const char *put = TF_APIDEF_PUT;
  TF_ApiDefMapPut(m, put, strlen(put), s);
  OK(s);
  TF_Buffer *foo = TF_ApiDefMapGet(m, "Foo", 3, s);
  OK(s);
  expect_hex(foo, TF_APIDEF_GET_FOO);
  TF_DeleteBuffer(foo);
  TF_Buffer *bar = TF_ApiDefMapGet(m, "Bar", 3, s);
  OK(s);
  expect_hex(bar, TF_APIDEF_GET_BAR);
  TF_DeleteBuffer(bar);
  /* an op not in the map: no ApiDef, and no error, as TF */
  EXPECT_TRUE(TF_ApiDefMapGet(m, "Nope", 4, s) == NULL);
  OK(s);
  static const struct {
    int code;
    const char *msg;
  } after = TF_APIDEF_PUT_AFTER_GET;
  TF_ApiDefMapPut(m, put, strlen(put), s);
  EXPECT_EQ((int)TF_GetCode(s), after.code);
  EXPECT_STREQ(TF_Message(s), after.msg);
  TF_DeleteApiDefMap(m);
  TF_DeleteBuffer(ol);
  /* not an OpList */
  TF_Buffer *junk = TF_NewBufferFromString("\xff\xff", 2);
  EXPECT_TRUE(TF_NewApiDefMap(junk, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(junk);
  TF_DeleteStatus(s);
}

static void api_def_map_of_all_ops_has_matmul(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *all = TF_GetAllOpList();
  TF_ApiDefMap *m = TF_NewApiDefMap(all, s);
  OK(s);
  const char *put = "op { graph_op_name: \"MatMul\" endpoint { name: \"linalg.matmul\" } }";
  TF_ApiDefMapPut(m, put, strlen(put), s);
  OK(s);
  TF_Buffer *b = TF_ApiDefMapGet(m, "MatMul", 6, s);
  OK(s);
  EXPECT_TRUE(b->length > 0);
  EXPECT_TRUE(memmem(b->data, b->length, "linalg.matmul", 13) != NULL);
  EXPECT_TRUE(memmem(b->data, b->length, "transpose_a", 11) != NULL);
  TF_DeleteBuffer(b);
  TF_DeleteApiDefMap(m);
  TF_DeleteBuffer(all);
  TF_DeleteStatus(s);
}

static Tensorflow__KernelList *kernels_for(const char *op, TF_Status *s) {
  TF_Buffer *b = op ? TF_GetRegisteredKernelsForOp(op, s) : TF_GetAllRegisteredKernels(s);
  OK(s);
  Tensorflow__KernelList *l = tensorflow__kernel_list__unpack(NULL, b->length, b->data);
  TF_DeleteBuffer(b);
  EXPECT_TRUE(l != NULL);
  return l;
}

static void kernel_lists_name_op_device_and_constraints(void) {
  TF_Status *s = TF_NewStatus();
  Tensorflow__KernelList *l = kernels_for("MatMul", s);
  EXPECT_TRUE(l->n_kernel >= 1);
  int float_seen = 0;
  for (size_t i = 0; i < l->n_kernel; i++) {
    Tensorflow__KernelDef *k = l->kernel[i];
    EXPECT_STREQ(k->op, "MatMul");
    if (strcmp(k->device_type, "CPU") != 0) continue;
    EXPECT_EQ((int)k->n_constraint, 1);
    EXPECT_STREQ(k->constraint[0]->name, "T");
    Tensorflow__AttrValue__ListValue *types = k->constraint[0]->allowed_values->list;
    for (size_t t = 0; t < types->n_type; t++) float_seen += types->type[t] == TENSORFLOW__DATA_TYPE__DT_FLOAT;
  }
  EXPECT_EQ(float_seen, 1);
  tensorflow__kernel_list__free_unpacked(l, NULL);
  l = kernels_for("NoSuchOp", s);
  EXPECT_EQ((int)l->n_kernel, 0);
  tensorflow__kernel_list__free_unpacked(l, NULL);
  /* a kernel registered at run time is listed too */
  TF_KernelBuilder *kb = TF_NewKernelBuilder("TfcListedOp", "CPU", NULL, NULL, NULL);
  TF_KernelBuilder_TypeConstraint(kb, "T", TF_INT64, s);
  TF_KernelBuilder_HostMemory(kb, "x");
  TF_RegisterKernelBuilder("TfcListedOpKernel", kb, s);
  OK(s);
  l = kernels_for("TfcListedOp", s);
  EXPECT_EQ((int)l->n_kernel, 1);
  EXPECT_STREQ(l->kernel[0]->device_type, "CPU");
  EXPECT_STREQ(l->kernel[0]->constraint[0]->name, "T");
  EXPECT_EQ(l->kernel[0]->constraint[0]->allowed_values->list->type[0], TENSORFLOW__DATA_TYPE__DT_INT64);
  EXPECT_STREQ(l->kernel[0]->host_memory_arg[0], "x");
  tensorflow__kernel_list__free_unpacked(l, NULL);
  l = kernels_for(NULL, s);
  int matmul = 0, listed = 0;
  for (size_t i = 0; i < l->n_kernel; i++) {
    matmul += !strcmp(l->kernel[i]->op, "MatMul");
    listed += !strcmp(l->kernel[i]->op, "TfcListedOp");
  }
  EXPECT_TRUE(l->n_kernel > 500);
  EXPECT_TRUE(matmul >= 1);
  EXPECT_EQ(listed, 1);
  tensorflow__kernel_list__free_unpacked(l, NULL);
  TF_DeleteStatus(s);
}

static void try_evaluate_constant_folds_what_tensorflow_folds(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float a[2] = {1, 2}, b[2] = {10, 20};
  TF_Output ca = capi_const(g, "a", TF_FLOAT, (int64_t[]){2}, 1, a, sizeof a, s);
  TF_Output cb = capi_const(g, "b", TF_FLOAT, (int64_t[]){2}, 1, b, sizeof b, s);
  TF_Output sum = capi_op2(g, "Add", "sum", ca, cb, s);
  TF_Tensor *r = NULL;
  EXPECT_EQ(TF_TryEvaluateConstant(g, sum, &r, s), 1);
  OK(s);
  EXPECT_EQ(((float *)TF_TensorData(r))[1], 22);
  TF_DeleteTensor(r);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Output p = {capi_finish(d), 0};
  TF_Output psum = capi_op2(g, "Add", "psum", ca, p, s);
  r = (TF_Tensor *)1;
  EXPECT_EQ(TF_TryEvaluateConstant(g, psum, &r, s), 0);
  OK(s);
  EXPECT_TRUE(r == NULL);
  /* stateful: random values are not constants */
  TF_Output shape = capi_const(g, "shape", TF_INT32, (int64_t[]){1}, 1, (int32_t[]){3}, 4, s);
  d = TF_NewOperation(g, "RandomUniform", "rnd");
  TF_AddInput(d, shape);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Output rnd = {capi_finish(d), 0};
  EXPECT_EQ(TF_TryEvaluateConstant(g, rnd, &r, s), 0);
  OK(s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static char heard[256];
static void listener(const char *line) { snprintf(heard, sizeof heard, "%s", line); }

static void log_listener_receives_print_lines(void) {
  TF_RegisterLogListener(listener);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float a[2] = {1, 2};
  TF_Output ca = capi_const(g, "a", TF_FLOAT, (int64_t[]){2}, 1, a, sizeof a, s);
  TF_OperationDescription *d = TF_NewOperation(g, "Print", "print");
  TF_AddInput(d, ca);
  TF_AddInputList(d, &ca, 1);
  TF_SetAttrString(d, "message", "a=", 2);
  TF_Output pr = {capi_finish(d), 0};
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &pr, &out, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_STREQ(heard, "a=[1 2]");
  TF_DeleteTensor(out);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(api_def_map_merges_as_tensorflow_does),
    TFC_TEST(api_def_map_of_all_ops_has_matmul),
    TFC_TEST(kernel_lists_name_op_device_and_constraints),
    TFC_TEST(try_evaluate_constant_folds_what_tensorflow_folds),
    TFC_TEST(log_listener_receives_print_lines),
    {0}};
TFC_TEST_MAIN(tests)
