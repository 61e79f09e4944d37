"""TF 1.x programs of the math, array, nn, random and clip functions (ops/*.py): node names and
op types, values on fixed inputs, and the errors of bad arguments. Recorded by
gen_expectations.py into expectations_ops.json.

Float results are rounded to 4 decimals (_r) where the kernels compute transcendental functions,
whose last bits may differ between implementations. Random ops use op-level seeds, for which
TF 2.x and 1.15 derive the same (seed, seed2) attrs.

TF115 gives TF 1.15's graph where 2.x's compat.v1 builds another one (1.15's tf.add and
math_ops.add build Add, 2.x's AddV2; 1.15's dropout is x * (1/keep_prob) * cast(mask), 2.x's a
SelectV2; ...).
"""
import re

import numpy as np

from programs import _ops, _val


def _r(v, decimals=4):
    """_val of v with floats rounded to 4 decimals."""
    if isinstance(v, (list, tuple)):
        return [_r(x, decimals) for x in v]
    a = np.asarray(v)
    if a.dtype.kind == "f":
        r = _val(v)
        r["value"] = np.round(a.astype(np.float64), decimals).tolist()
        return r
    return _val(v)


def _run(tf, ts, feed=None):
    with tf.Session() as s:
        return s.run(ts, feed)


X = np.array([[1.5, -2.25, 0.5], [3.0, 0.0, -0.75]], np.float32)


# ---------------- math ----------------

def math_unary(tf):
    x = tf.constant(X, name="x")
    p = tf.constant(np.abs(X) + 0.5, name="p")
    r = [tf.abs(x), tf.negative(x), tf.square(x), tf.sqrt(p), tf.rsqrt(p), tf.exp(x), tf.log(p), tf.log1p(p),
         tf.tanh(x), tf.sigmoid(x), tf.sign(x), tf.floor(x), tf.ceil(x), tf.round(x), tf.reciprocal(p),
         tf.abs([-1, 2]), tf.sigmoid([0.0]), tf.round(tf.constant([1, 2])), tf.math.expm1(x)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def math_binary(tf):
    x = tf.constant(X, name="x")
    y = tf.constant(np.full((2, 3), 0.75, np.float32), name="y")
    i = tf.constant([7, -7, 5], name="i")
    j = tf.constant([2, 2, -3], name="j")
    b = tf.constant([True, False, True], name="b")
    c = tf.constant([True, True, False], name="c")
    r = [tf.maximum(x, y), tf.minimum(x, 0.0), tf.pow(y, 2.0), tf.squared_difference(x, y), tf.floordiv(i, j),
         tf.floormod(i, j), tf.mod(i, j), tf.equal(x, y), tf.not_equal(i, 7), tf.less(x, y), tf.less_equal(i, j),
         tf.greater(x, y), tf.greater_equal(i, 5), tf.logical_and(b, c), tf.logical_or(b, c), tf.logical_not(b),
         tf.logical_xor(b, c), tf.div(i, j), tf.div(x, y), tf.truediv(i, j), tf.add(x, 1.0),
         tf.subtract(x, y), tf.multiply(x, 2.0), tf.realdiv(x, y), tf.scalar_mul(2.0, x)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def add_n(tf):
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.constant([3.0, 4.0], name="b")
    r = [tf.add_n([a, b, a]), tf.add_n([a]), tf.add_n([a], name="one"), tf.add_n([a, [5.0, 6.0]]),
         tf.math.add_n([b, b], name="sum")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _val(_run(tf, r))}


def add_n_empty(tf):
    tf.add_n([])


def add_n_mixed(tf):
    tf.add_n([tf.constant([1.0]), tf.constant([1])])


def arg_min_max(tf):
    x = tf.constant(X, name="x")
    r = [tf.argmax(x, 1), tf.argmax(x, dimension=0), tf.argmin(x), tf.argmin(x, axis=1, output_type=tf.int32),
         tf.math.argmax(x, -1, name="am")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r],
            "values": _val(_run(tf, r))}


def argmax_both(tf):
    tf.argmax(tf.constant([1.0]), axis=0, dimension=0)


def reductions(tf):
    x = tf.constant(X, name="x")
    b = tf.constant([[True, False], [True, True]], name="b")
    r = [tf.reduce_all(b), tf.reduce_any(b, 1), tf.reduce_all(b, axis=0, keepdims=True),
         tf.reduce_any(b, keep_dims=True),
         tf.reduce_sum(x, reduction_indices=[1]), tf.reduce_max(x, 0), tf.reduce_min(x, -1), tf.reduce_prod(x),
         tf.reduce_mean(x, [0, 1], keepdims=True), tf.count_nonzero(x), tf.count_nonzero(x, 1, dtype=tf.int32),
         tf.count_nonzero(b, keepdims=True), tf.cumsum(x, 1), tf.cumsum(x, 1, exclusive=True),
         tf.cumsum(x, 0, reverse=True), tf.cumprod(x, 1)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def logsumexp(tf):
    x = tf.constant(X, name="x")
    inf = tf.constant([[-np.inf, -np.inf], [1.0, 2.0]], name="inf")
    r = [tf.reduce_logsumexp(x), tf.reduce_logsumexp(x, 1), tf.reduce_logsumexp(x, 0, keepdims=True),
         tf.reduce_logsumexp(inf, 1)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def classifications(tf):
    v = tf.constant([1.0, np.inf, -np.inf, np.nan], name="v")
    r = [tf.is_finite(v), tf.is_nan(v), tf.math.is_inf(v, name="inf")]
    return {"ops": _ops(tf), "values": _val(_run(tf, r))}


def both_axis_args(tf):
    tf.reduce_sum(tf.constant([1.0]), axis=0, reduction_indices=0)


def casts(tf):
    x = tf.constant([1.7, -1.7, 300.5], name="x")
    i = tf.constant([1, 0, 3], name="i")
    r = [tf.to_float(i), tf.to_int32(x), tf.to_int64(x), tf.to_double(i), tf.cast(x, tf.float32), tf.cast(i, tf.bool),
         tf.cast([1, 2], tf.float64), tf.cast(x, tf.uint8, name="u8"), tf.saturate_cast(x, tf.uint8),
         tf.cast(tf.constant([True, False]), tf.int32)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "same": r[4] is x, "values": _val(_run(tf, r))}


def cast_edges(tf):
    f = tf.constant([0.0, -0.0, 0.5, -2.5, np.nan], name="f")
    i = tf.constant([-1, 256, 255, 70000], name="i")
    r = [tf.cast(f, tf.bool), tf.cast(i, tf.uint8), tf.cast(i, tf.int16), tf.cast(f[2:4], tf.int64),
         tf.cast(tf.constant([True, False]), tf.float64), tf.cast(i, tf.float16), tf.to_int32(tf.constant([2.9, -2.9]))]
    return {"ops": _ops(tf), "values": _val(_run(tf, r))}


def matmul_flags(tf):
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    b = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="b")
    c = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4), name="c")
    d = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3), name="d")
    r = [tf.matmul(a, b), tf.matmul(a, a, transpose_b=True), tf.matmul(a, a, transpose_a=True),
         tf.matmul(b, b, adjoint_a=True), tf.matmul(a, b, transpose_a=True, transpose_b=True), tf.matmul(c, d),
         tf.matmul(c, c, transpose_b=True), tf.matmul(c, d, adjoint_a=True, adjoint_b=True), a @ b]
    attrs = [[t.op.get_attr(k) for k in (("transpose_a", "transpose_b") if t.op.type == "MatMul"
                                        else ("adj_x", "adj_y"))] for t in r]
    return {"ops": _ops(tf), "attrs": attrs, "shapes": [str(t.shape) for t in r], "values": _val(_run(tf, r))}


