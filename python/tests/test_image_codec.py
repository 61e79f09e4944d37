"""Focused tests of the image codecs (tfc/ops/image_codec_ops.py) beyond what
programs_image_codec.py compares with TensorFlow: the attrs each wrapper writes (TF's
defaults), a file pipeline (read_file -> decode -> resize-free use), round trips through a fed
placeholder, decode_image's dtypes, and the exception classes of bad input.
"""
import os

import numpy as np
import pytest

import tfc.compat.v1 as tf


def _img(h=6, w=10, c=3):
    return (np.arange(h * w * c).reshape(h, w, c) * 7 % 256).astype(np.uint8)


def test_wrappers_write_tf_defaults():
    c = tf.constant(b"x")
    j = tf.image.decode_jpeg(c)
    assert j.op.type == "DecodeJpeg" and j.dtype == tf.uint8 and j.shape.as_list() == [None, None, None]
    assert (j.op.get_attr("channels"), j.op.get_attr("ratio"), j.op.get_attr("fancy_upscaling"),
            j.op.get_attr("try_recover_truncated"), j.op.get_attr("acceptable_fraction"),
            j.op.get_attr("dct_method")) == (0, 1, True, False, 1.0, b"")
    assert tf.image.decode_png(c, channels=4).shape.as_list() == [None, None, 4]
    assert tf.io.decode_png(c, dtype=tf.uint16).dtype == tf.uint16
    e = tf.image.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8))
    assert e.shape.ndims == 0 and e.dtype == tf.string
    assert (e.op.get_attr("quality"), e.op.get_attr("density_unit"), e.op.get_attr("x_density"),
            e.op.get_attr("chroma_downsampling")) == (95, b"in", 300, True)
    assert tf.image.encode_png(tf.zeros([2, 2, 1], tf.uint16)).op.get_attr("compression") == -1
    assert tf.image.decode_image(c).shape.ndims is None
    assert tf.image.decode_image(c, channels=3, expand_animations=False).shape.as_list() == [None, None, 3]
    crop = tf.image.decode_and_crop_jpeg(c, [0, 0, 4, 5], channels=3)
    assert crop.shape.as_list() == [4, 5, 3]
    assert tf.io.extract_jpeg_shape is tf.image.extract_jpeg_shape


def test_files_decode_in_a_pipeline(tmp_path):
    img = _img()
    with tf.Session() as s:
        png, jpg = s.run([tf.image.encode_png(img), tf.image.encode_jpeg(img, quality=100, chroma_downsampling=False)])
    (tmp_path / "a.png").write_bytes(png)
    (tmp_path / "a.jpg").write_bytes(jpg)
    tf.reset_default_graph()
    name = tf.placeholder(tf.string, [])
    decoded = tf.image.decode_image(tf.read_file(name), channels=3, expand_animations=False)
    shape = tf.image.extract_jpeg_shape(tf.read_file(name))
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(decoded, {name: str(tmp_path / "a.png")}), img)
        got = s.run(decoded, {name: str(tmp_path / "a.jpg")})
        # IFAST on this high-frequency image: TensorFlow's own round trip is off by up to 24
        assert got.shape == img.shape and np.abs(got.astype(int) - img).max() <= 24
        assert list(s.run(shape, {name: str(tmp_path / "a.jpg")})) == [6, 10, 3]


def test_round_trip_through_a_feed():
    x = tf.placeholder(tf.uint16, [None, None, None])
    back = tf.image.decode_png(tf.image.encode_png(x, compression=9), dtype=tf.uint16)
    with tf.Session() as s:
        for c in (1, 2, 3, 4):
            v = (np.arange(5 * 7 * c).reshape(5, 7, c) * 997 % 65536).astype(np.uint16)
            np.testing.assert_array_equal(s.run(back, {x: v}), v)


def test_decode_image_dtypes():
    png = tf.image.encode_png(tf.constant(_img()))
    f = tf.image.decode_image(png, dtype=tf.float32)
    i = tf.image.decode_image(png, dtype=tf.int32)
    assert i.op.type != "DecodeImage"  # decoded at uint16, then convert_image_dtype
    with tf.Session() as s:
        fv, iv = s.run([f, i])
    np.testing.assert_allclose(fv, _img() / 255.0, atol=1e-6)
    assert iv.dtype == np.int32 and iv.max() > 2 ** 24


def test_bad_input_raises_tf_classes():
    p = tf.placeholder(tf.string, [])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input is empty"):
            s.run(tf.image.decode_jpeg(p), {p: b""})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid PNG data, size"):
            good = s.run(tf.image.encode_png(_img()))
            s.run(tf.image.decode_png(p), {p: good[:len(good) - 30]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid GIF data \(size 36\)"):
            s.run(tf.image.decode_image(p), {p: b"GIF89a" + bytes(30)})
    with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
        tf.image.encode_png(tf.zeros([2, 2], tf.uint8))
