#!/usr/bin/env python3
"""Where a training step's time goes: seed 004's CNN step (bench/cnn_python.py's graph, batch
100, SGD, numpy batches fed) traced with RunOptions.FULL_TRACE in tfc and, when it is installed,
in TensorFlow's tf.compat.v1 running the same Python program, in the same invocation and with the
same thread counts.

For each framework it prints the untraced step time (the median of --steps steps) and, from the
traced steps' RunMetadata.step_stats, per op type: the time its nodes ran per step (the sum of
each node's all_end_rel_micros, median over the traced steps), the count, and the share of the
step's busy time; then how busy the intra-op threads were: the busy time of all nodes against
wall time x threads (what is left is scheduling, feeds and fetches, and idle cores). With both
frameworks, the last table puts each op type's time side by side (TensorFlow / tfc: above 1,
tfc is faster there), TensorFlow's oneDNN rewrites (_MklNativeConv2DBackpropInput, ...) under
the op they stand for. Node times are what each runtime's executor records around a kernel, so
they include the kernel's own allocation and, for tfc, the layout reorders a oneDNN kernel does
inside it; the per-node lines (--nodes N) name the slowest nodes.

  PYTHONPATH=build/python python3 bench/step_profile.py [--threads T] [--steps N] [--traced K]
                                                        [--batch B] [--nodes N]

Tracing costs a little per node; the untraced step time is the figure to compare with
bench_cnn. tfc is imported first and binds its extension to libtfc (RTLD_DEEPBIND), so it and
TensorFlow coexist in one process.
"""
import argparse
import collections
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cnn_python  # noqa: E402  (the benchmark's graph and batches)


def op_of(ns):
    """The op type in a node's timeline label, "name = Op(inputs)" in both runtimes."""
    label = ns.timeline_label
    if " = " in label:
        return label.split(" = ", 1)[1].split("(", 1)[0]
    return ns.node_name


def profile(tf, name, args, data):
    """Untraced and traced steps of one framework; returns {op type: median micros per step}."""
    graph, x, y, loss, train, init = cnn_python.build(tf, args.batch)
    cfg = tf.ConfigProto(intra_op_parallelism_threads=args.threads, inter_op_parallelism_threads=args.threads)
    sess = tf.Session(graph=graph, config=cfg)
    sess.run(init)
    feeds = [{x: data[0][i], y: data[1][i]} for i in range(cnn_python.BATCHES)]
    for k in range(10):  # warm-up: plans, kernels' first calls, allocator arenas
        sess.run([train, loss], feeds[k % len(feeds)])
    times = []
    for k in range(args.steps):
        t0 = time.perf_counter()
        sess.run([train, loss], feeds[k % len(feeds)])
        times.append(time.perf_counter() - t0)
    step_ms = 1e3 * statistics.median(times)
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    per_type = collections.defaultdict(list)
    per_node = collections.defaultdict(list)
    busy, counts = [], {}
    for k in range(args.traced):
        md = tf.RunMetadata()
        sess.run([train, loss], feeds[k % len(feeds)], options=opts, run_metadata=md)
        by_type = collections.defaultdict(int)
        total = 0
        n = collections.Counter()
        for dev in md.step_stats.dev_stats:
            for ns in dev.node_stats:
                op = op_of(ns)
                us = ns.all_end_rel_micros
                by_type[op] += us
                per_node[(ns.node_name, op)].append(us)
                n[op] += 1
                total += us
        for op, us in by_type.items():
            per_type[op].append(us)
        counts = n
        busy.append(total)
    sess.close()
    med = {op: statistics.median(v) for op, v in per_type.items()}
    busy_ms = statistics.median(busy) / 1e3
    print("\n== %s: %.2f ms per untraced step (%.0f examples/s), %d threads" %
          (name, step_ms, args.batch / step_ms * 1e3, args.threads))
    print("   busy time of all nodes %.2f ms per traced step = %.0f%% of wall time x %d threads" %
          (busy_ms, 100 * busy_ms / (step_ms * args.threads), args.threads))
    print("   %-34s %9s %6s %6s" % ("op type", "ms/step", "share", "count"))
    for op, us in sorted(med.items(), key=lambda kv: -kv[1]):
        if us < 1:
            continue
        print("   %-34s %9.3f %5.1f%% %6d" % (op[:34], us / 1e3, 100 * us / max(1, sum(med.values())), counts.get(op, 0)))
    if args.nodes:
        print("   slowest nodes:")
        top = sorted(((statistics.median(v), k) for k, v in per_node.items()), reverse=True)[:args.nodes]
        for us, (node, op) in top:
            print("     %-60s %-22s %8.3f ms" % (node[:60], op[:22], us / 1e3))
    return med, step_ms


def common_name(op):
    """The op type both runtimes would call it: TensorFlow's oneDNN rewrites (_MklNative*, _Mkl*)
    under the op they stand for, the fused ops without their underscore, the resource forms of
    the Apply ops under the ref forms."""
    for prefix in ("_MklNative", "_Mkl", "_"):
        if op.startswith(prefix):
            op = op[len(prefix):]
            break
    return op[len("Resource"):] if op.startswith("ResourceApply") else op


def common_names(per_type):
    out = collections.defaultdict(float)
    for op, us in per_type.items():
        out[common_name(op)] += us
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--steps", type=int, default=50, help="untraced steps timed")
    ap.add_argument("--traced", type=int, default=10, help="traced steps")
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--nodes", type=int, default=12, help="slowest nodes listed (0: none)")
    args = ap.parse_args()
    data = cnn_python.batches(args.batch)
    print("seed 004's CNN training step, batch %d, data: %s" % (args.batch, data[2]))
    import tfc.compat.v1 as tfc_v1  # first: its extension binds to libtfc

    results = [("tfc",) + profile(tfc_v1, "tfc", args, data)]
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow.compat.v1 as tf_v1

        tf_v1.disable_eager_execution()
        results.append(("TensorFlow " + tf_v1.__version__,) + profile(tf_v1, "TensorFlow " + tf_v1.__version__, args,
                                                                      data))
    except ImportError as e:
        print("\nTensorFlow: n/a (%s)" % e)
    if len(results) == 2:
        (_, ours, ours_ms), (tf_name, theirs, theirs_ms) = [(n, common_names(m), ms) for n, m, ms in results]
        print("\n== side by side, ms per step (%s / tfc: above 1, tfc is faster)" % tf_name)
        print("   %-34s %9s %9s %7s" % ("op type", "tfc", "TF", "ratio"))
        for op in sorted(set(ours) | set(theirs), key=lambda o: -max(ours.get(o, 0), theirs.get(o, 0))):
            a, b = ours.get(op, 0) / 1e3, theirs.get(op, 0) / 1e3
            if max(a, b) < 0.05:
                continue
            print("   %-34s %9.3f %9.3f %7s" % (op[:34], a, b, "%.2f" % (b / a) if a > 0 else "-"))
        print("   %-34s %9.3f %9.3f %7.2f" % ("untraced step", ours_ms, theirs_ms, theirs_ms / ours_ms))


if __name__ == "__main__":
    main()
