"""Graph, Operation, Tensor and the graph-building context (TF 1.x's framework/ops.py).

Design: a Graph wraps a C TF_Graph (_pywrap.Graph); every op is built in C with one
_pywrap.finish_op call (TF_NewOperation .. TF_FinishOperation), after Python has fixed its
name, device, colocation ("_class", from the colocate_with stack) and control inputs, so nothing
is changed on an op after it exists. Python keeps
the name -> Operation map, collections, the version, and per-thread context (name scope, device
stack, control dependencies). The names in use (ops and name scopes, lowercase keys) are the C
builders' table (TFC_GraphUniqueName), so Python and include/tfc/ builders name alike and never
collide. Shapes and dtypes are always read from C.

Graph._create_op is the one place Python makes ops; the C builders of include/tfc/ make
theirs in C, and the bridge joins the two (python/tfc/ops/variables.py has the details):
- Graph._builder_scope(op_type, name) turns the per-thread context into a _pywrap.Scope (a
  TFC_Scope): the current name scope as an exact, already-taken prefix, the device the device
  stack gives an op of that type and name (strings merged), and the control dependencies in
  force. With a device function in force the scope instead carries a callback into
  _device_for (TFC_ScopeWithDeviceFunction), so the function sees each node the builder makes,
  as TF calls it per op (a replica device setter puts the variable on a ps task and the ops
  around it on the worker). A builder call takes it; Graph._sync_c_ops() then wraps the ops the
  builder added. Builders that call back into Python (cond, case, while_loop) hand their
  callback scope to the per-thread context (_ThreadState.cf_scope, set by
  ops/control_flow_ops.py): _create_op then brings each input in through TFC_Capture (the
  Switch/Enter TF's context adds for an outside tensor), and _builder_scope derives from it, so
  builders called inside (a nested cond) see the context.
- Collections: a key with a registered bridge (register_collection_bridge) is held by the
  builders' C state (the variable collections: the builders read and write them); Graph's
  get_collection/add_to_collection/clear_collection go through the bridge for that key, and
  keep any entry the bridge does not take in the Python list beside it. Other keys are Python
  lists only. framework/builder_collections.py bridges the builders' op-tuple collections.

Errors follow TF 1.15: a failed TF_FinishOperation with INVALID_ARGUMENT (shape inference, bad
attrs) raises ValueError with the C message; lookups raise KeyError/ValueError/TypeError with
TF's texts (see as_graph_element).
"""
import contextlib
import re
import threading

from tfc import _pywrap
from tfc.framework import device as pydev
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import tensor_shape

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/]*$")


