"""TF 1.x programs of the op-level long tail (ops/linalg_ops.py, check_ops.py, image_ops.py,
script_ops.py, string_ops.py, the nn additions): node names and op types, values on fixed
inputs, and the errors of bad arguments. Recorded by gen_expectations.py into
expectations_opstail.json.

Where the two libraries build different graphs by design (einsum: 2.x's Einsum op, 1.15's and
tfc's transpose/reshape/MatMul; batch_gather; swish: 2.x's custom gradient; the diagonal
family: 2.x's MatrixDiagV3 etc., 1.15's and tfc's MatrixDiag), only values are compared. Ops that a cond captures are listed sorted (the Switch of a captured tensor comes
before or after its consumer depending on the library). Floats are rounded to 4 decimals.
"""
import re

import numpy as np

from programs import _ops, _val


def _r(v, decimals=4):
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


def _first_line(tf, t, feed=None):
    """The class and first message line of the error running t (TF 2.x prefixes "Graph
    execution error:" and the node's Python frames; tfc names the node the same way)."""
    try:
        _run(tf, t, feed)
    except tf.errors.OpError as e:
        lines = [x for x in str(e).split("\n") if x and not x.startswith(("Graph execution error",
                                                                            "Detected at node", "  ", "Node:"))]
        return [type(e).__name__, lines[0]]
    return None


A = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]], np.float32)


def norms(tf):
    a = tf.constant(A, name="a")
    r = [tf.norm(a), tf.norm(a, ord=1, axis=1), tf.norm(a, axis=[0, 1]), tf.norm(a, ord=np.inf, axis=0),
         tf.norm(a, ord=3, axis=1, keepdims=True), tf.norm(a, ord="fro", axis=(0, 1), name="fro"),
         tf.norm(a, ord=1, axis=(0, 1)), tf.norm(a, ord=np.inf, axis=(0, 1)), tf.linalg.norm(a, keep_dims=True)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def norm_bad_ord(tf):
    tf.norm(tf.constant([1.0]), ord=-1)


def norm_bad_axis(tf):
    tf.norm(tf.constant([[1.0]]), axis=(0, 0))


def norm_bad_matrix_ord(tf):
    tf.norm(tf.constant([[1.0]]), ord=3, axis=(0, 1))


def variances(tf):
    a = tf.constant(A, name="a")
    r = [tf.math.reduce_variance(a), tf.math.reduce_std(a, axis=1, keepdims=True),
         tf.math.reduce_variance(a, 0, name="v0")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def variance_int(tf):
    tf.math.reduce_variance(tf.constant([1, 2]))


def einsums(tf):
    a = tf.constant(A, name="a")
    b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="b")
    c = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4), name="c")
    r = [tf.einsum("ij,jk->ik", a, b), tf.einsum("ij->ji", a), tf.einsum("ij,ij->i", a, a),
         tf.einsum("ij->", a), tf.einsum("bij,jk->bik", c[:, :, :3], b), tf.einsum("ij,kl->ijkl", a, a),
         tf.einsum("bij,bjk->bik", c, tf.transpose(c, [0, 2, 1])), tf.einsum("ij,jk", a, b),
         tf.einsum("i,i->", a[0], a[1]), tf.einsum("ijk->kj", c)]
    return {"values": _r(_run(tf, r))}


def einsum_bad_count(tf):
    tf.einsum("ij,jk->ik", tf.constant([[1.0]]))


def top_ks(tf):
    a = tf.constant(A, name="a")
    t1 = tf.nn.top_k(a, 2)
    t2 = tf.math.top_k(a, k=1, sorted=True, name="tk")
    r = _run(tf, [t1, t2])
    return {"ops": _ops(tf), "types": [type(t1).__name__, list(t1._fields)],
            "names": [t1.values.name, t1.indices.name, t2[0].name],
            "values": [_r(r[0].values), _val(r[0].indices), _r(r[1].values), _val(r[1].indices)]}


def accumulate(tf):
    a = tf.constant([1.0, 2.0], name="a")
    r = [tf.accumulate_n([a, a, a]), tf.accumulate_n([a]), tf.accumulate_n([a], name="one"),
         tf.math.accumulate_n([a, [3.0, 4.0]], name="acc")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def accumulate_bad(tf):
    tf.accumulate_n([tf.constant([1.0]), tf.constant([1])])


def batch_gathers(tf):
    a = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4), name="a")
    r = [tf.batch_gather(a, [[1], [0], [3]]), tf.batch_gather(a, [[0, 2], [1, 1], [3, 0]])]
    return {"shapes": [str(t.shape) for t in r], "values": _r(_run(tf, r))}


