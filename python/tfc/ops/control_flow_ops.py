"""tf.cond, tf.case and tf.while_loop over include/tfc/control_flow.h's builders, and tf.tuple.

Design: the graph logic (Switch/Merge/pivots, Enter/Merge/LoopCond/Switch/Identity/
NextIteration/Exit, the captures of outside tensors, the names) is the C builders'
(TFC_CondDynamic, TFC_CaseDynamic, TFC_WhileLoop through tfc._pywrap's cond/case/while_loop).
This module holds what is Python's: argument checks with TF's texts, nested structures
(flattening results and packing them back), converting Python values returned by branches,
and running the user's functions inside the builders' callbacks. A callback gets the builder's
scope (a _pywrap.Scope carrying the control-flow context); _in_context() makes it the thread's
control-flow scope and name scope, so every op the function makes goes through
Graph._create_op's capture path (framework/ops.py), and builders called inside (a nested cond,
tf.gradients) derive their scope from it.

Errors: an exception raised by a user function (or by a check here, inside a callback) leaves
the builder, which rolls the C graph back; _guarded() then drops the Python wrappers of the ops
made meanwhile, so the Graph is as before, and the same exception reaches the caller.
Builder errors with code INVALID_ARGUMENT are ValueError, as TF raises while building.
"""
import contextlib

from tfc import _pywrap
from tfc.framework import dtypes
from tfc.framework import errors
from tfc.framework import ops
from tfc.framework import tensor_shape


# ---------------- nested structures (what tf.nest does for lists, tuples, dicts) ----------------

def _is_seq(x):
    return isinstance(x, (list, tuple, dict)) and not isinstance(x, ops.Tensor)


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(x):
    if not _is_seq(x):
        return [x]
    out = []
    for c in _children(x):
        out.extend(flatten(c))
    return out


def pack_sequence_as(structure, flat):
    it = iter(flat)

    def pack(s):
        if not _is_seq(s):
            return next(it)
        kids = [pack(c) for c in _children(s)]
        if isinstance(s, dict):
            return type(s)(zip(sorted(s), kids))
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*kids)
        return type(s)(kids)
    return pack(structure)


def _structure_str(x):
    if not _is_seq(x):
        return "."
    kids = ", ".join(_structure_str(c) for c in _children(x))
    if isinstance(x, dict):
        return "{" + ", ".join("%r: %s" % (k, _structure_str(x[k])) for k in sorted(x)) + "}"
    if isinstance(x, list):
        return "[" + kids + "]"
    return "(" + kids + ("," if len(x) == 1 else "") + ")"


def _type_name(x):
    return "SymbolicTensor" if isinstance(x, ops.Tensor) else type(x).__name__


def _struct_desc(x):
    return "type=%s str=%s" % (_type_name(x), x)


def _mismatch(a, b):
    """(exception class, the "More specifically" text) for the first difference, or None."""
    if _is_seq(a) != _is_seq(b):
        seq, other = (a, b) if _is_seq(a) else (b, a)
        return ValueError, ("Substructure \"%s\" is a sequence, while substructure \"%s\" is not"
                            % (_struct_desc(seq), _struct_desc(other)))
    if not _is_seq(a):
        return None
    if len(a) != len(b):
        return ValueError, ("The two structures don't have the same number of elements. First structure: "
                            "%s. Second structure: %s" % (_struct_desc(a), _struct_desc(b)))
    if type(a) is not type(b):
        return TypeError, ("The two namedtuples don't have the same sequence type. First structure %s has "
                           "type %s, while second structure %s has type %s"
                           % (_struct_desc(a), type(a).__name__, _struct_desc(b), type(b).__name__))
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return ValueError, ("The two dictionaries don't have the same set of keys. First structure has keys "
                            "%s, while second structure has keys %s." % (sorted(a), sorted(b)))
    for x, y in zip(_children(a), _children(b)):
        m = _mismatch(x, y)
        if m:
            return m
    return None