def tensordots(tf):
    a = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4), name="a")
    b = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3), name="b")
    r = [tf.tensordot(a, b, 1), tf.tensordot(a, b, [[1, 2], [1, 0]]), tf.tensordot(b, b, axes=[[0], [0]], name="td"),
         tf.tensordot(b, b, 0)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r))}


def matmul_transpose_and_adjoint(tf):
    a = tf.constant(np.ones((2, 2), np.float32))
    tf.matmul(a, a, transpose_a=True, adjoint_a=True)


def clipping(tf):
    x = tf.constant(X, name="x")
    y = tf.constant([3.0, 4.0], name="y")
    r = [tf.clip_by_value(x, -1.0, 1.0), tf.clip_by_value(x, 0.0, 2.0, name="cv"), tf.clip_by_norm(y, 2.5),
         tf.clip_by_norm(x, 1.0, axes=[1])]
    r.append(tf.clip_by_average_norm(x, 0.5))
    clipped, norm = tf.clip_by_global_norm([x, y], 2.0)
    g = tf.global_norm([x, y])
    r += clipped + [norm, g]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


# ---------------- array ----------------

def concat_split(tf):
    x = tf.constant(X, name="x")
    r = [tf.concat([x, x], 0), tf.concat([x, x], axis=1, name="c1"), tf.concat([x], 0), tf.concat(x, -1)]
    s = (tf.split(x, 3, axis=1) + tf.split(x, [1, 2], 1) + tf.split(x, 2) +
         tf.split(x, tf.constant([2, 1]), 1, name="sv"))
    u = tf.unstack(x) + tf.unstack(x, axis=1) + [tf.stack([x, x], axis=1), tf.stack([x[0], x[1]])]
    r += s + u
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r))}


def split_rank0(tf):
    tf.split(tf.constant(X), tf.constant(3), 1)


def split_uneven(tf):
    tf.split(tf.constant(X), 2, 1)


def stack_bad_axis(tf):
    tf.stack([tf.constant([1]), tf.constant([2])], axis=2)


