"""tf.signal's and tf.spectral's transforms: values against numpy.fft, the ops and node names
TF's wrappers make (padding up to fft_length, fft_length inferred), TF's dtype errors, and a
gradient through rfft."""
import numpy as np
import pytest

import tfc.compat.v1 as tf

RNG = np.random.RandomState(7)


def _c(shape, dt=np.complex64):
    return (RNG.uniform(-2, 2, shape) + 1j * RNG.uniform(-2, 2, shape)).astype(dt)


@pytest.mark.parametrize("dt,tol", [(np.complex64, 1e-4), (np.complex128, 1e-10)])
def test_complex_transforms_match_numpy(dt, tol):
    x = _c([2, 3, 4, 5], dt)
    cases = [(tf.signal.fft, lambda v: np.fft.fft(v)), (tf.signal.ifft, lambda v: np.fft.ifft(v)),
             (tf.signal.fft2d, lambda v: np.fft.fft2(v)), (tf.signal.ifft2d, lambda v: np.fft.ifft2(v)),
             (tf.signal.fft3d, lambda v: np.fft.fftn(v, axes=(-3, -2, -1))),
             (tf.spectral.ifft3d, lambda v: np.fft.ifftn(v, axes=(-3, -2, -1)))]
    with tf.Graph().as_default():
        p = tf.placeholder(dt, x.shape)
        ys = [f(p) for f, _ in cases]
        assert [y.op.type for y in ys] == ["FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D"]
        assert ys[0].op.name == "FFT" and ys[0].dtype == tf.as_dtype(dt)
        with tf.Session() as s:
            got = s.run(ys, {p: x})
    for g, (_, ref) in zip(got, cases):
        np.testing.assert_allclose(g, ref(x), rtol=tol, atol=tol * 10)


def test_rfft_pads_and_names_like_tf():
    x = RNG.uniform(-1, 1, [2, 5]).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, [2, 5])
        y = tf.signal.rfft(p, [8])
        assert [(o.name, o.type) for o in g.get_operations()] == [
            ("Placeholder", "Placeholder"), ("rfft/Const", "Const"), ("rfft/Pad/paddings", "Const"),
            ("rfft/Pad", "Pad"), ("rfft/fft_length", "Const"), ("rfft", "RFFT")]
        assert y.shape.as_list() == [2, 5] and y.dtype == tf.complex64
        z = tf.signal.irfft(y)  # fft_length inferred: 2 * (5 - 1)
        assert z.shape.as_list() == [2, 8] and z.op.name == "irfft"
        c = tf.spectral.rfft2d(p, fft_length=[2, 3])  # crops
        with tf.Session() as s:
            vy, vz, vc = s.run([y, z, c], {p: x})
    np.testing.assert_allclose(vy, np.fft.rfft(x, 8), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(vz, np.fft.irfft(np.fft.rfft(x, 8), 8), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(vc, np.fft.rfft2(x, s=[2, 3]), rtol=1e-4, atol=1e-5)


def test_double_and_unknown_shapes():
    x = _c([3, 4], np.complex128)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.complex128, [None, None])
        y = tf.signal.irfft(p, [9])  # pads the innermost dim to 9 // 2 + 1 at run time
        r = tf.signal.rfft3d(tf.placeholder_with_default(np.ones([2, 3, 4]), [None, None, None]))
        assert y.dtype == tf.float64 and y.shape.as_list() == [None, 9]
        with tf.Session() as s:
            vy, vr = s.run([y, r], {p: x})
    np.testing.assert_allclose(vy, np.fft.irfft(x, 9), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(vr, np.fft.rfftn(np.ones([2, 3, 4])), rtol=1e-10, atol=1e-12)


def test_dtype_errors_are_tfs():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs, got: "):
            tf.signal.rfft(tf.constant([1, 2]))
        with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128 inputs, got: "):
            tf.signal.irfft(tf.constant([1.0, 2.0]))
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.signal.fft2d(tf.constant([1j, 2j], tf.complex64))


def test_rfft_gradient_matches_numpy():
    # d/dx sum(w * real(rfft(x))) = sum_k w_k cos(2 pi j k / n)
    n = 6
    x = RNG.uniform(-1, 1, [n])
    w = RNG.uniform(-1, 1, [n // 2 + 1])
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float64, [n])
        f = tf.reduce_sum(tf.real(tf.signal.rfft(p)) * w)
        (dx,) = tf.gradients(f, [p])
        with tf.Session() as s:
            got = s.run(dx, {p: x})
    j, k = np.meshgrid(np.arange(n), np.arange(n // 2 + 1), indexing="ij")
    np.testing.assert_allclose(got, (np.cos(2 * np.pi * j * k / n) * w).sum(axis=1), rtol=1e-10, atol=1e-12)