def assert_same_structure(a, b):
    """tf.nest.assert_same_structure's check and message (TypeError for different sequence
    types, ValueError otherwise)."""
    m = _mismatch(a, b)
    if m:
        cls, detail = m
        raise cls("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                  "Second structure: %s\n\nMore specifically: %s\nEntire first structure:\n%s\n"
                  "Entire second structure:\n%s" % (_struct_desc(a), _struct_desc(b), detail,
                                                    _structure_str(a), _structure_str(b)))


# ---------------- running builders with Python callbacks ----------------

def _guarded(g, fn, *args):
    """fn(*args) (a _pywrap control-flow builder); on any exception the Python wrappers of the
    ops made meanwhile are dropped (the builder rolled the C graph back)."""
    n_ops, pos, version = len(g._ops), g._c_pos, g._version
    try:
        try:
            return fn(*args)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message)
    except BaseException:
        with g._lock:
            for op in g._ops[n_ops:]:
                g._nodes_by_name.pop(op.name, None)
                g._ops_by_handle.pop(op._c_op, None)
            del g._ops[n_ops:]
            g._c_pos, g._version = pos, version
        raise
    finally:
        g._sync_c_ops()


@contextlib.contextmanager
def _in_context(g, scope):
    """The thread's control-flow scope and name scope become the callback's."""
    st = g._state
    old = st.cf_scope, st.name_stack
    st.cf_scope, st.name_stack = scope, scope.name
    st.cf_depth += 1
    try:
        yield
    finally:
        st.cf_scope, st.name_stack = old
        st.cf_depth -= 1


def _tensors(g, outs):
    g._sync_c_ops()
    return [g._ops_by_handle[h]._outputs[i] for h, i in outs]


def _check_callable(fn, what):
    if not callable(fn):
        raise TypeError("'%s' must be callable." % what)


# ---------------- cond and case ----------------

def _branch_results(g, scope, branch, fn, what):
    """Runs a branch function in its scope: (its result, its flat results as Tensors)."""
    with _in_context(g, scope):
        res = fn()
        if res is None:
            raise ValueError("'%s' must have a return value." % what)
        from tfc.ops import tensor_array_ops as _ta
        flat = []
        for v in flatten(res):
            if isinstance(v, ops.Operation):
                v = _with_dependency(g, scope, branch, v)
            elif isinstance(v, _ta.TensorArray):
                v = v.flow  # a TensorArray leaves the branch as its flow (TF's cond does so)
            elif not isinstance(v, ops.Tensor):
                v = ops.convert_to_tensor(v)
            flat.append(v)
    return res, flat


def _with_dependency(g, scope, branch, op):
    """An Operation returned by a branch: the branch's pivot, waiting for op (Python's
    with_dependencies([op], pivot))."""
    from tfc.ops import array_ops
    g._sync_c_ops()
    pivot = g._nodes_by_name.get("%s/%s" % (scope.name, "switch_t" if branch else "switch_f"))
    if pivot is None:
        raise TypeError("Operation %s returned by a branch outside a cond" % op.name)
    with g.control_dependencies([op]):
        return array_ops.identity(pivot.outputs[0], name="control_dependency")


class _CondBranches(object):
    """One cond (or case) call across its branch callbacks: the first branch built gives the
    structure and dtypes the others must have."""

    def __init__(self, g):
        self.g, self.first = g, None

    def make(self, fn, what, branch):
        def cb(scope):
            res, flat = _branch_results(self.g, scope, branch, fn, what)
            if self.first is None:
                self.first = (res, flat, what)
            else:
                first, first_flat, first_what = self.first
                assert_same_structure(first, res)
                for a, b in zip(first_flat, flat):
                    if a.dtype.base_dtype != b.dtype.base_dtype:
                        raise ValueError("Outputs of '%s' and '%s' must have the same type(s). Received %s "
                                         "from '%s' and %s from '%s'."
                                         % (first_what, what, a.dtype.name, first_what, b.dtype.name, what))
            return [t._as_tf_output() for t in flat]
        return cb


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """tf.cond (control flow v1): the Merges of true_fn's and false_fn's results, packed as
    true_fn's structure (a single result unpacked unless strict)."""
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    _check_callable(true_fn, "true_fn")
    _check_callable(false_fn, "false_fn")
    if isinstance(pred, bool):
        raise TypeError("'pred' must not be a Python bool.")
    g = ops.get_default_graph()
    pred = ops.convert_to_tensor(pred)
    branches = _CondBranches(g)
    tcb, fcb = branches.make(true_fn, "true_fn", 1), branches.make(false_fn, "false_fn", 0)
    sc = g._builder_scope("Switch", name or "cond")
    outs = _guarded(g, _pywrap.cond, sc, pred._as_tf_output(), tcb, fcb, name)
    merges = _tensors(g, outs)
    return _pack_result(branches.first[0], merges, strict)


