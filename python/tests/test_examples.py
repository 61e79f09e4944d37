"""The seeds' programs in examples/python/, run as programs (a fresh interpreter each, as a user
runs them) with their printed results checked: seed 000's towers, seed 001's in-graph
replication, seed 002's soft placement, seed 000's matpow benchmark. (Seed 003's MLP is the
ctest entry python_example_mlp.)"""
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


def test_matpow_times_one_device_and_two_and_they_agree():
    out = _run("matpow.py", "--cpu", "--size", "64", "--log")
    for i in (0, 1):
        assert ": (MatMul): %sCPU:%d" % (DEV, i) in out
    assert "AddN_1: (AddN): %sCPU:0" % DEV in out
    lines = out.rstrip().split("\n")
    assert re.match(r"^Single GPU computation time: \d+:\d\d:\d\d(\.\d+)?$", lines[-3])
    assert re.match(r"^Multi GPU computation time: \d+:\d\d:\d\d(\.\d+)?$", lines[-2])
    assert lines[-1] == "Both runs give the same A^n + B^n: True"
