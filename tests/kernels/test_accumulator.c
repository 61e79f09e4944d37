/* The gradient accumulators (ops_accumulator.def, state/accumulator.h): runs real TensorFlow
 * made (tests/fixtures/gen_accumulator.py writes accum_NAME.pb and accum_NAME.session),
 * replayed in one tfc session each through the public C API; then what those scripts cannot
 * hold: the dtype signature (TF 2.x's process crashes there), sharing by shared_name (in one
 * graph, and between two graphs' sessions on one in-process server), takes served in arrival
 * order, and blocked takes woken by session close, step deadline and cancellation. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capi/capi_util.h"
#include "harness.h"
#include "../fixtures/session_script.h"
#include "state/accumulator.h"
#include "tfc/server.h"

/* ---------------- TensorFlow's runs ---------------- */

/* The Ref forms: the first gradient fixes an unknown shape until the next take; stale
 * gradients dropped unchecked; the mean; num_required < 1; SetGlobalStep up and down; a
 * take that waits past the step's deadline. */
static void dense_ref_runs_match_tensorflow(void) { ss_replay_fixture("accum_dense_ref"); }
/* tf.ConditionalAccumulator's Resource ops: SUM over every gradient in, a negative global
 * step, a partial shape [2,?] and its texts, a half accumulator rounding each add. */
static void resource_runs_match_tensorflow(void) { ss_replay_fixture("accum_resource"); }
/* SparseConditionalAccumulator: the per-index mean, TF's merge of unsorted and repeated
 * indices, scalar rows, the shape output, and every check's text. */
static void sparse_runs_match_tensorflow(void) { ss_replay_fixture("accum_sparse"); }

/* ---------------- graphs built here ---------------- */

static TF_Operation *accumulator(TF_Graph *g, const char *name, const char *op, TF_DataType dt, const char *shared) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetAttrShape(d, "shape", NULL, -1);
  if (shared) TF_SetAttrString(d, "shared_name", shared, strlen(shared));
  return capi_finish(d);
}

static TF_Output cst(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int ndims, const void *v,
                     size_t bytes) {
  TF_Status *s = TF_NewStatus();
  TF_Output o = capi_const(g, name, dt, dims, ndims, v, bytes, s);
  TF_DeleteStatus(s);
  return o;
}

static TF_Output scalar_i64(TF_Graph *g, const char *name, int64_t v) {
  return cst(g, name, TF_INT64, NULL, 0, &v, sizeof v);
}

static TF_Operation *apply_op(TF_Graph *g, const char *name, TF_Operation *h, int64_t step, TF_Output grad) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s_step", name);
  TF_OperationDescription *d = TF_NewOperation(g, "AccumulatorApplyGradient", name);
  TF_AddInput(d, (TF_Output){h, 0});
  TF_AddInput(d, scalar_i64(g, cname, step));
  TF_AddInput(d, grad);
  return capi_finish(d);
}

static TF_Operation *take_op(TF_Graph *g, const char *name, TF_Operation *h, int32_t n, TF_DataType dt) {
  char cname[64];
  snprintf(cname, sizeof cname, "%s_n", name);
  TF_OperationDescription *d = TF_NewOperation(g, "AccumulatorTakeGradient", name);
  TF_AddInput(d, (TF_Output){h, 0});
  TF_AddInput(d, cst(g, cname, TF_INT32, NULL, 0, &n, sizeof n));
  TF_SetAttrType(d, "dtype", dt);
  return capi_finish(d);
}

static TF_Operation *count_op(TF_Graph *g, const char *name, TF_Operation *h) {
  TF_OperationDescription *d = TF_NewOperation(g, "AccumulatorNumAccumulated", name);
  TF_AddInput(d, (TF_Output){h, 0});
  return capi_finish(d);
}

/* A session on g, in process (target NULL) or on a server's target. */
static TF_Session *target_session(TF_Graph *g, const char *target) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  if (target) TF_SetTarget(o, target);
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

static TF_Session *new_session(TF_Graph *g) { return target_session(g, NULL); }

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* Runs target (or fetches output 0 of fetch into *out) with an optional deadline; returns the
 * code, the message into msg. */
static int run_op(TF_Session *sess, TF_Operation *target, TF_Operation *fetch, TF_Tensor **out, int timeout_ms,
                  char *msg, size_t n) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *opts = NULL;
  if (timeout_ms) { /* RunOptions { timeout_in_ms (field 2, varint) } */
    unsigned char pb[8] = {0x10};
    size_t k = 1;
    for (unsigned v = (unsigned)timeout_ms; ; v >>= 7) {
      pb[k++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      if (v < 0x80) break;
    }
    opts = TF_NewBufferFromString(pb, k);
  }
  TF_Output o = {fetch, 0};
  TF_Tensor *got = NULL;
  TF_SessionRun(sess, opts, NULL, NULL, 0, fetch ? &o : NULL, fetch ? &got : NULL, fetch ? 1 : 0,
                target ? (const TF_Operation *const *)&target : NULL, target ? 1 : 0, NULL, s);
  int code = TF_GetCode(s);
  snprintf(msg, n, "%s", TF_Message(s));
  if (out) *out = got;
  else if (got) TF_DeleteTensor(got);
  if (opts) TF_DeleteBuffer(opts);
  TF_DeleteStatus(s);
  return code;
}

