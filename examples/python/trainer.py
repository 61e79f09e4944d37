# Seed 004's example trainer (TensorFlow's distributed guide, "putting it all together") as TF 1.x
# Python, changed only in its import line: between-graph replication with a parameter server and
# two workers, the model placed by tf.train.replica_device_setter, asynchronous training under
# tf.train.MonitoredTrainingSession with a StopAtStepHook; the chief (worker 0) initializes the
# model on the ps and writes checkpoints, worker 1 waits for it and trains alongside.
#
#   python3 examples/python/trainer.py
#
# Run without flags, the script is the launcher and the chief: it picks free ports, starts the ps
# and worker 1 as child processes (this same script with --job_name/--task_index/--ps_hosts/
# --worker_hosts, as the guide runs every task), tells worker 1 to start training once its own
# monitored session has made the model ready (a worker finding it not ready polls every 30 s, as
# TF's), trains, and prints what both workers saw. A child's server ends when its stdin closes,
# which happens when the launcher ends in any way.
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile

import tfc.compat.v1 as tf  # was: import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "", "comma-separated list of hostname:port pairs")
flags.DEFINE_string("job_name", "", "one of 'ps', 'worker'")
flags.DEFINE_integer("task_index", 0, "index of task within the job")
flags.DEFINE_string("checkpoint_dir", "", "the chief's checkpoint directory")
FLAGS = flags.FLAGS

LAST_STEP = 2000
STARTUP_SECONDS = 60


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def build_model(cluster):
    """y = w * x + b fitted to y = 2x + 1; the variables on the ps, the rest on this worker."""
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        x = tf.constant([1.0, 2.0, 3.0, 4.0])
        y = tf.constant([3.0, 5.0, 7.0, 9.0])
        w = tf.Variable(0.0, name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(w * x + b - y))
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)
    return w, b, loss, global_step, train_op


def train(cluster, server, on_ready=None):
    """One worker's loop, as the guide writes it; returns (steps run, global step, w, b, loss)."""
    w, b, loss, global_step, train_op = build_model(cluster)

    class Ready(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            if on_ready:
                on_ready()

    hooks = [tf.train.StopAtStepHook(last_step=LAST_STEP), Ready()]
    steps = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(FLAGS.task_index == 0),
                                           checkpoint_dir=FLAGS.checkpoint_dir or None, hooks=hooks) as mon_sess:
        while not mon_sess.should_stop():
            mon_sess.run(train_op)
            steps += 1
        values = mon_sess._tf_sess().run([global_step, w, b, loss])
    return (steps,) + tuple(values)


class Task(object):
    """One task of the cluster in a child process (this script with --job_name)."""

    def __init__(self, args, wait_for=None):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)] + args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        if wait_for:
            ready, _, _ = select.select([self.proc.stdout], [], [], STARTUP_SECONDS)
            if not ready or self.proc.stdout.readline() != wait_for:
                self.stop()
                raise RuntimeError("task %s did not start" % " ".join(args))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def task_main():
    """A child task: the ps serves until its stdin closes; worker 1 trains and prints its result."""
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    if FLAGS.job_name == "ps":
        sys.stdin.read()
        os._exit(0)
    sys.stdin.readline()  # "go": the chief has made the model ready (else we would poll every 30 s)
    steps, gs, _, _, _ = train(cluster, server)
    sys.stdout.write("%d %d\n" % (steps, gs))
    sys.stdout.flush()
    sys.stdin.read()  # serve the chief until it is done
    os._exit(0)


def main(_):
    if FLAGS.job_name:
        task_main()
    ports = free_ports(3)
    ps_hosts = "localhost:%d" % ports[0]
    worker_hosts = "localhost:%d,localhost:%d" % (ports[1], ports[2])
    cluster = tf.train.ClusterSpec({"ps": ps_hosts.split(","), "worker": worker_hosts.split(",")})
    common = ["--ps_hosts=" + ps_hosts, "--worker_hosts=" + worker_hosts]
    FLAGS.checkpoint_dir = tempfile.mkdtemp(prefix="train_logs_")
    tasks = []
    try:
        server = tf.train.Server(cluster, job_name="worker", task_index=0)
        tasks.append(Task(common + ["--job_name=ps", "--task_index=0"], wait_for=b"ready\n"))
        tasks.append(Task(common + ["--job_name=worker", "--task_index=1"], wait_for=b"ready\n"))

        def start_worker_1():  # the chief's session has made the model ready: worker 1 may go
            if not tasks[1].proc.stdin.closed:
                tasks[1].proc.stdin.write(b"go\n")
                tasks[1].proc.stdin.flush()

        steps0, gs, w, b, loss = train(cluster, server, on_ready=start_worker_1)
        line = tasks[1].proc.stdout.readline().split()
        steps1, gs1 = int(line[0]), int(line[1])
        print("worker 0 (chief) and worker 1 trained asynchronously to global step %d" % LAST_STEP)
        print("both stopped at or after it: %s" % (gs >= LAST_STEP and gs1 >= LAST_STEP))
        print("both trained: %s" % (steps0 > 0 and steps1 > 0))
        print("w = %.2f, b = %.2f, loss = %.4f" % (w, b, loss))
        latest = tf.train.latest_checkpoint(FLAGS.checkpoint_dir)
        print("the chief's last checkpoint is at or after it: %s"
              % (latest is not None and int(latest.rsplit("-", 1)[1]) >= LAST_STEP))
    finally:
        for t in reversed(tasks):
            t.stop()
        shutil.rmtree(FLAGS.checkpoint_dir, ignore_errors=True)


if __name__ == "__main__":
    tf.app.run()
