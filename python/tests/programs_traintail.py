"""The rest of TF 1.x's training API that programs call: learning-rate schedules, the
Adadelta / Ftrl / proximal optimizers, tf.losses, tf.metrics and the input producers. Each
program's values (rounded to 5 decimals: kernels may differ in the last bits), the names of the
tensors and variables a program sees, and errors (class and message) are compared with
TensorFlow's (see programs.py). Inner node names are compared only where tfc builds TF 1.15's
nodes (the optimizers' slots and update ops); TF115 gives 1.15's texts where 2.x changed them.
"""
import numpy as np

from programs import _val


def _r(v):
    return _val(np.round(np.asarray(v, dtype=np.float64), 5))


# ---------------- schedules ----------------

def _schedule_values(tf, make):
    step = tf.placeholder(tf.int32, [], name="step")
    r = make(step)
    with tf.Session() as sess:
        vals = [sess.run(r, {step: k}) for k in (0, 3, 5, 10, 17, 25)]
    return r.name, _r(vals)


def schedules(tf):
    T = tf.train
    out = {}
    for key, make in (
            ("polynomial", lambda s: T.polynomial_decay(0.1, s, 10.)),
            ("polynomial_cycle", lambda s: T.polynomial_decay(0.1, s, 10., end_learning_rate=0.01, power=0.5,
                                                              cycle=True)),
            ("natural_exp", lambda s: T.natural_exp_decay(0.1, s, 10., 0.5)),
            ("natural_exp_staircase", lambda s: T.natural_exp_decay(0.1, s, 10., 0.5, staircase=True)),
            ("inverse_time", lambda s: T.inverse_time_decay(0.1, s, 10., 0.5)),
            ("inverse_time_staircase", lambda s: T.inverse_time_decay(0.1, s, 10., 0.5, staircase=True)),
            ("cosine", lambda s: T.cosine_decay(0.1, s, 10., alpha=0.1)),
            ("restarts", lambda s: T.cosine_decay_restarts(0.1, s, 4.)),
            ("restarts_fixed_period", lambda s: T.cosine_decay_restarts(0.1, s, 4., t_mul=1.0, m_mul=0.5,
                                                                         alpha=0.1)),
            ("linear_cosine", lambda s: T.linear_cosine_decay(0.1, s, 10.)),
            ("named", lambda s: T.polynomial_decay(0.1, s, 10., name="lr")),
            ("exponential", lambda s: T.exponential_decay(0.1, s, 10., 0.5))):
        out[key] = _schedule_values(tf, make)
    return out


def piecewise_constant(tf):
    step = tf.placeholder(tf.int32, [], name="step")
    r = tf.train.piecewise_constant(step, [3, 6], [1.0, 2.0, 3.0])
    ri = tf.train.piecewise_constant(step, [3], [10, 20])
    step64 = tf.placeholder(tf.int64, [], name="step64")
    r64 = tf.train.piecewise_constant(step64, [3], [0.5, 0.25])
    with tf.Session() as sess:
        vals = [sess.run([r, ri], {step: k}) for k in (0, 3, 4, 6, 7)]
        v64 = [sess.run(r64, {step64: k}) for k in (3, 4)]
    return {"values": _r(vals), "int64": _r(v64), "dtypes": [r.dtype.name, ri.dtype.name]}


def piecewise_constant_lengths(tf):
    tf.train.piecewise_constant(tf.constant(5), [3, 4], [1.0, 2.0])


def piecewise_constant_value_dtypes(tf):
    tf.train.piecewise_constant(tf.constant(5), [3], [1, 2.0])


def piecewise_constant_boundary_dtype(tf):
    tf.train.piecewise_constant(tf.constant(5), [3.5], [1.0, 2.0])


def decay_with_global_step_variable(tf):
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.polynomial_decay(0.1, gs, 100., end_learning_rate=0.0)
    inc = tf.assign_add(gs, 25)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = []
        for _ in range(3):
            vals.append(sess.run(lr))
            sess.run(inc)
    return _r(vals)


# ---------------- optimizers ----------------

