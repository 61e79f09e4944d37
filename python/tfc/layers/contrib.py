"""tf.contrib.layers' common layers, regularizers and initializers (TF 1.15's
contrib/layers/python/layers/layers.py, regularizers.py, initializers.py), graph mode.

fully_connected and conv2d are tf.layers' Dense and Conv2D in a variable scope of their own
("fully_connected", "Conv"; made unique as variable scopes are) whose getter renames the
variables to contrib's names ("<scope>/weights", "<scope>/biases") and puts them in
MODEL_VARIABLES too; the activation (relu by default) runs in that scope. A normalizer_fn
replaces the bias. max_pool2d and flatten run under a name scope ("MaxPool2D", "Flatten").
The weights and biases also join the `variables_collections` given, and the outputs the
`outputs_collections`. batch_norm (scope "BatchNorm"; decay 0.999, center, no scale, training
by default) is tf.layers.BatchNormalization with model variables, or, for 2-D inputs,
non-default updates_collections or zero_debias_moving_mean, contrib's own fused form (the
input reshaped to [N, 1, 1, C], FusedBatchNormV3, "AssignMovingAvg" updates put in
updates_collections, or run before the output when that is None). dropout, avg_pool2d and
linear are thin forms of the same. l2_regularizer is the C builder's (training_util); l1, sum
and apply_regularization are TF's Python. Errors are TF 1.15's texts.
"""
import math
import numbers

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.layers import base
from tfc.layers import convolutional
from tfc.layers import core
from tfc.layers import normalization
from tfc.ops import array_ops
from tfc.ops import init_ops
from tfc.ops import math_ops
from tfc.ops import nn_ops
from tfc.ops import random_ops
from tfc.ops import variable_scope as vs


# ---------------- initializers ----------------

