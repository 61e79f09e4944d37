"""tf.make_tensor_proto and tf.make_ndarray (TF 1.x tensor_util): numpy values to TensorProto
messages (framework/graph_pb) and back.

Design: make_tensor_proto infers the dtype with constant_op.to_ndarray (tf.constant's rules,
the one implementation of them), then stores the value as TF does: tensor_content (the raw
little-endian bytes) when the dtype is one of the fixed-size numeric types, the value fills
the shape and has more than one element; otherwise the typed *_val field with the values
given (fewer than the shape's elements: readers repeat the last one). make_ndarray reads
either form back, repeating the last value up to the shape's size.

Errors (TF's classes and texts): None values ValueError "None values not supported."; more
values than the shape holds ValueError "Too many elements provided. Needed at most N, but
received M"; verify_shape with another shape TypeError "Expected Tensor's shape: ..., got
...."; incompatible Python values TypeError (constant_op's); make_ndarray of a dtype it cannot
read TypeError "Unsupported tensor type: N".
"""
import numpy as np

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import graph_pb
from tfc.framework import tensor_shape

_CONTENT_TYPES = frozenset(["float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64", "qint8", "quint8",
                            "qint16", "quint16", "qint32", "uint32", "uint64"])


def _shape_proto(dims):
    return graph_pb.TensorShapeProto(dim=[graph_pb.TensorShapeProto.Dim(size=int(d)) for d in dims])


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding `values` (a new message). See the module comment."""
    if values is None:
        raise ValueError("None values not supported.")
    if isinstance(values, graph_pb.TensorProto):
        return values
    dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if dt is not None and dt.is_quantized:
        arr = np.asarray(values, dtype=dt.as_numpy_dtype)
    elif shape is not None and int(np.prod([int(d) for d in shape], dtype=np.int64)) == 0:
        arr = np.empty([int(d) for d in shape], dtype=dt.as_numpy_dtype if dt is not None else np.float32)
        dt = dt or dtypes.float32
    else:
        arr, dt2 = constant_op.to_ndarray(values, dt)
        dt = dt2 if dt is None else dt
    if shape is None:
        dims = list(arr.shape)
        same = True
    else:
        dims = [int(d) for d in shape]
        n = int(np.prod(dims, dtype=np.int64))
        same = n == arr.size
        if verify_shape and list(arr.shape) != dims:
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(dims), tuple(arr.shape)))
        if allow_broadcast and arr.size != n and arr.shape not in ((), (1,)):
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(dims), tuple(arr.shape)))
        if arr.size > n:
            raise ValueError("Too many elements provided. Needed at most %d, but received %d" % (n, arr.size))
    proto = graph_pb.TensorProto(dtype=dt.as_datatype_enum, tensor_shape=_shape_proto(dims))
    size = int(np.prod(dims, dtype=np.int64))
    if same and dt.name in _CONTENT_TYPES and size > 1:
        proto.tensor_content = np.ascontiguousarray(arr, dtype=np.dtype(dt.as_numpy_dtype).newbyteorder("<")).tobytes()
        return proto
    flat = arr.reshape(-1)
    name = dt.name
    if name == "string":
        proto.string_val.extend(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in flat)
    elif name in ("float16", "bfloat16"):
        proto.half_val.extend(int(x) for x in np.asarray(flat, dtype=dt.as_numpy_dtype).view(np.uint16))
    elif name == "float32":
        proto.float_val.extend(float(x) for x in flat)
    elif name == "float64":
        proto.double_val.extend(float(x) for x in flat)
    elif name in ("int32", "int16", "int8", "uint8", "uint16", "qint8", "quint8", "qint16", "quint16", "qint32"):
        proto.int_val.extend(int(x) for x in flat)
    elif name == "int64":
        proto.int64_val.extend(int(x) for x in flat)
    elif name == "uint32":
        proto.uint32_val.extend(int(x) for x in flat)
    elif name == "uint64":
        proto.uint64_val.extend(int(x) for x in flat)
    elif name == "complex64":
        proto.scomplex_val.extend(float(v) for x in flat for v in (x.real, x.imag))
    elif name == "complex128":
        proto.dcomplex_val.extend(float(v) for x in flat for v in (x.real, x.imag))
    elif name == "bool":
        proto.bool_val.extend(bool(x) for x in flat)
    else:
        raise TypeError("Element type not supported in TensorProto: %s" % arr.dtype.name)
    return proto


def make_ndarray(tensor):
    """The numpy array a TensorProto holds (a new array). See the module comment."""
    shape = [d.size for d in tensor.tensor_shape.dim]
    n = int(np.prod(shape, dtype=np.int64))
    try:
        dt = dtypes.as_dtype(tensor.dtype)
    except (TypeError, ValueError):
        raise TypeError("Unsupported tensor type: %s" % tensor.dtype)
    npd = dt.as_numpy_dtype
    name = dt.name
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=np.dtype(npd).newbyteorder("<")).astype(npd).reshape(shape)
    if name == "string":
        vals = list(tensor.string_val)
        if len(vals) < n:
            vals.extend([vals[-1] if vals else b""] * (n - len(vals)))
        return np.array(vals, dtype=object).reshape(shape)
    if name in ("float16", "bfloat16"):
        values = np.array(tensor.half_val, dtype=np.uint16).view(npd)
    elif name == "float32":
        values = np.array(tensor.float_val, dtype=npd)
    elif name == "float64":
        values = np.array(tensor.double_val, dtype=npd)
    elif name in ("int32", "int16", "int8", "uint8", "uint16", "qint8", "quint8", "qint16", "quint16", "qint32"):
        values = np.array(tensor.int_val, dtype=npd)
    elif name == "int64":
        values = np.array(tensor.int64_val, dtype=npd)
    elif name == "uint32":
        values = np.array(tensor.uint32_val, dtype=npd)
    elif name == "uint64":
        values = np.array(tensor.uint64_val, dtype=npd)
    elif name == "complex64":
        v = np.array(tensor.scomplex_val, dtype=np.float32)
        values = (v[0::2] + 1j * v[1::2]).astype(npd)
    elif name == "complex128":
        v = np.array(tensor.dcomplex_val, dtype=np.float64)
        values = (v[0::2] + 1j * v[1::2]).astype(npd)
    elif name == "bool":
        values = np.array(tensor.bool_val, dtype=npd)
    else:
        raise TypeError("Unsupported tensor type: %s" % tensor.dtype)
    if values.size == 0:
        return np.zeros(shape, npd)
    if values.size != n:
        values = np.pad(values, (0, n - values.size), "edge")
    return values.reshape(shape)


def constant_value(tensor):
    """The ndarray a Const tensor holds, or a Cast / Identity / StopGradient of one (as TF's
    tensor_util.constant_value folds them; tf.get_static_value); None for any other tensor."""
    from tfc.framework import ops
    if not isinstance(tensor, ops.Tensor):
        return None
    op = tensor.op
    if op.type in ("Identity", "StopGradient") and not op.control_inputs:
        return constant_value(op.inputs[0])
    if op.type == "Cast":
        v = constant_value(op.inputs[0])
        return None if v is None else v.astype(tensor.dtype.as_numpy_dtype)
    if op.type != "Const":
        return None
    return make_ndarray(op.get_attr("value"))
