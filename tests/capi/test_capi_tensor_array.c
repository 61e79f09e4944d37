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

/* ---------------- TensorArrays ---------------- */

/* A TensorArrayV3 of floats named "ta" ("ta_<id>" at run time); attrs by flag. */
typedef struct ta_attrs {
  int dynamic_size, keep_after_read, identical;
  int es_rank; /* -1: unknown element shape */
  int64_t es[4];
} ta_attrs;

static TF_Operation *ta_new(tg *t, const char *name, int32_t size, ta_attrs a) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/size", name);
  TF_Output sz = i32c(t, cname, size);
  TF_OperationDescription *d = op(t, "TensorArrayV3", name, &sz, 1, NULL);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrString(d, "tensor_array_name", "ta", 2);
  if (a.dynamic_size) TF_SetAttrBool(d, "dynamic_size", 1);
  if (a.keep_after_read) TF_SetAttrBool(d, "clear_after_read", 0);
  if (a.identical) TF_SetAttrBool(d, "identical_element_shapes", 1);
  if (a.es_rank >= 0) TF_SetAttrShape(d, "element_shape", a.es, a.es_rank);
  return fin(t, d);
}
#define UNKNOWN_ES .es_rank = -1

/* Writes value at index; returns the flow out. Ordered after `after` when given. */
static TF_Output ta_write(tg *t, const char *name, TF_Operation *h, TF_Output flow, int32_t index, TF_Output value,
                          TF_Operation *after) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/index", name);
  TF_Output in[4] = {{h, 0}, i32c(t, cname, index), value, flow};
  return (TF_Output){fin(t, op(t, "TensorArrayWriteV3", name, in, 4, after)), 0};
}

static TF_Operation *ta_read(tg *t, const char *name, TF_Operation *h, TF_Output flow, int32_t index, TF_DataType dt,
                             TF_Operation *after) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/index", name);
  TF_Output in[3] = {{h, 0}, i32c(t, cname, index), flow};
  TF_OperationDescription *d = op(t, "TensorArrayReadV3", name, in, 3, after);
  TF_SetAttrType(d, "dtype", dt);
  return fin(t, d);
}

static TF_Output i32v(tg *t, const char *name, const int32_t *v, int64_t n) {
  return (TF_Output){konst(t, name, TF_INT32, &n, 1, v, sizeof(int32_t) * (size_t)n), 0};
}

static TF_Output f32m(tg *t, const char *name, const float *v, int64_t rows, int64_t cols) {
  int64_t dims[2] = {rows, cols};
  return (TF_Output){konst(t, name, TF_FLOAT, dims, 2, v, sizeof(float) * (size_t)(rows * cols)), 0};
}

static TF_Operation *ta_gather(tg *t, const char *name, TF_Operation *h, TF_Output flow, const int32_t *ix, int n,
                               int es_rank, const int64_t *es, TF_Operation *after) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/indices", name);
  TF_Output in[3] = {{h, 0}, i32v(t, cname, ix, n), flow};
  TF_OperationDescription *d = op(t, "TensorArrayGatherV3", name, in, 3, after);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  if (es_rank >= 0) TF_SetAttrShape(d, "element_shape", es, es_rank);
  return fin(t, d);
}

static TF_Output ta_scatter(tg *t, const char *name, TF_Operation *h, TF_Output flow, const int32_t *ix, int n,
                            TF_Output value) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/indices", name);
  TF_Output in[4] = {{h, 0}, i32v(t, cname, ix, n), value, flow};
  return (TF_Output){fin(t, op(t, "TensorArrayScatterV3", name, in, 4, NULL)), 0};
}

static TF_Output ta_split(tg *t, const char *name, TF_Operation *h, TF_Output flow, TF_Output value, const int64_t *len,
                          int64_t n) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s/lengths", name);
  TF_Output l = {konst(t, cname, TF_INT64, &n, 1, len, sizeof(int64_t) * (size_t)n), 0};
  TF_Output in[4] = {{h, 0}, value, l, flow};
  return (TF_Output){fin(t, op(t, "TensorArraySplitV3", name, in, 4, NULL)), 0};
}

