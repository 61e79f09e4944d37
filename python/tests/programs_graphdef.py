"""TF 1.x programs of graph files: GraphDef and its messages (bytes and text format),
make_tensor_proto/make_ndarray, as_graph_def, import_graph_def (prefixes, input maps, return
elements, errors) and graph_util's freezing, run under TensorFlow (gen_expectations.py
programs_graphdef records them) and under tfc (test_differential.py). Map fields hold one
entry where bytes or text are recorded (protobuf leaves the order of map entries open).
"""
import numpy as np

from programs import _val


def _nodes(gd):
    return [[n.name, n.op, list(n.input)] for n in gd.node]


def _graph_nodes(tf):
    return [[op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs]]
            for op in tf.get_default_graph().get_operations()]


def message_bytes_and_text(tf):
    TensorShapeProto = type(tf.AttrValue().shape)
    TensorProto = type(tf.AttrValue().tensor)
    VersionDef = type(tf.GraphDef().versions)
    shape = TensorShapeProto()
    shape.dim.add(size=2)
    shape.dim.add(size=-1, name="b")
    t = TensorProto(dtype=1, tensor_shape=shape, float_val=[1.5, -2.5])
    lst = tf.AttrValue(list=tf.AttrValue.ListValue(i=[1, -2, 3], type=[1, 3], b=[True, False]))
    node = tf.NodeDef(name="c", op="Const", input=["a:1", "^b"], device="/cpu:0")
    node.attr["value"].tensor.CopyFrom(t)
    gd = tf.GraphDef()
    gd.node.extend([node])
    gd.node.add(name="d", op="NoOp").attr["x"].s = b"q\x00\xff\""
    gd.versions.producer = 27
    gd.versions.bad_consumers.extend([3, 4])
    fn = tf.NameAttrList(name="f")
    fn.attr["k"].f = 0.25
    empty = tf.AttrValue(list=tf.AttrValue.ListValue())
    msgs = [shape, t, lst, node, gd, fn, empty, VersionDef(producer=1, min_consumer=0)]
    return [[m.SerializeToString().hex(), str(m)] for m in msgs]


def message_parse(tf):
    gd = tf.GraphDef()
    gd.node.add(name="a", op="Placeholder").attr["dtype"].type = 9
    gd.library.SetInParent()
    data = gd.SerializeToString()
    back = tf.GraphDef()
    n = back.ParseFromString(data)
    return [n, data.hex(), back == gd, back.HasField("library"), back.HasField("versions"),
            back.node[0].attr["dtype"].WhichOneof("value"), back.node[0].attr["dtype"].type,
            len(tf.GraphDef.FromString(data).node)]


def tensor_protos(tf):
    cases = [(3.5, None, None), ([1.0, 2.0, 3.0], None, None), ([[1, 2], [3, 4]], tf.int64, None),
             (7, tf.int32, [3]), ([b"ab", "c"], None, None), (np.array([True, False]), None, None),
             (np.arange(6, dtype=np.float64).reshape(2, 3), None, None), (2 ** 40, None, None),
             (np.array([1.5, 2.5], np.float16), None, None), ([], tf.float32, [0, 2]),
             (1.0, tf.float32, [2, 2])]
    out = []
    for v, dt, shape in cases:
        p = tf.make_tensor_proto(v, dtype=dt, shape=shape)
        back = tf.make_ndarray(p)
        out.append([p.SerializeToString().hex(), str(back.dtype), list(back.shape), _val(back)])
    return out


def tensor_proto_errors(tf):
    out = []
    for args in [(None,), ([1, 2, 3], None, [2]), ([1.5], tf.int32)]:
        try:
            tf.make_tensor_proto(*args)
            out.append("ok")
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e)])
    return out


