/*
 * monitored_session.h — tf.compat.v1.train.MonitoredTrainingSession from C: a session that
 * initializes or restores the model, saves checkpoints, stops at a step, runs the caller's
 * hooks around every step, and recovers from the loss of a task of its cluster.
 *
 * Creation (and every re-creation) follows TF's session creators:
 * - the chief restores the newest checkpoint of checkpoint_dir when there is one ("Restoring
 *   parameters from <prefix>"), else runs the init op (every global variable's initializer),
 *   then the local init op (local variables), then checks that every variable is initialized
 *   (FAILED_PRECONDITION "Init operations did not make model ready: Variables not initialized:
 *   a, b" otherwise);
 * - a worker (is_chief 0) waits until the chief has made every global variable initialized,
 *   polling every recovery_wait_secs ("Waiting for model to be ready. Ready_for_local_init_op:
 *   Variables not initialized: w, b"), runs the local init op, and fails DEADLINE_EXCEEDED
 *   "Session was not ready after waiting <N> secs." (N: max_wait_secs's whole seconds) as
 *   soon as the next poll would come after max_wait_secs (at once when max_wait_secs is under
 *   recovery_wait_secs), as TF's SessionManager.
 * The scaffold's ops are added to the graph when the monitored session is made (under the
 * name scope "monitored_session": the init ops, the readiness checks and, with a checkpoint
 * directory, a Saver of every global variable), so build the model first.
 *
 * Steps. TFC_MonitoredSessionRun is TF_SessionRun plus: each hook's before_run may add
 * outputs to fetch and operations to run, after_run sees their values; the checkpoint hook
 * (chief with a checkpoint_dir) saves "<dir>/model.ckpt-<global step>" (with its ".meta"
 * MetaGraphDef, TFC_SAVER_WRITE_META_GRAPH) at creation, every
 * save_checkpoint_steps steps or save_checkpoint_secs seconds, and at close ("Saving
 * checkpoints for <step> into <dir>/model.ckpt."); with last_step > 0 the session asks to stop
 * once the global step reaches it (TFC_MonitoredSessionShouldStop). Hooks that need the global
 * step find the graph's "global_step" variable (TFC_GetOrCreateGlobalStep); without one the
 * checkpoint and stop hooks are INVALID_ARGUMENT at creation, as TF's hooks refuse to run.
 *
 * Summaries (chief with a summary directory): an event file there gets the graph at the first
 * creation, the graph's merged summaries (TFC_MergeAllSummaries of the "summaries" collection)
 * at the first step and then every save_summaries_steps global steps or save_summaries_secs
 * seconds (recorded at the global
 * step read after their step, as TF's SummarySaverHook: 1, 3, 5, ... for 2), and the
 * StepCounterHook's "global_step/sec" every
 * log_step_count_steps steps, which is also logged ("global_step/sec: 812.5").
 *
 * Queue runners. Each session gets a coordinator, and the graph's queue runners
 * (TFC_StartQueueRunners) start with it, as TF's monitored session starts them; a step that
 * fails with OUT_OF_RANGE (an input pipeline ran out) or a runner's error stops the session
 * (TFC_MonitoredSessionShouldStop), and closing it asks the threads to stop, closes the
 * session (ending their runs still blocked) and joins them.
 *
 * Recovery. A step that fails with ABORTED or UNAVAILABLE (a worker or parameter server of
 * the cluster went away or restarted) is not the caller's problem: the monitored session logs
 * "An error was raised. This may be due to a preemption in a connected worker or parameter
 * server. A new session will be created. Error: <message>", closes the session, creates a new
 * one as above (the chief restores the latest checkpoint, so a restarted ps gets its variables
 * back; workers wait for the chief), and runs the step again, as TF's recoverable session does.
 * Steps done since the last checkpoint are done again; with no checkpoint yet (or no
 * checkpoint directory) the chief initializes the variables again and training starts over,
 * which it logs ("No checkpoint to restore in <dir>: initializing the variables again,
 * training starts over"). Other errors are returned as they are.
 *
 * Messages go through TF_RegisterLogListener's listeners (stderr when there are none).
 * Ownership: the monitored session borrows the graph (it must outlive it) and the hooks'
 * functions and arguments; tensors returned by a run are the caller's. Thread-safety: one
 * thread at a time per monitored session.
 */
#ifndef TFC_MONITORED_SESSION_H_
#define TFC_MONITORED_SESSION_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/queue_runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a hook may add to one step (TF's SessionRunArgs), filled in before_run: up to
 * TFC_HOOK_MAX_FETCHES outputs to fetch and TFC_HOOK_MAX_TARGETS operations to run. */
#define TFC_HOOK_MAX_FETCHES 8
#define TFC_HOOK_MAX_TARGETS 8
typedef struct TFC_SessionRunArgs {
  TF_Output fetches[TFC_HOOK_MAX_FETCHES];
  int num_fetches;
  TF_Operation* targets[TFC_HOOK_MAX_TARGETS];
  int num_targets;
} TFC_SessionRunArgs;

/* A tf.train.SessionRunHook. Every function may be NULL. Errors a hook reports in `status`
 * fail the call that ran it (creation, the step, or close) with that status. */
