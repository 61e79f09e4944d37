#!/usr/bin/env python3
"""µs per sess.run from Python of a one-node graph (a Placeholder fed, its Identity fetched) with
one feed and one fetch: tfc (import tfc.compat.v1) against TensorFlow's tf.compat.v1.Session.run
in the same invocation, and the ratio. TensorFlow is optional (pip install tensorflow-cpu).
Then a 64 MiB fetch: a run that fills 64 MiB and fetches it, against the same run fetching only
an element of it (the difference is what the fetch costs) and against a memcpy of 64 MiB in
numpy; the fetched array must wrap the runtime's buffer (no copy). Last, two Python threads
each running a session of its own (a chain of matmuls on one intra-op thread): their combined
runs/s against one thread's, which is the number of cores they use at once (the GIL is released
during runs; at most min(2, cores)).

  PYTHONPATH=build/python python3 bench/python_run.py [--runs N] [--repeats R]

Each figure is the median over R repeats of N runs (after a warm-up of N runs).
tfc is imported first and binds its extension to libtfc (RTLD_DEEPBIND), so the two coexist.
"""
import argparse
import os
import statistics
import time

import numpy as np


def time_runs(run, runs, repeats):
    for _ in range(runs):
        run()
    per = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(runs):
            run()
        per.append((time.perf_counter() - t0) / runs * 1e6)
    return statistics.median(per)


def bench(tf, runs, repeats):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.identity(x)
    sess = tf.Session(graph=g)
    feed = np.float32(1.5)
    assert sess.run(y, {x: feed}) == 1.5
    us = time_runs(lambda: sess.run(y, {x: feed}), runs, repeats)
    sess.close()
    return us


def bench_big_fetch(tf, repeats):
    n = 16 << 20  # float32: 64 MiB
    g = tf.Graph()
    with g.as_default():
        big = tf.raw_ops.Fill(dims=tf.constant([n]), value=tf.constant(1.0))
        one = tf.raw_ops.Slice(input=big, begin=tf.constant([0]), size=tf.constant([1]))
    sess = tf.Session(graph=g)
    arr = sess.run(big)
    assert arr.nbytes == 64 << 20 and arr.base is not None and not arr.flags.owndata  # wraps, no copy
    del arr

    def ms(f):
        f()
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            f()
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts)
    fetch = ms(lambda: sess.run(big))
    slice_only = ms(lambda: sess.run(one))
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    copy = ms(lambda: np.copyto(dst, src))
    sess.close()
    return fetch, slice_only, copy


def bench_two_threads(tf, repeats):
    import threading
    g = tf.Graph()
    with g.as_default():
        m = tf.constant(np.full((256, 256), 0.001, np.float32))
        y = m
        for _ in range(20):
            y = tf.matmul(y, m)
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    sessions = [tf.Session(graph=g, config=config) for _ in range(2)]
    for s in sessions:
        s.run(y)
    runs = 20

    def loop(s):
        for _ in range(runs):
            s.run(y)

    def timed(n):
        ts = []
        for _ in range(repeats):
            threads = [threading.Thread(target=loop, args=(sessions[i],)) for i in range(n)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            ts.append(n * runs / (time.perf_counter() - t0))
        return statistics.median(ts)
    one, two = timed(1), timed(2)
    for s in sessions:
        s.close()
    return one, two


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args()
    import tfc.compat.v1 as tfc
    import peers  # bench/peers.py, beside this file
    peers.print_block({"tensorflow": (None, None)}, tfc=(0, 0))  # both sessions' default threads
    t = bench(tfc, a.runs, a.repeats)
    print("tfc        sess.run, 1 feed + 1 fetch: %8.2f us" % t)
    fetch, slice_only, copy = bench_big_fetch(tfc, a.repeats)
    print("tfc        fill 64 MiB and fetch it: %.2f ms; fill and fetch one element: %.2f ms; the fetch: %.2f ms "
          "(no copy), against memcpy of 64 MiB: %.2f ms" % (fetch, slice_only, fetch - slice_only, copy))
    one, two = bench_two_threads(tfc, a.repeats)
    print("tfc        two threads, two sessions: %.1f runs/s against one thread's %.1f: %.2f cores at once "
          "(%d on this machine)" % (two, one, two / one, os.cpu_count()))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        print("tensorflow not installed: no ratio")
        return
    tf.disable_eager_execution()
    r = bench(tf, max(a.runs // 10, 1000), a.repeats)
    print("tensorflow sess.run, 1 feed + 1 fetch: %8.2f us (%s)" % (r, tf.__version__ if hasattr(tf, "__version__")
                                                                     else "compat.v1"))
    print("ratio: tfc is %.1fx faster" % (r / t))


if __name__ == "__main__":
    main()
