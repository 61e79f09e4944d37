"""tf.train's learning-rate schedules other than exponential_decay (training_util.py), over the
C builders of include/tfc/train.h (TFC_PolynomialDecay, TFC_CosineDecay, ...): Python checks
the arguments with TF 1.15's texts and makes the builder call under the current context; the
builders build the graph with TF's node names.

The builders take the hyperparameters as numbers: a tensor hyperparameter (TF accepts one) is a
TypeError here. piecewise_constant is built branch-free (see TFC_PiecewiseConstant): the same
values, other inner node names.
"""
import numbers

from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import variables


def _num(x, what, fn):
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return float(x)
    raise TypeError("%s: tfc's builder takes a Python number for %s, got %r" % (fn, what, x))


def _step(global_step, fn):
    if global_step is None:
        raise ValueError("global_step is required for %s." % fn)
    if isinstance(global_step, variables.Variable):
        return global_step.value()
    return ops.convert_to_tensor(global_step)


def _decay(kind, fn, default, learning_rate, global_step, name, *nums):
    step = _step(global_step, fn)
    lr = _num(learning_rate, "learning_rate", fn)
    g = ops.get_default_graph()
    sc = g._builder_scope("Mul", default, builder_name=name)
    op, i = variables.call_builder(g, _pywrap.decay, kind, sc, step._as_tf_output(), lr, *nums)
    return g._ops_by_handle[op].outputs[i]


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    fn = "natural_exp_decay"
    return _decay("natural_exp", fn, "ExponentialDecay", learning_rate, global_step, name,
                  _num(decay_steps, "decay_steps", fn), _num(decay_rate, "decay_rate", fn), float(bool(staircase)))


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    fn = "inverse_time_decay"
    return _decay("inverse_time", fn, "InverseTimeDecay", learning_rate, global_step, name,
                  _num(decay_steps, "decay_steps", fn), _num(decay_rate, "decay_rate", fn), float(bool(staircase)))


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    fn = "polynomial_decay"
    return _decay("polynomial", fn, "PolynomialDecay", learning_rate, global_step, name,
                  _num(decay_steps, "decay_steps", fn), _num(end_learning_rate, "end_learning_rate", fn),
                  _num(power, "power", fn), float(bool(cycle)))


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    fn = "cosine_decay"
    return _decay("cosine", fn, "CosineDecay", learning_rate, global_step, name,
                  _num(decay_steps, "decay_steps", fn), _num(alpha, "alpha", fn))


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    fn = "cosine_decay_restarts"
    return _decay("restarts", fn, "SGDRDecay", learning_rate, global_step, name,
                  _num(first_decay_steps, "first_decay_steps", fn), _num(t_mul, "t_mul", fn),
                  _num(m_mul, "m_mul", fn), _num(alpha, "alpha", fn))


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name=None):
    fn = "linear_cosine_decay"
    return _decay("linear_cosine", fn, "LinearCosineDecay", learning_rate, global_step, name,
                  _num(decay_steps, "decay_steps", fn), _num(num_periods, "num_periods", fn),
                  _num(alpha, "alpha", fn), _num(beta, "beta", fn))


def _py_dtype(v):
    return dtypes.int32 if isinstance(v, numbers.Integral) else dtypes.float32


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] up to boundaries[0], values[i] up to boundaries[i], values[-1] after."""
    boundaries, values = list(boundaries), list(values)
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    for b in boundaries + values:
        _num(b, "boundaries and values", "piecewise_constant")
    if not boundaries:
        raise IndexError("list index out of range")
    if isinstance(x, variables.Variable):
        x = x.value()
    x = ops.convert_to_tensor(x)
    xdt = x.dtype.base_dtype
    for b in boundaries:
        bdt = _py_dtype(b)
        if bdt != xdt and not (bdt == dtypes.int32 and xdt == dtypes.int64):
            raise ValueError("Boundaries (%s) must have the same dtype as x (%s)." % (bdt, xdt))
    vdtype = _py_dtype(values[0])
    for v in values[1:]:
        if _py_dtype(v) != vdtype:
            raise ValueError("Values must have elements all with the same dtype (%s vs %s)." % (vdtype, _py_dtype(v)))
    g = ops.get_default_graph()
    sc = g._builder_scope("GatherV2", "PiecewiseConstant", builder_name=name)
    op, i = variables.call_builder(g, _pywrap.piecewise_constant, sc, x._as_tf_output(),
                                   [float(b) for b in boundaries], [float(v) for v in values],
                                   vdtype.as_datatype_enum)
    return g._ops_by_handle[op].outputs[i]
