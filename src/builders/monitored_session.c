/*
 * monitored_session — include/tfc/monitored_session.h: MonitoredTrainingSession over the C
 * API (TF_NewSession, TF_SessionRun) and the builders (initializers, Saver).
 *
 * The scaffold is built once, at creation, under the name scope "monitored_session": "init"
 * (global variables' initializers), "local_init" (local variables'), one IsVariableInitialized
 * per variable (global ones first) packed into "is_initialized", and the Saver ("save") of the
 * global variables when there is a checkpoint directory. Readiness is that vector: the names
 * of the variables whose entry is false are reported.
 *
 * The built-in hooks are TF's CheckpointSaverHook (chief with a checkpoint directory and a
 * save period) and
 * StopAtStepHook (last_step > 0). Both fetch the global step with the step and, when their
 * timer may fire, read it again in a run of its own before they act, as TF's do (the value
 * fetched with a step may be read before the step's increment).
 *
 * Each session has a coordinator for its queue runners (the graph's, and those hooks start);
 * closing stops them, closes the session (which ends their blocked runs) and joins them.
 *
 * Recovery: a step or a creation failing with ABORTED or UNAVAILABLE closes the session and
 * creates a new one (see the header), with a pause between failed creations, until one
 * succeeds or max_wait_secs have gone by.
 */
#include "tfc/monitored_session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "builders/builders_internal.h"
#include "capi/capi_internal.h"
#include "tfc/input.h"
#include "tfc/queue_runner.h"
#include "tensorflow/summary.pb-c.h"
#include "tfc/saver.h"
#include "tfc/summary.h"
#include "tfc/train.h"

#define MAX_VARS 4096

struct TFC_MonitoredSession {
  TF_Graph* graph;
  char* master;
  int is_chief;
  char* checkpoint_dir;
  int save_steps;
  double save_secs;
  int ckpt_hook; /* CheckpointSaverHook on: chief, checkpoint_dir, a period */
  int64_t last_step;
  double max_wait_secs, recovery_wait_secs;
  int sessions_made; /* sessions created and prepared so far (recoveries make more) */
  void* config;
  size_t config_len;
  TFC_SessionRunHook* hooks;
  int n_hooks;
  /* the scaffold */
  TF_Operation *init_op, *local_init_op, *is_initialized;
  char** var_names;
  int n_vars, n_global;
  TFC_Saver* saver;
  TF_Output global_step; /* oper NULL: none */
  TF_Output summary_op;  /* oper NULL: none */
  /* summaries (chief with a summary directory) */
  char* summary_dir;
  int summary_steps, count_steps;
  double summary_secs, last_summary_time;
  TFC_EventWriter* writer;
  int64_t last_summary_step, last_count_step;
  double last_count_time;
  int summary_due; /* the current step fetches summary_op */
  /* state */
  TF_Session* sess;
  TFC_Coordinator* coord; /* the session's queue runner threads */
  int stop_requested, closed;
  TF_Status* stop_error; /* why a failed recovery in ShouldStop stopped the session (else OK) */
  int told;               /* hooks whose after_create_session saw the current session */
  int64_t step;           /* the global step last read */
  int64_t last_save_step; /* -1: none yet */
  double last_save_time;
};

static double now_secs(void) { return (double)tfc_now_us() / 1e6; }

static void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char* fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  tfc_log_print(line);
}

static void sleep_secs(double secs) {
  if (secs <= 0) return;
  struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
  nanosleep(&ts, NULL);
}

static int is_preemption(const TF_Status* s) {
  return TF_GetCode(s) == TF_ABORTED || TF_GetCode(s) == TF_UNAVAILABLE;
}

/* ---------------- the scaffold ---------------- */

/* One IsVariableInitialized (or VarIsInitializedOp for a resource handle) per variable, and
 * their Pack; the names are recorded in ms->var_names. */
