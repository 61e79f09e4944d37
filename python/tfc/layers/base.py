"""tf.layers.Layer: the naming, scoping and variable handling TF 1.15's tf.layers share
(tensorflow/python/layers/base.py over Keras' Layer, graph mode).

Design: a layer owns a VariableScope, captured on its first call as
variable_scope(name or None, default_name=<snake_case class name>) in the variable scope then
current (so the first `dense` layer is "dense", the next "dense_1", one named "fc" is "fc", a
second Dense named "fc" is "fc_1"; the functions (tf.layers.dense(name="fc")) enter
variable_scope("fc") when the layer is made, so a second one shares or fails as get_variable
does). Every call re-enters that scope object (its
variables: "dense/kernel") and its original name scope as is (its ops: "dense/MatMul", a
second call "dense/MatMul_1"). build(input_shape) runs once, on the first call; add_weight
makes variables with tf.get_variable in the layer's scope, reusing after the first build (or
when the layer was made with reuse). A weight's regularizer runs under "<weight>/Regularizer"
when the variable is new; its loss goes to the layer's losses and REGULARIZATION_LOSSES. Updates
(add_update) go to UPDATE_OPS. Layers have no eager mode, masks or Keras functional API.

smart_cond / constant_value are tf_utils' helpers the layers' `training` arguments use: a Python
bool or a Const picks a branch at build time; any other tensor builds a tf.cond.

Errors are TF 1.15's (ValueError texts of the layers, TypeError for bad arguments).
"""
import re

import numpy as np

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_util
from tfc.framework import tensor_shape
from tfc.ops import variable_scope as vs
from tfc.ops import variables as tf_variables


def to_snake_case(name):
    """Keras' generic_utils.to_snake_case: "BatchNormalization" -> "batch_normalization"."""
    s = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()
    return s if s[0] != "_" else "private" + s


def _unique_layer_name(base):
    """Keras' backend.unique_object_name (zero_based=False), per graph: "dense_1", "dense_2"."""
    g = ops.get_default_graph()
    uids = getattr(g, "_layer_name_uids", None)
    if uids is None:
        uids = g._layer_name_uids = {}
    uids[base] = uids.get(base, 0) + 1
    return "%s_%d" % (base, uids[base])


