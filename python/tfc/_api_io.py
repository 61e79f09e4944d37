"""The TF 1.x names of input pipelines, records, summaries, servers and app, added to the API
namespace by _api.py (export(namespace)).

tf.train, tf.io, tf.summary, tf.queue, tf.python_io, tf.app and tf.flags are module objects;
export() adds to one that is already there (tf.train holds other names too) or makes it.
"""
import types as _types

from tfc import platform_app as _app
from tfc import coordinator as _coordinator
from tfc import data_flow_ops as _dfo
from tfc import example_pb as _pb
from tfc import input_pipeline as _input
from tfc import input_producers as _producers
from tfc import tf_record as _python_io
from tfc import queue_runner as _qr
from tfc import server_lib as _server_lib
from tfc import summary_ops as _summary


def _module(ns, name):
    m = ns.get(name)
    if not isinstance(m, _types.ModuleType):
        m = _types.ModuleType("tfc." + name, "tf." + name)
        ns[name] = m
    return m


def _set(m, names, src):
    for n in names:
        if isinstance(m, dict):
            m.setdefault(n, getattr(src, n))
        elif not hasattr(m, n):
            setattr(m, n, getattr(src, n))


def export(ns):
    """Adds the names to the namespace dict ns (the tf module's globals)."""
    queue_names = ("QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue")
    reader_names = ("ReaderBase", "TFRecordReader", "WholeFileReader", "TextLineReader")
    parse_names = ("FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "parse_single_example",
                   "parse_example", "decode_raw")
    example_names = ("Example", "Features", "Feature", "BytesList", "FloatList", "Int64List",
                     "SequenceExample", "FeatureList", "FeatureLists")
    proto_names = ("Summary", "Event", "SessionLog", "HistogramProto", "LogMessage", "SummaryMetadata")

    _set(ns, queue_names + reader_names + parse_names + ("SparseTensor", "SparseTensorValue"), _dfo)
    _set(ns, proto_names, _pb)
    # TF 0.x names TF 1.x programs still use (removed in 1.0; tfc keeps them as aliases).
    ns.setdefault("scalar_summary", _summary.scalar)
    ns.setdefault("histogram_summary", _summary.histogram)
    ns.setdefault("merge_summary", _summary.merge)
    ns.setdefault("merge_all_summaries", _summary.merge_all)

    queue = _module(ns, "queue")
    _set(queue, queue_names, _dfo)

    io = _module(ns, "io")
    _set(io, parse_names + ("PaddingFIFOQueue", "RandomShuffleQueue", "QueueBase", "TFRecordReader"), _dfo)
    _set(io, ("TFRecordWriter", "tf_record_iterator", "TFRecordOptions", "TFRecordCompressionType"), _python_io)
    io.write_graph = _summary.write_graph

    python_io = _module(ns, "python_io")
    _set(python_io, ("TFRecordWriter", "tf_record_iterator", "TFRecordOptions", "TFRecordCompressionType"),
         _python_io)

    train = _module(ns, "train")
    _set(train, example_names, _pb)
    _set(train, ("string_input_producer", "batch", "shuffle_batch"), _input)
    _set(train, ("input_producer", "range_input_producer", "slice_input_producer", "limit_epochs", "batch_join",
                 "shuffle_batch_join"), _producers)
    _set(train, ("QueueRunner", "add_queue_runner", "start_queue_runners"), _qr)
    _set(train, ("Coordinator", "LooperThread"), _coordinator)
    _set(train, ("Server", "ClusterSpec", "ClusterDef", "JobDef"), _server_lib)
    train.SummaryWriter = _summary.FileWriter
    train.write_graph = _summary.write_graph
    qr_module = _types.ModuleType("tfc.train.queue_runner", "tf.train.queue_runner")
    _set(qr_module, ("QueueRunner", "add_queue_runner", "start_queue_runners"), _qr)
    train.queue_runner = qr_module

    summary = _module(ns, "summary")
    _set(summary, ("scalar", "histogram", "image", "merge", "merge_all", "FileWriter", "FileWriterCache",
                   "tensor_summary", "text", "audio"), _summary)
    _set(summary, ("Summary", "Event", "SessionLog", "SummaryMetadata"), _pb)

    app = _module(ns, "app")
    app.run = _app.run
    app.flags = _app.flags
    ns.setdefault("flags", _app.flags)
