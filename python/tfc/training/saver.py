"""tf.train.Saver and the checkpoint functions (TF 1.x's training/saver.py and
checkpoint_management.py) over include/tfc/saver.h.

Design: the save/restore subgraph, the save and restore runs, the "checkpoint" state file and
the pruning of old checkpoints are the C saver's (TFC_NewSaver / TFC_NewSaverFromDef,
TFC_SaverSaveWithOptions, TFC_SaverRestore, TFC_GetCheckpointState, ...), held by a
_pywrap.Saver; this module turns TF's arguments into its calls (var_list as None, a list or a
dict; the global step as an int or a tensor; Saver(name=...) as the builder's scope name) and
raises TF's exceptions with TF's texts for what TF's Python checks itself. The SaverDef is a
message object (saver_pb.SaverDef) built from the C saver's names. Meta graph files are
meta_graph.py's (TFC_ExportMetaGraph), which Saver.save calls for "<prefix>.meta".

Where tfc differs: sharded=True is accepted and builds the unsharded graph (one data file;
the SaverDef says sharded: false); reshape, restore_sequentially and builder are accepted and
ignored; V1 checkpoints are not written (write_version is recorded only).
"""
import glob
import numbers
import os
import threading

from tfc import _pywrap
from tfc.framework import errors
from tfc.framework import ops
from tfc.training import saver_pb

SaverDef = saver_pb.SaverDef
CheckpointState = saver_pb.CheckpointState

def _as_str(s):
    return s.decode("utf-8") if isinstance(s, bytes) else str(s)


def _variable_tensor(v):
    """The reference tensor of a variable-like value (a Variable, its ref tensor), or None."""
    from tfc.ops import variables
    if isinstance(v, variables.Variable):
        return v._ref()
    if isinstance(v, ops.Tensor) and v.op.type in ("Variable", "VariableV2", "VarHandleOp", "AutoReloadVariable"):
        return v
    return None


def _saveables(var_list):
    """[(checkpoint name, ref tensor)] sorted by name, with TF's checks (op_list_to_dict and
    _ValidateAndSliceInputs)."""
    named = {}
    if isinstance(var_list, dict):
        for name, v in var_list.items():
            t = _variable_tensor(v)
            if t is None:
                if isinstance(v, (list, tuple)):
                    raise NotImplementedError("tfc: partitioned variables in a Saver's var_list are not supported")
                raise TypeError("names_to_saveables must be a dict mapping string names to Tensors/Variables. "
                                "Not a variable: %s" % (v,))
            named[name] = t
    else:
        if not isinstance(var_list, (list, tuple, set)):
            raise TypeError("Variables to save should be passed in a dict or a list: %s" % (var_list,))
        for v in sorted(var_list, key=lambda x: x.name):
            t = _variable_tensor(v)
            if t is None:
                raise TypeError("Variable to save is not a Variable: %s" % (v,))
            name = t.op.name
            if name in named:
                raise ValueError("At least two variables have the same name: %s" % name)
            named[name] = t
    seen = set()
    out = []
    for name, t in sorted(named.items(), key=lambda x: x[0]):
        if t.op in seen:
            raise ValueError("The same saveable will be restored with two names: %s" % name)
        seen.add(t.op)
        out.append((name, t))
    return out


def _split_tables(var_list):
    """var_list less the mutable tables' saveables (lookup_ops._TableSaveable, or the tables
    themselves), and those saveables: the C saver saves a table as its exported keys and values."""
    from tfc.ops import lookup_ops
    if isinstance(var_list, dict):
        rest, tables = {}, []
        for name, v in var_list.items():
            if isinstance(v, lookup_ops._MutableTable):
                v = lookup_ops._TableSaveable(v, name)
            if isinstance(v, lookup_ops._TableSaveable):
                if v.name != name:
                    v = lookup_ops._TableSaveable(v.table, name)
                tables.append(v)
            else:
                rest[name] = v
        return rest, tables
    if not isinstance(var_list, (list, tuple, set)):
        return var_list, []
    rest, tables = [], []
    for v in var_list:
        if isinstance(v, lookup_ops._MutableTable):
            v = lookup_ops._TableSaveable(v, v.name)
        (tables if isinstance(v, lookup_ops._TableSaveable) else rest).append(v)
    return rest, tables