static int build_readiness(TFC_MonitoredSession* ms, const TFC_Scope* sc, TF_Status* status) {
  TFC_Variable* vars = malloc(sizeof *vars * MAX_VARS);
  if (!vars) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  int ng = TFC_GlobalVariables(ms->graph, vars, MAX_VARS);
  if (ng > MAX_VARS) ng = MAX_VARS;
  int nl = TFC_LocalVariables(ms->graph, vars + ng, MAX_VARS - ng);
  if (nl > MAX_VARS - ng) nl = MAX_VARS - ng;
  int n = ng + nl;
  ms->n_global = ng;
  ms->var_names = calloc((size_t)n + 1, sizeof *ms->var_names);
  TF_Output* flags = calloc((size_t)n + 1, sizeof *flags);
  int rc = 0;
  if (!ms->var_names || !flags) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    rc = -1;
  }
  for (int i = 0; i < n && rc == 0; i++) {
    TF_Operation* v = vars[i].variable;
    const char* type = TF_OperationOpType(v);
    int resource = strcmp(type, "VarHandleOp") == 0;
    TF_OperationDescription* d =
        TFC_ScopeNewOperation(sc, resource ? "VarIsInitializedOp" : "IsVariableInitialized", NULL);
    if (!d) {
      TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
      rc = -1;
      break;
    }
    TF_AddInput(d, (TF_Output){v, 0});
    if (!resource) {
      TF_DataType t = TF_OperationOutputType((TF_Output){v, 0});
      TF_SetAttrType(d, "dtype", t > 100 ? (TF_DataType)(t - 100) : t); /* a ref type's base */
    }
    TF_Operation* op = TF_FinishOperation(d, status);
    if (TF_GetCode(status) != TF_OK) {
      rc = -1;
      break;
    }
    flags[i] = (TF_Output){op, 0};
    ms->var_names[i] = strdup(TF_OperationName(v));
    ms->n_vars = i + 1;
    if (!ms->var_names[i]) {
      TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
      rc = -1;
    }
  }
  if (rc == 0 && n > 0) {
    TF_OperationDescription* d = TFC_ScopeNewOperation(sc, "Pack", "is_initialized");
    TF_AddInputList(d, flags, n);
    TF_SetAttrInt(d, "axis", 0);
    ms->is_initialized = TF_FinishOperation(d, status);
    if (TF_GetCode(status) != TF_OK) rc = -1;
  }
  free(flags);
  free(vars);
  return rc;
}

static int build_scaffold(TFC_MonitoredSession* ms, TF_Status* status) {
  TFC_Scope* root = TFC_NewRootScope(ms->graph);
  TFC_Scope* sc = root ? TFC_NewSubScope(root, "monitored_session") : NULL;
  int rc = -1;
  if (!sc) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    goto out;
  }
  /* The hooks' needs first: a refused option leaves the graph as it was. */
  TF_Operation* gs = TF_GraphOperationByName(ms->graph, "global_step");
  if (gs) ms->global_step = (TF_Output){gs, 0};
  int needs_step = ms->ckpt_hook || ms->last_step > 0 || ms->summary_dir;
  if (needs_step && !gs) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "Global step should be created to use CheckpointSaverHook, SummarySaverHook, "
                 "StepCounterHook or StopAtStepHook (TFC_GetOrCreateGlobalStep)");
    goto out;
  }
  if (!(ms->init_op = TFC_GlobalVariablesInitializer(sc, "init", status))) goto out;
  if (!(ms->local_init_op = TFC_LocalVariablesInitializer(sc, "local_init", status))) goto out;
  if (build_readiness(ms, sc, status)) goto out;
  if (ms->checkpoint_dir && ms->n_global > 0 && !(ms->saver = TFC_NewSaver(sc, NULL, NULL, 0, 5, status)))
    goto out;
  if (ms->summary_dir && (ms->summary_steps > 0 || ms->summary_secs > 0) &&
      TFC_CollectionSize(ms->graph, "summaries") > 0) {
    ms->summary_op = TFC_MergeAllSummaries(sc, status);
    if (TF_GetCode(status) != TF_OK) goto out;
  }
  rc = 0;
out:
  TFC_DeleteScope(sc);
  TFC_DeleteScope(root);
  return rc;
}

/* ---------------- session creation ---------------- */

/* A global step's value (an int64 scalar, or int32 in graphs that made it so). */
static int64_t step_value(const TF_Tensor* t) {
  return TF_TensorType(t) == TF_INT32 ? *(const int32_t*)TF_TensorData(t) : *(const int64_t*)TF_TensorData(t);
}

