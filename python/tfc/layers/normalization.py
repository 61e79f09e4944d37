"""tf.layers.BatchNormalization and tf.layers.batch_normalization (TF 1.15's
layers/normalization.py over Keras' BatchNormalization V1), graph mode.

Variables, in TF's order and names: "<scope>/gamma" (ones; when scale), "<scope>/beta" (zeros;
when center), "<scope>/moving_mean" (zeros) and "<scope>/moving_variance" (ones), the last two
not trainable. The fused kernel (FusedBatchNormV3) is used, as TF 1.15 chooses it, for 4-D
inputs normalised over axis 1 (NCHW) or 3 (NHWC) unless fused=False; otherwise the layer computes
nn.moments and nn.batch_normalization. When training (True, or a tensor: then a tf.cond), the
batch statistics normalise and two updates, "<scope>/AssignMovingAvg" and "AssignMovingAvg_1"
(AssignSub of (moving - batch) * (1 - momentum), colocated with their variable), go to the
layer's updates and UPDATE_OPS; the caller runs them (the usual control_dependencies on
UPDATE_OPS). Not training, the moving statistics normalise and there is no update.
renorm, virtual_batch_size and adjustment are not supported (NotImplementedError).
"""
from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.layers import base
from tfc.ops import array_ops
from tfc.ops import init_ops
from tfc.ops import math_ops
from tfc.ops import nn_ops
from tfc.ops import variables as tf_variables


class BatchNormalization(base.Layer):
    """tf.layers.BatchNormalization (see the module comment)."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super(BatchNormalization, self).__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("tf.layers.BatchNormalization: renorm, virtual_batch_size and adjustment "
                                      "are not supported by tfc")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.fused = True if fused is None else fused
        if self.fused and not self._fused_axis_ok(self.axis):
            if fused:
                raise ValueError("Unsupported axis, fused batch norm only supports axis == [1] or axis == [3]")
            self.fused = False
        self.gamma = self.beta = self.moving_mean = self.moving_variance = None

    @staticmethod
    def _fused_axis_ok(axis):
        axis = [axis] if isinstance(axis, int) else axis
        return len(axis) == 1 and axis[0] in (-3, -1, 1, 3)

    def build(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)
        ndims = input_shape.ndims
        axis = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        for i, x in enumerate(axis):
            if x < 0:
                axis[i] = ndims + x
        for x in axis:
            if x < 0 or x >= ndims:
                raise ValueError("Invalid axis: %d" % x)
        if len(axis) != len(set(axis)):
            raise ValueError("Duplicate axis: %s" % axis)
        self.axis = axis
        self.fused = self.fused and ndims == 4 and self._fused_axis_ok(axis)
        if self.fused:
            self._data_format = "NCHW" if axis == [1] else "NHWC"
        dtype = self.dtype or dtypes.float32
        self._param_dtype = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
        dims = {x: tensor_shape.dimension_value(input_shape[x]) for x in axis}
        for d in dims.values():
            if d is None:
                raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        self.input_spec = base.InputSpec(ndim=ndims, axes=dims)
        if len(dims) == 1:
            param_shape = (list(dims.values())[0],)
        else:
            param_shape = [dims[i] if i in dims else 1 for i in range(ndims)]
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape, dtype=self._param_dtype,
                                         initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, trainable=True)
        elif self.fused:
            self._gamma_const = constant_op.constant(1.0, dtype=self._param_dtype, shape=param_shape)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape, dtype=self._param_dtype,
                                        initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, trainable=True)
        elif self.fused:
            self._beta_const = constant_op.constant(0.0, dtype=self._param_dtype, shape=param_shape)
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape, dtype=self._param_dtype,
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape, dtype=self._param_dtype,
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _assign_moving_average(self, variable, value, momentum):
        """variable -= (variable - value) * (1 - momentum), as "AssignMovingAvg" colocated with it."""
        with ops.name_scope("AssignMovingAvg") as scope:
            with ops.colocate_with(variable):
                decay = ops.convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = math_ops.cast(decay, variable.dtype.base_dtype)
                delta = (variable - math_ops.cast(value, variable.dtype)) * decay
                return tf_variables.assign_sub(variable, delta, name=scope)

    def _fused_batch_norm(self, inputs, training):
        beta = self.beta if self.center else self._beta_const
        gamma = self.gamma if self.scale else self._gamma_const

        def train():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon, data_format=self._data_format)

        def infer():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                                           epsilon=self.epsilon, is_training=False, data_format=self._data_format)
        output, mean, variance = base.smart_cond(training, train, infer)
        known = base.constant_value(training)
        if known is None:
            momentum = base.smart_cond(training, lambda: ops.convert_to_tensor(self.momentum),
                                       lambda: ops.convert_to_tensor(1.0))
        else:
            momentum = ops.convert_to_tensor(self.momentum)
        if known or known is None:
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(lambda: self._assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def call(self, inputs, training=False):
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = tensor_shape.dimension_value(input_shape[self.axis[0]])

        def bcast(v):
            if v is not None and v.shape.ndims != ndims and reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v
        scale, offset = bcast(self.gamma), bcast(self.beta)
        known = base.constant_value(training)
        if known is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            mean, variance = nn_ops.moments(math_ops.cast(inputs, self._param_dtype), reduction_axes,
                                            keep_dims=keep_dims)
            batch_mean, batch_variance = mean, variance
            mean = base.smart_cond(training, lambda: batch_mean, lambda: ops.convert_to_tensor(self.moving_mean))
            variance = base.smart_cond(training, lambda: batch_variance,
                                       lambda: ops.convert_to_tensor(self.moving_variance))
            new_mean, new_variance = mean, variance
            self.add_update(lambda: base.smart_cond(
                training, lambda: self._assign_moving_average(self.moving_mean, new_mean, self.momentum),
                lambda: self.moving_mean))
            self.add_update(lambda: base.smart_cond(
                training, lambda: self._assign_moving_average(self.moving_variance, new_variance, self.momentum),
                lambda: self.moving_variance))
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = math_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = math_ops.cast(scale, inputs.dtype)
        outputs = nn_ops.batch_normalization(inputs, bcast(mean), bcast(variance), offset, scale, self.epsilon)
        outputs.set_shape(input_shape)
        return outputs


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """tf.layers.batch_normalization (see the module comment; `training` defaults to False)."""
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)


BatchNorm = BatchNormalization
