#!/usr/bin/env python3
"""The GraphDef of bench/while_loop.c, written by real TensorFlow: a scalar counting loop

    n = placeholder(int32, [])          # the trip count, fed
    out = while_loop(lambda i: i < n, lambda i: i + 1, [0], parallel_iterations=10)

in tf.compat.v1 graph mode with control flow v2 disabled (Enter, Merge, Less, LoopCond,
Switch, Identity, Add, NextIteration, Exit). Regenerate with:

    python3 bench/gen_while_loop.py

The same file, given `--time PB N THREADS`, is the benchmark's TensorFlow peer: it runs the
GraphDef in a tf.compat.v1 Session with THREADS inter-op and intra-op threads and prints the
median seconds of one run with n = N (building tfc never needs Python).
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_control_flow_v2()


def generate(path):
    g = tf.Graph()
    with g.as_default():
        n = tf1.placeholder(tf.int32, [], name="n")
        out = tf1.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)], parallel_iterations=10,
                             name="loop")
        tf.identity(out, name="out")
    with open(path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())


def time_peer(path, n, threads):
    gd = tf1.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(gd, name="")
    cfg = tf1.ConfigProto(inter_op_parallelism_threads=threads, intra_op_parallelism_threads=threads)
    with tf1.Session(graph=g, config=cfg) as sess:
        assert sess.run("out:0", {"n:0": n}) == n
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            sess.run("out:0", {"n:0": n})
            runs.append(time.perf_counter() - t)
    runs.sort()
    print(runs[len(runs) // 2])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--time":
        time_peer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        generate(os.path.join(os.path.dirname(os.path.abspath(__file__)), "while_loop.pb"))