def _train(tf, make, steps=3):
    w = tf.Variable([[1.0, -2.0], [3.0, 0.5]], name="w")
    b = tf.Variable([0.5, -0.5], name="b")
    x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
    opt = make()
    gs = tf.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=gs)
    ops = [[o.name, o.type] for o in tf.get_default_graph().get_operations()
           if not o.name.startswith("gradients") and "/Initializer/" not in o.name and o.type != "Const"]
    slots = {n: opt.get_slot(w, n).name for n in opt.get_slot_names()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
        values = sess.run([w, b, gs])
    return {"ops": ops, "train": [train.name, train.type], "slot_names": opt.get_slot_names(), "slots": slots,
            "variables": [v.name for v in tf.global_variables()], "values": [_r(values[0]), _r(values[1])], "step": int(values[2])}


def train_adadelta(tf):
    return _train(tf, lambda: tf.train.AdadeltaOptimizer(0.5))


def train_adadelta_defaults(tf):
    return _train(tf, lambda: tf.train.AdadeltaOptimizer(rho=0.9, epsilon=1e-6))


def train_ftrl(tf):
    return _train(tf, lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                     l2_regularization_strength=0.02))


def train_ftrl_power(tf):
    return _train(tf, lambda: tf.train.FtrlOptimizer(0.2, learning_rate_power=-0.7, initial_accumulator_value=0.5))


def train_ftrl_shrinkage(tf):
    return _train(tf, lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.3,
                                                     l2_shrinkage_regularization_strength=0.1))


def train_proximal_gradient_descent(tf):
    return _train(tf, lambda: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1))


def train_proximal_gradient_descent_plain(tf):
    return _train(tf, lambda: tf.train.ProximalGradientDescentOptimizer(0.05))


def train_proximal_adagrad(tf):
    return _train(tf, lambda: tf.train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.1))


def train_with_decayed_rate(tf):
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.inverse_time_decay(0.5, gs, 1., 0.5)
    w = tf.Variable([1.0, -2.0], name="w")
    loss = tf.reduce_sum(tf.square(w))
    train = tf.train.ProximalGradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        return _r(sess.run(w))


def ftrl_bad_power(tf):
    tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)


def ftrl_bad_l1(tf):
    tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)


def proximal_adagrad_bad_accumulator(tf):
    tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)


# ---------------- losses ----------------

def _loss_run(tf, losses):
    with tf.Session() as sess:
        vals = sess.run(losses)
    return {"names": [t.name for t in losses], "values": [_r(v) for v in vals],
            "collection": [t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)]}


def losses(tf):
    L = tf.losses
    labels = tf.constant([[0., 1.], [1., 0.]], name="labels")
    pred = tf.constant([[0.2, 0.7], [0.6, 0.1]], name="pred")
    return _loss_run(tf, [
        L.mean_squared_error(labels, pred),
        L.mean_squared_error(labels, pred, weights=[[1.], [2.]]),
        L.mean_squared_error(labels, pred, weights=[[0., 1.], [0., 2.]]),
        L.mean_squared_error(labels, pred, weights=0.),
        L.absolute_difference(labels, pred, weights=[[1.], [3.]], reduction=L.Reduction.MEAN),
        L.absolute_difference(labels, pred, reduction=L.Reduction.SUM),
        L.absolute_difference(labels, pred, reduction=L.Reduction.NONE),
        L.absolute_difference(labels, pred, reduction=L.Reduction.SUM_OVER_BATCH_SIZE),
        L.log_loss(labels, pred),
        L.hinge_loss(labels, pred),
        L.huber_loss(labels, pred * 5., delta=0.5),
        L.mean_squared_error(labels, pred, scope="mine"),
        L.compute_weighted_loss(labels + pred, weights=2.)])


def losses_cross_entropy(tf):
    L = tf.losses
    onehot = tf.constant([[0., 1., 0.], [1., 0., 0.]], name="onehot")
    logits = tf.constant([[0.2, 1.7, -0.3], [0.6, 0.1, 0.9]], name="logits")
    return _loss_run(tf, [
        L.softmax_cross_entropy(onehot, logits),
        L.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
        L.softmax_cross_entropy(onehot, logits, weights=[3., 1.]),
        L.sigmoid_cross_entropy(onehot, logits),
        L.sigmoid_cross_entropy(onehot, logits, label_smoothing=0.2),
        L.sparse_softmax_cross_entropy([1, 0], logits),
        L.sparse_softmax_cross_entropy([[1], [2]], logits, weights=[[2.], [1.]])])


