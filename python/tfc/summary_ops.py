"""tf.summary (scalar, histogram, tensor_summary, text, audio, image, merge, merge_all,
FileWriter, FileWriterCache) and tf.train.write_graph, over include/tfc/summary.h.

Design: the summary ops are the builders' (TFC_ScalarSummary, TFC_HistogramSummary,
TFC_TensorSummary for tensor_summary and text, TFC_AudioSummary, TFC_MergeSummary through
_c_builders: TF 1.15's names, tags cleaned as TF cleans them, the SUMMARIES collection); merge_all merges the Python SUMMARIES collection (the builders' entries
plus what a program added itself). FileWriter is TFC_EventWriter: the file
events.out.tfevents.<seconds>.<host><suffix> in logdir, TFRecord-framed Events that
TensorBoard reads. Events are written by the C writer as they come (its own buffer, flushed by
flush() and close()), so max_queue and flush_secs are accepted and have no other effect.
After close() the writer drops what it is given, as TF's does; reopen() starts a new file.

Errors: bad names and inputs raise the builders' errors as ValueError; an unparseable summary
is InvalidArgumentError; file errors are the writer's (PermissionDeniedError, NotFoundError,
FailedPreconditionError naming the path). tf.summary.image raises NotImplementedError: the
runtime has no ImageSummary kernel.
"""
import os
import threading

from tfc import _c_builders
from tfc import _pywrap
from tfc import example_pb
from tfc.framework import dtypes
from tfc.framework import ops


def _add_collections(graph, t, collections):
    """TF's collections argument: t is also added to each of them. The builder has put t in
    SUMMARIES, which the builders hold and which cannot drop entries: it stays there."""
    for c in collections or ():
        if c != ops.GraphKeys.SUMMARIES:
            graph.add_to_collection(c, t)


def _value_summary(fn, name, values, collections, family):
    g = ops.get_default_graph()
    t = ops.convert_to_tensor(values)
    out = _c_builders.output(g, _c_builders.call(fn, g, name, t._as_tf_output(), family, op_type="ScalarSummary"))
    _add_collections(g, out, collections)
    return out


def scalar(name, tensor, collections=None, family=None):
    return _value_summary(_pywrap.b_scalar_summary, name, tensor, collections, family)


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None, family=None,
                   display_name=None):
    """A TensorSummaryV2 of tensor (TFC_TensorSummary) with the serialized SummaryMetadata."""
    if summary_metadata is None:
        summary_metadata = example_pb.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    g = ops.get_default_graph()
    t = ops.convert_to_tensor(tensor)
    out = _c_builders.output(g, _c_builders.call(_pywrap.b_tensor_summary, g, name, t._as_tf_output(),
                                                 summary_metadata.SerializeToString(), family,
                                                 op_type="TensorSummaryV2"))
    _add_collections(g, out, collections)
    return out


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """WAV clips of a float [batch, frames(, channels)] tensor (TFC_AudioSummary). The sample
    rate is a number here (TF also takes a tensor)."""
    if isinstance(sample_rate, ops.Tensor):
        raise TypeError("tf.summary.audio: tfc's builder takes a Python number for sample_rate")
    g = ops.get_default_graph()
    t = ops.convert_to_tensor(tensor, dtype=dtypes.float32)
    out = _c_builders.output(g, _c_builders.call(_pywrap.b_audio_summary, g, name, t._as_tf_output(),
                                                 float(sample_rate), int(max_outputs), family,
                                                 op_type="AudioSummaryV2"))
    _add_collections(g, out, collections)
    return out


def text(name, tensor, collections=None):
    """A tensor summary of a string tensor for TensorBoard's text plugin."""
    t = ops.convert_to_tensor(tensor)
    if t.dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s" % (t.name, t.dtype))
    metadata = example_pb.SummaryMetadata(plugin_data=example_pb.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=t, summary_metadata=metadata, collections=collections)


def histogram(name, values, collections=None, family=None):
    return _value_summary(_pywrap.b_histogram_summary, name, values, collections, family)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    raise NotImplementedError("tf.summary.image: ImageSummary is not in tfc's op table")


def merge(inputs, collections=None, name=None):
    g = ops.get_default_graph()
    ts = [ops.convert_to_tensor(i) for i in inputs]
    out = _c_builders.output(g, _c_builders.call(_pywrap.b_merge_summary, g, [t._as_tf_output() for t in ts], name,
                                                 op_type="MergeSummary"))
    if collections:
        for c in collections:
            g.add_to_collection(c, out)
    return out


