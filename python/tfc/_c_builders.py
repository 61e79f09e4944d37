"""Calling the input and summary builders of include/tfc/ from Python, and the bridges of
their collections.

Design: a builder runs under Graph._builder_scope() (the calling thread's name scope, device
and control dependencies as a _pywrap.Scope) through variables.call_builder (INVALID_ARGUMENT
raised as ValueError, as TF's Python raises it while building; the new ops wrapped by
Graph._sync_c_ops afterwards). The collections the builders write, "summaries" (one summary op
per entry) and "queue_runners" (queue, close op, cancel op, enqueue ops), are held by the C
graph: OpTupleCollection bridges turn an entry into a summary Tensor or a QueueRunner, and a
summary or QueueRunner that Python adds into a C entry, so get_collection sees one list in
creation order whoever made the entry.
"""
from tfc.framework import builder_collections
from tfc.framework import ops
from tfc.ops import variables as _variables


def output(graph, pair):
    """The Tensor of an (op handle, index) pair of a builder's result."""
    return graph._ops_by_handle[pair[0]].outputs[pair[1]]


def call(fn, graph, *args, **kw):
    """fn(c_graph, scope, *args) under graph's context (op_type=: the op type a device function
    is asked about); returns fn's result (handles and (op, index) pairs, for output())."""
    sc = graph._builder_scope(kw.get("op_type", "NoOp"))
    return _variables.call_builder(graph, fn, graph._c_graph, sc, *args)


def _summary_to_python(graph, op_list):
    return op_list[0].outputs[0]


def _summary_from_python(value):
    return [value.op] if isinstance(value, ops.Tensor) and value.value_index == 0 else None


def _runner_to_python(graph, op_list):
    from tfc import queue_runner
    return queue_runner.QueueRunner._from_ops(op_list)


def _runner_from_python(value):
    from tfc import queue_runner
    if not isinstance(value, queue_runner.QueueRunner):
        return None
    q = value.queue.queue_ref.op if hasattr(value.queue, "queue_ref") else None
    if q is None or value.close_op is None or value.cancel_op is None:
        return None
    return [q, value.close_op, value.cancel_op] + list(value.enqueue_ops)


ops.register_collection_bridge(ops.GraphKeys.SUMMARIES, builder_collections.OpTupleCollection(
    ops.GraphKeys.SUMMARIES, _summary_to_python, _summary_from_python))
ops.register_collection_bridge(ops.GraphKeys.QUEUE_RUNNERS, builder_collections.OpTupleCollection(
    ops.GraphKeys.QUEUE_RUNNERS, _runner_to_python, _runner_from_python))
