/* Function calls on a (fake) GPU: PartitionedCall, StatelessIf and StatelessWhile are placed on
 * GPU:0 as TF places them, and their lowered bodies are placed node by node
 * (session/client_graph.h): a body node defaults to its call's device where it has a kernel
 * there (the fake GPU's Identity, its host-memory int32 math, the lowered control flow), goes
 * to the CPU where it has none (a float Mul or Neg: the fake platform runs no device code),
 * and keeps its own request (an Identity asking for the CPU). Values are the CPU's; the
 * placement is read from log_device_placement's lines with tfc's reasons, which name the call
 * a body node follows. A loop whose body spans both devices runs to its end.
 *
 * Sessions go through the C API, as a user's would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_host_graph.c"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define GPU LH "GPU:0"
#define CPU LH "CPU:0"

/* ---- functions ---- */

static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  return finish(d);
}

/* Makes fn_body's function `name` of inputs in[0..n_in) and outputs out[0..n_out), copies it
 * into g's library and deletes fn_body. */
static void add_function(TF_Graph *g, TF_Graph *fn_body, const char *name, const TF_Output *in, int n_in,
                         const TF_Output *out, int n_out) {
  TF_Status *s = TF_NewStatus();
  TF_Function *fn = TF_GraphToFunction(fn_body, name, 0, -1, NULL, n_in, in, n_out, out, NULL, NULL, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_GraphCopyFunction(g, fn, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteFunction(fn);
  TF_DeleteGraph(fn_body);
  TF_DeleteStatus(s);
}

/* Mixed(x: float, k: int32) -> (x * x through a CPU Identity, k + k):
 *   idf = Identity(x)       a fake-GPU kernel: the call's device
 *   sq = Mul(idf, idf)      no fake-GPU kernel: the CPU
 *   onc = Identity(sq)      asks for /device:CPU:0 (TF_GraphToFunction names the
 *                           body nodes onc_0 and z_0: their names are the outputs')
 *   z = Add(k, k)           int32: the GPU's host-memory row */
static void add_mixed(TF_Graph *g) {
  TF_Graph *b = TF_NewGraph();
  TF_Operation *x = placeholder(b, "x", TF_FLOAT), *k = placeholder(b, "k", TF_INT32);
  TF_Operation *idf = NODE(b, "Identity", "idf", NULL, x);
  TF_Operation *sq = NODE(b, "Mul", "sq", NULL, idf, idf);
  TF_Operation *onc = NODE(b, "Identity", "onc", "/device:CPU:0", sq);
  TF_Operation *z = NODE(b, "Add", "z", NULL, k, k);
  add_function(g, b, "Mixed", (TF_Output[]){{x, 0}, {k, 0}}, 2, (TF_Output[]){{onc, 0}, {z, 0}}, 2);
}

/* One-op function `name`(x: dt) -> op(x) (op "Identity" or "Neg"). */
static void add_unary(TF_Graph *g, const char *name, const char *op, TF_DataType dt) {
  TF_Graph *b = TF_NewGraph();
  TF_Operation *x = placeholder(b, "x", dt);
  TF_Operation *y = NODE(b, op, "y", NULL, x);
  add_function(g, b, name, (TF_Output[]){{x, 0}}, 1, (TF_Output[]){{y, 0}}, 1);
}

/* The loop of `while i < 3: i, acc = i + 1, acc * 2`: Cond(i, acc) -> i < 3 and
 * Body(i, acc) -> (i + 1, acc * 2); the int32 ops run on the GPU's host rows, the float Mul
 * on the CPU. */
static void add_loop(TF_Graph *g) {
  TF_Graph *c = TF_NewGraph();
  TF_Operation *ci = placeholder(c, "i", TF_INT32), *cacc = placeholder(c, "acc", TF_FLOAT);
  TF_Operation *less = NODE(c, "Less", "less", NULL, ci, i32s(c, "three", 3));
  add_function(g, c, "Cond", (TF_Output[]){{ci, 0}, {cacc, 0}}, 2, (TF_Output[]){{less, 0}}, 1);
  TF_Graph *b = TF_NewGraph();
  TF_Operation *bi = placeholder(b, "i", TF_INT32), *bacc = placeholder(b, "acc", TF_FLOAT);
  TF_Operation *next = NODE(b, "Add", "next", NULL, bi, i32s(b, "one", 1));
  TF_Operation *twice = NODE(b, "Mul", "twice", NULL, bacc, f32c(b, "two", NULL, NULL, 0, (float[]){2}));
  add_function(g, b, "Body", (TF_Output[]){{bi, 0}, {bacc, 0}}, 2, (TF_Output[]){{next, 0}, {twice, 0}}, 2);
}

static void set_types(TF_OperationDescription *d, const char *attr, const TF_DataType *t, int n) {
  TF_SetAttrTypeList(d, attr, t, n);
}

static void set_func(TF_OperationDescription *d, const char *attr, const char *fn) {
  TF_SetAttrFuncName(d, attr, fn, strlen(fn));
}

/* A session logging placement with tfc's reasons; soft placement as asked. */
static TF_Session *logging_session(TF_Graph *g, int soft) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetLogPlacementReasons(o, 1);
  TFC_SetAllowSoftPlacement(o, (unsigned char)soft);
  TF_Status *s = TF_NewStatus();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteSessionOptions(o);
  return sess;
}

static void expect_f32(const TF_Tensor *t, const float *v, int n) {
  EXPECT_EQ(TF_TensorType(t), TF_FLOAT);
  EXPECT_EQ(TF_TensorElementCount(t), n);
  const float *got = TF_TensorData(t);
  for (int i = 0; i < n; i++) EXPECT_NEAR(got[i], v[i], 1e-6);
}

/* A PartitionedCall of Mixed: the call on GPU:0, each body node where its kernels are. */
static TF_Operation *mixed_call(TF_Graph *g, const char *dev) {
  add_mixed(g);
  TF_Operation *x = f32c(g, "x", NULL, (int64_t[]){2}, 1, (float[]){1.5f, -2});
  TF_Operation *k = i32s(g, "k", 3);
  TF_OperationDescription *d = TF_NewOperation(g, "PartitionedCall", "call");
  TF_AddInputList(d, (TF_Output[]){{x, 0}, {k, 0}}, 2);
  set_types(d, "Tin", (TF_DataType[]){TF_FLOAT, TF_INT32}, 2);
  set_types(d, "Tout", (TF_DataType[]){TF_FLOAT, TF_INT32}, 2);
  set_func(d, "f", "Mixed");
  if (dev) TF_SetDevice(d, dev);
  return finish(d);
}

/* Runs a PartitionedCall of Mixed (on dev when given) on one fake GPU with the placement log
 * captured into out: the values are the CPU's wherever the body ran. Returns the device the
 * call was placed on (static). */
static const char *run_mixed(const char *dev, char *out, size_t n) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *call = mixed_call(g, dev);
  tfc_capture cap;
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = logging_session(g, 0);
  TF_Tensor *r[2];
  run_ok(sess, NULL, NULL, 0, (TF_Output[]){{call, 0}, {call, 1}}, 2, r);
  tfc_capture_end(&cap, out, n);
  expect_f32(r[0], (float[]){2.25f, 4}, 2);
  expect_i32(r[1], NULL, 0, (int32_t[]){6});
  static char where[128];
  snprintf(where, sizeof where, "%s", placed(sess, call));
  for (int i = 0; i < 2; i++) TF_DeleteTensor(r[i]);
  close_session(sess);
  TF_DeleteGraph(g);
  return where;
}

