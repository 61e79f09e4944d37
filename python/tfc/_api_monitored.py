"""The TF 1.x names of monitored sessions and their hooks, added to the API namespace by
_api.py (export(namespace)): tf.train.MonitoredTrainingSession, MonitoredSession,
SingularMonitoredSession, Scaffold, the session creators, SessionRunHook and its argument
types, the basic hooks, and tf.estimator's SessionRunHook names (training/monitored_session.py,
training/basic_session_run_hooks.py, training/session_run_hook.py)."""
import types as _types

from tfc.training import basic_session_run_hooks as _hooks
from tfc.training import monitored_session as _ms
from tfc.training import session_run_hook as _srh


def _module(ns, name):
    m = ns.get(name)
    if not isinstance(m, _types.ModuleType):
        m = _types.ModuleType("tfc." + name, "tf." + name)
        ns[name] = m
    return m


def export(ns):
    train = _module(ns, "train")
    for n in ("MonitoredTrainingSession", "MonitoredSession", "SingularMonitoredSession", "Scaffold",
              "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator"):
        setattr(train, n, getattr(_ms, n))
    for n in ("SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"):
        setattr(train, n, getattr(_srh, n))
    for n in ("StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook",
              "StepCounterHook", "LoggingTensorHook", "NanTensorHook", "NanLossDuringTrainingError", "FeedFnHook",
              "FinalOpsHook", "SecondOrStepTimer"):
        setattr(train, n, getattr(_hooks, n))
    estimator = _module(ns, "estimator")
    for n in ("SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"):
        setattr(estimator, n, getattr(_srh, n))
    for n in ("StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook",
              "StepCounterHook", "LoggingTensorHook", "NanTensorHook", "NanLossDuringTrainingError", "FeedFnHook",
              "FinalOpsHook", "SecondOrStepTimer"):
        setattr(estimator, n, getattr(_hooks, n))
