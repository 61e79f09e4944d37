"""tf.nn.convolution in 1 and 3 spatial dims, tf.nn.conv3d / conv3d_transpose / max_pool3d /
avg_pool3d: values against a direct numpy convolution and pooling (1e-4 relative), the nodes
each builds (as TensorFlow names them), gradients through tf.gradients, and the errors of bad
arguments (ValueError when the graph is built, TF's InvalidArgumentError / UnimplementedError
texts from the kernels)."""
import itertools

import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    tf.reset_default_graph()


def _run(ts, feeds=None):
    with tf.Session() as s:
        return s.run(ts, feeds)


def _rand(shape, seed):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def _windows(in_sp, k, stride, dil, padding):
    """TF's output sizes and leading paddings for each spatial dim."""
    out, before = [], []
    for i, kk, s, d in zip(in_sp, k, stride, dil):
        eff = (kk - 1) * d + 1
        if padding == "SAME":
            o = -(-i // s)
            before.append(max(0, (o - 1) * s + eff - i) // 2)
        else:
            o = (i - eff) // s + 1
            before.append(0)
        out.append(o)
    return out, before


def _np_conv(x, w, stride, dil, padding):
    """Channels-last convolution of any spatial rank, straight from the definition."""
    n, in_sp, ic = x.shape[0], x.shape[1:-1], x.shape[-1]
    k, oc = w.shape[:-2], w.shape[-1]
    out_sp, before = _windows(in_sp, k, stride, dil, padding)
    y = np.zeros([n] + out_sp + [oc], np.float64)
    for o in itertools.product(*[range(v) for v in out_sp]):
        for t in itertools.product(*[range(v) for v in k]):
            pos = [o[i] * stride[i] - before[i] + t[i] * dil[i] for i in range(len(k))]
            if all(0 <= p < lim for p, lim in zip(pos, in_sp)):
                y[(slice(None),) + o] += x[(slice(None),) + tuple(pos)].astype(np.float64) @ w[t]
    return y


def _np_pool(x, k, stride, padding, is_max):
    out_sp, before = _windows(x.shape[1:-1], k, stride, [1] * len(k), padding)
    y = np.zeros([x.shape[0]] + out_sp + [x.shape[-1]], np.float64)
    for o in itertools.product(*[range(v) for v in out_sp]):
        sl = tuple(slice(max(0, o[i] * stride[i] - before[i]), o[i] * stride[i] - before[i] + k[i])
                   for i in range(len(k)))
        win = x[(slice(None),) + sl].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None),) + o] = win.max(1) if is_max else win.mean(1)
    return y


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize("padding,strides,dil", [("SAME", 1, 1), ("VALID", 2, 1), ("SAME", 1, 2), ("VALID", 1, 3)])
def test_convolution_1d_values_and_nodes(padding, strides, dil):
    x, w = _rand([2, 11, 3], 1), _rand([3, 3, 4], 2)
    y = tf.nn.convolution(tf.constant(x), tf.constant(w), padding, strides=[strides], dilation_rate=[dil])
    types = [op.type for op in tf.get_default_graph().get_operations()]
    assert "Conv2D" in types and "Squeeze" in types and types.count("ExpandDims") == 2
    assert ("SpaceToBatchND" in types) == (dil > 1)
    assert y.op.type == ("BatchToSpaceND" if dil > 1 else "Squeeze")
    assert tf.get_default_graph().get_operation_by_name("convolution").type == "Conv2D"
    _close(_run(y), _np_conv(x, w, [strides], [dil], padding))


@pytest.mark.parametrize("padding,strides,dil", [("SAME", (1, 1, 1), (1, 1, 1)), ("VALID", (2, 1, 3), (1, 1, 1)),
                                                 ("SAME", (1, 1, 1), (2, 1, 2)), ("VALID", (1, 1, 1), (1, 3, 2))])
def test_convolution_3d_values_and_nodes(padding, strides, dil):
    x, w = _rand([2, 6, 7, 8, 2], 3), _rand([2, 3, 2, 2, 3], 4)
    y = tf.nn.convolution(tf.constant(x), tf.constant(w), padding, strides=list(strides), dilation_rate=list(dil))
    conv = tf.get_default_graph().get_operation_by_name("convolution")
    assert conv.type == "Conv3D"
    assert conv.get_attr("padding") == (b"VALID" if max(dil) > 1 else padding.encode())
    assert y.op.type == ("BatchToSpaceND" if max(dil) > 1 else "Conv3D")
    _close(_run(y), _np_conv(x, w, strides, dil, padding))


def test_conv3d_dilations_attr_runs_on_the_cpu():
    """TF's oneDNN CPU kernels (and tfc's) take dilations directly; Eigen's refuse them."""
    x, w = _rand([1, 7, 6, 6, 2], 5), _rand([2, 2, 2, 2, 3], 6)
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 1, 2, 1])
    assert y.op.name == "Conv3D"
    _close(_run(y), _np_conv(x, w, [1, 1, 1], [2, 1, 2], "SAME"))