def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=dtypes.float32):
    """contrib's He-style initializer: truncated normal of stddev sqrt(1.3 * factor / n), or
    uniform in +-sqrt(3 * factor / n), n the fan in, out or their mean (fans of a conv kernel
    multiplied by its spatial size)."""
    if not dtypes.as_dtype(dtype).is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]", mode)

    def _initializer(shape, dtype=dtype, partition_info=None):
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = list(shape)
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for d in shape[:-2]:
            fan_in *= float(d)
            fan_out *= float(d)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=seed)
        return random_ops.truncated_normal(shape, 0.0, math.sqrt(1.3 * factor / n), dtype, seed=seed)
    return _initializer


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """contrib's Glorot initializer: variance_scaling_initializer(1.0, "FAN_AVG", uniform)."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed, dtype=dtype)


xavier_initializer_conv2d = xavier_initializer


# ---------------- regularizers ----------------

def _check_scale(scale):
    if isinstance(scale, numbers.Integral):
        raise ValueError("scale cannot be an integer: %s" % (scale,))
    if isinstance(scale, numbers.Real):
        if scale < 0.:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g." % scale)
        return scale != 0.
    return True


def l1_regularizer(scale, scope=None):
    """weights -> scale * sum(|weights|) under "l1_regularizer" (None when scale is 0)."""
    if not _check_scale(scale):
        return lambda _: None

    def l1(weights, name=None):
        with ops.name_scope(scope, "l1_regularizer", [weights]) as name:
            my_scale = ops.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, math_ops.reduce_sum(math_ops.abs(weights)), name=name)
    return l1


def sum_regularizer(regularizer_list, scope=None):
    """weights -> AddN of the regularizers' results under "sum_regularizer"; None for none."""
    regularizer_list = [r for r in regularizer_list if r is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with ops.name_scope(scope, "sum_regularizer", [weights]) as name:
            tensors = [t for t in (r(weights) for r in regularizer_list) if t is not None]
            return math_ops.add_n(tensors, name=name) if tensors else None
    return sum_reg


def apply_regularization(regularizer, weights_list=None):
    """The sum of regularizer(w) over weights_list (default: the WEIGHTS collection), added to
    REGULARIZATION_LOSSES, as AddN "get_regularization_penalty"."""
    if not weights_list:
        weights_list = ops.get_collection(ops.GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with ops.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else constant_op.constant(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor with rank %d."
                                 % p.shape.ndims)
        summed = math_ops.add_n(penalties, name=scope)
        ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed


# ---------------- layers ----------------

_RENAME = {"kernel": "weights", "bias": "biases"}


def _model_variable_getter(getter, name, shape=None, dtype=None, initializer=None, regularizer=None,
                           trainable=True, collections=None, **kwargs):
    """contrib's layer_variable_getter: kernel/bias renamed weights/biases, and the variable a
    model variable (GLOBAL_VARIABLES and MODEL_VARIABLES, plus TRAINABLE when trainable)."""
    parts = name.split("/")
    if parts[-1] in _RENAME:
        parts[-1] = _RENAME[parts[-1]]
    collections = list(collections or []) + [ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES]
    return getter("/".join(parts), shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                  trainable=trainable, collections=collections, **kwargs)


def _add_to_collections(value, collections, key):
    if isinstance(collections, dict):
        collections = collections.get(key)
    if isinstance(collections, str):
        collections = [collections]
    for c in collections or []:
        ops.add_to_collection(c, value)


def _outputs(outputs_collections, alias, outputs):
    if outputs_collections:
        outputs.alias = alias
        ops.add_to_collections(outputs_collections, outputs)
    return outputs


def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=None, weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """contrib.layers.fully_connected: "fully_connected/weights" (xavier), "/biases" (zeros),
    relu by default."""
    if not isinstance(num_outputs, numbers.Integral):
        raise ValueError("num_outputs should be int or long, got %s." % (num_outputs,))
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse,
                           custom_getter=_model_variable_getter) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = core.Dense(units=num_outputs, activation=None,
                           use_bias=not normalizer_fn and biases_initializer is not None,
                           kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
                           kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
                           trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
                           _reuse=reuse)
        outputs = layer.apply(inputs)
        _add_to_collections(layer.kernel, variables_collections, "weights")
        if layer.bias is not None:
            _add_to_collections(layer.bias, variables_collections, "biases")
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _outputs(outputs_collections, sc.name, outputs)


def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
                  activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None, weights_initializer=None,
                  weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                  reuse=None, variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """contrib.layers.conv2d: "Conv/weights" (xavier), "Conv/biases" (zeros), SAME padding and
    relu by default; data_format "NHWC" (default) or "NCHW"."""
    if data_format not in (None, "NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse, custom_getter=_model_variable_getter) as sc:
        inputs = ops.convert_to_tensor(inputs)
        if inputs.shape.ndims is not None and inputs.shape.ndims != 4:
            raise ValueError("Convolution not supported for input with rank", inputs.shape.ndims)
        layer = convolutional.Conv2D(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format="channels_first" if data_format == "NCHW" else "channels_last", dilation_rate=rate,
            activation=None, use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer, trainable=trainable,
            name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc, _reuse=reuse)
        outputs = layer.apply(inputs)
        _add_to_collections(layer.kernel, variables_collections, "weights")
        if layer.bias is not None:
            _add_to_collections(layer.bias, variables_collections, "biases")
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _outputs(outputs_collections, sc.name, outputs)


def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """contrib.layers.max_pool2d: MaxPool "MaxPool2D/MaxPool", stride 2, VALID by default."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with ops.name_scope(scope, "MaxPool2D", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        fmt = "channels_first" if data_format == "NCHW" else "channels_last"
        pool = convolutional.normalize_tuple(kernel_size, 2, "pool_size")
        strides = convolutional.normalize_tuple(stride, 2, "strides")
        if fmt == "channels_last":
            ksize, st = [1] + list(pool) + [1], [1] + list(strides) + [1]
        else:
            ksize, st = [1, 1] + list(pool), [1, 1] + list(strides)
        outputs = nn_ops.max_pool(inputs, ksize=ksize, strides=st,
                                  padding=convolutional.normalize_padding(padding).upper(), data_format=data_format)
        return _outputs(outputs_collections, sc, outputs)


def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """contrib.layers.avg_pool2d: AvgPool "AvgPool2D/AvgPool", stride 2, VALID by default."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with ops.name_scope(scope, "AvgPool2D", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        pool = convolutional.normalize_tuple(kernel_size, 2, "pool_size")
        strides = convolutional.normalize_tuple(stride, 2, "strides")
        if data_format == "NHWC":
            ksize, st = [1] + list(pool) + [1], [1] + list(strides) + [1]
        else:
            ksize, st = [1, 1] + list(pool), [1, 1] + list(strides)
        outputs = nn_ops.avg_pool(inputs, ksize=ksize, strides=st,
                                  padding=convolutional.normalize_padding(padding).upper(), data_format=data_format)
        return _outputs(outputs_collections, sc, outputs)


def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """contrib.layers.dropout: tf.layers.Dropout(rate=1 - keep_prob) in scope "Dropout", training
    by default."""
    with vs.variable_scope(scope, "Dropout", [inputs], custom_getter=_model_variable_getter) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = core.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed, name=sc.name, _scope=sc)
        outputs = layer.apply(inputs, training=is_training)
        return _outputs(outputs_collections, sc.name, outputs)


def linear(inputs, num_outputs, **kwargs):
    """contrib.layers.linear: fully_connected without an activation."""
    kwargs["activation_fn"] = None
    return fully_connected(inputs, num_outputs, **kwargs)


def flatten(inputs, outputs_collections=None, scope=None):
    """contrib.layers.flatten: tf.layers.flatten under "Flatten" ("Flatten/flatten/Reshape")."""
    with ops.name_scope(scope, "Flatten", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        outputs = core.flatten(inputs)
        return _outputs(outputs_collections, sc, outputs)


def _model_variable(name, shape, initializer, regularizer=None, collections=None, trainable=True):
    """contrib.framework.model_variable: a get_variable in GLOBAL and MODEL_VARIABLES."""
    collections = list(collections or []) + [ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES]
    return vs.get_variable(name, shape=shape, dtype=dtypes.float32, initializer=initializer, regularizer=regularizer,
                           collections=collections, trainable=trainable)


def _collections_for(variables_collections, key):
    if isinstance(variables_collections, dict):
        variables_collections = variables_collections.get(key)
    if isinstance(variables_collections, str):
        variables_collections = [variables_collections]
    return list(variables_collections or [])


def _assign_moving_average(variable, value, decay, zero_debias):
    """moving_averages.assign_moving_average (zero_debias False): variable -= (variable - value)
    * (1 - decay), "AssignMovingAvg" colocated with the variable."""
    if zero_debias:
        raise NotImplementedError("contrib.layers.batch_norm: zero_debias_moving_mean is not supported by tfc")
    with ops.name_scope(None, "AssignMovingAvg", [variable, value, decay]) as scope:
        with ops.colocate_with(variable):
            decay = ops.convert_to_tensor(1.0 - decay, name="decay")
            if decay.dtype != variable.dtype.base_dtype:
                decay = math_ops.cast(decay, variable.dtype.base_dtype)
            from tfc.ops import variables as tf_variables
            return tf_variables.assign_sub(variable, (variable - value) * decay, name=scope)


def _fused_batch_norm(inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
                      param_regularizers, updates_collections, is_training, reuse, variables_collections,
                      outputs_collections, trainable, data_format, zero_debias_moving_mean, scope):
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        original_shape, original_inputs = inputs.shape, inputs
        rank = original_shape.ndims
        if rank is None:
            raise ValueError("Inputs %s has undefined rank" % inputs.name)
        if rank not in (2, 4):
            raise ValueError("Inputs %s has unsupported rank. Expected 2 or 4 but got %d" % (inputs.name, rank))
        if rank == 2:
            channels = original_shape.as_list()[-1]
            if channels is None:
                raise ValueError("`C` dimension must be known but is None")
            inputs = array_ops.reshape(inputs, [-1, channels, 1, 1] if data_format == "NCHW" else [-1, 1, 1, channels])
        inputs_shape = inputs.shape
        params_shape = inputs_shape[-1:] if data_format == "NHWC" else inputs_shape[1:2]
        if not params_shape.is_fully_defined():
            raise ValueError("Inputs %s has undefined `C` dimension %s." % (inputs.name, params_shape))
        inits, regs = param_initializers or {}, param_regularizers or {}
        if center:
            beta = _model_variable("beta", params_shape, inits.get("beta", init_ops.zeros_initializer()),
                                   regs.get("beta"), _collections_for(variables_collections, "beta"), trainable)
        else:
            beta = constant_op.constant(0.0, dtype=dtypes.float32, shape=params_shape.as_list())
        if scale:
            gamma = _model_variable("gamma", params_shape, inits.get("gamma", init_ops.ones_initializer()),
                                    regs.get("gamma"), _collections_for(variables_collections, "gamma"), trainable)
        else:
            gamma = constant_op.constant(1.0, dtype=dtypes.float32, shape=params_shape.as_list())
        moving_mean = _model_variable("moving_mean", params_shape,
                                      inits.get("moving_mean", init_ops.zeros_initializer()),
                                      collections=_collections_for(variables_collections, "moving_mean"),
                                      trainable=False)
        moving_variance = _model_variable("moving_variance", params_shape,
                                          inits.get("moving_variance", init_ops.ones_initializer()),
                                          collections=_collections_for(variables_collections, "moving_variance"),
                                          trainable=False)

        def train():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, epsilon=epsilon, data_format=data_format)

        def infer():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, mean=moving_mean, variance=moving_variance,
                                           epsilon=epsilon, is_training=False, data_format=data_format)
        outputs, mean, variance = base.smart_cond(is_training, train, infer)
        known = base.constant_value(is_training)
        if known is None or known:
            def updates():
                return (_assign_moving_average(moving_mean, mean, decay, zero_debias_moving_mean),
                        _assign_moving_average(moving_variance, variance, decay, False))
            if updates_collections is None:
                def force():
                    with ops.control_dependencies(list(updates())):
                        return array_ops.identity(outputs)
                outputs = base.smart_cond(is_training, force, lambda: outputs)
            else:
                um, uv = base.smart_cond(is_training, updates, lambda: (moving_mean, moving_variance))
                ops.add_to_collections(updates_collections, um)
                ops.add_to_collections(updates_collections, uv)
        outputs.set_shape(inputs_shape)
        if rank == 2:
            outputs = array_ops.reshape(outputs, array_ops.shape(original_inputs))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _outputs(outputs_collections, sc.name, outputs)


