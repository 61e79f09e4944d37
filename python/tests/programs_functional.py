"""tf.map_fn, tf.scan, tf.foldl and tf.foldr (while loops over TensorArrays): fetched values of
flat and nested elements, initializers, reverse scans, dtype changes, unknown leading
dimensions, static shapes, gradients through them, and the errors of bad calls, compared with
TensorFlow's (see programs.py). TF115 holds the places where TF 2.x's compat.v1 no longer does
what 1.15 did (a non-callable fn, a scalar elems).
"""
import numpy as np

from programs import _val


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def _errors(fns):
    out = []
    for f in fns:
        try:
            f()
            out.append("no error")
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e).split("\n")[0]])
    return out


def map_fn_values(tf):
    a = tf.constant([[1., 2.], [3., 4.], [5., 6.]], name="a")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    outs = [tf.map_fn(lambda t: t * 2, a),
            tf.map_fn(lambda t: (t[0], t[1] * 2), (a, a), dtype=(tf.float32, tf.float32)),
            tf.map_fn(lambda t: tf.reduce_sum(t), x),
            tf.map_fn(lambda t: tf.cast(t, tf.int32), a, dtype=tf.int32),
            tf.map_fn(lambda d: d["p"] - d["q"], {"p": a, "q": a * 3}, dtype=tf.float32)]
    with tf.Session() as s:
        vals = s.run(outs, {x: [[1., 2.], [3., 4.]]})
    shapes = [str(o.shape) if isinstance(o, tf.Tensor) else [str(p.shape) for p in o] for o in outs]
    return {"values": _val(vals), "shapes": shapes}


def scan_fold_values(tf):
    a = tf.constant([[1., 2.], [3., 4.], [5., 6.]], name="a")
    outs = [tf.scan(lambda acc, t: acc + t, a),
            tf.foldl(lambda acc, t: acc + t, a),
            tf.foldr(lambda acc, t: acc * 2 + t, a),
            tf.foldl(lambda acc, t: acc + t, a, initializer=tf.constant([10., 10.])),
            tf.foldr(lambda acc, t: acc - tf.reduce_sum(t), a, initializer=0.),
            tf.scan(lambda acc, t: acc * t, a, reverse=True),
            tf.scan(lambda acc, t: (acc[0] + t, acc[1] * t), a, initializer=(tf.zeros([2]), tf.ones([2]))),
            tf.scan(lambda acc, t: acc + tf.reduce_sum(t), a, initializer=tf.constant(0.), reverse=True)]
    with tf.Session() as s:
        vals = s.run(outs)
    shapes = [str(o.shape) if isinstance(o, tf.Tensor) else [str(p.shape) for p in o] for o in outs]
    return {"values": _val(vals), "shapes": shapes}


def gradients_through_them(tf):
    a = tf.constant([[1., 2.], [3., 4.], [5., 6.]], name="a")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    g1 = tf.gradients(tf.reduce_sum(tf.scan(lambda acc, t: acc * t, a)), a)
    g2 = tf.gradients(tf.reduce_sum(tf.map_fn(lambda t: t * t, x)), x)
    g3 = tf.gradients(tf.foldl(lambda acc, t: acc * t, a, initializer=tf.constant([1., 1.])), a)
    with tf.Session() as s:
        vals = s.run([g1, g2, g3], {x: [[1., 2.], [-3., 0.5]]})
    return {"values": [[_r(g) for g in gs] for gs in vals]}


def training_through_map_fn(tf):
    w = tf.Variable([[0.5], [-0.25]], name="w")
    x = tf.constant([[1., 2.], [3., 4.], [5., 6.]], name="x")
    y = tf.map_fn(lambda row: tf.matmul(tf.expand_dims(row, 0), w)[0, 0], x)
    loss = tf.reduce_sum(tf.square(y - tf.constant([1., 2., 3.])))
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = []
        for _ in range(5):
            losses.append(s.run([loss, step])[0])
        return {"losses": _r(losses), "w": _r(s.run(w))}


def functional_errors(tf):
    a = tf.constant([[1., 2.], [3., 4.]], name="a")
    return {"errors": _errors([
        lambda: tf.map_fn(3, a),
        lambda: tf.map_fn(lambda t: t, []),
        lambda: tf.scan(lambda acc, t: (acc, acc), a),
        lambda: tf.map_fn(lambda t: (t, t), a),
        lambda: tf.foldl(lambda acc, t: acc, tf.constant(1.)),
        lambda: tf.map_fn(lambda t: t, (a, tf.constant([1., 2., 3.]))),
    ])}


def _tf115_errors(e):
    """TF 1.15 raised TypeError("fn must be callable.") for a fn that is not, and a ValueError
    for scalar elems (TF 2.x fails later with AttributeError and IndexError)."""
    errs = e["result"]["errors"]
    errs[0] = ["TypeError", "fn must be callable."]
    errs[4] = ["ValueError", "elements in elems must be 1+ dimensional Tensors, not scalars"]


TF115 = {"functional_errors": _tf115_errors}

PROGRAMS = [map_fn_values, scan_fold_values, gradients_through_them, training_through_map_fn, functional_errors]
