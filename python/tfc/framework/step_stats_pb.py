"""RunMetadata and StepStats as Python messages: what `Session.run(..., options=RunOptions(
trace_level=...), run_metadata=rm)` fills, read as in TF (`rm.step_stats.dev_stats[0].
node_stats[i].node_name`, `rm.partition_graphs[0].node`).

Design: the runtime serializes RunMetadata in C (TF_SessionRun's run_metadata buffer); these
classes are example_pb's hand-written messages (the package needs numpy only) with the field
numbers of tensorflow/core/framework/{step_stats,tensor_description,allocation_description}.proto
and core/protobuf/config.proto. Fields the runtime does not fill (NodeExecStats.memory,
memory_stats, referenced_tensor, the *_nanos twins, RunMetadata.cost_graph and
function_graphs) are not declared: bytes that hold them still parse, and the framework keeps
such unknown fields and writes them back as they came. partition_graphs are GraphDef messages (framework/graph_pb).

Errors: bytes that are not a RunMetadata raise example_pb.DecodeError.
"""
from tfc import example_pb as _pb
from tfc.framework import graph_pb as _graph_pb  # noqa: F401 (registers GraphDef, TensorShapeProto)

_Message = _pb._Message
_register = _pb._register


@_register
class AllocationDescription(_Message):
    _FIELDS = (("requested_bytes", 1, "int64"), ("allocated_bytes", 2, "int64"), ("allocator_name", 3, "string"),
               ("allocation_id", 4, "int64"), ("has_single_reference", 5, "bool"), ("ptr", 6, "int64"))


@_register
class TensorDescription(_Message):
    _FIELDS = (("dtype", 1, "enum"), ("shape", 2, "msg:TensorShapeProto"),
               ("allocation_description", 4, "msg:AllocationDescription"))
    _ENUM_NAMES = {"dtype": _graph_pb.DATA_TYPE_NAMES}


@_register
class NodeOutput(_Message):
    _FIELDS = (("slot", 1, "int32"), ("tensor_description", 3, "msg:TensorDescription"))


@_register
class NodeExecStats(_Message):
    _FIELDS = (("node_name", 1, "string"), ("all_start_micros", 2, "int64"), ("op_start_rel_micros", 3, "int64"),
               ("op_end_rel_micros", 4, "int64"), ("all_end_rel_micros", 5, "int64"),
               ("output", 7, "rep_msg:NodeOutput"), ("timeline_label", 8, "string"),
               ("scheduled_micros", 9, "int64"), ("thread_id", 10, "int64"))


@_register
class DeviceStepStats(_Message):
    _FIELDS = (("device", 1, "string"), ("node_stats", 2, "rep_msg:NodeExecStats"))


@_register
class StepStats(_Message):
    _FIELDS = (("dev_stats", 1, "rep_msg:DeviceStepStats"),)


@_register
class RunMetadata(_Message):
    _FIELDS = (("step_stats", 1, "msg:StepStats"), ("partition_graphs", 3, "rep_msg:GraphDef"))
