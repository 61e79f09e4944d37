"""tf.layers' 2-D and 3-D convolution and pooling (TF 1.15's layers/convolutional.py and
pooling.py over Keras' Conv2D/Conv3D, MaxPooling2D/3D, AveragePooling2D/3D) and their functions
conv2d / conv3d / max_pooling2d / max_pooling3d / average_pooling2d / average_pooling3d, graph
mode.

Conv2D (Conv3D) makes "<scope>/kernel" [kh, kw, in, filters] ([kd, kh, kw, in, filters];
glorot_uniform unless given) and "<scope>/bias" [filters] (zeros) and computes Conv2D (Conv3D),
BiasAdd and the activation under the layer's name scope (Conv3D's dilation_rate through
SpaceToBatchND / BatchToSpaceND under "Conv3D", as Keras builds it; a channels_first Conv3D adds its bias
to a 4-D Reshape of the output, as Keras does); the pooling layers are one MaxPool / AvgPool
(MaxPool3D / AvgPool3D). Arguments are normalised as Keras does (an int kernel_size or stride
for every axis; padding "valid"/"same" in any case; data_format "channels_last" (NHWC, NDHWC)
or "channels_first" (NCHW, NCDHW)). Errors are TF 1.15's texts.
"""
from tfc.framework import tensor_shape
from tfc.layers import base
from tfc.layers import core
from tfc.ops import array_ops
from tfc.ops import init_ops
from tfc.ops import nn_atrous
from tfc.ops import nn_conv3d
from tfc.ops import nn_ops


def normalize_tuple(value, n, name):
    """Keras' conv_utils.normalize_tuple: an int for every axis, or n ints."""
    if isinstance(value, int):
        return (value,) * n
    try:
        t = tuple(value)
    except TypeError:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s" % (name, n, value))
    if len(t) != n or not all(isinstance(x, int) for x in t):
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s" % (name, n, value))
    return t


def normalize_padding(value):
    padding = value.lower() if isinstance(value, str) else value
    if padding not in ("valid", "same", "causal"):
        raise ValueError('The `padding` argument must be one of "valid", "same" (or "causal", only for '
                         '`Conv1D). Received: ' + str(padding))
    return padding


def _nhwc(data_format, rank=2):
    if rank == 3:
        return "NDHWC" if data_format == "channels_last" else "NCDHW"
    return "NHWC" if data_format == "channels_last" else "NCHW"


class _Conv(base.Layer):
    """Keras' Conv for rank 2 and 3: activation(convolution(inputs, kernel) + bias)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super(_Conv, self).__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer,
                                    **kwargs)
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        if self.padding == "causal":
            raise ValueError("Causal padding is only supported for `Conv1D` and ``SeparableConv1D`.")
        self.data_format = core._data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = core.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = core.get_initializer(kernel_initializer)
        self.bias_initializer = core.get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = base.InputSpec(ndim=rank + 2)
        self.kernel = self.bias = None

    def build(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        axis = 1 if self.data_format == "channels_first" else -1
        dim = None if input_shape.ndims is None else tensor_shape.dimension_value(input_shape[axis])
        if dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (int(dim), self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self.dtype)
        self.input_spec = base.InputSpec(ndim=self.rank + 2, axes={axis: int(dim)})
        self.built = True

    def call(self, inputs):
        fmt = _nhwc(self.data_format, self.rank)
        first = self.data_format == "channels_first"
        strides = [1, 1] + list(self.strides) if first else [1] + list(self.strides) + [1]
        dil = [1, 1] + list(self.dilation_rate) if first else [1] + list(self.dilation_rate) + [1]
        if self.rank == 2:
            outputs = nn_ops.conv2d(inputs, self.kernel, strides=strides, padding=self.padding.upper(),
                                    data_format=fmt, dilations=dil)
        else:  # Keras' nn_ops.Convolution: a dilation through SpaceToBatchND, all under "Conv3D"
            outputs = nn_atrous.convolution(inputs, self.kernel, self.padding.upper(), strides=strides,
                                            dilation_rate=list(self.dilation_rate), name="Conv3D", data_format=fmt)
        if self.use_bias:
            if first and self.rank == 3:  # Keras: a bias over NCDHW through a 4-D NCHW view
                shape = outputs.shape.as_list()
                if shape[0] is None:
                    shape[0] = -1
                outputs_4d = array_ops.reshape(outputs, [shape[0], shape[1], shape[2] * shape[3], shape[4]])
                outputs_4d = nn_ops.bias_add(outputs_4d, self.bias, data_format="NCHW")
                outputs = array_ops.reshape(outputs_4d, shape)
            else:
                outputs = nn_ops.bias_add(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class Conv2D(_Conv):
    """tf.layers.Conv2D."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1), **kwargs):
        super(Conv2D, self).__init__(2, filters, kernel_size, strides=strides, padding=padding,
                                     data_format=data_format, dilation_rate=dilation_rate, **kwargs)


class Conv3D(_Conv):
    """tf.layers.Conv3D."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1, 1), **kwargs):
        super(Conv3D, self).__init__(3, filters, kernel_size, strides=strides, padding=padding,
                                     data_format=data_format, dilation_rate=dilation_rate, **kwargs)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """tf.layers.conv2d (variables "conv2d/kernel", "conv2d/bias")."""
    layer = Conv2D(filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """tf.layers.conv3d (variables "conv3d/kernel", "conv3d/bias")."""
    layer = Conv3D(filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


class _Pooling2D(base.Layer):
    _pool = None
    _rank = 2

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super(_Pooling2D, self).__init__(name=name, **kwargs)
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else pool_size, self._rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = core._data_format(data_format)
        self.input_spec = base.InputSpec(ndim=self._rank + 2)

    def call(self, inputs):
        if self.data_format == "channels_last":
            ksize, strides = (1,) + self.pool_size + (1,), (1,) + self.strides + (1,)
        else:
            ksize, strides = (1, 1) + self.pool_size, (1, 1) + self.strides
        return type(self)._pool(inputs, ksize=list(ksize), strides=list(strides), padding=self.padding.upper(),
                                data_format=_nhwc(self.data_format, self._rank))


class MaxPooling2D(_Pooling2D):
    """tf.layers.MaxPooling2D."""
    _pool = staticmethod(nn_ops.max_pool)


class AveragePooling2D(_Pooling2D):
    """tf.layers.AveragePooling2D."""
    _pool = staticmethod(nn_ops.avg_pool)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """tf.layers.max_pooling2d."""
    return MaxPooling2D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                        name=name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """tf.layers.average_pooling2d."""
    return AveragePooling2D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                            name=name).apply(inputs)


class MaxPooling3D(_Pooling2D):
    """tf.layers.MaxPooling3D."""
    _pool = staticmethod(nn_conv3d.max_pool3d)
    _rank = 3


class AveragePooling3D(_Pooling2D):
    """tf.layers.AveragePooling3D."""
    _pool = staticmethod(nn_conv3d.avg_pool3d)
    _rank = 3


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """tf.layers.max_pooling3d."""
    return MaxPooling3D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                        name=name).apply(inputs)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """tf.layers.average_pooling3d."""
    return AveragePooling3D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                            name=name).apply(inputs)


Convolution2D = Conv2D
Convolution3D = Conv3D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
