"""tf.train.export_meta_graph and import_meta_graph (TF 1.x's framework/meta_graph.py and
training/saver.py) over include/tfc/meta_graph.h.

Design: the MetaGraphDef is made and imported in C (TFC_ExportMetaGraph, TFC_ImportMetaGraph):
the GraphDef, the producer's op list, the SaverDef, and the collections the C builders hold
(the variable lists, the global step, summaries, queue runners). What only Python holds is
turned into collections here by TF's rules and handed to C with the export (Tensors and
Operations as node_list names, Variables as VariableDef bytes, Savers as SaverDef bytes, ints
as int64_list, floats as float_list, strings as bytes_list; a collection of anything else is
left out, as TF leaves it out with a warning). On import, C imports the graph and records the
variables, summaries and queue runners in the builders' state (so the Python bridges of those
collections see them); this module then recreates the other collections from the message
(node_list names as graph elements, VariableDefs as Variables, SaverDefs as Savers, other
values as they are) and returns TF's saver: Saver(saver_def=...) when the file has a saver_def,
a new Saver() when it has variables only, else None.

Text files (as_text=True) are written in protobuf's text format (the GraphDef in full, the
stripped op list left out); reading them back is not supported (import_meta_graph raises
IOError naming the file, as TF does for a file it cannot parse).
"""
import os

from tfc import _pywrap
from tfc.framework import errors
from tfc.framework import ops
from tfc.training import saver as _saver
from tfc.training import saver_pb

MetaGraphDef = saver_pb.MetaGraphDef

# Collections whose bytes_list entries are VariableDefs (TF's registered proto functions).
_VARIABLE_KEYS = ("variables", "trainable_variables", "local_variables", "model_variables",
                  "moving_average_variables", "metric_variables", "global_step")
# Collections the C builders hold and import themselves.
_C_KEYS = ("variables", "trainable_variables", "local_variables", "summaries", "queue_runners")
_NODE_LIST, _BYTES_LIST, _INT64_LIST, _FLOAT_LIST = 1, 2, 3, 4


def _saver_def_tuple(sd):
    if sd is None:
        return None
    return (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name, int(sd.max_to_keep),
            bool(sd.sharded), float(sd.keep_checkpoint_every_n_hours), int(sd.version))


def _variable_def(v):
    d = saver_pb.VariableDef(variable_name=v.name, initializer_name=v.initializer.name,
                             snapshot_name=v.value().name, trainable=v.trainable)
    if v.initializer.inputs and len(v.initializer.inputs) > 1:
        d.initial_value_name = v.initial_value.name
    return d.SerializeToString()


def _python_collection(key, values):
    """(key, kind, [values]) for a collection only Python holds, or None (left out)."""
    from tfc.ops import variables
    from tfc.queue_runner import QueueRunner
    first = values[0]
    try:
        if isinstance(first, (ops.Tensor, ops.Operation)):
            return (key, _NODE_LIST, [v.name for v in values])
        if isinstance(first, variables.Variable):
            return (key, _BYTES_LIST, [_variable_def(v) for v in values])
        if isinstance(first, _saver.Saver):
            return (key, _BYTES_LIST, [v.saver_def.SerializeToString() for v in values])
        if isinstance(first, QueueRunner):
            return None
        if isinstance(first, bool) or not isinstance(first, (int, float, str, bytes)):
            return None
        if isinstance(first, int):
            return (key, _INT64_LIST, [int(v) for v in values])
        if isinstance(first, float):
            return (key, _FLOAT_LIST, [float(v) for v in values])
        return (key, _BYTES_LIST, [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values])
    except (AttributeError, TypeError, ValueError):
        return None