static void call_body_is_placed_node_by_node(void) {
  static char out[16384];
  EXPECT_STREQ(run_mixed(NULL, out, sizeof out), GPU);
  EXPECT_CONTAINS(out, "call: (PartitionedCall): " GPU "  # default: first device with a kernel\n");
  EXPECT_CONTAINS(out, "call/idf: (Identity): " GPU "  # default: the device of its function call call\n");
  EXPECT_CONTAINS(out, "call/sq: (Mul): " CPU "  # default: first device with a kernel\n");
  EXPECT_CONTAINS(out, "call/onc_0: (Identity): " CPU "  # explicit request /device:CPU:0\n");
  EXPECT_CONTAINS(out, "call/z_0: (Add): " GPU "  # default: the device of its function call call\n");
}

/* A call pinned to the CPU keeps its body there: the call's device is the body's default. */
static void call_on_cpu_keeps_its_body_on_cpu(void) {
  static char out[16384];
  EXPECT_STREQ(run_mixed("/device:CPU:0", out, sizeof out), CPU);
  EXPECT_CONTAINS(out, "call/idf: (Identity): " CPU "  # default: the device of its function call call\n");
  EXPECT_CONTAINS(out, "call/z_0: (Add): " CPU "  # default: the device of its function call call\n");
  EXPECT_TRUE(strstr(out, "call/idf: (Identity): " GPU) == NULL);
}

/* StatelessIf on the GPU: its Switch takes the predicate in host memory; the then branch (an
 * Identity) runs on the GPU, the else branch (Neg) on the CPU; both predicates give the CPU's
 * value. */
