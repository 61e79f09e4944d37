"""tf.train.SyncReplicasOptimizer (tfc/training/sync_replicas_optimizer.py over the C builder of
include/tfc/sync_replicas.h): the graph against TensorFlow's node for node (the fixture
tests/fixtures/sync_replicas.txt that tests/fixtures/gen_sync_replicas.py records with PyPI
TensorFlow), TF's argument errors, and training on a cluster of processes (a ps and 2 or 3
workers, sync_replicas_task.py) to exact values."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest

import tfc.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "tests", "fixtures", "sync_replicas.txt")


def _section(title):
    with open(FIXTURE) as f:
        text = f.read()
    body = text.split(title + "\n", 1)[1]
    return [line for line in body.split("\n\n", 1)[0].splitlines() if line]


def _fixture_model():
    """The fixture's program: gen_sync_replicas.py's, line for line."""
    with tf.device("/job:ps/task:0"):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable([1.0, 2.0], name="w")
    with tf.device("/job:ps/task:1"):
        b = tf.Variable(0.5, name="b")
    with tf.device("/job:worker/task:0"):
        x = tf.constant([3.0, 4.0], name="x")
        loss = tf.reduce_sum(w * x) + b
        opt = tf.train.GradientDescentOptimizer(0.1)
        sync = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=3)
        gv = sync.compute_gradients(loss)
    return gs, w, b, sync, gv


def test_graph_is_tensorflows_node_for_node():
    g = tf.get_default_graph()
    gs, _, _, sync, gv = _fixture_model()
    n0 = len(g.get_operations())
    with tf.device("/job:worker/task:0"):
        sync.apply_gradients(gv, global_step=gs)
        sync.get_init_tokens_op()
    made = [op for op in g.get_operations()[n0:] if not op.name.startswith("report_uninitialized_variables")]
    nodes = ["%s %s %s" % (op.name, op.type, ",".join([t.name for t in op.inputs] +
                                                      ["^" + c.name for c in op.control_inputs]))
             for op in made]
    devices = ["%s %s" % (op.name, op.device or "-") for op in made]
    want = [line.split(" _class=")[0] for line in _section("# nodes")]
    # TF 2.x pins queues to "/device:CPU:*", which tfc's placer does not take (as the C test).
    want_devices = [line.replace("/device:CPU:*", "") for line in _section("# devices")]
    # tfc's one difference (sync_replicas.h): the tokens read the global step after the update.
    i = want.index("Fill Fill Fill/dims:0,global_step/read:0")
    want[i:i + 1] = ["Fill/read Identity global_step:0,^GradientDescent", "Fill Fill Fill/dims:0,Fill/read:0"]
    j = want_devices.index("Fill /job:ps/task:0")
    want_devices.insert(j, "Fill/read /job:ps/task:0")
    assert nodes == want
    assert devices == want_devices
    # TF's ready_for_local_init_op: the global variables made before apply_gradients.
    assert sync.ready_for_local_init_op.op.name.startswith("report_uninitialized_variables/")


def test_parts_are_the_builders_ops():
    gs, w, _, sync, gv = _fixture_model()
    with pytest.raises(ValueError, match=r"^Should be called after apply_gradients\(\)\.$"):
        sync.get_chief_queue_runner()
    train_op = sync.apply_gradients(gv, global_step=gs)
    assert train_op.name == "Assign_1:0"
    assert sync.chief_init_op.name == "sync_replicas/group_deps"
    assert sync.local_step_init_op.name == "Assign:0"
    qr = sync.get_chief_queue_runner()
    assert qr.name == "sync_token_q"
    assert [op.name for op in qr.enqueue_ops] == ["sync_token_q_EnqueueMany"]
    assert (qr.close_op.name, qr.cancel_op.name) == ("sync_token_q_Close", "sync_token_q_Close_1")
    assert sync.get_slot_names() == []
    assert sync.get_slot(w, "momentum") is None
    assert sync.get_init_tokens_op(0).name == "no_init_tokens"


def test_ready_for_local_init_op_reports_the_global_variables_not_initialized():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")
    sync = tf.train.SyncReplicasOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), replicas_to_aggregate=1)
    sync.minimize(tf.reduce_sum(w) + b, global_step=gs)
    assert sync.get_slot_names() == ["momentum"]
    assert sync.get_slot(w, "momentum").op.name == "w/Momentum"
    with tf.Session() as sess:
        sess.run(w.initializer)
        # TF's: the global variables made before apply_gradients (not the slots).
        assert sorted(sess.run(sync.ready_for_local_init_op)) == [b"b", b"global_step"]


def test_a_scaffold_takes_its_ready_for_local_init_op_and_one_process_trains():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    sync = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1)
    train_op = sync.minimize(tf.reduce_sum(w * tf.constant([3.0, 4.0])), global_step=gs)
    scaffold = tf.train.Scaffold(ready_for_local_init_op=sync.ready_for_local_init_op)
    final = tf.train.FinalOpsHook([gs, w])
    hooks = [sync.make_session_run_hook(True), tf.train.StopAtStepHook(last_step=3), final]
    with tf.train.MonitoredTrainingSession(scaffold=scaffold, hooks=hooks, save_checkpoint_secs=None,
                                           save_summaries_steps=None, log_step_count_steps=None) as sess:
        local_steps = []
        while not sess.should_stop():
            local_steps.append(int(sess.run(train_op)))
    assert local_steps == [0, 1, 2, 3]  # the first token is the initial one (TF's values)
    step, wv = final.final_ops_values
    assert step == 3
    assert wv.tolist() == pytest.approx([1 - 0.9, 2 - 1.2])
    with pytest.raises(NotImplementedError, match="ready_for_local_init_op"):
        with tf.Graph().as_default():
            tf.Variable(1.0)
            tf.train.MonitoredTrainingSession(scaffold=tf.train.Scaffold(
                ready_for_local_init_op=tf.report_uninitialized_variables()))


def test_variable_averages_run_after_the_sync_op_in_the_chief_queue_runner():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    ema = tf.train.ExponentialMovingAverage(0.5)
    sync = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1,
                                          variable_averages=ema, variables_to_average=[w])
    train_op = sync.minimize(tf.reduce_sum(w * tf.constant([3.0, 4.0])), global_step=gs)
    qr = sync.get_chief_queue_runner()
    assert [op.name for op in qr.enqueue_ops] == ["ExponentialMovingAverage"]
    assert "sync_token_q_EnqueueMany" in [c.name for c in qr.enqueue_ops[0].control_inputs]
    avg = ema.average(w)
    final = tf.train.FinalOpsHook([gs, w, avg])
    hooks = [sync.make_session_run_hook(True), tf.train.StopAtStepHook(last_step=2), final]
    with tf.train.MonitoredTrainingSession(hooks=hooks, save_checkpoint_secs=None, save_summaries_steps=None,
                                           log_step_count_steps=None) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    step, wv, av = final.final_ops_values
    assert step == 2
    assert wv.tolist() == pytest.approx([0.4, 1.2])
    # One average per step, after its tokens went out (so the last may still be running when
    # the worker reads): 0.5 * 1 + 0.5 * 0.7 = 0.85 after step 1, 0.5 * 0.85 + 0.5 * 0.4 after 2.
    assert av.tolist() in (pytest.approx([0.625, 1.5]), pytest.approx([0.85, 1.8]))


def test_errors_are_tensorflows():
    gs, w, _, sync, gv = _fixture_model()
    with pytest.raises(ValueError, match="^Must supply at least one variable$"):
        sync.apply_gradients([], global_step=gs)
    with pytest.raises(ValueError, match="^Global step is required to check staleness$"):
        sync.apply_gradients(gv)
    with pytest.raises(ValueError, match=r"^get_init_tokens_op\(\) should be called after apply_gradients\(\)\.$"):
        sync.get_init_tokens_op()
    hook = sync.make_session_run_hook(True)
    with pytest.raises(ValueError, match=r"apply_gradient should be called before using the hook\.$"):
        hook.begin()
    sync.apply_gradients(gv, global_step=gs)
    with pytest.raises(ValueError, match=r"^Too few tokens to finish the first step: -2 \(given\) vs -1 \(needed\)$"):
        sync.get_init_tokens_op(-2)
    with pytest.raises(TypeError, match="must be a tf.train optimizer of tfc"):
        tf.train.SyncReplicasOptimizer(object(), 2)
    with pytest.raises(ValueError, match="replicas_to_aggregate must be >= 1"):
        tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 0)


def test_compat_v1_exports_it():
    import tfc
    assert tf.train.SyncReplicasOptimizer is tfc.train.SyncReplicasOptimizer


# ---------------- training on a cluster of processes ----------------

def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _start(spec, job, task, to_aggregate, total, last_step):
    return subprocess.Popen([sys.executable, os.path.join(HERE, "sync_replicas_task.py"), json.dumps(spec), job,
                             str(task), str(to_aggregate), str(total), str(last_step)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ))


def _expect(p, what):
    line = p.stdout.readline()  # the task prints it or dies (the test's timeout bounds it)
    assert line == what, "task said %r, not %r" % (line, what)


def _train(workers, running, to_aggregate, last_step):
    """A ps and `workers` worker tasks; `running` of them train (task 0 is the chief), the
    others only serve (every task must be up for a session to be created)."""
    ports = _free_ports(workers + 1)
    spec = {"ps": ["localhost:%d" % ports[0]], "worker": ["localhost:%d" % p for p in ports[1:]]}
    procs = []
    try:
        procs.append(_start(spec, "ps", 0, to_aggregate, workers, last_step))
        for task in range(workers):
            procs.append(_start(spec, "worker" if task < running else "worker:serve", task, to_aggregate, workers,
                                last_step))
        _expect(procs[0], b"ready\n")
        for p in procs[2:running + 1]:
            _expect(p, b"serving\n")
        _expect(procs[1], b"ready\n")
        for p in procs[2:running + 1]:
            p.stdin.write(b"go\n")
            p.stdin.flush()
        results = []
        for p in procs[1:running + 1]:
            out, _ = p.communicate(timeout=120)
            assert p.returncode == 0
            results.append(json.loads(out.decode().strip().splitlines()[-1]))
        return results
    finally:
        for p in procs:
            if p.poll() is None:
                p.stdin.close()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def _check(results, last_step):
    """Every step applied the mean of equal gradients (dw = [3, 4], db = 1): the values follow
    from the global step alone. The chief stops at last_step; a worker still running may make
    one more step with a backup worker before the chief's queue runner closes."""
    chief = results[0]
    assert chief["steps"] >= 1
    for r in results:
        n = r["global_step"]
        assert last_step <= n <= last_step + 1, r
        assert r["w"] == pytest.approx([1 - 0.3 * n, 2 - 0.4 * n], abs=1e-5)
        assert r["b"] == pytest.approx(0.5 - 0.1 * n, abs=1e-5)
    assert chief["global_step"] == last_step


def test_two_workers_train_to_exact_values():
    _check(_train(2, 2, 2, 20), 20)


def test_a_backup_worker_is_not_waited_for():
    _check(_train(3, 3, 2, 20), 20)


def test_a_missing_worker_does_not_stall_the_steps():
    _check(_train(3, 2, 2, 20), 20)
