"""tf.losses' loss functions (TF 1.15's losses_impl.py) in TF's structure: each opens its name
scope ("mean_squared_error", "softmax_cross_entropy_loss", ...), computes the per-element
losses and hands them to compute_weighted_loss, which multiplies by the weights inside
"<scope>/", reduces them by the Reduction (default SUM_BY_NONZERO_WEIGHTS: the sum over the
number of nonzero weights, "num_present"), names the result "<scope>/value" and adds it to the
LOSSES collection.

Pure Python over the op wrappers: the losses are compositions of ordinary ops, which a C user
builds with the same ops. Weights are checked as TF checks them statically
(weights_broadcast_ops.assert_broadcastable: scalar, or the values' rank with each dimension 1
or equal) with TF's ValueError texts; shapes known only at run time are not asserted in the
graph (a mismatch fails in the Mul instead). The final op is TF's DivNoNan named "value" (a
zero count gives 0).
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops
from tfc.ops import nn_ops
from tfc.losses import util


class Reduction(object):
    """How compute_weighted_loss reduces the weighted losses."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


_PREFIX = "weights can not be broadcast to values."


def _static_shape_str(shape):
    return "[%s]" % " ".join(str(d) for d in shape.as_list())


def _assert_broadcastable(weights, values):
    """The static part of weights_broadcast_ops.assert_broadcastable: raises TF's ValueError for
    weights that cannot broadcast to values; shapes unknown while building are let through."""
    ws, vs = weights.shape, values.shape
    if ws.ndims is None or vs.ndims is None or ws.ndims == 0:
        return
    if ws.ndims != vs.ndims:
        raise ValueError("%s values.rank=%s. weights.rank=%s. values.shape=%s. weights.shape=%s."
                         % (_PREFIX, vs.ndims, ws.ndims, vs, ws))
    if ws.is_fully_defined() and vs.is_fully_defined():
        for i, (w, v) in enumerate(zip(ws.as_list(), vs.as_list())):
            if w not in (1, v):
                raise ValueError("%s Mismatch at dim %s. values.shape=%s weights.shape=%s."
                                 % (_PREFIX, i, _static_shape_str(vs), _static_shape_str(ws)))


def _broadcast_weights(weights, values):
    """weights_broadcast_ops.broadcast_weights: weights * ones_like(values) (or weights itself
    when the static shapes already agree)."""
    with ops.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = ops.convert_to_tensor(values, name="values")
        weights = ops.convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        _assert_broadcastable(weights, values)
        return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _safe_mean(losses, num_present):
    """sum(losses) / num_present, 0 when num_present is 0 (TF's DivNoNan "value")."""
    total = math_ops.reduce_sum(losses)
    return gen.apply("DivNoNan", "value", x=total, y=num_present)


def _num_present(losses, weights, per_batch=False):
    """How many entries of losses have a nonzero weight ("num_present")."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with ops.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtype=dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = _broadcast_weights(present, losses)
        if per_batch:
            return math_ops.reduce_sum(present, axis=list(range(1, present.shape.ndims)), keepdims=True,
                                       name=scope)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with ops.name_scope(None, "num_elements") as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """losses * weights reduced by `reduction`, in losses' dtype, added to loss_collection."""
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", (losses, weights)):
        losses = ops.convert_to_tensor(losses)
        with ops.name_scope(None, "assert_broadcastable", (weights, losses)):
            w = ops.convert_to_tensor(weights, name="weights")
            _assert_broadcastable(w, losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dtype=dtypes.float32)
        weights = math_ops.cast(weights, dtype=dtypes.float32)
        weighted_losses = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted_losses
        else:
            loss = math_ops.reduce_sum(weighted_losses)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, _num_elements(losses))
        loss = math_ops.cast(loss, input_dtype)
        util.add_loss(loss, loss_collection)
        return loss


def _not_none(**kw):
    for k, v in kw.items():
        if v is None:
            raise ValueError("%s must not be None." % k)


def _compatible(a, b):
    a.shape.assert_is_compatible_with(b.shape)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(predictions=predictions)
    with ops.name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(predictions, labels)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _not_none(labels=labels)
    _not_none(predictions=predictions)
    with ops.name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(predictions, labels)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(logits=logits)
    with ops.name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits = math_ops.cast(logits, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(logits, labels)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(predictions=predictions)
    with ops.name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(predictions, labels)
        error = math_ops.subtract(predictions, labels)
        abs_error = math_ops.abs(error)
        quadratic = math_ops.minimum(abs_error, ops.convert_to_tensor(delta, dtype=abs_error.dtype))
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(
            math_ops.multiply(ops.convert_to_tensor(0.5, dtype=quadratic.dtype),
                              math_ops.multiply(quadratic, quadratic)),
            math_ops.multiply(ops.convert_to_tensor(delta, dtype=linear.dtype), linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=ops.GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(predictions=predictions)
    with ops.name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(predictions, labels)
        losses = -math_ops.multiply(labels, math_ops.log(predictions + epsilon)) - math_ops.multiply(
            (1 - labels), math_ops.log(1 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=ops.GraphKeys.LOSSES):
    raise NotImplementedError("tf.losses.mean_pairwise_squared_error is not supported by tfc yet")


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(predictions=predictions)
    with ops.name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        _compatible(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(multi_class_labels=multi_class_labels)
    _not_none(logits=logits)
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = ops.convert_to_tensor(logits)
        multi_class_labels = math_ops.cast(multi_class_labels, logits.dtype)
        _compatible(logits, multi_class_labels)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(onehot_labels=onehot_labels)
    _not_none(logits=logits)
    with ops.name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = ops.convert_to_tensor(logits)
        onehot_labels = math_ops.cast(onehot_labels, logits.dtype)
        _compatible(logits, onehot_labels)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = gen.apply("StopGradient", "labels_stop_gradient", input=onehot_labels)
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions, weights=None, expected_rank_diff=0):
    """Drops a trailing size-1 dimension of labels (and weights) so that
    rank(predictions) - rank(labels) == expected_rank_diff, from the static shapes."""
    labels = ops.convert_to_tensor(labels)
    predictions = ops.convert_to_tensor(predictions)
    lr, pr = labels.shape.ndims, predictions.shape.ndims
    if lr is not None and pr is not None and pr - lr == expected_rank_diff - 1 and \
            labels.shape.dims[-1].value == 1:
        labels = array_ops.squeeze(labels, [-1])
    if weights is None or isinstance(weights, float):
        return labels, predictions, weights
    weights = ops.convert_to_tensor(weights)
    wr = weights.shape.ndims
    if wr == 0:
        return labels, predictions, weights
    if wr is not None and pr is not None and wr - pr == 1 - expected_rank_diff and \
            weights.shape.dims[-1].value == 1:
        weights = array_ops.squeeze(weights, [-1])
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _not_none(labels=labels)
    _not_none(logits=logits)
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights, expected_rank_diff=1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)