/* The global step's value in ms->step (-1 without one). */
static void read_global_step(TFC_MonitoredSession* ms, TF_Session* sess, TF_Status* status) {
  if (!ms->global_step.oper) {
    ms->step = -1;
    return;
  }
  TF_Tensor* t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &ms->global_step, &t, 1, NULL, 0, NULL, status);
  if (TF_GetCode(status) != TF_OK) return;
  ms->step = step_value(t);
  TF_DeleteTensor(t);
}

/* The names of the uninitialized variables among the first n, ", "-joined into buf; returns
 * how many there are (-1 on error, in status). */
static int uninitialized(TFC_MonitoredSession* ms, TF_Session* sess, int n, char* buf, size_t cap, TF_Status* status) {
  buf[0] = 0;
  if (!ms->is_initialized || n == 0) return 0;
  TF_Output out = {ms->is_initialized, 0};
  TF_Tensor* t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, status);
  if (TF_GetCode(status) != TF_OK) return -1;
  const unsigned char* f = TF_TensorData(t);
  int count = 0;
  size_t len = 0;
  for (int i = 0; i < n; i++)
    if (!f[i]) {
      int w = snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", count ? ", " : "", ms->var_names[i]);
      if (w > 0) len += (size_t)w;
      count++;
    }
  TF_DeleteTensor(t);
  return count;
}

static void run_op(TF_Session* sess, TF_Operation* op, TF_Status* status) {
  const TF_Operation* t[] = {op};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, status);
}

/* Saves "<dir>/model.ckpt-<step>" (and its ".meta", as TF's hook) at the current global step
 * (chief with a saver). */
static void save(TFC_MonitoredSession* ms, TF_Status* status) {
  if (!ms->saver) return;
  read_global_step(ms, ms->sess, status);
  if (TF_GetCode(status) != TF_OK) return;
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/model.ckpt", ms->checkpoint_dir);
  say("Saving checkpoints for %lld into %s.", (long long)ms->step, prefix);
  TFC_SaverSaveWithOptions(ms->saver, ms->sess, prefix, ms->step, NULL, NULL, TFC_SAVER_WRITE_META_GRAPH, NULL, 0,
                           status);
  if (TF_GetCode(status) != TF_OK) return;
  ms->last_save_step = ms->step;
  ms->last_save_time = now_secs();
}

/* The chief: restore or initialize, then local init, then the readiness check. */
static void prepare_chief(TFC_MonitoredSession* ms, TF_Status* status) {
  char path[4096], names[2048];
  int found = 0;
  if (ms->saver) {
    found = TFC_LatestCheckpoint(ms->checkpoint_dir, path, sizeof path, status);
    if (found < 0) return;
  }
  if (found > 0) {
    say("Restoring parameters from %s", path);
    TFC_SaverRestore(ms->saver, ms->sess, path, status);
    /* As TF's SessionManager: the saver takes over the checkpoints the state file lists, so a
     * restarted chief keeps listing (and in time deletes) those its predecessor saved. */
    if (TF_GetCode(status) == TF_OK) TFC_SaverRecoverLastCheckpoints(ms->saver, ms->checkpoint_dir, status);
  } else {
    /* A recovery with nothing to restore: as in TF the chief initializes again, and the
     * model starts over; say so, it is not what a user hopes for. */
    if (ms->sessions_made > 0)
      say("No checkpoint to restore%s%s: initializing the variables again, training starts over",
          ms->checkpoint_dir ? " in " : " (no checkpoint directory)", ms->checkpoint_dir ? ms->checkpoint_dir : "");
    run_op(ms->sess, ms->init_op, status);
  }
  if (TF_GetCode(status) != TF_OK) return;
  run_op(ms->sess, ms->local_init_op, status);
  if (TF_GetCode(status) != TF_OK) return;
  int n = uninitialized(ms, ms->sess, ms->n_vars, names, sizeof names, status);
  if (n > 0) {
    snprintf(path, sizeof path, "Init operations did not make model ready: Variables not initialized: %s", names);
    TF_SetStatus(status, TF_FAILED_PRECONDITION, path);
  }
}

