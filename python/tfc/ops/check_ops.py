"""Assertions, logging and checking ops with TF 1.x signatures: no_op, Assert, the
tf.assert_* family (check_ops), check_numerics, Print, report_uninitialized_variables.

Assert(condition, data): an Assert op named "Assert" in the "Assert" scope; when some data is
neither string nor int32, the op is guarded by a cond named "AssertGuard" (no_op when the
condition holds), and Assert returns that cond's Merge op, as TF does.

The binary assertions (assert_equal, assert_less, ...) open name_scope(name, "assert_<x>"),
build reduce_all(<test>(x, y)) and Assert it with TF's data list ("Condition x < y did not
hold element-wise:", "x (<name>) = ", x, "y (<name>) = ", y). When both inputs are Consts the
condition is decided while the graph is built: a NoOp when it holds, else InvalidArgumentError
with the data as text, as TF's static checks do.

Static checks use tensor_util.constant_value (a Const tensor, or a Cast / Identity of one, as an
ndarray; None otherwise).
"""
import numpy as np

from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import ops
from tfc.framework.tensor_util import constant_value
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops


def no_op(name=None):
    return gen.apply("NoOp", name)


def _with_dependencies(deps, t, name="control_dependency"):
    with ops.control_dependencies(deps):
        return array_ops.identity(t, name=name)


