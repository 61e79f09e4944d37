"""TF 1.x's RNN cells (tf.nn.rnn_cell.*, tf.contrib.rnn.*): BasicRNNCell, BasicLSTMCell,
LSTMCell, GRUCell, MultiRNNCell, DropoutWrapper, LSTMStateTuple.

Design: a cell is a callable object that builds its variables on its first call, under a
variable scope it keeps, as TF 1.15's layer-based cells do: the scope is
variable_scope(name or None, default_name=<snake_case class name>) opened where the cell is
first called (inside tf.nn.dynamic_rnn's "rnn" scope: "rnn/basic_lstm_cell"), so variable
names, shapes and initializers are TF's and a TF checkpoint loads by name:

  BasicRNNCell   <s>/kernel [in + n, n] (glorot_uniform), <s>/bias [n] (zeros)
  BasicLSTMCell  <s>/kernel [in + n, 4n], <s>/bias [4n] (zeros); gates i, j, f, o
  LSTMCell       the same as <s>/kernel, <s>/bias, plus w_f_diag, w_i_diag, w_o_diag
                 (use_peepholes) and projection/kernel [n, num_proj] (num_proj)
  GRUCell        <s>/gates/kernel [in + n, 2n], <s>/gates/bias (ones),
                 <s>/candidate/kernel [in + n, n], <s>/candidate/bias (zeros)
  MultiRNNCell   <s>/cell_<i>/<the cell's own scope>

Kernels take the variable scope's initializer when the cell has none (TF's get_variable
default: glorot_uniform). Later calls re-enter the kept scope with reuse and its name scope,
so ops are named "<name scope>/basic_lstm_cell/MatMul" and so on. The math is TF's, op for op.
Everything here is graph building through the package's Python ops; the cells hold no C.
"""
import collections
import re

from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import array_ops
from tfc.ops import clip_ops
from tfc.ops import init_ops
from tfc.ops import math_ops
from tfc.ops import nn_ops
from tfc.ops import variable_scope as vs


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _is_seq(x):
    return isinstance(x, (list, tuple, dict))


def _flatten(x):
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [y for c in x for y in _flatten(c)]
    return [x]


def _pack_as(structure, flat):
    it = iter(flat)

    def pack(s):
        if isinstance(s, dict):
            return type(s)((k, pack(s[k])) for k in sorted(s))
        if isinstance(s, (list, tuple)):
            kids = [pack(c) for c in s]
            if isinstance(s, tuple) and hasattr(s, "_fields"):
                return type(s)(*kids)
            return type(s)(kids)
        return next(it)
    return pack(structure)


def _concat(prefix, suffix, static=False):
    """TF's rnn_cell_impl._concat: the shape [prefix..., suffix...] as a Tensor (or, with
    static, a TensorShape)."""
    if isinstance(prefix, ops.Tensor):
        p = prefix
        # TF's C++ shape inference evaluates the shape tensor this makes partially, so a
        # dynamic batch size gives zeros of shape (?, n); the static shape says so here.
        p_static = tensor_shape.TensorShape([None] if p.shape.ndims == 0 else None)
        if p.shape.ndims == 0:
            p = array_ops.expand_dims(p, 0)
    else:
        p = tensor_shape.as_shape(prefix)
        p_static = p
        p = constant_op.constant(p.as_list(), dtype=dtypes.int32) if p.is_fully_defined() else None
    if isinstance(suffix, ops.Tensor):
        s = suffix
        s_static = tensor_shape.TensorShape(None)
        if s.shape.ndims == 0:
            s = array_ops.expand_dims(s, 0)
    else:
        s = tensor_shape.as_shape(suffix)
        s_static = s
        s = constant_op.constant(s.as_list(), dtype=dtypes.int32) if s.is_fully_defined() else None
    if static:
        shape = tensor_shape.as_shape(p_static).concatenate(s_static)
        return tensor_shape.TensorShape(shape.dims if shape.ndims is not None else None)
    if p is None or s is None:
        raise ValueError("Provided a prefix or suffix of None: %s and %s" % (prefix, suffix))
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    def get_state_shape(s):
        c = _concat(batch_size, s)
        size = array_ops.zeros(c, dtype=dtype)
        size.set_shape(_concat(batch_size, s, static=True))
        return size
    return _pack_as(state_size, [get_state_shape(s) for s in _flatten_sizes(state_size)])


