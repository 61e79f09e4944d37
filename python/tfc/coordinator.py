"""tf.train.Coordinator: stopping and joining a set of threads, TF 1.x's API over
include/tfc/queue_runner.h's TFC_Coordinator.

Design: queue runner threads are C threads of a TFC_Coordinator (made on first use and owned
here): they run their enqueue ops with TF_SessionRun, end quietly when their queue is closed,
close the queue when the last one ends, and ask the C coordinator to stop on any other error
(queue_runner.h). Python threads (registered or passed to join) are joined as TF joins them.
The two halves are one coordinator: request_stop() stops both (the C side runs the runners'
cancel ops so blocked enqueues wake), should_stop() is true when either was asked, and an
error of a C thread is handed to request_stop() by a Python watcher thread that waits in
TFC_CoordinatorJoin (the GIL released) for each batch of C threads; the watcher is the
thread object start_queue_runners returns for them.

Errors: join() re-raises the first exception given to request_stop() that is not a clean
stop type (default (OutOfRangeError,)), with its traceback; threads still alive after the
grace period raise RuntimeError("Coordinator stopped with threads still running: <names>")
unless ignore_live_threads.
"""
import contextlib
import sys
import threading
import time

from tfc import _pywrap
from tfc.framework import errors


class Coordinator(object):
    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()
        self._c = None

    # ---- the C side ----
    def _c_coordinator(self):
        with self._lock:
            if self._c is None:
                self._c = _pywrap.coordinator()
                if self._stop_event.is_set():
                    _pywrap.coordinator_request_stop(self._c, 0, "")
            return self._c

    def _start_c_threads(self, start_fn):
        """Runs start_fn(c_coordinator) (which starts C threads) and returns the watcher thread
        that joins them and reports their error."""
        c = self._c_coordinator()
        start_fn(c)
        watcher = threading.Thread(target=self._watch, args=(c,), name="QueueRunnerThreads", daemon=True)
        watcher.start()
        return watcher

    def _watch(self, c):
        try:
            _pywrap.coordinator_join(c)
        except errors.OpError as e:
            self.request_stop(e)
        except Exception:  # noqa: BLE001 (a closed coordinator: nothing to report)
            pass

    # ---- TF's API ----
    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None
        return ex

    def request_stop(self, ex=None):
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                else:
                    ex_instance = ex
                if ex_instance is not None:
                    raise ex_instance
            elif ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    self._exc_info_to_raise = ex
                else:
                    info = sys.exc_info()
                    if info[1] is ex:
                        self._exc_info_to_raise = info
                    else:
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
            self._stop_event.set()
            c = self._c
        if c is not None:
            try:
                _pywrap.coordinator_request_stop(c, 0, "")
            except errors.OpError:
                pass

    def clear_stop(self):
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()
            self._c = None  # a stopped C coordinator cannot be restarted: a new one on next use

    def should_stop(self):
        if self._stop_event.is_set():
            return True
        c = self._c
        if c is not None and _pywrap.coordinator_should_stop(c):
            self._stop_event.set()
            return True
        return False

    @contextlib.contextmanager
    def stop_on_exception(self):
        try:
            yield
        except:  # noqa: E722 (TF catches everything)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        end = None if timeout is None else time.time() + timeout
        while True:
            if self.should_stop():
                return True
            left = None if end is None else end - time.time()
            if left is not None and left <= 0:
                return False
            self._stop_event.wait(0.01 if left is None else min(0.01, left))

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = 2 * stop_wait_secs
            stop_wait_secs = min(stop_wait_secs, stop_grace_period_secs)
            stop_wait_secs = max(stop_wait_secs, 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
            if stragglers:
                if ignore_live_threads:
                    return
                raise RuntimeError("Coordinator stopped with threads still running: %s" % " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)


class LooperThread(threading.Thread):
    """tf.train.LooperThread(coord, timer_interval_secs, target=None, args=None, kwargs=None):
    calls target (or run_loop) every timer_interval_secs until the coordinator stops."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super(LooperThread, self).__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        self._args = args or ()
        self._kwargs = kwargs or {}
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        pass

    def stop_loop(self):
        pass

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
