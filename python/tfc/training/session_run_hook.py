"""tf.train.SessionRunHook, SessionRunArgs, SessionRunContext and SessionRunValues (TF 1.x's
training/session_run_hook.py): the plain types a MonitoredSession hands its hooks. The
monitored session (training/monitored_session.py) calls the methods; nothing here runs a graph.
"""
import collections


class SessionRunHook(object):
    """A hook into a MonitoredSession: every method does nothing unless overridden."""

    def begin(self):
        """Before the graph is finalized and the session created: add ops here."""

    def after_create_session(self, session, coord):
        """After each session creation (also after a recovery): the raw session and the
        coordinator of its threads."""

    def before_run(self, run_context):
        """Before each run: None or SessionRunArgs whose fetches and feeds join the run."""
        return None

    def after_run(self, run_context, run_values):
        """After each run: run_values.results are the values of this hook's fetches."""

    def end(self, session):
        """At the monitored session's close (not when it ends with an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches (any Session.run structure), feeds, RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super(SessionRunArgs, cls).__new__(cls, fetches, feed_dict, options)


class SessionRunContext(object):
    """The run a hook is called around: the caller's arguments, the raw session, and the
    request to stop the loop."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """A hook's results (the structure of its fetches), and the run's options and metadata."""