def _flatten_sizes(size):
    """The flat list of a cell's state_size / output_size (ints, TensorShapes and tuples)."""
    if isinstance(size, tensor_shape.TensorShape) or not _is_seq(size):
        return [size]
    return [y for c in (size if not isinstance(size, dict) else [size[k] for k in sorted(size)])
            for y in _flatten_sizes(c)]


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """(c, h): the LSTM cells' state with state_is_tuple."""
    __slots__ = ()

    @property
    def dtype(self):
        (c, h) = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (str(c.dtype), str(h.dtype)))
        return c.dtype


def assert_like_rnncell(cell_name, cell):
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"), hasattr(cell, "zero_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        errors = [error for error, cond in zip(errors, conditions) if not cond]
        raise TypeError("The argument {!r} ({}) is not an RNNCell: {}.".format(cell_name, cell, ", ".join(errors)))


class RNNCell(object):
    """The base of the cells: variables on the first call under a kept variable scope."""

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, **kwargs):
        self._name = name
        self._base_name = name or _snake(type(self).__name__)
        self._reuse = _reuse
        self._scope = None
        self.built = False
        self.trainable = trainable
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._trainable_weights = []

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def name(self):
        return self._scope.name if self._scope is not None else self._base_name

    @property
    def dtype(self):
        return self._dtype

    @property
    def trainable_weights(self):
        return list(self._trainable_weights)

    @property
    def weights(self):
        return list(self._trainable_weights)

    trainable_variables = trainable_weights
    variables = weights

    def build(self, inputs_shape):
        self.built = True

    def add_variable(self, name, shape=None, dtype=None, initializer=None, trainable=True, **kwargs):
        v = vs.get_variable(name, shape=shape, dtype=dtype or self._dtype or dtypes.float32,
                            initializer=initializer, trainable=trainable)
        if trainable and v not in self._trainable_weights:
            self._trainable_weights.append(v)
        return v

    add_weight = add_variable

    _layer_cell = True  # TF's LayerRNNCell; MultiRNNCell is a plain RNNCell (see __call__)

    def __call__(self, inputs, state, scope=None):
        if not self._layer_cell and scope is None:
            # TF's RNNCell.__call__: the variable scope current at the first call, reentered
            # (its last name component opened as a name scope: "rnn/while/rnn/multi_rnn_cell").
            if getattr(self, "_rnncell_scope", None) is None:
                self._rnncell_scope = vs.get_variable_scope()
            with vs.variable_scope(self._rnncell_scope):
                return self._layer_call(inputs, state, None)
        return self._layer_call(inputs, state, scope)

    def _layer_call(self, inputs, state, scope):
        if scope is not None and self._scope is None:
            with vs.variable_scope(scope) as sc:
                self._scope = sc
        if self._scope is None:
            with vs.variable_scope(None, default_name=self._base_name) as sc:
                self._scope = sc
        flat = [x for x in _flatten(inputs) if isinstance(x, ops.Tensor)]
        if self._dtype is None and flat:
            self._dtype = flat[0].dtype.base_dtype
        with vs.variable_scope(self._scope, reuse=True if self.built else self._reuse, auxiliary_name_scope=False):
            with ops.name_scope(self._scope.original_name_scope):
                if not self.built:
                    shapes = [x.shape for x in flat]
                    self.build(shapes[0] if len(shapes) == 1 else shapes)
                    self.built = True
                return self.call(inputs, state)

    def call(self, inputs, state):
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs)
            batch_size = inputs.shape.dims[0] if inputs.shape.ndims else None
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial state: "
                             "batch_size={}, dtype={}".format(batch_size, dtype))
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        state_size = self.state_size
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return _zero_state_tensors(state_size, batch_size, dtype)


LayerRNNCell = RNNCell


def _input_depth(cell, inputs_shape):
    shape = tensor_shape.TensorShape(inputs_shape)
    if shape.ndims is None or shape.dims[-1] is None or tensor_shape.dimension_value(shape.dims[-1]) is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s" % shape)
    return tensor_shape.dimension_value(shape.dims[-1])


