"""tf.nn functions with TF 1.x signatures (nn_ops.py, nn_impl.py, embedding_ops.py).

Each builds the graph TF 1.15's Python builds: the same name scopes ("moments/mean",
"dropout/random_uniform", "batchnorm/Rsqrt", "logistic_loss", ...), op types and error texts.
Everything goes through gen.apply and the math/array functions; no graph logic here is
duplicated in the C builders (include/tfc/ has none of these functions).

embedding_lookup's max_norm is not supported.
"""
import numbers

import numpy as np

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops


# ---------------- activations ----------------

def relu(features, name=None):
    return gen.apply("Relu", name, features=features)


def _scoped_activation(op_type, py_name):
    def fn(features, name=None):
        with ops.name_scope(name, op_type, [features]) as name:
            features = ops.convert_to_tensor(features, name="features")
            return gen.apply(op_type, name, features=features)
    fn.__name__ = fn.__qualname__ = py_name
    return fn


def _plain_activation(op_type, py_name):
    def fn(features, name=None):
        return gen.apply(op_type, name, features=features)
    fn.__name__ = fn.__qualname__ = py_name
    return fn


relu6 = _scoped_activation("Relu6", "relu6")
elu = _plain_activation("Elu", "elu")
selu = _plain_activation("Selu", "selu")
softplus = _plain_activation("Softplus", "softplus")
softsign = _plain_activation("Softsign", "softsign")
sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def leaky_relu(features, alpha=0.2, name=None):
    with ops.name_scope(name, "LeakyRelu", [features, alpha]) as name:
        features = ops.convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return gen.apply("LeakyRelu", name, features=features, alpha=float(alpha))


def bias_add(value, bias, data_format=None, name=None):
    with ops.name_scope(name, "BiasAdd", [value, bias]) as name:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("data_format must be of the form `N...C` or `NC...`")
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return gen.apply("BiasAdd", name, value=value, bias=bias, data_format=data_format)


def xw_plus_b(x, weights, biases, name=None):
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]) as name:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, name="weights")
        biases = ops.convert_to_tensor(biases, name="biases")
        mm = math_ops.matmul(x, weights)
        return bias_add(mm, biases, name=name)


def relu_layer(x, weights, biases, name=None):
    with ops.name_scope(name, "relu_layer", [x, weights, biases]) as name:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, name="weights")
        biases = ops.convert_to_tensor(biases, name="biases")
        xw_plus_b_ = bias_add(math_ops.matmul(x, weights), biases)
        return relu(xw_plus_b_, name=name)


# ---------------- softmax ----------------

def _axis_arg(axis, dim, default):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        axis = dim
    return default if axis is None else axis


def _swap_axis(logits, dim_index, last_index, name=None):
    return array_ops.transpose(logits, array_ops.concat(
        [math_ops_range(dim_index), [last_index], math_ops_range(dim_index + 1, last_index), [dim_index]], 0),
        name=name)


def math_ops_range(start, limit=None):
    return array_ops.range(start, limit)


