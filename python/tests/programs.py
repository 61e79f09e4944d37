"""TF 1.x programs run both under TensorFlow (gen_expectations.py records what they give) and
under tfc (test_differential.py compares). Each takes the `tf` module and returns a dict of
plain data; what it raises is recorded as the exception's class name and message.

A program builds in a fresh default graph. Fetched values are recorded with their dtype.
This module's programs are the graph core's; each area of the API keeps its own in a module
programs_<area>.py beside it (a PROGRAMS list, and optionally TF115: {program name: 1.15's
expectation, or a function fixing the recorded one in place}), recorded into
expectations_<area>.json. The helpers below (_ops, _val, run_program) are theirs too.
"""
import collections
import glob
import os

import numpy as np


def _ops(tf):
    return [[op.name, op.type] for op in tf.get_default_graph().get_operations()]


def _val(v):
    if isinstance(v, (list, tuple)):
        return [_val(x) for x in v]
    if isinstance(v, dict):
        return {k: _val(x) for k, x in sorted(v.items())}
    if isinstance(v, bytes):
        return {"bytes": v.decode("latin-1")}
    if v is None:
        return None
    a = np.asarray(v)
    if a.dtype == object:
        return {"dtype": "object", "value": [x.decode("latin-1") for x in a.reshape(-1)], "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "value": a.tolist(), "shape": list(a.shape),
            "scalar": isinstance(v, np.generic)}


def naming(tf):
    a = tf.constant(1.0, name="foo")
    b = tf.constant(2.0, name="Foo")
    c = tf.constant(3.0, name="foo_1")
    with tf.name_scope("foo") as s1:
        d = tf.constant(4.0)
    with tf.name_scope("scope") as s2:
        with tf.name_scope("inner") as s3:
            e = tf.add(a, b)
    with tf.name_scope("scope/") as s4:
        f = tf.identity(a)
    with tf.name_scope(None, "def") as s5:
        g = tf.identity(a, name="g")
    return {"ops": _ops(tf), "scopes": [s1, s2, s3, s4, s5],
            "names": [t.name for t in (a, b, c, d, e, f, g)]}


