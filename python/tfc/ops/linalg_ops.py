"""Math and linear-algebra functions over existing ops, with TF 1.x signatures: norm,
reduce_variance / reduce_std, einsum, accumulate_n, top_k with TF's (values, indices)
namedtuple, batch_gather, random_crop.

einsum is TF 1.15's Python einsum in kind: one or two operands; indices summed away in one
operand are reduced first (Sum), the rest become one MatMul / BatchMatMulV2 over
[batch, free, contracted] reshapes and a Transpose to the output order, all under the "einsum"
scope. Repeated indices within one operand (diagonals), ellipses and more than two operands
raise ValueError; shapes of the operands must be known where reshapes need them.
"""
import collections
import re

import numpy as np

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import array_ops
from tfc.ops import gen
from tfc.ops import math_ops


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    with ops.name_scope(name or "reduce_variance"):
        input_tensor = ops.convert_to_tensor(input_tensor)
        means = math_ops.reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError("Input must be either real or complex. Received integer type %s." % means.dtype)
        squared_deviations = gen.apply("Square", None, x=input_tensor - means)
        return math_ops.reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    with ops.name_scope(name or "reduce_std"):
        variance = reduce_variance(input_tensor, axis=axis, keepdims=keepdims)
        return gen.apply("Sqrt", None, x=variance)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector norms (euclidean, 1, inf, p > 0) and the matrix norms 'fro'/'euclidean', 1 and
    inf over two axes; the matrix 2-norm needs an SVD, which tfc lacks (NotImplementedError)."""
    keepdims = math_ops._keep(keepdims, keep_dims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError("'ord' must be a supported matrix norm in %s, got %s" % (supported, ord))
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        supported = ["euclidean", 1, 2, np.inf]
        if (not np.isreal(ord) or ord <= 0) and ord not in supported:
            raise ValueError("'ord' must be a supported vector norm, got %s" % ord)
        if axis is not None:
            axis = (axis,)
    with ops.name_scope(name, "norm", [tensor]):
        tensor = ops.convert_to_tensor(tensor)
        if ord in ["fro", "euclidean", 2, 2.0]:
            if is_matrix_norm and ord in [2, 2.0]:
                raise NotImplementedError("the matrix 2-norm needs Svd, which tfc does not have")
            result = gen.apply("Sqrt", None, x=math_ops.reduce_sum(tensor * tensor, axis, keepdims=True))
        else:
            result = gen.apply("Abs", None, x=tensor)
            if ord == 1:
                sum_axis = None if axis is None else axis[0]
                result = math_ops.reduce_sum(result, sum_axis, keepdims=True)
                if is_matrix_norm:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                max_axis = None if axis is None else axis[0]
                result = math_ops.reduce_max(result, max_axis, keepdims=True)
            else:
                result = math_ops.pow(math_ops.reduce_sum(math_ops.pow(result, ord), axis, keepdims=True),
                                      1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of the inputs (AddN, the op TF's graph rewrite turns AccumulateNV2 into)."""
    def _input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise _input_error()
    inputs = [ops.convert_to_tensor(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise _input_error()
    s = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    for t in inputs:
        s = s.merge_with(t.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError("tensor_dtype is {}, but input is of type {}".format(tensor_dtype, inputs[0].dtype))
    if len(inputs) == 1 and name is None:
        return inputs[0]
    if len(inputs) == 1:
        return array_ops.identity(inputs[0], name=name)
    return math_ops.add_n(inputs, name=name)


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 (TF's names)
    """TF's TopKV2(values, indices) namedtuple of the TopKV2 op's outputs."""
    values, indices = gen.apply("TopKV2", name, input=input, k=k, sorted=sorted)
    return TopKV2(values, indices)


def batch_gather(params, indices, name=None):
    """gather over the last axis of indices with every leading axis a batch axis."""
    with ops.name_scope(name, "BatchGather", [params, indices]):
        indices = ops.convert_to_tensor(indices, name="indices")
        params = ops.convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        return array_ops.gather(params, indices, batch_dims=indices.shape.ndims - 1)


def random_crop(value, size, seed=None, name=None):
    """A random window of shape `size` out of value (TF's graph: an Assert that the shape is
    at least size, RandomUniformInt offsets modulo the room, Slice "random_crop")."""
    from tfc.ops import check_ops
    from tfc.ops import random_ops
    with ops.name_scope(name, "random_crop", [value, size]) as name:
        value = ops.convert_to_tensor(value, name="value")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = check_ops.Assert(math_ops.reduce_all(math_ops.greater_equal(shape, size)),
                                 ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = check_ops._with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                           seed=seed) % limit
        return array_ops.slice(value, offset, size, name=name)


# ---------------- einsum ----------------

def _einsum_parse(equation, n):
    eq = equation.replace(" ", "")
    if "." in eq:
        raise ValueError("einsum: ellipses are not supported: %s" % equation)
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        letters = lhs.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError("Got %d arguments for equation \"%s\", expecting %d" % (n, equation, len(ins)))
    for s in ins + [out]:
        if not re.match(r"^[a-zA-Z]*$", s):
            raise ValueError("Invalid character in equation: %s" % equation)
        if len(set(s)) != len(s):
            raise ValueError("einsum: repeated indices within one operand are not supported: %s" % equation)
    for c in out:
        if not any(c in s for s in ins):
            raise ValueError("Output subscripts contain a label that appears in no inputs: %s" % equation)
    return ins, out


def _dims(t, subs):
    s = t.shape
    if s.ndims is None or s.ndims != len(subs):
        raise ValueError("Input has rank %s, but the subscripts \"%s\" name %d axes"
                         % (s.ndims, subs, len(subs)))
    return dict(zip(subs, s.as_list()))


def _sum_out(t, subs, keep):
    """t with the axes of subs not in keep summed away; (tensor, remaining subs)."""
    drop = [i for i, c in enumerate(subs) if c not in keep]
    if not drop:
        return t, subs
    return math_ops.reduce_sum(t, drop), "".join(c for c in subs if c in keep)


def _transpose_to(t, subs, order):
    if subs == order:
        return t
    return array_ops.transpose(t, [subs.index(c) for c in order])


def _prod(sizes):
    if any(d is None for d in sizes):
        return None
    return int(np.prod(sizes)) if sizes else 1


def einsum(equation, *inputs, **kwargs):
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("invalid keyword arguments for this function: " + ", ".join(sorted(kwargs)))
    with ops.name_scope(name, "einsum", [equation] + list(inputs)):
        if len(inputs) not in (1, 2):
            raise ValueError("einsum supports one or two operands, got %d" % len(inputs))
        ts = [ops.convert_to_tensor(x) for x in inputs]
        ins, out = _einsum_parse(equation, len(ts))
        if len(ts) == 1:
            t, subs = _sum_out(ts[0], ins[0], out)
            return _transpose_to(t, subs, out)
        a, b = ts
        sa, sb = ins
        sizes = _dims(a, sa)
        sizes.update({k: v for k, v in _dims(b, sb).items() if sizes.get(k) is None})
        a, sa = _sum_out(a, sa, sb + out)
        b, sb = _sum_out(b, sb, sa + out)
        batch = "".join(c for c in sa if c in sb and c in out)
        contr = "".join(c for c in sa if c in sb and c not in out)
        fa = "".join(c for c in sa if c not in sb)
        fb = "".join(c for c in sb if c not in sa)
        a = _transpose_to(a, sa, batch + fa + contr)
        b = _transpose_to(b, sb, batch + contr + fb)
        bd = [sizes[c] for c in batch]
        shapes = [_prod([sizes[c] for c in s]) for s in (fa, contr, fb)]
        if any(v is None for v in shapes + bd):
            raise ValueError("einsum needs the operands' shapes known: %s and %s" % (ts[0].shape, ts[1].shape))
        m, k, n = shapes
        a = array_ops.reshape(a, bd + [m, k])
        b = array_ops.reshape(b, bd + [k, n])
        prod = math_ops.matmul(a, b)
        prod = array_ops.reshape(prod, bd + [sizes[c] for c in fa + fb])
        return _transpose_to(prod, batch + fa + fb, out)


# ---------------- special functions, guarded divisions, segments (kernels_math_tail.c) ----------------

def erf(x, name=None):
    return gen.apply("Erf", name, x=x)


def erfc(x, name=None):
    return gen.apply("Erfc", name, x=x)


def lgamma(x, name=None):
    return gen.apply("Lgamma", name, x=x)


def digamma(x, name=None):
    return gen.apply("Digamma", name, x=x)


def atan2(y, x, name=None):
    return gen.apply("Atan2", name, y=y, x=x)


def div_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (DivNoNan "div_no_nan")."""
    with ops.name_scope(name, "div_no_nan", [x, y]) as name:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError("x and y must have the same dtype, got %r != %r" % (x.dtype, y.dtype))
        return gen.apply("DivNoNan", name, x=x, y=y)


def xdivy(x, y, name=None):
    return gen.apply("Xdivy", name, x=x, y=y)


def xlogy(x, y, name=None):
    return gen.apply("Xlogy", name, x=x, y=y)


def _segment(op_type):
    def f(data, segment_ids, name=None):
        return gen.apply(op_type, name, data=data, segment_ids=segment_ids)
    f.__name__ = op_type
    return f


segment_sum = _segment("SegmentSum")
segment_mean = _segment("SegmentMean")
segment_prod = _segment("SegmentProd")
segment_max = _segment("SegmentMax")
segment_min = _segment("SegmentMin")


def _unsorted_segment(op_type):
    def f(data, segment_ids, num_segments, name=None):
        return gen.apply(op_type, name, data=data, segment_ids=segment_ids, num_segments=num_segments)
    f.__name__ = op_type
    return f


unsorted_segment_sum = _unsorted_segment("UnsortedSegmentSum")
unsorted_segment_max = _unsorted_segment("UnsortedSegmentMax")
unsorted_segment_min = _unsorted_segment("UnsortedSegmentMin")
unsorted_segment_prod = _unsorted_segment("UnsortedSegmentProd")


# ---------------- matrices (kernels_linalg.c; TF 1.15's op versions) ----------------

def diag(diagonal, name=None):
    return gen.apply("Diag", name, diagonal=diagonal)


def diag_part(input, name=None):  # noqa: A002
    return gen.apply("DiagPart", name, input=input)


def matrix_diag(diagonal, name="diag"):
    return gen.apply("MatrixDiag", name, diagonal=diagonal)


def matrix_diag_part(input, name="diag_part"):  # noqa: A002
    return gen.apply("MatrixDiagPart", name, input=input)


def matrix_set_diag(input, diagonal, name="set_diag"):  # noqa: A002
    return gen.apply("MatrixSetDiag", name, input=input, diagonal=diagonal)


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    return gen.apply("MatrixBandPart", name, input=input, num_lower=num_lower, num_upper=num_upper)


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    return gen.apply("MatrixInverse", name, input=input, adjoint=adjoint)


def matrix_determinant(input, name=None):  # noqa: A002
    return gen.apply("MatrixDeterminant", name, input=input)


def cholesky(input, name=None):  # noqa: A002
    return gen.apply("Cholesky", name, input=input)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    return gen.apply("MatrixSolve", name, matrix=matrix, rhs=rhs, adjoint=adjoint)


def trace(x, name=None):
    """The sum of each innermost matrix's diagonal (MatrixDiagPart, Sum "Trace")."""
    with ops.name_scope(name, "Trace", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(matrix_diag_part(x), [-1], name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (a batch of them): MatrixDiag of ones when square, else
    MatrixSetDiag of ones into zeros, under "eye"."""
    with ops.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else list(batch_shape)
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, ops.Tensor) or isinstance(num_columns, ops.Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
            diag_shape = array_ops.concat([batch_shape, array_ops.reshape(diag_size, [1])], 0)
            shape = array_ops.concat([batch_shape, array_ops.stack([num_rows, num_columns])], 0)
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(num_columns, (int, np.integer)):
                raise TypeError("num_rows and num_columns must be positive integer values.")
            is_square = num_rows == num_columns
            diag_shape = batch_shape + [min(num_rows, num_columns)]
            shape = batch_shape + [num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        zero_matrix = array_ops.zeros(shape, dtype=dtype)
        return matrix_set_diag(zero_matrix, diag_ones)


# ---------------- unique, setdiff1d, scatter_nd, bincount, confusion_matrix (kernels_array_tail.c) ----------------

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def unique(x, out_idx=dtypes.int32, name=None):
    return Unique(*gen.apply("Unique", name, x=x, out_idx=out_idx))


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    return UniqueWithCounts(*gen.apply("UniqueWithCounts", name, x=x, out_idx=out_idx))


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    return ListDiff(*gen.apply("ListDiff", name, x=x, y=y, out_idx=index_dtype))


def scatter_nd(indices, updates, shape, name=None):
    return gen.apply("ScatterNd", name, indices=indices, updates=updates, shape=shape)


def invert_permutation(x, name=None):
    return gen.apply("InvertPermutation", name, x=x)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """Counts of each value of arr (Bincount), or summed weights (UnsortedSegmentSum), over
    max(arr) + 1 bins bounded by minlength / maxlength, under "bincount"."""
    with ops.name_scope(None, "bincount", [arr, weights, minlength, maxlength]):
        arr = ops.convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        array_is_nonempty = math_ops.reduce_prod(array_ops.shape(arr)) > 0
        output_size = math_ops.cast(array_is_nonempty, dtypes.int32) * (math_ops.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = ops.convert_to_tensor(minlength, name="minlength", dtype=dtypes.int32)
            output_size = gen.apply("Maximum", None, x=minlength, y=output_size)
        if maxlength is not None:
            maxlength = ops.convert_to_tensor(maxlength, name="maxlength", dtype=dtypes.int32)
            output_size = gen.apply("Minimum", None, x=maxlength, y=output_size)
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            return gen.apply("UnsortedSegmentSum", None, data=weights, segment_ids=arr, num_segments=output_size)
        weights = constant_op.constant([], dtype)
        return gen.apply("Bincount", None, arr=arr, size=output_size, weights=weights)


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None):
    """The [num_classes, num_classes] counts of (label, prediction) pairs (ScatterNd of ones or
    weights), after TF's checks that both are non-negative and below num_classes."""
    from tfc.ops import check_ops
    with ops.name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels = ops.convert_to_tensor(labels, name="labels")
        predictions = ops.convert_to_tensor(predictions, name="predictions")
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = check_ops._with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values")], labels)
        predictions = check_ops._with_dependencies(
            [check_ops.assert_non_negative(predictions, message="`predictions` contains negative values")], predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
        else:
            n64 = math_ops.cast(num_classes, dtypes.int64)
            labels = check_ops._with_dependencies(
                [check_ops.assert_less(labels, n64, message="`labels` out of bound")], labels)
            predictions = check_ops._with_dependencies(
                [check_ops.assert_less(predictions, n64, message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = math_ops.cast(ops.convert_to_tensor(weights, name="weights"), dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return scatter_nd(indices=indices, updates=values, shape=math_ops.cast(shape, dtypes.int64))
