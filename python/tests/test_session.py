"""Session: fetch structures, feeds, errors from runs, the closed session, contexts, options,
make_callable, zero-copy fetches, the GIL released during runs, Ctrl-C during a run."""
import collections
import os
import threading

import numpy as np
import pytest

import tfc.compat.v1 as tf
from tfc import _pywrap


def test_fetch_structures_keep_their_types():
    a = tf.constant(1.0, name="a")
    b = tf.constant([1, 2], name="b")
    P = collections.namedtuple("P", "x y")
    with tf.Session() as s:
        r = s.run({"p": P(a, b), "t": (a,), "l": [b, a.op], "od": collections.OrderedDict([("z", a)])})
    assert type(r["p"]) is P and r["p"].x == 1.0 and type(r["p"].x) is np.float32
    assert type(r["t"]) is tuple and type(r["l"]) is list and r["l"][1] is None
    assert type(r["od"]) is collections.OrderedDict
    np.testing.assert_array_equal(r["p"].y, [1, 2])


def test_fed_fetch_returns_fed_value_and_duplicates_run_once():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x * 3.0
    with tf.Session() as s:
        fx, fy, fy2 = s.run([x, y, y], {x: [1, 2]})
    np.testing.assert_array_equal(fx, [1, 2])
    np.testing.assert_array_equal(fy, [3, 6])
    assert fy is fy2


def test_feed_values_are_cast_to_the_tensor_dtype():
    i = tf.placeholder(tf.int32, name="i")
    f = tf.placeholder(tf.float32, name="f")
    with tf.Session() as s:
        vi, vf = s.run([i, f], {i: 3.9, f: np.float64(0.1)})
    # a fetched tensor that is fed gives the fed value as converted: a 0-d array here
    assert vi.dtype == np.int32 and vi.shape == () and vi == 3
    assert vf.dtype == np.float32 and vf == np.float32(0.1)
    with tf.Session() as s:
        assert type(s.run(i + 0, {i: 2.5})) is np.int32


def test_feed_value_errors():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.Session() as s:
        with pytest.raises(ValueError, match=r"^Cannot feed value of shape \(2, 3\) for Tensor 'x:0', which has "
                                             r"shape '\(\?, 2\)'$"):
            s.run(x, {x: np.zeros((2, 3))})
        with pytest.raises(ValueError):
            s.run(x, {x: [["a", "b"]]})
        with pytest.raises(TypeError, match="^Cannot interpret feed_dict key as Tensor: "):
            s.run(x, {"nope:0": 1})


def test_string_feeds_and_fetches():
    x = tf.placeholder(tf.string, name="x")
    y = tf.identity(x)
    with tf.Session() as s:
        assert s.run(y, {x: "abc"}) == b"abc"
        r = s.run(y, {x: [[b"a", b"bc"], [b"", b"\x00\xff"]]})
        assert r.dtype == object and r.shape == (2, 2) and r[1, 1] == b"\x00\xff"
        with pytest.raises(TypeError, match="^Expected string, got 1 of type 'int' instead."):
            s.run(y, {x: [1, 2]})


def test_run_errors_have_the_code_class_and_the_op():
    x = tf.placeholder(tf.float32, [None, 32], name="x")
    y = x * 2.0
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(y)
    e = info.value
    assert e.error_code == tf.errors.INVALID_ARGUMENT
    assert e.message.startswith("You must feed a value for placeholder tensor 'x' with dtype float and shape [?,32]")
    assert e.op is x.op and e.node_def == x.op.node_def
    assert isinstance(e, tf.errors.OpError)


def test_error_classes_by_code():
    for code, name in ((1, "CancelledError"), (2, "UnknownError"), (5, "NotFoundError"),
                       (9, "FailedPreconditionError"), (11, "OutOfRangeError"), (16, "UnauthenticatedError")):
        cls = tf.errors.exception_type_from_error_code(code)
        assert cls.__name__ == name and tf.errors.error_code_from_exception_type(cls) == code
        e = cls(None, None, "m")
        assert e.error_code == code and str(e) == "m"


def test_closed_session():
    c = tf.constant(1)
    s = tf.Session()
    s.close()
    s.close()  # idempotent
    with pytest.raises(RuntimeError, match="^Attempted to use a closed Session.$"):
        s.run(c)
    s2 = tf.Session()
    f = s2.make_callable(c)
    s2.close()
    with pytest.raises(RuntimeError, match="^Attempted to use a closed Session.$"):
        f()