typedef struct TFC_SessionRunHook {
  void* arg;
  /* After each session creation (also after a recovery), with the new session and its
   * coordinator (for threads the hook starts: TFC_StartQueueRunner). */
  void (*after_create_session)(void* arg, TF_Session* session, TFC_Coordinator* coord, TF_Status* status);
  /* Before each step: add fetches and targets to `args` (zeroed before the call). */
  void (*before_run)(void* arg, TFC_SessionRunArgs* args, TF_Status* status);
  /* After a successful step: the values of this hook's fetches (borrowed for the call).
   * TFC_MonitoredSessionRequestStop may be called from here. */
  void (*after_run)(void* arg, TF_Tensor* const* values, int num_values, TF_Status* status);
  /* At TFC_MonitoredSessionClose, before the final checkpoint, with the live session. */
  void (*end)(void* arg, TF_Session* session, TF_Status* status);
  /* Before a session this hook's after_create_session saw is closed (at a recovery and at
   * close, after end), while it and its coordinator still live: the last moment to stop and
   * join threads of the hook's own that use them. */
  void (*session_closing)(void* arg, TF_Session* session, TFC_Coordinator* coord);
} TFC_SessionRunHook;

/* MonitoredTrainingSession's arguments. Zeroed fields take TF's defaults. */
typedef struct TFC_MonitoredSessionOptions {
  const char* master;             /* session target: NULL or "" in process, "grpc://host:port" */
  unsigned char is_chief;         /* the chief initializes, restores and saves */
  const char* checkpoint_dir;     /* NULL: no checkpoints, nothing restored */
  int save_checkpoint_steps;      /* > 0: save every that many global steps */
  double save_checkpoint_secs;    /* > 0: every that many seconds; both 0: 600 s; < 0 with no
                                     save_checkpoint_steps: no CheckpointSaverHook (the chief
                                     restores but never saves, as a ChiefSessionCreator alone) */
  int64_t last_step;              /* > 0: StopAtStepHook(last_step=...) */
  double max_wait_secs;           /* a worker's wait for the chief; 0: 7200 */
  double recovery_wait_secs;      /* a worker's poll interval; 0: 30 */
  const void* config;             /* serialized ConfigProto for the sessions, or NULL */
  size_t config_len;
  const TFC_SessionRunHook* hooks; /* run in order, after the built-in ones */
  int num_hooks;
  const char* summary_dir;        /* the chief's event file; NULL: checkpoint_dir. The file is
                                     made when a checkpoint, summary or step counter hook is on */
  int save_summaries_steps;       /* > 0: the merged summaries every that many steps; 0: 100; < 0: never */
  int log_step_count_steps;       /* > 0: "global_step/sec" every that many steps; 0: 100; < 0: never */
  double save_summaries_secs;     /* > 0: the merged summaries also every that many seconds (then
                                     a zero save_summaries_steps means none by steps) */
} TFC_MonitoredSessionOptions;

typedef struct TFC_MonitoredSession TFC_MonitoredSession;

/* Builds the scaffold into `graph` and creates the first session (see above). NULL with
 * status on error: INVALID_ARGUMENT for bad options (a hook needing a global step without
 * one), the errors of restoring or initializing, FAILED_PRECONDITION when init does not make
 * the model ready, DEADLINE_EXCEEDED when a worker waited in vain, the hooks' errors. */
TF_CAPI_EXPORT extern TFC_MonitoredSession* TFC_NewMonitoredSession(TF_Graph* graph,
                                                                    const TFC_MonitoredSessionOptions* options,
                                                                    TF_Status* status);
/* One step, as TF_SessionRun (run_options and run_metadata may be NULL; output_values[i] are
 * the caller's), with the hooks and recovery described above. A step once a stop was
 * requested is FAILED_PRECONDITION "Run called even after should_stop requested." (TF's
 * RuntimeError), one after close FAILED_PRECONDITION "Session has been closed.". */
TF_CAPI_EXPORT extern void TFC_MonitoredSessionRun(TFC_MonitoredSession* session, const TF_Buffer* run_options,
                                                  const TF_Output* inputs, TF_Tensor* const* input_values,
                                                  int ninputs, const TF_Output* outputs, TF_Tensor** output_values,
                                                  int noutputs, const TF_Operation* const* target_opers,
                                                  int ntargets, TF_Buffer* run_metadata, TF_Status* status);
/* Whether a hook asked to stop (the stop-at-step hook, TFC_MonitoredSessionRequestStop), a
 * step failed with OUT_OF_RANGE, or the coordinator was asked to stop (a queue runner's
 * error). A runner stopped by ABORTED or UNAVAILABLE (a task it ran on died: the chief's
 * sync op on a restarted ps) is recovered from here as a failed step is: a new session is
 * made (see Recovery) and the answer is 0; when that fails, 1, and
 * TFC_MonitoredSessionClose reports the error. Not thread-safe (it may replace the
 * session). */
TF_CAPI_EXPORT extern unsigned char TFC_MonitoredSessionShouldStop(TFC_MonitoredSession* session);
TF_CAPI_EXPORT extern void TFC_MonitoredSessionRequestStop(TFC_MonitoredSession* session);
/* The session steps run in now (replaced by a recovery; borrowed). */
TF_CAPI_EXPORT extern TF_Session* TFC_MonitoredSessionRawSession(TFC_MonitoredSession* session);
/* The global step read at the last step (or creation); -1 without a global step. */
TF_CAPI_EXPORT extern int64_t TFC_MonitoredSessionGlobalStep(const TFC_MonitoredSession* session);
/* Runs the hooks' end, saves the final checkpoint (chief), flushes the event file and closes
 * the session. Idempotent;
 * errors land in status (the session is closed anyway), as does a failed recovery that
 * stopped the session in TFC_MonitoredSessionShouldStop. */
TF_CAPI_EXPORT extern void TFC_MonitoredSessionClose(TFC_MonitoredSession* session, TF_Status* status);
/* Closes (errors ignored) and frees. NULL: no-op. */
TF_CAPI_EXPORT extern void TFC_DeleteMonitoredSession(TFC_MonitoredSession* session);

#ifdef __cplusplus
}
#endif

#endif /* TFC_MONITORED_SESSION_H_ */
