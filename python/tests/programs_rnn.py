"""Recurrent networks and TensorArrays: tf.TensorArray's operations (node names, op types,
values) inside and outside while loops and their gradients, tf.nn.dynamic_rnn with each cell
(BasicRNNCell, BasicLSTMCell, LSTMCell with peepholes, clipping and projection, GRUCell,
MultiRNNCell, DropoutWrapper) with and without sequence_length, its outputs, final states,
gradients with respect to the inputs and the cell variables, variable names and shapes, a few
GradientDescent steps, static_rnn, and the errors of bad calls, compared with TensorFlow's
(see programs.py).

Weights are made deterministic by assigning fixed values (sin of the index) after the
initializer ran, so no random op needs to agree; values are rounded to 3 decimals. TF 2.x
keeps the TF 1.x cells in tf_keras, which TF_USE_LEGACY_KERAS=1 selects when recording.
"""
import os
import re

import numpy as np

from programs import _ops, _val

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


def _r(v):
    if isinstance(v, (list, tuple)):
        return [_r(x) for x in v]
    return _val(np.round(np.asarray(v, dtype=np.float64), 3))


def _flat(z):
    if isinstance(z, (list, tuple)):
        return [w for c in z for w in _flat(c)]
    return [z]


def _fix_weights(tf, sess, variables):
    for i, v in enumerate(variables):
        shp = v.shape.as_list()
        n = int(np.prod(shp))
        sess.run(tf.assign(v, (np.sin(np.arange(n) + i) * 0.4).reshape(shp).astype(np.float32)))


def _inputs(shape):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


# ---------------- TensorArray ----------------

def ta_operations(tf):
    x = tf.constant(_inputs([3, 2]), name="x")
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.unstack(x)
    r1 = ta.read(1)
    st = ta.stack()
    ga = ta.gather([2, 0])
    sz = ta.size()
    ta2 = tf.TensorArray(tf.float32, size=2, element_shape=[2], name="pair", clear_after_read=False)
    ta2 = ta2.write(0, [1.0, 2.0]).write(1, x[2])
    ta3 = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], x)
    ta4 = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(tf.reshape(x, [6]), [4, 2])
    c4 = ta4.concat()
    idt = ta2.identity()
    with tf.Session() as s:
        vals = s.run([r1, st, ga, sz, ta2.stack(), ta3.stack(), c4, idt.read(0)])
    return {"ops": sorted(_ops(tf)), "values": _r(vals[:3]) + [_val(vals[3])] + _r(vals[4:]),
            "shapes": [str(t.shape) for t in (r1, st, c4)], "flow": ta.flow.name, "dtype": ta.dtype.name}


def ta_dynamic_size(tf):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, i * i)
    _, ta = tf.while_loop(lambda i, _: i < 5, body, (0, ta))
    with tf.Session() as s:
        return _val(s.run([ta.stack(), ta.size()]))


def ta_errors(tf):
    out = []
    ta = tf.TensorArray(tf.float32, size=2)
    ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
    try:
        ta.write(1, [1.0, 2.0, 3.0])
    except Exception as e:  # noqa: BLE001
        out.append([type(e).__name__, str(e)])
    ta = tf.TensorArray(tf.float32, size=2, tensor_array_name="twice").write(0, [1.0])
    a = ta.read(0)
    with tf.control_dependencies([a]):
        b = ta.read(0)
    bad = tf.TensorArray(tf.float32, size=1, tensor_array_name="small").read(3)
    with tf.Session() as s:
        for t in (b, bad):
            try:
                s.run(t)
            except tf.errors.OpError as e:
                lines = e.message.split("\n")  # the kernel's text: the line before " [[{{node ...}}]]"
                line = lines[[i for i, t in enumerate(lines) if t.startswith("\t [[")][0] - 1]
                out.append([type(e).__name__, re.sub(r"(twice|small)_\d+", r"\1_N", line).split(" [[")[0]])
    return out


def ta_in_cond(tf):
    """A TensorArray returned by tf.cond's branches comes back as a TensorArray."""
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [2], name="x")
    ta = tf.TensorArray(tf.float32, size=2)
    r = tf.cond(p, lambda: ta.write(0, x).write(1, x * 2.0), lambda: ta.write(0, x * 3.0).write(1, -x))
    st = r.stack()
    g = tf.gradients(tf.reduce_sum(st * st), x)
    with tf.Session() as s:
        vals = [s.run([st] + g, {p: b, x: [1.0, -2.0]}) for b in (True, False)]
    return {"type": type(r).__name__, "values": _r(vals)}


