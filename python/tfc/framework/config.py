"""ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunOptions, RunMetadata.

Plain Python messages with TF's field names and numbers (tensorflow/core/protobuf/config.proto)
that serialize to the bytes TF_SetConfig and TF_SessionRun take. Fields are set by keyword or
by assignment; nested messages are created on first access; `device_count` is a dict. An
unknown keyword raises ValueError('Protocol message ConfigProto has no "x" field.').
RunMetadata (with StepStats and partition_graphs) is a message of framework/step_stats_pb.py,
re-exported here.
"""
from tfc.framework import proto
from tfc.framework.step_stats_pb import RunMetadata  # noqa: F401 (tf.RunMetadata)

# kinds: "int", "bool", "str", "double", "float", "msg:<Class>", "map_str_int", "rep_str"


class _Message(object):
    _FIELDS = ()  # (name, number, kind, default)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", {})
        for k, v in kwargs.items():
            if k not in self._field_map():
                raise ValueError('Protocol message %s has no "%s" field.' % (type(self).__name__, k))
            if isinstance(v, dict) and self._field_map()[k][1] == "map_str_int":
                getattr(self, k).update(v)
            else:
                setattr(self, k, v)

    @classmethod
    def _field_map(cls):
        m = cls.__dict__.get("_MAP")
        if m is None:
            m = {name: (num, kind, default) for name, num, kind, default in cls._FIELDS}
            cls._MAP = m
        return m

    def __getattr__(self, name):
        f = type(self)._field_map().get(name)
        if f is None:
            raise AttributeError("%s has no field %s" % (type(self).__name__, name))
        num, kind, default = f
        vals = object.__getattribute__(self, "_values")
        if name not in vals:
            if kind.startswith("msg:"):
                vals[name] = _CLASSES[kind[4:]]()
            elif kind == "map_str_int":
                vals[name] = {}
            elif kind == "rep_str":
                vals[name] = []
            else:
                return default
        return vals[name]

    def __setattr__(self, name, value):
        f = type(self)._field_map().get(name)
        if f is None:
            raise AttributeError('Assignment not allowed (no field "%s" in protocol message object).' % name)
        kind = f[1]
        if kind.startswith("msg:") or kind in ("map_str_int", "rep_str"):
            if kind.startswith("msg:") and not isinstance(value, _CLASSES[kind[4:]]):
                raise TypeError("expected a %s for field %s" % (kind[4:], name))
            value = dict(value) if kind == "map_str_int" else list(value) if kind == "rep_str" else value
        elif kind == "bool":
            value = bool(value)
        elif kind == "int":
            value = int(value)
        elif kind in ("double", "float"):
            value = float(value)
        self._values[name] = value

    def HasField(self, name):
        return name in self._values

    def CopyFrom(self, other):
        self._values.clear()
        self.MergeFrom(other)

    def MergeFrom(self, other):
        for k, v in other._values.items():
            setattr(self, k, v)

    def SerializeToString(self):
        out = []
        for name, num, kind, default in self._FIELDS:
            if name not in self._values:
                continue
            v = self._values[name]
            if kind.startswith("msg:"):
                out.append(proto.field_bytes(num, v.SerializeToString()))
            elif kind == "map_str_int":
                for k in sorted(v):
                    out.append(proto.field_bytes(num, proto.field_bytes(1, k) + proto.field_varint(2, v[k])))
            elif kind == "rep_str":
                out.extend(proto.field_bytes(num, s) for s in v)
            elif v == default:
                continue  # proto3: defaults are not written
            elif kind in ("int", "bool"):
                out.append(proto.field_varint(num, v))
            elif kind == "str":
                out.append(proto.field_bytes(num, v))
            elif kind == "double":
                out.append(proto.field_double(num, v))
            elif kind == "float":
                out.append(proto.field_float(num, v))
        return b"".join(out)

    def __eq__(self, other):
        return type(self) is type(other) and self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __repr__(self):
        parts = []
        for name, _, kind, _ in self._FIELDS:
            if name in self._values:
                parts.append("%s: %r" % (name, self._values[name]))
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))


class OptimizerOptions(_Message):
    L1, L0, DEFAULT, ON_1, OFF = 0, -1, 0, 1, -1
    _FIELDS = (("do_common_subexpression_elimination", 1, "bool", False),
               ("do_constant_folding", 2, "bool", False), ("opt_level", 3, "int", 0),
               ("do_function_inlining", 4, "bool", False), ("global_jit_level", 5, "int", 0))


class GPUOptions(_Message):
    _FIELDS = (("per_process_gpu_memory_fraction", 1, "double", 0.0), ("allocator_type", 2, "str", ""),
               ("deferred_deletion_bytes", 3, "int", 0), ("allow_growth", 4, "bool", False),
               ("visible_device_list", 5, "str", ""), ("polling_active_delay_usecs", 6, "int", 0),
               ("polling_inactive_delay_msecs", 7, "int", 0), ("force_gpu_compatible", 8, "bool", False))


class GraphOptions(_Message):
    _FIELDS = (("enable_recv_scheduling", 2, "bool", False), ("optimizer_options", 3, "msg:OptimizerOptions", None),
               ("build_cost_model", 4, "int", 0), ("infer_shapes", 5, "bool", False),
               ("place_pruned_graph", 6, "bool", False), ("enable_bfloat16_sendrecv", 7, "bool", False),
               ("timeline_step", 8, "int", 0), ("build_cost_model_after", 9, "int", 0))


class ConfigProto(_Message):
    _FIELDS = (("device_count", 1, "map_str_int", None), ("intra_op_parallelism_threads", 2, "int", 0),
               ("placement_period", 3, "int", 0), ("device_filters", 4, "rep_str", None),
               ("inter_op_parallelism_threads", 5, "int", 0), ("gpu_options", 6, "msg:GPUOptions", None),
               ("allow_soft_placement", 7, "bool", False), ("log_device_placement", 8, "bool", False),
               ("use_per_session_threads", 9, "bool", False), ("graph_options", 10, "msg:GraphOptions", None),
               ("operation_timeout_in_ms", 11, "int", 0), ("isolate_session_state", 15, "bool", False))


class RunOptions(_Message):
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    _FIELDS = (("trace_level", 1, "int", 0), ("timeout_in_ms", 2, "int", 0),
               ("inter_op_thread_pool", 3, "int", 0), ("output_partition_graphs", 5, "bool", False),
               ("report_tensor_allocations_upon_oom", 7, "bool", False))


_CLASSES = {c.__name__: c for c in (OptimizerOptions, GPUOptions, GraphOptions, ConfigProto, RunOptions)}
