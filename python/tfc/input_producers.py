"""tf.train's input producers beyond string_input_producer and the joined batches:
input_producer, range_input_producer, slice_input_producer, limit_epochs, batch_join and
shuffle_batch_join.

Design: input_producer, range_input_producer and limit_epochs are include/tfc/input.h's
builders (TFC_InputProducer, TFC_RangeInputProducer, TFC_LimitEpochs: the same queue, runner,
summary and epoch counter string_input_producer builds, with TF 1.15's names); Python converts
the arguments and wraps the queue as a FIFOQueue object. slice_input_producer is TF's
composition of range_input_producer, a dequeue and one Gather per tensor.

batch_join / shuffle_batch_join put one enqueue op per tensor list on one queue (one thread
each): they are built here over the queue classes (data_flow_ops) and QueueRunner, with TF's
scope ("batch_join" / "shuffle_batch_join"), queue, summary and dequeue names, since the C
batch builders enqueue a single list. Not done: match_filenames_once (tfc's op table has no
MatchingFiles), maybe_batch / maybe_shuffle_batch (keep_input), shapes= overrides,
shared_name, SparseTensor inputs (NotImplementedError naming them).
"""
import numbers

from tfc import _c_builders
from tfc import _pywrap
from tfc import data_flow_ops
from tfc import queue_runner
from tfc import summary_ops
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import array_ops
from tfc.ops import math_ops


def _unsupported(what):
    raise NotImplementedError("%s is not supported by tfc's input producers yet" % what)


def _epochs(num_epochs):
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    return int(num_epochs or 0)


def _queue(g, pair):
    return data_flow_ops.QueueBase._from_op(_c_builders.output(g, pair).op)


def limit_epochs(tensor, num_epochs=None, name=None):
    """tensor, failing with OutOfRangeError after num_epochs evaluations (TFC_LimitEpochs)."""
    if num_epochs is None:
        return tensor
    _epochs(num_epochs)
    if name not in (None, "limit_epochs"):
        _unsupported("limit_epochs(name=...)")
    g = ops.get_default_graph()
    tensor = ops.convert_to_tensor(tensor)
    out = _c_builders.call(_pywrap.b_limit_epochs, g, tensor._as_tf_output(), int(num_epochs), op_type="Identity")
    return _c_builders.output(g, out)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue of input_tensor's rows fed by a QueueRunner (TFC_InputProducer)."""
    if shared_name:
        _unsupported("shared_name")
    if cancel_op is not None:
        _unsupported("cancel_op")
    epochs = _epochs(num_epochs)
    g = ops.get_default_graph()
    input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
    dims = None
    if element_shape is not None:
        from tfc.framework import tensor_shape
        dims = tensor_shape.TensorShape(element_shape).as_list()
    q = _c_builders.call(_pywrap.b_input_producer, g, input_tensor._as_tf_output(), dims, epochs, bool(shuffle),
                         int(seed or 0), int(capacity), summary_name, name, op_type="FIFOQueueV2")
    return _queue(g, q)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A FIFOQueue of the integers 0 .. limit-1 (TFC_RangeInputProducer)."""
    if shared_name:
        _unsupported("shared_name")
    epochs = _epochs(num_epochs)
    g = ops.get_default_graph()
    if isinstance(limit, numbers.Integral) and not isinstance(limit, bool):
        lim = int(limit)
    else:
        lim = ops.convert_to_tensor(limit, dtype=dtypes.int32)._as_tf_output()
    q = _c_builders.call(_pywrap.b_range_input_producer, g, lim, epochs, bool(shuffle), int(seed or 0),
                         int(capacity), name, op_type="FIFOQueueV2")
    return _queue(g, q)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One slice (row) of each tensor per dequeue: [Gather(t, index) for t in tensor_list]."""
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


