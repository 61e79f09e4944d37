/*
 * Control flow across devices in one process: TF-made loops and conds (tests/fixtures/cf_*.pb,
 * gen_control_flow.py; fn_call_while.pb and fn_call_if.pb, gen_functional.py) run with their
 * nodes spread over four virtual CPU devices (ConfigProto device_count CPU: 4), in two
 * patterns, and give TensorFlow's values (NAME.expect) or, for the function-call graphs, the
 * values the same graph gives on one device. Also: dead tensors crossing devices (a cond whose
 * untaken branch spans two devices, both ways), and a deadline that ends a loop spread over
 * devices and one whose partner device blocks forever (the blocked _Recv inside the loop is
 * woken, the step ends with DEADLINE_EXCEEDED), and a kernel error on one device that ends
 * the loop waiting for it on another.
 */
#include "../fixtures/expect_file.h"
#include "capi_util.h"
#include "cf_spread.h"

static const char *const CPUS[4] = {"/device:CPU:0", "/device:CPU:1", "/device:CPU:2", "/device:CPU:3"};

/* A session whose ConfigProto gives n CPU devices (device_count {key: "CPU" value: n}). */
static TF_Session *session_with_cpus(TF_Graph *g, int n) {
  const unsigned char cfg[] = {0x0a, 0x07, 0x0a, 0x03, 'C', 'P', 'U', 0x10, (unsigned char)n};
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  TF_SetConfig(so, cfg, sizeof cfg, s);
  OK(s);
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  return sess;
}

static void session_free(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  OK(s);
  TF_DeleteSession(sess, s);
  OK(s);
  TF_DeleteStatus(s);
}

/* ---------------- TF's loops and conds over four devices ---------------- */

static void run_spread_fixture(const char *name, int pattern) {
  fixture fx;
  load_fixture(name, &fx);
  char file[256];
  snprintf(file, sizeof file, "%s.pb", name);
  TF_Graph *g = cf_spread_graph(file, CPUS, 4, pattern);
  TF_Session *sess = session_with_cpus(g, 4);
  expect_run(&fx, g, sess, 2);
  session_free(sess);
  TF_DeleteGraph(g);
  free_fixture(&fx);
}

#define CF_FIXTURES(X)                                                                                                 \
  X(cf_cond) X(cf_nested_cond) X(cf_while_counter) X(cf_while_par1) X(cf_while_par10) X(cf_nested_while)               \
      X(cf_while_in_cond) X(cf_cond_in_while) X(cf_while_zero_trip) X(cf_dead_loop_exit)

#define DEFINE_SPREAD_TEST(n)                                                                                          \
  static void n##_on_four_devices(void) {                                                                             \
    run_spread_fixture(#n, CF_SPREAD_ROUND_ROBIN);                                                                     \
    run_spread_fixture(#n, CF_SPREAD_PAIRS);                                                                           \
  }
CF_FIXTURES(DEFINE_SPREAD_TEST)

/* ---------------- function-call graphs: spread vs one device ---------------- */

static TF_Output out(TF_Graph *g, const char *name) {
  TF_Operation *o = TF_GraphOperationByName(g, name);
  if (!o) tfc_test_fail(__FILE__, __LINE__, "no node %s", name);
  return (TF_Output){o, 0};
}

static const float X[6] = {0.5f, -1.0f, 1.5f, 2.0f, -2.5f, 3.0f};

static TF_Tensor *x_tensor(void) {
  int64_t dims[2] = {2, 3};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 2, sizeof X);
  memcpy(TF_TensorData(t), X, sizeof X);
  return t;
}

static TF_Tensor *scalar(TF_DataType dt, int v) {
  TF_Tensor *t = TF_AllocateTensor(dt, NULL, 0, TF_DataTypeSize(dt));
  if (dt == TF_BOOL) *(unsigned char *)TF_TensorData(t) = (unsigned char)v;
  else *(int32_t *)TF_TensorData(t) = v;
  return t;
}

