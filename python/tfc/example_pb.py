"""tf.train.Example and its parts, tf.Summary and tf.Event: the protocol buffer messages TF 1.x
programs build and read in input pipelines and summaries, hand-written over a tiny
wire-format codec.

Design: the package requires numpy only (the protobuf package is not needed), and these
messages are small and stable (tensorflow/core/example/{example,feature}.proto,
core/framework/summary.proto, core/util/event.proto), so each is a _Message subclass naming
its fields: (name, number, kind), kind one of the scalar kinds ("string", "bytes", "float",
"double", "int64", "int32", "bool"), "rep_<scalar kind>" (numeric ones packed, as proto3
writes them), "msg:<Class>", "rep_msg:<Class>" or "map_msg:<Class>" (map<string, Class>).
The API is the part of protobuf's Python messages programs use: keyword construction,
attribute access (a message field reads as an empty message and is set by assigning into it,
repeated fields are lists, a map reads a missing key as a new message as protobuf's maps do),
SerializeToString, ParseFromString, FromString, CopyFrom, MergeFrom, HasField, WhichOneof,
ListFields, ==, and a text-format repr. Fields a class does not declare are kept as their bytes
when parsed and written back after the declared ones (as protobuf keeps unknown fields). A message field set through CopyFrom, MergeFrom or
SetInParent is present even when empty (it serializes as an empty field), as in protobuf. Fields are serialized in field-number order, as
protobuf does, so the bytes equal the protobuf package's for the same message (map entries in
insertion order; protobuf's own order for maps is unspecified).

Errors: an unknown keyword is ValueError 'Protocol message X has no "f" field.'; assigning to
an unknown field is AttributeError; a value of the wrong type is TypeError; bytes that are not
a message of the class raise DecodeError (a ValueError) "Error parsing message".
"""
import struct

from tfc.framework import proto as _wire


class DecodeError(ValueError):
    pass


_SCALAR_DEFAULTS = {"string": "", "bytes": b"", "float": 0.0, "double": 0.0, "int64": 0, "int32": 0,
                    "bool": False, "enum": 0}
_CLASSES = {}


def _check_scalar(kind, v, field):
    if kind == "string":
        if isinstance(v, bytes):
            v = v.decode("utf-8")
        if not isinstance(v, str):
            raise TypeError("%r has type %s, but expected one of: bytes, unicode" % (v, type(v).__name__))
        return v
    if kind == "bytes":
        if isinstance(v, str):
            v = v.encode("utf-8")
        if not isinstance(v, (bytes, bytearray)):
            raise TypeError("%r has type %s, but expected one of: bytes" % (v, type(v).__name__))
        return bytes(v)
    if kind in ("float", "double"):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__float__"):
            raise TypeError("%r has type %s, but expected one of: int, float" % (v, type(v).__name__))
        v = float(v)
        return struct.unpack("<f", struct.pack("<f", v))[0] if kind == "float" else v
    if kind == "bool":
        return bool(v)
    if isinstance(v, float) or not hasattr(v, "__index__"):
        raise TypeError("%r has type %s, but expected one of: int" % (v, type(v).__name__))
    return int(v.__index__())


class _Repeated(list):
    """A repeated scalar field: a list that checks what goes in."""

    def __init__(self, kind, field, values=()):
        super().__init__()
        self._kind, self._field = kind, field
        self.extend(values)

    def append(self, v):
        super().append(_check_scalar(self._kind, v, self._field))

    def extend(self, vs):
        super().extend(_check_scalar(self._kind, v, self._field) for v in vs)

    def __setitem__(self, i, v):
        if isinstance(i, slice):
            super().__setitem__(i, [_check_scalar(self._kind, x, self._field) for x in v])
        else:
            super().__setitem__(i, _check_scalar(self._kind, v, self._field))


class _RepeatedMsg(list):
    """A repeated message field: add(**kw) appends a new message."""

    def __init__(self, cls):
        super().__init__()
        self._cls = cls

    def add(self, **kwargs):
        m = self._cls(**kwargs)
        super().append(m)
        return m

    def append(self, m):
        if not isinstance(m, self._cls):
            raise TypeError("expected a %s" % self._cls.__name__)
        super().append(m)

    def extend(self, ms):
        for m in ms:
            self.append(m)


