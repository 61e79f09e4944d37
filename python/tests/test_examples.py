"""The seeds' programs in examples/python/, run as programs (a fresh interpreter each, as a user
runs them) with their printed results checked: seed 000's towers, seed 001's in-graph
replication, seed 002's soft placement. (Seed 003's MLP is the ctest entry python_example_mlp.)"""
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
