"""TF 1.x programs of monitored sessions and their hooks, run under TensorFlow
(gen_expectations.py programs_monitored records them) and under tfc (test_differential.py):
training loops stopped by StopAtStepHook with checkpoints (variables after N steps, the files
written, the global step, a second session restoring), hooks' call order and values, feeds and
stops from hooks, queue runners ending a `with` block with OutOfRangeError, and argument and
run errors. Files go to temporary directories; event file names (host and time) are replaced
by "events".
"""
import collections
import os
import shutil
import tempfile

from programs import _val


def _tmp():
    return tempfile.mkdtemp(prefix="tfc_monitored_")


def _listing(d):
    return sorted(set("events" if f.startswith("events.out.tfevents") else f for f in os.listdir(d)))


def _r(values):
    """Floats rounded to 4 decimals (the runtimes may sum in another order)."""
    if isinstance(values, (list, tuple)):
        return [_r(v) for v in values]
    return round(float(values), 4)


def _linear(tf):
    """y = w * x + b fitted to y = 2x + 1 by gradient descent, with a global step."""
    gs = tf.train.get_or_create_global_step()
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    y = tf.constant([3.0, 5.0, 7.0, 9.0])
    w = tf.Variable(0.5, name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
    return gs, w, b, loss, train


def stop_at_step_and_checkpoints(tf):
    d = _tmp()
    try:
        gs, w, b, loss, train = _linear(tf)
        losses = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=2,
                                               hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
            while not sess.should_stop():
                _, l = sess.run([train, loss])
                losses.append(l)
        out = {"losses": _r(losses), "files": _listing(d),
               "latest": os.path.basename(tf.train.latest_checkpoint(d)),
               "saved_w": _r(tf.train.load_variable(d, "w")),
               "saved_step": _val(tf.train.load_variable(d, "global_step"))}
        state = tf.train.get_checkpoint_state(d)
        out["all"] = [os.path.basename(p) for p in state.all_model_checkpoint_paths]
        # A second session over a new graph restores step 5 and trains 3 more steps.
        tf.reset_default_graph()
        gs, w, b, loss, train = _linear(tf)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_secs=None,
                                               hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
            out["restored"] = _r(sess.run([gs, w, b]))
            n = 0
            while not sess.should_stop():
                sess.run(train)
                n += 1
            out["more_steps"] = n
            out["after"] = _r(sess._tf_sess().run([gs, w, b]))
        out["files_after"] = _listing(d)
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


Pair = collections.namedtuple("Pair", ["first", "second"])


def _recorder(tf, name, log, fetches=None, feed=None, stop_after=None):
    """A hook recording its calls; fetches `fetches`, feeds `feed`, stops after stop_after runs."""

    class Recorder(tf.train.SessionRunHook):
        runs = 0

        def begin(self):
            log.append([name, "begin"])

        def after_create_session(self, session, coord):
            log.append([name, "after_create_session", bool(coord.should_stop())])

        def before_run(self, run_context):
            args = run_context.original_args
            log.append([name, "before_run", type(args).__name__, args.feed_dict is None])
            if fetches is None and feed is None:
                return None
            return tf.train.SessionRunArgs(fetches, feed_dict=feed)

        def after_run(self, run_context, run_values):
            self.runs += 1
            log.append([name, "after_run", _val(run_values.results), type(run_values).__name__])
            if stop_after is not None and self.runs >= stop_after:
                run_context.request_stop()
                log.append([name, "stop_requested", run_context.stop_requested])

        def end(self, session):
            log.append([name, "end"])

    return Recorder()


def hooks_order_values_and_stop(tf):
    log = []
    gs = tf.train.get_or_create_global_step()
    step = tf.assign_add(gs, 1)
    after = tf.identity(step, name="after")  # the step's value (gs itself may be read before it)
    p = tf.placeholder(tf.float32, [], name="p")
    q = tf.placeholder(tf.float32, [], name="q")
    doubled = p * 2.0
    tripled = q * 3.0

    def make(name, fetches=None, feed=None, stop_after=None):
        return _recorder(tf, name, log, fetches, feed, stop_after)

    hooks = [make("a", fetches={"gs": after, "pair": Pair(doubled, after)}, feed={p: 5.0}),
             make("b"),
             make("c", fetches=[tripled], feed={q: 2.0}, stop_after=3)]
    results = []
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        log.append(["caller", "created", bool(sess.should_stop())])
        while not sess.should_stop():
            results.append(_val(sess.run({"step": step, "t": (doubled, tripled)})))
        log.append(["caller", "should_stop", bool(sess.should_stop())])
        try:
            sess.run(step)
        except RuntimeError as e:
            log.append(["caller", "RuntimeError", str(e)])
    return {"log": log, "results": results}


def hooks_see_raw_session_and_feeds(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable([1.0, 1.0], name="v")
    upd = tf.assign_add(v, x)
    seen = []

    class Feeder(tf.train.SessionRunHook):
        def before_run(self, ctx):
            return tf.train.SessionRunArgs(None, feed_dict={x: [0.5, 1.5]})

        def after_run(self, ctx, values):
            seen.append([values.results, _val(ctx.session.run(v))])

    with tf.train.MonitoredSession(hooks=[Feeder()]) as sess:
        a = sess.run(upd)
        b = sess.run(upd)
        raw = _val(sess._tf_sess().run(v))
    return {"a": _val(a), "b": _val(b), "seen": seen, "raw": raw}


def out_of_range_ends_the_block(tf):
    x = tf.train.range_input_producer(3, num_epochs=2, shuffle=False).dequeue()
    log = []

    class Ender(tf.train.SessionRunHook):
        def end(self, session):
            log.append("end")

    values = []
    with tf.train.MonitoredSession(hooks=[Ender()]) as sess:
        while not sess.should_stop():
            values.append(int(sess.run(x)))
        log.append("loop ended")  # not reached: OutOfRangeError leaves the block
    log.append("after the block")
    return {"values": values, "log": log}


def stop_iteration_and_other_errors(tf):
    tf.Variable(1.0, name="v")
    log = []

    class Ender(tf.train.SessionRunHook):
        def end(self, session):
            log.append("end")

    with tf.train.MonitoredSession(hooks=[Ender()]):
        raise StopIteration()
    log.append("after StopIteration")
    try:
        with tf.train.MonitoredSession(hooks=[Ender()]):
            raise KeyError("boom")
    except KeyError as e:
        log.append(["KeyError", str(e)])
    return log


def nan_loss(tf):
    gs = tf.train.get_or_create_global_step()
    v = tf.Variable(1.0, name="v")
    loss = tf.log(v - 3.0)  # NaN
    step = tf.assign_add(gs, 1)
    out = {}
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(step)
        out["stopped"] = bool(sess.should_stop())
    try:
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
            sess.run(step)
    except tf.train.NanLossDuringTrainingError as e:
        out["error"] = [type(e).__name__, str(e), isinstance(e, RuntimeError)]
    return out


def logging_tensor_hook(tf):
    gs = tf.train.get_or_create_global_step()
    step = tf.assign_add(gs, 1)
    after = tf.identity(step, name="after")
    seen = []

    def fmt(values):
        seen.append(_val(values))
        return "logged"

    hooks = [tf.train.LoggingTensorHook({"step": after}, every_n_iter=2, formatter=fmt),
             tf.train.LoggingTensorHook([gs.name], at_end=True, formatter=fmt),
             tf.train.StopAtStepHook(last_step=5)]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(step)
    return seen


def hook_argument_errors(tf):
    out = {}

    def err(name, fn):
        try:
            fn()
            out[name] = None
        except Exception as e:  # noqa: BLE001
            out[name] = [type(e).__name__, str(e)]

    gs = tf.train.get_or_create_global_step()
    err("stop_none", lambda: tf.train.StopAtStepHook())
    err("stop_both", lambda: tf.train.StopAtStepHook(num_steps=1, last_step=2))
    err("ckpt_no_period", lambda: tf.train.CheckpointSaverHook("/tmp/x"))
    err("ckpt_both_periods", lambda: tf.train.CheckpointSaverHook("/tmp/x", save_secs=1, save_steps=1))
    err("ckpt_saver_and_scaffold", lambda: tf.train.CheckpointSaverHook("/tmp/x", save_steps=1, saver=object(),
                                                                        scaffold=tf.train.Scaffold()))
    err("summary_neither", lambda: tf.train.SummarySaverHook(save_steps=1))
    err("summary_both", lambda: tf.train.SummarySaverHook(save_steps=1, scaffold=tf.train.Scaffold(),
                                                          summary_op=gs))
    err("counter_neither", lambda: tf.train.StepCounterHook(every_n_steps=None))
    err("counter_both", lambda: tf.train.StepCounterHook(every_n_steps=1, every_n_secs=1))
    err("logging_neither", lambda: tf.train.LoggingTensorHook([gs]))
    err("logging_both", lambda: tf.train.LoggingTensorHook([gs], every_n_iter=1, every_n_secs=1))
    err("logging_zero", lambda: tf.train.LoggingTensorHook([gs], every_n_iter=0))
    err("args_defaults", lambda: list(tf.train.SessionRunArgs(gs)) == [gs, None, None] or 1 / 0)
    return out


def step_hooks_need_a_global_step(tf):
    tf.Variable(1.0, name="v")
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=3)]):
        pass