def constant_value(pred):
    """True/False for a Python bool, a numpy bool, an int 0/1 or a Const tensor; None for any
    other tensor (tf_utils.constant_value)."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    if isinstance(pred, int):
        if pred in (0, 1):
            return bool(pred)
        raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: %s" % type(pred))
    if isinstance(pred, tf_variables.Variable):
        return None
    if isinstance(pred, ops.Tensor):
        v = tensor_util.constant_value(pred)
        return None if v is None else bool(v)
    raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: %s" % type(pred))


def smart_cond(pred, true_fn, false_fn, name=None):
    """true_fn() or false_fn() when pred is known at build time, else tf.cond(pred, ...)."""
    v = constant_value(pred)
    if v is True:
        return true_fn()
    if v is False:
        return false_fn()
    from tfc.ops import control_flow_ops
    return control_flow_ops.cond(pred, true_fn, false_fn, name=name)


def _to_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class InputSpec(object):
    """The rank / axis constraints a layer puts on its input (checked on later calls)."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Layer(object):
    """Base of the tf.layers classes: see the module comment. Subclasses define build() and
    call(inputs, ...)."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        allowed = {"_scope", "_reuse", "input_shape", "batch_input_shape", "batch_size", "weights",
                   "activity_regularizer", "autocast"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError("Keyword argument not understood:", k)
        self._reuse = kwargs.get("_reuse")
        self._scope = None
        self._activity_regularizer = kwargs.get("activity_regularizer")
        self.trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self.built = False
        self.input_spec = None
        self._trainable_weights, self._non_trainable_weights = [], []
        self._updates, self._losses = [], []
        self._current_scope = None
        self._graph = None
        base = to_snake_case(type(self).__name__)
        if isinstance(name, vs.VariableScope):
            self._name, self._base_name = _unique_layer_name(base), name.name
        elif name:
            self._name = self._base_name = name
        else:
            self._name, self._base_name = _unique_layer_name(base), base
        # A scope given at construction (the functions' name=, contrib's scope object) is entered
        # now, so its name scope is taken now; without one the first call picks the scope.
        if kwargs.get("_scope"):
            with vs.variable_scope(kwargs["_scope"]) as captured:
                self._scope = captured

    # ---- properties ----
    name = property(lambda self: self._name)
    scope_name = property(lambda self: self._scope.name if self._scope is not None else None)

    @property
    def dtype(self):
        return self._dtype

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    @property
    def graph(self):
        return self._graph

    # ---- scopes ----
    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    def _name_scope(self):
        s = self._current_scope.original_name_scope
        if s and not s.endswith("/"):
            s += "/"
        return s

    # ---- weights, updates, losses ----
    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True,
                   constraint=None, use_resource=None, partitioner=None, **kwargs):
        """A variable of the layer made with tf.get_variable in its scope (see the module
        comment). Keras' default initializer: glorot_uniform for floats, zeros for integers and
        bools; anything else needs one (ValueError)."""
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32)
        if initializer is None:
            if dtype.is_floating:
                from tfc.ops import init_ops
                initializer = init_ops.glorot_uniform_initializer()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
                from tfc.ops import init_ops
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError("An initializer for variable %s of type %s is required for layer %s"
                                 % (name, dtype.base_dtype, self.name))
        existing = set(tf_variables.global_variables())
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with ops.name_scope(self._name_scope()):
                v = vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                                    trainable=trainable and self.trainable, partitioner=partitioner)
                if regularizer is not None and v not in existing:
                    with ops.name_scope(name + "/Regularizer"):
                        loss = regularizer(v)
                    if loss is not None:
                        self._losses.append(loss)
                        ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
        if trainable and v not in self._trainable_weights:
            self._trainable_weights.append(v)
        elif not trainable and v not in self._non_trainable_weights:
            self._non_trainable_weights.append(v)
        return v

    def add_update(self, updates, inputs=None):
        """Records update ops (callables are called now, as TF 1.x graph mode does; a tensor
        stands for its op) in the layer and in UPDATE_OPS."""
        for u in _to_list(updates):
            if callable(u):
                u = u()
            if isinstance(u, tf_variables.Variable):
                continue
            if isinstance(u, ops.Tensor):
                u = u.op                # the collection holds the update ops, as TF's
            self._updates.append(u)
            if u not in ops.get_collection(ops.GraphKeys.UPDATE_OPS):
                ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, u)

    def add_loss(self, losses, inputs=None):
        for loss in _to_list(losses):
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            self._losses.append(loss)
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)

    # ---- building and calling ----
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError

    def __call__(self, inputs, *args, **kwargs):
        scope = kwargs.pop("scope", None)
        if isinstance(inputs, (list, tuple)) and any(isinstance(x, ops.Tensor) for x in inputs):
            inputs = [ops.convert_to_tensor(x) for x in inputs]
        elif not isinstance(inputs, ops.Tensor):
            inputs = ops.convert_to_tensor(inputs)      # numbers, arrays, variables; None: TF's ValueError
        g = inputs[0].graph if isinstance(inputs, (list, tuple)) else inputs.graph
        self._graph = g
        with g.as_default():
            self._set_scope(scope)
            reuse = True if self.built else self._reuse
            with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vscope:
                self._current_scope = vscope
                with ops.name_scope(self._name_scope()):
                    if not self.built:
                        if self._dtype is None and isinstance(inputs, ops.Tensor):
                            self._dtype = inputs.dtype.base_dtype
                        shapes = ([x.shape for x in inputs] if isinstance(inputs, (list, tuple))
                                  else inputs.shape)
                        self.build(shapes)
                        self.built = True
                    outputs = self.call(inputs, *args, **kwargs)
                    if self._activity_regularizer is not None:
                        self._activity_regularization(inputs, outputs)
        return outputs

    def _activity_regularization(self, inputs, outputs):
        from tfc.ops import array_ops, math_ops
        with ops.name_scope("ActivityRegularizer"):
            for out in _to_list(outputs):
                loss = self._activity_regularizer(out)
                batch = math_ops.cast(array_ops.shape(out)[0], loss.dtype)
                self.add_loss(loss / batch, inputs=inputs)

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable,
                "dtype": self._dtype.name if self._dtype is not None else None}

    @staticmethod
    def _shape(input_shape):
        return tensor_shape.TensorShape(input_shape)