def unstack_bad_axis(tf):
    tf.unstack(tf.constant(X), axis=2)


def shapes_and_transposes(tf):
    x = tf.constant(X, name="x")
    p = tf.placeholder(tf.float32, name="p")
    r = [tf.expand_dims(x, 0), tf.expand_dims(x, -1), tf.expand_dims(x, dim=1), tf.squeeze(tf.expand_dims(x, 0)),
         tf.squeeze(tf.constant(np.zeros((1, 2, 1), np.float32)), [2]), tf.squeeze(tf.constant([[1]]), axis=0),
         tf.transpose(x), tf.transpose(x, [1, 0]), tf.transpose(tf.constant(np.zeros((1, 2, 3))), perm=[0, 2, 1]),
         tf.transpose(p), tf.tile(x, [2, 1]), tf.pad(x, [[1, 0], [0, 2]]), tf.pad(x, [[1, 1], [1, 1]], "REFLECT"),
         tf.pad(x, [[0, 1], [2, 0]], mode="symmetric"), tf.pad(x, [[1, 0], [0, 0]], constant_values=9.0),
         tf.reshape(x, [-1]), tf.reshape(x, [3, -1], name="r"), tf.size(x), tf.rank(x), tf.shape(x),
         tf.size(p), tf.rank(p), tf.shape(p)]
    r += tf.shape_n([x, tf.constant([1.0, 2.0])])
    feed = {p: np.zeros((2, 1, 3), np.float32)}
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r, feed))}


def expand_dims_no_axis(tf):
    tf.expand_dims(tf.constant([1]))


def pad_bad_mode(tf):
    tf.pad(tf.constant([1]), [[1, 1]], "WRAP")


def reshape_bad(tf):
    tf.reshape(tf.constant(X), [4, 2])


def squeeze_bad(tf):
    tf.squeeze(tf.constant(X), [0])


def gather_one_hot(tf):
    p = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3), name="params")
    r = [tf.gather(p, [3, 0]), tf.gather(p, [[1], [2]], axis=1), tf.gather(p, tf.constant([1], tf.int64), name="g"),
         tf.one_hot([0, 2, -1], 3), tf.one_hot([1, 0], 2, on_value=5, off_value=-1),
         tf.one_hot(tf.constant([[0, 1]]), 3, axis=0, dtype=tf.int64), tf.one_hot([2], 3, off_value=0.5, name="oh")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r],
            "values": _val(_run(tf, r))}


def gather_nd_and_top_k(tf):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="p")
    x = tf.constant([[3.0, 1.0, 3.0, 2.0], [0.5, 9.0, -1.0, 4.0]], name="x")
    v, i = tf.nn.top_k(x, 2)
    v2, i2 = tf.nn.top_k(tf.constant([[5, 7, 7, 1]]), k=3, name="tk")
    v3, i3 = tf.nn.top_k(x)
    r = [tf.gather_nd(p, [[1, 2], [0, 0]]), tf.gather_nd(p, [[1]]), tf.gather_nd(p, [[[0, 1]], [[1, 0]]], name="g"),
         v, i, v2, i2, v3, i3]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r))}


def gather_nd_out_of_range(tf):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="p")
    with tf.Session() as s:
        s.run(tf.gather_nd(p, [[0, 1], [0, 3]]))


def one_hot_dtype_mismatch(tf):
    tf.one_hot([0], 2, on_value=1.0, dtype=tf.int32)


def one_hot_on_off_mismatch(tf):
    tf.one_hot([0], 2, on_value=1.0, off_value=0)


def fills(tf):
    x = tf.constant(X, name="x")
    p = tf.placeholder(tf.float32, shape=[None, 2], name="p")
    n = tf.placeholder(tf.int32, shape=[2], name="n")
    r = [tf.zeros([2, 3]), tf.zeros([2], tf.int32), tf.ones((1, 2), dtype=tf.float64), tf.zeros([40, 30]),
         tf.zeros(n), tf.ones(n, tf.int64, name="o"), tf.zeros([]), tf.ones([2], tf.bool),
         tf.zeros_like(x), tf.ones_like(x), tf.zeros_like(p), tf.ones_like(p), tf.zeros_like(x, dtype=tf.int32),
         tf.ones_like(x, tf.int32), tf.fill([2, 2], 7), tf.fill(n, 1.5, name="f"), tf.zeros([2, n[0]])]
    feed = {p: np.ones((1, 2), np.float32), n: [1, 2]}
    vals = _run(tf, r, feed)
    vals[3] = vals[3].sum()
    # (the last shape left out: TF reads a Pack of Consts during shape inference)
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r[:-1]],
            "values": _val(vals)}


def ranges(tf):
    r = [tf.range(5), tf.range(1, 7, 2), tf.range(0.0, 1.0, 0.25), tf.range(3, dtype=tf.float32),
         tf.range(tf.constant(4, tf.int64)), tf.range(2, 5.5), tf.range(5, name="rr")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r],
            "values": _val(_run(tf, r))}