def test_context_manager():
    c = tf.constant(2)
    s = tf.Session()
    with s as entered:
        assert entered is s and tf.get_default_session() is s
        assert c.eval() == 2
        with pytest.raises(RuntimeError, match="^Session context managers are not re-entrant."):
            with s:
                pass
    assert tf.get_default_session() is None
    with pytest.raises(RuntimeError, match="closed"):
        s.run(c)


def test_session_argument_errors():
    with pytest.raises(TypeError, match="^graph must be a tf.Graph, but got "):
        tf.Session(graph=1)
    with pytest.raises(TypeError, match="^config must be a tf.ConfigProto, but got "):
        tf.Session(config=1)
    with pytest.raises(ValueError, match='^Protocol message ConfigProto has no "nope" field.$'):
        tf.ConfigProto(nope=1)


def test_graph_is_captured_at_construction():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(7)
        s = tf.Session()
    assert s.graph is g and s.run(c) == 7
    d = tf.constant(1)  # in the outer default graph
    with pytest.raises(ValueError, match="is not an element of this graph"):
        s.run(d)
    s.close()


def test_options_and_metadata_are_accepted():
    c = tf.constant([1.0])
    md = tf.RunMetadata()
    with tf.Session() as s:
        r = s.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    np.testing.assert_array_equal(r, [1.0])
    assert isinstance(md.SerializeToString(), bytes)


def test_list_devices():
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 3})) as s:
        devs = s.list_devices()
    names = [d.name for d in devs if d.device_type == "CPU"]
    assert names == ["/job:localhost/replica:0/task:0/device:CPU:%d" % i for i in range(3)]


def test_make_callable():
    x = tf.placeholder(tf.float32, name="x")
    y = x * x
    with tf.Session() as s:
        f = s.make_callable((y, y.op), feed_list=[x])
        v, none = f(3.0)
        assert v == 9.0 and none is None
        with pytest.raises(TypeError, match="Expected 1 positional arguments but got 0"):
            f()


def test_interactive_session():
    s = tf.InteractiveSession()
    assert tf.get_default_session() is s
    assert (tf.constant(2) * 3).eval() == 6
    s.close()
    assert tf.get_default_session() is None


def test_large_fetch_wraps_the_runtime_buffer():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x + 1.0
    with tf.Session() as s:
        r = s.run(y, {x: np.zeros(1 << 16, np.float32)})
    assert isinstance(r.base, _pywrap.TensorOwner)  # no copy: the ndarray keeps the TF_Tensor alive
    assert r.flags.c_contiguous and r.flags.writeable and r.sum() == 1 << 16
    r[:] = 5  # the memory is the array's alone
    assert r[0] == 5


def test_noncontiguous_and_unaligned_feeds():
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    y = tf.identity(x)
    base = np.arange(60, dtype=np.float64).reshape(10, 6)
    raw = np.frombuffer(b"\x00" + np.arange(3000, dtype=np.float64).tobytes(), dtype=np.uint8)[1:]
    unaligned = raw.view(np.float64).reshape(1000, 3)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: base[:, ::2]}), base[:, ::2])
        np.testing.assert_array_equal(s.run(y, {x: unaligned}), unaligned)


def test_gil_is_released_during_run():
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.float32], shapes=[[]], capacity=1)
    deq = tf.raw_ops.QueueDequeueV2(handle=q, component_types=[tf.float32])
    enq = tf.raw_ops.QueueEnqueueV2(handle=q, components=[tf.constant(4.0)])
    got = []
    with tf.Session() as s:
        t = threading.Thread(target=lambda: got.append(s.run(deq)))
        t.start()
        s.run(enq)  # runs only if the blocked dequeue released the GIL
        t.join(60)
    assert not t.is_alive() and len(got) == 1 and got[0] == [4.0]


@pytest.mark.skipif("vgpreload" in os.environ.get("LD_PRELOAD", ""),
                    reason="valgrind runs one thread at a time: nothing overlaps there")