def random_crops(tf):
    a = tf.constant(np.arange(16, dtype=np.float32).reshape(4, 4, 1), name="a")
    c = tf.random_crop(a, [2, 3, 1], seed=3)
    v = _run(tf, c)
    flat = np.arange(16).reshape(4, 4)
    found = any(np.array_equal(v[:, :, 0], flat[i:i + 2, j:j + 3]) for i in range(3) for j in range(2))
    return {"ops": _ops(tf), "name": c.name, "shape": str(c.shape), "is_window": found}


def random_crop_too_big(tf):
    c = tf.random_crop(tf.zeros([2, 2]), [3, 1], seed=1)
    return _first_line(tf, c)


def asserts(tf):
    x = tf.constant([1.0, 2.0], name="x")
    y = tf.placeholder(tf.float32, [2], name="y")
    ops_ = [tf.assert_equal(x, x), tf.assert_less(x, y), tf.assert_rank(x, 1), tf.assert_type(x, tf.float32),
            tf.assert_integer(tf.constant(1, name="i"))]
    with tf.control_dependencies(ops_):
        out = tf.identity(x, name="out")
    ok = _run(tf, out, {y: [5.0, 5.0]})
    return {"ops": sorted(_ops(tf)), "ok": _r(ok),
            "fail": _first_line(tf, out, {y: [0.0, 5.0]})}