def _join_lists(tensors_list, shapes, shared_name):
    if shapes is not None:
        _unsupported("shapes")
    if shared_name:
        _unsupported("shared_name")
    tensors_list = list(tensors_list)
    if not tensors_list:
        raise ValueError("Expecting at least one input")
    keys = None
    lists = []
    for tl in tensors_list:
        if isinstance(tl, dict):
            keys = sorted(tl.keys())
            tl = [tl[k] for k in keys]
        elif isinstance(tl, ops.Tensor):
            tl = [tl]
        tl = [ops.convert_to_tensor(t) for t in tl]
        if not tl:
            raise ValueError("Expected at least one tensor in batch_join().")
        lists.append(tl)
    n = len(lists[0])
    for tl in lists[1:]:
        if len(tl) != n:
            raise ValueError("Expected all inputs to be the same length: %d vs %d" % (n, len(tl)))
        for a, b in zip(lists[0], tl):
            if a.dtype.base_dtype != b.dtype.base_dtype:
                raise TypeError("Expected types to be consistent: %s vs. %s."
                                % (", ".join(x.dtype.name for x in lists[0]), ", ".join(x.dtype.name for x in tl)))
    return keys, lists


def _element_shapes(lists, enqueue_many):
    out = []
    for i, t in enumerate(lists[0]):
        s = t.shape
        for tl in lists[1:]:
            s = s.merge_with(tl[i].shape)
        if enqueue_many:
            s = s[1:]
        if not s.is_fully_defined():
            raise ValueError("All shapes must be fully defined: %s" % ([x.shape for x in lists[0]],))
        out.append(s)
    return out


def _result(first, keys, tensors):
    """The dequeued tensors in the structure of one input list (`first`): a dict, one tensor (a
    tensor or a one-element list given), or a list."""
    if keys is not None:
        return dict(zip(keys, tensors))
    if isinstance(first, ops.Tensor) or len(tensors) == 1:
        return tensors[0]
    return tensors


def _join(tensors_list, batch_size, capacity, enqueue_many, shapes, allow_smaller_final_batch, shared_name, name,
          shuffle, min_after_dequeue=0, seed=None):
    original = list(tensors_list)
    keys, lists = _join_lists(tensors_list, shapes, shared_name)
    default = "shuffle_batch_join" if shuffle else "batch_join"
    with ops.name_scope(name, default, [t for tl in lists for t in tl]) as scope:
        types = [t.dtype.base_dtype for t in lists[0]]
        elem_shapes = _element_shapes(lists, enqueue_many)
        if shuffle:
            if capacity <= min_after_dequeue:
                raise ValueError("capacity %d must be bigger than min_after_dequeue %d." % (capacity, min_after_dequeue))
            queue = data_flow_ops.RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                                     dtypes=types, shapes=elem_shapes, seed=seed)
        else:
            queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=types, shapes=elem_shapes)
        enqueue_ops = [queue.enqueue_many(tl) if enqueue_many else queue.enqueue(tl) for tl in lists]
        queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))
        if shuffle:
            full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
                1. / (capacity - min_after_dequeue))
            summary_ops.scalar("fraction_over_%d_of_%d_full" % (min_after_dequeue, capacity - min_after_dequeue),
                               full)
        else:
            summary_ops.scalar("fraction_of_%d_full" % capacity,
                               math_ops.cast(queue.size(), dtypes.float32) * (1. / capacity))
        if allow_smaller_final_batch:
            out = queue.dequeue_up_to(batch_size, name=scope)
        else:
            out = queue.dequeue_many(batch_size, name=scope)
        if isinstance(out, ops.Tensor):
            out = [out]
        return _result(original[0], keys, list(out))


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of elements from several tensor lists, one enqueuing thread per list."""
    if dynamic_pad:
        _unsupported("dynamic_pad")
    return _join(tensors_list, batch_size, capacity, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                 name, False)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    return _join(tensors_list, batch_size, capacity, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                 name, True, min_after_dequeue, seed)
