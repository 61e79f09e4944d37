"""Array functions with TF 1.x signatures: placeholder, reshape, identity, stack, and Tensor
indexing through StridedSlice (array_ops.py `_slice_helper`, §1.4 of the API facts).

Indexing: bit i of each mask refers to index position i; slices without start/stop set
begin_mask/end_mask, `...` sets ellipsis_mask, None sets new_axis_mask, an int or scalar tensor
k gives [k, k+1) with shrink_axis_mask. Constant begin/end/strides become Consts `stack`,
`stack_1`, `stack_2` inside the `strided_slice` scope.
"""
import builtins

import numpy as np

from tfc.framework import constant_op
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
    """A Const "Shape" when the shape is fully known, else the Shape op (TF's shape_internal)."""
    with ops.name_scope(name, "Shape", [input]) as name:
        x = ops.convert_to_tensor(input)
        s = x.shape
        if s.is_fully_defined():
            return constant_op.constant(s.as_list(), dtype=out_type, name=name)
        return gen.apply("Shape", name, input=x, out_type=out_type)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    return gen.apply("ShapeN", name, input=list(input), out_type=out_type)


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """A Const "Size" when the shape is fully known, else the Size op."""
    with ops.name_scope(name, "Size", [input]) as name:
        x = ops.convert_to_tensor(input)
        if x.shape.is_fully_defined():
            return constant_op.constant(x.shape.num_elements(), dtype=out_type, name=name)
        if x.shape.ndims and any(d == 0 for d in x.shape.as_list()):
            return constant_op.constant(0, dtype=out_type, name=name)
        return gen.apply("Size", name, input=x, out_type=out_type)


def rank(input, name=None):  # noqa: A002
    """A Const "Rank" when the rank is known, else the Rank op."""
    with ops.name_scope(name, "Rank", [input]) as name:
        x = ops.convert_to_tensor(input)
        if x.shape.ndims is not None:
            return constant_op.constant(x.shape.ndims, dtype=dtypes.int32, name=name)
        return gen.apply("Rank", name, input=x)


def identity_n(input, name=None):  # noqa: A002
    return gen.apply("IdentityN", name, input=list(input))


