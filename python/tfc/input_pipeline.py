"""TF 1.x queue input pipelines: tf.train.string_input_producer, tf.train.batch and
tf.train.shuffle_batch.

Design: each function is include/tfc/input.h's builder called through _c_builders, so the
nodes, names, seeds, queue runners (QueueRunner objects in the QUEUE_RUNNERS collection) and
fill-level summaries (in SUMMARIES) are the builders' and line up with TF 1.15's. Python adds
only argument handling: structures (a list, a tuple or a dict of tensors in, the same
structure out; one tensor given in a list comes back as one tensor, as TF's dequeue returns
it), conversions to tensors and TF's argument checks. string_input_producer's num_epochs is
the builder's local variable "limit_epochs/epochs" (in tf.local_variables(), which the builders
hold): run tf.local_variables_initializer() before starting the queue runners.

batch and shuffle_batch are TFC_BatchWithOptions (enqueue_many, allow_smaller_final_batch and
batch's dynamic_pad included). Not done: shapes= overrides, shared_name and SparseTensor inputs
(NotImplementedError naming the argument).

Errors: the builders' INVALID_ARGUMENT texts as ValueError ("capacity 10 must be bigger than
min_after_dequeue 10.", "All shapes must be fully defined: [...]", "num_epochs must be > 0 not
-1.", "Expected at least one tensor in batch()."), as TF raises them.
"""
from tfc import _c_builders
from tfc import _pywrap
from tfc import data_flow_ops
from tfc.framework import ops


def _unsupported(what):
    raise NotImplementedError("%s is not supported by tfc's input pipeline builders yet" % what)


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """The file name queue (a FIFOQueue object) fed by a QueueRunner (TFC_StringInputProducer)."""
    if shared_name:
        _unsupported("shared_name")
    if cancel_op is not None:
        _unsupported("cancel_op")
    if isinstance(string_tensor, ops.Tensor):
        _unsupported("a string_tensor that is a Tensor (give the file names as a list)")
    if isinstance(string_tensor, (str, bytes)):
        string_tensor = [string_tensor]
    names = [s.decode("utf-8") if isinstance(s, bytes) else str(s) for s in list(string_tensor)]
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    g = ops.get_default_graph()
    q = _c_builders.call(_pywrap.b_string_input_producer, g, names, int(num_epochs or 0), bool(shuffle),
                         int(seed or 0), int(capacity), name, op_type="FIFOQueueV2")
    return data_flow_ops.QueueBase._from_op(_c_builders.output(g, q).op)


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        keys = sorted(tensors.keys())
        return keys, [tensors[k] for k in keys]
    if isinstance(tensors, ops.Tensor):
        return None, [tensors]
    return None, list(tensors)


def _as_original_type(original, keys, tensors):
    if keys is not None:
        return dict(zip(keys, tensors))
    if isinstance(original, ops.Tensor) or len(tensors) == 1:
        return tensors[0]
    return tensors


def _prepare(tensors, shapes, shared_name):
    if shapes is not None:
        _unsupported("shapes")
    if shared_name:
        _unsupported("shared_name")
    keys, tl = _as_tensor_list(tensors)
    if not tl:
        raise ValueError("Expected at least one tensor in batch().")
    for t in tl:
        if isinstance(t, data_flow_ops.SparseTensor):
            _unsupported("SparseTensor inputs")
    return keys, [ops.convert_to_tensor(t) for t in tl]


def _batch(tensors, shuffle, batch_size, capacity, num_threads, min_after_dequeue, seed, enqueue_many, shapes,
           dynamic_pad, allow_smaller_final_batch, shared_name, name):
    keys, tl = _prepare(tensors, shapes, shared_name)
    g = ops.get_default_graph()
    outs = _c_builders.call(_pywrap.b_batch, g, [t._as_tf_output() for t in tl], bool(shuffle), int(batch_size),
                            int(capacity), int(num_threads), int(min_after_dequeue), int(seed or 0),
                            bool(enqueue_many), bool(allow_smaller_final_batch), bool(dynamic_pad), name,
                            op_type="RandomShuffleQueueV2" if shuffle else "FIFOQueueV2")
    return _as_original_type(tensors, keys, [_c_builders.output(g, o) for o in outs])


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    return _batch(tensors, False, batch_size, capacity, num_threads, 0, None, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    return _batch(tensors, True, batch_size, capacity, num_threads, min_after_dequeue, seed, enqueue_many, shapes,
                  False, allow_smaller_final_batch, shared_name, name)
