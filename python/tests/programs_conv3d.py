"""tf.nn.convolution in 1 and 3 spatial dims (with and without dilation), tf.nn.conv3d,
conv3d_transpose, max_pool3d, avg_pool3d, tf.layers' 3-D layers, and their gradients (the
backprops' own too): TF 1.x programs whose graphs (node names, op types), shapes, values
(rounded) and errors are compared with TensorFlow's (see programs.py)."""
import numpy as np

from programs import _ops, _val


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def _x(shape, seed):
    """Multiples of 1/8 in [-1, 1]: every sum of products below is exact in float, and every
    average divides by a power of two, so TF and tfc agree to the bit whatever their order of
    summation."""
    return (np.round(np.random.RandomState(seed).uniform(-1, 1, shape) * 8) / 8).astype(np.float32)


def _grad_ops(tf):
    """The graph's ops less tf.gradients' seed (whose names differ between TF 1.15 and 2.x)."""
    seed = ("grad_ys", "Fill", "Shape")
    return [o for o in _ops(tf) if not (o[0].startswith("gradients") and o[0].split("/")[1].startswith(seed))]


def _run(tf, fetches):
    with tf.Session() as s:
        return [_r(v) for v in s.run(fetches)]


def convolution_1d(tf):
    x, w = tf.constant(_x([2, 9, 3], 1), name="x"), tf.constant(_x([3, 3, 4], 2), name="w")
    ys = [tf.nn.convolution(x, w, "SAME"), tf.nn.convolution(x, w, "VALID", strides=[2]),
          tf.nn.convolution(x, w, "SAME", dilation_rate=[2], name="dil"),
          tf.nn.convolution(x, w, "VALID", dilation_rate=2)]
    return {"ops": _ops(tf), "names": [y.name for y in ys], "shapes": [y.shape.as_list() for y in ys],
            "values": _run(tf, ys)}


def convolution_3d(tf):
    x, w = tf.constant(_x([1, 5, 6, 7, 2], 3), name="x"), tf.constant(_x([2, 2, 3, 2, 3], 4), name="w")
    ys = [tf.nn.convolution(x, w, "SAME", strides=[1, 2, 1]), tf.nn.convolution(x, w, "VALID"),
          tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 1, 2]),
          tf.nn.convolution(x, w, "VALID", dilation_rate=[1, 2, 2], name="c3")]
    return {"ops": _ops(tf), "names": [y.name for y in ys], "shapes": [y.shape.as_list() for y in ys],
            "values": _run(tf, ys)}


def convolution_numpy_inputs(tf):
    y = tf.nn.convolution(_x([1, 4, 4, 4, 2], 5), _x([2, 2, 2, 2, 1], 6), "SAME")
    return {"ops": _ops(tf), "name": y.name, "values": _run(tf, [y])}


def convolution_bad_arguments(tf):
    x, w = tf.constant(_x([1, 5, 6, 7, 2], 3)), tf.constant(_x([2, 2, 2, 2, 3], 4))
    out = {}
    for key, fn in (("dil_len", lambda: tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 2])),
                    ("stride_len", lambda: tf.nn.convolution(x, w, "SAME", strides=[1, 2])),
                    ("stride_and_dil", lambda: tf.nn.convolution(x, w, "SAME", strides=2, dilation_rate=2)),
                    ("rank6", lambda: tf.nn.convolution(tf.zeros([1, 2, 2, 2, 2, 1]), tf.zeros([1, 1, 1, 1, 1, 1]),
                                                        "SAME"))):
        try:
            fn()
            out[key] = None
        except ValueError as e:
            out[key] = str(e)
    return out


def conv3d_and_gradients(tf):
    x = tf.constant(_x([2, 4, 5, 6, 2], 7), name="x")
    w = tf.constant(_x([2, 3, 2, 2, 3], 8), name="w")
    y = tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME")
    dx, dw = tf.gradients(tf.reduce_sum(y * y), [x, w])
    return {"ops": _grad_ops(tf), "values": _run(tf, [y, dx, dw])}


def conv3d_transpose(tf):
    dy = tf.constant(_x([1, 3, 3, 4, 3], 9), name="dy")
    w = tf.constant(_x([2, 2, 2, 2, 3], 10), name="w")
    y = tf.nn.conv3d_transpose(dy, w, [1, 5, 6, 7, 2], [1, 2, 2, 2, 1], "SAME")
    return {"ops": _ops(tf), "shape": y.shape.as_list(), "values": _run(tf, [y])}


def conv3d_transpose_gradients(tf):
    dy = tf.constant(_x([1, 3, 3, 4, 3], 13), name="dy")
    w = tf.constant(_x([2, 2, 2, 2, 3], 14), name="w")
    y = tf.nn.conv3d_transpose(dy, w, [1, 5, 6, 7, 2], [1, 2, 2, 2, 1], "SAME")
    gdy, gw = tf.gradients(tf.reduce_sum(y * y), [dy, w])
    x = tf.constant(_x([1, 5, 6, 7, 2], 15), name="x")
    f = tf.raw_ops.Conv3DBackpropFilterV2(input=x, filter_sizes=[2, 2, 2, 2, 3], out_backprop=dy,
                                          strides=[1, 2, 2, 2, 1], padding="SAME")
    gx, gdy2 = tf.gradients(tf.reduce_sum(f * f), [x, dy])
    return {"ops": _grad_ops(tf), "values": _run(tf, [gdy, gw, gx, gdy2])}


