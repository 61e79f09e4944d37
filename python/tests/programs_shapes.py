"""TF 1.x programs of static shapes from computed shape tensors: the idioms that reshape,
fill, tile and broadcast by tf.shape slices stacked or concatenated, whose static shapes TF's
graph construction works out (constant subgraphs evaluated, partial shapes of
Shape/Pack/ConcatV2/StridedSlice/Cast). Each records `t.shape` of what it builds (None: an
unknown dim; "?" an unknown rank) and the values it computes. Recorded by gen_expectations.py
into expectations_shapes.json.
"""
import numpy as np

from programs import _ops, _val


def _shape(t):
    return "?" if t.shape.ndims is None else t.shape.as_list()


def _run(tf, ts, feed):
    with tf.Session() as s:
        return [_val(v) for v in s.run(ts, feed)]


def reshape_stack_and_concat(tf):
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    ts = [tf.reshape(x, tf.stack([tf.shape(x)[0], -1])),
          tf.reshape(x, [-1, tf.shape(x)[1] * tf.shape(x)[2]]),
          tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1] * tf.shape(x)[2]]),
          tf.reshape(x, tf.concat([tf.shape(x)[:-1], [5, -1]], 0)),
          tf.reshape(x, tf.concat([[-1], tf.shape(x)[2:]], 0)),
          tf.reshape(x, tf.stack([-1, 20]))]
    feed = {x: np.arange(40, dtype=np.float32).reshape(2, 4, 5)}
    return {"shapes": [_shape(t) for t in ts], "values": _run(tf, ts, feed)}


def fill_zeros_tile_broadcast(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, None, name="y")
    ts = [tf.zeros(tf.shape(x)),
          tf.ones(tf.shape(x)[1:]),
          tf.fill(tf.stack([tf.shape(x)[0], 7]), 1.5),
          tf.fill(tf.stack([tf.shape(x)[1], 2]), 2.0),
          tf.zeros(tf.stack([tf.shape(x)[1] + 1, 2])),
          tf.tile(x, tf.stack([2, tf.shape(x)[1]])),
          tf.tile(x, tf.stack([tf.shape(y)[0], 2])),
          tf.broadcast_to(x, tf.stack([3, tf.shape(x)[1]]))]
    feed = {x: np.ones((3, 4), np.float32), y: np.zeros((2, 2), np.float32)}
    return {"shapes": [_shape(t) for t in ts], "values": _run(tf, ts[:7], feed)}


def folded_shape_arithmetic(tf):
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    k = tf.placeholder(tf.float32, [2, 4, 5], name="k")
    ts = [tf.zeros(tf.shape(k) + 1),
          tf.zeros(tf.shape(x) + 1),
          tf.zeros(tf.stack([tf.size(k), tf.rank(x)])),
          tf.zeros(tf.range(tf.rank(x))),
          tf.zeros(tf.cast(tf.shape(x), tf.int64)),
          tf.zeros(tf.identity(tf.shape(x))),
          tf.zeros(tf.gather(tf.shape(k), [1, 0])),
          tf.zeros(tf.stack([tf.unstack(tf.shape(x))[1] * 2, 1])),
          tf.slice(x, [0, 0, 0], tf.stack([tf.shape(x)[0], 2, -1])),
          x[:, :tf.shape(x)[2] - 2]]
    return {"shapes": [_shape(t) for t in ts]}


def unknown_rank_and_placeholders(tf):
    u = tf.placeholder(tf.float32, None, name="u")
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    ts = [tf.zeros(tf.shape(u)),
          tf.zeros(tf.concat([tf.shape(u), [2]], 0)),
          tf.zeros(tf.concat([tf.shape(x)[1:], tf.shape(u)], 0)),
          tf.zeros(tf.stack([n, 3])),
          tf.zeros(tf.stack([tf.placeholder_with_default(2, []), 3])),
          tf.zeros(tf.concat([tf.shape(x)[1:], tf.constant(-1)[None]], 0))]
    return {"shapes": [_shape(t) for t in ts]}


def reversed_shape_slice_fails(tf):
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    return {"shape": _shape(tf.zeros(tf.shape(x)[::-1]))}


def shape_slice_out_of_bounds_fails(tf):
    x = tf.placeholder(tf.float32, [None, 4, 5], name="x")
    return {"shape": _shape(tf.zeros(tf.shape(x)[-5:]))}


def depthwise_gradient_nodes(tf):
    out = {}
    for key, xs, ws in (("known", [1, 5, 5, 2], [3, 3, 2, 2]), ("unknown", [None, 5, 5, 2], None)):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, xs, name="x")
            w = tf.placeholder(tf.float32, ws, name="w")
            y = tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "SAME", name="dw")
            gx, gw = tf.gradients(y, [x, w])
            out[key] = {"ops": [o for o in _ops(tf) if o[0].startswith("gradients/dw_grad")],
                        "inputs": [[i.op.name for i in t.op.inputs][:2] for t in (gx, gw)],
                        "shapes": [_shape(gx), _shape(gw)]}
            if key == "known":
                rng = np.random.RandomState(3)
                feed = {x: rng.rand(1, 5, 5, 2).astype(np.float32), w: rng.rand(3, 3, 2, 2).astype(np.float32)}
                with tf.Session() as s:
                    out["values"] = [np.round(v, 4).tolist() for v in s.run([gx, gw], feed)]
    return out


def int64_index_slices(tf):
    """Indexing with an int64 tensor: its stride is a Const of that dtype, so the
    begin/end/strides packs agree (TF's slice helper)."""
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    i = tf.constant(1, tf.int64, name="i")
    ts = [x[i, 1:2], tf.shape(x)[i], x[0, i]]
    feed = {x: np.arange(24, dtype=np.float32).reshape(2, 3, 4)}
    return {"ops": _ops(tf), "shapes": [_shape(t) for t in ts], "values": _run(tf, ts, feed)}


PROGRAMS = [reshape_stack_and_concat, fill_zeros_tile_broadcast, folded_shape_arithmetic,
            unknown_rank_and_placeholders, reversed_shape_slice_fails, shape_slice_out_of_bounds_fails,
            depthwise_gradient_nodes, int64_index_slices]
