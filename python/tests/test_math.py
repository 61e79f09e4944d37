"""The first hand-written functions and the Tensor operators: op types, names, values, errors."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


def _run(*ts, feed=None):
    with tf.Session() as s:
        return s.run(list(ts), feed)


def test_functions_build_tf_op_types_and_names():
    x = tf.constant([[1.0, -2.0], [3.0, 4.0]], name="x")
    made = [tf.add(x, x), tf.matmul(x, x), tf.reduce_sum(x), tf.reduce_mean(x, 0), tf.reshape(x, [4]),
            tf.identity(x), tf.nn.relu(x), tf.nn.softmax(x)]
    assert [(t.op.name, t.op.type) for t in made] == [
        ("Add", "Add"), ("MatMul", "MatMul"), ("Sum", "Sum"), ("Mean", "Mean"), ("Reshape", "Reshape"),
        ("Identity", "Identity"), ("Relu", "Relu"), ("Softmax", "Softmax")]
    v = _run(*made)
    np.testing.assert_allclose(v[1], [[-5.0, -10.0], [15.0, 10.0]])
    assert v[2] == 6.0 and type(v[2]) is np.float32
    np.testing.assert_allclose(v[3], [2.0, 1.0])
    np.testing.assert_allclose(v[6], [[1.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(v[7].sum(axis=1), [1.0, 1.0], rtol=1e-6)


def test_operators_with_python_and_numpy_operands():
    x = tf.constant([1.0, 2.0])
    r = [x + 1, 1 + x, x - 1, 1 - x, x * 2, x / 2, 2 / x, x ** 2, -x, np.float32(3) * x,
         np.array([1.0, 1.0], np.float32) + x]
    assert [t.op.type for t in r] == ["AddV2", "AddV2", "Sub", "Sub", "Mul", "RealDiv", "RealDiv", "Pow", "Neg",
                                      "Mul", "AddV2"]
    assert [t.op.name for t in r[:4]] == ["add", "add_1", "sub", "sub_1"]
    v = _run(*r)
    expected = [[2, 3], [2, 3], [0, 1], [0, -1], [2, 4], [0.5, 1], [2, 1], [1, 4], [-1, -2], [3, 6], [2, 3]]
    for got, want in zip(v, expected):
        np.testing.assert_allclose(got, want)


def test_matmul_operator_and_comparisons():
    a = tf.constant([[1, 2], [3, 4]])
    m = a @ a
    c = [a < 2, a <= 2, a > 2, a >= 2]
    assert m.op.name == "matmul" and m.op.type == "MatMul"
    assert [t.op.type for t in c] == ["Less", "LessEqual", "Greater", "GreaterEqual"]
    v = _run(m, *c)
    np.testing.assert_array_equal(v[0], [[7, 10], [15, 22]])
    np.testing.assert_array_equal(v[1], [[True, False], [False, False]])
    b = tf.constant([True, False])
    np.testing.assert_array_equal(_run(b & ~b, b | b)[0], [False, False])


def test_integer_division_casts_to_float64():
    i = tf.constant([3, 4])
    d = i / 2
    assert d.dtype == tf.float64
    assert [o.name for o in tf.get_default_graph().get_operations()][-3:] == ["truediv/Cast", "truediv/Cast_1",
                                                                            "truediv"]
    np.testing.assert_array_equal(_run(d)[0], [1.5, 2.0])
    np.testing.assert_array_equal(_run(i // 2, i % 3), [[1, 2], [0, 1]])


def test_indexing():
    t = tf.constant(np.arange(12).reshape(3, 4))
    s = t[1:, ::-1]
    assert s.op.type == "StridedSlice" and s.op.name == "strided_slice"
    assert [x.op.name for x in s.op.inputs[1:]] == ["strided_slice/stack", "strided_slice/stack_1",
                                                    "strided_slice/stack_2"]
    assert s.op.get_attr("end_mask") == 3 and s.op.get_attr("begin_mask") == 2
    k = tf.placeholder(tf.int32, [], name="k")
    r = _run(s, t[k], t[-1, 2], t[..., 1], t[:, None, 0], feed={k: 2})
    np.testing.assert_array_equal(r[0], np.arange(12).reshape(3, 4)[1:, ::-1])
    np.testing.assert_array_equal(r[1], [8, 9, 10, 11])
    assert r[2] == 10
    np.testing.assert_array_equal(r[3], [1, 5, 9])
    assert r[4].shape == (3, 1)
    with pytest.raises(TypeError, match=r"^Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis"):
        t[1.5]
    assert _run(t[[0, 1]])[0] == 1  # a list is a tuple of indices in 1.x, not a gather


def test_constant_shapes_and_fill():
    c = tf.constant([1, 2], shape=[4])
    z = tf.constant(0.5, shape=[2, 3])
    assert c.shape.as_list() == [4] and z.dtype == tf.float32
    v = _run(c, z)
    np.testing.assert_array_equal(v[0], [1, 2, 2, 2])
    assert v[1].shape == (2, 3) and (v[1] == 0.5).all()
    with pytest.raises(ValueError, match=r"^Argument must be a dense tensor: \[\[1, 2\], \[3\]\] - got shape \[2\], "
                                         r"but wanted \[2, 2\].$"):
        tf.constant([[1, 2], [3]])
