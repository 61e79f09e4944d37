"""tf.constant and the Python value -> ndarray rules of TF 1.x (constant_op.py, tensor_util.py).

With no dtype: Python floats give float32, Python ints int32 when they fit (else int64), bools
bool, strings string, complex complex128; numpy arrays and scalars keep their dtype. With a
dtype, Python values must be compatible ("Expected int32, got 1.5 of type 'float' instead.").
With a shape, a single value or too few values are completed with the last value; too many
raise ValueError. The Const op gets the value as a tensor attr.
"""
import numbers

import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape


def _flatten(v):
    if isinstance(v, (list, tuple)):
        for x in v:
            for y in _flatten(x):
                yield y
    else:
        yield v


class _Ragged(Exception):
    pass


def _dense_shape(v):
    """The shape a nested list would have if dense; _Ragged when it is not."""
    if not isinstance(v, (list, tuple)):
        return []
    if not v:
        return [0]
    inner = _dense_shape(v[0])
    for x in v[1:]:
        if _dense_shape(x) != inner:
            raise _Ragged()
    return [len(v)] + inner


def _shape_of(value):
    try:
        return _dense_shape(value)
    except _Ragged:
        first = _dense_shape(value[0]) if isinstance(value[0], (list, tuple)) else []
        raise ValueError("Argument must be a dense tensor: %s - got shape %s, but wanted %s."
                         % (value, [len(value)], [len(value)] + first))


def _check_compatible(values, dtype):
    if dtype.is_bool:
        ok = lambda x: isinstance(x, (bool, np.bool_))
    elif dtype.is_integer:
        ok = lambda x: isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool) or isinstance(x, np.bool_) and False
    elif dtype.is_floating:
        ok = lambda x: isinstance(x, (numbers.Real, np.number)) and not isinstance(x, complex)
    elif dtype.is_complex:
        ok = lambda x: isinstance(x, (numbers.Number, np.number))
    elif dtype.base_dtype == dtypes.string:
        ok = lambda x: isinstance(x, (bytes, str))
    else:
        return
    for x in _flatten(values):
        if isinstance(x, np.ndarray):
            continue
        if not ok(x):
            raise TypeError("Expected %s, got %s of type '%s' instead." % (dtype.name, repr(x), type(x).__name__))


def to_ndarray(value, dtype=None):
    """(ndarray, DType) for a Python or numpy value under TF's inference rules."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if dtype is None:
            return arr, dtypes.as_dtype(arr.dtype)
        if dtype == dtypes.string:
            return arr.astype(object), dtype
        npd = np.dtype(dtype.as_numpy_dtype)
        if arr.dtype != npd and not np.can_cast(arr.dtype, npd, "same_kind"):
            raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
        return arr.astype(npd), dtype
    if any(x is None for x in _flatten(value)):
        raise ValueError("None values not supported.")
    shape = _shape_of(value)
    if dtype is not None:
        _check_compatible(value, dtype)
        if dtype == dtypes.string:
            arr = np.empty(shape, dtype=object)
            flat = [x.encode("utf-8") if isinstance(x, str) else x for x in _flatten(value)]
            arr.reshape(-1)[:] = flat if shape else flat[0]
            return arr, dtype
        return np.array(value, dtype=dtype.as_numpy_dtype), dtype
    flat = list(_flatten(value))
    if flat and all(isinstance(x, (bytes, str)) for x in flat):
        arr = np.empty(shape, dtype=object)
        enc = [x.encode("utf-8") if isinstance(x, str) else x for x in flat]
        if shape:
            arr.reshape(-1)[:] = enc
        else:
            arr[()] = enc[0]
        return arr, dtypes.string
    arr = np.array(value)
    if arr.dtype == np.float64 and not any(isinstance(x, np.float64) for x in flat):
        return arr.astype(np.float32), dtypes.float32
    if arr.dtype == np.int64 or arr.dtype.kind == "i":
        if arr.size == 0 or (arr.min() >= -2 ** 31 and arr.max() < 2 ** 31):
            return arr.astype(np.int32), dtypes.int32
        return arr, dtypes.int64
    if arr.dtype.kind == "O":
        raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. Consider casting "
                        "elements to a supported type." % (type(value), value))
    return arr, dtypes.as_dtype(arr.dtype)


def _fit_shape(arr, shape, verify_shape):
    shape = tensor_shape.as_shape(shape)
    want = shape.as_list()
    n = shape.num_elements()
    if verify_shape:
        if list(arr.shape) != want:
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(want), arr.shape))
        return arr
    if arr.size == n:
        return arr.reshape(want)
    if arr.size > n:
        raise ValueError("Too many elements provided. Needed at most %d, but received %d" % (n, arr.size))
    flat = arr.reshape(-1)
    if flat.size == 0:
        raise ValueError("Cannot fill a tensor of %d elements from none" % n)
    out = np.empty(n, dtype=arr.dtype)
    out[:flat.size] = flat
    out[flat.size:] = flat[-1]
    return out.reshape(want)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """tf.constant (v1 signature)."""
    arr, dt = to_ndarray(value, dtype)
    if shape is not None:
        arr = _fit_shape(arr, shape, verify_shape)
    g = ops.get_default_graph()
    op = g._create_op("Const", [], [("value", "tensor", (dt.as_datatype_enum, arr)),
                                    ("dtype", "type", dt.as_datatype_enum)], name=name)
    return op.outputs[0]


def _first_dtype(values):
    for v in values:
        if isinstance(v, ops.Tensor):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            d = _first_dtype(v)
            if d is not None:
                return d
    return None


def _autopack(values, dtype, name):
    """A list holding Tensors as one Pack named by the scope `name`, as TF's autopacking: other
    elements become Consts named by their index ("packed/0") of the first Tensor's dtype;
    nested lists pack in scopes named by their index."""
    from tfc.ops import gen
    if dtype is None:
        dtype = _first_dtype(values)
    with ops.name_scope(name) as scope:
        elems = []
        for i, v in enumerate(values):
            if isinstance(v, ops.Tensor):
                if dtype is not None and v.dtype.base_dtype != dtype:
                    raise TypeError("Cannot convert a list containing a tensor of dtype %s to %s (Tensor is: %r)"
                                    % (v.dtype, dtype, v))
                elems.append(v)
            elif isinstance(v, (list, tuple)) and ops._has_tensor(v):
                elems.append(_autopack(v, dtype, str(i)))
            else:
                elems.append(constant(v, dtype=dtype, name=str(i)))
        return gen.apply("Pack", scope, values=elems, axis=0)


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")
