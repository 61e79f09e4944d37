"""tf.image's geometry functions: resize methods by int and by name, crop_and_resize's
argument aliases, and the non_max_suppression family's outputs and node names."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def _graph():
    tf.reset_default_graph()


def _run(ts):
    with tf.Session() as s:
        return s.run(ts)


def test_resize_methods_by_int_and_by_name_build_the_same_op():
    x = tf.ones([1, 3, 3, 1])
    for m, name, op in ((2, "bicubic", "ResizeBicubic"), (3, "area", "ResizeArea"),
                        (0, "bilinear", "ResizeBilinear"), (1, "nearest", "ResizeNearestNeighbor")):
        assert tf.image.resize_images(x, [5, 4], method=m).op.type == op
        assert tf.image.resize(x, [5, 4], method=name).op.type == op


def test_resize_area_of_a_constant_image_is_the_constant():
    y = tf.image.resize_area(tf.fill([1, 5, 7, 2], 3.0), [2, 3])
    np.testing.assert_allclose(_run(y), np.full((1, 2, 3, 2), 3.0), rtol=1e-6)


def test_unknown_resize_method_is_a_value_error():
    with pytest.raises(ValueError, match="Resize method is not implemented."):
        tf.image.resize_images(tf.ones([1, 2, 2, 1]), [4, 4], method="lanczos9")


def test_crop_and_resize_takes_box_indices_but_not_both_names():
    img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    a = tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], box_indices=[0], crop_size=[4, 4])
    np.testing.assert_allclose(_run(a)[0, :, :, 0], np.arange(16.0).reshape(4, 4))
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2], box_indices=[0])


def test_non_max_suppression_keeps_the_lower_index_on_equal_scores():
    boxes = tf.constant([[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3]], tf.float32)
    sel = tf.image.non_max_suppression(boxes, tf.constant([0.5, 0.5, 0.4]), 3)
    assert sel.name == "non_max_suppression/NonMaxSuppressionV3:0"
    assert _run(sel).tolist() == [0, 2]


def test_iou_equal_to_the_threshold_is_not_suppressed():
    boxes = tf.constant([[0, 0, 1, 1], [0, 0, 1, 0.5]], tf.float32)  # IoU exactly 0.5
    assert _run(tf.image.non_max_suppression(boxes, tf.constant([0.9, 0.8]), 2, 0.5)).tolist() == [0, 1]
    assert _run(tf.image.non_max_suppression(boxes, tf.constant([0.9, 0.8]), 2, 0.49)).tolist() == [0]


def test_padded_and_with_scores_forms():
    boxes = tf.constant([[0, 0, 1, 1], [0, 0, 0.9, 1], [2, 2, 3, 3]], tf.float32)
    scores = tf.constant([0.9, 0.8, 0.3])
    idx, valid = tf.image.non_max_suppression_padded(boxes, scores, 5, pad_to_max_output_size=True)
    assert idx.shape.as_list() == [5] and valid.shape.ndims == 0
    i, v = _run([idx, valid])
    assert i.tolist() == [0, 2, 0, 0, 0] and v == 2
    s_idx, s_scores = tf.image.non_max_suppression_with_scores(boxes, scores, 3, soft_nms_sigma=0.5)
    i, s = _run([s_idx, s_scores])
    assert i.tolist() == [0, 1, 2]
    np.testing.assert_allclose(s, [0.9, 0.8 * np.exp(-0.81), 0.3], rtol=1e-5)


def test_bad_iou_threshold_is_invalid_argument():
    sel = tf.image.non_max_suppression(tf.ones([2, 4]), tf.ones([2]), 2, iou_threshold=2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"iou_threshold must be in \[0, 1\]"):
        _run(sel)


def test_nearest_neighbor_gradient_of_an_unknown_shape_slices_the_shape():
    x = tf.placeholder(tf.float32, [None, None, None, 1])
    y = tf.image.resize_nearest_neighbor(x, [4, 6])
    g = tf.gradients(y, x, grad_ys=tf.ones([1, 4, 6, 1]))[0]
    assert "StridedSlice" in [op.type for op in tf.get_default_graph().get_operations()]
    with tf.Session() as s:
        got = s.run(g, {x: np.zeros((1, 2, 3, 1), np.float32)})
    np.testing.assert_allclose(got[0, :, :, 0], np.full((2, 3), 4.0))  # each pixel read 2 x 2 times
