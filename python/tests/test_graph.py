"""Graph, Operation, Tensor, naming, scopes, devices, control dependencies, collections."""
import numpy as np
import pytest

import tfc
import tfc.compat.v1 as tf


def test_both_imports_are_the_same_api():
    assert tfc.Graph is tf.Graph and tfc.Session is tf.Session and tfc.raw_ops is tf.raw_ops
    assert tf.compat.v1 is tf and tfc.nn.relu is tf.nn.relu


def test_default_graph_stack():
    g0 = tf.get_default_graph()
    assert tf.get_default_graph() is g0
    g = tf.Graph()
    with g.as_default() as entered:
        assert entered is g and tf.get_default_graph() is g
        c = tf.constant(1)
        assert c.graph is g
        with pytest.raises(AssertionError, match="Do not use tf.reset_default_graph"):
            tf.reset_default_graph()
    assert tf.get_default_graph() is g0
    tf.reset_default_graph()
    assert tf.get_default_graph() is not g0


def test_operations_in_creation_order_and_lookups():
    a = tf.constant(1.0, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.add(a, b, name="c")
    g = tf.get_default_graph()
    assert [o.name for o in g.get_operations()] == ["a", "b", "c"]
    assert g.get_operation_by_name("c") is c.op
    assert g.get_tensor_by_name("c:0") is c
    assert c.op.inputs == (a, b) and c.op.outputs == [c] and c.value_index == 0
    assert repr(c.op) == "<tf.Operation 'c' type=Add>"
    assert c.op.get_attr("T") == tf.float32
    with pytest.raises(ValueError, match="Operation 'c' has no attr named 'nope'."):
        c.op.get_attr("nope")
    assert a.consumers() == [c.op]
    assert g.version == 3


def test_invalid_names():
    with pytest.raises(ValueError, match="^'x y' is not a valid node name$"):
        tf.constant(1, name="x y")
    with pytest.raises(ValueError, match="^'_x' is not a valid scope name$"):
        with tf.name_scope("_x"):
            pass
    with tf.name_scope("ok"):
        with tf.name_scope("_inner") as s:  # nested scopes may start with _
            assert s == "ok/_inner/"


def test_op_and_scope_share_names():
    tf.constant(1, name="foo")
    with tf.name_scope("foo") as s:
        assert s == "foo_1/"
    with tf.name_scope(None, "bar") as s:
        assert s == "bar/"
    with pytest.raises(ValueError, match=r"At least one of name \(None\) and default_name \(None\)"):
        with tf.name_scope(None, None, values=[]):
            pass


def test_finalize():
    tf.constant(1)
    g = tf.get_default_graph()
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        tf.constant(2)
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        tf.add_to_collection("x", 1)


def test_graph_def_round_trip():
    a = tf.constant([1.0, 2.0], name="a")
    tf.multiply(a, a, name="sq")
    gd = tf.get_default_graph().as_graph_def()
    assert isinstance(gd, tf.GraphDef) and [n.name for n in gd.node] == ["a", "sq"]
    g2 = tf.Graph()
    ops = g2._import_graph_def(gd.SerializeToString(), "imp")
    assert [o.name for o in ops] == ["imp/a", "imp/sq"]
    with tf.Session(graph=g2) as s:
        np.testing.assert_array_equal(s.run("imp/sq:0"), [1.0, 4.0])


def test_mixing_graphs():
    a = tf.constant(1.0)
    with tf.Graph().as_default():
        b = tf.constant(2.0)
        with pytest.raises(ValueError, match="must be from the same graph"):
            tf.add(a, b)
    with pytest.raises(ValueError, match="is not an element of this graph"):
        tf.get_default_graph().as_graph_element(b)


def test_device_functions_and_strings():
    with tf.device(lambda op: "/gpu:0" if op.type == "Const" else "/cpu:0"):
        a = tf.constant(1)
        b = tf.identity(a)
    assert a.op.device == "/device:GPU:0" and b.op.device == "/device:CPU:0"
    with tf.device("/job:ps/task:0"):
        with tf.device("/device:CPU:1"):
            c = tf.constant(1)
    assert c.device == "/job:ps/task:0/device:CPU:1"
    assert str(c) == 'Tensor("Const_1:0", shape=(), dtype=int32, device=/job:ps/task:0/device:CPU:1)'


def test_collections_scope_is_re_match():
    a = tf.constant(1, name="tower_1/a")
    b = tf.constant(1, name="tower_10/b")
    for t in (a, b):
        tf.add_to_collection(tf.GraphKeys.LOSSES, t)
    assert tf.get_collection("losses", "tower_1") == [a, b]
    assert tf.get_collection("losses", "tower_1/") == [a]
    g = tf.get_default_graph()
    g.clear_collection("losses")
    assert tf.get_collection("losses") == []
    tf.add_to_collections(["x", "y"], 5)
    assert sorted(g.get_all_collection_keys()) == ["losses", "x", "y"] or \
        sorted(g.get_all_collection_keys()) == ["x", "y"]


def test_tensor_shape_v1():
    s = tf.TensorShape([None, 3])
    assert str(s) == "(?, 3)" and s.ndims == 2 and s[1].value == 3 and s[0].value is None
    assert not s.is_fully_defined() and s.num_elements() is None
    assert s.merge_with([2, None]).as_list() == [2, 3]
    with pytest.raises(ValueError, match=r"^as_list\(\) is not defined on an unknown TensorShape.$"):
        tf.TensorShape(None).as_list()
    with pytest.raises(ValueError):
        len(tf.TensorShape(None))
    assert tf.TensorShape([2]).concatenate([3]).as_list() == [2, 3]
    minus_one = bytes.fromhex("ffffffffffffffffff01")
    assert tf.TensorShape([2, None]).as_proto().SerializeToString() == \
        b"\x12\x02\x08\x02" + b"\x12\x0b\x08" + minus_one
    assert tf.TensorShape(None).as_proto().SerializeToString() == b"\x18\x01"
    assert tf.TensorShape(tf.TensorShape([2, None]).as_proto()).as_list() == [2, None]
    assert tf.TensorShape(tf.TensorShape(None).as_proto()).ndims is None
    x = tf.placeholder(tf.float32, [None, 3])
    x.set_shape([5, 3])
    assert x.shape.as_list() == [5, 3]


def test_tensor_misuse_errors():
    x = tf.placeholder(tf.float32, [2], name="x")
    with pytest.raises(tf.OperatorNotAllowedInGraphError):
        bool(x)
    assert issubclass(tf.OperatorNotAllowedInGraphError, TypeError)
    with pytest.raises(NotImplementedError, match=r"^Cannot convert a symbolic Tensor \(x:0\) to a numpy array.$"):
        np.array(x)
    assert (x == x) is True and (x != x) is False and hash(x) == hash(x)


def test_convert_to_tensor():
    i = tf.constant(1)
    assert tf.convert_to_tensor(i) is i
    with pytest.raises(ValueError, match="^Tensor conversion requested dtype float32 for Tensor with dtype int32: "
                                         "'Tensor\\(\"Const:0\", shape=\\(\\), dtype=int32\\)'$"):
        tf.convert_to_tensor(i, dtype=tf.float32)
    p = tf.convert_to_tensor([i, 2, 3])
    assert p.op.type == "Pack" and p.op.name == "packed" and p.shape.as_list() == [3]
    with pytest.raises(TypeError, match="Can't convert Operation"):
        tf.convert_to_tensor(i.op)
    assert tf.convert_to_tensor(1.0, preferred_dtype=tf.int32).dtype == tf.float32
    assert tf.convert_to_tensor(1, preferred_dtype=tf.int64).dtype == tf.int64
