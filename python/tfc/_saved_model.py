"""tf.saved_model's TF 1.x names: loader.load (tf.saved_model.load in 1.x), Builder /
SavedModelBuilder, simple_save, build_tensor_info, predict_signature_def, contains_saved_model,
and the tag and signature constants.

Design: loading is TF's Python loader over tfc's own pieces: saved_model.pb is parsed into the
SavedModel message (training/saver_pb.py; a saved_model.pbtxt is first made binary by the C
reader, _pywrap.read_saved_model), the MetaGraphDef of the requested tag-set is
imported into the session's graph by train.import_meta_graph (the C import of
include/tfc/meta_graph.h), its variables restored by the Saver made from its SaverDef (from
"<dir>/variables/variables", when the index exists), and the init op (the
"__saved_model_init_op" signature's, else the saved_model_main_op or legacy_init_op collection's)
run with the asset paths fed; the MetaGraphDef message is returned. (TF_LoadSessionFromSavedModel
makes a session of its own; Python's loader works in the caller's.) Writing is the C builder
(TFC_NewSavedModelBuilder, include/tfc/saved_model.h) through _pywrap.saved_model_builder/
_add/_save: MetaGraphDefs with their tags, signatures, SaverDefs, main ops and assets, the
variables saved once through the caller's saver or a new one over the global variables. Errors
are TF's classes and texts where TF's Python raises them.
"""
import os
import types as _types

from tfc import _pywrap
from tfc import example_pb as _pb
from tfc.training import meta_graph as _meta_graph
from tfc.training import saver as _saver
from tfc.training import saver_pb

SERVING, TRAINING, GPU, TPU, EVAL = "serve", "train", "gpu", "tpu", "eval"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
PREDICT_INPUTS, PREDICT_OUTPUTS = "inputs", "outputs"
SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT = "saved_model.pb", "saved_model.pbtxt"
VARIABLES_DIRECTORY, VARIABLES_FILENAME, ASSETS_DIRECTORY = "variables", "variables", "assets"
MAIN_OP_KEY, LEGACY_INIT_OP_KEY = "saved_model_main_op", "legacy_init_op"
INIT_OP_SIGNATURE_KEY, TRAIN_OP_SIGNATURE_KEY = "__saved_model_init_op", "__saved_model_train_op"

SignatureDef = saver_pb.SignatureDef
TensorInfo = saver_pb.TensorInfo


def _parse(export_dir):
    export_dir = os.fsdecode(export_dir)
    pb = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    if not os.path.exists(pb) and not os.path.exists(os.path.join(export_dir, SAVED_MODEL_FILENAME_PBTXT)):
        raise IOError("SavedModel file does not exist at: %s%s{%s|%s}" % (export_dir, os.path.sep,
                                                                        SAVED_MODEL_FILENAME_PBTXT,
                                                                        SAVED_MODEL_FILENAME_PB))
    if os.path.exists(pb):
        with open(pb, "rb") as f:
            data = f.read()
    else:  # the text form, read by the C reader (TFC_ReadSavedModel) into the binary one
        data = _pywrap.read_saved_model(export_dir)
    try:
        return saver_pb.SavedModel.FromString(data)
    except ValueError as e:
        raise IOError("Cannot parse file %s: %s." % (pb, e))


def contains_saved_model(export_dir):
    d = os.fsdecode(export_dir)
    return any(os.path.exists(os.path.join(d, f)) for f in (SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT))


maybe_saved_model_directory = contains_saved_model


def _init_op_name(mg):
    if INIT_OP_SIGNATURE_KEY in mg.signature_def:
        sig = mg.signature_def[INIT_OP_SIGNATURE_KEY]
        if INIT_OP_SIGNATURE_KEY in sig.outputs:
            return sig.outputs[INIT_OP_SIGNATURE_KEY].name
    for key in (MAIN_OP_KEY, LEGACY_INIT_OP_KEY):
        if key in mg.collection_def:
            values = list(mg.collection_def[key].node_list.value)
            if len(values) != 1:
                raise RuntimeError("Expected exactly one SavedModel init op. Found: %s" % values)
            return values[0]
    return None


class _AnyList(_pb._Message):
    """CollectionDef.AnyList: google.protobuf.Any messages."""
    _FIELDS = (("value", 1, "rep_bytes"),)


class _Any(_pb._Message):
    _FIELDS = (("type_url", 1, "string"), ("value", 2, "bytes"))