def _text(mg):
    """The text format of a MetaGraphDef message, its GraphDef in full."""
    from tfc import graph_text
    out = []
    if mg.HasField("meta_info_def"):
        info = saver_pb.MetaInfoDef()
        info.CopyFrom(mg.meta_info_def)
        info.ClearField("stripped_op_list")
        out.append("meta_info_def {\n%s}\n" % "".join("  " + line + "\n" for line in str(info).splitlines()))
    gd = str(graph_text.GraphDef.FromString(mg.graph_def))
    out.append("graph_def {\n%s}\n" % "".join("  " + line + "\n" for line in gd.splitlines()))
    rest = MetaGraphDef()
    rest.CopyFrom(mg)
    rest.ClearField("meta_info_def")
    rest.ClearField("graph_def")
    out.append(str(rest))
    return "".join(out)


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """tf.train.export_meta_graph: the graph's MetaGraphDef (written to filename when given)."""
    if graph_def is not None or export_scope is not None or meta_info_def is not None:
        raise NotImplementedError("tfc: export_meta_graph's graph_def, meta_info_def and export_scope "
                                  "are not supported")
    graph = graph or ops.get_default_graph()
    graph._sync_c_ops()
    keys = None if collection_list is None else [str(k) for k in collection_list]
    extra = []
    for key in sorted(graph._collections):
        if key in _C_KEYS or (keys is not None and key not in keys):
            continue
        values = graph._collections[key]
        if not isinstance(values, list) or not values:
            continue
        c = _python_collection(key, values)
        if c is not None:
            extra.append(c)
    data = _pywrap.export_meta_graph(graph._c_graph, _saver_def_tuple(saver_def), keys,
                                     1 if clear_devices else 0, extra)
    mg = MetaGraphDef.FromString(data)
    if filename:
        from tfc import summary_ops
        summary_ops.write_graph(_text(mg) if as_text else data, os.path.dirname(filename),
                                os.path.basename(filename), as_text=as_text)
    return mg


def _read(filename):
    if not os.path.exists(filename):
        raise IOError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        return f.read()


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """tf.train.import_meta_graph: imports the MetaGraphDef into the default graph, recreates
    its collections and returns its Saver (or None)."""
    if isinstance(meta_graph_or_file, MetaGraphDef):
        data, filename = meta_graph_or_file.SerializeToString(), None
    else:
        filename = meta_graph_or_file
        data = _read(filename)
    try:
        mg = MetaGraphDef.FromString(data)
    except ValueError as e:
        raise IOError("Cannot parse file %s: %s." % (filename, e))
    graph = ops.get_default_graph()
    graph._check_not_finalized()
    try:
        _pywrap.import_meta_graph(graph._c_graph, data, import_scope or None,
                                  (1 if clear_devices else 0) | 2)  # TFC_META_GRAPH_UNIQUIFY_NAMES
    except errors.InvalidArgumentError as e:
        if filename is not None and "MetaGraphDef" in e.message:
            raise IOError("Cannot parse file %s: %s." % (filename, e.message))
        raise ValueError(e.message)
    finally:
        graph._sync_c_ops()
    scope = import_scope or ""
    keys = sorted(mg.collection_def.keys())
    if "trainable_variables" in keys:
        keys.remove("trainable_variables")
        keys.insert(0, "trainable_variables")
    for key in keys:
        if key in _C_KEYS:
            continue
        _restore_collection(graph, key, mg.collection_def[key], scope)
    if mg.HasField("saver_def"):
        sd = saver_pb.SaverDef()
        sd.CopyFrom(mg.saver_def)
        return _saver.Saver(saver_def=sd, name=scope or None)
    if graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) or graph.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS):
        return _saver.Saver()
    return None


def _element(graph, name, scope):
    return graph.as_graph_element(_saver._prepend_name_scope(name, scope))


def _variable(graph, data, scope):
    from tfc.ops import variables
    d = saver_pb.VariableDef.FromString(data)
    var = _element(graph, d.variable_name, scope).op
    init = _element(graph, d.initializer_name, scope)
    snap = _element(graph, d.snapshot_name, scope)
    return variables._wrap(graph, (var._c_op, init._c_op, (snap.op._c_op, snap.value_index)))


def _restore_collection(graph, key, cd, scope):
    kind = cd.WhichOneof("kind")
    if kind is None:
        return
    if kind == "node_list":
        for name in cd.node_list.value:
            graph.add_to_collection(key, _element(graph, name, scope))
    elif kind == "bytes_list":
        for data in cd.bytes_list.value:
            if key in _VARIABLE_KEYS:
                graph.add_to_collection(key, _variable(graph, data, scope))
            elif key == ops.GraphKeys.SAVERS:
                graph.add_to_collection(key, _saver.Saver.from_proto(saver_pb.SaverDef.FromString(data), scope))
            elif key in ("cond_context", "while_context"):
                return
            else:
                graph.add_to_collection(key, _prefixed_value(data, scope))
    elif kind == "int64_list":
        for v in cd.int64_list.value:
            graph.add_to_collection(key, int(v))
    elif kind == "float_list":
        for v in cd.float_list.value:
            graph.add_to_collection(key, v)


def _prefixed_value(value, scope):
    """TF passes plain bytes_list values through prepend_name_scope too: under an import
    scope they come back as the str "<scope>/<value>"."""
    if not scope:
        return value
    try:
        return _saver._prepend_name_scope(value.decode("utf-8"), scope)
    except UnicodeDecodeError:
        return value
