"""Queues, readers and Example parsing with TF 1.x's Python API: tf.FIFOQueue,
tf.RandomShuffleQueue, tf.PaddingFIFOQueue, tf.TFRecordReader, tf.WholeFileReader,
tf.TextLineReader, tf.parse_single_example, tf.parse_example, tf.FixedLenFeature,
tf.VarLenFeature, tf.decode_raw.

Design: a queue object holds the queue op's resource output and builds the queue ops with
TF 1.15's names ("<queue>_enqueue", "<queue>_EnqueueMany", "<queue>_Dequeue",
"<queue>_DequeueMany", "<queue>_DequeueUpTo", "<queue>_Close", "<queue>_Size") through
ops.gen.apply; these are plain single ops with no graph logic, so there is no C builder for
them. Where include/tfc/input.h has a builder (TFRecordReader.read, parse_single_example of
dense features, decode_raw) the functions call it through _c_builders, so the nodes are the
builders' own. Queue ops ignore control dependencies as TF builds them under init_scope.

Errors: TF's ValueError/TypeError texts for bad element structures (dictionary enqueues,
names), shapes checked as TF checks them at graph-building time; ops the runtime lacks
(PaddingFIFOQueueV2, WholeFileReaderV2, TextLineReaderV2) raise NotImplementedError naming
the op when built.
"""
import collections
import re

import numpy as np

from tfc import _c_builders
from tfc import _pywrap
from tfc.framework import dtypes as _dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import gen


def _as_type_list(dts):
    if isinstance(dts, (list, tuple)):
        return [_dtypes.as_dtype(d) for d in dts]
    return [_dtypes.as_dtype(dts)]


def _as_shape_list(shapes, dts, unknown_dim_allowed=False, unknown_rank_allowed=False):
    if shapes is None:
        if unknown_dim_allowed:
            raise ValueError("When providing partial shapes, a list of shapes must be provided.")
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, got %s instead." %
                        type(shapes).__name__)
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % shapes)
    if not unknown_rank_allowed and any(s.dims is None for s in shapes):
        raise ValueError("All shapes must have a defined rank: %s" % shapes)
    return shapes


def _as_name_list(names, dts):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dts):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _make_queue(op_type, name, **attrs):
    g = ops.get_default_graph()
    with g.control_dependencies(None):
        return gen.apply(op_type, name, **attrs)


def _first_dim(t):
    """The size of t's first dimension (None when unknown); ValueError for a scalar."""
    shape = t.get_shape()
    if shape.dims is None:
        return None
    if len(shape.dims) < 1:
        raise ValueError("Shape %s must have rank at least 1" % shape)
    return tensor_shape.dimension_value(shape.dims[0])


