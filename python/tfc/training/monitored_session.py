"""tf.train.MonitoredTrainingSession, MonitoredSession, SingularMonitoredSession, Scaffold and
the session creators (TF 1.x's training/monitored_session.py) over include/tfc/monitored_session.h.

Design: one implementation of each thing. The C monitored session (via
_pywrap.monitored_session) makes the scaffold, creates the session (the chief restores the
newest checkpoint or initializes, workers wait for the chief), runs the checkpoint, summary and
step counter hooks, starts the graph's queue runners, stops at OUT_OF_RANGE, and recovers from
a lost task by a new session, a restore and a rerun of the step. Python adds what is Python's:
- the arguments of TF's API, turned into the C options (_c_options; the built-in hook classes
  of basic_session_run_hooks.py are descriptions of those options);
- the Python hooks around each step: their before_run fetches, feeds and options join the
  step's (as TF's _HookedSession merges them), one TFC_MonitoredSessionRun runs it all through
  Session.run's machinery (client/session.py plans over a monitored _pywrap.Session), and
  after_run gets each hook's results in its own structure; a stop a hook requests is passed to
  the C session;
- after_create_session, end and the session's close come from the C session's one hook for
  Python (_pywrap/monitored_session.c): after every creation, recoveries included, the hooks
  get a Session over the new raw session (which _tf_sess() returns too) and a Coordinator over
  its C coordinator; before that session closes, the Coordinator is stopped and its Python
  threads joined (stop_grace_period_secs), and both are marked closed.
- hooks whose work is C (a `_c_hook` capsule set by their begin(): SyncReplicasOptimizer's)
  are handed to the C session, which runs them after the Python hooks' callbacks.

Errors: hooks' exceptions propagate with their class (also those raised inside a C call:
after_create_session during a recovery, end at close); a run after a stop is RuntimeError "Run
called even after should_stop requested."; as a context manager the session swallows
OutOfRangeError and StopIteration. TF's Scaffold ops the C scaffold has no counterpart for are
refused with NotImplementedError naming them.
"""
import os
import sys
import weakref

from tfc import _pywrap
from tfc import coordinator as coordinator_lib
from tfc import tf_logging as logging
from tfc.client import session as session_lib
from tfc.framework import config as config_pb
from tfc.framework import errors
from tfc.framework import ops
from tfc.training import basic_session_run_hooks as hooks_lib
from tfc.training import session_run_hook

USE_DEFAULT = object()


