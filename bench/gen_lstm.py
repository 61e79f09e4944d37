#!/usr/bin/env python3
"""Writes bench/lstm.pb, the graph bench_lstm times: tf.compat.v1.nn.dynamic_rnn over an
LSTMCell(128) on x [32, 50, 128] (batch 32, 50 time steps), built by TensorFlow 2.x in
tf.compat.v1 graph mode with the control flow TF writes by default there (v2: a StatelessWhile
over library functions carrying TensorLists; the script records which in the graph's "cf"
node). Nodes the benchmark uses:

  x        Placeholder float [32, 50, 128]     y   Placeholder float [32, 50, 128]
  outputs  Identity of dynamic_rnn's outputs   loss  mean((outputs - y)^2)
  train    GradientDescentOptimizer(0.01).minimize(loss)
  init     initializes the variables (seeded RandomUniform, so the graph stays small)

Regenerate with python3 bench/gen_lstm.py (needs TensorFlow 2.x; with Keras 3 the
tf.compat.v1 cells need tf_keras, selected here with TF_USE_LEGACY_KERAS=1).
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import control_flow_util  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

BATCH, STEPS, FEATURES, UNITS = 32, 50, 128, 128


def main():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [BATCH, STEPS, FEATURES], name="x")
        y = tf1.placeholder(tf.float32, [BATCH, STEPS, UNITS], name="y")
        cell = tf1.nn.rnn_cell.LSTMCell(UNITS, initializer=tf1.random_uniform_initializer(-0.1, 0.1, seed=1))
        outputs, _ = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        outputs = tf.identity(outputs, name="outputs")
        loss = tf.reduce_mean(tf.square(outputs - y), name="loss")
        tf1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
        tf.group(*[v.initializer for v in tf1.global_variables()], name="init")
        v2 = control_flow_util.ENABLE_CONTROL_FLOW_V2
        tf.constant("v2" if v2 else "v1", name="cf")
    gd = g.as_graph_def()
    ops = {n.op for n in gd.node}
    assert ("StatelessWhile" in ops or "While" in ops) == v2, sorted(ops)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lstm.pb")
    with open(out, "wb") as f:
        f.write(gd.SerializeToString(deterministic=True))
    print("wrote %s (control flow %s, %d nodes, %d functions)" %
          (out, "v2" if v2 else "v1", len(gd.node), len(gd.library.function)))


if __name__ == "__main__":
    main()