def linspaces(tf):
    r = [tf.linspace(0.0, 1.0, 5), tf.lin_space(-1.0, 2.0, 4, name="ls"),
         tf.linspace(tf.constant(3.0, tf.float64), 7.0, 3)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _val(_run(tf, r))}


def slices_and_selects(tf):
    x = tf.constant(X, name="x")
    cond = tf.constant([[True, False, True], [False, False, True]], name="cond")
    r = [tf.slice(x, [0, 1], [2, 2]), tf.slice(x, [1, 0], [-1, -1], name="s"), tf.reverse(x, [1]),
         tf.reverse(x, axis=[0, 1]), tf.where(cond, x, -x), tf.where(tf.constant([True, False]), x, x * 2.0),
         tf.identity(x, name="idt")]
    r += tf.identity_n([x, cond])
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _val(_run(tf, r))}


def masks_and_where(tf):
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2), name="x")
    m = tf.constant([[True, False, True], [False, False, True]], name="m")
    r = [tf.where(m), tf.where([[0.0, 1.5], [-2.0, 0.0]], name="w"), tf.boolean_mask(x, m),
         tf.boolean_mask(x, [False, True], axis=2, name="bm"), tf.boolean_mask(x, tf.constant([True, False])),
         x[m], x[tf.constant([[True, True, False], [False, True, False]])]]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r))}


def boolean_mask_scalar(tf):
    tf.boolean_mask(tf.constant([1]), True)


def boolean_mask_unknown_rank(tf):
    tf.boolean_mask(tf.constant([1]), tf.placeholder(tf.bool))


def where_one_arg(tf):
    tf.where(tf.constant([True]), x=tf.constant([1]))


def masks_and_grids(tf):
    r = [tf.sequence_mask([1, 3, 2], 4), tf.sequence_mask(tf.constant([2, 0])),
         tf.sequence_mask([[1], [2]], 3, dtype=tf.float32)]
    r += tf.meshgrid([1, 2, 3], [4, 5])
    r += tf.meshgrid(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]), indexing="ij")
    # (static shapes left out: TF evaluates constant shape inputs during shape inference)
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _val(_run(tf, r))}


# ---------------- nn ----------------

def activations(tf):
    x = tf.constant(X, name="x")
    b = tf.constant([0.5, -1.0, 2.0], name="b")
    x4 = tf.constant(np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2) - 6, name="x4")
    r = [tf.nn.relu(x), tf.nn.relu6(x * 3.0), tf.nn.elu(x), tf.nn.selu(x), tf.nn.leaky_relu(x),
         tf.nn.leaky_relu(x, alpha=0.5, name="lr"), tf.nn.softplus(x), tf.nn.softsign(x), tf.nn.sigmoid(x),
         tf.nn.tanh(x), tf.sin(x), tf.cos(x), tf.nn.bias_add(x, b), tf.nn.bias_add(x4, [1.0, -1.0, 0.5], data_format="NCHW"),
         tf.nn.relu6([-1.0, 7.0]), tf.nn.leaky_relu(tf.constant([-2, 3]))]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def softmaxes(tf):
    x = tf.constant(X, name="x")
    x3 = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0, name="x3")
    r = [tf.nn.softmax(x), tf.nn.softmax(x, axis=0), tf.nn.softmax(x, dim=-1, name="sm"), tf.nn.log_softmax(x),
         tf.nn.log_softmax(x, 0), tf.nn.softmax(x3, 1), tf.nn.log_softmax(x3, axis=-2, name="ls")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def softmax_bad_axis(tf):
    tf.nn.softmax(tf.constant(X), axis=3)


def cross_entropies(tf):
    logits = tf.constant(X, name="logits")
    labels = tf.constant([2, 0], name="labels")
    onehot = tf.constant([[0.0, 0.25, 0.75], [1.0, 0.0, 0.0]], name="onehot")
    l3 = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 7.0, name="l3")
    lab3 = tf.constant([[0, 1, 2, 1], [2, 2, 0, 0]], name="lab3")
    r = [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
         tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab3, logits=l3, name="sp3"),
         tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=logits),
         tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=logits),
         tf.nn.sigmoid_cross_entropy_with_logits(labels=onehot, logits=logits),
         tf.nn.sigmoid_cross_entropy_with_logits(labels=onehot, logits=logits, name="sx"),
         tf.nn.weighted_cross_entropy_with_logits(onehot, logits, 2.0)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def xent_axis(tf):
    """Values only: TF infers the transposed shapes by evaluating the constant perm, tfc's shape
    inference does not, so TF's Shape Consts are Shape ops here."""
    logits = tf.constant(X.T, name="logits")
    onehot = tf.constant([[0.0, 1.0], [0.25, 0.0], [0.75, 0.0]], name="onehot")
    r = tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=logits, axis=0)
    return {"name": r.name, "shape": str(r.shape), "value": _r(_run(tf, r))}