def stop_gradient(input, name=None):  # noqa: A002
    return gen.apply("StopGradient", name, input=input)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return gen.apply("ExpandDims", name, input=input, dim=axis)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        axis = squeeze_dims
    if isinstance(axis, (int, np.integer)):
        axis = [axis]
    return gen.apply("Squeeze", name, input=input, squeeze_dims=list(axis or []))


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Transpose; perm defaults to the reversed axes (a Const "perm" when the rank is known,
    else Range(Rank - 1, -1, -1))."""
    with ops.name_scope(name, "transpose", [a]) as name:
        if perm is None:
            a = ops.convert_to_tensor(a, name="a")
            r = a.shape.ndims
            if r is None:
                rk = gen.apply("Rank", None, input=a)
                perm = gen.apply("Range", None, start=rk - 1, limit=-1, delta=-1)
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        return gen.apply("Transpose", name, x=a, perm=perm)


def tile(input, multiples, name=None):  # noqa: A002
    return gen.apply("Tile", name, input=input, multiples=multiples)


def broadcast_to(input, shape, name=None):  # noqa: A002
    return gen.apply("BroadcastTo", name, input=input, shape=shape)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, ops.Tensor) and np.all(np.asarray(constant_values) == 0):
            return gen.apply("Pad", name, input=tensor, paddings=paddings)
        return gen.apply("PadV2", name, input=tensor, paddings=paddings, constant_values=constant_values)
    if mode in ("REFLECT", "SYMMETRIC"):
        return gen.apply("MirrorPad", name, input=tensor, paddings=paddings, mode=mode)
    raise ValueError("Unknown padding mode: %s" % mode)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    if axis is None:
        axis = batch_dims
    return gen.apply("GatherV2", name, params=params, indices=indices, axis=axis, batch_dims=batch_dims)


def dynamic_partition(data, partitions, num_partitions, name=None):
    return gen.apply("DynamicPartition", name, data=data, partitions=partitions, num_partitions=num_partitions)


def dynamic_stitch(indices, data, name=None):
    return gen.apply("DynamicStitch", name, indices=list(indices), data=list(data))


def parallel_dynamic_stitch(indices, data, name=None):
    return gen.apply("ParallelDynamicStitch", name, indices=list(indices), data=list(data))


def gather_nd(params, indices, name=None, batch_dims=0):
    if batch_dims != 0:
        raise NotImplementedError("gather_nd with batch_dims is not supported")
    return gen.apply("GatherNd", name, params=params, indices=indices)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    with ops.name_scope(name, "one_hot", [indices, depth, on_value, off_value, axis, dtype]) as name:
        if on_value is not None:
            on_value = ops.convert_to_tensor(on_value)
        if off_value is not None:
            off_value = ops.convert_to_tensor(off_value)
        on_dtype = on_value.dtype.base_dtype if on_value is not None else None
        off_dtype = off_value.dtype.base_dtype if off_value is not None else None
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        if on_value is not None or off_value is not None:
            if dtype is not None:
                if on_value is not None and on_dtype != dtype:
                    raise TypeError("dtype {0} of on_value does not match dtype parameter {1}".format(
                        on_dtype, dtype))
                if off_value is not None and off_dtype != dtype:
                    raise TypeError("dtype {0} of off_value does not match dtype parameter {1}".format(
                        off_dtype, dtype))
            else:
                dtype = on_dtype if on_value is not None else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        if on_value is None:
            on_value = ops.convert_to_tensor(1, dtype, name="on_value")
            on_dtype = dtype
        if off_value is None:
            off_value = ops.convert_to_tensor(0, dtype, name="off_value")
            off_dtype = dtype
        if on_dtype != off_dtype:
            raise TypeError("dtype {0} of on_value does not match dtype {1} of off_value".format(on_dtype, off_dtype))
        return gen.apply("OneHot", name, indices=indices, depth=depth, on_value=on_value, off_value=off_value,
                         axis=-1 if axis is None else axis)


def _zero_of(dtype):
    return False if dtype == dtypes.bool else (b"" if dtype == dtypes.string else 0)


def _filled(shape, value, dtype, name, default_name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, default_name, [shape]) as name:
        if not isinstance(shape, ops.Tensor):
            try:
                dims = tensor_shape.as_shape(shape)
                if dims.is_fully_defined() and dims.num_elements() < 1000:
                    return constant_op.constant(value, dtype=dtype, shape=dims.as_list(), name=name)
                shape = constant_op.constant(dims.as_list(), dtype=dtypes.int32, name="shape_as_tensor")
            except (TypeError, ValueError):
                shape = ops.convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return gen.apply("Fill", name, dims=shape, value=constant_op.constant(value, dtype=dtype))


def zeros(shape, dtype=dtypes.float32, name=None):
    """A Const "zeros" below 1000 elements, else Fill of "zeros/shape_as_tensor" and
    "zeros/Const" (array_ops.zeros)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    return _filled(shape, _zero_of(dtype), dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    dtype = dtypes.as_dtype(dtype).base_dtype
    return _filled(shape, True if dtype == dtypes.bool else 1, dtype, name, "ones")


def fill(dims, value, name=None):
    return gen.apply("Fill", name, dims=dims, value=value)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    with ops.name_scope(name, "zeros_like", [tensor]) as name:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if optimize and tensor.shape.is_fully_defined() and tensor.dtype != dtypes.variant:
            return zeros(tensor.shape.as_list(), dtype=dtype or tensor.dtype, name=name)
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype:
            return zeros(shape(tensor), dtype=dtype, name=name)
        return gen.apply("ZerosLike", name, x=tensor)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    with ops.name_scope(name, "ones_like", [tensor]) as name:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        ones_shape = shape(tensor) if optimize else gen.apply("Shape", None, input=tensor)
        ret = ones(ones_shape, dtype=dtype or tensor.dtype, name=name)
        ret.set_shape(tensor.shape)
        return ret


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TF's name)
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as name:
        start = ops.convert_to_tensor(start, dtype=dtype, name="start")
        limit = ops.convert_to_tensor(limit, dtype=dtype, name="limit")
        delta = ops.convert_to_tensor(delta, dtype=dtype, name="delta")
        if dtype is None:
            order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
            inferred = max([t.dtype.base_dtype for t in (start, limit, delta)], key=order.index)
            from tfc.ops import math_ops
            start, limit, delta = (math_ops.cast(t, inferred) for t in (start, limit, delta))
        return gen.apply("Range", name, start=start, limit=limit, delta=delta)


def slice(input_, begin, size, name=None):  # noqa: A001 (TF's name)
    return gen.apply("Slice", name, input=input_, begin=begin, size=size)


def reverse(tensor, axis, name=None):
    return gen.apply("ReverseV2", name, tensor=tensor, axis=axis)


reverse_v2 = reverse


def where(condition, x=None, y=None, name=None):
    """TF 1.x where: Select(condition, x, y); with neither x nor y, the int64 coordinates of the
    true entries (Where under a "Where" scope)."""
    if x is None and y is None:
        with ops.name_scope(name, "Where", [condition]) as name:
            condition = ops.convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return gen.apply("Where", name, input=condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return gen.apply("Select", name, condition=condition, t=x, e=y)


def where_v2(condition, x=None, y=None, name=None):
    if x is None and y is None:
        with ops.name_scope(name, "Where", [condition]) as name:
            condition = ops.convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return gen.apply("Where", name, input=condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return gen.apply("SelectV2", name, condition=condition, t=x, e=y)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of tensor where mask (a bool tensor of known rank over dims axis..) is true:
    the masked dims flattened into one (Prod, Reshape), then GatherV2 of Where's rows."""
    with ops.name_scope(name, values=[tensor, mask]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        mask = ops.convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else axis
        if shape_tensor.ndims is not None:
            tensor_shape.TensorShape(shape_tensor.dims[axis:axis + ndims_mask]).assert_is_compatible_with(shape_mask)
        leading_size = gen.apply("Prod", None, input=shape(tensor)[axis:axis + ndims_mask], reduction_indices=[0])
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size], shape(tensor)[axis + ndims_mask:]], 0))
        if shape_tensor.ndims is not None:
            dims = shape_tensor.as_list()
            masked = tensor_shape.TensorShape(dims[axis:axis + ndims_mask]).num_elements()
            tensor.set_shape(dims[:axis] + [masked] + dims[axis + ndims_mask:])
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def concat(values, axis, name="concat"):
    """ConcatV2 named `name`; one value gives an Identity "<scope>/<name>" after checking that
    axis is an int32 scalar."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops.name_scope(name) as scope:
            ax = ops.convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            if ax.shape.ndims is not None and ax.shape.ndims != 0:
                raise ValueError("Shape %s must have rank 0" % ax.shape)
            return identity(values[0], name=name)
    return gen.apply("ConcatV2", name, values=list(values), axis=axis)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split into num_or_size_splits equal parts (an int), or SplitV by sizes."""
    if isinstance(num_or_size_splits, (int, np.integer, tensor_shape.Dimension)) and \
            not isinstance(num_or_size_splits, bool):
        return gen.apply("Split", name, split_dim=axis, value=value, num_split=int(num_or_size_splits))
    size_splits = ops.convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         "Argument provided: %s" % (num_or_size_splits,))
    if num is None:
        dims = size_splits.shape.as_list() if size_splits.shape.ndims is not None else None
        num = dims[0] if dims else None
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % (num_or_size_splits,))
    return gen.apply("SplitV", name, value=value, size_splits=size_splits, split_dim=axis, num_split=num)


