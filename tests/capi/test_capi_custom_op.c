/* C API contract tests: user-defined ops and kernels — op libraries loaded with
 * TF_LoadLibrary (examples/custom_op's ScaleBy and two bad libraries), ops and kernels
 * registered in-process through ops.h / kernels.h, their shape functions, and errors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/op_def.pb-c.h"

static TF_Library *load_scale_by(void) {
  TF_Status *s = TF_NewStatus();
  TF_Library *lib = TF_LoadLibrary(TFC_SCALE_BY_LIB, s);
  OK(s);
  TF_DeleteStatus(s);
  return lib;
}

/* Builds y = ScaleBy(x) (factor < -100: left to its default). */
static TF_Operation *scale_by(TF_Graph *g, const char *name, TF_Output x, int64_t factor, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "ScaleBy", name);
  TF_AddInput(d, x);
  if (factor >= -100) TF_SetAttrInt(d, "factor", factor);
  return TF_FinishOperation(d, s);
}

/* Runs the graph fetching out; returns the tensor (NULL on error, status in s). */
static TF_Tensor *run1(TF_Graph *g, TF_Output out, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Tensor *t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, s);
  TF_Status *s2 = TF_NewStatus();
  TF_CloseSession(sess, s2);
  TF_DeleteSession(sess, s2);
  TF_DeleteStatus(s2);
  TF_DeleteSessionOptions(o);
  return t;
}

static void load_library_lists_its_ops(void) {
  TF_Library *lib = load_scale_by();
  TF_Buffer b = TF_GetOpList(lib);
  Tensorflow__OpList *ol = tensorflow__op_list__unpack(NULL, b.length, b.data);
  EXPECT_TRUE(ol != NULL);
  EXPECT_EQ((int)ol->n_op, 1);
  Tensorflow__OpDef *od = ol->op[0];
  EXPECT_STREQ(od->name, "ScaleBy");
  EXPECT_EQ((int)od->n_input_arg, 1);
  EXPECT_STREQ(od->input_arg[0]->name, "x");
  EXPECT_STREQ(od->input_arg[0]->type_attr, "T");
  EXPECT_EQ((int)od->n_output_arg, 1);
  EXPECT_STREQ(od->output_arg[0]->name, "y");
  EXPECT_EQ((int)od->n_attr, 2);
  EXPECT_STREQ(od->attr[0]->name, "T");
  EXPECT_STREQ(od->attr[0]->type, "type");
  EXPECT_EQ((int)od->attr[0]->allowed_values->list->n_type, 2);
  EXPECT_EQ(od->attr[0]->allowed_values->list->type[0], TENSORFLOW__DATA_TYPE__DT_FLOAT);
  EXPECT_EQ(od->attr[0]->allowed_values->list->type[1], TENSORFLOW__DATA_TYPE__DT_INT32);
  EXPECT_STREQ(od->attr[1]->name, "factor");
  EXPECT_STREQ(od->attr[1]->type, "int");
  EXPECT_EQ((int)od->attr[1]->default_value->i, 2);
  tensorflow__op_list__free_unpacked(ol, NULL);

  /* Loading it again (no constructor runs) gives the same OpList. */
  TF_Library *again = load_scale_by();
  TF_Buffer b2 = TF_GetOpList(again);
  EXPECT_EQ(b2.length, b.length);
  EXPECT_TRUE(memcmp(b2.data, b.data, b.length) == 0);
  TF_DeleteLibraryHandle(again);
  TF_DeleteLibraryHandle(lib);

  /* The registry at large now has it too. */
  TF_Buffer *all = TF_GetAllOpList();
  ol = tensorflow__op_list__unpack(NULL, all->length, all->data);
  int found = 0;
  for (size_t i = 0; i < ol->n_op; i++) found += strcmp(ol->op[i]->name, "ScaleBy") == 0;
  EXPECT_EQ(found, 1);
  tensorflow__op_list__free_unpacked(ol, NULL);
  TF_DeleteBuffer(all);
}