def _model(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    c = tf.constant([[1.0], [2.0]], name="c")
    y = tf.matmul(x, c, name="y")
    z = tf.identity(y, name="z")
    tf.group(z, name="done")
    return x, y


def _exported(tf):
    g = tf.Graph()
    with g.as_default():
        _model(tf)
    return g.as_graph_def()


def as_graph_def_message(tf):
    _model(tf)
    g = tf.get_default_graph()
    gd = g.as_graph_def()
    shapes = g.as_graph_def(add_shapes=True)
    sh = {n.name: str(n.attr["_output_shapes"]) for n in shapes.node if "_output_shapes" in n.attr}
    return [type(gd).__name__, _nodes(gd), gd.HasField("library"), gd.HasField("versions"), sh,
            type(g.graph_def_versions).__name__, g.graph_def_versions.min_consumer,
            tf.Session().graph_def == gd]


def import_prefixes(tf):
    gd = _exported(tf)
    r1 = tf.import_graph_def(gd)
    tf.import_graph_def(gd)
    tf.import_graph_def(gd, name="")
    with tf.name_scope("outer"):
        tf.import_graph_def(gd, name="mine")
    tf.import_graph_def(gd, name="mine")
    return [r1, _graph_nodes(tf)]


def import_name_clash(tf):
    gd = _exported(tf)
    tf.constant(1.0, name="x")
    tf.import_graph_def(gd, name="")
    return _graph_nodes(tf)


def import_input_map(tf):
    gd = _exported(tf)
    a = tf.constant([[3.0, 4.0]], name="a")
    b = tf.constant(0.0, name="b")
    y, = tf.import_graph_def(gd, input_map={"x:0": a}, return_elements=["y:0"], name="m1")
    z, = tf.import_graph_def(gd, input_map={"x": a, "^z": b}, return_elements=["z:0"], name="m2")
    with tf.Session() as s:
        vals = s.run([y, z])
    return [_graph_nodes(tf), y.name, z.name, _val(vals)]


def import_input_map_values(tf):
    gd = _exported(tf)
    y, = tf.import_graph_def(gd, input_map={"x:0": np.array([[1.0, 1.0]], np.float32)}, return_elements=["y:0"])
    with tf.Session() as s:
        return [_graph_nodes(tf), _val(s.run(y))]


def import_input_map_other_graph(tf):
    gd = _exported(tf)
    out = []
    for name in ("a", "zz"):
        g = tf.Graph()
        with g.as_default():
            other = tf.constant([[1.0, 2.0]], name=name)
        tf.constant([[5.0, 6.0]], name="a")
        try:
            y, = tf.import_graph_def(gd, input_map={"x": other}, return_elements=["y:0"])
            with tf.Session() as s:
                out.append([y.op.inputs[0].name, _val(s.run(y))])
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e)])
    return out


def import_return_elements(tf):
    gd = _exported(tf)
    r = tf.import_graph_def(gd, return_elements=["y", "y:0", "x:0", "done", b"z:0"], name="r")
    return [[type(e).__name__, e.name] for e in r]


def import_errors(tf):
    gd = _exported(tf)
    a = tf.constant([[3.0, 4.0]], name="a")
    out = []
    bad_op = tf.GraphDef()
    bad_op.node.add(name="n", op="NoSuchOp")
    bad_input = tf.GraphDef()
    bad_input.node.add(name="n", op="Identity", input=["missing:0"]).attr["T"].type = 1
    for kw in [dict(input_map={"q:0": a}), dict(input_map={"x:0": a, "^nope": a.op, "nada": a}),
               dict(return_elements=["nope"]), dict(return_elements=["nope:0"]), dict(return_elements=["y:7"]),
               dict(input_map=[("x:0", a)]), dict(return_elements=[1]), dict(return_elements=["y:q"]),
               dict(input_map={"x:0": a}, name=""), dict(graph_def=gd.SerializeToString()),
               dict(graph_def=bad_input), dict(graph_def=bad_op), dict(input_map={"x:3": a}),
               dict(input_map={"x:0": tf.constant([1, 2], name="i")}), dict(input_map={"^x": a, b"x:0": a}),
               dict(return_elements=["y:0", "y:0", b"done"], input_map={"x:0": a})]:
        kw.setdefault("graph_def", gd)
        try:
            r = tf.import_graph_def(**kw)
            out.append(["ok", [x.name for x in r or ()]])
        except Exception as e:  # noqa: BLE001
            msg = str(e).split("\n")[0]
            if "NoSuchOp" in msg:
                msg = "NoSuchOp"  # the text names the binary and host
            out.append([type(e).__name__, msg])
    return out


def import_under_device(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        with tf.device("/job:ps"):
            tf.add(a, b, name="s")
        with tf.colocate_with(a):
            tf.identity(b, name="near_a")
    gd = g.as_graph_def()
    with tf.device("/job:worker/task:1"):
        tf.import_graph_def(gd, name="w")
    with tf.device(lambda op: "/device:GPU:0" if op.type == "Const" else ""):
        tf.import_graph_def(gd, name="f")
    tf.import_graph_def(gd, name="plain")
    return [[op.name, op.device] for op in tf.get_default_graph().get_operations()], str(gd.node[0].device)


def import_under_control_dependencies(tf):
    gd = _exported(tf)
    c = tf.constant(1.0, name="c")
    d = tf.constant(2.0, name="d")
    with tf.control_dependencies([c]):
        with tf.control_dependencies([d.op]):
            tf.import_graph_def(gd)
        with tf.control_dependencies(None):
            tf.import_graph_def(gd, name="free")
    return _graph_nodes(tf)


def _train_and_freeze(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y_ = tf.placeholder(tf.float32, [None, 1], name="y_")
    w = tf.Variable(tf.constant([[0.1], [-0.2], [0.3]]), name="w")
    b = tf.Variable(0.5, name="b")
    steps = tf.Variable(0, name="steps", trainable=False)
    out = tf.add(tf.matmul(x, w), b, name="out")
    tf.identity(out * 2.0, name="double")
    loss = tf.reduce_mean(tf.square(out - y_))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=steps)
    feed = {x: [[1, 2, 3], [4, 5, 6]], y_: [[1], [2]]}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train, feed)
        gd = tf.get_default_graph().as_graph_def()
        frozen = tf.graph_util.convert_variables_to_constants(s, gd, ["out", "double"])
        partial = tf.graph_util.convert_variables_to_constants(s, gd, ["out"], variable_names_blacklist=["b"])
        live = s.run(out, feed)
    return frozen, partial, live