def pool3d_and_gradients(tf):
    x = tf.constant(_x([2, 5, 6, 4, 3], 11), name="x")
    mx = tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME")
    av = tf.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "VALID", name="avg")
    dmx, dav = tf.gradients(tf.reduce_sum(mx * mx), x)[0], tf.gradients(tf.reduce_sum(av * av), x)[0]
    return {"ops": _grad_ops(tf), "shapes": [mx.shape.as_list(), av.shape.as_list()],
            "values": _run(tf, [mx, av, dmx, dav])}


def conv3d_shape_errors(tf):
    x, w = tf.constant(_x([1, 4, 4, 4, 2], 3)), tf.constant(_x([2, 2, 2, 3, 3], 4))
    out = {}
    for key, fn in (("depth", lambda: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME")),
                    ("rank", lambda: tf.nn.conv3d(x[0], w, [1, 1, 1, 1, 1], "SAME")),
                    ("pool_rank", lambda: tf.nn.max_pool3d(x[0], 2, 2, "SAME")),
                    ("pool_negative", lambda: tf.nn.avg_pool3d(x, [1, 5, 1, 1, 1], 1, "VALID"))):
        try:
            fn()
            out[key] = None
        except ValueError as e:
            out[key] = str(e).split(" for ")[0]
    return out


def max_pool3d_batch_window(tf):
    y = tf.nn.max_pool3d(tf.constant(_x([2, 4, 4, 4, 2], 3)), [2, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME")
    with tf.Session() as s:
        s.run(y)
    return {}


def layers_conv3d(tf):
    x = tf.placeholder(tf.float32, [None, 4, 5, 6, 2], name="x")
    c = tf.layers.conv3d(x, 3, 2, padding="same", activation=tf.nn.relu, kernel_initializer=tf.ones_initializer())
    p = tf.layers.max_pooling3d(c, 2, 2)
    a = tf.layers.average_pooling3d(c, (1, 2, 2), (1, 1, 2), padding="same", name="avg")
    layer = tf.layers.Conv3D(2, (1, 2, 1), strides=(1, 2, 1), use_bias=False, name="c3",
                             kernel_initializer=tf.constant_initializer(0.5))
    d = layer(a)
    e = tf.layers.conv3d(x, 2, (2, 1, 2), dilation_rate=(2, 1, 2), padding="same", name="dil",
                         kernel_initializer=tf.constant_initializer(0.25))
    feed = {x: _x([2, 4, 5, 6, 2], 12)}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = [_r(v) for v in s.run([c, p, a, d, e], feed)]
    return {"ops": _ops(tf), "vars": [[v.name, v.shape.as_list()] for v in tf.global_variables()],
            "shapes": [t.shape.as_list() for t in (c, p, a, d, e)], "values": vals}


def conv2d_backprops_and_their_gradients(tf):
    """tf.nn.conv2d_backprop_input / _filter (TF 1.x names), a conv2d_transpose and a depthwise
    backprop trained: the backprops' own gradients."""
    w = tf.constant(_x([3, 3, 3, 4], 21), name="w")
    dy = tf.constant(_x([2, 5, 5, 4], 22), name="dy")
    x = tf.constant(_x([2, 10, 10, 3], 23), name="x")
    a = tf.nn.conv2d_backprop_input([2, 10, 10, 3], w, dy, [1, 2, 2, 1], "SAME")
    b = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, [1, 2, 2, 1], "SAME")
    t = tf.nn.conv2d_transpose(dy, w, [2, 10, 10, 3], [1, 2, 2, 1], "SAME", name="t")
    gdy, gw = tf.gradients(tf.reduce_sum(t * t), [dy, w])
    gx, gdy2 = tf.gradients(tf.reduce_sum(b * b), [x, dy])
    dwf = tf.constant(_x([3, 3, 3, 2], 24), name="dwf")
    dwdy = tf.constant(_x([2, 5, 5, 6], 25), name="dwdy")
    d = tf.raw_ops.DepthwiseConv2dNativeBackpropInput(input_sizes=[2, 10, 10, 3], filter=dwf, out_backprop=dwdy,
                                                       strides=[1, 2, 2, 1], padding="SAME")
    gdf, gddy = tf.gradients(tf.reduce_sum(d * d), [dwf, dwdy])
    return {"ops": _grad_ops(tf), "shapes": [v.shape.as_list() for v in (a, b, t)],
            "values": _run(tf, [a, b, gdy, gw, gx, gdy2, gdf, gddy])}


PROGRAMS = [layers_conv3d, convolution_1d, convolution_3d, convolution_numpy_inputs, convolution_bad_arguments,
            conv3d_and_gradients, conv3d_transpose, conv3d_transpose_gradients, pool3d_and_gradients,
            conv3d_shape_errors, max_pool3d_batch_window, conv2d_backprops_and_their_gradients]


def _tf115_conv3d_depth(e):
    # TF 1.15's Conv3DShape merges the input's and the filter's depth (grouped 3-D convolutions
    # came later).
    e["result"]["depth"] = "Dimensions must be equal, but are 2 and 3"


TF115 = {"conv3d_shape_errors": _tf115_conv3d_depth}
