"""TF 1.x programs of the gradient accumulators of synchronous training: tf.ConditionalAccumulator
and tf.SparseConditionalAccumulator (apply_grad, take_grad, num_accumulated, set_global_step,
apply_indexed_slices_grad, take_indexed_slices_grad), run under TensorFlow
(gen_expectations.py programs_accumulators records them) and under tfc (test_differential.py).
Node names and types, values, shapes and error texts are compared.
"""
from programs import _ops
from programs_opstail import _first_line, _r


def dense_mean_and_steps(tf):
    q = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    a0 = q.apply_grad([1.0, 2.0])
    a1 = q.apply_grad(tf.constant([3.0, 5.0]), local_step=0)
    take = q.take_grad(2)
    n = q.num_accumulated()
    late = q.apply_grad([9.0, 9.0], local_step=0)
    now = q.apply_grad([0.5, 0.25], local_step=tf.constant(1, tf.int64))
    step = tf.placeholder(tf.int64, [], name="step")
    set_step = q.set_global_step(step)
    take1 = q.take_grad(1, name="take_one")
    r = {"ops": _ops(tf), "name": q.name, "dtype": q.dtype.name, "take_shape": str(take.shape),
         "ref": [q.accumulator_ref.name, q.accumulator_ref.dtype.name]}
    with tf.Session() as s:
        r["counts"] = [int(s.run(n))]
        s.run([a0])
        s.run(a1)
        r["counts"].append(int(s.run(n)))
        r["mean"] = _r(s.run(take))
        s.run(late)
        r["counts"].append(int(s.run(n)))
        s.run(now)
        r["after_step"] = _r(s.run(take1))
        s.run(set_step, {step: 7})
        s.run(now)
        r["counts"].append(int(s.run(n)))
        s.run(q.apply_grad([4.0, 8.0], local_step=7))
        s.run(set_step, {step: 0})
        s.run(q.apply_grad([2.0, 2.0], local_step=0))
        r["counts"].append(int(s.run(n)))
        r["after_set"] = _r(s.run(take))
    return r


def dense_sum_double_unknown_shape(tf):
    q = tf.ConditionalAccumulator(tf.float64, reduction_type="SUM", shared_name="w/grad_accum")
    g = tf.placeholder(tf.float64, None, name="g")
    ap = q.apply_grad(g)
    take = q.take_grad(2)
    r = {"ops": _ops(tf), "take_shape": str(take.shape)}
    with tf.Session() as s:
        s.run(ap, {g: [[1.0], [2.5]]})
        s.run(ap, {g: [[0.25], [-1.0]]})
        s.run(ap, {g: [[1.0], [1.0]]})
        r["sum"] = _r(s.run(take))
    return r


def dense_shape_mismatch(tf):
    q = tf.ConditionalAccumulator(tf.float32)
    g = tf.placeholder(tf.float32, None, name="g")
    ap = q.apply_grad(g)
    with tf.Session() as s:
        s.run(ap, {g: [1.0, 2.0]})
        try:
            s.run(ap, {g: [1.0, 2.0, 3.0]})
        except tf.errors.OpError as e:
            lines = [x for x in str(e).split("\n") if x and not x.startswith(("Graph execution error",
                                                                                "Detected at node", "  ", "Node:"))]
            return {"error": [type(e).__name__, lines[0]]}
    return {"error": None}


def take_needs_one(tf):
    q = tf.ConditionalAccumulator(tf.float32, shape=[])
    return {"error": _first_line(tf, q.take_grad(0))}


def static_shape_checked(tf):
    q = tf.ConditionalAccumulator(tf.float32, shape=[2])
    try:
        q.apply_grad([1.0, 2.0, 3.0])
    except ValueError as e:
        return {"error": ["ValueError", str(e)]}
    return {"error": None}


def bad_reduction_type(tf):
    try:
        tf.ConditionalAccumulator(tf.float32, reduction_type="MAX")
    except ValueError as e:
        return {"error": ["ValueError", str(e)]}
    return {"error": None}


def take_waits_for_gradients(tf):
    q = tf.ConditionalAccumulator(tf.float32, shape=[1])
    take = q.take_grad(1)
    with tf.Session() as s:
        s.run(q.apply_grad([1.0], local_step=5))
        first = _r(s.run(take))
        try:
            s.run(take, options=tf.RunOptions(timeout_in_ms=200))
        except tf.errors.OpError as e:
            return {"first": first, "second": type(e).__name__}
    return {"first": first, "second": None}


def sparse_mean_per_index(tf):
    q = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2], name="emb_accum")
    a0 = q.apply_grad([0, 2], [[1.0, 1.0], [2.0, 2.0]], grad_shape=[4, 2])
    a1 = q.apply_indexed_slices_grad(
        tf.IndexedSlices(tf.constant([[4.0, 4.0], [6.0, 6.0]]), tf.constant([2, 3], tf.int64),
                         tf.constant([4, 2], tf.int64)))
    a2 = q.apply_grad(tf.constant([1], tf.int32), tf.constant([[8.0, 8.0]]), local_step=3)
    n = q.num_accumulated()
    take = q.take_indexed_slices_grad(2)
    r = {"ops": _ops(tf), "name": q.name, "slices": [type(take).__name__, take.values.name, take.indices.name,
                                                     take.dense_shape.name, take.dtype.name]}
    with tf.Session() as s:
        s.run([a0])
        s.run(a1)
        r["count"] = int(s.run(n))
        r["take"] = _r(s.run([take.indices, take.values, take.dense_shape]))
        s.run(a0)  # stale now: the take stepped the global step to 1
        s.run(a2)
        s.run(q.set_global_step(5))
        s.run(a2)  # stale again
        r["count_after"] = int(s.run(n))
        t = q.take_grad(1)
        r["take_grad"] = _r(s.run([t.indices, t.values, t.shape]))
        r["take_grad_type"] = [type(t).__name__, list(t._fields)]
    return r


def sparse_sum_unknown_shape(tf):
    q = tf.SparseConditionalAccumulator(tf.float64, reduction_type="SUM")
    i = tf.placeholder(tf.int64, [None], name="i")
    v = tf.placeholder(tf.float64, None, name="v")
    ap = q.apply_grad(i, v)
    t = q.take_grad(3)
    with tf.Session() as s:
        s.run(ap, {i: [2, 0], v: [1.0, 2.0]})
        s.run(ap, {i: [2, 3], v: [4.0, 6.0]})
        s.run(ap, {i: [0], v: [0.5]})
        return {"ops": _ops(tf), "take": _r(s.run(list(t)))}


def sparse_index_out_of_shape(tf):
    q = tf.SparseConditionalAccumulator(tf.float32, shape=[3])
    return {"error": _first_line(tf, q.apply_grad([5], [1.0]))}


PROGRAMS = [
    dense_mean_and_steps, dense_sum_double_unknown_shape, dense_shape_mismatch, take_needs_one, static_shape_checked,
    bad_reduction_type, take_waits_for_gradients, sparse_mean_per_index, sparse_sum_unknown_shape,
    sparse_index_out_of_shape,
]
