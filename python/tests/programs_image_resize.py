"""TF programs of TF 2.x's resize (tf.compat.v2.image.resize: every method, antialias, 3-d and
4-d images, preserve_aspect_ratio; ScaleAndTranslate for the lanczos, gaussian and
mitchellcubic methods and for antialiased bilinear and bicubic), TF 1.x's
resize_images(preserve_aspect_ratio=True), and the dilated convolutions TF 1.x builds with
SpaceToBatchND / BatchToSpaceND (depthwise_conv2d and separable_conv2d with rate > 1,
atrous_conv2d, convolution with dilation_rate; known and unknown input shapes): node names and
op types, static shapes, values on fixed inputs, gradients, and the errors of bad arguments.
Recorded by gen_expectations.py into expectations_image_resize.json. Floats are rounded to 3
decimals (the convolutions' to 2: their sums differ from TF's in the last float bits).
"""
import numpy as np

from programs import _ops, _val


def _r(v, decimals=3):
    if isinstance(v, (list, tuple)):
        return [_r(x, decimals) for x in v]
    a = np.asarray(v)
    if a.dtype.kind == "f":
        r = _val(v)
        r["value"] = np.round(a.astype(np.float64), decimals).tolist()
        return r
    return _val(v)


def _img(tf, shape=(2, 5, 6, 2), scale=1.0):
    n = int(np.prod(shape))
    return tf.constant(((np.arange(n, dtype=np.float32).reshape(shape) * 7.3) % 23.0 - 5) * np.float32(scale))


def _out(tf, r, feeds=None, decimals=3):
    with tf.Session() as s:
        vals = s.run(r, feeds)
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(vals, decimals)}


def _grads(tf, ys, xs):
    """tf.gradients of sum(y * cos(y)) with explicit grad_ys (TF 2.x names its default ones
    apart from TF 1.x's)."""
    losses = [tf.reduce_sum(y * tf.cos(y)) for y in ys]
    return tf.gradients(losses, xs, grad_ys=[tf.constant(1.0) for _ in losses])


def resize_v2_methods(tf):
    x = _img(tf)
    resize = tf.compat.v2.image.resize
    r = []
    for m in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"):
        r.append(resize(x, [3, 9], method=m))
        r.append(resize(x, [7, 4], method=m, antialias=True))
    r.append(resize(x[0], [2, 2], method=tf.compat.v2.image.ResizeMethod.LANCZOS3, name="three_d"))
    r.append(resize(x, [5, 6]))
    r.append(resize(tf.cast(tf.abs(x), tf.uint8), [4, 3], method="gaussian"))
    return _out(tf, r)


def resize_v2_preserve_aspect_ratio(tf):
    x = _img(tf)
    resize = tf.compat.v2.image.resize
    r = [resize(x, [8, 20], preserve_aspect_ratio=True), resize(x[1], [3, 3], method="lanczos5",
                                                              preserve_aspect_ratio=True, antialias=True)]
    return _out(tf, r)


def resize_v1_preserve_aspect_ratio(tf):
    x = _img(tf)
    r = [tf.image.resize_images(x, [8, 20], preserve_aspect_ratio=True),
         tf.image.resize_images(x[0], [4, 4], method=tf.image.ResizeMethod.BICUBIC, preserve_aspect_ratio=True),
         tf.image.resize(x, [10, 12], preserve_aspect_ratio=True)]
    return _out(tf, r)


def resize_v2_unknown_shape(tf):
    p = tf.placeholder(tf.float32, [None, None, None, 2])
    resize = tf.compat.v2.image.resize
    r = [resize(p, [4, 3], method="mitchellcubic"), resize(p, [6, 6], preserve_aspect_ratio=True)]
    return _out(tf, r, {p: np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2) % 9})


def resize_v2_gradients(tf):
    x = _img(tf)
    resize = tf.compat.v2.image.resize
    ys = [resize(x, [3, 8], method="lanczos3"), resize(x, [7, 4], method="bilinear", antialias=True),
          resize(x, [4, 4], method="gaussian", antialias=False)]
    return _out(tf, _grads(tf, ys, [x]))


def resize_v2_unknown_method(tf):
    tf.compat.v2.image.resize(tf.ones([1, 2, 2, 1]), [4, 4], method="cubic")


def depthwise_rate(tf):
    x = _img(tf, (2, 9, 10, 3), 0.1)
    w = tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 2, dtype=np.float32).reshape(3, 3, 3, 2))
    p = tf.placeholder(tf.float32, [None, None, None, 3])
    r = [tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[2, 2]),
         tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", rate=[2, 3], name="valid23"),
         tf.nn.depthwise_conv2d(p, w, [1, 1, 1, 1], "SAME", rate=[3, 2]),
         tf.nn.depthwise_conv2d(p, w, [1, 1, 1, 1], "VALID", rate=[2, 2]),
         tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 1])]
    return _out(tf, r, {p: np.arange(2 * 7 * 8 * 3, dtype=np.float32).reshape(2, 7, 8, 3) % 5 * 0.1}, 2)


def separable_rate(tf):
    x = _img(tf, (1, 8, 9, 2), 0.1)
    dw = tf.constant(np.linspace(-1, 1, 3 * 3 * 2 * 2, dtype=np.float32).reshape(3, 3, 2, 2))
    pw = tf.constant(np.linspace(-0.5, 1, 4 * 3, dtype=np.float32).reshape(1, 1, 4, 3))
    r = [tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME", rate=[2, 2]),
         tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 1])]
    return _out(tf, r, decimals=2)


def atrous_and_convolution(tf):
    x = _img(tf, (2, 9, 10, 3), 0.1)
    w = tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 3, 4))
    r = [tf.nn.atrous_conv2d(x, w, 2, "SAME"), tf.nn.atrous_conv2d(x, w, 3, "VALID", name="atrous_valid"),
         tf.nn.atrous_conv2d(x, w, 1, "SAME"),
         tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 3]), tf.nn.convolution(x, w, "VALID", strides=[2, 1]),
         tf.nn.convolution(x, w, "SAME", dilation_rate=[1, 2], name="conv_named")]
    return _out(tf, r, decimals=2)


def dilated_gradients(tf):
    x = _img(tf, (1, 7, 8, 2), 0.1)
    w = tf.constant(np.linspace(-1, 1, 3 * 3 * 2 * 2, dtype=np.float32).reshape(3, 3, 2, 2))
    ys = [tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", rate=[2, 2]), tf.nn.atrous_conv2d(x, w, 2, "VALID")]
    forward = _ops(tf)  # the gradient graph of DepthwiseConv2dNative is TF 1.x's (ShapeN), not 2.x's
    r = _out(tf, _grads(tf, ys, [x, w]), decimals=2)
    r["ops"] = forward
    return r


def convolution_strides_and_rate(tf):
    x = _img(tf, (1, 7, 8, 2))
    w = tf.ones([3, 3, 2, 2])
    tf.nn.convolution(x, w, "SAME", strides=[2, 2], dilation_rate=[2, 2])


PROGRAMS = [resize_v2_methods, resize_v2_preserve_aspect_ratio, resize_v1_preserve_aspect_ratio,
            resize_v2_unknown_shape, resize_v2_gradients, resize_v2_unknown_method, depthwise_rate, separable_rate,
            atrous_and_convolution, dilated_gradients, convolution_strides_and_rate]

# TF 1.15's texts where TF 2.x's differ.
TF115 = {
    "resize_v2_unknown_method": {"error": ["ValueError", "Resize method is not implemented."]},
}