class GraphKeys(object):
    """Standard collection names."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class Tensor(object):
    """One output of an Operation: `name` is "op:index"."""
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._value_index)

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        dims = _pywrap.tensor_shape(self._op.graph._c_graph, self._op._c_op, self._value_index)
        return tensor_shape.TensorShape(dims)

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        merged = self.shape.merge_with(shape)
        _pywrap.set_tensor_shape(self._op.graph._c_graph, self._op._c_op, self._value_index,
                                 merged._as_c_dims())

    def _as_tf_output(self):
        return (self._op._c_op, self._value_index)

    def consumers(self):
        g = self._op.graph
        return [g._ops_by_handle[h] for h in _pywrap.op_consumers(self._op._c_op, self._value_index)]

    def eval(self, feed_dict=None, session=None):
        from tfc.client import session as sess_mod
        return sess_mod._eval_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self.shape, self._dtype.name)

    def __str__(self):
        shape = self.shape
        return "Tensor(\"%s\"%s%s%s)" % (
            self.name,
            (", shape=%s" % shape) if shape.ndims is not None else "",
            (", dtype=%s" % self._dtype.name) if self._dtype else "",
            (", device=%s" % self.device) if self.device else "")

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        raise errors.OperatorNotAllowedInGraphError(
            "using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. "
            "Use Eager execution or decorate this function with @tf.function.")

    def __iter__(self):
        raise errors.OperatorNotAllowedInGraphError(
            "iterating over `tf.Tensor` is not allowed in Graph execution. "
            "Use Eager execution or decorate this function with @tf.function.")

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. ({}) "
                        "Please call `x.shape` rather than `len(x)` for "
                        "shape information.".format(self.name))

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError("Cannot convert a symbolic Tensor ({}) to a numpy array.".format(self.name))


class Operation(object):
    """A node of a Graph. Equality and hash are by identity."""

    def __init__(self, c_op, graph):
        self._c_op = c_op
        self._graph = graph
        self._name = _pywrap.op_name(c_op)
        self._type = None
        self._outputs = [Tensor(self, i, dtypes._BY_ENUM[t]) for i, t in enumerate(_pywrap.op_outputs(c_op))]
        self._id = len(graph._ops)
        self._traceback = None

    @property
    def name(self):
        return self._name

    @property
    def type(self):
        if self._type is None:
            self._type = _pywrap.op_type(self._c_op)
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def inputs(self):
        g = self._graph
        return tuple(g._ops_by_handle[h]._outputs[i] for h, i in _pywrap.op_inputs(self._c_op))

    @property
    def control_inputs(self):
        g = self._graph
        return [g._ops_by_handle[h] for h in _pywrap.op_control_inputs(self._c_op)]

    @property
    def device(self):
        return _pywrap.op_device(self._c_op)

    @property
    def node_def(self):
        """The op's NodeDef message (TF_OperationToNodeDef parsed)."""
        from tfc.framework import graph_pb
        return graph_pb.NodeDef.FromString(_pywrap.op_node_def(self._c_op))

    @property
    def op_def(self):
        from tfc.framework import op_def_registry
        return op_def_registry.get(self.type)

    @property
    def traceback(self):
        return self._traceback

    def values(self):
        return tuple(self._outputs)

    def get_attr(self, name):
        try:
            raw = _pywrap.op_attr(self._c_op, name)
        except errors.OpError:
            raise ValueError("Operation '%s' has no attr named '%s'." % (self._name, name))
        value = _pywrap.parse_attr_value(raw)
        kind = None
        op_def = self.op_def
        if op_def is not None:
            for a in op_def["attr"]:
                if a["name"] == name:
                    kind = a["type"]
        if kind == "type":
            return dtypes.as_dtype(value)
        if kind == "list(type)":
            return [dtypes.as_dtype(v) for v in value]
        if kind == "shape":
            return tensor_shape.TensorShape(None if value is None else [None if d < 0 else d for d in value])
        if kind in ("tensor", "list(tensor)"):  # TensorProto messages, as TF's get_attr returns
            from tfc.framework import graph_pb
            if kind == "tensor":
                return graph_pb.TensorProto.FromString(value)
            return [graph_pb.TensorProto.FromString(v) for v in value]
        return value

    def colocation_groups(self):
        try:
            cls = self.get_attr("_class")
        except ValueError:
            cls = None
        groups = [c for c in (cls or []) if c.startswith(b"loc:@")]
        return groups or [("loc:@%s" % self._name).encode()]

    def run(self, feed_dict=None, session=None):
        from tfc.client import session as sess_mod
        sess_mod._run_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self.type)

    def __str__(self):
        return "name: \"%s\"\nop: \"%s\"\n" % (self._name, self.type)


class _ThreadState(threading.local):
    def __init__(self):
        self.name_stack = ""
        self.device_stack = []          # str, callable, or None (reset)
        self.control_stack = []         # lists of ops, or None (reset)
        self.cf_scope = None            # the cond branch's / loop's callback _pywrap.Scope
        self.cf_depth = 0               # control-flow callbacks running
        self.colocation_stack = []      # ops of the open colocate_with blocks, innermost last


