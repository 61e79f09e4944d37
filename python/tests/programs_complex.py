"""TF 1.x programs of complex, half and bfloat16 math: tf.complex / real / imag / conj / angle
and abs on complex tensors, numpy complex feeds and fetches, complex arithmetic, matmul and
reductions, their gradients, and float16 / bfloat16 math. Recorded by gen_expectations.py
into expectations_complex.json. Floats are rounded to 4 decimals; complex values are written
as [real, imag] pairs.
"""
import numpy as np

from programs import _ops, _val


def _c(v):
    if isinstance(v, (list, tuple)):
        return [_c(x) for x in v]
    a = np.asarray(v)
    if a.dtype.kind == "c":
        return {"dtype": str(a.dtype), "shape": list(a.shape),
                "re": np.round(a.real.astype(np.float64), 4).tolist(),
                "im": np.round(a.imag.astype(np.float64), 4).tolist()}
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        return {"dtype": str(a.dtype), "shape": list(a.shape),
                "value": np.round(a.astype(np.float64), 4).tolist()}
    return _val(v)


X = np.array([[1.5 - 2j, -0.25 + 0.75j, 3 + 0j], [-1j, -2 - 0.5j, 0.5 + 1.25j]])
Y = np.array([[0.5 + 1j, 2 - 1j, -1.5 + 0.25j], [1 + 1j, -0.75 + 2j, 1.25 - 0.5j]])


def parts(tf):
    x = tf.placeholder(tf.complex64, [2, 3], name="x")
    r = [tf.real(x), tf.imag(x), tf.conj(x), tf.angle(x), tf.abs(x), tf.math.real(x, name="re"),
         tf.complex(tf.real(x), tf.imag(x) * 2.0), tf.abs(tf.constant([-1.5, 2.0]))]
    with tf.Session() as s:
        v = s.run(r, {x: X.astype(np.complex64)})
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r], "values": _c(v)}


def arithmetic(tf):
    x = tf.constant(X)
    y = tf.placeholder(tf.complex128, [2, 3])
    r = [x + y, x - y, x * y, x / y, tf.matmul(x, y, transpose_b=True), tf.reduce_sum(x, 1), tf.reduce_mean(x * y),
         tf.exp(x), tf.sqrt(x), tf.cast(x, tf.float32), tf.cast(tf.constant([1.0, 2.0]), tf.complex64),
         tf.add_n([x, y, x])]
    with tf.Session() as s:
        v = s.run(r, {y: Y})
    return {"ops": _ops(tf), "dtypes": [t.dtype.name for t in r], "values": _c(v)}


def gradients(tf):
    a = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], tf.float64)
    b = tf.constant([[1.0, 0.5, -2.0], [0.25, -1.5, 1.0]], tf.float64)
    z = tf.complex(a, b)
    w = tf.complex(b, a * 0.5)
    f = tf.reduce_sum(tf.abs(z * tf.conj(w))) + tf.reduce_sum(tf.real(tf.matmul(z, w, transpose_b=True))) + \
        tf.reduce_sum(tf.imag(z / w)) + tf.reduce_sum(tf.angle(z))
    g = tf.gradients(f, [a, b])
    with tf.Session() as s:
        v = s.run(g)
    # values only: TF 2.x's compat.v1 gradients fold static shapes that TF 1.15 computes
    return {"values": _c(v)}


def complex_wrong_types(tf):
    tf.complex(tf.constant(1.0), tf.constant(2.0, tf.float64))


def half_math(tf):
    out = []
    for dt in (tf.float16, tf.bfloat16):
        x = tf.cast(tf.constant([[0.5, -1.25, 2.0], [3.75, -0.0625, 100.5]]), dt)
        y = tf.cast(tf.constant([[1.5, 0.25, -3.0], [0.125, 7.0, -0.5]]), dt)
        r = [x + y, x * y, x / y, tf.matmul(x, y, transpose_b=True), tf.reduce_sum(x, 1), tf.nn.relu(x),
             tf.nn.softmax(x), tf.sigmoid(x), tf.nn.bias_add(x, y[0]), tf.maximum(x, y)]
        # bfloat16 results are fetched as float32 (numpy has no bfloat16 of its own); TF 2.x's
        # graph rewrites run its bfloat16 MatMul and Softmax through oneDNN, which rounds
        # otherwise than 1.15's Eigen kernels (tests/kernels/test_dtypes.c checks them on fed inputs)
        out += r if dt == tf.float16 else [tf.cast(t, tf.float32) for i, t in enumerate(r) if i not in (3, 6)]
    with tf.Session() as s:
        v = s.run(out)
    return {"dtypes": [t.dtype.name for t in out], "values": _c(v)}


PROGRAMS = [parts, arithmetic, gradients, complex_wrong_types, half_math]

TF115 = {
    # 1.15's message (2.x's names the components and the allowed types)
    "complex_wrong_types": {"error": ["TypeError", "real and imag have incorrect types: float32 float64"]},
}
