"""tf.Variable (TF 1.x reference variables) over the C builders, and the variable collections.

Design: the bridge between the Python context and include/tfc/train.h's builders.

- A builder call gets the per-thread context as a _pywrap.Scope (Graph._builder_scope): the
  name scope Python already took from the shared table of names in use, as an exact prefix;
  the device the device stack gives an op of the builder's main type (VariableV2 for
  variables, so replica_device_setter-style functions place them: a device function is called
  once per builder call, with that op, and its answer holds for every node the call makes);
  and the control dependencies in force. After the call Graph._sync_c_ops() wraps the new
  operations, which then behave like any Python-made op.
- tf.Variable(v, name="w") opens name_scope("w") in Python (which takes "w", or "w_1"), builds
  a non-tensor initial value there ("w/initial_value", or "w/Initializer/..." for a callable,
  without device and control dependencies as TF's init_scope), then calls
  TFC_NewVariableWithFlags with that exact name: VariableV2 "w", "w/Assign", "w/read".
- The variable collections (GLOBAL_VARIABLES, TRAINABLE_VARIABLES, LOCAL_VARIABLES) are the
  builders' C lists: Graph.get_collection reads them (wrapping variables the builders made on
  their own, such as optimizer slots, as Variables), and add_to_collection /
  clear_collection of a Variable set its membership in C (TFC_SetVariableCollections), so a
  builder that reads them (minimize, the initializers) sees Python's edits. The order is the
  variables' creation order. Other collections a Variable joins (collections=[...]) are
  Python lists.

Errors: builder statuses with INVALID_ARGUMENT become ValueError (TF raises ValueError while
building); TF's own argument checks raise TF's classes and texts.
"""
from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import ops

GLOBAL = 2      # TFC_VARIABLE_GLOBAL
TRAINABLE = 4   # TFC_VARIABLE_TRAINABLE
LOCAL = 8       # TFC_VARIABLE_LOCAL
EXACT_NAME = 1  # TFC_VARIABLE_EXACT_NAME
SELF_COLOCATE = 16  # TFC_VARIABLE_SELF_COLOCATE

_FLAG_OF_KEY = {ops.GraphKeys.GLOBAL_VARIABLES: GLOBAL, ops.GraphKeys.TRAINABLE_VARIABLES: TRAINABLE,
                ops.GraphKeys.LOCAL_VARIABLES: LOCAL}
_LIST_OF_KEY = {ops.GraphKeys.GLOBAL_VARIABLES: 0, ops.GraphKeys.TRAINABLE_VARIABLES: 1,
                ops.GraphKeys.LOCAL_VARIABLES: 2}


def call_builder(graph, fn, *args):
    """Runs one builder call: fn(*args) with INVALID_ARGUMENT raised as ValueError (TF's class
    for graph-building errors); the ops it made are wrapped before returning its result."""
    try:
        return fn(*args)
    except errors.InvalidArgumentError as e:
        raise ValueError(e.message)
    finally:
        graph._sync_c_ops()


def _variables_of(graph):
    """The graph's map VariableV2 handle -> Variable."""
    m = getattr(graph, "_variables_by_handle", None)
    if m is None:
        m = graph._variables_by_handle = {}
    return m


def _wrap(graph, triple):
    """The Variable for a builder's (variable, initializer, read) triple (made once)."""
    m = _variables_of(graph)
    v = m.get(triple[0])
    if v is None:
        graph._sync_c_ops()
        v = Variable._from_triple(graph, triple)
    return v


class _VariableCollection(object):
    """The bridge for one variable collection key (ops.register_collection_bridge)."""

    def __init__(self, key):
        self.key = key

    def get(self, graph):
        return [_wrap(graph, t) for t in _pywrap.list_variables(graph._c_graph, _LIST_OF_KEY[self.key])]

    def _flags(self, graph, v):
        flags = 0
        for key, bit in _FLAG_OF_KEY.items():
            held = [t[0] for t in _pywrap.list_variables(graph._c_graph, _LIST_OF_KEY[key])]
            if v._triple[0] in held:
                flags |= bit
        return flags

    def add(self, graph, value):
        if not isinstance(value, Variable) or value.graph is not graph:
            return False
        _pywrap.set_variable_collections(graph._c_graph, value._triple,
                                         self._flags(graph, value) | _FLAG_OF_KEY[self.key])
        return True

    def clear(self, graph):
        for v in self.get(graph):
            _pywrap.set_variable_collections(graph._c_graph, v._triple,
                                             self._flags(graph, v) & ~_FLAG_OF_KEY[self.key])


