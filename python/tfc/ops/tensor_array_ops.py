"""tf.TensorArray (TF 1.x's graph-mode class) over the TensorArray*V3 ops.

Design: a TensorArray is a pair (handle, flow): the handle (DT_RESOURCE) names the per-step
array made by TensorArrayV3, the float scalar flow orders the operations on it. Every write
(write, scatter, split, unstack) returns a NEW TensorArray object with the writer's flow_out as
its flow; reads (read, gather, concat, stack, size) take the current flow. That is how the
flows travel through tf.while_loop as loop variables (control_flow_ops.while_loop turns
TensorArrays into their flows and back, as TF does) while the handle enters the loop as a
captured constant. The gradients of these ops are the C gradient registry's
(src/grad/grad_tensor_array.c), reached through tf.gradients.

Names are TF 1.15's: the array "TensorArray" (or the name given), "TensorArrayWrite/
TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayScatter/TensorArrayScatterV3",
"TensorArrayUnstack/...", "TensorArrayStack/TensorArrayGatherV3", "TensorArraySplit/...",
"TensorArrayConcatV3", "TensorArraySizeV3", "TensorArrayCloseV3". With infer_shape (the
default) the element shape is learnt from the writes and given to reads; an incompatible write
is TF's ValueError "Inconsistent shapes: saw (2, 3) but expected (2, 4) ".
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import gen


class TensorArray(object):
    """TF 1.x's tf.TensorArray (graph mode)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if clear_after_read is None:
            clear_after_read = True
        dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._infer_shape = infer_shape
        self._dynamic_size = dynamic_size
        self._size = size
        if element_shape is None:
            self._element_shape = [tensor_shape.unknown_shape()]
        else:
            self._element_shape = [tensor_shape.TensorShape(element_shape)]
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot construct with both handle and tensor_array_name")
        if handle is not None and not isinstance(handle, ops.Tensor):
            raise TypeError("Handle must be a Tensor")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None and dynamic_size is not False:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and clear_after_read is not True:
            raise ValueError("Cannot provide both a handle and clear_after_read at the same time")
        if handle is not None:
            self._handle = handle
            if flow is None:
                raise ValueError("flow must not be None if handle is not None.")
            self._flow = flow
            return
        with ops.name_scope(name, "TensorArray", [size]) as scope:
            self._handle, self._flow = gen.apply(
                "TensorArrayV3", scope, size=size, dtype=self._dtype,
                element_shape=self._element_shape[0], identical_element_shapes=bool(infer_shape),
                dynamic_size=bool(dynamic_size), clear_after_read=bool(clear_after_read),
                tensor_array_name=tensor_array_name or "")

    @property
    def flow(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        return self._handle

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _with_flow(self, flow):
        ta = TensorArray(self._dtype, handle=self._handle, flow=flow, infer_shape=self._infer_shape)
        ta._element_shape = self._element_shape  # shared, as TF shares the list
        ta._dynamic_size = self._dynamic_size
        ta._size = self._size
        return ta

    def _merge_element_shape(self, shape):
        if not self._infer_shape:
            return
        if not shape.is_compatible_with(self._element_shape[0]):
            raise ValueError("Inconsistent shapes: saw %s but expected %s " % (shape, self._element_shape[0]))
        self._element_shape[0] = self._element_shape[0].merge_with(shape)

    def identity(self):
        from tfc.ops import array_ops
        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        from tfc.ops import array_ops
        if flow is None:
            flow = self.flow
        with ops.name_scope(name, "TensorArrayGrad", [self._handle]):
            g_handle, _ = gen.apply("TensorArrayGradV3", name, handle=self._handle, flow_in=flow, source=source)
            with ops.control_dependencies([g_handle]):
                flow = array_ops.identity(flow, name="gradient_flow")
            g = TensorArray(self._dtype, handle=g_handle, flow=flow, infer_shape=self._infer_shape)
            g._element_shape = self._element_shape
            return g

    def read(self, index, name=None):
        value = gen.apply("TensorArrayReadV3", name, handle=self._handle, index=index, flow_in=self._flow,
                          dtype=self._dtype)
        if self._element_shape[0].ndims is not None:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        with ops.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            if self._dtype != value.dtype.base_dtype:
                raise ValueError("TensorArray dtype is %s but Op is trying to write dtype %s "
                                 % (self._dtype.name, value.dtype.name))
            self._merge_element_shape(value.shape)
            flow = gen.apply("TensorArrayWriteV3", name, handle=self._handle, index=index, value=value,
                             flow_in=self._flow)
        return self._with_flow(flow)

    def stack(self, name=None):
        from tfc.ops import array_ops
        with ops.name_scope(name, "TensorArrayStack", [self._handle]):
            return self.gather(array_ops.range(0, self.size()), name=name)

    def gather(self, indices, name=None):
        es = self._element_shape[0]
        value = gen.apply("TensorArrayGatherV3", name, handle=self._handle, indices=indices, flow_in=self._flow,
                          dtype=self._dtype, element_shape=es)
        if es.ndims is not None:
            value.set_shape(tensor_shape.TensorShape([None]).concatenate(es))
        return value

    def concat(self, name=None):
        es = self._element_shape[0]
        except0 = es[1:] if es.ndims is not None and es.ndims >= 1 else tensor_shape.unknown_shape()
        value, _ = gen.apply("TensorArrayConcatV3", name, handle=self._handle, flow_in=self._flow,
                             dtype=self._dtype, element_shape_except0=except0)
        if except0.ndims is not None:
            value.set_shape(tensor_shape.TensorShape([None]).concatenate(except0))
        return value

    def unstack(self, value, name=None):
        from tfc.ops import array_ops
        with ops.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=array_ops.range(0, num_elements), value=value, name=name)

    def scatter(self, indices, value, name=None):
        with ops.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            if self._dtype != value.dtype.base_dtype:
                raise ValueError("TensorArray dtype is %s but Op is trying to write dtype %s "
                                 % (self._dtype.name, value.dtype.name))
            if value.shape.ndims is not None and value.shape.ndims >= 1:
                self._merge_element_shape(value.shape[1:])
            flow = gen.apply("TensorArrayScatterV3", name, handle=self._handle, indices=indices, value=value,
                             flow_in=self._flow)
        return self._with_flow(flow)

    def split(self, value, lengths, name=None):
        from tfc.ops import math_ops
        with ops.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            lengths_64 = math_ops.cast(lengths, dtypes.int64)
            if value.shape.ndims is not None and value.shape.ndims >= 1 and isinstance(lengths, (list, tuple)):
                if lengths and len(set(int(v) for v in lengths)) == 1:
                    self._merge_element_shape(tensor_shape.TensorShape([int(lengths[0])]).concatenate(
                        value.shape[1:]))
            flow = gen.apply("TensorArraySplitV3", name, handle=self._handle, value=value, lengths=lengths_64,
                             flow_in=self._flow)
        return self._with_flow(flow)

    def size(self, name=None):
        """The static size as a tensor when the array cannot grow (as TF), else TensorArraySizeV3."""
        if not self._dynamic_size and self._size is not None:
            return ops.convert_to_tensor(self._size, dtype=dtypes.int32)
        return gen.apply("TensorArraySizeV3", name, handle=self._handle, flow_in=self._flow)

    def close(self, name=None):
        return gen.apply("TensorArrayCloseV3", name, handle=self._handle)


def _ta_to_flow(x):
    return x.flow if isinstance(x, TensorArray) else x


def _flow_to_ta(template, x):
    return template._with_flow(x) if isinstance(template, TensorArray) else x