def operators(tf):
    x = tf.placeholder(tf.int32, shape=[2], name="x")
    r = [x + 1, 1 + x, x - 2, 3 * x, x / 2, x // 2, x % 2, -x, x < 2, x >= 1, abs(x), x ** 2]
    with tf.Session() as s:
        vals = s.run(r, {x: [3, -4]})
    return {"ops": _ops(tf), "names": [t.name for t in r], "dtypes": [t.dtype.name for t in r],
            "values": _val(vals)}


def float_operators(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([[0.5, -1.0], [2.0, 0.0]])
    r = [a + b, a * b, a / b, a @ b, a - 1.5, 2.0 / a]
    with tf.Session() as s:
        vals = s.run(r)
    return {"ops": _ops(tf), "values": _val(vals), "shapes": [str(t.shape) for t in r]}


def indexing(tf):
    t = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    r = [t[0], t[1, 2], t[:, 1:], t[..., ::2], t[None, 0, :, -1], t[:, tf.newaxis, 1, 1:3], t[1, ..., 2]]
    masks = [[r_.op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                          "shrink_axis_mask")] for r_ in r]
    with tf.Session() as s:
        vals = s.run(r)
    return {"ops": _ops(tf), "masks": masks, "values": _val(vals), "shapes": [str(x.shape) for x in r]}


def constants(tf):
    cs = [tf.constant(1), tf.constant(1.5), tf.constant(True), tf.constant("s"), tf.constant([1, 2]),
          tf.constant(np.float64(2.5)), tf.constant(np.array([1, 2], dtype=np.int64)), tf.constant(2 ** 40),
          tf.constant([1, 2], shape=[4]), tf.constant(7, shape=[2, 2]), tf.constant([[1.0, 2.0]], dtype=tf.float64),
          tf.constant(3, dtype=tf.float32), tf.constant(1 + 2j)]
    with tf.Session() as s:
        vals = s.run(cs)
    return {"dtypes": [c.dtype.name for c in cs], "shapes": [str(c.shape) for c in cs], "values": _val(vals)}


def constant_too_many(tf):
    tf.constant([1, 2, 3, 4, 5, 6], shape=[4])


def constant_bad_type(tf):
    tf.constant(1.5, dtype=tf.int32)


def constant_none(tf):
    tf.constant([1, None])


def shape_error(tf):
    tf.matmul(tf.constant(np.zeros((2, 3), np.float32)), tf.constant(np.zeros((4, 2), np.float32)))


def add_mismatch(tf):
    tf.constant(1) + tf.constant(1.0)


def div_mismatch(tf):
    tf.constant(1) / tf.constant(1.0)


def fetch_structures(tf):
    a = tf.constant(1.0, name="a")
    b = tf.constant([1, 2], name="b")
    P = collections.namedtuple("P", ["x", "y"])
    with tf.Session() as s:
        r = s.run({"a": a, "l": [a, (b, "a:0")], "p": P(a, b), "op": a.op})
    return {"value": _val({"a": r["a"], "l": r["l"], "p": list(r["p"]), "op": r["op"]}),
            "ptype": type(r["p"]).__name__}


def feed_cast(tf):
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    i = tf.placeholder(tf.int32, name="i")
    y = x * 2.0
    with tf.Session() as s:
        return {"values": _val(s.run([y, i, x], {x: [[1, 2]], "i:0": 3.7}))}


def feed_shape_error(tf):
    x = tf.placeholder(tf.float32, shape=[None, 4], name="x")
    with tf.Session() as s:
        s.run(x, {x: [1.0, 2.0, 3.0]})


def feed_overflow(tf):
    x = tf.placeholder(tf.int32, name="x")
    with tf.Session() as s:
        s.run(x, {x: 2 ** 32})


def feed_tensor_value(tf):
    x = tf.placeholder(tf.int32, name="x")
    with tf.Session() as s:
        s.run(x, {x: tf.constant(1)})


def feed_bad_key(tf):
    x = tf.placeholder(tf.int32, name="x")
    with tf.Session() as s:
        s.run(x, {3: 1})


def fetch_none(tf):
    tf.constant(1)
    with tf.Session() as s:
        s.run([None])


def fetch_unknown(tf):
    tf.constant(1, name="c")
    with tf.Session() as s:
        s.run("nope:0")


def fetch_bad_output(tf):
    tf.constant(1, name="c")
    with tf.Session() as s:
        s.run("c:3")


def unfed_placeholder(tf):
    x = tf.placeholder(tf.float32, shape=[None, 32], name="x")
    with tf.Session() as s:
        s.run(x * 2.0)


def closed_session(tf):
    tf.constant(1, name="c")
    s = tf.Session()
    s.close()
    s.run("c:0")


def empty_graph(tf):
    with tf.Session() as s:
        s.run([])


def graph_lookup_errors(tf):
    g = tf.get_default_graph()
    tf.constant(1, name="x")
    out = {}
    for name, allow_t, allow_o in (("y:0", True, True), ("x:5", True, True), ("a:b", True, True),
                                   ("x", True, False), ("nope", True, True), (3, True, True)):
        try:
            g.as_graph_element(name, allow_tensor=allow_t, allow_operation=allow_o)
        except Exception as e:  # noqa: BLE001
            out[str(name)] = [type(e).__name__, str(e)]
    for f, arg in ((g.get_operation_by_name, 1), (g.get_tensor_by_name, 1)):
        try:
            f(arg)
        except Exception as e:  # noqa: BLE001
            out[f.__name__] = [type(e).__name__, str(e)]
    return out


def tensor_misuse(tf):
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    out = {"repr": repr(x), "str": str(x), "shape": str(x.shape), "shape_repr": repr(x.shape),
           "dim": [str(x.shape[0]), str(x.shape[1]), x.get_shape()[1].value]}
    for name, f in (("bool", lambda: bool(x)), ("len", lambda: len(x)), ("iter", lambda: iter(x)),
                    ("set_shape", lambda: x.set_shape([4]))):
        try:
            f()
        except Exception as e:  # noqa: BLE001
            out[name] = [type(e).__name__, str(e)]
    u = tf.placeholder(tf.float32, name="u")
    out["unknown"] = [str(u), str(u.shape), repr(u.shape)]
    return out


def dtypes(tf):
    out = {}
    for v in ("float32", "float", "double", "half", "float32_ref", 1, 9, np.float64, np.int32, float, bool,
              object, np.bytes_, np.str_):
        d = tf.as_dtype(v)
        out[str(v)] = [d.name, repr(d), str(d)]
    try:
        tf.as_dtype(int)
    except TypeError as e:
        out["int"] = str(e)
    out["eq"] = [tf.float32 == np.float32, tf.float32 == tf.float32, tf.float32 != tf.int32,
                 tf.float32._as_ref.base_dtype == tf.float32, tf.string.as_numpy_dtype is object]
    return out


def collections_(tf):
    tf.add_to_collection("c", 1)
    a = tf.constant(1, name="GPU_0/a")
    b = tf.constant(1, name="GPU_10/b")
    tf.add_to_collection("t", a)
    tf.add_to_collection("t", b)
    g = tf.get_default_graph()
    copy = tf.get_collection("c")
    copy.append(2)
    ref = tf.get_collection_ref("c")
    ref.append(3)
    return {"c": tf.get_collection("c"), "scoped": [t.name for t in tf.get_collection("t", "GPU_0/")],
            "scoped1": [t.name for t in tf.get_collection("t", "GPU_1")],
            "keys": sorted(g.get_all_collection_keys()), "gv": tf.GraphKeys.GLOBAL_VARIABLES,
            "tv": tf.GraphKeys.TRAINABLE_VARIABLES}


def finalized(tf):
    tf.constant(1)
    tf.get_default_graph().finalize()
    tf.constant(2)


def devices(tf):
    with tf.device("/gpu:2"):
        a = tf.constant(1, name="a")
    with tf.device("/job:worker"):
        with tf.device("/gpu:1"):
            b = tf.constant(1, name="b")
        with tf.device(None):
            c = tf.constant(1, name="c")
    with tf.device("/cpu:0"):
        d = tf.constant(1, name="d")
    with tf.device("/job:local/task:1"):
        e = tf.constant(1, name="e")
    return {"devices": [t.op.device for t in (a, b, c, d, e)], "str": str(a)}


def control_deps(tf):
    a = tf.constant(1, name="a")
    b = tf.constant(2, name="b")
    with tf.control_dependencies([a]):
        c = tf.identity(b, name="c")
        d = tf.add(a, b, name="d")
        with tf.control_dependencies(None):
            e = tf.identity(b, name="e")
        with tf.control_dependencies([b.op]):
            f = tf.identity(b, name="f")
    out = {n.op.name: [o.name for o in n.op.control_inputs] for n in (c, d, e, f)}
    try:
        with tf.control_dependencies([1]):
            pass
    except TypeError as e:
        out["err"] = str(e)
    out["consumers"] = sorted(o.name for o in a.consumers())
    out["inputs"] = [t.name for t in d.op.inputs]
    return out


def reductions(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = [tf.reduce_sum(x), tf.reduce_sum(x, axis=0), tf.reduce_mean(x, 1, keepdims=True),
         tf.reduce_mean(x, reduction_indices=[0, 1]), tf.reduce_sum(x, keep_dims=True),
         tf.reshape(x, [3, 2]), tf.reshape(x, [-1]), tf.nn.relu(x - 3.0), tf.nn.softmax(x),
         tf.matmul(x, x, transpose_b=True), tf.identity(x)]
    with tf.Session() as s:
        vals = s.run(r)
    return {"ops": _ops(tf), "values": _val(vals), "shapes": [str(t.shape) for t in r]}


def raw_ops_calls(tf):
    x = tf.constant([1.0, 2.0])
    r = [tf.raw_ops.AddN(inputs=[x, x, x]), tf.raw_ops.Add(x=x, y=x, name="myadd"),
         tf.raw_ops.MatMul(a=[[1.0, 2.0]], b=[[3.0], [4.0]], transpose_a=False),
         tf.raw_ops.Cast(x=x, DstT=tf.int32), tf.raw_ops.Pack(values=[x, x], axis=1)]
    with tf.Session() as s:
        vals = s.run(r)
    return {"ops": _ops(tf), "values": _val(vals), "n": r[0].op.get_attr("N")}


def raw_ops_positional(tf):
    tf.raw_ops.Add(tf.constant(1), tf.constant(2))


def session_config(tf):
    cfg = tf.ConfigProto(log_device_placement=False, allow_soft_placement=True, device_count={"CPU": 2},
                         intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)
    a = tf.constant([1.0, 2.0], name="a")
    with tf.Session(config=cfg) as s:
        v = s.run(a * 2.0)
        n_cpu = sum(1 for d in s.list_devices() if d.device_type == "CPU")
    return {"value": _val(v), "cpus": n_cpu}


def config_bad_field(tf):
    tf.ConfigProto(no_such_field=1)


def session_positional_config(tf):
    tf.Session(tf.ConfigProto())


def eval_no_session(tf):
    tf.constant(1).eval()


def eval_default(tf):
    a = tf.constant(5, name="a")
    b = a * 2
    with tf.Session():
        return {"eval": _val(b.eval()), "run": b.op.run()}


def interactive(tf):
    s = tf.InteractiveSession()
    a = tf.constant(3.0)
    v = (a * a).eval()
    s.close()
    return {"value": _val(v), "default_after_close": tf.get_default_session() is None}


def make_callable(tf):
    x = tf.placeholder(tf.float32, name="x")
    y = x + 1.0
    with tf.Session() as s:
        f = s.make_callable([y, {"y": y}], feed_list=[x])
        return {"a": _val(f(1.0)), "b": _val(f(np.array([2.0, 3.0])))}


def reset_nested(tf):
    with tf.Graph().as_default():
        tf.reset_default_graph()


def strings_feed(tf):
    x = tf.placeholder(tf.string, name="x")
    y = tf.identity(x)
    with tf.Session() as s:
        return {"scalar": _val(s.run(y, {x: "héllo"})), "vec": _val(s.run(y, {x: [b"a", b"", b"xyz" * 50]}))}


def config_bytes(tf):
    cfgs = [tf.ConfigProto(log_device_placement=True), tf.ConfigProto(allow_soft_placement=True),
            tf.ConfigProto(device_count={"GPU": 0}), tf.ConfigProto(intra_op_parallelism_threads=2,
                                                                    inter_op_parallelism_threads=3),
            tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.5)),
            tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=100)]
    c = tf.ConfigProto()
    c.gpu_options.allow_growth = True
    c.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    cfgs.append(c)
    return [x.SerializeToString().hex() for x in cfgs]