def _softmax(logits, op_type, dim, name):
    """op_type over the last axis; another axis is swapped to the end (Transpose of a Concat of
    Ranges) and back, as TF's _softmax does."""
    logits = ops.convert_to_tensor(logits)
    shape = logits.shape
    if dim == -1 or dim == shape.ndims - 1:
        return gen.apply(op_type, name, logits=logits)
    if shape.ndims is not None and not -shape.ndims <= dim < shape.ndims:
        raise errors.InvalidArgumentError(
            None, None, "Dimension (%d) must be in the range [%d, %d) where %d is the number of dimensions "
            "in the input." % (dim, -shape.ndims, shape.ndims, shape.ndims))
    ndims = array_ops.rank(logits)
    if dim < 0:
        dim += ndims
    input_rank = array_ops.rank(logits)
    dim_axis = dim % shape.ndims
    logits = _swap_axis(logits, dim_axis, math_ops.subtract(input_rank, 1))
    output = gen.apply(op_type, None, logits=logits)
    output = _swap_axis(output, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    output.set_shape(shape)
    return output


def softmax(logits, axis=None, name=None, dim=None):
    return _softmax(logits, "Softmax", _axis_arg(axis, dim, -1), name)


def log_softmax(logits, axis=None, name=None, dim=None):
    return _softmax(logits, "LogSoftmax", _axis_arg(axis, dim, -1), name)


# ---------------- losses ----------------

def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)" % name)
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def l2_loss(t, name=None):
    return gen.apply("L2Loss", name, t=t)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    with ops.name_scope(name, "l2_normalize", [x]) as name:
        axis = _axis_arg(axis, dim, None)
        x = ops.convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = ops.convert_to_tensor(labels)
        logits = ops.convert_to_tensor(logits)
        precise = math_ops.cast(logits, dtypes.float32) if logits.dtype == dtypes.float16 else logits
        labels_static = labels.shape
        labels_shape = array_ops.shape(labels)
        lshape = logits.shape
        if lshape.ndims is not None and lshape.ndims == 0:
            raise ValueError("Logits cannot be scalars - received shape %s." % lshape)
        if lshape.ndims is not None and labels_static.ndims is not None and \
                labels_static.ndims != lshape.ndims - 1:
            raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of logits minus 1 "
                             "(received %s)." % (labels_static.ndims, lshape.ndims))
        if lshape.ndims is not None and labels_static.is_fully_defined() and \
                tensor_shape.TensorShape(lshape.dims[:-1]).is_fully_defined() and \
                labels_static.as_list() != lshape.as_list()[:-1]:
            raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the shape of logits "
                             "except for the last dimension (received %s)." % (labels_static, lshape))
        if lshape.ndims == 2:
            cost, _ = gen.apply("SparseSoftmaxCrossEntropyWithLogits", name, features=precise, labels=labels)
            return math_ops.cast(cost, dtypes.float16) if logits.dtype == dtypes.float16 else cost
        num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
        precise = array_ops.reshape(precise, [-1, num_classes])
        labels = array_ops.reshape(labels, [-1])
        cost, _ = gen.apply("SparseSoftmaxCrossEntropyWithLogits", name, features=precise, labels=labels)
        cost = array_ops.reshape(cost, labels_shape)
        cost.set_shape(labels_static)
        return math_ops.cast(cost, dtypes.float16) if logits.dtype == dtypes.float16 else cost


