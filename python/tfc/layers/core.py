"""tf.layers' core layers (TF 1.15's layers/core.py over Keras' Dense, Dropout, Flatten) and
their functions dense / dropout / flatten, graph mode.

Graphs as TF 1.15 builds them: Dense makes "<scope>/kernel" (glorot_uniform unless given) and
"<scope>/bias" (zeros) and computes MatMul (Tensordot for inputs of rank > 2), BiasAdd and the
activation under the layer's name scope; Dropout is an Identity when not training and
tf.nn.dropout (under "dropout") when training, a tf.cond when `training` is a tensor; Flatten
reshapes to (batch, -1) with the batch from the static shape or Shape/strided_slice. Errors are
TF 1.15's ValueError texts.
"""
from tfc.framework import dtypes
from tfc.framework import tensor_shape
from tfc.layers import base
from tfc.ops import array_ops
from tfc.ops import init_ops
from tfc.ops import math_ops
from tfc.ops import nn_ops

_ACTIVATIONS = {"relu": nn_ops.relu, "tanh": math_ops.tanh, "sigmoid": math_ops.sigmoid,
                "softmax": nn_ops.softmax, "linear": None}


def get_activation(activation):
    """A callable, None, or one of Keras' names ("relu", "tanh", "sigmoid", "softmax", "linear")."""
    if activation is None or callable(activation):
        return activation
    if isinstance(activation, str) and activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError("Unknown activation function:" + str(activation))


def get_initializer(init):
    if isinstance(init, type):
        return init()
    if isinstance(init, str):
        return {"zeros": init_ops.Zeros, "ones": init_ops.Ones, "glorot_uniform": init_ops.GlorotUniform,
                "glorot_normal": init_ops.GlorotNormal}[init]()
    return init


class Dense(base.Layer):
    """tf.layers.Dense: outputs = activation(inputs @ kernel + bias)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super(Dense, self).__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer,
                                    **kwargs)
        self.units = int(units)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = base.InputSpec(min_ndim=2)
        self.kernel = self.bias = None

    def build(self, input_shape):
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError("Unable to build `Dense` layer with non-floating point dtype %s" % (dtype,))
        input_shape = tensor_shape.TensorShape(input_shape)
        if input_shape.ndims is not None and input_shape.ndims < 2:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: : expected min_ndim=2, found "
                             "ndim=%d. Full shape received: %s" % (self.name, input_shape.ndims,
                                                                  input_shape.as_list()))
        last = None if input_shape.ndims is None else tensor_shape.dimension_value(input_shape[-1])
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.input_spec = base.InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight("kernel", shape=[last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self.dtype, trainable=True)
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            outputs = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        else:
            inputs = math_ops.cast(inputs, self.dtype)
            outputs = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        return tensor_shape.TensorShape(input_shape.as_list()[:-1] + [self.units])


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
          reuse=None):
    """tf.layers.dense: a Dense layer applied to inputs (variables "dense/kernel", "dense/bias")."""
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class Dropout(base.Layer):
    """tf.layers.Dropout: tf.nn.dropout(rate) when training, else an Identity."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super(Dropout, self).__init__(name=name, **kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs, training=False):
        def dropped():
            return nn_ops.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=self.rate)
        return base.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return tensor_shape.TensorShape(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """tf.layers.dropout (note: `rate` is the fraction dropped; training defaults to False)."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


class Flatten(base.Layer):
    """tf.layers.Flatten: (batch, ...) -> (batch, -1)."""

    def __init__(self, data_format=None, **kwargs):
        super(Flatten, self).__init__(**kwargs)
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        ndims = inputs.shape.ndims
        if self.data_format == "channels_first" and ndims is not None and ndims > 1:
            inputs = array_ops.transpose(inputs, perm=[0] + list(range(2, ndims)) + [1])
        batch = None if ndims is None or ndims == 0 else tensor_shape.dimension_value(inputs.shape[0])
        outputs = array_ops.reshape(inputs, (batch or array_ops.shape(inputs)[0], -1))
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        s = tensor_shape.TensorShape(input_shape)
        if s.ndims is None:
            return tensor_shape.TensorShape([None, None])
        dims = s.as_list()
        rest = None if not dims[1:] or any(d is None for d in dims[1:]) else int(_prod(dims[1:]))
        if not dims[1:]:
            rest = 1
        return tensor_shape.TensorShape([dims[0] if dims else None, rest])


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _data_format(value):
    if value is None:
        return "channels_last"
    v = value.lower()
    if v not in ("channels_first", "channels_last"):
        raise ValueError('The `data_format` argument must be one of "channels_first", "channels_last". '
                         'Received: ' + str(value))
    return v


def flatten(inputs, name=None, data_format="channels_last"):
    """tf.layers.flatten."""
    layer = Flatten(name=name, data_format=data_format)
    return layer.apply(inputs)

