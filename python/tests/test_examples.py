"""The seeds' programs in examples/python/, run as programs (a fresh interpreter each, as a user
runs them) with their printed results checked: seed 000's towers, seed 001's in-graph
replication, seed 002's soft placement, seed 000's matpow benchmark, seed 004's cluster programs,
its example trainer under MonitoredTrainingSession and its Fashion-MNIST training. (Seed 003's MLP is the ctest entry python_example_mlp.)"""
import os
import re
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python")
DEV = "/job:localhost/replica:0/task:0/device:"


def _run(name, *args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)] + list(args), capture_output=True,
                       text=True, timeout=300, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_multi_tower_places_towers_and_sums_them():
    out = _run("multi_tower.py")
    assert "MatMul: (MatMul): %sCPU:2" % DEV in out
    assert "MatMul_1: (MatMul): %sCPU:3" % DEV in out
    assert "AddN: (AddN): %sCPU:0" % DEV in out
    assert out.rstrip().endswith("[[ 44.  56.]\n [ 98. 128.]]")


def test_soft_placement_fails_without_and_runs_with():
    out = _run("soft_placement.py")
    assert out.startswith("without allow_soft_placement: Cannot assign a device for operation MatMul: "
                          "Operation was explicitly assigned to /device:GPU:2 but available devices are")
    assert "MatMul: (MatMul): %sCPU:0" % DEV in out
    assert out.rstrip().endswith("[[22. 28.]\n [49. 64.]]")


def test_in_graph_replication_matches_one_device():
    out = _run("in_graph_replication.py")
    for i in range(4):
        assert ": (MatMul): %sCPU:%d" % (DEV, i) in out
    assert out.rstrip().endswith("replicated result equals the one-device result: True")


def test_trainer_two_workers_train_asynchronously_under_monitored_sessions():
    out = _run("trainer.py").splitlines()
    assert out == ["worker 0 (chief) and worker 1 trained asynchronously to global step 2000",
                   "both stopped at or after it: True", "both trained: True",
                   "w = 2.00, b = 1.00, loss = 0.0000", "the chief's last checkpoint is at or after it: True"]


def test_distributed_local_server_two_processes_and_parameter_server():
    out = _run("distributed.py").splitlines()
    assert out[0] == "b'Hello, distributed TensorFlow!'"
    lt = "/job:local/replica:0/task:"
    # (2): placement log of the master's session (any order), then z = y + x computed across tasks
    assert sorted(out[1:5]) == sorted(["Const: (Const): %s0/device:CPU:0" % lt,
                                       "mul/y: (Const): %s1/device:CPU:0" % lt,
                                       "mul: (Mul): %s1/device:CPU:0" % lt,
                                       "add: (AddV2): %s0/device:CPU:0" % lt])
    assert out[5] == "[3. 6. 9.]"
    # (3): the workers' updates of the ps's variable, in turns
    assert out[6:10] == ["worker 0: v = 1.0", "worker 1: v = 11.0", "worker 0: v = 12.0", "worker 1: v = 22.0"]
    assert out[10].startswith("worker 1's session sees 3 devices: ")
    assert set(out[10].split(": ", 1)[1].split()) == {"/job:ps/replica:0/task:0/device:CPU:0",
                                                       "/job:worker/replica:0/task:0/device:CPU:0",
                                                       "/job:worker/replica:0/task:1/device:CPU:0"}
    assert len(out) == 11


# The example's child tasks, driven from a small program that imports it (its main does not run).
_TASK_DRIVER = r"""
import importlib.util, os, signal, socket, sys
spec = importlib.util.spec_from_file_location("distributed", sys.argv[1])
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)
mode = sys.argv[2]
if mode == "busy":
    s = socket.socket(); s.bind(("localhost", 0)); s.listen()
    try:
        ex.Task({"ps": ["localhost:%d" % s.getsockname()[1]]}, "ps", 0)
    except RuntimeError as e:
        print("error:", e)
else:
    port, = ex.free_ports(1)
    t = ex.Task({"ps": ["localhost:%d" % port]}, "ps", 0)
    print(t.proc.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # no cleanup of ours runs
"""


def _drive_task(mode):
    return subprocess.run([sys.executable, "-c", _TASK_DRIVER, os.path.join(EXAMPLES, "distributed.py"), mode],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))


def test_distributed_child_task_failing_to_start_is_a_clear_error():
    p = _drive_task("busy")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("error: task /job:ps/task:0 exited with status 1 before its server started "
                        "(its error is printed above)\n")
    assert "UnknownError: Could not start gRPC server: failed to bind 127.0.0.1:" in p.stderr


