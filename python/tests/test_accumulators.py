"""tf.ConditionalAccumulator and tf.SparseConditionalAccumulator: the names they export, the
nodes they build, sharing by shared_name, and a blocked take that a closing session wakes
(values against TensorFlow are in programs_accumulators.py)."""
import threading

import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()


def test_names_are_exported_as_tf_does():
    assert tf.sparse.SparseConditionalAccumulator is tf.SparseConditionalAccumulator
    assert issubclass(tf.ConditionalAccumulator, tf.ConditionalAccumulatorBase)
    s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([3, 1]))
    assert s.dtype == tf.float32 and s.name == s.values.name


def test_nodes_are_tensorflows():
    q = tf.ConditionalAccumulator(tf.float32, shape=[2, None], name="acc", shared_name="w/grad_accum")
    op = q.accumulator_ref.op
    assert op.type == "ResourceConditionalAccumulator"
    assert op.get_attr("shared_name") == b"w/grad_accum"
    assert op.get_attr("reduction_type") == b"MEAN"
    assert q.num_accumulated().op.name == "acc_NumAccumulated"
    assert str(q.take_grad(1).shape) == "(2, ?)"
    sq = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
    assert sq.accumulator_ref.op.type == "SparseConditionalAccumulator"
    assert sq.num_accumulated().op.type == "AccumulatorNumAccumulated"
    assert sq.set_global_step(1).type == "AccumulatorSetGlobalStep"


def test_shared_name_makes_one_accumulator_in_a_session():
    a = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="w/grad_accum", name="a")
    b = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="w/grad_accum", name="b")
    with tf.Session() as s:
        s.run(a.apply_grad([1.0, 3.0]))
        s.run(b.apply_grad([3.0, 5.0]))
        assert s.run(a.num_accumulated()) == 2
        np.testing.assert_array_equal(s.run(b.take_grad(2)), [2.0, 4.0])


def test_half_accumulator_rounds_as_tensorflow():
    q = tf.ConditionalAccumulator(tf.float16, shape=[3])
    with tf.Session() as s:
        for v in ([1.0, 0.1, 1000.0], [2.0, 0.2, 3.0], [4.5, 0.3, 0.001]):
            s.run(q.apply_grad(np.array(v, np.float16)))
        got = s.run(q.take_grad(3))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.array([2.5, 0.19982910, 334.25], np.float16))  # TensorFlow's values


def test_closing_the_session_wakes_a_blocked_take():
    q = tf.ConditionalAccumulator(tf.float32, shape=[1])
    take = q.take_grad(1)
    s = tf.Session()
    caught = []

    def run():
        try:
            s.run(take)
        except tf.errors.CancelledError as e:
            caught.append(e.message)

    t = threading.Thread(target=run)
    t.start()
    t.join(0.2)
    s.close()
    t.join(30)
    assert not t.is_alive()
    assert caught and "TakeGrad operation was cancelled" in caught[0]
