/*
 * Cancellable runs (include/tfc/tfc.h: TFC_SessionRunWithCancellation and its
 * TFC_CancellationManager): a run blocked on an empty queue, and a loop of two billion
 * iterations, end with CANCELLED "Run call was cancelled" when another thread cancels them; a manager cancelled before the run stops it at once; the cancelled step's variable
 * writes are undone; and the session runs normally afterwards.
 */
#include <pthread.h>
#include <time.h>

#include "base/clock.h"
#include "capi_util.h"
#include "tfc/tfc.h"


/* A FIFOQueueV2 of float scalars and its dequeue and enqueue(v) nodes. */
static TF_Operation *fifo(TF_Graph *g, TF_Operation **deq, TF_Operation **enq, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "FIFOQueueV2", "q");
  TF_DataType dt = TF_FLOAT;
  TF_SetAttrTypeList(d, "component_types", &dt, 1);
  TF_Operation *q = capi_finish(d);
  d = TF_NewOperation(g, "QueueDequeueV2", "deq");
  TF_AddInput(d, (TF_Output){q, 0});
  TF_SetAttrTypeList(d, "component_types", &dt, 1);
  *deq = capi_finish(d);
  float v = 4.5f;
  TF_Output c = capi_const(g, "v", TF_FLOAT, NULL, 0, &v, sizeof v, s);
  d = TF_NewOperation(g, "QueueEnqueueV2", "enq");
  TF_AddInput(d, (TF_Output){q, 0});
  TF_AddInputList(d, &c, 1);
  *enq = capi_finish(d);
  return q;
}

typedef struct canceller {
  TFC_CancellationManager *m;
  int delay_ms;
} canceller;