def test_conv3d_gradients_match_the_transposed_convolution():
    x, w = _rand([2, 5, 4, 6, 2], 7), _rand([3, 2, 2, 2, 3], 8)
    xt, wt = tf.constant(x), tf.constant(w)
    y = tf.nn.conv3d(xt, wt, [1, 2, 1, 2, 1], "SAME")
    dy = _rand(y.shape.as_list(), 9)
    dx, dw = tf.gradients(y, [xt, wt], grad_ys=tf.constant(dy))
    assert dx.op.type == "Conv3DBackpropInputV2" and dw.op.type == "Conv3DBackpropFilterV2"
    assert dx.op.name == "gradients/Conv3D_grad/Conv3DBackpropInputV2"
    assert dx.op.inputs[0].op.type == "ShapeN"
    t = tf.nn.conv3d_transpose(tf.constant(dy), wt, list(x.shape), [1, 2, 1, 2, 1], "SAME")
    assert t.op.name == "conv3d_transpose" and t.op.inputs[0].op.name == "conv3d_transpose/input_sizes"
    gx, gw, tx = _run([dx, dw, t])
    np.testing.assert_allclose(gx, tx, rtol=1e-5, atol=1e-6)
    # d(sum(y * dy))/dw, from the definition: the correlation of x with dy.
    want = np.zeros(w.shape)
    for t_ in itertools.product(*[range(v) for v in w.shape[:3]]):
        e = np.zeros(w.shape, np.float32)
        e[t_] = 1
        for i in range(w.shape[3]):
            for o in range(w.shape[4]):
                e2 = np.zeros(w.shape, np.float32)
                e2[t_ + (i, o)] = 1
                want[t_ + (i, o)] = (_np_conv(x, e2, [2, 1, 2], [1, 1, 1], "SAME") * dy).sum()
    _close(gw, want)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool3d_values_and_gradients(padding):
    x = _rand([2, 5, 6, 7, 3], 10)
    xt = tf.constant(x)
    mx = tf.nn.max_pool3d(xt, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1], padding)
    av = tf.nn.avg_pool3d(xt, 3, 2, padding)
    assert (mx.op.name, mx.op.type, av.op.name, av.op.type) == ("MaxPool3D", "MaxPool3D", "AvgPool3D", "AvgPool3D")
    assert av.op.get_attr("ksize") == [1, 3, 3, 3, 1]
    dmx, dav = tf.gradients(mx, xt)[0], tf.gradients(av, xt)[0]
    assert (dmx.op.type, dav.op.type) == ("MaxPool3DGrad", "AvgPool3DGrad")
    m, a, gm, ga = _run([mx, av, dmx, dav])
    _close(m, _np_pool(x, [2, 3, 2], [2, 2, 1], padding, True))
    _close(a, _np_pool(x, [3, 3, 3], [2, 2, 2], padding, False))
    assert gm.sum() == pytest.approx(m.size)  # one unit per window, at its (untied) maximum
    assert ga.sum() == pytest.approx(a.size, rel=1e-5)  # each window spreads one unit


def test_bad_arguments_raise_tensorflows_value_errors():
    x, w = tf.zeros([1, 5, 6, 7, 2]), tf.zeros([2, 2, 2, 2, 3])
    with pytest.raises(ValueError, match=r"^dilations should be of length 1, 3 or 5\. Received: dilations=\[2, 2\]"):
        tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 2])
    with pytest.raises(ValueError, match=r"^`num_spatial_dims` must be 1, 2, or 3\. Received: num_spatial_dims=4\.$"):
        tf.nn.convolution(tf.zeros([1, 2, 2, 2, 2, 1]), tf.zeros([1, 1, 1, 1, 1, 1]), "SAME")
    with pytest.raises(ValueError, match=r"^`strides > 1` not supported in conjunction with `dilation_rate > 1`"):
        tf.nn.convolution(x, w, "SAME", strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match=r"^Shape must be rank 5 but is rank 4"):
        tf.nn.conv3d(tf.zeros([5, 6, 7, 2]), w, [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"^ksize should be of length 1, 3 or 5\. Received: ksize=\[2, 2\]"):
        tf.nn.max_pool3d(x, [2, 2], 1, "SAME")


def test_kernels_refuse_with_tensorflows_errors():
    x = tf.placeholder(tf.float32)
    w = tf.constant(_rand([2, 2, 2, 2, 3], 1))
    feed = {x: _rand([1, 2, 4, 4, 4], 2)}
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="CPU implementation of Conv3D currently only supports the NHWC tensor format."):
        _run(tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME", data_format="NCDHW"), feed)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Current implementation does not yet support strides in the batch and depth dimensions."):
        _run(tf.nn.conv3d(x, w, [2, 1, 1, 1, 1], "SAME"), feed)
    with pytest.raises(tf.errors.UnimplementedError, match="Pooling is not yet supported on the batch dimension."):
        _run(tf.nn.max_pool3d(x, [2, 1, 1, 1, 1], 1, "SAME"), feed)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Default Pooling3DOp only supports NDHWC on device type CPU"):
        _run(tf.nn.avg_pool3d(x, 2, 2, "SAME", data_format="NCDHW"), feed)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input and filter must have the same depth: 4 vs 2"):
        _run(tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME"), feed)
