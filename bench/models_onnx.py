"""onnxruntime's side of bench_models: runs an ONNX model (from gen_models.py) on the same
input bench_models feeds (x[i] = sin(0.01 i), NHWC 224x224x3) and prints the median seconds
per run and the CPU seconds per run of this process.

Usage: python3 bench/models_onnx.py MODEL.onnx BATCH THREADS ROUNDS
"""
import sys
import time

import numpy as np
import onnxruntime as ort


def main(argv):
    path, batch, threads, rounds = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    n = batch * 224 * 224 * 3
    x = np.sin(0.01 * np.arange(n, dtype=np.float64)).astype(np.float32).reshape(batch, 224, 224, 3)
    name = sess.get_inputs()[0].name
    sess.run(None, {name: x})
    walls, cpus = [], []
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        sess.run(None, {name: x})
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    print(sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2])


if __name__ == "__main__":
    main(sys.argv)
