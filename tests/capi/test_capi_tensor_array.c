/*
 * Stacks and TensorArrays through the C API: graphs of StackV2/StackPushV2/StackPopV2/
 * StackCloseV2 and the TensorArray V3 ops run in a session, checking values, TF's error codes
 * and texts, and that both live for one run only. Loops that use them (dynamic_rnn and its
 * gradients, written by TensorFlow) are in test_capi_rnn_fixtures.c.
 */
#include <stdint.h>
#include <string.h>

#include "capi_util.h"

typedef struct tg {
  TF_Graph *g;
  TF_Status *s;
} tg;

static void tg_init(tg *t) {
  t->g = TF_NewGraph();
  t->s = TF_NewStatus();
}

static void tg_fini(tg *t) {
  TF_DeleteGraph(t->g);
  TF_DeleteStatus(t->s);
}

static TF_Operation *konst(tg *t, const char *name, TF_DataType dt, const int64_t *dims, int nd, const void *v,
                           size_t bytes) {
  TF_Tensor *x = TF_AllocateTensor(dt, dims, nd, bytes);
  memcpy(TF_TensorData(x), v, bytes);
  TF_OperationDescription *d = TF_NewOperation(t->g, "Const", name);
  TF_SetAttrTensor(d, "value", x, t->s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, t->s);
  OK(t->s);
  TF_DeleteTensor(x);
  return op;
}

static TF_Output f32c(tg *t, const char *name, float v) {
  return (TF_Output){konst(t, name, TF_FLOAT, NULL, 0, &v, sizeof v), 0};
}
static TF_Output f32v(tg *t, const char *name, const float *v, int64_t n) {
  return (TF_Output){konst(t, name, TF_FLOAT, &n, 1, v, sizeof(float) * (size_t)n), 0};
}
static TF_Output i32c(tg *t, const char *name, int32_t v) {
  return (TF_Output){konst(t, name, TF_INT32, NULL, 0, &v, sizeof v), 0};
}

/* Starts op `type` with inputs and control inputs; the caller sets attrs and calls fin. */
static TF_OperationDescription *op(tg *t, const char *type, const char *name, const TF_Output *ins, int n,
                                   TF_Operation *ctl) {
  TF_OperationDescription *d = TF_NewOperation(t->g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, ins[i]);
  if (ctl) TF_AddControlInput(d, ctl);
  return d;
}

static TF_Operation *fin(tg *t, TF_OperationDescription *d) {
  TF_Operation *o = TF_FinishOperation(d, t->s);
  OK(t->s);
  return o;
}

/* Runs once in a new session: fetches outs (NULL where not produced) and runs targets.
 * Returns the code; the message stays in t->s. */
static int run(tg *t, const TF_Output *outs, int n, TF_Tensor **vals, const TF_Operation *const *targets, int nt) {
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(t->g, so, t->s);
  OK(t->s);
  for (int i = 0; i < n; i++) vals[i] = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, vals, n, targets, nt, NULL, t->s);
  int code = TF_GetCode(t->s);
  TF_Status *cs = TF_NewStatus();
  TF_CloseSession(sess, cs);
  TF_DeleteSession(sess, cs);
  TF_DeleteStatus(cs);
  TF_DeleteSessionOptions(so);
  return code;
}

static void free_vals(TF_Tensor **v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i]) TF_DeleteTensor(v[i]);
}

static const float *fdata(TF_Tensor *x) { return (const float *)TF_TensorData(x); }

/* ---------------- stacks ---------------- */

static TF_Operation *stack(tg *t, const char *name, int max_size, const char *stack_name) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/max_size", name);
  TF_Output m = i32c(t, cname, max_size);
  TF_OperationDescription *d = op(t, "StackV2", name, &m, 1, NULL);
  TF_SetAttrType(d, "elem_type", TF_FLOAT);
  if (stack_name) TF_SetAttrString(d, "stack_name", stack_name, strlen(stack_name));
  return fin(t, d);
}

static TF_Operation *push(tg *t, const char *name, TF_Operation *h, TF_Output v, TF_Operation *after) {
  TF_Output in[2] = {{h, 0}, v};
  return fin(t, op(t, "StackPushV2", name, in, 2, after));
}