def _flatten_outer_dims(logits):
    r = array_ops.rank(logits)
    last_dim_size = array_ops.slice(array_ops.shape(logits), [math_ops.subtract(r, 1)], [1])
    output = array_ops.reshape(logits, array_ops.concat([[-1], last_dim_size], 0))
    s = logits.shape
    if s.ndims is not None:
        dims = s.as_list()
        if all(d is not None for d in dims[:-1]):
            output.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return output


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    axis = _axis_arg(axis, dim, -1)
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as name:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        to_f32 = logits.dtype in (dtypes.float16, dtypes.bfloat16)
        precise = math_ops.cast(logits, dtypes.float32) if to_f32 else logits
        labels = math_ops.cast(labels, precise.dtype)
        input_rank = array_ops.rank(precise)
        shape = logits.shape
        if axis != -1:
            def _move_dim_to_end(tensor, dim_index, rk):
                return array_ops.transpose(tensor, array_ops.concat(
                    [array_ops.range(dim_index), array_ops.range(dim_index + 1, rk), [dim_index]], 0))
            precise = _move_dim_to_end(precise, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = array_ops.shape(precise)
        precise = _flatten_outer_dims(precise)
        labels = _flatten_outer_dims(labels)
        cost, _ = gen.apply("SoftmaxCrossEntropyWithLogits", name, features=precise, labels=labels)
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.ndims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, logits.dtype) if to_f32 else cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF 1.x's deprecated form: labels pass through StopGradient
    ("softmax_cross_entropy_with_logits_sg/labels_stop_gradient") first."""
    if axis is not None:
        if dim != -1:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        dim = axis
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as name:
        labels = gen.apply("StopGradient", "labels_stop_gradient", input=labels)
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=name)


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        try:
            labels.shape.merge_with(logits.shape)
        except ValueError:
            raise ValueError("logits and labels must have the same shape (%s vs %s)" % (logits.shape, labels.shape))
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = array_ops.where(cond, logits, zeros)
        neg_abs_logits = array_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=name)


def weighted_cross_entropy_with_logits(targets, logits, pos_weight, name=None):
    with ops.name_scope(name, "logistic_loss", [logits, targets]) as name:
        logits = ops.convert_to_tensor(logits, name="logits")
        targets = ops.convert_to_tensor(targets, name="targets")
        try:
            targets.shape.merge_with(logits.shape)
        except ValueError:
            raise ValueError("logits and targets must have the same shape (%s vs %s)"
                             % (logits.shape, targets.shape))
        log_weight = 1 + (pos_weight - 1) * targets
        return math_ops.add(
            (1 - targets) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + relu(-logits)), name=name)


# ---------------- evaluation ----------------

def in_top_k(predictions, targets, k, name=None):
    with ops.name_scope(name, "in_top_k"):
        return gen.apply("InTopKV2", name, predictions=predictions, targets=targets, k=k)


def lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """Local response normalization over the last axis (the LRN op)."""
    return gen.apply("LRN", name, input=input, depth_radius=depth_radius, bias=float(bias), alpha=float(alpha),
                     beta=float(beta))


local_response_normalization = lrn


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 (TF's names)
    """(values, indices) of the k largest entries of each last-axis row (TopKV2)."""
    return gen.apply("TopKV2", name, input=input, k=k, sorted=sorted)


# ---------------- statistics and normalization ----------------

def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) over axes under "moments": Mean "mean", StopGradient, SquaredDifference,
    Mean "variance", then Squeeze of each unless keepdims (float16 computed in float32)."""
    keepdims = math_ops._keep(keepdims, keep_dims)
    with ops.name_scope(name, "moments", [x, axes]):
        x = ops.convert_to_tensor(x)
        y = math_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes, keepdims=True, name="variance")
        if not keepdims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None):
    """FusedBatchNormV3; returns (y, batch_mean, batch_variance). epsilon is raised to cuDNN's
    minimum 1.001e-5 as TF does."""
    x = ops.convert_to_tensor(x, name="input")
    scale = ops.convert_to_tensor(scale, name="scale")
    offset = ops.convert_to_tensor(offset, name="offset")
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training is False.")
    if mean is None:
        mean = constant_op.constant([])
    if variance is None:
        variance = constant_op.constant([])
    epsilon = epsilon if epsilon > 1.001e-5 else 1.001e-5
    y, batch_mean, batch_var, _, _, _ = gen.apply(
        "FusedBatchNormV3", name, x=x, scale=scale, offset=offset, mean=mean, variance=variance,
        epsilon=float(epsilon), data_format=data_format, is_training=is_training)
    return y, batch_mean, batch_var


# ---------------- convolution and pooling ----------------

def _list4(v, n, data_format, name):
    """An int or a list of 1, 2 or 4 ints as the op's 4-element list (TF's _get_sequence)."""
    if isinstance(v, (int, np.integer)):
        v = [int(v)]
    v = list(v)
    if len(v) == 4:
        return v
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        raise ValueError("%s should be of length 1, %d or 4 but was %d" % (name, n, len(v)))
    return [1] + v + [1] if data_format is None or not data_format.startswith("NC") else [1, 1] + v


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    if filters is not None:
        if filter is not None:
            raise ValueError("Cannot specify both 'filter' and 'filters'")
        filter = filters
    strides = _list4(strides, 2, data_format, "strides")
    dilations = _list4(dilations, 2, data_format, "dilations")
    explicit = []
    if not isinstance(padding, (str, bytes)):
        pads = [list(p) for p in padding]
        if len(pads) != 4:
            raise ValueError("When padding is a list, it must be of length 4. Got padding of length: %d"
                             % len(pads))
        explicit = [int(v) for p in pads for v in p]
        padding = "EXPLICIT"
    return gen.apply("Conv2D", name, input=input, filter=filter, strides=strides, padding=padding,
                     use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit, data_format=data_format,
                     dilations=dilations)