class Graph(object):
    """A dataflow graph over a C TF_Graph."""

    def __init__(self):
        self._c_graph = _pywrap.Graph()
        self._lock = threading.RLock()
        self._ops = []                  # creation order
        self._nodes_by_name = {}
        self._ops_by_handle = {}
        self._collections = {}
        self._finalized = False
        self._version = 0
        self._state = _ThreadState()
        self._building_function = False
        self._seed = None
        self._c_pos = 0                 # TF_GraphNextOperation's position after the last sync

    # ---- default graph ----
    def as_default(self):
        return _default_graph_stack.get_controller(self)

    @property
    def version(self):
        return self._version

    @property
    def finalized(self):
        return self._finalized

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    def finalize(self):
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    # ---- names ----
    def get_name_scope(self):
        return self._state.name_stack

    def unique_name(self, name, mark_as_used=True):
        """TF's Graph.unique_name: scope/name, or scope/name_<k> when taken (ops and name
        scopes share the table, compared lower-cased). The table is the C builders' own
        (TFC_GraphUniqueName), so names made here and by the builders never collide."""
        stack = self._state.name_stack
        if stack:
            name = stack + "/" + name
        return _pywrap.unique_name(self._c_graph, name, mark_as_used)

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._state.name_stack
        if name:
            if isinstance(name, bytes):
                name = name.decode("ascii")
            if old:
                if not _VALID_SCOPE_NAME.match(name):
                    raise ValueError("'%s' is not a valid scope name" % name)
            elif not _VALID_OP_NAME.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
        try:
            if not name:
                new = ""
            elif name[-1] == "/":
                new = name[:-1]
            else:
                new = self.unique_name(name)
            self._state.name_stack = new
            yield "" if not new else new + "/"
        finally:
            self._state.name_stack = old

    # ---- devices and control dependencies ----
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        spec = device_name_or_function
        if isinstance(spec, str):
            spec = pydev.canonical(spec)
        elif spec is not None and not callable(spec):
            spec = pydev.canonical(spec.to_string())
        self._state.device_stack.append(spec)
        try:
            yield
        finally:
            self._state.device_stack.pop()

    def _device_for(self, op_type, name, attrs=None, requested="", c_op=None):
        dev = requested
        for spec in reversed(self._state.device_stack):
            if spec is None:
                break
            if callable(spec):
                got = spec(_PendingOp(self, op_type, name, dev, attrs, c_op))
                dev = pydev.canonical(got) if isinstance(got, str) else (got.to_string() if got else "")
            else:
                dev = pydev.merge(dev, spec) if dev else spec
        return dev

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            entry = None
        else:
            entry = []
            for c in control_inputs:
                c = self.as_graph_element(c)
                if isinstance(c, Tensor):
                    c = c.op
                if not isinstance(c, Operation):
                    raise TypeError("Control input must be Operation or Tensor: %s" % c)
                entry.append(c)
        self._state.control_stack.append(entry)
        # As in TF, control_dependencies(None) also leaves the cond/while context (init_scope).
        old_cf = self._state.cf_scope
        if entry is None:
            self._state.cf_scope = None
        try:
            yield
        finally:
            self._state.control_stack.pop()
            self._state.cf_scope = old_cf

    # ---- colocation (TF's Graph.colocate_with) ----
    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops made in the block get the colocation groups of `op` (and of the ops of the outer
        blocks, unless ignore_existing) as their "_class" attr, and the device of the innermost
        of those ops that has one. As in TF, the block starts with an empty device stack (an
        outer tf.device does not apply; one opened inside does, unless a colocation op has a
        device). `op` may be an Operation, a Tensor or Variable (its op), or anything
        convert_to_tensor takes (a constant is made). None with ignore_existing clears the
        colocation; None alone is TF's ValueError."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        if op is not None and not isinstance(op, Operation):
            inner = getattr(op, "op", None)
            op = inner if isinstance(inner, Operation) else convert_to_tensor(op).op
        state = self._state
        saved = state.colocation_stack
        if ignore_existing:
            state.colocation_stack = []
        if op is not None:
            state.colocation_stack = state.colocation_stack + [op]
        state.device_stack.append(None)     # resets the device functions (tf.device(None))
        try:
            yield
        finally:
            state.device_stack.pop()
            state.colocation_stack = saved

    @contextlib.contextmanager
    def _colocate_with_name(self, name):
        """TF's attr_scope({"_class": [loc:@name]}) around a variable's initializer function,
        made before the variable `name` exists: ops made in the block get that group and no
        device from it. An open colocate_with block wins, as its _class replaces TF's attr."""
        state = self._state
        saved = state.colocation_stack
        if not saved:
            state.colocation_stack = [_NamedGroup(name)]
        try:
            yield
        finally:
            state.colocation_stack = saved

    def _colocation_for(self, device):
        """(device, "_class" value or None) for an op made now: the groups of the ops of the
        colocation stack (sorted, without repeats) and the device of the innermost one that has
        a device, else `device` (what the device stack gave)."""
        stack = self._state.colocation_stack
        if not stack:
            return device, None
        groups = set()
        for c in stack:
            groups.update(c.colocation_groups())
        for c in reversed(stack):
            if c.device:
                device = c.device
                break
        return device, sorted(groups)

    def _control_inputs_for(self, data_ops):
        out = []
        seen = set(data_ops)
        for entry in reversed(self._state.control_stack):
            if entry is None:
                break
            for c in entry:
                if c not in seen:
                    seen.add(c)
                    out.append(c)
        return out

    # ---- ops ----
    def _create_op(self, op_type, inputs, attrs, name=None):
        """Builds one op. inputs: Tensors or lists of Tensors; attrs: (name, kind, value)
        triples for the extension. name ending in '/' is used as is."""
        self._check_not_finalized()
        if name is None:
            name = op_type
        if name and name[-1] == "/":
            name = name[:-1]
        else:
            name = self.unique_name(name)
        if not _VALID_OP_NAME.match(name):
            raise ValueError("'%s' is not a valid node name" % name)
        c_inputs, data_ops = [], set()
        for t in inputs:
            if isinstance(t, (list, tuple)):
                c_inputs.append([self._check_input(x, data_ops) for x in t])
            else:
                c_inputs.append(self._check_input(t, data_ops))
        if self._state.cf_scope is not None:
            c_inputs = self._capture_inputs(name, c_inputs)
        controls = self._control_inputs_for(data_ops)
        device = self._device_for(op_type, name, attrs)
        device, coloc = self._colocation_for(device)
        if coloc is not None:           # tf.colocate_with: _class replaces any given one
            attrs = [a for a in attrs if a[0] != "_class"] + [("_class", "list(string)", coloc)]
        with self._lock:
            try:
                c_op = _pywrap.finish_op(self._c_graph, op_type, name, device, c_inputs, attrs,
                                         [c._c_op for c in controls])
            except errors.InvalidArgumentError as e:
                raise ValueError(e.message)
            op = Operation(c_op, self)
            self._ops.append(op)
            self._nodes_by_name[name] = op
            self._ops_by_handle[c_op] = op
            self._version += 1
        if self._state.cf_depth and self._state.cf_scope is None:
            _pywrap.mark_outside(self._c_graph, c_op)  # made outside the running callback's context
        return op

    # ---- the C builders' bridge (see the module comment) ----
    def _builder_scope(self, op_type="NoOp", name=None, prefix=None, builder_name=None):
        """The context as a _pywrap.Scope: name prefix (default the current name scope, taken
        as is), the device an op of op_type named name would get (or, under a device function,
        a callback placing each node), the control dependencies; builder_name replaces the
        builder's own default scope name (a function's name=)."""
        self._check_not_finalized()
        stack = self._state.name_stack if prefix is None else prefix
        controls = [c._c_op for c in self._control_inputs_for(())]
        # Inside a control-flow callback the scope derives from the callback's (its context);
        # an explicit root prefix ("", variables) does not: the parent's name would replace it.
        parent = self._state.cf_scope if stack else None
        # A device function in force places each node the builder makes, as TF calls it for
        # each op (a variable on a ps task, the ops around it on the worker): the scope calls
        # back into _device_for with the node's type, name, requested device and handle.
        if not self._state.colocation_stack and self._device_functions_in_force():
            return _pywrap.Scope(self._c_graph, stack, "", controls, builder_name, parent, self._builder_device)
        device = self._device_for(op_type, name or stack or op_type)
        # Under colocate_with the builders' ops get the colocation device (not the "_class":
        # TFC_Scope carries no colocation).
        device = self._colocation_for(device)[0]
        return _pywrap.Scope(self._c_graph, stack, device, controls, builder_name, parent)

    def _device_functions_in_force(self):
        for spec in reversed(self._state.device_stack):
            if spec is None:
                return False
            if callable(spec):
                return True
        return False

    def _builder_device(self, op_type, name, requested, c_op):
        """A builder-made node's device (the device stack over the builder's own request)."""
        return self._device_for(op_type, name, None, requested, c_op)

    def _capture_inputs(self, name, c_inputs):
        """Inside a cond branch or loop body (a control-flow builder's callback): each input
        as the context sees it (TFC_Capture: a Switch or Enter named "<op name>/Switch" for a
        tensor made outside, as TF's context adds one when the op is created)."""
        scope = None
        seen = {}

        def cap(x):
            nonlocal scope
            if x in seen:
                return seen[x]
            if scope is None:
                scope = _pywrap.Scope(self._c_graph, name, "", [], None, self._state.cf_scope)
            r = _pywrap.capture(scope, x, None)
            seen[x] = r
            return r

        out = [[cap(x) for x in t] if isinstance(t, list) else cap(t) for t in c_inputs]
        self._sync_c_ops()
        return out

    def _sync_c_ops(self):
        """Wraps the operations a C builder added; returns them in creation order."""
        with self._lock:
            handles, self._c_pos = _pywrap.graph_ops_since(self._c_graph, self._c_pos)
            new = []
            for h in handles:
                if h in self._ops_by_handle:
                    continue
                op = Operation(h, self)
                self._ops.append(op)
                self._nodes_by_name[op.name] = op
                self._ops_by_handle[h] = op
                new.append(op)
            self._version += len(new)
            return new

    def _check_input(self, t, data_ops):
        if not isinstance(t, Tensor):
            raise TypeError("Input must be a Tensor, got %r" % (t,))
        if t.graph is not self:
            raise ValueError("Tensor %s must be from the same graph as the other inputs." % t)
        data_ops.add(t.op)
        return (t.op._c_op, t.value_index)

    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        temp = obj
        if not isinstance(obj, (Tensor, Operation, str)) and hasattr(obj, "_as_graph_element"):
            temp = obj._as_graph_element()
            if temp is None:
                temp = obj
        if isinstance(temp, str):
            name = temp
            if ":" in name and allow_tensor:
                try:
                    op_name, out_n = name.split(":")
                    out_n = int(out_n)
                except ValueError:
                    raise ValueError("The name %s looks a like a Tensor name, but is not a valid one. "
                                     "Tensor names must be of the form \"<op_name>:<output_index>\"." % repr(name))
                op = self._nodes_by_name.get(op_name)
                if op is None:
                    raise KeyError("The name %s refers to a Tensor which does not exist. The operation, %s, "
                                   "does not exist in the graph." % (repr(name), repr(op_name)))
                if out_n >= len(op._outputs) or out_n < 0:
                    raise KeyError("The name %s refers to a Tensor which does not exist. The operation, %s, "
                                   "exists but only has %s outputs." % (repr(name), repr(op_name), len(op._outputs)))
                return op._outputs[out_n]
            if ":" in name and not allow_tensor:
                raise ValueError("Name %s appears to refer to a Tensor, not a %s." % (repr(name), types_str))
            if ":" not in name and allow_operation:
                op = self._nodes_by_name.get(name)
                if op is None:
                    raise KeyError("The name %s refers to an Operation not in the graph." % repr(name))
                return op
            if ":" not in name and not allow_operation:
                if name in self._nodes_by_name:
                    raise ValueError("The name %s refers to an Operation, not a %s. Tensor names must be of "
                                     "the form \"<op_name>:<output_index>\"." % (repr(name), types_str))
                raise ValueError("The name %s looks like an (invalid) Operation name, not a %s." % (repr(name), types_str))
        if isinstance(temp, Tensor) and allow_tensor:
            if temp.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % temp)
            return temp
        if isinstance(temp, Operation) and allow_operation:
            if temp.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % temp)
            return temp
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, types_str))

    # ---- collections ----
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        bridge = _collection_bridges.get(name)
        if bridge is not None and bridge.add(self, value):
            return
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        names = (names,) if isinstance(names, str) else set(names)
        for n in names:
            self.add_to_collection(n, value)

    def get_collection_ref(self, name):
        """The list itself; for a bridged key (the variables) a fresh list: edits to it do
        not reach the builders."""
        if name in _collection_bridges:
            return self.get_collection(name)
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        with self._lock:
            items = self._collections.get(name)
            bridge = _collection_bridges.get(name)
            if bridge is not None:
                held = bridge.get(self)
                items = held + [i for i in items or () if i not in held]
            if items is None:
                return []
            if scope is None:
                return list(items)
            regex = re.compile(scope)
            return [i for i in items if hasattr(i, "name") and regex.match(i.name)]

    def get_all_collection_keys(self):
        with self._lock:
            keys = [k for k, v in self._collections.items() if isinstance(v, list)]
            return keys + [k for k, b in _collection_bridges.items() if k not in keys and b.get(self)]

    def clear_collection(self, name):
        self._check_not_finalized()
        bridge = _collection_bridges.get(name)
        if bridge is not None:
            bridge.clear(self)
        with self._lock:
            self._collections.pop(name, None)

    # ---- serialization ----
    def as_graph_def(self, from_version=None, add_shapes=False):
        """The graph as a GraphDef message (TF_GraphToGraphDef parsed; from_version is
        accepted and ignored, as in TF 1.x); add_shapes gives each op with outputs an
        "_output_shapes" list of its outputs' static shapes."""
        from tfc.framework import graph_pb
        gd = graph_pb.GraphDef.FromString(self._as_graph_def_bytes())
        if add_shapes:
            for node in gd.node:
                op = self._nodes_by_name.get(node.name)
                if op is not None and op.outputs:
                    node.attr["_output_shapes"].list.shape.extend(
                        t.shape.as_proto() for t in op.outputs)
        return gd

    def _as_graph_def_bytes(self):
        """The serialized GraphDef (bytes), for the package's writers."""
        return _pywrap.graph_to_graph_def(self._c_graph)

    @property
    def graph_def_versions(self):
        """The graph's VersionDef message (TF_GraphVersions)."""
        from tfc.framework import graph_pb
        return graph_pb.VersionDef.FromString(_pywrap.graph_versions(self._c_graph))

    def _import_graph_def(self, graph_def, prefix=""):
        self._check_not_finalized()
        with self._lock:
            new = []
            for h in _pywrap.graph_import(self._c_graph, graph_def, prefix):
                op = Operation(h, self)
                self._ops.append(op)
                self._nodes_by_name[op.name] = op
                self._ops_by_handle[h] = op
                new.append(op)
            self._version += len(new)
            return new


