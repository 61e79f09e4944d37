/*
 * TF1 control flow through the C API: dead tensors (Switch, Merge, control edges,
 * ControlTrigger), fetching a dead tensor, and a graph whose node has inputs from two frames.
 * Loops and conditionals written by TensorFlow are in tests/fixtures (cf_* fixtures).
 */
#include <stdint.h>
#include <string.h>

#include "capi_util.h"

typedef struct cf {
  TF_Graph *g;
  TF_Status *s;
  TF_Operation *x, *p; /* float scalar and bool scalar placeholders */
} cf;

static TF_Operation *placeholder(cf *c, const char *name, TF_DataType dt) {
  TF_OperationDescription *d = TF_NewOperation(c->g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  return op;
}

static TF_Operation *scalar_const(cf *c, const char *name, float v) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(t) = v;
  TF_OperationDescription *d = TF_NewOperation(c->g, "Const", name);
  TF_SetAttrTensor(d, "value", t, c->s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  TF_DeleteTensor(t);
  return op;
}

/* op(inputs...) with optional control inputs; NULL-terminated lists. */
static TF_Operation *node(cf *c, const char *type, const char *name, TF_Output *ins, int n_ins,
                          TF_Operation **ctl, int n_ctl) {
  TF_OperationDescription *d = TF_NewOperation(c->g, type, name);
  for (int i = 0; i < n_ins; i++) TF_AddInput(d, ins[i]);
  for (int i = 0; i < n_ctl; i++) TF_AddControlInput(d, ctl[i]);
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  return op;
}

static TF_Operation *merge(cf *c, const char *name, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TF_NewOperation(c->g, "Merge", name);
  TF_Output l[2] = {a, b};
  TF_AddInputList(d, l, 2);
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  return op;
}

static void cf_init(cf *c) {
  c->g = TF_NewGraph();
  c->s = TF_NewStatus();
  c->x = placeholder(c, "x", TF_FLOAT);
  c->p = placeholder(c, "p", TF_BOOL);
}

static void cf_fini(cf *c) {
  TF_DeleteGraph(c->g);
  TF_DeleteStatus(c->s);
}

/* Runs with x and p fed; fetches outs into vals (NULL where not produced). Returns the code. */
static int run(cf *c, float x, int p, TF_Output *outs, int n, TF_Tensor **vals) {
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(c->g, so, c->s);
  OK(c->s);
  TF_Tensor *xt = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(xt) = x;
  TF_Tensor *pt = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
  *(unsigned char *)TF_TensorData(pt) = (unsigned char)p;
  TF_Output feeds[2] = {{c->x, 0}, {c->p, 0}};
  TF_Tensor *fv[2] = {xt, pt};
  for (int i = 0; i < n; i++) vals[i] = NULL;
  TF_SessionRun(sess, NULL, feeds, fv, 2, outs, vals, n, NULL, 0, NULL, c->s);
  int code = TF_GetCode(c->s);
  TF_DeleteTensor(xt);
  TF_DeleteTensor(pt);
  TF_Status *cs = TF_NewStatus();
  TF_CloseSession(sess, cs);
  TF_DeleteSession(sess, cs);
  TF_DeleteStatus(cs);
  TF_DeleteSessionOptions(so);
  return code;
}

static float f32(TF_Tensor *t) { return *(float *)TF_TensorData(t); }
static int i32(TF_Tensor *t) { return *(int *)TF_TensorData(t); }

static void free_vals(TF_Tensor **v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i]) TF_DeleteTensor(v[i]);
}

/* Switch -> (x + 1 on port 0, x * 2 on port 1) -> Merge: the taken branch's value and index. */
static void merge_takes_the_live_branch(void) {
  cf c;
  cf_init(&c);
  TF_Output sw_in[2] = {{c.x, 0}, {c.p, 0}};
  TF_Operation *sw = node(&c, "Switch", "sw", sw_in, 2, NULL, 0);
  TF_Output add_in[2] = {{sw, 0}, {scalar_const(&c, "one", 1), 0}};
  TF_Operation *add = node(&c, "AddV2", "add", add_in, 2, NULL, 0);
  TF_Output mul_in[2] = {{sw, 1}, {scalar_const(&c, "two", 2), 0}};
  TF_Operation *mul = node(&c, "Mul", "mul", mul_in, 2, NULL, 0);
  TF_Operation *m = merge(&c, "m", (TF_Output){add, 0}, (TF_Output){mul, 0});
  TF_Output outs[2] = {{m, 0}, {m, 1}};
  TF_Tensor *v[2];
  EXPECT_EQ(run(&c, 3, 0, outs, 2, v), TF_OK);
  EXPECT_NEAR(f32(v[0]), 4, 0);
  EXPECT_EQ(i32(v[1]), 0);
  free_vals(v, 2);
  EXPECT_EQ(run(&c, 3, 1, outs, 2, v), TF_OK);
  EXPECT_NEAR(f32(v[0]), 6, 0);
  EXPECT_EQ(i32(v[1]), 1);
  free_vals(v, 2);
  cf_fini(&c);
}

