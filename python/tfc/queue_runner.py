"""tf.train.QueueRunner, add_queue_runner and start_queue_runners over include/tfc/queue_runner.h.

Design: a QueueRunner names a queue, its enqueue ops and its close and cancel ops, as TF's
does; create_threads() hands them to TFC_StartQueueRunner under the coordinator's
TFC_Coordinator (a Coordinator of its own when none is given), so the runner threads are C
threads running TF_SessionRun without the GIL, with TF's rules (queue_runner.h): a closed queue
ends a thread quietly and the last one closes the queue; another error stops the coordinator
and is re-raised by coord.join(). The thread objects returned are Python proxies, one per
enqueue op: start() starts the runner's C threads (once), is_alive()/join() follow the
watcher that waits for them (coordinator.py). The QUEUE_RUNNERS collection is the builders'
(string_input_producer, batch and shuffle_batch add to it in C): its entries come back as
QueueRunners, and add_queue_runner adds a C entry (_c_builders' bridge).

The coordinator keeps the session's C handle alive while its threads run; closing the session
ends them (CANCELLED), as in TF.

Errors: start_queue_runners without a session raises TF's ValueError; a QueueRunner without a
queue or enqueue ops raises ValueError.
"""
import threading
import weakref

from tfc import _pywrap
from tfc import coordinator as _coordinator
from tfc.framework import errors
from tfc.framework import ops


class _RunnerThread(object):
    """What create_threads returns per enqueue op: start/is_alive/join/name/daemon."""

    def __init__(self, group, name):
        self._group = group
        self.name = name
        self.daemon = True

    def start(self):
        self._group.start()

    def is_alive(self):
        w = self._group.watcher
        return w is not None and w.is_alive()

    isAlive = is_alive

    def join(self, timeout=None):
        w = self._group.watcher
        if w is not None:
            w.join(timeout)


class _ThreadGroup(object):
    def __init__(self, runner, sess, coord):
        self._runner, self._sess, self._coord = runner, sess, coord
        self._lock = threading.Lock()
        self.watcher = None

    def start(self):
        with self._lock:
            if self.watcher is not None:
                return
            r = self._runner

            def start_fn(c):
                _pywrap.start_queue_runner(c, self._sess._session, r._close_op._c_op if r._close_op else None,
                                           r._cancel_op._c_op if r._cancel_op else None,
                                           [op._c_op for op in r._enqueue_ops])
            self.watcher = self._coord._start_c_threads(start_fn)


class QueueRunner(object):
    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunner from a QueueRunnerDef is not supported")
        if queue is None:
            raise ValueError("queue must be specified")
        if not enqueue_ops:
            raise ValueError("enqueue_ops must be specified")
        self._queue = queue
        self._enqueue_ops = [e.op if isinstance(e, ops.Tensor) else e for e in enqueue_ops]
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError, errors.CancelledError)
        self._queue_closed_exception_types = tuple(queue_closed_exception_types)
        self._own_coords = weakref.WeakKeyDictionary()
        self._groups = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    @classmethod
    def _from_ops(cls, entry):
        """A runner for a C "queue_runners" entry: [queue, close, cancel, enqueue ...] Operations."""
        from tfc import data_flow_ops
        r = cls.__new__(cls)
        r._queue = data_flow_ops.QueueBase._from_op(entry[0])
        r._close_op, r._cancel_op = entry[1], entry[2]
        r._enqueue_ops = list(entry[3:])
        r._queue_closed_exception_types = (errors.OutOfRangeError, errors.CancelledError)
        r._own_coords = weakref.WeakKeyDictionary()
        r._groups = weakref.WeakKeyDictionary()
        r._exceptions_raised = []
        return r

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)
    exceptions_raised = property(lambda self: self._exceptions_raised)

    @property
    def name(self):
        return self._queue.name

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread object per enqueue op; with start the C threads run at once. While this
        runner's threads for sess are running, another call returns [] (TF's rule)."""
        running = self._groups.get(sess)
        if running is not None and running.watcher is not None and running.watcher.is_alive():
            return []
        if coord is None:
            coord = self._own_coords.get(sess)
            if coord is None:
                coord = self._own_coords[sess] = _coordinator.Coordinator()
        group = _ThreadGroup(self, sess, coord)
        self._groups[sess] = group
        threads = [_RunnerThread(group, "QueueRunnerThread-%s-%d" % (self.name, i))
                   for i in range(len(self._enqueue_ops))]
        if start:
            group.start()
        return threads


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=ops.GraphKeys.QUEUE_RUNNERS):
    from tfc.client import session as _session
    if sess is None:
        sess = _session.get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, _session.BaseSession):
        raise TypeError("sess must be a `tf.Session` object. Given class: %s" % sess.__class__)
    threads = []
    for qr in sess.graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