/* A worker: wait for the chief's variables, then local init. */
static void prepare_worker(TFC_MonitoredSession* ms, TF_Status* status) {
  char names[2048];
  double until = now_secs() + ms->max_wait_secs;
  for (;;) {
    int n = uninitialized(ms, ms->sess, ms->n_global, names, sizeof names, status);
    if (n < 0) return;
    if (n == 0) break;
    /* As TF's SessionManager: give up when the next poll would come after the deadline. */
    if (until - now_secs() - ms->recovery_wait_secs < 0) {
      char msg[128];
      snprintf(msg, sizeof msg, "Session was not ready after waiting %lld secs.", (long long)ms->max_wait_secs);
      TF_SetStatus(status, TF_DEADLINE_EXCEEDED, msg);
      return;
    }
    say("Waiting for model to be ready. Ready_for_local_init_op: Variables not initialized: %s, ready: None", names);
    sleep_secs(ms->recovery_wait_secs);
  }
  run_op(ms->sess, ms->local_init_op, status);
}

/* Tells the hooks, then stops the threads and the session: a stop request runs the runners'
 * cancel ops, closing the session ends their runs still blocked elsewhere (a chief's sync op
 * waiting in an accumulator's take), then the threads are joined and the session deleted. */
/* Ends the current session. At the end of training (abandon 0) the queue runners stop first:
 * their cancel ops close their queues, which is how a chief that stops ends the other workers'
 * waits on the sync token queue. A session abandoned for a new one after a preemption
 * (abandon 1) is closed first, so that nothing of it runs again: its runners' close and cancel
 * ops would otherwise close the queues of a restarted ps, which the next session uses (its
 * in-flight steps are aborted by the close). */
static void close_session_as(TFC_MonitoredSession* ms, int abandon) {
  for (int i = 0; i < ms->told; i++)
    if (ms->hooks[i].session_closing) ms->hooks[i].session_closing(ms->hooks[i].arg, ms->sess, ms->coord);
  ms->told = 0;
  TF_Status* ignored = TF_NewStatus();
  if (abandon && ms->sess) TF_CloseSession(ms->sess, ignored);
  if (abandon && ms->coord) TFC_CoordinatorRequestStop(ms->coord, NULL);
  if (!abandon) tfc_coordinator_stop_and_cancel(ms->coord); /* the cancel ops run on the open session */
  if (!abandon && ms->sess) TF_CloseSession(ms->sess, ignored);
  if (ms->coord) {
    TFC_DeleteCoordinator(ms->coord);
    ms->coord = NULL;
  }
  if (ms->sess) TF_DeleteSession(ms->sess, ignored);
  TF_DeleteStatus(ignored);
  ms->sess = NULL;
}

static void close_session(TFC_MonitoredSession* ms) { close_session_as(ms, 0); }
static void abandon_session(TFC_MonitoredSession* ms) { close_session_as(ms, 1); }

/* One attempt: a new session, prepared, hooks told. */
static void create_once(TFC_MonitoredSession* ms, TF_Status* status) {
  TF_SessionOptions* o = TF_NewSessionOptions();
  if (ms->master && *ms->master) TF_SetTarget(o, ms->master);
  if (ms->config) TF_SetConfig(o, ms->config, ms->config_len, status);
  if (TF_GetCode(status) == TF_OK) ms->sess = TF_NewSession(ms->graph, o, status);
  TF_DeleteSessionOptions(o);
  if (TF_GetCode(status) != TF_OK) return;
  if (ms->is_chief)
    prepare_chief(ms, status);
  else
    prepare_worker(ms, status);
  if (TF_GetCode(status) == TF_OK) read_global_step(ms, ms->sess, status);
  /* CheckpointSaverHook.after_create_session: a checkpoint at the current step. */
  if (TF_GetCode(status) == TF_OK && ms->ckpt_hook) save(ms, status);
  if (TF_GetCode(status) == TF_OK && !(ms->coord = TFC_NewCoordinator()))
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
  for (int i = 0; i < ms->n_hooks && TF_GetCode(status) == TF_OK; i++) {
    ms->told = i + 1;
    if (ms->hooks[i].after_create_session)
      ms->hooks[i].after_create_session(ms->hooks[i].arg, ms->sess, ms->coord, status);
  }
  if (TF_GetCode(status) == TF_OK) TFC_StartQueueRunners(ms->sess, ms->graph, ms->coord, status);
  if (TF_GetCode(status) == TF_OK) ms->sessions_made++;
}