def test_two_threads_run_two_sessions_at_once():
    # Thread A makes one long compute-bound run (a chain of matmuls on one intra-op thread);
    # thread B meanwhile makes short runs of its own session and notes when each ends. Were
    # the GIL held during TF_SessionRun, B could not run a bytecode while A was in the C
    # library, so none of B's runs could end in the middle of A's. They do: the two sessions
    # compute at once, on two cores where there are two (bench/python_run.py measures it).
    import time
    g = tf.Graph()
    with g.as_default():
        # Fed, not constant: a chain of constants would be folded into one before the run.
        m = tf.placeholder(tf.float32, [384, 384], name="m")
        y = m
        for _ in range(60):
            y = tf.matmul(y, m)
    m_value = np.full((384, 384), 0.001, np.float32)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    long_run, ends, started = [], [], threading.Event()

    def a():
        with tf.Session(graph=g, config=config) as s:
            s.run(y, {m: m_value})  # warm
            started.wait(60)
            for _ in range(3):
                t0 = time.monotonic()
                s.run(y, {m: m_value})
                long_run.append((t0, time.monotonic()))

    def b():
        x = tf.placeholder(tf.float32, [], name="x")
        z = x + 1.0
        with tf.Session(graph=x.graph, config=config) as s:
            started.set()
            while len(long_run) < 3 and len(ends) < 10 ** 6:
                s.run(z, {x: 1.0})
                ends.append(time.monotonic())

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(long_run) == 3

    def inside(t0, t1):
        q = (t1 - t0) / 4
        return any(t0 + q < e < t1 - q for e in ends)

    assert any(inside(*r) for r in long_run), (long_run, len(ends))


def test_ctrl_c_interrupts_a_blocked_run_and_the_session_stays_usable():
    import os
    import signal
    import time
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.float32], shapes=[[]], capacity=1)
    deq = tf.raw_ops.QueueDequeueV2(handle=q, component_types=[tf.float32])
    enq = tf.raw_ops.QueueEnqueueV2(handle=q, components=[tf.constant(4.0)])
    with tf.Session() as s:
        ctrl_c = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        # Were the run not interrupted, this would end it (with a value) after 30 s.
        guard = threading.Timer(30, lambda: s.run(enq))
        ctrl_c.start()
        guard.start()
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            s.run(deq)
        waited = time.monotonic() - t0
        guard.cancel()
        ctrl_c.join()
        assert waited < 15  # interrupted, not ended by the guard's enqueue
        s.run(enq)
        assert s.run(deq) == [4.0]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_roundtrip_all_numeric_dtypes():
    for dt in (tf.float16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16,
               tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128):
        v = np.arange(6).reshape(2, 3).astype(dt.as_numpy_dtype)
        r = _pywrap.tensor_roundtrip(dt.as_datatype_enum, v)
        assert r.dtype == v.dtype and r.shape == (2, 3)
        np.testing.assert_array_equal(r, v)
        s = _pywrap.tensor_roundtrip(dt.as_datatype_enum, v[1, 2])
        assert isinstance(s, np.generic) and s == v[1, 2]


def _aligned(n, dtype=np.float32, align=64):
    raw = np.zeros(n * np.dtype(dtype).itemsize + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n * np.dtype(dtype).itemsize].view(dtype)


def test_aligned_feeds_are_lent_and_given_back():
    import sys
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x * 2.0
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.float32], shapes=[[4096]], capacity=2)
    enq = tf.raw_ops.QueueEnqueueV2(handle=q, components=[x])
    deq = tf.raw_ops.QueueDequeueV2(handle=q, component_types=[tf.float32])
    a = _aligned(4096)
    a[:] = np.arange(4096)
    refs = sys.getrefcount(a)
    with tf.Session() as s:
        for _ in range(3):
            np.testing.assert_array_equal(s.run(y, {x: a}), a * 2)
        assert sys.getrefcount(a) == refs  # the runtime let go of the lent array
        s.run(enq, {x: a})  # the queue keeps the fed tensor, and so the array
        assert sys.getrefcount(a) == refs + 1
        got = s.run(deq)[0]
        np.testing.assert_array_equal(got, a)
        s.run(y, {x: a})
        assert sys.getrefcount(a) == refs


def test_cached_plans_keep_each_structure():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    P = collections.namedtuple("P", "x y")
    with tf.Session() as s:
        for _ in range(2):
            assert type(s.run((a, b))) is tuple
            assert type(s.run(P(a, b))) is P
            assert type(s.run([a, b])) is list
            assert type(s.run(((a, b),))[0]) is tuple and type(s.run((P(a, b),))[0]) is P
            assert s.run({"k": [a]}) == {"k": [1.0]}