static TF_Operation *pop(tg *t, const char *name, TF_Operation *h, TF_DataType dt, TF_Operation *after) {
  TF_Output in = {h, 0};
  TF_OperationDescription *d = op(t, "StackPopV2", name, &in, 1, after);
  TF_SetAttrType(d, "elem_type", dt);
  return fin(t, d);
}

/* The process-wide id in a message's "Stack[<base>_<id>]" (ids run on across tests when they
 * share a process). */
static int stack_id(const char *msg, const char *base) {
  char pre[64];
  snprintf(pre, sizeof pre, "Stack[%s_", base);
  const char *p = strstr(msg, pre);
  if (!p) tfc_test_fail(__FILE__, __LINE__, "no %s in \"%s\"", pre, msg);
  return atoi(p + strlen(pre));
}

/* Pushes [1,2] then [3]; pops give [3] then [1,2]; the push passes its value through. */
static void stack_pops_in_reverse_order(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = stack(&t, "st", -1, NULL);
  float ab[2] = {1, 2};
  TF_Operation *p1 = push(&t, "push1", h, f32v(&t, "ab", ab, 2), NULL);
  TF_Operation *p2 = push(&t, "push2", h, f32c(&t, "c", 3), p1);
  TF_Operation *q1 = pop(&t, "pop1", h, TF_FLOAT, p2);
  TF_Operation *q2 = pop(&t, "pop2", h, TF_FLOAT, q1);
  TF_Output outs[4] = {{p1, 0}, {q1, 0}, {q2, 0}, {p2, 0}};
  TF_Tensor *v[4];
  EXPECT_EQ(run(&t, outs, 4, v, NULL, 0), TF_OK);
  EXPECT_EQ(TF_NumDims(v[0]), 1);
  EXPECT_EQ(fdata(v[0])[1], 2);
  EXPECT_EQ(TF_NumDims(v[1]), 0);
  EXPECT_EQ(fdata(v[1])[0], 3);
  EXPECT_EQ(TF_NumDims(v[2]), 1);
  EXPECT_EQ(TF_Dim(v[2], 0), 2);
  EXPECT_EQ(fdata(v[2])[0], 1);
  EXPECT_EQ(fdata(v[2])[1], 2);
  EXPECT_EQ(fdata(v[3])[0], 3);
  free_vals(v, 4);
  tg_fini(&t);
}

/* A stack lives for one run: the next run of the same graph starts with a new, empty one
 * (named with the next id), so popping there fails as in TF. */
static void stack_pop_of_empty_stack_fails_and_stacks_are_per_run(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = stack(&t, "st", -1, "foo");
  TF_Operation *q = pop(&t, "pop", h, TF_FLOAT, NULL);
  TF_Output out = {q, 0};
  TF_Tensor *v;
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INVALID_ARGUMENT);
  int id = stack_id(TF_Message(t.s), "foo");
  EXPECT_CONTAINS(TF_Message(t.s), "] is empty when calling Pop().\n\t [[{{node pop}}]]");
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INVALID_ARGUMENT);
  EXPECT_EQ(stack_id(TF_Message(t.s), "foo"), id + 1);

  /* a push and a pop in one run work; a second run sees a fresh stack again */
  TF_Operation *p = push(&t, "push", h, f32c(&t, "x", 7), NULL);
  TF_Operation *q2 = pop(&t, "pop2", h, TF_FLOAT, p);
  TF_Output out2 = {q2, 0};
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(run(&t, &out2, 1, &v, NULL, 0), TF_OK);
    EXPECT_EQ(fdata(v)[0], 7);
    TF_DeleteTensor(v);
  }
  tg_fini(&t);
}

static void stack_push_beyond_max_size_fails(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = stack(&t, "st", 1, "foo");
  TF_Operation *p1 = push(&t, "push1", h, f32c(&t, "a", 1), NULL);
  TF_Operation *p2 = push(&t, "push2", h, f32c(&t, "b", 2), p1);
  TF_Output out = {p2, 0};
  TF_Tensor *v;
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INVALID_ARGUMENT);
  char want[96];
  snprintf(want, sizeof want, "Stack[foo_%d] overflowed its max_size (1)", stack_id(TF_Message(t.s), "foo"));
  EXPECT_CONTAINS(TF_Message(t.s), want);
  tg_fini(&t);
}

