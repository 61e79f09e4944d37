"""tf.raw_ops: generated from the op table, TF's argument names, attr inference and errors."""
import numpy as np
import pytest

import tfc.compat.v1 as tf
from tfc import _pywrap
from tfc.framework import op_def_registry


def test_every_op_of_the_table_has_a_function():
    names = [d["name"] for d in _pywrap.op_list()]
    assert len(names) > 200 and "MatMul" in names and "StridedSlice" in names
    assert sorted(names) == dir(tf.raw_ops)
    for n in names:
        fn = getattr(tf.raw_ops, n)
        assert fn.__name__ == n


def test_op_table_data():
    mm = op_def_registry.get("MatMul")
    assert [a["name"] for a in mm["input_arg"]] == ["a", "b"]
    attrs = {a["name"]: a for a in mm["attr"]}
    assert attrs["transpose_a"]["type"] == "bool" and attrs["transpose_a"]["default"] is False
    assert tf.float32.as_datatype_enum in attrs["T"]["allowed_values"]
    addn = op_def_registry.get("AddN")
    assert addn["input_arg"][0]["number_attr"] == "N"
    assert {a["name"]: a for a in addn["attr"]}["N"]["minimum"] == 1
    assert op_def_registry.get("Placeholder")["attr"][1]["default"] is None  # unknown-rank shape


def test_attrs_inferred_from_inputs():
    x = tf.constant([1.0, 2.0])
    s = tf.raw_ops.AddN(inputs=[x, x, x])
    assert s.op.get_attr("N") == 3 and s.op.get_attr("T") == tf.float32
    p = tf.raw_ops.Pack(values=[1, 2, 3], axis=0)
    assert p.dtype == tf.int32 and [t.op.name for t in p.op.inputs] == ["Pack/values_0", "Pack/values_1",
                                                                       "Pack/values_2"]
    c = tf.raw_ops.Cast(x=x, DstT=tf.int64, name="c")
    assert c.op.name == "c" and c.dtype == tf.int64
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(s), [3.0, 6.0])
        np.testing.assert_array_equal(sess.run(p), [1, 2, 3])


def test_python_values_become_named_consts():
    m = tf.raw_ops.MatMul(a=[[1.0, 2.0]], b=[[3.0], [4.0]])
    assert [t.op.name for t in m.op.inputs] == ["MatMul/a", "MatMul/b"]
    with tf.Session() as s:
        assert s.run(m)[0, 0] == 11.0


def test_errors():
    x = tf.constant(1)
    with pytest.raises(TypeError, match=r"^add only takes keyword args \(possible keys: \['x', 'y', 'name'\]\)"):
        tf.raw_ops.Add(x, x)
    with pytest.raises(TypeError, match="^Add got unexpected keyword arguments: z$"):
        tf.raw_ops.Add(x=x, y=x, z=1)
    with pytest.raises(TypeError, match="^Add missing required argument 'y'$"):
        tf.raw_ops.Add(x=x)
    with pytest.raises(TypeError, match="^Input 'y' of 'Add' Op has type float32 that does not match type int32 "
                                        "of argument 'x'.$"):
        tf.raw_ops.Add(x=x, y=tf.constant(1.0))
    with pytest.raises(TypeError, match="^Value passed to parameter 'features' has DataType bool not in list "
                                        "of allowed values: "):
        tf.raw_ops.Relu(features=tf.constant(True))
    with pytest.raises(AttributeError):
        tf.raw_ops.NoSuchOp
    assert tf.raw_ops.NoOp().type == "NoOp"


def test_snake_case_names():
    from tfc.ops.raw_ops import _snake
    assert [_snake(n) for n in ("MatMul", "AddN", "AddV2", "StridedSlice", "BiasAddV1", "FIFOQueueV2")] == \
        ["mat_mul", "add_n", "add_v2", "strided_slice", "bias_add_v1", "fifo_queue_v2"]


def test_attr_value_errors_and_defaults():
    with pytest.raises(TypeError, match="^Expected bool for argument 'transpose_a' not 1.$"):
        tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], transpose_a=1)
    with pytest.raises(TypeError, match="^Expected int for argument 'axis' not 0.5.$"):
        tf.raw_ops.Pack(values=[1], axis=0.5)
    with pytest.raises(TypeError, match="^Expected list for 'shapes' argument to 'FIFOQueueV2' Op, not 3.$"):
        tf.raw_ops.FIFOQueueV2(component_types=[tf.float32], shapes=3)
    m = tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], transpose_b=None)  # None: the OpDef's default
    assert m.op.get_attr("transpose_a") is False and m.op.get_attr("transpose_b") is False
    p = tf.raw_ops.Placeholder(dtype=tf.int64)
    assert p.shape.ndims is None and p.op.get_attr("shape").ndims is None
