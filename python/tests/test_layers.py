"""tf.colocate_with, tf.layers, tf.contrib.layers and tf.losses (TF 1.15's names, defaults,
collections and errors); the graphs and values beside TensorFlow's are programs_layers.py's."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _cls(op):
    try:
        return op.get_attr("_class")
    except ValueError:
        return None


# ---------------- colocation ----------------

def test_colocate_with_sets_class_and_device_and_resets_device_stack():
    with tf.device("/cpu:1"):
        a = tf.constant(1.0, name="a")
    n = tf.constant(0.0, name="n")
    with tf.device("/job:w/gpu:2"):
        with tf.colocate_with(a):
            b = tf.identity(a, name="b")
        c = tf.identity(a, name="c")
        with tf.colocate_with(n):
            d = tf.identity(a, name="d")        # n has no device: the outer tf.device is reset
    assert (b.op.device, _cls(b.op)) == ("/device:CPU:1", [b"loc:@a"])
    assert (c.op.device, _cls(c.op)) == ("/job:w/device:GPU:2", None)
    assert (d.op.device, _cls(d.op)) == ("", [b"loc:@n"])
    assert b.op.colocation_groups() == [b"loc:@a"] and c.op.colocation_groups() == [b"loc:@c"]


def test_colocate_with_nests_and_ignore_existing():
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    with tf.colocate_with(b.op):
        with tf.colocate_with(a):
            x = tf.identity(a, name="x")
            with tf.colocate_with(a, ignore_existing=True):
                y = tf.identity(a, name="y")
            with tf.colocate_with(None, ignore_existing=True):
                z = tf.identity(a, name="z")
    assert _cls(x.op) == [b"loc:@a", b"loc:@b"]
    assert _cls(y.op) == [b"loc:@a"]
    assert _cls(z.op) is None


def test_colocate_with_variable_and_graph_method():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        with g.colocate_with(w):
            r = tf.multiply(w, 2.0, name="r")
    assert _cls(r.op) == [b"loc:@w"]
    assert _cls(w.op.graph.get_operation_by_name("w/read")) == [b"loc:@w"]


def test_colocate_with_none_is_tf_error():
    with pytest.raises(ValueError, match=r"^Trying to reset colocation \(op is None\) but ignore_existing "
                                         r"is not True$"):
        with tf.colocate_with(None):
            pass


def test_placer_follows_python_colocation(capfd):
    # y asks for /cpu:1 and is colocated with x (no device): the group, x included, goes there
    x = tf.constant([1.0, 2.0], name="x")
    with tf.colocate_with(x):
        with tf.device("/cpu:1"):
            y = tf.identity(x, name="y")
    z = tf.identity(y, name="z")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=True)) as s:
        assert s.run(z).tolist() == [1.0, 2.0]
    out = capfd.readouterr().out
    dev = "/job:localhost/replica:0/task:0/device:"
    for line in ("x: (Const): %sCPU:1" % dev, "y: (Identity): %sCPU:1" % dev, "z: (Identity): %sCPU:0" % dev):
        assert line in out.splitlines()
