"""tf.train.replica_device_setter and tf.contrib.training's greedy strategy (the C setter of
include/tfc/device_setter.h through _pywrap): what the differential programs cannot show
(TF 2.x has no tf.contrib), and the paths where Python callables plug into the C setter."""
import importlib.util
import os
import sys

import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _var_devices(g):
    return {op.name: op.device for op in g.get_operations() if op.type == "VariableV2"}


def test_greedy_strategy_places_by_bytes_and_keeps_its_loads(fresh_graph):
    training = tf.contrib.training
    strategy = training.GreedyLoadBalancingStrategy(2, training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        tf.Variable(tf.zeros([100]), name="big")        # 400 bytes -> task 0
        tf.Variable(tf.zeros([10]), name="small")       # 40 -> task 1
        tf.Variable(tf.zeros([20], tf.float64), name="mid")  # 160 -> task 1 (40 < 400)
        tf.Variable(tf.zeros([60]), name="next")        # 240 -> task 1 (200 < 400)
        tf.Variable(tf.zeros([1]), name="last")         # loads 400, 440 -> task 0
    assert _var_devices(fresh_graph) == {"big": "/job:ps/task:0", "small": "/job:ps/task:1",
                                         "mid": "/job:ps/task:1", "next": "/job:ps/task:1",
                                         "last": "/job:ps/task:0"}
    # Called directly, as TF's strategy object: the same loads (400 + 4 vs 440).
    v = tf.Variable(tf.zeros([30]), name="direct")
    assert strategy(v.op) == 0


def test_greedy_strategy_with_a_python_load_function(fresh_graph):
    calls = []

    def load(op):
        calls.append(op.name)
        return 5.0 if op.name == "a" else 1.0

    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, load)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        for n in ("a", "b", "c", "d"):
            tf.Variable(tf.zeros([2]), name=n)
    assert calls == ["a", "b", "c", "d"]  # only ps ops are weighed
    assert _var_devices(fresh_graph) == {"a": "/job:ps/task:0", "b": "/job:ps/task:1", "c": "/job:ps/task:1",
                                         "d": "/job:ps/task:1"}


def test_the_global_step_is_weighed_as_an_int64_scalar(fresh_graph):
    training = tf.contrib.training
    strategy = training.GreedyLoadBalancingStrategy(2, training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        tf.Variable(tf.zeros([3]), name="w")  # 12 bytes -> task 0
        tf.train.get_or_create_global_step()  # 8 bytes -> task 1
        tf.Variable(tf.zeros([1]), name="u")  # 12 vs 8 -> task 1
    assert _var_devices(fresh_graph) == {"w": "/job:ps/task:0", "global_step": "/job:ps/task:1",
                                         "u": "/job:ps/task:1"}


def test_byte_size_load_fn_of_a_built_op_and_of_a_multi_output_op(fresh_graph):
    v = tf.Variable(tf.zeros([3, 4], tf.float64), name="v")
    assert tf.contrib.training.byte_size_load_fn(v.op) == 96
    a, b = tf.split(tf.zeros([4]), 2)
    with pytest.raises(ValueError, match="must have a single output"):
        tf.contrib.training.byte_size_load_fn(a.op)


def test_a_load_function_error_propagates_and_leaves_no_node(fresh_graph):
    def load(op):
        raise RuntimeError("cannot weigh %s" % op.name)

    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, load)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        with pytest.raises(RuntimeError, match="cannot weigh w"):
            tf.Variable(tf.zeros([2]), name="w")
    assert "w" not in [op.name for op in fresh_graph.get_operations()]


def test_an_empty_greedy_strategy_fails_when_asked(fresh_graph):
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(0, tf.contrib.training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        with pytest.raises(ValueError, match="empty sequence"):
            tf.Variable(tf.zeros([2]), name="w")


def test_a_strategy_returning_a_non_integer_is_a_type_error(fresh_graph):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=lambda op: "one")):
        with pytest.raises(TypeError):
            tf.Variable(tf.zeros([2]), name="w")


def test_ps_ops_must_be_type_names(fresh_graph):
    fn = tf.train.replica_device_setter(ps_tasks=2, ps_ops=("VariableV2",))
    with tf.device(fn):
        tf.Variable(tf.zeros([2]), name="w")
    assert _var_devices(fresh_graph) == {"w": "/job:ps/task:0"}


def test_a_malformed_ps_device_is_a_value_error():
    with pytest.raises(ValueError, match="Malformed device specification '/job:ps/bogus:3'"):
        tf.train.replica_device_setter(ps_tasks=1, ps_device="/job:ps/bogus:3")


