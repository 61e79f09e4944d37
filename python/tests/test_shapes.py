"""Static shapes from computed shape tensors (the idioms TF's graph construction resolves at
build time) and the errors that machinery raises; programs_shapes.py compares the same idioms
with TensorFlow's recording."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


def _dims(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def test_reshape_by_stacked_shape_slices():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 5])
        flat = tf.reshape(x, [-1, tf.shape(x)[1] * tf.shape(x)[2]])
        assert _dims(flat) == [None, 20]
        # two unknowns in the request: nothing to infer
        assert _dims(tf.reshape(x, tf.stack([tf.shape(x)[0], -1]))) == [None, None]
        # the input's size known: the one -1 is inferred from it
        k = tf.placeholder(tf.float32, [2, 4, 5])
        assert _dims(tf.reshape(k, tf.stack([tf.shape(k)[1], -1]))) == [4, 10]
        split = tf.reshape(x, tf.concat([tf.shape(x)[:-1], [5, -1]], 0))
        assert _dims(split) == [None, 4, 5, None]
        with tf.Session() as s:
            out = s.run(flat, {x: np.zeros((3, 4, 5), np.float32)})
        assert out.shape == (3, 20)


def test_zeros_fill_ones_follow_the_shape_of_a_tensor():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 5])
        assert _dims(tf.zeros(tf.shape(x))) == [None, 4, 5]
        assert _dims(tf.ones(tf.shape(x)[1:])) == [4, 5]
        assert _dims(tf.fill(tf.stack([tf.shape(x)[0], 7]), 1.0)) == [None, 7]
        assert _dims(tf.fill(tf.stack([tf.shape(x)[2] + 1, 7]), 1.0)) == [6, 7]
        assert _dims(tf.zeros(tf.cast(tf.shape(x), tf.int64))) == [None, 4, 5]
        # Identity is not read as a partial shape (TF evaluates it or knows only the length)
        assert _dims(tf.zeros(tf.identity(tf.shape(x)))) == [None, None, None]


def test_tile_and_broadcast_to_with_computed_multiples():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        u = tf.placeholder(tf.float32, None)
        assert _dims(tf.tile(x, tf.stack([2, tf.shape(x)[1]]))) == [None, 16]
        assert _dims(tf.tile(x, tf.stack([tf.shape(u)[0], 2]))) == [None, 8]
        assert _dims(tf.broadcast_to(x, tf.stack([3, tf.shape(x)[1]]))) == [3, 4]
        with tf.Session() as s:
            t = s.run(tf.tile(x, tf.stack([2, tf.shape(x)[1]])), {x: np.ones((1, 4), np.float32)})
        assert t.shape == (2, 16)


def test_constant_subgraphs_are_evaluated_and_failures_stay_unknown():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        assert _dims(tf.zeros(tf.range(1, 4))) == [1, 2, 3]
        assert _dims(tf.reshape(tf.placeholder(tf.float32, [None]), tf.constant([2, 3]) + 1)) == [3, 4]
        # integer division by zero: the kernel fails, the dim is unknown, the build goes on
        z = tf.zeros(tf.stack([tf.constant(1) // tf.constant(0), tf.shape(x)[1]]))
        assert _dims(z) == [None, 4]
        # placeholders (with default too) and stateful ops are never evaluated
        assert _dims(tf.zeros(tf.stack([tf.placeholder_with_default(2, []), 3]))) == [None, 3]
        r = tf.cast(tf.random_uniform([], 1, 2), tf.int32)
        assert _dims(tf.zeros(tf.stack([r, 3]))) == [None, 3]


def test_shape_tensor_errors_are_tensorflows():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 5])
        with pytest.raises(ValueError, match=r"^Subshape must have computed start >= end since stride is negative"):
            tf.zeros(tf.shape(x)[::-1])
        with pytest.raises(ValueError, match=r"^Subshape start out of bounds: -5, for shape with rank 3$"):
            tf.zeros(tf.shape(x)[-5:])
        with pytest.raises(ValueError, match=r"^Fill dimensions must be >= 0 for 'Fill' \(op: 'Fill'\)"):
            tf.fill(tf.stack([tf.shape(x)[1], -2]), 1.0)
        with pytest.raises(ValueError, match=r"^Invalid value in tensor used for shape: -2$"):
            tf.reshape(x, tf.constant([2, -2]))