PROGRAMS = [config_bytes, naming, operators, float_operators, indexing, constants, constant_too_many, constant_bad_type,
            constant_none, shape_error, add_mismatch, div_mismatch, fetch_structures, feed_cast,
            feed_shape_error, feed_overflow, feed_tensor_value, feed_bad_key, fetch_none, fetch_unknown,
            fetch_bad_output, unfed_placeholder, closed_session, empty_graph, graph_lookup_errors,
            tensor_misuse, dtypes, collections_, finalized, devices, control_deps, reductions,
            raw_ops_calls, raw_ops_positional, session_config, config_bad_field, session_positional_config,
            eval_no_session, eval_default, interactive, make_callable, reset_nested, strings_feed]


def program_modules():
    """The names of the program modules: programs and every programs_<area>."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(here, "programs*.py")))


def expectations_file(module_name):
    """programs -> expectations.json, programs_<area> -> expectations_<area>.json."""
    return "expectations" + module_name[len("programs"):] + ".json"


def run_program(tf, prog):
    """The program's result or its exception, as plain data."""
    tf.reset_default_graph()
    try:
        return {"result": prog(tf)}
    except Exception as e:  # noqa: BLE001
        msg = e.message if hasattr(e, "message") and hasattr(e, "error_code") else str(e)
        return {"error": [type(e).__name__, msg]}
