"""The protocol buffer messages of savers and meta graphs, as Python objects: SaverDef,
CheckpointState, VariableDef, QueueRunnerDef, CollectionDef, MetaInfoDef, MetaGraphDef and its
SignatureDef, TensorInfo and AssetFileDef, and SavedModel (saved_model.proto).

Design: the messages are written on example_pb's small codec (the package needs numpy only),
with the field numbers of tensorflow/core/protobuf/{saver,meta_graph,queue_runner}.proto,
core/framework/variable.proto and python/training/checkpoint_state.proto. The serialized
MetaGraphDef itself is made and read in C (include/tfc/meta_graph.h); these classes give
Python programs the message objects TF's Python returns (export_meta_graph's result,
Saver.as_saver_def(), get_checkpoint_state()). A GraphDef and an OpList are kept as their
serialized bytes (the wire format of an embedded message is its bytes), so a MetaGraphDef
parses and serializes back unchanged.
"""
from tfc import example_pb as _pb
from tfc.framework import graph_pb as _graph_pb  # registers TensorShapeProto

_Message = _pb._Message
_register = _pb._register


@_register
class SaverDef(_Message):
    _FIELDS = (("filename_tensor_name", 1, "string"), ("save_tensor_name", 2, "string"),
               ("restore_op_name", 3, "string"), ("max_to_keep", 4, "int32"), ("sharded", 5, "bool"),
               ("keep_checkpoint_every_n_hours", 6, "float"), ("version", 7, "enum"))
    _ENUM_NAMES = {"version": {0: "LEGACY", 1: "V1", 2: "V2"}}
    LEGACY, V1, V2 = 0, 1, 2


class CheckpointFormatVersion(object):
    LEGACY, V1, V2 = 0, 1, 2


SaverDef.CheckpointFormatVersion = CheckpointFormatVersion


@_register
class CheckpointState(_Message):
    _FIELDS = (("model_checkpoint_path", 1, "string"), ("all_model_checkpoint_paths", 2, "rep_string"),
               ("all_model_checkpoint_timestamps", 3, "rep_double"), ("last_preserved_timestamp", 4, "double"))


@_register
class VariableDef(_Message):
    _FIELDS = (("variable_name", 1, "string"), ("initial_value_name", 6, "string"),
               ("initializer_name", 2, "string"), ("snapshot_name", 3, "string"),
               ("save_slice_info_def", 4, "bytes"), ("is_resource", 5, "bool"), ("trainable", 7, "bool"),
               ("synchronization", 8, "enum"), ("aggregation", 9, "enum"))


@_register
class QueueRunnerDef(_Message):
    _FIELDS = (("queue_name", 1, "string"), ("enqueue_op_name", 2, "rep_string"), ("close_op_name", 3, "string"),
               ("cancel_op_name", 4, "string"), ("queue_closed_exception_types", 5, "rep_int32"))


@_register
class CollectionDefNodeList(_Message):
    _FIELDS = (("value", 1, "rep_string"),)


@_register
class CollectionDefBytesList(_Message):
    _FIELDS = (("value", 1, "rep_bytes"),)


@_register
class CollectionDefInt64List(_Message):
    _FIELDS = (("value", 1, "rep_int64"),)


@_register
class CollectionDefFloatList(_Message):
    _FIELDS = (("value", 1, "rep_float"),)


@_register
class CollectionDef(_Message):
    _FIELDS = (("node_list", 1, "msg:CollectionDefNodeList"), ("bytes_list", 2, "msg:CollectionDefBytesList"),
               ("int64_list", 3, "msg:CollectionDefInt64List"), ("float_list", 4, "msg:CollectionDefFloatList"),
               ("any_list", 5, "bytes"))
    _ONEOFS = {"kind": ("node_list", "bytes_list", "int64_list", "float_list", "any_list")}
    NodeList = CollectionDefNodeList
    BytesList = CollectionDefBytesList
    Int64List = CollectionDefInt64List
    FloatList = CollectionDefFloatList


@_register
class MetaInfoDef(_Message):
    _FIELDS = (("meta_graph_version", 1, "string"), ("stripped_op_list", 2, "bytes"), ("any_info", 3, "bytes"),
               ("tags", 4, "rep_string"), ("tensorflow_version", 5, "string"),
               ("tensorflow_git_version", 6, "string"), ("stripped_default_attrs", 7, "bool"))


@_register
class TensorInfoCooSparse(_Message):
    _FIELDS = (("values_tensor_name", 1, "string"), ("indices_tensor_name", 2, "string"),
               ("dense_shape_tensor_name", 3, "string"))


@_register
class TensorInfo(_Message):
    _FIELDS = (("name", 1, "string"), ("coo_sparse", 4, "msg:TensorInfoCooSparse"),
               ("composite_tensor", 5, "bytes"), ("dtype", 2, "enum"),
               ("tensor_shape", 3, "msg:TensorShapeProto"))
    _ENUM_NAMES = {"dtype": _graph_pb.DATA_TYPE_NAMES}
    CooSparse = TensorInfoCooSparse


@_register
class SignatureDef(_Message):
    _FIELDS = (("inputs", 1, "map_msg:TensorInfo"), ("outputs", 2, "map_msg:TensorInfo"),
               ("method_name", 3, "string"))


@_register
class AssetFileDef(_Message):
    _FIELDS = (("tensor_info", 1, "msg:TensorInfo"), ("filename", 2, "string"))


@_register
class MetaGraphDef(_Message):
    _FIELDS = (("meta_info_def", 1, "msg:MetaInfoDef"), ("graph_def", 2, "bytes"), ("saver_def", 3, "msg:SaverDef"),
               ("collection_def", 4, "map_msg:CollectionDef"), ("signature_def", 5, "map_msg:SignatureDef"),
               ("asset_file_def", 6, "rep_msg:AssetFileDef"), ("object_graph_def", 7, "bytes"))
    MetaInfoDef = MetaInfoDef


@_register
class SavedModel(_Message):
    _FIELDS = (("saved_model_schema_version", 1, "int64"), ("meta_graphs", 2, "rep_msg:MetaGraphDef"))