def _pool(op_type, arg, value, ksize, strides, padding, data_format, name, input):  # noqa: A002
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'value' and 'input'")
        value = input
    with ops.name_scope(name, op_type, [value]) as name:
        value = ops.convert_to_tensor(value, name="input")
        ksize = _list4(ksize, 2, data_format, "ksize")
        strides = _list4(strides, 2, data_format, "strides")
        return gen.apply(op_type, name, **{arg: value, "ksize": ksize, "strides": strides, "padding": padding,
                                          "data_format": data_format})


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    return _pool("MaxPool", "input", value, ksize, strides, padding, data_format, name, input)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    return _pool("AvgPool", "value", value, ksize, strides, padding, data_format, name, input)


# ---------------- dropout ----------------

def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return array_ops.shape(x)
    try:
        ns = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.ndims is not None and len(x.shape.dims) == len(ns.dims):
        new = []
        for xd, nd in zip(x.shape.as_list(), ns.as_list()):
            new.append(xd if nd is None and xd is not None else nd)
        return tensor_shape.TensorShape(new)
    return noise_shape


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """TF 1.15's dropout: keep_prob (or rate) kept entries scaled by 1/keep_prob, under
    "dropout": rate Const, noise shape, random_uniform, sub, truediv, GreaterEqual, mul, Cast,
    mul_1 (x * scale * cast(mask))."""
    try:
        keep = 1. - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError("keep_prob must be a floating point number or Tensor (got %r)" % (keep_prob,))
    if keep is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'keep_prob' and 'rate'")
        rate = keep
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    from tfc.ops import random_ops
    with ops.name_scope(name, "dropout", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be scaled. Got a %s "
                             "tensor instead." % x.dtype)
        if isinstance(rate, numbers.Real):
            if not (0 <= rate < 1):
                raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), got %g" % rate)
            if rate == 0:
                return x
        rate = ops.convert_to_tensor(rate, dtype=x.dtype, name="rate")
        rate.shape.assert_is_compatible_with(tensor_shape.TensorShape([]))
        noise_shape = _noise_shape(x, noise_shape)
        random_tensor = random_ops.random_uniform(noise_shape, seed=seed, dtype=x.dtype)
        keep_prob = 1 - rate
        scale = 1 / keep_prob
        keep_mask = random_tensor >= rate
        ret = x * scale * math_ops.cast(keep_mask, x.dtype)
        ret.set_shape(x.shape)
        return ret


# ---------------- embeddings ----------------

