"""Calling include/tfc/ graph builders from Python and adopting what they add.

Design: a builder runs under the TFC_Scope of the calling thread's Python context (its name
scope, its device when the device stack holds strings or functions of no op, its control
dependencies), made in C from (name_stack, device, [control op]) — see python/_pywrap/io.c.
The builder adds nodes and collection entries to the C graph; call() then adopts them: every
operation the Python Graph does not know yet (found by TF_GraphNextOperation positions after
the last adoption) becomes an Operation, and the entries of the C collections "summaries" and
"queue_runners" added since the last adoption go into the Graph's collections (summaries as
their Tensors, queue runners as QueueRunner objects), in the order the builder made them.

Errors: the builder's INVALID_ARGUMENT becomes ValueError with its message (TF's Python raises
ValueError for the same bad arguments while building); other codes raise their OpError class.
A failed builder leaves the graph as it was (include/tfc/train.h).
"""
from tfc import _pywrap
from tfc.framework import errors
from tfc.framework import ops


def scope_spec(graph):
    """(name_stack, device, [control op handles]) of the calling thread's context."""
    device = graph._device_for("", "")
    controls = [c._c_op for c in graph._control_inputs_for(set())]
    return (graph._state.name_stack, device or "", controls)


def output(graph, pair):
    """The Tensor of an (op handle, index) pair of a builder's result."""
    return graph._ops_by_handle[pair[0]].outputs[pair[1]]


def adopt(graph):
    """Registers the C graph's new operations and C collection entries with the Python Graph.
    Returns nothing; needs the graph's lock (taken here)."""
    from tfc import queue_runner  # the QueueRunner class; imported late (it imports ops)
    with graph._lock:
        pos = getattr(graph, "_c_adopt_pos", 0)
        handles, pos = _pywrap.graph_ops_after(graph._c_graph, pos)
        for h in handles:
            if h in graph._ops_by_handle:
                continue
            op = ops.Operation(h, graph)
            graph._ops.append(op)
            graph._nodes_by_name[op.name] = op
            graph._ops_by_handle[h] = op
            graph._version += 1
        graph._c_adopt_pos = pos
        seen = getattr(graph, "_c_collections_seen", None)
        if seen is None:
            seen = graph._c_collections_seen = {}
        for name in (ops.GraphKeys.SUMMARIES, ops.GraphKeys.QUEUE_RUNNERS):
            start = seen.get(name, 0)
            entries = _pywrap.collection_entries(graph._c_graph, name, start)
            seen[name] = start + len(entries)
            for e in entries:
                if name == ops.GraphKeys.SUMMARIES:
                    graph._collections.setdefault(name, []).append(graph._ops_by_handle[e[0]].outputs[0])
                else:
                    qr = queue_runner.QueueRunner._from_c_entry(graph, e)
                    graph._collections.setdefault(name, []).append(qr)


def skip_c_collection(graph, name):
    """Marks the C collection's present entries as seen (they were added to Python already)."""
    seen = getattr(graph, "_c_collections_seen", None)
    if seen is None:
        seen = graph._c_collections_seen = {}
    seen[name] = len(_pywrap.collection_entries(graph._c_graph, name, 0))


def call(fn, graph, *args):
    """Runs builder fn(c_graph, scope_spec, *args) under graph's context, adopts what it made
    and returns its result (handles and (op, index) pairs, for output())."""
    graph._check_not_finalized()
    adopt(graph)  # ops made by other means first, so positions stay in creation order
    if graph.seed is not None:
        _pywrap.set_random_seed(graph._c_graph, int(graph.seed))
    with graph._lock:
        try:
            result = fn(graph._c_graph, scope_spec(graph), *args)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message) from None
        finally:
            adopt(graph)
    return result
