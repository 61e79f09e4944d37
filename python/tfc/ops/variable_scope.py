"""tf.variable_scope and tf.get_variable (TF 1.x's variable_scope.py).

Design: the variable store and the current VariableScope live per graph (the store) and per
graph and thread (the current scope and the counts of opened scopes), as TF keeps them in
graph collections. get_variable names variables by the variable scope only ("a/w"), builds
them with tf.Variable under an absolute name scope (so "a/w", "a/w/Initializer/...",
"a/w/Assign", "a/w/read" come from the C builder as TF names them), and records them in the
store; a second request follows the scope's reuse with TF's ValueErrors. Entering a scope by
string opens a uniquified name scope of the same name; by VariableScope object, the object is
copied and its last name component opened as name scope; with name None, default_name is made
unique among the variable scopes opened at that level.
"""
import threading
import traceback

from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import init_ops
from tfc.ops import variables


class _ReuseMode(object):
    def __repr__(self):
        return "_ReuseMode.AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


class VariableScope(object):
    """The variable scope's settings: name, reuse, initializer, regularizer, dtype, ..."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, name_scope="", dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def global_variables(self):
        return variables.global_variables(self._name + "/" if self._name else None)

    def trainable_variables(self):
        return variables.trainable_variables(self._name + "/" if self._name else None)

    def local_variables(self):
        return variables.local_variables(self._name + "/" if self._name else None)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, caching_device=None, partitioner=None,
                     validate_shape=True, use_resource=None, custom_getter=None, constraint=None, **kwargs):
        if regularizer is None:
            regularizer = self._regularizer
        if reuse is None:
            reuse = self._reuse
        full_name = self._name + "/" + name if self._name else name
        if dtype is not None and initializer is not None and not callable(initializer):
            init_dtype = ops.convert_to_tensor(initializer).dtype.base_dtype
            if init_dtype != dtypes.as_dtype(dtype):
                raise ValueError("Initializer type '%s' and explicit dtype '%s' don't match."
                                 % (init_dtype, dtypes.as_dtype(dtype)))
        if initializer is None:
            initializer = self._initializer
        if dtype is None:
            dtype = self._dtype
        if partitioner is None:
            partitioner = self._partitioner
        if partitioner is not None:
            raise NotImplementedError("get_variable: partitioned variables are not supported by tfc yet")
        custom_getter = custom_getter if custom_getter is not None else self._custom_getter

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                        trainable=None, collections=None, validate_shape=True, **unused):
            return var_store.get_variable(name, shape, dtype, initializer, regularizer, reuse, trainable,
                                          collections, validate_shape)
        with ops.name_scope(None):
            if custom_getter is not None:
                return custom_getter(getter=true_getter, name=full_name, shape=shape, dtype=dtype, initializer=initializer,
                                     regularizer=regularizer, reuse=reuse, trainable=trainable,
                                     collections=collections, validate_shape=validate_shape)
            return true_getter(full_name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                               validate_shape)


class _VariableStore(object):
    """The variables get_variable made in one graph, by full name."""

    def __init__(self):
        self._vars = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, validate_shape=True):
        if reuse is False:
            reuse = None
        dtype = dtypes.as_dtype(dtype)
        initializing_from_value = initializer is not None and not callable(initializer)
        if initializing_from_value and shape is not None:
            raise ValueError("If initializer is a constant, do not specify shape.")
        shape = tensor_shape.as_shape(shape)
        if name in self._vars:
            if reuse is None:
                tb = getattr(self._vars[name], "_defined_at", [])
                raise ValueError("Variable %s already exists, disallowed. Did you mean to set reuse=True or "
                                 "reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n%s"
                                 % (name, "".join(traceback.format_list(tb))))
            found = self._vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError("Trying to share variable %s, but specified shape %s and found shape %s."
                                 % (name, shape, found.get_shape()))
            if dtype and not dtype.is_compatible_with(found.dtype):
                raise ValueError("Trying to share variable %s, but specified dtype %s and found dtype %s."
                                 % (name, dtype.name, found.dtype.base_dtype.name))
            return found
        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with tf.get_variable(). Did you "
                             "mean to set reuse=tf.AUTO_REUSE in VarScope?" % name)
        if initializer is None:
            if dtype.is_floating:
                initializer = init_ops.glorot_uniform_initializer()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError("An initializer for variable %s of %s is required" % (name, dtype.base_dtype))
        if initializing_from_value:
            init_val, variable_dtype = initializer, None
        else:
            if isinstance(initializer, type):
                initializer = initializer()
            if shape.is_fully_defined():
                dims = shape.as_list()
                init_val = lambda: initializer(dims, dtype=dtype, partition_info=None)  # noqa: E731
                variable_dtype = dtype.base_dtype
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable with no arguments "
                                 "and the shape should not be provided or an instance of "
                                 "`tf.keras.initializers.*' and `shape` should be fully defined.")
        v = variables.Variable(initial_value=init_val, name=name, trainable=trainable, collections=collections,
                               dtype=variable_dtype, validate_shape=validate_shape)
        v._defined_at = traceback.extract_stack()[:-3][-5:]
        self._vars[name] = v
        if regularizer:
            g = ops.get_default_graph()
            with g.name_scope(name + "/Regularizer/"), g.control_dependencies(None):
                loss = regularizer(v)
            if loss is not None:
                ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


class _ScopeState(threading.local):
    def __init__(self):
        self.current = VariableScope(False)
        self.counts = {}


def _store(graph=None):
    g = graph or ops.get_default_graph()
    s = getattr(g, "_variable_store", None)
    if s is None:
        s = g._variable_store = _VariableStore()
    return s


def _state(graph=None):
    g = graph or ops.get_default_graph()
    s = getattr(g, "_variable_scope_state", None)
    if s is None:
        s = g._variable_scope_state = _ScopeState()
    return s


def get_variable_scope():
    return _state().current


def _get_default_variable_store():
    return _store()


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None):
    return get_variable_scope().get_variable(_store(), name, shape=shape, dtype=dtype, initializer=initializer,
                                             regularizer=regularizer, trainable=trainable,
                                             collections=collections, partitioner=partitioner,
                                             validate_shape=validate_shape, custom_getter=custom_getter)


def _unique_default(state, prefix):
    cur = state.current.name
    name = cur + "/" + prefix if cur else prefix
    if state.counts.get(name, 0) == 0:
        return prefix
    idx = 1
    while state.counts.get(name + "_%d" % idx, 0) > 0:
        idx += 1
    return prefix + "_%d" % idx


class variable_scope(object):  # noqa: N801 (TF's name)
    """tf.variable_scope (v1) as a context manager yielding the VariableScope."""

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get {}"
                            .format(auxiliary_name_scope))
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._settings = dict(initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                              partitioner=partitioner, custom_getter=custom_getter, dtype=dtype,
                              use_resource=use_resource, constraint=constraint)
        self._reuse = reuse
        self._aux = auxiliary_name_scope
        self._exits = []

    def _apply(self, vs):
        s = self._settings
        if s["initializer"] is not None:
            vs.set_initializer(s["initializer"])
        if s["regularizer"] is not None:
            vs.set_regularizer(s["regularizer"])
        if s["caching_device"] is not None:
            vs.set_caching_device(s["caching_device"])
        if s["partitioner"] is not None:
            vs.set_partitioner(s["partitioner"])
        if s["custom_getter"] is not None:
            vs.set_custom_getter(s["custom_getter"])
        if s["dtype"] is not None:
            vs.set_dtype(s["dtype"])
        if s["use_resource"] is not None:
            vs.set_use_resource(s["use_resource"])

    def _enter_cm(self, cm):
        r = cm.__enter__()
        self._exits.append(cm)
        return r

    def __enter__(self):
        g = ops._graph_of(self._values) or ops.get_default_graph()
        if g is not ops.get_default_graph():
            self._enter_cm(g.as_default())
        state = _state(g)
        old = state.current
        self._state, self._old = state, old
        nos = self._name_or_scope
        if nos is None:
            if self._reuse is True:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            scope_name = self._enter_cm(ops.name_scope(self._default_name)) if self._aux else \
                g.get_name_scope() + "/"
            nos = _unique_default(state, self._default_name)
        elif isinstance(nos, VariableScope):
            last = nos.name.split("/")[-1]
            if self._aux and last:
                self._enter_cm(ops.name_scope(last))
            scope_name = nos.original_name_scope
        else:
            scope_name = self._enter_cm(ops.name_scope(nos)) if self._aux and nos else None
        if isinstance(nos, VariableScope):
            vs = VariableScope(nos.reuse if not self._reuse else self._reuse, name=nos.name,
                               initializer=nos.initializer, regularizer=nos.regularizer,
                               caching_device=nos.caching_device, partitioner=nos.partitioner,
                               custom_getter=nos.custom_getter, name_scope=nos.original_name_scope,
                               dtype=nos.dtype, use_resource=nos.use_resource, constraint=nos.constraint)
            self._new_name = nos.name
            self._saved_counts = dict(state.counts)
        else:
            new_name = old.name + "/" + nos if old.name else nos
            reuse = self._reuse or old.reuse
            vs = VariableScope(reuse, name=new_name, initializer=old.initializer, regularizer=old.regularizer,
                               caching_device=old.caching_device, partitioner=old.partitioner,
                               custom_getter=old.custom_getter,
                               name_scope=scope_name if scope_name is not None else nos,
                               dtype=old.dtype, use_resource=old.use_resource, constraint=old.constraint)
            self._new_name = new_name
            self._saved_counts = None
        self._apply(vs)
        state.counts[self._new_name] = state.counts.get(self._new_name, 0) + 1
        state.current = vs
        return vs

    def __exit__(self, *exc):
        state = self._state
        if self._saved_counts is not None:
            state.counts = self._saved_counts
        else:
            prefix = self._new_name + "/"
            for k in state.counts:
                if k.startswith(prefix):
                    state.counts[k] = 0
        state.current = self._old
        while self._exits:
            self._exits.pop().__exit__(*exc)
        return False


def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