def test_distributed_child_task_ends_with_its_parent():
    import time
    p = _drive_task("kill")
    assert p.returncode == -9, p.stderr
    child = int(p.stdout)
    for _ in range(100):  # the child sees its stdin close and exits
        try:
            with open("/proc/%d/stat" % child) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # exited, not yet reaped by its new parent
                    return
        except FileNotFoundError:
            return
        time.sleep(0.1)
    os.kill(child, 9)
    raise AssertionError("the child task %d outlived its parent" % child)


def _tfc_tool():
    """The build tree's `tfc` tool, beside the package this suite imports (build/python/tfc)."""
    import tfc
    return os.path.normpath(os.path.join(os.path.dirname(tfc.__file__), "..", "..", "tfc"))


def _fashion_mnist_data(tmp_path, limit=600):
    import pytest
    tool = _tfc_tool()
    if not os.access(tool, os.X_OK):
        pytest.skip("no tfc tool at %s" % tool)
    data = str(tmp_path / "data")
    p = subprocess.run([tool, "data", "fashion-mnist", "--out", data, "--limit", str(limit)],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0 and "dataset-fashion-mnist" in p.stderr:
        pytest.skip("Debian's dataset-fashion-mnist is not installed")
    assert p.returncode == 0, p.stderr
    return data


def _fashion_mnist(*args):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "fashion_mnist.py")] + list(args),
                       capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_fashion_mnist_trains_two_towers_checkpoints_and_evaluates(tmp_path):
    import re
    data = _fashion_mnist_data(tmp_path)
    out = str(tmp_path / "train")
    common = ["--data", data, "--out", out, "--devices", "2", "--batch_size", "25", "--save_every", "20",
              "--summary_every", "10", "--seed", "4"]
    text = _fashion_mnist(*(common + ["--max_steps", "40"]))
    lines = text.splitlines()
    assert lines[0] == "2 towers on /cpu:0, /cpu:1 x 25 examples per step, 12 steps per epoch; from step 0 to 40"
    step_re = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: step (\d+), loss = (\d+\.\d\d) "
                         r"\((\d+\.\d) examples/sec; (\d+\.\d{3}) sec/batch\)$")
    steps = [step_re.match(line) for line in lines[1:5]]
    assert all(steps), lines
    assert [int(m.group(1)) for m in steps] == [10, 20, 30, 40]
    losses = [float(m.group(2)) for m in steps]
    assert losses[-1] < losses[0], losses
    assert all(float(m.group(3)) > 0 for m in steps)
    assert re.match(r"^trained 40 steps in [\d.]+ s: [\d.]+ examples/sec; checkpoint %s$"
                    % re.escape(os.path.join(out, "model.ckpt-40")), lines[5]), lines[5]
    acc = re.match(r"^\d{4}-\d\d-\d\d [\d:.]+: precision @ 1 = (\d\.\d{4}) \((\d+) of 600 test images, moving "
                   r"averages of %s\)$" % re.escape(os.path.join(out, "model.ckpt-40")), lines[6])
    assert acc, lines[6]
    assert float(acc.group(1)) > 0.3  # chance is 0.1
    assert len(lines) == 7
    files = os.listdir(out)
    events = [f for f in files if f.startswith("events.out.tfevents.")]
    assert len(events) == 1, files
    import tfc.compat.v1 as tf
    tags = {}  # step -> the summary tags written at it
    for record in tf.python_io.tf_record_iterator(os.path.join(out, events[0])):
        event = tf.Event()
        event.ParseFromString(record)
        if event.summary.value:
            tags[event.step] = [v.tag for v in event.summary.value]
    assert sorted(tags) == [10, 20, 30, 40]
    assert tags[40] == ["input_producer/fraction_of_32_full", "shuffle_batch/fraction_over_2000_of_150_full",
                        "tower_0/loss", "tower_1/loss", "learning_rate", "conv1/weights_1",
                        "conv1/biases_1", "conv2/weights_1", "conv2/biases_1", "local3/weights_1", "local3/biases_1",
                        "softmax_linear/weights_1", "softmax_linear/biases_1"]
    assert {"checkpoint", "model.ckpt-20.index", "model.ckpt-40.index", "model.ckpt-40.meta"} <= set(files)
    with open(os.path.join(out, "checkpoint")) as f:
        assert f.readline() == 'model_checkpoint_path: "%s"\n' % os.path.join(out, "model.ckpt-40")

    # Started again on the same directory, it continues from the latest checkpoint.
    text = _fashion_mnist(*(common + ["--max_steps", "50", "--noeval"]))
    lines = text.splitlines()
    assert lines[0] == "restored %s" % os.path.join(out, "model.ckpt-40")
    assert lines[1].endswith("; from step 40 to 50")
    assert step_re.match(lines[2]).group(1) == "50"
    assert lines[3].startswith("trained 10 steps in ")
