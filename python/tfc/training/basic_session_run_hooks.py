"""TF 1.x's basic session run hooks (training/basic_session_run_hooks.py) for tfc's
MonitoredSession.

Design: the hooks whose work include/tfc/monitored_session.h does in C -- CheckpointSaverHook,
SummarySaverHook and StepCounterHook -- are descriptions here: the constructor checks TF's
arguments and begin() TF's global step requirement, and the monitored session
(training/monitored_session.py, _c_options) turns them into the C session's options, which
saves, writes summaries and counts steps; their run methods do nothing in Python but write the
graph's text ("graph.pbtxt", which only Python writes). The hooks
that only read values -- StopAtStepHook, LoggingTensorHook, NanTensorHook, FeedFnHook,
FinalOpsHook -- are small Python hooks, as TF's are.

Errors: TF's ValueError texts for bad arguments, RuntimeError "Global step should be created
to use <Hook>." from begin() without a global step, NanLossDuringTrainingError for a NaN loss.
Options the C session has no counterpart for raise NotImplementedError naming them.
"""
import time

import numpy as np

from tfc import tf_logging as logging
from tfc.framework import ops
from tfc.training import session_run_hook
from tfc.training import training_util
from tfc.training.session_run_hook import SessionRunArgs


class SecondOrStepTimer(object):
    """Triggers every every_secs seconds or every every_steps steps (exactly one is given)."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if self._every_secs is None and self._every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if self._every_secs is not None and self._every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self):  # noqa: D107 (no period)
        self.reset()
        self._every_secs = self._every_steps = None

    def should_trigger_for_step(self, step):
        return False


def _global_step_read(hook_name):
    """The global step's value tensor, or RuntimeError as TF's hooks' begin()."""
    gs = training_util.get_global_step()
    if gs is None:
        raise RuntimeError("Global step should be created to use %s." % hook_name)
    return gs.value() if hasattr(gs, "value") else gs


def _as_graph_element(obj):
    graph = ops.get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError("Passed %s should have graph attribute that is equal to current graph %s."
                             % (obj, graph))
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError("Name %s is ambiguous, as this `Operation` has multiple outputs (at least 2)." % obj)


# ---------------- hooks the C monitored session runs ----------------

class CheckpointSaverListener(object):
    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(session_run_hook.SessionRunHook):
    """Saves "<checkpoint_dir>/model.ckpt-<step>" at creation, every save_secs or save_steps,
    and at the end: the C session's CheckpointSaverHook."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        if checkpoint_basename != "model.ckpt":
            raise NotImplementedError("tfc: CheckpointSaverHook saves to model.ckpt only, not %r"
                                      % (checkpoint_basename,))
        if listeners:
            raise NotImplementedError("tfc: CheckpointSaverHook takes no listeners")
        self._checkpoint_dir = checkpoint_dir
        self._save_secs, self._save_steps = save_secs, save_steps
        self._saver, self._scaffold = saver, scaffold

    def begin(self):
        _global_step_read("CheckpointSaverHook")

    def after_create_session(self, session, coord):
        # The graph in text beside the checkpoints, as TF's hook writes it at each creation
        # (the checkpoint, its meta graph and the graph event are the C session's).
        from tfc import summary_ops
        summary_ops.write_graph(session.graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt")


class SummarySaverHook(session_run_hook.SessionRunHook):
    """Writes the graph's merged summaries every save_steps steps or save_secs seconds to
    output_dir's event file: the C session's SummarySaverHook."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (scaffold is None and summary_op is None) or (scaffold is not None and summary_op is not None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._save_steps, self._save_secs, self._output_dir = save_steps, save_secs, output_dir
        self._summary_writer = summary_writer
        if output_dir is None and summary_writer is not None:
            self._output_dir = getattr(summary_writer, "get_logdir", lambda: None)()

    def begin(self):
        _global_step_read("SummarySaverHook")


class StepCounterHook(session_run_hook.SessionRunHook):
    """Logs and writes "global_step/sec" every every_n_steps steps: the C session's
    StepCounterHook."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        if every_n_secs is not None:
            raise NotImplementedError("tfc: StepCounterHook counts every_n_steps steps, not every_n_secs")
        self._every_n_steps, self._output_dir = every_n_steps, output_dir
        if output_dir is None and summary_writer is not None:
            self._output_dir = getattr(summary_writer, "get_logdir", lambda: None)()

    def begin(self):
        _global_step_read("StepCounterHook")


# ---------------- Python hooks ----------------

class StopAtStepHook(session_run_hook.SessionRunHook):
    """Requests a stop once the global step reaches last_step (or num_steps past its value at
    session creation)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _global_step_read("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # The value fetched with the step may be read before its increment: read it again.
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


class LoggingTensorHook(session_run_hook.SessionRunHook):
    """Logs the values of tensors every N iterations or seconds, and/or at the end."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        if not isinstance(tensors, dict):
            self._tag_order = tensors
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (NeverTriggerTimer() if only_log_at_end
                       else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                logging.info(self._formatter(tensor_values))
            else:
                stats = ["%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order]
                if elapsed_secs is not None:
                    logging.info("%s (%.3f sec)", ", ".join(stats), elapsed_secs)
                else:
                    logging.info("%s", ", ".join(stats))
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(session_run_hook.SessionRunHook):
    """Stops (or fails with NanLossDuringTrainingError) when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(failure_message)
                raise NanLossDuringTrainingError
            logging.warning(failure_message)
            run_context.request_stop()


class FeedFnHook(session_run_hook.SessionRunHook):
    """Feeds feed_fn()'s dict to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(session_run_hook.SessionRunHook):
    """Runs final_ops at the end; their values are final_ops_values."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)