static void if_runs_both_branches_across_devices(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  add_unary(g, "Then", "Identity", TF_FLOAT);
  add_unary(g, "Else", "Neg", TF_FLOAT);
  TF_Operation *pred = placeholder(g, "pred", TF_BOOL);
  TF_Operation *x = f32c(g, "x", NULL, (int64_t[]){3}, 1, (float[]){1, -2, 3.5f});
  TF_OperationDescription *d = TF_NewOperation(g, "StatelessIf", "cond");
  TF_AddInput(d, (TF_Output){pred, 0});
  TF_AddInputList(d, (TF_Output[]){{x, 0}}, 1);
  TF_SetAttrType(d, "Tcond", TF_BOOL);
  set_types(d, "Tin", (TF_DataType[]){TF_FLOAT}, 1);
  set_types(d, "Tout", (TF_DataType[]){TF_FLOAT}, 1);
  set_func(d, "then_branch", "Then");
  set_func(d, "else_branch", "Else");
  TF_Operation *cond = finish(d);
  tfc_capture cap;
  static char out[16384];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = logging_session(g, 0);
  for (int taken = 0; taken < 2; taken++) {
    TF_Tensor *p = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
    *(unsigned char *)TF_TensorData(p) = (unsigned char)taken;
    TF_Tensor *r;
    run_ok(sess, (TF_Output[]){{pred, 0}}, &p, 1, (TF_Output[]){{cond, 0}}, 1, &r);
    expect_f32(r, taken ? (float[]){1, -2, 3.5f} : (float[]){-1, 2, -3.5f}, 3);
    TF_DeleteTensor(r);
  }
  tfc_capture_end(&cap, out, sizeof out);
  EXPECT_STREQ(placed(sess, cond), GPU);
  EXPECT_CONTAINS(out, "(Switch): " GPU "  # default: the device of its function call cond\n");
  EXPECT_CONTAINS(out, "(Identity): " GPU "  # default: the device of its function call cond\n");
  EXPECT_CONTAINS(out, "(Neg): " CPU "  # default: first device with a kernel\n");
  close_session(sess);
  TF_DeleteGraph(g);
}

/* StatelessWhile on the GPU: the loop's frame spans the GPU (its int32 counter, the control
 * flow) and the CPU (the float Mul); it runs three iterations and ends. */
static void while_loop_spans_gpu_and_cpu(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  add_loop(g);
  TF_Operation *i0 = i32s(g, "i0", 0);
  TF_Operation *x = f32c(g, "x", NULL, (int64_t[]){2}, 1, (float[]){0.5f, -3});
  TF_OperationDescription *d = TF_NewOperation(g, "StatelessWhile", "loop");
  TF_AddInputList(d, (TF_Output[]){{i0, 0}, {x, 0}}, 2);
  set_types(d, "T", (TF_DataType[]){TF_INT32, TF_FLOAT}, 2);
  set_func(d, "cond", "Cond");
  set_func(d, "body", "Body");
  TF_Operation *loop = finish(d);
  tfc_capture cap;
  static char out[65536];
  tfc_capture_begin(&cap, 1);
  TF_Session *sess = logging_session(g, 0);
  TF_Tensor *r[2];
  run_ok(sess, NULL, NULL, 0, (TF_Output[]){{loop, 0}, {loop, 1}}, 2, r);
  tfc_capture_end(&cap, out, sizeof out);
  expect_i32(r[0], NULL, 0, (int32_t[]){3});
  expect_f32(r[1], (float[]){4, -24}, 2);
  EXPECT_STREQ(placed(sess, loop), GPU);
  EXPECT_CONTAINS(out, "(LoopCond): " GPU);
  EXPECT_CONTAINS(out, "(Less): " GPU);
  EXPECT_CONTAINS(out, "(Mul): " CPU);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(r[i]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* Without any GPU the same graphs run on the CPU, the call's device. */
static void without_gpu_everything_stays_on_cpu(void) {
  install(0);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *call = mixed_call(g, NULL);
  TF_Session *sess = session(g);
  TF_Tensor *r[2];
  run_ok(sess, NULL, NULL, 0, (TF_Output[]){{call, 0}, {call, 1}}, 2, r);
  expect_f32(r[0], (float[]){2.25f, 4}, 2);
  expect_i32(r[1], NULL, 0, (int32_t[]){6});
  EXPECT_STREQ(placed(sess, call), CPU);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(r[i]);
  close_session(sess);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(call_body_is_placed_node_by_node),
    TFC_TEST(call_on_cpu_keeps_its_body_on_cpu),
    TFC_TEST(if_runs_both_branches_across_devices),
    TFC_TEST(while_loop_spans_gpu_and_cpu),
    TFC_TEST(without_gpu_everything_stays_on_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