def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=ops.GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC", zero_debias_moving_mean=False, scope=None,
               renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """contrib.layers.batch_norm (see the module comment)."""
    if batch_weights is not None or renorm or adjustment is not None:
        raise NotImplementedError("contrib.layers.batch_norm: batch_weights, renorm and adjustment are not "
                                  "supported by tfc")
    if fused is None:
        fused = True
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if fused and rank in (2, 4) and (zero_debias_moving_mean or rank == 2
                                     or updates_collections is not ops.GraphKeys.UPDATE_OPS):
        return _fused_batch_norm(inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
                                 param_regularizers, updates_collections, is_training, reuse, variables_collections,
                                 outputs_collections, trainable, data_format, zero_debias_moving_mean, scope)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    if updates_collections is not ops.GraphKeys.UPDATE_OPS or zero_debias_moving_mean:
        raise NotImplementedError("contrib.layers.batch_norm: updates_collections other than UPDATE_OPS and "
                                  "zero_debias_moving_mean need a 2-D or 4-D input in tfc")
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse, custom_getter=_model_variable_getter) as sc:
        inits, regs = param_initializers or {}, param_regularizers or {}
        layer = normalization.BatchNormalization(
            axis=1 if data_format == "NCHW" else -1, momentum=decay, epsilon=epsilon, center=center, scale=scale,
            beta_initializer=inits.get("beta", init_ops.zeros_initializer()),
            gamma_initializer=inits.get("gamma", init_ops.ones_initializer()),
            moving_mean_initializer=inits.get("moving_mean", init_ops.zeros_initializer()),
            moving_variance_initializer=inits.get("moving_variance", init_ops.ones_initializer()),
            beta_regularizer=regs.get("beta"), gamma_regularizer=regs.get("gamma"), trainable=trainable,
            name=sc.name, _scope=sc, _reuse=reuse, fused=fused)
        outputs = layer.apply(inputs, training=is_training)
        _add_to_collections(layer.moving_mean, variables_collections, "moving_mean")
        _add_to_collections(layer.moving_variance, variables_collections, "moving_variance")
        if layer.beta is not None:
            _add_to_collections(layer.beta, variables_collections, "beta")
        if layer.gamma is not None:
            _add_to_collections(layer.gamma, variables_collections, "gamma")
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _outputs(outputs_collections, sc.name, outputs)


conv2d = convolution2d