class _MsgMap(dict):
    """map<string, Message>: reading a missing key adds an empty message, as protobuf does."""

    def __init__(self, cls):
        super().__init__()
        self._cls = cls

    def __missing__(self, key):
        m = self._cls()
        self[key] = m
        return m

    def __setitem__(self, key, value):
        dict.__setitem__(self, _check_scalar("string", key, "key"), value)

    def get_or_create(self, key):
        return self[key]


class _Message(object):
    _FIELDS = ()      # (name, number, kind)
    _ONEOFS = {}      # oneof name -> (field names)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_present", set())
        fm = self._fmap()
        for k, v in kwargs.items():
            if k not in fm:
                raise ValueError('Protocol message %s has no "%s" field.' % (type(self).__name__, k))
            kind = fm[k][1]
            if kind.startswith("map_"):
                cur = getattr(self, k)
                for mk, mv in dict(v).items():
                    cur[mk].CopyFrom(mv)
            elif kind.startswith("rep_msg:"):
                cur = getattr(self, k)
                for mv in v:
                    cur.add().CopyFrom(mv)
            elif kind.startswith("rep_"):
                getattr(self, k).extend(v)
            elif kind.startswith("msg:"):
                if v is not None:
                    getattr(self, k).CopyFrom(v)
                    self._set_field(k, self._values[k])
            elif v is not None:
                setattr(self, k, v)

    @classmethod
    def _fmap(cls):
        m = cls.__dict__.get("_MAP")
        if m is None:
            m = {name: (num, kind) for name, num, kind in cls._FIELDS}
            cls._MAP = m
            cls._BYNUM = {num: (name, kind) for name, num, kind in cls._FIELDS}
        return m

    def _oneof_of(self, name):
        for names in self._ONEOFS.values():
            if name in names:
                return names
        return ()

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        f = type(self)._fmap().get(name)
        if f is None:
            raise AttributeError("%s has no field %s" % (type(self).__name__, name))
        vals = self._values
        if name in vals:
            return vals[name]
        kind = f[1]
        if kind.startswith("msg:"):
            v = vals[name] = _CLASSES[kind[4:]]()
            object.__setattr__(v, "_parent", (self, name))
        elif kind.startswith("rep_msg:"):
            v = vals[name] = _RepeatedMsg(_CLASSES[kind[8:]])
        elif kind.startswith("map_msg:"):
            v = vals[name] = _MsgMap(_CLASSES[kind[8:]])
        elif kind.startswith("rep_"):
            v = vals[name] = _Repeated(kind[4:], name)
        else:
            return _SCALAR_DEFAULTS[kind]
        return v

    def _set_field(self, name, value):
        for other in self._oneof_of(name):
            if other != name:
                self._values.pop(other, None)
                self._present.discard(other)
        self._values[name] = value
        self._present.add(name)

    def _has(self, name):
        """Whether field `name` is set: scalars and messages explicitly set, messages written
        through, non-empty repeated fields."""
        if name not in self._values:
            return False
        if name in self._present:
            # proto3: a scalar outside a oneof set to its default is not present
            kind = type(self)._MAP[name][1]
            if kind in _SCALAR_DEFAULTS and self._values[name] == _SCALAR_DEFAULTS[kind] and \
                    not self._oneof_of(name):
                return False
            return True
        v = self._values[name]
        if isinstance(v, _Message):
            return v._nonempty()
        return bool(v) if isinstance(v, (list, dict)) else False

    def _nonempty(self):
        return any(self._has(n) for n, _, _ in self._FIELDS)

    def __setattr__(self, name, value):
        f = type(self)._fmap().get(name)
        if f is None:
            raise AttributeError('Assignment not allowed (no field "%s" in protocol message object).' % name)
        kind = f[1]
        if kind.startswith("rep_") or kind.startswith("map_"):
            raise AttributeError('Assignment not allowed to repeated field "%s" in protocol message object.' % name)
        if kind.startswith("msg:"):
            raise AttributeError('Assignment not allowed to field "%s" in protocol message object.' % name)
        self._set_field(name, _check_scalar(kind, value, name))

    def SetInParent(self):
        """Marks this message present in the message that holds it (as protobuf does when a
        sub-message is set through CopyFrom, MergeFrom or SetInParent, even to an empty one)."""
        link = self.__dict__.get("_parent")
        if link is not None:
            parent, name = link
            if parent._values.get(name) is self:
                parent._set_field(name, self)
                parent.SetInParent()

    def HasField(self, name):
        f = type(self)._fmap().get(name)
        if f is None:
            if name in self._ONEOFS:
                return self.WhichOneof(name) is not None
            raise ValueError('Protocol message %s has no field %s.' % (type(self).__name__, name))
        return self._has(name)

    def WhichOneof(self, oneof):
        for n in self._ONEOFS.get(oneof, ()):
            if self._has(n):
                return n
        if oneof not in self._ONEOFS:
            raise ValueError('Protocol message has no oneof "%s" field.' % oneof)
        return None

    def ClearField(self, name):
        self._values.pop(name, None)
        self._present.discard(name)

    def Clear(self):
        self._values.clear()
        self._present.clear()
        self.__dict__.pop("_unknown", None)

    def ListFields(self):
        out = []
        for name, num, kind in sorted(self._FIELDS, key=lambda f: f[1]):
            if self._has(name):
                out.append((name, self._values[name]))
        return out

    def CopyFrom(self, other):
        if other is self:
            return
        self.Clear()
        self.MergeFrom(other)

    def MergeFrom(self, other):
        if not isinstance(other, type(self)):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: expected %s got %s." %
                            (type(self).__name__, type(other).__name__))
        self.MergeFromString(other.SerializeToString())

    # ---- wire format ----
    def SerializeToString(self, deterministic=None):
        out = []
        for name, num, kind in sorted(self._FIELDS, key=lambda f: f[1]):
            if not self._has(name):
                continue
            v = self._values[name]
            if kind.startswith("msg:"):
                out.append(_wire.field_bytes(num, v.SerializeToString()))
            elif kind.startswith("rep_msg:"):
                out.extend(_wire.field_bytes(num, m.SerializeToString()) for m in v)
            elif kind.startswith("map_msg:"):
                for k, m in v.items():
                    entry = _wire.field_bytes(1, k) + _wire.field_bytes(2, m.SerializeToString())
                    out.append(_wire.field_bytes(num, entry))
            elif kind.startswith("rep_"):
                sk = kind[4:]
                if not v:
                    continue
                if sk in ("string", "bytes"):
                    out.extend(_wire.field_bytes(num, x) for x in v)
                else:
                    out.append(_wire.field_bytes(num, b"".join(_scalar_payload(sk, x) for x in v)))
            else:
                out.append(_wire.varint((num << 3) | _WIRE[kind]) + _scalar_payload(kind, v))
        out.extend(self.__dict__.get("_unknown", ()))
        return b"".join(out)

    def ByteSize(self):
        return len(self.SerializeToString())

    def ParseFromString(self, data):
        self.Clear()
        self.MergeFromString(data)
        return len(data)

    def MergeFromString(self, data):
        data = bytes(data)
        try:
            self._merge(data)
        except (IndexError, struct.error, UnicodeDecodeError, KeyError) as e:
            raise DecodeError("Error parsing message") from e
        self.SetInParent()
        return len(data)

    @classmethod
    def FromString(cls, data):
        m = cls()
        m.MergeFromString(data)
        return m

    def _merge(self, data):
        self._fmap()
        bynum = type(self)._BYNUM
        pos, end = 0, len(data)
        while pos < end:
            start = pos
            key, pos = _read_varint(data, pos)
            num, wt = key >> 3, key & 7
            if wt == 0:
                raw, pos = _read_varint(data, pos)
            elif wt == 1:
                raw, pos = data[pos:pos + 8], pos + 8
            elif wt == 5:
                raw, pos = data[pos:pos + 4], pos + 4
            elif wt == 2:
                n, pos = _read_varint(data, pos)
                raw, pos = data[pos:pos + n], pos + n
            else:
                raise DecodeError("Error parsing message")
            if pos > end:
                raise DecodeError("Error parsing message")
            f = bynum.get(num)
            if f is None:
                # an unknown field is kept as its bytes and written back after the known ones
                self.__dict__.setdefault("_unknown", []).append(data[start:pos])
                continue
            name, kind = f
            if kind.startswith("msg:"):
                cur = getattr(self, name)
                cur._merge(raw)
                self._set_field(name, cur)
            elif kind.startswith("rep_msg:"):
                m = _CLASSES[kind[8:]]()
                m._merge(raw)
                getattr(self, name).append(m)
            elif kind.startswith("map_msg:"):
                entry = _MapEntry()
                entry._merge(raw)
                m = _CLASSES[kind[8:]]()
                m._merge(entry.value)
                getattr(self, name)[entry.key] = m
            elif kind.startswith("rep_"):
                sk = kind[4:]
                rep = getattr(self, name)
                if wt == 2 and sk not in ("string", "bytes"):
                    rep.extend(_unpack_packed(sk, raw))
                else:
                    rep.append(_decode_scalar(sk, wt, raw))
            else:
                self._set_field(name, _decode_scalar(kind, wt, raw))

    def __deepcopy__(self, memo):
        m = type(self)()
        m.MergeFrom(self)
        return m

    def __eq__(self, other):
        return type(self) is type(other) and self.ListFields() == other.ListFields()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return _text(self, "")

    __str__ = __repr__


