"""TF 2.x's resize (tf.compat.v2.image.resize) and the dilated convolutions built with
SpaceToBatchND / BatchToSpaceND: which ops each method and rate builds, the kernels' errors
through Session.run, and the ValueErrors of bad arguments."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    tf.reset_default_graph()


def _run(ts, feeds=None):
    with tf.Session() as s:
        return s.run(ts, feeds)


def test_each_v2_method_builds_tensorflows_op():
    x = tf.ones([1, 4, 4, 1])
    resize = tf.compat.v2.image.resize
    for method, antialias, op, kernel in (("lanczos3", False, "ScaleAndTranslate", b"lanczos3"),
                                          ("mitchellcubic", True, "ScaleAndTranslate", b"mitchellcubic"),
                                          ("bilinear", True, "ScaleAndTranslate", b"triangle"),
                                          ("bicubic", True, "ScaleAndTranslate", b"keyscubic"),
                                          ("bilinear", False, "ResizeBilinear", None),
                                          ("nearest", True, "ResizeNearestNeighbor", None),
                                          ("area", True, "ResizeArea", None)):
        y = resize(x, [6, 2], method=method, antialias=antialias)
        assert y.op.type == op
        if kernel is not None:
            assert y.op.get_attr("kernel_type") == kernel
            assert y.op.get_attr("antialias") == antialias
        else:
            assert not y.op.get_attr("align_corners")


def test_v2_resize_of_a_constant_image_is_the_constant():
    y = tf.compat.v2.image.resize(tf.fill([1, 5, 7, 2], 3.0), [9, 3], method="lanczos5", antialias=True)
    np.testing.assert_allclose(_run(y), np.full((1, 9, 3, 2), 3.0), rtol=1e-5)


def test_preserve_aspect_ratio_sizes_as_tensorflow():
    x = tf.ones([2, 5, 6, 3])
    assert tf.image.resize_images(x, [8, 20], preserve_aspect_ratio=True).shape.as_list() == [2, 8, 10, 3]
    assert tf.compat.v2.image.resize(x[0], [3, 3], preserve_aspect_ratio=True).shape.as_list() == [2, 3, 3]
    assert _run(tf.compat.v2.image.resize(x, [4, 100], preserve_aspect_ratio=True)).shape == (2, 4, 5, 3)


def test_scale_and_translate_errors_are_invalid_argument():
    x = tf.ones([1, 4, 4, 1])
    scale = tf.placeholder(tf.float32, [None])
    y = tf.raw_ops.ScaleAndTranslate(images=x, size=[2, 2], scale=scale, translation=[0.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Scale must be greater than zero."):
        _run(y, {scale: [0.5, -1.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"t must have two elements\[3\]"):
        _run(y, {scale: [0.5, 1.0, 2.0]})
    bad = tf.raw_ops.ScaleAndTranslate(images=x, size=[2, 2], scale=[0.5, 0.5], translation=[0.0, 0.0],
                                       kernel_type="cubic")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unrecognized kernel type: cubic"):
        _run(bad)


def test_unknown_v2_method_is_a_value_error():
    with pytest.raises(ValueError, match="Resize method is not implemented."):
        tf.compat.v2.image.resize(tf.ones([1, 2, 2, 1]), [4, 4], method="lanczos9")


def test_dilated_depthwise_has_no_dilations_attr():
    x = tf.ones([1, 9, 9, 2])
    w = tf.ones([3, 3, 2, 1])
    y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[2, 2])
    assert y.op.type == "BatchToSpaceND"
    conv = y.op.inputs[0].op
    assert conv.type == "DepthwiseConv2dNative" and conv.name == "depthwise"
    assert conv.get_attr("dilations") == [1, 1, 1, 1] and conv.get_attr("padding") == b"VALID"
    assert conv.inputs[0].op.type == "SpaceToBatchND"
    # the same values as the dilated op
    ref = tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
    a, b = _run([y, ref])
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_dilation_rate_must_be_positive():
    with pytest.raises(ValueError,
                       match=r"all values of `dilation_rate` must be positive. Received: dilation_rate=\[0 0\]"):
        tf.nn.atrous_conv2d(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 1]), 0, "SAME")
    with pytest.raises(ValueError, match=r"^`dilation_rate` must be positive. Received: dilation_rate=\[0 1\]"):
        tf.nn.depthwise_conv2d(tf.ones([1, 5, 5, 1]), tf.ones([3, 3, 1, 1]), [1, 1, 1, 1], "SAME", rate=[0, 1])
