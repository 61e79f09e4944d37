#!/usr/bin/env python3
"""Seed 004's Python program (examples/python/fashion_mnist.py) under PyPI's TensorFlow: the
program's text with its one import line switched back to `import tensorflow.compat.v1 as tf`
(graph mode), run with this script's arguments. bench_cluster starts it as every task of a
cluster under `tfc cluster`, the peer of tfc running the very same program.

  python3 bench/cluster_tf.py [the program's flags...]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "..", "examples", "python", "fashion_mnist.py")
TFC_IMPORT = "import tfc.compat.v1 as tf"


def run():
    with open(PROGRAM) as f:
        src = f.read()
    if TFC_IMPORT not in src:
        sys.exit("cluster_tf.py: %s has no line '%s' to switch" % (PROGRAM, TFC_IMPORT))
    src = src.replace(TFC_IMPORT, "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()", 1)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.argv[0] = PROGRAM
    # In this module's own namespace: tf.app.run() calls __main__'s main, the program's.
    g = sys.modules["__main__"].__dict__
    g["__file__"] = PROGRAM
    exec(compile(src, PROGRAM, "exec"), g)


if __name__ == "__main__":
    run()
