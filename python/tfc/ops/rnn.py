"""tf.nn.dynamic_rnn and tf.nn.static_rnn (TF 1.15's rnn.py) in graph mode.

Design: dynamic_rnn builds TF's graph: inputs transposed to time-major, a TensorArray per input
unstacked outside the loop and one per output, the state (the cell's zero_state unless given),
and one tf.while_loop (control_flow_ops.while_loop over the C while-loop builder,
include/tfc/control_flow.h) whose variables are (time, the output arrays' flows, the state),
bounded by min(time_steps, max(1, max(sequence_length))) with maximum_iterations=time_steps.
With sequence_length, each step selects (Select) the zero output and the previous state for
the batch entries whose sequence has ended, so outputs are zero past a sequence's length and
the final state is the state at its last step. Gradients go through the loop and the
TensorArrays by the C gradient registry (tf.gradients). static_rnn unrolls the cell over a
Python list of inputs with the same masking.

Errors are TF's ValueErrors (a missing dtype without initial_state, inputs whose rank is
unknown or below 3, an unknown depth, a sequence_length that is not a vector).
"""
from tfc.framework import constant_op
from tfc.framework import dtypes
from tfc.framework import ops
from tfc.framework import tensor_shape
from tfc.ops import array_ops
from tfc.ops import control_flow_ops
from tfc.ops import gen
from tfc.ops import math_ops
from tfc.ops import rnn_cell_impl
from tfc.ops import tensor_array_ops
from tfc.ops import variable_scope as vs

_flatten = rnn_cell_impl._flatten
_pack_as = rnn_cell_impl._pack_as


def _dim(d):
    return tensor_shape.dimension_value(d)


