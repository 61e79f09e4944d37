"""Complex numbers (TF 1.15's math_ops): tf.complex, tf.real / tf.math.real, tf.imag,
tf.conj, tf.angle, and tf.abs on complex tensors (ComplexAbs). The ops and their kernels
and gradients are libtfc's; these are the Python wrappers, with TF's argument handling."""

import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import gen


def complex(real, imag, name=None):  # noqa: A001 (TF's name)
    with ops.name_scope(name, "Complex", [real, imag]) as name:
        real = ops.convert_to_tensor(real, name="real")
        imag = ops.convert_to_tensor(imag, name="imag")
        input_types = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if input_types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif input_types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError("real and imag have incorrect types: {} {}".format(
                real.dtype.name, imag.dtype.name))
        return gen.apply("Complex", name, real=real, imag=imag, Tout=tout)


def real(input, name=None):  # noqa: A002 (TF's name)
    with ops.name_scope(name, "Real", [input]) as name:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return gen.apply("Real", name, input=input, Tout=input.dtype.real_dtype)
        return input


def imag(input, name=None):  # noqa: A002
    with ops.name_scope(name, "Imag", [input]) as name:
        input = ops.convert_to_tensor(input, name="input")
        return gen.apply("Imag", name, input=input, Tout=input.dtype.real_dtype)


def angle(input, name=None):  # noqa: A002
    with ops.name_scope(name, "Angle", [input]) as name:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return gen.apply("Angle", name, input=input, Tout=input.dtype.real_dtype)
        from tfc.ops import array_ops
        zeros = array_ops.zeros_like(input)
        pi = ops.convert_to_tensor(np.pi, dtype=input.dtype)
        return array_ops.where(gen.apply("Less", None, x=input, y=zeros),
                               gen.apply("Mul", None, x=pi, y=array_ops.ones_like(input)), zeros)


def conj(x, name=None):
    if isinstance(x, ops.Tensor):
        dt = x.dtype
        if dt.is_floating or dt.is_integer:
            return x
    with ops.name_scope(name, "Conj", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype == dtypes.variant:
            return gen.apply("Conj", name, input=x)
        elif x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError("Expected numeric or variant tensor, got dtype %r" % x.dtype)


def abs(x, name=None):  # noqa: A001
    """Abs, or ComplexAbs (with Tout the real type) for a complex x."""
    with ops.name_scope(name, "Abs", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return gen.apply("ComplexAbs", name, x=x, Tout=x.dtype.real_dtype)
        return gen.apply("Abs", name, x=x)
