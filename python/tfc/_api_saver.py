"""The TF 1.x names of savers, checkpoints and meta graph files, added to the API namespace by
_api.py (export(namespace)): tf.train.Saver, latest_checkpoint, get_checkpoint_state,
checkpoint_exists, update_checkpoint_state, export_meta_graph, import_meta_graph, the
checkpoint readers, and SaverDef / CheckpointState / MetaGraphDef."""
import types as _types

from tfc.training import meta_graph as _meta_graph
from tfc.training import saver as _saver
from tfc.training import saver_pb as _saver_pb


def _module(ns, name):
    m = ns.get(name)
    if not isinstance(m, _types.ModuleType):
        m = _types.ModuleType("tfc." + name, "tf." + name)
        ns[name] = m
    return m


def export(ns):
    train = _module(ns, "train")
    for n in ("Saver", "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists", "get_checkpoint_mtimes",
              "update_checkpoint_state", "remove_checkpoint", "SaverDef", "CheckpointState", "NewCheckpointReader",
              "load_checkpoint", "load_variable", "list_variables"):
        setattr(train, n, getattr(_saver, n))
    for n in ("export_meta_graph", "import_meta_graph"):
        setattr(train, n, getattr(_meta_graph, n))
    train.MetaGraphDef = _saver_pb.MetaGraphDef
    ns.setdefault("MetaGraphDef", _saver_pb.MetaGraphDef)
    ns.setdefault("SaverDef", _saver_pb.SaverDef)
