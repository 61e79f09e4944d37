"""The few math/nn functions the training programs need that the package did not have yet
(tanh, square, sigmoid, bias_add, l2_loss), with TF 1.x's signatures; each is one op built from
the op table. _api.py installs them only where the general math/nn modules have none.
"""
from tfc.framework import ops
from tfc.ops import gen


def tanh(x, name=None):
    return gen.apply("Tanh", name, x=x)


def sigmoid(x, name=None):
    return gen.apply("Sigmoid", name, x=x)


def square(x, name=None):
    return gen.apply("Square", name, x=x)


def bias_add(value, bias, data_format=None, name=None):
    with ops.name_scope(name, "BiasAdd", [value, bias]) as name:
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return gen.apply("BiasAdd", name, value=value, bias=bias, data_format=data_format or "NHWC")


def l2_loss(t, name=None):
    return gen.apply("L2Loss", name, t=t)
