"""tf.py_func and tf.numpy_function: Python functions as graph ops (TF's script_ops).

py_func(func, inp, Tout, stateful=True, name=None) registers func under a token
"pyfunc_<n>" (process-wide counter, as TF) and builds a PyFunc (stateful) or PyFuncStateless
op with attrs token, Tin and Tout; its outputs have unknown shapes. Python values among inp
become Consts "input_<i>" in the op's scope. The registry holds functions weakly; the graph
keeps a strong reference (graph._py_funcs_used_in_graph), so a function lives as long as the
graph it was used in, as in TF. Only usable in this process: a graph with PyFunc nodes run
elsewhere (tfc_run, another process) fails with FAILED_PRECONDITION / not-found errors.

At run time the extension's script callback (python/_pywrap/script.c) calls _dispatch on a
session thread, holding the GIL: the function gets numpy arrays (copies) and returns an array,
a value numpy converts, or a list/tuple of them, one per Tout (None for no outputs). Results
are converted as TF's FuncRegistry does (str to bytes objects); the kernel then checks each
dtype against Tout. An exception in the function fails the run with TF's code for its class
(ValueError/TypeError: InvalidArgumentError, StopIteration: OutOfRangeError, MemoryError:
ResourceExhaustedError, NotImplementedError: UnimplementedError, anything else: UnknownError)
and TF's message ("ValueError: boom" followed by the traceback).
"""
import itertools
import threading
import traceback
import weakref

import numpy as np

from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import ops
from tfc.ops import gen

_funcs = weakref.WeakValueDictionary()
_lock = threading.Lock()
_counter = itertools.count()


class _Callable(object):
    """A strong, weak-referenceable holder of the user's function (functions such as
    builtins and bound methods do not all support weak references)."""

    def __init__(self, func):
        self.func = func


def _convert(value, dtype=None):
    """TF's FuncRegistry._convert: an ndarray, with str turned into bytes objects."""
    result = np.asarray(value, dtype=dtype, order="C")
    if result.dtype.char == "S" and result is not value:
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U" and result is not value:
        value = np.vectorize(lambda x: x.encode("utf8"))(value)
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U":
        return result.astype(np.bytes_)
    return result


def _dtype_enum(arr):
    if arr.dtype == object or arr.dtype.char == "S":
        return dtypes.string.as_datatype_enum
    try:
        return dtypes.as_dtype(arr.dtype).as_datatype_enum
    except TypeError:
        raise TypeError("Unsupported numpy type %s" % arr.dtype)


_CODES = ((ValueError, errors.INVALID_ARGUMENT), (TypeError, errors.INVALID_ARGUMENT),
          (StopIteration, errors.OUT_OF_RANGE), (MemoryError, errors.RESOURCE_EXHAUSTED),
          (NotImplementedError, errors.UNIMPLEMENTED))


def _error(e):
    code = errors.UNKNOWN
    for cls, c in _CODES:
        if isinstance(e, cls):
            code = c
            break
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    return code, "%s: %s\n%s" % (type(e).__name__, e, "\n".join(tb))


def _dispatch(token, args, out_types):
    """Called by the extension: [(array, dtype enum)] per output, or (code, message)."""
    try:
        holder = _funcs.get(token)
        if holder is None:
            raise ValueError("callback %s is not found" % token)
        ret = holder.func(*args)
        if isinstance(ret, bytes):
            ret = [ret]
        if isinstance(ret, (tuple, list)):
            vals = [_convert(x) for x in ret]
        else:
            v = _convert(ret)
            vals = [] if (v.dtype == object and v.shape == () and v.item() is None) else [v]
        if len(vals) != len(out_types):
            return (errors.INVALID_ARGUMENT, "%s returns %d values, but expects to see %d values."
                    % (token, len(vals), len(out_types)))
        return [(v, _dtype_enum(v)) for v in vals]
    except Exception as e:  # noqa: BLE001 (every error becomes the run's status)
        return _error(e)


_pywrap.set_script_dispatcher(_dispatch)


def _internal_py_func(func, inp, Tout, stateful, name):  # noqa: N803 (TF's name)
    if not callable(func):
        raise ValueError("Expected func to be callable, got func of type {}".format(type(func)))
    is_list_or_tuple = isinstance(Tout, (list, tuple))
    tout = list(Tout) if is_list_or_tuple else [Tout]
    tout = [dtypes.as_dtype(t).base_dtype for t in tout]
    holder = _Callable(func)
    with _lock:
        token = "pyfunc_%d" % next(_counter)
        _funcs[token] = holder
    g = ops.get_default_graph()
    if not hasattr(g, "_py_funcs_used_in_graph"):
        g._py_funcs_used_in_graph = []
    g._py_funcs_used_in_graph.append(holder)
    op_type = "PyFunc" if stateful else "PyFuncStateless"
    with ops.name_scope(name, op_type, list(inp)) as scope:
        inputs = [x if isinstance(x, ops.Tensor) else ops.convert_to_tensor(x, name="input_%d" % i)
                  for i, x in enumerate(inp)]
        result = gen.apply(op_type, scope, input=inputs, token=token, Tout=tout)
    if isinstance(result, ops.Operation):
        outs = []
    else:
        outs = list(result)
    if not outs:
        # no outputs: TF's wrapper gives the operation
        return g.get_operation_by_name(scope.rstrip("/")) if is_list_or_tuple else None
    return outs if is_list_or_tuple else outs[0]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 (TF's name)
    return _internal_py_func(func, inp, Tout, stateful, name)


def numpy_function(func, inp, Tout, name=None):  # noqa: N803
    return _internal_py_func(func, inp, Tout, True, name)