class Scaffold(object):
    """tf.train.Scaffold. tfc's monitored session builds TF's default scaffold in C (init: every
    global variable's initializer; ready: every variable initialized; local init: the local
    variables' initializer; the merged summaries; a Saver of the global variables). Of the
    arguments, local_init_op (run after the C local init, at every session creation) and saver
    (accepted; checkpoints are the C Saver's, of the global variables) are taken; init_op,
    init_feed_dict, init_fn, ready_op, ready_for_local_init_op and summary_op must be None
    (NotImplementedError when the session is made), except a ready_for_local_init_op that is
    TF's default, a report of the global variables (SyncReplicasOptimizer's)."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None, saver=None,
                 copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            init_op = init_op or copy_from_scaffold.init_op
            init_feed_dict = init_feed_dict or copy_from_scaffold.init_feed_dict
            init_fn = init_fn or copy_from_scaffold._init_fn
            ready_op = ready_op or copy_from_scaffold.ready_op
            ready_for_local_init_op = ready_for_local_init_op or copy_from_scaffold.ready_for_local_init_op
            local_init_op = local_init_op or copy_from_scaffold.local_init_op
            summary_op = summary_op or copy_from_scaffold.summary_op
            saver = saver or copy_from_scaffold.saver
        self._init_op, self._init_feed_dict, self._init_fn = init_op, init_feed_dict, init_fn
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._summary_op, self._saver = local_init_op, summary_op, saver

    def finalize(self):
        """Finalizes the graph (the C session adds the default ops when it is created)."""
        ops.get_default_graph().finalize()
        return self

    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    init_fn = property(lambda self: self._init_fn)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)

    def _check_supported(self):
        for name in ("init_op", "init_feed_dict", "init_fn", "ready_op", "ready_for_local_init_op", "summary_op"):
            value = getattr(self, "_" + name)
            if name == "ready_for_local_init_op" and getattr(value, "_tfc_reports_global_variables", False):
                continue  # TF's default (SyncReplicasOptimizer's): what the C session checks already
            if value is not None:
                raise NotImplementedError(
                    "tfc: Scaffold(%s=...) is not supported: the monitored session builds TF's default %s in C"
                    % (name, name))


class SessionCreator(object):
    """A description of how the monitored session creates its sessions."""

    def create_session(self):
        raise NotImplementedError("tfc: a monitored session's sessions are created by its C session")


class ChiefSessionCreator(SessionCreator):
    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        if checkpoint_filename_with_path is not None:
            raise NotImplementedError("tfc: ChiefSessionCreator restores the newest checkpoint of checkpoint_dir, "
                                      "not checkpoint_filename_with_path")
        self._scaffold = scaffold or Scaffold()
        self._master, self._config, self._checkpoint_dir = master, config, checkpoint_dir
        self._is_chief = True
        self._max_wait_secs = 7200


class WorkerSessionCreator(SessionCreator):
    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config, self._checkpoint_dir = master, config, None
        self._is_chief = False
        self._max_wait_secs = max_wait_secs


class _RawSession(session_lib.BaseSession):
    """A Session over a _pywrap.Session it does not own (the monitored session's current raw
    session): close() only forgets it."""

    def __init__(self, graph, pywrap_session, config):  # noqa: D107 (no super: nothing to create)
        self._graph, self._target, self._config = graph, "", config
        self._plans = {}
        self._closed = False
        self._default_ctx = self._graph_ctx = None
        self._session = pywrap_session

    def close(self):
        if not self._closed:
            self._closed = True
            self._session.close()  # a borrowed session: marked closed, nothing freed
            self._plans.clear()


class _SessionCoordinator(coordinator_lib.Coordinator):
    """tf.train.Coordinator over a monitored session's C coordinator (a borrowed handle)."""

    def __init__(self, handle):
        super(_SessionCoordinator, self).__init__()
        self._c = handle


def _intersect(a, b, message):
    both = set(a.keys()) & set(b.keys())
    if both:
        raise RuntimeError(message + " Conflict(s): " + str(list(both)))


def _merge_run_options(options, incoming):
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.output_partition_graphs = options.output_partition_graphs or incoming.output_partition_graphs
    options.report_tensor_allocations_upon_oom = (options.report_tensor_allocations_upon_oom
                                                  or incoming.report_tensor_allocations_upon_oom)


