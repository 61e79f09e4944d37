"""GraphDef in protobuf's text format (tf.train.write_graph(..., as_text=True)).

Design: the GraphDef messages are framework/graph_pb's; graph_def_to_text decodes the
serialized GraphDef and prints it as protobuf's text_format does (fields in declaration order, map entries sorted by key, DataType enums by name, bytes
C-escaped), so TF's text_format.Merge reads it back. A function library (field 2) is printed
only as what these classes know of it (FunctionDef is not declared: functions are left out).

Errors: bytes that are not a GraphDef raise example_pb.DecodeError.
"""
from tfc.framework import graph_pb

GraphDef = graph_pb.GraphDef
DATA_TYPE_NAMES = graph_pb.DATA_TYPE_NAMES


def graph_def_to_text(data):
    """The text format of the serialized GraphDef `data` (a str)."""
    return str(GraphDef.FromString(data))