def losses_totals(tf):
    L = tf.losses
    labels = tf.constant([0., 1.], name="labels")
    pred = tf.constant([0.25, 0.5], name="pred")
    empty = L.get_regularization_loss()
    L.mean_squared_error(labels, pred)
    L.absolute_difference(labels, pred)
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.reduce_sum(pred, name="reg"))
    L.add_loss(tf.reduce_sum(labels, name="extra"))
    outs = [L.get_total_loss(), L.get_regularization_loss(), L.get_total_loss(add_regularization_losses=False,
                                                                              name="data_loss"), empty]
    with tf.Session() as sess:
        vals = sess.run(outs)
    return {"names": [t.name for t in outs], "values": _r(vals), "losses": [t.name for t in L.get_losses()],
            "regularization": [t.name for t in L.get_regularization_losses()]}


def losses_no_total(tf):
    tf.losses.get_total_loss()


def losses_bad_weights_rank(tf):
    tf.losses.mean_squared_error(tf.constant([[0., 1.], [1., 0.]]), tf.constant([[0.2, 0.7], [0.6, 0.1]]),
                                 weights=[1., 2.])


def losses_bad_weights_dim(tf):
    tf.losses.mean_squared_error(tf.constant([[0., 1.], [1., 0.]]), tf.constant([[0.2, 0.7], [0.6, 0.1]]),
                                 weights=[[1., 2., 3.]])


def losses_bad_reduction(tf):
    tf.losses.absolute_difference(tf.constant([1.]), tf.constant([2.]), reduction="bad")


def losses_none_labels(tf):
    tf.losses.mean_squared_error(None, tf.constant([2.]))


def losses_shape_mismatch(tf):
    tf.losses.mean_squared_error(tf.constant([1., 2.]), tf.constant([1., 2., 3.]))


# ---------------- metrics ----------------

def _metric_runs(tf, metric, runs=2):
    value, update = metric
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        ups = [sess.run(update) for _ in range(runs)]
        v = sess.run(value)
    return {"names": [value.name, update.name], "updates": _r(ups), "value": _r(v)}


def _metric_vars(tf):
    return {"local": [v.name for v in tf.local_variables()],
            "metric": [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)],
            "global": [v.name for v in tf.global_variables()]}


def metrics_mean_accuracy(tf):
    M = tf.metrics
    labels = tf.constant([1, 0, 1, 1, 0], name="labels")
    probs = tf.constant([0.9, 0.3, 0.4, 0.8, 0.6], name="probs")
    pred = tf.cast(probs > 0.5, tf.int32)
    w = [1., 2., 0., 1., 1.]
    out = {"accuracy": _metric_runs(tf, M.accuracy(labels, pred)),
           "accuracy_weighted": _metric_runs(tf, M.accuracy(labels, pred, weights=w, name="acc_w")),
           "mean": _metric_runs(tf, M.mean(probs)),
           "mean_weighted": _metric_runs(tf, M.mean(probs, weights=w, name="m")),
           "mse": _metric_runs(tf, M.mean_squared_error(tf.cast(labels, tf.float32), probs)),
           "mae": _metric_runs(tf, M.mean_absolute_error(tf.cast(labels, tf.float32), probs, weights=w)),
           "rmse": _metric_runs(tf, M.root_mean_squared_error(tf.cast(labels, tf.float32), probs))}
    out["variables"] = _metric_vars(tf)
    return out


def metrics_confusion(tf):
    M = tf.metrics
    labels = tf.constant([1, 0, 1, 1, 0], name="labels")
    pred = tf.constant([0.9, 0.3, 0.4, 0.8, 0.6], name="probs") > 0.5
    out = {"precision": _metric_runs(tf, M.precision(labels, pred)),
           "recall": _metric_runs(tf, M.recall(labels, pred, weights=[1., 2., 3., 4., 5.])),
           "tp": _metric_runs(tf, M.true_positives(labels, pred))["updates"],
           "fp": _metric_runs(tf, M.false_positives(labels, pred))["value"],
           "fn": _metric_runs(tf, M.false_negatives(labels, pred))["value"],
           "tn": _metric_runs(tf, M.true_negatives(labels, pred, weights=[1., 2., 3., 4., 5.]))["value"]}
    out["variables"] = _metric_vars(tf)
    return out


