"""Building any op from its OpDef, as TF's op_def_library.apply_op does.

apply(op_type, name, **kwargs): inputs by their arg names, attrs by name. Type attrs are
inferred from the inputs (the first input fixes a type attr; later ones must match: TypeError
"Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."),
number attrs from list lengths, type-list attrs from the list's dtypes; an attr not given (or
given as None) takes its OpDef default, filled in by the library. Python values for inputs become Consts named after the arg
inside the op's name scope (`Add/y`). The op is named by that scope.

Returns what TF's generated wrappers return: the Operation when the op has no outputs, the
Tensor when it has one plain output, else a tuple with one entry per output arg (a list for
list outputs).
"""
import contextlib
import numpy as np

from tfc.framework import dtypes
from tfc.framework import op_def_registry
from tfc.framework import ops
from tfc.framework import tensor_shape


def _str_bytes(v):
    if not isinstance(v, (bytes, str)):
        raise TypeError(v)
    return v.encode("utf-8") if isinstance(v, str) else v


def _strict_int(v):
    if isinstance(v, (bool, float)) or not isinstance(v, (int, np.integer)):
        raise TypeError(v)
    return int(v)


def _strict_bool(v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(v)
    return bool(v)


def _tensor_attr(v):
    from tfc.framework import constant_op
    arr, dt = constant_op.to_ndarray(v)
    return (dt.as_datatype_enum, arr)


def _func_name(v):
    return (v if isinstance(v, str) else v.name).encode("utf-8")


_SCALAR = {
    "type": lambda v: dtypes.as_dtype(v).base_dtype.as_datatype_enum,
    "shape": lambda v: tensor_shape.as_shape(v)._as_c_dims(),
    "int": _strict_int,
    "float": float,
    "bool": _strict_bool,
    "string": _str_bytes,
    "tensor": _tensor_attr,
    "func": _func_name,
}


def _attr_value(op_type, attr, value):
    """The extension's (kind, value) for a Python attr value of OpDef type attr['type'];
    TypeError naming the attr when the value does not fit."""
    kind, name = attr["type"], attr["name"]
    is_list = kind.startswith("list(")
    conv = _SCALAR.get(kind[5:-1] if is_list else kind)
    if conv is None:
        raise TypeError("attr '%s' of '%s' has unsupported type %s" % (name, op_type, kind))
    if is_list and not isinstance(value, (list, tuple)):
        raise TypeError("Expected list for '%s' argument to '%s' Op, not %r." % (name, op_type, value))
    try:
        return kind, [conv(v) for v in value] if is_list else conv(value)
    except (TypeError, ValueError):
        raise TypeError("Expected %s for argument '%s' not %r." % (kind, name, value))


def _allowed_string(op_type, attr, v):
    """TF's op_def_library check of a string attr against its allowed values."""
    sv = v.encode() if isinstance(v, str) else v
    if isinstance(sv, bytes) and sv not in attr["allowed_values"]:
        raise ValueError("Attr '%s' of '%s' Op passed string '%s' not in: \"%s\"." % (
            attr["name"], op_type, sv.decode("utf-8", "replace"),
            '", "'.join(a.decode("utf-8", "replace") for a in attr["allowed_values"])))


def _allowed(op_type, attr, dt, arg_name):
    allowed = attr.get("allowed_values")
    if allowed and isinstance(allowed, list) and dt.as_datatype_enum not in allowed:
        names = ", ".join(sorted(dtypes.as_dtype(a).name for a in allowed))
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values: %s"
                        % (arg_name, dt.name, names))