def asserts_positive(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    r = [tf.assert_positive(x), tf.assert_non_negative(x, message="nn"), tf.assert_negative(-x - 1),
         tf.assert_non_positive(-x), tf.assert_greater(x + 1, x), tf.assert_greater_equal(x, x),
         tf.assert_less_equal(x, x), tf.assert_none_equal(x, x + 1)]
    with tf.control_dependencies(r):
        out = tf.identity(x, name="out")
    fails = []
    for i, a in enumerate(r[:4]):
        with tf.control_dependencies([a]):
            fails.append(_first_line(tf, tf.identity(x, name="f%d" % i), {x: [1.0, -2.0] if i < 2 else [-1.0, 2.0]}))
    return {"ops": sorted(_ops(tf)), "ok": _r(_run(tf, out, {x: [1.0, 2.0]})), "fail": fails}


def assert_static_equal(tf):
    tf.assert_equal(tf.constant(1), tf.constant(2))


def assert_static_less_message(tf):
    tf.assert_less(2, 1, message="hey")


def assert_rank_static(tf):
    tf.assert_rank(tf.constant([[1.0]], name="m"), 3, message="m")


def assert_rank_dynamic(tf):
    x = tf.placeholder(tf.float32, name="x")
    a = tf.assert_rank(x, 2)
    with tf.control_dependencies([a]):
        out = tf.identity(x)
    return {"ops": sorted(_ops(tf)), "ok": _val(_run(tf, out, {x: [[1.0]]})), "fail": _first_line(tf, out, {x: [1.0]})}


def assert_type_bad(tf):
    tf.assert_type(tf.constant([1.0], name="f"), tf.int32)


def assert_integer_bad(tf):
    tf.assert_integer(tf.constant([1.0], name="f"))


def assert_op(tf):
    x = tf.placeholder(tf.int32, [2], name="x")
    a = tf.Assert(tf.reduce_all(x > 0), ["x must be positive", x], name="check")
    with tf.control_dependencies([a]):
        out = tf.identity(x, name="out")
    return {"ops": _ops(tf), "type": a.type, "ok": _val(_run(tf, out, {x: [1, 2]})),
            "fail": _first_line(tf, out, {x: [1, -2]})}


def assert_op_guarded(tf):
    x = tf.placeholder(tf.float32, [1], name="x")
    a = tf.Assert(tf.reduce_all(x > 0), [x])
    with tf.control_dependencies([a]):
        out = tf.identity(x, name="out")
    return {"ops": sorted(_ops(tf)), "name": a.name, "type": a.type, "ok": _val(_run(tf, out, {x: [1.0]})),
            "fail": _first_line(tf, out, {x: [-1.0]})}


def checks(tf):
    x = tf.placeholder(tf.float32, name="x")
    c = tf.check_numerics(x, "bad x")
    v = tf.verify_tensor_all_finite(x, "not finite")
    n = tf.no_op(name="nothing")
    return {"ops": _ops(tf), "names": [c.name, v.name, n.name, n.type], "ok": _val(_run(tf, [c, v], {x: 1.5})),
            "nan": _first_line(tf, c, {x: np.nan}), "inf": _first_line(tf, v, {x: np.inf})}


def uninitialized(tf):
    a = tf.Variable([1.0], name="a")
    tf.Variable([2.0], name="b")
    r = tf.report_uninitialized_variables()
    with tf.Session() as s:
        before = s.run(r)
        s.run(a.initializer)
        after = s.run(r)
    return {"name": r.name, "before": _val(before), "after": _val(after)}


def uninitialized_none(tf):
    r = tf.report_uninitialized_variables()
    return {"ops": _ops(tf), "value": _val(_run(tf, r))}


def conv1ds(tf):
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(1, 4, 2), name="x")
    w = tf.constant(np.ones((2, 2, 3), np.float32), name="w")
    r = [tf.nn.conv1d(x, w, 1, "VALID"), tf.nn.conv1d(x, w, stride=2, padding="SAME", name="c2"),
         tf.nn.conv1d(input=x, filters=w, stride=[1], padding="VALID", dilations=2)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def conv1d_bad_format(tf):
    tf.nn.conv1d(tf.zeros([1, 4, 1]), tf.zeros([2, 1, 1]), 1, "VALID", data_format="NHCW")


def conv2d_transposes(tf):
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2), name="x")
    w = tf.constant(np.ones((3, 3, 1, 2), np.float32), name="w")
    r = [tf.nn.conv2d_transpose(x, w, [1, 4, 4, 1], [1, 2, 2, 1]),
         tf.nn.conv2d_transpose(x, w, tf.constant([1, 2, 2, 1]), 1, padding="SAME", name="same")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def swishes(tf):
    a = tf.constant(A, name="a")
    return {"values": _r(_run(tf, tf.nn.swish(a)))}


def zero_fractions(tf):
    a = tf.constant([[0.0, 1.0], [0.0, 0.0]], name="a")
    z = tf.nn.zero_fraction(a)
    z2 = tf.nn.zero_fraction(tf.constant([1, 2, 0]), name="zi")
    return {"ops": sorted(_ops(tf)), "names": [z.name, z2.name], "values": _r(_run(tf, [z, z2]))}


def image_flips(tf):
    img = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2), name="img")
    batch = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 2, 3, 2), name="batch")
    r = [tf.image.flip_left_right(img), tf.image.flip_up_down(img), tf.image.flip_left_right(batch),
         tf.image.flip_up_down(batch)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def image_flip_bad_rank(tf):
    tf.image.flip_left_right(tf.zeros([2, 2]))


def random_flips(tf):
    img = tf.constant(np.arange(6, dtype=np.float32).reshape(1, 3, 2), name="img")
    r = [tf.image.random_flip_left_right(img, seed=1), tf.image.random_flip_up_down(img, seed=2)]
    v = _run(tf, r)
    lr = np.arange(6, dtype=np.float32).reshape(1, 3, 2)
    return {"names_start": [t.name.split("/")[0] for t in r],
            "is_flip_or_same": [bool(np.array_equal(v[0], lr) or np.array_equal(v[0], lr[:, ::-1])),
                                bool(np.array_equal(v[1], lr))]}


def standardization(tf):
    img = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2), name="img")
    ones = tf.ones([2, 2, 1], name="ones")
    ints = tf.constant(np.arange(8, dtype=np.uint8).reshape(2, 2, 2), name="ints")
    r = [tf.image.per_image_standardization(img), tf.image.per_image_standardization(ones),
         tf.image.per_image_standardization(ints)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def convert_dtypes(tf):
    u8 = tf.constant([[[0, 128, 255]]], tf.uint8, name="u8")
    f = tf.constant([[[0.0, 0.5, 1.0]]], name="f")
    r = [tf.image.convert_image_dtype(u8, tf.float32), tf.image.convert_image_dtype(f, tf.uint8),
         tf.image.convert_image_dtype(f, tf.uint8, saturate=True, name="sat"),
         tf.image.convert_image_dtype(u8, tf.int32), tf.image.convert_image_dtype(f, tf.float64),
         tf.image.convert_image_dtype(f, tf.float32)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r],
            "values": _r(_run(tf, r))}


def crops_and_pads(tf):
    img = tf.constant(np.arange(32, dtype=np.float32).reshape(4, 4, 2), name="img")
    batch = tf.constant(np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2), name="batch")
    r = [tf.image.central_crop(img, 0.5), tf.image.central_crop(batch, 0.6),
         tf.image.pad_to_bounding_box(img, 1, 0, 6, 5), tf.image.crop_to_bounding_box(img, 1, 1, 2, 3),
         tf.image.crop_to_bounding_box(batch, 0, 2, 4, 2), tf.image.central_crop(img, 1.0)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def central_crop_bad(tf):
    tf.image.central_crop(tf.zeros([4, 4, 1]), 1.5)


def pad_box_bad(tf):
    tf.image.pad_to_bounding_box(tf.zeros([4, 4, 1]), 1, 1, 4, 4)


def crop_box_bad(tf):
    tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 3, 0, 2, 2)


