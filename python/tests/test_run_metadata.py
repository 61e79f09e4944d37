"""RunMetadata from Session.run: step_stats under RunOptions.trace_level (every node once per
device with times, labels, FULL_TRACE outputs; loop bodies once per iteration), nothing when
not traced, partition_graphs with _Send/_Recv across devices, the message's round trip, and
tfc.client.timeline's Chrome trace."""
import json

import numpy as np
import pytest

import tfc.compat.v1 as tf
from tfc.client import timeline
from tfc.framework import step_stats_pb

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


def _small():
    x = tf.placeholder(tf.float32, [3], name="x")
    a = tf.constant([1.0, 2.0, 3.0], name="a")
    return x, tf.reduce_sum(tf.multiply(a, x, name="m"), name="s")


def test_full_trace_records_every_node_once_with_times_labels_and_outputs():
    x, s = _small()
    rm = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(s, {x: [1, 1, 1]}, options=FULL, run_metadata=rm) == 6.0
    assert [d.device for d in rm.step_stats.dev_stats] == [CPU0]
    stats = rm.step_stats.dev_stats[0].node_stats
    names = [n.node_name for n in stats]
    assert len(names) == len(set(names))
    assert {"a", "m", "s", "Const"} <= set(names)
    by = {n.node_name: n for n in stats}
    assert by["m"].timeline_label.startswith("m = Mul(a, ")
    assert by["a"].timeline_label == "a = Const()"
    for n in stats:
        assert n.all_start_micros > 1.5e15 and n.scheduled_micros == n.all_start_micros
        assert 0 <= n.op_start_rel_micros <= n.op_end_rel_micros <= n.all_end_rel_micros
        assert n.thread_id > 0
    out = by["m"].output
    assert len(out) == 1 and out[0].slot == 0
    td = out[0].tensor_description
    assert td.dtype == tf.float32.as_datatype_enum
    assert [d.size for d in td.shape.dim] == [3]
    assert td.allocation_description.allocated_bytes == 12
    assert len(rm.partition_graphs) == 0


def test_software_trace_has_no_outputs_and_no_trace_is_empty():
    x, s = _small()
    with tf.Session() as sess:
        rm = tf.RunMetadata()
        sess.run(s, {x: [1, 1, 1]}, options=tf.RunOptions(trace_level=tf.RunOptions.SOFTWARE_TRACE),
                 run_metadata=rm)
        assert all(len(n.output) == 0 for n in rm.step_stats.dev_stats[0].node_stats)
        rm = tf.RunMetadata()
        sess.run(s, {x: [1, 1, 1]}, run_metadata=rm)
        assert rm.SerializeToString() == b"" and len(rm.step_stats.dev_stats) == 0
        rm = tf.RunMetadata()
        sess.run(s, {x: [1, 1, 1]}, options=tf.RunOptions(), run_metadata=rm)
        assert not rm.HasField("step_stats")


def test_partition_graphs_of_two_devices_hold_send_and_recv():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:0"):
        a = tf.multiply(x, 3.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.multiply(a, 2.0, name="b")
    rm = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        np.testing.assert_array_equal(
            sess.run(b, {x: [1, 2]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                                                           output_partition_graphs=True), run_metadata=rm),
            [6, 12])
    assert len(rm.partition_graphs) == 2
    ops = sorted(sorted(n.op for n in g.node if n.op.startswith("_S") or n.op.startswith("_Rec"))
                 for g in rm.partition_graphs)
    assert ops == [["_Recv"], ["_Send"]]
    devices = {d.device: [n.node_name for n in d.node_stats] for d in rm.step_stats.dev_stats}
    assert set(devices) == {CPU0, CPU1}
    assert "a" in devices[CPU0] and "b" in devices[CPU1]
    # the round trip keeps everything
    again = tf.RunMetadata.FromString(rm.SerializeToString())
    assert again == rm and again.partition_graphs[0].node[0].name == rm.partition_graphs[0].node[0].name


def test_loop_body_is_recorded_once_per_iteration():
    i = tf.constant(0, name="i0")
    r = tf.while_loop(lambda i: i < 4, lambda i: tf.add(i, 1, name="step"), [i])
    rm = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(r, options=FULL, run_metadata=rm) == 4
    names = [n.node_name for d in rm.step_stats.dev_stats for n in d.node_stats]
    assert names.count("while/step") == 4
    assert names.count("i0") == 1


def test_timeline_is_a_chrome_trace_naming_each_node():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:0"):
        a = tf.multiply(x, 3.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.multiply(a, 2.0, name="b")
    rm = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(b, {x: [1, 2]}, options=FULL, run_metadata=rm)
    trace = json.loads(timeline.Timeline(rm.step_stats).generate_chrome_trace_format(show_dataflow=True,
                                                                                       show_memory=False))
    events = trace["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(procs.values()) == [CPU0 + " Compute", CPU1 + " Compute"]
    ops = [e for e in events if e["ph"] == "X"]
    recorded = sorted(n.node_name for d in rm.step_stats.dev_stats for n in d.node_stats)
    assert sorted(e["args"]["name"] for e in ops) == recorded
    by = {e["args"]["name"]: e for e in ops}
    assert by["b"]["name"] == "Mul" and by["b"]["args"]["op"] == "Mul" and by["b"]["cat"] == "Op"
    assert procs[by["b"]["pid"]] == CPU1 + " Compute" and procs[by["a"]["pid"]] == CPU0 + " Compute"
    assert by["b"]["args"]["input1"] == "b/y"
    # events on one lane never overlap
    lanes = {}
    for e in ops:
        lanes.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in lanes.values():
        spans.sort()
        assert all(spans[k][1] <= spans[k + 1][0] for k in range(len(spans) - 1))
    mem = json.loads(timeline.Timeline(rm.step_stats).generate_chrome_trace_format(show_memory=True))
    snaps = [e for e in mem["traceEvents"] if e["ph"] == "O"]
    assert any(e["name"] == "b:0" and e["args"]["snapshot"]["tensor_description"]["shape"] == [2] for e in snaps)


def test_message_classes_have_tf_field_names():
    n = step_stats_pb.NodeExecStats(node_name="n", all_start_micros=5, timeline_label="n = NoOp()")
    n.output.add(slot=1).tensor_description.allocation_description.requested_bytes = 8
    ss = step_stats_pb.StepStats()
    ss.dev_stats.add(device=CPU0).node_stats.add().CopyFrom(n)
    back = step_stats_pb.StepStats.FromString(ss.SerializeToString())
    assert back.dev_stats[0].node_stats[0].output[0].tensor_description.allocation_description.requested_bytes == 8
    with pytest.raises(ValueError, match='Protocol message NodeExecStats has no "bogus" field.'):
        step_stats_pb.NodeExecStats(bogus=1)
