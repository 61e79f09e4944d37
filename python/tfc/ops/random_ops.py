"""tf.random_normal / truncated_normal / random_uniform over the C builders (TFC_RandomNormal,
TFC_TruncatedNormal, TFC_RandomUniform), and tf.zeros / tf.ones.

The random ops are built by include/tfc/train.h's builders under the current context (see
variables.py for the bridge): the scope "random_normal" (unique) holding shape, mean/stddev
(min/max), the random op, [sub,] mul, and the AddV2 named after the scope. Seeds follow TF
1.15 (tf.set_random_seed; an op seed not given is the number of ops in the graph), so graphs
made by TF 2.x's compat.v1 differ in seed2 only. The builders take static shapes and Python
numbers for the parameters; a tensor for either raises TypeError. `name` replaces the scope
name (TFC_ScopeWithBuilderName).

tf.zeros / tf.ones build what array_ops does: a Const named after the scope for fewer than
1000 elements, else Fill of "<scope>/shape_as_tensor" and "<scope>/Const".
"""
import numbers

import numpy as np

from tfc import _pywrap
from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import variables

_TRUNCATED, _NORMAL, _UNIFORM = 0, 1, 2
_OP_TYPES = ("TruncatedNormal", "RandomStandardNormal", "RandomUniform")


def _static_shape(shape, what):
    if isinstance(shape, ops.Tensor):
        raise TypeError("%s: tfc's builder takes a static shape (a list of ints), not the tensor %s"
                        % (what, shape.name))
    dims = tensor_shape.as_shape(shape)
    if not dims.is_fully_defined():
        raise ValueError("%s: the shape must be fully defined, got %s" % (what, dims))
    return [int(d) for d in dims.as_list()]


def _number(x, what):
    if isinstance(x, (numbers.Real, np.number)) and not isinstance(x, bool):
        return float(x)
    raise TypeError("%s: tfc's builder takes a Python number here, got %r" % (what, x))


def _random(kind, shape, a, b, dtype, seed, what, name=None):
    dims = _static_shape(shape, what)
    dtype = dtypes.as_dtype(dtype)
    g = ops.get_default_graph()
    sc = g._builder_scope(_OP_TYPES[kind], builder_name=name)
    op, index = variables.call_builder(g, _pywrap.random, sc, kind, dims, _number(a, what), _number(b, what),
                                       dtype.as_datatype_enum, int(seed or 0))
    return g._ops_by_handle[op].outputs[index]


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    return _random(_NORMAL, shape, mean, stddev, dtype, seed, "random_normal", name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    return _random(_TRUNCATED, shape, mean, stddev, dtype, seed, "truncated_normal", name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    return _random(_UNIFORM, shape, minval, maxval, dtype, seed, "random_uniform", name)


def _filled(value, shape, dtype, name, default):
    """array_ops.zeros / ones: Const below 1000 elements, else Fill."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    g = ops.get_default_graph()
    with g.name_scope(name or default) as scope:
        dims = [int(d) for d in tensor_shape.as_shape(shape).as_list()]
        if int(np.prod(dims)) < 1000:
            return constant_op.constant(value, dtype=dtype, shape=dims, name=scope)
        shape_t = constant_op.constant(np.array(dims, np.int32), name="shape_as_tensor")
        fill_value = constant_op.constant(value, dtype=dtype, name="Const")
        from tfc.ops import gen
        return gen.apply("Fill", scope, dims=shape_t, value=fill_value)


def zeros(shape, dtype=dtypes.float32, name=None):
    return _filled(0, shape, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    return _filled(1, shape, dtype, name, "ones")