/* A control edge from a dead node makes its consumer dead: Merge(Identity(x, ^dead), live)
 * takes input 1; with the control source live, Identity is live and input 1 is dead. */
static void control_edges_carry_deadness(void) {
  cf c;
  cf_init(&c);
  TF_Output sw_in[2] = {{c.x, 0}, {c.p, 0}};
  TF_Operation *sw = node(&c, "Switch", "sw", sw_in, 2, NULL, 0);
  TF_Output t_in[1] = {{sw, 1}};
  TF_Operation *on_true = node(&c, "Identity", "on_true", t_in, 1, NULL, 0);
  TF_Output id_in[1] = {{c.x, 0}};
  TF_Operation *gated = node(&c, "Identity", "gated", id_in, 1, &on_true, 1);
  TF_Operation *m = merge(&c, "m", (TF_Output){gated, 0}, (TF_Output){sw, 0});
  TF_Output outs[1] = {{m, 1}};
  TF_Tensor *v[1];
  EXPECT_EQ(run(&c, 5, 0, outs, 1, v), TF_OK);
  EXPECT_EQ(i32(v[0]), 1);
  free_vals(v, 1);
  EXPECT_EQ(run(&c, 5, 1, outs, 1, v), TF_OK);
  EXPECT_EQ(i32(v[0]), 0);
  free_vals(v, 1);
  cf_fini(&c);
}