class _NamedGroup(object):
    """A colocation stack entry naming an op that does not exist yet (_colocate_with_name)."""
    device = ""

    def __init__(self, name):
        self._group = ("loc:@%s" % name).encode()

    def colocation_groups(self):
        return [self._group]


class _PendingOp(object):
    """What a device function sees of an op about to be created: its type, name, requested
    device and (get_attr) the attrs it will be made with, when the caller knows them."""

    def __init__(self, graph, op_type, name, device, attrs=None, c_op=None):
        self.graph, self.type, self.name, self.device = graph, op_type, name, device
        self._attrs = attrs or ()
        self._c_op, self._name = c_op, name  # a builder's node: made already, its attrs in C

    @property
    def op_def(self):
        return Operation.op_def.fget(self)

    def get_attr(self, name):
        if self._c_op is not None:
            return Operation.get_attr(self, name)
        for a in self._attrs:
            if a[0] == name:
                kind, value = a[1], a[2]
                if kind == "type":
                    return dtypes.as_dtype(value)
                if kind == "shape":
                    return tensor_shape.TensorShape(None if value is None else [None if d < 0 else d for d in value])
                return value
        raise ValueError("Operation '%s' has no attr named '%s'." % (self.name, name))

    @property
    def node_def(self):
        return self

    @property
    def op(self):
        return self.type


