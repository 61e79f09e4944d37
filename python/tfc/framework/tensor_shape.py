"""TensorShape and Dimension with TF 1.x (v1) behaviour.

A TensorShape has unknown rank (dims None) or a list of Dimensions, each an int or None. v1:
`shape[i]` is a Dimension (use `.value`), `str` is `(?, 4)`, `repr` lists Dimensions.
Incompatible merges raise ValueError("Shapes (?, 3) and (4,) are not compatible").
"""


class Dimension(object):
    """One dimension: an int >= 0, or None (unknown)."""
    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
        else:
            try:
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError("Dimension value must be integer or None or have an __index__ method, "
                                "got value '{0!r}' with type '{1!r}'".format(value, type(value)))
            if self._value < 0:
                raise ValueError("Dimension %d must be >= 0" % self._value)

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return "Dimension(%s)" % repr(self._value)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is None or r is NotImplemented else not r

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    def _arith(self, other, f):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(f(self._value, other.value))

    def __add__(self, o): return self._arith(o, lambda a, b: a + b)
    __radd__ = __add__
    def __sub__(self, o): return self._arith(o, lambda a, b: a - b)
    def __mul__(self, o): return self._arith(o, lambda a, b: a * b)
    __rmul__ = __mul__
    def __floordiv__(self, o): return self._arith(o, lambda a, b: a // b)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(d):
    return d.value if isinstance(d, Dimension) else d


class TensorShape(object):
    """A possibly partial shape: unknown rank, or a list of Dimensions."""

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = None if dims._dims is None else list(dims._dims)
        elif type(dims).__name__ == "TensorShapeProto":
            self._dims = None if dims.unknown_rank else \
                [as_dimension(None if d.size == -1 else d.size) for d in dims.dim]
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]  # a scalar means a rank-1 shape
            else:
                self._dims = [as_dimension(d) for d in it]

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % self._dims

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of Shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if isinstance(key, slice):
            return unknown_shape()
        return Dimension(None)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_fully_defined(self):
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def _as_c_dims(self):
        """None for unknown rank, else a list of int/None (for the extension)."""
        return None if self._dims is None else [d.value for d in self._dims]

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))
        return self.merge_with(unknown_shape(rank)) if self._dims is None else self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def as_proto(self):
        """The shape as a TensorShapeProto message (unknown dimensions -1)."""
        from tfc.framework import graph_pb, proto
        return graph_pb.TensorShapeProto.FromString(proto.tensor_shape(self._as_c_dims()))

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, ndims=None):
    if ndims is not None:
        rank = ndims
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def scalar():
    return TensorShape([])
