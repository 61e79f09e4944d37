"""Variables and training from Python over the C builders: the bridge (context -> builder scope,
builder ops wrapped, collections held in C), Variable's API, get_variable's errors, optimizers,
regularizers, and seed 003's MLP program (examples/python/mlp.py) against TensorFlow's graph of
the same model (tests/fixtures/train_mlp_adam.pb)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _names(g=None):
    return [(o.name, o.type) for o in (g or tf.get_default_graph()).get_operations()]


def test_variable_api():
    w = tf.Variable([[1.0, 2.0]], name="w")
    assert w.name == "w:0" and w.op.type == "VariableV2" and w.dtype == tf.float32._as_ref
    assert w.shape.as_list() == [1, 2] and w.get_shape().as_list() == [1, 2]
    assert w.initializer.name == "w/Assign" and w.initial_value.name == "w/initial_value:0"
    assert w.value().name == "w/read:0" and w.read_value().op.type == "Identity" and w.trainable
    assert not tf.Variable(1.0, trainable=False).trainable
    assert repr(w) == "<tf.Variable 'w:0' shape=(1, 2) dtype=float32_ref>"
    assert tf.get_default_graph().get_operation_by_name("w/read").type == "Identity"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(w.eval(), [[1.0, 2.0]])
        w.load([[3.0, 4.0]], sess)
        np.testing.assert_array_equal(sess.run(w), [[3.0, 4.0]])
        assert sess.run(w.assign_add([[1.0, 1.0]])).tolist() == [[4.0, 5.0]]


def test_builder_ops_are_graph_operations():
    x = tf.constant(1.0, name="x")
    v = tf.Variable(x, name="v")
    g = tf.get_default_graph()
    assert _names() == [("x", "Const"), ("v", "VariableV2"), ("v/Assign", "Assign"), ("v/read", "Identity")]
    assert v.initializer.inputs[1] is x
    assert g.get_tensor_by_name("v/read:0") is v.value()
    assert v.value().consumers() == [] and x.consumers() == [v.initializer]
    # Names taken by the builder are taken for Python too.
    assert tf.constant(2.0, name="v").op.name == "v_1"


def test_device_strings_and_functions_reach_the_builder():
    seen = []

    def fn(op):
        seen.append(op.type)
        return "/job:ps/task:0" if op.type == "VariableV2" else ""
    with tf.device("/cpu:0"):
        a = tf.Variable(1.0, name="a")
    with tf.device(fn):
        b = tf.Variable(2.0, name="b")
    assert a.device == "/device:CPU:0" and a.value().device == "/device:CPU:0"
    assert a.initializer.device == "/device:CPU:0"
    assert b.device == "/job:ps/task:0" and b.value().device == "/job:ps/task:0"
    assert "VariableV2" in seen


def test_variables_ignore_control_dependencies():
    c = tf.constant(0.0, name="c")
    with tf.control_dependencies([c]):
        v = tf.Variable(1.0, name="v")
        d = tf.identity(c, name="d")
    assert v.op.control_inputs == [] and v.initializer.control_inputs == []
    assert v.initial_value.op.control_inputs == []
    assert d.op.control_inputs == []  # c is a data input


def test_failed_variable_leaves_the_graph_as_it_was():
    x = tf.placeholder(tf.float32, [None], name="x")
    before = _names()
    with pytest.raises(ValueError, match=r"initial_value must have a shape specified: "
                                         r"Tensor\(\"x:0\", shape=\(\?,\), dtype=float32\)"):
        tf.Variable(x, name="v")
    # The initial value's scope name stays taken (as in TF), but no variable node exists.
    assert [n for n in _names() if n not in before] == []
    assert tf.global_variables() == []


def test_collections_are_held_by_the_builders():
    w = tf.Variable(1.0, name="w")
    k = tf.Variable(2.0, name="k", trainable=False)
    loss = w * k
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [w]
    tf.add_to_collection(tf.GraphKeys.TRAINABLE_VARIABLES, k)
    assert tf.trainable_variables() == [w, k]
    # minimize (a builder reading the collection) sees the Python edit.
    gv = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert [v for _, v in gv] == [w, k]
    tf.get_default_graph().clear_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
    assert tf.trainable_variables() == []
    with pytest.raises(ValueError, match="No variables to optimize."):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    # Slots made by a builder are global variables wrapped as Variables.
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, var_list=[w])
    assert [v.name for v in tf.global_variables()] == ["w:0", "k:0", "w/Momentum:0"]
    assert isinstance(tf.global_variables()[2], tf.Variable)
    # Non-variable values in a variable collection stay in Python's list.
    tf.add_to_collection(tf.GraphKeys.GLOBAL_VARIABLES, "other")
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[-1] == "other"


def test_get_variable_already_exists_names_the_frames():
    tf.get_variable("w", [1])
    with pytest.raises(ValueError) as e:
        tf.get_variable("w", [1])
    msg = str(e.value)
    assert msg.startswith("Variable w already exists, disallowed. Did you mean to set reuse=True or "
                          "reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n")
    assert "test_train.py" in msg


def test_get_variable_errors():
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="d", reuse=True):
            pass
    with pytest.raises(ValueError, match="The reuse parameter must be True or False or None."):
        tf.variable_scope("s", reuse="yes")
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
        tf.variable_scope(None)
    with pytest.raises(ValueError, match="An initializer for variable c of <dtype: 'complex64'> is required"):
        tf.get_variable("c", [1], dtype=tf.complex64)
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        tf.get_variable("k", [2], initializer=tf.constant([1.0, 2.0]))


def test_regularizers_and_l2():
    reg = tf.contrib.layers.l2_regularizer(0.5)
    with tf.variable_scope("layer", regularizer=reg):
        w = tf.get_variable("w", initializer=tf.constant([1.0, -2.0]))
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["layer/w/Regularizer/l2_regularizer:0"]
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(losses[0]) == pytest.approx(0.5 * 0.5 * 5.0)
    assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match="Setting a scale less than 0 on a regularizer: -1."):
        tf.contrib.layers.l2_regularizer(-1.0)
    with pytest.raises(ValueError, match="scale cannot be an integer: 1"):
        tf.contrib.layers.l2_regularizer(1)


def test_gradients_missing_and_unconnected():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.reduce_sum(x * 2.0)
    u = tf.constant(1.0)
    gx, gu = tf.gradients(y, [x, u])
    assert gu is None and gx.name.startswith("gradients/")
    with tf.Session() as sess:
        assert sess.run(gx, {x: [1.0, 1.0]}).tolist() == [2.0, 2.0]


def test_optimizer_arguments():
    w = tf.Variable(1.0, name="w")
    with pytest.raises(ValueError, match="No variables provided."):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([])
    with pytest.raises(TypeError, match="learning_rate"):
        tf.train.GradientDescentOptimizer("fast")
    lr = tf.placeholder(tf.float32, [], name="lr")
    train = tf.train.GradientDescentOptimizer(lr).minimize(w * w)
    assert "GradientDescent/learning_rate" not in [n for n, _ in _names()]
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(train, {lr: 0.25})
        assert sess.run(w) == pytest.approx(0.5)


def test_exponential_moving_average_unsupported_arguments_are_refused():
    with pytest.raises(TypeError, match="zero_debias"):
        tf.train.ExponentialMovingAverage(0.9, zero_debias=True)
    with pytest.raises(ValueError, match="global_step is required for exponential_decay."):
        tf.train.exponential_decay(0.1, None, 10, 0.9)


def _graph_of(path):
    g = tf.Graph()
    with open(path, "rb") as f:
        g._import_graph_def(f.read())
    return g


def test_seed_mlp_program_builds_tensorflows_graph_and_trains(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "mlp.py"), str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "wrote mlp.pb: 133 ops\n"
    ours = _graph_of(str(tmp_path / "mlp.pb"))
    theirs = _graph_of(os.path.join(ROOT, "tests", "fixtures", "train_mlp_adam.pb"))
    # TF 2.x (which wrote the fixture) seeds the gradients with Fill "grad_ys_0"; TF 1.15 and
    # tfc with Const "grad_ys_0" and Fill "Fill".
    tf2 = {("gradients/grad_ys_0", "Fill"), ("gradients/grad_ys_0/Const", "Const")}
    tf1 = {("gradients/grad_ys_0", "Const"), ("gradients/Fill", "Fill")}
    assert set(_names(ours)) == (set(_names(theirs)) - tf2) | tf1
    # Train the written graph from Python, as mlp_train does from C.
    rng = np.random.RandomState(1)
    xs, ys = rng.uniform(-1, 1, (50, 32)), rng.uniform(-1, 1, (50, 8))
    with tf.Session(graph=ours) as sess:
        sess.run("init_all_vars_op")
        costs = []
        for _ in range(20):
            costs.append(sess.run("cost:0", {"x:0": xs, "y:0": ys}))
            sess.run("train", {"x:0": xs, "y:0": ys})
    assert costs[-1] < costs[0] * 0.5


def test_op_tuple_collections_are_shared_with_the_builders():
    from tfc import _pywrap
    from tfc.framework import builder_collections
    from tfc.framework import ops
    bridge = builder_collections.OpTupleCollection(
        "test_ops", lambda g, ops_: ops_[0].outputs[0], lambda v: [v.op] if isinstance(v, tf.Tensor) else None)
    ops.register_collection_bridge("test_ops", bridge)
    try:
        a = tf.constant(1.0, name="a")
        tf.add_to_collection("test_ops", a)
        tf.add_to_collection("test_ops", "not an op")
        g = tf.get_default_graph()
        # The C side holds the tensor's op; Python gets the same object back, then its extra.
        assert _pywrap.collection_entries(g._c_graph, "test_ops") == [[a.op._c_op]]
        assert tf.get_collection("test_ops") == [a, "not an op"]
        # An entry a builder (or the C API) added shows up as a Python object.
        b = tf.constant(2.0, name="b")
        _pywrap.add_to_collection(g._c_graph, "test_ops", [b.op._c_op])
        assert tf.get_collection("test_ops")[:2] == [a, b]
        with pytest.raises(NotImplementedError):
            g.clear_collection("test_ops")
    finally:
        del ops._collection_bridges["test_ops"]
