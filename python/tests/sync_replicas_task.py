"""One task of test_sync_replicas.py's cluster, as a process of its own (between-graph
replication): python3 sync_replicas_task.py CLUSTER_JSON JOB TASK TO_AGGREGATE TOTAL LAST_STEP.

A ps (and a JOB "worker:serve") serves until its stdin closes. A worker builds the model under replica_device_setter
(global_step, w = [1, 2], b = 0.5 on the ps; loss = reduce_sum(w * [3, 4]) + b, whose gradients
do not depend on the weights, so the values after N steps are the same whatever the schedule:
w = [1 - 0.3 N, 2 - 0.4 N], b = 0.5 - 0.1 N), trains with SyncReplicasOptimizer over
GradientDescent(0.1) in a MonitoredTrainingSession until StopAtStepHook stops it, and prints
"ready" once its session exists, then one JSON line {"steps", "global_step", "w", "b"}.
A worker other than the chief starts its server at once (every task of the cluster must be up
for any session to be created) but its session only when a line comes on stdin: the test
sends it once the chief's session has made the model ready (a worker that finds it not ready
polls only every 30 s, as TF's).
"""
import json
import sys

import tfc.compat.v1 as tf


class _Ready(tf.train.SessionRunHook):
    def after_create_session(self, session, coord):
        sys.stdout.write("ready\n")
        sys.stdout.flush()


def main(argv):
    spec, job, task = json.loads(argv[1]), argv[2], int(argv[3])
    to_aggregate, total, last_step = int(argv[4]), int(argv[5]), int(argv[6])
    serve_only = job.endswith(":serve")  # a task that never trains
    job = job.split(":")[0]
    cluster = tf.train.ClusterSpec(spec)
    server = tf.train.Server(cluster, job_name=job, task_index=task)
    if job == "ps" or serve_only:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        sys.stdin.read()
        return
    is_chief = task == 0
    if not is_chief:
        sys.stdout.write("serving\n")
        sys.stdout.flush()
        sys.stdin.readline()
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task, cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable([1.0, 2.0], name="w")
        b = tf.Variable(0.5, name="b")
        loss = tf.reduce_sum(w * tf.constant([3.0, 4.0])) + b
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=to_aggregate, total_num_replicas=total)
        train_op = opt.minimize(loss, global_step=gs)
    final = tf.train.FinalOpsHook([gs, w, b])
    hooks = [opt.make_session_run_hook(is_chief), tf.train.StopAtStepHook(last_step=last_step), _Ready(), final]
    steps = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks,
                                           save_checkpoint_secs=None, save_summaries_steps=None,
                                           log_step_count_steps=None, max_wait_secs=60) as sess:
        while not sess.should_stop() and steps < 1000:
            sess.run(train_op)
            steps += 1
    step, wv, bv = final.final_ops_values
    print(json.dumps({"steps": steps, "global_step": int(step), "w": [float(v) for v in wv], "b": float(bv)}))
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv)