def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of params (a tensor, or a list of partitions of one) for ids, under
    "embedding_lookup". One partition: GatherV2 and an Identity. Several: ids assigned to
    partitions by `partition_strategy` ("mod": id % n; "div": contiguous ranges), DynamicPartition
    of the ids and their positions, one GatherV2 per partition, ParallelDynamicStitch, and a
    Reshape to ids.shape + the row shape. max_norm is not supported."""
    if params is None or (isinstance(params, (list, tuple)) and not params):
        raise ValueError("Need at least one param")
    if not isinstance(params, (list, tuple)):
        params = [params]
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup with max_norm is not supported")
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    with ops.name_scope(name, "embedding_lookup", list(params) + [ids]) as name:
        n = len(params)
        params = [ops.convert_to_tensor(p) for p in params]
        ids = ops.convert_to_tensor(ids, name="ids")
        if n == 1:
            return array_ops.identity(array_ops.gather(params[0], ids, name=name))
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = array_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":
            p_assignments = flat_ids % n
            new_ids = flat_ids // n
        else:
            total = 0
            for p in params:
                d = p.shape.as_list()[0] if p.shape.ndims else None
                if d is None:
                    raise NotImplementedError("embedding_lookup 'div' over partitions of unknown size is not supported")
                total += d
            num_total_ids = constant_op.constant(total, flat_ids.dtype)
            ids_per_partition = num_total_ids // n
            extras = num_total_ids % n
            p_assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1),
                                             (flat_ids - extras) // ids_per_partition)
            new_ids = array_ops.where(p_assignments < extras, flat_ids % (ids_per_partition + 1),
                                      (flat_ids - extras) % ids_per_partition)
        p_assignments = math_ops.cast(p_assignments, dtypes.int32)
        gather_ids = array_ops.dynamic_partition(new_ids, p_assignments, n)
        pindices = array_ops.dynamic_partition(original_indices, p_assignments, n)
        partitioned = [array_ops.gather(params[p], gather_ids[p]) for p in range(n)]
        ret = array_ops.parallel_dynamic_stitch(pindices, partitioned, name=name)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        if element_shape.is_fully_defined():
            element_shape_d = element_shape.as_list()
        else:
            element_shape_d = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d], 0))
        ret.set_shape(ids.shape.concatenate(element_shape))
        return ret


# ---------------- conv1d, conv2d_transpose, swish, zero_fraction (TF 1.x nn) ----------------

def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None,
           name=None, input=None, dilations=None):  # noqa: A002
    """Conv2D over value and filters with a unit axis inserted (ExpandDims, Conv2D "conv1d",
    Squeeze), as TF's conv1d."""
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'value' and 'input'")
        value = input
    with ops.name_scope(name, "conv1d", [value, filters]) as name:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start_dim, channel_first = "NHWC", 1, False
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start_dim, channel_first = "NCHW", 2, True
        else:
            raise ValueError('data_format must be "NWC" or "NCW".')

        def seq(v, what):
            v = 1 if v is None else v
            v = [v] if isinstance(v, int) else list(v)
            if len(v) == 1:
                return [1, 1] + v if channel_first else [1] + v + [1]
            if len(v) == 3:
                return v
            raise ValueError("%s should be of length 1 or 3. Received: %s=%s of length %d"
                             % (what, what, v, len(v)))
        strides = [1] + seq(stride, "stride")
        dil = [1] + seq(dilations, "dilations")
        value = array_ops.expand_dims(value, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        result = gen.apply("Conv2D", name, input=value, filter=filters, strides=strides, padding=padding,
                           use_cudnn_on_gpu=True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
                           data_format=data_format, dilations=dil)
        return array_ops.squeeze(result, [spatial_start_dim])


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):
    """The gradient of Conv2D with respect to its input (Conv2DBackpropInput
    "conv2d_transpose", its input_sizes a Const "conv2d_transpose/input_sizes")."""
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'value' and 'input'")
        value = input
    if filters is not None:
        if filter is not None:
            raise ValueError("Cannot specify both 'filter' and 'filters'")
        filter = filters
    with ops.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as name:
        if data_format is None:
            data_format = "NHWC"
        strides = _list4(strides, 2, data_format, "strides")
        dilations = _list4(dilations if dilations is not None else 1, 2, data_format, "dilations")
        return gen.apply("Conv2DBackpropInput", name, input_sizes=output_shape, filter=filter, out_backprop=value,
                         strides=strides, padding=padding, data_format=data_format, dilations=dilations)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=None, name=None, filters=None):
    """TF 1.x's tf.nn.conv2d_backprop_input: the raw Conv2DBackpropInput (default name
    "Conv2DBackpropInput", a list input_sizes a Const "<name>/input_sizes")."""
    if filters is not None:
        if filter is not None:
            raise ValueError("Cannot specify both 'filter' and 'filters'")
        filter = filters
    data_format = data_format or "NHWC"
    with ops.name_scope(name, "Conv2DBackpropInput", [input_sizes, filter, out_backprop]) as name:
        return gen.apply("Conv2DBackpropInput", name, input_sizes=input_sizes, filter=filter, out_backprop=out_backprop,
                         strides=_list4(strides, 2, data_format, "strides"), padding=padding,
                         use_cudnn_on_gpu=use_cudnn_on_gpu, data_format=data_format,
                         dilations=_list4(dilations if dilations is not None else 1, 2, data_format, "dilations"))


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=None, name=None):
    """TF 1.x's tf.nn.conv2d_backprop_filter: the raw Conv2DBackpropFilter (default name
    "Conv2DBackpropFilter", a list filter_sizes a Const "<name>/filter_sizes")."""
    data_format = data_format or "NHWC"
    with ops.name_scope(name, "Conv2DBackpropFilter", [input, filter_sizes, out_backprop]) as name:
        return gen.apply("Conv2DBackpropFilter", name, input=input, filter_sizes=filter_sizes, out_backprop=out_backprop,
                         strides=_list4(strides, 2, data_format, "strides"), padding=padding,
                         use_cudnn_on_gpu=use_cudnn_on_gpu, data_format=data_format,
                         dilations=_list4(dilations if dilations is not None else 1, 2, data_format, "dilations"))