class _MonitoredSession(object):
    """The monitored session: see the module comment."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs):
        if session_creator is None:
            session_creator = ChiefSessionCreator()
        if not isinstance(session_creator, (ChiefSessionCreator, WorkerSessionCreator)):
            raise NotImplementedError("tfc: a monitored session is created by a ChiefSessionCreator or a "
                                      "WorkerSessionCreator, not %s" % type(session_creator).__name__)
        self._graph = ops.get_default_graph()
        self._hooks = list(hooks or [])
        self._stop_grace_period_secs = stop_grace_period_secs
        self._creator = session_creator
        scaffold = session_creator._scaffold
        scaffold._check_supported()
        self._local_init_op = scaffold.local_init_op
        self._closed = True  # until created
        self._stop = False
        self._skip_end = False
        self._raw = None
        self._coord = None
        self._closing_error = None
        for h in self._hooks:
            h.begin()
        opts = self._c_options(session_creator)
        config = session_creator._config
        if config is not None and not isinstance(config, config_pb.ConfigProto):
            raise TypeError("config must be a tf.ConfigProto, but got %s" % type(config))
        me = weakref.ref(self)

        def on_create(raw, coord):
            m = me()
            if m is not None:
                m._on_create(raw, coord)

        def on_end():
            m = me()
            if m is not None:
                m._on_end()

        def on_closing():
            m = me()
            if m is not None:
                m._on_closing()
        try:
            self._c = _pywrap.monitored_session(
                self._graph._c_graph, session_creator._master or None, session_creator._is_chief,
                opts["checkpoint_dir"],
                opts["save_steps"], opts["save_secs"], 0, opts["max_wait_secs"], 0.0,
                config.SerializeToString() if config is not None else b"", opts["summary_dir"],
                opts["summary_steps"], opts["count_steps"], opts["summary_secs"], (on_create, on_end, on_closing),
                tuple(h._c_hook for h in self._hooks if getattr(h, "_c_hook", None) is not None))
        finally:
            self._graph._sync_c_ops()  # the scaffold's ops
        self._closed = False
        self._graph.finalize()
        self._sess = _RawSession(self._graph, self._c, config)

    def _c_options(self, creator):
        """The C options of the creator and of the built-in hook classes among the hooks."""
        o = {"checkpoint_dir": creator._checkpoint_dir or None, "save_steps": 0, "save_secs": -1.0,
             "summary_dir": None, "summary_steps": -1, "summary_secs": 0.0, "count_steps": -1}
        max_wait = float(creator._max_wait_secs)
        o["max_wait_secs"] = max_wait if max_wait > 0 else 1e-9
        for h in self._hooks:  # several on one directory: the C hook saves when any period ends
            if not isinstance(h, hooks_lib.CheckpointSaverHook):
                continue
            if o["checkpoint_dir"] and os.path.abspath(o["checkpoint_dir"]) != os.path.abspath(h._checkpoint_dir):
                raise NotImplementedError("tfc: a CheckpointSaverHook saves into the session's checkpoint_dir (%s), "
                                          "not %s" % (o["checkpoint_dir"], h._checkpoint_dir))
            o["checkpoint_dir"] = h._checkpoint_dir
            if h._save_steps is not None:
                steps = int(h._save_steps)
                o["save_steps"] = min(o["save_steps"], steps) if o["save_steps"] > 0 else steps
            else:
                secs = float(h._save_secs)
                o["save_secs"] = min(o["save_secs"], secs) if o["save_secs"] > 0 else secs
        summary_dirs = set()
        for h in self._hooks:
            if isinstance(h, hooks_lib.SummarySaverHook) and (h._save_steps or h._save_secs):
                if h._save_steps:
                    o["summary_steps"] = int(h._save_steps)
                else:
                    o["summary_secs"] = float(h._save_secs)
                summary_dirs.add(h._output_dir)
            elif isinstance(h, hooks_lib.StepCounterHook) and h._every_n_steps:
                o["count_steps"] = int(h._every_n_steps)
                summary_dirs.add(h._output_dir)
        summary_dirs.discard(None)
        if len(summary_dirs) > 1:
            raise NotImplementedError("tfc: a monitored session writes one event file directory, not %s"
                                      % sorted(summary_dirs))
        if summary_dirs:
            o["summary_dir"] = summary_dirs.pop()
        return o

    # ---- the C session's calls ----
    def _on_create(self, raw, coord):
        if self._raw is not None:
            self._raw.close()
        self._raw = _RawSession(self._graph, raw, self._creator._config)
        self._coord = _SessionCoordinator(coord)
        if self._local_init_op is not None:
            self._raw.run(self._local_init_op)
        for h in self._hooks:
            h.after_create_session(self._raw, self._coord)

    def _on_end(self):
        if not self._skip_end:
            for h in self._hooks:
                h.end(self._raw)

    def _on_closing(self):
        coord, raw = self._coord, self._raw
        try:
            if coord is not None:
                coord.request_stop()
                coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
        except Exception:  # noqa: BLE001 (raised by close(), after the session is closed)
            self._closing_error = sys.exc_info()[1]
        finally:
            if coord is not None:
                coord._stop_event.set()
                _pywrap.handle_close(coord._c)
            if raw is not None:
                raw.close()

    # ---- TF's API ----
    @property
    def graph(self):
        return self._graph

    def _tf_sess(self):
        return self._raw

    def should_stop(self):
        if self._closed or self._stop:
            return True
        return bool(_pywrap.monitored_should_stop(self._c))

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        ctx = session_run_hook.SessionRunContext(
            original_args=session_run_hook.SessionRunArgs(fetches, feed_dict), session=self._raw)
        actual_fetches = {"caller": fetches}
        feeds = dict(feed_dict) if feed_dict else {}
        hook_feeds = {}
        merged = config_pb.RunOptions()
        if options is not None:
            _merge_run_options(merged, options)
        hooks_options = False
        for h in self._hooks:
            request = h.before_run(ctx)
            if request is None:
                continue
            if request.fetches is not None:
                actual_fetches[h] = request.fetches
            if request.feed_dict:
                _intersect(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(merged, request.options)
                hooks_options = True
        if hook_feeds:
            _intersect(feeds, hook_feeds, "Same tensor is fed by a SessionRunHook and user.")
            feeds.update(hook_feeds)
        meta = run_metadata if run_metadata is not None else config_pb.RunMetadata()
        traced = options is not None or run_metadata is not None or hooks_options
        outputs = self._sess.run(actual_fetches, feed_dict=feeds or None, options=merged if traced else None,
                                 run_metadata=meta if traced else None)
        for h in self._hooks:
            h.after_run(ctx, session_run_hook.SessionRunValues(results=outputs.get(h), options=merged,
                                                               run_metadata=meta))
        if ctx.stop_requested:
            self._stop = True
            _pywrap.monitored_request_stop(self._c)
        return outputs["caller"]

    def run_step_fn(self, step_fn):
        """step_fn(step_context): step_context.session is the raw session, run_with_hooks this
        session's run, request_stop() ends the loop (should_stop() becomes true)."""
        ctx = _StepContext(self._raw, self.run)
        try:
            return step_fn(ctx)
        except _StopRequested:
            self._stop = True
            _pywrap.monitored_request_stop(self._c)
            return None

    def close(self):
        self._close_internal(None)

    def _close_internal(self, exception_type=None):
        if self._closed:
            return
        self._skip_end = exception_type is not None
        self._closed = True
        try:
            self._c.close()
        finally:
            self._sess._closed = True
        if self._closing_error is not None and exception_type is None:
            err, self._closing_error = self._closing_error, None
            raise err

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in [errors.OutOfRangeError, StopIteration]:
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None


class _StopRequested(Exception):
    pass


class _StepContext(object):
    def __init__(self, session, run_with_hooks_fn):
        self._session, self._run_with_hooks_fn = session, run_with_hooks_fn

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        raise _StopRequested()


class MonitoredSession(_MonitoredSession):
    """tf.train.MonitoredSession(session_creator=None, hooks=None, stop_grace_period_secs=120)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super(MonitoredSession, self).__init__(session_creator, hooks, stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """tf.train.SingularMonitoredSession: a chief's MonitoredSession made from its arguments."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super(SingularMonitoredSession, self).__init__(creator, hooks, stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None):
    """tf.train.MonitoredTrainingSession: TF's defaults (checkpoints every 600 s, summaries every
    100 steps, the step counter every 100 steps, on the chief) as the C session's built-in hooks."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    creator._max_wait_secs = max_wait_secs
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                        save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_lib.CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                                           save_secs=save_checkpoint_secs, scaffold=scaffold))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