def xent_positional(tf):
    tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0]), tf.constant([[1.0]]))


def xent_missing(tf):
    tf.nn.softmax_cross_entropy_with_logits(logits=tf.constant([[1.0]]))


def xent_rank_mismatch(tf):
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([[0]]), logits=tf.constant([[1.0]]))


def xent_shape_mismatch(tf):
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 1, 2]), logits=tf.constant([[1.0]]))


def sigmoid_xent_shapes(tf):
    tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1.0, 0.0]), logits=tf.constant([1.0]))


def norms_and_stats(tf):
    x = tf.constant(X, name="x")
    pred = tf.constant([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3]], name="pred")
    m, v = tf.nn.moments(x, [0])
    m2, v2 = tf.nn.moments(x, axes=[0, 1], keep_dims=True, name="mom")
    bn = tf.nn.batch_normalization(x, m, v, tf.constant([0.0, 1.0, 2.0]), tf.constant([1.0, 2.0, 0.5]), 1e-3)
    bn2 = tf.nn.batch_normalization(x, m, v, None, None, 1e-3, name="bn")
    r = [tf.nn.l2_loss(x), tf.nn.l2_normalize(x, 1), tf.nn.l2_normalize(x, dim=0, name="n0"),
         tf.nn.in_top_k(pred, [1, 2], 1), tf.nn.in_top_k(pred, [1, 2], 2, name="k2"), m, v, m2, v2, bn, bn2]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def fused_batch_norms(tf):
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) / 5.0, name="x")
    scale = tf.constant([1.0, 2.0, 0.5, 1.0], name="scale")
    offset = tf.constant([0.0, 0.1, 0.2, 0.3], name="offset")
    y, bm, bv = tf.nn.fused_batch_norm(x, scale, offset)
    y2, bm2, bv2 = tf.nn.fused_batch_norm(x, scale, offset, mean=bm, variance=bv, epsilon=1e-3, is_training=False,
                                          name="infer")
    r = [y, bm, bv, y2, bm2, bv2]
    return {"ops": _ops(tf), "names": [t.name for t in r], "eps": [y.op.get_attr("epsilon"), y2.op.get_attr("epsilon")],
            "values": _r(_run(tf, r), 3)}


def fused_batch_norm_inference_needs_stats(tf):
    tf.nn.fused_batch_norm(tf.constant(np.zeros((1, 1, 1, 2), np.float32)), [1.0, 1.0], [0.0, 0.0],
                           is_training=False)


def convolutions(tf):
    x = tf.constant(np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2) / 10.0, name="x")
    w = tf.constant(np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) / 20.0 - 0.8, name="w")
    r = [tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), tf.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="VALID"),
         tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1], name="dil"),
         tf.nn.conv2d(x, filter=w, strides=[1, 1, 1, 1], padding=[[0, 0], [1, 0], [0, 1], [0, 0]]),
         tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), tf.nn.max_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
         tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID", name="ap"),
         tf.nn.avg_pool(x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")]
    nchw = tf.nn.conv2d(tf.transpose(x, [0, 3, 1, 2]), w, [1, 1, 1, 1], "SAME", data_format="NCHW")
    mp = tf.nn.max_pool(tf.transpose(x, [0, 3, 1, 2]), [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")
    return {"ops": _ops(tf), "names": [t.name for t in r + [nchw, mp]],
            "shapes": [str(t.shape) for t in r + [nchw, mp]], "values": _r(_run(tf, r))}


def conv_bad_shapes(tf):
    tf.nn.conv2d(tf.constant(np.zeros((1, 4, 4, 2), np.float32)), tf.constant(np.zeros((3, 3, 3, 1), np.float32)),
                 [1, 1, 1, 1], "SAME")


def lrns(tf):
    x = tf.constant((np.arange(24, dtype=np.float32).reshape(1, 2, 2, 6) - 11) / 4, name="x")
    r = [tf.nn.lrn(x), tf.nn.local_response_normalization(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75,
                                                          name="n")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def dropout_and_embeddings(tf):
    x = tf.constant(np.arange(1, 13, dtype=np.float32).reshape(3, 4), name="x")
    params = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3), name="params")
    w = tf.constant(np.ones((4, 2), np.float32), name="w")
    r = [tf.nn.dropout(x, 0.5, seed=7), tf.nn.dropout(x, keep_prob=0.75, noise_shape=[3, 1], seed=9, name="d2"),
         tf.nn.embedding_lookup(params, [4, 0, 4]), tf.nn.embedding_lookup([params], [[1], [2]], name="emb"),
         tf.nn.xw_plus_b(x, w, [1.0, -1.0]), tf.nn.relu_layer(x, w, [1.0, -50.0])]
    same = tf.nn.dropout(x, 1.0) is x
    return {"ops": _ops(tf), "names": [t.name for t in r], "same": same, "values": _val(_run(tf, r))}


def partitioned_embeddings(tf):
    p0 = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="p0")
    p1 = tf.constant(np.arange(6, 10, dtype=np.float32).reshape(2, 2), name="p1")
    ids = tf.constant([[4, 0], [1, 3]], name="ids")
    r = [tf.nn.embedding_lookup([p0, p1], ids), tf.nn.embedding_lookup([p0, p1], [2, 3, 4], partition_strategy="div",
                                                                       name="div")]
    parts = tf.dynamic_partition(tf.constant([10, 20, 30, 40]), [1, 0, 1, 1], 2)
    r += parts + [tf.dynamic_stitch([[0, 2], [1, 3]], [[1.0, 2.0], [3.0, 4.0]])]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r))}