def merge_all(key=ops.GraphKeys.SUMMARIES, scope=None, name=None):
    g = ops.get_default_graph()
    summary_ops = g.get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def _serialized(proto_or_bytes):
    if isinstance(proto_or_bytes, (bytes, bytearray)):
        return bytes(proto_or_bytes)
    if hasattr(proto_or_bytes, "SerializeToString"):
        return proto_or_bytes.SerializeToString()
    raise TypeError("Expected a serialized proto or a proto object, got %s" % type(proto_or_bytes).__name__)


class FileWriter(object):
    """tf.summary.FileWriter(logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
    filename_suffix=None, session=None)."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) is not supported by tfc")
        self._logdir = str(logdir)
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()  # close() frees the C writer: never under a running add
        self._writer = _pywrap.event_writer(self._logdir, self._suffix)
        self._closed = False
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
            # As TF 1.x, also a MetaGraphDef holding the graph (its field 2, graph_def).
            gd = _serialized(graph.as_graph_def() if hasattr(graph, "as_graph_def") else (graph or graph_def))
            self.add_event(example_pb.Event(meta_graph_def=example_pb._wire.field_bytes(2, gd), wall_time=_now()))

    def get_logdir(self):
        return self._logdir

    @property
    def _path(self):
        return _pywrap.event_writer_path(self._writer)

    def add_summary(self, summary, global_step=None):
        data = _serialized(summary)
        with self._lock:
            if not self._closed:
                _pywrap.event_writer_add_summary(self._writer, data, int(global_step or 0))

    def add_graph(self, graph, global_step=None, graph_def=None):
        if self._closed:
            return
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is not None and hasattr(graph, "_c_graph"):
            with self._lock:
                if not self._closed:
                    _pywrap.event_writer_add_graph(self._writer, graph._c_graph)
        else:
            gd = graph_def if graph_def is not None else graph
            if gd is None:
                return
            ev = example_pb.Event(graph_def=_serialized(gd), wall_time=_now())
            if global_step is not None:
                ev.step = int(global_step)
            self.add_event(ev)

    def add_event(self, event):
        data = _serialized(event)
        with self._lock:
            if not self._closed:
                _pywrap.event_writer_add_event(self._writer, data)

    def add_session_log(self, session_log, global_step=None):
        with self._lock:
            if not self._closed:
                _pywrap.event_writer_add_session_log(self._writer, int(session_log.status),
                                                     session_log.checkpoint_path or None, int(global_step or 0))

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        if self._closed:
            return
        trm = example_pb.TaggedRunMetadata(tag=tag, run_metadata=_serialized(run_metadata))
        ev = example_pb.Event(tagged_run_metadata=trm, wall_time=_now())
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def flush(self):
        with self._lock:
            if not self._closed:
                _pywrap.event_writer_flush(self._writer)

    def close(self):
        with self._lock:
            if self._closed:
                return
            try:
                _pywrap.event_writer_flush(self._writer)
            finally:
                _pywrap.handle_close(self._writer)
                self._closed = True

    def reopen(self):
        with self._lock:
            if self._closed:
                self._writer = _pywrap.event_writer(self._logdir, self._suffix)
                self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *unused):
        self.close()


def _now():
    import time
    return time.time()


class FileWriterCache(object):
    """tf.summary.FileWriterCache: one FileWriter per logdir."""
    _cache = {}

    @staticmethod
    def get(logdir):
        w = FileWriterCache._cache.get(logdir)
        if w is None:
            w = FileWriterCache._cache[logdir] = FileWriter(logdir)
        return w

    @staticmethod
    def clear():
        for w in FileWriterCache._cache.values():
            w.close()
        FileWriterCache._cache.clear()


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """tf.train.write_graph: the GraphDef (or another message: a MetaGraphDef) in logdir/name
    (the directory made as mkdir -p), binary or in protobuf's text format, written to a
    temporary file renamed into place; returns the path."""
    from tfc.training import saver_pb
    if isinstance(graph_or_graph_def, str):
        text, data = graph_or_graph_def, None
    elif hasattr(graph_or_graph_def, "as_graph_def"):
        text, data = None, graph_or_graph_def.as_graph_def()
    else:
        text, data = None, graph_or_graph_def
    if text is None and as_text and isinstance(data, saver_pb.MetaGraphDef):
        from tfc.training import meta_graph
        text = meta_graph._text(data)
    if text is None:
        data = _serialized(data)
        if as_text:
            from tfc import graph_text
            text = graph_text.graph_def_to_text(data)
    os.makedirs(logdir, exist_ok=True) if logdir else None
    path = os.path.join(logdir, name)
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w" if text is not None else "wb") as f:
            f.write(text if text is not None else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path