class BasicRNNCell(RNNCell):
    """output = new_state = act(W * [input, state] + b)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super(BasicRNNCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_variable("kernel", shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_variable("bias", shape=[self._num_units],
                                       initializer=init_ops.zeros_initializer(dtype=self._dtype))
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(RNNCell):
    """Gated recurrent unit (Cho et al. 2014), TF's layout: gates r, u; candidate."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super(GRUCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._gate_kernel = self.add_variable("gates/kernel", shape=[depth + n, 2 * n],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/bias", shape=[2 * n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.constant_initializer(1.0, dtype=self._dtype))
        self._candidate_kernel = self.add_variable("candidate/kernel", shape=[depth + n, n],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/bias", shape=[n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.zeros_initializer(dtype=self._dtype))
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1), self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(RNNCell):
    """LSTM (Zaremba et al. 2014) with forget_bias added to the forget gate; no peepholes."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super(BasicLSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        self._kernel = self.add_variable("kernel", shape=[depth + n, 4 * n])
        self._bias = self.add_variable("bias", shape=[4 * n], initializer=init_ops.zeros_initializer(dtype=self._dtype))
        self.built = True

    def call(self, inputs, state):
        sigmoid = math_ops.sigmoid
        one = constant_op.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant_op.constant(self._forget_bias, dtype=f.dtype)
        add, multiply = math_ops.add, math_ops.multiply
        new_c = add(multiply(c, sigmoid(add(f, forget_bias_tensor))), multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """LSTM with optional peepholes, cell clipping and a projection layer (TF's LSTMCell)."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super(LSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("tfc: LSTMCell's num_unit_shards / num_proj_shards are not supported")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh
        if num_proj:
            self._state_size = LSTMStateTuple(num_units, num_proj) if state_is_tuple else num_units + num_proj
            self._output_size = num_proj
        else:
            self._state_size = LSTMStateTuple(num_units, num_units) if state_is_tuple else 2 * num_units
            self._output_size = num_units

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable("kernel", shape=[depth + h_depth, 4 * n], initializer=self._initializer)
        self._bias = self.add_variable("bias", shape=[4 * n], initializer=init_ops.zeros_initializer(dtype=self._dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable("projection/kernel", shape=[n, self._num_proj],
                                                  initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            (c_prev, m_prev) = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        input_size = inputs.shape.with_rank(2).dims[1]
        if tensor_shape.dimension_value(input_size) is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: cell i runs under "cell_<i>" on the previous cell's output."""

    _layer_cell = False

    def __init__(self, cells, state_is_tuple=True):
        super(MultiRNNCell, self).__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not _is_seq(cells):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        if len(set(id(cell) for cell in cells)) < len(cells):
            import warnings
            warnings.warn("At least two cells provided to MultiRNNCell are the same object and will share "
                          "weights.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(_is_seq(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.  "
                             "State sizes are: %s" % str([c.state_size for c in self._cells]))

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super(MultiRNNCell, self).zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        return [w for c in self._cells for w in c.trainable_weights]

    weights = trainable_weights
    trainable_variables = trainable_weights
    variables = trainable_weights

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope("cell_%d" % i):
                if self._state_is_tuple:
                    if not _is_seq(state):
                        raise ValueError("Expected state to be a tuple of length %d, but received: %s"
                                         % (len(self.state_size), state))
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur_inp, new_states


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and (when asked) state, with TF's keep
    probabilities (1.0: no dropout op). Variational recurrent dropout is not offered."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super(DropoutWrapper, self).__init__()
        assert_like_rnncell("cell", cell)
        if variational_recurrent:
            raise NotImplementedError("tfc: DropoutWrapper's variational_recurrent is not supported")
        for prob, attr in [(input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                           (output_keep_prob, "output_keep_prob")]:
            if not isinstance(prob, ops.Tensor) and (prob < 0.0 or prob > 1.0):
                raise ValueError("Parameter %s must be between 0 and 1: %d" % (attr, prob))
        self.cell = cell
        with ops.name_scope("DropoutWrapperInit"):  # TF converts the probabilities here
            for prob in (input_keep_prob, state_keep_prob, output_keep_prob):
                ops.convert_to_tensor(prob)
        self._input_keep_prob = input_keep_prob
        self._output_keep_prob = output_keep_prob
        self._state_keep_prob = state_keep_prob
        self._seed = seed

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        return self.cell.trainable_weights

    def _dropout(self, values, keep_prob, offset):
        if not isinstance(keep_prob, ops.Tensor) and keep_prob == 1.0:
            return values
        flat = _flatten(values)
        seed = None if self._seed is None else self._seed + offset
        return _pack_as(values, [nn_ops.dropout(v, keep_prob=keep_prob, seed=seed) for v in flat])

    def __call__(self, inputs, state, scope=None):
        inputs = self._dropout(inputs, self._input_keep_prob, 0)
        output, new_state = self.cell(inputs, state, scope=scope)
        new_state = self._dropout(new_state, self._state_keep_prob, 1)
        output = self._dropout(output, self._output_keep_prob, 2)
        return output, new_state