/* Creates sessions until one is ready, retrying preemption errors until max_wait_secs. */
static void create_session(TFC_MonitoredSession* ms, TF_Status* status) {
  double until = now_secs() + ms->max_wait_secs, pause = 0.1;
  for (;;) {
    TF_SetStatus(status, TF_OK, "");
    create_once(ms, status);
    if (TF_GetCode(status) == TF_OK) return;
    abandon_session(ms);
    if (!is_preemption(status) || now_secs() >= until) return;
    say("An error was raised while a session was being created. This may be due to a preemption of a connected "
         "worker or parameter server. A new session will be created. Error: %s",
         TF_Message(status));
    sleep_secs(pause);
    if (pause < 2) pause *= 2;
  }
}

/* ---------------- the public functions ---------------- */

static char* dup_or_null(const char* s) { return s ? strdup(s) : NULL; }

TFC_EXPORT TFC_MonitoredSession* TFC_NewMonitoredSession(TF_Graph* graph, const TFC_MonitoredSessionOptions* o,
                                                        TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (!graph || !o) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TFC_NewMonitoredSession: graph and options are required");
    return NULL;
  }
  if (o->num_hooks < 0 || (o->num_hooks > 0 && !o->hooks)) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TFC_NewMonitoredSession: num_hooks hooks must be given");
    return NULL;
  }
  TFC_MonitoredSession* ms = calloc(1, sizeof *ms);
  if (!ms) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  ms->graph = graph;
  ms->stop_error = TF_NewStatus();
  ms->master = dup_or_null(o->master);
  ms->is_chief = o->is_chief != 0;
  ms->checkpoint_dir = o->checkpoint_dir && *o->checkpoint_dir ? strdup(o->checkpoint_dir) : NULL;
  ms->save_steps = o->save_checkpoint_steps > 0 ? o->save_checkpoint_steps : 0;
  ms->save_secs = o->save_checkpoint_secs != 0 ? o->save_checkpoint_secs : (ms->save_steps ? -1 : 600);
  ms->ckpt_hook = ms->is_chief && ms->checkpoint_dir && (ms->save_steps > 0 || ms->save_secs > 0);
  ms->last_step = o->last_step;
  ms->max_wait_secs = o->max_wait_secs > 0 ? o->max_wait_secs : 7200;
  ms->recovery_wait_secs = o->recovery_wait_secs > 0 ? o->recovery_wait_secs : 30;
  ms->step = -1;
  ms->last_save_step = -1;
  ms->last_summary_step = -1;
  ms->last_count_step = -1;
  ms->summary_secs = o->save_summaries_secs > 0 ? o->save_summaries_secs : 0;
  ms->summary_steps = o->save_summaries_steps != 0 ? o->save_summaries_steps : ms->summary_secs > 0 ? -1 : 100;
  ms->count_steps = o->log_step_count_steps != 0 ? o->log_step_count_steps : 100;
  const char* sdir = o->summary_dir && *o->summary_dir ? o->summary_dir : ms->checkpoint_dir;
  if (!(ms->ckpt_hook || ms->summary_steps > 0 || ms->summary_secs > 0 || ms->count_steps > 0))
    sdir = NULL; /* no event file */
  if (ms->is_chief && sdir) ms->summary_dir = strdup(sdir);
  if (o->config && o->config_len) {
    ms->config = malloc(o->config_len);
    if (ms->config) memcpy(ms->config, o->config, o->config_len);
    ms->config_len = o->config_len;
  }
  if (o->num_hooks) {
    ms->hooks = malloc(sizeof *ms->hooks * (size_t)o->num_hooks);
    if (ms->hooks) memcpy(ms->hooks, o->hooks, sizeof *ms->hooks * (size_t)o->num_hooks);
    ms->n_hooks = o->num_hooks;
  }
  if (!ms->stop_error || (o->master && !ms->master) || (o->config_len && !ms->config) || (o->num_hooks && !ms->hooks) ||
      (o->checkpoint_dir && *o->checkpoint_dir && !ms->checkpoint_dir) || (ms->is_chief && sdir && !ms->summary_dir)) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
  } else if (build_scaffold(ms, status) == 0) {
    if (ms->summary_dir && (ms->writer = TFC_NewEventWriter(ms->summary_dir, status)) != NULL)
      TFC_EventWriterAddGraph(ms->writer, graph, NULL, status);
    if (TF_GetCode(status) == TF_OK) create_session(ms, status);
  }
  if (TF_GetCode(status) != TF_OK) {
    TF_Status* keep = TF_NewStatus();
    TF_SetStatus(keep, TF_GetCode(status), TF_Message(status));
    ms->closed = 1; /* no final checkpoint */
    TFC_DeleteMonitoredSession(ms);
    TF_SetStatus(status, TF_GetCode(keep), TF_Message(keep));
    TF_DeleteStatus(keep);
    return NULL;
  }
  return ms;
}

