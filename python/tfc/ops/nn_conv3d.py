"""tf.nn's 3-D convolution and pooling as TF 1.x builds them (compat.v1, graph mode).

conv3d is one Conv3D node ("Conv3D" by default) with strides and dilations as given (5 values,
TF's conv3d_v1 passes them through); conv3d_transpose is Conv3DBackpropInputV2
"conv3d_transpose" whose input_sizes is output_shape (a Const "conv3d_transpose/input_sizes"
when given as a list); max_pool3d / avg_pool3d are one MaxPool3D / AvgPool3D under their scope
("MaxPool3D", "AvgPool3D"), ksize and strides an int, 3 or 5 values as TF's _get_sequence.
The ops, their shape functions and errors are the C library's (ops_conv3d.def); the wrappers
only normalise arguments, raising TF's ValueError texts for bad lengths.
"""
from tfc.framework import ops
from tfc.ops import gen


def _seq5(value, data_format, name):
    """TF's _get_sequence for 3 spatial dims: an int or 1 value -> every spatial dim, 3 values
    -> the spatial dims, 5 -> as given."""
    if value is None:
        return [1] * 5
    if isinstance(value, int):
        value = [value]
    value = list(value)
    if len(value) == 5:
        return value
    if len(value) == 1:
        value = value * 3
    elif len(value) != 3:
        raise ValueError("%s should be of length 1, 3 or 5. Received: %s=%s of length %d"
                         % (name, name, value, len(value)))
    return [1, 1] + value if data_format is not None and data_format.startswith("NC") else [1] + value + [1]


def _one_of(a, a_name, b, b_name):
    if b is not None:
        if a is not None:
            raise ValueError("Cannot specify both '%s' and '%s'" % (a_name, b_name))
        return b
    return a


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """tf.nn.conv3d (TF 1.x): Conv3D over input [N, D, H, W, C] and filter [kd, kh, kw, in, out]."""
    filter = _one_of(filter, "filter", filters, "filters")
    return gen.apply("Conv3D", name, input=input, filter=filter, strides=list(strides), padding=padding,
                     data_format=data_format, dilations=list(dilations if dilations is not None else [1] * 5))


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None):
    """tf.nn.conv3d_transpose: the gradient of Conv3D with respect to its input."""
    value = _one_of(value, "value", input, "input")
    filter = _one_of(filter, "filter", filters, "filters")
    with ops.name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as name:
        if data_format is None:
            data_format = "NDHWC"
        return gen.apply("Conv3DBackpropInputV2", name, input_sizes=output_shape, filter=filter, out_backprop=value,
                         strides=_seq5(strides, data_format, "strides"), padding=padding, data_format=data_format,
                         dilations=_seq5(dilations, data_format, "dilations"))


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):  # noqa: A002
    with ops.name_scope(name, op_type, [input]) as name:
        if data_format is None:
            data_format = "NDHWC"
        return gen.apply(op_type, name, input=input, ksize=_seq5(ksize, data_format, "ksize"),
                         strides=_seq5(strides, data_format, "strides"), padding=padding, data_format=data_format)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """tf.nn.max_pool3d: MaxPool3D "MaxPool3D"."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """tf.nn.avg_pool3d: AvgPool3D "AvgPool3D"."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)
