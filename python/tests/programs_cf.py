"""Control flow (tf.cond, tf.case, tf.while_loop; control flow v1, which the recording's
disable_v2_behavior() selects): node names and op types of the built graphs, fetched values,
gradients through the constructs, training a model with a loop and a cond, and the errors of
bad programs, compared with TensorFlow's (see programs.py).

The node lists are sorted: TensorFlow's Python makes an op, then rewrites its outside inputs
(so "cond/mul" comes before "cond/mul/Switch"), while tfc's builders make the capture first;
the nodes, their names and types are the same.
"""
import collections

import numpy as np

from programs import _ops, _val


def _sops(tf):
    return sorted(_ops(tf))


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def cond_basic(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [2], name="x")
    r = tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    r2 = tf.cond(p, lambda: tf.constant(3), lambda: tf.constant(4), name="named")
    with tf.Session() as s:
        vals = [s.run([r, r2], {p: b, x: [1.0, 2.0]}) for b in (True, False)]
    return {"ops": _sops(tf), "names": [r.name, r2.name], "shape": str(r.shape), "values": _val(vals)}


def cond_structures(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant([1.0, 2.0], name="x")
    d = tf.cond(p, lambda: {"a": x, "b": (x * 2.0, 7)}, lambda: {"a": x - 1.0, "b": (x, 8)})
    one = tf.cond(p, lambda: [x], lambda: [x + 1.0])
    strict = tf.cond(p, lambda: [x], lambda: [x + 1.0], strict=True)
    with tf.Session() as s:
        vals = [s.run([d, one, strict], {p: b}) for b in (True, False)]
    return {"ops": _sops(tf), "types": [type(d).__name__, isinstance(one, tf.Tensor), type(strict).__name__],
            "keys": sorted(d), "values": _val(vals)}


def cond_variables(tf):
    v = tf.Variable(2.0, name="v")
    w = tf.Variable(10.0, name="w")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: v * w, lambda: tf.square(v) + 1.0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = [s.run(r, {p: b}) for b in (True, False)]
    return {"ops": _sops(tf), "values": _val(vals)}


def cond_nested(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    x = tf.constant(5.0, name="x")
    r = tf.cond(p, lambda: tf.cond(q, lambda: x * 2.0, lambda: x * 3.0), lambda: x - 1.0)
    with tf.Session() as s:
        vals = [s.run(r, {p: a, q: b}) for a in (True, False) for b in (True, False)]
    return {"ops": _sops(tf), "values": _val(vals)}


def case_basic(tf):
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(x < 0, lambda: tf.constant(-1)), (x < 1, lambda: tf.constant(0))],
                default=lambda: tf.constant(1))
    with tf.Session() as s:
        vals = [s.run(r, {x: v}) for v in (-5, 0, 5)]
    return {"ops": _sops(tf), "name": r.name, "values": _val(vals)}


def while_basic(tf):
    i = tf.constant(0, name="i")
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * 2.0), [i, x])
    with tf.Session() as s:
        vals = s.run(r, {x: 1.0})
    return {"ops": _sops(tf), "names": [t.name for t in r], "type": type(r).__name__, "values": _val(vals)}


def while_structures(tf):
    Pair = collections.namedtuple("Pair", "a b")
    x = tf.constant([1.0, 2.0], name="x")
    single = tf.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, [tf.constant(1.0)])
    nested = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, Pair(p.a + x, p.b * 2.0)),
                           (0, Pair(x, tf.constant(1.0))))
    same = tf.while_loop(lambda v: v < 5, lambda v: v + 1, [0], return_same_structure=True)
    with tf.Session() as s:
        vals = s.run([single, nested, same])
    return {"ops": _sops(tf), "types": [isinstance(single, tf.Tensor), type(nested).__name__, type(nested[1]).__name__,
                                        type(same).__name__], "values": _val(vals)}


