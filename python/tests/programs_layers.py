"""Colocation, tf.layers and tf.losses: TF 1.x programs whose graphs (node names, op types,
devices, "_class" colocation attrs), variable names, values (constant initializers) and errors
are compared with TensorFlow's (see programs.py). TensorFlow 2.x keeps TF 1.x's tf.layers under
tf_keras (gen_expectations.py sets TF_USE_LEGACY_KERAS)."""
import numpy as np

from programs import _ops, _val


def _coloc(op):
    try:
        return [c.decode() for c in op.get_attr("_class")]
    except ValueError:
        return None


def _graph(tf):
    """Every op's name, type, device and colocation."""
    return [[op.name, op.type, op.device, _coloc(op)] for op in tf.get_default_graph().get_operations()]


def _vars(tf, key="variables"):
    return [[v.name, str(v.shape)] for v in tf.get_collection(key)]


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def colocate_with_devices(tf):
    with tf.device('/cpu:1'):
        a = tf.constant(1.0, name='a')
    b0 = tf.constant(0.0, name='b0')
    with tf.device('/job:w/gpu:2'):
        with tf.colocate_with(a):
            b = tf.identity(a, name='b')
            with tf.device('/cpu:3'):
                tf.identity(a, name='c')
            with tf.colocate_with(b0):
                tf.identity(a, name='d')
                with tf.colocate_with(b0, ignore_existing=True):
                    tf.identity(a, name='e')
        tf.identity(a, name='f')
        with tf.colocate_with(b0):
            tf.identity(a, name='g')
            with tf.device('/cpu:3'):
                tf.identity(a, name='h')
        with tf.colocate_with(b):
            tf.identity(a, name='i')
        with tf.colocate_with(b0.op, ignore_existing=True):
            with tf.colocate_with(None, ignore_existing=True):
                tf.identity(a, name='j')
    return {"graph": _graph(tf), "groups": [[c.decode() for c in o.colocation_groups()] for o in (a.op, b.op)]}


def colocate_with_values(tf):
    a = tf.constant([1.0, 2.0], name='a')
    w = tf.Variable([3.0, 4.0], name='w')
    with tf.colocate_with(w):
        s = tf.multiply(a, w, name="s")
    with tf.colocate_with(a):
        k = tf.multiply(s, 2.0, name='k')
    with tf.colocate_with("x"):
        tf.constant(1.0, name='n')
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = sess.run(k)
    return {"graph": _graph(tf), "value": _val(v)}


def colocate_with_none(tf):
    with tf.colocate_with(None):
        tf.constant(1.0)


def _feed_x(shape, scale=0.1):
    return (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) * scale - 1.0).astype(np.float32)


def dense_graph_and_values(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.layers.dense(x, 4, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(0.5),
                        bias_initializer=tf.constant_initializer(0.1),
                        kernel_regularizer=lambda w: 0.1 * tf.nn.l2_loss(w))
    layer = tf.layers.Dense(2, use_bias=False, kernel_initializer=tf.ones_initializer(), name="out")
    z = layer(y)
    z2 = layer(y)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run([y, z, z2] + tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES), {x: _feed_x([2, 3])})
    return {"graph": _graph(tf), "vars": _vars(tf), "trainable": _vars(tf, "trainable_variables"),
            "outputs": [t.name for t in (y, z, z2)], "shapes": [str(t.shape) for t in (y, z, z2)],
            "reg": [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)],
            "layer": [v.name for v in layer.trainable_weights] + [layer.kernel.name, str(layer.bias)],
            "values": [_r(v) for v in vals]}


