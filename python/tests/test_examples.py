"""The seeds' programs in examples/python/, run as programs (a fresh interpreter each, as a user
runs them) with their printed results checked: seed 000's towers, seed 001's in-graph
replication, seed 002's soft placement, seed 004's cluster programs and its Fashion-MNIST
training. (Seed 003's MLP is the ctest entry python_example_mlp.)"""
import os
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python")
DEV = "/job:localhost/replica:0/task:0/device:"


def _run(name):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
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