def unstack(value, num=None, axis=0, name="unstack"):
    if num is None:
        value = ops.convert_to_tensor(value)
        s = value.shape
        if s.ndims is not None:
            if axis < -s.ndims or axis >= s.ndims:
                raise ValueError("axis = %d not in [%d, %d)" % (axis, -s.ndims, s.ndims))
            num = s.as_list()[axis]
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % s)
    return gen.apply("Unpack", name, value=value, num=num, axis=axis)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = ops.convert_to_tensor(lengths)
        if maxlen is None:
            r = lengths.shape.ndims
            if r is not None:
                dims = constant_op.constant(np.arange(r, dtype=np.int32))
            else:
                dims = gen.apply("Range", None, start=0, limit=gen.apply("Rank", None, input=lengths), delta=1)
            maxlen = gen.apply("Max", None, input=lengths, reduction_indices=dims)
            maxlen = gen.apply("Maximum", None, x=constant_op.constant(0, dtype=maxlen.dtype), y=maxlen)
        else:
            maxlen = ops.convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        row = gen.apply("Range", None, start=constant_op.constant(0, dtype=maxlen.dtype), limit=maxlen,
                        delta=constant_op.constant(1, dtype=maxlen.dtype))
        matrix = gen.apply("Cast", None, x=expand_dims(lengths, -1), DstT=maxlen.dtype)
        result = row < matrix
        dtype = dtypes.as_dtype(dtype)
        if result.dtype.base_dtype == dtype.base_dtype:
            return result
        return gen.apply("Cast", None, x=result, DstT=dtype)


def meshgrid(*args, **kwargs):
    """meshgrid(x, y, ..., indexing="xy", name="meshgrid"): Reshape each input to broadcast,
    multiply by ones of the full shape (Size, Stack, Ones, Mul)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = list(kwargs.keys())[0]
        raise TypeError("'{}' is an invalid keyword argument for this function".format(key))
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with ops.name_scope(name, "meshgrid", args):
        ndim = len(args)
        s0 = (1,) * ndim
        output = []
        for i, x in enumerate(args):
            output.append(reshape(stack(x), (s0[:i] + (-1,) + s0[i + 1:])))
        shapes = [size(x) for x in args]
        output_dtype = ops.convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


def stack(values, axis=0, name="stack"):
    if axis == 0:
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    value_shape = ops.convert_to_tensor(values[0], name=name).shape
    if value_shape.ndims is not None:
        expanded = value_shape.ndims + 1
        if axis < -expanded or axis >= expanded:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -expanded, expanded))
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
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
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
            # as TF: an int64 index tensor's stride is a Const of its dtype (made here, outside
            # the strided_slice scope), so the three packs agree
            if isinstance(s, ops.Tensor) and s.dtype == dtypes.int64:
                strides.append(constant_op.constant(1, dtype=s.dtype))
            else:
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