# ---------------- collections held by the C builders ----------------

_collection_bridges = {}


def register_collection_bridge(key, bridge):
    """Makes the builders' C state hold collection `key`. bridge.get(graph) -> the entries
    (Python objects, in order); bridge.add(graph, value) -> True when it took value (else the
    Python list beside it keeps it); bridge.clear(graph) empties the C side."""
    _collection_bridges[key] = bridge


# ---------------- the default graph ----------------

class _DefaultStack(threading.local):
    def __init__(self):
        self.stack = []

    def get_controller(self, obj):
        return _stack_controller(self, obj)


@contextlib.contextmanager
def _stack_controller(stack, obj):
    stack.stack.append(obj)
    try:
        yield obj
    finally:
        if stack.stack and stack.stack[-1] is obj:
            stack.stack.pop()
        elif obj in stack.stack:
            stack.stack.remove(obj)


_default_graph_stack = _DefaultStack()
_global_default_graph = [None]
_global_lock = threading.Lock()


def get_default_graph():
    s = _default_graph_stack.stack
    if s:
        return s[-1]
    with _global_lock:
        if _global_default_graph[0] is None:
            _global_default_graph[0] = Graph()
        return _global_default_graph[0]


def reset_default_graph():
    if _default_graph_stack.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. "
                             "If you need a cleared graph, exit the nesting and create a new graph.")
    with _global_lock:
        _global_default_graph[0] = None
    from tfc.client import session as sess_mod
    sess_mod._default_session_stack.stack[:] = []