/* A Summary with one simple value, to the event file at step. */
static void add_scalar(TFC_MonitoredSession* ms, const char* tag, float v, int64_t step, TF_Status* status) {
  Tensorflow__Summary__Value value = TENSORFLOW__SUMMARY__VALUE__INIT;
  value.tag = (char*)tag;
  value.value_case = TENSORFLOW__SUMMARY__VALUE__VALUE_SIMPLE_VALUE;
  value.simple_value = v;
  Tensorflow__Summary__Value* values[] = {&value};
  Tensorflow__Summary sum = TENSORFLOW__SUMMARY__INIT;
  sum.n_value = 1;
  sum.value = values;
  uint8_t buf[512];
  if (tensorflow__summary__get_packed_size(&sum) > sizeof buf) return;
  size_t len = tensorflow__summary__pack(&sum, buf);
  TFC_EventWriterAddSummary(ms->writer, buf, len, step, status);
}

/* StepCounterHook: global steps per second since its last report. */
static void count_steps(TFC_MonitoredSession* ms, int64_t step, TF_Status* status) {
  double now = now_secs();
  if (ms->last_count_step < 0) {
    ms->last_count_step = step;
    ms->last_count_time = now;
    return;
  }
  if (step < ms->last_count_step + ms->count_steps || now <= ms->last_count_time) return;
  double rate = (double)(step - ms->last_count_step) / (now - ms->last_count_time);
  say("global_step/sec: %g", rate);
  if (ms->writer) add_scalar(ms, "global_step/sec", (float)rate, step, status);
  ms->last_count_step = step;
  ms->last_count_time = now;
}

/* The built-in hooks after a step whose fetched global step was `stale`. */
static void builtin_after_run(TFC_MonitoredSession* ms, int64_t stale, TF_Status* status) {
  ms->step = stale;
  if (ms->count_steps > 0 && ms->is_chief) count_steps(ms, stale, status);
  if (TF_GetCode(status) != TF_OK) return;
  int may_save = ms->ckpt_hook && ms->saver &&
                 ((ms->save_steps > 0 && stale + 1 >= ms->last_save_step + ms->save_steps) ||
                  (ms->save_secs > 0 && now_secs() >= ms->last_save_time + ms->save_secs));
  int may_stop = ms->last_step > 0 && stale + 1 >= ms->last_step;
  if (!may_save && !may_stop) return;
  read_global_step(ms, ms->sess, status);
  if (TF_GetCode(status) != TF_OK) return;
  if (may_save && ((ms->save_steps > 0 && ms->step >= ms->last_save_step + ms->save_steps) ||
                   (ms->save_secs > 0 && now_secs() >= ms->last_save_time + ms->save_secs)))
    save(ms, status);
  if (TF_GetCode(status) == TF_OK && may_stop && ms->step >= ms->last_step) ms->stop_requested = 1;
}