def brightness(tf):
    img = tf.constant([[[0.25, 0.5]]], name="img")
    u8 = tf.constant([[[10, 250]]], tf.uint8, name="u8")
    r = [tf.image.adjust_brightness(img, 0.5), tf.image.adjust_brightness(u8, 0.1)]
    rb = tf.image.random_brightness(img, 0.2, seed=4)
    v = _run(tf, r + [rb])
    return {"names": [t.name for t in r], "values": _r(v[:2]),
            "random_in_range": bool(np.all(np.abs(v[2] - np.array([[[0.25, 0.5]]])) <= 0.2 + 1e-6))}


def py_funcs(tf):
    x = tf.constant([1.0, 2.0], name="x")
    r1 = tf.py_func(lambda v: v * 2, [x], tf.float32)
    r2 = tf.py_func(lambda a, b: (a + b, (a - b).astype(np.int64)), [x, 3.0], [tf.float32, tf.int64],
                    name="two")
    r3 = tf.py_func(lambda: np.array(7, np.int32), [], tf.int32, stateful=False, name="nullary")
    r4 = tf.numpy_function(lambda s: s + b"!", [tf.constant(b"a", name="s")], tf.string)
    r5 = tf.py_func(lambda v: np.array([b"p", "q"]), [x], tf.string)
    op = tf.py_func(lambda v: None, [x], [])
    ops_ = [o for o in tf.get_default_graph().get_operations() if o.type.startswith("PyFunc")]
    attrs = [[o.name, o.type, [t.name for t in o.get_attr("Tin")], [t.name for t in o.get_attr("Tout")],
              [str(t.shape) for t in o.outputs]] for o in ops_]
    with tf.Session() as s:
        vals = s.run([r1, r2, r3, r4, r5])
        nothing = s.run(op)
    return {"ops": _ops(tf), "attrs": attrs, "names": [r1.name, r2[0].name, r2[1].name, r3.name],
            "values": _r(vals[:3]) + [_val(vals[3]), _val(vals[4])], "op": [type(op).__name__, nothing]}


def py_func_errors(tf):
    x = tf.constant([1.0], name="x")

    def raise_(cls):
        def f(v):
            raise cls("boom")
        return f
    out = {}
    for key, cls in (("value", ValueError), ("type", TypeError), ("runtime", RuntimeError),
                     ("stop", StopIteration), ("unimpl", NotImplementedError), ("memory", MemoryError)):
        out[key] = _first_line(tf, tf.py_func(raise_(cls), [x], tf.float32))
    out["dtype"] = _first_line(tf, tf.py_func(lambda v: v.astype(np.float64), [x], tf.float32, name="dt"))
    out["count"] = _first_line(tf, tf.py_func(lambda v: (v, v), [x], [tf.float32], name="cnt"))
    out["none"] = _first_line(tf, tf.py_func(lambda v: None, [x], tf.float32, name="none"))
    # tokens count the process's py_funcs: the number depends on what ran before
    return {k: [v[0], re.sub(r"pyfunc_\d+", "pyfunc_N", v[1])] for k, v in out.items()}


def py_func_not_callable(tf):
    tf.py_func(3, [], tf.float32)


def string_joins(tf):
    a = tf.constant(["a", "b"], name="a")
    r = [tf.string_join([a, "x"], separator="-"), tf.strings.join(["p", "q"]), tf.string_join([a, a], name="j")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _val(_run(tf, r))}


def special_functions(tf):
    a = tf.constant(A, name="a")
    p = tf.constant(np.abs(A) + 0.5, name="p")
    r = [tf.erf(a), tf.erfc(a), tf.lgamma(p), tf.digamma(p), tf.atan2(a, p), tf.math.erf(a, name="e"),
         tf.math.lgamma(tf.constant([-1.5, 0.5, 30.0], tf.float64))]
    return {"ops": _ops(tf), "names": [t.name for t in r], "values": _r(_run(tf, r))}