def _prepend_name_scope(name, scope):
    """ops.prepend_name_scope: scope/name (also after a leading '^' or 'loc:@')."""
    if not scope:
        return name
    scope = scope[:-1] if scope.endswith("/") else scope
    for lead in ("^", "loc:@"):
        if name.startswith(lead):
            return lead + scope + "/" + name[len(lead):]
    return scope + "/" + name


def _strip_name_scope(name, scope):
    if scope and name.startswith(scope + "/"):
        return name[len(scope) + 1:]
    return name


def _c_session(sess):
    from tfc.client import session as _session
    if not isinstance(sess, _session.BaseSession):
        raise TypeError("'sess' must be a Session; %s" % (sess,))
    return sess._session


def _wrap_restore_error(err, what):
    msg = ("Restoring from checkpoint failed. This is most likely due to %s from the checkpoint. Please ensure "
           "that you have not altered the graph expected based on the checkpoint. Original error:\n\n%s"
           % (what, err.message))
    return type(err)(err.node_def, err.op, msg)


class Saver(object):
    """tf.compat.v1.train.Saver over a C saver (include/tfc/saver.h)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=SaverDef.V2,
                 pad_step_number=False, save_relative_paths=False, filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set "
                             "defer_build=False or var_list=None.")
        self._var_list = var_list
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self.saver_def = saver_def
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._c = None
        self._graph = None
        self._lock = threading.Lock()  # one C call at a time: a C saver is one thread's at a time
        self._save_relative_paths = save_relative_paths
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version

    # ---- building ----
    def build(self):
        self._build(self._filename, build_save=True, build_restore=True)

    def _build(self, checkpoint_path, build_save, build_restore):
        if self._is_built:
            return
        self._is_built = True
        g = ops.get_default_graph()
        self._graph = g
        if not self.saver_def:
            if self._var_list is None:
                self._var_list = (g.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) +
                                  g.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS))
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            var_list, tables = _split_tables(self._var_list)
            saveables = _saveables(var_list) if var_list or not tables else []
            from tfc.ops import variables
            sc = g._builder_scope("SaveV2", builder_name=self._name)
            max_to_keep = self._max_to_keep or 0
            self._c = variables.call_builder(g, _pywrap.new_saver, sc, [n for n, _ in saveables],
                                             [t._as_tf_output() for _, t in saveables], max_to_keep,
                                             [(t.name, t.table.resource_handle._as_tf_output(),
                                               t.keys._as_tf_output(), t.values._as_tf_output()) for t in tables])
            self._c.set_keep_hours(float(self._keep_checkpoint_every_n_hours))
            fname, save, restore, _, _ = self._c.saver_def()
            self.saver_def = SaverDef(filename_tensor_name=fname, save_tensor_name=save, restore_op_name=restore,
                                      max_to_keep=max_to_keep,
                                      keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                                      version=self._write_version)
        elif self._name:
            # name is the import scope of a saver_def read from a meta graph.
            for f in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(self.saver_def, f, _prepend_name_scope(getattr(self.saver_def, f), self._name))
        self._check_saver_def()

    def _check_saver_def(self):
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError("saver_def must be a saver_pb2.SaverDef: %s" % self.saver_def)
        if not self.saver_def.save_tensor_name:
            raise ValueError("saver_def must specify the save_tensor_name: %s" % str(self.saver_def))
        if not self.saver_def.restore_op_name:
            raise ValueError("saver_def must specify the restore_op_name: %s" % str(self.saver_def))

    def _c_saver(self, graph=None):
        """The C saver over graph's nodes (the saver's graph by default). Like TF, which runs
        the saver_def's names in the session's graph, a session of another graph gets a C saver
        made over that graph's nodes of those names (TypeError, TF's text, when absent); so
        does a saver_def given by the caller, on first use."""
        g = graph or self._graph or ops.get_default_graph()
        if g is (self._graph or g) and self._c is not None:
            return self._c
        others = self.__dict__.setdefault("_c_by_graph", {})
        key = id(g)
        if key in others and others[key][0] is g:
            return others[key][1]
        d = self.saver_def
        for name in (d.filename_tensor_name, d.save_tensor_name):
            try:
                g.as_graph_element(name)
            except (KeyError, ValueError) as e:
                raise TypeError("Cannot interpret feed_dict key as Tensor: " + (e.args[0] if e.args else str(e)))
        g._sync_c_ops()
        c = _pywrap.saver_from_def(g._c_graph, d.filename_tensor_name, d.save_tensor_name, d.restore_op_name,
                                   d.max_to_keep, float(d.keep_checkpoint_every_n_hours))
        if g is (self._graph or g) and self._c is None:
            self._graph = g
            self._c = c
        else:
            others[key] = (g, c)
        return c

    # ---- the SaverDef ----
    def as_saver_def(self):
        return self.saver_def

    def to_proto(self, export_scope=None):
        if export_scope is None:
            return self.saver_def
        if not (self.saver_def.filename_tensor_name.startswith(export_scope) and
                self.saver_def.save_tensor_name.startswith(export_scope) and
                self.saver_def.restore_op_name.startswith(export_scope)):
            return None
        d = SaverDef()
        d.CopyFrom(self.saver_def)
        for f in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(d, f, _strip_name_scope(getattr(d, f), export_scope))
        return d

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        return Saver(saver_def=saver_def, name=import_scope)

    # ---- the checkpoints it keeps ----
    @property
    def last_checkpoints(self):
        return [p for p, _ in self._last()]

    def _last(self):
        if self._is_empty:
            return []
        with self._lock:
            return self._c_saver().last_checkpoints()

    def set_last_checkpoints(self, last_checkpoints):
        assert isinstance(last_checkpoints, list)
        if not self._is_empty:
            with self._lock:
                self._c_saver().set_last_checkpoints([(_as_str(p), None) for p in last_checkpoints])

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        assert isinstance(last_checkpoints_with_time, list)
        if not self._is_empty:
            with self._lock:
                self._c_saver().set_last_checkpoints([(_as_str(p), float(t)) for p, t in last_checkpoints_with_time])

    def recover_last_checkpoints(self, checkpoint_paths):
        with_times = []
        for p in checkpoint_paths:
            mtimes = get_checkpoint_mtimes([p])
            if mtimes:
                with_times.append((p, mtimes[0]))
        self.set_last_checkpoints_with_time(with_times)

    # ---- save and restore ----
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _as_str(save_path)
        step = -1
        if global_step is not None:
            if not isinstance(global_step, numbers.Integral):
                global_step = int(sess.run(global_step))
            step = int(global_step)
            if self._pad_step_number:
                checkpoint_file = "%s-%s" % (save_path, "{:08d}".format(step))
            else:
                checkpoint_file = "%s-%d" % (save_path, step)
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError("'latest_filename' collides with 'save_path': '%s' and '%s'"
                                 % (latest_filename, save_path))
        c_session = _c_session(sess)
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            # TF's SaveV2 makes the checkpoint's own directory but not its parents.
            if save_path_parent and not os.path.isdir(os.path.dirname(save_path_parent) or "."):
                raise ValueError("Parent directory of {} doesn't exist, can't save.".format(save_path))
            flags = 0 if write_state else 1  # TFC_SAVER_NO_STATE
            if not self._save_relative_paths:
                flags |= 2                   # TFC_SAVER_PATHS_AS_GIVEN
            if self._pad_step_number:
                flags |= 4                   # TFC_SAVER_PAD_STEP_NUMBER
            try:
                with self._lock:
                    model_checkpoint_path = self._c_saver(sess.graph).save(
                        c_session, save_path, step, latest_filename, meta_graph_suffix, flags)
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if not os.path.isdir(save_path_parent or "."):
                    raise ValueError("Parent directory of {} doesn't exist, can't save.".format(save_path))
                raise exc
        if write_meta_graph:
            meta_graph_filename = "%s.%s" % (checkpoint_file, meta_graph_suffix.lstrip("."))
            with sess.graph.as_default():
                self.export_meta_graph(meta_graph_filename, strip_default_attrs=strip_default_attrs)
        return model_checkpoint_path

    def restore(self, sess, save_path):
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        checkpoint_prefix = _as_str(save_path)
        if not checkpoint_exists(checkpoint_prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: " + checkpoint_prefix)
        c_session = _c_session(sess)
        try:
            with self._lock:
                self._c_saver(sess.graph).restore(c_session, checkpoint_prefix)
        except errors.NotFoundError as err:
            raise _wrap_restore_error(err, "a Variable name or other graph key that is missing")
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(err, "a mismatch between the current graph and the graph")

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        from tfc.training import meta_graph
        return meta_graph.export_meta_graph(filename=filename, saver_def=self.saver_def,
                                            collection_list=collection_list, as_text=as_text,
                                            export_scope=export_scope, clear_devices=clear_devices,
                                            clear_extraneous_savers=clear_extraneous_savers,
                                            strip_default_attrs=strip_default_attrs)


# ---------------------------------------------------------------- checkpoint state files

def checkpoint_exists(checkpoint_prefix):
    """tf.train.checkpoint_exists: a V2 index file, or any file matching the prefix (V1)."""
    checkpoint_prefix = _as_str(checkpoint_prefix)
    return bool(glob.glob(checkpoint_prefix + ".index") or glob.glob(checkpoint_prefix))


def get_checkpoint_mtimes(checkpoint_prefixes):
    out = []
    for p in checkpoint_prefixes:
        for candidate in (p + ".index", p):
            files = glob.glob(candidate)
            if files:
                out.append(os.stat(files[0]).st_mtime)
                break
    return out


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """tf.train.get_checkpoint_state: the state file's CheckpointState (relative paths joined to
    checkpoint_dir), or None when there is none or it does not parse."""
    checkpoint_dir = _as_str(checkpoint_dir)
    try:
        st = _pywrap.get_checkpoint_state(checkpoint_dir, latest_filename)
    except errors.OpError:
        return None
    if st is None:
        return None
    model, paths = st
    if not model:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    return CheckpointState(model_checkpoint_path=model, all_model_checkpoint_paths=paths)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """tf.train.latest_checkpoint: the newest checkpoint's prefix, or None."""
    ckpt = get_checkpoint_state(checkpoint_dir, latest_filename)
    if ckpt and ckpt.model_checkpoint_path:
        p = ckpt.model_checkpoint_path
        if glob.glob(p + ".index") or glob.glob(p):
            return p
    return None


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """tf.train.update_checkpoint_state: rewrites save_dir's state file."""
    paths = [_as_str(p) for p in (all_model_checkpoint_paths or [])]
    _pywrap.update_checkpoint_state(_as_str(save_dir), _as_str(model_checkpoint_path), paths, latest_filename,
                                    True)


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=SaverDef.V2, meta_graph_suffix="meta"):
    for f in glob.glob(checkpoint_prefix + ".index") + glob.glob(checkpoint_prefix + ".data-?????-of-?????") + \
            glob.glob(checkpoint_prefix + "." + meta_graph_suffix):
        os.remove(f)