/* One attempt at the step with the hooks' fetches and targets. */
static void run_hooked(TFC_MonitoredSession* ms, const TF_Buffer* run_options, const TF_Output* inputs,
                       TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs, TF_Tensor** output_values,
                       int noutputs, const TF_Operation* const* target_opers, int ntargets, TF_Buffer* run_metadata,
                       TF_Status* status) {
  int nh = ms->n_hooks;
  TFC_SessionRunArgs* args = calloc((size_t)nh + 1, sizeof *args);
  /* SummarySaverHook: the merged summaries at the first step, then when the global step after
   * this one (the last step's stale value + 2) is summary_steps past the last summary's, or
   * summary_secs have gone by since it. */
  ms->summary_due = ms->summary_op.oper && ms->writer &&
                    (ms->last_summary_step < 0 ||
                     (ms->summary_steps > 0 && ms->step + 2 >= ms->last_summary_step + ms->summary_steps) ||
                     (ms->summary_secs > 0 && now_secs() >= ms->last_summary_time + ms->summary_secs));
  if (ms->summary_due) ms->last_summary_time = now_secs(); /* the period counts from this step's start */
  int extra_out = (ms->global_step.oper ? 1 : 0) + ms->summary_due, extra_tg = 0;
  for (int i = 0; i < nh && args; i++) {
    if (ms->hooks[i].before_run) ms->hooks[i].before_run(ms->hooks[i].arg, &args[i], status);
    if (TF_GetCode(status) != TF_OK) {
      free(args);
      return;
    }
    if (args[i].num_fetches < 0 || args[i].num_fetches > TFC_HOOK_MAX_FETCHES || args[i].num_targets < 0 ||
        args[i].num_targets > TFC_HOOK_MAX_TARGETS) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, "a hook's before_run gave more fetches or targets than allowed");
      free(args);
      return;
    }
    extra_out += args[i].num_fetches;
    extra_tg += args[i].num_targets;
  }
  int no = noutputs + extra_out, nt = ntargets + extra_tg;
  TF_Output* outs = calloc((size_t)no + 1, sizeof *outs);
  TF_Tensor** vals = calloc((size_t)no + 1, sizeof *vals);
  const TF_Operation** tgs = calloc((size_t)nt + 1, sizeof *tgs);
  if (!args || !outs || !vals || !tgs) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    goto out;
  }
  /* (Element by element: the caller's arrays may be NULL when empty.) */
  int k = 0, kt = 0;
  for (int i = 0; i < noutputs; i++) outs[k++] = outputs[i];
  for (int i = 0; i < ntargets; i++) tgs[kt++] = target_opers[i];
  if (ms->global_step.oper) outs[k++] = ms->global_step;
  if (ms->summary_due) outs[k++] = ms->summary_op;
  for (int i = 0; i < nh; i++) {
    for (int j = 0; j < args[i].num_fetches; j++) outs[k++] = args[i].fetches[j];
    for (int j = 0; j < args[i].num_targets; j++) tgs[kt++] = args[i].targets[j];
  }
  TF_SessionRun(ms->sess, run_options, inputs, input_values, ninputs, outs, vals, no, tgs, nt, run_metadata, status);
  if (TF_GetCode(status) != TF_OK) goto out;
  k = noutputs;
  if (ms->global_step.oper) {
    TF_Tensor* t = vals[k++];
    int64_t stale = step_value(t);
    if (ms->summary_due) {
      /* As TF's hook: written at the global step read again after the step. */
      read_global_step(ms, ms->sess, status);
      if (TF_GetCode(status) == TF_OK) TFC_EventWriterAddSummaryTensor(ms->writer, vals[k], ms->step, status);
      ms->last_summary_step = ms->step;
      k++;
    }
    if (TF_GetCode(status) == TF_OK) builtin_after_run(ms, stale, status);
  }
  for (int i = 0; i < nh && TF_GetCode(status) == TF_OK; i++) {
    if (ms->hooks[i].after_run) ms->hooks[i].after_run(ms->hooks[i].arg, vals + k, args[i].num_fetches, status);
    k += args[i].num_fetches;
  }
  if (TF_GetCode(status) == TF_OK)
    for (int i = 0; i < noutputs; i++) {
      output_values[i] = vals[i];
      vals[i] = NULL;
    }
out:
  for (int i = 0; vals && i < no; i++) TF_DeleteTensor(vals[i]);
  free(vals);
  free(outs);
  free(tgs);
  free(args);
}

