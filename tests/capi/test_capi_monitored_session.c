/* Tests of TFC_MonitoredSession (include/tfc/monitored_session.h) in process: the chief
 * initializes, checkpoints at creation, every N steps and at close, and stops at last_step; a
 * new monitored session over the same model restores the newest checkpoint; a worker waits for
 * a chief that never comes and gives up with TF's text; hooks add fetches and targets, see
 * their values and stop the loop; runs after a stop or a close are refused; a missing global
 * step is refused when a hook needs it; the graph's queue runners start with the session and
 * an input pipeline's end stops it; a chief without a save period only restores; hooks hear of a
 * session's close; a queue runner stopped by a preemption error makes a new session; a
 * restarted chief keeps the checkpoints listed before it. (Recovery from a lost task: the cluster test
 * tests/distributed_runtime/test_cluster_recovery.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_util.h"
#include "io/events.h"
#include "tfc/input.h"
#include "tfc/monitored_session.h"
#include "tfc/summary.h"
#include "tfc/saver.h"
#include "tfc/train.h"

/* What the model is: a global step and a float w = 1, and "train" adding 1 to both. */
typedef struct model {
  TF_Graph *g;
  TF_Operation *train;
  TF_Output w;
} model;

static TF_Operation *assign_add(TF_Graph *g, const char *name, TF_Output var, TF_Output v, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "AssignAdd", name);
  TF_AddInput(d, var);
  TF_AddInput(d, v);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return op;
}

static model build_model(int with_step) {
  model m;
  TF_Status *s = TF_NewStatus();
  m.g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(m.g);
  TF_Operation *deps[2];
  int n = 0;
  if (with_step) {
    TFC_Variable gs = TFC_GetOrCreateGlobalStep(root, s);
    OK(s);
    TF_Output one = TFC_ScalarConst(root, "one", TF_INT64, 1, s);
    OK(s);
    deps[n++] = assign_add(m.g, "step_add", (TF_Output){gs.variable, 0}, one, s);
  }
  TF_Output init = TFC_ScalarConst(root, "w_init", TF_FLOAT, 1, s);
  OK(s);
  TFC_Variable w = TFC_NewVariable(root, "w", init, 1, s);
  OK(s);
  TF_Output onef = TFC_ScalarConst(root, "onef", TF_FLOAT, 1, s);
  OK(s);
  deps[n++] = assign_add(m.g, "w_add", (TF_Output){w.variable, 0}, onef, s);
  TF_OperationDescription *d = TF_NewOperation(m.g, "NoOp", "train");
  for (int i = 0; i < n; i++) TF_AddControlInput(d, deps[i]);
  m.train = TF_FinishOperation(d, s);
  OK(s);
  m.w = (TF_Output){w.variable, 0};
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  return m;
}

static void train_step(TFC_MonitoredSession *ms, model *m, TF_Status *s) {
  const TF_Operation *t[] = {m->train};
  TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, s);
}

/* Train steps until the session says stop (each step must succeed). */
static void train_to_end(TFC_MonitoredSession *ms, model *m, TF_Status *s) {
  while (!TFC_MonitoredSessionShouldStop(ms)) {
    train_step(ms, m, s);
    OK(s);
  }
}

static float read_w(TFC_MonitoredSession *ms, model *m) {
  TF_Status *s = TF_NewStatus();
  TF_Tensor *v = NULL;
  TF_SessionRun(TFC_MonitoredSessionRawSession(ms), NULL, NULL, NULL, 0, &m->w, &v, 1, NULL, 0, NULL, s);
  OK(s);
  float f = *(const float *)TF_TensorData(v);
  TF_DeleteTensor(v);
  TF_DeleteStatus(s);
  return f;
}

static char dir[256];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "%s/tfc_ms_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) tfc_test_fail(__FILE__, __LINE__, "mkdtemp");
}

static void remove_dir(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) tfc_test_fail(__FILE__, __LINE__, "rm");
}

static int exists(const char *name) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

