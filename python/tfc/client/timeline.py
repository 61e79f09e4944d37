"""tf.python.client.timeline: a step's StepStats as a Chrome trace (chrome://tracing, Perfetto).

Design: the layout of TF's timeline module. Each device gets a process ("<device> Compute",
pid in dev_stats order) and each node execution an "X" event (category "Op", named by its op,
args {"name": node, "op": op, "input0": ..., ...} parsed from the NodeExecStats's
timeline_label "name = Op(in, ...)"), on the first lane (tid) of its device free at its start,
so overlapping nodes never share a row. With show_dataflow, an input whose producer ran on
another device draws a flow arrow ("s" at the producer's end, "t" at the consumer's start,
category "DataFlow"). A step's cross-device edges go through _Send/_Recv pairs, which (as in
TF) are not recorded, so a partitioned step's arrows are only those of inputs named across
devices. show_memory adds a "<device> Tensors" process per device and an "O" snapshot
per recorded output (NodeOutput: FULL_TRACE) with its dtype, shape and bytes; allocator
counters are not drawn (the runtime records no allocator timeline).

Errors: none of its own; a StepStats-like object without the fields raises AttributeError.
"""
import json
import re

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


class _ChromeTraceFormatter(object):
    """The trace's events, in TF's JSON shape."""

    def __init__(self):
        self._events = []
        self._metadata = []

    def emit_pid(self, name, pid):
        self._metadata.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
        self._metadata.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}})

    def emit_region(self, timestamp, duration, pid, tid, category, name, args):
        self._events.append({"ph": "X", "cat": category, "name": name, "pid": pid, "tid": tid,
                             "ts": timestamp, "dur": duration, "args": args})

    def emit_flow(self, name, start, start_pid, start_tid, end, end_pid, end_tid, flow_id):
        self._events.append({"ph": "s", "cat": "DataFlow", "name": name, "pid": start_pid, "tid": start_tid,
                             "ts": start, "id": flow_id})
        self._events.append({"ph": "t", "cat": "DataFlow", "name": name, "pid": end_pid, "tid": end_tid,
                             "ts": end, "id": flow_id})

    def emit_obj_snapshot(self, category, name, timestamp, pid, tid, object_id, snapshot):
        self._events.append({"ph": "O", "cat": category, "name": name, "pid": pid, "tid": tid,
                             "ts": timestamp, "id": object_id, "args": {"snapshot": snapshot}})

    def format_to_string(self, pretty=False):
        trace = {"traceEvents": self._metadata + self._events}
        return json.dumps(trace, indent=4, separators=(",", ": ")) if pretty else json.dumps(trace,
                                                                                              separators=(",", ":"))


def _parse_label(label):
    """(node name, op, inputs) from "name = Op(a, b:1, ^c)"; ('unknown', 'unknown', []) when the
    label has another form."""
    m = _LABEL.match(label)
    if not m:
        return "unknown", "unknown", []
    inputs = [s for s in m.group(3).split(", ") if s]
    return m.group(1), m.group(2), inputs


class Timeline(object):
    """A Chrome trace of one step: Timeline(run_metadata.step_stats, graph=None)."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        """The trace as a JSON string (TF's argument names and defaults)."""
        ct = _ChromeTraceFormatter()
        devs = list(self._step_stats.dev_stats)
        pids = {}
        for i, d in enumerate(devs):
            pids[d.device] = 2 * i
            ct.emit_pid(d.device + " Compute", 2 * i)
            if show_memory:
                ct.emit_pid(d.device + " Tensors", 2 * i + 1)
        # lanes, then every op's (pid, tid, start, end)
        placed = {}   # node name -> (pid, tid, start, end)
        ops = []
        for d in devs:
            pid = pids[d.device]
            lanes = []
            for ns in sorted(d.node_stats, key=lambda n: n.all_start_micros):
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                for tid, free_at in enumerate(lanes):
                    if free_at <= start:
                        lanes[tid] = end
                        break
                else:
                    tid = len(lanes)
                    lanes.append(end)
                name, op, inputs = _parse_label(ns.timeline_label)
                if name == "unknown":
                    name = ns.node_name
                args = {"name": ns.node_name, "op": op}
                for k, inp in enumerate(inputs):
                    args["input%d" % k] = inp
                ct.emit_region(start, ns.all_end_rel_micros, pid, tid, "Op", op, args)
                placed[ns.node_name] = (pid, tid, start, end)
                ops.append((ns, pid, tid, start, op, inputs))
        if show_dataflow:
            flow_id = 0
            for ns, pid, tid, start, op, inputs in ops:
                for inp in inputs:
                    if inp.startswith("^"):
                        continue
                    src = inp.split(":")[0]
                    if src in placed and placed[src][0] != pid:
                        spid, stid, _, send_end = placed[src]
                        ct.emit_flow(inp, send_end, spid, stid, start, pid, tid, flow_id)
                        flow_id += 1
        if show_memory:
            object_id = 0
            for ns, pid, tid, start, op, inputs in ops:
                for out in ns.output:
                    td = out.tensor_description
                    name = "%s:%d" % (ns.node_name, out.slot)
                    snapshot = {"tensor_description": {
                        "dtype": _dtype_name(td.dtype),
                        "shape": [dim.size for dim in td.shape.dim],
                        "allocated_bytes": td.allocation_description.allocated_bytes}}
                    ct.emit_obj_snapshot("Tensor", name, start + ns.op_end_rel_micros, pid + 1, 0, object_id,
                                         snapshot)
                    object_id += 1
        return ct.format_to_string(pretty=True)


def _dtype_name(dt):
    from tfc import graph_text
    return graph_text.DATA_TYPE_NAMES.get(dt, str(dt))
