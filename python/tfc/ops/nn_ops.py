"""tf.nn functions with TF 1.x signatures (nn_ops.py), built from the op table."""
from tfc.ops import gen


def relu(features, name=None):
    return gen.apply("Relu", name, features=features)


def softmax(logits, axis=None, name=None, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is not None and axis != -1:
        raise NotImplementedError("softmax over an axis other than the last is not supported yet")
    return gen.apply("Softmax", name, logits=logits)