static TF_Operation *ta_size(tg *t, const char *name, TF_Operation *h, TF_Output flow, TF_Operation *after) {
  TF_Output in[2] = {{h, 0}, flow};
  return fin(t, op(t, "TensorArraySizeV3", name, in, 2, after));
}

static TF_Operation *ta_grad(tg *t, const char *name, TF_Operation *h, TF_Output flow, const char *source,
                             TF_Operation *after) {
  TF_Output in[2] = {{h, 0}, flow};
  TF_OperationDescription *d = op(t, "TensorArrayGradV3", name, in, 2, after);
  TF_SetAttrString(d, "source", source, strlen(source));
  return fin(t, d);
}

/* Runs fetching one output; expects code; returns the value (or NULL). */
static TF_Tensor *run1(tg *t, TF_Output out, int code) {
  TF_Tensor *v;
  EXPECT_EQ(run(t, &out, 1, &v, NULL, 0), code);
  return v;
}

/* The message must hold "TensorArray ta_<id>" + rest, for whatever id this run's array got. */
static void expect_ta_msg(tg *t, const char *rest) {
  const char *m = TF_Message(t->s), *p = strstr(m, "TensorArray ta_");
  if (!p) tfc_test_fail(__FILE__, __LINE__, "no array name in \"%s\"", m);
  p += strlen("TensorArray ta_");
  while (*p >= '0' && *p <= '9') p++;
  if (strncmp(p, rest, strlen(rest))) tfc_test_fail(__FILE__, __LINE__, "\"%s\" lacks \"%s\" after the name", m, rest);
}

static void ta_write_read_gather_values(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){.keep_after_read = 1, UNKNOWN_ES});
  TF_Output f = {h, 1};
  float a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {5, 6};
  f = ta_write(&t, "w0", h, f, 0, f32v(&t, "a", a, 2), NULL);
  f = ta_write(&t, "w2", h, f, 2, f32v(&t, "c", c, 2), NULL);
  f = ta_write(&t, "w1", h, f, 1, f32v(&t, "b", b, 2), NULL);
  TF_Operation *r = ta_read(&t, "r", h, f, 2, TF_FLOAT, NULL);
  int32_t ix[3] = {2, 0, 1};
  TF_Operation *g = ta_gather(&t, "g", h, f, ix, 3, -1, NULL, r);
  TF_Operation *sz = ta_size(&t, "size", h, f, NULL);
  TF_Output outs[3] = {{r, 0}, {g, 0}, {sz, 0}};
  TF_Tensor *v[3];
  EXPECT_EQ(run(&t, outs, 3, v, NULL, 0), TF_OK);
  EXPECT_EQ(fdata(v[0])[1], 6);
  EXPECT_EQ(TF_NumDims(v[1]), 2);
  EXPECT_EQ(TF_Dim(v[1], 0), 3);
  float want[6] = {5, 6, 1, 2, 3, 4};
  for (int i = 0; i < 6; i++) EXPECT_EQ(fdata(v[1])[i], want[i]);
  EXPECT_EQ(*(int32_t *)TF_TensorData(v[2]), 3);
  free_vals(v, 3);
  tg_fini(&t);
}

