"""Graph files: GraphDef messages, as_graph_def, import_graph_def, freezing with
graph_util.convert_variables_to_constants and loading a graph TensorFlow froze
(tests/fixtures/py_frozen_mlp.pb, made by tests/fixtures/gen_py_frozen_graph.py)."""
import copy
import json
import os

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures")


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


def test_message_presence_and_nested_classes():
    av = tf.AttrValue()
    av.list.SetInParent()
    assert av.WhichOneof("value") == "list" and av.SerializeToString() == b"\x0a\x00"
    gd = tf.GraphDef()
    gd.library.CopyFrom(type(gd.library)())
    assert gd.HasField("library") and gd.SerializeToString() == b"\x12\x00"
    dim = type(tf.AttrValue().shape).Dim(size=0)
    assert dim.SerializeToString() == b""
    assert tf.AttrValue.ListValue(i=[1]).i == [1]
    n = tf.NodeDef(name="a", op="Const")
    n.attr["dtype"].type = 1
    m = copy.deepcopy(n)
    m.attr["dtype"].type = 3
    assert n.attr["dtype"].type == 1 and m != n


def test_as_graph_def_add_shapes_and_versions():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    tf.identity(x, name="y")
    g = tf.get_default_graph()
    gd = g.as_graph_def(add_shapes=True)
    assert isinstance(gd, tf.GraphDef)
    dims = [d.size for d in gd.node[1].attr["_output_shapes"].list.shape[0].dim]
    assert dims == [-1, 3]
    assert "_output_shapes" not in g.as_graph_def().node[1].attr
    assert g.graph_def_versions.producer == gd.versions.producer > 0


def test_import_into_fresh_graph_and_errors():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        tf.multiply(x, 2.0, name="y")
    gd = g.as_graph_def()
    a = tf.constant([1.0, 3.0], name="a")
    y, op = tf.import_graph_def(gd, input_map={"x": a}, return_elements=["y:0", "y"])
    assert y.name == "import/y:0" and op.name == "import/y" and op.inputs[0] is a
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y), [2.0, 6.0])
    with pytest.raises(ValueError, match=r"Attempted to map inputs that were not found in graph_def: \[q:0\]"):
        tf.import_graph_def(gd, input_map={"q:0": a})
    with pytest.raises(ValueError, match="Requested return node 'nope' not found in graph def"):
        tf.import_graph_def(gd, return_elements=["nope"])
    with pytest.raises(TypeError, match="graph_def must be a GraphDef proto."):
        tf.import_graph_def(gd.SerializeToString())


def test_make_tensor_proto_round_trip():
    for v in [np.arange(6, dtype=np.int32).reshape(2, 3), np.array(2.5), np.array([b"a", b"bc"], dtype=object),
              np.array([1 + 2j], np.complex64), np.array([[True]])]:
        back = tf.make_ndarray(tf.make_tensor_proto(v))
        assert back.dtype == v.dtype and back.shape == v.shape
        np.testing.assert_array_equal(back, v)
    p = tf.make_tensor_proto(4, dtype=tf.int64, shape=[2, 2])
    assert list(p.int64_val) == [4] and not p.tensor_content
    np.testing.assert_array_equal(tf.make_ndarray(p), [[4, 4], [4, 4]])


def test_freeze_write_and_load(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    out = tf.matmul(x, w, name="out")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(out))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {x: [[1.0, 1.0]]})
        want = s.run(out, {x: [[1.0, 2.0]]})
        frozen = tf.graph_util.convert_variables_to_constants(s, s.graph_def, ["out"])
    assert [(n.name, n.op) for n in frozen.node] == [("x", "Placeholder"), ("w", "Const"), ("w/read", "Identity"),
                                                     ("out", "MatMul")]
    path = tf.train.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=False)
    g = tf.Graph()
    with g.as_default():
        gd = tf.GraphDef()
        with open(path, "rb") as f:
            gd.ParseFromString(f.read())
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            np.testing.assert_allclose(s.run("out:0", {"x:0": [[1.0, 2.0]]}), want)


def test_load_graph_frozen_by_tensorflow():
    with open(os.path.join(FIXTURES, "py_frozen_mlp.json")) as f:
        expect = json.load(f)
    gd = tf.GraphDef()
    with open(os.path.join(FIXTURES, "py_frozen_mlp.pb"), "rb") as f:
        data = f.read()
    gd.ParseFromString(data)
    assert gd.SerializeToString() == data
    assert [n.name for n in gd.node] == expect["nodes"]
    prob, = tf.import_graph_def(gd, return_elements=["prob:0"], name="")
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(prob, {"x:0": expect["x"]}), expect["prob"], rtol=1e-5)


def test_session_graph_def_infer_shapes_and_node_def():
    a = tf.constant([1.0, 2.0], name="a")
    config = tf.ConfigProto(graph_options=tf.GraphOptions(infer_shapes=True))
    with tf.Session(config=config) as s:
        shapes = s.graph_def.node[0].attr["_output_shapes"].list.shape
        assert [[d.size for d in sh.dim] for sh in shapes] == [[2]]
    with tf.Session() as s:
        assert "_output_shapes" not in s.graph_def.node[0].attr
    nd = a.op.node_def
    assert isinstance(nd, tf.NodeDef) and nd.name == "a" and nd.attr["dtype"].type == tf.float32.as_datatype_enum
    assert [d.size for d in a.shape.as_proto().dim] == [2]


def test_freeze_resource_variable_graph_made_by_tensorflow():
    with open(os.path.join(FIXTURES, "py_resource_var.json")) as f:
        expect = json.load(f)
    gd = tf.GraphDef()
    with open(os.path.join(FIXTURES, "py_resource_var.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    tf.import_graph_def(gd, name="")
    with tf.Session() as s:
        s.run("init")
        frozen = tf.graph_util.convert_variables_to_constants(s, s.graph_def, ["y"])
    assert [[n.name, n.op, list(n.input)] for n in frozen.node] == expect["frozen"]
    assert frozen.node[1].attr["T"].type == tf.float32.as_datatype_enum
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run("y:0"), expect["y"])


def test_graph_def_messages_reach_writers(tmp_path):
    tf.constant(1.0, name="c")
    gd = tf.get_default_graph().as_graph_def()
    with tf.summary.FileWriter(str(tmp_path / "a"), graph_def=gd) as w:
        w.add_graph(None, graph_def=gd)
    with tf.summary.FileWriter(str(tmp_path / "b"), tf.get_default_graph()):
        pass
    for d in ("a", "b"):
        (name,) = os.listdir(str(tmp_path / d))
        evs = [tf.Event.FromString(r) for r in tf.python_io.tf_record_iterator(str(tmp_path / d / name))]
        graphs = [tf.GraphDef.FromString(e.graph_def) for e in evs if e.WhichOneof("what") == "graph_def"]
        assert graphs and all([n.name for n in g.node] == ["c"] for g in graphs)
    text = open(tf.io.write_graph(gd, str(tmp_path), "g.pbtxt")).read()
    assert text == str(gd)


def test_unknown_fields_survive_a_round_trip():
    # a NodeDef with fields of later TF versions (7: a message, 8: a varint)
    data = tf.NodeDef(name="a", op="NoOp").SerializeToString() + b"\x3a\x02\x08\x01" + b"\x40\x05"
    n = tf.NodeDef.FromString(data)
    assert n.name == "a" and n.SerializeToString() == data
    gd = tf.GraphDef()
    gd.node.extend([n])
    assert tf.GraphDef.FromString(gd.SerializeToString()).node[0].SerializeToString() == data
    n.Clear()
    assert n.SerializeToString() == b""