def _asset_feeds(mg, export_dir, scope):
    """The asset paths to feed: the MetaGraphDef's asset_file_def, else the AssetFileDefs of
    collection "saved_model_assets" (TF 1.x's builder)."""
    assets = list(mg.asset_file_def)
    if not assets and "saved_model_assets" in mg.collection_def:
        for any_bytes in _AnyList.FromString(mg.collection_def["saved_model_assets"].any_list).value:
            a = _Any.FromString(any_bytes)
            if a.type_url.endswith("/tensorflow.AssetFileDef"):
                assets.append(saver_pb.AssetFileDef.FromString(a.value))
    return {_saver._prepend_name_scope(a.tensor_info.name, scope):
            os.path.join(os.fsdecode(export_dir), ASSETS_DIRECTORY, a.filename) for a in assets}


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """tf.compat.v1.saved_model.loader.load: imports the MetaGraphDef whose tag-set equals tags
    into sess.graph, restores its variables and runs its init op; returns the MetaGraphDef."""
    sm = _parse(export_dir)
    want = set(tags)
    mg = next((m for m in sm.meta_graphs if set(m.meta_info_def.tags) == want), None)
    if mg is None:
        raise RuntimeError(
            "MetaGraphDef associated with tags " + str(tags).strip("[]") + " could not be found in SavedModel, "
            "with available tags '%s'. To inspect available tag-sets in the SavedModel, please use the "
            "SavedModel CLI: `saved_model_cli`." % [set(m.meta_info_def.tags) for m in sm.meta_graphs])
    with sess.graph.as_default():
        saver = _meta_graph.import_meta_graph(mg, import_scope=import_scope, **saver_kwargs)
        prefix = os.path.join(os.fsdecode(export_dir), VARIABLES_DIRECTORY, VARIABLES_FILENAME)
        if saver is not None and os.path.exists(prefix + ".index"):
            saver.restore(sess, prefix)
        init = _init_op_name(mg)
        if init is not None:
            sess.run(fetches=[_saver._prepend_name_scope(init, import_scope or "")],
                     feed_dict=_asset_feeds(mg, export_dir, import_scope or ""))
    return mg


def build_tensor_info(tensor):
    """tf.compat.v1.saved_model.build_tensor_info: a Tensor's TensorInfo (name, dtype, shape)."""
    info = TensorInfo()
    info.name = tensor.name
    info.dtype = tensor.dtype.as_datatype_enum
    info.tensor_shape.CopyFrom(tensor.get_shape().as_proto())
    return info


def build_signature_def(inputs=None, outputs=None, method_name=None):
    sig = SignatureDef()
    for k, v in (inputs or {}).items():
        sig.inputs[k].CopyFrom(v)
    for k, v in (outputs or {}).items():
        sig.outputs[k].CopyFrom(v)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    if inputs is None or not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(v) for k, v in inputs.items()},
                               {k: build_tensor_info(v) for k, v in outputs.items()}, PREDICT_METHOD_NAME)


def _python_collections(graph):
    """The collections only Python holds, as export_meta_graph passes them (TF's builder exports
    every graph collection: train_op, asset_filepaths, table_initializer, ...)."""
    extra = []
    for key in sorted(k for k in graph._collections if isinstance(k, str)):
        values = graph._collections[key]
        if key in _meta_graph._C_KEYS or not isinstance(values, list) or not values:
            continue
        c = _meta_graph._python_collection(key, values)
        if c is not None:
            extra.append(c)
    return extra