static void ta_write_errors(void) {
  tg t;
  tg_init(&t);
  float one[1] = {1};
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){UNKNOWN_ES});
  TF_Output f = {h, 1};
  run1(&t, ta_write(&t, "oob", h, f, 3, f32v(&t, "x", one, 1), NULL), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Tried to write to index 3 but array is not resizeable and size is: 3");
  run1(&t, ta_write(&t, "neg", h, f, -1, f32v(&t, "x2", one, 1), NULL), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Tried to write to index -1 but array is not resizeable and size is: 3");

  TF_Output w = ta_write(&t, "w", h, f, 0, f32v(&t, "x3", one, 1), NULL);
  run1(&t, ta_write(&t, "again", h, w, 0, f32v(&t, "x4", one, 1), w.oper), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not write to TensorArray index 0 because it has already been written to.");
  TF_Operation *r = ta_read(&t, "r", h, w, 0, TF_FLOAT, NULL);
  run1(&t, ta_write(&t, "after_read", h, w, 0, f32v(&t, "x5", one, 1), r), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not write to TensorArray index 0 because it has already been read.");
  run1(&t, ta_write(&t, "int", h, f, 1, i32c(&t, "i", 1), NULL), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "TensorArray dtype is float but Op is trying to write dtype int32.");

  /* element_shape [2] refuses a [3]; identical_element_shapes takes the first write's shape */
  TF_Operation *h2 = ta_new(&t, "ta2", 2, (ta_attrs){.es_rank = 1, .es = {2}});
  float three[3] = {1, 2, 3}, two[2] = {1, 2};
  run1(&t, ta_write(&t, "w3", h2, (TF_Output){h2, 1}, 0, f32v(&t, "x6", three, 3), NULL), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not write to TensorArray index 0 because the value shape is [3] which is incompatible "
                    "with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False).");
  TF_Operation *h3 = ta_new(&t, "ta3", 2, (ta_attrs){.identical = 1, UNKNOWN_ES});
  TF_Output w2 = ta_write(&t, "w4", h3, (TF_Output){h3, 1}, 0, f32v(&t, "x7", two, 2), NULL);
  run1(&t, ta_write(&t, "w5", h3, w2, 1, f32v(&t, "x8", three, 3), w2.oper), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not write to TensorArray index 1 because the value shape is [3] which is incompatible "
                    "with the TensorArray's inferred element shape: [2] (consider setting infer_shape=False).");
  tg_fini(&t);
}

static void ta_read_errors_and_zeros(void) {
  tg t;
  tg_init(&t);
  float one[1] = {1};
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){UNKNOWN_ES});
  TF_Output f = {h, 1};
  TF_Output w = ta_write(&t, "w", h, f, 0, f32v(&t, "x", one, 1), NULL);
  TF_Operation *r = ta_read(&t, "r", h, w, 0, TF_FLOAT, NULL);
  run1(&t, (TF_Output){ta_read(&t, "r2", h, w, 0, TF_FLOAT, r), 0}, TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not read index 0 twice because it was cleared after a previous read (perhaps try "
                    "setting clear_after_read = false?).");
  run1(&t, (TF_Output){ta_read(&t, "oob", h, f, 5, TF_FLOAT, NULL), 0}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Tried to read from index 5 but array size is: 3");
  run1(&t, (TF_Output){ta_read(&t, "unwritten", h, f, 1, TF_FLOAT, NULL), 0}, TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not read from TensorArray index 1.  Furthermore, the element shape is not fully "
                    "defined: <unknown>.  It is possible");
  run1(&t, (TF_Output){ta_read(&t, "int", h, f, 1, TF_INT32, NULL), 0}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "TensorArray dtype is float but Op requested dtype int32.");

  /* a known element shape reads zeros where nothing was written */
  TF_Operation *h2 = ta_new(&t, "ta2", 3, (ta_attrs){.es_rank = 1, .es = {2}});
  TF_Tensor *v = run1(&t, (TF_Output){ta_read(&t, "zeros", h2, (TF_Output){h2, 1}, 1, TF_FLOAT, NULL), 0}, TF_OK);
  EXPECT_EQ(TF_Dim(v, 0), 2);
  EXPECT_EQ(fdata(v)[0], 0);
  EXPECT_EQ(fdata(v)[1], 0);
  TF_DeleteTensor(v);

  /* a gather reading an index twice in a clear_after_read array */
  int32_t ix[3] = {1, 0, 1};
  float ab[2] = {1, 2};
  TF_Operation *h3 = ta_new(&t, "ta3", 2, (ta_attrs){UNKNOWN_ES});
  TF_Output s3 = ta_scatter(&t, "sc", h3, (TF_Output){h3, 1}, (int32_t[]){0, 1}, 2, f32m(&t, "ab", ab, 2, 1));
  run1(&t, (TF_Output){ta_gather(&t, "g", h3, s3, ix, 3, -1, NULL, NULL), 0}, TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Could not read index 1 twice because it was cleared after a previous read");
  tg_fini(&t);
}

static void ta_closed_and_bad_sizes(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){UNKNOWN_ES});
  TF_Output hin = {h, 0};
  TF_Operation *cl = fin(&t, op(&t, "TensorArrayCloseV3", "close", &hin, 1, NULL));
  run1(&t, (TF_Output){ta_size(&t, "size", h, (TF_Output){h, 1}, cl), 0}, TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, " has already been closed.");
  TF_Operation *neg = ta_new(&t, "neg", -1, (ta_attrs){UNKNOWN_ES});
  run1(&t, (TF_Output){neg, 1}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Size should be >= 0.");
  tg_fini(&t);
}

static void ta_gather_errors(void) {
  tg t;
  tg_init(&t);
  float one[1] = {1}, two[2] = {1, 2};
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){UNKNOWN_ES});
  TF_Output f = ta_write(&t, "w0", h, (TF_Output){h, 1}, 0, f32v(&t, "a", one, 1), NULL);
  f = ta_write(&t, "w1", h, f, 1, f32v(&t, "b", two, 2), NULL);
  run1(&t, (TF_Output){ta_gather(&t, "g", h, f, (int32_t[]){0, 1}, 2, -1, NULL, NULL), 0}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s),
                  "TensorArray has inconsistent shapes.  Index 0 has shape: [1] but index 1 has shape: [2]");
  run1(&t, (TF_Output){ta_gather(&t, "g2", h, f, (int32_t[]){0}, 1, 1, (int64_t[]){2}, NULL), 0},
       TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "TensorArray was passed element_shape [2] which does not match the Tensor at index 0: [1]");
  /* an element_shape attr conflicting with the array's (TF 1.15's text; later TFs prefix "PartialTensorShape: ") */
  TF_Operation *h2 = ta_new(&t, "ta2", 3, (ta_attrs){.es_rank = 1, .es = {1}});
  run1(&t, (TF_Output){ta_gather(&t, "g3", h2, (TF_Output){h2, 1}, (int32_t[]){0}, 1, 1, (int64_t[]){2}, NULL), 0},
       TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Incompatible shapes during merge: [1] vs. [2]");
  /* zero indices: [0] + element_shape, which must be known */
  TF_Operation *e = ta_gather(&t, "g4", h, f, NULL, 0, -1, NULL, NULL);
  run1(&t, (TF_Output){e, 0}, TF_UNIMPLEMENTED);
  EXPECT_CONTAINS(TF_Message(t.s), "TensorArray has size zero, but element shape <unknown> is not fully defined. "
                                   "Currently only static shapes are supported when packing zero-size TensorArrays.");
  TF_Tensor *v = run1(&t, (TF_Output){ta_gather(&t, "g5", h, f, NULL, 0, 1, (int64_t[]){2}, NULL), 0}, TF_OK);
  EXPECT_EQ(TF_NumDims(v), 2);
  EXPECT_EQ(TF_Dim(v, 0), 0);
  EXPECT_EQ(TF_Dim(v, 1), 2);
  TF_DeleteTensor(v);
  tg_fini(&t);
}

static void ta_scatter_split_concat(void) {
  tg t;
  tg_init(&t);
  float rows[3] = {1, 2, 3};
  /* scatter, then read back; a dynamic array grows to the largest index */
  TF_Operation *h = ta_new(&t, "ta", 0, (ta_attrs){.dynamic_size = 1, UNKNOWN_ES});
  TF_Output f = ta_scatter(&t, "sc", h, (TF_Output){h, 1}, (int32_t[]){3, 1}, 2, f32m(&t, "v", rows, 2, 1));
  TF_Operation *sz = ta_size(&t, "size", h, f, NULL);
  TF_Operation *r = ta_read(&t, "r", h, f, 1, TF_FLOAT, NULL);
  TF_Output outs[2] = {{sz, 0}, {r, 0}};
  TF_Tensor *v[2];
  EXPECT_EQ(run(&t, outs, 2, v, NULL, 0), TF_OK);
  EXPECT_EQ(*(int32_t *)TF_TensorData(v[0]), 4);
  EXPECT_EQ(TF_NumDims(v[1]), 1);
  EXPECT_EQ(fdata(v[1])[0], 2);
  free_vals(v, 2);

  TF_Operation *h2 = ta_new(&t, "ta2", 3, (ta_attrs){UNKNOWN_ES});
  run1(&t, ta_scatter(&t, "sc2", h2, (TF_Output){h2, 1}, (int32_t[]){0, 5}, 2, f32m(&t, "v2", rows, 2, 1)),
       TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Max scatter index must be < array size (5 vs. 3)");

  /* split [1, 2] rows, then concat them back with their lengths */
  TF_Operation *h3 = ta_new(&t, "ta3", 2, (ta_attrs){UNKNOWN_ES});
  TF_Output f3 = ta_split(&t, "sp", h3, (TF_Output){h3, 1}, f32m(&t, "v3", rows, 3, 1), (int64_t[]){1, 2}, 2);
  TF_Output cin[2] = {{h3, 0}, f3};
  TF_OperationDescription *d = op(&t, "TensorArrayConcatV3", "cc", cin, 2, NULL);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *cc = fin(&t, d);
  TF_Output couts[2] = {{cc, 0}, {cc, 1}};
  EXPECT_EQ(run(&t, couts, 2, v, NULL, 0), TF_OK);
  EXPECT_EQ(TF_Dim(v[0], 0), 3);
  for (int i = 0; i < 3; i++) EXPECT_EQ(fdata(v[0])[i], rows[i]);
  EXPECT_EQ(((int64_t *)TF_TensorData(v[1]))[0], 1);
  EXPECT_EQ(((int64_t *)TF_TensorData(v[1]))[1], 2);
  free_vals(v, 2);

  run1(&t, ta_split(&t, "sp2", h3, (TF_Output){h3, 1}, f32m(&t, "v4", rows, 3, 1), (int64_t[]){1, 1}, 2),
       TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2 "
                                   "and value's shape is: [3,1]");
  TF_Operation *h4 = ta_new(&t, "ta4", 3, (ta_attrs){UNKNOWN_ES});
  run1(&t, ta_split(&t, "sp3", h4, (TF_Output){h4, 1}, f32m(&t, "v5", rows, 3, 1), (int64_t[]){1, 2}, 2),
       TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "TensorArray's size is not equal to the size of lengths (3 vs. 2), and the "
                                   "TensorArray is not marked as dynamically resizeable");

  /* concat of scalars, and of rows that differ after dimension 0 */
  TF_Operation *h5 = ta_new(&t, "ta5", 1, (ta_attrs){UNKNOWN_ES});
  TF_Output f5 = ta_write(&t, "w5", h5, (TF_Output){h5, 1}, 0, f32c(&t, "s", 1), NULL);
  TF_Output c5in[2] = {{h5, 0}, f5};
  d = op(&t, "TensorArrayConcatV3", "cc5", c5in, 2, NULL);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  run1(&t, (TF_Output){fin(&t, d), 0}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s),
                  "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean to call pack?");
  tg_fini(&t);
}

/* The gradient array: found again by a second TensorArrayGradV3 of the same source, summing
 * writes, reading zeros of the forward shapes where nothing was written (also past its end),
 * and freezing the forward array's dynamic size. */
static void ta_grad_sums_and_reads_zeros(void) {
  tg t;
  tg_init(&t);
  float one[1] = {1};
  TF_Operation *h = ta_new(&t, "ta", 2, (ta_attrs){.es_rank = 1, .es = {1}});
  TF_Output w = ta_write(&t, "w", h, (TF_Output){h, 1}, 0, f32v(&t, "x", one, 1), NULL);
  TF_Operation *g1 = ta_grad(&t, "g1", h, w, "gradients", NULL);
  float two[1] = {2}, three[1] = {3};
  TF_Output a = ta_write(&t, "gw1", g1, (TF_Output){g1, 1}, 0, f32v(&t, "two", two, 1), NULL);
  TF_Operation *g2 = ta_grad(&t, "g2", h, w, "gradients", a.oper);
  TF_Output b = ta_write(&t, "gw2", g2, (TF_Output){g2, 1}, 0, f32v(&t, "three", three, 1), NULL);
  TF_Operation *r0 = ta_read(&t, "r0", g1, b, 0, TF_FLOAT, NULL);
  TF_Operation *r1 = ta_read(&t, "r1", g1, b, 1, TF_FLOAT, NULL);
  TF_Operation *r5 = ta_read(&t, "r5", g1, b, 5, TF_FLOAT, NULL);
  TF_Operation *gs = ta_size(&t, "gsize", g1, b, NULL);
  TF_Output outs[4] = {{r0, 0}, {r1, 0}, {r5, 0}, {gs, 0}};
  TF_Tensor *v[4];
  EXPECT_EQ(run(&t, outs, 4, v, NULL, 0), TF_OK);
  EXPECT_EQ(fdata(v[0])[0], 5);
  EXPECT_EQ(TF_Dim(v[1], 0), 1);
  EXPECT_EQ(fdata(v[1])[0], 0);
  EXPECT_EQ(fdata(v[2])[0], 0);
  EXPECT_EQ(*(int32_t *)TF_TensorData(v[3]), 2);
  free_vals(v, 4);

  /* a summing write of another shape */
  float ab[2] = {1, 2};
  TF_Operation *hu = ta_new(&t, "tau", 2, (ta_attrs){UNKNOWN_ES});
  TF_Output wu = ta_write(&t, "wu", hu, (TF_Output){hu, 1}, 0, f32v(&t, "xu", one, 1), NULL);
  TF_Operation *g3 = ta_grad(&t, "g3", hu, wu, "gradients_1", NULL);
  run1(&t, ta_write(&t, "gw3", g3, (TF_Output){g3, 1}, 0, f32v(&t, "ab", ab, 2), NULL), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "@gradients_1: Could not aggregate to TensorArray index 0 because the existing shape "
                                   "is [1] but the new input shape is [2].");
  /* no gradient of a gradient array */
  run1(&t, (TF_Output){ta_grad(&t, "gg", g1, b, "gradients_2", NULL), 1}, TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Wrong input container. _tensor_array_gradsta_");

  /* a gradient array freezes its dynamic forward array */
  TF_Operation *hd = ta_new(&t, "tad", 1, (ta_attrs){.dynamic_size = 1, UNKNOWN_ES});
  TF_Operation *gd = ta_grad(&t, "gd", hd, (TF_Output){hd, 1}, "gradients", NULL);
  run1(&t, ta_write(&t, "grow", hd, (TF_Output){hd, 1}, 3, f32v(&t, "y", one, 1), gd), TF_INVALID_ARGUMENT);
  expect_ta_msg(&t, ": Tried to write to index 3 but array is not resizeable and size is: 1");
  tg_fini(&t);
}

/* TensorArrayGradWithShape: each forward shape prefixed by shape_to_prepend. */
static void ta_grad_with_shape_prepends(void) {
  tg t;
  tg_init(&t);
  float ab[2] = {1, 4};
  TF_Operation *h = ta_new(&t, "ta", 2, (ta_attrs){UNKNOWN_ES});
  TF_Output w = ta_write(&t, "w", h, (TF_Output){h, 1}, 0, f32v(&t, "ab", ab, 2), NULL);
  TF_Output in[3] = {{h, 0}, w, i32v(&t, "pre", (int32_t[]){3}, 1)};
  TF_OperationDescription *d = op(&t, "TensorArrayGradWithShape", "gws", in, 3, NULL);
  TF_SetAttrString(d, "source", "gradients", 9);
  TF_Operation *g = fin(&t, d);
  TF_Tensor *v = run1(&t, (TF_Output){ta_read(&t, "r", g, (TF_Output){g, 1}, 0, TF_FLOAT, NULL), 0}, TF_OK);
  EXPECT_EQ(TF_NumDims(v), 2);
  EXPECT_EQ(TF_Dim(v, 0), 3);
  EXPECT_EQ(TF_Dim(v, 1), 2);
  for (int i = 0; i < 6; i++) EXPECT_EQ(fdata(v)[i], 0);
  TF_DeleteTensor(v);
  tg_fini(&t);
}

/* Graph shapes: handles [2], flow scalar, Gather's [len(indices)] + element_shape, and TF's
 * graph-time checks. */
static void ta_graph_shapes_and_checks(void) {
  tg t;
  tg_init(&t);
  TF_Operation *h = ta_new(&t, "ta", 3, (ta_attrs){UNKNOWN_ES});
  int64_t dims[4];
  EXPECT_EQ(TF_GraphGetTensorNumDims(t.g, (TF_Output){h, 0}, t.s), 1);
  EXPECT_EQ(TF_GraphGetTensorNumDims(t.g, (TF_Output){h, 1}, t.s), 0);
  TF_Operation *g = ta_gather(&t, "g", h, (TF_Output){h, 1}, (int32_t[]){0, 1}, 2, 2, (int64_t[]){-1, 3}, NULL);
  EXPECT_EQ(TF_GraphGetTensorNumDims(t.g, (TF_Output){g, 0}, t.s), 3);
  TF_GraphGetTensorShape(t.g, (TF_Output){g, 0}, dims, 3, t.s);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], -1);
  EXPECT_EQ(dims[2], 3);

  /* a vector index, a scalar scatter value, mismatched scatter rows */
  int32_t two[2] = {0, 1};
  TF_Output in[4] = {{h, 0}, i32v(&t, "ix", two, 2), f32c(&t, "x", 1), {h, 1}};
  TF_OperationDescription *d = op(&t, "TensorArrayWriteV3", "bad_write", in, 4, NULL);
  EXPECT_TRUE(TF_FinishOperation(d, t.s) == NULL);
  EXPECT_EQ(TF_GetCode(t.s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(t.s), "Shape must be rank 0 but is rank 1");
  TF_Output sin[4] = {{h, 0}, i32v(&t, "ix2", two, 2), f32c(&t, "x2", 1), {h, 1}};
  d = op(&t, "TensorArrayScatterV3", "bad_scatter", sin, 4, NULL);
  EXPECT_TRUE(TF_FinishOperation(d, t.s) == NULL);
  EXPECT_CONTAINS(TF_Message(t.s), "Shape must be at least rank 1 but is rank 0");
  float rows[3] = {1, 2, 3};
  TF_Output sin2[4] = {{h, 0}, i32v(&t, "ix3", two, 2), f32m(&t, "rows", rows, 3, 1), {h, 1}};
  d = op(&t, "TensorArrayScatterV3", "bad_scatter2", sin2, 4, NULL);
  EXPECT_TRUE(TF_FinishOperation(d, t.s) == NULL);
  EXPECT_CONTAINS(TF_Message(t.s), "Dimensions must be equal, but are 3 and 2");
  tg_fini(&t);
}

static const tfc_test tests[] = {
    TFC_TEST(stack_pops_in_reverse_order),
    TFC_TEST(stack_pop_of_empty_stack_fails_and_stacks_are_per_run),
    TFC_TEST(stack_push_beyond_max_size_fails),
    TFC_TEST(stack_push_of_wrong_dtype_and_after_close_fail),
    TFC_TEST(stack_size_must_be_scalar_and_pop_type_must_match),
    TFC_TEST(stack_graph_shapes),
    TFC_TEST(ta_write_read_gather_values),
    TFC_TEST(ta_write_errors),
    TFC_TEST(ta_read_errors_and_zeros),
    TFC_TEST(ta_closed_and_bad_sizes),
    TFC_TEST(ta_gather_errors),
    TFC_TEST(ta_scatter_split_concat),
    TFC_TEST(ta_grad_sums_and_reads_zeros),
    TFC_TEST(ta_grad_with_shape_prepends),
    TFC_TEST(ta_graph_shapes_and_checks),
    {0}};

TFC_TEST_MAIN(tests)