def guarded_divisions(tf):
    a = tf.constant(A, name="a")
    z = tf.constant([0.0, 2.0, 0.0], name="z")
    r = [tf.div_no_nan(a, z), tf.math.divide_no_nan(a, 0.0, name="dnn")]
    x = [tf.math.xdivy(a, z), tf.math.xlogy(tf.abs(a) * tf.constant([0.0, 1.0, 1.0]), tf.abs(a) + 1)]
    return {"ops": _ops(tf)[:8], "names": [t.name for t in r], "values": _r(_run(tf, r + x))}


def div_no_nan_mismatch(tf):
    tf.div_no_nan(tf.constant([1.0]), tf.constant([1], name="i"))


def segments(tf):
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], name="d")
    ids = tf.constant([0, 0, 2, 2], name="ids")
    r = [tf.segment_sum(d, ids), tf.segment_mean(d, ids), tf.segment_prod(d, ids), tf.segment_max(d, ids),
         tf.segment_min(d, ids, name="smin"), tf.math.segment_sum(tf.constant([1, 2, 3]), [1, 1, 3]),
         tf.unsorted_segment_sum(d, [1, 0, 1, -1], 3), tf.unsorted_segment_max(d, [1, 0, 1, 1], 3),
         tf.unsorted_segment_min(d, [2, 2, 0, 0], 3), tf.math.unsorted_segment_prod(d, [0, 0, 0, 1], 2)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def segment_errors(tf):
    d = tf.constant([1.0, 2.0, 3.0], name="d")
    ids = tf.placeholder(tf.int32, [3], name="ids")
    s = tf.segment_sum(d, ids)
    u = tf.unsorted_segment_max(d, ids, 2)
    return {"unsorted": _first_line(tf, s, {ids: [1, 0, 0]}), "negative": _first_line(tf, s, {ids: [-1, 0, 0]}),
            "all_negative": _first_line(tf, s, {ids: [-3, -3, -3]}), "range": _first_line(tf, u, {ids: [0, 5, 1]})}


def segment_shape_error(tf):
    tf.segment_sum(tf.constant([1.0, 2.0]), tf.constant([0, 0, 1]))


def diagonals(tf):
    a = tf.constant(A, name="a")
    sq = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="sq")
    r = [tf.diag([1, 2], name="dg"), tf.diag(sq), tf.diag_part(tf.diag(sq)), tf.matrix_band_part(sq, 0, -1),
         tf.matrix_band_part(tf.ones([3, 3]), 1, 0), tf.linalg.band_part(a, 0, 1), tf.trace(sq)]
    m = [tf.matrix_diag(sq), tf.matrix_diag_part(a), tf.matrix_set_diag(a, [7.0, 8.0]), tf.eye(2),
         tf.eye(2, 3, dtype=tf.int32), tf.eye(2, batch_shape=[2]), tf.linalg.diag([1.0, 2.0]),
         tf.linalg.diag_part(sq), tf.linalg.set_diag(sq, [0.0, 0.0]), tf.linalg.trace(a)]
    return {"names": [t.name for t in r], "shapes": [str(t.shape) for t in r + m],
            "values": _r(_run(tf, r + m))}


def diag_errors(tf):
    return [_catch(lambda: tf.diag_part(tf.ones([2, 3]))), _catch(lambda: tf.matrix_diag_part(tf.ones([2]))),
            _catch(lambda: tf.matrix_set_diag(tf.ones([2, 2]), tf.ones([3]))),
            _catch(lambda: tf.diag(tf.constant(1.0)))]


def _catch(f):
    try:
        f()
    except (ValueError, TypeError) as e:
        return [type(e).__name__, str(e).replace("{{node ", "").split(" for ")[0]]
    return None


def band_part_too_wide(tf):
    return _first_line(tf, tf.matrix_band_part(tf.placeholder_with_default(tf.ones([2, 2]), None), 3, 0))


def solvers(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
    b = tf.constant(np.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 1.0], [2.0, 5.0]]]), name="b")
    rhs = tf.constant([[1.0], [2.0]], name="rhs")
    r = [tf.matrix_inverse(a), tf.matrix_inverse(a, adjoint=True), tf.matrix_determinant(a),
         tf.matrix_determinant(b), tf.cholesky(tf.constant([[4.0, 2.0], [2.0, 3.0]])), tf.matrix_solve(a, rhs),
         tf.matrix_solve(a, rhs, adjoint=True), tf.linalg.inv(b), tf.linalg.det(tf.ones([2, 2])),
         tf.linalg.solve(b, tf.ones([2, 2, 1], tf.float64)), tf.linalg.cholesky(b)]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def solver_errors(tf):
    ones = tf.ones([2, 2], name="ones")
    return {"inverse": _first_line(tf, tf.matrix_inverse(ones)),
            "solve": _first_line(tf, tf.matrix_solve(ones, [[1.0], [2.0]]))}


