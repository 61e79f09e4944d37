"""tf.train optimizers over the C optimizer builders (include/tfc/train.h: TFC_Optimizer).

Design: each Python optimizer owns one _pywrap.Optimizer (a TFC_Optimizer), which keeps the
slots and Adam's beta powers per graph and variable, so repeated apply_gradients calls reuse
them as TF's do. compute_gradients, apply_gradients and minimize are builder calls under the
current context (variables.py's bridge); the returned op and the gradients are wrapped as
Python objects. Python checks the arguments first with TF's texts (no variables, all-None
gradients, dtypes); the builder builds what TF's Python builds (slots "<var>/Adam",
"Adam/update_<var>/ApplyAdam", the AssignAdd on the global step named after the scope).

Only the hyperparameters the builders take as numbers may be Python numbers; the learning rate
may also be a scalar float tensor (e.g. exponential_decay's).
"""
import numbers

from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.ops import variables

GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2
_FLOATS = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)  # TF's order in messages


def _number(x, what):
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return float(x)
    raise TypeError("%s: tfc's optimizer builder takes a Python number, got %r" % (what, x))


def _var_triple(v):
    if not isinstance(v, variables.Variable):
        raise TypeError("Argument is not a tf.Variable: %r" % (v,))
    return v._triple


class Optimizer(object):
    """The base class: compute_gradients / apply_gradients / minimize."""

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name

    def _make(self, kind, lr, *args):
        if isinstance(lr, (ops.Tensor, variables.Variable)):
            self._c = _pywrap.Optimizer(kind, self._name, 0.0, *args)
            lr = ops.convert_to_tensor(lr)
            self._c.set_learning_rate(lr._as_tf_output())
        else:
            if callable(lr):
                lr = lr()
            self._c = _pywrap.Optimizer(kind, self._name, _number(lr, "learning_rate"), *args)

    def get_name(self):
        return self._name

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        if gate_gradients not in (GATE_NONE, GATE_OP, GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             "Optimizer.GATE_GRAPH.  Not %s" % gate_gradients)
        if grad_loss is not None:
            raise TypeError("compute_gradients: grad_loss is not supported by tfc yet")
        loss = ops.convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if var_list is None:
            var_list = variables.trainable_variables()
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        self._assert_valid_dtypes([v._ref() for v in var_list])
        g = loss.graph
        sc = g._builder_scope("AddN", "gradients")
        _, grads = variables.call_builder(g, self._c.compute_gradients, sc, loss._as_tf_output(),
                                          [_var_triple(v) for v in var_list])
        return [(None if gr is None else g._ops_by_handle[gr[0]].outputs[gr[1]], v)
                for gr, v in zip(grads, var_list)]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        for gr, v in grads_and_vars:
            if gr is not None and not isinstance(gr, ops.Tensor):
                raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %s" % gr)
        if not [v for gr, v in grads_and_vars if gr is not None]:
            raise ValueError("No gradients provided for any variable: %s." % ([str(v) for _, v in grads_and_vars],))
        g = grads_and_vars[0][1].graph
        grads = [None if gr is None else ops.convert_to_tensor(gr)._as_tf_output() for gr, _ in grads_and_vars]
        vs = [_var_triple(v) for _, v in grads_and_vars]
        step = None
        if global_step is not None:
            step = _var_triple(global_step)
        sc = g._builder_scope("NoOp", name or self._name)
        h = variables.call_builder(g, self._c.apply_gradients, sc, grads, vs, step, name)
        op = g._ops_by_handle[h]
        train_ops = g.get_collection_ref(ops.GraphKeys.TRAIN_OP)
        if op not in train_ops:
            train_ops.append(op)
        return op

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                                aggregation_method=aggregation_method,
                                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                grad_loss=grad_loss)
        vars_with_grad = [v for gr, v in grads_and_vars if gr is not None]
        if not vars_with_grad:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not "
                             "support gradients, between variables %s and loss %s."
                             % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    _SLOT_NAMES = ()

    def get_slot_names(self):
        return sorted(self._SLOT_NAMES)

    def get_slot(self, var, name):
        """The slot variable `name` this optimizer made for var (TFC_OptimizerGetSlot), or None."""
        if not isinstance(var, variables.Variable):
            return None
        t = self._c.get_slot(var.graph._c_graph, var.op._c_op, name)
        return None if t is None else variables._wrap(var.graph, t)

    def variables(self):
        """The slot variables this optimizer made in the default graph (and Adam's beta powers)."""
        g = ops.get_default_graph()
        out = []
        for v in variables.global_variables():
            for n in self._SLOT_NAMES:
                s = self.get_slot(v, n)
                if s is not None and s not in out:
                    out.append(s)
        for name in self._NON_SLOT:
            try:
                op = g.get_operation_by_name(name)
            except KeyError:
                continue
            wrapped = variables._variables_of(g).get(op._c_op)
            if wrapped is not None:
                out.append(wrapped)
        return sorted(out, key=lambda v: v.name)

    _NON_SLOT = ()

    def _assert_valid_dtypes(self, tensors):
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in _FLOATS:
                raise ValueError("Invalid type %r for %s, expected: %s." % (dtype, t.name, [v for v in _FLOATS]))


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super(GradientDescentOptimizer, self).__init__(use_locking, name)
        self._make("GradientDescent", learning_rate)


