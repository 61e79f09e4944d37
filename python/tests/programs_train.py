"""Variables and training: TF 1.x programs whose graphs (node names, op types), variable values
after training steps (constant initializers, rounded to 4 decimals: the kernels may differ in
the last bits) and errors are compared with TensorFlow's (see programs.py)."""
import numpy as np

from programs import _ops, _val


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 4))


def variable_basics(tf):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    n = tf.Variable(3, name="n")
    d = tf.Variable(np.array([1.5, 2.5]), name="d")
    u = tf.Variable(0.5, trainable=False)
    c = tf.Variable(7.0, name="hidden", collections=[])
    with tf.name_scope("scope"):
        s = tf.Variable(1.0, name="w")
    w2 = tf.Variable(2.0, name="w")
    init = tf.global_variables_initializer()
    a1 = n.assign(5)
    a2 = n.assign_add(2)
    a3 = n.assign_sub(1, read_value=False)
    with tf.Session() as sess:
        sess.run(init)
        got = sess.run([w, n, d, u, s, w2])
        after = [sess.run(a1), sess.run(a2), sess.run(a3), n.eval()]
        w.load([[0.0, 1.0], [2.0, 3.0]], sess)
        loaded = sess.run(w)
        cval = sess.run(c.initial_value)
    return {"ops": _ops(tf),
            "names": [v.name for v in (w, n, d, u, c, s, w2)],
            "dtypes": [v.dtype.name for v in (w, n, d, u)],
            "shapes": [str(v.shape) for v in (w, n, d)] + [str(w.get_shape())],
            "repr": repr(w),
            "initializer": [w.initializer.name, w.initializer.type, w.initial_value.name, w.value().name,
                            w.op.name, w.op.type],
            "globals": [v.name for v in tf.global_variables()],
            "all": [v.name for v in tf.all_variables()],
            "trainable": [v.name for v in tf.trainable_variables()],
            "collection": [v.name for v in tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)],
            "scoped": [v.name for v in tf.global_variables("scope")],
            "values": _val(got), "assign": _val(after), "assign_names": [a1.name, a2.name, a3.name, a3.type],
            "loaded": _val(loaded), "hidden": _val(cval), "init": [init.name, init.type]}


