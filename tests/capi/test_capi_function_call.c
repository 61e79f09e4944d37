/*
 * Function calls run: TF-written graphs (tests/fixtures/gen_functional.py) whose
 * PartitionedCall / StatefulPartitionedCall nodes call library functions, nested calls and a
 * variable inside a function included, give TF's outputs (fn_call_expected.txt) within 1e-5;
 * If and While nodes (tf.cond, tf.while_loop under control flow v2) too;
 * a call of an unknown function or with the wrong argument count fails naming the node; a node
 * whose op is a function copied into the graph runs.
 */
#include <math.h>
#include <string.h>

#include "capi_util.h"
#include "tfc/tfc.h"

static const float X[6] = {-1, -0.5f, 0, 0.5f, 1, 1.5f};
static const float Y[6] = {0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f};

/* TF's values for `key` from fn_call_expected.txt; returns how many (at most max). */
static int expected(const char *key, float *out, int max) {
  char path[1024], line[1024];
  snprintf(path, sizeof path, "%s/fn_call_expected.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *p = strchr(line, ' ');
    if (!p) continue;
    *p = 0;
    if (strcmp(line, key) != 0) continue;
    char *end;
    for (p++; n < max; p = end) {
      float v = strtof(p, &end);
      if (end == p) break;
      out[n++] = v;
    }
  }
  fclose(f);
  return n;
}

static void expect_close(TF_Tensor *t, const char *key) {
  float want[16];
  int n = expected(key, want, 16);
  EXPECT_TRUE(n > 0);
  EXPECT_EQ((int)TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ((int)(TF_TensorByteSize(t) / sizeof(float)), n);
  const float *got = TF_TensorData(t);
  for (int i = 0; i < n; i++)
    if (fabsf(got[i] - want[i]) > 1e-5f)
      tfc_test_fail(__FILE__, __LINE__, "%s[%d]: %g, TF %g", key, i, got[i], want[i]);
}

static TF_Tensor *f32_tensor(const float *v, const int64_t *dims, int nd, int n) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, nd, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  return t;
}