def determinant_not_square(tf):
    tf.matrix_determinant(tf.ones([2, 3]))


def prints(tf):
    a = tf.constant(A, name="a")
    p = tf.Print(a, [a, "x", tf.constant([True, False])], "msg: ", summarize=4)
    q = tf.Print(a, [a], first_n=1, name="once")
    return {"ops": _ops(tf), "names": [p.name, q.name], "values": _r(_run(tf, [p, q]))}


def strings(tf):
    s = tf.constant(["hello", "", "h\u00e9llo"], name="s")
    r = [tf.as_string(1.5), tf.as_string([1, 2], name="ints"), tf.as_string([True, False]),
         tf.as_string(3.14159, precision=2), tf.as_string(1234.5, scientific=True), tf.as_string(0.1, shortest=True),
         tf.as_string(7, width=4, fill="0"), tf.strings.as_string(7, width=4), tf.strings.length(s),
         tf.strings.length(s, unit="UTF8_CHAR"), tf.substr("hello", 1, 2), tf.substr(s, [1, 0, 0], [10, 1, 2]),
         tf.substr("hello", -2, 2), tf.strings.substr(s, 1, 2, unit="UTF8_CHAR"), tf.string_to_number("1.5"),
         tf.string_to_number(["3", "-4"], out_type=tf.int32), tf.string_to_number("1e3", tf.float64),
         tf.strings.to_number("3"), tf.encode_base64("a"), tf.encode_base64(["hello", "", "ab?>"], pad=True),
         tf.decode_base64(tf.encode_base64("hello world")), tf.decode_base64("YWJj")]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def string_errors(tf):
    p = tf.placeholder(tf.string, name="p")
    return {"substr": _first_line(tf, tf.substr(p, 7, 2), {p: "hello"}),
            "number": _first_line(tf, tf.string_to_number(p), {p: "abc"}),
            "int_number": _first_line(tf, tf.string_to_number(p, tf.int32), {p: "1.5"}),
            "base64": _first_line(tf, tf.decode_base64(p), {p: "Y!!!"}),
            "substr_empty": _first_line(tf, tf.substr(p, 1, 1), {p: ""}),
            "substr_utf8": _first_line(tf, tf.substr(p, 9, 1, unit="UTF8_CHAR"), {p: "abc"})}


def string_splits(tf):
    a = tf.string_split(["a b", "c  d e", ""])
    b = tf.string_split(["a,b", "c,,d"], delimiter=",", skip_empty=False)
    c = tf.string_split(["abc", "de"], delimiter="")
    d = tf.string_split(tf.constant(["x-y z"]), "- ")
    r = _run(tf, [a, b, c, d])
    return {"ops": _ops(tf), "names": [a.indices.name, a.values.name, a.dense_shape.name],
            "shapes": [str(a.indices.shape), str(a.values.shape), str(a.dense_shape.shape)],
            "values": [_val(list(v)) for v in r]}


def files(tf):
    import tempfile
    d = tempfile.mkdtemp()
    path = d + "/sub/dir/f.bin"
    w = tf.write_file(path, tf.constant(b"\x00bytes\xff", name="data"))
    rd = tf.read_file(path)
    missing = tf.read_file(d + "/missing", name="missing")
    with tf.Session() as s:
        s.run(w)
        got = s.run(rd)
    err = _first_line(tf, missing)
    return {"ops": _ops(tf)[-4:], "types": [w.type, rd.op.type], "value": _val(got),
            "missing": [err[0], err[1].replace(d, "<dir>")]}


def uniques(tf):
    r = [tf.unique([1, 1, 2]), tf.unique(["b", "a", "b"], out_idx=tf.int64), tf.unique_with_counts([3, 1, 3, 3]),
         tf.setdiff1d([1, 2, 3], [2]), tf.setdiff1d(["a", "b"], ["c", "a"], index_dtype=tf.int64)]
    v = _run(tf, r)
    return {"ops": _ops(tf), "types": [[type(t).__name__, list(t._fields)] for t in r],
            "shapes": [[str(x.shape) for x in t] for t in r], "values": [_val(list(x)) for x in v]}


def unique_bad_rank(tf):
    tf.unique(tf.constant([[1, 2]], name="m"))


def scatters(tf):
    r = [tf.scatter_nd([[0], [1]], [1.0, 2.0], [3]), tf.scatter_nd([[0, 1], [0, 1]], [1, 2], [2, 2], name="dup"),
         tf.scatter_nd([[1]], [[1.0, 2.0]], tf.constant([2, 2])), tf.invert_permutation([2, 0, 1])]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _val(_run(tf, r)),
            "bad": _first_line(tf, tf.scatter_nd([[0], [5]], [1.0, 2.0], [3]))}