def dropout_bad_rate(tf):
    tf.nn.dropout(tf.constant([1.0]), rate=1.5)


def dropout_int(tf):
    tf.nn.dropout(tf.constant([1]), 0.5)


def dropout_no_rate(tf):
    tf.nn.dropout(tf.constant([1.0]))


# ---------------- random ----------------

def random_tensors(tf):
    r = [tf.random_normal([2, 3], seed=1), tf.random_normal([2], mean=5.0, stddev=0.5, seed=2, name="rn"),
         tf.truncated_normal([3, 2], seed=3), tf.truncated_normal([4], stddev=2.0, dtype=tf.float64, seed=4),
         tf.random_uniform([2, 2], seed=5), tf.random_uniform([3], -1.0, 3.0, seed=6, name="ru"),
         tf.random_uniform([4], 0, 10, dtype=tf.int32, seed=7), tf.random_uniform([2], 5, 2 ** 40, tf.int64, seed=8),
         tf.random_shuffle(tf.range(6), seed=9), tf.random.normal([2], seed=10), tf.random.uniform([2], seed=11)]
    seeds = [[t.op.get_attr("seed"), t.op.get_attr("seed2")] if t.op.type in ("RandomUniformInt", "RandomShuffle")
             else None for t in r]
    vals = _run(tf, r)
    vals[8] = np.sort(vals[8])  # (RandomShuffle's permutation is not TF's; its elements are)
    return {"ops": _ops(tf), "names": [t.name for t in r], "seeds": seeds, "values": _r(vals)}


def multinomials(tf):
    a = tf.multinomial([[0.0, 1.0, 2.0], [3.0, -np.inf, 0.5]], 5, seed=3)
    b = tf.multinomial(tf.constant([[1.0, 1.0]], tf.float64), 9, seed=4, output_dtype=tf.int32, name="mn")
    c = tf.random.categorical([[0.0, 0.0, 0.0, 0.0]], 6, seed=5)
    with tf.Session() as s:
        runs = [s.run([a, b, c]), s.run([a, b, c])]
    return {"ops": _ops(tf), "names": [t.name for t in (a, b, c)], "shapes": [str(t.shape) for t in (a, b, c)],
            "seeds": [[t.op.get_attr("seed"), t.op.get_attr("seed2")] for t in (a, b, c)], "values": _val(runs)}


def stateless_randoms(tf):
    r = [tf.random.stateless_uniform([2, 3], seed=[1, 2]),
         tf.random.stateless_uniform([3], seed=tf.constant([7, -3], tf.int64), minval=-1.0, maxval=3.0, name="su"),
         tf.random.stateless_uniform([5], seed=[4, 5], minval=-10, maxval=10, dtype=tf.int32),
         tf.random.stateless_uniform([2], seed=[4, 5], minval=0, maxval=2 ** 40, dtype=tf.int64),
         tf.random.stateless_uniform([4], seed=[9, 9], dtype=tf.float64),
         tf.random.stateless_normal([2, 2], seed=[3, 4], mean=1.0, stddev=2.0),
         tf.random.stateless_truncated_normal([5], seed=[2 ** 33, 1], name="stn")]
    with tf.Session() as s:
        runs = [s.run(r), s.run(r)]  # stateless: the same values every run
    assert all(np.array_equal(a, b) for a, b in zip(*runs))
    return {"names": [t.name for t in r], "shapes": [str(t.shape) for t in r], "values": _r(runs[0])}


def stateless_uniform_int_no_max(tf):
    tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int64)


def random_uniform_int_no_max(tf):
    tf.random_uniform([2], dtype=tf.int32)


def random_bad_dtype(tf):
    tf.random_uniform([2], dtype=tf.string)