def ta_dynamic_size_gradients(tf):
    """A growing array written and read back in a loop, stacked and concatenated after it."""
    x = tf.placeholder(tf.float32, [3], name="x")
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)

    def body(i, ta, acc):
        ta = ta.write(i, x * tf.cast(i + 1, tf.float32))
        return i + 1, ta, acc + ta.read(i) * 0.5
    _, ta, acc = tf.while_loop(lambda i, *_: i < 4, body, (0, ta, tf.zeros([3])), parallel_iterations=1)
    y = tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(acc * acc) + tf.reduce_sum(ta.concat())
    with tf.Session() as s:
        return _r(s.run([y, ta.size()] + tf.gradients(y, x), {x: [1.0, -0.5, 2.0]}))


def ta_loop_gradients(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.constant(np.arange(3, dtype=np.float32) * 0.5 + 0.2, name="w")
    ta_in = tf.TensorArray(tf.float32, size=4).unstack(x)
    ta_out = tf.TensorArray(tf.float32, size=4)

    def body(t, ta, h):
        v = ta_in.read(t)
        h = tf.tanh(v * w + h)
        return t + 1, ta.write(t, h * h), h
    _, ta_f, hf = tf.while_loop(lambda t, *_: t < 4, body, (tf.constant(0), ta_out, tf.zeros([3])))
    y = ta_f.stack()
    loss = tf.reduce_sum(y) + tf.reduce_sum(hf)
    g = tf.gradients(loss, [x, w])
    with tf.Session() as s:
        vals = s.run([y, loss] + g, {x: _inputs([4, 3])})
    names = sorted(op.name for op in tf.get_default_graph().get_operations()
                   if op.type.startswith("TensorArray") and not op.name.startswith("gradients/while"))
    return {"values": _r(vals), "ta_ops": names}


def ta_concat_split_gradients(tf):
    x = tf.placeholder(tf.float32, [5, 2], name="x")
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x, [3, 2])
    y = ta.concat()
    g = tf.gradients(tf.reduce_sum(y * y * tf.constant([[1.0, 2.0]])), x)
    ta2 = tf.TensorArray(tf.float32, size=5).scatter([4, 3, 2, 1, 0], x)
    g2 = tf.gradients(tf.reduce_sum(ta2.gather([0, 4]) * 3.0), x)
    with tf.Session() as s:
        return _r(s.run([y] + g + g2, {x: _inputs([5, 2])}))


# ---------------- dynamic_rnn ----------------

def _cell(tf, kind):
    rc = tf.nn.rnn_cell
    if kind == "basic_lstm":
        return rc.BasicLSTMCell(5)
    if kind == "basic_lstm_concat":
        return rc.BasicLSTMCell(4, forget_bias=0.5, state_is_tuple=False)
    if kind == "lstm":
        return rc.LSTMCell(5)
    if kind == "lstm_peep_proj":
        return rc.LSTMCell(5, use_peepholes=True, num_proj=3, cell_clip=0.5, proj_clip=0.3)
    if kind == "gru":
        return rc.GRUCell(5)
    if kind == "basic_rnn":
        return rc.BasicRNNCell(5, activation=tf.nn.relu)
    if kind == "multi":
        return rc.MultiRNNCell([rc.BasicLSTMCell(5), rc.GRUCell(3)])
    if kind == "dropout":
        return rc.DropoutWrapper(rc.GRUCell(4), input_keep_prob=1.0, output_keep_prob=1.0)
    raise ValueError(kind)


