"""Focused tests of the op-level long tail: tf.py_func / tf.numpy_function (the script
callback), tf.gfile and tf.io.gfile, tf.logging, tf.test.TestCase, and values of the math,
check and image functions beyond what programs_opstail.py compares with TensorFlow.
"""
import gc
import logging
import os
import threading
import unittest

import numpy as np
import pytest

import tfc.compat.v1 as tf


# ---------------- py_func ----------------

def test_py_func_values_and_graph():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.py_func(lambda v: np.sort(v)[::-1].copy(), [x], tf.float32, name="desc")
    assert y.op.type == "PyFunc" and y.name == "desc:0"
    assert y.op.get_attr("token").startswith(b"pyfunc_")
    assert y.shape.ndims is None
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: [1.0, 3.0, 2.0]}), [3.0, 2.0, 1.0])
        np.testing.assert_array_equal(s.run(y, {x: [5.0]}), [5.0])


def test_py_func_tokens_are_distinct_and_stateless_op():
    a = tf.py_func(lambda: np.int32(1), [], tf.int32)
    b = tf.py_func(lambda: np.int32(2), [], tf.int32, stateful=False)
    assert a.op.get_attr("token") != b.op.get_attr("token")
    assert (a.op.type, b.op.type) == ("PyFunc", "PyFuncStateless")
    with tf.Session() as s:
        assert s.run([a, b]) == [1, 2]


def test_py_func_inputs_are_copies():
    """The function may write its arrays: the runtime's tensors stay as they were."""
    c = tf.constant([1.0, 2.0])

    def scribble(v):
        v[:] = 0
        return v
    y = tf.py_func(scribble, [c], tf.float32)
    with tf.Session() as s:
        got, again = s.run([y, c])
    np.testing.assert_array_equal(got, [0.0, 0.0])
    np.testing.assert_array_equal(again, [1.0, 2.0])


def test_py_func_error_codes_and_messages():
    def boom(v):
        raise KeyError("missing")
    y = tf.py_func(boom, [tf.constant(1)], tf.int32)
    with tf.Session() as s:
        with pytest.raises(tf.errors.UnknownError) as e:
            s.run(y)
    msg = str(e.value)
    assert msg.startswith("KeyError: 'missing'\nTraceback (most recent call last):")
    assert "in boom" in msg and "PyFunc" in msg


def test_py_func_in_a_while_loop_on_session_threads():
    """Many calls from the executor's threads, one at a time under the GIL, while other
    Python threads run too."""
    calls = []

    def step(i):
        calls.append(threading.get_ident())
        return i + 1
    r = tf.while_loop(lambda i: i < 50, lambda i: tf.reshape(tf.py_func(step, [i], tf.int32), []), [tf.constant(0)])
    stop = threading.Event()
    spinner = threading.Thread(target=lambda: [None for _ in iter(lambda: stop.is_set(), True)])
    spinner.start()
    try:
        with tf.Session() as s:
            assert s.run(r) == 50
    finally:
        stop.set()
        spinner.join()
    assert len(calls) == 50


def test_py_func_function_lives_with_its_graph():
    g = tf.Graph()
    with g.as_default():
        y = tf.py_func(lambda: np.float32(4.0), [], tf.float32)
    gc.collect()
    with tf.Session(graph=g) as s:
        assert s.run(y) == 4.0
    token = y.op.get_attr("token").decode()
    from tfc.ops import script_ops
    assert token in script_ops._funcs
    del g, y, s
    gc.collect()
    assert token not in script_ops._funcs


def test_py_func_string_and_list_tout():
    y = tf.py_func(lambda s: [s.upper(), np.int64(len(s))], [tf.constant(b"ab")], [tf.string, tf.int64])
    assert isinstance(y, list) and len(y) == 2
    with tf.Session() as s:
        assert s.run(y) == [b"AB", 2]


# ---------------- gfile ----------------

def test_gfile_round_trip(tmp_path):
    d = str(tmp_path / "a" / "b")
    tf.gfile.MakeDirs(d)
    assert tf.gfile.IsDirectory(d) and tf.gfile.Exists(d)
    f = os.path.join(d, "f.txt")
    with tf.gfile.GFile(f, "w") as w:
        w.write("hello\n")
        w.write(b"world\n")
    with tf.gfile.Open(f) as r:
        assert list(r) == ["hello\n", "world\n"]
    assert tf.gfile.GFile(f, "rb").read() == b"hello\nworld\n"
    assert tf.gfile.GFile(f).size() == 12 and tf.gfile.Stat(f).length == 12
    tf.gfile.Copy(f, f + ".2")
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Copy(f, f + ".2")
    tf.gfile.Rename(f + ".2", f + ".3")
    assert sorted(tf.gfile.ListDirectory(d)) == ["f.txt", "f.txt.3"]
    assert tf.gfile.Glob(os.path.join(d, "*.3")) == [f + ".3"]
    assert [w[0] for w in tf.gfile.Walk(str(tmp_path))] == [str(tmp_path), str(tmp_path / "a"), d]
    tf.gfile.Remove(f + ".3")
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.Exists(d)
    assert tf.io.gfile.exists(str(tmp_path)) and tf.io.gfile.isdir(str(tmp_path))


