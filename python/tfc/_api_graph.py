"""The TF 1.x names of graph files, added to the API namespace by _api.py (export(namespace)):
tf.GraphDef, tf.NodeDef, tf.AttrValue, tf.NameAttrList, tf.TensorProto, tf.TensorShapeProto,
tf.VersionDef, tf.FunctionDefLibrary, tf.make_tensor_proto, tf.make_ndarray,
tf.import_graph_def and the tf.graph_util module."""
import types as _types

from tfc.framework import graph_pb as _graph_pb
from tfc.framework import graph_util as _graph_util
from tfc.framework import importer as _importer
from tfc.framework import tensor_util as _tensor_util


def export(ns):
    for n in ("GraphDef", "NodeDef", "AttrValue", "NameAttrList", "TensorProto", "TensorShapeProto", "VersionDef",
              "FunctionDefLibrary", "GradientDef"):
        ns[n] = getattr(_graph_pb, n)
    ns["make_tensor_proto"] = _tensor_util.make_tensor_proto
    ns["make_ndarray"] = _tensor_util.make_ndarray
    ns["import_graph_def"] = _importer.import_graph_def
    gu = ns.get("graph_util")
    if not isinstance(gu, _types.ModuleType):
        gu = ns["graph_util"] = _types.ModuleType("tfc.graph_util", "tf.graph_util")
    for n in ("convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes", "must_run_on_cpu",
              "tensor_shape_from_node_def_name"):
        setattr(gu, n, getattr(_graph_util, n))