def apply(op_type, name=None, **kwargs):
    op_def = op_def_registry.get(op_type)
    if op_def is None:
        raise ValueError("No op named %s in defined operations." % op_type)
    g = ops.get_default_graph()
    attrs_by_name = {a["name"]: a for a in op_def["attr"]}
    with ops.name_scope(name, op_type) as scope:
        inferred = {}   # attr name -> value (DType, int, list of DTypes)
        inferred_from = {}
        inputs = []
        for arg in op_def["input_arg"]:
            an = arg["name"]
            if an not in kwargs:
                raise TypeError("%s missing required argument '%s'" % (op_type, an))
            value = kwargs.pop(an)
            if arg["number_attr"]:
                if not isinstance(value, (list, tuple)):
                    raise TypeError("Expected list for '%s' argument to '%s' Op, not %s." % (an, op_type, value))
                dt = None
                if arg["type"]:
                    dt = dtypes.as_dtype(arg["type"])
                elif arg["type_attr"] in inferred:
                    dt = inferred[arg["type_attr"]]
                elif arg["type_attr"] in kwargs:
                    dt = dtypes.as_dtype(kwargs[arg["type_attr"]])
                ts = []
                given = [v.dtype.base_dtype for v in value if isinstance(v, ops.Tensor)]
                if len(set(given)) > 1:
                    raise TypeError("Tensors in list passed to '%s' of '%s' Op have types [%s] that don't all "
                                    "match." % (an, op_type, ", ".join(d.name for d in given)))
                for v in value:
                    if dt is None and isinstance(v, ops.Tensor):
                        dt = v.dtype.base_dtype
                for i, v in enumerate(value):
                    ts.append(ops.convert_to_tensor(v, dtype=dt, name="%s_%d" % (an, i)))
                    dt = ts[-1].dtype.base_dtype
                if arg["number_attr"] not in inferred:
                    inferred[arg["number_attr"]] = len(ts)
                if arg["type_attr"] and ts:
                    _allowed(op_type, attrs_by_name[arg["type_attr"]], dt, an)
                    inferred.setdefault(arg["type_attr"], dt)
                inputs.append(ts)
            elif arg["type_list_attr"]:
                if not isinstance(value, (list, tuple)):
                    raise TypeError("Expected list for '%s' argument to '%s' Op, not %s." % (an, op_type, value))
                ts = [ops.convert_to_tensor(v, name=an) for v in value]
                inferred.setdefault(arg["type_list_attr"], [t.dtype.base_dtype for t in ts])
                inputs.append(ts)
            else:
                dt = None
                ta = arg["type_attr"]
                if arg["type"]:
                    dt = dtypes.as_dtype(arg["type"])
                elif ta in inferred:
                    dt = inferred[ta]
                elif ta in kwargs:
                    dt = dtypes.as_dtype(kwargs[ta])
                default_dt = None
                if dt is None and ta and "default" in attrs_by_name[ta]:
                    default_dt = dtypes.as_dtype(attrs_by_name[ta]["default"])
                try:
                    t = ops.convert_to_tensor(value, dtype=dt, name=an, preferred_dtype=default_dt)
                except (TypeError, ValueError):
                    if ta in inferred_from:
                        try:
                            observed = ops.convert_to_tensor(value, name=an).dtype.name
                        except (TypeError, ValueError):
                            observed = None
                        if observed is not None:
                            raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s "
                                            "of argument '%s'." % (an, op_type, observed, dt.name, inferred_from[ta]))
                    raise
                if dt is not None and t.dtype.base_dtype != dt:
                    if ta in inferred_from:
                        raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s "
                                        "of argument '%s'." % (an, op_type, t.dtype.base_dtype.name, dt.name,
                                                               inferred_from[ta]))
                    raise TypeError("Input '%s' of '%s' Op has type %s that does not match expected type of %s."
                                    % (an, op_type, t.dtype.base_dtype.name, dt.name))
                if ta and ta not in inferred:
                    _allowed(op_type, attrs_by_name[ta], t.dtype.base_dtype, an)
                    inferred[ta] = t.dtype.base_dtype
                    inferred_from[ta] = an
                inputs.append(t)
        attrs = []
        for attr in op_def["attr"]:
            an = attr["name"]
            if an in inferred:
                v = inferred.pop(an)
                if an in kwargs:
                    given = kwargs.pop(an)
                    if attr["type"] == "type" and dtypes.as_dtype(given) != v:
                        raise TypeError("Input has type %s, but attr %s is %s" % (v.name, an, dtypes.as_dtype(given).name))
                attrs.append((an,) + _attr_value(op_type, attr, v))
            elif an in kwargs and not (kwargs[an] is None and "default" in attr):
                v = kwargs.pop(an)
                if attr["type"] == "type":
                    _allowed(op_type, attr, dtypes.as_dtype(v), an)
                elif attr["type"] == "string" and attr.get("allowed_values"):
                    _allowed_string(op_type, attr, v)
                attrs.append((an,) + _attr_value(op_type, attr, v))
            elif "default" in attr:
                kwargs.pop(an, None)  # the library fills in the OpDef's default
            else:
                raise TypeError("%s missing required argument '%s'" % (op_type, an))
        if kwargs:
            raise TypeError("%s got unexpected keyword arguments: %s" % (op_type, ", ".join(sorted(kwargs))))
        # As TF's op_def_library: an op with a reference input is colocated with that input.
        refs = [t for arg, t in zip(op_def["input_arg"], inputs) if arg["is_ref"] and isinstance(t, ops.Tensor)]
        if refs:
            with _colocated(g, refs):
                op = g._create_op(op_type, inputs, attrs, name=scope)
        else:
            op = g._create_op(op_type, inputs, attrs, name=scope)
    return _outputs(op, op_def)


@contextlib.contextmanager
def _colocated(g, tensors):
    with contextlib.ExitStack() as stack:
        for t in tensors:
            stack.enter_context(g.colocate_with(t.op))
        yield


def _outputs(op, op_def):
    outs = op.outputs
    args = op_def["output_arg"]
    if not args:
        return op
    if len(args) == 1 and not args[0]["number_attr"] and not args[0]["type_list_attr"]:
        return outs[0]
    if len(args) == 1:
        return outs  # one list output: the list itself
    result, i = [], 0
    for arg in args:
        if arg["number_attr"] or arg["type_list_attr"]:
            n = _list_len(op, arg)
            result.append(outs[i:i + n])
            i += n
        else:
            result.append(outs[i])
            i += 1
    return tuple(result)


def _list_len(op, arg):
    if arg["number_attr"]:
        return op.get_attr(arg["number_attr"])
    return len(op.get_attr(arg["type_list_attr"]))