def variable_operators(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable(0.5, name="b")
    y = tf.matmul(x, w) + b
    z = w * 2.0
    z2 = 3.0 * b
    z3 = -b
    t = tf.convert_to_tensor(w)
    with tf.Session() as sess:
        sess.run(tf.variables_initializer([w, b]))
        vals = sess.run([y, z, z2, z3], {x: [[1.0, 1.0], [2.0, 3.0]]})
    return {"ops": _ops(tf), "names": [y.name, z.name, z2.name, z3.name, t.name], "values": _val(vals)}


def variable_no_initial_value(tf):
    tf.Variable()


def variable_unknown_shape(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    tf.Variable(x, name="v")


def variable_uninitialized(tf):
    w = tf.Variable(1.0, name="w")
    with tf.Session() as sess:
        sess.run(w)


def initializers(tf):
    with tf.variable_scope("init"):
        a = tf.get_variable("a", [2, 3], initializer=tf.constant_initializer(0.25))
        b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        c = tf.get_variable("c", [2, 2], initializer=tf.ones_initializer())
        d = tf.get_variable("d", [4, 5], initializer=tf.random_normal_initializer(stddev=0.1))
        e = tf.get_variable("e", [4, 5], initializer=tf.truncated_normal_initializer(stddev=0.1))
        f = tf.get_variable("f", [4, 5], initializer=tf.random_uniform_initializer(-1.0, 1.0))
        g = tf.get_variable("g", [4, 5], initializer=tf.glorot_uniform_initializer())
        h = tf.get_variable("h", [4, 5])
        i = tf.get_variable("i", [2], dtype=tf.int32)
        j = tf.get_variable("j", initializer=tf.constant([1.0, 2.0]))
        k = tf.get_variable("k", [40, 30], initializer=tf.zeros_initializer())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run([a, b, c, i, j])
        limit = float(np.sqrt(6.0 / 9.0))
        rnd = sess.run([d, e, f, g, h])
        bounds = [bool(np.all(np.abs(rnd[1]) <= 0.2)), bool(np.all(np.abs(rnd[2]) <= 1.0)),
                  bool(np.all(np.abs(rnd[3]) <= limit)), bool(np.all(np.abs(rnd[4]) <= limit)),
                  [list(v.shape) for v in rnd]]
        kz = float(sess.run(k).sum())
    return {"ops": _ops(tf), "values": _val(vals), "bounds": bounds, "k": kz,
            "names": [v.name for v in (a, b, c, d, e, f, g, h, i, j, k)]}


def random_ops(tf):
    a = tf.random_normal([2, 3], mean=1.0, stddev=0.5)
    b = tf.truncated_normal([3], stddev=2.0)
    c = tf.random_uniform([4], minval=-1.0, maxval=3.0)
    d = tf.random_uniform([2, 2], dtype=tf.float64)
    z = tf.zeros([2, 3])
    o = tf.ones([3], dtype=tf.int32)
    with tf.Session() as sess:
        va, vb, vc, vd, vz, vo = sess.run([a, b, c, d, z, o])
    return {"ops": _ops(tf), "names": [t.name for t in (a, b, c, d, z, o)],
            "shapes": [list(v.shape) for v in (va, vb, vc, vd)], "dtypes": [str(v.dtype) for v in (va, vb, vc, vd)],
            "ranges": [bool(np.all(np.abs(vb) <= 4.0)), bool(np.all((vc >= -1) & (vc < 3))),
                       bool(np.all((vd >= 0) & (vd < 1)))],
            "zeros": _val(vz), "ones": _val(vo)}


def random_seed(tf):
    tf.set_random_seed(1234)
    a = tf.random_normal([5])
    with tf.Session() as s1:
        v1 = s1.run(a)
    with tf.Session() as s2:
        v2 = s2.run(a)
    return {"same": bool(np.array_equal(v1, v2)), "seed": tf.get_default_graph().seed,
            "attr": a.op.inputs[0].op.get_attr("seed")}


def variable_scopes(tf):
    with tf.variable_scope("foo"):
        a = tf.get_variable("a", [1])
        x = tf.constant(1.0, name="x")
        with tf.variable_scope("bar"):
            b = tf.get_variable("b", [1])
            y = tf.identity(x, name="y")
    with tf.variable_scope("foo", reuse=True):
        a2 = tf.get_variable("a", [1])
        z = tf.identity(x, name="z")
    with tf.variable_scope("foo") as scope:
        scope.reuse_variables()
        a3 = tf.get_variable("a")
        names = [scope.name, scope.original_name_scope, scope.reuse]
    with tf.name_scope("ns"):
        c = tf.get_variable("c", [1])
        v = tf.Variable(1.0, name="v")
    with tf.variable_scope(None, default_name="layer"):
        d1 = tf.get_variable("d", [1])
    with tf.variable_scope(None, default_name="layer"):
        d2 = tf.get_variable("d", [1])
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        e1 = tf.get_variable("e", [2])
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        e2 = tf.get_variable("e", [2])
    with tf.variable_scope(scope):
        f = tf.get_variable("a")
        inner = tf.get_variable_scope().name
    with tf.variable_scope("outer", initializer=tf.constant_initializer(3.0)):
        g = tf.get_variable("g", [2])
        with tf.variable_scope("inner"):
            h = tf.get_variable("h", [2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gh = sess.run([g, h])
    return {"ops": _ops(tf),
            "vars": [t.name for t in (a, b, a2, a3, c, v, d1, d2, e1, e2, f, g, h)],
            "same": [a is a2, a is a3, e1 is e2, f is a],
            "tensors": [x.name, y.name, z.name], "scope": names, "inner": inner,
            "root": tf.get_variable_scope().name, "gh": _val(gh)}


def get_variable_exists(tf):
    tf.get_variable("w", [1])
    try:
        tf.get_variable("w", [1])
    except ValueError as e:
        return str(e).split("\n")[0]


def get_variable_missing(tf):
    with tf.variable_scope("s", reuse=True):
        tf.get_variable("w", [1])


def get_variable_shape_mismatch(tf):
    with tf.variable_scope("s"):
        tf.get_variable("w", [3, 4])
    with tf.variable_scope("s", reuse=True):
        tf.get_variable("w", [4, 4])


def get_variable_constant_with_shape(tf):
    tf.get_variable("w", [2], initializer=tf.constant([1.0, 2.0]))


def variable_scope_reuse_without_name(tf):
    with tf.variable_scope(None, default_name="x", reuse=True):
        pass


def gradients(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    w = tf.Variable([3.0, 4.0], name="w")
    y = tf.reduce_sum(w * x * x)
    u = tf.constant(1.0, name="u")
    g = tf.gradients(y, [x, w, u])
    g2 = tf.gradients([y], [x], grad_ys=[tf.constant(2.0)])
    with tf.Session() as sess:
        sess.run(w.initializer)
        vals = sess.run([g[0], g[1], g2[0]], {x: [1.0, 2.0]})
    return {"ops": _ops(tf), "names": [t.name for t in (g[0], g[1], g2[0])], "none": g[2] is None,
            "values": _val(vals)}


def _mlp(tf, opt, steps=5, global_step=False, decay=False):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    w1 = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0 - 0.5, name="w1")
    b1 = tf.Variable(tf.constant(0.1, shape=[4]), name="b1")
    w2 = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 8.0 - 0.4, name="w2")
    b2 = tf.Variable(tf.zeros([2]), name="b2")
    a = tf.nn.tanh(tf.nn.bias_add(tf.matmul(x, w1), b1))
    y_out = tf.nn.tanh(tf.nn.bias_add(tf.matmul(a, w2), b2), name="y_out")
    cost = tf.reduce_sum(tf.square(y - y_out), name="cost")
    step = tf.train.get_or_create_global_step() if global_step else None
    train = opt(tf, step).minimize(cost, global_step=step, name="train")
    init = tf.variables_initializer(tf.global_variables(), name="init_all_vars_op")
    feed = {x: [[0.1, 0.2, 0.3], [0.5, -0.4, 0.0], [1.0, 0.0, -1.0]], y: [[0.5, -0.5], [0.0, 1.0], [-1.0, 0.2]]}
    losses = []
    with tf.Session() as sess:
        sess.run(init)
        for _ in range(steps):
            losses.append(sess.run(cost, feed))
            sess.run(train, feed)
        final = sess.run([w1, b1, w2, b2])
        extra = sess.run(step) if step is not None else None
    return {"ops": _ops(tf), "losses": _r(losses), "final": [_r(v) for v in final],
            "globals": [v.name for v in tf.global_variables()], "train": [train.name, train.type],
            "step": _val(extra), "train_ops": [o.name for o in tf.get_collection(tf.GraphKeys.TRAIN_OP)]}


def train_gradient_descent(tf):
    return _mlp(tf, lambda tf, s: tf.train.GradientDescentOptimizer(0.1))


def train_momentum(tf):
    return _mlp(tf, lambda tf, s: tf.train.MomentumOptimizer(0.05, 0.9), global_step=True)


def train_nesterov(tf):
    return _mlp(tf, lambda tf, s: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True))


def train_adam(tf):
    return _mlp(tf, lambda tf, s: tf.train.AdamOptimizer(0.01))


def train_decayed_gd(tf):
    def opt(tf, step):
        lr = tf.train.exponential_decay(0.2, step, 2.0, 0.5, staircase=True)
        return tf.train.GradientDescentOptimizer(lr)
    return _mlp(tf, opt, global_step=True)


def compute_apply(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable([5.0], name="v")
    k = tf.Variable(3.0, name="k", trainable=False)
    loss = tf.reduce_sum(w * w) * k
    opt = tf.train.GradientDescentOptimizer(0.25)
    gv = opt.compute_gradients(loss)
    gv2 = opt.compute_gradients(loss, var_list=[w, v])
    train = opt.apply_gradients(gv, name="apply")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        vals = sess.run([w, v])
    return {"ops": _ops(tf), "gv": [[g.name if g is not None else None, x.name] for g, x in gv],
            "gv2": [[g.name if g is not None else None, x.name] for g, x in gv2], "values": _r(vals),
            "train": train.name}


def no_variables(tf):
    loss = tf.constant(1.0)
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def no_gradients_apply(tf):
    w = tf.Variable(1.0, name="w")
    tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, w)])


