# Seed 004's cluster programs (TensorFlow's distributed guide) as TF 1.x Python, changed only in
# their import line: (1) a one-task local server and a session on its target; (2) a cluster of
# two tasks of job "local" in two processes, a node placed on the other task, the placement log;
# (3) a parameter server holding a variable `v`, and two workers with graphs of their own that
# update it in turns (worker 0 adds 1, worker 1 adds 10). examples/distributed.c is the same
# program in C (its tasks are servers of one process).
#
#   python3 examples/python/distributed.py
#
# The other task of (2) and the ps of (3) are this same script run as a child process with
# --job_name/--task_index/--cluster: it starts its server, says "ready" on stdout and serves until
# its stdin closes, which happens when the parent ends in any way (Ctrl-C, an error, even
# SIGKILL), so no server outlives the program. The ports are picked free at run time.
import os
import select
import signal
import socket
import subprocess
import sys

import tfc.compat.v1 as tf  # was: import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("job_name", "", "run only this task's server (the child process): its job")
flags.DEFINE_integer("task_index", 0, "the child's task index in its job")
flags.DEFINE_string("cluster", "", "the child's cluster: job=host:port,host:port;job2=host:port")
FLAGS = flags.FLAGS

STARTUP_SECONDS = 60


def free_ports(n):
    """n TCP ports free right now on localhost (held open together, so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cluster_flag(spec):
    return ";".join("%s=%s" % (job, ",".join(spec[job])) for job in sorted(spec))


def parse_cluster_flag(text):
    spec = {}
    for part in text.split(";"):
        job, _, hosts = part.partition("=")
        if not job or not hosts:
            raise ValueError("--cluster=%r: expected job=host:port,...;job2=..." % text)
        spec[job] = hosts.split(",")
    return spec


class Task(object):
    """One task's server in a child process (this script with --job_name), stopped on exit."""

    def __init__(self, spec, job_name, task_index):
        self.name = "/job:%s/task:%d" % (job_name, task_index)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--job_name=" + job_name,
             "--task_index=%d" % task_index, "--cluster=" + cluster_flag(spec)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            ready, _, _ = select.select([self.proc.stdout], [], [], STARTUP_SECONDS)
            line = self.proc.stdout.readline() if ready else b""
            if line != b"ready\n":
                if not ready:
                    raise RuntimeError("task %s did not start its server within %d s"
                                       % (self.name, STARTUP_SECONDS))
                raise RuntimeError("task %s exited with status %s before its server started (its error is "
                                   "printed above)" % (self.name, self.proc.wait(timeout=STARTUP_SECONDS)))
        except BaseException:
            self.stop()
            raise

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()  # the child's cue to exit
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def serve():
    """The child: one task's server, until the parent closes our stdin."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it ends us
    cluster = tf.train.ClusterSpec(parse_cluster_flag(FLAGS.cluster))
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.read()
    del server
    os._exit(0)


def hello():
    # 1. a one-task cluster
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        sess = tf.Session(server.target)
        print(sess.run(tf.constant("Hello, distributed TensorFlow!")))
        sess.close()


def two_tasks():
    # 2. two tasks of job "local" in two processes; a node placed on the other task runs there
    p0, p1 = free_ports(2)
    spec = {"local": ["localhost:%d" % p0, "localhost:%d" % p1]}
    cluster = tf.train.ClusterSpec(spec)
    server = tf.train.Server(cluster, job_name="local", task_index=0)
    with Task(spec, "local", 1), tf.Graph().as_default():
        with tf.device("/job:local/task:0"):
            x = tf.constant([1.0, 2.0, 3.0])
        with tf.device("/job:local/task:1"):
            y = x * 2.0
        z = y + x  # no device: the master's own task (task 0)
        with tf.Session("grpc://localhost:%d" % p0, config=tf.ConfigProto(log_device_placement=True)) as sess:
            print(sess.run(z))
    del server


def parameter_server():
    # 3. parameter servers: a variable on /job:ps/task:0, two workers with graphs of their own
    #    (between-graph replication) that name the same variable and update it in turns
    ports = free_ports(3)
    spec = {"ps": ["localhost:%d" % ports[0]],
            "worker": ["localhost:%d" % ports[1], "localhost:%d" % ports[2]]}
    cluster = tf.train.ClusterSpec(spec)
    with Task(spec, "ps", 0):
        workers, sessions, incs, inits = [], [], [], []
        for i in range(2):
            workers.append(tf.train.Server(cluster, job_name="worker", task_index=i))
            g = tf.Graph()
            with g.as_default():
                with tf.device("/job:ps/task:0"):
                    v = tf.Variable(0.0, name="v")
                incs.append(v.assign_add(1.0 if i == 0 else 10.0))  # worker 0 adds 1, worker 1 adds 10
                inits.append(tf.global_variables_initializer())
            sessions.append(tf.Session(workers[i].target, graph=g))
        sessions[0].run(inits[0])  # the chief initializes
        for _ in range(2):
            for i in range(2):
                print("worker %d: v = %s" % (i, sessions[i].run(incs[i])))
        devices = [d.name for d in sessions[1].list_devices()]
        print("worker 1's session sees %d devices: %s" % (len(devices), " ".join(devices)))
        for sess in sessions:
            sess.close()


def main(_):
    if FLAGS.job_name:
        serve()
    hello()
    two_tasks()
    parameter_server()


if __name__ == "__main__":
    tf.app.run()
