/* Recovery of a training loop on a cluster through TFC_MonitoredSession, with real `tfc server`
 * processes on 127.0.0.1: the parameter server holding the model, or the worker whose master
 * the client talks to, is killed with SIGKILL in the middle of training and started again;
 * the chief's monitored session sees the step fail, creates a new session, restores the
 * newest checkpoint (into the restarted ps) and finishes the planned steps. Nothing committed
 * is lost: the final global step is the planned one and the variable equals an undisturbed run's; only the steps since the last checkpoint were done
 * twice. Without a checkpoint the chief initializes again, says so, and training starts over. */
#include <stdatomic.h>

#include "dist_util.h"
#include "tfc/monitored_session.h"
#include "tfc/train.h"

/* Log lines of the monitored session, collected through TF_RegisterLogListener. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];
static size_t log_len;

static void listen_log(const char *line) {
  pthread_mutex_lock(&log_mu);
  int n = snprintf(log_text + log_len, sizeof log_text - log_len, "%s\n", line);
  if (n > 0 && log_len + (size_t)n < sizeof log_text) log_len += (size_t)n;
  pthread_mutex_unlock(&log_mu);
}

static TF_Operation *assign_add(TF_Graph *g, const char *name, const char *device, TF_Output var, TF_Output v) {
  TF_OperationDescription *d = dist_op(g, "AssignAdd", name, device);
  TF_AddInput(d, var);
  TF_AddInput(d, v);
  return dist_finish(d, name);
}

/* What one training run through a kill ended with. */
typedef struct run_end {
  int64_t global_step;
  int runs; /* steps the loop ran, redone ones included */
  float w;
} run_end;

/* A ps and a worker; the model on the ps (a global step and w = 1, both incremented by
 * "train"); the chief's monitored session on the worker's master trains to last_step, with
 * checkpoints every 2 steps into `dir` (NULL: none), and the task `victim` ("ps" or "worker":
 * the master the client talks to) is killed with SIGKILL after the fifth step and started
 * again. */
static run_end train_through_a_kill(const char *victim, const char *dir, int last_step) {
  TF_RegisterLogListener(listen_log);
  int ports[2];
  dist_free_ports(2, ports);
  char cluster[128];
  snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=localhost:%d", ports[0], ports[1]);
  dist_task *ps = dist_server_start(cluster, "ps", 0, NULL, NULL);
  dist_task *worker = dist_server_start(cluster, "worker", 0, NULL, NULL);

  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *on_ps = TFC_ScopeWithDevice(root, "/job:ps/task:0");
  TFC_Variable gs = TFC_GetOrCreateGlobalStep(on_ps, s);
  TF_Output one = TFC_ScalarConst(on_ps, "one", TF_INT64, 1, s);
  TF_Output w_init = TFC_ScalarConst(on_ps, "w_init", TF_FLOAT, 1, s);
  TFC_Variable w = TFC_NewVariable(on_ps, "w", w_init, 1, s);
  TF_Output onef = TFC_ScalarConst(on_ps, "onef", TF_FLOAT, 1, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "build: %s", TF_Message(s));
  TF_Operation *a = assign_add(g, "step_add", "/job:ps/task:0", (TF_Output){gs.variable, 0}, one);
  TF_Operation *b = assign_add(g, "w_add", "/job:ps/task:0", (TF_Output){w.variable, 0}, onef);
  TF_OperationDescription *d = dist_op(g, "NoOp", "train", "/job:worker/task:0");
  TF_AddControlInput(d, a);
  TF_AddControlInput(d, b);
  TF_Operation *train = dist_finish(d, "train");

  TFC_MonitoredSessionOptions o = {0};
  char master[64];
  snprintf(master, sizeof master, "grpc://localhost:%d", ports[1]);
  o.master = master;
  o.is_chief = 1;
  o.checkpoint_dir = dir;
  o.save_checkpoint_steps = dir ? 2 : 0;
  o.last_step = last_step;
  o.max_wait_secs = 60;
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(g, &o, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "create: %s", TF_Message(s));
  run_end r = {0, 0, 0};
  while (!TFC_MonitoredSessionShouldStop(ms) && r.runs < 100) {
    if (r.runs == 5) {
      /* Global step 5 (checkpoints at 0, 2 and 4 when saving): the task dies and comes back
       * empty. */
      if (strcmp(victim, "ps") == 0) {
        dist_task_free(ps);
        ps = dist_server_start(cluster, "ps", 0, NULL, NULL);
      } else {
        dist_task_free(worker);
        worker = dist_server_start(cluster, "worker", 0, NULL, NULL);
      }
    }
    const TF_Operation *t[] = {train};
    TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "step %d: %s", r.runs, TF_Message(s));
    r.runs++;
  }
  r.global_step = TFC_MonitoredSessionGlobalStep(ms);
  TF_Output wv = {w.variable, 0};
  TF_Tensor *v = NULL;
  TF_SessionRun(TFC_MonitoredSessionRawSession(ms), NULL, NULL, NULL, 0, &wv, &v, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "read w: %s", TF_Message(s));
  r.w = *(const float *)TF_TensorData(v);
  TF_DeleteTensor(v);
  TFC_MonitoredSessionClose(ms, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TFC_DeleteMonitoredSession(ms);
  TFC_DeleteScope(on_ps);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  dist_task_free(worker);
  dist_task_free(ps);
  return r;
}