static TF_Output out(TF_Graph *g, const char *name) {
  TF_Operation *op = TF_GraphOperationByName(g, name);
  EXPECT_TRUE(op != NULL);
  return (TF_Output){op, 0};
}

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* outer(x, y) = (inner(x) * 2 + y, tanh(x) - y), inner a nested PartitionedCall. */
static void nested_partitioned_calls_give_tfs_outputs(void) {
  TF_Graph *g = capi_load_fixture("fn_call_nested.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t dims[2] = {2, 3};
  TF_Output feeds[2] = {out(g, "x"), out(g, "y")};
  TF_Tensor *fv[2] = {f32_tensor(X, dims, 2, 6), f32_tensor(Y, dims, 2, 6)};
  TF_Output fetches[2] = {out(g, "out0"), out(g, "out1")};
  TF_Tensor *vals[2] = {NULL, NULL};
  for (int rep = 0; rep < 2; rep++) { /* the second run reuses the cached plan */
    TF_SessionRun(sess, NULL, feeds, fv, 2, fetches, vals, 2, NULL, 0, NULL, s);
    OK(s);
    expect_close(vals[0], "nested_out0");
    expect_close(vals[1], "nested_out1");
    TF_DeleteTensor(vals[0]);
    TF_DeleteTensor(vals[1]);
  }
  TF_DeleteTensor(fv[0]);
  TF_DeleteTensor(fv[1]);
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* step(x): v.assign_add(x); return v * 3 — the function updates the caller's variable. */
static void stateful_call_updates_the_callers_variable(void) {
  TF_Graph *g = capi_load_fixture("fn_call_variable.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Operation *init = TF_GraphOperationByName(g, "init");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  OK(s);
  const float xv[3] = {1, 2, 3};
  int64_t dims[1] = {3};
  TF_Output feed = out(g, "x"), fetch = out(g, "res");
  TF_Tensor *xt = f32_tensor(xv, dims, 1, 3);
  const char *keys[2] = {"variable_run0", "variable_run1"};
  for (int i = 0; i < 2; i++) {
    TF_Tensor *v = NULL;
    TF_SessionRun(sess, NULL, &feed, &xt, 1, &fetch, &v, 1, NULL, 0, NULL, s);
    OK(s);
    expect_close(v, keys[i]);
    TF_DeleteTensor(v);
  }
  TF_DeleteTensor(xt);
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static TF_Tensor *bool_scalar(int b) {
  TF_Tensor *t = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
  *(unsigned char *)TF_TensorData(t) = (unsigned char)b;
  return t;
}

/* tf.cond under control flow v2 (If nodes): both branches, a nested call in one, a variable
 * in the other, and a cond nested in a branch, for every value of the two predicates. */
static void if_nodes_give_tfs_outputs(void) {
  TF_Graph *g = capi_load_fixture("fn_call_if.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Operation *init = TF_GraphOperationByName(g, "init");
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  OK(s);
  int64_t dims[2] = {2, 3}, got[2] = {0, 0}; /* the If's shape comes from its output_shapes */
  EXPECT_EQ(TF_GraphGetTensorNumDims(g, out(g, "cond"), s), 2);
  TF_GraphGetTensorShape(g, out(g, "cond"), got, 2, s);
  OK(s);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 3);
  TF_Output feeds[3] = {out(g, "x"), out(g, "p"), out(g, "p2")};
  TF_Output fetches[2] = {out(g, "out"), out(g, "out2")};
  for (int p = 0; p < 2; p++)
    for (int p2 = 0; p2 < 2; p2++) {
      TF_Tensor *fv[3] = {f32_tensor(X, dims, 2, 6), bool_scalar(p), bool_scalar(p2)};
      TF_Tensor *vals[2] = {NULL, NULL};
      TF_SessionRun(sess, NULL, feeds, fv, 3, fetches, vals, 2, NULL, 0, NULL, s);
      OK(s);
      char key[64];
      snprintf(key, sizeof key, "if_p%d_p2%d_out", p, p2);
      expect_close(vals[0], key);
      snprintf(key, sizeof key, "if_p%d_p2%d_out2", p, p2);
      expect_close(vals[1], key);
      for (int i = 0; i < 3; i++) TF_DeleteTensor(fv[i]);
      TF_DeleteTensor(vals[0]);
      TF_DeleteTensor(vals[1]);
    }
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* tf.while_loop under control flow v2 (While nodes): a loop with a nested call and a nested
 * loop in its body, run for 0 and 3 iterations. */
static void while_nodes_give_tfs_outputs(void) {
  TF_Graph *g = capi_load_fixture("fn_call_while.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t dims[2] = {2, 3};
  TF_Output feeds[2] = {out(g, "x"), out(g, "n")};
  TF_Output fetches[2] = {out(g, "acc_out"), out(g, "i_out")};
  for (int nv = 0; nv <= 3; nv += 3) {
    TF_Tensor *nt = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
    *(int32_t *)TF_TensorData(nt) = nv;
    TF_Tensor *fv[2] = {f32_tensor(X, dims, 2, 6), nt};
    TF_Tensor *vals[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, feeds, fv, 2, fetches, vals, 2, NULL, 0, NULL, s);
    OK(s);
    char key[64];
    snprintf(key, sizeof key, "while_n%d_acc", nv);
    expect_close(vals[0], key);
    float want_i;
    snprintf(key, sizeof key, "while_n%d_i", nv);
    EXPECT_EQ(expected(key, &want_i, 1), 1);
    EXPECT_EQ(*(int32_t *)TF_TensorData(vals[1]), (int32_t)want_i);
    for (int i = 0; i < 2; i++) {
      TF_DeleteTensor(fv[i]);
      TF_DeleteTensor(vals[i]);
    }
  }
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* If with non-bool conds (TF's truthiness): an int32 scalar is true when nonzero, a float
 * vector when it is not empty, whatever its values. */
static void if_cond_truthiness_matches_tf(void) {
  TF_Graph *g = capi_load_fixture("fn_call_if_truthy.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  const float xv[3] = {1, 2, 3};
  int64_t d3[1] = {3};
  const int cs[3] = {0, 5, -1};
  for (int k = 0; k < 3; k++) {
    TF_Tensor *ct = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
    *(int32_t *)TF_TensorData(ct) = cs[k];
    TF_Output feeds[2] = {out(g, "x"), out(g, "c")}, fetch = out(g, "o1");
    TF_Tensor *fv[2] = {f32_tensor(xv, d3, 1, 3), ct}, *v = NULL;
    TF_SessionRun(sess, NULL, feeds, fv, 2, &fetch, &v, 1, NULL, 0, NULL, s);
    OK(s);
    char key[32];
    snprintf(key, sizeof key, "truthy_c%d", cs[k]);
    expect_close(v, key);
    TF_DeleteTensor(v);
    TF_DeleteTensor(fv[0]);
    TF_DeleteTensor(fv[1]);
  }
  const float zeros[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    int64_t dn[1] = {k};
    TF_Output feeds[2] = {out(g, "x"), out(g, "cv")}, fetch = out(g, "o2");
    TF_Tensor *fv[2] = {f32_tensor(xv, d3, 1, 3), f32_tensor(zeros, dn, 1, k)}, *v = NULL;
    TF_SessionRun(sess, NULL, feeds, fv, 2, &fetch, &v, 1, NULL, 0, NULL, s);
    OK(s);
    char key[32];
    snprintf(key, sizeof key, "truthy_cv%d", k);
    expect_close(v, key);
    TF_DeleteTensor(v);
    TF_DeleteTensor(fv[0]);
    TF_DeleteTensor(fv[1]);
  }
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* Builds PartitionedCall(x) of `fname` with Tin = [float] * n_args and runs it: the code and
 * message of the run. */
static void run_bad_call(const char *fname, int n_args, char *msg, size_t n_msg, int *code) {
  TF_Graph *g = capi_load_fixture("fn_call_nested.pb");
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "PartitionedCall", "bad");
  TF_Output x = out(g, "x");
  TF_Output ins[2] = {x, x};
  TF_AddInputList(d, ins, n_args);
  TF_DataType tin[2] = {TF_FLOAT, TF_FLOAT}, tout[1] = {TF_FLOAT};
  TF_SetAttrTypeList(d, "Tin", tin, n_args);
  TF_SetAttrTypeList(d, "Tout", tout, 1);
  TF_SetAttrFuncName(d, "f", fname, strlen(fname));
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  int64_t dims[2] = {2, 3};
  TF_Tensor *xt = f32_tensor(X, dims, 2, 6);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Output fetch = {op, 0};
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, NULL, &x, &xt, 1, &fetch, &v, 1, NULL, 0, NULL, s);
  *code = TF_GetCode(s);
  snprintf(msg, n_msg, "%s", TF_Message(s));
  EXPECT_TRUE(v == NULL);
  TF_DeleteTensor(xt);
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void call_of_unknown_function_names_the_node(void) {
  char msg[512];
  int code;
  run_bad_call("no_such_function", 1, msg, sizeof msg, &code);
  EXPECT_EQ(code, TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(msg, "'bad'") != NULL);
  EXPECT_TRUE(strstr(msg, "no_such_function") != NULL);
}

static void call_with_wrong_argument_count_names_the_node(void) {
  char msg[512];
  int code;
  run_bad_call("__inference_inner_12", 2, msg, sizeof msg, &code);
  EXPECT_EQ(code, TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(msg, "'bad'") != NULL);
  EXPECT_TRUE(strstr(msg, "takes 1 arguments, but the call gives 2") != NULL);
}

/* A node whose op is a library function, made with the C API as TF allows after
 * TF_GraphCopyFunction: MySquare(x) = x * x from TF_GraphToFunction, called by name. Its op type is
 * the function's name; it runs (lowered) and gives x * x. */
static void node_naming_a_copied_function_runs(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *body = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(body, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *x = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(body, "Mul", "sq");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){x, 0});
  TF_Operation *sq = TF_FinishOperation(d, s);
  OK(s);
  TF_Output in = {x, 0}, res = {sq, 0};
  TF_Function *fn = TF_GraphToFunction(body, "MySquare", 0, -1, NULL, 1, &in, 1, &res, NULL, NULL, NULL, s);
  OK(s);
  TF_Graph *g = TF_NewGraph();
  TF_GraphCopyFunction(g, fn, NULL, s);
  OK(s);
  d = TF_NewOperation(g, "Placeholder", "a");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *a = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(g, "MySquare", "call");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_Operation *call = TF_FinishOperation(d, s);
  OK(s);
  EXPECT_STREQ(TF_OperationOpType(call), "MySquare");
  EXPECT_EQ(TF_OperationNumOutputs(call), 1);
  EXPECT_EQ((int)TF_OperationOutputType((TF_Output){call, 0}), TF_FLOAT);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t dims[1] = {6};
  TF_Tensor *av = f32_tensor(X, dims, 1, 6), *outv = NULL;
  TF_Output feed = {a, 0}, fetch = {call, 0};
  TF_SessionRun(sess, NULL, &feed, &av, 1, &fetch, &outv, 1, NULL, 0, NULL, s);
  OK(s);
  const float *got = TF_TensorData(outv);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(got[i], X[i] * X[i], 0);
  TF_DeleteTensor(outv);
  TF_DeleteTensor(av);
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteFunction(fn);
  TF_DeleteGraph(g);
  TF_DeleteGraph(body);
  TF_DeleteStatus(s);
}

/* A body over two CPUs: Pin(x) = Neg(Identity(x)) where the Identity asks for CPU:1 and the Neg
 * is colocated with it (_class loc:@on1, renamed with the call's prefix when lowered, as TF's
 * inliner does) and the function's other node asks for nothing. The call sits on CPU:0 (its
 * request), so that node defaults there; the log's reasons say so. */
static void body_requests_and_colocation_hold_when_lowered(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *body = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(body, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *x = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(body, "Identity", "on1");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_SetDevice(d, "/device:CPU:1");
  TF_Operation *on1 = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(body, "Neg", "neg");
  TF_AddInput(d, (TF_Output){on1, 0});
  TF_ColocateWith(d, on1);
  TF_Operation *neg = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(body, "Square", "free");
  TF_AddInput(d, (TF_Output){neg, 0});
  TF_Operation *sq = TF_FinishOperation(d, s);
  OK(s);
  TF_Output in = {x, 0}, res = {sq, 0};
  TF_Function *fn = TF_GraphToFunction(body, "Pin", 0, -1, NULL, 1, &in, 1, &res, NULL, NULL, NULL, s);
  OK(s);
  TF_Graph *g = TF_NewGraph();
  TF_GraphCopyFunction(g, fn, NULL, s);
  OK(s);
  d = TF_NewOperation(g, "Placeholder", "a");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *a = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(g, "Pin", "call");
  TF_AddInput(d, (TF_Output){a, 0});
  TF_SetDevice(d, "/device:CPU:0");
  TF_Operation *call = TF_FinishOperation(d, s);
  OK(s);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TFC_SetDeviceCount(so, "CPU", 2, s);
  OK(s);
  TFC_SetLogPlacementReasons(so, 1);
  tfc_capture cap;
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  int64_t dims[1] = {6};
  TF_Tensor *av = f32_tensor(X, dims, 1, 6), *outv = NULL;
  TF_Output feed = {a, 0}, fetch = {call, 0};
  TF_SessionRun(sess, NULL, &feed, &av, 1, &fetch, &outv, 1, NULL, 0, NULL, s);
  static char log[16384];
  tfc_capture_end(&cap, log, sizeof log);
  OK(s);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)TF_TensorData(outv))[i], X[i] * X[i], 1e-6);
#define CPU_(n) "/job:localhost/replica:0/task:0/device:CPU:" #n
  EXPECT_CONTAINS(log, "call/on1: (Identity): " CPU_(1) "  # explicit request /device:CPU:1\n");
  EXPECT_CONTAINS(log, "call/neg: (Neg): " CPU_(1) "  # colocated with call/on1 via _class loc:@call/on1\n");
  EXPECT_CONTAINS(log, "call/free_0: (Square): " CPU_(0) "  # default: the device of its function call call\n");
#undef CPU_
  TF_DeleteTensor(av);
  TF_DeleteTensor(outv);
  close_session(sess);
  TF_DeleteSessionOptions(so);
  TF_DeleteFunction(fn);
  TF_DeleteGraph(body);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(nested_partitioned_calls_give_tfs_outputs),
    TFC_TEST(stateful_call_updates_the_callers_variable),
    TFC_TEST(if_nodes_give_tfs_outputs),
    TFC_TEST(while_nodes_give_tfs_outputs),
    TFC_TEST(if_cond_truthiness_matches_tf),
    TFC_TEST(call_of_unknown_function_names_the_node),
    TFC_TEST(call_with_wrong_argument_count_names_the_node),
    TFC_TEST(node_naming_a_copied_function_runs),
    TFC_TEST(body_requests_and_colocation_hold_when_lowered),
    {0},
};
TFC_TEST_MAIN(tests)
