"""tf.TensorArray, tf.nn.dynamic_rnn / static_rnn and the RNN cells (tfc/ops/tensor_array_ops.py,
rnn.py, rnn_cell_impl.py) beyond the differential programs (programs_rnn.py): TensorArrays as
loop variables, the masking of sequence_length against runs on truncated inputs, gradients
against central differences, training, variable sharing when a cell is called again, and the
loop being the C builder's."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _set_weights(sess, variables, scale=0.4):
    for i, v in enumerate(variables):
        shp = v.shape.as_list()
        sess.run(tf.assign(v, (np.sin(np.arange(int(np.prod(shp))) + i) * scale).reshape(shp).astype(np.float32)))


def _x(shape):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


def test_tensor_arrays_travel_through_while_loop_as_flows():
    ta = tf.TensorArray(tf.float32, size=3)

    def body(i, ta):
        assert isinstance(ta, tf.TensorArray)
        return i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)
    i, out = tf.while_loop(lambda i, _: i < 3, body, (0, ta))
    assert isinstance(out, tf.TensorArray)
    assert out.flow.op.type == "Exit"
    enters = [op for op in tf.get_default_graph().get_operations() if op.type == "Enter"]
    # the handle enters as a constant, the flow as a loop variable
    assert any(op.get_attr("is_constant") and op.inputs[0].op.type == "TensorArrayV3" for op in enters)
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(out.stack()), [0.0, 2.0, 4.0])


def test_tensor_array_write_checks_dtype_and_shape():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(ValueError, match="TensorArray dtype is float32 but Op is trying to write dtype int32"):
        ta.write(0, tf.constant([1, 2]))
    ta = ta.write(0, [1.0, 2.0])
    assert ta.element_shape.as_list() == [2]
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
        ta.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Size must be provided if handle is not provided"):
        tf.TensorArray(tf.float32)


def test_dynamic_rnn_loop_is_the_c_builders_and_names_are_tf():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    o, s = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    names = {op.name for op in tf.get_default_graph().get_operations()}
    for n in ("rnn/while/LoopCond", "rnn/while/basic_lstm_cell/MatMul", "rnn/TensorArrayStack/TensorArrayGatherV3",
              "rnn/while/TensorArrayWrite/TensorArrayWriteV3", "rnn/TensorArray", "rnn/TensorArray_1"):
        assert n in names, n
    assert o.shape.as_list() == [2, 3, 5]
    assert isinstance(s, tf.nn.rnn_cell.LSTMStateTuple)
    ta = tf.get_default_graph().get_operation_by_name("rnn/TensorArray")
    assert ta.get_attr("tensor_array_name") == b"rnn/dynamic_rnn/output_0"


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn", "multi"])
def test_sequence_length_masks_outputs_and_carries_state(kind):
    def cell():
        rc = tf.nn.rnn_cell
        return {"lstm": lambda: rc.LSTMCell(3, use_peepholes=True), "gru": lambda: rc.GRUCell(3),
                "rnn": lambda: rc.BasicRNNCell(3),
                "multi": lambda: rc.MultiRNNCell([rc.BasicLSTMCell(3), rc.GRUCell(2)])}[kind]()

    def flat(z):
        return [w for c in z for w in flat(c)] if isinstance(z, tuple) else [z]

    xv = _x([2, 4, 3])
    x = tf.placeholder(tf.float32, [2, 4, 3])
    o, s = tf.nn.dynamic_rnn(cell(), x, dtype=tf.float32, sequence_length=[4, 2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _set_weights(sess, tf.trainable_variables())
        out, st = sess.run([o, flat(s)], {x: xv})
    # the second sequence alone, truncated to its length, gives the same outputs and state
    tf.reset_default_graph()
    x2 = tf.placeholder(tf.float32, [1, 2, 3])
    o2, s2 = tf.nn.dynamic_rnn(cell(), x2, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _set_weights(sess, tf.trainable_variables())
        out2, st2 = sess.run([o2, flat(s2)], {x2: xv[1:, :2]})
    np.testing.assert_allclose(out[1, :2], out2[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[1, 2:], 0.0)
    for a, b in zip(st, st2):
        np.testing.assert_allclose(a[1], b[0], rtol=1e-5, atol=1e-6)


def test_gradients_match_central_differences():
    xv = _x([2, 3, 4]) * 0.5
    x = tf.placeholder(tf.float32, [2, 3, 4])
    o, s = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32, sequence_length=[3, 2])
    loss = tf.reduce_sum(o * o) + tf.reduce_sum(s)
    kernel = tf.trainable_variables()[0]
    gx, gk = tf.gradients(loss, [x, kernel])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _set_weights(sess, tf.trainable_variables())
        dx, dk = sess.run([gx, gk], {x: xv})
        eps = 1e-2
        for idx in [(0, 0, 0), (0, 2, 3), (1, 1, 2)]:
            xp, xm = xv.copy(), xv.copy()
            xp[idx] += eps
            xm[idx] -= eps
            num = (sess.run(loss, {x: xp}) - sess.run(loss, {x: xm})) / (2 * eps)
            assert abs(num - dx[idx]) < 2e-3, (idx, num, dx[idx])
        np.testing.assert_array_equal(dx[1, 2], 0.0)  # past the second sequence's length
        k0 = sess.run(kernel)
        for idx in [(0, 0), (4, 5), (6, 1)]:
            vals = []
            for sign in (1, -1):
                k = k0.copy()
                k[idx] += sign * eps
                sess.run(tf.assign(kernel, k))
                vals.append(sess.run(loss, {x: xv}))
            sess.run(tf.assign(kernel, k0))
            assert abs((vals[0] - vals[1]) / (2 * eps) - dk[idx]) < 2e-3


def test_training_reduces_the_loss():
    x = tf.placeholder(tf.float32, [4, 5, 3])
    y = tf.placeholder(tf.float32, [4, 2])
    o, s = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, dtype=tf.float32)
    pred = tf.layers.dense(s.h, 2) if hasattr(tf, "layers") and hasattr(tf.layers, "dense") else \
        tf.matmul(s.h, tf.get_variable("w", [6, 2]))
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    feed = {x: _x([4, 5, 3]), y: np.sin(np.arange(8)).reshape(4, 2)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(30):
            sess.run(train, feed)
        assert sess.run(loss, feed) < first * 0.5


def test_cell_called_again_shares_its_variables():
    cell = tf.nn.rnn_cell.GRUCell(3)
    x = tf.placeholder(tf.float32, [2, 3, 4])
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    n = len(tf.global_variables())
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="again")
    assert len(tf.global_variables()) == n == 4
    assert [v.name for v in cell.trainable_weights] == [
        "rnn/gru_cell/gates/kernel:0", "rnn/gru_cell/gates/bias:0", "rnn/gru_cell/candidate/kernel:0",
        "rnn/gru_cell/candidate/bias:0"]


def test_static_rnn_equals_dynamic_rnn():
    xv = _x([2, 3, 4])
    x = tf.placeholder(tf.float32, [2, 3, 4])
    cell = tf.contrib.rnn.BasicLSTMCell(3)
    od, sd = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[3, 1])
    os_, ss = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32, sequence_length=[3, 1])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _set_weights(sess, tf.trainable_variables())
        a, b, c, d = sess.run([od, tuple(sd), os_, tuple(ss)], {x: xv})
    np.testing.assert_allclose(a, np.stack(c, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, d, rtol=1e-5, atol=1e-6)


def test_errors_are_tf_115s():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    with pytest.raises(ValueError, match="If there is no initial_state, you must give a dtype."):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x)
    with pytest.raises(TypeError, match="is not an RNNCell"):
        tf.nn.dynamic_rnn(3, x, dtype=tf.float32)
    with pytest.raises(ValueError, match="Must specify at least one cell for MultiRNNCell."):
        tf.nn.rnn_cell.MultiRNNCell([])


def test_loop_variable_may_come_back_more_specific():
    """A zero state of shape (?, ?) whose step gives (?, 3) is accepted, as TF's
    _ShapeLessThanOrEqual accepts it; a less specific result is still refused."""
    v = tf.placeholder(tf.float32, [None, None], name="v")
    _, r = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.reshape(v, [-1, 3]) * 2.0), (0, v))
    assert r.shape.as_list() == [None, None]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(r, {v: np.ones([2, 3])}), np.full([2, 3], 4.0))
    w = tf.placeholder(tf.float32, [2, 3], name="w")
    with pytest.raises(ValueError, match=r"Input tensor 'w:0' enters the loop with shape \(2, 3\), but has shape "
                                         r"\(\?, "):
        tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.zeros(tf.stack([i + 2, 3]))), (0, w))
