"""tf.gradients over the C gradient builder (TFC_Gradients).

The builder walks the graph in C (tfc's gradient table, the same one TF_AddGradients and the
optimizers use) and adds the nodes TF's Python adds: the unique scope "gradients", per-op
"<op>_grad/" scopes, and with gate_gradients the "tuple/control_dependency" wrapping. A
Variable in xs is differentiated through its reference output (TF converts xs with
as_ref=True), a Variable in ys through its value. Unconnected xs give None (unconnected_gradients="zero" is
not supported). A missing gradient raises LookupError with the walk's message. `name` is the
scope's (made unique; TFC_ScopeWithBuilderName); aggregation_method,
colocate_gradients_with_ops and stop_gradients are not supported (TypeError for the last, as
ignoring it would change the results).
"""
from tfc import _pywrap
from tfc.framework import errors
from tfc.framework import ops
from tfc.ops import variables


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _tensor(x, as_ref):
    if isinstance(x, variables.Variable):
        return x._ref() if as_ref else x.value()
    return ops.convert_to_tensor(x)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=None):
    if stop_gradients:
        raise TypeError("tf.gradients: stop_gradients is not supported by tfc yet")
    ys = [_tensor(y, False) for y in _as_list(ys)]
    xs = [_tensor(x, True) for x in _as_list(xs)]
    gys = None
    if grad_ys is not None:
        gys = [None if g is None else ops.convert_to_tensor(g, dtype=y.dtype.base_dtype)
               for g, y in zip(_as_list(grad_ys), ys)]
        if len(gys) != len(ys):
            raise ValueError("Passed %d grad_ys for %d ys" % (len(gys), len(ys)))
    g = ops.get_default_graph()
    sc = g._builder_scope("AddN", "gradients", builder_name=name or "gradients")
    try:
        out = variables.call_builder(g, _pywrap.gradients, sc, [y._as_tf_output() for y in ys],
                                     [x._as_tf_output() for x in xs],
                                     None if gys is None else [None if t is None else t._as_tf_output() for t in gys],
                                     bool(gate_gradients))
    except errors.NotFoundError as e:
        raise LookupError(e.message)
    return [g._ops_by_handle[o[0]].outputs[o[1]] if o is not None else None for o in out]