PROGRAMS = [
    math_unary, math_binary, add_n, add_n_empty, add_n_mixed, arg_min_max, argmax_both, reductions, logsumexp,
    classifications, both_axis_args, casts, cast_edges, matmul_flags, tensordots, matmul_transpose_and_adjoint,
    clipping, concat_split, split_rank0, stack_bad_axis, unstack_bad_axis, shapes_and_transposes,
    expand_dims_no_axis, pad_bad_mode, squeeze_bad, gather_one_hot, gather_nd_and_top_k, gather_nd_out_of_range,
    one_hot_dtype_mismatch, one_hot_on_off_mismatch, fills, ranges, linspaces, slices_and_selects, masks_and_where,
    boolean_mask_scalar, boolean_mask_unknown_rank, where_one_arg, masks_and_grids, activations, softmaxes,
    softmax_bad_axis, cross_entropies, xent_positional, xent_missing, xent_rank_mismatch, xent_axis,
    xent_shape_mismatch, sigmoid_xent_shapes, norms_and_stats, fused_batch_norms,
    fused_batch_norm_inference_needs_stats, convolutions, lrns, conv_bad_shapes, dropout_and_embeddings,
    partitioned_embeddings, dropout_bad_rate, dropout_int, dropout_no_rate, random_tensors, multinomials,
    random_uniform_int_no_max, random_bad_dtype, stateless_randoms, stateless_uniform_int_no_max,
]


def _rename(pattern, repl):
    def fix(e):
        for op in e["result"]["ops"]:
            op[0] = re.sub(pattern, repl, op[0])
    return fix


def _retype(names, op_type):
    def fix(e):
        for op in e["result"]["ops"]:
            if op[0] in names:
                op[1] = op_type
    return fix


def _both(*fixes):
    def fix(e):
        for f in fixes:
            f(e)
    return fix


def _err(cls, msg):
    return {"error": [cls, msg]}


def _casts(e):
    ops = e["result"]["ops"]
    i = [o[0] for o in ops].index("saturate_cast/Const")
    ops[i:i + 3] = [["saturate_cast/min", "Const"], ["saturate_cast/Maximum", "Maximum"],
                    ["saturate_cast/max", "Const"], ["saturate_cast/Minimum", "Minimum"]]


def _dropout_ops(scope, shape_const):
    """TF 1.15's dropout graph (rate Const, noise shape, random_uniform, 1 - rate, 1 / keep_prob,
    GreaterEqual, x * scale * Cast(mask)). Its random_uniform ends in AddV2 here, as every random
    graph of this library does (its C builders' choice; 1.15's Python built Add)."""
    ru = scope + "/random_uniform"
    return ([[scope + "/rate", "Const"]] + ([[scope + "/Shape", "Const"]] if shape_const else []) +
            ([] if shape_const else [[ru + "/shape", "Const"]]) +
            [[ru + "/min", "Const"], [ru + "/max", "Const"], [ru + "/RandomUniform", "RandomUniform"],
             [ru + "/sub", "Sub"], [ru + "/mul", "Mul"], [ru, "AddV2"], [scope + "/sub/x", "Const"],
             [scope + "/sub", "Sub"], [scope + "/truediv/x", "Const"], [scope + "/truediv", "RealDiv"],
             [scope + "/GreaterEqual", "GreaterEqual"], [scope + "/mul", "Mul"], [scope + "/Cast", "Cast"],
             [scope + "/mul_1", "Mul"]])


def _dropout(e):
    r = e["result"]
    i = [o[0].startswith("dropout/") for o in r["ops"]].index(True)
    ops = [o for o in r["ops"] if not o[0].startswith(("dropout/", "d2/"))]
    ops[i:i] = _dropout_ops("dropout", True) + _dropout_ops("d2", False)
    r["ops"] = ops
    r["names"][0], r["names"][1] = "dropout/mul_1:0", "d2/mul_1:0"


def _random_uniform(e):
    """1.15's random_uniform always scales and shifts (2.x leaves out min, max, sub, mul and add
    for [0, 1)); its add is AddV2 here, as in the library's C builders."""
    r = e["result"]
    for scope, k in (("random_uniform", 4), ("random_uniform_3", 10)):
        ops = r["ops"]
        i = [o[0] for o in ops].index(scope + "/RandomUniform")
        ops[i:i + 1] = [[scope + "/min", "Const"], [scope + "/max", "Const"], [scope + "/RandomUniform", "RandomUniform"],
                        [scope + "/sub", "Sub"], [scope + "/mul", "Mul"], [scope, "AddV2"]]
        r["names"][k] = scope + ":0"


def _logsumexp(e):
    """1.15 replaces infinite maxima with where(IsFinite, max, zeros_like(max)) (Select), reshapes
    by tf.shape (a Const for known shapes) and adds with Add; 2.x: SelectV2 of a 0 Const, a
    Shape op, AddV2."""
    for op in e["result"]["ops"]:
        scope, _, last = op[0].rpartition("/")
        if op[0].endswith("/SelectV2/e"):
            op[:] = [op[0][:-len("SelectV2/e")] + "zeros_like", "Const"]
        elif last == "SelectV2":
            op[:] = [scope + "/Select", "Select"]
        elif last == "Shape":
            op[1] = "Const"
        elif op[1] == "AddV2" and op[0].startswith("ReduceLogSumExp") and "/" not in op[0]:
            op[1] = "Add"


