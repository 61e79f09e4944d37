/*
 * Graph construction through the C API: the shape functions of SpaceToBatchND /
 * BatchToSpaceND with const block shapes, paddings and crops infer TF's output shapes and
 * refuse what TF's refuse, with TF's graph-time texts; Einsum's infers its output from the
 * equation.
 */
#include <string.h>

#include "capi_util.h"
#include "harness.h"

/* Builds `op`(input of `in_dims`, const block, const pads [m, 2]) and returns the status code;
 * on success the output's static dims go to out_dims. */
static int build_space_batch(const char *op, const int64_t *in_dims, const int32_t *block, int m, const int32_t *pads,
                             int64_t *out_dims, TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *pd = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(pd, "dtype", TF_FLOAT);
  TF_SetAttrShape(pd, "shape", in_dims, 4);
  TF_Output x = {capi_finish(pd), 0};
  int64_t bd = m, pdims[2] = {m, 2};
  TF_Output b = capi_const(g, "block", TF_INT32, &bd, 1, block, sizeof(int32_t) * (size_t)m, s);
  TF_Output p = capi_const(g, "pads", TF_INT32, pdims, 2, pads, sizeof(int32_t) * 2 * (size_t)m, s);
  TF_OperationDescription *d = TF_NewOperation(g, op, "y");
  TF_AddInput(d, x);
  TF_AddInput(d, b);
  TF_AddInput(d, p);
  TF_Operation *y = TF_FinishOperation(d, s);
  if (y) TF_GraphGetTensorShape(g, (TF_Output){y, 0}, out_dims, 4, s);
  int code = TF_GetCode(s);
  TF_DeleteGraph(g);
  return code;
}

static void space_to_batch_nd_shapes_from_consts(void) {
  TF_Status *s = TF_NewStatus();
  int64_t out[4];
  EXPECT_EQ(build_space_batch("SpaceToBatchND", (const int64_t[]){2, 3, 5, 2}, (const int32_t[]){2, 3}, 2,
                              (const int32_t[]){1, 0, 0, 1}, out, s),
            TF_OK);
  EXPECT_EQ(out[0], 12);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(out[2], 2);
  EXPECT_EQ(out[3], 2);
  EXPECT_EQ(build_space_batch("BatchToSpaceND", (const int64_t[]){12, 2, 2, 2}, (const int32_t[]){2, 3}, 2,
                              (const int32_t[]){1, 0, 0, 1}, out, s),
            TF_OK);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 5);
  TF_DeleteStatus(s);
}

static void space_batch_shape_errors_have_tensorflow_texts(void) {
  TF_Status *s = TF_NewStatus();
  int64_t out[4];
  EXPECT_EQ(build_space_batch("SpaceToBatchND", (const int64_t[]){1, 3, 4, 1}, (const int32_t[]){2, 2}, 2,
                              (const int32_t[]){0, 0, 0, 0}, out, s),
            TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "Dimension size must be evenly divisible by 2 but is 3") != NULL);
  EXPECT_EQ(build_space_batch("BatchToSpaceND", (const int64_t[]){1, 3, 4, 1}, (const int32_t[]){2, 2}, 2,
                              (const int32_t[]){0, 0, 0, 0}, out, s),
            TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "Dimension size must be evenly divisible by 2 but is 1") != NULL);
  EXPECT_EQ(build_space_batch("SpaceToBatchND", (const int64_t[]){1, 4, 4, 1}, (const int32_t[]){2, 0}, 2,
                              (const int32_t[]){0, 0, 0, 0}, out, s),
            TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "block_shape must be positive") != NULL);
  TF_DeleteStatus(s);
}

static void einsum_shape_from_the_equation(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Output in[2];
  static const int64_t d0[4] = {2, 7, 3, 4}, d1[4] = {2, 5, 3, 4};
  for (int i = 0; i < 2; i++) {
    TF_OperationDescription *pd = TF_NewOperation(g, "Placeholder", i ? "k" : "q");
    TF_SetAttrType(pd, "dtype", TF_FLOAT);
    TF_SetAttrShape(pd, "shape", i ? d1 : d0, 4);
    in[i] = (TF_Output){capi_finish(pd), 0};
  }
  TF_OperationDescription *d = TF_NewOperation(g, "Einsum", "scores");
  TF_AddInputList(d, in, 2);
  TF_SetAttrString(d, "equation", "BTNH,BFNH->BNFT", 15);
  TF_Output y = {capi_finish(d), 0};
  int64_t out[4];
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, y, s), 4);
  TF_GraphGetTensorShape(g, y, out, 4, s);
  OK(s);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 5);
  EXPECT_EQ(out[3], 7);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {TFC_TEST(space_to_batch_nd_shapes_from_consts),
                                 TFC_TEST(space_batch_shape_errors_have_tensorflow_texts),
                                 TFC_TEST(einsum_shape_from_the_equation), {0}};

TFC_TEST_MAIN(tests)