def no_gradients_minimize(tf):
    w = tf.Variable(1.0, name="w")
    tf.Variable(2.0, name="v")
    loss = tf.constant(3.0) * 2.0
    try:
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[w])
    except ValueError as e:
        return str(e).split(" and loss ")[0]


def invalid_loss_dtype(tf):
    tf.Variable(1, name="n")
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1, name="loss"))


def global_step(tf):
    none = tf.train.get_global_step()
    s = tf.train.get_or_create_global_step()
    s2 = tf.train.get_or_create_global_step()
    inc = tf.assign_add(s, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(inc)
        v = sess.run(s)
    return {"ops": _ops(tf), "none": none is None, "same": s is s2, "name": s.name, "dtype": s.dtype.name,
            "value": _val(v), "found": tf.train.get_global_step().name,
            "collection": [x.name for x in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)],
            "trainable": [x.name for x in tf.trainable_variables()]}


def moving_average(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(5.0, name="b")
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([w, b])
    set_w = w.assign([3.0, 6.0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(set_w)
        sess.run(update)
        v1 = sess.run(ema.average(w))
        sess.run(update)
        v2 = sess.run([ema.average(w), ema.average(b)])
    return {"ops": _ops(tf), "update": [update.name, update.type], "avg": ema.average(w).name,
            "avg_name": ema.average_name(w), "values": _r([v1] + v2),
            "mavs": [x.name for x in tf.moving_average_variables()],
            "restore": sorted(ema.variables_to_restore().keys()),
            "globals": [x.name for x in tf.global_variables()]}


def collections_bridge(tf):
    w = tf.Variable(1.0, name="w")
    k = tf.Variable(2.0, name="k", trainable=False)
    tf.add_to_collection(tf.GraphKeys.TRAINABLE_VARIABLES, k)
    loc = tf.Variable(3.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    loss = w * k
    gv = tf.train.GradientDescentOptimizer(0.5).compute_gradients(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        lv = sess.run(loc)
    return {"trainable": [v.name for v in tf.trainable_variables()], "local": [v.name for v in tf.local_variables()],
            "globals": [v.name for v in tf.global_variables()], "gv": [x.name for _, x in gv], "loc": _val(lv),
            "keys": sorted(k2 for k2 in tf.get_default_graph().get_all_collection_keys()
                           if k2 in ("variables", "trainable_variables", "local_variables"))}


def group_and_init(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    g = tf.group(a.initializer, b.initializer)
    g2 = tf.group(a.initializer, name="mine")
    i1 = tf.initialize_variables([a])
    i2 = tf.initialize_all_variables()
    i3 = tf.variables_initializer([])
    return {"ops": _ops(tf), "names": [o.name for o in (g, g2, i1, i2, i3)],
            "inputs": sorted(c.name for c in i2.control_inputs)}


PROGRAMS = [variable_basics, variable_operators, variable_no_initial_value, variable_unknown_shape,
            variable_uninitialized, initializers, random_ops, random_seed, variable_scopes, get_variable_exists,
            get_variable_missing, get_variable_shape_mismatch, get_variable_constant_with_shape,
            variable_scope_reuse_without_name, gradients, train_gradient_descent, train_momentum,
            train_nesterov, train_adam, train_decayed_gd, compute_apply, no_variables, no_gradients_apply,
            no_gradients_minimize, invalid_loss_dtype, global_step, moving_average, collections_bridge,
            group_and_init]

def _seed_ones(e):
    """TF 1.15 seeds tf.gradients with Fill(Shape, Const grad_ys_<i>) named "Fill"; TF 2.x
    names the Fill grad_ys_<i> over a Const grad_ys_<i>/Const."""
    ops = e["result"]["ops"]
    for i, (name, typ) in enumerate(ops):
        if name.endswith("/Const") and "/grad_ys_" in name:
            scope = name[:-len("/Const")]
            ops[i] = [scope, "Const"]
            ops[i + 1] = [scope.rsplit("/", 1)[0] + "/Fill", "Fill"]


def _train_graph(e):
    """_seed_ones, and TF 1.15's Sub gradient negates after its second reduce_sum (2.x before
    its first)."""
    _seed_ones(e)
    ops = e["result"]["ops"]
    neg = ["gradients/sub_grad/Neg", "Neg"]
    if neg in ops:
        ops.remove(neg)
        ops.insert(ops.index(["gradients/sub_grad/Sum_1", "Sum"]) + 1, neg)


def _random_uniform(e):
    """TF 1.15 scales every random_uniform (min, max, sub, mul, add); TF 2.x skips them for
    [0, 1)."""
    r = e["result"]
    r["names"][3] = "random_uniform_1:0"
    ops = r["ops"]
    i = ops.index(["random_uniform_1/RandomUniform", "RandomUniform"])
    ops[i:i + 1] = [["random_uniform_1/min", "Const"], ["random_uniform_1/max", "Const"],
                    ["random_uniform_1/RandomUniform", "RandomUniform"], ["random_uniform_1/sub", "Sub"],
                    ["random_uniform_1/mul", "Mul"], ["random_uniform_1", "AddV2"]]


TF115 = {"random_ops": _random_uniform, "gradients": _seed_ones, "train_gradient_descent": _train_graph,
         "train_momentum": _train_graph, "train_nesterov": _train_graph, "train_adam": _train_graph,
         "train_decayed_gd": _train_graph}


def train_adagrad(tf):
    return _mlp(tf, lambda tf, s: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.2))


def train_rmsprop(tf):
    return _mlp(tf, lambda tf, s: tf.train.RMSPropOptimizer(0.01))


def train_rmsprop_centered(tf):
    return _mlp(tf, lambda tf, s: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-6,
                                                             centered=True))


def adagrad_bad_accumulator(tf):
    tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def slots(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(3.0, name="b")
    loss = tf.reduce_sum(w * w) + b
    out = {}
    for opt in (tf.train.MomentumOptimizer(0.1, 0.9), tf.train.AdamOptimizer(), tf.train.AdagradOptimizer(0.1),
                tf.train.RMSPropOptimizer(0.1), tf.train.RMSPropOptimizer(0.1, centered=True),
                tf.train.GradientDescentOptimizer(0.1)):
        opt.minimize(loss)
        names = opt.get_slot_names()
        out[opt.get_name() + str(len(out))] = {
            "names": names, "w": [opt.get_slot(w, n).name for n in names],
            "none": [opt.get_slot(w, "nope") is None, opt.get_slot(loss, names[0]) is None if names else True],
            "vars": [v.name for v in opt.variables()]}
    return out


def custom_getter(tf):
    seen = []

    def my_getter(getter, name, *args, **kwargs):
        seen.append(name)
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)
    with tf.variable_scope("cg", custom_getter=my_getter):
        a = tf.get_variable("a", [2])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [1])
    return {"seen": seen, "names": [a.name, b.name], "trainable": [v.name for v in tf.trainable_variables()],
            "globals": [v.name for v in tf.global_variables()]}


def builder_names(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    r = tf.random_normal([2], name="noise")
    t = tf.truncated_normal([2], name="noise")
    u = tf.random_uniform([3], -1.0, 1.0, name="u")
    y = tf.reduce_sum(x * x)
    g = tf.gradients(y, x, name="grads")
    g2 = tf.gradients(y, x, name="grads")
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.5, step, 10.0, 0.9, name="lr")
    with tf.Session() as sess:
        sess.run(step.initializer)
        vals = sess.run([g[0], g2[0], lr], {x: [1.0, 3.0]})
    return {"ops": _ops(tf), "names": [v.name for v in (r, t, u, g[0], g2[0], lr)], "values": [_r(v) for v in vals]}


def towers(tf):
    """The multi-tower pattern (cifar10_multi_gpu_train): shared variables by get_variable with
    reuse across name scopes, per-tower gradients averaged, one apply with a global step. (No
    broadcasting binary op: TF 2.x, unlike 1.15 and tfc, folds the broadcast gradient of an
    operand of fully known shape into constants.)"""
    step = tf.train.get_or_create_global_step()
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    xs = [tf.placeholder(tf.float32, [None, 3], name="x%d" % i) for i in range(2)]
    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(2):
            with tf.name_scope("tower_%d" % i) as scope:
                with tf.variable_scope("fc"):
                    w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(0.5))
                    b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
                y = tf.nn.tanh(tf.nn.bias_add(tf.matmul(xs[i], w), b))
                loss = tf.reduce_sum(tf.square(y), name="loss")
                tf.get_variable_scope().reuse_variables()
                tower_grads.append(opt.compute_gradients(loss))
                names = scope
    avg = []
    for gv in zip(*tower_grads):
        g = (gv[0][0] + gv[1][0]) * 0.5
        avg.append((g, gv[0][1]))
    train = opt.apply_gradients(avg, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train, {xs[0]: [[1.0, 2.0, 3.0]], xs[1]: [[0.5, -1.0, 0.0]]})
        vals = sess.run([w, b, step])
    return {"ops": _ops(tf), "last_scope": names, "vars": [v.name for v in tf.global_variables()],
            "values": [_r(v) for v in vals], "train": train.name}


def group_devices(tf):
    with tf.device("/cpu:0"):
        a = tf.Variable(1.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.Variable(2.0, name="b")
    i = tf.global_variables_initializer()
    g = tf.group(a.initializer, b.initializer)
    noops = [[o.name, o.device, sorted(c.name for c in o.control_inputs)]
             for o in tf.get_default_graph().get_operations() if o.type == "NoOp"]
    return {"noops": noops, "names": [i.name, g.name]}


def moving_average_num_updates(tf):
    step = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
    update = ema.apply()
    bump = tf.assign_add(step, 5)
    set_w = w.assign([3.0, 6.0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([set_w, bump])
        sess.run(update)
        v = sess.run(ema.average(w))
    # Not the ops: TF initializes the shadow through initialized_value()'s cond here, tfc from
    # the variable's initial value directly (TFC_ExponentialMovingAverage); values agree.
    return {"value": _r(v), "avg": ema.average(w).name,
            "shadow_init": ema.average(w).initializer.name}


PROGRAMS += [moving_average_num_updates, group_devices, towers, builder_names, custom_getter, slots, train_adagrad, train_rmsprop, train_rmsprop_centered, adagrad_bad_accumulator]
TF115.update({"towers": _train_graph, "builder_names": _seed_ones, "train_adagrad": _train_graph, "train_rmsprop": _train_graph, "train_rmsprop_centered": _train_graph})


def moving_average_after_update(tf):
    # tf.train.ExponentialMovingAverage's documented use: the averages are updated after the
    # optimizer's step, and each reads the variable as that step left it.
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * tf.constant([3.0, 4.0]))
    opt_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([opt_op]):
        train = ema.apply([w])
    avgs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
            avgs.append(sess.run(ema.average(w)))
    return {"avgs": _r(avgs)}


PROGRAMS += [moving_average_after_update]
