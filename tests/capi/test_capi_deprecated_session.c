/* C API contract tests: the deprecated session API — graphs given as serialized GraphDefs,
 * tensors named "op:index", inputs taken by the call, errors naming what is missing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"

/* A GraphDef of x (float Placeholder), w (Const [2]) and y = Mul(x, w), serialized. */
static TF_Buffer *graphdef(int with_y2) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Output x = {capi_finish(d), 0};
  const float w[2] = {2, 3};
  TF_Output c = capi_const(g, "w", TF_FLOAT, (int64_t[]){2}, 1, w, sizeof w, s);
  capi_op2(g, "Mul", "y", x, c, s);
  TF_Buffer *b = TF_NewBuffer();
  if (with_y2) {
    /* only the new node: it refers to x and w, already in the session's graph */
    TF_Graph *g2 = TF_NewGraph();
    TF_Buffer *base = TF_NewBuffer();
    TF_GraphToGraphDef(g, base, s);
    TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
    TF_GraphImportGraphDef(g2, base, o, s);
    OK(s);
    capi_op2(g2, "Add", "y2", (TF_Output){TF_GraphOperationByName(g2, "x"), 0},
             (TF_Output){TF_GraphOperationByName(g2, "w"), 0}, s);
    TF_Operation *y2 = TF_GraphOperationByName(g2, "y2");
    TF_Buffer *nd = TF_NewBuffer();
    TF_OperationToNodeDef(y2, nd, s);
    OK(s);
    /* GraphDef { node (1): the NodeDef } */
    size_t n = nd->length;
    unsigned char *gd = malloc(n + 3);
    gd[0] = 0x0a;
    gd[1] = (unsigned char)(n & 0x7f) | (n > 127 ? 0x80 : 0);
    size_t at = 2;
    if (n > 127) gd[at++] = (unsigned char)(n >> 7);
    memcpy(gd + at, nd->data, n);
    TF_DeleteBuffer(b);
    b = TF_NewBufferFromString(gd, at + n);
    free(gd);
    TF_DeleteBuffer(nd);
    TF_DeleteImportGraphDefOptions(o);
    TF_DeleteBuffer(base);
    TF_DeleteGraph(g2);
  } else {
    TF_GraphToGraphDef(g, b, s);
  }
  OK(s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return b;
}

static TF_Tensor *vec2(float a, float b) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, (int64_t[]){2}, 1, 8);
  ((float *)TF_TensorData(t))[0] = a;
  ((float *)TF_TensorData(t))[1] = b;
  return t;
}

static void deprecated_session_extends_and_runs_by_name(void) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_DeprecatedSession *d = TF_NewDeprecatedSession(o, s);
  OK(s);
  TF_Buffer *gd = graphdef(0);
  TF_ExtendGraph(d, gd->data, gd->length, s);
  OK(s);
  const char *in_names[1] = {"x:0"};
  const char *out_names[2] = {"y:0", "w"};
  TF_Tensor *in[1] = {vec2(5, 7)};
  TF_Tensor *out[2] = {NULL, NULL};
  TF_Run(d, NULL, in_names, in, 1, out_names, out, 2, NULL, 0, NULL, s);
  OK(s);
  EXPECT_EQ(((float *)TF_TensorData(out[0]))[0], 10);
  EXPECT_EQ(((float *)TF_TensorData(out[0]))[1], 21);
  EXPECT_EQ(((float *)TF_TensorData(out[1]))[1], 3);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  /* a second extension adds y2 = x + w, and the session sees it */
  TF_Buffer *more = graphdef(1);
  TF_ExtendGraph(d, more->data, more->length, s);
  OK(s);
  const char *y2[1] = {"y2"};
  in[0] = vec2(1, 1);
  TF_Run(d, NULL, in_names, in, 1, y2, out, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_EQ(((float *)TF_TensorData(out[0]))[1], 4);
  TF_DeleteTensor(out[0]);
  /* the same nodes again: the import refuses the clash */
  TF_ExtendGraph(d, gd->data, gd->length, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeviceList *dl = TF_DeprecatedSessionListDevices(d, s);
  OK(s);
  EXPECT_TRUE(TF_DeviceListCount(dl) >= 1);
  EXPECT_STREQ(TF_DeviceListType(dl, 0, s), "CPU");
  TF_DeleteDeviceList(dl);
  TF_CloseDeprecatedSession(d, s);
  OK(s);
  in[0] = vec2(1, 1);
  TF_Run(d, NULL, in_names, in, 1, y2, out, 1, NULL, 0, NULL, s);
  EXPECT_TRUE(TF_GetCode(s) != TF_OK);
  TF_DeleteDeprecatedSession(d, s);
  OK(s);
  TF_DeleteBuffer(more);
  TF_DeleteBuffer(gd);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
}

static void deprecated_session_errors_name_what_is_missing(void) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_DeprecatedSession *d = TF_NewDeprecatedSession(o, s);
  TF_Buffer *gd = graphdef(0);
  TF_ExtendGraph(d, gd->data, gd->length, s);
  OK(s);
  const char *in_names[1] = {"x:0"};
  const char *bad_out[1] = {"nope:0"};
  TF_Tensor *in[1] = {vec2(1, 2)};
  TF_Tensor *out[1] = {(TF_Tensor *)1};
  TF_Run(d, NULL, in_names, in, 1, bad_out, out, 1, NULL, 0, NULL, s); /* takes in[0] */
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Fetch 'nope:0' not found in the graph");
  EXPECT_TRUE(out[0] == NULL);
  const char *bad_index[1] = {"y:3"};
  in[0] = vec2(1, 2);
  TF_Run(d, NULL, in_names, in, 1, bad_index, out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "y:3");
  const char *target[1] = {"missing_target"};
  in[0] = vec2(1, 2);
  TF_Run(d, NULL, in_names, in, 1, NULL, NULL, 0, target, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "missing_target");
  /* an unfed placeholder: the session's own error */
  const char *y[1] = {"y"};
  TF_Run(d, NULL, NULL, NULL, 0, y, out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "x");
  /* partial runs share TF_SessionPRunSetup's answer */
  const char *handle = (const char *)1;
  TF_PRunSetup(d, in_names, 1, y, 1, NULL, 0, &handle, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNIMPLEMENTED);
  EXPECT_TRUE(handle == NULL);
  in[0] = vec2(1, 2);
  TF_PRun(d, "h", in_names, in, 1, y, out, 1, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNIMPLEMENTED);
  /* not a GraphDef */
  TF_ExtendGraph(d, "\xff\xff\xff", 3, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteDeprecatedSession(d, s);
  TF_DeleteBuffer(gd);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(deprecated_session_extends_and_runs_by_name),
    TFC_TEST(deprecated_session_errors_name_what_is_missing),
    {0}};
TFC_TEST_MAIN(tests)