def metrics_auc(tf):
    M = tf.metrics
    labels = tf.constant([1, 0, 1, 1, 0, 0], name="labels")
    probs = tf.constant([0.9, 0.3, 0.4, 0.8, 0.6, 0.05], name="probs")
    out = {"roc": _metric_runs(tf, M.auc(labels, probs)),
           "pr_minoring": _metric_runs(tf, M.auc(labels, probs, curve="PR", summation_method="minoring",
                                                 num_thresholds=50, name="pr")),
           "majoring": _metric_runs(tf, M.auc(labels, probs, summation_method="majoring", num_thresholds=20,
                                              name="maj")),
           "weighted": _metric_runs(tf, M.auc(labels, probs, weights=[1., 2., 3., 4., 5., 6.],
                                              thresholds=[0.5, 0.2], name="w"))}
    out["variables"] = _metric_vars(tf)
    return out


def metrics_collections(tf):
    v, u = tf.metrics.mean(tf.constant([1., 2.]), metrics_collections=["mc"], updates_collections=["uc"])
    return [[t.name for t in tf.get_collection("mc")], [t.name for t in tf.get_collection("uc")]]


def metrics_bad_curve(tf):
    tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.2]), curve="XY")


def metrics_shape_mismatch(tf):
    tf.metrics.accuracy(tf.constant([1, 0, 1]), tf.constant([1, 2]))


# ---------------- input producers ----------------

def _drain(tf, out, n):
    res = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            for _ in range(n):
                res.append(_val(sess.run(out)))
        except tf.errors.OutOfRangeError:
            res.append("OutOfRange")
        coord.request_stop()
        coord.join(threads)
    return res


def _runner_ops(tf):
    return [[r.queue.name, [e.name for e in r.enqueue_ops]] for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]


def input_producer(tf):
    q = tf.train.input_producer(tf.constant([[1, 2], [3, 4], [5, 6]]), shuffle=False, num_epochs=2)
    got = _drain(tf, q.dequeue(), 7)
    return {"values": got, "runners": _runner_ops(tf), "local": [v.name for v in tf.local_variables()]}


def input_producer_named(tf):
    q = tf.train.input_producer(tf.constant([1., 2.]), shuffle=False, summary_name="fill", name="prod")
    got = _drain(tf, q.dequeue_many(2), 2)
    return {"values": got, "runners": _runner_ops(tf),
            "summaries": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}


def input_producer_unknown_shape(tf):
    tf.train.input_producer(tf.placeholder(tf.float32, [None, None]))


def range_input_producer(tf):
    q = tf.train.range_input_producer(5, shuffle=False, num_epochs=1)
    return {"values": _drain(tf, q.dequeue(), 6), "runners": _runner_ops(tf),
            "summaries": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}


def range_input_producer_shuffled(tf):
    q = tf.train.range_input_producer(6, num_epochs=1, seed=3)
    return sorted(_drain(tf, q.dequeue_many(6), 1)[0])


def slice_input_producer(tf):
    out = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant([[1.], [2.], [3.]])], shuffle=False,
                                        num_epochs=1)
    return {"values": _drain(tf, out, 4), "names": [t.name for t in out], "runners": _runner_ops(tf)}


def limit_epochs(tf):
    t = tf.train.limit_epochs(tf.constant(3), 2)
    return {"values": _drain(tf, t, 3), "name": t.name, "local": [v.name for v in tf.local_variables()]}


def limit_epochs_zero(tf):
    tf.train.limit_epochs(tf.constant(3), 0)


def batch_join(tf):
    out = tf.train.batch_join([[tf.constant(1), tf.constant(1.)], [tf.constant(1), tf.constant(1.)]], 4)
    return {"values": _drain(tf, out, 1), "names": [t.name for t in out], "runners": _runner_ops(tf),
            "summaries": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}


def shuffle_batch_join(tf):
    out = tf.train.shuffle_batch_join([[tf.constant(2)], [tf.constant(2)]], 3, capacity=10, min_after_dequeue=2)
    return {"values": _drain(tf, out, 1), "name": out.name, "runners": _runner_ops(tf),
            "summaries": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}


# ---------------- summaries ----------------