/* Deadness passes through a chain of ordinary nodes; a ControlTrigger stops it. */
static void control_trigger_is_never_dead(void) {
  cf c;
  cf_init(&c);
  TF_Output sw_in[2] = {{c.x, 0}, {c.p, 0}};
  TF_Operation *sw = node(&c, "Switch", "sw", sw_in, 2, NULL, 0);
  TF_Output a_in[1] = {{sw, 1}};
  TF_Operation *a = node(&c, "Identity", "a", a_in, 1, NULL, 0);
  TF_Output b_in[2] = {{a, 0}, {a, 0}};
  TF_Operation *b = node(&c, "AddV2", "b", b_in, 2, NULL, 0);
  TF_Operation *trig = node(&c, "ControlTrigger", "trig", NULL, 0, &b, 1);
  TF_Output y_in[1] = {{c.x, 0}};
  TF_Operation *y = node(&c, "Identity", "y", y_in, 1, &trig, 1);
  TF_Operation *z = node(&c, "Identity", "z", y_in, 1, &b, 1);
  TF_Output outs[1] = {{y, 0}};
  TF_Tensor *v[1];
  EXPECT_EQ(run(&c, 7, 0, outs, 1, v), TF_OK);
  EXPECT_NEAR(f32(v[0]), 7, 0);
  free_vals(v, 1);
  /* z hangs off the dead chain: fetching it is fetching a dead tensor */
  TF_Output zo[1] = {{z, 0}};
  EXPECT_EQ(run(&c, 7, 0, zo, 1, v), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(v[0] == NULL);
  cf_fini(&c);
}

/* TF: fetching the untaken port is INVALID_ARGUMENT "Retval[0] does not have value". */
static void fetching_a_dead_tensor_fails(void) {
  cf c;
  cf_init(&c);
  TF_Output sw_in[2] = {{c.x, 0}, {c.p, 0}};
  TF_Operation *sw = node(&c, "Switch", "sw", sw_in, 2, NULL, 0);
  TF_Output outs[1] = {{sw, 1}};
  TF_Tensor *v[1];
  EXPECT_EQ(run(&c, 1, 0, outs, 1, v), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(c.s), "Retval[0] does not have value");
  EXPECT_EQ(run(&c, 1, 1, outs, 1, v), TF_OK);
  EXPECT_NEAR(f32(v[0]), 1, 0);
  free_vals(v, 1);
  cf_fini(&c);
}

static TF_Operation *enter(cf *c, const char *name, TF_Output in, const char *frame) {
  TF_OperationDescription *d = TF_NewOperation(c->g, "Enter", name);
  TF_AddInput(d, in);
  TF_SetAttrString(d, "frame_name", frame, strlen(frame));
  TF_Operation *op = TF_FinishOperation(d, c->s);
  OK(c->s);
  return op;
}

/* TF's text: the node and both inputs with their frames. */
static void inputs_from_different_frames_fail(void) {
  cf c;
  cf_init(&c);
  TF_Operation *e1 = enter(&c, "e1", (TF_Output){c.x, 0}, "foo_1");
  TF_Operation *e2 = enter(&c, "e2", (TF_Output){c.x, 0}, "foo_2");
  TF_Output in[2] = {{e1, 0}, {e2, 0}};
  TF_Operation *add = node(&c, "AddV2", "add", in, 2, NULL, 0);
  TF_Output outs[1] = {{add, 0}};
  TF_Tensor *v[1];
  EXPECT_EQ(run(&c, 1, 0, outs, 1, v), TF_INVALID_ARGUMENT);
  const char *want = "{{node add}} has inputs from different frames. The input {{node e2}} is in frame 'foo_2'. "
                     "The input {{node e1}} is in frame 'foo_1'.";
  if (!strstr(TF_Message(c.s), want)) tfc_test_fail(__FILE__, __LINE__, "message: %s", TF_Message(c.s));
  cf_fini(&c);
}

/* A loop of 2^31 - 1 iterations (cf_while_counter.pb, written by TF) under a 100 ms deadline:
 * DEADLINE_EXCEEDED, and the frames and iterations alive at that point are freed (valgrind). */
static void deadline_stops_a_long_loop(void) {
  TF_Graph *g = capi_load_fixture("cf_while_counter.pb");
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  OK(s);
  TF_Tensor *n = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
  *(int32_t *)TF_TensorData(n) = 2147483647;
  TF_Output in = {TF_GraphOperationByName(g, "n"), 0};
  TF_Output out = {TF_GraphOperationByName(g, "s_out"), 0};
  const unsigned char ro[] = {0x10, 0x64}; /* RunOptions.timeout_in_ms = 100 */
  TF_Buffer *rb = TF_NewBufferFromString(ro, sizeof ro);
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, rb, &in, &n, 1, &out, &v, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_TRUE(v == NULL);
  TF_DeleteBuffer(rb);
  TF_DeleteTensor(n);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A cond whose Merge sits on another device than its Switch: the Switch's untaken port
 * crosses devices as a dead token, and the Merge takes the live one. */
static void control_flow_on_two_devices_runs(void) {
  cf c;
  cf_init(&c);
  TF_OperationDescription *d = TF_NewOperation(c.g, "Switch", "sw");
  TF_AddInput(d, (TF_Output){c.x, 0});
  TF_AddInput(d, (TF_Output){c.p, 0});
  TF_SetDevice(d, "/device:CPU:1");
  TF_Operation *sw = TF_FinishOperation(d, c.s);
  OK(c.s);
  TF_Operation *m = merge(&c, "m", (TF_Output){sw, 0}, (TF_Output){sw, 1});
  TF_Operation *sq = NULL;
  {
    TF_OperationDescription *sd = TF_NewOperation(c.g, "Square", "sq");
    TF_AddInput(sd, (TF_Output){m, 0});
    TF_SetDevice(sd, "/device:CPU:1");
    sq = TF_FinishOperation(sd, c.s);
    OK(c.s);
  }
  TF_SessionOptions *so = TF_NewSessionOptions();
  const unsigned char cfg[] = {0x0a, 0x07, 0x0a, 0x03, 'C', 'P', 'U', 0x10, 0x02}; /* device_count CPU: 2 */
  TF_SetConfig(so, cfg, sizeof cfg, c.s);
  OK(c.s);
  TF_Session *sess = TF_NewSession(c.g, so, c.s);
  OK(c.s);
  TF_Tensor *xt = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  *(float *)TF_TensorData(xt) = 1;
  TF_Tensor *pt = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
  *(unsigned char *)TF_TensorData(pt) = 1;
  TF_Output feeds[2] = {{c.x, 0}, {c.p, 0}};
  TF_Tensor *fv[2] = {xt, pt};
  *(float *)TF_TensorData(xt) = 3;
  for (int taken = 0; taken < 2; taken++) {
    *(unsigned char *)TF_TensorData(pt) = (unsigned char)taken;
    TF_Output out[2] = {{m, 0}, {sq, 0}};
    TF_Tensor *v[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, feeds, fv, 2, out, v, 2, NULL, 0, NULL, c.s);
    OK(c.s);
    EXPECT_EQ(*(float *)TF_TensorData(v[0]), 3);
    EXPECT_EQ(*(float *)TF_TensorData(v[1]), 9);
    TF_DeleteTensor(v[0]);
    TF_DeleteTensor(v[1]);
  }
  TF_DeleteTensor(xt);
  TF_DeleteTensor(pt);
  TF_CloseSession(sess, c.s);
  TF_DeleteSession(sess, c.s);
  TF_DeleteSessionOptions(so);
  cf_fini(&c);
}

static const tfc_test tests[] = {
    TFC_TEST(merge_takes_the_live_branch),
    TFC_TEST(control_edges_carry_deadness),
    TFC_TEST(control_trigger_is_never_dead),
    TFC_TEST(fetching_a_dead_tensor_fails),
    TFC_TEST(inputs_from_different_frames_fail),
    TFC_TEST(deadline_stops_a_long_loop),
    TFC_TEST(control_flow_on_two_devices_runs),
    {0},
};

TFC_TEST_MAIN(tests)