def dense_names_and_reuse(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    a = tf.layers.dense(x, 2, name="fc", kernel_initializer=tf.ones_initializer())
    b = tf.layers.dense(x, 2, name="fc", reuse=True)
    with tf.variable_scope("net"):
        c = tf.layers.dense(x, 2)
        d = tf.layers.dense(c, 2)
    l1, l2 = tf.layers.Dense(2, name="same"), tf.layers.Dense(2, name="same")
    e, f = l1(x), l2(x)
    with tf.variable_scope("net", reuse=True):
        g = tf.layers.dense(x, 2, name="dense")
    try:
        tf.layers.dense(x, 2, name="fc")
        again = "no error"
    except ValueError as err:
        again = str(err).split("\n")[0]
    return {"outputs": [t.name for t in (a, b, c, d, e, f, g)], "vars": _vars(tf), "again": again}


def dense_rank3_and_default_init(tf):
    x = tf.placeholder(tf.float32, [2, 5, 3], name="x")
    y = tf.layers.dense(x, 4)
    k = tf.get_default_graph().get_tensor_by_name("dense/kernel:0")
    limit = np.sqrt(6.0 / (3 + 4))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kv, bv = sess.run([k, "dense/bias:0"])
    return {"graph": _graph(tf), "output": [y.name, str(y.shape)], "kernel_in_limit": bool(np.all(np.abs(kv) <= limit)),
            "kernel_spread": bool(np.std(kv) > 0.1), "bias": _val(bv)}


def dense_unknown_last_dim(tf):
    tf.layers.dense(tf.placeholder(tf.float32, [None, None], name="x"), 3)


def dense_unknown_rank(tf):
    tf.layers.dense(tf.placeholder(tf.float32, name="x"), 3)


def conv_pool_flatten(tf):
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    c = tf.layers.conv2d(x, 3, 3, padding="same", activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(0.1), bias_initializer=tf.constant_initializer(0.2))
    p = tf.layers.max_pooling2d(c, 2, 2)
    a = tf.layers.average_pooling2d(c, [3, 3], 1, padding="valid")
    c2 = tf.layers.conv2d(p, 2, [2, 2], strides=(2, 2), use_bias=False, kernel_initializer=tf.ones_initializer())
    f = tf.layers.flatten(a)
    f2 = tf.layers.flatten(tf.placeholder(tf.float32, [4, 2, 3], name="s"))
    conv = tf.layers.Conv2D(1, (1, 1), name="pointwise", kernel_initializer=tf.constant_initializer(2.0))
    pw = conv(c2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run([c, p, a, c2, f, pw], {x: _feed_x([2, 6, 6, 2], 0.05)})
    return {"graph": _graph(tf), "vars": _vars(tf),
            "outputs": [[t.name, str(t.shape)] for t in (c, p, a, c2, f, f2, pw)], "values": [_r(v) for v in vals]}


def conv_unknown_channels(tf):
    tf.layers.conv2d(tf.placeholder(tf.float32, [None, 4, 4, None], name="x"), 2, 3)


def dropout_layers(tf):
    x = tf.placeholder(tf.float32, [None, 50], name="x")
    d = tf.layers.dropout(x, rate=0.3, training=False)
    d3 = tf.layers.dropout(x)
    d2 = tf.layers.dropout(x, rate=0.5, training=True)
    feed = np.ones([4, 50], np.float32)
    with tf.Session() as sess:
        v, v3, v2 = sess.run([d, d3, d2], {x: feed})
    return {"ops": _ops(tf)[:3], "outputs": [d.name, d3.name], "shape": str(d2.shape), "values": _val([v, v3]),
            "dropped": sorted(set(np.round(v2.reshape(-1), 4).tolist())) in ([0.0, 2.0], [2.0], [0.0])}


def batch_norm_dense(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    b = tf.layers.batch_normalization(x, training=True)
    b2 = tf.layers.batch_normalization(x, training=False, momentum=0.9, name="bn2")
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    feed = _feed_x([4, 3], 0.7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run([b, b2], {x: feed})
        sess.run(updates, {x: feed})
        moving = sess.run(["batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"])
    return {"graph": _graph(tf), "vars": _vars(tf), "trainable": _vars(tf, "trainable_variables"),
            "updates": [u.name for u in updates], "outputs": [b.name, b2.name], "values": [_r(v) for v in out],
            "moving": _r(moving)}


def batch_norm_fused(tf):
    x = tf.placeholder(tf.float32, [2, 2, 2, 3], name="x")
    b = tf.layers.batch_normalization(x, training=True, gamma_initializer=tf.constant_initializer(2.0))
    b2 = tf.layers.batch_normalization(x, training=False, name="bn2")
    b3 = tf.layers.batch_normalization(x, axis=1, training=False, name="bn3", center=False)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    feed = _feed_x([2, 2, 2, 3], 0.3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run([b, b2, b3], {x: feed})
        sess.run(updates, {x: feed})
        moving = sess.run(["batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"])
    return {"vars": _vars(tf), "updates": [u.name for u in updates], "outputs": [b.name, b2.name, b3.name],
            "values": [_r(v) for v in out], "moving": _r(moving),
            "fused": [o.name for o in tf.get_default_graph().get_operations() if o.type == "FusedBatchNormV3"]}


def batch_norm_fused_inference_graph(tf):
    x = tf.placeholder(tf.float32, [2, 2, 2, 3], name="x")
    tf.layers.batch_normalization(x, training=False)
    return {"graph": _graph(tf)}


def losses_values(tf):
    l = tf.placeholder(tf.float32, [2, 3], name="l")
    p = tf.placeholder(tf.float32, [2, 3], name="p")
    m = tf.losses.mean_squared_error(l, p)
    s = tf.losses.sparse_softmax_cross_entropy(tf.constant([0, 2]), p)
    s2 = tf.losses.softmax_cross_entropy(l, p)
    w = tf.Variable([1.0, -2.0], name="w")
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.nn.l2_loss(w))
    t = tf.losses.get_total_loss()
    r = tf.losses.get_regularization_loss()
    t2 = tf.losses.get_total_loss(add_regularization_losses=False, name="plain")
    grads = tf.gradients(t, [p, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run([m, s, s2, t, r, t2] + grads, {l: [[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]],
                                               p: [[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]})
    return {"outputs": [x.name for x in (m, s, s2, t, t2)], "losses": [x.name for x in tf.losses.get_losses()],
            "values": [_r(v) for v in vals]}


def _tf115_error(text):
    return {"error": ["ValueError", text]}


def _flatten_115(e):
    """TF 1.15's Flatten takes the batch from Shape when it is not static (2.x: a Const)."""
    g = e["result"]["graph"]
    i = g.index(["flatten/Const", "Const", "", None])
    g[i:i + 1] = [["flatten/Shape", "Shape", "", None], ["flatten/strided_slice/stack", "Const", "", None],
                  ["flatten/strided_slice/stack_1", "Const", "", None],
                  ["flatten/strided_slice/stack_2", "Const", "", None],
                  ["flatten/strided_slice", "StridedSlice", "", None], ["flatten/Reshape/shape/1", "Const", "", None],
                  ["flatten/Reshape/shape", "Pack", "", None]]
    g[g.index(["flatten_1/Const", "Const", "", None])][0] = "flatten_1/Reshape/shape"


def _fused_momentum_115(e):
    """TF 1.15's fused batch norm converts the momentum to a Const even when not training."""
    g = e["result"]["graph"]
    i = g.index(["batch_normalization/FusedBatchNormV3", "FusedBatchNormV3", "", None])
    g.insert(i + 1, ["batch_normalization/Const", "Const", "", None])


TF115 = {
    "dense_unknown_last_dim": _tf115_error("The last dimension of the inputs to `Dense` should be defined. "
                                           "Found `None`."),
    "dense_unknown_rank": _tf115_error("The last dimension of the inputs to `Dense` should be defined. "
                                       "Found `None`."),
    "conv_unknown_channels": _tf115_error("The channel dimension of the inputs should be defined. Found `None`."),
    "conv_pool_flatten": _flatten_115,
    "batch_norm_fused_inference_graph": _fused_momentum_115,
}

PROGRAMS = [colocate_with_devices, colocate_with_values, colocate_with_none, dense_graph_and_values,
            dense_names_and_reuse, dense_rank3_and_default_init, dense_unknown_last_dim, dense_unknown_rank,
            conv_pool_flatten, conv_unknown_channels, dropout_layers, batch_norm_dense, batch_norm_fused,
            batch_norm_fused_inference_graph, losses_values]
