"""Dilated (atrous) convolutions as TF 1.x builds them: with_space_to_batch wraps a VALID
convolution in SpaceToBatchND / BatchToSpaceND (block shape = the dilation rate), so the graph
holds no dilations attr. tf.nn.depthwise_conv2d and separable_conv2d with rate > 1,
tf.nn.convolution with dilation_rate > 1 and tf.nn.atrous_conv2d go through it.

Names and nodes follow TF's nn_ops: under the caller's scope a Const "dilation_rate"; with SAME
padding the base paddings (the filter's dilated extent, more at the end) folded into a Const
"stack" when the filter shape is known; required_space_to_batch_paddings (Consts "input_shape",
"paddings", "crops" when the input's spatial shape is known, else the graph that computes them
from a Shape); then SpaceToBatchND, the op (VALID, no dilations) and BatchToSpaceND, their
block_shape / paddings / crops Consts when known. A rate of all ones builds the op alone.

with_space_to_batch(input, dilation_rate, padding, op, filter_shape, spatial_dims, data_format)
calls op(input, num_spatial_dims, padding) as TF's does; ValueError with TF's texts for a rate
that is not positive or not rank 1, and for SAME padding without filter_shape.
"""
import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_util
from tfc.ops import array_ops
from tfc.ops import gen


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """TF's required_space_to_batch_paddings: (paddings, crops) making input_shape plus
    base_paddings a multiple of block_shape; numpy-folded Consts when every input is constant."""
    with ops.name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = ops.convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        num_block_dims = block_shape.shape.as_list()[0]
        if num_block_dims == 0:
            return (array_ops.zeros([0, 2], dtypes.int32), array_ops.zeros([0, 2], dtypes.int32))
        input_shape.shape.assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([num_block_dims, 2])
        else:
            base_paddings = array_ops.zeros([num_block_dims, 2], dtypes.int32)
        const_block = tensor_util.constant_value(block_shape)
        const_input = tensor_util.constant_value(input_shape)
        const_base = tensor_util.constant_value(base_paddings)
        if const_block is not None and const_input is not None and const_base is not None:
            block_shape, input_shape, base_paddings = const_block, const_input, const_base
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(num_block_dims)], name="paddings")
        crops = array_ops.stack([[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return paddings, crops


def _base_paddings(filter_shape, num_spatial_dims, rate):
    spatial = filter_shape[:num_spatial_dims]
    extra = (spatial - 1) * rate
    start = extra // 2
    end = extra - start
    return array_ops.stack([[start[i], end[i]] for i in range(num_spatial_dims)])


def _adjust(orig, fill_value, spatial_dims):
    """TF's _with_space_to_batch_adjust: orig's rows at spatial_dims[i] - 1, fill_value between."""
    fill_dims = orig.shape.as_list()[1:] if isinstance(orig, ops.Tensor) else list(np.shape(orig)[1:])
    dtype = orig.dtype.as_numpy_dtype if isinstance(orig, ops.Tensor) else np.asarray(orig).dtype
    const = tensor_util.constant_value(orig) if isinstance(orig, ops.Tensor) else np.asarray(orig)
    src = const if const is not None else orig
    parts, prev, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev] + fill_dims, fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(src[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    if const is not None:
        return np.concatenate(parts)
    return array_ops.concat(parts, 0)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None, num_batch_dims=1):
    """TF's with_space_to_batch; op(converted_input, num_spatial_dims, padding) builds the op."""
    input = ops.convert_to_tensor(input, name="input")
    input_shape = input.shape
    dilation_rate = ops.convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
    if dilation_rate.shape.ndims not in (None, 1):
        raise ValueError("`dilation_rate.shape.rank` must be 1. Received: dilation_rate=%s of rank %s"
                         % (dilation_rate, dilation_rate.shape.ndims))
    if not dilation_rate.shape.is_fully_defined():
        raise ValueError("`dilation_rate.shape` must be fully defined. Received: dilation_rate=%s with shape %s"
                         % (dilation_rate, dilation_rate.shape))
    num_spatial_dims = dilation_rate.shape.as_list()[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    start = num_batch_dims + 1 if channels_first else num_batch_dims
    if spatial_dims is None:
        spatial_dims = range(start, num_spatial_dims + start)
    orig = list(spatial_dims)
    spatial_dims = sorted(set(int(x) for x in orig))
    if spatial_dims != orig or any(x < 1 for x in spatial_dims):
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of positive integers. "
                         "Received: spatial_dims=%s" % orig)
    expected_rank = spatial_dims[-1] if channels_first else spatial_dims[-1] + 1
    if input_shape.ndims is not None and input_shape.ndims < expected_rank:
        raise ValueError("`input.shape.rank` must be at least %d. Received: input.shape=%s with rank %d"
                         % (expected_rank, input_shape, input_shape.ndims))
    const_rate = tensor_util.constant_value(dilation_rate)
    rate = dilation_rate
    if const_rate is not None:
        rate = const_rate
        if np.any(const_rate < 1):
            raise ValueError("`dilation_rate` must be positive. Received: dilation_rate=%s" % const_rate)
        if np.all(const_rate == 1):
            return op(input, num_spatial_dims, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`. Received: filter_shape=%s and "
                             "padding=%s" % (filter_shape, padding))
        filter_shape = ops.convert_to_tensor(filter_shape, name="filter_shape")
        const_filter = tensor_util.constant_value(filter_shape)
        if const_filter is None:
            raise NotImplementedError("with_space_to_batch: SAME padding needs a filter of known shape")
        base_paddings = _base_paddings(const_filter, num_spatial_dims, rate)
    elif padding == "VALID":
        base_paddings = np.zeros([num_spatial_dims, 2], np.int32)
    else:
        raise ValueError("Invalid padding method %r" % padding)
    spatial_shape = None
    if input_shape.ndims is not None:
        dims = input_shape.as_list()
        spatial_shape = [dims[i] for i in spatial_dims]
    if spatial_shape is None or None in spatial_shape:
        shape_t = array_ops.shape(input)
        spatial_shape = array_ops.stack([shape_t[i] for i in spatial_dims])
    paddings, crops = required_space_to_batch_paddings(spatial_shape, dilation_rate, base_paddings=base_paddings)
    block = _adjust(dilation_rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = gen.apply("SpaceToBatchND", None, input=input, block_shape=block, paddings=paddings)
    result = op(converted, num_spatial_dims, "VALID")
    return gen.apply("BatchToSpaceND", None, input=result, block_shape=block, crops=crops)


def _sequence(value, n, channel_index, name):
    """TF's _get_sequence for n spatial dims: None -> ones; an int or 1 value -> every spatial
    dim; n values -> the spatial dims; n + 2 -> as given."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in np.asarray(value).reshape(-1)]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError("%s should be of length 1, %d or %d. Received: %s=%s of length %d"
                         % (name, n, n + 2, name, value, len(value)))
    return [1] + value + [1] if channel_index != 1 else [1, 1] + value


def _nd_op(n, filter, data_format, name):  # noqa: A002
    """The non-dilated convolution of n spatial dims as TF's convolution_internal calls it:
    op(input, strides, padding, dilations) builds conv1d (ExpandDims / Conv2D / Squeeze),
    Conv2D or Conv3D named `name`."""
    from tfc.ops import nn_conv3d
    from tfc.ops import nn_ops

    def op(inp, strides, padding, dilations):
        if n == 1:
            return nn_ops.conv1d(inp, filter, strides, padding, data_format=data_format, dilations=dilations,
                                 name=name)
        if n == 2:
            return nn_ops.conv2d(inp, filter, strides, padding, data_format=data_format or "NHWC",
                                 dilations=dilations if dilations is not None else [1, 1, 1, 1], name=name)
        return nn_conv3d.conv3d(inp, filter, strides, padding, data_format=data_format or "NDHWC",
                                dilations=dilations, name=name)
    return op


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None,  # noqa: A002
                data_format=None, filters=None, dilations=None):
    """TF's tf.nn.convolution (compat.v1) for 1, 2 or 3 spatial dims: conv1d (ExpandDims, Conv2D
    "convolution", Squeeze), Conv2D or Conv3D "convolution", or with a dilation rate above 1 the
    SpaceToBatchND / op / BatchToSpaceND of with_space_to_batch (Consts "dilation_rate" and, for
    SAME, "filter_shape" first). ValueError with TF's texts for other ranks and bad sequences."""
    if filters is not None:
        if filter is not None:
            raise ValueError("Cannot specify both 'filters' and 'filter'")
        filter = filters
    if dilations is not None:
        if dilation_rate is not None:
            raise ValueError("Cannot specify both 'dilations' and 'dilation_rate'")
        dilation_rate = dilations
    if not isinstance(filter, ops.Tensor):
        with ops.name_scope("convolution_internal", None, [filter, input]):
            filter = ops.convert_to_tensor(filter, name="filters")
    if not isinstance(input, ops.Tensor):
        with ops.name_scope("convolution_internal", None, [filter, input]):
            input = ops.convert_to_tensor(input, name="input")
    filters_rank, inputs_rank = filter.shape.ndims, input.shape.ndims
    if filters_rank:
        num_spatial_dims = filters_rank - 2
    elif inputs_rank:
        num_spatial_dims = inputs_rank - 2
    else:
        raise ValueError("When `num_spatial_dims` is not set, one of `input.shape.rank` or `filters.shape.rank` "
                         "must be statically known. Received: input.shape=%s of rank %s and filters.shape=%s of "
                         "rank %s" % (input.shape, inputs_rank, filter.shape, filters_rank))
    n = num_spatial_dims
    if n not in (1, 2, 3):
        raise ValueError("`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims=%d." % n)
    channel_index = 1 if data_format is not None and data_format.startswith("NC") else n + 1
    dilated = dilation_rate is not None
    dilation_rate = _sequence(dilation_rate, n, channel_index, "dilations")
    dilated = dilated and any(d != 1 for d in dilation_rate)
    strides = _sequence(strides, n, channel_index, "strides")
    with ops.name_scope(name, "convolution", [input, filter]) as name:
        op = _nd_op(n, filter, data_format, name)
        if not dilated:
            return op(input, strides, padding, dilation_rate)
        spatial = slice(2, n + 2) if channel_index == 1 else slice(1, n + 1)
        strides, rate = strides[spatial], dilation_rate[spatial]
        if any(r < 1 for r in rate):
            raise ValueError("all values of `dilation_rate` must be positive. Received: dilation_rate=%s"
                             % np.array(rate, np.int32))
        if any(s < 1 for s in strides):
            raise ValueError("all values of `strides` must be positive. Received: strides=%s"
                             % np.array(strides, np.int32))
        if any(s > 1 for s in strides) and any(r > 1 for r in rate):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             "strides=%s and dilation_rate=%s" % (np.array(strides), np.array(rate)))
        full = [1] + strides + [1] if channel_index != 1 else [1, 1] + strides

        def wrapped(converted, _, pad):
            return op(converted, full, pad, None)
        fshape = filter.shape.as_list() if filter.shape.is_fully_defined() else None
        return with_space_to_batch(input, np.array(rate, np.int32), padding, wrapped, filter_shape=fshape,
                                   data_format=data_format)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """TF's atrous_conv2d: convolution with dilation_rate [rate, rate]."""
    return convolution(input=value, filter=filters, padding=padding, dilation_rate=np.broadcast_to(rate, (2,)),
                       name=name)
