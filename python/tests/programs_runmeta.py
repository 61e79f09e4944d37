"""RunMetadata under RunOptions: which nodes a traced step records (by name, per device),
their timeline labels, how many partition graphs come back and which transfer ops they
hold, and what an untraced run returns, compared with TensorFlow's (see programs.py).

Node names are compared for the graph's own nodes: TF also records its _SOURCE node, and
names the feeds' _Arg and fetches' _Retval nodes its own way (`_arg_x_0_0`, `_retval_c_0_0`),
so names starting with "_" are left out, and so are labels that mention them. Neither
records the _Send/_Recv nodes of a partitioned step. Placeholders with static shapes keep TF's graph optimizer from folding
nodes away, so both run the same nodes.
"""
import numpy as np


def _run(tf, fetch, feeds, level, partition_graphs=True, n_cpus=1):
    rm = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": n_cpus})) as sess:
        sess.run(fetch, feeds, options=tf.RunOptions(trace_level=level, output_partition_graphs=partition_graphs),
                 run_metadata=rm)
    return rm


def _summary(rm):
    devices = {}
    for d in rm.step_stats.dev_stats:
        names = [n.node_name for n in d.node_stats if not n.node_name.startswith("_")]
        labels = sorted(n.timeline_label for n in d.node_stats
                        if not n.node_name.startswith("_") and "_" not in n.timeline_label.split(" = ")[1][:2]
                        and "(_" not in n.timeline_label and ", _" not in n.timeline_label)
        devices[d.device] = {"nodes": sorted(names), "each_once": len(names) == len(set(names)), "labels": labels}
    graphs = []
    for g in rm.partition_graphs:
        ops = [n.op for n in g.node]
        graphs.append({"sends": ops.count("_Send"), "recvs": ops.count("_Recv"),
                       "nodes": sorted(n.name for n in g.node if not n.name.startswith("_"))})
    return {"devices": devices, "partition_graphs": sorted(graphs, key=lambda x: x["nodes"])}


def _graph(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.add(a, x, name="b")
    c = tf.reduce_sum(b * 2.0, axis=0, name="c")
    return x, c


def full_trace_one_device(tf):
    x, c = _graph(tf)
    rm = _run(tf, c, {x: np.ones(2, np.float32)}, tf.RunOptions.FULL_TRACE)
    return _summary(rm)


def software_trace_one_device(tf):
    x, c = _graph(tf)
    rm = _run(tf, c, {x: np.ones(2, np.float32)}, tf.RunOptions.SOFTWARE_TRACE, partition_graphs=False)
    r = _summary(rm)
    r["n_partition_graphs"] = len(rm.partition_graphs)
    return r


def no_trace_is_empty(tf):
    x, c = _graph(tf)
    rm = _run(tf, c, {x: np.ones(2, np.float32)}, tf.RunOptions.NO_TRACE, partition_graphs=False)
    return {"dev_stats": len(rm.step_stats.dev_stats), "partition_graphs": len(rm.partition_graphs),
            "bytes": len(rm.SerializeToString())}


def partition_graphs_without_trace(tf):
    x, c = _graph(tf)
    rm = _run(tf, c, {x: np.ones(2, np.float32)}, tf.RunOptions.NO_TRACE, partition_graphs=True)
    return {"dev_stats": len(rm.step_stats.dev_stats), "partition_graphs": _summary(rm)["partition_graphs"]}


def two_devices(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:0"):
        a = tf.multiply(x, 3.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.multiply(a, 2.0, name="b")
    with tf.device("/cpu:0"):
        c = tf.negative(b, name="c")
    rm = _run(tf, c, {x: np.ones(2, np.float32)}, tf.RunOptions.FULL_TRACE, n_cpus=2)
    return _summary(rm)


PROGRAMS = [full_trace_one_device, software_trace_one_device, no_trace_is_empty, partition_graphs_without_trace,
            two_devices]