class SavedModelBuilder(object):
    """tf.compat.v1.saved_model.Builder over tfc's C builder (TFC_NewSavedModelBuilder):
    add_meta_graph_and_variables saves the variables and adds the first MetaGraphDef,
    add_meta_graph adds more sharing that checkpoint, save() writes saved_model.pb (or .pbtxt)
    and returns its path. Assets (assets_collection: string Const tensors naming files) are
    copied to assets/ and listed in the "saved_model_assets" collection; as with TF's builder,
    which keeps that collection in the graph, a later MetaGraphDef of the same graph lists the
    earlier calls' assets too."""

    def __init__(self, export_dir):
        self._export_dir = os.fsdecode(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory %s already exists, and isn't empty. Please choose a different export "
                    "directory, or delete all the contents of the specified directory." % self._export_dir)
        self._builder = _pywrap.saved_model_builder(self._export_dir)
        self._has_saved_variables = False
        self._assets = {}  # id(graph) -> asset tensor names added so far (TF's graph collection)

    def _add(self, sess, graph, tags, signature_def_map, assets_collection, legacy_init_op, main_op, saver):
        sigs = []
        for key, sig in sorted((signature_def_map or {}).items()):
            if not isinstance(sig, SignatureDef):
                raise TypeError("signature_def_map should be a dict of SignatureDef protos; %r is %s"
                                % (key, type(sig).__name__))
            sigs.append((key, sig.method_name or None, sorted((k, v.name) for k, v in sig.inputs.items()),
                         sorted((k, v.name) for k, v in sig.outputs.items())))
        if main_op is not None and legacy_init_op is not None:
            raise ValueError("Both main_op and legacy_init_op are specified.")
        init = main_op if main_op is not None else legacy_init_op
        init_name = None
        if init is not None:
            init_name = getattr(init, "name", None)
            if not isinstance(init_name, str) or not hasattr(init, "node_def"):
                raise TypeError("Expected %s to be an Operation but got type %s instead." % (init, type(init)))
        assets = self._assets.setdefault(id(graph), [])
        for t in assets_collection or []:
            name = getattr(t, "name", None)
            if not isinstance(name, str) or not hasattr(t, "op"):
                raise TypeError("Asset path tensor %s must be a Tensor." % (t,))
            if name not in assets:
                assets.append(name)
        graph._sync_c_ops()
        c_saver = saver._c_saver(graph) if saver is not None else None
        _pywrap.saved_model_add(self._builder, _saver._c_session(sess) if sess is not None else None,
                                graph._c_graph, c_saver, [str(t) for t in tags], sigs, init_name, list(assets),
                                _python_collections(graph))
        graph._sync_c_ops()  # the default saver's nodes

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        self._add(sess, sess.graph, tags, signature_def_map, assets_collection, legacy_init_op, main_op, saver)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None):
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        from tfc.framework import ops as _ops
        self._add(None, _ops.get_default_graph(), tags, signature_def_map, assets_collection, legacy_init_op,
                  main_op, saver)

    def save(self, as_text=False):
        _pywrap.saved_model_save(self._builder, bool(as_text))
        name = SAVED_MODEL_FILENAME_PBTXT if as_text else SAVED_MODEL_FILENAME_PB
        return os.path.join(self._export_dir, name).encode()


Builder = SavedModelBuilder


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    b = SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(session, tags=[SERVING],
                                   signature_def_map={DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                                                      predict_signature_def(inputs, outputs)},
                                   main_op=legacy_init_op, clear_devices=True)
    b.save()


def export(ns):
    """Adds tf.saved_model (with its loader, builder, tag_constants, signature_constants, utils
    and signature_def_utils submodules) to the API namespace ns."""
    def module(name, **names):
        m = _types.ModuleType("tfc." + name, "tf." + name)
        for k, v in names.items():
            setattr(m, k, v)
        return m
    tag_constants = module("saved_model.tag_constants", SERVING=SERVING, TRAINING=TRAINING, GPU=GPU, TPU=TPU)
    signature_constants = module(
        "saved_model.signature_constants", DEFAULT_SERVING_SIGNATURE_DEF_KEY=DEFAULT_SERVING_SIGNATURE_DEF_KEY,
        PREDICT_METHOD_NAME=PREDICT_METHOD_NAME, CLASSIFY_METHOD_NAME=CLASSIFY_METHOD_NAME,
        REGRESS_METHOD_NAME=REGRESS_METHOD_NAME, PREDICT_INPUTS=PREDICT_INPUTS, PREDICT_OUTPUTS=PREDICT_OUTPUTS)
    utils = module("saved_model.utils", build_tensor_info=build_tensor_info)
    sdu = module("saved_model.signature_def_utils", build_signature_def=build_signature_def,
                 predict_signature_def=predict_signature_def)
    loader = module("saved_model.loader", load=load, maybe_saved_model_directory=maybe_saved_model_directory)
    builder = module("saved_model.builder", SavedModelBuilder=SavedModelBuilder)
    sm = module("saved_model", load=load, loader=loader, builder=builder, Builder=Builder,
                simple_save=simple_save, build_tensor_info=build_tensor_info,
                build_signature_def=build_signature_def, predict_signature_def=predict_signature_def,
                contains_saved_model=contains_saved_model,
                maybe_saved_model_directory=maybe_saved_model_directory, tag_constants=tag_constants,
                signature_constants=signature_constants, utils=utils, signature_def_utils=sdu,
                SERVING=SERVING, TRAINING=TRAINING, GPU=GPU, TPU=TPU,
                DEFAULT_SERVING_SIGNATURE_DEF_KEY=DEFAULT_SERVING_SIGNATURE_DEF_KEY,
                PREDICT_METHOD_NAME=PREDICT_METHOD_NAME, SignatureDef=SignatureDef, TensorInfo=TensorInfo)
    ns["saved_model"] = sm
