"""tf.metrics' streaming metrics (TF 1.15's metrics_impl.py) in TF's structure and names.

Each metric opens its variable scope ("accuracy", "precision", "auc", or name=), keeps its
running state in float32 metric variables made by metric_variable ("accuracy/total",
"accuracy/count", "precision/true_positives/count", "auc/true_positives" [thresholds]): TF 1.x
reference variables initialized to zeros, not trainable, in the LOCAL_VARIABLES and
METRIC_VARIABLES collections (so tf.local_variables_initializer() resets them). It returns
(value, update_op): value reads the state ("<scope>/value"), update_op adds one batch and
returns the updated value ("<scope>/update_op"); metrics_collections / updates_collections
receive them.

Pure Python over the op wrappers (compositions of ordinary ops; divisions are TF's DivNoNan).
Where tfc differs: auc does not add TF's run-time asserts that predictions lie in [0, 1], and its PR curve with
'careful_interpolation' is not supported.
"""
from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.losses.losses_impl import _broadcast_weights
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops
from tfc.ops import variable_scope
from tfc.ops import variables


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized local variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return variables.Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                              collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
                              validate_shape=validate_shape, name=name)


def _div_no_nan(x, y, name):
    """x / y, 0 where y is 0 (TF 1.15's _safe_div: DivNoNan named name)."""
    return gen.apply("DivNoNan", name, x=x, y=y)


def _add_to(collections, value):
    if collections:
        ops.add_to_collections(collections, value)


def _remove_squeezable_dimensions(predictions, labels, weights):
    """metrics_impl's version: squeezes a trailing 1 off labels (or predictions) when their
    ranks differ by one, and off weights against predictions, from the static shapes."""
    predictions = ops.convert_to_tensor(predictions)
    if labels is not None:
        labels = ops.convert_to_tensor(labels)
        pr, lr = predictions.shape.ndims, labels.shape.ndims
        if pr is not None and lr is not None:
            if lr - pr == 1 and labels.shape.dims[-1].value == 1:
                labels = array_ops.squeeze(labels, [-1])
            elif pr - lr == 1 and predictions.shape.dims[-1].value == 1:
                predictions = array_ops.squeeze(predictions, [-1])
    if weights is None:
        return predictions, labels, None
    weights = ops.convert_to_tensor(weights)
    wr, pr = weights.shape.ndims, predictions.shape.ndims
    if wr is not None and pr is not None and wr != 0:
        if wr - pr == 1 and weights.shape.dims[-1].value == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif pr - wr == 1:
            weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


