"""tf.train.MonitoredTrainingSession and its hooks from Python (tfc/training/monitored_session.py
over include/tfc/monitored_session.h): what the differential programs (programs_monitored.py)
cannot show -- a worker giving up, recovery from a killed parameter server with the hooks told
of the new session, hooks' exceptions raised inside C calls keeping their class, the hooks'
coordinator and raw session closed with their session, refused Scaffold arguments."""
import os
import socket
import subprocess
import sys
import threading

import pytest

import tfc.compat.v1 as tf


def _model():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(gs, 1))
    return gs, w, train


class Probe(tf.train.SessionRunHook):
    """Records the sessions and coordinators it is given."""

    def __init__(self):
        self.sessions, self.coords, self.ended = [], [], 0

    def after_create_session(self, session, coord):
        self.sessions.append(session)
        self.coords.append(coord)

    def end(self, session):
        self.ended += 1


def test_worker_gives_up_with_deadline_exceeded():
    _model()
    with pytest.raises(tf.errors.DeadlineExceededError, match=r"^Session was not ready after waiting 2 secs\.$"):
        tf.train.MonitoredTrainingSession(is_chief=False, max_wait_secs=2.5)


def test_raw_session_and_coordinator_close_with_the_session():
    gs, w, train = _model()
    probe = Probe()
    stopped = []

    class Threaded(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            def loop():
                while not coord.should_stop():
                    coord.wait_for_stop(0.01)
                stopped.append(True)
            t = threading.Thread(target=loop)
            coord.register_thread(t)
            t.start()

    sess = tf.train.MonitoredSession(hooks=[probe, Threaded()])
    sess.run(train)
    raw = sess._tf_sess()
    assert raw is probe.sessions[0]
    assert raw.run(w) == 2.0
    assert not probe.coords[0].should_stop()
    assert tf.get_default_graph().finalized
    sess.close()
    assert stopped == [True]  # the hook's thread was stopped and joined before the session closed
    assert probe.ended == 1
    assert probe.coords[0].should_stop()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        raw.run(w)
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(train)
    assert sess.should_stop()
    sess.close()  # idempotent
    assert probe.ended == 1


def test_hook_requests_stop_through_the_coordinator():
    gs, w, train = _model()
    probe = Probe()
    with tf.train.MonitoredSession(hooks=[probe]) as sess:
        sess.run(train)
        probe.coords[0].request_stop()
        assert sess.should_stop()
        with pytest.raises(RuntimeError, match=r"^Run called even after should_stop requested\.$"):
            sess.run(train)


class HookError(Exception):
    pass


@pytest.mark.parametrize("where", ["after_create_session", "before_run", "after_run", "end"])
def test_hook_exceptions_keep_their_class(where):
    gs, w, train = _model()

    class Boom(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            if where == "after_create_session":
                raise HookError(where)

        def before_run(self, ctx):
            if where == "before_run":
                raise HookError(where)

        def after_run(self, ctx, values):
            if where == "after_run":
                raise HookError(where)

        def end(self, session):
            if where == "end":
                raise HookError(where)

    with pytest.raises(HookError, match=where):
        with tf.train.MonitoredSession(hooks=[Boom()]) as sess:
            sess.run(train)


def test_end_is_skipped_when_the_block_fails_and_the_session_still_closes():
    gs, w, train = _model()
    probe = Probe()
    with pytest.raises(ZeroDivisionError):
        with tf.train.MonitoredSession(hooks=[probe]) as sess:
            sess.run(train)
            1 / 0
    assert probe.ended == 0
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        probe.sessions[0].run(w)


def test_scaffold_local_init_op_runs_and_other_ops_are_refused():
    gs, w, train = _model()
    flag = tf.Variable(0, name="flag", collections=[])  # in no collection: the C init leaves it
    scaffold = tf.train.Scaffold(local_init_op=tf.group(tf.variables_initializer([flag]), name="my_local_init"))
    with tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold)) as sess:
        assert sess.run(flag) == 0
    tf.reset_default_graph()
    _model()
    with pytest.raises(NotImplementedError, match=r"Scaffold\(init_op=\.\.\.\) is not supported"):
        tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=tf.train.Scaffold(init_op=tf.no_op())))


def test_run_options_and_metadata_reach_the_run_and_the_hooks():
    gs, w, train = _model()
    seen = []

    class Tracer(tf.train.SessionRunHook):
        def before_run(self, ctx):
            return tf.train.SessionRunArgs(w, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))

        def after_run(self, ctx, values):
            seen.append((values.options.trace_level, len(values.run_metadata.step_stats.dev_stats) > 0))

    meta = tf.RunMetadata()
    with tf.train.MonitoredSession(hooks=[Tracer()]) as sess:
        sess.run(train, run_metadata=meta)
    assert seen == [(tf.RunOptions.FULL_TRACE, True)]
    assert len(meta.step_stats.dev_stats) > 0


# ---------------- recovery from a killed parameter server ----------------

_SERVE = ("import sys, tfc.compat.v1 as tf\n"
          "s = tf.train.Server(tf.train.ClusterSpec({'ps': [%r], 'worker': [%r]}), job_name='ps', task_index=0)\n"
          "sys.stdout.write('ready\\n'); sys.stdout.flush(); sys.stdin.read()\n")


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _start_ps(ps, worker):
    p = subprocess.Popen([sys.executable, "-c", _SERVE % (ps, worker)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=dict(os.environ))
    assert p.stdout.readline() == b"ready\n"
    return p


def test_recovery_from_a_killed_ps_tells_the_hooks_of_the_new_session(tmp_path):
    p0, p1 = _free_ports(2)
    ps, worker = "localhost:%d" % p0, "localhost:%d" % p1
    proc = _start_ps(ps, worker)
    try:
        server = tf.train.Server(tf.train.ClusterSpec({"ps": [ps], "worker": [worker]}), job_name="worker",
                                 task_index=0)
        with tf.device("/job:ps/task:0"):
            gs, w, train = _model()
        probe = Probe()
        steps = 0
        with tf.train.MonitoredTrainingSession(master=server.target, checkpoint_dir=str(tmp_path),
                                               save_checkpoint_steps=2, save_summaries_steps=None,
                                               log_step_count_steps=None,
                                               hooks=[tf.train.StopAtStepHook(last_step=10), probe]) as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
                if steps == 5:  # the ps dies after step 5 and comes back empty
                    proc.kill()
                    proc.wait()
                    proc.stdout.close()
                    proc = _start_ps(ps, worker)
            final = sess._tf_sess().run([gs, w])
        # Steps 5 (since the checkpoint at 4) ran again on the new session.
        assert steps == 11
        assert list(final) == [10, 11.0]
        assert len(probe.sessions) == 2 and probe.sessions[0] is not probe.sessions[1]
        assert probe.coords[0].should_stop()
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
            probe.sessions[0].run(w)
        assert probe.ended == 1
    finally:
        if proc.poll() is None:
            proc.stdin.close()
            proc.wait()
        proc.stdout.close()


def test_checkpoint_saver_hooks_on_the_session_directory_join_the_built_in_one(tmp_path):
    gs, w, train = _model()
    hooks = [tf.train.CheckpointSaverHook(str(tmp_path), save_steps=3), tf.train.StopAtStepHook(last_step=7)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-7"]
    tf.reset_default_graph()
    _model()
    with pytest.raises(NotImplementedError, match="saves into the session's checkpoint_dir"):
        tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                          hooks=[tf.train.CheckpointSaverHook(str(tmp_path / "other"), save_steps=1)])