def summaries_tensor_and_text(tf):
    t = tf.summary.text("notes", tf.constant(["hello", "world"]))
    ts = tf.summary.tensor_summary("t", tf.constant([[1., 2.], [3., 4.]]), summary_description="desc")
    fi = tf.summary.tensor_summary("i", tf.constant(7), family="fam", display_name="D")
    with tf.Session() as sess:
        vals = sess.run([t, ts, fi])
    return {"names": [x.name for x in (t, ts, fi)], "values": _val(vals),
            "ops": [[o.name, o.type] for o in tf.get_default_graph().get_operations()],
            "summaries": [x.name for x in tf.get_collection(tf.GraphKeys.SUMMARIES)]}


def summaries_audio(tf):
    a = tf.summary.audio("snd", tf.constant([[0.5, -1.5, 0.25], [0.1, 0.2, 0.3]]), 8000., max_outputs=3)
    b = tf.summary.audio("st", tf.constant([[[0.5, -0.5], [1.0, 0.0]]]), 16000., max_outputs=1, family="f")
    with tf.Session() as sess:
        vals = sess.run([a, b])
    return {"names": [a.name, b.name], "values": _val(vals),
            "ops": [[o.name, o.type] for o in tf.get_default_graph().get_operations()]}


def summary_audio_rank(tf):
    with tf.Session() as sess:
        sess.run(tf.summary.audio("bad", tf.constant([1., 2.]), 8000.))


def summary_text_not_string(tf):
    tf.summary.text("bad", tf.constant(1.0, name="x"))


PROGRAMS = [summaries_tensor_and_text, summary_text_not_string, summaries_audio, summary_audio_rank, schedules, piecewise_constant, piecewise_constant_lengths, piecewise_constant_value_dtypes,
            piecewise_constant_boundary_dtype, decay_with_global_step_variable,
            train_adadelta, train_adadelta_defaults, train_ftrl, train_ftrl_power, train_ftrl_shrinkage,
            train_proximal_gradient_descent, train_proximal_gradient_descent_plain, train_proximal_adagrad,
            train_with_decayed_rate, ftrl_bad_power, ftrl_bad_l1, proximal_adagrad_bad_accumulator,
            losses, losses_cross_entropy, losses_totals, losses_no_total, losses_bad_weights_rank,
            losses_bad_weights_dim, losses_bad_reduction, losses_none_labels, losses_shape_mismatch,
            metrics_mean_accuracy, metrics_confusion, metrics_auc, metrics_collections, metrics_bad_curve,
            metrics_shape_mismatch,
            input_producer, input_producer_named, input_producer_unknown_shape, range_input_producer,
            range_input_producer_shuffled, slice_input_producer, limit_epochs, limit_epochs_zero, batch_join,
            shuffle_batch_join]


def _err(cls, msg):
    return {"error": [cls, msg]}


def _ftrl_graph(e):
    # TF 2.x's Ftrl adds a "beta" term (Maximum, mul, truediv, add, beta) that 1.15 does not have.
    r = e["result"]
    r["ops"] = [o for o in r["ops"] if not (o[0].startswith("Ftrl/") and o[0].split("/")[1].startswith(
        ("Maximum", "mul", "truediv", "add", "beta")))]


def _adagrad_slot_init(e):
    # TF 1.15 makes the ProximalAdagrad accumulator's initial value as "Const_<k>" in the caller's
    # scope; tfc names it "<slot>/Initializer/Const" (left out of the comparison with the other
    # initializers).
    e["result"]["ops"] = [o for o in e["result"]["ops"] if not o[0].startswith("Const")]


_BROADCAST = "weights can not be broadcast to values."
TF115 = {
    "losses_no_total": _err("ValueError", "inputs must be a list of at least one Tensor/IndexedSlices with the "
                                          "same dtype and shape"),
    "losses_bad_weights_rank": _err("ValueError", _BROADCAST + " values.rank=2. weights.rank=1. values.shape=(2, 2). "
                                                  "weights.shape=(2,)."),
    "losses_bad_weights_dim": _err("ValueError", _BROADCAST + " Mismatch at dim 1. values.shape=[2 2] "
                                                 "weights.shape=[1 3]."),
    "losses_bad_reduction": _err("ValueError", "Invalid Reduction Key bad."),
    "losses_none_labels": _err("ValueError", "labels must not be None."),
    "metrics_bad_curve": _err("ValueError", "curve must be either ROC or PR, XY unknown"),
    "train_ftrl": _ftrl_graph, "train_ftrl_power": _ftrl_graph, "train_ftrl_shrinkage": _ftrl_graph,
    "train_proximal_adagrad": _adagrad_slot_init,
}