def test_matpow_times_one_device_and_two_and_they_agree():
    out = _run("matpow.py", "--cpu", "--size", "64", "--log")
    for i in (0, 1):
        assert ": (MatMul): %sCPU:%d" % (DEV, i) in out
    assert "AddN_1: (AddN): %sCPU:0" % DEV in out
    lines = out.rstrip().split("\n")
    assert re.match(r"^Single GPU computation time: \d+:\d\d:\d\d(\.\d+)?$", lines[-3])
    assert re.match(r"^Multi GPU computation time: \d+:\d\d:\d\d(\.\d+)?$", lines[-2])
    assert lines[-1] == "Both runs give the same A^n + B^n: True"


def _cluster_spec(n_workers):
    import socket
    socks = [socket.socket() for _ in range(n_workers + 1)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        ports = [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()
    return "ps=localhost:%d;worker=%s" % (ports[0], ",".join("localhost:%d" % p for p in ports[1:]))


def _fashion_mnist_cluster(tmp_path, data, out, mode):
    """1 ps + 2 workers of examples/python/fashion_mnist.py --cluster, to global step 30: the
    workers' outputs (the chief's first). The ps is killed at the end, as a ps is. A worker
    that finds the model not ready yet polls every 30 s (TF's wait), hence the time allowed."""
    import signal
    spec = _cluster_spec(2)
    prog = [sys.executable, os.path.join(EXAMPLES, "fashion_mnist.py"), "--cluster", spec]
    common = ["--data", data, "--out", out, "--batch_size", "25", "--max_steps", "30", "--log_every", "10",
              "--seed", "4"] + mode
    procs = []
    try:
        procs.append(subprocess.Popen(prog + ["--job", "ps", "--out", str(tmp_path / "ps")],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for task, extra in ((0, ["--save_every", "10", "--summary_every", "10"]), (1, [])):
            procs.append(subprocess.Popen(prog + ["--job", "worker", "--task", str(task)] + common + extra,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        outs = []
        for p in procs[1:]:
            stdout, stderr = p.communicate(timeout=300)
            assert p.returncode == 0, stdout + stderr
            outs.append(stdout)
        return outs
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def _check_cluster_run(outs, out, mode_name, last, min_precision):
    w0, w1 = (o.splitlines() for o in outs)
    assert w0[0].startswith("/job:worker/task:0 listening on grpc://localhost:")
    assert "worker 0 of 2 (%s), 25 examples per step each; to step 30" % mode_name in w0
    assert "worker 1 of 2 (%s), 25 examples per step each; to step 30" % mode_name in w1
    end = [re.match(r"^worker 0: ran \d+ steps in [\d.]+ s \([\d.]+ examples/sec\), global step (\d+)$", line)
           for line in w0]
    ends = [m for m in end if m]
    assert len(ends) == 1, w0
    step = int(ends[0].group(1))
    assert last[0] <= step <= last[1], w0
    assert re.search(r"^worker 1: ran \d+ steps in [\d.]+ s \([\d.]+ examples/sec\), global step \d+$",
                     outs[1], re.M), w1
    with open(os.path.join(out, "checkpoint")) as f:
        assert re.match(r'^model_checkpoint_path: "(%s/)?model.ckpt-%d"$' % (re.escape(out), step), f.readline())
    acc = re.search(r"precision @ 1 = (\d\.\d{4}) \(\d+ of 600 test images, moving averages of %s\)$"
                    % re.escape(os.path.join(out, "model.ckpt-%d" % step)), outs[0], re.M)
    assert acc, w0
    assert float(acc.group(1)) > min_precision  # chance is 0.1
    assert [f for f in os.listdir(out) if f.startswith("events.out.tfevents.")]
    assert not re.search("precision @ 1", outs[1])  # only the chief evaluates


def test_fashion_mnist_cluster_trains_sync_and_async(tmp_path):
    """Seed 004's program as one ps and two worker processes, synchronous (both workers end at
    global step 30) and asynchronous (the chief stops at the first step it sees at or past 30;
    the other worker may have passed it by a step or two)."""
    data = _fashion_mnist_data(tmp_path)
    out = str(tmp_path / "sync")
    _check_cluster_run(_fashion_mnist_cluster(tmp_path, data, out, ["--sync"]), out, "synchronous", (30, 30), 0.3)
    # Asynchronous: how the 30 steps split between the workers, and so how stale their gradients
    # are, depends on the machine's load (a slow chief may run 8 of them); 0.15 (90 of 600) is
    # still four standard deviations above chance.
    out = str(tmp_path / "async")
    _check_cluster_run(_fashion_mnist_cluster(tmp_path, data, out, []), out, "asynchronous", (30, 32), 0.15)