static void custom_op_runs_float_and_int32_kernels(void) {
  TF_DeleteLibraryHandle(load_scale_by());
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float xf[6] = {1, -2, 3.5f, 4, 5, 6};
  const int32_t xi[3] = {7, -8, 9};
  TF_Output cf = capi_const(g, "xf", TF_FLOAT, (int64_t[]){2, 3}, 2, xf, sizeof xf, s);
  TF_Output ci = capi_const(g, "xi", TF_INT32, (int64_t[]){3}, 1, xi, sizeof xi, s);
  TF_Operation *yf = scale_by(g, "yf", cf, 3, s);
  OK(s);
  TF_Operation *yi = scale_by(g, "yi", ci, -1000, s); /* factor: its default, 2 */
  OK(s);
  /* The shape function ran: y has x's shape. */
  int64_t dims[4];
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){yf, 0}, s), 2);
  TF_GraphGetTensorShape(g, (TF_Output){yf, 0}, dims, 2, s);
  OK(s);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){yi, 0}), TF_INT32);

  TF_Tensor *tf = run1(g, (TF_Output){yf, 0}, s);
  OK(s);
  EXPECT_EQ(TF_TensorType(tf), TF_FLOAT);
  EXPECT_EQ(TF_NumDims(tf), 2);
  const float *of = TF_TensorData(tf);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(of[i], xf[i] * 3, 1e-6);
  TF_DeleteTensor(tf);
  TF_Tensor *ti = run1(g, (TF_Output){yi, 0}, s);
  OK(s);
  const int32_t *oi = TF_TensorData(ti);
  for (int i = 0; i < 3; i++) EXPECT_EQ(oi[i], xi[i] * 2);
  TF_DeleteTensor(ti);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void custom_op_survives_graphdef_export_and_import(void) {
  TF_DeleteLibraryHandle(load_scale_by());
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float x[2] = {1.5f, -2};
  TF_Output c = capi_const(g, "x", TF_FLOAT, (int64_t[]){2}, 1, x, sizeof x, s);
  scale_by(g, "y", c, 4, s);
  OK(s);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, s);
  OK(s);
  TF_Graph *g2 = TF_NewGraph();
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g2, gd, io, s);
  OK(s);
  TF_Operation *y = TF_GraphOperationByName(g2, "y");
  EXPECT_TRUE(y != NULL);
  EXPECT_STREQ(TF_OperationOpType(y), "ScaleBy");
  TF_Tensor *t = run1(g2, (TF_Output){y, 0}, s);
  OK(s);
  EXPECT_NEAR(((float *)TF_TensorData(t))[0], 6, 1e-6);
  EXPECT_NEAR(((float *)TF_TensorData(t))[1], -8, 1e-6);
  TF_DeleteTensor(t);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void custom_op_shape_function_error_names_the_node(void) {
  TF_DeleteLibraryHandle(load_scale_by());
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float x[1] = {1};
  TF_Output c = capi_const(g, "x", TF_FLOAT, (int64_t[]){1, 1, 1, 1, 1}, 5, x, sizeof x, s);
  EXPECT_TRUE(scale_by(g, "too_deep", c, 2, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s),
               "Shape must be at most rank 4 but is rank 5 for 'too_deep' (op: 'ScaleBy') with input shapes: "
               "[1,1,1,1,1].");
  /* A type outside the op's allowed list is refused by the graph. */
  const double d[1] = {1};
  TF_Output cd = capi_const(g, "xd", TF_DOUBLE, (int64_t[]){1}, 1, d, sizeof d, s);
  EXPECT_TRUE(scale_by(g, "yd", cd, 2, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "double");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void custom_kernel_failures_carry_code_and_node_name(void) {
  TF_DeleteLibraryHandle(load_scale_by());
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  /* create fails: a negative factor */
  const float x[1] = {1};
  TF_Output c = capi_const(g, "x", TF_FLOAT, (int64_t[]){1}, 1, x, sizeof x, s);
  TF_Operation *neg = scale_by(g, "negative", c, -1, s);
  OK(s);
  EXPECT_TRUE(run1(g, (TF_Output){neg, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "ScaleBy needs factor >= 0, got -1");
  EXPECT_CONTAINS(TF_Message(s), "negative");
  /* compute fails: int32 overflow */
  const int32_t big[2] = {1, 2000000000};
  TF_Output ci = capi_const(g, "big", TF_INT32, (int64_t[]){2}, 1, big, sizeof big, s);
  TF_Operation *ovf = scale_by(g, "overflowing", ci, 2, s);
  OK(s);
  EXPECT_TRUE(run1(g, (TF_Output){ovf, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  EXPECT_CONTAINS(TF_Message(s), "ScaleBy: 2000000000 * 2 overflows int32");
  EXPECT_CONTAINS(TF_Message(s), "overflowing");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void load_library_missing_file_is_not_found_with_dlerror_text(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TF_LoadLibrary("/nonexistent/libnope.so", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "/nonexistent/libnope.so: cannot open shared object file: No such file or directory");
  TF_DeleteStatus(s);
}

static void load_library_registering_nothing_has_an_empty_op_list(void) {
  TF_Status *s = TF_NewStatus();
  TF_Library *lib = TF_LoadLibrary(TFC_EMPTY_LIB, s);
  OK(s);
  EXPECT_TRUE(lib != NULL);
  EXPECT_EQ((int)TF_GetOpList(lib).length, 0);
  TF_DeleteLibraryHandle(lib);
  TF_DeleteStatus(s);
}

static void load_library_with_a_clashing_op_is_already_exists(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TF_LoadLibrary(TFC_DUP_OP_LIB, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_ALREADY_EXISTS);
  EXPECT_STREQ(TF_Message(s), "Op with name MatMul");
  TF_DeleteStatus(s);
}

/* ---- in-process registration ---- */

static int64_t seen_step;
static float seen_alpha;
static unsigned char seen_flag;
static char seen_mode[16];
static TF_DataType seen_shape_type;
static int seen_get_input_oob, seen_expected_type, seen_n_in, seen_n_out;

static void *probe_create(TF_OpKernelConstruction *ctx) {
  TF_Status *s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "alpha", &seen_alpha, s);
  OK(s);
  TF_OpKernelConstruction_GetAttrBool(ctx, "flag", &seen_flag, s);
  OK(s);
  memset(seen_mode, 0, sizeof seen_mode);
  TF_OpKernelConstruction_GetAttrString(ctx, "mode", seen_mode, sizeof seen_mode - 1, s);
  OK(s);
  int32_t i32;
  TF_OpKernelConstruction_GetAttrInt32(ctx, "nope", &i32, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  TF_OpKernelConstruction_GetAttrInt32(ctx, "alpha", &i32, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteStatus(s);
  return NULL;
}

static void probe_compute(void *k, TF_OpKernelContext *ctx) {
  (void)k;
  TF_Status *s = TF_NewStatus();
  seen_n_in = TF_NumInputs(ctx);
  seen_n_out = TF_NumOutputs(ctx);
  seen_step = TF_StepId(ctx);
  seen_expected_type = TF_ExpectedOutputDataType(ctx, 0);
  TF_Tensor *t = NULL;
  TF_GetInput(ctx, 5, &t, s);
  seen_get_input_oob = TF_GetCode(s);
  TF_GetInput(ctx, 0, &t, s);
  OK(s);
  TF_Tensor *wrong = TF_AllocateTensor(TF_INT32, NULL, 0, 4);
  TF_SetOutput(ctx, 0, wrong, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_DeleteTensor(wrong);
  TF_SetOutput(ctx, 1, t, s);
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  TF_SetOutput(ctx, 0, t, s); /* y = x */
  OK(s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
}

/* out = [x's dims 1.., then 7], and a check of the handle functions. */
static void probe_shape(TF_ShapeInferenceContext *ctx, TF_Status *status) {
  EXPECT_EQ(TF_ShapeInferenceContextNumInputs(ctx), 1);
  TF_ShapeHandle *x = TF_NewShapeHandle(), *tail = TF_NewShapeHandle(), *out = TF_NewShapeHandle();
  TF_DimensionHandle *d = TF_NewDimensionHandle();
  TF_ShapeInferenceContext_GetAttrType(ctx, "T", &seen_shape_type, status);
  EXPECT_EQ(TF_GetCode(status), TF_OK);
  TF_ShapeInferenceContextGetInput(ctx, 3, x, status);
  EXPECT_EQ(TF_GetCode(status), TF_INVALID_ARGUMENT);
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_ShapeInferenceContextRankKnown(ctx, x) && TF_ShapeInferenceContextRank(ctx, x) == 2) {
    TF_ShapeInferenceContextDim(ctx, x, -1, d);
    EXPECT_TRUE(TF_DimensionHandleValueKnown(d));
    EXPECT_EQ(TF_DimensionHandleValue(d), 3);
    TF_ShapeInferenceContextDim(ctx, x, 9, d);
    EXPECT_TRUE(!TF_DimensionHandleValueKnown(d));
    TF_ShapeInferenceContextWithRank(ctx, x, 3, tail, status);
    EXPECT_EQ(TF_GetCode(status), TF_INVALID_ARGUMENT);
    EXPECT_STREQ(TF_Message(status), "Shape must be rank 3 but is rank 2");
    TF_ShapeInferenceContextWithRankAtLeast(ctx, x, 1, tail, status);
    EXPECT_EQ(TF_GetCode(status), TF_OK);
  }
  TF_ShapeInferenceContextSubshape(ctx, x, 1, 100, tail, status);
  TF_ShapeHandle *seven = TF_ShapeInferenceContextVectorFromSize(ctx, 7);
  TF_ShapeInferenceContextConcatenateShapes(ctx, tail, seven, out, status);
  TF_ShapeInferenceContextSetOutput(ctx, 0, out, status);
  TF_DeleteShapeHandle(seven);
  TF_DeleteShapeHandle(x);
  TF_DeleteShapeHandle(tail);
  TF_DeleteShapeHandle(out);
  TF_DeleteDimensionHandle(d);
}

/* Once per process (TFC_TEST_NOFORK runs every test in one). */
static void register_probe(TF_Status *s) {
  static int done;
  if (done++) return;
  TF_OpDefinitionBuilder *b = TF_NewOpDefinitionBuilder("TfcProbe");
  TF_OpDefinitionBuilderAddAttr(b, "T: type");
  TF_OpDefinitionBuilderAddAttr(b, "alpha: float = 0.5");
  TF_OpDefinitionBuilderAddAttr(b, "flag: bool = true");
  TF_OpDefinitionBuilderAddAttr(b, "mode: string = 'fast'");
  TF_OpDefinitionBuilderAddInput(b, "x: T");
  TF_OpDefinitionBuilderAddOutput(b, "y: T");
  TF_OpDefinitionBuilderSetIsStateful(b, true);
  TF_OpDefinitionBuilderSetShapeInferenceFunction(b, probe_shape);
  TF_RegisterOpDefinition(b, s);
  OK(s);
  TF_KernelBuilder *kb = TF_NewKernelBuilder("TfcProbe", "CPU", probe_create, probe_compute, NULL);
  TF_KernelBuilder_TypeConstraint(kb, "T", TF_FLOAT, s);
  OK(s);
  TF_RegisterKernelBuilder("TfcProbeOp", kb, s);
  OK(s);
}

static void in_process_op_and_kernel_see_attrs_inputs_and_shapes(void) {
  TF_Status *s = TF_NewStatus();
  register_probe(s);
  TF_Graph *g = TF_NewGraph();
  const float x[6] = {1, 2, 3, 4, 5, 6};
  TF_Output c = capi_const(g, "x", TF_FLOAT, (int64_t[]){2, 3}, 2, x, sizeof x, s);
  TF_OperationDescription *d = TF_NewOperation(g, "TfcProbe", "probe");
  TF_AddInput(d, c);
  TF_SetAttrFloat(d, "alpha", 1.25f);
  TF_SetAttrString(d, "mode", "slow", 4);
  TF_Operation *p = TF_FinishOperation(d, s);
  OK(s);
  EXPECT_EQ(seen_shape_type, TF_FLOAT);
  /* the user's shape function: [3] ++ [7] */
  int64_t dims[2];
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, (TF_Output){p, 0}, s), 2);
  TF_GraphGetTensorShape(g, (TF_Output){p, 0}, dims, 2, s);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 7);
  TF_Tensor *t = run1(g, (TF_Output){p, 0}, s);
  OK(s);
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(((float *)TF_TensorData(t))[5], 6);
  TF_DeleteTensor(t);
  /* each run of a session is a new step */
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  TF_Output po = {p, 0};
  int64_t steps[2];
  for (int i = 0; i < 2; i++) {
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &po, &t, 1, NULL, 0, NULL, s);
    OK(s);
    TF_DeleteTensor(t);
    steps[i] = seen_step;
  }
  EXPECT_TRUE(steps[0] != steps[1]);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  EXPECT_NEAR(seen_alpha, 1.25, 1e-7);
  EXPECT_EQ(seen_flag, 1);
  EXPECT_STREQ(seen_mode, "slow");
  EXPECT_EQ(seen_n_in, 1);
  EXPECT_EQ(seen_n_out, 1);
  EXPECT_EQ(seen_expected_type, TF_FLOAT);
  EXPECT_EQ(seen_get_input_oob, TF_OUT_OF_RANGE);
  /* the op's OpDef, from the graph */
  TF_Buffer *od = TF_NewBuffer();
  TF_GraphGetOpDef(g, "TfcProbe", od, s);
  OK(s);
  Tensorflow__OpDef *def = tensorflow__op_def__unpack(NULL, od->length, od->data);
  EXPECT_TRUE(def->is_stateful);
  EXPECT_EQ((int)def->n_attr, 4);
  tensorflow__op_def__free_unpacked(def, NULL);
  TF_DeleteBuffer(od);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void user_op_without_a_kernel_for_the_type_is_not_found(void) {
  TF_Status *s = TF_NewStatus();
  register_probe(s);
  TF_Graph *g = TF_NewGraph();
  const int32_t x[1] = {1};
  TF_Output c = capi_const(g, "x", TF_INT32, (int64_t[]){1}, 1, x, sizeof x, s);
  TF_OperationDescription *d = TF_NewOperation(g, "TfcProbe", "iprobe");
  TF_AddInput(d, c);
  TF_Operation *p = TF_FinishOperation(d, s);
  OK(s);
  EXPECT_TRUE(run1(g, (TF_Output){p, 0}, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "No OpKernel was registered to support Op 'TfcProbe' used by {{node iprobe}}");
  EXPECT_CONTAINS(TF_Message(s), "device='CPU'; T in [DT_FLOAT]");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void register_op_definition_errors(void) {
  TF_Status *s = TF_NewStatus();
  TF_OpDefinitionBuilder *b = TF_NewOpDefinitionBuilder("TfcBadSpec");
  TF_OpDefinitionBuilderAddInput(b, "x: NoSuchAttr");
  TF_RegisterOpDefinition(b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "TfcBadSpec");
  EXPECT_CONTAINS(TF_Message(s), "x: NoSuchAttr");
  b = TF_NewOpDefinitionBuilder("TfcBadAttr");
  TF_OpDefinitionBuilderAddAttr(b, "T: numbertypo");
  TF_OpDefinitionBuilderAddAttr(b, "S: {'a', 'b'} = 'a'");
  TF_RegisterOpDefinition(b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "unknown attr kind in 'T: numbertypo'");
  b = TF_NewOpDefinitionBuilder("TfcBadDefault");
  TF_OpDefinitionBuilderAddAttr(b, "S: {'a', 'b'} = 'a'");
  TF_OpDefinitionBuilderAddAttr(b, "L: list(int) = 3");
  TF_RegisterOpDefinition(b, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "list default needs []");
  b = TF_NewOpDefinitionBuilder("TfcTwice");
  TF_OpDefinitionBuilderAddOutput(b, "y: float");
  TF_RegisterOpDefinition(b, s);
  OK(s);
  b = TF_NewOpDefinitionBuilder("TfcTwice");
  TF_RegisterOpDefinition(b, s);
  EXPECT_EQ(TF_GetCode(s), TF_ALREADY_EXISTS);
  EXPECT_STREQ(TF_Message(s), "Op with name TfcTwice");
  /* TF's type groups, alone and in a union */
  b = TF_NewOpDefinitionBuilder("TfcGroups");
  TF_OpDefinitionBuilderAddAttr(b, "T: numbertype");
  TF_OpDefinitionBuilderAddAttr(b, "U: {realnumbertype, string} = DT_STRING");
  TF_OpDefinitionBuilderAddAttr(b, "Q: list(quantizedtype) >= 1");
  TF_OpDefinitionBuilderAddInput(b, "x: T");
  TF_RegisterOpDefinition(b, s);
  OK(s);
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *od = TF_NewBuffer();
  TF_GraphGetOpDef(g, "TfcGroups", od, s);
  OK(s);
  Tensorflow__OpDef *def = tensorflow__op_def__unpack(NULL, od->length, od->data);
  EXPECT_STREQ(def->attr[0]->type, "type");
  EXPECT_EQ((int)def->attr[0]->allowed_values->list->n_type, 17);
  EXPECT_EQ(def->attr[0]->allowed_values->list->type[6], TENSORFLOW__DATA_TYPE__DT_COMPLEX64);
  EXPECT_EQ((int)def->attr[1]->allowed_values->list->n_type, 13);
  EXPECT_EQ(def->attr[1]->allowed_values->list->type[12], TENSORFLOW__DATA_TYPE__DT_STRING);
  EXPECT_EQ(def->attr[1]->default_value->type, TENSORFLOW__DATA_TYPE__DT_STRING);
  EXPECT_STREQ(def->attr[2]->type, "list(type)");
  EXPECT_EQ((int)def->attr[2]->allowed_values->list->n_type, 5);
  EXPECT_EQ((int)def->attr[2]->minimum, 1);
  tensorflow__op_def__free_unpacked(def, NULL);
  TF_DeleteBuffer(od);
  TF_DeleteGraph(g);
  TF_DeleteOpDefinitionBuilder(TF_NewOpDefinitionBuilder("unused"));
  TF_DeleteKernelBuilder(TF_NewKernelBuilder("unused", "CPU", NULL, NULL, NULL));
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(load_library_lists_its_ops),
    TFC_TEST(custom_op_runs_float_and_int32_kernels),
    TFC_TEST(custom_op_survives_graphdef_export_and_import),
    TFC_TEST(custom_op_shape_function_error_names_the_node),
    TFC_TEST(custom_kernel_failures_carry_code_and_node_name),
    TFC_TEST(load_library_missing_file_is_not_found_with_dlerror_text),
    TFC_TEST(load_library_registering_nothing_has_an_empty_op_list),
    TFC_TEST(load_library_with_a_clashing_op_is_already_exists),
    TFC_TEST(in_process_op_and_kernel_see_attrs_inputs_and_shapes),
    TFC_TEST(user_op_without_a_kernel_for_the_type_is_not_found),
    TFC_TEST(register_op_definition_errors),
    {0}};
TFC_TEST_MAIN(tests)