# 1.15's tf.linspace is the LinSpace op (2.x's compat.v1 builds linspace_nd's graph)
_LINSPACE = {"result": {"names": ["LinSpace:0", "ls:0", "LinSpace_1:0"], "ops": [
    ["LinSpace/start", "Const"], ["LinSpace/stop", "Const"], ["LinSpace/num", "Const"], ["LinSpace", "LinSpace"],
    ["ls/start", "Const"], ["ls/stop", "Const"], ["ls/num", "Const"], ["ls", "LinSpace"], ["Const", "Const"],
    ["LinSpace_1/stop", "Const"], ["LinSpace_1/num", "Const"], ["LinSpace_1", "LinSpace"]]}}


def _linspaces(e):
    e["result"]["names"] = _LINSPACE["result"]["names"]
    e["result"]["ops"] = _LINSPACE["result"]["ops"]


_XENT = "Only call `%s` with named arguments (labels=..., logits=..., ...)"
TF115 = {
    # 1.15's tf.add and math_ops.add build Add (2.x: AddV2)
    "math_binary": _retype({"Add"}, "Add"),
    "cross_entropies": _retype({"logistic_loss", "sx", "logistic_loss_1"}, "Add"),
    "logsumexp": _logsumexp,
    "linspaces": _linspaces,
    # 1.15's deprecated_argument_lookup: no trailing period
    "argmax_both": _err("ValueError", "Cannot specify both 'dimension' and 'axis'"),
    "both_axis_args": _err("ValueError", "Cannot specify both 'reduction_indices' and 'axis'"),
    "add_n_empty": _err("ValueError", "inputs must be a list of at least one Tensor/IndexedSlices with the same "
                                      "dtype and shape"),
    # 1.15's saturate_cast clamps with Maximum/Minimum (2.x: ClipByValue)
    "casts": _casts,
    # 1.15's shape_internal names its Const after the "Shape" scope (2.x: Shape/shape_as_tensor)
    "clipping": _rename(r"(ones_like(_\d+)?/Shape)/shape_as_tensor$", r"\1"),
    "fills": _rename(r"(ones_like(_\d+)?/Shape)/shape_as_tensor$", r"\1"),
    "matmul_transpose_and_adjoint": _err("ValueError", "Only one of transpose_a and adjoint_a can be True."),
    "stack_bad_axis": _err("ValueError", "axis = 2 not in [-2, 2)"),
    "unstack_bad_axis": _err("ValueError", "axis = 2 not in [-2, 2)"),
    "pad_bad_mode": _err("ValueError", "Unknown padding mode: WRAP"),
    "squeeze_bad": _err("ValueError", "Can not squeeze dim[0], expected a dimension of 1, got 2 for 'Squeeze' "
                                      "(op: 'Squeeze') with input shapes: [2,3]."),
    "conv_bad_shapes": _err("ValueError", "Dimensions must be equal, but are 2 and 3 for 'Conv2D' (op: 'Conv2D') "
                                          "with input shapes: [1,4,4,2], [3,3,3,1]."),
    "softmax_bad_axis": _err("InvalidArgumentError", "Dimension (3) must be in the range [-2, 2) where 2 is the "
                                                     "number of dimensions in the input."),
    "xent_positional": _err("ValueError", _XENT % "sparse_softmax_cross_entropy_with_logits"),
    "xent_missing": _err("ValueError", "Both labels and logits must be provided."),
    "xent_rank_mismatch": _err("ValueError", "Rank mismatch: Rank of labels (received 2) should equal rank of "
                                             "logits minus 1 (received 2)."),
    "xent_shape_mismatch": _err("ValueError", "Shape mismatch: The shape of labels (received (3,)) should equal "
                                              "the shape of logits except for the last dimension (received (1, 1))."),
    "sigmoid_xent_shapes": _err("ValueError", "logits and labels must have the same shape ((1,) vs (2,))"),
    "fused_batch_norm_inference_needs_stats": _err(
        "ValueError", "Both 'mean' and 'variance' must be a 1D tensor when is_training is False."),
    "dropout_and_embeddings": _dropout,
    "dropout_bad_rate": _err("ValueError", "rate must be a scalar tensor or a float in the range [0, 1), got 1.5"),
    "dropout_int": _err("ValueError", "x has to be a floating point tensor since it's going to be scaled. Got a "
                                      "<dtype: 'int32'> tensor instead."),
    "dropout_no_rate": _err("ValueError", "You must provide a rate to dropout."),
    "random_tensors": _random_uniform,
    "random_bad_dtype": _err("ValueError", "Invalid dtype tf.string"),
    "stateless_uniform_int_no_max": _err("ValueError", "Must specify maxval for integer dtype tf.int64"),
}