def swish(features, name=None):
    """features * sigmoid(features) under "swish" (TF 1.15 builds a function call "swish";
    tfc the same arithmetic inline)."""
    with ops.name_scope(name, "swish", [features]):
        features = ops.convert_to_tensor(features, name="features")
        return features * math_ops.sigmoid(features)


def _count_nonzero(input_tensor, dtype):
    with ops.name_scope("count_nonzero", values=[input_tensor]):
        zero = array_ops.zeros([], dtype=input_tensor.dtype)
        return math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(input_tensor, zero), dtype=dtype),
                                   name="nonzero_count")


def zero_fraction(value, name=None):
    """The fraction of zeros in value as a float32 scalar (TF's graph: a cond on the size that
    counts in int32 when it fits, "counts_to_fraction", Identity "fraction")."""
    from tfc.ops import control_flow_ops
    with ops.name_scope(name, "zero_fraction", [value]):
        value = ops.convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        num_nonzero = control_flow_ops.cond(
            math_ops.less_equal(size, dtypes.int32.max),
            true_fn=lambda: math_ops.cast(_count_nonzero(value, dtype=dtypes.int32), dtype=dtypes.int64),
            false_fn=lambda: _count_nonzero(value, dtype=dtypes.int64))
        with ops.name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            num_zero_float32 = math_ops.cast(num_zero, dtype=dtypes.float32)
            size_float32 = math_ops.cast(size, dtype=dtypes.float32)
            zero_fraction_float32 = num_zero_float32 / size_float32
        return array_ops.identity(zero_fraction_float32, "fraction")


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC", dilations=(1, 1, 1, 1),  # noqa: A002
                            name=None):
    return gen.apply("DepthwiseConv2dNative", name, input=input, filter=filter, strides=list(strides),
                     padding=padding, data_format=data_format, dilations=list(dilations))


def _depthwise_in_scope(input, filter, strides, padding, rate, data_format, name, spatial_format=True):  # noqa: A002
    """TF's depthwise body inside its scope: filter_shape a Shape ("Shape", a Const when known),
    then with_space_to_batch (nn_atrous.py): a rate above 1 wraps a VALID DepthwiseConv2dNative
    in SpaceToBatchND / BatchToSpaceND, as TF 1.x builds it (no dilations attr). separable_conv2d
    passes spatial_format=False: TF does not tell with_space_to_batch its data_format."""
    from tfc.ops import nn_atrous
    rate = [1, 1] if rate is None else list(rate)

    def op(converted, _, pad):
        return depthwise_conv2d_native(converted, filter, strides, pad, data_format=data_format or "NHWC",
                                       name=name)
    return nn_atrous.with_space_to_batch(input, rate, padding, op, filter_shape=array_ops.shape(filter),
                                         data_format=data_format if spatial_format else None)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    """DepthwiseConv2dNative "depthwise" (in_channels * multiplier output channels)."""
    if dilations is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'dilations' and 'rate'")
        rate = dilations
    with ops.name_scope(name, "depthwise", [input, filter]) as name:
        input = ops.convert_to_tensor(input, name="tensor_in")
        filter = ops.convert_to_tensor(filter, name="filter_in")
        return _depthwise_in_scope(input, filter, strides, padding, rate, data_format, name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """A depthwise convolution "depthwise", then a 1x1 Conv2D "separable_conv2d"."""
    if dilations is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'dilations' and 'rate'")
        rate = dilations
    with ops.name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as name:
        input = ops.convert_to_tensor(input, name="tensor_in")
        depthwise_filter = ops.convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = ops.convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pw = pointwise_filter.shape.with_rank(4)
        pw.dims[0].assert_is_compatible_with(1)
        pw.dims[1].assert_is_compatible_with(1)
        depthwise = _depthwise_in_scope(input, depthwise_filter, strides, padding, rate, data_format, "depthwise",
                                        spatial_format=False)
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                      data_format=data_format or "NHWC", name=name)
