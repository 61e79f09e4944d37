"""tf.map_fn, tf.scan, tf.foldl and tf.foldr (TF 1.15's functional_ops.py / map_fn.py): a
Python function applied along dimension 0 of (possibly nested) tensors.

Each is one tf.while_loop (the C while-loop builder, through control_flow_ops.while_loop) over
TensorArrays (tensor_array_ops.TensorArray): the elements are unstacked into one array per
flattened input, the loop reads element i, calls fn, and writes the results into one array per
flattened output, which are stacked at the end. So the graph is TF's: under the function's
name scope ("map", "scan", "foldl", "foldr") the TensorArrays, their TensorArrayUnstack, the
while loop and the TensorArrayStack, and gradients flow through the TensorArray gradients of
the C gradient registry. The leading dimension n is a Python int when it is static, else
shape(elems[0])[0]; outputs get the static n as their first dimension.

Errors are TF 1.15's: a fn that is not callable is a TypeError, elems that hold no tensor a
ValueError, elems whose first dimensions disagree a ValueError, and an fn whose result does not
have the structure asked for (dtype=, or the initializer's) a TypeError or ValueError naming
both structures.
"""
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import array_ops
from tfc.ops import control_flow_ops
from tfc.ops import tensor_array_ops

_flatten = control_flow_ops.flatten
_pack = control_flow_ops.pack_sequence_as
_is_seq = control_flow_ops._is_seq


def _check_fn(fn):
    if not callable(fn):
        raise TypeError("fn must be callable.")


def _same_structure(a, b):
    if _is_seq(a) != _is_seq(b):
        return False
    if not _is_seq(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    ka = control_flow_ops._children(a)
    kb = control_flow_ops._children(b)
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    return len(ka) == len(kb) and all(_same_structure(x, y) for x, y in zip(ka, kb))


def _assert_same_structure(expected, got):
    if not _same_structure(expected, got):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                         "Second structure: %s" % (_structure(expected), _structure(got)))


def _structure(x):
    if not _is_seq(x):
        return "."
    if isinstance(x, dict):
        return "{" + ", ".join("%r: %s" % (k, _structure(x[k])) for k in sorted(x)) + "}"
    kids = ", ".join(_structure(c) for c in x)
    return ("[%s]" if isinstance(x, list) else "(%s)") % kids


def _elems_flat(elems, what):
    flat = [ops.convert_to_tensor(e, name="elem") for e in _flatten(elems)]
    if not flat:
        raise ValueError("%s must be a Tensor or (possibly nested) sequence of Tensors. Got %r, which does not "
                         "contain any Tensors." % (what, elems))
    return flat


def _leading_dim(elems_flat):
    """n as a Python int when static, else a scalar tensor; a ValueError when the static first
    dimensions disagree or an element is a scalar."""
    static = tensor_shape.Dimension(None)
    for e in elems_flat:
        shape = e.get_shape()
        if shape.ndims == 0:
            raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")
        if shape.ndims is not None:
            static = static.merge_with(shape[0])
    if static.value is not None:
        return static.value, static
    return array_ops.shape(elems_flat[0])[0], static


def _unstack_all(elems_flat, n):
    tas = []
    for e in elems_flat:
        ta = tensor_array_ops.TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True)
        tas.append(ta.unstack(e))
    return tas


