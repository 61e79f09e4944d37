"""The rest of tf.train's training API, tf.losses and tf.metrics from Python: schedules and the
new optimizers over the C builders (names, values, errors, the builder's graph left unchanged by
a failed call), losses' collections and reductions, metrics' local variables and resets, and
the input producers' epochs. Values that TensorFlow gives are pinned in programs_traintail.py;
these tests pin behaviours around them."""
import numpy as np
import pytest

import tfc.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


# ---------------- schedules ----------------

def test_schedule_needs_a_global_step():
    with pytest.raises(ValueError, match=r"^global_step is required for cosine_decay\.$"):
        tf.train.cosine_decay(0.1, None, 10)


def test_schedule_takes_numbers_and_leaves_no_node_on_a_bad_argument():
    step = tf.placeholder(tf.int32, [], name="step")
    before = len(tf.get_default_graph().get_operations())
    with pytest.raises(TypeError, match="decay_steps"):
        tf.train.polynomial_decay(0.1, step, tf.constant(10.0, name="steps"))
    assert [o.name for o in tf.get_default_graph().get_operations()][before:] == ["steps"]
    lr = tf.train.polynomial_decay(0.1, step, 10)
    assert lr.name == "PolynomialDecay:0" and lr.dtype == tf.float32


def test_schedules_accept_int64_and_float_steps():
    s64 = tf.placeholder(tf.int64, [], name="s64")
    sf = tf.placeholder(tf.float32, [], name="sf")
    a = tf.train.natural_exp_decay(1.0, s64, 2, 1.0)
    b = tf.train.inverse_time_decay(1.0, sf, 2, 1.0, staircase=True)
    with tf.Session() as sess:
        got = sess.run([a, b], {s64: 4, sf: 3.0})
    np.testing.assert_allclose(got, [np.exp(-2.0), 1.0 / 2.0], rtol=1e-6)


def test_piecewise_constant_with_a_global_step_variable():
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.piecewise_constant(gs, [2, 4], [0.1, 0.01, 0.001])
    inc = tf.assign_add(gs, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(6):
            got.append(sess.run(lr))
            sess.run(inc)
    np.testing.assert_allclose(got, [0.1, 0.1, 0.1, 0.01, 0.01, 0.001], rtol=1e-6)


# ---------------- optimizers ----------------

def _quadratic():
    w = tf.Variable([1.0, -2.0, 3.0, 0.5], name="w")
    return w, tf.reduce_sum(tf.square(w - 0.5))


@pytest.mark.parametrize("make,slots", [
    (lambda: tf.train.AdadeltaOptimizer(1.0), ["accum", "accum_update"]),
    (lambda: tf.train.FtrlOptimizer(0.1), ["accum", "linear"]),
    (lambda: tf.train.ProximalGradientDescentOptimizer(0.1), []),
    (lambda: tf.train.ProximalAdagradOptimizer(0.1), ["accumulator"]),
])
def test_new_optimizers_reduce_the_loss_and_keep_their_slots(make, slots):
    w, loss = _quadratic()
    opt = make()
    train = opt.minimize(loss)
    assert opt.get_slot_names() == sorted(slots)
    assert [opt.get_slot(w, n).name for n in slots] == [
        "w/%s%s:0" % (opt.get_name(), "_1" if i else "") for i in range(len(slots))]
    assert opt.get_slot(w, "nonesuch") is None
    assert sorted(v.name for v in opt.variables()) == sorted(opt.get_slot(w, n).name for n in slots)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        l0 = sess.run(loss)
        for _ in range(20):
            sess.run(train)
        assert sess.run(loss) < l0
    # a second minimize on the same variables reuses the slots
    opt.minimize(loss)
    assert len(tf.global_variables()) == 1 + len(slots)


def test_ftrl_accumulator_starts_at_its_initial_value():
    w, loss = _quadratic()
    opt = tf.train.FtrlOptimizer(0.1, initial_accumulator_value=0.25)
    opt.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(opt.get_slot(w, "accum")), [0.25] * 4)
        np.testing.assert_allclose(sess.run(opt.get_slot(w, "linear")), [0.0] * 4)


def test_ftrl_custom_slot_names_are_refused():
    with pytest.raises(TypeError, match="accum_name"):
        tf.train.FtrlOptimizer(0.1, accum_name="acc")


def test_proximal_l1_drives_small_weights_to_zero():
    w = tf.Variable([0.01, -0.02, 5.0], name="w")
    loss = 0.0 * tf.reduce_sum(w)
    train = tf.train.ProximalGradientDescentOptimizer(1.0, l1_regularization_strength=0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.0, 0.0, 4.9], rtol=1e-6)


