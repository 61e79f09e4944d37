"""tf.colocate_with, tf.layers, tf.contrib.layers and tf.losses (TF 1.15's names, defaults,
collections and errors); the graphs and values beside TensorFlow's are programs_layers.py's."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _cls(op):
    try:
        return op.get_attr("_class")
    except ValueError:
        return None


# ---------------- colocation ----------------

def test_colocate_with_sets_class_and_device_and_resets_device_stack():
    with tf.device("/cpu:1"):
        a = tf.constant(1.0, name="a")
    n = tf.constant(0.0, name="n")
    with tf.device("/job:w/gpu:2"):
        with tf.colocate_with(a):
            b = tf.identity(a, name="b")
        c = tf.identity(a, name="c")
        with tf.colocate_with(n):
            d = tf.identity(a, name="d")        # n has no device: the outer tf.device is reset
    assert (b.op.device, _cls(b.op)) == ("/device:CPU:1", [b"loc:@a"])
    assert (c.op.device, _cls(c.op)) == ("/job:w/device:GPU:2", None)
    assert (d.op.device, _cls(d.op)) == ("", [b"loc:@n"])
    assert b.op.colocation_groups() == [b"loc:@a"] and c.op.colocation_groups() == [b"loc:@c"]


def test_colocate_with_nests_and_ignore_existing():
    a, b = tf.constant(1.0, name="a"), tf.constant(2.0, name="b")
    with tf.colocate_with(b.op):
        with tf.colocate_with(a):
            x = tf.identity(a, name="x")
            with tf.colocate_with(a, ignore_existing=True):
                y = tf.identity(a, name="y")
            with tf.colocate_with(None, ignore_existing=True):
                z = tf.identity(a, name="z")
    assert _cls(x.op) == [b"loc:@a", b"loc:@b"]
    assert _cls(y.op) == [b"loc:@a"]
    assert _cls(z.op) is None


def test_colocate_with_variable_and_graph_method():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        with g.colocate_with(w):
            r = tf.multiply(w, 2.0, name="r")
    assert _cls(r.op) == [b"loc:@w"]
    assert _cls(w.op.graph.get_operation_by_name("w/read")) == [b"loc:@w"]


def test_colocate_with_none_is_tf_error():
    with pytest.raises(ValueError, match=r"^Trying to reset colocation \(op is None\) but ignore_existing "
                                         r"is not True$"):
        with tf.colocate_with(None):
            pass


def test_placer_follows_python_colocation(capfd):
    # y asks for /cpu:1 and is colocated with x (no device): the group, x included, goes there
    x = tf.constant([1.0, 2.0], name="x")
    with tf.colocate_with(x):
        with tf.device("/cpu:1"):
            y = tf.identity(x, name="y")
    z = tf.identity(y, name="z")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=True)) as s:
        assert s.run(z).tolist() == [1.0, 2.0]
    out = capfd.readouterr().out
    dev = "/job:localhost/replica:0/task:0/device:"
    for line in ("x: (Const): %sCPU:1" % dev, "y: (Identity): %sCPU:1" % dev, "z: (Identity): %sCPU:0" % dev):
        assert line in out.splitlines()


# ---------------- tf.layers ----------------

def _names(prefix=""):
    return [op.name for op in tf.get_default_graph().get_operations() if op.name.startswith(prefix)]


def _run(fetches, feed=None, init=True):
    with tf.Session() as s:
        if init:
            s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


def test_dense_default_names_initializers_and_collections():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.layers.dense(x, 5, activation=tf.nn.relu)
    y2 = tf.layers.dense(y, 2)
    assert [v.name for v in tf.trainable_variables()] == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0",
                                                         "dense_1/bias:0"]
    assert (y.name, y2.name, str(y.shape)) == ("dense/Relu:0", "dense_1/BiasAdd:0", "(?, 5)")
    assert "dense/kernel/Initializer/random_uniform/RandomUniform" in _names()
    k, b = _run(["dense/kernel:0", "dense/bias:0"])
    assert np.all(np.abs(k) <= np.sqrt(6.0 / 8)) and np.std(k) > 0.1 and b.tolist() == [0.0] * 5


def test_dense_errors_are_tf115s():
    with pytest.raises(ValueError, match=r"^The last dimension of the inputs to `Dense` should be defined\. "
                                         r"Found `None`\.$"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        tf.layers.dense(tf.placeholder(tf.float32, [3]), 2)
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        tf.layers.Dense(2, bogus=1)
    with pytest.raises(ValueError, match=r"^None values not supported\.$"):
        tf.layers.dense(None, 2)
    y = tf.layers.dense(np.ones([1, 2], np.float32), 1, kernel_initializer=tf.ones_initializer())
    assert _run([y])[0].tolist() == [[2.0]]


def test_dense_class_shares_its_variables_across_calls():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    layer = tf.layers.Dense(3, kernel_initializer=tf.ones_initializer(), bias_initializer=tf.constant_initializer(1.0))
    a, b = layer(x), layer.apply(x * 2.0)
    assert (a.name, b.name) == ("dense/BiasAdd:0", "dense/BiasAdd_1:0")
    assert [v.name for v in layer.trainable_weights] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.weights == layer.variables and layer.non_trainable_weights == []
    assert len(tf.global_variables()) == 2 and layer.built
    va, vb = _run([a, b], {x: [[1.0, 2.0]]})
    assert va.tolist() == [[4.0] * 3] and vb.tolist() == [[7.0] * 3]


def test_dense_name_reuse_and_variable_scope():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):
        a = tf.layers.dense(x, 2, name="fc")
        b = tf.layers.dense(x, 2, name="fc")
    assert (a.name, b.name) == ("tower/fc/BiasAdd:0", "tower/fc_1/BiasAdd:0")
    assert [v.name for v in tf.global_variables()] == ["tower/fc/kernel:0", "tower/fc/bias:0"]
    with pytest.raises(ValueError, match=r"^Variable tower/nope/kernel does not exist"):
        with tf.variable_scope("tower"):
            tf.layers.dense(x, 2, name="nope", reuse=True)
    with pytest.raises(ValueError, match=r"^Variable tower/fc/kernel already exists, disallowed"):
        with tf.variable_scope("tower"):
            tf.layers.dense(x, 2, name="fc")


def test_dense_regularizer_adds_to_regularization_losses_once():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    reg = tf.contrib.layers.l2_regularizer(0.5)
    layer = tf.layers.Dense(1, kernel_initializer=tf.ones_initializer(), kernel_regularizer=reg, name="d")
    layer(x)
    layer(x)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["d/kernel/Regularizer/l2_regularizer:0"] and layer.losses == losses
    assert _run(losses) == [0.5]   # 0.5 * (1 + 1) / 2


def test_conv_pool_flatten_shapes_and_values():
    x = tf.placeholder(tf.float32, [None, 4, 4, 1], name="x")
    c = tf.layers.conv2d(x, 2, 2, kernel_initializer=tf.ones_initializer(), bias_initializer=tf.ones_initializer())
    p = tf.layers.max_pooling2d(c, 3, 1)
    a = tf.layers.AveragePooling2D(2, 1, padding="same")(c)
    f = tf.layers.flatten(p)
    assert [str(t.shape) for t in (c, p, a, f)] == ["(?, 3, 3, 2)", "(?, 1, 1, 2)", "(?, 3, 3, 2)", "(?, 2)"]
    assert [t.op.type for t in (c, p, a, f)] == ["BiasAdd", "MaxPool", "AvgPool", "Reshape"]
    feed = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    vf, = _run([f], {x: feed})
    assert vf.tolist() == [[51.0, 51.0]]   # the largest 2x2 window sum (10+11+14+15) plus the bias 1
    with pytest.raises(ValueError, match=r"^The `padding` argument must be one of \"valid\", \"same\""):
        tf.layers.conv2d(x, 2, 2, padding="full")


def test_dropout_training_flag_and_tensor():
    x = tf.placeholder(tf.float32, [1, 400], name="x")
    off = tf.layers.dropout(x, rate=0.5)
    t = tf.placeholder(tf.bool, [], name="t")
    on = tf.layers.dropout(x, rate=0.5, training=t)
    assert off.op.type == "Identity" and on.name == "dropout_1/cond/Merge:0"
    ones = np.ones([1, 400], np.float32)
    v_off, v_train, v_eval = _run([off, on, on], {x: ones, t: True}, init=False)[0], None, None
    with tf.Session() as s:
        v_train = s.run(on, {x: ones, t: True})
        v_eval = s.run(on, {x: ones, t: False})
    assert v_off.tolist() == ones.tolist() and v_eval.tolist() == ones.tolist()
    assert set(np.unique(v_train).tolist()) == {0.0, 2.0}


def test_batch_normalization_moving_averages_follow_update_ops():
    x = tf.placeholder(tf.float32, [4, 2], name="x")
    y = tf.layers.batch_normalization(x, training=True, momentum=0.5)
    loss = tf.reduce_sum(y * y)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [u.name for u in updates] == ["batch_normalization/AssignMovingAvg",
                                         "batch_normalization/AssignMovingAvg_1"]
    assert updates[0].colocation_groups() == [b"loc:@batch_normalization/moving_mean"]
    with tf.control_dependencies(updates):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    assert [v.name for v in tf.trainable_variables()] == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
    assert [v.name for v in tf.global_variables()][2:] == ["batch_normalization/moving_mean:0",
                                                           "batch_normalization/moving_variance:0"]
    feed = np.array([[1, 2], [3, 4], [5, 6], [7, 12]], np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out = s.run(y, {x: feed})
        s.run(train, {x: feed})
        mm, mv = s.run(["batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"])
    mean, var = feed.mean(0), feed.var(0)
    np.testing.assert_allclose(out, (feed - mean) / np.sqrt(var + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(mm, 0.5 * mean, rtol=1e-6)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * var, rtol=1e-6)


def test_batch_normalization_fused_training_graph_is_tf115s():
    x = tf.placeholder(tf.float32, [2, 2, 2, 3], name="x")
    tf.layers.batch_normalization(x, training=True)
    ops = [n for n in _names("batch_normalization/") if "/gamma" not in n and "/beta" not in n
           and "/moving_" not in n]
    avg = ["sub/x", "sub", "sub_1", "mul"]
    assert ops == (["batch_normalization/Const", "batch_normalization/Const_1", "batch_normalization/FusedBatchNormV3",
                    "batch_normalization/Const_2"]
                   + ["batch_normalization/AssignMovingAvg/" + n for n in avg] + ["batch_normalization/AssignMovingAvg"]
                   + ["batch_normalization/AssignMovingAvg_1/" + n for n in avg]
                   + ["batch_normalization/AssignMovingAvg_1"])


def test_batch_normalization_training_tensor_and_inference():
    x = tf.placeholder(tf.float32, [3, 1], name="x")
    t = tf.placeholder_with_default(False, [], name="t")
    y = tf.layers.batch_normalization(x, training=t, center=False, scale=False, epsilon=0.0)
    assert [v.name for v in tf.global_variables()] == ["batch_normalization/moving_mean:0",
                                                       "batch_normalization/moving_variance:0"]
    feed = np.array([[1.0], [2.0], [3.0]], np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(y, {x: feed}).tolist() == feed.tolist()           # moving stats 0 and 1
        np.testing.assert_allclose(s.run(y, {x: feed, t: True}).ravel(), [-1.224745, 0.0, 1.224745], rtol=1e-5)


# ---------------- tf.contrib.layers ----------------

def test_contrib_layers_names_collections_and_reuse():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    c = tf.contrib.layers.conv2d(x, 3, [3, 3], variables_collections=["mine"], outputs_collections="outs")
    p = tf.contrib.layers.max_pool2d(c, [2, 2])
    f = tf.contrib.layers.flatten(p)
    h = tf.contrib.layers.fully_connected(f, 4, scope="fc")
    h2 = tf.contrib.layers.fully_connected(f, 4, scope="fc", reuse=True)
    o = tf.contrib.layers.fully_connected(h, 2, activation_fn=None)
    assert [t.name for t in (c, p, f, h, h2, o)] == ["Conv/Relu:0", "MaxPool2D/MaxPool:0", "Flatten/flatten/Reshape:0",
                                                    "fc/Relu:0", "fc_1/Relu:0", "fully_connected/BiasAdd:0"]
    names = ["Conv/weights:0", "Conv/biases:0", "fc/weights:0", "fc/biases:0", "fully_connected/weights:0",
             "fully_connected/biases:0"]
    assert [v.name for v in tf.global_variables()] == names
    assert [v.name for v in tf.model_variables()] == names
    assert [v.name for v in tf.get_collection("mine")] == names[:2]
    assert tf.get_collection("outs") == [c] and c.alias == "Conv"
    assert str(p.shape) == "(?, 3, 3, 3)" and str(f.shape) == "(?, 27)"
    w = tf.get_default_graph().get_tensor_by_name("fc/weights:0")
    wv, = _run([w])
    assert np.all(np.abs(wv) <= np.sqrt(6.0 / (27 + 4)))
    with pytest.raises(ValueError, match=r"^num_outputs should be int or long, got 2\.0\.$"):
        tf.contrib.layers.fully_connected(f, 2.0)


def test_contrib_dropout_avg_pool_and_linear():
    x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
    a = tf.contrib.layers.avg_pool2d(x, [2, 2])
    d = tf.contrib.layers.dropout(x, keep_prob=0.5)
    e = tf.contrib.layers.dropout(x, is_training=False)
    f = tf.contrib.layers.linear(tf.contrib.layers.flatten(a), 1, weights_initializer=tf.ones_initializer())
    assert (a.name, e.name, f.name) == ("AvgPool2D/AvgPool:0", "Dropout_1/Identity:0", "fully_connected/BiasAdd:0")
    assert d.name.startswith("Dropout/dropout_1/")   # as TF: the layer took "Dropout/Dropout" (names ignore case)
    feed = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    va, vd, vf = _run([a, d, f], {x: feed + 1})
    assert va.ravel().tolist() == [3.5, 5.5, 11.5, 13.5] and vf.tolist() == [[34.0]]
    assert all(v in (0.0, 2 * (i + 1)) for i, v in enumerate(vd.ravel().tolist()))


def test_contrib_regularizers():
    w = tf.constant([[1.0, -2.0], [3.0, -4.0]], name="w")
    l1 = tf.contrib.layers.l1_regularizer(0.5)(w)
    both = tf.contrib.layers.sum_regularizer([tf.contrib.layers.l1_regularizer(1.0), None,
                                              tf.contrib.layers.l2_regularizer(1.0)])(w)
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, w)
    pen = tf.contrib.layers.apply_regularization(tf.contrib.layers.l1_regularizer(0.1))
    assert (l1.name, l1.op.type, both.name, both.op.type, pen.name) == (
        "l1_regularizer:0", "Mul", "sum_regularizer:0", "AddN", "get_regularization_penalty:0")
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [pen]
    np.testing.assert_allclose(_run([l1, both, pen], init=False), [5.0, 25.0, 1.0], rtol=1e-6)
    assert tf.contrib.layers.sum_regularizer([None]) is None
    assert tf.contrib.layers.l1_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match=r"^scale cannot be an integer: 1$"):
        tf.contrib.layers.l1_regularizer(1)
    with pytest.raises(ValueError, match=r"^Setting a scale less than 0 on a regularizer: -1\.$"):
        tf.contrib.layers.l1_regularizer(-1.)
    tf.reset_default_graph()
    with pytest.raises(ValueError, match=r"^No weights to regularize\.$"):
        tf.contrib.layers.apply_regularization(tf.contrib.layers.l1_regularizer(0.1))


def test_contrib_initializers():
    init = tf.contrib.layers.variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=True)
    u = tf.get_variable("u", [3, 3, 8, 16], initializer=init)
    n = tf.get_variable("n", [50, 40], initializer=tf.contrib.layers.xavier_initializer_conv2d(uniform=False))
    uv, nv = _run([u, n])
    assert np.all(np.abs(uv) <= np.sqrt(3.0 * 2.0 / (3 * 3 * 8))) and np.abs(uv).max() > 0.5 * np.sqrt(6 / 72.)
    assert np.all(np.abs(nv) <= 2 * np.sqrt(1.3 / 45.0)) and "n/Initializer/truncated_normal" in _names()
    with pytest.raises(TypeError, match="Cannot create initializer for non-floating point type"):
        tf.contrib.layers.variance_scaling_initializer(dtype=tf.int32)


# ---------------- tf.losses ----------------

def test_losses_zero_weights_give_zero_not_nan_and_train():
    x = tf.placeholder(tf.float32, [4, 2], name="x")
    labels = tf.constant([0, 1, 1, 0])
    logits = tf.layers.dense(x, 2, kernel_initializer=tf.zeros_initializer())
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    zero = tf.losses.mean_squared_error(tf.zeros([4, 2]), x, weights=0.0)
    assert tf.losses.get_losses() == [loss, zero]
    total = tf.losses.get_total_loss()
    g_zero = tf.gradients(zero, [x])[0]
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    feed = {x: [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first, z, gz, t = s.run([loss, zero, g_zero, total], feed)
        for _ in range(5):
            s.run(train, feed)
        last = s.run(loss, feed)
    assert abs(first - np.log(2.0)) < 1e-6 and z == 0.0 and gz.tolist() == [[0.0] * 2] * 4
    assert abs(t - first) < 1e-6 and last < first / 3


def test_losses_errors():
    tf.losses.Reduction.validate(tf.losses.Reduction.SUM)
    with pytest.raises(ValueError, match=r"^Invalid Reduction Key bogus\.$"):
        tf.losses.compute_weighted_loss(tf.constant([1.0]), reduction="bogus")
    with pytest.raises(ValueError, match=r"^labels must not be None\.$"):
        tf.losses.mean_squared_error(None, tf.constant([1.0]))
    with pytest.raises(ValueError, match="inputs must be a list of at least one"):
        tf.losses.get_total_loss()
    assert tf.losses.get_regularization_loss().op.type == "Const"


def test_contrib_batch_norm_fused_2d_and_core_4d():
    x = tf.placeholder(tf.float32, [4, 2], name="x")
    y = tf.contrib.layers.batch_norm(x, decay=0.5)
    x4 = tf.placeholder(tf.float32, [2, 2, 2, 3], name="x4")
    y4 = tf.contrib.layers.batch_norm(x4, scale=True, is_training=False)
    assert (y.name, y4.name) == ("BatchNorm/Reshape_1:0", "BatchNorm_1/FusedBatchNormV3:0")
    assert [v.name for v in tf.model_variables()] == [
        "BatchNorm/beta:0", "BatchNorm/moving_mean:0", "BatchNorm/moving_variance:0", "BatchNorm_1/gamma:0",
        "BatchNorm_1/beta:0", "BatchNorm_1/moving_mean:0", "BatchNorm_1/moving_variance:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [u.name for u in updates] == ["BatchNorm/AssignMovingAvg:0", "BatchNorm/AssignMovingAvg_1:0"]
    feed = np.array([[1, 2], [3, 4], [5, 6], [7, 12]], np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out = s.run(y, {x: feed})
        s.run(updates, {x: feed})
        mm, mv = s.run(["BatchNorm/moving_mean:0", "BatchNorm/moving_variance:0"])
    np.testing.assert_allclose(out, (feed - feed.mean(0)) / np.sqrt(feed.var(0) + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(mm, 0.5 * feed.mean(0), rtol=1e-6)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * feed.var(0, ddof=1), rtol=1e-6)   # fused: Bessel-corrected
    forced = tf.contrib.layers.batch_norm(x, updates_collections=None, scope="forced")
    assert forced.op.type == "Reshape" and len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2
    with pytest.raises(NotImplementedError, match="need a 2-D or 4-D input"):   # TF's unfused contrib path
        tf.contrib.layers.batch_norm(tf.placeholder(tf.float32, [2, 2, 2], name="x3"), updates_collections=None)


def test_training_given_as_a_constant_tensor_is_decided_at_build_time():
    # A Const False must read as False (its TensorProto holds the value, not non-empty bytes).
    x = tf.ones([2, 2])
    off = tf.layers.dropout(x, 0.5, training=tf.constant(False))
    on = tf.layers.dropout(x, 0.999, training=tf.constant(True))
    assert "cond" not in off.name and "cond" not in on.name
    assert tf.get_static_value(tf.constant([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert tf.get_static_value(tf.placeholder(tf.float32)) is None
    with tf.Session() as s:
        a, b = s.run([off, on])
    assert (a == 1.0).all() and (b != 1.0).any()