def _pack_result(structure, merges, strict):
    from tfc.ops import tensor_array_ops as _ta
    merges = [_ta._flow_to_ta(t, m) for t, m in zip(flatten(structure), merges)]
    packed = pack_sequence_as(structure, merges)
    if not strict and isinstance(packed, (list, tuple)) and len(packed) == 1 and not hasattr(packed, "_fields"):
        return packed[0]
    return packed


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """tf.case (v1): the result of the first fn whose pred is true, else default's; nested conds
    under the name scope `name` (TFC_CaseDynamic). pred_fn_pairs: a list of (pred, fn) or a
    dict. Without a default, the last pair's fn is the default. exclusive is not supported."""
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError("fns must be a list, tuple, or dict")
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = p
        if not isinstance(pred, ops.Tensor) or pred.dtype.base_dtype != dtypes.bool:
            raise TypeError("pred must be Tensor of type bool: %s" % getattr(pred, "name", pred))
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    if exclusive:
        raise NotImplementedError("tfc: tf.case(exclusive=True) is not supported yet")
    if default is None:
        if not pairs:
            raise ValueError("not enough values to unpack (expected 2, got 0)")
        pairs, default = pairs[:-1], pairs[-1][1]
        if not pairs:  # a single pair: its fn is the result
            return default()
    elif not callable(default):
        raise TypeError("default must be callable.")
    if not pairs:
        return default()
    g = ops.get_default_graph()
    branches = _CondBranches(g)
    cpairs = [(p._as_tf_output(), branches.make(fn, "true_fn", 1)) for p, fn in pairs]
    dcb = branches.make(default, "false_fn", 0)
    sc = g._builder_scope("Switch", name or "case")
    outs = _guarded(g, _pywrap.case, sc, cpairs, dcb, name)
    return _pack_result(branches.first[0], _tensors(g, outs), strict)


# ---------------- while_loop ----------------

