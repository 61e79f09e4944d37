"""tf.losses' collection helpers (TF 1.15's losses/util.py): the LOSSES collection that every
loss joins, the regularization losses that layers and variable regularizers add, and their
sums "total_loss" / "total_regularization_loss" (AddN)."""
from tfc.framework import constant_op
from tfc.framework import ops
from tfc.ops import math_ops


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds loss to loss_collection (nothing for a false collection)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The AddN of the regularization losses, or a Const 0.0 when there is none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The AddN of the losses (and regularization losses); ValueError when there is none."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)