static void stack_push_of_wrong_dtype_and_after_close_fail(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = stack(&t, "st", -1, NULL);
  TF_Operation *p = push(&t, "push_int", h, i32c(&t, "i", 1), NULL);
  TF_Output out = {p, 0};
  TF_Tensor *v;
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INVALID_ARGUMENT);
  /* TF prints the DataType enums as numbers: float is 1, int32 3 */
  EXPECT_CONTAINS(TF_Message(t.s), "Must have type 1 but got 3");

  TF_Output hin = {h, 0};
  TF_Operation *cl = fin(&t, op(&t, "StackCloseV2", "close", &hin, 1, NULL));
  TF_Operation *p2 = push(&t, "push_closed", h, f32c(&t, "x", 1), cl);
  out = (TF_Output){p2, 0};
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INVALID_ARGUMENT);
  char want[96];
  snprintf(want, sizeof want, "Stack[st_%d] has already been closed.", stack_id(TF_Message(t.s), "st"));
  EXPECT_CONTAINS(TF_Message(t.s), want);
  tg_fini(&t);
}

static void stack_size_must_be_scalar_and_pop_type_must_match(void) {
  tg t;
  tg_init(&t);
  int32_t two[2] = {1, 2};
  int64_t n2 = 2;
  TF_Output m = {konst(&t, "m", TF_INT32, &n2, 1, two, sizeof two), 0};
  TF_OperationDescription *d = op(&t, "StackV2", "bad", &m, 1, NULL);
  TF_SetAttrType(d, "elem_type", TF_FLOAT);
  TF_Operation *bad = fin(&t, d);
  TF_Tensor *v;
  EXPECT_EQ(run(&t, NULL, 0, &v, (const TF_Operation *const[]){bad}, 1), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Stack size must be a scalar, but had shape: [2]");

  TF_Operation *h = stack(&t, "st", -1, NULL);
  TF_Operation *p = push(&t, "push", h, f32c(&t, "x", 1), NULL);
  TF_Operation *q = pop(&t, "pop_int", h, TF_INT32, p);
  TF_Output out = {q, 0};
  EXPECT_EQ(run(&t, &out, 1, &v, NULL, 0), TF_INTERNAL);
  EXPECT_CONTAINS(TF_Message(t.s),
                  "Output 0 of type float does not match declared output type int32 for node {{node pop_int}}");
  tg_fini(&t);
}

/* Handles have TF's legacy graph shape [2]; a push passes its value's shape on. */
static void stack_graph_shapes(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = stack(&t, "st", -1, NULL);
  float ab[3] = {1, 2, 3};
  TF_Operation *p = push(&t, "push", h, f32v(&t, "ab", ab, 3), NULL);
  int64_t dims[4];
  EXPECT_EQ(TF_GraphGetTensorNumDims(t.g, (TF_Output){h, 0}, t.s), 1);
  TF_GraphGetTensorShape(t.g, (TF_Output){h, 0}, dims, 1, t.s);
  EXPECT_EQ(dims[0], 2);
  TF_GraphGetTensorShape(t.g, (TF_Output){p, 0}, dims, 1, t.s);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(TF_OperationOutputType((TF_Output){h, 0}), TF_RESOURCE);
  tg_fini(&t);
}

static const tfc_test tests[] = {
    TFC_TEST(stack_pops_in_reverse_order),
    TFC_TEST(stack_pop_of_empty_stack_fails_and_stacks_are_per_run),
    TFC_TEST(stack_push_beyond_max_size_fails),
    TFC_TEST(stack_push_of_wrong_dtype_and_after_close_fail),
    TFC_TEST(stack_size_must_be_scalar_and_pop_type_must_match),
    TFC_TEST(stack_graph_shapes),
    {0}};

TFC_TEST_MAIN(tests)
