"""tf.metrics (TF 1.15's metrics_impl): streaming metrics as (value, update_op) pairs over
local metric variables."""
from tfc.metrics.metrics_impl import (accuracy, auc, false_negatives, false_positives, mean,  # noqa: F401
                                      mean_absolute_error, mean_squared_error, precision, recall,
                                      root_mean_squared_error, true_negatives, true_positives)
