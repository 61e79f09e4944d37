"""The TF 1.x names of recurrent networks and TensorArrays, added to the API namespace by
_api.py (export(namespace)): tf.TensorArray, tf.nn.dynamic_rnn / static_rnn / bidirectional_dynamic_rnn, tf.nn.rnn_cell.*
and their tf.contrib.rnn aliases.
"""
import types as _types

from tfc.ops import rnn as _rnn
from tfc.ops import rnn_cell_impl as _cells
from tfc.ops import tensor_array_ops as _ta

_CELLS = ("RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper",
          "LSTMStateTuple")


def _module(parent, attr, full):
    m = getattr(parent, attr, None)
    if not isinstance(m, _types.ModuleType):
        m = _types.ModuleType("tfc." + full, "tf." + full)
        setattr(parent, attr, m)
    return m


def export(ns):
    """Adds the names to the namespace dict ns (the tf module's globals)."""
    ns.setdefault("TensorArray", _ta.TensorArray)
    nn = ns["nn"]
    nn.dynamic_rnn = _rnn.dynamic_rnn
    nn.static_rnn = _rnn.static_rnn
    nn.bidirectional_dynamic_rnn = _rnn.bidirectional_dynamic_rnn
    rnn_cell = _module(nn, "rnn_cell", "nn.rnn_cell")
    contrib = ns["contrib"]
    contrib_rnn = _module(contrib, "rnn", "contrib.rnn")
    for n in _CELLS:
        setattr(rnn_cell, n, getattr(_cells, n))
        setattr(contrib_rnn, n, getattr(_cells, n))
    contrib_rnn.static_rnn = _rnn.static_rnn