def _rnn_program(tf, kind, seq, time_major=False):
    shape = [3, 2, 4] if time_major else [2, 3, 4]
    x = tf.placeholder(tf.float32, shape, name="x")
    cell = _cell(tf, kind)
    o, s = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[3, 2] if seq else None,
                             time_major=time_major)
    loss = tf.reduce_sum(o * o) + tf.add_n([tf.reduce_sum(t) for t in _flat(s)])
    vs = tf.trainable_variables()
    g = tf.gradients(loss, [x] + vs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _fix_weights(tf, sess, vs)
        r = sess.run([o, _flat(s), loss] + g, {x: _inputs(shape)})
    return {"variables": [[v.name, v.shape.as_list()] for v in vs], "outputs": _r(r[0]), "state": _r(r[1]),
            "state_type": "Tensor" if isinstance(s, tf.Tensor) else type(s).__name__, "loss": _r(r[2]), "grads": _r(r[3:]),
            "shapes": [str(o.shape)] + [str(t.shape) for t in _flat(s)]}


def rnn_basic_lstm(tf):
    return _rnn_program(tf, "basic_lstm", False)


def rnn_basic_lstm_seq(tf):
    return _rnn_program(tf, "basic_lstm", True)


def rnn_basic_lstm_concat_state(tf):
    return _rnn_program(tf, "basic_lstm_concat", True)


def rnn_lstm(tf):
    return _rnn_program(tf, "lstm", True)


def rnn_lstm_peepholes_projection(tf):
    return _rnn_program(tf, "lstm_peep_proj", True)


def rnn_gru(tf):
    return _rnn_program(tf, "gru", False)


def rnn_gru_seq(tf):
    return _rnn_program(tf, "gru", True)


def rnn_basic_rnn_time_major(tf):
    return _rnn_program(tf, "basic_rnn", True, time_major=True)


def rnn_multi(tf):
    return _rnn_program(tf, "multi", True)


def rnn_dropout_wrapper(tf):
    return _rnn_program(tf, "dropout", False)


def rnn_initializers(tf):
    """Kernel glorot_uniform (bounds checked), LSTM bias zeros, GRU gate bias ones."""
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    with tf.variable_scope("a"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    with tf.variable_scope("b"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(5), x, dtype=tf.float32)
    with tf.variable_scope("c", initializer=tf.constant_initializer(0.25)):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), x, dtype=tf.float32, scope="mine")
    out = []
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            a = s.run(v)
            fan = sum(v.shape.as_list()) if len(a.shape) == 2 else None
            limit = np.sqrt(6.0 / fan) if fan else None
            out.append([v.name, v.shape.as_list(),
                        bool(np.all(np.abs(a) <= limit)) if limit else _r(a)])
    return out


def rnn_training_steps(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = tf.placeholder(tf.float32, [2, 3], name="y")
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(6), tf.nn.rnn_cell.GRUCell(4)])
    o, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, sequence_length=[3, 2])
    w = tf.get_variable("out_w", [4, 1], initializer=tf.constant_initializer(0.3))
    pred = tf.reshape(tf.matmul(tf.reshape(o, [-1, 4]), w), [2, 3])
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    losses = []
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        _fix_weights(tf, s, tf.trainable_variables()[:-1])
        feed = {x: _inputs([2, 3, 4]), y: np.sin(np.arange(6)).reshape(2, 3)}
        for _ in range(4):
            losses.append(s.run([loss, train], feed)[0])
    return {"losses": _r(losses), "variables": [v.name for v in tf.trainable_variables()]}


