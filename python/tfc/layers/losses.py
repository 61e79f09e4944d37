"""tf.losses (TF 1.15's ops/losses/losses_impl.py and util.py), graph mode.

Each loss opens its scope ("mean_squared_error", "sparse_softmax_cross_entropy_loss",
"softmax_cross_entropy_loss", ...), computes the per-example losses and reduces them with
compute_weighted_loss: the weights checked against the losses' shape (assert_broadcastable: a
static check, a NoOp "static_scalar_check_success" for scalar weights), weighted, summed and,
by default (Reduction.SUM_BY_NONZERO_WEIGHTS), divided by the number of non-zero weights
(DivNoNan "value"). The result goes to the LOSSES collection. get_total_loss adds the losses and
the REGULARIZATION_LOSSES (AddN "total_loss").

Weights whose shape cannot be checked statically (a shape known only at run time) are not
supported (NotImplementedError); TF 1.15 adds run-time assertions there. Errors are TF 1.15's
ValueError texts.
"""
from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops
from tfc.ops import nn_ops


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


def _static_shape_and_rank(t, scope):
    with ops.name_scope(None, scope, (t,)) as s:
        t = ops.convert_to_tensor(t, name=s)
        shape = array_ops.shape(t, name="shape")
        rank = array_ops.rank(t, name="rank")
    return t, shape, rank


def assert_broadcastable(weights, values):
    """weights_broadcast_ops.assert_broadcastable for statically known shapes: a NoOp
    "static_scalar_check_success" / "static_dims_check_success", or TF's ValueError."""
    with ops.name_scope(None, "assert_broadcastable", (weights, values)):
        weights, _, _ = _static_shape_and_rank(weights, "weights")
        values, _, _ = _static_shape_and_rank(values, "values")
        ws, vs_ = weights.shape, values.shape
        if ws.ndims is None or vs_.ndims is None:
            raise NotImplementedError("tf.losses: weights and losses of unknown rank are not supported by tfc")
        if ws.ndims == 0:
            return gen.apply("NoOp", "static_scalar_check_success")
        if ws.ndims != vs_.ndims:
            raise ValueError("weights can not be broadcast to values. values.rank=%s. weights.rank=%s. "
                             "values.shape=%s. weights.shape=%s." % (vs_.ndims, ws.ndims, vs_, ws))
        if not (ws.is_fully_defined() and vs_.is_fully_defined()):
            raise NotImplementedError("tf.losses: weights of a shape known only at run time are not supported "
                                      "by tfc")
        for w, v in zip(ws.as_list(), vs_.as_list()):
            if w not in (1, v):
                raise ValueError("weights can not be broadcast to values. values.shape=%s. weights.shape=%s."
                                 % (vs_, ws))
        return gen.apply("NoOp", "static_dims_check_success")


def broadcast_weights(weights, values):
    with ops.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = ops.convert_to_tensor(values, name="values")
        weights = ops.convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if (weights.shape.is_fully_defined() and values.shape.is_fully_defined()
                and weights.shape.is_compatible_with(values.shape)):
            return weights
        with ops.control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _safe_mean(losses, num_present):
    total = math_ops.reduce_sum(losses)
    return gen.apply("DivNoNan", "value", x=total, y=num_present)


def _num_present(losses, weights):
    with ops.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtype=dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = broadcast_weights(present, losses)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with ops.name_scope(None, "num_elements", (losses,)) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The weighted, reduced loss (see the module comment), added to loss_collection."""
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", (losses, weights)):
        with ops.control_dependencies((assert_broadcastable(weights, losses),)):
            losses = ops.convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = math_ops.cast(losses, dtype=dtypes.float32)
            weights = math_ops.cast(weights, dtype=dtypes.float32)
            weighted = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = math_ops.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = math_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def _check(labels, predictions, what="predictions"):
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError("%s must not be None." % what)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, predictions)
    with ops.name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        predictions.shape.assert_is_compatible_with(labels.shape)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, predictions)
    with ops.name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes.float32)
        labels = math_ops.cast(labels, dtype=dtypes.float32)
        predictions.shape.assert_is_compatible_with(labels.shape)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _weights_for_labels(labels, weights):
    """losses_impl._remove_squeezable_dimensions' weights part, static ranks only."""
    weights = ops.convert_to_tensor(weights)
    lr, wr = labels.shape.ndims, weights.shape.ndims
    if lr is not None and wr is not None and wr - lr == 1:
        weights = array_ops.squeeze(weights, [-1])
    return weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _check(labels, logits, "logits")
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels = ops.convert_to_tensor(labels)
        logits = ops.convert_to_tensor(logits)
        with ops.name_scope(None, "remove_squeezable_dimensions", (labels, logits)):
            lr, pr = labels.shape.ndims, logits.shape.ndims
            if lr is not None and pr is not None and pr - lr == 2:
                labels = array_ops.squeeze(labels, [-1])
        weights = _weights_for_labels(labels, weights)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    if onehot_labels is None:
        raise ValueError("onehot_labels must not be None.")
    if logits is None:
        raise ValueError("logits must not be None.")
    with ops.name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = ops.convert_to_tensor(logits)
        onehot_labels = math_ops.cast(onehot_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(onehot_labels.shape)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            onehot_labels = onehot_labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    if multi_class_labels is None:
        raise ValueError("multi_class_labels must not be None.")
    if logits is None:
        raise ValueError("logits must not be None.")
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = ops.convert_to_tensor(logits)
        multi_class_labels = math_ops.cast(multi_class_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(multi_class_labels.shape)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (AddN `name`), or a 0.0 Const when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """AddN `name` of the LOSSES (and REGULARIZATION_LOSSES); ValueError from add_n when empty."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)