def _transpose_batch_time(x):
    """(B, T, ...) <-> (T, B, ...)."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    if static.ndims is None:
        # TF 1.15 reads the unknown shape's dims here and fails so.
        raise TypeError("'NoneType' object is not subscriptable")
    x_rank = array_ops.rank(x)
    x_t = array_ops.transpose(x, array_ops.concat(([1, 0], array_ops.range(2, x_rank)), axis=0))
    if static.ndims is not None:
        x_t.set_shape(tensor_shape.TensorShape([_dim(static.dims[1]), _dim(static.dims[0])]).concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError("Expected input tensor %s to have rank at least 2" % input_)
        batch_size = _dim(shape.dims[1])
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    flat = _flatten(state)
    if flat and all(isinstance(s, ops.Tensor) for s in flat):
        inferred = [s.dtype for s in flat]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError("State has tensors of different inferred_dtypes. Unable to infer a single "
                             "representative dtype.")
        return inferred[0]
    return state.dtype


def _shape_of_size(size):
    return tensor_shape.TensorShape(size if isinstance(size, (list, tuple, tensor_shape.TensorShape)) else [size])


def _assert_has_shape(x, shape):
    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    cond = math_ops.reduce_all(math_ops.equal(x_shape, packed_shape))
    data = ["Expected shape for Tensor %s is " % x.name, packed_shape, " but saw shape: ", x_shape]
    # TF's control_flow_ops.Assert: the data converted once for its dtype check ("Const",
    # "Const_1"), then the op "Assert" with its string data as "Assert/data_<i>".
    with ops.name_scope(None, "Assert", [cond] + [d for d in data if isinstance(d, ops.Tensor)]):
        for d in data:
            if not isinstance(d, ops.Tensor):
                constant_op.constant(d)
        with ops.name_scope("Assert") as name:
            data = [d if isinstance(d, ops.Tensor) else constant_op.constant(d, name="data_%d" % i)
                    for i, d in enumerate(data)]
            return gen.apply("Assert", name, condition=cond, data=data, summarize=3)


def _rnn_step(time, sequence_length, zero_output, state, call_cell):
    """One masked step (TF's _rnn_step with skip_conditionals): the cell's output and state,
    with the zero output and the previous state selected where time >= sequence_length."""
    flat_state = _flatten(state)
    flat_zero_output = _flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, tensor_array_ops.TensorArray):
            return new_output
        if output.shape.ndims == 0:
            return new_output
        return array_ops.where(copy_cond, output, new_output)

    new_output, new_state = call_cell()
    control_flow_ops.assert_same_structure(zero_output, new_output)
    control_flow_ops.assert_same_structure(state, new_state)
    flat_new_state = _flatten(new_state)
    flat_new_output = _flatten(new_output)
    final_output = [copy_one_through(z, n) for z, n in zip(flat_zero_output, flat_new_output)]
    final_state = [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)]
    for output, flat_output in zip(final_output, flat_zero_output):
        output.set_shape(flat_output.shape)
    for substate, flat_substate in zip(final_state, flat_state):
        if not isinstance(substate, tensor_array_ops.TensorArray):
            substate.set_shape(flat_substate.shape)
    return _pack_as(zero_output, final_output), _pack_as(state, final_state)


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length=None,
                      dtype=None):
    state = initial_state
    flat_input = _flatten(inputs)
    flat_output_size = rnn_cell_impl._flatten_sizes(cell.output_size)
    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = []
    for input_ in flat_input:
        s = input_.shape
        if s.ndims is not None and s.ndims < 3:
            raise ValueError("Shape %s must have rank at least 3" % s)
        inputs_got_shape.append(s)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for shape in inputs_got_shape:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw "
                             "value None.")
        if const_time_steps != _dim(shape.dims[0]):
            raise ValueError("Time steps is not the same for all the elements in the input in a batch.")
        if const_batch_size != _dim(shape.dims[1]):
            raise ValueError("Batch_size is not the same for all the elements in the input.")

    def _create_zero_arrays(size):
        z = array_ops.zeros(rnn_cell_impl._concat(batch_size, size), _infer_state_dtype(dtype, state))
        # as TF's shape inference gives (batch, size...), without the constants _concat makes
        batch = batch_size if isinstance(batch_size, int) else None
        z.set_shape(tensor_shape.TensorShape([batch]).concatenate(_shape_of_size(size)))
        return z

    flat_zero_output = tuple(_create_zero_arrays(output) for output in flat_output_size)
    zero_output = _pack_as(cell.output_size, flat_zero_output)
    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)  # noqa: F841 (TF builds it)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps
    time = constant_op.constant(0, dtype=dtypes.int32, name="time")
    with ops.name_scope("dynamic_rnn") as scope:
        base_name = scope

    def _create_ta(name, element_shape, dtype_):
        return tensor_array_ops.TensorArray(dtype=dtype_, size=time_steps, element_shape=element_shape,
                                            tensor_array_name=base_name + name)

    state_dtype = _infer_state_dtype(dtype, state)
    output_ta = tuple(
        _create_ta("output_%d" % i, tensor_shape.TensorShape([const_batch_size]).concatenate(_shape_of_size(size)),
                   state_dtype)
        for i, size in enumerate(flat_output_size))
    input_ta = tuple(_create_ta("input_%d" % i, element_shape=x.shape[1:], dtype_=x.dtype)
                     for i, x in enumerate(flat_input))
    input_ta = tuple(ta.unstack(x) for ta, x in zip(input_ta, flat_input))

    def _time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = _pack_as(inputs, input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, zero_output, state, call_cell)
        else:
            output, new_state = call_cell()
        output = _flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return (time + 1, output_ta_t, new_state)

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound, body=_time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        output.set_shape(rnn_cell_impl._concat([const_time_steps, const_batch_size], output_size, static=True))
    final_outputs = _pack_as(cell.output_size, final_outputs)
    return final_outputs, final_state


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """TF 1.x's tf.nn.dynamic_rnn: (outputs, final_state)."""
    rnn_cell_impl.assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat_input = _flatten(inputs)
        if not time_major:
            flat_input = [ops.convert_to_tensor(x) for x in flat_input]
            flat_input = tuple(_transpose_batch_time(x) for x in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size, but saw shape: %s"
                                 % sequence_length.shape)
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If there is no initial_state, you must give a dtype.")
            state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
        if sequence_length is not None:
            with ops.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = _pack_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations=parallel_iterations,
                                                 swap_memory=swap_memory, sequence_length=sequence_length,
                                                 dtype=dtype)
        if not time_major:
            outputs = _pack_as(outputs, [_transpose_batch_time(o) for o in _flatten(outputs)])
        return outputs, final_state


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """TF 1.x's tf.nn.bidirectional_dynamic_rnn: dynamic_rnn forward under "fw" and over the
    reversed sequences under "bw" (ReverseSequence with sequence_length, else ReverseV2);
    ((output_fw, output_bw), (state_fw, state_bw))."""
    rnn_cell_impl.assert_like_rnncell("cell_fw", cell_fw)
    rnn_cell_impl.assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def _reverse(input_):
        if sequence_length is not None:
            return gen.apply("ReverseSequence", None, input=input_, seq_lengths=sequence_length,
                             seq_dim=time_axis, batch_dim=batch_axis)
        return array_ops.reverse(input_, axis=[time_axis])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length, initial_state=initial_state_fw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = _pack_as(inputs, [_reverse(i) for i in _flatten(inputs)])
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype, parallel_iterations=parallel_iterations,
                swap_memory=swap_memory, time_major=time_major, scope=bw_scope)
    output_bw = _reverse(tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """TF 1.x's tf.nn.static_rnn: the cell unrolled over the list `inputs`; (outputs, state)."""
    rnn_cell_impl.assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn"):
        first_input = inputs
        while isinstance(first_input, (list, tuple)):
            first_input = first_input[0]
        input_shape = first_input.shape
        if input_shape.ndims is not None and input_shape.ndims < 1:
            raise ValueError("Expected inputs.shape to have rank at least 1, saw shape: %s" % input_shape)
        for flat in _flatten(inputs[0]):
            s = flat.shape
            if s.ndims is not None and _dim(s.dims[-1]) is None:
                raise ValueError("Input size (dimension %d of inputs) must be accessible via shape inference,"
                                 " but saw value None." % (s.ndims - 1))
        batch_size = _dim(first_input.shape.dims[0]) if first_input.shape.ndims else None
        if batch_size is None:
            batch_size = array_ops.shape(first_input)[0]
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If no initial_state is provided, dtype must be specified")
            state = cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
            flat_output_size = rnn_cell_impl._flatten_sizes(cell.output_size)
            zero_output = _pack_as(cell.output_size, [
                array_ops.zeros(rnn_cell_impl._concat(batch_size, s), _infer_state_dtype(dtype, state))
                for s in flat_output_size])
            for z, s in zip(_flatten(zero_output), flat_output_size):
                z.set_shape(rnn_cell_impl._concat(batch_size, s, static=True))
        for time, input_ in enumerate(inputs):
            if time > 0:
                vs.get_variable_scope().reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time, sequence_length, zero_output, state, call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state