def _stacked(tas, static_n):
    out = []
    for ta in tas:
        r = ta.stack()
        r.set_shape(tensor_shape.TensorShape([static_n]).concatenate(r.get_shape()[1:]))
        out.append(r)
    return out


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, default_name, reverse):
    _check_fn(fn)
    with ops.name_scope(name, default_name, [elems]):
        elems_flat = _elems_flat(elems, "elems")
        n, _ = _leading_dim(elems_flat)
        elems_ta = _unstack_all(elems_flat, n)

        def pack_elems(i):
            return _pack(elems, [ta.read(i) for ta in elems_ta])

        if initializer is None:
            a = pack_elems(n - 1 if reverse else 0)
            start = 1
        else:
            a = initializer
            start = 0

        if reverse:
            i0 = n - 1 - start

            def cond(i, _):
                return i >= 0
        else:
            i0 = start

            def cond(i, _):
                return i < n

        def body(i, acc):
            acc = fn(acc, pack_elems(i))
            return (i - 1 if reverse else i + 1), acc

        _, result = control_flow_ops.while_loop(cond, body, (i0, a), parallel_iterations=parallel_iterations,
                                                back_prop=back_prop, swap_memory=swap_memory)
        return result


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(acc, x) applied left to right over dimension 0 of elems; the last acc. With no
    initializer the first element is the initial acc (and the fold starts at the second)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl", False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """foldl from the last element to the first."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr", True)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None):
    """fn applied to each element of elems along dimension 0, the results stacked. dtype gives
    the (nested) dtypes of fn's result when they differ from elems'."""
    _check_fn(fn)
    if parallel_iterations is None:
        parallel_iterations = 10
    with ops.name_scope(name, "map", [elems]):
        elems_flat = _elems_flat(elems, "elems")
        out_structure = elems if dtype is None else dtype
        dtype_flat = [e.dtype for e in elems_flat] if dtype is None else [dtypes.as_dtype(d) for d in _flatten(dtype)]
        n, static_n = _leading_dim(elems_flat)
        elems_ta = _unstack_all(elems_flat, n)
        accs = [tensor_array_ops.TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                for dt in dtype_flat]

        def body(i, tas):
            value = fn(_pack(elems, [ta.read(i) for ta in elems_ta]))
            if dtype is None or _is_seq(dtype):
                _assert_same_structure(out_structure, value)
            flat = _flatten(value)
            if len(flat) != len(tas):
                raise ValueError("The two structures don't have the same number of elements.\n\n"
                                 "First structure (%d elements): %s\n\nSecond structure (%d elements): %s"
                                 % (len(tas), _structure(out_structure), len(flat), _structure(value)))
            written = []
            for ta, v in zip(tas, flat):
                v = ops.convert_to_tensor(v, dtype=ta.dtype)
                written.append(ta.write(i, v))
            return i + 1, written

        _, accs = control_flow_ops.while_loop(lambda i, _: i < n, body, (0, accs),
                                              parallel_iterations=parallel_iterations, back_prop=back_prop,
                                              swap_memory=swap_memory)
        return _pack(out_structure, _stacked(accs, static_n.value))


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The sequence of accs of a fold: fn(acc, x) over dimension 0 of elems, each acc stacked
    (reverse scans from the last element, writing each acc at its element's index)."""
    _check_fn(fn)
    with ops.name_scope(name, "scan", [elems]):
        elems_flat = _elems_flat(elems, "elems")
        n, static_n = _leading_dim(elems_flat)
        elems_ta = _unstack_all(elems_flat, n)
        out_structure = elems if initializer is None else initializer
        first = n - 1 if reverse else 0
        if initializer is None:
            a_flat = [ta.read(first) for ta in elems_ta]
            skip = 1
        else:
            a_flat = [ops.convert_to_tensor(v) for v in _flatten(initializer)]
            skip = 0
        accs = [tensor_array_ops.TensorArray(dtype=a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                                             element_shape=a.get_shape() if infer_shape else None)
                for a in a_flat]
        if initializer is None:
            accs = [ta.write(first, a) for ta, a in zip(accs, a_flat)]

        def body(i, a, tas):
            out = fn(_pack(out_structure, a), _pack(elems, [ta.read(i) for ta in elems_ta]))
            _assert_same_structure(out_structure, out)
            flat = [ops.convert_to_tensor(v) for v in _flatten(out)]
            tas = [ta.write(i, v) for ta, v in zip(tas, flat)]
            return (i - 1 if reverse else i + 1), flat, tas

        if reverse:
            i0 = n - 1 - skip

            def cond(i, _a, _t):
                return i >= 0
        else:
            i0 = skip

            def cond(i, _a, _t):
                return i < n

        _, _, accs = control_flow_ops.while_loop(cond, body, (i0, a_flat, accs),
                                                 parallel_iterations=parallel_iterations, back_prop=back_prop,
                                                 swap_memory=swap_memory)
        return _pack(out_structure, _stacked(accs, static_n.value))