_WIRE = {"string": 2, "bytes": 2, "float": 5, "double": 1, "int64": 0, "int32": 0, "bool": 0, "enum": 0}


def _scalar_payload(kind, v):
    if kind in ("string", "bytes"):
        data = v.encode("utf-8") if isinstance(v, str) else v
        return _wire.varint(len(data)) + data
    if kind == "float":
        return struct.pack("<f", v)
    if kind == "double":
        return struct.pack("<d", v)
    return _wire.varint(int(v))


def _read_varint(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("Error parsing message")


def _signed64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _decode_scalar(kind, wt, raw):
    if kind == "string":
        return raw.decode("utf-8")
    if kind == "bytes":
        return bytes(raw)
    if kind == "float":
        return struct.unpack("<f", raw)[0]
    if kind == "double":
        return struct.unpack("<d", raw)[0]
    if kind == "bool":
        return bool(raw)
    if kind == "int32":
        v = _signed64(raw)
        return v
    return _signed64(raw)


def _unpack_packed(kind, raw):
    if kind == "float":
        return list(struct.unpack("<%df" % (len(raw) // 4), raw))
    if kind == "double":
        return list(struct.unpack("<%dd" % (len(raw) // 8), raw))
    out, pos = [], 0
    while pos < len(raw):
        v, pos = _read_varint(raw, pos)
        out.append(bool(v) if kind == "bool" else _signed64(v))
    return out


_ESCAPES = {9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"', 39: "\\'", 92: "\\\\"}
# byte -> its text-format form, for str.translate over the bytes read as latin-1 (C speed)
_ESCAPE_TABLE = {c: _ESCAPES.get(c) or (chr(c) if 32 <= c < 127 else "\\%03o" % c) for c in range(256)}


def _fmt_scalar(kind, v):
    """A value as protobuf's text format prints it."""
    if kind in ("string", "bytes"):
        b = v.encode("utf-8") if isinstance(v, str) else v
        return '"%s"' % b.decode("latin-1").translate(_ESCAPE_TABLE)
    if kind == "bool":
        return "true" if v else "false"
    if kind in ("float", "double"):
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        import numpy as np
        return str(np.float32(v)) if kind == "float" else repr(float(v))
    return str(v)


def _text(m, indent):
    lines = []
    skip = getattr(m, "_TEXT_SKIP", ())
    for name, v in m.ListFields():
        if name in skip:
            continue
        kind = m._fmap()[name][1]
        enum_names = getattr(m, "_ENUM_NAMES", {}).get(name)
        if enum_names is not None:
            for x in (v if kind.startswith("rep_") else [v]):
                lines.append("%s%s: %s\n" % (indent, name, enum_names.get(x, str(x))))
            continue
        if kind.startswith("msg:"):
            lines.append("%s%s {\n%s%s}\n" % (indent, name, _text(v, indent + "  "), indent))
        elif kind.startswith("rep_msg:"):
            for x in v:
                lines.append("%s%s {\n%s%s}\n" % (indent, name, _text(x, indent + "  "), indent))
        elif kind.startswith("map_msg:"):
            for k, x in sorted(v.items()):
                lines.append('%s%s {\n%s  key: %s\n%s  value {\n%s%s  }\n%s}\n' % (
                    indent, name, indent, _fmt_scalar("string", k), indent, _text(x, indent + "    "), indent, indent))
        elif kind.startswith("rep_"):
            for x in v:
                lines.append("%s%s: %s\n" % (indent, name, _fmt_scalar(kind[4:], x)))
        else:
            lines.append("%s%s: %s\n" % (indent, name, _fmt_scalar(kind, v)))
    return "".join(lines)


def _register(cls):
    _CLASSES[cls.__name__] = cls
    return cls


@_register
class _MapEntry(_Message):
    _FIELDS = (("key", 1, "string"), ("value", 2, "bytes"))


# ---- tensorflow/core/example/feature.proto, example.proto ----

@_register
class BytesList(_Message):
    _FIELDS = (("value", 1, "rep_bytes"),)


@_register
class FloatList(_Message):
    _FIELDS = (("value", 1, "rep_float"),)


@_register
class Int64List(_Message):
    _FIELDS = (("value", 1, "rep_int64"),)


@_register
class Feature(_Message):
    _FIELDS = (("bytes_list", 1, "msg:BytesList"), ("float_list", 2, "msg:FloatList"),
               ("int64_list", 3, "msg:Int64List"))
    _ONEOFS = {"kind": ("bytes_list", "float_list", "int64_list")}


@_register
class Features(_Message):
    _FIELDS = (("feature", 1, "map_msg:Feature"),)


@_register
class FeatureList(_Message):
    _FIELDS = (("feature", 1, "rep_msg:Feature"),)


@_register
class FeatureLists(_Message):
    _FIELDS = (("feature_list", 1, "map_msg:FeatureList"),)


@_register
class Example(_Message):
    _FIELDS = (("features", 1, "msg:Features"),)


@_register
class SequenceExample(_Message):
    _FIELDS = (("context", 1, "msg:Features"), ("feature_lists", 2, "msg:FeatureLists"))


# ---- tensorflow/core/framework/summary.proto (the parts programs touch) ----

@_register
class HistogramProto(_Message):
    _FIELDS = (("min", 1, "double"), ("max", 2, "double"), ("num", 3, "double"), ("sum", 4, "double"),
               ("sum_squares", 5, "double"), ("bucket_limit", 6, "rep_double"), ("bucket", 7, "rep_double"))


@_register
class SummaryImage(_Message):
    _FIELDS = (("height", 1, "int32"), ("width", 2, "int32"), ("colorspace", 3, "int32"),
               ("encoded_image_string", 4, "bytes"))


@_register
class SummaryMetadataPluginData(_Message):
    _FIELDS = (("plugin_name", 1, "string"), ("content", 2, "bytes"))


@_register
class SummaryMetadata(_Message):
    _FIELDS = (("plugin_data", 1, "msg:SummaryMetadataPluginData"), ("display_name", 2, "string"),
               ("summary_description", 3, "string"))
    PluginData = SummaryMetadataPluginData


@_register
class SummaryValue(_Message):
    _FIELDS = (("node_name", 7, "string"), ("tag", 1, "string"), ("metadata", 9, "msg:SummaryMetadata"),
               ("simple_value", 2, "float"), ("obsolete_old_style_histogram", 3, "bytes"),
               ("image", 4, "msg:SummaryImage"), ("histo", 5, "msg:HistogramProto"))
    _ONEOFS = {"value": ("simple_value", "obsolete_old_style_histogram", "image", "histo")}


@_register
class Summary(_Message):
    _FIELDS = (("value", 1, "rep_msg:SummaryValue"),)
    Value = SummaryValue
    Image = SummaryImage


# ---- tensorflow/core/util/event.proto ----

@_register
class LogMessage(_Message):
    _FIELDS = (("level", 1, "enum"), ("message", 2, "string"))


@_register
class SessionLog(_Message):
    _FIELDS = (("status", 1, "enum"), ("checkpoint_path", 2, "string"), ("msg", 3, "string"))
    STATUS_UNSPECIFIED, START, STOP, CHECKPOINT = 0, 1, 2, 3


@_register
class TaggedRunMetadata(_Message):
    _FIELDS = (("tag", 1, "string"), ("run_metadata", 2, "bytes"))


@_register
class Event(_Message):
    _FIELDS = (("wall_time", 1, "double"), ("step", 2, "int64"), ("file_version", 3, "string"),
               ("graph_def", 4, "bytes"), ("summary", 5, "msg:Summary"), ("log_message", 6, "msg:LogMessage"),
               ("session_log", 7, "msg:SessionLog"), ("tagged_run_metadata", 8, "msg:TaggedRunMetadata"),
               ("meta_graph_def", 9, "bytes"))
    _ONEOFS = {"what": ("file_version", "graph_def", "summary", "log_message", "session_log",
                        "tagged_run_metadata", "meta_graph_def")}
