/*
 * test_gradients — the TF_AddGradients walk: TF Python's node names (seed, per-op scopes,
 * AddN fan-in), prefixes ("gradients", "gradients_1", caller's), TF's errors (unreachable x,
 * op without gradient, prefix in use, PreventGradient) with the graph unchanged after each,
 * StopGradient and integer paths, the tuple-wrapping option, and values of a small case.
 */
#include "capi/capi_internal.h"
#include "grad/gradients.h"
#include "grad_check.h"

static TF_Output ph(TF_Graph *g, const char *name, int64_t d0, int64_t d1) {
  int64_t dims[2] = {d0, d1};
  return gc_placeholder(g, name, TF_FLOAT, dims, 2);
}

static void expect_type(TF_Graph *g, const char *name, const char *type) {
  TF_Operation *o = TF_GraphOperationByName(g, name);
  if (!o) tfc_test_fail(__FILE__, __LINE__, "no node %s", name);
  EXPECT_STREQ(TF_OperationOpType(o), type);
}

static int num_ops(TF_Graph *g) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(g, &pos)) n++;
  return n;
}

static void gradients_use_python_names(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 3), w = ph(g, "w", 3, 4);
  TF_Output mm = gc_op(g, "MatMul", "MatMul", (TF_Output[]){x, w}, 2);
  TF_Output loss = gc_op(g, "Sum", "loss", (TF_Output[]){gc_op1(g, "Square", mm), gc_ivec(g, "axes", (int64_t[]){0, 1}, 2)}, 2);
  TF_Output dy[2];
  TF_AddGradients(g, &loss, 1, (TF_Output[]){x, w}, 2, NULL, s, dy);
  GC_OK(s);
  expect_type(g, "gradients/Shape", "Const"); /* the loss shape is known: folded, as Python does */
  expect_type(g, "gradients/grad_ys_0", "Const");
  expect_type(g, "gradients/Fill", "Fill");
  expect_type(g, "gradients/loss_grad/Reshape", "Reshape");
  expect_type(g, "gradients/loss_grad/Tile", "Tile");
  expect_type(g, "gradients/op0_grad/Mul_1", "Mul");
  EXPECT_STREQ(TF_OperationName(dy[0].oper), "gradients/MatMul_grad/MatMul");
  EXPECT_STREQ(TF_OperationName(dy[1].oper), "gradients/MatMul_grad/MatMul_1");
  /* Square's Const waits for the incoming gradient, as Python's control_dependencies. */
  TF_Operation *c2 = TF_GraphOperationByName(g, "gradients/op0_grad/Const");
  EXPECT_TRUE(c2 != NULL);
  EXPECT_EQ(TF_OperationNumControlInputs(c2), 1);
  /* A second call gets the next scope. */
  TF_AddGradients(g, &loss, 1, &x, 1, NULL, s, dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationName(dy[0].oper), "gradients_1/MatMul_grad/MatMul");
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_sum_fan_in_with_addn(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2);
  TF_Output a = gc_op(g, "Neg", "a", &x, 1), b = gc_op(g, "Exp", "b", &x, 1);
  TF_Output y = gc_op(g, "Add", "y", (TF_Output[]){a, b}, 2);
  TF_Output dy;
  TF_AddGradients(g, &y, 1, &x, 1, NULL, s, &dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationName(dy.oper), "gradients/AddN");
  EXPECT_STREQ(TF_OperationOpType(dy.oper), "AddN");
  EXPECT_EQ(TF_OperationNumInputs(dy.oper), 2);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_with_prefix_and_conflicts(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2);
  TF_Output y = gc_op(g, "Square", "scope/y", &x, 1);
  TF_Output dy;
  TF_AddGradientsWithPrefix(g, "mygrads", &y, 1, &x, 1, NULL, s, &dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationName(dy.oper), "mygrads/scope/y_grad/Mul_1");
  int n = num_ops(g);
  TF_AddGradientsWithPrefix(g, "scope", &y, 1, &x, 1, NULL, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "prefix [scope] conflicts with existing node in the graph named [scope/y]");
  TF_AddGradientsWithPrefix(g, "mygrads", &y, 1, &x, 1, NULL, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(num_ops(g), n);
  /* A node named like the default scope pushes it to gradients_1. */
  gc_op(g, "Identity", "gradients", &x, 1);
  TF_AddGradients(g, &y, 1, &x, 1, NULL, s, &dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationName(dy.oper), "gradients_1/scope/y_grad/Mul_1");
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_unreachable_x_is_tf_error(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2), z = ph(g, "z", 2, 2);
  TF_Output y = gc_op(g, "Square", "y", &x, 1);
  int n = num_ops(g);
  TF_Output dy[2] = {{NULL, 7}, {NULL, 7}};
  TF_AddGradients(g, &y, 1, (TF_Output[]){x, z}, 2, NULL, s, dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Cannot compute the partial derivative for node 'z' as it's unreachable from the output node(s).");
  EXPECT_EQ(num_ops(g), n);
  EXPECT_EQ(dy[0].index, 7);
  /* The internal options give zeros or none instead. */
  tfc_grad_options o = tfc_grad_options_capi();
  o.unreachable = TFC_GRAD_MISSING_ZEROS;
  tfc_endpoint ey = tfc_capi_endpoint(y), ex = tfc_capi_endpoint(z), out;
  tfc_status st;
  tfc_status_init(&st);
  EXPECT_EQ(tfc_gradients_add(g->g, &ey, 1, &ex, 1, NULL, &o, &out, &st), TFC_OK);
  EXPECT_STREQ(out.node->op->name, "ZerosLike");
  EXPECT_STREQ(out.node->name, "gradients/zeros_like");
  o.unreachable = TFC_GRAD_MISSING_NONE;
  EXPECT_EQ(tfc_gradients_add(g->g, &ey, 1, &ex, 1, NULL, &o, &out, &st), TFC_OK);
  EXPECT_TRUE(out.node == NULL);
  tfc_status_fini(&st);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_op_without_gradient_is_not_found(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2);
  TF_Output y = gc_op(g, "SoftsignGrad", "sg", (TF_Output[]){x, x}, 2);
  int n = num_ops(g);
  TF_Output dy;
  TF_AddGradients(g, &y, 1, &x, 1, NULL, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "No gradient defined for op: SoftsignGrad. Please see "
                              "https://www.tensorflow.org/code/tensorflow/cc/gradients/README.md for "
                              "instructions on how to add C++ gradients.");
  EXPECT_EQ(num_ops(g), n);
  /* PreventGradient: TF's text, graph unchanged. */
  TF_OperationDescription *d = TF_NewOperation(g, "PreventGradient", "pg");
  TF_AddInput(d, x);
  TF_SetAttrString(d, "message", "no way", 6);
  TF_Output p = {gc_finish(d), 0};
  n = num_ops(g);
  TF_AddGradients(g, &p, 1, &x, 1, NULL, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Gradient explicitly disabled. Reason: no way");
  EXPECT_EQ(num_ops(g), n);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_stop_gradient_gives_zeros(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2);
  TF_Output sg = gc_op(g, "StopGradient", "sg", &x, 1);
  TF_Output y = gc_op(g, "Mul", "y", (TF_Output[]){sg, x}, 2);
  TF_Output z = gc_op(g, "Square", "z", &sg, 1);
  TF_Output dy[1];
  TF_AddGradients(g, &y, 1, &x, 1, NULL, s, dy);
  GC_OK(s);
  /* Only the direct path: no AddN, the result is Mul's second-input gradient (float inputs of
   * one known shape: Python's fast path, Mul(grad, y) then Mul_1(grad, x)). */
  EXPECT_STREQ(TF_OperationName(dy[0].oper), "gradients/y_grad/Mul_1");
  TF_AddGradients(g, &z, 1, &x, 1, NULL, s, dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationOpType(dy[0].oper), "ZerosLike");
  /* An integer path carries nothing either: Shape -> Cast -> Mul. */
  TF_Output sh = gc_op(g, "Shape", "sh", &x, 1);
  TF_OperationDescription *d = TF_NewOperation(g, "Cast", "shf");
  TF_AddInput(d, sh);
  TF_SetAttrType(d, "DstT", TF_FLOAT);
  TF_Output shf = {gc_finish(d), 0};
  TF_AddGradients(g, &shf, 1, &x, 1, NULL, s, dy);
  GC_OK(s);
  EXPECT_STREQ(TF_OperationOpType(dy[0].oper), "ZerosLike");
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_tuple_wrap_option(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Output x = ph(g, "x", 2, 3), w = ph(g, "w", 3, 4);
  TF_Output mm = gc_op(g, "MatMul", "MatMul", (TF_Output[]){x, w}, 2);
  tfc_grad_options o = tfc_grad_options_python();
  o.tuple_wrap = 1;
  tfc_endpoint ey = tfc_capi_endpoint(mm), ex[2] = {tfc_capi_endpoint(x), tfc_capi_endpoint(w)}, out[2];
  tfc_status st;
  tfc_status_init(&st);
  EXPECT_EQ(tfc_gradients_add(g->g, &ey, 1, ex, 2, NULL, &o, out, &st), TFC_OK);
  EXPECT_STREQ(out[0].node->name, "gradients/MatMul_grad/tuple/control_dependency");
  EXPECT_STREQ(out[1].node->name, "gradients/MatMul_grad/tuple/control_dependency_1");
  EXPECT_EQ(out[0].node->n_control_inputs, 1);
  EXPECT_STREQ(out[0].node->control_inputs[0]->name, "gradients/MatMul_grad/tuple/group_deps");
  EXPECT_EQ(out[0].node->control_inputs[0]->n_control_inputs, 2);
  const tfc_attr_value *cls = tfc_node_attr(out[0].node, "_class");
  EXPECT_TRUE(cls && cls->kind == TFC_ATTR_LIST && cls->u.list.n == 1);
  EXPECT_STREQ(cls->u.list.items[0].u.s.data, "loc:@gradients/MatMul_grad/MatMul");
  tfc_status_fini(&st);
  TF_DeleteGraph(g);
}

static void gradients_bad_arguments(void) {
  TF_Graph *g = TF_NewGraph(), *other = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output x = ph(g, "x", 2, 2), y = gc_op(g, "Square", "y", &x, 1), o = ph(other, "o", 2, 2);
  TF_Output dy;
  TF_AddGradients(g, &y, 1, &o, 1, NULL, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_AddGradients(g, &y, 1, &x, 1, NULL, s, NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_Output seed = gc_const(g, "seed", TF_DOUBLE, (int64_t[]){2, 2}, 2, (double[]){1, 1, 1, 1});
  TF_AddGradients(g, &y, 1, &x, 1, &seed, s, &dy);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "has type double, expected float");
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  TF_DeleteGraph(other);
}

/* y = x0 * x1 + x0 at known values; dx0 = x1 + 1, dx1 = x0 (seeded with ones). */
static void gradients_values_of_small_graph(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t d2 = 2;
  TF_Output a = gc_const(g, "a", TF_FLOAT, &d2, 1, (double[]){2, 3});
  TF_Output b = gc_const(g, "b", TF_FLOAT, &d2, 1, (double[]){5, 7});
  TF_Output y = gc_op(g, "Add", "y", (TF_Output[]){gc_op(g, "Mul", "m", (TF_Output[]){a, b}, 2), a}, 2);
  TF_Output dy[2];
  TF_AddGradients(g, &y, 1, (TF_Output[]){a, b}, 2, NULL, s, dy);
  GC_OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  GC_OK(s);
  TF_Tensor *r[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, dy, r, 2, NULL, 0, NULL, s);
  GC_OK(s);
  const float *g0 = TF_TensorData(r[0]), *g1 = TF_TensorData(r[1]);
  EXPECT_NEAR(g0[0], 6, 1e-6);
  EXPECT_NEAR(g0[1], 8, 1e-6);
  EXPECT_NEAR(g1[0], 2, 1e-6);
  EXPECT_NEAR(g1[1], 3, 1e-6);
  TF_DeleteTensor(r[0]);
  TF_DeleteTensor(r[1]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* Sum over an input of unknown shape: TF 1.15's _SumGrad with Python's reduced_shape, node for
 * node (the DynamicStitch of [range(rank), (axes + rank) % rank] and [shape, ones], then
 * _safe_shape_div, Reshape and Tile). */
static void gradients_sum_over_unknown_shape_uses_reduced_shape(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Output x = {gc_finish(d), 0};
  TF_Output sum = gc_op(g, "Sum", "sum", (TF_Output[]){x, gc_ivec(g, "axes", (int64_t[]){1}, 1)}, 2);
  TF_Output dy;
  TF_AddGradients(g, &sum, 1, &x, 1, NULL, s, &dy);
  GC_OK(s);
  const char *nodes[][2] = {{"Shape", "Shape"},         {"Size", "Size"},
                            {"add", "AddV2"},           {"mod", "FloorMod"},
                            {"Shape_1", "Const"},       {"range/start", "Const"},
                            {"range/delta", "Const"},   {"range", "Range"},
                            {"ones/Const", "Const"},    {"ones", "Fill"},
                            {"DynamicStitch", "DynamicStitch"}, {"Maximum/y", "Const"},
                            {"Maximum", "Maximum"},     {"floordiv", "FloorDiv"},
                            {"Reshape", "Reshape"},     {"Tile", "Tile"}};
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    char name[64];
    snprintf(name, sizeof name, "gradients/sum_grad/%s", nodes[i][0]);
    expect_type(g, name, nodes[i][1]);
  }
  EXPECT_STREQ(TF_OperationName(dy.oper), "gradients/sum_grad/Tile");
  /* and it runs: d/dx sum(x, 1) is ones of x's shape, whatever that is at run time */
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  GC_OK(s);
  int64_t dims[3] = {2, 3, 2};
  double v[12] = {0};
  TF_Tensor *xv = gc_tensor(TF_FLOAT, dims, 3, v), *out = NULL;
  gc_run(sess, &x, &xv, 1, &dy, &out, 1);
  EXPECT_EQ(TF_NumDims(out), 3);
  EXPECT_EQ(TF_Dim(out, 1), 3);
  for (int i = 0; i < 12; i++) EXPECT_EQ(((float *)TF_TensorData(out))[i], 1);
  TF_DeleteTensor(out);
  TF_DeleteTensor(xv);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(gradients_use_python_names),
    TFC_TEST(gradients_sum_over_unknown_shape_uses_reduced_shape),
    TFC_TEST(gradients_sum_fan_in_with_addn),
    TFC_TEST(gradients_with_prefix_and_conflicts),
    TFC_TEST(gradients_unreachable_x_is_tf_error),
    TFC_TEST(gradients_op_without_gradient_is_not_found),
    TFC_TEST(gradients_stop_gradient_gives_zeros),
    TFC_TEST(gradients_tuple_wrap_option),
    TFC_TEST(gradients_bad_arguments),
    TFC_TEST(gradients_values_of_small_graph),
    {0}};
TFC_TEST_MAIN(tests)
