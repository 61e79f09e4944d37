"""Gradient accumulators with TF 1.x's Python API: tf.ConditionalAccumulator,
tf.SparseConditionalAccumulator (also tf.sparse.SparseConditionalAccumulator) and the
tf.IndexedSlices their sparse take returns.

Design: an accumulator object holds the accumulator op's output and builds the accumulator
ops as TF 1.15's classes do, with their names: ConditionalAccumulator makes the Resource ops
(ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient, ...; "<name>_NumAccumulated"
for the count), SparseConditionalAccumulator the Ref ones (SparseConditionalAccumulator,
SparseAccumulatorApplyGradient, ...). Steps are cast to int64 (and sparse indices and shapes)
through math_ops.cast, as TF casts them, so the Cast nodes are TF's too. These are single ops
with no graph logic, so there is no C builder for them (the semantics are the runtime's:
src/state/accumulator.h).

Errors: TF's ValueError for a gradient whose static shape is incompatible with the
accumulator's ("Shapes (3,) and (2,) are incompatible") and for a reduction_type other than
MEAN or SUM ("Attr 'reduction_type' of 'ResourceConditionalAccumulator' Op passed string 'MAX'
not in: "MEAN", "SUM"."); runtime errors are the kernels'.
"""
import collections

from tfc.framework import dtypes as _dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import gen
from tfc.ops import math_ops


class IndexedSlices(object):
    """tf.IndexedSlices(values, indices, dense_shape=None): a sparse slice of a dense tensor,
    rows `values` at `indices` of a tensor of shape `dense_shape`."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def __str__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self._indices, self._values, (", dense_shape=%s" % self._dense_shape) if self._dense_shape is not None else "")


# TF's namedtuple of SparseAccumulatorTakeGradient's outputs (what take_grad returns).
SparseAccumulatorTakeGradient = collections.namedtuple("SparseAccumulatorTakeGradient", ["indices", "values", "shape"])


def _as_int64(x):
    return math_ops.cast(ops.convert_to_tensor(x), _dtypes.int64)


class ConditionalAccumulatorBase(object):
    """What the two accumulators share: the handle, the name, the dtype and shape."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        return self._accumulator_ref

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def num_accumulated(self, name=None):
        if name is None:
            name = "%s_NumAccumulated" % self._name
        return gen.apply("ResourceAccumulatorNumAccumulated", name, handle=self._accumulator_ref)

    def set_global_step(self, new_global_step, name=None):
        return gen.apply("ResourceAccumulatorSetGlobalStep", name, handle=self._accumulator_ref,
                         new_global_step=_as_int64(new_global_step))


def _accumulator_op(op_type, dtype, shape, shared_name, name, reduction_type):
    return gen.apply(op_type, name, dtype=_dtypes.as_dtype(dtype), shape=tensor_shape.TensorShape(shape),
                     shared_name=shared_name or "", reduction_type=reduction_type)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """tf.ConditionalAccumulator(dtype, shape=None, shared_name=None,
    name="conditional_accumulator", reduction_type="MEAN"): averages (or sums) the dense
    gradients of one step; see src/state/accumulator.h."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        dtype = _dtypes.as_dtype(dtype)
        ref = _accumulator_op("ResourceConditionalAccumulator", dtype, shape, shared_name, name, reduction_type)
        super(ConditionalAccumulator, self).__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        grad = ops.convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = _as_int64(local_step)
        return gen.apply("ResourceAccumulatorApplyGradient", name, handle=self._accumulator_ref, local_step=local_step,
                         gradient=grad)

    def take_grad(self, num_required, name=None):
        out = gen.apply("ResourceAccumulatorTakeGradient", name, handle=self._accumulator_ref,
                        num_required=num_required, dtype=self._dtype)
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """tf.SparseConditionalAccumulator(dtype, shape=None, shared_name=None,
    name="sparse_conditional_accumulator", reduction_type="MEAN"): averages sparse gradients
    index by index (TF never made a Resource form of it: its ops take the Ref handle)."""

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        dtype = _dtypes.as_dtype(dtype)
        ref = _accumulator_op("SparseConditionalAccumulator", dtype, shape, shared_name, name, reduction_type)
        super(SparseConditionalAccumulator, self).__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values, grad_shape=grad.dense_shape,
                               local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        local_step = _as_int64(local_step)
        return gen.apply("SparseAccumulatorApplyGradient", name, handle=self._accumulator_ref, local_step=local_step,
                         gradient_indices=math_ops.cast(grad_indices, _dtypes.int64), gradient_values=grad_values,
                         gradient_shape=math_ops.cast([] if grad_shape is None else grad_shape, _dtypes.int64),
                         has_known_shape=grad_shape is not None)

    def take_grad(self, num_required, name=None):
        return SparseAccumulatorTakeGradient(*gen.apply("SparseAccumulatorTakeGradient", name,
                                                        handle=self._accumulator_ref, num_required=num_required,
                                                        dtype=self._dtype))

    def take_indexed_slices_grad(self, num_required, name=None):
        t = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=t.indices, values=t.values, dense_shape=t.shape)

    def num_accumulated(self, name=None):
        if name is None:
            name = "%s_NumAccumulated" % self._name
        return gen.apply("AccumulatorNumAccumulated", name, handle=self._accumulator_ref)

    def set_global_step(self, new_global_step, name=None):
        return gen.apply("AccumulatorSetGlobalStep", name, handle=self._accumulator_ref,
                         new_global_step=_as_int64(new_global_step))


def export(ns):
    """Adds the names to the namespace dict ns (the tf module's globals)."""
    import types as _types
    for n in ("ConditionalAccumulatorBase", "ConditionalAccumulator", "SparseConditionalAccumulator"):
        ns[n] = globals()[n]
    ns.setdefault("IndexedSlices", IndexedSlices)
    sparse = ns.get("sparse")
    if not isinstance(sparse, _types.ModuleType):
        sparse = ns["sparse"] = _types.ModuleType("tfc.sparse", "tf.sparse")
    sparse.SparseConditionalAccumulator = SparseConditionalAccumulator