def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """tf.while_loop (control flow v1) over TFC_WhileLoop. cond(*vars) -> bool scalar; body(*vars)
    -> the next vars, of loop_vars' structure. shape_invariants other than the variables' own
    shapes are not supported (the builder keeps each variable's shape)."""
    _check_callable(cond, "cond")
    _check_callable(body, "body")
    if not isinstance(parallel_iterations, int) or parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    flat_in = flatten(loop_vars)
    if not flat_in or loop_vars is None:
        raise ValueError("'loop_vars' must be provided.")
    # TensorArrays travel as their flows (TF's _convert_tensorarray_to_flow) and are rebuilt
    # around the loop's tensors for cond, body and the results.
    from tfc.ops import tensor_array_ops as _ta
    templates = flat_in
    flat_in = [_ta._ta_to_flow(v) for v in flat_in]

    def with_arrays(tmpl, vs):
        return [_ta._flow_to_ta(t, v) for t, v in zip(tmpl, vs)]
    g = ops.get_default_graph()
    base = name or "while"
    # Python values become tensors in the loop's name scope (the name the builder will take).
    wname = g.unique_name(base, mark_as_used=False)
    max_n, max_t = -1, None
    with g.name_scope(wname + "/"):
        tensors = [v if isinstance(v, ops.Tensor) else ops.convert_to_tensor(v) for v in flat_in]
        if maximum_iterations is not None:
            if isinstance(maximum_iterations, ops.Tensor):
                max_t = maximum_iterations
            elif isinstance(maximum_iterations, int) and not isinstance(maximum_iterations, bool):
                max_n = maximum_iterations
            else:
                max_t = ops.convert_to_tensor(maximum_iterations, name="maximum_iterations")
    if shape_invariants is not None:
        for v, s in zip(tensors, flatten(shape_invariants)):
            s = tensor_shape.TensorShape(s)
            if not v.shape.is_compatible_with(s):
                raise ValueError("The shape invariant specified for %s is not compatible with the initial shape "
                                 "of the loop variable. It enters the loop with shape %s, but the specified "
                                 "shape invariant is %s." % (v.name, v.shape, s))
            if s.ndims != v.shape.ndims or (s.ndims is not None and s.as_list() != v.shape.as_list()):
                raise NotImplementedError("tfc: tf.while_loop's shape_invariants may only restate the loop "
                                          "variables' shapes")
    single = not _is_seq(loop_vars)

    def args_of(vs):
        packed = pack_sequence_as(loop_vars, with_arrays(templates, vs))
        return (packed,) if single else tuple(packed) if not isinstance(packed, dict) else (packed,)

    def cond_cb(scope, vars_):
        with _in_context(g, scope):
            r = cond(*args_of(_tensors(g, vars_)))
            r = ops.convert_to_tensor(r)
            if r.dtype.base_dtype != dtypes.bool:
                raise TypeError("Input 'input' of 'LoopCond' Op has type %s that does not match expected "
                                "type of bool." % r.dtype.name)
            return r._as_tf_output()

    body_result = []

    def body_cb(scope, vars_):
        with _in_context(g, scope):
            ins = _tensors(g, vars_)
            packed = args_of(ins)
            r = body(*packed)
            first = list(packed) if not single else [packed[0]]
            second = list(r) if _is_seq(r) and not single else [r]
            if single or not isinstance(loop_vars, (list, tuple)):
                first, second = [pack_sequence_as(loop_vars, with_arrays(templates, ins))], [r]
            assert_same_structure(first, second)
            body_result.append(r if _is_seq(r) else [r])
            flat = [ops.convert_to_tensor(_ta._ta_to_flow(v)) for v in flatten(r)]
            for i, (a, b) in enumerate(zip(ins, flat)):
                if a.dtype.base_dtype != b.dtype.base_dtype:
                    raise ValueError("Loop variable %d enters the loop as %s, but the body returns %s"
                                     % (i, a.dtype.name, b.dtype.name))
            return [t._as_tf_output() for t in flat]

    sc = g._builder_scope("Enter", base)
    outs = _guarded(g, _pywrap.while_loop, sc, cond_cb, body_cb, [t._as_tf_output() for t in tensors],
                    parallel_iterations, bool(back_prop), max_n,
                    None if max_t is None else max_t._as_tf_output(), name)
    exits = with_arrays(flatten(body_result[0]), _tensors(g, outs))
    packed = pack_sequence_as(body_result[0], exits)  # TF packs the exits as the body's result
    if return_same_structure:
        return packed
    if len(exits) == 1:
        return exits[0]
    return packed


# ---------------- tuple ----------------

def tuple_(tensors, name=None, control_inputs=None):
    """tf.tuple (exported as tuple; named tuple_ here so as not to hide the builtin): each tensor through an Identity "<name>/control_dependency[_k]" that waits for
    a group of all their ops (and control_inputs), "<name>/group_deps"; Operations in the
    list come back as groups waiting for it, None as None."""
    from tfc.ops import array_ops
    from tfc.ops import variables
    g = ops.get_default_graph()
    with ops.name_scope(name, "tuple", [t for t in tensors if isinstance(t, ops.Tensor)]):
        tensors = [t if t is None or isinstance(t, (ops.Operation, ops.Tensor)) else ops.convert_to_tensor(t)
                   for t in tensors]
        gating = [t if isinstance(t, ops.Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            c = g.as_graph_element(c)
            gating.append(c.op if isinstance(c, ops.Tensor) else c)
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError("'tensors' must have at least one Tensor. Received: %s." % (tensors,))
        gate = variables.group(*gating)
        out = []
        for t in tensors:
            if isinstance(t, ops.Tensor):
                with g.control_dependencies([gate]):
                    out.append(array_ops.identity(t, name="control_dependency"))
            elif isinstance(t, ops.Operation):
                with g.control_dependencies([gate]):
                    out.append(variables.group(t))
            else:
                out.append(None)
        return out