# ---------------------------------------------------------------- reading checkpoints

class CheckpointReader(object):
    """tf.train.NewCheckpointReader's object over TFC_NewCheckpointReader: the tensors of a
    V2 checkpoint by name, read without a graph."""

    def __init__(self, prefix):
        self._reader = _pywrap.checkpoint_reader(_as_str(prefix))
        self._names = self._reader.names()

    def has_tensor(self, tensor_str):
        return _as_str(tensor_str) in self._names

    def get_tensor(self, tensor_str):
        return self._reader.get(_as_str(tensor_str))

    def get_variable_to_shape_map(self):
        return {n: self._reader.info(n)[1] for n in self._names}

    def get_variable_to_dtype_map(self):
        from tfc.framework import dtypes
        return {n: dtypes.as_dtype(self._reader.info(n)[0]) for n in self._names}


def NewCheckpointReader(filepattern):  # noqa: N802 (TF's name)
    return CheckpointReader(filepattern)


def _checkpoint_filename(ckpt_dir_or_file):
    ckpt_dir_or_file = _as_str(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """tf.train.load_checkpoint: a CheckpointReader of the file, or of a directory's newest."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s" % ckpt_dir_or_file)
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """tf.train.load_variable: one tensor's value (a trailing ":0" ignored)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """tf.train.list_variables: [(name, shape)] sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(n, shapes[n]) for n in sorted(shapes)]