for _key in _FLAG_OF_KEY:
    ops.register_collection_bridge(_key, _VariableCollection(_key))


class Variable(object):
    """A TF 1.x reference variable (RefVariable): VariableV2, Assign initializer, <name>/read."""

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None,
                 aggregation=None, shape=None):
        if variable_def is not None:
            raise NotImplementedError("Variable(variable_def=...) is not supported by tfc yet")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if trainable is None:
            trainable = True
        if collections is None:
            collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, tuple, "
                             "or set. Got %s of type %s" % (collections, type(collections)))
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        init_from_fn = callable(initial_value)
        g = ops.get_default_graph()
        with g.control_dependencies(None), g.name_scope(name or "Variable") as scope:
            full = scope[:-1]
            if init_from_fn:  # TF: attr_scope(_class loc:@<var>) and device(None), the VariableV2 too
                with g._colocate_with_name(full), g.name_scope("Initializer"), g.device(None):
                    initial_value = ops.convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
            else:
                initial_value = ops.convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
            flags = EXACT_NAME | (SELF_COLOCATE if init_from_fn else 0)
            for key, bit in _FLAG_OF_KEY.items():
                if key in collections:
                    flags |= bit
            sc = g._builder_scope("VariableV2", full, prefix="")
            triple = call_builder(g, _pywrap.new_variable, sc, full, initial_value._as_tf_output(), flags)
        self._init(g, triple)
        self._trainable = bool(trainable)
        for key in collections:
            if key not in _FLAG_OF_KEY:
                g.add_to_collection(key, self)

    @classmethod
    def _from_triple(cls, graph, triple):
        """A variable a builder made (a slot, the global step): trainable as its collections say."""
        v = cls.__new__(cls)
        v._init(graph, triple)
        held = _pywrap.list_variables(graph._c_graph, _LIST_OF_KEY[ops.GraphKeys.TRAINABLE_VARIABLES])
        v._trainable = triple[0] in [t[0] for t in held]
        return v

    def _init(self, graph, triple):
        self._graph = graph
        self._triple = triple
        self._variable_op = graph._ops_by_handle[triple[0]]
        self._initializer_op = graph._ops_by_handle[triple[1]]
        self._snapshot = graph._ops_by_handle[triple[2][0]].outputs[triple[2][1]]
        _variables_of(graph)[triple[0]] = self

    # ---- attributes ----
    @property
    def name(self):
        return self._variable_op.name + ":0"

    @property
    def op(self):
        return self._variable_op

    @property
    def graph(self):
        return self._graph

    @property
    def device(self):
        return self._variable_op.device

    @property
    def dtype(self):
        return self._variable_op.outputs[0].dtype

    @property
    def shape(self):
        return self._variable_op.outputs[0].shape

    def get_shape(self):
        return self.shape

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initializer_op.inputs[1]

    @property
    def trainable(self):
        return self._trainable

    def value(self):
        return self._snapshot

    def read_value(self):
        from tfc.ops import array_ops
        return array_ops.identity(self._variable_op.outputs[0], name="read")

    def _ref(self):
        return self._variable_op.outputs[0]

    def _as_graph_element(self):
        return self._variable_op.outputs[0]

    # ---- updates ----
    def _update(self, op_type, value, use_locking, name, read_value):
        from tfc.ops import gen
        t = gen.apply(op_type, name, ref=self._ref(), value=value, use_locking=use_locking)
        return t if read_value else t.op

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._update("Assign", value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("AssignAdd", delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("AssignSub", delta, use_locking, name, read_value)

    # ---- running ----
    def eval(self, session=None):
        from tfc.client import session as sess_mod
        return sess_mod._eval_using_default_session(self._ref(), None, self._graph, session)

    def load(self, value, session=None):
        from tfc.client import session as sess_mod
        sess_mod._run_using_default_session(self._initializer_op, {self.initial_value: value}, self._graph,
                                            session)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __str__(self):
        return self.__repr__()

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        return self._ref().__bool__()

    __hash__ = object.__hash__

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError("Cannot convert a symbolic Variable (%s) to a numpy array." % self.name)


def _overload_operators():
    """Variable's operators are its value's (Tensor's), as TF's _OverloadAllOperators."""
    names = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
             "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
             "__rpow__", "__matmul__", "__rmatmul__", "__lt__", "__le__", "__gt__", "__ge__",
             "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__abs__",
             "__invert__", "__getitem__"]
    for n in names:
        if not hasattr(ops.Tensor, n):
            continue

        def make(n):
            def method(self, *args):
                return getattr(ops.Tensor, n)(self.value(), *args)
            method.__name__ = n
            return method
        setattr(Variable, n, make(n))


def _conversion(v, dtype=None, name=None, as_ref=False):
    t = v._ref() if as_ref else v.value()
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(t.dtype):
        raise ValueError("Incompatible type conversion requested to type '%s' for variable of type '%s'"
                         % (dtypes.as_dtype(dtype).name, t.dtype.name))
    return t


ops.register_tensor_conversion_function(Variable, _conversion)
# VariableV1 / RefVariable are the same class here.
VariableV1 = Variable
RefVariable = Variable


# ---------------- initializers and listings ----------------

def global_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    return global_variables()


def trainable_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def group(*inputs, **kwargs):
    """tf.group: TFC_Group over the inputs' ops (Tensors give their ops)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    g = ops.get_default_graph()
    flat = []

    def add(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                add(y)
        elif x is not None:
            x = g.as_graph_element(x)
            flat.append(x.op if isinstance(x, ops.Tensor) else x)
    add(inputs)
    sc = g._builder_scope("NoOp", name)
    h = call_builder(g, _pywrap.group, sc, [o._c_op for o in flat], name or "group_deps")
    return g._ops_by_handle[h]


def variables_initializer(var_list, name="init"):
    """A group of the variables' initializers, or a NoOp `name` for none."""
    return group(*[v.initializer for v in var_list], name=name)


def initialize_variables(var_list, name="init"):
    return variables_initializer(var_list, name=name)


def global_variables_initializer():
    return variables_initializer(global_variables())


def initialize_all_variables():
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables())