static void chief_checkpoints_stops_and_a_new_session_restores(void) {
  make_dir();
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = 3;
  o.last_step = 7;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), 0);
  EXPECT_TRUE(exists("model.ckpt-0.index")); /* saved at creation */
  EXPECT_TRUE(exists("model.ckpt-0.meta"));
  EXPECT_NEAR(read_w(ms, &m), 1, 0);
  int steps = 0;
  while (!TFC_MonitoredSessionShouldStop(ms) && steps < 100) {
    train_step(ms, &m, s);
    OK(s);
    steps++;
  }
  EXPECT_EQ(steps, 7);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), 7);
  EXPECT_TRUE(exists("model.ckpt-3.index"));
  EXPECT_TRUE(exists("model.ckpt-6.index"));
  EXPECT_TRUE(!exists("model.ckpt-7.index")); /* not yet: at close */
  /* A step after the stop is refused, as TF's RuntimeError. */
  train_step(ms, &m, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s), "Run called even after should_stop requested.");
  EXPECT_NEAR(read_w(ms, &m), 8, 0);
  TFC_MonitoredSessionClose(ms, s);
  OK(s);
  EXPECT_TRUE(exists("model.ckpt-7.index"));
  train_step(ms, &m, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s), "Session has been closed.");
  TFC_DeleteMonitoredSession(ms);
  char latest[512], want[512];
  EXPECT_EQ(TFC_LatestCheckpoint(dir, latest, sizeof latest, s), 1);
  snprintf(want, sizeof want, "%s/model.ckpt-7", dir);
  EXPECT_STREQ(latest, want);

  /* The same model in a new graph and session: restored at step 7, w 8; on to step 10. */
  model m2 = build_model(1);
  o.last_step = 10;
  ms = TFC_NewMonitoredSession(m2.g, &o, s);
  OK(s);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), 7);
  EXPECT_NEAR(read_w(ms, &m2), 8, 0);
  steps = 0;
  while (!TFC_MonitoredSessionShouldStop(ms) && steps < 100) {
    train_step(ms, &m2, s);
    OK(s);
    steps++;
  }
  EXPECT_EQ(steps, 3);
  EXPECT_NEAR(read_w(ms, &m2), 11, 0);
  TFC_DeleteMonitoredSession(ms);
  EXPECT_TRUE(exists("model.ckpt-10.index"));
  TF_DeleteGraph(m2.g);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
  remove_dir();
}

static void worker_waits_for_the_chief_then_gives_up(void) {
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 0;
  o.max_wait_secs = 0.5;
  o.recovery_wait_secs = 0.1;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  EXPECT_TRUE(ms == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_STREQ(TF_Message(s), "Session was not ready after waiting 0 secs.");
  /* A deadline before the next poll fails at the first check; N is the whole seconds. */
  o.max_wait_secs = 1.7;
  o.recovery_wait_secs = 30;
  ms = TFC_NewMonitoredSession(m.g, &o, s);
  EXPECT_TRUE(ms == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_STREQ(TF_Message(s), "Session was not ready after waiting 1 secs.");
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
}

/* A hook that fetches w, runs nothing more, and stops after `stop_after` steps. */
typedef struct counting_hook {
  TF_Output w;
  int created, before, after, ended, stop_after;
  float last_w;
  TFC_MonitoredSession *ms;
} counting_hook;

static void h_created(void *arg, TF_Session *sess, TFC_Coordinator *coord, TF_Status *s) {
  counting_hook *h = arg;
  h->created++;
  EXPECT_TRUE(sess != NULL && coord != NULL);
  (void)s;
}

static void h_before(void *arg, TFC_SessionRunArgs *a, TF_Status *s) {
  counting_hook *h = arg;
  h->before++;
  EXPECT_EQ(a->num_fetches, 0);
  a->fetches[a->num_fetches++] = h->w;
  (void)s;
}

static void h_after(void *arg, TF_Tensor *const *v, int n, TF_Status *s) {
  counting_hook *h = arg;
  h->after++;
  EXPECT_EQ(n, 1);
  h->last_w = *(const float *)TF_TensorData(v[0]);
  if (h->after >= h->stop_after) TFC_MonitoredSessionRequestStop(h->ms);
  (void)s;
}

static void h_end(void *arg, TF_Session *sess, TF_Status *s) {
  counting_hook *h = arg;
  h->ended++;
  (void)sess, (void)s;
}

static void h_fail(void *arg, TFC_SessionRunArgs *a, TF_Status *s) {
  (void)arg, (void)a;
  TF_SetStatus(s, TF_OUT_OF_RANGE, "the hook ran out of data");
}

static void hooks_add_fetches_see_values_and_stop(void) {
  model m = build_model(0); /* no global step: no built-in hook needs one */
  TF_Status *s = TF_NewStatus();
  counting_hook h = {.w = m.w, .stop_after = 3};
  TFC_SessionRunHook hook = {&h, h_created, h_before, h_after, h_end, NULL};
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.hooks = &hook;
  o.num_hooks = 1;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  h.ms = ms;
  EXPECT_EQ(h.created, 1);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), -1);
  /* The caller's own fetch comes back beside the hook's. */
  int steps = 0;
  while (!TFC_MonitoredSessionShouldStop(ms) && steps < 100) {
    TF_Tensor *mine = NULL;
    const TF_Operation *t[] = {m.train};
    TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, &m.w, &mine, 1, t, 1, NULL, s);
    OK(s);
    EXPECT_TRUE(mine != NULL);
    TF_DeleteTensor(mine);
    steps++;
  }
  EXPECT_EQ(steps, 3);
  EXPECT_EQ(h.before, 3);
  EXPECT_EQ(h.after, 3);
  /* Read in the third step, before or after its own increment (no dependency orders them). */
  EXPECT_TRUE(h.last_w == 3 || h.last_w == 4);
  EXPECT_EQ(h.ended, 0);
  TFC_MonitoredSessionClose(ms, s);
  OK(s);
  EXPECT_EQ(h.ended, 1);
  TFC_DeleteMonitoredSession(ms);
  EXPECT_EQ(h.ended, 1);

  /* A hook's error fails the step with its status, and runs nothing. */
  TFC_SessionRunHook bad = {NULL, NULL, h_fail, NULL, NULL, NULL};
  o.hooks = &bad;
  ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  train_step(ms, &m, s);
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  EXPECT_STREQ(TF_Message(s), "the hook ran out of data");
  TFC_DeleteMonitoredSession(ms);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
}