static void *cancel_later(void *arg) {
  canceller *c = arg;
  struct timespec ts = {c->delay_ms / 1000, (long)(c->delay_ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
  TFC_CancellationManagerStartCancel(c->m);
  return NULL;
}

/* Runs fetch (or target) with manager m, cancelled from another thread after delay_ms;
 * returns the run's wall time in ms, the status in s. */
static int64_t run_cancelled(TF_Session *sess, TF_Output *fetch, TF_Operation *target, TFC_CancellationManager *m,
                             int delay_ms, TF_Status *s) {
  canceller c = {m, delay_ms};
  pthread_t th;
  EXPECT_EQ(pthread_create(&th, NULL, cancel_later, &c), 0);
  int64_t t0 = tfc_now_us();
  TF_Tensor *out = NULL;
  TFC_SessionRunWithCancellation(sess, NULL, NULL, NULL, 0, fetch, fetch ? &out : NULL, fetch ? 1 : 0,
                                 target ? (const TF_Operation *const *)&target : NULL, target ? 1 : 0, NULL, m, s);
  int64_t ms = (tfc_now_us() - t0) / 1000;
  pthread_join(th, NULL);
  if (out) TF_DeleteTensor(out);
  return ms;
}

static TF_Session *new_session(TF_Graph *g, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  return sess;
}

static void close_session(TF_Session *sess, TF_Status *s) {
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
}

static void blocked_dequeue_is_cancelled_and_session_stays_usable(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_Operation *deq, *enq;
  fifo(g, &deq, &enq, s);
  TF_Session *sess = new_session(g, s);
  TFC_CancellationManager *m = TFC_NewCancellationManager();
  EXPECT_TRUE(m != NULL);
  EXPECT_EQ(TFC_CancellationManagerIsCancelled(m), 0);
  TF_Output fetch = {deq, 0};
  int64_t ms = run_cancelled(sess, &fetch, NULL, m, 100, s);
  EXPECT_EQ(TF_GetCode(s), TF_CANCELLED);
  EXPECT_CONTAINS(TF_Message(s), "Run call was cancelled");
  EXPECT_TRUE(ms >= 90); /* it waited for the cancellation: nothing else ends it */
  EXPECT_EQ(TFC_CancellationManagerIsCancelled(m), 1);
  TFC_DeleteCancellationManager(m);

  /* The session and its queue still work: enqueue, then the same dequeue. */
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&enq, 1, NULL, s);
  OK(s);
  TF_Tensor *out = NULL;
  m = TFC_NewCancellationManager();
  TFC_SessionRunWithCancellation(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, m, s);
  OK(s);
  EXPECT_TRUE(*(float *)TF_TensorData(out) == 4.5f);
  TF_DeleteTensor(out);
  TFC_DeleteCancellationManager(m);
  close_session(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void manager_cancelled_before_the_run_stops_it_at_once(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  float v = 1.0f;
  TF_Output c = capi_const(g, "c", TF_FLOAT, NULL, 0, &v, sizeof v, s);
  TF_Session *sess = new_session(g, s);
  TFC_CancellationManager *m = TFC_NewCancellationManager();
  TFC_CancellationManagerStartCancel(m);
  TFC_CancellationManagerStartCancel(m); /* idempotent */
  TF_Tensor *out = NULL;
  TFC_SessionRunWithCancellation(sess, NULL, NULL, NULL, 0, &c, &out, 1, NULL, 0, NULL, m, s);
  EXPECT_EQ(TF_GetCode(s), TF_CANCELLED);
  EXPECT_TRUE(out == NULL);
  TFC_DeleteCancellationManager(m);
  /* NULL managers: an ordinary run, and no-ops. */
  TFC_SessionRunWithCancellation(sess, NULL, NULL, NULL, 0, &c, &out, 1, NULL, 0, NULL, NULL, s);
  OK(s);
  EXPECT_TRUE(*(float *)TF_TensorData(out) == 1.0f);
  TF_DeleteTensor(out);
  TFC_CancellationManagerStartCancel(NULL);
  EXPECT_EQ(TFC_CancellationManagerIsCancelled(NULL), 0);
  TFC_DeleteCancellationManager(NULL);
  close_session(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* while i < 2^31 - 1: i += 1 — minutes of work, stopped between nodes. */
static void long_loop_is_cancelled(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int zero = 0, big = 2147483647, one = 1;
  TF_Output in = capi_const(g, "i0", TF_INT32, NULL, 0, &zero, sizeof zero, s);
  TF_WhileParams p = TF_NewWhile(g, &in, 1, s);
  OK(s);
  p.cond_output = capi_op2(p.cond_graph, "Less", "less", p.cond_inputs[0],
                           capi_const(p.cond_graph, "big", TF_INT32, NULL, 0, &big, sizeof big, s), s);
  p.body_outputs[0] = capi_op2(p.body_graph, "Add", "add", p.body_inputs[0],
                               capi_const(p.body_graph, "one", TF_INT32, NULL, 0, &one, sizeof one, s), s);
  p.name = "forever";
  TF_Output out;
  TF_FinishWhile(&p, s, &out);
  OK(s);
  TF_Session *sess = new_session(g, s);
  TFC_CancellationManager *m = TFC_NewCancellationManager();
  run_cancelled(sess, &out, NULL, m, 50, s);
  EXPECT_EQ(TF_GetCode(s), TF_CANCELLED); /* run to its end, the loop returns OK */
  TFC_DeleteCancellationManager(m);
  close_session(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A step that assigns a variable and then blocks: cancelled, the assignment is undone. */
static void cancelled_step_leaves_variables_as_they_were(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "w");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *w = capi_finish(d);
  float one = 1.0f, seven = 7.0f;
  TF_Output c1 = capi_const(g, "one", TF_FLOAT, NULL, 0, &one, sizeof one, s);
  TF_Output c7 = capi_const(g, "seven", TF_FLOAT, NULL, 0, &seven, sizeof seven, s);
  TF_Operation *init = capi_op2(g, "Assign", "init", (TF_Output){w, 0}, c1, s).oper;
  TF_Operation *deq, *enq;
  fifo(g, &deq, &enq, s);
  d = TF_NewOperation(g, "Assign", "set7");
  TF_AddInput(d, (TF_Output){w, 0});
  TF_AddInput(d, c7);
  TF_Operation *set7 = capi_finish(d);
  d = TF_NewOperation(g, "Identity", "after");
  TF_AddInput(d, (TF_Output){deq, 0});
  TF_AddControlInput(d, set7);
  TF_Operation *after = capi_finish(d);
  TF_Session *sess = new_session(g, s);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  OK(s);
  TFC_CancellationManager *m = TFC_NewCancellationManager();
  run_cancelled(sess, NULL, after, m, 100, s);
  EXPECT_EQ(TF_GetCode(s), TF_CANCELLED);
  TFC_DeleteCancellationManager(m);
  TF_Output wv = {w, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &wv, &out, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_TRUE(*(float *)TF_TensorData(out) == 1.0f);
  TF_DeleteTensor(out);
  close_session(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(blocked_dequeue_is_cancelled_and_session_stays_usable),
    TFC_TEST(manager_cancelled_before_the_run_stops_it_at_once),
    TFC_TEST(long_loop_is_cancelled),
    TFC_TEST(cancelled_step_leaves_variables_as_they_were),
    {0},
};

TFC_TEST_MAIN(tests)
