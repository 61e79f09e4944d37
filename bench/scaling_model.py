#!/usr/bin/env python3
"""A model of synchronous between-graph training with parameter servers, fed with per-step costs
measured on one machine (bench_cluster prints them), predicting examples per second for N
workers on a network of B Gbit/s. docs/SCALING.md explains the model and its figures.

  python3 bench/scaling_model.py --compute-ms C --param-mb S [--batch 50] [--update-ms U]
                                 [--rpc-ms L] [--workers 8,64] [--gbit 10,25,100]

One step of one worker (tfc's executor runs it in three phases, as TF's does for this graph):
  pull    every parameter from the ps tasks (S bytes in one RecvTensor per variable),
  compute the forward and backward pass of its batch (C ms, measured in one process),
  push    its gradients into the accumulators on the ps tasks (S bytes),
then the chief's queue runner averages them and applies the update (U ms on the ps task holding
the most bytes) and hands out the next step's tokens (two RPC latencies L). Every link is full
duplex at B; a ps task holding a share f of the bytes sends N*f*S bytes in the pull phase and
receives as many in the push phase, while each worker moves S each way. Hence

  T_step = 2 * (max(S, N*f*S) / B + L) + C + f*U + 2*L
  examples/s = N * batch / T_step,  speedup = N * C / T_step  (against one process, batch / C)

With one ps task (f = 1, the main job's layout) the ps link carries everything; with the big
variables partitioned over P ps tasks on their own hosts (tf.fixed_size_partitioner), f = 1/P.
Latency, compute and update are taken as measured; bandwidth is the only thing varied.
"""
import argparse


def step_ms(n, gbit, compute_ms, param_mb, update_ms, rpc_ms, share):
    mb_per_ms = gbit * 1e9 / 8 / 1e6 / 1e3  # Gbit/s -> MB per ms
    link_mb = max(param_mb, n * share * param_mb)
    return 2 * (link_mb / mb_per_ms + rpc_ms) + compute_ms + share * update_ms + 2 * rpc_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compute-ms", type=float, required=True, help="one worker's forward+backward step")
    ap.add_argument("--param-mb", type=float, required=True, help="parameter bytes moved each way per step (MB)")
    ap.add_argument("--batch", type=int, default=50, help="examples per worker and step")
    ap.add_argument("--update-ms", type=float, default=0.0, help="the ps's average-and-apply for all variables")
    ap.add_argument("--rpc-ms", type=float, default=0.25, help="one RPC's fixed cost")
    ap.add_argument("--workers", default="8,64")
    ap.add_argument("--gbit", default="10,25,100")
    ap.add_argument("--ps", default="1,N", help="ps task counts (N: one per worker)")
    a = ap.parse_args()
    workers = [int(x) for x in a.workers.split(",")]
    gbits = [float(x) for x in a.gbit.split(",")]
    one = a.batch / a.compute_ms * 1e3
    print("model: compute %.1f ms, parameters %.1f MB each way, update %.1f ms, RPC %.2f ms, batch %d"
          % (a.compute_ms, a.param_mb, a.update_ms, a.rpc_ms, a.batch))
    print("one process (no ps, no network): %.0f examples/s; speedup below is against it" % one)
    print("%-8s %-8s %8s %12s %14s %9s" % ("workers", "ps", "Gbit/s", "step ms", "examples/s", "speedup"))
    for n in workers:
        for ps in a.ps.split(","):
            p = n if ps == "N" else int(ps)
            for g in gbits:
                t = step_ms(n, g, a.compute_ms, a.param_mb, a.update_ms, a.rpc_ms, 1.0 / p)
                print("%-8d %-8d %8g %12.1f %14.0f %8.1fx" % (n, p, g, t, n * a.batch / t * 1e3,
                                                            n * a.compute_ms / t))


if __name__ == "__main__":
    main()