def _assert_op(condition, data, summarize):
    """The Assert op "Assert" in the current scope; Python values of data become Consts
    "data_<i>" under it, as TF's list inputs."""
    with ops.name_scope(None, "Assert") as sc:
        data = [d if isinstance(d, ops.Tensor) else ops.convert_to_tensor(d, name="data_%d" % i)
                for i, d in enumerate(data)]
        return gen.apply("Assert", sc, condition=condition, data=data, summarize=summarize)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 (TF's name)
    """The Assert op (or the Merge op of its AssertGuard cond when data holds a tensor that is
    neither string nor int32)."""
    from tfc.ops import control_flow_ops
    with ops.name_scope(name, "Assert", [condition, data]) as name:
        xs = [ops.convert_to_tensor(x) for x in data]
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            return _assert_op(condition, data, summarize)
        condition = ops.convert_to_tensor(condition, name="Condition")

        def true_assert():
            return _assert_op(condition, data, summarize)

        guarded = control_flow_ops.cond(condition, no_op, true_assert, name="AssertGuard")
        return guarded.op if isinstance(guarded, ops.Tensor) else guarded


def _static_fail(data):
    """InvalidArgumentError with data's items one per line, tensors by their constant value
    (TF's _assert_static)."""
    parts = []
    for d in data:
        if isinstance(d, ops.Tensor):
            v = constant_value(d)
            parts.append(str(d) if v is None else str(v))
        else:
            parts.append(str(d))
    raise errors.InvalidArgumentError(None, None, "\n".join(parts))


def _binary_assert(sym, opname, op_fn, np_fn, x, y, data, summarize, message, name):
    with ops.name_scope(name, opname, [x, y, data]):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y")
        if data is None:
            data = ["Condition x %s y did not hold element-wise:" % sym, "x (%s) = " % x.name, x,
                    "y (%s) = " % y.name, y]
        if message is not None:
            data = [message] + list(data)
        condition = math_ops.reduce_all(op_fn(x, y))
        xs, ys = constant_value(x), constant_value(y)
        if xs is not None and ys is not None and not np.all(np_fn(xs, ys)):
            _static_fail(data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    if x is y:  # the same tensor: nothing to check
        with ops.name_scope(name, "assert_equal", [x, y, data]):
            return no_op()
    return _binary_assert("==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("!=", "assert_none_equal", math_ops.not_equal, np.not_equal, x, y, data, summarize,
                          message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("<=", "assert_less_equal", math_ops.less_equal, np.less_equal, x, y, data, summarize,
                          message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert(">", "assert_greater", math_ops.greater, np.greater, x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert(">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal, x, y, data,
                          summarize, message, name)


def _sign_assert(scope, inner, cond_text, x, data, summarize, message, name, zero_first):
    with ops.name_scope(name, scope, [x, data]):
        x = ops.convert_to_tensor(x, name="x")
        if data is None:
            data = [_prefix(message), "Condition x %s did not hold element-wise:" % cond_text,
                    "x (%s) = " % x.name, x]
            if scope == "assert_non_positive":  # TF's text joins these two strings
                data[1:3] = [data[1] + data[2]]
        zero = ops.convert_to_tensor(0, dtype=x.dtype.base_dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return inner(a, b, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_positive", assert_less, "> 0", x, data, summarize, message, name, True)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_negative", assert_less, "< 0", x, data, summarize, message, name, False)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_non_negative", assert_less_equal, ">= 0", x, data, summarize, message, name, True)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_non_positive", assert_less_equal, "<= 0", x, data, summarize, message, name,
                        False)


def _prefix(message):
    return "%s.  " % message if message else ""


def _rank_assert(scope, what, static_ok, dyn_fn, x, rank, data, summarize, message, name):
    with ops.name_scope(name, scope, [x, rank]):
        x = ops.convert_to_tensor(x, name="x")
        rank = ops.convert_to_tensor(rank, name="rank")
        if data is None:
            data = [_prefix(message), "Tensor %s must have %s" % (x.name, what), rank, "Received shape: ",
                    array_ops.shape(x)]
        assert_type(rank, dtypes.int32)
        want = constant_value(rank)
        if want is not None:
            if want.ndim != 0:
                raise ValueError("Rank must be a scalar.")
            have = x.shape.ndims
            if have is not None:
                if not static_ok(have, int(want)):
                    raise ValueError("%sTensor %s must have %s %d.  Received rank %d, shape %s"
                                     % (_prefix(message), x.name, what, int(want), have, x.shape))
                return no_op(name="static_checks_determined_all_ok")
        return Assert(dyn_fn(array_ops.rank(x), rank), data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Static: ValueError when the rank is known and differs; else an Assert on Rank."""
    return _rank_assert("assert_rank", "rank", lambda a, b: a == b, math_ops.equal, x, rank, data, summarize,
                        message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    return _rank_assert("assert_rank_at_least", "rank at least", lambda a, b: a >= b, math_ops.greater_equal,
                        x, rank, data, summarize, message, name)


def assert_type(tensor, tf_type, message=None, name=None):
    tf_type = dtypes.as_dtype(tf_type)
    with ops.name_scope(name, "assert_type", [tensor]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError("%s%s must be of type %r; got %r" % (_prefix(message), tensor.name,
                                                                   tf_type, tensor.dtype))
        return no_op("statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    with ops.name_scope(name, "assert_integer", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError("%sExpected \"x\" to be integer type.  Found: %s of dtype %s"
                            % (_prefix(message), x.name, x.dtype))
        return no_op("statically_determined_was_integer")


def is_numeric_tensor(tensor):
    return isinstance(tensor, ops.Tensor) and tensor.dtype.base_dtype in (
        dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
        dtypes.uint8, dtypes.uint16, dtypes.complex64, dtypes.complex128, dtypes.bfloat16)


def check_numerics(tensor, message, name=None):
    return gen.apply("CheckNumerics", name, tensor=tensor, message=message)


def verify_tensor_all_finite(t, msg, name=None):
    with ops.name_scope(name, "VerifyFinite", [t]) as name:
        t = ops.convert_to_tensor(t, name="t")
        with ops.colocate_with(t) if hasattr(ops, "colocate_with") else _null():
            verify_input = check_numerics(t, message=msg)
            return _with_dependencies([verify_input], t)


class _null(object):
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 (TF's name)
    """input_ unchanged; each run writes message and the data to stderr (the Print op)."""
    with ops.name_scope(name, "Print", [input_]) as sc:
        data = [d if isinstance(d, ops.Tensor) else ops.convert_to_tensor(d, name="data_%d" % i)
                for i, d in enumerate(data)]
        return gen.apply("Print", sc, input=input_, data=data, message=message, first_n=first_n,
                         summarize=summarize)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A string vector of the names of the variables of var_list (default: global and local
    variables) that are not initialized (TF: VarIsInitialized per variable, stacked, masked;
    as TF, all but the per-variable checks on $TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING,
    default /cpu:0)."""
    import os
    from tfc.framework import constant_op
    from tfc.ops import variables
    if var_list is None:
        var_list = variables.global_variables() + variables.local_variables()
    with ops.name_scope(name):
        init_flags = [variables.is_variable_initialized(v) for v in var_list]
        with ops.device(os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING", "/cpu:0")):
            if not var_list:
                return constant_op.constant([], dtype=dtypes.string)
            variables_mask = math_ops.logical_not(array_ops.stack(init_flags))
            variable_names_tensor = constant_op.constant([v.op.name for v in var_list])
            return array_ops.boolean_mask(variable_names_tensor, variables_mask)
