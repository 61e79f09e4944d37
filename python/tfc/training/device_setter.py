"""tf.train.replica_device_setter and tf.contrib.training.GreedyLoadBalancingStrategy over the C
setter (include/tfc/device_setter.h, through _pywrap.ReplicaDeviceSetter).

Design: the placement rules, the round-robin and greedy strategies and the cluster's ps job
size (the job of ps_device in the cluster; none: no setter) live in C, shared with C programs that put the setter on a TFC_Scope. Python adds TF's
argument handling (ClusterSpec / dict / ClusterDef clusters, None results, TypeError for a
strategy that is not callable) and hands the C setter Python callables where TF takes them:
a custom ps_strategy, or a GreedyLoadBalancingStrategy's load_fn. Graph._device_for calls the
returned device function with a _PendingOp (type, name, requested device, get_attr for the
attrs known before the op exists: a variable's shape and dtype), which is what
byte_size_load_fn reads when there is no op yet.
"""
from tfc import _pywrap
from tfc import server_lib
from tfc import tf_logging as logging
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import tensor_shape

# TF 1.15's STANDARD_PS_OPS (TF 2.x adds "DecisionTreeResource").
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator")


class _ReplicaDeviceChooser(object):
    """Holds the C setter; device_function is what replica_device_setter returns."""

    def __init__(self, c_setter, strategy):
        self._c = c_setter
        self._ps_strategy = strategy  # kept alive with the setter

    def device_function(self, op):
        """The device for `op` (an Operation, or the graph's pending op). A malformed requested
        device is TF's ValueError."""
        try:
            return self._c.device(op)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message)


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function placing ps ops (variables) on the ps tasks and the rest on the worker,
    or None when there are no ps tasks. See include/tfc/device_setter.h for the rules."""
    cluster_def = None
    if cluster is not None:
        if not isinstance(cluster, server_lib.ClusterSpec):
            cluster = server_lib.ClusterSpec(cluster)  # TypeError for anything else, as TF
        cluster_def = cluster.as_cluster_def().SerializeToString()
    if ps_ops is not None:
        ps_ops = [str(o) for o in ps_ops]
    try:
        c = _pywrap.replica_device_setter(int(ps_tasks), ps_device or "", worker_device or "", bool(merge_devices),
                                          cluster_def, ps_ops)
    except errors.InvalidArgumentError as e:  # a malformed device (TF finds it when placing)
        raise ValueError(e.message)
    if c is None:
        return None
    if not merge_devices:
        logging.warning("DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter")
    if ps_strategy is not None:
        if not callable(ps_strategy):
            raise TypeError("ps_strategy must be callable")
        c.use_strategy(ps_strategy)
    return _ReplicaDeviceChooser(c, ps_strategy).device_function


class GreedyLoadBalancingStrategy(object):
    """tf.contrib.training.GreedyLoadBalancingStrategy(num_tasks, load_fn): each op goes to the
    task with the least load so far (ties to the lowest index), whose load then grows by
    load_fn(op). The loads live in a C setter of its own (the greedy strategy of
    include/tfc/device_setter.h), shared by every replica_device_setter given this object."""

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._c = None
        if num_tasks > 0:
            self._c = _pywrap.replica_device_setter(int(num_tasks), "/job:ps", "", True, None, [])
            self._c.use_greedy(int(num_tasks), load_fn)

    def __call__(self, op):
        if self._c is None:
            raise ValueError("attempt to get argmin of an empty sequence")
        return self._c.choose_task(op)


def byte_size_load_fn(op):
    """The bytes of op's single output (tf.contrib.training.byte_size_load_fn). Before the op
    exists (a device function's pending op) its "shape" and "dtype" attrs say."""
    outputs = getattr(op, "outputs", None)
    if outputs is not None:
        if len(outputs) != 1:
            raise ValueError("Op %s must have a single output" % op)
        dtype = outputs[0].dtype
        shape = outputs[0].get_shape()
        if not shape.is_fully_defined():
            shape = tensor_shape.TensorShape(op.get_attr("shape"))
    else:
        dtype = dtypes.as_dtype(op.get_attr("dtype"))
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * dtype.size