def rnn_initial_state(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    init = tf.nn.rnn_cell.LSTMStateTuple(tf.constant(np.full([2, 3], 0.5, np.float32)),
                                         tf.constant(np.full([2, 3], -0.2, np.float32)))
    o, s = tf.nn.dynamic_rnn(cell, x, initial_state=init, sequence_length=tf.constant([1, 3]))
    zs = cell.zero_state(2, tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _fix_weights(tf, sess, tf.trainable_variables())
        r = sess.run([o, list(s), list(zs)], {x: _inputs([2, 3, 4])})
    return {"values": _r(r), "sizes": [list(cell.state_size), cell.output_size], "zero_shape": str(zs.c.shape)}


def rnn_static(tf):
    xs = [tf.constant(_inputs([2, 4])[::-1] * (i + 1) * 0.5) for i in range(3)]
    cell = tf.nn.rnn_cell.GRUCell(3)
    outs, state = tf.nn.static_rnn(cell, xs, dtype=tf.float32, sequence_length=[3, 1])
    g = tf.gradients(tf.add_n(outs) * 2.0, tf.trainable_variables())
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        _fix_weights(tf, s, tf.trainable_variables())
        r = s.run([outs, state] + g)
    return {"values": _r(r), "variables": [v.name for v in tf.trainable_variables()], "n": len(outs)}


def rnn_contrib_aliases(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    cell = tf.contrib.rnn.BasicLSTMCell(2) if hasattr(tf, "contrib") else tf.nn.rnn_cell.BasicLSTMCell(2)
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    return [v.name for v in tf.global_variables()]


def rnn_two_cells_one_graph(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2), x, dtype=tf.float32)
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(2, name="second"), x, dtype=tf.float32, scope="rnn2")
    return [[v.name, v.shape.as_list()] for v in tf.global_variables()]


def rnn_bidirectional(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    rc = tf.nn.rnn_cell
    (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(rc.BasicLSTMCell(3), rc.GRUCell(2), x, dtype=tf.float32,
                                                         sequence_length=[3, 2])
    (of2, ob2), _ = tf.nn.bidirectional_dynamic_rnn(rc.GRUCell(2), rc.GRUCell(2), x, dtype=tf.float32,
                                                    scope="nolen")
    graph = sorted(_ops(tf))
    loss = tf.reduce_sum(of * of) + tf.reduce_sum(ob) + tf.reduce_sum(sb) + tf.reduce_sum(of2 * ob2)
    vs = tf.trainable_variables()
    g = tf.gradients(loss, [x] + vs)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        _fix_weights(tf, s, vs)
        r = s.run([of, ob, list(sf), sb, of2, ob2] + g, {x: _inputs([2, 3, 4])})
    return {"variables": [v.name for v in vs], "values": _r(r), "ops": graph}


def rnn_unknown_batch_and_time(tf):
    """Batch and time known only when run (placeholders [None, None, 4]), fed twice."""
    x = tf.placeholder(tf.float32, [None, None, 4], name="x")
    n = tf.placeholder(tf.int32, [None], name="n")
    o, s = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(3), x, dtype=tf.float32, sequence_length=n)
    g = tf.gradients(tf.reduce_sum(o * o) + tf.reduce_sum(s.c), [x] + tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _fix_weights(tf, sess, tf.trainable_variables())
        r1 = sess.run([o, list(s)] + g, {x: _inputs([3, 4, 4]), n: [4, 1, 2]})
        r2 = sess.run([o, list(s)] + g, {x: _inputs([1, 2, 4]), n: [2]})
    return {"shapes": [str(o.shape), str(s.c.shape)], "first": _r(r1), "second": _r(r2)}


def rnn_graphs(tf):
    """The nodes (names, op types) dynamic_rnn builds for each cell, with sequence_length."""
    out = {}
    for kind in ("basic_lstm", "basic_lstm_concat", "lstm_peep_proj", "gru", "basic_rnn", "multi", "dropout"):
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
        tf.nn.dynamic_rnn(_cell(tf, kind), x, dtype=tf.float32, sequence_length=[3, 2])
        out[kind] = sorted(_ops(tf))
    return out


def rnn_error_no_dtype(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x)


def rnn_error_unknown_rank(tf):
    x = tf.placeholder(tf.float32, name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32)


def rnn_error_rank_two(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32, time_major=True)


def rnn_error_unknown_depth(tf):
    x = tf.placeholder(tf.float32, [2, 3, None], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32)


def rnn_error_sequence_length_matrix(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32, sequence_length=[[1, 2]])


def rnn_error_not_a_cell(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    tf.nn.dynamic_rnn("not a cell", x, dtype=tf.float32)


PROGRAMS = [
    ta_operations, ta_dynamic_size, ta_errors, ta_in_cond, ta_dynamic_size_gradients, ta_loop_gradients, ta_concat_split_gradients,
    rnn_basic_lstm, rnn_basic_lstm_seq, rnn_basic_lstm_concat_state, rnn_lstm, rnn_lstm_peepholes_projection,
    rnn_gru, rnn_gru_seq, rnn_basic_rnn_time_major, rnn_multi, rnn_dropout_wrapper, rnn_initializers,
    rnn_training_steps, rnn_initial_state, rnn_static, rnn_graphs, rnn_bidirectional, rnn_unknown_batch_and_time, rnn_contrib_aliases, rnn_two_cells_one_graph,
    rnn_error_no_dtype, rnn_error_unknown_rank, rnn_error_rank_two, rnn_error_unknown_depth,
    rnn_error_sequence_length_matrix, rnn_error_not_a_cell,
]


def _err(cls, msg):
    def fix(e):
        e["error"] = [cls, msg]
    return fix


def _basic_lstm_add(e):
    """TF 1.15's BasicLSTMCell adds with math_ops.add, which is the op Add there (AddV2 in 2.x)."""
    for ops in e["result"].values():
        for op in ops:
            if re.search(r"basic_lstm_cell/Add(_\d+)?$", op[0]) and op[1] == "AddV2":
                op[1] = "Add"


# TF 1.15's texts where TF 2.x's compat.v1 words its errors differently (rnn.py of 1.15).
TF115 = {
    "rnn_graphs": _basic_lstm_add,
    "rnn_bidirectional": lambda e: _basic_lstm_add({"result": {"ops": e["result"]["ops"]}}),
    "rnn_error_no_dtype": _err("ValueError", "If there is no initial_state, you must give a dtype."),
    "rnn_error_sequence_length_matrix": _err("ValueError", "sequence_length must be a vector of length batch_size, "
                                                           "but saw shape: (1, 2)"),
    "rnn_error_unknown_depth": _err("ValueError", "Input size (depth of inputs) must be accessible via shape "
                                                  "inference, but saw value None."),
}
