#!/usr/bin/env python3
"""Training examples per second of seed 004's CNN driven from Python (28x28x1 inputs: conv
5x5x32 + ReLU + max-pool 2, conv 5x5x64 + ReLU + max-pool 2, fc 1024 + ReLU, fc 10, softmax
cross-entropy, SGD, batch 100; one step = sess.run([train, loss], feed_dict) with numpy batches
fed) against the same GraphDef (tf.train.write_graph's as_graph_def()) driven from C by bench_cnn_graph
(one TF_SessionRun per step, the same batches fed), in the same invocation, and the ratio
(target: Python within 3% of C); then against TensorFlow's tf.compat.v1 running the same Python
program, when it is installed (pip install tensorflow-cpu).

  PYTHONPATH=build/python python3 bench/cnn_python.py [--steps N] [--repeats R] [--c-driver PATH]

Each figure is the median over R repeats of N steps, after warm-up steps, in examples per second
of wall time and per second of the process's CPU time (all its threads: on a loaded machine the
steadier measure of the work a step costs); the Python and C repeats alternate (bench_cnn_graph
runs in a process of its own, kept warm, and runs a repeat when asked), so both see the same
load on a shared machine. The batches are the first Fashion-MNIST
training images (Debian's dataset-fashion-mnist) when installed, else uniform noise.
tfc is imported first and binds its extension to libtfc (RTLD_DEEPBIND), so it and TensorFlow
coexist.
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

IDX_DIR = "/usr/share/datasets/fashion-mnist"
BATCHES = 8


def build(tf, batch):
    """Seed 004's network and its SGD step in a fresh graph; ops named x, y, loss, train, init."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(4)
        x = tf.placeholder(tf.float32, [batch, 28, 28, 1], name="x")
        y = tf.placeholder(tf.int64, [batch], name="y")

        def layer(name, shape):
            with tf.variable_scope(name):
                w = tf.get_variable("weights", shape, initializer=tf.truncated_normal_initializer(stddev=0.1))
                b = tf.get_variable("biases", shape[-1:], initializer=tf.constant_initializer(0.1))
            return w, b

        def conv_pool(name, h, shape):
            w, b = layer(name, shape)
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], padding="SAME"), b))
            return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

        h = conv_pool("conv1", x, [5, 5, 1, 32])
        h = conv_pool("conv2", h, [5, 5, 32, 64])
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        w, b = layer("local3", [7 * 7 * 64, 1024])
        h = tf.nn.relu(tf.matmul(h, w) + b)
        w, b = layer("softmax_linear", [1024, 10])
        logits = tf.matmul(h, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
        init = tf.global_variables_initializer()
        assert init.name == "init"
    return g, x, y, loss, train, init


def build_empty(tf, batch):
    """The benchmark's run shape with no network: the same feeds (x, y), a fetched loss and a
    target train, ops named as build() names them; what a step costs outside the network."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [batch, 28, 28, 1], name="x")
        y = tf.placeholder(tf.int64, [batch], name="y")
        loss = tf.identity(tf.constant(0.0), name="loss")
        train = tf.group(tf.identity(x), tf.identity(y), name="train")
        init = tf.group(name="init")
    return g, x, y, loss, train, init


def batches(batch):
    """BATCHES batches: (images [n, batch, 28, 28, 1] float32 in [0, 1], labels [n, batch] int64)."""
    n = BATCHES * batch
    try:
        with gzip.open(os.path.join(IDX_DIR, "train-images-idx3-ubyte.gz")) as f:
            raw = f.read(16 + n * 784)[16:]
        with gzip.open(os.path.join(IDX_DIR, "train-labels-idx1-ubyte.gz")) as f:
            lab = f.read(8 + n)[8:]
        images = np.frombuffer(raw, np.uint8).astype(np.float32) / 255
        labels = np.frombuffer(lab, np.uint8).astype(np.int64)
        source = "Fashion-MNIST"
    except OSError:
        rng = np.random.RandomState(4)
        images = rng.uniform(0, 1, n * 784).astype(np.float32)
        labels = rng.randint(0, 10, n).astype(np.int64)
        source = "noise (no %s)" % IDX_DIR
    return images.reshape(BATCHES, batch, 28, 28, 1), labels.reshape(BATCHES, batch), source


class PythonTrainer(object):
    """One framework's session over the graph, initialized and warmed up; timed() runs a repeat."""

    def __init__(self, tf, batch, data, steps, warmup, build=build):
        self.graph, x, y, loss, train, init = build(tf, batch)
        self.feeds = [{x: data[0][i], y: data[1][i]} for i in range(BATCHES)]
        self.fetches = [train, loss]
        self.sess = tf.Session(graph=self.graph)
        self.sess.run(init)
        self.batch, self.steps, self.k = batch, steps, 0
        self.first = self.sess.run(self.fetches, self.feeds[0])[1]
        self.k = 1
        self.rates, self.cpu_rates = [], []
        self.run(warmup)

    def run(self, steps):
        run, fetches, feeds, k = self.sess.run, self.fetches, self.feeds, self.k
        for _ in range(steps):
            loss = run(fetches, feeds[k % BATCHES])[1]
            k += 1
        self.k = k
        self.last = loss

    def timed(self):
        t0, c0 = time.perf_counter(), time.process_time()
        self.run(self.steps)
        self.rates.append(self.steps * self.batch / (time.perf_counter() - t0))
        self.cpu_rates.append(self.steps * self.batch / (time.process_time() - c0))


class CTrainer(object):
    """bench_cnn_graph over the exported GraphDef, one process kept warm: each timed() asks it
    for one repeat (a line on its stdin) and reads the figures it prints."""

    def __init__(self, driver, tf, graph, data, batch, steps, warmup, tmp):
        self.graph = tf.train.write_graph(graph, tmp, "graph.pb", as_text=False)  # its as_graph_def()
        self.data = os.path.join(tmp, "batches.bin")
        with open(self.data, "wb") as f:
            f.write(np.ascontiguousarray(data[0]).tobytes() + np.ascontiguousarray(data[1]).tobytes())
        self.cmd = [driver, self.graph, self.data, str(batch), str(steps), "0", str(warmup)]
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.first = float(self._line("loss").split()[1])
        self.rates, self.cpu_rates = [], []

    def _line(self, what):
        line = self.proc.stdout.readline()
        if not line.startswith(what):
            self.close()
            raise SystemExit("%s failed (status %s; its error is above)" % (" ".join(self.cmd), self.proc.returncode))
        return line

    def timed(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        words = self._line("examples/s").split()  # examples/s R per-cpu-second C loss L
        self.rates.append(float(words[1]))
        self.cpu_rates.append(float(words[3]))
        self.last = float(words[5])

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=100)  # the seed's batch (bench_cnn)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--c-driver", help="bench_cnn_graph (default: beside the tfc package, in its build tree)")
    ap.add_argument("--no-tensorflow", action="store_true", help="skip the TensorFlow comparison")
    a = ap.parse_args()
    import tfc
    import tfc.compat.v1 as tfc_v1
    driver = a.c_driver or os.path.normpath(os.path.join(os.path.dirname(tfc.__file__), "..", "..",
                                                         "bench_cnn_graph"))
    if not os.access(driver, os.X_OK):
        raise SystemExit("no C driver at %s (build the target bench_cnn_graph, or pass --c-driver)" % driver)
    import peers  # bench/peers.py, beside this file
    # Both sides' sessions use their default thread counts.
    peers.print_block({} if a.no_tensorflow else {"tensorflow": (None, None)}, tfc=(0, 0))
    data = batches(a.batch)
    print("seed 004's CNN, batch %d, SGD, %d steps x %d repeats (median), batches of %s; %d cores"
          % (a.batch, a.steps, a.repeats, data[2], os.cpu_count()))
    ours = PythonTrainer(tfc_v1, a.batch, data, a.steps, a.warmup)
    with tempfile.TemporaryDirectory() as tmp:
        c = CTrainer(driver, tfc_v1, ours.graph, data, a.batch, a.steps, a.warmup, tmp)
        try:
            for _ in range(a.repeats):  # alternate, so that both see the same load
                ours.timed()
                c.timed()
        finally:
            c.close()
    py, cc = statistics.median(ours.rates), statistics.median(c.rates)
    pyc, ccc = statistics.median(ours.cpu_rates), statistics.median(c.cpu_rates)
    print("tfc from Python: %9.1f examples/s, %9.1f per CPU-second (loss %.3f -> %.3f)"
          % (py, pyc, ours.first, ours.last))
    print("tfc from C:      %9.1f examples/s, %9.1f per CPU-second (loss %.3f -> %.3f; the same GraphDef)"
          % (cc, ccc, c.first, c.last))
    print("ratio Python/C: %.3f (%+.1f%%) in examples/s, %.3f (%+.1f%%) per CPU-second; target: within 3%%"
          % (py / cc, 100 * (py / cc - 1), pyc / ccc, 100 * (pyc / ccc - 1)))
    ours.sess.close()

    # What a step costs outside the network, from each side: the same feeds and fetches on a
    # graph without the network (many steps, the fastest repeat: the least disturbed).
    n = 2000
    ours = PythonTrainer(tfc_v1, a.batch, data, n, 200, build=build_empty)
    with tempfile.TemporaryDirectory() as tmp:
        c = CTrainer(driver, tfc_v1, ours.graph, data, a.batch, n, 200, tmp)
        try:
            for _ in range(5):
                ours.timed()
                c.timed()
        finally:
            c.close()
    ours.sess.close()
    py_us, c_us = 1e6 * a.batch / max(ours.rates), 1e6 * a.batch / max(c.rates)
    step_us = 1e6 * a.batch / cc
    print("a step without the network: %.1f us from Python, %.1f us from C: Python adds %.1f us, %.3f%% of a "
          "step of the network from C (%.0f us)" % (py_us, c_us, py_us - c_us, 100 * (py_us - c_us) / step_us,
                                                   step_us))
    if a.no_tensorflow:
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        print("tensorflow not installed: no TensorFlow figure")
        return
    tf.get_logger().setLevel("ERROR")
    tf.disable_v2_behavior()
    theirs = PythonTrainer(tf, a.batch, data, a.steps, a.warmup)
    ours = PythonTrainer(tfc_v1, a.batch, data, a.steps, a.warmup)
    for _ in range(a.repeats):
        ours.timed()
        theirs.timed()
    t, r = statistics.median(ours.rates), statistics.median(theirs.rates)
    tc, rc = statistics.median(ours.cpu_rates), statistics.median(theirs.cpu_rates)
    print("TensorFlow %s, the same program: %9.1f examples/s, %9.1f per CPU-second (loss %.3f -> %.3f)"
          % (tf.__version__ if hasattr(tf, "__version__") else "compat.v1", r, rc, theirs.first, theirs.last))
    print("tfc from Python, alongside it:   %9.1f examples/s, %9.1f per CPU-second" % (t, tc))
    print("ratio tfc/TensorFlow from Python: %.2f in examples/s, %.2f per CPU-second" % (t / r, tc / rc))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