class QueueBase(object):
    """A queue over its resource handle (tf.QueueBase)."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @classmethod
    def _from_op(cls, op):
        """A QueueBase over an existing queue op (a builder's queue)."""
        q = cls.__new__(cls)
        types = op.get_attr("component_types")
        try:
            shapes = op.get_attr("shapes")
        except ValueError:
            shapes = []
        # the attr's dims, -1 where unknown (a padding queue's)
        shapes = [s if s is None or isinstance(s, tensor_shape.TensorShape)
                  else [None if d is not None and d < 0 else d for d in s] for s in shapes]
        QueueBase.__init__(q, [_dtypes.as_dtype(t) for t in types], shapes if shapes else None, None, op.outputs[0])
        return q

    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 "(%s), Queue: (%s)" % (sorted(vals.keys()), sorted(self._names)))
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [ops.convert_to_tensor(v, dtype=dt, name="component_%d" % i)
                for i, (v, dt) in enumerate(zip(vals, self._dtypes))]

    def enqueue(self, vals, name=None):
        with ops.name_scope(name, "%s_enqueue" % self._name) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.get_shape().assert_is_compatible_with(shape)
            return gen.apply("QueueEnqueueV2", scope, handle=self._queue_ref, components=vals)

    def enqueue_many(self, vals, name=None):
        with ops.name_scope(name, "%s_EnqueueMany" % self._name) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = tensor_shape.Dimension(_first_dim(vals[0]))
            for val, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(tensor_shape.Dimension(_first_dim(val)))
                if val.get_shape().dims is not None:
                    tensor_shape.TensorShape(val.get_shape().dims[1:]).assert_is_compatible_with(shape)
            return gen.apply("QueueEnqueueManyV2", scope, handle=self._queue_ref, components=vals)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _outputs(self, ret):
        return list(ret) if isinstance(ret, (list, tuple)) else [ret]

    def dequeue(self, name=None):
        if name is None:
            name = "%s_Dequeue" % self._name
        ret = self._outputs(gen.apply("QueueDequeueV2", name, handle=self._queue_ref,
                                      component_types=self._dtypes))
        for output, shape in zip(ret, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(ret)

    def dequeue_many(self, n, name=None):
        if name is None:
            name = "%s_DequeueMany" % self._name
        ret = self._outputs(gen.apply("QueueDequeueManyV2", name, handle=self._queue_ref, n=n,
                                      component_types=self._dtypes))
        batch = n if isinstance(n, (int, np.integer)) else None
        for output, shape in zip(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([batch]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def dequeue_up_to(self, n, name=None):
        if name is None:
            name = "%s_DequeueUpTo" % self._name
        ret = self._outputs(gen.apply("QueueDequeueUpToV2", name, handle=self._queue_ref, n=n,
                                      component_types=self._dtypes))
        for output, shape in zip(ret, self._shapes):
            output.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def close(self, cancel_pending_enqueues=False, name=None):
        if name is None:
            name = "%s_Close" % self._name
        return gen.apply("QueueCloseV2", name, handle=self._queue_ref,
                         cancel_pending_enqueues=cancel_pending_enqueues)

    def is_closed(self, name=None):
        if name is None:
            name = "%s_Is_Closed" % self._name
        return gen.apply("QueueIsClosedV2", name, handle=self._queue_ref)

    def size(self, name=None):
        if name is None:
            name = "%s_Size" % self._name
        return gen.apply("QueueSizeV2", name, handle=self._queue_ref)


class FIFOQueue(QueueBase):
    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = _make_queue("FIFOQueueV2", name, component_types=dtypes, shapes=shapes or [], capacity=capacity,
                          shared_name=shared_name or "")
        super(FIFOQueue, self).__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        g = ops.get_default_graph()
        if g.seed is not None:
            seed1, seed2 = g.seed, (seed if seed is not None else len(g.get_operations()))
        elif seed is not None:
            seed1, seed2 = 87654321, seed
        else:
            seed1, seed2 = 0, 0
        if seed1 == 0 and seed2 == 0 and (g.seed is not None or seed is not None):
            seed2 = 2147483647
        ref = _make_queue("RandomShuffleQueueV2", name, component_types=dtypes, shapes=shapes or [],
                          capacity=capacity, min_after_dequeue=min_after_dequeue, seed=int(seed1) % 2147483647,
                          seed2=int(seed2) % 2147483647, shared_name=shared_name or "")
        super(RandomShuffleQueue, self).__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received %d dtypes and %d shapes."
                             % (len(dtypes), len(shapes)))
        ref = _make_queue("PaddingFIFOQueueV2", name, component_types=dtypes, shapes=shapes, capacity=capacity,
                          shared_name=shared_name or "")
        super(PaddingFIFOQueue, self).__init__(dtypes, shapes, names, ref)


# ---------------------------------------------------------------- readers

class ReaderBase(object):
    """A reader over its resource handle (tf.ReaderBase)."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def read(self, queue, name=None):
        q = queue.queue_ref if isinstance(queue, QueueBase) else queue
        return gen.apply("ReaderReadV2", name, reader_handle=self._reader_ref, queue_handle=q)

    def read_up_to(self, queue, num_records, name=None):
        q = queue.queue_ref if isinstance(queue, QueueBase) else queue
        return gen.apply("ReaderReadUpToV2", name, reader_handle=self._reader_ref, queue_handle=q,
                         num_records=num_records)

    def num_records_produced(self, name=None):
        return gen.apply("ReaderNumRecordsProducedV2", name, reader_handle=self._reader_ref)

    def reset(self, name=None):
        return gen.apply("ReaderResetV2", name, reader_handle=self._reader_ref)


def _compression(options):
    if options is None:
        return ""
    from tfc import tf_record
    return tf_record.TFRecordOptions.get_compression_type_string(options)


class TFRecordReader(ReaderBase):
    """tf.TFRecordReader(name=None, options=None): the TFRecordReaderV2 op, made when the
    object is (TFC_TFRecordReaderRead makes reader and read together, which the object API
    cannot: one reader serves many read() calls)."""

    def __init__(self, name=None, options=None):
        ref = gen.apply("TFRecordReaderV2", name, compression_type=_compression(options))
        super(TFRecordReader, self).__init__(ref)


class WholeFileReader(ReaderBase):
    """tf.WholeFileReader(name=None): one record per file, keyed by the file name."""

    def __init__(self, name=None):
        super(WholeFileReader, self).__init__(gen.apply("WholeFileReaderV2", name))


class TextLineReader(ReaderBase):
    """tf.TextLineReader(skip_header_lines=None, name=None): one record per line, keyed
    "<file>:<line number>"."""

    def __init__(self, skip_header_lines=None, name=None):
        super(TextLineReader, self).__init__(gen.apply("TextLineReaderV2", name,
                                                       skip_header_lines=skip_header_lines))


# ---------------------------------------------------------------- parsing

FixedLenFeature = collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
FixedLenFeature.__new__.__defaults__ = (None,)
VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
FixedLenSequenceFeature = collections.namedtuple("FixedLenSequenceFeature",
                                                 ["shape", "dtype", "allow_missing", "default_value"])
FixedLenSequenceFeature.__new__.__defaults__ = (False, None)


class SparseTensor(object):
    """tf.SparseTensor(indices, values, dense_shape) over three tensors."""

    def __init__(self, indices, values, dense_shape):
        self._indices = ops.convert_to_tensor(indices, name="indices", dtype=_dtypes.int64)
        self._values = ops.convert_to_tensor(values, name="values")
        self._dense_shape = ops.convert_to_tensor(dense_shape, name="dense_shape", dtype=_dtypes.int64)

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)
    op = property(lambda self: self._values.op)

    def _fetch_components(self):
        return [self._indices, self._values, self._dense_shape], lambda r: SparseTensorValue(*r)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (self._indices, self._values, self._dense_shape)


SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


def _check_features(features):
    if not features:
        raise ValueError("Missing: features was %s." % features)
    for key, f in features.items():
        if not isinstance(f, (FixedLenFeature, VarLenFeature)):
            raise ValueError("Unsupported %s %s." % (type(f).__name__, f))


def _dense_spec(key, f):
    dt = _dtypes.as_dtype(f.dtype)
    dims = [] if f.shape is None else list(tensor_shape.as_shape(f.shape).as_list())
    if any(d is None for d in dims):
        raise ValueError("All dimensions of shape for feature %s need to be known but received %s."
                         % (key, f.shape))
    default = None
    if f.default_value is not None:
        default = np.asarray(f.default_value, dtype=object if dt == _dtypes.string else dt.as_numpy_dtype)
        n = int(np.prod(dims)) if dims else 1
        if default.size == 1 and n != 1:
            default = np.full(n, default.reshape(()).item(), dtype=default.dtype)
        default = default.reshape(dims) if default.size == n else default
    return (key, dt.as_datatype_enum, [int(d) for d in dims], default)


def _dense_defaults(dense):
    """The dense_defaults inputs in key order: an empty Const for a required feature, else the
    Const "key_<key>" reshaped to the feature's shape (TF 1.15's layout, and the builder's)."""
    from tfc.ops import array_ops
    out = []
    for k, f in dense:
        _, _, dims, default = _dense_spec(k, f)
        dt = _dtypes.as_dtype(f.dtype)
        if default is None:
            np_dt = object if dt == _dtypes.string else dt.as_numpy_dtype
            out.append(ops.convert_to_tensor(np.zeros([0], dtype=np_dt), dtype=dt))
        else:
            t = ops.convert_to_tensor(default, dtype=dt, name="key_" + re.sub(r"[^A-Za-z0-9_.\-/]", "_", k))
            out.append(array_ops.reshape(t, dims))
    return out


def parse_single_example(serialized, features, name=None, example_names=None):
    """tf.parse_single_example: a dict of key -> Tensor (FixedLenFeature) or SparseTensor
    (VarLenFeature). Dense-only feature sets are TFC_ParseSingleExample's nodes; with VarLen
    features the ParseSingleExample op is built here with the same layout, the sparse keys first."""
    _check_features(features)
    g = ops.get_default_graph()
    serialized = ops.convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
    dense = [(k, f) for k, f in features.items() if isinstance(f, FixedLenFeature)]
    sparse = sorted((k, f) for k, f in features.items() if isinstance(f, VarLenFeature))
    if not sparse and name is None:
        specs = [_dense_spec(k, f) for k, f in dense]
        outs = _c_builders.call(_pywrap.b_parse_single_example, g, serialized._as_tf_output(), specs,
                                op_type="ParseSingleExample")
        return {k: _c_builders.output(g, o) for (k, _), o in zip(dense, outs)}
    dense = sorted(dense)
    with ops.name_scope(name, "ParseSingleExample"):
        defaults = _dense_defaults(dense)
        r = gen.apply("ParseSingleExample", name or "ParseSingleExample", serialized=serialized,
                      dense_defaults=defaults, num_sparse=len(sparse), sparse_keys=[k for k, _ in sparse],
                      dense_keys=[k for k, _ in dense], sparse_types=[f.dtype for _, f in sparse],
                      dense_shapes=[_dense_spec(k, f)[2] for k, f in dense])
        idx, vals, shapes, dvals = r
        out = {}
        for i, (k, _) in enumerate(sparse):
            out[k] = SparseTensor(idx[i], vals[i], shapes[i])
        for i, (k, _) in enumerate(dense):
            out[k] = dvals[i]
        return out


def parse_example(serialized, features, name=None, example_names=None):
    """tf.parse_example: a batch [B] of serialized Examples -> dict of [B] + shape Tensors
    (FixedLenFeature) or SparseTensors (VarLenFeature), TF 1.15's ParseExample op."""
    _check_features(features)
    dense = sorted((k, f) for k, f in features.items() if isinstance(f, FixedLenFeature))
    sparse = sorted((k, f) for k, f in features.items() if isinstance(f, VarLenFeature))
    with ops.name_scope(name, "ParseExample"):
        defaults = _dense_defaults(dense)
        names = list(example_names) if example_names is not None else np.zeros([0], dtype=object)
        r = gen.apply("ParseExample", name or "ParseExample", serialized=serialized, names=names,
                      sparse_keys=[k for k, _ in sparse], dense_keys=[k for k, _ in dense], dense_defaults=defaults,
                      sparse_types=[f.dtype for _, f in sparse],
                      dense_shapes=[_dense_spec(k, f)[2] for k, f in dense])
        idx, vals, shapes, dvals = r
        out = {}
        for i, (k, _) in enumerate(sparse):
            out[k] = SparseTensor(idx[i], vals[i], shapes[i])
        for i, (k, _) in enumerate(dense):
            out[k] = dvals[i]
        return out


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """tf.decode_raw(bytes, out_type, little_endian=True, name=None): TFC_DecodeRaw."""
    if bytes is not None:
        input_bytes = bytes
    g = ops.get_default_graph()
    t = ops.convert_to_tensor(input_bytes, dtype=_dtypes.string)
    dt = _dtypes.as_dtype(out_type)
    if name is not None:
        return gen.apply("DecodeRaw", name, bytes=t, out_type=dt, little_endian=little_endian)
    o = _c_builders.call(_pywrap.b_decode_raw, g, t._as_tf_output(), dt.as_datatype_enum, bool(little_endian),
                         op_type="DecodeRaw")
    return _c_builders.output(g, o)
