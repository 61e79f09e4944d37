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
    if isinstance(x, ops.Tensor) and x.dtype.base_dtype == dtype:
        return x  # no op and no name taken, as TF
    with ops.name_scope(name, "Cast", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtype:
            return x
        return gen.apply("Cast", name, x=x, DstT=dtype)


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    return cast(x, dtypes.bfloat16, name=name)


def saturate_cast(value, dtype, name=None):
    """Cast with the value clamped to dtype's range first (Maximum/Minimum under
    "saturate_cast")."""
    with ops.name_scope(name, "saturate_cast", [value]) as name:
        value = ops.convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        if value.dtype.min < dtype.min:
            value = gen.apply("Maximum", None, x=value,
                              y=ops.convert_to_tensor(dtype.min, dtype=value.dtype, name="min"))
        if value.dtype.max > dtype.max:
            value = gen.apply("Minimum", None, x=value,
                              y=ops.convert_to_tensor(dtype.max, dtype=value.dtype, name="max"))
        return cast(value, dtype, name=name)


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
    """MatMul for matrices; BatchMatMulV2 (adj_x/adj_y) when either rank is above 2 or unknown.
    adjoint is transpose for real dtypes (conjugation is not supported for complex ones)."""
    with ops.name_scope(name, "MatMul", [a, b]) as name:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b", dtype_hint=a.dtype.base_dtype)
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or ra > 2 or rb is None or rb > 2:
            if adjoint_a or transpose_a or adjoint_b or transpose_b:
                if (transpose_a or transpose_b) and (a.dtype.is_complex):
                    raise NotImplementedError("transpose of a complex batch matrix product is not supported")
            return gen.apply("BatchMatMulV2", name, x=a, y=b, adj_x=bool(adjoint_a or transpose_a),
                             adj_y=bool(adjoint_b or transpose_b))
        if (adjoint_a or adjoint_b) and a.dtype.is_complex:
            raise NotImplementedError("adjoint of a complex matrix product is not supported")
        return gen.apply("MatMul", name, a=a, b=b, transpose_a=bool(transpose_a or adjoint_a),
                         transpose_b=bool(transpose_b or adjoint_b))


def _reduction_dims(x, axis, reduction_indices):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'reduction_indices' and 'axis'")
        axis = reduction_indices
    if axis is not None:
        return axis
    rank = x.shape.ndims
    if rank is not None:
        return constant_op.constant(np.arange(rank, dtype=np.int32))
    return gen.apply("Range", None, start=0, limit=gen.apply("Rank", None, input=x), delta=1)


def _keep(keepdims, keep_dims):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    v = keepdims if keepdims is not None else keep_dims
    return bool(v) if v is not None else False


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    x = ops.convert_to_tensor(input_tensor)
    keepdims = _keep(keepdims, keep_dims)
    axis_given = axis if reduction_indices is None else reduction_indices
    out = gen.apply(op_type, name, input=x, reduction_indices=_reduction_dims(x, axis, reduction_indices),
                    keep_dims=keepdims)
    return _may_reduce_to_scalar(keepdims, axis_given, out)


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


def _may_reduce_to_scalar(keepdims, axis, output):
    """TF's reduce functions pin the shape to () when every axis is reduced and rank is unknown."""
    if not keepdims and axis is None and output.shape.ndims is None:
        output.set_shape(())
    return output


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None):
    """log(sum(exp(x - m))) + m under "ReduceLogSumExp", m the max with infinities replaced by 0
    (IsFinite, Select, StopGradient)."""
    keepdims = _keep(keepdims, keep_dims)
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'reduction_indices' and 'axis'")
        axis = reduction_indices
    from tfc.ops import array_ops
    with ops.name_scope(name, "ReduceLogSumExp", [input_tensor]) as name:
        x = ops.convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(array_ops.where(
            is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max)))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        result = gen.apply("Add", name, x=result, y=my_max)
        return _may_reduce_to_scalar(keepdims, axis, result)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    if input is not None:
        if input_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'input_tensor'")
        input_tensor = input
    keepdims = _keep(keepdims, keep_dims)
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'reduction_indices' and 'axis'")
        axis = reduction_indices
    with ops.name_scope(name, "count_nonzero", [input_tensor]):
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        from tfc.ops import array_ops
        if x.dtype == dtypes.bool:
            predicate = x
        else:
            predicate = gen.apply("NotEqual", None, x=x, y=array_ops.zeros([], dtype=x.dtype))
        return cast(reduce_sum(cast(predicate, dtypes.int64), axis=axis, keepdims=keepdims), dtype=dtype)