def test_gfile_errors(tmp_path):
    missing = str(tmp_path / "missing")
    with pytest.raises(tf.errors.NotFoundError, match="missing; No such file or directory"):
        tf.gfile.GFile(missing).read()
    with pytest.raises(tf.errors.NotFoundError, match="Could not find directory"):
        tf.gfile.ListDirectory(missing)
    with pytest.raises(tf.errors.NotFoundError, match="not found"):
        tf.gfile.DeleteRecursively(missing)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Remove(missing)
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode is not"):
        tf.gfile.GFile(missing, "z")
    with pytest.raises(tf.errors.UnimplementedError, match="gs"):
        tf.gfile.Exists("gs://bucket/x")


# ---------------- logging and tf.test ----------------

def test_logging_levels(caplog):
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        assert tf.logging.get_verbosity() == tf.logging.INFO == logging.INFO
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            tf.logging.info("step %d", 3)
            tf.logging.debug("hidden")
            tf.logging.warn("careful")
            for _ in range(3):
                tf.logging.log_first_n(tf.logging.INFO, "once", 1)
        texts = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
        assert texts == ["step 3", "careful", "once"]
    finally:
        tf.logging.set_verbosity(old)


def test_test_case_helpers():
    class T(tf.test.TestCase):
        def runTest(self):  # noqa: N802
            x = tf.constant([1.0, 2.0])
            with self.cached_session() as s:
                self.assertAllClose([1.0, 2.0 + 1e-7], x)
                self.assertAllEqual(s.run(tf.shape(x)), [2])
                self.assertAllClose({"a": (x, [3])}, {"a": ([1.0, 2.0], [3])})
            with self.assertRaises(AssertionError):
                self.assertAllClose([1.0, 2.5], x)
            with self.assertRaisesOpError("must feed"):
                self.evaluate(tf.placeholder(tf.float32) + 1)
            self.assertTrue(os.path.isdir(self.get_temp_dir()))

    r = unittest.TextTestRunner(stream=open(os.devnull, "w")).run(T())
    assert r.wasSuccessful(), r.failures + r.errors
    assert tf.test.is_gpu_available() in (True, False)
    assert tf.test.gpu_device_name() in ("", "/device:GPU:0")


# ---------------- math, checks, images ----------------

def test_norm_and_einsum_against_numpy():
    rng = np.random.RandomState(0)
    a, b = rng.randn(2, 3, 4).astype(np.float32), rng.randn(2, 4, 5).astype(np.float32)
    r = [tf.norm(a, ord=3, axis=2), tf.einsum("bij,bjk->bki", a, b), tf.einsum("bij,bij->b", a, a)]
    with tf.Session() as s:
        got = s.run(r)
    np.testing.assert_allclose(got[0], np.sum(np.abs(a) ** 3, axis=2) ** (1 / 3), rtol=1e-5)
    np.testing.assert_allclose(got[1], np.einsum("bij,bjk->bki", a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[2], np.einsum("bij,bij->b", a, a), rtol=1e-5)
    with pytest.raises(ValueError, match="repeated indices"):
        tf.einsum("ii->i", a[0])


def test_asserts_run():
    x = tf.placeholder(tf.float32, [2])
    with tf.control_dependencies([tf.assert_less(x, 3.0, message="too big")]):
        y = tf.identity(x)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[too big\] "):
            s.run(y, {x: [1.0, 4.0]})


def test_report_uninitialized_variables_names():
    with tf.variable_scope("s"):
        v = tf.get_variable("v", [1])
    r = tf.report_uninitialized_variables([v])
    with tf.Session() as s:
        assert list(s.run(r)) == [b"s/v"]
        s.run(v.initializer)
        assert list(s.run(r)) == []


def test_image_pad_crop_inverse():
    img = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    p = tf.image.pad_to_bounding_box(img, 2, 1, 6, 7)
    c = tf.image.crop_to_bounding_box(p, 2, 1, 3, 4)
    assert p.shape.as_list() == [6, 7, 2] and c.shape.as_list() == [3, 4, 2]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(c), img)


def test_print_logs_first_n_runs_per_session(capfd):
    x = tf.placeholder(tf.float32, [2, 2])
    p = tf.Print(x, [x, "tag", tf.range(6)], "vals: ", first_n=2, summarize=5)
    with tf.Session() as s:
        for k in range(3):
            np.testing.assert_array_equal(s.run(p, {x: [[k, 1.5], [2, 3]]}), [[k, 1.5], [2, 3]])
        s.run(p + 1, {x: np.zeros((2, 2))})  # another executor: the count is the session's
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.startswith("vals: ")]
    assert lines == ["vals: [[0 1.5][2 3]][tag][0 1 2 3 4...]", "vals: [[1 1.5][2 3]][tag][0 1 2 3 4...]"]


def test_files_and_strings_round_trip(tmp_path):
    path = str(tmp_path / "d" / "f.txt")
    w = tf.write_file(path, tf.string_join(["a", "b"], separator=","))
    r = tf.read_file(path)
    parts = tf.string_split([r], ",")
    with tf.Session() as s:
        s.run(w)
        assert s.run(r) == b"a,b"
        v = s.run(parts)
    assert list(v.values) == [b"a", b"b"] and list(v.dense_shape) == [1, 2]
    assert tf.gfile.GFile(path).read() == "a,b"


def test_version_through_compat_v1():
    import tfc.compat.v1 as v1
    assert v1.__version__ == v1.VERSION == "1.15.0"