def checkpoint_hook_needs_a_global_step(tf):
    d = _tmp()
    try:
        tf.Variable(1.0, name="v")
        with tf.train.MonitoredTrainingSession(checkpoint_dir=d):
            pass
    finally:
        shutil.rmtree(d, ignore_errors=True)


def same_tensor_fed_twice(tf):
    p = tf.placeholder(tf.float32, [], name="p")
    doubled = p * 2.0
    out = {}

    class Feeder(tf.train.SessionRunHook):
        def before_run(self, ctx):
            return tf.train.SessionRunArgs(None, feed_dict={p: 1.0})

    for name, hooks, feed in (("two_hooks", [Feeder(), Feeder()], None), ("hook_and_user", [Feeder()], {p: 2.0})):
        try:
            with tf.train.MonitoredSession(hooks=hooks) as sess:
                sess.run(doubled, feed_dict=feed)
            out[name] = None
        except RuntimeError as e:
            out[name] = [type(e).__name__, str(e).split(" Conflict(s)")[0]]
    return out


def hook_exception_class(tf):
    tf.Variable(1.0, name="v")
    out = {}

    class Boom(tf.train.SessionRunHook):
        def __init__(self, where):
            self.where = where

        def after_create_session(self, session, coord):
            if self.where == "create":
                raise ValueError("in after_create_session")

        def after_run(self, ctx, values):
            if self.where == "after_run":
                raise tf.errors.InvalidArgumentError(None, None, "in after_run")

        def end(self, session):
            if self.where == "end":
                raise KeyError("in end")

    for where in ("create", "after_run", "end"):
        try:
            with tf.train.MonitoredSession(hooks=[Boom(where)]) as sess:
                sess.run(tf.get_default_graph().get_tensor_by_name("v:0"))
            out[where] = None
        except Exception as e:  # noqa: BLE001
            out[where] = [type(e).__name__, e.message if hasattr(e, "error_code") else str(e)]
    return out