static void hooks_that_need_a_global_step_refuse_a_graph_without_one(void) {
  model m = build_model(0);
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.last_step = 5;
  EXPECT_TRUE(TFC_NewMonitoredSession(m.g, &o, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Global step should be created");
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
}

/* An input pipeline read to its end: range_input_producer(3, num_epochs=1) (its epoch counter
 * is a local variable: the local init op runs), dequeued one element per step. The queue
 * runner starts with the session; the fourth step fails OUT_OF_RANGE and the session then
 * wants to stop; closing it joins the runner. */
static void queue_runners_start_and_out_of_range_stops(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output q = TFC_RangeInputProducer(root, (TF_Output){NULL, 0}, 3, 1, 0, 0, 32, NULL, s);
  OK(s);
  TF_OperationDescription *d = TF_NewOperation(g, "QueueDequeueV2", "dequeue");
  TF_AddInput(d, q);
  TF_DataType types[] = {TF_INT32};
  TF_SetAttrTypeList(d, "component_types", types, 1);
  TF_Output x = {capi_finish(d), 0};
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(g, &o, s);
  OK(s);
  int got = 0, sum = 0;
  while (!TFC_MonitoredSessionShouldStop(ms) && got < 10) {
    TF_Tensor *v = NULL;
    TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, &x, &v, 1, NULL, 0, NULL, s);
    if (TF_GetCode(s) == TF_OUT_OF_RANGE) break;
    OK(s);
    sum += *(const int32_t *)TF_TensorData(v);
    TF_DeleteTensor(v);
    got++;
  }
  EXPECT_EQ(got, 3);
  EXPECT_EQ(sum, 0 + 1 + 2);
  EXPECT_TRUE(TFC_MonitoredSessionShouldStop(ms));
  TFC_MonitoredSessionClose(ms, s);
  OK(s);
  TFC_DeleteMonitoredSession(ms);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* The chief's event file: the graph, the merged summaries every 2 global steps (at the global
 * step read after their step, as TF's SummarySaverHook writes them) and "global_step/sec" every
 * 2 steps. */
static void chief_writes_summaries_and_steps_per_second(void) {
  make_dir();
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(m.g);
  TF_OperationDescription *d = TF_NewOperation(m.g, "Identity", "w_value");
  TF_AddInput(d, m.w);
  TF_Output wv = {capi_finish(d), 0};
  TFC_ScalarSummary(root, "w_summary", wv, s);
  OK(s);
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_secs = -1;
  o.save_summaries_steps = 2;
  o.log_step_count_steps = 2;
  o.last_step = 6;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  train_to_end(ms, &m, s);
  TFC_MonitoredSessionClose(ms, s); /* flushes the event file: read before the session is freed */
  OK(s);
  char cmd[600], path[600];
  snprintf(cmd, sizeof cmd, "ls '%s' | grep events.out.tfevents", dir);
  FILE *p = popen(cmd, "r");
  char name[300] = "";
  EXPECT_TRUE(fgets(name, sizeof name, p) != NULL);
  pclose(p);
  name[strcspn(name, "\n")] = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  tfc_status st;
  tfc_status_init(&st);
  tfc_event_reader *r = tfc_event_reader_open(path, &st);
  EXPECT_TRUE(r != NULL);
  Tensorflow__Event *e = NULL;
  int graphs = 0, rates = 0;
  char w_steps[64] = "";
  while (tfc_event_reader_next(r, &e, &st) == TFC_OK) {
    if (e->what_case == TENSORFLOW__EVENT__WHAT_GRAPH_DEF) graphs++;
    if (e->what_case == TENSORFLOW__EVENT__WHAT_SUMMARY)
      for (size_t i = 0; i < e->summary->n_value; i++) {
        if (strcmp(e->summary->value[i]->tag, "w_summary") == 0)
          snprintf(w_steps + strlen(w_steps), sizeof w_steps - strlen(w_steps), "%lld ", (long long)e->step);
        if (strcmp(e->summary->value[i]->tag, "global_step/sec") == 0) rates++;
      }
    tensorflow__event__free_unpacked(e, NULL);
    e = NULL;
  }
  EXPECT_EQ(st.code, TFC_OUT_OF_RANGE); /* the end of the file */
  tfc_event_reader_free(r);
  tfc_status_fini(&st);
  EXPECT_EQ(graphs, 1);
  EXPECT_STREQ(w_steps, "1 3 5 "); /* TF's steps: the global step read after the step */
  TFC_DeleteMonitoredSession(ms);
  remove_dir();

  /* Every save_summaries_secs seconds: a tiny period makes every step's summary due. */
  make_dir();
  o.save_summaries_steps = 0;
  o.save_summaries_secs = 1e-9;
  o.log_step_count_steps = -1;
  o.last_step = 4; /* nothing restored: from step 0 */
  o.checkpoint_dir = NULL;
  o.summary_dir = dir;
  ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  train_to_end(ms, &m, s);
  TFC_DeleteMonitoredSession(ms);
  snprintf(cmd, sizeof cmd, "ls '%s' | grep events.out.tfevents", dir);
  p = popen(cmd, "r");
  name[0] = 0;
  EXPECT_TRUE(fgets(name, sizeof name, p) != NULL);
  pclose(p);
  name[strcspn(name, "\n")] = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  tfc_status_init(&st);
  r = tfc_event_reader_open(path, &st);
  EXPECT_TRUE(r != NULL);
  w_steps[0] = 0;
  while (tfc_event_reader_next(r, &e, &st) == TFC_OK) {
    if (e->what_case == TENSORFLOW__EVENT__WHAT_SUMMARY)
      for (size_t i = 0; i < e->summary->n_value; i++)
        if (strcmp(e->summary->value[i]->tag, "w_summary") == 0)
          snprintf(w_steps + strlen(w_steps), sizeof w_steps - strlen(w_steps), "%lld ", (long long)e->step);
    tensorflow__event__free_unpacked(e, NULL);
    e = NULL;
  }
  tfc_event_reader_free(r);
  tfc_status_fini(&st);
  EXPECT_STREQ(w_steps, "1 2 3 4 ");
  EXPECT_TRUE(rates >= 2);
  TFC_DeleteScope(root);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
  remove_dir();
}

/* Records the order of a hook's calls ("c" created, "e" end, "x" session closing). */
static char closing_log[32];

static void log_created(void *arg, TF_Session *sess, TFC_Coordinator *coord, TF_Status *s) {
  (void)arg, (void)sess, (void)coord, (void)s;
  strcat(closing_log, "c");
}

static void log_end(void *arg, TF_Session *sess, TF_Status *s) {
  (void)arg, (void)sess, (void)s;
  strcat(closing_log, "e");
}

static void log_closing(void *arg, TF_Session *sess, TFC_Coordinator *coord) {
  (void)arg;
  EXPECT_TRUE(sess != NULL && coord != NULL);
  EXPECT_TRUE(!TFC_CoordinatorShouldStop(coord)); /* still live: the hook stops its threads first */
  strcat(closing_log, "x");
}

/* A chief with a checkpoint directory and no save period is a ChiefSessionCreator without a
 * CheckpointSaverHook: it restores the newest checkpoint but writes neither checkpoints nor an
 * event file. A hook's session_closing runs after its end, once per session it was told of. */
static void chief_without_a_save_period_restores_only_and_hooks_see_the_close(void) {
  make_dir();
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = 100;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  for (int i = 0; i < 4; i++) {
    train_step(ms, &m, s);
    OK(s);
  }
  TFC_DeleteMonitoredSession(ms); /* model.ckpt-0 and model.ckpt-4 */
  EXPECT_TRUE(exists("model.ckpt-4.index"));
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -f '%s'/events.out.tfevents*", dir);
  EXPECT_EQ(system(cmd), 0);

  model m2 = build_model(1);
  closing_log[0] = 0;
  TFC_SessionRunHook hook = {NULL, log_created, NULL, NULL, log_end, log_closing};
  TFC_MonitoredSessionOptions o2 = {0};
  o2.is_chief = 1;
  o2.checkpoint_dir = dir;
  o2.save_checkpoint_secs = -1;
  o2.save_summaries_steps = -1;
  o2.log_step_count_steps = -1;
  o2.hooks = &hook;
  o2.num_hooks = 1;
  ms = TFC_NewMonitoredSession(m2.g, &o2, s);
  OK(s);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), 4);
  EXPECT_NEAR(read_w(ms, &m2), 5, 0);
  for (int i = 0; i < 3; i++) {
    train_step(ms, &m2, s);
    OK(s);
  }
  EXPECT_STREQ(closing_log, "c");
  TFC_MonitoredSessionClose(ms, s);
  OK(s);
  EXPECT_STREQ(closing_log, "cex");
  TFC_DeleteMonitoredSession(ms);
  EXPECT_STREQ(closing_log, "cex");
  EXPECT_TRUE(!exists("model.ckpt-7.index"));
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -c events.out.tfevents > /dev/null", dir);
  EXPECT_TRUE(system(cmd) != 0); /* no event file */
  char latest[512], want[512];
  EXPECT_EQ(TFC_LatestCheckpoint(dir, latest, sizeof latest, s), 1);
  snprintf(want, sizeof want, "%s/model.ckpt-4", dir);
  EXPECT_STREQ(latest, want);
  TF_DeleteGraph(m2.g);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
  remove_dir();
}