def bincounts(tf):
    r = [tf.math.bincount([1, 1, 2]), tf.math.bincount([1, 1, 2], minlength=5, maxlength=2),
         tf.math.bincount([1, 1, 2], weights=[0.5, 1.0, 2.0]), tf.math.bincount([], dtype=tf.float32),
         tf.math.bincount([0, 4], minlength=6)]
    return {"values": _val(_run(tf, r)), "negative": _first_line(tf, tf.math.bincount([-1, 1]))}


def confusion(tf):
    r = [tf.confusion_matrix([0, 1], [1, 1]),
         tf.math.confusion_matrix([0, 1, 2], [1, 1, 2], num_classes=4, weights=[1.0, 2.0, 3.0], dtype=tf.float32)]
    return {"ops": sorted(_ops(tf)), "names": [t.name for t in r], "values": _val(_run(tf, r)),
            "negative": _first_line(tf, tf.confusion_matrix([-1], [0]))}


def resizes(tf):
    img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    small = tf.reshape(tf.range(4.0), [2, 2, 1])
    r = [tf.image.resize_images(img, [2, 3]), tf.image.resize_images(small, [4, 3]),
         tf.image.resize_images(small, [3, 3], align_corners=True),
         tf.image.resize_images(tf.cast(small, tf.int32), [3, 5], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
         tf.image.resize_images(small, [2, 2]),
         tf.image.resize_bilinear(tf.reshape(tf.range(9.0), [1, 3, 3, 1]), [2, 5], half_pixel_centers=True),
         tf.image.resize_nearest_neighbor(tf.reshape(tf.range(9.0), [1, 3, 3, 1]), [5, 2], half_pixel_centers=True),
         tf.image.resize_nearest_neighbor(tf.reshape(tf.range(9), [1, 3, 3, 1]), [5, 2], align_corners=True),
         tf.image.resize_bilinear(tf.constant(np.arange(12, dtype=np.uint8).reshape(1, 2, 3, 2)), [3, 2])]
    return {"ops": _ops(tf), "names": [t.name for t in r], "shapes": [str(t.shape) for t in r],
            "values": _r(_run(tf, r))}


def resize_bad_rank(tf):
    tf.image.resize_images(tf.ones([2, 2]), [4, 4])


def resize_bad_size(tf):
    tf.image.resize_images(tf.ones([2, 2, 1]), [4, 4, 4])


def depthwise(tf):
    x = tf.reshape(tf.range(18.0), [1, 3, 3, 2])
    r = [tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 2, 2]), [1, 1, 1, 1], "VALID"),
         tf.nn.depthwise_conv2d(x, tf.reshape(tf.range(8.0), [2, 2, 2, 1]), [1, 2, 2, 1], "SAME", name="dw"),
         tf.nn.depthwise_conv2d_native(x, tf.ones([2, 2, 2, 2]), [1, 1, 1, 1], "VALID"),
         tf.nn.separable_conv2d(x, tf.ones([2, 2, 2, 2]), tf.reshape(tf.range(12.0), [1, 1, 4, 3]), [1, 1, 1, 1],
                                "SAME")]
    d = tf.nn.depthwise_conv2d(tf.reshape(tf.range(32.0), [1, 4, 4, 2]), tf.ones([2, 2, 2, 1]), [1, 1, 1, 1],
                               "VALID", rate=[2, 2], name="dilated")
    return {"ops": _ops(tf)[:30], "names": [t.name for t in r], "shapes": [str(t.shape) for t in r + [d]],
            "values": _r(_run(tf, r + [d]))}


def depthwise_bad_channels(tf):
    tf.nn.depthwise_conv2d(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 3, 1]), [1, 1, 1, 1], "VALID")


def sparse_to_denses(tf):
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    b = tf.SparseTensor([[0, 0], [1, 2]], ["a", "b"], [2, 3])
    r = [tf.sparse_tensor_to_dense(a, default_value=0.0), tf.sparse.to_dense(a, default_value=-1.0, name="td"),
         tf.sparse_tensor_to_dense(b, default_value=""), tf.sparse_to_dense([[0], [2]], [4], 5.0),
         tf.sparse_to_dense([[0], [2]], [4], [5, 6], default_value=1),
         tf.sparse_tensor_to_dense(tf.string_split(["a b", "c"]), default_value="")]
    p = tf.placeholder(tf.int64, [2, 2], name="p")
    bad = tf.sparse_to_dense(p, [2, 3], [1.0, 2.0])
    return {"ops": [o for o in _ops(tf) if o[1] == "SparseToDense" or o[0].endswith("default_value")],
            "shapes": [str(t.shape) for t in r[:5]], "values": _val(_run(tf, r)),
            "bounds": _first_line(tf, bad, {p: [[0, 0], [1, 5]]}), "order": _first_line(tf, bad, {p: [[1, 0], [0, 2]]}),
            "repeated": _first_line(tf, bad, {p: [[1, 0], [1, 0]]})}


