"""tf.train.replica_device_setter: graphs built under it, every op's device (and, for the
optimizer, its variables' and slots' devices) compared with TensorFlow's, plus the None results
and argument errors. Gradient ops are left out of the node lists: tfc's gradient walk names
some of its shape nodes differently (their devices are the worker's either way, which the
programs check by op type).

TF 2.x has no tf.contrib, so under TensorFlow the greedy program uses a strategy with TF 1.15's
GreedyLoadBalancingStrategy behaviour written here (least load first, ties to the lowest index,
then the op's output bytes added); under tfc it uses tf.contrib.training's.
"""
import numpy as np


def _devices(tf, skip=("gradients/",)):
    return [[op.name, op.type, op.device] for op in tf.get_default_graph().get_operations()
            if not op.name.startswith(skip)]


def _model(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.Variable(tf.zeros([3, 2]), name="w")
    b = tf.Variable(tf.zeros([2]), name="b")
    return tf.reduce_sum(tf.matmul(x, w) + b, name="loss")


def rds_round_robin(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        _model(tf)
        tf.Variable(1.0, name="scalar")
        tf.Variable(lambda: tf.ones([2]), name="from_fn")
    return _devices(tf)


def rds_adam_slots(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:1")):
        loss = _model(tf)
        gs = tf.train.get_or_create_global_step()
        tf.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)
    grad_devices = sorted({op.device for op in tf.get_default_graph().get_operations()
                           if op.name.startswith("gradients/")})
    return {"ops": _devices(tf), "gradient_devices": grad_devices}


def rds_momentum_slots(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        loss = _model(tf)
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return _devices(tf)


def rds_partial_devices(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        with tf.device("/gpu:0"):
            tf.Variable(tf.zeros([2]), name="v_gpu")
        with tf.device("/job:worker/task:3"):
            tf.Variable(tf.zeros([2]), name="v_worker")
        with tf.device("/job:ps/task:2"):
            tf.Variable(tf.zeros([2]), name="v_ps2")
        with tf.device("/task:1"):
            tf.Variable(tf.zeros([2]), name="v_task1")
        tf.Variable(tf.zeros([2]), name="v_next")
        with tf.device("/cpu:0"):
            tf.zeros([3], name="z_cpu")
        with tf.device(None):
            tf.zeros([3], name="z_none")
    return _devices(tf)


def rds_nested(tf):
    with tf.device("/job:worker/task:7/cpu:0"):
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker")):
            tf.Variable(tf.zeros([2]), name="v0")
            with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_device="/job:params")):
                tf.Variable(tf.zeros([2]), name="inner")
            tf.Variable(tf.zeros([2]), name="v1")
    return _devices(tf)


def rds_clusters(tf):
    out = {}
    for key, cluster in (("spec2", tf.train.ClusterSpec({"ps": ["a:1", "b:1"], "worker": ["w:1"]})),
                         ("dict3", {"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1", "x:1"]}),
                         ("sparse", {"ps": {0: "a:1", 4: "b:1"}, "worker": ["w:1"]}),
                         ("cluster_def", tf.train.ClusterSpec({"ps": ["a:1"] * 3}).as_cluster_def())):
        g = tf.Graph()
        with g.as_default(), tf.device(tf.train.replica_device_setter(ps_tasks=7, cluster=cluster)):
            for i in range(4):
                tf.Variable(tf.zeros([2]), name="v%d" % i)
        out[key] = [op.device for op in g.get_operations() if op.type == "VariableV2"]
    return out


def rds_none(tf):
    return {"zero": tf.train.replica_device_setter() is None,
            "no_ps_job": tf.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None,
            "other_ps_job": tf.train.replica_device_setter(ps_tasks=2, ps_device="/job:params",
                                                           cluster={"ps": ["a:1"]}) is None,
            "zero_with_bad_strategy": tf.train.replica_device_setter(ps_strategy=5) is None}


def rds_merge_devices_false(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)):
        with tf.device("/gpu:0"):
            tf.Variable(tf.zeros([2]), name="a")
            tf.zeros([2], name="z")
        tf.Variable(tf.zeros([2]), name="b")
    return _devices(tf)


def rds_ps_ops_and_devices(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/job:params/cpu:0", worker_device="",
                                                  ps_ops=["Placeholder", "VariableV2"])):
        tf.placeholder(tf.float32, [2], name="p0")
        tf.placeholder(tf.float32, [2], name="p1")
        tf.Variable(tf.zeros([2]), name="v")
    return _devices(tf)


class _Greedy(object):
    """TF 1.15's GreedyLoadBalancingStrategy with byte_size_load_fn (TF 2.x has no contrib)."""

    def __init__(self, num_tasks):
        self.loads = np.zeros(num_tasks)

    def __call__(self, op):
        task = int(np.argmin(self.loads))
        out = op.outputs[0]
        self.loads[task] += out.get_shape().num_elements() * out.dtype.size
        return task


def rds_greedy(tf):
    training = getattr(getattr(tf, "contrib", None), "training", None)
    strategy = (training.GreedyLoadBalancingStrategy(3, training.byte_size_load_fn) if training
                else _Greedy(3))
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
        for name, n in (("g0", 10), ("g1", 2), ("g2", 4), ("g3", 1), ("g4", 6)):
            tf.Variable(tf.zeros([n]), name=name)
        tf.Variable(tf.zeros([3, 5], tf.float64), name="g5")
    return _devices(tf)


def rds_custom_strategy(tf):
    seen = []

    def last_task(op):
        seen.append([op.name, op.type])
        return 1

    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=last_task)):
        _model(tf)
        with tf.device("/job:worker"):
            tf.Variable(tf.zeros([2]), name="pinned")
    return {"ops": _devices(tf), "asked": seen}


def rds_called_directly(tf):
    fn = tf.train.replica_device_setter(ps_tasks=2)
    c = tf.constant(1.0, name="c")
    v = tf.Variable(tf.zeros([2]), name="v")
    return [fn(c.op), fn(v.op), fn(v.op)]


def rds_input_producer(tf):
    # The epoch counter string_input_producer makes is a ps op: on a ps task, as TF places it.
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        tf.Variable(tf.zeros([2]), name="v")
        tf.train.string_input_producer(["a", "b"], num_epochs=2)
    return [[op.name, op.device] for op in tf.get_default_graph().get_operations() if op.type == "VariableV2"]


def rds_device_function_sees_every_builder_op(tf):
    # A plain device function is called for each op the optimizer's builders make.
    def by_type(op):
        return "/device:CPU:0" if op.type.startswith(("Variable", "Apply", "Assign")) else "/job:worker"

    with tf.device(by_type):
        loss = _model(tf)
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    return _devices(tf)


def rds_bad_strategy(tf):
    tf.train.replica_device_setter(ps_tasks=2, ps_strategy="round-robin")


def rds_bad_cluster(tf):
    tf.train.replica_device_setter(cluster=["a:1"])


def rds_strategy_error(tf):
    def boom(op):
        raise ValueError("no task for %s" % op.name)

    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=boom)):
        tf.Variable(tf.zeros([2]), name="v")


PROGRAMS = [rds_round_robin, rds_adam_slots, rds_momentum_slots, rds_partial_devices, rds_nested, rds_clusters,
            rds_none, rds_merge_devices_false, rds_ps_ops_and_devices, rds_greedy, rds_custom_strategy,
            rds_called_directly, rds_input_producer, rds_device_function_sees_every_builder_op, rds_bad_strategy, rds_bad_cluster, rds_strategy_error]