/* A hook that keeps the coordinator of the session it was last told of. */
typedef struct coord_hook {
  TFC_Coordinator *coord;
  int created;
} coord_hook;

static void keep_coord(void *arg, TF_Session *session, TFC_Coordinator *coord, TF_Status *status) {
  (void)session;
  (void)status;
  coord_hook *h = arg;
  h->coord = coord;
  h->created++;
}

/* A queue runner that stops on ABORTED or UNAVAILABLE (the chief's sync op when the ps died)
 * makes a new session, as TF's _RecoverableSession._check_stop: should_stop says no, the
 * chief restores the newest checkpoint, and training goes on to last_step. Any other error a
 * runner stops on stops the session. */
static void a_runner_stopped_by_a_preemption_makes_a_new_session(void) {
  make_dir();
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  coord_hook h = {0};
  TFC_SessionRunHook hook = {&h, keep_coord, NULL, NULL, NULL, NULL};
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = 2;
  o.last_step = 6;
  o.hooks = &hook;
  o.num_hooks = 1;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  for (int i = 0; i < 3; i++) {
    train_step(ms, &m, s);
    OK(s);
  }
  EXPECT_EQ(h.created, 1);
  TF_Status *gone = TF_NewStatus();
  TF_SetStatus(gone, TF_UNAVAILABLE, "RunGraph on /job:ps/replica:0/task:0 failed: Socket closed");
  TFC_CoordinatorRequestStop(h.coord, gone);
  EXPECT_TRUE(!TFC_MonitoredSessionShouldStop(ms));
  EXPECT_EQ(h.created, 2);
  EXPECT_EQ(TFC_MonitoredSessionGlobalStep(ms), 2); /* model.ckpt-2 restored */
  EXPECT_NEAR(read_w(ms, &m), 3, 0);
  int steps = 0;
  while (!TFC_MonitoredSessionShouldStop(ms) && steps < 100) {
    train_step(ms, &m, s);
    OK(s);
    steps++;
  }
  EXPECT_EQ(steps, 4);
  EXPECT_NEAR(read_w(ms, &m), 7, 0);
  /* Not a preemption: the session stops, as before. */
  TF_SetStatus(gone, TF_INTERNAL, "a runner failed");
  TFC_MonitoredSession *ms2 = NULL;
  TFC_MonitoredSessionClose(ms, s);
  OK(s);
  TFC_DeleteMonitoredSession(ms);
  o.last_step = 100;
  ms2 = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  EXPECT_EQ(h.created, 3);
  TFC_CoordinatorRequestStop(h.coord, gone);
  EXPECT_TRUE(TFC_MonitoredSessionShouldStop(ms2));
  EXPECT_EQ(h.created, 3);
  TFC_DeleteMonitoredSession(ms2);
  TF_DeleteStatus(gone);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
  remove_dir();
}

