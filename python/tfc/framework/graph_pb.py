"""The GraphDef family of protocol buffer messages as Python objects: tf.GraphDef, tf.NodeDef,
tf.AttrValue (AttrValue.ListValue), tf.NameAttrList, tf.TensorProto, tf.TensorShapeProto
(TensorShapeProto.Dim), tf.VersionDef, tf.FunctionDefLibrary (GradientDef).

Design: declared on example_pb's small message framework (the package needs numpy only), with
the field numbers of tensorflow/core/framework/{graph,node_def,attr_value,tensor,tensor_shape,
versions,function}.proto; serialized bytes equal the protobuf package's for the same message,
and str() is protobuf's text format (DataType enums by name, map entries sorted by key).
A FunctionDef is not declared: FunctionDefLibrary.function holds each function as its
serialized bytes (the wire format of an embedded message is its bytes), so a GraphDef with a
library parses and serializes back unchanged; its text format leaves the functions out.

Errors: as example_pb (DecodeError for bytes that are not the message, TypeError/ValueError
for bad field values or names).
"""
from tfc import example_pb as _pb

_Message = _pb._Message
_register = _pb._register

_DT = ["DT_INVALID", "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
       "DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16", "DT_QINT16",
       "DT_QUINT16", "DT_UINT16", "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE", "DT_VARIANT", "DT_UINT32",
       "DT_UINT64"]
DATA_TYPE_NAMES = {i: n for i, n in enumerate(_DT)}
DATA_TYPE_NAMES.update({i + 100: n + "_REF" for i, n in enumerate(_DT) if i})


@_register
class TensorShapeProtoDim(_Message):
    _FIELDS = (("size", 1, "int64"), ("name", 2, "string"))


@_register
class TensorShapeProto(_Message):
    _FIELDS = (("dim", 2, "rep_msg:TensorShapeProtoDim"), ("unknown_rank", 3, "bool"))
    Dim = TensorShapeProtoDim


@_register
class TensorProto(_Message):
    _FIELDS = (("dtype", 1, "enum"), ("tensor_shape", 2, "msg:TensorShapeProto"), ("version_number", 3, "int32"),
               ("tensor_content", 4, "bytes"), ("half_val", 13, "rep_int32"), ("float_val", 5, "rep_float"),
               ("double_val", 6, "rep_double"), ("int_val", 7, "rep_int32"), ("string_val", 8, "rep_bytes"),
               ("scomplex_val", 9, "rep_float"), ("int64_val", 10, "rep_int64"), ("bool_val", 11, "rep_bool"),
               ("dcomplex_val", 12, "rep_double"), ("uint32_val", 16, "rep_int64"), ("uint64_val", 17, "rep_int64"))
    _ENUM_NAMES = {"dtype": DATA_TYPE_NAMES}


@_register
class AttrValueListValue(_Message):
    _FIELDS = (("s", 2, "rep_bytes"), ("i", 3, "rep_int64"), ("f", 4, "rep_float"), ("b", 5, "rep_bool"),
               ("type", 6, "rep_enum"), ("shape", 7, "rep_msg:TensorShapeProto"), ("tensor", 8, "rep_msg:TensorProto"),
               ("func", 9, "rep_msg:NameAttrList"))
    _ENUM_NAMES = {"type": DATA_TYPE_NAMES}


@_register
class AttrValue(_Message):
    _FIELDS = (("list", 1, "msg:AttrValueListValue"), ("s", 2, "bytes"), ("i", 3, "int64"), ("f", 4, "float"),
               ("b", 5, "bool"), ("type", 6, "enum"), ("shape", 7, "msg:TensorShapeProto"),
               ("tensor", 8, "msg:TensorProto"), ("placeholder", 9, "string"), ("func", 10, "msg:NameAttrList"))
    _ONEOFS = {"value": ("list", "s", "i", "f", "b", "type", "shape", "tensor", "placeholder", "func")}
    _ENUM_NAMES = {"type": DATA_TYPE_NAMES}
    ListValue = AttrValueListValue

    def _has(self, name):
        # a oneof member is present once set, even to its default (list {} included)
        return name in self._values and (name in self._present or super(AttrValue, self)._has(name))


@_register
class NameAttrList(_Message):
    _FIELDS = (("name", 1, "string"), ("attr", 2, "map_msg:AttrValue"))


@_register
class NodeDef(_Message):
    _FIELDS = (("name", 1, "string"), ("op", 2, "string"), ("input", 3, "rep_string"), ("device", 4, "string"),
               ("attr", 5, "map_msg:AttrValue"))


@_register
class VersionDef(_Message):
    _FIELDS = (("producer", 1, "int32"), ("min_consumer", 2, "int32"), ("bad_consumers", 3, "rep_int32"))


@_register
class GradientDef(_Message):
    _FIELDS = (("function_name", 1, "string"), ("gradient_func", 2, "string"))


@_register
class FunctionDefLibrary(_Message):
    _FIELDS = (("function", 1, "rep_bytes"), ("gradient", 2, "rep_msg:GradientDef"))
    _TEXT_SKIP = ("function",)


@_register
class GraphDef(_Message):
    _FIELDS = (("node", 1, "rep_msg:NodeDef"), ("versions", 4, "msg:VersionDef"), ("version", 3, "int32"),
               ("library", 2, "msg:FunctionDefLibrary"))