def while_maximum_iterations(tf):
    r = tf.while_loop(lambda v: v < 1000, lambda v: v + 1, [0], maximum_iterations=5)
    m = tf.placeholder(tf.int32, [], name="m")
    r2 = tf.while_loop(lambda v: v < 1000, lambda v: v + 2, [0], maximum_iterations=m, name="limited")
    with tf.Session() as s:
        vals = [s.run(r), s.run(r2, {m: 7})]
    return {"ops": _sops(tf), "values": _val(vals)}


def while_captures(tf):
    step = tf.constant(3.0, name="step")
    v = tf.Variable(0.5, name="v")
    r = tf.while_loop(lambda a: a < 20.0, lambda a: a + step * v, [tf.constant(1.0)], parallel_iterations=4)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = s.run(r)
    return {"ops": _sops(tf), "values": _r(vals)}


def cond_in_while(tf):
    def body(i, a):
        return i + 1, tf.cond(i % 2 < 1, lambda: a + 1.0, lambda: a * 2.0)
    r = tf.while_loop(lambda i, a: i < 6, body, [0, tf.constant(1.0)])
    with tf.Session() as s:
        vals = s.run(r)
    return {"ops": _sops(tf), "values": _val(vals)}


def while_in_cond(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant(2.0, name="x")
    r = tf.cond(p, lambda: tf.while_loop(lambda a: a < 50.0, lambda a: a * x, [x]), lambda: x)
    with tf.Session() as s:
        vals = [s.run(r, {p: b}) for b in (True, False)]
    return {"ops": _sops(tf), "values": _val(vals)}


def cond_gradients(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: x * x, lambda: 3.0 * x)
    g = tf.gradients(y, x)
    with tf.Session() as s:
        vals = [s.run(g, {x: 5.0, p: b}) for b in (True, False)]
    return {"ops": _sops(tf), "values": _val(vals)}


def while_gradients(tf):
    # Values only: the builders' loop gradient names its nodes apart from TF's (b_count, ...).
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.constant(1.0)])
    g = tf.gradients(r[1], x)
    with tf.Session() as s:
        vals = s.run([r[1], g], {x: 2.0})
    return {"values": _val(vals)}


def train_loop_model(tf):
    w = tf.Variable(0.5, name="w")
    b = tf.Variable(0.1, name="b")
    x = tf.constant([1.0, 2.0, 3.0], name="x")
    # y = w^3 * x via a loop, then a cond picking the loss
    _, cube = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [0, tf.constant(1.0)])
    pred = cube * x + b
    big = tf.reduce_sum(pred) > 100.0
    loss = tf.cond(big, lambda: tf.reduce_sum(pred), lambda: tf.reduce_sum(tf.square(pred - 2.0)))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = []
        for _ in range(5):
            losses.append(s.run([loss, train])[0])
        final = s.run([w, b])
    return {"losses": _r(losses), "final": _r(final)}


def cond_assign(tf):
    v = tf.Variable(1.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.assign(v, 5.0).op, lambda: tf.assign_add(v, 2.0).op)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = []
        for b in (False, True, False):
            s.run(r, {p: b})
            got.append(s.run(v))
    return {"ops": _sops(tf), "result": [r.name, r.dtype.name], "values": _val(got)}


def variables_in_branches(tf):
    p = tf.placeholder(tf.bool, [], name="p")

    def make():
        v = tf.get_variable("v", [], initializer=tf.constant_initializer(3.0))
        return v * 2.0

    def body(i, a):
        with tf.variable_scope("body", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [], initializer=tf.constant_initializer(0.5))
        return i + 1, a + w

    r = tf.cond(p, make, lambda: tf.constant(1.0))
    loop = tf.while_loop(lambda i, a: i < 4, body, [0, tf.constant(0.0)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())  # needs no feed: the variables are outside
        vals = [s.run(r, {p: True}), s.run(r, {p: False}), s.run(loop)]
    return {"ops": _sops(tf), "variables": [v.name for v in tf.global_variables()], "values": _val(vals)}


def tuple_gates(tf):
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    t = tf.tuple([a, b, None])
    t2 = tf.tuple([a * 2.0], name="tp", control_inputs=[b.op])
    ops = [[o.name, o.type, sorted(c.name for c in o.control_inputs)]
           for o in tf.get_default_graph().get_operations()]
    with tf.Session() as s:
        vals = s.run([t[0], t[1], t2[0]])
    err = None
    try:
        tf.tuple([None])
    except ValueError as e:
        err = str(e)
    return {"ops": ops, "names": [x.name if x is not None else None for x in t + t2], "values": _val(vals),
            "error": err}


def while_shapes(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    r = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * 2.0), [0, x])
    inside = []

    def body(a):
        inside.append(str(a.shape))
        return a + 1.0
    r2 = tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0, body, [tf.constant([1.0, 2.0])])
    return {"shapes": [str(t.shape) for t in r] + [str(r2.shape)], "inside": inside}