def _arg_minmax(op_type, input, axis, name, dimension, output_type):  # noqa: A002
    if dimension is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dimension' and 'axis'")
        axis = dimension
    if axis is None:
        axis = 0
    return gen.apply(op_type, name, input=input, dimension=axis, output_type=output_type)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg_minmax("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg_minmax("ArgMin", input, axis, name, dimension, output_type)


def add_n(inputs, name=None):
    """AddN of a list of same-dtype tensors; one input is returned as is (an Identity when named)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape")
    inputs = ops.convert_n_to_tensor(inputs)
    if not all(isinstance(x, ops.Tensor) for x in inputs):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape")
    if len(inputs) == 1:
        if name:
            return gen.apply("Identity", name, input=inputs[0])
        return inputs[0]
    return gen.apply("AddN", name, inputs=list(inputs))


def _gen_unary(op_type, py_name, scoped=False, arg="x"):
    """A TF function that builds op_type on x (named by the op type; `scoped`: under
    name_scope(name, op_type) with x converted as "x" first, as math_ops' wrappers do)."""
    if scoped:
        def fn(x, name=None):
            with ops.name_scope(name, op_type, [x]) as name:
                x = ops.convert_to_tensor(x, name="x")
                return gen.apply(op_type, name, **{arg: x})
    else:
        def fn(x, name=None):
            return gen.apply(op_type, name, **{arg: x})
    fn.__name__ = fn.__qualname__ = py_name
    return fn


def _gen_binary(op_type, py_name):
    def fn(x, y, name=None):
        return gen.apply(op_type, name, x=x, y=y)
    fn.__name__ = fn.__qualname__ = py_name
    return fn


from tfc.ops.complex_ops import abs  # noqa: E402,A001 (TF's name; ComplexAbs on complex)
square = _gen_unary("Square", "square")
sqrt = _gen_unary("Sqrt", "sqrt")
rsqrt = _gen_unary("Rsqrt", "rsqrt")
exp = _gen_unary("Exp", "exp")
log = _gen_unary("Log", "log")
log1p = _gen_unary("Log1p", "log1p")
expm1 = _gen_unary("Expm1", "expm1")
sign = _gen_unary("Sign", "sign")
floor = _gen_unary("Floor", "floor")
ceil = _gen_unary("Ceil", "ceil")
reciprocal = _gen_unary("Reciprocal", "reciprocal")
sin = _gen_unary("Sin", "sin")
cos = _gen_unary("Cos", "cos")
tanh = _gen_unary("Tanh", "tanh", scoped=True)
sigmoid = _gen_unary("Sigmoid", "sigmoid", scoped=True)
logical_not = _gen_unary("LogicalNot", "logical_not")
is_finite = _gen_unary("IsFinite", "is_finite")
is_nan = _gen_unary("IsNan", "is_nan")
is_inf = _gen_unary("IsInf", "is_inf")

maximum = _gen_binary("Maximum", "maximum")
minimum = _gen_binary("Minimum", "minimum")
squared_difference = _gen_binary("SquaredDifference", "squared_difference")
equal = _gen_binary("Equal", "equal")
not_equal = _gen_binary("NotEqual", "not_equal")
less = _gen_binary("Less", "less")
less_equal = _gen_binary("LessEqual", "less_equal")
greater = _gen_binary("Greater", "greater")
greater_equal = _gen_binary("GreaterEqual", "greater_equal")
logical_and = _gen_binary("LogicalAnd", "logical_and")
logical_or = _gen_binary("LogicalOr", "logical_or")
floormod = _gen_binary("FloorMod", "floormod")
mod = floormod
realdiv = _gen_binary("RealDiv", "realdiv")


def round(x, name=None):  # noqa: A001 (TF's name)
    """Round half to even; integers are returned as they are."""
    x = ops.convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return gen.apply("Round", name, x=x)


def pow(x, y, name=None):  # noqa: A001 (TF's name)
    with ops.name_scope(name, "Pow", [x]) as name:
        return gen.apply("Pow", name, x=x, y=y)


def floordiv(x, y, name=None):
    with ops.name_scope(name, "floordiv", [x, y]) as name:
        return gen.apply("FloorDiv", name, x=x, y=y)


def div(x, y, name=None):
    """TF 1.x tf.div: Python 2 division (RealDiv for floats, FloorDiv for integers)."""
    with ops.name_scope(name, "div", [x, y]) as name:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError("x and y must have the same dtype, got %r != %r" % (x.dtype, y.dtype))
        if x.dtype.is_floating or x.dtype.is_complex:
            return gen.apply("RealDiv", name, x=x, y=y)
        return gen.apply("FloorDiv", name, x=x, y=y)


def logical_xor(x, y, name="LogicalXor"):
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def scalar_mul(scalar, x, name=None):
    scalar = ops.convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError("Only scalar multiply works, got shape %s" % scalar.shape)
    return gen.apply("Mul", name, x=scalar, y=x)


def tensordot(a, b, axes, name=None):
    """Sum over axes of a and b (an int n: a's last n with b's first n; or two lists): a and b
    transposed and reshaped into matrices (each step left out when it would change nothing),
    MatMul, and a Reshape named after "Tensordot" when the product's shape is not the result's.
    Shapes must be fully known (the dynamic-shape form is not supported)."""
    from tfc.ops import array_ops

    def _axes(t, ax):
        if isinstance(ax, (int, np.integer)):
            if ax < 0:
                raise ValueError("'axes' must be at least 0.")
            nd = t.shape.ndims
            if nd is None:
                raise NotImplementedError("tensordot of a tensor of unknown rank is not supported")
            if ax > nd:
                raise ValueError("'axes' must not be larger than the number of dimensions of tensor %s." % t)
            return list(range(nd - ax, nd)), list(range(ax))
        if isinstance(ax, (list, tuple)):
            if len(ax) != 2:
                raise ValueError("'axes' must be an integer or have length 2.")
            a_axes, b_axes = ax
            if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
                a_axes, b_axes = [a_axes], [b_axes]
            if len(a_axes) != len(b_axes):
                raise ValueError("Different number of contraction axes 'a' and 'b', %s != %s."
                                 % (len(a_axes), len(b_axes)))
            return list(a_axes), list(b_axes)
        raise NotImplementedError("tensordot with tensor axes is not supported")

    def _reshape(t, ax, flipped=False):
        if not t.shape.is_fully_defined():
            raise NotImplementedError("tensordot of tensors with unknown dims is not supported")
        dims = t.shape.as_list()
        ax = [i if i >= 0 else i + len(dims) for i in ax]
        free = [i for i in range(len(dims)) if i not in ax]
        free_dims = [dims[i] for i in free]
        prod_free = int(np.prod([dims[i] for i in free]))
        prod_axes = int(np.prod([dims[i] for i in ax]))
        perm = list(ax) + free if flipped else free + list(ax)
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if perm != list(range(len(dims))):
            t = array_ops.transpose(t, perm)
        if t.shape.as_list() != new_shape:
            t = array_ops.reshape(t, new_shape)
        return t, free_dims

    with ops.name_scope(name, "Tensordot", [a, b, axes]) as name:
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b")
        a_axes, b_axes = _axes(a, axes)
        a_reshape, a_free = _reshape(a, a_axes)
        b_reshape, b_free = _reshape(b, b_axes, True)
        product = matmul(a_reshape, b_reshape)
        if product.shape.as_list() == a_free + b_free:
            return product
        return array_ops.reshape(product, a_free + b_free, name=name)


def linspace(start, stop, num, name=None):
    """TF 1.x tf.linspace / tf.lin_space: the LinSpace op."""
    return gen.apply("LinSpace", name, start=start, stop=stop, num=num)


lin_space = linspace


def _cum(op_type, scope):
    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        with ops.name_scope(name, scope, [x]) as name:
            x = ops.convert_to_tensor(x, name="x")
            return gen.apply(op_type, name, x=x, axis=axis, exclusive=exclusive, reverse=reverse)
    fn.__name__ = fn.__qualname__ = op_type.lower()
    return fn


cumsum = _cum("Cumsum", "Cumsum")
cumprod = _cum("Cumprod", "Cumprod")


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
