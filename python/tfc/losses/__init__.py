"""tf.losses (TF 1.15's losses_impl and losses/util): the weighted losses, their reductions
and the LOSSES / REGULARIZATION_LOSSES collections."""
from tfc.losses.losses_impl import (Reduction, absolute_difference, compute_weighted_loss,  # noqa: F401
                                    cosine_distance, hinge_loss, huber_loss, log_loss, mean_pairwise_squared_error,
                                    mean_squared_error, sigmoid_cross_entropy, softmax_cross_entropy,
                                    sparse_softmax_cross_entropy)
from tfc.losses.util import (add_loss, get_losses, get_regularization_loss,  # noqa: F401
                             get_regularization_losses, get_total_loss)
