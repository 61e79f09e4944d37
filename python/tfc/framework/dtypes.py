"""DType: TensorFlow's data types, by the TF_DataType enum (include/tensorflow/c/tf_datatype.h).

One DType object per enum value (and per reference type, enum + 100), so `is` and `==` both
work; a DType also compares equal to anything `as_dtype` maps to it (`tf.float32 == np.float32`).
`as_dtype` follows TF 1.x: names, enum ints, numpy dtypes and types, Python float/bool/object, and
it rejects Python `int`.
"""
import numpy as np

_REF = 100

# enum: (name, numpy type, min, max known for ints)
_INFO = {
    1: ("float32", np.float32), 2: ("float64", np.float64), 3: ("int32", np.int32),
    4: ("uint8", np.uint8), 5: ("int16", np.int16), 6: ("int8", np.int8), 7: ("string", object),
    8: ("complex64", np.complex64), 9: ("int64", np.int64), 10: ("bool", np.bool_),
    11: ("qint8", None), 12: ("quint8", None), 13: ("qint32", None), 14: ("bfloat16", None),
    15: ("qint16", None), 16: ("quint16", None), 17: ("uint16", np.uint16),
    18: ("complex128", np.complex128), 19: ("float16", np.float16), 20: ("resource", None),
    21: ("variant", None), 22: ("uint32", np.uint32), 23: ("uint64", np.uint64),
}


class DType(object):
    """A TensorFlow element type. Immutable; one instance per type."""
    __slots__ = ("_type_enum",)

    def __init__(self, type_enum):
        self._type_enum = type_enum

    @property
    def as_datatype_enum(self):
        return self._type_enum

    @property
    def _is_ref_dtype(self):
        return self._type_enum > _REF

    @property
    def is_ref_dtype(self):
        return self._type_enum > _REF

    @property
    def base_dtype(self):
        return _BY_ENUM[self._type_enum - _REF] if self._type_enum > _REF else self

    @property
    def real_dtype(self):
        b = self.base_dtype
        return {complex64: float32, complex128: float64}.get(b, b)

    @property
    def _as_ref(self):
        return self if self._type_enum > _REF else _BY_ENUM[self._type_enum + _REF]

    @property
    def name(self):
        b = self._type_enum - _REF if self._type_enum > _REF else self._type_enum
        return _INFO[b][0] + ("_ref" if self._type_enum > _REF else "")

    @property
    def as_numpy_dtype(self):
        return _INFO[self.base_dtype._type_enum][1]

    @property
    def is_floating(self):
        return self.base_dtype in (float16, float32, float64, bfloat16)

    @property
    def is_integer(self):
        return self.base_dtype in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

    @property
    def is_complex(self):
        return self.base_dtype in (complex64, complex128)

    @property
    def is_bool(self):
        return self.base_dtype is bool

    @property
    def is_quantized(self):
        return self.base_dtype in (qint8, quint8, qint16, quint16, qint32)

    @property
    def is_unsigned(self):
        return self.base_dtype in (uint8, uint16, uint32, uint64, quint8, quint16)

    @property
    def is_numpy_compatible(self):
        return self.as_numpy_dtype is not None

    @property
    def size(self):
        t = self.as_numpy_dtype
        return 1 if t in (None, object) else np.dtype(t).itemsize

    @property
    def min(self):
        t = self.as_numpy_dtype
        if self.is_floating:
            return float(np.finfo(t).min)
        if self.is_integer:
            return int(np.iinfo(t).min)
        raise TypeError("Cannot find minimum value of %s." % self)

    @property
    def max(self):
        t = self.as_numpy_dtype
        if self.is_floating:
            return float(np.finfo(t).max)
        if self.is_integer:
            return int(np.iinfo(t).max)
        raise TypeError("Cannot find maximum value of %s." % self)

    def is_compatible_with(self, other):
        other = as_dtype(other)
        return self._type_enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)

    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self._type_enum == other._type_enum
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._type_enum

    def __int__(self):
        return self._type_enum

    def __reduce__(self):
        return as_dtype, (self.name,)

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return "<dtype: %r>" % self.name


_BY_ENUM = {}
for _e in _INFO:
    _BY_ENUM[_e] = DType(_e)
    _BY_ENUM[_e + _REF] = DType(_e + _REF)

float16 = half = _BY_ENUM[19]
float32 = _BY_ENUM[1]
float64 = double = _BY_ENUM[2]
bfloat16 = _BY_ENUM[14]
int8, int16, int32, int64 = _BY_ENUM[6], _BY_ENUM[5], _BY_ENUM[3], _BY_ENUM[9]
uint8, uint16, uint32, uint64 = _BY_ENUM[4], _BY_ENUM[17], _BY_ENUM[22], _BY_ENUM[23]
string = _BY_ENUM[7]
bool = _BY_ENUM[10]  # noqa: A001 (TF's name)
complex64, complex128 = _BY_ENUM[8], _BY_ENUM[18]
qint8, quint8, qint16, quint16, qint32 = _BY_ENUM[11], _BY_ENUM[12], _BY_ENUM[15], _BY_ENUM[16], _BY_ENUM[13]
resource, variant = _BY_ENUM[20], _BY_ENUM[21]

_BY_NAME = {}
for _d in list(_BY_ENUM.values()):
    _BY_NAME[_d.name] = _d
_BY_NAME.update({"half": float16, "float": float32, "double": float64,
                 "half_ref": float16._as_ref, "float_ref": float32._as_ref,
                 "double_ref": float64._as_ref})

_BY_NUMPY = {np.dtype(t): _BY_ENUM[e] for e, (n, t) in _INFO.items() if t not in (None, object)}


def as_dtype(type_value):
    """A DType for type_value (DType, enum int, name, numpy dtype/type, float, bool, object).
    TypeError("Cannot convert value ... to a TensorFlow DType.") otherwise."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, (int, np.integer)) and not isinstance(type_value, type(True)):
        d = _BY_ENUM.get(int(type_value))
        if d is not None:
            return d
    elif type_value is float:
        return float32
    elif type_value is type(True):
        return bool
    elif type_value is object:
        return string
    if type_value is not int:
        try:
            npd = np.dtype(type_value) if not isinstance(type_value, np.dtype) else type_value
        except (TypeError, ValueError):
            npd = None
        if npd is not None and not isinstance(type_value, (int, str)):
            if npd.kind in "OSU":
                return string
            d = _BY_NUMPY.get(npd)
            if d is not None:
                return d
    raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))
