#!/usr/bin/env python3
"""Training steps per second of tf.nn.dynamic_rnn over an LSTM cell driven from Python
(x [batch, steps, features] -> LSTMCell(units) -> mean squared error against y, gradient
descent; one step = sess.run(train, feed_dict) with the batch fed): tfc (import
tfc.compat.v1) against TensorFlow's tf.compat.v1 in the same invocation, and the ratio.
TensorFlow is optional (pip install tensorflow-cpu; with Keras 3 its TF 1.x cells need
tf_keras, selected here with TF_USE_LEGACY_KERAS=1); without it only tfc's figure is printed.

  PYTHONPATH=build/python python3 bench/rnn_python.py [--batch B] [--steps T] [--units U]
                                                       [--iters N] [--repeats R]

Both frameworks build the graph from the same program text (TF 1.x control flow: TensorFlow
runs with control flow v2 disabled, as TF 1.15 builds it), train on the same data from the
same initial weights (assigned after initialization), and alternate their repeats so both see
the same load. Each figure is the median over R repeats of N steps, after a warm-up repeat;
the losses printed are the first and last of tfc's and TensorFlow's runs (they agree to float
rounding at the start).
"""
import argparse
import os
import statistics
import time

import numpy as np


def build(tf, batch, steps, features, units):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [batch, steps, features], name="x")
        y = tf.placeholder(tf.float32, [batch, steps, units], name="y")
        cell = tf.nn.rnn_cell.LSTMCell(units)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(outputs - y), name="loss")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        init = tf.global_variables_initializer()
        assigns = []
        for i, v in enumerate(tf.trainable_variables()):
            shp = v.shape.as_list()
            val = (np.sin(np.arange(int(np.prod(shp))) + i) * 0.1).reshape(shp).astype(np.float32)
            assigns.append(tf.assign(v, val))
    return g, x, y, loss, train, init, assigns


class Trainer(object):
    def __init__(self, tf, a):
        g, x, y, self.loss, self.train, init, assigns = build(tf, a.batch, a.steps, a.features, a.units)
        rng = np.random.RandomState(0)
        self.feed = {x: rng.uniform(-1, 1, (a.batch, a.steps, a.features)).astype(np.float32),
                     y: rng.uniform(-0.5, 0.5, (a.batch, a.steps, a.units)).astype(np.float32)}
        self.sess = tf.Session(graph=g)
        self.sess.run(init)
        self.sess.run(assigns)
        self.first = self.sess.run(self.loss, self.feed)
        self.iters = a.iters
        self.rates = []
        self.timed()

    def timed(self):
        run, train, feed = self.sess.run, self.train, self.feed
        t0 = time.perf_counter()
        for _ in range(self.iters):
            run(train, feed)
        self.rates.append(self.iters / (time.perf_counter() - t0))

    def finish(self):
        last = self.sess.run(self.loss, self.feed)
        self.sess.close()
        assert last < self.first, (self.first, last)
        return statistics.median(self.rates[1:]), self.first, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--features", type=int, default=32)
    ap.add_argument("--units", type=int, default=64)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    import tfc.compat.v1 as tfc
    import peers  # bench/peers.py, beside this file
    peers.print_block({"tensorflow": (None, None)}, tfc=(0, 0))  # both sessions' default threads
    ours = Trainer(tfc, a)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    try:
        import tensorflow.compat.v1 as tf
        tf.nn.rnn_cell.LSTMCell  # noqa: B018 (Keras 3 without tf_keras: no TF 1.x cells)
    except (ImportError, AttributeError):
        tf = None
    theirs = None
    if tf is not None:
        tf.disable_eager_execution()
        tf.disable_resource_variables()
        tf.disable_control_flow_v2()
        theirs = Trainer(tf, a)
    for _ in range(a.repeats):
        ours.timed()
        if theirs is not None:
            theirs.timed()
    shape = "batch %d, %d steps, %d->%d" % (a.batch, a.steps, a.features, a.units)
    t, f0, f1 = ours.finish()
    print("tfc        dynamic_rnn LSTM training (%s): %8.1f steps/s (loss %.4f -> %.4f)" % (shape, t, f0, f1))
    if theirs is None:
        print("tensorflow (with tf_keras) not installed: no ratio")
        return
    r, g0, g1 = theirs.finish()
    print("tensorflow dynamic_rnn LSTM training (%s): %8.1f steps/s (loss %.4f -> %.4f)" % (shape, r, g0, g1))
    print("ratio: tfc trains %.2fx the steps per second" % (t / r))


if __name__ == "__main__":
    main()
