"""Math functions with TF 1.x signatures, and the Tensor operators (math_ops.py, §1.4).

Binary operators open name_scope(None, <name>) and name their op by it ("add", "mul"); `+`
builds AddV2 while tf.add builds Add; `/` casts integers first (int32/int64 to float64) and
refuses mixed dtypes; comparisons and unary operators call the op directly (`Less`, `Neg`).
Every op is built through gen.apply from the op table.
"""
import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import constant_op
from tfc.ops import gen


def add(x, y, name=None):
    return gen.apply("Add", name, x=x, y=y)


def subtract(x, y, name=None):
    return gen.apply("Sub", name, x=x, y=y)


def multiply(x, y, name=None):
    return gen.apply("Mul", name, x=x, y=y)


def negative(x, name=None):
    return gen.apply("Neg", name, x=x)


def cast(x, dtype, name=None):
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, "Cast", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtype:
            return x
        return gen.apply("Cast", name, x=x, DstT=dtype)


def truediv(x, y, name=None):
    with ops.name_scope(name, "truediv", [x, y]) as name:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype_hint=x.dtype.base_dtype)
        xd, yd = x.dtype.base_dtype, y.dtype.base_dtype
        if xd != yd:
            raise TypeError("x and y must have the same dtype, got %r != %r" % (xd, yd))
        target = {dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32, dtypes.int16: dtypes.float32,
                  dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64,
                  dtypes.int64: dtypes.float64}.get(xd)
        if target is not None:
            x = cast(x, target)
            y = cast(y, target)
        return gen.apply("RealDiv", name, x=x, y=y)


divide = truediv


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    with ops.name_scope(name, "MatMul", [a, b]) as name:
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b", dtype_hint=a.dtype.base_dtype)
        if adjoint_a:
            transpose_a = True
        if adjoint_b:
            transpose_b = True
        return gen.apply("MatMul", name, a=a, b=b, transpose_a=transpose_a, transpose_b=transpose_b)


def _reduction_dims(x, axis, reduction_indices):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Can not specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if axis is not None:
        return axis
    rank = x.shape.ndims
    if rank is not None:
        return constant_op.constant(np.arange(rank, dtype=np.int32))
    return gen.apply("Range", None, start=0, limit=gen.apply("Rank", None, input=x), delta=1)


def _keep(keepdims, keep_dims):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    v = keepdims if keepdims is not None else keep_dims
    return bool(v) if v is not None else False


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    x = ops.convert_to_tensor(input_tensor)
    return gen.apply(op_type, name, input=x, reduction_indices=_reduction_dims(x, axis, reduction_indices),
                     keep_dims=_keep(keepdims, keep_dims))


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ---------------- operators ----------------

def _binary(op_name, fn):
    def binary_op_wrapper(x, y):
        with ops.name_scope(None, op_name, [x, y]) as name:
            try:
                y = ops.convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
            except TypeError:
                if hasattr(type(y), "__r%s__" % op_name):
                    return NotImplemented
                raise
            return fn(x, y, name=name)

    def r_binary_op_wrapper(y, x):
        with ops.name_scope(None, op_name, [x, y]) as name:
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=name)
    return binary_op_wrapper, r_binary_op_wrapper


def _raw(op_type):
    return lambda x, y, name=None: gen.apply(op_type, name, x=x, y=y)


def _matmul_op(x, y, name=None):
    return matmul(x, y, name=name)


def _truediv_op(x, y, name=None):
    return truediv(x, y, name=name)


_OPERATORS = [
    ("add", _raw("AddV2")), ("sub", _raw("Sub")), ("mul", _raw("Mul")), ("truediv", _truediv_op),
    ("floordiv", _raw("FloorDiv")), ("mod", _raw("FloorMod")), ("pow", _raw("Pow")),
    ("matmul", _matmul_op), ("and", _raw("LogicalAnd")), ("or", _raw("LogicalOr")),
]


def _install_operators():
    T = ops.Tensor
    for name, fn in _OPERATORS:
        fwd, rev = _binary(name, fn)
        setattr(T, "__%s__" % name, fwd)
        setattr(T, "__r%s__" % name, rev)
    T.__div__ = T.__truediv__
    T.__rdiv__ = T.__rtruediv__
    T.__lt__ = lambda x, y: gen.apply("Less", None, x=x, y=y)
    T.__le__ = lambda x, y: gen.apply("LessEqual", None, x=x, y=y)
    T.__gt__ = lambda x, y: gen.apply("Greater", None, x=x, y=y)
    T.__ge__ = lambda x, y: gen.apply("GreaterEqual", None, x=x, y=y)
    T.__neg__ = lambda x: gen.apply("Neg", None, x=x)
    T.__abs__ = lambda x: gen.apply("Abs", None, x=x)
    T.__invert__ = lambda x: gen.apply("LogicalNot", None, x=x)


_install_operators()