def _as_float(x):
    return math_ops.cast(x, dtypes.float32)


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of every value seen: total / count."""
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = _as_float(values)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = _as_float(array_ops.size(values))
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(_as_float(weights), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total_op = variables.assign_add(total, math_ops.reduce_sum(values))
        with ops.control_dependencies([values]):
            update_count_op = variables.assign_add(count, num_values)
        mean_t = _div_no_nan(total.value(), math_ops.maximum(count.value(), 0.), "value")
        _add_to(metrics_collections, mean_t)
        update_op = _div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0.), "update_op")
        _add_to(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often predictions equal labels: mean(cast(equal(predictions, labels)))."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = _as_float(math_ops.equal(predictions, labels))
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(absolute_errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    _add_to(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add_to(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def _count_condition(values, weights, metrics_collections, updates_collections):
    """Sums the (weighted) true entries of the bool tensor values into "count"."""
    if values.dtype.base_dtype != dtypes.bool:
        raise TypeError("%s must be of type tf.bool; got %s" % (values.name, values.dtype.name))
    count = metric_variable([], dtypes.float32, name="count")
    values = _as_float(values)
    if weights is not None:
        weights = _as_float(weights)
        values = math_ops.multiply(values, weights)
    value_tensor = array_ops.identity(count.value())
    _add_to(metrics_collections, value_tensor)
    update_op = variables.assign_add(count, math_ops.reduce_sum(values))
    _add_to(updates_collections, update_op)
    return value_tensor, update_op


def _confusion_count(scope, want_label, want_pred, labels, predictions, weights, metrics_collections,
                     updates_collections, name):
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtype=dtypes.bool), math_ops.cast(labels, dtype=dtypes.bool), weights)
        is_it = math_ops.logical_and(math_ops.equal(labels, want_label), math_ops.equal(predictions, want_pred))
        return _count_condition(is_it, weights, metrics_collections, updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _confusion_count("true_positives", True, True, labels, predictions, weights, metrics_collections,
                            updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _confusion_count("false_positives", False, True, labels, predictions, weights, metrics_collections,
                            updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _confusion_count("false_negatives", True, False, labels, predictions, weights, metrics_collections,
                            updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _confusion_count("true_negatives", False, False, labels, predictions, weights, metrics_collections,
                            updates_collections, name)


def _ratio(scope, other, labels, predictions, weights, metrics_collections, updates_collections, name):
    """precision (other = false_positives) and recall (false_negatives): tp / (tp + other)."""
    with variable_scope.variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtype=dtypes.bool), math_ops.cast(labels, dtype=dtypes.bool), weights)
        tp, tp_update = true_positives(labels, predictions, weights)
        o, o_update = other(labels, predictions, weights)

        def compute(a, b, nm):
            return array_ops.where(math_ops.greater(a + b, 0), math_ops.truediv(a, a + b),
                                   array_ops.zeros_like(a), name=nm)
        value = compute(tp, o, "value")
        _add_to(metrics_collections, value)
        update_op = compute(tp_update, o_update, "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _ratio("precision", false_positives, labels, predictions, weights, metrics_collections,
                  updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _ratio("recall", false_negatives, labels, predictions, weights, metrics_collections,
                  updates_collections, name)


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None):
    """Per threshold the (weighted) counts of tp, fn, tn, fp: variables and update ops."""
    predictions, labels, weights = _remove_squeezable_dimensions(
        _as_float(predictions), math_ops.cast(labels, dtype=dtypes.bool), weights)
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtype=dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(array_ops.expand_dims(constant_op.constant(thresholds, dtype=dtypes.float32), [1]),
                                  array_ops.stack([1, num_predictions]))
    pred_is_pos = math_ops.greater(array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]),
                                   thresh_tiled)
    pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    label_is_neg = math_ops.logical_not(label_is_pos)
    weights_tiled = None
    if weights is not None:
        weights = _broadcast_weights(_as_float(weights), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    values, update_ops = {}, {}
    for key, vname, a, b in (("tp", "true_positives", label_is_pos, pred_is_pos),
                             ("fn", "false_negatives", label_is_pos, pred_is_neg),
                             ("tn", "true_negatives", label_is_neg, pred_is_neg),
                             ("fp", "false_positives", label_is_neg, pred_is_pos)):
        var = metric_variable([num_thresholds], dtypes.float32, name=vname)
        hit = _as_float(math_ops.logical_and(a, b))
        if weights_tiled is not None:
            hit *= weights_tiled
        update_ops[key] = variables.assign_add(var, math_ops.reduce_sum(hit, 1))
        values[key] = var.value()
    return values, update_ops


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """The area under the ROC or PR curve by a Riemann sum over num_thresholds thresholds."""
    with variable_scope.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve != "ROC" and curve != "PR":
            raise ValueError("curve must be either ROC or PR, %s unknown" % (curve,))
        if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
            raise ValueError("Invalid summation_method: %s" % summation_method)
        if curve == "PR" and summation_method == "careful_interpolation":
            raise TypeError("auc: curve='PR' with summation_method='careful_interpolation' is not supported by "
                            "tfc yet")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
            thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            thresholds = [0.0 - kepsilon] + thresholds + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights)
        epsilon = 1.0e-6

        def compute_auc(tp, fn, tn, fp, nm):
            rec = math_ops.truediv(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.truediv(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.truediv(tp + epsilon, tp + fp + epsilon)
            dx = x[:num_thresholds - 1] - x[1:]
            if summation_method == "minoring":
                h = math_ops.minimum(y[:num_thresholds - 1], y[1:])
            elif summation_method == "majoring":
                h = math_ops.maximum(y[:num_thresholds - 1], y[1:])
            else:
                h = (y[:num_thresholds - 1] + y[1:]) / 2.
            return math_ops.reduce_sum(math_ops.multiply(dx, h), name=nm)

        auc_value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _add_to(metrics_collections, auc_value)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op")
        _add_to(updates_collections, update_op)
        return auc_value, update_op