def worker_waits_in_vain(tf):
    tf.Variable(1.0, name="v")
    with tf.train.MonitoredTrainingSession(is_chief=False, max_wait_secs=1):
        pass


def _summary_steps(tf, d, tag):
    """The steps of tag's summaries in d's event files."""
    steps = []
    for f in sorted(os.listdir(d)):
        if f.startswith("events.out.tfevents"):
            for rec in tf.python_io.tf_record_iterator(os.path.join(d, f)):
                e = tf.Event.FromString(rec)
                if e.HasField("summary"):
                    steps.extend(int(e.step) for v in e.summary.value if v.tag == tag)
    return steps


def summaries_every_n_steps_and_secs(tf):
    out = {}
    for name, kwargs in (("steps", {"save_summaries_steps": 2}),
                         ("secs", {"save_summaries_secs": 1e-9})):
        d = _tmp()
        try:
            tf.reset_default_graph()
            gs = tf.train.get_or_create_global_step()
            w = tf.Variable(1.0, name="w")
            tf.summary.scalar("w_summary", tf.identity(w))
            train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(gs, 1))
            with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_secs=None,
                                                   log_step_count_steps=None,
                                                   hooks=[tf.train.StopAtStepHook(last_step=6)], **kwargs) as sess:
                while not sess.should_stop():
                    sess.run(train)
            out[name] = _summary_steps(tf, d, "w_summary")
            out[name + "_files"] = _listing(d)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def singular_monitored_session(tf):
    v = tf.Variable(3.0, name="v")
    inc = tf.assign_add(v, 1.0)
    with tf.train.SingularMonitoredSession() as sess:
        a = sess.run(inc)
        b = sess.raw_session().run(v)
    return [_val(a), _val(b)]


PROGRAMS = [stop_at_step_and_checkpoints, hooks_order_values_and_stop, hooks_see_raw_session_and_feeds,
            out_of_range_ends_the_block, stop_iteration_and_other_errors, nan_loss, logging_tensor_hook,
            hook_argument_errors, step_hooks_need_a_global_step, checkpoint_hook_needs_a_global_step,
            same_tensor_fed_twice, hook_exception_class, worker_waits_in_vain, singular_monitored_session,
            summaries_every_n_steps_and_secs]
