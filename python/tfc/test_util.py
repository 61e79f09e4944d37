"""tf.test: TF 1.x's test helpers on unittest.

TestCase is a unittest.TestCase whose setUp resets the default graph (as TF's does), with
TF's assertion helpers (assertAllClose / assertAllEqual / assertNear / ... over nested lists,
tuples, dicts and Tensors, which are evaluated first) and its session helpers: session(),
cached_session() and test_session() yield a Session on the test's graph (cached_session and
test_session keep one per graph for the test). use_gpu/force_gpu are accepted; placement is the
session's own (soft, as TF's test sessions).

is_gpu_available / gpu_device_name ask a Session for its devices.
"""
import contextlib
import os
import tempfile
import unittest

import numpy as np

from tfc.framework import ops


def _devices():
    from tfc.client import session
    with ops.Graph().as_default():
        s = session.Session()
        try:
            return s.list_devices()
        finally:
            s.close()


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return any(d.device_type == "GPU" for d in _devices())


def gpu_device_name():
    for d in _devices():
        if d.device_type == "GPU":
            return "/device:GPU:%s" % d.name.rsplit(":", 1)[-1]
    return ""


def is_built_with_cuda():
    return True


def is_built_with_gpu_support():
    return True


def is_built_with_rocm():
    return False


def get_temp_dir():
    d = os.path.join(tempfile.gettempdir(), "tfc_test")
    os.makedirs(d, exist_ok=True)
    return tempfile.mkdtemp(dir=d)


def main(argv=None):
    unittest.main(argv=argv)


def _is_tensor(x):
    return isinstance(x, ops.Tensor) or hasattr(x, "_fetch_components")


def _nested(seq):
    """Whether a list/tuple holds structures or tensors (compared element by element)."""
    return any(isinstance(x, (list, tuple, dict)) or _is_tensor(x) for x in seq)


class TestCase(unittest.TestCase):
    """tf.test.TestCase."""

    def __init__(self, methodName="runTest"):  # noqa: N803 (unittest's name)
        super(TestCase, self).__init__(methodName)
        self._cached = None
        self._tempdir = None

    def setUp(self):
        ops.reset_default_graph()

    def tearDown(self):
        if self._cached is not None:
            self._cached[1].close()
            self._cached = None

    def get_temp_dir(self):
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        from tfc.client import session
        g = graph if graph is not None else ops.get_default_graph()
        with g.as_default(), session.Session(graph=g, config=config) as s:
            yield s

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        from tfc.client import session
        g = graph if graph is not None else ops.get_default_graph()
        if self._cached is None or self._cached[0] is not g:
            if self._cached is not None:
                self._cached[1].close()
            self._cached = (g, session.Session(graph=g, config=config))
        with g.as_default(), self._cached[1].as_default():
            yield self._cached[1]

    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        return self.cached_session(graph, config, use_gpu, force_gpu)

    def evaluate(self, tensors):
        from tfc.client import session
        s = session.get_default_session()
        if s is None:
            with self.cached_session() as s:
                return s.run(tensors)
        return s.run(tensors)

    def _value(self, x):
        return self.evaluate(x) if _is_tensor(x) else x

    def _walk(self, a, b, check, path):
        a, b = self._value(a), self._value(b)
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                raise ValueError("Can't compare dict to non-dict, a%s vs b%s." % (path, path))
            self.assertEqual(set(a), set(b), "mismatched keys at a%s" % path)
            for k in a:
                self._walk(a[k], b[k], check, "%s[%r]" % (path, k))
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and (_nested(a) or _nested(b)):
            if len(a) != len(b):
                raise ValueError("Mismatched length: a%s has %d items, but b%s has %d items"
                                 % (path, len(a), path, len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                self._walk(x, y, check, "%s[%d]" % (path, i))
            return
        check(a, b, path)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        def check(x, y, path):
            x, y = np.asarray(x), np.asarray(y)
            self.assertEqual(x.shape, y.shape, "Shape mismatch at a%s: %s vs %s. %s" % (path, x.shape, y.shape,
                                                                                      msg or ""))
            tol = max(rtol, 1e-3) if x.dtype == np.float16 or y.dtype == np.float16 else rtol
            np.testing.assert_allclose(y, x, rtol=tol, atol=atol, err_msg=msg or "", equal_nan=True)
        self._walk(a, b, check, "")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,  # noqa: N802
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3, msg=None):
        x, y = np.asarray(self._value(a)), np.asarray(self._value(b))
        if np.float16 in (x.dtype, y.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif np.float32 in (x.dtype, y.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        self.assertAllClose(x, y, rtol=rtol, atol=atol, msg=msg)

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        a, b = np.asarray(self._value(a)), np.asarray(self._value(b))
        if a.size and b.size:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s. %s" % (a.shape, b.shape,
                                                                                          msg or ""))
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllClose(self, a, b, **kwargs):  # noqa: N802
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements")

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        "%f != %f +/- %f%s" % (f1, f2, err, " (%s)" % msg if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def _cmp(self, a, comp, b, word):
        a = np.asarray(self._value(a))
        if not np.all(comp(a, b)):
            raise AssertionError("%s is not %s %s" % (a, word, b))

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self._cmp(a, np.greater, comparison_target, "greater than")

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self._cmp(a, np.less, comparison_target, "less than")

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self._cmp(a, np.greater_equal, comparison_target, "greater than or equal to")

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self._cmp(a, np.less_equal, comparison_target, "less than or equal to")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        t = np.asarray(self._value(target))
        lo = t > lower_bound if open_lower_bound else t >= lower_bound
        hi = t < upper_bound if open_upper_bound else t <= upper_bound
        if not np.all(lo & hi):
            raise AssertionError("%s is not in range %s%s, %s%s" % (t, "(" if open_lower_bound else "[",
                                                                     lower_bound, upper_bound,
                                                                     ")" if open_upper_bound else "]"))

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        self.assertAllEqual(np.asarray(np_array).shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        from tfc.framework import device as pydev
        c = getattr(pydev, "canonical_name", lambda d: d or "")
        self.assertEqual(c(device1), c(device2), "Devices %s and %s are not equal. %s" % (device1, device2,
                                                                                          msg or ""))

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        if not actual.startswith(expected_start):
            fail = "%r does not start with %r" % (actual, expected_start)
            self.fail(fail + (" : %r" % msg if msg else ""))

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        import re
        if callable(expected_err_re_or_predicate):
            pred = expected_err_re_or_predicate
        else:
            def pred(e):
                return re.search(expected_err_re_or_predicate, str(e)) is not None
        try:
            yield
        except exception_type as e:
            if not pred(e):
                raise AssertionError("Exception of type %s: %s" % (type(e), e))
        else:
            self.fail(exception_type.__name__ + " not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        from tfc.framework import errors
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802
        import threading
        return threading.Thread(target=target, args=args or (), kwargs=kwargs or {})


def compute_gradient_error(*args, **kwargs):
    raise NotImplementedError("tf.test.compute_gradient_error is not supported")