def freeze_graph(tf):
    frozen, partial, live = _train_and_freeze(tf)
    consts = {n.name: tf.make_ndarray(n.attr["value"].tensor) for n in frozen.node if n.op == "Const"}
    data = frozen.SerializeToString()
    g = tf.Graph()
    with g.as_default():
        gd = tf.GraphDef()
        gd.ParseFromString(data)
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            got = s.run("out:0", {"x:0": [[1, 2, 3], [4, 5, 6]]})
    consts = {k: np.round(v, 3).tolist() for k, v in consts.items()}
    return [_nodes(frozen), consts, sorted(frozen.node[1].attr.keys()), _nodes(partial),
            bool(np.allclose(got, live)), np.round(got, 2).tolist()]


def extract_and_remove(tf):
    gd = _exported(tf)
    sub = tf.graph_util.extract_sub_graph(gd, ["y"])
    out = [_nodes(sub), _nodes(tf.graph_util.extract_sub_graph(gd, ["done"]))]
    for args in [(gd, "y"), (gd, ["nope"]), (gd.SerializeToString(), ["y"])]:
        try:
            tf.graph_util.extract_sub_graph(*args)
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e)])
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, name="a")
        i = tf.identity(a, name="i")
        c = tf.raw_ops.CheckNumerics(tensor=i, message="msg", name="chk")
        tf.add(c, 1.0, name="out")
    out.append(_nodes(tf.graph_util.remove_training_nodes(g.as_graph_def())))
    out.append(_nodes(tf.graph_util.remove_training_nodes(g.as_graph_def(), protected_nodes=["i"])))
    return out


def must_run_on_cpu(tf):
    tf.constant(1, name="i")
    tf.constant(1.0, name="f")
    tf.cast(tf.constant([1, 2]), tf.float32, name="cast")
    gd = tf.get_default_graph().as_graph_def()
    return [[n.name, tf.graph_util.must_run_on_cpu(n)] for n in gd.node]


PROGRAMS = [message_bytes_and_text, message_parse, tensor_protos, tensor_proto_errors, as_graph_def_message,
            import_prefixes, import_name_clash, import_input_map, import_input_map_values, import_return_elements,
            import_errors, freeze_graph, extract_and_remove, must_run_on_cpu,
            import_under_device, import_under_control_dependencies, import_input_map_other_graph]


def _tf115_add(e):
    # tf.add is Add in 1.15 (2.x's compat.v1 builds AddV2)
    for nodes in (e["result"][0], e["result"][3]):
        for n in nodes:
            if n[1] == "AddV2":
                n[1] = "Add"


def _tf115_tensor_errors(e):
    r = e["result"]
    r[1][1] = "Too many elements provided. Needed at most 2, but received 3"
    r[2][1] = "Expected int32, got 1.5 of type 'float' instead."


def _tf115_return_elements(e):
    for x in e["result"]:
        if x[0] == "SymbolicTensor":
            x[0] = "Tensor"


def _tf115_import_errors(e):
    r = e["result"]
    r[1][1] = "Can't convert Operation 'a' to Tensor (target dtype=None, name=None, as_ref=False)"
    r[5][1] = "input_map must be a dictionary mapping strings to Tensor objects."
    r[6][1] = "return_elements must be a list of strings."
    r[7][1] = "Cannot convert 'y:q' to a tensor name."
    r[9][1] = "graph_def must be a GraphDef proto."


def _tf115_extract(e):
    r = e["result"]
    r[2][1] = "dest_nodes must be a list."
    r[4][1] = "graph_def must be a graph_pb2.GraphDef proto."
    for nodes in (r[5], r[6]):
        for n in nodes:
            if n[1] == "AddV2":
                n[1] = "Add"


TF115 = {"freeze_graph": _tf115_add, "tensor_proto_errors": _tf115_tensor_errors,
         "import_return_elements": _tf115_return_elements, "import_errors": _tf115_import_errors,
         "extract_and_remove": _tf115_extract}