static void expect_same(const TF_Tensor *a, const TF_Tensor *b, const char *what) {
  EXPECT_EQ(TF_TensorType(a), TF_TensorType(b));
  EXPECT_EQ(TF_NumDims(a), TF_NumDims(b));
  EXPECT_EQ(TF_TensorByteSize(a), TF_TensorByteSize(b));
  if (memcmp(TF_TensorData(a), TF_TensorData(b), TF_TensorByteSize(a)) != 0)
    tfc_test_fail(__FILE__, __LINE__, "%s differs between one device and four", what);
}

/* Runs the feeds and fetches of one step in sess (after `init`, when given, once). */
static void run_step(TF_Session *sess, const TF_Output *feeds, TF_Tensor *const *fv, int n_feeds,
                     const TF_Output *fetches, TF_Tensor **vals, int n_fetches) {
  TF_Status *s = TF_NewStatus();
  TF_SessionRun(sess, NULL, feeds, fv, n_feeds, fetches, vals, n_fetches, NULL, 0, NULL, s);
  OK(s);
  TF_DeleteStatus(s);
}

static void run_init(TF_Graph *g, TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  const TF_Operation *init = out(g, "init").oper;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, &init, 1, NULL, s);
  OK(s);
  TF_DeleteStatus(s);
}

/* StatelessWhile (body with a nested call and a nested loop), 0 and 3 trips. */
static void while_call_on_four_devices_matches_one_device(void) {
  for (int pattern = 0; pattern < 2; pattern++) {
    TF_Graph *g1 = capi_load_fixture("fn_call_while.pb");
    TF_Graph *g4 = cf_spread_graph("fn_call_while.pb", CPUS, 4, pattern);
    TF_Session *s1 = session_with_cpus(g1, 1), *s4 = session_with_cpus(g4, 4);
    for (int nv = 0; nv <= 3; nv += 3) {
      TF_Tensor *v1[2] = {NULL, NULL}, *v4[2] = {NULL, NULL};
      TF_Tensor *fv[2] = {x_tensor(), scalar(TF_INT32, nv)};
      TF_Output f1[2] = {out(g1, "x"), out(g1, "n")}, o1[2] = {out(g1, "acc_out"), out(g1, "i_out")};
      TF_Output f4[2] = {out(g4, "x"), out(g4, "n")}, o4[2] = {out(g4, "acc_out"), out(g4, "i_out")};
      run_step(s1, f1, fv, 2, o1, v1, 2);
      run_step(s4, f4, fv, 2, o4, v4, 2);
      expect_same(v1[0], v4[0], "acc_out");
      expect_same(v1[1], v4[1], "i_out");
      EXPECT_EQ(*(int32_t *)TF_TensorData(v4[1]), nv);
      for (int i = 0; i < 2; i++) {
        TF_DeleteTensor(fv[i]);
        TF_DeleteTensor(v1[i]);
        TF_DeleteTensor(v4[i]);
      }
    }
    session_free(s1);
    session_free(s4);
    TF_DeleteGraph(g1);
    TF_DeleteGraph(g4);
  }
}

/* If/StatelessIf (a variable in one branch, a nested cond in the other), every predicate. */
static void if_call_on_four_devices_matches_one_device(void) {
  for (int pattern = 0; pattern < 2; pattern++) {
    TF_Graph *g1 = capi_load_fixture("fn_call_if.pb");
    TF_Graph *g4 = cf_spread_graph("fn_call_if.pb", CPUS, 4, pattern);
    TF_Session *s1 = session_with_cpus(g1, 1), *s4 = session_with_cpus(g4, 4);
    run_init(g1, s1);
    run_init(g4, s4);
    for (int p = 0; p < 2; p++)
      for (int p2 = 0; p2 < 2; p2++) {
        TF_Tensor *fv[3] = {x_tensor(), scalar(TF_BOOL, p), scalar(TF_BOOL, p2)};
        TF_Tensor *v1[2] = {NULL, NULL}, *v4[2] = {NULL, NULL};
        TF_Output f1[3] = {out(g1, "x"), out(g1, "p"), out(g1, "p2")}, o1[2] = {out(g1, "out"), out(g1, "out2")};
        TF_Output f4[3] = {out(g4, "x"), out(g4, "p"), out(g4, "p2")}, o4[2] = {out(g4, "out"), out(g4, "out2")};
        run_step(s1, f1, fv, 3, o1, v1, 2);
        run_step(s4, f4, fv, 3, o4, v4, 2);
        expect_same(v1[0], v4[0], "out");
        expect_same(v1[1], v4[1], "out2");
        for (int i = 0; i < 3; i++) TF_DeleteTensor(fv[i]);
        for (int i = 0; i < 2; i++) {
          TF_DeleteTensor(v1[i]);
          TF_DeleteTensor(v4[i]);
        }
      }
    session_free(s1);
    session_free(s4);
    TF_DeleteGraph(g1);
    TF_DeleteGraph(g4);
  }
}

