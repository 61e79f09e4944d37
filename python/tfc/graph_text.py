"""GraphDef in protobuf's text format (tf.train.write_graph(..., as_text=True)).

Design: the GraphDef messages (graph.proto, node_def.proto, attr_value.proto, tensor.proto,
tensor_shape.proto, versions.proto) declared with example_pb's hand-written message classes;
graph_def_to_text decodes the serialized GraphDef and prints it as protobuf's text_format does
(fields in declaration order, map entries sorted by key, DataType enums by name, bytes
C-escaped), so TF's text_format.Merge reads it back. A function library (field 2) is printed
only as what these classes know of it (FunctionDef is not declared: functions are left out).

Errors: bytes that are not a GraphDef raise example_pb.DecodeError.
"""
from tfc import example_pb as _pb

_DT = ["DT_INVALID", "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
       "DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16", "DT_QINT16",
       "DT_QUINT16", "DT_UINT16", "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE", "DT_VARIANT", "DT_UINT32",
       "DT_UINT64"]
DATA_TYPE_NAMES = {i: n for i, n in enumerate(_DT)}
DATA_TYPE_NAMES.update({i + 100: n + "_REF" for i, n in enumerate(_DT) if i})


@_pb._register
class TensorShapeProtoDim(_pb._Message):
    _FIELDS = (("size", 1, "int64"), ("name", 2, "string"))


@_pb._register
class TensorShapeProto(_pb._Message):
    _FIELDS = (("dim", 2, "rep_msg:TensorShapeProtoDim"), ("unknown_rank", 3, "bool"))


@_pb._register
class TensorProto(_pb._Message):
    _FIELDS = (("dtype", 1, "enum"), ("tensor_shape", 2, "msg:TensorShapeProto"), ("version_number", 3, "int32"),
               ("tensor_content", 4, "bytes"), ("half_val", 13, "rep_int32"), ("float_val", 5, "rep_float"),
               ("double_val", 6, "rep_double"), ("int_val", 7, "rep_int32"), ("string_val", 8, "rep_bytes"),
               ("scomplex_val", 9, "rep_float"), ("int64_val", 10, "rep_int64"), ("bool_val", 11, "rep_bool"),
               ("dcomplex_val", 12, "rep_double"), ("uint32_val", 16, "rep_int64"), ("uint64_val", 17, "rep_int64"))
    _ENUM_NAMES = {"dtype": DATA_TYPE_NAMES}


@_pb._register
class AttrValueListValue(_pb._Message):
    _FIELDS = (("s", 2, "rep_bytes"), ("i", 3, "rep_int64"), ("f", 4, "rep_float"), ("b", 5, "rep_bool"),
               ("type", 6, "rep_enum"), ("shape", 7, "rep_msg:TensorShapeProto"), ("tensor", 8, "rep_msg:TensorProto"),
               ("func", 9, "rep_msg:NameAttrList"))
    _ENUM_NAMES = {"type": DATA_TYPE_NAMES}


@_pb._register
class AttrValue(_pb._Message):
    _FIELDS = (("list", 1, "msg:AttrValueListValue"), ("s", 2, "bytes"), ("i", 3, "int64"), ("f", 4, "float"),
               ("b", 5, "bool"), ("type", 6, "enum"), ("shape", 7, "msg:TensorShapeProto"),
               ("tensor", 8, "msg:TensorProto"), ("placeholder", 9, "string"), ("func", 10, "msg:NameAttrList"))
    _ONEOFS = {"value": ("list", "s", "i", "f", "b", "type", "shape", "tensor", "placeholder", "func")}
    _ENUM_NAMES = {"type": DATA_TYPE_NAMES}

    def _has(self, name):
        # a oneof member is present once set, even to its default (list {} included)
        return name in self._values and (name in self._present or super(AttrValue, self)._has(name))


@_pb._register
class NameAttrList(_pb._Message):
    _FIELDS = (("name", 1, "string"), ("attr", 2, "map_msg:AttrValue"))


@_pb._register
class NodeDef(_pb._Message):
    _FIELDS = (("name", 1, "string"), ("op", 2, "string"), ("input", 3, "rep_string"), ("device", 4, "string"),
               ("attr", 5, "map_msg:AttrValue"))


@_pb._register
class VersionDef(_pb._Message):
    _FIELDS = (("producer", 1, "int32"), ("min_consumer", 2, "int32"), ("bad_consumers", 3, "rep_int32"))


@_pb._register
class GraphDef(_pb._Message):
    _FIELDS = (("node", 1, "rep_msg:NodeDef"), ("versions", 4, "msg:VersionDef"), ("version", 3, "int32"))


def graph_def_to_text(data):
    """The text format of the serialized GraphDef `data` (a str)."""
    return str(GraphDef.FromString(data))