def while_shape_error(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    tf.while_loop(lambda a: a < 1., lambda a: tf.stack([a, a]), [x])


def _errors(tf, fns):
    out = []
    for f in fns:
        try:
            f()
            out.append("no error")
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e).split("\n")[0]])
    return out


def cond_errors(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    return {"errors": _errors(tf, [
        lambda: tf.cond(p, lambda: (x, x), lambda: x),
        lambda: tf.cond(p, lambda: [x, x], lambda: (x, x)),
        lambda: tf.cond(p, lambda: x, lambda: 1),
        lambda: tf.cond(p, lambda: None, lambda: None),
        lambda: tf.cond(True, lambda: x, lambda: x),
        lambda: tf.cond(p, None, lambda: x),
        lambda: tf.cond(p, 1, lambda: x),
        lambda: tf.case([(x, lambda: x)], default=lambda: x),
        lambda: tf.case([(p, 1)], default=lambda: x),
    ])}


def cond_error_messages(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    try:
        tf.cond(p, lambda: x, lambda: 1)
    except ValueError as e:
        return {"message": str(e)}


def cond_user_exception(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")

    def bad():
        tf.identity(x, name="made_before")
        raise KeyError("from the branch")
    try:
        tf.cond(p, lambda: x + 1.0, bad)
    except KeyError as e:
        return {"error": str(e)}


def while_errors(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    return {"errors": _errors(tf, [
        lambda: tf.while_loop(lambda a, b: a < 10., lambda a, b: a + 1., [x, x]),
        lambda: tf.while_loop(lambda a: a < 10., lambda a: (a + 1., a), [x]),
        lambda: tf.while_loop(lambda a: a, lambda a: a + 1., [x]),
        lambda: tf.while_loop(1, lambda a: a + 1., [x]),
        lambda: tf.while_loop(lambda a: a < 1., lambda a: a + 1., []),
        lambda: tf.while_loop(lambda a: a < 1., lambda a: a + 1., [x], parallel_iterations=0),
        lambda: tf.while_loop(lambda a: a < 1., lambda a: a + 1., [x], shape_invariants=[tf.TensorShape([2])]),
    ])}


def _seed_ones(e):
    """TF 1.15 seeds tf.gradients with Const grad_ys_<i> and Fill "Fill"; TF 2.x names the Fill
    grad_ys_<i> over a Const grad_ys_<i>/Const."""
    ops = e["result"]["ops"]
    for i, (name, typ) in enumerate(ops):
        if name.endswith("/Const") and "/grad_ys_" in name:
            scope = name[:-len("/Const")]
            ops[i] = [scope.rsplit("/", 1)[0] + "/Fill", "Fill"]
            ops[ops.index([scope, "Fill"])] = [scope, "Const"]
    ops.sort()


TF115 = {"cond_gradients": _seed_ones}

PROGRAMS = [cond_basic, cond_structures, cond_variables, cond_nested, case_basic, while_basic,
            while_structures, while_maximum_iterations, while_captures, cond_in_while, while_in_cond,
            cond_gradients, while_gradients, train_loop_model, cond_assign, variables_in_branches,
            tuple_gates, while_shapes, while_shape_error, cond_errors, cond_error_messages,
            cond_user_exception, while_errors]