/* A chief that starts again over a checkpoint directory (a restarted process) takes over the
 * checkpoints the state file lists, as TF's SessionManager (recover_last_checkpoints): they
 * stay listed beside its own, and are deleted in turn as max_to_keep (5) passes them. */
static void a_restarted_chief_keeps_the_checkpoints_listed(void) {
  make_dir();
  model m = build_model(1);
  TF_Status *s = TF_NewStatus();
  TFC_MonitoredSessionOptions o = {0};
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = 1;
  o.last_step = 2;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(m.g, &o, s);
  OK(s);
  train_to_end(ms, &m, s);
  TFC_DeleteMonitoredSession(ms); /* model.ckpt-0, 1, 2 */

  model m2 = build_model(1);
  o.last_step = 3;
  ms = TFC_NewMonitoredSession(m2.g, &o, s);
  OK(s);
  train_step(ms, &m2, s);
  OK(s);
  TFC_DeleteMonitoredSession(ms);
  TFC_CheckpointState *st = TFC_GetCheckpointState(dir, NULL, s);
  OK(s);
  EXPECT_EQ(TFC_CheckpointStateNumPaths(st), 4);
  char want[512];
  for (int i = 0; i < 4 && i < TFC_CheckpointStateNumPaths(st); i++) {
    snprintf(want, sizeof want, "%s/model.ckpt-%d", dir, i);
    EXPECT_STREQ(TFC_CheckpointStatePath(st, i), want);
  }
  TFC_DeleteCheckpointState(st);

  /* On to step 6: 0 and 1 fall off the list of 5 and their files go. */
  model m3 = build_model(1);
  o.last_step = 6;
  ms = TFC_NewMonitoredSession(m3.g, &o, s);
  OK(s);
  train_to_end(ms, &m3, s);
  TFC_DeleteMonitoredSession(ms);
  EXPECT_TRUE(!exists("model.ckpt-0.index"));
  EXPECT_TRUE(!exists("model.ckpt-1.index"));
  EXPECT_TRUE(exists("model.ckpt-2.index"));
  EXPECT_TRUE(exists("model.ckpt-6.index"));
  TF_DeleteGraph(m3.g);
  TF_DeleteGraph(m2.g);
  TF_DeleteGraph(m.g);
  TF_DeleteStatus(s);
  remove_dir();
}

static const tfc_test tests[] = {
    TFC_TEST(chief_checkpoints_stops_and_a_new_session_restores),
    TFC_TEST(worker_waits_for_the_chief_then_gives_up),
    TFC_TEST(hooks_add_fetches_see_values_and_stop),
    TFC_TEST(hooks_that_need_a_global_step_refuse_a_graph_without_one),
    TFC_TEST(queue_runners_start_and_out_of_range_stops),
    TFC_TEST(chief_writes_summaries_and_steps_per_second),
    TFC_TEST(chief_without_a_save_period_restores_only_and_hooks_see_the_close),
    TFC_TEST(a_runner_stopped_by_a_preemption_makes_a_new_session),
    TFC_TEST(a_restarted_chief_keeps_the_checkpoints_listed),
    {0},
};
TFC_TEST_MAIN(tests)
