#!/usr/bin/env python3
"""Training steps per second of seed 003's MLP driven from Python (x [batch,32] -> tanh 16 ->
tanh 8, sum-of-squares cost, Adam; one step = sess.run(train, feed_dict) with the batch fed):
tfc (import tfc.compat.v1) against TensorFlow's tf.compat.v1 in the same invocation, and the
ratio. TensorFlow is optional (pip install tensorflow-cpu).

  PYTHONPATH=build/python python3 bench/mlp_python.py [--batch B] [--steps N] [--repeats R]

Each figure is the median over R repeats of N steps (TensorFlow: N/5), after a warm-up repeat;
the two frameworks' repeats alternate, so both see the same load. Both train the same graph,
built by the same program text, on the same data. tfc is imported first and
binds its extension to libtfc (RTLD_DEEPBIND), so the two coexist.
"""
import argparse
import os
import statistics
import time

import numpy as np


def build(tf):
    """The seed program's graph (examples/python/mlp.py) in a fresh graph."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(20261121)
        x = tf.placeholder(tf.float32, [None, 32], name="x")
        y = tf.placeholder(tf.float32, [None, 8], name="y")
        w1 = tf.Variable(tf.truncated_normal([32, 16], stddev=0.1), name="w1")
        b1 = tf.Variable(tf.constant(0.0, shape=[16]), name="b1")
        w2 = tf.Variable(tf.truncated_normal([16, 8], stddev=0.1), name="w2")
        b2 = tf.Variable(tf.constant(0.0, shape=[8]), name="b2")
        a = tf.nn.tanh(tf.nn.bias_add(tf.matmul(x, w1), b1))
        y_out = tf.nn.tanh(tf.nn.bias_add(tf.matmul(a, w2), b2), name="y_out")
        cost = tf.reduce_sum(tf.square(y - y_out), name="cost")
        train = tf.train.AdamOptimizer(learning_rate=0.01).minimize(cost, name="train")
        init = tf.initialize_variables(tf.all_variables(), name="init_all_vars_op")
    return g, x, y, cost, train, init


class Trainer(object):
    """One framework's session over the seed graph, initialized and warmed up."""

    def __init__(self, tf, batch, steps):
        g, x, y, self.cost, self.train, init = build(tf)
        rng = np.random.RandomState(0)
        self.feed = {x: rng.uniform(-1, 1, (batch, 32)).astype(np.float32),
                     y: rng.uniform(-1, 1, (batch, 8)).astype(np.float32)}
        self.sess = tf.Session(graph=g)
        self.sess.run(init)
        self.first = self.sess.run(self.cost, self.feed)
        self.steps = steps
        self.rates = []
        self.timed()

    def timed(self):
        run, train, feed = self.sess.run, self.train, self.feed
        t0 = time.perf_counter()
        for _ in range(self.steps):
            run(train, feed)
        self.rates.append(self.steps / (time.perf_counter() - t0))

    def finish(self):
        last = self.sess.run(self.cost, self.feed)
        self.sess.close()
        assert last < self.first, (self.first, last)
        return statistics.median(self.rates[1:]), self.first, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=100)  # the seed trainer's batch (mlp_train)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args()
    import tfc.compat.v1 as tfc
    import peers  # bench/peers.py, beside this file
    peers.print_block({"tensorflow": (None, None)}, tfc=(0, 0))  # both sessions' default threads
    ours = Trainer(tfc, a.batch, a.steps)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        tf = None
    theirs = None
    if tf is not None:
        tf.disable_eager_execution()
        tf.disable_resource_variables()
        theirs = Trainer(tf, a.batch, max(a.steps // 5, 200))
    # Alternate the two, so that both see the same load on a shared machine.
    for _ in range(a.repeats):
        ours.timed()
        if theirs is not None:
            theirs.timed()
    t, f0, f1 = ours.finish()
    print("tfc        MLP training, batch %d: %10.0f steps/s (cost %.2f -> %.2f)" % (a.batch, t, f0, f1))
    if theirs is None:
        print("tensorflow not installed: no ratio")
        return
    r, f0, f1 = theirs.finish()
    print("tensorflow MLP training, batch %d: %10.0f steps/s (cost %.2f -> %.2f)" % (a.batch, r, f0, f1))
    print("ratio: tfc trains %.1fx the steps per second" % (t / r))


if __name__ == "__main__":
    main()
