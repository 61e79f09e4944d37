"""Array functions with TF 1.x signatures: placeholder, reshape, identity, stack, and Tensor
indexing through StridedSlice (array_ops.py `_slice_helper`, §1.4 of the API facts).

Indexing: bit i of each mask refers to index position i; slices without start/stop set
begin_mask/end_mask, `...` sets ellipsis_mask, None sets new_axis_mask, an int or scalar tensor
k gives [k, k+1) with shrink_axis_mask. Constant begin/end/strides become Consts `stack`,
`stack_1`, `stack_2` inside the `strided_slice` scope.
"""
import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import gen


def placeholder(dtype, shape=None, name=None):
    shape = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.unknown_shape()
    return gen.apply("Placeholder", name, dtype=dtypes.as_dtype(dtype), shape=shape)


def placeholder_with_default(input, shape, name=None):  # noqa: A002 (TF's name)
    return gen.apply("PlaceholderWithDefault", name, input=input, shape=shape)


def identity(input, name=None):  # noqa: A002
    return gen.apply("Identity", name, input=input)


def reshape(tensor, shape, name=None):
    return gen.apply("Reshape", name, tensor=tensor, shape=shape)


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    return gen.apply("Shape", name, input=input, out_type=out_type)


def stack(values, axis=0, name="stack"):
    if axis == 0:
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    with ops.name_scope(name) as scope:
        return gen.apply("Pack", scope, values=list(values), axis=axis)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    if strides is None:
        strides = np.ones_like(begin)
    return gen.apply("StridedSlice", name, input=input_, begin=begin, end=end, strides=strides,
                     begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                     new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


def _check_index(idx):
    if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
        return
    if isinstance(idx, ops.Tensor) and idx.dtype.base_dtype in (dtypes.int32, dtypes.int64):
        if idx.shape.ndims in (None, 0):
            return
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                    "tf.int32/tf.int64 tensors are valid indices, got %r" % (idx,))


def _slice_helper(tensor, slice_spec, var=None):
    if isinstance(slice_spec, bool) or \
            (isinstance(slice_spec, ops.Tensor) and slice_spec.dtype == dtypes.bool) or \
            (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        raise NotImplementedError("boolean_mask indexing is not supported yet")
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, slice):
            if s.start is not None:
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0)
                begin_mask |= 1 << index
            if s.stop is not None:
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0)
                end_mask |= 1 << index
            if s.step is not None:
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1)
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= 1 << index
    with ops.name_scope(None, "strided_slice", [tensor]) as name:
        if begin:
            packed_begin, packed_end, packed_strides = stack(begin), stack(end), stack(strides)
        else:
            empty = np.zeros([0], dtype=np.int32)
            packed_begin = packed_end = packed_strides = empty
        return strided_slice(tensor, packed_begin, packed_end, packed_strides, begin_mask=begin_mask,
                             end_mask=end_mask, shrink_axis_mask=shrink_axis_mask,
                             new_axis_mask=new_axis_mask, ellipsis_mask=ellipsis_mask, name=name)


ops.Tensor.__getitem__ = _slice_helper
