"""tf.train's global step, exponential_decay, ExponentialMovingAverage and
tf.contrib.layers.l2_regularizer, over the C builders (include/tfc/train.h): each a builder
call under the current context (see tfc/ops/variables.py for the bridge); Python adds TF's
argument checks and collections.
"""
import numbers

from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import variable_scope
from tfc.ops import variables


def get_global_step(graph=None):
    """The GLOBAL_STEP collection's variable, else the tensor "global_step:0", else None."""
    g = graph or ops.get_default_graph()
    found = g.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise TypeError("There are multiple items in collection global_step. There should be only one.")
    try:
        return g.get_tensor_by_name("global_step:0")
    except KeyError:
        return None


def get_or_create_global_step(graph=None):
    """The int64 scalar "global_step" (TFC_GetOrCreateGlobalStep), in GLOBAL_STEP."""
    g = graph or ops.get_default_graph()
    found = get_global_step(g)
    if isinstance(found, variables.Variable):
        return found
    with g.as_default():
        sc = g._builder_scope("VariableV2", "global_step", prefix="")
        triple = variables.call_builder(g, _pywrap.global_step, sc)
        v = variables._wrap(g, triple)
        g.add_to_collection(ops.GraphKeys.GLOBAL_STEP, v)
        variable_scope._store(g)._vars.setdefault("global_step", v)
    return v


def create_global_step(graph=None):
    g = graph or ops.get_default_graph()
    if get_global_step(g) is not None:
        raise ValueError("\"global_step\" already exists.")
    return get_or_create_global_step(g)


def _value(x):
    if isinstance(x, variables.Variable):
        return x.value()
    return ops.convert_to_tensor(x)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    g = ops.get_default_graph()
    step = _value(global_step)
    for what, x in (("learning_rate", learning_rate), ("decay_steps", decay_steps), ("decay_rate", decay_rate)):
        if not isinstance(x, numbers.Real) or isinstance(x, bool):
            raise TypeError("exponential_decay: tfc's builder takes a Python number for %s, got %r" % (what, x))
    sc = g._builder_scope("Pow", "ExponentialDecay", builder_name=name)
    op, i = variables.call_builder(g, _pywrap.exponential_decay, sc, float(learning_rate), step._as_tf_output(),
                                   float(decay_steps), float(decay_rate), bool(staircase))
    return g._ops_by_handle[op].outputs[i]


class ExponentialMovingAverage(object):
    """Shadow variables "<var>/ExponentialMovingAverage" updated by one op (the builder's).
    Unlike TF, a shadow starts from its variable's initial value without TF's cond (see
    TFC_ExponentialMovingAverage); `zero_debias` and a name other than the default are not
    supported yet."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        if zero_debias:
            raise TypeError("ExponentialMovingAverage: zero_debias is not supported by tfc yet")
        if name != "ExponentialMovingAverage":
            raise TypeError("ExponentialMovingAverage: tfc's builder names its nodes "
                            "'ExponentialMovingAverage' only")
        self._decay = decay
        self._num_updates = num_updates
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        if var_list is None:
            var_list = variables.trainable_variables()
        var_list = list(var_list)
        for v in var_list:
            if not isinstance(v, variables.Variable):
                raise TypeError("tfc's ExponentialMovingAverage averages variables only, got %r" % (v,))
            if v.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError("The variables must be half, float, or double: %s" % v.name)
            if v in self._averages:
                raise ValueError("Moving average already computed for: %s" % v.name)
        g = ops.get_default_graph()
        num = None if self._num_updates is None else _value(self._num_updates)._as_tf_output()
        sc = g._builder_scope("AssignSub", self._name)
        op, avgs = variables.call_builder(g, _pywrap.moving_average, sc, float(self._decay), num,
                                          [v._triple for v in var_list])
        for v, t in zip(var_list, avgs):
            self._averages[v] = variables._wrap(g, t)
            if v not in g.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES):
                g.add_to_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, v)
        return g._ops_by_handle[op]

    def average(self, var):
        return self._averages.get(var, None)

    def average_name(self, var):
        return var.op.name + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        name_map = {}
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables() + variables.moving_average_variables()
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        for v in variables.global_variables():
            if v not in moving_avg_variables and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


def l2_regularizer(scale, scope=None):
    """tf.contrib.layers.l2_regularizer: weights -> scale * l2_loss(weights) (TFC_L2Regularizer)."""
    if isinstance(scale, numbers.Integral):
        raise ValueError("scale cannot be an integer: %s" % (scale,))
    if isinstance(scale, numbers.Real):
        if scale < 0.:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g." % scale)
        if scale == 0.:
            return lambda _: None

    def l2(weights):
        g = ops.get_default_graph()
        sc = g._builder_scope("L2Loss", "l2_regularizer", builder_name=scope)
        out = variables.call_builder(g, _pywrap.l2_regularizer, sc, float(scale), _value(weights)._as_tf_output())
        return None if out is None else g._ops_by_handle[out[0]].outputs[out[1]]
    return l2