class MomentumOptimizer(Optimizer):
    _SLOT_NAMES = ("momentum",)

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super(MomentumOptimizer, self).__init__(use_locking, name)
        self._make("Momentum", learning_rate, _number(momentum, "momentum"), 0.0, 0.0, bool(use_nesterov))


class AdamOptimizer(Optimizer):
    _SLOT_NAMES = ("m", "v")
    _NON_SLOT = ("beta1_power", "beta2_power")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False, name="Adam"):
        super(AdamOptimizer, self).__init__(use_locking, name)
        self._make("Adam", learning_rate, _number(beta1, "beta1"), _number(beta2, "beta2"),
                   _number(epsilon, "epsilon"))


class AdagradOptimizer(Optimizer):
    _SLOT_NAMES = ("accumulator",)

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super(AdagradOptimizer, self).__init__(use_locking, name)
        self._make("Adagrad", learning_rate, _number(initial_accumulator_value, "initial_accumulator_value"))


class RMSPropOptimizer(Optimizer):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super(RMSPropOptimizer, self).__init__(use_locking, name)
        self._make("RMSProp", learning_rate, _number(decay, "decay"), _number(momentum, "momentum"),
                   _number(epsilon, "epsilon"), bool(centered))
        self._SLOT_NAMES = ("rms", "momentum", "mg") if centered else ("rms", "momentum")


class AdadeltaOptimizer(Optimizer):
    _SLOT_NAMES = ("accum", "accum_update")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super(AdadeltaOptimizer, self).__init__(use_locking, name)
        self._make("Adadelta", learning_rate, _number(rho, "rho"), _number(epsilon, "epsilon"))


class FtrlOptimizer(Optimizer):
    """FTRL-proximal: ApplyFtrl, or ApplyFtrlV2 with l2_shrinkage_regularization_strength > 0.
    accum_name / linear_name other than the optimizer's name are not supported yet."""
    _SLOT_NAMES = ("accum", "linear")

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0):
        super(FtrlOptimizer, self).__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value %f needs to be positive or zero" % initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero" % learning_rate_power)
        if l1_regularization_strength < 0.0:
            raise ValueError("l1_regularization_strength %f needs to be positive or zero"
                             % l1_regularization_strength)
        if l2_regularization_strength < 0.0:
            raise ValueError("l2_regularization_strength %f needs to be positive or zero"
                             % l2_regularization_strength)
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or zero"
                             % l2_shrinkage_regularization_strength)
        if accum_name not in (None, name) or linear_name not in (None, name):
            raise TypeError("FtrlOptimizer: tfc names the slots after the optimizer only "
                            "(accum_name/linear_name are not supported yet)")
        self._make("Ftrl", learning_rate, _number(learning_rate_power, "learning_rate_power"),
                   _number(initial_accumulator_value, "initial_accumulator_value"),
                   _number(l1_regularization_strength, "l1_regularization_strength"), False,
                   _number(l2_regularization_strength, "l2_regularization_strength"),
                   _number(l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength"))


class ProximalGradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super(ProximalGradientDescentOptimizer, self).__init__(use_locking, name)
        self._make("ProximalGradientDescent", learning_rate,
                   _number(l1_regularization_strength, "l1_regularization_strength"),
                   _number(l2_regularization_strength, "l2_regularization_strength"))


class ProximalAdagradOptimizer(Optimizer):
    _SLOT_NAMES = ("accumulator",)

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super(ProximalAdagradOptimizer, self).__init__(use_locking, name)
        self._make("ProximalAdagrad", learning_rate, _number(initial_accumulator_value, "initial_accumulator_value"),
                   _number(l1_regularization_strength, "l1_regularization_strength"),
                   _number(l2_regularization_strength, "l2_regularization_strength"))
