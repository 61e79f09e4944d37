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