/* ---------------- dead tensors between devices ---------------- */

/* The cond of cf_dead_branch_check on CPU:0..3: both branches span two devices. */
static void untaken_branch_spanning_two_devices_goes_dead(void) {
  TF_Graph *g = TF_NewGraph();
  cf_dead_branch db = cf_dead_branch_build(g, CPUS);
  TF_Session *sess = session_with_cpus(g, 4);
  cf_dead_branch_check(&db, sess, "Retval[0] does not have value");
  session_free(sess);
  TF_DeleteGraph(g);
}

/* ---------------- deadlines ---------------- */

/* A loop of 2^31 - 1 trips spread over four devices: the deadline aborts the step, every
 * _Recv waiting inside the loop wakes, and the run ends with DEADLINE_EXCEEDED. */
static void deadline_ends_a_loop_spread_over_devices(void) {
  TF_Graph *g = cf_spread_graph("cf_while_counter.pb", CPUS, 4, CF_SPREAD_ROUND_ROBIN);
  TF_Session *sess = session_with_cpus(g, 4);
  TF_Status *s = TF_NewStatus();
  TF_Tensor *n = scalar(TF_INT32, 2147483647);
  TF_Output in = out(g, "n"), o = out(g, "s_out");
  const unsigned char ro[] = {0x10, 0xc8, 0x01}; /* RunOptions.timeout_in_ms = 200 */
  TF_Buffer *rb = TF_NewBufferFromString(ro, sizeof ro);
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, rb, &in, &n, 1, &o, &v, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(TF_Message(s), "Timed out after 200 ms");
  EXPECT_TRUE(v == NULL);
  /* the session still runs a short loop afterwards */
  TF_DeleteTensor(n);
  n = scalar(TF_INT32, 7);
  TF_SessionRun(sess, NULL, &in, &n, 1, &o, &v, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_EQ(*(int32_t *)TF_TensorData(v), 91);
  TF_DeleteTensor(v);
  TF_DeleteBuffer(rb);
  TF_DeleteTensor(n);
  session_free(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* while (i < 10) i = i + dequeue(q) with the dequeue on CPU:1 and the rest on CPU:0: q stays
 * empty, so the loop's _Recv on CPU:0 waits for a tensor CPU:1 never sends. The deadline
 * wakes it (and the dequeue), naming the awaited transfer. */
static void deadline_wakes_a_recv_blocked_inside_a_loop(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Tensor *zero = scalar(TF_INT32, 0);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "i0");
  TF_SetAttrTensor(d, "value", zero, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_SetDevice(d, CPUS[0]);
  TF_Operation *i0 = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(zero);
  TF_Output ins[1] = {{i0, 0}};
  TF_WhileParams wp = TF_NewWhile(g, ins, 1, s);
  OK(s);
  TF_Tensor *ten = scalar(TF_INT32, 10);
  d = TF_NewOperation(wp.cond_graph, "Const", "ten");
  TF_SetAttrTensor(d, "value", ten, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *tenop = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(ten);
  TF_Output less_in[2] = {wp.cond_inputs[0], {tenop, 0}};
  wp.cond_output = (TF_Output){cf_node(wp.cond_graph, "Less", "less", CPUS[0], less_in, 2), 0};
  d = TF_NewOperation(wp.body_graph, "FIFOQueueV2", "q");
  TF_DataType types[1] = {TF_INT32};
  TF_SetAttrTypeList(d, "component_types", types, 1);
  TF_SetAttrString(d, "shared_name", "never_filled", strlen("never_filled"));
  TF_SetDevice(d, CPUS[1]);
  TF_Operation *q = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(wp.body_graph, "QueueDequeueV2", "deq");
  TF_AddInput(d, (TF_Output){q, 0});
  TF_SetAttrTypeList(d, "component_types", types, 1);
  TF_SetDevice(d, CPUS[1]);
  TF_Operation *deq = TF_FinishOperation(d, s);
  OK(s);
  TF_Output add_in[2] = {wp.body_inputs[0], {deq, 0}};
  wp.body_outputs[0] = (TF_Output){cf_node(wp.body_graph, "Add", "add", CPUS[0], add_in, 2), 0};
  wp.name = "blocked";
  TF_Output outs[1];
  TF_FinishWhile(&wp, s, outs);
  OK(s);
  TF_Session *sess = session_with_cpus(g, 2);
  const unsigned char ro[] = {0x10, 0xc8, 0x01}; /* RunOptions.timeout_in_ms = 200 */
  TF_Buffer *rb = TF_NewBufferFromString(ro, sizeof ro);
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, rb, NULL, NULL, 0, outs, &v, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(TF_Message(s), "Timed out after 200 ms");
  EXPECT_CONTAINS(TF_Message(s), "still waiting for tensors: ");
  EXPECT_CONTAINS(TF_Message(s), "_blocked/body/deq;");
  EXPECT_TRUE(v == NULL);
  TF_DeleteBuffer(rb);
  session_free(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static TF_Operation *f32_const(TF_Graph *g, const char *name, float v, const char *dev) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(t) = v;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  if (dev) TF_SetDevice(d, dev);
  TF_Operation *o = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return o;
}

/* while (x > 0) x = check_numerics(x * 1e10): the multiply on CPU:0, the check on CPU:1.
 * The fourth trip overflows to inf and the check fails on CPU:1 while CPU:0 waits inside the
 * loop for its result; the error aborts the step there too and comes back as the step's. */
static void error_on_one_device_ends_a_loop_on_the_other(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Output ins[1] = {{f32_const(g, "x0", 1, CPUS[0]), 0}};
  TF_WhileParams wp = TF_NewWhile(g, ins, 1, s);
  OK(s);
  TF_Output gt_in[2] = {wp.cond_inputs[0], {f32_const(wp.cond_graph, "zero", 0, CPUS[0]), 0}};
  wp.cond_output = (TF_Output){cf_node(wp.cond_graph, "Greater", "positive", CPUS[0], gt_in, 2), 0};
  TF_Output mul_in[2] = {wp.body_inputs[0], {f32_const(wp.body_graph, "big", 1e10f, CPUS[0]), 0}};
  TF_Operation *mul = cf_node(wp.body_graph, "Mul", "grow", CPUS[0], mul_in, 2);
  TF_OperationDescription *d = TF_NewOperation(wp.body_graph, "CheckNumerics", "check");
  TF_AddInput(d, (TF_Output){mul, 0});
  TF_SetAttrString(d, "message", "overflow", strlen("overflow"));
  TF_SetDevice(d, CPUS[1]);
  TF_Operation *check = TF_FinishOperation(d, s);
  OK(s);
  wp.body_outputs[0] = (TF_Output){check, 0};
  wp.name = "grows";
  TF_Output outs[1];
  TF_FinishWhile(&wp, s, outs);
  OK(s);
  TF_Session *sess = session_with_cpus(g, 2);
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, &v, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "overflow");
  EXPECT_CONTAINS(TF_Message(s), "{{node grows/body/check}}");
  EXPECT_CONTAINS(TF_Message(s), "device:CPU:1");
  EXPECT_TRUE(v == NULL);
  session_free(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

#define SPREAD_TEST_ENTRY(n) TFC_TEST(n##_on_four_devices),
static const tfc_test tests[] = {
    CF_FIXTURES(SPREAD_TEST_ENTRY)
    TFC_TEST(while_call_on_four_devices_matches_one_device),
    TFC_TEST(if_call_on_four_devices_matches_one_device),
    TFC_TEST(untaken_branch_spanning_two_devices_goes_dead),
    TFC_TEST(deadline_ends_a_loop_spread_over_devices),
    TFC_TEST(deadline_wakes_a_recv_blocked_inside_a_loop),
    TFC_TEST(error_on_one_device_ends_a_loop_on_the_other),
    {0},
};

TFC_TEST_MAIN(tests)