/* Kills `victim` mid-training with checkpoints every 2 steps: the chief restores the one at 4
 * whichever task died (as TF's), and the run ends as an undisturbed one. */
static void killed_and_restored(const char *victim) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/tfc_recovery_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) tfc_test_fail(__FILE__, __LINE__, "mkdtemp");
  run_end r = train_through_a_kill(victim, dir, 10);
  EXPECT_EQ(r.global_step, 10);
  EXPECT_EQ(r.runs, 11); /* step 5 was redone from the checkpoint at 4: 5 + 6 runs */
  EXPECT_NEAR(r.w, 11, 0); /* as an undisturbed run's */
  pthread_mutex_lock(&log_mu);
  char want[512];
  EXPECT_CONTAINS(log_text, "An error was raised. This may be due to a preemption in a connected worker or "
                            "parameter server. A new session will be created. Error: ");
  snprintf(want, sizeof want, "Restoring parameters from %s/model.ckpt-4\n", dir);
  EXPECT_CONTAINS(log_text, want);
  snprintf(want, sizeof want, "Saving checkpoints for 10 into %s/model.ckpt.\n", dir);
  EXPECT_CONTAINS(log_text, want);
  pthread_mutex_unlock(&log_mu);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) tfc_test_fail(__FILE__, __LINE__, "rm");
}

static void ps_killed_mid_training_is_restored_from_the_checkpoint(void) { killed_and_restored("ps"); }

static void master_worker_killed_mid_training_is_recovered(void) { killed_and_restored("worker"); }

/* A ps killed before any checkpoint exists (the chief saves none): the chief initializes the
 * new ps again, says so, and training starts over from step 0 to the planned step. */
static void ps_killed_before_any_checkpoint_starts_over(void) {
  run_end r = train_through_a_kill("ps", NULL, 8);
  EXPECT_EQ(r.global_step, 8);
  EXPECT_EQ(r.runs, 5 + 8); /* everything again from step 0 */
  EXPECT_NEAR(r.w, 9, 0);
  pthread_mutex_lock(&log_mu);
  EXPECT_CONTAINS(log_text, "No checkpoint to restore (no checkpoint directory): initializing the variables again, "
                            "training starts over");
  pthread_mutex_unlock(&log_mu);
}

static const tfc_test tests[] = {
    TFC_TEST(ps_killed_mid_training_is_restored_from_the_checkpoint),
    TFC_TEST(master_worker_killed_mid_training_is_recovered),
    TFC_TEST(ps_killed_before_any_checkpoint_starts_over),
    {0},
};
TFC_TEST_MAIN(tests)