def initialize_local_variables():
    return local_variables_initializer()


def set_random_seed(seed):
    """tf.set_random_seed: the graph seed the builders derive op seeds from (TF 1.15's rule:
    op seed = the number of ops in the graph when the random op is made)."""
    g = ops.get_default_graph()
    g.seed = seed
    if seed is not None:
        _pywrap.set_random_seed(g._c_graph, int(seed))


def is_variable_initialized(variable):
    from tfc.ops import gen
    return gen.apply("IsVariableInitialized", None, ref=variable._ref())


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    from tfc.ops import gen
    ref = ref._ref() if isinstance(ref, Variable) else ref
    return gen.apply("Assign", name, ref=ref, value=value, validate_shape=validate_shape,
                     use_locking=use_locking)


def assign_add(ref, value, use_locking=None, name=None):
    from tfc.ops import gen
    ref = ref._ref() if isinstance(ref, Variable) else ref
    return gen.apply("AssignAdd", name, ref=ref, value=value, use_locking=use_locking)


def assign_sub(ref, value, use_locking=None, name=None):
    from tfc.ops import gen
    ref = ref._ref() if isinstance(ref, Variable) else ref
    return gen.apply("AssignSub", name, ref=ref, value=value, use_locking=use_locking)


from tfc.ops import math_ops as _math_ops  # noqa: E402,F401 (installs Tensor's operators first)
_overload_operators()