# ---------------- seed 004's cluster model against TensorFlow's placements ----------------

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# The nodes whose device matters for between-graph replication: the variables (with their
# initial values, Assign and read), the optimizer's slots and updates, the moving averages, the
# global step's increment, SyncReplicasOptimizer's accumulators and token queue.
_PLACED_TYPES = {"VariableV2", "Assign", "AssignAdd", "AssignSub", "ApplyMomentum", "ResourceConditionalAccumulator",
                 "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
                 "ResourceAccumulatorSetGlobalStep", "FIFOQueueV2", "QueueEnqueueManyV2", "QueueDequeueV2"}


def _fixture_section(title):
    with open(os.path.join(_ROOT, "tests", "fixtures", "device_setter.txt")) as f:
        body = f.read().split("# %s\n" % title, 1)[1].split("\n\n", 1)[0]
    # TF 2.x pins queues to "/device:CPU:*", which tfc's placer does not take.
    return [line.replace("/device:CPU:*", "").split(" ") for line in body.splitlines()]


def _seed004():
    """examples/python/fashion_mnist.py as a module (its flags at their defaults)."""
    mod = sys.modules.get("fashion_mnist_example")
    if mod is None:
        spec = importlib.util.spec_from_file_location(
            "fashion_mnist_example", os.path.join(_ROOT, "examples", "python", "fashion_mnist.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.FLAGS(["fashion_mnist"])
        sys.modules["fashion_mnist_example"] = mod
    return mod


_CLUSTER2 = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222"]}


@pytest.mark.parametrize("title,setter_args,sync", [
    ("seed004 ps_tasks=1 async", dict(ps_tasks=1, worker_device="/job:worker/task:0"), False),
    ("seed004 cluster ps=2 sync", dict(worker_device="/job:worker/task:1", cluster=_CLUSTER2), True),
    ("seed004 cluster ps=2 greedy", dict(worker_device="/job:worker/task:0", cluster=_CLUSTER2, greedy=True), False),
])
def test_seed004_cluster_model_is_placed_as_tensorflow_places_it(fresh_graph, title, setter_args, sync):
    """tests/fixtures/gen_device_setter.py builds the same graphs with PyPI TensorFlow. Every
    node both graphs have is on the same device, and every variable, slot, update, accumulator
    and queue of TensorFlow's graph is in tfc's. (TF 2.x's graphs have nodes tfc's lack:
    initialized_value conds around the moving averages' initial values, ParseExampleV2 and
    dropout internals, some gradient nodes; none of them is placed on a ps.)"""
    args = dict(setter_args)
    if "cluster" in args:
        args["cluster"] = tf.train.ClusterSpec(args["cluster"])
    if args.pop("greedy", False):
        training = tf.contrib.training
        args["ps_strategy"] = training.GreedyLoadBalancingStrategy(2, training.byte_size_load_fn)
    _seed004().replica_model(tf.train.replica_device_setter(**args), "train.tfrecords", 12, True, sync, 2, 2)
    got = {op.name: (op.type, op.device or "-") for op in fresh_graph.get_operations()}
    want = _fixture_section(title)
    placed = [w for w in want if (w[1] in _PLACED_TYPES or w[0].endswith(("/read", "/initial_value")))
              and not any(part.startswith("cond") for part in w[0].split("/"))]  # TF 2.x's conds
    assert len(placed) > 60
    assert [w for w in placed if w[0] not in got] == []
    assert [(w, got[w[0]]) for w in placed if got[w[0]][0] != w[1]] == []
    # Devices node for node (types aside: TF 2.x's compat.v1 makes AddV2 where 1.15 made Add).
    # The moving averages' update math is the exception: TF 1.15 builds it under
    # colocate_with(shadow) (its default strategy's update), so it runs on the shadow's ps task;
    # TF 2.x leaves the requested device to the device function (its placer then colocates by
    # the _class attr). tfc follows 1.15: the shadow and its variable never cross to the worker.
    ema = [w for w in want if w[0] in got and "/AssignMovingAvg" in w[0]]
    assert ema and all(got[w[0]][1].startswith("/job:ps/") for w in ema), [(w, got[w[0]]) for w in ema]
    assert [(w, got[w[0]]) for w in want if w[0] in got and w not in ema and got[w[0]][1] != w[2]] == []
    assert sum(1 for w in want if w[0] in got) > 0.6 * len(want)
    ps_tasks = sorted({w[2].split("/device:")[0] for w in placed if w[2].startswith("/job:ps")})
    assert ps_tasks == (["/job:ps/task:0"] if "ps_tasks=1" in title else ["/job:ps/task:0", "/job:ps/task:1"])
