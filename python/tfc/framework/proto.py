"""A minimal protobuf wire-format writer for the few messages Python serializes itself.

tfc does not require the protobuf package: the messages the front end sends to the C API
(ConfigProto for TF_SetConfig, RunOptions, TensorShapeProto) are small, so they are written
here field by field. Each function returns bytes.
"""
import struct


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(int(v))


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return varint((num << 3) | 2) + varint(len(data)) + data


def field_double(num, v):
    return varint((num << 3) | 1) + struct.pack("<d", v)


def field_float(num, v):
    return varint((num << 3) | 5) + struct.pack("<f", v)


def tensor_shape(dims):
    """TensorShapeProto for dims (None: unknown rank; a list of int/None, None as -1)."""
    if dims is None:
        return field_varint(3, 1)
    return b"".join(field_bytes(2, field_varint(1, -1 if d is None else d)) for d in dims)
