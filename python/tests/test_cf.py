"""tf.cond, tf.case and tf.while_loop (tfc/ops/control_flow_ops.py over the C builders): what
the differential programs (programs_cf.py) do not show: exceptions from the user's functions
leave the graph as it was, captures of outside tensors, nested constructs, names after
failures, gradients and training."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _names():
    return [op.name for op in tf.get_default_graph().get_operations()]


def test_cond_values_and_names():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    assert r.name == "cond/Merge:0"
    assert "cond/mul/Switch" in _names() and "cond/add/Switch" in _names()
    sw = tf.get_default_graph().get_operation_by_name("cond/mul/Switch")
    assert [t.name for t in sw.inputs] == ["x:0", "cond/pred_id:0"]
    const = tf.get_default_graph().get_operation_by_name("cond/mul/y")
    assert [c.name for c in const.control_inputs] == ["cond/switch_t"]
    with tf.Session() as s:
        assert s.run(r, {p: True, x: 3.0}) == 6.0
        assert s.run(r, {p: False, x: 3.0}) == 4.0


def test_exception_in_branch_propagates_and_leaves_graph_unchanged():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    before = _names()
    version = tf.get_default_graph().version

    class Boom(Exception):
        pass

    def bad():
        tf.identity(x * 3.0, name="inside")
        raise Boom("no")
    with pytest.raises(Boom, match="no"):
        tf.cond(p, lambda: x + 1.0, bad)
    assert _names() == before
    assert tf.get_default_graph().version == version
    with pytest.raises(KeyError):
        tf.get_default_graph().get_operation_by_name("cond/inside")
    # the names are free again
    r = tf.cond(p, lambda: x + 1.0, lambda: x - 1.0)
    assert r.name == "cond/Merge:0"
    with tf.Session() as s:
        assert s.run(r, {p: False, x: 1.0}) == 0.0


def test_exception_in_loop_body_propagates():
    x = tf.constant(1.0, name="x")
    before = _names()

    def body(a):
        a = a * 2.0
        raise ZeroDivisionError("body")
    with pytest.raises(ZeroDivisionError, match="body"):
        tf.while_loop(lambda a: a < 10.0, body, [x])
    assert _names() == before
    r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [x])
    assert r.name == "while/Exit:0"
    with tf.Session() as s:
        assert s.run(r) == 16.0


def test_builder_error_is_value_error_and_rolls_back():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    before = _names()
    with pytest.raises(ValueError, match="must have the same type"):
        tf.cond(p, lambda: x, lambda: tf.constant(1))
    assert _names() == before


def test_shape_error_inside_branch_is_value_error():
    p = tf.placeholder(tf.bool, [], name="p")
    a = tf.placeholder(tf.float32, [2, 3], name="a")
    b = tf.placeholder(tf.float32, [4, 2], name="b")
    before = _names()
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.cond(p, lambda: tf.matmul(a, b), lambda: a)
    assert _names() == before


def test_captures_are_shared_per_branch():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.cond(p, lambda: x * x, lambda: x)
    mul = tf.get_default_graph().get_operation_by_name("cond/mul")
    assert [t.name for t in mul.inputs] == ["cond/mul/Switch:1", "cond/mul/Switch:1"]
    with tf.Session() as s:
        assert s.run(r, {p: True, x: 3.0}) == 9.0
        assert s.run(r, {p: False, x: 3.0}) == 3.0


def test_branch_returning_outside_tensor_and_python_value():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.cond(p, lambda: x, lambda: 5.0)
    with tf.Session() as s:
        assert s.run(r, {p: True, x: 2.0}) == 2.0
        assert s.run(r, {p: False, x: 2.0}) == 5.0


def test_branch_returning_an_operation():
    v = tf.Variable(1.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.assign(v, 5.0).op, lambda: tf.assign(v, 7.0).op)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(r, {p: False})
        assert s.run(v) == 7.0
        s.run(r, {p: True})
        assert s.run(v) == 5.0


def test_case_dict_and_no_default():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case({x < 0: lambda: tf.constant(-1), x < 1: lambda: tf.constant(0)}, default=lambda: tf.constant(1))
    r2 = tf.case([(x < 0, lambda: tf.constant(10)), (x < 100, lambda: tf.constant(20))])
    with tf.Session() as s:
        assert [s.run(r, {x: v}) for v in (-3, 0, 3)] == [-1, 0, 1]
        assert [s.run(r2, {x: v}) for v in (-3, 3)] == [10, 20]


def test_nested_loops_and_outputs_structure():
    def outer_body(i, acc):
        inner = tf.while_loop(lambda j, a: j < 3, lambda j, a: (j + 1, a + 1.0), [0, acc])
        return i + 1, inner[1]
    r = tf.while_loop(lambda i, acc: i < 4, outer_body, (0, tf.constant(0.0)))
    assert isinstance(r, tuple)
    with tf.Session() as s:
        assert s.run(r) == (4, 12.0)


def test_while_loop_maximum_iterations_and_body_count_error():
    r = tf.while_loop(lambda v: v < 100, lambda v: v + 1, [0], maximum_iterations=3)
    assert "while/maximum_iterations" in _names() and "while/iteration_counter" in _names()
    with tf.Session() as s:
        assert s.run(r) == 3
    with pytest.raises(ValueError, match="same number of elements"):
        tf.while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [0, 1])


def test_gradients_through_cond_and_loop():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: x * x * x, lambda: -x)
    _, z = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x), [0, tf.constant(1.0)])
    gy, gz = tf.gradients(y, x)[0], tf.gradients(z, x)[0]
    with tf.Session() as s:
        assert s.run(gy, {x: 2.0, p: True}) == pytest.approx(12.0)
        assert s.run(gy, {x: 2.0, p: False}) == pytest.approx(-1.0)
        assert s.run(gz, {x: 2.0}) == pytest.approx(32.0)


def test_training_through_a_loop():
    w = tf.Variable(2.0, name="w")
    _, y = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * w), [0, tf.constant(1.0)])
    loss = tf.square(y - 9.0)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(200):
            s.run(train)
        assert s.run(w) == pytest.approx(3.0, abs=1e-3)
        assert np.isclose(s.run(loss), 0.0, atol=1e-4)


def test_shape_invariants_restating_the_shapes():
    x = tf.constant([1.0, 2.0], name="x")
    r = tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0, lambda a: a * 2.0, [x],
                      shape_invariants=[tf.TensorShape([2])])
    with tf.Session() as s:
        assert s.run(r).tolist() == [4.0, 8.0]
    with pytest.raises(NotImplementedError):
        tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0, lambda a: a * 2.0, [x],
                      shape_invariants=[tf.TensorShape([None])])


def test_exception_in_a_nested_cond_unwinds_both():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    before = _names()

    def inner_bad():
        raise RuntimeError("inner")

    def outer_true():
        return tf.cond(p, lambda: x * 2.0, inner_bad)
    with pytest.raises(RuntimeError, match="inner"):
        tf.while_loop(lambda a: a < 10.0, lambda a: tf.cond(p, outer_true, lambda: a), [x])
    assert _names() == before
    r = tf.cond(p, lambda: x, lambda: x + 1.0)
    assert r.name == "cond/Merge:0"