# ---------------- module-level context managers ----------------

def _graph_of(values):
    for v in values or ():
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return None


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """tf.name_scope (v1): yields the scope with a trailing '/' (or "")."""
    if not (default_name is None or isinstance(default_name, str)):
        raise TypeError("`default_name` type (%s) is not a string type. You likely meant to pass "
                        "this into the `values` kwarg." % type(default_name))
    n = default_name if name is None else name
    if not n and values is not None:
        raise ValueError("At least one of name (%s) and default_name (%s) must be provided." % (name, default_name))
    g = _graph_of(values) or get_default_graph()
    if g is not get_default_graph():
        with g.as_default(), g.name_scope(n) as scope:
            yield scope
    else:
        with g.name_scope(n) as scope:
            yield scope


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


# ---------------- conversion to Tensors ----------------

_conversion_registry = []  # (priority, base_type, fn)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    _conversion_registry.append((priority, base_type, conversion_func))
    _conversion_registry.sort(key=lambda e: e[0])


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """TF 1.x convert_to_tensor: Tensors as they are, registered types, lists holding Tensors
    packed, anything else a Const."""
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dtype.name, value.dtype.name, str(value)))
        return value
    for _, base, fn in _conversion_registry:
        if isinstance(value, base):
            if preferred_dtype is not None and dtype is None:
                try:
                    r = fn(value, dtype=dtypes.as_dtype(preferred_dtype), name=name, as_ref=False)
                    if r is not NotImplemented:
                        return r
                except (TypeError, ValueError):
                    pass
            r = fn(value, dtype=dtype, name=name, as_ref=False)
            if r is not NotImplemented:
                return r
    if isinstance(value, Operation):
        raise TypeError("Can't convert Operation '%s' to Tensor (target dtype=%s, name=%r, as_ref=False)"
                        % (value.name, dtype, name))
    from tfc.framework import constant_op
    if isinstance(value, (list, tuple)) and _has_tensor(value):
        return constant_op._autopack(value, dtype, name or "packed")
    if preferred_dtype is not None and dtype is None:
        try:
            return constant_op.constant(value, dtype=dtypes.as_dtype(preferred_dtype), name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant_op.constant(value, dtype=dtype, name=name or "Const")


def _has_tensor(v):
    if isinstance(v, Tensor):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    return False


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype,
                              name=None if name is None else "%s_%d" % (name, i))
            for i, v in enumerate(values)]


def is_tensor(x):
    return isinstance(x, Tensor)