TFC_EXPORT void TFC_MonitoredSessionRun(TFC_MonitoredSession* ms, const TF_Buffer* run_options, const TF_Output* inputs,
                                       TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                                       TF_Tensor** output_values, int noutputs, const TF_Operation* const* target_opers,
                                       int ntargets, TF_Buffer* run_metadata, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  for (int i = 0; i < noutputs; i++) output_values[i] = NULL;
  if (ms->closed || !ms->sess) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION, "Session has been closed.");
    return;
  }
  if (ms->stop_requested) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION, "Run called even after should_stop requested.");
    return;
  }
  for (;;) {
    run_hooked(ms, run_options, inputs, input_values, ninputs, outputs, output_values, noutputs, target_opers, ntargets,
               run_metadata, status);
    if (TF_GetCode(status) == TF_OUT_OF_RANGE) ms->stop_requested = 1;
    if (!is_preemption(status)) return;
    say("An error was raised. This may be due to a preemption in a connected worker or parameter server. A new "
         "session will be created. Error: %s",
         TF_Message(status));
    abandon_session(ms);
    create_session(ms, status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

TFC_EXPORT unsigned char TFC_MonitoredSessionShouldStop(TFC_MonitoredSession* ms) {
  if (ms->stop_requested || ms->closed) return 1;
  if (!ms->coord || !TFC_CoordinatorShouldStop(ms->coord)) return 0;
  /* As TF's _RecoverableSession._check_stop: a queue runner that stopped on a preemption
   * error (the chief's sync op when the ps died) means a new session, not the end. A failed
   * re-creation stops the session; TFC_MonitoredSessionClose reports why. */
  TF_Status* why = TF_NewStatus();
  if (!why) return 1;
  TFC_CoordinatorRequestedError(ms->coord, why);
  int go_on = is_preemption(why);
  if (go_on) {
    say("An error was raised while considering whether the session is complete. This may be due to a preemption "
        "in a connected worker or parameter server. The current session will be closed and a new session will be "
        "created. Error: %s",
        TF_Message(why));
    abandon_session(ms);
    create_session(ms, why);
    go_on = TF_GetCode(why) == TF_OK;
    if (!go_on) {
      TF_SetStatus(ms->stop_error, TF_GetCode(why), TF_Message(why));
      ms->stop_requested = 1;
    }
  }
  TF_DeleteStatus(why);
  return !go_on;
}

TFC_EXPORT void TFC_MonitoredSessionRequestStop(TFC_MonitoredSession* ms) { ms->stop_requested = 1; }

TFC_EXPORT TF_Session* TFC_MonitoredSessionRawSession(TFC_MonitoredSession* ms) { return ms->sess; }

TFC_EXPORT int64_t TFC_MonitoredSessionGlobalStep(const TFC_MonitoredSession* ms) { return ms->step; }

TFC_EXPORT void TFC_MonitoredSessionClose(TFC_MonitoredSession* ms, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (ms->closed) return;
  ms->closed = 1;
  if (ms->stop_error && TF_GetCode(ms->stop_error) != TF_OK)
    TF_SetStatus(status, TF_GetCode(ms->stop_error), TF_Message(ms->stop_error));
  if (!ms->sess) return;
  for (int i = 0; i < ms->n_hooks && TF_GetCode(status) == TF_OK; i++)
    if (ms->hooks[i].end) ms->hooks[i].end(ms->hooks[i].arg, ms->sess, status);
  /* CheckpointSaverHook.end: a last checkpoint unless this step's is saved already. */
  if (TF_GetCode(status) == TF_OK && ms->ckpt_hook && ms->saver) {
    read_global_step(ms, ms->sess, status);
    if (TF_GetCode(status) == TF_OK && ms->step != ms->last_save_step) save(ms, status);
  }
  /* SummarySaverHook.end: the event file flushed (it stays open until the session is freed). */
  if (ms->writer) {
    TF_Status* flushed = TF_NewStatus();
    TFC_EventWriterFlush(ms->writer, flushed);
    if (TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_GetCode(flushed), TF_Message(flushed));
    TF_DeleteStatus(flushed);
  }
  close_session(ms);
}

TFC_EXPORT void TFC_DeleteMonitoredSession(TFC_MonitoredSession* ms) {
  if (!ms) return;
  TF_Status* ignored = TF_NewStatus();
  TFC_MonitoredSessionClose(ms, ignored);
  TF_DeleteStatus(ignored);
  close_session(ms);
  TFC_DeleteSaver(ms->saver);
  TFC_DeleteEventWriter(ms->writer);
  free(ms->summary_dir);
  for (int i = 0; i < ms->n_vars; i++) free(ms->var_names[i]);
  free(ms->var_names);
  free(ms->hooks);
  free(ms->config);
  free(ms->checkpoint_dir);
  free(ms->master);
  TF_DeleteStatus(ms->stop_error);
  free(ms);
}