static int32_t count_of(TF_Session *sess, TF_Operation *count) {
  char msg[512];
  TF_Tensor *t = NULL;
  EXPECT_EQ(run_op(sess, NULL, count, &t, 0, msg, sizeof msg), TF_OK);
  int32_t v = t ? *(int32_t *)TF_TensorData(t) : -1;
  if (t) TF_DeleteTensor(t);
  return v;
}

/* TF's signature text for a take of the wrong dtype; for an apply of the wrong dtype TF 2.x
 * aborts the process (TF 1.15 checked it as the take does: so do we, in the same form). */
static void wrong_dtype_is_tensorflows_signature_mismatch(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *h = accumulator(g, "acc", "ConditionalAccumulator", TF_FLOAT, NULL);
  float one = 1;
  double d = 1;
  TF_Operation *apply = apply_op(g, "apply", h, 0, cst(g, "g", TF_FLOAT, NULL, 0, &one, sizeof one));
  TF_Operation *apply_d = apply_op(g, "apply_d", h, 0, cst(g, "gd", TF_DOUBLE, NULL, 0, &d, sizeof d));
  TF_Operation *take_d = take_op(g, "take_d", h, 1, TF_DOUBLE);
  TF_Operation *count = count_op(g, "count", h);
  TF_Session *sess = new_session(g);
  char msg[512];
  EXPECT_EQ(run_op(sess, apply, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run_op(sess, NULL, take_d, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Signature mismatch, have: string_ref, int32->double expected: string_ref, int32->float");
  EXPECT_EQ(run_op(sess, apply_d, NULL, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Signature mismatch, have: string_ref, int64, double-> expected: string_ref, int64, float->");
  EXPECT_EQ(count_of(sess, count), 1); /* neither touched the accumulator */
  close_session(sess);
  TF_DeleteGraph(g);
}

/* TF registers the accumulators for half, float and double only. */
static void int_accumulator_has_no_kernel(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *h = accumulator(g, "acc", "ConditionalAccumulator", TF_INT32, NULL);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run_op(sess, h, NULL, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "No OpKernel was registered to support Op 'ConditionalAccumulator'");
  close_session(sess);
  TF_DeleteGraph(g);
}

/* Two nodes with one shared_name (as every worker's graph names a variable's accumulator) act
 * on one accumulator; a node without one has its own. */
static void shared_name_shares_one_accumulator(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = accumulator(g, "a", "ConditionalAccumulator", TF_FLOAT, "w/grad_accum");
  TF_Operation *b = accumulator(g, "b", "ConditionalAccumulator", TF_FLOAT, "w/grad_accum");
  TF_Operation *p = accumulator(g, "p", "ConditionalAccumulator", TF_FLOAT, NULL);
  float v[2] = {1, 3}, w[2] = {3, 5};
  int64_t two = 2;
  TF_Operation *apply_a = apply_op(g, "apply_a", a, 0, cst(g, "ga", TF_FLOAT, &two, 1, v, sizeof v));
  TF_Operation *apply_b = apply_op(g, "apply_b", b, 0, cst(g, "gb", TF_FLOAT, &two, 1, w, sizeof w));
  TF_Operation *count_a = count_op(g, "count_a", a), *count_p = count_op(g, "count_p", p);
  TF_Operation *take_b = take_op(g, "take_b", b, 2, TF_FLOAT);
  TF_Session *sess = new_session(g);
  char msg[512];
  EXPECT_EQ(run_op(sess, apply_a, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run_op(sess, apply_b, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(count_of(sess, count_a), 2);
  EXPECT_EQ(count_of(sess, count_p), 0);
  TF_Tensor *t = NULL;
  EXPECT_EQ(run_op(sess, NULL, take_b, &t, 0, msg, sizeof msg), TF_OK);
  EXPECT_TRUE(t != NULL);
  if (t) {
    EXPECT_EQ(((float *)TF_TensorData(t))[0], 2);
    EXPECT_EQ(((float *)TF_TensorData(t))[1], 4);
    TF_DeleteTensor(t);
  }
  EXPECT_EQ(count_of(sess, count_a), 0);
  /* The handle is TF's string pair [container, name]. */
  EXPECT_EQ(run_op(sess, NULL, a, &t, 0, msg, sizeof msg), TF_OK);
  if (t) {
    EXPECT_EQ(TF_TensorType(t), TF_STRING);
    EXPECT_EQ(TF_TensorElementCount(t), 2);
    TF_DeleteTensor(t);
  }
  close_session(sess);
  TF_DeleteGraph(g);
}

typedef struct bg_take {
  TF_Session *sess;
  TF_Operation *take;
  int code;
  char msg[512];
  TF_Tensor *out; /* the take's value, when it succeeds */
} bg_take;

static void *bg_take_main(void *p) {
  bg_take *b = p;
  b->code = run_op(b->sess, NULL, b->take, &b->out, 0, b->msg, sizeof b->msg);
  return NULL;
}

/* A take blocked for want of gradients wakes with TF's CANCELLED text when the session
 * closes (a hang fails the test by the harness's timeout). */
static void session_close_wakes_a_blocked_take(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *h = accumulator(g, "acc", "ConditionalAccumulator", TF_FLOAT, NULL);
  TF_Operation *take = take_op(g, "take", h, 1, TF_FLOAT);
  TF_Session *sess = new_session(g);
  bg_take b = {sess, take, -1, "", NULL};
  pthread_t th;
  pthread_create(&th, NULL, bg_take_main, &b);
  usleep(100000); /* the take has started and blocks (or is about to: it then sees the close) */
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  OK(s);
  pthread_join(th, NULL);
  EXPECT_EQ(b.code, TF_CANCELLED);
  EXPECT_CONTAINS(b.msg, "TakeGrad operation was cancelled");
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* The step's deadline reaches a blocked take, names it, and leaves the accumulator usable. */
static void deadline_reaches_a_blocked_take(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *h = accumulator(g, "acc", "ConditionalAccumulator", TF_FLOAT, NULL);
  TF_Operation *take = take_op(g, "take", h, 1, TF_FLOAT);
  float one = 1;
  TF_Operation *apply = apply_op(g, "apply", h, 0, cst(g, "g", TF_FLOAT, NULL, 0, &one, sizeof one));
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run_op(sess, NULL, take, NULL, 100, msg, sizeof msg), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(msg, "take (blocked on accumulator '_");
  EXPECT_EQ(run_op(sess, apply, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  TF_Tensor *t = NULL;
  EXPECT_EQ(run_op(sess, NULL, take, &t, 0, msg, sizeof msg), TF_OK);
  if (t) {
    EXPECT_EQ(*(float *)TF_TensorData(t), 1);
    TF_DeleteTensor(t);
  }
  close_session(sess);
  TF_DeleteGraph(g);
}

/* Between-graph replication on one server (tf.train.Server): the chief's graph and a
 * worker's graph each name the accumulator "w/grad_accum"; the chief's take, blocked in its
 * own session, returns once the worker's session applied two gradients. */
static void two_graphs_on_one_server_share_by_shared_name(void) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *def = TFC_NewLocalServerDef(s);
  OK(s);
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  OK(s);
  TF_DeleteBuffer(def);
  TF_ServerStart(srv, s);
  OK(s);
  TF_Graph *chief = TF_NewGraph(), *worker = TF_NewGraph();
  TF_Operation *ch = accumulator(chief, "acc", "ConditionalAccumulator", TF_FLOAT, "w/grad_accum");
  TF_Operation *take = take_op(chief, "take", ch, 2, TF_FLOAT);
  TF_Operation *count = count_op(chief, "count", ch);
  TF_Operation *wh = accumulator(worker, "grad_accum", "ConditionalAccumulator", TF_FLOAT, "w/grad_accum");
  float v[2] = {1, 3}, w[2] = {3, 5};
  int64_t two = 2;
  TF_Operation *apply_v = apply_op(worker, "apply_v", wh, 0, cst(worker, "gv", TF_FLOAT, &two, 1, v, sizeof v));
  TF_Operation *apply_w = apply_op(worker, "apply_w", wh, 0, cst(worker, "gw", TF_FLOAT, &two, 1, w, sizeof w));
  TF_Session *cs = target_session(chief, TF_ServerTarget(srv)), *ws = target_session(worker, TF_ServerTarget(srv));
  bg_take b = {cs, take, -1, "", NULL};
  pthread_t th;
  pthread_create(&th, NULL, bg_take_main, &b);
  char msg[512];
  EXPECT_EQ(run_op(ws, apply_v, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run_op(ws, apply_w, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  pthread_join(th, NULL); /* a take that never wakes fails the test by the harness's timeout */
  EXPECT_EQ(b.code, TF_OK);
  if (b.out) {
    EXPECT_EQ(((float *)TF_TensorData(b.out))[0], 2);
    EXPECT_EQ(((float *)TF_TensorData(b.out))[1], 4);
    TF_DeleteTensor(b.out);
  }
  EXPECT_EQ(count_of(cs, count), 0);
  /* the take stepped the shared global step: the worker's step-0 gradients are stale now */
  EXPECT_EQ(run_op(ws, apply_v, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(count_of(cs, count), 0);
  close_session(cs);
  close_session(ws);
  TF_DeleteGraph(chief);
  TF_DeleteGraph(worker);
  TF_ServerStop(srv, s);
  TF_DeleteServer(srv);
  TF_DeleteStatus(s);
}

/* ---------------- the state API ---------------- */

static tfc_tensor *f32v(const float *v, int64_t n) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, &n, 1, &s);
  memcpy(t->data, v, sizeof(float) * (size_t)n);
  return t;
}

typedef struct taker_arg {
  tfc_accumulator *a;
  int32_t n;
  int code;
  float first;
  char msg[256];
} taker_arg;

static void *taker_main(void *p) {
  taker_arg *t = p;
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  t->code = tfc_accumulator_take(t->a, t->n, NULL, &out, &s);
  snprintf(t->msg, sizeof t->msg, "%s", tfc_status_msg(&s));
  if (out) t->first = ((float *)out->data)[0];
  tfc_tensor_unref(out);
  tfc_status_fini(&s);
  return NULL;
}

/* Takes are served in arrival order: a first take of 2 holds back a later take of 1 until it
 * had its gradients; cancelling the accumulator wakes whoever still waits. */
static void takes_are_served_in_order_and_cancel_wakes_them(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_shape unknown = tfc_shape_unknown();
  tfc_accumulator *a = tfc_accumulator_new("acc", 0, TFC_DT_FLOAT, &unknown, 0, &s);
  taker_arg first = {a, 2, -1, 0, ""}, second = {a, 1, -1, 0, ""}, third = {a, 1, -1, 0, ""};
  pthread_t t1, t2, t3;
  pthread_create(&t1, NULL, taker_main, &first);
  while (tfc_accumulator_num_takers(a) < 1) usleep(1000);
  pthread_create(&t2, NULL, taker_main, &second);
  while (tfc_accumulator_num_takers(a) < 2) usleep(1000);
  float v1 = 2, v2 = 4, v3 = 8;
  tfc_tensor *g1 = f32v(&v1, 1), *g2 = f32v(&v2, 1), *g3 = f32v(&v3, 1);
  EXPECT_EQ(tfc_accumulator_apply(a, 0, g1, &s), TFC_OK);
  EXPECT_EQ(tfc_accumulator_num_takers(a), 2);
  EXPECT_EQ(first.code, -1); /* one gradient: the first take waits, and the second behind it */
  EXPECT_EQ(second.code, -1);
  EXPECT_EQ(tfc_accumulator_apply(a, 0, g2, &s), TFC_OK);
  pthread_join(t1, NULL);
  EXPECT_EQ(first.code, TFC_OK);
  EXPECT_EQ(first.first, 3);
  /* the take stepped the global step to 1: step 0 is stale now */
  EXPECT_EQ(tfc_accumulator_apply(a, 0, g3, &s), TFC_OK);
  EXPECT_EQ(tfc_accumulator_num_accumulated(a), 0);
  EXPECT_EQ(tfc_accumulator_apply(a, 1, g3, &s), TFC_OK);
  pthread_join(t2, NULL);
  EXPECT_EQ(second.code, TFC_OK);
  EXPECT_EQ(second.first, 8);
  pthread_create(&t3, NULL, taker_main, &third);
  while (tfc_accumulator_num_takers(a) < 1) usleep(1000);
  tfc_accumulator_kind.cancel(tfc_accumulator_resource(a));
  pthread_join(t3, NULL);
  EXPECT_EQ(third.code, TFC_CANCELLED);
  EXPECT_STREQ(third.msg, "TakeGrad operation was cancelled");
  tfc_tensor_unref(g1);
  tfc_tensor_unref(g2);
  tfc_tensor_unref(g3);
  tfc_resource_unref(tfc_accumulator_resource(a));
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(dense_ref_runs_match_tensorflow),
    TFC_TEST(resource_runs_match_tensorflow),
    TFC_TEST(sparse_runs_match_tensorflow),
    TFC_TEST(wrong_dtype_is_tensorflows_signature_mismatch),
    TFC_TEST(int_accumulator_has_no_kernel),
    TFC_TEST(shared_name_shares_one_accumulator),
    TFC_TEST(session_close_wakes_a_blocked_take),
    TFC_TEST(deadline_reaches_a_blocked_take),
    TFC_TEST(two_graphs_on_one_server_share_by_shared_name),
    TFC_TEST(takes_are_served_in_order_and_cancel_wakes_them),
    {0}};
TFC_TEST_MAIN(tests)