# ---------------- losses ----------------

def test_losses_join_their_collection_unless_told_otherwise():
    labels, pred = tf.constant([0., 1.]), tf.constant([0.5, 0.5])
    a = tf.losses.mean_squared_error(labels, pred)
    tf.losses.absolute_difference(labels, pred, loss_collection=None)
    c = tf.losses.log_loss(labels, pred, loss_collection="mine")
    assert tf.losses.get_losses() == [a]
    assert tf.get_collection("mine") == [c]
    assert tf.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS == tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS
    assert len(tf.losses.Reduction.all()) == 6


def test_loss_with_weights_known_only_at_run_time():
    labels, pred = tf.constant([[0., 1.], [1., 1.]]), tf.constant([[1., 1.], [1., 0.]])
    w = tf.placeholder(tf.float32, [None, 1], name="w")
    loss = tf.losses.mean_squared_error(labels, pred, weights=w)
    with tf.Session() as sess:
        assert sess.run(loss, {w: [[1.], [0.]]}) == pytest.approx(0.5)
        assert sess.run(loss, {w: [[0.], [0.]]}) == 0.0  # no nonzero weight: 0, not NaN


def test_total_loss_adds_regularization_losses():
    v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0]),
                        regularizer=tf.contrib.layers.l2_regularizer(0.5))
    tf.losses.mean_squared_error(tf.constant([0., 0.]), v)
    total = tf.losses.get_total_loss()
    assert total.name == "total_loss:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(total) == pytest.approx(2.5 + 1.25)


# ---------------- metrics ----------------

def test_metric_variables_are_local_and_reset_by_the_local_initializer():
    acc, upd = tf.metrics.accuracy(tf.constant([1, 0, 1]), tf.constant([1, 1, 1]))
    assert [v.name for v in tf.local_variables()] == ["accuracy/total:0", "accuracy/count:0"]
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0  # nothing seen yet: 0, not NaN
        sess.run(upd)
        sess.run(upd)
        assert sess.run(tf.local_variables()) == [4.0, 6.0]
        sess.run(tf.local_variables_initializer())
        assert sess.run(tf.local_variables()) == [0.0, 0.0]


def test_metrics_in_a_variable_scope():
    with tf.variable_scope("eval"):
        _, upd = tf.metrics.recall(tf.constant([True, False]), tf.constant([True, True]))
    assert upd.name == "eval/recall/update_op:0"
    assert [v.name for v in tf.local_variables()] == ["eval/recall/true_positives/count:0",
                                                      "eval/recall/false_negatives/count:0"]


def test_auc_of_a_perfect_ranking_is_one():
    auc, upd = tf.metrics.auc(tf.constant([0, 0, 1, 1]), tf.constant([0.1, 0.2, 0.8, 0.9]))
    assert tf.local_variables()[0].shape.as_list() == [200]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(upd) == pytest.approx(1.0, abs=1e-5)


# ---------------- input producers ----------------

def _run_queue(out, n):
    got = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            for _ in range(n):
                got.append(sess.run(out))
        except tf.errors.OutOfRangeError:
            got.append("end")
        coord.request_stop()
        coord.join(threads)
    return got


def test_range_input_producer_with_a_tensor_limit():
    limit = tf.constant(3, name="limit")
    q = tf.train.range_input_producer(limit, num_epochs=2, shuffle=False)
    assert q.name == "input_producer"
    assert _run_queue(q.dequeue(), 8) == [0, 1, 2, 0, 1, 2, "end"]


def test_input_producer_element_shape_completes_an_unknown_shape():
    x = tf.placeholder_with_default(tf.constant([[1., 2.], [3., 4.]]), [None, None])
    q = tf.train.input_producer(x, element_shape=[2], shuffle=False, num_epochs=1)
    assert q.dequeue().shape.as_list() == [2]
    got = _run_queue(q.dequeue(), 3)
    assert [np.asarray(v).tolist() for v in got[:2]] == [[1., 2.], [3., 4.]] and got[2] == "end"


def test_input_producer_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"^num_epochs must be > 0 not -1\.$"):
        tf.train.input_producer(tf.constant([1]), num_epochs=-1)
    with pytest.raises(ValueError, match="Shape must be at least rank 1"):
        tf.train.input_producer(tf.constant(1))
    with pytest.raises(ValueError, match="Expected at least one tensor in slice_input_producer"):
        tf.train.slice_input_producer([])


def test_batch_join_mismatched_lists():
    with pytest.raises(ValueError, match="same length"):
        tf.train.batch_join([[tf.constant(1)], [tf.constant(1), tf.constant(2)]], 2)