PROGRAMS = [
    norms, norm_bad_ord, norm_bad_axis, norm_bad_matrix_ord, variances, variance_int, einsums, einsum_bad_count,
    top_ks, accumulate, accumulate_bad, batch_gathers, random_crops, random_crop_too_big, asserts,
    asserts_positive, assert_static_equal, assert_static_less_message, assert_rank_static, assert_rank_dynamic,
    assert_type_bad, assert_integer_bad, assert_op, assert_op_guarded, checks, uninitialized, uninitialized_none,
    conv1ds, conv1d_bad_format, conv2d_transposes, swishes, zero_fractions, image_flips, image_flip_bad_rank,
    random_flips, standardization, convert_dtypes, crops_and_pads, central_crop_bad, pad_box_bad, crop_box_bad,
    brightness, py_funcs, py_func_errors, py_func_not_callable, string_joins, special_functions, guarded_divisions,
    div_no_nan_mismatch, segments, segment_errors, segment_shape_error, diagonals, diag_errors, band_part_too_wide,
    solvers, solver_errors, determinant_not_square, prints, strings, string_errors, string_splits, files,
    uniques, unique_bad_rank, scatters, bincounts, confusion, resizes, resize_bad_rank, resize_bad_size,
    depthwise, depthwise_bad_channels, sparse_to_denses,
]

def _err(cls, msg):
    return {"error": [cls, msg]}


def _unscope(prefix):
    def fix(e):
        for op in e["result"]["ops"]:
            if op[0].startswith(prefix):
                op[0] = op[0][len(prefix):]
    return fix


def _set_item(i, value):
    def fix(e):
        e["result"][i] = value
    return fix


def _saturate(e):
    """1.15's saturate_cast clamps with Maximum/Minimum (2.x: ClipByValue)."""
    ops = e["result"]["ops"]
    i = [o[0] for o in ops].index("sat/Const")
    ops[i:i + 3] = [["sat/min", "Const"], ["sat/Maximum", "Maximum"], ["sat/max", "Const"],
                    ["sat/Minimum", "Minimum"]]


TF115 = {
    # 1.15's texts (2.x added the offending value)
    "norm_bad_axis": _err("ValueError", "'axis' must be None, an integer, or a tuple of 2 unique integers"),
    "einsum_bad_count": _err("ValueError", 'Got 1 arguments for equation "ij,jk->ik", expecting 2'),
    "conv1d_bad_format": _err("ValueError", 'data_format must be "NWC" or "NCW".'),
    "py_func_not_callable": _err("ValueError", "Expected func to be callable, got func of type <class 'int'>"),
    "convert_dtypes": _saturate,
    # 1.15's tf.math.xdivy is the raw op (2.x opens an "xdivy" scope)
    "guarded_divisions": _unscope("xdivy/"),
    # 1.15 converts y to x's dtype (2.x converts, then compares the dtypes)
    "div_no_nan_mismatch": _err("ValueError", "Tensor conversion requested dtype float32 for Tensor with dtype int32: "
                                              "'Tensor(\"i:0\", shape=(1,), dtype=int32)'"),
    # 1.15's MatrixSetDiag shape function merges the diagonal's length (2.x's V3 op: no check)
    "diag_errors": _set_item(2, ["ValueError", "Dimensions must be equal, but are 2 and 3"]),
    "unique_bad_rank": _err("ValueError", "Shape must be rank 1 but is rank 2 for 'Unique' (op: 'Unique') with input "
                                          "shapes: [1,2]."),
    "depthwise_bad_channels": _err("ValueError", "Dimensions must be equal, but are 2 and 3 for 'depthwise' (op: "
                                                 "'DepthwiseConv2dNative') with input shapes: [1,3,3,2], [2,2,3,1]."),
    "determinant_not_square": _err("ValueError", "Dimensions must be equal, but are 3 and 2 for 'MatrixDeterminant' "
                                                 "(op: 'MatrixDeterminant') with input shapes: [2,3]."),
}
