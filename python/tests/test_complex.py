"""tf.complex / real / imag / conj / angle / abs and numpy complex feeds and fetches."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


def test_complex128_feed_fetch_round_trips():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.complex128, [3])
        y = x * tf.constant(np.array([1j, 2, -1 + 1j]))
        v = np.array([1 + 2j, -0.5j, 3.25 - 1j])
        with tf.Session() as s:
            got = s.run(y, {x: v})
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, v * np.array([1j, 2, -1 + 1j]), rtol=1e-12)


def test_parts_and_abs_build_tf_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.array([3 + 4j, -1j], np.complex64))
        r, i, a, c, ang = tf.real(x), tf.imag(x), tf.abs(x), tf.conj(x), tf.angle(x)
        assert [t.op.type for t in (r, i, a, c, ang)] == ["Real", "Imag", "ComplexAbs", "Conj", "Angle"]
        assert [t.dtype for t in (r, i, a, c, ang)] == [tf.float32] * 3 + [tf.complex64, tf.float32]
        with tf.Session() as s:
            vr, vi, va, vc, vang = s.run([r, i, a, c, ang])
    np.testing.assert_allclose(vr, [3, 0])
    np.testing.assert_allclose(vi, [4, -1])
    np.testing.assert_allclose(va, [5, 1])
    np.testing.assert_allclose(vc, [3 - 4j, 1j])
    np.testing.assert_allclose(vang, np.angle([3 + 4j, -1j]), rtol=1e-6)


def test_real_and_conj_of_real_tensors_are_the_tensor():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, -2.0])
        assert tf.conj(x) is x
        assert tf.real(x) is x
        assert tf.abs(x).op.type == "Abs"


def test_complex_rejects_mixed_types():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="real and imag have incorrect types: float32 float64"):
            tf.complex(tf.constant(1.0), tf.constant(2.0, tf.float64))
